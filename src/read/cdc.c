/* Change data capture queries: see cdc.h. */
#include "read/cdc.h"
#include "format/avro/schema.h"
#include "format/hlog/hlog.h"
#include "model/avro.h"
#include "model/avro_schema_gen.h"
#include "model/arrow.h"
#include "model/build.h"
#include "model/render.h"
#include "read/scan.h"
#include "table/commit_meta.h"
#include "table/file_name.h"
#include "table/fsview.h"
#include "table/table.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"
#include "storage/storage.h"

#include <stdlib.h>
#include <string.h>

/* ---- the commits of the window ---- */

static const char *axis_of(const hoodie_timeline *tl, const hoodie_instant *in)
{
    return tl->layout_version == 2 && in->completion[0] ? in->completion : in->requested;
}

/* A commit of the window and where it sits on the window's axis. */
typedef struct window_commit { const hoodie_instant *in; const char *axis; } window_commit;

static int by_axis(const void *a, const void *b)
{
    const window_commit *x = a, *y = b;
    int c = strcmp(x->axis, y->axis);
    return c ? c : strcmp(x->in->requested, y->in->requested);
}

/* Operations that change no record (Hudi's WriteOperationType.isDataChange is false for them). */
static int changes_data(const hoodie_commit_meta *m)
{
    static const char *const none[] = { "COMPACT", "LOG_COMPACT", "CLUSTER", "INDEX", "ALTER_SCHEMA" };
    if (m->compacted) return 0;
    for (size_t i = 0; m->operation_type && i < sizeof none / sizeof *none; i++)
        if (!strcmp(m->operation_type, none[i])) return 0;
    return 1;
}

/* The meta columns a state is compared by. */
typedef struct state_cols { int time, key, part, file; } state_cols;

static hoodie_status find_cols(const hoodie_batch *b, state_cols *c)
{
    c->time = hoodie_field_find(&b->schema, "_hoodie_commit_time");
    c->key = hoodie_field_find(&b->schema, "_hoodie_record_key");
    c->part = hoodie_field_find(&b->schema, "_hoodie_partition_path");
    c->file = hoodie_field_find(&b->schema, "_hoodie_file_name");
    if (c->time < 0 || c->key < 0 || c->part < 0 || c->file < 0 || c->time > 4 || c->key > 4 || c->part > 4 ||
        c->file > 4)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "CDC queries need the meta columns, first");
    return HOODIE_OK;
}

static const uint8_t *cell(const hoodie_batch *b, int col, int64_t row, size_t *len)
{
    const hoodie_array *a = &b->root.children[col];
    if (!hoodie_array_is_valid(a, row)) { *len = 0; return (const uint8_t *)""; }
    return hoodie_array_bytes_at(a, row, len);
}

/* Append the (partition, key) of row i to `keys`; *end: where it ends in `keys`. */
static hoodie_status row_key(const hoodie_batch *b, const state_cols *c, int64_t i, hoodie_buf *keys, size_t *end)
{
    size_t pl, kl;
    const uint8_t *p = cell(b, c->part, i, &pl), *k = cell(b, c->key, i, &kl);
    HOODIE_TRY(hoodie_buf_append(keys, p, pl));
    HOODIE_TRY(hoodie_buf_putc(keys, '\x01'));
    HOODIE_TRY(hoodie_buf_append(keys, k, kl));
    *end = keys->len;
    return HOODIE_OK;
}

/* ---- output ---- */

/* An image in column col of out: the row's data columns (after the five meta columns, which scans put first) as a
 * JSON object, rendered as a struct of them is (b NULL: null). */
static hoodie_status put_image(hoodie_batch *out, int col, hoodie_buf *text, const hoodie_batch *b, int64_t row)
{
    hoodie_array *a = &out->root.children[col];
    const hoodie_field *f = &out->schema.children[col];
    if (!b) return hoodie_array_append_null(a, f);
    hoodie_field vf = b->schema;
    hoodie_array va = b->root;
    vf.children += 5;
    vf.n_children -= 5;
    va.children += 5;
    va.n_children -= 5;
    hoodie_buf_clear(text);
    HOODIE_TRY(hoodie_render_cell(text, &vf, &va, row, HOODIE_RENDER_JSON));
    return hoodie_array_append_bytes(a, f, text->data, text->len);
}

/* One change: op, the commit's instant, the images (NULL batch: none). */
static hoodie_status emit(hoodie_batch *out, hoodie_buf *text, const char *op, const char *ts,
                          const hoodie_batch *before, int64_t brow, const hoodie_batch *after, int64_t arow)
{
    HOODIE_TRY(hoodie_array_append_bytes(&out->root.children[0], &out->schema.children[0], op, 1));
    HOODIE_TRY(hoodie_array_append_bytes(&out->root.children[1], &out->schema.children[1], ts, strlen(ts)));
    HOODIE_TRY(put_image(out, 2, text, before, brow));
    HOODIE_TRY(put_image(out, 3, text, after, arow));
    out->root.length++;
    return HOODIE_OK;
}

/* ---- one commit ---- */

/* The file id a record's _hoodie_file_name names (a base file "<id>_<token>_<instant>.parquet", or the id). */
static size_t file_id_len(const uint8_t *p, size_t n)
{
    const uint8_t *u = memchr(p, '_', n);
    return u ? (size_t)(u - p) : n;
}

static int in_replaced(const hoodie_commit_meta *m, const uint8_t *part, size_t pl, const uint8_t *fid, size_t fl)
{
    for (size_t r = 0; r < m->replaced_count; r++) {
        const hoodie_replaced_file_ids *x = &m->replaced[r];
        const char *pp = x->partition_path ? x->partition_path : "";
        if (strlen(pp) != pl || memcmp(pp, part, pl)) continue;
        for (size_t k = 0; k < x->count; k++)
            if (strlen(x->file_ids[k]) == fl && !memcmp(x->file_ids[k], fid, fl)) return 1;
    }
    return 0;
}

