/*
 * The write client's shared state (write/writer.c: the phases of one write; write/windex.c: the index lookup that
 * finds the file group of each updated or deleted key). Internal to those two files.
 */
#ifndef HOODIE_WRITE_WRITER_INT_H
#define HOODIE_WRITE_WRITER_INT_H

#include "hoodie/writer.h"
#include "format/avro/json.h"
#include "format/avro/schema.h"
#include "format/bloom.h"
#include "model/arrow.h"
#include "model/avro.h"
#include "model/build.h"
#include "model/conform.h"
#include "merge/record_merge.h"
#include "storage/storage.h"
#include "table/bucket.h"
#include "table/commit_meta.h"
#include "table/file_name.h"
#include "table/keygen.h"
#include "table/mdt.h"
#include "table/pqfile.h"
#include "table/pqwrite.h"
#include "table/table.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hash.h"
#include "write/basefile.h"
#include "write/basefile_stream.h"
#include "write/client.h"
#include "write/commit.h"
#include "write/keysort.h"
#include "write/lock.h"
#include "write/mdt.h"
#include "write/rgcopy.h"
#include "write/commit_encode.h"
#include "write/conflict.h"
#include "write/create.h"
#include "write/lsm_write.h"
#include "write/rollback.h"
#include "write/wlog.h"
#include "write/wschema.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SMALL_FILE (100ll << 20)
#define DEFAULT_MAX_FILE (120ll << 20)
#define DEFAULT_RECORD_SIZE 1024

typedef struct rowvec { int64_t *v; size_t n, cap; } rowvec;

typedef struct wgroup {
    uint32_t part;                  /* partition index */
    char file_id[80];
    const hoodie_file_group *existing;  /* NULL: a new file group */
    const hoodie_file_slice *slice; /* its latest slice */
    int64_t base_rows;              /* rows of the existing base file */
    uint64_t base_size;
    rowvec updates;                 /* input rows whose key is in the group (updates, deletes) */
    rowvec inserts;                 /* input rows inserted into the group */
    int ordinal;                    /* task number for write tokens and sequence numbers */
} wgroup;

