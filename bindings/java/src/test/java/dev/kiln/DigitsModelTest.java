package dev.kiln;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The trained digits model on its 20 samples: every way of passing inputs
 * and reading outputs gives exactly the bytes the C API gives (kiln run).
 */
class DigitsModelTest {
    private static KilnRuntime runtime;
    private static Model model;

    @BeforeAll
    static void load() {
        runtime = new KilnRuntime();
        model = runtime.loadModel(TestSupport.source("examples/digits/digits.onnx"));
    }

    @AfterAll
    static void close() {
        model.close();
        runtime.close();
    }

    @Test
    void describesItsInputsAndOutputs() {
        assertEquals(1, model.inputs().size());
        ValueInfo image = model.inputs().get(0);
        assertEquals("image", image.name());
        assertEquals(DType.FLOAT, image.dtype());
        assertEquals(ValueKind.TENSOR, image.kind());
        assertArrayEquals(new long[] {-1, 1, 8, 8}, image.shape());
        assertEquals("logits", model.outputs().get(0).name());
        assertArrayEquals(new long[] {-1, 10}, model.outputs().get(0).shape());
        assertEquals(17, model.opsets().get(""));
        assertEquals(0, model.inputIndex("image"));
    }

    @Test
    void everyInputPathMatchesTheCApiBitForBit() throws Exception {
        List<Path> samples = TestSupport.digitSamples();
        assertEquals(20, samples.size());
        int right = 0;
        try (Session session = model.newSession()) {
            for (Path sample : samples) {
                byte[] expected = TestSupport.cliOutputs(model("digits.onnx"), sample).get(0);
                try (Tensor image = Tensor.read(sample)) {
                    long[] shape = image.shape();
                    float[] pixels = image.toFloatArray();

                    // 1. a Tensor (copied by the library)
                    session.setInput(0, image);
                    session.run();
                    assertArrayEquals(expected, session.getOutputBytes(0), sample + " via Tensor");

                    // 2. a float[] (copied into the session's buffer)
                    session.setInput("image", pixels, shape);
                    session.run();
                    float[] logits = session.getOutputFloats("logits");
                    assertArrayEquals(expected, TestSupport.floatBytes(logits), sample + " via float[]");
                    assertArrayEquals(new long[] {1, 10}, session.outputShape(0));
                    assertEquals(DType.FLOAT, session.outputDType(0));

                    // 3. a direct ByteBuffer (borrowed), at a non-zero position,
                    //    read back into a direct buffer
                    ByteBuffer direct = ByteBuffer.allocateDirect(16 + 4 * pixels.length)
                            .order(ByteOrder.LITTLE_ENDIAN);
                    direct.position(16);
                    direct.slice().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().put(pixels);
                    session.setInput("image", direct, DType.FLOAT, shape);
                    session.run();
                    ByteBuffer out = ByteBuffer.allocateDirect(64);
                    out.position(8);
                    assertEquals(40, session.copyOutput(0, out));
                    assertEquals(48, out.position());
                    byte[] copied = new byte[40];
                    out.position(8);
                    out.get(copied);
                    assertArrayEquals(expected, copied, sample + " via direct ByteBuffer");

                    // 4. a heap ByteBuffer (copied), read into a heap buffer
                    ByteBuffer heap = ByteBuffer.allocate(4 * pixels.length).order(ByteOrder.LITTLE_ENDIAN);
                    heap.asFloatBuffer().put(pixels);
                    session.setInput(0, heap, DType.FLOAT, shape);
                    session.run();
                    ByteBuffer heapOut = ByteBuffer.allocate(40);
                    session.copyOutput(0, heapOut);
                    assertArrayEquals(expected, heapOut.array(), sample + " via heap ByteBuffer");

                    // 5. an owned copy of the output
                    try (Tensor value = session.getOutputValue(0)) {
                        assertArrayEquals(expected, value.toByteArray());
                        assertEquals("logits", value.name());
                    }
                    if (TestSupport.argmax(logits) == TestSupport.labelOf(sample)) {
                        right++;
                    }
                }
            }
        }
        System.out.printf("digits: %d/%d right, all outputs identical to the C API's%n", right,
                samples.size());
        assertEquals(20, right, "examples/digits/README.md promises 20/20 on the samples");
    }

    @Test
    void batchOfSamplesMatchesSingleRuns() throws Exception {
        List<Path> samples = TestSupport.digitSamples().subList(0, 4);
        float[] batch = new float[4 * 64];
        float[][] single = new float[4][];
        try (Session session = model.newSession()) {
            for (int i = 0; i < 4; i++) {
                try (Tensor image = Tensor.read(samples.get(i))) {
                    System.arraycopy(image.toFloatArray(), 0, batch, 64 * i, 64);
                    session.setInput(0, image);
                }
                session.run();
                single[i] = session.getOutputFloats(0);
            }
            session.setInput("image", batch, 4, 1, 8, 8);
            session.run();
            assertArrayEquals(new long[] {4, 10}, session.outputShape(0));
            float[] logits = session.getOutputFloats(0);
            for (int i = 0; i < 4; i++) {
                assertEquals(TestSupport.argmax(single[i]),
                        TestSupport.argmax(java.util.Arrays.copyOfRange(logits, 10 * i, 10 * i + 10)));
            }
        }
    }

    private static Path model(String name) {
        return TestSupport.source("examples/digits/" + name);
    }
}
