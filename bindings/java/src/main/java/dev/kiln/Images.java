package dev.kiln;

import java.nio.ByteBuffer;

/**
 * Image files to pixels ({@link #decode}) and 8-bit pixels to a float NCHW
 * model input ({@link #toTensor}).
 */
public final class Images {
    private Images() {}

    /** A decoded image: height rows of width pixels, channels bytes each. */
    public static final class Decoded {
        /** Rows top to bottom, channels interleaved (R, G, B; or luma). */
        public final byte[] pixels;
        public final int width;
        public final int height;
        public final int channels;

        Decoded(byte[] pixels, int width, int height, int channels) {
            this.pixels = pixels;
            this.width = width;
            this.height = height;
            this.channels = channels;
        }
    }

    /**
     * Decodes a PNG, JPEG, WebP, JPEG 2000, BMP, PNM or TIFF image (told
     * apart by its first bytes) into 8-bit pixels. Alpha is dropped.
     *
     * @param encoded the image file's bytes
     * @param channels 3 for R, G, B; 1 for luma (ITU-R 601 weights, as PIL's
     *     convert("L"))
     * @throws KilnException INVALID_ARGUMENT for a corrupt image (naming the
     *     format and the defect), UNSUPPORTED for a format this libkiln was
     *     built without (naming the library)
     */
    public static Decoded decode(byte[] encoded, int channels) {
        NativeLibrary.ensureLoaded();
        ByteBuffer data = ByteBuffer.allocateDirect(encoded.length);
        data.put(encoded);
        // No pixel buffer: the sizes only. Then the decode into one that fits.
        KilnNative.ImageDecode size = KilnNative.imageDecode(data, channels, null);
        ByteBuffer pixels = ByteBuffer.allocateDirect(Math.toIntExact(size.needed));
        KilnNative.ImageDecode done = KilnNative.imageDecode(data, channels, pixels);
        byte[] out = new byte[pixels.capacity()];
        pixels.get(0, out);
        return new Decoded(out, done.width, done.height, channels);
    }

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
