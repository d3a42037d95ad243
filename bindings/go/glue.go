package kiln

// #include <kiln.h>
import "C"

import "bytes"

// Functions the generated methods in methods_gen.go rely on.

// enter gives the model's handle for a call, holding the model open (as a
// child would) so that a concurrent Close cannot destroy it mid-call.
func (m *Model) enter(op string) (*C.kiln_model, error) {
	if !m.life.addChild() {
		return nil, errClosed(op, "model")
	}
	return m.h, nil
}

func (m *Model) leave() { m.life.childDone() }

// enter locks the session for a call and gives its handle.
func (s *Session) enter(op string) (*C.kiln_session, error) {
	s.mu.Lock()
	if s.h == nil {
		s.mu.Unlock()
		return nil, errClosed(op, "session")
	}
	return s.h, nil
}

func (s *Session) leave() { s.mu.Unlock() }

// cBufString is the text of a NUL-terminated string buffer.
func cBufString(buf []byte) string {
	if end := bytes.IndexByte(buf, 0); end >= 0 {
		buf = buf[:end]
	}
	return string(buf)
}

// dimsOrNil converts a shape read with the two-call pattern; rank -1 (unknown)
// gives nil.
func dimsOrNil(dims []C.int64_t, rank C.int32_t) []int64 {
	if rank < 0 {
		return nil
	}
	return goShape(dims[:int(rank)])
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
