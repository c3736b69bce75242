/* The lumen CLI's PNG input: files of every colour type and bit depth, written here with libpng's
 * low-level API (with and without gAMA/sRGB chunks, interlaced or not), go through the identity
 * `levels` and must come out with the values computed here: 16-bit samples as they are (levels
 * takes 16-bit images, so the CLI keeps them 16-bit; read back with LUMEN_IO_KEEP_16BIT, which
 * test_io checks against libpng; test_cli checks the 8-bit path of a 16-bit file),
 * no gamma conversion whatever the chunks say, low bit depths and palettes expanded, gray+alpha
 * and transparency (tRNS) as RGBA. Usage: test_cli_png PATH_TO_LUMEN WORK_DIR */
#include <lumen/lumen_io.h>
#include <math.h>

#include "cli_util.h"

enum { NO_CHUNK, GAMA_LINEAR, GAMA_22, SRGB };
static const char *const chunk_names[] = {"no chunk", "gAMA 1.0", "gAMA 1/2.2", "sRGB"};

typedef struct {
    int w, h, color_type, depth, interlace, chunk;
    uint16_t *samples; /* w * h * channels, row by row, each < 2^depth */
    png_color palette[256];
    int npalette, ntrans;
    png_byte trans[256];      /* palette alpha */
    png_color_16 trans_color; /* gray/RGB transparent colour, when ntrans == 1 */
} raw_png;

static int channels_of(int color_type) {
    switch (color_type) {
        case PNG_COLOR_TYPE_GRAY_ALPHA:
            return 2;
        case PNG_COLOR_TYPE_RGB:
            return 3;
        case PNG_COLOR_TYPE_RGB_ALPHA:
            return 4;
        default:
            return 1; /* gray, palette */
    }
}

