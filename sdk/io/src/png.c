/* PNG through libpng's low-level API (the simplified one treats 16-bit files as linear light and
 * applies gAMA). libpng's errors longjmp back here, its warnings are dropped, and its allocations
 * go through on_malloc, which tells running out of memory apart from damaged data. */
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "io_private.h"

typedef struct {
    jmp_buf jmp;
    lumen_status status; /* set before png_error when the cause is known */
    char *reason;
    int oom;
    io_src *src;
    io_sink *sink;
    png_structp png;
    png_infop info;
    lumen_image *img;
    png_bytep *rows; /* decoding: row pointers */
    png_bytep wide;  /* encoding: one row of 16-bit samples */
} png_ctx;

static void on_error(png_structp png, png_const_charp msg) {
    png_ctx *c = png_get_error_ptr(png);
    if (c->status) {
        /* reason already set */
    } else if (c->oom) {
        c->status = LUMEN_ERROR_OUT_OF_MEMORY;
        snprintf(c->reason, IO_REASON_SIZE, "out of memory");
    } else if (c->src) {
        c->status = LUMEN_ERROR_CORRUPT_DATA;
        snprintf(c->reason, IO_REASON_SIZE, "corrupt PNG data (%s)", msg);
    } else {
        c->status = LUMEN_ERROR_INTERNAL;
        snprintf(c->reason, IO_REASON_SIZE, "libpng: %s", msg);
    }
    longjmp(c->jmp, 1);
}

