#include "read/spill.h"
#include "storage/storage.h"
#include "util/error.h"
#include "util/warn.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hoodie_spill {
    hoodie_storage st;          /* reads of the copied paths from the copies; the rest to base */
    const hoodie_storage *base;
    const hoodie_storage *local;
    char *dir;                  /* the copies' directory (NULL: not made yet) */
    char **remote, **copy;      /* n paths each: the table's, the copy's (the files copied so far) */
    size_t n;
};

/* A file open for reading: which storage opened it. */
typedef struct spill_rfile {
    const hoodie_storage *by;
    hoodie_rfile *f;
} spill_rfile;

static hoodie_status sp_open_read(void *ctx, const char *path, hoodie_rfile **out, uint64_t *size_out)
{
    hoodie_spill *sp = ctx;
    const hoodie_storage *by = sp->base;
    const char *p = path;
    for (size_t i = 0; i < sp->n; i++)
        if (!strcmp(sp->remote[i], path)) { by = sp->local; p = sp->copy[i]; break; }
    spill_rfile *h = malloc(sizeof *h);
    if (!h) return HOODIE_NOMEM();
    h->by = by;
    hoodie_status rc = by->open_read(by->ctx, p, &h->f, size_out);
    if (rc < 0) { free(h); return rc; }
    *out = (hoodie_rfile *)h;
    return HOODIE_OK;
}

static hoodie_status sp_read_at(void *ctx, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    (void)ctx;
    spill_rfile *h = (spill_rfile *)f;
    return h->by->read_at(h->by->ctx, h->f, off, buf, len);
}

static void sp_close_read(void *ctx, hoodie_rfile *f)
{
    (void)ctx;
    spill_rfile *h = (spill_rfile *)f;
    if (!h) return;
    h->by->close_read(h->by->ctx, h->f);
    free(h);
}

static void sp_will_read(void *ctx, hoodie_rfile *f, const uint64_t *offs, const size_t *lens, size_t n)
{
    (void)ctx;
    spill_rfile *h = (spill_rfile *)f;
    hoodie_storage__will_read(h->by, h->f, offs, lens, n);
}

static hoodie_status sp_map(void *ctx, hoodie_rfile *f, uint64_t size, const void **data)
{
    (void)ctx;
    spill_rfile *h = (spill_rfile *)f;
    if (h->by->version < 3 || !h->by->map || !h->by->unmap)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "the storage does not map files");
    return h->by->map(h->by->ctx, h->f, size, data);
}

static void sp_unmap(void *ctx, hoodie_rfile *f, const void *data, uint64_t size)
{
    (void)ctx;
    spill_rfile *h = (spill_rfile *)f;
    h->by->unmap(h->by->ctx, h->f, data, size);
}

/* Everything but reads goes to the table's storage (the passes write nothing through this one, but it is whole). */
static hoodie_status sp_create(void *ctx, const char *path, unsigned flags, hoodie_wfile **out)
{
    const hoodie_storage *b = ((hoodie_spill *)ctx)->base;
    return b->create(b->ctx, path, flags, out);
}

static hoodie_status sp_write(void *ctx, hoodie_wfile *f, const void *data, size_t len)
{
    const hoodie_storage *b = ((hoodie_spill *)ctx)->base;
    return b->write(b->ctx, f, data, len);
}

static hoodie_status sp_finish(void *ctx, hoodie_wfile *f)
{
    const hoodie_storage *b = ((hoodie_spill *)ctx)->base;
    return b->finish(b->ctx, f);
}

static void sp_abandon(void *ctx, hoodie_wfile *f)
{
    const hoodie_storage *b = ((hoodie_spill *)ctx)->base;
    b->abandon(b->ctx, f);
}

static hoodie_status sp_list(void *ctx, const char *dir, hoodie_storage_list_cb cb, void *payload)
{
    const hoodie_storage *b = ((hoodie_spill *)ctx)->base;
    return b->list(b->ctx, dir, cb, payload);
}

static hoodie_status sp_remove(void *ctx, const char *path)
{
    const hoodie_storage *b = ((hoodie_spill *)ctx)->base;
    return b->remove(b->ctx, path);
}

static hoodie_status sp_rename(void *ctx, const char *from, const char *to)
{
    const hoodie_storage *b = ((hoodie_spill *)ctx)->base;
    return b->rename(b->ctx, from, to);
}

