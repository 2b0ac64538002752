/*
 * Compaction (hudi-format.md 9.1): the latest file slices of a MOR table merged into new base files.
 *
 *   schedule  C.compaction.requested: a HoodieCompactionPlan (version 2: log file names) with one operation per
 *             slice chosen by the strategy; file groups of pending compactions or clusterings are left out
 *   run       C.compaction.inflight (empty, as Hudi writes it); per operation the base file and the listed logs
 *             merged as the snapshot reader merges them (read/logscan + read/slice_merge), streamed batch by
 *             batch into the streaming base-file writer (only the log records are held in memory), written as
 *             <fileId>_<token>_C.parquet (records keep their commit time and sequence number; the file name
 *             column names the new file); completed as C.commit / C_C.commit with compacted=true and
 *             operationType COMPACT
 *
 * Output names are deterministic (the operation's index is the write token), so a run that died part-way is
 * redone from its plan: leftovers of the dead run are replaced.
 */
#include "services/lsm_compact.h"
#include "services/svc.h"
#include "read/logscan.h"
#include "storage/storage.h"
#include "table/file_name.h"
#include "table/fsview.h"
#include "util/error.h"
#include "util/warn.h"
#include "write/basefile_stream.h"
#include "table/pqwrite.h"
#include "table/pqfile.h"
#include "write/rgcopy.h"
#include "write/commit_encode.h"
#include "write/mdt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB (1024.0 * 1024.0)
#define DEFAULT_IO_BUDGET (500ll * 1024 * 1024 * 1024)

