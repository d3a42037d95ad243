package kiln

// #include <kiln.h>
import "C"

import "fmt"

// DType is an element type, numbered as ONNX's TensorProto.DataType.
type DType int32

// The element types Go slices map to; DTypeXxx constants for every type the
// C API knows are generated into capi_gen.go.
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
	// Types without a Go element type; bind and read them as raw bytes.
	Float16  DType = C.KILN_DTYPE_FLOAT16
	BFloat16 DType = C.KILN_DTYPE_BFLOAT16
	String   DType = C.KILN_DTYPE_STRING
)

var dtypeNames = map[DType]string{
	Float32: "float32", Float64: "float64", Int8: "int8", Int16: "int16",
	Int32: "int32", Int64: "int64", Uint8: "uint8", Uint16: "uint16",
	Uint32: "uint32", Uint64: "uint64", Bool: "bool", Float16: "float16",
	BFloat16: "bfloat16", String: "string",
}

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
