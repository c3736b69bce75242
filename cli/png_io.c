#include "png_io.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    jmp_buf jmp;
    char msg[256];
} png_failure;

static void on_error(png_structp png, png_const_charp msg) {
    png_failure *e = png_get_error_ptr(png);
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    longjmp(e->jmp, 1);
}

static void on_warning(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

/* libpng's low-level API: its simplified one takes 16-bit files as linear light and converts
 * them to sRGB (0x8080 read as 186), and applies gAMA at 8 bits too. */
lumen_image *png_read(const char *path, char *err, size_t err_size) {
    int from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "(stdin)" : path;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return NULL;
    }
    png_failure e = {.msg = "out of memory"};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &e, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    lumen_image *volatile img = NULL;
    png_bytep *volatile rows = NULL;
    if (!info || setjmp(e.jmp)) {
        snprintf(err, err_size, "%s: %s", name, feof(f) ? "truncated PNG (ends too early)" : e.msg);
        goto failed;
    }
    png_init_io(png, f);
    png_read_info(png, info);
    int type = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    int trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (trns) png_set_tRNS_to_alpha(png);
    if (depth == 16) png_set_scale_16(png); /* round(v / 257) */
    if (!(type & PNG_COLOR_MASK_COLOR) && (type & PNG_COLOR_MASK_ALPHA || trns))
        png_set_gray_to_rgb(png); /* gray+alpha -> RGBA */
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int w = (int)png_get_image_width(png, info), h = (int)png_get_image_height(png, info);
    int channels = png_get_channels(png, info);
    lumen_image *created = NULL;
    uint8_t *px = NULL;
    int bad = lumen_image_create(w, h, channels, &created) ||
              lumen_image_map(created, LUMEN_ACCESS_WRITE, &px);
    img = created;
    if (bad || !(rows = malloc((size_t)h * sizeof *rows))) {
        snprintf(err, err_size, "%s: %s", name, bad ? lumen_last_error() : "out of memory");
        goto failed;
    }
    for (int y = 0; y < h; y++) rows[y] = px + (size_t)y * lumen_image_stride(img);
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    if (!from_stdin) fclose(f);
    return img;
failed:
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    lumen_image_destroy(img);
    if (!from_stdin) fclose(f);
    return NULL;
}

int png_write(FILE *f, const char *name, lumen_image *img, char *err, size_t err_size) {
    static const png_uint_32 formats[] = {0, PNG_FORMAT_GRAY, 0, PNG_FORMAT_RGB, PNG_FORMAT_RGBA};
    uint8_t *px = NULL;
    if (lumen_image_map(img, LUMEN_ACCESS_READ, &px)) {
        snprintf(err, err_size, "%s: %s", name, lumen_last_error());
        return -1;
    }
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = (png_uint_32)lumen_image_width(img);
    png.height = (png_uint_32)lumen_image_height(img);
    png.format = formats[lumen_image_channels(img)];
    errno = 0;
    if (!png_image_write_to_stdio(&png, f, 0, px, (png_int_32)lumen_image_stride(img), NULL)) {
        int e = errno; /* libpng says "Write Error"; the reason is in errno */
        snprintf(err, err_size, "cannot write %s: %s", name, e ? strerror(e) : png.message);
        return -1;
    }
    return 0;
}
