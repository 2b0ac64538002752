#include "write/wlog.h"
#include "format/avro/schema.h"
#include "format/hlog/hlog.h"
#include "format/hlog/hlog_write.h"
#include "format/parquet/writer.h"
#include "model/avro_encode.h"
#include "model/avro_schema_gen.h"
#include "storage/storage.h"
#include "util/arena.h"
#include "util/error.h"
#include "write/avro_enc.h"

#include "table/config.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

hoodie_status hoodie_wlog_avro_schema(char **out, const hoodie_field *data, const char *table_name, int with_meta)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    *out = NULL;
    hoodie_status rc = hoodie_avro_schema_gen(&b, data, table_name,
                                              HOODIE_AVRO_GEN_NULL_FIRST | (with_meta ? HOODIE_AVRO_GEN_META_FIELDS : 0));
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&b);
    if (rc < 0) { hoodie_buf_dispose(&b); return rc; }
    *out = (char *)hoodie_buf_detach(&b, NULL);
    return HOODIE_OK;
}

/* The delete block's orderingVal: Hudi wraps the ordering field's value in the matching wrapper record. */
static void delete_ordering(const hoodie_ordering *o, hoodie_hlog_delete *d)
{
    switch (o->kind) {
    case HOODIE_ORD_NONE: d->ord_type = HOODIE_HLOG_ORD_INT; d->ord_i = 0; break; /* natural order, as Spark */
    case HOODIE_ORD_INT: d->ord_type = HOODIE_HLOG_ORD_LONG; d->ord_i = o->i; break;
    case HOODIE_ORD_DOUBLE: d->ord_type = HOODIE_HLOG_ORD_DOUBLE; d->ord_d = o->d; break;
    case HOODIE_ORD_BYTES:
        d->ord_type = HOODIE_HLOG_ORD_STRING;
        d->ord_bytes = o->bytes;
        d->ord_len = o->len;
        break;
    case HOODIE_ORD_DECIMAL: d->ord_type = HOODIE_HLOG_ORD_LONG; d->ord_i = (int64_t)o->lo; break;
    }
}

static hoodie_status buf_sink(void *ctx, const void *data, size_t len) { return hoodie_buf_append(ctx, data, len); }

/*
 * A PARQUET_DATA_BLOCK of column sources: the records as a Parquet file in memory, as Hudi's HoodieParquetDataBlock
 * embeds them (the write's codec, dictionary encoding, parquet.avro.schema in the footer so that parquet-avro
 * readers see the log schema). Row-listed columns are written without being gathered first, constant ones (commit
 * time, partition path, file name) as the writer's constants.
 */
static hoodie_status parquet_block(hoodie_buf *out, const char *schema_json, const hoodie_field *file_schema,
                                   const hoodie_wlog_records *recs, const hoodie_hlog_header_entry *hdr, size_t nh)
{
    if (recs->n_cols != file_schema->n_children)
        return HOODIE_FAIL(HOODIE_EINVAL, "%zu column sources for %zu columns", recs->n_cols, file_schema->n_children);
    static const char *const kv_keys[] = { "parquet.avro.schema", "writer.model.name" };
    const char *kv_values[] = { schema_json, "avro" };
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    o.codec = (hoodie_pq_codec)recs->codec;
    o.dictionary = 1;
    o.kv_keys = kv_keys;
    o.kv_values = kv_values;
    o.n_kv = 2;
    hoodie_buf content = HOODIE_BUF_INIT;
    hoodie_pq_writer *pw = NULL;
    hoodie_array root;
    memset(&root, 0, sizeof root);
    root.length = recs->count;
    root.n_children = recs->n_cols;
    root.children = calloc(recs->n_cols + 1, sizeof *root.children); /* shallow copies of the sources */
    const int64_t **sel = calloc(recs->n_cols + 1, sizeof *sel);
    hoodie_status rc = root.children && sel ? HOODIE_OK : HOODIE_NOMEM();
    if (rc == HOODIE_OK) rc = hoodie_pq_writer_open(&pw, file_schema, &o, (hoodie_pq_sink){ &content, buf_sink });
    for (size_t c = 0; rc == HOODIE_OK && c < recs->n_cols; c++) {
        const hoodie_avro_col *src = &recs->cols[c];
        const hoodie_array *a = src->array;
        if (!a) { rc = HOODIE_FAIL(HOODIE_EINVAL, "no source for column %zu", c); break; }
        if (src->constant) {
            if (a->length < 1 || !hoodie_array_is_valid(a, 0) || !a->offsets)
                rc = HOODIE_FAIL(HOODIE_EINVAL, "column %zu: a constant must be one string value", c);
            else { /* an empty value (a non-partitioned table's path) is "", never NULL, which would end it */
                size_t len;
                const uint8_t *p = hoodie_array_bytes_at(a, 0, &len);
                rc = hoodie_pq_writer_set_constant(pw, c, p, len);
            }
            continue; /* its array is not read */
        }
        root.children[c] = *a; /* rows checked by the writer */
        sel[c] = src->rows;
    }
    if (rc == HOODIE_OK) rc = hoodie_pq_writer_write_selected(pw, &root, sel);
    if (rc == HOODIE_OK) rc = hoodie_pq_writer_close(pw);
    hoodie_pq_writer_free(pw);
    free(root.children);
    free(sel);
    if (rc == HOODIE_OK) rc = hoodie_hlog_write_block(out, HOODIE_HLOG_PARQUET_DATA_BLOCK, hdr, nh, content.data,
                                                      content.len);
    hoodie_buf_dispose(&content);
    return rc;
}

