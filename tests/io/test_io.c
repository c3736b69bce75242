/* lumen_io: round trips; decoding of files this test makes with libpng / libjpeg directly,
 * checked against values computed here (PNG) or this test's own libjpeg decode (JPEG), and probing
 * them (the same size and channels); bad files and arguments (status, *out NULL, message, no file
 * left behind), probed too; decompression bombs probed; writing through symlinks; threads.
 * Usage: test_io DIR (a scratch directory, created and emptied). */
#define _GNU_SOURCE
#include <stdio.h> /* before jpeglib.h */

#include <lumen/lumen_io.h>

#include <dirent.h>
#include <errno.h>
#include <jpeglib.h>
#include <math.h>
#include <png.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness.h"

static const char *dir;

static char *path_of(const char *name) { /* static buffers, in rotation */
    static __thread char bufs[4][4096];
    static __thread int i;
    char *p = bufs[i++ % 4];
    snprintf(p, sizeof bufs[0], "%s/%s", dir, name);
    return p;
}

static uint8_t *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return *n = 0, NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(*n + 1);
    if (fread(d, 1, *n, f) != *n) *n = 0;
    fclose(f);
    return d;
}

static void write_all(const char *path, const void *d, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(d, 1, n, f) != n || fclose(f))
        printf("FAIL: cannot write %s\n", path), exit(1);
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* Files in dir whose name holds ".lumen-" (lumen_io_write's temporary files). */
static int temporaries(void) {
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".lumen-") != NULL;
    if (d) closedir(d);
    return n;
}

/* The checks every failure must pass: status, no image, a message naming the function. */
#define CHECK_FAIL(call, want, out, fn)                                                         \
  do {                                                                                          \
    lumen_status s_ = (call);                                                                   \
    CHECK(s_ == (want), "%s -> %s, want %s (%s)", #call, lumen_status_string(s_),               \
          lumen_status_string(want), lumen_last_error());                                       \
    CHECK((out) == NULL, "%s: output not NULL", #call);                                         \
    CHECK(strncmp(lumen_last_error(), fn ": ", strlen(fn) + 2) == 0, "%s: message '%s'", #call, \
          lumen_last_error());                                                                  \
  } while (0)

/* 1 if img is w x h x c with the tightly packed pixels want; else prints the first difference. */
static int same(lumen_image *img, int w, int h, int c, const uint8_t *want) {
    uint8_t *p;
    if (!img || lumen_image_map(img, LUMEN_ACCESS_READ, &p)) return printf("  no image\n"), 0;
    if (lumen_image_width(img) != w || lumen_image_height(img) != h ||
        lumen_image_channels(img) != c)
        return printf("  got %dx%dx%d, want %dx%dx%d\n", lumen_image_width(img),
                      lumen_image_height(img), lumen_image_channels(img), w, h, c),
               0;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w * c; i++)
            if (p[y * lumen_image_stride(img) + i] != want[(size_t)y * w * c + i])
                return printf("  (%d,%d) ch %d: got %d, want %d\n", i / c, y, i % c,
                              p[y * lumen_image_stride(img) + i], want[(size_t)y * w * c + i]),
                       0;
    return 1;
}

/* Tightly packed copy of a t_image's pixels. */
static uint8_t *tight(const t_image *t) {
    uint8_t *d = malloc((size_t)t->ref.w * t->ref.h * t->ref.c);
    for (int y = 0; y < t->ref.h; y++)
        memcpy(d + (size_t)y * t->ref.w * t->ref.c, t->mem + y * t->ref.stride,
               (size_t)t->ref.w * t->ref.c);
    return d;
}

/* lumen_io_probe on path p, and lumen_io_probe_memory on its bytes: both succeed with format and
 * the size and channels of img (what lumen_io_read gave for p), and leave no message. */
static void check_probe(const char *p, lumen_image *img, lumen_io_format format, const char *what) {
    lumen_io_info info, mem;
    memset(&info, 0x55, sizeof info), memset(&mem, 0x55, sizeof mem);
    CHECK_OK(lumen_io_probe(p, &info));
    CHECK(lumen_last_error()[0] == 0, "%s: probe left '%s'", what, lumen_last_error());
    size_t n;
    uint8_t *d = read_all(p, &n);
    CHECK_OK(lumen_io_probe_memory(d, n, &mem));
    CHECK(img && info.format == format && info.width == lumen_image_width(img) &&
              info.height == lumen_image_height(img) && info.channels == lumen_image_channels(img),
          "%s: probe gives %s %dx%dx%d, read %dx%dx%d", what,
          lumen_io_format_name(info.format) ? lumen_io_format_name(info.format) : "?", info.width,
          info.height, info.channels, lumen_image_width(img), lumen_image_height(img),
          lumen_image_channels(img));
    CHECK(memcmp(&info, &mem, sizeof info) == 0, "%s: probe_memory %dx%dx%d != probe", what,
          mem.width, mem.height, mem.channels);
    free(d);
}

/* ---- PNG and JPEG files made and read with libpng / libjpeg directly ---------------------- */

typedef struct {
    int w, h, type, depth, interlace;
    const uint8_t *rows; /* PNG row bytes (packed, big-endian), h rows of rowbytes */
    size_t rowbytes;
    const png_color *palette;
    int npalette;
    const uint8_t *trans; /* palette alpha */
    int ntrans;
    const png_color_16 *trans_color; /* gray / RGB tRNS */
    int text;                        /* add a tEXt chunk */
} png_spec;

