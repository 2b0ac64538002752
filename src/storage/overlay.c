/*
 * A read-only view of another storage with one more file in it: what readers would see if that file existed.
 * A writer's pre-commit validation reads the table through it with the completed instant file it is about to
 * create (write/writer.c), so the pending commit reads as completed without anything being made visible.
 *
 * Reads, listings and existence checks go to the inner storage, except for the added file, which is served from
 * memory and listed in its folder (in place of an inner file of the same name, which cannot exist: the instant
 * file is created exclusively). Every change (create, remove, rename, mkdirs, rmdir) is refused.
 */
#include "storage/overlay.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

typedef struct overlay {
    hoodie_storage vt;
    const hoodie_storage *in;
    char *path;        /* the added file's full path */
    size_t dir_len;    /* its folder: path[0, dir_len) */
    const char *name;  /* its name: path + dir_len + 1 */
    uint8_t *data;
    size_t len;
} overlay;

/* A read handle: the added file (inner NULL) or an inner handle. */
struct hoodie_rfile {
    struct hoodie_rfile *inner;
};

/* `a` and `b` name the same folder, trailing slashes aside. */
static int same_dir(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    while (alen > 1 && a[alen - 1] == '/') alen--;
    while (blen > 1 && b[blen - 1] == '/') blen--;
    return alen == blen && !memcmp(a, b, alen);
}

static hoodie_status ov_open_read(void *ctx, const char *path, hoodie_rfile **out, uint64_t *size_out)
{
    overlay *o = ctx;
    hoodie_rfile *h = malloc(sizeof *h);
    *out = NULL;
    if (!h) return HOODIE_NOMEM();
    h->inner = NULL;
    if (!strcmp(path, o->path)) {
        *size_out = o->len;
    } else {
        hoodie_status rc = o->in->open_read(o->in->ctx, path, &h->inner, size_out);
        if (rc < 0) { free(h); return rc; }
    }
    *out = h;
    return HOODIE_OK;
}

static hoodie_status ov_read_at(void *ctx, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    overlay *o = ctx;
    hoodie_rfile *h = f;
    if (h->inner) return o->in->read_at(o->in->ctx, h->inner, off, buf, len);
    if (off > o->len || len > o->len - off)
        return HOODIE_FAIL(HOODIE_EIO, "%s: read of %zu bytes at offset %llu past its end (%zu bytes)", o->path, len,
                           (unsigned long long)off, o->len);
    if (len) memcpy(buf, o->data + off, len);
    return HOODIE_OK;
}

static void ov_close_read(void *ctx, hoodie_rfile *f)
{
    overlay *o = ctx;
    hoodie_rfile *h = f;
    if (!h) return;
    if (h->inner) o->in->close_read(o->in->ctx, h->inner);
    free(h);
}

static hoodie_status refuse(const char *what, const char *path)
{
    return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "cannot %s %s: a read-only view of the table (pre-commit)", what, path);
}

static hoodie_status ov_create(void *ctx, const char *path, unsigned flags, hoodie_wfile **out)
{
    (void)ctx;
    (void)flags;
    *out = NULL;
    return refuse("create", path);
}

static hoodie_status ov_write(void *ctx, hoodie_wfile *f, const void *data, size_t len)
{
    (void)ctx;
    (void)f;
    (void)data;
    (void)len;
    return refuse("write", "a file");
}

static hoodie_status ov_finish(void *ctx, hoodie_wfile *f)
{
    (void)ctx;
    (void)f;
    return refuse("finish", "a file");
}

static void ov_abandon(void *ctx, hoodie_wfile *f)
{
    (void)ctx;
    (void)f;
}

typedef struct list_ctx {
    const overlay *o;
    hoodie_storage_list_cb cb;
    void *payload;
    int stopped;
} list_ctx;

static int list_inner(const hoodie_dirent *e, void *payload)
{
    list_ctx *lc = payload;
    if (!strcmp(e->name, lc->o->name)) return 0; /* listed once, as the added file */
    int r = lc->cb(e, lc->payload);
    if (r) lc->stopped = 1;
    return r;
}

static hoodie_status ov_list(void *ctx, const char *dir, hoodie_storage_list_cb cb, void *payload)
{
    overlay *o = ctx;
    list_ctx lc = { o, cb, payload, 0 };
    hoodie_status rc = o->in->list(o->in->ctx, dir, list_inner, &lc);
    if (rc < 0 || lc.stopped || !same_dir(o->path, o->dir_len, dir)) return rc;
    hoodie_dirent e = { o->name, 0, (uint64_t)o->len, 0 };
    (void)cb(&e, payload);
    return HOODIE_OK;
}

static hoodie_status ov_remove(void *ctx, const char *path)
{
    (void)ctx;
    return refuse("remove", path);
}

static hoodie_status ov_rename(void *ctx, const char *from, const char *to)
{
    (void)ctx;
    (void)to;
    return refuse("rename", from);
}

static hoodie_status ov_mkdirs(void *ctx, const char *path)
{
    (void)ctx;
    return refuse("create the folder", path);
}

static hoodie_status ov_rmdir(void *ctx, const char *path)
{
    (void)ctx;
    return refuse("remove the folder", path);
}

static int ov_exists(void *ctx, const char *path)
{
    overlay *o = ctx;
    if (!strcmp(path, o->path)) return 1;
    return o->in->exists(o->in->ctx, path);
}

static void ov_destroy(void *ctx)
{
    overlay *o = ctx;
    free(o->path);
    free(o->data);
    free(o);
}

hoodie_status hoodie_storage_overlay_new(hoodie_storage **out, const hoodie_storage *inner, const char *path,
                                         const void *data, size_t len)
{
    *out = NULL;
    const char *slash = strrchr(path, '/');
    if (!slash || !slash[1]) return HOODIE_FAIL(HOODIE_EINVAL, "overlay: '%s' is not a file path", path);
    overlay *o = calloc(1, sizeof *o);
    if (!o) return HOODIE_NOMEM();
    o->in = inner;
    o->path = strdup(path);
    o->data = malloc(len ? len : 1);
    if (!o->path || !o->data) { ov_destroy(o); return HOODIE_NOMEM(); }
    if (len) memcpy(o->data, data, len);
    o->len = len;
    o->dir_len = (size_t)(slash - path);
    o->name = o->path + o->dir_len + 1;
    o->vt = (hoodie_storage){ HOODIE_STORAGE_VERSION, o, ov_open_read, ov_read_at, ov_close_read, ov_create,
                              ov_write, ov_finish, ov_abandon, ov_list, ov_remove, ov_rename, ov_mkdirs,
                              ov_rmdir, ov_exists, ov_destroy, NULL, NULL, NULL };
    *out = &o->vt;
    return HOODIE_OK;
}
