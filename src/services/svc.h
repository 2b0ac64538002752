/*
 * What the table services share (include/hoodie/services.h): the open table with the schemas a rewrite needs,
 * service instants (any action: requested -> inflight -> completed through write/commit.h), Avro timeline
 * records, and reading one file slice merged exactly as the snapshot reader merges it (read/logscan.h +
 * read/slice_merge.h), as file records (meta columns + data) ready for a new base or log file.
 *
 * services/ is the one layer that uses both read/ and write/.
 */
#ifndef HOODIE_SERVICES_SVC_H
#define HOODIE_SERVICES_SVC_H

#include <jansson.h>
#include "hoodie/services.h"
#include "merge/record_merge.h"
#include "model/batch.h"
#include "model/build.h"
#include "table/table.h"
#include "util/buf.h"
#include "write/avro_enc.h"
#include "write/commit.h"
#include "write/lock.h"

/* Schemas of the service records (schemas.c); rollback and compaction plan schemas are in write/avro_enc.h. */
extern const char hoodie_svc__schema_requested_replace[];
extern const char hoodie_svc__schema_cleaner_plan[];
extern const char hoodie_svc__schema_clean_meta[];
extern const char hoodie_svc__schema_savepoint[];
extern const char hoodie_svc__schema_restore_plan[];
extern const char hoodie_svc__schema_restore_meta[];

/** An open table for a service. Stack-embedded: hoodie_svc__open ... hoodie_svc__close. */
typedef struct hoodie_svc {
    hoodie_service_opts o;
    const hoodie_storage *s;
    char *base_path;              /* malloc */
    hoodie_table *t;
    size_t rolled_back;           /* pending writes rolled back by open */
    /* hoodie_svc__load_schema */
    int have_schema;
    hoodie_field data_schema;     /* table columns */
    hoodie_field file_schema;     /* meta + table columns: the shape of every merged batch */
    char *avro_data_schema;       /* extraMetadata.schema */
    char *avro_file_schema;       /* parquet.avro.schema, log block SCHEMA */
    int key_col, ord_col, del_col;
    hoodie_merge_policy policy;
    /* file_schema without _hoodie_file_name, for merges whose output names a new file (compaction) */
    int have_nofn;
    hoodie_field nofn_schema;
    int nofn_key, nofn_ord, nofn_del, fname_col;
    hoodie_delete_marker marker, nofn_marker; /* the table's custom delete marker in file_schema / nofn_schema */
    char **rolled_back_instants;  /* instants undone by completed rollbacks (log blocks of them are skipped) */
    size_t n_rolled_back_instants;
    /* log compaction on a table whose metadata table keeps column_stats (write/mdt.h): its columns, and the
     * statistics of the log files written (for the commit's hoodie_write_txn.log_stats) */
    char **cs_cols;
    size_t n_cs_cols;
    hoodie_arena *cs_arena;
    struct hoodie_mdt_csrec *log_stats;
    size_t n_log_stats, cap_log_stats;
} hoodie_svc;

/** hoodie_svc__open flags. */
#define HOODIE_SVC_RECOVER 1   /* first roll back pending writes of dead writers (write/rollback.h) */
#define HOODIE_SVC_FILES   2   /* the service adds or removes data files: a metadata table keeps only its files
                                  partition, which the service's commit updates, or is disabled (write/mdt.h) */
#define HOODIE_SVC_DROP_MDT 4  /* with HOODIE_SVC_FILES: the metadata table is disabled (a restore) */
/** Open the table (flags: HOODIE_SVC_*). */
hoodie_status hoodie_svc__open(hoodie_svc *sv, const char *base_path, const hoodie_service_opts *o, unsigned flags);
/** Re-read the table (timeline and config) after the service changed it. */
hoodie_status hoodie_svc__reload(hoodie_svc *sv);
/**
 * Take the table lock and re-read the table under it, before planning a compaction or a clustering: the plan then
 * sees every write that completed before it (a write completing later finds the plan at its commit check and
 * fails with a conflict). Without it, a write completing between the service's first read and its plan was left
 * out of the plan, and the plan's new slice or replacement then hid the write's records. Unlock with
 * hoodie_write__unlock once the plan's requested instant exists.
 */
