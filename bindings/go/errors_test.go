package kiln

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// wantError checks err is an *Error with the sentinel's code and a message.
func wantError(t *testing.T, what string, err error, sentinel *Error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: got %v (%T), want an *Error", what, err, err)
	}
	if !errors.Is(err, sentinel) || e.Code != sentinel.Code {
		t.Fatalf("%s: got code %d (%s), want %d (%s): %v", what, e.Code, e.Status, sentinel.Code, sentinel.Status, err)
	}
	if e.Message == "" || e.Status == "" {
		t.Fatalf("%s: empty message or status name: %#v", what, e)
	}
	t.Logf("%s: %v", what, err)
}

func TestErrors(t *testing.T) {
	rt, model := openDigits(t)
	_, err := rt.LoadModelBytes([]byte("this is not an ONNX model"))
	wantError(t, "bad model bytes", err, ErrInvalidModel)
	_, err = rt.LoadModel(filepath.Join(t.TempDir(), "missing.onnx"))
	wantError(t, "missing file", err, ErrIO)

	session, err := model.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	wantError(t, "run before binding", session.Run(), ErrState)
	wantError(t, "wrong dtype", session.SetInput("image", make([]int64, 64), 1, 1, 8, 8), ErrDType)
	wantError(t, "wrong shape", session.SetInput("image", make([]float32, 72), 1, 1, 8, 9), ErrShape)
	wantError(t, "wrong byte count", session.SetInput("image", make([]float32, 63), 1, 1, 8, 8), ErrInvalidArgument)
	err = session.SetInput("pixels", make([]float32, 64), 1, 1, 8, 8)
	wantError(t, "unknown input name", err, ErrNotFound)
	if !strings.Contains(err.Error(), "pixels") {
		t.Errorf("the message should name the input: %v", err)
	}
	wantError(t, "unsupported Go type", session.SetInput("image", []string{"a"}), ErrDType)
	_, err = session.Output(0)
	wantError(t, "output before a run", err, ErrState)
	_, _, err = OutputAs[int64](session, 0)
	wantError(t, "typed output before a run", err, ErrState)

	if err := session.SetInput("image", make([]float32, 64), 1, 1, 8, 8); err != nil {
		t.Fatal(err)
	}
	if err := session.Run(); err != nil {
		t.Fatal(err)
	}
	_, _, err = OutputAs[int64](session, 0)
	wantError(t, "typed output of the wrong type", err, ErrDType)
	_, err = session.Output(7)
	wantError(t, "output index out of range", err, ErrInvalidArgument)
	_, err = model.InputName(9)
	wantError(t, "generated method, bad index", err, ErrInvalidArgument)

	session.Close()
	wantError(t, "run after close", session.Run(), ErrInvalidArgument)
	if err := session.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// Handles may be closed in any order: the C handles go in the order C needs.
func TestCloseInAnyOrder(t *testing.T) {
	rt, err := NewRuntime(Threads(2))
	if err != nil {
		t.Fatal(err)
	}
	model, err := rt.LoadModel(repoPath("examples", "digits", "digits.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	session, err := model.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	rt.Close()
	model.Close()
	if _, err := model.NewSession(); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("NewSession on a closed model: %v", err)
	}
	// The session still works: its model and runtime wait for it.
	if err := session.SetInput("image", make([]float32, 64), 1, 1, 8, 8); err != nil {
		t.Fatal(err)
	}
	if err := session.Run(); err != nil {
		t.Fatal(err)
	}
	session.Close()
}

func TestBadOption(t *testing.T) {
	_, err := NewRuntime(Threads(0))
	wantError(t, "zero threads", err, ErrInvalidArgument)
	_, err = NewRuntime(IntOption(9999, 1))
	wantError(t, "unknown option key", err, ErrInvalidArgument)
}

func TestABIVersionMatches(t *testing.T) {
	if err := CheckABI(); err != nil {
		t.Fatal(err)
	}
	if Version() == "" {
		t.Fatal("empty version")
	}
}

// Handles a program forgets to close are released by finalizers, sessions
// before their model and models before their runtime.
func TestFinalizersReleaseForgottenHandles(t *testing.T) {
	runtime.GC()
	before := liveHandles.Load()
	for i := 0; i < 50; i++ {
		rt, err := NewRuntime()
		if err != nil {
			t.Fatal(err)
		}
		model, err := rt.LoadModel(repoPath("examples", "digits", "digits.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 4; j++ {
			session, err := model.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			if err := session.SetInput("image", make([]float32, 64), 1, 1, 8, 8); err != nil {
				t.Fatal(err)
			}
			if err := session.Run(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Each collection frees one level: sessions, then models, then runtimes.
	for i := 0; i < 50 && liveHandles.Load() > before; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if live := liveHandles.Load(); live > before {
		t.Fatalf("%d of 300 forgotten handles are still alive after collections", live-before)
	}
}

// The texts of the mistakes users commonly make: the C library's words
// (tests/test_error_texts.c) behind "kiln: <status>: ", with no C function
// names.
func TestErrorTexts(t *testing.T) {
	want := func(what string, err error, text string) {
		t.Helper()
		if err == nil || err.Error() != text {
			t.Fatalf("%s:\n got %v\nwant %s", what, err, text)
		}
	}
	wantPrefix := func(what string, err error, prefix string) {
		t.Helper()
		if err == nil || !strings.HasPrefix(err.Error(), prefix) || len(err.Error()) == len(prefix) {
			t.Fatalf("%s:\n got %v\nwant %s...", what, err, prefix)
		}
	}
	rt, model := openDigits(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.onnx")
	_, err := rt.LoadModel(missing)
	want("missing file", err, "kiln: i/o error: cannot open '"+missing+"': No such file or directory")
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("this is not an ONNX model\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = rt.LoadModel(notes)
	wantPrefix("not a model", err, "kiln: invalid model: '"+notes+"' is not a valid ONNX model: ")
	good, err := os.ReadFile(repoPath("examples", "digits", "digits.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.LoadModelBytes(good[:len(good)/2])
	wantPrefix("truncated model", err, "kiln: invalid model: the model bytes are not a valid ONNX model: ")
	sample := repoPath("examples", "digits", "samples", "digit_12_label_2.pb")
	_, err = rt.LoadModel(sample)
	want("tensor file", err, "kiln: invalid model: '"+sample+"' is an ONNX tensor file, not a model")
	_, err = rt.LoadModel(repoPath("tests", "data", "models", "unsupported_op.onnx"))
	wantPrefix("unsupported op", err, "kiln: unsupported: unsupported op ")

	session, err := model.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	want("run before setting", session.Run(),
		"kiln: wrong call order: input 'image' (float32, shape ?x1x8x8) has no value: set it before running")
	want("unknown input", session.SetInput("imgae", make([]float32, 64), 1, 1, 8, 8),
		"kiln: not found: unknown input 'imgae'; the model's inputs are: 'image'")
	want("wrong dtype", session.SetInput("image", make([]float64, 64), 1, 1, 8, 8),
		"kiln: dtype mismatch: input 'image' expects float32, got float64")
	want("wrong element count", session.SetInput("image", make([]float32, 10), 1, 1, 8, 8),
		"kiln: invalid argument: input 'image': 10 float32 elements given, the shape 1x1x8x8 needs 64")
	want("wrong dim", session.SetInput("image", make([]float32, 72), 1, 1, 8, 9),
		"kiln: shape mismatch: input 'image' expects shape ?x1x8x8, got 1x1x8x9 (dim 3 must be 8)")
	want("wrong rank", session.SetInput("image", make([]float32, 64), 8, 8),
		"kiln: shape mismatch: input 'image' expects shape ?x1x8x8 (rank 4), got 8x8 (rank 2)")
	if err := session.SetInput("image", make([]float32, 64), 1, 1, 8, 8); err != nil {
		t.Fatal(err)
	}
	if err := session.Run(); err != nil {
		t.Fatal(err)
	}
	_, err = session.OutputByName("probs")
	want("unknown output", err, "kiln: not found: unknown output 'probs'; the model's outputs are: 'logits'")
	_, err = session.Output(3)
	want("output index", err, "kiln: invalid argument: output index 3 out of range: the model has 1 output")
	var e *Error
	if errors.As(err, &e) && e.Op == "" {
		t.Errorf("Op should still name the C function for logs: %#v", e)
	}
}
