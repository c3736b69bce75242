/* The lumen CLI never destroys files: outputs it cannot or must not write are refused before
 * anything runs (exit 2, nothing printed to stdout, nothing created or removed), a write that
 * fails partway (RLIMIT_FSIZE) leaves the previous file byte-identical and no temporary file,
 * device nodes, FIFOs, directories and symlinks survive, "-" is stdin/stdout. For run, chain
 * and demo. Usage: test_cli_output PATH_TO_LUMEN WORK_DIR */
#define _DEFAULT_SOURCE   /* mknod, makedev */
#define _XOPEN_SOURCE 700 /* posix_openpt */
#include <dirent.h>
#include <sys/sysmacros.h>

#include "cli_util.h"

static lumen_image *want; /* rgb.png through levels gain=1.5 */

/* The bytes of a file (malloc'd, NULL if it cannot be read); *size gets the length. */
static char *slurp(const char *name, size_t *size) {
    char path[1024];
    work_path(path, sizeof path, name);
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc(1 << 20) : NULL;
    *size = buf ? fread(buf, 1, 1 << 20, f) : 0;
    if (f) fclose(f);
    return buf;
}

static void put(const char *name, const char *text) {
    char path[1024];
    work_path(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    if (f) fputs(text, f), fclose(f);
}

static int same_bytes(const char *name, const char *text) {
    size_t n;
    char *got = slurp(name, &n);
    int ok = got && n == strlen(text) && memcmp(got, text, n) == 0;
    free(got);
    return ok;
}

/* How many entries a directory in WORK_DIR has (. and .. not counted); -1 if none. */
static int entries(const char *name) {
    char path[1024];
    work_path(path, sizeof path, name);
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static mode_t lmode(const char *name) {
    char path[1024];
    struct stat st;
    work_path(path, sizeof path, name);
    return lstat(path, &st) == 0 ? st.st_mode : 0;
}

static void fresh_dir(const char *name) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/%s' && mkdir '%s/%s'", work, name, work, name);
    if (system(cmd) != 0) printf("cannot make %s\n", name);
}

/* A refusal: exit 2, one line naming the path, nothing run (no report on stdout). */
static void check_refused(const run_opts *r, const char *args, const char *path, const char *why) {
    int rc = lumen_with(r, args);
    CHECK(rc == 2 && lines(err_text) == 1 && strstr(err_text, path) && strstr(err_text, why) &&
              !out_text[0],
          "'%s': exit %d (want 2), stderr: %s, stdout: %s", args, rc, err_text, out_text);
}

static void check_written(const char *args, const char *name) {
    int rc = lumen(args);
    CHECK(rc == 0, "'%s': exit %d: %s", args, rc, err_text);
    lumen_image *got = read_png(name);
    CHECK(t_same_pixels(got, want), "'%s': %s is not the expected image", args, name);
    lumen_image_destroy(got);
}

/* (a) Outputs that cannot be written: exit 2 before anything runs. */
static void check_unwritable(void) {
    run_opts r = {0};
    check_refused(&r, "run levels rgb.png no-such-dir/o.png", "no-such-dir/o.png",
                  "does not exist");
    check_refused(&r, "chain levels,grayscale rgb.png no-such-dir/o.png", "no-such-dir/o.png",
                  "does not exist");
    CHECK(lmode("no-such-dir") == 0, "no-such-dir was created");
    check_refused(&r, "run levels rgb.png rgb.png/o.png", "rgb.png/o.png", "ot a directory");
    check_refused(&r, "run levels rgb.png /proc/lumen-test.png", "/proc/lumen-test.png", "");
    check_refused(&r, "run levels rgb.png ''", "cannot write", "");

    /* No permission. Root ignores file modes, so as root lumen runs as uid 65534 here. */
    fresh_dir("ro");
    put("ro/old.png", "old");
    char path[1024];
    work_path(path, sizeof path, "ro");
    chmod(path, 0555);
    r.unprivileged = 1;
    if (lumen_with(&r, "help") != 0) { /* no setuid, or uid 65534 cannot reach lumen */
        printf("note: cannot run lumen as uid 65534 (%s); no-permission cases skipped\n", err_text);
        return;
    }
    check_refused(&r, "run levels rgb.png ro/o.png", "ro/o.png", "Permission denied");
    CHECK(entries("ro") == 1, "ro/: %d entries, want 1", entries("ro"));
    put("readonly.png", "old");
    work_path(path, sizeof path, "readonly.png");
    chmod(path, 0444);
    check_refused(&r, "run levels rgb.png readonly.png", "readonly.png", "Permission denied");
    CHECK(same_bytes("readonly.png", "old"), "readonly.png was changed");
}

/* (d) Not regular files: refused, and still there. */
static void check_not_regular(void) {
    run_opts r = {.timeout = 10}; /* writing to a FIFO without a reader would block */
    char path[1024], dev[1024];
    work_path(path, sizeof path, "fifo.png");
    remove(path);
    CHECK(mkfifo(path, 0666) == 0, "mkfifo %s", path);
    check_refused(&r, "run levels rgb.png fifo.png", "fifo.png", "FIFO");
    CHECK(S_ISFIFO(lmode("fifo.png")), "fifo.png is gone");

    /* Device nodes of our own, as /dev/null and /dev/full (writes fail with ENOSPC). */
    static const char *const nodes[][2] = {{"null.png", "3"}, {"full.png", "7"}};
    for (int i = 0; i < 2; i++) {
        work_path(dev, sizeof dev, nodes[i][0]);
        remove(dev);
        if (mknod(dev, S_IFCHR | 0666, makedev(1, (unsigned)atoi(nodes[i][1]))) != 0) {
            printf("note: no mknod here; /dev/null instead of %s\n", nodes[i][0]);
            snprintf(dev, sizeof dev, "/dev/null");
        }
        char args[1200];
        snprintf(args, sizeof args, "run levels rgb.png '%s'", dev);
        check_refused(&r, args, dev, "character device");
        struct stat st;
        CHECK(lstat(dev, &st) == 0 && S_ISCHR(st.st_mode), "%s is gone", dev);
    }
    fresh_dir("outdir");
    check_refused(&r, "run levels rgb.png outdir", "outdir", "directory");
    check_refused(&r, "run levels rgb.png outdir/", "outdir/", "directory");
    CHECK(S_ISDIR(lmode("outdir")) && entries("outdir") == 0, "outdir changed");

    /* Symlinks: to a FIFO refused, dangling refused (nothing created through it). */
    work_path(path, sizeof path, "to-fifo.png");
    remove(path);
    CHECK(symlink("fifo.png", path) == 0, "symlink");
    check_refused(&r, "run levels rgb.png to-fifo.png", "to-fifo.png", "symlink to a FIFO");
    CHECK(S_ISLNK(lmode("to-fifo.png")) && S_ISFIFO(lmode("fifo.png")), "to-fifo.png or fifo.png");
    work_path(path, sizeof path, "dangling.png");
    remove(path);
    CHECK(symlink("nowhere.png", path) == 0, "symlink");
    check_refused(&r, "run levels rgb.png dangling.png", "dangling.png", "does not exist");
    CHECK(S_ISLNK(lmode("dangling.png")) && !lmode("nowhere.png"), "dangling.png written through");
}

/* (b, c) A write that fails partway (file size limit below the PNG's size) leaves the previous
 * output byte-identical, with nothing else in its directory. */
static void check_failed_write(void) {
    run_opts r = {.fsize = 2000};
    fresh_dir("keep");
    put("keep/o.png", "previous output");
    const char *const cmds[] = {"run levels rgb.png keep/o.png -p gain=1.5 --backend cpu",
                                "chain levels:gain=1.5 rgb.png keep/o.png --backend cpu"};
    for (int i = 0; i < 2; i++) {
        int rc = lumen_with(&r, cmds[i]);
        CHECK(rc == 1 && lines(err_text) == 1 && strstr(err_text, "keep/o.png"),
              "'%s' under a 2000-byte limit: exit %d (want 1): %s", cmds[i], rc, err_text);
        CHECK(same_bytes("keep/o.png", "previous output"), "'%s': keep/o.png changed", cmds[i]);
        CHECK(entries("keep") == 1, "'%s': keep/ has %d entries, want 1", cmds[i], entries("keep"));
    }
    /* SIGXFSZ not ignored by the caller: lumen ignores it itself and reports the failure. */
    r.xfsz_default = 1;
    int rc = lumen_with(&r, cmds[0]);
    CHECK(rc == 1 && strstr(err_text, "keep/o.png") &&
              same_bytes("keep/o.png", "previous output") && entries("keep") == 1,
          "with SIGXFSZ's default action: exit %d, %d entries: %s", rc, entries("keep"), err_text);
    r.xfsz_default = 0;
    /* Killed by SIGTERM while its temporary file exists: that file goes, the output stays. */
    char cmd[2048];
    snprintf(
        cmd, sizeof cmd,
        "cd '%s' && rm -f seen.txt && { '%s' run gaussian_blur rgb.png keep/o.png --repeat "
        "1000000 --backend cpu >/dev/null 2>&1 & for i in $(seq 200); do if [ \"$(ls -A keep "
        "| wc -l)\" -ge 2 ]; then echo seen >seen.txt; break; fi; sleep 0.05; done; kill -TERM "
        "$!; wait $!; } 2>/dev/null",
        work, cli);
    int status = system(cmd);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM && lmode("seen.txt") &&
              same_bytes("keep/o.png", "previous output") && entries("keep") == 1,
          "killed by SIGTERM: status %d, temporary file seen: %s, %d entries", status,
          lmode("seen.txt") ? "yes" : "no", entries("keep"));
    /* A pipeline that fails leaves it too. */
    CHECK(lumen("run sobel rgb.png keep/o.png") == 1, "sobel on RGB: %s", err_text);
    CHECK(same_bytes("keep/o.png", "previous output") && entries("keep") == 1, "after sobel");

    /* Through a symlink: the link and its target both survive a failed write. */
    char path[1024];
    work_path(path, sizeof path, "keep/link.png");
    CHECK(symlink("o.png", path) == 0, "symlink");
    rc = lumen_with(&r, "run levels rgb.png keep/link.png --backend cpu");
    CHECK(rc == 1 && S_ISLNK(lmode("keep/link.png")) &&
              same_bytes("keep/o.png", "previous output") && entries("keep") == 2,
          "failed write through keep/link.png: exit %d, %d entries: %s", rc, entries("keep"),
          err_text);
    /* and a successful one replaces the target, keeping the link and the target's mode. */
    work_path(path, sizeof path, "keep/o.png");
    chmod(path, 0640);
    check_written("run levels rgb.png keep/link.png -p gain=1.5", "keep/o.png");
    char target[64] = {0};
    work_path(path, sizeof path, "keep/link.png");
    CHECK(readlink(path, target, sizeof target - 1) == 5 && strcmp(target, "o.png") == 0 &&
              (lmode("keep/o.png") & 07777) == 0640 && entries("keep") == 2,
          "after writing through keep/link.png: link -> '%s', mode %o, %d entries", target,
          lmode("keep/o.png") & 07777, entries("keep"));
    /* A new file gets 0666 & ~umask (022 here). */
    check_written("run levels rgb.png keep/new.png -p gain=1.5", "keep/new.png");
    CHECK((lmode("keep/new.png") & 07777) == 0644, "new file mode %o", lmode("keep/new.png"));
}

