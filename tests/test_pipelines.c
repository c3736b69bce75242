/* Every pipeline against its plain-C reference on random images, on one backend (argv[1]:
 * cpu | opencl | cuda). Run once per LUMEN_MAX_CPU_ISA value by ctest. */
#include "harness.h"

#include <math.h>

typedef t_pipe pipe;
static const char *const names[] = {"levels", "grayscale", "gaussian_blur",
                                    "resize", "sobel",     "unsharp_mask"};
static lumen_context *ctx;
static lumen_backend backend;

static float frand(float lo, float hi) {
    return lo + (hi - lo) * (float)(t_rand() % 10001) / 10000.0f;
}

static void reference(pipe p, ref_image s, ref_image d, float a, float b) {
    switch (p) {
        case T_LEVELS:
            ref_levels(s, d, a, b);
            break;
        case T_GRAYSCALE:
            ref_grayscale(s, d);
            break;
        case T_BLUR:
            ref_gaussian_blur(s, d, a);
            break;
        case T_RESIZE:
            ref_resize(s, d);
            break;
        case T_SOBEL:
            ref_sobel(s, d);
            break;
        case T_UNSHARP:
            ref_unsharp_mask(s, d, a, b);
            break;
    }
}

/* One run of p on a random w x h x c image (rows padded by pad bytes) into ow x oh. */
static void check_case(pipe p, int w, int h, int c, int pad, int ow, int oh, float a, float b) {
    int dc = p == T_GRAYSCALE || p == T_SOBEL ? 1 : c;
    t_image src = t_image_new(w, h, c, pad, 1);
    t_image dst = t_image_new(ow, oh, dc, pad ? pad + 3 : 0, 0);
    uint8_t *before = malloc(src.ref.stride * h);
    memcpy(before, src.mem, src.ref.stride * h);
    ref_image want = {malloc((size_t)ow * oh * dc), ow, oh, dc, (size_t)ow * dc};

    lumen_status st = t_run_pipe(p, ctx, src.img, dst.img, a, b);
    CHECK(st == LUMEN_OK, "%s %dx%dx%d: %s", names[p], w, h, c, lumen_last_error());
    if (backend != LUMEN_BACKEND_CPU) {
        CHECK(lumen_image_location(dst.img) == backend, "%s: result not left on the device",
              names[p]);
    }
    t_sync(&dst);
    t_sync(&src);
    reference(p, src.ref, want, a, b);
    long n_diff;
    int pad_ok, max = t_compare(&dst, want, &n_diff, &pad_ok);
    long total = (long)ow * oh * dc;
    CHECK(max == 0,
          "%s %dx%dx%d pad %d -> %dx%d "
          "(a=%g b=%g): max diff %d, %ld of %ld differ",
          names[p], w, h, c, pad, ow, oh, (double)a, (double)b, max, n_diff, total);
    CHECK(pad_ok, "%s %dx%dx%d: wrote into row padding", names[p], w, h, c);
    CHECK(memcmp(before, src.mem, src.ref.stride * h) == 0, "%s: source modified", names[p]);
    free(before);
    free(want.data);
    t_image_free(&src);
    t_image_free(&dst);
}

static void check_pipeline(pipe p) {
    static const int sizes[][2] = {{1, 1}, {7, 3}, {33, 17}, {101, 64}, {16, 200}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        for (int c = 1; c <= 4; c++) {
            if (c == 2 || (p == T_GRAYSCALE && c < 3) || (p == T_SOBEL && c != 1)) continue;
            int w = sizes[i][0], h = sizes[i][1], pad = (int)(i % 2) * 13;
            int ow = p == T_RESIZE ? 1 + (int)(t_rand() % 120) : w;
            int oh = p == T_RESIZE ? 1 + (int)(t_rand() % 120) : h;
            float a = p == T_LEVELS ? frand(-4.0f, 4.0f) : frand(LUMEN_SIGMA_MIN, LUMEN_SIGMA_MAX);
            float b = p == T_LEVELS ? frand(-300.0f, 300.0f) : frand(0.0f, 4.0f);
            check_case(p, w, h, c, pad, ow, oh, a, b);
        }
    }
    if (p ==
        T_RESIZE) { /* exact x1/2, 1/3, 1/4 and x2 (fast paths on the CPU), one way only, mixed */
        static const int halves[][4] = {
            {2, 2, 1, 1},        {34, 18, 17, 9},  {202, 128, 101, 64}, {64, 65, 32, 32},
            {66, 40, 33, 21},    {7, 4, 3, 2},     {1, 1, 2, 2},        {17, 9, 34, 18},
            {101, 64, 202, 128}, {32, 32, 64, 65}, {33, 21, 66, 40},    {3, 2, 6, 4},
            {33, 18, 11, 6},     {9, 9, 3, 3},     {44, 20, 11, 5},     {100, 64, 25, 16},
            {4, 4, 1, 1},        {96, 60, 24, 20}, {99, 60, 33, 15},    {131, 67, 43, 22}};
        for (size_t i = 0; i < sizeof halves / sizeof *halves; i++)
            for (int c = 1; c <= 4; c++)
                if (c != 2)
                    check_case(p, halves[i][0], halves[i][1], c, (int)(i % 2) * 5, halves[i][2],
                               halves[i][3], 0, 0);
    }
    if (getenv("LUMEN_TEST_QUICK")) return; /* e.g. under valgrind */
    /* Full HD, padded rows; resize goes down, then up. */
    int c = p == T_SOBEL ? 1 : p == T_GRAYSCALE ? 4 : 3;
    float a = p == T_LEVELS ? 1.3f : 2.0f, b = p == T_LEVELS ? -20.0f : 1.5f;
    check_case(p, 1920, 1080, c, 8, p == T_RESIZE ? 640 : 1920, p == T_RESIZE ? 360 : 1080, a, b);
    if (p == T_RESIZE) check_case(p, 1920, 1080, 4, 8, 960, 540, a, b);
    if (p == T_RESIZE) check_case(p, 960, 540, c, 8, 1920, 1080, a, b);
    if (p == T_RESIZE) check_case(p, 640, 480, c, 0, 1001, 733, a, b);
}

/* Channel order: grayscale weights channels by the source's format; the per-channel pipelines
 * run BGR(A) as RGB(A), into a destination of the same format. */
static void check_formats(void) {
    static const lumen_format fmts[] = {LUMEN_FORMAT_BGR8, LUMEN_FORMAT_BGRA8, LUMEN_FORMAT_RGB8,
                                        LUMEN_FORMAT_RGBA8};
    for (size_t i = 0; i < sizeof fmts / sizeof *fmts; i++) {
        lumen_format f = fmts[i];
        int c = lumen_format_channels(f), bgr = (f >> 8) == 1;
        int w = 16 + (int)(t_rand() % 150), h = 2 + (int)(t_rand() % 40), ow = w + 7,
            oh = h / 2 + 1;
        t_image src = t_image_new(w, h, c, 5, 1), gray = t_image_new(w, h, 1, 3, 0);
        t_image blur = t_image_new(w, h, c, 2, 0), small = t_image_new(ow, oh, c, 0, 0);
        lumen_image *s = NULL, *b = NULL, *r = NULL;
        CHECK_OK(lumen_image_wrap_format(src.mem, w, h, f, src.ref.stride, &s));
        CHECK_OK(lumen_image_wrap_format(blur.mem, w, h, f, blur.ref.stride, &b));
        CHECK_OK(lumen_image_wrap_format(small.mem, ow, oh, f, small.ref.stride, &r));
        CHECK(lumen_image_format(s) == f && lumen_image_channels(s) == c, "format %s",
              lumen_format_name(f));
        CHECK_OK(lumen_grayscale(ctx, s, gray.img));
        CHECK_OK(lumen_gaussian_blur(ctx, s, b, 1.7f));
        CHECK_OK(lumen_resize(ctx, s, r));
        t_sync(&gray);
        uint8_t *p;
        CHECK_OK(lumen_image_map(b, LUMEN_ACCESS_READ, &p));
        CHECK_OK(lumen_image_map(r, LUMEN_ACCESS_READ, &p));

        ref_image want_gray = {malloc((size_t)w * h), w, h, 1, (size_t)w};
        ref_image want_blur = {malloc((size_t)w * h * c), w, h, c, (size_t)w * c};
        ref_image want_small = {malloc((size_t)ow * oh * c), ow, oh, c, (size_t)ow * c};
        ref_grayscale_order(src.ref, want_gray, bgr);
        ref_gaussian_blur(src.ref, want_blur, 1.7f);
        ref_resize(src.ref, want_small);
        const t_image *got[] = {&gray, &blur, &small};
        ref_image want[] = {want_gray, want_blur, want_small};
        for (int k = 0; k < 3; k++) {
            long n_diff;
            int pad_ok, max = t_compare(got[k], want[k], &n_diff, &pad_ok);
            CHECK(max == 0 && pad_ok, "%s %dx%d, %s: max diff %d, %ld differ", lumen_format_name(f),
                  w, h,
                  k == 0   ? "grayscale"
                  : k == 1 ? "blur"
                           : "resize",
                  max, n_diff);
            free(want[k].data);
        }
        lumen_image_destroy(s), lumen_image_destroy(b), lumen_image_destroy(r);
        t_image_free(&src), t_image_free(&gray), t_image_free(&blur), t_image_free(&small);
    }
}

/* A 4:2:0 frame in fresh memory: rows padded by `pad` bytes; random samples or the canary. */
typedef struct {
    lumen_yuv_frame f;
    ref_frame r;
    uint8_t *mem[3];
    size_t bytes[3];
} t_frame;

static t_frame t_frame_new(lumen_yuv_layout layout, int w, int h, int pad, int random) {
    t_frame t = {0};
    int n = layout == LUMEN_YUV_I420 ? 3 : 2;
    for (int i = 0; i < n; i++) {
        size_t row = i == 0 || n == 2 ? (size_t)w : (size_t)w / 2, rows = i ? h / 2 : h;
        t.f.strides[i] = row + pad;
        t.bytes[i] = t.f.strides[i] * rows;
        t.mem[i] = malloc(t.bytes[i]);
        for (size_t k = 0; k < t.bytes[i]; k++) t.mem[i][k] = random ? (uint8_t)t_rand() : T_CANARY;
        t.f.planes[i] = t.mem[i];
    }
    t.f.layout = layout, t.f.width = w, t.f.height = h;
    t.r = (ref_frame){(int)layout,
                      w,
                      h,
                      {t.mem[0], t.mem[1], t.mem[2]},
                      {t.f.strides[0], t.f.strides[1], t.f.strides[2]}};
    return t;
}

static void t_frame_free(t_frame *t) {
    for (int i = 0; i < 3; i++) free(t->mem[i]);
}

/* YUV frames both ways, every layout, space and RGB format, against the reference (exact,
 * padding untouched), yuv_to_rgb also to other sizes (resize of the reference); and yuv_to_rgb
 * within 1 of the real-valued conversion. */
static void check_yuv(void) {
    static const int sizes[][2] = {{2, 2}, {6, 4}, {34, 18}, {130, 66}, {258, 6}};
    static const lumen_format fmts[] = {LUMEN_FORMAT_RGB8, LUMEN_FORMAT_BGR8, LUMEN_FORMAT_RGBA8,
                                        LUMEN_FORMAT_BGRA8};
    static const char *const layouts[] = {"", "NV12", "NV21", "I420"};
    double worst = 0;
    for (int layout = LUMEN_YUV_NV12; layout <= LUMEN_YUV_I420; layout++)
        for (int space = LUMEN_YUV_BT601_LIMITED; space <= LUMEN_YUV_BT709_FULL; space++)
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                int w = sizes[i][0], h = sizes[i][1], pad = (int)(i % 2) * 11;
                lumen_format fmt = fmts[t_rand() % 4];
                int c = lumen_format_channels(fmt), bgr = fmt >> 8;
                char what[96];
                snprintf(what, sizeof what, "%s space %d %dx%d %s", layouts[layout], space, w, h,
                         lumen_format_name(fmt));
                /* frame -> RGB */
                t_frame fr = t_frame_new((lumen_yuv_layout)layout, w, h, pad, 1);
                t_image out = t_image_new(w, h, c, pad + 1, 0);
                lumen_image *o = NULL;
                CHECK_OK(lumen_image_wrap_format(out.mem, w, h, fmt, out.ref.stride, &o));
                CHECK_OK(lumen_yuv_to_rgb(ctx, &fr.f, o, (lumen_yuv_space)space));
                uint8_t *p;
                CHECK_OK(lumen_image_map(o, LUMEN_ACCESS_READ, &p));
                ref_image want = {malloc((size_t)w * h * c), w, h, c, (size_t)w * c};
                ref_yuv_to_rgb(&fr.r, want, bgr, space);
                long n_diff;
                int pad_ok, max = t_compare(&out, want, &n_diff, &pad_ok);
                CHECK(max == 0 && pad_ok, "yuv_to_rgb %s: max diff %d, %ld differ", what, max,
                      n_diff);
                /* to another size: converted and resized in one pass, as resize of the above */
                int rs[2][2] = {{w / 2 + 1, h / 2 + 1}, {2 * w + 3, h + 5}};
                for (int k = 0; k < 2; k++) {
                    int ow = rs[k][0], oh = rs[k][1];
                    t_image rout = t_image_new(ow, oh, c, pad, 0);
                    lumen_image *ro = NULL;
                    CHECK_OK(lumen_image_wrap_format(rout.mem, ow, oh, fmt, rout.ref.stride, &ro));
                    CHECK_OK(lumen_yuv_to_rgb(ctx, &fr.f, ro, (lumen_yuv_space)space));
                    CHECK_OK(lumen_image_map(ro, LUMEN_ACCESS_READ, &p));
                    ref_image rwant = {malloc((size_t)ow * oh * c), ow, oh, c, (size_t)ow * c};
                    ref_resize(want, rwant);
                    max = t_compare(&rout, rwant, &n_diff, &pad_ok);
                    CHECK(max == 0 && pad_ok, "yuv_to_rgb %s to %dx%d: max diff %d, %ld differ",
                          what, ow, oh, max, n_diff);
                    free(rwant.data);
                    lumen_image_destroy(ro);
                    t_image_free(&rout);
                }
                /* the real-valued conversion */
                double kr = space <= 2 ? 0.299 : 0.2126, kb = space <= 2 ? 0.114 : 0.0722;
                int lim = space % 2;
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        double Y = fr.mem[0][y * fr.f.strides[0] + x];
                        const uint8_t *uv = layout == LUMEN_YUV_I420
                                                ? NULL
                                                : fr.mem[1] + (y / 2) * fr.f.strides[1] + x / 2 * 2;
                        double U = uv ? uv[layout == LUMEN_YUV_NV21]
                                      : fr.mem[1][(y / 2) * fr.f.strides[1] + x / 2];
                        double V = uv ? uv[layout == LUMEN_YUV_NV12]
                                      : fr.mem[2][(y / 2) * fr.f.strides[2] + x / 2];
                        double yy = lim ? (Y - 16) * 255 / 219 : Y, sc = lim ? 255.0 / 224 : 1;
                        double u = (U - 128) * sc, v = (V - 128) * sc, kg = 1 - kr - kb;
                        double rgb[3] = {
                            yy + 2 * (1 - kr) * v,
                            yy - 2 * kb * (1 - kb) / kg * u - 2 * kr * (1 - kr) / kg * v,
                            yy + 2 * (1 - kb) * u};
                        for (int k = 0; k < 3; k++) {
                            double ideal = rgb[k] < 0 ? 0 : rgb[k] > 255 ? 255 : rgb[k];
                            double got = out.mem[y * out.ref.stride + x * c + (bgr ? 2 - k : k)];
                            if (fabs(got - ideal) > worst) worst = fabs(got - ideal);
                        }
                    }
                free(want.data);
                lumen_image_destroy(o);
                t_image_free(&out);
                t_frame_free(&fr);

                /* RGB -> frame */
                t_image in = t_image_new(w, h, c, pad, 1);
                lumen_image *im = NULL;
                CHECK_OK(lumen_image_wrap_format(in.mem, w, h, fmt, in.ref.stride, &im));
                t_frame got = t_frame_new((lumen_yuv_layout)layout, w, h, pad, 0);
                t_frame ref = t_frame_new((lumen_yuv_layout)layout, w, h, pad, 0);
                CHECK_OK(lumen_rgb_to_yuv(ctx, im, &got.f, (lumen_yuv_space)space));
                ref_rgb_to_yuv(in.ref, bgr, &ref.r, space);
                for (int k = 0; k < 3; k++) {
                    CHECK(!got.mem[k] || memcmp(got.mem[k], ref.mem[k], got.bytes[k]) == 0,
                          "rgb_to_yuv %s: plane %d differs (or its padding was written)", what, k);
                }
                lumen_image_destroy(im);
                t_image_free(&in);
                t_frame_free(&got);
                t_frame_free(&ref);
            }
    CHECK(worst <= 0.53, "yuv_to_rgb: %.3f from the real-valued conversion", worst);
    printf("yuv_to_rgb: worst distance from the real-valued conversion %.3f\n", worst);
}

/* The w x h rectangle at (x, y) of s, in new memory. */
static ref_image crop(ref_image s, int x, int y, int w, int h) {
    ref_image r = {malloc((size_t)w * h * s.c), w, h, s.c, (size_t)w * s.c};
    for (int j = 0; j < h; j++)
        memcpy(r.data + (size_t)j * r.stride, s.data + (size_t)(y + j) * s.stride + (size_t)x * s.c,
               (size_t)w * s.c);
    return r;
}

