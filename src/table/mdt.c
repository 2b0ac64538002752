/* The metadata table's files partition (see mdt.h). */
#include "table/mdt.h"
#include "format/avro/binary.h"
#include "format/avro/schema.h"
#include "format/hfile/hfile.h"
#include "format/hlog/hlog.h"
#include "storage/storage.h"
#include "table/config.h"
#include "table/bucket.h"
#include "table/fsview.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/warn.h"

#include <jansson.h>
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
    /* record index lookups: these keys (sorted) are looked up in each HFile (instead of every cell merged) and
     * their locations set, or cleared by a delete */
    const char *const *keys;
    size_t n_keys;
    hoodie_mdt_location **locs;
    /* column stats: every record merged into this map of "file\x01column" to an index of stats */
    hoodie_mdt_colstats *cs;
    /* column stats records whole (hoodie_mdt_cs_group): merged by key, in c->a */
    int raw;
    hoodie_mdt_csrec *raw_recs;
    size_t n_raw, cap_raw;
    hoodie_hmap raw_idx; /* key -> index into raw_recs (or rli_recs) */
    /* record index records whole (hoodie_mdt_rli_group): merged by key (the later wins), in c->a */
    int rli;
    hoodie_mdt_rlirec *rli_recs;
    size_t n_rli, cap_rli;
    /* hoodie_mdt_rli_keys_in: the file groups asked about ("partition\x01file id"); each record's `in` says
     * whether its location is one of them */
    const hoodie_hmap *rli_in;
    hoodie_buf where;
    hoodie_hmap ri_memo; /* a location's bytes -> 1 + whether it is in rli_in (a file group's keys share them) */
    /* a secondary index read in the record index's mode: entries live unless SecondaryIndexMetadata.isDeleted;
     * with si_pre (sorted), only the keys starting with one of these prefixes */
    int si;
    const char *const *si_pre;
    size_t n_si_pre;
} ctx;

/* Whether `key` starts with one of c->si_pre (all keys when there are none). */
static int si_wanted(const ctx *c, const uint8_t *key, size_t len)
{
    if (!c->si_pre) return 1;
    for (size_t i = 0; i < c->n_si_pre; i++) {
        size_t pl = strlen(c->si_pre[i]);
        if (len >= pl && !memcmp(key, c->si_pre[i], pl)) return 1;
    }
    return 0;
}

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

/* The union branch of a nullable field value: its schema, or NULL for null. */
static const hoodie_avro_schema *branch(hoodie_cursor *cur, const hoodie_avro_schema *t)
{
    if (t->kind != HOODIE_AVRO_UNION) return t;
    int64_t br = hoodie_avro_read_long(cur);
    if (cur->status != HOODIE_OK || br < 0 || (size_t)br >= t->count) {
        if (cur->status == HOODIE_OK) hoodie_cursor__fail(cur, "union branch %lld out of range", (long long)br);
        return NULL;
    }
    return t->branches[br]->kind == HOODIE_AVRO_NULL ? NULL : t->branches[br];
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
            const hoodie_avro_schema *b = branch(&cur, t);
            if (b && b->kind == HOODIE_AVRO_STRING) key = hoodie_avro_read_bytes(&cur, &key_len);
            else if (b) hoodie_avro_skip(&cur, b);
        } else if ((int)i == f_type) {
            type = t->kind == HOODIE_AVRO_INT ? hoodie_avro_read_int(&cur) : (hoodie_avro_skip(&cur, t), 0);
        } else if ((int)i == f_fs) {
            const hoodie_avro_schema *b = branch(&cur, t); /* NULL: a null map */
            if (cur.status != HOODIE_OK) return cur.status;
            /* the key is known by now (it comes first), or is the HFile's: Hudi writes it as "" and readers
             * take the HFile key */
            if (!key_len) key = hkey, key_len = hkey_len;
            if (!(r = record_of(c, key, key_len))) return HOODIE_NOMEM();
            if (r->deleted) { r->deleted = 0; record_clear(r); } /* re-added after a delete */
            if (!b) continue;
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

static hoodie_status decode_location(ctx *c, const hoodie_avro_schema *schema, const uint8_t *v, size_t vlen,
                                     hoodie_mdt_location *loc, const char *what);
static hoodie_status apply_colstats(ctx *c, const hoodie_avro_schema *schema, const uint8_t *v, size_t vlen,
                                    const char *what);
static hoodie_status apply_raw(ctx *c, const hoodie_avro_schema *schema, const uint8_t *key, size_t key_len,
                               const uint8_t *v, size_t vlen, const char *what);
static hoodie_status raw_delete(ctx *c, const char *key);
static hoodie_status apply_rli(ctx *c, const hoodie_avro_schema *schema, const uint8_t *key, size_t key_len,
                               const uint8_t *v, size_t vlen, const char *what);
static hoodie_status rli_delete(ctx *c, const char *key);

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
    if (c->keys) { /* record index: the keys looked up, the latest location of each kept */
        for (size_t i = 0; rc == HOODIE_OK && i < c->n_keys; i++) {
            rc = hoodie_hfile_get(&it, (const uint8_t *)c->keys[i], strlen(c->keys[i]), &kv);
            if (rc == HOODIE_OK) rc = decode_location(c, schema, kv.value, kv.value_len, c->locs[i], what);
            else if (rc == HOODIE_ENOTFOUND) rc = HOODIE_OK;
        }
    } else if (c->si_pre) { /* secondary index: the cells under each prefix (sorted: one seek each) */
        for (size_t i = 0; rc == HOODIE_OK && i < c->n_si_pre; i++) {
            size_t pl = strlen(c->si_pre[i]);
            rc = hoodie_hfile_seek(&it, (const uint8_t *)c->si_pre[i], pl);
            while (rc == HOODIE_OK && (rc = hoodie_hfile_next(&it, &kv)) == HOODIE_OK &&
                   kv.key_len >= pl && !memcmp(kv.key, c->si_pre[i], pl))
                rc = apply_rli(c, schema, kv.key, kv.key_len, kv.value, kv.value_len, what);
            if (rc == HOODIE_OK || rc == HOODIE_ITEROVER) rc = HOODIE_OK;
        }
    } else {
        while (rc == HOODIE_OK && (rc = hoodie_hfile_next(&it, &kv)) == HOODIE_OK)
            rc = c->rli  ? apply_rli(c, schema, kv.key, kv.key_len, kv.value, kv.value_len, what)
                 : c->raw  ? apply_raw(c, schema, kv.key, kv.key_len, kv.value, kv.value_len, what)
                 : c->cs ? apply_colstats(c, schema, kv.value, kv.value_len, what)
                         : apply_value(c, schema, kv.key, kv.key_len, kv.value, kv.value_len, what);
        if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    }
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
        if (b.type == HOODIE_HLOG_CORRUPT_BLOCK) { /* as Hudi's log reader: a failed append's bytes */
            hoodie_warn("%s: corrupt log block at offset %llu skipped (%s)", path, (unsigned long long)b.offset,
                        b.corrupt_reason ? b.corrupt_reason : "unreadable");
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
            for (size_t i = 0; rc == HOODIE_OK && c->keys && i < n; i++) { /* c->keys are sorted */
                if (!d[i].record_key) continue;
                size_t lo = 0, hi = c->n_keys;
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (strcmp(c->keys[mid], d[i].record_key) < 0) lo = mid + 1;
                    else hi = mid;
                }
                for (; lo < c->n_keys && !strcmp(c->keys[lo], d[i].record_key); lo++) c->locs[lo]->found = 0;
            }
            for (size_t i = 0; rc == HOODIE_OK && (c->raw || c->rli) && i < n; i++)
                if (d[i].record_key && si_wanted(c, (const uint8_t *)d[i].record_key, strlen(d[i].record_key)))
                    rc = c->rli ? rli_delete(c, d[i].record_key) : raw_delete(c, d[i].record_key);
            for (size_t i = 0; rc == HOODIE_OK && !c->keys && !c->raw && !c->rli && i < n; i++) {
                if (!d[i].record_key) continue;
                mrec *r = record_of(c, (const uint8_t *)d[i].record_key, strlen(d[i].record_key));
                if (!r) rc = HOODIE_NOMEM();
                else { r->deleted = 1; record_clear(r); }
            }
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

/* One partition of the metadata table, open: its config, timeline and view (that partition only). */
typedef struct mdt_part {
    char *path; /* <base>/.hoodie/metadata */
    hoodie_table_config *cfg;
    hoodie_timeline *tl;
    hoodie_fsview *v;
} mdt_part;

static int only_partition(void *want, const char *partition) { return !strcmp(partition, (const char *)want); }

static void part_close(mdt_part *m)
{
    hoodie_fsview_free(m->v);
    hoodie_timeline_free(m->tl);
    hoodie_table_config_free(m->cfg);
    free(m->path);
    memset(m, 0, sizeof *m);
}

static hoodie_status part_open(mdt_part *m, const hoodie_storage *s, const char *base_path, const char *partition)
{
    memset(m, 0, sizeof *m);
    size_t n = strlen(base_path) + sizeof "/.hoodie/metadata";
    if (!(m->path = malloc(n))) return HOODIE_NOMEM();
    snprintf(m->path, n, "%s/.hoodie/metadata", base_path);
    hoodie_status rc = hoodie_table_config_load(&m->cfg, s, m->path, 0);
    if (rc == HOODIE_OK) rc = hoodie_timeline_load(&m->tl, s, m->path, m->cfg);
    if (rc == HOODIE_OK) {
        hoodie_fsview_opts o = { NULL, NULL, NULL, 0, only_partition, (void *)partition, NULL };
        rc = hoodie_fsview_build(&m->v, s, m->path, m->cfg, m->tl, &o);
    }
    size_t groups = 0;
    for (size_t g = 0; rc == HOODIE_OK && g < m->v->group_count; g++)
        groups += !strcmp(m->v->groups[g].partition, partition) && hoodie_file_group_latest(&m->v->groups[g]);
    if (rc == HOODIE_OK && !groups)
        rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: the metadata table has no %s partition", m->path, partition);
    if (rc < 0) part_close(m);
    return rc;
}

void hoodie_mdt_compaction_floor(const hoodie_timeline *tl, char out[HOODIE_INSTANT_TIME_MAX + 1])
{
    out[0] = '\0';
    const hoodie_instant *c = hoodie_timeline_last_completed(tl, HOODIE_ACTION_BIT(HOODIE_ACTION_COMMIT));
    if (c) snprintf(out, HOODIE_INSTANT_TIME_MAX + 1, "%s", c->requested);
    /* a deltacommit requested before it but completed after it is in the new slice's logs: it stays too */
    for (size_t i = 0; c && i < tl->count; i++) {
        const hoodie_instant *d = &tl->instants[i];
        if (d->action == HOODIE_ACTION_DELTACOMMIT && strcmp(d->requested, out) < 0 &&
            (!*d->completion || strcmp(d->completion, c->requested) > 0))
            snprintf(out, HOODIE_INSTANT_TIME_MAX + 1, "%s", d->requested);
    }
}

hoodie_status hoodie_mdt_latest_compaction(const hoodie_storage *s, const char *base_path,
                                          char out[HOODIE_INSTANT_TIME_MAX + 1])
{
    out[0] = '\0';
    size_t n = strlen(base_path) + sizeof "/.hoodie/metadata";
    char *path = malloc(n);
    if (!path) return HOODIE_NOMEM();
    snprintf(path, n, "%s/.hoodie/metadata", base_path);
    hoodie_table_config *cfg = NULL;
    hoodie_timeline *tl = NULL;
    hoodie_status rc = hoodie_table_config_load(&cfg, s, path, 0);
    if (rc == HOODIE_OK) rc = hoodie_timeline_load(&tl, s, path, cfg);
    if (rc == HOODIE_OK) hoodie_mdt_compaction_floor(tl, out);
    hoodie_timeline_free(tl);
    hoodie_table_config_free(cfg);
    free(path);
    return rc;
}

/* The latest slice of a file group of the metadata table: its base file, then its logs (rollbacks first). */
static hoodie_status read_slice(ctx *c, const hoodie_file_slice *sl, hoodie_buf *bytes)
{
    hoodie_status rc = HOODIE_OK;
    if (sl->base) {
        bytes->len = 0;
        rc = hoodie_storage_read_all(c->s, sl->base->path, bytes);
        if (rc == HOODIE_OK) rc = apply_hfile(c, bytes->data, bytes->len, NULL, 0, sl->base->path);
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; rc == HOODIE_OK && i < sl->log_count; i++) {
            bytes->len = 0;
            rc = hoodie_storage_read_all(c->s, sl->logs[i]->path, bytes);
            if (rc == HOODIE_OK) rc = apply_log(c, bytes, sl->logs[i]->path, pass);
        }
    return rc;
}

static void ctx_dispose(ctx *c)
{
    for (size_t i = 0; i < c->n_recs; i++) {
        free(c->recs[i].e);
        hoodie_hmap_dispose(&c->recs[i].idx);
    }
    free(c->recs);
    free(c->rolled_back);
    free(c->raw_recs);
    free(c->rli_recs);
    hoodie_buf_dispose(&c->where);
    hoodie_hmap_dispose(&c->ri_memo);
    hoodie_hmap_dispose(&c->raw_idx);
    hoodie_hmap_dispose(&c->rec_idx);
    hoodie_arena_free(c->a);
}

static hoodie_status ctx_init(ctx *c, const hoodie_storage *s, const hoodie_timeline *data_tl)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->data_tl = data_tl;
    HOODIE_TRY(hoodie_arena_new(&c->a, NULL, 65536));
    return hoodie_hmap_init(&c->rec_idx, 64);
}

