package dev.kiln;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** Bad input raises KilnException with the C API's status and message. */
class ErrorTest {
    private KilnRuntime runtime;
    private Model model;
    private Session session;

    @BeforeEach
    void open() {
        runtime = new KilnRuntime();
        model = runtime.loadModel(TestSupport.source("examples/digits/digits.onnx"));
        session = model.newSession();
    }

    @AfterEach
    void close() {
        session.close();
        model.close();
        runtime.close();
    }

    private static KilnException expect(Status status, Executable call) {
        KilnException e = assertThrows(KilnException.class, call);
        assertEquals(status, e.getStatus(), e.toString());
        assertEquals(status.code(), e.getCode());
        assertEquals(status.name(), e.getStatusName());
        assertFalse(e.getMessage().isEmpty(), "the library's message is carried");
        return e;
    }

    @Test
    void badModelBytes() throws Exception {
        expect(Status.INVALID_MODEL, () -> runtime.loadModel(new byte[] {8, 1, 18, 7, 'b', 'r', 'o'}));
        expect(Status.INVALID_MODEL, () -> runtime.loadModel(new byte[] {(byte) 0xff, 1, 2, 3}));
        byte[] good = Files.readAllBytes(TestSupport.source("examples/digits/digits.onnx"));
        byte[] truncated = java.util.Arrays.copyOf(good, good.length / 2);
        expect(Status.INVALID_MODEL, () -> runtime.loadModel(truncated));
        try (Model fromBytes = runtime.loadModel(good)) {
            assertEquals("image", fromBytes.inputs().get(0).name());
        }
    }

    @Test
    void missingFileAndUnsupportedOp() {
        KilnException e = expect(Status.IO, () -> runtime.loadModel(Path.of("/nonexistent/model.onnx")));
        assertTrue(e.getMessage().contains("/nonexistent/model.onnx"), e.getMessage());
        e = expect(Status.UNSUPPORTED,
                () -> runtime.loadModel(TestSupport.source("tests/data/models/unsupported_op.onnx")));
        assertTrue(e.getMessage().contains("FrobnicateTensor"), e.getMessage());
    }

    @Test
    void wrongDtype() {
        expect(Status.DTYPE, () -> session.setInput("image", new int[64], 1, 1, 8, 8));
        expect(Status.DTYPE, () -> session.setInput("image", new double[64], 1, 1, 8, 8));
        expect(Status.DTYPE, () -> session.setInput(0, ByteBuffer.allocateDirect(512), DType.INT64, 1, 1, 8, 8));
    }

    @Test
    void wrongShape() {
        expect(Status.SHAPE, () -> session.setInput("image", new float[72], 1, 1, 8, 9));
        expect(Status.SHAPE, () -> session.setInput("image", new float[64], 1, 64));
        expect(Status.SHAPE, () -> session.setInput("image", new float[128], 1, 2, 8, 8));
    }

    @Test
    void dataSizeNotMatchingShape() {
        expect(Status.INVALID_ARGUMENT, () -> session.setInput("image", new float[63], 1, 1, 8, 8));
        expect(Status.INVALID_ARGUMENT,
                () -> session.setInput(0, ByteBuffer.allocateDirect(100), DType.FLOAT, 1, 1, 8, 8));
    }

    @Test
    void unknownInputAndOutput() {
        KilnException e = expect(Status.NOT_FOUND, () -> session.setInput("pixels", new float[64], 1, 1, 8, 8));
        assertTrue(e.getMessage().contains("pixels"), e.getMessage());
        expect(Status.NOT_FOUND, () -> session.getOutputFloats("probabilities"));
        expect(Status.INVALID_ARGUMENT, () -> session.setArray(3, new float[64], DType.FLOAT, 1, 1, 8, 8));
    }

    @Test
    void callsInTheWrongOrder() {
        expect(Status.STATE, () -> session.run()); // no input bound
        expect(Status.STATE, () -> session.getOutputFloats(0)); // no run yet
        session.setInput("image", new float[64], 1, 1, 8, 8);
        session.run();
        expect(Status.INVALID_ARGUMENT, () -> session.getOutputFloats(1));
        expect(Status.DTYPE, () -> session.getOutputLongs(0));
        expect(Status.BUFFER_TOO_SMALL, () -> session.copyOutput(0, ByteBuffer.allocateDirect(39)));
        expect(Status.BUFFER_TOO_SMALL, () -> session.copyOutput(0, ByteBuffer.allocate(39)));
        expect(Status.STATE, () -> session.profile()); // profiling is off
    }

