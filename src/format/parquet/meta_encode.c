/*
 * Thrift compact encoding of Parquet metadata (FileMetaData, PageHeader). Fields are written in increasing id
 * order; optional fields only when present. Decoding lives in meta_decode.c.
 */
#include "format/parquet/meta.h"
#include "format/thrift/compact.h"
#include "util/error.h"

#include <string.h>

static void enc_logical(hoodie_thrift_writer *w, const hoodie_pq_logical_type *lt)
{
    /* LogicalType is a union: exactly one field, holding a struct. */
    hoodie_thrift_write_struct_begin(w);
    hoodie_thrift_write_field(w, (int16_t)lt->kind, HOODIE_TT_STRUCT);
    hoodie_thrift_write_struct_begin(w);
    switch (lt->kind) {
    case HOODIE_PQ_LT_DECIMAL:
        hoodie_thrift_write_i32_field(w, 1, lt->decimal_scale);
        hoodie_thrift_write_i32_field(w, 2, lt->decimal_precision);
        break;
    case HOODIE_PQ_LT_TIME:
    case HOODIE_PQ_LT_TIMESTAMP:
        hoodie_thrift_write_bool_field(w, 1, lt->is_adjusted_to_utc);
        /* TimeUnit union: MILLIS 1, MICROS 2, NANOS 3, each an empty struct */
        hoodie_thrift_write_field(w, 2, HOODIE_TT_STRUCT);
        hoodie_thrift_write_struct_begin(w);
        hoodie_thrift_write_field(w, (int16_t)lt->unit, HOODIE_TT_STRUCT);
        hoodie_thrift_write_struct_begin(w);
        hoodie_thrift_write_struct_end(w);
        hoodie_thrift_write_struct_end(w);
        break;
    case HOODIE_PQ_LT_INTEGER:
        hoodie_thrift_write_field(w, 1, HOODIE_TT_BYTE);
        {
            uint8_t b = (uint8_t)lt->int_bit_width;
            if (hoodie_buf_putc(w->b, b) < 0 && w->status == HOODIE_OK) w->status = HOODIE_ENOMEM;
        }
        hoodie_thrift_write_bool_field(w, 2, lt->int_signed);
        break;
    default:
        break;
    }
    hoodie_thrift_write_struct_end(w);
    hoodie_thrift_write_struct_end(w);
}

static void enc_schema_element(hoodie_thrift_writer *w, const hoodie_pq_schema_element *e)
{
    hoodie_thrift_write_struct_begin(w);
    if (e->has_type) hoodie_thrift_write_i32_field(w, 1, (int32_t)e->type);
    if (e->has_type && e->type == HOODIE_PQ_FIXED_LEN_BYTE_ARRAY) hoodie_thrift_write_i32_field(w, 2, e->type_length);
    if (e->has_repetition) hoodie_thrift_write_i32_field(w, 3, (int32_t)e->repetition);
    hoodie_thrift_write_binary_field(w, 4, e->name ? e->name : "", e->name ? strlen(e->name) : 0);
    if (!e->has_type) hoodie_thrift_write_i32_field(w, 5, e->num_children);
    if (e->converted != HOODIE_PQ_CT_NONE) hoodie_thrift_write_i32_field(w, 6, (int32_t)e->converted);
    if (e->converted == HOODIE_PQ_CT_DECIMAL) {
        hoodie_thrift_write_i32_field(w, 7, e->scale);
        hoodie_thrift_write_i32_field(w, 8, e->precision);
    }
    if (e->has_field_id) hoodie_thrift_write_i32_field(w, 9, e->field_id);
    if (e->logical.kind != HOODIE_PQ_LT_NONE) {
        hoodie_thrift_write_field(w, 10, HOODIE_TT_STRUCT);
        enc_logical(w, &e->logical);
    }
    hoodie_thrift_write_struct_end(w);
}

static void enc_statistics(hoodie_thrift_writer *w, const hoodie_pq_statistics *s)
{
    hoodie_thrift_write_struct_begin(w);
    if (s->has_max) hoodie_thrift_write_binary_field(w, 1, s->max, s->max_len);
    if (s->has_min) hoodie_thrift_write_binary_field(w, 2, s->min, s->min_len);
    if (s->has_null_count) hoodie_thrift_write_i64_field(w, 3, s->null_count);
    if (s->has_distinct_count) hoodie_thrift_write_i64_field(w, 4, s->distinct_count);
    if (s->has_max_value) hoodie_thrift_write_binary_field(w, 5, s->max_value, s->max_value_len);
    if (s->has_min_value) hoodie_thrift_write_binary_field(w, 6, s->min_value, s->min_value_len);
    hoodie_thrift_write_struct_end(w);
}

