/* JPEG through libjpeg (libjpeg-turbo). Its error_exit (which would exit()) longjmps back here;
 * output_message (which would print) and trace messages are dropped; warnings that mean damaged
 * data fail the decode. The source fails at the end of the data instead of inserting a fake EOI,
 * so truncated files are errors, not gray-filled images. */
#include <stdio.h> /* before jpeglib.h */

#include <jerror.h>
#include <jpeglib.h>
#include <setjmp.h>
#include <string.h>

#include "io_private.h"

enum { BUFFER_SIZE = 16384 };

typedef struct {
    struct jpeg_error_mgr err;
    jmp_buf jmp;
    lumen_status status; /* set before longjmp when the cause is known */
    char *reason;
    io_src *src;
    io_sink *sink;
    struct jpeg_source_mgr in;
    struct jpeg_destination_mgr out;
    struct jpeg_decompress_struct d;
    struct jpeg_compress_struct e;
    lumen_image *img;
    unsigned char buf[BUFFER_SIZE];
} jpeg_ctx;

static void on_error(j_common_ptr cinfo) {
    jpeg_ctx *c = cinfo->client_data;
    char msg[JMSG_LENGTH_MAX];
    int code = cinfo->err->msg_code;
    if (!c->status) {
        cinfo->err->format_message(cinfo, msg);
        if (code == JERR_OUT_OF_MEMORY) {
            c->status = LUMEN_ERROR_OUT_OF_MEMORY;
            snprintf(c->reason, IO_REASON_SIZE, "out of memory");
        } else if (!c->src) {
            c->status = LUMEN_ERROR_INTERNAL;
            snprintf(c->reason, IO_REASON_SIZE, "libjpeg: %s", msg);
        } else if (code == JERR_BAD_PRECISION || code == JERR_SOF_UNSUPPORTED ||
                   code == JERR_NOT_COMPILED || code == JERR_ARITH_NOTIMPL ||
                   code == JERR_CONVERSION_NOTIMPL || code == JERR_NOTIMPL ||
                   code == JERR_IMAGE_TOO_BIG) {
            c->status = LUMEN_ERROR_UNSUPPORTED_FORMAT;
            snprintf(c->reason, IO_REASON_SIZE, "unsupported JPEG (%s)", msg);
        } else {
            const char *m = strncmp(msg, "Corrupt JPEG data: ", 19) == 0 ? msg + 19 : msg;
            c->status = LUMEN_ERROR_CORRUPT_DATA;
            snprintf(c->reason, IO_REASON_SIZE, "corrupt JPEG data (%s)", m);
        }
    }
    longjmp(c->jmp, 1);
}

/* level -1: a warning; fatal unless it is about metadata only. Else a trace message: dropped. */
static void on_message(j_common_ptr cinfo, int level) {
    int code = cinfo->err->msg_code;
    if (level < 0 && code != JWRN_JFIF_MAJOR && code != JWRN_ADOBE_XFORM && code != JWRN_BOGUS_ICC)
        on_error(cinfo);
}

static void on_output(j_common_ptr cinfo) { (void)cinfo; }

static void set_errors(jpeg_ctx *c, j_common_ptr cinfo) {
    cinfo->err = jpeg_std_error(&c->err);
    c->err.error_exit = on_error;
    c->err.emit_message = on_message;
    c->err.output_message = on_output;
    cinfo->client_data = c;
}

/* ---- Decoding ----------------------------------------------------------------------------- */

static void src_init(j_decompress_ptr d) { (void)d; }

static boolean src_fill(j_decompress_ptr d) {
    jpeg_ctx *c = d->client_data;
    size_t n = io_src_read(c->src, c->buf, sizeof c->buf);
    if (n == 0) {
        if (c->src->err) {
            c->status = LUMEN_ERROR_IO;
            io_strerror(c->src->err, c->reason, IO_REASON_SIZE);
        } else {
            c->status = LUMEN_ERROR_CORRUPT_DATA;
            snprintf(c->reason, IO_REASON_SIZE, "truncated JPEG data");
        }
        longjmp(c->jmp, 1);
    }
    c->in.next_input_byte = c->buf;
    c->in.bytes_in_buffer = n;
    return TRUE;
}

static void src_skip(j_decompress_ptr d, long n) {
    jpeg_ctx *c = d->client_data;
    if (n <= 0) return;
    while ((size_t)n > c->in.bytes_in_buffer) {
        n -= (long)c->in.bytes_in_buffer;
        src_fill(d);
    }
    c->in.next_input_byte += n;
    c->in.bytes_in_buffer -= (size_t)n;
}

static void src_term(j_decompress_ptr d) { (void)d; }

