/*
 * Secondary indexes of the metadata table kept in step with a write (write/mdt.h): what an instant changes, found
 * as Hudi 1.0 finds it (SecondaryIndexRecordGenerationUtils): the file groups the instant wrote or replaced are
 * read before it and after it, and the (record key, value) pairs compared. An update that keeps the value changes
 * nothing; one that loses to the stored record by the ordering field changes nothing either (the merged read says
 * so), which a comparison of the input alone would get wrong.
 */
#include "format/avro/binary.h"
#include "storage/overlay.h"
#include "table/commit_meta.h"
#include "util/error.h"
#include "util/hash.h"
#include "write/mdt_int.h"

#include <stdlib.h>
#include <string.h>

#define SI_TYPE 7 /* HoodieMetadataRecord.type of a secondary index record */

hoodie_status hoodie_mdtw__si_encode(hoodie_buf *out, int deleted, const char *base_file)
{
    static const uint8_t nulls[4] = { 0, 0, 0, 0 };
    HOODIE_TRY(hoodie_mdtw__record_head(out, SI_TYPE, base_file));
    /* filesystemMetadata, BloomFilterMetadata, ColumnStatsMetadata, recordIndexMetadata: null */
    HOODIE_TRY(hoodie_buf_append(out, nulls, 4));
    HOODIE_TRY(hoodie_avro_write_long(out, 1)); /* SecondaryIndexMetadata */
    return hoodie_buf_putc(out, deleted ? 1 : 0);
}

/* The pairs of one side (before or after), per column: record key -> value. */
typedef struct side {
    hoodie_hmap *maps;  /* per column: key -> index into vals */
    const char **vals;
    size_t n, cap;
    hoodie_arena *a;
} side;

static hoodie_status side_pair(void *ctx, size_t column, const char *key, size_t key_len, const char *value,
                               size_t value_len)
{
    side *sd = ctx;
    if (sd->n == sd->cap) {
        size_t nc = sd->cap ? sd->cap * 2 : 1024;
        const char **v = realloc(sd->vals, nc * sizeof *v);
        if (!v) return HOODIE_NOMEM();
        sd->vals = v, sd->cap = nc;
    }
    const char *k = hoodie_arena_strndup(sd->a, key, key_len); /* the map borrows it */
    const char *val = hoodie_arena_strndup(sd->a, value, value_len);
    uint64_t *slot;
    int existed;
    if (!k || !val || hoodie_hmap_upsert(&sd->maps[column], k, key_len, &slot, &existed) < 0) return HOODIE_NOMEM();
    sd->vals[sd->n] = val;
    *slot = sd->n++;
    return HOODIE_OK;
}

