package kiln

import (
	"strings"
	"testing"
)

// On a cpu session the device-memory calls are refused in the caller's
// terms (no device runs here: the engine's test double is linked into the C
// suites only, tests/test_device_io.c).
func TestDeviceMemoryOnCPUSession(t *testing.T) {
	_, model := openDigits(t)
	session, err := model.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	err = session.SetInputDevice("image", DTypeFloat, []int64{1, 1, 8, 8}, 0x10000, 256)
	wantError(t, "SetInputDevice", err, ErrUnsupported)
	if !strings.Contains(err.Error(), "the session runs on cpu; set KILN_SOPT_DEVICE") {
		t.Fatalf("message: %v", err)
	}
	wantError(t, "BindOutputDevice", session.BindOutputDevice(0, 0x10000, 40), ErrUnsupported)
	_, err = session.DeviceStream()
	wantError(t, "DeviceStream", err, ErrUnsupported)
}
