/* libFuzzer harness over lumen_io's decoder (lumen_io_decode: the code lumen_io_read runs after
 * opening the file). Any bytes give an image or a clean failure: CORRUPT_DATA, UNSUPPORTED_FORMAT
 * or OUT_OF_MEMORY, no image, a message naming the function. A decoded image (up to 64K pixels)
 * is encoded as PNG (8 and 16 bit) and decoded again to the same pixels, and, with 1 or 3
 * channels, as JPEG (quality from the input's last byte) to an image of the same size. */
#include <lumen/lumen_io.h>
#include <stdlib.h>
#include <string.h>

static int same(lumen_image *a, lumen_image *b) {
    uint8_t *pa, *pb;
    if (lumen_image_map(a, LUMEN_ACCESS_READ, &pa) || lumen_image_map(b, LUMEN_ACCESS_READ, &pb))
        return 0;
    int w = lumen_image_width(a), h = lumen_image_height(a), c = lumen_image_channels(a);
    if (w != lumen_image_width(b) || h != lumen_image_height(b) || c != lumen_image_channels(b))
        return 0;
    for (int y = 0; y < h; y++)
        if (memcmp(pa + y * lumen_image_stride(a), pb + y * lumen_image_stride(b), (size_t)w * c))
            return 0;
    return 1;
}

/* Encodes img with o and decodes the result (aborts on any failure). */
static lumen_image *round_trip(lumen_image *img, lumen_io_options o) {
    void *data;
    size_t size;
    lumen_image *back = NULL;
    if (lumen_io_encode(img, &o, &data, &size) || lumen_io_decode(data, size, &back)) abort();
    lumen_io_free(data);
    return back;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    lumen_image *img = (lumen_image *)1;
    lumen_status st = lumen_io_decode(data, size, &img);
    if (st != LUMEN_OK) {
        if (img ||
            (st != LUMEN_ERROR_CORRUPT_DATA && st != LUMEN_ERROR_UNSUPPORTED_FORMAT &&
             st != LUMEN_ERROR_OUT_OF_MEMORY) ||
            strncmp(lumen_last_error(), "lumen_io_decode: ", 17) != 0)
            abort();
        return 0;
    }
    int w = lumen_image_width(img), h = lumen_image_height(img), c = lumen_image_channels(img);
    if (!img || w < 1 || h < 1 || (c != 1 && c != 3 && c != 4)) abort();
    if ((long)w * h <= 65536) {
        for (int bits = 8; bits <= 16; bits += 8) {
            lumen_image *back = round_trip(img, (lumen_io_options){LUMEN_IO_FORMAT_PNG, bits, 0});
            if (!same(img, back)) abort();
            lumen_image_destroy(back);
        }
        if (c != 4) {
            lumen_io_options o = {LUMEN_IO_FORMAT_JPEG, 0, 1 + data[size - 1] % 100};
            lumen_image *back = round_trip(img, o);
            if (lumen_image_width(back) != w || lumen_image_height(back) != h ||
                lumen_image_channels(back) != c)
                abort();
            lumen_image_destroy(back);
        }
    }
    lumen_image_destroy(img);
    return 0;
}
