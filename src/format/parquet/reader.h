/*
 * Parquet file reader: footer, schema, projection, batch scan, row-group statistics. No I/O of its own: bytes
 * come through a read callback (hoodie_pq_source), so the whole reader can be fuzzed on a memory buffer.
 *
 *   hoodie_pq_file_open(&f, &src)                  footer + schema (f borrows src; src must outlive f)
 *   hoodie_pq_scan_open(&s, f, &opts)              projection, row-group selection, batch size
 *   while ((rc = hoodie_pq_scan_next(s, &b)) == HOODIE_OK) { use b; hoodie_batch_dispose(&b); }
 *   rc == HOODIE_ITEROVER at the end; hoodie_pq_scan_free(s); hoodie_pq_file_free(f);
 *
 * Batches hold at most opts.batch_rows rows, never split a top-level row, and never span row groups.
 * Memory: a batch owns its buffers (malloc) and is independent of the scan and the file.
 */
#ifndef HOODIE_FORMAT_PARQUET_READER_H
#define HOODIE_FORMAT_PARQUET_READER_H

#include "format/parquet/meta.h"
#include "format/parquet/schema.h"
#include "model/batch.h"

typedef struct hoodie_pq_source {
    void *ctx;
    /** Read exactly len bytes at off. */
    hoodie_status (*read)(void *ctx, uint64_t off, void *buf, size_t len);
    uint64_t size;      /**< file size in bytes */
    const char *name;   /**< for messages */
    /** Advice, may be NULL: ranges about to be read, ascending (a scan gives its column chunks as it starts a
     *  row group, so that remote storage can fetch them at once). */
    void (*will_read)(void *ctx, const uint64_t *offs, const size_t *lens, size_t n);
} hoodie_pq_source;

/** Bytes in memory read as a file (an embedded Parquet log block): hoodie_pq_source_mem fills a source over them;
 *  the struct and the bytes must outlive the file. */
typedef struct hoodie_pq_mem {
    const uint8_t *p;
    size_t len;
} hoodie_pq_mem;
void hoodie_pq_source_mem(hoodie_pq_source *src, hoodie_pq_mem *m, const uint8_t *data, size_t len, const char *name);

typedef struct hoodie_pq_file hoodie_pq_file;
typedef struct hoodie_pq_scan hoodie_pq_scan;

/**
 * Read and check the footer ("PAR1" at both ends, sane length; "PARE": HOODIE_EUNSUPPORTED), decode the
 * FileMetaData and build the schema.
 */
hoodie_status hoodie_pq_file_open(hoodie_pq_file **out, const hoodie_pq_source *src);
void hoodie_pq_file_free(hoodie_pq_file *f);
/** Decoded footer (owned by f). */
const hoodie_pq_file_meta *hoodie_pq_file_metadata(const hoodie_pq_file *f);
/** Full schema: root field (STRUCT of top-level columns), nodes, and leaves in column-chunk order. */
const hoodie_pq_schema *hoodie_pq_file_schema(const hoodie_pq_file *f);
const char *hoodie_pq_file_name(const hoodie_pq_file *f);
/** Value of footer key-value entry i (kv_count of the metadata), reading a long value left in the file (the
 *  footer keeps values over 64 KiB there) on first use; NULL when it has none or on a read error (error set). */
const char *hoodie_pq_file_kv_at(hoodie_pq_file *f, uint32_t i);
/** Value of the footer key-value entry `key`, as hoodie_pq_file_kv_at; NULL when absent. */
const char *hoodie_pq_file_kv(hoodie_pq_file *f, const char *key);

typedef struct hoodie_pq_scan_opts {
    const char *const *columns;   /**< top-level names or dotted paths through structs; NULL: all columns */
    size_t n_columns;
    const uint32_t *row_groups;   /**< row-group indices to read, in this order; NULL: all */
    size_t n_row_groups;
    int64_t batch_rows;           /**< max rows per batch; 0: 65536 */
    int64_t first_row;            /**< rows of the first row group read to skip: the scan starts at that row,
                                       reading from the page that holds it when the chunk has an OffsetIndex */
} hoodie_pq_scan_opts;