/* The AVRO_DATA_BLOCK of column sources. */
static hoodie_status data_block(hoodie_buf *out, hoodie_arena *a, const char *schema_json,
                                const hoodie_field *file_schema, const hoodie_wlog_records *recs,
                                const hoodie_hlog_header_entry *hdr, size_t nh)
{
    hoodie_avro_schema *sch;
    hoodie_avro_encoder *enc = NULL;
    hoodie_status rc = hoodie_avro_schema_parse(&sch, schema_json, strlen(schema_json), a, "log schema");
    if (rc == HOODIE_OK) rc = hoodie_avro_encoder_new(&enc, sch, file_schema);
    if (rc == HOODIE_OK) rc = hoodie_avro_encode_data_block_cols(out, enc, recs->cols, recs->n_cols, recs->count, hdr, nh);
    hoodie_avro_encoder_free(enc);
    return rc;
}

static hoodie_status delete_block(hoodie_buf *out, hoodie_arena *a, const hoodie_wlog_deletes *deletes,
                                  const hoodie_hlog_header_entry *hdr, size_t nh)
{
    hoodie_hlog_delete *d = hoodie_arena_calloc(a, deletes->count, sizeof *d);
    if (!d) return HOODIE_ENOMEM;
    for (size_t i = 0; i < deletes->count; i++) {
        d[i].record_key = hoodie_arena_strndup(a, deletes->keys[i], deletes->key_lens[i]);
        d[i].partition_path = deletes->partition;
        delete_ordering(&deletes->ords[i], &d[i]);
        if (!d[i].record_key) return HOODIE_ENOMEM;
    }
    return hoodie_hlog_write_delete_block(out, hdr, nh, d, deletes->count);
}

/* One data block of every record of `recs`. */
static hoodie_status one_data_block(hoodie_buf *out, hoodie_arena *a, const char *schema_json,
                                    const hoodie_field *file_schema, const hoodie_wlog_records *recs,
                                    const hoodie_hlog_header_entry *hdr, size_t nh)
{
    return recs->format == HOODIE_LOG_BLOCK_PARQUET ? parquet_block(out, schema_json, file_schema, recs, hdr, nh)
                                                    : data_block(out, a, schema_json, file_schema, recs, hdr, nh);
}

/* Records [from, from + n) of `recs` as sources of their own (cols: n_cols entries; idx: n entries of scratch for
 * the columns taken by position). */
static void records_range(const hoodie_wlog_records *recs, int64_t from, int64_t n, hoodie_avro_col *cols,
                          int64_t *idx, hoodie_wlog_records *out)
{
    for (int64_t i = 0; i < n; i++) idx[i] = from + i;
    for (size_t c = 0; c < recs->n_cols; c++) {
        cols[c] = recs->cols[c];
        if (!cols[c].constant) cols[c].rows = recs->cols[c].rows ? recs->cols[c].rows + from : idx;
    }
    *out = *recs;
    out->cols = cols;
    out->count = n;
}

