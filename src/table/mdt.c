/* The metadata table's files partition (see mdt.h). */
#include "table/mdt.h"
#include "format/avro/binary.h"
#include "format/avro/schema.h"
#include "format/hfile/hfile.h"
#include "format/hlog/hlog.h"
#include "storage/storage.h"
#include "table/config.h"
#include "table/fsview.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALL_PARTITIONS "__all_partitions__"
enum { TYPE_PARTITIONS = 1, TYPE_FILES = 2 };

typedef struct fentry {
    const char *name;  /* arena */
    size_t name_len;
    uint64_t size;
    uint8_t deleted;   /* a tombstone */
    uint8_t gone;      /* removed by a tombstone: as if absent */
} fentry;

typedef struct mrec {
    const char *key;   /* arena */
    size_t key_len;
    int type;
    int deleted;       /* the whole record deleted */
    fentry *e;
    size_t n, cap;
    hoodie_hmap idx;   /* name -> index into e */
} mrec;

typedef struct ctx {
    const hoodie_storage *s;
    const hoodie_timeline *data_tl, *mdt_tl;
    hoodie_arena *a;
    mrec *recs;
    size_t n_recs, cap_recs;
    hoodie_hmap rec_idx;  /* key -> index into recs */
    const char **rolled_back; /* instants of rollback command blocks */
    size_t n_rb;
} ctx;

static mrec *record_of(ctx *c, const uint8_t *key, size_t len)
{
    uint64_t *slot = hoodie_hmap_get(&c->rec_idx, key, len);
    if (slot) return &c->recs[*slot];
    if (c->n_recs == c->cap_recs) {
        size_t nc = c->cap_recs ? c->cap_recs * 2 : 16;
        mrec *p = realloc(c->recs, nc * sizeof *p);
        if (!p) return NULL;
        c->recs = p, c->cap_recs = nc;
    }
    mrec *r = &c->recs[c->n_recs];
    memset(r, 0, sizeof *r);
    r->key = hoodie_arena_strndup(c->a, (const char *)key, len); /* the map borrows this copy */
    r->key_len = len;
    int existed;
    if (!r->key || hoodie_hmap_init(&r->idx, 16) < 0) return NULL;
    if (hoodie_hmap_upsert(&c->rec_idx, r->key, len, &slot, &existed) < 0) {
        hoodie_hmap_dispose(&r->idx);
        return NULL;
    }
    *slot = c->n_recs++;
    return r;
}

static void record_clear(mrec *r)
{
    r->n = 0;
    hoodie_hmap_clear(&r->idx);
}

/* One entry of a newer record merged into r (HoodieTableMetadataUtil.combineFileSystemMetadata). */
static hoodie_status merge_entry(ctx *c, mrec *r, const uint8_t *name, size_t len, uint64_t size, int deleted)
{
    uint64_t *slot = hoodie_hmap_get(&r->idx, name, len);
    if (slot && !r->e[*slot].gone) {
        fentry *o = &r->e[*slot];
        if (deleted) {
            if (!o->deleted) o->gone = 1; /* a live entry removed, the tombstone dropped */
            return HOODIE_OK;              /* deleted twice: the tombstone stays */
        }
        o->size = o->size > size ? o->size : size;
        o->deleted = 0;
        return HOODIE_OK;
    }
    if (slot) { /* removed earlier: as if absent */
        fentry *o = &r->e[*slot];
        o->size = size, o->deleted = (uint8_t)deleted, o->gone = 0;
        return HOODIE_OK;
    }
    if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 16;
        fentry *p = realloc(r->e, nc * sizeof *p);
        if (!p) return HOODIE_NOMEM();
        r->e = p, r->cap = nc;
    }
    fentry *e = &r->e[r->n];
    e->name = hoodie_arena_strndup(c->a, (const char *)name, len);
    if (!e->name) return HOODIE_NOMEM();
    e->name_len = len, e->size = size, e->deleted = (uint8_t)deleted, e->gone = 0;
    int existed;
    HOODIE_TRY(hoodie_hmap_upsert(&r->idx, e->name, len, &slot, &existed));
    *slot = r->n++;
    return HOODIE_OK;
}