typedef struct wctx {
    hoodie_table *t;
    const hoodie_storage *s;
    hoodie_write_opts o;
    const hoodie_table_config *cfg;
    int mor, replace;
    hoodie_action action;
    const char *op_name;
    hoodie_field data_schema;       /* table columns (no meta) */
    hoodie_field file_schema;       /* meta + table columns */
    int have_schemas;
    /* schema on read (table/evo.h): the write's new columns and widened ones (nested fields by their paths), a new
     * schema version at commit */
    hoodie_evo_change *evo_ch;
    size_t n_evo_ch, cap_evo_ch;
    char **evo_paths;               /* the nested changes' paths (malloc), n_evo_ch of them at most */
    hoodie_batch in;                /* input, conformed to data_schema (deletes: as given) */
    int have_in;
    hoodie_keygen_plan kg;
    int have_kg;
    int no_meta;                    /* hoodie.populate.meta.fields=false: keys from the key fields (COW only) */
    int trace;                      /* HOODIE_TRACE_WRITE set: each phase's wall time on stderr */
    double trace_at;                /* when the last phase ended (CLOCK_MONOTONIC seconds) */
    double trace_cpu;               /* this thread's CPU time then (seconds) */
    double trace_handle[4];         /* the files phase's seconds by handle: create/bulk, merge, append, LSM */
    int trace_handles[4];           /* and how many of each ran */
    hoodie_keygen_plan kg_file;     /* no_meta: the key generator on file_schema, for the records of base files */
    int have_kg_file;
    hoodie_keygen_out keys, parts;
    uint8_t *del;                   /* per input row: a delete */
    rowvec live;                    /* rows kept after combining */
    int ord_col;                    /* ordering column in `in` (hoodie_table_ordering_field), -1 */
    int n_more_ord;                 /* version 9's further ordering fields (compared on a tie): their columns in */
    int more_ord[HOODIE_ORDERING_FIELDS_MAX]; /* `in` (-1 when absent); in file records, 5 columns later */
    int more_ord_file[HOODIE_ORDERING_FIELDS_MAX];
    hoodie_fill_spec fill_in;       /* partial updates: what a combined input record takes from another */
    hoodie_fill_spec fill_file;     /* and a merged file record (also the Postgres payload's TOASTed values) */
    /* partial updates (hoodie_write_opts.partial_updates, an input without some columns): absent[c], per column
     * of file_schema, 1 where the input has none; the merge handle's records of input rows (fresh) take the stored
     * values there (fill_file.absent_of); MOR log blocks hold the other columns only (partial_schema, its Avro
     * JSON, and per column of it the file_schema column) */
    uint8_t *absent;
    const hoodie_batch *fresh;
    hoodie_field partial_schema;
    int have_partial_schema;
    char *partial_avro;
    int *partial_col;
    hoodie_merge_policy policy;     /* the Debezium payloads' sequence ordering and TOASTed values */
    char **part_names;              /* distinct partitions of the live rows */
    size_t n_parts;
    uint32_t *row_part;             /* partition index per input row */
    hoodie_fsview *view;
    wgroup *groups;
    size_t n_groups, cap_groups;
    int64_t record_size;            /* estimated bytes per record */
    hoodie_write_txn tx;
    int tx_started;
    hoodie_wstat *stats;
    size_t n_stats, cap_stats;
    hoodie_arena *arena;            /* strings of the stats */
    /* the MDT's column_stats (write/mdt.h), when kept: its columns; the statistics of the log files written */
    char **cs_cols;
    size_t n_cs_cols;
    struct hoodie_mdt_csrec *log_stats;
    size_t n_log_stats, cap_log_stats;
    char *avro_data_schema;         /* extraMetadata.schema */
    char *avro_file_schema;         /* parquet.avro.schema, log block SCHEMA */
    hoodie_replaced_file_ids *replaced;
    size_t n_replaced;
    hoodie_write_result res;
    int pending_loaded;              /* v6: pending compactions read */
    char **pending_ids, **pending_instants; /* arena strings; the arrays are malloc */
    size_t n_pending;
    char **clus_ids, **clus_instants; /* file groups of pending clustering plans (arena strings, malloc arrays) */
    size_t n_clus;
    /* hoodie.index.type=RECORD_INDEX: the location of each live row's key (w->live's order; strings in arena),
     * found before the file-system view (hoodie_wr__rli_locate), turned into file groups by the lookup */
    struct hoodie_mdt_location *rli_locs;
    const hoodie_write_hooks *hooks; /* NULL: none */
    size_t row_cap;                 /* the per-row arrays' room (keys' offsets, row_part, del): row_cap + 1 rows */
} wctx;

static inline hoodie_status rv_push(rowvec *r, int64_t x)
{
    if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 64;
        int64_t *p = realloc(r->v, nc * sizeof *p);
        if (!p) return HOODIE_NOMEM();
        r->v = p;
        r->cap = nc;
    }
    r->v[r->n++] = x;
    return HOODIE_OK;
}

static inline const char *key_at(const hoodie_keygen_out *k, int64_t row, size_t *len)
{
    *len = (size_t)(k->offsets[row + 1] - k->offsets[row]);
    return (const char *)k->data.data + k->offsets[row];
}

/*
 * A bit per hash value (16 bits a key) in front of a hash map of a few keys that most probes miss (a file's keys
 * against the input rows that may be in it): one bit test, in L1, turns most probes away before the map's.
 */
typedef struct keybits { uint64_t *w; uint32_t mask; } keybits;

/** Bits for n keys (16 a key), zeroed; free(b->w). */
hoodie_status hoodie_wr__keybits_init(keybits *b, size_t n);


static inline void keybits_add(keybits *b, uint32_t h) { h &= b->mask; b->w[h >> 6] |= (uint64_t)1 << (h & 63); }
static inline int keybits_may(const keybits *b, uint32_t h) { h &= b->mask; return (int)(b->w[h >> 6] >> (h & 63)) & 1; }