static void make_png(const char *path, const png_spec *s) {
    FILE *f = fopen(path, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (!f || setjmp(png_jmpbuf(png))) printf("FAIL: make_png %s\n", path), exit(1);
    png_init_io(png, f);
    png_set_IHDR(png, info, s->w, s->h, s->depth, s->type, s->interlace, 0, 0);
    if (s->palette) png_set_PLTE(png, info, s->palette, s->npalette);
    if (s->trans || s->trans_color)
        png_set_tRNS(png, info, s->trans, s->ntrans, (png_color_16p)s->trans_color);
    if (s->text) {
        png_text t = {
            .compression = PNG_TEXT_COMPRESSION_NONE, .key = "Comment", .text = "made by test_io"};
        png_set_text(png, info, &t, 1);
    }
    png_write_info(png, info);
    png_bytep *rows = malloc(s->h * sizeof *rows);
    for (int y = 0; y < s->h; y++) rows[y] = (png_bytep)s->rows + y * s->rowbytes;
    if (s->interlace) png_set_interlace_handling(png);
    png_write_image(png, rows);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(rows);
    fclose(f);
}

/* Reads a PNG as stored (no transformations): rows of png_get_rowbytes bytes. */
static uint8_t *ref_png_read(const char *path, int *w, int *h, int *type, int *depth) {
    FILE *f = fopen(path, "rb");
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (!f || setjmp(png_jmpbuf(png))) printf("FAIL: ref_png_read %s\n", path), exit(1);
    png_init_io(png, f);
    png_read_info(png, info);
    *w = png_get_image_width(png, info), *h = png_get_image_height(png, info);
    *type = png_get_color_type(png, info), *depth = png_get_bit_depth(png, info);
    size_t rb = png_get_rowbytes(png, info);
    uint8_t *d = malloc(rb * *h);
    png_bytep *rows = malloc(*h * sizeof *rows);
    for (int y = 0; y < *h; y++) rows[y] = d + y * rb;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    fclose(f);
    return d;
}

static void make_jpeg(const char *path, int w, int h, int comps, J_COLOR_SPACE cs, int quality,
                      int progressive, const uint8_t *px) {
    struct jpeg_compress_struct e;
    struct jpeg_error_mgr err;
    FILE *f = fopen(path, "wb");
    e.err = jpeg_std_error(&err);
    jpeg_create_compress(&e);
    jpeg_stdio_dest(&e, f);
    e.image_width = w, e.image_height = h, e.input_components = comps, e.in_color_space = cs;
    jpeg_set_defaults(&e);
    jpeg_set_quality(&e, quality, TRUE);
    if (progressive) jpeg_simple_progression(&e);
    jpeg_start_compress(&e, TRUE);
    while (e.next_scanline < e.image_height) {
        JSAMPROW row = (JSAMPROW)px + (size_t)e.next_scanline * w * comps;
        jpeg_write_scanlines(&e, &row, 1);
    }
    jpeg_finish_compress(&e);
    jpeg_destroy_compress(&e);
    fclose(f);
}

/* libjpeg's default decode (gray stays gray, YCbCr becomes RGB), tightly packed. */
static uint8_t *ref_jpeg_decode(const char *path, int *w, int *h, int *c) {
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr err;
    FILE *f = fopen(path, "rb");
    d.err = jpeg_std_error(&err);
    jpeg_create_decompress(&d);
    jpeg_stdio_src(&d, f);
    jpeg_read_header(&d, TRUE);
    jpeg_start_decompress(&d);
    *w = d.output_width, *h = d.output_height, *c = d.output_components;
    uint8_t *px = malloc((size_t)*w * *h * *c);
    while (d.output_scanline < d.output_height) {
        JSAMPROW row = px + (size_t)d.output_scanline * *w * *c;
        jpeg_read_scanlines(&d, &row, 1);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    fclose(f);
    return px;
}

/* ---- Tests -------------------------------------------------------------------------------- */

static void test_formats(void) {
    CHECK(lumen_io_format_from_path("a.png") == LUMEN_IO_FORMAT_PNG, "a.png");
    CHECK(lumen_io_format_from_path("dir.x/A.PnG") == LUMEN_IO_FORMAT_PNG, "A.PnG");
    CHECK(lumen_io_format_from_path("b.jpg") == LUMEN_IO_FORMAT_JPEG, "b.jpg");
    CHECK(lumen_io_format_from_path("b.JPEG") == LUMEN_IO_FORMAT_JPEG, "b.JPEG");
    CHECK(lumen_io_format_from_path("b.bmp") == LUMEN_IO_FORMAT_AUTO, "b.bmp");
    CHECK(lumen_io_format_from_path("png") == LUMEN_IO_FORMAT_AUTO, "png");
    CHECK(lumen_io_format_from_path("x.png/b") == LUMEN_IO_FORMAT_AUTO, "x.png/b");
    CHECK(lumen_io_format_from_path("b.png.gz") == LUMEN_IO_FORMAT_AUTO, "b.png.gz");
    CHECK(lumen_io_format_from_path(NULL) == LUMEN_IO_FORMAT_AUTO, "NULL");
    CHECK(strcmp(lumen_io_format_name(LUMEN_IO_FORMAT_PNG), "png") == 0, "name png");
    CHECK(strcmp(lumen_io_format_name(LUMEN_IO_FORMAT_JPEG), "jpeg") == 0, "name jpeg");
    CHECK(lumen_io_format_name(LUMEN_IO_FORMAT_AUTO) == NULL, "name auto");
    CHECK(lumen_io_format_name((lumen_io_format)7) == NULL, "name 7");
}

/* PNG 8 bit: exact through a file and through memory; the file's bytes are the encoded bytes.
 * 16 bit: samples v * 257 for libpng, v again for lumen_io. Padded strides. */
static void test_png_round_trips(void) {
    static const int sizes[][2] = {{1, 1}, {17, 5}, {333, 211}};
    for (int s = 0; s < 3; s++)
        for (int c = 1; c <= 4; c++) {
            if (c == 2) continue;
            int w = sizes[s][0], h = sizes[s][1];
            t_image t = t_image_new(w, h, c, s == 1 ? 0 : 13, 1);
            uint8_t *want = tight(&t);
            const char *p = path_of("rt.png");
            lumen_image *img = NULL;
            CHECK_OK(lumen_io_write(p, t.img, NULL));
            CHECK_OK(lumen_io_read(p, &img));
            CHECK(same(img, w, h, c, want), "png %dx%dx%d", w, h, c);
            check_probe(p, img, LUMEN_IO_FORMAT_PNG, "png round trip");
            lumen_image_destroy(img);
            size_t n, fn;
            void *data = NULL;
            uint8_t *file = read_all(p, &fn);
            CHECK_OK(lumen_io_encode(t.img, NULL, &data, &n));
            CHECK(data && n == fn && memcmp(data, file, n) == 0, "encode == write %dx%dx%d", w, h,
                  c);
            img = NULL;
            CHECK_OK(lumen_io_decode(data, n, &img));
            CHECK(same(img, w, h, c, want), "decode %dx%dx%d", w, h, c);
            lumen_image_destroy(img);
            lumen_io_free(data);
            free(file);

            lumen_io_options o16 = {.png_bits = 16};
            CHECK_OK(lumen_io_write(p, t.img, &o16));
            int rw, rh, type, depth;
            uint8_t *raw = ref_png_read(p, &rw, &rh, &type, &depth);
            static const int types[] = {0, PNG_COLOR_TYPE_GRAY, 0, PNG_COLOR_TYPE_RGB,
                                        PNG_COLOR_TYPE_RGBA};
            CHECK(rw == w && rh == h && depth == 16 && type == types[c], "16-bit header");
            int bad = 0;
            for (size_t i = 0; i < (size_t)w * h * c; i++)
                bad += (raw[2 * i] << 8 | raw[2 * i + 1]) != want[i] * 257;
            CHECK(bad == 0, "16-bit samples != v * 257: %d", bad);
            img = NULL;
            CHECK_OK(lumen_io_read(p, &img));
            CHECK(same(img, w, h, c, want), "16-bit read back %dx%dx%d", w, h, c);
            check_probe(p, img, LUMEN_IO_FORMAT_PNG, "png 16-bit round trip");
            lumen_image_destroy(img);
            free(raw);
            free(want);
            t_image_free(&t);
        }
}

/* BGR(A) images are written in the files' R, G, B (A) order: read back as RGB(A) with B and R
 * swapped; their JPEG is the RGB image's, byte for byte. */
/* 16-bit images: written as 16-bit PNG (every sample, checked with libpng), read back whole with
 * LUMEN_IO_KEEP_16BIT; refused as JPEG, with png_bits 8, and float images anywhere. */
static void test_16bit_write(void) {
    const char *p = path_of("w16.png");
    static const int types[] = {0, PNG_COLOR_TYPE_GRAY, 0, PNG_COLOR_TYPE_RGB,
                                PNG_COLOR_TYPE_RGB_ALPHA};
    for (int c = 1; c <= 4; c++) {
        if (c == 2) continue;
        int w = 31, h = 7;
        lumen_image *img = NULL, *back = NULL;
        uint8_t *px = NULL, *bpx = NULL;
        CHECK_OK(lumen_image_create_format(w, h, (lumen_format)(0x1000 | c), &img));
        CHECK_OK(lumen_image_map(img, LUMEN_ACCESS_WRITE, &px));
        size_t st = lumen_image_stride(img);
        for (int y = 0; y < h; y++)
            for (int i = 0; i < w * c; i++) ((uint16_t *)(px + y * st))[i] = (uint16_t)t_rand();
        CHECK_OK(lumen_io_write(p, img, NULL));
        int rw, rh, type, depth, bad = 0;
        uint8_t *d = ref_png_read(p, &rw, &rh, &type, &depth);
        CHECK(rw == w && rh == h && depth == 16 && type == types[c], "16-bit image header");
        for (int y = 0; y < h; y++)
            for (int i = 0; i < w * c; i++) {
                unsigned v = ((uint16_t *)(px + y * st))[i];
                const uint8_t *s = d + ((size_t)y * w * c + i) * 2; /* big-endian */
                bad += ((unsigned)s[0] << 8 | s[1]) != v;
            }
        CHECK(bad == 0, "16-bit image, %d channels: %d samples differ in the file", c, bad);
        free(d);
        CHECK_OK(lumen_io_read_flags(p, LUMEN_IO_KEEP_16BIT, &back));
        CHECK_OK(lumen_image_map(back, LUMEN_ACCESS_READ, &bpx));
        for (int y = 0; bpx && y < h; y++)
            bad += memcmp(px + y * st, bpx + y * lumen_image_stride(back), (size_t)w * c * 2) != 0;
        CHECK(bad == 0, "16-bit round trip, %d channels", c);
        lumen_io_options o8 = {.png_bits = 8}, jpg = {.format = LUMEN_IO_FORMAT_JPEG};
        void *data = NULL;
        size_t size = 0;
        CHECK(lumen_io_encode(img, &o8, &data, &size) == LUMEN_ERROR_INVALID_ARGUMENT,
              "png_bits 8 for a 16-bit image");
        if (c != 4)
            CHECK(lumen_io_encode(img, &jpg, &data, &size) == LUMEN_ERROR_UNSUPPORTED_FORMAT,
                  "JPEG of a 16-bit image");
        lumen_image_destroy(img), lumen_image_destroy(back);
    }
    lumen_image *f = NULL, *img = NULL;
    void *data = NULL;
    size_t size = 0;
    CHECK_OK(lumen_image_create_format(4, 4, LUMEN_FORMAT_RGBF32, &f));
    CHECK(lumen_io_encode(f, NULL, &data, &size) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
              strstr(lumen_last_error(), "float"),
          "float image: %s", lumen_last_error());
    lumen_image_destroy(f);
    CHECK(lumen_io_read_flags(p, 2, &img) == LUMEN_ERROR_INVALID_ARGUMENT && !img, "flags 2");
    CHECK(lumen_io_decode_flags(&size, 1, 4, &img) == LUMEN_ERROR_INVALID_ARGUMENT, "flags 4");
}

static void test_bgr_write(void) {
    for (int c = 3; c <= 4; c++) {
        int w = 37, h = 11;
        t_image t = t_image_new(w, h, c, 5, 1);
        lumen_image *bgr = NULL, *img = NULL;
        CHECK_OK(lumen_image_wrap_format(
            t.mem, w, h, c == 3 ? LUMEN_FORMAT_BGR8 : LUMEN_FORMAT_BGRA8, t.ref.stride, &bgr));
        uint8_t *want = tight(&t);
        for (size_t i = 0; i < (size_t)w * h; i++) {
            uint8_t b = want[i * c];
            want[i * c] = want[i * c + 2], want[i * c + 2] = b;
        }
        const char *p = path_of("bgr.png");
        for (int bits = 8; bits <= 16; bits += 8) {
            lumen_io_options o = {.png_bits = bits};
            CHECK_OK(lumen_io_write(p, bgr, &o));
            CHECK_OK(lumen_io_read(p, &img));
            CHECK(same(img, w, h, c, want), "BGR%s png %d-bit read back as RGB", c == 4 ? "A" : "",
                  bits);
            lumen_image_destroy(img);
            img = NULL;
        }
        if (c == 3) {
            lumen_image *rgb = NULL;
            CHECK_OK(lumen_image_wrap(want, w, h, 3, (size_t)w * 3, &rgb));
            void *a = NULL, *b = NULL;
            size_t na = 0, nb = 0;
            lumen_io_options jpg = {.format = LUMEN_IO_FORMAT_JPEG};
            CHECK_OK(lumen_io_encode(bgr, &jpg, &a, &na));
            CHECK_OK(lumen_io_encode(rgb, &jpg, &b, &nb));
            CHECK(na == nb && na && memcmp(a, b, na) == 0, "BGR jpeg != the RGB image's");
            lumen_io_free(a), lumen_io_free(b);
            lumen_image_destroy(rgb);
        }
        lumen_image_destroy(bgr);
        free(want);
        t_image_free(&t);
    }
}

/* Planar images are written as their interleaved equivalent (BGR orders as RGB files, 16-bit
 * too), 8- and 16-bit; a JPEG of a planar image is that of the interleaved one. */
static void test_planar_write(void) {
    static const lumen_format formats[] = {LUMEN_FORMAT_RGB8_PLANAR, LUMEN_FORMAT_BGRA8_PLANAR,
                                           LUMEN_FORMAT_BGRA16_PLANAR};
    for (int fi = 0; fi < 3; fi++) {
        lumen_format f = formats[fi];
        int w = 29, h = 13, c = lumen_format_channels(f), es = lumen_format_element_size(f);
        int bgr = f != LUMEN_FORMAT_RGB8_PLANAR;
        size_t stride = (size_t)(w + 3) * es, plane = stride * (h + 1);
        uint8_t *mem = malloc(plane * c), *want = malloc((size_t)w * h * c * es);
        for (size_t i = 0; i < plane * c; i++) mem[i] = (uint8_t)t_rand();
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int k = 0; k < c; k++) { /* file channel k: plane k, or B<->R swapped */
                    int pk = bgr && k < 3 ? 2 - k : k;
                    memcpy(want + (((size_t)y * w + x) * c + k) * es,
                           mem + pk * plane + y * stride + (size_t)x * es, (size_t)es);
                }
        lumen_image *img = NULL, *back = NULL;
        CHECK_OK(lumen_image_wrap_planar(mem, w, h, f, stride, plane, &img));
        const char *p = path_of("planar.png");
        CHECK_OK(lumen_io_write(p, img, NULL));
        CHECK_OK(lumen_io_read_flags(p, LUMEN_IO_KEEP_16BIT, &back));
        uint8_t *px = NULL;
        int ok = back && lumen_image_width(back) == w && lumen_image_height(back) == h &&
                 lumen_image_channels(back) == c &&
                 lumen_format_element_size(lumen_image_format(back)) == es &&
                 !lumen_image_map(back, LUMEN_ACCESS_READ, &px);
        for (int y = 0; ok && y < h; y++)
            ok = !memcmp(px + y * lumen_image_stride(back), want + (size_t)y * w * c * es,
                         (size_t)w * c * es);
        CHECK(ok, "%s written and read back", lumen_format_name(f));
        lumen_image_destroy(back);
        if (f == LUMEN_FORMAT_RGB8_PLANAR) {
            lumen_image *il = NULL;
            CHECK_OK(lumen_image_wrap(want, w, h, 3, (size_t)w * 3, &il));
            void *a = NULL, *b = NULL;
            size_t na = 0, nb = 0;
            lumen_io_options jpg = {.format = LUMEN_IO_FORMAT_JPEG};
            CHECK_OK(lumen_io_encode(img, &jpg, &a, &na));
            CHECK_OK(lumen_io_encode(il, &jpg, &b, &nb));
            CHECK(na == nb && na && memcmp(a, b, na) == 0, "planar jpeg != the interleaved's");
            lumen_io_free(a), lumen_io_free(b);
            lumen_image_destroy(il);
        }
        lumen_image_destroy(img);
        free(mem), free(want);
    }
}

/* Files made by libpng here: each decoded value computed here from the stored samples. */
static void test_png_decoding(void) {
    const char *p = path_of("made.png");
    enum { W = 23, H = 9 };
    uint8_t rows[H * W * 8], want[H * W * 4];
    uint16_t want16[H * W * 4];
    lumen_image *img;
    /* 1, 2, 4-bit gray: g * 255 / (2^d - 1); also interlaced. */
    for (int depth = 1; depth <= 4; depth *= 2)
        for (int il = 0; il < 2; il++) {
            size_t rb = (W * depth + 7) / 8;
            memset(rows, 0, sizeof rows);
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    int g = t_rand() % (1 << depth), bit = x * depth;
                    rows[y * rb + bit / 8] |= g << (8 - depth - bit % 8);
                    want[y * W + x] = g * 255 / ((1 << depth) - 1);
                }
            png_spec s = {W, H, PNG_COLOR_TYPE_GRAY, depth, il, rows, rb};
            make_png(p, &s);
            img = NULL;
            CHECK_OK(lumen_io_read(p, &img));
            CHECK(same(img, W, H, 1, want), "gray %d-bit interlace %d", depth, il);
            check_probe(p, img, LUMEN_IO_FORMAT_PNG, "gray < 8 bit");
            lumen_image_destroy(img);
        }
    /* Palette, 8 and 2 bit, with tRNS for the first entries: RGBA; without: RGB. */
    png_color pal[256];
    uint8_t trans[256];
    for (int i = 0; i < 256; i++)
        pal[i] = (png_color){t_rand(), t_rand(), t_rand()}, trans[i] = t_rand();
    for (int depth = 2; depth <= 8; depth += 6)
        for (int ntrans = 0; ntrans <= 3; ntrans += 3) {
            size_t rb = (W * depth + 7) / 8;
            int c = ntrans ? 4 : 3;
            memset(rows, 0, sizeof rows);
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    int k = t_rand() % (1 << depth), bit = x * depth;
                    rows[y * rb + bit / 8] |= k << (8 - depth - bit % 8);
                    uint8_t *o = want + (y * W + x) * c;
                    o[0] = pal[k].red, o[1] = pal[k].green, o[2] = pal[k].blue;
                    if (c == 4) o[3] = k < ntrans ? trans[k] : 255;
                }
            png_spec s = {W,   H,          PNG_COLOR_TYPE_PALETTE, depth, 0, rows, rb,
                          pal, 1 << depth, ntrans ? trans : NULL,  ntrans};
            make_png(p, &s);
            img = NULL;
            CHECK_OK(lumen_io_read(p, &img));
            CHECK(same(img, W, H, c, want), "palette %d-bit, %d tRNS", depth, ntrans);
            check_probe(p, img, LUMEN_IO_FORMAT_PNG, ntrans ? "palette + tRNS" : "palette");
            lumen_image_destroy(img);
        }
    /* Every colour type at 8 and 16 bits (16: arbitrary values -> round(v / 257)); gray+alpha
     * becomes RGBA; gray and RGB with a tRNS colour get alpha 0 on that colour, else 255. */
    static const int types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                PNG_COLOR_TYPE_RGBA};
    for (int ti = 0; ti < 4; ti++)
        for (int depth = 8; depth <= 16; depth += 8)
            for (int trns = 0; trns < 2; trns++) {
                int type = types[ti], in = ti + 1, alpha = type & PNG_COLOR_MASK_ALPHA;
                if (trns && alpha) continue;
                int c = in == 1 && !trns ? 1 : in == 3 && !trns ? 3 : 4, bytes = depth / 8;
                size_t rb = (size_t)W * in * bytes;
                png_color_16 key = {0};
                for (int y = 0; y < H; y++)
                    for (int x = 0; x < W; x++) {
                        unsigned v[4], key_px = trns && (x + y) % 3 == 0;
                        for (int k = 0; k < in; k++) v[k] = t_rand() % (1u << depth);
                        if (trns && x == 0 && y == 0) /* the key colour: pixel (0, 0) */
                            key.gray = key.red = v[0], key.green = v[1 % in], key.blue = v[2 % in];
                        if (key_px) /* repeat the key */
                            v[0] = key.gray, v[1 % in] = in > 1 ? key.green : v[0],
                            v[2 % in] = in > 1 ? key.blue : v[0];
                        uint8_t *r = rows + y * rb + (size_t)x * in * bytes;
                        for (int k = 0; k < in; k++)
                            if (bytes == 2)
                                r[2 * k] = v[k] >> 8, r[2 * k + 1] = v[k] & 255;
                            else
                                r[k] = v[k];
                        uint8_t *o = want + (y * W + x) * c;
                        unsigned is_key = trns && v[0] == key.red && v[1 % in] == key.green &&
                                          v[2 % in] == key.blue;
                        for (int k = 0; k < c; k++) {
                            /* output channel k <- input sample (gray repeats; alpha last) */
                            int src = c == 4 && k == 3 ? (alpha ? in - 1 : -1) : in >= 3 ? k : 0;
                            unsigned s = src < 0 ? (is_key ? 0 : (1u << depth) - 1) : v[src];
                            o[k] = depth == 16 ? (s + 128) / 257 : s;
                            want16[(y * W + x) * c + k] = (uint16_t)s;
                        }
                    }
                png_spec s = {W, H, type, depth, 0, rows, rb};
                s.trans_color = trns ? &key : NULL;
                s.text = 1;
                make_png(p, &s);
                img = NULL;
                CHECK_OK(lumen_io_read(p, &img));
                CHECK(same(img, W, H, c, want), "type %d, %d-bit, tRNS %d", type, depth, trns);
                check_probe(p, img, LUMEN_IO_FORMAT_PNG, "colour types and depths");
                lumen_image_destroy(img);
                /* LUMEN_IO_KEEP_16BIT: 16-bit files keep every sample, 8-bit ones stay 8-bit */
                img = NULL;
                CHECK_OK(lumen_io_read_flags(p, LUMEN_IO_KEEP_16BIT, &img));
                int es = lumen_format_element_size(lumen_image_format(img));
                uint8_t *px = NULL;
                CHECK(es == depth / 8 && lumen_image_channels(img) == c, "keep 16: %d-bit -> %d",
                      depth, es);
                CHECK_OK(lumen_image_map(img, LUMEN_ACCESS_READ, &px));
                int bad = 0;
                for (int y = 0; px && y < H; y++)
                    for (int i = 0; i < W * c; i++) {
                        const uint8_t *r = px + y * lumen_image_stride(img);
                        unsigned got = es == 2 ? ((const uint16_t *)r)[i] : r[i];
                        bad += got != (depth == 16 ? want16[y * W * c + i] : want[y * W * c + i]);
                    }
                CHECK(bad == 0, "keep 16: type %d, %d-bit, tRNS %d: %d samples differ", type, depth,
                      trns, bad);
                lumen_image_destroy(img);
            }
}

