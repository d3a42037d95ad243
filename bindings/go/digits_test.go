package kiln

import (
	"os"
	"testing"
)

func TestDigitsClassifiesSamples(t *testing.T) {
	_, model := openDigits(t)
	session, err := model.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	right := 0
	samples := digitSamples(t)
	for _, s := range samples {
		pixels, err := Values[float32](s.input)
		if err != nil {
			t.Fatal(err)
		}
		if err := session.SetInput("image", pixels, s.input.Shape...); err != nil {
			t.Fatal(err)
		}
		if err := session.Run(); err != nil {
			t.Fatal(err)
		}
		logits, shape, err := OutputAs[float32](session, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !equalShape(shape, []int64{1, 10}) {
			t.Fatalf("logits shape %v, want [1 10]", shape)
		}
		if argmax(logits) == s.label {
			right++
		}
	}
	t.Logf("digits: %d/%d right", right, len(samples))
	if right != len(samples) {
		t.Fatalf("%d/%d samples right; the model gets all of them", right, len(samples))
	}
}

// Every output must equal, bit for bit, what the C API gives through `kiln run`.
func TestDigitsMatchesCAPIBitForBit(t *testing.T) {
	_, model := openDigits(t)
	session, err := model.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	for _, s := range digitSamples(t) {
		want := cliOutputs(t, repoPath("examples", "digits", "digits.onnx"), "1", s.name)
		if err := session.SetInput("image", s.input); err != nil {
			t.Fatal(err)
		}
		if err := session.Run(); err != nil {
			t.Fatal(err)
		}
		got, err := session.OutputByName("logits")
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, s.name, got, want[0])
	}
}

