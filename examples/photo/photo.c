/* Blurs a PNG or JPEG file: photo IN OUT (OUT's extension picks PNG or JPEG). */
#include <lumen/lumen.h>
#include <lumen/lumen_io.h>
#include <stdio.h>

int main(int argc, char **argv) {
    lumen_image *in = NULL, *out = NULL;
    lumen_status st = argc == 3 ? lumen_io_read(argv[1], &in) : LUMEN_ERROR_INVALID_ARGUMENT;
    if (st == LUMEN_OK)
        st = lumen_image_create(lumen_image_width(in), lumen_image_height(in),
                                lumen_image_channels(in), &out);
    if (st == LUMEN_OK) st = lumen_gaussian_blur(NULL, in, out, 2.0f);
    if (st == LUMEN_OK) st = lumen_io_write(argv[2], out, NULL);
    if (st != LUMEN_OK)
        fprintf(stderr, "photo: %s\n", argc == 3 ? lumen_last_error() : "usage: photo IN OUT");
    lumen_image_destroy(in);
    lumen_image_destroy(out);
    return st == LUMEN_OK ? 0 : 1;
}
