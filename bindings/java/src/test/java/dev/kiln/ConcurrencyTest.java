package dev.kiln;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Eight threads share one Model, each with its own Session, 1,000 runs
 * each over the digit samples: every output must equal the single-threaded
 * one bit for bit, and memory must stay flat.
 */
class ConcurrencyTest {
    private static final int THREADS = 8;
    private static final int RUNS = 1000;
    private static final long MAX_GROWTH_KIB = 20 * 1024;

    @Test
    void eightThreadsShareOneModel() throws Exception {
        List<Path> samples = TestSupport.digitSamples();
        int n = samples.size();
        float[][] inputs = new float[n][];
        byte[][] expected = new byte[n][];
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(TestSupport.source("examples/digits/digits.onnx"))) {
            try (Session session = model.newSession()) {
                for (int i = 0; i < n; i++) {
                    try (Tensor image = Tensor.read(samples.get(i))) {
                        inputs[i] = image.toFloatArray();
                    }
                    session.setInput("image", inputs[i], 1, 1, 8, 8);
                    session.run();
                    expected[i] = session.getOutputBytes(0);
                }
                // Warm up the JIT and the allocator before the first reading.
                for (int r = 0; r < 2000; r++) {
                    session.setInput("image", inputs[r % n], 1, 1, 8, 8);
                    session.run();
                    session.getOutputFloats(0);
                }
            }
            System.gc();
            long before = TestSupport.rssKib();

            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                final int offset = t;
                results.add(pool.submit(() -> {
                    int checked = 0;
                    try (Session session = model.newSession()) {
                        for (int r = 0; r < RUNS; r++) {
                            int i = (r + offset) % n;
                            session.setInput("image", inputs[i], 1, 1, 8, 8);
                            session.run();
                            assertArrayEquals(expected[i], session.getOutputBytes(0),
                                    "thread " + offset + " run " + r);
                            checked++;
                        }
                    }
                    return checked;
                }));
            }
            int total = 0;
            for (Future<Integer> result : results) {
                total += result.get();
            }
            pool.shutdown();
            System.gc();
            long after = TestSupport.rssKib();
            assertEquals(THREADS * RUNS, total);
            System.out.printf("concurrency: %d threads x %d runs, all outputs identical; "
                    + "RSS before %d KiB, after %d KiB (growth %d KiB, limit %d KiB)%n",
                    THREADS, RUNS, before, after, after - before, MAX_GROWTH_KIB);
            if (!System.getProperty("kiln.sanitized", "").isEmpty()) {
                System.out.println("RSS limit not checked: AddressSanitizer holds freed memory back");
                return;
            }
            assertTrue(after - before <= MAX_GROWTH_KIB,
                    "RSS grew by " + (after - before) + " KiB over " + THREADS * RUNS + " runs");
        }
    }

    @Test
    void oneSessionSharedByThreadsIsSerialized() throws Exception {
        // Session methods are synchronized, so sharing one is safe (if slow).
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(TestSupport.source("examples/digits/digits.onnx"));
             Session session = model.newSession()) {
            float[] zeros = new float[64];
            session.setInput("image", zeros, 1, 1, 8, 8);
            session.run();
            byte[] expected = session.getOutputBytes(0);
            Thread[] threads = new Thread[4];
            Throwable[] failure = new Throwable[1];
            for (int t = 0; t < threads.length; t++) {
                threads[t] = new Thread(() -> {
                    try {
                        for (int r = 0; r < 200; r++) {
                            synchronized (session) { // bind, run and read as one unit
                                session.setInput("image", zeros, 1, 1, 8, 8);
                                session.run();
                                assertArrayEquals(expected, session.getOutputBytes(0));
                            }
                        }
                    } catch (Throwable e) {
                        synchronized (failure) {
                            failure[0] = e;
                        }
                    }
                });
                threads[t].start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure[0] != null) {
                throw new AssertionError(failure[0]);
            }
        }
    }
}