/* "-": PNG from stdin and to stdout (the report then goes to stderr). */
static void check_stdio(void) {
    run_opts r = {.in = "rgb.png", .out = "piped.png"};
    int rc = lumen_with(&r, "run levels - - -p gain=1.5");
    CHECK(rc == 0 && strstr(err_text, "levels"), "stdin to stdout: exit %d: %s", rc, err_text);
    lumen_image *got = read_png("piped.png");
    CHECK(t_same_pixels(got, want), "stdin to stdout: not the expected image");
    lumen_image_destroy(got);
    r.in = NULL;
    rc = lumen_with(&r, "chain levels:gain=1.5 rgb.png -");
    got = read_png("piped.png");
    CHECK(rc == 0 && t_same_pixels(got, want), "chain to stdout: exit %d: %s", rc, err_text);
    lumen_image_destroy(got);
    r.in = "rgb.png", r.out = NULL;
    rc = lumen_with(&r, "run levels - from-stdin.png -p gain=1.5");
    CHECK(rc == 0 && strstr(out_text, "wrote from-stdin.png"), "stdin: exit %d: %s", rc, err_text);
    got = read_png("from-stdin.png");
    CHECK(t_same_pixels(got, want), "from stdin: not the expected image");
    lumen_image_destroy(got);
    /* No PNG to a terminal. */
    int pty = posix_openpt(O_RDWR | O_NOCTTY);
    if (pty >= 0 && grantpt(pty) == 0 && unlockpt(pty) == 0 && ptsname(pty)) {
        r.in = NULL, r.out = ptsname(pty);
        check_refused(&r, "run levels rgb.png -", "-", "terminal");
    } else {
        printf("note: no pseudo-terminal here; PNG to a terminal not checked\n");
    }
    if (pty >= 0) close(pty);
}

