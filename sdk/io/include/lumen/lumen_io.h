/** @file
 * Lumen image I/O: PNG and JPEG files <-> lumen images (since 1.2).
 *
 * An optional component, a library of its own (liblumen_io, over libpng and libjpeg), so the core
 * library has no codec dependency: CMake find_package(Lumen COMPONENTS io) and target Lumen::io,
 * or pkg-config lumen-io.
 *
 * Reading detects the format from the content (the file's first bytes), never from the name.
 * PNG: every colour type and depth; palettes and depths below 8 are expanded, gray+alpha and tRNS
 * transparency give 4 channels (RGBA), 16-bit samples become round(v / 257) (Lumen images are
 * 8-bit); gamma and colour-space chunks are ignored (samples as stored). JPEG: gray and YCbCr
 * (1 or 3 channels); CMYK is refused. Writing picks the format from the path's extension (.png,
 * .jpg, .jpeg, any case) unless options say otherwise; an unknown extension is an error. BGR
 * orders are written as the files' RGB; planar images (since 1.5) as their interleaved pixels.
 * A file whose first bytes match the PNG or JPEG signature, however short, is CORRUPT_DATA when
 * cut short; an empty file, or one matching neither signature, is UNSUPPORTED_FORMAT.
 *
 * Decompression bombs: a few hundred bytes can validly declare a huge image (a JPEG of
 * 8464 x 46111 pixels, 1.2 GB decoded), which lumen_io_read allocates. When files come from
 * untrusted sources, check width * height with lumen_io_probe before lumen_io_read.
 *
 * Errors (each sets lumen_last_error(), which starts with the function's name and names the
 * file): INVALID_ARGUMENT (NULL pointers, bad options), IO (the file cannot be opened, read or
 * written: the system's reason), UNSUPPORTED_FORMAT (not PNG or JPEG, an unknown extension, a
 * channel count the format cannot hold, a CMYK JPEG, an image over LUMEN_MAX_DIMENSION or
 * LUMEN_MAX_BYTES), CORRUPT_DATA (truncated or damaged content), OUT_OF_MEMORY. On failure
 * nothing is returned and nothing is left allocated; a failed lumen_io_write leaves no partial
 * file. Thread-safe; never prints, never aborts. */
#ifndef LUMEN_LUMEN_IO_H
#define LUMEN_LUMEN_IO_H

#include "lumen/lumen.h"

#if defined(_WIN32) && !defined(LUMEN_STATIC)
#  if defined(LUMEN_IO_BUILDING)
#    define LUMEN_IO_API __declspec(dllexport)
#  else
#    define LUMEN_IO_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && defined(LUMEN_IO_BUILDING)
#  define LUMEN_IO_API __attribute__((visibility("default")))
#else
#  define LUMEN_IO_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** File formats. */
typedef enum lumen_io_format {
    LUMEN_IO_FORMAT_AUTO = 0, /**< writing: from the path's extension */
    LUMEN_IO_FORMAT_PNG = 1,
    LUMEN_IO_FORMAT_JPEG = 2
} lumen_io_format;

/** How to write. Zero-initialise and set what you need: every 0 means the default. */
typedef struct lumen_io_options {
    lumen_io_format format; /**< AUTO (0): from the extension; lumen_io_encode: PNG */
    int png_bits;     /**< 8 (0: 8) or 16 (each 8-bit sample v stored as v * 257); a 16-bit image
                           (since 1.4) is always written as 16-bit PNG (0 or 16; 8: INVALID_ARGUMENT),
                           and neither JPEG nor float images are (UNSUPPORTED_FORMAT) */
    int jpeg_quality; /**< 1 .. 100 (0: 90) */
} lumen_io_options;

/** What lumen_io_probe finds in a file's headers (since 1.2). */
typedef struct lumen_io_info {
    lumen_io_format format; /**< PNG or JPEG (AUTO after a failure) */
    int width;              /**< in pixels, as lumen_io_read would return (0 after a failure) */
    int height;             /**< in pixels, as lumen_io_read would return (0 after a failure) */
    int channels;           /**< 1, 3 or 4, as lumen_io_read would return (0 after a failure) */
} lumen_io_info;

