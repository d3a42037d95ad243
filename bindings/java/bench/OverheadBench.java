// OverheadBench MODEL C_LOOP_PROGRAM [ITERATIONS BATCHES]
//
// What the Java binding adds per run: times the loop "bind every input, run,
// copy every output out" through Java and, in a child process, the same loop
// in C (run_loop.c), on a model small enough that the binding's cost shows
// (tests/data/models/add_relu.onnx: 2x3 floats). Two Java variants:
//   direct  inputs borrowed from direct ByteBuffers, outputs copied into a
//           direct ByteBuffer (no copies beyond the C loop's)
//   arrays  inputs copied from float[], outputs returned as new float[]
// Reports the fastest and the median batch, per run, in microseconds, and the
// overhead over C. Exits 1 if the direct overhead's median exceeds the limit
// (KILN_JAVA_OVERHEAD_LIMIT_US, default 25: far above the few microseconds
// expected, so that only a real regression, not a busy machine, fails it).

import dev.kiln.DType;
import dev.kiln.KilnRuntime;
import dev.kiln.Model;
import dev.kiln.Session;
import dev.kiln.ValueInfo;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

public final class OverheadBench {
    interface Loop {
        void iterate();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 && args.length != 4) {
            System.err.println("usage: OverheadBench MODEL C_LOOP_PROGRAM [ITERATIONS BATCHES]");
            System.exit(2);
        }
        int iterations = args.length == 4 ? Integer.parseInt(args[2]) : 20000;
        int batches = args.length == 4 ? Integer.parseInt(args[3]) : 15;
        double limit = Double.parseDouble(System.getenv().getOrDefault("KILN_JAVA_OVERHEAD_LIMIT_US", "25"));

        double[] c1 = runC(args[1], args[0], iterations, batches);
        double[] direct;
        double[] arrays;
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(Path.of(args[0]));
             Session session = model.newSession()) {
            List<ValueInfo> inputs = model.inputs();
            int n = inputs.size();
            long[][] shapes = new long[n][];
            float[][] values = new float[n][];
            ByteBuffer[] buffers = new ByteBuffer[n];
            for (int i = 0; i < n; i++) {
                shapes[i] = inputs.get(i).shape();
                int count = 1;
                for (int d = 0; d < shapes[i].length; d++) {
                    shapes[i][d] = Math.max(shapes[i][d], 1);
                    count *= (int) shapes[i][d];
                }
                values[i] = new float[count];
                for (int k = 0; k < count; k++) {
                    values[i][k] = ((k % 7) - 3) * 0.5f; // run_loop.c's pattern
                }
                buffers[i] = ByteBuffer.allocateDirect(4 * count).order(ByteOrder.LITTLE_ENDIAN);
                buffers[i].asFloatBuffer().put(values[i]);
                session.setInput(i, buffers[i], DType.FLOAT, shapes[i]);
            }
            session.run();
            int outputs = session.outputCount();
            ByteBuffer[] outs = new ByteBuffer[outputs];
            for (int o = 0; o < outputs; o++) {
                outs[o] = ByteBuffer.allocateDirect(session.getOutputBytes(o).length);
            }
            direct = time(iterations, batches, () -> {
                for (int i = 0; i < n; i++) {
                    session.setInput(i, buffers[i], DType.FLOAT, shapes[i]);
                }
                session.run();
                for (int o = 0; o < outputs; o++) {
                    outs[o].clear();
                    session.copyOutput(o, outs[o]);
                }
            });
            float[][] sink = new float[outputs][];
            arrays = time(iterations, batches, () -> {
                for (int i = 0; i < n; i++) {
                    session.setArray(i, values[i], DType.FLOAT, shapes[i]);
                }
                session.run();
                for (int o = 0; o < outputs; o++) {
                    sink[o] = session.getOutputFloats(o);
                }
            });
        }
        double[] c2 = runC(args[1], args[0], iterations, batches);
        double cMin = Math.min(c1[0], c2[0]);
        double cMedian = Math.min(c1[1], c2[1]);

        System.out.printf("model %s, %d batches of %d runs; microseconds per run%n",
                Path.of(args[0]).getFileName(), batches, iterations);
        System.out.printf("  %-22s %9s %9s %14s %14s%n", "", "fastest", "median",
                "overhead(fast)", "overhead(med)");
        System.out.printf("  %-22s %9.3f %9.3f%n", "C API (run_loop)", cMin, cMedian);
        print("Java, direct buffers", direct, cMin, cMedian);
        print("Java, arrays", arrays, cMin, cMedian);
        double overhead = direct[1] - cMedian;
        System.out.printf("java_overhead_us=%.3f (direct buffers, median; arrays: %.3f)%n",
                overhead, arrays[1] - cMedian);
        if (overhead > limit) {
            System.out.printf("FAIL: overhead %.3f us is above the limit of %.1f us%n", overhead, limit);
            System.exit(1);
        }
    }

    private static void print(String label, double[] t, double cMin, double cMedian) {
        System.out.printf("  %-22s %9.3f %9.3f %14.3f %14.3f%n", label, t[0], t[1], t[0] - cMin,
                t[1] - cMedian);
    }

    /** {fastest, median} microseconds per iteration over the batches, after warm-up. */
    private static double[] time(int iterations, int batches, Loop loop) {
        for (int i = 0; i < 5 * iterations; i++) { // let the JIT compile the loop
            loop.iterate();
        }
        double[] perRun = new double[batches];
        for (int b = 0; b < batches; b++) {
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                loop.iterate();
            }
            perRun[b] = (System.nanoTime() - start) / 1e3 / iterations;
        }
        Arrays.sort(perRun);
        return new double[] {perRun[0], perRun[batches / 2]};
    }

    private static double[] runC(String program, String model, int iterations, int batches)
            throws IOException, InterruptedException {
        Process process = new ProcessBuilder(program, model, String.valueOf(iterations),
                String.valueOf(batches)).redirectErrorStream(true).start();
        String line;
        StringBuilder all = new StringBuilder();
        double[] result = null;
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            while ((line = reader.readLine()) != null) {
                all.append(line).append('\n');
                if (line.startsWith("per_run_us ")) {
                    String[] parts = line.split("[ =]");
                    result = new double[] {Double.parseDouble(parts[2]), Double.parseDouble(parts[4])};
                }
            }
        }
        if (process.waitFor() != 0 || result == null) {
            throw new IllegalStateException(program + " failed:\n" + all);
        }
        return result;
    }
}
