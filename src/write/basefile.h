/*
 * Writing a Hudi base file: a Parquet file of file records (the five meta columns + data) whose footer carries
 * what Hudi's readers and indexes expect (hudi-format.md 10.1): parquet.avro.schema, writer.model.name=avro,
 * the DYNAMIC_V0 bloom filter of the record keys (Hudi's default sizing), hoodie_min_record_key and
 * hoodie_max_record_key. The file is created exclusively: it appears whole or not at all.
 */
#ifndef HOODIE_WRITE_BASEFILE_H
#define HOODIE_WRITE_BASEFILE_H

#include "hoodie/parquet.h"
#include "hoodie/sys/storage.h"
#include "model/batch.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"

typedef struct hoodie_basefile_opts {
    const hoodie_storage *storage;
    const char *path;                 /* full path of the new file */
    const hoodie_field *file_schema;  /* meta + data columns; the record key is column 2 */
    const char *avro_schema;          /* parquet.avro.schema (with meta fields) */
    hoodie_parquet_codec codec;
    int64_t row_group_bytes;          /* 0: the writer's default */
    int32_t bloom_entries;            /* keys per bloom filter row (bounded at 100000 keys or this); 0: 60000 */
    /* The footer index of a file whose record keys the batches repeat exactly, in the same order (a copy-on-write
     * rewrite that replaced records in place): its bloom filter (base64), filter type code and min/max keys are
     * reused instead of rebuilt from 10^5..10^6 keys (a filter is a function of the key sequence). NULL: build. */
    const char *reuse_bloom, *reuse_bloom_type, *reuse_min_key, *reuse_max_key;
    /* A table without meta fields (hoodie.populate.meta.fields=false): the footer has no key index (no bloom
     * filter, no min/max keys), as Spark writes such files. */
    int no_key_index;
    /* _hoodie_file_name (column 4) of every row: the new file's name, for copied records too, as Hudi rewrites it
     * (hudi-format.md 4.1); the batches' column 4 is not read. NULL: written as the batches hold it. */
    const char *file_name;
    /* > 0: the reused index is that of the file's first reuse_rows records only (a rewrite that kept every record
     * in place and added inserts after them): the DYNAMIC_V0 filter is continued with the later records' keys and
     * the min/max keys widened by them (when the filter cannot be continued, it is rebuilt from every key).
     * 0: the reused index is the whole file's. */
    int64_t reuse_rows;
} hoodie_basefile_opts;

/**
 * Write `n` batches (shaped as file_schema) as one base file. *size_out receives the file size, *rows_out the
 * record count (both may be NULL).
 */
hoodie_status hoodie_basefile_write(const hoodie_basefile_opts *o, const hoodie_batch *const *batches, size_t n,
                                    uint64_t *size_out, int64_t *rows_out);

/* One part of a base file (hoodie_basefile_write_parts): rows shaped as file_schema (the record keys, column 2,
 * always present). copies NULL: encoded, and may share a row group with the parts around it. Otherwise one entry
 * per leaf (hoodie_basefile_copy_map order): the part is a row group of its own, and a leaf with a copy is stored
 * as that chunk of another file (its column in the batch is not read and may be empty). */
typedef struct hoodie_basefile_part {
    const hoodie_batch *batch;
    const hoodie_pq_chunk_copy *const *copies;
    /* refs != NULL: instead of batch, the rows refs[0 .. n_refs) of roots[0 .. n_roots) (root arrays shaped as
     * file_schema; hoodie_pq_writer_write_refs), with the copies as above */
    const hoodie_array *const *roots;
    size_t n_roots;
    const hoodie_row_ref *refs;
    size_t n_refs;
} hoodie_basefile_part;

hoodie_status hoodie_basefile_write_parts(const hoodie_basefile_opts *o, const hoodie_basefile_part *parts, size_t n,
                                          uint64_t *size_out, int64_t *rows_out);

/* Which leaves of a base file of file_schema could be copies of the chunks of Parquet file src: src_leaf[i] is the
 * source leaf for leaf i (the same top-level column, physical type, annotation and levels), or -1. */
typedef struct hoodie_basefile_copymap {
    size_t n_leaves, n_copyable;
    int *src_leaf;   /* malloc */
    int *top;        /* malloc: the top-level column of each leaf */
} hoodie_basefile_copymap;

hoodie_status hoodie_basefile_copy_map(const hoodie_field *file_schema, const hoodie_pq_file *src,
                                       hoodie_basefile_copymap *out);

#endif
