/* The public pipeline functions: validate, pick a backend, call the Halide pipeline. */
#include "internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every pipeline's header, and LUMEN__TABLE(p): its Halide functions by backend (index =
 * lumen_backend; NULL = not built), generated from generators/CMakeLists.txt's list. */
#include "lumen_halide.h"

typedef struct halide_buffer_t buf_t;

enum { ANY_CHANNELS = (1 << 1) | (1 << 3) | (1 << 4) };

/* What a pipeline requires of its images. */
typedef struct {
    unsigned src_channels; /* bit mask of accepted source channel counts */
    int dst_channels;      /* 0: same as the source */
    int same_size;
    int in_place; /* src and dst may be the same pixels */
    int margin;   /* how far around a pixel the pipeline reads (sobel 1, blur the radius) */
    int wide;     /* takes 16-bit and float formats too (else 8-bit only) */
    int planar;   /* takes planar formats too: runs once per plane */
    int swap;     /* with same_size: dst is src's height x width (rotations by 90 degrees) */
    int border;   /* reads around pixels (margin) as the context's border says */
} shape;

static int is_planar(const lumen_image *img) {
    return ((unsigned)img->format & LUMEN_FORMAT_PLANAR) != 0;
}

/* Bytes per element of an image (1, 2 or 4). */
static int elem_size(const lumen_image *img) { return img->buf.type.bits / 8; }

/* Reach of the blur for sigma (0 for a sigma the checks will refuse). */
static int reach(float sigma) {
    return sigma >= LUMEN_SIGMA_MIN && sigma <= LUMEN_SIGMA_MAX ? (int)ceil(3.0 * sigma) : 0;
}

/* A view's rectangle in its root's coordinates {x0, y0, x1, y1}; an image's is the whole. */
static void rect_of(const lumen_image *img, int r[4]) {
    r[0] = img->root ? img->x0 : 0, r[1] = img->root ? img->y0 : 0;
    r[2] = r[0] + lumen_image_width(img), r[3] = r[1] + lumen_image_height(img);
}

/* What a source read with a reach of `margin` covers: its rectangle grown by margin, within what
 * it may read (a view's clamp rectangle; an image's own). */
static void read_rect(const lumen_image *img, int margin, int r[4]) {
    int own[4];
    rect_of(img, own);
    const int *lim = img->root ? img->clamp : own;
    for (int k = 0; k < 2; k++) {
        r[k] = own[k] - margin > lim[k] ? own[k] - margin : lim[k];
        r[k + 2] = own[k + 2] + margin < lim[k + 2] ? own[k + 2] + margin : lim[k + 2];
    }
}

/* src and dst overlap: views of one image by their rectangles (what src reads against dst's),
 * other images by their memory. */
static int overlap(const lumen_image *src, const lumen_image *dst, const shape *s) {
    if ((src->root ? src->root : src) != (dst->root ? dst->root : dst)) {
        if (!lumen__overlap(src, dst)) return 0;
        return !(s->in_place && lumen__host(src) == lumen__host(dst) &&
                 lumen_image_stride(src) == lumen_image_stride(dst) &&
                 lumen_image_plane_stride(src) == lumen_image_plane_stride(dst));
    }
    int a[4], b[4];
    rect_of(src, a);
    rect_of(dst, b);
    if (s->in_place && !memcmp(a, b, sizeof a)) return 0;
    read_rect(src, s->margin, a);
    return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

static lumen_status check(lumen__call *call, const lumen_image *src, const lumen_image *dst,
                          const shape *s) {
    lumen_status st = lumen__check_image(call, src, "src");
    if (!st) st = lumen__check_image(call, dst, "dst");
    if (st) return st;
    int sc = lumen_image_channels(src), dc = lumen_image_channels(dst);
    if (!(s->src_channels & (1u << sc))) {
        return lumen__fail(call, LUMEN_ERROR_UNSUPPORTED_FORMAT, "src has %d channels", sc);
    }
    if (elem_size(src) != 1 && !s->wide) {
        return lumen__fail(
            call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
            "src is %s: 8-bit formats only (16-bit and float: lumen_levels, "
            "lumen_gaussian_blur, lumen_resize, lumen_unsharp_mask, lumen_flip, "
            "lumen_rotate, lumen_threshold, lumen_morphology, lumen_median, "
            "lumen_warp_affine, lumen_bilateral, lumen_resize_interp's nearest; 16-bit: "
            "lumen_box_filter, lumen_filter2d, lumen_sep_filter)",
            lumen_format_name(src->format));
    }
    if (is_planar(src) && !s->planar) {
        return lumen__fail(call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                           "src is %s: planar formats are taken by lumen_levels, "
                           "lumen_gaussian_blur, lumen_resize, lumen_unsharp_mask, lumen_flip, "
                           "lumen_rotate, lumen_threshold, lumen_morphology, lumen_median, "
                           "lumen_warp_affine, lumen_box_filter, lumen_filter2d, "
                           "lumen_sep_filter, lumen_bilateral, lumen_lut, lumen_histogram and "
                           "lumen_resize_interp",
                           lumen_format_name(src->format));
    }
    int want = s->dst_channels ? s->dst_channels : sc;
    if (dc != want) {
        return lumen__fail(call, LUMEN_ERROR_SIZE_MISMATCH, "dst has %d channels, needs %d", dc,
                           want);
    }
    if (s->dst_channels && elem_size(dst) != 1) {
        return lumen__fail(call, LUMEN_ERROR_SIZE_MISMATCH, "dst is %s, needs an 8-bit format",
                           lumen_format_name(dst->format));
    }
    if (!s->dst_channels && dst->format != src->format) {
        return lumen__fail(call, LUMEN_ERROR_SIZE_MISMATCH, "dst is %s, needs src's format %s",
                           lumen_format_name(dst->format), lumen_format_name(src->format));
    }
    int w = lumen_image_width(src), h = lumen_image_height(src);
    if (s->same_size && (lumen_image_width(dst) != (s->swap ? h : w) ||
                         lumen_image_height(dst) != (s->swap ? w : h))) {
        return lumen__fail(call, LUMEN_ERROR_SIZE_MISMATCH, "src is %dx%d but dst is %dx%d%s", w, h,
                           lumen_image_width(dst), lumen_image_height(dst),
                           s->swap ? " (needs src's height x width)" : "");
    }
    if (overlap(src, dst, s)) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "src and dst overlap%s",
                           s->in_place ? " (other than exactly)" : "");
    }
    return LUMEN_OK;
}

static lumen_status check_sigma(lumen__call *call, float sigma) {
    if (!(sigma >= LUMEN_SIGMA_MIN && sigma <= LUMEN_SIGMA_MAX)) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "sigma %g outside [%g, %g]",
                           (double)sigma, (double)LUMEN_SIGMA_MIN, (double)LUMEN_SIGMA_MAX);
    }
    return LUMEN_OK;
}

/* The Q16 taps as a 1-D Halide buffer. */
typedef struct {
    uint16_t taps[LUMEN__MAX_TAPS];
    halide_dimension_t dim;
    buf_t buf;
    int radius;
} taps_t;

static void make_taps(taps_t *t, float sigma) {
    t->radius = lumen__gaussian_taps(sigma, t->taps);
    t->dim = (halide_dimension_t){0, 2 * t->radius + 1, 1, 0};
    lumen__buffer_init(&t->buf, t->taps, 16, 1, &t->dim, halide_buffer_flag_host_dirty);
}

/* A GPU run copies a small parameter buffer (blur taps, to_tensor's table) to the device: free
 * that copy. */
static lumen_status release_param(lumen__call *call, buf_t *b, lumen_status st) {
    if (b->device) {
        int rc;
        LUMEN__HALIDE_CALL(rc, halide_device_free(call, b));
        if (!st) st = lumen__halide_status(call, rc);
    }
    return st;
}

/* A Halide buffer of this call's own (a view, a planar image or one plane of it, a YUV plane) over
 * host memory; on a GPU it is copied in (and an output back) each call, its device memory freed
 * after. */
typedef struct {
    halide_dimension_t dim[3];
    buf_t buf;
    int used;           /* the other fields are set (release_temp skips an unused one) */
    lumen_image *image; /* the image owning the memory (a view's root), or NULL */
    int output;
    int crop;   /* a device crop of image's device memory (GPU backends), not host memory */
    int ran;    /* a Halide call ran on it (finish): even a failed one may have written part */
    int planar; /* a planar image's: the call runs per plane (plane_select) */
    int padded; /* pad_source's copy: its memory (host, and device on a GPU) is the call's */
} temp_t;

/* A view (or a planar image) as a buffer over its root's pixels (brought to the host first): its
 * rectangle, or for a neighbourhood source (margin > 0) the rectangle grown by margin within its
 * clamp rectangle, with coordinates relative to the view (mins <= 0), so the pipeline clamps at
 * that edge. */
static lumen_status view_temp(lumen__call *call, lumen_image *v, int margin, int output,
                              temp_t *t) {
    memset(t, 0, sizeof *t);
    t->used = 1;
    lumen_image *r = v->root ? v->root : v;
    lumen_status st = lumen__ensure_host(call, r);
    if (!st) st = lumen__to_host(call, r, lumen__owner(r));
    if (st) return st;
    int rr[4];
    read_rect(v, v->root ? margin : 0, rr);
    int x0 = v->root ? v->x0 : 0, y0 = v->root ? v->y0 : 0;
    t->dim[0] = v->dim[0];
    t->dim[1] = (halide_dimension_t){rr[0] - x0, rr[2] - rr[0], v->dim[1].stride, 0};
    t->dim[2] = (halide_dimension_t){rr[1] - y0, rr[3] - rr[1], v->dim[2].stride, 0};
    t->buf = v->buf;
    t->buf.dim = t->dim;
    t->buf.host = r->buf.host + ((size_t)rr[1] * (size_t)v->dim[2].stride +
                                 (size_t)rr[0] * (size_t)v->dim[1].stride) *
                                    (size_t)elem_size(v);
    t->buf.device = 0;
    t->buf.device_interface = NULL;
    t->buf.flags = output ? 0 : halide_buffer_flag_host_dirty;
    t->image = r;
    t->output = output;
    t->planar = is_planar(v);
    return LUMEN_OK;
}

/* On a GPU backend, view_temp's buffer as a device crop of the root's device memory (given it,
 * with its newest pixels, first): zero-copy, so chains of views and planar images stay on the
 * device. */
static lumen_status crop_temp(lumen__call *call, lumen_image *v, int margin, int output,
                              temp_t *t) {
    memset(t, 0, sizeof *t);
    t->used = 1;
    lumen_image *r = v->root ? v->root : v;
    int rr[4], whole[4];
    read_rect(v, v->root ? margin : 0, rr);
    rect_of(r, whole);
    /* an output covering the whole root: its old pixels are not needed on the device */
    lumen_status st = lumen__on_device(call, r, output && !memcmp(rr, whole, sizeof rr));
    if (st) return st;
    t->dim[0] = r->dim[0];
    t->dim[1] = (halide_dimension_t){rr[0], rr[2] - rr[0], r->dim[1].stride, 0};
    t->dim[2] = (halide_dimension_t){rr[1], rr[3] - rr[1], r->dim[2].stride, 0};
    t->buf = r->buf;
    t->buf.dim = t->dim;
    t->buf.host = !r->buf.host ? NULL
                               : r->buf.host + ((size_t)rr[1] * (size_t)r->dim[2].stride +
                                                (size_t)rr[0] * (size_t)r->dim[1].stride) *
                                                   (size_t)elem_size(r);
    t->buf.device = 0;
    t->buf.device_interface = NULL;
    t->buf.flags = 0;
    int rc;
    LUMEN__HALIDE_CALL(rc, halide_device_crop(call, &r->buf, &t->buf));
    if ((st = lumen__halide_status(call, rc))) return st;
    t->dim[1].min -= v->root ? v->x0 : 0; /* coordinates relative to the view */
    t->dim[2].min -= v->root ? v->y0 : 0;
    t->image = r;
    t->output = output;
    t->crop = 1;
    t->planar = is_planar(v);
    return LUMEN_OK;
}

