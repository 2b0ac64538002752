/*
 * The metadata table (MDT, <base>/.hoodie/metadata) of a table hoodie writes to.
 *
 * A table whose hoodie.properties lists MDT partitions tells readers (Spark, Trino) to list its files from the MDT
 * (and to look keys up in its record index, prune by its column statistics, ...). Whatever hoodie changes must
 * then be in the MDT too, or those readers miss files hoodie wrote and still list files its cleaner removed.
 *
 * Kept: the "files" partition of a version 8 table, Spark's or created by hoodie_write__mdt_init
 * (hoodie_write__mdt_prepare keeps it when the MDT is as Hudi 1.x lays it out: hoodie.properties of version 8, HFILE base files, one file group files-0000-0). Every instant that
 * adds or removes files applies the same change to it before its own commit point, as Hudi's
 * HoodieBackedTableMetadataWriter does (hoodie_write__mdt_apply, from write/commit.c): a deltacommit of the same
 * instant time on the MDT's timeline whose log file .files-0000-0_<T>.log.1_0-1-0 holds one HFILE_DATA_BLOCK of
 * HoodieMetadataRecords (the partitions touched, each partition's files with their sizes; a clean's deleted files
 * as tombstones). A rolled-back instant is rolled back on the MDT too (its deltacommit and log file removed,
 * hoodie_write__mdt_rollback); when it can no longer be (an MDT compaction after it), and for a restore, the MDT
 * is disabled as below. The column_stats partition is kept too when its index definition (index.json, version V1)
 * names its columns and its file groups are col-stats-NNNN-0 (mdt_colstats.c): the same deltacommit adds a log
 * file per file group it reaches, with the statistics of every base file the instant wrote (from their footers) and
 * the statistics of the log files its append handles or a log compaction wrote (hoodie_write_txn.log_stats, from the
 * rows written), and tombstones of the files a clean removed; other log files (partial updates', the LSM layout's)
 * get none (readers do not prune a file without statistics).
 * The record_index partition is kept (mdt_rli.c) for tables whose keys hoodie sees in its files, and with it the
 * secondary indexes of layout V1 on a string or integer column (mdt_si.c): a write's deltacommit has a log per
 * file group of each index whose entries changed (a DELETE_BLOCK of the old "<value>$<key>" keys, an
 * HFILE_DATA_BLOCK of the new), found as Hudi 1.0 finds them, by reading the file groups the write touched before
 * it and after it (hoodie_write_txn.si_read, from the layer above); the table services change no value and write
 * none. Other MDT partitions (expression indexes, partition_stats, bloom_filters, secondary indexes hoodie cannot
 * render values of) are dropped from hoodie.table.metadata.partitions and their folders removed, as Hudi drops an
 * index: a stale index would mislead Spark's readers and writers. Readers see an MDT deltacommit only once the table's own instant completed (table/mdt.h), so a
 * crash between the two leaves the table as it was; the recovery that rolls the instant back rolls the MDT's back.
 * Every hoodie.metadata.compact.max.delta.commits (10) deltacommits, instant T first compacts the files partition
 * and the index partitions' file groups
 * (a compaction instant after every time on both timelines, as Hudi 1.x picks it: plan, base HFile with the
 * merged listing, its bloom filter and min/max keys, commit), as Hudi compacts before the deltacommit that is due; not while the MDT has a pending instant or the table a pending
 * instant with an MDT deltacommit. T's recovery also removes a compaction requested after T left pending. After a compaction,
 * the files of the slices before the one it compacted are removed (no clean instant is written for them).
 *
 * Disabled (table version 6, an MDT in another layout, partitions being built, hoodie_write__mdt_drop): as a Hudi
 * writer running with hoodie.metadata.enable=false does (HoodieTableMetadataUtil.deleteMetadataTable): first
 * hoodie.table.metadata.partitions and hoodie.table.metadata.partitions.inflight are emptied
 * (HoodieTableConfig.clearMetadataPartitions), through Hudi's update protocol (hoodie.properties.backup written,
 * hoodie.properties removed and written anew, the backup removed), then the .hoodie/metadata folder is removed.
 *
 * Crash safety: once hoodie.properties lists no partitions readers list files themselves; a crash before the folder
 * is gone leaves a folder the next writer removes; a crash in the middle of the update leaves the backup, which
 * readers fall back to (table/config.h) and the next writer completes the update from.
 */
#ifndef HOODIE_WRITE_MDT_H
#define HOODIE_WRITE_MDT_H

#include "hoodie/sys/storage.h"
#include "table/config.h"
#include "util/buf.h"

/**
 * Disable the metadata table of the table at `base_path` (config `cfg`, as loaded) if it has one: MDT partitions
 * listed, or a .hoodie/metadata folder present. *changed (may be NULL) is set to 1 if hoodie.properties was
 * rewritten (the caller reloads its config).
 */
