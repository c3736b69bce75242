/* Raw 4:2:0 frames for the CLI: NV12, NV21 or I420, planes back to back with packed rows (Y
 * width x height, then NV12 / NV21's interleaved UV, width x height / 2, or I420's U and V, each
 * width / 2 x height / 2), as ffmpeg's rawvideo writes them. */
#ifndef LUMEN_CLI_RAW_YUV_H
#define LUMEN_CLI_RAW_YUV_H

#include <lumen/lumen.h>

/* "nv12", "nv21", "i420" (any case) -> the layout; 0 for anything else. */
int raw_yuv_layout(const char *name);
/* The layout named by path's extension (.nv12, .nv21, .i420); 0 if none. */
int raw_yuv_layout_of_path(const char *path);
const char *raw_yuv_name(int layout); /* "nv12", "nv21", "i420" */
/* "bt601", "bt601-full", "bt709", "bt709-full" -> the space; 0 for anything else. */
int raw_yuv_space(const char *name);
/* Bytes of a w x h frame (w, h even). */
size_t raw_yuv_size(int w, int h);

/* The frame in data (n bytes, w x h) as a new RGB image (*out); 0, or -1 with a message in err. */
int raw_yuv_decode(const void *data, size_t n, int w, int h, int layout, int space,
                   lumen_image **out, char *err, size_t err_size);
/* img (RGB or RGBA, even size) as a frame in a new malloc'ed buffer (*data, *size); 0, or -1
 * with a message in err. */
int raw_yuv_encode(lumen_image *img, int layout, int space, void **data, size_t *size, char *err,
                   size_t err_size);

#endif