static json_t *jstring_or_null(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *operation(const hoodie_file_group *g, const hoodie_file_slice *sl)
{
    json_t *op = json_object(), *logs = json_array(), *metrics = json_object();
    int bad = !op || !logs || !metrics;
    uint64_t log_size = 0, base_size = sl->base ? sl->base->size : 0;
    for (size_t i = 0; !bad && i < sl->log_count; i++) {
        bad |= json_array_append_new(logs, json_string(sl->logs[i]->name)) < 0;
        log_size += sl->logs[i]->size;
    }
    bad |= hoodie_svc__set(metrics, "TOTAL_LOG_FILES", json_real((double)sl->log_count)) < 0;
    bad |= hoodie_svc__set(metrics, "TOTAL_IO_READ_MB", json_real((double)(base_size + log_size) / MB)) < 0;
    bad |= hoodie_svc__set(metrics, "TOTAL_LOG_FILES_SIZE", json_real((double)log_size)) < 0;
    bad |= hoodie_svc__set(metrics, "TOTAL_IO_WRITE_MB", json_real((double)base_size / MB)) < 0;
    bad |= hoodie_svc__set(metrics, "TOTAL_IO_MB", json_real((double)(2 * base_size + log_size) / MB)) < 0;
    bad |= hoodie_svc__set(op, "baseInstantTime", json_string(sl->base_instant)) < 0;
    bad |= hoodie_svc__set(op, "deltaFilePaths", logs) < 0;
    logs = NULL;
    bad |= hoodie_svc__set(op, "dataFilePath", jstring_or_null(sl->base ? sl->base->name : NULL)) < 0;
    bad |= hoodie_svc__set(op, "fileId", json_string(g->file_id)) < 0;
    bad |= hoodie_svc__set(op, "partitionPath", json_string(g->partition)) < 0;
    bad |= hoodie_svc__set(op, "metrics", metrics) < 0;
    metrics = NULL;
    bad |= hoodie_svc__set(op, "bootstrapFilePath", json_null()) < 0;
    if (bad) { json_decref(op); return NULL; }
    return op;
}

static uint64_t slice_io(const hoodie_file_slice *sl)
{
    uint64_t n = sl->base ? 2 * sl->base->size : 0;
    for (size_t i = 0; i < sl->log_count; i++) n += sl->logs[i]->size;
    return n;
}

static uint64_t slice_log_size(const hoodie_file_slice *sl)
{
    uint64_t n = 0;
    for (size_t i = 0; i < sl->log_count; i++) n += sl->logs[i]->size;
    return n;
}

#define LOG_COMPACTOR "org.apache.hudi.table.action.compact.LogCompactionExecutionHelper"
#define DEFAULT_LOG_BLOCKS_THRESHOLD 5 /* hoodie.log.compaction.blocks.threshold */

/* The log blocks of a slice that apply now, as HoodieLogCompactionPlanGenerator counts them (an unmerged scan's
 * current blocks: completed, not rolled back, not replaced by a log compaction). */
static hoodie_status applying_blocks(hoodie_svc *sv, const hoodie_file_slice *sl, int64_t *out, int *partial)
{
    HOODIE_TRY(hoodie_svc__load_schema(sv));
    hoodie_logscan_ctx lc = { sv->s, sv->t->tl, NULL, &sv->file_schema,
                              (const char *const *)sv->rolled_back_instants, sv->n_rolled_back_instants, 1, 0, 0, 0, 0,
                              sv->t->evo, NULL, 0 };
    return hoodie_logscan_blocks(&lc, sl->logs, sl->log_count, out, partial);
}

/* Schedule a compaction, or with `log` a log compaction: slices in which at least log_blocks_threshold log blocks
 * apply, a plan naming LogCompactionExecutionHelper that preserves the records' meta
 * fields (as HoodieLogCompactionPlanGenerator). */
static hoodie_status schedule(const char *base_path, const hoodie_service_opts *opts, int log,
                              hoodie_service_result *result)
{
    hoodie_svc sv;
    hoodie_fsview *v = NULL;
    hoodie_svc_pending_fgs pend = { 0 };
    hoodie_write_txn tx;
    int have_tx = 0;
    json_t *plan = NULL, *ops = NULL;
    hoodie_buf content = HOODIE_BUF_INIT;
    hoodie_service_result res;
    memset(&res, 0, sizeof res);
    hoodie_status rc = hoodie_svc__open(&sv, base_path, opts, HOODIE_SVC_RECOVER | HOODIE_SVC_FILES);
    res.rolled_back = sv.rolled_back;
    if (rc == HOODIE_OK && sv.t->cfg->type != HOODIE_TABLE_MERGE_ON_READ)
        rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: compaction needs a merge-on-read table", sv.base_path);
    if (rc == HOODIE_OK) rc = hoodie_svc__need_meta_fields(&sv, "compacting");
    if (rc == HOODIE_OK && sv.t->cfg->merge_mode == HOODIE_MERGE_CUSTOM) /* refused before a plan is written */
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: merging log records by a custom record merger (%s %s) is not "
                         "supported", sv.base_path, HOODIE_CUSTOM_MERGER_ARGS(sv.t->cfg));
    if (rc == HOODIE_OK && log && sv.t->cfg->lsm_tree)
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: the LSM layout compacts its logs through compaction (LOG "
                         "operations)", sv.base_path);
    hoodie_table_lock lock = { 0 };
    if (rc == HOODIE_OK) rc = hoodie_svc__lock_fresh(&sv, &lock);
    if (rc == HOODIE_OK) rc = hoodie_svc__pending_file_groups(&sv, &pend);
    if (rc == HOODIE_OK) rc = hoodie_table__fsview(sv.t, NULL, NULL, NULL, &v);
    if (rc == HOODIE_OK && !(ops = json_array())) rc = HOODIE_NOMEM();
    int64_t threshold = sv.o.log_size_threshold > 0 ? sv.o.log_size_threshold : 1;
    int64_t budget = sv.o.io_budget > 0 ? sv.o.io_budget : DEFAULT_IO_BUDGET;
    int64_t min_blocks = sv.o.log_blocks_threshold > 0 ? sv.o.log_blocks_threshold : DEFAULT_LOG_BLOCKS_THRESHOLD;
    for (size_t i = 0; rc == HOODIE_OK && v && i < v->group_count; i++) {
        const hoodie_file_group *g = &v->groups[i];
        const hoodie_file_slice *sl = hoodie_file_group_latest(g);
        if (!sl || !sl->log_count || hoodie_svc__pending_has(&pend, g->partition, g->file_id)) continue;
        if (sv.o.strategy == HOODIE_COMPACT_LOG_SIZE && (int64_t)slice_log_size(sl) < threshold) continue;
        if (sv.o.strategy == HOODIE_COMPACT_BOUNDED_IO && budget <= 0) break;
        if (log) {
            int64_t blocks = 0;
            int partial = 0;
            if ((rc = applying_blocks(&sv, sl, &blocks, &partial)) < 0) break;
            if (blocks < min_blocks) continue;
            if (partial) { /* a whole-record block of them would lose the columns they leave out */
                hoodie_warn("%s: file group %s of partition '%s' not log-compacted: it has partial-update log "
                            "blocks (IS_PARTIAL), which compaction merges with the base file", sv.base_path,
                            g->file_id, g->partition);
                continue;
            }
        }
        json_t *op = operation(g, sl);
        int lsm_skip = 0; /* LSM layout: FULL or LOG per group (services/lsm_compact.h) */
        if (op && sv.t->cfg->lsm_tree && (rc = hoodie_lsm_compact__tag(&sv, sl, op, &lsm_skip)) < 0) { json_decref(op); break; }
        if (lsm_skip) { json_decref(op); continue; }
        if (!op || json_array_append_new(ops, op) < 0) { rc = HOODIE_NOMEM(); break; }
        budget -= (int64_t)slice_io(sl);
        res.file_groups++;
    }
    if (rc == HOODIE_OK && json_array_size(ops)) {
        plan = json_object();
        int bad = !plan;
        bad |= hoodie_svc__set(plan, "operations", ops) < 0;
        ops = NULL;
        bad |= hoodie_svc__set(plan, "extraMetadata", json_null()) < 0;
        bad |= hoodie_svc__set(plan, "version", json_integer(2)) < 0;
        json_t *strategy = json_null();
        if (log && (strategy = json_object()) != NULL) {
            bad |= hoodie_svc__set(strategy, "compactorClassName", json_string(LOG_COMPACTOR)) < 0;
            bad |= hoodie_svc__set(strategy, "strategyParams", json_object()) < 0;
            bad |= hoodie_svc__set(strategy, "version", json_integer(1)) < 0;
        }
        bad |= hoodie_svc__set(plan, "strategy", strategy) < 0;
        bad |= hoodie_svc__set(plan, "preserveHoodieMetadata", log ? json_true() : json_false()) < 0;
        bad |= hoodie_svc__set(plan, "missingSchedulePartitions", json_null()) < 0;
        if (bad) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) {
            rc = hoodie_svc__ocf(&content, hoodie_write__schema_compaction_plan, plan);
            plan = NULL;
        }
        if (rc == HOODIE_OK)
            rc = hoodie_svc__begin(&sv, &tx, log ? HOODIE_ACTION_LOGCOMPACTION : HOODIE_ACTION_COMPACTION,
                                   content.data, content.len);
        have_tx = rc == HOODIE_OK;
        if (rc == HOODIE_OK) snprintf(res.instant, sizeof res.instant, "%s", tx.inst.requested);
    }
    hoodie_status urc = hoodie_write__unlock(&lock);
    if (rc == HOODIE_OK) rc = urc;
    if (have_tx) hoodie_write__txn_dispose(&tx);
    json_decref(plan);
    json_decref(ops);
    hoodie_buf_dispose(&content);
    hoodie_svc__pending_dispose(&pend);
    hoodie_fsview_free(v);
    hoodie_svc__close(&sv);
    if (result) *result = res;
    return rc;
}