#define LOG_BLOCK_MAX_BYTES ((uint64_t)256 << 20) /* hoodie.logfile.data.block.max.size */
/* A write of more than SAMPLE_OVER records is sized from its first SAMPLE_RECORDS (an extra encoding of at most
 * 1/16 of it); a smaller one is encoded whole and measured (the MOR appends of an upsert are mostly this). */
enum { SAMPLE_RECORDS = 4096, SAMPLE_OVER = 65536 };

/* The blocks in `out` so far written to the file (sink NULL: they stay in `out`, for the caller to write). */
static hoodie_status flush(hoodie_buf *out, hoodie_writer_file *sink)
{
    if (!sink || !out->len) return HOODIE_OK;
    HOODIE_TRY(hoodie_wfile_write(sink, out->data, out->len));
    out->len = 0;
    return HOODIE_OK;
}

/* Records of `recs` as blocks of per_block records each, each written out once encoded. */
static hoodie_status split_blocks(hoodie_buf *out, hoodie_arena *a, const char *schema_json,
                                  const hoodie_field *file_schema, const hoodie_wlog_records *recs, int64_t per_block,
                                  const hoodie_hlog_header_entry *hdr, size_t nh, hoodie_writer_file *sink)
{
    hoodie_avro_col *cols = calloc(recs->n_cols + 1, sizeof *cols);
    int64_t *idx = malloc((size_t)per_block * sizeof *idx);
    hoodie_status rc = cols && idx ? HOODIE_OK : HOODIE_NOMEM();
    for (int64_t from = 0; rc == HOODIE_OK && from < recs->count; from += per_block) {
        int64_t n = recs->count - from < per_block ? recs->count - from : per_block;
        hoodie_wlog_records part;
        records_range(recs, from, n, cols, idx, &part);
        rc = one_data_block(out, a, schema_json, file_schema, &part, hdr, nh);
        if (rc == HOODIE_OK) rc = flush(out, sink);
    }
    free(idx);
    free(cols);
    return rc;
}

/* Records per block for blocks of about `max` bytes, `bytes` having held `n` records. */
static int64_t records_per_block(uint64_t max, uint64_t bytes, int64_t n)
{
    uint64_t per_rec = bytes / (uint64_t)n + 1;
    return (int64_t)(max / per_rec > 0 ? max / per_rec : 1);
}

/*
 * The data blocks of `recs`: one, unless it would be larger than the block size (recs->max_block_bytes): then
 * blocks of as many records as the size allows by their bytes per record, as Hudi's append handle flushes a block
 * when its records' estimated size reaches the limit. A large write's bytes per record come from its first
 * SAMPLE_RECORDS records, so that it is never encoded whole first; a smaller one is encoded whole and measured. With
 * a sink, each block goes to the file once it is encoded: memory holds one block, not the file.
 */
static hoodie_status data_blocks(hoodie_buf *out, hoodie_arena *a, const char *schema_json,
                                 const hoodie_field *file_schema, const hoodie_wlog_records *recs,
                                 const hoodie_hlog_header_entry *hdr, size_t nh, hoodie_writer_file *sink)
{
    uint64_t max = recs->max_block_bytes ? recs->max_block_bytes : LOG_BLOCK_MAX_BYTES;
    size_t start = out->len;
    if (recs->count > SAMPLE_OVER) {
        hoodie_avro_col *cols = calloc(recs->n_cols + 1, sizeof *cols);
        int64_t *idx = malloc(SAMPLE_RECORDS * sizeof *idx);
        hoodie_status rc = cols && idx ? HOODIE_OK : HOODIE_NOMEM();
        hoodie_wlog_records sample;
        if (rc == HOODIE_OK) {
            records_range(recs, 0, SAMPLE_RECORDS, cols, idx, &sample);
            rc = one_data_block(out, a, schema_json, file_schema, &sample, hdr, nh);
        }
        uint64_t bytes = out->len - start;
        out->len = start; /* the sample dropped */
        free(idx);
        free(cols);
        HOODIE_TRY(rc);
        int64_t per_block = records_per_block(max, bytes, SAMPLE_RECORDS);
        if (per_block < recs->count) return split_blocks(out, a, schema_json, file_schema, recs, per_block, hdr, nh, sink);
    }
    HOODIE_TRY(one_data_block(out, a, schema_json, file_schema, recs, hdr, nh));
    if (out->len - start > max && recs->count >= 2) { /* larger than the sample said, or a small write */
        int64_t per_block = records_per_block(max, out->len - start, recs->count);
        out->len = start; /* the one block dropped */
        return split_blocks(out, a, schema_json, file_schema, recs, per_block, hdr, nh, sink);
    }
    return flush(out, sink);
}

