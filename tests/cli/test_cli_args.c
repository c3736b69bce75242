/* The lumen CLI as a Unix tool: --version and --help; the backend's precedence (--backend, then
 * LUMEN_BACKEND, then auto) by the backend that actually ran; invalid environment variables; every
 * wrong argument is exit 2 before anything runs, naming the option and what it takes; failures
 * while running are exit 1; the output format from the extension (JPEG, PNG, unknown); JPEG
 * input; the timing line; progress only to a terminal. Usage: test_cli_args PATH_TO_LUMEN WORK_DIR
 */
#define _XOPEN_SOURCE 700 /* posix_openpt */
#include <dirent.h>
#include <lumen/lumen_io.h>

#include "cli_util.h"

static int exists(const char *name) {
    char path[1024];
    struct stat st;
    work_path(path, sizeof path, name);
    return lstat(path, &st) == 0;
}

static void rm(const char *name) {
    char path[1024];
    work_path(path, sizeof path, name);
    remove(path);
}

/* The first bytes of a file in WORK_DIR ("" if none). */
static int starts_with(const char *name, const char *magic, size_t n) {
    char path[1024], buf[8] = {0};
    work_path(path, sizeof path, name);
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(buf, 1, n, f) : 0;
    if (f) fclose(f);
    return got == n && memcmp(buf, magic, n) == 0;
}
#define PNG_MAGIC "\x89PNG\r\n\x1a\n", 8
#define JPEG_MAGIC "\xff\xd8\xff", 3

