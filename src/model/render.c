#include "model/render.h"
#include "model/value.h"
#include "util/error.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char HEX[] = "0123456789ABCDEF";



static hoodie_status put_date(hoodie_buf *out, int64_t days)
{
    int64_t y;
    unsigned m, d;
    hoodie_days_to_civil(days, &y, &m, &d);
    if (y <= 0) return hoodie_buf_printf(out, "%04lld-%02u-%02u (BC)", (long long)(1 - y), m, d);
    return hoodie_buf_printf(out, "%04lld-%02u-%02u", (long long)y, m, d);
}

/* Fraction digits with trailing zeros removed ("" when zero). */
static hoodie_status put_frac(hoodie_buf *out, int64_t frac, int digits)
{
    if (frac == 0) return HOODIE_OK;
    char buf[16];
    snprintf(buf, sizeof buf, "%0*lld", digits, (long long)frac);
    int n = digits;
    while (n > 0 && buf[n - 1] == '0') n--;
    HOODIE_TRY(hoodie_buf_putc(out, '.'));
    return hoodie_buf_append(out, buf, (size_t)n);
}

static const int64_t UNIT_PER_SEC[] = { 1, 1000, 1000000, 1000000000 };
static const int UNIT_DIGITS[] = { 0, 3, 6, 9 };

static hoodie_status put_time_of_day(hoodie_buf *out, int64_t secs_of_day, int64_t frac, int digits)
{
    HOODIE_TRY(hoodie_buf_printf(out, "%02lld:%02lld:%02lld", (long long)(secs_of_day / 3600),
                                 (long long)(secs_of_day / 60 % 60), (long long)(secs_of_day % 60)));
    return put_frac(out, frac, digits);
}

static hoodie_status put_timestamp(hoodie_buf *out, int64_t v, hoodie_time_unit unit, int utc)
{
    int64_t per = UNIT_PER_SEC[unit & 3];
    int64_t secs = v / per, frac = v % per;
    if (frac < 0) { frac += per; secs--; }
    int64_t days = secs / 86400, sod = secs % 86400;
    if (sod < 0) { sod += 86400; days--; }
    HOODIE_TRY(put_date(out, days));
    /* DuckDB puts " (BC)" after the whole timestamp; keep it simple: date part as above, then the time. */
    HOODIE_TRY(hoodie_buf_putc(out, ' '));
    HOODIE_TRY(put_time_of_day(out, sod, frac, UNIT_DIGITS[unit & 3]));
    if (utc) HOODIE_TRY(hoodie_buf_append(out, "+00", 3));
    return HOODIE_OK;
}

/* An integer in decimal (no printf: CSV and JSON lines of large tables are mostly numbers). */
static hoodie_status put_hex(hoodie_buf *out, const uint8_t *p, size_t n)
{
    HOODIE_TRY(hoodie_buf_reserve(out, n * 2));
    for (size_t i = 0; i < n; i++) {
        out->data[out->len++] = (uint8_t)HEX[p[i] >> 4];
        out->data[out->len++] = (uint8_t)HEX[p[i] & 15];
    }
    return HOODIE_OK;
}

static hoodie_status put_uuid(hoodie_buf *out, const uint8_t *p)
{
    static const char hx[] = "0123456789abcdef";
    char s[37];
    int k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s[k++] = '-';
        s[k++] = hx[p[i] >> 4];
        s[k++] = hx[p[i] & 15];
    }
    return hoodie_buf_append(out, s, 36);
}

static hoodie_status put_base64(hoodie_buf *out, const uint8_t *p, size_t n)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    HOODIE_TRY(hoodie_buf_reserve(out, (n + 2) / 3 * 4));
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        for (int k = 3; k >= 0; k--) out->data[out->len++] = (uint8_t)b64[(v >> (6 * k)) & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        out->data[out->len++] = (uint8_t)b64[(v >> 18) & 63];
        out->data[out->len++] = (uint8_t)b64[(v >> 12) & 63];
        out->data[out->len++] = '=';
        out->data[out->len++] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        out->data[out->len++] = (uint8_t)b64[(v >> 18) & 63];
        out->data[out->len++] = (uint8_t)b64[(v >> 12) & 63];
        out->data[out->len++] = (uint8_t)b64[(v >> 6) & 63];
        out->data[out->len++] = '=';
    }
    return HOODIE_OK;
}

