#include "read/lsm_read.h"
#include "format/hlog/native_log.h"
#include "format/parquet/reader.h"
#include "model/build.h"
#include "model/conform.h"
#include "table/pqfile.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one native file ---- */

typedef struct nfile {
    const hoodie_field *schema;       /* reader schema */
    const hoodie_fs_file *f;
    hoodie_parquet_reader *r;
    hoodie_pq_scan *sc;
    int deletes;
    int64_t batch_rows;
    const char *const *keys;          /* point lookup (cfg.keys): sorted, unique */
    size_t n_keys;
    int past_keys;                    /* lookup: the file's rows are past the largest key */
    char instant[HOODIE_INSTANT_TIME_MAX + 1]; /* the file's instant (footer INSTANT_TIME, else its name's) */
    char *compacted;                  /* COMPACTED_BLOCK_TIMES of a log compaction's file (malloc), or NULL */
    /* lookup through the page index: the wanted keys' rows as runs, one batch per run */
    struct lrun { uint32_t rg; int64_t row, count; } *runs;
    size_t n_runs, runs_cap, run_i;
    int use_runs;
} nfile;

/* ---- point lookups: row groups by statistics, rows by binary search ---- */

static int key_cmp_str(const char *key, const uint8_t *p, size_t n)
{
    return hoodie_sorted_key_compare((const uint8_t *)key, strlen(key), p, n);
}

static hoodie_status run_add(nfile *n, uint32_t rg, int64_t row, int64_t count)
{
    if (n->n_runs == n->runs_cap) {
        size_t nc = n->runs_cap ? n->runs_cap * 2 : 4;
        struct lrun *r = realloc(n->runs, nc * sizeof *r);
        if (!r) return HOODIE_NOMEM();
        n->runs = r;
        n->runs_cap = nc;
    }
    n->runs[n->n_runs++] = (struct lrun){ rg, row, count };
    return HOODIE_OK;
}

/* The rows of the wanted keys in page `p` of the key column of row group rg: read and decode that page of the
 * key column only, binary search in it. */
static hoodie_status page_runs(nfile *n, hoodie_pq_file *f, uint32_t rg, const hoodie_pq_offset_index *oi,
                               uint32_t p, size_t k0, size_t k1)
{
    static const char *const key_name[1] = { "_hoodie_record_key" };
    int64_t first = oi->pages[p].first_row_index;
    int64_t end = p + 1 < oi->page_count ? oi->pages[p + 1].first_row_index
                                         : hoodie_pq_file_metadata(f)->row_groups[rg].num_rows;
    hoodie_pq_scan_opts so = { key_name, 1, &rg, 1, end - first, first };
    hoodie_pq_scan *sc;
    hoodie_batch b;
    HOODIE_TRY(hoodie_pq_scan_open(&sc, f, &so));
    hoodie_status rc = hoodie_pq_scan_next(sc, &b);
    hoodie_pq_scan_free(sc);
    if (rc < 0) return rc;
    const hoodie_array *kcol = &b.root.children[0];
    int64_t len = b.root.length;
    const uint8_t *kp;
    size_t kl;
    for (size_t i = k0; rc == HOODIE_OK && i < k1; i++) {
        int64_t lo = 0, hi = len; /* first row whose key >= keys[i] */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            hoodie_array_bytes_or_empty(kcol, mid, &kp, &kl);
            if (key_cmp_str(n->keys[i], kp, kl) > 0) lo = mid + 1;
            else hi = mid;
        }
        int64_t e = lo;
        for (; e < len; e++) {
            hoodie_array_bytes_or_empty(kcol, e, &kp, &kl);
            if (key_cmp_str(n->keys[i], kp, kl) != 0) break;
        }
        if (e > lo) rc = run_add(n, rg, first + lo, e - lo);
    }
    hoodie_batch_dispose(&b);
    return rc;
}

/* Point lookup through the page index of the key column (row groups rgs, ascending): *ok = 0 when some row
 * group has no usable page index (the caller then scans those row groups). */
