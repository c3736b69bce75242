/* lumen: Lumen's command-line tool. info, run, chain, demo; see usage(). Exit codes: 0 ok,
 * 1 failure while running (Lumen's message), 2 usage error: a wrong argument or environment
 * variable, or an output that cannot or must not be written, all found before anything runs
 * (see out_file.h). */
#include <lumen/lumen.h>
#include <lumen/lumen_io.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "out_file.h"
#include "raw_yuv.h"
#include "stages.h"

enum { MAX_STAGES = 32 };

static void usage(FILE *f) {
    fprintf(f,
            "usage: lumen run PIPELINE IN OUT [--param K=V]... [options]\n"
            "       lumen chain \"STAGE,STAGE,...\" IN OUT [options]\n"
            "       lumen demo [DIR] [--backend B] [--threads N]\n"
            "       lumen info\n"
            "       lumen --help | --version\n"
            "IN   PNG or JPEG (told by the content), or with --size a raw 4:2:0 frame (NV12,\n"
            "     NV21 or I420, planes back to back) converted to RGB; '-' is stdin\n"
            "OUT  .png, .jpg, .jpeg, or a raw frame .nv12, .nv21, .i420 (from an RGB or RGBA\n"
            "     result; told by the extension); '-' is stdout (PNG unless --format); a\n"
            "     regular file or a new one, replaced only when complete\n"
            "STAGE  pipeline[:K=V[:K=V]], e.g. \"gaussian_blur:sigma=2,resize:w=640\"\n"
            "options:\n"
            "  -p, --param K=V         a pipeline parameter (run), each at most once\n"
            "  --backend auto|cpu|cuda|opencl\n"
            "                          where pipelines run; default: LUMEN_BACKEND, else auto\n"
            "  --repeat N              runs (1..1000000): first-call and steady-state times\n"
            "  --threads N             CPU threads (0..256; 0 = one per core)\n"
            "  --format png|jpeg|nv12|nv21|i420\n"
            "                          output format (for '-'; else must match OUT's extension);\n"
            "                          with --size, nv12|nv21|i420 is IN's layout instead\n"
            "  --size WxH              IN is a raw frame of that size (even, 2..65535), its\n"
            "                          layout from --format or IN's extension\n"
            "  --yuv-space bt601|bt601-full|bt709|bt709-full\n"
            "                          raw frames' colours (default bt601: limited range)\n"
            "  --quality N             JPEG quality (1..100, default 90)\n"
            "environment: LUMEN_BACKEND=auto|cpu|cuda|opencl, "
            "LUMEN_MAX_CPU_ISA=baseline|sse41|avx2|avx512\n"
            "exit status: 0 ok, 1 failure while running, 2 usage error (nothing was run)\n"
            "pipelines:\n");
    for (int p = 0; stage_pipeline_names[p]; p++)
        fprintf(f, "  %-14s %s\n", stage_pipeline_names[p], stage_params_help(p));
}

/* A wrong argument: the message, the synopsis, exit 2. */
static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "lumen: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr,
            "\nusage: lumen run|chain|demo|info ... ('lumen --help' for options and pipelines)\n");
    return 2;
}

static int fail(const char *msg) {
    fprintf(stderr, "lumen: %s\n", msg);
    return 1;
}

/* Refused before anything runs (an output that cannot be written, the environment): exit 2. */
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

/* An invalid LUMEN_BACKEND or LUMEN_MAX_CPU_ISA (the library ignores it) stops run, chain, demo. */
static int check_environment(void) {
    const char *w = lumen_config_warning();
    if (!*w) return 0;
    fprintf(stderr, "lumen: %s (fix or unset it)\n", w);
    return 2;
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
    const char *env = getenv("LUMEN_BACKEND"),
               *policy = lumen_backend_name(lumen_context_policy(NULL));
    if (!env || !*env)
        printf("default policy: %s (LUMEN_BACKEND unset)\n", policy);
    else
        printf("default policy: %s (LUMEN_BACKEND%s%s%s)\n", policy,
               strcmp(env, policy) ? "='" : "=", env, strcmp(env, policy) ? "' ignored" : "");
    if (*lumen_config_warning())
        printf("warning:        %s: ignored (run, chain and demo refuse it)\n",
               lumen_config_warning());
    return 0;
}

