/*
 * Parquet FileMetaData / PageHeader decoding from Thrift compact bytes (parquet.thrift field ids).
 * Unknown fields are skipped; a known field of the wrong type is corruption. Every list count is bounded by the
 * bytes left (by the thrift reader) before anything is allocated.
 */
#include "format/parquet/meta.h"
#include "format/thrift/compact.h"
#include "util/error.h"

#include <string.h>

typedef struct mdec {
    hoodie_thrift_reader r;
    hoodie_cursor *c;
    hoodie_arena *arena;
    int nomem;
    uint32_t defer_over;     /* file key-value values longer than this stay in the file (0: none) */
} mdec;

#define OK(d) ((d)->c->status == HOODIE_OK && !(d)->nomem)
#define EXPECT(d, got, want, name) hoodie_thrift_expect(&(d)->r, (got), (want), (name))

static char *dec_string(mdec *d)
{
    uint32_t n;
    const uint8_t *p = hoodie_thrift_binary(&d->r, &n);
    if (!p && d->c->status != HOODIE_OK) return NULL;
    char *s = hoodie_arena_strndup(d->arena, p ? (const char *)p : "", n);
    if (!s) d->nomem = 1;
    return s;
}

static const uint8_t *dec_bytes(mdec *d, uint32_t *len)
{
    const uint8_t *p = hoodie_thrift_binary(&d->r, len);
    if (d->c->status != HOODIE_OK) return NULL;
    const uint8_t *q = hoodie_arena_memdup(d->arena, p ? p : (const uint8_t *)"", *len);
    if (!q) d->nomem = 1;
    return q;
}

static int32_t dec_i32(mdec *d, uint8_t t, const char *name)
{
    if (!EXPECT(d, t, HOODIE_TT_I32, name)) return 0;
    return hoodie_thrift_i32(&d->r);
}

static int64_t dec_i64(mdec *d, uint8_t t, const char *name)
{
    if (!EXPECT(d, t, HOODIE_TT_I64, name)) return 0;
    return hoodie_thrift_i64(&d->r);
}

static int dec_bool(mdec *d, uint8_t t, const char *name)
{
    if (!EXPECT(d, t, HOODIE_TT_TRUE, name)) return 0;
    return t == HOODIE_TT_TRUE;
}

/* An enum stored as i32, checked to be in [lo, hi]. */
static int32_t dec_enum(mdec *d, uint8_t t, const char *name, int32_t lo, int32_t hi)
{
    int32_t v = dec_i32(d, t, name);
    if (OK(d) && (v < lo || v > hi)) hoodie_cursor__fail(d->c, "%s value %d out of range", name, (int)v);
    return v;
}

static void dec_statistics(mdec *d, hoodie_pq_statistics *s)
{
    int16_t fid;
    uint8_t t;
    memset(s, 0, sizeof *s);
    s->present = 1;
    hoodie_thrift_struct_begin(&d->r);
    while (OK(d) && hoodie_thrift_field(&d->r, &fid, &t)) {
        switch (fid) {
        case 1: if (EXPECT(d, t, HOODIE_TT_BINARY, "Statistics.max")) { s->max = dec_bytes(d, &s->max_len); s->has_max = 1; } break;
        case 2: if (EXPECT(d, t, HOODIE_TT_BINARY, "Statistics.min")) { s->min = dec_bytes(d, &s->min_len); s->has_min = 1; } break;
        case 3: s->null_count = dec_i64(d, t, "Statistics.null_count"); s->has_null_count = 1; break;
        case 4: s->distinct_count = dec_i64(d, t, "Statistics.distinct_count"); s->has_distinct_count = 1; break;
        case 5: if (EXPECT(d, t, HOODIE_TT_BINARY, "Statistics.max_value")) { s->max_value = dec_bytes(d, &s->max_value_len); s->has_max_value = 1; } break;
        case 6: if (EXPECT(d, t, HOODIE_TT_BINARY, "Statistics.min_value")) { s->min_value = dec_bytes(d, &s->min_value_len); s->has_min_value = 1; } break;
        default: hoodie_thrift_skip(&d->r, t);
        }
    }
    hoodie_thrift_struct_end(&d->r);
}

