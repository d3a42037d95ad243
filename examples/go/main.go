// Command digits classifies handwritten 8x8 digits with Kiln from Go.
//
//	go run . [-model M] [-samples DIR]      classify the bundled samples
//	go run . -serve 127.0.0.1:8080          serve predictions over HTTP
//
// The server answers POST /predict with a JSON body {"pixels": [64 numbers]}
// (row-major 8x8, values 0..1: scikit-learn's 0..16 divided by 16) with
// {"class": 7, "probabilities": [10 numbers]}.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"kiln.dev/kiln"
)

func main() {
	root := os.Getenv("KILN_SOURCE_DIR")
	if root == "" {
		root = filepath.Join("..", "..")
	}
	modelPath := flag.String("model", filepath.Join(root, "examples", "digits", "digits.onnx"), "the digits model")
	samples := flag.String("samples", filepath.Join(root, "examples", "digits", "samples"), "folder of digit_NN_label_L.pb files")
	serve := flag.String("serve", "", "serve predictions on this address (e.g. 127.0.0.1:8080) instead of classifying")
	flag.Parse()

	rt, err := kiln.NewRuntime()
	check(err)
	defer rt.Close()
	model, err := rt.LoadModel(*modelPath)
	check(err)
	defer model.Close()

	if *serve != "" {
		pool := kiln.NewSessionPool(model, 4)
		defer pool.Close()
		fmt.Printf("serving POST /predict on http://%s\n", *serve)
		check(http.ListenAndServe(*serve, newServer(pool)))
		return
	}
	right, total, err := classifyFolder(model, *samples, os.Stdout)
	check(err)
	fmt.Printf("accuracy: %d/%d\n", right, total)
	if total == 0 || right*5 < total*4 {
		os.Exit(1)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "digits:", err)
		os.Exit(1)
	}
}

// classifyFolder classifies every sample file, printing one line each, and
// counts the answers that match the label in the file name.
func classifyFolder(model *kiln.Model, dir string, out *os.File) (right, total int, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.pb"))
	if err != nil {
		return 0, 0, err
	}
	if len(paths) == 0 {
		return 0, 0, fmt.Errorf("no *.pb samples in %s", dir)
	}
	sort.Strings(paths)
	session, err := model.NewSession()
	if err != nil {
		return 0, 0, err
	}
	defer session.Close()
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return 0, 0, err
		}
		image, err := kiln.DecodeTensor(raw)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		pixels, err := kiln.Values[float32](image)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		class, probs, err := predict(session, pixels)
		if err != nil {
			return 0, 0, err
		}
		label := labelOf(filepath.Base(path))
		mark := "ok"
		if class == label {
			right++
		} else {
			mark = "WRONG"
		}
		total++
		fmt.Fprintf(out, "%s: %d (p=%.3f), label %d %s\n", filepath.Base(path), class, probs[class], label, mark)
	}
	return right, total, nil
}

// labelOf reads L from "digit_NN_label_L.pb" (-1 if absent).
func labelOf(name string) int {
	at := strings.Index(name, "_label_")
	if at < 0 || at+7 >= len(name) {
		return -1
	}
	return int(name[at+7] - '0')
}

// predict runs one 8x8 image and returns the class and the softmax of the
// logits.
func predict(session *kiln.Session, pixels []float32) (int, []float64, error) {
	if len(pixels) != 64 {
		return 0, nil, errors.New("an image is 64 pixel values (8x8)")
	}
	if err := session.SetInput("image", pixels, 1, 1, 8, 8); err != nil {
		return 0, nil, err
	}
	if err := session.Run(); err != nil {
		return 0, nil, err
	}
	logits, err := session.OutputFloat32(0)
	if err != nil {
		return 0, nil, err
	}
	best := 0
	for i := range logits {
		if logits[i] > logits[best] {
			best = i
		}
	}
	probs := make([]float64, len(logits))
	sum := 0.0
	for i, l := range logits { // shifted by the max so exp cannot overflow
		probs[i] = math.Exp(float64(l - logits[best]))
		sum += probs[i]
	}
	for i := range probs {
		probs[i] /= sum
	}
	return best, probs, nil
}