/* `_hoodie_partition_path IN ('p', ...)`: the partitions commit m wrote or replaced; *any = 0 if none. */
static hoodie_status partitions_filter(const hoodie_commit_meta *m, hoodie_buf *f, int *any)
{
    *any = 0;
    HOODIE_TRY(hoodie_buf_printf(f, "_hoodie_partition_path IN ("));
    size_t n = m->stat_count + m->replaced_count;
    for (size_t i = 0; i < n; i++) {
        const char *p = i < m->stat_count ? m->stats[i].partition_path : m->replaced[i - m->stat_count].partition_path;
        if (!p) p = "";
        int dup = 0; /* quadratic, over a commit's partitions */
        for (size_t j = 0; j < i && !dup; j++) {
            const char *q = j < m->stat_count ? m->stats[j].partition_path : m->replaced[j - m->stat_count].partition_path;
            dup = !strcmp(q ? q : "", p);
        }
        if (dup) continue;
        HOODIE_TRY(hoodie_buf_printf(f, "%s'", *any ? ", " : ""));
        for (const char *c = p; *c; c++) HOODIE_TRY(hoodie_buf_printf(f, *c == '\'' ? "''" : "%c", *c));
        HOODIE_TRY(hoodie_buf_putc(f, '\''));
        *any = 1;
    }
    HOODIE_TRY(hoodie_buf_putc(f, ')'));
    return hoodie_buf_cstr(f);
}

/* The slice of file group (partition, id) in v: with base instant `base` (NULL: any), and the file `name` among
 * its files (NULL: none needed). */
static int has_version(const hoodie_fsview *v, const char *part, const char *id, const char *base, const char *name)
{
    for (size_t g = 0; g < v->group_count; g++) {
        const hoodie_file_group *fg = &v->groups[g];
        if (strcmp(fg->file_id, id) || strcmp(fg->partition, part)) continue;
        for (size_t i = 0; i < fg->slice_count; i++) {
            const hoodie_file_slice *sl = &fg->slices[i];
            if (base && strcmp(sl->base_instant, base)) continue;
            if (!name || (sl->base && !strcmp(sl->base->name, name))) return 1;
            for (size_t k = 0; k < sl->log_count; k++)
                if (!strcmp(sl->logs[k]->name, name)) return 1;
        }
    }
    return 0;
}

/* How a write stat's changes are read: inferred from the states around the commit; from its CDC logs alone
 * (both images logged); from its CDC logs with the state after the commit (before images logged). */
enum { LOGGED_NONE, LOGGED_ALL, LOGGED_BEFORE };
#define LGROUP_OPENED (UINT64_C(1) << 63)

/* Every file commit m wrote, and every base file version it rewrote, must still be there (a clean may have deleted
 * them): without them the states around the commit would silently miss records, and an update would look like an
 * insert, or nothing at all. */
static hoodie_status check_versions(const hoodie_fsview *v, const hoodie_instant *c, const hoodie_commit_meta *m,
                                    const uint8_t *logged)
{
    for (size_t k = 0; k < m->stat_count; k++) {
        const hoodie_write_stat *st = &m->stats[k];
        if (logged[k] == LOGGED_ALL) continue; /* its changes are in its CDC logs */
        const char *part = st->partition_path ? st->partition_path : "";
        if (!st->file_id || !st->path || !*st->path) continue;
        const char *name = strrchr(st->path, '/');
        name = name ? name + 1 : st->path;
        hoodie_file_name fn;
        int base = hoodie_file_name_parse(&fn, name) == HOODIE_FILE_BASE;
        const char *prev = st->prev_commit && *st->prev_commit && strcmp(st->prev_commit, "null") ? st->prev_commit : NULL;
        if (!has_version(v, part, st->file_id, NULL, name))
            return HOODIE_FAIL(HOODIE_ENOTFOUND, "CDC: %s, written by commit %s, is no longer there (cleaned?): "
                               "the records after the commit are unknown", st->path, c->requested);
        if (base && prev && !logged[k] && !has_version(v, part, st->file_id, prev, NULL))
            return HOODIE_FAIL(HOODIE_ENOTFOUND, "CDC: commit %s rewrote version %s of file group %s (partition "
                               "'%s'), which is no longer there (cleaned?): the records before the commit are unknown",
                               c->requested, prev, st->file_id, part);
    }
    for (size_t r = 0; r < m->replaced_count; r++) /* the replaced records: read as of before the commit */
        for (size_t k = 0; k < m->replaced[r].count; k++) {
            const char *part = m->replaced[r].partition_path ? m->replaced[r].partition_path : "";
            if (!has_version(v, part, m->replaced[r].file_ids[k], NULL, NULL))
                return HOODIE_FAIL(HOODIE_ENOTFOUND, "CDC: file group %s (partition '%s'), replaced by commit %s, "
                                   "is no longer there (cleaned?): the records it deleted are unknown",
                                   m->replaced[r].file_ids[k], part, c->requested);
        }
    return HOODIE_OK;
}

/* ---- the stream: the window's commits one after the other; in each, its file groups one after the other ---- */

/* A batch read ahead from a state, and the file group it belongs to (strings owned by its scan). */
typedef struct state_batch {
    hoodie_batch b;
    int have;
    const char *part, *fid;
} state_batch;