/* LogicalType is a union of (mostly empty) structs; the member's field id is the kind. */
static void dec_logical(mdec *d, hoodie_pq_logical_type *lt)
{
    int16_t fid, f2;
    uint8_t t, t2;
    memset(lt, 0, sizeof *lt);
    hoodie_thrift_struct_begin(&d->r);
    while (OK(d) && hoodie_thrift_field(&d->r, &fid, &t)) {
        if (fid < 1 || fid > 15 || fid == 9 || t != HOODIE_TT_STRUCT) { hoodie_thrift_skip(&d->r, t); continue; }
        lt->kind = (hoodie_pq_logical)fid;
        hoodie_thrift_struct_begin(&d->r);
        while (OK(d) && hoodie_thrift_field(&d->r, &f2, &t2)) {
            if (fid == HOODIE_PQ_LT_DECIMAL && f2 == 1) lt->decimal_scale = dec_i32(d, t2, "DecimalType.scale");
            else if (fid == HOODIE_PQ_LT_DECIMAL && f2 == 2) lt->decimal_precision = dec_i32(d, t2, "DecimalType.precision");
            else if ((fid == HOODIE_PQ_LT_TIME || fid == HOODIE_PQ_LT_TIMESTAMP) && f2 == 1)
                lt->is_adjusted_to_utc = dec_bool(d, t2, "isAdjustedToUTC");
            else if ((fid == HOODIE_PQ_LT_TIME || fid == HOODIE_PQ_LT_TIMESTAMP) && f2 == 2 && t2 == HOODIE_TT_STRUCT) {
                /* TimeUnit union: 1 MILLIS, 2 MICROS, 3 NANOS (each an empty struct) */
                int16_t f3;
                uint8_t t3;
                hoodie_thrift_struct_begin(&d->r);
                while (OK(d) && hoodie_thrift_field(&d->r, &f3, &t3)) {
                    if (f3 >= 1 && f3 <= 3) lt->unit = (hoodie_pq_time_unit)f3;
                    hoodie_thrift_skip(&d->r, t3);
                }
                hoodie_thrift_struct_end(&d->r);
            } else if (fid == HOODIE_PQ_LT_INTEGER && f2 == 1) {
                if (EXPECT(d, t2, HOODIE_TT_BYTE, "IntType.bitWidth")) lt->int_bit_width = (int8_t)hoodie_cursor_u8(d->c);
            } else if (fid == HOODIE_PQ_LT_INTEGER && f2 == 2) lt->int_signed = dec_bool(d, t2, "IntType.isSigned");
            else hoodie_thrift_skip(&d->r, t2);
        }
        hoodie_thrift_struct_end(&d->r);
    }
    hoodie_thrift_struct_end(&d->r);
}

static void dec_schema_element(mdec *d, hoodie_pq_schema_element *e)
{
    int16_t fid;
    uint8_t t;
    memset(e, 0, sizeof *e);
    e->converted = HOODIE_PQ_CT_NONE;
    hoodie_thrift_struct_begin(&d->r);
    while (OK(d) && hoodie_thrift_field(&d->r, &fid, &t)) {
        switch (fid) {
        case 1: e->type = (hoodie_pq_type)dec_enum(d, t, "SchemaElement.type", 0, 7); e->has_type = 1; break;
        case 2: e->type_length = dec_i32(d, t, "SchemaElement.type_length"); break;
        case 3: e->repetition = (hoodie_pq_repetition)dec_enum(d, t, "SchemaElement.repetition_type", 0, 2);
                e->has_repetition = 1; break;
        case 4: if (EXPECT(d, t, HOODIE_TT_BINARY, "SchemaElement.name")) e->name = dec_string(d); break;
        case 5: e->num_children = dec_i32(d, t, "SchemaElement.num_children");
                if (OK(d) && e->num_children < 0) hoodie_cursor__fail(d->c, "negative num_children");
                break;
        case 6: e->converted = (hoodie_pq_converted)dec_i32(d, t, "SchemaElement.converted_type"); break;
        case 7: e->scale = dec_i32(d, t, "SchemaElement.scale"); break;
        case 8: e->precision = dec_i32(d, t, "SchemaElement.precision"); break;
        case 9: e->field_id = dec_i32(d, t, "SchemaElement.field_id"); e->has_field_id = 1; break;
        case 10: if (EXPECT(d, t, HOODIE_TT_STRUCT, "SchemaElement.logicalType")) dec_logical(d, &e->logical); break;
        default: hoodie_thrift_skip(&d->r, t);
        }
    }
    hoodie_thrift_struct_end(&d->r);
    if (OK(d) && !e->name) hoodie_cursor__fail(d->c, "schema element without a name");
}

