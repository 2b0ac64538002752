#include "format/hlog/hlog_write.h"
#include "format/avro/binary.h"
#include "util/error.h"

#include <string.h>

/* Fixed header order: rank of each key (see hlog_write.h). */
static int header_rank(hoodie_hlog_header_key k)
{
    switch (k) {
    case HOODIE_HLOG_INSTANT_TIME: return 0;
    case HOODIE_HLOG_COMMAND_BLOCK_TYPE: return 1;
    case HOODIE_HLOG_TARGET_INSTANT_TIME: return 2;
    case HOODIE_HLOG_COMPACTED_BLOCK_TIMES: return 3;
    case HOODIE_HLOG_BLOCK_IDENTIFIER: return 4;
    case HOODIE_HLOG_IS_PARTIAL: return 5;
    case HOODIE_HLOG_BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS: return 6;
    case HOODIE_HLOG_RECORD_POSITIONS: return 7;
    case HOODIE_HLOG_SCHEMA: return 8;
    default: return 9 + (int)k;
    }
}

void hoodie_hlog_header_sort(hoodie_hlog_header_entry *e, size_t count)
{
    for (size_t i = 1; i < count; i++) { /* insertion sort: tiny and stable */
        hoodie_hlog_header_entry x = e[i];
        size_t j = i;
        while (j > 0 && header_rank(e[j - 1].key) > header_rank(x.key)) { e[j] = e[j - 1]; j--; }
        e[j] = x;
    }
}

size_t hoodie_hlog_header_from_block(const hoodie_hlog_block *b, hoodie_hlog_header_entry *entries)
{
    size_t n = 0;
    for (int k = 0; k < HOODIE_HLOG_HEADER_KEY_COUNT; k++) {
        if (!b->header[k]) continue;
        entries[n].key = (hoodie_hlog_header_key)k;
        entries[n].value = b->header[k];
        entries[n].len = b->header_len[k];
        n++;
    }
    return n;
}

static void put_be32_at(hoodie_buf *b, size_t pos, uint32_t v)
{
    b->data[pos] = (uint8_t)(v >> 24);
    b->data[pos + 1] = (uint8_t)(v >> 16);
    b->data[pos + 2] = (uint8_t)(v >> 8);
    b->data[pos + 3] = (uint8_t)v;
}

static void put_be64_at(hoodie_buf *b, size_t pos, uint64_t v)
{
    put_be32_at(b, pos, (uint32_t)(v >> 32));
    put_be32_at(b, pos + 4, (uint32_t)v);
}

hoodie_status hoodie_hlog_block_begin(hoodie_buf *out, hoodie_hlog_block_mark *m, hoodie_hlog_block_type type,
                                      const hoodie_hlog_header_entry *header, size_t header_count)
{
    if (type == HOODIE_HLOG_CORRUPT_BLOCK || (int)type < 0 || type >= HOODIE_HLOG_BLOCK_TYPE_COUNT)
        return HOODIE_FAIL(HOODIE_EINVAL, "cannot write a log block of type %d", (int)type);
    if (header_count > INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "too many log block headers");
    size_t need = HOODIE_HLOG_MAGIC_LEN + 8 + 4 + 4 + 4 + 8;
    for (size_t i = 0; i < header_count; i++) {
        if (header[i].len > INT32_MAX || (header[i].len && !header[i].value))
            return HOODIE_FAIL(HOODIE_EINVAL, "log block header %s: bad value", hoodie_hlog_header_key_name(header[i].key));
        need += 8 + header[i].len;
    }
    HOODIE_TRY(hoodie_buf_reserve(out, need));
    m->start = out->len;
    hoodie_buf_append(out, HOODIE_HLOG_MAGIC, HOODIE_HLOG_MAGIC_LEN);
    hoodie_buf_put_be64(out, 0); /* block size, patched by end */
    hoodie_buf_put_be32(out, 1); /* log format version */
    hoodie_buf_put_be32(out, (uint32_t)type);
    hoodie_buf_put_be32(out, (uint32_t)header_count);
    for (size_t i = 0; i < header_count; i++) {
        hoodie_buf_put_be32(out, (uint32_t)header[i].key);
        hoodie_buf_put_be32(out, (uint32_t)header[i].len);
        if (header[i].len) hoodie_buf_append(out, header[i].value, header[i].len);
    }
    hoodie_buf_put_be64(out, 0); /* content length, patched by end */
    m->content_start = out->len;
    return HOODIE_OK;
}

