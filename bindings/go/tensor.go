package kiln

// #include <stdlib.h>
// #include <kiln.h>
import "C"

import (
	"fmt"
	"unsafe"
)

// Tensor is a dense tensor held in Go memory: element type, shape and the
// elements' bytes in row-major order, little endian (the host order on every
// platform Go and Kiln both target).
type Tensor struct {
	DType DType
	Shape []int64
	Data  []byte
}

// NewTensor copies data into a tensor of the given shape. The element count
// is checked when the tensor is bound, by the library.
func NewTensor[T Element](data []T, shape ...int64) *Tensor {
	return &Tensor{DType: DTypeOf[T](), Shape: append([]int64(nil), shape...),
		Data: append([]byte(nil), asBytes(data)...)}
}

// Values copies the tensor's elements out as []T; T must match its DType.
func Values[T Element](t *Tensor) ([]T, error) {
	if want := DTypeOf[T](); t.DType != want {
		return nil, newError("", C.KILN_ERR_DTYPE, "tensor holds %v, not %v", t.DType, want)
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(t.Data)%size != 0 {
		return nil, newError("", C.KILN_ERR_INVALID_ARGUMENT,
			"%d data bytes are not a whole number of %v elements", len(t.Data), t.DType)
	}
	out := make([]T, len(t.Data)/size)
	copy(asBytes(out), t.Data)
	return out, nil
}

// NumElements is the product of the shape's dims (1 for a scalar).
func (t *Tensor) NumElements() int64 { return numElements(t.Shape) }

func (t *Tensor) String() string {
	return fmt.Sprintf("Tensor(%v %v, %d bytes)", t.DType, t.Shape, len(t.Data))
}

func numElements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// asBytes views a slice of elements as its bytes (no copy).
func asBytes[T Element](data []T) []byte {
	if len(data) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data)*int(unsafe.Sizeof(zero)))
}

// DecodeTensor parses a serialized ONNX TensorProto (a .pb file of ONNX test
// data) with the library's own reader.
func DecodeTensor(pb []byte) (*Tensor, error) {
	var h *C.kiln_tensor
	if err := cTensorDecode(bytesPointer(pb), C.size_t(len(pb)), &h); err != nil {
		return nil, err
	}
	defer C.kiln_tensor_destroy(h)
	return tensorFromHandle(h)
}

// tensorFromHandle copies a kiln_tensor's dtype, shape and bytes into Go.
func tensorFromHandle(h *C.kiln_tensor) (*Tensor, error) {
	var dtype, rank C.int32_t
	if err := cTensorInfo(h, &dtype, nil, 0, &rank); err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return nil, err
	}
	dims := make([]C.int64_t, int(rank)+1) // +1: never a zero-length buffer
	if err := cTensorInfo(h, &dtype, &dims[0], C.int32_t(len(dims)), &rank); err != nil {
		return nil, err
	}
	var data unsafe.Pointer
	var nbytes C.size_t
	if err := cTensorData(h, &data, &nbytes); err != nil {
		return nil, err
	}
	t := &Tensor{DType: DType(dtype), Shape: make([]int64, int(rank))}
	for i := range t.Shape {
		t.Shape[i] = int64(dims[i])
	}
	t.Data = C.GoBytes(data, C.int(nbytes))
	return t, nil
}

// Encode serializes the tensor as an ONNX TensorProto named name.
func (t *Tensor) Encode(name string) ([]byte, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	dims := cDims(t.Shape)
	var needed C.size_t
	err := cTensorEncode(cname, C.int32_t(t.DType), dimsPointer(dims), C.int32_t(len(dims)),
		bytesPointer(t.Data), C.size_t(len(t.Data)), nil, 0, &needed)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return nil, err
	}
	out := make([]byte, int(needed))
	err = cTensorEncode(cname, C.int32_t(t.DType), dimsPointer(dims), C.int32_t(len(dims)),
		bytesPointer(t.Data), C.size_t(len(t.Data)), bytesPointer(out), needed, &needed)
	if err != nil {
		return nil, err
	}
	return out[:int(needed)], nil
}

// cDims converts a shape for C (int64_t and Go int64 have the same layout).
func cDims(shape []int64) []C.int64_t {
	if len(shape) == 0 {
		return nil
	}
	return unsafe.Slice((*C.int64_t)(unsafe.Pointer(&shape[0])), len(shape))
}

func dimsPointer(dims []C.int64_t) *C.int64_t {
	if len(dims) == 0 {
		return nil
	}
	return &dims[0]
}

// bytesPointer is the address of b's first byte, or nil for an empty slice.
// A non-nil empty slice still gets a valid pointer so that C sees "data
// present, zero bytes" rather than a missing argument.
func bytesPointer(b []byte) unsafe.Pointer {
	if cap(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[:1][0])
}

func isCode(err error, code C.int32_t) bool {
	e, ok := err.(*Error)
	return ok && e.Code == int32(code)
}