/**
 * Rename columns of the open file: the element at dotted path from[i] (of the names as stored: "a", or "s.x" for a
 * struct's field) is named to[i] from now on (projections, statistics, scans opened later), all renames at once.
 * Schema on read (table/evo.h) renames a file's columns to a later version's names by id. Scans already open keep
 * their names.
 */
hoodie_status hoodie_pq_file_rename(hoodie_pq_file *f, const char *const *from, const char *const *to, size_t n);
/** Start a scan. HOODIE_EINVAL: unknown column or row group. The scan borrows f. */
hoodie_status hoodie_pq_scan_open(hoodie_pq_scan **out, hoodie_pq_file *f, const hoodie_pq_scan_opts *opts);
/** Schema of the batches (root STRUCT; owned by the scan). */
const hoodie_field *hoodie_pq_scan_schema(const hoodie_pq_scan *s);
/** Next batch into *out (initialised here; the caller disposes it). HOODIE_ITEROVER at the end. */
hoodie_status hoodie_pq_scan_next(hoodie_pq_scan *s, hoodie_batch *out);
/**
 * A scan of one flat BYTE_ARRAY column may take its values a page at a time, in place, without their being
 * copied into a batch: when the rest of the current page is PLAIN-encoded without nulls, *values..*end holds its
 * *n values, each a 4-byte little-endian length and that many bytes (not checked: hoodie_pq_plain_next checks
 * them), valid until the next call; the scan has moved past them. Returns 1 (nothing taken) for any other page or
 * scan: read on with hoodie_pq_scan_next, which may be mixed with this. HOODIE_ITEROVER at the end.
 */
hoodie_status hoodie_pq_scan_plain_page(hoodie_pq_scan *s, const uint8_t **values, const uint8_t **end, int64_t *n);
/** The file offset of the page the scan's first column read last (for messages). */
uint64_t hoodie_pq_scan_page_offset(const hoodie_pq_scan *s);
/** The next PLAIN BYTE_ARRAY value at *p (< end): 1 with *v, *len set and *p moved past it; 0 when its length runs
 *  past end (a corrupt page). */
static inline int hoodie_pq_plain_next(const uint8_t **p, const uint8_t *end, const uint8_t **v, size_t *len)
{
    const uint8_t *q = *p;
    if (end - q < 4) return 0;
    size_t l = (size_t)q[0] | (size_t)q[1] << 8 | (size_t)q[2] << 16 | (size_t)q[3] << 24;
    if (l > (size_t)(end - q) - 4) return 0;
    *v = q + 4;
    *len = l;
    *p = q + 4 + l;
    return 1;
}
void hoodie_pq_scan_free(hoodie_pq_scan *s);

/* ---- page index ---- */

typedef struct hoodie_pq_page_index {
    hoodie_pq_offset_index oi;    /**< data pages: offset, size (header included), first row */
    int has_ci;
    hoodie_pq_column_index ci;    /**< per page bounds (when has_ci; same page count as oi) */
} hoodie_pq_page_index;

/**
 * The page index of leaf `leaf` in row group `rg`, decoded into `arena` and checked against the footer: pages
 * inside the column chunk, first rows below the row group's row count, one ColumnIndex entry per page.
 * @return HOODIE_OK; HOODIE_ENOTFOUND (the chunk has no OffsetIndex); HOODIE_ECORRUPT (names the file and
 *         offset); HOODIE_ENOMEM; read errors.
 */
hoodie_status hoodie_pq_page_index_read(const hoodie_pq_file *f, uint32_t rg, int leaf, hoodie_arena *arena,
                                        hoodie_pq_page_index *out);
/** Where column chunk (rg, leaf) is stored: its dictionary page (if any), then its data pages, the chunk's
 *  total_compressed_size bytes from *offset. HOODIE_ECORRUPT (file, offset) when the footer places them outside
 *  the file; HOODIE_EINVAL: no such chunk. */
