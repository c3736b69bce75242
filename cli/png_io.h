/* PNG files <-> Lumen images (libpng): gray, RGB or RGBA, 8 bits. */
#ifndef LUMEN_CLI_PNG_IO_H
#define LUMEN_CLI_PNG_IO_H

#include <lumen/lumen.h>
#include <stdio.h>

/* Reads any PNG from path ("-": stdin), sample values as stored: no gamma or colour-space
 * conversion (gAMA, sRGB, iCCP, cHRM are ignored), 16-bit samples become round(v / 257), lower
 * depths and palettes are expanded, gray+alpha and tRNS transparency give RGBA.
 * Returns NULL with a message in err on failure. */
lumen_image *png_read(const char *path, char *err, size_t err_size);
/* Writes img (1, 3 or 4 channels) to f, which stays open; name is for messages. Returns 0, or
 * -1 with a message in err. */
int png_write(FILE *f, const char *name, lumen_image *img, char *err, size_t err_size);

#endif
