package kiln

// #include <stdlib.h>
// #include <kiln.h>
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"
)

// Kind says what a model input or output holds (KindTensor, KindSequence,
// KindOptional).
type Kind int32

// String is the kind's name: "tensor", "sequence" or "optional".
func (k Kind) String() string {
	switch k {
	case KindTensor:
		return "tensor"
	case KindSequence:
		return "sequence"
	case KindOptional:
		return "optional"
	}
	return fmt.Sprintf("kind(%d)", int32(k))
}

// ValueInfo describes a model input or output as the model declares it.
type ValueInfo struct {
	Name  string
	Kind  Kind
	DType DType   // 0 when the model leaves it open
	Shape []int64 // -1 for a dynamic dim; nil when even the rank is unknown
}

// Model is an immutable, validated graph. It is safe for concurrent use:
// many goroutines may create sessions from one model.
type Model struct {
	h       *C.kiln_model
	rt      *Runtime
	life    lifetime
	inputs  []ValueInfo
	outputs []ValueInfo
	byName  map[string]int32 // input name -> index, to bind without C strings
}

// LoadModel loads an ONNX file; external data is read relative to its folder.
func (r *Runtime) LoadModel(path string, opts ...Option) (*Model, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return r.load(opts, func(bag *C.kiln_options, out **C.kiln_model) error {
		return cModelLoadFile(r.h, cpath, bag, out)
	})
}

// LoadModelBytes loads a model from memory; the bytes are not kept.
func (r *Runtime) LoadModelBytes(data []byte, opts ...Option) (*Model, error) {
	return r.load(opts, func(bag *C.kiln_options, out **C.kiln_model) error {
		// The library reads the bytes only during this call, so passing Go
		// memory is within the cgo pointer rules.
		return cModelLoadMemory(r.h, bytesPointer(data), C.size_t(len(data)), bag, out)
	})
}

// LoadModelFile is os.ReadFile followed by LoadModelBytes, for callers that
// want the file read by Go (e.g. from an embed.FS they copied out).
func (r *Runtime) LoadModelFile(path string, opts ...Option) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return r.LoadModelBytes(data, opts...)
}

func (r *Runtime) load(opts []Option, create func(*C.kiln_options, **C.kiln_model) error) (*Model, error) {
	if !r.life.addChild() {
		return nil, errClosed("kiln_model_load", "runtime")
	}
	var h *C.kiln_model // a local: see NewRuntime
	err := withOptions(opts, func(bag *C.kiln_options) error { return create(bag, &h) })
	runtime.KeepAlive(r)
	if err == nil {
		m := &Model{h: h, rt: r}
		liveHandles.Add(1)
		m.life.destroy = func() { C.kiln_model_destroy(h); liveHandles.Add(-1); r.life.childDone() }
		if err = m.describe(); err != nil {
			m.life.close()
			return nil, err
		}
		runtime.SetFinalizer(m, (*Model).Close)
		return m, nil
	}
	r.life.childDone()
	return nil, err
}

// describe reads the declared inputs and outputs once; the model is
// immutable, so they never change.
func (m *Model) describe() error {
	var err error
	if m.inputs, err = m.values(true); err != nil {
		return err
	}
	if m.outputs, err = m.values(false); err != nil {
		return err
	}
	m.byName = make(map[string]int32, len(m.inputs))
	for i, v := range m.inputs {
		m.byName[v.Name] = int32(i)
	}
	return nil
}

func (m *Model) values(inputs bool) ([]ValueInfo, error) {
	count, nameOf, dtypeOf, shapeOf, kindOf := cModelOutputCount, cModelOutputName,
		cModelOutputDtype, cModelOutputShape, cModelOutputKind
	if inputs {
		count, nameOf, dtypeOf, shapeOf, kindOf = cModelInputCount, cModelInputName,
			cModelInputDtype, cModelInputShape, cModelInputKind
	}
	var n C.int32_t
	if err := count(m.h, &n); err != nil {
		return nil, err
	}
	infos := make([]ValueInfo, int(n))
	for i := range infos {
		index := C.int32_t(i)
		name, err := twoCallString(func(buf *C.char, cap C.int32_t, needed *C.int32_t) error {
			return nameOf(m.h, index, buf, cap, needed)
		})
		if err != nil {
			return nil, err
		}
		var dtype, kind, rank C.int32_t
		if err := dtypeOf(m.h, index, &dtype); err != nil {
			return nil, err
		}
		if err := kindOf(m.h, index, &kind); err != nil {
			return nil, err
		}
		dims := make([]C.int64_t, 16)
		err = shapeOf(m.h, index, &dims[0], C.int32_t(len(dims)), &rank)
		if isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
			dims = make([]C.int64_t, int(rank))
			err = shapeOf(m.h, index, &dims[0], rank, &rank)
		}
		if err != nil {
			return nil, err
		}
		info := ValueInfo{Name: name, Kind: Kind(kind), DType: DType(dtype)}
		if rank >= 0 {
			info.Shape = make([]int64, int(rank))
			for d := range info.Shape {
				info.Shape[d] = int64(dims[d])
			}
		}
		infos[i] = info
	}
	runtime.KeepAlive(m)
	return infos, nil
}

// twoCallString runs a two-call-pattern getter: ask the size, then fetch.
func twoCallString(get func(buf *C.char, cap C.int32_t, needed *C.int32_t) error) (string, error) {
	var needed C.int32_t
	if err := get(nil, 0, &needed); err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", err
	}
	if needed <= 0 {
		return "", nil
	}
	buf := (*C.char)(C.malloc(C.size_t(needed)))
	defer C.free(unsafe.Pointer(buf))
	if err := get(buf, needed, &needed); err != nil {
		return "", err
	}
	return C.GoString(buf), nil
}

// Inputs are the model's declared inputs, in order.
func (m *Model) Inputs() []ValueInfo { return cloneInfos(m.inputs) }

// Outputs are the model's declared outputs, in order.
func (m *Model) Outputs() []ValueInfo { return cloneInfos(m.outputs) }

func cloneInfos(in []ValueInfo) []ValueInfo {
	out := make([]ValueInfo, len(in))
	for i, v := range in {
		v.Shape = append([]int64(nil), v.Shape...)
		out[i] = v
	}
	return out
}

// Close releases the model once its sessions are closed too. Closing twice
// is harmless.
func (m *Model) Close() error {
	m.life.close()
	return nil
}
