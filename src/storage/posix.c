/*
 * Local POSIX storage.
 *
 * Atomicity: every file is written to a hidden temporary name in its directory and made visible at finish:
 *   - plain create:     rename(tmp, path)          replaces atomically;
 *   - exclusive create: link(tmp, path) + unlink   fails with EEXIST if path exists, so exactly one of two racing
 *                                                  writers wins (Hudi's create-if-absent for instant files).
 * Data is fsync'ed before it becomes visible and the directory after, so a crash never exposes a torn file.
 * Files created with HOODIE_CREATE_DEFER_SYNC (data files, markers) are renamed into place at once and their
 * descriptors kept: they are fsync'ed together, with their directories once each, before the next file without
 * the flag (an instant file) is made visible, or when DEFER_MAX are pending. On ext4 the first of those fsyncs
 * commits the journal for all of them, so a commit of a hundred files waits for the disk a few times, not 300.
 * Until then a crash of the machine (not of the process) may leave such a file short, but never visible as part
 * of a completed commit, which is what readers and rollback rely on.
 *
 * Files created with HOODIE_CREATE_DEFER_VISIBLE (data files whose name no other writer can take; not markers,
 * which keep their order by being written at once) are written in the background: the writer's bytes are copied
 * into chunks that one thread writes, finishes and links into place in order, while the writer goes on encoding
 * the next file. At most BG_MAX_BYTES wait at a time (the writer then waits for room). As the storage contract
 * says: an operation on such a file's path (open_read, exists, remove, rename, create, a listing or removal of its
 * folder) waits for it; the calling thread's next commit point (a file finished without either DEFER flag) waits
 * for the files it wrote and fails if one of them could not be written, unless it has been removed since. A normal
 * exit of the process waits for every file finished so far (bg_at_exit).
 * HOODIE_NO_BACKGROUND_WRITES=1 writes everything at once. On the 2-core benchmark VM a 10M-row COW upsert took
 * 3.88 s instead of 4.22 s (median of 5 interleaved runs): write(2) into new page-cache pages costs more there
 * than the copy, and now runs beside the encoding.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sync_file_range */
#endif
#include "hoodie/sys/storage.h"
#include "util/buf.h"
#include "util/error.h"

#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct hoodie_rfile { int fd; };
typedef struct bg_entry bg_entry;
struct hoodie_wfile {
    int fd;
    unsigned flags;
    char *path;
    char *tmp;
    bg_entry *bg;              /* written in the background: its registration (NULL: written at once) */
    struct bg_job *end;        /* background: the job that will finish or abandon it, made beforehand */
    hoodie_buf pend;           /* background: bytes not yet handed to the thread */
    int flushed;               /* background: bytes were handed over already (a large file: chunks of BG_CHUNK) */
};

static void bg_wait(const char *path, int as_dir);

static hoodie_status io_fail(const char *what, const char *path)
{
    int e = errno;
    hoodie_status code = (e == ENOENT || e == ENOTDIR) ? HOODIE_ENOTFOUND : (e == EEXIST ? HOODIE_EEXISTS : HOODIE_EIO);
    if (e == ENOMEM) code = HOODIE_ENOMEM;
    return hoodie_error__set_errno(code, e, "%s %s", what, path);
}

static hoodie_status px_open_read(void *ctx, const char *path, hoodie_rfile **out, uint64_t *size_out)
{
    struct stat st;
    (void)ctx;
    *out = NULL;
    bg_wait(path, 0);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return io_fail("cannot open", path);
    if (fstat(fd, &st) < 0) { hoodie_status rc = io_fail("cannot stat", path); close(fd); return rc; }
    if (S_ISDIR(st.st_mode)) { close(fd); return HOODIE_FAIL(HOODIE_EINVAL, "%s is a directory", path); }
    hoodie_rfile *f = malloc(sizeof *f);
    if (!f) { close(fd); return HOODIE_NOMEM(); }
    f->fd = fd;
    *out = f;
    *size_out = (uint64_t)st.st_size;
    return HOODIE_OK;
}

