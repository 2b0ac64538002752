/*
 * Reading input files (CSV, JSON lines, Parquet) as one Arrow stream, typed by a table's schema when it has one:
 * what `hoodie write` feeds to hoodie_table_write().
 *
 * CSV: RFC 4180 with a header line; empty unquoted fields are null. JSON lines: one object per line. Without a
 * table schema (a table's first write) the column types are inferred from the first rows (see src/table/input.h).
 * Every error names the file, the line (and the CSV column).
 */
#ifndef HOODIE_INPUT_H
#define HOODIE_INPUT_H

#include "hoodie/common.h"
#include "hoodie/arrow.h"
#include "hoodie/sys/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HOODIE_FILES_OPTS_VERSION 1
typedef struct hoodie_files_opts {
    unsigned version;               /**< HOODIE_FILES_OPTS_VERSION */
    const hoodie_storage *storage;  /**< NULL: local POSIX */
    const char *format;             /**< "csv", "jsonl", "parquet"; NULL: from each file's extension */
    int64_t batch_rows;             /**< 0: 65536 */
} hoodie_files_opts;
#define HOODIE_FILES_OPTS_INIT { HOODIE_FILES_OPTS_VERSION, NULL, NULL, 0 }

/**
 * Open `paths` as one stream. `table_path` (may be NULL) names a table whose schema types the text inputs.
 * Columns of every file are matched by name to the first file's.
 * @return HOODIE_OK; HOODIE_ENOTFOUND (a file); HOODIE_ECORRUPT/HOODIE_EINVAL (a bad header, a bad record while
 *         inferring, an unknown format). Later failures come from the stream's get_next/get_last_error.
 */
HOODIE_API hoodie_status hoodie_files_stream(const char *const *paths, size_t n_paths, const char *table_path,
                                             const hoodie_files_opts *opts, struct ArrowArrayStream *out);

/**
 * The same over one text input in memory: `data` (borrowed: it must outlive the stream) in opts->format ("csv" or
 * "jsonl", required), `name` naming it in messages. For writing rows a program holds without a temporary file.
 */
HOODIE_API hoodie_status hoodie_buffer_stream(const void *data, size_t len, const char *name, const char *table_path,
                                              const hoodie_files_opts *opts, struct ArrowArrayStream *out);

#ifdef __cplusplus
}
#endif
#endif