hoodie_status hoodie_svc__lock_fresh(hoodie_svc *sv, hoodie_table_lock *lock);
void hoodie_svc__close(hoodie_svc *sv);
/** The table schema (latest commit's, else the create schema) and the merge configuration. */
hoodie_status hoodie_svc__load_schema(hoodie_svc *sv);

/** Start a service instant of `action` with `req` as the requested file's content (a new time > the timeline). */
hoodie_status hoodie_svc__begin(hoodie_svc *sv, hoodie_write_txn *tx, hoodie_action action, const void *req,
                                size_t len);
/** A transaction over the existing pending instant `in` (its state as on storage). */
hoodie_status hoodie_svc__resume(hoodie_svc *sv, hoodie_write_txn *tx, const hoodie_instant *in);
/** Write the inflight file of a resumed instant if it is missing. */
hoodie_status hoodie_svc__ensure_inflight(hoodie_write_txn *tx, const void *content, size_t len);

/** Decode the single Avro record of `in`'s file in state `st` (*out NULL for an empty file). */
hoodie_status hoodie_svc__read_record(hoodie_svc *sv, const hoodie_instant *in, hoodie_instant_state st, json_t **out);
/** An Avro object container file holding `rec` (a reference is stolen; NULL means out of memory). */
hoodie_status hoodie_svc__ocf(hoodie_buf *out, const char *schema, json_t *rec);
/** json_object_set_new that reports failure (also for v NULL). */
int hoodie_svc__set(json_t *o, const char *k, json_t *v);

/** Merged rows of one slice: batches shaped as sv->file_schema. */
typedef struct hoodie_svc_rows {
    hoodie_batch *b;
    size_t n, cap;
    int64_t rows;
    int64_t log_records;      /* data rows + deletes read from the logs */
    int64_t log_blocks;
    uint64_t log_bytes;       /* the merged log files' sizes */
    int64_t updated;          /* base rows replaced by log records (updates) */
    int64_t deleted;          /* base rows deleted by log records */
    int may_drop;             /* set before the first batch reaches the sink: the merge may drop base rows (else
                                 they come out once each, in order, then the log-only rows) */
} hoodie_svc_rows;

/**
 * Merge the slice (base file name or NULL, log file names in apply order) of `partition` as the snapshot reader
 * does (completed, not rolled-back blocks), appending the result to `out`. Deleted records are dropped.
 */
hoodie_status hoodie_svc__merge_slice(hoodie_svc *sv, const char *partition, const char *base_name,
                                      const char *const *log_names, size_t n_logs, hoodie_svc_rows *out);
/** Receives each merged batch (non-empty; ownership passes, also on failure). */
typedef hoodie_status (*hoodie_svc_sink)(void *ctx, hoodie_batch *b);
/**
 * The same merge, streamed: each merged batch goes to `sink` as the base file is read (memory: the log records
 * and one base batch); `stats` receives the counts (rows, log_records, log_blocks; no batches). With
 * `without_file_name` the _hoodie_file_name column is neither read nor merged: batches are shaped as
 * sv->nofn_schema (the sink shapes them as the file's, hoodie_svc__to_file_shape, and the base-file writer names
 * the new file: hoodie_basefile_opts.file_name).
 */
hoodie_status hoodie_svc__merge_slice_each(hoodie_svc *sv, const char *partition, const char *base_name,
                                           const char *const *log_names, size_t n_logs, int without_file_name,
                                           hoodie_svc_rows *stats, hoodie_svc_sink sink, void *sink_ctx);
/** Rows of the base file's batches a slice's merge reads (0: the reader's default; for tests). */
extern int64_t hoodie_svc__batch_rows;
/** Receives a base batch (`base`, ownership passes, also on failure) and the merge's selection over srcs (srcs[0]
 *  is the base batch; the others are the log batches, valid until the merge returns, or until the sink returns 1:
 *  it has written every selection it was given and holds none of them). */
