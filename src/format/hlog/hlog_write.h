/*
 * Writing Hudi log blocks (inline log format version 1, hudi-format.md §5) byte for byte as Java's
 * HoodieLogFormatWriter / HoodieLogBlock.getContentBytes do. No I/O: blocks are appended to a hoodie_buf; a log
 * file is the concatenation of its blocks.
 *
 *   block := "#HUDI#" i64 blockSize  i32 1  i32 blockType  header  i64 contentLen  content  footer(i32 0)
 *            i64 (blockSize + 6)                                           (all big-endian)
 *   header := i32 count { i32 key  i32 len  byte[len] value }              (entries in the order given)
 *
 * Header order: Java keeps headers in a HashMap keyed by an enum whose hash is the identity hash, so the order
 * differs from JVM to JVM (the fixtures have both INSTANT_TIME, SCHEMA and SCHEMA, INSTANT_TIME) and readers never
 * depend on it. hoodie_hlog_header_sort() puts entries in one fixed order that reproduces the fixtures' orders of
 * rollback blocks and of blocks with record positions, and the more common data-block order (INSTANT_TIME, COMMAND_BLOCK_TYPE, TARGET_INSTANT_TIME,
 * COMPACTED_BLOCK_TIMES, BLOCK_IDENTIFIER, IS_PARTIAL, BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS,
 * RECORD_POSITIONS, SCHEMA).
 *
 * Content writers (append to the same buffer between hoodie_hlog_block_begin and hoodie_hlog_block_end, so a
 * block is built in place without copies):
 *   AVRO_DATA_BLOCK  i32 3  i32 recordCount  { i32 len  Avro binary record }      (HoodieAvroDataBlock)
 *   DELETE_BLOCK     i32 3  i32 len  Avro HoodieDeleteRecordList                  (HoodieDeleteBlock v3)
 *   COMMAND_BLOCK    empty; headers INSTANT_TIME, COMMAND_BLOCK_TYPE "0", TARGET_INSTANT_TIME
 *   PARQUET_DATA_BLOCK  a complete Parquet file
 *
 * Errors: HOODIE_ENOMEM (the buffer keeps what was appended before; callers drop the block by truncating to
 * the mark's start), HOODIE_EINVAL for misuse (a value over 2 GiB, a mark that does not fit the buffer).
 */
#ifndef HOODIE_FORMAT_HLOG_WRITE_H
#define HOODIE_FORMAT_HLOG_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "format/hlog/hlog.h"
#include "util/buf.h"

/** One header entry. `value` is borrowed (UTF-8, `len` bytes, need not be NUL-terminated). */
typedef struct hoodie_hlog_header_entry {
    hoodie_hlog_header_key key;
    const char *value;
    size_t len;
} hoodie_hlog_header_entry;

/** Sort entries into the fixed order described above (stable; unknown keys last, by code). */
void hoodie_hlog_header_sort(hoodie_hlog_header_entry *entries, size_t count);
/**
 * The headers of a decoded block as entries, in ordinal order (the decoded block does not keep the order they
 * were written in). `entries` needs room for HOODIE_HLOG_HEADER_KEY_COUNT. Values borrow the block.
 */
size_t hoodie_hlog_header_from_block(const hoodie_hlog_block *b, hoodie_hlog_header_entry *entries);

/** Where a block being written starts in the buffer. */
typedef struct hoodie_hlog_block_mark {
    size_t start;          /* offset of the magic */
    size_t content_start;  /* offset of the first content byte */
} hoodie_hlog_block_mark;

/** Append magic, a size placeholder, version 1, the type, the header and a content-length placeholder. */
hoodie_status hoodie_hlog_block_begin(hoodie_buf *out, hoodie_hlog_block_mark *m, hoodie_hlog_block_type type,
                                      const hoodie_hlog_header_entry *header, size_t header_count);
/** Close the block whose content is everything appended since begin: patch the lengths, append the empty
 *  footer and the reverse pointer. */
hoodie_status hoodie_hlog_block_end(hoodie_buf *out, const hoodie_hlog_block_mark *m);
/** A whole block with the given content bytes (any type; PARQUET_DATA_BLOCK: the Parquet file). */
hoodie_status hoodie_hlog_write_block(hoodie_buf *out, hoodie_hlog_block_type type,
                                      const hoodie_hlog_header_entry *header, size_t header_count,
                                      const void *content, size_t content_len);
/** A rollback command block: headers INSTANT_TIME = instant, COMMAND_BLOCK_TYPE = "0", TARGET_INSTANT_TIME =
 *  target (in that order, as the fixtures have them), empty content. */
hoodie_status hoodie_hlog_write_rollback(hoodie_buf *out, const char *instant, const char *target);

/* ---- AVRO_DATA_BLOCK content ---- */

typedef struct hoodie_hlog_avro_writer {
    size_t count_pos;      /* offset of the record count */
    size_t record_pos;     /* offset of the current record's length (record_begin) */
    int32_t count;
} hoodie_hlog_avro_writer;

/** Append version 3 and a record-count placeholder. */
hoodie_status hoodie_hlog_avro_content_begin(hoodie_buf *out, hoodie_hlog_avro_writer *w);
/** Start a record: append a length placeholder; the caller then appends the record's Avro binary bytes. */
hoodie_status hoodie_hlog_avro_record_begin(hoodie_buf *out, hoodie_hlog_avro_writer *w);
/** Finish the record started last (patch its length). */
hoodie_status hoodie_hlog_avro_record_end(hoodie_buf *out, hoodie_hlog_avro_writer *w);
/** Append one already encoded record. */
hoodie_status hoodie_hlog_avro_record_add(hoodie_buf *out, hoodie_hlog_avro_writer *w, const void *rec, size_t len);
/** Patch the record count. */
hoodie_status hoodie_hlog_avro_content_end(hoodie_buf *out, hoodie_hlog_avro_writer *w);

/* ---- DELETE_BLOCK content ---- */

/**
 * The Avro schema of the version-3 delete payload as Hudi 0.14 - 1.1 define it (HoodieDeleteRecordList.avsc with
 * the wrapper records of HoodieDeleteRecord.orderingVal in Java's union order; see hoodie_hlog_ord_type).
 */
extern const char hoodie_hlog_delete_list_schema[];

/**
 * Append DELETE_BLOCK content (version 3) for `count` deletes: i32 3, i32 payloadLen, then the Avro datum of
 * HoodieDeleteRecordList as Java's SpecificDatumWriter writes it (one array block of `count` items, then 0; an
 * empty list is just 0). Each item: recordKey and partitionPath as [null, string] (NULL pointer = null branch),
 * orderingVal as the wrapper-record union branch `ord_type` (a wrapper record encodes as its one value):
 * BOOLEAN/INT/DATE/LONG/TIME_MICROS/TIMESTAMP_MICROS from ord_i, FLOAT/DOUBLE from ord_d, BYTES/STRING/DECIMAL
 * (big-endian two's complement unscaled, scale 15) from ord_bytes/ord_len.
 * @return HOODIE_OK, HOODIE_ENOMEM, HOODIE_EINVAL (bad ord_type, an INT/DATE value out of int range).
 */
hoodie_status hoodie_hlog_delete_content(hoodie_buf *out, const hoodie_hlog_delete *deletes, size_t count);

/** A whole DELETE_BLOCK. */
hoodie_status hoodie_hlog_write_delete_block(hoodie_buf *out, const hoodie_hlog_header_entry *header,
                                             size_t header_count, const hoodie_hlog_delete *deletes, size_t count);

#endif