static void enc_kv_list(hoodie_thrift_writer *w, int16_t fid, const hoodie_pq_kv *kv, uint32_t n)
{
    hoodie_thrift_write_field(w, fid, HOODIE_TT_LIST);
    hoodie_thrift_write_list_begin(w, HOODIE_TT_STRUCT, n);
    for (uint32_t i = 0; i < n; i++) {
        hoodie_thrift_write_struct_begin(w);
        hoodie_thrift_write_binary_field(w, 1, kv[i].key, strlen(kv[i].key));
        if (kv[i].value) hoodie_thrift_write_binary_field(w, 2, kv[i].value, strlen(kv[i].value));
        hoodie_thrift_write_struct_end(w);
    }
}

static void enc_column_meta(hoodie_thrift_writer *w, const hoodie_pq_column_meta *m)
{
    hoodie_thrift_write_struct_begin(w);
    hoodie_thrift_write_i32_field(w, 1, (int32_t)m->type);
    hoodie_thrift_write_field(w, 2, HOODIE_TT_LIST);
    hoodie_thrift_write_list_begin(w, HOODIE_TT_I32, m->encoding_count);
    for (uint32_t i = 0; i < m->encoding_count; i++) hoodie_thrift_write_i32(w, (int32_t)m->encodings[i]);
    hoodie_thrift_write_field(w, 3, HOODIE_TT_LIST);
    hoodie_thrift_write_list_begin(w, HOODIE_TT_BINARY, m->path_count);
    for (uint32_t i = 0; i < m->path_count; i++) hoodie_thrift_write_binary(w, m->path[i], strlen(m->path[i]));
    hoodie_thrift_write_i32_field(w, 4, (int32_t)m->codec);
    hoodie_thrift_write_i64_field(w, 5, m->num_values);
    hoodie_thrift_write_i64_field(w, 6, m->total_uncompressed_size);
    hoodie_thrift_write_i64_field(w, 7, m->total_compressed_size);
    if (m->kv_count) enc_kv_list(w, 8, m->kv, m->kv_count);
    hoodie_thrift_write_i64_field(w, 9, m->data_page_offset);
    if (m->has_index_page_offset) hoodie_thrift_write_i64_field(w, 10, m->index_page_offset);
    if (m->has_dictionary_page_offset) hoodie_thrift_write_i64_field(w, 11, m->dictionary_page_offset);
    if (m->statistics.present) {
        hoodie_thrift_write_field(w, 12, HOODIE_TT_STRUCT);
        enc_statistics(w, &m->statistics);
    }
    if (m->has_bloom_filter) {
        hoodie_thrift_write_i64_field(w, 14, m->bloom_filter_offset);
        hoodie_thrift_write_i32_field(w, 15, m->bloom_filter_length);
    }
    hoodie_thrift_write_struct_end(w);
}

static void enc_column_chunk(hoodie_thrift_writer *w, const hoodie_pq_column_chunk *c)
{
    hoodie_thrift_write_struct_begin(w);
    if (c->file_path) hoodie_thrift_write_binary_field(w, 1, c->file_path, strlen(c->file_path));
    hoodie_thrift_write_i64_field(w, 2, c->file_offset);
    if (c->has_meta) {
        hoodie_thrift_write_field(w, 3, HOODIE_TT_STRUCT);
        enc_column_meta(w, &c->meta);
    }
    if (c->has_offset_index) {
        hoodie_thrift_write_i64_field(w, 4, c->offset_index_offset);
        hoodie_thrift_write_i32_field(w, 5, c->offset_index_length);
    }
    if (c->has_column_index) {
        hoodie_thrift_write_i64_field(w, 6, c->column_index_offset);
        hoodie_thrift_write_i32_field(w, 7, c->column_index_length);
    }
    hoodie_thrift_write_struct_end(w);
}