typedef struct cdc_cursor {
    hoodie_table *t;
    hoodie_fsview *v;               /* every slice, replaced file groups too: what check_versions looks for */
    window_commit *in;
    size_t n, next;                 /* the window's commits, the next to open */
    int64_t limit;                  /* rows per output batch */
    hoodie_buf text;                /* an image being rendered */
    /* the open commit: the states before and after it, both restricted to the file groups it wrote or replaced,
     * read side by side one file group at a time (both come sorted by partition and file id) */
    int open;
    const hoodie_instant *c;
    hoodie_commit_meta *m;
    hoodie_buf filter;
    hoodie_buf gkeys;               /* the file groups it wrote or replaced, "partition\x01file id" one after the other */
    hoodie_hmap groups;             /* and as a set: only they can have changed */
    uint8_t *logged;                /* per write stat: LOGGED_*, how its changes are read */
    size_t n_inferred;              /* file groups the state after the commit reads */
    hoodie_hmap bgroups;            /* the file groups the state before reads (without LOGGED_BEFORE ones) */
    hoodie_hmap lgroups;            /* LOGGED_BEFORE file groups -> their write stat (| LGROUP_OPENED once read) */
    size_t lnext;                   /* the next write stat to look at for LOGGED_BEFORE groups no state had */
    size_t lstat, lfile;            /* the next CDC log to read: write stat, file of it */
    hoodie_batch *lb;               /* the CDC log being read: its blocks' records, as each block's schema reads */
    size_t n_lb, lb_i;
    int64_t lb_row;
    const char *lpath;              /* its path (relative), for messages */
    hoodie_read_scan *bscan, *ascan;
    state_batch bnext;              /* the state before: its next batch */
    state_batch a;                  /* the state after: its current batch, rows [a_pos, ...) still to look at */
    int64_t a_pos;
    /* the open file group: its records before the commit, kept and indexed by key */
    int gopen;
    const char *gpart, *gfid;
    hoodie_batch *before;
    size_t n_before, cap_before;
    int64_t *first;                 /* before[i]'s first row in the numbering of all before rows (cap_before) */
    int64_t rows_before;
    state_cols bc, ac;
    hoodie_buf bkeys;               /* (partition, key) of every before row */
    size_t *boffs;
    hoodie_hmap map;                /* key -> before row (batch << 32 | row) */
    uint8_t *seen;                  /* per before row: still there after the commit */
    int64_t deletes_from;           /* deletes: the next before row to look at; -1 while the state after streams */
    hoodie_buf akeys;
} cdc_cursor;

static void group_close(cdc_cursor *k)
{
    for (size_t i = 0; i < k->n_before; i++) hoodie_batch_dispose(&k->before[i]);
    k->n_before = 0;
    k->rows_before = 0;
    free(k->boffs);
    free(k->seen);
    k->boffs = NULL;
    k->seen = NULL;
    hoodie_hmap_dispose(&k->map);
    hoodie_buf_clear(&k->bkeys);
    k->gopen = 0;
}

static void state_drop(state_batch *sb)
{
    if (sb->have) hoodie_batch_dispose(&sb->b);
    sb->have = 0;
}

/* ---- CDC log files, read as they are (Hudi's AS_IS case) ---- */

/* The CDC logs the open commit left (hoodie.table.cdc.supplemental.logging.mode): a file group whose write stats
 * name such logs, all still there, has its changes read from them as Hudi's CDC reader reads them -- so a clean of
 * the file versions before the commit does not stop the query. With both images logged (DATA_BEFORE_AFTER) the
 * states around the commit leave it out; with before images only (DATA_BEFORE) the state after the commit gives
 * the after images, the logs stand in for the state before. OP_KEY_ONLY logs too little: inferred. */
static hoodie_status find_logged(cdc_cursor *k)
{
    const hoodie_commit_meta *m = k->m;
    const hoodie_storage *s = k->t->storage;
    k->logged = calloc(m->stat_count + 1, 1);
    if (!k->logged) return HOODIE_NOMEM();
    if (!k->t->cfg->cdc || k->t->cfg->cdc_mode == HOODIE_CDC_OP_KEY_ONLY) return HOODIE_OK;
    uint8_t how = k->t->cfg->cdc_mode == HOODIE_CDC_DATA_BEFORE_AFTER ? LOGGED_ALL : LOGGED_BEFORE;
    hoodie_buf path = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < m->stat_count; i++) {
        const hoodie_write_stat *st = &m->stats[i];
        int all = st->cdc_file_count > 0;
        for (size_t f = 0; rc == HOODIE_OK && all && f < st->cdc_file_count; f++) {
            hoodie_buf_clear(&path);
            rc = hoodie_buf_printf(&path, "%s/%s", k->t->base_path, st->cdc_files[f]);
            int ex = rc == HOODIE_OK ? s->exists(s->ctx, (const char *)path.data) : 0;
            if (ex < 0) rc = (hoodie_status)ex;
            all = ex == 1;
        }
        k->logged[i] = rc == HOODIE_OK && all ? how : LOGGED_NONE;
    }
    hoodie_buf_dispose(&path);
    return rc;
}

static void logged_close(cdc_cursor *k)
{
    for (size_t i = 0; i < k->n_lb; i++) hoodie_batch_dispose(&k->lb[i]);
    free(k->lb);
    k->lb = NULL;
    k->n_lb = k->lb_i = 0;
    k->lb_row = 0;
}

/* Read CDC log `rel`: each CDC_DATA_BLOCK's records as its schema reads them (op, ts_ms, before, after; or op,
 * record_key, before without need_after). */