/* list<struct KeyValue> */
/* A key-value value: copied, or when longer than d->defer_over (and defer), left in the file. */
static void dec_kv_value(mdec *d, hoodie_pq_kv *kv, int defer)
{
    if (!defer || !d->defer_over) { kv->value = dec_string(d); return; }
    uint32_t n;
    const uint8_t *p = hoodie_thrift_binary(&d->r, &n);
    if (d->c->status != HOODIE_OK) return;
    if (n <= d->defer_over) {
        kv->value = hoodie_arena_strndup(d->arena, p ? (const char *)p : "", n);
        if (!kv->value) d->nomem = 1;
        return;
    }
    kv->value_deferred = 1;
    kv->value_off = d->c->file_off + (uint64_t)(p - d->c->base);
    kv->value_len = n;
}

static void dec_kv_list(mdec *d, uint8_t t, const char *name, hoodie_pq_kv **out, uint32_t *count, int defer)
{
    uint8_t et;
    if (!EXPECT(d, t, HOODIE_TT_LIST, name)) return;
    uint32_t n = hoodie_thrift_list(&d->r, &et);
    if (!OK(d)) return;
    if (n && et != HOODIE_TT_STRUCT) { hoodie_cursor__fail(d->c, "%s: list of type %u", name, et); return; }
    hoodie_pq_kv *kv = hoodie_arena_calloc(d->arena, n, sizeof *kv);
    if (!kv) { d->nomem = 1; return; }
    *out = kv;
    for (uint32_t i = 0; i < n && OK(d); i++) {
        int16_t fid;
        uint8_t ft;
        hoodie_thrift_struct_begin(&d->r);
        while (OK(d) && hoodie_thrift_field(&d->r, &fid, &ft)) {
            if (fid == 1 && EXPECT(d, ft, HOODIE_TT_BINARY, "KeyValue.key")) kv[i].key = dec_string(d);
            else if (fid == 2 && EXPECT(d, ft, HOODIE_TT_BINARY, "KeyValue.value")) dec_kv_value(d, &kv[i], defer);
            else if (fid != 1 && fid != 2) hoodie_thrift_skip(&d->r, ft);
        }
        hoodie_thrift_struct_end(&d->r);
        if (OK(d) && !kv[i].key) hoodie_cursor__fail(d->c, "%s: entry without a key", name);
        *count = i + 1;
    }
}

