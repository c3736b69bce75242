#include "stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    LEVELS,
    GRAYSCALE,
    BLUR,
    RESIZE,
    SOBEL,
    UNSHARP,
    FLIP,
    ROTATE,
    THRESHOLD,
    MORPH,
    MEDIAN,
    WARP,
    EQUALIZE,
    BOX,
    BILATERAL
} kind;

/* Each parameter: key, default, valid range (min..max; integer-valued if whole), as in lumen.h. */
typedef struct {
    const char *key;
    double def, min, max;
    int whole;
    const char *range;
} param;

#define INTERPS "0 (nearest), 1 (linear), 2 (cubic), 3 (area) or 64 (lanczos3)"
#define SIGMA \
  { "sigma", 2.0, LUMEN_SIGMA_MIN, LUMEN_SIGMA_MAX, 0, "a number in 0.5..16" }
#define BORDER                                                            \
  {                                                                       \
    "border", 1, 0, 4, 1,                                                 \
        "0 (constant: black), 1 (replicate), 2 (reflect), 3 (wrap) or 4 " \
        "(reflect-101)"                                                   \
  }
#define BORDER_HELP " border=1 (0 constant black, 1 replicate, 2 reflect, 3 wrap, 4 reflect-101)"
#define SIZE(k) \
  { k, 0, 1, LUMEN_MAX_DIMENSION, 1, "an integer in 1..65535" }
static const struct {
    const char *name;
    param params[STAGE_MAX_PARAMS];
    const char *help;
} table[] = {
    {"levels",
     {{"gain", 1.0, -LUMEN_GAIN_MAX, LUMEN_GAIN_MAX, 0, "a number in -256..256"},
      {"bias", 0.0, -LUMEN_BIAS_MAX, LUMEN_BIAS_MAX, 0, "a number in -1024..1024"}},
     "gain=1 (-256..256) bias=0 (-1024..1024): gain*v + bias"},
    {"grayscale", {{NULL}}, "(no parameters; RGB or RGBA in, gray out)"},
    {"gaussian_blur", {SIGMA, BORDER}, "sigma=2 (0.5..16)" BORDER_HELP},
    {"resize",
     {SIZE("w"),
      SIZE("h"),
      {"scale", 0, 1e-6, 1e4, 0, "a number > 0 (up to 10000)"},
      {"interp", 1, 0, 64, 1, INTERPS}},
     "w=W h=H (1..65535) or scale=S (> 0); one of w, h keeps the aspect; interp=1: 0 nearest, "
     "1 linear, 2 cubic, 3 area (OpenCV's numbers), 64 Lanczos-3"},
    {"sobel", {BORDER}, "gray in (put grayscale before it);" BORDER_HELP},
    {"unsharp_mask",
     {SIGMA, {"amount", 1.5, 0, LUMEN_AMOUNT_MAX, 0, "a number in 0..16"}, BORDER},
     "sigma=2 (0.5..16) amount=1.5 (0..16)" BORDER_HELP},
    {"flip",
     {{"code", 1, -1, 1, 1, "1 (left-right), 0 (top-bottom) or -1 (both)"}},
     "code=1: 1 left-right, 0 top-bottom, -1 both (OpenCV's flipCode)"},
    {"rotate",
     {{"degrees", 90, 90, 270, 1, "90, 180 or 270"}},
     "degrees=90 (90, 180 or 270, clockwise)"},
    {"threshold",
     {{"t", 127, -1e9, 1e9, 0, "a number"},
      {"max", 255, -1e9, 1e9, 0, "a number"},
      {"type", 0, 0, 4, 1, "0 binary, 1 binary_inv, 2 trunc, 3 to_zero or 4 to_zero_inv"}},
     "t=127 max=255 type=0 (0 binary, 1 binary_inv, 2 trunc, 3 to_zero, 4 to_zero_inv): v > t ?"},
    {"morphology",
     {{"op", 0, 0, 6, 1, "0 erode, 1 dilate, 2 open, 3 close, 4 gradient, 5 tophat or 6 blackhat"},
      {"w", 3, 1, LUMEN_MORPH_MAX_KERNEL, 1, "an integer in 1..255"},
      {"h", 3, 1, LUMEN_MORPH_MAX_KERNEL, 1, "an integer in 1..255"},
      BORDER},
     "op=0 w=3 h=3 (1..255): 0 erode, 1 dilate, 2 open, 3 close, 4 gradient, 5 tophat, "
     "6 blackhat;" BORDER_HELP},
    {"median",
     {{"k", 3, 3, 5, 1, "3 or 5"}, BORDER},
     "k=3 (3 or 5): the median of each k x k window;" BORDER_HELP},
    {"warp_affine",
     {{"angle", 30, -360, 360, 0, "a number in -360..360 (degrees)"},
      {"scale", 1, 0.01, 100, 0, "a number in 0.01..100"},
      {"border", 0, 0, 1, 1, "0 (constant: black) or 1 (replicate)"}},
     "angle=30 scale=1 border=0: rotate (counter-clockwise) and scale about the centre, bilinear; "
     "border 0 black, 1 replicate"},
    {"equalize_hist", {{NULL}}, "(no parameters; gray in: put grayscale before it)"},
    {"box_filter",
     {{"w", 5, 1, LUMEN_BOX_MAX_KERNEL, 1, "an integer in 1..255"},
      {"h", 5, 1, LUMEN_BOX_MAX_KERNEL, 1, "an integer in 1..255"},
      BORDER},
     "w=5 h=5 (1..255): the mean of each w x h window;" BORDER_HELP},
    {"bilateral",
     {{"space", 8, LUMEN_BILATERAL_SPACE_MIN, LUMEN_BILATERAL_SPACE_MAX, 0, "a number in 1..64"},
      {"color", 25, LUMEN_BILATERAL_COLOR_MIN, LUMEN_BILATERAL_COLOR_MAX, 0, "a number in 4..4096"},
      BORDER},
     "space=8 (1..64, pixels) color=25 (4..4096, 8-bit units): edge-preserving smoothing (the "
     "bilateral grid);" BORDER_HELP},
};