static hoodie_status lookup_runs(nfile *n, const uint32_t *rgs, size_t n_rgs, int *ok)
{
    hoodie_pq_file *f = hoodie_pqfile__file(n->r);
    int leaf = hoodie_pq_schema_find_leaf(hoodie_pq_file_schema(f), "_hoodie_record_key");
    hoodie_arena *a;
    *ok = 0;
    if (leaf < 0 || hoodie_pq_file_schema(f)->leaves[leaf].max_rep) return HOODIE_OK;
    HOODIE_TRY(hoodie_arena_new(&a, NULL, 16 * 1024));
    hoodie_status rc = HOODIE_OK;
    int usable = 1;
    for (size_t g = 0; rc == HOODIE_OK && usable && g < n_rgs; g++) {
        hoodie_pq_page_index pi;
        hoodie_arena_reset(a);
        rc = hoodie_pq_page_index_read(f, rgs[g], leaf, a, &pi);
        if (rc == HOODIE_ENOTFOUND || rc == HOODIE_ECORRUPT || (rc == HOODIE_OK && !pi.has_ci)) {
            hoodie_error_clear(); /* e.g. files written without a page index: the statistics path */
            usable = 0;
            rc = HOODIE_OK;
            break;
        }
        /* pages whose bounds hold a key (keys are sorted: those of a page are a range of them) */
        const hoodie_pq_column_index *ci = &pi.ci;
        for (uint32_t p = 0; rc == HOODIE_OK && p < ci->page_count; p++) {
            if (ci->null_pages[p]) continue;
            size_t lo = 0, hi;
            while (lo < n->n_keys && key_cmp_str(n->keys[lo], ci->min_values[p], ci->min_lens[p]) < 0) lo++;
            if (lo == n->n_keys) {
                if (ci->boundary_order == HOODIE_PQ_ASCENDING) break; /* later pages start higher still */
                continue;
            }
            for (hi = lo; hi < n->n_keys && key_cmp_str(n->keys[hi], ci->max_values[p], ci->max_lens[p]) <= 0;) hi++;
            if (lo < hi) rc = page_runs(n, f, rgs[g], &pi.oi, p, lo, hi);
        }
    }
    hoodie_arena_free(a);
    if (rc == HOODIE_OK && usable) { *ok = 1; n->use_runs = 1; }
    else n->n_runs = 0;
    return rc;
}

/* Open the file's scan: every row group, or for a lookup those whose key statistics may hold a wanted key. */
static hoodie_status nfile_scan_open(nfile *n)
{
    if (!n->n_keys) return hoodie_pqfile__scan_open(n->r, &n->sc);
    hoodie_pq_file *f = hoodie_pqfile__file(n->r);
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    int leaf = hoodie_pq_schema_find_leaf(hoodie_pq_file_schema(f), "_hoodie_record_key");
    uint32_t *rgs = malloc((m->row_group_count + 1) * sizeof *rgs);
    size_t k = 0;
    if (!rgs) return HOODIE_NOMEM();
    for (uint32_t rg = 0; rg < m->row_group_count; rg++) {
        hoodie_pq_column_stats st;
        int keep = 1;
        if (leaf >= 0 && hoodie_pq_row_group_stats(f, rg, leaf, &st) == HOODIE_OK && st.has_min && st.has_max &&
            st.min.kind == HOODIE_PQ_VAL_BYTES && st.max.kind == HOODIE_PQ_VAL_BYTES) {
            keep = 0;
            for (size_t i = 0; i < n->n_keys && !keep; i++)
                keep = key_cmp_str(n->keys[i], st.min.bytes, st.min.len) >= 0 &&
                       key_cmp_str(n->keys[i], st.max.bytes, st.max.len) <= 0;
        }
        hoodie_error_clear();
        if (keep) rgs[k++] = rg;
    }
    int indexed = 0;
    hoodie_status rc = lookup_runs(n, rgs, k, &indexed);
    if (rc == HOODIE_OK && !indexed) rc = hoodie_pqfile__scan_open_row_groups(n->r, rgs, k, &n->sc);
    free(rgs);
    return rc;
}

