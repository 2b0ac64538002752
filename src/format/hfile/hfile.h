/*
 * HFile version 3 (HBase's sorted key-value file, as Hudi writes it for the metadata table: base files of its
 * partitions and the content of HFILE_DATA_BLOCKs in its log files). No I/O: the whole file's bytes in.
 *
 *   file    := data blocks (with leaf index blocks between them when the index has levels)  meta blocks
 *              load-on-open section (root data index, meta index, file info, ...)  trailer (last 4096 bytes)
 *   block   := magic[8] i32 onDiskSizeWithoutHeader  i32 uncompressedSizeWithoutHeader  i64 prevBlockOffset
 *              u8 checksumType  i32 bytesPerChecksum  i32 onDiskDataSizeWithHeader       (33 bytes, big-endian)
 *              payload (compressed by the file's codec: onDiskDataSizeWithHeader - 33 bytes)
 *              checksums (one i32 per bytesPerChecksum bytes of header + payload; type 0 none, 1 CRC32, 2 CRC32C)
 *   trailer := "TRABLK\"$"  varint length  FileTrailerProto  ...  i32 version (minor << 24 | major)
 *   cell    := i32 keyLen  i32 valueLen  key  value  vlong mvcc (when KEY_VALUE_VERSION is 1)
 *   key     := i16 rowLen  row  u8 familyLen  family  qualifier  i64 timestamp  u8 type
 *
 * Hudi's keys are the row bytes (the record key); cells sort by them as unsigned bytes. Index entries may hold a
 * "fake" first key (between the previous block's last key and the block's first), so a lookup scans on into the
 * block. Data blocks are decompressed one at a time, on demand; checksums are verified when present.
 */
#ifndef HOODIE_FORMAT_HFILE_H
#define HOODIE_FORMAT_HFILE_H

#include <stddef.h>
#include <stdint.h>
#include "hoodie/common.h"
#include "util/buf.h"

typedef struct hoodie_hfile hoodie_hfile;

/** One cell: its row key and value (pointers into the file or into the iterator's block; valid until the
 *  iterator moves to another block or is disposed). */
typedef struct hoodie_hfile_kv {
    const uint8_t *key;
    size_t key_len;
    const uint8_t *value;
    size_t value_len;
} hoodie_hfile_kv;

/**
 * Parse the trailer, the block index (every level), the meta index and the file info of the HFile in
 * data[0..len). `data` is borrowed: it must outlive the handle. `what` names the file in messages (copied).
 * @return HOODIE_OK; HOODIE_ECORRUPT (naming the byte offset); HOODIE_EUNSUPPORTED (version, codec, MVCC
 *         timestamps); HOODIE_ENOMEM.
 */
hoodie_status hoodie_hfile_open(hoodie_hfile **out, const uint8_t *data, size_t len, const char *what);
void hoodie_hfile_free(hoodie_hfile *f);

/** Cells in the file, as its trailer counts them. */
uint64_t hoodie_hfile_entry_count(const hoodie_hfile *f);
/** Data blocks in the file. */
size_t hoodie_hfile_block_count(const hoodie_hfile *f);
/** Levels of the data block index (1: the root only). */
unsigned hoodie_hfile_index_levels(const hoodie_hfile *f);
/** The codec's name ("NONE", "GZ", ...). */
const char *hoodie_hfile_codec_name(const hoodie_hfile *f);

/** The file-info value of `key` (e.g. "schema", "hfile.LASTKEY"); 1 when present, else 0. */
int hoodie_hfile_info(const hoodie_hfile *f, const char *key, const uint8_t **value, size_t *len);
/** The i-th file-info entry (i < count); for listing. */
size_t hoodie_hfile_info_count(const hoodie_hfile *f);
void hoodie_hfile_info_at(const hoodie_hfile *f, size_t i, const uint8_t **key, size_t *key_len,
                          const uint8_t **value, size_t *value_len);

/** Meta blocks: their number and the i-th one's name. */
size_t hoodie_hfile_meta_count(const hoodie_hfile *f);
void hoodie_hfile_meta_name(const hoodie_hfile *f, size_t i, const uint8_t **name, size_t *len);
/** The trailer's comparator class name (empty when it has none). */
void hoodie_hfile_comparator(const hoodie_hfile *f, const uint8_t **name, size_t *len);

/** The content of the meta block named `name` (e.g. Hudi's "bloomFilter"), appended to `out`.
 *  @return HOODIE_OK; HOODIE_ENOTFOUND; HOODIE_ECORRUPT. */
hoodie_status hoodie_hfile_meta_block(const hoodie_hfile *f, const char *name, hoodie_buf *out);

/** Cells in key order. */
typedef struct hoodie_hfile_iter {
    const hoodie_hfile *f;
    size_t block;          /* the data block loaded (index into the block index); SIZE_MAX before the first */
    hoodie_buf buf;        /* its payload, when compressed */
    const uint8_t *start, *p, *end; /* the block's cells: the first, the next, the end */
    const uint8_t *prev_key;         /* the key of the cell before p (NULL at the block's start) */
    size_t prev_len;
    uint64_t p_off;        /* file offset of the block's payload, for messages (compressed: the block's) */
    int compressed;
} hoodie_hfile_iter;

void hoodie_hfile_iter_init(hoodie_hfile_iter *it, const hoodie_hfile *f);
void hoodie_hfile_iter_dispose(hoodie_hfile_iter *it);
/** The next cell. @return HOODIE_OK; HOODIE_ITEROVER after the last; HOODIE_ECORRUPT. */
hoodie_status hoodie_hfile_next(hoodie_hfile_iter *it, hoodie_hfile_kv *kv);
/** Position the iterator so that the next cell is the first whose key is >= key[0..len) (cells before it in
 *  the same block are skipped; earlier blocks are not read). */
hoodie_status hoodie_hfile_seek(hoodie_hfile_iter *it, const uint8_t *key, size_t len);
/** The value of the first cell whose key is exactly key[0..len): HOODIE_OK and *kv; HOODIE_ENOTFOUND. */
hoodie_status hoodie_hfile_get(hoodie_hfile_iter *it, const uint8_t *key, size_t len, hoodie_hfile_kv *kv);

/** CRC-32C (Castagnoli) of bytes, continuing `crc` (0 to start): the checksum HBase writes by default. */
uint32_t hoodie_crc32c(uint32_t crc, const uint8_t *p, size_t n);

#endif