/* Views. A source view: the neighbourhood pipelines read the parent's pixels around it (the
 * reference: the whole parent filtered, then cropped), or only its own when isolated (the crop
 * filtered), as resize and the point pipelines always do. A destination view: the result lands in
 * its rectangle of a canvas, the rest of the canvas unchanged. */
static void check_views(void) {
    static const int colours[] = {1, 3, 4};
    for (pipe p = T_LEVELS; p <= T_UNSHARP; p++)
        for (int k = 0; k < 3; k++) {
            int c = p == T_SOBEL ? 1 : p == T_GRAYSCALE ? 3 + k % 2 : colours[k];
            int dc = p == T_GRAYSCALE || p == T_SOBEL ? 1 : c,
                hood = p == T_BLUR || p == T_SOBEL || p == T_UNSHARP;
            int W = 20 + (int)(t_rand() % 80), H = 10 + (int)(t_rand() % 50);
            int w = 1 + (int)(t_rand() % W), h = 1 + (int)(t_rand() % H);
            int x = (int)(t_rand() % (W - w + 1)), y = (int)(t_rand() % (H - h + 1));
            int ow = p == T_RESIZE ? 1 + (int)(t_rand() % 60) : w;
            int oh = p == T_RESIZE ? 1 + (int)(t_rand() % 40) : h;
            float a = p == T_LEVELS ? frand(-4.0f, 4.0f) : frand(LUMEN_SIGMA_MIN, 4.0f);
            float b = p == T_LEVELS ? frand(-300.0f, 300.0f) : frand(0.0f, 4.0f);
            t_image parent = t_image_new(W, H, c, 7, 1);
            ref_image part = crop(parent.ref, x, y, w, h);
            ref_image full = {malloc((size_t)W * H * dc), W, H, dc, (size_t)W * dc};
            reference(p, parent.ref, full, a, b);
            for (int iso = 0; iso < 2; iso++) {
                lumen_image *v = NULL;
                CHECK_OK(
                    lumen_image_view(parent.img, x, y, w, h, iso ? LUMEN_VIEW_ISOLATED : 0, &v));
                t_image out = t_image_new(ow, oh, dc, 3, 0);
                CHECK_OK(t_run_pipe(p, ctx, v, out.img, a, b));
                t_sync(&out);
                ref_image want = {malloc((size_t)ow * oh * dc), ow, oh, dc, (size_t)ow * dc};
                if (hood && !iso) {
                    ref_image cut = crop(full, x, y, w, h);
                    free(want.data);
                    want = cut;
                } else {
                    reference(p, part, want, a, b);
                }
                long n_diff;
                int pad_ok, max = t_compare(&out, want, &n_diff, &pad_ok);
                CHECK(max == 0 && pad_ok,
                      "%s on a %s view %dx%d at (%d,%d) of %dx%dx%d: max diff %d", names[p],
                      iso ? "isolated" : "shared", w, h, x, y, W, H, c, max);
                free(want.data);
                t_image_free(&out);
                lumen_image_destroy(v);
            }
            /* into a view of a canvas (made by Lumen, destroyed before the view) */
            int CW = ow + 1 + (int)(t_rand() % 30), CH = oh + 1 + (int)(t_rand() % 10);
            int cx = (int)(t_rand() % (CW - ow + 1)), cy = (int)(t_rand() % (CH - oh + 1));
            lumen_image *canvas = NULL, *v = NULL, *src = NULL;
            CHECK_OK(lumen_image_create(CW, CH, dc, &canvas));
            uint8_t *cm;
            CHECK_OK(lumen_image_map(canvas, LUMEN_ACCESS_WRITE, &cm));
            size_t cs = lumen_image_stride(canvas), bytes = cs * CH;
            for (size_t i = 0; i < bytes; i++) cm[i] = (uint8_t)t_rand();
            uint8_t *before = malloc(bytes);
            memcpy(before, cm, bytes);
            CHECK_OK(lumen_image_view(canvas, cx, cy, ow, oh, 0, &v));
            lumen_image_destroy(canvas);
            CHECK_OK(lumen_image_wrap(part.data, w, h, c, part.stride, &src));
            CHECK_OK(t_run_pipe(p, ctx, src, v, a, b));
            uint8_t *vm;
            CHECK_OK(lumen_image_map(v, LUMEN_ACCESS_READ, &vm));
            CHECK(vm == cm + cy * cs + (size_t)cx * dc, "view pointer");
            ref_image want = {malloc((size_t)ow * oh * dc), ow, oh, dc, (size_t)ow * dc};
            reference(p, part, want, a, b);
            int bad = 0;
            for (int j = 0; j < CH; j++)
                for (size_t i = 0; i < (size_t)CW * dc; i++) {
                    int in = j >= cy && j < cy + oh && i >= (size_t)cx * dc &&
                             i < (size_t)(cx + ow) * dc;
                    uint8_t got = cm[j * cs + i];
                    bad += in ? got != want.data[(j - cy) * want.stride + i - (size_t)cx * dc]
                              : got != before[j * cs + i];
                }
            CHECK(bad == 0, "%s into a view %dx%d at (%d,%d) of %dx%d: %d bytes wrong", names[p],
                  ow, oh, cx, cy, CW, CH, bad);
            lumen_image_destroy(src);
            lumen_image_destroy(v); /* frees the canvas */
            free(want.data), free(before), free(part.data), free(full.data);
            t_image_free(&parent);
        }
}

/* The YUV functions' images as views: a frame into a view of a canvas (the rest unchanged) and
 * that view back into a frame. */
static void check_yuv_views(void) {
    int w = 34, h = 18, cw = 50, ch = 30, x = 7, y = 5;
    t_frame fr = t_frame_new(LUMEN_YUV_NV12, w, h, 3, 1);
    t_frame got = t_frame_new(LUMEN_YUV_I420, w, h, 0, 0);
    t_frame ref = t_frame_new(LUMEN_YUV_I420, w, h, 0, 0);
    t_image canvas = t_image_new(cw, ch, 3, 0, 1);
    uint8_t *before = malloc(canvas.ref.stride * ch);
    memcpy(before, canvas.mem, canvas.ref.stride * ch);
    lumen_image *v = NULL;
    CHECK_OK(lumen_image_view(canvas.img, x, y, w, h, 0, &v));
    CHECK_OK(lumen_yuv_to_rgb(ctx, &fr.f, v, LUMEN_YUV_BT709_FULL));
    t_sync(&canvas);
    ref_image want = {malloc((size_t)w * h * 3), w, h, 3, (size_t)w * 3};
    ref_yuv_to_rgb(&fr.r, want, 0, LUMEN_YUV_BT709_FULL);
    int bad = 0;
    for (int j = 0; j < ch; j++)
        for (int i = 0; i < cw * 3; i++) {
            int in = j >= y && j < y + h && i >= x * 3 && i < (x + w) * 3;
            uint8_t g = canvas.mem[j * canvas.ref.stride + i];
            bad += in ? g != want.data[(j - y) * want.stride + i - x * 3]
                      : g != before[j * canvas.ref.stride + i];
        }
    CHECK(bad == 0, "yuv_to_rgb into a view: %d bytes wrong", bad);
    CHECK_OK(lumen_rgb_to_yuv(ctx, v, &got.f, LUMEN_YUV_BT601_LIMITED));
    ref_image part = crop(canvas.ref, x, y, w, h);
    ref_rgb_to_yuv(part, 0, &ref.r, LUMEN_YUV_BT601_LIMITED);
    for (int k = 0; k < 3; k++)
        CHECK(memcmp(got.mem[k], ref.mem[k], got.bytes[k]) == 0, "rgb_to_yuv from a view: plane %d",
              k);
    lumen_image_destroy(v);
    free(before), free(want.data), free(part.data);
    t_image_free(&canvas);
    t_frame_free(&fr), t_frame_free(&got), t_frame_free(&ref);
}

/* levels may run in place (src == dst). */
static void check_in_place(void) {
    t_image img = t_image_new(203, 37, 3, 7, 1);
    ref_image want = {malloc(203 * 37 * 3), 203, 37, 3, 203 * 3};
    ref_levels(img.ref, want, 1.7f, -30.0f);
    CHECK_OK(lumen_levels(ctx, img.img, img.img, 1.7f, -30.0f));
    t_sync(&img);
    long n_diff;
    int pad_ok, max = t_compare(&img, want, &n_diff, &pad_ok);
    (void)pad_ok; /* the padding is random here, not a canary */
    CHECK(max == 0, "levels in place: max diff %d, %ld differ", max, n_diff);
    free(want.data);
    t_image_free(&img);
}

/* A chain whose intermediates stay wherever the backend leaves them, vs the same chain on the
 * CPU reference. */
static void check_chain(void) {
    t_image src = t_image_new(257, 131, 3, 5, 1);
    lumen_image *a = NULL, *b = NULL;
    CHECK_OK(lumen_image_create(257, 131, 3, &a));
    CHECK_OK(lumen_image_create(257, 131, 3, &b));
    t_image out = t_image_new(100, 50, 3, 0, 0);
    CHECK_OK(lumen_gaussian_blur(ctx, src.img, a, 1.5f));
    CHECK_OK(lumen_unsharp_mask(ctx, a, b, 2.0f, 1.8f));
    CHECK_OK(lumen_levels(ctx, b, b, 0.9f, 10.0f));
    CHECK_OK(lumen_resize(ctx, b, out.img));
    t_sync(&out);

    ref_image r1 = {malloc(257 * 131 * 3), 257, 131, 3, 257 * 3};
    ref_image r2 = {malloc(257 * 131 * 3), 257, 131, 3, 257 * 3};
    ref_image r3 = {malloc(100 * 50 * 3), 100, 50, 3, 300};
    ref_gaussian_blur(src.ref, r1, 1.5f);
    ref_unsharp_mask(r1, r2, 2.0f, 1.8f);
    ref_levels(r2, r2, 0.9f, 10.0f);
    ref_resize(r2, r3);
    long n_diff;
    int pad_ok, max = t_compare(&out, r3, &n_diff, &pad_ok);
    CHECK(max == 0 && pad_ok, "chain: max diff %d (%ld pixels differ)", max, n_diff);
    free(r1.data), free(r2.data), free(r3.data);
    lumen_image_destroy(a);
    lumen_image_destroy(b);
    t_image_free(&src);
    t_image_free(&out);
}

/* The variant Halide's wrapper should pick: the best this CPU has, capped by LUMEN_MAX_CPU_ISA. */
static const char *expected_variant(void) {
    static const char *const levels[] = {"baseline", "sse41", "avx2", "avx512"};
    __builtin_cpu_init();
    int best = 0;
    if (__builtin_cpu_supports("sse4.1")) best = 1;
    if (best == 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = 2;
    if (best == 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512cd"))
        best = 3;
    const char *cap = getenv("LUMEN_MAX_CPU_ISA");
    for (int i = 0; cap && i < 4; i++)
        if (strcmp(cap, levels[i]) == 0 && i < best) best = i;
    return levels[best];
}

/* 16-bit and float images: levels, resize, gaussian_blur and unsharp_mask against the reference
 * (u16 exact, float within 2^-20 relative), padded rows, views, in place, saturation;
 * grayscale and sobel refuse them. */
typedef struct {
    uint8_t *mem;
    lumen_image *img;
    ref_wide ref;
} t_wide;

static t_wide wide_new(int w, int h, lumen_format f, int pad, int random) {
    int es = lumen_format_element_size(f), c = lumen_format_channels(f);
    size_t stride = ((size_t)w * c + (size_t)pad) * (size_t)es;
    t_wide t = {malloc(stride * h), NULL, {NULL, w, h, c, es, stride}};
    t.ref.data = t.mem;
    for (size_t i = 0; i < stride * h / (size_t)es; i++) {
        if (es == 2) ((uint16_t *)t.mem)[i] = random ? (uint16_t)t_rand() : 0;
        if (es == 4) ((float *)t.mem)[i] = random ? (float)(t_rand() % 100001) / 100000.0f : 0.0f;
    }
    CHECK_OK(lumen_image_wrap_format(t.mem, w, h, f, stride, &t.img));
    return t;
}

static void wide_free(t_wide *t) {
    lumen_image_destroy(t->img);
    free(t->mem);
}

/* Largest difference of img (mapped) from want: absolute for 16-bit, relative (to max(1, |v|))
 * for float. */
static double wide_diff(lumen_image *img, ref_wide want) {
    uint8_t *p = NULL;
    CHECK_OK(lumen_image_map(img, LUMEN_ACCESS_READ, &p));
    ref_wide got = want;
    got.data = p, got.stride = lumen_image_stride(img);
    double worst = 0;
    for (int y = 0; p && y < want.h; y++)
        for (int x = 0; x < want.w; x++)
            for (int c = 0; c < want.c; c++) {
                double a = ref_wide_get(got, x, y, c), b = ref_wide_get(want, x, y, c);
                double d = fabs(a - b) / (want.elem == 4 && fabs(b) > 1 ? fabs(b) : 1);
                worst = d > worst ? d : worst;
            }
    return worst;
}

static void check_wide(void) {
    static const lumen_format formats[] = {LUMEN_FORMAT_GRAY16, LUMEN_FORMAT_RGB16,
                                           LUMEN_FORMAT_BGRA16, LUMEN_FORMAT_GRAYF32,
                                           LUMEN_FORMAT_RGBF32, LUMEN_FORMAT_RGBAF32};
    static const int sizes[][2] = {{1, 1}, {37, 23}, {200, 150}};
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++) {
        lumen_format f = formats[fi];
        int es = lumen_format_element_size(f);
        double tol = es == 4 ? 1.0 / (1 << 20) : 0;
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int w = sizes[si][0], h = sizes[si][1], pad = (int)si * 3;
            t_wide src = wide_new(w, h, f, pad, 1);
            /* levels: saturating both ways on 16-bit */
            float gains[] = {1.0f, frand(-3.0f, 3.0f), 200.0f},
                  biases[] = {0.0f, frand(-300, 300), -1000};
            for (int k = 0; k < 3; k++) {
                t_wide dst = wide_new(w, h, f, pad + 1, 0), want = wide_new(w, h, f, 0, 0);
                CHECK_OK(lumen_levels(ctx, src.img, dst.img, gains[k], biases[k]));
                ref_levels_wide(src.ref, want.ref, gains[k], biases[k]);
                double d = wide_diff(dst.img, want.ref);
                CHECK(d <= tol, "levels %s %dx%d gain %g bias %g: off by %g", lumen_format_name(f),
                      w, h, (double)gains[k], (double)biases[k], d);
                wide_free(&dst), wide_free(&want);
            }
            /* resize: down, up, uneven, to 1x1 */
            int outs[][2] = {
                {w / 2 + 1, h / 2 + 1}, {2 * w, 2 * h}, {w * 3 / 2 + 1, h * 2 / 3 + 1}, {1, 1}};
            for (int k = 0; k < 4; k++) {
                int ow = outs[k][0], oh = outs[k][1];
                t_wide dst = wide_new(ow, oh, f, pad, 0), want = wide_new(ow, oh, f, 0, 0);
                CHECK_OK(lumen_resize(ctx, src.img, dst.img));
                ref_resize_wide(src.ref, want.ref);
                double d = wide_diff(dst.img, want.ref);
                CHECK(d <= tol, "resize %s %dx%d -> %dx%d: off by %g", lumen_format_name(f), w, h,
                      ow, oh, d);
                wide_free(&dst), wide_free(&want);
            }
            /* blur and unsharp: small, mid and largest sigma; amounts that saturate */
            float sigmas[] = {0.5f, frand(0.6f, 4.0f), 16.0f}, amounts[] = {0.0f, 1.7f, 16.0f};
            for (int k = 0; k < 3; k++) {
                t_wide dst = wide_new(w, h, f, pad, 0), want = wide_new(w, h, f, 0, 0);
                CHECK_OK(lumen_gaussian_blur(ctx, src.img, dst.img, sigmas[k]));
                ref_gaussian_blur_wide(src.ref, want.ref, sigmas[k]);
                double d = wide_diff(dst.img, want.ref);
                double btol = es == 4 ? 1.0 / (1 << 16) : 0; /* float sums of up to 97 taps */
                CHECK(d <= btol, "gaussian_blur %s %dx%d sigma %g: off by %g", lumen_format_name(f),
                      w, h, (double)sigmas[k], d);
                CHECK_OK(lumen_unsharp_mask(ctx, src.img, dst.img, sigmas[k], amounts[k]));
                ref_unsharp_mask_wide(src.ref, want.ref, sigmas[k], amounts[k]);
                d = wide_diff(dst.img, want.ref);
                CHECK(d <= btol * (1 + amounts[k]),
                      "unsharp_mask %s %dx%d sigma %g amount %g: off by %g", lumen_format_name(f),
                      w, h, (double)sigmas[k], (double)amounts[k], d);
                wide_free(&dst), wide_free(&want);
            }
            if (w > 8) { /* a view as src (element-sized offsets), and levels in place */
                lumen_image *v = NULL;
                CHECK_OK(lumen_image_view(src.img, 3, 2, w - 5, h - 4, 0, &v));
                t_wide dst = wide_new(w / 2, h / 2, f, 0, 0),
                       want = wide_new(w / 2, h / 2, f, 0, 0);
                ref_wide part = src.ref;
                part.data = (uint8_t *)src.mem + 2 * src.ref.stride + 3 * (size_t)part.c * es;
                part.w = w - 5, part.h = h - 4;
                CHECK_OK(lumen_resize(ctx, v, dst.img));
                ref_resize_wide(part, want.ref);
                CHECK(wide_diff(dst.img, want.ref) <= tol, "resize %s from a view",
                      lumen_format_name(f));
                uint8_t *px = NULL;
                CHECK_OK(lumen_image_map(src.img, LUMEN_ACCESS_READ, &px));
                part.w = w / 2, part.h = h / 2; /* the in-place view's pixels */
                ref_levels_wide(part, want.ref, 0.5f, 7.0f);
                lumen_image *v2 = NULL;
                CHECK_OK(lumen_image_view(src.img, 3, 2, w / 2, h / 2, 0, &v2));
                CHECK_OK(lumen_levels(ctx, v2, v2, 0.5f, 7.0f));
                CHECK(wide_diff(v2, want.ref) <= tol, "levels %s in place on a view",
                      lumen_format_name(f));
                lumen_image_destroy(v2), lumen_image_destroy(v);
                wide_free(&dst), wide_free(&want);
            }
            wide_free(&src);
        }
        /* what does not take them */
        lumen_image *a = NULL, *g8 = NULL;
        int c = lumen_format_channels(f);
        CHECK_OK(lumen_image_create_format(16, 8, f, &a));
        CHECK_OK(lumen_image_create(16, 8, 1, &g8));
        if (c == 1)
            CHECK(lumen_sobel(ctx, a, g8) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
                      strstr(lumen_last_error(), "8-bit formats only"),
                  "sobel on %s: %s", lumen_format_name(f), lumen_last_error());
        if (c > 1) CHECK(lumen_grayscale(ctx, a, g8) == LUMEN_ERROR_UNSUPPORTED_FORMAT, "gray");
        lumen_image *eight = NULL;
        CHECK_OK(lumen_image_create(16, 8, c, &eight));
        CHECK(lumen_levels(ctx, a, eight, 1.0f, 0.0f) == LUMEN_ERROR_SIZE_MISMATCH,
              "levels %s into 8-bit", lumen_format_name(f));
        CHECK(lumen_resize(ctx, eight, a) == LUMEN_ERROR_SIZE_MISMATCH, "resize 8-bit into %s",
              lumen_format_name(f));
        lumen_image_destroy(eight), lumen_image_destroy(a), lumen_image_destroy(g8);
    }
    /* element size rules of wrap */
    static uint16_t buf[64];
    lumen_image *img = NULL;
    CHECK(lumen_image_wrap_format(buf, 4, 4, LUMEN_FORMAT_GRAY16, 9, &img) ==
              LUMEN_ERROR_INVALID_ARGUMENT,
          "odd stride for 16-bit");
    CHECK(lumen_image_wrap_format(buf, 4, 4, LUMEN_FORMAT_GRAY16, 6, &img) ==
              LUMEN_ERROR_INVALID_ARGUMENT,
          "stride < 4 * 2 bytes");
    CHECK(lumen_image_wrap_format((uint8_t *)buf + 1, 4, 4, LUMEN_FORMAT_GRAY16, 8, &img) ==
              LUMEN_ERROR_INVALID_ARGUMENT,
          "misaligned 16-bit data");
    CHECK(lumen_image_create_format(4, 4, (lumen_format)0x3003, &img) ==
              LUMEN_ERROR_UNSUPPORTED_FORMAT,
          "element type 3");
    CHECK(lumen_format_element_size(LUMEN_FORMAT_BGRAF32) == 4 &&
              lumen_format_element_size(LUMEN_FORMAT_RGB16) == 2 &&
              lumen_format_element_size(LUMEN_FORMAT_GRAY8) == 1 &&
              lumen_format_element_size((lumen_format)0x1101) == 0,
          "lumen_format_element_size");
    CHECK(!strcmp(lumen_format_name(LUMEN_FORMAT_BGRAF32), "BGRAF32") &&
              !strcmp(lumen_format_name(LUMEN_FORMAT_GRAY16), "GRAY16"),
          "lumen_format_name");
    CHECK_OK(lumen_image_create_format(5, 3, LUMEN_FORMAT_RGBF32, &img));
    CHECK(lumen_image_stride(img) == 64 && lumen_image_channels(img) == 3, "RGBF32 5x3 stride %zu",
          lumen_image_stride(img));
    lumen_image_destroy(img);
}

