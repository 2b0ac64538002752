#include "table/fsview.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARTITION_DEPTH 32

typedef struct file_vec { hoodie_fs_file **items; size_t count, cap; } file_vec;
typedef struct str_vec { const char **items; size_t count, cap; } str_vec;

typedef struct build_ctx {
    const hoodie_storage *s;
    const hoodie_table_config *cfg;
    const hoodie_timeline *tl;
    const hoodie_fsview_opts *opts;
    hoodie_fsview *v;
    const char *base_path;
    file_vec files;
    str_vec partitions;
} build_ctx;

static hoodie_status push(void ***items, size_t *count, size_t *cap, void *p)
{
    if (*count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        void **n = realloc(*items, ncap * sizeof *n);
        if (!n) return HOODIE_NOMEM();
        *items = n;
        *cap = ncap;
    }
    (*items)[(*count)++] = p;
    return HOODIE_OK;
}

/* One directory's listing, copied so that we can recurse after the callback returns. */
typedef struct dir_entry { char *name; int is_dir; uint64_t size; } dir_entry;
typedef struct dir_list { dir_entry *items; size_t count, cap; int has_marker; int oom; } dir_list;

static int collect(const hoodie_dirent *e, void *payload)
{
    dir_list *l = payload;
    if (!strcmp(e->name, ".hoodie_partition_metadata")) { l->has_marker = 1; return 0; }
    if (l->count == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 32;
        dir_entry *n = realloc(l->items, ncap * sizeof *n);
        if (!n) { l->oom = 1; return 1; }
        l->items = n;
        l->cap = ncap;
    }
    l->items[l->count].name = strdup(e->name);
    if (!l->items[l->count].name) { l->oom = 1; return 1; }
    l->items[l->count].is_dir = e->is_dir;
    l->items[l->count].size = e->size;
    l->count++;
    return 0;
}

static void dir_list_dispose(dir_list *l)
{
    for (size_t i = 0; i < l->count; i++) free(l->items[i].name);
    free(l->items);
}

static hoodie_status add_file(build_ctx *b, const char *dir, const char *partition, const dir_entry *e)
{
    hoodie_file_name fn;
    hoodie_file_kind k = hoodie_file_name_parse(&fn, e->name);
    if (k == HOODIE_FILE_OTHER) return HOODIE_OK;
    /* base files in the table's format: Parquet, or HFile for the metadata table (read by table/mdt.c) */
    const char *base_ext = b->cfg && b->cfg->base_file_format == HOODIE_BASE_HFILE ? "hfile" : "parquet";
    if (k == HOODIE_FILE_BASE && (fn.ext.len != strlen(base_ext) || memcmp(fn.ext.p, base_ext, fn.ext.len)))
        return HOODIE_OK;
    if (k == HOODIE_FILE_LOG && (fn.cdc || fn.ext.len != 3)) return HOODIE_OK; /* CDC and archive logs: not data */
    if (fn.instant.len > HOODIE_INSTANT_TIME_MAX) return HOODIE_OK;
    hoodie_fs_file *f = hoodie_arena_calloc(b->v->arena, 1, sizeof *f);
    if (!f) return HOODIE_ENOMEM;
    f->name = hoodie_arena_strdup(b->v->arena, e->name);
    f->path = hoodie_arena_sprintf(b->v->arena, "%s/%s", dir, e->name);
    f->partition = partition;
    f->size = e->size;
    if (!f->name || !f->path) return HOODIE_ENOMEM;
    hoodie_file_name_parse(&f->fn, f->name); /* re-parse so the refs point into the arena copy */
    memcpy(f->instant, f->fn.instant.p, f->fn.instant.len);
    f->instant[f->fn.instant.len] = '\0';
    return push((void ***)&b->files.items, &b->files.count, &b->files.cap, f);
}