typedef hoodie_status (*hoodie_svc_sel_sink)(void *ctx, hoodie_batch *base, const hoodie_batch *const *srcs,
                                             size_t n_srcs, const hoodie_row_ref *sel, size_t n);
/**
 * The streamed merge without _hoodie_file_name (as hoodie_svc__merge_slice_each with without_file_name), the
 * base batches handed to `sel_sink` with their selection instead of merged, the log-only rows after them to `sink`.
 */
hoodie_status hoodie_svc__merge_slice_sel(hoodie_svc *sv, const char *partition, const char *base_name,
                                          const char *const *log_names, size_t n_logs, hoodie_svc_rows *stats,
                                          hoodie_svc_sel_sink sel_sink, hoodie_svc_sink sink, void *sink_ctx);
/** The schema of the batches a merge produces (without_file_name: no _hoodie_file_name column). */
hoodie_status hoodie_svc__merge_schema(hoodie_svc *sv, int without_file_name, const hoodie_field **out);
/** A batch shaped as sv->nofn_schema (`in`, consumed also on failure) as a file_schema batch; its
 *  _hoodie_file_name column is left empty (length 0) for the base-file writer to fill
 *  (hoodie_basefile_opts.file_name). */
hoodie_status hoodie_svc__to_file_shape(hoodie_svc *sv, hoodie_batch *in, hoodie_batch *out);
void hoodie_svc__rows_dispose(hoodie_svc_rows *r);

/** What hoodie_svc__compact_logs did. */
typedef struct hoodie_svc_logc_result {
    int written;              /* 0: no valid block, nothing written */
    uint64_t size;
    int64_t records, deletes; /* in the new file */
    int64_t blocks;
    int64_t log_records;      /* data rows + deletes read */
    size_t instants;          /* blocks' instants replaced */
} hoodie_svc_logc_result;

/**
 * Log compaction of one slice: the blocks of the log files (in apply order) that are valid as of `instant`,
 * folded per record key as the snapshot reader folds them, written to `path` (a new log file) as one delete block
 * and one data block of INSTANT_TIME `instant` whose COMPACTED_BLOCK_TIMES lists the replaced blocks' instants
 * (write/wlog.h); log files larger than sv->o.merge_memory are folded in key-hash partitions, a delete block and a
 * data block each. Records keep their meta columns. With sv->cs_cols, the new file's column statistics go onto
 * sv->log_stats (none when a column's type is not indexable).
 */
hoodie_status hoodie_svc__compact_logs(hoodie_svc *sv, const char *partition, const char *const *log_names,
                                       size_t n_logs, const char *instant, const char *path,
                                       hoodie_svc_logc_result *res);

/** HOODIE_EUNSUPPORTED naming `what` for a table without meta fields (its records carry no keys to merge by). */
hoodie_status hoodie_svc__need_meta_fields(const hoodie_svc *sv, const char *what);
/** Report progress to the caller's callback, if any. */
void hoodie_svc__progress(const hoodie_svc *sv, const char *what, int64_t done, int64_t total);

/** Full path of a file in a partition (malloc). */
char *hoodie_svc__file_path(const hoodie_svc *sv, const char *partition, const char *name);
/** Remove a file; a missing file is fine. */
hoodie_status hoodie_svc__remove(const hoodie_storage *s, const char *path);
/** Remove `in`'s state files (inflight, then requested; or the completed file when completed != 0). */
hoodie_status hoodie_svc__remove_instant_files(hoodie_svc *sv, const hoodie_instant *in, int completed);

/** 1 if (partition, file id) is in a pending compaction, log compaction or clustering plan. */
typedef struct hoodie_svc_pending_fgs {
    char **partitions, **file_ids;
    size_t count;
} hoodie_svc_pending_fgs;
hoodie_status hoodie_svc__pending_file_groups(hoodie_svc *sv, hoodie_svc_pending_fgs *out);
int hoodie_svc__pending_has(const hoodie_svc_pending_fgs *p, const char *partition, const char *file_id);
void hoodie_svc__pending_dispose(hoodie_svc_pending_fgs *p);

#endif