/* crop_temp can stand for v on GPU backend b: its first byte, and a planar image's planes, at
 * multiples of the backend's crop alignment (else view_temp: through host memory). */
static int croppable(const lumen_image *v, int margin, lumen_backend b) {
    size_t align = (size_t)lumen__crop_align(b), es = (size_t)elem_size(v);
    const lumen_image *r = v->root ? v->root : v;
    if (!align || !(r->buf.device || r->buf.host)) return 0;
    int rr[4];
    read_rect(v, v->root ? margin : 0, rr);
    size_t first =
        (size_t)rr[1] * (size_t)r->dim[2].stride + (size_t)rr[0] * (size_t)r->dim[1].stride;
    return (first * es) % align == 0 &&
           (!is_planar(v) || ((size_t)r->dim[0].stride * es) % align == 0);
}

/* A Halide runtime call, taking the call lock unless the caller holds it already (locked). */
#define LUMEN__HALIDE_CALL_IN(locked, rc, expr) \
  do {                                          \
    if (locked)                                 \
      (rc) = (expr);                            \
    else                                        \
      LUMEN__HALIDE_CALL(rc, expr);             \
  } while (0)

/* After the call: a temporary's device copy freed (an output's copied back first, an input's
 * upload counted); a view written on the host makes its root's host pixels the newest. locked:
 * called inside the call lock (between lumen__prepare and lumen__finish). */
static lumen_status release_temp_in(lumen__call *call, temp_t *t, lumen_status st, int locked) {
    if (!t->used) return st;
    if (t->padded) {
        int rc = 0;
        if (t->buf.device) LUMEN__HALIDE_CALL_IN(locked, rc, halide_device_free(call, &t->buf));
        if (!st) st = lumen__halide_status(call, rc);
        lumen__host_free(t->buf.host);
        t->used = 0;
        return st;
    }
    if (t->crop) { /* the root's memory: written there, or only read */
        int rc = 0;
        if (t->buf.device)
            LUMEN__HALIDE_CALL_IN(locked, rc, halide_device_release_crop(call, &t->buf));
        if (!st) st = lumen__halide_status(call, rc);
        /* after a call, even a failed one: a kernel may have written part of it (a failed GPU
         * call leaves dst undefined, as lumen.h says) */
        if (t->image && t->output && (!st || t->ran)) lumen__device_written(t->image);
        return st;
    }
    uint64_t bytes = (uint64_t)t->dim[0].extent * (uint64_t)t->dim[1].extent *
                     (uint64_t)(t->buf.dimensions > 2 ? t->dim[2].extent : 1);
    if (t->buf.device) {
        int rc = 0;
        if (t->output && !st) {
            LUMEN__HALIDE_CALL_IN(locked, rc, halide_copy_to_host(call, &t->buf));
            if (rc) st = lumen__halide_status(call, rc);
            lumen__count(&call->ctx->stats.downloads, !rc);
            lumen__count(&call->ctx->stats.download_bytes, rc ? 0 : bytes);
        } else if (!t->output) {
            lumen__count(&call->ctx->stats.uploads, 1);
            lumen__count(&call->ctx->stats.upload_bytes, bytes);
        }
        LUMEN__HALIDE_CALL_IN(locked, rc, halide_device_free(call, &t->buf));
        if (!st) st = lumen__halide_status(call, rc);
    }
    /* after a call, even a failed one: the host may hold part of a result (the root was brought
     * to the host first, so marking it newest loses no pixels) */
    if (t->image && t->output && (!st || t->ran))
        t->image->buf.flags |= halide_buffer_flag_host_dirty;
    return st;
}

static lumen_status release_temp(lumen__call *call, temp_t *t, lumen_status st) {
    return release_temp_in(call, t, st, 0);
}

/* The buffers one Halide call takes for src and dst (either may be NULL: a YUV frame's side).
 * Planar images (src and dst both, or neither): the call runs once per plane (planes > 0), on
 * one plane's buffers ps, pd of the temporaries s, d. */
typedef struct {
    temp_t s, d, ps, pd;
    buf_t *src, *dst;
    int planes;
    lumen_status st; /* of the planes' temporaries */
} args_t;

static lumen_status pad_source(lumen__call *call, args_t *a, const lumen_image *src,
                               lumen_backend b, int m, int *rc);
static lumen_status finish(lumen__call *call, args_t *a, int rc);

/* Picks the backend (b), makes views and planar images temporaries (host memory on the CPU,
 * device crops on a GPU) and moves the other images where the backend needs them. border: the
 * pipeline reads margin around each pixel as the context's border says (pad_source). */
static lumen_status prepare(lumen__call *call, lumen_image *src, lumen_image *dst, int margin,
                            int border, args_t *a, lumen_backend *b) {
    /* not a memset of *a (four buffers): this runs on every call (dispatch cost) */
    a->s.used = a->d.used = a->ps.used = a->pd.used = 0;
    a->planes = 0;
    a->st = LUMEN_OK;
    int ts = src && (src->root || is_planar(src)), td = dst && (dst->root || is_planar(dst));
    lumen_status st = lumen__choose(call, src, b);
    int gpu = !st && *b != LUMEN_BACKEND_CPU;
    if (!st && ts)
        st = gpu && croppable(src, margin, *b) ? crop_temp(call, src, margin, 0, &a->s)
                                               : view_temp(call, src, margin, 0, &a->s);
    if (!st && td)
        st = gpu && croppable(dst, 0, *b) ? crop_temp(call, dst, 0, 1, &a->d)
                                          : view_temp(call, dst, 0, 1, &a->d);
    if (!st) st = lumen__place(call, ts ? NULL : src, td ? NULL : dst);
    if (st) { /* crops made before the failure */
        release_temp(call, &a->s, st);
        release_temp(call, &a->d, st);
    }
    a->src = !src ? NULL : ts ? &a->s.buf : &src->buf;
    a->dst = !dst ? NULL : td ? &a->d.buf : &dst->buf;
    a->planes = src && is_planar(src) ? lumen_image_channels(src) : 0;
    if (!st && border && margin > 0 && call->ctx->border != LUMEN_BORDER_REPLICATE) {
        int rc = 0;
        lumen_status ps = pad_source(call, a, src, *b, margin, &rc);
        if (ps || rc) { /* leaves the call lock */
            st = finish(call, a, rc);
            return ps ? ps : st;
        }
    }
    return st;
}

/* Plane k of a planar call: a 1-channel buffer of its own per image (on a GPU, a crop of the
 * image's crop). Inside the call lock; returns 0 or a Halide error code. */
static int plane_select(lumen__call *call, args_t *a, int k) {
    temp_t *whole[2] = {&a->s, &a->d}, *part[2] = {&a->ps, &a->pd};
    for (int i = 0; a->planes && i < 2; i++) {
        temp_t *w = whole[i], *p = part[i];
        if (!w->used || !w->planar) continue; /* to_tensor's src */
        *p = *w;
        p->buf.dim = p->dim;
        p->padded = 0; /* a crop of it, or its host memory */
        if (w->buf.host)
            p->buf.host += (size_t)k * (size_t)w->dim[0].stride * (w->buf.type.bits / 8);
        p->image = NULL; /* the whole image's temporary marks it */
        if (i)
            a->dst = &p->buf;
        else
            a->src = &p->buf;
        if (w->crop) {
            p->dim[0] = (halide_dimension_t){k, 1, w->dim[0].stride, 0};
            p->buf.device = 0;
            p->buf.device_interface = NULL;
            int rc = halide_device_crop(call, &w->buf, &p->buf);
            if (rc) return rc;
        }
        p->dim[0] = (halide_dimension_t){0, 1, 1, 0};
    }
    return 0;
}

/* After plane k's call returned rc: its buffers' device copies released (an output's copied back
 * first); a failure in a->st. */
static void plane_done(lumen__call *call, args_t *a, int rc) {
    if (!a->planes) return;
    lumen_status st = release_temp_in(call, &a->ps, rc ? LUMEN_ERROR_INTERNAL : LUMEN_OK, 1);
    st = release_temp_in(call, &a->pd, st, 1);
    if (!rc) a->st = st;
}

/* Runs `expr` (a Halide call returning an int into rc, reading a.src and a.dst) once, or once per
 * plane of planar images. */
#define LUMEN__EACH_PLANE(rc, expr)                                          \
  for (int k_ = 0; k_ < (a.planes ? a.planes : 1) && !(rc) && !a.st; k_++) { \
    if (!((rc) = plane_select(&call, &a, k_))) (rc) = (expr);                \
    plane_done(&call, &a, (rc));                                             \
  }

static lumen_status finish(lumen__call *call, args_t *a, int rc) {
    lumen_status st = lumen__finish(call, rc);
    a->s.ran = a->d.ran = 1;
    if (!st) st = a->st;
    st = release_temp(call, &a->s, st);
    return release_temp(call, &a->d, st);
}

/* v rounded (ties to even) and saturated to 0..top. */
static double saturate(double v, double top) { return fmin(fmax(nearbyint(v), 0.0), top); }

/* The coordinate read for p along a dimension [lo, lo + n) under border mode (OpenCV's
 * borderInterpolate, closed form: % made Euclidean); -1 - lo for CONSTANT outside. */
static int border_index(int p, int lo, int n, int mode) {
    int d = p - lo, q = mode == 2 ? 2 * n : mode == 4 ? (n > 1 ? 2 * n - 2 : 1) : n;
    if (d >= 0 && d < n) return p;
    if (mode == 0) return -1 - lo;
    if (mode == 1) return lo + (d < 0 ? 0 : n - 1);
    int t = ((d % q) + q) % q;
    return lo + (mode == 3 || t < n ? t : (mode == 2 ? 2 * n - 1 : q) - t);
}

/* pad_source on the CPU: each row's interior copied in one piece (memcpy), the border's pixels
 * through per-column indices. Any strides: interleaved buffers move whole pixels, others one
 * channel at a time. value: CONSTANT's elements by channel, already in the element's range. */
static lumen_status pad_host(lumen__call *call, const buf_t *in, buf_t *out, int mode,
                             const double *value) {
    const halide_dimension_t *id = in->dim, *od = out->dim;
    int es = in->type.bits / 8, c = id[0].extent, W = od[1].extent, H = od[2].extent;
    int ilv = id[0].stride == 1 && id[1].stride == c && od[0].stride == 1 && od[1].stride == c;
    int n = ilv ? c : 1; /* elements moved together: a pixel, or one channel's element */
    int dense = ilv || (id[1].stride == 1 && od[1].stride == 1);
    int *sx = (int *)malloc((size_t)W * sizeof *sx);
    if (!sx) return lumen__fail(call, LUMEN_ERROR_OUT_OF_MEMORY, "no memory for src's border");
    int x_lo = od[1].min, x_in = id[1].min > x_lo ? id[1].min : x_lo;
    int x_end = id[1].min + id[1].extent < x_lo + W ? id[1].min + id[1].extent : x_lo + W;
    for (int x = 0; x < W; x++) sx[x] = border_index(x_lo + x, id[1].min, id[1].extent, mode);
    uint8_t val[4][4]; /* value[k] as an element */
    for (int k = 0; k < 4; k++) {
        float f = (float)value[k];
        uint16_t u16 = es == 2 ? (uint16_t)value[k] : 0; /* only the element's own type */
        uint8_t u8 = es == 1 ? (uint8_t)value[k] : 0;
        memcpy(val[k], es == 4 ? (const void *)&f : es == 2 ? (const void *)&u16 : &u8, (size_t)es);
    }
    size_t ostep = (size_t)od[1].stride * es, istep = (size_t)id[1].stride * es;
    for (int y = 0; y < H; y++) {
        int sy = border_index(od[2].min + y, id[2].min, id[2].extent, mode);
        for (int k = 0; k < (ilv ? 1 : c); k++) {
            uint8_t *o = out->host + ((size_t)y * od[2].stride + (size_t)k * od[0].stride) * es;
            const uint8_t *i =
                sy < id[2].min
                    ? NULL
                    : in->host +
                          ((size_t)(sy - id[2].min) * id[2].stride + (size_t)k * id[0].stride) * es;
            for (int x = 0; x < W; x++) {
                if (i && dense && x == x_in - x_lo && x_end > x_in) { /* the interior */
                    memcpy(o + (size_t)x * ostep, i + (size_t)(x_in - id[1].min) * istep,
                           (size_t)(x_end - x_in) * n * es);
                    x = x_end - x_lo - 1;
                    continue;
                }
                for (int e = 0; e < n; e++) {
                    const uint8_t *from =
                        !i || sx[x] < id[1].min
                            ? val[ilv ? e : k]
                            : i + (size_t)(sx[x] - id[1].min) * istep + (size_t)e * es;
                    memcpy(o + (size_t)x * ostep + (size_t)e * es, from, (size_t)es);
                }
            }
        }
    }
    free(sx);
    return LUMEN_OK;
}