hoodie_status hoodie_compaction_schedule(const char *base_path, const hoodie_service_opts *opts,
                                         hoodie_service_result *result)
{
    return schedule(base_path, opts, 0, result);
}

hoodie_status hoodie_log_compaction_schedule(const char *base_path, const hoodie_service_opts *opts,
                                             hoodie_service_result *result)
{
    return schedule(base_path, opts, 1, result);
}

/* ---- run ---- */

static const char *jstr(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

typedef struct stat_vec {
    hoodie_wstat *v;
    size_t n, cap;
    hoodie_arena *arena;
} stat_vec;

static hoodie_wstat *stat_add(stat_vec *s)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        hoodie_wstat *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) { HOODIE_NOMEM(); return NULL; }
        s->v = nv;
        s->cap = nc;
    }
    hoodie_wstat *w = &s->v[s->n++];
    memset(w, 0, sizeof *w);
    return w;
}

typedef struct stream_sink {
    hoodie_svc *sv;
    hoodie_basefile_stream *out;
    const char *file_name;
    const hoodie_svc_rows *rows;  /* the merge's statistics (may_drop is known before the first batch) */
    char *base_index[4];          /* the base file's bloom filter, its type code, min and max keys (malloc) */
    int64_t base_rows;
    int seeded;
    hoodie_rgcopy *rcp;           /* the base file's chunks the new file keeps (NULL: none) */
} stream_sink;

/* The base file's key index, for the new file to continue when the merge keeps every base record in place. */
static void read_base_index(hoodie_svc *sv, const char *partition, const char *base_name, stream_sink *ss)
{
    static const char *const kv[4] = { "org.apache.hudi.bloomfilter", "hoodie_bloom_filter_type_code",
                                       "hoodie_min_record_key", "hoodie_max_record_key" };
    char *path = base_name ? hoodie_svc__file_path(sv, partition, base_name) : NULL;
    hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
    hoodie_parquet_reader *r = NULL;
    ro.storage = sv->s;
    if (path && hoodie_parquet_reader_open(&r, path, &ro) == HOODIE_OK) {
        ss->base_rows = hoodie_parquet_reader_num_rows(r);
        for (int i = 0; i < 4; i++) {
            const char *v = hoodie_parquet_reader_kv(r, kv[i]);
            ss->base_index[i] = v ? strdup(v) : NULL;
        }
    }
    hoodie_error_clear(); /* no index to reuse: the merge reads the file and reports what is wrong with it */
    hoodie_parquet_reader_free(r);
    free(path);
}