/* ---- options ------------------------------------------------------------------------------ */

enum { O_BACKEND, O_REPEAT, O_THREADS, O_FORMAT, O_QUALITY, O_SIZE, O_YUV_SPACE, O_COUNT };
static const char *const option_names[O_COUNT] = {"--backend", "--repeat", "--threads",  "--format",
                                                  "--quality", "--size",   "--yuv-space"};

typedef struct {
    lumen_backend backend;
    int repeat, threads, quality;
    lumen_io_format format;
    unsigned given;      /* 1 << O_* */
    int yuv_format;      /* --format nv12|nv21|i420 */
    int w, h;            /* --size */
    int space;           /* --yuv-space, default BT.601 limited */
    int in_yuv, out_yuv; /* raw frame layouts of IN and OUT (0: PNG or JPEG) */
    int keep16;          /* read a 16-bit PNG as 16-bit: every stage takes it, OUT is PNG */
} options;

/* An integer option's value in [min, max], else a usage error naming the option and the range. */
static int parse_int(const char *name, const char *v, long min, long max, const char *note,
                     int *out) {
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (!*v || *end || errno || n < min || n > max) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s '%%s': must be an integer in %ld..%ld%s", name, min, max,
                 note);
        return usage_error(msg, v);
    }
    *out = (int)n;
    return 0;
}

/* Parses one of the options in `allowed` (1 << O_*) at argv[*i], as "--opt V" or "--opt=V".
 * Returns 1 if taken, 0 if argv[*i] is none of them, 2 (usage error printed) if wrong. */
static int parse_option(int argc, char **argv, int *i, options *o, unsigned allowed) {
    const char *a = argv[*i], *v = NULL;
    int k;
    size_t len = 0;
    for (k = 0; k < O_COUNT; k++) {
        len = strlen(option_names[k]);
        if ((allowed >> k & 1) && strncmp(a, option_names[k], len) == 0 &&
            (a[len] == '\0' || a[len] == '='))
            break;
    }
    if (k == O_COUNT) return 0;
    const char *name = option_names[k];
    if (a[len] == '=')
        v = a + len + 1;
    else if (*i + 1 < argc)
        v = argv[++*i];
    else
        return usage_error("%s needs a value", name);
    if (o->given >> k & 1) return usage_error("%s given twice", name);
    o->given |= 1u << k;
    switch (k) {
        case O_BACKEND:
            for (int b = LUMEN_BACKEND_AUTO; b <= LUMEN_BACKEND_OPENCL; b++)
                if (strcmp(v, lumen_backend_name((lumen_backend)b)) == 0)
                    return o->backend = (lumen_backend)b, 1;
            return usage_error("--backend '%s': must be one of auto, cpu, cuda, opencl", v);
        case O_FORMAT:
            for (int f = LUMEN_IO_FORMAT_PNG; f <= LUMEN_IO_FORMAT_JPEG; f++)
                if (strcmp(v, lumen_io_format_name((lumen_io_format)f)) == 0)
                    return o->format = (lumen_io_format)f, 1;
            if ((o->yuv_format = raw_yuv_layout(v))) return 1;
            return usage_error("--format '%s': must be png, jpeg, nv12, nv21 or i420", v);
        case O_SIZE: {
            char *end;
            long w = strtol(v, &end, 10), h = *end == 'x' ? strtol(end + 1, &end, 10) : 0;
            if (*end || w < 2 || h < 2 || w > LUMEN_MAX_DIMENSION || h > LUMEN_MAX_DIMENSION ||
                w % 2 || h % 2)
                return usage_error("--size '%s': must be WxH, each even, in 2..65535 (4:2:0)", v);
            return o->w = (int)w, o->h = (int)h, 1;
        }
        case O_YUV_SPACE:
            if ((o->space = raw_yuv_space(v))) return 1;
            return usage_error("--yuv-space '%s': must be bt601, bt601-full, bt709 or bt709-full",
                               v);
        case O_REPEAT:
            return parse_int(name, v, 1, 1000000, "", &o->repeat) ? 2 : 1;
        case O_THREADS:
            return parse_int(name, v, 0, 256, " (0: one per core)", &o->threads) ? 2 : 1;
        default:
            return parse_int(name, v, 1, 100, "", &o->quality) ? 2 : 1;
    }
}

