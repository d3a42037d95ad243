package kiln

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// squeezenet finds (or exports) torchvision's squeezenet1_1 under
// KILN_MODELS_DIR, the layout tools/export_models.py writes.
func squeezenet(t *testing.T) (model, input string) {
	dir := os.Getenv("KILN_MODELS_DIR")
	if dir == "" {
		t.Skip("KILN_MODELS_DIR is not set; skipping the torchvision model")
	}
	model = filepath.Join(dir, "squeezenet1_1", "model.onnx")
	input = filepath.Join(dir, "squeezenet1_1", "input_0.pb")
	if _, err := os.Stat(model); err == nil {
		return model, input
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import torch, torchvision, onnx").Run(); err != nil {
		t.Skip("python3-torch, python3-torchvision or python3-onnx is missing; cannot export squeezenet1_1")
	}
	out, err := exec.Command("/usr/bin/python3", repoPath("tools", "export_models.py"), dir,
		"--models", "squeezenet1_1").CombinedOutput()
	if err != nil {
		t.Fatalf("exporting squeezenet1_1: %v\n%s", err, out)
	}
	return model, input
}

func TestSqueezenetMatchesCAPIBitForBit(t *testing.T) {
	modelPath, inputPath := squeezenet(t)
	raw, err := os.ReadFile(inputPath)
	if err != nil {
		t.Fatal(err)
	}
	input, err := DecodeTensor(raw)
	if err != nil {
		t.Fatal(err)
	}
	pixels, err := Values[float32](input)
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		rt, err := NewRuntime(Threads(threads))
		if err != nil {
			t.Fatal(err)
		}
		model, err := rt.LoadModel(modelPath)
		if err != nil {
			t.Fatal(err)
		}
		session, err := model.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := session.SetInput(model.Inputs()[0].Name, pixels, input.Shape...); err != nil {
			t.Fatal(err)
		}
		if err := session.Run(); err != nil {
			t.Fatal(err)
		}
		got, err := session.Output(0)
		if err != nil {
			t.Fatal(err)
		}
		want := cliOutputs(t, modelPath, strconv.Itoa(threads), inputPath)
		sameBits(t, "squeezenet1_1", got, want[0])
		values, _ := Values[float32](got)
		t.Logf("squeezenet1_1, %d threads: output %v identical to the C API's (%d floats, class %d)",
			threads, got.Shape, len(values), argmax(values))
		session.Close()
		model.Close()
		rt.Close()
	}
}