/* Merged rows (the merge's shape, consumed) into the new base file, their _hoodie_file_name naming that file;
 * copies: the base file's chunks the row group keeps (NULL: none). */
static hoodie_status put_rows(stream_sink *ss, hoodie_batch *b, const hoodie_pq_chunk_copy *const *copies)
{
    hoodie_status rc = HOODIE_OK;
    if (!ss->seeded) { /* base records first, each once, in order: the new file's first keys are the base file's */
        ss->seeded = 1;
        if (!ss->rows->may_drop && ss->base_index[0])
            rc = hoodie_basefile_stream_seed(ss->out, ss->base_index[0], ss->base_index[1], ss->base_index[2],
                                             ss->base_index[3], ss->base_rows);
    }
    if (rc < 0) { hoodie_batch_dispose(b); return rc; }
    hoodie_batch full;
    rc = hoodie_svc__to_file_shape(ss->sv, b, &full); /* consumes b; the stream names the file */
    if (rc < 0) return rc;
    rc = hoodie_basefile_stream_write_row_group(ss->out, &full, copies);
    if (copies) hoodie_rgcopy_release(ss->rcp); /* the row group is in the file: its copies are done with */
    hoodie_batch_dispose(&full);
    return rc;
}

/* A base batch and its merge selection: held until the base file's row group is complete, then written as one
 * row group keeping the chunks no log record changes (write/rgcopy.h). */
static hoodie_status sel_sink(void *ctx, hoodie_batch *base, const hoodie_batch *const *srcs, size_t n_srcs,
                              const hoodie_row_ref *sel, size_t n)
{
    stream_sink *ss = ctx;
    HOODIE_TRY(hoodie_rgcopy_push(ss->rcp, base, srcs, n_srcs, sel, n));
    if (ss->rcp->left > 0) return HOODIE_OK; /* held */
    hoodie_batch rows;
    const hoodie_pq_chunk_copy *const *copies;
    HOODIE_TRY(hoodie_rgcopy_take(ss->rcp, ss->rcp->left == 0, srcs, n_srcs, &rows, &copies));
    if (rows.root.length == 0 && !copies) { hoodie_batch_dispose(&rows); return 1; } /* all deleted */
    hoodie_status rc = put_rows(ss, &rows, copies);
    return rc < 0 ? rc : 1; /* written: none held */
}

/* Merged rows (the log-only ones, or a slice without logs) into the new base file. */
static hoodie_status write_sink(void *ctx, hoodie_batch *b)
{
    stream_sink *ss = ctx;
    if (ss->rcp && ss->rcp->n_pend) { /* a base row group the scan did not finish: its rows counts lied */
        hoodie_batch_dispose(b);
        return HOODIE_CORRUPT("%s: the base file's rows do not add up to its row groups' counts", ss->file_name);
    }
    return put_rows(ss, b, NULL);
}

/* The copy state of a compaction's base file (ss->rcp = rcp when chunks can be kept; *br is the reader it uses). */
static hoodie_status base_copies(hoodie_svc *sv, const char *part, const char *data, hoodie_parquet_reader **br,
                                 hoodie_rgcopy *rcp, stream_sink *ss)
{
    char *path = hoodie_svc__file_path(sv, part, data);
    hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
    hoodie_parquet_write_opts po = HOODIE_PARQUET_WRITE_OPTS_INIT;
    hoodie_pq_writer_opts fo;
    ro.storage = sv->s;
    po.codec = sv->o.codec;
    if (!path) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_pqwrite_map_opts(&po, &fo);
    const hoodie_renames *rn = NULL;
    if (rc == HOODIE_OK) rc = hoodie_evo_file_renames(sv->t->evo, NULL, path, &rn);
    if (rc == HOODIE_OK) rc = hoodie_pqfile__open(br, path, &ro, rn);
    free(path);
    const hoodie_field *in = NULL; /* the merge's batches: no _hoodie_file_name (the sink names the new file) */
    if (rc == HOODIE_OK) rc = hoodie_svc__merge_schema(sv, 1, &in);
    int key = in ? hoodie_field_find(in, "_hoodie_record_key") : -1;
    if (rc == HOODIE_OK && key >= 0 && hoodie_field_find(&sv->file_schema, "_hoodie_record_key") == 2)
        rc = hoodie_rgcopy_init(rcp, &sv->file_schema, in, key, hoodie_pqfile__file(*br), fo.codec);
    else if (rc == HOODIE_OK) { hoodie_parquet_reader_free(*br); *br = NULL; return HOODIE_OK; } /* merged as before */
    if (rc < 0) { /* the merge reads the file and reports what is wrong with it */
        hoodie_parquet_reader_free(*br);
        *br = NULL;
        hoodie_error_clear();
        return HOODIE_OK;
    }
    hoodie_rgcopy_exclude(rcp, hoodie_field_find(in, "_hoodie_file_name")); /* (absent: never copied anyway) */
    ss->rcp = rcp;
    return HOODIE_OK;
}