static void dec_column_meta(mdec *d, hoodie_pq_column_meta *m)
{
    int16_t fid;
    uint8_t t, et;
    memset(m, 0, sizeof *m);
    hoodie_thrift_struct_begin(&d->r);
    while (OK(d) && hoodie_thrift_field(&d->r, &fid, &t)) {
        switch (fid) {
        case 1: m->type = (hoodie_pq_type)dec_enum(d, t, "ColumnMetaData.type", 0, 7); break;
        case 2: {
            if (!EXPECT(d, t, HOODIE_TT_LIST, "ColumnMetaData.encodings")) break;
            uint32_t n = hoodie_thrift_list(&d->r, &et);
            if (!OK(d)) break;
            if (n && et != HOODIE_TT_I32) { hoodie_cursor__fail(d->c, "encodings: list of type %u", et); break; }
            m->encodings = hoodie_arena_calloc(d->arena, n ? n : 1, sizeof *m->encodings);
            if (!m->encodings) { d->nomem = 1; break; }
            for (uint32_t i = 0; i < n && OK(d); i++) m->encodings[i] = (hoodie_pq_encoding)hoodie_thrift_i32(&d->r);
            m->encoding_count = n;
            break;
        }
        case 3: {
            if (!EXPECT(d, t, HOODIE_TT_LIST, "ColumnMetaData.path_in_schema")) break;
            uint32_t n = hoodie_thrift_list(&d->r, &et);
            if (!OK(d)) break;
            if (n && et != HOODIE_TT_BINARY) { hoodie_cursor__fail(d->c, "path_in_schema: list of type %u", et); break; }
            m->path = hoodie_arena_calloc(d->arena, n ? n : 1, sizeof *m->path);
            if (!m->path) { d->nomem = 1; break; }
            for (uint32_t i = 0; i < n && OK(d); i++) m->path[i] = dec_string(d);
            m->path_count = OK(d) ? n : 0;
            break;
        }
        case 4: m->codec = (hoodie_pq_codec)dec_i32(d, t, "ColumnMetaData.codec"); break;
        case 5: m->num_values = dec_i64(d, t, "ColumnMetaData.num_values"); break;
        case 6: m->total_uncompressed_size = dec_i64(d, t, "ColumnMetaData.total_uncompressed_size"); break;
        case 7: m->total_compressed_size = dec_i64(d, t, "ColumnMetaData.total_compressed_size"); break;
        case 8: dec_kv_list(d, t, "ColumnMetaData.key_value_metadata", &m->kv, &m->kv_count, 0); break;
        case 9: m->data_page_offset = dec_i64(d, t, "ColumnMetaData.data_page_offset"); break;
        case 10: m->index_page_offset = dec_i64(d, t, "ColumnMetaData.index_page_offset"); m->has_index_page_offset = 1; break;
        case 11: m->dictionary_page_offset = dec_i64(d, t, "ColumnMetaData.dictionary_page_offset");
                 m->has_dictionary_page_offset = 1; break;
        case 12: if (EXPECT(d, t, HOODIE_TT_STRUCT, "ColumnMetaData.statistics")) dec_statistics(d, &m->statistics); break;
        case 14: m->bloom_filter_offset = dec_i64(d, t, "ColumnMetaData.bloom_filter_offset"); m->has_bloom_filter = 1; break;
        case 15: m->bloom_filter_length = dec_i32(d, t, "ColumnMetaData.bloom_filter_length"); break;
        default: hoodie_thrift_skip(&d->r, t);
        }
    }
    hoodie_thrift_struct_end(&d->r);
}

static void dec_column_chunk(mdec *d, hoodie_pq_column_chunk *cc)
{
    int16_t fid;
    uint8_t t;
    memset(cc, 0, sizeof *cc);
    hoodie_thrift_struct_begin(&d->r);
    while (OK(d) && hoodie_thrift_field(&d->r, &fid, &t)) {
        switch (fid) {
        case 1: if (EXPECT(d, t, HOODIE_TT_BINARY, "ColumnChunk.file_path")) cc->file_path = dec_string(d); break;
        case 2: cc->file_offset = dec_i64(d, t, "ColumnChunk.file_offset"); break;
        case 3: if (EXPECT(d, t, HOODIE_TT_STRUCT, "ColumnChunk.meta_data")) { dec_column_meta(d, &cc->meta); cc->has_meta = 1; } break;
        case 4: cc->offset_index_offset = dec_i64(d, t, "ColumnChunk.offset_index_offset"); cc->has_offset_index = 1; break;
        case 5: cc->offset_index_length = dec_i32(d, t, "ColumnChunk.offset_index_length"); break;
        case 6: cc->column_index_offset = dec_i64(d, t, "ColumnChunk.column_index_offset"); cc->has_column_index = 1; break;
        case 7: cc->column_index_length = dec_i32(d, t, "ColumnChunk.column_index_length"); break;
        default: hoodie_thrift_skip(&d->r, t);
        }
    }
    hoodie_thrift_struct_end(&d->r);
}

