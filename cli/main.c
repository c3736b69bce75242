/* lumen: Lumen's command-line tool. info, run, chain, demo; see usage(). Exit codes: 0 ok,
 * 1 runtime failure (Lumen's message), 2 usage error, or an output that cannot or must not be
 * written (found before anything runs; see out_file.h). */
#include <lumen/lumen.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "out_file.h"
#include "png_io.h"
#include "stages.h"

enum { MAX_STAGES = 32 };

static void usage(FILE *f) {
    fprintf(f,
            "usage: lumen info\n"
            "       lumen run PIPELINE IN.png OUT.png [--param k=v]... [options]\n"
            "       lumen chain \"STAGE,STAGE,...\" IN.png OUT.png [options]\n"
            "       lumen demo [DIR]\n"
            "       lumen help\n"
            "options: --backend auto|cpu|opencl|cuda   --repeat N   --threads N\n"
            "STAGE: pipeline[:k=v[:k=v]], e.g. \"gaussian_blur:sigma=2,resize:w=640\"\n"
            "IN.png, OUT.png: '-' is stdin, stdout; OUT.png must be a regular file or new\n"
            "pipelines:\n");
    for (int p = 0; stage_pipeline_names[p]; p++)
        fprintf(f, "  %-14s %s\n", stage_pipeline_names[p], stage_params_help(p));
}

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "lumen: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n");
    usage(stderr);
    return 2;
}

static int fail(const char *msg) {
    fprintf(stderr, "lumen: %s\n", msg);
    return 1;
}

/* An output that cannot be written, found before anything runs. */
static int refuse(const char *msg) {
    fprintf(stderr, "lumen: %s\n", msg);
    return 2;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- info --------------------------------------------------------------------------------- */

static int cmd_info(void) {
    printf("Lumen %s (built with Halide %s)\n", lumen_version_string(), lumen_halide_version());
    printf("cpu targets:    %s\n", lumen_compiled_targets(LUMEN_BACKEND_CPU));
    printf("cpu variant:    %s (LUMEN_MAX_CPU_ISA caps it)\n", lumen_cpu_variant());
    for (lumen_backend b = LUMEN_BACKEND_CUDA; b <= LUMEN_BACKEND_OPENCL; b++) {
        const char *targets = lumen_compiled_targets(b);
        lumen_status st = lumen_backend_available(b);
        char why[512];
        snprintf(why, sizeof why, "%s", lumen_last_error());
        const char *devices = lumen_backend_devices(b);
        printf("%-7s targets %s\n", lumen_backend_name(b), *targets ? targets : "(not built)");
        if (st == LUMEN_OK)
            printf("        usable: %s\n", devices);
        else
            printf("        not usable: %s\n", strstr(why, ": ") ? strstr(why, ": ") + 2 : why);
    }
    printf("auto backend:   %s (for images in host memory)\n",
           lumen_backend_name(lumen_backend_preferred()));
    printf("default policy: %s (LUMEN_BACKEND)\n", lumen_backend_name(lumen_context_policy(NULL)));
    return 0;
}

/* ---- run / chain -------------------------------------------------------------------------- */

typedef struct {
    lumen_backend backend;
    int repeat;
    int threads;
} options;

/* Parses --backend/--repeat/--threads at argv[*i]; returns 1 if taken, 0 if not, -1 on error. */
static int parse_option(int argc, char **argv, int *i, options *o) {
    const char *a = argv[*i];
    if (strcmp(a, "--backend") && strcmp(a, "--repeat") && strcmp(a, "--threads")) return 0;
    if (*i + 1 >= argc) return usage_error("%s needs a value", a), -1;
    const char *v = argv[++*i];
    if (strcmp(a, "--backend") == 0) {
        for (int b = LUMEN_BACKEND_AUTO; b <= LUMEN_BACKEND_OPENCL; b++)
            if (strcmp(v, lumen_backend_name((lumen_backend)b)) == 0)
                return o->backend = (lumen_backend)b, 1;
        return usage_error("unknown backend '%s'", v), -1;
    }
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < (a[2] == 'r' ? 1 : 0) || n > 1000000)
        return usage_error("bad number '%s'", v), -1;
    if (a[2] == 'r')
        o->repeat = (int)n;
    else
        o->threads = (int)n;
    return 1;
}