static hoodie_status sp_mkdirs(void *ctx, const char *path)
{
    const hoodie_storage *b = ((hoodie_spill *)ctx)->base;
    return b->mkdirs(b->ctx, path);
}

static hoodie_status sp_rmdir(void *ctx, const char *path)
{
    const hoodie_storage *b = ((hoodie_spill *)ctx)->base;
    return b->rmdir(b->ctx, path);
}

static int sp_exists(void *ctx, const char *path)
{
    const hoodie_storage *b = ((hoodie_spill *)ctx)->base;
    return b->exists(b->ctx, path);
}

/* 1 if s maps the file at path (the local file system), 0 if not or if it cannot be opened. */
static int maps_file(const hoodie_storage *s, const char *path)
{
    hoodie_buf none = HOODIE_BUF_INIT;
    hoodie_file_bytes fb;
    hoodie_reader r;
    if (hoodie_storage_file_bytes_or_reader(s, path, &none, 0, &fb, &r) < 0) { hoodie_error_clear(); return 0; }
    int mapped = fb.f != NULL; /* else the file is open for ranged reads (nothing read), or empty */
    hoodie_file_bytes_done(&fb);
    hoodie_reader_close(&r);
    hoodie_buf_dispose(&none);
    return mapped;
}

enum { COPY_CHUNK = 32 << 20 }; /* S3 fetches a read this large in parallel pieces, straight into the buffer */

/* One file copied to `to`. */
static hoodie_status copy_file(const hoodie_storage *from_s, const char *from, const hoodie_storage *to_s,
                               const char *to, uint8_t *buf)
{
    hoodie_reader r;
    hoodie_writer_file w;
    HOODIE_TRY(hoodie_reader_open(&r, from_s, from));
    hoodie_status rc = hoodie_wfile_open(&w, to_s, to, HOODIE_CREATE_DEFER_SYNC);
    if (rc < 0) { hoodie_reader_close(&r); return rc; }
    for (uint64_t off = 0; rc == HOODIE_OK && off < r.size; off += COPY_CHUNK) {
        size_t n = r.size - off < COPY_CHUNK ? (size_t)(r.size - off) : (size_t)COPY_CHUNK;
        rc = hoodie_reader_read(&r, off, buf, n);
        if (rc == HOODIE_OK) rc = hoodie_wfile_write(&w, buf, n);
    }
    hoodie_reader_close(&r);
    if (rc < 0) { hoodie_wfile_abandon(&w); return rc; }
    return hoodie_wfile_finish(&w);
}

static void spill_free(hoodie_spill *sp)
{
    for (size_t i = 0; i < sp->n; i++) {
        if (sp->copy[i] && sp->local->remove(sp->local->ctx, sp->copy[i]) < 0) hoodie_error_clear();
        free(sp->copy[i]);
        free(sp->remote[i]);
    }
    if (sp->dir && sp->local->rmdir(sp->local->ctx, sp->dir) < 0) hoodie_error_clear();
    free(sp->dir);
    free(sp->copy);
    free(sp->remote);
    free(sp);
}

/*
 * Copies left by a merge whose process died in the middle (killed): directories hoodie-spill-<pid>-* of processes
 * that no longer exist are removed when the next spill is made in the same place. A live process's, or one whose
 * pid cannot be checked, stays.
 */
typedef struct stale_dirs {
    char **names;
    size_t n, cap;
} stale_dirs;

static int collect_stale(const hoodie_dirent *e, void *payload)
{
    stale_dirs *d = payload;
    static const char prefix[] = "hoodie-spill-";
    if (!e->is_dir || strncmp(e->name, prefix, sizeof prefix - 1)) return 0;
    char *end;
    long pid = strtol(e->name + sizeof prefix - 1, &end, 10);
    if (end == e->name + sizeof prefix - 1 || *end != '-' || pid <= 0 || pid == (long)getpid()) return 0;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) return 0;
    if (d->n == d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 8;
        char **v = realloc(d->names, nc * sizeof *v);
        if (!v) return 1;
        d->names = v;
        d->cap = nc;
    }
    if (!(d->names[d->n] = strdup(e->name))) return 1;
    d->n++;
    return 0;
}

