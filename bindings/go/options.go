package kiln

// #include <stdlib.h>
// #include <kiln.h>
import "C"

import (
	"runtime"
	"unsafe"
)

// Option is one setting for NewRuntime, Runtime.LoadModel or
// Model.NewSession. Each maps to a KILN_OPT_* key of the C API; the library
// ignores keys that do not concern the object being created.
type Option struct {
	key    int32
	value  int32
	str    string
	isText bool
}

// Threads sets the runtime's worker threads, the caller included (default 1).
func Threads(n int) Option { return Option{key: C.KILN_OPT_THREADS, value: int32(n)} }

// OptimizeLevel sets graph optimization at load: 0 none, 1 basic, 2 all (default).
func OptimizeLevel(level int) Option { return Option{key: C.KILN_OPT_OPTIMIZE, value: int32(level)} }

// AllowUnsupported loads models with unsupported ops for inspection only.
func AllowUnsupported() Option { return Option{key: C.KILN_OPT_ALLOW_UNSUPPORTED, value: 1} }

// MaxModelMB refuses models (external data included) above this size.
func MaxModelMB(mb int) Option { return Option{key: C.KILN_OPT_MAX_MODEL_MB, value: int32(mb)} }

// UseDNNL chooses whether oneDNN may serve convolutions and matmuls.
func UseDNNL(on bool) Option { return Option{key: C.KILN_OPT_USE_DNNL, value: boolInt(on)} }

// MaxArenaMB refuses sessions whose planned memory is above this size.
func MaxArenaMB(mb int) Option { return Option{key: C.KILN_OPT_MAX_ARENA_MB, value: int32(mb)} }

// Tune times candidate kernels at session creation and keeps the fastest.
func Tune(on bool) Option { return Option{key: C.KILN_OPT_TUNE, value: boolInt(on)} }

// PlanCache sets how many plans a session keeps, one per input signature
// (dtypes and shapes; 1..1024, default 8): going back to a kept shape costs
// no planning. Session.CacheInfo reports them, Session.ReleaseMemory frees them.
func PlanCache(n int) Option { return Option{key: C.KILN_OPT_PLAN_CACHE, value: int32(n)} }

// Profile records per-step times during runs.
func Profile(on bool) Option { return Option{key: C.KILN_OPT_PROFILE, value: boolInt(on)} }

// TuningCache names the file kernel tuning choices are read from and saved to.
func TuningCache(path string) Option {
	return Option{key: C.KILN_SOPT_TUNING_CACHE, str: path, isText: true}
}

// IntOption sets any integer KILN_OPT_* key, for keys newer than this file.
func IntOption(key, value int32) Option { return Option{key: key, value: value} }

func boolInt(on bool) int32 {
	if on {
		return 1
	}
	return 0
}

// withOptions builds a kiln_options bag for the duration of fn; with no
// options fn gets NULL (the library's defaults).
func withOptions(opts []Option, fn func(*C.kiln_options) error) error {
	if len(opts) == 0 {
		return fn(nil)
	}
	// The bag is used and destroyed on this goroutine; no cgo call keeps it.
	var bag *C.kiln_options
	if err := cOptionsCreate(&bag); err != nil {
		return err
	}
	defer C.kiln_options_destroy(bag)
	for _, o := range opts {
		var err error
		if o.isText {
			value := C.CString(o.str)
			err = cOptionsSetString(bag, C.int32_t(o.key), value)
			C.free(unsafe.Pointer(value))
		} else {
			err = cOptionsSetInt(bag, C.int32_t(o.key), C.int32_t(o.value))
		}
		if err != nil {
			return err
		}
	}
	err := fn(bag)
	runtime.KeepAlive(opts)
	return err
}
