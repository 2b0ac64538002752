/*
 * Scanning the log files of a file slice into the items the merge applies (hudi-format.md 5.8; fixtures README):
 * data blocks decoded to the reader's schema, and delete blocks' keys with their ordering values, in apply
 * order (log files in slice order, blocks in file order).
 *
 * A block applies only if its INSTANT_TIME is a completed instant, requested at or before the as-of instant, and
 * not rolled back. A ROLLBACK command block removes the earlier items of its TARGET_INSTANT_TIME. A block that
 * applies and carries COMPACTED_BLOCK_TIMES (log compaction) replaces the blocks of the instants it lists: their
 * items are removed, wherever they are in the slice. Corrupt blocks
 * are skipped with a warning (util/warn.h), as Hudi does; the remaining blocks are read.
 * Avro data blocks are decoded when their file's blocks have all been seen, and only if they still apply then:
 * a block a later block of its file drops, or one of an instant already replaced, is never decoded (its item
 * stays, removed, with no rows); rows of items dropped later are freed when they are dropped.
 *
 * Memory: items own their batches; delete keys live in the result's arena. hoodie_log_items_dispose frees all.
 * A lazy scan (ctx.lazy_cols) keeps only the merge's columns of Avro records and where each record is: the log
 * files stay mapped, owned by the result, until it is disposed.
 * A log file is mapped where the storage maps files, else read whole when it is small and a block at a time when
 * it is large (ctx.ranged_min), one file at a time; a pass of a hash-partitioned merge (ctx.parts) keeps one part's rows.
 */
#ifndef HOODIE_READ_LOGSCAN_H
#define HOODIE_READ_LOGSCAN_H

#include "format/hlog/hlog.h"
#include "model/batch.h"
#include "table/evo.h"
#include "table/fsview.h"
#include "table/timeline.h"

typedef enum hoodie_log_item_kind { HOODIE_LOG_DATA = 0, HOODIE_LOG_DELETES = 1 } hoodie_log_item_kind;

typedef struct hoodie_avro_decoder hoodie_avro_decoder;

/* Where the records of a lazy DATA item (ctx.lazy_cols) are: record r is the len[r] bytes at content + off[r], in
 * a log file the items keep mapped; dec decodes them whole into the reader's schema (both owned by the items). */
typedef struct hoodie_log_lazy {
    const uint8_t *content;          /* the Avro data block's records */
    uint64_t content_offset;         /* their offset in the file (for messages) */
    const char *path;                /* arena */
    hoodie_avro_decoder *dec;
    uint32_t *off, *len;             /* malloc, a row each */
} hoodie_log_lazy;

typedef struct hoodie_log_item {
    hoodie_log_item_kind kind;
    char instant[HOODIE_INSTANT_TIME_MAX + 1];
    hoodie_batch batch;              /* DATA: rows in the reader's schema */
    hoodie_hlog_delete *deletes;     /* DELETES: arena */
    size_t delete_count;
    int removed;                     /* rolled back by a later command block */
    int block_start;                 /* the first item of its log block (a Parquet block may give several) */
    uint64_t mem;                    /* what its rows or deletes take, counted in hoodie_log_items.mem */
    const uint8_t *absent;           /* DATA of a partial block (IS_PARTIAL "true", Spark SQL's MERGE INTO updating
                                      * some columns): per column of the reader's schema, 1 where the block's schema
                                      * leaves it out (its rows hold nulls there, which are not values: a merge keeps
                                      * the other record's); arena. NULL: a whole-record block. A headers-only
                                      * scan marks such a block with a pointer to no columns */
    hoodie_log_lazy *lazy;           /* DATA decoded lazily (ctx.lazy_cols): only those columns of batch have its
                                      * rows (the others are empty); hoodie_log_item_decode_row decodes a whole row.
                                      * NULL: every column decoded */
} hoodie_log_item;

