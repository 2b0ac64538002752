/*
 * In-memory storage for tests: a flat list of files and directories keyed by full path. Operations are O(n) in
 * the number of entries, which is fine for test tables. Exclusive create is checked at finish, like POSIX.
 */
#include "hoodie/sys/storage.h"
#include "util/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct mem_entry {
    char *path;
    int is_dir;
    uint8_t *data;
    size_t len;
    unsigned refs;     /* open readers keep data alive after a remove */
    int removed;
} mem_entry;

typedef struct mem_fs {
    hoodie_storage vt;
    pthread_mutex_t mu;
    mem_entry **items;
    size_t count, cap;
} mem_fs;

struct hoodie_rfile { mem_entry *e; };
struct hoodie_wfile { char *path; unsigned flags; uint8_t *data; size_t len, cap; };

static mem_entry *find(mem_fs *fs, const char *path)
{
    for (size_t i = 0; i < fs->count; i++)
        if (!strcmp(fs->items[i]->path, path)) return fs->items[i];
    return NULL;
}

static void entry_release(mem_entry *e)
{
    if (--e->refs == 0) { free(e->path); free(e->data); free(e); }
}

static void unlink_entry(mem_fs *fs, mem_entry *e)
{
    for (size_t i = 0; i < fs->count; i++)
        if (fs->items[i] == e) { fs->items[i] = fs->items[--fs->count]; break; }
    e->removed = 1;
    entry_release(e);
}

static hoodie_status add_entry(mem_fs *fs, const char *path, int is_dir, uint8_t *data, size_t len)
{
    if (fs->count == fs->cap) {
        size_t ncap = fs->cap ? fs->cap * 2 : 64;
        mem_entry **n = realloc(fs->items, ncap * sizeof *n);
        if (!n) return HOODIE_NOMEM();
        fs->items = n;
        fs->cap = ncap;
    }
    mem_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->path = strdup(path))) { free(e); return HOODIE_NOMEM(); }
    e->is_dir = is_dir;
    e->data = data;
    e->len = len;
    e->refs = 1;
    fs->items[fs->count++] = e;
    return HOODIE_OK;
}

static hoodie_status ensure_dirs(mem_fs *fs, const char *path, int include_self)
{
    char *p = strdup(path);
    if (!p) return HOODIE_NOMEM();
    size_t n = strlen(p);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] == '/' || (p[i] == '\0' && include_self)) {
            char c = p[i];
            p[i] = '\0';
            mem_entry *e = find(fs, p);
            if (e && !e->is_dir) { free(p); return HOODIE_FAIL(HOODIE_EIO, "%s is a file", path); }
            if (!e) {
                hoodie_status rc = add_entry(fs, p, 1, NULL, 0);
                if (rc < 0) { free(p); return rc; }
            }
            p[i] = c;
        }
    }
    free(p);
    return HOODIE_OK;
}

static hoodie_status m_open_read(void *ctx, const char *path, hoodie_rfile **out, uint64_t *size_out)
{
    mem_fs *fs = ctx;
    hoodie_status rc = HOODIE_OK;
    *out = NULL;
    pthread_mutex_lock(&fs->mu);
    mem_entry *e = find(fs, path);
    if (!e) rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "cannot open %s: no such file", path);
    else if (e->is_dir) rc = HOODIE_FAIL(HOODIE_EINVAL, "%s is a directory", path);
    else {
        hoodie_rfile *f = malloc(sizeof *f);
        if (!f) rc = HOODIE_NOMEM();
        else { f->e = e; e->refs++; *out = f; *size_out = e->len; }
    }
    pthread_mutex_unlock(&fs->mu);
    return rc;
}

static hoodie_status m_read_at(void *ctx, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    (void)ctx;
    if (off > f->e->len || len > f->e->len - off)
        return HOODIE_CORRUPT("unexpected end of file at offset %llu", (unsigned long long)off);
    if (len) memcpy(buf, f->e->data + off, len);
    return HOODIE_OK;
}

static void m_close_read(void *ctx, hoodie_rfile *f)
{
    mem_fs *fs = ctx;
    if (!f) return;
    pthread_mutex_lock(&fs->mu);
    entry_release(f->e);
    pthread_mutex_unlock(&fs->mu);
    free(f);
}