static void on_warning(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

/* libpng allocates a chunk's declared length before reading it (even past the chunk size limit,
 * e.g. for sPLT), so a 50-byte file could take 2 GiB. Lumen's limits keep its own buffers (rows,
 * zlib, chunks up to 8 MB) well below ALLOC_MAX: larger requests fail, not as out of memory
 * (libpng skips such a chunk, and then finds the file truncated). */
enum { ALLOC_MAX = 64 << 20 };

static png_voidp on_malloc(png_structp png, png_alloc_size_t size) {
    void *p = size <= ALLOC_MAX ? malloc(size) : NULL;
    if (!p && size <= ALLOC_MAX) ((png_ctx *)png_get_mem_ptr(png))->oom = 1;
    return p;
}

static void on_free(png_structp png, png_voidp p) {
    (void)png;
    free(p);
}

static void read_fn(png_structp png, png_bytep buf, size_t n) {
    png_ctx *c = png_get_io_ptr(png);
    if (io_src_read(c->src, buf, n) == n) return;
    if (c->src->err) {
        c->status = LUMEN_ERROR_IO;
        io_strerror(c->src->err, c->reason, IO_REASON_SIZE);
    } else {
        c->status = LUMEN_ERROR_CORRUPT_DATA;
        snprintf(c->reason, IO_REASON_SIZE, "truncated PNG data");
    }
    png_error(png, "read failed");
}

static lumen_status decode(png_ctx *c, lumen_io_info *info, lumen_image **out) {
    if (setjmp(c->jmp)) {
        png_destroy_read_struct(&c->png, &c->info, NULL);
        free(c->rows);
        lumen_image_destroy(c->img);
        return c->status;
    }
    c->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, c, on_error, on_warning, c, on_malloc,
                                      on_free);
    if (!c->png)
        return snprintf(c->reason, IO_REASON_SIZE, "out of memory"), LUMEN_ERROR_OUT_OF_MEMORY;
    if (!(c->info = png_create_info_struct(c->png))) c->oom = 1, png_error(c->png, "no memory");
    png_set_read_fn(c->png, c, read_fn);
    png_set_crc_action(c->png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT); /* any CRC error: fail */
    png_read_info(c->png, c->info);
    png_uint_32 w = png_get_image_width(c->png, c->info), h = png_get_image_height(c->png, c->info);
    if ((c->status = io_check_size(w, h, 1, c->reason))) png_error(c->png, "size");
    int type = png_get_color_type(c->png, c->info), depth = png_get_bit_depth(c->png, c->info);
    int trns = png_get_valid(c->png, c->info, PNG_INFO_tRNS) != 0;
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(c->png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(c->png);
    if (trns) png_set_tRNS_to_alpha(c->png);
    int keep16 = depth == 16 && c->src->keep16;
    if (keep16)
        png_set_swap(c->png); /* 16-bit samples in the host's (little-endian) order */
    else if (depth == 16)
        png_set_scale_16(c->png); /* round(v / 257) */
    if (!(type & PNG_COLOR_MASK_COLOR) && ((type & PNG_COLOR_MASK_ALPHA) || trns))
        png_set_gray_to_rgb(c->png); /* gray + alpha -> RGBA */
    png_set_interlace_handling(c->png);
    png_read_update_info(c->png, c->info);
    int channels = png_get_channels(c->png, c->info);
    if ((c->status = io_check_size(w, h, channels, c->reason))) png_error(c->png, "size");
    info->width = (int)w, info->height = (int)h, info->channels = channels;
    if (!out) { /* probing: the headers only (png_read_info stopped before the image data) */
        png_destroy_read_struct(&c->png, &c->info, NULL);
        return LUMEN_OK;
    }
    unsigned char *px;
    if ((c->status = io_new_image(w, h, channels, keep16 ? 16 : 8, &c->img, &px, c->reason)))
        png_error(c->png, "image");
    if (!(c->rows = malloc(h * sizeof *c->rows))) c->oom = 1, png_error(c->png, "no memory");
    size_t stride = lumen_image_stride(c->img);
    for (png_uint_32 y = 0; y < h; y++) c->rows[y] = px + y * stride;
    png_read_image(c->png, c->rows);
    png_read_end(c->png, NULL); /* to IEND: damage after the pixels fails too */
    png_destroy_read_struct(&c->png, &c->info, NULL);
    free(c->rows);
    *out = c->img;
    return LUMEN_OK;
}

lumen_status io_png_decode(io_src *src, lumen_io_info *info, lumen_image **out, char *reason) {
    png_ctx c = {.reason = reason, .src = src};
    return decode(&c, info, out);
}

static void write_fn(png_structp png, png_bytep data, size_t n) {
    png_ctx *c = png_get_io_ptr(png);
    if (io_sink_write(c->sink, data, n) == 0) return;
    c->status = io_sink_failure(c->sink, c->reason);
    png_error(png, "write failed");
}

static void flush_fn(png_structp png) { (void)png; }

static lumen_status encode(png_ctx *c, const io_pixels *p, int bits) {
    static const int types[] = {0, PNG_COLOR_TYPE_GRAY, 0, PNG_COLOR_TYPE_RGB,
                                PNG_COLOR_TYPE_RGB_ALPHA};
    if (setjmp(c->jmp)) {
        png_destroy_write_struct(&c->png, &c->info);
        free(c->wide);
        return c->status;
    }
    c->png = png_create_write_struct_2(PNG_LIBPNG_VER_STRING, c, on_error, on_warning, c, on_malloc,
                                       on_free);
    if (!c->png)
        return snprintf(c->reason, IO_REASON_SIZE, "out of memory"), LUMEN_ERROR_OUT_OF_MEMORY;
    if (!(c->info = png_create_info_struct(c->png))) c->oom = 1, png_error(c->png, "no memory");
    png_set_write_fn(c->png, c, write_fn, flush_fn);
    png_set_IHDR(c->png, c->info, (png_uint_32)p->w, (png_uint_32)p->h, bits, types[p->c],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(c->png, c->info);
    if (p->bgr) png_set_bgr(c->png);
    if (p->bits == 16) png_set_swap(c->png); /* the image's samples are little-endian */
    size_t n = (size_t)p->w * p->c;
    int widen = bits == 16 && p->bits == 8;
    if (widen && !(c->wide = malloc(2 * n))) c->oom = 1, png_error(c->png, "no memory");
    png_bytep wide = c->wide;
    for (int y = 0; y < p->h; y++) {
        const unsigned char *row = p->px + (size_t)y * p->stride;
        if (widen) /* v * 257, big-endian: both bytes v */
            for (size_t i = 0; i < n; i++) wide[2 * i] = wide[2 * i + 1] = row[i];
        png_write_row(c->png, (png_bytep)(widen ? wide : row));
    }
    png_write_end(c->png, NULL);
    png_destroy_write_struct(&c->png, &c->info);
    free(c->wide);
    return LUMEN_OK;
}

lumen_status io_png_encode(io_sink *sink, const io_pixels *p, int bits, char *reason) {
    png_ctx c = {.reason = reason, .sink = sink};
    return encode(&c, p, bits);
}
