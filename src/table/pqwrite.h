/*
 * Write a Parquet file to a hoodie_storage path from hoodie batches (the storage-facing glue over
 * format/parquet/writer.h). Nothing is visible at `path` until hoodie_pqwrite_close() succeeds (the storage's
 * create/finish protocol); hoodie_pqwrite_free() without a successful close abandons the file.
 *
 *   hoodie_pqwrite *w;
 *   hoodie_pqwrite_open(&w, "t/f.parquet", storage, schema, &opts);   opts: public hoodie_parquet_write_opts
 *   hoodie_pqwrite_write_batch(w, &batch) ...
 *   hoodie_pqwrite_close(w);
 *   hoodie_pqwrite_free(w);
 */
#ifndef HOODIE_TABLE_PQWRITE_H
#define HOODIE_TABLE_PQWRITE_H

#include "hoodie/parquet.h"
#include "format/parquet/writer.h"
#include "model/batch.h"

typedef struct hoodie_pqwrite hoodie_pqwrite;

/** Map the public options onto the format writer's (NULL: defaults). */
hoodie_status hoodie_pqwrite_map_opts(const hoodie_parquet_write_opts *in, hoodie_pq_writer_opts *out);

/**
 * Create `path` on `storage` (NULL: opts->storage, then POSIX) and start a Parquet file with `schema` (a root
 * STRUCT). `opts` may be NULL. @return HOODIE_OK; HOODIE_EINVAL; HOODIE_EEXISTS (exclusive create); HOODIE_EIO.
 */
hoodie_status hoodie_pqwrite_open(hoodie_pqwrite **out, const char *path, const hoodie_storage *storage,
                                  const hoodie_field *schema, const hoodie_parquet_write_opts *opts);
/** Same with format-level options (encodings, page sizes ...). */
hoodie_status hoodie_pqwrite_open_ex(hoodie_pqwrite **out, const char *path, const hoodie_storage *storage,
                                     unsigned create_flags, const hoodie_field *schema,
                                     const hoodie_pq_writer_opts *opts);
hoodie_status hoodie_pqwrite_write_batch(hoodie_pqwrite *w, const hoodie_batch *b);
/** A root STRUCT array shaped like the schema. */
hoodie_status hoodie_pqwrite_write_array(hoodie_pqwrite *w, const hoodie_array *root);
/** Columns picked by row (hoodie_pq_writer_write_selected). */
hoodie_status hoodie_pqwrite_write_selected(hoodie_pqwrite *w, const hoodie_array *root, const int64_t *const *sel);
/** Rows referenced in several sources (hoodie_pq_writer_write_refs). */
hoodie_status hoodie_pqwrite_write_refs(hoodie_pqwrite *w, const hoodie_array *const *roots, size_t n_roots,
                                        const hoodie_row_ref *refs, int64_t rows, const hoodie_pq_chunk_copy *const *copies);
/** A row group of its own, with chunks copied from another file (hoodie_pq_writer_write_row_group). */
hoodie_status hoodie_pqwrite_write_row_group(hoodie_pqwrite *w, const hoodie_array *root,
                                            const hoodie_pq_chunk_copy *const *copies);
/** The format-level writer (schema, copy checks); borrowed. */
const hoodie_pq_writer *hoodie_pqwrite_writer(const hoodie_pqwrite *w);
/** Every row's value of top-level column `top` from now on (hoodie_pq_writer_set_constant). */
hoodie_status hoodie_pqwrite_set_constant(hoodie_pqwrite *w, size_t top, const void *value, size_t len);
/** Set a footer key-value entry before close (e.g. statistics known only at the end). */
hoodie_status hoodie_pqwrite_set_kv(hoodie_pqwrite *w, const char *key, const char *value);
/** Footer, then make the file visible. */
hoodie_status hoodie_pqwrite_close(hoodie_pqwrite *w);
/** Bytes written so far (the file size after close). */
uint64_t hoodie_pqwrite_size(const hoodie_pqwrite *w);
int64_t hoodie_pqwrite_rows(const hoodie_pqwrite *w);
/** Bytes of the current row group held in memory (see hoodie_pq_writer_buffered). */
uint64_t hoodie_pqwrite_buffered(const hoodie_pqwrite *w);
/** Write the rows held for the current row group now, as a row group (none held: nothing). */
hoodie_status hoodie_pqwrite_flush(hoodie_pqwrite *w);
/** Abandons the file unless closed. NULL is a no-op. */
void hoodie_pqwrite_free(hoodie_pqwrite *w);

#endif
