/*
 * Pieces of a write that sit between the write client and the format encoders: the Avro schemas a write
 * records, MOR log files (an Avro data block of updated records and a delete block, written once, exclusively),
 * the requested-replace metadata of insert_overwrite, and new file ids.
 */
#ifndef HOODIE_WRITE_WLOG_H
#define HOODIE_WRITE_WLOG_H

#include "hoodie/parquet.h"
#include "hoodie/sys/storage.h"
#include "hoodie/writer.h"
#include "merge/record_merge.h"
#include "model/avro_encode.h"
#include "model/batch.h"
#include "util/buf.h"

/** Avro schema JSON (malloc) of the data columns: with_meta adds the five meta fields first (parquet.avro.schema,
 *  log blocks), else the table schema recorded in commit metadata. */
hoodie_status hoodie_wlog_avro_schema(char **out, const hoodie_field *data, const char *table_name, int with_meta);

/** Deletes for a delete block: keys (not NUL-terminated), their ordering values, one partition. */
typedef struct hoodie_wlog_deletes {
    const char **keys;
    size_t *key_lens;
    hoodie_ordering *ords;
    size_t count;
    const char *partition;
} hoodie_wlog_deletes;

/** Records for a data block, column by column (model/avro_encode.h): cols[c] gives file-schema column c. */
typedef struct hoodie_wlog_records {
    const hoodie_avro_col *cols;
    size_t n_cols;
    int64_t count;
    hoodie_log_block_format format; /* AVRO_DATA_BLOCK or PARQUET_DATA_BLOCK (an embedded Parquet file) */
    hoodie_parquet_codec codec;     /* the Parquet block's codec */
    uint64_t max_block_bytes;       /* a data block's size, at most (about): more records go to further blocks, as
                                       Hudi's append handle flushes at hoodie.logfile.data.block.max.size; 0: 256 MB */
    int partial;                    /* partial updates: the file schema leaves some of the table's columns out, and
                                       the data blocks say so (IS_PARTIAL "true", as Spark SQL's MERGE INTO writes
                                       them); readers keep the stored values there */
} hoodie_wlog_records;

/**
 * Write a log file at `path` (created exclusively): a data block of `records` (file schema: meta columns + data;
 * taken from their sources, no batch of them built): an AVRO_DATA_BLOCK encoded with `schema_json`, or a
 * PARQUET_DATA_BLOCK (a Parquet file whose footer carries `schema_json` as parquet.avro.schema) -- and/or a
 * DELETE_BLOCK, both with INSTANT_TIME = instant and SCHEMA. *size_out receives the file size. unique_name: no other
 * writer can take the name (a version 8 name, with this instant in it), so the file may become visible late
 * (HOODIE_CREATE_DEFER_VISIBLE); a version 6 name, which another writer may take, reports that at once.
 */
hoodie_status hoodie_wlog_write(const hoodie_storage *s, const char *path, const char *instant, const char *schema_json,
                                const hoodie_field *file_schema, const hoodie_wlog_records *records,
                                const hoodie_wlog_deletes *deletes, int unique_name, uint64_t *size_out);

/**
 * A log-compacted file (logcompaction): the DELETE_BLOCK first, then the data block of `records` (in `format`;
 * Parquet compressed with `codec`), both with INSTANT_TIME, COMPACTED_BLOCK_TIMES = compacted_times (the replaced
 * blocks' instants, comma-separated) and SCHEMA. Deletes come first so that a delete without an ordering value
 * followed by a record of the same key folds as before.
 */
hoodie_status hoodie_wlog_write_compacted(const hoodie_storage *s, const char *path, const char *instant,
                                          const char *compacted_times, const char *schema_json,
                                          const hoodie_field *file_schema, const hoodie_batch *records,
                                          const hoodie_wlog_deletes *deletes, hoodie_log_block_format format,
                                          hoodie_parquet_codec codec, uint64_t *size_out);
/**
 * The same file written a part at a time (a log compaction merged in key-hash partitions): each add appends the
 * part's delete block and data block (none for an empty part), all with the same headers, so that the file holds
 * every part's records; parts hold disjoint keys, so the order between them does not matter. finish makes the file
 * visible (its size in *size_out) and frees the writer; abandon drops it.
 */
typedef struct hoodie_wlog_compacted hoodie_wlog_compacted;
hoodie_status hoodie_wlog_compacted_open(hoodie_wlog_compacted **out, const hoodie_storage *s, const char *path,
                                         const char *instant, const char *compacted_times, const char *schema_json,
                                         const hoodie_field *file_schema, hoodie_log_block_format format,
                                         hoodie_parquet_codec codec);
hoodie_status hoodie_wlog_compacted_add(hoodie_wlog_compacted *w, const hoodie_batch *records,
                                        const hoodie_wlog_deletes *deletes);
hoodie_status hoodie_wlog_compacted_finish(hoodie_wlog_compacted *w, uint64_t *size_out);
void hoodie_wlog_compacted_abandon(hoodie_wlog_compacted *w);

/**
 * The Avro schema JSON (malloc) of a CDC log's records (Hudi's HoodieCDCUtils): for OP_KEY_ONLY the fixed record
 * "Record" {op, record_key}; else record "CDC" (in the table record's namespace) with op, then record_key and
 * before (DATA_BEFORE) or ts_ms, before and after (DATA_BEFORE_AFTER), each nullable with default null; the
 * images are the table record (`data_schema_json`, no meta fields) or null, the second one named by reference.
 */
hoodie_status hoodie_wlog_cdc_schema(char **out, int mode, const char *data_schema_json);

/** A CDC log file at `path` (created exclusively): one CDC_DATA_BLOCK of `records` (shaped as the schema),
 *  INSTANT_TIME and SCHEMA in its header. */
hoodie_status hoodie_wlog_write_cdc(const hoodie_storage *s, const char *path, const char *instant,
                                    const char *schema_json, const hoodie_batch *records, uint64_t *size_out);

/** HoodieRequestedReplaceMetadata (Avro OCF) as Spark writes it for insert_overwrite: every field null. */
hoodie_status hoodie_wlog_requested_replace(hoodie_buf *out, const char *operation);

/** A new file id: a random UUID and "-0", as Hudi creates them. */
void hoodie_write__new_file_id(char *out, size_t cap);

#endif
