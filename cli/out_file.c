#define _XOPEN_SOURCE 700 /* realpath, fchmod, fchown, fsync */
#include "out_file.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Temporary files now open: removed if a signal ends the process. */
enum { MAX_OPEN = 16 };
static out_file *volatile open_files[MAX_OPEN];

static void on_signal(int sig) {
    for (int i = 0; i < MAX_OPEN; i++)
        if (open_files[i] && open_files[i]->tmp[0]) unlink(open_files[i]->tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Once: SIGINT, SIGTERM, SIGHUP, SIGPIPE remove the temporary files (unless ignored, as under
 * nohup); SIGXFSZ is ignored, so a file size limit fails the write (EFBIG) and is reported. */
static void handle_signals(void) {
    static int done;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    if (done++) return;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            signal(sigs[i], on_signal);
    }
    signal(SIGXFSZ, SIG_IGN);
}

static void track(out_file *o, int on) {
    for (int i = 0; i < MAX_OPEN; i++) {
        if (on && !open_files[i]) return (void)(open_files[i] = o);
        if (!on && open_files[i] == o) return (void)(open_files[i] = NULL);
    }
}

static const char *kind(mode_t m) {
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

static int failed(char *err, size_t err_size, const char *path, const char *what) {
    snprintf(err, err_size, "cannot write %s: %s", path, what);
    return -1;
}

int out_open(out_file *o, const char *path, char *err, size_t err_size) {
    memset(o, 0, sizeof *o);
    o->path = path;
    handle_signals();
    if (strcmp(path, "-") == 0) {
        if (isatty(STDOUT_FILENO)) return failed(err, err_size, "-", "stdout is a terminal");
        o->f = stdout;
        return 0;
    }
    struct stat st;
    if (strlen(path) >= sizeof o->target) return failed(err, err_size, path, "path too long");
    snprintf(o->target, sizeof o->target, "%s", path);
    if (lstat(path, &st) == 0) {
        int link = S_ISLNK(st.st_mode);
        if (link && (!realpath(path, o->target) || stat(o->target, &st) != 0))
            return failed(err, err_size, path, "a symlink to a file that does not exist");
        if (!S_ISREG(st.st_mode)) {
            char why[128];
            snprintf(why, sizeof why, "%s%s (only regular files are written; '-' is stdout)",
                     link ? "a symlink to " : "", kind(st.st_mode));
            return failed(err, err_size, path, why);
        }
        if (access(o->target, W_OK) != 0) return failed(err, err_size, path, strerror(errno));
        o->existed = 1, o->old = st, o->mode = st.st_mode & 07777;
    } else if (errno != ENOENT) {
        return failed(err, err_size, path, strerror(errno));
    } else {
        mode_t mask = umask(0);
        umask(mask);
        o->mode = 0666 & ~mask;
    }
    /* The temporary file: DIR/.NAME.XXXXXX beside the target. */
    char dir[PATH_MAX], why[PATH_MAX + 64];
    const char *slash = strrchr(o->target, '/'), *name = slash ? slash + 1 : o->target;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - o->target) + (slash == o->target) : 1,
             slash ? o->target : ".");
    if (!*name) return failed(err, err_size, path, "no file name");
    errno = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, sizeof why, "directory %s %s", dir,
                 errno == ENOENT ? "does not exist"
                 : errno         ? strerror(errno)
                                 : "is not a directory");
        return failed(err, err_size, path, why);
    }
    if ((size_t)snprintf(o->tmp, sizeof o->tmp, "%s/.%s.XXXXXX", dir, name) >= sizeof o->tmp)
        return o->tmp[0] = 0, failed(err, err_size, path, "path too long");
    int fd = mkstemp(o->tmp);
    if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
        snprintf(why, sizeof why, "cannot create a file in %s: %s", dir, strerror(errno));
        if (fd >= 0) close(fd), unlink(o->tmp);
        o->tmp[0] = 0;
        return failed(err, err_size, path, why);
    }
    track(o, 1);
    return 0;
}

void out_abort(out_file *o) {
    if (o->f && o->f != stdout) fclose(o->f);
    o->f = NULL;
    if (o->tmp[0]) unlink(o->tmp);
    o->tmp[0] = 0;
    track(o, 0);
}

int out_commit(out_file *o, char *err, size_t err_size) {
    if (o->f == stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            return failed(err, err_size, "-", strerror(errno));
        return 0;
    }
    /* The target's mode (and owner, as far as allowed), synced before it replaces the target. */
    int fd = fileno(o->f), ok = fflush(o->f) == 0 && !ferror(o->f) && fchmod(fd, o->mode) == 0;
    if (ok && o->existed && (o->old.st_uid != geteuid() || o->old.st_gid != getegid()) &&
        fchown(fd, o->old.st_uid, o->old.st_gid)) {
        /* best effort: only root can give a file to someone else */
    }
    ok = ok && fsync(fd) == 0;
    int saved = errno;
    if (fclose(o->f) != 0 && ok) ok = 0, saved = errno;
    o->f = NULL;
    struct stat st;
    if (ok && lstat(o->target, &st) == 0 && !S_ISREG(st.st_mode)) /* replaced meanwhile */
        return out_abort(o), failed(err, err_size, o->path, kind(st.st_mode));
    if (ok && rename(o->tmp, o->target) != 0) ok = 0, saved = errno;
    if (!ok) {
        out_abort(o);
        return failed(err, err_size, o->path, strerror(saved));
    }
    o->tmp[0] = 0;
    track(o, 0);
    return 0;
}