static hoodie_status px_map(void *ctx, hoodie_rfile *f, uint64_t size, const void **data)
{
    (void)ctx;
    *data = NULL;
    if (!size || size > (uint64_t)SIZE_MAX) return HOODIE_EUNSUPPORTED; /* nothing to map, or too much */
    void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, f->fd, 0);
    if (p == MAP_FAILED) return HOODIE_EUNSUPPORTED; /* the caller reads instead */
    (void)madvise(p, (size_t)size, MADV_SEQUENTIAL);
    *data = p;
    return HOODIE_OK;
}

static void px_unmap(void *ctx, hoodie_rfile *f, const void *data, uint64_t size)
{
    (void)ctx;
    (void)f;
    if (data) (void)munmap((void *)(uintptr_t)data, (size_t)size);
}

static hoodie_status px_read_at(void *ctx, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    (void)ctx;
    uint8_t *p = buf;
    while (len) {
        ssize_t n = pread(f->fd, p, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return hoodie_error__set_errno(HOODIE_EIO, errno, "read failed at offset %llu", (unsigned long long)off);
        }
        if (n == 0) return HOODIE_CORRUPT("unexpected end of file at offset %llu", (unsigned long long)off);
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return HOODIE_OK;
}

static void px_close_read(void *ctx, hoodie_rfile *f)
{
    (void)ctx;
    if (f) { close(f->fd); free(f); }
}

static hoodie_status mkdirs_path(const char *path)
{
    char *p = strdup(path);
    if (!p) return HOODIE_NOMEM();
    for (char *s = p + 1; ; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) < 0 && errno != EEXIST) {
                hoodie_status rc = io_fail("cannot create directory", p);
                free(p);
                return rc;
            }
            *s = c;
            if (!c) break;
        }
    }
    free(p);
    return HOODIE_OK;
}

static hoodie_status parent_dirs(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) return HOODIE_OK;
    char *dir = strndup(path, (size_t)(slash - path));
    if (!dir) return HOODIE_NOMEM();
    struct stat st;
    hoodie_status rc = stat(dir, &st) == 0 ? HOODIE_OK : mkdirs_path(dir);
    free(dir);
    return rc;
}

static void fsync_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir) return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) { (void)fsync(fd); close(fd); }
    free(dir);
}

static int g_fsync = -1;

static int want_fsync(void)
{
    if (g_fsync < 0) g_fsync = getenv("HOODIE_NO_FSYNC") ? 0 : 1;
    return g_fsync;
}

/* Files finished with HOODIE_CREATE_DEFER_SYNC whose data and directory entry are not yet known durable. */
#define DEFER_MAX 64
static struct { int fd; char *path; } g_deferred[DEFER_MAX];
static size_t g_n_deferred;
static pthread_mutex_t g_deferred_mu = PTHREAD_MUTEX_INITIALIZER;

static hoodie_status flush_deferred(void)
{
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < g_n_deferred; i++) {
        if (fsync(g_deferred[i].fd) < 0 && rc == HOODIE_OK) rc = io_fail("cannot sync", g_deferred[i].path);
        close(g_deferred[i].fd);
    }
    for (size_t i = 0; i < g_n_deferred; i++) {
        const char *p = g_deferred[i].path, *slash = strrchr(p, '/');
        size_t dl = slash ? (size_t)(slash - p) : 0;
        size_t j = 0;
        for (; j < i; j++) { /* each directory once */
            const char *q = g_deferred[j].path, *qs = strrchr(q, '/');
            if ((qs ? (size_t)(qs - q) : 0) == dl && !memcmp(p, q, dl)) break;
        }
        if (j == i) fsync_dir_of(p);
    }
    for (size_t i = 0; i < g_n_deferred; i++) free(g_deferred[i].path);
    g_n_deferred = 0;
    return rc;
}

/* ---- files written in the background (HOODIE_CREATE_DEFER_VISIBLE) ---- */

#define BG_CHUNK (4u << 20)      /* a writer's bytes go to the thread in chunks of about this */
#define BG_MAX_BYTES (32u << 20) /* bytes handed over and not yet written, at most (unless one chunk is larger) */