hoodie_status hoodie_write__drop_metadata_table(const hoodie_storage *s, const char *base_path,
                                                const hoodie_table_config *cfg, int *changed);

/** hoodie.properties with hoodie.table.metadata.partitions set to `value` and the inflight ones emptied (Hudi's
 *  update protocol: backup, remove, write, remove the backup). */
hoodie_status hoodie_write__set_mdt_partitions(const hoodie_storage *s, const char *base_path,
                                               const hoodie_table_config *cfg, const char *value);
/** The same, one more key set in the same update (key NULL: none). */
hoodie_status hoodie_write__set_mdt_partitions_with(const hoodie_storage *s, const char *base_path,
                                                    const hoodie_table_config *cfg, const char *value,
                                                    const char *key, const char *key_value);

/**
 * Before a change to the table's files: keep the MDT's files partition (dropping the other partitions), or
 * disable the MDT (see above). *changed as for hoodie_write__drop_metadata_table.
 */
hoodie_status hoodie_write__mdt_prepare(const hoodie_storage *s, const char *base_path,
                                        const hoodie_table_config *cfg, int *changed);

/** What commits on a table with config `cfg` do to its MDT: 0 nothing, 1 apply their changes to the files
 *  partition, 2 disable the MDT (it lists partitions hoodie does not keep: hoodie_write__mdt_prepare did not run). */
int hoodie_write__mdt_mode(const hoodie_table_config *cfg);

struct hoodie_write_txn;
/**
 * Apply what the instant of `tx` (about to complete with `content`, its completed file) changes to the MDT's files
 * partition: a commit's, deltacommit's or replacecommit's written files, a clean's deleted files, a rollback's
 * rolled-back instants (hoodie_write__mdt_rollback). Other actions change nothing.
 */
hoodie_status hoodie_write__mdt_apply(const struct hoodie_write_txn *tx, const void *content, size_t len);

/**
 * Roll back the MDT's deltacommit of `instant` (any state), before the table's rollback of it completes: its
 * completed file, then its log files, markers, inflight and requested files are removed. When an MDT compaction
 * came after it, the MDT is disabled instead. Nothing to do without a kept MDT or without such a deltacommit.
 */
hoodie_status hoodie_write__mdt_rollback(const hoodie_storage *s, const char *base_path,
                                         const hoodie_table_config *cfg, const char *instant);

/**
 * Create the metadata table of a version 8 table that has none (under the table lock, with no pending instant):
 * its hoodie.properties, deltacommit 00000000000000000 with a base HFile of the files partition listing every data
 * file storage has; when the table has a schema, column_stats as Hudi 1.x has it by default: an index definition
 * (index.json, written unless the table has one: the three meta columns Hudi always indexes and the first 32 data
 * columns of indexable types), deltacommit 00000000000000001 with a base HFile per file group (2) holding every
 * base file's statistics (log files get none); then hoodie.table.metadata.partitions=files or column_stats,files
 * (and hoodie.table.index.defs.path) in one update. *files (may be NULL): the files listed.
 * @return HOODIE_OK; HOODIE_EEXISTS (it has one); HOODIE_ESTATE (a pending instant); HOODIE_EUNSUPPORTED
 *         (another version); storage errors (a crash leaves a folder the next writer removes).
 */
hoodie_status hoodie_write__mdt_init(const hoodie_storage *s, const char *base_path, int64_t *files);

struct hoodie_rli_changes;
struct hoodie_timeline;
#define HOODIE_TIMELINE_MARK_MAX 64
/** What a timeline has completed (the count of completed instants and the latest time), to tell whether a table
 *  changed between two looks. */
void hoodie_write__timeline_mark(const struct hoodie_timeline *tl, char out[HOODIE_TIMELINE_MARK_MAX]);
/**
 * hoodie_write__mdt_init, with a record index too when `keys` is not NULL: every live key of the table (its
 * partition and file group; read through a snapshot of the table whose timeline had `mark`, which must still be
 * the table's under the lock: HOODIE_ECONFLICT otherwise), in Hudi's estimate of file groups (10 up to 111M keys),
 * a base HFile each, instant 00000000000000002 (00000000000000001 without column_stats). Tables without meta
 * fields, with a bucket index or the LSM layout: HOODIE_EUNSUPPORTED.
 */
hoodie_status hoodie_write__mdt_init_with(const hoodie_storage *s, const char *base_path, int64_t *files,
                                         const struct hoodie_rli_changes *keys, const char *mark);

/** A secondary index to create with the metadata table: its partition (and index) name
 *  ("secondary_index_<name>"), its column, and its keys ("<escaped value>$<escaped record key>", table/mdt.h), one
 *  per record with a non-null value, any order. */
