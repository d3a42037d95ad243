package dev.kiln;

import java.nio.file.Path;

/**
 * A Kiln runtime (named so it cannot be confused with java.lang.Runtime):
 * the thread pool that its models' sessions run on.
 * Thread-safe; one per process is usual. Closing it while models are still
 * open is allowed: the native runtime then lives until the last one closes.
 *
 * <pre>{@code
 * try (KilnRuntime rt = new KilnRuntime();
 *      Model model = rt.loadModel(Path.of("digits.onnx"));
 *      Session session = model.newSession()) {
 *     session.setInput("image", pixels, 1, 1, 8, 8);
 *     session.run();
 *     float[] logits = session.getOutputFloats(0);
 * }
 * }</pre>
 */
public final class KilnRuntime implements AutoCloseable {
    final NativeHandle handle;

    /** A runtime with the library's defaults (one thread: runs on the caller). */
    public KilnRuntime() {
        this(null);
    }

    /** A runtime with these settings (e.g. {@code new Options().threads(4)}). */
    public KilnRuntime(Options options) {
        NativeLibrary.ensureLoaded();
        long nativeOptions = Options.toNative(options);
        try {
            long pointer = KilnNative.runtimeCreate(nativeOptions);
            handle = NativeHandle.create(this, pointer, KilnNative::runtimeDestroy, null);
        } finally {
            KilnNative.optionsDestroy(nativeOptions);
        }
    }

    /** Loads an ONNX model file (external data next to it is found). */
    public Model loadModel(Path path) {
        return Model.load(this, path, null);
    }

    /** Loads an ONNX model file with load options. */
    public Model loadModel(Path path, Options options) {
        return Model.load(this, path, options);
    }

    /** Loads an ONNX model from bytes (not kept after the call). */
    public Model loadModel(byte[] onnx) {
        return Model.load(this, onnx, null);
    }

    /** The library's release version, e.g. "0.1.0". */
    public static String version() {
        NativeLibrary.ensureLoaded();
        return KilnNative.version();
    }

    long pointer() {
        return handle.get("KilnRuntime");
    }

    @Override
    public void close() {
        handle.close();
    }
}