/* JPEG: lumen_io's decode equals this test's libjpeg decode (same default settings), for files
 * from libjpeg here and from lumen_io_write; quality 95 stays close to a smooth original. */
static void test_jpeg(void) {
    const char *p = path_of("made.jpg");
    static const int sizes[][2] = {{1, 1}, {17, 5}, {333, 211}};
    for (int s = 0; s < 3; s++)
        for (int c = 1; c <= 3; c += 2)
            for (int prog = 0; prog < 2; prog++) {
                int w = sizes[s][0], h = sizes[s][1], rw, rh, rc;
                uint8_t *px = malloc((size_t)w * h * c);
                for (size_t i = 0; i < (size_t)w * h * c; i++) px[i] = t_rand();
                make_jpeg(p, w, h, c, c == 1 ? JCS_GRAYSCALE : JCS_RGB, 80, prog, px);
                uint8_t *ref = ref_jpeg_decode(p, &rw, &rh, &rc);
                lumen_image *img = NULL;
                CHECK_OK(lumen_io_read(p, &img));
                CHECK(same(img, rw, rh, rc, ref), "jpeg %dx%dx%d progressive %d", w, h, c, prog);
                check_probe(p, img, LUMEN_IO_FORMAT_JPEG, "jpeg from libjpeg");
                lumen_image_destroy(img);
                free(ref);
                free(px);
            }
    for (int c = 1; c <= 3; c += 2) {
        int w = 333, h = 211, rw, rh, rc;
        t_image t = t_image_new(w, h, c, 7, 0);
        for (int y = 0; y < h; y++)
            for (int i = 0; i < w * c; i++)
                t.mem[y * t.ref.stride + i] =
                    (uint8_t)(128 + 90 * sin((i / c) / 23.0 + i % c) * cos(y / 17.0));
        uint8_t *orig = tight(&t);
        lumen_io_options q95 = {.jpeg_quality = 95};
        CHECK_OK(lumen_io_write(p, t.img, &q95));
        uint8_t *ref = ref_jpeg_decode(p, &rw, &rh, &rc);
        lumen_image *img = NULL;
        CHECK_OK(lumen_io_read(p, &img));
        CHECK(same(img, w, h, c, ref), "lumen_io_write jpeg %d channels read back", c);
        check_probe(p, img, LUMEN_IO_FORMAT_JPEG, "jpeg from lumen_io_write");
        double err = 0;
        for (size_t i = 0; i < (size_t)w * h * c; i++) err += abs(ref[i] - orig[i]);
        err /= (double)w * h * c;
        CHECK(err < 3.0, "quality 95: mean error %.2f", err);
        void *data = NULL;
        size_t n, fn;
        uint8_t *file = read_all(p, &fn);
        CHECK_OK(lumen_io_encode(
            t.img, &(lumen_io_options){.format = LUMEN_IO_FORMAT_JPEG, .jpeg_quality = 95}, &data,
            &n));
        CHECK(data && n == fn && memcmp(data, file, n) == 0, "jpeg encode == write");
        /* A lower quality makes a smaller file (the option is used). */
        size_t n20;
        void *d20 = NULL;
        CHECK_OK(
            lumen_io_encode(t.img, &(lumen_io_options){LUMEN_IO_FORMAT_JPEG, 0, 20}, &d20, &n20));
        CHECK(d20 && n20 < n, "quality 20: %zu bytes, 95: %zu", n20, n);
        lumen_io_free(d20);
        lumen_io_free(data);
        free(file);
        lumen_image_destroy(img);
        free(ref);
        free(orig);
        t_image_free(&t);
    }
    /* The format option wins over the extension; reading looks at the content. */
    t_image t = t_image_new(8, 8, 3, 0, 1);
    const char *q = path_of("really-a-png.jpg");
    CHECK_OK(lumen_io_write(q, t.img, &(lumen_io_options){.format = LUMEN_IO_FORMAT_PNG}));
    lumen_image *img = NULL;
    CHECK_OK(lumen_io_read(q, &img));
    CHECK(same(img, 8, 8, 3, t.mem), "png named .jpg");
    check_probe(q, img, LUMEN_IO_FORMAT_PNG, "png named .jpg");
    lumen_image_destroy(img);
    /* 4 channels: no JPEG, and no file. */
    t_image t4 = t_image_new(8, 8, 4, 0, 1);
    const char *r = path_of("rgba.jpg");
    CHECK_FAIL(lumen_io_write(r, t4.img, NULL), LUMEN_ERROR_UNSUPPORTED_FORMAT, NULL,
               "lumen_io_write");
    CHECK(!exists(r) && temporaries() == 0, "file left behind");
    void *data = (void *)1;
    size_t n = 1;
    CHECK_FAIL(
        lumen_io_encode(t4.img, &(lumen_io_options){.format = LUMEN_IO_FORMAT_JPEG}, &data, &n),
        LUMEN_ERROR_UNSUPPORTED_FORMAT, data, "lumen_io_encode");
    CHECK(n == 0, "size %zu", n);
    /* CMYK JPEG made by libjpeg: refused. */
    make_jpeg(p, 8, 8, 4, JCS_CMYK, 90, 0, t4.mem);
    img = (lumen_image *)1;
    CHECK_FAIL(lumen_io_read(p, &img), LUMEN_ERROR_UNSUPPORTED_FORMAT, img, "lumen_io_read");
    CHECK(strstr(lumen_last_error(), "CMYK") != NULL, "%s", lumen_last_error());
    lumen_io_info info = {LUMEN_IO_FORMAT_PNG, 1, 1, 1}, zero = {0};
    CHECK_FAIL(lumen_io_probe(p, &info), LUMEN_ERROR_UNSUPPORTED_FORMAT, NULL, "lumen_io_probe");
    CHECK(strstr(lumen_last_error(), "CMYK") != NULL, "%s", lumen_last_error());
    CHECK(memcmp(&info, &zero, sizeof info) == 0, "CMYK: info not zeroed");
    t_image_free(&t);
    t_image_free(&t4);
}

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
    }
    return ~c;
}