static lumen_status decode(jpeg_ctx *c, lumen_io_info *info, lumen_image **out) {
    struct jpeg_decompress_struct *d = &c->d;
    if (setjmp(c->jmp)) {
        jpeg_destroy_decompress(d);
        lumen_image_destroy(c->img);
        return c->status;
    }
    set_errors(c, (j_common_ptr)d);
    jpeg_create_decompress(d);
    c->in.init_source = src_init;
    c->in.fill_input_buffer = src_fill;
    c->in.skip_input_data = src_skip;
    c->in.resync_to_restart = jpeg_resync_to_restart;
    c->in.term_source = src_term;
    d->src = &c->in;
    jpeg_read_header(d, TRUE);
    int channels = 0;
    if (d->jpeg_color_space == JCS_GRAYSCALE) {
        d->out_color_space = JCS_GRAYSCALE, channels = 1;
    } else if (d->jpeg_color_space == JCS_YCbCr || d->jpeg_color_space == JCS_RGB) {
        d->out_color_space = JCS_RGB, channels = 3;
    } else {
        c->status = LUMEN_ERROR_UNSUPPORTED_FORMAT;
        snprintf(c->reason, IO_REASON_SIZE, "%s JPEG (only gray and YCbCr/RGB are read)",
                 d->jpeg_color_space == JCS_CMYK || d->jpeg_color_space == JCS_YCCK
                     ? "CMYK"
                     : "unknown colour space");
        longjmp(c->jmp, 1);
    }
    /* Checked before jpeg_start_decompress, which allocates */
    if ((c->status = io_check_size(d->image_width, d->image_height, channels, c->reason)))
        longjmp(c->jmp, 1);
    info->width = (int)d->image_width, info->height = (int)d->image_height;
    info->channels = channels;
    if (!out) { /* probing: the headers only (jpeg_read_header stopped at the scan) */
        jpeg_destroy_decompress(d);
        return LUMEN_OK;
    }
    unsigned char *px;
    if ((c->status =
             io_new_image(d->image_width, d->image_height, channels, 8, &c->img, &px, c->reason)))
        longjmp(c->jmp, 1);
    jpeg_start_decompress(d);
    size_t stride = lumen_image_stride(c->img);
    if (d->output_components != channels || d->output_width != d->image_width ||
        d->output_height != d->image_height) {
        c->status = LUMEN_ERROR_INTERNAL;
        snprintf(c->reason, IO_REASON_SIZE, "libjpeg: unexpected output format");
        longjmp(c->jmp, 1);
    }
    while (d->output_scanline < d->output_height) {
        JSAMPROW row = px + d->output_scanline * stride;
        if (jpeg_read_scanlines(d, &row, 1) != 1) { /* src_fill never suspends: not expected */
            c->status = LUMEN_ERROR_INTERNAL;
            snprintf(c->reason, IO_REASON_SIZE, "libjpeg: no scanline read");
            longjmp(c->jmp, 1);
        }
    }
    jpeg_finish_decompress(d); /* to EOI: damage after the pixels fails too */
    jpeg_destroy_decompress(d);
    *out = c->img;
    return LUMEN_OK;
}

lumen_status io_jpeg_decode(io_src *src, lumen_io_info *info, lumen_image **out, char *reason) {
    jpeg_ctx c = {.reason = reason, .src = src};
    return decode(&c, info, out);
}

/* ---- Encoding ----------------------------------------------------------------------------- */

static void flush(jpeg_ctx *c, size_t n) {
    if (io_sink_write(c->sink, c->buf, n) == 0) return;
    c->status = io_sink_failure(c->sink, c->reason);
    longjmp(c->jmp, 1);
}

static void dest_init(j_compress_ptr e) {
    jpeg_ctx *c = e->client_data;
    c->out.next_output_byte = c->buf;
    c->out.free_in_buffer = sizeof c->buf;
}

static boolean dest_empty(j_compress_ptr e) {
    flush(e->client_data, sizeof((jpeg_ctx *)e->client_data)->buf);
    dest_init(e);
    return TRUE;
}

static void dest_term(j_compress_ptr e) {
    jpeg_ctx *c = e->client_data;
    flush(c, sizeof c->buf - c->out.free_in_buffer);
}

static lumen_status encode(jpeg_ctx *c, const io_pixels *p, int quality) {
    struct jpeg_compress_struct *e = &c->e;
    if (p->w > JPEG_MAX_DIMENSION || p->h > JPEG_MAX_DIMENSION) {
        snprintf(c->reason, IO_REASON_SIZE, "JPEG holds at most %d pixels a side",
                 (int)JPEG_MAX_DIMENSION);
        return LUMEN_ERROR_UNSUPPORTED_FORMAT;
    }
    if (setjmp(c->jmp)) {
        jpeg_destroy_compress(e);
        return c->status;
    }
    set_errors(c, (j_common_ptr)e);
    jpeg_create_compress(e);
    c->out.init_destination = dest_init;
    c->out.empty_output_buffer = dest_empty;
    c->out.term_destination = dest_term;
    e->dest = &c->out;
    e->image_width = (JDIMENSION)p->w;
    e->image_height = (JDIMENSION)p->h;
    e->input_components = p->c;
    e->in_color_space = p->c == 1 ? JCS_GRAYSCALE : p->bgr ? JCS_EXT_BGR : JCS_RGB;
    jpeg_set_defaults(e);
    jpeg_set_quality(e, quality, TRUE);
    jpeg_start_compress(e, TRUE);
    while (e->next_scanline < e->image_height) {
        JSAMPROW row = (JSAMPROW)(p->px + (size_t)e->next_scanline * p->stride);
        jpeg_write_scanlines(e, &row, 1);
    }
    jpeg_finish_compress(e);
    jpeg_destroy_compress(e);
    return LUMEN_OK;
}

lumen_status io_jpeg_encode(io_sink *sink, const io_pixels *p, int quality, char *reason) {
    jpeg_ctx c = {.reason = reason, .sink = sink};
    return encode(&c, p, quality);
}
