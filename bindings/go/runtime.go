package kiln

// #include <kiln.h>
import "C"

import (
	"fmt"
	"runtime"
	"sync"
)

// Runtime owns the thread pool shared by its models and sessions. It is
// safe for concurrent use.
type Runtime struct {
	h    *C.kiln_runtime
	life lifetime
}

var abiCheck struct {
	once sync.Once
	err  error
}

// CheckABI compares the loaded libkiln's ABI version with the one this
// package was generated for (capi/kiln_api.json). NewRuntime calls it.
func CheckABI() error {
	abiCheck.once.Do(func() {
		got := int32(C.kiln_abi_version())
		if got != specABIVersion {
			abiCheck.err = &Error{Code: C.KILN_ERR_UNSUPPORTED, Status: statusName(C.KILN_ERR_UNSUPPORTED),
				Op: "kiln_abi_version", Message: fmt.Sprintf(
					"the loaded libkiln has ABI version %d but this Go package was generated "+
						"for ABI version %d; use the libkiln these bindings were built with", got, specABIVersion)}
		}
	})
	return abiCheck.err
}

// Version is the release version of the loaded libkiln, e.g. "0.1.0".
func Version() string { return C.GoString(C.kiln_version()) }

// NewRuntime creates a runtime; Threads(n) sets its worker threads.
func NewRuntime(opts ...Option) (*Runtime, error) {
	if err := CheckABI(); err != nil {
		return nil, err
	}
	// The handle lands in a local: cgo may not be given a pointer into a
	// struct that holds Go pointers.
	var h *C.kiln_runtime
	err := withOptions(opts, func(bag *C.kiln_options) error {
		return cRuntimeCreate(bag, &h)
	})
	if err != nil {
		return nil, err
	}
	r := &Runtime{h: h}
	liveHandles.Add(1)
	r.life.destroy = func() { C.kiln_runtime_destroy(h); liveHandles.Add(-1) }
	runtime.SetFinalizer(r, (*Runtime).Close)
	return r, nil
}

// Close releases the runtime once its models are closed too. Closing twice
// is harmless.
func (r *Runtime) Close() error {
	r.life.close()
	return nil
}
