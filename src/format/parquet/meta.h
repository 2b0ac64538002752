/*
 * Parquet file metadata (parquet.thrift), as plain C structs, with decode from and encode to Thrift compact
 * bytes. No I/O: the caller reads the footer bytes and hands them over.
 *
 * FILE LAYOUT
 *   SIZE  FIELD
 *     4   magic "PAR1"
 *     *   column chunks: [dictionary page] data pages ..., each page = PageHeader (thrift) + page bytes
 *     *   page index (optional): ColumnIndex of every chunk, then OffsetIndex of every chunk (thrift compact)
 *     *   FileMetaData (thrift compact)
 *     4   footer length (LE u32, the FileMetaData bytes)
 *     4   magic "PAR1"
 *
 * Decoded structs live in the arena passed to the decoder (strings are NUL-terminated copies, so they
 * outlive the input bytes). Fields absent in the file are 0/NULL and have their has_* flag clear.
 * Thrift field ids are given next to each member.
 */
#ifndef HOODIE_FORMAT_PARQUET_META_H
#define HOODIE_FORMAT_PARQUET_META_H

#include <stdint.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/cursor.h"

typedef enum hoodie_pq_type {
    HOODIE_PQ_BOOLEAN = 0, HOODIE_PQ_INT32 = 1, HOODIE_PQ_INT64 = 2, HOODIE_PQ_INT96 = 3, HOODIE_PQ_FLOAT = 4,
    HOODIE_PQ_DOUBLE = 5, HOODIE_PQ_BYTE_ARRAY = 6, HOODIE_PQ_FIXED_LEN_BYTE_ARRAY = 7
} hoodie_pq_type;

typedef enum hoodie_pq_converted {
    HOODIE_PQ_CT_NONE = -1, HOODIE_PQ_CT_UTF8 = 0, HOODIE_PQ_CT_MAP = 1, HOODIE_PQ_CT_MAP_KEY_VALUE = 2,
    HOODIE_PQ_CT_LIST = 3, HOODIE_PQ_CT_ENUM = 4, HOODIE_PQ_CT_DECIMAL = 5, HOODIE_PQ_CT_DATE = 6,
    HOODIE_PQ_CT_TIME_MILLIS = 7, HOODIE_PQ_CT_TIME_MICROS = 8, HOODIE_PQ_CT_TIMESTAMP_MILLIS = 9,
    HOODIE_PQ_CT_TIMESTAMP_MICROS = 10, HOODIE_PQ_CT_UINT_8 = 11, HOODIE_PQ_CT_UINT_16 = 12,
    HOODIE_PQ_CT_UINT_32 = 13, HOODIE_PQ_CT_UINT_64 = 14, HOODIE_PQ_CT_INT_8 = 15, HOODIE_PQ_CT_INT_16 = 16,
    HOODIE_PQ_CT_INT_32 = 17, HOODIE_PQ_CT_INT_64 = 18, HOODIE_PQ_CT_JSON = 19, HOODIE_PQ_CT_BSON = 20,
    HOODIE_PQ_CT_INTERVAL = 21
} hoodie_pq_converted;

typedef enum hoodie_pq_repetition {
    HOODIE_PQ_REQUIRED = 0, HOODIE_PQ_OPTIONAL = 1, HOODIE_PQ_REPEATED = 2
} hoodie_pq_repetition;

typedef enum hoodie_pq_encoding {
    HOODIE_PQ_PLAIN = 0, HOODIE_PQ_PLAIN_DICTIONARY = 2, HOODIE_PQ_RLE = 3, HOODIE_PQ_BIT_PACKED = 4,
    HOODIE_PQ_DELTA_BINARY_PACKED = 5, HOODIE_PQ_DELTA_LENGTH_BYTE_ARRAY = 6, HOODIE_PQ_DELTA_BYTE_ARRAY = 7,
    HOODIE_PQ_RLE_DICTIONARY = 8, HOODIE_PQ_BYTE_STREAM_SPLIT = 9
} hoodie_pq_encoding;

