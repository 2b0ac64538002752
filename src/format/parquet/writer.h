/*
 * Parquet file WRITER on a byte sink (no I/O here: every byte goes through hoodie_pq_sink.write, in order).
 *
 *   hoodie_pq_writer_opts o;
 *   hoodie_pq_writer_opts_init(&o);            defaults: SNAPPY, dictionary on, page v1, 1 MiB pages
 *   hoodie_pq_writer_open(&w, schema, &o, sink);   schema: a root STRUCT hoodie_field; its children are columns
 *   hoodie_pq_writer_write(w, &batch) ...      batches whose root array matches the schema (borrowed)
 *   hoodie_pq_writer_close(w);                 last row group, footer, footer length, "PAR1"
 *   hoodie_pq_writer_free(w);
 *
 * Schema mapping (hoodie type -> Parquet): see writer.c, "schema". Column chunks of the current row group are
 * buffered in memory (compressed pages) and written when the row group reaches row_group_rows or
 * row_group_bytes (estimated uncompressed), or at close. After a failure the writer is poisoned (HOODIE_ESTATE).
 * Every chunk gets a page index (written before the footer, as parquet-mr does): an OffsetIndex (page offsets,
 * sizes, first rows) and, when every page has statistics, a ColumnIndex (page bounds, null pages and counts,
 * boundary order); pages end at page_bytes or page_rows, so the index can locate a row within a small page.
 */
#ifndef HOODIE_FORMAT_PARQUET_WRITER_H
#define HOODIE_FORMAT_PARQUET_WRITER_H

#include <stdint.h>
#include "format/parquet/meta.h"
#include "format/parquet/schema.h"
#include "model/batch.h"
#include "model/build.h"

typedef struct hoodie_pq_sink {
    void *ctx;
    hoodie_status (*write)(void *ctx, const void *data, size_t len);
} hoodie_pq_sink;

/** Encoding override for one leaf column, named by its dotted path_in_schema ("a.list.element") or by the
 *  name of a top-level column (applies to all its leaves). */
typedef struct hoodie_pq_column_encoding {
    const char *path;
    hoodie_pq_encoding encoding;   /* RLE_DICTIONARY forces a dictionary; anything else turns it off */
} hoodie_pq_column_encoding;

typedef struct hoodie_pq_writer_opts {
    hoodie_pq_codec codec;         /* UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW */
    int level;                     /* codec level; 0: default (zstd 3) */
    int64_t row_group_rows;        /* 0: 1,048,576 */
    int64_t row_group_bytes;       /* 0: 128 MiB (uncompressed estimate) */
    int64_t page_bytes;            /* 0: 1 MiB */
    int64_t page_rows;             /* a page ends after about this many rows; 0: 20,000 (parquet-mr's limit),
                                    * so that the page index can locate a row within a small page */
    int dictionary;                /* 1: dictionary encoding (falls back to value_encoding when over the limit) */
    int64_t dictionary_limit;      /* dictionary page bytes before fallback; 0: 1 MiB */
    int data_page_v2;
    /* Encoding of non-dictionary values: PLAIN, DELTA_BINARY_PACKED (INT32/INT64), DELTA_LENGTH_BYTE_ARRAY
     * (BYTE_ARRAY), DELTA_BYTE_ARRAY (BYTE_ARRAY, FLBA), BYTE_STREAM_SPLIT (FLOAT, DOUBLE).
     * Columns whose type does not allow it use PLAIN. */
    hoodie_pq_encoding value_encoding;
    const hoodie_pq_column_encoding *column_encodings;
    size_t n_column_encodings;
    const char *const *kv_keys;    /* footer key-value metadata (copied at open) */
    const char *const *kv_values;  /* NULL entries: key without value */
    size_t n_kv;
    const char *created_by;        /* NULL: "hoodie version 0.1.0" */
    const char *root_name;         /* NULL: "schema" */
} hoodie_pq_writer_opts;

typedef struct hoodie_pq_writer hoodie_pq_writer;

void hoodie_pq_writer_opts_init(hoodie_pq_writer_opts *o);

/**
 * Start a file: writes the leading magic. `schema` (root STRUCT) is copied. The sink must stay valid until
 * close/free. @return HOODIE_OK; HOODIE_EINVAL (unsupported type or option); HOODIE_ENOMEM; sink errors.
 */
hoodie_status hoodie_pq_writer_open(hoodie_pq_writer **out, const hoodie_field *schema,
                                    const hoodie_pq_writer_opts *opts, hoodie_pq_sink sink);
/** Append the rows of `b` (borrowed; its columns must match the schema). */
hoodie_status hoodie_pq_writer_write(hoodie_pq_writer *w, const hoodie_batch *b);
/** Same, from a root STRUCT array shaped like the schema. */
hoodie_status hoodie_pq_writer_write_array(hoodie_pq_writer *w, const hoodie_array *root);
/**
 * root->length rows, top-level column i taking rows sel[i][0 .. root->length) of root->children[i] (in that order,
 * repeats allowed), or its rows 0 .. root->length when sel or sel[i] is NULL: columns picked from other batches are
 * written without being gathered into one first.
 */