/* Length of a valid UTF-8 sequence at p (1..4), or 0 if invalid. */
static size_t utf8_len(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else return 0;
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

/* Eight bytes at a time (SWAR): a word's bytes repeated, and the high bit of each byte of w that equals c (and
 * maybe of bytes after it: a test for "any", exact for that). (x - 0x01..) & ~x & 0x80.. marks x's zero bytes. */
#define SWAR_ONES 0x0101010101010101u
#define SWAR_HIGHS 0x8080808080808080u
static inline uint64_t swar_eq(uint64_t w, uint8_t c)
{
    uint64_t x = w ^ (SWAR_ONES * c);
    return (x - SWAR_ONES) & ~x & SWAR_HIGHS;
}

static inline uint64_t swar_load(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* How many bytes of p[0..n), in whole 8-byte words, need no escaping in a JSON string (printable ASCII but '"' and
 * '\\'): a word is clean when no byte has its high bit, none is below 0x20 (w - 0x20.. borrows into the high bit
 * only there, given no high bits) and none is '"' or '\\'. */
static size_t json_clean_words(const uint8_t *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = swar_load(p + i);
        if ((w & SWAR_HIGHS) | ((w - SWAR_ONES * 0x20) & SWAR_HIGHS) | swar_eq(w, '"') | swar_eq(w, '\\')) break;
    }
    return i;
}

static hoodie_status put_json_string(hoodie_buf *out, const uint8_t *p, size_t n)
{
    /* one reserve per 4 KiB of input and a copy per run of bytes that need no escaping (printable ASCII but the
     * quote and the backslash); an input byte becomes at most 6 (\u00XX), a sequence starting in a chunk may end 3
     * bytes past it, and the closing quote is 1 */
    enum { CHUNK = 4096 };
    HOODIE_TRY(hoodie_buf_putc(out, '"'));
    size_t i = 0;
    while (i < n) {
        size_t end = n - i > CHUNK ? i + CHUNK : n;
        HOODIE_TRY(hoodie_buf_reserve(out, (CHUNK + 3) * 6 + 1));
        uint8_t *d = out->data + out->len;
        while (i < end) {
            size_t run = i + json_clean_words(p + i, end - i);
            while (run < end && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\') run++;
            memcpy(d, p + i, run - i);
            d += run - i;
            i = run;
            if (i == end) break;
            uint8_t c = p[i];
            if (c == '"' || c == '\\') {
                *d++ = '\\';
                *d++ = c;
                i++;
            } else if (c < 0x20) {
                static const char hex[] = "0123456789abcdef";
                char e = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : c == '\b' ? 'b' : c == '\f' ? 'f' : 0;
                *d++ = '\\';
                if (e) *d++ = (uint8_t)e;
                else { memcpy(d, "u00", 3); d += 3; *d++ = (uint8_t)hex[c >> 4]; *d++ = (uint8_t)hex[c & 15]; }
                i++;
            } else {
                size_t l = utf8_len(p + i, n - i);
                if (!l) { memcpy(d, "\xEF\xBF\xBD", 3); d += 3; i++; } /* U+FFFD for an invalid byte */
                else { memcpy(d, p + i, l); d += l; i += l; }
            }
        }
        out->len = (size_t)(d - out->data);
    }
    return hoodie_buf_putc(out, '"');
}

static int needs_quotes(const uint8_t *p, size_t n)
{
    if (n == 0) return 1;
    if (n == 4 && (p[0] | 32) == 'n' && (p[1] | 32) == 'u' && (p[2] | 32) == 'l' && (p[3] | 32) == 'l') return 1;
    if (p[0] == ' ' || (p[0] >= 9 && p[0] <= 13) || p[n - 1] == ' ' || (p[n - 1] >= 9 && p[n - 1] <= 13)) return 1;
    for (size_t i = 0; i < n; i++) {
        switch (p[i]) {
        case ',': case '\'': case '"': case ':': case '=': case '{': case '}': case '[': case ']': case '(':
        case ')':
            return 1;
        default: break;
        }
    }
    return 0;
}

/* Quote the text appended since `mark` if a nested value needs it. */
static hoodie_status quote_since(hoodie_buf *out, size_t mark)
{
    size_t n = out->len - mark;
    if (!needs_quotes(out->data + mark, n)) return HOODIE_OK;
    size_t extra = 2;
    for (size_t i = 0; i < n; i++) extra += out->data[mark + i] == '\'';
    HOODIE_TRY(hoodie_buf_reserve(out, extra));
    uint8_t *s = out->data + mark;
    /* Shift right from the end, escaping quotes. */
    size_t j = n + extra;
    s[--j] = '\'';
    for (size_t i = n; i-- > 0;) {
        s[--j] = s[i];
        if (s[i] == '\'') s[--j] = '\\';
    }
    s[--j] = '\'';
    out->len += extra;
    return HOODIE_OK;
}

static hoodie_status render(hoodie_buf *out, const hoodie_field *f, const hoodie_array *a, int64_t row,
                            hoodie_render_mode mode);

static hoodie_status render_text_leaf(hoodie_buf *out, const hoodie_field *f, const hoodie_array *a, int64_t row,
                                      hoodie_render_mode mode)
{
    const hoodie_type *t = &f->type;
    switch (t->id) {
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: {
        size_t n;
        const uint8_t *p = hoodie_array_bytes_at(a, row, &n);
        if (t->id == HOODIE_TYPE_BINARY) {
            if (mode == HOODIE_RENDER_JSON) {
                HOODIE_TRY(hoodie_buf_putc(out, '"'));
                HOODIE_TRY(put_base64(out, p, n));
                return hoodie_buf_putc(out, '"');
            }
            return put_hex(out, p, n);
        }
        if (mode == HOODIE_RENDER_JSON) return put_json_string(out, p, n);
        return hoodie_buf_append(out, p, n);
    }
    case HOODIE_TYPE_FIXED_BINARY: {
        const uint8_t *p = a->values + (size_t)row * (size_t)t->width;
        int q = mode == HOODIE_RENDER_JSON;
        if (q) HOODIE_TRY(hoodie_buf_putc(out, '"'));
        if (t->ext == HOODIE_EXT_UUID && t->width == 16) HOODIE_TRY(put_uuid(out, p));
        else if (q) HOODIE_TRY(put_base64(out, p, (size_t)t->width));
        else HOODIE_TRY(put_hex(out, p, (size_t)t->width));
        if (q) HOODIE_TRY(hoodie_buf_putc(out, '"'));
        return HOODIE_OK;
    }
    case HOODIE_TYPE_DATE32: return put_date(out, hoodie_array_get_i(a, row, 4));
    case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: {
        int64_t v = hoodie_array_get_i(a, row, t->id == HOODIE_TYPE_TIME32 ? 4 : 8), per = UNIT_PER_SEC[t->unit & 3];
        int64_t secs = v / per, frac = v % per;
        if (frac < 0) { frac += per; secs--; }
        return put_time_of_day(out, secs, frac, UNIT_DIGITS[t->unit & 3]);
    }
    case HOODIE_TYPE_TIMESTAMP: return put_timestamp(out, hoodie_array_get_i(a, row, 8), t->unit, t->utc);
    default: return HOODIE_FAIL(HOODIE_EINVAL, "render: unexpected type");
    }
}

static hoodie_status render(hoodie_buf *out, const hoodie_field *f, const hoodie_array *a, int64_t row,
                            hoodie_render_mode mode)
{
    const hoodie_type *t = &f->type;
    int json = mode == HOODIE_RENDER_JSON;
    if (t->id == HOODIE_TYPE_NULL || !hoodie_array_is_valid(a, row))
        return mode == HOODIE_RENDER_CSV ? HOODIE_OK : hoodie_buf_append_str(out, json ? "null" : "NULL");
    switch (t->id) {
    case HOODIE_TYPE_BOOL: return hoodie_buf_append_str(out, hoodie_bit_get(a->values, row) ? "true" : "false");
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_INT64:
        return hoodie_buf_put_dec_i64(out, hoodie_array_get_i(a, row, hoodie_type_fixed_width(t)));
    case HOODIE_TYPE_UINT8: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_UINT64:
        return hoodie_buf_put_dec_u64(out, hoodie_array_get_u(a, row, hoodie_type_fixed_width(t)), 0);
    case HOODIE_TYPE_FLOAT16: case HOODIE_TYPE_FLOAT: case HOODIE_TYPE_DOUBLE: {
        double v;
        if (t->id == HOODIE_TYPE_DOUBLE) memcpy(&v, a->values + (size_t)row * 8, 8);
        else if (t->id == HOODIE_TYPE_FLOAT) { float x; memcpy(&x, a->values + (size_t)row * 4, 4); v = x; }
        else v = hoodie_half_to_float((uint16_t)hoodie_array_get_u(a, row, 2));
        int q = json && !isfinite(v);
        if (q) HOODIE_TRY(hoodie_buf_putc(out, '"'));
        HOODIE_TRY(hoodie_double_to_text(out, v, t->id != HOODIE_TYPE_DOUBLE));
        if (q) HOODIE_TRY(hoodie_buf_putc(out, '"'));
        return HOODIE_OK;
    }
    case HOODIE_TYPE_DECIMAL: return hoodie_decimal_to_text(out, a->values + (size_t)row * 16, t->scale);
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: case HOODIE_TYPE_FIXED_BINARY: case HOODIE_TYPE_DATE32:
    case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: case HOODIE_TYPE_TIMESTAMP: {
        if (json && t->id != HOODIE_TYPE_STRING && t->id != HOODIE_TYPE_BINARY && t->id != HOODIE_TYPE_FIXED_BINARY) {
            HOODIE_TRY(hoodie_buf_putc(out, '"'));
            HOODIE_TRY(render_text_leaf(out, f, a, row, mode));
            return hoodie_buf_putc(out, '"');
        }
        size_t mark = out->len;
        HOODIE_TRY(render_text_leaf(out, f, a, row, mode));
        return mode == HOODIE_RENDER_NESTED ? quote_since(out, mark) : HOODIE_OK;
    }
    case HOODIE_TYPE_STRUCT: {
        HOODIE_TRY(hoodie_buf_putc(out, '{'));
        for (size_t i = 0; i < f->n_children; i++) {
            if (i) HOODIE_TRY(hoodie_buf_append(out, ", ", json ? 1 : 2));
            const char *name = f->children[i].name;
            if (json) {
                HOODIE_TRY(put_json_string(out, (const uint8_t *)name, strlen(name)));
                HOODIE_TRY(hoodie_buf_putc(out, ':'));
            } else {
                /* DuckDB always quotes struct keys. */
                HOODIE_TRY(hoodie_buf_putc(out, '\''));
                for (const char *c = name; *c; c++) {
                    if (*c == '\'') HOODIE_TRY(hoodie_buf_putc(out, '\\'));
                    HOODIE_TRY(hoodie_buf_putc(out, (uint8_t)*c));
                }
                HOODIE_TRY(hoodie_buf_append(out, "': ", 3));
            }
            HOODIE_TRY(render(out, &f->children[i], &a->children[i], row, json ? mode : HOODIE_RENDER_NESTED));
        }
        return hoodie_buf_putc(out, '}');
    }
    case HOODIE_TYPE_LIST: {
        int32_t o0 = a->offsets[row], o1 = a->offsets[row + 1];
        HOODIE_TRY(hoodie_buf_putc(out, '['));
        for (int32_t i = o0; i < o1; i++) {
            if (i > o0) HOODIE_TRY(hoodie_buf_append(out, ", ", json ? 1 : 2));
            HOODIE_TRY(render(out, &f->children[0], &a->children[0], i, json ? mode : HOODIE_RENDER_NESTED));
        }
        return hoodie_buf_putc(out, ']');
    }
    case HOODIE_TYPE_MAP: {
        int32_t o0 = a->offsets[row], o1 = a->offsets[row + 1];
        const hoodie_field *ef = &f->children[0];
        const hoodie_array *ea = &a->children[0];
        if (ef->n_children != 2) return HOODIE_FAIL(HOODIE_EINVAL, "render: map '%s' entries malformed", f->name);
        const hoodie_field *kf = &ef->children[0], *vf = &ef->children[1];
        const hoodie_array *ka = &ea->children[0], *va = &ea->children[1];
        int obj = json && kf->type.id == HOODIE_TYPE_STRING;
        HOODIE_TRY(hoodie_buf_putc(out, json && !obj ? '[' : '{'));
        for (int32_t i = o0; i < o1; i++) {
            if (i > o0) HOODIE_TRY(hoodie_buf_append(out, ", ", json ? 1 : 2));
            if (json && !obj) {
                HOODIE_TRY(hoodie_buf_append_str(out, "{\"key\":"));
                HOODIE_TRY(render(out, kf, ka, i, mode));
                HOODIE_TRY(hoodie_buf_append_str(out, ",\"value\":"));
                HOODIE_TRY(render(out, vf, va, i, mode));
                HOODIE_TRY(hoodie_buf_putc(out, '}'));
                continue;
            }
            if (obj && !hoodie_array_is_valid(ka, i)) HOODIE_TRY(hoodie_buf_append_str(out, "\"\""));
            else HOODIE_TRY(render(out, kf, ka, i, json ? mode : HOODIE_RENDER_NESTED));
            HOODIE_TRY(hoodie_buf_putc(out, json ? ':' : '='));
            HOODIE_TRY(render(out, vf, va, i, json ? mode : HOODIE_RENDER_NESTED));
        }
        return hoodie_buf_putc(out, json && !obj ? ']' : '}');
    }
    default: return HOODIE_FAIL(HOODIE_EINVAL, "render: unknown type %d", (int)t->id);
    }
}

hoodie_status hoodie_render_cell(hoodie_buf *out, const hoodie_field *f, const hoodie_array *a, int64_t row,
                                 hoodie_render_mode mode)
{
    return render(out, f, a, row, mode);
}

/* ---- CSV ---- */

/* 1 if p[0..n) holds a byte that makes a CSV field quoted: '"', ',', '\n', '\r' (eight at a time: swar_eq). */
static int csv_special(const uint8_t *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = swar_load(p + i);
        if (swar_eq(w, '"') | swar_eq(w, ',') | swar_eq(w, '\n') | swar_eq(w, '\r')) return 1;
    }
    for (; i < n; i++)
        if (p[i] == '"' || p[i] == ',' || p[i] == '\n' || p[i] == '\r') return 1;
    return 0;
}

/* 1 if a value of type t may render with a byte CSV quotes (text, and nested values: "{'a': 1, 'b': 2}"). */
static int csv_may_quote(const hoodie_type *t)
{
    return t->id == HOODIE_TYPE_STRING || t->id == HOODIE_TYPE_STRUCT || t->id == HOODIE_TYPE_LIST ||
           t->id == HOODIE_TYPE_MAP;
}

static hoodie_status csv_field(hoodie_buf *out, size_t mark)
{
    size_t n = out->len - mark, quotes = 0;
    const uint8_t *p = out->data + mark;
    if (!csv_special(p, n)) return HOODIE_OK;
    for (size_t i = 0; i < n; i++) quotes += p[i] == '"';
    size_t extra = quotes + 2;
    HOODIE_TRY(hoodie_buf_reserve(out, extra));
    uint8_t *s = out->data + mark;
    size_t j = n + extra;
    s[--j] = '"';
    for (size_t i = n; i-- > 0;) {
        s[--j] = s[i];
        if (s[i] == '"') s[--j] = '"';
    }
    s[--j] = '"';
    out->len += extra;
    return HOODIE_OK;
}

hoodie_status hoodie_render_csv(hoodie_buf *out, const hoodie_batch *b, int header)
{
    const hoodie_field *s = &b->schema;
    if (header) {
        for (size_t c = 0; c < s->n_children; c++) {
            if (c) HOODIE_TRY(hoodie_buf_putc(out, ','));
            size_t mark = out->len;
            HOODIE_TRY(hoodie_buf_append_str(out, s->children[c].name));
            HOODIE_TRY(csv_field(out, mark));
        }
        HOODIE_TRY(hoodie_buf_putc(out, '\n'));
    }
    for (int64_t r = 0; r < b->root.length; r++) {
        for (size_t c = 0; c < s->n_children; c++) {
            if (c) HOODIE_TRY(hoodie_buf_putc(out, ','));
            size_t mark = out->len;
            HOODIE_TRY(render(out, &s->children[c], &b->root.children[c], r, HOODIE_RENDER_CSV));
            if (csv_may_quote(&s->children[c].type)) HOODIE_TRY(csv_field(out, mark));
        }
        HOODIE_TRY(hoodie_buf_putc(out, '\n'));
    }
    return HOODIE_OK;
}

/* ---- JSON lines ---- */

hoodie_status hoodie_render_jsonl(hoodie_buf *out, const hoodie_batch *b)
{
    const hoodie_field *s = &b->schema;
    /* each column's key as it goes before the value ({"name": / ,"name":), escaped once for the batch */
    hoodie_buf keys = HOODIE_BUF_INIT;
    size_t *at = malloc((s->n_children + 1) * sizeof *at);
    hoodie_status rc = at ? HOODIE_OK : HOODIE_NOMEM();
    for (size_t c = 0; rc == HOODIE_OK && c < s->n_children; c++) {
        at[c] = keys.len;
        rc = hoodie_buf_putc(&keys, c ? ',' : '{');
        if (rc == HOODIE_OK) rc = put_json_string(&keys, (const uint8_t *)s->children[c].name, strlen(s->children[c].name));
        if (rc == HOODIE_OK) rc = hoodie_buf_putc(&keys, ':');
    }
    if (at) at[s->n_children] = keys.len;
    for (int64_t r = 0; rc == HOODIE_OK && r < b->root.length; r++) {
        if (!s->n_children) rc = hoodie_buf_putc(out, '{');
        for (size_t c = 0; rc == HOODIE_OK && c < s->n_children; c++) {
            rc = hoodie_buf_append(out, keys.data + at[c], at[c + 1] - at[c]);
            if (rc == HOODIE_OK) rc = render(out, &s->children[c], &b->root.children[c], r, HOODIE_RENDER_JSON);
        }
        if (rc == HOODIE_OK) rc = hoodie_buf_append(out, "}\n", 2);
    }
    free(at);
    hoodie_buf_dispose(&keys);
    return rc;
}

/* ---- table ---- */

#define CELL_MAX 40

/* Display width in code points (continuation bytes don't count). */
static size_t text_width(const uint8_t *p, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) w += (p[i] & 0xC0) != 0x80;
    return w;
}