static size_t put_chunk(uint8_t *o, const char *type, const uint8_t *data, uint32_t n) {
    uint8_t *s = o;
    *o++ = n >> 24, *o++ = n >> 16, *o++ = n >> 8, *o++ = n;
    memcpy(o, type, 4);
    if (n) memcpy(o + 4, data, n);
    uint32_t crc = crc32_of(o, n + 4);
    o += 4 + n;
    *o++ = crc >> 24, *o++ = crc >> 16, *o++ = crc >> 8, *o++ = crc;
    return o - s;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A failed probe: *info zeroed, the message names the function. */
static void check_probe_failed(const lumen_io_info *info, const char *fn, const char *what) {
    static const lumen_io_info zero = {0};
    CHECK(memcmp(info, &zero, sizeof zero) == 0, "%s: info not zeroed", what);
    CHECK(strncmp(lumen_last_error(), fn, strlen(fn)) == 0 && lumen_last_error()[strlen(fn)] == ':',
          "%s: message '%s'", what, lumen_last_error());
}

/* Decodes n bytes from memory and, when via_file, from a file: must fail with want. Probes them
 * first (memory, and file when via_file, which agree): want too, or success when want is
 * CORRUPT_DATA (the damage is after the headers). Returns the probe's status. */
static lumen_status expect_bad(const uint8_t *d, size_t n, lumen_status want, const char *what,
                               int via_file) {
    lumen_io_info info = {LUMEN_IO_FORMAT_JPEG, 1, 1, 1};
    lumen_status ps = lumen_io_probe_memory(d, n, &info);
    CHECK(ps == want || (ps == LUMEN_OK && want == LUMEN_ERROR_CORRUPT_DATA),
          "%s (%zu bytes): probe %s, want %s (%s)", what, n, lumen_status_string(ps),
          lumen_status_string(want), lumen_last_error());
    if (ps) check_probe_failed(&info, "lumen_io_probe_memory", what);
    if (via_file) {
        const char *p = path_of("bad.png");
        write_all(p, d, n);
        lumen_io_info finfo = {LUMEN_IO_FORMAT_JPEG, 1, 1, 1};
        lumen_status fs = lumen_io_probe(p, &finfo);
        CHECK(fs == ps && memcmp(&finfo, &info, sizeof info) == 0,
              "%s (%zu bytes, file): probe %s, memory %s (%s)", what, n, lumen_status_string(fs),
              lumen_status_string(ps), lumen_last_error());
        if (fs) check_probe_failed(&finfo, "lumen_io_probe", what);
    }
    lumen_image *img = (lumen_image *)1;
    lumen_status st = lumen_io_decode(d, n, &img);
    CHECK(st == want && img == NULL, "%s (%zu bytes): %s, want %s (%s)", what, n,
          lumen_status_string(st), lumen_status_string(want), lumen_last_error());
    CHECK(strncmp(lumen_last_error(), "lumen_io_decode: ", 17) == 0, "%s", lumen_last_error());
    if (!via_file) return ps;
    const char *p = path_of("bad.png");
    img = (lumen_image *)1;
    st = lumen_io_read(p, &img);
    CHECK(st == want && img == NULL, "%s (%zu bytes, file): %s (%s)", what, n,
          lumen_status_string(st), lumen_last_error());
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "lumen_io_read: %s: ", p);
    CHECK(strncmp(lumen_last_error(), prefix, strlen(prefix)) == 0, "%s", lumen_last_error());
    return ps;
}