/* The field of `rec` named `name`, or -1. */
static int field(const hoodie_avro_schema *rec, const char *name) { return hoodie_avro_field_index(rec, name); }

/* One HoodieMetadataRecord (Avro binary of `schema`) under the HFile key `hkey`, merged into its record. */
static hoodie_status apply_value(ctx *c, const hoodie_avro_schema *schema, const uint8_t *hkey, size_t hkey_len,
                                 const uint8_t *v, size_t vlen, const char *what)
{
    hoodie_cursor cur;
    hoodie_cursor_init(&cur, v, vlen, 0, what);
    int type = 0;
    const uint8_t *key = NULL;
    size_t key_len = 0;
    int f_key = field(schema, "key"), f_type = field(schema, "type"), f_fs = field(schema, "filesystemMetadata");
    if (f_key < 0 || f_type < 0 || f_fs < 0)
        return HOODIE_CORRUPT("%s: the schema is not a HoodieMetadataRecord (no key, type or filesystemMetadata)",
                              what);
    mrec *r = NULL;
    for (size_t i = 0; i < schema->count && cur.status == HOODIE_OK; i++) {
        const hoodie_avro_schema *t = schema->fields[i].type;
        if ((int)i == f_key) {
            const hoodie_avro_schema *b = t->kind == HOODIE_AVRO_UNION ? NULL : t;
            if (!b) { /* a nullable key: its branch */
                int64_t br = hoodie_avro_read_long(&cur);
                if (br < 0 || (size_t)br >= t->count) return HOODIE_CORRUPT("%s: bad union branch of key", what);
                b = t->branches[br];
            }
            if (b->kind == HOODIE_AVRO_STRING) key = hoodie_avro_read_bytes(&cur, &key_len);
            else if (b->kind != HOODIE_AVRO_NULL) hoodie_avro_skip(&cur, b);
        } else if ((int)i == f_type) {
            type = t->kind == HOODIE_AVRO_INT ? hoodie_avro_read_int(&cur) : (hoodie_avro_skip(&cur, t), 0);
        } else if ((int)i == f_fs) {
            const hoodie_avro_schema *b = t;
            if (t->kind == HOODIE_AVRO_UNION) {
                int64_t br = hoodie_avro_read_long(&cur);
                if (cur.status != HOODIE_OK || br < 0 || (size_t)br >= t->count)
                    return HOODIE_CORRUPT("%s: bad union branch of filesystemMetadata", what);
                b = t->branches[br];
            }
            /* the key is known by now (it comes first), or is the HFile's: Hudi writes it as "" and readers
             * take the HFile key */
            if (!key_len) key = hkey, key_len = hkey_len;
            if (!(r = record_of(c, key, key_len))) return HOODIE_NOMEM();
            if (r->deleted) { r->deleted = 0; record_clear(r); } /* re-added after a delete */
            if (b->kind == HOODIE_AVRO_NULL) continue;
            if (b->kind != HOODIE_AVRO_MAP || b->items->kind != HOODIE_AVRO_RECORD)
                return HOODIE_CORRUPT("%s: filesystemMetadata is not a map of records", what);
            const hoodie_avro_schema *fi = b->items;
            int f_size = field(fi, "size"), f_del = field(fi, "isDeleted");
            for (int64_t n; (n = hoodie_avro_read_block_count(&cur)) > 0;) {
                for (int64_t j = 0; j < n && cur.status == HOODIE_OK; j++) {
                    size_t nl;
                    const uint8_t *name = hoodie_avro_read_bytes(&cur, &nl);
                    int64_t size = 0;
                    int del = 0;
                    for (size_t k = 0; k < fi->count && cur.status == HOODIE_OK; k++) {
                        const hoodie_avro_schema *ft = fi->fields[k].type;
                        if ((int)k == f_size && ft->kind == HOODIE_AVRO_LONG) size = hoodie_avro_read_long(&cur);
                        else if ((int)k == f_del && ft->kind == HOODIE_AVRO_BOOLEAN) del = hoodie_cursor_u8(&cur) != 0;
                        else hoodie_avro_skip(&cur, ft);
                    }
                    if (cur.status != HOODIE_OK) break;
                    if (size < 0) return HOODIE_CORRUPT("%s: file '%.*s' of size %lld", what, (int)nl, name, (long long)size);
                    HOODIE_TRY(merge_entry(c, r, name, nl, (uint64_t)size, del));
                }
                if (cur.status != HOODIE_OK) break;
            }
        } else {
            hoodie_avro_skip(&cur, t);
        }
    }
    if (cur.status != HOODIE_OK) return cur.status;
    if (r) r->type = type;
    return HOODIE_OK;
}

