#include "services/lsm_compact.h"
#include "model/build.h"
#include "merge/sorted_merge.h"
#include "read/lsm_read.h"
#include "storage/storage.h"
#include "table/file_name.h"
#include "util/error.h"
#include "write/basefile_stream.h"
#include "write/lsm_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MERGE_BATCH 8192

hoodie_lsm_op hoodie_lsm_compact_policy(int has_base, uint64_t base_bytes, size_t live_logs, uint64_t live_log_bytes,
                                        double full_ratio, size_t max_logs)
{
    if (!live_logs) return HOODIE_LSM_OP_SKIP;
    if (!has_base || live_logs > max_logs || (double)live_log_bytes > full_ratio * (double)base_bytes)
        return HOODIE_LSM_OP_FULL;
    return live_logs >= 2 ? HOODIE_LSM_OP_LOG : HOODIE_LSM_OP_SKIP;
}

static void slice_cfg(hoodie_svc *sv, hoodie_lsm_slice_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->scan.storage = sv->s;
    c->scan.tl = sv->t->tl;
    c->scan.schema = &sv->file_schema;
    c->scan.rolled_back = (const char *const *)sv->rolled_back_instants;
    c->scan.rolled_back_count = sv->n_rolled_back_instants;
    c->scan.evo = sv->t->evo; /* schema on read: files by their versions */
    c->key_col = sv->key_col;
    c->ordering_col = sv->ord_col;
    c->deleted_col = sv->del_col;
    c->marker = &sv->marker;
    c->policy = sv->policy;
    c->batch_rows = MERGE_BATCH;
}

hoodie_status hoodie_lsm_compact__tag(hoodie_svc *sv, const hoodie_file_slice *sl, json_t *op, int *skip)
{
    *skip = 0;
    if (!hoodie_lsm_slice_sortable(sl)) return HOODIE_OK; /* framed logs: the default compaction merges them */
    HOODIE_TRY(hoodie_svc__load_schema(sv));
    hoodie_lsm_slice_cfg cfg;
    slice_cfg(sv, &cfg);
    uint8_t *live = malloc(sl->log_count + 1);
    if (!live) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_lsm_slice_live_logs(&cfg, sl, live);
    size_t n_live = 0;
    uint64_t live_bytes = 0;
    for (size_t i = 0; rc == HOODIE_OK && i < sl->log_count; i++)
        if (live[i]) { n_live++; live_bytes += sl->logs[i]->size; }
    free(live);
    if (rc < 0) return rc;
    hoodie_lsm_op k = hoodie_lsm_compact_policy(sl->base != NULL, sl->base ? sl->base->size : 0, n_live, live_bytes,
                                                HOODIE_LSM_FULL_RATIO, HOODIE_LSM_FULL_MAX_LOGS);
    if (k == HOODIE_LSM_OP_SKIP) { *skip = 1; return HOODIE_OK; }
    json_t *m = json_object_get(op, "metrics");
    if (!m) return HOODIE_CORRUPT("compaction operation without metrics");
    int bad = hoodie_svc__set(m, k == HOODIE_LSM_OP_FULL ? "lsm.op.FULL" : "lsm.op.LOG", json_real(1.0)) < 0;
    bad |= hoodie_svc__set(m, "lsm.live.log.files", json_real((double)n_live)) < 0;
    return bad ? HOODIE_NOMEM() : HOODIE_OK;
}

/* ---- run ---- */