static hoodie_status walk(build_ctx *b, const char *dir, const char *partition, int depth)
{
    dir_list l = { 0 };
    hoodie_status rc = b->s->list(b->s->ctx, dir, collect, &l);
    if (rc == HOODIE_OK && l.oom) rc = HOODIE_NOMEM();
    if (rc < 0) goto done;
    int is_partition = l.has_marker || (depth == 0 && b->cfg->partition_fields.count == 0);
    if (is_partition && b->opts && b->opts->partition_filter &&
        !b->opts->partition_filter(b->opts->partition_filter_ctx, partition))
        is_partition = 0;
    if (is_partition) {
        const char *p = hoodie_arena_strdup(b->v->arena, partition);
        if (!p) { rc = HOODIE_ENOMEM; goto done; }
        if ((rc = push((void ***)&b->partitions.items, &b->partitions.count, &b->partitions.cap, (void *)p)) < 0)
            goto done;
        for (size_t i = 0; i < l.count && rc == HOODIE_OK; i++)
            if (!l.items[i].is_dir) rc = add_file(b, dir, p, &l.items[i]);
    }
    for (size_t i = 0; i < l.count && rc == HOODIE_OK; i++) {
        const dir_entry *e = &l.items[i];
        if (!e->is_dir || e->name[0] == '.') continue; /* .hoodie, hidden folders */
        if (depth + 1 > MAX_PARTITION_DEPTH) continue;
        char *sub = hoodie_arena_sprintf(b->v->arena, "%s/%s", dir, e->name);
        char *subpart = *partition ? hoodie_arena_sprintf(b->v->arena, "%s/%s", partition, e->name)
                                   : hoodie_arena_strdup(b->v->arena, e->name);
        if (!sub || !subpart) { rc = HOODIE_ENOMEM; break; }
        rc = walk(b, sub, subpart, depth + 1);
    }
done:
    dir_list_dispose(&l);
    return rc;
}

/* The files the metadata table records (table/mdt.h) instead of a listing of storage. */
static hoodie_status from_listing(build_ctx *b, const hoodie_mdt_listing *l)
{
    for (size_t i = 0; i < l->count; i++) {
        const hoodie_mdt_partition *mp = &l->partitions[i];
        if (b->opts->partition_filter && !b->opts->partition_filter(b->opts->partition_filter_ctx, mp->path))
            continue;
        const char *p = hoodie_arena_strdup(b->v->arena, mp->path);
        const char *dir = *mp->path ? hoodie_arena_sprintf(b->v->arena, "%s/%s", b->base_path, mp->path)
                                    : b->base_path;
        if (!p || !dir) return HOODIE_NOMEM();
        HOODIE_TRY(push((void ***)&b->partitions.items, &b->partitions.count, &b->partitions.cap, (void *)p));
        for (size_t f = 0; f < mp->count; f++) {
            dir_entry e = { (char *)mp->files[f].name, 0, mp->files[f].size };
            HOODIE_TRY(add_file(b, dir, p, &e));
        }
    }
    return HOODIE_OK;
}

static const hoodie_instant *completed_instant(const hoodie_timeline *tl, const char *t)
{
    const hoodie_instant *in = hoodie_timeline_find(tl, t, HOODIE_ACTION_COUNT);
    return in && in->state == HOODIE_STATE_COMPLETED ? in : NULL;
}

/* Is the file visible as of the query instant? Sets f->completion for layout 2. */
static int file_visible(build_ctx *b, hoodie_fs_file *f)
{
    const char *as_of = b->opts ? b->opts->as_of : NULL;
    if (as_of && strcmp(f->instant, as_of) > 0) return 0;
    const hoodie_instant *in = completed_instant(b->tl, f->instant);
    if (in) {
        if (!(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action))) return 0;
        snprintf(f->completion, sizeof f->completion, "%s", in->completion);
        return 1;
    }
    if (f->fn.kind == HOODIE_FILE_LOG && b->tl->layout_version == 1) return 1; /* blocks are filtered later */
    return hoodie_timeline_before_start(b->tl, f->instant); /* archived: committed */
}

static int cmp_slice_ref(hoodie_slice_ref a, hoodie_slice_ref b)
{
    size_t n = a.len < b.len ? a.len : b.len;
    int c = memcmp(a.p, b.p, n);
    if (c) return c;
    return (a.len > b.len) - (a.len < b.len);
}

static int cmp_files(const void *pa, const void *pb)
{
    const hoodie_fs_file *a = *(hoodie_fs_file *const *)pa, *b = *(hoodie_fs_file *const *)pb;
    int c = strcmp(a->partition, b->partition);
    if (c) return c;
    c = cmp_slice_ref(a->fn.file_id, b->fn.file_id);
    if (c) return c;
    int ab = a->fn.kind == HOODIE_FILE_BASE, bb = b->fn.kind == HOODIE_FILE_BASE;
    if (ab != bb) return bb - ab; /* bases first */
    return strcmp(a->instant, b->instant);
}