/** Index of partition path p among the live rows' partitions, or -1. */
int hoodie_wr__part_index(const wctx *w, const char *p);
/** A new group (existing: the file group it writes into; NULL: a new file group); NULL on ENOMEM. */
wgroup *hoodie_wr__new_group(wctx *w, uint32_t part, const hoodie_file_group *existing);
/** The keys of input rows `rows` -> their index in it, a hash map fronted by a keybits filter (both to dispose). */
hoodie_status hoodie_wr__key_index(const wctx *w, const rowvec *rows, hoodie_hmap *m, keybits *kb);
/**
 * hoodie.index.type=RECORD_INDEX, before the file-system view is read: where the index holds each live row's key.
 * A global index: a key it holds in another partition than the row's is updated (or deleted) in that partition,
 * the row's own ignored (Hudi's hoodie.record.index.update.partition.path=false, its default): the row takes the
 * index's partition (added to part_names), so that the view covers it.
 */
hoodie_status hoodie_wr__rli_locate(wctx *w);
/** Input row `src` with row lr of lb's values where it lacks its own (lb: the input's schema; by `fs`), appended
 *  to the input as a new row (src's key and partition, not a delete), before meta. */
hoodie_status hoodie_wr__fill_row(wctx *w, const hoodie_fill_spec *fs, int64_t src, const hoodie_batch *lb, int64_t lr,
                                  int64_t *row);
/** A copy of input row `src` appended to the input (its key, partition and delete mark too), before meta. */
hoodie_status hoodie_wr__copy_row(wctx *w, int64_t src, int64_t *row);
/** Which existing file group holds each live row's key: row_group[row] is set to its group (w->groups). A global
 *  index moving records appends delete rows to the input: *row_group grows with them. */
hoodie_status hoodie_wr__lookup(wctx *w, int32_t **row_group);

/* The version a row of the input carries for the merge rule: its ordering value (as compared: a MySQL binlog
 * position as two numbers) and whether it deletes. */
static inline void version_of(const wctx *w, int64_t row, hoodie_merge_version *v)
{
    memset(v, 0, sizeof *v);
    v->is_delete = w->del[row];
    if (w->ord_col >= 0)
        hoodie_ordering_of(&v->ord, &w->in.schema.children[w->ord_col], &w->in.root.children[w->ord_col], row);
    if (w->policy.seq_ordering) hoodie_ordering_seq(&v->ord);
    v->n_more = w->n_more_ord;
    v->more_cols = w->more_ord;
    v->more_batch = &w->in;
    v->more_row = row;
}

/* The write token of group g's files ("<task>-<stage>-<attempt>"). */
static inline void write_token(const wgroup *g, char *out, size_t cap)
{
    snprintf(out, cap, "%d-1-%d", g->ordinal, g->ordinal);
}

/* Inserts into a small file keep its row groups of at least this many rows or bytes (uncompressed) as they are; the
 * smaller ones at its end are written again with the inserts (internal: tests lower them). */
extern int64_t hoodie_wr__keep_rg_rows, hoodie_wr__keep_rg_bytes;

/* The handles (whandles.c): each writes a file group's files and records their statistics. */
hoodie_status hoodie_wr__create_handle(wctx *w, wgroup *g);
hoodie_status hoodie_wr__bulk_handle(wctx *w, size_t gi);
/* bulk_insert streamed: the input's batches into new file groups, begun and made inflight here (the schema, key
 * generator and record size estimate are set up by the caller). */
hoodie_status hoodie_wr__bulk_stream(wctx *w, hoodie_arrow_reader *r);
hoodie_status hoodie_wr__merge_handle(wctx *w, wgroup *g);
hoodie_status hoodie_wr__append_handle(wctx *w, wgroup *g);
hoodie_status hoodie_wr__lsm_append_handle(wctx *w, wgroup *g);
/* Bucket index: every live row goes to its bucket's file group in its partition, no lookup. */
hoodie_status hoodie_wr__bucket_assign(wctx *w);

#endif