static int is_help(const char *a) { return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0; }

/* ---- backend ------------------------------------------------------------------------------ */

/* The backend: --backend, else LUMEN_BACKEND (the default context's policy), else auto. Probes
 * the drivers it needs now, timed, and prints "backend: NAME (where from; probe T ms)" to
 * report. Returns the policy for the context, or -1 (message printed) if it cannot run here. */
static int pick_backend(const options *o, FILE *report) {
    lumen_backend policy = o->given >> O_BACKEND & 1 ? o->backend : lumen_context_policy(NULL);
    const char *env = getenv("LUMEN_BACKEND");
    const char *from = o->given >> O_BACKEND & 1 ? "--backend"
                       : env && *env             ? "LUMEN_BACKEND"
                                                 : "the default";
    lumen_backend runs = policy;
    double t0 = now();
    if (policy == LUMEN_BACKEND_AUTO) runs = lumen_backend_preferred(); /* for host images */
    if (runs != LUMEN_BACKEND_CPU && lumen_backend_available(runs) != LUMEN_OK)
        return fail(lumen_last_error()), -1;
    double ms = 1e3 * (now() - t0);
    fprintf(report, "backend: %s (%s%s", lumen_backend_name(runs),
            policy == LUMEN_BACKEND_AUTO ? "auto, " : "", from);
    if (policy == LUMEN_BACKEND_AUTO || runs != LUMEN_BACKEND_CPU)
        fprintf(report, "; driver probe %.1f ms", ms);
    fprintf(report, ")\n");
    return (int)policy;
}

/* ---- files -------------------------------------------------------------------------------- */

/* Reads a PNG or JPEG, or a raw frame (o->in_yuv), from path, "-" = stdin; NULL (message
 * printed) on failure. */
static lumen_image *read_input(const char *path, const options *o) {
    lumen_image *img = NULL;
    int is_stdin = strcmp(path, "-") == 0;
    unsigned flags = o->keep16 ? LUMEN_IO_KEEP_16BIT : 0;
    if (!is_stdin && !o->in_yuv) {
        if (lumen_io_read_flags(path, flags, &img)) fail(lumen_last_error());
        return img;
    }
    FILE *in = is_stdin ? stdin : fopen(path, "rb");
    if (!in) {
        char msg[PATH_MAX + 256];
        snprintf(msg, sizeof msg, "cannot open %s: %s", path, strerror(errno));
        fail(msg);
        return NULL;
    }
    size_t n = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, in)) > 0;) {
        char *bigger = (n += got) == cap ? realloc(buf, cap *= 2) : buf;
        if (!bigger) free(buf);
        buf = bigger;
    }
    const char *name = is_stdin ? "stdin" : path;
    char msg[PATH_MAX + 1200], err[1024];
    if (!buf) {
        snprintf(msg, sizeof msg, "%s: out of memory", name);
        fail(msg);
    } else if (ferror(in)) {
        snprintf(msg, sizeof msg, "cannot read %s: %s", name, strerror(errno));
        fail(msg);
    } else if (o->in_yuv) {
        if (raw_yuv_decode(buf, n, o->w, o->h, o->in_yuv, o->space, &img, err, sizeof err)) {
            snprintf(msg, sizeof msg, "%s: %s", name, err);
            fail(msg);
        }
    } else if (lumen_io_decode_flags(buf, n, flags, &img)) {
        snprintf(msg, sizeof msg, "%s: %s", name, lumen_last_error());
        fail(msg);
    }
    if (!is_stdin) fclose(in);
    free(buf);
    return img;
}

