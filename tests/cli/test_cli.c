/* The lumen CLI: every subcommand on generated PNGs, outputs compared with the library's own
 * results, and every error path (exit code, one clear line, no crash).
 * Usage: test_cli PATH_TO_LUMEN WORK_DIR */
#include <lumen/lumen_io.h>

#include "cli_util.h"

/* Runs `cmd` (writing o.png) and checks its image equals want (the library's result), which it
 * frees. */
static void same_as_library(const char *cmd, lumen_image *want, const char *what) {
    CHECK(lumen(cmd) == 0, "%s: %s", cmd, err_text);
    lumen_image *got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "%s differs from the library", what);
    lumen_image_destroy(got), lumen_image_destroy(want);
}

/* run: each pipeline through the CLI equals the library call. */
static void check_run(void) {
    write_png("rgb.png", 67, 45, PNG_FORMAT_RGB);
    write_png("rgba.png", 40, 33, PNG_FORMAT_RGBA);
    write_png("gray.png", 51, 29, PNG_FORMAT_GRAY);
    lumen_image *rgb = read_png("rgb.png"), *rgba = read_png("rgba.png"),
                *gray = read_png("gray.png");
    lumen_image *want, *got;

    want = new_like(rgb, 0, 0, 0);
    lumen_gaussian_blur(NULL, rgb, want, 2.5f);
    CHECK(lumen("run gaussian_blur rgb.png o.png --param sigma=2.5") == 0, "run blur: %s",
          err_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "run gaussian_blur differs from the library");
    lumen_image_destroy(got);
    CHECK(lumen("run gaussian_blur rgb.png o.png -p sigma=2.5 --backend opencl") == 0, "%s",
          err_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "run gaussian_blur on opencl differs from the library");
    CHECK(strstr(out_text, "on opencl") != NULL, "stage not reported on opencl: %s", out_text);
    lumen_image_destroy(got);
    lumen_image_destroy(want);

    want = new_like(rgba, 0, 0, 0);
    lumen_levels(NULL, rgba, want, 1.5f, -20.0f);
    CHECK(lumen("run levels rgba.png o.png --param gain=1.5 --param bias=-20") == 0, "%s",
          err_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "run levels (RGBA) differs from the library");
    lumen_image_destroy(got);
    lumen_image_destroy(want);

    want = new_like(rgb, 0, 0, 1);
    lumen_grayscale(NULL, rgb, want);
    CHECK(lumen("run grayscale rgb.png o.png") == 0, "%s", err_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "run grayscale differs from the library");
    lumen_image_destroy(got);
    lumen_image_destroy(want);

    want = new_like(gray, 0, 0, 0);
    lumen_sobel(NULL, gray, want);
    CHECK(lumen("run sobel gray.png o.png") == 0, "%s", err_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "run sobel differs from the library");
    lumen_image_destroy(got);
    lumen_image_destroy(want);

    /* border=N: the stage's border (lumen_context_set_border), here reflect-101 and wrap */
    lumen_context *bc = NULL;
    CHECK(lumen_context_create(LUMEN_BACKEND_CPU, &bc) == LUMEN_OK &&
              lumen_context_set_border(bc, LUMEN_BORDER_REFLECT_101, NULL) == LUMEN_OK,
          "border context");
    want = new_like(gray, 0, 0, 0);
    lumen_sobel(bc, gray, want);
    CHECK(lumen("run sobel gray.png o.png -p border=4") == 0, "%s", err_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "run sobel border=4 differs from the library");
    lumen_image_destroy(got);
    lumen_image_destroy(want);
    want = new_like(rgb, 0, 0, 0);
    lumen_context_set_border(bc, LUMEN_BORDER_WRAP, NULL);
    lumen_morphology(bc, rgb, want, LUMEN_MORPH_CLOSE, 9, 3);
    CHECK(lumen("chain morphology:op=3:w=9:h=3:border=3 rgb.png o.png --backend opencl") == 0, "%s",
          err_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "chain morphology border=3 differs from the library");
    lumen_image_destroy(got);
    lumen_image_destroy(want);
    lumen_context_destroy(bc);

    want = new_like(rgb, 100, 30, 0);
    lumen_resize(NULL, rgb, want);
    CHECK(lumen("run resize rgb.png o.png --param w=100 --param h=30") == 0, "%s", err_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "run resize differs from the library");
    lumen_image_destroy(got);
    lumen_image_destroy(want);

    static const int interps[] = {0, 2, 3, 64}; /* nearest, cubic, area, Lanczos-3 */
    for (int i = 0; i < 4; i++) {               /* 67x45 to about 1/3 (15 = 45 / 3 exactly) */
        int m = interps[i];
        char cmd[96];
        want = new_like(rgb, 22, 15, 0);
        lumen_resize_interp(NULL, rgb, want, (lumen_interp)m);
        snprintf(cmd, sizeof cmd, "run resize rgb.png o.png -p w=22 -p h=15 -p interp=%d", m);
        CHECK(lumen(cmd) == 0, "%s", err_text);
        got = read_png("o.png");
        CHECK(t_same_pixels(got, want), "run resize interp=%d differs from the library", m);
        lumen_image_destroy(got);
        lumen_image_destroy(want);
    }

    want = new_like(rgba, 0, 0, 0);
    lumen_unsharp_mask(NULL, rgba, want, 1.5f, 2.0f);
    CHECK(lumen("run unsharp_mask rgba.png o.png -p sigma=1.5 -p amount=2 --repeat 3") == 0, "%s",
          err_text);
    CHECK(strstr(out_text, "steady state") && strstr(out_text, "megapixels/s"), "repeat: %s",
          out_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "run unsharp_mask differs from the library");
    lumen_image_destroy(got);
    lumen_image_destroy(want);

    /* chain: blur, unsharp, resize keeping the aspect ratio (67x45 -> 30x20), on the device. */
    lumen_image *a = new_like(rgb, 0, 0, 0), *b = new_like(rgb, 0, 0, 0);
    want = new_like(rgb, 30, 20, 0);
    lumen_gaussian_blur(NULL, rgb, a, 2.0f);
    lumen_unsharp_mask(NULL, a, b, 2.0f, 1.5f);
    lumen_resize(NULL, b, want);
    const char *chain = "\"gaussian_blur:sigma=2,unsharp_mask:amount=1.5,resize:w=30\"";
    char args[512];
    for (int on_gpu = 0; on_gpu < 2; on_gpu++) {
        snprintf(args, sizeof args, "chain %s rgb.png o.png --backend %s", chain,
                 on_gpu ? "opencl" : "cpu");
        CHECK(lumen(args) == 0, "%s: %s", args, err_text);
        got = read_png("o.png");
        CHECK(t_same_pixels(got, want), "%s differs from the library", args);
        lumen_image_destroy(got);
    }
    /* Device-resident: one upload (first stage), no download until the file is written. */
    CHECK(strstr(out_text, "gaussian_blur") && strstr(out_text, "uploads 1 downloads 0") &&
              strstr(out_text, "downloads for it: 1"),
          "chain on opencl transfers: %s", out_text);
    lumen_image_destroy(a), lumen_image_destroy(b), lumen_image_destroy(want);

    /* Geometry and threshold (67x45 -> 45x67 and back to 67x45) */
    a = new_like(rgb, 45, 67, 0), b = new_like(rgb, 67, 45, 0), want = new_like(rgb, 67, 45, 0);
    lumen_rotate(NULL, rgb, a, 270);
    lumen_rotate(NULL, a, b, 90);
    lumen_image_destroy(a);
    a = new_like(rgb, 0, 0, 0);
    lumen_flip(NULL, b, a, LUMEN_FLIP_BOTH);
    lumen_threshold(NULL, a, want, 90.0f, 200.0f, LUMEN_THRESH_TRUNC);
    CHECK(lumen("chain \"rotate:degrees=270,rotate,flip:code=-1,threshold:t=90:max=200:type=2\" "
                "rgb.png o.png") == 0,
          "%s", err_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "rotate, flip, threshold chain differs from the library");
    lumen_image_destroy(got);
    lumen_image_destroy(a), lumen_image_destroy(b), lumen_image_destroy(want);

    /* Morphology: a top hat 7x3 as the library gives it; argument errors */
    want = new_like(rgb, 0, 0, 0);
    lumen_morphology(NULL, rgb, want, LUMEN_MORPH_TOPHAT, 7, 3);
    same_as_library("run morphology rgb.png o.png -p op=5 -p w=7 -p h=3", want,
                    "morphology top hat");
    CHECK(lumen("chain morphology:op=7 rgb.png o.png") != 0 && strstr(err_text, "op=7: must be"),
          "morphology op 7: %s", err_text);
    CHECK(lumen("run morphology rgb.png o.png -p w=256") != 0 && strstr(err_text, "1..255"),
          "morphology w 256: %s", err_text);
    want = new_like(rgb, 0, 0, 0);
    lumen_median(NULL, rgb, want, 5);
    same_as_library("chain median:k=5 rgb.png o.png", want, "median 5");
    CHECK(lumen("run median rgb.png o.png -p k=4") != 0 && strstr(err_text, "3 or 5"),
          "median k 4: %s", err_text);
    want = new_like(rgb, 0, 0, 0);
    lumen_box_filter(NULL, rgb, want, 31, 4);
    same_as_library("chain box_filter:w=31:h=4 rgb.png o.png", want, "box filter 31x4");
    CHECK(lumen("run box_filter rgb.png o.png -p h=0") != 0 && strstr(err_text, "1..255"),
          "box_filter h 0: %s", err_text);
    want = new_like(rgb, 0, 0, 0);
    lumen_bilateral(NULL, rgb, want, 2.5f, 40);
    same_as_library("chain bilateral:space=2.5:color=40 rgb.png o.png", want, "bilateral");
    CHECK(lumen("run bilateral rgb.png o.png -p color=2") != 0 && strstr(err_text, "4..4096"),
          "bilateral color 2: %s", err_text);

    /* Affine warp: a rotation by 90 degrees about the centre of a square image, border replicate,
     * is lumen_rotate's 270 (counter-clockwise) exactly; argument errors */
    write_png("sq.png", 5, 5, PNG_FORMAT_RGB);
    lumen_image *sq = read_png("sq.png");
    want = new_like(sq, 0, 0, 0);
    lumen_rotate(NULL, sq, want, 270);
    CHECK(lumen("chain warp_affine:angle=90:border=1 sq.png o.png") == 0, "%s", err_text);
    got = read_png("o.png");
    CHECK(t_same_pixels(got, want), "warp_affine 90 differs from rotate 270");
    lumen_image_destroy(got), lumen_image_destroy(want), lumen_image_destroy(sq);
    CHECK(lumen("run warp_affine rgb.png o.png -p border=2") != 0 && strstr(err_text, "replicate"),
          "warp_affine border 2: %s", err_text);
    want = new_like(gray, 0, 0, 0);
    lumen_equalize_hist(NULL, gray, want);
    same_as_library("run equalize_hist gray.png o.png", want, "equalize_hist");
    CHECK(lumen("run equalize_hist rgb.png o.png") != 0 && strstr(err_text, "grayscale,equalize"),
          "equalize_hist on RGB: %s", err_text);

    /* Converted kinds: 16-bit, gray+alpha become 8-bit gray / RGBA. */
    write_png("gray16.png", 9, 7, PNG_FORMAT_LINEAR_Y);
    write_png("ga.png", 9, 7, PNG_FORMAT_GA);
    CHECK(lumen("run levels gray16.png o.png") == 0, "16-bit gray: %s", err_text);
    got = read_png("o.png");
    CHECK(got && lumen_image_channels(got) == 1, "16-bit gray not read as gray");
    lumen_image_destroy(got);
    CHECK(lumen("run levels ga.png o.png") == 0, "gray+alpha: %s", err_text);
    got = read_png("o.png");
    CHECK(got && lumen_image_channels(got) == 4, "gray+alpha not converted to RGBA");
    lumen_image_destroy(got);
    lumen_image_destroy(rgb), lumen_image_destroy(rgba), lumen_image_destroy(gray);
}