/* Byte length of the first `cols` code points. */
static size_t prefix_bytes(const uint8_t *p, size_t n, size_t cols)
{
    size_t i = 0, w = 0;
    while (i < n) {
        if ((p[i] & 0xC0) != 0x80) {
            if (w == cols) break;
            w++;
        }
        i++;
    }
    return i;
}

typedef struct cell { size_t off, len, width; } cell;

static int right_aligned(hoodie_type_id id)
{
    return (id >= HOODIE_TYPE_INT8 && id <= HOODIE_TYPE_DOUBLE) || id == HOODIE_TYPE_DECIMAL;
}

static hoodie_status add_cell(hoodie_buf *text, cell *c, const char *s, size_t n)
{
    /* Control characters would break the layout: show them as spaces. */
    c->off = text->len;
    HOODIE_TRY(hoodie_buf_append(text, s, n));
    for (size_t i = 0; i < n; i++)
        if (text->data[c->off + i] < 0x20) text->data[c->off + i] = ' ';
    size_t w = text_width(text->data + c->off, n);
    if (w > CELL_MAX) {
        size_t keep = prefix_bytes(text->data + c->off, n, CELL_MAX - 1);
        text->len = c->off + keep;
        HOODIE_TRY(hoodie_buf_append_str(text, "\xE2\x80\xA6"));
        w = CELL_MAX;
    }
    c->len = text->len - c->off;
    c->width = w;
    return HOODIE_OK;
}

