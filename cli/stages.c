#include "stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { LEVELS, GRAYSCALE, BLUR, RESIZE, SOBEL, UNSHARP } kind;

static const struct {
    const char *name;
    const char *keys[STAGE_MAX_PARAMS];
    double defaults[STAGE_MAX_PARAMS];
    const char *help;
} table[] = {
    {"levels", {"gain", "bias"}, {1.0, 0.0}, "gain=1 bias=0"},
    {"grayscale", {NULL}, {0}, "(no parameters; RGB/RGBA in)"},
    {"gaussian_blur", {"sigma"}, {2.0}, "sigma=2 (0.5..16)"},
    {"resize", {"w", "h", "scale"}, {0, 0, 0}, "w=W h=H | scale=S (aspect kept if one is given)"},
    {"sobel", {NULL}, {0}, "(no parameters; gray in)"},
    {"unsharp_mask", {"sigma", "amount"}, {2.0, 1.5}, "sigma=2 amount=1.5 (0..16)"},
};

const char *const stage_pipeline_names[] = {"levels", "grayscale", "gaussian_blur", "resize",
                                            "sobel", "unsharp_mask", NULL};

const char *stage_params_help(int pipeline) { return table[pipeline].help; }
const char *stage_name(const stage *s) { return table[s->pipeline].name; }

int stage_init(stage *s, const char *name, char *err, size_t err_size) {
    memset(s, 0, sizeof *s);
    for (int p = 0; stage_pipeline_names[p]; p++) {
        if (strcmp(name, table[p].name) == 0) {
            s->pipeline = p;
            memcpy(s->values, table[p].defaults, sizeof s->values);
            return 0;
        }
    }
    snprintf(err, err_size, "unknown pipeline '%s' (see 'lumen help')", name);
    return -1;
}

int stage_param(stage *s, const char *kv, char *err, size_t err_size) {
    const char *eq = strchr(kv, '=');
    size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
    for (int i = 0; i < STAGE_MAX_PARAMS && table[s->pipeline].keys[i]; i++) {
        const char *key = table[s->pipeline].keys[i];
        if (strlen(key) != klen || strncmp(kv, key, klen) != 0) continue;
        char *end = NULL;
        double v = eq ? strtod(eq + 1, &end) : 0.0;
        if (!eq || end == eq + 1 || *end || !isfinite(v)) {
            snprintf(err, err_size, "%s: '%s' needs a number, as in %s=2", stage_name(s), kv, key);
            return -1;
        }
        s->values[i] = v;
        s->given[i] = 1;
        return 0;
    }
    snprintf(err, err_size, "%s has no parameter '%.*s' (parameters: %s)", stage_name(s),
             (int)klen, kv, table[s->pipeline].help);
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
    return 0;
}

lumen_status stage_run(const stage *s, lumen_context *ctx, lumen_image *src, lumen_image **out,
                       char *err, size_t err_size) {
    int w = lumen_image_width(src), h = lumen_image_height(src), c = lumen_image_channels(src);
    const double *v = s->values;
    lumen_status st = LUMEN_OK;
    *out = NULL;
    if (s->pipeline == GRAYSCALE || s->pipeline == SOBEL) c = 1;
    if (s->pipeline == SOBEL && lumen_image_channels(src) != 1) {
        snprintf(err, err_size, "sobel needs a gray image: put grayscale before it");
        return LUMEN_ERROR_UNSUPPORTED_FORMAT;
    }
    if (s->pipeline == RESIZE) {
        int have_w = s->given[0], have_h = s->given[1];
        if (s->given[2] ? !(v[2] > 0) : (!have_w && !have_h) || (have_w && v[0] < 1) ||
                                             (have_h && v[1] < 1)) {
            snprintf(err, err_size, "resize needs w=W and/or h=H (>= 1), or scale=S (> 0)");
            return LUMEN_ERROR_INVALID_ARGUMENT;
        }
        double sw = s->given[2] ? v[2] : have_w ? v[0] / w : v[1] / h;
        double sh = s->given[2] ? v[2] : have_h ? v[1] / h : sw;
        w = (int)fmax(1.0, fmin(1e6, round(w * sw)));
        h = (int)fmax(1.0, fmin(1e6, round(h * sh)));
    }
    lumen_image *dst = NULL;
    st = lumen_image_create(w, h, c, &dst);
    if (!st) switch ((kind)s->pipeline) {
        case LEVELS: st = lumen_levels(ctx, src, dst, (float)v[0], (float)v[1]); break;
        case GRAYSCALE: st = lumen_grayscale(ctx, src, dst); break;
        case BLUR: st = lumen_gaussian_blur(ctx, src, dst, (float)v[0]); break;
        case RESIZE: st = lumen_resize(ctx, src, dst); break;
        case SOBEL: st = lumen_sobel(ctx, src, dst); break;
        case UNSHARP: st = lumen_unsharp_mask(ctx, src, dst, (float)v[0], (float)v[1]); break;
        }
    if (st) {
        snprintf(err, err_size, "%s", lumen_last_error());
        lumen_image_destroy(dst);
        return st;
    }
    *out = dst;
    return LUMEN_OK;
}
