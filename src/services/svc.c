/* Shared pieces of the table services (see svc.h). */
#include "services/svc.h"
#include "table/mdt.h"
#include "write/mdt.h"
#include "format/avro/json.h"
#include "format/avro/schema.h"
#include "format/parquet/reader.h"
#include "model/avro.h"
#include "model/build.h"
#include "model/conform.h"
#include "read/logscan.h"
#include "read/spill.h"
#include "read/slice_merge.h"
#include "storage/storage.h"
#include "util/alloc.h"
#include "table/pqfile.h"
#include "util/error.h"
#include "write/avro_enc.h"
#include "write/mdt.h"
#include "write/rollback.h"
#include "write/wlog.h"
#include "model/avro_schema_gen.h"
#include "write/wschema.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hoodie_status hoodie_svc__need_meta_fields(const hoodie_svc *sv, const char *what)
{
    if (sv->t->cfg->populate_meta_fields) return HOODIE_OK;
    return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: %s a table without meta fields (hoodie.populate.meta.fields=false) "
                       "is not supported", sv->base_path, what);
}

void hoodie_svc__progress(const hoodie_svc *sv, const char *what, int64_t done, int64_t total)
{
    if (sv->o.progress) sv->o.progress(sv->o.progress_ctx, what, done, total);
}

/* ---- the table ---- */

static hoodie_status open_table(hoodie_svc *sv)
{
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = sv->s;
    return hoodie_table_open(&sv->t, sv->base_path, &to);
}

hoodie_status hoodie_svc__open(hoodie_svc *sv, const char *base_path, const hoodie_service_opts *o, unsigned flags)
{
    hoodie_service_opts def = HOODIE_SERVICE_OPTS_INIT;
    memset(sv, 0, sizeof *sv);
    sv->o = def;
    if (o) /* an older caller's struct ends before the fields its version lacks */
        memcpy(&sv->o, o, o->version >= 5 ? sizeof *o
                          : o->version == 4 ? offsetof(hoodie_service_opts, merge_memory)
                          : o->version == 3 ? offsetof(hoodie_service_opts, pre_commit)
                          : o->version == 2 ? offsetof(hoodie_service_opts, log_block_format)
                                            : offsetof(hoodie_service_opts, log_blocks_threshold));
    sv->s = hoodie_storage__or_default(sv->o.storage);
    if (!base_path || !*base_path) return HOODIE_FAIL(HOODIE_EINVAL, "no table path given");
    sv->base_path = hoodie_write__path(base_path, "");
    if (!sv->base_path) return HOODIE_NOMEM();
    HOODIE_TRY(open_table(sv));
    if (sv->t->cfg->version != 6 && sv->t->cfg->version != 8)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: table services write table versions 6 and 8, not %d",
                           sv->base_path, sv->t->cfg->version);
    if (flags & HOODIE_SVC_FILES) { /* first: rolling back dead writers' files changes the table too */
        int changed = 0;
        HOODIE_TRY(flags & HOODIE_SVC_DROP_MDT ? hoodie_write__drop_metadata_table(sv->s, sv->base_path, sv->t->cfg, &changed)
                                               : hoodie_write__mdt_prepare(sv->s, sv->base_path, sv->t->cfg, &changed));
        if (changed) HOODIE_TRY(hoodie_svc__reload(sv));
    }
    if (flags & HOODIE_SVC_RECOVER) {
        HOODIE_TRY(hoodie_write__recover(sv->t, &sv->rolled_back));
        if (sv->rolled_back) HOODIE_TRY(hoodie_svc__reload(sv));
    }
    return HOODIE_OK;
}

hoodie_status hoodie_svc__reload(hoodie_svc *sv)
{
    hoodie_table_free(sv->t);
    sv->t = NULL;
    return open_table(sv);
}

hoodie_status hoodie_svc__lock_fresh(hoodie_svc *sv, hoodie_table_lock *lock)
{
    HOODIE_TRY(hoodie_write__lock(lock, sv->t->storage, sv->base_path, -1));
    hoodie_status rc = hoodie_svc__reload(sv);
    if (rc < 0) (void)hoodie_write__unlock(lock);
    return rc;
}

void hoodie_svc__close(hoodie_svc *sv)
{
    if (sv->have_schema) {
        hoodie_field_dispose(&sv->data_schema);
        hoodie_field_dispose(&sv->file_schema);
    }
    if (sv->have_nofn) hoodie_field_dispose(&sv->nofn_schema);
    free(sv->avro_data_schema);
    free(sv->avro_file_schema);
    for (size_t i = 0; i < sv->n_rolled_back_instants; i++) free(sv->rolled_back_instants[i]);
    free(sv->rolled_back_instants);
    for (size_t i = 0; i < sv->n_cs_cols; i++) free(sv->cs_cols[i]);
    free(sv->cs_cols);
    free(sv->log_stats);
    hoodie_arena_free(sv->cs_arena);
    hoodie_table_free(sv->t);
    free(sv->base_path);
    memset(sv, 0, sizeof *sv);
}

