package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kiln.dev/kiln"
)

func sourceDir() string {
	if dir := os.Getenv("KILN_SOURCE_DIR"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..")
}

func openModel(t *testing.T) *kiln.Model {
	rt, err := kiln.NewRuntime()
	if err != nil {
		t.Fatal(err)
	}
	model, err := rt.LoadModel(filepath.Join(sourceDir(), "examples", "digits", "digits.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close(); rt.Close() })
	return model
}

func TestClassifiesTheBundledSamples(t *testing.T) {
	right, total, err := classifyFolder(openModel(t), filepath.Join(sourceDir(), "examples", "digits", "samples"), os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("accuracy: %d/%d", right, total)
	if total != 20 || right != 20 {
		t.Fatalf("accuracy %d/%d, want 20/20", right, total)
	}
}

// Starts the server on a random local port and queries it over HTTP.
func TestServerPredicts(t *testing.T) {
	pool := kiln.NewSessionPool(openModel(t), 2)
	defer pool.Close()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := &http.Server{Handler: newServer(pool)}
	go server.Serve(listener)
	defer server.Close()
	url := "http://" + listener.Addr().String() + "/predict"

	paths, _ := filepath.Glob(filepath.Join(sourceDir(), "examples", "digits", "samples", "*.pb"))
	if len(paths) == 0 {
		t.Fatal("no samples")
	}
	for _, path := range paths[:5] {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		image, err := kiln.DecodeTensor(raw)
		if err != nil {
			t.Fatal(err)
		}
		pixels, _ := kiln.Values[float32](image)
		body, _ := json.Marshal(predictRequest{Pixels: pixels})
		resp, err := http.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var got predictResponse
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d, %v", path, resp.StatusCode, err)
		}
		sum := 0.0
		for _, p := range got.Probabilities {
			sum += p
		}
		if label := labelOf(filepath.Base(path)); got.Class != label || len(got.Probabilities) != 10 ||
			sum < 0.999 || sum > 1.001 || got.Probabilities[label] < 0.5 {
			t.Fatalf("%s: got %+v, want class %d with probabilities summing to 1", path, got, label)
		}
		t.Logf("%s: class %d, p=%.3f", filepath.Base(path), got.Class, got.Probabilities[got.Class])
	}

	resp, err := http.Post(url, "application/json", strings.NewReader(`{"pixels": [1, 2, 3]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("61 missing pixels: status %d, want 400", resp.StatusCode)
	}
	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: status %d, want 405", resp.StatusCode)
	}
}
