/*
 * Parquet files: read any file Spark, Flink or DuckDB writes into Arrow batches, and write Parquet from Arrow.
 *
 * Thread-safety: a reader or writer handle is used by one thread at a time; distinct handles are independent.
 */
#ifndef HOODIE_PARQUET_H
#define HOODIE_PARQUET_H

#include "hoodie/common.h"
#include "hoodie/arrow.h"
#include "hoodie/sys/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hoodie_parquet_reader hoodie_parquet_reader;
typedef struct hoodie_parquet_writer hoodie_parquet_writer;

#define HOODIE_PARQUET_READ_OPTS_VERSION 1
typedef struct hoodie_parquet_read_opts {
    unsigned version;                 /**< HOODIE_PARQUET_READ_OPTS_VERSION */
    const hoodie_storage *storage;    /**< NULL: local POSIX */
    const char *const *columns;       /**< projection: top-level names or dotted nested paths; NULL: all */
    size_t n_columns;
    int64_t batch_rows;               /**< rows per batch; 0: 65536 */
} hoodie_parquet_read_opts;
#define HOODIE_PARQUET_READ_OPTS_INIT { HOODIE_PARQUET_READ_OPTS_VERSION, NULL, NULL, 0, 0 }

/**
 * Open a Parquet file and read its footer.
 * @return HOODIE_OK; HOODIE_ENOTFOUND; HOODIE_ECORRUPT (message names the file and byte offset);
 *         HOODIE_EUNSUPPORTED (e.g. an encrypted footer); HOODIE_EINVAL (projection names an unknown column).
 */
HOODIE_API hoodie_status hoodie_parquet_reader_open(hoodie_parquet_reader **out, const char *path,
                                                    const hoodie_parquet_read_opts *opts);
HOODIE_API void hoodie_parquet_reader_free(hoodie_parquet_reader *r);
/** Rows in the file (from the footer). */
HOODIE_API int64_t hoodie_parquet_reader_num_rows(const hoodie_parquet_reader *r);
/** Schema of the projected columns as an ArrowSchema; the caller releases it. */
HOODIE_API hoodie_status hoodie_parquet_reader_schema(hoodie_parquet_reader *r, struct ArrowSchema *out);
/**
 * The rows as a stream of Arrow batches. The stream borrows `r`: release the stream before freeing the reader.
 */
HOODIE_API hoodie_status hoodie_parquet_reader_stream(hoodie_parquet_reader *r, struct ArrowArrayStream *out);
/** Footer value of a key-value metadata key, or NULL (borrowed from r). */
HOODIE_API const char *hoodie_parquet_reader_kv(const hoodie_parquet_reader *r, const char *key);
/**
 * Describe the file: schema (Parquet and Arrow types), row groups, column chunks, encodings, codecs, statistics,
 * key-value metadata. `json` selects JSON output. The string is malloc'ed; free() it.
 */
HOODIE_API hoodie_status hoodie_parquet_reader_describe(hoodie_parquet_reader *r, int json, char **out);
/** The Parquet schema as an indented tree (malloc'ed). */
HOODIE_API hoodie_status hoodie_parquet_reader_schema_text(hoodie_parquet_reader *r, char **out);

typedef enum hoodie_parquet_codec {
    HOODIE_PARQUET_CODEC_UNCOMPRESSED = 0, HOODIE_PARQUET_CODEC_SNAPPY = 1, HOODIE_PARQUET_CODEC_GZIP = 2,
    HOODIE_PARQUET_CODEC_ZSTD = 6, HOODIE_PARQUET_CODEC_LZ4_RAW = 7
} hoodie_parquet_codec;

#define HOODIE_PARQUET_WRITE_OPTS_VERSION 1
typedef struct hoodie_parquet_write_opts {
    unsigned version;                 /**< HOODIE_PARQUET_WRITE_OPTS_VERSION */
    const hoodie_storage *storage;    /**< NULL: local POSIX */
    hoodie_parquet_codec codec;       /**< default SNAPPY */
    int64_t row_group_rows;           /**< max rows per row group; 0: 1,048,576 */
    int64_t row_group_bytes;          /**< target uncompressed bytes per row group; 0: 128 MiB */
    int64_t page_bytes;               /**< target page size; 0: 1 MiB */
    int dictionary;                   /**< 1 (default): dictionary encoding with fallback to plain; 0: plain */
    int64_t dictionary_page_bytes;    /**< dictionary size limit before fallback; 0: 1 MiB */
    int data_page_v2;                 /**< 1: DATA_PAGE_V2 pages */
    int zstd_level;                   /**< 0: 3 */
    const char *const *kv_keys;       /**< key-value metadata written to the footer */
    const char *const *kv_values;
    size_t n_kv;
    unsigned create_flags;            /**< storage create flags, e.g. HOODIE_CREATE_EXCLUSIVE */
} hoodie_parquet_write_opts;
#define HOODIE_PARQUET_WRITE_OPTS_INIT \
    { HOODIE_PARQUET_WRITE_OPTS_VERSION, NULL, HOODIE_PARQUET_CODEC_SNAPPY, 0, 0, 0, 1, 0, 0, 0, NULL, NULL, 0, 0 }

/**
 * Start a Parquet file with the given Arrow schema (a struct schema whose children are the columns).
 * Nothing is visible at `path` until hoodie_parquet_writer_close() succeeds.
 */
HOODIE_API hoodie_status hoodie_parquet_writer_open(hoodie_parquet_writer **out, const char *path,
                                                    const struct ArrowSchema *schema,
                                                    const hoodie_parquet_write_opts *opts);
/** Append a batch (a struct array matching the schema). The array is borrowed, not released. */
HOODIE_API hoodie_status hoodie_parquet_writer_write(hoodie_parquet_writer *w, const struct ArrowArray *batch);
/** Finish the file: last row group, footer, then make it visible. */
HOODIE_API hoodie_status hoodie_parquet_writer_close(hoodie_parquet_writer *w);
/** Drop the file (if not closed) and free. NULL is a no-op. */
HOODIE_API void hoodie_parquet_writer_free(hoodie_parquet_writer *w);
/** Write everything from a stream into a new file (consumes and releases the stream). */
HOODIE_API hoodie_status hoodie_parquet_write_stream(const char *path, struct ArrowArrayStream *stream,
                                                     const hoodie_parquet_write_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
