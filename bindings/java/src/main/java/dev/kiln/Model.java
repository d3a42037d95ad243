package dev.kiln;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A loaded, validated ONNX model. Immutable and thread-safe: share one Model
 * between threads and give each thread its own {@link Session}.
 */
public final class Model implements AutoCloseable {
    final NativeHandle handle;
    private final List<ValueInfo> inputs;
    private final List<ValueInfo> outputs;
    private final Map<String, Integer> inputIndex = new HashMap<>();
    private final Map<String, Integer> outputIndex = new HashMap<>();

    private Model(KilnRuntime runtime, long pointer) {
        handle = NativeHandle.create(this, pointer, KilnNative::modelDestroy, runtime.handle);
        try {
            inputs = describe(pointer, true);
            outputs = describe(pointer, false);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        for (int i = 0; i < inputs.size(); i++) {
            inputIndex.put(inputs.get(i).name(), i);
        }
        for (int i = 0; i < outputs.size(); i++) {
            outputIndex.put(outputs.get(i).name(), i);
        }
    }

    /** Loads a model file; options may be null (defaults). */
    public static Model load(KilnRuntime runtime, Path path, Options options) {
        long nativeOptions = Options.toNative(options);
        try {
            return new Model(runtime, KilnNative.modelLoadFile(runtime.pointer(), path.toString(),
                    nativeOptions));
        } finally {
            KilnNative.optionsDestroy(nativeOptions);
        }
    }

    /** Loads a model from its bytes; options may be null (defaults). */
    public static Model load(KilnRuntime runtime, byte[] onnx, Options options) {
        ByteBuffer bytes = ByteBuffer.allocateDirect(onnx.length).put(onnx);
        long nativeOptions = Options.toNative(options);
        try {
            return new Model(runtime, KilnNative.modelLoadMemory(runtime.pointer(), bytes,
                    nativeOptions));
        } finally {
            KilnNative.optionsDestroy(nativeOptions);
        }
    }

    private static List<ValueInfo> describe(long model, boolean input) {
        int count = input ? KilnNative.modelInputCount(model) : KilnNative.modelOutputCount(model);
        List<ValueInfo> infos = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String name = input ? KilnNative.modelInputName(model, i)
                                : KilnNative.modelOutputName(model, i);
            int kind = input ? KilnNative.modelInputKind(model, i)
                             : KilnNative.modelOutputKind(model, i);
            int dtype = input ? KilnNative.modelInputDtype(model, i)
                              : KilnNative.modelOutputDtype(model, i);
            long[] shape = input ? KilnNative.modelInputShape(model, i)
                                 : KilnNative.modelOutputShape(model, i);
            infos.add(new ValueInfo(name, ValueKind.fromCode(kind), DType.fromCode(dtype), shape));
        }
        return Collections.unmodifiableList(infos);
    }

    /** A new session with default settings. */
    public Session newSession() {
        return new Session(this, null);
    }

    /** A new session with these settings (arena limit, tuning, profiling). */
    public Session newSession(Options options) {
        return new Session(this, options);
    }

    public List<ValueInfo> inputs() {
        return inputs;
    }

    public List<ValueInfo> outputs() {
        return outputs;
    }

    /** Index of the input named name; KilnException NOT_FOUND if none. */
    public int inputIndex(String name) {
        Integer index = inputIndex.get(name);
        // Unknown names go to the library, which reports them (NOT_FOUND).
        return index != null ? index : KilnNative.modelInputIndex(pointer(), name);
    }

    /** Index of the output named name; KilnException NOT_FOUND if none. */
    public int outputIndex(String name) {
        Integer index = outputIndex.get(name);
        return index != null ? index : KilnNative.modelOutputIndex(pointer(), name);
    }

    /** Opset imports: domain ("" is ai.onnx) to version. */
    public Map<String, Integer> opsets() {
        long model = pointer();
        Map<String, Integer> opsets = new HashMap<>();
        int count = KilnNative.modelOpsetCount(model);
        for (int i = 0; i < count; i++) {
            KilnNative.ModelOpset opset = KilnNative.modelOpset(model, i);
            opsets.put(opset.domain, opset.version);
        }
        return opsets;
    }

    /** Number of nodes of the main graph. */
    public int nodeCount() {
        return KilnNative.modelNodeCount(pointer());
    }

    /** "Domain:OpType" ("Conv" for the default domain) of node index. */
    public String nodeOp(int index) {
        KilnNative.ModelNodeOp op = KilnNative.modelNodeOp(pointer(), index);
        return op.domain.isEmpty() ? op.opType : op.domain + ":" + op.opType;
    }

    /**
     * Memory the model holds for all its sessions, in bytes: its weights as
     * loaded, the prepared copies of them every session shares, and the raw
     * weight bytes given back to the system because only a shared copy is read.
     */
    public record MemoryInfo(long weightBytes, long sharedPreparedBytes, long givenBackBytes) {}

    /**
     * What the model holds for all its sessions; a session adds its arena
     * ({@link Session#cacheInfo()}).
     */
    public MemoryInfo memoryInfo() {
        KilnNative.ModelMemoryInfo info = KilnNative.modelMemoryInfo(pointer());
        return new MemoryInfo(info.weightBytes, info.sharedPreparedBytes, info.givenBackBytes);
    }

    long pointer() {
        return handle.get("Model");
    }

    @Override
    public void close() {
        handle.close();
    }
}