static hoodie_status pad(hoodie_buf *out, size_t n)
{
    for (size_t i = 0; i < n; i++) HOODIE_TRY(hoodie_buf_putc(out, ' '));
    return HOODIE_OK;
}

static hoodie_status rule(hoodie_buf *out, const size_t *widths, size_t ncol, const char *l, const char *m,
                          const char *r)
{
    HOODIE_TRY(hoodie_buf_append_str(out, l));
    for (size_t c = 0; c < ncol; c++) {
        if (c) HOODIE_TRY(hoodie_buf_append_str(out, m));
        for (size_t i = 0; i < widths[c] + 2; i++) HOODIE_TRY(hoodie_buf_append_str(out, "\xE2\x94\x80"));
    }
    HOODIE_TRY(hoodie_buf_append_str(out, r));
    return hoodie_buf_putc(out, '\n');
}

static hoodie_status table_row(hoodie_buf *out, const hoodie_buf *text, const cell *cells, const size_t *widths,
                               const int *right, size_t ncol, int center)
{
    HOODIE_TRY(hoodie_buf_append_str(out, "\xE2\x94\x82"));
    for (size_t c = 0; c < ncol; c++) {
        const cell *x = &cells[c];
        size_t gap = widths[c] - x->width, left = center ? gap / 2 : right[c] ? gap : 0;
        HOODIE_TRY(hoodie_buf_putc(out, ' '));
        HOODIE_TRY(pad(out, left));
        HOODIE_TRY(hoodie_buf_append(out, text->data + x->off, x->len));
        HOODIE_TRY(pad(out, gap - left));
        HOODIE_TRY(hoodie_buf_append_str(out, " \xE2\x94\x82"));
    }
    return hoodie_buf_putc(out, '\n');
}