static void dec_row_group(mdec *d, hoodie_pq_row_group *rg)
{
    int16_t fid;
    uint8_t t, et;
    memset(rg, 0, sizeof *rg);
    hoodie_thrift_struct_begin(&d->r);
    while (OK(d) && hoodie_thrift_field(&d->r, &fid, &t)) {
        switch (fid) {
        case 1: {
            if (!EXPECT(d, t, HOODIE_TT_LIST, "RowGroup.columns")) break;
            uint32_t n = hoodie_thrift_list(&d->r, &et);
            if (!OK(d)) break;
            if (n && et != HOODIE_TT_STRUCT) { hoodie_cursor__fail(d->c, "RowGroup.columns: list of type %u", et); break; }
            rg->columns = hoodie_arena_calloc(d->arena, n ? n : 1, sizeof *rg->columns);
            if (!rg->columns) { d->nomem = 1; break; }
            for (uint32_t i = 0; i < n && OK(d); i++) { dec_column_chunk(d, &rg->columns[i]); rg->column_count = i + 1; }
            break;
        }
        case 2: rg->total_byte_size = dec_i64(d, t, "RowGroup.total_byte_size"); break;
        case 3: rg->num_rows = dec_i64(d, t, "RowGroup.num_rows"); break;
        case 5: rg->file_offset = dec_i64(d, t, "RowGroup.file_offset"); rg->has_file_offset = 1; break;
        case 6: rg->total_compressed_size = dec_i64(d, t, "RowGroup.total_compressed_size");
                rg->has_total_compressed_size = 1; break;
        case 7:
            if (EXPECT(d, t, HOODIE_TT_I16, "RowGroup.ordinal")) {
                rg->ordinal = (int16_t)hoodie_zigzag_decode(hoodie_cursor_uvarint(d->c));
                rg->has_ordinal = 1;
            }
            break;
        default: hoodie_thrift_skip(&d->r, t);
        }
    }
    hoodie_thrift_struct_end(&d->r);
    if (OK(d) && rg->num_rows < 0) hoodie_cursor__fail(d->c, "row group with %lld rows", (long long)rg->num_rows);
}

hoodie_status hoodie_pq_file_meta_decode(hoodie_pq_file_meta *out, hoodie_cursor *c, hoodie_arena *arena)
{
    return hoodie_pq_file_meta_decode_ex(out, c, arena, 0);
}

hoodie_status hoodie_pq_file_meta_decode_ex(hoodie_pq_file_meta *out, hoodie_cursor *c, hoodie_arena *arena,
                                            uint32_t defer_over)
{
    mdec d = { .c = c, .arena = arena, .defer_over = defer_over };
    int16_t fid;
    uint8_t t, et;
    memset(out, 0, sizeof *out);
    hoodie_thrift_reader_init(&d.r, c);
    hoodie_thrift_struct_begin(&d.r);
    while (OK(&d) && hoodie_thrift_field(&d.r, &fid, &t)) {
        switch (fid) {
        case 1: out->version = dec_i32(&d, t, "FileMetaData.version"); break;
        case 2: {
            if (!EXPECT(&d, t, HOODIE_TT_LIST, "FileMetaData.schema")) break;
            uint32_t n = hoodie_thrift_list(&d.r, &et);
            if (!OK(&d)) break;
            if (n && et != HOODIE_TT_STRUCT) { hoodie_cursor__fail(c, "FileMetaData.schema: list of type %u", et); break; }
            out->schema = hoodie_arena_calloc(arena, n ? n : 1, sizeof *out->schema);
            if (!out->schema) { d.nomem = 1; break; }
            for (uint32_t i = 0; i < n && OK(&d); i++) { dec_schema_element(&d, &out->schema[i]); out->schema_count = i + 1; }
            break;
        }
        case 3: out->num_rows = dec_i64(&d, t, "FileMetaData.num_rows"); break;
        case 4: {
            if (!EXPECT(&d, t, HOODIE_TT_LIST, "FileMetaData.row_groups")) break;
            uint32_t n = hoodie_thrift_list(&d.r, &et);
            if (!OK(&d)) break;
            if (n && et != HOODIE_TT_STRUCT) { hoodie_cursor__fail(c, "FileMetaData.row_groups: list of type %u", et); break; }
            out->row_groups = hoodie_arena_calloc(arena, n ? n : 1, sizeof *out->row_groups);
            if (!out->row_groups) { d.nomem = 1; break; }
            for (uint32_t i = 0; i < n && OK(&d); i++) { dec_row_group(&d, &out->row_groups[i]); out->row_group_count = i + 1; }
            break;
        }
        case 5: dec_kv_list(&d, t, "FileMetaData.key_value_metadata", &out->kv, &out->kv_count, 1); break;
        case 6: if (EXPECT(&d, t, HOODIE_TT_BINARY, "FileMetaData.created_by")) out->created_by = dec_string(&d); break;
        case 7: {
            if (!EXPECT(&d, t, HOODIE_TT_LIST, "FileMetaData.column_orders")) break;
            uint32_t n = hoodie_thrift_list(&d.r, &et);
            for (uint32_t i = 0; i < n && OK(&d); i++) hoodie_thrift_skip(&d.r, et);
            out->column_order_count = n;
            break;
        }
        default: hoodie_thrift_skip(&d.r, t);
        }
    }
    hoodie_thrift_struct_end(&d.r);
    if (d.nomem) return HOODIE_NOMEM();
    if (c->status != HOODIE_OK) return c->status;
    if (out->schema_count == 0) return hoodie_cursor__fail(c, "FileMetaData without a schema");
    if (out->num_rows < 0) return hoodie_cursor__fail(c, "FileMetaData.num_rows is negative");
    return HOODIE_OK;
}