hoodie_status hoodie_mdt_files(hoodie_mdt_listing **out, const hoodie_storage *s, const char *base_path,
                               const hoodie_timeline *data_tl)
{
    *out = NULL;
    if (!s) s = hoodie_storage_default();
    ctx c;
    mdt_part m = { 0 };
    hoodie_mdt_listing *l = NULL;
    hoodie_buf bytes = HOODIE_BUF_INIT;
    hoodie_status rc = ctx_init(&c, s, data_tl);
    if (rc == HOODIE_OK) rc = part_open(&m, s, base_path, "files");
    c.mdt_tl = m.tl;
    for (size_t g = 0; rc == HOODIE_OK && g < m.v->group_count; g++) {
        const hoodie_file_slice *sl = hoodie_file_group_latest(&m.v->groups[g]);
        if (sl && !strcmp(m.v->groups[g].partition, "files")) rc = read_slice(&c, sl, &bytes);
    }
    if (rc == HOODIE_OK && !(l = calloc(1, sizeof *l))) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK) rc = hoodie_arena_new(&l->arena, NULL, 65536);
    if (rc == HOODIE_OK) rc = build_listing(&c, l);
    if (rc == HOODIE_OK) *out = l, l = NULL;
    hoodie_mdt_listing_free(l);
    hoodie_buf_dispose(&bytes);
    ctx_dispose(&c);
    part_close(&m);
    return rc;
}

