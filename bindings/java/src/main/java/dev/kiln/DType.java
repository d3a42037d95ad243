// Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
// Regenerate: /usr/bin/python3 bindings/gen/generate.py
package dev.kiln;

/** Element types (ONNX TensorProto.DataType numbers). */
public enum DType {
    /** float32 */
    FLOAT(1, 32),
    /** uint8 */
    UINT8(2, 8),
    /** int8 */
    INT8(3, 8),
    /** uint16 */
    UINT16(4, 16),
    /** int16 */
    INT16(5, 16),
    /** int32 */
    INT32(6, 32),
    /** int64 */
    INT64(7, 64),
    /** byte strings (kiln_tensor_string; not for set_input) */
    STRING(8, 0),
    /** bool, one byte per element */
    BOOL(9, 8),
    /** IEEE half, 2 bytes */
    FLOAT16(10, 16),
    /** float64 */
    DOUBLE(11, 64),
    /** uint32 */
    UINT32(12, 32),
    /** uint64 */
    UINT64(13, 64),
    /** bfloat16, 2 bytes */
    BFLOAT16(16, 16),
    /** float8 E4M3FN, 1 byte (max 448, no inf) */
    FLOAT8E4M3FN(17, 8),
    /** float8 E4M3FNUZ, 1 byte (max 240) */
    FLOAT8E4M3FNUZ(18, 8),
    /** float8 E5M2, 1 byte (IEEE-like, max 57344) */
    FLOAT8E5M2(19, 8),
    /** float8 E5M2FNUZ, 1 byte (max 57344) */
    FLOAT8E5M2FNUZ(20, 8),
    /** packed 4-bit unsigned, 2 per byte, element 0 in the low bits */
    UINT4(21, 4),
    /** packed 4-bit signed, 2 per byte, element 0 in the low bits */
    INT4(22, 4),
    /** packed 4-bit float E2M1, 2 per byte */
    FLOAT4E2M1(23, 4),
    /** float8 E8M0, 1 byte (unsigned powers of two) */
    FLOAT8E8M0(24, 8),
    /** packed 2-bit unsigned, 4 per byte */
    UINT2(25, 2),
    /** packed 2-bit signed, 4 per byte */
    INT2(26, 2);

    private final int code;
    private final int bits;

    DType(int code, int bits) {
        this.code = code;
        this.bits = bits;
    }

    /** The number kiln.h gives this value. */
    public int code() {
        return code;
    }

    /** Bits per element (0 for STRING). */
    public int bits() {
        return bits;
    }

    /** The value with this code, or null if this binding does not know it. */
    public static DType fromCode(int code) {
        for (DType value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        return null;
    }
}
