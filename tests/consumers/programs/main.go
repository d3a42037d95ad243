// The Go consumer (tests/consumers/run_consumer.sh go): a module outside the
// repository that requires kiln.dev/kiln; prints "FILE CLASS" for every *.pb
// digit sample in SAMPLES_DIR, in name order.
//
//	usage: go run . MODEL SAMPLES_DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"kiln.dev/kiln"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: app MODEL SAMPLES_DIR")
		os.Exit(2)
	}
	if err := classifyAll(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "app:", err)
		os.Exit(1)
	}
}

func classifyAll(modelPath, dir string) error {
	rt, err := kiln.NewRuntime()
	if err != nil {
		return err
	}
	defer rt.Close()
	model, err := rt.LoadModel(modelPath)
	if err != nil {
		return err
	}
	defer model.Close()
	session, err := model.NewSession()
	if err != nil {
		return err
	}
	defer session.Close()
	paths, err := filepath.Glob(filepath.Join(dir, "*.pb")) // sorted
	if err != nil {
		return err
	}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		image, err := kiln.DecodeTensor(raw)
		if err != nil {
			return err
		}
		pixels, err := kiln.Values[float32](image)
		if err != nil {
			return err
		}
		if err := session.SetInput("image", pixels, 1, 1, 8, 8); err != nil {
			return err
		}
		if err := session.Run(); err != nil {
			return err
		}
		logits, err := session.OutputFloat32(0)
		if err != nil {
			return err
		}
		best := 0
		for i := range logits {
			if logits[i] > logits[best] {
				best = i
			}
		}
		fmt.Printf("%s %d\n", filepath.Base(path), best)
	}
	return nil
}
