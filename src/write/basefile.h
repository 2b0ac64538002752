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
     * filter, no min/max keys), as Spark writes such files. hoodie_basefile_write only. */
    int no_key_index;
} hoodie_basefile_opts;

/**
 * Write `n` batches (shaped as file_schema) as one base file. *size_out receives the file size, *rows_out the
 * record count (both may be NULL).
 */
hoodie_status hoodie_basefile_write(const hoodie_basefile_opts *o, const hoodie_batch *const *batches, size_t n,
                                    uint64_t *size_out, int64_t *rows_out);

#endif