/* Planar formats: each plane is processed as a gray image, so the references run on each plane
 * (c = 1 over the plane's memory). Padded rows and planes (wrap_planar), created images, views
 * (a blur reads around its source view), levels in place, and what does not take them. */
static double plane_at(const uint8_t *p, int es, size_t stride, int x, int y) {
    const uint8_t *e = p + (size_t)y * stride + (size_t)x * es;
    return es == 1 ? *e : es == 2 ? *(const uint16_t *)e : *(const float *)e;
}

/* op: 0 levels (a gain, b bias), 1 gaussian_blur (a sigma), 2 resize, 3 unsharp_mask. */
static void plane_ref(int op, int es, uint8_t *s, size_t ss, int w, int h, uint8_t *d, size_t ds,
                      int ow, int oh, float a, float b) {
    if (es == 1) {
        ref_image si = {s, w, h, 1, ss}, di = {d, ow, oh, 1, ds};
        if (op == 0) ref_levels(si, di, a, b);
        if (op == 1) ref_gaussian_blur(si, di, a);
        if (op == 2) ref_resize(si, di);
        if (op == 3) ref_unsharp_mask(si, di, a, b);
        return;
    }
    ref_wide si = {s, w, h, 1, es, ss}, di = {d, ow, oh, 1, es, ds};
    if (op == 0) ref_levels_wide(si, di, a, b);
    if (op == 1) ref_gaussian_blur_wide(si, di, a);
    if (op == 2) ref_resize_wide(si, di);
    if (op == 3) ref_unsharp_mask_wide(si, di, a, b);
}

/* Largest difference (relative for float, as wide_diff) of img's plane k, its (x0, y0) w x h
 * rectangle, from want (rows of ws bytes). */
static double plane_diff(lumen_image *img, int k, const uint8_t *want, size_t ws, int x0, int y0,
                         int w, int h) {
    uint8_t *p = NULL;
    CHECK_OK(lumen_image_map(img, LUMEN_ACCESS_READ, &p));
    int es = lumen_format_element_size(lumen_image_format(img));
    double worst = 0;
    for (int y = 0; p && y < h; y++)
        for (int x = 0; x < w; x++) {
            double a =
                plane_at(p + k * lumen_image_plane_stride(img), es, lumen_image_stride(img), x, y);
            double b = plane_at(want, es, ws, x0 + x, y0 + y);
            double d = fabs(a - b) / (es == 4 && fabs(b) > 1 ? fabs(b) : 1);
            worst = d > worst ? d : worst;
        }
    return worst;
}

static void check_planar(void) {
    static const lumen_format formats[] = {LUMEN_FORMAT_RGB8_PLANAR, LUMEN_FORMAT_BGRA8_PLANAR,
                                           LUMEN_FORMAT_RGB16_PLANAR, LUMEN_FORMAT_RGBAF32_PLANAR};
    static const char *const ops[] = {"levels", "gaussian_blur", "resize", "unsharp_mask"};
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++) {
        lumen_format f = formats[fi];
        int es = lumen_format_element_size(f), c = lumen_format_channels(f);
        for (int si = 0; si < 2; si++) {
            int w = si ? 120 : 37, h = si ? 70 : 23, pad = si ? 0 : 5;
            size_t ss = (size_t)(w + pad) * es, sp = ss * (size_t)(h + 2 * pad), n = sp * c;
            uint8_t *mem = malloc(n), *ref = malloc(n * 4);
            for (size_t i = 0; i < n / (size_t)es; i++) {
                if (es == 1) mem[i] = (uint8_t)t_rand();
                if (es == 2) ((uint16_t *)mem)[i] = (uint16_t)t_rand();
                if (es == 4) ((float *)mem)[i] = (float)(t_rand() % 100001) / 100000.0f;
            }
            lumen_image *src = NULL;
            CHECK_OK(lumen_image_wrap_planar(mem, w, h, f, ss, sp, &src));
            double tol = es == 4 ? 1.0 / (1 << 16) : 0;
            for (int op = 0; op < 4; op++) {
                int ow = op == 2 ? w * 2 / 3 + 1 : w, oh = op == 2 ? h * 3 / 2 : h;
                float a = op == 0 ? frand(-3.0f, 3.0f) : frand(0.5f, 5.0f);
                float b = op == 0 ? frand(-300, 300) : frand(0.0f, 3.0f);
                lumen_image *dst = NULL;
                CHECK_OK(lumen_image_create_format(ow, oh, f, &dst));
                lumen_status st = op == 0   ? lumen_levels(ctx, src, dst, a, b)
                                  : op == 1 ? lumen_gaussian_blur(ctx, src, dst, a)
                                  : op == 2 ? lumen_resize(ctx, src, dst)
                                            : lumen_unsharp_mask(ctx, src, dst, a, b);
                CHECK(st == LUMEN_OK, "%s %s: %s", ops[op], lumen_format_name(f),
                      lumen_last_error());
                size_t ds = (size_t)ow * es;
                for (int k = 0; k < c; k++) {
                    plane_ref(op, es, mem + k * sp, ss, w, h, ref, ds, ow, oh, a, b);
                    double d = plane_diff(dst, k, ref, ds, 0, 0, ow, oh);
                    CHECK(d <= tol * (op == 3 ? 1 + b : 1), "%s %s %dx%d plane %d: off by %g",
                          ops[op], lumen_format_name(f), w, h, k, d);
                }
                lumen_image_destroy(dst);
            }
            /* a view: the blur reads the plane around it; resize reads only the view */
            lumen_image *v = NULL, *dv = NULL, *dr = NULL;
            CHECK_OK(lumen_image_view(src, 3, 2, w - 7, h - 5, 0, &v));
            CHECK_OK(lumen_image_create_format(w - 7, h - 5, f, &dv));
            CHECK_OK(lumen_image_create_format(w / 2, h / 2, f, &dr));
            CHECK_OK(lumen_gaussian_blur(ctx, v, dv, 1.5f));
            CHECK_OK(lumen_resize(ctx, v, dr));
            for (int k = 0; k < c; k++) {
                size_t ds = (size_t)w * es;
                plane_ref(1, es, mem + k * sp, ss, w, h, ref, ds, w, h, 1.5f, 0);
                CHECK(plane_diff(dv, k, ref, ds, 3, 2, w - 7, h - 5) <= tol,
                      "blur of a %s view, plane %d", lumen_format_name(f), k);
                ds = (size_t)(w / 2) * es;
                plane_ref(2, es, mem + k * sp + 2 * ss + 3 * (size_t)es, ss, w - 7, h - 5, ref, ds,
                          w / 2, h / 2, 0, 0);
                CHECK(plane_diff(dr, k, ref, ds, 0, 0, w / 2, h / 2) <= tol,
                      "resize of a %s view, plane %d", lumen_format_name(f), k);
            }
            /* levels in place on the view, then on the whole image */
            memcpy(ref, mem, n);
            CHECK_OK(lumen_levels(ctx, v, v, 0.5f, 7.0f));
            CHECK_OK(lumen_levels(ctx, src, src, 1.5f, -3.0f));
            for (int k = 0; k < c; k++) {
                uint8_t *p = ref + k * sp, *in = ref + n + k * sp;
                memcpy(in, p, sp);
                plane_ref(0, es, in + 2 * ss + 3 * (size_t)es, ss, w - 7, h - 5,
                          p + 2 * ss + 3 * (size_t)es, ss, w - 7, h - 5, 0.5f, 7.0f);
                memcpy(in, p, sp);
                plane_ref(0, es, in, ss, w, h, p, ss, w, h, 1.5f, -3.0f);
                CHECK(plane_diff(src, k, p, ss, 0, 0, w, h) <= (es == 4 ? 1.0 / (1 << 20) : 0),
                      "levels in place on a %s view and image, plane %d", lumen_format_name(f), k);
            }
            lumen_image_destroy(v), lumen_image_destroy(dv), lumen_image_destroy(dr);
            lumen_image_destroy(src);
            free(mem), free(ref);
        }
        /* what does not take them */
        lumen_image *a = NULL, *il = NULL, *g8 = NULL;
        CHECK_OK(lumen_image_create_format(16, 8, f, &a));
        CHECK_OK(lumen_image_create_format(16, 8, (lumen_format)(f & ~LUMEN_FORMAT_PLANAR), &il));
        CHECK_OK(lumen_image_create(16, 8, 1, &g8));
        CHECK(lumen_image_plane_stride(a) == 8 * lumen_image_stride(a) &&
                  lumen_image_stride(a) == 64 && lumen_image_plane_stride(il) == 0,
              "%s strides %zu, %zu", lumen_format_name(f), lumen_image_stride(a),
              lumen_image_plane_stride(a));
        CHECK(lumen_grayscale(ctx, a, g8) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
                  strstr(lumen_last_error(), es == 1 ? "planar" : "8-bit formats only"),
              "grayscale of %s: %s", lumen_format_name(f), lumen_last_error());
        CHECK(lumen_levels(ctx, a, il, 1.0f, 0.0f) == LUMEN_ERROR_SIZE_MISMATCH &&
                  lumen_resize(ctx, il, a) == LUMEN_ERROR_SIZE_MISMATCH,
              "%s to and from interleaved", lumen_format_name(f));
        if (es == 1) {
            uint8_t y[64] = {0}, uv[32] = {0};
            lumen_yuv_frame fr = {LUMEN_YUV_NV12, 16, 8, {y, uv, NULL}, {16, 16, 0}};
            lumen_image *small = NULL;
            CHECK_OK(lumen_image_create_format(4, 2, f, &small));
            fr.width = 4, fr.height = 2, fr.strides[0] = fr.strides[1] = 4;
            CHECK(lumen_yuv_to_rgb(ctx, &fr, small, LUMEN_YUV_BT601_FULL) ==
                      LUMEN_ERROR_UNSUPPORTED_FORMAT,
                  "yuv_to_rgb into %s", lumen_format_name(f));
            lumen_image_destroy(small);
        }
        lumen_image_destroy(a), lumen_image_destroy(il), lumen_image_destroy(g8);
    }
    static uint8_t buf[4096];
    lumen_image *img = NULL;
    CHECK(lumen_image_create_format(4, 4, (lumen_format)(LUMEN_FORMAT_GRAY8 | LUMEN_FORMAT_PLANAR),
                                    &img) == LUMEN_ERROR_UNSUPPORTED_FORMAT,
          "planar gray");
    CHECK(lumen_image_wrap_planar(buf, 4, 4, LUMEN_FORMAT_RGB8, 4, 16, &img) ==
              LUMEN_ERROR_UNSUPPORTED_FORMAT,
          "wrap_planar of an interleaved format");
    CHECK(lumen_image_wrap_planar(buf, 4, 4, LUMEN_FORMAT_RGB8_PLANAR, 4, 15, &img) ==
              LUMEN_ERROR_INVALID_ARGUMENT,
          "planes overlapping");
    CHECK(lumen_image_wrap_planar(buf, 4, 4, LUMEN_FORMAT_RGB8_PLANAR, 4, 0, &img) ==
              LUMEN_ERROR_INVALID_ARGUMENT,
          "plane_stride 0");
    CHECK(lumen_image_wrap_planar(buf, 4, 4, LUMEN_FORMAT_RGB8_PLANAR, 3, 16, &img) ==
              LUMEN_ERROR_INVALID_ARGUMENT,
          "stride < width");
    CHECK(lumen_image_wrap_planar(buf, 4, 4, LUMEN_FORMAT_RGB16_PLANAR, 8, 33, &img) ==
              LUMEN_ERROR_INVALID_ARGUMENT,
          "odd plane_stride for 16-bit");
    CHECK(lumen_image_wrap_planar(buf, 0, 4, LUMEN_FORMAT_RGB8, 4, 16, &img) ==
              LUMEN_ERROR_INVALID_ARGUMENT,
          "width before format");
    CHECK(lumen_image_wrap_planar(buf, 4, 4, LUMEN_FORMAT_RGB8_PLANAR, 4, (size_t)1 << 30, &img) ==
              LUMEN_ERROR_INVALID_ARGUMENT,
          "3 planes of 1 GiB");
    CHECK(img == NULL, "nothing made");
    CHECK(!strcmp(lumen_format_name(LUMEN_FORMAT_BGRAF32_PLANAR), "BGRAF32_PLANAR") &&
              !strcmp(lumen_format_name(LUMEN_FORMAT_PLANAR), "unknown") &&
              lumen_format_channels(LUMEN_FORMAT_RGB16_PLANAR) == 3 &&
              lumen_format_element_size(LUMEN_FORMAT_RGBA16_PLANAR) == 2,
          "planar format names");
    CHECK_OK(lumen_image_wrap_format(buf, 4, 4, LUMEN_FORMAT_RGB8_PLANAR, 5, &img));
    CHECK(lumen_image_plane_stride(img) == 20, "wrap_format: planes back to back");
    lumen_image_destroy(img);
}

/* Flips, rotations and thresholds (since 1.5) on every element type and layout: exact against
 * the references (on each plane of a planar image), views, in place, bad arguments. */
typedef struct {
    uint8_t *mem;
    lumen_image *img;
    ref_wide part[4]; /* the image, or each plane of a planar one */
    int parts;
} t_any;