static hoodie_status load_rolled_back(hoodie_svc *sv)
{
    const hoodie_timeline *tl = sv->t->tl;
    for (size_t i = 0; i < tl->count; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->action != HOODIE_ACTION_ROLLBACK || in->state != HOODIE_STATE_COMPLETED) continue;
        hoodie_buf path = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
        hoodie_rollback_meta *m = NULL;
        hoodie_status rc = hoodie_timeline_instant_path(tl, in, HOODIE_STATE_COMPLETED, &path);
        if (rc == HOODIE_OK) rc = hoodie_storage_read_all(sv->s, (const char *)path.data, &data);
        if (rc == HOODIE_OK) rc = hoodie_rollback_meta_decode(&m, data.data, data.len, (const char *)path.data);
        for (size_t k = 0; rc == HOODIE_OK && k < m->commit_count; k++) {
            char **nv = realloc(sv->rolled_back_instants, (sv->n_rolled_back_instants + 1) * sizeof *nv);
            if (!nv) { rc = HOODIE_NOMEM(); break; }
            sv->rolled_back_instants = nv;
            if (!(nv[sv->n_rolled_back_instants] = strdup(m->commits_rollback[k]))) { rc = HOODIE_NOMEM(); break; }
            sv->n_rolled_back_instants++;
        }
        hoodie_rollback_meta_free(m);
        hoodie_buf_dispose(&path);
        hoodie_buf_dispose(&data);
        HOODIE_TRY(rc);
    }
    return HOODIE_OK;
}

hoodie_status hoodie_svc__load_schema(hoodie_svc *sv)
{
    HOODIE_TRY(hoodie_table__evo_ok(sv->t)); /* services that read data need the schema history */
    hoodie_field table;
    if (sv->have_schema) return HOODIE_OK;
    hoodie_status rc = hoodie_table__schema_field(sv->t, NULL, &table);
    if (rc == HOODIE_ENOTFOUND) {
        hoodie_error_clear();
        return HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: the table has no schema yet (nothing written)", sv->base_path);
    }
    HOODIE_TRY(rc);
    /* evolve against itself: drops meta columns, keeps types */
    rc = hoodie_wschema_evolve(&sv->data_schema, &table, &table);
    hoodie_field_dispose(&table);
    HOODIE_TRY(rc);
    rc = hoodie_field_with_meta(&sv->file_schema, &sv->data_schema);
    if (rc < 0) { hoodie_field_dispose(&sv->data_schema); return rc; }
    sv->have_schema = 1;
    HOODIE_TRY(hoodie_wlog_avro_schema(&sv->avro_data_schema, &sv->data_schema, sv->t->cfg->name, 0));
    HOODIE_TRY(hoodie_wlog_avro_schema(&sv->avro_file_schema, &sv->data_schema, sv->t->cfg->name, 1));
    const hoodie_table_config *c = sv->t->cfg;
    sv->key_col = hoodie_field_find(&sv->file_schema, "_hoodie_record_key");
    const char *ord = hoodie_table_ordering_field(c);
    sv->ord_col = ord ? hoodie_field_find(&sv->file_schema, ord) : -1;
    sv->del_col = hoodie_field_find(&sv->file_schema, "_hoodie_is_deleted");
    if (sv->del_col >= 0 && sv->file_schema.children[sv->del_col].type.id != HOODIE_TYPE_BOOL) sv->del_col = -1;
    sv->policy = hoodie_merge_policy_of(c);
    hoodie_delete_marker_of(c, &sv->file_schema, &sv->marker);
    /* a merge-on-read table's services merge log records by the merger; a copy-on-write table's (clustering) only
     * rewrite base files, each key in one of them */
    if (c->merge_mode == HOODIE_MERGE_CUSTOM && c->type == HOODIE_TABLE_MERGE_ON_READ)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: merging log records by a custom record merger (%s %s) is not "
                           "supported", sv->base_path, HOODIE_CUSTOM_MERGER_ARGS(c));
    return load_rolled_back(sv);
}

/* ---- instants ---- */

static hoodie_status txn_init(hoodie_svc *sv, hoodie_write_txn *tx)
{
    const hoodie_table_config *cfg = sv->t->cfg;
    memset(tx, 0, sizeof *tx);
    tx->s = sv->s;
    tx->table_version = cfg->version;
    tx->mdt = hoodie_write__mdt_mode(cfg);
    tx->layout = cfg->timeline_layout_version;
    tx->utc = cfg->timeline_timezone_utc;
    tx->base_path = hoodie_write__path(sv->base_path, "");
    tx->timeline_dir = hoodie_write__path(sv->base_path, cfg->timeline_dir);
    if (!tx->base_path || !tx->timeline_dir) { hoodie_write__txn_dispose(tx); return HOODIE_NOMEM(); }
    return HOODIE_OK;
}

static hoodie_status state_path(const hoodie_write_txn *tx, const hoodie_instant *in, hoodie_instant_state st,
                                char **out)
{
    char name[128];
    HOODIE_TRY(hoodie_instant_file_name(in, st, tx->layout, name, sizeof name));
    *out = hoodie_write__path(tx->timeline_dir, name);
    return *out ? HOODIE_OK : HOODIE_NOMEM();
}