static long file_size(const char *name) {
    char path[1024];
    struct stat st;
    work_path(path, sizeof path, name);
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Entries of a directory in WORK_DIR, temporary files included. */
static int entries(const char *name) {
    char path[1024];
    work_path(path, sizeof path, name);
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.' || e->d_name[1] > '.';
    if (d) closedir(d);
    return d ? n : -1;
}

static void check_version_help(void) {
    char want[64];
    snprintf(want, sizeof want, "lumen %s\n", lumen_version_string());
    int rc = lumen("--version");
    CHECK(rc == 0 && strcmp(out_text, want) == 0 && !err_text[0],
          "--version: exit %d, stdout '%s' (want '%s')", rc, out_text, want);
    CHECK(strcmp(lumen_version_string(), LUMEN_VERSION_STRING) == 0, "library %s, header %s",
          lumen_version_string(), LUMEN_VERSION_STRING);
    static const char *const helps[] = {"-h",         "--help",   "help",
                                        "run --help", "chain -h", "demo --help"};
    for (size_t i = 0; i < sizeof helps / sizeof *helps; i++) {
        rc = lumen(helps[i]);
        CHECK(rc == 0 && strstr(out_text, "usage: lumen run") && strstr(out_text, "--backend") &&
                  strstr(out_text, "gaussian_blur") && strstr(out_text, "LUMEN_BACKEND") &&
                  !err_text[0],
              "'%s': exit %d, stderr %s", helps[i], rc, err_text);
    }
}

/* Which backend ran: the "backend:" line and the stage's "on ..." line agree. */
static void check_precedence(void) {
    static const struct {
        const char *env, *args, *line, *on;
    } cases[] = {
        {"LUMEN_MAX_CPU_ISA=", "", "backend: cpu (auto, the default; driver probe", "on cpu"},
        {"LUMEN_BACKEND=", "", "backend: cpu (auto, the default;", "on cpu"},
        {"LUMEN_BACKEND=opencl", "", "backend: opencl (LUMEN_BACKEND; driver probe", "on opencl"},
        {"LUMEN_BACKEND=cpu", "", "backend: cpu (LUMEN_BACKEND)", "on cpu"},
        {"LUMEN_BACKEND=opencl", "--backend cpu", "backend: cpu (--backend)", "on cpu"},
        {"LUMEN_BACKEND=cpu", "--backend opencl", "backend: opencl (--backend;", "on opencl"},
        {"LUMEN_BACKEND=opencl", "--backend=auto", "backend: cpu (auto, --backend;", "on cpu"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_opts r = {.env = {cases[i].env}};
        char args[256];
        snprintf(args, sizeof args, "run levels rgb.png o.png %s", cases[i].args);
        int rc = lumen_with(&r, args);
        CHECK(rc == 0 && strstr(out_text, cases[i].line) && strstr(out_text, cases[i].on),
              "%s lumen %s: exit %d, want '%s' and '%s' in: %s%s", cases[i].env, args, rc,
              cases[i].line, cases[i].on, out_text, err_text);
    }
    /* chain and demo too (demo: LUMEN_BACKEND=cpu vs --backend). */
    run_opts r = {.env = {"LUMEN_BACKEND=opencl"}};
    int rc = lumen_with(&r, "chain levels,grayscale rgb.png o.png");
    CHECK(rc == 0 && strstr(out_text, "backend: opencl (LUMEN_BACKEND"), "chain: %s", out_text);
    r.env[0] = "LUMEN_BACKEND=cpu";
    rc = lumen_with(&r, "demo demo-cpu");
    CHECK(rc == 0 && strstr(out_text, "backend: cpu (LUMEN_BACKEND)"), "demo: %s%s", out_text,
          err_text);
    rc = lumen_with(&r, "demo demo-cpu --backend auto");
    CHECK(rc == 0 && strstr(out_text, "backend: cpu (auto, --backend"), "demo: %s", out_text);
}

/* An invalid LUMEN_BACKEND / LUMEN_MAX_CPU_ISA: run, chain, demo exit 2 naming it and the valid
 * values (with --backend too), nothing written; info shows it, and the library ignores it. */
static void check_environment(void) {
    static const struct {
        const char *env, *args, *valid;
    } cases[] = {
        {"LUMEN_BACKEND=bogus", "run levels rgb.png o.png", "auto, cpu, cuda, opencl"},
        {"LUMEN_BACKEND=bogus", "run levels rgb.png o.png --backend cpu",
         "auto, cpu, cuda, opencl"},
        {"LUMEN_BACKEND=OpenCL", "chain levels rgb.png o.png", "auto, cpu, cuda, opencl"},
        {"LUMEN_BACKEND=bogus", "demo demo-env", "auto, cpu, cuda, opencl"},
        {"LUMEN_MAX_CPU_ISA=foo", "run levels rgb.png o.png", "baseline, sse41, avx2, avx512"},
        {"LUMEN_MAX_CPU_ISA=foo", "demo demo-env", "baseline, sse41, avx2, avx512"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_opts r = {.env = {cases[i].env}};
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(cases[i].env, '=') - cases[i].env),
                 cases[i].env);
        rm("o.png");
        int rc = lumen_with(&r, cases[i].args);
        CHECK(rc == 2 && strstr(err_text, name) &&
                  strstr(err_text, strchr(cases[i].env, '=') + 1) &&
                  strstr(err_text, cases[i].valid) && !out_text[0] && !exists("o.png") &&
                  entries("demo-env") <= 0,
              "%s lumen %s: exit %d, stderr: %s", cases[i].env, cases[i].args, rc, err_text);
    }
    run_opts r = {.env = {"LUMEN_BACKEND=bogus", "LUMEN_MAX_CPU_ISA=foo"}};
    int rc = lumen_with(&r, "info");
    char variant[64]; /* an invalid cap is no cap: this process's variant (if uncapped) */
    snprintf(variant, sizeof variant, "cpu variant:    %s", lumen_cpu_variant());
    CHECK(rc == 0 && strstr(out_text, "default policy: auto (LUMEN_BACKEND='bogus' ignored)") &&
              strstr(out_text, "warning:        ") &&
              strstr(out_text, "LUMEN_BACKEND='bogus' is not one of auto, cpu, cuda, opencl") &&
              strstr(out_text,
                     "LUMEN_MAX_CPU_ISA='foo' is not one of baseline, sse41, avx2, "
                     "avx512") &&
              strstr(out_text, "ignored") &&
              (getenv("LUMEN_MAX_CPU_ISA") || strstr(out_text, variant)),
          "info with both invalid: exit %d: %s", rc, out_text);
    r.env[0] = "LUMEN_BACKEND=cpu", r.env[1] = "LUMEN_MAX_CPU_ISA=sse41";
    rc = lumen_with(&r, "info");
    CHECK(rc == 0 && !strstr(out_text, "warning") &&
              strstr(out_text, "default policy: cpu (LUMEN_BACKEND=cpu)") &&
              strstr(out_text, "cpu variant:    sse41"),
          "info with valid variables: %s", out_text);
}

/* Wrong arguments: exit 2, "lumen: " and the named option/value on stderr, nothing run (no
 * report), no output file. */
static void check_usage_errors(void) {
    static const char *const cases[][3] = {
        /* args, what the message must name, and what else */
        {"", "no command", ""},
        {"frobnicate", "frobnicate", ""},
        {"info extra", "info", ""},
        {"--version extra", "--version", ""},
        {"run", "PIPELINE IN OUT", ""},
        {"run levels rgb.png", "PIPELINE IN OUT", ""},
        {"run levels rgb.png o.png extra", "extra", ""},
        {"run warp rgb.png o.png", "warp", ""},
        {"run levels rgb.png o.png --fast", "--fast", ""},
        {"run levels rgb.png o.png --param", "--param", "K=V"},
        {"run levels rgb.png o.png -p brightness=2", "brightness", "gain"},
        {"run levels rgb.png o.png --repeat 0", "--repeat '0'", "1..1000000"},
        {"run levels rgb.png o.png --repeat 2x", "--repeat '2x'", "1..1000000"},
        {"run levels rgb.png o.png --repeat", "--repeat", "needs a value"},
        {"run levels rgb.png o.png --repeat 2 --repeat=3", "--repeat", "twice"},
        {"run levels rgb.png o.png --threads -1", "--threads '-1'", "0..256"},
        {"run levels rgb.png o.png --threads 100000", "--threads", "0..256"},
        {"run levels rgb.png o.png --backend vulkan", "--backend 'vulkan'",
         "auto, cpu, cuda, opencl"},
        {"run levels rgb.png o.png --backend cpu --backend opencl", "--backend", "twice"},
        {"run levels rgb.png o.png --format gif", "--format 'gif'",
         "png, jpeg, nv12, nv21 or i420"},
        {"run levels rgb.png o.png --format jpeg", "--format jpeg", "conflicts"},
        {"run levels rgb.png o.png --quality 50", "--quality", "JPEG"},
        {"run levels rgb.png o.jpg --quality 0", "--quality '0'", "1..100"},
        {"run levels rgb.png o.jpg --quality 101", "--quality '101'", "1..100"},
        {"run levels rgb.png o.bmp", "o.bmp", ".png, .jpg or .jpeg"},
        {"run levels rgb.png o", "'o'", ".png, .jpg or .jpeg"},
        {"run levels rgb.png o.png -p gain=abc", "gain=abc", "-256..256"},
        {"run levels rgb.png o.png -p gain=300", "gain=300", "-256..256"},
        {"run levels rgb.png o.png -p bias=-2000", "bias=-2000", "-1024..1024"},
        {"run levels rgb.png o.png -p gain", "gain=", "-256..256"},
        {"run levels rgb.png o.png -p gain=1 -p gain=2", "gain", "twice"},
        {"run gaussian_blur rgb.png o.png -p sigma=abc", "sigma=abc", "0.5..16"},
        {"run gaussian_blur rgb.png o.png -p sigma=0.2", "sigma=0.2", "0.5..16"},
        {"run gaussian_blur rgb.png o.png -p sigma=40", "sigma=40", "0.5..16"},
        {"run gaussian_blur rgb.png o.png -p sigma=nan", "sigma=nan", "0.5..16"},
        {"run unsharp_mask rgb.png o.png -p amount=-1", "amount=-1", "0..16"},
        {"run rotate rgb.png o.png -p degrees=45", "degrees=45", "90, 180 or 270"},
        {"run threshold rgb.png o.png -p type=7", "type=7", "to_zero_inv"},
        {"run resize rgb.png o.png", "resize needs", "w=W"},
        {"run resize rgb.png o.png -p w=0", "w=0", "1..65535"},
        {"run resize rgb.png o.png -p w=10.5", "w=10.5", "integer"},
        {"run resize rgb.png o.png -p h=70000", "h=70000", "1..65535"},
        {"run resize rgb.png o.png -p scale=0", "scale=0", "> 0"},
        {"run resize rgb.png o.png -p w=9 -p interp=4", "interp=4", "64 (lanczos3)"},
        {"run resize rgb.png o.png -p w=9 -p interp=5", "interp=5", "3 (area) or 64"},
        {"run median rgb.png o.png -p border=5", "border=5", "4 (reflect-101)"},
        {"run warp_affine rgb.png o.png -p border=4", "border=4", "1 (replicate)"},
        {"run resize rgb.png o.png -p w=9 -p interp=65", "interp=65", "64 (lanczos3)"},
        {"run resize rgb.png o.png --param scale=0.5 --param w=300", "scale", "conflicts"},
        {"chain gaussian_blur:sigma=1:sigma=2 rgb.png o.png", "sigma", "twice"},
        {"chain resize:scale=2:h=3 rgb.png o.png", "scale", "conflicts"},
        {"chain \"levels,blur\" rgb.png o.png", "blur", ""},
        {"chain levels rgb.png o.png -p gain=2", "-p", ""},
        {"demo a b", "one directory", ""},
        {"demo --repeat 3", "--repeat", ""},
        {"demo --backend gpu", "--backend 'gpu'", "auto, cpu, cuda, opencl"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rm("o.png"), rm("o.jpg"), rm("o.bmp"), rm("o");
        int rc = lumen(cases[i][0]);
        CHECK(rc == 2 && strstr(err_text, "lumen: ") == err_text && strstr(err_text, cases[i][1]) &&
                  strstr(err_text, cases[i][2]) && !out_text[0] && !exists("o.png") &&
                  !exists("o.jpg") && !exists("o.bmp") && !exists("o") && !exists("a"),
              "'%s': exit %d (want 2), stderr (want '%s', '%s'): %s", cases[i][0], rc, cases[i][1],
              cases[i][2], err_text);
    }
    CHECK(!exists("a") && !exists("lumen-demo"), "demo made a directory");
}

/* Failures while running: exit 1, one line naming the problem, no output file. */
static void check_runtime_errors(void) {
    static const char *const cases[][2] = {
        {"run levels missing.png o.png", "missing.png"},
        {"run levels notimage.png o.png", "notimage.png"},
        {"run sobel rgb.png o.png", "grayscale before it"},
        {"chain sobel rgb.png o.png", "grayscale before it"},
        {"run grayscale gray.png o.png", "gray already"},
        {"run levels rgba.png o.jpg", "RGBA"},
        {"run levels rgb.png o.png --backend cuda", "unavailable"},
        {"run resize rgb.png o.png -p scale=5000", "65535"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rm("o.png"), rm("o.jpg");
        int rc = lumen(cases[i][0]);
        CHECK(rc == 1 && lines(err_text) == 1 && strstr(err_text, cases[i][1]) &&
                  !exists("o.png") && !exists("o.jpg"),
              "'%s': exit %d (want 1), stderr: %s", cases[i][0], rc, err_text);
    }
}

/* The output format from the extension; '-' is PNG unless --format; --quality applies. */
static void check_formats(void) {
    static const char *const jpegs[] = {"x.jpg", "x.jpeg", "X.JPG"};
    for (size_t i = 0; i < 3; i++) {
        char args[128];
        snprintf(args, sizeof args, "run levels rgb.png %s", jpegs[i]);
        int rc = lumen(args);
        CHECK(rc == 0 && starts_with(jpegs[i], JPEG_MAGIC) && strstr(out_text, "jpeg"),
              "%s: exit %d, not JPEG: %s", args, rc, err_text);
    }
    CHECK(lumen("run levels rgb.png x.png") == 0 && starts_with("x.png", PNG_MAGIC), "x.png: %s",
          err_text);
    run_opts r = {.out = "piped"};
    CHECK(lumen_with(&r, "run levels rgb.png -") == 0 && starts_with("piped", PNG_MAGIC),
          "stdout not PNG: %s", err_text);
    CHECK(lumen_with(&r, "run levels rgb.png - --format jpeg") == 0 &&
              starts_with("piped", JPEG_MAGIC),
          "stdout --format jpeg not JPEG: %s", err_text);
    CHECK(lumen("run levels rgb.png x.img --format jpeg") == 0 && starts_with("x.img", JPEG_MAGIC),
          "x.img --format jpeg: %s", err_text);
    CHECK(lumen("run levels rgb.png x.jpg --format=jpeg") == 0, "agreeing --format: %s", err_text);
    /* An unknown extension: exit 2 and nothing in the directory, no temporary file either. */
    char path[1024];
    work_path(path, sizeof path, "fmt");
    mkdir(path, 0777);
    CHECK(lumen("run levels rgb.png fmt/x.bmp") == 2 && entries("fmt") == 0, "fmt/x.bmp: %d, %s",
          entries("fmt"), err_text);
    CHECK(lumen("run levels rgb.png q10.jpg --quality 10") == 0 &&
              lumen("run levels rgb.png q95.jpg --quality=95") == 0 && file_size("q10.jpg") > 0 &&
              file_size("q10.jpg") < file_size("q95.jpg"),
          "--quality: %ld vs %ld bytes", file_size("q10.jpg"), file_size("q95.jpg"));
}

/* JPEG input (file and stdin) gives what lumen_io_read + the library give. */
static void check_jpeg_input(void) {
    static const char *const ins[] = {"rgb.png", "gray.png"};
    for (int i = 0; i < 2; i++) {
        char png[1024], jpg[1024], args[256];
        work_path(png, sizeof png, ins[i]);
        work_path(jpg, sizeof jpg, "in.jpg");
        lumen_image *src = NULL, *decoded = NULL, *want = NULL, *got = NULL;
        CHECK_OK(lumen_io_read(png, &src));
        CHECK_OK(lumen_io_write(jpg, src, NULL));
        CHECK_OK(lumen_io_read(jpg, &decoded));
        if (!decoded) continue;
        want = new_like(decoded, 0, 0, 0);
        lumen_levels(NULL, decoded, want, 1.5f, 0.0f);
        snprintf(args, sizeof args, "run levels in.jpg o.png -p gain=1.5");
        CHECK(lumen(args) == 0, "%s: %s", args, err_text);
        got = read_png("o.png");
        CHECK(t_same_pixels(got, want), "JPEG input (%s) differs from the library", ins[i]);
        lumen_image_destroy(got);
        run_opts r = {.in = "in.jpg", .out = "piped.png"};
        CHECK(lumen_with(&r, "run levels - - -p gain=1.5") == 0, "JPEG on stdin: %s", err_text);
        got = read_png("piped.png");
        CHECK(t_same_pixels(got, want), "JPEG on stdin (%s) differs from the library", ins[i]);
        lumen_image_destroy(got), lumen_image_destroy(want);
        lumen_image_destroy(decoded), lumen_image_destroy(src);
    }
}

/* The timing line: the first run apart from the steady state. */
static void check_timing(void) {
    int rc = lumen("run levels rgb.png o.png --backend cpu");
    CHECK(rc == 0 && strstr(out_text, "time: first run ") && strstr(out_text, "--repeat N") &&
              !strstr(out_text, "per run"),
          "one run: %s", out_text);
    run_opts r = {.env = {"LUMEN_BACKEND=auto"}}; /* a preset may set LUMEN_BACKEND=cpu */
    rc = lumen_with(&r, "run levels rgb.png o.png --repeat 5");
    const char *t = strstr(out_text, "time: first run ");
    double first = -1, steady = -1;
    if (t) sscanf(t, "time: first run %lf ms; steady state %lf ms per run", &first, &steady);
    CHECK(rc == 0 && first > 0 && steady > 0 && strstr(out_text, "median of the 4 later runs") &&
              strstr(out_text, "megapixels/s") && strstr(out_text, "driver probe"),
          "--repeat 5: first %g, steady %g: %s", first, steady, out_text);
}

/* A progress counter ("\rN/M runs") only when stderr is a terminal (a run over 0.5 s). */
static void check_progress(void) {
    write_png("big.png", 1500, 1000, PNG_FORMAT_RGB);
    const char *args = "run gaussian_blur big.png o.png -p sigma=8 --repeat 100 --backend cpu";
    int rc = lumen(args);
    CHECK(rc == 0 && !strchr(err_text, '\r') && !strchr(out_text, '\r'),
          "stderr not a terminal: exit %d, progress written", rc);
    int pty = posix_openpt(O_RDWR | O_NOCTTY);
    const char *slave = pty >= 0 && grantpt(pty) == 0 && unlockpt(pty) == 0 ? ptsname(pty) : NULL;
    if (!slave) {
        printf("note: no pseudo-terminal here; progress on a terminal not checked\n");
        if (pty >= 0) close(pty);
        return;
    }
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' %s >/dev/null 2>'%s'", work, cli, args, slave);
    int status = system(cmd);
    char buf[4096] = {0};
    fcntl(pty, F_SETFL, O_NONBLOCK);
    ssize_t n = read(pty, buf, sizeof buf - 1);
    close(pty);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && n > 0 && strstr(buf, "\r") &&
              strstr(buf, "/100 runs"),
          "stderr a terminal: status %d, no progress (%zd bytes)", status, n);
}

int main(int argc, char **argv) {
    if (!cli_test_init(argc, argv)) return 2;
    write_png("rgb.png", 67, 45, PNG_FORMAT_RGB);
    write_png("rgba.png", 40, 33, PNG_FORMAT_RGBA);
    write_png("gray.png", 51, 29, PNG_FORMAT_GRAY);
    char path[1024];
    work_path(path, sizeof path, "notimage.png");
    FILE *f = fopen(path, "wb");
    if (f) fputs("GIF89a, not an image Lumen reads", f), fclose(f);
    check_version_help();
    check_precedence();
    check_environment();
    check_usage_errors();
    check_runtime_errors();
    check_formats();
    check_jpeg_input();
    check_timing();
    check_progress();
    return t_summary();
}