hoodie_status hoodie_pq_chunk_extent(const hoodie_pq_file *f, uint32_t rg, int leaf, uint64_t *offset, size_t *len);
/** Those bytes into dst; len must be the extent's. */
hoodie_status hoodie_pq_chunk_read(const hoodie_pq_file *f, uint32_t rg, int leaf, void *dst, size_t len);
/** The same into out (replacing its contents); *offset_out: where they start in the file. */
hoodie_status hoodie_pq_chunk_bytes(const hoodie_pq_file *f, uint32_t rg, int leaf, hoodie_buf *out,
                                   uint64_t *offset_out);
/** Index of the page holding row `row` of the row group (the last page whose first row is <= row). */
uint32_t hoodie_pq_page_index_find_row(const hoodie_pq_offset_index *oi, int64_t row);

/* ---- statistics and pruning ---- */

typedef enum hoodie_pq_value_kind {
    HOODIE_PQ_VAL_NONE = 0,
    HOODIE_PQ_VAL_BOOL,     /* i: 0/1 */
    HOODIE_PQ_VAL_I64,      /* signed integers, DATE32, TIME*, TIMESTAMP (in the column's unit) */
    HOODIE_PQ_VAL_U64,      /* unsigned integers */
    HOODIE_PQ_VAL_F64,      /* FLOAT, DOUBLE, FLOAT16 */
    HOODIE_PQ_VAL_BYTES,    /* STRING, BINARY, FIXED_BINARY: unsigned lexicographic order */
    HOODIE_PQ_VAL_DECIMAL   /* unscaled 128-bit value (hi:lo), in the column's scale */
} hoodie_pq_value_kind;

typedef struct hoodie_pq_value {
    hoodie_pq_value_kind kind;
    int64_t i;
    uint64_t u;
    double d;
    const uint8_t *bytes;   /* borrowed (from the footer for statistics) */
    size_t len;
    int64_t dec_hi;
    uint64_t dec_lo;
} hoodie_pq_value;

/** <0, 0, >0; values of different kinds compare by kind. */
int hoodie_pq_value_cmp(const hoodie_pq_value *a, const hoodie_pq_value *b);
/** Render a value as text ("2024-01-02" is not attempted: integers stay integers; bytes as UTF-8 or hex). */
const char *hoodie_pq_value_text(const hoodie_pq_value *v, int scale, char *buf, size_t len);

typedef struct hoodie_pq_column_stats {
    int has_min, has_max;        /* min/max usable for pruning (ordering rules applied) */
    hoodie_pq_value min, max;
    int has_null_count;
    int64_t null_count;
    int64_t num_values;          /* level entries in the chunk (rows for flat columns) */
    int64_t num_rows;            /* rows of the row group */
} hoodie_pq_column_stats;

/**
 * Statistics of leaf `leaf` in row group `rg`: min_value/max_value when present; the deprecated min/max only
 * for signed-order types that are not strings or decimals; none for INT96 or when a float bound is NaN.
 */
hoodie_status hoodie_pq_row_group_stats(const hoodie_pq_file *f, uint32_t rg, int leaf, hoodie_pq_column_stats *out);

typedef enum hoodie_pq_op {
    HOODIE_PQ_OP_EQ, HOODIE_PQ_OP_LT, HOODIE_PQ_OP_LE, HOODIE_PQ_OP_GT, HOODIE_PQ_OP_GE,
    HOODIE_PQ_OP_IS_NULL, HOODIE_PQ_OP_IS_NOT_NULL, HOODIE_PQ_OP_IN
} hoodie_pq_op;

/** `column op value` (one value; IN: values[0..n_values)). Values must be of the column's value kind. */
typedef struct hoodie_pq_pred {
    hoodie_pq_op op;
    const hoodie_pq_value *values;
    size_t n_values;
} hoodie_pq_pred;

/** 0 only if no row of the chunk described by `st` can satisfy `p`; 1 otherwise. */
int hoodie_pq_stats_may_match(const hoodie_pq_column_stats *st, const hoodie_pq_pred *p);
/** hoodie_pq_row_group_stats + hoodie_pq_stats_may_match; 1 when statistics are unreadable. */
int hoodie_pq_row_group_may_match(const hoodie_pq_file *f, uint32_t rg, int leaf, const hoodie_pq_pred *p);

#endif