/** Reads a PNG or JPEG file into a new image (1, 3 or 4 channels, 8-bit: a 16-bit PNG's samples
 * are rounded to v / 257, in host memory). *out is NULL on failure; destroy the image with
 * lumen_image_destroy. */
LUMEN_IO_API lumen_status lumen_io_read(const char *path, lumen_image **out);
/** The same from size bytes in memory. */
LUMEN_IO_API lumen_status lumen_io_decode(const void *data, size_t size, lumen_image **out);

#define LUMEN_IO_KEEP_16BIT 1u /**< a 16-bit PNG becomes a GRAY16, RGB16 or RGBA16 image */
/** lumen_io_read and lumen_io_decode with flags (since 1.4): 0 or LUMEN_IO_KEEP_16BIT (other bits:
 * INVALID_ARGUMENT). 8-bit files and JPEG give 8-bit images either way. */
LUMEN_IO_API lumen_status lumen_io_read_flags(const char *path, unsigned flags, lumen_image **out);
/** lumen_io_decode with flags (since 1.4), as lumen_io_read_flags. */
LUMEN_IO_API lumen_status lumen_io_decode_flags(const void *data, size_t size, unsigned flags,
                                                lumen_image **out);

/** The format, size and channels of a PNG or JPEG file, from its headers only, without decoding
 * or allocating the image (since 1.2): check width * height before lumen_io_read when files come
 * from untrusted sources (decompression bombs). The headers are PNG's up to the image data
 * (IHDR, and tRNS, which makes 4 channels), JPEG's up to the first scan. Fails as lumen_io_read
 * would on everything the headers decide: IO, UNSUPPORTED_FORMAT (not PNG or JPEG, CMYK, over
 * LUMEN_MAX_DIMENSION or LUMEN_MAX_BYTES), CORRUPT_DATA (headers cut short or damaged),
 * INVALID_ARGUMENT (NULL path or info); on failure *info is zeroed. Success does not promise that
 * lumen_io_read succeeds: damage or truncation after the headers is found only by decoding. */
LUMEN_IO_API lumen_status lumen_io_probe(const char *path, lumen_io_info *info);
/** The same from size bytes in memory (since 1.2): as lumen_io_decode would decode them. */
LUMEN_IO_API lumen_status lumen_io_probe_memory(const void *data, size_t size, lumen_io_info *info);

/** Writes img (wherever it is: a device image is copied back first) to path; options may be NULL.
 * The file is written under a temporary name beside path and renamed over it when complete (an
 * existing file keeps its mode). A path that is a symlink is written through (since 1.2): the
 * temporary file goes beside the regular file the link finally points to and replaces it, and the
 * link stays; a dangling symlink, or one to anything but a regular file (a directory, a device),
 * is an IO error naming path, and nothing is written. */
LUMEN_IO_API lumen_status lumen_io_write(const char *path, lumen_image *img,
                                         const lumen_io_options *options);
/** Encodes img into a new buffer: *data (free it with lumen_io_free) of *size bytes. */
LUMEN_IO_API lumen_status lumen_io_encode(lumen_image *img, const lumen_io_options *options,
                                          void **data, size_t *size);
/** Frees a buffer from lumen_io_encode; NULL is ignored. */
LUMEN_IO_API void lumen_io_free(void *data);

/** The format a path's extension names (.png, .jpg, .jpeg, any case), or AUTO for any other. */
LUMEN_IO_API lumen_io_format lumen_io_format_from_path(const char *path);
/** A static name: "png", "jpeg", or NULL for AUTO and values outside the enum. */
LUMEN_IO_API const char *lumen_io_format_name(lumen_io_format format);

#ifdef __cplusplus
}
#endif

#endif /* LUMEN_LUMEN_IO_H */