static void dec_data_page(mdec *d, hoodie_pq_data_page_header *h)
{
    int16_t fid;
    uint8_t t;
    hoodie_thrift_struct_begin(&d->r);
    while (OK(d) && hoodie_thrift_field(&d->r, &fid, &t)) {
        switch (fid) {
        case 1: h->num_values = dec_i32(d, t, "DataPageHeader.num_values"); break;
        case 2: h->encoding = (hoodie_pq_encoding)dec_i32(d, t, "DataPageHeader.encoding"); break;
        case 3: h->def_encoding = (hoodie_pq_encoding)dec_i32(d, t, "DataPageHeader.definition_level_encoding"); break;
        case 4: h->rep_encoding = (hoodie_pq_encoding)dec_i32(d, t, "DataPageHeader.repetition_level_encoding"); break;
        case 5: if (EXPECT(d, t, HOODIE_TT_STRUCT, "DataPageHeader.statistics")) dec_statistics(d, &h->statistics); break;
        default: hoodie_thrift_skip(&d->r, t);
        }
    }
    hoodie_thrift_struct_end(&d->r);
}

static void dec_dict_page(mdec *d, hoodie_pq_dict_page_header *h)
{
    int16_t fid;
    uint8_t t;
    hoodie_thrift_struct_begin(&d->r);
    while (OK(d) && hoodie_thrift_field(&d->r, &fid, &t)) {
        switch (fid) {
        case 1: h->num_values = dec_i32(d, t, "DictionaryPageHeader.num_values"); break;
        case 2: h->encoding = (hoodie_pq_encoding)dec_i32(d, t, "DictionaryPageHeader.encoding"); break;
        case 3: h->is_sorted = dec_bool(d, t, "DictionaryPageHeader.is_sorted"); break;
        default: hoodie_thrift_skip(&d->r, t);
        }
    }
    hoodie_thrift_struct_end(&d->r);
}

static void dec_data_page_v2(mdec *d, hoodie_pq_data_page_v2_header *h)
{
    int16_t fid;
    uint8_t t;
    h->is_compressed = 1;
    hoodie_thrift_struct_begin(&d->r);
    while (OK(d) && hoodie_thrift_field(&d->r, &fid, &t)) {
        switch (fid) {
        case 1: h->num_values = dec_i32(d, t, "DataPageHeaderV2.num_values"); break;
        case 2: h->num_nulls = dec_i32(d, t, "DataPageHeaderV2.num_nulls"); break;
        case 3: h->num_rows = dec_i32(d, t, "DataPageHeaderV2.num_rows"); break;
        case 4: h->encoding = (hoodie_pq_encoding)dec_i32(d, t, "DataPageHeaderV2.encoding"); break;
        case 5: h->def_levels_len = dec_i32(d, t, "DataPageHeaderV2.definition_levels_byte_length"); break;
        case 6: h->rep_levels_len = dec_i32(d, t, "DataPageHeaderV2.repetition_levels_byte_length"); break;
        case 7: h->is_compressed = dec_bool(d, t, "DataPageHeaderV2.is_compressed"); break;
        case 8: if (EXPECT(d, t, HOODIE_TT_STRUCT, "DataPageHeaderV2.statistics")) dec_statistics(d, &h->statistics); break;
        default: hoodie_thrift_skip(&d->r, t);
        }
    }
    hoodie_thrift_struct_end(&d->r);
}

