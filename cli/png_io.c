#include "png_io.h"

#include <png.h>
#include <stdio.h>
#include <string.h>

lumen_image *png_read(const char *path, char *err, size_t err_size) {
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, path)) {
        snprintf(err, err_size, "%s: %s", path, png.message);
        return NULL;
    }
    int channels = 1;
    if (png.format & PNG_FORMAT_FLAG_ALPHA) {
        png.format = PNG_FORMAT_RGBA, channels = 4;
    } else if (png.format & PNG_FORMAT_FLAG_COLOR) {
        png.format = PNG_FORMAT_RGB, channels = 3;
    } else {
        png.format = PNG_FORMAT_GRAY;
    }
    lumen_image *img = NULL;
    uint8_t *px = NULL;
    if (lumen_image_create((int)png.width, (int)png.height, channels, &img) ||
        lumen_image_map(img, LUMEN_ACCESS_WRITE, &px)) {
        snprintf(err, err_size, "%s: %s", path, lumen_last_error());
        png_image_free(&png);
        lumen_image_destroy(img);
        return NULL;
    }
    if (!png_image_finish_read(&png, NULL, px, (png_int_32)lumen_image_stride(img), NULL)) {
        snprintf(err, err_size, "%s: %s", path, png.message);
        lumen_image_destroy(img);
        return NULL;
    }
    return img;
}

int png_write(const char *path, lumen_image *img, char *err, size_t err_size) {
    static const png_uint_32 formats[] = {0, PNG_FORMAT_GRAY, 0, PNG_FORMAT_RGB, PNG_FORMAT_RGBA};
    uint8_t *px = NULL;
    if (lumen_image_map(img, LUMEN_ACCESS_READ, &px)) {
        snprintf(err, err_size, "%s: %s", path, lumen_last_error());
        return -1;
    }
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = (png_uint_32)lumen_image_width(img);
    png.height = (png_uint_32)lumen_image_height(img);
    png.format = formats[lumen_image_channels(img)];
    if (!png_image_write_to_file(&png, path, 0, px, (png_int_32)lumen_image_stride(img), NULL)) {
        snprintf(err, err_size, "%s: %s", path, png.message);
        return -1;
    }
    return 0;
}