static void side_dispose(side *sd, size_t n_columns)
{
    for (size_t i = 0; sd->maps && i < n_columns; i++) hoodie_hmap_dispose(&sd->maps[i]);
    free(sd->maps);
    free(sd->vals);
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int change_cmp(const void *a, const void *b)
{
    const si_change *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* The change of (value, record key) to index `si` onto out. */
static hoodie_status push_change(si_changes *out, const si_index *si, hoodie_arena *a, hoodie_buf *b,
                                 const char *value, const char *key, int add)
{
    b->len = 0;
    HOODIE_TRY(hoodie_mdt_si_escape(b, value, strlen(value)));
    if (hoodie_buf_putc(b, '$') < 0) return HOODIE_NOMEM();
    HOODIE_TRY(hoodie_mdt_si_escape(b, key, strlen(key)));
    if (out->n == out->cap) {
        size_t nc = out->cap ? out->cap * 2 : 256;
        si_change *v = realloc(out->v, nc * sizeof *v);
        if (!v) return HOODIE_NOMEM();
        out->v = v, out->cap = nc;
    }
    const char *k = hoodie_arena_strndup(a, (const char *)b->data, b->len);
    if (!k) return HOODIE_NOMEM();
    out->v[out->n++] = (si_change){ k, (uint32_t)hoodie_mdt_key_group(k, si->gs.n_groups), add };
    return HOODIE_OK;
}

/* The after side of a write's pairs, compared with the before side's as they come. */
typedef struct after_ctx {
    const side *before;
    uint8_t *seen; /* by index into before->vals: the key has a pair after */
    si_changes *out;
    const si_conf *c;
    hoodie_arena *a;
    hoodie_buf *b;
} after_ctx;

static hoodie_status after_pair(void *ctx, size_t column, const char *key, size_t key_len, const char *value,
                                size_t value_len)
{
    after_ctx *x = ctx;
    const uint64_t *was = hoodie_hmap_get(&x->before->maps[column], key, key_len);
    const char *ov = was ? x->before->vals[*was] : NULL;
    if (was) x->seen[*was] = 1;
    if (ov && strlen(ov) == value_len && !memcmp(ov, value, value_len)) return HOODIE_OK;
    const char *k = hoodie_arena_strndup(x->a, key, key_len), *v = hoodie_arena_strndup(x->a, value, value_len);
    if (!k || !v) return HOODIE_NOMEM();
    if (ov) HOODIE_TRY(push_change(&x->out[column], &x->c->v[column], x->a, x->b, ov, k, 0));
    return push_change(&x->out[column], &x->c->v[column], x->a, x->b, v, k, 1);
}

/* tx->si_read of the table in a view in which instant `tx` completed with `content`. */
static hoodie_status read_after(const hoodie_write_txn *tx, const void *content, size_t len,
                                const char *const *groups, size_t n_groups, const char *const *cols, size_t n_cols,
                                hoodie_write_pair_fn each, void *ctx)
{
    char *done_path = NULL;
    hoodie_storage *view = NULL;
    hoodie_status rc = hoodie_write__completed_preview(tx, &done_path);
    if (rc == HOODIE_OK) rc = hoodie_storage_overlay_new(&view, tx->s, done_path, content, len);
    if (rc == HOODIE_OK) rc = tx->si_read(view, tx->base_path, groups, n_groups, cols, n_cols, each, ctx);
    hoodie_storage_free(view);
    free(done_path);
    return rc;
}

static hoodie_status live_key(void *ctx, size_t column, const char *key, size_t key_len, const char *value,
                              size_t value_len)
{
    (void)column, (void)value, (void)value_len;
    side *sd = ctx;
    const char *k = hoodie_arena_strndup(sd->a, key, key_len); /* the map borrows it */
    uint64_t *slot;
    int existed;
    return k && hoodie_hmap_upsert(&sd->maps[0], k, key_len, &slot, &existed) == HOODIE_OK ? HOODIE_OK
                                                                                           : HOODIE_NOMEM();
}

hoodie_status hoodie_mdtw__rli_contested(const hoodie_write_txn *tx, changes *c, const void *content, size_t len)
{
    const hoodie_rli_changes *k = &c->contested;
    const char **groups = calloc(k->n + 1, sizeof *groups);
    hoodie_hmap live = HOODIE_HMAP_INIT;
    side sd = { &live, NULL, 0, 0, c->a };
    size_t n = 0;
    hoodie_status rc = groups ? hoodie_hmap_init(&live, k->n + 1) : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < k->n; i++)
        if (!(groups[n++] = hoodie_arena_sprintf(c->a, "%s\x01%s", k->v[i].partition, k->v[i].file_id)))
            rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK) {
        qsort(groups, n, sizeof *groups, str_cmp);
        size_t u = 1;
        for (size_t i = 1; i < n; i++)
            if (strcmp(groups[i], groups[u - 1])) groups[u++] = groups[i];
        n = u;
    }
    if (rc == HOODIE_OK) rc = read_after(tx, content, len, groups, n, NULL, 0, live_key, &sd);
    for (size_t i = 0; rc == HOODIE_OK && i < k->n; i++)
        if (!hoodie_hmap_get(&live, k->v[i].key, strlen(k->v[i].key)))
            rc = hoodie_mdtw__rli_push(&c->rc, k->v[i].key, NULL, NULL);
    if (rc < 0) hoodie_error__prefix("record index: deletes by the ordering field: ");
    hoodie_hmap_dispose(&live);
    free(groups);
    return rc;
}