/* Lookup: keep only the wanted keys' rows of `raw` (binary search: the file is sorted by key). */
static hoodie_status pick_keys(nfile *n, hoodie_batch *raw)
{
    int kc = hoodie_field_find(&raw->schema, "_hoodie_record_key");
    if (kc < 0) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: no _hoodie_record_key column", n->f->path);
    const hoodie_array *kcol = &raw->root.children[kc];
    int64_t len = raw->root.length;
    int64_t *rows = malloc(((size_t)len + 1) * sizeof *rows);
    size_t m = 0;
    if (!rows) return HOODIE_NOMEM();
    const uint8_t *p;
    size_t pl;
    for (size_t i = 0; i < n->n_keys; i++) {
        int64_t lo = 0, hi = len; /* first row whose key >= keys[i] */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            hoodie_array_bytes_or_empty(kcol, mid, &p, &pl);
            if (key_cmp_str(n->keys[i], p, pl) > 0) lo = mid + 1;
            else hi = mid;
        }
        for (; lo < len; lo++) {
            hoodie_array_bytes_or_empty(kcol, lo, &p, &pl);
            if (key_cmp_str(n->keys[i], p, pl) != 0) break;
            rows[m++] = lo;
        }
    }
    if (len > 0) {
        hoodie_array_bytes_or_empty(kcol, len - 1, &p, &pl);
        if (key_cmp_str(n->keys[n->n_keys - 1], p, pl) <= 0) n->past_keys = 1;
    }
    hoodie_batch f;
    hoodie_status rc = hoodie_batch_init(&f, &raw->schema);
    if (rc < 0) { free(rows); return rc; }
    for (size_t c = 0; rc == HOODIE_OK && c < raw->root.n_children; c++)
        rc = hoodie_array_take(&f.root.children[c], &f.schema.children[c], &raw->root.children[c], rows, m);
    free(rows);
    if (rc < 0) { hoodie_batch_dispose(&f); return rc; }
    f.root.length = (int64_t)m;
    hoodie_batch_dispose(raw);
    *raw = f;
    return HOODIE_OK;
}

static void nfile_close(nfile *n)
{
    free(n->compacted);
    n->compacted = NULL;
    free(n->runs);
    n->runs = NULL;
    n->n_runs = n->runs_cap = n->run_i = 0;
    n->use_runs = 0;
    hoodie_pq_scan_free(n->sc);
    hoodie_parquet_reader_free(n->r);
    n->sc = NULL;
    n->r = NULL;
}

/* Planning reads footers only (batch_rows < 0). */
static int ctx_footer_only(const nfile *n) { return n->batch_rows < 0; }

/* Open a native file; *applies = 0 when its instant does not apply (the file is then closed). */
static hoodie_status nfile_open(nfile *n, const hoodie_logscan_ctx *ctx, const hoodie_fs_file *f, int64_t batch_rows,
                                const char *const *keys, size_t n_keys, int *applies)
{
    memset(n, 0, sizeof *n);
    n->schema = ctx->schema;
    n->f = f;
    n->deletes = f->fn.kind == HOODIE_FILE_DELETES_NATIVE;
    n->keys = keys;
    n->n_keys = n_keys;
    if (n_keys) batch_rows = HOODIE_LSM_LOOKUP_BATCH;
    n->batch_rows = batch_rows;
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    o.storage = ctx->storage;
    if (batch_rows > 0) o.batch_rows = batch_rows;
    const hoodie_renames *rn;
    HOODIE_TRY(hoodie_evo_renames(ctx->evo, ctx->as_of, f->instant, &rn));
    HOODIE_TRY(hoodie_pqfile__open(&n->r, f->path, &o, rn));
    const char *meta = hoodie_parquet_reader_kv(n->r, HOODIE_NATIVE_LOG_FOOTER_KEY);
    char instant[HOODIE_INSTANT_TIME_MAX + 1];
    snprintf(instant, sizeof instant, "%s", f->instant);
    hoodie_status rc = HOODIE_OK;
    if (meta) {
        hoodie_arena *a;
        hoodie_native_log_meta m;
        rc = hoodie_arena_new(&a, NULL, 4096);
        if (rc == HOODIE_OK) rc = hoodie_native_log_meta_parse(&m, meta, strlen(meta), a, f->path);
        if (rc == HOODIE_OK && m.header[HOODIE_HLOG_INSTANT_TIME])
            snprintf(instant, sizeof instant, "%s", m.header[HOODIE_HLOG_INSTANT_TIME]);
        if (rc == HOODIE_OK && m.header[HOODIE_HLOG_COMPACTED_BLOCK_TIMES] &&
            !(n->compacted = strdup(m.header[HOODIE_HLOG_COMPACTED_BLOCK_TIMES])))
            rc = HOODIE_NOMEM();
        hoodie_arena_free(a);
    }
    snprintf(n->instant, sizeof n->instant, "%s", instant);
    *applies = rc == HOODIE_OK && hoodie_logscan__applies(ctx, instant);
    if (rc == HOODIE_OK && *applies && !ctx_footer_only(n)) rc = nfile_scan_open(n);
    if (rc < 0 || !*applies) nfile_close(n);
    return rc;
}