/* Runs the stages `repeat` times on in; the last result goes to out (opened, committed here).
 * Prints per-stage times and transfers (to stderr when out is stdout); with repeat > 1,
 * min/median time and megapixels/s. */
static int run_stages(const stage *stages, int n, const char *in_path, out_file *out,
                      const options *o) {
    char err[2048];
    FILE *report = out->f == stdout ? stderr : stdout;
    lumen_image *in = png_read(in_path, err, sizeof err);
    if (!in) return fail(err);
    lumen_context *ctx = NULL;
    if (lumen_context_create(o->backend, &ctx)) return fail(lumen_last_error());
    if (o->threads) lumen_set_num_threads(o->threads);

    double *times = calloc((size_t)o->repeat, sizeof *times);
    double stage_time[MAX_STAGES] = {0};
    lumen_transfer_stats before, after, stage_stats[MAX_STAGES];
    lumen_image *result = NULL;
    int rc = 0;
    double started = now(), shown = started;
    for (int r = 0; r < o->repeat && rc == 0; r++) {
        lumen_image *cur = in;
        double t0 = now();
        for (int i = 0; i < n && rc == 0; i++) {
            lumen_image *next = NULL;
            lumen_context_stats(ctx, &before);
            double s0 = now();
            if (stage_run(&stages[i], ctx, cur, &next, err, sizeof err)) {
                fprintf(stderr, "lumen: %s: %s\n", stage_name(&stages[i]), err);
                rc = 1;
                break;
            }
            lumen_image_sync(next);
            stage_time[i] = now() - s0;
            lumen_context_stats(ctx, &after);
            stage_stats[i].uploads = after.uploads - before.uploads;
            stage_stats[i].downloads = after.downloads - before.downloads;
            if (cur != in) lumen_image_destroy(cur);
            cur = next;
        }
        times[r] = now() - t0;
        if (rc == 0 && r + 1 < o->repeat) lumen_image_destroy(cur);
        if (rc == 0 && r + 1 == o->repeat) result = cur;
        if (o->repeat > 1 && now() - shown > 0.5) { /* progress for long runs */
            fprintf(stderr, "\r%d/%d runs", r + 1, o->repeat);
            shown = now();
        }
    }
    if (shown != started) fprintf(stderr, "\n");
    if (rc == 0) {
        for (int i = 0; i < n; i++)
            fprintf(report, "%-14s %9.3f ms  on %-6s uploads %llu downloads %llu\n",
                    stage_name(&stages[i]), 1e3 * stage_time[i],
                    lumen_backend_name(lumen_image_location(result)),
                    (unsigned long long)stage_stats[i].uploads,
                    (unsigned long long)stage_stats[i].downloads);
        lumen_context_stats(ctx, &before);
        if (png_write(out->f, out->path, result, err, sizeof err) ||
            out_commit(out, err, sizeof err))
            rc = fail(err);
        lumen_context_stats(ctx, &after);
        if (rc == 0)
            fprintf(report, "wrote %s (%dx%dx%d), downloads for it: %llu\n",
                    report == stdout ? out->path : "(stdout)", lumen_image_width(result),
                    lumen_image_height(result), lumen_image_channels(result),
                    (unsigned long long)(after.downloads - before.downloads));
        if (rc == 0 && o->repeat > 1) {
            qsort(times, (size_t)o->repeat, sizeof *times, cmp_double);
            double mp = lumen_image_width(in) * (double)lumen_image_height(in) / 1e6;
            fprintf(report, "%d runs: min %.3f ms, median %.3f ms, %.1f megapixels/s (median)\n",
                    o->repeat, 1e3 * times[0], 1e3 * times[o->repeat / 2],
                    mp / times[o->repeat / 2]);
        }
    }
    lumen_image_destroy(result);
    lumen_image_destroy(in);
    lumen_context_destroy(ctx);
    free(times);
    return rc;
}