const char *const stage_pipeline_names[] = {
    "levels",        "grayscale",  "gaussian_blur", "resize",     "sobel",  "unsharp_mask",
    "flip",          "rotate",     "threshold",     "morphology", "median", "warp_affine",
    "equalize_hist", "box_filter", "bilateral",     NULL};

const char *stage_params_help(int pipeline) { return table[pipeline].help; }
const char *stage_name(const stage *s) { return table[s->pipeline].name; }

int stage_init(stage *s, const char *name, char *err, size_t err_size) {
    memset(s, 0, sizeof *s);
    for (int p = 0; stage_pipeline_names[p]; p++) {
        if (strcmp(name, table[p].name) == 0) {
            s->pipeline = p;
            for (int i = 0; i < STAGE_MAX_PARAMS; i++) s->values[i] = table[p].params[i].def;
            return 0;
        }
    }
    snprintf(err, err_size, "unknown pipeline '%s' (see 'lumen help')", name);
    return -1;
}

int stage_param(stage *s, const char *kv, char *err, size_t err_size) {
    const char *eq = strchr(kv, '=');
    size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
    for (int i = 0; i < STAGE_MAX_PARAMS && table[s->pipeline].params[i].key; i++) {
        const param *p = &table[s->pipeline].params[i];
        if (strlen(p->key) != klen || strncmp(kv, p->key, klen) != 0) continue;
        char *end = NULL;
        double v = eq ? strtod(eq + 1, &end) : 0.0;
        if (s->given[i]) {
            snprintf(err, err_size, "%s: parameter %s given twice", stage_name(s), p->key);
        } else if (!eq || end == eq + 1 || *end || !isfinite(v) || v < p->min || v > p->max ||
                   (p->whole && v != floor(v))) {
            snprintf(err, err_size, "%s: %s=%s: must be %s", stage_name(s), p->key,
                     eq ? eq + 1 : "", p->range);
        } else {
            s->values[i] = v;
            s->given[i] = 1;
            return 0;
        }
        return -1;
    }
    snprintf(err, err_size, "%s has no parameter '%.*s' (parameters: %s)", stage_name(s), (int)klen,
             kv, table[s->pipeline].help);
    return -1;
}