/* A delete file's rows in the reader schema: key, partition path and ordering value by name, other columns null. */
static hoodie_status deletes_batch(const nfile *n, hoodie_batch *raw, hoodie_batch *out)
{
    HOODIE_TRY(hoodie_batch_init(out, n->schema));
    int64_t len = raw->root.length;
    int64_t *ident = malloc(((size_t)len + 1) * sizeof *ident), *nulls = malloc(((size_t)len + 1) * sizeof *nulls);
    hoodie_status rc = ident && nulls ? HOODIE_OK : HOODIE_NOMEM();
    for (int64_t i = 0; rc == HOODIE_OK && i < len; i++) { ident[i] = i; nulls[i] = -1; }
    for (size_t c = 0; rc == HOODIE_OK && c < n->schema->n_children; c++) {
        const hoodie_field *tf = &n->schema->children[c];
        int sc = hoodie_field_find(&raw->schema, tf->name);
        int same = sc >= 0 && raw->schema.children[sc].type.id == tf->type.id && tf->n_children == 0;
        if (same) rc = hoodie_array_take(&out->root.children[c], tf, &raw->root.children[sc], ident, (size_t)len);
        else {
            /* a null column of the right length (take from itself: every row a null) */
            hoodie_array empty;
            rc = hoodie_array_init(&empty, tf);
            if (rc == HOODIE_OK) rc = hoodie_array_take(&out->root.children[c], tf, &empty, nulls, (size_t)len);
            hoodie_array_dispose(&empty);
        }
    }
    out->root.length = len;
    free(ident);
    free(nulls);
    if (rc < 0) { hoodie_batch_dispose(out); hoodie_error__prefix("%s: ", n->f->path); }
    return rc;
}

/* Next batch in the reader schema; *deleted: all-ones flags for a delete file. */
static hoodie_status nfile_next(nfile *n, hoodie_batch *out, uint8_t **deleted)
{
    hoodie_batch raw;
    if (deleted) *deleted = NULL;
    if (n->past_keys) return HOODIE_ITEROVER;
    hoodie_status rc;
    if (n->use_runs) {
        /* one run of rows: the pages holding them in every column */
        if (n->run_i >= n->n_runs) return HOODIE_ITEROVER;
        const struct lrun *r = &n->runs[n->run_i++];
        hoodie_pq_scan_opts so = { NULL, 0, &r->rg, 1, r->count, r->row };
        hoodie_pq_scan *sc;
        HOODIE_TRY(hoodie_pq_scan_open(&sc, hoodie_pqfile__file(n->r), &so));
        rc = hoodie_pq_scan_next(sc, &raw);
        hoodie_pq_scan_free(sc);
        if (rc < 0) return rc == HOODIE_ITEROVER ? HOODIE_CORRUPT("%s: lookup rows past the row group", n->f->path) : rc;
    } else {
        HOODIE_TRY(hoodie_pq_scan_next(n->sc, &raw));
        if (n->n_keys && (rc = pick_keys(n, &raw)) < 0) { hoodie_batch_dispose(&raw); return rc; }
    }
    if (n->deletes) {
        rc = deletes_batch(n, &raw, out);
        if (rc == HOODIE_OK && deleted) {
            *deleted = malloc((size_t)out->root.length + 1);
            if (!*deleted) { hoodie_batch_dispose(out); rc = HOODIE_NOMEM(); }
            else memset(*deleted, 1, (size_t)out->root.length + 1);
        }
    } else {
        rc = hoodie_conform_batch(out, n->schema, &raw);
        if (rc < 0) hoodie_error__prefix("%s: ", n->f->path);
    }
    hoodie_batch_dispose(&raw);
    return rc;
}