hoodie_status hoodie_svc__begin(hoodie_svc *sv, hoodie_write_txn *tx, hoodie_action action, const void *req,
                                size_t len)
{
    char max[HOODIE_INSTANT_TIME_MAX + 1], t[18];
    hoodie_timeline *tl = NULL;
    char *path = NULL;
    HOODIE_TRY(txn_init(sv, tx));
    hoodie_status rc = hoodie_timeline_load_dir(&tl, sv->s, tx->timeline_dir, tx->layout);
    if (rc == HOODIE_OK) hoodie_write__timeline_max(tl, max);
    hoodie_timeline_free(tl);
    for (int attempt = 0; rc == HOODIE_OK && attempt < 16; attempt++) {
        if ((rc = hoodie_write__new_time(t, tx->utc, max)) < 0) break;
        memset(&tx->inst, 0, sizeof tx->inst);
        memcpy(tx->inst.requested, t, 18);
        tx->inst.action = tx->inst.plan_action = action;
        tx->inst.state = HOODIE_STATE_REQUESTED;
        free(path);
        path = NULL;
        if ((rc = state_path(tx, &tx->inst, HOODIE_STATE_REQUESTED, &path)) < 0) break;
        rc = hoodie_storage_write_all(sv->s, path, HOODIE_CREATE_EXCLUSIVE, req ? req : "", len);
        if (rc != HOODIE_EEXISTS) break;
        memcpy(max, t, 18);
    }
    free(path);
    if (rc < 0) {
        hoodie_error__prefix("start %s instant: ", hoodie_action_name(action) ? hoodie_action_name(action) : "?");
        hoodie_write__txn_dispose(tx);
    }
    return rc;
}

hoodie_status hoodie_svc__resume(hoodie_svc *sv, hoodie_write_txn *tx, const hoodie_instant *in)
{
    HOODIE_TRY(txn_init(sv, tx));
    tx->inst = *in;
    return HOODIE_OK;
}

hoodie_status hoodie_svc__ensure_inflight(hoodie_write_txn *tx, const void *content, size_t len)
{
    if (tx->inst.state == HOODIE_STATE_INFLIGHT) return HOODIE_OK;
    if (tx->inst.state != HOODIE_STATE_REQUESTED)
        return HOODIE_FAIL(HOODIE_ESTATE, "instant %s is not pending", tx->inst.requested);
    return hoodie_write__inflight(tx, content, len);
}

hoodie_status hoodie_svc__read_record(hoodie_svc *sv, const hoodie_instant *in, hoodie_instant_state st, json_t **out)
{
    hoodie_buf path = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
    hoodie_avro_ocf f;
    *out = NULL;
    hoodie_status rc = hoodie_timeline_instant_path(sv->t->tl, in, st, &path);
    if (rc == HOODIE_OK) rc = hoodie_storage_read_all(sv->s, (const char *)path.data, &data);
    if (rc == HOODIE_OK && data.len) {
        const char *what = (const char *)path.data;
        if (!hoodie_avro_is_ocf(data.data, data.len)) {
            json_error_t je;
            *out = json_loadb((const char *)data.data, data.len, 0, &je);
            if (!*out) rc = HOODIE_CORRUPT("%s: neither Avro nor JSON", what);
        } else if ((rc = hoodie_avro_ocf_open(&f, data.data, data.len, what)) == HOODIE_OK) {
            rc = hoodie_avro_ocf_next(&f, out);
            if (rc == HOODIE_ITEROVER) rc = HOODIE_CORRUPT("%s: no record", what);
            hoodie_avro_ocf_close(&f);
        }
    }
    hoodie_buf_dispose(&path);
    hoodie_buf_dispose(&data);
    return rc;
}

hoodie_status hoodie_svc__ocf(hoodie_buf *out, const char *schema, json_t *rec)
{
    if (!rec) return HOODIE_NOMEM();
    json_t *arr = json_array();
    hoodie_status rc = arr && json_array_append_new(arr, rec) == 0 ? hoodie_write__avro_ocf(out, schema, arr)
                                                                    : HOODIE_NOMEM();
    if (!arr) json_decref(rec);
    json_decref(arr);
    return rc;
}

int hoodie_svc__set(json_t *o, const char *k, json_t *v)
{
    if (!o || !v) { json_decref(v); return -1; }
    return json_object_set_new(o, k, v);
}

/* ---- merged slices ---- */

static hoodie_status rows_push(hoodie_svc_rows *r, hoodie_batch *b)
{
    if (b->root.length == 0) { hoodie_batch_dispose(b); return HOODIE_OK; }
    if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 8;
        hoodie_batch *nb = realloc(r->b, nc * sizeof *nb);
        if (!nb) { hoodie_batch_dispose(b); return HOODIE_NOMEM(); }
        r->b = nb;
        r->cap = nc;
    }
    r->b[r->n++] = *b;
    return HOODIE_OK;
}

void hoodie_svc__rows_dispose(hoodie_svc_rows *r)
{
    for (size_t i = 0; i < r->n; i++) hoodie_batch_dispose(&r->b[i]);
    free(r->b);
    memset(r, 0, sizeof *r);
}

char *hoodie_svc__file_path(const hoodie_svc *sv, const char *partition, const char *name)
{
    char *dir = hoodie_write__path(sv->base_path, partition ? partition : "");
    char *p = dir ? hoodie_write__path(dir, name) : NULL;
    free(dir);
    return p;
}

static hoodie_status fs_file_of(hoodie_svc *sv, hoodie_arena *a, const char *partition, const char *name,
                                hoodie_fs_file **out)
{
    hoodie_fs_file *f = hoodie_arena_calloc(a, 1, sizeof *f);
    char *path = hoodie_svc__file_path(sv, partition, name);
    if (!f || !path) { free(path); return HOODIE_NOMEM(); }
    f->name = hoodie_arena_strdup(a, name);
    f->path = hoodie_arena_strdup(a, path);
    f->partition = hoodie_arena_strdup(a, partition ? partition : "");
    free(path);
    if (!f->name || !f->path || !f->partition) return HOODIE_NOMEM();
    if (hoodie_file_name_parse(&f->fn, f->name) == HOODIE_FILE_OTHER)
        return HOODIE_FAIL(HOODIE_EINVAL, "'%s' is not a base or log file name", name);
    size_t n = f->fn.instant.len < HOODIE_INSTANT_TIME_MAX ? f->fn.instant.len : HOODIE_INSTANT_TIME_MAX;
    memcpy(f->instant, f->fn.instant.p, n);
    *out = f;
    return HOODIE_OK;
}

