package kiln

import (
	"sync"
	"sync/atomic"
)

// liveHandles counts C handles (runtimes, models, sessions) not yet
// destroyed; the tests use it to see that finalizers release them.
var liveHandles atomic.Int64

// lifetime orders the destruction of a C handle after that of the handles
// created from it: the C API requires sessions to go before their model and
// models before their runtime. Close marks the owner closed; the handle is
// destroyed when it is closed and its last child is gone, whatever order
// the Go program closes things in.
type lifetime struct {
	mu       sync.Mutex
	closed   bool
	children int
	destroy  func() // frees the C handle; run once
}

// addChild registers a child about to be created; false if closed.
func (l *lifetime) addChild() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.children++
	return true
}

// childDone unregisters a child and destroys the owner if that was the last
// thing keeping a closed owner alive.
func (l *lifetime) childDone() {
	l.mu.Lock()
	l.children--
	last := l.closed && l.children == 0
	l.mu.Unlock()
	if last {
		l.destroy()
	}
}

// close marks the owner closed; false if it already was.
func (l *lifetime) close() bool {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return false
	}
	l.closed = true
	last := l.children == 0
	l.mu.Unlock()
	if last {
		l.destroy()
	}
	return true
}

func (l *lifetime) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}
