/* lumen_io internals: byte sources and sinks, and the PNG / JPEG codecs over them. */
#ifndef LUMEN_IO_PRIVATE_H
#define LUMEN_IO_PRIVATE_H

#include <lumen/lumen_io.h>
#include <stdio.h>

/* From liblumen (sdk/src/lumen.c): sets this thread's lumen_last_error(), returns status. */
lumen_status lumen__set_error(lumen_status status, const char *message);

enum { IO_REASON_SIZE = 256 };

/* Bytes in: `head` (bytes already read to detect the format) first, then the file, or memory. */
typedef struct io_src {
    FILE *f;
    const unsigned char *data;
    size_t size, pos;
    unsigned char head[8];
    size_t head_len, head_pos;
    int err;    /* errno of a failed read, else 0 */
    int keep16; /* decoding: a 16-bit PNG stays 16-bit (LUMEN_IO_KEEP_16BIT) */
} io_src;

/* Reads up to n bytes; fewer only at the end of the data or on a read error (err set). */
size_t io_src_read(io_src *s, void *buf, size_t n);

/* Bytes out: a file, or a growing buffer (f NULL). */
typedef struct io_sink {
    FILE *f;
    unsigned char *data;
    size_t size, cap;
    int err; /* errno of a failed write, else 0 */
    int oom; /* the buffer could not grow */
} io_sink;

/* 0 on success; -1 with err or oom set. */
int io_sink_write(io_sink *s, const void *p, size_t n);

/* The status of a failed write or allocation, with its reason; 0 if neither happened. */
lumen_status io_sink_failure(const io_sink *s, char *reason);
/* strerror, thread-safe. */
void io_strerror(int err, char *reason, size_t size);

/* Pixels to encode (mapped for reading). */
typedef struct io_pixels {
    const unsigned char *px;
    int w, h, c;
    int bgr;  /* channels B, G, R (A): written as R, G, B (A) */
    int bits; /* of a sample: 8, or 16 (native byte order) */
    size_t stride;
    void *owned; /* an interleaved copy of a planar image (px), freed by the writer */
} io_pixels;

/* Each returns LUMEN_OK or a status with reason (IO_REASON_SIZE bytes) filled in. Decoders
 * read the headers, fill in info's width, height and channels (those of the image they would
 * return, checked against Lumen's limits), and then, unless out is NULL (probing: nothing more is
 * read or allocated), return a new host image in *out, or leave it NULL. */
lumen_status io_png_decode(io_src *src, lumen_io_info *info, lumen_image **out, char *reason);
lumen_status io_jpeg_decode(io_src *src, lumen_io_info *info, lumen_image **out, char *reason);
lumen_status io_png_encode(io_sink *sink, const io_pixels *p, int bits, char *reason);
lumen_status io_jpeg_encode(io_sink *sink, const io_pixels *p, int quality, char *reason);

/* LUMEN_OK if a w x h x c image is within Lumen's limits (as lumen_image_create's stride would
 * be), else UNSUPPORTED_FORMAT (CORRUPT_DATA for a 0 size) with the reason. */
lumen_status io_check_size(unsigned long w, unsigned long h, int c, char *reason);
/* A new image of w x h x c samples of `bits` (8 or 16) for a decoder, mapped for writing;
 * UNSUPPORTED_FORMAT beyond Lumen's limits, checked before allocating. */
lumen_status io_new_image(unsigned long w, unsigned long h, int c, int bits, lumen_image **out,
                          unsigned char **px, char *reason);

#endif
