/*
 * Internal side of the public Parquet reader (include/hoodie/parquet.h): a hoodie_parquet_reader wires a
 * hoodie_storage file to the format-level reader (format/parquet/reader.h). The Arrow export
 * (hoodie_parquet_reader_schema / _stream) is built on these two calls:
 *
 *   const hoodie_field *schema = hoodie_pqfile__schema(r);        projected schema, owned by r
 *   hoodie_pq_scan *s; hoodie_pqfile__scan_open(r, &s);           scan with the reader's projection/batch size
 *   hoodie_pq_scan_next(s, &batch) ... HOODIE_ITEROVER; hoodie_pq_scan_free(s);
 *
 * A scan borrows r: free every scan before hoodie_parquet_reader_free(r).
 */
#ifndef HOODIE_TABLE_PQFILE_H
#define HOODIE_TABLE_PQFILE_H

#include "hoodie/parquet.h"
#include "format/parquet/reader.h"
#include "table/evo.h"

/** The projected schema (root STRUCT whose children are the columns), owned by r. */
const hoodie_field *hoodie_pqfile__schema(const hoodie_parquet_reader *r);
/** A new scan over all row groups with the reader's projection and batch size. */
hoodie_status hoodie_pqfile__scan_open(hoodie_parquet_reader *r, hoodie_pq_scan **out);
/** A scan of the reader's columns but the top-level column `skip` (all of them when that is the only one). */
hoodie_status hoodie_pqfile__scan_open_without(hoodie_parquet_reader *r, const char *skip, hoodie_pq_scan **out);
/** Same, restricted to the given row groups (statistics pruning by the caller). */
hoodie_status hoodie_pqfile__scan_open_row_groups(hoodie_parquet_reader *r, const uint32_t *row_groups,
                                                  size_t n_row_groups, hoodie_pq_scan **out);
/**
 * Open `path` reading only the top-level columns of `want` (a STRUCT) that the file has (the others are left to
 * hoodie_conform_batch, as nulls); all columns if it has none of them. `rn` renames the file's columns first.
 */
hoodie_status hoodie_pqfile__open_columns(hoodie_parquet_reader **out, const char *path, const hoodie_storage *storage,
                                          int64_t batch_rows, const hoodie_field *want, const hoodie_renames *rn);
/** hoodie_parquet_reader_open with the file's top-level columns renamed first (rn NULL: none; table/evo.h). */
hoodie_status hoodie_pqfile__open(hoodie_parquet_reader **out, const char *path, const hoodie_parquet_read_opts *opts,
                                  const hoodie_renames *rn);
/** The format-level file (metadata, schema, statistics). */
hoodie_pq_file *hoodie_pqfile__file(hoodie_parquet_reader *r);

#endif
