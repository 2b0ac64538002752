#include "format/thrift/compact.h"
#include "util/error.h"

#include <string.h>

void hoodie_thrift_reader_init(hoodie_thrift_reader *r, hoodie_cursor *c)
{
    r->c = c;
    r->depth = 0;
    r->last_fid[0] = 0;
}

void hoodie_thrift_struct_begin(hoodie_thrift_reader *r)
{
    if (r->depth + 1 >= HOODIE_THRIFT_MAX_DEPTH) {
        hoodie_cursor__fail(r->c, "thrift structs nested deeper than %d", HOODIE_THRIFT_MAX_DEPTH);
        return;
    }
    r->last_fid[++r->depth] = 0;
}

void hoodie_thrift_struct_end(hoodie_thrift_reader *r)
{
    if (r->depth > 0) r->depth--;
}

int hoodie_thrift_field(hoodie_thrift_reader *r, int16_t *fid, uint8_t *type)
{
    uint8_t b = hoodie_cursor_u8(r->c);
    if (r->c->status != HOODIE_OK) return 0;
    if (b == 0) return 0;
    uint8_t t = b & 0x0f, delta = b >> 4;
    int16_t id;
    if (delta) id = (int16_t)(r->last_fid[r->depth] + delta);
    else id = (int16_t)hoodie_zigzag_decode(hoodie_cursor_uvarint(r->c));
    if (t > HOODIE_TT_STRUCT) {
        hoodie_cursor__fail(r->c, "bad thrift field type %u", t);
        return 0;
    }
    r->last_fid[r->depth] = id;
    *fid = id;
    *type = t;
    return r->c->status == HOODIE_OK;
}

int32_t hoodie_thrift_i32(hoodie_thrift_reader *r)
{
    return (int32_t)hoodie_zigzag_decode(hoodie_cursor_uvarint(r->c));
}

int64_t hoodie_thrift_i64(hoodie_thrift_reader *r)
{
    return hoodie_zigzag_decode(hoodie_cursor_uvarint(r->c));
}