/* The columns a merge reads: sv->file_schema, or without the file name column. */
typedef struct merge_shape {
    const hoodie_field *schema;
    int key, ord, del;
    const hoodie_delete_marker *marker;
} merge_shape;

static hoodie_status shape_of(hoodie_svc *sv, int without_file_name, merge_shape *out)
{
    *out = (merge_shape){ &sv->file_schema, sv->key_col, sv->ord_col, sv->del_col, &sv->marker };
    if (!without_file_name) return HOODIE_OK;
    if (!sv->have_nofn) {
        sv->fname_col = hoodie_field_find(&sv->file_schema, "_hoodie_file_name");
        if (sv->fname_col < 0) return HOODIE_OK;
        hoodie_field *f = &sv->nofn_schema;
        HOODIE_TRY(hoodie_field_init(f, sv->file_schema.name, sv->file_schema.type, sv->file_schema.nullable));
        hoodie_status rc = HOODIE_OK;
        for (size_t i = 0; i < sv->file_schema.n_children && rc == HOODIE_OK; i++)
            if ((int)i != sv->fname_col) rc = hoodie_field_add_child(f, &sv->file_schema.children[i]);
        if (rc < 0) { hoodie_field_dispose(f); return rc; }
        sv->nofn_key = hoodie_field_find(f, "_hoodie_record_key");
        sv->nofn_ord = sv->ord_col >= 0 ? hoodie_field_find(f, sv->file_schema.children[sv->ord_col].name) : -1;
        sv->nofn_del = sv->del_col >= 0 ? hoodie_field_find(f, "_hoodie_is_deleted") : -1;
        hoodie_delete_marker_of(sv->t->cfg, f, &sv->nofn_marker);
        sv->have_nofn = 1;
    }
    *out = (merge_shape){ &sv->nofn_schema, sv->nofn_key, sv->nofn_ord, sv->nofn_del, &sv->nofn_marker };
    return HOODIE_OK;
}

hoodie_status hoodie_svc__merge_schema(hoodie_svc *sv, int without_file_name, const hoodie_field **out)
{
    merge_shape sh;
    HOODIE_TRY(hoodie_svc__load_schema(sv));
    HOODIE_TRY(shape_of(sv, without_file_name, &sh));
    *out = sh.schema;
    return HOODIE_OK;
}

hoodie_status hoodie_svc__to_file_shape(hoodie_svc *sv, hoodie_batch *in, hoodie_batch *out)
{
    hoodie_status rc;
    if (!sv->have_nofn) {
        *out = *in;
        memset(in, 0, sizeof *in);
        return HOODIE_OK;
    }
    if ((rc = hoodie_batch_init(out, &sv->file_schema)) < 0) { hoodie_batch_dispose(in); return rc; }
    for (size_t i = 0, j = 0; i < sv->file_schema.n_children; i++) {
        if ((int)i == sv->fname_col) continue;
        hoodie_array_dispose(&out->root.children[i]);
        out->root.children[i] = in->root.children[j];
        memset(&in->root.children[j], 0, sizeof in->root.children[j]);
        j++;
    }
    out->root.length = in->root.length;
    hoodie_batch_dispose(in);
    return HOODIE_OK;
}

/* Scan the logs (blocks up to as_of, NULL: all; with parts > 1 only the records of key-hash partition `part`) and
 * fold them per key; counts into `stats` (log blocks only with part 0: every pass sees them all). lazy: records
 * of mapped log files stay there, only the columns the merge compares decoded (read/logscan.h lazy_cols). On
 * success the caller frees *m and disposes *items. */
static hoodie_status fold_logs(hoodie_svc *sv, const hoodie_fs_file *const *logs, size_t n_logs,
                               const hoodie_spill *spill, const char *as_of, const merge_shape *sh, uint32_t parts,
                               uint32_t part, int lazy, hoodie_log_items *items, hoodie_slice_merger **m,
                               hoodie_svc_rows *stats)
{
    int cols[4];
    const int want[4] = { sh->key, sh->ord, sh->del, sh->marker ? sh->marker->col : -1 };
    size_t n_cols = lazy ? hoodie_logscan_lazy_cols(cols, want, 4) : 0;
    /* the first pass takes more partitions when its records outgrow the budget (items->parts): the caller's
     * later passes follow (grow_parts) */
    hoodie_logscan_ctx lc = { hoodie_spill_storage(spill, sv->s), sv->t->tl, as_of, sh->schema,
                              (const char *const *)sv->rolled_back_instants, sv->n_rolled_back_instants, 0,
                              parts, part, 0, part == 0 ? hoodie_logscan_budget(sv->o.merge_memory) : 0, sv->t->evo,
                              cols, n_cols };
    hoodie_status rc = hoodie_logscan(items, &lc, logs, n_logs);
    if (rc < 0) return rc;
    for (size_t i = 0; i < items->count; i++) {
        if (items->items[i].removed) continue;
        stats->log_records += items->items[i].kind == HOODIE_LOG_DATA ? items->items[i].batch.root.length
                                                                      : (int64_t)items->items[i].delete_count;
    }
    if (part == 0) stats->log_blocks += hoodie_log_items_blocks(items);
    /* (services write table versions 6 and 8: one ordering field) */
    hoodie_slice_merge_cfg mc = { sh->schema, sh->key, sh->ord, sh->del, sv->policy, sh->marker, NULL, 0,
                                  items->parts, part }; /* the partitions the scan ended with */
    rc = hoodie_slice_merger_new(m, &mc, items);
    if (rc < 0) hoodie_log_items_dispose(items);
    return rc;
}

