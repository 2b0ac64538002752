/*
 * The metadata table's files partition (hudi-format.md section 11): the partitions of a table and the files in
 * each, as Hudi's writers record them, read instead of listing storage.
 *
 * The metadata table (<base>/.hoodie/metadata) is a merge-on-read table of its own: HFile base files and log files
 * of HFILE_DATA_BLOCKs in its partition "files", holding HoodieMetadataRecords (Avro, the schema in the HFile's
 * file info "schema" or the block header): key "__all_partitions__" (type 1) lists the partitions, and a record
 * per partition (type 2, key the partition path, "." for a table without partitions) maps file names to
 * {size, isDeleted}. Records of one key combine as HoodieMetadataPayload does: a newer entry replaces an older
 * one with the larger size, a tombstone removes a live entry (and is kept when there is none), a deleted record
 * (a DELETE_BLOCK's key) drops the record. Blocks count when their instant is a completed instant of the metadata
 * table that the table's own timeline does not hold as pending; rolled-back blocks do not.
 */
#ifndef HOODIE_TABLE_MDT_H
#define HOODIE_TABLE_MDT_H

#include "hoodie/sys/storage.h"
#include "format/parquet/reader.h"
#include "model/batch.h"
#include "table/config.h"
#include "table/timeline.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/hash.h"

typedef struct hoodie_mdt_file {
    const char *name;
    uint64_t size;
} hoodie_mdt_file;

typedef struct hoodie_mdt_partition {
    const char *path;          /* relative; "" for the base path */
    hoodie_mdt_file *files;    /* sorted by name */
    size_t count;
} hoodie_mdt_partition;

typedef struct hoodie_mdt_listing {
    hoodie_arena *arena;
    hoodie_mdt_partition *partitions; /* sorted by path */
    size_t count;
} hoodie_mdt_listing;

/**
 * Read the files partition of the metadata table of the table at base_path, whose timeline is `data_tl`.
 * @return HOODIE_OK; HOODIE_ENOTFOUND (no metadata table, or no files partition in it); HOODIE_ECORRUPT (a file
 *         of it does not parse: the message names it and the offset); HOODIE_EIO; HOODIE_ENOMEM.
 */
/** The statistics of one column of one file (HoodieMetadataColumnStats), merged over its records. */
typedef struct hoodie_mdt_stat {
    int has_min, has_max;     /* bounds hoodie compares: booleans, integers, dates, floating point (no NaN),
                               * strings below U+E000 (where Java's order is the bytes'); else none */
    hoodie_pq_value min, max; /* strings in the map's arena */
    int has_counts;
    int64_t value_count, null_count;
    int deleted;
} hoodie_mdt_stat;

typedef struct hoodie_mdt_colstats {
    hoodie_arena *arena;
    hoodie_hmap map;          /* "file\x01column" -> index into stats */
    hoodie_mdt_stat *stats;
    size_t n, cap;
} hoodie_mdt_colstats;

/**
 * Read the column_stats partition of the metadata table (every file group's latest slice, the blocks that count).
 * @return HOODIE_OK; HOODIE_ENOTFOUND (none); HOODIE_ECORRUPT; ...
 */
hoodie_status hoodie_mdt_column_stats(hoodie_mdt_colstats **out, const hoodie_storage *s, const char *base_path,
                                      const hoodie_timeline *data_tl);
/** The statistics of `column` in the file named `file` (a name, not a path), or NULL when there are none. */
const hoodie_mdt_stat *hoodie_mdt_stat_of(const hoodie_mdt_colstats *cs, const char *file, const char *column);
void hoodie_mdt_colstats_free(hoodie_mdt_colstats *cs);

/** hoodie.table.metadata.partitions (a comma-separated list) lists `partition` ("files", "record_index", ...). */
int hoodie_mdt_listed(const hoodie_table_config *cfg, const char *partition);

