/* lumen_io: the public API, files (read, probe; write to a temporary file, then rename, through a
 * symlink), format detection, sources and sinks. The codecs are in png.c and jpeg.c. POSIX only. */
#define _POSIX_C_SOURCE 200809L /* fdopen, fsync, XSI strerror_r */
#include "io_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Sources, sinks, errors --------------------------------------------------------------- */

size_t io_src_read(io_src *s, void *buf, size_t n) {
    unsigned char *b = buf;
    size_t done = 0;
    while (done < n && s->head_pos < s->head_len) b[done++] = s->head[s->head_pos++];
    if (done < n && s->f) {
        errno = 0;
        done += fread(b + done, 1, n - done, s->f);
        if (done < n && ferror(s->f)) s->err = errno ? errno : EIO;
    } else if (done < n && s->data) {
        size_t k = s->size - s->pos < n - done ? s->size - s->pos : n - done;
        memcpy(b + done, s->data + s->pos, k);
        s->pos += k, done += k;
    }
    return done;
}

int io_sink_write(io_sink *s, const void *p, size_t n) {
    if (s->f) {
        errno = 0;
        if (fwrite(p, 1, n, s->f) == n) return 0;
        s->err = errno ? errno : EIO;
        return -1;
    }
    if (n > s->cap - s->size) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap - s->size < n) {
            if (cap > SIZE_MAX / 2) return s->oom = 1, -1;
            cap *= 2;
        }
        unsigned char *d = realloc(s->data, cap);
        if (!d) return s->oom = 1, -1;
        s->data = d, s->cap = cap;
    }
    memcpy(s->data + s->size, p, n);
    s->size += n;
    return 0;
}

void io_strerror(int err, char *reason, size_t size) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    snprintf(reason, size, "%s", strerror_r(err, reason, size));
#else
    if (strerror_r(err, reason, size) != 0) snprintf(reason, size, "error %d", err);
#endif
}

lumen_status io_sink_failure(const io_sink *s, char *reason) {
    if (s->err) return io_strerror(s->err, reason, IO_REASON_SIZE), LUMEN_ERROR_IO;
    if (s->oom) return snprintf(reason, IO_REASON_SIZE, "out of memory"), LUMEN_ERROR_OUT_OF_MEMORY;
    return LUMEN_OK;
}

lumen_status io_check_size(unsigned long w, unsigned long h, int c, char *reason) {
    if (w == 0 || h == 0) {
        snprintf(reason, IO_REASON_SIZE, "image of %lu x %lu pixels", w, h);
        return LUMEN_ERROR_CORRUPT_DATA;
    }
    size_t stride = (w * (size_t)c + 63) / 64 * 64; /* as lumen_image_create's */
    if (w > LUMEN_MAX_DIMENSION || h > LUMEN_MAX_DIMENSION || stride * h > LUMEN_MAX_BYTES) {
        snprintf(reason, IO_REASON_SIZE,
                 "image of %lu x %lu x %d over Lumen's limits (%d pixels a side, %d bytes)", w, h,
                 c, LUMEN_MAX_DIMENSION, LUMEN_MAX_BYTES);
        return LUMEN_ERROR_UNSUPPORTED_FORMAT;
    }
    return LUMEN_OK;
}

lumen_status io_new_image(unsigned long w, unsigned long h, int c, int bits, lumen_image **out,
                          unsigned char **px, char *reason) {
    lumen_status st = io_check_size(w, h, bits == 16 ? 2 * c : c, reason);
    if (st) return st;
    st = lumen_image_create_format((int)w, (int)h, (lumen_format)(c | (bits == 16 ? 0x1000 : 0)),
                                   out);
    if (!st) st = lumen_image_map(*out, LUMEN_ACCESS_WRITE, px);
    if (st) {
        snprintf(reason, IO_REASON_SIZE, "%s", lumen_last_error());
        lumen_image_destroy(*out);
        *out = NULL;
    }
    return st;
}

/* Sets lumen_last_error() to "function: name: reason" (no name: "function: reason"). */
static lumen_status fail(const char *function, const char *name, lumen_status status,
                         const char *reason) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s: %s%s%s", function, name ? name : "", name ? ": " : "", reason);
    return lumen__set_error(status, msg);
}