/* The blocks (data then deletes, or deletes first; none for nothing) appended to `out`, or written to `sink` as
 * they are encoded. */
static hoodie_status blocks(hoodie_buf *out, const char *schema_json, const hoodie_field *file_schema,
                            const hoodie_hlog_header_entry *hdr, size_t nh, const hoodie_hlog_header_entry *dhdr,
                            size_t ndh, const hoodie_wlog_records *recs, const hoodie_wlog_deletes *deletes,
                            int deletes_first, hoodie_writer_file *sink)
{
    if (!dhdr) dhdr = hdr, ndh = nh; /* the data blocks' headers: the same, or a partial block's */
    hoodie_arena *a = NULL;
    hoodie_status rc = hoodie_arena_new(&a, NULL, 16384);
    int has_recs = recs && recs->count, has_dels = deletes && deletes->count;
    if (rc == HOODIE_OK && has_dels && deletes_first) rc = delete_block(out, a, deletes, hdr, nh);
    if (rc == HOODIE_OK) rc = flush(out, sink);
    if (rc == HOODIE_OK && has_recs) rc = data_blocks(out, a, schema_json, file_schema, recs, dhdr, ndh, sink);
    if (rc == HOODIE_OK && has_dels && !deletes_first) rc = delete_block(out, a, deletes, hdr, nh);
    if (rc == HOODIE_OK) rc = flush(out, sink);
    hoodie_arena_free(a);
    return rc;
}

/* The blocks into one new file, each written once it is encoded. */
static hoodie_status write_log(const hoodie_storage *s, const char *path, const hoodie_hlog_header_entry *hdr,
                               size_t nh, const hoodie_hlog_header_entry *dhdr, size_t ndh, const char *schema_json,
                               const hoodie_field *file_schema,
                               const hoodie_wlog_records *recs, const hoodie_wlog_deletes *deletes, int deletes_first,
                               unsigned flags, uint64_t *size_out)
{
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_writer_file wf;
    *size_out = 0;
    hoodie_status rc = hoodie_wfile_open(&wf, s, path, HOODIE_CREATE_EXCLUSIVE | flags);
    if (rc < 0) return rc;
    rc = blocks(&out, schema_json, file_schema, hdr, nh, dhdr, ndh, recs, deletes, deletes_first, &wf);
    hoodie_buf_dispose(&out);
    if (rc < 0) { hoodie_wfile_abandon(&wf); return rc; }
    uint64_t size = wf.written;
    HOODIE_TRY(hoodie_wfile_finish(&wf));
    *size_out = size;
    return HOODIE_OK;
}

hoodie_status hoodie_wlog_write(const hoodie_storage *s, const char *path, const char *instant, const char *schema_json,
                                const hoodie_field *file_schema, const hoodie_wlog_records *records,
                                const hoodie_wlog_deletes *deletes, int unique_name, uint64_t *size_out)
{
    hoodie_hlog_header_entry hdr[2] = {
        { HOODIE_HLOG_INSTANT_TIME, instant, strlen(instant) },
        { HOODIE_HLOG_SCHEMA, schema_json, strlen(schema_json) },
    };
    /* a partial data block: IS_PARTIAL too (where hoodie_hlog_header_sort puts it); the delete block is a delete */
    hoodie_hlog_header_entry phdr[3] = { hdr[0], { HOODIE_HLOG_IS_PARTIAL, "true", 4 }, hdr[1] };
    int partial = records && records->partial;
    return write_log(s, path, hdr, 2, partial ? phdr : NULL, 3, schema_json, file_schema, records, deletes, 0,
                     HOODIE_CREATE_DEFER_SYNC | (unique_name ? HOODIE_CREATE_DEFER_VISIBLE : 0), size_out);
}

