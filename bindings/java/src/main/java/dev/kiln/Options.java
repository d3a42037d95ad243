package dev.kiln;

import java.util.Map;
import java.util.TreeMap;

/**
 * Settings for a runtime, a model load or a session: plain Java values,
 * turned into a native options bag only for the call that uses them, so an
 * Options object needs no closing and may be reused.
 *
 * <pre>{@code
 * Options opts = new Options().threads(4).optimize(2);
 * }</pre>
 * Keys a call does not use are ignored by it; a value out of range fails the
 * call that uses it (KilnException, INVALID_ARGUMENT).
 */
public final class Options {
    private final Map<Integer, Integer> ints = new TreeMap<>();
    private final Map<Integer, String> strings = new TreeMap<>();

    /** Any integer option by its KILN_OPT_* key ({@link KilnConstants}). */
    public Options set(int key, int value) {
        ints.put(key, value);
        return this;
    }

    /** Any string option by its KILN_SOPT_* key; null clears it. */
    public Options setString(int key, String value) {
        strings.put(key, value);
        return this;
    }

    /** Runtime: worker threads including the caller (default 1). */
    public Options threads(int threads) {
        return set(KilnConstants.OPT_THREADS, threads);
    }

    /** Model load: 0 = as written, 1 = basic, 2 = all optimizations (default). */
    public Options optimize(int level) {
        return set(KilnConstants.OPT_OPTIMIZE, level);
    }

    /** Model load: load even with unsupported ops, for inspection only. */
    public Options allowUnsupported(boolean allow) {
        return set(KilnConstants.OPT_ALLOW_UNSUPPORTED, allow ? 1 : 0);
    }

    /** Model load: largest model accepted, in MiB (0 = no limit). */
    public Options maxModelMb(int mib) {
        return set(KilnConstants.OPT_MAX_MODEL_MB, mib);
    }

    /** Model load: let oneDNN serve convolutions and matmuls when built in. */
    public Options useDnnl(boolean use) {
        return set(KilnConstants.OPT_USE_DNNL, use ? 1 : 0);
    }

    /** Session: largest arena accepted, in MiB (0 = no limit). */
    public Options maxArenaMb(int mib) {
        return set(KilnConstants.OPT_MAX_ARENA_MB, mib);
    }

    /** Session: time candidate kernels at creation and keep the fastest. */
    public Options tune(boolean tune) {
        return set(KilnConstants.OPT_TUNE, tune ? 1 : 0);
    }

    /**
     * Session: how many plans it keeps, one per input signature (dtypes and
     * shapes; 1..1024, default 8); going back to a kept shape costs no
     * planning ({@link Session#cacheInfo()}, {@link Session#releaseMemory()}).
     */
    public Options planCache(int plans) {
        return set(KilnConstants.OPT_PLAN_CACHE, plans);
    }

    /** Session: record per-step times ({@link Session#profile()}). */
    public Options profile(boolean profile) {
        return set(KilnConstants.OPT_PROFILE, profile ? 1 : 0);
    }

    /** Session: the kernel tuning cache file. */
    public Options tuningCache(String path) {
        return setString(KilnConstants.SOPT_TUNING_CACHE, path);
    }

    /**
     * A native options bag holding these settings (0 for null options: the
     * library's defaults); the caller destroys it with optionsDestroy.
     */
    static long toNative(Options options) {
        if (options == null) {
            return 0;
        }
        long handle = KilnNative.optionsCreate();
        try {
            for (Map.Entry<Integer, Integer> e : options.ints.entrySet()) {
                KilnNative.optionsSetInt(handle, e.getKey(), e.getValue());
            }
            for (Map.Entry<Integer, String> e : options.strings.entrySet()) {
                KilnNative.optionsSetString(handle, e.getKey(), e.getValue());
            }
            return handle;
        } catch (RuntimeException e) {
            KilnNative.optionsDestroy(handle);
            throw e;
        }
    }
}
