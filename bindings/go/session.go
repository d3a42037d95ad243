package kiln

// #include <stdlib.h>
// #include <kiln.h>
import "C"

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// maxRank bounds the dims scratch buffer used on the hot path; higher ranks
// fall back to an allocated buffer.
const maxRank = 16

// sessionScratch holds the out-parameters of the per-run C calls. It is
// separate from Session so that it contains no Go pointers and may be
// passed to C, and it is reused so that a run allocates nothing for it.
type sessionScratch struct {
	dtype  C.int32_t
	rank   C.int32_t
	dims   [maxRank]C.int64_t
	data   unsafe.Pointer
	nbytes C.size_t
}

// Session holds the memory and bound inputs of one model run at a time.
// Its methods serialise on a mutex, so sharing one between goroutines is
// safe but runs them one after another; use one session per goroutine (or
// a SessionPool) for parallel runs.
type Session struct {
	mu      sync.Mutex // held by every method but Cancel
	handle  sync.Mutex // guards h against Cancel racing Close
	h       *C.kiln_session
	model   *Model
	scratch *sessionScratch
}

// NewSession plans memory and prepares kernels for the model.
func (m *Model) NewSession(opts ...Option) (*Session, error) {
	if !m.life.addChild() {
		return nil, errClosed("kiln_session_create", "model")
	}
	var h *C.kiln_session // a local: see NewRuntime
	err := withOptions(opts, func(bag *C.kiln_options) error {
		return cSessionCreate(m.h, bag, &h)
	})
	runtime.KeepAlive(m)
	if err != nil {
		m.life.childDone()
		return nil, err
	}
	s := &Session{h: h, model: m, scratch: &sessionScratch{}}
	liveHandles.Add(1)
	runtime.SetFinalizer(s, (*Session).Close)
	return s, nil
}

// Model is the model the session runs.
func (s *Session) Model() *Model { return s.model }

// Close waits for a run in flight, then frees the session. Closing twice
// is harmless.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handle.Lock()
	h := s.h
	s.h = nil
	s.handle.Unlock()
	if h != nil {
		C.kiln_session_destroy(h)
		liveHandles.Add(-1)
		s.model.life.childDone()
		runtime.SetFinalizer(s, nil)
	}
	return nil
}

// SetInput binds a Go slice to the input called name. data is one of
// []float32, []float64, []int8, []int16, []int32, []int64, []uint8,
// []uint16, []uint32, []uint64, []bool or *Tensor (then shape is taken
// from the tensor and must be omitted). The data is copied: the slice may
// be reused as soon as SetInput returns.
func (s *Session) SetInput(name string, data any, shape ...int64) error {
	var dtype DType
	var raw []byte
	switch v := data.(type) {
	case []float32:
		dtype, raw = Float32, asBytes(v)
	case []float64:
		dtype, raw = Float64, asBytes(v)
	case []int8:
		dtype, raw = Int8, asBytes(v)
	case []int16:
		dtype, raw = Int16, asBytes(v)
	case []int32:
		dtype, raw = Int32, asBytes(v)
	case []int64:
		dtype, raw = Int64, asBytes(v)
	case []uint8:
		dtype, raw = Uint8, asBytes(v)
	case []uint16:
		dtype, raw = Uint16, asBytes(v)
	case []uint32:
		dtype, raw = Uint32, asBytes(v)
	case []uint64:
		dtype, raw = Uint64, asBytes(v)
	case []bool:
		dtype, raw = Bool, asBytes(v)
	case *Tensor:
		if len(shape) != 0 {
			return newError("kiln_session_set_input", C.KILN_ERR_INVALID_ARGUMENT,
				"input %q: a *Tensor carries its own shape; pass no dims", name)
		}
		return s.SetInputRaw(name, v.DType, v.Shape, v.Data)
	default:
		return newError("kiln_session_set_input", C.KILN_ERR_DTYPE,
			"input %q: unsupported Go type %T (use a numeric or bool slice, or SetInputRaw)", name, data)
	}
	return s.SetInputRaw(name, dtype, shape, raw)
}

// SetInputRaw binds input name to raw little-endian element bytes of the
// given type and shape (for float16, bfloat16, the float8 types, ...).
func (s *Session) SetInputRaw(name string, dtype DType, shape []int64, raw []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == nil {
		return errClosed("kiln_session_set_input", "session")
	}
	dims := cDims(shape)
	// KILN_INPUT_COPY: the library copies the bytes before returning, so no
	// Go memory is retained by C after this call.
	var err error
	if index, ok := s.model.byName[name]; ok {
		err = cSessionSetInputAt(s.h, C.int32_t(index), C.int32_t(dtype), dimsPointer(dims),
			C.int32_t(len(dims)), bytesPointer(raw), C.size_t(len(raw)), C.KILN_INPUT_COPY)
	} else { // let the library report the unknown name in its own words
		cname := C.CString(name)
		err = cSessionSetInput(s.h, cname, C.int32_t(dtype), dimsPointer(dims),
			C.int32_t(len(dims)), bytesPointer(raw), C.size_t(len(raw)), C.KILN_INPUT_COPY)
		C.free(unsafe.Pointer(cname))
	}
	runtime.KeepAlive(raw)
	return err
}

