/* Shared by the CLI tests: running `lumen` in a child (stdin/stdout files, a file size limit,
 * dropped privileges, a time limit), PNG files written and read with libpng's simplified API,
 * image comparison. Each test program has its own WORK_DIR. */
#ifndef LUMEN_TESTS_CLI_UTIL_H
#define LUMEN_TESTS_CLI_UTIL_H

#include <fcntl.h>
#include <png.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness.h"

static const char *cli, *work;
static char out_text[8192], err_text[8192];

typedef struct {
    const char *in;   /* stdin from this file (in WORK_DIR); default /dev/null */
    const char *out;  /* stdout to this file (in WORK_DIR); default stdout.txt, read to out_text */
    long fsize;       /* RLIMIT_FSIZE for lumen in bytes (SIGXFSZ ignored: writes fail EFBIG) */
    int xfsz_default; /* with fsize: leave SIGXFSZ's default action (kill) to lumen */
    int unprivileged; /* when root, run lumen as uid/gid 65534, so file permissions apply */
    int timeout;      /* seconds before SIGALRM kills it; default 60 */
    const char *env[4]; /* "NAME=value" for lumen; if env[0], LUMEN_BACKEND and LUMEN_MAX_CPU_ISA
                         * are unset first (NULL-terminated unless all 4 are used) */
} run_opts;

static void read_text(const char *name, char *buf, size_t size) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, name);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    buf[n] = 0;
    if (f) fclose(f);
}

/* Runs `lumen ARGS` (through sh, in WORK_DIR, killed after r->timeout s); returns its exit code, -1
 * if it died of a signal, 125 if privileges could not be dropped. stderr goes to err_text. */
static int lumen_with(const run_opts *r, const char *args) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "exec '%s' %s", cli, args);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int in = chdir(work) ? -1 : open(r->in ? r->in : "/dev/null", O_RDONLY);
        int out = open(r->out ? r->out : "stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int err = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(126);
        if (r->fsize) {
            struct rlimit lim = {(rlim_t)r->fsize, (rlim_t)r->fsize};
            if (!r->xfsz_default) signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &lim)) _exit(126);
        }
        if (r->unprivileged && geteuid() == 0 && (setgid(65534) || setuid(65534))) _exit(125);
        if (r->env[0]) unsetenv("LUMEN_BACKEND"), unsetenv("LUMEN_MAX_CPU_ISA");
        for (int i = 0; i < 4 && r->env[i]; i++) {
            char var[256];
            snprintf(var, sizeof var, "%s", r->env[i]);
            char *eq = strchr(var, '=');
            if (eq) *eq = 0, setenv(var, eq + 1, 1);
        }
        alarm(r->timeout ? (unsigned)r->timeout : 60);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!r->out)
        read_text("stdout.txt", out_text, sizeof out_text);
    else
        out_text[0] = 0;
    read_text("stderr.txt", err_text, sizeof err_text);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int lumen(const char *args) {
    run_opts r = {0};
    return lumen_with(&r, args);
}

static int lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void work_path(char *path, size_t size, const char *name) {
    snprintf(path, size, "%s/%s", work, name);
}

/* Writes a random PNG with libpng's simplified API (format: PNG_FORMAT_*). */
static void write_png(const char *name, int w, int h, png_uint_32 format) {
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = (png_uint_32)w;
    png.height = (png_uint_32)h;
    png.format = format;
    size_t size = PNG_IMAGE_SIZE(png);
    uint8_t *px = malloc(size);
    for (size_t i = 0; i < size; i++) px[i] = (uint8_t)t_rand();
    char path[1024];
    work_path(path, sizeof path, name);
    CHECK(png_image_write_to_file(&png, path, 0, px, 0, NULL), "writing %s: %s", name, png.message);
    free(px);
}

/* Reads a PNG as a Lumen image the way the CLI documents (gray, RGB, RGBA). */
static lumen_image *read_png(const char *name) {
    char path[1024];
    work_path(path, sizeof path, name);
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, path)) return NULL;
    int c = png.format & PNG_FORMAT_FLAG_ALPHA ? 4 : png.format & PNG_FORMAT_FLAG_COLOR ? 3 : 1;
    png.format = c == 4 ? PNG_FORMAT_RGBA : c == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    lumen_image *img = NULL;
    uint8_t *px;
    if (lumen_image_create((int)png.width, (int)png.height, c, &img) ||
        lumen_image_map(img, LUMEN_ACCESS_WRITE, &px) ||
        !png_image_finish_read(&png, NULL, px, (png_int_32)lumen_image_stride(img), NULL)) {
        png_image_free(&png);
        lumen_image_destroy(img);
        return NULL;
    }
    return img;
}

static lumen_image *new_like(lumen_image *src, int w, int h, int c) {
    lumen_image *img = NULL;
    lumen_image_create(w ? w : lumen_image_width(src), h ? h : lumen_image_height(src),
                       c ? c : lumen_image_channels(src), &img);
    return img;
}

/* main() of each CLI test: test_x LUMEN WORK_DIR. */
static int cli_test_init(int argc, char **argv) {
    if (argc != 3) return printf("usage: %s LUMEN WORK_DIR\n", argv[0]), 0;
    cli = argv[1];
    work = argv[2];
    mkdir(work, 0777);
    t_seed();
    return 1;
}

#endif