/* Encodes img as o's format (PNG, JPEG or a raw frame) into out (opened by out_open); 0, or -1
 * with a message in err. */
static int write_output(out_file *out, lumen_image *img, const options *o, char *err,
                        size_t err_size) {
    lumen_io_options opt = {o->format, 0, o->quality};
    void *data = NULL;
    size_t size = 0;
    char msg[1024];
    if (o->out_yuv ? raw_yuv_encode(img, o->out_yuv, o->space, &data, &size, msg, sizeof msg)
                   : lumen_io_encode(img, &opt, &data, &size)) {
        snprintf(err, err_size, "%s: %s", out->path, o->out_yuv ? msg : lumen_last_error());
        return -1;
    }
    size_t written = fwrite(data, 1, size, out->f);
    if (o->out_yuv)
        free(data);
    else
        lumen_io_free(data);
    if (written != size) {
        snprintf(err, err_size, "cannot write %s: %s",
                 strcmp(out->path, "-") ? out->path : "stdout", strerror(errno));
        return -1;
    }
    return 0;
}

/* Raw frames: IN is one with --size (its layout from --format, else IN's extension); OUT is one
 * by its extension, or by --format without --size. 0, or 2 (usage error). */
static int raw_formats(const char *in, const char *out, options *o) {
    int size = o->given >> O_SIZE & 1, ext = raw_yuv_layout_of_path(out);
    if (size) {
        o->in_yuv = o->yuv_format ? o->yuv_format : raw_yuv_layout_of_path(in);
        if (!o->in_yuv)
            return usage_error(
                "--size: give IN's layout, --format nv12|nv21|i420 or an extension "
                ".nv12, .nv21, .i420 (%s)",
                in);
        if (o->yuv_format) o->given &= ~(1u << O_FORMAT); /* it was IN's */
    } else if (raw_yuv_layout_of_path(in)) {
        return usage_error("%s is a raw frame: give its size, --size WxH", in);
    }
    if (!size && o->yuv_format) {
        if ((ext && ext != o->yuv_format) || lumen_io_format_from_path(out) != LUMEN_IO_FORMAT_AUTO)
            return usage_error("--format conflicts with the extension of %s", out);
        ext = o->yuv_format;
        o->given &= ~(1u << O_FORMAT);
    }
    if (ext && (o->given >> O_FORMAT & 1))
        return usage_error("--format conflicts with the extension of %s", out);
    if (ext && (o->given >> O_QUALITY & 1))
        return usage_error("--quality applies to JPEG output only, and %s is a raw frame", out);
    if ((o->given >> O_YUV_SPACE & 1) && !o->in_yuv && !ext)
        return usage_error("--yuv-space applies to raw frames, and neither %s nor OUT is one", in);
    if (!o->space) o->space = LUMEN_YUV_BT601_LIMITED;
    o->out_yuv = ext;
    return 0;
}

