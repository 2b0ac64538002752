/*
 * Hudi log files (inline log format version 1), hudi-format.md §5. No I/O: a log file's bytes in, blocks out.
 *
 *   block := "#HUDI#" i64 blockSize  i32 formatVersion  i32 blockType  header  i64 contentLen  content  footer
 *            i64 reversePointer                      (all big-endian; blockSize counts from formatVersion through
 *                                                     reversePointer; reversePointer == blockSize + 6)
 *   header, footer := i32 count { i32 key  i32 len  byte[len] value }
 *
 * Corrupt blocks are handled as Java's HoodieLogFileReader does (§5.7): a block whose size runs past the end,
 * whose reverse pointer does not match, or that is not followed by "#HUDI#" or the end of the file is corrupt;
 * the reader scans forward from just after its magic for the next "#HUDI#" and hands out the bytes in between
 * as a CORRUPT block (with a reason), then continues. A block whose framing checks out but whose inside does
 * not parse (header overruns, unknown block type) is also handed out as CORRUPT. The iterator never fails on
 * bad bytes; only HOODIE_ENOMEM and unsupported format versions are errors.
 *
 * Block type and header key codes are Java enum ordinals (0-based).
 * Memory: a block's pointers borrow the input buffer and the iterator's arena; valid until the next
 * hoodie_hlog_iter_next() (header strings) or as long as the buffer (content).
 */
#ifndef HOODIE_FORMAT_HLOG_H
#define HOODIE_FORMAT_HLOG_H

#include <stddef.h>
#include <stdint.h>
#include "hoodie/common.h"
#include "util/arena.h"

typedef enum hoodie_hlog_block_type {
    HOODIE_HLOG_COMMAND_BLOCK = 0,
    HOODIE_HLOG_DELETE_BLOCK = 1,
    HOODIE_HLOG_CORRUPT_BLOCK = 2,
    HOODIE_HLOG_AVRO_DATA_BLOCK = 3,
    HOODIE_HLOG_HFILE_DATA_BLOCK = 4,
    HOODIE_HLOG_PARQUET_DATA_BLOCK = 5,
    HOODIE_HLOG_CDC_DATA_BLOCK = 6,
    HOODIE_HLOG_BLOCK_TYPE_COUNT
} hoodie_hlog_block_type;

typedef enum hoodie_hlog_header_key {
    HOODIE_HLOG_INSTANT_TIME = 0,
    HOODIE_HLOG_TARGET_INSTANT_TIME = 1,
    HOODIE_HLOG_SCHEMA = 2,
    HOODIE_HLOG_COMMAND_BLOCK_TYPE = 3,
    HOODIE_HLOG_COMPACTED_BLOCK_TIMES = 4,
    HOODIE_HLOG_RECORD_POSITIONS = 5,
    HOODIE_HLOG_BLOCK_IDENTIFIER = 6,
    HOODIE_HLOG_IS_PARTIAL = 7,
    HOODIE_HLOG_BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS = 8,
    HOODIE_HLOG_HEADER_KEY_COUNT
} hoodie_hlog_header_key;

#define HOODIE_HLOG_MAGIC "#HUDI#"
#define HOODIE_HLOG_MAGIC_LEN 6

typedef struct hoodie_hlog_block {
    hoodie_hlog_block_type type;
    uint64_t offset;          /* file offset of the block's magic (of the corrupt bytes for CORRUPT) */
    uint64_t total_len;       /* bytes from `offset` to the next block */
    int32_t format_version;   /* log format version (1) */
    const char *header[HOODIE_HLOG_HEADER_KEY_COUNT]; /* NUL-terminated values, NULL if absent */
    size_t header_len[HOODIE_HLOG_HEADER_KEY_COUNT];
    uint32_t unknown_header_keys; /* entries with a key >= HOODIE_HLOG_HEADER_KEY_COUNT (ignored) */
    uint32_t footer_count;
    const uint8_t *content;   /* borrowed from the input; for CORRUPT: the unreadable bytes */
    uint64_t content_len;
    uint64_t content_offset;  /* file offset of content */
    const char *corrupt_reason; /* CORRUPT only: why (for warnings) */
} hoodie_hlog_block;

typedef struct hoodie_hlog_iter {
    const uint8_t *data;
    size_t len;
    size_t pos;
    uint64_t base;            /* file offset of data[0] (offsets handed out and named are the file's) */
    const char *what;
    hoodie_arena *arena;      /* header strings of the current block */
    unsigned corrupt_blocks;  /* CORRUPT blocks handed out so far */
} hoodie_hlog_iter;

const char *hoodie_hlog_block_type_name(hoodie_hlog_block_type t);
const char *hoodie_hlog_header_key_name(hoodie_hlog_header_key k);

/** `what` names the log file in messages; data must outlive the iterator. */
hoodie_status hoodie_hlog_iter_init(hoodie_hlog_iter *it, const void *data, size_t len, const char *what);
/** The same over the file's bytes from offset `base` to its end (the rest of a file read in ranges). */
hoodie_status hoodie_hlog_iter_init_at(hoodie_hlog_iter *it, const void *data, size_t len, uint64_t base,
                                       const char *what);
/** Next block: HOODIE_OK, HOODIE_ITEROVER at the end, HOODIE_ENOMEM, HOODIE_EUNSUPPORTED (format version 0). */
hoodie_status hoodie_hlog_iter_next(hoodie_hlog_iter *it, hoodie_hlog_block *out);
void hoodie_hlog_iter_dispose(hoodie_hlog_iter *it);