/* A file written in the background, from its creation until it is in place, or failed until that is reported. */
struct bg_entry {
    bg_entry *next;
    char *path;
    pthread_t owner;     /* the thread that wrote it: its next commit point hears of a failure */
    int ended;           /* finished or abandoned by the writer: the thread has the rest (waits are for those) */
    int done;            /* finished or abandoned by the thread (a failed one stays listed, done) */
    hoodie_status rc;    /* the failure, if any */
    char msg[512];
};

enum { BG_WRITE, BG_FINISH, BG_ABANDON };
typedef struct bg_job {
    struct bg_job *next;
    int kind;
    hoodie_wfile *f;
    uint8_t *data;       /* BG_WRITE: owned */
    size_t len;
} bg_job;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work;    /* a job was queued */
    pthread_cond_t moved;   /* a job was done: room in the queue, perhaps an entry done */
    bg_job *head, *tail;
    size_t queued;          /* bytes of the queued BG_WRITE jobs */
    bg_entry *entries;
    int state;              /* 0 not started, 1 running, -1 off (disabled, or no thread to be had) */
} g_bg = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, NULL, 0 };

static hoodie_status write_now(hoodie_wfile *f, const void *data, size_t len);
static hoodie_status finish_now(hoodie_wfile *f);
static void abandon_now(hoodie_wfile *f);

/* The thread's failure on f's entry (under g_bg.mu); the first one counts. */
static void bg_fail(bg_entry *e, hoodie_status rc)
{
    if (e->rc < 0) return;
    e->rc = rc;
    snprintf(e->msg, sizeof e->msg, "%s", hoodie_error__message());
}

static void bg_unlink_entry(bg_entry *e)
{
    for (bg_entry **pp = &g_bg.entries; *pp; pp = &(*pp)->next)
        if (*pp == e) { *pp = e->next; break; }
    free(e->path);
    free(e);
}

static void *bg_run(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_bg.mu);
    for (;;) {
        while (!g_bg.head) pthread_cond_wait(&g_bg.work, &g_bg.mu);
        bg_job *j = g_bg.head;
        g_bg.head = j->next;
        if (!g_bg.head) g_bg.tail = NULL;
        bg_entry *e = j->f->bg;
        int failed = e->rc < 0;
        pthread_mutex_unlock(&g_bg.mu);
        hoodie_status rc = HOODIE_OK;
        switch (j->kind) {
        case BG_WRITE: if (!failed) rc = write_now(j->f, j->data, j->len); break;
        case BG_FINISH: rc = failed ? (abandon_now(j->f), HOODIE_OK) : finish_now(j->f); break;
        case BG_ABANDON: abandon_now(j->f); break;
        }
        pthread_mutex_lock(&g_bg.mu);
        if (rc < 0) bg_fail(e, rc);
        if (j->kind == BG_WRITE) g_bg.queued -= j->len;
        else if (e->rc < 0 && j->kind == BG_FINISH) e->done = 1; /* kept until reported */
        else bg_unlink_entry(e);                                   /* in place, or abandoned */
        pthread_cond_broadcast(&g_bg.moved);
        free(j->data);
        free(j);
    }
    return NULL;
}

/* In a child forked while the thread ran, there is no thread: the child writes at once (its parent's queued files
 * are its parent's to write). */
static void bg_atfork_prepare(void) { pthread_mutex_lock(&g_bg.mu); }
static void bg_atfork_parent(void) { pthread_mutex_unlock(&g_bg.mu); }
static void bg_atfork_child(void)
{
    pthread_mutex_init(&g_bg.mu, NULL);
    pthread_cond_init(&g_bg.work, NULL);
    pthread_cond_init(&g_bg.moved, NULL);
    g_bg.head = g_bg.tail = NULL;
    g_bg.queued = 0;
    g_bg.entries = NULL;
    g_bg.state = -1;
}

/* At a normal exit (exit(), or a return from main): the files finished in the background are written and in place
 * first, so that a process which finishes a file and ends without a commit point after it (a tool writing Parquet
 * files through the write modules) does not lose it, nor leave its temporary file behind. */
static void bg_at_exit(void)
{
    pthread_mutex_lock(&g_bg.mu);
    for (;;) {
        const bg_entry *e = g_bg.entries;
        while (e && (!e->ended || e->done)) e = e->next;
        if (!e) break;
        pthread_cond_wait(&g_bg.moved, &g_bg.mu);
    }
    pthread_mutex_unlock(&g_bg.mu);
}