struct hoodie_wlog_compacted {
    hoodie_writer_file f;
    char *instant, *times, *schema_json;
    const hoodie_field *file_schema;
    hoodie_log_block_format format;
    hoodie_parquet_codec codec;
};

static void compacted_free(hoodie_wlog_compacted *w)
{
    free(w->instant);
    free(w->times);
    free(w->schema_json);
    free(w);
}

hoodie_status hoodie_wlog_compacted_open(hoodie_wlog_compacted **out, const hoodie_storage *s, const char *path,
                                         const char *instant, const char *compacted_times, const char *schema_json,
                                         const hoodie_field *file_schema, hoodie_log_block_format format,
                                         hoodie_parquet_codec codec)
{
    *out = NULL;
    hoodie_wlog_compacted *w = calloc(1, sizeof *w);
    if (!w) return HOODIE_NOMEM();
    w->instant = strdup(instant);
    w->times = strdup(compacted_times);
    w->schema_json = strdup(schema_json);
    w->file_schema = file_schema;
    w->format = format;
    w->codec = codec;
    hoodie_status rc = w->instant && w->times && w->schema_json ? HOODIE_OK : HOODIE_NOMEM();
    if (rc == HOODIE_OK) rc = hoodie_wfile_open(&w->f, s, path, HOODIE_CREATE_EXCLUSIVE | HOODIE_CREATE_DEFER_SYNC);
    if (rc < 0) { compacted_free(w); return rc; }
    *out = w;
    return HOODIE_OK;
}

hoodie_status hoodie_wlog_compacted_add(hoodie_wlog_compacted *w, const hoodie_batch *records,
                                        const hoodie_wlog_deletes *deletes)
{
    hoodie_hlog_header_entry hdr[3] = {
        { HOODIE_HLOG_INSTANT_TIME, w->instant, strlen(w->instant) },
        { HOODIE_HLOG_COMPACTED_BLOCK_TIMES, w->times, strlen(w->times) },
        { HOODIE_HLOG_SCHEMA, w->schema_json, strlen(w->schema_json) },
    };
    /* the batch's columns by position */
    size_t nc = records ? records->root.n_children : 0;
    hoodie_avro_col *cols = calloc(nc + 1, sizeof *cols);
    if (!cols) return HOODIE_NOMEM();
    for (size_t c = 0; c < nc; c++) cols[c] = (hoodie_avro_col){ &records->root.children[c], NULL, 0 };
    hoodie_wlog_records recs = { cols, nc, records ? records->root.length : 0, w->format, w->codec, 0, 0 };
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_status rc = blocks(&out, w->schema_json, w->file_schema, hdr, 3, NULL, 0, &recs, deletes, 1, &w->f);
    hoodie_buf_dispose(&out);
    free(cols);
    return rc;
}

hoodie_status hoodie_wlog_compacted_finish(hoodie_wlog_compacted *w, uint64_t *size_out)
{
    uint64_t size = w->f.written;
    hoodie_status rc = hoodie_wfile_finish(&w->f);
    *size_out = rc == HOODIE_OK ? size : 0;
    compacted_free(w);
    return rc;
}

void hoodie_wlog_compacted_abandon(hoodie_wlog_compacted *w)
{
    if (!w) return;
    hoodie_wfile_abandon(&w->f);
    compacted_free(w);
}

hoodie_status hoodie_wlog_write_compacted(const hoodie_storage *s, const char *path, const char *instant,
                                          const char *compacted_times, const char *schema_json,
                                          const hoodie_field *file_schema, const hoodie_batch *records,
                                          const hoodie_wlog_deletes *deletes, hoodie_log_block_format format,
                                          hoodie_parquet_codec codec, uint64_t *size_out)
{
    hoodie_wlog_compacted *w;
    *size_out = 0;
    HOODIE_TRY(hoodie_wlog_compacted_open(&w, s, path, instant, compacted_times, schema_json, file_schema, format,
                                          codec));
    hoodie_status rc = hoodie_wlog_compacted_add(w, records, deletes);
    if (rc < 0) { hoodie_wlog_compacted_abandon(w); return rc; }
    return hoodie_wlog_compacted_finish(w, size_out);
}