static t_any any_new(int w, int h, lumen_format f, int pad) {
    int es = lumen_format_element_size(f), c = lumen_format_channels(f);
    int planar = ((unsigned)f & LUMEN_FORMAT_PLANAR) != 0;
    size_t stride = ((size_t)w * (planar ? 1 : c) + (size_t)pad) * es, plane = stride * h;
    size_t n = planar ? plane * c : stride * h;
    t_any t = {malloc(n), NULL, {{0}}, planar ? c : 1};
    for (size_t i = 0; i < n / (size_t)es; i++) {
        if (es == 1) t.mem[i] = (uint8_t)t_rand();
        if (es == 2) ((uint16_t *)t.mem)[i] = (uint16_t)t_rand();
        if (es == 4) ((float *)t.mem)[i] = (float)(t_rand() % 2001) / 1000.0f - 0.5f;
    }
    if (planar)
        CHECK_OK(lumen_image_wrap_planar(t.mem, w, h, f, stride, plane, &t.img));
    else
        CHECK_OK(lumen_image_wrap_format(t.mem, w, h, f, stride, &t.img));
    for (int k = 0; k < t.parts; k++)
        t.part[k] = (ref_wide){t.mem + k * plane, w, h, planar ? 1 : c, es, stride};
    return t;
}

/* 1 if img (mapped) holds want's elements in each part. */
static int any_same(t_any *img, const t_any *want) {
    uint8_t *p = NULL;
    CHECK_OK(lumen_image_map(img->img, LUMEN_ACCESS_READ, &p));
    for (int k = 0; p && k < img->parts; k++) {
        ref_wide a = img->part[k], b = want->part[k];
        for (int y = 0; y < a.h; y++)
            if (memcmp((uint8_t *)a.data + y * a.stride, (uint8_t *)b.data + y * b.stride,
                       (size_t)a.w * a.c * a.elem))
                return 0;
    }
    return p != NULL;
}

static void any_free(t_any *t) {
    lumen_image_destroy(t->img);
    free(t->mem);
}

static void check_geometry(void) {
    static const lumen_format formats[] = {
        LUMEN_FORMAT_GRAY8,   LUMEN_FORMAT_RGB8,          LUMEN_FORMAT_BGRA8,
        LUMEN_FORMAT_RGB16,   LUMEN_FORMAT_RGBAF32,       LUMEN_FORMAT_RGB8_PLANAR,
        LUMEN_FORMAT_GRAYF32, LUMEN_FORMAT_RGBA16_PLANAR, LUMEN_FORMAT_GRAY16};
    static const int sizes[][2] = {{1, 1}, {37, 23}, {64, 50}, {5, 130}, {131, 70}};
    static const int degrees[] = {90, 180, 270}, rot_mode[] = {5, 3, 6};
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++) {
        lumen_format f = formats[fi];
        const char *fn = lumen_format_name(f);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int w = sizes[si][0], h = sizes[si][1], pad = (int)si;
            t_any src = any_new(w, h, f, pad);
            for (int k = 0; k < 6; k++) { /* flips 1..3, then rotations */
                int mode = k < 3 ? k + 1 : rot_mode[k - 3], swap = mode & 4;
                int ow = swap ? h : w, oh = swap ? w : h;
                t_any dst = any_new(ow, oh, f, 2), want = any_new(ow, oh, f, 0);
                lumen_status st = k < 3 ? lumen_flip(ctx, src.img, dst.img, (lumen_flip_mode)mode)
                                        : lumen_rotate(ctx, src.img, dst.img, degrees[k - 3]);
                CHECK(st == LUMEN_OK, "%s %d on %s: %s", k < 3 ? "flip" : "rotate",
                      k < 3 ? mode : degrees[k - 3], fn, lumen_last_error());
                for (int p = 0; p < src.parts; p++) ref_orient(src.part[p], want.part[p], mode);
                CHECK(any_same(&dst, &want), "%s %d on %s %dx%d differs", k < 3 ? "flip" : "rotate",
                      k < 3 ? mode : degrees[k - 3], fn, w, h);
                any_free(&dst), any_free(&want);
            }
            int es = lumen_format_element_size(f);
            float top = es == 4 ? 1.0f : es == 2 ? 65535.0f : 255.0f;
            float ts[] = {frand(-0.2f, 1.2f) * top, -5.0f, top + 10, 127.5f, 0.25f};
            float ms[] = {frand(0, 1.3f) * top, 200.6f, -3, 1e6f, 0.5f};
            for (int type = 0; type <= 4; type++)
                for (int i = 0; i < 5; i++) {
                    t_any dst = any_new(w, h, f, 1), want = any_new(w, h, f, 0);
                    CHECK_OK(lumen_threshold(ctx, src.img, dst.img, ts[i], ms[i],
                                             (lumen_threshold_type)type));
                    for (int p = 0; p < src.parts; p++)
                        ref_threshold(src.part[p], want.part[p], ts[i], ms[i], type);
                    CHECK(any_same(&dst, &want), "threshold %d t %g m %g on %s %dx%d differs", type,
                          (double)ts[i], (double)ms[i], fn, w, h);
                    any_free(&dst), any_free(&want);
                }
            /* in place */
            t_any want = any_new(w, h, f, 0);
            for (int p = 0; p < src.parts; p++)
                ref_threshold(src.part[p], want.part[p], ts[0], ms[0], LUMEN_THRESH_TOZERO);
            CHECK_OK(lumen_threshold(ctx, src.img, src.img, ts[0], ms[0], LUMEN_THRESH_TOZERO));
            CHECK(any_same(&src, &want), "threshold in place on %s", fn);
            any_free(&want), any_free(&src);
        }
    }
    /* views: a rotated view of an image into a view of another */
    t_any a = any_new(40, 30, LUMEN_FORMAT_RGB8, 3), b = any_new(50, 60, LUMEN_FORMAT_RGB8, 0);
    t_any want = any_new(20, 12, LUMEN_FORMAT_RGB8, 0);
    lumen_image *va = NULL, *vb = NULL;
    CHECK_OK(lumen_image_view(a.img, 7, 5, 12, 20, 0, &va));
    CHECK_OK(lumen_image_view(b.img, 9, 11, 20, 12, 0, &vb));
    CHECK_OK(lumen_rotate(ctx, va, vb, 90));
    ref_wide part = a.part[0], out = b.part[0];
    part.data = a.mem + 5 * part.stride + 7 * 3, part.w = 12, part.h = 20;
    out.data = b.mem + 11 * out.stride + 9 * 3, out.w = 20, out.h = 12;
    ref_orient(part, want.part[0], 5);
    t_any got = {NULL, NULL, {out}, 1};
    uint8_t *px;
    CHECK_OK(lumen_image_map(b.img, LUMEN_ACCESS_READ, &px));
    got.img = vb;
    CHECK(any_same(&got, &want), "rotate a view into a view");
    lumen_image_destroy(va), lumen_image_destroy(vb);
    any_free(&a), any_free(&b), any_free(&want);
    /* bad arguments: nothing written */
    lumen_image *s = NULL, *d = NULL, *d16 = NULL;
    CHECK_OK(lumen_image_create(6, 4, 3, &s));
    CHECK_OK(lumen_image_create(4, 6, 3, &d));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGB16, &d16));
    CHECK(lumen_flip(ctx, s, d, LUMEN_FLIP_VERTICAL) == LUMEN_ERROR_SIZE_MISMATCH, "flip size");
    CHECK(lumen_rotate(ctx, s, d, 180) == LUMEN_ERROR_SIZE_MISMATCH, "rotate 180 size");
    CHECK(lumen_rotate(ctx, s, s, 90) == LUMEN_ERROR_SIZE_MISMATCH, "rotate 90 size");
    CHECK(lumen_rotate(ctx, s, d, 45) == LUMEN_ERROR_SIZE_MISMATCH, "rotate 45: size first");
    CHECK(lumen_rotate(ctx, d, d16, 45) == LUMEN_ERROR_SIZE_MISMATCH, "rotate: format");
    lumen_image *s2 = NULL;
    CHECK_OK(lumen_image_create(6, 4, 3, &s2));
    CHECK(lumen_rotate(ctx, s, s2, 45) == LUMEN_ERROR_INVALID_ARGUMENT &&
              strstr(lumen_last_error(), "degrees 45"),
          "rotate 45: %s", lumen_last_error());
    CHECK(lumen_flip(ctx, s, s2, (lumen_flip_mode)0) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_flip(ctx, s, s2, (lumen_flip_mode)4) == LUMEN_ERROR_INVALID_ARGUMENT,
          "flip mode");
    CHECK(lumen_flip(ctx, s, s, LUMEN_FLIP_BOTH) == LUMEN_ERROR_INVALID_ARGUMENT, "flip in place");
    CHECK(
        lumen_threshold(ctx, s, s2, NAN, 1, LUMEN_THRESH_BINARY) == LUMEN_ERROR_INVALID_ARGUMENT &&
            lumen_threshold(ctx, s, s2, 1, INFINITY, LUMEN_THRESH_BINARY) ==
                LUMEN_ERROR_INVALID_ARGUMENT &&
            lumen_threshold(ctx, s, s2, 1, 1, (lumen_threshold_type)5) ==
                LUMEN_ERROR_INVALID_ARGUMENT,
        "threshold arguments");
    CHECK(lumen_threshold(ctx, s, d16, 1, 1, LUMEN_THRESH_BINARY) == LUMEN_ERROR_SIZE_MISMATCH,
          "threshold format");
    lumen_image_destroy(s), lumen_image_destroy(s2), lumen_image_destroy(d),
        lumen_image_destroy(d16);
}

/* lumen_warp_affine: rotations and general maps on every element type and layout against the
 * reference (exact; float within 1e-5), both borders, identity and a translation against src
 * itself, views, bad input. */
static double elem_at(ref_wide r, int x, int y, int c) {
    return r.elem == 1 ? ((const uint8_t *)r.data)[y * r.stride + (size_t)x * r.c + c]
                       : ref_wide_get(r, x, y, c);
}

static int warp_diff(t_any *img, const t_any *want, int exact) {
    if (exact) return any_same(img, want) ? 0 : 1;
    uint8_t *p = NULL;
    CHECK_OK(lumen_image_map(img->img, LUMEN_ACCESS_READ, &p));
    for (int k = 0; p && k < img->parts; k++)
        for (int y = 0; y < want->part[k].h; y++)
            for (int x = 0; x < want->part[k].w; x++)
                for (int c = 0; c < want->part[k].c; c++)
                    if (fabs(ref_wide_get(img->part[k], x, y, c) -
                             ref_wide_get(want->part[k], x, y, c)) > 1e-5)
                        return 1;
    return p == NULL;
}

static void check_warp(void) {
    static const lumen_format formats[] = {
        LUMEN_FORMAT_GRAY8,   LUMEN_FORMAT_RGB8,        LUMEN_FORMAT_BGRA8,   LUMEN_FORMAT_RGB16,
        LUMEN_FORMAT_RGBAF32, LUMEN_FORMAT_RGB8_PLANAR, LUMEN_FORMAT_GRAYF32, LUMEN_FORMAT_GRAY16};
    /* the last: an output over 2048 wide (the CPU's tiles of columns) */
    static const int sizes[][4] = {{1, 1, 3, 2},    {37, 23, 40, 19}, {64, 50, 64, 50},
                                   {5, 130, 9, 61}, {64, 50, 20, 9},  {300, 40, 2100, 21}};
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++) {
        lumen_format f = formats[fi];
        const char *fn = lumen_format_name(f);
        int es = lumen_format_element_size(f), nc = lumen_format_channels(f);
        double top = es == 2 ? 65535 : 255;
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int w = sizes[si][0], h = sizes[si][1], ow = sizes[si][2], oh = sizes[si][3];
            t_any src = any_new(w, h, f, (int)si);
            for (int k = 0; k < 8; k++) {
                double m[6];
                int inv = k >= 4, rep = k & 1;
                if (!inv) { /* cv::getRotationMatrix2D about a random centre, scale 0.5..2 */
                    double a = frand(0, 6.3f), sc = frand(0.5f, 2), cx = frand(0, (float)w),
                           cy = frand(0, (float)h), al = sc * cos(a), be = sc * sin(a);
                    double r[6] = {al,  be, (1 - al) * cx - be * cy,
                                   -be, al, be * cx + (1 - al) * cy};
                    memcpy(m, r, sizeof m);
                } else { /* any map, dst to src */
                    for (int j = 0; j < 6; j++)
                        m[j] = j % 3 == 2 ? frand(-(float)w, 2.0f * w) : frand(-1.5f, 1.5f);
                }
                float value[4];
                double want_v[4], part_v[4];
                for (int c = 0; c < 4; c++) {
                    value[c] = es == 4 ? frand(-1, 2) : frand(-20, (float)top * 1.1f);
                    want_v[c] = es == 4 ? value[c] : fmin(fmax(nearbyint(value[c]), 0), top);
                }
                t_any dst = any_new(ow, oh, f, 2), want = any_new(ow, oh, f, 0);
                CHECK(lumen_warp_affine(ctx, src.img, dst.img, m, inv ? LUMEN_WARP_INVERSE_MAP : 0,
                                        rep ? LUMEN_BORDER_REPLICATE : LUMEN_BORDER_CONSTANT,
                                        value) == LUMEN_OK,
                      "warp_affine on %s: %s", fn, lumen_last_error());
                for (int p = 0; p < src.parts; p++) {
                    for (int c = 0; c < 4; c++) part_v[c] = src.parts > 1 ? want_v[p] : want_v[c];
                    ref_warp_affine(src.part[p], want.part[p], m, inv, rep, part_v);
                }
                CHECK(!warp_diff(&dst, &want, es != 4),
                      "warp_affine %d on %s %dx%d -> %dx%d differs", k, fn, w, h, ow, oh);
                any_free(&dst), any_free(&want);
            }
            /* identity: src itself; a translation by (3, -2): src shifted, value outside */
            static const double id[6] = {1, 0, 0, 0, 1, 0}, tr[6] = {1, 0, 3, 0, 1, -2};
            t_any dst = any_new(w, h, f, 1);
            CHECK_OK(lumen_warp_affine(ctx, src.img, dst.img, id, 0, LUMEN_BORDER_CONSTANT, NULL));
            CHECK(any_same(&dst, &src), "warp_affine identity on %s %dx%d", fn, w, h);
            float v7[4] = {7, 7, 7, 7};
            CHECK_OK(lumen_warp_affine(ctx, src.img, dst.img, tr, LUMEN_WARP_INVERSE_MAP,
                                       LUMEN_BORDER_CONSTANT, v7));
            uint8_t *px = NULL;
            CHECK_OK(lumen_image_map(dst.img, LUMEN_ACCESS_READ, &px));
            int bad = 0;
            for (int p = 0; px && p < src.parts; p++)
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        for (int c = 0; c < src.part[p].c; c++) {
                            int in = x + 3 < w && y - 2 >= 0;
                            double v = in ? elem_at(src.part[p], x + 3, y - 2, c) : 7;
                            bad += elem_at(dst.part[p], x, y, c) != v;
                        }
            CHECK(!bad, "warp_affine translation on %s %dx%d: %d elements differ", fn, w, h, bad);
            any_free(&dst), any_free(&src);
            (void)nc;
        }
    }
    /* views: a view (its edges the border) warped into a view of another image */
    t_any a = any_new(40, 30, LUMEN_FORMAT_RGB8, 3), b = any_new(50, 60, LUMEN_FORMAT_RGB8, 0);
    t_any want = any_new(20, 12, LUMEN_FORMAT_RGB8, 0);
    lumen_image *va = NULL, *vb = NULL;
    CHECK_OK(lumen_image_view(a.img, 7, 5, 12, 20, 0, &va));
    CHECK_OK(lumen_image_view(b.img, 9, 11, 20, 12, 0, &vb));
    static const double rot[6] = {0.8, 0.6, -3, -0.6, 0.8, 4};
    for (int rep = 0; rep < 2; rep++) {
        CHECK_OK(lumen_warp_affine(ctx, va, vb, rot, 0, (lumen_border)rep, NULL));
        ref_wide part = a.part[0], out = b.part[0];
        part.data = a.mem + 5 * part.stride + 7 * 3, part.w = 12, part.h = 20;
        out.data = b.mem + 11 * out.stride + 9 * 3, out.w = 20, out.h = 12;
        static const double zero[4] = {0, 0, 0, 0};
        ref_warp_affine(part, want.part[0], rot, 0, rep, zero);
        t_any got = {NULL, vb, {out}, 1};
        uint8_t *px;
        CHECK_OK(lumen_image_map(b.img, LUMEN_ACCESS_READ, &px));
        CHECK(any_same(&got, &want), "warp_affine a view into a view (border %d)", rep);
    }
    lumen_image_destroy(va), lumen_image_destroy(vb);
    any_free(&a), any_free(&b), any_free(&want);
    /* bad arguments */
    lumen_image *s = NULL, *d = NULL, *d16 = NULL;
    CHECK_OK(lumen_image_create(6, 4, 3, &s));
    CHECK_OK(lumen_image_create(9, 5, 3, &d));
    CHECK_OK(lumen_image_create_format(9, 5, LUMEN_FORMAT_RGB16, &d16));
    static const double id[6] = {1, 0, 0, 0, 1, 0}, sing[6] = {1, 2, 0, 2, 4, 0};
    double nan6[6] = {1, 0, NAN, 0, 1, 0};
    float badv[4] = {0, INFINITY, 0, 0};
    CHECK(lumen_warp_affine(ctx, s, d, NULL, 0, LUMEN_BORDER_CONSTANT, NULL) ==
                  LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_warp_affine(ctx, s, d, nan6, 0, LUMEN_BORDER_CONSTANT, NULL) ==
                  LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_warp_affine(ctx, s, d, sing, 0, LUMEN_BORDER_CONSTANT, NULL) ==
                  LUMEN_ERROR_INVALID_ARGUMENT &&
              strstr(lumen_last_error(), "singular") &&
              lumen_warp_affine(ctx, s, d, id, 1, LUMEN_BORDER_CONSTANT, NULL) ==
                  LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_warp_affine(ctx, s, d, id, 0, (lumen_border)4, NULL) ==
                  LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_warp_affine(ctx, s, d, id, 0, LUMEN_BORDER_CONSTANT, badv) ==
                  LUMEN_ERROR_INVALID_ARGUMENT,
          "warp_affine arguments: %s", lumen_last_error());
    CHECK(lumen_warp_affine(ctx, s, d16, id, 0, LUMEN_BORDER_CONSTANT, NULL) ==
              LUMEN_ERROR_SIZE_MISMATCH,
          "warp_affine format");
    CHECK(lumen_warp_affine(ctx, s, s, id, 0, LUMEN_BORDER_CONSTANT, NULL) ==
              LUMEN_ERROR_INVALID_ARGUMENT,
          "warp_affine in place");
    CHECK(lumen_warp_affine(ctx, s, d, sing, LUMEN_WARP_INVERSE_MAP, LUMEN_BORDER_REPLICATE,
                            NULL) == LUMEN_OK,
          "warp_affine: a singular inverse map is a map");
    lumen_image_destroy(s), lumen_image_destroy(d), lumen_image_destroy(d16);
}