static hoodie_status logged_open(cdc_cursor *k, const char *rel, int need_after)
{
    hoodie_buf data = HOODIE_BUF_INIT, path = HOODIE_BUF_INIT;
    hoodie_arena *a = NULL;
    hoodie_hlog_iter it;
    int have_it = 0;
    k->lpath = rel;
    hoodie_status rc = hoodie_buf_printf(&path, "%s/%s", k->t->base_path, rel);
    if (rc == HOODIE_OK) rc = hoodie_storage_read_all(k->t->storage, (const char *)path.data, &data);
    if (rc == HOODIE_OK) rc = hoodie_arena_new(&a, NULL, 16384);
    if (rc == HOODIE_OK) rc = hoodie_hlog_iter_init(&it, data.data, data.len, (const char *)path.data);
    have_it = rc == HOODIE_OK;
    hoodie_hlog_block b;
    while (rc == HOODIE_OK && (rc = hoodie_hlog_iter_next(&it, &b)) == HOODIE_OK) {
        if (b.type != HOODIE_HLOG_CDC_DATA_BLOCK) {
            rc = HOODIE_CORRUPT("%s: block at offset %llu is a %s, not a CDC_DATA_BLOCK", (const char *)path.data,
                                (unsigned long long)b.offset, hoodie_hlog_block_type_name(b.type));
            break;
        }
        const char *json = b.header[HOODIE_HLOG_SCHEMA];
        if (!json) {
            rc = HOODIE_CORRUPT("%s: CDC block at offset %llu has no SCHEMA header", (const char *)path.data,
                                (unsigned long long)b.offset);
            break;
        }
        hoodie_avro_schema *sch;
        hoodie_field f;
        hoodie_avro_decoder *dec = NULL;
        rc = hoodie_avro_schema_parse(&sch, json, b.header_len[HOODIE_HLOG_SCHEMA], a, (const char *)path.data);
        if (rc == HOODIE_OK) rc = hoodie_avro_to_field(&f, sch, "");
        if (rc < 0) break;
        int op = hoodie_field_find(&f, "op"), bi = hoodie_field_find(&f, "before");
        int second = hoodie_field_find(&f, need_after ? "after" : "record_key");
        if (op < 0 || bi < 0 || second < 0 || f.children[op].type.id != HOODIE_TYPE_STRING ||
            f.children[bi].type.id != HOODIE_TYPE_STRUCT ||
            f.children[second].type.id != (need_after ? HOODIE_TYPE_STRUCT : HOODIE_TYPE_STRING))
            rc = HOODIE_CORRUPT("%s: CDC block at offset %llu does not hold op, %s (the %s logging mode the table "
                                "is configured for)", (const char *)path.data, (unsigned long long)b.offset,
                                need_after ? "before and after images" : "record_key and before image",
                                need_after ? "DATA_BEFORE_AFTER" : "DATA_BEFORE");
        hoodie_batch *nb = rc == HOODIE_OK ? realloc(k->lb, (k->n_lb + 1) * sizeof *nb) : NULL;
        if (rc == HOODIE_OK && !nb) rc = HOODIE_NOMEM();
        if (nb) k->lb = nb;
        if (rc == HOODIE_OK && (rc = hoodie_batch_init(&k->lb[k->n_lb], &f)) == HOODIE_OK) k->n_lb++;
        hoodie_field_dispose(&f);
        if (rc == HOODIE_OK) rc = hoodie_avro_decoder_new(&dec, sch, &k->lb[k->n_lb - 1].schema);
        hoodie_hlog_avro_records recs;
        if (rc == HOODIE_OK) rc = hoodie_hlog_avro_open(&recs, &b, (const char *)path.data);
        const uint8_t *rec;
        size_t len;
        hoodie_batch *out = rc == HOODIE_OK ? &k->lb[k->n_lb - 1] : NULL;
        while (rc == HOODIE_OK && (rc = hoodie_hlog_avro_next(&recs, &rec, &len)) == HOODIE_OK) {
            hoodie_cursor c;
            uint64_t off = b.content_offset + (uint64_t)(rec - b.content);
            hoodie_cursor_init(&c, rec, len, off, (const char *)path.data);
            rc = hoodie_avro_decode_row(dec, &c, &out->root);
            if (rc == HOODIE_OK && hoodie_cursor_left(&c))
                rc = HOODIE_CORRUPT("%s: CDC record at offset %llu has %zu trailing bytes", (const char *)path.data,
                                    (unsigned long long)off, hoodie_cursor_left(&c));
        }
        if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
        hoodie_avro_decoder_free(dec);
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    if (have_it) hoodie_hlog_iter_dispose(&it);
    hoodie_arena_free(a);
    hoodie_buf_dispose(&data);
    hoodie_buf_dispose(&path);
    return rc;
}

/* An image column of a CDC log record, rendered as JSON, into column col of out. */
static hoodie_status put_logged_image(hoodie_batch *out, int col, hoodie_buf *text, const hoodie_batch *b, int c,
                                      int64_t row)
{
    hoodie_array *a = &out->root.children[col];
    const hoodie_field *f = &out->schema.children[col];
    const hoodie_array *img = &b->root.children[c];
    if (!hoodie_array_is_valid(img, row)) return hoodie_array_append_null(a, f);
    hoodie_buf_clear(text);
    HOODIE_TRY(hoodie_render_cell(text, &b->schema.children[c], img, row, HOODIE_RENDER_JSON));
    return hoodie_array_append_bytes(a, f, text->data, text->len);
}

/* Changes of the open commit's CDC logs until `out` is full; *done = 1 when every log was read. */
static hoodie_status logged_rows(cdc_cursor *k, hoodie_batch *out, int *done)
{
    const hoodie_commit_meta *m = k->m;
    *done = 0;
    while (out->root.length < k->limit) {
        if (k->lb_i < k->n_lb) {
            const hoodie_batch *b = &k->lb[k->lb_i];
            if (k->lb_row == b->root.length) { k->lb_i++; k->lb_row = 0; continue; }
            int opc = hoodie_field_find(&b->schema, "op"), bc = hoodie_field_find(&b->schema, "before"),
                ac = hoodie_field_find(&b->schema, "after");
            int64_t r = k->lb_row++;
            size_t ol = 0;
            const uint8_t *op = hoodie_array_is_valid(&b->root.children[opc], r)
                                    ? hoodie_array_bytes_at(&b->root.children[opc], r, &ol) : NULL;
            if (!op || ol != 1 || (*op != 'i' && *op != 'u' && *op != 'd'))
                return HOODIE_CORRUPT("%s/%s: CDC record %lld of block %zu has op '%.*s', not i, u or d",
                                      k->t->base_path, k->lpath, (long long)r, k->lb_i, op ? (int)(ol > 16 ? 16 : ol) : 4,
                                      op ? (const char *)op : "null");
            const char *ts = k->c->requested;
            HOODIE_TRY(hoodie_array_append_bytes(&out->root.children[0], &out->schema.children[0], op, 1));
            HOODIE_TRY(hoodie_array_append_bytes(&out->root.children[1], &out->schema.children[1], ts, strlen(ts)));
            HOODIE_TRY(put_logged_image(out, 2, &k->text, b, bc, r));
            HOODIE_TRY(put_logged_image(out, 3, &k->text, b, ac, r));
            out->root.length++;
            continue;
        }
        logged_close(k);
        /* the next CDC log */
        while (k->lstat < m->stat_count &&
               (k->logged[k->lstat] != LOGGED_ALL || k->lfile == m->stats[k->lstat].cdc_file_count)) {
            k->lstat++;
            k->lfile = 0;
        }
        if (k->lstat == m->stat_count) { *done = 1; return HOODIE_OK; }
        HOODIE_TRY(logged_open(k, m->stats[k->lstat].cdc_files[k->lfile++], 1));
    }
    return HOODIE_OK;
}

static void commit_close(cdc_cursor *k)
{
    group_close(k);
    state_drop(&k->a);
    state_drop(&k->bnext);
    hoodie_read__scan_close(k->ascan);
    hoodie_read__scan_close(k->bscan);
    k->ascan = k->bscan = NULL;
    hoodie_buf_clear(&k->filter);
    hoodie_buf_clear(&k->gkeys);
    hoodie_hmap_dispose(&k->groups);
    hoodie_hmap_dispose(&k->bgroups);
    hoodie_hmap_dispose(&k->lgroups);
    logged_close(k);
    free(k->logged);
    k->logged = NULL;
    k->lstat = k->lfile = k->lnext = 0;
    hoodie_commit_meta_free(k->m);
    k->m = NULL;
    k->open = 0;
}

static hoodie_status open_state(cdc_cursor *k, const char *as_of, const hoodie_hmap *groups, hoodie_read_scan **r)
{
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.as_of = as_of;
    so.filter = (const char *)k->filter.data;
    HOODIE_TRY(hoodie_read__scan_open(k->t, &so, r));
    hoodie_read__scan_only(*r, groups);
    return HOODIE_OK;
}

/* The next batch of a state (none at its end, or without a scan). */
static hoodie_status state_next(hoodie_read_scan *r, state_batch *sb)
{
    state_drop(sb);
    if (!r) return HOODIE_OK;
    hoodie_status rc = hoodie_read__scan_next(r, &sb->b);
    if (rc == HOODIE_ITEROVER) return HOODIE_OK;
    if (rc < 0) return rc;
    sb->have = 1;
    hoodie_read__scan_group(r, &sb->part, &sb->fid);
    return HOODIE_OK;
}

/* Order of file groups, as the file-system view sorts them. */
static int group_cmp(const char *pa, const char *fa, const char *pb, const char *fb)
{
    int c = strcmp(pa, pb);
    return c ? c : strcmp(fa, fb);
}

static int in_group(const cdc_cursor *k, const state_batch *sb)
{
    return sb->have && !group_cmp(sb->part, sb->fid, k->gpart, k->gfid);
}

/* The set of file groups commit m wrote or replaced. */
static hoodie_status touched_groups(cdc_cursor *k)
{
    const hoodie_commit_meta *m = k->m;
    size_t n = 0, n_rep = 0;
    for (size_t r = 0; r < m->replaced_count; r++) n_rep += m->replaced[r].count;
    int64_t *stat_of = malloc((m->stat_count + n_rep + 1) * sizeof *stat_of); /* per key: its write stat, or -1 */
    if (!stat_of) return HOODIE_NOMEM();
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < m->stat_count; i++) {
        if (k->logged[i] == LOGGED_ALL) continue;
        stat_of[n++] = (int64_t)i;
        rc = hoodie_buf_printf(&k->gkeys, "%s\x01%s%c", m->stats[i].partition_path ? m->stats[i].partition_path : "",
                               m->stats[i].file_id ? m->stats[i].file_id : "", 0);
    }
    for (size_t r = 0; rc == HOODIE_OK && r < m->replaced_count; r++)
        for (size_t i = 0; rc == HOODIE_OK && i < m->replaced[r].count; i++) {
            stat_of[n++] = -1;
            rc = hoodie_buf_printf(&k->gkeys, "%s\x01%s%c",
                                   m->replaced[r].partition_path ? m->replaced[r].partition_path : "",
                                   m->replaced[r].file_ids[i], 0);
        }
    k->n_inferred = n;
    if (rc == HOODIE_OK) rc = hoodie_hmap_init(&k->groups, n);
    if (rc == HOODIE_OK) rc = hoodie_hmap_init(&k->bgroups, n);
    if (rc == HOODIE_OK) rc = hoodie_hmap_init(&k->lgroups, n);
    size_t off = 0; /* the buffer no longer moves */
    for (size_t e = 0; rc == HOODIE_OK && e < n; e++) {
        const char *key = (const char *)k->gkeys.data + off;
        size_t len = strlen(key);
        uint64_t *slot;
        int existed;
        int before_logged = stat_of[e] >= 0 && k->logged[stat_of[e]] == LOGGED_BEFORE;
        rc = hoodie_hmap_upsert(&k->groups, key, len, &slot, &existed);
        if (rc == HOODIE_OK)
            rc = hoodie_hmap_upsert(before_logged ? &k->lgroups : &k->bgroups, key, len, &slot, &existed);
        if (rc == HOODIE_OK && before_logged) *slot = (uint64_t)stat_of[e];
        off += len + 1;
    }
    free(stat_of);
    return rc;
}