hoodie_status hoodie_hlog_block_end(hoodie_buf *out, const hoodie_hlog_block_mark *m)
{
    if (m->content_start < m->start + HOODIE_HLOG_MAGIC_LEN + 28 || m->content_start > out->len ||
        memcmp(out->data + m->start, HOODIE_HLOG_MAGIC, HOODIE_HLOG_MAGIC_LEN) != 0)
        return HOODIE_FAIL(HOODIE_EINVAL, "log block mark does not match the buffer");
    HOODIE_TRY(hoodie_buf_reserve(out, 12));
    uint64_t content_len = (uint64_t)(out->len - m->content_start);
    hoodie_buf_put_be32(out, 0); /* footer: no entries */
    uint64_t block_size = (uint64_t)(out->len + 8 - (m->start + HOODIE_HLOG_MAGIC_LEN + 8));
    hoodie_buf_put_be64(out, block_size + HOODIE_HLOG_MAGIC_LEN); /* reverse pointer */
    put_be64_at(out, m->start + HOODIE_HLOG_MAGIC_LEN, block_size);
    put_be64_at(out, m->content_start - 8, content_len);
    return HOODIE_OK;
}

hoodie_status hoodie_hlog_write_block(hoodie_buf *out, hoodie_hlog_block_type type,
                                      const hoodie_hlog_header_entry *header, size_t header_count,
                                      const void *content, size_t content_len)
{
    hoodie_hlog_block_mark m;
    size_t start = out->len;
    hoodie_status rc = hoodie_hlog_block_begin(out, &m, type, header, header_count);
    if (rc == HOODIE_OK && content_len) rc = hoodie_buf_append(out, content, content_len);
    if (rc == HOODIE_OK) rc = hoodie_hlog_block_end(out, &m);
    if (rc < 0) out->len = start;
    return rc;
}

hoodie_status hoodie_hlog_write_rollback(hoodie_buf *out, const char *instant, const char *target)
{
    hoodie_hlog_header_entry h[3] = {
        { HOODIE_HLOG_INSTANT_TIME, instant, strlen(instant) },
        { HOODIE_HLOG_COMMAND_BLOCK_TYPE, "0", 1 },
        { HOODIE_HLOG_TARGET_INSTANT_TIME, target, strlen(target) },
    };
    return hoodie_hlog_write_block(out, HOODIE_HLOG_COMMAND_BLOCK, h, 3, NULL, 0);
}

/* ---- AVRO_DATA_BLOCK ---- */

hoodie_status hoodie_hlog_avro_content_begin(hoodie_buf *out, hoodie_hlog_avro_writer *w)
{
    memset(w, 0, sizeof *w);
    HOODIE_TRY(hoodie_buf_reserve(out, 8));
    hoodie_buf_put_be32(out, 3);
    w->count_pos = out->len;
    hoodie_buf_put_be32(out, 0);
    return HOODIE_OK;
}

hoodie_status hoodie_hlog_avro_record_begin(hoodie_buf *out, hoodie_hlog_avro_writer *w)
{
    if (w->count == INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "too many records for one Avro data block");
    w->record_pos = out->len;
    return hoodie_buf_put_be32(out, 0);
}

hoodie_status hoodie_hlog_avro_record_end(hoodie_buf *out, hoodie_hlog_avro_writer *w)
{
    if (w->record_pos + 4 > out->len || w->record_pos < w->count_pos + 4)
        return HOODIE_FAIL(HOODIE_EINVAL, "Avro record end without a begin");
    size_t len = out->len - w->record_pos - 4;
    if (len > INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "Avro record of %zu bytes is too large", len);
    put_be32_at(out, w->record_pos, (uint32_t)len);
    w->count++;
    return HOODIE_OK;
}

hoodie_status hoodie_hlog_avro_record_add(hoodie_buf *out, hoodie_hlog_avro_writer *w, const void *rec, size_t len)
{
    if (len > INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "Avro record of %zu bytes is too large", len);
    if (w->count == INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "too many records for one Avro data block");
    HOODIE_TRY(hoodie_buf_reserve(out, 4 + len));
    hoodie_buf_put_be32(out, (uint32_t)len);
    if (len) hoodie_buf_append(out, rec, len);
    w->count++;
    return HOODIE_OK;
}

hoodie_status hoodie_hlog_avro_content_end(hoodie_buf *out, hoodie_hlog_avro_writer *w)
{
    if (w->count_pos + 4 > out->len) return HOODIE_FAIL(HOODIE_EINVAL, "Avro content end without a begin");
    put_be32_at(out, w->count_pos, (uint32_t)w->count);
    return HOODIE_OK;
}

/* ---- DELETE_BLOCK ---- */

#define WRAP(n, t) "{\"type\":\"record\",\"name\":\"" n "\",\"fields\":[{\"name\":\"value\",\"type\":" t "}]}"