int hoodie_mdt_listed(const hoodie_table_config *cfg, const char *partition)
{
    const char *v = hoodie_table_config_get(cfg, "hoodie.table.metadata.partitions");
    size_t want = strlen(partition);
    for (const char *p = v; p && *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && *p == ' ') p++, n--;
        while (n && p[n - 1] == ' ') n--;
        if (n == want && !memcmp(p, partition, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* ---- the record index ---- */

/* Hudi's HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex: String.hashCode, then |h| mod n (|INT_MIN|
 * stays negative in Java; its remainder is then made positive) */
size_t hoodie_mdt_key_group(const char *key, size_t n)
{
    int32_t h = hoodie_java_string_hash((const uint8_t *)key, strlen(key));
    int64_t a = h == INT32_MIN ? (int64_t)INT32_MIN : (h < 0 ? -(int64_t)h : h);
    int64_t r = a % (int64_t)n;
    return (size_t)(r < 0 ? -r : r);
}

static void uuid_text(char *out, size_t n, uint64_t hi, uint64_t lo)
{
    snprintf(out, n, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(hi >> 32), (unsigned)((hi >> 16) & 0xffff),
             (unsigned)(hi & 0xffff), (unsigned)(lo >> 48), (unsigned long long)(lo & 0xffffffffffffULL));
}

/* Where a HoodieRecordIndexInfo record says its key is: the partition as stored ("." for the base path, not
 * copied: it points into the cursor's bytes) and the file id (rebuilt from its bits, or as written). */
typedef struct ri_where {
    const char *part;
    size_t part_len;
    char id[96];
    int64_t instant;
} ri_where;

/* The HoodieRecordIndexInfo record `r` at the cursor into *w. */
static hoodie_status decode_ri(hoodie_cursor *cur, const hoodie_avro_schema *r, ri_where *w, const char *what)
{
    const char *raw_id = NULL;
    size_t raw_len = 0;
    uint64_t hi = 0, lo = 0;
    int have_hi = 0, have_lo = 0, have_index = 0;
    int32_t index = -1, encoding = 0;
    w->part = NULL, w->part_len = 0, w->instant = -1;
    for (size_t k = 0; k < r->count && cur->status == HOODIE_OK; k++) {
        const char *name = r->fields[k].name;
        const hoodie_avro_schema *ft = branch(cur, r->fields[k].type);
        if (!ft) continue;
        if (!strcmp(name, "partitionName") && ft->kind == HOODIE_AVRO_STRING)
            w->part = (const char *)hoodie_avro_read_bytes(cur, &w->part_len);
        else if (!strcmp(name, "fileId") && ft->kind == HOODIE_AVRO_STRING)
            raw_id = (const char *)hoodie_avro_read_bytes(cur, &raw_len);
        else if (!strcmp(name, "fileIdHighBits") && ft->kind == HOODIE_AVRO_LONG)
            hi = (uint64_t)hoodie_avro_read_long(cur), have_hi = 1;
        else if (!strcmp(name, "fileIdLowBits") && ft->kind == HOODIE_AVRO_LONG)
            lo = (uint64_t)hoodie_avro_read_long(cur), have_lo = 1;
        else if (!strcmp(name, "fileIndex") && ft->kind == HOODIE_AVRO_INT)
            index = hoodie_avro_read_int(cur), have_index = 1;
        else if (!strcmp(name, "fileIdEncoding") && ft->kind == HOODIE_AVRO_INT)
            encoding = hoodie_avro_read_int(cur);
        else if (!strcmp(name, "instantTime") && ft->kind == HOODIE_AVRO_LONG)
            w->instant = hoodie_avro_read_long(cur);
        else hoodie_avro_skip(cur, ft);
    }
    if (cur->status != HOODIE_OK) return cur->status;
    if (encoding == 1 && raw_id && raw_len < sizeof w->id) {
        memcpy(w->id, raw_id, raw_len);
        w->id[raw_len] = '\0';
    } else if (encoding == 0 && have_hi && have_lo) {
        uuid_text(w->id, sizeof w->id, hi, lo);
        /* HoodieRecordIndexInfo's fileIndex -1: a UUID file id without the "-<index>" suffix */
        if (have_index && index >= 0)
            snprintf(w->id + strlen(w->id), sizeof w->id - strlen(w->id), "-%d", (int)index);
    } else {
        return HOODIE_CORRUPT("%s: record index entry without a file id (encoding %d)", what, (int)encoding);
    }
    if (w->part && w->part_len == 1 && w->part[0] == '.') w->part = "", w->part_len = 0; /* the base path */
    if (!w->part) w->part = "";
    return HOODIE_OK;
}

/* A record index value (HoodieMetadataRecord.recordIndexMetadata) into *loc. */
static hoodie_status decode_location(ctx *c, const hoodie_avro_schema *schema, const uint8_t *v, size_t vlen,
                                     hoodie_mdt_location *loc, const char *what)
{
    hoodie_cursor cur;
    hoodie_cursor_init(&cur, v, vlen, 0, what);
    int f_ri = field(schema, "recordIndexMetadata");
    if (f_ri < 0) return HOODIE_CORRUPT("%s: the schema has no recordIndexMetadata", what);
    for (size_t i = 0; i < schema->count && cur.status == HOODIE_OK; i++) {
        const hoodie_avro_schema *t = schema->fields[i].type;
        if ((int)i != f_ri) { hoodie_avro_skip(&cur, t); continue; }
        const hoodie_avro_schema *r = branch(&cur, t);
        if (!r) break; /* null: no location */
        if (r->kind != HOODIE_AVRO_RECORD) return HOODIE_CORRUPT("%s: recordIndexMetadata is not a record", what);
        ri_where w;
        HOODIE_TRY(decode_ri(&cur, r, &w, what));
        loc->partition = w.part_len ? hoodie_arena_strndup(c->a, w.part, w.part_len) : "";
        loc->file_id = hoodie_arena_strdup(c->a, w.id);
        if (!loc->partition || !loc->file_id) return HOODIE_NOMEM();
        loc->instant_ms = w.instant;
        loc->found = 1;
        return HOODIE_OK;
    }
    return cur.status;
}

typedef struct key_loc {
    const char *key;
    hoodie_mdt_location *loc;
} key_loc;

static int key_loc_cmp(const void *a, const void *b)
{
    return strcmp(((const key_loc *)a)->key, ((const key_loc *)b)->key);
}

hoodie_status hoodie_mdt_record_index(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                      const char *const *keys, size_t n_keys, hoodie_arena *a,
                                      hoodie_mdt_location *locs)
{
    if (!s) s = hoodie_storage_default();
    for (size_t i = 0; i < n_keys; i++) memset(&locs[i], 0, sizeof locs[i]);
    ctx c;
    mdt_part m = { 0 };
    hoodie_buf bytes = HOODIE_BUF_INIT;
    const char **keys_of = NULL;
    hoodie_mdt_location **locs_of = NULL;
    hoodie_status rc = ctx_init(&c, s, data_tl);
    if (rc == HOODIE_OK) rc = part_open(&m, s, base_path, "record_index");
    c.mdt_tl = m.tl;
    if (rc == HOODIE_OK) {
        hoodie_arena_free(c.a); /* the locations' strings go to the caller's arena */
        c.a = a;
        keys_of = malloc((n_keys + 1) * sizeof *keys_of);
        locs_of = malloc((n_keys + 1) * sizeof *locs_of);
        if (!keys_of || !locs_of) rc = HOODIE_NOMEM();
    }
    /* the record index's file groups in file id order (record-index-0000-0, ...); a key's is its hash mod n */
    size_t n_groups = 0;
    for (size_t g = 0; rc == HOODIE_OK && g < m.v->group_count; g++)
        n_groups += !strcmp(m.v->groups[g].partition, "record_index");
    size_t *group_of = rc == HOODIE_OK ? malloc((n_keys + 1) * sizeof *group_of) : NULL;
    if (rc == HOODIE_OK && !group_of) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < n_keys; i++) group_of[i] = hoodie_mdt_key_group(keys[i], n_groups);
    for (size_t g = 0, gi = 0; rc == HOODIE_OK && g < m.v->group_count; g++) {
        const hoodie_file_group *grp = &m.v->groups[g];
        if (strcmp(grp->partition, "record_index")) continue;
        size_t idx = gi++, n = 0;
        for (size_t i = 0; i < n_keys; i++)
            if (group_of[i] == idx) keys_of[n] = keys[i], locs_of[n] = &locs[i], n++;
        const hoodie_file_slice *sl = hoodie_file_group_latest(grp);
        if (!n || !sl) continue;
        /* in key order: the HFiles are read forward, a block inflated once */
        key_loc *kl = malloc(n * sizeof *kl);
        if (!kl) { rc = HOODIE_NOMEM(); break; }
        for (size_t i = 0; i < n; i++) kl[i] = (key_loc){ keys_of[i], locs_of[i] };
        qsort(kl, n, sizeof *kl, key_loc_cmp);
        for (size_t i = 0; i < n; i++) keys_of[i] = kl[i].key, locs_of[i] = kl[i].loc;
        free(kl);
        c.keys = keys_of, c.n_keys = n, c.locs = locs_of;
        rc = read_slice(&c, sl, &bytes);
    }
    if (c.a == a) c.a = NULL;
    hoodie_buf_dispose(&bytes);
    free(group_of);
    free(keys_of);
    free(locs_of);
    ctx_dispose(&c);
    part_close(&m);
    return rc;
}

/* ---- column statistics ---- */

/* A min or max value: a union of null and wrapper records of one field `value` (HoodieMetadata.avsc), into *out;
 * 0 when null or of a wrapper hoodie does not compare (decimals, times, timestamps, bytes). */
static int read_wrapped(hoodie_cursor *cur, const hoodie_avro_schema *t, hoodie_arena *a, hoodie_pq_value *out)
{
    const hoodie_avro_schema *w = branch(cur, t);
    if (!w) return 0;
    if (w->kind != HOODIE_AVRO_RECORD || w->count != 1) { hoodie_avro_skip(cur, w); return 0; }
    const char *name = w->name ? strrchr(w->name, '.') : NULL;
    name = name ? name + 1 : w->name ? w->name : "";
    const hoodie_avro_schema *vt = w->fields[0].type;
    memset(out, 0, sizeof *out);
    if (!strcmp(name, "BooleanWrapper") && vt->kind == HOODIE_AVRO_BOOLEAN) {
        out->kind = HOODIE_PQ_VAL_BOOL, out->i = hoodie_cursor_u8(cur) != 0;
    } else if ((!strcmp(name, "IntWrapper") || !strcmp(name, "DateWrapper")) && vt->kind == HOODIE_AVRO_INT) {
        out->kind = HOODIE_PQ_VAL_I64, out->i = hoodie_avro_read_int(cur);
    } else if (!strcmp(name, "LongWrapper") && vt->kind == HOODIE_AVRO_LONG) {
        out->kind = HOODIE_PQ_VAL_I64, out->i = hoodie_avro_read_long(cur);
    } else if (!strcmp(name, "FloatWrapper") && vt->kind == HOODIE_AVRO_FLOAT) {
        out->kind = HOODIE_PQ_VAL_F64, out->d = hoodie_avro_read_float(cur);
    } else if (!strcmp(name, "DoubleWrapper") && vt->kind == HOODIE_AVRO_DOUBLE) {
        out->kind = HOODIE_PQ_VAL_F64, out->d = hoodie_avro_read_double(cur);
    } else if (!strcmp(name, "StringWrapper") && vt->kind == HOODIE_AVRO_STRING) {
        size_t n;
        const uint8_t *p = hoodie_avro_read_bytes(cur, &n);
        if (!p) return 0;
        /* Java orders strings by UTF-16 units, Parquet and hoodie by bytes: they agree below U+E000 */
        for (size_t i = 0; i < n; i++)
            if (p[i] >= 0xEE) return 0;
        out->kind = HOODIE_PQ_VAL_BYTES, out->bytes = hoodie_arena_memdup(a, p, n ? n : 1), out->len = n;
        if (!out->bytes) return 0;
    } else {
        hoodie_avro_skip(cur, vt);
        return 0;
    }
    if (out->kind == HOODIE_PQ_VAL_F64 && out->d != out->d) return 0; /* NaN: no bound */
    return cur->status == HOODIE_OK;
}

/* One HoodieMetadataColumnStats record merged into the map (HoodieMetadataPayload.mergeColumnStatsRecords: a
 * tombstone on either side, the newer record; else the wider range and the counts added). */
static hoodie_status apply_colstats(ctx *c, const hoodie_avro_schema *schema, const uint8_t *v, size_t vlen,
                                    const char *what)
{
    hoodie_cursor cur;
    hoodie_cursor_init(&cur, v, vlen, 0, what);
    int f_cs = field(schema, "ColumnStatsMetadata");
    if (f_cs < 0) return HOODIE_CORRUPT("%s: the schema has no ColumnStatsMetadata", what);
    hoodie_mdt_colstats *cs = c->cs;
    for (size_t i = 0; i < schema->count && cur.status == HOODIE_OK; i++) {
        const hoodie_avro_schema *t = schema->fields[i].type;
        if ((int)i != f_cs) { hoodie_avro_skip(&cur, t); continue; }
        const hoodie_avro_schema *r = branch(&cur, t);
        if (!r) return cur.status;
        if (r->kind != HOODIE_AVRO_RECORD) return HOODIE_CORRUPT("%s: ColumnStatsMetadata is not a record", what);
        hoodie_mdt_stat st;
        memset(&st, 0, sizeof st);
        const uint8_t *file = NULL, *col = NULL;
        size_t file_len = 0, col_len = 0;
        int have_vc = 0, have_nc = 0;
        for (size_t k = 0; k < r->count && cur.status == HOODIE_OK; k++) {
            const char *name = r->fields[k].name;
            const hoodie_avro_schema *ft = r->fields[k].type;
            if (!strcmp(name, "minValue")) { st.has_min = read_wrapped(&cur, ft, cs->arena, &st.min); continue; }
            if (!strcmp(name, "maxValue")) { st.has_max = read_wrapped(&cur, ft, cs->arena, &st.max); continue; }
            const hoodie_avro_schema *b = branch(&cur, ft);
            if (!b) continue;
            if (!strcmp(name, "fileName") && b->kind == HOODIE_AVRO_STRING) file = hoodie_avro_read_bytes(&cur, &file_len);
            else if (!strcmp(name, "columnName") && b->kind == HOODIE_AVRO_STRING) col = hoodie_avro_read_bytes(&cur, &col_len);
            else if (!strcmp(name, "valueCount") && b->kind == HOODIE_AVRO_LONG) st.value_count = hoodie_avro_read_long(&cur), have_vc = 1;
            else if (!strcmp(name, "nullCount") && b->kind == HOODIE_AVRO_LONG) st.null_count = hoodie_avro_read_long(&cur), have_nc = 1;
            else if (!strcmp(name, "isDeleted") && b->kind == HOODIE_AVRO_BOOLEAN) st.deleted = hoodie_cursor_u8(&cur) != 0;
            else hoodie_avro_skip(&cur, b);
        }
        if (cur.status != HOODIE_OK) return cur.status;
        if (!file || !col) return HOODIE_CORRUPT("%s: column statistics without a file or column name", what);
        st.has_counts = have_vc && have_nc;
        char *key = hoodie_arena_sprintf(cs->arena, "%.*s\x01%.*s", (int)file_len, file, (int)col_len, col);
        if (!key) return HOODIE_NOMEM();
        uint64_t *slot;
        int existed;
        HOODIE_TRY(hoodie_hmap_upsert(&cs->map, key, strlen(key), &slot, &existed));
        if (!existed) {
            if (cs->n == cs->cap) {
                size_t nc = cs->cap ? cs->cap * 2 : 256;
                hoodie_mdt_stat *p = realloc(cs->stats, nc * sizeof *p);
                if (!p) return HOODIE_NOMEM();
                cs->stats = p, cs->cap = nc;
            }
            *slot = cs->n;
            cs->stats[cs->n++] = st;
            return HOODIE_OK;
        }
        hoodie_mdt_stat *o = &cs->stats[*slot];
        if (st.deleted || o->deleted) { *o = st; return HOODIE_OK; }
        /* the wider range: a side without a bound (nulls only, or a wrapper not compared) leaves none only if it
         * had values; its null and value counts say */
        if (!o->has_min || !st.has_min || o->min.kind != st.min.kind) o->has_min = 0;
        else if (hoodie_pq_value_cmp(&st.min, &o->min) < 0) o->min = st.min;
        if (!o->has_max || !st.has_max || o->max.kind != st.max.kind) o->has_max = 0;
        else if (hoodie_pq_value_cmp(&st.max, &o->max) > 0) o->max = st.max;
        o->has_counts = o->has_counts && st.has_counts;
        o->value_count += st.value_count;
        o->null_count += st.null_count;
        return HOODIE_OK;
    }
    return cur.status;
}

hoodie_status hoodie_mdt_column_stats(hoodie_mdt_colstats **out, const hoodie_storage *s, const char *base_path,
                                      const hoodie_timeline *data_tl)
{
    *out = NULL;
    if (!s) s = hoodie_storage_default();
    ctx c;
    mdt_part m = { 0 };
    hoodie_buf bytes = HOODIE_BUF_INIT;
    hoodie_mdt_colstats *cs = calloc(1, sizeof *cs);
    hoodie_status rc = cs ? ctx_init(&c, s, data_tl) : HOODIE_NOMEM();
    if (!cs) return rc;
    if (rc == HOODIE_OK) rc = hoodie_arena_new(&cs->arena, NULL, 65536);
    if (rc == HOODIE_OK) rc = hoodie_hmap_init(&cs->map, 1024);
    if (rc == HOODIE_OK) rc = part_open(&m, s, base_path, "column_stats");
    c.mdt_tl = m.tl;
    c.cs = cs;
    for (size_t g = 0; rc == HOODIE_OK && g < m.v->group_count; g++) {
        const hoodie_file_slice *sl = hoodie_file_group_latest(&m.v->groups[g]);
        if (sl && !strcmp(m.v->groups[g].partition, "column_stats")) rc = read_slice(&c, sl, &bytes);
    }
    hoodie_buf_dispose(&bytes);
    ctx_dispose(&c);
    part_close(&m);
    if (rc < 0) { hoodie_mdt_colstats_free(cs); return rc; }
    *out = cs;
    return HOODIE_OK;
}

const hoodie_mdt_stat *hoodie_mdt_stat_of(const hoodie_mdt_colstats *cs, const char *file, const char *column)
{
    char key[1024];
    int n = snprintf(key, sizeof key, "%s\x01%s", file, column);
    if (n < 0 || (size_t)n >= sizeof key) return NULL;
    uint64_t *slot = hoodie_hmap_get(&cs->map, key, (size_t)n);
    if (!slot || cs->stats[*slot].deleted) return NULL;
    return &cs->stats[*slot];
}

void hoodie_mdt_colstats_free(hoodie_mdt_colstats *cs)
{
    if (!cs) return;
    hoodie_hmap_dispose(&cs->map);
    free(cs->stats);
    hoodie_arena_free(cs->arena);
    free(cs);
}

void hoodie_mdt_listing_free(hoodie_mdt_listing *l)
{
    if (!l) return;
    hoodie_arena_free(l->arena);
    free(l);
}

/* ---- column stats records whole ---- */

static const char *const cs_wrappers[HOODIE_CS_WRAPPERS] = {
    "", "BooleanWrapper", "IntWrapper", "LongWrapper", "FloatWrapper", "DoubleWrapper", "BytesWrapper",
    "StringWrapper", "DateWrapper", "DecimalWrapper", "TimeMicrosWrapper", "TimestampMicrosWrapper",
    "LocalDateWrapper"
};

int hoodie_mdt_cs_wrapper(const char *name)
{
    const char *dot = name ? strrchr(name, '.') : NULL;
    if (dot) name = dot + 1;
    for (int i = 1; name && i < HOODIE_CS_WRAPPERS; i++)
        if (!strcmp(name, cs_wrappers[i])) return i;
    return -1;
}

/* A zigzag varint (Avro int or long) of a bound. */
static int64_t cs_long(const hoodie_mdt_csval *v)
{
    hoodie_cursor cur;
    hoodie_cursor_init(&cur, v->bytes, v->len, 0, NULL);
    int64_t x = hoodie_avro_read_long(&cur);
    return cur.status == HOODIE_OK ? x : 0;
}

static double cs_double(const hoodie_mdt_csval *v)
{
    if (v->wrapper == HOODIE_CS_FLOAT && v->len == 4) {
        float f;
        uint32_t u = (uint32_t)v->bytes[0] | (uint32_t)v->bytes[1] << 8 | (uint32_t)v->bytes[2] << 16 |
                     (uint32_t)v->bytes[3] << 24;
        memcpy(&f, &u, 4);
        return f;
    }
    if (v->len != 8) return 0;
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--) u = u << 8 | v->bytes[i];
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* The bytes of an Avro bytes or string value (after its length). */
static const uint8_t *cs_bytes(const hoodie_mdt_csval *v, size_t *n)
{
    hoodie_cursor cur;
    hoodie_cursor_init(&cur, v->bytes, v->len, 0, NULL);
    const uint8_t *p = hoodie_avro_read_bytes(&cur, n);
    if (!p || cur.status != HOODIE_OK) { *n = 0; return (const uint8_t *)""; }
    return p;
}

int hoodie_mdt_csval_cmp(const hoodie_mdt_csval *a, const hoodie_mdt_csval *b)
{
    if (a->wrapper != b->wrapper) return a->wrapper < b->wrapper ? -1 : 1;
    switch (a->wrapper) {
    case HOODIE_CS_NULL: return 0;
    case HOODIE_CS_BOOLEAN: return (a->len ? a->bytes[0] : 0) - (b->len ? b->bytes[0] : 0);
    case HOODIE_CS_FLOAT:
    case HOODIE_CS_DOUBLE: { /* Java's Float/Double.compareTo: NaN above everything */
        double x = cs_double(a), y = cs_double(b);
        if (x != x || y != y) return (x != x) - (y != y);
        return x < y ? -1 : x > y;
    }
    case HOODIE_CS_BYTES:
    case HOODIE_CS_STRING: { /* ByteBuffer and Utf8 order: unsigned bytes, then length (String's UTF-16 order
                              * agrees below U+E000) */
        size_t an, bn;
        const uint8_t *ap = cs_bytes(a, &an), *bp = cs_bytes(b, &bn);
        size_t m = an < bn ? an : bn;
        int r = m ? memcmp(ap, bp, m) : 0;
        return r ? r : (an > bn) - (an < bn);
    }
    case HOODIE_CS_DECIMAL: { /* big-endian two's complement of one scale */
        size_t an, bn;
        const uint8_t *ap = cs_bytes(a, &an), *bp = cs_bytes(b, &bn);
        int an_neg = an && (ap[0] & 0x80), bn_neg = bn && (bp[0] & 0x80);
        if (an_neg != bn_neg) return an_neg ? -1 : 1;
        /* same sign: sign-extend the shorter, then compare as unsigned */
        size_t m = an > bn ? an : bn;
        for (size_t i = 0; i < m; i++) {
            uint8_t x = i + an < m ? (an_neg ? 0xff : 0) : ap[i + an - m];
            uint8_t y = i + bn < m ? (bn_neg ? 0xff : 0) : bp[i + bn - m];
            if (x != y) return x < y ? -1 : 1;
        }
        return 0;
    }
    default: { /* ints and longs: dates, times, timestamps */
        int64_t x = cs_long(a), y = cs_long(b);
        return x < y ? -1 : x > y;
    }
    }
}

void hoodie_mdt_cs_merge(hoodie_mdt_csrec *older, const hoodie_mdt_csrec *newer)
{
    if (older->deleted || newer->deleted) { *older = *newer; return; }
    /* a null bound: the other side's (Hudi takes the non-null one of the two) */
    if (!older->min.wrapper || (newer->min.wrapper && hoodie_mdt_csval_cmp(&newer->min, &older->min) < 0))
        older->min = newer->min;
    if (!older->max.wrapper || (newer->max.wrapper && hoodie_mdt_csval_cmp(&newer->max, &older->max) > 0))
        older->max = newer->max;
    int64_t *o[4] = { &older->value_count, &older->null_count, &older->total_size, &older->total_uncompressed_size };
    const int64_t n[4] = { newer->value_count, newer->null_count, newer->total_size, newer->total_uncompressed_size };
    for (int i = 0; i < 4; i++)
        *o[i] = *o[i] == HOODIE_CS_NO_COUNT ? n[i] : n[i] == HOODIE_CS_NO_COUNT ? *o[i] : *o[i] + n[i];
    older->tight = 0;
}

static hoodie_mdt_csrec *raw_slot(ctx *c, const char *key, size_t len, int *existed)
{
    uint64_t *slot;
    if (hoodie_hmap_upsert(&c->raw_idx, key, len, &slot, existed) < 0) return NULL;
    if (*existed) return &c->raw_recs[*slot];
    if (c->n_raw == c->cap_raw) {
        size_t nc = c->cap_raw ? c->cap_raw * 2 : 256;
        hoodie_mdt_csrec *p = realloc(c->raw_recs, nc * sizeof *p);
        if (!p) return NULL;
        c->raw_recs = p, c->cap_raw = nc;
    }
    *slot = c->n_raw;
    return &c->raw_recs[c->n_raw++];
}

/* A bound: the wrapper's branch, its value's bytes. */
static int read_bound(hoodie_cursor *cur, const hoodie_avro_schema *t, hoodie_arena *a, hoodie_mdt_csval *out)
{
    memset(out, 0, sizeof *out);
    const hoodie_avro_schema *w = branch(cur, t);
    if (!w || cur->status != HOODIE_OK) return 0;
    int k = w->kind == HOODIE_AVRO_RECORD && w->count == 1 ? hoodie_mdt_cs_wrapper(w->name) : -1;
    const uint8_t *start = cur->p;
    hoodie_avro_skip(cur, w);
    if (k < 0) return -1;
    out->wrapper = k;
    out->len = (size_t)(cur->p - start);
    out->bytes = hoodie_arena_memdup(a, start, out->len ? out->len : 1);
    return out->bytes ? 0 : -2;
}

/* One cell of a column_stats HFile, whole, merged into the map by its HFile key. */
static hoodie_status apply_raw(ctx *c, const hoodie_avro_schema *schema, const uint8_t *key, size_t key_len,
                               const uint8_t *v, size_t vlen, const char *what)
{
    hoodie_cursor cur;
    hoodie_cursor_init(&cur, v, vlen, 0, what);
    int f_cs = field(schema, "ColumnStatsMetadata");
    if (f_cs < 0) return HOODIE_CORRUPT("%s: the schema has no ColumnStatsMetadata", what);
    hoodie_mdt_csrec r;
    memset(&r, 0, sizeof r);
    r.value_count = r.null_count = r.total_size = r.total_uncompressed_size = HOODIE_CS_NO_COUNT;
    int have = 0;
    for (size_t i = 0; i < schema->count && cur.status == HOODIE_OK; i++) {
        const hoodie_avro_schema *t = schema->fields[i].type;
        if ((int)i != f_cs) { hoodie_avro_skip(&cur, t); continue; }
        const hoodie_avro_schema *rs = branch(&cur, t);
        if (!rs) continue;
        if (rs->kind != HOODIE_AVRO_RECORD) return HOODIE_CORRUPT("%s: ColumnStatsMetadata is not a record", what);
        have = 1;
        for (size_t k = 0; k < rs->count && cur.status == HOODIE_OK; k++) {
            const char *name = rs->fields[k].name;
            const hoodie_avro_schema *ft = rs->fields[k].type;
            int isb = 0;
            if (!strcmp(name, "minValue")) isb = read_bound(&cur, ft, c->a, &r.min);
            else if (!strcmp(name, "maxValue")) isb = read_bound(&cur, ft, c->a, &r.max);
            else {
                const hoodie_avro_schema *b = branch(&cur, ft);
                if (!b) continue;
                int64_t *cnt = !strcmp(name, "valueCount") ? &r.value_count : !strcmp(name, "nullCount") ? &r.null_count
                             : !strcmp(name, "totalSize") ? &r.total_size
                             : !strcmp(name, "totalUncompressedSize") ? &r.total_uncompressed_size : NULL;
                const char **str = !strcmp(name, "fileName") ? &r.file : !strcmp(name, "columnName") ? &r.column : NULL;
                if (cnt && b->kind == HOODIE_AVRO_LONG) *cnt = hoodie_avro_read_long(&cur);
                else if (str && b->kind == HOODIE_AVRO_STRING) {
                    size_t n;
                    const uint8_t *p = hoodie_avro_read_bytes(&cur, &n);
                    if (p && !(*str = hoodie_arena_strndup(c->a, (const char *)p, n))) return HOODIE_NOMEM();
                } else if (!strcmp(name, "isDeleted") && b->kind == HOODIE_AVRO_BOOLEAN) r.deleted = hoodie_cursor_u8(&cur) != 0;
                else if (!strcmp(name, "isTightBound") && b->kind == HOODIE_AVRO_BOOLEAN) r.tight = hoodie_cursor_u8(&cur) != 0;
                else hoodie_avro_skip(&cur, b);
            }
            if (isb == -2) return HOODIE_NOMEM();
            if (isb == -1)
                return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: a column statistics bound of a wrapper hoodie does not "
                                   "know", what);
        }
    }
    if (cur.status != HOODIE_OK) return cur.status;
    if (!have) return HOODIE_CORRUPT("%s: a column_stats record without ColumnStatsMetadata", what);
    if (!r.file || !r.column) return HOODIE_CORRUPT("%s: column statistics without a file or column name", what);
    int existed;
    char *kc = hoodie_arena_strndup(c->a, (const char *)key, key_len); /* the map borrows it */
    if (!kc) return HOODIE_NOMEM();
    hoodie_mdt_csrec *o = raw_slot(c, kc, key_len, &existed);
    if (!o) return HOODIE_NOMEM();
    if (!existed || !o->key) { /* new, or re-added after a delete */
        r.key = kc;
        *o = r;
        return HOODIE_OK;
    }
    r.key = o->key;
    hoodie_mdt_cs_merge(o, &r);
    return HOODIE_OK;
}

/* A DELETE_BLOCK's key: the record goes. */
static hoodie_status raw_delete(ctx *c, const char *key)
{
    uint64_t *slot = hoodie_hmap_get(&c->raw_idx, key, strlen(key));
    if (slot) c->raw_recs[*slot].key = NULL; /* dropped when listed */
    return HOODIE_OK;
}

/* Every record of file group `file_id` of `partition` read into a fresh context (its latest slice, the blocks that
 * count), merged as the context's mode says: c->rli for record_index, else column statistics records whole. */
static hoodie_status group_read(ctx *c, const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                const char *partition, const char *file_id)
{
    mdt_part m = { 0 };
    hoodie_buf bytes = HOODIE_BUF_INIT;
    hoodie_status rc = ctx_init(c, s, data_tl);
    if (rc == HOODIE_OK) rc = hoodie_hmap_init(&c->raw_idx, 1024);
    if (rc == HOODIE_OK) rc = part_open(&m, s, base_path, partition);
    c->mdt_tl = m.tl;
    c->si = !strncmp(partition, "secondary_index_", 16);
    c->rli = c->si || !strcmp(partition, "record_index");
    c->raw = !c->rli;
    const hoodie_file_slice *sl = NULL;
    for (size_t g = 0; rc == HOODIE_OK && g < m.v->group_count; g++)
        if (!strcmp(m.v->groups[g].partition, partition) && !strcmp(m.v->groups[g].file_id, file_id))
            sl = hoodie_file_group_latest(&m.v->groups[g]);
    if (rc == HOODIE_OK && !sl)
        rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no file group %s in %s", m.path, file_id, partition);
    if (rc == HOODIE_OK) rc = read_slice(c, sl, &bytes);
    c->mdt_tl = NULL; /* closed with the partition */
    hoodie_buf_dispose(&bytes);
    part_close(&m);
    return rc;
}

static int cs_key_cmp(const void *a, const void *b)
{
    return strcmp(((const hoodie_mdt_csrec *)a)->key, ((const hoodie_mdt_csrec *)b)->key);
}

hoodie_status hoodie_mdt_cs_group(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                  const char *file_id, hoodie_arena *a, hoodie_mdt_csrec **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!s) s = hoodie_storage_default();
    ctx c;
    hoodie_status rc = group_read(&c, s, base_path, data_tl, "column_stats", file_id);
    size_t k = 0;
    hoodie_mdt_csrec *v = NULL;
    if (rc == HOODIE_OK && !(v = hoodie_arena_alloc(a, (c.n_raw + 1) * sizeof *v))) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < c.n_raw; i++) {
        hoodie_mdt_csrec r = c.raw_recs[i];
        if (!r.key) continue;
        /* out of the context's arena into the caller's */
        r.key = hoodie_arena_strdup(a, r.key);
        r.file = hoodie_arena_strdup(a, r.file);
        r.column = hoodie_arena_strdup(a, r.column);
        if (r.min.len) r.min.bytes = hoodie_arena_memdup(a, r.min.bytes, r.min.len);
        if (r.max.len) r.max.bytes = hoodie_arena_memdup(a, r.max.bytes, r.max.len);
        if (!r.key || !r.file || !r.column || (r.min.len && !r.min.bytes) || (r.max.len && !r.max.bytes)) {
            rc = HOODIE_NOMEM();
            break;
        }
        v[k++] = r;
    }
    if (rc == HOODIE_OK) {
        if (k) qsort(v, k, sizeof *v, cs_key_cmp);
        *out = v, *n = k;
    }
    ctx_dispose(&c);
    return rc;
}