/* The key of file group (partition, file id) in the commit's sets, in k->akeys. */
static hoodie_status group_key(cdc_cursor *k, const char *part, const char *fid)
{
    hoodie_buf_clear(&k->akeys);
    return hoodie_buf_printf(&k->akeys, "%s\x01%s", part ? part : "", fid ? fid : "");
}

/* Room for one more batch of the open file group's records before the commit. */
static hoodie_status before_room(cdc_cursor *k)
{
    if (k->n_before < k->cap_before) return HOODIE_OK;
    size_t nc = k->cap_before ? k->cap_before * 2 : 16;
    hoodie_batch *nb = realloc(k->before, nc * sizeof *nb);
    if (nb) k->before = nb;
    int64_t *nf = nb ? realloc(k->first, (nc + 1) * sizeof *nf) : NULL;
    if (nf) k->first = nf;
    if (!nb || !nf) return HOODIE_NOMEM();
    k->cap_before = nc;
    return HOODIE_OK;
}

/* The before images of a CDC log block (op, record_key, before) as the state before the commit would give its
 * records: the five meta columns (record key and partition path; the others null), then the image's columns. */
static hoodie_status before_of_block(hoodie_batch *out, const hoodie_batch *lb, const char *part, const char *what)
{
    int kc = hoodie_field_find(&lb->schema, "record_key"), bc = hoodie_field_find(&lb->schema, "before");
    int oc = hoodie_field_find(&lb->schema, "op");
    const hoodie_field *img = &lb->schema.children[bc];
    const hoodie_array *ia = &lb->root.children[bc], *ka = &lb->root.children[kc], *oa = &lb->root.children[oc];
    for (int64_t r = 0; r < lb->root.length; r++) {
        size_t ol = 0;
        const uint8_t *op = hoodie_array_is_valid(oa, r) ? hoodie_array_bytes_at(oa, r, &ol) : NULL;
        if (!op || ol != 1 || (*op != 'i' && *op != 'u' && *op != 'd'))
            return HOODIE_CORRUPT("%s: CDC record %lld has op '%.*s', not i, u or d", what, (long long)r,
                                  op ? (int)(ol > 16 ? 16 : ol) : 4, op ? (const char *)op : "null");
    }
    hoodie_field sf;
    HOODIE_TRY(hoodie_field_with_meta(&sf, img));
    hoodie_status rc = hoodie_batch_init(out, &sf);
    hoodie_field_dispose(&sf);
    if (rc < 0) return rc;
    int64_t *rows = malloc(((size_t)lb->root.length + 1) * sizeof *rows);
    size_t n = 0;
    if (!rows) rc = HOODIE_NOMEM();
    for (int64_t r = 0; rc == HOODIE_OK && r < lb->root.length; r++) {
        if (!hoodie_array_is_valid(ia, r)) continue; /* an insert */
        size_t kl;
        if (!hoodie_array_is_valid(ka, r)) {
            rc = HOODIE_CORRUPT("%s: CDC record %lld has a before image and no record_key", what, (long long)r);
            break;
        }
        const uint8_t *key = hoodie_array_bytes_at(ka, r, &kl);
        rows[n++] = r;
        for (int c = 0; rc == HOODIE_OK && c < 5; c++) {
            hoodie_array *a = &out->root.children[c];
            const hoodie_field *cf = &out->schema.children[c];
            rc = c == 2 ? hoodie_array_append_bytes(a, cf, key, kl)
               : c == 3 ? hoodie_array_append_bytes(a, cf, part, strlen(part))
                        : hoodie_array_append_null(a, cf);
        }
    }
    for (size_t i = 0; rc == HOODIE_OK && i < img->n_children; i++)
        rc = hoodie_array_take(&out->root.children[5 + i], &out->schema.children[5 + i], &ia->children[i], rows, n);
    free(rows);
    if (rc == HOODIE_OK) out->root.length = (int64_t)n;
    else hoodie_batch_dispose(out);
    return rc;
}

