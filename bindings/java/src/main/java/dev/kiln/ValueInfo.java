package dev.kiln;

import java.util.Arrays;

/** A model input or output as the model declares it. */
public final class ValueInfo {
    private final String name;
    private final ValueKind kind;
    private final DType dtype;
    private final long[] shape;

    ValueInfo(String name, ValueKind kind, DType dtype, long[] shape) {
        this.name = name;
        this.kind = kind;
        this.dtype = dtype;
        this.shape = shape;
    }

    public String name() {
        return name;
    }

    /** Tensor, sequence or optional. */
    public ValueKind kind() {
        return kind;
    }

    /** Element type; null when the model leaves it open. */
    public DType dtype() {
        return dtype;
    }

    /** Declared dims, -1 for a dynamic dim; null when the rank is unknown. */
    public long[] shape() {
        return shape == null ? null : shape.clone();
    }

    @Override
    public String toString() {
        return name + ": " + kind + " " + dtype + " " + (shape == null ? "[?]" : Arrays.toString(shape));
    }
}
