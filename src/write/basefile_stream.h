/*
 * A base file written batch by batch (write/basefile.h writes one from batches held in memory): the same footer
 * (parquet.avro.schema, writer.model.name, the DYNAMIC_V0 bloom filter of the keys, hoodie_min/max_record_key),
 * whose key-dependent entries are set at close. Memory: the bloom filter, the min and max keys and the Parquet
 * writer's current row group (row_group_rows bounds it).
 *
 *   hoodie_basefile_stream *s;
 *   hoodie_basefile_stream_open(&s, &opts, 65536, 0, 0);
 *   hoodie_basefile_stream_write(s, &batch) ...
 *   hoodie_basefile_stream_close(s, &size, &rows);   the file appears whole
 *   hoodie_basefile_stream_free(s);                  abandons it unless closed
 */
#ifndef HOODIE_WRITE_BASEFILE_STREAM_H
#define HOODIE_WRITE_BASEFILE_STREAM_H

#include "write/basefile.h"

typedef struct hoodie_basefile_stream hoodie_basefile_stream;

/** row_group_rows: rows per row group, page_bytes: page size, page_rows: rows per page at most (0: the writer's
 *  defaults). */
hoodie_status hoodie_basefile_stream_open(hoodie_basefile_stream **out, const hoodie_basefile_opts *o,
                                          int64_t row_group_rows, int64_t page_bytes, int64_t page_rows);
hoodie_status hoodie_basefile_stream_write(hoodie_basefile_stream *s, const hoodie_batch *b);
/** The rows of `b` as a row group of their own whose leaves with copies[i] != NULL are those chunks, copied
 *  (hoodie_pq_writer_write_row_group; the key column is read either way); copies NULL: as _write. */
hoodie_status hoodie_basefile_stream_write_row_group(hoodie_basefile_stream *s, const hoodie_batch *b,
                                                     const hoodie_pq_chunk_copy *const *copies);
/** root->length records shaped as file_schema, column i taking rows sel[i][..] of root->children[i] (NULL: in
 *  order; hoodie_pq_writer_write_selected): columns of the input written without being gathered first. */
hoodie_status hoodie_basefile_stream_write_selected(hoodie_basefile_stream *s, const hoodie_array *root,
                                                    const int64_t *const *sel);
/**
 * Before the first write: the file's first `rows` records have exactly the record keys, in the same order, of a
 * file whose footer index is given (its DYNAMIC_V0 bloom filter in base64, min and max keys): the filter is
 * continued from that one and those rows' keys are not hashed again (a bloom filter is a function of the key
 * sequence, so the result is the filter a rebuild gives). Other filter types: nothing is reused.
 */
hoodie_status hoodie_basefile_stream_seed(hoodie_basefile_stream *s, const char *bloom_b64, const char *type_code,
                                          const char *min_key, const char *max_key, int64_t rows);
/** The rows a seed covers: 0 when hoodie_basefile_stream_seed reused nothing (their keys must then be written). */
int64_t hoodie_basefile_stream_seeded(const hoodie_basefile_stream *s);
/** About the size of the file so far: its row groups written, plus the current one held in memory. */
uint64_t hoodie_basefile_stream_bytes(const hoodie_basefile_stream *s);
/** Bytes of the current row group held in memory (uncompressed), and writing them out now as a row group. */
uint64_t hoodie_basefile_stream_buffered(const hoodie_basefile_stream *s);
hoodie_status hoodie_basefile_stream_flush(hoodie_basefile_stream *s);
hoodie_status hoodie_basefile_stream_close(hoodie_basefile_stream *s, uint64_t *size_out, int64_t *rows_out);
void hoodie_basefile_stream_free(hoodie_basefile_stream *s);

#endif
