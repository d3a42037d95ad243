package kiln_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"kiln.dev/kiln"
)

func Example() {
	root := os.Getenv("KILN_SOURCE_DIR")
	if root == "" {
		root = filepath.Join("..", "..")
	}
	rt, err := kiln.NewRuntime(kiln.Threads(2))
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	model, err := rt.LoadModel(filepath.Join(root, "examples", "digits", "digits.onnx"))
	if err != nil {
		panic(err)
	}
	defer model.Close()
	session, err := model.NewSession()
	if err != nil {
		panic(err)
	}
	defer session.Close()

	in := model.Inputs()[0]
	fmt.Println(in.Name, in.DType, in.Shape)
	pixels := make([]float32, 64) // a blank 8x8 image
	if err := session.SetInput(in.Name, pixels, 1, 1, 8, 8); err != nil {
		panic(err)
	}
	if err := session.Run(); err != nil {
		panic(err)
	}
	logits, shape, err := kiln.OutputAs[float32](session, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(shape, len(logits))

	err = session.SetInput(in.Name, pixels, 1, 1, 8, 9)
	fmt.Println(errors.Is(err, kiln.ErrShape))
	// Output:
	// image float32 [-1 1 8 8]
	// [1 10] 10
	// true
}
