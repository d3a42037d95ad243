// Command overhead measures what the Go binding adds to a run: it times the
// same loop (bind two inputs, run, copy the output out) once in C, through
// cgo in one call, and once through package kiln, on a tiny model where the
// run itself costs almost nothing, and prints the per-run difference.
//
//	go run ./cmd/overhead -model tests/data/models/add_relu.onnx
package main

/*
#cgo pkg-config: kiln
#include <stdlib.h>
#include <time.h>
#include <kiln.h>

// Runs the loop `iters` times in C and returns nanoseconds per iteration,
// or -status on failure.
static double c_loop(const char *path, int iters) {
    kiln_runtime *rt = NULL;
    kiln_model *model = NULL;
    kiln_session *session = NULL;
    int32_t st = kiln_runtime_create(NULL, &rt);
    if (!st) st = kiln_model_load_file(rt, path, NULL, &model);
    if (!st) st = kiln_session_create(model, NULL, &session);
    float x[6] = {1, -2, 3, -4, 5, -6}, y[6] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}, z[6];
    const int64_t dims[2] = {2, 3};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < iters && !st; i++) {
        st = kiln_session_set_input_at(session, 0, KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, KILN_INPUT_COPY);
        if (!st) st = kiln_session_set_input_at(session, 1, KILN_DTYPE_FLOAT, dims, 2, y, sizeof y, KILN_INPUT_COPY);
        if (!st) st = kiln_session_run(session);
        if (!st) st = kiln_session_output_copy(session, 0, z, sizeof z, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    kiln_session_destroy(session);
    kiln_model_destroy(model);
    kiln_runtime_destroy(rt);
    if (st) return -(double)st;
    return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / iters;
}
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"time"
	"unsafe"

	"kiln.dev/kiln"
)

func main() {
	modelPath := flag.String("model", "tests/data/models/add_relu.onnx", "a model with two float [2,3] inputs")
	iters := flag.Int("iters", 20000, "runs per timed round")
	rounds := flag.Int("rounds", 5, "timed rounds (the median is reported)")
	limit := flag.Float64("max-us", 0, "exit 1 if the overhead exceeds this many microseconds (0: never)")
	flag.Parse()
	if err := measure(*modelPath, *iters, *rounds, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "overhead:", err)
		os.Exit(1)
	}
}

func measure(path string, iters, rounds int, limit float64) error {
	rt, err := kiln.NewRuntime()
	if err != nil {
		return err
	}
	defer rt.Close()
	model, err := rt.LoadModel(path)
	if err != nil {
		return err
	}
	defer model.Close()
	session, err := model.NewSession()
	if err != nil {
		return err
	}
	defer session.Close()
	x := []float32{1, -2, 3, -4, 5, -6}
	y := []float32{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}
	names := []string{model.Inputs()[0].Name, model.Inputs()[1].Name}
	var z []float32
	goLoop := func() (float64, error) {
		start := time.Now()
		for i := 0; i < iters; i++ {
			if err := session.SetInput(names[0], x, 2, 3); err != nil {
				return 0, err
			}
			if err := session.SetInput(names[1], y, 2, 3); err != nil {
				return 0, err
			}
			if err := session.Run(); err != nil {
				return 0, err
			}
			if z, _, err = kiln.OutputInto(session, 0, z); err != nil {
				return 0, err
			}
		}
		return float64(time.Since(start).Nanoseconds()) / float64(iters), nil
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cTimes, goTimes []float64
	for r := 0; r < rounds+1; r++ { // round 0 warms up and is dropped
		c := float64(C.c_loop(cpath, C.int(iters)))
		if c < 0 {
			return fmt.Errorf("the C loop failed with status %d", int(-c))
		}
		g, err := goLoop()
		if err != nil {
			return err
		}
		if r > 0 {
			cTimes, goTimes = append(cTimes, c), append(goTimes, g)
		}
	}
	if z[0] != 1.5 || z[1] != 0 {
		return fmt.Errorf("wrong output %v", z)
	}
	c, g := median(cTimes), median(goTimes)
	overhead := (g - c) / 1000
	fmt.Printf("per run (set 2 inputs, run, copy the output; median of %d x %d runs):\n", rounds, iters)
	fmt.Printf("  C loop:  %.2f us\n  Go loop: %.2f us\n  Go overhead: %.2f us per run\n", c/1000, g/1000, overhead)
	if limit > 0 && overhead > limit {
		return fmt.Errorf("overhead %.2f us is above the %.2f us limit", overhead, limit)
	}
	return nil
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}