/* ---- native files as log items (hash merge) ---- */

static hoodie_status delete_items(hoodie_log_item *it, hoodie_arena *a, const hoodie_batch *b, int key_col, int ord_col)
{
    size_t n = (size_t)b->root.length;
    it->deletes = hoodie_arena_calloc(a, n + 1, sizeof *it->deletes);
    if (!it->deletes) return HOODIE_NOMEM();
    it->delete_count = n;
    const hoodie_array *k = &b->root.children[key_col];
    for (size_t i = 0; i < n; i++) {
        hoodie_hlog_delete *d = &it->deletes[i];
        if (hoodie_array_is_valid(k, (int64_t)i)) {
            size_t kl;
            const uint8_t *kp = hoodie_array_bytes_at(k, (int64_t)i, &kl);
            d->record_key = hoodie_arena_strndup(a, (const char *)kp, kl);
            if (!d->record_key) return HOODIE_NOMEM();
        }
        if (ord_col < 0) continue;
        hoodie_ordering o;
        hoodie_ordering_of(&o, &b->schema.children[ord_col], &b->root.children[ord_col], (int64_t)i);
        switch (o.kind) {
        case HOODIE_ORD_INT: d->ord_type = HOODIE_HLOG_ORD_LONG; d->ord_i = o.i; break;
        case HOODIE_ORD_DOUBLE: d->ord_type = HOODIE_HLOG_ORD_DOUBLE; d->ord_d = o.d; break;
        case HOODIE_ORD_BYTES:
            d->ord_type = HOODIE_HLOG_ORD_STRING;
            d->ord_bytes = hoodie_arena_memdup(a, o.bytes, o.len ? o.len : 1);
            d->ord_len = o.len;
            if (!d->ord_bytes) return HOODIE_NOMEM();
            break;
        default: break; /* decimals and nulls: natural order */
        }
    }
    return HOODIE_OK;
}