/* ---- record index records, whole ---- */

/* The record of `key` (copied into the arena), new or the one it had. */
static hoodie_mdt_rlirec *rli_slot(ctx *c, const uint8_t *key, size_t len)
{
    uint64_t *slot = hoodie_hmap_get(&c->raw_idx, key, len);
    if (slot) return &c->rli_recs[*slot];
    char *kc = hoodie_arena_strndup(c->a, (const char *)key, len); /* the map borrows it */
    int existed;
    if (!kc || hoodie_hmap_upsert(&c->raw_idx, kc, len, &slot, &existed) < 0) return NULL;
    if (c->n_rli == c->cap_rli) {
        size_t nc = c->cap_rli ? c->cap_rli * 2 : 256;
        hoodie_mdt_rlirec *p = realloc(c->rli_recs, nc * sizeof *p);
        if (!p) return NULL;
        c->rli_recs = p, c->cap_rli = nc;
    }
    *slot = c->n_rli;
    hoodie_mdt_rlirec *r = &c->rli_recs[c->n_rli++];
    memset(r, 0, sizeof *r);
    r->key = kc;
    return r;
}

/* o->in: whether o's location is one of c->rli_in's file groups (its bytes memoized: a file group's keys of one
 * commit share them). */
static hoodie_status rli_where_in(ctx *c, const hoodie_avro_schema *r, hoodie_mdt_rlirec *o, const char *what)
{
    uint64_t *memo;
    int existed;
    if (!c->ri_memo.cap && hoodie_hmap_init(&c->ri_memo, 64) < 0) return HOODIE_NOMEM();
    if (hoodie_hmap_upsert(&c->ri_memo, o->ri, o->ri_len, &memo, &existed) < 0) return HOODIE_NOMEM();
    if (existed) {
        o->in = *memo == 2;
        return HOODIE_OK;
    }
    hoodie_cursor at;
    hoodie_cursor_init(&at, o->ri, o->ri_len, 0, what);
    ri_where w;
    HOODIE_TRY(decode_ri(&at, r, &w, what));
    c->where.len = 0;
    if (hoodie_buf_append(&c->where, w.part, w.part_len) < 0 || hoodie_buf_append(&c->where, "\x01", 1) < 0 ||
        hoodie_buf_append(&c->where, w.id, strlen(w.id)) < 0)
        return HOODIE_NOMEM();
    o->in = hoodie_hmap_get(c->rli_in, c->where.data, c->where.len) != NULL;
    *memo = 1 + (uint64_t)o->in;
    return HOODIE_OK;
}

