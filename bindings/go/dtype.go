package kiln

// #include <kiln.h>
import "C"

import "fmt"

// DType is an element type, numbered as ONNX's TensorProto.DataType.
type DType int32

// The element types, one constant each (numbered as the C API's
// KILN_DTYPE_*). The first eleven map to Go slice element types; bind and
// read the others as raw bytes. The generated DTypeXxx names in
// methods_gen.go are deprecated aliases of these.
const (
	Float32 DType = C.KILN_DTYPE_FLOAT
	Float64 DType = C.KILN_DTYPE_DOUBLE
	Int8    DType = C.KILN_DTYPE_INT8
	Int16   DType = C.KILN_DTYPE_INT16
	Int32   DType = C.KILN_DTYPE_INT32
	Int64   DType = C.KILN_DTYPE_INT64
	Uint8   DType = C.KILN_DTYPE_UINT8
	Uint16  DType = C.KILN_DTYPE_UINT16
	Uint32  DType = C.KILN_DTYPE_UINT32
	Uint64  DType = C.KILN_DTYPE_UINT64
	Bool    DType = C.KILN_DTYPE_BOOL
	// Types without a Go element type.
	Float16        DType = C.KILN_DTYPE_FLOAT16
	BFloat16       DType = C.KILN_DTYPE_BFLOAT16
	String         DType = C.KILN_DTYPE_STRING
	Float8E4M3FN   DType = C.KILN_DTYPE_FLOAT8E4M3FN
	Float8E4M3FNUZ DType = C.KILN_DTYPE_FLOAT8E4M3FNUZ
	Float8E5M2     DType = C.KILN_DTYPE_FLOAT8E5M2
	Float8E5M2FNUZ DType = C.KILN_DTYPE_FLOAT8E5M2FNUZ
	Float8E8M0     DType = C.KILN_DTYPE_FLOAT8E8M0
	Uint4          DType = C.KILN_DTYPE_UINT4
	Int4           DType = C.KILN_DTYPE_INT4
	Float4E2M1     DType = C.KILN_DTYPE_FLOAT4E2M1
	Uint2          DType = C.KILN_DTYPE_UINT2
	Int2           DType = C.KILN_DTYPE_INT2
)

var dtypeNames = map[DType]string{
	Float32: "float32", Float64: "float64", Int8: "int8", Int16: "int16",
	Int32: "int32", Int64: "int64", Uint8: "uint8", Uint16: "uint16",
	Uint32: "uint32", Uint64: "uint64", Bool: "bool", Float16: "float16",
	BFloat16: "bfloat16", String: "string",
	Float8E4M3FN: "float8e4m3fn", Float8E4M3FNUZ: "float8e4m3fnuz",
	Float8E5M2: "float8e5m2", Float8E5M2FNUZ: "float8e5m2fnuz", Float8E8M0: "float8e8m0",
	Uint4: "uint4", Int4: "int4", Float4E2M1: "float4e2m1", Uint2: "uint2", Int2: "int2",
}

// String is the element type's lower-case name ("float32"), as in errors.
func (d DType) String() string {
	if name, ok := dtypeNames[d]; ok {
		return name
	}
	if d == 0 {
		return "unspecified"
	}
	return fmt.Sprintf("dtype(%d)", int32(d))
}

// Element is the set of Go types a tensor's elements can have.
type Element interface {
	float32 | float64 | int8 | int16 | int32 | int64 |
		uint8 | uint16 | uint32 | uint64 | bool
}

// DTypeOf is the element type of T (Float32 for float32, ...).
func DTypeOf[T Element]() DType {
	var zero T
	switch any(zero).(type) {
	case float32:
		return Float32
	case float64:
		return Float64
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint8:
		return Uint8
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case bool:
		return Bool
	}
	panic("kiln: unreachable: Element type without a dtype")
}