/* The context's border for a pipeline reading m around each pixel of src: a copy of the
 * source (a->src) with a border m wide, written into memory of the call's own (on the CPU by
 * pad_host; on a GPU by the pad generator, each plane of a planar source), becomes the source
 * (a->s). Its coordinates are the source's (mins -m), so the pipeline reads it as it reads a view
 * with pixels around it, never past its edges. Inside the call lock; a Halide failure in *rc. */
static lumen_status pad_source(lumen__call *call, args_t *a, const lumen_image *src,
                               lumen_backend b, int m, int *rc) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, uint8_t, uint8_t, uint8_t, uint8_t,
                        buf_t *);
    typedef int (*fn16_t)(const void *, buf_t *, int32_t, uint16_t, uint16_t, uint16_t, uint16_t,
                          buf_t *);
    typedef int (*fnf_t)(const void *, buf_t *, int32_t, float, float, float, float, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(pad);
    static const fn16_t fns16[] = LUMEN__TABLE(pad_u16);
    static const fnf_t fnsf[] = LUMEN__TABLE(pad_f32);
    int es = elem_size(src), c = lumen_image_channels(src), planar = a->planes > 0;
    int64_t W = lumen_image_width(src) + 2LL * m, H = lumen_image_height(src) + 2LL * m;
    /* a GPU's planes at multiples of its crop alignment (4096 bytes covers every device's) */
    int64_t align = b == LUMEN_BACKEND_CPU
                        ? 1
                        : (lumen__crop_align(b) > 4096 ? lumen__crop_align(b) : 4096) / es;
    int64_t plane = planar ? (W * H + align - 1) / align * align : W * H * c;
    int64_t bytes = plane * (planar ? c : 1) * es;
    if (bytes > LUMEN_MAX_BYTES) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "src with its %d-pixel border (%lldx%lld, %lld bytes) exceeds "
                           "LUMEN_MAX_BYTES (LUMEN_BORDER_REPLICATE needs no copy)",
                           m, (long long)W, (long long)H, (long long)bytes);
    }
    args_t pa; /* the source and the copy, plane by plane */
    pa.ps.used = pa.pd.used = 0;
    pa.planes = a->planes;
    pa.st = LUMEN_OK;
    pa.s = a->s, pa.s.buf.dim = pa.s.dim;
    pa.src = a->s.used ? &pa.s.buf : a->src;
    temp_t *p = &a->s;
    memset(p, 0, sizeof *p);
    p->used = p->padded = 1, p->planar = planar, p->crop = b != LUMEN_BACKEND_CPU;
    p->dim[0] = (halide_dimension_t){0, c, planar ? (int32_t)plane : 1, 0};
    p->dim[1] = (halide_dimension_t){-m, (int32_t)W, planar ? 1 : c, 0};
    p->dim[2] = (halide_dimension_t){-m, (int32_t)H, (int32_t)(planar ? W : W * c), 0};
    lumen__buffer_init(&p->buf, NULL, es * 8, 3, p->dim, 0);
    p->buf.type = pa.src->type;
    a->src = &p->buf;
    lumen_status st = LUMEN_OK;
    /* host memory on a GPU too: a GPU pipeline may read a small input on the host (pages the
     * call never touches cost nothing) */
    if (!(p->buf.host = (uint8_t *)lumen__host_alloc((size_t)bytes)))
        st = lumen__fail(call, LUMEN_ERROR_OUT_OF_MEMORY, "no memory for src with its border");
    else if (b != LUMEN_BACKEND_CPU)
        *rc = halide_device_malloc(call, &p->buf, lumen__device_interface(b));
    pa.d = *p, pa.d.buf.dim = pa.d.dim;
    pa.dst = &pa.d.buf;
    double v[4]; /* CONSTANT's elements: 8- and 16-bit rounded and saturated */
    for (int k = 0; k < 4; k++) {
        float f = call->ctx->border_value[k];
        v[k] = es == 4 ? f : saturate(f, es == 2 ? 65535.0 : 255.0);
    }
    int mode = (int)call->ctx->border;
    if (!st && b == LUMEN_BACKEND_CPU) st = pad_host(call, pa.src, &p->buf, mode, v);
    for (int k = 0; k < (planar ? c : 1) && b != LUMEN_BACKEND_CPU && !st && !*rc && !pa.st; k++) {
        if (!(*rc = plane_select(call, &pa, k))) {
            double f[4]; /* plane k's value as channel 0 */
            for (int j = 0; j < 4; j++) f[j] = v[planar ? k : j];
            buf_t *i = pa.src, *o = pa.dst;
            *rc = es == 4   ? fnsf[b](call, i, mode, (float)f[0], (float)f[1], (float)f[2],
                                    (float)f[3], o)
                  : es == 2 ? fns16[b](call, i, mode, (uint16_t)f[0], (uint16_t)f[1],
                                       (uint16_t)f[2], (uint16_t)f[3], o)
                            : fns[b](call, i, mode, (uint8_t)f[0], (uint8_t)f[1], (uint8_t)f[2],
                                     (uint8_t)f[3], o);
        }
        plane_done(call, &pa, *rc);
    }
    p->buf.flags = b == LUMEN_BACKEND_CPU ? 0 : halide_buffer_flag_device_dirty;
    if (!st) st = pa.st;
    return release_temp_in(call, &pa.s, st, 1); /* the source's temporary, if any */
}

/* Checks, then picks the backend (b) and moves the images where it needs them. */
#define LUMEN__START(fn, shape_)                 \
  lumen__call call;                              \
  lumen__begin(&call, fn, ctx);                  \
  lumen_backend b;                               \
  shape sh = shape_;                             \
  lumen_status st = check(&call, src, dst, &sh); \
  if (st) return st

#define LUMEN__PREPARE() \
  args_t a;              \
  if ((st = prepare(&call, src, dst, sh.margin, sh.border, &a, &b))) return st

/* B, G, R channel order, of any element type and layout. */
static int is_bgr(const lumen_image *img) {
    return !strncmp(lumen_format_name(img->format), "BGR", 3);
}

/* v in Q12 fixed point, rounded half up. */
static int32_t q12(float v) { return (int32_t)floor((double)v * 4096.0 + 0.5); }

lumen_status lumen_levels(lumen_context *ctx, lumen_image *src, lumen_image *dst, float gain,
                          float bias) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, int32_t, buf_t *);
    typedef int (*fnf_t)(const void *, buf_t *, float, float, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(levels), fns16[] = LUMEN__TABLE(levels_u16);
    static const fnf_t fnsf[] = LUMEN__TABLE(levels_f32);
    LUMEN__START("lumen_levels", ((shape){ANY_CHANNELS, 0, 1, 1, 0, 1, 1}));
    if (!(fabsf(gain) <= LUMEN_GAIN_MAX && fabsf(bias) <= LUMEN_BIAS_MAX)) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "gain %g, bias %g: need |gain| <= %g, |bias| <= %g", (double)gain,
                           (double)bias, (double)LUMEN_GAIN_MAX, (double)LUMEN_BIAS_MAX);
    }
    LUMEN__PREPARE();
    int es = elem_size(src), rc = 0;
    LUMEN__EACH_PLANE(rc, es == 4   ? fnsf[b](&call, a.src, gain, bias / 255.0f, a.dst)
                          : es == 2 ? fns16[b](&call, a.src, q12(gain), 257 * q12(bias), a.dst)
                                    : fns[b](&call, a.src, q12(gain), q12(bias), a.dst));
    return finish(&call, &a, rc);
}

lumen_status lumen_grayscale(lumen_context *ctx, lumen_image *src, lumen_image *dst) {
    typedef int (*fn_t)(const void *, buf_t *, bool, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(grayscale);
    LUMEN__START("lumen_grayscale", ((shape){(1 << 3) | (1 << 4), 1, 1, 0, 0}));
    LUMEN__PREPARE();
    return finish(&call, &a, fns[b](&call, a.src, is_bgr(src), a.dst));
}

lumen_status lumen_gaussian_blur(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                 float sigma) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(gaussian_blur),
                      fns16[] = LUMEN__TABLE(gaussian_blur_u16),
                      fnsf[] = LUMEN__TABLE(gaussian_blur_f32);
    LUMEN__START("lumen_gaussian_blur", ((shape){ANY_CHANNELS, 0, 1, 0, reach(sigma), 1, 1, 0, 1}));
    if ((st = check_sigma(&call, sigma))) return st;
    LUMEN__PREPARE();
    taps_t t;
    make_taps(&t, sigma);
    int es = elem_size(src), rc = 0;
    const fn_t *f = es == 4 ? fnsf : es == 2 ? fns16 : fns;
    LUMEN__EACH_PLANE(rc, f[b](&call, a.src, &t.buf, t.radius, a.dst));
    return release_param(&call, &t.buf, finish(&call, &a, rc));
}

/* src and dst of 8-bit RGBA / BGRA on the CPU, interleaved and 4-byte aligned, as 1-channel
 * float buffers: each pixel one 32-bit element, for pipelines that move pixels as they are. */
typedef struct {
    buf_t buf[2];
    halide_dimension_t dims[2][3];
} words;

static int as_words(const args_t *a, lumen_backend b, int es, int c, words *w) {
    buf_t *ab[2] = {a->src, a->dst};
    int ok = b == LUMEN_BACKEND_CPU && !a->planes && es * c == 4 && c > 1;
    for (int i = 0; i < 2; i++)
        ok = ok && (uintptr_t)ab[i]->host % 4 == 0 && ab[i]->dim[2].stride % 4 == 0;
    for (int i = 0; ok && i < 2; i++) {
        w->buf[i] = *ab[i];
        w->buf[i].type.code = halide_type_float, w->buf[i].type.bits = 32;
        w->buf[i].dim = w->dims[i];
        w->dims[i][0] = (halide_dimension_t){0, 1, 1, 0};
        w->dims[i][1] = (halide_dimension_t){ab[i]->dim[1].min, ab[i]->dim[1].extent, 1, 0};
        w->dims[i][2] = (halide_dimension_t){ab[i]->dim[2].min, ab[i]->dim[2].extent,
                                             ab[i]->dim[2].stride / 4, 0};
    }
    return ok;
}