static int cmd_run(int argc, char **argv, int chain) {
    options o = {LUMEN_BACKEND_AUTO, 1, 0};
    const char *pos[3];
    int npos = 0;
    stage stages[MAX_STAGES];
    char err[512];
    const char **params = calloc((size_t)argc, sizeof *params);
    int nparams = 0, rc;
    for (int i = 2; i < argc; i++) {
        if ((rc = parse_option(argc, argv, &i, &o)) < 0) return free(params), 2;
        if (rc) continue;
        if (!chain && (strcmp(argv[i], "--param") == 0 || strcmp(argv[i], "-p") == 0)) {
            if (i + 1 >= argc) return free(params), usage_error("%s needs k=v", argv[i]);
            params[nparams++] = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return free(params), usage_error("unknown option '%s'", argv[i]);
        } else if (npos < 3) {
            pos[npos++] = argv[i];
        } else {
            return free(params), usage_error("unexpected argument '%s'", argv[i]);
        }
    }
    if (npos != 3) {
        free(params);
        return usage_error("%s needs 3 arguments", chain ? "chain" : "run");
    }
    int n = 0;
    if (chain) {
        char buf[4096];
        snprintf(buf, sizeof buf, "%s", pos[0]);
        char *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (n == MAX_STAGES) return free(params), usage_error("more than %s stages", "32");
            if (stage_parse(&stages[n++], t, err, sizeof err))
                return free(params), usage_error("%s", err);
        }
        if (n == 0) return free(params), usage_error("empty chain '%s'", pos[0]);
    } else {
        n = 1;
        if (stage_init(&stages[0], pos[0], err, sizeof err))
            return free(params), usage_error("%s", err);
        for (int i = 0; i < nparams; i++)
            if (stage_param(&stages[0], params[i], err, sizeof err))
                return free(params), usage_error("%s", err);
    }
    free(params);
    out_file out;
    char out_err[2048];
    if (out_open(&out, pos[2], out_err, sizeof out_err)) return refuse(out_err);
    rc = run_stages(stages, n, pos[1], &out, &o);
    out_abort(&out); /* a no-op once committed */
    return rc;
}

/* ---- demo --------------------------------------------------------------------------------- */

/* A procedural RGB sample: colour gradients, rings and a checkerboard corner. */
static lumen_image *sample_image(int w, int h) {
    lumen_image *img = NULL;
    uint8_t *px;
    if (lumen_image_create(w, h, 3, &img) || lumen_image_map(img, LUMEN_ACCESS_WRITE, &px))
        return NULL;
    for (int y = 0; y < h; y++) {
        uint8_t *row = px + (size_t)y * lumen_image_stride(img);
        for (int x = 0; x < w; x++) {
            double dx = x - w * 0.6, dy = y - h * 0.45, r = sqrt(dx * dx + dy * dy);
            int ring = (int)(r / 12.0) % 2, check = ((x / 16) + (y / 16)) % 2;
            int inside = r < h * 0.35, corner = x < w / 4 && y > h * 2 / 3;
            row[3 * x + 0] = (uint8_t)(corner   ? 255 * check
                                       : inside ? 230 * ring + 20
                                                : 255 * x / w);
            row[3 * x + 1] = (uint8_t)(corner ? 255 * check : inside ? 120 : 255 * y / h);
            row[3 * x + 2] = (uint8_t)(corner ? 255 * check : inside ? 255 - 200 * ring : 160);
        }
    }
    return img;
}

static const char *const demos[][2] = {
    {"levels", "levels:gain=1.4:bias=-30"},
    {"grayscale", "grayscale"},
    {"gaussian_blur", "gaussian_blur:sigma=3"},
    {"resize", "resize:w=320"},
    {"sobel", "grayscale,sobel"},
    {"unsharp_mask", "unsharp_mask:sigma=2:amount=2.5"},
    {"chain", "gaussian_blur:sigma=1.5,unsharp_mask:amount=2,resize:w=1024,levels:gain=1.1"},
};
enum { DEMOS = sizeof demos / sizeof *demos };

