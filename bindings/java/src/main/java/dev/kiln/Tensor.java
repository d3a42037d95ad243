package dev.kiln;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A value owned by the library: a tensor, a sequence of values or an
 * optional. Made by decoding an ONNX TensorProto (the .pb files of ONNX test
 * data), from an array, or by copying a session output; it stays valid until
 * closed. Bind it with {@link Session#setInput(int, Tensor)}.
 */
public final class Tensor implements AutoCloseable {
    private final NativeHandle handle;

    Tensor(long pointer) {
        handle = NativeHandle.create(this, pointer, KilnNative::tensorDestroy, null);
    }

    /** Decodes a serialized TensorProto. */
    public static Tensor decode(byte[] protobuf) {
        return decode(protobuf, ValueKind.TENSOR);
    }

    /** Decodes a TensorProto, SequenceProto or OptionalProto (kind says which). */
    public static Tensor decode(byte[] protobuf, ValueKind kind) {
        NativeLibrary.ensureLoaded();
        ByteBuffer bytes = ByteBuffer.allocateDirect(protobuf.length).put(protobuf);
        return new Tensor(KilnNative.tensorDecodeValue(bytes, kind.code()));
    }

    /** Reads and decodes a TensorProto file (.pb). */
    public static Tensor read(Path path) {
        try {
            return decode(Files.readAllBytes(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A tensor holding a copy of data (little endian, row-major). */
    public static Tensor of(DType dtype, long[] shape, ByteBuffer data) {
        return decode(encode(null, dtype, shape, data));
    }

    /** A float32 tensor holding a copy of data. */
    public static Tensor of(float[] data, long... shape) {
        return of(DType.FLOAT, shape, Buffers.fromArray(data, null));
    }

    /** A tensor of an array type (int64 for long[], int32 for int[], ...). */
    public static Tensor ofArray(Object data, DType dtype, long... shape) {
        return of(dtype, shape, Buffers.fromArray(data, null));
    }

    /** Serializes a tensor as a TensorProto (raw_data form); name may be null. */
    public static byte[] encode(String name, DType dtype, long[] shape, ByteBuffer data) {
        NativeLibrary.ensureLoaded();
        ByteBuffer region = data.isDirect() ? Buffers.region(data)
                : Buffers.fromArray(Buffers.toBytes(data.duplicate()), null);
        long size = KilnNative.tensorEncode(name, dtype.code(), shape, region, null);
        ByteBuffer out = Buffers.exact(null, size);
        KilnNative.tensorEncode(name, dtype.code(), shape, region, out);
        return Buffers.toBytes(out);
    }

    /** This tensor as a TensorProto, named like it. */
    public byte[] encode() {
        return encode(name(), dtype(), shape(), view());
    }

    public ValueKind kind() {
        return ValueKind.fromCode(KilnNative.tensorKind(pointer()));
    }

    /** Element type (tensors only). */
    public DType dtype() {
        return DType.fromCode(KilnNative.tensorInfo(pointer()).dtype);
    }

    /** Dims (tensors only). */
    public long[] shape() {
        return KilnNative.tensorInfo(pointer()).dims;
    }

    /** The TensorProto's name, "" if none. */
    public String name() {
        return KilnNative.tensorName(pointer());
    }

    /** Sequence length, or 0/1 for an optional (sequences and optionals only). */
    public int elementCount() {
        return KilnNative.tensorElementCount(pointer());
    }

    /** A new, independent copy of element index of a sequence or optional. */
    public Tensor element(int index) {
        return new Tensor(KilnNative.tensorElement(pointer(), index));
    }

    /** Element index of a string tensor as UTF-8 text. */
    public String getString(int index) {
        return new String(getStringBytes(index), StandardCharsets.UTF_8);
    }

    /** Element index of a string tensor, raw bytes (may contain NULs). */
    public byte[] getStringBytes(int index) {
        return KilnNative.tensorString(pointer(), index);
    }

    /** The library's bytes; read them before close(). */
    private ByteBuffer view() {
        return KilnNative.tensorData(pointer());
    }

    /** A copy of the tensor's bytes (little endian, row-major). */
    public byte[] toByteArray() {
        return Buffers.toBytes(view());
    }

    public float[] toFloatArray() {
        Buffers.expect(dtype(), DType.FLOAT, "tensor");
        return Buffers.toFloats(view());
    }

    public double[] toDoubleArray() {
        Buffers.expect(dtype(), DType.DOUBLE, "tensor");
        return Buffers.toDoubles(view());
    }

    public long[] toLongArray() {
        Buffers.expect(dtype(), DType.INT64, "tensor");
        return Buffers.toLongs(view());
    }

    public int[] toIntArray() {
        Buffers.expect(dtype(), DType.INT32, "tensor");
        return Buffers.toInts(view());
    }

    long pointer() {
        return handle.get("Tensor");
    }

    @Override
    public void close() {
        handle.close();
    }
}
