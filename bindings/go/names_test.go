package kiln

import "testing"

func TestKindString(t *testing.T) {
	for kind, want := range map[Kind]string{
		KindTensor: "tensor", KindSequence: "sequence", KindOptional: "optional", Kind(7): "kind(7)",
	} {
		if got := kind.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int32(kind), got, want)
		}
	}
}

func TestDTypeString(t *testing.T) {
	for dtype, want := range map[DType]string{
		Float32: "float32", Float64: "float64", Int64: "int64", BFloat16: "bfloat16",
		Float8E4M3FN: "float8e4m3fn", Int4: "int4", Int2: "int2", DType(0): "unspecified",
		DType(99): "dtype(99)",
	} {
		if got := dtype.String(); got != want {
			t.Errorf("DType(%d).String() = %q, want %q", int32(dtype), got, want)
		}
	}
}

// The deprecated DTypeXxx names must stay the same values as the canonical
// constants, so code written against either keeps working.
func TestDeprecatedDTypeAliases(t *testing.T) {
	pairs := []struct{ old, canonical DType }{
		{DTypeFloat, Float32}, {DTypeDouble, Float64}, {DTypeInt32, Int32}, {DTypeInt64, Int64},
		{DTypeUint8, Uint8}, {DTypeBool, Bool}, {DTypeFloat16, Float16}, {DTypeBfloat16, BFloat16},
		{DTypeString, String}, {DTypeFloat8e5m2, Float8E5M2}, {DTypeUint4, Uint4},
	}
	for _, p := range pairs {
		if p.old != p.canonical {
			t.Errorf("deprecated alias %d differs from %s (%d)", int32(p.old), p.canonical, int32(p.canonical))
		}
	}
}