const char hoodie_hlog_delete_list_schema[] =
    "{\"type\":\"record\",\"name\":\"HoodieDeleteRecordList\",\"namespace\":\"org.apache.hudi.avro.model\","
    "\"fields\":[{\"name\":\"deleteRecordList\",\"type\":{\"type\":\"array\",\"items\":"
    "{\"type\":\"record\",\"name\":\"HoodieDeleteRecord\",\"fields\":["
    "{\"name\":\"recordKey\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"partitionPath\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"orderingVal\",\"type\":[\"null\","
    WRAP("BooleanWrapper", "\"boolean\"") ","
    WRAP("IntWrapper", "\"int\"") ","
    WRAP("LongWrapper", "\"long\"") ","
    WRAP("FloatWrapper", "\"float\"") ","
    WRAP("DoubleWrapper", "\"double\"") ","
    WRAP("BytesWrapper", "\"bytes\"") ","
    WRAP("StringWrapper", "\"string\"") ","
    WRAP("DateWrapper", "\"int\"") ","
    WRAP("DecimalWrapper", "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":30,\"scale\":15}") ","
    WRAP("TimeMicrosWrapper", "\"long\"") ","
    WRAP("TimestampMicrosWrapper", "\"long\"")
    "],\"default\":null}]}}}]}";

#undef WRAP

static hoodie_status opt_string(hoodie_buf *out, const char *s)
{
    if (!s) return hoodie_avro_write_long(out, 0);
    HOODIE_TRY(hoodie_avro_write_long(out, 1));
    return hoodie_avro_write_bytes(out, s, strlen(s));
}

static hoodie_status ordering(hoodie_buf *out, const hoodie_hlog_delete *d)
{
    if ((int)d->ord_type < 0 || d->ord_type > HOODIE_HLOG_ORD_TIMESTAMP_MICROS)
        return HOODIE_FAIL(HOODIE_EINVAL, "delete record: bad ordering value type %d", (int)d->ord_type);
    HOODIE_TRY(hoodie_avro_write_long(out, (int64_t)d->ord_type));
    switch (d->ord_type) {
    case HOODIE_HLOG_ORD_NULL: return HOODIE_OK;
    case HOODIE_HLOG_ORD_BOOLEAN: return hoodie_buf_putc(out, d->ord_i ? 1 : 0);
    case HOODIE_HLOG_ORD_INT: case HOODIE_HLOG_ORD_DATE:
        if (d->ord_i < INT32_MIN || d->ord_i > INT32_MAX)
            return HOODIE_FAIL(HOODIE_EINVAL, "delete record: ordering value %lld out of int range", (long long)d->ord_i);
        return hoodie_avro_write_long(out, d->ord_i);
    case HOODIE_HLOG_ORD_LONG: case HOODIE_HLOG_ORD_TIME_MICROS: case HOODIE_HLOG_ORD_TIMESTAMP_MICROS:
        return hoodie_avro_write_long(out, d->ord_i);
    case HOODIE_HLOG_ORD_FLOAT: return hoodie_avro_write_float(out, (float)d->ord_d);
    case HOODIE_HLOG_ORD_DOUBLE: return hoodie_avro_write_double(out, d->ord_d);
    case HOODIE_HLOG_ORD_BYTES: case HOODIE_HLOG_ORD_STRING: case HOODIE_HLOG_ORD_DECIMAL:
        if (d->ord_len && !d->ord_bytes) return HOODIE_FAIL(HOODIE_EINVAL, "delete record: ordering bytes missing");
        return hoodie_avro_write_bytes(out, d->ord_bytes, d->ord_len);
    }
    return HOODIE_OK;
}

hoodie_status hoodie_hlog_delete_content(hoodie_buf *out, const hoodie_hlog_delete *deletes, size_t count)
{
    size_t start = out->len;
    hoodie_status rc = hoodie_buf_reserve(out, 8);
    if (rc < 0) return rc;
    hoodie_buf_put_be32(out, 3);
    hoodie_buf_put_be32(out, 0); /* payload length, patched below */
    size_t payload = out->len;
    if (count) rc = hoodie_avro_write_long(out, (int64_t)count);
    for (size_t i = 0; i < count && rc == HOODIE_OK; i++) {
        rc = opt_string(out, deletes[i].record_key);
        if (rc == HOODIE_OK) rc = opt_string(out, deletes[i].partition_path);
        if (rc == HOODIE_OK) rc = ordering(out, &deletes[i]);
    }
    if (rc == HOODIE_OK) rc = hoodie_avro_write_long(out, 0);
    if (rc == HOODIE_OK && out->len - payload > INT32_MAX)
        rc = HOODIE_FAIL(HOODIE_EINVAL, "delete block payload of %zu bytes is too large", out->len - payload);
    if (rc < 0) { out->len = start; return rc; }
    put_be32_at(out, payload - 4, (uint32_t)(out->len - payload));
    return HOODIE_OK;
}

hoodie_status hoodie_hlog_write_delete_block(hoodie_buf *out, const hoodie_hlog_header_entry *header,
                                             size_t header_count, const hoodie_hlog_delete *deletes, size_t count)
{
    hoodie_hlog_block_mark m;
    size_t start = out->len;
    hoodie_status rc = hoodie_hlog_block_begin(out, &m, HOODIE_HLOG_DELETE_BLOCK, header, header_count);
    if (rc == HOODIE_OK) rc = hoodie_hlog_delete_content(out, deletes, count);
    if (rc == HOODIE_OK) rc = hoodie_hlog_block_end(out, &m);
    if (rc < 0) out->len = start;
    return rc;
}