typedef struct hoodie_log_items {
    hoodie_log_item *items;
    size_t count, cap;
    hoodie_arena *arena;
    unsigned corrupt_blocks;
    unsigned skipped_blocks;          /* blocks of instants that do not apply */
    uint64_t mem;                     /* bytes the items' rows and deletes take, with a merge's key entry for each
                                         (MERGE_ROW_BYTES): what a merge of them holds */
    uint64_t scanned;                 /* bytes of the log blocks those came from */
    uint32_t parts;                   /* the key-hash partitions the scan kept rows by (ctx.parts, or more: see
                                         ctx.mem_limit) */
    int partial;                      /* some item is of a partial block (hoodie_log_item.absent) */
    size_t lazy;                      /* items decoded lazily (hoodie_log_item.lazy) */
    struct hoodie_file_bytes *maps;   /* the mapped log files lazy items' records are in (malloc) */
    size_t n_maps;
    hoodie_avro_decoder **decoders;   /* the decoders lazy items decode with (malloc) */
    size_t n_decoders;
} hoodie_log_items;

typedef struct hoodie_logscan_ctx {
    const hoodie_storage *storage;
    const hoodie_timeline *tl;
    const char *as_of;                /* NULL: everything completed */
    const hoodie_field *schema;       /* reader STRUCT: the table schema with meta columns */
    const char *const *rolled_back;   /* instants rolled back by completed rollbacks */
    size_t rolled_back_count;
    int headers_only;                 /* one empty item per block: nothing decoded (hoodie_logscan_blocks) */
    /* a pass of a merge in key-hash partitions (a slice whose log records would not fit in memory at once): with
     * parts > 1, only the records and deletes of keys whose hoodie_logscan_key_part is `part` are kept, decoded a
     * chunk at a time, so memory holds that part's records and one chunk. 0 or 1: every record */
    uint32_t parts, part;
    /* a log file of at least this many bytes on storage that does not map files (S3) is read in ranges, a block
     * at a time, not whole; 0: HOODIE_LOG_RANGED_MIN */
    uint64_t ranged_min;
    /* when > 0 (the first pass of a merge, part 0): as soon as the rows and deletes kept take more than this many
     * bytes (hoodie_log_items.mem), the scan takes more partitions (hoodie_logscan_parts_over) and keeps going with
     * partition 0 of those, dropping the others' rows from what it has; out.parts tells the merge how many passes
     * it then needs */
    uint64_t mem_limit;
    /* schema on read: each block's columns renamed by id as of as_of (its own instant's version; NULL: by name) */
    const hoodie_evo *evo;
    /* n_lazy_cols > 0: Avro data blocks of log files the storage maps are decoded lazily: only these columns of
     * the reader's schema (the key, the ordering and delete columns a merge compares), each row's record left
     * where it is in the mapped file until hoodie_log_item_decode_row decodes it whole. A merge then holds a few
     * bytes a record instead of the record (most slices too large for memory merge in one pass). Partial blocks,
     * Parquet blocks and files that are not mapped are decoded whole as always. */
    const int *lazy_cols;
    size_t n_lazy_cols;
} hoodie_logscan_ctx;
/** Log files from this size up are read a block at a time where they are not mapped (16 MB). */
#define HOODIE_LOG_RANGED_MIN ((uint64_t)16 << 20)

/** A merge's memory budget when none is given: 1 GiB of log files, as Hudi's hoodie.memory.merge.max.size. */
#define HOODIE_MERGE_MEMORY_DEFAULT ((int64_t)1 << 30)
/** A merge budget as given (<= 0: the default) in bytes. */
static inline uint64_t hoodie_logscan_budget(int64_t budget)
{
    return (uint64_t)(budget > 0 ? budget : HOODIE_MERGE_MEMORY_DEFAULT);
}
/** The key-hash partitions a slice with `log_bytes` of log files is merged in under `budget` (<= 0: the default):
 *  1, or enough for each pass to hold no more than the budget of them (at most 4096). Decoded records take at
 *  least their log bytes, often more (compressed Parquet blocks several times more): a pass 0 scanned with
 *  ctx.mem_limit finds out (hoodie_log_items.parts). */