/* The output's format: --format, else OUT's extension ('-': PNG). 0, or 2 (usage error). */
static int output_format(const char *path, options *o) {
    if (o->out_yuv) return 0;
    int is_stdout = strcmp(path, "-") == 0, given = o->given >> O_FORMAT & 1;
    lumen_io_format ext = is_stdout ? LUMEN_IO_FORMAT_AUTO : lumen_io_format_from_path(path);
    if (!is_stdout && ext == LUMEN_IO_FORMAT_AUTO && !given)
        return usage_error(
            "'%s': unknown output extension: use .png, .jpg or .jpeg (or --format "
            "png|jpeg)",
            path);
    if (given && ext != LUMEN_IO_FORMAT_AUTO && ext != o->format) {
        char msg[PATH_MAX + 128];
        snprintf(msg, sizeof msg, "--format %s conflicts with the extension of %s (%s)",
                 lumen_io_format_name(o->format), path, lumen_io_format_name(ext));
        return usage_error("%s", msg);
    }
    if (!given) o->format = ext != LUMEN_IO_FORMAT_AUTO ? ext : LUMEN_IO_FORMAT_PNG;
    if ((o->given >> O_QUALITY & 1) && o->format != LUMEN_IO_FORMAT_JPEG)
        return usage_error("--quality applies to JPEG output only, and %s is PNG", path);
    return 0;
}
/* ---- run / chain -------------------------------------------------------------------------- */

/* Whether the stages take an input of c channels, and the output format their result: 0, or 1
 * with a hint printed (before anything runs, but found in the input: a failure). */
static int check_channels(const stage *stages, int n, int c, const out_file *out,
                          const options *o) {
    char err[512];
    for (int i = 0; i < n; i++)
        if ((c = stage_channels(&stages[i], c, err, sizeof err)) < 0) return fail(err);
    if (c == 1 && o->out_yuv) {
        snprintf(err, sizeof err,
                 "%s: a raw %s frame is made from RGB or RGBA, and the result is "
                 "gray: write a .png",
                 strcmp(out->path, "-") ? out->path : "stdout", raw_yuv_name(o->out_yuv));
        return fail(err);
    }
    if (c == 4 && o->format == LUMEN_IO_FORMAT_JPEG) {
        snprintf(err, sizeof err,
                 "%s: JPEG holds gray or RGB, and the result is RGBA (4 channels): write a .png",
                 strcmp(out->path, "-") ? out->path : "stdout");
        return fail(err);
    }
    return 0;
}

/* Runs the stages `repeat` times on the input; the last result goes to out (opened, committed
 * here). Reports (to stdout, or stderr when out is stdout) the backend, per-stage times and
 * transfers, and the time of the first run (one-time set-up: thread pool, kernel compilation)
 * apart from the steady state (median of the later runs). Progress only to a terminal. */
