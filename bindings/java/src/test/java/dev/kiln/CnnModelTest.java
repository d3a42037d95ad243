package dev.kiln;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * torchvision's squeezenet1_1 (random, calibrated weights; exported by
 * tools/export_models.py): the Java outputs equal the C API's bit for bit.
 */
class CnnModelTest {
    @Test
    void squeezenetMatchesTheCApiBitForBit() throws Exception {
        String skip = System.getProperty("kiln.models.skip", "");
        Assumptions.assumeTrue(skip.isEmpty(), () -> "squeezenet1_1 not exported: " + skip);
        Path dir = Path.of(System.getProperty("kiln.models.dir", "models")).resolve("squeezenet1_1");
        Path modelPath = dir.resolve("model.onnx");
        Path inputPath = dir.resolve("input_0.pb");
        Assumptions.assumeTrue(Files.exists(modelPath), () -> "no " + modelPath);

        List<byte[]> expected = TestSupport.cliOutputs(modelPath, inputPath);
        assertEquals(1, expected.size());
        assertEquals(4000, expected.get(0).length);
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(modelPath);
             Session session = model.newSession();
             Tensor input = Tensor.read(inputPath)) {
            assertEquals("input", model.inputs().get(0).name());
            assertArrayEquals(new long[] {1, 3, 224, 224}, input.shape());

            float[] pixels = input.toFloatArray();
            session.setInput("input", pixels, 1, 3, 224, 224);
            session.run();
            float[] scores = session.getOutputFloats(0);
            assertArrayEquals(expected.get(0), TestSupport.floatBytes(scores), "float[] input");

            ByteBuffer direct = ByteBuffer.allocateDirect(4 * pixels.length);
            direct.put(input.toByteArray()).flip();
            session.setInput(0, direct, DType.FLOAT, 1, 3, 224, 224);
            session.run();
            ByteBuffer out = ByteBuffer.allocateDirect(4000);
            session.copyOutput(0, out);
            byte[] bytes = new byte[4000];
            out.flip().get(bytes);
            assertArrayEquals(expected.get(0), bytes, "direct ByteBuffer input");

            float max = Float.NEGATIVE_INFINITY;
            for (float s : scores) {
                max = Math.max(max, s);
            }
            assertTrue(Float.isFinite(max));
            assertTrue(session.arenaBytes() > 0);
            assertTrue(session.intermediateBytes() >= session.arenaBytes());
            System.out.printf("squeezenet1_1: 1000 scores identical to the C API's (top class %d,"
                    + " score %.4f); arena %d KiB vs %d KiB of intermediates%n",
                    TestSupport.argmax(scores), max, session.arenaBytes() / 1024,
                    session.intermediateBytes() / 1024);
        }
    }
}
