package kiln

// #include <kiln.h>
import "C"

import (
	"fmt"
	"regexp"
)

// Error is a failure reported by libkiln (or by this package, for misuse it
// detects before calling C, with the code C would have used).
type Error struct {
	Code    int32  // KILN_ERR_* status code; never 0
	Status  string // short name of the code, e.g. "shape mismatch"
	Message string // what went wrong, e.g. which input and which dims
	// Op is the C function that failed, e.g. "kiln_session_run", for logs
	// and bug reports. Error() leaves it out: the caller knows which
	// method it called, and C's names are not this package's.
	Op string
}

// A C function name leading one of the library's messages
// ("kiln_tensor_string: index 3 out of range").
var cFunctionPrefix = regexp.MustCompile(`^kiln_[a-z0-9_]+: `)

// Error reads "kiln: <status>: <message>", e.g. "kiln: dtype mismatch:
// input 'image' expects float32, got float64".
func (e *Error) Error() string {
	return fmt.Sprintf("kiln: %s: %s", e.Status, cFunctionPrefix.ReplaceAllString(e.Message, ""))
}

// Is makes errors.Is(err, ErrShape) true for every *Error with that code:
// a target with an empty Message matches on the code alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// statusName is kiln_status_name as a Go string.
func statusName(code int32) string {
	return C.GoString(C.kiln_status_name(C.int32_t(code)))
}

// newError builds an *Error for a failure found on the Go side.
func newError(op string, code int32, format string, args ...interface{}) *Error {
	return &Error{Code: code, Status: statusName(code), Message: fmt.Sprintf(format, args...), Op: op}
}

func sentinel(code int32) *Error { return &Error{Code: code, Status: statusName(code)} }

// errClosed is returned by methods called after Close.
func errClosed(op, what string) *Error {
	return newError(op, C.KILN_ERR_INVALID_ARGUMENT, "%s is closed", what)
}