/* The open file group's records before the commit from the CDC logs of its write stat st (DATA_BEFORE): the
 * before images of its updates and deletes -- every record the commit changed; the others it did not. */
static hoodie_status before_from_logs(cdc_cursor *k, const hoodie_write_stat *st)
{
    for (size_t f = 0; f < st->cdc_file_count; f++) {
        HOODIE_TRY(logged_open(k, st->cdc_files[f], 0));
        char *what = hoodie_arena_sprintf(k->m->arena, "%s/%s", k->t->base_path, st->cdc_files[f]);
        hoodie_status rc = what ? HOODIE_OK : HOODIE_NOMEM();
        for (size_t b = 0; rc == HOODIE_OK && b < k->n_lb; b++) {
            rc = before_room(k);
            if (rc == HOODIE_OK) rc = before_of_block(&k->before[k->n_before], &k->lb[b], k->gpart, what);
            if (rc == HOODIE_OK) {
                k->first[k->n_before] = k->rows_before;
                k->rows_before += k->before[k->n_before++].root.length;
            }
        }
        logged_close(k);
        if (rc < 0) return rc;
    }
    return HOODIE_OK;
}

/* Open the next file group of the open commit: the first in order of the two states' next batches. Its records
 * before the commit are kept and indexed by key (memory: one file group, not the commit's). */
static hoodie_status group_load(cdc_cursor *k);

static hoodie_status group_open(cdc_cursor *k)
{
    const state_batch *sb = &k->bnext, *sa = &k->a;
    if (sb->have && (!sa->have || group_cmp(sb->part, sb->fid, sa->part, sa->fid) <= 0)) { k->gpart = sb->part; k->gfid = sb->fid; }
    else { k->gpart = sa->part; k->gfid = sa->fid; }
    return group_load(k);
}

/* The next LOGGED_BEFORE file group that no state had rows of (the commit deleted every record it had): opened
 * from its CDC logs alone, so that its deletes are not lost. *any = 0 when none is left. */
static hoodie_status group_open_logged(cdc_cursor *k, int *any)
{
    const hoodie_commit_meta *m = k->m;
    *any = 0;
    for (; k->lnext < m->stat_count; k->lnext++) {
        if (k->logged[k->lnext] != LOGGED_BEFORE) continue;
        const hoodie_write_stat *st = &m->stats[k->lnext];
        HOODIE_TRY(group_key(k, st->partition_path, st->file_id));
        uint64_t *slot = hoodie_hmap_get(&k->lgroups, k->akeys.data, k->akeys.len);
        if (!slot || (*slot & LGROUP_OPENED)) continue;
        k->gpart = st->partition_path ? st->partition_path : "";
        k->gfid = st->file_id ? st->file_id : "";
        k->lnext++;
        *any = 1;
        return group_load(k);
    }
    return HOODIE_OK;
}