hoodie_status hoodie_pq_writer_write_selected(hoodie_pq_writer *w, const hoodie_array *root, const int64_t *const *sel);
/**
 * A column chunk of another Parquet file, to be copied verbatim (hoodie_pq_writer_write_row_group): a rewrite
 * that keeps a column's values as they were stores its pages again instead of decoding and encoding them.
 */
typedef struct hoodie_pq_chunk_copy {
    const uint8_t *bytes;                 /* the chunk as stored: dictionary page (if any), then data pages */
    size_t len;                           /* = meta->total_compressed_size */
    uint64_t src_offset;                  /* where bytes[0] is in the source file */
    const hoodie_pq_column_meta *meta;    /* the source chunk's metadata (offsets in the source file) */
    const hoodie_pq_leaf *src_leaf;       /* its leaf in the source schema (element, levels, type read as) */
    const hoodie_pq_offset_index *offset_index;  /* NULL: the chunk has none (then no page index is written) */
    const hoodie_pq_column_index *column_index;  /* NULL: none */
} hoodie_pq_chunk_copy;

/** Leaf columns of the writer's schema (column-chunk order), and the top-level column of each. */
size_t hoodie_pq_writer_leaf_count(const hoodie_pq_writer *w);
int hoodie_pq_writer_leaf_top(const hoodie_pq_writer *w, size_t leaf);
/** Whether leaf `leaf` of the writer's schema can take a copy of a chunk of source leaf `src`: flat, the only leaf
 *  of its top-level column, the same physical type (and length), repetition and levels, and read as the type the
 *  writer writes (so the stored values are the ones the writer would store). */
int hoodie_pq_writer_can_copy(const hoodie_pq_writer *w, size_t leaf, const hoodie_pq_leaf *src);
/**
 * Write the rows of `root` as a row group of their own (rows written before are flushed first as theirs). Leaf
 * i with copies[i] != NULL is not encoded: the chunk is copied (its top-level array in root is not read and may
 * be empty). A copy must pass hoodie_pq_writer_can_copy and hold root->length values. copies may be NULL.
 */
hoodie_status hoodie_pq_writer_write_row_group(hoodie_pq_writer *w, const hoodie_array *root,
                                               const hoodie_pq_chunk_copy *const *copies);
/**
 * `rows` rows, row i being row refs[i].row of source refs[i].source (roots[0 .. n_roots): root STRUCT arrays shaped
 * like the schema; a merge's old and new records): written without being gathered into one batch first. copies
 * NULL: as hoodie_pq_writer_write_array (the rows may share row groups with others); else as
 * hoodie_pq_writer_write_row_group (a row group of its own; columns with copied chunks are not read).
 */
hoodie_status hoodie_pq_writer_write_refs(hoodie_pq_writer *w, const hoodie_array *const *roots, size_t n_roots,
                                          const hoodie_row_ref *refs, int64_t rows,
                                          const hoodie_pq_chunk_copy *const *copies);
/**
 * From now on every row's value of top-level column `top` (a flat string or binary column, nullable or not) is
 * `value` (len bytes, copied; never null): the arrays given for it are not read and may be empty. Hudi's
 * _hoodie_file_name names the file in every row, copied ones too. value NULL: read from the arrays again.
 * @return HOODIE_OK; HOODIE_EINVAL (no such column, or not a flat string/binary one).
 */
hoodie_status hoodie_pq_writer_set_constant(hoodie_pq_writer *w, size_t top, const void *value, size_t len);
/** Flush the current row group now (no-op when it is empty). */
hoodie_status hoodie_pq_writer_flush(hoodie_pq_writer *w);
/** Last row group, footer and trailing magic. The writer can only be freed afterwards. */
hoodie_status hoodie_pq_writer_close(hoodie_pq_writer *w);
/** Set footer key-value metadata `key` (replacing an earlier value, else appended) before close; value NULL: none. */
hoodie_status hoodie_pq_writer_set_kv(hoodie_pq_writer *w, const char *key, const char *value);
/** NULL is a no-op. */
void hoodie_pq_writer_free(hoodie_pq_writer *w);

/** Bytes written to the sink so far. */
uint64_t hoodie_pq_writer_offset(const hoodie_pq_writer *w);
/** Bytes of the current row group held in memory: its compressed pages, plus the open page and dictionary
 *  (uncompressed): about what flushing it would add to the file. */
uint64_t hoodie_pq_writer_buffered(const hoodie_pq_writer *w);
/** Rows accepted so far. */
int64_t hoodie_pq_writer_rows(const hoodie_pq_writer *w);
/** The Parquet schema elements (depth-first, [0] is the root) and their count; borrowed from w. */
const hoodie_pq_schema_element *hoodie_pq_writer_schema(const hoodie_pq_writer *w, uint32_t *count);

#endif
