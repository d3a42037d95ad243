package dev.kiln;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Paths given by run_tests.sh as system properties, and reference outputs
 * computed by the C API through the kiln CLI ({@code kiln run}), which the
 * Java results must equal bit for bit.
 */
final class TestSupport {
    private static final AtomicInteger RUNS = new AtomicInteger();

    private TestSupport() {}

    static Path sourceDir() {
        return Path.of(System.getProperty("kiln.source.dir", "."));
    }

    static Path source(String relative) {
        return sourceDir().resolve(relative);
    }

    static Path workDir() throws IOException {
        Path dir = Path.of(System.getProperty("kiln.work.dir", "java-test-work"));
        Files.createDirectories(dir);
        return dir;
    }

    /**
     * Runs {@code kiln run MODEL -i INPUT... -o DIR} and returns the raw
     * bytes of each output tensor it wrote (output_K.pb, decoded).
     */
    static List<byte[]> cliOutputs(Path model, Path... inputs) throws IOException, InterruptedException {
        Path out = workDir().resolve("cli-" + RUNS.incrementAndGet());
        List<String> command = new ArrayList<>(List.of(System.getProperty("kiln.cli", "kiln"), "run",
                model.toString(), "-o", out.toString()));
        for (Path input : inputs) {
            command.add("-i");
            command.add(input.toString());
        }
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String log = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), "kiln run failed:\n" + log);
        List<byte[]> outputs = new ArrayList<>();
        for (int k = 0; Files.exists(out.resolve("output_" + k + ".pb")); k++) {
            try (Tensor t = Tensor.read(out.resolve("output_" + k + ".pb"))) {
                outputs.add(t.toByteArray());
            }
        }
        return outputs;
    }

    /** VmRSS of this process in KiB, from /proc/self/status. */
    static long rssKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }

    /** The digit samples, sorted by name. */
    static List<Path> digitSamples() throws IOException {
        try (var files = Files.list(source("examples/digits/samples"))) {
            return files.filter(p -> p.toString().endsWith(".pb")).sorted().toList();
        }
    }

    static int labelOf(Path sample) {
        String name = sample.getFileName().toString();
        int at = name.indexOf("_label_");
        return Character.digit(name.charAt(at + 7), 10);
    }

    static int argmax(float[] values) {
        int best = 0;
        for (int i = 1; i < values.length; i++) {
            if (values[i] > values[best]) {
                best = i;
            }
        }
        return best;
    }

    static byte[] floatBytes(float[] values) {
        return Buffers.toBytes(Buffers.fromArray(values, null));
    }
}
