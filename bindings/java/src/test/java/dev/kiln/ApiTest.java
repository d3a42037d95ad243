package dev.kiln;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The rest of the surface: tensors, sequences, profiling, images, cancel. */
class ApiTest {
    @Test
    void libraryAndEnums() {
        assertEquals(KilnNative.ABI_VERSION, KilnNative.abiVersion());
        assertFalse(KilnRuntime.version().isEmpty());
        assertTrue(KilnNative.statusName(KilnConstants.ERR_SHAPE).contains("shape"));
        assertEquals(32, DType.FLOAT.bits());
        assertEquals(4, DType.INT4.bits());
        assertEquals(8, DType.FLOAT8E4M3FN.bits());
        assertEquals(DType.INT64, DType.fromCode(7));
        assertNull(DType.fromCode(1000));
        assertEquals(Status.SHAPE, new KilnException(6, "x").getStatus());
        assertEquals("status 99", new KilnException(99, "x").getStatusName());
    }

    @Test
    void tensorEncodeDecodeRoundTrip() {
        float[] values = {1.5f, -2f, 0f, Float.NaN, Float.MIN_VALUE, 3e38f};
        try (Tensor t = Tensor.of(values, 2, 3)) {
            assertEquals(ValueKind.TENSOR, t.kind());
            assertEquals(DType.FLOAT, t.dtype());
            assertArrayEquals(new long[] {2, 3}, t.shape());
            assertArrayEquals(TestSupport.floatBytes(values), TestSupport.floatBytes(t.toFloatArray()));
            byte[] proto = Tensor.encode("named", DType.FLOAT, new long[] {2, 3},
                    ByteBuffer.wrap(TestSupport.floatBytes(values)));
            try (Tensor back = Tensor.decode(proto)) {
                assertEquals("named", back.name());
                assertArrayEquals(t.toByteArray(), back.toByteArray());
            }
        }
        try (Tensor ints = Tensor.ofArray(new long[] {1, -2, 3}, DType.INT64, 3)) {
            assertArrayEquals(new long[] {1, -2, 3}, ints.toLongArray());
            assertThrows(KilnException.class, ints::toFloatArray);
        }
        try (Tensor scalar = Tensor.ofArray(new int[] {42}, DType.INT32)) {
            assertArrayEquals(new long[0], scalar.shape());
            assertArrayEquals(new int[] {42}, scalar.toIntArray());
        }
    }