/* Every cell of an HFile (a base file, or a block's content), its values decoded by `schema_json` (NULL: the
 * HFile's file info "schema"). */
static hoodie_status apply_hfile(ctx *c, const uint8_t *data, size_t len, const char *schema_json, size_t schema_len,
                                 const char *what)
{
    hoodie_hfile *f;
    HOODIE_TRY(hoodie_hfile_open(&f, data, len, what));
    hoodie_status rc = HOODIE_OK;
    if (!schema_json) {
        const uint8_t *v;
        if (hoodie_hfile_info(f, "schema", &v, &schema_len)) schema_json = (const char *)v;
        else rc = HOODIE_CORRUPT("%s: HFile without a schema in its file info", what);
    }
    hoodie_arena *sa = NULL;
    hoodie_avro_schema *schema = NULL;
    if (rc == HOODIE_OK) rc = hoodie_arena_new(&sa, NULL, 16384);
    if (rc == HOODIE_OK) rc = hoodie_avro_schema_parse(&schema, schema_json, schema_len, sa, what);
    if (rc == HOODIE_OK && schema->kind != HOODIE_AVRO_RECORD)
        rc = HOODIE_CORRUPT("%s: the records' schema is not a record", what);
    hoodie_hfile_iter it;
    hoodie_hfile_iter_init(&it, f);
    hoodie_hfile_kv kv;
    while (rc == HOODIE_OK && (rc = hoodie_hfile_next(&it, &kv)) == HOODIE_OK)
        rc = apply_value(c, schema, kv.key, kv.key_len, kv.value, kv.value_len, what);
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    hoodie_hfile_iter_dispose(&it);
    hoodie_arena_free(sa);
    hoodie_hfile_free(f);
    return rc;
}

static int rolled_back(const ctx *c, const char *instant)
{
    for (size_t i = 0; i < c->n_rb; i++)
        if (!strcmp(c->rolled_back[i], instant)) return 1;
    return 0;
}

/* A block's instant counts: completed on the metadata table's timeline, not pending on the table's own. */
static int instant_valid(const ctx *c, const char *instant)
{
    if (!instant) return 0;
    const hoodie_instant *m = hoodie_timeline_find(c->mdt_tl, instant, HOODIE_ACTION_COUNT);
    if (!m || m->state != HOODIE_STATE_COMPLETED) return 0;
    const hoodie_instant *d = hoodie_timeline_find(c->data_tl, instant, HOODIE_ACTION_COUNT);
    return !d || d->state == HOODIE_STATE_COMPLETED;
}