/* Writes r with libpng's low-level API, packing samples to the bit depth (big-endian 16-bit). */
static int write_raw(const char *name, const raw_png *r) {
    char path[1024];
    work_path(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    int c = channels_of(r->color_type), row_bytes = (r->w * c * r->depth + 7) / 8;
    png_bytep row = calloc((size_t)row_bytes, 1);
    if (!f || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        if (f) fclose(f);
        free(row);
        return 0;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)r->w, (png_uint_32)r->h, r->depth, r->color_type,
                 r->interlace, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (r->chunk == GAMA_LINEAR) png_set_gAMA_fixed(png, info, PNG_FP_1);
    if (r->chunk == GAMA_22) png_set_gAMA_fixed(png, info, 45455);
    if (r->chunk == SRGB) png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    if (r->npalette) png_set_PLTE(png, info, r->palette, r->npalette);
    if (r->ntrans)
        png_set_tRNS(png, info, r->trans, r->color_type == PNG_COLOR_TYPE_PALETTE ? r->ntrans : 0,
                     (png_color_16p)&r->trans_color);
    png_write_info(png, info);
    for (int pass = png_set_interlace_handling(png); pass > 0; pass--) {
        for (int y = 0; y < r->h; y++) {
            memset(row, 0, (size_t)row_bytes);
            const uint16_t *s = r->samples + (size_t)y * r->w * c;
            for (int i = 0; i < r->w * c; i++) {
                if (r->depth == 16) {
                    row[2 * i] = (png_byte)(s[i] >> 8), row[2 * i + 1] = (png_byte)s[i];
                } else {
                    int bit = i * r->depth; /* most significant bits first */
                    row[bit / 8] |= (png_byte)(s[i] << (8 - r->depth - bit % 8));
                }
            }
            png_write_row(png, row);
        }
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    return fclose(f) == 0;
}

/* The 8-bit image the CLI must read from r, computed from the samples. */
/* wide: a 16-bit file's samples as they are (a 16-bit image), else by value in 8 bits. */
static lumen_image *expected(const raw_png *r, int wide) {
    int c = channels_of(r->color_type), alpha = c == 2 || c == 4 || r->ntrans;
    int color = r->color_type & PNG_COLOR_MASK_COLOR;
    int out_c = alpha ? 4 : color ? 3 : 1, max = (1 << r->depth) - 1;
    lumen_image *img = NULL;
    uint8_t *px;
    wide = wide && r->depth == 16;
    if (lumen_image_create_format(r->w, r->h, (lumen_format)(out_c | (wide ? 0x1000 : 0)), &img) ||
        lumen_image_map(img, LUMEN_ACCESS_WRITE, &px))
        return NULL;
    for (int y = 0; y < r->h; y++) {
        for (int x = 0; x < r->w; x++) {
            const uint16_t *s = r->samples + ((size_t)y * r->w + x) * c;
            uint8_t *d = px + (size_t)y * lumen_image_stride(img) + (size_t)x * out_c * (wide + 1);
            double v[4] = {s[0], s[0], s[0], max}; /* gray */
            if (r->color_type == PNG_COLOR_TYPE_PALETTE) {
                png_color p = r->palette[s[0]];
                v[0] = p.red, v[1] = p.green, v[2] = p.blue, max = 255;
                v[3] = s[0] < r->ntrans ? r->trans[s[0]] : 255;
            } else if (color) {
                v[1] = s[1], v[2] = s[2];
                if (c == 4) v[3] = s[3];
            } else if (c == 2) {
                v[3] = s[1];
            }
            if (r->ntrans && r->color_type != PNG_COLOR_TYPE_PALETTE) {
                int hit = color ? s[0] == r->trans_color.red && s[1] == r->trans_color.green &&
                                      s[2] == r->trans_color.blue
                                : s[0] == r->trans_color.gray;
                v[3] = hit ? 0 : max;
            }
            /* By value: 16-bit v -> round(v / 257), n bits -> round(v * 255 / (2^n - 1)). */
            for (int k = 0; k < out_c; k++) {
                if (wide)
                    ((uint16_t *)d)[k] = (uint16_t)v[k];
                else
                    d[k] = (uint8_t)lround(v[k] * 255.0 / max);
            }
        }
    }
    return img;
}

/* Writes r, runs it through the CLI; checks the result with the expected values. */
static void check_file(const char *what, raw_png *r) {
    char args[256];
    if (!write_raw("in.png", r)) {
        CHECK(0, "%s: writing the test file failed", what);
        return;
    }
    snprintf(args, sizeof args, "run levels in.png out.png --backend cpu");
    int rc = lumen(args);
    CHECK(rc == 0, "%s (%s): exit %d: %s", what, chunk_names[r->chunk], rc, err_text);
    char out[1024];
    work_path(out, sizeof out, "out.png");
    lumen_image *want = expected(r, 1), *got = NULL;
    if (rc == 0 && r->depth == 16)
        CHECK_OK(lumen_io_read_flags(out, LUMEN_IO_KEEP_16BIT, &got));
    else if (rc == 0)
        got = read_png("out.png");
    if (r->depth <= 8 && r->chunk == NO_CHUNK) { /* what libpng's simplified API reads, as before */
        lumen_image *simple = read_png("in.png"), *want8 = expected(r, 0);
        CHECK(t_same_pixels(simple, want8), "%s: the expected values differ from libpng's", what);
        lumen_image_destroy(simple), lumen_image_destroy(want8);
    }
    int first_bad = -1, wv = 0, gv = 0;
    if (got && want && lumen_image_channels(got) == lumen_image_channels(want)) {
        uint8_t *pw, *pg;
        lumen_image_map(want, LUMEN_ACCESS_READ, &pw);
        lumen_image_map(got, LUMEN_ACCESS_READ, &pg);
        size_t n = (size_t)r->w * lumen_image_channels(want);
        int wide = lumen_format_element_size(lumen_image_format(want)) == 2;
        if (wide != (lumen_format_element_size(lumen_image_format(got)) == 2)) first_bad = 0;
        for (int y = 0; y < r->h && first_bad < 0; y++)
            for (size_t i = 0; i < n && first_bad < 0; i++) {
                const uint8_t *rw = pw + y * lumen_image_stride(want),
                              *rg = pg + y * lumen_image_stride(got);
                wv = wide ? ((const uint16_t *)rw)[i] : rw[i];
                gv = wide ? ((const uint16_t *)rg)[i] : rg[i];
                if (wv != gv) first_bad = (int)(y * n + i);
            }
    }
    CHECK(got && want && lumen_image_channels(got) == lumen_image_channels(want) && first_bad < 0,
          "%s (%s): %d channels (want %d); first difference at sample %d: %d, want %d", what,
          chunk_names[r->chunk], got ? lumen_image_channels(got) : 0,
          want ? lumen_image_channels(want) : 0, first_bad, gv, wv);
    lumen_image_destroy(got);
    lumen_image_destroy(want);
}

static raw_png random_png(int w, int h, int color_type, int depth) {
    raw_png r;
    memset(&r, 0, sizeof r);
    r.w = w, r.h = h, r.color_type = color_type, r.depth = depth;
    size_t n = (size_t)w * h * channels_of(color_type);
    r.samples = malloc(n * sizeof *r.samples);
    for (size_t i = 0; i < n; i++) r.samples[i] = (uint16_t)(t_rand() & ((1u << depth) - 1));
    return r;
}

/* 16-bit: every gray value, random RGB/RGBA/gray+alpha, under each colour-space chunk. */
static void check_16_bit(void) {
    raw_png r = random_png(256, 256, PNG_COLOR_TYPE_GRAY, 16);
    for (int v = 0; v < 65536; v++) r.samples[v] = (uint16_t)v;
    for (r.chunk = NO_CHUNK; r.chunk <= SRGB; r.chunk++) check_file("16-bit gray, all values", &r);
    r.samples[1] = 0x8080; /* the reported case: 186 instead of 128 */
    r.interlace = PNG_INTERLACE_ADAM7, r.chunk = NO_CHUNK;
    check_file("16-bit gray, interlaced", &r);
    free(r.samples);

    static const int types[] = {PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA,
                                PNG_COLOR_TYPE_GRAY_ALPHA};
    static const char *const names[] = {"16-bit RGB", "16-bit RGBA", "16-bit gray+alpha"};
    for (int t = 0; t < 3; t++) {
        r = random_png(61, 37, types[t], 16);
        for (r.chunk = NO_CHUNK; r.chunk <= SRGB; r.chunk++) check_file(names[t], &r);
        free(r.samples);
    }
    /* tRNS on 16-bit gray and RGB: the matching colour becomes transparent. */
    r = random_png(23, 19, PNG_COLOR_TYPE_GRAY, 16);
    r.ntrans = 1, r.trans_color.gray = r.samples[5], r.samples[17] = r.samples[5];
    check_file("16-bit gray with tRNS", &r);
    free(r.samples);
    r = random_png(23, 19, PNG_COLOR_TYPE_RGB, 16);
    r.ntrans = 1, r.chunk = GAMA_LINEAR;
    memcpy(r.samples + 30, r.samples, 3 * sizeof *r.samples);
    r.trans_color.red = r.samples[0], r.trans_color.green = r.samples[1];
    r.trans_color.blue = r.samples[2];
    check_file("16-bit RGB with tRNS", &r);
    free(r.samples);
}

/* 8 bits and below: as before (gray+alpha -> RGBA, palettes, low depths), and by value. */
static void check_8_bit(void) {
    raw_png r = random_png(33, 21, PNG_COLOR_TYPE_GRAY_ALPHA, 8);
    check_file("8-bit gray+alpha", &r);
    free(r.samples);
    r = random_png(33, 21, PNG_COLOR_TYPE_RGB, 8);
    r.chunk = GAMA_LINEAR; /* by value: no gamma conversion at 8 bits either */
    check_file("8-bit RGB", &r);
    free(r.samples);
    for (int depth = 1; depth <= 8; depth *= 2) {
        char what[64];
        r = random_png(29, 17, PNG_COLOR_TYPE_GRAY, depth);
        snprintf(what, sizeof what, "%d-bit gray", depth);
        check_file(what, &r);
        r.color_type = PNG_COLOR_TYPE_PALETTE, r.npalette = 1 << depth;
        for (int i = 0; i < r.npalette; i++)
            r.palette[i] = (png_color){(png_byte)t_rand(), (png_byte)t_rand(), (png_byte)t_rand()};
        snprintf(what, sizeof what, "%d-bit palette", depth);
        check_file(what, &r);
        r.ntrans = r.npalette > 1 ? r.npalette - 1 : 1; /* the last entry opaque by default */
        for (int i = 0; i < r.ntrans; i++) r.trans[i] = (png_byte)t_rand();
        r.interlace = PNG_INTERLACE_ADAM7;
        snprintf(what, sizeof what, "%d-bit palette with tRNS, interlaced", depth);
        check_file(what, &r);
        free(r.samples);
    }
}

int main(int argc, char **argv) {
    if (!cli_test_init(argc, argv)) return 2;
    check_16_bit();
    check_8_bit();
    return t_summary();
}