/* A record index record: its recordIndexMetadata's Avro bytes kept (the HFile row is the key). */
static hoodie_status apply_rli(ctx *c, const hoodie_avro_schema *schema, const uint8_t *key, size_t key_len,
                               const uint8_t *v, size_t vlen, const char *what)
{
    hoodie_cursor cur;
    hoodie_cursor_init(&cur, v, vlen, 0, what);
    const char *payload = c->si ? "SecondaryIndexMetadata" : "recordIndexMetadata";
    int f_ri = field(schema, payload);
    if (f_ri < 0) return HOODIE_CORRUPT("%s: the schema has no %s", what, payload);
    for (size_t i = 0; i < schema->count && cur.status == HOODIE_OK; i++) {
        const hoodie_avro_schema *t = schema->fields[i].type;
        if ((int)i != f_ri) { hoodie_avro_skip(&cur, t); continue; }
        const hoodie_avro_schema *r = branch(&cur, t);
        if (cur.status != HOODIE_OK) break;
        if (!r || r->kind != HOODIE_AVRO_RECORD)
            return HOODIE_CORRUPT("%s: a %s record without %s (key '%.*s')", what,
                                  c->si ? "secondary index" : "record_index", payload, (int)key_len, key);
        if (c->si) { /* {isDeleted}: live unless deleted */
            int f_del = field(r, "isDeleted"), del = 0;
            for (size_t k = 0; k < r->count && cur.status == HOODIE_OK; k++) {
                const hoodie_avro_schema *ft = r->fields[k].type;
                if ((int)k == f_del && ft->kind == HOODIE_AVRO_BOOLEAN) del = hoodie_cursor_u8(&cur) != 0;
                else hoodie_avro_skip(&cur, ft);
            }
            if (cur.status != HOODIE_OK) break;
            if (f_del < 0) return HOODIE_CORRUPT("%s: SecondaryIndexMetadata without isDeleted", what);
            hoodie_mdt_rlirec *o = rli_slot(c, key, key_len);
            if (!o) return HOODIE_NOMEM();
            o->live = !del;
            continue;
        }
        const uint8_t *start = cur.p;
        hoodie_avro_skip(&cur, r);
        if (cur.status != HOODIE_OK) break;
        hoodie_mdt_rlirec *o = rli_slot(c, key, key_len);
        if (!o) return HOODIE_NOMEM();
        o->ri_len = (size_t)(cur.p - start);
        if (!(o->ri = hoodie_arena_memdup(c->a, start, o->ri_len ? o->ri_len : 1))) return HOODIE_NOMEM();
        o->live = 1;
        if (c->rli_in) HOODIE_TRY(rli_where_in(c, r, o, what)); /* against the file groups asked about */
    }
    return cur.status;
}

