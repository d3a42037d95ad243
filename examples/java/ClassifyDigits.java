// ClassifyDigits MODEL SAMPLES_DIR
//
// Classifies every *.pb image (an ONNX TensorProto, [1, 1, 8, 8] floats) in
// SAMPLES_DIR with the digits model from examples/digits, and checks each
// answer against the label in the file name ("digit_03_label_7.pb").
// Prints one line per image and the accuracy; exits 0 when at least 80 %
// are right, 1 otherwise or on any error.
//
//   java -Dkiln.library.path=build/bindings/java/libkiln_jni.so \
//        -cp build/bindings/java/kiln.jar:build/bindings/java/examples/classes \
//        ClassifyDigits examples/digits/digits.onnx examples/digits/samples

import dev.kiln.KilnException;
import dev.kiln.KilnRuntime;
import dev.kiln.Model;
import dev.kiln.Session;
import dev.kiln.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

public final class ClassifyDigits {
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: ClassifyDigits MODEL SAMPLES_DIR");
            System.exit(2);
        }
        List<Path> samples;
        try (Stream<Path> files = Files.list(Path.of(args[1]))) {
            samples = files.filter(p -> p.toString().endsWith(".pb")).sorted()
                    .collect(Collectors.toList());
        }
        int right = 0;
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(Path.of(args[0]));
             Session session = model.newSession()) {
            String input = model.inputs().get(0).name();
            for (Path sample : samples) {
                float[] pixels;
                long[] shape;
                try (Tensor image = Tensor.read(sample)) {
                    pixels = image.toFloatArray();
                    shape = image.shape();
                }
                session.setInput(input, pixels, shape);
                session.run();
                float[] logits = session.getOutputFloats(0);
                int predicted = argmax(logits);
                int label = labelOf(sample.getFileName().toString());
                if (predicted == label) {
                    right++;
                }
                System.out.printf("%s: %d (p=%.3f)%s%n", sample.getFileName(), predicted,
                        softmaxTop(logits, predicted), predicted == label ? "" : "  WRONG, label " + label);
            }
        } catch (KilnException e) {
            System.err.println("ClassifyDigits: " + e.getStatusName() + ": " + e.getMessage());
            System.exit(1);
        }
        System.out.printf("accuracy: %d/%d%n", right, samples.size());
        System.exit(!samples.isEmpty() && right * 5 >= samples.size() * 4 ? 0 : 1);
    }

    private static int argmax(float[] values) {
        int best = 0;
        for (int i = 1; i < values.length; i++) {
            if (values[i] > values[best]) {
                best = i;
            }
        }
        return best;
    }

    /** Probability of class k; the model outputs logits, softmax is ours. */
    private static double softmaxTop(float[] logits, int k) {
        double sum = 0;
        for (float v : logits) {
            sum += Math.exp(v - logits[k]); // relative to the top: no overflow
        }
        return 1.0 / sum;
    }

    private static int labelOf(String name) {
        int at = name.indexOf("_label_");
        return at >= 0 && at + 7 < name.length() ? Character.digit(name.charAt(at + 7), 10) : -1;
    }
}
