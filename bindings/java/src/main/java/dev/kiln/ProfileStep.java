package dev.kiln;

/** One executed step of a profiled session (see {@link Options#profile}). */
public final class ProfileStep {
    private final String name;
    private final String op;
    private final String kernel;
    private final long totalNanos;
    private final long runs;

    ProfileStep(String name, String op, String kernel, long totalNanos, long runs) {
        this.name = name;
        this.op = op;
        this.kernel = kernel;
        this.totalNanos = totalNanos;
        this.runs = runs;
    }

    /** Node name (a fused step is named after its first node). */
    public String name() {
        return name;
    }

    /** Op type, e.g. "Conv" or "FusedConv". */
    public String op() {
        return op;
    }

    /** Kernel that ran it, e.g. "cpu" or "dnnl". */
    public String kernel() {
        return kernel;
    }

    /** Time spent in this step over all runs since the last reset. */
    public long totalNanos() {
        return totalNanos;
    }

    public long runs() {
        return runs;
    }

    @Override
    public String toString() {
        return String.format("%s %s (%s): %d ns over %d runs", name, op, kernel, totalNanos, runs);
    }
}