/**
 * The latest completed compaction (a commit) on the metadata table's timeline into out ("" when it has none), or
 * the earliest deltacommit requested before it and completed after it (its log is in the compacted slice's
 * successor). Hudi archives no instant of the table from that time on: the metadata table's log blocks of a
 * later instant count only while the instant is on the table's active timeline.
 * @return HOODIE_OK; HOODIE_ENOTFOUND (no metadata table); storage and parse errors.
 */
hoodie_status hoodie_mdt_latest_compaction(const hoodie_storage *s, const char *base_path,
                                          char out[HOODIE_INSTANT_TIME_MAX + 1]);
/** The same from the metadata table's own timeline `tl` (its own instants before it may be archived too). */
void hoodie_mdt_compaction_floor(const hoodie_timeline *tl, char out[HOODIE_INSTANT_TIME_MAX + 1]);

/** Where the record index (partition "record_index") puts a record key. */
typedef struct hoodie_mdt_location {
    int found;                 /* 0: the index does not hold the key (or holds its delete) */
    const char *partition;     /* relative partition path ("" for the base path) */
    const char *file_id;
    int64_t instant_ms;        /* the commit that added it (epoch ms), -1 if absent */
} hoodie_mdt_location;

hoodie_status hoodie_mdt_files(hoodie_mdt_listing **out, const hoodie_storage *s, const char *base_path,
                               const hoodie_timeline *data_tl);
void hoodie_mdt_listing_free(hoodie_mdt_listing *l);

/**
 * Look record keys up in the record index: key i's file group is String.hashCode(key) mod the number of the
 * index's file groups (Hudi's mapRecordKeyToFileGroupIndex); its latest slice's HFiles are looked up (the base
 * file, then the log blocks that count, a later one replacing an earlier; a DELETE_BLOCK removes the key).
 * locs[i] (n_keys of them) receive the locations; strings in `a`.
 * @return HOODIE_OK; HOODIE_ENOTFOUND (no metadata table or no record_index partition); HOODIE_ECORRUPT; ...
 */
hoodie_status hoodie_mdt_record_index(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                      const char *const *keys, size_t n_keys, hoodie_arena *a,
                                      hoodie_mdt_location *locs);

/* ---- column_stats records, whole (for the metadata table's compaction) ---- */

/** The branches of HoodieMetadataColumnStats.minValue/maxValue (HoodieMetadata.avsc's order). */
enum {
    HOODIE_CS_NULL = 0, HOODIE_CS_BOOLEAN, HOODIE_CS_INT, HOODIE_CS_LONG, HOODIE_CS_FLOAT, HOODIE_CS_DOUBLE,
    HOODIE_CS_BYTES, HOODIE_CS_STRING, HOODIE_CS_DATE, HOODIE_CS_DECIMAL, HOODIE_CS_TIME_MICROS,
    HOODIE_CS_TIMESTAMP_MICROS, HOODIE_CS_LOCAL_DATE, HOODIE_CS_WRAPPERS
};

/** A bound: its wrapper (HOODIE_CS_*) and the wrapper's `value` as Avro binary. */
typedef struct hoodie_mdt_csval {
    int wrapper;
    const uint8_t *bytes;
    size_t len;
} hoodie_mdt_csval;

/** One HoodieMetadataColumnStats record under its key; counts are HOODIE_CS_NO_COUNT when null (a tombstone's are
 *  -1, as HoodieColumnRangeMetadata.stub makes them). */
#define HOODIE_CS_NO_COUNT INT64_MIN
typedef struct hoodie_mdt_csrec {
    const char *key, *file, *column;
    hoodie_mdt_csval min, max;
    int64_t value_count, null_count, total_size, total_uncompressed_size;
    int deleted, tight;
} hoodie_mdt_csrec;

/** The wrapper named `name` (a record name, namespace or not), or -1. */
int hoodie_mdt_cs_wrapper(const char *name);
/** Two bounds of one wrapper compared as Java compares the wrapped values (<0, 0, >0). */
int hoodie_mdt_csval_cmp(const hoodie_mdt_csval *a, const hoodie_mdt_csval *b);
/** HoodieMetadataPayload.mergeColumnStatsRecords: `newer` over `older` (a tombstone on either side: newer; else
 * the wider range and the counts added), into *older. */