static hoodie_status apply_log(ctx *c, const hoodie_buf *bytes, const char *path, int pass)
{
    hoodie_hlog_iter it;
    HOODIE_TRY(hoodie_hlog_iter_init(&it, bytes->data, bytes->len, path));
    hoodie_hlog_block b;
    hoodie_status rc;
    char what[512];
    while ((rc = hoodie_hlog_iter_next(&it, &b)) == HOODIE_OK) {
        const char *inst = b.header[HOODIE_HLOG_INSTANT_TIME];
        snprintf(what, sizeof what, "%s: block at offset %llu", path, (unsigned long long)b.offset);
        if (pass == 0) { /* the rollbacks first: they apply to blocks before them */
            const char *target;
            int is_rb = b.type == HOODIE_HLOG_COMMAND_BLOCK ? hoodie_hlog_command_rollback(&b, path, &target) : 0;
            if (is_rb < 0) { rc = is_rb; break; }
            if (is_rb && instant_valid(c, inst)) {
                const char **p = realloc(c->rolled_back, (c->n_rb + 1) * sizeof *p);
                if (!p) { rc = HOODIE_NOMEM(); break; }
                c->rolled_back = p;
                if (!(p[c->n_rb] = hoodie_arena_strdup(c->a, target))) { rc = HOODIE_NOMEM(); break; }
                c->n_rb++;
            }
            continue;
        }
        if (!instant_valid(c, inst) || rolled_back(c, inst)) continue;
        if (b.type == HOODIE_HLOG_HFILE_DATA_BLOCK) {
            rc = apply_hfile(c, b.content, (size_t)b.content_len, b.header[HOODIE_HLOG_SCHEMA],
                             b.header_len[HOODIE_HLOG_SCHEMA], what);
        } else if (b.type == HOODIE_HLOG_DELETE_BLOCK) {
            hoodie_hlog_delete *d;
            size_t n;
            rc = hoodie_hlog_delete_decode(&b, c->a, path, &d, &n);
            for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
                if (!d[i].record_key) continue;
                mrec *r = record_of(c, (const uint8_t *)d[i].record_key, strlen(d[i].record_key));
                if (!r) rc = HOODIE_NOMEM();
                else { r->deleted = 1; record_clear(r); }
            }
        } else if (b.type == HOODIE_HLOG_CORRUPT_BLOCK) {
            rc = HOODIE_CORRUPT("%s: corrupt block at offset %llu: %s", path, (unsigned long long)b.offset,
                                b.corrupt_reason ? b.corrupt_reason : "unreadable");
        } else if (b.type != HOODIE_HLOG_COMMAND_BLOCK) {
            rc = HOODIE_CORRUPT("%s: block at offset %llu of type %d in the metadata table", path,
                                (unsigned long long)b.offset, (int)b.type);
        }
        if (rc < 0) break;
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    hoodie_hlog_iter_dispose(&it);
    return rc;
}

static int only_files(void *unused, const char *partition) { (void)unused; return !strcmp(partition, "files"); }

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const hoodie_mdt_file *)a)->name, ((const hoodie_mdt_file *)b)->name);
}

static int cmp_part(const void *a, const void *b)
{
    return strcmp(((const hoodie_mdt_partition *)a)->path, ((const hoodie_mdt_partition *)b)->path);
}

static hoodie_status build_listing(ctx *c, hoodie_mdt_listing *l)
{
    uint64_t *slot = hoodie_hmap_get(&c->rec_idx, ALL_PARTITIONS, strlen(ALL_PARTITIONS));
    if (!slot) return HOODIE_OK; /* no partition recorded yet */
    const mrec *all = &c->recs[*slot];
    size_t live = 0;
    for (size_t i = 0; i < all->n; i++) live += !all->e[i].gone && !all->e[i].deleted && !all->deleted;
    l->partitions = hoodie_arena_calloc(l->arena, live + 1, sizeof *l->partitions);
    if (!l->partitions) return HOODIE_NOMEM();
    for (size_t i = 0; i < all->n && !all->deleted; i++) {
        const fentry *p = &all->e[i];
        if (p->gone || p->deleted) continue;
        hoodie_mdt_partition *out = &l->partitions[l->count++];
        int root = p->name_len == 1 && p->name[0] == '.';
        out->path = hoodie_arena_strdup(l->arena, root ? "" : p->name);
        if (!out->path) return HOODIE_NOMEM();
        uint64_t *rs = hoodie_hmap_get(&c->rec_idx, p->name, p->name_len);
        const mrec *r = rs ? &c->recs[*rs] : NULL;
        if (!r || r->deleted) continue;
        out->files = hoodie_arena_calloc(l->arena, r->n + 1, sizeof *out->files);
        if (!out->files) return HOODIE_NOMEM();
        for (size_t j = 0; j < r->n; j++) {
            const fentry *e = &r->e[j];
            if (e->gone || e->deleted) continue;
            hoodie_mdt_file *f = &out->files[out->count++];
            if (!(f->name = hoodie_arena_strdup(l->arena, e->name))) return HOODIE_NOMEM();
            f->size = e->size;
        }
        if (out->count > 1) qsort(out->files, out->count, sizeof *out->files, cmp_file);
    }
    if (l->count > 1) qsort(l->partitions, l->count, sizeof *l->partitions, cmp_part);
    return HOODIE_OK;
}