/* After pass 0's fold (`items`): the partitions it ended with (more when its records outgrew the budget; lazy: what
 * the lazy records needed, often 1), the slice's files copied for the later passes if they were not. */
static hoodie_status grow_parts(hoodie_svc *sv, const hoodie_log_items *items, const hoodie_fs_file *const *logs,
                                size_t n_logs, const char *base, int lazy, uint32_t *parts, hoodie_spill **spill)
{
    if (items->parts <= *parts && !lazy) return HOODIE_OK;
    *parts = items->parts;
    return *spill || *parts <= 1 ? HOODIE_OK : hoodie_spill_open_slice(spill, sv->s, logs, n_logs, base);
}

static uint64_t log_bytes(hoodie_svc *sv, const char *partition, const char *const *log_names, size_t n_logs);

/* A slice's log files (in `a`); with parts > 1 they and the base file (NULL: none) are copied locally for the passes
 * when they are not local. */
static hoodie_status slice_logs(hoodie_svc *sv, hoodie_arena *a, const char *partition, const char *const *log_names,
                                size_t n_logs, const char *base, uint32_t parts, const hoodie_fs_file ***logs,
                                hoodie_spill **spill)
{
    const hoodie_fs_file **v = hoodie_arena_calloc(a, n_logs + 1, sizeof *v);
    *spill = NULL;
    if (!v) return HOODIE_ENOMEM;
    for (size_t i = 0; i < n_logs; i++) {
        hoodie_fs_file *f = NULL;
        HOODIE_TRY(fs_file_of(sv, a, partition, log_names[i], &f));
        v[i] = f;
    }
    *logs = v;
    return parts > 1 ? hoodie_spill_open_slice(spill, sv->s, v, n_logs, base) : HOODIE_OK;
}

/* The instants of the blocks that stay valid (the ones a log compaction's block replaces), comma-separated. */
static hoodie_status valid_instants(const hoodie_log_items *items, hoodie_buf *times, size_t *count)
{
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < items->count; i++) {
        const hoodie_log_item *it = &items->items[i];
        int seen = it->removed;
        for (size_t k = 0; k < i && !seen; k++)
            seen = !items->items[k].removed && !strcmp(items->items[k].instant, it->instant);
        if (seen) continue;
        if (times->len) rc = hoodie_buf_append(times, ",", 1);
        if (rc == HOODIE_OK) rc = hoodie_buf_append(times, it->instant, strlen(it->instant));
        (*count)++;
    }
    return rc == HOODIE_OK ? hoodie_buf_cstr(times) : rc;
}

/* One pass's records merged into the log file's statistics (cs: n_cs_cols entries, *have: filled once). */
static hoodie_status logc_stats_add(hoodie_svc *sv, const hoodie_batch *recs, const char *partition,
                                    const char *file_name, hoodie_mdt_csrec *cs, int *have, int *ok)
{
    size_t n = (size_t)recs->root.length;
    hoodie_status rc = HOODIE_OK;
    for (size_t c = 0; rc == HOODIE_OK && *ok && c < sv->n_cs_cols; c++) {
        int col = hoodie_field_find(&recs->schema, sv->cs_cols[c]);
        if (col < 0) continue; /* not a column of the table: no record, as for a base file without it */
        hoodie_mdt_csrec r;
        rc = hoodie_write__cs_of_values(sv->cs_cols[c], &recs->schema.children[col], &recs->root.children[col], NULL,
                                        0, n, *partition ? partition : ".", file_name, sv->cs_arena, &r, ok);
        if (rc < 0 || !*ok) break;
        if (!*have || !cs[c].key) cs[c] = r;
        else hoodie_mdt_cs_merge(&cs[c], &r);
    }
    *have = 1;
    return rc;
}

/*
 * Log compaction of a slice: its log records folded into one new log file. Log files larger than the merge may hold
 * (hoodie_logscan_parts) are folded in key-hash partitions, each pass adding its part's blocks to the file.
 */