/* Load the records before the commit of the file group k->gpart, k->gfid and index them by key. */
static hoodie_status group_load(cdc_cursor *k)
{
    k->gopen = 1;
    k->deletes_from = -1;
    if (k->lgroups.count) { /* its records before the commit from its CDC logs (DATA_BEFORE) */
        HOODIE_TRY(group_key(k, k->gpart, k->gfid));
        uint64_t *st = hoodie_hmap_get(&k->lgroups, k->akeys.data, k->akeys.len);
        if (st && !(*st & LGROUP_OPENED)) {
            *st |= LGROUP_OPENED;
            HOODIE_TRY(before_from_logs(k, &k->m->stats[*st & ~LGROUP_OPENED]));
        }
    }
    while (in_group(k, &k->bnext)) {
        HOODIE_TRY(before_room(k));
        k->first[k->n_before] = k->rows_before;
        k->rows_before += k->bnext.b.root.length;
        k->before[k->n_before++] = k->bnext.b; /* moved */
        k->bnext.have = 0;
        HOODIE_TRY(state_next(k->bscan, &k->bnext));
    }
    if (!k->n_before) return HOODIE_OK;
    HOODIE_TRY(find_cols(&k->before[0], &k->bc));
    k->boffs = malloc(((size_t)k->rows_before + 1) * sizeof *k->boffs);
    k->seen = calloc((size_t)k->rows_before + 1, 1);
    if (!k->boffs || !k->seen) return HOODIE_NOMEM();
    k->boffs[0] = 0;
    for (size_t b = 0; b < k->n_before; b++)
        for (int64_t i = 0; i < k->before[b].root.length; i++)
            HOODIE_TRY(row_key(&k->before[b], &k->bc, i, &k->bkeys, &k->boffs[k->first[b] + i + 1]));
    HOODIE_TRY(hoodie_hmap_init(&k->map, (size_t)k->rows_before));
    for (size_t b = 0; b < k->n_before; b++)
        for (int64_t i = 0; i < k->before[b].root.length; i++) {
            int64_t g = k->first[b] + i;
            uint64_t *slot;
            int existed;
            HOODIE_TRY(hoodie_hmap_upsert(&k->map, k->bkeys.data + k->boffs[g], k->boffs[g + 1] - k->boffs[g], &slot,
                                          &existed));
            *slot = (uint64_t)b << 32 | (uint64_t)i;
        }
    return HOODIE_OK;
}

/* Open the next commit of the window: its metadata, and the states before and after it, each at its first batch.
 * A commit that changes no data is left closed. */
static hoodie_status commit_open(cdc_cursor *k, const hoodie_instant *c)
{
    const hoodie_timeline *tl = k->t->tl;
    int any = 0;
    HOODIE_TRY(hoodie_table__commit_meta(k->t, c, &k->m));
    k->c = c;
    k->open = 1;
    hoodie_status rc = changes_data(k->m) ? partitions_filter(k->m, &k->filter, &any) : HOODIE_OK;
    if (rc == HOODIE_OK && any) rc = find_logged(k);
    if (rc == HOODIE_OK && any) rc = check_versions(k->v, c, k->m, k->logged);
    if (rc == HOODIE_OK && any) rc = touched_groups(k);
    if (rc < 0 || !any) { commit_close(k); return rc; }
    if (!k->n_inferred) return HOODIE_OK; /* every change is in CDC logs: no state to read */
    /* the state before: as of the latest completed write requested before this commit */
    const char *prev = NULL;
    for (size_t i = 0; i < tl->count; i++) {
        const hoodie_instant *x = &tl->instants[i];
        if (x->state == HOODIE_STATE_COMPLETED && (HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(x->action)) &&
            strcmp(x->requested, c->requested) < 0 && (!prev || strcmp(x->requested, prev) > 0))
            prev = x->requested;
    }
    if (prev) rc = open_state(k, prev, &k->bgroups, &k->bscan);
    if (rc == HOODIE_OK) rc = open_state(k, c->requested, &k->groups, &k->ascan);
    if (rc == HOODIE_OK) rc = state_next(k->bscan, &k->bnext);
    if (rc == HOODIE_OK) rc = state_next(k->ascan, &k->a);
    if (rc == HOODIE_OK && k->a.have) rc = find_cols(&k->a.b, &k->ac);
    k->a_pos = 0;
    if (rc < 0) commit_close(k);
    return rc;
}

/* Rows of the state after the commit, from the current batch until `out` is full: every row the commit wrote is an
 * insert or an update. */
static hoodie_status after_rows(cdc_cursor *k, hoodie_batch *out)
{
    const hoodie_batch *a = &k->a.b;
    const char *t = k->c->requested;
    size_t tl = strlen(t);
    int replace = k->c->action == HOODIE_ACTION_REPLACECOMMIT;
    for (; k->a_pos < a->root.length && out->root.length < k->limit; k->a_pos++) {
        int64_t i = k->a_pos;
        size_t ctl, end;
        const uint8_t *ct = cell(a, k->ac.time, i, &ctl);
        hoodie_buf_clear(&k->akeys);
        HOODIE_TRY(row_key(a, &k->ac, i, &k->akeys, &end));
        uint64_t *slot = k->rows_before ? hoodie_hmap_get(&k->map, k->akeys.data, end) : NULL;
        const hoodie_batch *bb = slot ? &k->before[*slot >> 32] : NULL;
        int64_t br = slot ? (int64_t)(*slot & 0xffffffffu) : -1;
        int64_t g = slot ? k->first[*slot >> 32] + br : -1;
        if (ctl != tl || memcmp(ct, t, tl)) { /* not written by this commit: unchanged */
            if (g >= 0) k->seen[g] = 1;
            continue;
        }
        if (bb && replace) { /* a file group the replace dropped: its record goes, the new one comes */
            size_t pl, fl;
            const uint8_t *pp = cell(bb, k->bc.part, br, &pl), *fn = cell(bb, k->bc.file, br, &fl);
            if (in_replaced(k->m, pp, pl, fn, file_id_len(fn, fl))) {
                bb = NULL;
                g = -1;
            }
        }
        if (g >= 0) k->seen[g] = 1;
        HOODIE_TRY(emit(out, &k->text, bb ? "u" : "i", t, bb, br, a, i));
    }
    return HOODIE_OK;
}