lumen_status lumen_resize(lumen_context *ctx, lumen_image *src, lumen_image *dst) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, int32_t, bool, buf_t *);
    typedef int (*fnw_t)(const void *, buf_t *, int32_t, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(resize);
    static const fnw_t fns16[] = LUMEN__TABLE(resize_u16), fnsf[] = LUMEN__TABLE(resize_f32);
    LUMEN__START("lumen_resize", ((shape){ANY_CHANNELS, 0, 0, 0, 0, 1, 1}));
    LUMEN__PREPARE();
    int w = lumen_image_width(dst), h = lumen_image_height(dst), es = elem_size(src), rc = 0;
    /* Exact doubling on the CPU: dst as (pixel pairs, w / 2, h), so the pipeline's vectors of
     * even and odd columns are dense stores (the generator's `pairs`). */
    bool pairs = b == LUMEN_BACKEND_CPU && w == 2 * lumen_image_width(src) &&
                 h == 2 * lumen_image_height(src);
    buf_t out;
    halide_dimension_t dim[3];
    for (int k = 0; k < (a.planes ? a.planes : 1) && !rc && !a.st; k++) {
        if (!(rc = plane_select(&call, &a, k))) {
            out = *a.dst;
            memcpy(dim, a.dst->dim, sizeof dim);
            if (pairs) {
                dim[0].extent *= 2;
                dim[1].extent /= 2;
                dim[1].stride *= 2;
                out.dim = dim;
            }
            rc = es == 1 ? fns[b](&call, a.src, w, h, pairs, pairs ? &out : a.dst)
                         : (es == 2 ? fns16 : fnsf)[b](&call, a.src, w, h, a.dst);
        }
        plane_done(&call, &a, rc); /* also releases a plane crop made before a failure */
    }
    return finish(&call, &a, rc);
}

static int param_done(lumen__call *call, buf_t *b, int rc, int output);

/* OpenCV's interpolateCubic (A = -0.75), in float as there. */
static void cubic_coeffs(float x, float c[4]) {
    const float A = -0.75f;
    c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
    c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
    c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
    c[3] = 1.f - c[0] - c[1] - c[2];
}

static double lanczos3(double x) {
    if (x == 0.0) return 1.0;
    if (!(x > -3.0 && x < 3.0)) return 0.0;
    double px = 3.14159265358979323846 * x;
    return 3.0 * sin(px) * sin(px / 3.0) / (px * px);
}

/* Taps per output of lumen_resize_interp's CUBIC and LANCZOS3 along an axis of in -> out (a
 * Lanczos window holds at most `in` sources; at least 4 taps, the generator's fixed-4 path). */
static int kernel_taps_n(int in, int out, lumen_interp interp) {
    if (interp == LUMEN_INTER_CUBIC) return 4;
    int n = 2 * (int)ceil(3.0 * fmax((double)in / out, 1.0)) + 1;
    return n < in ? n : in > 4 ? in : 4;
}

/* Their tables (generators/resize_kernel.cpp): t[2 (n i + k)] the source index of tap k of output
 * i, t[2 (n i + k) + 1] its weight in Q(q). Returns the largest sum of |w|. */
static int64_t kernel_taps(int32_t *t, int n, int in, int out, lumen_interp interp, int q) {
    int64_t most = 0;
    for (int i = 0; i < out; i++) {
        int32_t *r = t + (size_t)2 * n * i;
        if (interp == LUMEN_INTER_CUBIC) { /* cv::resize INTER_CUBIC's integers */
            double scale = 1.0 / ((double)out / in);
            float fx = (float)((i + 0.5) * scale - 0.5), c[4];
            int sx = (int)floorf(fx);
            cubic_coeffs(fx - (float)sx, c);
            for (int k = 0; k < 4; k++) {
                int j = sx - 1 + k;
                r[2 * k] = j < 0 ? 0 : j >= in ? in - 1 : j;
                r[2 * k + 1] = (int32_t)lrintf(c[k] * (float)(1 << q));
            }
        } else { /* Pillow's LANCZOS taps, weights to Q(q) by cumulative rounding */
            double scale = (double)in / out, f = fmax(scale, 1.0), center = (i + 0.5) * scale;
            int lo = (int)floor(center - 3.0 * f + 0.5), hi = (int)floor(center + 3.0 * f + 0.5);
            lo = lo < 0 ? 0 : lo;
            hi = hi > in ? in : hi;
            hi = hi - lo > n ? lo + n : hi;
            double sum = 0.0, cum = 0.0;
            for (int j = lo; j < hi; j++) sum += lanczos3((j + 0.5 - center) / f);
            int32_t prev = 0;
            for (int k = 0; k < n; k++) {
                int j = lo + k, w = 0;
                if (j < hi) {
                    cum += lanczos3((j + 0.5 - center) / f);
                    int32_t at = j == hi - 1 ? 1 << q : (int32_t)floor(ldexp(cum / sum, q) + 0.5);
                    w = at - prev;
                    prev = at;
                }
                r[2 * k] = j < hi ? j : hi - 1;
                r[2 * k + 1] = w;
            }
        }
        int64_t s = 0;
        for (int k = 0; k < n; k++) s += r[2 * k + 1] < 0 ? -(int64_t)r[2 * k + 1] : r[2 * k + 1];
        most = s > most ? s : most;
    }
    return most;
}

/* lumen_resize_interp's CUBIC and LANCZOS3 after the checks. */
static lumen_status kernel_resize(lumen__call *call, lumen_image *src, lumen_image *dst,
                                  lumen_interp interp) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *, buf_t *, int32_t, int32_t, bool, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(resize_kernel),
                      fns16[] = LUMEN__TABLE(resize_kernel_u16);
    int iw = lumen_image_width(src), ih = lumen_image_height(src), wide = elem_size(src) == 2;
    int w = lumen_image_width(dst), h = lumen_image_height(dst);
    int nx = kernel_taps_n(iw, w, interp), ny = kernel_taps_n(ih, h, interp), rc = 0;
    int32_t *t = malloc(((size_t)nx * w + (size_t)ny * h) * 2 * sizeof *t);
    if (!t) return lumen__fail(call, LUMEN_ERROR_OUT_OF_MEMORY, "no memory for the tap tables");
    /* weights Q(q), shifts rs, fs: 8-bit cubic Q11, 0, 22; 8-bit Lanczos-3 Q14, 7, 21; 16-bit
     * (64-bit sums) Q20, 12, 28 */
    int q = wide ? 20 : interp == LUMEN_INTER_CUBIC ? 11 : 14;
    int rs = wide ? 12 : interp == LUMEN_INTER_CUBIC ? 0 : 7, fs = 2 * q - rs;
    int64_t sx = kernel_taps(t, nx, iw, w, interp, q);
    int64_t sy = kernel_taps(t + (size_t)2 * nx * w, ny, ih, h, interp, q);
    lumen_backend b;
    args_t a;
    lumen_status st = LUMEN_OK;
    /* 8-bit sums within 32 bits (16-bit ones are 64-bit) */
    if (!wide && (255.0 * sy + (1 << rs)) / (1 << rs) * sx + (1 << (fs - 1)) >= 2147483648.0) {
        /* not seen: the weights' sums of |w| are at most 1.6 */
        st = lumen__fail(call, LUMEN_ERROR_INTERNAL, "the tap sums could overflow");
    } else if (!(st = prepare(call, src, dst, 0, 0, &a, &b))) {
        halide_dimension_t xd[3] = {{0, 2, 1, 0}, {0, nx, 2, 0}, {0, w, 2 * nx, 0}};
        halide_dimension_t yd[3] = {{0, 2, 1, 0}, {0, ny, 2, 0}, {0, h, 2 * ny, 0}};
        for (int k = 0; k < (a.planes ? a.planes : 1) && !rc && !a.st; k++) {
            buf_t xb, yb;
            lumen__buffer_init(&xb, t, 32, 3, xd, halide_buffer_flag_host_dirty);
            lumen__buffer_init(&yb, t + (size_t)2 * nx * w, 32, 3, yd,
                               halide_buffer_flag_host_dirty);
            xb.type.code = yb.type.code = halide_type_int;
            if (!(rc = plane_select(call, &a, k))) {
                rc = (wide ? fns16 : fns)[b](call, a.src, &xb, &yb, rs, fs, nx == 4 && ny == 4,
                                             a.dst);
                rc = param_done(call, &yb, param_done(call, &xb, rc, 0), 0);
            }
            plane_done(call, &a, rc);
        }
        st = finish(call, &a, rc);
    }
    free(t);
    return st;
}

lumen_status lumen_resize_interp(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                 lumen_interp interp) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, int32_t, int32_t, buf_t *);
    typedef int (*fna_t)(const void *, buf_t *, int32_t, int32_t, float, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(resize_nearest),
                      fns16[] = LUMEN__TABLE(resize_nearest_u16),
                      fnsf[] = LUMEN__TABLE(resize_nearest_f32);
    static const fna_t fnsa[] = LUMEN__TABLE(resize_area);
    if (interp == LUMEN_INTER_LINEAR) return lumen_resize(ctx, src, dst);
    LUMEN__START("lumen_resize_interp", ((shape){ANY_CHANNELS, 0, 0, 0, 0, 1, 1}));
    bool kernel = interp == LUMEN_INTER_CUBIC || interp == LUMEN_INTER_LANCZOS3;
    if (interp != LUMEN_INTER_NEAREST && interp != LUMEN_INTER_AREA && !kernel) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "interp %d (LUMEN_INTER_NEAREST, LINEAR, CUBIC, AREA or LANCZOS3 taken)",
                           (int)interp);
    }
    int es = elem_size(src), rc = 0;
    if ((interp == LUMEN_INTER_AREA && es != 1) || (kernel && es == 4)) {
        return lumen__fail(&call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                           "src is %s: LUMEN_INTER_%s takes %s formats only",
                           lumen_format_name(src->format),
                           interp == LUMEN_INTER_AREA    ? "AREA"
                           : interp == LUMEN_INTER_CUBIC ? "CUBIC"
                                                         : "LANCZOS3",
                           kernel ? "8- and 16-bit" : "8-bit");
    }
    int32_t iw = lumen_image_width(src), ih = lumen_image_height(src);
    int32_t w = lumen_image_width(dst), h = lumen_image_height(dst);
    /* Area 2x2 is (p00 + p01 + p10 + p11 + 2) >> 2: lumen_resize's exact halving, the same
     * integers on every target, and its CPU path is 10-30x faster than the general one here. */
    if (interp == LUMEN_INTER_AREA && iw == 2 * w && ih == 2 * h)
        return lumen_resize(ctx, src, dst);
    if (kernel) return kernel_resize(&call, src, dst, interp);
    LUMEN__PREPARE();
    /* INTER_AREA's case (generators/resize_area.cpp): 1 integer ratios, with OpenCV's float
     * scale 1.f / area (unused otherwise); 2 two taps each way; 0 the others. */
    int64_t area = iw % w == 0 && ih % h == 0 ? (int64_t)(iw / w) * (ih / h) : 0;
    int kind = area && area <= 65536 ? 1 : iw <= w && ih <= h ? 2 : 0;
    float inv_area = kind == 1 ? 1.0f / (float)area : 0;
    const fn_t *f = es == 4 ? fnsf : es == 2 ? fns16 : fns;
    /* Nearest: on the CPU, width divided by 1..4 is a strided copy (generators/resize_nearest). */
    int32_t xk = iw / w, x_step = b == LUMEN_BACKEND_CPU && iw == xk * w && xk <= 4 ? xk : 0;
    words px;
    if (interp == LUMEN_INTER_AREA) {
        LUMEN__EACH_PLANE(rc, fnsa[b](&call, a.src, w, h, inv_area, kind, a.dst));
    } else if (as_words(&a, b, es, lumen_image_channels(src), &px)) { /* as lumen_flip */
        rc = fnsf[b](&call, &px.buf[0], w, h, x_step, &px.buf[1]);
    } else {
        LUMEN__EACH_PLANE(rc, f[b](&call, a.src, w, h, x_step, a.dst));
    }
    return finish(&call, &a, rc);
}

lumen_status lumen_sobel(lumen_context *ctx, lumen_image *src, lumen_image *dst) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(sobel);
    LUMEN__START("lumen_sobel", ((shape){1 << 1, 1, 1, 0, 1, 0, 0, 0, 1}));
    LUMEN__PREPARE();
    return finish(&call, &a, fns[b](&call, a.src, a.dst));
}