int stage_check(const stage *s, char *err, size_t err_size) {
    if (s->pipeline == MEDIAN && s->values[0] == 4) {
        snprintf(err, err_size, "median: k=4: must be 3 or 5");
        return -1;
    }
    if (s->pipeline == ROTATE && s->values[0] != 90 && s->values[0] != 180 && s->values[0] != 270) {
        snprintf(err, err_size, "rotate: degrees=%g: must be 90, 180 or 270", s->values[0]);
        return -1;
    }
    if (s->pipeline != RESIZE) return 0;
    double m = s->values[3];
    if (m != 0 && m != 1 && m != 2 && m != 3 && m != 64)
        snprintf(err, err_size, "resize: interp=%g: must be %s", m, INTERPS);
    else if (s->given[2] && (s->given[0] || s->given[1]))
        snprintf(err, err_size, "resize: scale= conflicts with w=/h=: give scale, or w and/or h");
    else if (!s->given[0] && !s->given[1] && !s->given[2])
        snprintf(err, err_size, "resize needs w=W and/or h=H (1..65535), or scale=S (> 0)");
    else
        return 0;
    return -1;
}

int stage_parse(stage *s, const char *text, char *err, size_t err_size) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL, *tok = strtok_r(buf, ":", &save);
    if (!tok) {
        snprintf(err, err_size, "empty stage in the chain");
        return -1;
    }
    if (stage_init(s, tok, err, err_size)) return -1;
    while ((tok = strtok_r(NULL, ":", &save)))
        if (stage_param(s, tok, err, err_size)) return -1;
    return stage_check(s, err, err_size);
}

int stage_channels(const stage *s, int channels, char *err, size_t err_size) {
    if ((s->pipeline == SOBEL || s->pipeline == EQUALIZE) && channels != 1) {
        snprintf(err, err_size,
                 "%s needs a gray image (1 channel), not %d channels: put grayscale before it, "
                 "as in: lumen chain grayscale,%s IN OUT",
                 stage_name(s), channels, stage_name(s));
        return -1;
    }
    if (s->pipeline == GRAYSCALE && channels != 3 && channels != 4) {
        snprintf(err, err_size,
                 "grayscale needs an RGB or RGBA image, not %d channel%s: the image is gray "
                 "already, leave grayscale out",
                 channels, channels == 1 ? "" : "s");
        return -1;
    }
    return s->pipeline == GRAYSCALE || s->pipeline == SOBEL ? 1 : channels;
}

int stage_takes_16bit(const stage *s) {
    return s->pipeline != GRAYSCALE && s->pipeline != SOBEL && s->pipeline != EQUALIZE;
}