/* 1 if files are to be written in the background (the thread is started at the first). Under g_bg.mu. */
static int bg_on(void)
{
    if (g_bg.state) return g_bg.state > 0;
    const char *off = getenv("HOODIE_NO_BACKGROUND_WRITES");
    g_bg.state = -1;
    (void)want_fsync(); /* settled before the thread reads it */
    if (off && *off && strcmp(off, "0")) return 0;
    pthread_t th;
    pthread_attr_t at;
    if (pthread_attr_init(&at)) return 0;
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int ok = pthread_create(&th, &at, bg_run, NULL) == 0;
    pthread_attr_destroy(&at);
    if (!ok) return 0;
    pthread_atfork(bg_atfork_prepare, bg_atfork_parent, bg_atfork_child);
    (void)atexit(bg_at_exit); /* without it, finished files might not land at exit: the thread is stopped */
    g_bg.state = 1;
    return 1;
}

/* Queue a job (under g_bg.mu); a write waits for room first. */
static void bg_queue(bg_job *j)
{
    if (j->kind == BG_WRITE)
        while (g_bg.queued && g_bg.queued + j->len > BG_MAX_BYTES) pthread_cond_wait(&g_bg.moved, &g_bg.mu);
    if (j->kind == BG_WRITE) g_bg.queued += j->len;
    if (g_bg.tail) g_bg.tail->next = j;
    else g_bg.head = j;
    g_bg.tail = j;
    pthread_cond_signal(&g_bg.work);
}

/* 1 if e's path is `path`, or (as_dir) a file of the folder `path` (not of a folder below it: that one's listing
 * and removal wait for it). */
static int bg_matches(const bg_entry *e, const char *path, int as_dir)
{
    if (!as_dir) return !strcmp(e->path, path);
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    return !strncmp(e->path, path, n) && e->path[n] == '/' && !strchr(e->path + n + 1, '/');
}

/* Wait until no file at `path` (as_dir: under it) is being written in the background. */
static void bg_wait(const char *path, int as_dir)
{
    pthread_mutex_lock(&g_bg.mu);
    for (;;) {
        const bg_entry *e = g_bg.entries;
        while (e && (!e->ended || e->done || !bg_matches(e, path, as_dir))) e = e->next;
        if (!e) break;
        pthread_cond_wait(&g_bg.moved, &g_bg.mu);
    }
    pthread_mutex_unlock(&g_bg.mu);
}

/* A commit point: wait for the calling thread's files written in the background; the first failure among them is
 * returned (and forgotten, as are the others). */
static hoodie_status bg_settle(void)
{
    hoodie_status rc = HOODIE_OK;
    char msg[512] = "";
    pthread_t self = pthread_self();
    pthread_mutex_lock(&g_bg.mu);
    for (;;) {
        const bg_entry *e = g_bg.entries;
        while (e && (!e->ended || e->done || !pthread_equal(e->owner, self))) e = e->next;
        if (!e) break;
        pthread_cond_wait(&g_bg.moved, &g_bg.mu);
    }
    for (bg_entry **pp = &g_bg.entries; *pp;) {
        bg_entry *e = *pp;
        if (!e->done || !pthread_equal(e->owner, self)) { pp = &e->next; continue; }
        if (rc == HOODIE_OK) { rc = e->rc; snprintf(msg, sizeof msg, "%s", e->msg); }
        *pp = e->next;
        free(e->path);
        free(e);
    }
    pthread_mutex_unlock(&g_bg.mu);
    return rc < 0 ? hoodie_error__set_errno(rc, 0, "%s (a file written earlier, in the background)", msg) : HOODIE_OK;
}

/* A removed file's failure is not reported any more (a rollback removed what the failed write left). */
static void bg_forget(const char *path)
{
    pthread_mutex_lock(&g_bg.mu);
    for (bg_entry **pp = &g_bg.entries; *pp;) {
        bg_entry *e = *pp;
        if (e->done && !strcmp(e->path, path)) { *pp = e->next; free(e->path); free(e); }
        else pp = &e->next;
    }
    pthread_mutex_unlock(&g_bg.mu);
}