lumen_status lumen_unsharp_mask(lumen_context *ctx, lumen_image *src, lumen_image *dst, float sigma,
                                float amount) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *, int32_t, int32_t, buf_t *);
    typedef int (*fnf_t)(const void *, buf_t *, buf_t *, int32_t, float, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(unsharp_mask), fns16[] = LUMEN__TABLE(unsharp_mask_u16);
    static const fnf_t fnsf[] = LUMEN__TABLE(unsharp_mask_f32);
    LUMEN__START("lumen_unsharp_mask", ((shape){ANY_CHANNELS, 0, 1, 0, reach(sigma), 1, 1, 0, 1}));
    if ((st = check_sigma(&call, sigma))) return st;
    if (!(amount >= 0.0f && amount <= LUMEN_AMOUNT_MAX)) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "amount %g outside [0, %g]",
                           (double)amount, (double)LUMEN_AMOUNT_MAX);
    }
    LUMEN__PREPARE();
    taps_t t;
    make_taps(&t, sigma);
    int es = elem_size(src), rc = 0;
    const fn_t *f = es == 2 ? fns16 : fns;
    LUMEN__EACH_PLANE(rc, es == 4 ? fnsf[b](&call, a.src, &t.buf, t.radius, amount, a.dst)
                                  : f[b](&call, a.src, &t.buf, t.radius, q12(amount), a.dst));
    return release_param(&call, &t.buf, finish(&call, &a, rc));
}

/* ---- Geometry and thresholds -------------------------------------------------------------- */

/* The orient generators' mode (generators/orient.cpp): flips 1..3, rotations 5 (90), 3, 6 (270). */
static lumen_status orient(lumen_context *ctx, const char *fn, lumen_image *src, lumen_image *dst,
                           int mode, int swap, const char *bad) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(orient), fns16[] = LUMEN__TABLE(orient_u16),
                      fnsf[] = LUMEN__TABLE(orient_f32);
    LUMEN__START(fn, ((shape){ANY_CHANNELS, 0, 1, 0, 0, 1, 1, swap}));
    if (!mode) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "%s", bad);
    LUMEN__PREPARE();
    int es = elem_size(src), c = lumen_image_channels(src), rc = 0;
    const fn_t *f = es == 4 ? fnsf : es == 2 ? fns16 : fns;
    /* RGBA8 / BGRA8 on the CPU: each pixel one 32-bit element (1 channel of orient_f32: moved as
     * is), so mirrored and transposed reads are dense or 32-bit gathers, not byte shuffles. */
    words px;
    if (as_words(&a, b, es, c, &px))
        rc = fnsf[b](&call, &px.buf[0], mode, &px.buf[1]);
    else
        LUMEN__EACH_PLANE(rc, f[b](&call, a.src, mode, a.dst));
    return finish(&call, &a, rc);
}

lumen_status lumen_flip(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                        lumen_flip_mode mode) {
    char bad[96];
    snprintf(bad, sizeof bad, "mode %d (LUMEN_FLIP_HORIZONTAL, VERTICAL or BOTH taken)", (int)mode);
    int m = mode >= LUMEN_FLIP_HORIZONTAL && mode <= LUMEN_FLIP_BOTH ? (int)mode : 0;
    return orient(ctx, "lumen_flip", src, dst, m, 0, bad);
}

lumen_status lumen_rotate(lumen_context *ctx, lumen_image *src, lumen_image *dst, int degrees) {
    char bad[96];
    snprintf(bad, sizeof bad, "degrees %d (90, 180 or 270 taken)", degrees);
    int m = degrees == 90 ? 5 : degrees == 180 ? 3 : degrees == 270 ? 6 : 0;
    return orient(ctx, "lumen_rotate", src, dst, m, degrees == 90 || degrees == 270, bad);
}

/* m = round(v), as OpenCV's saturate_cast<int>(double) (ties to even), within +-2^29 so that the
 * generator's sums cannot overflow (a position that far out is outside any image either way). */
static int32_t q_round(double v) {
    return (int32_t)lrint(fmin(fmax(v, -536870912.0), 536870912.0));
}

lumen_status lumen_warp_affine(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                               const double m[6], int flags, lumen_border border,
                               const float value[4]) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *, int32_t, int32_t, bool, bool, uint8_t,
                        uint8_t, uint8_t, uint8_t, buf_t *);
    typedef int (*fn16_t)(const void *, buf_t *, buf_t *, int32_t, int32_t, bool, bool, uint16_t,
                          uint16_t, uint16_t, uint16_t, buf_t *);
    typedef int (*fnf_t)(const void *, buf_t *, buf_t *, int32_t, int32_t, bool, bool, float, float,
                         float, float, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(warp_affine);
    static const fn16_t fns16[] = LUMEN__TABLE(warp_affine_u16);
    static const fnf_t fnsf[] = LUMEN__TABLE(warp_affine_f32);
    LUMEN__START("lumen_warp_affine", ((shape){ANY_CHANNELS, 0, 0, 0, 0, 1, 1}));
    int finite = m != NULL;
    for (int k = 0; finite && k < 6; k++) finite = isfinite(m[k]);
    if (!finite) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "m is NULL or not finite");
    if (flags & ~LUMEN_WARP_INVERSE_MAP) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "flags 0x%x (0 or LUMEN_WARP_INVERSE_MAP taken)", (unsigned)flags);
    }
    if (border != LUMEN_BORDER_CONSTANT && border != LUMEN_BORDER_REPLICATE) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "border %d (LUMEN_BORDER_CONSTANT or REPLICATE taken)", (int)border);
    }
    for (int k = 0; value && k < 4; k++) {
        if (!isfinite(value[k])) {
            return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "value[%d] %g is not finite", k,
                               (double)value[k]);
        }
    }
    /* The inverse (dst -> src), as cv::warpAffine computes it. */
    double i[6];
    memcpy(i, m, sizeof i);
    if (!(flags & LUMEN_WARP_INVERSE_MAP)) {
        double d = m[0] * m[4] - m[1] * m[3];
        if (d == 0.0 || !isfinite(1.0 / d)) {
            return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                               "m is singular (m00 m11 - m01 m10 = %g)", d);
        }
        d = 1.0 / d;
        i[0] = m[4] * d, i[1] = -m[1] * d, i[3] = -m[3] * d, i[4] = m[0] * d;
        i[2] = -i[0] * m[2] - i[1] * m[5];
        i[5] = -i[3] * m[2] - i[4] * m[5];
    }
    /* map(j, 0..3): a(x), b(x) per dst column, A(y), B(y) per dst row (generators/warp_affine.cpp)
     */
    int w = lumen_image_width(dst), h = lumen_image_height(dst), n = w > h ? w : h;
    int32_t *map = malloc((size_t)n * 4 * sizeof *map);
    if (!map) return lumen__fail(&call, LUMEN_ERROR_OUT_OF_MEMORY, "no memory for the map");
    for (int j = 0; j < n; j++) {
        map[j] = j < w ? q_round(i[0] * j * 1024) : 0;
        map[n + j] = j < w ? q_round(i[3] * j * 1024) : 0;
        map[2 * n + j] = j < h ? q_round((i[1] * j + i[2]) * 1024) + 16 : 0;
        map[3 * n + j] = j < h ? q_round((i[4] * j + i[5]) * 1024) + 16 : 0;
    }
    halide_dimension_t md[2] = {{0, n, 1, 0}, {0, 4, n, 0}};
    buf_t mb;
    lumen__buffer_init(&mb, map, 32, 2, md, halide_buffer_flag_host_dirty);
    mb.type.code = halide_type_int;
    args_t a;
    if ((st = prepare(&call, src, dst, 0, 0, &a, &b))) {
        free(map);
        return st;
    }
    int es = elem_size(src), rc = 0, c = lumen_image_channels(src);
    double top = es == 2 ? 65535.0 : 255.0, v[4];
    for (int k = 0; k < 4; k++) {
        double x = value && k < c ? value[k] : 0.0;
        v[k] = es == 4 ? x : saturate(x, top);
    }
    bool rep = border == LUMEN_BORDER_REPLICATE;
    /* 8-bit RGB(A) on the CPU: source pixels packed in 32 bits first (one pass over src), unless
     * dst is much smaller than src (generators/warp_affine.cpp) */
    bool pack = b == LUMEN_BACKEND_CPU && es == 1 && c > 1 && !a.planes &&
                (double)lumen_image_width(src) * lumen_image_height(src) <= 4.0 * w * h;
    for (int k = 0; k < (a.planes ? a.planes : 1) && !rc && !a.st; k++) {
        double p[4]; /* plane k: its channel's value */
        for (int j = 0; j < 4; j++) p[j] = a.planes ? v[k] : v[j];
        if (!(rc = plane_select(&call, &a, k))) {
            if (es == 4)
                rc = fnsf[b](&call, a.src, &mb, w, h, rep, pack, (float)p[0], (float)p[1],
                             (float)p[2], (float)p[3], a.dst);
            else if (es == 2)
                rc = fns16[b](&call, a.src, &mb, w, h, rep, pack, (uint16_t)p[0], (uint16_t)p[1],
                              (uint16_t)p[2], (uint16_t)p[3], a.dst);
            else
                rc = fns[b](&call, a.src, &mb, w, h, rep, pack, (uint8_t)p[0], (uint8_t)p[1],
                            (uint8_t)p[2], (uint8_t)p[3], a.dst);
        }
        plane_done(&call, &a, rc);
    }
    st = release_param(&call, &mb, finish(&call, &a, rc));
    free(map);
    return st;
}

lumen_status lumen_threshold(lumen_context *ctx, lumen_image *src, lumen_image *dst, float thresh,
                             float maxval, lumen_threshold_type type) {
    typedef int (*fn_t)(const void *, buf_t *, int16_t, uint8_t, uint8_t, int32_t, buf_t *);
    typedef int (*fn16_t)(const void *, buf_t *, int32_t, uint16_t, uint16_t, int32_t, buf_t *);
    typedef int (*fnf_t)(const void *, buf_t *, float, float, float, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(threshold);
    static const fn16_t fns16[] = LUMEN__TABLE(threshold_u16);
    static const fnf_t fnsf[] = LUMEN__TABLE(threshold_f32);
    LUMEN__START("lumen_threshold", ((shape){ANY_CHANNELS, 0, 1, 1, 0, 1, 1}));
    if (!isfinite(thresh) || !isfinite(maxval)) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "thresh %g, maxval %g: both must be finite", (double)thresh,
                           (double)maxval);
    }
    if (type < LUMEN_THRESH_BINARY || type > LUMEN_THRESH_TOZERO_INV) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "type %d (LUMEN_THRESH_BINARY .. TOZERO_INV taken)", (int)type);
    }
    LUMEN__PREPARE();
    int es = elem_size(src), rc = 0;
    double top = es == 2 ? 65535.0 : 255.0;
    double t = floor(fmin(fmax((double)thresh, -1.0), top)); /* -1: every v is above */
    double m = fmin(fmax(floor((double)maxval + 0.5), 0.0), top), tv = fmax(t, 0.0);
    if (es == 4) {
        LUMEN__EACH_PLANE(rc, fnsf[b](&call, a.src, thresh, thresh, maxval, (int32_t)type, a.dst))
    } else if (es == 2) {
        LUMEN__EACH_PLANE(
            rc, fns16[b](&call, a.src, (int32_t)t, (uint16_t)tv, (uint16_t)m, (int32_t)type, a.dst))
    } else {
        LUMEN__EACH_PLANE(
            rc, fns[b](&call, a.src, (int16_t)t, (uint8_t)tv, (uint8_t)m, (int32_t)type, a.dst))
    }
    return finish(&call, &a, rc);
}

/* ---- Morphology, median and box filter ------------------------------------------------- */