typedef enum hoodie_pq_codec {
    HOODIE_PQ_UNCOMPRESSED = 0, HOODIE_PQ_SNAPPY = 1, HOODIE_PQ_GZIP = 2, HOODIE_PQ_LZO = 3, HOODIE_PQ_BROTLI = 4,
    HOODIE_PQ_LZ4 = 5 /* Hadoop-framed (or raw, by fallback) */, HOODIE_PQ_ZSTD = 6, HOODIE_PQ_LZ4_RAW = 7
} hoodie_pq_codec;

typedef enum hoodie_pq_page_type {
    HOODIE_PQ_DATA_PAGE = 0, HOODIE_PQ_INDEX_PAGE = 1, HOODIE_PQ_DICTIONARY_PAGE = 2, HOODIE_PQ_DATA_PAGE_V2 = 3
} hoodie_pq_page_type;

/* LogicalType union member ids (field ids of the union). */
typedef enum hoodie_pq_logical {
    HOODIE_PQ_LT_NONE = 0, HOODIE_PQ_LT_STRING = 1, HOODIE_PQ_LT_MAP = 2, HOODIE_PQ_LT_LIST = 3,
    HOODIE_PQ_LT_ENUM = 4, HOODIE_PQ_LT_DECIMAL = 5, HOODIE_PQ_LT_DATE = 6, HOODIE_PQ_LT_TIME = 7,
    HOODIE_PQ_LT_TIMESTAMP = 8, HOODIE_PQ_LT_INTEGER = 10, HOODIE_PQ_LT_UNKNOWN = 11, HOODIE_PQ_LT_JSON = 12,
    HOODIE_PQ_LT_BSON = 13, HOODIE_PQ_LT_UUID = 14, HOODIE_PQ_LT_FLOAT16 = 15
} hoodie_pq_logical;

typedef enum hoodie_pq_time_unit { HOODIE_PQ_MILLIS = 1, HOODIE_PQ_MICROS = 2, HOODIE_PQ_NANOS = 3 } hoodie_pq_time_unit;

typedef struct hoodie_pq_logical_type {
    hoodie_pq_logical kind;          /* NONE when absent */
    int32_t decimal_scale;           /* DECIMAL: 1 scale, 2 precision */
    int32_t decimal_precision;
    int is_adjusted_to_utc;          /* TIME, TIMESTAMP: 1 isAdjustedToUTC, 2 unit */
    hoodie_pq_time_unit unit;
    int8_t int_bit_width;            /* INTEGER: 1 bitWidth, 2 isSigned */
    int int_signed;
} hoodie_pq_logical_type;

typedef struct hoodie_pq_schema_element {
    int has_type;
    hoodie_pq_type type;             /* 1 */
    int32_t type_length;             /* 2 */
    int has_repetition;
    hoodie_pq_repetition repetition; /* 3 */
    char *name;                      /* 4, arena */
    int32_t num_children;            /* 5 (0 for leaves) */
    hoodie_pq_converted converted;   /* 6; HOODIE_PQ_CT_NONE when absent */
    int32_t scale;                   /* 7 */
    int32_t precision;               /* 8 */
    int has_field_id;
    int32_t field_id;                /* 9 */
    hoodie_pq_logical_type logical;  /* 10 */
} hoodie_pq_schema_element;

typedef struct hoodie_pq_statistics {
    int present;
    const uint8_t *max; uint32_t max_len; int has_max;             /* 1 (deprecated, signed order) */
    const uint8_t *min; uint32_t min_len; int has_min;             /* 2 (deprecated) */
    int has_null_count; int64_t null_count;                        /* 3 */
    int has_distinct_count; int64_t distinct_count;                /* 4 */
    const uint8_t *max_value; uint32_t max_value_len; int has_max_value;   /* 5, arena */
    const uint8_t *min_value; uint32_t min_value_len; int has_min_value;   /* 6, arena */
} hoodie_pq_statistics;

typedef struct hoodie_pq_kv {
    char *key;   /* 1, arena */
    char *value; /* 2, arena; NULL when absent or deferred */
    /* deferred (hoodie_pq_file_meta_decode_ex): a long value is left in the file, value_len bytes at value_off */
    int value_deferred;
    uint64_t value_off;
    uint32_t value_len;
} hoodie_pq_kv;