/* lumen_io_probe_memory agrees with lumen_io_decode on n bytes: a decoded image has the format,
 * size and channels the probe gives; a failed probe means the decode fails the same way (same
 * status and reason). */
static void probe_vs_decode(const uint8_t *d, size_t n, lumen_io_format format, const char *what) {
    lumen_io_info info;
    lumen_status ps = lumen_io_probe_memory(d, n, &info);
    char pmsg[1200];
    snprintf(pmsg, sizeof pmsg, "%s", lumen_last_error());
    lumen_image *img = NULL;
    lumen_status ds = lumen_io_decode(d, n, &img);
    if (ds == LUMEN_OK)
        CHECK(ps == LUMEN_OK && info.format == format && info.width == lumen_image_width(img) &&
                  info.height == lumen_image_height(img) &&
                  info.channels == lumen_image_channels(img),
              "%s: decoded %dx%dx%d, probe %s %dx%dx%d", what, lumen_image_width(img),
              lumen_image_height(img), lumen_image_channels(img), lumen_status_string(ps),
              info.width, info.height, info.channels);
    if (ps != LUMEN_OK)
        CHECK(ds == ps && strcmp(pmsg + strlen("lumen_io_probe_memory"),
                                 lumen_last_error() + strlen("lumen_io_decode")) == 0,
              "%s: probe '%s', decode '%s'", what, pmsg, lumen_last_error());
    lumen_image_destroy(img);
}

/* small.jpg with its frame (SOF0) declaring w x h; NULL (and a failed check) if it has none. */
static uint8_t *jpeg_declaring(int w, int h, size_t *n) {
    uint8_t *jpg = read_all(path_of("small.jpg"), n);
    size_t i = 2; /* the segments after SOI, to SOF0 */
    while (i + 9 < *n && jpg[i] == 0xff && jpg[i + 1] != 0xc0)
        i += 2 + (jpg[i + 2] << 8 | jpg[i + 3]);
    int found = i + 9 < *n && jpg[i + 1] == 0xc0;
    CHECK(found, "no SOF0");
    if (!found) {
        free(jpg);
        return NULL;
    }
    jpg[i + 5] = (uint8_t)(h >> 8), jpg[i + 6] = (uint8_t)(h & 255);
    jpg[i + 7] = (uint8_t)(w >> 8), jpg[i + 8] = (uint8_t)(w & 255);
    return jpg;
}

/* fn(arg) in a child allowed `extra` bytes of address space past this process's; its wait status
 * (exit 77: setrlimit failed), or -1 where /proc/self/statm cannot be read (no check then). */