static hoodie_status rli_delete(ctx *c, const char *key)
{
    hoodie_mdt_rlirec *o = rli_slot(c, (const uint8_t *)key, strlen(key));
    if (!o) return HOODIE_NOMEM();
    o->live = 0;
    return HOODIE_OK;
}

static int rli_key_cmp(const void *a, const void *b)
{
    return strcmp(((const hoodie_mdt_rlirec *)a)->key, ((const hoodie_mdt_rlirec *)b)->key);
}

hoodie_status hoodie_mdt_rli_group(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                   const char *file_id, hoodie_arena *a, hoodie_mdt_rlirec **out, size_t *n,
                                   size_t *n_seen)
{
    *out = NULL;
    *n = *n_seen = 0;
    if (!s) s = hoodie_storage_default();
    ctx c;
    hoodie_status rc = group_read(&c, s, base_path, data_tl, "record_index", file_id);
    size_t k = 0;
    hoodie_mdt_rlirec *v = NULL;
    if (rc == HOODIE_OK && !(v = hoodie_arena_alloc(a, (c.n_rli + 1) * sizeof *v))) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < c.n_rli; i++) {
        hoodie_mdt_rlirec r = c.rli_recs[i];
        if (!r.live) continue;
        r.key = hoodie_arena_strdup(a, r.key); /* out of the context's arena into the caller's */
        r.ri = hoodie_arena_memdup(a, r.ri, r.ri_len ? r.ri_len : 1);
        if (!r.key || !r.ri) { rc = HOODIE_NOMEM(); break; }
        v[k++] = r;
    }
    if (rc == HOODIE_OK) {
        if (k) qsort(v, k, sizeof *v, rli_key_cmp);
        *out = v, *n = k, *n_seen = c.n_rli;
    }
    ctx_dispose(&c);
    return rc;
}