hoodie_status hoodie_svc__compact_logs(hoodie_svc *sv, const char *partition, const char *const *log_names,
                                       size_t n_logs, const char *instant, const char *path,
                                       hoodie_svc_logc_result *res)
{
    const char *slash = strrchr(path, '/'), *file_name = slash ? slash + 1 : path;
    hoodie_mdt_csrec *cs = NULL;
    int cs_have = 0, cs_ok = 1;
    hoodie_arena *a = NULL;
    hoodie_svc_rows stats = { 0 };
    hoodie_buf times = HOODIE_BUF_INIT;
    hoodie_wlog_compacted *w = NULL;
    memset(res, 0, sizeof *res);
    HOODIE_TRY(hoodie_svc__load_schema(sv));
    HOODIE_TRY(hoodie_svc__need_meta_fields(sv, "log compaction of"));
    if (sv->n_cs_cols && !(cs = calloc(sv->n_cs_cols, sizeof *cs))) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_arena_new(&a, NULL, 4096);
    merge_shape sh;
    if (rc == HOODIE_OK) rc = shape_of(sv, 0, &sh);
    uint64_t lb = log_bytes(sv, partition, log_names, n_logs);
    uint32_t parts = hoodie_logscan_parts(lb, sv->o.merge_memory);
    const hoodie_fs_file **logs = NULL;
    hoodie_spill *spill = NULL;
    if (rc == HOODIE_OK) rc = slice_logs(sv, a, partition, log_names, n_logs, NULL, parts, &logs, &spill);
    for (uint32_t part = 0; part < parts && rc == HOODIE_OK; part++) {
        hoodie_log_items items;
        hoodie_slice_merger *m = NULL;
        rc = fold_logs(sv, logs, n_logs, spill, instant, &sh, parts, part, 0, &items, &m, &stats);
        if (rc < 0) break;
        if (part == 0) rc = grow_parts(sv, &items, logs, n_logs, NULL, 0, &parts, &spill);
        /* the items' blocks and instants are the same in every pass (only their rows differ) */
        if (part == 0 && rc == HOODIE_OK) rc = valid_instants(&items, &times, &res->instants);
        hoodie_batch recs;
        hoodie_slice_log_deletes dels;
        int have = 0;
        if (rc == HOODIE_OK && res->instants) {
            rc = hoodie_slice_merger_log_records(m, &recs, &dels);
            if (rc < 0 && n_logs) hoodie_error__prefix("%s: ", logs[0]->path); /* the slice's first log file */
            have = rc == HOODIE_OK;
        }
        if (have && (recs.root.length || dels.count)) {
            if (!w)
                rc = hoodie_wlog_compacted_open(&w, sv->s, path, instant, (const char *)times.data,
                                                sv->avro_file_schema, &sv->file_schema, sv->o.log_block_format,
                                                sv->o.codec);
            hoodie_wlog_deletes d = { dels.keys, dels.key_lens, dels.ords, dels.count, partition };
            if (rc == HOODIE_OK) rc = hoodie_wlog_compacted_add(w, &recs, &d);
            if (rc == HOODIE_OK && cs) rc = logc_stats_add(sv, &recs, partition, file_name, cs, &cs_have, &cs_ok);
            res->records += recs.root.length;
            res->deletes += (int64_t)dels.count;
            res->blocks += (recs.root.length ? 1 : 0) + (dels.count ? 1 : 0);
        }
        if (have) {
            hoodie_batch_dispose(&recs);
            hoodie_slice_log_deletes_dispose(&dels);
        }
        hoodie_slice_merger_free(m);
        hoodie_log_items_dispose(&items);
        if (part == 0 && !res->instants) break;
    }
    hoodie_spill_free(spill);
    if (w && rc == HOODIE_OK) {
        rc = hoodie_wlog_compacted_finish(w, &res->size);
        res->written = rc == HOODIE_OK;
    } else if (w) {
        hoodie_wlog_compacted_abandon(w);
    }
    /* the file's statistics, when every column could have them */
    for (size_t c = 0; rc == HOODIE_OK && res->written && cs_have && cs_ok && c < sv->n_cs_cols; c++) {
        if (cs[c].key) rc = hoodie_write__cs_push(&sv->log_stats, &sv->n_log_stats, &sv->cap_log_stats, &cs[c]);
    }
    free(cs);
    res->log_records = stats.log_records;
    hoodie_buf_dispose(&times);
    hoodie_arena_free(a);
    return rc;
}

static hoodie_status push_sink(void *ctx, hoodie_batch *b) { return rows_push(ctx, b); }

/* Count a merged batch and hand it to the sink (which owns it from then on); empty batches are dropped. */
static hoodie_status sink_batch(hoodie_svc_rows *stats, hoodie_svc_sink sink, void *ctx, hoodie_batch *b)
{
    if (b->root.length == 0) { hoodie_batch_dispose(b); return HOODIE_OK; }
    stats->rows += b->root.length;
    return sink(ctx, b);
}

hoodie_status hoodie_svc__merge_slice(hoodie_svc *sv, const char *partition, const char *base_name,
                                      const char *const *log_names, size_t n_logs, hoodie_svc_rows *out)
{
    return hoodie_svc__merge_slice_each(sv, partition, base_name, log_names, n_logs, 0, out, push_sink, out);
}

static hoodie_status merge_slice(hoodie_svc *sv, const char *partition, const char *base_name,
                                 const char *const *log_names, size_t n_logs, int without_file_name,
                                 hoodie_svc_rows *out, hoodie_svc_sel_sink sel_sink, hoodie_svc_sink sink,
                                 void *sink_ctx);

hoodie_status hoodie_svc__merge_slice_each(hoodie_svc *sv, const char *partition, const char *base_name,
                                           const char *const *log_names, size_t n_logs, int without_file_name,
                                           hoodie_svc_rows *out, hoodie_svc_sink sink, void *sink_ctx)
{
    return merge_slice(sv, partition, base_name, log_names, n_logs, without_file_name, out, NULL, sink, sink_ctx);
}

hoodie_status hoodie_svc__merge_slice_sel(hoodie_svc *sv, const char *partition, const char *base_name,
                                          const char *const *log_names, size_t n_logs, hoodie_svc_rows *out,
                                          hoodie_svc_sel_sink sel_sink, hoodie_svc_sink sink, void *sink_ctx)
{
    return merge_slice(sv, partition, base_name, log_names, n_logs, 1, out, sel_sink, sink, sink_ctx);
}