void hoodie_mdt_cs_merge(hoodie_mdt_csrec *older, const hoodie_mdt_csrec *newer);

/**
 * The records of file group `file_id` of the column_stats partition (its latest slice, the blocks that count),
 * merged by key and sorted by it, tombstones included; strings and bytes in `a`.
 * @return HOODIE_OK; HOODIE_ENOTFOUND (no such partition or file group); HOODIE_EUNSUPPORTED (a bound of a
 *         wrapper this does not know); HOODIE_ECORRUPT; ...
 */
hoodie_status hoodie_mdt_cs_group(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                  const char *file_id, hoodie_arena *a, hoodie_mdt_csrec **out, size_t *n);

/* ---- record_index records, whole (for the metadata table's compaction) ---- */

/** A record index entry under its key: HoodieRecordIndexInfo's Avro binary (the record, no union branch). */
typedef struct hoodie_mdt_rlirec {
    const char *key;
    const uint8_t *ri;
    size_t ri_len;
    int live;           /* 0: deleted */
    int in;             /* hoodie_mdt_rli_keys_in only: held in one of the file groups asked about */
} hoodie_mdt_rlirec;

/**
 * The live entries of file group `file_id` of the record_index partition (its latest slice, the blocks that
 * count; a later entry of a key replaces an earlier one, a DELETE_BLOCK removes it), sorted by key, in `a`.
 * *n_seen: the keys its slice had at all, deleted ones included (Hudi's compaction writes no base file for a
 * slice that had none).
 * @return HOODIE_OK; HOODIE_ENOTFOUND (no such partition or file group); HOODIE_ECORRUPT; ...
 */
hoodie_status hoodie_mdt_rli_group(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                   const char *file_id, hoodie_arena *a, hoodie_mdt_rlirec **out, size_t *n,
                                   size_t *n_seen);

/** How many keys the record index holds (live entries of every file group's latest slice). */
hoodie_status hoodie_mdt_rli_live(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                  size_t *n);

/**
 * The keys the record index puts in any of the n_groups data file groups (parts[i], file_ids[i]; "" for the base
 * path): every file group of the index read (its latest slice), its live entries' locations compared. *keys (an
 * array to free; the strings in `a`) and *n_keys.
 * @return HOODIE_OK; HOODIE_ENOTFOUND (no metadata table or no record_index partition); HOODIE_ECORRUPT; ...
 */
hoodie_status hoodie_mdt_rli_keys_in(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                    const char *const *parts, const char *const *file_ids, size_t n_groups,
                                    hoodie_arena *a, const char ***keys, size_t *n_keys);

/** The file group of `key` among n (Hudi's mapRecordKeyToFileGroupIndex). */
size_t hoodie_mdt_key_group(const char *key, size_t n);

/* ---- secondary indexes (partitions secondary_index_<name>, Hudi 1.x) ---- */

/**
 * A secondary index of the table: its index definition (hoodie.table.index.defs.path, index.json) of indexType
 * "secondary_index", function identity, one top-level source field, version V1 (absent or "V1": table version 8,
 * Hudi 1.0's layout), and its partition listed in hoodie.table.metadata.partitions. V1 keys are
 * "<secondary value>$<record key>", each part with a backslash and '$' escaped by a backslash (SecondaryIndexKeyUtils),
 * the secondary value as Java's toString() renders it (a null is not indexed); a key's file group is the hash of
 * the whole key (as the record index's), so one value's keys are spread over every file group; values are
 * HoodieMetadataRecords of type 7 whose SecondaryIndexMetadata says isDeleted; a DELETE_BLOCK's key removes it.
 */
