package kiln

// #include <stdlib.h>
// #include <kiln.h>
import "C"

import "unsafe"

// Device memory: for callers that already hold their data on the session's
// device (a session made with StringOptDevice). Addresses are uintptr: they
// are the device's (a CUDA pointer), never Go memory, and Kiln never reads
// them on the host.

// SetInputDevice binds input name to nbytes of device memory at address
// (borrowed until the next run returns, kept for later runs until the input
// is bound again; SetInput binds it back to host memory). Device steps read
// it there, with no host-to-device copy.
func (s *Session) SetInputDevice(name string, dtype DType, shape []int64, address uintptr, nbytes int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == nil {
		return errClosed("kiln_session_set_input_device", "session")
	}
	dims := cDims(shape)
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return cSessionSetInputDevice(s.h, cname, C.int32_t(dtype), dimsPointer(dims),
		C.int32_t(len(dims)), deviceAddress(address), C.size_t(nbytes))
}

// BindOutputDevice has each later run also write output index into capacity
// bytes of device memory at address; address 0 unbinds. A run returns once
// the buffer holds the result.
func (s *Session) BindOutputDevice(index int, address uintptr, capacity int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == nil {
		return errClosed("kiln_session_bind_output_device", "session")
	}
	return cSessionBindOutputDevice(s.h, C.int32_t(index), deviceAddress(address), C.size_t(capacity))
}

// DeviceStream returns the session's stream on its device (a cudaStream_t
// for CUDA). A run has waited for it before returning.
func (s *Session) DeviceStream() (uintptr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == nil {
		return 0, errClosed("kiln_session_device_stream", "session")
	}
	var stream unsafe.Pointer
	err := cSessionDeviceStream(s.h, &stream)
	return uintptr(stream), err
}

// deviceAddress turns a device address into the pointer type C takes. It
// is not Go memory, so the garbage collector and cgo's pointer checks have
// nothing to track; read through memory rather than converted, because go
// vet rightly flags uintptr-to-Pointer conversions of Go addresses.
func deviceAddress(address uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&address))
}