static void enc_row_group(hoodie_thrift_writer *w, const hoodie_pq_row_group *rg)
{
    hoodie_thrift_write_struct_begin(w);
    hoodie_thrift_write_field(w, 1, HOODIE_TT_LIST);
    hoodie_thrift_write_list_begin(w, HOODIE_TT_STRUCT, rg->column_count);
    for (uint32_t i = 0; i < rg->column_count; i++) enc_column_chunk(w, &rg->columns[i]);
    hoodie_thrift_write_i64_field(w, 2, rg->total_byte_size);
    hoodie_thrift_write_i64_field(w, 3, rg->num_rows);
    if (rg->has_file_offset) hoodie_thrift_write_i64_field(w, 5, rg->file_offset);
    if (rg->has_total_compressed_size) hoodie_thrift_write_i64_field(w, 6, rg->total_compressed_size);
    if (rg->has_ordinal) {
        hoodie_thrift_write_field(w, 7, HOODIE_TT_I16);
        hoodie_thrift_write_i32(w, rg->ordinal); /* i16 is a zig-zag varint too */
    }
    hoodie_thrift_write_struct_end(w);
}

hoodie_status hoodie_pq_file_meta_encode(const hoodie_pq_file_meta *m, hoodie_buf *out)
{
    hoodie_thrift_writer w;
    hoodie_thrift_writer_init(&w, out);
    hoodie_thrift_write_struct_begin(&w);
    hoodie_thrift_write_i32_field(&w, 1, m->version);
    hoodie_thrift_write_field(&w, 2, HOODIE_TT_LIST);
    hoodie_thrift_write_list_begin(&w, HOODIE_TT_STRUCT, m->schema_count);
    for (uint32_t i = 0; i < m->schema_count; i++) enc_schema_element(&w, &m->schema[i]);
    hoodie_thrift_write_i64_field(&w, 3, m->num_rows);
    hoodie_thrift_write_field(&w, 4, HOODIE_TT_LIST);
    hoodie_thrift_write_list_begin(&w, HOODIE_TT_STRUCT, m->row_group_count);
    for (uint32_t i = 0; i < m->row_group_count; i++) enc_row_group(&w, &m->row_groups[i]);
    if (m->kv_count) enc_kv_list(&w, 5, m->kv, m->kv_count);
    if (m->created_by) hoodie_thrift_write_binary_field(&w, 6, m->created_by, strlen(m->created_by));
    if (m->column_order_count) {
        hoodie_thrift_write_field(&w, 7, HOODIE_TT_LIST);
        hoodie_thrift_write_list_begin(&w, HOODIE_TT_STRUCT, m->column_order_count);
        for (uint32_t i = 0; i < m->column_order_count; i++) {
            /* ColumnOrder union { 1: TypeDefinedOrder TYPE_ORDER } with an empty struct */
            hoodie_thrift_write_struct_begin(&w);
            hoodie_thrift_write_field(&w, 1, HOODIE_TT_STRUCT);
            hoodie_thrift_write_struct_begin(&w);
            hoodie_thrift_write_struct_end(&w);
            hoodie_thrift_write_struct_end(&w);
        }
    }
    hoodie_thrift_write_struct_end(&w);
    return w.status;
}

hoodie_status hoodie_pq_page_header_encode(const hoodie_pq_page_header *h, hoodie_buf *out)
{
    hoodie_thrift_writer w;
    hoodie_thrift_writer_init(&w, out);
    hoodie_thrift_write_struct_begin(&w);
    hoodie_thrift_write_i32_field(&w, 1, (int32_t)h->type);
    hoodie_thrift_write_i32_field(&w, 2, h->uncompressed_size);
    hoodie_thrift_write_i32_field(&w, 3, h->compressed_size);
    if (h->has_crc) hoodie_thrift_write_i32_field(&w, 4, h->crc);
    switch (h->type) {
    case HOODIE_PQ_DATA_PAGE:
        hoodie_thrift_write_field(&w, 5, HOODIE_TT_STRUCT);
        hoodie_thrift_write_struct_begin(&w);
        hoodie_thrift_write_i32_field(&w, 1, h->data.num_values);
        hoodie_thrift_write_i32_field(&w, 2, (int32_t)h->data.encoding);
        hoodie_thrift_write_i32_field(&w, 3, (int32_t)h->data.def_encoding);
        hoodie_thrift_write_i32_field(&w, 4, (int32_t)h->data.rep_encoding);
        if (h->data.statistics.present) {
            hoodie_thrift_write_field(&w, 5, HOODIE_TT_STRUCT);
            enc_statistics(&w, &h->data.statistics);
        }
        hoodie_thrift_write_struct_end(&w);
        break;
    case HOODIE_PQ_DICTIONARY_PAGE:
        hoodie_thrift_write_field(&w, 7, HOODIE_TT_STRUCT);
        hoodie_thrift_write_struct_begin(&w);
        hoodie_thrift_write_i32_field(&w, 1, h->dict.num_values);
        hoodie_thrift_write_i32_field(&w, 2, (int32_t)h->dict.encoding);
        if (h->dict.is_sorted) hoodie_thrift_write_bool_field(&w, 3, 1);
        hoodie_thrift_write_struct_end(&w);
        break;
    case HOODIE_PQ_DATA_PAGE_V2:
        hoodie_thrift_write_field(&w, 8, HOODIE_TT_STRUCT);
        hoodie_thrift_write_struct_begin(&w);
        hoodie_thrift_write_i32_field(&w, 1, h->data_v2.num_values);
        hoodie_thrift_write_i32_field(&w, 2, h->data_v2.num_nulls);
        hoodie_thrift_write_i32_field(&w, 3, h->data_v2.num_rows);
        hoodie_thrift_write_i32_field(&w, 4, (int32_t)h->data_v2.encoding);
        hoodie_thrift_write_i32_field(&w, 5, h->data_v2.def_levels_len);
        hoodie_thrift_write_i32_field(&w, 6, h->data_v2.rep_levels_len);
        hoodie_thrift_write_bool_field(&w, 7, h->data_v2.is_compressed);
        if (h->data_v2.statistics.present) {
            hoodie_thrift_write_field(&w, 8, HOODIE_TT_STRUCT);
            enc_statistics(&w, &h->data_v2.statistics);
        }
        hoodie_thrift_write_struct_end(&w);
        break;
    default:
        return HOODIE_FAIL(HOODIE_EINVAL, "page header: cannot encode page type %d", (int)h->type);
    }
    hoodie_thrift_write_struct_end(&w);
    return w.status;
}