static void check_info_demo(void) {
    CHECK(lumen("info") == 0, "info: %s", err_text);
    CHECK(strstr(out_text, "cpu variant:") && strstr(out_text, "opencl") &&
              strstr(out_text, lumen_cpu_variant()),
          "info output: %s", out_text);
    CHECK(lumen("demo demo-out") == 0, "demo: %s", err_text);
    const char *files[] = {"sample",      "levels",          "grayscale",    "gaussian_blur",
                           "resize",      "sobel",           "unsharp_mask", "flip",
                           "rotate",      "threshold",       "morphology",   "median",
                           "warp_affine", "chain",           "resize_area",  "equalize_hist",
                           "box_filter",  "resize_lanczos3", "resize_cubic", "box_filter_wrap",
                           "bilateral"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char name[256];
        snprintf(name, sizeof name, "demo-out/%s.png", files[i]);
        lumen_image *img = read_png(name);
        CHECK(img != NULL, "demo did not write %s", name);
        lumen_image_destroy(img);
    }
    CHECK(strstr(out_text, "demo: ok") != NULL, "demo output: %s", out_text);
    CHECK(lumen("help") == 0 && strstr(out_text, "usage:"), "help");
}

/* Errors: usage errors exit 2 with the usage text; runtime errors exit 1 with one line. */
static void check_errors(void) {
    static const char *const usage_errors[] = {
        "",                                              /* no command */
        "frobnicate",                                    /* unknown command */
        "run",                                           /* missing arguments */
        "run warp rgb.png o.png",                        /* unknown pipeline */
        "run levels rgb.png o.png --param brightness=2", /* unknown parameter */
        "run levels rgb.png o.png --param gain=abc",     /* bad number */
        "run levels rgb.png o.png --param",              /* missing value */
        "run levels rgb.png o.png --backend vulkan",     /* unknown backend */
        "run levels rgb.png o.png --repeat 0",           /* bad repeat */
        "run levels rgb.png o.png --fast",               /* unknown option */
        "chain \"levels,,\" rgb.png o.png extra",        /* extra argument */
        "chain \"blur:sigma=2\" rgb.png o.png",          /* unknown pipeline in a chain */
        "info extra",
        "run gaussian_blur rgb.png o.png --param sigma=40", /* out of range */
        "run resize rgb.png o.png",                         /* no size */
    };
    for (size_t i = 0; i < sizeof usage_errors / sizeof *usage_errors; i++) {
        int rc = lumen(usage_errors[i]);
        CHECK(rc == 2 && strstr(err_text, "lumen: ") == err_text && strstr(err_text, "usage:"),
              "'%s': exit %d, stderr: %s", usage_errors[i], rc, err_text);
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/corrupt.png", work);
    FILE *f = fopen(path, "wb");
    fputs("\x89PNG\r\n\x1a\nthis is not really a png", f);
    fclose(f);
    size_t size; /* the first 500 bytes of rgb.png */
    char *head = NULL;
    snprintf(path, sizeof path, "%s/rgb.png", work);
    f = fopen(path, "rb");
    if (f) head = malloc(500), size = fread(head, 1, 500, f), fclose(f);
    snprintf(path, sizeof path, "%s/truncated.png", work);
    f = fopen(path, "wb");
    CHECK(head && size == 500 && f && fwrite(head, 1, size, f) == size, "writing truncated.png");
    if (f) fclose(f);
    free(head);
    static const char *const runtime_errors[][2] = {
        {"run levels missing.png o.png", "missing.png"},
        {"run levels corrupt.png o.png", "corrupt.png"},
        {"run levels truncated.png o.png", "truncated.png: truncated PNG"},
        {"run sobel rgb.png o.png", "sobel needs a gray image"},
        {"run levels rgb.png o.png --backend cuda", "unavailable"},
    };
    for (size_t i = 0; i < sizeof runtime_errors / sizeof *runtime_errors; i++) {
        int rc = lumen(runtime_errors[i][0]);
        CHECK(rc == 1 && lines(err_text) == 1 && strstr(err_text, runtime_errors[i][1]),
              "'%s': exit %d, stderr: %s", runtime_errors[i][0], rc, err_text);
    }
}

/* Raw 4:2:0 frames in and out (--size, --format, extensions, --yuv-space) equal the library's
 * conversions. */
static void write_bytes(const char *name, const void *data, size_t n) {
    char path[1024];
    work_path(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, n, f) == n, "writing %s", name);
    if (f) fclose(f);
}

