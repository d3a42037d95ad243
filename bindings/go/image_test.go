package kiln

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// The 7x5 pattern tests/data/images/make_images.py draws.
func patternPixel(x, y int) [3]byte {
	return [3]byte{byte(37 * x % 256), byte(53 * y % 256), byte((11*x*y + 7) % 256)}
}

func TestDecodeImageFormats(t *testing.T) {
	for _, name := range []string{"pattern.png", "pattern.bmp", "pattern.webp", "pattern.jp2"} {
		img, err := DecodeImageFile(repoPath("tests", "data", "images", name), 3)
		if errors.Is(err, ErrUnsupported) && strings.Contains(err.Error(), "built without lib") {
			t.Logf("skip %s: %v", name, err)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if img.Width != 7 || img.Height != 5 || img.Channels != 3 || len(img.Pixels) != 7*5*3 {
			t.Fatalf("%s: %dx%d, %d channels, %d bytes", name, img.Width, img.Height, img.Channels, len(img.Pixels))
		}
		for y := 0; y < 5; y++ {
			for x := 0; x < 7; x++ {
				i := (y*7 + x) * 3
				if got, want := [3]byte{img.Pixels[i], img.Pixels[i+1], img.Pixels[i+2]}, patternPixel(x, y); got != want {
					t.Fatalf("%s: pixel (%d, %d) is %v, want %v", name, x, y, got, want)
				}
			}
		}
	}
}

func TestDecodeImageErrors(t *testing.T) {
	bmp, err := os.ReadFile(repoPath("tests", "data", "images", "pattern.bmp"))
	if err != nil {
		t.Fatal(err)
	}
	gray, err := DecodeImage(bmp, 1)
	if err != nil || len(gray.Pixels) != 35 {
		t.Fatalf("one channel: %v", err)
	}
	_, err = DecodeImage(bmp[:100], 3)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "BMP image: truncated") {
		t.Errorf("truncated BMP: %v", err)
	}
	if _, err = DecodeImage(nil, 3); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "empty") {
		t.Errorf("no bytes: %v", err)
	}
	if _, err = DecodeImage(bmp, 2); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("channels 2: %v", err)
	}
}
