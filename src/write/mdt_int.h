/*
 * The metadata table writer's parts shared between write/mdt_files.c (keeping it in step: deltacommits,
 * compaction, rollback) and write/mdt_init.c (creating one): layout names, the records of an instant, HFile and
 * transaction helpers. Internal to the write layer.
 */
#ifndef HOODIE_WRITE_MDT_INT_H
#define HOODIE_WRITE_MDT_INT_H

#include "write/mdt.h"
#include "table/mdt.h"
#include "table/timeline.h"
#include "util/arena.h"
#include "util/buf.h"
#include "write/commit.h"

#define MDT_DIR "/.hoodie/metadata"
#define FILES_GROUP "files-0000-0"
#define ALL_PARTITIONS "__all_partitions__"
#define LOG_TOKEN "0-1-0"

#define CS_PART "column_stats"
#define CS_PREFIX "col-stats-"
#define RLI_PART "record_index"
#define RLI_PREFIX "record-index-"
#define SI_PART_PREFIX "secondary_index_"
#define MAX_GROUPS 10000

typedef char group_first[HOODIE_INSTANT_TIME_MAX + 1];

/* The file groups <prefix>0000-0 .. <prefix><n-1>-0 of an MDT partition, each one's earliest file instant (the
 * slice's base before any compaction). */
typedef struct group_set {
    size_t n_groups;
    group_first *first; /* malloc, MAX_GROUPS of them */
} group_set;

/* What the MDT's column_stats partition takes: the columns of its index definition (sourceFields), and its file
 * groups col-stats-0000-0 .. col-stats-<n-1>-0. on = 0: not listed, or not as hoodie keeps it (no definition,
 * another file group layout). */
typedef struct cs_conf {
    int on;
    char **columns;
    size_t n_columns;
    size_t n_groups;
    group_first *first;
} cs_conf;

/* The secondary indexes the MDT keeps (table/mdt.h hoodie_mdt_secondary_indexes, layout V1, on a string or
 * integer column, with the record index kept): each one's partition, column, file id prefix (the partition name
 * with '-' for '_', then '-': secondary-index-name-idx-) and file groups. */
typedef struct si_index {
    char *name;
    char *column;
    char *prefix;
    group_set gs;
} si_index;

typedef struct si_conf {
    si_index *v;
    size_t n;
} si_conf;

/* A change of a secondary index by an instant: its key ("<escaped value>$<escaped record key>") added or removed,
 * and the key's file group. */
typedef struct si_change {
    const char *key;
    uint32_t group;
    int add;
} si_change;

typedef struct si_changes {
    si_change *v;
    size_t n, cap;
} si_changes;

typedef struct fchange {
    char *partition; /* "." for the base path */
    char *name;
    int64_t size;
    int deleted;
} fchange;

typedef struct changes {
    fchange *v;
    size_t n, cap;
    char **parts;    /* partitions for __all_partitions__ */
    size_t n_parts;
    int all_record;  /* write the __all_partitions__ record */
    /* column_stats (when kept): the records of the files written or removed */
    cs_conf *csc;
    const hoodie_storage *s;
    const char *base_path;
    hoodie_arena *a;
    hoodie_mdt_csrec *cs;
    size_t n_cs, cap_cs;
    /* record_index (when kept): keys added or removed; the keys of deletes that may have lost by the ordering
     * field (want_contested: the instant can read the table after it), removed unless the table holds them */
    group_set *rli;
    hoodie_rli_changes rc;
    int want_contested;
    hoodie_rli_changes contested;
    /* secondary indexes (when kept): each one's changes (si->n of them), sorted by group and key */
    si_conf *si;
    si_changes *sic;
} changes;

typedef struct out_file {
    hoodie_buf name, bytes, rel;
} out_file;

/* A change of the record index of an instant: its file group, arrival order, and its key's first 8 bytes as a
 * number that orders as the bytes do (compared first: no pointer chased for most comparisons). */
typedef struct rli_ref {
    uint64_t prefix;
    uint32_t group, seq;
    hoodie_rli_change ch; /* copied: read in sorted order, not chased */
} rli_ref;

/* mdt_conf.c: `name` appended to the malloc'ed array *names (1: out of memory, as a listing callback's stop). */
int hoodie_mdtw__push_name(char ***names, size_t *n, const char *name);
/* The partitions hoodie keeps, as configured for the table of `cfg` (*out NULL: not kept). */
hoodie_status hoodie_mdtw__cs_conf_load(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                        cs_conf **out);
void hoodie_mdtw__cs_conf_dispose(cs_conf *c);
hoodie_status hoodie_mdtw__rli_conf_load(const hoodie_storage *s, const char *base_path,
                                         const hoodie_table_config *cfg, group_set **out);
void hoodie_mdtw__rli_conf_free(group_set *gs);
hoodie_status hoodie_mdtw__si_conf_load(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                        const group_set *rli, si_conf **out);
void hoodie_mdtw__si_conf_free(si_conf *c);

/* The MDT's folder under base_path (malloc). */
char *hoodie_mdtw__mdt_path(const char *base_path);
void hoodie_mdtw__changes_dispose(changes *c);
/* A partition for __all_partitions__, and a file's entry (both "." for the base path). */
hoodie_status hoodie_mdtw__add_part(changes *c, const char *partition);
hoodie_status hoodie_mdtw__add_file(changes *c, const char *partition, const char *name, int64_t size, int deleted);
/* The column statistics of a base file written (its path relative to the base path) onto c. */
hoodie_status hoodie_mdtw__cs_of_written(changes *c, const char *partition, const char *rel);
/* The schema of the MDT's HFiles and log blocks: HoodieMetadataRecord with the meta fields first. */
hoodie_status hoodie_mdtw__schema_with_meta(hoodie_buf *out);
/* HFiles of files-partition records, column_stats records and record index entries (`file_name`: a base file's,
 * NULL for a log block's). */