static const char *jstr(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static const char *basename_of(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL; /* plan version 1 holds full paths */
    return s ? s + 1 : p;
}

static hoodie_status fs_file(hoodie_svc *sv, hoodie_arena *a, const char *partition, const char *name,
                             const hoodie_fs_file **out)
{
    hoodie_fs_file *f = hoodie_arena_calloc(a, 1, sizeof *f);
    char *path = hoodie_svc__file_path(sv, partition, name);
    if (!f || !path) { free(path); return HOODIE_NOMEM(); }
    f->name = hoodie_arena_strdup(a, name);
    f->path = hoodie_arena_strdup(a, path);
    f->partition = hoodie_arena_strdup(a, partition);
    free(path);
    if (!f->name || !f->path || !f->partition) return HOODIE_NOMEM();
    if (hoodie_file_name_parse(&f->fn, f->name) == HOODIE_FILE_OTHER)
        return HOODIE_CORRUPT("compaction plan: '%s' is not a base or log file name", name);
    size_t n = f->fn.instant.len < HOODIE_INSTANT_TIME_MAX ? f->fn.instant.len : HOODIE_INSTANT_TIME_MAX;
    memcpy(f->instant, f->fn.instant.p, n);
    hoodie_rfile *rf;
    if (sv->s->open_read(sv->s->ctx, f->path, &rf, &f->size) == HOODIE_OK) sv->s->close_read(sv->s->ctx, rf);
    hoodie_error_clear();
    *out = f;
    return HOODIE_OK;
}

/* The constant _hoodie_file_name column (meta column 4). */
static hoodie_status set_file_name(hoodie_batch *b, const char *name)
{
    const hoodie_field *f = &b->schema.children[4];
    hoodie_array a;
    HOODIE_TRY(hoodie_array_init(&a, f));
    hoodie_status rc = hoodie_array_reserve(&a, f, b->root.length, (size_t)b->root.length * strlen(name));
    for (int64_t r = 0; r < b->root.length && rc == HOODIE_OK; r++) rc = hoodie_array_append_str(&a, f, name);
    if (rc < 0) { hoodie_array_dispose(&a); return rc; }
    hoodie_array_dispose(&b->root.children[4]);
    b->root.children[4] = a;
    return HOODIE_OK;
}

static hoodie_status take_rows(hoodie_batch *out, const hoodie_batch *in, const int64_t *rows, size_t n)
{
    HOODIE_TRY(hoodie_batch_init(out, &in->schema));
    hoodie_status rc = HOODIE_OK;
    for (size_t c = 0; rc == HOODIE_OK && c < in->root.n_children; c++)
        rc = hoodie_array_take(&out->root.children[c], &out->schema.children[c], &in->root.children[c], rows, n);
    out->root.length = (int64_t)n;
    if (rc < 0) hoodie_batch_dispose(out);
    return rc;
}

typedef struct bvec { hoodie_batch *v; size_t n, cap; int64_t rows; } bvec;

static hoodie_status bvec_push(bvec *b, hoodie_batch *x)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 8;
        hoodie_batch *nv = realloc(b->v, nc * sizeof *nv);
        if (!nv) { hoodie_batch_dispose(x); return HOODIE_NOMEM(); }
        b->v = nv;
        b->cap = nc;
    }
    b->rows += x->root.length;
    b->v[b->n++] = *x;
    return HOODIE_OK;
}

static void bvec_dispose(bvec *b)
{
    for (size_t i = 0; i < b->n; i++) hoodie_batch_dispose(&b->v[i]);
    free(b->v);
}

typedef struct opctx {
    hoodie_svc *sv;
    hoodie_write_txn *tx;
    hoodie_arena *a;           /* stat strings (the caller's) */
    const char *part, *fid;
    char token[64];
} opctx;

static hoodie_status prepare_path(opctx *o, const char *name, char **path, const char **rel)
{
    *path = hoodie_svc__file_path(o->sv, o->part, name);
    *rel = *o->part ? hoodie_arena_sprintf(o->a, "%s/%s", o->part, name) : hoodie_arena_strdup(o->a, name);
    if (!*path || !*rel) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_write__marker(o->tx, o->part, name, HOODIE_MARKER_CREATE);
    if (rc == HOODIE_EEXISTS) { hoodie_error_clear(); rc = HOODIE_OK; } /* a run before this one */
    if (rc == HOODIE_OK) rc = hoodie_svc__remove(o->sv->s, *path);
    return rc;
}

