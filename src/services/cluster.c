/*
 * Clustering (hudi-format.md 9.3): in each partition, the file groups whose latest base file is smaller than the
 * small-file limit (two or more of them) are read merged (as the snapshot reader), their rows sorted by the
 * given columns (then the record key) and rewritten into new file groups of about max_file_size each.
 *
 *   C.clustering.requested (v8) / C.replacecommit.requested (v6): HoodieRequestedReplaceMetadata, operationType
 *   CLUSTER, one input group per partition (slices: base file path, log file names, file id, partition), the
 *   sort columns in the strategy parameters
 *   C.clustering.inflight / C.replacecommit.inflight (empty)
 *   new base files <newFileId>_<token>_C.parquet (records keep commit time and sequence number)
 *   completed C.replacecommit (v8: C_CT.replacecommit): HoodieReplaceCommitMetadata with the new files'
 *   stats and partitionToReplaceFileIds = the input file groups, which readers then drop.
 *
 * A pending clustering is finished by the next run: files its dead run left (they carry C in their name) are
 * deleted first. In table version 6 a pending replacecommit is a pending write, so a writer that runs before
 * rolls it back instead.
 */
#include "services/svc.h"
#include "write/precommit.h"
#include "model/build.h"
#include "model/value.h"
#include "storage/storage.h"
#include "table/file_name.h"
#include "util/error.h"
#include "write/basefile.h"
#include "write/commit_encode.h"
#include "write/wlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SMALL (300ll << 20)
#define DEFAULT_MAX (120ll << 20)
#define SORT_PARAM "hoodie.clustering.plan.strategy.sort.columns"