hoodie_status hoodie_pq_offset_index_encode(const hoodie_pq_offset_index *oi, hoodie_buf *out)
{
    hoodie_thrift_writer w;
    hoodie_thrift_writer_init(&w, out);
    hoodie_thrift_write_struct_begin(&w);
    hoodie_thrift_write_field(&w, 1, HOODIE_TT_LIST);
    hoodie_thrift_write_list_begin(&w, HOODIE_TT_STRUCT, oi->page_count);
    for (uint32_t i = 0; i < oi->page_count; i++) {
        hoodie_thrift_write_struct_begin(&w);
        hoodie_thrift_write_i64_field(&w, 1, oi->pages[i].offset);
        hoodie_thrift_write_i32_field(&w, 2, oi->pages[i].compressed_page_size);
        hoodie_thrift_write_i64_field(&w, 3, oi->pages[i].first_row_index);
        hoodie_thrift_write_struct_end(&w);
    }
    hoodie_thrift_write_struct_end(&w);
    return w.status;
}

static void enc_binary_list(hoodie_thrift_writer *w, int16_t fid, uint32_t n, const uint8_t *const *v,
                            const uint32_t *lens)
{
    hoodie_thrift_write_field(w, fid, HOODIE_TT_LIST);
    hoodie_thrift_write_list_begin(w, HOODIE_TT_BINARY, n);
    for (uint32_t i = 0; i < n; i++) hoodie_thrift_write_binary(w, v[i] ? v[i] : (const uint8_t *)"", lens[i]);
}

hoodie_status hoodie_pq_column_index_encode(const hoodie_pq_column_index *ci, hoodie_buf *out)
{
    hoodie_thrift_writer w;
    hoodie_thrift_writer_init(&w, out);
    hoodie_thrift_write_struct_begin(&w);
    hoodie_thrift_write_field(&w, 1, HOODIE_TT_LIST);
    /* bool list elements are single bytes: 1 true, 2 false (as parquet-mr writes them) */
    hoodie_thrift_write_list_begin(&w, HOODIE_TT_TRUE, ci->page_count);
    for (uint32_t i = 0; i < ci->page_count; i++)
        if (hoodie_buf_putc(w.b, ci->null_pages[i] ? 1 : 2) < 0 && w.status == HOODIE_OK) w.status = HOODIE_ENOMEM;
    enc_binary_list(&w, 2, ci->page_count, ci->min_values, ci->min_lens);
    enc_binary_list(&w, 3, ci->page_count, ci->max_values, ci->max_lens);
    hoodie_thrift_write_i32_field(&w, 4, (int32_t)ci->boundary_order);
    if (ci->has_null_counts) {
        hoodie_thrift_write_field(&w, 5, HOODIE_TT_LIST);
        hoodie_thrift_write_list_begin(&w, HOODIE_TT_I64, ci->page_count);
        for (uint32_t i = 0; i < ci->page_count; i++) hoodie_thrift_write_i64(&w, ci->null_counts[i]);
    }
    hoodie_thrift_write_struct_end(&w);
    return w.status;
}