static int run_limited(size_t extra, int (*fn)(void *), void *arg) {
    long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    int ok = statm && fscanf(statm, "%ld", &pages) == 1;
    if (statm) fclose(statm);
    if (!ok) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit as = {(rlim_t)pages * sysconf(_SC_PAGESIZE) + extra, RLIM_INFINITY};
        _exit(setrlimit(RLIMIT_AS, &as) ? 77 : fn(arg));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

typedef struct {
    const uint8_t *d;
    size_t n;
} bytes_t;

static int decode_status(void *arg) {
    bytes_t *b = arg;
    lumen_image *img = NULL;
    return lumen_io_decode(b->d, b->n, &img);
}

static void test_bad_files(void) {
    /* Small valid files: PNG (with a tEXt chunk) and JPEG. */
    enum { W = 9, H = 7 };
    uint8_t rows[W * H * 4];
    for (size_t i = 0; i < sizeof rows; i++) rows[i] = t_rand();
    png_spec s = {W, H, PNG_COLOR_TYPE_RGBA, 8, 0, rows, W * 4};
    s.text = 1;
    make_png(path_of("small.png"), &s);
    make_jpeg(path_of("small.jpg"), W, H, 3, JCS_RGB, 75, 0, rows);
    const char *names[] = {"small.png", "small.jpg"};
    for (int f = 0; f < 2; f++) {
        size_t n;
        uint8_t *good = read_all(path_of(names[f]), &n), *d = malloc(n);
        lumen_image *img = NULL;
        CHECK_OK(lumen_io_decode(good, n, &img));
        lumen_image_destroy(img);
        /* Every truncation: an empty file matches no signature; any other prefix is corrupt. */
        expect_bad(good, 0, LUMEN_ERROR_UNSUPPORTED_FORMAT, names[f], 1);
        size_t headers = 0; /* probing succeeds from the first length holding all the headers */
        for (size_t len = 1; len < n; len++) {
            lumen_status ps =
                expect_bad(good, len, LUMEN_ERROR_CORRUPT_DATA, names[f], len % 8 == 1);
            if (ps == LUMEN_OK && !headers) headers = len;
            CHECK((ps == LUMEN_OK) == (headers != 0), "%s cut to %zu: probe %s, OK from %zu",
                  names[f], len, lumen_status_string(ps), headers);
        }
        CHECK(strstr(lumen_last_error(), "truncated") != NULL, "%s", lumen_last_error());
        CHECK(headers > 8 && headers < n, "%s: probe OK from %zu of %zu bytes", names[f], headers,
              n);
        lumen_io_info info;
        CHECK_OK(lumen_io_probe_memory(good, headers, &info));
        CHECK(info.format == (f == 0 ? LUMEN_IO_FORMAT_PNG : LUMEN_IO_FORMAT_JPEG) &&
                  info.width == W && info.height == H && info.channels == (f == 0 ? 4 : 3),
              "%s headers only: %dx%dx%d", names[f], info.width, info.height, info.channels);
        printf("%s: probing needs the first %zu of %zu bytes\n", names[f], headers, n);
        /* JPEG entropy data cut short and closed with EOI (a damaged file that ends well). */
        size_t i = 2;
        while (f == 1 && i + 4 < n && good[i + 1] != 0xda)
            i += 2 + (good[i + 2] << 8 | good[i + 3]);
        for (size_t k = i + 2 + (good[i + 2] << 8 | good[i + 3]); f == 1 && k < n - 2; k++) {
            memcpy(d, good, k);
            d[k] = 0xff, d[k + 1] = 0xd9;
            expect_bad(d, k + 2, LUMEN_ERROR_CORRUPT_DATA, "JPEG cut + EOI", 0);
        }
        /* Every byte flipped: PNG fails (signature, or CRCs); JPEG may decode, never crashes. */
        int failed = 0;
        for (size_t i = 0; i < n; i++) {
            memcpy(d, good, n);
            d[i] ^= 0xff;
            img = (lumen_image *)1;
            lumen_status st = lumen_io_decode(d, n, &img);
            CHECK((st == LUMEN_OK) == (img != NULL), "flip %zu: %d", i, st);
            if (st) CHECK(strncmp(lumen_last_error(), "lumen_io_decode: ", 17) == 0, "message");
            if (f == 0)
                CHECK(st == LUMEN_ERROR_CORRUPT_DATA ||
                          (i < 8 && st == LUMEN_ERROR_UNSUPPORTED_FORMAT),
                      "png byte %zu flipped: %s", i, lumen_status_string(st));
            failed += st != LUMEN_OK;
            lumen_image_destroy(img);
            probe_vs_decode(d, n, f == 0 ? LUMEN_IO_FORMAT_PNG : LUMEN_IO_FORMAT_JPEG, "flip");
        }
        printf("%s: %zu bytes, %d of %zu flips detected\n", names[f], n, failed, n);
        /* Random content after the signature: corrupt (or unsupported), never OK. */
        size_t sig = f == 0 ? 8 : 3;
        for (int k = 0; k < 200; k++) {
            memcpy(d, good, sig);
            for (size_t i = sig; i < n; i++) d[i] = t_rand();
            img = (lumen_image *)1;
            lumen_status st = lumen_io_decode(d, n, &img);
            CHECK((st == LUMEN_ERROR_CORRUPT_DATA || st == LUMEN_ERROR_UNSUPPORTED_FORMAT) &&
                      img == NULL,
                  "%s signature + random: %s", names[f], lumen_status_string(st));
            probe_vs_decode(d, n, f == 0 ? LUMEN_IO_FORMAT_PNG : LUMEN_IO_FORMAT_JPEG, "random");
        }
        free(d);
        free(good);
    }
    /* Random bytes (no signature) and text: unsupported. */
    uint8_t noise[300];
    for (int k = 0; k < 50; k++) {
        for (size_t i = 0; i < sizeof noise; i++) noise[i] = t_rand();
        noise[0] = noise[0] == 0x89 || noise[0] == 0xff ? 0 : noise[0];
        expect_bad(noise, 1 + t_rand() % sizeof noise, LUMEN_ERROR_UNSUPPORTED_FORMAT, "noise",
                   k == 0);
    }
    const char *text = "just some text, not an image\n";
    expect_bad((const uint8_t *)text, strlen(text), LUMEN_ERROR_UNSUPPORTED_FORMAT, "text", 1);
    /* Nonexistent path, a directory: IO with the system's reason. */
    lumen_image *img = (lumen_image *)1;
    CHECK_FAIL(lumen_io_read(path_of("nonexistent.png"), &img), LUMEN_ERROR_IO, img,
               "lumen_io_read");
    CHECK(strstr(lumen_last_error(), "nonexistent.png: No such file or directory"), "%s",
          lumen_last_error());
    img = (lumen_image *)1;
    CHECK_FAIL(lumen_io_read(dir, &img), LUMEN_ERROR_IO, img, "lumen_io_read");
    CHECK(strstr(lumen_last_error(), "Is a directory"), "%s", lumen_last_error());
    /* Huge IHDR (100000 x 100000; 65535 x 65535 RGBA): unsupported, at once. */
    static const uint32_t dims[][3] = {{100000, 100000, 2}, {65535, 65535, 6}, {70000, 1, 0}};
    for (int k = 0; k < 3; k++) {
        uint8_t png[128], ihdr[13] = {0}, *o = png;
        memcpy(o, "\x89PNG\r\n\x1a\n", 8), o += 8;
        for (int b = 0; b < 4; b++)
            ihdr[b] = dims[k][0] >> (24 - 8 * b), ihdr[4 + b] = dims[k][1] >> (24 - 8 * b);
        ihdr[8] = 8, ihdr[9] = dims[k][2];
        o += put_chunk(o, "IHDR", ihdr, 13);
        o += put_chunk(o, "IDAT", (const uint8_t *)"\x78\x9c", 2);
        o += put_chunk(o, "IEND", NULL, 0);
        double t0 = now();
        expect_bad(png, o - png, LUMEN_ERROR_UNSUPPORTED_FORMAT, "huge IHDR", 1);
        CHECK(now() - t0 < 2.0, "huge IHDR took %.2f s", now() - t0);
        CHECK(strstr(lumen_last_error(), "over Lumen's limits"), "%s", lumen_last_error());
    }
    /* A chunk declaring 1.9 GB in a 49-byte file: corrupt, also in a child process limited to
     * 1 GiB more address space than it has (not OUT_OF_MEMORY, no crash). */
    uint8_t png[64], ihdr[13] = {0, 0, 0, 7, 0, 0, 0, 5, 8, 2}, *o = png;
    memcpy(o, "\x89PNG\r\n\x1a\n", 8), o += 8;
    o += put_chunk(o, "IHDR", ihdr, 13);
    memcpy(o, "\x76\0\0\0sPLTabcde", 13), o += 13;
    CHECK(expect_bad(png, o - png, LUMEN_ERROR_CORRUPT_DATA, "huge chunk", 1) ==
              LUMEN_ERROR_CORRUPT_DATA,
          "huge chunk: probe must fail (before the image data)");
    bytes_t chunk = {png, (size_t)(o - png)};
    int status = run_limited((size_t)1 << 30, decode_status, &chunk);
    CHECK(status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == LUMEN_ERROR_CORRUPT_DATA),
          "huge chunk, 1 GiB limit: status %d", status);
    /* Huge JPEG frame (60000 x 60000 RGB): the SOF patched in a valid file. */
    size_t n;
    uint8_t *jpg = jpeg_declaring(60000, 60000, &n);
    if (!jpg) return;
    double t0 = now();
    expect_bad(jpg, n, LUMEN_ERROR_UNSUPPORTED_FORMAT, "huge JPEG", 1);
    CHECK(now() - t0 < 2.0, "huge JPEG took %.2f s", now() - t0);
    free(jpg);
}

/* A PNG declaring w x h of colour type `type` (with a tRNS chunk when trns), with no pixels. */
static size_t bomb_png(uint8_t *png, uint32_t w, uint32_t h, int type, int trns) {
    uint8_t ihdr[13] = {0}, *o = png;
    memcpy(o, "\x89PNG\r\n\x1a\n", 8), o += 8;
    for (int b = 0; b < 4; b++) ihdr[b] = w >> (24 - 8 * b), ihdr[4 + b] = h >> (24 - 8 * b);
    ihdr[8] = 8, ihdr[9] = type;
    o += put_chunk(o, "IHDR", ihdr, 13);
    if (trns) o += put_chunk(o, "tRNS", (const uint8_t *)"\0\1\0\2\0\3", type == 0 ? 2 : 6);
    o += put_chunk(o, "IDAT", (const uint8_t *)"\x78\x9c", 2);
    o += put_chunk(o, "IEND", NULL, 0);
    return o - png;
}

typedef struct {
    uint8_t (*pngs)[128];
    size_t *sizes;
    const uint8_t *jpg;
    size_t jn;
} bombs_t;

/* How many of the bombs (and the file "bomb") fail to probe. */
static int probe_bombs(void *arg) {
    bombs_t *b = arg;
    lumen_io_info info;
    int bad = 0;
    for (int k = 0; k < 3; k++) bad += lumen_io_probe_memory(b->pngs[k], b->sizes[k], &info) != 0;
    bad += lumen_io_probe_memory(b->jpg, b->jn, &info) != 0;
    bad += lumen_io_probe(path_of("bomb"), &info) != 0;
    return bad;
}

/* Probing decompression bombs: small files declaring huge images within Lumen's limits give
 * their size at once, allocating nothing big (checked in a child with 256 MiB more address space
 * than it has). Probing a missing file, a directory: IO, as reading. */