static void sweep_stale(const hoodie_storage *local, const char *tmp)
{
    stale_dirs d = { NULL, 0, 0 };
    if (local->list(local->ctx, tmp, collect_stale, &d) < 0) hoodie_error_clear();
    for (size_t i = 0; i < d.n; i++) {
        size_t len = strlen(tmp) + strlen(d.names[i]) + 2;
        char *p = malloc(len);
        if (p) {
            snprintf(p, len, "%s/%s", tmp, d.names[i]);
            if (hoodie_storage_remove_tree(local, p) < 0) hoodie_error_clear();
        }
        free(p);
        free(d.names[i]);
    }
    free(d.names);
}

hoodie_status hoodie_spill_open(hoodie_spill **out, const hoodie_storage *s, const char *const *paths, size_t n)
{
    *out = NULL;
    s = hoodie_storage__or_default(s);
    size_t first = 0;
    while (first < n && !paths[first]) first++;
    if (first == n || maps_file(s, paths[first])) return HOODIE_OK;
    hoodie_spill *sp = calloc(1, sizeof *sp);
    if (!sp) return HOODIE_NOMEM();
    sp->base = s;
    sp->local = hoodie_storage_posix();
    sp->remote = calloc(n, sizeof *sp->remote);
    sp->copy = calloc(n, sizeof *sp->copy);
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    size_t tl = strlen(tmp);
    sp->dir = malloc(tl + 48);
    uint8_t *buf = malloc(COPY_CHUNK);
    if (!sp->remote || !sp->copy || !sp->dir || !buf) { free(buf); spill_free(sp); return HOODIE_NOMEM(); }
    sweep_stale(sp->local, tmp);
    snprintf(sp->dir, tl + 48, "%s/hoodie-spill-%ld-XXXXXX", tmp, (long)getpid());
    hoodie_status rc = HOODIE_OK;
    if (!mkdtemp(sp->dir)) {
        rc = HOODIE_FAIL(HOODIE_EIO, "cannot make a directory for the merge's copies (%s)", sp->dir);
        free(sp->dir);
        sp->dir = NULL;
    }
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        if (!paths[i]) continue;
        size_t dl = strlen(sp->dir) + 24;
        char *remote = strdup(paths[i]), *copy = malloc(dl);
        if (!remote || !copy) { free(remote); free(copy); rc = HOODIE_NOMEM(); break; }
        snprintf(copy, dl, "%s/%zu", sp->dir, i);
        rc = copy_file(s, remote, sp->local, copy, buf);
        if (rc < 0) { free(remote); free(copy); break; } /* nothing to remove */
        sp->remote[sp->n] = remote;
        sp->copy[sp->n++] = copy;
    }
    free(buf);
    if (rc < 0) {
        if (rc == HOODIE_ENOMEM) { spill_free(sp); return rc; }
        hoodie_warn("the merge reads its files again in each pass: they could not be copied locally (%s)",
                    hoodie_error__message());
        hoodie_error_clear();
        spill_free(sp);
        return HOODIE_OK;
    }
    sp->st = (hoodie_storage){ .version = 3, .ctx = sp, .open_read = sp_open_read, .read_at = sp_read_at,
                               .close_read = sp_close_read, .create = sp_create, .write = sp_write,
                               .finish = sp_finish, .abandon = sp_abandon, .list = sp_list, .remove = sp_remove,
                               .rename = sp_rename, .mkdirs = sp_mkdirs, .rmdir = sp_rmdir, .exists = sp_exists,
                               .destroy = NULL, .will_read = sp_will_read, .map = sp_map, .unmap = sp_unmap };
    *out = sp;
    return HOODIE_OK;
}

hoodie_status hoodie_spill_open_slice(hoodie_spill **out, const hoodie_storage *s, const hoodie_fs_file *const *logs,
                                      size_t n_logs, const char *base)
{
    const char **paths = calloc(n_logs + 1, sizeof *paths);
    if (!paths) return HOODIE_NOMEM();
    for (size_t i = 0; i < n_logs; i++) paths[i] = logs[i]->path;
    paths[n_logs] = base;
    hoodie_status rc = hoodie_spill_open(out, s, paths, n_logs + 1);
    free(paths);
    return rc;
}

const hoodie_storage *hoodie_spill_storage(const hoodie_spill *sp, const hoodie_storage *s)
{
    return sp ? &sp->st : s;
}

void hoodie_spill_free(hoodie_spill *sp)
{
    if (sp) spill_free(sp);
}