/* Which entries of an index partition index_groups reads: the record index's (with `in`: the file groups whose
 * entries are marked, hoodie_mdt_rlirec.in), or a secondary index's (`si`; with `pre`: the keys under these
 * sorted prefixes only). */
typedef struct groups_want {
    const char *partition;
    const hoodie_hmap *in;
    int si;
    const char *const *pre;
    size_t n_pre;
} groups_want;

/* Every file group of an index partition read (its latest slice) into a context of its own, handed to `each`. */
static hoodie_status index_groups(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                  const groups_want *w, hoodie_status (*each)(ctx *c, void *arg), void *arg)
{
    if (!s) s = hoodie_storage_default();
    mdt_part m = { 0 };
    hoodie_buf bytes = HOODIE_BUF_INIT;
    hoodie_status rc = part_open(&m, s, base_path, w->partition);
    for (size_t g = 0; rc == HOODIE_OK && g < m.v->group_count; g++) {
        const hoodie_file_slice *sl = hoodie_file_group_latest(&m.v->groups[g]);
        if (!sl || strcmp(m.v->groups[g].partition, w->partition)) continue;
        ctx c;
        rc = ctx_init(&c, s, data_tl);
        if (rc == HOODIE_OK) rc = hoodie_hmap_init(&c.raw_idx, 1024);
        c.mdt_tl = m.tl;
        c.rli = 1;
        c.rli_in = w->in;
        c.si = w->si, c.si_pre = w->pre, c.n_si_pre = w->n_pre;
        if (rc == HOODIE_OK) rc = read_slice(&c, sl, &bytes);
        if (rc == HOODIE_OK) rc = each(&c, arg);
        ctx_dispose(&c);
    }
    hoodie_buf_dispose(&bytes);
    part_close(&m);
    return rc;
}

static hoodie_status count_live(ctx *c, void *arg)
{
    for (size_t i = 0; i < c->n_rli; i++) *(size_t *)arg += c->rli_recs[i].live != 0;
    return HOODIE_OK;
}

hoodie_status hoodie_mdt_rli_live(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                  size_t *n)
{
    *n = 0;
    groups_want w = { "record_index", NULL, 0, NULL, 0 };
    return index_groups(s, base_path, data_tl, &w, count_live, n);
}

typedef struct keys_in {
    hoodie_arena *a;
    const char **v;
    size_t n, cap;
} keys_in;

static hoodie_status collect_in(ctx *c, void *arg)
{
    keys_in *k = arg;
    for (size_t i = 0; i < c->n_rli; i++) {
        if (!c->rli_recs[i].live || !c->rli_recs[i].in) continue;
        if (k->n == k->cap) {
            size_t nc = k->cap ? k->cap * 2 : 1024;
            const char **p = realloc(k->v, nc * sizeof *p);
            if (!p) return HOODIE_NOMEM();
            k->v = p, k->cap = nc;
        }
        if (!(k->v[k->n++] = hoodie_arena_strdup(k->a, c->rli_recs[i].key))) return HOODIE_NOMEM();
    }
    return HOODIE_OK;
}

hoodie_status hoodie_mdt_rli_keys_in(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                    const char *const *parts, const char *const *file_ids, size_t n_groups,
                                    hoodie_arena *a, const char ***keys, size_t *n_keys)
{
    *keys = NULL;
    *n_keys = 0;
    hoodie_hmap in;
    hoodie_buf k = HOODIE_BUF_INIT;
    keys_in out = { a, NULL, 0, 0 };
    hoodie_status rc = hoodie_hmap_init(&in, n_groups + 1);
    for (size_t i = 0; rc == HOODIE_OK && i < n_groups; i++) {
        uint64_t *slot;
        int existed;
        k.len = 0;
        if (hoodie_buf_printf(&k, "%s\x01%s", parts[i] ? parts[i] : "", file_ids[i]) < 0) rc = HOODIE_NOMEM();
        /* the map borrows its keys: copies in the caller's arena */
        const char *kc = rc == HOODIE_OK ? hoodie_arena_memdup(a, k.data, k.len) : NULL;
        if (rc == HOODIE_OK && (!kc || hoodie_hmap_upsert(&in, kc, k.len, &slot, &existed) < 0)) rc = HOODIE_NOMEM();
    }
    groups_want w = { "record_index", &in, 0, NULL, 0 };
    if (rc == HOODIE_OK) rc = index_groups(s, base_path, data_tl, &w, collect_in, &out);
    hoodie_buf_dispose(&k);
    hoodie_hmap_dispose(&in);
    if (rc == HOODIE_OK) *keys = out.v, *n_keys = out.n;
    else free(out.v);
    return rc;
}

/* ---- secondary indexes ---- */

hoodie_status hoodie_mdt_secondary_indexes(const hoodie_storage *s, const char *base_path,
                                           const hoodie_table_config *cfg, hoodie_arena *a,
                                           hoodie_mdt_secondary **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const char *parts = hoodie_table_config_get(cfg, "hoodie.table.metadata.partitions");
    if (!parts || !strstr(parts, "secondary_index_")) return HOODIE_OK;
    if (!s) s = hoodie_storage_default();
    const char *rel = hoodie_table_config_get(cfg, "hoodie.table.index.defs.path");
    hoodie_buf p = HOODIE_BUF_INIT, text = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_printf(&p, "%s/%s", base_path, rel && *rel ? rel : ".hoodie/.index_defs/index.json");
    if (rc == HOODIE_OK) rc = hoodie_storage_read_all(s, (const char *)p.data, &text);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; text.len = 0; }
    json_t *root = NULL, *defs = NULL;
    if (rc == HOODIE_OK && text.len) {
        json_error_t je;
        root = json_loadb((const char *)text.data, text.len, 0, &je);
        defs = json_object_get(root, "indexDefinitions");
        if (!json_is_object(defs))
            rc = HOODIE_CORRUPT("%s: not an index definitions file (%s)", (const char *)p.data,
                                root ? "no indexDefinitions" : je.text);
    }
    hoodie_mdt_secondary *v = NULL;
    size_t k = 0;
    if (rc == HOODIE_OK && defs && !(v = hoodie_arena_calloc(a, json_object_size(defs) + 1, sizeof *v)))
        rc = HOODIE_NOMEM();
    const char *name;
    json_t *def;
    json_object_foreach (defs, name, def) {
        if (rc < 0) break;
        const char *type = json_string_value(json_object_get(def, "indexType"));
        const char *fn = json_string_value(json_object_get(def, "indexFunction"));
        json_t *ver = json_object_get(def, "version"), *f = json_object_get(def, "sourceFields");
        const char *col = json_string_value(json_array_get(f, 0));
        if (!type || strcmp(type, "secondary_index") || (fn && strcmp(fn, "identity")) ||
            (ver && !(json_is_string(ver) && !strcmp(json_string_value(ver), "V1"))) || json_array_size(f) != 1 ||
            !col || !*col || strchr(col, '.') || strncmp(name, "secondary_index_", 16) ||
            !hoodie_mdt_listed(cfg, name))
            continue;
        v[k].name = hoodie_arena_strdup(a, name);
        v[k].column = hoodie_arena_strdup(a, col);
        if (!v[k].name || !v[k].column) rc = HOODIE_NOMEM();
        else k++;
    }
    json_decref(root);
    hoodie_buf_dispose(&p);
    hoodie_buf_dispose(&text);
    if (rc == HOODIE_OK) *out = v, *n = k;
    return rc;
}