hoodie_status hoodie_wlog_cdc_schema(char **out, int mode, const char *data_schema_json)
{
    static const char op_key_only[] = "{\"type\":\"record\",\"name\":\"Record\",\"fields\":["
                                      "{\"name\":\"op\",\"type\":[\"string\",\"null\"]},"
                                      "{\"name\":\"record_key\",\"type\":[\"string\",\"null\"]}]}";
    *out = NULL;
    if (mode == HOODIE_CDC_OP_KEY_ONLY) return (*out = strdup(op_key_only)) ? HOODIE_OK : HOODIE_NOMEM();
    json_error_t jerr;
    json_t *table = json_loads(data_schema_json, 0, &jerr), *cdc = NULL;
    const char *name = table ? json_string_value(json_object_get(table, "name")) : NULL;
    const char *ns = table ? json_string_value(json_object_get(table, "namespace")) : NULL;
    if (!name) {
        json_decref(table);
        return HOODIE_FAIL(HOODIE_EINVAL, "CDC schema: the table schema is not a named Avro record");
    }
    char full[512];
    snprintf(full, sizeof full, "%s%s%s", ns && *ns && !strchr(name, '.') ? ns : "",
             ns && *ns && !strchr(name, '.') ? "." : "", name);
    int oom = 0;
#define FIELD(n, type) do { \
        json_t *f_ = json_object(), *t_ = (type); \
        if (!f_ || !t_ || json_object_set_new(f_, "name", json_string(n)) || json_object_set_new(f_, "type", t_) || \
            json_object_set_new(f_, "doc", json_string("")) || json_object_set_new(f_, "default", json_null()) || \
            json_array_append_new(fields, f_)) oom = 1; \
    } while (0)
    json_t *fields = json_array();
    cdc = json_object();
    if (!fields || !cdc) oom = 1;
    else {
        FIELD("op", json_pack("[ss]", "null", "string"));
        if (mode == HOODIE_CDC_DATA_BEFORE_AFTER) FIELD("ts_ms", json_pack("[ss]", "null", "string"));
        else FIELD("record_key", json_pack("[ss]", "null", "string"));
        FIELD("before", json_pack("[sO]", "null", table));
        if (mode == HOODIE_CDC_DATA_BEFORE_AFTER) FIELD("after", json_pack("[ss]", "null", full));
        if (json_object_set_new(cdc, "type", json_string("record")) ||
            json_object_set_new(cdc, "name", json_string("CDC")) ||
            (ns && json_object_set_new(cdc, "namespace", json_string(ns))) ||
            json_object_set_new(cdc, "doc", json_string("")) || json_object_set(cdc, "fields", fields))
            oom = 1;
    }
#undef FIELD
    char *text = oom ? NULL : json_dumps(cdc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(fields);
    json_decref(cdc);
    json_decref(table);
    if (!text) return HOODIE_NOMEM();
    *out = text;
    return HOODIE_OK;
}

hoodie_status hoodie_wlog_write_cdc(const hoodie_storage *s, const char *path, const char *instant,
                                    const char *schema_json, const hoodie_batch *records, uint64_t *size_out)
{
    hoodie_hlog_header_entry hdr[2] = {
        { HOODIE_HLOG_INSTANT_TIME, instant, strlen(instant) },
        { HOODIE_HLOG_SCHEMA, schema_json, strlen(schema_json) },
    };
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_arena *a = NULL;
    hoodie_avro_schema *sch;
    hoodie_avro_encoder *enc = NULL;
    *size_out = 0;
    hoodie_status rc = hoodie_arena_new(&a, NULL, 16384);
    if (rc == HOODIE_OK) rc = hoodie_avro_schema_parse(&sch, schema_json, strlen(schema_json), a, "CDC schema");
    if (rc == HOODIE_OK) rc = hoodie_avro_encoder_new(&enc, sch, &records->schema);
    if (rc == HOODIE_OK)
        rc = hoodie_avro_encode_block(&out, HOODIE_HLOG_CDC_DATA_BLOCK, enc, &records->root, 0, records->root.length,
                                      hdr, 2);
    if (rc == HOODIE_OK)
        rc = hoodie_storage_write_all(s, path, HOODIE_CREATE_EXCLUSIVE | HOODIE_CREATE_DEFER_SYNC, out.data, out.len);
    if (rc == HOODIE_OK) *size_out = out.len;
    hoodie_avro_encoder_free(enc);
    hoodie_arena_free(a);
    hoodie_buf_dispose(&out);
    return rc;
}