static hoodie_status cursor_next(hoodie_batch *out, void *payload)
{
    cdc_cursor *k = payload;
    while (out->root.length < k->limit) {
        if (!k->open) {
            if (k->next == k->n) break;
            HOODIE_TRY(commit_open(k, k->in[k->next++].in));
            continue;
        }
        if (!k->gopen) {
            if (!k->bnext.have && !k->a.have) { /* the states are through: then the changes the CDC logs hold */
                int done, any;
                HOODIE_TRY(group_open_logged(k, &any));
                if (any) continue;
                HOODIE_TRY(logged_rows(k, out, &done));
                if (done) commit_close(k);
                continue;
            }
            HOODIE_TRY(group_open(k));
            continue;
        }
        if (k->deletes_from < 0) { /* the group's state after streams past */
            if (!in_group(k, &k->a)) { k->deletes_from = 0; continue; }
            HOODIE_TRY(after_rows(k, out));
            if (k->a_pos == k->a.b.root.length) {
                HOODIE_TRY(state_next(k->ascan, &k->a));
                k->a_pos = 0;
            }
            continue;
        }
        /* the group's records that are gone */
        for (size_t b = 0; b < k->n_before && out->root.length < k->limit; b++) {
            const hoodie_batch *bb = &k->before[b];
            int64_t end = k->first[b] + bb->root.length;
            if (k->deletes_from >= end) continue;
            for (int64_t g = k->deletes_from > k->first[b] ? k->deletes_from : k->first[b];
                 g < end && out->root.length < k->limit; g++) {
                k->deletes_from = g + 1;
                if (!k->seen[g]) HOODIE_TRY(emit(out, &k->text, "d", k->c->requested, bb, g - k->first[b], NULL, -1));
            }
        }
        if (k->deletes_from >= k->rows_before) group_close(k);
    }
    return out->root.length ? HOODIE_OK : HOODIE_ITEROVER;
}

static void cursor_free(void *payload)
{
    cdc_cursor *k = payload;
    if (!k) return;
    commit_close(k);
    free(k->before);
    free(k->first);
    free(k->in);
    hoodie_fsview_free(k->v);
    hoodie_buf_dispose(&k->text);
    hoodie_buf_dispose(&k->filter);
    hoodie_buf_dispose(&k->gkeys);
    hoodie_buf_dispose(&k->bkeys);
    hoodie_buf_dispose(&k->akeys);
    free(k);
}

hoodie_status hoodie_read__cdc(hoodie_table *t, const hoodie_scan_opts *opts, struct ArrowArrayStream *out)
{
    if (opts->as_of) return HOODIE_FAIL(HOODIE_EINVAL, "a CDC query takes --from/--to, not --as-of");
    if (opts->columns || (opts->filter && *opts->filter))
        return HOODIE_FAIL(HOODIE_EINVAL, "a CDC query takes no projection or filter (its columns are op, ts_ms, "
                           "before, after)");
    if (!t->cfg->populate_meta_fields)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "CDC queries need meta fields (hoodie.populate.meta.fields)");
    const char *ends[2] = { opts->from, opts->to };
    for (int i = 0; i < 2; i++)
        if (ends[i] && !hoodie_instant_bound_valid(ends[i], strlen(ends[i])))
            return HOODIE_FAIL(HOODIE_EINVAL, "'%s' is not an instant time (yyyyMMddHHmmssSSS, or digits of one such "
                               "as 000)", ends[i]);
    const hoodie_timeline *tl = t->tl;
    cdc_cursor *k = calloc(1, sizeof *k);
    if (!k) return HOODIE_NOMEM();
    k->t = t;
    k->limit = opts->batch_rows > 0 ? opts->batch_rows : 65536;
    k->in = calloc(tl->count + 1, sizeof *k->in);
    if (!k->in) { cursor_free(k); return HOODIE_NOMEM(); }
    for (size_t i = 0; i < tl->count; i++) {
        const hoodie_instant *x = &tl->instants[i];
        if (x->state != HOODIE_STATE_COMPLETED || !(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(x->action))) continue;
        const char *a = axis_of(tl, x);
        if (opts->from && strcmp(a, opts->from) <= 0) continue;
        if (opts->to && strcmp(a, opts->to) > 0) continue;
        k->in[k->n].in = x;
        k->in[k->n++].axis = a;
    }
    qsort(k->in, k->n, sizeof *k->in, by_axis);
    hoodie_fsview_opts vo = { 0 };
    hoodie_status rc = k->n ? hoodie_fsview_build(&k->v, t->storage, t->base_path, t->cfg, tl, &vo) : HOODIE_OK;
    /* the first commit is opened here, so that a window that cannot be read fails now, not at the first batch */
    while (rc == HOODIE_OK && !k->open && k->next < k->n) rc = commit_open(k, k->in[k->next++].in);
    if (rc < 0) { cursor_free(k); return rc; }
    static const char *const names[] = { "op", "ts_ms", "before", "after" };
    hoodie_field schema;
    rc = hoodie_field_init(&schema, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0);
    for (int i = 0; rc == HOODIE_OK && i < 4; i++) {
        hoodie_field f;
        rc = hoodie_field_init(&f, names[i], hoodie_type_of(HOODIE_TYPE_STRING), i >= 2);
        if (rc == HOODIE_OK) { rc = hoodie_field_add_child(&schema, &f); hoodie_field_dispose(&f); }
    }
    if (rc == HOODIE_OK) rc = hoodie_arrow_stream_export(out, &schema, cursor_next, cursor_free, k); /* frees k on failure */
    else cursor_free(k);
    hoodie_field_dispose(&schema);
    return rc;
}