static hoodie_status m_create(void *ctx, const char *path, unsigned flags, hoodie_wfile **out)
{
    (void)ctx;
    hoodie_wfile *f = calloc(1, sizeof *f);
    *out = NULL;
    if (!f || !(f->path = strdup(path))) { free(f); return HOODIE_NOMEM(); }
    f->flags = flags;
    *out = f;
    return HOODIE_OK;
}

static hoodie_status m_write(void *ctx, hoodie_wfile *f, const void *data, size_t len)
{
    (void)ctx;
    if (f->len + len > f->cap) {
        size_t ncap = f->cap ? f->cap : 256;
        while (ncap < f->len + len) ncap *= 2;
        uint8_t *n = realloc(f->data, ncap);
        if (!n) return HOODIE_NOMEM();
        f->data = n;
        f->cap = ncap;
    }
    memcpy(f->data + f->len, data, len);
    f->len += len;
    return HOODIE_OK;
}

static void m_abandon(void *ctx, hoodie_wfile *f)
{
    (void)ctx;
    if (!f) return;
    free(f->path);
    free(f->data);
    free(f);
}

static hoodie_status m_finish(void *ctx, hoodie_wfile *f)
{
    mem_fs *fs = ctx;
    hoodie_status rc = HOODIE_OK;
    pthread_mutex_lock(&fs->mu);
    mem_entry *e = find(fs, f->path);
    if (e && e->is_dir) rc = HOODIE_FAIL(HOODIE_EIO, "%s is a directory", f->path);
    else if (e && (f->flags & HOODIE_CREATE_EXCLUSIVE)) rc = HOODIE_FAIL(HOODIE_EEXISTS, "%s already exists", f->path);
    else {
        const char *slash = strrchr(f->path, '/');
        if (slash && slash != f->path) {
            char *dir = strndup(f->path, (size_t)(slash - f->path));
            rc = dir ? ensure_dirs(fs, dir, 1) : HOODIE_NOMEM();
            free(dir);
        }
        if (rc == HOODIE_OK) {
            if (e) unlink_entry(fs, e);
            rc = add_entry(fs, f->path, 0, f->data, f->len);
            if (rc == HOODIE_OK) f->data = NULL;
        }
    }
    pthread_mutex_unlock(&fs->mu);
    m_abandon(ctx, f);
    return rc;
}

static hoodie_status m_list(void *ctx, const char *dir, hoodie_storage_list_cb cb, void *payload)
{
    mem_fs *fs = ctx;
    size_t dlen = strlen(dir);
    while (dlen > 1 && dir[dlen - 1] == '/') dlen--;
    pthread_mutex_lock(&fs->mu);
    mem_entry *d = NULL;
    for (size_t i = 0; i < fs->count; i++)
        if (fs->items[i]->is_dir && strlen(fs->items[i]->path) == dlen && !strncmp(fs->items[i]->path, dir, dlen))
            d = fs->items[i];
    if (!d) {
        pthread_mutex_unlock(&fs->mu);
        return HOODIE_FAIL(HOODIE_ENOTFOUND, "cannot list %s: no such directory", dir);
    }
    /* Snapshot the matching entries first so the callback may call back into the storage. */
    size_t n = 0;
    hoodie_dirent *ents = malloc((fs->count + 1) * sizeof *ents);
    char **names = malloc((fs->count + 1) * sizeof *names);
    hoodie_status rc = (ents && names) ? HOODIE_OK : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < fs->count; i++) {
        mem_entry *e = fs->items[i];
        if (strncmp(e->path, dir, dlen) || e->path[dlen] != '/' || strchr(e->path + dlen + 1, '/')) continue;
        names[n] = strdup(e->path + dlen + 1);
        if (!names[n]) { rc = HOODIE_NOMEM(); break; }
        ents[n].name = names[n];
        ents[n].is_dir = e->is_dir;
        ents[n].size = e->len;
        ents[n].mtime_ms = 0;
        n++;
    }
    pthread_mutex_unlock(&fs->mu);
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++)
        if (cb(&ents[i], payload)) break;
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(ents);
    free(names);
    return rc;
}