lumen_status stage_run(const stage *s, lumen_context *ctx, lumen_image *src, lumen_image **out,
                       char *err, size_t err_size) {
    int w = lumen_image_width(src), h = lumen_image_height(src), c = lumen_image_channels(src);
    const double *v = s->values;
    lumen_status st = LUMEN_OK;
    *out = NULL;
    if ((c = stage_channels(s, c, err, err_size)) < 0) return LUMEN_ERROR_UNSUPPORTED_FORMAT;
    if (stage_check(s, err, err_size)) return LUMEN_ERROR_INVALID_ARGUMENT;
    if (s->pipeline == RESIZE) {
        int have_w = s->given[0], have_h = s->given[1];
        double sw = s->given[2] ? v[2] : have_w ? v[0] / w : v[1] / h;
        double sh = s->given[2] ? v[2] : have_h ? v[1] / h : sw;
        w = (int)fmax(1.0, fmin(1e6, round(w * sw)));
        h = (int)fmax(1.0, fmin(1e6, round(h * sh)));
    }
    if (s->pipeline == ROTATE && v[0] != 180) w = h, h = lumen_image_width(src);
    lumen_image *dst = NULL; /* in src's format (16-bit stays 16-bit), or gray */
    lumen_format f = c == lumen_image_channels(src) ? lumen_image_format(src) : (lumen_format)c;
    st = lumen_image_create_format(w, h, f, &dst);
    int border = -1; /* a neighbourhood stage's border, for this call */
    for (int i = 0; i < STAGE_MAX_PARAMS && table[s->pipeline].params[i].key; i++)
        if (!strcmp(table[s->pipeline].params[i].key, "border") && s->pipeline != WARP)
            border = (int)v[i];
    if (!st && border >= 0) st = lumen_context_set_border(ctx, (lumen_border)border, NULL);
    if (!st) switch ((kind)s->pipeline) {
            case LEVELS:
                st = lumen_levels(ctx, src, dst, (float)v[0], (float)v[1]);
                break;
            case GRAYSCALE:
                st = lumen_grayscale(ctx, src, dst);
                break;
            case BLUR:
                st = lumen_gaussian_blur(ctx, src, dst, (float)v[0]);
                break;
            case RESIZE:
                st = lumen_resize_interp(ctx, src, dst, (lumen_interp)(int)v[3]);
                break;
            case SOBEL:
                st = lumen_sobel(ctx, src, dst);
                break;
            case UNSHARP:
                st = lumen_unsharp_mask(ctx, src, dst, (float)v[0], (float)v[1]);
                break;
            case FLIP: /* OpenCV's flipCode to lumen_flip_mode */
                st = lumen_flip(ctx, src, dst,
                                v[0] > 0   ? LUMEN_FLIP_HORIZONTAL
                                : v[0] < 0 ? LUMEN_FLIP_BOTH
                                           : LUMEN_FLIP_VERTICAL);
                break;
            case ROTATE:
                st = lumen_rotate(ctx, src, dst, (int)v[0]);
                break;
            case THRESHOLD:
                st = lumen_threshold(ctx, src, dst, (float)v[0], (float)v[1],
                                     (lumen_threshold_type)(int)v[2]);
                break;
            case MEDIAN:
                st = lumen_median(ctx, src, dst, (int)v[0]);
                break;
            case BOX:
                st = lumen_box_filter(ctx, src, dst, (int)v[0], (int)v[1]);
                break;
            case BILATERAL:
                st = lumen_bilateral(ctx, src, dst, (float)v[0], (float)v[1]);
                break;
            case MORPH:
                st = lumen_morphology(ctx, src, dst, (lumen_morph_op)(int)v[0], (int)v[1],
                                      (int)v[2]);
                break;
            case WARP: { /* cv::getRotationMatrix2D about the centre ((w - 1) / 2, (h - 1) / 2) */
                double a = v[0] * 3.14159265358979323846 / 180, al = v[1] * cos(a),
                       be = v[1] * sin(a), cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
                double m[6] = {al, be, (1 - al) * cx - be * cy, -be, al, be * cx + (1 - al) * cy};
                st = lumen_warp_affine(ctx, src, dst, m, 0, (lumen_border)(int)v[2], NULL);
                break;
            }
            case EQUALIZE:
                st = lumen_equalize_hist(ctx, src, dst);
                break;
        }
    if (st) snprintf(err, err_size, "%s", lumen_last_error());
    if (border >= 0) lumen_context_set_border(ctx, LUMEN_BORDER_REPLICATE, NULL);
    if (st) {
        lumen_image_destroy(dst);
        return st;
    }
    *out = dst;
    return LUMEN_OK;
}