static const char *jstr(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- schedule ---- */

static json_t *slice_info(hoodie_svc *sv, const hoodie_file_group *g, const hoodie_file_slice *sl)
{
    json_t *o = json_object(), *logs = json_array();
    int bad = !o || !logs;
    for (size_t i = 0; !bad && i < sl->log_count; i++) bad |= json_array_append_new(logs, json_string(sl->logs[i]->name)) < 0;
    (void)sv;
    bad |= hoodie_svc__set(o, "dataFilePath", sl->base ? json_string(sl->base->path) : json_null()) < 0;
    bad |= hoodie_svc__set(o, "deltaFilePaths", logs) < 0;
    logs = NULL;
    bad |= hoodie_svc__set(o, "fileId", json_string(g->file_id)) < 0;
    bad |= hoodie_svc__set(o, "partitionPath", json_string(g->partition)) < 0;
    bad |= hoodie_svc__set(o, "bootstrapFilePath", json_string("")) < 0;
    bad |= hoodie_svc__set(o, "version", json_integer(1)) < 0;
    if (bad) { json_decref(o); json_decref(logs); return NULL; }
    return o;
}

static json_t *build_plan(hoodie_svc *sv, const hoodie_fsview *v, const hoodie_svc_pending_fgs *pend, size_t *n_groups)
{
    int64_t small = sv->o.small_file_limit > 0 ? sv->o.small_file_limit : DEFAULT_SMALL;
    int64_t maxsz = sv->o.max_file_size > 0 ? sv->o.max_file_size : DEFAULT_MAX;
    json_t *groups = json_array();
    int bad = !groups;
    *n_groups = 0;
    for (size_t p = 0; !bad && p < v->partition_count; p++) {
        json_t *slices = json_array();
        int64_t bytes = 0;
        bad |= !slices;
        for (size_t i = 0; !bad && i < v->group_count; i++) {
            const hoodie_file_group *g = &v->groups[i];
            const hoodie_file_slice *sl = hoodie_file_group_latest(g);
            if (strcmp(g->partition, v->partitions[p]) || !sl || !sl->base) continue;
            if ((int64_t)sl->base->size >= small || hoodie_svc__pending_has(pend, g->partition, g->file_id)) continue;
            json_t *si = slice_info(sv, g, sl);
            bad |= !si || json_array_append_new(slices, si) < 0;
            bytes += (int64_t)sl->base->size;
            for (size_t k = 0; k < sl->log_count; k++) bytes += (int64_t)sl->logs[k]->size;
        }
        if (bad || json_array_size(slices) < 2) { json_decref(slices); continue; }
        json_t *grp = json_object(), *metrics = json_object();
        int64_t outputs = bytes / maxsz + 1;
        bad |= hoodie_svc__set(metrics, "TOTAL_IO_MB", json_real((double)bytes * 2 / (1024.0 * 1024.0))) < 0;
        bad |= hoodie_svc__set(metrics, "TOTAL_IO_READ_MB", json_real((double)bytes / (1024.0 * 1024.0))) < 0;
        bad |= hoodie_svc__set(metrics, "TOTAL_IO_WRITE_MB", json_real((double)bytes / (1024.0 * 1024.0))) < 0;
        bad |= hoodie_svc__set(grp, "slices", slices) < 0;
        bad |= hoodie_svc__set(grp, "metrics", metrics) < 0;
        bad |= hoodie_svc__set(grp, "numOutputFileGroups", json_integer(outputs)) < 0;
        bad |= hoodie_svc__set(grp, "extraMetadata", json_null()) < 0;
        bad |= hoodie_svc__set(grp, "version", json_integer(1)) < 0;
        bad |= json_array_append_new(groups, grp) < 0;
        (*n_groups)++;
    }
    if (bad || !*n_groups) { json_decref(groups); return NULL; }
    /* the plan */
    hoodie_buf cols = HOODIE_BUF_INIT;
    for (size_t i = 0; i < sv->o.n_sort_columns; i++)
        if (hoodie_buf_printf(&cols, "%s%s", i ? "," : "", sv->o.sort_columns[i]) < 0) bad = 1;
    if (!bad && hoodie_buf_cstr(&cols) < 0) bad = 1;
    json_t *params = json_object(), *strategy = json_object(), *cp = json_object(), *root = json_object();
    if (sv->o.n_sort_columns && !bad)
        bad |= hoodie_svc__set(params, SORT_PARAM, json_string((const char *)cols.data)) < 0;
    hoodie_buf_dispose(&cols);
    bad |= hoodie_svc__set(strategy, "strategyClassName",
                           json_string("org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy")) < 0;
    bad |= hoodie_svc__set(strategy, "strategyParams", params) < 0;
    bad |= hoodie_svc__set(strategy, "version", json_integer(1)) < 0;
    bad |= hoodie_svc__set(cp, "inputGroups", groups) < 0;
    bad |= hoodie_svc__set(cp, "strategy", strategy) < 0;
    bad |= hoodie_svc__set(cp, "extraMetadata", json_null()) < 0;
    bad |= hoodie_svc__set(cp, "version", json_integer(1)) < 0;
    bad |= hoodie_svc__set(cp, "preserveHoodieMetadata", json_true()) < 0;
    bad |= hoodie_svc__set(cp, "missingSchedulePartitions", json_null()) < 0;
    bad |= hoodie_svc__set(root, "operationType", json_string("CLUSTER")) < 0;
    bad |= hoodie_svc__set(root, "clusteringPlan", cp) < 0;
    bad |= hoodie_svc__set(root, "extraMetadata", json_null()) < 0;
    bad |= hoodie_svc__set(root, "version", json_integer(1)) < 0;
    if (bad) { json_decref(root); return NULL; }
    return root;
}

/* ---- sort ---- */

typedef struct sort_ctx {
    const hoodie_svc_rows *rows;
    const hoodie_field *schema;
    int *cols;
    size_t n_cols;
} sort_ctx;

static int row_cmp(const sort_ctx *c, const hoodie_row_ref *a, const hoodie_row_ref *b)
{
    const hoodie_batch *ba = &c->rows->b[a->source], *bb = &c->rows->b[b->source];
    for (size_t i = 0; i < c->n_cols; i++) {
        int col = c->cols[i];
        int r = hoodie_value_compare(&c->schema->children[col], &ba->root.children[col], a->row,
                                     &bb->root.children[col], b->row);
        if (r) return r;
    }
    return 0;
}

static void merge_sort(const sort_ctx *c, hoodie_row_ref *v, hoodie_row_ref *tmp, size_t n)
{
    if (n < 2) return;
    size_t h = n / 2;
    merge_sort(c, v, tmp, h);
    merge_sort(c, v + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = row_cmp(c, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
    while (i < h) tmp[k++] = v[i++];
    while (j < n) tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* ---- run ---- */

typedef struct rm_ctx { hoodie_svc *sv; const char *part; const char *t; hoodie_status rc; } rm_ctx;

static int rm_cb(const hoodie_dirent *e, void *payload)
{
    rm_ctx *c = payload;
    hoodie_file_name fn;
    if (e->is_dir || hoodie_file_name_parse(&fn, e->name) == HOODIE_FILE_OTHER) return 0;
    if (fn.instant.len != strlen(c->t) || memcmp(fn.instant.p, c->t, fn.instant.len)) return 0;
    char *p = hoodie_svc__file_path(c->sv, c->part, e->name);
    c->rc = p ? hoodie_svc__remove(c->sv->s, p) : HOODIE_NOMEM();
    free(p);
    return c->rc < 0;
}

/* Files of a dead run of instant t in `part`. */
static hoodie_status remove_leftovers(hoodie_svc *sv, const char *part, const char *t)
{
    char *dir = hoodie_write__path(sv->base_path, part);
    if (!dir) return HOODIE_NOMEM();
    rm_ctx c = { sv, part, t, HOODIE_OK };
    hoodie_status rc = sv->s->list(sv->s->ctx, dir, rm_cb, &c);
    free(dir);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    return rc < 0 ? rc : c.rc;
}

typedef struct out_state {
    hoodie_wstat *stats;
    size_t n_stats;
    hoodie_replaced_file_ids *replaced;
    size_t n_replaced;
    hoodie_arena *arena;
    size_t ordinal;
} out_state;

static hoodie_status cluster_group(hoodie_svc *sv, hoodie_write_txn *tx, json_t *grp, const int *sort_cols,
                                   size_t n_sort, int64_t max_bytes, out_state *st, hoodie_service_result *res)
{
    json_t *slices = json_object_get(grp, "slices");
    size_t n = json_array_size(slices);
    hoodie_svc_rows rows = { 0 };
    hoodie_status rc = HOODIE_OK;
    const char *part = "";
    int64_t in_bytes = 0;
    hoodie_replaced_file_ids *rep = NULL;
    if (n) part = jstr(json_array_get(slices, 0), "partitionPath");
    if (!part) part = "";
    /* replaced file ids of this partition */
    hoodie_replaced_file_ids *nr = realloc(st->replaced, (st->n_replaced + 1) * sizeof *nr);
    if (!nr) return HOODIE_NOMEM();
    st->replaced = nr;
    rep = &nr[st->n_replaced++];
    memset(rep, 0, sizeof *rep);
    rep->partition_path = hoodie_arena_strdup(st->arena, part);
    rep->file_ids = hoodie_arena_calloc(st->arena, n + 1, sizeof *rep->file_ids);
    if (!rep->partition_path || !rep->file_ids) return HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        json_t *sl = json_array_get(slices, i);
        const char *data = jstr(sl, "dataFilePath");
        const char *fid = jstr(sl, "fileId");
        json_t *deltas = json_object_get(sl, "deltaFilePaths");
        size_t nl = json_array_size(deltas);
        const char **logs = calloc(nl + 1, sizeof *logs);
        if (!logs || !fid) { free(logs); rc = fid ? HOODIE_NOMEM() : HOODIE_CORRUPT("clustering slice without fileId"); break; }
        for (size_t k = 0; k < nl; k++) {
            const char *p = json_string_value(json_array_get(deltas, k));
            const char *s = p ? strrchr(p, '/') : NULL;
            logs[k] = s ? s + 1 : p ? p : "";
        }
        if (data) { const char *s = strrchr(data, '/'); if (s) data = s + 1; if (!*data) data = NULL; }
        if (data) {
            char *path = hoodie_svc__file_path(sv, part, data);
            hoodie_rfile *f;
            uint64_t sz = 0;
            if (path && sv->s->open_read(sv->s->ctx, path, &f, &sz) == HOODIE_OK) sv->s->close_read(sv->s->ctx, f);
            hoodie_error_clear();
            in_bytes += (int64_t)sz;
            free(path);
        }
        rc = hoodie_svc__merge_slice(sv, part, data, logs, nl, &rows);
        free(logs);
        if (rc == HOODIE_OK) {
            rep->file_ids[rep->count] = hoodie_arena_strdup(st->arena, fid);
            if (!rep->file_ids[rep->count]) rc = HOODIE_ENOMEM;
            rep->count++;
        }
    }
    /* sort all rows */
    hoodie_row_ref *sel = NULL, *tmp = NULL;
    size_t total = (size_t)rows.rows;
    if (rc == HOODIE_OK) {
        sel = malloc((total + 1) * sizeof *sel);
        tmp = malloc((total + 1) * sizeof *tmp);
        if (!sel || !tmp) rc = HOODIE_NOMEM();
        size_t k = 0;
        for (size_t b = 0; rc == HOODIE_OK && b < rows.n; b++)
            for (int64_t r = 0; r < rows.b[b].root.length; r++) { sel[k].source = (uint32_t)b; sel[k].row = r; k++; }
        int *cols = calloc(n_sort + 1, sizeof *cols);
        if (!cols && rc == HOODIE_OK) rc = HOODIE_NOMEM();
        for (size_t i = 0; cols && i < n_sort; i++) cols[i] = sort_cols[i];
        if (cols) cols[n_sort] = sv->key_col;
        sort_ctx c = { &rows, &sv->file_schema, cols, n_sort + 1 };
        if (rc == HOODIE_OK) merge_sort(&c, sel, tmp, total);
        free(cols);
    }
    /* split into outputs of about max_bytes */
    int64_t per_row = total ? (in_bytes > 0 ? in_bytes : 1) / (int64_t)total : 1;
    if (per_row < 1) per_row = 1;
    size_t rows_per_file = (size_t)(max_bytes / per_row);
    if (rows_per_file < 1) rows_per_file = 1;
    const hoodie_batch **srcs = calloc(rows.n + 1, sizeof *srcs);
    if (!srcs && rc == HOODIE_OK) rc = HOODIE_NOMEM();
    for (size_t b = 0; srcs && b < rows.n; b++) srcs[b] = &rows.b[b];
    for (size_t off = 0; rc == HOODIE_OK && off < total; off += rows_per_file) {
        size_t cnt = total - off < rows_per_file ? total - off : rows_per_file;
        char fid[80], token[64];
        hoodie_write__new_file_id(fid, sizeof fid);
        snprintf(token, sizeof token, "%zu-0-%zu", st->ordinal, st->ordinal);
        st->ordinal++;
        hoodie_buf nb = HOODIE_BUF_INIT;
        hoodie_batch ob;
        uint64_t size = 0;
        int64_t written = 0;
        rc = hoodie_file_name_base(&nb, fid, token, tx->inst.requested, "parquet");
        if (rc == HOODIE_OK) rc = hoodie_batch_init(&ob, &sv->file_schema);
        if (rc == HOODIE_OK) {
            rc = hoodie_batch_take(&ob, srcs, rows.n, sel + off, cnt);
            char *path = rc == HOODIE_OK ? hoodie_svc__file_path(sv, part, (const char *)nb.data) : NULL;
            if (rc == HOODIE_OK && !path) rc = HOODIE_NOMEM();
            if (rc == HOODIE_OK) rc = hoodie_write__marker(tx, part, (const char *)nb.data, HOODIE_MARKER_CREATE);
            const hoodie_batch *parts[1] = { &ob };
            hoodie_basefile_opts bo = { sv->s, path, &sv->file_schema, sv->avro_file_schema, sv->o.codec, 0, 0,
                                NULL, NULL, NULL, NULL, !sv->t->cfg->populate_meta_fields,
                                (const char *)nb.data, 0 }; /* the file's name in every row (also without meta fields,
                                                          * as Spark writes it) */
            if (rc == HOODIE_OK) rc = hoodie_basefile_write(&bo, parts, 1, &size, &written);
            free(path);
            hoodie_batch_dispose(&ob);
        }
        if (rc == HOODIE_OK) {
            hoodie_wstat *nst = realloc(st->stats, (st->n_stats + 1) * sizeof *nst);
            if (!nst) { rc = HOODIE_NOMEM(); hoodie_buf_dispose(&nb); break; }
            st->stats = nst;
            hoodie_wstat *w = &nst[st->n_stats++];
            memset(w, 0, sizeof *w);
            w->partition_path = rep->partition_path;
            w->file_id = hoodie_arena_strdup(st->arena, fid);
            w->path = *part ? hoodie_arena_sprintf(st->arena, "%s/%s", part, (const char *)nb.data)
                            : hoodie_arena_strdup(st->arena, (const char *)nb.data);
            w->num_writes = written;
            w->num_inserts = written;
            w->total_write_bytes = (int64_t)size;
            w->file_size_in_bytes = (int64_t)size;
            if (!w->file_id || !w->path) rc = HOODIE_NOMEM();
            res->files_written++;
            res->records += written;
        }
        hoodie_buf_dispose(&nb);
    }
    res->file_groups += (int64_t)rep->count;
    free(srcs);
    free(sel);
    free(tmp);
    hoodie_svc__rows_dispose(&rows);
    return rc;
}

static hoodie_status run_plan(hoodie_svc *sv, hoodie_write_txn *tx, json_t *req, hoodie_service_result *res)
{
    out_state st;
    memset(&st, 0, sizeof st);
    json_t *cp = json_object_get(req, "clusteringPlan");
    json_t *groups = json_object_get(cp, "inputGroups");
    const char *sort = jstr(json_object_get(json_object_get(cp, "strategy"), "strategyParams"), SORT_PARAM);
    int64_t maxsz = sv->o.max_file_size > 0 ? sv->o.max_file_size : DEFAULT_MAX;
    int cols[64];
    size_t n_sort = 0;
    hoodie_status rc = hoodie_arena_new(&st.arena, NULL, 4096);
    char *sort_copy = sort ? strdup(sort) : NULL;
    if (sort && !sort_copy) rc = HOODIE_NOMEM();
    for (char *tok = sort_copy ? strtok(sort_copy, ",") : NULL; rc == HOODIE_OK && tok && n_sort < 64; tok = strtok(NULL, ",")) {
        int c = hoodie_field_find(&sv->file_schema, tok);
        if (c < 0) rc = HOODIE_FAIL(HOODIE_EINVAL, "clustering: sort column '%s' is not in the table schema", tok);
        else cols[n_sort++] = c;
    }
    free(sort_copy);
    /* leftovers of a dead run */
    for (size_t g = 0; rc == HOODIE_OK && g < json_array_size(groups); g++) {
        json_t *sl = json_array_get(json_object_get(json_array_get(groups, g), "slices"), 0);
        const char *part = jstr(sl, "partitionPath");
        rc = remove_leftovers(sv, part ? part : "", tx->inst.requested);
    }
    if (rc == HOODIE_OK) rc = hoodie_svc__ensure_inflight(tx, NULL, 0);
    int64_t n_groups = (int64_t)json_array_size(groups);
    if (rc == HOODIE_OK && n_groups) hoodie_svc__progress(sv, "clustering: groups", 0, n_groups);
    for (size_t g = 0; rc == HOODIE_OK && g < json_array_size(groups); g++) {
        rc = cluster_group(sv, tx, json_array_get(groups, g), cols, n_sort, maxsz, &st, res);
        if (rc == HOODIE_OK) hoodie_svc__progress(sv, "clustering: groups", (int64_t)g + 1, n_groups);
    }
    hoodie_buf meta = HOODIE_BUF_INIT;
    if (rc == HOODIE_OK) {
        hoodie_kv extra[1] = { { "schema", sv->avro_data_schema } };
        hoodie_commit_info ci = { 0 };
        ci.stats = st.stats;
        ci.stat_count = st.n_stats;
        ci.is_replace = 1;
        ci.replaced = st.replaced;
        ci.replaced_count = st.n_replaced;
        ci.extra = extra;
        ci.extra_count = 1;
        ci.operation_type = "CLUSTER";
        rc = hoodie_commit_encode(&meta, &ci, sv->t->cfg->version >= 8 ? 8 : 6);
    }
    if (rc == HOODIE_OK && sv->o.pre_commit) {
        hoodie_write_result wr;
        memset(&wr, 0, sizeof wr);
        for (size_t i = 0; i < st.n_stats; i++) wr.bytes_written += st.stats[i].total_write_bytes;
        wr.files_written = (int64_t)st.n_stats;
        hoodie_precommit_call c = { sv->o.pre_commit, sv->o.pre_commit_ctx, sv->s, sv->base_path, sv->t->cfg, tx,
                                    (hoodie_write_operation)-1, "CLUSTER", st.stats, st.n_stats, st.replaced,
                                    st.n_replaced, &wr };
        rc = hoodie_write__pre_commit(&c, meta.data, meta.len);
    }
    if (rc == HOODIE_OK) rc = hoodie_write__complete_unlocked(tx, meta.data, meta.len);
    if (rc == HOODIE_OK) {
        snprintf(res->instant, sizeof res->instant, "%s", tx->inst.requested);
        res->instants++;
    }
    hoodie_buf_dispose(&meta);
    free(st.stats);
    free(st.replaced);
    hoodie_arena_free(st.arena);
    return rc;
}

hoodie_status hoodie_clustering(const char *base_path, const hoodie_service_opts *opts, hoodie_service_result *result)
{
    hoodie_svc sv;
    hoodie_service_result res;
    hoodie_fsview *v = NULL;
    hoodie_svc_pending_fgs pend = { 0 };
    hoodie_write_txn tx;
    int have_tx = 0;
    json_t *req = NULL;
    hoodie_buf content = HOODIE_BUF_INIT;
    memset(&res, 0, sizeof res);
    hoodie_status rc = hoodie_svc__open(&sv, base_path, opts, HOODIE_SVC_RECOVER | HOODIE_SVC_FILES);
    res.rolled_back = sv.rolled_back;
    if (rc == HOODIE_OK) rc = hoodie_svc__load_schema(&sv);
    for (size_t i = 0; rc == HOODIE_OK && i < sv.o.n_sort_columns; i++)
        if (hoodie_field_find(&sv.file_schema, sv.o.sort_columns[i]) < 0)
            rc = HOODIE_FAIL(HOODIE_EINVAL, "clustering: sort column '%s' is not in the table schema", sv.o.sort_columns[i]);
    hoodie_action act = sv.t && sv.t->cfg->version >= 8 ? HOODIE_ACTION_CLUSTERING : HOODIE_ACTION_REPLACECOMMIT;
    /* a pending clustering (v8) is finished first */
    const hoodie_instant *pending = NULL;
    for (size_t i = 0; rc == HOODIE_OK && i < sv.t->tl->count; i++) {
        const hoodie_instant *in = &sv.t->tl->instants[i];
        if (in->plan_action == HOODIE_ACTION_CLUSTERING && in->state != HOODIE_STATE_COMPLETED) { pending = in; break; }
    }
    if (rc == HOODIE_OK && pending) {
        hoodie_instant copy = *pending;
        rc = hoodie_svc__resume(&sv, &tx, &copy);
        have_tx = rc == HOODIE_OK;
        if (rc == HOODIE_OK) rc = hoodie_svc__read_record(&sv, &copy, HOODIE_STATE_REQUESTED, &req);
        if (rc == HOODIE_OK && !req) rc = HOODIE_CORRUPT("%s: empty clustering plan", copy.requested);
    } else if (rc == HOODIE_OK && sv.t->cfg->bucket_index) {
        /* clustering writes new file groups: a bucket's rows would leave the one group the bucket index routes to */
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: clustering a table with the bucket index "
                         "(hoodie.index.type=BUCKET) would move rows out of their buckets' file groups; it is not "
                         "supported (compaction and cleaning are)", base_path);
    } else if (rc == HOODIE_OK) {
        size_t n_groups = 0;
        hoodie_table_lock lock = { 0 };
        rc = hoodie_svc__lock_fresh(&sv, &lock);
        if (rc == HOODIE_OK) rc = hoodie_svc__pending_file_groups(&sv, &pend);
        if (rc == HOODIE_OK) rc = hoodie_table__fsview(sv.t, NULL, NULL, NULL, &v);
        if (rc == HOODIE_OK) req = build_plan(&sv, v, &pend, &n_groups);
        if (rc == HOODIE_OK && req) {
            rc = hoodie_svc__ocf(&content, hoodie_svc__schema_requested_replace, json_incref(req));
            if (rc == HOODIE_OK) rc = hoodie_svc__begin(&sv, &tx, act, content.data, content.len);
            have_tx = rc == HOODIE_OK;
        }
        hoodie_status urc = hoodie_write__unlock(&lock);
        if (rc == HOODIE_OK) rc = urc;
    }
    if (rc == HOODIE_OK && req) rc = run_plan(&sv, &tx, req, &res);
    if (have_tx) hoodie_write__txn_dispose(&tx);
    json_decref(req);
    hoodie_buf_dispose(&content);
    hoodie_svc__pending_dispose(&pend);
    hoodie_fsview_free(v);
    hoodie_svc__close(&sv);
    if (result) *result = res;
    return rc;
}