// Run runs the model on the bound inputs.
func (s *Session) Run() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == nil {
		return errClosed("kiln_session_run", "session")
	}
	return cSessionRun(s.h)
}

// RunContext is Run that cancels the run when ctx is done (the error is
// then ErrCancelled).
func (s *Session) RunContext(ctx context.Context) error {
	if ctx.Done() == nil {
		return s.Run()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	finished := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Add(1)
	go func() {
		defer watcher.Done()
		select {
		case <-ctx.Done():
			s.Cancel()
		case <-finished:
		}
	}()
	err := s.Run()
	close(finished)
	watcher.Wait() // a late Cancel is harmless, but must not outlive us
	return err
}

// Cancel stops the run in flight, if any; it may be called from any
// goroutine. A run started later is not affected.
func (s *Session) Cancel() {
	s.handle.Lock()
	defer s.handle.Unlock()
	if s.h != nil {
		C.kiln_session_cancel(s.h)
	}
}

// OutputInfo returns the element type and shape of output index after a run.
func (s *Session) OutputInfo(index int) (DType, []int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	shape, err := s.outputInfo(index)
	return DType(s.scratch.dtype), shape, err
}

// outputInfo fills scratch.dtype and returns the shape; s.mu is held.
func (s *Session) outputInfo(index int) ([]int64, error) {
	if s.h == nil {
		return nil, errClosed("kiln_session_output_info", "session")
	}
	sc := s.scratch
	err := cSessionOutputInfo(s.h, C.int32_t(index), &sc.dtype, &sc.dims[0], maxRank, &sc.rank)
	if err != nil {
		if !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
			return nil, err
		}
		dims := make([]C.int64_t, int(sc.rank))
		if err := cSessionOutputInfo(s.h, C.int32_t(index), &sc.dtype, &dims[0], sc.rank, &sc.rank); err != nil {
			return nil, err
		}
		return goShape(dims), nil
	}
	return goShape(sc.dims[:int(sc.rank)]), nil
}

func goShape(dims []C.int64_t) []int64 {
	shape := make([]int64, len(dims))
	for i, d := range dims {
		shape[i] = int64(d)
	}
	return shape
}

// outputBytes points at the library's copy of output index; s.mu is held
// and the view is valid until the next run.
func (s *Session) outputBytes(index int) ([]byte, error) {
	sc := s.scratch
	if err := cSessionOutputView(s.h, C.int32_t(index), &sc.data, &sc.nbytes); err != nil {
		return nil, err
	}
	if sc.nbytes == 0 {
		return nil, nil
	}
	return unsafe.Slice((*byte)(sc.data), int(sc.nbytes)), nil
}

// Output copies output index (after a successful Run) into a new Tensor.
func (s *Session) Output(index int) (*Tensor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	shape, err := s.outputInfo(index)
	if err != nil {
		return nil, err
	}
	view, err := s.outputBytes(index)
	if err != nil {
		return nil, err
	}
	return &Tensor{DType: DType(s.scratch.dtype), Shape: shape, Data: append([]byte(nil), view...)}, nil
}

// OutputByName is Output for the output called name.
func (s *Session) OutputByName(name string) (*Tensor, error) {
	for i, v := range s.model.outputs {
		if v.Name == name {
			return s.Output(i)
		}
	}
	names := make([]string, len(s.model.outputs))
	for i, v := range s.model.outputs {
		names[i] = "'" + v.Name + "'"
	}
	// the C library's words for an unknown name
	return nil, newError("kiln_model_output_index", C.KILN_ERR_NOT_FOUND,
		"unknown output '%s'; the model's outputs are: %s", name, strings.Join(names, ", "))
}

// OutputAs copies output index out as a []T (T must match the output's
// element type) and returns its shape.
func OutputAs[T Element](s *Session, index int) ([]T, []int64, error) {
	out, shape, err := OutputInto[T](s, index, nil)
	return out, shape, err
}

// OutputInto is OutputAs that reuses dst when it is large enough, so a
// steady loop allocates only the shape.
func OutputInto[T Element](s *Session, index int, dst []T) ([]T, []int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	shape, err := s.outputInfo(index)
	if err != nil {
		return nil, nil, err
	}
	if want := DTypeOf[T](); DType(s.scratch.dtype) != want {
		return nil, nil, newError("kiln_session_output_info", C.KILN_ERR_DTYPE,
			"output %d holds %v, not %v", index, DType(s.scratch.dtype), want)
	}
	view, err := s.outputBytes(index)
	if err != nil {
		return nil, nil, err
	}
	var zero T
	n := len(view) / int(unsafe.Sizeof(zero))
	if cap(dst) < n {
		dst = make([]T, n)
	}
	dst = dst[:n]
	copy(asBytes(dst), view)
	return dst, shape, nil
}

// OutputFloat32 is OutputAs[float32] without the shape.
func (s *Session) OutputFloat32(index int) ([]float32, error) {
	out, _, err := OutputAs[float32](s, index)
	return out, err
}

// OutputInt64 is OutputAs[int64] without the shape.
func (s *Session) OutputInt64(index int) ([]int64, error) {
	out, _, err := OutputAs[int64](s, index)
	return out, err
}