typedef struct hoodie_pq_column_meta {
    hoodie_pq_type type;                 /* 1 */
    uint32_t encoding_count;
    hoodie_pq_encoding *encodings;       /* 2, arena */
    uint32_t path_count;
    char **path;                         /* 3, arena */
    hoodie_pq_codec codec;               /* 4 */
    int64_t num_values;                  /* 5 */
    int64_t total_uncompressed_size;     /* 6 */
    int64_t total_compressed_size;       /* 7 */
    uint32_t kv_count;
    hoodie_pq_kv *kv;                    /* 8, arena */
    int64_t data_page_offset;            /* 9 */
    int has_index_page_offset;
    int64_t index_page_offset;           /* 10 */
    int has_dictionary_page_offset;
    int64_t dictionary_page_offset;      /* 11 */
    hoodie_pq_statistics statistics;     /* 12 */
    int has_bloom_filter;
    int64_t bloom_filter_offset;         /* 14 */
    int32_t bloom_filter_length;         /* 15 */
} hoodie_pq_column_meta;

typedef struct hoodie_pq_column_chunk {
    char *file_path;                     /* 1, arena; NULL when absent */
    int64_t file_offset;                 /* 2 */
    int has_meta;
    hoodie_pq_column_meta meta;          /* 3 */
    int has_offset_index;
    int64_t offset_index_offset;         /* 4 */
    int32_t offset_index_length;         /* 5 */
    int has_column_index;
    int64_t column_index_offset;         /* 6 */
    int32_t column_index_length;         /* 7 */
} hoodie_pq_column_chunk;

typedef struct hoodie_pq_row_group {
    uint32_t column_count;
    hoodie_pq_column_chunk *columns;     /* 1, arena */
    int64_t total_byte_size;             /* 2 */
    int64_t num_rows;                    /* 3 */
    int has_file_offset;
    int64_t file_offset;                 /* 5 */
    int has_total_compressed_size;
    int64_t total_compressed_size;       /* 6 */
    int has_ordinal;
    int16_t ordinal;                     /* 7 */
} hoodie_pq_row_group;

typedef struct hoodie_pq_file_meta {
    int32_t version;                     /* 1 */
    uint32_t schema_count;
    hoodie_pq_schema_element *schema;    /* 2, arena: depth-first, schema[0] is the root */
    int64_t num_rows;                    /* 3 */
    uint32_t row_group_count;
    hoodie_pq_row_group *row_groups;     /* 4, arena */
    uint32_t kv_count;
    hoodie_pq_kv *kv;                    /* 5, arena */
    char *created_by;                    /* 6, arena; NULL when absent */
    uint32_t column_order_count;         /* 7: list of ColumnOrder; only TYPE_ORDER exists */
} hoodie_pq_file_meta;

typedef struct hoodie_pq_data_page_header {
    int32_t num_values;                  /* 1 */
    hoodie_pq_encoding encoding;         /* 2 */
    hoodie_pq_encoding def_encoding;     /* 3 */
    hoodie_pq_encoding rep_encoding;     /* 4 */
    hoodie_pq_statistics statistics;     /* 5 */
} hoodie_pq_data_page_header;

typedef struct hoodie_pq_dict_page_header {
    int32_t num_values;                  /* 1 */
    hoodie_pq_encoding encoding;         /* 2 */
    int is_sorted;                       /* 3 */
} hoodie_pq_dict_page_header;

typedef struct hoodie_pq_data_page_v2_header {
    int32_t num_values;                  /* 1 */
    int32_t num_nulls;                   /* 2 */
    int32_t num_rows;                    /* 3 */
    hoodie_pq_encoding encoding;         /* 4 */
    int32_t def_levels_len;              /* 5 */
    int32_t rep_levels_len;              /* 6 */
    int is_compressed;                   /* 7, default 1 */
    hoodie_pq_statistics statistics;     /* 8 */
} hoodie_pq_data_page_v2_header;

