#include "storage/storage.h"
#include "util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

void hoodie_storage_free(hoodie_storage *s)
{
    if (!s) return;
    if (s->destroy) s->destroy(s->ctx);
}

hoodie_status hoodie_reader_open(hoodie_reader *r, const hoodie_storage *s, const char *path)
{
    s = hoodie_storage__or_default(s);
    r->s = s;
    r->path = path;
    r->f = NULL;
    r->size = 0;
    return s->open_read(s->ctx, path, &r->f, &r->size);
}

hoodie_status hoodie_reader_read(hoodie_reader *r, uint64_t off, void *buf, size_t len)
{
    if (off > r->size || len > r->size - off)
        return HOODIE_CORRUPT("%s: read of %zu bytes at offset %llu runs past the end of the file (%llu bytes)",
                              r->path, len, (unsigned long long)off, (unsigned long long)r->size);
    return r->s->read_at(r->s->ctx, r->f, off, buf, len);
}

void hoodie_reader_will_read(hoodie_reader *r, const uint64_t *offs, const size_t *lens, size_t n)
{
    if (r->f) hoodie_storage__will_read(r->s, r->f, offs, lens, n);
}

void hoodie_reader_close(hoodie_reader *r)
{
    if (r->f) r->s->close_read(r->s->ctx, r->f);
    r->f = NULL;
}

/* The rest of an open file appended to `out`, and r closed. On failure an empty `out` stays empty. */
static hoodie_status read_open(hoodie_reader *r, hoodie_buf *out)
{
    int had_memory = out->data != NULL;
    hoodie_status rc = r->size > SIZE_MAX / 2 ? HOODIE_FAIL(HOODIE_ENOMEM, "%s: too large", r->path) : HOODIE_OK;
    if (rc == HOODIE_OK) rc = hoodie_buf_reserve(out, (size_t)r->size + 1);
    if (rc == HOODIE_OK && r->size) rc = hoodie_reader_read(r, 0, out->data + out->len, (size_t)r->size);
    if (rc == HOODIE_OK) {
        out->len += (size_t)r->size;
        out->data[out->len] = '\0';
    } else if (!had_memory) {
        hoodie_buf_dispose(out); /* a failed read leaves the caller's empty buffer as it was */
    }
    hoodie_reader_close(r);
    return rc;
}

hoodie_status hoodie_storage_read_all(const hoodie_storage *s, const char *path, hoodie_buf *out)
{
    hoodie_reader r;
    HOODIE_TRY(hoodie_reader_open(&r, s, path));
    return read_open(&r, out);
}

hoodie_status hoodie_storage_file_bytes(const hoodie_storage *s, const char *path, hoodie_buf *buf,
                                        hoodie_file_bytes *out)
{
    return hoodie_storage_file_bytes_or_reader(s, path, buf, UINT64_MAX, out, NULL);
}

hoodie_status hoodie_storage_file_bytes_or_reader(const hoodie_storage *s, const char *path, hoodie_buf *buf,
                                                  uint64_t whole_max, hoodie_file_bytes *out, hoodie_reader *ranged)
{
    hoodie_reader r;
    memset(out, 0, sizeof *out);
    if (ranged) memset(ranged, 0, sizeof *ranged);
    s = hoodie_storage__or_default(s);
    HOODIE_TRY(hoodie_reader_open(&r, s, path));
    if (s->version >= 3 && s->map && s->unmap) {
        const void *p = NULL;
        if (r.size > 0 && r.size <= SIZE_MAX / 2 && s->map(s->ctx, r.f, r.size, &p) == HOODIE_OK) {
            out->data = p;
            out->len = (size_t)r.size;
            out->s = s;
            out->f = r.f;
            return HOODIE_OK;
        }
        hoodie_error_clear(); /* not mapped: read */
    }
    if (ranged && r.size > whole_max) {
        *ranged = r;
        return HOODIE_OK;
    }
    buf->len = 0;
    HOODIE_TRY(read_open(&r, buf));
    out->data = buf->data;
    out->len = buf->len;
    return HOODIE_OK;
}

void hoodie_file_bytes_done(hoodie_file_bytes *b)
{
    if (b->f) {
        b->s->unmap(b->s->ctx, b->f, b->data, b->len);
        b->s->close_read(b->s->ctx, b->f);
    }
    memset(b, 0, sizeof *b);
}