static int cmp_logs(const hoodie_fs_file *a, const hoodie_fs_file *b, int layout)
{
    int c = 0;
    if (layout == 2 && a->completion[0] && b->completion[0]) c = strcmp(a->completion, b->completion);
    if (!c) c = strcmp(a->instant, b->instant);
    if (!c) c = (a->fn.version > b->fn.version) - (a->fn.version < b->fn.version);
    if (!c) c = hoodie_write_token_compare(a->fn.write_token, b->fn.write_token);
    /* a log compaction's native delete file applies before its data file (lsm_compact.c run_log): the deletes
       it carries precede the records of the same keys */
    if (!c) c = (a->fn.kind != HOODIE_FILE_DELETES_NATIVE) - (b->fn.kind != HOODIE_FILE_DELETES_NATIVE);
    return c;
}

static int is_replaced(const hoodie_fsview_opts *o, const char *partition, hoodie_slice_ref file_id)
{
    if (!o) return 0;
    for (size_t i = 0; i < o->replaced_count; i++)
        if (!strcmp(o->replaced_partitions[i], partition) && strlen(o->replaced_file_ids[i]) == file_id.len &&
            !memcmp(o->replaced_file_ids[i], file_id.p, file_id.len))
            return 1;
    return 0;
}

typedef struct slice_build { const char *key; const hoodie_fs_file *base; file_vec logs; } slice_build;

static hoodie_status add_log(slice_build *s, hoodie_fs_file *f)
{
    return push((void ***)&s->logs.items, &s->logs.count, &s->logs.cap, f);
}