hoodie_status hoodie_pq_page_header_decode(hoodie_pq_page_header *out, hoodie_cursor *c, hoodie_arena *arena)
{
    mdec d = { .c = c, .arena = arena };
    int16_t fid;
    uint8_t t;
    int has_type = 0, has_sizes = 0;
    memset(out, 0, sizeof *out);
    out->data_v2.is_compressed = 1;
    hoodie_thrift_reader_init(&d.r, c);
    hoodie_thrift_struct_begin(&d.r);
    while (OK(&d) && hoodie_thrift_field(&d.r, &fid, &t)) {
        switch (fid) {
        case 1: out->type = (hoodie_pq_page_type)dec_enum(&d, t, "PageHeader.type", 0, 3); has_type = 1; break;
        case 2: out->uncompressed_size = dec_i32(&d, t, "PageHeader.uncompressed_page_size"); has_sizes |= 1; break;
        case 3: out->compressed_size = dec_i32(&d, t, "PageHeader.compressed_page_size"); has_sizes |= 2; break;
        case 4: out->crc = dec_i32(&d, t, "PageHeader.crc"); out->has_crc = 1; break;
        case 5: if (EXPECT(&d, t, HOODIE_TT_STRUCT, "PageHeader.data_page_header")) dec_data_page(&d, &out->data); break;
        case 7: if (EXPECT(&d, t, HOODIE_TT_STRUCT, "PageHeader.dictionary_page_header")) dec_dict_page(&d, &out->dict); break;
        case 8: if (EXPECT(&d, t, HOODIE_TT_STRUCT, "PageHeader.data_page_header_v2")) dec_data_page_v2(&d, &out->data_v2); break;
        default: hoodie_thrift_skip(&d.r, t);
        }
    }
    hoodie_thrift_struct_end(&d.r);
    if (d.nomem) return HOODIE_NOMEM();
    if (c->status != HOODIE_OK) return c->status;
    if (!has_type || has_sizes != 3) return hoodie_cursor__fail(c, "page header without type or sizes");
    if (out->uncompressed_size < 0 || out->compressed_size < 0)
        return hoodie_cursor__fail(c, "page header with negative size");
    return HOODIE_OK;
}

/* ---- page index ---- */

/* A list field's header: its count, or 0 with the failure recorded when the field or element type is wrong. */
static uint32_t dec_list(mdec *d, uint8_t t, uint8_t want_elem, const char *name)
{
    uint8_t et;
    if (!EXPECT(d, t, HOODIE_TT_LIST, name)) return 0;
    uint32_t n = hoodie_thrift_list(&d->r, &et);
    if (!OK(d)) return 0;
    if (n && !(et == want_elem || (want_elem == HOODIE_TT_TRUE && et == HOODIE_TT_FALSE))) {
        hoodie_cursor__fail(d->c, "%s: list of element type %u", name, (unsigned)et);
        return 0;
    }
    return n;
}

hoodie_status hoodie_pq_offset_index_decode(hoodie_pq_offset_index *out, hoodie_cursor *c, hoodie_arena *arena)
{
    mdec d = { .c = c, .arena = arena };
    int16_t fid;
    uint8_t t;
    int has_pages = 0;
    memset(out, 0, sizeof *out);
    hoodie_thrift_reader_init(&d.r, c);
    hoodie_thrift_struct_begin(&d.r);
    while (OK(&d) && hoodie_thrift_field(&d.r, &fid, &t)) {
        if (fid != 1 || has_pages) { hoodie_thrift_skip(&d.r, t); continue; }
        uint32_t n = dec_list(&d, t, HOODIE_TT_STRUCT, "OffsetIndex.page_locations");
        if (!OK(&d)) break;
        has_pages = 1;
        out->pages = hoodie_arena_calloc(arena, n ? n : 1, sizeof *out->pages);
        if (!out->pages) { d.nomem = 1; break; }
        out->page_count = n;
        for (uint32_t i = 0; i < n && OK(&d); i++) {
            hoodie_pq_page_location *pl = &out->pages[i];
            int16_t f2;
            uint8_t t2;
            int seen = 0;
            hoodie_thrift_struct_begin(&d.r);
            while (OK(&d) && hoodie_thrift_field(&d.r, &f2, &t2)) {
                switch (f2) {
                case 1: pl->offset = dec_i64(&d, t2, "PageLocation.offset"); seen |= 1; break;
                case 2: pl->compressed_page_size = dec_i32(&d, t2, "PageLocation.compressed_page_size"); seen |= 2; break;
                case 3: pl->first_row_index = dec_i64(&d, t2, "PageLocation.first_row_index"); seen |= 4; break;
                default: hoodie_thrift_skip(&d.r, t2);
                }
            }
            hoodie_thrift_struct_end(&d.r);
            if (!OK(&d)) break;
            if (seen != 7) hoodie_cursor__fail(c, "PageLocation %u lacks a required field", i);
            else if (pl->offset < 0 || pl->compressed_page_size <= 0 || pl->first_row_index < 0)
                hoodie_cursor__fail(c, "PageLocation %u has a negative offset, size or row", i);
            else if (i == 0 ? pl->first_row_index != 0
                            : pl->first_row_index <= out->pages[i - 1].first_row_index ||
                              pl->offset < out->pages[i - 1].offset + out->pages[i - 1].compressed_page_size)
                hoodie_cursor__fail(c, "PageLocation %u is out of order", i);
        }
    }
    hoodie_thrift_struct_end(&d.r);
    if (d.nomem) return HOODIE_NOMEM();
    if (c->status != HOODIE_OK) return c->status;
    if (!has_pages) return hoodie_cursor__fail(c, "OffsetIndex without page_locations");
    return HOODIE_OK;
}

