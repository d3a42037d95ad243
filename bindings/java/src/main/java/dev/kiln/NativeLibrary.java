package dev.kiln;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads libkiln_jni (and through it libkiln) once, then checks that the
 * library's ABI version is the one the generated glue was written for.
 *
 * <p>Where the library comes from, first match wins:
 * <ol>
 *   <li>the system property {@code kiln.library.path}: the full path of
 *       libkiln_jni.so ({@code System.load}); libkiln.so.0 is found next to
 *       it (RPATH {@code $ORIGIN}) or on the usual search path;</li>
 *   <li>a jar built with the native libraries inside:
 *       {@code lib/<os>-<arch>/libkiln_jni.so} (and {@code libkiln.so.0},
 *       unless libkiln is linked into it) are copied to a private temporary
 *       folder and loaded from there;</li>
 *   <li>{@code System.loadLibrary("kiln_jni")}: java.library.path, and on
 *       Android the app's own native library folder.</li>
 * </ol>
 */
final class NativeLibrary {
    static final String PATH_PROPERTY = "kiln.library.path";

    private static final Object LOCK = new Object();
    private static boolean loaded;
    private static boolean loading; // re-entered from KilnNative's initializer
    private static LinkageError failure;

    private NativeLibrary() {}

    /** Loads and checks the library, or throws the same error every time. */
    static void ensureLoaded() {
        synchronized (LOCK) {
            if (loaded || loading) {
                return;
            }
            if (failure != null) {
                throw failure;
            }
            loading = true;
            try {
                load();
                checkAbi();
                loaded = true;
            } catch (LinkageError e) {
                failure = e;
                throw e;
            } finally {
                loading = false;
            }
        }
    }

    private static void load() {
        String path = System.getProperty(PATH_PROPERTY);
        if (path != null && !path.isEmpty()) {
            System.load(Path.of(path).toAbsolutePath().toString());
            return;
        }
        String folder = "/lib/" + platform() + "/";
        if (NativeLibrary.class.getResource(folder + "libkiln_jni.so") != null) {
            loadFromJar(folder);
            return;
        }
        System.loadLibrary("kiln_jni");
    }

    /** "linux-x86_64", "linux-aarch64": the folder name inside the jar. */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            arch = "x86_64";
        } else if (arch.equals("arm64")) {
            arch = "aarch64";
        }
        return (os.startsWith("linux") ? "linux" : os.replace(' ', '_')) + "-" + arch;
    }

    private static void loadFromJar(String folder) {
        try {
            Path dir = Files.createTempDirectory("kiln-native-");
            dir.toFile().deleteOnExit();
            // libkiln first (absent when libkiln_jni has it linked in):
            // libkiln_jni needs it, and the dynamic linker finds an already
            // loaded library by its soname.
            for (String name : new String[] {"libkiln.so.0", "libkiln_jni.so"}) {
                try (InputStream in = NativeLibrary.class.getResourceAsStream(folder + name)) {
                    if (in == null) {
                        continue;
                    }
                    Path target = dir.resolve(name);
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    target.toFile().deleteOnExit();
                    System.load(target.toString());
                }
            }
        } catch (IOException e) {
            UnsatisfiedLinkError error =
                    new UnsatisfiedLinkError("cannot unpack Kiln's native libraries: " + e);
            error.initCause(e);
            throw error;
        }
    }

    private static void checkAbi() {
        int found = KilnNative.abiVersion();
        if (found != KilnNative.ABI_VERSION) {
            throw new UnsatisfiedLinkError("libkiln has ABI version " + found
                    + ", but these Java bindings were generated for ABI version "
                    + KilnNative.ABI_VERSION + " (libkiln " + KilnNative.version()
                    + "); use the libkiln that came with this jar");
        }
    }
}
