package kiln

// #include <kiln.h>
import "C"

import (
	"os"
	"unsafe"
)

// Image is a decoded image: Height rows of Width pixels, each Channels bytes
// (3: R, G, B; 1: luma), rows top to bottom.
type Image struct {
	Pixels   []byte
	Width    int
	Height   int
	Channels int
}

// DecodeImage decodes a PNG, JPEG, WebP, JPEG 2000, BMP, PNM or TIFF image
// (told apart by its first bytes) into 8-bit pixels: channels 3 gives R, G, B;
// 1 gives luma (ITU-R 601 weights, as PIL's convert("L")). Alpha is dropped.
// A corrupt image fails with ErrInvalidArgument naming the format and the
// defect; a format this libkiln was built without, with ErrUnsupported naming
// the library.
func DecodeImage(data []byte, channels int) (*Image, error) {
	const op = "kiln_image_decode"
	if channels != 1 && channels != 3 {
		return nil, newError(op, C.KILN_ERR_INVALID_ARGUMENT, "channels must be 1 or 3, got %d", channels)
	}
	// C wants a non-NULL pointer even for no bytes (it then says "empty").
	buf := data
	if len(buf) == 0 {
		buf = []byte{0}
	}
	src := unsafe.Pointer(&buf[0])
	var needed C.size_t
	var width, height C.int32_t
	if err := cImageDecode(src, C.size_t(len(data)), C.int32_t(channels), nil, 0, &needed, &width, &height); err != nil {
		return nil, err
	}
	pixels := make([]byte, int(needed))
	if err := cImageDecode(src, C.size_t(len(data)), C.int32_t(channels), unsafe.Pointer(&pixels[0]), needed, &needed, &width, &height); err != nil {
		return nil, err
	}
	return &Image{Pixels: pixels, Width: int(width), Height: int(height), Channels: channels}, nil
}

// DecodeImageFile reads the file at path and decodes it (see DecodeImage).
func DecodeImageFile(path string, channels int) (*Image, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeImage(data, channels)
}