/* src and dst of a generator taking 2-D rows of elements (channel and x fused: dense in an
 * interleaved image and in a plane; generators/common.h, clamp_flat) and the channel count:
 * rows_of(b, r) describes b so, over its memory; rows_done(r, rc) after the call copies what
 * Halide changed (device memory, flags) back to b. */
typedef struct {
    buf_t buf, *of;
    halide_dimension_t dim[2];
} rows_t;

static buf_t *rows_of(buf_t *b, rows_t *r) {
    int c = b->dim[0].extent;
    r->buf = *b, r->of = b;
    r->dim[0] = (halide_dimension_t){b->dim[1].min * c, b->dim[1].extent * c, 1, 0};
    r->dim[1] = b->dim[2];
    r->buf.dimensions = 2, r->buf.dim = r->dim;
    return &r->buf;
}

static int rows_done(rows_t *r, int rc) {
    r->of->device = r->buf.device, r->of->device_interface = r->buf.device_interface;
    r->of->flags = r->buf.flags;
    return rc;
}

lumen_status lumen_morphology(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                              lumen_morph_op op, int kw, int kh) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, int32_t, int32_t, int32_t, bool, int32_t,
                        buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(morphology), fns16[] = LUMEN__TABLE(morphology_u16),
                      fnsf[] = LUMEN__TABLE(morphology_f32);
    /* the generator's structure, erode_first and combine (generators/morphology.cpp) by op */
    static const int8_t how[7][3] = {{0, 1, 0}, {0, 0, 0}, {1, 1, 0}, {1, 0, 0},
                                     {2, 0, 0}, {1, 1, 1}, {1, 0, 2}};
    int ok = op >= LUMEN_MORPH_ERODE && op <= LUMEN_MORPH_BLACKHAT, steps = ok && how[op][0] == 1;
    int sizes = kw >= 1 && kw <= LUMEN_MORPH_MAX_KERNEL && kh >= 1 && kh <= LUMEN_MORPH_MAX_KERNEL;
    int margin = sizes ? (steps + 1) * ((kw > kh ? kw : kh) / 2) : 0;
    LUMEN__START("lumen_morphology", ((shape){ANY_CHANNELS, 0, 1, 0, margin, 1, 1, 0, 1}));
    if (!ok) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "op %d (LUMEN_MORPH_ERODE .. BLACKHAT taken)", (int)op);
    }
    if (!sizes) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "kernel %dx%d: need 1..%d each", kw,
                           kh, LUMEN_MORPH_MAX_KERNEL);
    }
    LUMEN__PREPARE();
    int es = elem_size(src), rc = 0;
    const fn_t *f = es == 4 ? fnsf : es == 2 ? fns16 : fns;
    rows_t rs, rd;
    LUMEN__EACH_PLANE(
        rc, rows_done(&rd, rows_done(&rs, f[b](&call, rows_of(a.src, &rs), a.src->dim[0].extent, kw,
                                               kh, how[op][0], how[op][1], how[op][2],
                                               rows_of(a.dst, &rd)))));
    return finish(&call, &a, rc);
}

lumen_status lumen_median(lumen_context *ctx, lumen_image *src, lumen_image *dst, int ksize) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(median), fns16[] = LUMEN__TABLE(median_u16),
                      fnsf[] = LUMEN__TABLE(median_f32);
    LUMEN__START("lumen_median", ((shape){ANY_CHANNELS, 0, 1, 0, ksize == 5 ? 2 : 1, 1, 1, 0, 1}));
    if (ksize != 3 && ksize != 5)
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "ksize %d (3 or 5 taken)", ksize);
    LUMEN__PREPARE();
    int es = elem_size(src), rc = 0;
    const fn_t *f = es == 4 ? fnsf : es == 2 ? fns16 : fns;
    rows_t rs, rd;
    LUMEN__EACH_PLANE(
        rc, rows_done(&rd, rows_done(&rs, f[b](&call, rows_of(a.src, &rs), a.src->dim[0].extent,
                                               ksize, rows_of(a.dst, &rd)))));
    return finish(&call, &a, rc);
}

lumen_status lumen_box_filter(lumen_context *ctx, lumen_image *src, lumen_image *dst, int kw,
                              int kh) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, int32_t, int32_t, bool, bool, bool,
                        buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(box_filter), fns16[] = LUMEN__TABLE(box_filter_u16);
    int sizes = kw >= 1 && kw <= LUMEN_BOX_MAX_KERNEL && kh >= 1 && kh <= LUMEN_BOX_MAX_KERNEL;
    int margin = sizes ? (kw > kh ? kw : kh) / 2 : 0;
    LUMEN__START("lumen_box_filter", ((shape){ANY_CHANNELS, 0, 1, 0, margin, 1, 1, 0, 1}));
    if (elem_size(src) == 4) {
        return lumen__fail(&call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                           "src is %s: lumen_box_filter takes 8- and 16-bit formats",
                           lumen_format_name(src->format));
    }
    if (!sizes) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "kernel %dx%d: need 1..%d each", kw,
                           kh, LUMEN_BOX_MAX_KERNEL);
    }
    LUMEN__PREPARE();
    /* generators/box_filter.cpp: on the CPU row sums running along the row past 24 taps
     * (below, kw adds each); 8-bit: rounded by one float multiply for n <= 2048, row sums of
     * kw adds in 16 bits for n <= 257 */
    int rc = 0, n = kw * kh;
    bool slide = kw > 24, fast = n <= 2048, sum16 = !slide && n <= 257;
    const fn_t *f = elem_size(src) == 2 ? fns16 : fns;
    rows_t rs, rd;
    LUMEN__EACH_PLANE(
        rc, rows_done(&rd, rows_done(&rs, f[b](&call, rows_of(a.src, &rs), a.src->dim[0].extent, kw,
                                               kh, slide, fast, sum16, rows_of(a.dst, &rd)))));
    return finish(&call, &a, rc);
}

/* ---- Histograms and tables -------------------------------------------------------------- */

/* After a GPU call, inside the call lock: a parameter buffer's device memory freed, an output's
 * (histogram counts) copied back first. Returns rc, or the first failure's Halide code. */
static int param_done(lumen__call *call, buf_t *b, int rc, int output) {
    if (!b->device) return rc;
    if (!rc && output) rc = halide_copy_to_host(call, b);
    int fr = halide_device_free(call, b);
    return rc ? rc : fr;
}

/* lumen_histogram after its checks (also lumen_equalize_hist's first step). */
static lumen_status histogram_run(lumen__call *call, lumen_image *src, uint32_t *counts) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(histogram);
    lumen_backend b;
    args_t a;
    lumen_status st = prepare(call, src, NULL, 0, 0, &a, &b);
    if (st) return st;
    int c = lumen_image_channels(src), rc = 0;
    for (int k = 0; k < (a.planes ? a.planes : 1) && !rc && !a.st; k++) {
        halide_dimension_t cd[2] = {{0, 256, 1, 0}, {0, a.planes ? 1 : c, 256, 0}};
        buf_t cb;
        lumen__buffer_init(&cb, counts + 256 * k, 32, 2, cd, 0);
        if (!(rc = plane_select(call, &a, k)))
            rc = param_done(call, &cb, fns[b](call, a.src, &cb), 1);
        plane_done(call, &a, rc);
    }
    return finish(call, &a, rc);
}

/* lumen_lut after its checks: table has 256 entries per channel (tc = src's channels) or for all
 * (tc = 1). */
static lumen_status lut_run(lumen__call *call, lumen_image *src, lumen_image *dst,
                            const uint8_t *table, int tc) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(lut);
    uint8_t tab[4 * 256];
    int c = lumen_image_channels(src), rc = 0;
    for (int k = 0; k < c; k++) memcpy(tab + 256 * k, table + (tc == 1 ? 0 : 256 * k), 256);
    lumen_backend b;
    args_t a;
    lumen_status st = prepare(call, src, dst, 0, 0, &a, &b);
    if (st) return st;
    for (int k = 0; k < (a.planes ? a.planes : 1) && !rc && !a.st; k++) {
        halide_dimension_t td[2] = {{0, 256, 1, 0}, {0, a.planes ? 1 : c, 256, 0}};
        buf_t tb;
        lumen__buffer_init(&tb, tab + 256 * k, 8, 2, td, halide_buffer_flag_host_dirty);
        if (!(rc = plane_select(call, &a, k)))
            rc = param_done(call, &tb, fns[b](call, a.src, &tb, a.dst), 0);
        plane_done(call, &a, rc);
    }
    return finish(call, &a, rc);
}

lumen_status lumen_histogram(lumen_context *ctx, lumen_image *src, uint32_t *counts) {
    lumen__call call;
    lumen__begin(&call, "lumen_histogram", ctx);
    lumen_status st = lumen__check_image(&call, src, "src");
    if (st) return st;
    if (!counts) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "counts is NULL");
    if (elem_size(src) != 1) {
        return lumen__fail(&call, LUMEN_ERROR_UNSUPPORTED_FORMAT, "src is %s: 8-bit formats only",
                           lumen_format_name(src->format));
    }
    return histogram_run(&call, src, counts);
}

lumen_status lumen_lut(lumen_context *ctx, lumen_image *src, lumen_image *dst, const uint8_t *table,
                       int table_channels) {
    LUMEN__START("lumen_lut", ((shape){ANY_CHANNELS, 0, 1, 1, 0, 0, 1}));
    int c = lumen_image_channels(src);
    if (!table) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "table is NULL");
    if (table_channels != 1 && table_channels != c) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "table_channels %d: 1 or src's channel count %d", table_channels, c);
    }
    (void)b;
    return lut_run(&call, src, dst, table, table_channels);
}

lumen_status lumen_equalize_hist(lumen_context *ctx, lumen_image *src, lumen_image *dst) {
    LUMEN__START("lumen_equalize_hist", ((shape){1 << 1, 0, 1, 1, 0, 0, 0}));
    uint32_t h[256];
    (void)b;
    if ((st = histogram_run(&call, src, h))) return st;
    /* cv::equalizeHist's table: the cumulative counts after the first value present, scaled */
    uint8_t lut[256];
    int i = 0;
    uint32_t n = (uint32_t)lumen_image_width(src) * (uint32_t)lumen_image_height(src);
    while (!h[i]) i++;
    if (h[i] == n) {
        memset(lut, i, sizeof lut);
    } else {
        float scale = 255.0f / (float)(n - h[i]);
        uint32_t sum = 0;
        memset(lut, 0, sizeof lut);
        for (int v = i + 1; v < 256; v++) {
            sum += h[v];
            float r = nearbyintf((float)sum * scale);
            lut[v] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        }
    }
    return lut_run(&call, src, dst, lut, 1);
}

/* ---- ML preprocessing --------------------------------------------------------------------- */

/* Its color (0 R, 1 G, 2 B, 3 A; gray 0) for each channel of an image. */
static void colors(const lumen_image *img, int out[4]) {
    for (int k = 0; k < 4; k++) out[k] = is_bgr(img) && k < 3 ? 2 - k : k;
}