void hoodie_file_bytes_drop(hoodie_file_bytes *b, uint64_t off, uint64_t len)
{
#if defined(__linux__) && defined(MADV_DONTNEED)
    if (!b->f || off >= b->len) return; /* read into a buffer: its bytes must stay */
    if (len > b->len - off) len = b->len - off;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)b->data + (uintptr_t)off + page - 1) & ~(page - 1);
    uintptr_t to = ((uintptr_t)b->data + (uintptr_t)(off + len)) & ~(page - 1);
    if (to > from) (void)madvise((void *)from, to - from, MADV_DONTNEED); /* advice: a failure changes nothing */
#else
    (void)b;
    (void)off;
    (void)len;
#endif
}

hoodie_status hoodie_wfile_open(hoodie_writer_file *w, const hoodie_storage *s, const char *path, unsigned flags)
{
    s = hoodie_storage__or_default(s);
    w->s = s;
    w->f = NULL;
    w->written = 0;
    return s->create(s->ctx, path, flags, &w->f);
}

hoodie_status hoodie_wfile_write(hoodie_writer_file *w, const void *data, size_t len)
{
    if (!len) return HOODIE_OK;
    HOODIE_TRY(w->s->write(w->s->ctx, w->f, data, len));
    w->written += len;
    return HOODIE_OK;
}

hoodie_status hoodie_wfile_finish(hoodie_writer_file *w)
{
    hoodie_wfile *f = w->f;
    w->f = NULL;
    return f ? w->s->finish(w->s->ctx, f) : HOODIE_OK;
}

void hoodie_wfile_abandon(hoodie_writer_file *w)
{
    if (w->f) w->s->abandon(w->s->ctx, w->f);
    w->f = NULL;
}

hoodie_status hoodie_storage_write_all(const hoodie_storage *s, const char *path, unsigned flags,
                                       const void *data, size_t len)
{
    hoodie_writer_file w;
    HOODIE_TRY(hoodie_wfile_open(&w, s, path, flags));
    hoodie_status rc = hoodie_wfile_write(&w, data, len);
    if (rc < 0) { hoodie_wfile_abandon(&w); return rc; }
    return hoodie_wfile_finish(&w);
}

typedef struct tree_item { char *name; int is_dir; } tree_item;
typedef struct tree_list { tree_item *items; size_t count, cap; int oom; } tree_list;

static int collect(const hoodie_dirent *e, void *payload)
{
    tree_list *l = payload;
    if (l->count == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        tree_item *n = realloc(l->items, ncap * sizeof *n);
        if (!n) { l->oom = 1; return 1; }
        l->items = n;
        l->cap = ncap;
    }
    l->items[l->count].name = strdup(e->name);
    if (!l->items[l->count].name) { l->oom = 1; return 1; }
    l->items[l->count].is_dir = e->is_dir;
    l->count++;
    return 0;
}

hoodie_status hoodie_storage_remove_tree(const hoodie_storage *s, const char *dir)
{
    tree_list l = { 0 };
    hoodie_status rc;
    s = hoodie_storage__or_default(s);
    rc = s->list(s->ctx, dir, collect, &l);
    if (rc == HOODIE_ENOTFOUND) { rc = HOODIE_OK; goto done; }
    if (rc < 0) goto done;
    if (l.oom) { rc = HOODIE_NOMEM(); goto done; }
    for (size_t i = 0; i < l.count && rc == HOODIE_OK; i++) {
        size_t n = strlen(dir) + strlen(l.items[i].name) + 2;
        char *p = malloc(n);
        if (!p) { rc = HOODIE_NOMEM(); break; }
        snprintf(p, n, "%s/%s", dir, l.items[i].name);
        rc = l.items[i].is_dir ? hoodie_storage_remove_tree(s, p) : s->remove(s->ctx, p);
        if (rc == HOODIE_ENOTFOUND) rc = HOODIE_OK;
        free(p);
    }
    if (rc == HOODIE_OK && s->rmdir) {
        rc = s->rmdir(s->ctx, dir);
        if (rc == HOODIE_ENOTFOUND) rc = HOODIE_OK;
    }
done:
    for (size_t i = 0; i < l.count; i++) free(l.items[i].name);
    free(l.items);
    return rc;
}