/* The real area average of output (x, y) (doubles, from the overlaps; independent of the Q
 * weights). */
static double area_avg(ref_wide s, int ow, int oh, int x, int y, int c) {
    double sum = 0;
    for (int j = 0; j < s.h; j++) {
        double oy = fmin((y + 1.0) * s.h, (j + 1.0) * oh) - fmax((double)y * s.h, (double)j * oh);
        for (int i = 0; oy > 0 && i < s.w; i++) {
            double ox =
                fmin((x + 1.0) * s.w, (i + 1.0) * ow) - fmax((double)x * s.w, (double)i * ow);
            if (ox > 0) sum += ox * oy * elem_at(s, i, j, c);
        }
    }
    return sum / ((double)s.w * s.h);
}

/* Real weights (no rounding) of output i's taps along in -> out for CUBIC and LANCZOS3 (lumen.h):
 * w[k] for source lo + k, k < *n. */
static void real_taps(int i, int in, int out, int lanczos, double *w, int *lo, int *n) {
    if (!lanczos) {
        float fx = (float)((i + 0.5) * (1.0 / ((double)out / in)) - 0.5);
        int sx = (int)floorf(fx);
        double x = fx - sx, a = -0.75;
        double c[4] = {((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a,
                       ((a + 2) * x - (a + 3)) * x * x + 1,
                       ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1, 0};
        c[3] = 1 - c[0] - c[1] - c[2];
        *lo = sx - 1, *n = 4;
        memcpy(w, c, sizeof c);
        return;
    }
    double sum = ref_lanczos3_window(i, in, out, w, lo, n);
    for (int k = 0; k < *n; k++) w[k] /= sum;
}

/* The real-valued CUBIC or LANCZOS3 result at (x, y, c) of s resized to ow x oh, clamped to
 * the element's range (taps outside the source read its edge). */
static double kernel_real(ref_wide s, int ow, int oh, int x, int y, int c, int lanczos) {
    static double wx[4096], wy[4096]; /* taps <= max(source size, 4): sources up to 4096 */
    int x0, nx, y0, ny;
    real_taps(x, s.w, ow, lanczos, wx, &x0, &nx);
    real_taps(y, s.h, oh, lanczos, wy, &y0, &ny);
    double v = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            int xi = x0 + i < 0 ? 0 : x0 + i >= s.w ? s.w - 1 : x0 + i;
            int yj = y0 + j < 0 ? 0 : y0 + j >= s.h ? s.h - 1 : y0 + j;
            v += wx[i] * wy[j] * elem_at(s, xi, yj, c);
        }
    double top = s.elem == 2 ? 65535 : 255;
    return v < 0 ? 0 : v > top ? top : v;
}

/* lumen_resize_interp: NEAREST on every element type and layout, AREA on 8-bit, exact against
 * the references at integer, other and upscale ratios; AREA within 1 of the real average (so no
 * aliasing at 1/8); LINEAR is lumen_resize; views; bad input. */
static void check_resize_interp(void) {
    static const lumen_format formats[] = {
        LUMEN_FORMAT_GRAY8,   LUMEN_FORMAT_RGB8,        LUMEN_FORMAT_BGRA8,   LUMEN_FORMAT_RGB16,
        LUMEN_FORMAT_RGBAF32, LUMEN_FORMAT_RGB8_PLANAR, LUMEN_FORMAT_GRAYF32, LUMEN_FORMAT_RGBA8,
        LUMEN_FORMAT_RGBA16,  LUMEN_FORMAT_GRAY16};
    static const int sizes[][4] = {{1, 1, 3, 2},
                                   {37, 23, 40, 19},
                                   {64, 50, 32, 25},
                                   {60, 60, 20, 20},
                                   {64, 48, 16, 12},
                                   {90, 40, 30, 20},
                                   {100, 77, 13, 9},
                                   {5, 7, 23, 31},
                                   {8, 8, 1, 1},
                                   {200, 120, 25, 15},
                                   {70, 3, 9, 2},
                                   {1000, 3, 1, 1},
                                   /* widths divided by 1..4 (nearest's strided path), odd too */
                                   {260, 9, 130, 5},
                                   {303, 7, 101, 14},
                                   {404, 6, 101, 6},
                                   {131, 4, 131, 9}};
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++) {
        lumen_format f = formats[fi];
        const char *fn = lumen_format_name(f);
        int es = lumen_format_element_size(f);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int w = sizes[si][0], h = sizes[si][1], ow = sizes[si][2], oh = sizes[si][3];
            t_any src = any_new(w, h, f, (int)si);
            static const lumen_interp methods[] = {LUMEN_INTER_NEAREST, LUMEN_INTER_LINEAR,
                                                   LUMEN_INTER_AREA, LUMEN_INTER_CUBIC,
                                                   LUMEN_INTER_LANCZOS3};
            for (int m = 0; m < 5; m++) {
                lumen_interp in = methods[m];
                if (es == 4 ? m > 1 : es == 2 && in == LUMEN_INTER_AREA) continue; /* 8-bit */
                t_any dst = any_new(ow, oh, f, 2), want = any_new(ow, oh, f, 1);
                CHECK(lumen_resize_interp(ctx, src.img, dst.img, in) == LUMEN_OK,
                      "resize_interp %d on %s: %s", (int)in, fn, lumen_last_error());
                if (in == LUMEN_INTER_LINEAR) { /* want's pixels back from the device */
                    uint8_t *px = NULL;
                    CHECK_OK(lumen_resize(ctx, src.img, want.img));
                    CHECK_OK(lumen_image_map(want.img, LUMEN_ACCESS_READ, &px));
                }
                for (int p = 0; in != LUMEN_INTER_LINEAR && p < src.parts; p++) {
                    if (in == LUMEN_INTER_NEAREST)
                        ref_resize_nearest(src.part[p], want.part[p]);
                    else if (in == LUMEN_INTER_AREA)
                        ref_resize_area(src.part[p], want.part[p]);
                    else
                        ref_resize_kernel(src.part[p], want.part[p], in == LUMEN_INTER_LANCZOS3);
                }
                CHECK(any_same(&dst, &want), "resize_interp %d on %s %dx%d -> %dx%d differs",
                      (int)in, fn, w, h, ow, oh);
                if (in == LUMEN_INTER_AREA || in == LUMEN_INTER_CUBIC ||
                    in == LUMEN_INTER_LANCZOS3) { /* within 1 of the real-valued result */
                    double worst = 0;
                    for (int p = 0; p < src.parts; p++)
                        for (int y = 0; y < oh; y++)
                            for (int x = 0; x < ow; x++)
                                for (int c = 0; c < src.part[p].c; c++) {
                                    ref_wide sp = src.part[p];
                                    double r = in == LUMEN_INTER_AREA
                                                   ? area_avg(sp, ow, oh, x, y, c)
                                                   : kernel_real(sp, ow, oh, x, y, c,
                                                                 in == LUMEN_INTER_LANCZOS3);
                                    worst = fmax(worst, fabs(elem_at(dst.part[p], x, y, c) - r));
                                }
                    CHECK(worst <= 1.0, "resize %d on %s %dx%d -> %dx%d: %g from the real value",
                          (int)in, fn, w, h, ow, oh, worst);
                }
                any_free(&dst), any_free(&want);
            }
            any_free(&src);
        }
    }
    /* a view resized into a view of another image, both methods */
    t_any a = any_new(40, 30, LUMEN_FORMAT_RGB8, 3), b = any_new(50, 60, LUMEN_FORMAT_RGB8, 0);
    t_any want = any_new(7, 9, LUMEN_FORMAT_RGB8, 0);
    lumen_image *va = NULL, *vb = NULL;
    CHECK_OK(lumen_image_view(a.img, 7, 5, 22, 20, 0, &va));
    CHECK_OK(lumen_image_view(b.img, 9, 11, 7, 9, 0, &vb));
    for (int m = 0; m < 4; m++) {
        static const lumen_interp vm[] = {LUMEN_INTER_NEAREST, LUMEN_INTER_AREA, LUMEN_INTER_CUBIC,
                                          LUMEN_INTER_LANCZOS3};
        CHECK_OK(lumen_resize_interp(ctx, va, vb, vm[m]));
        ref_wide part = a.part[0], out = b.part[0];
        part.data = a.mem + 5 * part.stride + 7 * 3, part.w = 22, part.h = 20;
        out.data = b.mem + 11 * out.stride + 9 * 3, out.w = 7, out.h = 9;
        if (m == 1)
            ref_resize_area(part, want.part[0]);
        else if (m)
            ref_resize_kernel(part, want.part[0], m == 3);
        else
            ref_resize_nearest(part, want.part[0]);
        t_any got = {NULL, vb, {out}, 1};
        uint8_t *px;
        CHECK_OK(lumen_image_map(b.img, LUMEN_ACCESS_READ, &px));
        CHECK(any_same(&got, &want), "resize_interp %d: a view into a view", m);
    }
    lumen_image_destroy(va), lumen_image_destroy(vb);
    any_free(&a), any_free(&b), any_free(&want);
    /* Anti-aliasing: 1-pixel stripes (0, 255) at 1/8 become mid-gray with LANCZOS3 and AREA (CUBIC
     * reads 4 of every 8 columns: it aliases, as OpenCV's does). */
    for (int m = 0; m < 2; m++) {
        static const lumen_interp am[] = {LUMEN_INTER_LANCZOS3, LUMEN_INTER_AREA};
        lumen_image *st = NULL, *sd = NULL;
        uint8_t *px = NULL;
        CHECK_OK(lumen_image_create(203, 96, 1, &st));
        CHECK_OK(lumen_image_create(25, 12, 1, &sd));
        CHECK_OK(lumen_image_map(st, LUMEN_ACCESS_WRITE, &px));
        for (int y = 0; y < 96; y++)
            for (int x = 0; x < 203; x++) px[y * lumen_image_stride(st) + x] = x % 2 ? 255 : 0;
        CHECK_OK(lumen_resize_interp(ctx, st, sd, am[m]));
        CHECK_OK(lumen_image_map(sd, LUMEN_ACCESS_READ, &px));
        int lo = 255, hi = 0;
        for (int y = 0; y < 12; y++)
            for (int x = 1; x < 24; x++) { /* the edge columns see a truncated kernel */
                int v = px[y * lumen_image_stride(sd) + x];
                lo = v < lo ? v : lo, hi = v > hi ? v : hi;
            }
        CHECK(lo >= 120 && hi <= 135, "resize_interp %d of stripes at 1/8: %d..%d, not ~127",
              (int)am[m], lo, hi);
        lumen_image_destroy(st), lumen_image_destroy(sd);
    }
    /* bad arguments */
    lumen_image *s = NULL, *d = NULL, *d16 = NULL, *s16 = NULL, *sf = NULL, *df = NULL;
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGBF32, &sf));
    CHECK_OK(lumen_image_create_format(3, 2, LUMEN_FORMAT_RGBF32, &df));
    CHECK_OK(lumen_image_create(6, 4, 3, &s));
    CHECK_OK(lumen_image_create(3, 2, 3, &d));
    CHECK_OK(lumen_image_create_format(3, 2, LUMEN_FORMAT_RGB16, &d16));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGB16, &s16));
    CHECK(lumen_resize_interp(ctx, s, d, (lumen_interp)4) == LUMEN_ERROR_INVALID_ARGUMENT &&
              strstr(lumen_last_error(), "interp 4") &&
              lumen_resize_interp(ctx, s, d, (lumen_interp)-1) == LUMEN_ERROR_INVALID_ARGUMENT,
          "resize_interp: interp");
    CHECK(
        lumen_resize_interp(ctx, s16, d16, LUMEN_INTER_AREA) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
            lumen_resize_interp(ctx, sf, df, LUMEN_INTER_CUBIC) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
            lumen_resize_interp(ctx, sf, df, LUMEN_INTER_LANCZOS3) ==
                LUMEN_ERROR_UNSUPPORTED_FORMAT,
        "resize_interp: area on 16-bit, cubic and lanczos3 on float");
    CHECK(lumen_resize_interp(ctx, s, d16, LUMEN_INTER_NEAREST) == LUMEN_ERROR_SIZE_MISMATCH &&
              lumen_resize_interp(ctx, NULL, d, LUMEN_INTER_AREA) == LUMEN_ERROR_INVALID_ARGUMENT,
          "resize_interp: format, NULL");
    CHECK(lumen_resize_interp(ctx, s, s, LUMEN_INTER_NEAREST) == LUMEN_ERROR_INVALID_ARGUMENT,
          "resize_interp in place");
    lumen_image_destroy(s), lumen_image_destroy(d), lumen_image_destroy(d16),
        lumen_image_destroy(s16), lumen_image_destroy(sf), lumen_image_destroy(df);
}

/* lumen_histogram, lumen_lut and lumen_equalize_hist against the references: 8-bit formats,
 * sizes with one and several strips of rows, narrow and constant images, views, in place, bad
 * input. */
static void check_histogram(void) {
    static const lumen_format formats[] = {LUMEN_FORMAT_GRAY8, LUMEN_FORMAT_RGB8,
                                           LUMEN_FORMAT_BGRA8, LUMEN_FORMAT_RGB8_PLANAR};
    static const int sizes[][2] = {{1, 1}, {37, 23}, {64, 50}, {5, 130}, {300, 200}};
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++) {
        lumen_format f = formats[fi];
        const char *fn = lumen_format_name(f);
        int nc = lumen_format_channels(f);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int w = sizes[si][0], h = sizes[si][1];
            for (int kind = 0; kind < 3; kind++) { /* uniform, narrow (90..119), constant */
                t_any src = any_new(w, h, f, (int)si);
                for (int p = 0; p < src.parts; p++)
                    for (int y = 0; kind && y < h; y++)
                        for (int i = 0; i < w * src.part[p].c; i++)
                            ((uint8_t *)src.part[p].data)[y * src.part[p].stride + i] =
                                (uint8_t)(kind == 1 ? 90 + t_rand() % 30 : 77);
                uint32_t got[4 * 256], want[4 * 256];
                memset(got, 0xAB, sizeof got);
                CHECK_OK(lumen_histogram(ctx, src.img, got));
                for (int p = 0; p < src.parts; p++)
                    ref_histogram(src.part[p], want + 256 * p * src.part[0].c);
                CHECK(!memcmp(got, want, (size_t)nc * 256 * sizeof *got),
                      "histogram of %s %dx%d (kind %d) differs", fn, w, h, kind);
                uint8_t table[4 * 256];
                for (int i = 0; i < 4 * 256; i++) table[i] = (uint8_t)t_rand();
                for (int tc = 1; tc <= nc; tc += nc > 1 ? nc - 1 : 1) {
                    t_any dst = any_new(w, h, f, 1), ref = any_new(w, h, f, 0);
                    CHECK_OK(lumen_lut(ctx, src.img, dst.img, table, tc));
                    for (int p = 0; p < src.parts; p++)
                        ref_lut(src.part[p], ref.part[p], table + (tc > 1 ? 256 * p : 0),
                                tc > 1 && src.parts == 1);
                    CHECK(any_same(&dst, &ref), "lut (%d tables) on %s %dx%d differs", tc, fn, w,
                          h);
                    any_free(&dst), any_free(&ref);
                }
                if (f == LUMEN_FORMAT_GRAY8) {
                    t_any dst = any_new(w, h, f, 2), ref = any_new(w, h, f, 0);
                    CHECK_OK(lumen_equalize_hist(ctx, src.img, dst.img));
                    ref_equalize_hist(src.part[0], ref.part[0]);
                    CHECK(any_same(&dst, &ref), "equalize_hist of %dx%d (kind %d) differs", w, h,
                          kind);
                    /* in place; and independent of the reference: a non-constant image's
                     * largest value becomes 255 */
                    CHECK_OK(lumen_equalize_hist(ctx, src.img, src.img));
                    CHECK(any_same(&src, &ref), "equalize_hist in place differs");
                    int top = 0;
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) {
                            int v = ((uint8_t *)src.part[0].data)[y * src.part[0].stride + x];
                            top = v > top ? v : top;
                        }
                    CHECK(kind == 2 || w * h == 1 || top == 255, "equalize_hist: top %d", top);
                    any_free(&dst), any_free(&ref);
                }
                any_free(&src);
            }
        }
    }
    /* a view counts its own pixels */
    t_any a = any_new(40, 30, LUMEN_FORMAT_RGB8, 3);
    lumen_image *va = NULL;
    CHECK_OK(lumen_image_view(a.img, 7, 5, 12, 20, 0, &va));
    ref_wide part = a.part[0];
    part.data = a.mem + 5 * part.stride + 7 * 3, part.w = 12, part.h = 20;
    uint32_t got[3 * 256], want[3 * 256];
    CHECK_OK(lumen_histogram(ctx, va, got));
    ref_histogram(part, want);
    CHECK(!memcmp(got, want, sizeof got), "histogram of a view");
    lumen_image_destroy(va);
    any_free(&a);
    /* bad input */
    lumen_image *s = NULL, *d = NULL, *s16 = NULL, *rgb = NULL;
    CHECK_OK(lumen_image_create(6, 4, 1, &s));
    CHECK_OK(lumen_image_create(6, 4, 1, &d));
    CHECK_OK(lumen_image_create(6, 4, 3, &rgb));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_GRAY16, &s16));
    uint8_t table[256] = {0};
    CHECK(lumen_histogram(ctx, s, NULL) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_histogram(ctx, s16, got) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
              lumen_histogram(ctx, NULL, got) == LUMEN_ERROR_INVALID_ARGUMENT,
          "histogram arguments: %s", lumen_last_error());
    CHECK(lumen_lut(ctx, s, d, NULL, 1) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_lut(ctx, rgb, rgb, table, 2) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_lut(ctx, s16, s16, table, 1) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
              lumen_lut(ctx, s, rgb, table, 1) == LUMEN_ERROR_SIZE_MISMATCH,
          "lut arguments: %s", lumen_last_error());
    CHECK(lumen_equalize_hist(ctx, rgb, rgb) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
              lumen_equalize_hist(ctx, s16, s16) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
              lumen_equalize_hist(ctx, s, rgb) == LUMEN_ERROR_SIZE_MISMATCH,
          "equalize_hist arguments: %s", lumen_last_error());
    lumen_image_destroy(s), lumen_image_destroy(d), lumen_image_destroy(s16),
        lumen_image_destroy(rgb);
}