static void test_probe(void) {
    uint8_t pngs[3][128];
    size_t sizes[3];
    sizes[0] = bomb_png(pngs[0], 40000, 40000, 0, 0); /* gray: 1.6 GB */
    sizes[1] = bomb_png(pngs[1], 20000, 20000, 2, 1); /* RGB + tRNS: RGBA, 1.6 GB */
    sizes[2] = bomb_png(pngs[2], 46111, 8464, 4, 0);  /* gray + alpha: RGBA, 1.56 GB */
    static const int want[3][3] = {{40000, 40000, 1}, {20000, 20000, 4}, {46111, 8464, 4}};
    size_t jn; /* the JPEG of the report: 8464 x 46111 RGB (1.17 GB), SOF patched in small.jpg */
    uint8_t *jpg = jpeg_declaring(8464, 46111, &jn);
    if (!jpg) return;
    for (int k = 0; k < 4; k++) {
        const uint8_t *d = k < 3 ? pngs[k] : jpg;
        size_t n = k < 3 ? sizes[k] : jn;
        int w = k < 3 ? want[k][0] : 8464, h = k < 3 ? want[k][1] : 46111,
            c = k < 3 ? want[k][2] : 3;
        lumen_io_format format = k < 3 ? LUMEN_IO_FORMAT_PNG : LUMEN_IO_FORMAT_JPEG;
        lumen_io_info info = {0}, finfo = {0};
        double t0 = now();
        CHECK_OK(lumen_io_probe_memory(d, n, &info));
        double t = now() - t0;
        CHECK(t < 0.5, "bomb %d: probe took %.2f s", k, t);
        CHECK(info.format == format && info.width == w && info.height == h && info.channels == c,
              "bomb %d (%zu bytes): %dx%dx%d, want %dx%dx%d", k, n, info.width, info.height,
              info.channels, w, h, c);
        const char *p = path_of("bomb");
        write_all(p, d, n);
        CHECK_OK(lumen_io_probe(p, &finfo));
        CHECK(memcmp(&info, &finfo, sizeof info) == 0, "bomb %d: file", k);
    }
    bombs_t all = {pngs, sizes, jpg, jn};
    int status = run_limited((size_t)256 << 20, probe_bombs, &all);
    CHECK(status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 0),
          "bombs probed with 256 MiB address space: status %d", status);
    free(jpg);
    /* Over the limits: unsupported, as reading (also checked in test_bad_files). */
    uint8_t png[128];
    expect_bad(png, bomb_png(png, 46341, 46341, 0, 0), LUMEN_ERROR_UNSUPPORTED_FORMAT,
               "gray over LUMEN_MAX_BYTES", 1);
    expect_bad(png, bomb_png(png, 23171, 23171, 2, 1), LUMEN_ERROR_UNSUPPORTED_FORMAT,
               "RGB + tRNS over LUMEN_MAX_BYTES as RGBA", 1);
    /* Missing file, directory: IO with the system's reason. */
    lumen_io_info info = {LUMEN_IO_FORMAT_PNG, 1, 1, 1};
    CHECK_FAIL(lumen_io_probe(path_of("nonexistent.png"), &info), LUMEN_ERROR_IO, NULL,
               "lumen_io_probe");
    CHECK(strstr(lumen_last_error(), "nonexistent.png: No such file or directory"), "%s",
          lumen_last_error());
    check_probe_failed(&info, "lumen_io_probe", "nonexistent");
    info = (lumen_io_info){LUMEN_IO_FORMAT_PNG, 1, 1, 1};
    CHECK_FAIL(lumen_io_probe(dir, &info), LUMEN_ERROR_IO, NULL, "lumen_io_probe");
    CHECK(strstr(lumen_last_error(), "Is a directory"), "%s", lumen_last_error());
    check_probe_failed(&info, "lumen_io_probe", "directory");
}

static void test_write_errors(void) {
    t_image t = t_image_new(333, 211, 3, 0, 1);
    /* Unknown extension, none: unsupported, nothing created. */
    const char *bad[] = {"x.bmp", "noext", "x.png.tmp", ".png"};
    for (int k = 0; k < 4; k++) {
        CHECK_FAIL(lumen_io_write(path_of(bad[k]), t.img, NULL), LUMEN_ERROR_UNSUPPORTED_FORMAT,
                   NULL, "lumen_io_write");
        CHECK(!exists(path_of(bad[k])), "%s created", bad[k]);
    }
    /* A directory that does not exist: IO, nothing anywhere. */
    CHECK_FAIL(lumen_io_write(path_of("nodir/x.png"), t.img, NULL), LUMEN_ERROR_IO, NULL,
               "lumen_io_write");
    CHECK(strstr(lumen_last_error(), "nodir/x.png: No such file or directory"), "%s",
          lumen_last_error());
    /* The target is a directory: IO, the directory stays. */
    mkdir(path_of("adir.png"), 0777);
    CHECK_FAIL(lumen_io_write(path_of("adir.png"), t.img, NULL), LUMEN_ERROR_IO, NULL,
               "lumen_io_write");
    struct stat st;
    CHECK(stat(path_of("adir.png"), &st) == 0 && S_ISDIR(st.st_mode), "directory replaced");
    rmdir(path_of("adir.png"));
    /* A write that fails midway (file size limit): IO, the old file intact. */
    const char *keep = path_of("keep.png");
    write_all(keep, "old content", 11);
    struct rlimit old, small;
    getrlimit(RLIMIT_FSIZE, &old);
    small = old;
    small.rlim_cur = 4096;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    CHECK_FAIL(lumen_io_write(keep, t.img, NULL), LUMEN_ERROR_IO, NULL, "lumen_io_write");
    CHECK(strstr(lumen_last_error(), "File too large"), "%s", lumen_last_error());
    CHECK_FAIL(lumen_io_write(keep, t.img, &(lumen_io_options){.format = LUMEN_IO_FORMAT_JPEG}),
               LUMEN_ERROR_IO, NULL, "lumen_io_write");
    setrlimit(RLIMIT_FSIZE, &old);
    size_t n;
    uint8_t *d = read_all(keep, &n);
    CHECK(n == 11 && memcmp(d, "old content", 11) == 0, "old file changed");
    free(d);
    CHECK(temporaries() == 0, "temporary file left behind");
    /* A successful write replaces the file and keeps its mode. */
    chmod(keep, 0640);
    CHECK_OK(lumen_io_write(keep, t.img, NULL));
    CHECK(stat(keep, &st) == 0 && (st.st_mode & 0777) == 0640, "mode %o", st.st_mode & 0777);
    lumen_image *img = NULL;
    CHECK_OK(lumen_io_read(keep, &img));
    CHECK(t_same_pixels(img, t.img), "replaced file");
    lumen_image_destroy(img);
    CHECK(temporaries() == 0, "temporary file left behind");
    /* Through a symlink (relative, to a file in a subdirectory, through another link): the link
     * stays, its final target is replaced (its mode kept), no temporary file left anywhere. */
    mkdir(path_of("sub"), 0777);
    char real[4200];
    snprintf(real, sizeof real, "%s", path_of("sub/real.png"));
    write_all(real, "old content", 11);
    chmod(real, 0604);
    CHECK(symlink("sub/real.png", path_of("link.png")) == 0, "symlink: %s", strerror(errno));
    CHECK(symlink("link.png", path_of("link2.jpg")) == 0, "symlink: %s", strerror(errno));
    for (int k = 0; k < 2; k++) {
        const char *link = path_of(k ? "link2.jpg" : "link.png"),
                   *to = k ? "link.png" : "sub/real.png";
        CHECK_OK(lumen_io_write(link, t.img, &(lumen_io_options){.format = LUMEN_IO_FORMAT_PNG}));
        char buf[256] = {0};
        CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode) &&
                  readlink(link, buf, sizeof buf - 1) > 0 && strcmp(buf, to) == 0,
              "%s: link replaced ('%s')", link, buf);
        CHECK(lstat(real, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0604,
              "target: mode %o", st.st_mode & 0777);
        img = NULL;
        CHECK_OK(lumen_io_read(real, &img));
        CHECK(t_same_pixels(img, t.img), "target not written through %s", link);
        lumen_image_destroy(img);
        CHECK(temporaries() == 0, "temporary file left behind");
        DIR *sd = opendir(path_of("sub"));
        int files = 0;
        for (struct dirent *e; sd && (e = readdir(sd));)
            files += e->d_name[0] != '.' || strstr(e->d_name, ".lumen-");
        if (sd) closedir(sd);
        CHECK(files == 1, "%d files in sub, want 1", files);
        write_all(real, "old content", 11);
    }
    /* A dangling symlink, a symlink to a directory, a loop: IO naming the path, nothing written. */
    static const char *const links[][3] = {
        {"dangling.png", "missing-target.png", "a symlink to a file that does not exist"},
        {"dirlink.png", "sub", "a symlink to a directory"},
        {"loop.png", "loop.png", "Too many levels of symbolic links"}};
    for (int k = 0; k < 3; k++) {
        const char *link = path_of(links[k][0]);
        CHECK(symlink(links[k][1], link) == 0, "symlink: %s", strerror(errno));
        CHECK_FAIL(lumen_io_write(link, t.img, NULL), LUMEN_ERROR_IO, NULL, "lumen_io_write");
        char want[4200];
        snprintf(want, sizeof want, "lumen_io_write: %s: %s", link, links[k][2]);
        CHECK(strncmp(lumen_last_error(), want, strlen(want)) == 0, "'%s', want '%s'",
              lumen_last_error(), want);
        char buf[256] = {0};
        CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode) &&
                  readlink(link, buf, sizeof buf - 1) > 0 && strcmp(buf, links[k][1]) == 0,
              "%s: link changed", link);
        CHECK(temporaries() == 0, "temporary file left behind");
        unlink(link);
    }
    CHECK(!exists(path_of("missing-target.png")), "dangling symlink's target created");
    CHECK(stat(path_of("sub"), &st) == 0 && S_ISDIR(st.st_mode), "directory replaced");
    size_t subn;
    uint8_t *subd = read_all(real, &subn);
    CHECK(subn == 11 && memcmp(subd, "old content", 11) == 0, "target changed by failed writes");
    free(subd);
    unlink(path_of("link.png")), unlink(path_of("link2.jpg")), unlink(real);
    CHECK(rmdir(path_of("sub")) == 0, "sub not empty: %s", strerror(errno));
    /* A name of 250 bytes (the temporary file's name must fit too). */
    char name[251];
    memset(name, 'n', 246), strcpy(name + 246, ".png");
    CHECK_OK(lumen_io_write(path_of(name), t.img, NULL));
    CHECK(exists(path_of(name)), "long name");
    unlink(path_of(name));
    t_image_free(&t);
}

