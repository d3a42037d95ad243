package kiln

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A module outside this one uses the binding through a replace directive,
// as the README describes, and runs the digits model.
func TestExternalModuleWithReplace(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Skipf("no go command at %s", goTool)
	}
	binding, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	model, err := filepath.Abs(repoPath("examples", "digits", "digits.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/uses-kiln\n\ngo 1.19\n\nrequire kiln.dev/kiln v0.0.0\n\n" +
			"replace kiln.dev/kiln => " + binding + "\n",
		"main.go": `package main

import (
	"fmt"
	"os"

	"kiln.dev/kiln"
)

func main() {
	rt, err := kiln.NewRuntime()
	if err != nil {
		panic(err)
	}
	model, err := rt.LoadModel(os.Args[1])
	if err != nil {
		panic(err)
	}
	session, err := model.NewSession()
	if err != nil {
		panic(err)
	}
	if err := session.SetInput("image", make([]float32, 64), 1, 1, 8, 8); err != nil {
		panic(err)
	}
	if err := session.Run(); err != nil {
		panic(err)
	}
	logits, err := session.OutputFloat32(0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("kiln %s: %d logits\n", kiln.Version(), len(logits))
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goTool, "run", ".", model)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run in an outside module: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), ": 10 logits") {
		t.Fatalf("unexpected output: %s", out)
	}
	t.Logf("outside module: %s", strings.TrimSpace(string(out)))
}