/* lumen_morphology and lumen_median: every op against the reference on every element type and
 * layout, kernels from 1x1 to 15x9 (even sizes too) and 255 wide, medians 3x3 and 5x5, views
 * reading around themselves, bad input. */
static void check_morphology(void) {
    static const lumen_format formats[] = {
        LUMEN_FORMAT_GRAY8,   LUMEN_FORMAT_RGB8,        LUMEN_FORMAT_BGRA8,   LUMEN_FORMAT_RGB16,
        LUMEN_FORMAT_RGBAF32, LUMEN_FORMAT_RGB8_PLANAR, LUMEN_FORMAT_GRAYF32, LUMEN_FORMAT_GRAY16};
    static const int sizes[][2] = {{1, 1}, {37, 23}, {64, 50}, {5, 130}, {131, 70}};
    static const int kernels[][2] = {{1, 1}, {3, 3}, {5, 1}, {1, 4}, {2, 6}, {7, 3}, {15, 9}};
    const int nk = (int)(sizeof kernels / sizeof *kernels);
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++) {
        lumen_format f = formats[fi];
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int w = sizes[si][0], h = sizes[si][1];
            t_any src = any_new(w, h, f, (int)si);
            for (int op = 0; op <= 6; op++)
                for (int t = 0; t < 2; t++) {
                    const int *k = kernels[(op * 2 + t + (int)(fi + si)) % nk];
                    t_any dst = any_new(w, h, f, 1), want = any_new(w, h, f, 0);
                    CHECK(lumen_morphology(ctx, src.img, dst.img, (lumen_morph_op)op, k[0], k[1]) ==
                              LUMEN_OK,
                          "morphology %d %dx%d on %s: %s", op, k[0], k[1], lumen_format_name(f),
                          lumen_last_error());
                    for (int p = 0; p < src.parts; p++)
                        ref_morphology(src.part[p], want.part[p], op, k[0], k[1]);
                    CHECK(any_same(&dst, &want), "morphology %d %dx%d on %s %dx%d differs", op,
                          k[0], k[1], lumen_format_name(f), w, h);
                    any_free(&dst), any_free(&want);
                }
            for (int k = 3; k <= 5; k += 2) {
                t_any dst = any_new(w, h, f, 1), want = any_new(w, h, f, 0);
                CHECK(lumen_median(ctx, src.img, dst.img, k) == LUMEN_OK, "median %d on %s: %s", k,
                      lumen_format_name(f), lumen_last_error());
                for (int p = 0; p < src.parts; p++) ref_median(src.part[p], want.part[p], k);
                CHECK(any_same(&dst, &want), "median %d on %s %dx%d differs", k,
                      lumen_format_name(f), w, h);
                any_free(&dst), any_free(&want);
            }
            any_free(&src);
        }
    }
    /* a wide kernel; views: the result of the whole image, cropped (two steps read twice as far) */
    t_any a = any_new(300, 40, LUMEN_FORMAT_RGB8, 3), want = any_new(300, 40, LUMEN_FORMAT_RGB8, 0);
    t_any d = any_new(300, 40, LUMEN_FORMAT_RGB8, 0);
    CHECK_OK(lumen_morphology(ctx, a.img, d.img, LUMEN_MORPH_DILATE, 255, 3));
    ref_morphology(a.part[0], want.part[0], LUMEN_MORPH_DILATE, 255, 3);
    CHECK(any_same(&d, &want), "dilate 255x3");
    for (int op = 0; op <= 6; op++) {
        lumen_image *v = NULL;
        t_any out = any_new(30, 20, LUMEN_FORMAT_RGB8, 1);
        CHECK_OK(lumen_image_view(a.img, 100, 12, 30, 20, 0, &v));
        CHECK_OK(lumen_morphology(ctx, v, out.img, (lumen_morph_op)op, 5, 7));
        ref_morphology(a.part[0], want.part[0], op, 5, 7);
        ref_wide part = want.part[0];
        part.data = (uint8_t *)part.data + 12 * part.stride + 100 * 3, part.w = 30, part.h = 20;
        t_any crop = {NULL, NULL, {part}, 1};
        CHECK(any_same(&out, &crop), "morphology %d of a view", op);
        if (op == 0) { /* the median of the same view */
            CHECK_OK(lumen_median(ctx, v, out.img, 5));
            ref_median(a.part[0], want.part[0], 5);
            CHECK(any_same(&out, &crop), "median of a view");
        }
        lumen_image_destroy(v);
        any_free(&out);
    }
    any_free(&a), any_free(&want), any_free(&d);
    /* bad arguments */
    lumen_image *s = NULL, *s2 = NULL, *d16 = NULL;
    CHECK_OK(lumen_image_create(6, 4, 3, &s));
    CHECK_OK(lumen_image_create(6, 4, 3, &s2));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGB16, &d16));
    CHECK(
        lumen_morphology(ctx, s, s2, (lumen_morph_op)7, 3, 3) == LUMEN_ERROR_INVALID_ARGUMENT &&
            lumen_morphology(ctx, s, s2, (lumen_morph_op)-1, 3, 3) ==
                LUMEN_ERROR_INVALID_ARGUMENT &&
            lumen_morphology(ctx, s, s2, LUMEN_MORPH_OPEN, 0, 3) == LUMEN_ERROR_INVALID_ARGUMENT &&
            lumen_morphology(ctx, s, s2, LUMEN_MORPH_OPEN, 3, LUMEN_MORPH_MAX_KERNEL + 1) ==
                LUMEN_ERROR_INVALID_ARGUMENT &&
            strstr(lumen_last_error(), "kernel 3x256"),
        "morphology arguments: %s", lumen_last_error());
    CHECK(lumen_morphology(ctx, s, s, LUMEN_MORPH_ERODE, 3, 3) == LUMEN_ERROR_INVALID_ARGUMENT,
          "morphology in place");
    CHECK(lumen_morphology(ctx, s, d16, LUMEN_MORPH_ERODE, 3, 3) == LUMEN_ERROR_SIZE_MISMATCH,
          "morphology format");
    CHECK(lumen_median(ctx, s, s2, 4) == LUMEN_ERROR_INVALID_ARGUMENT &&
              strstr(lumen_last_error(), "ksize 4") &&
              lumen_median(ctx, s, s2, 7) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_median(ctx, s, s, 3) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_median(ctx, s, d16, 3) == LUMEN_ERROR_SIZE_MISMATCH,
          "median arguments: %s", lumen_last_error());
    lumen_image_destroy(s), lumen_image_destroy(s2), lumen_image_destroy(d16);
}

/* lumen_box_filter: against the reference on 8- and 16-bit formats and layouts, kernels from 1x1
 * to 255 (even sizes, the running row sums past 24 wide, 8-bit sums of n <= 257 elements in 16
 * bits and of more), all-maximum images (the largest sums), a view reading around itself, bad
 * input. */
static void check_box_filter(void) {
    static const lumen_format formats[] = {LUMEN_FORMAT_GRAY8,  LUMEN_FORMAT_RGB8,
                                           LUMEN_FORMAT_BGRA8,  LUMEN_FORMAT_RGB16,
                                           LUMEN_FORMAT_GRAY16, LUMEN_FORMAT_RGB8_PLANAR};
    static const int sizes[][2] = {{1, 1}, {37, 23}, {64, 50}, {5, 130}, {131, 70}};
    static const int kernels[][2] = {{1, 1},   {3, 3},   {5, 1},  {1, 4},   {2, 6},
                                     {7, 3},   {15, 9},  {25, 3}, {16, 16}, {1, 255},
                                     {129, 2}, {40, 33}, {20, 20}};
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            lumen_format f = formats[fi];
            int w = sizes[si][0], h = sizes[si][1];
            t_any src = any_new(w, h, f, (int)si);
            for (size_t ki = 0; ki < sizeof kernels / sizeof *kernels; ki++) {
                int kw = kernels[ki][0], kh = kernels[ki][1];
                if ((ki + fi + si) % 3 && kw * kh > 50) continue; /* the wide ones on some */
                t_any dst = any_new(w, h, f, 1), want = any_new(w, h, f, 0);
                CHECK(lumen_box_filter(ctx, src.img, dst.img, kw, kh) == LUMEN_OK,
                      "box %dx%d on %s: %s", kw, kh, lumen_format_name(f), lumen_last_error());
                for (int p = 0; p < src.parts; p++)
                    ref_box_filter(src.part[p], want.part[p], kw, kh);
                CHECK(any_same(&dst, &want), "box %dx%d on %s %dx%d differs", kw, kh,
                      lumen_format_name(f), w, h);
                any_free(&dst), any_free(&want);
            }
            any_free(&src);
        }
    /* the largest sums: every element the maximum, the mean too (n = 256, 258, 2025, 2116 beside:
     * the 8-bit paths' limits) */
    static const int big[][2] = {{255, 255}, {16, 16}, {129, 2}, {255, 1}, {45, 45}, {46, 46}};
    for (int fi = 0; fi < 2; fi++) {
        lumen_format f = fi ? LUMEN_FORMAT_RGB16 : LUMEN_FORMAT_RGB8;
        t_any src = any_new(300, 40, f, 0), dst = any_new(300, 40, f, 0);
        size_t bytes = (size_t)300 * 40 * 3 * (size_t)lumen_format_element_size(f);
        memset(src.mem, 0xff, bytes);
        for (int k = 0; k < 6; k++) {
            int kw = big[k][0], kh = big[k][1];
            CHECK_OK(lumen_box_filter(ctx, src.img, dst.img, kw, kh));
            uint8_t *got = NULL;
            CHECK_OK(lumen_image_map(dst.img, LUMEN_ACCESS_READ, &got));
            CHECK(got && !memcmp(got, src.mem, bytes), "box %dx%d of the maximum on %s", kw, kh,
                  lumen_format_name(f));
        }
        any_free(&src), any_free(&dst);
    }
    /* 8-bit rounding by one float multiply at its hardest: a window covering the whole image
     * whose S / n + 0.5 lies 1 / (2n) or 1 / n below an integer (n = 45 * 45 odd, 32 * 64 even,
     * the largest rounded so; 24 * 85 with row sums of kw adds), is one (ties: S / n + 0.5 in
     * float without the bias falls below it for these), and the exact path just past (46 * 46) */
    static const int hard[][3] = {{45, 45, 2025 * 100 + 1012},
                                  {32, 64, 2048 * 100 + 1023},
                                  {24, 85, 2040 * 100 + 1019},
                                  {41, 2, 287},
                                  {2, 47, 1457},
                                  {46, 46, 2116 * 100 + 1057},
                                  /* multiply-high rounding (n <= 185): x = S + n/2 = 255 n - 1 */
                                  {3, 3, 9 * 255 - 1 - 4},
                                  {13, 14, 182 * 255 - 1 - 91},
                                  {5, 37, 185 * 255 - 1 - 92},
                                  {2, 93, 186 * 255 - 1 - 93}};
    for (int k = 0; k < (int)(sizeof hard / sizeof *hard); k++) {
        int w = hard[k][0], h = hard[k][1], n = w * h, sum = hard[k][2];
        t_any src = any_new(w, h, LUMEN_FORMAT_GRAY8, 0),
              dst = any_new(w, h, LUMEN_FORMAT_GRAY8, 0);
        t_any want = any_new(w, h, LUMEN_FORMAT_GRAY8, 0);
        for (int p = 0; p < n; p++) src.mem[p] = (uint8_t)(sum / n + (p < sum % n));
        CHECK_OK(lumen_box_filter(ctx, src.img, dst.img, w, h));
        ref_box_filter(src.part[0], want.part[0], w, h);
        CHECK(any_same(&dst, &want), "box %dx%d, S = %d", w, h, sum);
        any_free(&src), any_free(&dst), any_free(&want);
    }
    /* 8-bit, 2 <= n <= 185: the generator's rounding, floor(x / n) = ((x * M) >> 16) >> sh with
     * sh = floor(log2(n - 1)), M = ceil(2^(16 + sh) / n) < 2^16, for every x <= 255 n + n/2 */
    int rule_bad = 0;
    for (uint32_t n = 2; n <= 185; n++) {
        uint32_t sh = 0;
        while ((n - 1) >> (sh + 1)) sh++;
        uint32_t m = ((1u << (16 + sh)) + n - 1) / n;
        rule_bad += m >= 65536;
        for (uint32_t x = 0; x <= 255 * n + n / 2; x++) rule_bad += ((x * m) >> 16) >> sh != x / n;
    }
    CHECK(rule_bad == 0, "box filter: the multiply-high rounding is wrong %d times", rule_bad);
    /* a view: the result of the whole image, cropped */
    t_any a = any_new(300, 40, LUMEN_FORMAT_RGB8, 3), want = any_new(300, 40, LUMEN_FORMAT_RGB8, 0);
    t_any out = any_new(30, 20, LUMEN_FORMAT_RGB8, 1);
    lumen_image *v = NULL;
    CHECK_OK(lumen_image_view(a.img, 100, 12, 30, 20, 0, &v));
    for (int k = 0; k < 2; k++) {
        int kw = k ? 31 : 5, kh = k ? 9 : 7;
        CHECK_OK(lumen_box_filter(ctx, v, out.img, kw, kh));
        ref_box_filter(a.part[0], want.part[0], kw, kh);
        ref_wide part = want.part[0];
        part.data = (uint8_t *)part.data + 12 * part.stride + 100 * 3, part.w = 30, part.h = 20;
        t_any crop = {NULL, NULL, {part}, 1};
        CHECK(any_same(&out, &crop), "box %dx%d of a view", kw, kh);
    }
    lumen_image_destroy(v);
    any_free(&a), any_free(&want), any_free(&out);
    /* bad arguments */
    lumen_image *s = NULL, *s2 = NULL, *d16 = NULL, *f32 = NULL, *f32b = NULL;
    CHECK_OK(lumen_image_create(6, 4, 3, &s));
    CHECK_OK(lumen_image_create(6, 4, 3, &s2));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGB16, &d16));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGBF32, &f32));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGBF32, &f32b));
    CHECK(lumen_box_filter(ctx, s, s2, 0, 3) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_box_filter(ctx, s, s2, 3, LUMEN_BOX_MAX_KERNEL + 1) ==
                  LUMEN_ERROR_INVALID_ARGUMENT &&
              strstr(lumen_last_error(), "kernel 3x256") &&
              lumen_box_filter(ctx, s, s2, -1, -1) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_box_filter(ctx, s, s, 3, 3) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_box_filter(ctx, s, d16, 3, 3) == LUMEN_ERROR_SIZE_MISMATCH &&
              lumen_box_filter(ctx, f32, f32b, 3, 3) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
              lumen_box_filter(ctx, NULL, s2, 3, 3) == LUMEN_ERROR_INVALID_ARGUMENT,
          "box arguments: %s", lumen_last_error());
    lumen_image_destroy(s), lumen_image_destroy(s2), lumen_image_destroy(d16);
    lumen_image_destroy(f32), lumen_image_destroy(f32b);
}