/* One operation: merge, write the new base file, record its stat. */
/* The files of a plan operation (names point into the plan or `logs`, malloc). */
typedef struct op_files {
    const char *part, *fid, *data, *base_instant;
    const char **logs;
    size_t n_logs;
} op_files;

static hoodie_status op_files_of(const hoodie_write_txn *tx, json_t *op, op_files *of)
{
    memset(of, 0, sizeof *of);
    of->part = jstr(op, "partitionPath");
    of->fid = jstr(op, "fileId");
    of->data = jstr(op, "dataFilePath");
    of->base_instant = jstr(op, "baseInstantTime");
    json_t *deltas = json_object_get(op, "deltaFilePaths");
    if (!of->part) of->part = "";
    if (!of->fid) return HOODIE_CORRUPT("%s: compaction operation without a fileId", tx->inst.requested);
    of->n_logs = json_array_size(deltas);
    of->logs = calloc(of->n_logs + 1, sizeof *of->logs);
    if (!of->logs) return HOODIE_NOMEM();
    for (size_t i = 0; i < of->n_logs; i++) {
        const char *p = json_string_value(json_array_get(deltas, i));
        const char *slash = p ? strrchr(p, '/') : NULL; /* plan version 1 holds full paths */
        of->logs[i] = slash ? slash + 1 : p ? p : "";
    }
    if (of->data) {
        const char *slash = strrchr(of->data, '/');
        if (slash) of->data = slash + 1;
        if (!*of->data) of->data = NULL;
    }
    return HOODIE_OK;
}