uint32_t hoodie_logscan_parts(uint64_t log_bytes, int64_t budget);
/** The partitions for a slice's `log_bytes` to fit the budget, when the rows a scan of partition 0 of `parts`
 *  kept (`over`: their mem, of the scanned bytes) took more: from what they took per log byte, with a margin; at
 *  least twice `parts`, at most 4096. */
uint32_t hoodie_logscan_parts_over(const hoodie_log_items *over, uint64_t log_bytes, int64_t budget, uint32_t parts);
/** 1 if a slice with `log_bytes` of log files is merged with lazy log records (ctx.lazy_cols) under `budget`:
 *  when they pass a quarter of it (decoded records often take more than their log bytes). */
int hoodie_logscan_lazy(uint64_t log_bytes, int64_t budget);
/** The columns of `cols` (n; -1: none) without the absent and repeated ones into out (room for n): the lazy columns
 *  a merge compares (key, ordering, delete marks). Returns how many. */
size_t hoodie_logscan_lazy_cols(int *out, const int *cols, size_t n);
/** The key-hash partition of a record key among `parts` (> 0), as hash-partitioned merges split a slice. */
uint32_t hoodie_logscan_key_part(const void *key, size_t len, uint32_t parts);
/** 1 if row r's key in `keys` (a STRING column; a null key: partition 0) is in partition `part` of `parts`. */
int hoodie_logscan_row_in_part(const hoodie_array *keys, int64_t r, uint32_t parts, uint32_t part);
/** Only the rows of `b` whose key (column key_col; a null key: partition 0) is in partition `part` kept. */
hoodie_status hoodie_logscan_keep_part(hoodie_batch *b, int key_col, uint32_t parts, uint32_t part);

hoodie_status hoodie_logscan(hoodie_log_items *out, const hoodie_logscan_ctx *ctx, const hoodie_fs_file *const *logs,
                             size_t n_logs);
/** The number of log blocks that apply (data and delete blocks left after rollbacks and log compactions), as
 *  Hudi counts them to schedule a log compaction; headers are read, records are not decoded. *partial (may be
 *  NULL): 1 if one of them is a partial block (IS_PARTIAL "true"). */
hoodie_status hoodie_logscan_blocks(const hoodie_logscan_ctx *ctx, const hoodie_fs_file *const *logs, size_t n_logs,
                                    int64_t *out, int *partial);
/** Applying blocks among scanned items (items of a block share its fate). */
int64_t hoodie_log_items_blocks(const hoodie_log_items *l);
/** 1 if items of instant `t` apply to the scan (completed, within as-of, not rolled back). */
int hoodie_logscan__applies(const hoodie_logscan_ctx *ctx, const char *t);
/** Avro data blocks decoded lazily so far, by every scan (for tests). */
extern unsigned long hoodie_logscan__lazy_blocks;
/** Decode row `row` of lazy item `it` whole, appended as a row of `root` (an array of the reader's STRUCT). On a
 *  failure (a corrupt record: the message names the file and offset) root may hold a partial row. */
hoodie_status hoodie_log_item_decode_row(const hoodie_log_item *it, int64_t row, hoodie_array *root);
/** Every lazy item decoded whole (for merges that read every column of log records: partial updates, filled
 *  records). */
hoodie_status hoodie_log_items_materialize(hoodie_log_items *l);
/** The mapped log files' pages out of the process's memory (lazy rows decoded since come from the page cache). */
void hoodie_log_items_release(hoodie_log_items *l);
/** Append an empty item (for block decoders); returns NULL on ENOMEM. */
hoodie_log_item *hoodie_log_items_push(hoodie_log_items *l, hoodie_log_item_kind kind, const char *instant);
void hoodie_log_items_dispose(hoodie_log_items *l);

#endif