hoodie_status hoodie_mdtw__si_changes(const hoodie_write_txn *tx, const si_conf *c, const void *content, size_t len,
                                     hoodie_arena *a, si_changes *out)
{
    if (!tx->si_read)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: the metadata table's secondary indexes cannot be kept by this "
                           "write (no reader of its file groups)", tx->base_path);
    hoodie_commit_meta *m = NULL;
    HOODIE_TRY(hoodie_commit_meta_decode(&m, content, len, tx->inst.requested));
    /* the file groups written or replaced, each once */
    size_t n_groups = 0, cap = m->stat_count + 1;
    for (size_t i = 0; i < m->replaced_count; i++) cap += m->replaced[i].count;
    const char **groups = calloc(cap, sizeof *groups);
    const char **cols = calloc(c->n + 1, sizeof *cols);
    hoodie_status rc = groups && cols ? HOODIE_OK : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < m->stat_count; i++) {
        const hoodie_write_stat *st = &m->stats[i];
        if (!st->file_id || !*st->file_id) continue;
        groups[n_groups] = hoodie_arena_sprintf(a, "%s\x01%s", st->partition_path ? st->partition_path : "",
                                                st->file_id);
        if (!groups[n_groups++]) rc = HOODIE_NOMEM();
    }
    for (size_t i = 0; rc == HOODIE_OK && i < m->replaced_count; i++)
        for (size_t k = 0; rc == HOODIE_OK && k < m->replaced[i].count; k++) {
            const char *p = m->replaced[i].partition_path;
            groups[n_groups] = hoodie_arena_sprintf(a, "%s\x01%s", p ? p : "", m->replaced[i].file_ids[k]);
            if (!groups[n_groups++]) rc = HOODIE_NOMEM();
        }
    if (rc == HOODIE_OK && n_groups) {
        qsort(groups, n_groups, sizeof *groups, str_cmp);
        size_t u = 1;
        for (size_t i = 1; i < n_groups; i++)
            if (strcmp(groups[i], groups[u - 1])) groups[u++] = groups[i];
        n_groups = u;
    }
    for (size_t i = 0; i < c->n; i++) cols[i] = c->v[i].column;
    side before = { NULL, NULL, 0, 0, a };
    if (rc == HOODIE_OK && !(before.maps = calloc(c->n, sizeof *before.maps))) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < c->n; i++) rc = hoodie_hmap_init(&before.maps[i], 1024);
    /* before: the table as it is (this instant pending), kept; after: a view in which it completed, each pair
     * compared with the one before as it comes */
    if (rc == HOODIE_OK && n_groups)
        rc = tx->si_read(tx->s, tx->base_path, groups, n_groups, cols, c->n, side_pair, &before);
    hoodie_buf b = HOODIE_BUF_INIT;
    after_ctx x = { &before, calloc(before.n + 1, 1), out, c, a, &b };
    if (rc == HOODIE_OK && !x.seen) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK && n_groups) rc = read_after(tx, content, len, groups, n_groups, cols, c->n, after_pair, &x);
    /* the pairs gone, then each index's changes in order */
    for (size_t i = 0; rc == HOODIE_OK && i < c->n; i++) {
        const hoodie_hmap *bm = &before.maps[i];
        for (size_t k = 0; rc == HOODIE_OK && k < bm->cap; k++) {
            const hoodie_hmap_entry *e = &bm->slots[k];
            if (!e->key || x.seen[e->value]) continue;
            rc = push_change(&out[i], &c->v[i], a, &b, before.vals[e->value], (const char *)e->key, 0);
        }
        if (rc == HOODIE_OK && out[i].n) qsort(out[i].v, out[i].n, sizeof *out[i].v, change_cmp);
    }
    if (rc < 0) hoodie_error__prefix("secondary indexes: ");
    hoodie_buf_dispose(&b);
    free(x.seen);
    side_dispose(&before, c->n);
    free(groups);
    free(cols);
    hoodie_commit_meta_free(m);
    return rc;
}