/* The bytes of these log files of `partition` (files that cannot be opened count 0: the merge reports them). */
static uint64_t log_bytes(hoodie_svc *sv, const char *partition, const char *const *log_names, size_t n_logs)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < n_logs; i++) {
        char *lp = hoodie_svc__file_path(sv, partition, log_names[i]);
        hoodie_rfile *f;
        uint64_t sz = 0;
        if (lp && sv->s->open_read(sv->s->ctx, lp, &f, &sz) == HOODIE_OK) {
            sv->s->close_read(sv->s->ctx, f);
            bytes += sz;
        }
        hoodie_error_clear(); /* a file that cannot be opened: the merge reports it */
        free(lp);
    }
    return bytes;
}

int64_t hoodie_svc__batch_rows;

/*
 * The merge of a slice. Log files larger than a quarter of what the merge may hold are read lazily: in memory
 * only the key, ordering and delete columns of their records, which stay in the log files (mapped; where the
 * storage does not map files, only logs larger than the budget, copied locally first), and are decoded whole when
 * the merge takes them. When even those outgrow the budget the slice is merged in key-hash partitions: each pass
 * folds one partition's log records and reads the base file again for that partition's rows, so rows come out
 * grouped by partition (may_drop is then set: base rows are not in base order) and selections are not offered
 * (sel_sink is passed over for `sink`).
 */
static hoodie_status merge_slice(hoodie_svc *sv, const char *partition, const char *base_name,
                                 const char *const *log_names, size_t n_logs, int without_file_name,
                                 hoodie_svc_rows *out, hoodie_svc_sel_sink sel_sink, hoodie_svc_sink sink,
                                 void *sink_ctx)
{
    hoodie_arena *a = NULL;
    hoodie_log_items items;
    int have_items = 0;
    hoodie_slice_merger *m = NULL;
    hoodie_parquet_reader *r = NULL;
    hoodie_pq_scan *sc = NULL;
    merge_shape sh;
    HOODIE_TRY(hoodie_svc__load_schema(sv));
    if (n_logs) HOODIE_TRY(hoodie_svc__need_meta_fields(sv, "merging the log files of"));
    HOODIE_TRY(shape_of(sv, without_file_name, &sh));
    uint64_t lb = n_logs ? log_bytes(sv, partition, log_names, n_logs) : 0;
    out->log_bytes += lb;
    uint32_t parts = hoodie_logscan_parts(lb, sv->o.merge_memory);
    int lazy = hoodie_logscan_lazy(lb, sv->o.merge_memory);
    char *path = base_name ? hoodie_svc__file_path(sv, partition, base_name) : NULL;
    hoodie_status rc = base_name && !path ? HOODIE_NOMEM() : hoodie_arena_new(&a, NULL, 4096);
    const hoodie_fs_file **logs = NULL;
    hoodie_spill *spill = NULL;
    if (rc == HOODIE_OK && n_logs) rc = slice_logs(sv, a, partition, log_names, n_logs, path, parts, &logs, &spill);
    for (uint32_t part = 0; part < parts && rc == HOODIE_OK; part++) {
        if (n_logs) { /* lazily: pass 0 scans for one pass, and takes more if the budget needs them */
            rc = fold_logs(sv, logs, n_logs, spill, NULL, &sh, lazy && part == 0 ? 1 : parts, part, lazy, &items, &m,
                           out);
            have_items = rc == HOODIE_OK;
            if (rc == HOODIE_OK && part == 0) rc = grow_parts(sv, &items, logs, n_logs, path, lazy, &parts, &spill);
        }
        if (parts > 1) sel_sink = NULL;
        out->may_drop = parts > 1 || (m && hoodie_slice_merger_may_drop(m));
        if (rc == HOODIE_OK && path) {
            const hoodie_renames *rn = NULL;
            if (!r) rc = hoodie_evo_file_renames(sv->t->evo, NULL, path, &rn);
            if (!r && rc == HOODIE_OK)
                rc = hoodie_pqfile__open_columns(&r, path, hoodie_spill_storage(spill, sv->s), hoodie_svc__batch_rows,
                                                 sh.schema, rn);
            if (rc == HOODIE_OK) rc = hoodie_pqfile__scan_open(r, &sc);
            while (rc == HOODIE_OK) {
                hoodie_batch raw, conformed, merged;
                rc = hoodie_pq_scan_next(sc, &raw);
                if (rc < 0) break;
                rc = hoodie_conform_batch(&conformed, sh.schema, &raw);
                hoodie_batch_dispose(&raw);
                if (rc < 0) { hoodie_error__prefix("%s: ", path); break; }
                if (!m) { rc = sink_batch(out, sink, sink_ctx, &conformed); continue; }
                if (sel_sink) { /* the selection, gathered by the sink */
                    const hoodie_row_ref *sel;
                    const hoodie_batch *const *srcs;
                    size_t n, n_srcs;
                    rc = hoodie_slice_merger_select(m, &conformed, &sel, &n, &srcs, &n_srcs);
                    if (rc < 0) { hoodie_batch_dispose(&conformed); break; }
                    out->rows += (int64_t)n;
                    rc = sel_sink(sink_ctx, &conformed, srcs, n_srcs, sel, n);
                    if (rc > 0) { /* it holds no selection: the lazy rows decoded for them may go */
                        hoodie_slice_merger_rows_taken(m);
                        rc = HOODIE_OK;
                    }
                    continue;
                }
                rc = hoodie_slice_merger_base(m, &conformed, &merged);
                hoodie_batch_dispose(&conformed);
                if (rc == HOODIE_OK) rc = sink_batch(out, sink, sink_ctx, &merged);
            }
            if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
            hoodie_pq_scan_free(sc);
            sc = NULL;
        }
        if (m) {
            int64_t deleted = 0;
            out->updated += hoodie_slice_merger_replaced(m, &deleted);
            out->deleted += deleted;
        }
        if (rc == HOODIE_OK && m) {
            hoodie_batch fin;
            rc = hoodie_slice_merger_finish(m, &fin);
            if (rc == HOODIE_OK) rc = sink_batch(out, sink, sink_ctx, &fin);
        }
        hoodie_slice_merger_free(m);
        m = NULL;
        if (have_items) hoodie_log_items_dispose(&items);
        have_items = 0;
    }
    hoodie_parquet_reader_free(r);
    hoodie_spill_free(spill); /* after the base file it may have opened */
    hoodie_arena_free(a);
    free(path);
    return rc;
}