/* FULL: base + live logs -> a new base file, streamed. */
static hoodie_status run_full(opctx *o, hoodie_lsm_slice *ls, hoodie_wstat *st, int64_t *written)
{
    hoodie_svc *sv = o->sv;
    hoodie_buf nb = HOODIE_BUF_INIT;
    char *path = NULL;
    const char *rel = NULL;
    hoodie_basefile_stream *bs = NULL;
    uint64_t size = 0;
    hoodie_status rc = hoodie_file_name_base(&nb, o->fid, o->token, o->tx->inst.requested, "parquet");
    const char *name = (const char *)nb.data;
    if (rc == HOODIE_OK) rc = prepare_path(o, name, &path, &rel);
    hoodie_basefile_opts bo = { sv->s, path, &sv->file_schema, sv->avro_file_schema, sv->o.codec, 0, 0,
                                NULL, NULL, NULL, NULL, 0, name, 0 };
    if (rc == HOODIE_OK) rc = hoodie_basefile_stream_open(&bs, &bo, HOODIE_LSM_ROW_GROUP_ROWS, HOODIE_LSM_PAGE_BYTES,
                                                              HOODIE_LSM_PAGE_ROWS);
    while (rc == HOODIE_OK) {
        hoodie_batch b;
        rc = hoodie_lsm_slice_next(ls, &b, NULL);
        if (rc != HOODIE_OK) break;
        rc = hoodie_basefile_stream_write(bs, &b); /* the stream names the file */
        hoodie_batch_dispose(&b);
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    if (rc == HOODIE_OK) rc = hoodie_basefile_stream_close(bs, &size, written);
    hoodie_basefile_stream_free(bs);
    if (rc == HOODIE_OK) {
        st->path = rel;
        st->num_writes = *written;
        st->total_write_bytes = st->file_size_in_bytes = (int64_t)size;
    }
    free(path);
    hoodie_buf_dispose(&nb);
    return rc;
}

/* Delete rows flagged in `natural` lose their ordering value (the delete file's third column). */
static hoodie_status null_orderings(hoodie_batch *y, const uint8_t *natural, size_t n)
{
    hoodie_array *o = &y->root.children[2];
    y->schema.children[2].nullable = 1; /* in every batch of the file alike */
    for (size_t i = 0; i < n; i++) {
        if (!natural[i] || !hoodie_array_is_valid(o, (int64_t)i)) continue;
        if (!o->validity) HOODIE_TRY(hoodie_array_materialize_validity(o, o->length));
        hoodie_bit_clear(o->validity, (int64_t)i);
        o->null_count++;
    }
    return HOODIE_OK;
}

/* LOG: live logs -> one data log and/or one delete file after the last of them, deletes kept. */
static hoodie_status run_log(opctx *o, hoodie_lsm_slice *ls, const hoodie_file_slice *sl, const uint8_t *live,
                             hoodie_wstat *st, int64_t *written)
{
    hoodie_svc *sv = o->sv;
    const hoodie_fs_file *last = NULL;
    hoodie_buf compacted = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < sl->log_count && rc == HOODIE_OK; i++) {
        if (!live[i]) continue;
        last = sl->logs[i];
        rc = hoodie_buf_printf(&compacted, "%s%s", compacted.len ? "," : "", sl->logs[i]->instant);
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&compacted);
    if (rc < 0 || !last) { hoodie_buf_dispose(&compacted); return rc; } /* nothing live: nothing to write */
    int64_t version = 0;
    for (size_t i = 0; i < sl->log_count; i++)
        if (!strcmp(sl->logs[i]->instant, last->instant) && sl->logs[i]->fn.version > version)
            version = sl->logs[i]->fn.version;
    version++;
    /* gather the merge: data rows and delete rows */
    bvec data = { 0 }, dels = { 0 };
    while (rc == HOODIE_OK) {
        hoodie_batch b;
        uint8_t *del = NULL;
        rc = hoodie_lsm_slice_next(ls, &b, &del);
        if (rc != HOODIE_OK) break;
        size_t n = (size_t)b.root.length, nd = 0, nk = 0;
        int64_t *dr = malloc((n + 1) * sizeof *dr), *kr = malloc((n + 1) * sizeof *kr);
        uint8_t *natural = malloc(n + 1); /* per delete row: written without its ordering value */
        if (!dr || !kr || !natural) rc = HOODIE_NOMEM();
        /* a record after a delete goes to both files (hoodie_sorted_row_kind): the delete file applies first
           (fsview orders a log compaction's delete file before its data file) */
        for (size_t r = 0; rc == HOODIE_OK && r < n; r++) {
            int kind = del ? del[r] : HOODIE_SORTED_RECORD;
            if (kind != HOODIE_SORTED_RECORD) {
                natural[nd] = kind == HOODIE_SORTED_RECORD_AFTER_NATURAL || kind == HOODIE_SORTED_NATURAL_DELETE;
                dr[nd++] = (int64_t)r;
            }
            if (kind == HOODIE_SORTED_RECORD || kind == HOODIE_SORTED_RECORD_AFTER_NATURAL ||
                kind == HOODIE_SORTED_RECORD_AFTER_DELETE)
                kr[nk++] = (int64_t)r;
        }
        hoodie_batch x;
        if (rc == HOODIE_OK && nk) {
            if ((rc = take_rows(&x, &b, kr, nk)) == HOODIE_OK) rc = bvec_push(&data, &x);
        }
        if (rc == HOODIE_OK && nd) {
            hoodie_batch y;
            const char *cols[3] = { "_hoodie_record_key", "_hoodie_partition_path",
                                    sv->ord_col >= 0 ? sv->file_schema.children[sv->ord_col].name : NULL };
            if ((rc = take_rows(&x, &b, dr, nd)) == HOODIE_OK) {
                rc = hoodie_batch_project(&y, &x, cols, sv->ord_col >= 0 ? 3 : 2);
                hoodie_batch_dispose(&x);
                if (rc == HOODIE_OK && sv->ord_col >= 0) {
                    rc = null_orderings(&y, natural, nd);
                    if (rc < 0) hoodie_batch_dispose(&y);
                }
                if (rc == HOODIE_OK) rc = bvec_push(&dels, &y);
            }
        }
        free(dr);
        free(kr);
        free(natural);
        free(del);
        hoodie_batch_dispose(&b);
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    const char **names = hoodie_arena_calloc(o->a, 2, sizeof *names);
    size_t n_names = 0;
    uint64_t total = 0;
    if (rc == HOODIE_OK && !names) rc = HOODIE_NOMEM();
    for (int kind = 0; rc == HOODIE_OK && kind < 2; kind++) {
        bvec *v = kind ? &dels : &data;
        if (kind ? !dels.n : (!data.n && dels.n)) continue; /* an empty merge still gives an (empty) data file */
        hoodie_buf nb = HOODIE_BUF_INIT;
        char *path = NULL;
        const char *rel = NULL;
        hoodie_batch empty;
        int have_empty = 0;
        rc = hoodie_file_name_native_log(&nb, o->fid, o->token, last->instant, version, kind);
        const char *name = (const char *)nb.data;
        if (rc == HOODIE_OK) rc = prepare_path(o, name, &path, &rel);
        for (size_t i = 0; rc == HOODIE_OK && !kind && i < v->n; i++) rc = set_file_name(&v->v[i], name);
        if (rc == HOODIE_OK && !v->n) {
            rc = hoodie_batch_init(&empty, &sv->file_schema);
            have_empty = rc == HOODIE_OK;
        }
        const hoodie_batch **parts = calloc(v->n + 1, sizeof *parts);
        if (rc == HOODIE_OK && !parts) rc = HOODIE_NOMEM();
        for (size_t i = 0; parts && i < v->n; i++) parts[i] = &v->v[i];
        if (parts && have_empty) parts[0] = &empty;
        uint64_t size = 0;
        hoodie_lsm_log_opts lo = { sv->s, path, last->instant, sv->avro_file_schema, sv->o.codec, kind ? 0 : 2 };
        if (rc == HOODIE_OK) rc = hoodie_lsm_write_log_ex(&lo, (const char *)compacted.data, parts, v->n ? v->n : 1, &size);
        total += size;
        if (rc == HOODIE_OK) {
            names[n_names] = hoodie_arena_strdup(o->a, name);
            if (!names[n_names]) rc = HOODIE_NOMEM();
            if (!st->path) st->path = rel;
            n_names++;
        }
        free(parts);
        if (have_empty) hoodie_batch_dispose(&empty);
        free(path);
        hoodie_buf_dispose(&nb);
    }
    if (rc == HOODIE_OK) {
        *written = data.rows;
        st->num_writes = data.rows;
        st->num_deletes = dels.rows;
        st->total_write_bytes = st->file_size_in_bytes = (int64_t)total;
        st->is_delta = 1;
        st->log_version = (int32_t)version;
        st->base_file = sl->base ? hoodie_arena_strdup(o->a, sl->base->name) : "";
        if (!st->base_file) rc = HOODIE_NOMEM();
        st->log_files = names;
        st->log_file_count = n_names;
    }
    bvec_dispose(&data);
    bvec_dispose(&dels);
    hoodie_buf_dispose(&compacted);
    return rc;
}

hoodie_status hoodie_lsm_compact__run(hoodie_svc *sv, hoodie_write_txn *tx, json_t *op, size_t ordinal,
                                      hoodie_wstat *st, hoodie_arena *a, hoodie_service_result *res)
{
    opctx o = { sv, tx, a, jstr(op, "partitionPath"), jstr(op, "fileId"), "" };
    const char *data = basename_of(jstr(op, "dataFilePath"));
    const char *base_instant = jstr(op, "baseInstantTime");
    json_t *deltas = json_object_get(op, "deltaFilePaths");
    int is_log = json_object_get(json_object_get(op, "metrics"), "lsm.op.LOG") != NULL;
    if (!o.part) o.part = "";
    if (!o.fid) return HOODIE_CORRUPT("%s: compaction operation without a fileId", tx->inst.requested);
    snprintf(o.token, sizeof o.token, "%zu-0-%zu", ordinal, ordinal);
    HOODIE_TRY(hoodie_svc__load_schema(sv));
    hoodie_arena *fa;
    HOODIE_TRY(hoodie_arena_new(&fa, NULL, 4096));
    size_t n_logs = json_array_size(deltas);
    hoodie_file_slice sl = { base_instant ? base_instant : "", NULL, NULL, 0 };
    const hoodie_fs_file **logs = hoodie_arena_calloc(fa, n_logs + 1, sizeof *logs);
    uint8_t *live = calloc(n_logs + 1, 1);
    hoodie_status rc = logs && live ? HOODIE_OK : HOODIE_NOMEM();
    if (rc == HOODIE_OK && data && *data) rc = fs_file(sv, fa, o.part, data, &sl.base);
    for (size_t i = 0; rc == HOODIE_OK && i < n_logs; i++) {
        const char *p = basename_of(json_string_value(json_array_get(deltas, i)));
        rc = p ? fs_file(sv, fa, o.part, p, &logs[i]) : HOODIE_CORRUPT("%s: bad deltaFilePaths", tx->inst.requested);
    }
    sl.logs = logs;
    sl.log_count = n_logs;
    hoodie_lsm_slice_cfg cfg;
    slice_cfg(sv, &cfg);
    cfg.keep_deletes = cfg.skip_base = is_log;
    hoodie_lsm_slice *ls = NULL;
    int64_t written = 0;
    if (rc == HOODIE_OK) rc = hoodie_lsm_slice_live_logs(&cfg, &sl, live);
    if (rc == HOODIE_OK) rc = hoodie_lsm_slice_open(&ls, &cfg, &sl);
    if (rc == HOODIE_OK) rc = is_log ? run_log(&o, ls, &sl, live, st, &written) : run_full(&o, ls, st, &written);
    if (rc == HOODIE_OK) {
        hoodie_sorted_merge_stats ms;
        hoodie_lsm_slice_stats(ls, &ms);
        int64_t n_live = 0, live_size = 0;
        for (size_t i = 0; i < n_logs; i++)
            if (live[i]) { n_live++; live_size += (int64_t)logs[i]->size; }
        st->partition_path = hoodie_arena_strdup(a, o.part);
        st->file_id = hoodie_arena_strdup(a, o.fid);
        st->prev_commit = base_instant ? hoodie_arena_strdup(a, base_instant) : NULL;
        st->total_log_records = (int64_t)ms.rows_in;
        st->total_log_blocks = n_live;
        st->total_log_files_compacted = n_live;
        st->total_log_size_compacted = live_size;
        st->total_updated_records_compacted = (int64_t)(ms.rows_in > ms.keys ? ms.rows_in - ms.keys : 0);
        if (!st->partition_path || !st->file_id) rc = HOODIE_NOMEM();
        res->files_written++;
        res->records += written;
        res->file_groups++;
    }
    hoodie_lsm_slice_free(ls);
    free(live);
    hoodie_arena_free(fa);
    if (rc < 0) hoodie_error__prefix("compaction %s (%s) of file group %s: ", tx->inst.requested, is_log ? "LOG" : "FULL", o.fid);
    return rc;
}