/* Hand f's pending bytes to the thread (under g_bg.mu). */
static hoodie_status bg_flush(hoodie_wfile *f)
{
    if (!f->pend.len) return HOODIE_OK;
    bg_job *j = calloc(1, sizeof *j);
    if (!j) return HOODIE_NOMEM();
    j->kind = BG_WRITE;
    j->f = f;
    j->data = hoodie_buf_detach(&f->pend, &j->len);
    f->flushed = 1;
    bg_queue(j);
    return HOODIE_OK;
}

static hoodie_status px_create(void *ctx, const char *path, unsigned flags, hoodie_wfile **out)
{
    static unsigned long counter;
    (void)ctx;
    *out = NULL;
    bg_wait(path, 0); /* an earlier file of that path, still being written, lands first */
    HOODIE_TRY(parent_dirs(path));
    hoodie_wfile *f = calloc(1, sizeof *f);
    if (!f) return HOODIE_NOMEM();
    f->flags = flags;
    f->path = strdup(path);
    size_t n = strlen(path) + 64;
    f->tmp = malloc(n);
    if (!f->path || !f->tmp) { free(f->path); free(f->tmp); free(f); return HOODIE_NOMEM(); }
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    snprintf(f->tmp, n, "%.*s.hoodie_tmp_%ld_%lu_%s", dirlen, path, (long)getpid(),
             __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED), slash ? slash + 1 : path);
    f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        hoodie_status rc = io_fail("cannot create", f->tmp);
        free(f->path); free(f->tmp); free(f);
        return rc;
    }
    /* markers (BARRIER) are written at once: then each is in place before the data file it announces */
    if ((flags & HOODIE_CREATE_DEFER_VISIBLE) && !(flags & HOODIE_CREATE_BARRIER)) {
        bg_entry *e = calloc(1, sizeof *e);
        char *ep = e ? strdup(path) : NULL;
        f->end = ep ? calloc(1, sizeof *f->end) : NULL; /* its last job, so that ending it never fails */
        pthread_mutex_lock(&g_bg.mu);
        if (f->end && bg_on()) {
            e->path = ep;
            e->owner = pthread_self();
            e->next = g_bg.entries;
            g_bg.entries = e;
            f->bg = e;
        }
        pthread_mutex_unlock(&g_bg.mu);
        if (!f->bg) { free(ep); free(e); free(f->end); f->end = NULL; } /* (no memory for it: written at once) */
    }
    *out = f;
    return HOODIE_OK;
}

static hoodie_status px_write(void *ctx, hoodie_wfile *f, const void *data, size_t len)
{
    (void)ctx;
    if (!f->bg) return write_now(f, data, len);
    /* a small file's bytes take little; a large one's come in whole chunks once the first went */
    if (f->flushed && !f->pend.cap) HOODIE_TRY(hoodie_buf_reserve(&f->pend, BG_CHUNK));
    HOODIE_TRY(hoodie_buf_append(&f->pend, data, len));
    if (f->pend.len < BG_CHUNK) return HOODIE_OK;
    pthread_mutex_lock(&g_bg.mu);
    hoodie_status rc = bg_flush(f);
    pthread_mutex_unlock(&g_bg.mu);
    return rc;
}

/* Hand f's last bytes and its finishing (or abandoning) to the thread; f then belongs to it. */
static hoodie_status bg_end(hoodie_wfile *f, int kind)
{
    bg_job *j = f->end;
    f->end = NULL;
    pthread_mutex_lock(&g_bg.mu);
    hoodie_status rc = kind == BG_FINISH ? bg_flush(f) : HOODIE_OK;
    j->kind = rc < 0 ? BG_ABANDON : kind; /* no memory for the last bytes: dropped, and the failure returned */
    j->f = f;
    f->bg->ended = 1;
    bg_queue(j);
    pthread_mutex_unlock(&g_bg.mu);
    return rc;
}

static hoodie_status write_now(hoodie_wfile *f, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len) {
        ssize_t n = write(f->fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return io_fail("cannot write", f->path);
        }
        p += n;
        len -= (size_t)n;
    }
    return HOODIE_OK;
}