/* lumen_filter2d and lumen_sep_filter: random kernels (negative taps, even sizes, 1x1 to 15x15,
 * shifts 0 to 20) against the reference on 8- and 16-bit formats and layouts, the kernel sized to
 * the format's limit, a view reading around itself, bad input (sizes, shift, NULL, overflow). */
static void check_filter(void) {
    static const lumen_format formats[] = {LUMEN_FORMAT_GRAY8,  LUMEN_FORMAT_RGB8,
                                           LUMEN_FORMAT_BGRA8,  LUMEN_FORMAT_RGB16,
                                           LUMEN_FORMAT_GRAY16, LUMEN_FORMAT_RGB8_PLANAR};
    static const int sizes[][2] = {{1, 1}, {37, 23}, {64, 50}, {5, 130}, {131, 70}};
    static const int kernels[][2] = {{1, 1}, {3, 3}, {5, 5}, {2, 6}, {7, 3}, {15, 15}, {1, 9}};
    int16_t k2[225], kx[15], ky[15];
    long full[225];
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            lumen_format f = formats[fi];
            int w = sizes[si][0], h = sizes[si][1], wide = lumen_format_element_size(f) == 2;
            t_any src = any_new(w, h, f, (int)si);
            for (size_t ki = 0; ki < sizeof kernels / sizeof *kernels; ki++)
                for (int sep = 0; sep < 2; sep++) {
                    int kw = kernels[ki][0], kh = kernels[ki][1], n = kw * kh;
                    int shift = (int)((ki * 3 + fi + si + (size_t)sep) % 21);
                    /* taps within the 32-bit sums: sum of |taps| < 2^31 / 255 (8-bit),
                     * 2^31 / 65535 (16-bit); separable: the product of the two sums */
                    int span = wide ? 16384 / n : 4000, sx = wide ? 32 : 160, sy = wide ? 4 : 160;
                    for (int k = 0; k < n; k++) k2[k] = (int16_t)(t_rand() % (2 * span) - span / 2);
                    for (int k = 0; k < kw; k++) kx[k] = (int16_t)(t_rand() % sx - sx / 4);
                    for (int k = 0; k < kh; k++) ky[k] = (int16_t)(t_rand() % sy - sy / 4);
                    for (int j = 0; j < kh; j++)
                        for (int i = 0; i < kw; i++)
                            full[j * kw + i] = sep ? (long)kx[i] * ky[j] : k2[j * kw + i];
                    t_any dst = any_new(w, h, f, 1), want = any_new(w, h, f, 0);
                    lumen_status st =
                        sep ? lumen_sep_filter(ctx, src.img, dst.img, kx, kw, ky, kh, shift)
                            : lumen_filter2d(ctx, src.img, dst.img, k2, kw, kh, shift);
                    CHECK(st == LUMEN_OK, "%s %dx%d >> %d on %s: %s",
                          sep ? "sep_filter" : "filter2d", kw, kh, shift, lumen_format_name(f),
                          lumen_last_error());
                    for (int p = 0; p < src.parts; p++)
                        ref_filter2d(src.part[p], want.part[p], full, kw, kh, shift);
                    CHECK(any_same(&dst, &want), "%s %dx%d >> %d on %s %dx%d differs",
                          sep ? "sep_filter" : "filter2d", kw, kh, shift, lumen_format_name(f), w,
                          h);
                    any_free(&dst), any_free(&want);
                }
            any_free(&src);
        }
    /* the largest kernel the 8-bit sums take: 225 taps of 32767 (a sum near 2^31), shift 30 */
    t_any a = any_new(40, 30, LUMEN_FORMAT_RGB8, 3), want = any_new(40, 30, LUMEN_FORMAT_RGB8, 0);
    t_any out = any_new(40, 30, LUMEN_FORMAT_RGB8, 1);
    for (int k = 0; k < 225; k++) k2[k] = k % 2 ? 32767 : -32767, full[k] = k2[k];
    CHECK_OK(lumen_filter2d(ctx, a.img, out.img, k2, 15, 15, 22));
    ref_filter2d(a.part[0], want.part[0], full, 15, 15, 22);
    CHECK(any_same(&out, &want), "filter2d 15x15 of 32767s");
    /* a view: the result of the whole image, cropped */
    lumen_image *v = NULL;
    t_any vo = any_new(10, 8, LUMEN_FORMAT_RGB8, 1);
    CHECK_OK(lumen_image_view(a.img, 20, 12, 10, 8, 0, &v));
    for (int k = 0; k < 25; k++) k2[k] = (int16_t)(k * 7 - 60), full[k] = k2[k];
    CHECK_OK(lumen_filter2d(ctx, v, vo.img, k2, 5, 5, 6));
    ref_filter2d(a.part[0], want.part[0], full, 5, 5, 6);
    ref_wide part = want.part[0];
    part.data = (uint8_t *)part.data + 12 * part.stride + 20 * 3, part.w = 10, part.h = 8;
    t_any crop = {NULL, NULL, {part}, 1};
    CHECK(any_same(&vo, &crop), "filter2d of a view");
    lumen_image_destroy(v);
    any_free(&a), any_free(&want), any_free(&out), any_free(&vo);
    /* bad arguments */
    lumen_image *s = NULL, *s2 = NULL, *w16 = NULL, *w16b = NULL, *f32 = NULL, *f32b = NULL;
    CHECK_OK(lumen_image_create(6, 4, 3, &s));
    CHECK_OK(lumen_image_create(6, 4, 3, &s2));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGB16, &w16));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGB16, &w16b));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGBF32, &f32));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGBF32, &f32b));
    int16_t big[225];
    for (int k = 0; k < 225; k++) big[k] = 32767;
    CHECK(lumen_filter2d(ctx, s, s2, NULL, 3, 3, 0) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_filter2d(ctx, s, s2, k2, 0, 3, 0) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_filter2d(ctx, s, s2, k2, 3, 16, 0) == LUMEN_ERROR_INVALID_ARGUMENT &&
              strstr(lumen_last_error(), "kernel 3x16") &&
              lumen_filter2d(ctx, s, s2, k2, 3, 3, -1) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_filter2d(ctx, s, s2, k2, 3, 3, 31) == LUMEN_ERROR_INVALID_ARGUMENT &&
              strstr(lumen_last_error(), "shift 31") &&
              lumen_filter2d(ctx, s, s2, big, 15, 15, 30) == LUMEN_ERROR_INVALID_ARGUMENT &&
              strstr(lumen_last_error(), "overflow") &&
              lumen_filter2d(ctx, w16, w16b, big, 1, 1, 0) == LUMEN_OK &&
              lumen_filter2d(ctx, w16, w16b, big, 2, 1, 0) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_filter2d(ctx, f32, f32b, k2, 3, 3, 0) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
              lumen_filter2d(ctx, s, s, k2, 3, 3, 0) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_filter2d(ctx, s, w16, k2, 3, 3, 0) == LUMEN_ERROR_SIZE_MISMATCH,
          "filter2d arguments: %s", lumen_last_error());
    CHECK(lumen_sep_filter(ctx, s, s2, kx, 3, NULL, 3, 0) == LUMEN_ERROR_INVALID_ARGUMENT &&
              strstr(lumen_last_error(), "ky is NULL") &&
              lumen_sep_filter(ctx, s, s2, NULL, 3, ky, 3, 0) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_sep_filter(ctx, s, s2, kx, 16, ky, 3, 0) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_sep_filter(ctx, s, s2, big, 15, big, 15, 0) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_sep_filter(ctx, s, s2, big, 1, (int16_t[]){255}, 1, 0) == LUMEN_OK &&
              lumen_sep_filter(ctx, s, s2, big, 1, (int16_t[]){258}, 1, 0) ==
                  LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_sep_filter(ctx, f32, f32b, kx, 3, ky, 3, 0) == LUMEN_ERROR_UNSUPPORTED_FORMAT,
          "sep_filter arguments: %s", lumen_last_error());
    lumen_image_destroy(s), lumen_image_destroy(s2), lumen_image_destroy(w16);
    lumen_image_destroy(w16b), lumen_image_destroy(f32), lumen_image_destroy(f32b);
}

/* lumen_to_tensor: each dst channel against the float resize reference of its source channel
 * (by colour), then (r / 255 - mean) / std in double, within the documented bound; same size and
 * resized, interleaved and planar (CHW) tensors, channel orders, NULL mean and std, bad input. */
static void check_tensor(void) {
    static const struct {
        lumen_format s, d;
    } cases[] = {{LUMEN_FORMAT_GRAY8, LUMEN_FORMAT_GRAYF32},
                 {LUMEN_FORMAT_RGB8, LUMEN_FORMAT_RGBF32},
                 {LUMEN_FORMAT_BGRA8, LUMEN_FORMAT_RGBF32_PLANAR},
                 {LUMEN_FORMAT_BGRA8, LUMEN_FORMAT_RGBAF32},
                 {LUMEN_FORMAT_RGB8, LUMEN_FORMAT_BGRF32_PLANAR},
                 {LUMEN_FORMAT_RGBA8, LUMEN_FORMAT_BGRAF32_PLANAR}};
    static const int sizes[][4] = {{37, 23, 37, 23}, {64, 48, 24, 24}, {30, 20, 45, 50}};
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            lumen_format sf = cases[ci].s, df = cases[ci].d;
            int w = sizes[si][0], h = sizes[si][1], ow = sizes[si][2], oh = sizes[si][3];
            int sc = lumen_format_channels(sf), dc = lumen_format_channels(df);
            int sbgr = !strncmp(lumen_format_name(sf), "BGR", 3),
                dbgr = !strncmp(lumen_format_name(df), "BGR", 3);
            size_t ss = (size_t)w * sc + 5;
            uint8_t *mem = malloc(ss * h);
            for (size_t i = 0; i < ss * h; i++) mem[i] = (uint8_t)t_rand();
            lumen_image *src = NULL, *dst = NULL;
            CHECK_OK(lumen_image_wrap_format(mem, w, h, sf, ss, &src));
            CHECK_OK(lumen_image_create_format(ow, oh, df, &dst));
            float mean[4], sd[4];
            for (int k = 0; k < 4; k++) mean[k] = frand(-1, 1), sd[k] = frand(0.05f, 2.0f);
            int nulls = si == 1;
            CHECK_OK(lumen_to_tensor(ctx, src, dst, nulls ? NULL : mean, nulls ? NULL : sd));
            uint8_t *p = NULL;
            CHECK_OK(lumen_image_map(dst, LUMEN_ACCESS_READ, &p));
            size_t ds = lumen_image_stride(dst), ps = lumen_image_plane_stride(dst);
            float *plane = malloc(sizeof(float) * w * h), *r = malloc(sizeof(float) * ow * oh);
            double worst = 0;
            for (int k = 0; p && k < dc; k++) {
                int col = dbgr && k < 3 ? 2 - k : k, from = sbgr && col < 3 ? 2 - col : col;
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        plane[y * w + x] = mem[y * ss + (size_t)x * sc + from];
                ref_resize_wide((ref_wide){plane, w, h, 1, 4, (size_t)w * 4},
                                (ref_wide){r, ow, oh, 1, 4, (size_t)ow * 4});
                double m = nulls ? 0 : mean[k], d = nulls ? 1 : sd[k];
                double s = (float)(1.0 / (255.0 * d)), o = (float)(-m / d);
                for (int y = 0; y < oh; y++)
                    for (int x = 0; x < ow; x++) {
                        const uint8_t *e = ps ? p + k * ps + y * ds + (size_t)x * 4
                                              : p + y * ds + ((size_t)x * dc + k) * 4;
                        double got = *(const float *)e, rv = r[y * ow + x];
                        double want = (rv / 255.0 - m) / d;
                        double err = fabs(got - want) / (1 + fabs(rv * s) + fabs(o));
                        worst = err > worst ? err : worst;
                    }
            }
            CHECK(worst <= 1.0 / (1 << 20), "to_tensor %s -> %s %dx%d -> %dx%d: off by %g",
                  lumen_format_name(sf), lumen_format_name(df), w, h, ow, oh, worst);
            free(plane), free(r), free(mem);
            lumen_image_destroy(src), lumen_image_destroy(dst);
        }
    lumen_image *s8 = NULL, *s16 = NULL, *d8 = NULL, *d1 = NULL, *d3 = NULL;
    CHECK_OK(lumen_image_create(8, 8, 3, &s8));
    CHECK_OK(lumen_image_create_format(8, 8, LUMEN_FORMAT_RGB16, &s16));
    CHECK_OK(lumen_image_create(8, 8, 3, &d8));
    CHECK_OK(lumen_image_create_format(8, 8, LUMEN_FORMAT_GRAYF32, &d1));
    CHECK_OK(lumen_image_create_format(4, 4, LUMEN_FORMAT_RGBF32_PLANAR, &d3));
    float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, tiny[3] = {1e-39f, 1e-39f, 1e-39f};
    CHECK(lumen_to_tensor(ctx, s16, d3, NULL, NULL) == LUMEN_ERROR_UNSUPPORTED_FORMAT &&
              lumen_to_tensor(ctx, s8, d8, NULL, NULL) == LUMEN_ERROR_SIZE_MISMATCH &&
              lumen_to_tensor(ctx, s8, d1, NULL, NULL) == LUMEN_ERROR_SIZE_MISMATCH &&
              lumen_to_tensor(ctx, s8, d3, one, zero) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_to_tensor(ctx, s8, d3, one, tiny) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_to_tensor(ctx, NULL, d3, NULL, NULL) == LUMEN_ERROR_INVALID_ARGUMENT,
          "to_tensor bad arguments: %s", lumen_last_error());
    lumen_image_destroy(s8), lumen_image_destroy(s16), lumen_image_destroy(d8);
    lumen_image_destroy(d1), lumen_image_destroy(d3);
}

/* Border modes (lumen_context_set_border): each neighbourhood pipeline under each mode against
 * its reference run on the source padded by ref_pad (OpenCV's borderInterpolate, as its loop),
 * cropped: every format and layout it takes, images down to 1x1 (borders wider than the image),
 * a view (its border at its image's edges), bad arguments. */
enum { PAD = 24 }; /* the references' border: wider than every reach below */

/* Pipeline op (0..7: gaussian_blur, unsharp_mask, sobel, median, morphology, box_filter, filter2d,
 * sep_filter) with variant t on src into dst, or its reference on s into d. */
static lumen_status border_run(lumen_context *c, int op, int t, t_any *src, t_any *dst) {
    static const int16_t k2[15] = {3, -1, 4, 1, -5, 9, 2, 6, -5, 3, 5, 8, -9, 7, 9},
                         kx[5] = {1, 4, 6, 4, 1}, ky[3] = {-1, 3, 2};
    switch (op) {
        case 0:
            return lumen_gaussian_blur(c, src->img, dst->img, t ? 2.0f : 0.8f);
        case 1:
            return lumen_unsharp_mask(c, src->img, dst->img, 1.2f, t ? 1.5f : 0.5f);
        case 2:
            return lumen_sobel(c, src->img, dst->img);
        case 3:
            return lumen_median(c, src->img, dst->img, t ? 5 : 3);
        case 4:
            return lumen_morphology(c, src->img, dst->img, (lumen_morph_op)(t % 7), t & 1 ? 4 : 3,
                                    t & 1 ? 2 : 5);
        case 5:
            return lumen_box_filter(c, src->img, dst->img, t ? 27 : 5, t ? 2 : 3);
        case 6:
            return lumen_filter2d(c, src->img, dst->img, k2, t ? 5 : 3, t ? 3 : 5, 3);
        default:
            return lumen_sep_filter(c, src->img, dst->img, kx, t ? 5 : 1, ky, 3, 4);
    }
}

static void border_ref(int op, int t, ref_wide s, ref_wide d) {
    static const long k2[15] = {3, -1, 4, 1, -5, 9, 2, 6, -5, 3, 5, 8, -9, 7, 9};
    static const long kx[5] = {1, 4, 6, 4, 1}, ky[3] = {-1, 3, 2};
    long sep[15];
    ref_image s8 = {s.data, s.w, s.h, s.c, s.stride}, d8 = {d.data, d.w, d.h, d.c, d.stride};
    switch (op) {
        case 0:
            if (s.elem == 1)
                ref_gaussian_blur(s8, d8, t ? 2.0f : 0.8f);
            else
                ref_gaussian_blur_wide(s, d, t ? 2.0f : 0.8f);
            break;
        case 1:
            if (s.elem == 1)
                ref_unsharp_mask(s8, d8, 1.2f, t ? 1.5f : 0.5f);
            else
                ref_unsharp_mask_wide(s, d, 1.2f, t ? 1.5f : 0.5f);
            break;
        case 2:
            ref_sobel(s8, d8);
            break;
        case 3:
            ref_median(s, d, t ? 5 : 3);
            break;
        case 4:
            ref_morphology(s, d, t % 7, t & 1 ? 4 : 3, t & 1 ? 2 : 5);
            break;
        case 5:
            ref_box_filter(s, d, t ? 27 : 5, t ? 2 : 3);
            break;
        case 6:
            ref_filter2d(s, d, k2, t ? 5 : 3, t ? 3 : 5, 3);
            break;
        default:
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < (t ? 5 : 1); i++)
                    sep[j * (t ? 5 : 1) + i] = (t ? kx[i] : kx[0]) * ky[j];
            ref_filter2d(s, d, sep, t ? 5 : 1, 3, 4);
    }
}

