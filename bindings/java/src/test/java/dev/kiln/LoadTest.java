package dev.kiln;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Loading failures, in child JVMs (a JVM loads a native library once):
 * a missing library and a library of another ABI version give clear errors,
 * the same ones on every attempt.
 */
class LoadTest {
    /** The child: tries twice to make a runtime and prints what it got. */
    public static void main(String[] args) {
        for (int attempt = 0; attempt < 2; attempt++) {
            try (KilnRuntime runtime = new KilnRuntime()) {
                System.out.println("loaded " + KilnRuntime.version());
            } catch (Throwable e) {
                System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }

    private static List<String> child(String libraryPath, String preload) throws Exception {
        String classpath = System.getProperty("kiln.test.classpath", "");
        Assumptions.assumeFalse(classpath.isEmpty(), "kiln.test.classpath is not set");
        List<String> command = new ArrayList<>(List.of(
                javaBinary(), "-Dkiln.library.path=" + libraryPath, "-cp", classpath,
                LoadTest.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (preload != null) {
            Map<String, String> env = builder.environment();
            String before = env.getOrDefault("LD_PRELOAD", "");
            env.put("LD_PRELOAD", before.isEmpty() ? preload : before + ":" + preload);
        }
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), out);
        return out.lines().toList();
    }

    @Test
    void missingLibraryIsAClearError() throws Exception {
        List<String> lines = child("/nonexistent/libkiln_jni.so", null);
        assertEquals(2, lines.size(), lines.toString());
        for (String line : lines) {
            assertTrue(line.startsWith("UnsatisfiedLinkError: "), line);
            assertTrue(line.contains("/nonexistent/libkiln_jni.so"), line);
        }
    }

    @Test
    void otherAbiVersionIsRefused() throws Exception {
        String shim = System.getProperty("kiln.test.abi.shim", "");
        Assumptions.assumeFalse(shim.isEmpty(),
                "no ABI shim (libkiln linked into libkiln_jni cannot be interposed)");
        List<String> lines = child(System.getProperty(NativeLibrary.PATH_PROPERTY), shim);
        assertEquals(2, lines.size(), lines.toString());
        for (String line : lines) {
            assertTrue(line.startsWith("UnsatisfiedLinkError: libkiln has ABI version 999, but these"
                    + " Java bindings were generated for ABI version " + KilnNative.ABI_VERSION), line);
        }
    }

    /**
     * The java binary of this JVM, or the launcher named by kiln.test.java
     * (under qemu-aarch64 without binfmt_misc, the host cannot exec an arm64
     * java: scripts/test_aarch64.sh --java passes a wrapper that runs it).
     */
    private static String javaBinary() {
        String launcher = System.getProperty("kiln.test.java", "");
        if (!launcher.isEmpty()) {
            return launcher;
        }
        return java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
