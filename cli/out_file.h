/* Output files that a failure never destroys. An image is written to a temporary file beside the
 * target and renamed over it only when complete, so a failed write leaves the previous file as
 * it was, and nothing but that temporary file is ever removed. Only regular files are written
 * (or "-", stdout); a symlink to a regular file is written through: the file it points to is
 * replaced and the link stays. SIGINT, SIGTERM, SIGHUP and SIGPIPE remove the temporary files
 * (up to 16 open at once) before the process ends; SIGXFSZ is ignored (the write fails instead). */
#ifndef LUMEN_CLI_OUT_FILE_H
#define LUMEN_CLI_OUT_FILE_H

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

typedef struct {
    const char *path;      /* as given; "-" is stdout */
    char target[PATH_MAX]; /* what the result is renamed over: path, or a symlink's target */
    char tmp[PATH_MAX];    /* the temporary file, "" once renamed or removed */
    FILE *f;               /* where to write: the temporary file, or stdout */
    mode_t mode;           /* the target's mode (kept), or 0666 & ~umask for a new file */
    int existed;
    struct stat old;
} out_file;

/* Checks that path can be written (a regular file or none yet, in a directory that exists and
 * takes new files, writable if it exists) and creates the temporary file. Returns 0, or -1 with
 * a message naming path in err. Call before anything runs. */
int out_open(out_file *o, const char *path, char *err, size_t err_size);
/* Flushes, syncs and closes the temporary file, then renames it over the target (stdout: flushes).
 * Returns 0, or -1 with a message in err; on failure the temporary file is removed. */
int out_commit(out_file *o, char *err, size_t err_size);
/* Closes and removes the temporary file, and only that. */
void out_abort(out_file *o);

#endif
