package dev.kiln;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Copies between Java arrays and native-order direct buffers. Kiln's tensor
 * bytes are little endian, row-major; the JIT turns these bulk copies into
 * memcpy.
 */
final class Buffers {
    private Buffers() {}

    /** A direct buffer of exactly size bytes: reuse if it fits exactly. */
    static ByteBuffer exact(ByteBuffer reuse, long size) {
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tensor of " + size + " bytes is over 2 GiB");
        }
        if (reuse != null && reuse.capacity() == size) {
            reuse.clear();
            return reuse;
        }
        return ByteBuffer.allocateDirect((int) size).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** data's bytes as a direct buffer: reuse when it is the right size. */
    static ByteBuffer fromArray(Object data, ByteBuffer reuse) {
        if (data instanceof float[]) {
            float[] a = (float[]) data;
            ByteBuffer b = exact(reuse, 4L * a.length);
            b.asFloatBuffer().put(a);
            return b;
        } else if (data instanceof double[]) {
            double[] a = (double[]) data;
            ByteBuffer b = exact(reuse, 8L * a.length);
            b.asDoubleBuffer().put(a);
            return b;
        } else if (data instanceof long[]) {
            long[] a = (long[]) data;
            ByteBuffer b = exact(reuse, 8L * a.length);
            b.asLongBuffer().put(a);
            return b;
        } else if (data instanceof int[]) {
            int[] a = (int[]) data;
            ByteBuffer b = exact(reuse, 4L * a.length);
            b.asIntBuffer().put(a);
            return b;
        } else if (data instanceof short[]) {
            short[] a = (short[]) data;
            ByteBuffer b = exact(reuse, 2L * a.length);
            b.asShortBuffer().put(a);
            return b;
        } else if (data instanceof byte[]) {
            byte[] a = (byte[]) data;
            ByteBuffer b = exact(reuse, a.length);
            b.put(a);
            b.clear();
            return b;
        } else if (data instanceof boolean[]) {
            boolean[] a = (boolean[]) data;
            ByteBuffer b = exact(reuse, a.length);
            for (int i = 0; i < a.length; i++) {
                b.put(i, (byte) (a[i] ? 1 : 0));
            }
            return b;
        }
        throw new IllegalArgumentException("unsupported array type " + data.getClass().getName());
    }

    /** The dtype a Java array maps to (byte[] has none: it needs one given). */
    static DType dtypeOf(Object data) {
        if (data instanceof float[]) {
            return DType.FLOAT;
        } else if (data instanceof double[]) {
            return DType.DOUBLE;
        } else if (data instanceof long[]) {
            return DType.INT64;
        } else if (data instanceof int[]) {
            return DType.INT32;
        } else if (data instanceof short[]) {
            return DType.INT16;
        } else if (data instanceof boolean[]) {
            return DType.BOOL;
        }
        throw new IllegalArgumentException("give the dtype for " + data.getClass().getSimpleName());
    }

    /** The region [position, limit) of a direct buffer as its own buffer. */
    static ByteBuffer region(ByteBuffer data) {
        if (data.position() == 0 && data.limit() == data.capacity()) {
            return data;
        }
        return data.slice();
    }

    static ByteBuffer ordered(ByteBuffer view) {
        return view.order(ByteOrder.LITTLE_ENDIAN);
    }

    static float[] toFloats(ByteBuffer view) {
        float[] out = new float[view.remaining() / 4];
        ordered(view).asFloatBuffer().get(out);
        return out;
    }

    static double[] toDoubles(ByteBuffer view) {
        double[] out = new double[view.remaining() / 8];
        ordered(view).asDoubleBuffer().get(out);
        return out;
    }

    static long[] toLongs(ByteBuffer view) {
        long[] out = new long[view.remaining() / 8];
        ordered(view).asLongBuffer().get(out);
        return out;
    }

    static int[] toInts(ByteBuffer view) {
        int[] out = new int[view.remaining() / 4];
        ordered(view).asIntBuffer().get(out);
        return out;
    }

    static byte[] toBytes(ByteBuffer view) {
        byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }

    /** Checks that a typed read matches the value's element type. */
    static void expect(DType actual, DType wanted, String what) {
        if (actual != wanted) {
            throw new KilnException(KilnConstants.ERR_DTYPE,
                    what + " holds " + actual + ", not " + wanted);
        }
    }
}