typedef struct hoodie_mdt_secondary {
    const char *name;    /* the partition (and index) name, e.g. secondary_index_name_idx */
    const char *column;  /* the source field */
} hoodie_mdt_secondary;

/**
 * The secondary indexes hoodie reads of the table at base_path (config `cfg`): *out (in `a`), *n. None (n 0) when
 * the table lists none or has no index definitions; definitions of another kind or version are left out.
 * @return HOODIE_OK; HOODIE_ECORRUPT (index.json does not parse); HOODIE_EIO; HOODIE_ENOMEM.
 */
hoodie_status hoodie_mdt_secondary_indexes(const hoodie_storage *s, const char *base_path,
                                           const hoodie_table_config *cfg, hoodie_arena *a,
                                           hoodie_mdt_secondary **out, size_t *n);

/** `text` (n bytes) with backslashes and '$' escaped, appended to `out` (SecondaryIndexKeyUtils.escapeSpecialChars). */
hoodie_status hoodie_mdt_si_escape(hoodie_buf *out, const char *text, size_t n);
/** Split a V1 key into its secondary value and record key, unescaped (copies in `a`). 0, or -1 when the key has
 *  no unescaped '$' (not a secondary index key). */
int hoodie_mdt_si_split(const char *key, size_t len, hoodie_arena *a, const char **secondary, const char **record_key);

/**
 * The record keys whose value of secondary index `index` (its partition name) is one of values[0..n_values) (their
 * toString() text): every file group's latest slice searched for the keys starting "<escaped value>$" (a seek in
 * each HFile), the blocks that count merged (a later record of a key replacing an earlier, a delete removing it).
 * *keys (an array to free; strings in `a`), *n_keys: each live key once, sorted.
 * @return HOODIE_OK; HOODIE_ENOTFOUND (no metadata table or no such partition); HOODIE_ECORRUPT; ...
 */
hoodie_status hoodie_mdt_secondary_keys(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                        const char *index, const char *const *values, size_t n_values,
                                        hoodie_arena *a, const char ***keys, size_t *n_keys);

/** One live entry of a secondary index. */
typedef struct hoodie_mdt_si_entry {
    const char *secondary;   /* unescaped */
    const char *record_key;
} hoodie_mdt_si_entry;

/**
 * Every live entry of secondary index `index` (each file group's latest slice read whole), sorted by (record key,
 * secondary value); *out an array to free, strings in `a`.
 * @return as hoodie_mdt_secondary_keys, and HOODIE_ECORRUPT for a key without an unescaped '$'.
 */
hoodie_status hoodie_mdt_secondary_entries(const hoodie_storage *s, const char *base_path,
                                           const hoodie_timeline *data_tl, const char *index, hoodie_arena *a,
                                           hoodie_mdt_si_entry **out, size_t *n);

/**
 * The live keys of file group `file_id` of secondary index partition `index` (its latest slice, the blocks that
 * count), sorted (*keys an array to free, the strings in `a`; for the metadata table's compaction). *n_seen: the
 * keys its slice had at all.
 * @return HOODIE_OK; HOODIE_ENOTFOUND (no such partition or file group); HOODIE_ECORRUPT; ...
 */
hoodie_status hoodie_mdt_si_group(const hoodie_storage *s, const char *base_path, const hoodie_timeline *data_tl,
                                  const char *index, const char *file_id, hoodie_arena *a, const char ***keys,
                                  size_t *n, size_t *n_seen);

/** 1 if secondary index values of columns of type `t` are rendered by hoodie_mdt_si_value (strings, integers):
 *  Java's toString() of other types (floating point, decimals, dates) is not reproduced. */
int hoodie_mdt_si_type_ok(const hoodie_type *t);
/** The secondary index value of row `row` of column `a` (field `f`) appended to `out`: 1; 0 for a null (not
 *  indexed); -1 for a type hoodie_mdt_si_type_ok refuses (or no memory). */
int hoodie_mdt_si_value(const hoodie_field *f, const hoodie_array *a, int64_t row, hoodie_buf *out);

#endif
