// The Java consumer (tests/consumers/run_consumer.sh java): compiled outside
// the repository against kiln.jar alone; prints "FILE CLASS" for every *.pb
// digit sample in SAMPLES_DIR, in name order.
//   usage: java -cp kiln.jar:. App MODEL SAMPLES_DIR

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

public final class App {
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: App MODEL SAMPLES_DIR");
            System.exit(2);
        }
        List<Path> samples;
        try (Stream<Path> files = Files.list(Path.of(args[1]))) {
            samples = files.filter(p -> p.toString().endsWith(".pb")).sorted().collect(Collectors.toList());
        }
        try (KilnRuntime runtime = new KilnRuntime();
             Model model = runtime.loadModel(Path.of(args[0]));
             Session session = model.newSession()) {
            for (Path sample : samples) {
                try (Tensor image = Tensor.read(sample)) {
                    session.setInput("image", image.toFloatArray(), image.shape());
                }
                session.run();
                float[] logits = session.getOutputFloats("logits");
                int best = 0;
                for (int i = 1; i < logits.length; i++) {
                    if (logits[i] > logits[best]) {
                        best = i;
                    }
                }
                System.out.println(sample.getFileName() + " " + best);
            }
        }
    }
}