typedef struct hoodie_pq_page_header {
    hoodie_pq_page_type type;            /* 1 */
    int32_t uncompressed_size;           /* 2 */
    int32_t compressed_size;             /* 3 */
    int has_crc;
    int32_t crc;                         /* 4 */
    hoodie_pq_data_page_header data;     /* 5 */
    hoodie_pq_dict_page_header dict;     /* 7 */
    hoodie_pq_data_page_v2_header data_v2; /* 8 */
} hoodie_pq_page_header;

/* ---- page index: one ColumnIndex and one OffsetIndex per column chunk, stored between the last column chunk
 * and the footer (ColumnChunk 4-7 give their offsets and lengths). Entry i of every list is data page i. ---- */

typedef struct hoodie_pq_page_location {
    int64_t offset;                      /* 1: file offset of the page header */
    int32_t compressed_page_size;        /* 2: header included */
    int64_t first_row_index;             /* 3: within the row group */
} hoodie_pq_page_location;

typedef struct hoodie_pq_offset_index {
    uint32_t page_count;
    hoodie_pq_page_location *pages;      /* 1, arena */
} hoodie_pq_offset_index;

typedef enum hoodie_pq_boundary_order {
    HOODIE_PQ_UNORDERED = 0, HOODIE_PQ_ASCENDING = 1, HOODIE_PQ_DESCENDING = 2
} hoodie_pq_boundary_order;

typedef struct hoodie_pq_column_index {
    uint32_t page_count;
    uint8_t *null_pages;                 /* 1, arena: 1 = the page holds only nulls (its min/max are empty) */
    const uint8_t **min_values;          /* 2, arena (same plain encoding as Statistics.min_value) */
    uint32_t *min_lens;
    const uint8_t **max_values;          /* 3, arena */
    uint32_t *max_lens;
    hoodie_pq_boundary_order boundary_order; /* 4 */
    int has_null_counts;
    int64_t *null_counts;                /* 5, arena */
} hoodie_pq_column_index;

/** Decode an OffsetIndex (offsets must increase, first_row_index strictly, the first one 0). */
hoodie_status hoodie_pq_offset_index_decode(hoodie_pq_offset_index *out, hoodie_cursor *c, hoodie_arena *arena);
/** Decode a ColumnIndex (its lists must have the same length). */
hoodie_status hoodie_pq_column_index_decode(hoodie_pq_column_index *out, hoodie_cursor *c, hoodie_arena *arena);
hoodie_status hoodie_pq_offset_index_encode(const hoodie_pq_offset_index *oi, hoodie_buf *out);
hoodie_status hoodie_pq_column_index_encode(const hoodie_pq_column_index *ci, hoodie_buf *out);

/**
 * Decode a FileMetaData from `c` (positioned at the footer bytes; c->file_off set to their offset in the file
 * and c->what to the file name for messages). Everything decoded lives in `arena`.
 * @return HOODIE_OK; HOODIE_ECORRUPT (message names the file and offset); HOODIE_ENOMEM.
 */
hoodie_status hoodie_pq_file_meta_decode(hoodie_pq_file_meta *out, hoodie_cursor *c, hoodie_arena *arena);
/** Same; file key-value values longer than defer_over bytes (0: none) are not copied but deferred (offset and
 *  length kept), so that a large entry nobody asks for (a Hudi bloom filter) takes no memory. */
hoodie_status hoodie_pq_file_meta_decode_ex(hoodie_pq_file_meta *out, hoodie_cursor *c, hoodie_arena *arena,
                                            uint32_t defer_over);
/** Decode one PageHeader at the cursor (advances past it). Statistics bytes point into `arena`. */
hoodie_status hoodie_pq_page_header_decode(hoodie_pq_page_header *out, hoodie_cursor *c, hoodie_arena *arena);

/** Append the thrift compact encoding of `m` to `out`. */
hoodie_status hoodie_pq_file_meta_encode(const hoodie_pq_file_meta *m, hoodie_buf *out);
hoodie_status hoodie_pq_page_header_encode(const hoodie_pq_page_header *h, hoodie_buf *out);

#endif