static const char requested_replace_schema[] =
    "{\"type\":\"record\",\"name\":\"HoodieRequestedReplaceMetadata\",\"namespace\":\"org.apache.hudi.avro.model\","
    "\"fields\":[{\"name\":\"operationType\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],"
    "\"default\":null},{\"name\":\"clusteringPlan\",\"type\":[\"null\",{\"type\":\"record\",\"name\":"
    "\"HoodieClusteringPlan\",\"fields\":[{\"name\":\"inputGroups\",\"type\":[\"null\",{\"type\":\"array\",\"items\":"
    "{\"type\":\"record\",\"name\":\"HoodieClusteringGroup\",\"fields\":[{\"name\":\"slices\",\"type\":[\"null\","
    "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieSliceInfo\",\"fields\":[{\"name\":"
    "\"dataFilePath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default\":null},"
    "{\"name\":\"deltaFilePaths\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"string\","
    "\"avro.java.string\":\"String\"}}],\"default\":null},{\"name\":\"fileId\",\"type\":[\"null\",{\"type\":"
    "\"string\",\"avro.java.string\":\"String\"}]},{\"name\":\"partitionPath\",\"type\":[\"null\",{\"type\":"
    "\"string\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"bootstrapFilePath\",\"type\":"
    "[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"version\","
    "\"type\":[\"int\",\"null\"],\"default\":1}]}}],\"default\":null},{\"name\":\"metrics\",\"type\":[\"null\","
    "{\"type\":\"map\",\"values\":\"double\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":"
    "\"numOutputFileGroups\",\"type\":[\"int\",\"null\"],\"default\":1},{\"name\":\"extraMetadata\",\"type\":"
    "[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},"
    "\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],"
    "\"default\":1}]}}],\"default\":null},{\"name\":\"strategy\",\"type\":[\"null\",{\"type\":\"record\",\"name\":"
    "\"HoodieClusteringStrategy\",\"fields\":[{\"name\":\"strategyClassName\",\"type\":[\"null\",{\"type\":"
    "\"string\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"strategyParams\",\"type\":[\"null\","
    "{\"type\":\"map\",\"values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":"
    "\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1}]}],"
    "\"default\":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":"
    "\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":"
    "\"version\",\"type\":[\"int\",\"null\"],\"default\":1},{\"name\":\"preserveHoodieMetadata\",\"type\":"
    "[\"null\",\"boolean\"],\"default\":null},{\"name\":\"missingSchedulePartitions\",\"type\":[\"null\",{\"type\":"
    "\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}],\"default\":null}]}],"
    "\"default\":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":"
    "\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":"
    "\"version\",\"type\":[\"int\",\"null\"],\"default\":1}]}";

hoodie_status hoodie_wlog_requested_replace(hoodie_buf *out, const char *operation)
{
    (void)operation; /* Spark leaves operationType null in the requested file; the completed one carries it */
    json_t *rec = json_object();
    json_t *arr = json_array();
    if (!rec || !arr) { json_decref(rec); json_decref(arr); return HOODIE_NOMEM(); }
    json_object_set_new(rec, "operationType", json_null());
    json_object_set_new(rec, "clusteringPlan", json_null());
    json_object_set_new(rec, "extraMetadata", json_null());
    json_object_set_new(rec, "version", json_null());
    json_array_append_new(arr, rec);
    hoodie_status rc = hoodie_write__avro_ocf(out, requested_replace_schema, arr);
    json_decref(arr);
    return rc;
}

void hoodie_write__new_file_id(char *out, size_t cap)
{
    uint8_t r[16];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, r, sizeof r) : -1;
    if (fd >= 0) close(fd);
    if (n != (ssize_t)sizeof r) { /* fall back on the clock and the address space */
        uint64_t x = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)out ^ (uint64_t)clock();
        for (int i = 0; i < 16; i++) { x = x * 6364136223846793005ull + 1442695040888963407ull; r[i] = (uint8_t)(x >> 56); }
    }
    r[6] = (uint8_t)((r[6] & 0x0f) | 0x40); /* version 4 */
    r[8] = (uint8_t)((r[8] & 0x3f) | 0x80); /* variant */
    snprintf(out, cap, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x-0", r[0], r[1], r[2], r[3],
             r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
}
