package dev.kiln;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Images.decode over kiln_image_decode, on tests/data/images. */
class ImageDecodeTest {
    private static byte[] image(String name) throws IOException {
        return Files.readAllBytes(TestSupport.source("tests/data/images/" + name));
    }

    /** The 7x5 pattern tests/data/images/make_images.py draws. */
    private static byte[] pattern() {
        byte[] px = new byte[7 * 5 * 3];
        for (int y = 0; y < 5; y++) {
            for (int x = 0; x < 7; x++) {
                int i = (y * 7 + x) * 3;
                px[i] = (byte) (37 * x % 256);
                px[i + 1] = (byte) (53 * y % 256);
                px[i + 2] = (byte) ((11 * x * y + 7) % 256);
            }
        }
        return px;
    }

    @Test
    void pngAndBmpDecodeToThePattern() throws IOException {
        Images.Decoded bmp = Images.decode(image("pattern.bmp"), 3);
        assertEquals(7, bmp.width);
        assertEquals(5, bmp.height);
        assertArrayEquals(pattern(), bmp.pixels);
        Images.Decoded png;
        try {
            png = Images.decode(image("pattern.png"), 3);
        } catch (KilnException e) {
            Assumptions.assumeFalse(e.getMessage().contains("built without libpng"), e.getMessage());
            throw e;
        }
        assertArrayEquals(pattern(), png.pixels);
        assertEquals(35, Images.decode(image("pattern.bmp"), 1).pixels.length);
    }

    @Test
    void corruptImagesNameTheFormat() throws IOException {
        byte[] cut = Arrays.copyOf(image("pattern.bmp"), 100);
        KilnException e = assertThrows(KilnException.class, () -> Images.decode(cut, 3));
        assertTrue(e.getMessage().contains("BMP image: truncated"), e.getMessage());
        assertThrows(KilnException.class, () -> Images.decode(new byte[] {1, 2, 3, 4}, 3));
        assertThrows(KilnException.class, () -> Images.decode(image("pattern.bmp"), 2));
    }
}