static hoodie_status compact_one(hoodie_svc *sv, hoodie_write_txn *tx, json_t *op, size_t ordinal, stat_vec *stats,
                                 hoodie_service_result *res)
{
    json_t *om = json_object_get(op, "metrics");
    if (json_object_get(om, "lsm.op.FULL") || json_object_get(om, "lsm.op.LOG")) { /* services/lsm_compact.h */
        hoodie_wstat *lst = stat_add(stats);
        return lst ? hoodie_lsm_compact__run(sv, tx, op, ordinal, lst, stats->arena, res) : HOODIE_ENOMEM;
    }
    op_files of;
    hoodie_status orc = op_files_of(tx, op, &of);
    if (orc < 0) { free(of.logs); return orc; }
    const char *part = of.part, *fid = of.fid, *data = of.data, *base_instant = of.base_instant;
    const char **logs = of.logs;
    size_t n_logs = of.n_logs;
    hoodie_svc_rows rows = { 0 };
    hoodie_buf nb = HOODIE_BUF_INIT;
    char token[64], *path = NULL, *rel = NULL;
    uint64_t size = 0;
    int64_t written = 0;
    snprintf(token, sizeof token, "%zu-0-%zu", ordinal, ordinal);
    hoodie_status rc = hoodie_svc__load_schema(sv);
    if (rc == HOODIE_OK) rc = hoodie_file_name_base(&nb, fid, token, tx->inst.requested, "parquet");
    const char *name = rc == HOODIE_OK ? (const char *)nb.data : NULL;
    if (rc == HOODIE_OK) {
        path = hoodie_svc__file_path(sv, part, name);
        rel = *part ? hoodie_arena_sprintf(stats->arena, "%s/%s", part, name) : hoodie_arena_strdup(stats->arena, name);
        if (!path || !rel) rc = HOODIE_NOMEM();
    }
    if (rc == HOODIE_OK) {
        rc = hoodie_write__marker(tx, part, name, HOODIE_MARKER_CREATE);
        if (rc == HOODIE_EEXISTS) { hoodie_error_clear(); rc = HOODIE_OK; } /* a run before this one */
    }
    if (rc == HOODIE_OK) rc = hoodie_svc__remove(sv->s, path);
    /* the merged rows streamed into the new base file: memory is the log records and one base batch */
    stream_sink ss = { sv, NULL, name, &rows, { NULL, NULL, NULL, NULL }, 0, 0, NULL };
    if (rc == HOODIE_OK) read_base_index(sv, part, data, &ss);
    hoodie_basefile_opts bo = { sv->s, path, &sv->file_schema, sv->avro_file_schema, sv->o.codec, 0, 0,
                                NULL, NULL, NULL, NULL, 0, name, 0 };
    if (rc == HOODIE_OK) rc = hoodie_basefile_stream_open(&ss.out, &bo, 0, 0, 0); /* the writer's row groups */
    /* the base file's chunks that no log record changes are kept (its _hoodie_file_name is rewritten) */
    hoodie_parquet_reader *br = NULL;
    hoodie_rgcopy rcp;
    if (rc == HOODIE_OK && data && n_logs) rc = base_copies(sv, part, data, &br, &rcp, &ss);
    if (rc == HOODIE_OK)
        rc = ss.rcp ? hoodie_svc__merge_slice_sel(sv, part, data, logs, n_logs, &rows, sel_sink, write_sink, &ss)
                    : hoodie_svc__merge_slice_each(sv, part, data, logs, n_logs, 1, &rows, write_sink, &ss);
    if (rc == HOODIE_OK && ss.rcp && ss.rcp->n_pend)
        rc = HOODIE_CORRUPT("%s: the base file's rows do not add up to its row groups' counts", data);
    if (rc == HOODIE_OK && rows.rows == 0) { /* every record deleted: an empty base file ends the old slice */
        hoodie_batch empty;
        rc = hoodie_batch_init(&empty, &sv->file_schema);
        if (rc == HOODIE_OK) {
            rc = hoodie_basefile_stream_write(ss.out, &empty);
            hoodie_batch_dispose(&empty);
        }
    }
    if (rc == HOODIE_OK) rc = hoodie_basefile_stream_close(ss.out, &size, &written);
    hoodie_basefile_stream_free(ss.out);
    if (ss.rcp) hoodie_rgcopy_dispose(ss.rcp); /* after the file is closed: the copies point into it */
    hoodie_parquet_reader_free(br);
    for (int i = 0; i < 4; i++) free(ss.base_index[i]);
    if (rc == HOODIE_OK) {
        hoodie_wstat *st = stat_add(stats);
        if (!st) rc = HOODIE_ENOMEM;
        else {
            st->partition_path = hoodie_arena_strdup(stats->arena, part);
            st->file_id = hoodie_arena_strdup(stats->arena, fid);
            st->path = rel;
            st->prev_commit = base_instant ? hoodie_arena_strdup(stats->arena, base_instant) : NULL;
            if (data && *data) { /* the base file it rewrote (prevBaseFile), as Hudi's merge handle names it */
                const char *sl = strrchr(data, '/');
                st->prev_base_file = hoodie_arena_strdup(stats->arena, sl ? sl + 1 : data);
            }
            st->num_writes = written;
            st->num_update_writes = rows.updated;
            st->num_deletes = rows.deleted;
            st->total_write_bytes = (int64_t)size;
            st->file_size_in_bytes = (int64_t)size;
            st->total_log_records = rows.log_records;
            st->total_log_blocks = rows.log_blocks;
            st->total_log_files_compacted = (int64_t)n_logs;
            st->total_log_size_compacted = (int64_t)rows.log_bytes;
            st->total_updated_records_compacted = rows.log_records;
            if (!st->partition_path || !st->file_id) rc = HOODIE_NOMEM();
            res->files_written++;
            res->records += written;
            res->file_groups++;
        }
    }
    free(path);
    hoodie_buf_dispose(&nb);
    hoodie_svc__rows_dispose(&rows);
    free(logs);
    if (rc < 0) hoodie_error__prefix("compaction %s of file group %s: ", tx->inst.requested, fid);
    return rc;
}

