/*
 * HFile version 3 writer: the files HBase 2.4's HFileWriterImpl writes for Hudi (the metadata table's base files
 * and the content of its HFILE_DATA_BLOCKs), byte for byte. No I/O: bytes go to a sink as they are made.
 *
 * The layout (see hfile.h for the blocks' bytes):
 *   data block, [leaf index block], data block, ...   each data block closed once it holds block_size bytes
 *                                                      of cells (a run of one key is never split)
 *   meta blocks, in the order of their names
 *   [intermediate index blocks]  root data index  meta index  file info  trailer (4096 bytes)
 * The data index has one level while its entries fit in index_block_size bytes; beyond that, leaf blocks go
 * inline between the data blocks and the levels above them are built at the end, as HBase's BlockIndexWriter
 * does (the root of a multi-level index ends with the mid-key metadata). A block's index key is the shortest
 * row between the previous block's last row and its first (HBase's getMidpoint), as a "first on row" key.
 * Blocks are GZ-compressed (gzip framing with a zero header, deflate level 6, as Hadoop's codec writes it) or
 * stored; every block carries CRC-32C checksums per 16 KB of header and data.
 * Cells are Hudi's: the row is the key, no family or qualifier, the latest timestamp, type Put, MVCC 0.
 */
#ifndef HOODIE_FORMAT_HFILE_WRITE_H
#define HOODIE_FORMAT_HFILE_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "hoodie/common.h"

typedef struct hoodie_hfile_writer hoodie_hfile_writer;

/** Where the file's bytes go, in order. */
typedef hoodie_status (*hoodie_hfile_sink)(void *ctx, const uint8_t *p, size_t n);

typedef struct hoodie_hfile_writer_opts {
    uint32_t block_size;       /* a data block's cell bytes (0: 1 MB, hoodie.hfile.block.size) */
    uint32_t index_block_size; /* an index block's bytes (0: 128 KB, hfile.index.block.max.size) */
    int gzip;                  /* 1: GZ (Hudi's default), 0: NONE */
    const char *comparator;    /* the trailer's comparator class (NULL: Hudi's HoodieHBaseKVComparator) */
    int64_t create_time;       /* hfile.CREATE_TIME_TS (Hudi writes 0) */
} hoodie_hfile_writer_opts;

#define HOODIE_HFILE_HUDI_COMPARATOR "org.apache.hudi.io.storage.HoodieHBaseKVComparator"

/** A writer; `opts` may be NULL (defaults). @return HOODIE_OK; HOODIE_ENOMEM. */
hoodie_status hoodie_hfile_writer_new(hoodie_hfile_writer **out, const hoodie_hfile_writer_opts *opts,
                                      hoodie_hfile_sink sink, void *ctx);
void hoodie_hfile_writer_free(hoodie_hfile_writer *w);

/** Append a cell. Keys must not decrease (unsigned bytes); a key is at most 32767 bytes.
 *  @return HOODIE_OK; HOODIE_EINVAL (order, size); the sink's failure; HOODIE_ENOMEM. */
hoodie_status hoodie_hfile_writer_add(hoodie_hfile_writer *w, const uint8_t *key, size_t key_len,
                                      const uint8_t *value, size_t value_len);

/** A file-info entry of the caller's (Hudi's "schema", "minRecordKey", ...); the data is copied. */
hoodie_status hoodie_hfile_writer_info(hoodie_hfile_writer *w, const char *key, const uint8_t *value, size_t len);

/** A meta block (Hudi's "bloomFilter"); the data is copied. */
hoodie_status hoodie_hfile_writer_meta(hoodie_hfile_writer *w, const char *name, const uint8_t *data, size_t len);

/** Write the rest: the last data block, meta blocks, the index, file info and trailer. */
hoodie_status hoodie_hfile_writer_finish(hoodie_hfile_writer *w);

/** Cells and bytes written so far. */
uint64_t hoodie_hfile_writer_entries(const hoodie_hfile_writer *w);
uint64_t hoodie_hfile_writer_offset(const hoodie_hfile_writer *w);

#endif
