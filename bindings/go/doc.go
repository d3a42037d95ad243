// Package kiln runs ONNX models with Kiln, a small C inference runtime.
//
// The package wraps the flat C API of libkiln (capi/kiln.h). Its cgo glue,
// one thin wrapper per C function, is generated from capi/kiln_api.json by
// bindings/gen/emit_go.py (capi_gen.go, methods_gen.go); the types here
// build the Go API on top of it:
//
//	rt, err := kiln.NewRuntime(kiln.Threads(2))
//	model, err := rt.LoadModel("digits.onnx")
//	session, err := model.NewSession()
//	err = session.SetInput("image", pixels, 1, 1, 8, 8)
//	err = session.Run()
//	logits, err := session.OutputFloat32(0)
//
// Sharing: a Runtime and a Model may be used from many goroutines at once.
// A Session runs one run at a time (its methods serialise on a mutex); give
// each goroutine its own, or borrow them from a SessionPool.
//
// Memory: inputs are copied into library memory when they are bound, so Go
// slices are never retained by C (the cgo pointer rules hold without
// pinning). Outputs are copied out into Go slices. Every handle has a
// Close method; a finalizer releases handles that were not closed, but
// closing explicitly frees the C memory promptly.
//
// Errors: every failure is an *Error carrying the C status code, its name
// and the library's message, read on the same OS thread inside the same cgo
// call as the failing function. Compare codes with errors.Is against the
// sentinels ErrShape, ErrDType, ErrNotFound, ...
package kiln
