package kiln

import (
	"context"
	"sync"
)

// SessionPool lends sessions of one model to goroutines: at most size
// sessions exist, created on first need and reused afterwards.
type SessionPool struct {
	model *Model
	opts  []Option
	idle  chan *Session
	slots chan struct{} // one token per session that may still be created

	mu     sync.Mutex
	all    []*Session
	closed bool
}

// NewSessionPool creates a pool of up to size sessions of model.
func NewSessionPool(model *Model, size int, opts ...Option) *SessionPool {
	if size < 1 {
		size = 1
	}
	p := &SessionPool{model: model, opts: opts, idle: make(chan *Session, size),
		slots: make(chan struct{}, size)}
	for i := 0; i < size; i++ {
		p.slots <- struct{}{}
	}
	return p
}

// Get borrows a session, waiting while all are lent out. Return it with Put.
func (p *SessionPool) Get(ctx context.Context) (*Session, error) {
	select {
	case s := <-p.idle:
		return s, nil
	default:
	}
	select {
	case s := <-p.idle:
		return s, nil
	case <-p.slots:
		s, err := p.model.NewSession(p.opts...)
		if err != nil {
			p.slots <- struct{}{}
			return nil, err
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.closed {
			s.Close()
			return nil, errClosed("kiln_session_create", "session pool")
		}
		p.all = append(p.all, s)
		return s, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Put returns a session borrowed with Get.
func (p *SessionPool) Put(s *Session) { p.idle <- s }

// Do runs fn with a borrowed session and returns it to the pool.
func (p *SessionPool) Do(ctx context.Context, fn func(*Session) error) error {
	s, err := p.Get(ctx)
	if err != nil {
		return err
	}
	defer p.Put(s)
	return fn(s)
}

// Close closes every session the pool created (waiting for runs in flight).
// Sessions still lent out fail their next call.
func (p *SessionPool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, s := range p.all {
		s.Close()
	}
	p.all = nil
	return nil
}