/* The largest difference between img (mapped) and want, part by part. */
static double any_diff(t_any *img, const t_any *want) {
    uint8_t *p = NULL;
    double worst = 0;
    CHECK_OK(lumen_image_map(img->img, LUMEN_ACCESS_READ, &p));
    for (int k = 0; p && k < img->parts; k++) {
        ref_wide a = img->part[k], b = want->part[k];
        for (int y = 0; y < a.h; y++)
            for (int x = 0; x < a.w; x++)
                for (int c = 0; c < a.c; c++) {
                    double d = fabs(elem_at(a, x, y, c) - elem_at(b, x, y, c));
                    worst = d > worst || d != d ? d : worst;
                }
    }
    return p ? worst : INFINITY;
}

static void check_borders(void) {
    static const lumen_format formats[] = {
        LUMEN_FORMAT_GRAY8,   LUMEN_FORMAT_RGB8,        LUMEN_FORMAT_BGRA8, LUMEN_FORMAT_RGB16,
        LUMEN_FORMAT_RGBAF32, LUMEN_FORMAT_RGB8_PLANAR, LUMEN_FORMAT_GRAY16};
    static const int sizes[][2] = {{1, 1}, {2, 3}, {37, 23}, {6, 40}};
    static const char *const ops[] = {"gaussian_blur", "unsharp_mask", "sobel",    "median",
                                      "morphology",    "box_filter",   "filter2d", "sep_filter"};
    /* 8-bit: 17, 255, 0, 128; float: values of the images' scale (the tolerances' too) */
    const float value8[4] = {17.0f, 300.0f, -5.0f, 128.25f},
                valuef[4] = {0.25f, 1.5f, -0.5f, 0.75f};
    lumen_context *bc = NULL;
    CHECK_OK(lumen_context_create(backend, &bc));
    CHECK(lumen_context_border(bc, NULL) == LUMEN_BORDER_REPLICATE, "a context's first border");
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            lumen_format f = formats[fi];
            int w = sizes[si][0], h = sizes[si][1], es = lumen_format_element_size(f);
            t_any src = any_new(w, h, f, (int)si);
            for (int mode = LUMEN_BORDER_CONSTANT; mode <= LUMEN_BORDER_REFLECT_101; mode++) {
                const float *value = es == 4 ? valuef : value8;
                CHECK_OK(lumen_context_set_border(bc, (lumen_border)mode, value));
                for (int op = 0; op < 8; op++) {
                    if ((op == 2 && f != LUMEN_FORMAT_GRAY8) || (op >= 5 && es == 4)) continue;
                    int t = (int)(fi + si + (size_t)mode + (size_t)op) % (op == 4 ? 7 : 2);
                    t_any dst = any_new(w, h, f, 1), want = any_new(w, h, f, 0);
                    CHECK(border_run(bc, op, t, &src, &dst) == LUMEN_OK,
                          "%s %d on %s, border %d: %s", ops[op], t, lumen_format_name(f), mode,
                          lumen_last_error());
                    /* REPLICATE: the references as they are (a two-step morphology clamps its
                     * first result, not the source: lumen.h) */
                    for (int p = 0; p < src.parts && mode == LUMEN_BORDER_REPLICATE; p++)
                        border_ref(op, t, src.part[p], want.part[p]);
                    for (int p = 0; p < src.parts && mode != LUMEN_BORDER_REPLICATE; p++) {
                        ref_wide in =
                            ref_pad(src.part[p], PAD, mode, value + (src.parts > 1 ? p : 0));
                        ref_wide out = in;
                        out.data = malloc(in.stride * (size_t)in.h);
                        border_ref(op, t, in, out);
                        ref_wide crop = out, d = want.part[p];
                        crop.data =
                            (uint8_t *)out.data + PAD * out.stride + (size_t)PAD * out.c * out.elem;
                        for (int y = 0; y < h; y++)
                            memcpy((uint8_t *)d.data + y * d.stride,
                                   (uint8_t *)crop.data + y * crop.stride, (size_t)w * d.c * es);
                        free(in.data), free(out.data);
                    }
                    double tol = es == 4 ? (op == 1 ? 2.5 : 1.0) / (1 << 16) : 0,
                           diff = any_diff(&dst, &want);
                    CHECK(diff <= tol, "%s %d on %s %dx%d, border %d: off by %g", ops[op], t,
                          lumen_format_name(f), w, h, mode, diff);
                    any_free(&dst), any_free(&want);
                }
            }
            any_free(&src);
        }
    /* a view: its border at its image's edges; inside them it reads its image's pixels */
    t_any a = any_new(40, 30, LUMEN_FORMAT_RGB8, 2), out = any_new(12, 10, LUMEN_FORMAT_RGB8, 0);
    t_any want = any_new(40, 30, LUMEN_FORMAT_RGB8, 0);
    lumen_image *v = NULL;
    CHECK_OK(lumen_image_view(a.img, 28, 0, 12, 10, 0, &v));
    CHECK_OK(lumen_context_set_border(bc, LUMEN_BORDER_REFLECT_101, NULL));
    CHECK_OK(lumen_gaussian_blur(bc, v, out.img, 2.0f)); /* border_ref 0, 1 */
    ref_wide in = ref_pad(a.part[0], PAD, LUMEN_BORDER_REFLECT_101, value8), o = in;
    o.data = malloc(in.stride * (size_t)in.h);
    border_ref(0, 1, in, o);
    ref_wide part = want.part[0];
    part.w = 12, part.h = 10;
    for (int y = 0; y < 10; y++)
        memcpy((uint8_t *)part.data + y * part.stride,
               (uint8_t *)o.data + (size_t)(PAD + y) * o.stride + (size_t)(PAD + 28) * 3, 36);
    t_any crop = {NULL, NULL, {part}, 1};
    CHECK(any_same(&out, &crop), "gaussian_blur of a view, border REFLECT_101");
    free(in.data), free(o.data);
    lumen_image_destroy(v);
    any_free(&a), any_free(&out), any_free(&want);
    /* bad arguments; the default context keeps REPLICATE */
    float nan4[4] = {0, NAN, 0, 0}, got[4];
    CHECK(
        lumen_context_set_border(NULL, LUMEN_BORDER_REFLECT_101, NULL) ==
                LUMEN_ERROR_INVALID_ARGUMENT &&
            lumen_context_set_border(bc, (lumen_border)5, NULL) == LUMEN_ERROR_INVALID_ARGUMENT &&
            lumen_context_set_border(bc, (lumen_border)-1, NULL) == LUMEN_ERROR_INVALID_ARGUMENT &&
            lumen_context_set_border(bc, LUMEN_BORDER_CONSTANT, nan4) ==
                LUMEN_ERROR_INVALID_ARGUMENT,
        "set_border arguments: %s", lumen_last_error());
    CHECK(lumen_context_border(bc, got) == LUMEN_BORDER_REFLECT_101 && got[0] == 0 &&
              lumen_context_border(NULL, NULL) == LUMEN_BORDER_REPLICATE,
          "set_border: a refused call changes nothing");
    lumen_context_destroy(bc);
}

/* lumen_bilateral: against the plain C grid (CPU: exactly; GPU: within 1 level, float 2^-16,
 * lumen.h's tolerance) on every element type and layout, sizes 1x1 to 131x70, sigmas across
 * their ranges; border modes; a view; properties an approximation must still have (flat stays flat,
 * a step stays sharp where a Gaussian of the same reach smears it); bad input. */
static int bil_ok(t_any *dst, const t_any *want, lumen_format f, const char *what, int w, int h,
                  float ss, float sc) {
    double tol = backend == LUMEN_BACKEND_CPU        ? 0
                 : lumen_format_element_size(f) == 4 ? 1.0 / (1 << 16)
                                                     : 1.0,
           diff = any_diff(dst, want);
    CHECK(diff <= tol, "bilateral %g %g on %s %dx%d%s: off by %g", (double)ss, (double)sc,
          lumen_format_name(f), w, h, what, diff);
    return diff <= tol;
}

static void check_bilateral(void) {
    static const lumen_format formats[] = {
        LUMEN_FORMAT_GRAY8,   LUMEN_FORMAT_RGB8,        LUMEN_FORMAT_BGRA8,
        LUMEN_FORMAT_RGB16,   LUMEN_FORMAT_GRAY16,      LUMEN_FORMAT_GRAYF32,
        LUMEN_FORMAT_RGBAF32, LUMEN_FORMAT_RGB8_PLANAR, LUMEN_FORMAT_RGBA16_PLANAR};
    static const int sizes[][2] = {{1, 1}, {2, 3}, {37, 23}, {64, 50}, {5, 130}, {131, 70}};
    static const float sigmas[][2] = {{1, 4},    {2.5f, 20}, {4, 30},       {7.3f, 61.5f},
                                      {16, 255}, {3, 9},     {64, 4096.0f}, {1.6f, 100}};
    const int ns = (int)(sizeof sigmas / sizeof *sigmas);
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            lumen_format f = formats[fi];
            int w = sizes[si][0], h = sizes[si][1];
            t_any src = any_new(w, h, f, (int)si);
            for (int t = 0; t < 2; t++) {
                const float *sg = sigmas[(fi * 3 + si * 2 + (size_t)t) % (size_t)ns];
                t_any dst = any_new(w, h, f, 1), want = any_new(w, h, f, 0);
                CHECK(lumen_bilateral(ctx, src.img, dst.img, sg[0], sg[1]) == LUMEN_OK,
                      "bilateral on %s: %s", lumen_format_name(f), lumen_last_error());
                for (int p = 0; p < src.parts; p++)
                    ref_bilateral(src.part[p], 0, 0, want.part[p], sg[0], sg[1]);
                bil_ok(&dst, &want, f, "", w, h, sg[0], sg[1]);
                any_free(&dst), any_free(&want);
            }
            any_free(&src);
        }
    /* border modes: the reference on the source padded as OpenCV pads it */
    lumen_context *bc = NULL;
    CHECK_OK(lumen_context_create(backend, &bc));
    const float value[4] = {17.0f, 300.0f, -5.0f, 128.25f};
    for (int mode = LUMEN_BORDER_CONSTANT; mode <= LUMEN_BORDER_REFLECT_101; mode++) {
        lumen_format f = mode & 1 ? LUMEN_FORMAT_GRAY8 : LUMEN_FORMAT_BGRA8;
        t_any src = any_new(29, 17, f, 3), dst = any_new(29, 17, f, 0),
              want = any_new(29, 17, f, 0);
        CHECK_OK(lumen_context_set_border(bc, (lumen_border)mode, value));
        CHECK_OK(lumen_bilateral(bc, src.img, dst.img, 3.0f, 24.0f)); /* reach 3.5 * 3 + 2 */
        ref_wide in = ref_pad(src.part[0], PAD, mode, value);
        ref_bilateral(in, PAD, PAD, want.part[0], 3.0f, 24.0f);
        bil_ok(&dst, &want, f, mode == LUMEN_BORDER_WRAP ? ", border WRAP" : ", a border", 29, 17,
               3.0f, 24.0f);
        free(in.data);
        any_free(&src), any_free(&dst), any_free(&want);
    }
    lumen_context_destroy(bc);
    /* a view reads its image around itself; its cells start at its own origin */
    t_any a = any_new(60, 40, LUMEN_FORMAT_RGB8, 2), out = any_new(21, 13, LUMEN_FORMAT_RGB8, 0);
    t_any want = any_new(21, 13, LUMEN_FORMAT_RGB8, 0);
    lumen_image *v = NULL;
    CHECK_OK(lumen_image_view(a.img, 33, 5, 21, 13, 0, &v));
    CHECK_OK(lumen_bilateral(ctx, v, out.img, 2.0f, 16.0f));
    ref_bilateral(a.part[0], 33, 5, want.part[0], 2.0f, 16.0f);
    bil_ok(&out, &want, LUMEN_FORMAT_RGB8, " (a view)", 21, 13, 2.0f, 16.0f);
    lumen_image_destroy(v);
    any_free(&a), any_free(&out), any_free(&want);
    /* flat stays flat; noise of +-4 is smoothed; a step of 200 stays a step (a Gaussian of
     * sigma 4 smears it over ~10 pixels) */
    t_any st = any_new(80, 24, LUMEN_FORMAT_GRAY8, 0), sd = any_new(80, 24, LUMEN_FORMAT_GRAY8, 0);
    for (int y = 0; y < 24; y++)
        for (int x = 0; x < 80; x++) st.mem[y * 80 + x] = (uint8_t)(x < 40 ? 20 : 220);
    CHECK_OK(lumen_bilateral(ctx, st.img, sd.img, 4.0f, 20.0f));
    uint8_t *p = NULL;
    CHECK_OK(lumen_image_map(sd.img, LUMEN_ACCESS_READ, &p));
    int worst = 0;
    for (int i = 0; p && i < 80 * 24; i++) {
        int d = abs((int)p[i] - (int)st.mem[i]);
        worst = d > worst ? d : worst;
    }
    CHECK(p && worst <= 1, "bilateral of a step: off by %d", worst);
    CHECK_OK(lumen_image_map(st.img, LUMEN_ACCESS_WRITE, &p)); /* the host copy is newest */
    for (int i = 0; i < 80 * 24; i++) st.mem[i] = 77;
    CHECK_OK(lumen_bilateral(ctx, st.img, sd.img, 5.5f, 4.0f));
    CHECK_OK(lumen_image_map(sd.img, LUMEN_ACCESS_READ, &p));
    for (int i = 0; p && i < 80 * 24; i++) CHECK(p[i] == 77, "bilateral of a flat image");
    double var_in = 0, var_out = 0;
    CHECK_OK(lumen_image_map(st.img, LUMEN_ACCESS_WRITE, &p));
    for (int i = 0; i < 80 * 24; i++) st.mem[i] = (uint8_t)(100 + t_rand() % 9 - 4);
    CHECK_OK(lumen_bilateral(ctx, st.img, sd.img, 4.0f, 20.0f));
    CHECK_OK(lumen_image_map(sd.img, LUMEN_ACCESS_READ, &p));
    for (int i = 0; p && i < 80 * 24; i++)
        var_in += (st.mem[i] - 100.0) * (st.mem[i] - 100.0),
            var_out += (p[i] - 100.0) * (p[i] - 100.0);
    CHECK(p && var_out < var_in / 4, "bilateral of noise: variance %g -> %g", var_in / 1920,
          var_out / 1920);
    any_free(&st), any_free(&sd);
    /* bad input */
    lumen_image *s = NULL, *s2 = NULL, *pl = NULL, *d16 = NULL;
    CHECK_OK(lumen_image_create(6, 4, 3, &s));
    CHECK_OK(lumen_image_create(6, 4, 3, &s2));
    CHECK_OK(lumen_image_create(6, 5, 3, &pl));
    CHECK_OK(lumen_image_create_format(6, 4, LUMEN_FORMAT_RGB16, &d16));
    CHECK(lumen_bilateral(ctx, s, s2, 0.5f, 20) == LUMEN_ERROR_INVALID_ARGUMENT &&
              strstr(lumen_last_error(), "sigma_space 0.5") &&
              lumen_bilateral(ctx, s, s2, 65, 20) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_bilateral(ctx, s, s2, NAN, 20) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_bilateral(ctx, s, s2, 4, 3.9f) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_bilateral(ctx, s, s2, 4, INFINITY) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_bilateral(ctx, s, s2, 4, NAN) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_bilateral(ctx, s, s, 4, 20) == LUMEN_ERROR_INVALID_ARGUMENT &&
              lumen_bilateral(ctx, s, d16, 4, 20) == LUMEN_ERROR_SIZE_MISMATCH &&
              lumen_bilateral(ctx, s, pl, 4, 20) == LUMEN_ERROR_SIZE_MISMATCH &&
              lumen_bilateral(ctx, NULL, s2, 4, 20) == LUMEN_ERROR_INVALID_ARGUMENT,
          "bilateral arguments: %s", lumen_last_error());
    lumen_image_destroy(s), lumen_image_destroy(s2), lumen_image_destroy(pl);
    lumen_image_destroy(d16);
}

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "cpu";
    for (backend = LUMEN_BACKEND_CPU; backend <= LUMEN_BACKEND_OPENCL; backend++)
        if (strcmp(name, lumen_backend_name(backend)) == 0) break;
    if (backend > LUMEN_BACKEND_OPENCL || lumen_context_create(backend, &ctx) != LUMEN_OK) {
        printf("usage: %s [cpu|cuda|opencl]\n", argv[0]);
        return 2;
    }
    t_seed();
    for (pipe p = T_LEVELS; p <= T_UNSHARP; p++) check_pipeline(p);
    check_formats();
    check_yuv();
    check_views();
    check_yuv_views();
    check_in_place();
    check_chain();
    check_wide();
    check_planar();
    check_geometry();
    check_tensor();
    check_morphology();
    check_box_filter();
    check_filter();
    check_warp();
    check_histogram();
    check_resize_interp();
    check_borders();
    check_bilateral();
    if (backend == LUMEN_BACKEND_CPU) {
        const char *want = expected_variant(), *got = lumen_cpu_variant();
        printf("cpu variant: %s (LUMEN_MAX_CPU_ISA=%s)\n", got,
               getenv("LUMEN_MAX_CPU_ISA") ? getenv("LUMEN_MAX_CPU_ISA") : "unset");
        CHECK(strcmp(got, want) == 0, "cpu variant %s, expected %s", got, want);
    }
    lumen_context_destroy(ctx);
    return t_summary();
}