hoodie_status hoodie_render_table(hoodie_buf *out, const hoodie_batch *b, int64_t max_rows)
{
    const hoodie_field *s = &b->schema;
    size_t ncol = s->n_children;
    int64_t n = b->root.length, shown = (max_rows > 0 && n > max_rows) ? max_rows : n;
    int64_t head = shown == n ? n : (shown + 1) / 2, tail = shown - head;
    size_t nrows = (size_t)shown + 2; /* names, types, data */
    hoodie_buf text = HOODIE_BUF_INIT, tmp = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    if (ncol == 0) return hoodie_buf_append_str(out, "(no columns)\n");
    cell *cells = calloc(nrows * ncol, sizeof *cells);
    size_t *widths = calloc(ncol, sizeof *widths);
    int *right = calloc(ncol, sizeof *right);
    if (!cells || !widths || !right) { rc = HOODIE_NOMEM(); goto done; }
    for (size_t c = 0; c < ncol; c++) {
        const hoodie_field *f = &s->children[c];
        char tn[64];
        right[c] = right_aligned(f->type.id);
        HOODIE_TRY_GOTO(rc, add_cell(&text, &cells[c], f->name, strlen(f->name)), done);
        hoodie_type_name(&f->type, tn, sizeof tn);
        HOODIE_TRY_GOTO(rc, add_cell(&text, &cells[ncol + c], tn, strlen(tn)), done);
        for (size_t r = 0; r < (size_t)shown; r++) {
            int64_t row = (int64_t)r < head ? (int64_t)r : n - tail + ((int64_t)r - head);
            hoodie_buf_clear(&tmp);
            if (!hoodie_array_is_valid(&b->root.children[c], row) || f->type.id == HOODIE_TYPE_NULL)
                HOODIE_TRY_GOTO(rc, hoodie_buf_append_str(&tmp, "NULL"), done);
            else
                HOODIE_TRY_GOTO(rc, render(&tmp, f, &b->root.children[c], row, HOODIE_RENDER_CSV), done);
            HOODIE_TRY_GOTO(rc, add_cell(&text, &cells[(r + 2) * ncol + c], (const char *)tmp.data, tmp.len), done);
        }
        for (size_t r = 0; r < nrows; r++)
            if (cells[r * ncol + c].width > widths[c]) widths[c] = cells[r * ncol + c].width;
    }
    HOODIE_TRY_GOTO(rc, rule(out, widths, ncol, "\xE2\x94\x8C", "\xE2\x94\xAC", "\xE2\x94\x90"), done);
    HOODIE_TRY_GOTO(rc, table_row(out, &text, cells, widths, right, ncol, 1), done);
    HOODIE_TRY_GOTO(rc, table_row(out, &text, cells + ncol, widths, right, ncol, 1), done);
    HOODIE_TRY_GOTO(rc, rule(out, widths, ncol, "\xE2\x94\x9C", "\xE2\x94\xBC", "\xE2\x94\xA4"), done);
    for (size_t r = 0; r < (size_t)shown; r++) {
        if ((int64_t)r == head && tail + head < n) {
            /* the elided middle: one row of centred dots */
            HOODIE_TRY_GOTO(rc, hoodie_buf_append_str(out, "\xE2\x94\x82"), done);
            for (size_t c = 0; c < ncol; c++) {
                size_t left = (widths[c] + 1) / 2;
                HOODIE_TRY_GOTO(rc, pad(out, left), done);
                HOODIE_TRY_GOTO(rc, hoodie_buf_append_str(out, "\xC2\xB7"), done);
                HOODIE_TRY_GOTO(rc, pad(out, widths[c] + 2 - left - 1), done);
                HOODIE_TRY_GOTO(rc, hoodie_buf_append_str(out, "\xE2\x94\x82"), done);
            }
            HOODIE_TRY_GOTO(rc, hoodie_buf_putc(out, '\n'), done);
        }
        HOODIE_TRY_GOTO(rc, table_row(out, &text, cells + (r + 2) * ncol, widths, right, ncol, 0), done);
    }
    HOODIE_TRY_GOTO(rc, rule(out, widths, ncol, "\xE2\x94\x94", "\xE2\x94\xB4", "\xE2\x94\x98"), done);
    if (shown < n)
        HOODIE_TRY_GOTO(rc, hoodie_buf_printf(out, "%lld rows (%lld shown)\n", (long long)n, (long long)shown), done);
    else if (n == 0)
        HOODIE_TRY_GOTO(rc, hoodie_buf_append_str(out, "0 rows\n"), done);
done:
    hoodie_buf_dispose(&text);
    hoodie_buf_dispose(&tmp);
    free(cells);
    free(widths);
    free(right);
    return rc;
}

/* ---- FILE* ---- */

static hoodie_status flush_to(FILE *fp, hoodie_buf *b, hoodie_status rc)
{
    if (rc == HOODIE_OK && b->len && fwrite(b->data, 1, b->len, fp) != b->len)
        rc = hoodie_error__set_errno(HOODIE_EIO, errno, "render: write failed");
    hoodie_buf_dispose(b);
    return rc;
}

hoodie_status hoodie_render_csv_file(FILE *fp, const hoodie_batch *b, int header)
{
    hoodie_buf buf = HOODIE_BUF_INIT;
    return flush_to(fp, &buf, hoodie_render_csv(&buf, b, header));
}

hoodie_status hoodie_render_jsonl_file(FILE *fp, const hoodie_batch *b)
{
    hoodie_buf buf = HOODIE_BUF_INIT;
    return flush_to(fp, &buf, hoodie_render_jsonl(&buf, b));
}

hoodie_status hoodie_render_table_file(FILE *fp, const hoodie_batch *b, int64_t max_rows)
{
    hoodie_buf buf = HOODIE_BUF_INIT;
    return flush_to(fp, &buf, hoodie_render_table(&buf, b, max_rows));
}