    @Test
    void sequencesAndOptionalsPassThrough() throws Exception {
        byte[] two = Files.readAllBytes(TestSupport.source("tests/data/models/seq_two.pb"));
        byte[] some = Files.readAllBytes(TestSupport.source("tests/data/models/seq_opt_tensor.pb"));
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(TestSupport.source("tests/data/models/seq_identity.onnx"));
             Session session = model.newSession();
             Tensor sequence = Tensor.decode(two, ValueKind.SEQUENCE);
             Tensor optional = Tensor.decode(some, ValueKind.OPTIONAL)) {
            assertEquals(ValueKind.SEQUENCE, model.inputs().get(0).kind());
            assertEquals(2, sequence.elementCount());
            session.setInput("S", sequence);
            session.setInput("O", optional);
            session.run();
            try (Tensor t = session.getOutputValue(model.outputIndex("T"));
                 Tensor first = t.element(0);
                 Tensor second = t.element(1);
                 Tensor p = session.getOutputValue(model.outputIndex("P"))) {
                assertEquals(ValueKind.SEQUENCE, t.kind());
                assertEquals(2, t.elementCount());
                assertArrayEquals(new long[] {2, 3}, first.shape());
                assertArrayEquals(new float[] {0, 1, 2, 3, 4, 5}, first.toFloatArray());
                assertArrayEquals(new float[] {10, 20}, second.toFloatArray());
                assertEquals(ValueKind.OPTIONAL, p.kind());
                assertEquals(1, p.elementCount());
            }
            assertThrows(KilnException.class, () -> session.getOutputFloats(0)); // not a tensor
        }
    }

    @Test
    void profilingAndMemoryPlan() {
        try (KilnRuntime runtime = new KilnRuntime(new Options().threads(2));
             Model model = runtime.loadModel(TestSupport.source("examples/digits/digits.onnx"),
                     new Options().optimize(1));
             Session session = model.newSession(new Options().profile(true).maxArenaMb(64))) {
            session.setInput("image", new float[64], 1, 1, 8, 8);
            for (int i = 0; i < 3; i++) {
                session.run();
            }
            List<ProfileStep> steps = session.profile();
            assertFalse(steps.isEmpty());
            for (ProfileStep step : steps) {
                assertEquals(3, step.runs(), step.toString());
                assertTrue(step.totalNanos() >= 0);
                assertFalse(step.op().isEmpty());
                assertFalse(step.kernel().isEmpty());
            }
            session.resetProfile();
            assertEquals(0, session.profile().get(0).runs());
            assertTrue(model.nodeCount() >= steps.size());
            assertFalse(model.nodeOp(0).isEmpty());
        }
    }

    @Test
    void planCacheKeepsEachBatchSize() {
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(TestSupport.source("examples/digits/digits.onnx"));
             Session session = model.newSession(new Options().planCache(4))) {
            for (int batch : new int[] {1, 3, 1, 3}) {
                session.setInput("image", new float[64 * batch], batch, 1, 8, 8);
                session.run();
            }
            Session.CacheInfo info = session.cacheInfo();
            assertEquals(2, info.plansKept(), info.toString());
            assertEquals(2, info.plansBuilt(), info.toString());
            assertTrue(info.arenaBytes() > 0);
            session.releaseMemory();
            assertEquals(0, session.cacheInfo().plansKept());
            assertEquals(0, session.cacheInfo().arenaBytes());
            Model.MemoryInfo memory = model.memoryInfo();
            assertTrue(memory.weightBytes() > 10 * 256 * 4, memory.toString());
            assertTrue(memory.sharedPreparedBytes() >= 0, memory.toString());
            assertTrue(memory.givenBackBytes() >= 0, memory.toString());
        }
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(TestSupport.source("examples/digits/digits.onnx"))) {
            assertThrows(KilnException.class, () -> model.newSession(new Options().planCache(0)));
        }
    }

    @Test
    void imageToTensorNormalizes() {
        // 2x1 RGB: a white and a black pixel, kept at 2x1, mean 0.5 std 0.5.
        byte[] pixels = {(byte) 255, (byte) 255, (byte) 255, 0, 0, 0};
        float[] out = Images.toTensor(pixels, 2, 1, 3, 2, 1, 3, new float[] {0.5f, 0.5f, 0.5f},
                new float[] {0.5f, 0.5f, 0.5f}, false);
        assertArrayEquals(new float[] {1, -1, 1, -1, 1, -1}, out);
        assertThrows(IllegalArgumentException.class,
                () -> Images.toTensor(new byte[5], 2, 1, 3, 2, 1, 3, null, null, false));
        assertThrows(IllegalArgumentException.class,
                () -> Images.toTensor(pixels, 2, 1, 3, 2, 1, 3, new float[] {0.5f}, null, false));
    }

    @Test
    void cancelFromAnotherThreadStopsARun() throws Exception {
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(TestSupport.source("examples/digits/digits.onnx"));
             Session session = model.newSession()) {
            session.setInput("image", new float[64 * 256], 256, 1, 8, 8);
            session.run();
            session.cancel(); // nothing in flight: no effect on the next run
            session.run();
            AtomicBoolean stop = new AtomicBoolean();
            Thread canceller = new Thread(() -> {
                while (!stop.get()) {
                    session.cancel();
                    try {
                        Thread.sleep(1); // let runs start between cancels
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            canceller.start();
            int cancelled = 0;
            try {
                for (int i = 0; i < 100000 && cancelled == 0; i++) {
                    try {
                        session.run();
                    } catch (KilnException e) {
                        assertEquals(Status.CANCELLED, e.getStatus(), e.toString());
                        cancelled++;
                    }
                }
            } finally {
                stop.set(true);
                canceller.join();
            }
            assertTrue(cancelled > 0, "a cancel from another thread stopped a run");
            session.run(); // later runs are not affected
            assertEquals(2560, session.getOutputFloats(0).length);
        }
    }

    @Test
    void directBufferIsBorrowedNotCopied() {
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(TestSupport.source("tests/data/models/add_relu.onnx"));
             Session session = model.newSession()) {
            ByteBuffer x = ByteBuffer.allocateDirect(24).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer y = ByteBuffer.allocateDirect(24).order(ByteOrder.LITTLE_ENDIAN);
            x.asFloatBuffer().put(new float[] {1, 2, 3, -4, -5, 6});
            y.asFloatBuffer().put(new float[] {1, 1, 1, 1, 1, 1});
            session.setInput("X", x, DType.FLOAT, 2, 3);
            session.setInput("Y", y, DType.FLOAT, 2, 3);
            session.run();
            assertArrayEquals(new float[] {2, 3, 4, 0, 0, 7}, session.getOutputFloats("Z"));
            // Zero copy: a change to the bound buffer is seen by the next run.
            x.asFloatBuffer().put(new float[] {10, 10, 10, 10, 10, 10});
            session.run();
            assertArrayEquals(new float[] {11, 11, 11, 11, 11, 11}, session.getOutputFloats("Z"));
        }
    }

    @Test
    void outputsAreReadByNameAsByIndex() {
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(TestSupport.source("tests/data/models/cast_outputs.onnx"));
             Session session = model.newSession()) {
            session.setInput("X", new float[] {1.5f, -2, 3, 0, 7.25f, -8}, 2, 3);
            session.run();
            double[] doubles = session.getOutputDoubles("D");
            assertArrayEquals(new double[] {1.5, -2, 3, 0, 7.25, -8}, doubles);
            assertArrayEquals(session.getOutputDoubles(0), doubles);
            int[] ints = session.getOutputInts("I");
            assertArrayEquals(new int[] {1, -2, 3, 0, 7, -8}, ints);
            assertArrayEquals(session.getOutputInts(1), ints);
            assertArrayEquals(new long[] {2, 3}, session.outputShape("D"));
            assertArrayEquals(session.outputShape(1), session.outputShape("I"));
            assertEquals(DType.DOUBLE, session.outputDType("D"));
            assertEquals(DType.INT32, session.outputDType("I"));
            KilnException e = assertThrows(KilnException.class, () -> session.outputShape("missing"));
            assertEquals(Status.NOT_FOUND, e.getStatus());
        }
    }

    @Test
    void cpuSessionRefusesDeviceMemory() {
        // no device runs here; tests/test_device_io.c runs these on a test double
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(TestSupport.source("examples/digits/digits.onnx"));
             Session session = model.newSession()) {
            KilnException e = assertThrows(KilnException.class,
                () -> session.setInputDevice("image", DType.FLOAT, 0x10000L, 256, 1, 1, 8, 8));
            assertEquals(Status.UNSUPPORTED, e.getStatus());
            assertTrue(e.getMessage().contains("the session runs on cpu; set KILN_SOPT_DEVICE"),
                e.getMessage());
            e = assertThrows(KilnException.class, () -> session.bindOutputDevice(0, 0x10000L, 40));
            assertEquals(Status.UNSUPPORTED, e.getStatus());
            e = assertThrows(KilnException.class, session::deviceStream);
            assertEquals(Status.UNSUPPORTED, e.getStatus());
        }
    }
}