static uint8_t *read_bytes(const char *name, size_t *n) {
    char path[1024];
    work_path(path, sizeof path, name);
    FILE *f = fopen(path, "rb");
    uint8_t *p = malloc(1 << 20);
    *n = f && p ? fread(p, 1, 1 << 20, f) : 0;
    if (f) fclose(f);
    return p;
}

static void check_raw_yuv(void) {
    enum { W = 64, H = 48, N = W * H * 3 / 2 };
    uint8_t frame[N];
    for (int i = 0; i < N; i++) frame[i] = (uint8_t)t_rand();
    write_bytes("f.nv12", frame, N);
    write_bytes("f.raw", frame, N);
    write_bytes("short.nv12", frame, N - 1);
    struct {
        const char *args;
        lumen_yuv_layout layout;
        lumen_yuv_space space;
        const char *in; /* stdin */
    } in_cases[] = {
        {"run levels f.nv12 o.png --size 64x48 -p gain=1.3", LUMEN_YUV_NV12,
         LUMEN_YUV_BT601_LIMITED, NULL},
        {"run levels f.raw o.png --size=64x48 --format i420 -p gain=1.3 --yuv-space bt709-full",
         LUMEN_YUV_I420, LUMEN_YUV_BT709_FULL, NULL},
        {"run levels - o.png --size 64x48 --format nv21 -p gain=1.3", LUMEN_YUV_NV21,
         LUMEN_YUV_BT601_LIMITED, "f.nv12"},
    };
    for (size_t k = 0; k < sizeof in_cases / sizeof *in_cases; k++) {
        int i420 = in_cases[k].layout == LUMEN_YUV_I420;
        lumen_yuv_frame f = {in_cases[k].layout,
                             W,
                             H,
                             {frame, frame + W * H, i420 ? frame + W * H * 5 / 4 : NULL},
                             {W, i420 ? W / 2 : W, W / 2}};
        lumen_image *rgb = NULL, *want = NULL, *got;
        CHECK_OK(lumen_image_create(W, H, 3, &rgb));
        CHECK_OK(lumen_yuv_to_rgb(NULL, &f, rgb, in_cases[k].space));
        want = new_like(rgb, 0, 0, 0);
        CHECK_OK(lumen_levels(NULL, rgb, want, 1.3f, 0.0f));
        run_opts r = {0};
        r.in = in_cases[k].in;
        CHECK(lumen_with(&r, in_cases[k].args) == 0, "'%s': %s", in_cases[k].args, err_text);
        got = read_png("o.png");
        CHECK(got && t_same_pixels(got, want), "'%s' differs from the library", in_cases[k].args);
        lumen_image_destroy(got), lumen_image_destroy(want), lumen_image_destroy(rgb);
    }

    write_png("even.png", W, H, PNG_FORMAT_RGBA);
    lumen_image *src = read_png("even.png"), *lv = new_like(src, 0, 0, 0);
    CHECK_OK(lumen_levels(NULL, src, lv, 0.8f, 5.0f));
    const char *const out_cases[] = {"run levels even.png o.i420 -p gain=0.8 -p bias=5",
                                     "run levels even.png - --format i420 -p gain=0.8 -p bias=5"};
    uint8_t want[N], *got;
    lumen_yuv_frame f = {
        LUMEN_YUV_I420, W, H, {want, want + W * H, want + W * H * 5 / 4}, {W, W / 2, W / 2}};
    CHECK_OK(lumen_rgb_to_yuv(NULL, lv, &f, LUMEN_YUV_BT601_LIMITED));
    for (int k = 0; k < 2; k++) {
        run_opts r = {0};
        r.out = k ? "o2.i420" : NULL;
        CHECK(lumen_with(&r, out_cases[k]) == 0, "'%s': %s", out_cases[k], err_text);
        size_t n;
        got = read_bytes(k ? "o2.i420" : "o.i420", &n);
        CHECK(n == N && memcmp(got, want, N) == 0, "'%s': %zu bytes, not the library's frame",
              out_cases[k], n);
        free(got);
    }
    lumen_image_destroy(src), lumen_image_destroy(lv);

    static const char *const usage_errors[] = {
        "run levels f.nv12 o.png",                            /* raw without --size */
        "run levels f.raw o.png --size 64x48",                /* no layout */
        "run levels f.nv12 o.png --size 63x48",               /* odd */
        "run levels f.nv12 o.png --size 64",                  /* not WxH */
        "run levels rgb.png o.png --format nv12",             /* conflicts with .png */
        "run levels rgb.png o.nv12 --quality 50",             /* quality on raw */
        "run levels rgb.png o.png --yuv-space bt709",         /* no raw frame */
        "run levels f.nv12 o.png --size 64x48 --yuv-space x", /* unknown space */
    };
    for (size_t i = 0; i < sizeof usage_errors / sizeof *usage_errors; i++) {
        int rc = lumen(usage_errors[i]);
        CHECK(rc == 2 && strstr(err_text, "usage:"), "'%s': exit %d, stderr: %s", usage_errors[i],
              rc, err_text);
    }
    static const char *const runtime_errors[][2] = {
        {"run levels short.nv12 o.png --size 64x48", "4607 bytes, but a 64x48 nv12 frame is 4608"},
        {"run grayscale even.png o.nv12", "the result is gray"},
        {"run levels rgb.png o.nv12", "even"}, /* 67x45 */
    };
    for (size_t i = 0; i < sizeof runtime_errors / sizeof *runtime_errors; i++) {
        int rc = lumen(runtime_errors[i][0]);
        CHECK(rc == 1 && lines(err_text) == 1 && strstr(err_text, runtime_errors[i][1]),
              "'%s': exit %d, stderr: %s", runtime_errors[i][0], rc, err_text);
    }
}