static int run_stages(const stage *stages, int n, const char *in_path, out_file *out,
                      const options *o) {
    char err[2048];
    FILE *report = out->f == stdout ? stderr : stdout;
    lumen_image *in = read_input(in_path, o);
    if (!in) return 1;
    lumen_context *ctx = NULL;
    int policy = -1;
    if (check_channels(stages, n, lumen_image_channels(in), out, o) == 0)
        policy = pick_backend(o, report);
    if (policy < 0 || lumen_context_create((lumen_backend)policy, &ctx)) {
        if (policy >= 0) fail(lumen_last_error());
        return lumen_image_destroy(in), 1;
    }
    if (o->threads) lumen_set_num_threads(o->threads);

    double *times = calloc((size_t)o->repeat, sizeof *times);
    double stage_time[MAX_STAGES] = {0};
    lumen_transfer_stats before, after, stage_stats[MAX_STAGES];
    lumen_image *result = NULL;
    int rc = times ? 0 : fail("out of memory"), progress = isatty(STDERR_FILENO);
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
        if (progress && o->repeat > 1 && now() - shown > 0.5) { /* for long runs */
            fprintf(stderr, "\r%d/%d runs", r + 1, o->repeat);
            shown = now();
        }
    }
    if (shown != started) fprintf(stderr, "\n");
    if (rc == 0) {
        for (int i = 0; i < n; i++)
            fprintf(report, "%-14s %9.3f ms  on %-6s uploads %llu downloads %llu%s\n",
                    stage_name(&stages[i]), 1e3 * stage_time[i],
                    lumen_backend_name(lumen_image_location(result)),
                    (unsigned long long)stage_stats[i].uploads,
                    (unsigned long long)stage_stats[i].downloads,
                    o->repeat > 1 ? "" : "  (first run)");
        lumen_context_stats(ctx, &before);
        if (write_output(out, result, o, err, sizeof err) || out_commit(out, err, sizeof err))
            rc = fail(err);
        lumen_context_stats(ctx, &after);
        if (rc == 0)
            fprintf(report, "wrote %s (%dx%dx%d %s%s), downloads for it: %llu\n",
                    report == stdout ? out->path : "(stdout)", lumen_image_width(result),
                    lumen_image_height(result), lumen_image_channels(result),
                    o->out_yuv ? raw_yuv_name(o->out_yuv) : lumen_io_format_name(o->format),
                    lumen_format_element_size(lumen_image_format(result)) == 2 ? ", 16-bit" : "",
                    (unsigned long long)(after.downloads - before.downloads));
    }
    if (rc == 0 && o->repeat == 1) {
        fprintf(report,
                "time: first run %.3f ms (with one-time set-up: thread start, kernel "
                "compilation); --repeat N for the steady state\n",
                1e3 * times[0]);
    } else if (rc == 0) {
        int k = o->repeat - 1; /* runs after the first */
        qsort(times + 1, (size_t)k, sizeof *times, cmp_double);
        double mp = lumen_image_width(in) * (double)lumen_image_height(in) / 1e6;
        fprintf(report,
                "time: first run %.3f ms; steady state %.3f ms per run (median of the %d later "
                "run%s, min %.3f ms), %.1f megapixels/s\n",
                1e3 * times[0], 1e3 * times[1 + k / 2], k, k == 1 ? "" : "s", 1e3 * times[1],
                mp / times[1 + k / 2]);
    }
    lumen_image_destroy(result);
    lumen_image_destroy(in);
    lumen_context_destroy(ctx);
    free(times);
    return rc;
}

static int cmd_run(int argc, char **argv, int chain) {
    options o = {LUMEN_BACKEND_AUTO, 1, 0, 0, LUMEN_IO_FORMAT_AUTO, 0, 0, 0, 0, 0, 0, 0};
    const char *pos[3];
    int npos = 0, rc, dashdash = 0;
    stage stages[MAX_STAGES];
    char err[512];
    const char **params = calloc((size_t)argc, sizeof *params);
    int nparams = 0;
    if (!params) return fail("out of memory");
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!dashdash && is_help(a)) return free(params), usage(stdout), 0;
        if (!dashdash && (rc = parse_option(argc, argv, &i, &o, (1u << O_COUNT) - 1)) == 2)
            return free(params), 2;
        if (!dashdash && rc) continue;
        if (!dashdash && !chain && (strcmp(a, "--param") == 0 || strcmp(a, "-p") == 0)) {
            if (i + 1 >= argc) return free(params), usage_error("%s needs K=V", a);
            params[nparams++] = argv[++i];
        } else if (!dashdash && strcmp(a, "--") == 0) {
            dashdash = 1;
        } else if (!dashdash && a[0] == '-' && a[1]) {
            return free(params), usage_error("unknown option '%s'", a);
        } else if (npos < 3) {
            pos[npos++] = a;
        } else {
            return free(params), usage_error("unexpected argument '%s'", a);
        }
    }
    if (npos != 3) {
        free(params);
        return usage_error(chain ? "%s needs STAGES IN OUT" : "%s needs PIPELINE IN OUT",
                           chain ? "chain" : "run");
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
        rc = stage_init(&stages[0], pos[0], err, sizeof err);
        for (int i = 0; i < nparams && rc == 0; i++)
            rc = stage_param(&stages[0], params[i], err, sizeof err);
        if (rc == 0) rc = stage_check(&stages[0], err, sizeof err);
        if (rc) return free(params), usage_error("%s", err);
    }
    free(params);
    if ((rc = check_environment())) return rc;
    out_file out;
    char out_err[2048];
    if (out_open(&out, pos[2], out_err, sizeof out_err)) return refuse(out_err);
    if ((rc = raw_formats(pos[1], pos[2], &o)) || (rc = output_format(pos[2], &o)))
        return out_abort(&out), rc;
    o.keep16 = !o.in_yuv && !o.out_yuv && o.format == LUMEN_IO_FORMAT_PNG;
    for (int i = 0; i < n; i++) o.keep16 &= stage_takes_16bit(&stages[i]);
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
    {"resize_area", "resize:scale=0.125:interp=3"},
    {"resize_lanczos3", "resize:scale=0.3:interp=64"},
    {"resize_cubic", "resize:scale=2:interp=2"},
    {"sobel", "grayscale,sobel"},
    {"unsharp_mask", "unsharp_mask:sigma=2:amount=2.5"},
    {"flip", "flip"},
    {"rotate", "rotate:degrees=90"},
    {"threshold", "grayscale,threshold:t=100"},
    {"morphology", "morphology:op=4:w=5:h=5"},
    {"median", "median:k=5"},
    {"box_filter", "box_filter:w=15:h=9"},
    {"box_filter_wrap", "box_filter:w=61:h=61:border=3"},
    {"bilateral", "bilateral:space=8:color=30"},
    {"warp_affine", "warp_affine:angle=20:scale=0.8"},
    {"equalize_hist", "grayscale,levels:gain=0.4:bias=60,equalize_hist"},
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
    options png = {LUMEN_BACKEND_AUTO, 1, 0, 0, LUMEN_IO_FORMAT_PNG, 0, 0, 0, 0, 0, 0, 0};
    if (write_output(&outs[i], img, &png, err, sizeof err) || out_commit(&outs[i], err, sizeof err))
        return demo_abort(outs), fail(err);
    return 0;
}