/* Build the slices of one group from files[lo, hi) (bases first, by instant). */
static hoodie_status build_group(build_ctx *b, hoodie_fs_file **files, size_t lo, size_t hi)
{
    hoodie_fsview *v = b->v;
    size_t n = hi - lo, ns = 0;
    slice_build *sl = calloc(n + 1, sizeof *sl);
    hoodie_status rc = HOODIE_OK;
    if (!sl) return HOODIE_NOMEM();
    size_t i = lo;
    for (; i < hi && files[i]->fn.kind == HOODIE_FILE_BASE; i++) {
        /* two base files of one instant cannot both be valid; keep the first */
        if (ns && !strcmp(sl[ns - 1].key, files[i]->instant)) continue;
        sl[ns].key = files[i]->instant;
        sl[ns].base = files[i];
        ns++;
    }
    size_t nbase = ns;
    file_vec orphans = { 0 };
    for (; i < hi && rc == HOODIE_OK; i++) {
        hoodie_fs_file *f = files[i];
        slice_build *target = NULL;
        if (v->layout_version == 1) {
            for (size_t k = 0; k < ns; k++)
                if (!strcmp(sl[k].key, f->instant)) { target = &sl[k]; break; }
            if (!target) {
                sl[ns].key = f->instant;
                target = &sl[ns++];
            }
        } else {
            const char *c = f->completion[0] ? f->completion : f->instant;
            for (size_t k = nbase; k-- > 0;)
                if (strcmp(sl[k].key, c) <= 0) { target = &sl[k]; break; }
            if (!target) { rc = push((void ***)&orphans.items, &orphans.count, &orphans.cap, f); continue; }
        }
        rc = add_log(target, f);
    }
    if (rc == HOODIE_OK && orphans.count) {
        const char *key = orphans.items[0]->instant;
        for (size_t k = 1; k < orphans.count; k++)
            if (strcmp(orphans.items[k]->instant, key) < 0) key = orphans.items[k]->instant;
        sl[ns].key = key;
        sl[ns].logs = orphans;
        orphans.items = NULL;
        ns++;
    }
    free(orphans.items);
    /* order slices by key */
    for (size_t a = 1; a < ns; a++)
        for (size_t c = a; c > 0 && strcmp(sl[c - 1].key, sl[c].key) > 0; c--) {
            slice_build t = sl[c];
            sl[c] = sl[c - 1];
            sl[c - 1] = t;
        }
    /* v6: a slice without a valid base after one with a base belongs to a pending (or failed) compaction: its
     * logs continue the previous slice */
    if (v->layout_version == 1) {
        size_t w = 0;
        for (size_t k = 0; k < ns && rc == HOODIE_OK; k++) {
            if (!sl[k].base && w > 0 && sl[w - 1].base) {
                for (size_t j = 0; j < sl[k].logs.count && rc == HOODIE_OK; j++) rc = add_log(&sl[w - 1], sl[k].logs.items[j]);
                free(sl[k].logs.items);
                sl[k].logs.items = NULL;
                continue;
            }
            sl[w++] = sl[k];
        }
        ns = w;
    }
    if (rc == HOODIE_OK && ns) {
        hoodie_file_group *g = &v->groups[v->group_count];
        g->partition = files[lo]->partition;
        g->file_id = hoodie_arena_strndup(v->arena, files[lo]->fn.file_id.p, files[lo]->fn.file_id.len);
        g->slices = hoodie_arena_calloc(v->arena, ns, sizeof *g->slices);
        if (!g->file_id || !g->slices) rc = HOODIE_ENOMEM;
        for (size_t k = 0; k < ns && rc == HOODIE_OK; k++) {
            hoodie_file_slice *s = &g->slices[k];
            s->base_instant = sl[k].key;
            s->base = sl[k].base;
            s->log_count = sl[k].logs.count;
            if (s->log_count) {
                hoodie_fs_file **lg = sl[k].logs.items; /* few logs per slice: insertion sort */
                for (size_t x = 1; x < s->log_count; x++)
                    for (size_t y = x; y > 0 && cmp_logs(lg[y - 1], lg[y], v->layout_version) > 0; y--) {
                        hoodie_fs_file *t = lg[y];
                        lg[y] = lg[y - 1];
                        lg[y - 1] = t;
                    }
                s->logs = hoodie_arena_memdup(v->arena, sl[k].logs.items, s->log_count * sizeof *s->logs);
                if (!s->logs) rc = HOODIE_ENOMEM;
            }
        }
        g->slice_count = ns;
        if (rc == HOODIE_OK) v->group_count++;
    }
    for (size_t k = 0; k < ns; k++) free(sl[k].logs.items);
    free(sl);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

hoodie_status hoodie_fsview_build(hoodie_fsview **out, const hoodie_storage *s, const char *base_path,
                                  const hoodie_table_config *cfg, const hoodie_timeline *tl,
                                  const hoodie_fsview_opts *opts)
{
    build_ctx b;
    hoodie_status rc;
    memset(&b, 0, sizeof b);
    *out = NULL;
    b.s = s ? s : hoodie_storage_default();
    b.cfg = cfg;
    b.tl = tl;
    b.opts = opts;
    b.base_path = base_path;
    b.v = calloc(1, sizeof *b.v);
    if (!b.v) return HOODIE_NOMEM();
    b.v->layout_version = tl->layout_version;
    if ((rc = hoodie_arena_new(&b.v->arena, NULL, 64 * 1024)) < 0) goto fail;
    rc = opts && opts->listing ? from_listing(&b, opts->listing) : walk(&b, base_path, "", 0);
    if (rc < 0) goto fail;

    size_t w = 0;
    for (size_t i = 0; i < b.files.count; i++)
        if (file_visible(&b, b.files.items[i])) b.files.items[w++] = b.files.items[i];
    b.files.count = w;
    if (b.files.count) qsort(b.files.items, b.files.count, sizeof *b.files.items, cmp_files);

    b.v->groups = hoodie_arena_calloc(b.v->arena, b.files.count + 1, sizeof *b.v->groups);
    if (!b.v->groups) { rc = HOODIE_NOMEM(); goto fail; }
    for (size_t lo = 0; lo < b.files.count;) {
        size_t hi = lo + 1;
        while (hi < b.files.count && !strcmp(b.files.items[hi]->partition, b.files.items[lo]->partition) &&
               !cmp_slice_ref(b.files.items[hi]->fn.file_id, b.files.items[lo]->fn.file_id))
            hi++;
        if (!is_replaced(opts, b.files.items[lo]->partition, b.files.items[lo]->fn.file_id) &&
            (rc = build_group(&b, b.files.items, lo, hi)) < 0)
            goto fail;
        lo = hi;
    }
    if (b.partitions.count) qsort(b.partitions.items, b.partitions.count, sizeof *b.partitions.items, cmp_str);
    b.v->partitions = b.partitions.count
        ? hoodie_arena_memdup(b.v->arena, b.partitions.items, b.partitions.count * sizeof *b.partitions.items)
        : NULL;
    b.v->partition_count = b.partitions.count;
    if (b.partitions.count && !b.v->partitions) { rc = HOODIE_NOMEM(); goto fail; }
    free(b.files.items);
    free(b.partitions.items);
    *out = b.v;
    return HOODIE_OK;
fail:
    if (rc == HOODIE_ENOMEM && hoodie_error_last()->code != HOODIE_ENOMEM) rc = HOODIE_NOMEM();
    free(b.files.items);
    free(b.partitions.items);
    hoodie_fsview_free(b.v);
    return rc;
}

void hoodie_fsview_free(hoodie_fsview *v)
{
    if (!v) return;
    hoodie_arena_free(v->arena);
    free(v);
}