hoodie_status hoodie_lsm__native_items(const hoodie_logscan_ctx *ctx, const hoodie_fs_file *f, hoodie_log_items *out)
{
    nfile n;
    int applies;
    HOODIE_TRY(nfile_open(&n, ctx, f, 0, NULL, 0, &applies));
    if (!applies) { out->skipped_blocks++; return HOODIE_OK; }
    char instant[HOODIE_INSTANT_TIME_MAX + 1];
    snprintf(instant, sizeof instant, "%s", f->instant);
    int key_col = hoodie_field_find(ctx->schema, "_hoodie_record_key");
    int ord_col = -1;
    hoodie_status rc = HOODIE_OK;
    size_t first = out->count;
    if (n.deletes) {
        /* the ordering value is the third column of a delete file, whatever its name */
        const hoodie_field *fs = hoodie_pqfile__schema(n.r);
        if (fs->n_children >= 3) ord_col = hoodie_field_find(ctx->schema, fs->children[2].name);
    }
    while (rc == HOODIE_OK) {
        hoodie_batch b;
        rc = nfile_next(&n, &b, NULL);
        if (rc < 0) break;
        hoodie_log_item *it = hoodie_log_items_push(out, n.deletes ? HOODIE_LOG_DELETES : HOODIE_LOG_DATA, instant);
        if (!it) { hoodie_batch_dispose(&b); rc = HOODIE_ENOMEM; break; }
        if (!n.deletes) { it->batch = b; continue; }
        rc = key_col < 0 ? HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: delete files need the record key column", f->path)
                         : delete_items(it, out->arena, &b, key_col, ord_col);
        hoodie_batch_dispose(&b);
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    if (first < out->count) out->items[first].block_start = 1; /* a native log file is one block */
    nfile_close(&n);
    return rc;
}

/* ---- sorted merge of a slice ---- */

/* 1 if `instant` is one of the comma-separated instants of `list`. */
static int listed(const char *list, const char *instant)
{
    size_t il = strlen(instant);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        while (l && *p == ' ') { p++; l--; }
        if (l == il && !memcmp(p, instant, il)) return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* Log files replaced by a later log compaction's file of the same slice (its COMPACTED_BLOCK_TIMES lists their
 * instant): skip[i] = 1. Files are in apply order; only applying files count. The data and delete files of one log
 * compaction share instant and version and do not replace each other. */
static void superseded(const nfile *files, size_t n, uint8_t *skip)
{
    for (size_t i = 0; i < n; i++) {
        skip[i] = 0;
        for (size_t j = i + 1; j < n && !skip[i]; j++)
            if (files[j].compacted && listed(files[j].compacted, files[i].instant) &&
                /* not the other file (data / deletes) of the same log compaction */
                !(!strcmp(files[j].instant, files[i].instant) && files[j].f->fn.version == files[i].f->fn.version))
                skip[i] = 1;
    }
}

/* live[i] / replaced[i] (either may be NULL) for each of sl's logs: applies and not replaced / applies and replaced
 * by a later applying log compaction's file. */
static hoodie_status logs_state(const hoodie_lsm_slice_cfg *cfg, const hoodie_file_slice *sl, uint8_t *live,
                                uint8_t *replaced)
{
    nfile *files = calloc(sl->log_count + 1, sizeof *files);
    size_t *idx = calloc(sl->log_count + 1, sizeof *idx);
    uint8_t *skip = calloc(sl->log_count + 1, 1);
    size_t n = 0;
    hoodie_status rc = files && idx && skip ? HOODIE_OK : HOODIE_NOMEM();
    for (size_t i = 0; i < sl->log_count; i++) {
        if (live) live[i] = 0;
        if (replaced) replaced[i] = 0;
    }
    for (size_t i = 0; rc == HOODIE_OK && i < sl->log_count; i++) {
        int applies = 0;
        rc = nfile_open(&files[n], &cfg->scan, sl->logs[i], -1, NULL, 0, &applies);
        if (rc == HOODIE_OK && applies) idx[n++] = i;
    }
    if (rc == HOODIE_OK) {
        superseded(files, n, skip);
        for (size_t j = 0; j < n; j++) {
            if (live) live[idx[j]] = !skip[j];
            if (replaced) replaced[idx[j]] = skip[j];
        }
    }
    for (size_t j = 0; files && j < n; j++) nfile_close(&files[j]);
    free(files);
    free(idx);
    free(skip);
    return rc;
}

hoodie_status hoodie_lsm_slice_live_logs(const hoodie_lsm_slice_cfg *cfg, const hoodie_file_slice *sl, uint8_t *live)
{
    return logs_state(cfg, sl, live, NULL);
}

hoodie_status hoodie_lsm_slice_replaced_logs(const hoodie_lsm_slice_cfg *cfg, const hoodie_file_slice *sl,
                                             uint8_t *replaced)
{
    return logs_state(cfg, sl, NULL, replaced);
}

int hoodie_lsm_slice_sortable(const hoodie_file_slice *sl)
{
    for (size_t i = 0; i < sl->log_count; i++)
        if (sl->logs[i]->fn.kind != HOODIE_FILE_LOG_NATIVE && sl->logs[i]->fn.kind != HOODIE_FILE_DELETES_NATIVE)
            return 0;
    return 1;
}

struct hoodie_lsm_slice {
    nfile *files;
    hoodie_sorted_source *srcs;
    size_t n;
    hoodie_sorted_merge *m;
};

static hoodie_status src_next(void *ctx, hoodie_batch *out, uint8_t **deleted)
{
    return nfile_next(ctx, out, deleted);
}

void hoodie_lsm_slice_free(hoodie_lsm_slice *s)
{
    if (!s) return;
    hoodie_sorted_merge_free(s->m);
    for (size_t i = 0; i < s->n; i++) nfile_close(&s->files[i]);
    free(s->files);
    free(s->srcs);
    free(s);
}

hoodie_status hoodie_lsm_slice_open(hoodie_lsm_slice **out, const hoodie_lsm_slice_cfg *cfg,
                                    const hoodie_file_slice *sl)
{
    *out = NULL;
    if (!hoodie_lsm_slice_sortable(sl))
        return HOODIE_FAIL(HOODIE_EINVAL, "a sorted merge needs a slice of native log files only");
    hoodie_lsm_slice *s = calloc(1, sizeof *s);
    if (!s) return HOODIE_NOMEM();
    size_t cap = sl->log_count + 1;
    s->files = calloc(cap, sizeof *s->files);
    s->srcs = calloc(cap, sizeof *s->srcs);
    hoodie_status rc = s->files && s->srcs ? HOODIE_OK : HOODIE_NOMEM();
    int has_base = 0;
    if (rc == HOODIE_OK && sl->base && !cfg->skip_base) {
        /* a base file applies whenever it is in the view */
        nfile *n = &s->files[s->n];
        hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
        memset(n, 0, sizeof *n);
        n->schema = cfg->scan.schema;
        n->f = sl->base;
        n->keys = cfg->keys;
        n->n_keys = cfg->n_keys;
        o.storage = cfg->scan.storage;
        if (cfg->batch_rows > 0) o.batch_rows = cfg->batch_rows;
        if (cfg->n_keys) o.batch_rows = HOODIE_LSM_LOOKUP_BATCH;
        const hoodie_renames *rn = NULL;
        rc = hoodie_evo_renames(cfg->scan.evo, cfg->scan.as_of, sl->base->instant, &rn);
        if (rc == HOODIE_OK) rc = hoodie_pqfile__open(&n->r, sl->base->path, &o, rn);
        if (rc == HOODIE_OK) rc = nfile_scan_open(n);
        if (rc == HOODIE_OK) {
            s->srcs[s->n].next = src_next;
            s->srcs[s->n].ctx = n;
            s->n++;
            has_base = 1;
        } else {
            nfile_close(n);
        }
    }
    for (size_t i = 0; rc == HOODIE_OK && i < sl->log_count; i++) {
        int applies;
        rc = nfile_open(&s->files[s->n], &cfg->scan, sl->logs[i], cfg->batch_rows, cfg->keys, cfg->n_keys, &applies);
        if (rc == HOODIE_OK && applies) {
            s->srcs[s->n].next = src_next;
            s->srcs[s->n].ctx = &s->files[s->n];
            s->n++;
        }
    }
    if (rc == HOODIE_OK && s->n > (size_t)has_base) { /* drop logs replaced by a log compaction's file */
        size_t nl = s->n - (size_t)has_base, k = 0;
        uint8_t *skip = malloc(nl);
        if (!skip) rc = HOODIE_NOMEM();
        else {
            superseded(s->files + has_base, nl, skip);
            for (size_t j = 0; j < nl; j++) {
                nfile *f = &s->files[(size_t)has_base + j];
                if (skip[j]) { nfile_close(f); continue; }
                if (k != j) { s->files[(size_t)has_base + k] = *f; memset(f, 0, sizeof *f); }
                k++;
            }
            s->n = (size_t)has_base + k;
            for (size_t j = 0; j < s->n; j++) s->srcs[j].ctx = &s->files[j];
            free(skip);
        }
    }
    if (rc == HOODIE_OK && s->n) {
        hoodie_sorted_merge_cfg mc = { cfg->scan.schema, cfg->key_col, cfg->ordering_col, cfg->deleted_col,
                                       cfg->policy, has_base, cfg->keep_deletes, 0, cfg->batch_rows, cfg->marker };
        rc = hoodie_sorted_merge_open(&s->m, &mc, s->srcs, s->n);
    }
    if (rc < 0) { hoodie_lsm_slice_free(s); return rc; }
    *out = s;
    return HOODIE_OK;
}

hoodie_status hoodie_lsm_slice_next(hoodie_lsm_slice *s, hoodie_batch *out, uint8_t **deleted)
{
    if (deleted) *deleted = NULL;
    if (!s->m) return HOODIE_ITEROVER;
    return hoodie_sorted_merge_next(s->m, out, deleted);
}

void hoodie_lsm_slice_stats(const hoodie_lsm_slice *s, hoodie_sorted_merge_stats *out)
{
    if (s->m) hoodie_sorted_merge_stats_get(s->m, out);
    else memset(out, 0, sizeof *out);
}