static lumen_status fail_errno(const char *function, const char *name, int err) {
    char reason[IO_REASON_SIZE];
    io_strerror(err, reason, sizeof reason);
    return fail(function, name, LUMEN_ERROR_IO, reason);
}

/* ---- Formats ------------------------------------------------------------------------------ */

lumen_io_format lumen_io_format_from_path(const char *path) {
    if (!path) return LUMEN_IO_FORMAT_AUTO;
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) return LUMEN_IO_FORMAT_AUTO; /* ".png" alone is a hidden file */
    if (strcasecmp(dot, ".png") == 0) return LUMEN_IO_FORMAT_PNG;
    if (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0) return LUMEN_IO_FORMAT_JPEG;
    return LUMEN_IO_FORMAT_AUTO;
}

const char *lumen_io_format_name(lumen_io_format format) {
    switch (format) {
        case LUMEN_IO_FORMAT_PNG:
            return "png";
        case LUMEN_IO_FORMAT_JPEG:
            return "jpeg";
        default:
            return NULL;
    }
}

/* ---- Reading ------------------------------------------------------------------------------ */

/* The format of data whose first n bytes (n <= 8) are b: a file is taken as PNG or JPEG when its
 * first bytes, as many as it has up to the signature's length (8 for PNG, 3 for JPEG), match the
 * signature. So any non-empty prefix of a PNG or JPEG file is CORRUPT_DATA (truncated), and an
 * empty file, or one matching neither signature, UNSUPPORTED_FORMAT. Fills in *info (zeroed on
 * failure); decodes into *out unless out is NULL (probing: the headers only). */
static lumen_status decode(const char *function, const char *name, io_src *src, lumen_io_info *info,
                           lumen_image **out) {
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const unsigned char jpeg_sig[3] = {0xff, 0xd8, 0xff};
    char reason[IO_REASON_SIZE];
    src->head_len = io_src_read(src, src->head, sizeof src->head);
    size_t n = src->head_len;
    lumen_status st;
    memset(info, 0, sizeof *info);
    if (src->err) {
        return fail_errno(function, name, src->err);
    } else if (n == 0) {
        return fail(function, name, LUMEN_ERROR_UNSUPPORTED_FORMAT, "empty, not PNG or JPEG");
    } else if (memcmp(src->head, png_sig, n < 8 ? n : 8) == 0) {
        info->format = LUMEN_IO_FORMAT_PNG;
        st = io_png_decode(src, info, out, reason);
    } else if (memcmp(src->head, jpeg_sig, n < 3 ? n : 3) == 0) {
        info->format = LUMEN_IO_FORMAT_JPEG;
        st = io_jpeg_decode(src, info, out, reason);
    } else {
        return fail(function, name, LUMEN_ERROR_UNSUPPORTED_FORMAT, "not a PNG or JPEG file");
    }
    if (st) {
        memset(info, 0, sizeof *info);
        return fail(function, name, st, reason);
    }
    return lumen__set_error(LUMEN_OK, NULL);
}

/* Opens path for reading (not a directory) into *f: LUMEN_OK, or IO with the error set. */
static lumen_status open_for_reading(const char *fn, const char *path, FILE **f) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail_errno(fn, path, errno);
    struct stat st;
    int err = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    *f = err ? NULL : fdopen(fd, "rb");
    if (!*f) {
        err = err ? err : errno;
        close(fd);
        return fail_errno(fn, path, err);
    }
    return LUMEN_OK;
}

/* Decodes (out) or probes (out NULL) the file at path. */
static lumen_status decode_file(const char *fn, const char *path, lumen_io_info *info,
                                lumen_image **out) {
    FILE *f;
    lumen_status status = open_for_reading(fn, path, &f);
    if (status) return status;
    io_src src = {.f = f};
    status = decode(fn, path, &src, info, out);
    fclose(f);
    return status;
}