/*
 * A log file read in ranges rather than whole (a large file on storage that does not map files): a block is
 * taken from its first bytes (hoodie_hlog_head: magic, size, header; the content's place, not its bytes) and the
 * bytes after its content (hoodie_hlog_tail: footer, reverse pointer, the next block's magic). Only a block the
 * iterator would hand out as it is comes out so: anything else (a framing that does not check out, a block the
 * iterator would call corrupt, a format version it refuses) is HOODIE_HLOG_UNCLEAN, and the caller reads the rest
 * of the file whole and iterates it (hoodie_hlog_iter_init_at), which then decides as it always does.
 */
enum { HOODIE_HLOG_MORE = 1, HOODIE_HLOG_UNCLEAN = 2 };
/** The block at file offset `off` from the file's bytes [off, off + n): HOODIE_OK (out: everything but content,
 *  which is NULL, and footer_count; header strings in `a`), HOODIE_HLOG_MORE (the first *need bytes are needed),
 *  HOODIE_HLOG_UNCLEAN, or HOODIE_ENOMEM. */
int hoodie_hlog_head(const uint8_t *p, size_t n, uint64_t off, uint64_t file_size, const char *what,
                     hoodie_arena *a, hoodie_hlog_block *out, size_t *need);
/** The bytes hoodie_hlog_tail checks for a block hoodie_hlog_head gave. */
void hoodie_hlog_tail_range(const hoodie_hlog_block *b, uint64_t file_size, uint64_t *tail_off, size_t *tail_len);
/** HOODIE_OK when the block's tail (the bytes of hoodie_hlog_tail_range) checks out, else HOODIE_HLOG_UNCLEAN. */
int hoodie_hlog_tail(const uint8_t *t, size_t n, uint64_t file_size, const char *what, hoodie_hlog_block *b);

/* ---- content decoders ------------------------------------------------------------------------------------ */

/** AVRO_DATA_BLOCK / CDC_DATA_BLOCK content: i32 version, i32 recordCount, { i32 len, Avro binary record }. */
typedef struct hoodie_hlog_avro_records {
    int32_t version;
    int32_t record_count;     /* -1 for version 1 (no count: records run to the end) */
    int32_t returned;
    const uint8_t *start, *p, *end;
    uint64_t base_off;        /* file offset of the content, for messages */
    const char *what;
} hoodie_hlog_avro_records;

hoodie_status hoodie_hlog_avro_open(hoodie_hlog_avro_records *r, const hoodie_hlog_block *b, const char *what);
/** Next record's Avro binary bytes (borrowed); HOODIE_ITEROVER after the last (trailing bytes are corrupt). */
hoodie_status hoodie_hlog_avro_next(hoodie_hlog_avro_records *r, const uint8_t **rec, size_t *len);

/** Ordering value of a delete record: the branch of HoodieDeleteRecord.orderingVal (Java's union order). */
typedef enum hoodie_hlog_ord_type {
    HOODIE_HLOG_ORD_NULL = 0,
    HOODIE_HLOG_ORD_BOOLEAN,
    HOODIE_HLOG_ORD_INT,
    HOODIE_HLOG_ORD_LONG,
    HOODIE_HLOG_ORD_FLOAT,
    HOODIE_HLOG_ORD_DOUBLE,
    HOODIE_HLOG_ORD_BYTES,
    HOODIE_HLOG_ORD_STRING,
    HOODIE_HLOG_ORD_DATE,             /* int days */
    HOODIE_HLOG_ORD_DECIMAL,          /* bytes: big-endian two's complement unscaled, scale 15 */
    HOODIE_HLOG_ORD_TIME_MICROS,      /* long */
    HOODIE_HLOG_ORD_TIMESTAMP_MICROS  /* long */
} hoodie_hlog_ord_type;

typedef struct hoodie_hlog_delete {
    const char *record_key;      /* NUL-terminated (arena), NULL if null */
    const char *partition_path;  /* NULL if null */
    hoodie_hlog_ord_type ord_type;
    int64_t ord_i;               /* BOOLEAN, INT, LONG, DATE, TIME_MICROS, TIMESTAMP_MICROS */
    double ord_d;                /* FLOAT, DOUBLE */
    const uint8_t *ord_bytes;    /* BYTES, STRING, DECIMAL (arena copy) */
    size_t ord_len;
} hoodie_hlog_delete;

/** Decode a DELETE_BLOCK (version 3: Avro HoodieDeleteRecordList) into an arena array. Versions 1-2 (Kryo)
 *  are HOODIE_EUNSUPPORTED; malformed content is HOODIE_ECORRUPT with the file offset. */
hoodie_status hoodie_hlog_delete_decode(const hoodie_hlog_block *b, hoodie_arena *a, const char *what,
                                        hoodie_hlog_delete **out, size_t *count);

/** COMMAND_BLOCK: 1 if it is a ROLLBACK (COMMAND_BLOCK_TYPE "0") and *target receives TARGET_INSTANT_TIME;
 *  0 for another command; HOODIE_ECORRUPT if the header is missing or malformed. */
int hoodie_hlog_command_rollback(const hoodie_hlog_block *b, const char *what, const char **target);

/** PARQUET_DATA_BLOCK: the embedded Parquet file (checks the PAR1 magic at both ends). */
hoodie_status hoodie_hlog_parquet_content(const hoodie_hlog_block *b, const char *what, const uint8_t **data,
                                          size_t *len);

#endif