    @Test
    void badOptionsAndTensors() {
        expect(Status.INVALID_ARGUMENT, () -> new KilnRuntime(new Options().threads(0)));
        expect(Status.INVALID_ARGUMENT, () -> new KilnRuntime(new Options().set(999, 1)));
        expect(Status.INVALID_MODEL, () -> Tensor.decode(new byte[] {(byte) 0xff, (byte) 0xff}));
        expect(Status.INVALID_ARGUMENT, () -> Tensor.decode(new byte[0], ValueKind.SEQUENCE).element(0));
    }

    /* The texts of the mistakes users commonly make: the C library's words
     * (tests/test_error_texts.c), with no C function names. */
    private static void expectText(Status status, String text, Executable call) {
        assertEquals(text, expect(status, call).getMessage());
    }

    private static void expectLead(Status status, String lead, Executable call) {
        String message = expect(status, call).getMessage();
        assertTrue(message.startsWith(lead) && message.length() > lead.length(), message);
    }

    @Test
    void errorTextsNameTheFileTheInputTheDtypeAndTheCount(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope.onnx");
        expectText(Status.IO, "cannot open '" + missing + "': No such file or directory",
                () -> runtime.loadModel(missing));
        Path notes = dir.resolve("notes.txt");
        Files.writeString(notes, "this is not an ONNX model\n");
        expectLead(Status.INVALID_MODEL, "'" + notes + "' is not a valid ONNX model: ",
                () -> runtime.loadModel(notes));
        byte[] good = Files.readAllBytes(TestSupport.source("examples/digits/digits.onnx"));
        byte[] truncated = java.util.Arrays.copyOf(good, good.length / 2);
        expectLead(Status.INVALID_MODEL, "the model bytes are not a valid ONNX model: ",
                () -> runtime.loadModel(truncated));
        Path sample = TestSupport.source("examples/digits/samples/digit_12_label_2.pb");
        expectText(Status.INVALID_MODEL, "'" + sample + "' is an ONNX tensor file, not a model",
                () -> runtime.loadModel(sample));
        expectLead(Status.UNSUPPORTED, "unsupported op FrobnicateTensor (domain ",
                () -> runtime.loadModel(TestSupport.source("tests/data/models/unsupported_op.onnx")));

        expectText(Status.STATE,
                "input 'image' (float32, shape ?x1x8x8) has no value: set it before running",
                () -> session.run());
        expectText(Status.NOT_FOUND, "unknown input 'imgae'; the model's inputs are: 'image'",
                () -> session.setInput("imgae", new float[64], 1, 1, 8, 8));
        expectText(Status.NOT_FOUND, "unknown output 'probs'; the model's outputs are: 'logits'",
                () -> session.getOutputFloats("probs"));
        expectText(Status.DTYPE, "input 'image' expects float32, got float64",
                () -> session.setInput("image", new double[64], 1, 1, 8, 8));
        expectText(Status.INVALID_ARGUMENT,
                "input 'image': 10 float32 elements given, the shape 1x1x8x8 needs 64",
                () -> session.setInput("image", new float[10], 1, 1, 8, 8));
        expectText(Status.SHAPE, "input 'image' expects shape ?x1x8x8, got 1x1x8x9 (dim 3 must be 8)",
                () -> session.setInput("image", new float[72], 1, 1, 8, 9));
        expectText(Status.SHAPE, "input 'image' expects shape ?x1x8x8 (rank 4), got 8x8 (rank 2)",
                () -> session.setInput("image", new float[64], 8, 8));
        session.setInput("image", new float[64], 1, 1, 8, 8);
        session.run();
        expectText(Status.INVALID_ARGUMENT, "output index 3 out of range: the model has 1 output",
                () -> session.getOutputFloats(3));
    }

    @Test
    void closedObjectsAreRefusedInJava() {
        session.close();
        session.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> session.run());
        assertThrows(IllegalStateException.class, () -> session.setInput("image", new float[64], 1, 1, 8, 8));
        session.cancel(); // harmless after close
        model.close();
        assertThrows(IllegalStateException.class, () -> model.newSession());
        assertThrows(NullPointerException.class, () -> KilnNative.modelLoadFile(0, null, 0));
    }

    @Test
    void parentsOutliveTheirChildren() {
        // Closing in the "wrong" order is safe: the native runtime and model
        // are freed only after the last session made from them.
        KilnRuntime rt = new KilnRuntime();
        Model m = rt.loadModel(TestSupport.source("examples/digits/digits.onnx"));
        Session s = m.newSession();
        rt.close();
        m.close();
        s.setInput("image", new float[64], 1, 1, 8, 8);
        s.run();
        assertEquals(10, s.getOutputFloats(0).length);
        s.close();
    }
}
