package dev.kiln;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-run state of a model: bound inputs, planned memory, outputs of the
 * last run. One run at a time: the methods are synchronized, so a Session
 * shared by threads serializes them; for parallel runs give each thread its
 * own Session of the same Model. {@link #cancel()} may be called from any
 * thread and does not wait.
 *
 * <p>Inputs: a direct ByteBuffer is borrowed, not copied (zero copy): its
 * bytes [position, limit) must stay unchanged until the next {@link #run()}
 * returns, and the Session keeps a reference so it cannot be freed. Arrays
 * and heap buffers are copied into a buffer the Session reuses. A binding
 * stays for later runs until that input is bound again.
 *
 * <p>Outputs: typed arrays, raw bytes, a copy into a caller ByteBuffer, or a
 * {@link Tensor} that outlives later runs.
 */
public final class Session implements AutoCloseable {
    private final Model model;
    private final NativeHandle handle;
    private final Object cancelLock = new Object();
    private volatile long pointer; // 0 once closed
    /** Per input: the buffer the library reads, kept reachable while bound. */
    private final ByteBuffer[] bound;
    /** Per input: the Session's own copy buffer for array inputs. */
    private final ByteBuffer[] staging;

    Session(Model model, Options options) {
        this.model = model;
        long nativeOptions = Options.toNative(options);
        try {
            pointer = KilnNative.sessionCreate(model.pointer(), nativeOptions);
        } finally {
            KilnNative.optionsDestroy(nativeOptions);
        }
        handle = NativeHandle.create(this, pointer, KilnNative::sessionDestroy, model.handle);
        bound = new ByteBuffer[model.inputs().size()];
        staging = new ByteBuffer[bound.length];
    }

    public Model model() {
        return model;
    }

    private long live() {
        if (pointer == 0) {
            throw new IllegalStateException("Session is closed");
        }
        return pointer;
    }

    // ---- inputs ----

    /**
     * Binds input name to the bytes [position, limit) of data (little
     * endian, row-major). A direct buffer is borrowed until the next run
     * returns; a heap buffer is copied.
     */
    public void setInput(String name, ByteBuffer data, DType dtype, long... shape) {
        setInput(model.inputIndex(name), data, dtype, shape);
    }

    /** As {@link #setInput(String, ByteBuffer, DType, long...)}, by input index. */
    public synchronized void setInput(int index, ByteBuffer data, DType dtype, long... shape) {
        long session = live();
        ByteBuffer region;
        if (data.isDirect()) {
            region = Buffers.region(data);
        } else {
            ByteBuffer copy = data.duplicate();
            region = Buffers.exact(stagingFor(index), copy.remaining());
            region.put(copy).clear();
            staging[index] = region;
        }
        KilnNative.sessionSetInputAt(session, index, dtype.code(), shape, region, 0);
        bound[index] = region;
    }

    // ---- device memory (a session made with a device option) ----
    // Addresses are the device's (a CUDA pointer) as a long; Kiln never
    // reads them on the host.

    /**
     * Binds input name to nbytes of memory already on the session's device,
     * borrowed until the next run returns and kept for later runs until the
     * input is bound again. Device steps read it there: no copy from the host.
     */
    public synchronized void setInputDevice(String name, DType dtype, long deviceAddress,
                                            long nbytes, long... shape) {
        int index = model.inputIndex(name);
        KilnNative.sessionSetInputDevice(live(), name, dtype.code(), shape, deviceAddress, nbytes);
        bound[index] = null;
    }

    /**
     * Each later run also writes output index into capacity bytes of device
     * memory at deviceAddress (0 unbinds); the run returns once it is there.
     */
    public synchronized void bindOutputDevice(int index, long deviceAddress, long capacity) {
        KilnNative.sessionBindOutputDevice(live(), index, deviceAddress, capacity);
    }

    /** The session's stream on its device (a cudaStream_t for CUDA). */
    public synchronized long deviceStream() {
        return KilnNative.sessionDeviceStream(live());
    }

    /** Binds a float32 input (copied). */
    public void setInput(String name, float[] data, long... shape) {
        setArray(model.inputIndex(name), data, DType.FLOAT, shape);
    }

    /** Binds a float64 input (copied). */
    public void setInput(String name, double[] data, long... shape) {
        setArray(model.inputIndex(name), data, DType.DOUBLE, shape);
    }

    /** Binds an int64 input (copied). */
    public void setInput(String name, long[] data, long... shape) {
        setArray(model.inputIndex(name), data, DType.INT64, shape);
    }

    /** Binds an int32 input (copied). */
    public void setInput(String name, int[] data, long... shape) {
        setArray(model.inputIndex(name), data, DType.INT32, shape);
    }

    /** Binds a bool input (copied). */
    public void setInput(String name, boolean[] data, long... shape) {
        setArray(model.inputIndex(name), data, DType.BOOL, shape);
    }

    /** Binds a one-byte input: UINT8, INT8, BOOL or a float8 type (copied). */
    public void setInput(String name, byte[] data, DType dtype, long... shape) {
        setArray(model.inputIndex(name), data, dtype, shape);
    }

    /**
     * Binds input index to a copy of an array: float[], double[], long[],
     * int[], short[], boolean[] or byte[]; dtype must suit the array.
     */
    public synchronized void setArray(int index, Object data, DType dtype, long... shape) {
        long session = live();
        if (!(data instanceof byte[]) && Buffers.dtypeOf(data).bits() != dtype.bits()) {
            throw new IllegalArgumentException(data.getClass().getSimpleName()
                    + " cannot hold " + dtype + " elements");
        }
        ByteBuffer copy = Buffers.fromArray(data, stagingFor(index));
        staging[index] = copy;
        KilnNative.sessionSetInputAt(session, index, dtype.code(), shape, copy, 0);
        bound[index] = copy;
    }

    /** Binds input index to a copy of value (any kind: tensor, sequence, optional). */
    public synchronized void setInput(int index, Tensor value) {
        KilnNative.sessionSetInputValue(live(), index, value.pointer());
        bound[index] = null; // the library holds its own copy
    }

    public void setInput(String name, Tensor value) {
        setInput(model.inputIndex(name), value);
    }

    private ByteBuffer stagingFor(int index) {
        if (index < 0 || index >= staging.length) {
            // The library names the problem (INVALID_ARGUMENT, bad index).
            KilnNative.sessionSetInputAt(live(), index, DType.FLOAT.code(), null, null, 0);
        }
        return staging[index];
    }

    // ---- running ----

    /** Runs the model on the bound inputs. */
    public synchronized void run() {
        KilnNative.sessionRun(live());
    }

    /**
     * Asks the run in flight, if any, to stop; it then fails with status
     * CANCELLED. Any thread; returns at once. A later run is not affected.
     */
    public void cancel() {
        synchronized (cancelLock) {
            long session = pointer; // close() clears it under cancelLock
            if (session != 0) {
                KilnNative.sessionCancel(session);
            }
        }
    }

    // ---- outputs (after a successful run) ----

    public int outputCount() {
        return model.outputs().size();
    }

    /** Element type of output index after the last run. */
    public synchronized DType outputDType(int index) {
        return DType.fromCode(KilnNative.sessionOutputInfo(live(), index).dtype);
    }

    /** Shape of output index after the last run. */
    public synchronized long[] outputShape(int index) {
        return KilnNative.sessionOutputInfo(live(), index).dims;
    }

    /** Element type of the named output after the last run. */
    public DType outputDType(String name) {
        return outputDType(model.outputIndex(name));
    }

    /** Shape of the named output after the last run. */
    public long[] outputShape(String name) {
        return outputShape(model.outputIndex(name));
    }

    /** The library's bytes of output index, checked to hold wanted elements. */
    private ByteBuffer view(int index, DType wanted) {
        long session = live();
        DType declared = index >= 0 && index < outputCount() ? model.outputs().get(index).dtype() : null;
        DType actual = declared != null ? declared
                : DType.fromCode(KilnNative.sessionOutputInfo(session, index).dtype);
        if (wanted != null) {
            Buffers.expect(actual, wanted, "output " + index);
        }
        return KilnNative.sessionOutputView(session, index);
    }

    public synchronized float[] getOutputFloats(int index) {
        return Buffers.toFloats(view(index, DType.FLOAT));
    }

    public float[] getOutputFloats(String name) {
        return getOutputFloats(model.outputIndex(name));
    }

    public synchronized double[] getOutputDoubles(int index) {
        return Buffers.toDoubles(view(index, DType.DOUBLE));
    }

    public double[] getOutputDoubles(String name) {
        return getOutputDoubles(model.outputIndex(name));
    }

    public synchronized long[] getOutputLongs(int index) {
        return Buffers.toLongs(view(index, DType.INT64));
    }

    public long[] getOutputLongs(String name) {
        return getOutputLongs(model.outputIndex(name));
    }

    public synchronized int[] getOutputInts(int index) {
        return Buffers.toInts(view(index, DType.INT32));
    }

    public int[] getOutputInts(String name) {
        return getOutputInts(model.outputIndex(name));
    }

    /** The raw bytes of output index, whatever its element type. */
    public synchronized byte[] getOutputBytes(int index) {
        return Buffers.toBytes(view(index, null));
    }

    /**
     * Copies output index into dst at its position and advances the
     * position; returns the number of bytes. A direct dst is filled by the
     * library itself (one copy). KilnException BUFFER_TOO_SMALL if it does
     * not fit.
     */
    public synchronized long copyOutput(int index, ByteBuffer dst) {
        long session = live();
        if (dst.isReadOnly()) {
            throw new java.nio.ReadOnlyBufferException();
        }
        if (dst.isDirect()) {
            long size = KilnNative.sessionOutputCopy(session, index, Buffers.region(dst));
            dst.position(dst.position() + (int) size);
            return size;
        }
        ByteBuffer view = KilnNative.sessionOutputView(session, index);
        if (view.remaining() > dst.remaining()) {
            throw new KilnException(KilnConstants.ERR_BUFFER_TOO_SMALL, "output " + index + " has "
                    + view.remaining() + " bytes; the buffer has room for " + dst.remaining());
        }
        int size = view.remaining();
        dst.put(view);
        return size;
    }

    /** A copy of output index (any kind) that stays valid after later runs. */
    public synchronized Tensor getOutputValue(int index) {
        return new Tensor(KilnNative.sessionOutputValue(live(), index));
    }

    // ---- memory plan and profile ----

    /** Arena bytes of the current memory plan. */
    public synchronized long arenaBytes() {
        return KilnNative.sessionPlanBytes(live()).arenaBytes;
    }

    /** Sum of the sizes of all intermediate tensors (a plan without reuse). */
    public synchronized long intermediateBytes() {
        return KilnNative.sessionPlanBytes(live()).intermediateBytes;
    }

    /** The session's plan cache: plans kept and built so far, and the arena they share. */
    public record CacheInfo(int plansKept, long plansBuilt, long arenaBytes) {}

    /** What the plan cache holds now ({@link Options#planCache(int)}). */
    public synchronized CacheInfo cacheInfo() {
        KilnNative.SessionCacheInfo info = KilnNative.sessionCacheInfo(live());
        return new CacheInfo(info.plansKept, info.plansBuilt, info.arenaBytes);
    }

    /** Gives back every kept plan and their arena; the next run plans again. */
    public synchronized void releaseMemory() {
        KilnNative.sessionReleaseMemory(live());
    }

    /** Per-step times; the session needs {@code new Options().profile(true)}. */
    public synchronized List<ProfileStep> profile() {
        long session = live();
        int count = KilnNative.sessionProfileCount(session);
        List<ProfileStep> steps = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            KilnNative.SessionProfileTime time = KilnNative.sessionProfileTime(session, i);
            steps.add(new ProfileStep(KilnNative.sessionProfileName(session, i),
                    KilnNative.sessionProfileOp(session, i),
                    KilnNative.sessionProfileKernel(session, i), time.totalNs, time.runs));
        }
        return steps;
    }

    public synchronized void resetProfile() {
        KilnNative.sessionProfileReset(live());
    }

    /** Waits for a run in flight on another thread, then frees the session. */
    @Override
    public synchronized void close() {
        synchronized (cancelLock) {
            pointer = 0;
            handle.close();
        }
        java.util.Arrays.fill(bound, null);
        java.util.Arrays.fill(staging, null);
    }
}