/* One log compaction operation: the slice's logs folded into one new log file of the file group. */
static hoodie_status log_compact_one(hoodie_svc *sv, hoodie_write_txn *tx, json_t *op, size_t ordinal,
                                     stat_vec *stats, hoodie_service_result *res)
{
    op_files of;
    hoodie_status rc = op_files_of(tx, op, &of);
    hoodie_buf nb = HOODIE_BUF_INIT;
    char token[64], *path = NULL, *rel = NULL;
    hoodie_svc_logc_result lr;
    memset(&lr, 0, sizeof lr);
    /* the file's name: v8 names a log file with its writer's instant; v6 with the slice's base instant and the
       next version after the plan's logs */
    int v8 = sv->t->cfg->version >= 8;
    const char *name_instant = v8 || !of.base_instant ? tx->inst.requested : of.base_instant;
    int64_t version = 1;
    for (size_t i = 0; rc == HOODIE_OK && !v8 && i < of.n_logs; i++) {
        hoodie_file_name fn;
        if (hoodie_file_name_parse(&fn, of.logs[i]) == HOODIE_FILE_LOG && fn.instant.len == strlen(name_instant) &&
            !memcmp(fn.instant.p, name_instant, fn.instant.len) && fn.version >= version)
            version = fn.version + 1;
    }
    snprintf(token, sizeof token, "%zu-0-%zu", ordinal, ordinal);
    if (rc == HOODIE_OK) rc = hoodie_file_name_log(&nb, of.fid, name_instant, version, token);
    const char *name = rc == HOODIE_OK ? (const char *)nb.data : NULL;
    if (rc == HOODIE_OK) {
        path = hoodie_svc__file_path(sv, of.part, name);
        rel = *of.part ? hoodie_arena_sprintf(stats->arena, "%s/%s", of.part, name)
                       : hoodie_arena_strdup(stats->arena, name);
        if (!path || !rel) rc = HOODIE_NOMEM();
    }
    if (rc == HOODIE_OK) {
        rc = hoodie_write__marker(tx, of.part, name, HOODIE_MARKER_APPEND);
        if (rc == HOODIE_EEXISTS) { hoodie_error_clear(); rc = HOODIE_OK; } /* a run before this one */
    }
    if (rc == HOODIE_OK) rc = hoodie_svc__remove(sv->s, path);
    if (rc == HOODIE_OK) rc = hoodie_svc__compact_logs(sv, of.part, of.logs, of.n_logs, tx->inst.requested, path, &lr);
    if (rc == HOODIE_OK && lr.written) {
        hoodie_wstat *st = stat_add(stats);
        const char **lf = hoodie_arena_alloc(stats->arena, sizeof *lf);
        if (!st || !lf) rc = HOODIE_NOMEM();
        else {
            lf[0] = rel + (*of.part ? strlen(of.part) + 1 : 0);
            st->partition_path = hoodie_arena_strdup(stats->arena, of.part);
            st->file_id = hoodie_arena_strdup(stats->arena, of.fid);
            st->path = rel;
            st->prev_commit = of.base_instant ? hoodie_arena_strdup(stats->arena, of.base_instant) : NULL;
            st->base_file = of.data ? hoodie_arena_strdup(stats->arena, of.data) : "";
            st->num_writes = lr.records;
            st->num_deletes = lr.deletes;
            st->total_write_bytes = (int64_t)lr.size;
            st->file_size_in_bytes = (int64_t)lr.size;
            st->is_delta = 1;
            st->log_version = (int32_t)version;
            st->log_files = lf;
            st->log_file_count = 1;
            st->total_log_records = lr.log_records;
            st->total_log_blocks = lr.blocks;
            st->total_log_files_compacted = (int64_t)of.n_logs;
            if (!st->partition_path || !st->file_id || !st->base_file) rc = HOODIE_NOMEM();
            res->files_written++;
            res->records += lr.records;
            res->file_groups++;
        }
    }
    free(path);
    hoodie_buf_dispose(&nb);
    free(of.logs);
    if (rc < 0) hoodie_error__prefix("log compaction %s of file group %s: ", tx->inst.requested, of.fid ? of.fid : "?");
    return rc;
}