hoodie_status hoodie_mdt_files(hoodie_mdt_listing **out, const hoodie_storage *s, const char *base_path,
                               const hoodie_timeline *data_tl)
{
    *out = NULL;
    if (!s) s = hoodie_storage_default();
    ctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.data_tl = data_tl;
    hoodie_table_config *cfg = NULL;
    hoodie_timeline *tl = NULL;
    hoodie_fsview *v = NULL;
    hoodie_mdt_listing *l = NULL;
    char *mdt = NULL;
    hoodie_buf bytes = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_arena_new(&c.a, NULL, 65536);
    if (rc == HOODIE_OK) rc = hoodie_hmap_init(&c.rec_idx, 64);
    if (rc == HOODIE_OK) {
        size_t n = strlen(base_path) + sizeof "/.hoodie/metadata";
        if (!(mdt = malloc(n))) rc = HOODIE_NOMEM();
        else snprintf(mdt, n, "%s/.hoodie/metadata", base_path);
    }
    if (rc == HOODIE_OK) rc = hoodie_table_config_load(&cfg, s, mdt, 0);
    if (rc == HOODIE_OK) rc = hoodie_timeline_load(&tl, s, mdt, cfg);
    if (rc == HOODIE_OK) {
        c.mdt_tl = tl;
        hoodie_fsview_opts o = { NULL, NULL, NULL, 0, only_files, NULL, NULL };
        rc = hoodie_fsview_build(&v, s, mdt, cfg, tl, &o);
    }
    size_t groups = 0;
    for (size_t g = 0; rc == HOODIE_OK && v && g < v->group_count; g++) {
        const hoodie_file_group *grp = &v->groups[g];
        const hoodie_file_slice *sl = hoodie_file_group_latest(grp);
        if (strcmp(grp->partition, "files") || !sl) continue;
        groups++;
        if (sl->base) {
            bytes.len = 0;
            rc = hoodie_storage_read_all(s, sl->base->path, &bytes);
            if (rc == HOODIE_OK) rc = apply_hfile(&c, bytes.data, bytes.len, NULL, 0, sl->base->path);
        }
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; rc == HOODIE_OK && i < sl->log_count; i++) {
                bytes.len = 0;
                rc = hoodie_storage_read_all(s, sl->logs[i]->path, &bytes);
                if (rc == HOODIE_OK) rc = apply_log(&c, &bytes, sl->logs[i]->path, pass);
            }
    }
    if (rc == HOODIE_OK && !groups)
        rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: the metadata table has no files partition", mdt);
    if (rc == HOODIE_OK && !(l = calloc(1, sizeof *l))) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK) rc = hoodie_arena_new(&l->arena, NULL, 65536);
    if (rc == HOODIE_OK) rc = build_listing(&c, l);
    if (rc == HOODIE_OK) *out = l, l = NULL;
    hoodie_mdt_listing_free(l);
    hoodie_buf_dispose(&bytes);
    for (size_t i = 0; i < c.n_recs; i++) {
        free(c.recs[i].e);
        hoodie_hmap_dispose(&c.recs[i].idx);
    }
    free(c.recs);
    free(c.rolled_back);
    hoodie_hmap_dispose(&c.rec_idx);
    hoodie_arena_free(c.a);
    hoodie_fsview_free(v);
    hoodie_timeline_free(tl);
    hoodie_table_config_free(cfg);
    free(mdt);
    return rc;
}

void hoodie_mdt_listing_free(hoodie_mdt_listing *l)
{
    if (!l) return;
    hoodie_arena_free(l->arena);
    free(l);
}