/* Removes the demo's temporary files still open (those renamed into place stay). */
static void demo_abort(out_file *outs) {
    for (int i = 0; i <= DEMOS; i++) out_abort(&outs[i]);
}

/* Writes img to outs[i] (opened) and renames it into place; on failure removes them all. */
static int demo_write(out_file *outs, int i, lumen_image *img) {
    char err[2048];
    if (png_write(outs[i].f, outs[i].path, img, err, sizeof err) ||
        out_commit(&outs[i], err, sizeof err))
        return demo_abort(outs), fail(err);
    return 0;
}

static int cmd_demo(int argc, char **argv) {
    const char *dir = argc > 2 ? argv[2] : "lumen-demo";
    if (argc > 3) return usage_error("demo takes one directory, not '%s'", argv[3]);
    char paths[DEMOS + 1][PATH_MAX], err[PATH_MAX + 64];
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, sizeof err, "cannot create %s: %s", dir, strerror(errno));
        return refuse(err);
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, sizeof err, "cannot write into %s: not a directory", dir);
        return refuse(err);
    }
    /* Every output checked (and its temporary file made) before anything runs. */
    out_file outs[DEMOS + 1];
    for (int i = 0; i <= DEMOS; i++) {
        int len =
            snprintf(paths[i], sizeof paths[i], "%s/%s.png", dir, i ? demos[i - 1][0] : "sample");
        if (len >= (int)sizeof paths[i]) snprintf(err, sizeof err, "%s: path too long", dir);
        if (len >= (int)sizeof paths[i] || out_open(&outs[i], paths[i], err, sizeof err)) {
            while (i--) out_abort(&outs[i]);
            return refuse(err);
        }
    }
    lumen_image *sample = sample_image(640, 480);
    if (!sample) return demo_abort(outs), fail(lumen_last_error());
    if (demo_write(outs, 0, sample)) return lumen_image_destroy(sample), 1;
    printf("Lumen %s demo: CPU variant %s, auto backend %s\n", lumen_version_string(),
           lumen_cpu_variant(), lumen_backend_name(lumen_backend_preferred()));
    printf("wrote %s (640x480 RGB, procedural)\n", paths[0]);

    lumen_context *ctx = NULL;
    int rc = lumen_context_create(LUMEN_BACKEND_AUTO, &ctx) ? fail(lumen_last_error()) : 0;
    for (int d = 0; d < DEMOS && rc == 0; d++) {
        char spec[256];
        snprintf(spec, sizeof spec, "%s", demos[d][1]);
        lumen_image *cur = sample;
        double t0 = now();
        char *save = NULL;
        for (char *t = strtok_r(spec, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
            stage s;
            lumen_image *next = NULL;
            if (stage_parse(&s, t, err, sizeof err) ||
                stage_run(&s, ctx, cur, &next, err, sizeof err))
                rc = fail(err);
            if (cur != sample) lumen_image_destroy(cur);
            cur = next;
        }
        double ms = 1e3 * (now() - t0);
        if (rc == 0 && (rc = demo_write(outs, d + 1, cur)) == 0)
            printf("  %-13s %-70s %7.2f ms -> %s (%dx%dx%d)\n", demos[d][0], demos[d][1], ms,
                   paths[d + 1], lumen_image_width(cur), lumen_image_height(cur),
                   lumen_image_channels(cur));
        if (cur != sample) lumen_image_destroy(cur);
    }
    demo_abort(outs);
    lumen_context_destroy(ctx);
    lumen_image_destroy(sample);
    if (rc == 0) printf("demo: ok\n");
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage_error("%s", "no command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
        return usage(stdout), 0;
    if (strcmp(cmd, "info") == 0)
        return argc == 2 ? cmd_info() : usage_error("info takes no arguments%s", "");
    if (strcmp(cmd, "run") == 0) return cmd_run(argc, argv, 0);
    if (strcmp(cmd, "chain") == 0) return cmd_run(argc, argv, 1);
    if (strcmp(cmd, "demo") == 0) return cmd_demo(argc, argv);
    return usage_error("unknown command '%s'", cmd);
}