static void wfile_free(hoodie_wfile *f)
{
    free(f->path);
    free(f->tmp);
    hoodie_buf_dispose(&f->pend);
    free(f->end);
    free(f);
}

/* Make f durable (or note it for the next commit point) and visible; frees f. */
static hoodie_status finish_now(hoodie_wfile *f)
{
    hoodie_status rc = HOODIE_OK;
    int defer = want_fsync() && (f->flags & HOODIE_CREATE_DEFER_SYNC);
    pthread_mutex_lock(&g_deferred_mu);
    if (defer && g_n_deferred == DEFER_MAX) rc = flush_deferred();
    else if (want_fsync() && !defer) rc = flush_deferred(); /* a commit point: everything before it first */
    pthread_mutex_unlock(&g_deferred_mu);
    if (rc == HOODIE_OK && want_fsync() && !defer && fsync(f->fd) < 0) rc = io_fail("cannot sync", f->path);
    int keep_fd = -1;
    if (rc == HOODIE_OK && defer && (keep_fd = dup(f->fd)) < 0) rc = io_fail("cannot keep", f->path);
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    /* start writing the data back now, while the writer goes on: the fsync at the commit point then mostly finds it
     * done (advice only: a failure here is reported by that fsync) */
    if (keep_fd >= 0) (void)sync_file_range(keep_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    if (close(f->fd) < 0 && rc == HOODIE_OK) rc = io_fail("cannot close", f->path);
    if (rc == HOODIE_OK) {
        if (f->flags & HOODIE_CREATE_EXCLUSIVE) {
            if (link(f->tmp, f->path) < 0) rc = io_fail("cannot create", f->path);
            unlink(f->tmp);
        } else if (rename(f->tmp, f->path) < 0) {
            rc = io_fail("cannot rename into place", f->path);
            unlink(f->tmp);
        }
        if (rc == HOODIE_OK && want_fsync() && !defer) fsync_dir_of(f->path);
    } else {
        unlink(f->tmp);
    }
    if (rc == HOODIE_OK && keep_fd >= 0) {
        pthread_mutex_lock(&g_deferred_mu);
        if (g_n_deferred == DEFER_MAX) rc = flush_deferred(); /* filled by another thread meanwhile */
        g_deferred[g_n_deferred].fd = keep_fd;
        g_deferred[g_n_deferred].path = f->path; /* the handle's copy, kept */
        g_n_deferred++;
        f->path = NULL;
        pthread_mutex_unlock(&g_deferred_mu);
    } else if (keep_fd >= 0) {
        close(keep_fd);
    }
    wfile_free(f);
    return rc;
}

static void abandon_now(hoodie_wfile *f)
{
    close(f->fd);
    unlink(f->tmp);
    wfile_free(f);
}

static hoodie_status px_finish(void *ctx, hoodie_wfile *f)
{
    (void)ctx;
    if (f->bg) return bg_end(f, BG_FINISH);
    if (!(f->flags & (HOODIE_CREATE_DEFER_SYNC | HOODIE_CREATE_DEFER_VISIBLE))) { /* a commit point */
        hoodie_status rc = bg_settle();
        if (rc < 0) { abandon_now(f); return rc; }
    }
    return finish_now(f);
}

static void px_abandon(void *ctx, hoodie_wfile *f)
{
    (void)ctx;
    if (!f) return;
    if (f->bg) (void)bg_end(f, BG_ABANDON);
    else abandon_now(f);
}

static hoodie_status px_list(void *ctx, const char *dir, hoodie_storage_list_cb cb, void *payload)
{
    (void)ctx;
    bg_wait(dir, 1);
    DIR *d = opendir(dir);
    if (!d) return io_fail("cannot list", dir);
    size_t dlen = strlen(dir);
    char *full = malloc(dlen + 512);
    if (!full) { closedir(d); return HOODIE_NOMEM(); }
    struct dirent *de;
    hoodie_status rc = HOODIE_OK;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        if (!strncmp(de->d_name, ".hoodie_tmp_", 12)) continue; /* our own in-flight temporaries */
        if (strlen(de->d_name) > 500) continue;
        snprintf(full, dlen + 512, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(full, &st) < 0) continue; /* raced with a removal */
        hoodie_dirent e = { de->d_name, S_ISDIR(st.st_mode), S_ISDIR(st.st_mode) ? 0 : (uint64_t)st.st_size,
                            (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000 };
        if (cb(&e, payload)) break;
    }
    free(full);
    closedir(d);
    return rc;
}


static hoodie_status px_rename(void *ctx, const char *from, const char *to)
{
    (void)ctx;
    bg_wait(from, 0);
    bg_wait(to, 0);
    HOODIE_TRY(parent_dirs(to));
    return rename(from, to) < 0 ? io_fail("cannot rename", from) : HOODIE_OK;
}

static hoodie_status px_mkdirs(void *ctx, const char *path)
{
    (void)ctx;
    return mkdirs_path(path);
}

/*
 * The temporaries of dead writers in `dir` removed: listings hide them (px_list), so a folder holding only those
 * looks empty to callers that remove a tree, yet rmdir would fail on it for good. A process killed between creating
 * a file and finishing it leaves one: without this, the rollback of its instant failed on its marker folder, and
 * with it every later write (recovery runs first). Temporaries of live processes (kill(pid, 0)) are left.
 */
static void remove_dead_temporaries(const char *dir, size_t dir_len, const char *of)
{
    char *dcopy = strndup(dir, dir_len);
    DIR *d = dcopy ? opendir(dcopy) : NULL;
    if (!d) { free(dcopy); return; }
    dir = dcopy;
    size_t of_len = of ? strlen(of) : 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, ".hoodie_tmp_", 12)) continue;
        char *end;
        long pid = strtol(de->d_name + 12, &end, 10);
        if (end == de->d_name + 12 || *end != '_' || pid <= 0) continue;
        if (of) { /* .hoodie_tmp_<pid>_<n>_<of> */
            const char *name = strchr(end + 1, '_');
            if (!name || strlen(name + 1) != of_len || memcmp(name + 1, of, of_len)) continue;
        }
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        size_t n = strlen(dir) + strlen(de->d_name) + 2;
        char *p = malloc(n);
        if (!p) break;
        snprintf(p, n, "%s/%s", dir, de->d_name);
        (void)unlink(p);
        free(p);
    }
    closedir(d);
    free(dcopy);
}