double hoodie_thrift_double(hoodie_thrift_reader *r)
{
    uint64_t u = hoodie_cursor_le64(r->c);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

const uint8_t *hoodie_thrift_binary(hoodie_thrift_reader *r, uint32_t *len)
{
    uint64_t n = hoodie_cursor_uvarint(r->c);
    *len = 0;
    if (r->c->status != HOODIE_OK) return NULL;
    if (n > hoodie_cursor_left(r->c)) {
        hoodie_cursor__fail(r->c, "thrift binary of %llu bytes with %zu left", (unsigned long long)n,
                            hoodie_cursor_left(r->c));
        return NULL;
    }
    *len = (uint32_t)n;
    return hoodie_cursor_bytes(r->c, (size_t)n);
}

uint32_t hoodie_thrift_list(hoodie_thrift_reader *r, uint8_t *elem_type)
{
    uint8_t b = hoodie_cursor_u8(r->c);
    uint64_t n = b >> 4;
    *elem_type = b & 0x0f;
    if (n == 15) n = hoodie_cursor_uvarint(r->c);
    if (r->c->status != HOODIE_OK) return 0;
    /* Every element takes at least one byte (even an empty struct has its STOP). */
    if (n > hoodie_cursor_left(r->c)) {
        hoodie_cursor__fail(r->c, "thrift list of %llu elements with %zu bytes left", (unsigned long long)n,
                            hoodie_cursor_left(r->c));
        return 0;
    }
    return (uint32_t)n;
}

int hoodie_thrift_bool_elem(hoodie_thrift_reader *r)
{
    return hoodie_cursor_u8(r->c) == 1;
}

void hoodie_thrift_skip(hoodie_thrift_reader *r, uint8_t type)
{
    hoodie_cursor *c = r->c;
    if (c->status != HOODIE_OK) return;
    switch (type) {
    case HOODIE_TT_TRUE:
    case HOODIE_TT_FALSE:
        return; /* a bool field's value is in its header */
    case HOODIE_TT_BYTE: (void)hoodie_cursor_u8(c); return;
    case HOODIE_TT_I16:
    case HOODIE_TT_I32:
    case HOODIE_TT_I64: (void)hoodie_cursor_uvarint(c); return;
    case HOODIE_TT_DOUBLE: (void)hoodie_cursor_bytes(c, 8); return;
    case HOODIE_TT_BINARY: { uint32_t n; (void)hoodie_thrift_binary(r, &n); return; }
    case HOODIE_TT_LIST:
    case HOODIE_TT_SET: {
        uint8_t et;
        uint32_t n = hoodie_thrift_list(r, &et);
        for (uint32_t i = 0; i < n && c->status == HOODIE_OK; i++) {
            if (et == HOODIE_TT_TRUE || et == HOODIE_TT_FALSE) (void)hoodie_cursor_u8(c);
            else hoodie_thrift_skip(r, et);
        }
        return;
    }
    case HOODIE_TT_MAP: {
        uint64_t n = hoodie_cursor_uvarint(c);
        if (n == 0 || c->status != HOODIE_OK) return;
        if (n > hoodie_cursor_left(c)) { hoodie_cursor__fail(c, "thrift map of %llu entries", (unsigned long long)n); return; }
        uint8_t kv = hoodie_cursor_u8(c);
        for (uint64_t i = 0; i < n && c->status == HOODIE_OK; i++) {
            uint8_t kt = kv >> 4, vt = kv & 0x0f;
            if (kt == HOODIE_TT_TRUE || kt == HOODIE_TT_FALSE) (void)hoodie_cursor_u8(c); else hoodie_thrift_skip(r, kt);
            if (vt == HOODIE_TT_TRUE || vt == HOODIE_TT_FALSE) (void)hoodie_cursor_u8(c); else hoodie_thrift_skip(r, vt);
        }
        return;
    }
    case HOODIE_TT_STRUCT: {
        int16_t fid;
        uint8_t t;
        hoodie_thrift_struct_begin(r);
        while (hoodie_thrift_field(r, &fid, &t)) hoodie_thrift_skip(r, t);
        hoodie_thrift_struct_end(r);
        return;
    }
    default:
        hoodie_cursor__fail(c, "bad thrift type %u", type);
    }
}

int hoodie_thrift_expect(hoodie_thrift_reader *r, uint8_t got, uint8_t want, const char *field)
{
    int ok = got == want || (want == HOODIE_TT_TRUE && got == HOODIE_TT_FALSE) ||
             (want == HOODIE_TT_FALSE && got == HOODIE_TT_TRUE) || (want == HOODIE_TT_LIST && got == HOODIE_TT_SET);
    if (!ok) hoodie_cursor__fail(r->c, "thrift field %s has type %u, expected %u", field, got, want);
    return ok;
}

/* ---- encoder ---- */

static void put(hoodie_thrift_writer *w, const void *p, size_t n)
{
    if (w->status == HOODIE_OK) w->status = hoodie_buf_append(w->b, p, n);
}

static void put_uvarint(hoodie_thrift_writer *w, uint64_t v)
{
    if (w->status == HOODIE_OK) w->status = hoodie_buf_put_uvarint(w->b, v);
}

void hoodie_thrift_writer_init(hoodie_thrift_writer *w, hoodie_buf *b)
{
    w->b = b;
    w->depth = 0;
    w->last_fid[0] = 0;
    w->status = HOODIE_OK;
}

void hoodie_thrift_write_struct_begin(hoodie_thrift_writer *w)
{
    if (w->depth + 1 >= HOODIE_THRIFT_MAX_DEPTH) { w->status = HOODIE_FAIL(HOODIE_EINVAL, "thrift nesting too deep"); return; }
    w->last_fid[++w->depth] = 0;
}

void hoodie_thrift_write_struct_end(hoodie_thrift_writer *w)
{
    uint8_t z = 0;
    put(w, &z, 1);
    if (w->depth > 0) w->depth--;
}

void hoodie_thrift_write_field(hoodie_thrift_writer *w, int16_t fid, uint8_t type)
{
    int delta = fid - w->last_fid[w->depth];
    if (delta > 0 && delta <= 15) {
        uint8_t b = (uint8_t)(delta << 4 | type);
        put(w, &b, 1);
    } else {
        put(w, &type, 1);
        put_uvarint(w, hoodie_zigzag_encode(fid));
    }
    w->last_fid[w->depth] = fid;
}

void hoodie_thrift_write_bool_field(hoodie_thrift_writer *w, int16_t fid, int value)
{
    hoodie_thrift_write_field(w, fid, value ? HOODIE_TT_TRUE : HOODIE_TT_FALSE);
}

void hoodie_thrift_write_i32(hoodie_thrift_writer *w, int32_t v) { put_uvarint(w, hoodie_zigzag_encode(v)); }
void hoodie_thrift_write_i64(hoodie_thrift_writer *w, int64_t v) { put_uvarint(w, hoodie_zigzag_encode(v)); }

void hoodie_thrift_write_double(hoodie_thrift_writer *w, double v)
{
    uint64_t u;
    uint8_t x[8];
    memcpy(&u, &v, 8);
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)(u >> (8 * i));
    put(w, x, 8);
}

void hoodie_thrift_write_binary(hoodie_thrift_writer *w, const void *p, size_t len)
{
    put_uvarint(w, len);
    put(w, p, len);
}

void hoodie_thrift_write_i32_field(hoodie_thrift_writer *w, int16_t fid, int32_t v)
{
    hoodie_thrift_write_field(w, fid, HOODIE_TT_I32);
    hoodie_thrift_write_i32(w, v);
}

void hoodie_thrift_write_i64_field(hoodie_thrift_writer *w, int16_t fid, int64_t v)
{
    hoodie_thrift_write_field(w, fid, HOODIE_TT_I64);
    hoodie_thrift_write_i64(w, v);
}

void hoodie_thrift_write_binary_field(hoodie_thrift_writer *w, int16_t fid, const void *p, size_t len)
{
    hoodie_thrift_write_field(w, fid, HOODIE_TT_BINARY);
    hoodie_thrift_write_binary(w, p, len);
}

void hoodie_thrift_write_list_begin(hoodie_thrift_writer *w, uint8_t elem_type, uint32_t count)
{
    if (count < 15) {
        uint8_t b = (uint8_t)(count << 4 | elem_type);
        put(w, &b, 1);
    } else {
        uint8_t b = (uint8_t)(0xf0 | elem_type);
        put(w, &b, 1);
        put_uvarint(w, count);
    }
}