hoodie_status hoodie_mdtw__build_hfile(changes *c, const hoodie_buf *schema, const char *file_name, hoodie_buf *out,
                                       int64_t *records);
hoodie_status hoodie_mdtw__build_cs_hfile(const hoodie_mdt_csrec *recs, size_t n, const hoodie_buf *schema,
                                          const char *file_name, hoodie_buf *out, int64_t *records);
hoodie_status hoodie_mdtw__build_rli_hfile(const hoodie_mdt_rlirec *recs, size_t n, const hoodie_buf *schema,
                                           const char *file_name, hoodie_buf *out, int64_t *records);
/* The head of a HoodieMetadataRecord value: the meta fields (null, but _hoodie_file_name: `base_file`, a base
 * file's name, or NULL for a log block's record), key "" (the HFile row is the key) and `type`. */
hoodie_status hoodie_mdtw__record_head(hoodie_buf *out, int type, const char *base_file);
/* A DELETE_BLOCK of instant t removing keys[0..n) from MDT partition `part` (the partitionPath of each key). */
hoodie_status hoodie_mdtw__delete_block(hoodie_buf *out, const char *t, const char *part, const char *const *keys,
                                        size_t n);
hoodie_status hoodie_mdtw__build_si_hfile(const char *const *keys, size_t n, const hoodie_buf *schema,
                                          const char *file_name, hoodie_buf *out, int64_t *records);
/* A secondary index value (HoodieMetadataRecord of type 7, SecondaryIndexMetadata {isDeleted}); `base_file`: a
 * base file's name (its records name it), NULL for a log block's. */
hoodie_status hoodie_mdtw__si_encode(hoodie_buf *out, int deleted, const char *base_file);
/* What instant `tx` (completing with `content`) changes in each secondary index of `c`: out[i] for c->v[i], keys in
 * `a`, sorted by (group, key). The file groups it wrote or replaced are read before it and after (through a view in
 * which it completed) with tx->si_read; a record whose value changed has its old key removed and its new one
 * added, a record gone its key removed, a new record its key added. */
hoodie_status hoodie_mdtw__si_changes(const hoodie_write_txn *tx, const si_conf *c, const void *content, size_t len,
                                     hoodie_arena *a, si_changes *out);

/* A change of the record index onto c (partition NULL: the key's removal; strings borrowed). */
hoodie_status hoodie_mdtw__rli_push(hoodie_rli_changes *c, const char *key, const char *partition,
                                    const char *file_id);
/* The keys of c->contested (deletes of instant `tx`, completing with `content`, that may have lost by the
 * ordering field) that the table does not hold after it (their file groups read through a view in which it
 * completed), removed from the record index (onto c->rc). */
hoodie_status hoodie_mdtw__rli_contested(const hoodie_write_txn *tx, changes *c, const void *content, size_t len);

/* The record index's changes by file group (of n_groups): *idx their indices, each group's in arrival order, and
 * *end (n_groups) where each group's end in *idx (both malloc). */
hoodie_status hoodie_mdtw__rli_by_group(const hoodie_rli_changes *c, size_t n_groups, uint32_t **idx, size_t **end);
/* Group g's changes (indices idx[0..n)) sorted by key, then arrival (malloc; NULL: out of memory). */
rli_ref *hoodie_mdtw__rli_group_refs(const hoodie_rli_changes *c, const uint32_t *idx, size_t n, size_t g);

/* Record index locations: the same bytes for every key of a file group (one instant per file group in a log or
 * an initialization), so encoded once per (partition, file id) strings (the keys of one file share their
 * pointers), found by an open-addressing table on the pointers. Zero-initialised; free(tab) after. */
typedef struct hoodie_mdtw_ri_memo {
    struct { const char *fid, *part; size_t off, len; } *tab;
    size_t cap, used;
} hoodie_mdtw_ri_memo;
/** The bytes of (partition, file_id)'s location at t_ms in ri (*off, *len), encoded into ri on first sight. */
hoodie_status hoodie_mdtw__ri_of(hoodie_mdtw_ri_memo *m, hoodie_buf *ri, const char *partition, const char *file_id,
                                 int64_t t_ms, size_t *off, size_t *len);
int hoodie_mdtw__rli_same_key(const rli_ref *x, const rli_ref *y);

/** fn(ctx, i) for every i in [0, n), on two threads (this one and a helper taking every other i; this one alone
 *  when no thread starts): for independent work on file groups. The first failure (by i) is raised again on this
 *  thread. */
hoodie_status hoodie_mdtw__run2(size_t n, hoodie_status (*fn)(void *ctx, size_t i), void *ctx);
/* A transaction over instant `time` of `action` on the MDT at `mdt` (its requested file written). */
hoodie_status hoodie_mdtw__mdt_begin(hoodie_write_txn *tx, const hoodie_storage *s, const char *mdt,
                                     const hoodie_table_config *mc, const char *time, hoodie_action action,
                                     const void *content, size_t len);
/* A file of an MDT partition (or of files) written after its marker; *rel: its path relative to the MDT. */
hoodie_status hoodie_mdtw__put_part_file(hoodie_write_txn *tx, const char *mdt, const char *part, const char *name,
                                         const hoodie_buf *bytes, hoodie_marker_type marker, hoodie_buf *rel);
hoodie_status hoodie_mdtw__put_file(hoodie_write_txn *tx, const char *mdt, const char *name, const hoodie_buf *bytes,
                                    hoodie_marker_type marker, hoodie_buf *rel);
void hoodie_mdtw__out_file_dispose(out_file *o);

#endif
