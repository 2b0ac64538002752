/*
 * Writing an ArrowArrayStream out as text or Parquet: the output side of `hoodie parquet cat` and `hoodie read`.
 *
 * Text formats render values the way DuckDB prints them with TimeZone UTC (timestamps "2023-04-01 17:01:00+00",
 * nested values as {'f': v}, [a, b], {k=v}); JSON lines use JSON objects, arrays and strings.
 * Thread-safety: no shared state; one call per stream.
 */
#ifndef HOODIE_OUTPUT_H
#define HOODIE_OUTPUT_H

#include <stdio.h>
#include "hoodie/common.h"
#include "hoodie/arrow.h"
#include "hoodie/parquet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hoodie_output_format {
    HOODIE_OUTPUT_CSV = 0,     /**< header line, RFC 4180 quoting */
    HOODIE_OUTPUT_JSONL = 1,   /**< one JSON object per row */
    HOODIE_OUTPUT_PARQUET = 2, /**< a Parquet file (needs a path) */
    HOODIE_OUTPUT_TABLE = 3    /**< an aligned table for terminals */
} hoodie_output_format;

#define HOODIE_OUTPUT_OPTS_VERSION 1
typedef struct hoodie_output_opts {
    unsigned version;                          /**< HOODIE_OUTPUT_OPTS_VERSION */
    hoodie_output_format format;
    const hoodie_parquet_write_opts *parquet;  /**< HOODIE_OUTPUT_PARQUET: NULL for defaults */
    int64_t max_rows;                          /**< stop after this many rows; 0: all (TABLE: 0 means 40) */
} hoodie_output_opts;
#define HOODIE_OUTPUT_OPTS_INIT { HOODIE_OUTPUT_OPTS_VERSION, HOODIE_OUTPUT_CSV, NULL, 0 }

/**
 * Drain `stream` (consumed and released, whatever the outcome) into `path`, or to `out` when path is NULL
 * (text formats only). Parquet output becomes visible at `path` only when complete.
 * @param[out] rows_out  rows written (may be NULL).
 * @return HOODIE_OK; HOODIE_EINVAL (Parquet to a FILE*); the stream's or the storage's failure.
 */
HOODIE_API hoodie_status hoodie_output_stream(struct ArrowArrayStream *stream, const char *path, FILE *out,
                                              const hoodie_output_opts *opts, int64_t *rows_out);

#ifdef __cplusplus
}
#endif
#endif