/* demo: the same rules for each file it writes, all checked before the first is written. */
static void check_demo(void) {
    run_opts r = {.timeout = 30};
    char path[1024];
    fresh_dir("demo-fifo");
    work_path(path, sizeof path, "demo-fifo/levels.png");
    CHECK(mkfifo(path, 0666) == 0, "mkfifo");
    check_refused(&r, "demo demo-fifo", "demo-fifo/levels.png", "FIFO");
    CHECK(entries("demo-fifo") == 1 && S_ISFIFO(lmode("demo-fifo/levels.png")), "demo-fifo: %d",
          entries("demo-fifo"));
    put("demo-file", "a file");
    check_refused(&r, "demo demo-file", "demo-file", "not a directory");
    CHECK(same_bytes("demo-file", "a file"), "demo-file changed");
    check_refused(&r, "demo no-such-dir/demo", "no-such-dir/demo", "");

    fresh_dir("demo-keep");
    put("demo-keep/sample.png", "previous sample");
    r.fsize = 2000;
    int rc = lumen_with(&r, "demo demo-keep");
    CHECK(rc == 1 && same_bytes("demo-keep/sample.png", "previous sample") &&
              entries("demo-keep") == 1,
          "demo under a 2000-byte limit: exit %d, %d entries: %s", rc, entries("demo-keep"),
          err_text);
}

int main(int argc, char **argv) {
    if (!cli_test_init(argc, argv)) return 2;
    umask(022);
    write_png("rgb.png", 67, 45, PNG_FORMAT_RGB); /* about 9 kB: random pixels do not compress */
    lumen_image *rgb = read_png("rgb.png");
    want = new_like(rgb, 0, 0, 0);
    lumen_levels(NULL, rgb, want, 1.5f, 0.0f);
    check_unwritable();
    check_not_regular();
    check_failed_write();
    check_stdio();
    check_demo();
    lumen_image_destroy(want), lumen_image_destroy(rgb);
    return t_summary();
}