static hoodie_status px_rmdir(void *ctx, const char *path)
{
    (void)ctx;
    bg_wait(path, 1);
    if (rmdir(path) == 0) return HOODIE_OK;
    if (errno != ENOTEMPTY && errno != EEXIST) return io_fail("cannot remove directory", path);
    remove_dead_temporaries(path, strlen(path), NULL);
    return rmdir(path) < 0 ? io_fail("cannot remove directory", path) : HOODIE_OK;
}

/* A file that is not there may be one a dead writer never finished (a rollback removing what a killed write was
 * writing): its temporary goes too, so that no hidden leftover stays in the partition. */
static hoodie_status px_remove(void *ctx, const char *path)
{
    (void)ctx;
    bg_wait(path, 0);
    bg_forget(path);
    if (unlink(path) == 0) return HOODIE_OK;
    hoodie_status rc = io_fail("cannot remove", path);
    if (rc == HOODIE_ENOTFOUND) {
        const char *slash = strrchr(path, '/');
        if (slash && slash[1]) remove_dead_temporaries(path, (size_t)(slash - path), slash + 1);
        else if (!slash) remove_dead_temporaries(".", 1, path);
    }
    return rc;
}

static int px_exists(void *ctx, const char *path)
{
    struct stat st;
    (void)ctx;
    bg_wait(path, 0);
    if (stat(path, &st) == 0) return 1;
    if (errno == ENOENT || errno == ENOTDIR) return 0;
    return io_fail("cannot stat", path);
}

static const hoodie_storage posix_storage = {
    HOODIE_STORAGE_VERSION, NULL, px_open_read, px_read_at, px_close_read, px_create, px_write, px_finish,
    px_abandon, px_list, px_remove, px_rename, px_mkdirs, px_rmdir, px_exists, NULL, NULL, px_map, px_unmap
};

const hoodie_storage *hoodie_storage_posix(void) { return &posix_storage; }
