/*
 * Fault-injecting storage for tests: wraps another storage and fails the n-th counted operation
 * (HOODIE_FAULT_FAIL_NTH) or every operation from the n-th on (HOODIE_FAULT_CRASH_AT, a process that died there).
 * A failing finish() abandons the file, so nothing of it becomes visible, as with a crash before the rename.
 */
#include "hoodie/sys/storage.h"
#include "storage/storage.h"
#include "util/error.h"

#include <stdlib.h>

typedef struct faulty {
    hoodie_storage vt;
    const hoodie_storage *in;
    hoodie_fault_mode mode;
    uint64_t n, count;
    int fired;
} faulty;

static int tick(faulty *f)
{
    f->count++;
    int fail = (f->mode == HOODIE_FAULT_FAIL_NTH && f->count == f->n) ||
               (f->mode == HOODIE_FAULT_CRASH_AT && f->count >= f->n);
    if (fail) f->fired = 1;
    return fail;
}

#define INJECT(f, what) \
    do { if (tick(f)) return hoodie_error__set_errno(HOODIE_EIO, 5, "injected fault at operation %llu (%s)", \
                                                     (unsigned long long)(f)->count, (what)); } while (0)

static hoodie_status f_open_read(void *ctx, const char *path, hoodie_rfile **out, uint64_t *size_out)
{
    faulty *f = ctx;
    *out = NULL;
    INJECT(f, path);
    return f->in->open_read(f->in->ctx, path, out, size_out);
}

static hoodie_status f_read_at(void *ctx, hoodie_rfile *h, uint64_t off, void *buf, size_t len)
{
    faulty *f = ctx;
    INJECT(f, "read");
    return f->in->read_at(f->in->ctx, h, off, buf, len);
}

static void f_will_read(void *ctx, hoodie_rfile *h, const uint64_t *offs, const size_t *lens, size_t n)
{
    faulty *f = ctx; /* advice, which cannot fail: not an operation to count */
    hoodie_storage__will_read(f->in, h, offs, lens, n);
}

static void f_close_read(void *ctx, hoodie_rfile *h)
{
    faulty *f = ctx;
    f->in->close_read(f->in->ctx, h);
}

static hoodie_status f_create(void *ctx, const char *path, unsigned flags, hoodie_wfile **out)
{
    faulty *f = ctx;
    *out = NULL;
    INJECT(f, path);
    return f->in->create(f->in->ctx, path, flags, out);
}

static hoodie_status f_write(void *ctx, hoodie_wfile *h, const void *data, size_t len)
{
    faulty *f = ctx;
    INJECT(f, "write");
    return f->in->write(f->in->ctx, h, data, len);
}

static hoodie_status f_finish(void *ctx, hoodie_wfile *h)
{
    faulty *f = ctx;
    if (tick(f)) {
        f->in->abandon(f->in->ctx, h);
        return hoodie_error__set_errno(HOODIE_EIO, 5, "injected fault at operation %llu (finish)",
                                       (unsigned long long)f->count);
    }
    return f->in->finish(f->in->ctx, h);
}

static void f_abandon(void *ctx, hoodie_wfile *h)
{
    faulty *f = ctx;
    f->in->abandon(f->in->ctx, h);
}

static hoodie_status f_list(void *ctx, const char *dir, hoodie_storage_list_cb cb, void *payload)
{
    faulty *f = ctx;
    INJECT(f, dir);
    return f->in->list(f->in->ctx, dir, cb, payload);
}

static hoodie_status f_remove(void *ctx, const char *path)
{
    faulty *f = ctx;
    INJECT(f, path);
    return f->in->remove(f->in->ctx, path);
}

static hoodie_status f_rename(void *ctx, const char *from, const char *to)
{
    faulty *f = ctx;
    INJECT(f, from);
    return f->in->rename(f->in->ctx, from, to);
}

static hoodie_status f_mkdirs(void *ctx, const char *path)
{
    faulty *f = ctx;
    INJECT(f, path);
    return f->in->mkdirs(f->in->ctx, path);
}

static hoodie_status f_rmdir(void *ctx, const char *path)
{
    faulty *f = ctx;
    INJECT(f, path);
    return f->in->rmdir(f->in->ctx, path);
}

static int f_exists(void *ctx, const char *path)
{
    faulty *f = ctx;
    return f->in->exists(f->in->ctx, path);
}

static void f_destroy(void *ctx) { free(ctx); }

hoodie_status hoodie_storage_faulty_new(hoodie_storage **out, const hoodie_storage *inner)
{
    faulty *f = calloc(1, sizeof *f);
    *out = NULL;
    if (!f) return HOODIE_NOMEM();
    hoodie_storage vt = { HOODIE_STORAGE_VERSION, f, f_open_read, f_read_at, f_close_read, f_create, f_write,
                          f_finish, f_abandon, f_list, f_remove, f_rename, f_mkdirs, f_rmdir, f_exists, f_destroy,
                          f_will_read, NULL, NULL };
    f->vt = vt;
    f->in = inner ? inner : hoodie_storage_default();
    *out = &f->vt;
    return HOODIE_OK;
}

void hoodie_storage_faulty_arm(hoodie_storage *s, hoodie_fault_mode mode, uint64_t n)
{
    faulty *f = s->ctx;
    f->mode = mode;
    f->n = n;
    f->count = 0;
    f->fired = 0;
}

uint64_t hoodie_storage_faulty_count(const hoodie_storage *s) { return ((const faulty *)s->ctx)->count; }
int hoodie_storage_faulty_fired(const hoodie_storage *s) { return ((const faulty *)s->ctx)->fired; }
