package kiln

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// rssKiB reads VmRSS from /proc/self/status (0 where there is none).
func rssKiB() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	scan := bufio.NewScanner(f)
	for scan.Scan() {
		if fields := strings.Fields(scan.Text()); len(fields) >= 2 && fields[0] == "VmRSS:" {
			kib, _ := strconv.ParseInt(fields[1], 10, 64)
			return kib
		}
	}
	return 0
}

// referenceLogits runs every sample once on one session.
func referenceLogits(t *testing.T, model *Model, samples []sample) [][]byte {
	session, err := model.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	want := make([][]byte, len(samples))
	for i, s := range samples {
		if err := session.SetInput("image", s.input); err != nil {
			t.Fatal(err)
		}
		if err := session.Run(); err != nil {
			t.Fatal(err)
		}
		out, err := session.Output(0)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = out.Data
	}
	return want
}

// Eight goroutines share one Model, each with its own Session, 1,000 runs
// each; every output must equal the single-session reference bit for bit and
// the resident memory must stay flat.
func TestConcurrentSessionsShareOneModel(t *testing.T) {
	const goroutines, runs = 8, 1000
	_, model := openDigits(t, Threads(1))
	samples := digitSamples(t)
	want := referenceLogits(t, model, samples)

	work := func(rounds int) {
		var wg sync.WaitGroup
		errs := make(chan error, goroutines)
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				session, err := model.NewSession()
				if err != nil {
					errs <- err
					return
				}
				defer session.Close()
				var logits []float32
				for r := 0; r < rounds; r++ {
					i := (g + r) % len(samples)
					pixels, _ := Values[float32](samples[i].input)
					if err := session.SetInput("image", pixels, samples[i].input.Shape...); err != nil {
						errs <- err
						return
					}
					if err := session.Run(); err != nil {
						errs <- err
						return
					}
					logits, _, err = OutputInto(session, 0, logits)
					if err != nil {
						errs <- err
						return
					}
					if !bytes.Equal(asBytes(logits), want[i]) || argmax(logits) != samples[i].label {
						errs <- newError("", 11, "goroutine %d run %d: sample %d gave class %d, wrong logits", g, r, i, argmax(logits))
						return
					}
				}
			}(g)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	// Warm up with a full round: the Go heap, the C allocator's arenas and
	// (under -race) the race detector's shadow memory grow to their working
	// size first. Returning freed Go memory before each reading makes RSS
	// measure what is still held.
	work(runs)
	debug.FreeOSMemory()
	before := rssKiB()
	work(runs)
	debug.FreeOSMemory()
	after := rssKiB()
	t.Logf("RSS before %d KiB, after %d KiB (%+d KiB) over %d goroutines x %d runs",
		before, after, after-before, goroutines, runs)
	if after-before > 10*1024 {
		t.Fatalf("RSS grew by %d KiB over %d runs; more than 10 MiB", after-before, goroutines*runs)
	}
}

func TestSessionPool(t *testing.T) {
	_, model := openDigits(t)
	samples := digitSamples(t)
	want := referenceLogits(t, model, samples)
	pool := NewSessionPool(model, 3)
	defer pool.Close()
	var wg sync.WaitGroup
	failures := make(chan string, 32)
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			i := g % len(samples)
			err := pool.Do(context.Background(), func(s *Session) error {
				if err := s.SetInput("image", samples[i].input); err != nil {
					return err
				}
				if err := s.Run(); err != nil {
					return err
				}
				out, err := s.Output(0)
				if err == nil && !bytes.Equal(out.Data, want[i]) {
					failures <- "wrong logits"
				}
				return err
			})
			if err != nil {
				failures <- err.Error()
			}
		}(g)
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Fatal(f)
	}
	if n := len(pool.all); n > 3 {
		t.Fatalf("pool created %d sessions, limit 3", n)
	}
}

func TestRunContextAlreadyDone(t *testing.T) {
	_, model := openDigits(t)
	session, err := model.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if err := session.SetInput("image", make([]float32, 64), 1, 1, 8, 8); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := session.RunContext(ctx); err != nil {
		t.Fatalf("RunContext with a live context: %v", err)
	}
	cancel()
	if err := session.RunContext(ctx); err != context.Canceled {
		t.Fatalf("RunContext with a cancelled context: %v, want context.Canceled", err)
	}
}