/* 16-bit PNGs stay 16-bit through stages that all take them (written by lumen_io, which
 * test_io checks against libpng), and take the 8-bit path otherwise. */
static void check_16bit(void) {
    char in[1024], out[1024];
    work_path(in, sizeof in, "in16.png");
    work_path(out, sizeof out, "o16.png");
    lumen_image *src = NULL, *want = NULL, *got = NULL, *src8 = NULL;
    uint8_t *px = NULL;
    CHECK_OK(lumen_image_create_format(45, 31, LUMEN_FORMAT_RGB16, &src));
    CHECK_OK(lumen_image_map(src, LUMEN_ACCESS_WRITE, &px));
    for (int y = 0; y < 31; y++)
        for (int i = 0; i < 45 * 3; i++)
            ((uint16_t *)(px + y * lumen_image_stride(src)))[i] = (uint16_t)t_rand();
    CHECK_OK(lumen_io_write(in, src, NULL));
    CHECK_OK(lumen_image_create_format(30, 20, LUMEN_FORMAT_RGB16, &want));
    lumen_image *t = NULL;
    CHECK_OK(lumen_image_create_format(45, 31, LUMEN_FORMAT_RGB16, &t));
    CHECK_OK(lumen_unsharp_mask(NULL, src, t, 1.5f, 2.0f));
    CHECK_OK(lumen_resize(NULL, t, want));
    CHECK(lumen("chain \"unsharp_mask:sigma=1.5:amount=2,resize:w=30:h=20\" in16.png o16.png") == 0,
          "16-bit chain: %s", err_text);
    CHECK(strstr(out_text, "16-bit") != NULL, "report: %s", out_text);
    CHECK_OK(lumen_io_read_flags(out, LUMEN_IO_KEEP_16BIT, &got));
    CHECK(lumen_image_format(got) == LUMEN_FORMAT_RGB16, "16-bit chain wrote %s",
          lumen_format_name(lumen_image_format(got)));
    uint8_t *a = NULL, *b = NULL;
    CHECK_OK(lumen_image_map(got, LUMEN_ACCESS_READ, &a));
    CHECK_OK(lumen_image_map(want, LUMEN_ACCESS_READ, &b));
    int bad = 0;
    for (int y = 0; a && b && y < 20; y++)
        bad += memcmp(a + y * lumen_image_stride(got), b + y * lumen_image_stride(want), 30 * 6);
    CHECK(bad == 0, "16-bit chain differs from the library");
    lumen_image_destroy(got);
    /* grayscale takes 8-bit only: the file is read as 8-bit, the result is 8-bit */
    CHECK(lumen("run grayscale in16.png o16.png") == 0, "%s", err_text);
    CHECK_OK(lumen_io_read_flags(out, LUMEN_IO_KEEP_16BIT, &got));
    CHECK_OK(lumen_io_read(in, &src8));
    lumen_image *g = new_like(src8, 0, 0, 1);
    CHECK_OK(lumen_grayscale(NULL, src8, g));
    CHECK(lumen_image_format(got) == LUMEN_FORMAT_GRAY8 && t_same_pixels(got, g),
          "grayscale of a 16-bit PNG");
    lumen_image_destroy(g), lumen_image_destroy(got), lumen_image_destroy(src8);
    lumen_image_destroy(t), lumen_image_destroy(want), lumen_image_destroy(src);
}

int main(int argc, char **argv) {
    if (!cli_test_init(argc, argv)) return 2;
    check_run();
    check_info_demo();
    check_errors();
    check_raw_yuv();
    check_16bit();
    return t_summary();
}