typedef struct hoodie_si_init {
    const char *name;
    const char *column;
    const char *const *keys;
    size_t n;
} hoodie_si_init;
/**
 * hoodie_write__mdt_init_with, and secondary indexes si[0..n_si) (they need `keys`, the record index): each one's
 * definition added to the index definitions file, a deltacommit each (00000000000000003, ... after the record
 * index's) with a base HFile per file group (as many as the record index gets for as many keys), listed in
 * hoodie.table.metadata.partitions with the others. The keys must come from the same snapshot as `keys`.
 */
hoodie_status hoodie_write__mdt_init_indexes(const hoodie_storage *s, const char *base_path, int64_t *files,
                                            const struct hoodie_rli_changes *keys, const char *mark,
                                            const hoodie_si_init *si, size_t n_si);

/** The metadata table's hoodie.properties text for the table named `name` (appended to out). */
hoodie_status hoodie_write__mdt_props(hoodie_buf *out, const char *name);

/* Deltacommits since the last compaction of the files partition that make the next commit compact it first
 * (hoodie.metadata.compact.max.delta.commits, 10; tests lower it). */
extern int hoodie_write__mdt_compact_after;

struct hoodie_mdt_listing;
/** The base HFile of the files partition holding `l` (as a compaction writes it, named `file_name`). */
hoodie_status hoodie_write__mdt_base_hfile(const struct hoodie_mdt_listing *l, const char *file_name,
                                           hoodie_buf *out);

/* The MDT's record schema without the meta fields (deltacommits' extraMetadata) and the meta fields its HFiles
 * and log blocks put first (mdt_schema.c). */
extern const char hoodie_write__mdt_schema[];
extern const char hoodie_write__mdt_meta_fields[];

/* ---- the column_stats partition (mdt_colstats.c) ---- */

struct hoodie_mdt_csrec;
struct hoodie_arena;
/** The key of the statistics of `column` of file `file_name` in `partition` ("." for the base path): HashID's
 *  base64 of XXH64(column), XXH64(partition) (seed 0xdabadaba) and MD5(file name), as Hudi keys them. */
hoodie_status hoodie_write__cs_key(hoodie_buf *out, const char *column, const char *partition, const char *file_name);

/**
 * The column statistics of the base file at `path` (in `partition`, "." for the base path) for `columns`, from its
 * Parquet footer as Hudi reads them (the row groups' bounds, null and value counts, compressed and uncompressed
 * sizes): one record per column the file has, onto *recs (arena `a`). *n is 0 when the file cannot be indexed
 * whole (a column of a type Hudi's index does not take, a row group without statistics): it is then left out,
 * which readers take as "not indexed" (never pruned).
 */
hoodie_status hoodie_write__cs_of_base_file(const hoodie_storage *s, const char *path, const char *partition,
                                            const char *const *columns, size_t n_columns, struct hoodie_arena *a,
                                            struct hoodie_mdt_csrec **recs, size_t *n);

/** The column_stats partition hoodie keeps of the table: its index definition's columns (*columns: malloc'd, each
 *  malloc'd) and its number of file groups. @return HOODIE_OK; HOODIE_ENOTFOUND (none kept). */
hoodie_status hoodie_write__cs_layout(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                     char ***columns, size_t *n_columns, size_t *n_groups);

/** The base HFile of a column_stats file group holding recs[0..n) (sorted by key; tombstones left out), as a
 *  compaction writes it, named `file_name`. */
hoodie_status hoodie_write__cs_base_hfile(const struct hoodie_mdt_csrec *recs, size_t n, const char *file_name,
                                          hoodie_buf *out);

struct hoodie_field;
struct hoodie_array;
struct hoodie_type;
/** 1 if the column_stats index takes columns of type t (a wrapper holds their values). */
int hoodie_write__cs_type_ok(const struct hoodie_type *t);
/**
 * The statistics of `column` over the n records a log file holds, as Hudi's append handle collects them: bounds of
 * the values a[rows[i]] (rows NULL: a[i]; constant: a[0] for every record), valueCount n, the nulls counted,
 * sizes 0. n = 0 (a log of deletes only): no bounds, counts 0. *ok is 0 when the column's type is not one the
 * index takes (the file is then left out whole).
 */
hoodie_status hoodie_write__cs_of_values(const char *column, const struct hoodie_field *f, const struct hoodie_array *a,
                                         const int64_t *rows, int constant, size_t n, const char *partition,
                                         const char *file_name, struct hoodie_arena *ar, struct hoodie_mdt_csrec *out,
                                         int *ok);

/** The columns a kept column_stats partition indexes (*cols malloc'd, each malloc'd; none when the table's
 *  metadata table keeps no column_stats): what writers collecting log files' statistics need. */
hoodie_status hoodie_write__cs_columns(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                       char ***cols, size_t *n);