lumen_status lumen_to_tensor(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                             const float *mean, const float *std) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *, int32_t, int32_t, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(to_tensor);
    lumen__call call;
    lumen__begin(&call, "lumen_to_tensor", ctx);
    lumen_status st = lumen__check_image(&call, src, "src");
    if (!st) st = lumen__check_image(&call, dst, "dst");
    if (st) return st;
    int sc = lumen_image_channels(src), dc = lumen_image_channels(dst);
    if (elem_size(src) != 1 || is_planar(src)) {
        return lumen__fail(&call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                           "src is %s: 8-bit interleaved formats taken",
                           lumen_format_name(src->format));
    }
    if (elem_size(dst) != 4 || !(dc == sc || (dc == 3 && sc == 4))) {
        return lumen__fail(&call, LUMEN_ERROR_SIZE_MISMATCH,
                           "dst is %s: a float format of %d channels%s needed for src %s",
                           lumen_format_name(dst->format), sc, sc == 4 ? " (or 3)" : "",
                           lumen_format_name(src->format));
    }
    if (lumen__overlap(src, dst))
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "src and dst overlap");
    float par[3][4]; /* by dst channel: source channel, scale, offset (the generator's (k, j)) */
    int scol[4], dcol[4];
    colors(src, scol), colors(dst, dcol);
    for (int k = 0; k < 4; k++) {
        double m = mean && k < dc ? mean[k] : 0.0, sd = std && k < dc ? std[k] : 1.0;
        if (k < dc && (!isfinite(m) || !isfinite(sd) || sd == 0.0)) {
            return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                               "mean[%d] %g, std[%d] %g: need finite values, std not 0", k, m, k,
                               sd);
        }
        float scale = (float)(1.0 / (255.0 * sd)), offset = (float)(-m / sd);
        if (k < dc && (!isfinite(scale) || !isfinite(offset))) {
            return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                               "mean[%d] %g, std[%d] %g: 1 / (255 std) or mean / std overflows "
                               "a float",
                               k, m, k, sd);
        }
        int from = 0;
        for (int j = 0; j < sc; j++)
            if (scol[j] == dcol[k < dc ? k : 0]) from = j;
        par[0][k] = (float)from, par[1][k] = (float)(1.0 / (255.0 * sd)),
        par[2][k] = (float)(-m / sd);
    }
    halide_dimension_t pd[2] = {{0, 4, 1, 0}, {0, 3, 4, 0}};
    buf_t pb;
    lumen__buffer_init(&pb, par, 32, 2, pd, halide_buffer_flag_host_dirty);
    pb.type.code = halide_type_float;
    lumen_backend b;
    args_t a;
    if ((st = prepare(&call, src, dst, 0, 0, &a, &b))) return st;
    a.planes = is_planar(dst) ? dc : 0;
    int w = lumen_image_width(dst), h = lumen_image_height(dst), rc = 0;
    for (int k = 0; k < (a.planes ? a.planes : 1) && !rc && !a.st; k++) {
        if (!(rc = plane_select(&call, &a, k))) rc = fns[b](&call, a.src, &pb, k, w, h, a.dst);
        plane_done(&call, &a, rc);
    }
    return release_param(&call, &pb, finish(&call, &a, rc));
}

/* ---- YUV 4:2:0 frames --------------------------------------------------------------------- */

/* One plane (Y, U or V) as a 2-D Halide buffer over the caller's memory: xs = bytes between
 * samples (2 for U and V in NV12 / NV21). */
static void make_plane(temp_t *p, uint8_t *host, int w, int h, int xs, size_t stride, int output) {
    memset(p, 0, sizeof *p);
    p->used = 1;
    p->dim[0] = (halide_dimension_t){0, w, xs, 0};
    p->dim[1] = (halide_dimension_t){0, h, (int32_t)stride, 0};
    lumen__buffer_init(&p->buf, host, 8, 2, p->dim, output ? 0 : halide_buffer_flag_host_dirty);
    p->output = output;
}

/* The frame f (named `name`) checked and described as Y, U, V planes in pl, in the order lumen.h
 * gives; bytes[i]: the memory plane i spans (0 for U and V's second half in NV12 / NV21). */
static lumen_status check_frame(lumen__call *call, const lumen_yuv_frame *f, const char *name,
                                lumen_yuv_space space, temp_t pl[3], size_t bytes[3], int output) {
    if (!f) return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "%s is NULL", name);
    int planar = f->layout == LUMEN_YUV_I420, n = planar ? 3 : 2;
    for (int i = 0; i < n && f->layout >= LUMEN_YUV_NV12 && f->layout <= LUMEN_YUV_I420; i++) {
        if (!f->planes[i])
            return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "%s->planes[%d] is NULL", name,
                               i);
    }
    if (f->layout < LUMEN_YUV_NV12 || f->layout > LUMEN_YUV_I420) {
        return lumen__fail(call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                           "%s->layout %d (LUMEN_YUV_NV12, NV21 or I420 taken)", name,
                           (int)f->layout);
    }
    if (space < LUMEN_YUV_BT601_LIMITED || space > LUMEN_YUV_BT709_FULL) {
        return lumen__fail(call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                           "space %d (LUMEN_YUV_BT601_LIMITED .. BT709_FULL taken)", (int)space);
    }
    int w = f->width, h = f->height;
    if (w < 2 || h < 2 || w > LUMEN_MAX_DIMENSION || h > LUMEN_MAX_DIMENSION || w % 2 || h % 2) {
        return lumen__fail(call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                           "%s is %dx%d: 4:2:0 frames need an even width and height in 2..%d", name,
                           w, h, LUMEN_MAX_DIMENSION);
    }
    static const char *const plane_names[] = {"Y", "UV", "U", "V"};
    for (int i = 0; i < n; i++) {
        size_t row = i == 0 || !planar ? (size_t)w : (size_t)w / 2;
        size_t rows = i == 0 ? (size_t)h : (size_t)h / 2;
        const char *pn = plane_names[i == 0 ? 0 : planar ? i + 1 : 1];
        if (f->strides[i] < row) {
            return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT,
                               "%s->strides[%d] %zu < %zu, the %s plane's row", name, i,
                               f->strides[i], row, pn);
        }
        if (f->strides[i] > (size_t)LUMEN_MAX_BYTES || rows * f->strides[i] > LUMEN_MAX_BYTES) {
            return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT,
                               "%s: the %s plane (%zu rows of %zu bytes) is over 2^31 - 1 bytes",
                               name, pn, rows, f->strides[i]);
        }
        bytes[i] = (rows - 1) * f->strides[i] + row;
    }
    make_plane(&pl[0], f->planes[0], w, h, 1, f->strides[0], output);
    if (planar) {
        make_plane(&pl[1], f->planes[1], w / 2, h / 2, 1, f->strides[1], output);
        make_plane(&pl[2], f->planes[2], w / 2, h / 2, 1, f->strides[2], output);
    } else {
        int v_first = f->layout == LUMEN_YUV_NV21;
        make_plane(&pl[1], f->planes[1] + v_first, w / 2, h / 2, 2, f->strides[1], output);
        make_plane(&pl[2], f->planes[1] + !v_first, w / 2, h / 2, 2, f->strides[1], output);
        bytes[2] = 0;
    }
    return LUMEN_OK;
}

/* The image and the frame's planes: sizes (any_size: any), formats, overlaps (name: the image's
 * argument). */
static lumen_status check_frame_image(lumen__call *call, const lumen_yuv_frame *f,
                                      const lumen_image *img, const char *name, size_t bytes[3],
                                      int any_size) {
    int c = lumen_image_channels(img);
    if ((c != 3 && c != 4) || elem_size(img) != 1 || is_planar(img)) {
        return lumen__fail(call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                           "%s is %s (RGB8, BGR8, RGBA8 or BGRA8 taken)", name,
                           lumen_format_name(img->format));
    }
    if (!any_size && (lumen_image_width(img) != f->width || lumen_image_height(img) != f->height)) {
        return lumen__fail(call, LUMEN_ERROR_SIZE_MISMATCH, "%s is %dx%d but the frame is %dx%d",
                           name, lumen_image_width(img), lumen_image_height(img), f->width,
                           f->height);
    }
    for (int i = 0; i < 3; i++) {
        if (bytes[i] && lumen__overlap_memory(img, f->planes[i], bytes[i]))
            return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT,
                               "%s overlaps the frame's planes[%d]", name, i);
    }
    return LUMEN_OK;
}

/* A lumen_yuv_space's matrix (Kr, Kb, Kg = 1 - Kr - Kb) and range. */
typedef struct {
    double kr, kb, kg;
    int limited;
} yuv_space;

static yuv_space space_of(lumen_yuv_space s) {
    int bt709 = s == LUMEN_YUV_BT709_LIMITED || s == LUMEN_YUV_BT709_FULL;
    yuv_space k = {bt709 ? 0.2126 : 0.299, bt709 ? 0.0722 : 0.114, 0,
                   s == LUMEN_YUV_BT601_LIMITED || s == LUMEN_YUV_BT709_LIMITED};
    k.kg = 1.0 - k.kr - k.kb;
    return k;
}

static int32_t qn(double v, int n) { return (int32_t)floor(v * (1 << n) + 0.5); }
static int32_t q16(double v) { return qn(v, 16); }

/* After the call: the planes' device copies freed (an output's copied back first). */
static lumen_status release_planes(lumen__call *call, temp_t pl[3], lumen_status st) {
    for (int i = 0; i < 3; i++) st = release_temp(call, &pl[i], st);
    return st;
}

/* NV12 / NV21's U and V (pl[1], pl[2]: every other byte of one plane) staged on a GPU backend as
 * dense host planes: Halide copies a buffer whose samples are not adjacent one sample per copy
 * (seconds per 4K frame). An input is split into them before the call, an output merged back
 * after by chroma_done. */
typedef struct {
    uint8_t *mem, *host[2];
    size_t stride;
} chroma_t;

/* Returns 0 or, as a Halide call would, halide_error_code_out_of_memory. */
static int chroma_stage(lumen__call *call, lumen_backend b, temp_t pl[3], chroma_t *c) {
    memset(c, 0, sizeof *c);
    if (b == LUMEN_BACKEND_CPU || pl[1].dim[0].stride != 2) return 0;
    int w = pl[1].dim[0].extent, h = pl[1].dim[1].extent;
    c->stride = (size_t)pl[1].dim[1].stride;
    if (!(c->mem = malloc((size_t)w * h * 2))) {
        snprintf(call->message, sizeof call->message, "no memory to stage U and V");
        return halide_error_code_out_of_memory;
    }
    for (int i = 0; i < 2; i++) {
        uint8_t *dense = c->mem + (size_t)i * w * h;
        c->host[i] = pl[i + 1].buf.host;
        for (int y = 0; !pl[i + 1].output && y < h; y++)
            for (int x = 0; x < w; x++)
                dense[(size_t)y * w + x] = c->host[i][y * c->stride + 2 * x];
        make_plane(&pl[i + 1], dense, w, h, 1, (size_t)w, pl[i + 1].output);
    }
    return 0;
}

static lumen_status chroma_done(const temp_t pl[3], chroma_t *c, lumen_status st) {
    int w = pl[1].dim[0].extent, h = pl[1].dim[1].extent;
    for (int i = 0; c->mem && !st && pl[1].output && i < 2; i++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                c->host[i][y * c->stride + 2 * x] = pl[i + 1].buf.host[(size_t)y * w + x];
    free(c->mem);
    return st;
}

lumen_status lumen_yuv_to_rgb(lumen_context *ctx, const lumen_yuv_frame *src, lumen_image *dst,
                              lumen_yuv_space space) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *, buf_t *, int32_t, int32_t, int32_t, int32_t,
                        int32_t, int32_t, bool, buf_t *);
    typedef int (*fnr_t)(const void *, buf_t *, buf_t *, buf_t *, int32_t, int32_t, int32_t,
                         int32_t, int32_t, int32_t, bool, int32_t, int32_t, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(yuv_to_rgb);
    static const fnr_t fnsr[] = LUMEN__TABLE(yuv_to_rgb_resize);
    lumen__call call;
    lumen__begin(&call, "lumen_yuv_to_rgb", ctx);
    lumen_backend b;
    temp_t pl[3];
    size_t bytes[3] = {0, 0, 0};
    lumen_status st = src ? lumen__check_image(&call, dst, "dst")
                          : lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "src is NULL");
    if (!st) st = check_frame(&call, src, "src", space, pl, bytes, 0);
    if (!st) st = check_frame_image(&call, src, dst, "dst", bytes, 1);
    if (st) return st;
    args_t a;
    chroma_t ch;
    if ((st = prepare(&call, NULL, dst, 0, 0, &a, &b))) return st;
    yuv_space k = space_of(space);
    double kr = k.kr, kb = k.kb, kg = k.kg;
    double sy = k.limited ? 255.0 / 219.0 : 1.0, sc = k.limited ? 255.0 / 224.0 : 1.0;
    int32_t y0 = k.limited ? 16 : 0, cy = qn(sy, 14), crv = qn(2 * sc * (1 - kr), 13);
    int32_t cgu = qn(2 * sc * kb * (1 - kb) / kg, 13), cgv = qn(2 * sc * kr * (1 - kr) / kg, 13);
    int32_t cbu = qn(2 * sc * (1 - kb), 13), w = lumen_image_width(dst),
            h = lumen_image_height(dst);
    int rc = chroma_stage(&call, b, pl, &ch);
    if (!rc && w == src->width && h == src->height)
        rc = fns[b](&call, &pl[0].buf, &pl[1].buf, &pl[2].buf, y0, cy, crv, cgu, cgv, cbu,
                    is_bgr(dst), a.dst);
    else if (!rc) /* another size: converted and resized in one pass */
        rc = fnsr[b](&call, &pl[0].buf, &pl[1].buf, &pl[2].buf, y0, cy, crv, cgu, cgv, cbu,
                     is_bgr(dst), w, h, lumen_image_channels(dst), a.dst);
    return chroma_done(pl, &ch, release_planes(&call, pl, finish(&call, &a, rc)));
}

