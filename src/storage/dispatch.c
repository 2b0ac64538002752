/*
 * The default storage: s3:// and s3a:// paths go to one S3 storage configured from the environment, made at the
 * first such path and kept for the life of the process; every other path goes to the local file system. Handles
 * remember which of the two opened them.
 */
#include "hoodie/sys/storage.h"
#include "storage/storage.h"
#include "util/error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hoodie_rfile {
    const hoodie_storage *b;
    struct hoodie_rfile *in;
};

struct hoodie_wfile {
    const hoodie_storage *b;
    struct hoodie_wfile *in;
};

static pthread_once_t s3_once = PTHREAD_ONCE_INIT;
static hoodie_storage *g_s3;
static hoodie_status g_s3_rc;
static char g_s3_msg[512];

static void s3_init(void)
{
    g_s3_rc = hoodie_storage_s3_from_env(&g_s3);
    if (g_s3_rc < 0) snprintf(g_s3_msg, sizeof g_s3_msg, "%s", hoodie_error_last()->message);
}

static int is_s3(const char *path) { return !strncmp(path, "s3://", 5) || !strncmp(path, "s3a://", 6); }

/* The backend for `path`, or NULL with the error set. */
static const hoodie_storage *route(const char *path)
{
    if (!is_s3(path)) return hoodie_storage_posix();
    pthread_once(&s3_once, s3_init);
    if (g_s3_rc < 0) {
        hoodie_error__set(g_s3_rc, __FILE__, __LINE__, "%s: S3 storage from the environment: %s", path, g_s3_msg);
        return NULL;
    }
    return g_s3;
}

/* The backend for `path`, or return the error. */
#define ROUTE(b, path) \
    const hoodie_storage *b = route(path); \
    if (!b) return hoodie_error_last()->code

/* Both paths on one backend (rename). */
static const hoodie_storage *route2(const char *a, const char *b)
{
    if (is_s3(a) != is_s3(b)) {
        hoodie_error__set(HOODIE_EINVAL, __FILE__, __LINE__, "cannot rename %s to %s: not on the same storage", a, b);
        return NULL;
    }
    return route(a);
}

static hoodie_status d_open_read(void *ctx, const char *path, hoodie_rfile **out, uint64_t *size_out)
{
    (void)ctx;
    *out = NULL;
    ROUTE(b, path);
    hoodie_rfile *h = malloc(sizeof *h);
    if (!h) return HOODIE_NOMEM();
    h->b = b;
    hoodie_status rc = b->open_read(b->ctx, path, &h->in, size_out);
    if (rc < 0) { free(h); return rc; }
    *out = h;
    return HOODIE_OK;
}

static hoodie_status d_read_at(void *ctx, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    (void)ctx;
    return f->b->read_at(f->b->ctx, f->in, off, buf, len);
}

static void d_will_read(void *ctx, hoodie_rfile *f, const uint64_t *offs, const size_t *lens, size_t n)
{
    (void)ctx;
    hoodie_storage__will_read(f->b, f->in, offs, lens, n);
}

static void d_close_read(void *ctx, hoodie_rfile *f)
{
    (void)ctx;
    if (!f) return;
    f->b->close_read(f->b->ctx, f->in);
    free(f);
}

static hoodie_status d_create(void *ctx, const char *path, unsigned flags, hoodie_wfile **out)
{
    (void)ctx;
    *out = NULL;
    ROUTE(b, path);
    hoodie_wfile *h = malloc(sizeof *h);
    if (!h) return HOODIE_NOMEM();
    h->b = b;
    hoodie_status rc = b->create(b->ctx, path, flags, &h->in);
    if (rc < 0) { free(h); return rc; }
    *out = h;
    return HOODIE_OK;
}

static hoodie_status d_write(void *ctx, hoodie_wfile *f, const void *data, size_t len)
{
    (void)ctx;
    return f->b->write(f->b->ctx, f->in, data, len);
}

static hoodie_status d_finish(void *ctx, hoodie_wfile *f)
{
    (void)ctx;
    hoodie_status rc = f->b->finish(f->b->ctx, f->in);
    free(f);
    return rc;
}

static void d_abandon(void *ctx, hoodie_wfile *f)
{
    (void)ctx;
    if (!f) return;
    f->b->abandon(f->b->ctx, f->in);
    free(f);
}

static hoodie_status d_list(void *ctx, const char *dir, hoodie_storage_list_cb cb, void *payload)
{
    (void)ctx;
    ROUTE(b, dir);
    return b->list(b->ctx, dir, cb, payload);
}

static hoodie_status d_remove(void *ctx, const char *path)
{
    (void)ctx;
    ROUTE(b, path);
    return b->remove(b->ctx, path);
}

static hoodie_status d_mkdirs(void *ctx, const char *path)
{
    (void)ctx;
    ROUTE(b, path);
    return b->mkdirs(b->ctx, path);
}

static hoodie_status d_rmdir(void *ctx, const char *path)
{
    (void)ctx;
    ROUTE(b, path);
    return b->rmdir(b->ctx, path);
}

static int d_exists(void *ctx, const char *path)
{
    (void)ctx;
    ROUTE(b, path);
    return b->exists(b->ctx, path);
}

static hoodie_status d_rename(void *ctx, const char *from, const char *to)
{
    (void)ctx;
    const hoodie_storage *b = route2(from, to);
    if (!b) return hoodie_error_last()->code;
    return b->rename(b->ctx, from, to);
}

static hoodie_status d_map(void *ctx, hoodie_rfile *f, uint64_t size, const void **data)
{
    (void)ctx;
    *data = NULL;
    if (f->b->version < 3 || !f->b->map) return HOODIE_EUNSUPPORTED;
    return f->b->map(f->b->ctx, f->in, size, data);
}

static void d_unmap(void *ctx, hoodie_rfile *f, const void *data, uint64_t size)
{
    (void)ctx;
    if (f->b->version >= 3 && f->b->unmap) f->b->unmap(f->b->ctx, f->in, data, size);
}

static const hoodie_storage default_storage = {
    HOODIE_STORAGE_VERSION, NULL, d_open_read, d_read_at, d_close_read, d_create, d_write, d_finish, d_abandon,
    d_list, d_remove, d_rename, d_mkdirs, d_rmdir, d_exists, NULL, d_will_read, d_map, d_unmap
};

const hoodie_storage *hoodie_storage_default(void) { return &default_storage; }