func TestModelDescription(t *testing.T) {
	// Level 0: the node checks below are about the file's own graph, which
	// the default optimization level rewrites (fusion, NHWC layout).
	rt, _ := openDigits(t)
	model, err := rt.LoadModel(repoPath("examples", "digits", "digits.onnx"), OptimizeLevel(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	in, out := model.Inputs(), model.Outputs()
	if len(in) != 1 || in[0].Name != "image" || in[0].DType != Float32 || in[0].Kind != KindTensor ||
		!equalShape(in[0].Shape, []int64{-1, 1, 8, 8}) {
		t.Fatalf("inputs %+v, want image float32 [-1 1 8 8]", in)
	}
	if len(out) != 1 || out[0].Name != "logits" || out[0].DType != Float32 ||
		!equalShape(out[0].Shape, []int64{-1, 10}) {
		t.Fatalf("outputs %+v, want logits float32 [-1 10]", out)
	}
	// Generated methods (capi_gen.go) reach the rest of the model API.
	nodes, err := model.NodeCount()
	if err != nil || nodes != 7 {
		t.Fatalf("NodeCount = %d, %v; kiln info reports 7 nodes", nodes, err)
	}
	op, domain, err := model.NodeOp(0)
	if err != nil || op != "Conv" || domain != "" {
		t.Fatalf("NodeOp(0) = %q, %q, %v; want Conv in the default domain", op, domain, err)
	}
	opsetDomain, version, err := model.Opset(0)
	if err != nil || opsetDomain != "" || version != 17 {
		t.Fatalf("Opset(0) = %q, %d, %v; want ai.onnx 17", opsetDomain, version, err)
	}
	index, err := model.OutputIndex("logits")
	if err != nil || index != 0 {
		t.Fatalf("OutputIndex(logits) = %d, %v", index, err)
	}
	if shape, err := model.InputShape(0); err != nil || !equalShape(shape, []int64{-1, 1, 8, 8}) {
		t.Fatalf("InputShape(0) = %v, %v", shape, err)
	}
	if ok, err := model.NodeSupported(0); err != nil || !ok {
		t.Fatalf("NodeSupported(0) = %v, %v", ok, err)
	}
}

func TestLoadFromBytesGivesSameOutputs(t *testing.T) {
	rt, fromFile := openDigits(t)
	data, err := os.ReadFile(repoPath("examples", "digits", "digits.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	fromBytes, err := rt.LoadModelBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	defer fromBytes.Close()
	s := digitSamples(t)[3]
	var results []*Tensor
	for _, m := range []*Model{fromFile, fromBytes} {
		session, err := m.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := session.SetInputRaw("image", s.input.DType, s.input.Shape, s.input.Data); err != nil {
			t.Fatal(err)
		}
		if err := session.Run(); err != nil {
			t.Fatal(err)
		}
		out, err := session.Output(0)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, out)
		session.Close()
	}
	sameBits(t, "model loaded from bytes", results[1], results[0])
}

func TestProfilingThroughGeneratedMethods(t *testing.T) {
	_, model := openDigits(t)
	session, err := model.NewSession(Profile(true))
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	s := digitSamples(t)[0]
	for i := 0; i < 3; i++ {
		if err := session.SetInput("image", s.input); err != nil {
			t.Fatal(err)
		}
		if err := session.Run(); err != nil {
			t.Fatal(err)
		}
	}
	steps, err := session.ProfileCount()
	if err != nil || steps < 1 {
		t.Fatalf("ProfileCount = %d, %v", steps, err)
	}
	_, runs, err := session.ProfileTime(0)
	if err != nil || runs != 3 {
		t.Fatalf("ProfileTime(0) runs = %d, %v; want 3", runs, err)
	}
	if op, err := session.ProfileOp(0); err != nil || op == "" {
		t.Fatalf("ProfileOp(0) = %q, %v", op, err)
	}
	arena, _, err := session.PlanBytes()
	if err != nil || arena <= 0 {
		t.Fatalf("PlanBytes arena = %d, %v", arena, err)
	}
}

func TestTensorEncodeDecodeRoundTrip(t *testing.T) {
	in := NewTensor([]int64{1, -2, 3, 1 << 40, 5, 6}, 2, 3)
	pb, err := in.Encode("x")
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeTensor(pb)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "round trip", out, in)
	values, err := Values[int64](out)
	if err != nil || values[3] != 1<<40 {
		t.Fatalf("values %v, %v", values, err)
	}
	if _, err := Values[float32](out); !errorsIs(err, ErrDType) {
		t.Fatalf("Values[float32] of an int64 tensor: %v, want ErrDType", err)
	}
}

// The plan cache through the Go API: two batch sizes planned once each,
// and everything given back by ReleaseMemory; the model's weight bytes.
func TestPlanCacheKeepsEachBatchSize(t *testing.T) {
	_, model := openDigits(t)
	session, err := model.NewSession(PlanCache(4))
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	samples := digitSamples(t)
	pair := &Tensor{DType: samples[0].input.DType, Shape: []int64{2, 1, 8, 8},
		Data: append(append([]byte(nil), samples[0].input.Data...), samples[1].input.Data...)}
	for i, in := range []*Tensor{samples[0].input, pair, samples[0].input, pair} {
		if err := session.SetInput("image", in); err != nil {
			t.Fatal(err)
		}
		if err := session.Run(); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	kept, built, arena, err := session.CacheInfo()
	if err != nil || kept != 2 || built != 2 || arena <= 0 {
		t.Fatalf("CacheInfo = %d kept, %d built, %d arena bytes, %v; want 2, 2, > 0", kept, built,
			arena, err)
	}
	if err := session.ReleaseMemory(); err != nil {
		t.Fatal(err)
	}
	if kept, _, arena, err = session.CacheInfo(); err != nil || kept != 0 || arena != 0 {
		t.Fatalf("after ReleaseMemory: %d kept, %d arena bytes, %v", kept, arena, err)
	}
	if _, err := model.NewSession(PlanCache(0)); err == nil {
		t.Fatal("PlanCache(0) was accepted")
	}
	weights, shared, givenBack, err := model.MemoryInfo()
	if err != nil || weights <= 10*256*4 || shared < 0 || givenBack < 0 {
		t.Fatalf("MemoryInfo = %d weight, %d shared prepared, %d given back bytes, %v; "+
			"want > 10240, >= 0, >= 0", weights, shared, givenBack, err)
	}
}