static hoodie_status run_one(hoodie_svc *sv, const hoodie_instant *in, int log, hoodie_service_result *res)
{
    hoodie_write_txn tx;
    json_t *plan = NULL;
    stat_vec stats = { 0 };
    hoodie_buf meta = HOODIE_BUF_INIT;
    HOODIE_TRY(hoodie_svc__load_schema(sv));
    /* log compaction keeps a column_stats partition in step: its log files' statistics go with the commit */
    if (log && !sv->cs_arena) {
        HOODIE_TRY(hoodie_write__cs_columns(sv->s, sv->base_path, sv->t->cfg, &sv->cs_cols, &sv->n_cs_cols));
        if (sv->n_cs_cols) HOODIE_TRY(hoodie_arena_new(&sv->cs_arena, NULL, 4096));
    }
    HOODIE_TRY(hoodie_svc__resume(sv, &tx, in));
    hoodie_status rc = hoodie_svc__read_record(sv, in, HOODIE_STATE_REQUESTED, &plan);
    if (rc == HOODIE_OK && !plan) rc = HOODIE_CORRUPT("%s: empty compaction plan", in->requested);
    if (rc == HOODIE_OK) rc = hoodie_arena_new(&stats.arena, NULL, 4096);
    if (rc == HOODIE_OK) rc = hoodie_svc__ensure_inflight(&tx, NULL, 0);
    json_t *ops = json_object_get(plan, "operations");
    const char *what = log ? "log compaction: file groups" : "compaction: file groups";
    int64_t n_ops = (int64_t)json_array_size(ops);
    if (rc == HOODIE_OK && n_ops) hoodie_svc__progress(sv, what, 0, n_ops);
    for (size_t i = 0; rc == HOODIE_OK && i < json_array_size(ops); i++) {
        rc = (log ? log_compact_one : compact_one)(sv, &tx, json_array_get(ops, i), i, &stats, res);
        if (rc == HOODIE_OK) hoodie_svc__progress(sv, what, (int64_t)i + 1, n_ops);
    }
    if (rc == HOODIE_OK) {
        hoodie_kv extra[1] = { { "schema", sv->avro_data_schema } };
        hoodie_commit_info ci = { 0 };
        ci.stats = stats.v;
        ci.stat_count = stats.n;
        ci.compacted = 1;
        ci.extra = extra;
        ci.extra_count = 1;
        ci.operation_type = log ? "LOG_COMPACT" : "COMPACT";
        rc = hoodie_commit_encode(&meta, &ci, sv->t->cfg->version >= 8 ? 8 : 6);
    }
    tx.log_stats = sv->log_stats;
    tx.n_log_stats = sv->n_log_stats;
    if (rc == HOODIE_OK) rc = hoodie_write__complete_unlocked(&tx, meta.data, meta.len);
    if (rc == HOODIE_OK) snprintf(res->instant, sizeof res->instant, "%s", in->requested);
    hoodie_buf_dispose(&meta);
    free(stats.v);
    hoodie_arena_free(stats.arena);
    json_decref(plan);
    hoodie_write__txn_dispose(&tx);
    return rc;
}

/* Run the pending (log) compactions, or the one of `instant`. */
static hoodie_status run_pending(const char *base_path, const hoodie_service_opts *opts, const char *instant, int log,
                                 hoodie_service_result *result)
{
    hoodie_svc sv;
    hoodie_service_result res;
    hoodie_action action = log ? HOODIE_ACTION_LOGCOMPACTION : HOODIE_ACTION_COMPACTION;
    memset(&res, 0, sizeof res);
    hoodie_status rc = hoodie_svc__open(&sv, base_path, opts, HOODIE_SVC_RECOVER | HOODIE_SVC_FILES);
    res.rolled_back = sv.rolled_back;
    int found = 0;
    if (rc == HOODIE_OK) {
        /* the pending compactions, copied: the timeline is reloaded between them */
        const hoodie_timeline *tl = sv.t->tl;
        hoodie_instant *todo = calloc(tl->count + 1, sizeof *todo);
        size_t n = 0;
        if (!todo) rc = HOODIE_NOMEM();
        for (size_t i = 0; todo && i < tl->count; i++) {
            const hoodie_instant *in = &tl->instants[i];
            if (in->plan_action != action) continue;
            if (instant && strcmp(in->requested, instant)) continue;
            found = 1;
            if (in->state != HOODIE_STATE_COMPLETED) todo[n++] = *in;
        }
        if (rc == HOODIE_OK && instant && !found)
            rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no %s %s on the timeline", sv.base_path,
                             log ? "log compaction" : "compaction", instant);
        for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
            rc = run_one(&sv, &todo[i], log, &res);
            if (rc == HOODIE_OK) res.instants++;
            if (rc == HOODIE_OK && i + 1 < n) rc = hoodie_svc__reload(&sv);
        }
        free(todo);
    }
    hoodie_svc__close(&sv);
    if (result) *result = res;
    return rc;
}

hoodie_status hoodie_compaction_run(const char *base_path, const hoodie_service_opts *opts, const char *instant,
                                    hoodie_service_result *result)
{
    return run_pending(base_path, opts, instant, 0, result);
}

hoodie_status hoodie_log_compaction_run(const char *base_path, const hoodie_service_opts *opts, const char *instant,
                                        hoodie_service_result *result)
{
    return run_pending(base_path, opts, instant, 1, result);
}

hoodie_status hoodie_log_compaction(const char *base_path, const hoodie_service_opts *opts,
                                    hoodie_service_result *result)
{
    hoodie_service_result sched;
    hoodie_status rc = hoodie_log_compaction_schedule(base_path, opts, &sched);
    if (rc < 0) { if (result) *result = sched; return rc; }
    rc = hoodie_log_compaction_run(base_path, opts, NULL, result);
    if (result) result->rolled_back += sched.rolled_back;
    return rc;
}