lumen_status lumen_rgb_to_yuv(lumen_context *ctx, lumen_image *src, const lumen_yuv_frame *dst,
                              lumen_yuv_space space) {
    typedef int (*fn_t)(const void *, buf_t *, bool, int32_t, int32_t, int32_t, int32_t, int32_t,
                        int32_t, int32_t, int32_t, int32_t, int32_t, buf_t *, buf_t *, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(rgb_to_yuv);
    lumen__call call;
    lumen__begin(&call, "lumen_rgb_to_yuv", ctx);
    lumen_backend b;
    temp_t pl[3];
    size_t bytes[3] = {0, 0, 0};
    lumen_status st = lumen__check_image(&call, src, "src");
    if (!st && !dst) st = lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "dst is NULL");
    if (!st) st = check_frame(&call, dst, "dst", space, pl, bytes, 1);
    if (!st) st = check_frame_image(&call, dst, src, "src", bytes, 0);
    for (int i = 0; !st && i < 3; i++) {
        for (int j = 0; !st && j < i; j++) {
            const uint8_t *a = dst->planes[i], *c = dst->planes[j];
            if (bytes[i] && bytes[j] && a < c + bytes[j] && c < a + bytes[i])
                st = lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                                 "dst->planes[%d] and [%d] overlap", j, i);
        }
    }
    if (st) return st;
    args_t a;
    chroma_t ch;
    if ((st = prepare(&call, src, NULL, 0, 0, &a, &b))) return st;
    yuv_space k = space_of(space);
    double kr = k.kr, kb = k.kb, kg = k.kg;
    double sy = k.limited ? 219.0 / 255.0 : 1.0, sc = k.limited ? 224.0 / 255.0 : 1.0;
    int32_t yr = q16(sy * kr), yb = q16(sy * kb), yg = q16(sy) - yr - yb;
    int32_t ur = q16(-sc * kr / (2 * (1 - kb))), ug = q16(-sc * kg / (2 * (1 - kb)));
    int32_t vg = q16(-sc * kg / (2 * (1 - kr))), vb = q16(-sc * kb / (2 * (1 - kr)));
    int rc = chroma_stage(&call, b, pl, &ch);
    if (!rc)
        rc = fns[b](&call, a.src, is_bgr(src), yr, yg, yb, k.limited ? 16 : 0, ur, ug, -ur - ug,
                    -vg - vb, vg, vb, &pl[0].buf, &pl[1].buf, &pl[2].buf);
    return chroma_done(pl, &ch, release_planes(&call, pl, finish(&call, &a, rc)));
}

/* ---- Filters with a caller's kernel ----------------------------------------------------- */

/* lumen_filter2d and lumen_sep_filter after their checks: kx (kw x kh taps; sep: kw) and ky (sep:
 * kh taps; else unused) as Halide buffers. */
static lumen_status filter_run(lumen__call *call, args_t *a, lumen_backend b, const int16_t *kx,
                               int kw, const int16_t *ky, int kh, int shift, int sep) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, buf_t *, buf_t *, int32_t, buf_t *);
    static const fn_t f2[] = LUMEN__TABLE(filter2d), f2w[] = LUMEN__TABLE(filter2d_u16),
                      fs[] = LUMEN__TABLE(sep_filter), fsw[] = LUMEN__TABLE(sep_filter_u16);
    int wide = a->src->type.bits == 16;
    const fn_t *f = sep ? (wide ? fsw : fs) : (wide ? f2w : f2);
    halide_dimension_t xd[2] = {{0, kw, 1, 0}, {0, kh, kw, 0}}, yd = {0, sep ? kh : 1, 1, 0};
    int rc = 0;
    for (int k = 0; k < (a->planes ? a->planes : 1) && !rc && !a->st; k++) {
        buf_t xb, yb;
        rows_t rs, rd;
        lumen__buffer_init(&xb, (void *)kx, 16, sep ? 1 : 2, xd, halide_buffer_flag_host_dirty);
        lumen__buffer_init(&yb, (void *)(sep ? ky : kx), 16, 1, &yd, halide_buffer_flag_host_dirty);
        xb.type.code = yb.type.code = halide_type_int;
        if (!(rc = plane_select(call, a, k))) {
            rc = f[b](call, rows_of(a->src, &rs), a->src->dim[0].extent, &xb, &yb, shift,
                      rows_of(a->dst, &rd));
            rc = rows_done(&rd, rows_done(&rs, rc));
            rc = param_done(call, &yb, param_done(call, &xb, rc, 0), 0);
        }
        plane_done(call, a, rc);
    }
    return finish(call, a, rc);
}

/* The sum of |taps| of n taps. */
static double abs_sum(const int16_t *t, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) s += t[k] < 0 ? -(double)t[k] : t[k];
    return s;
}

/* The checks lumen_filter2d and lumen_sep_filter share after the images': sizes, shift, format,
 * and that sum_abs (of the whole kernel's |taps|) times the maximum element fits the sums. */
static lumen_status filter_check(lumen__call *call, const lumen_image *src, int kw, int kh,
                                 int shift, double sum_abs) {
    if (elem_size(src) == 4) {
        return lumen__fail(call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                           "src is %s: 8- and 16-bit formats taken",
                           lumen_format_name(src->format));
    }
    if (kw < 1 || kw > LUMEN_FILTER_MAX_KERNEL || kh < 1 || kh > LUMEN_FILTER_MAX_KERNEL) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "kernel %dx%d: need 1..%d each", kw,
                           kh, LUMEN_FILTER_MAX_KERNEL);
    }
    if (shift < 0 || shift > LUMEN_FILTER_MAX_SHIFT) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "shift %d outside 0..%d", shift,
                           LUMEN_FILTER_MAX_SHIFT);
    }
    double top = elem_size(src) == 2 ? 65535.0 : 255.0, half = shift ? ldexp(1.0, shift - 1) : 0;
    if (sum_abs * top + half >= 2147483648.0) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "the kernel's sums could overflow: sum of |taps| %.0f times %.0f plus "
                           "2^shift / 2 reaches 2^31",
                           sum_abs, top);
    }
    return LUMEN_OK;
}

lumen_status lumen_filter2d(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                            const int16_t *kernel, int kw, int kh, int shift) {
    int sizes =
        kw >= 1 && kw <= LUMEN_FILTER_MAX_KERNEL && kh >= 1 && kh <= LUMEN_FILTER_MAX_KERNEL;
    LUMEN__START("lumen_filter2d",
                 ((shape){ANY_CHANNELS, 0, 1, 0, sizes ? (kw > kh ? kw : kh) / 2 : 0, 1, 1, 0, 1}));
    if (!kernel) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "kernel is NULL");
    if ((st = filter_check(&call, src, kw, kh, shift, sizes ? abs_sum(kernel, kw * kh) : 0)))
        return st;
    LUMEN__PREPARE();
    return filter_run(&call, &a, b, kernel, kw, NULL, kh, shift, 0);
}

lumen_status lumen_sep_filter(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                              const int16_t *kx, int kw, const int16_t *ky, int kh, int shift) {
    int sizes =
        kw >= 1 && kw <= LUMEN_FILTER_MAX_KERNEL && kh >= 1 && kh <= LUMEN_FILTER_MAX_KERNEL;
    LUMEN__START("lumen_sep_filter",
                 ((shape){ANY_CHANNELS, 0, 1, 0, sizes ? (kw > kh ? kw : kh) / 2 : 0, 1, 1, 0, 1}));
    if (!kx || !ky) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "%s is NULL", kx ? "ky" : "kx");
    }
    if ((st = filter_check(&call, src, kw, kh, shift,
                           sizes ? abs_sum(kx, kw) * abs_sum(ky, kh) : 0)))
        return st;
    LUMEN__PREPARE();
    return filter_run(&call, &a, b, kx, kw, ky, kh, shift, 1);
}

/* ---- Bilateral grid --------------------------------------------------------------------- */

lumen_status lumen_bilateral(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                             float sigma_space, float sigma_color) {
    typedef int (*fn_t)(const void *, buf_t *, float, int32_t, float, float, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(bilateral), fns16[] = LUMEN__TABLE(bilateral_u16),
                      fnsf[] = LUMEN__TABLE(bilateral_f32);
    const float s = sigma_space, sc = sigma_color;
    int ok = s >= LUMEN_BILATERAL_SPACE_MIN && s <= LUMEN_BILATERAL_SPACE_MAX;
    /* the grid's cells reach 3.5 cells around a pixel (generators/bilateral.cpp) */
    LUMEN__START("lumen_bilateral",
                 ((shape){ANY_CHANNELS, 0, 1, 0, ok ? (int)ceil(3.5 * s) + 2 : 0, 1, 1, 0, 1}));
    if (!ok || !(sc >= LUMEN_BILATERAL_COLOR_MIN && sc <= LUMEN_BILATERAL_COLOR_MAX)) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "sigma_space %g, sigma_color %g: need %g..%g and %g..%g", (double)s,
                           (double)sc, (double)LUMEN_BILATERAL_SPACE_MIN,
                           (double)LUMEN_BILATERAL_SPACE_MAX, (double)LUMEN_BILATERAL_COLOR_MIN,
                           (double)LUMEN_BILATERAL_COLOR_MAX);
    }
    LUMEN__PREPARE();
    int c = lumen_image_channels(src), es = elem_size(src), rc = 0;
    /* keys in units of sigma_color (8-bit units): element * kscale, clamped to 0..kmax */
    float kmax = (float)(255.0 / sc);
    float kscale = es == 4 ? kmax : (float)(1.0 / ((es == 2 ? 257.0 : 1.0) * sc));
    /* CPU strips: about 8 MiB of blurred grid rows each, 4..64 cell rows, and no more than an
     * eighth of the image's cell rows unless that is under 4 (so tall images split 8 ways) */
    int h = lumen_image_height(dst), cp = a.planes ? 1 : c;
    double row = (lumen_image_width(dst) / s + 8) * (kmax + 6) * 2 * cp * 4;
    double cells = fmin(fmax(floor((8 << 20) / row), 4), 64);
    cells = fmin(cells, fmax(4, ceil(h / s / 8)));
    int32_t span = (int32_t)ceil(s) + 1, strip = (int32_t)ceil(cells * s);
    const fn_t *f = es == 4 ? fnsf : es == 2 ? fns16 : fns;
    LUMEN__EACH_PLANE(rc, f[b](&call, a.src, s, span, kscale, kmax, strip, a.dst));
    return finish(&call, &a, rc);
}
