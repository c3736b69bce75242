/* libFuzzer harness over lumen_io's decoder (lumen_io_decode: the code lumen_io_read runs after
 * opening the file). Any bytes give an image or a clean failure: CORRUPT_DATA, UNSUPPORTED_FORMAT
 * or OUT_OF_MEMORY, no image, a message naming the function. A decoded image (up to 64K pixels)
 * is encoded as PNG (8 and 16 bit) and decoded again to the same pixels, and, with 1 or 3
 * channels, as JPEG (quality from the input's last byte) to an image of the same size.
 * lumen_io_probe_memory on the same bytes agrees: a decoded image has the format, size and
 * channels the probe gives; a failed probe (info zeroed) means the decode fails with the same
 * status and reason. */
#include <lumen/lumen_io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h" /* t_same_pixels */


/* Encodes img with o and decodes the result (aborts on any failure). */
static lumen_image *round_trip(lumen_image *img, lumen_io_options o) {
    void *data;
    size_t size;
    lumen_image *back = NULL;
    if (lumen_io_encode(img, &o, &data, &size) || lumen_io_decode(data, size, &back)) abort();
    lumen_io_free(data);
    return back;
}

static int clean_failure(lumen_status st, const char *prefix) {
    return (st == LUMEN_ERROR_CORRUPT_DATA || st == LUMEN_ERROR_UNSUPPORTED_FORMAT ||
            st == LUMEN_ERROR_OUT_OF_MEMORY) &&
           strncmp(lumen_last_error(), prefix, strlen(prefix)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char probe_fn[] = "lumen_io_probe_memory", decode_fn[] = "lumen_io_decode";
    static const lumen_io_info zero = {0};
    lumen_io_info info = {LUMEN_IO_FORMAT_JPEG, 1, 1, 1};
    lumen_status ps = lumen_io_probe_memory(data, size, &info);
    char probe_msg[1100];
    snprintf(probe_msg, sizeof probe_msg, "%s", lumen_last_error());
    if (ps != LUMEN_OK &&
        (!clean_failure(ps, "lumen_io_probe_memory: ") || memcmp(&info, &zero, sizeof info)))
        abort();
    lumen_image *img = (lumen_image *)1;
    lumen_status st = lumen_io_decode(data, size, &img);
    if (st != LUMEN_OK) {
        if (img || !clean_failure(st, "lumen_io_decode: ")) abort();
        /* a failed probe: the decode failed the same way */
        if (ps != LUMEN_OK && (ps != st || strcmp(probe_msg + sizeof probe_fn - 1,
                                                  lumen_last_error() + sizeof decode_fn - 1)))
            abort();
        return 0;
    }
    int w = lumen_image_width(img), h = lumen_image_height(img), c = lumen_image_channels(img);
    if (!img || w < 1 || h < 1 || (c != 1 && c != 3 && c != 4)) abort();
    lumen_io_format format = data[0] == 0x89 ? LUMEN_IO_FORMAT_PNG : LUMEN_IO_FORMAT_JPEG;
    if (ps != LUMEN_OK || info.format != format || info.width != w || info.height != h ||
        info.channels != c)
        abort();
    if ((long)w * h <= 65536) {
        for (int bits = 8; bits <= 16; bits += 8) {
            lumen_image *back = round_trip(img, (lumen_io_options){LUMEN_IO_FORMAT_PNG, bits, 0});
            if (!t_same_pixels(img, back)) abort();
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