hoodie_status hoodie_mdt_si_escape(hoodie_buf *out, const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ((text[i] == '\\' || text[i] == '$') && hoodie_buf_putc(out, '\\') < 0) return HOODIE_NOMEM();
        if (hoodie_buf_putc(out, (uint8_t)text[i]) < 0) return HOODIE_NOMEM();
    }
    return HOODIE_OK;
}

/* `p` (n bytes, escaped) unescaped into the arena. */
static const char *si_unescape(const char *p, size_t n, hoodie_arena *a)
{
    char *o = hoodie_arena_alloc(a, n + 1);
    size_t k = 0;
    for (size_t i = 0; o && i < n; i++) {
        if (p[i] == '\\' && i + 1 < n) i++;
        o[k++] = p[i];
    }
    if (o) o[k] = '\0';
    return o;
}

int hoodie_mdt_si_split(const char *key, size_t len, hoodie_arena *a, const char **secondary, const char **record_key)
{
    size_t i = 0;
    for (; i < len && key[i] != '$'; i++)
        if (key[i] == '\\') i++; /* the escaped character is skipped */
    if (i >= len) return -1;
    *secondary = si_unescape(key, i, a);
    *record_key = si_unescape(key + i + 1, len - i - 1, a);
    return *secondary && *record_key ? 0 : -1;
}

typedef struct si_collect {
    int want_entries;              /* 1: collect (value, record key) entries, 0: record keys */
    hoodie_arena *a;
    const char **keys;             /* hoodie_mdt_secondary_keys */
    hoodie_mdt_si_entry *entries;  /* hoodie_mdt_secondary_entries */
    size_t n, cap;
    const char *what;
} si_collect;

static hoodie_status si_each(ctx *c, void *arg)
{
    si_collect *k = arg;
    for (size_t i = 0; i < c->n_rli; i++) {
        const hoodie_mdt_rlirec *r = &c->rli_recs[i];
        if (!r->live) continue;
        if (k->n == k->cap) {
            size_t nc = k->cap ? k->cap * 2 : 256;
            if (!k->want_entries) {
                const char **p = realloc(k->keys, nc * sizeof *p);
                if (!p) return HOODIE_NOMEM();
                k->keys = p;
            } else {
                hoodie_mdt_si_entry *p = realloc(k->entries, nc * sizeof *p);
                if (!p) return HOODIE_NOMEM();
                k->entries = p;
            }
            k->cap = nc;
        }
        hoodie_mdt_si_entry e;
        if (hoodie_mdt_si_split(r->key, strlen(r->key), k->a, &e.secondary, &e.record_key) < 0)
            return HOODIE_CORRUPT("%s: secondary index key '%s' without a '$' between value and record key", k->what,
                                  r->key);
        if (!k->want_entries) k->keys[k->n++] = e.record_key;
        else k->entries[k->n++] = e;
    }
    return HOODIE_OK;
}

static int strp_cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

hoodie_status hoodie_mdt_secondary_keys(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                        const char *index, const char *const *values, size_t n_values,
                                        hoodie_arena *a, const char ***keys, size_t *n_keys)
{
    *keys = NULL;
    *n_keys = 0;
    const char **pre = calloc(n_values + 1, sizeof *pre);
    si_collect k = { 0, a, NULL, NULL, 0, 0, index };
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_status rc = pre ? HOODIE_OK : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < n_values; i++) {
        b.len = 0;
        rc = hoodie_mdt_si_escape(&b, values[i], strlen(values[i]));
        if (rc == HOODIE_OK && hoodie_buf_putc(&b, '$') < 0) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK && !(pre[i] = hoodie_arena_strndup(a, (const char *)b.data, b.len))) rc = HOODIE_NOMEM();
    }
    size_t np = n_values;
    if (rc == HOODIE_OK && np) { /* sorted, each once */
        qsort(pre, np, sizeof *pre, strp_cmp);
        size_t u = 1;
        for (size_t i = 1; i < np; i++)
            if (strcmp(pre[i], pre[u - 1])) pre[u++] = pre[i];
        np = u;
    }
    groups_want w = { index, NULL, 1, pre, np };
    if (rc == HOODIE_OK && np) rc = index_groups(s, base_path, data_tl, &w, si_each, &k);
    if (rc == HOODIE_OK && k.n) { /* a record key under two of the values (or in two groups): once */
        qsort(k.keys, k.n, sizeof *k.keys, strp_cmp);
        size_t u = 1;
        for (size_t i = 1; i < k.n; i++)
            if (strcmp(k.keys[i], k.keys[u - 1])) k.keys[u++] = k.keys[i];
        k.n = u;
    }
    hoodie_buf_dispose(&b);
    free(pre);
    if (rc == HOODIE_OK) *keys = k.keys, *n_keys = k.n;
    else free(k.keys);
    return rc;
}

static int si_entry_cmp(const void *a, const void *b)
{
    const hoodie_mdt_si_entry *x = a, *y = b;
    int c = strcmp(x->record_key, y->record_key);
    return c ? c : strcmp(x->secondary, y->secondary);
}

hoodie_status hoodie_mdt_secondary_entries(const hoodie_storage *s, const char *base_path,
                                           const hoodie_timeline *data_tl, const char *index, hoodie_arena *a,
                                           hoodie_mdt_si_entry **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    si_collect k = { 1, a, NULL, NULL, 0, 0, index };
    groups_want w = { index, NULL, 1, NULL, 0 };
    hoodie_status rc = index_groups(s, base_path, data_tl, &w, si_each, &k);
    if (rc == HOODIE_OK && k.n) qsort(k.entries, k.n, sizeof *k.entries, si_entry_cmp);
    if (rc == HOODIE_OK) *out = k.entries, *n = k.n;
    else free(k.entries);
    return rc;
}

int hoodie_mdt_si_type_ok(const hoodie_type *t)
{
    return t->id == HOODIE_TYPE_STRING || hoodie_type_is_int(t->id);
}

int hoodie_mdt_si_value(const hoodie_field *f, const hoodie_array *a, int64_t row, hoodie_buf *out)
{
    if (!hoodie_mdt_si_type_ok(&f->type)) return -1;
    if (!hoodie_array_is_valid(a, row)) return 0;
    if (f->type.id == HOODIE_TYPE_STRING) {
        size_t n;
        const uint8_t *p = hoodie_array_bytes_at(a, row, &n);
        return hoodie_buf_append(out, p, n) < 0 ? -1 : 1;
    }
    return hoodie_buf_printf(out, "%lld", (long long)hoodie_array_int_at(f, a, row)) < 0 ? -1 : 1;
}

hoodie_status hoodie_mdt_si_group(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                  const char *index, const char *file_id, hoodie_arena *a, const char ***keys,
                                  size_t *n, size_t *n_seen)
{
    *keys = NULL;
    *n = *n_seen = 0;
    if (strncmp(index, "secondary_index_", 16))
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: '%s' is not a secondary index partition", base_path, index);
    if (!s) s = hoodie_storage_default();
    ctx c;
    hoodie_status rc = group_read(&c, s, base_path, data_tl, index, file_id);
    size_t k = 0;
    const char **v = NULL;
    if (rc == HOODIE_OK && !(v = malloc((c.n_rli + 1) * sizeof *v))) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < c.n_rli; i++) {
        if (!c.rli_recs[i].live) continue;
        if (!(v[k++] = hoodie_arena_strdup(a, c.rli_recs[i].key))) rc = HOODIE_NOMEM();
    }
    if (rc == HOODIE_OK) {
        if (k) qsort(v, k, sizeof *v, strp_cmp);
        *keys = v, *n = k, *n_seen = c.n_rli;
    } else {
        free(v);
    }
    ctx_dispose(&c);
    return rc;
}
