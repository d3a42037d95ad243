package kiln

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Paths come from the environment CMake sets (KILN_SOURCE_DIR, KILN_CLI,
// KILN_MODELS_DIR); without it the source tree is found relative to this
// package and tests needing the CLI skip.

func sourceDir() string {
	if dir := os.Getenv("KILN_SOURCE_DIR"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..")
}

func repoPath(parts ...string) string {
	return filepath.Join(append([]string{sourceDir()}, parts...)...)
}

func cliPath(t testing.TB) string {
	cli := os.Getenv("KILN_CLI")
	if cli == "" {
		t.Skip("KILN_CLI is not set (the path of the built kiln command); skipping the comparison with the C API")
	}
	return cli
}

type sample struct {
	name  string
	label int
	input *Tensor
	raw   []byte
}

// digitSamples reads examples/digits/samples/*.pb; labels come from the names.
func digitSamples(t testing.TB) []sample {
	dir := repoPath("examples", "digits", "samples")
	paths, err := filepath.Glob(filepath.Join(dir, "*.pb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no digit samples in %s (%v)", dir, err)
	}
	sort.Strings(paths)
	var out []sample
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tensor, err := DecodeTensor(raw)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		base := filepath.Base(path)
		at := strings.Index(base, "_label_")
		if at < 0 {
			t.Fatalf("%s: no _label_ in the name", base)
		}
		out = append(out, sample{name: path, label: int(base[at+7] - '0'), input: tensor, raw: raw})
	}
	return out
}

func openDigits(t testing.TB, opts ...Option) (*Runtime, *Model) {
	rt, err := NewRuntime(opts...)
	if err != nil {
		t.Fatal(err)
	}
	model, err := rt.LoadModel(repoPath("examples", "digits", "digits.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close(); rt.Close() })
	return rt, model
}

func argmax(v []float32) int {
	best := 0
	for i := range v {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}

// cliOutputs runs `kiln run` (the C API through the CLI) and decodes its
// output_K.pb files.
func cliOutputs(t testing.TB, model string, threads string, inputs ...string) []*Tensor {
	dir := t.TempDir()
	args := []string{"run", model, "-o", dir, "--threads", threads}
	for _, in := range inputs {
		args = append(args, "-i", in)
	}
	cmd := exec.Command(cliPath(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kiln %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var outs []*Tensor
	for k := 0; ; k++ {
		raw, err := os.ReadFile(filepath.Join(dir, "output_"+strconv.Itoa(k)+".pb"))
		if err != nil {
			break
		}
		tensor, err := DecodeTensor(raw)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, tensor)
	}
	if len(outs) == 0 {
		t.Fatalf("kiln run wrote no outputs in %s", dir)
	}
	return outs
}

// sameBits fails unless both tensors have the same dtype, shape and bytes.
func sameBits(t testing.TB, what string, got, want *Tensor) {
	t.Helper()
	if got.DType != want.DType || !equalShape(got.Shape, want.Shape) {
		t.Fatalf("%s: got %v, the C API gave %v", what, got, want)
	}
	if !bytes.Equal(got.Data, want.Data) {
		diff := 0
		for i := range got.Data {
			if got.Data[i] != want.Data[i] {
				diff++
			}
		}
		t.Fatalf("%s: %d of %d bytes differ from the C API's output", what, diff, len(got.Data))
	}
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