hoodie_status hoodie_pq_column_index_decode(hoodie_pq_column_index *out, hoodie_cursor *c, hoodie_arena *arena)
{
    mdec d = { .c = c, .arena = arena };
    int16_t fid;
    uint8_t t;
    int seen = 0;
    uint32_t counts[4] = { 0, 0, 0, 0 };
    memset(out, 0, sizeof *out);
    hoodie_thrift_reader_init(&d.r, c);
    hoodie_thrift_struct_begin(&d.r);
    while (OK(&d) && hoodie_thrift_field(&d.r, &fid, &t)) {
        if (fid < 1 || fid > 5 || (seen & (1 << fid))) { hoodie_thrift_skip(&d.r, t); continue; }
        if (fid == 4) {
            out->boundary_order = (hoodie_pq_boundary_order)dec_enum(&d, t, "ColumnIndex.boundary_order", 0, 2);
            seen |= 1 << fid;
            continue;
        }
        static const char *const names[] = { "", "ColumnIndex.null_pages", "ColumnIndex.min_values",
                                             "ColumnIndex.max_values", "", "ColumnIndex.null_counts" };
        uint8_t want = fid == 1 ? HOODIE_TT_TRUE : fid == 5 ? HOODIE_TT_I64 : HOODIE_TT_BINARY;
        uint32_t n = dec_list(&d, t, want, names[fid]);
        if (!OK(&d)) break;
        seen |= 1 << fid;
        counts[fid == 5 ? 0 : fid] = n;
        if (fid == 1) {
            if (!(out->null_pages = hoodie_arena_calloc(arena, n + 1, 1))) { d.nomem = 1; break; }
            for (uint32_t i = 0; i < n && OK(&d); i++) out->null_pages[i] = (uint8_t)hoodie_thrift_bool_elem(&d.r);
        } else if (fid == 5) {
            if (!(out->null_counts = hoodie_arena_calloc(arena, n + 1, sizeof *out->null_counts))) { d.nomem = 1; break; }
            for (uint32_t i = 0; i < n && OK(&d); i++) out->null_counts[i] = hoodie_thrift_i64(&d.r);
            out->has_null_counts = 1;
        } else {
            const uint8_t **v = hoodie_arena_calloc(arena, n + 1, sizeof *v);
            uint32_t *l = hoodie_arena_calloc(arena, n + 1, sizeof *l);
            if (!v || !l) { d.nomem = 1; break; }
            for (uint32_t i = 0; i < n && OK(&d); i++) v[i] = dec_bytes(&d, &l[i]);
            if (fid == 2) { out->min_values = v; out->min_lens = l; }
            else { out->max_values = v; out->max_lens = l; }
        }
    }
    hoodie_thrift_struct_end(&d.r);
    if (d.nomem) return HOODIE_NOMEM();
    if (c->status != HOODIE_OK) return c->status;
    if ((seen & 0x1e) != 0x1e) return hoodie_cursor__fail(c, "ColumnIndex lacks a required field");
    if (counts[2] != counts[1] || counts[3] != counts[1] || (out->has_null_counts && counts[0] != counts[1]))
        return hoodie_cursor__fail(c, "ColumnIndex lists of different lengths");
    out->page_count = counts[1];
    return HOODIE_OK;
}
