/* Raw 4:2:0 frames for the CLI (see raw_yuv.h). */
#include "raw_yuv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const layout_names[] = {"", "nv12", "nv21", "i420"};
static const char *const space_names[] = {"", "bt601", "bt601-full", "bt709", "bt709-full"};

int raw_yuv_layout(const char *name) {
    for (int l = LUMEN_YUV_NV12; l <= LUMEN_YUV_I420; l++)
        if (strcasecmp(name, layout_names[l]) == 0) return l;
    return 0;
}

int raw_yuv_layout_of_path(const char *path) {
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? raw_yuv_layout(dot + 1) : 0;
}

const char *raw_yuv_name(int layout) {
    return layout >= LUMEN_YUV_NV12 && layout <= LUMEN_YUV_I420 ? layout_names[layout] : "?";
}

int raw_yuv_space(const char *name) {
    for (int s = LUMEN_YUV_BT601_LIMITED; s <= LUMEN_YUV_BT709_FULL; s++)
        if (strcmp(name, space_names[s]) == 0) return s;
    return 0;
}

size_t raw_yuv_size(int w, int h) { return (size_t)w * (size_t)h / 2 * 3; }

/* The frame over mem (packed planes). */
static lumen_yuv_frame frame_over(uint8_t *mem, int w, int h, int layout) {
    size_t y = (size_t)w * (size_t)h, c = y / 4;
    int i420 = layout == LUMEN_YUV_I420;
    lumen_yuv_frame f = {(lumen_yuv_layout)layout,
                         w,
                         h,
                         {mem, mem + y, i420 ? mem + y + c : NULL},
                         {(size_t)w, (size_t)(i420 ? w / 2 : w), (size_t)w / 2}};
    return f;
}

int raw_yuv_decode(const void *data, size_t n, int w, int h, int layout, int space,
                   lumen_image **out, char *err, size_t err_size) {
    *out = NULL;
    if (n != raw_yuv_size(w, h)) {
        snprintf(err, err_size, "%zu bytes, but a %dx%d %s frame is %zu", n, w, h,
                 raw_yuv_name(layout), raw_yuv_size(w, h));
        return -1;
    }
    lumen_yuv_frame f = frame_over((uint8_t *)data, w, h, layout);
    lumen_image *img = NULL;
    if (lumen_image_create(w, h, 3, &img) ||
        lumen_yuv_to_rgb(NULL, &f, img, (lumen_yuv_space)space)) {
        snprintf(err, err_size, "%s", lumen_last_error());
        lumen_image_destroy(img);
        return -1;
    }
    *out = img;
    return 0;
}

int raw_yuv_encode(lumen_image *img, int layout, int space, void **data, size_t *size, char *err,
                   size_t err_size) {
    int w = lumen_image_width(img), h = lumen_image_height(img);
    uint8_t *mem = malloc(raw_yuv_size(w, h) ? raw_yuv_size(w, h) : 1);
    if (!mem) {
        snprintf(err, err_size, "out of memory for a %dx%d frame", w, h);
        return -1;
    }
    lumen_yuv_frame f = frame_over(mem, w, h, layout);
    if (lumen_rgb_to_yuv(NULL, img, &f, (lumen_yuv_space)space)) {
        snprintf(err, err_size, "%s", lumen_last_error());
        free(mem);
        return -1;
    }
    *data = mem;
    *size = raw_yuv_size(w, h);
    return 0;
}