static hoodie_status m_remove(void *ctx, const char *path)
{
    mem_fs *fs = ctx;
    hoodie_status rc = HOODIE_OK;
    pthread_mutex_lock(&fs->mu);
    mem_entry *e = find(fs, path);
    if (!e || e->is_dir) rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "cannot remove %s: no such file", path);
    else unlink_entry(fs, e);
    pthread_mutex_unlock(&fs->mu);
    return rc;
}

static hoodie_status m_rename(void *ctx, const char *from, const char *to)
{
    mem_fs *fs = ctx;
    hoodie_status rc = HOODIE_OK;
    pthread_mutex_lock(&fs->mu);
    mem_entry *e = find(fs, from);
    if (!e || e->is_dir) rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "cannot rename %s: no such file", from);
    else {
        mem_entry *t = find(fs, to);
        if (t && t->is_dir) rc = HOODIE_FAIL(HOODIE_EIO, "cannot rename onto directory %s", to);
        else {
            char *np = strdup(to);
            if (!np) rc = HOODIE_NOMEM();
            else {
                const char *slash = strrchr(to, '/');
                if (slash && slash != to) {
                    char *dir = strndup(to, (size_t)(slash - to));
                    rc = dir ? ensure_dirs(fs, dir, 1) : HOODIE_NOMEM();
                    free(dir);
                }
                if (rc == HOODIE_OK) {
                    if (t) unlink_entry(fs, t);
                    free(e->path);
                    e->path = np;
                } else free(np);
            }
        }
    }
    pthread_mutex_unlock(&fs->mu);
    return rc;
}

static hoodie_status m_mkdirs(void *ctx, const char *path)
{
    mem_fs *fs = ctx;
    pthread_mutex_lock(&fs->mu);
    hoodie_status rc = ensure_dirs(fs, path, 1);
    pthread_mutex_unlock(&fs->mu);
    return rc;
}

static hoodie_status m_rmdir(void *ctx, const char *path)
{
    mem_fs *fs = ctx;
    hoodie_status rc = HOODIE_OK;
    size_t plen = strlen(path);
    pthread_mutex_lock(&fs->mu);
    mem_entry *e = find(fs, path);
    if (!e || !e->is_dir) rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "cannot remove directory %s", path);
    else {
        for (size_t i = 0; i < fs->count; i++)
            if (!strncmp(fs->items[i]->path, path, plen) && fs->items[i]->path[plen] == '/')
                rc = HOODIE_FAIL(HOODIE_EIO, "cannot remove directory %s: not empty", path);
        if (rc == HOODIE_OK) unlink_entry(fs, e);
    }
    pthread_mutex_unlock(&fs->mu);
    return rc;
}

static int m_exists(void *ctx, const char *path)
{
    mem_fs *fs = ctx;
    pthread_mutex_lock(&fs->mu);
    int r = find(fs, path) != NULL;
    pthread_mutex_unlock(&fs->mu);
    return r;
}

static void m_destroy(void *ctx)
{
    mem_fs *fs = ctx;
    for (size_t i = 0; i < fs->count; i++) entry_release(fs->items[i]);
    free(fs->items);
    pthread_mutex_destroy(&fs->mu);
    free(fs);
}

hoodie_status hoodie_storage_mem_new(hoodie_storage **out)
{
    mem_fs *fs = calloc(1, sizeof *fs);
    *out = NULL;
    if (!fs) return HOODIE_NOMEM();
    pthread_mutex_init(&fs->mu, NULL);
    hoodie_storage vt = { HOODIE_STORAGE_VERSION, fs, m_open_read, m_read_at, m_close_read, m_create, m_write,
                          m_finish, m_abandon, m_list, m_remove, m_rename, m_mkdirs, m_rmdir, m_exists, m_destroy,
                          NULL, NULL, NULL };
    fs->vt = vt;
    hoodie_status rc = ensure_dirs(fs, "/", 1);
    (void)rc;
    *out = &fs->vt;
    return HOODIE_OK;
}
