package dev.kiln;

/** Image preprocessing: 8-bit pixels to a float NCHW model input. */
public final class Images {
    private Images() {}

    /**
     * Resizes (bilinear, half-pixel centres) and normalizes 8-bit pixels
     * into a [1, outChannels, outHeight, outWidth] float array:
     * (pixel / 255 - mean[c]) / std[c].
     *
     * @param pixels rows of width * channels bytes, rows packed together
     * @param channels 1 gray, 3 RGB, 4 RGBA
     * @param mean per output channel, or null for 0
     * @param std per output channel, or null for 1
     * @param bgr write channels in B, G, R order
     */
    public static float[] toTensor(byte[] pixels, int width, int height, int channels,
            int outWidth, int outHeight, int outChannels, float[] mean, float[] std,
            boolean bgr) {
        NativeLibrary.ensureLoaded();
        float[] out = new float[Math.multiplyExact(Math.multiplyExact(outChannels, outHeight),
                outWidth)];
        KilnNative.imageToTensor(pixels, width, height, width * channels, channels, outWidth,
                outHeight, outChannels, mean, std, bgr ? KilnConstants.IMAGE_BGR : 0, out);
        return out;
    }
}