/* ---- files and instants ---- */

hoodie_status hoodie_svc__remove(const hoodie_storage *s, const char *path)
{
    hoodie_status rc = s->remove(s->ctx, path);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); return HOODIE_OK; }
    return rc;
}

hoodie_status hoodie_svc__remove_instant_files(hoodie_svc *sv, const hoodie_instant *in, int completed)
{
    char name[128];
    const hoodie_timeline *tl = sv->t->tl;
    if (completed) {
        HOODIE_TRY(hoodie_instant_file_name(in, HOODIE_STATE_COMPLETED, tl->layout_version, name, sizeof name));
        char *p = hoodie_write__path(tl->dir, name);
        if (!p) return HOODIE_NOMEM();
        hoodie_status rc = hoodie_svc__remove(sv->s, p);
        free(p);
        return rc;
    }
    for (int st = HOODIE_STATE_INFLIGHT; st >= HOODIE_STATE_REQUESTED; st--) {
        HOODIE_TRY(hoodie_instant_file_name(in, (hoodie_instant_state)st, tl->layout_version, name, sizeof name));
        char *p = hoodie_write__path(tl->dir, name);
        if (!p) return HOODIE_NOMEM();
        hoodie_status rc = hoodie_svc__remove(sv->s, p);
        free(p);
        HOODIE_TRY(rc);
    }
    return HOODIE_OK;
}

/* ---- file groups of pending plans ---- */

static hoodie_status pending_add(hoodie_svc_pending_fgs *p, const char *part, const char *fid)
{
    char **np = realloc(p->partitions, (p->count + 1) * sizeof *np);
    if (!np) return HOODIE_NOMEM();
    p->partitions = np;
    char **nf = realloc(p->file_ids, (p->count + 1) * sizeof *nf);
    if (!nf) return HOODIE_NOMEM();
    p->file_ids = nf;
    np[p->count] = strdup(part ? part : "");
    nf[p->count] = strdup(fid ? fid : "");
    if (!np[p->count] || !nf[p->count]) { free(np[p->count]); free(nf[p->count]); return HOODIE_NOMEM(); }
    p->count++;
    return HOODIE_OK;
}

static const char *jstr(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

hoodie_status hoodie_svc__pending_file_groups(hoodie_svc *sv, hoodie_svc_pending_fgs *out)
{
    memset(out, 0, sizeof *out);
    const hoodie_timeline *tl = sv->t->tl;
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < tl->count && rc == HOODIE_OK; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->state == HOODIE_STATE_COMPLETED) continue;
        int compaction = in->plan_action == HOODIE_ACTION_COMPACTION || in->plan_action == HOODIE_ACTION_LOGCOMPACTION;
        int cluster = in->plan_action == HOODIE_ACTION_CLUSTERING || in->plan_action == HOODIE_ACTION_REPLACECOMMIT;
        if (!compaction && !cluster) continue;
        if (!(in->state_files & HOODIE_STATE_BIT(HOODIE_STATE_REQUESTED))) continue;
        json_t *rec;
        if ((rc = hoodie_svc__read_record(sv, in, HOODIE_STATE_REQUESTED, &rec)) < 0) break;
        if (!rec) continue;
        if (compaction) {
            json_t *ops = json_object_get(rec, "operations");
            for (size_t k = 0; rc == HOODIE_OK && k < json_array_size(ops); k++) {
                json_t *op = json_array_get(ops, k);
                rc = pending_add(out, jstr(op, "partitionPath"), jstr(op, "fileId"));
            }
        } else {
            json_t *groups = json_object_get(json_object_get(rec, "clusteringPlan"), "inputGroups");
            for (size_t g = 0; rc == HOODIE_OK && g < json_array_size(groups); g++) {
                json_t *slices = json_object_get(json_array_get(groups, g), "slices");
                for (size_t k = 0; rc == HOODIE_OK && k < json_array_size(slices); k++) {
                    json_t *sl = json_array_get(slices, k);
                    rc = pending_add(out, jstr(sl, "partitionPath"), jstr(sl, "fileId"));
                }
            }
        }
        json_decref(rec);
    }
    return rc;
}

int hoodie_svc__pending_has(const hoodie_svc_pending_fgs *p, const char *partition, const char *file_id)
{
    for (size_t i = 0; i < p->count; i++)
        if (!strcmp(p->partitions[i], partition) && !strcmp(p->file_ids[i], file_id)) return 1;
    return 0;
}

void hoodie_svc__pending_dispose(hoodie_svc_pending_fgs *p)
{
    for (size_t i = 0; i < p->count; i++) { free(p->partitions[i]); free(p->file_ids[i]); }
    free(p->partitions);
    free(p->file_ids);
    memset(p, 0, sizeof *p);
}