static int cmd_demo(int argc, char **argv) {
    const char *dir = NULL;
    options o = {LUMEN_BACKEND_AUTO, 1, 0, 0, LUMEN_IO_FORMAT_PNG, 0};
    for (int i = 2, rc; i < argc; i++) {
        if (is_help(argv[i])) return usage(stdout), 0;
        if ((rc = parse_option(argc, argv, &i, &o, 1u << O_BACKEND | 1u << O_THREADS)) == 2)
            return 2;
        if (rc) continue;
        if (argv[i][0] == '-') return usage_error("unknown option '%s'", argv[i]);
        if (dir) return usage_error("demo takes one directory, not '%s'", argv[i]);
        dir = argv[i];
    }
    if (!dir) dir = "lumen-demo";
    if (check_environment()) return 2;
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
    printf("Lumen %s demo: CPU variant %s\n", lumen_version_string(), lumen_cpu_variant());
    printf("wrote %s (640x480 RGB, procedural)\n", paths[0]);

    lumen_context *ctx = NULL;
    int policy = pick_backend(&o, stdout), rc = 1;
    if (o.threads) lumen_set_num_threads(o.threads);
    if (policy >= 0)
        rc = lumen_context_create((lumen_backend)policy, &ctx) ? fail(lumen_last_error()) : 0;
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
    if (strcmp(cmd, "help") == 0 || is_help(cmd)) return usage(stdout), 0;
    if (strcmp(cmd, "--version") == 0)
        return argc == 2 ? printf("lumen %s\n", lumen_version_string()),
               0         : usage_error("--version takes no arguments%s", "");
    if (strcmp(cmd, "info") == 0)
        return argc == 2 ? cmd_info() : usage_error("info takes no arguments%s", "");
    if (strcmp(cmd, "run") == 0) return cmd_run(argc, argv, 0);
    if (strcmp(cmd, "chain") == 0) return cmd_run(argc, argv, 1);
    if (strcmp(cmd, "demo") == 0) return cmd_demo(argc, argv);
    return usage_error("unknown command '%s'", cmd);
}