/** Append *r to the growing array (*v, *n, *cap). */
hoodie_status hoodie_write__cs_push(struct hoodie_mdt_csrec **v, size_t *n, size_t *cap,
                                    const struct hoodie_mdt_csrec *r);

/** A HoodieMetadataRecord of type 3 holding `r` (Avro binary; `base_file`: the MDT base file it goes into, whose
 *  name the record's _hoodie_file_name holds, or NULL for a log block). */
hoodie_status hoodie_write__cs_encode(hoodie_buf *out, const struct hoodie_mdt_csrec *r, const char *base_file);

/* ---- the record_index partition (write/mdt_rli.c) ---- */

struct hoodie_mdt_rlirec;

/** Instant time `instant` (yyyyMMddHHmmss[SSS]) in epoch milliseconds, read in UTC or local time (the timeline's
 *  time zone), as HoodieActiveTimeline.parseDateFromInstantTime; -1 when it is not one. */
int64_t hoodie_write__instant_ms(const char *instant, int utc);
/** HoodieRecordIndexInfo's Avro binary for a record in file group `file_id` of `partition` ("" for the base path),
 *  added by the instant of epoch ms `ms` (hoodie_write__instant_ms): file id encoding 0 (UUID bits and index) for "<UUID>-<n>" ids, else 1 (the id as is). */
hoodie_status hoodie_write__rli_info(hoodie_buf *out, const char *partition, const char *file_id, int64_t ms);
/** A record index HoodieMetadataRecord (type 5) around `ri`; `base_file`: the base HFile's name its records carry,
 *  NULL in a log block. */
hoodie_status hoodie_write__rli_encode(hoodie_buf *out, const uint8_t *ri, size_t ri_len, const char *base_file);
/** A DELETE_BLOCK of instant `t` removing keys[0..n) from the record index (HoodieMetadataPayload's deletes:
 *  partition "record_index", ordering value int 0; the records' schema in the header). */
hoodie_status hoodie_write__rli_delete_block(hoodie_buf *out, const char *t, const char *const *keys, size_t n);
/** *kept: 1 when the table has a record_index partition hoodie keeps (listed, file groups record-index-NNNN-0, a
 *  table with meta fields, no bucket index or LSM layout), which its next write keeps too. */
hoodie_status hoodie_write__rli_kept(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                     int *kept);

/** A change of the record index: key added in (partition, file_id), or removed (partition NULL). */
typedef struct hoodie_rli_change {
    const char *key, *partition, *file_id;
} hoodie_rli_change;

typedef struct hoodie_rli_changes {
    hoodie_rli_change *v;
    size_t n, cap;
} hoodie_rli_changes;

struct hoodie_commit_meta;
struct hoodie_timeline;
/**
 * What the commit `m` changes in the record index, appended to c (strings in `a`), as Hudi 1.x derives it from
 * the files written (BaseFileRecordParsingUtils): a base file's keys that its previous version (prevBaseFile) did
 * not have are added, the ones it lost removed (a new file group: all added); a log file's DELETE_BLOCK keys
 * removed; its data blocks update keys in place, but a key the index does not hold (an earlier log deleted it and
 * the bloom index found it in the base file still: Spark's index stays without it) is added back. `moved`
 * (clustering): every key of the new base files is added at its new location, log files aside. `located`: the
 * writer found its updates' keys in the index (no key is put back). `tl`: the table's timeline (which of the
 * index's blocks count). A replace that overwrites file groups (insert_overwrite[_table], delete_partition:
 * partitionToReplaceFileIds, not clustering) removes every key the index holds in them (the index read whole:
 * Hudi reads the replaced partitions' base files instead, missing keys that live in log files only); a key the
 * same commit writes again is added (the record index log takes a key's addition over its removal).
 * `contested` (NULL: removed like the others): the keys of DELETE_BLOCKs whose ordering value is not the natural
 * one (absent or 0), which lose to a stored record with a greater ordering value under event-time ordering (the
 * snapshot keeps the record): the caller removes those the table does not hold after the commit. Hudi removes
 * them all, leaving a live record out of its index (the next upsert of the key would insert a duplicate).
 */
hoodie_status hoodie_write__rli_changes(hoodie_rli_changes *c, const hoodie_storage *s, const char *base_path,
                                        const struct hoodie_timeline *tl, const struct hoodie_commit_meta *m,
                                        int moved, int located, struct hoodie_arena *a,
                                        hoodie_rli_changes *contested);

/** A compaction's base HFile of record index entries (sorted by key), as HoodieAvroHFileWriter writes it. */
hoodie_status hoodie_write__rli_base_hfile(const struct hoodie_mdt_rlirec *recs, size_t n, const char *file_name,
                                           hoodie_buf *out);

#endif