static void test_arguments(void) {
    t_image t = t_image_new(4, 4, 3, 0, 1);
    lumen_image *img = (lumen_image *)1;
    uint8_t byte = 0;
    const char *p = path_of("args.png");
    CHECK_FAIL(lumen_io_read(NULL, &img), LUMEN_ERROR_INVALID_ARGUMENT, img, "lumen_io_read");
    CHECK_FAIL(lumen_io_read(p, NULL), LUMEN_ERROR_INVALID_ARGUMENT, NULL, "lumen_io_read");
    img = (lumen_image *)1;
    CHECK_FAIL(lumen_io_decode(NULL, 10, &img), LUMEN_ERROR_INVALID_ARGUMENT, img,
               "lumen_io_decode");
    CHECK_FAIL(lumen_io_decode(&byte, 1, NULL), LUMEN_ERROR_INVALID_ARGUMENT, NULL,
               "lumen_io_decode");
    lumen_io_info info = {LUMEN_IO_FORMAT_PNG, 1, 1, 1};
    CHECK_FAIL(lumen_io_probe(NULL, &info), LUMEN_ERROR_INVALID_ARGUMENT, NULL, "lumen_io_probe");
    check_probe_failed(&info, "lumen_io_probe", "probe NULL path");
    CHECK_FAIL(lumen_io_probe(p, NULL), LUMEN_ERROR_INVALID_ARGUMENT, NULL, "lumen_io_probe");
    info = (lumen_io_info){LUMEN_IO_FORMAT_PNG, 1, 1, 1};
    CHECK_FAIL(lumen_io_probe_memory(NULL, 10, &info), LUMEN_ERROR_INVALID_ARGUMENT, NULL,
               "lumen_io_probe_memory");
    check_probe_failed(&info, "lumen_io_probe_memory", "probe_memory NULL data");
    CHECK_FAIL(lumen_io_probe_memory(&byte, 1, NULL), LUMEN_ERROR_INVALID_ARGUMENT, NULL,
               "lumen_io_probe_memory");
    CHECK_FAIL(lumen_io_write(NULL, t.img, NULL), LUMEN_ERROR_INVALID_ARGUMENT, NULL,
               "lumen_io_write");
    CHECK_FAIL(lumen_io_write(p, NULL, NULL), LUMEN_ERROR_INVALID_ARGUMENT, NULL, "lumen_io_write");
    void *data = (void *)1;
    size_t size = 1;
    CHECK_FAIL(lumen_io_encode(NULL, NULL, &data, &size), LUMEN_ERROR_INVALID_ARGUMENT, data,
               "lumen_io_encode");
    CHECK_FAIL(lumen_io_encode(t.img, NULL, NULL, &size), LUMEN_ERROR_INVALID_ARGUMENT, NULL,
               "lumen_io_encode");
    data = (void *)1;
    CHECK_FAIL(lumen_io_encode(t.img, NULL, &data, NULL), LUMEN_ERROR_INVALID_ARGUMENT, data,
               "lumen_io_encode");
    static const lumen_io_options bad[] = {
        {.png_bits = 12},     {.png_bits = -1}, {.png_bits = 1}, {.jpeg_quality = 101},
        {.jpeg_quality = -1}, {.format = 7},    {.format = -1}};
    for (int k = 0; k < 7; k++) {
        CHECK_FAIL(lumen_io_write(p, t.img, &bad[k]), LUMEN_ERROR_INVALID_ARGUMENT, NULL,
                   "lumen_io_write");
        CHECK(!exists(p), "file created with bad options %d", k);
        data = (void *)1;
        CHECK_FAIL(lumen_io_encode(t.img, &bad[k], &data, &size), LUMEN_ERROR_INVALID_ARGUMENT,
                   data, "lumen_io_encode");
    }
    /* Boundaries accepted. */
    static const lumen_io_options good[] = {{.jpeg_quality = 1, .format = LUMEN_IO_FORMAT_JPEG},
                                            {.jpeg_quality = 100, .format = LUMEN_IO_FORMAT_JPEG},
                                            {.png_bits = 8},
                                            {.png_bits = 16}};
    for (int k = 0; k < 4; k++) {
        CHECK_OK(lumen_io_encode(t.img, &good[k], &data, &size));
        lumen_io_free(data);
    }
    CHECK(lumen_io_write(p, t.img, NULL) == LUMEN_OK && lumen_last_error()[0] == 0,
          "success leaves lumen_last_error() empty: '%s'", lumen_last_error());
    lumen_io_free(NULL);
    t_image_free(&t);
}

/* Threads reading and writing their own files, and failing, at the same time. */
enum { THREADS = 4, ROUNDS = 15 };

static void *worker(void *arg) {
    intptr_t id = (intptr_t)arg, bad = 0;
    uint8_t px[37 * 23 * 3];
    for (int r = 0; r < ROUNDS; r++) {
        for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i * 7 + id * 13 + r);
        lumen_image *src = NULL, *img = NULL;
        char name[64], missing[64];
        snprintf(name, sizeof name, "thread%d.%s", (int)id, r % 2 ? "png" : "jpg");
        snprintf(missing, sizeof missing, "missing-%d-%d.png", (int)id, r);
        const char *p = path_of(name), *m = path_of(missing);
        bad += lumen_image_wrap(px, 37, 23, 3, 37 * 3, &src) != LUMEN_OK;
        bad += lumen_io_write(p, src, NULL) != LUMEN_OK;
        bad += lumen_io_read(p, &img) != LUMEN_OK;
        if (r % 2) bad += !same(img, 37, 23, 3, px);
        lumen_image_destroy(img);
        img = NULL;
        bad += lumen_io_read(m, &img) != LUMEN_ERROR_IO || img;
        bad += strstr(lumen_last_error(), m) == NULL; /* this thread's own message */
        bad += lumen_io_decode(px, 5, &img) != LUMEN_ERROR_UNSUPPORTED_FORMAT;
        bad += lumen_io_decode("\x89PNG", 4, &img) != LUMEN_ERROR_CORRUPT_DATA;
        bad += strncmp(lumen_last_error(), "lumen_io_decode: truncated PNG", 30) != 0;
        lumen_image_destroy(src);
    }
    return (void *)bad;
}

static void test_threads(void) {
    pthread_t th[THREADS];
    for (intptr_t i = 0; i < THREADS; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++) {
        void *bad;
        pthread_join(th[i], &bad);
        CHECK(bad == NULL, "thread %d: %ld failures", i, (long)(intptr_t)bad);
    }
    CHECK(temporaries() == 0, "temporary file left behind");
}

int main(int argc, char **argv) {
    if (argc != 2) return printf("usage: test_io DIR\n"), 2;
    dir = argv[1];
    mkdir(dir, 0777);
    DIR *d = opendir(dir); /* empty it (our files only: no subdirectories) */
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' || strstr(e->d_name, ".lumen-")) unlink(path_of(e->d_name));
    if (d) closedir(d);
    t_seed();
    test_formats();
    test_png_round_trips();
    test_bgr_write();
    test_planar_write();
    test_16bit_write();
    test_png_decoding();
    test_jpeg();
    test_bad_files();
    test_probe();
    test_write_errors();
    test_arguments();
    test_threads();
    return t_summary();
}