static lumen_status read_flags(const char *fn, const char *path, unsigned flags,
                               lumen_image **out) {
    if (out) *out = NULL;
    if (!path) return fail(fn, NULL, LUMEN_ERROR_INVALID_ARGUMENT, "path is NULL");
    if (!out) return fail(fn, path, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    if (flags & ~LUMEN_IO_KEEP_16BIT)
        return fail(fn, path, LUMEN_ERROR_INVALID_ARGUMENT, "unknown flags");
    FILE *f;
    lumen_status st = open_for_reading(fn, path, &f);
    if (st) return st;
    io_src src = {.f = f, .keep16 = (flags & LUMEN_IO_KEEP_16BIT) != 0};
    lumen_io_info info;
    st = decode(fn, path, &src, &info, out);
    fclose(f);
    return st;
}

static lumen_status decode_flags(const char *fn, const void *data, size_t size, unsigned flags,
                                 lumen_image **out) {
    if (out) *out = NULL;
    if (!data) return fail(fn, NULL, LUMEN_ERROR_INVALID_ARGUMENT, "data is NULL");
    if (!out) return fail(fn, NULL, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    if (flags & ~LUMEN_IO_KEEP_16BIT)
        return fail(fn, NULL, LUMEN_ERROR_INVALID_ARGUMENT, "unknown flags");
    io_src src = {.data = data, .size = size, .keep16 = (flags & LUMEN_IO_KEEP_16BIT) != 0};
    lumen_io_info info;
    return decode(fn, NULL, &src, &info, out);
}

lumen_status lumen_io_read(const char *path, lumen_image **out) {
    return read_flags("lumen_io_read", path, 0, out);
}

lumen_status lumen_io_read_flags(const char *path, unsigned flags, lumen_image **out) {
    return read_flags("lumen_io_read_flags", path, flags, out);
}

lumen_status lumen_io_decode(const void *data, size_t size, lumen_image **out) {
    return decode_flags("lumen_io_decode", data, size, 0, out);
}

lumen_status lumen_io_decode_flags(const void *data, size_t size, unsigned flags,
                                   lumen_image **out) {
    return decode_flags("lumen_io_decode_flags", data, size, flags, out);
}

lumen_status lumen_io_probe(const char *path, lumen_io_info *info) {
    static const char fn[] = "lumen_io_probe";
    if (info) memset(info, 0, sizeof *info);
    if (!path) return fail(fn, NULL, LUMEN_ERROR_INVALID_ARGUMENT, "path is NULL");
    if (!info) return fail(fn, path, LUMEN_ERROR_INVALID_ARGUMENT, "info is NULL");
    return decode_file(fn, path, info, NULL);
}

lumen_status lumen_io_probe_memory(const void *data, size_t size, lumen_io_info *info) {
    static const char fn[] = "lumen_io_probe_memory";
    if (info) memset(info, 0, sizeof *info);
    if (!data) return fail(fn, NULL, LUMEN_ERROR_INVALID_ARGUMENT, "data is NULL");
    if (!info) return fail(fn, NULL, LUMEN_ERROR_INVALID_ARGUMENT, "info is NULL");
    io_src src = {.data = data, .size = size};
    return decode(fn, NULL, &src, info, NULL);
}

/* ---- Writing ------------------------------------------------------------------------------ */

/* Checks the arguments and options, maps img: LUMEN_OK with *format, *p and the option values. */
static lumen_status prepare(const char *fn, const char *path, lumen_image *img,
                            const lumen_io_options *o, lumen_io_format *format, io_pixels *p,
                            int *bits, int *quality) {
    char reason[IO_REASON_SIZE];
    const char *name = path;
    if (!img) return fail(fn, name, LUMEN_ERROR_INVALID_ARGUMENT, "img is NULL");
    lumen_io_options opt = {0};
    if (o) opt = *o;
    if (opt.format != LUMEN_IO_FORMAT_AUTO && !lumen_io_format_name(opt.format)) {
        snprintf(reason, sizeof reason, "options->format %d is not a lumen_io_format",
                 (int)opt.format);
        return fail(fn, name, LUMEN_ERROR_INVALID_ARGUMENT, reason);
    }
    if (opt.png_bits != 0 && opt.png_bits != 8 && opt.png_bits != 16) {
        snprintf(reason, sizeof reason, "options->png_bits %d is not 8 or 16", opt.png_bits);
        return fail(fn, name, LUMEN_ERROR_INVALID_ARGUMENT, reason);
    }
    if (opt.jpeg_quality < 0 || opt.jpeg_quality > 100) {
        snprintf(reason, sizeof reason, "options->jpeg_quality %d outside 1..100",
                 opt.jpeg_quality);
        return fail(fn, name, LUMEN_ERROR_INVALID_ARGUMENT, reason);
    }
    *bits = opt.png_bits ? opt.png_bits : 8;
    *quality = opt.jpeg_quality ? opt.jpeg_quality : 90;
    *format = opt.format;
    if (*format == LUMEN_IO_FORMAT_AUTO)
        *format = path ? lumen_io_format_from_path(path) : LUMEN_IO_FORMAT_PNG;
    if (*format == LUMEN_IO_FORMAT_AUTO)
        return fail(fn, name, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                    "unknown extension (.png, .jpg or .jpeg; or set options->format)");
    p->w = lumen_image_width(img), p->h = lumen_image_height(img);
    p->c = lumen_image_channels(img), p->stride = lumen_image_stride(img);
    p->bgr = !strncmp(lumen_format_name(lumen_image_format(img)), "BGR", 3); /* any type/layout */
    int es = lumen_format_element_size(lumen_image_format(img));
    p->bits = 8 * es;
    if (es == 4)
        return fail(fn, name, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                    "a float image (PNG and JPEG hold 8- and 16-bit samples)");
    if (es == 2 && *format == LUMEN_IO_FORMAT_JPEG)
        return fail(fn, name, LUMEN_ERROR_UNSUPPORTED_FORMAT, "JPEG holds 8-bit samples, not 16");
    if (es == 2 && opt.png_bits == 8)
        return fail(fn, name, LUMEN_ERROR_INVALID_ARGUMENT,
                    "options->png_bits 8 for a 16-bit image (written as 16-bit PNG)");
    if (es == 2) *bits = 16;
    if (*format == LUMEN_IO_FORMAT_JPEG && p->c == 4)
        return fail(fn, name, LUMEN_ERROR_UNSUPPORTED_FORMAT, "JPEG holds 1 or 3 channels, not 4");
    uint8_t *px = NULL;
    lumen_status st = lumen_image_map(img, LUMEN_ACCESS_READ, &px);
    if (st) {
        snprintf(reason, sizeof reason, "%s", lumen_last_error());
        return fail(fn, name, st, reason);
    }
    p->px = px;
    p->owned = NULL;
    size_t plane = lumen_image_plane_stride(img);
    if (plane) { /* planar: an interleaved copy for the encoders */
        size_t row = (size_t)p->w * (size_t)p->c * (size_t)es;
        unsigned char *copy = malloc(row * (size_t)p->h);
        if (!copy) return fail(fn, name, LUMEN_ERROR_OUT_OF_MEMORY, "out of memory");
        for (int y = 0; y < p->h; y++)
            for (int x = 0; x < p->w; x++)
                for (int k = 0; k < p->c; k++)
                    memcpy(copy + (size_t)y * row + ((size_t)x * p->c + k) * es,
                           px + k * plane + (size_t)y * p->stride + (size_t)x * es, (size_t)es);
        p->px = p->owned = copy;
        p->stride = row;
    }
    return LUMEN_OK;
}

static lumen_status encode(io_sink *sink, lumen_io_format format, const io_pixels *p, int bits,
                           int quality, char *reason) {
    return format == LUMEN_IO_FORMAT_PNG ? io_png_encode(sink, p, bits, reason)
                                         : io_jpeg_encode(sink, p, quality, reason);
}

/* Opens a new file beside path, "DIR/.NAME.lumen-PID-N" (NAME cut to 200 bytes; the umask
 * applies), named in tmp. */
static int open_temporary(const char *path, char *tmp, size_t size) {
    static atomic_uint counter;
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned n = atomic_fetch_add(&counter, 1);
        snprintf(tmp, size, "%.*s.%.200s.lumen-%ld-%u", dir_len, path, path + dir_len,
                 (long)getpid(), n);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

static const char *kind(mode_t m) {
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/* The file lumen_io_write replaces: path itself, or when path is a symlink the regular file it
 * finally points to (written through, the link stays): its real path, in *target (to free).
 * LUMEN_OK, or IO (a dangling symlink, one to anything but a regular file) with the error set. */
static lumen_status resolve_target(const char *fn, const char *path, char **target) {
    struct stat st;
    *target = NULL;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return LUMEN_OK;
    char *real = realpath(path, NULL);
    if (!real && errno == ENOENT)
        return fail(fn, path, LUMEN_ERROR_IO, "a symlink to a file that does not exist");
    if (!real) return fail_errno(fn, path, errno);
    if (stat(real, &st) != 0) {
        int err = errno;
        free(real);
        return fail_errno(fn, path, err);
    }
    if (!S_ISREG(st.st_mode)) {
        char reason[IO_REASON_SIZE];
        snprintf(reason, sizeof reason,
                 "a symlink to %s (only regular files are written through a symlink)",
                 kind(st.st_mode));
        free(real);
        return fail(fn, path, LUMEN_ERROR_IO, reason);
    }
    *target = real;
    return LUMEN_OK;
}

static lumen_status write_file(const char *fn, const char *path, lumen_io_format format,
                               const io_pixels *p, int bits, int quality);

lumen_status lumen_io_write(const char *path, lumen_image *img, const lumen_io_options *options) {
    static const char fn[] = "lumen_io_write";
    if (!path) return fail(fn, NULL, LUMEN_ERROR_INVALID_ARGUMENT, "path is NULL");
    lumen_io_format format;
    io_pixels p;
    int bits, quality;
    lumen_status st = prepare(fn, path, img, options, &format, &p, &bits, &quality);
    if (st) return st;
    st = write_file(fn, path, format, &p, bits, quality);
    free(p.owned);
    return st;
}

static lumen_status write_file(const char *fn, const char *path, lumen_io_format format,
                               const io_pixels *p, int bits, int quality) {
    lumen_status st;
    char *target; /* path's final target when path is a symlink, else NULL: path itself */
    if ((st = resolve_target(fn, path, &target))) return st;
    const char *dest = target ? target : path;
    size_t size = strlen(dest) + 64;
    char *tmp = malloc(size), reason[IO_REASON_SIZE];
    if (!tmp) {
        free(target);
        return fail(fn, path, LUMEN_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    int fd = open_temporary(dest, tmp, size);
    if (fd < 0) {
        st = fail_errno(fn, path, errno);
        free(tmp);
        free(target);
        return st;
    }
    struct stat old;
    if (stat(dest, &old) == 0 && S_ISREG(old.st_mode)) /* keep an existing file's mode */
        (void)fchmod(fd, old.st_mode & 07777);
    io_sink sink = {.f = fdopen(fd, "wb")};
    if (!sink.f) {
        st = fail_errno(fn, path, errno);
        close(fd);
    } else {
        st = encode(&sink, format, p, bits, quality, reason);
        if (st) fail(fn, path, st, reason);
        errno = 0;
        if (!st && (fflush(sink.f) != 0 || fsync(fileno(sink.f)) != 0))
            st = fail_errno(fn, path, errno ? errno : EIO);
        if (fclose(sink.f) != 0 && !st) st = fail_errno(fn, path, errno ? errno : EIO);
        if (!st && rename(tmp, dest) != 0) st = fail_errno(fn, path, errno);
    }
    if (st) unlink(tmp);
    free(tmp);
    free(target);
    return st ? st : lumen__set_error(LUMEN_OK, NULL);
}

lumen_status lumen_io_encode(lumen_image *img, const lumen_io_options *options, void **data,
                             size_t *size) {
    static const char fn[] = "lumen_io_encode";
    if (data) *data = NULL;
    if (size) *size = 0;
    if (!data || !size)
        return fail(fn, NULL, LUMEN_ERROR_INVALID_ARGUMENT,
                    !data ? "data is NULL" : "size is NULL");
    lumen_io_format format;
    io_pixels p;
    int bits, quality;
    lumen_status st = prepare(fn, NULL, img, options, &format, &p, &bits, &quality);
    if (st) return st;
    char reason[IO_REASON_SIZE];
    io_sink sink = {0};
    st = encode(&sink, format, &p, bits, quality, reason);
    free(p.owned);
    if (st) {
        free(sink.data);
        return fail(fn, NULL, st, reason);
    }
    *data = sink.data, *size = sink.size;
    return lumen__set_error(LUMEN_OK, NULL);
}

void lumen_io_free(void *data) { free(data); }
