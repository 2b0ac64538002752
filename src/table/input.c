/*
 * CSV and JSON-lines input (see input.h for the accepted syntax and the inference rules).
 *
 * Shape: a source hands out a window of bytes (the whole buffer, or a chunk of the file that is refilled when a
 * record runs past its end); the CSV splitter cuts one record into spans pointing into the window (no copies, no
 * side effects, so a record cut by the window's end is simply split again after the refill); the converters then
 * append each span to its column. INT64 / INT32 / STRING columns are written straight into the array buffers
 * (reserved for a whole batch up front); other types go through the model/build.h appenders.
 */
#include "table/input.h"
#include "model/build.h"
#include "model/value.h"
#include "storage/storage.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

#define DEFAULT_BATCH_ROWS 65536
#define DEFAULT_INFER_ROWS 10000
#define DEFAULT_CHUNK (1u << 20)
#define MAX_RECORD_BYTES ((size_t)1 << 30)

/* ====================================================================================================== */
/* text -> values                                                                                          */
/* ====================================================================================================== */

typedef struct conv {
    hoodie_input_binary binary;   /* as given (DEFAULT: TEXT outside JSON, BASE64 inside) */
    int in_json;
    int ignore_extra;
    hoodie_buf scratch;
} conv;

/* Quote a value for a message: at most 60 bytes. */
#define VAL_FMT "\"%.*s%s\""
#define VAL_ARG(p, n) (int)((n) > 60 ? 60 : (n)), (p), ((n) > 60 ? "..." : "")

static hoodie_status bad_value(const hoodie_field *f, const char *p, size_t n, const char *why)
{
    char tn[64];
    return HOODIE_CORRUPT("value " VAL_FMT " is not a valid %s: %s", VAL_ARG(p, n),
                          hoodie_type_name(&f->type, tn, sizeof tn), why);
}

static inline int is_digit(char c) { return (unsigned)(c - '0') < 10u; }

/* 0 ok, -1 syntax, -2 out of range */
static int parse_u64(const char *p, size_t n, uint64_t *out)
{
    if (n == 0) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(p[i] - '0');
        if (d > 9) return -1;
        if (v > (UINT64_MAX - d) / 10) {
            for (size_t j = i + 1; j < n; j++) if (!is_digit(p[j])) return -1;
            return -2;
        }
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Eight ASCII digits at p (first digit most significant) as a number; 0 if any byte is not a digit. */
static inline int digits8(const char *p, uint64_t *out)
{
    uint64_t v;
    memcpy(&v, p, 8);
    if ((v & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull ||
        ((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull)
        return 0;
    v -= 0x3030303030303030ull;
    v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;        /* pairs of digits */
    v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFull;      /* groups of four */
    v = (v * 10000 + (v >> 32)) & 0xFFFFFFFFull;
    *out = v;
    return 1;
}

/* 0 ok, -1 syntax, -2 out of range */
static inline __attribute__((always_inline)) int parse_i64(const char *p, size_t n, int64_t *out)
{
    int neg = 0;
    if (n && (*p == '-' || *p == '+')) { neg = *p == '-'; p++; n--; }
    if (n == 0) return -1;
    uint64_t u;
    if (n <= 18) {  /* cannot overflow */
        u = 0;
        size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        for (; n - i >= 8; i += 8) {
            uint64_t c;
            if (!digits8(p + i, &c)) return -1;
            u = u * 100000000u + c;
        }
#endif
        for (; i < n; i++) {
            unsigned d = (unsigned)(p[i] - '0');
            if (d > 9) return -1;
            u = u * 10 + d;
        }
    } else {
        int rc = parse_u64(p, n, &u);
        if (rc) return rc;
        if (u > (uint64_t)INT64_MAX + (uint64_t)neg) return -2;
    }
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 0;
}

static int ci_eq(const char *p, size_t n, const char *w)
{
    size_t m = strlen(w);
    if (m != n) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != w[i]) return 0;
    }
    return 1;
}

/* 0 ok, -1 syntax, -2 out of range */
static int parse_double(const char *p, size_t n, double *out)
{
    char buf[128];
    if (n == 0 || n >= sizeof buf) return -1;
    size_t i = 0;
    const char *w = p;
    size_t wn = n;
    if (*w == '-' || *w == '+') { w++; wn--; }
    if (ci_eq(w, wn, "nan") || ci_eq(w, wn, "inf") || ci_eq(w, wn, "infinity")) {
        double v = (w[0] == 'n' || w[0] == 'N') ? NAN : INFINITY;
        *out = *p == '-' ? -v : v;
        return 0;
    }
    /* [sign] digits [. digits] [e [sign] digits], at least one mantissa digit */
    int mant = 0;
    if (i < n && (p[i] == '-' || p[i] == '+')) i++;
    while (i < n && is_digit(p[i])) { i++; mant = 1; }
    if (i < n && p[i] == '.') { i++; while (i < n && is_digit(p[i])) { i++; mant = 1; } }
    if (!mant) return -1;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '-' || p[i] == '+')) i++;
        if (i >= n || !is_digit(p[i])) return -1;
        while (i < n && is_digit(p[i])) i++;
    }
    if (i != n) return -1;
    memcpy(buf, p, n);
    buf[n] = 0;
    errno = 0;
    char *end;
    double v = strtod(buf, &end);
    if (end != buf + n) return -1;
    if (errno == ERANGE && isinf(v)) return -2;
    *out = v;
    return 0;
}

/* Exact decimal: [sign] digits [. digits]. */
static hoodie_status parse_decimal(const hoodie_field *f, const char *p, size_t n, i128 *out)
{
    int prec = f->type.precision, scale = f->type.scale;
    if (prec < 1 || prec > 38 || scale < 0 || scale > prec)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "decimal(%d,%d) is not supported by the input reader", prec, scale);
    size_t i = 0;
    int neg = 0;
    if (i < n && (p[i] == '-' || p[i] == '+')) { neg = p[i] == '-'; i++; }
    u128 v = 0;
    int int_digits = 0, any = 0;
    while (i < n && p[i] == '0') { i++; any = 1; }
    while (i < n && is_digit(p[i])) {
        if (++int_digits > prec - scale) return bad_value(f, p, n, "too many integer digits");
        v = v * 10 + (unsigned)(p[i] - '0');
        i++;
        any = 1;
    }
    int frac = 0;
    if (i < n && p[i] == '.') {
        i++;
        while (i < n && is_digit(p[i])) {
            any = 1;
            if (frac < scale) {
                v = v * 10 + (unsigned)(p[i] - '0');
                frac++;
            } else if (p[i] != '0') {
                return bad_value(f, p, n, "more fraction digits than the scale");
            }
            i++;
        }
    }
    if (!any || i != n) return bad_value(f, p, n, "not a decimal number");
    for (; frac < scale; frac++) v *= 10;
    *out = neg ? -(i128)v : (i128)v;
    return HOODIE_OK;
}

static int num2(const char *p, int *out)
{
    if (!is_digit(p[0]) || !is_digit(p[1])) return -1;
    *out = (p[0] - '0') * 10 + (p[1] - '0');
    return 0;
}

/* YYYY-MM-DD at p (exactly 10 bytes available). */
static int parse_date10(const char *p, int64_t *days)
{
    int y = 0, m, d;
    for (int i = 0; i < 4; i++) {
        if (!is_digit(p[i])) return -1;
        y = y * 10 + (p[i] - '0');
    }
    if (p[4] != '-' || p[7] != '-' || num2(p + 5, &m) || num2(p + 8, &d)) return -1;
    if (!hoodie_civil_date_valid(y, m, d)) return -1;
    *days = hoodie_days_from_civil(y, (unsigned)m, (unsigned)d);
    return 0;
}

/* HH:MM[:SS[.fraction]] (seconds required when need_sec) -> nanoseconds of the day; *used = bytes consumed. */
static int parse_clock(const char *p, size_t n, int need_sec, int64_t *nanos, size_t *used)
{
    int h, mi, s = 0;
    if (n < 5 || num2(p, &h) || p[2] != ':' || num2(p + 3, &mi)) return -1;
    size_t i = 5;
    int64_t frac = 0;
    if (i < n && p[i] == ':') {
        if (n < 8 || num2(p + 6, &s)) return -1;
        i = 8;
        if (i < n && p[i] == '.') {
            i++;
            int digits = 0;
            int64_t scale = 100000000;
            while (i < n && is_digit(p[i])) {
                if (digits < 9) frac += (p[i] - '0') * scale;
                else if (p[i] != '0') return -3;  /* below a nanosecond */
                scale /= 10;
                digits++;
                i++;
            }
            if (!digits) return -1;
        }
    } else if (need_sec) {
        return -1;
    }
    if (h > 23 || mi > 59 || s > 59) return -1;
    *nanos = ((int64_t)h * 3600 + mi * 60 + s) * 1000000000LL + frac;
    *used = i;
    return 0;
}

static const int64_t unit_per_sec[] = { 1, 1000, 1000000, 1000000000 };
static const int64_t nanos_per_unit[] = { 1000000000, 1000000, 1000, 1 };

/* seconds + nanos -> unit; -3 if nanos are not a whole number of units, -2 on overflow */
static int to_unit(int64_t secs, int64_t nanos, hoodie_time_unit unit, int64_t *out)
{
    if (nanos % nanos_per_unit[unit]) return -3;
    int64_t v;
    if (hoodie_mul_overflow(secs, unit_per_sec[unit], &v) || hoodie_add_overflow(v, nanos / nanos_per_unit[unit], &v))
        return -2;
    *out = v;
    return 0;
}

static int all_int(const char *p, size_t n)
{
    size_t i = (n && (p[0] == '-' || p[0] == '+')) ? 1 : 0;
    if (i == n) return 0;
    for (; i < n; i++) if (!is_digit(p[i])) return 0;
    return 1;
}

/* Timestamp text (not an integer) -> seconds and nanos, UTC-adjusted when an offset is given. */
static int parse_ts_text(const char *p, size_t n, int64_t *secs, int64_t *nanos)
{
    int64_t days, tod = 0;
    if (n < 10 || parse_date10(p, &days)) return -1;
    size_t i = 10;
    if (i < n) {
        if (p[i] != ' ' && p[i] != 'T') return -1;
        i++;
        size_t used;
        int rc = parse_clock(p + i, n - i, 0, &tod, &used);
        if (rc) return rc;
        i += used;
        if (i < n) {
            int off = 0;
            if (p[i] == 'Z' && i + 1 == n) {
                i++;
            } else if (p[i] == '+' || p[i] == '-') {
                int sign = p[i] == '-' ? -1 : 1, oh, om = 0;
                i++;
                if (n - i < 2 || num2(p + i, &oh)) return -1;
                i += 2;
                if (i < n) {
                    if (p[i] == ':') i++;
                    if (n - i != 2 || num2(p + i, &om)) return -1;
                    i += 2;
                }
                if (oh > 18 || om > 59) return -1;
                off = sign * (oh * 3600 + om * 60);
            } else {
                return -1;
            }
            if (i != n) return -1;
            *secs = days * 86400 + tod / 1000000000LL - off;
            *nanos = tod % 1000000000LL;
            return 0;
        }
    }
    *secs = days * 86400 + tod / 1000000000LL;
    *nanos = tod % 1000000000LL;
    return 0;
}

static hoodie_status hex_decode(const char *p, size_t n, hoodie_buf *out)
{
    if (n % 2) return HOODIE_CORRUPT("odd number of hex digits");
    HOODIE_TRY(hoodie_buf_reserve(out, n / 2));
    for (size_t i = 0; i < n; i += 2) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = p[i + (size_t)k];
            int d = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
            if (d < 0) return HOODIE_CORRUPT("'%c' is not a hex digit", c);
            v = v * 16 + d;
        }
        out->data[out->len++] = (uint8_t)v;
    }
    return HOODIE_OK;
}

/* Binary text per the encoding; the result points either at the text or into cv->scratch. */
static hoodie_status decode_binary(conv *cv, const hoodie_field *f, const char *p, size_t n, const uint8_t **bp,
                                   size_t *bn)
{
    if (f->type.id == HOODIE_TYPE_FIXED_BINARY && f->type.ext == HOODIE_EXT_UUID && f->type.width == 16 && n == 36) {
        char hex[32];
        size_t k = 0;
        for (size_t i = 0; i < 36; i++) {
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (p[i] != '-') return bad_value(f, p, n, "not a UUID");
            } else {
                hex[k++] = p[i];
            }
        }
        hoodie_buf_clear(&cv->scratch);
        if (hex_decode(hex, 32, &cv->scratch) < 0) return bad_value(f, p, n, "not a UUID");
        *bp = cv->scratch.data;
        *bn = cv->scratch.len;
        return HOODIE_OK;
    }
    hoodie_input_binary enc = cv->binary;
    if (enc == HOODIE_INPUT_BINARY_DEFAULT) enc = cv->in_json ? HOODIE_INPUT_BINARY_BASE64 : HOODIE_INPUT_BINARY_TEXT;
    switch (enc) {
    case HOODIE_INPUT_BINARY_HEX:
        hoodie_buf_clear(&cv->scratch);
        if (hex_decode(p, n, &cv->scratch) < 0) return bad_value(f, p, n, "not hex");
        *bp = cv->scratch.data;
        *bn = cv->scratch.len;
        break;
    case HOODIE_INPUT_BINARY_BASE64:
        hoodie_buf_clear(&cv->scratch);
        if (hoodie_base64_decode(p, n, &cv->scratch) < 0) return bad_value(f, p, n, "not base64");
        *bp = cv->scratch.data;
        *bn = cv->scratch.len;
        break;
    default:
        *bp = (const uint8_t *)p;
        *bn = n;
    }
    if (!*bp) *bp = (const uint8_t *)"";
    if (f->type.id == HOODIE_TYPE_FIXED_BINARY && *bn != (size_t)f->type.width) {
        char why[64];
        snprintf(why, sizeof why, "%zu bytes, want %d", *bn, f->type.width);
        return bad_value(f, p, n, why);
    }
    return HOODIE_OK;
}

static uint16_t half_from_float(float fv)
{
    uint32_t x;
    memcpy(&x, &fv, 4);
    uint32_t sign = (x >> 16) & 0x8000u, man = x & 0x7fffffu;
    int32_t e = (int32_t)((x >> 23) & 0xff);
    if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
    int32_t exp = e - 127 + 15;
    if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10) return (uint16_t)sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)exp << 10) | (man >> 13), rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

static int int_range(hoodie_type_id id, int64_t *lo, uint64_t *hi)
{
    switch (id) {
    case HOODIE_TYPE_INT8: *lo = INT8_MIN; *hi = INT8_MAX; return 1;
    case HOODIE_TYPE_INT16: *lo = INT16_MIN; *hi = INT16_MAX; return 1;
    case HOODIE_TYPE_INT32: case HOODIE_TYPE_DATE32: case HOODIE_TYPE_TIME32:
        *lo = INT32_MIN; *hi = INT32_MAX; return 1;
    case HOODIE_TYPE_INT64: case HOODIE_TYPE_TIME64: case HOODIE_TYPE_TIMESTAMP:
        *lo = INT64_MIN; *hi = INT64_MAX; return 1;
    case HOODIE_TYPE_UINT8: *lo = 0; *hi = UINT8_MAX; return 1;
    case HOODIE_TYPE_UINT16: *lo = 0; *hi = UINT16_MAX; return 1;
    case HOODIE_TYPE_UINT32: *lo = 0; *hi = UINT32_MAX; return 1;
    case HOODIE_TYPE_UINT64: *lo = 0; *hi = UINT64_MAX; return 1;
    default: return 0;
    }
}

/* Append an integer to an integer-like column after a range check. */
static hoodie_status append_checked_int(hoodie_array *a, const hoodie_field *f, int64_t v, const char *p, size_t n)
{
    int64_t lo;
    uint64_t hi;
    if (!int_range(f->type.id, &lo, &hi)) return bad_value(f, p, n, "not an integer column");
    if (v < lo || (v >= 0 && (uint64_t)v > hi)) return bad_value(f, p, n, "out of range");
    if (f->type.id == HOODIE_TYPE_TIME32 || f->type.id == HOODIE_TYPE_TIME64) {
        if (v < 0 || v >= 86400 * unit_per_sec[f->type.unit]) return bad_value(f, p, n, "not a time of day");
    }
    return hoodie_array_append_int(a, f, v);
}

static hoodie_status json_append(conv *cv, hoodie_array *a, const hoodie_field *f, json_t *v);

/* Parse text as a value of f and append it (the text path for every type). */
static hoodie_status text_append(conv *cv, hoodie_array *a, const hoodie_field *f, const char *p, size_t n)
{
    switch (f->type.id) {
    case HOODIE_TYPE_BOOL:
        if (ci_eq(p, n, "true") || (n == 1 && p[0] == '1')) return hoodie_array_append_bool(a, f, 1);
        if (ci_eq(p, n, "false") || (n == 1 && p[0] == '0')) return hoodie_array_append_bool(a, f, 0);
        return bad_value(f, p, n, "want true, false, 1 or 0");
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_INT64: {
        int64_t v;
        int rc = parse_i64(p, n, &v);
        if (rc) return bad_value(f, p, n, rc == -2 ? "out of range" : "not an integer");
        return append_checked_int(a, f, v, p, n);
    }
    case HOODIE_TYPE_UINT8: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_UINT64: {
        uint64_t v;
        const char *q = p;
        size_t m = n;
        if (m && *q == '+') { q++; m--; }
        int rc = parse_u64(q, m, &v);
        if (rc) return bad_value(f, p, n, rc == -2 ? "out of range" : "not an unsigned integer");
        int64_t lo;
        uint64_t hi;
        int_range(f->type.id, &lo, &hi);
        if (v > hi) return bad_value(f, p, n, "out of range");
        return hoodie_array_append_uint(a, f, v);
    }
    case HOODIE_TYPE_FLOAT16: case HOODIE_TYPE_FLOAT: case HOODIE_TYPE_DOUBLE: {
        double d;
        int rc = parse_double(p, n, &d);
        if (rc) return bad_value(f, p, n, rc == -2 ? "out of range" : "not a number");
        if (f->type.id == HOODIE_TYPE_DOUBLE) return hoodie_array_append_double(a, f, d);
        if (isfinite(d) && fabs(d) > (f->type.id == HOODIE_TYPE_FLOAT ? 3.4028234663852886e38 : 65504.0))
            return bad_value(f, p, n, "out of range");
        if (f->type.id == HOODIE_TYPE_FLOAT) return hoodie_array_append_float(a, f, (float)d);
        return hoodie_array_append_int(a, f, half_from_float((float)d));
    }
    case HOODIE_TYPE_DECIMAL: {
        i128 v = 0;
        HOODIE_TRY(parse_decimal(f, p, n, &v));
        return hoodie_array_append_decimal128(a, f, (int64_t)(v >> 64), (uint64_t)v);
    }
    case HOODIE_TYPE_DATE32: {
        int64_t days;
        if (all_int(p, n)) {
            int rc = parse_i64(p, n, &days);
            if (rc) return bad_value(f, p, n, "out of range");
            return append_checked_int(a, f, days, p, n);
        }
        if (n != 10 || parse_date10(p, &days)) return bad_value(f, p, n, "want YYYY-MM-DD");
        return hoodie_array_append_int(a, f, days);
    }
    case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: {
        int64_t v, nanos;
        size_t used;
        if (all_int(p, n)) {
            if (parse_i64(p, n, &v)) return bad_value(f, p, n, "out of range");
            return append_checked_int(a, f, v, p, n);
        }
        int rc = parse_clock(p, n, 1, &nanos, &used);
        if (rc == -3) return bad_value(f, p, n, "more than 9 fraction digits");
        if (rc || used != n) return bad_value(f, p, n, "want HH:MM:SS[.fraction]");
        rc = to_unit(0, nanos, f->type.unit, &v);
        if (rc) return bad_value(f, p, n, "more fraction digits than the column's unit");
        return hoodie_array_append_int(a, f, v);
    }
    case HOODIE_TYPE_TIMESTAMP: {
        int64_t v, secs, nanos;
        if (all_int(p, n)) {
            if (parse_i64(p, n, &v)) return bad_value(f, p, n, "out of range");
            return hoodie_array_append_int(a, f, v);
        }
        int rc = parse_ts_text(p, n, &secs, &nanos);
        if (rc == -3) return bad_value(f, p, n, "more than 9 fraction digits");
        if (rc) return bad_value(f, p, n, "want YYYY-MM-DD[ HH:MM:SS[.fraction]][Z|+hh:mm] or an epoch integer");
        rc = to_unit(secs, nanos, f->type.unit, &v);
        if (rc == -3) return bad_value(f, p, n, "more fraction digits than the column's unit");
        if (rc) return bad_value(f, p, n, "out of range for the column's unit");
        return hoodie_array_append_int(a, f, v);
    }
    case HOODIE_TYPE_STRING:
        return hoodie_array_append_bytes(a, f, p, n);
    case HOODIE_TYPE_BINARY: case HOODIE_TYPE_FIXED_BINARY: {
        const uint8_t *bp = NULL;
        size_t bn = 0;
        HOODIE_TRY(decode_binary(cv, f, p, n, &bp, &bn));
        return hoodie_array_append_bytes(a, f, bp, bn);
    }
    case HOODIE_TYPE_STRUCT: case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP: {
        json_error_t err;
        json_t *j = json_loadb(p, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
        if (!j) {
            char why[200];
            snprintf(why, sizeof why, "bad JSON at character %d: %s", err.position, err.text);
            return bad_value(f, p, n, why);
        }
        cv->in_json++;  /* nested binary values follow the JSON rules */
        hoodie_status rc = json_append(cv, a, f, j);
        cv->in_json--;
        json_decref(j);
        return rc;
    }
    case HOODIE_TYPE_NULL:
        return bad_value(f, p, n, "a NULL column holds only nulls");
    }
    return bad_value(f, p, n, "unsupported type");
}

hoodie_status hoodie_input__append_text(hoodie_array *a, const hoodie_field *f, const char *text, size_t len,
                                        hoodie_input_binary binary)
{
    conv cv;
    memset(&cv, 0, sizeof cv);
    cv.binary = binary;
    hoodie_status rc = text_append(&cv, a, f, text, len);
    hoodie_buf_dispose(&cv.scratch);
    return rc;
}

/* ---- JSON values ---- */

static hoodie_status json_bad(const hoodie_field *f, json_t *v, const char *why)
{
    char tn[64];
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    size_t n = s ? strlen(s) : 0;
    hoodie_status rc = HOODIE_CORRUPT("JSON value " VAL_FMT " is not a valid %s: %s", VAL_ARG(s ? s : "", n),
                                      hoodie_type_name(&f->type, tn, sizeof tn), why);
    free(s);
    return rc;
}

static hoodie_status json_append(conv *cv, hoodie_array *a, const hoodie_field *f, json_t *v)
{
    if (!v || json_is_null(v)) {
        if (!f->nullable) return HOODIE_CORRUPT("null for non-nullable field '%s'", f->name);
        return hoodie_array_append_null(a, f);
    }
    hoodie_type_id id = f->type.id;
    switch (id) {
    case HOODIE_TYPE_STRUCT: {
        if (!json_is_object(v)) return json_bad(f, v, "want an object");
        size_t matched = 0;
        for (size_t i = 0; i < f->n_children; i++) {
            json_t *fv = json_object_get(v, f->children[i].name);
            matched += fv != NULL;
            hoodie_status rc = json_append(cv, &a->children[i], &f->children[i], fv);
            if (rc < 0) { hoodie_error__prefix("field '%s': ", f->children[i].name); return rc; }
        }
        if (!cv->ignore_extra && json_object_size(v) > matched) {
            const char *key;
            json_t *val;
            json_object_foreach(v, key, val) {
                if (hoodie_field_find(f, key) < 0)
                    return HOODIE_CORRUPT("unknown field '%s' (not in the schema)", key);
            }
        }
        return hoodie_array_struct_end(a, f);
    }
    case HOODIE_TYPE_LIST: {
        if (!json_is_array(v)) return json_bad(f, v, "want an array");
        hoodie_array *e = hoodie_array_list_elems(a);
        for (size_t i = 0; i < json_array_size(v); i++) {
            hoodie_status rc = json_append(cv, e, &f->children[0], json_array_get(v, i));
            if (rc < 0) { hoodie_error__prefix("element %zu: ", i); return rc; }
        }
        return hoodie_array_list_end(a, f);
    }
    case HOODIE_TYPE_MAP: {
        if (!json_is_object(v)) return json_bad(f, v, "want an object");
        hoodie_array *e = hoodie_array_list_elems(a);
        const hoodie_field *ef = &f->children[0];
        const char *key;
        json_t *val;
        json_object_foreach(v, key, val) {
            hoodie_status rc = text_append(cv, &e->children[0], &ef->children[0], key, strlen(key));
            if (rc == HOODIE_OK) rc = json_append(cv, &e->children[1], &ef->children[1], val);
            if (rc == HOODIE_OK) rc = hoodie_array_struct_end(e, ef);
            if (rc < 0) { hoodie_error__prefix("key '%s': ", key); return rc; }
        }
        return hoodie_array_list_end(a, f);
    }
    case HOODIE_TYPE_STRING:
        if (json_is_string(v)) return hoodie_array_append_bytes(a, f, json_string_value(v), json_string_length(v));
        {
            char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            if (!s) return HOODIE_NOMEM();
            hoodie_status rc = hoodie_array_append_bytes(a, f, s, strlen(s));
            free(s);
            return rc;
        }
    case HOODIE_TYPE_BOOL:
        if (!json_is_boolean(v)) return json_bad(f, v, "want true or false");
        return hoodie_array_append_bool(a, f, json_is_true(v));
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_INT64:
    case HOODIE_TYPE_UINT8: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_UINT64:
    case HOODIE_TYPE_DATE32: case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: case HOODIE_TYPE_TIMESTAMP:
        if (json_is_integer(v)) {
            char txt[32];
            int len = snprintf(txt, sizeof txt, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
            if (id >= HOODIE_TYPE_UINT8 && id <= HOODIE_TYPE_UINT64 && json_integer_value(v) < 0)
                return bad_value(f, txt, (size_t)len, "out of range");
            return append_checked_int(a, f, (int64_t)json_integer_value(v), txt, (size_t)len);
        }
        if (json_is_string(v)) return text_append(cv, a, f, json_string_value(v), json_string_length(v));
        return json_bad(f, v, id >= HOODIE_TYPE_DATE32 ? "want a string or an integer" : "want an integer");
    case HOODIE_TYPE_FLOAT16: case HOODIE_TYPE_FLOAT: case HOODIE_TYPE_DOUBLE: {
        if (json_is_string(v)) return text_append(cv, a, f, json_string_value(v), json_string_length(v));
        if (!json_is_number(v)) return json_bad(f, v, "want a number");
        double d = json_number_value(v);
        if (id == HOODIE_TYPE_DOUBLE) return hoodie_array_append_double(a, f, d);
        char txt[40];
        int len = snprintf(txt, sizeof txt, "%.17g", d);
        return text_append(cv, a, f, txt, (size_t)len);
    }
    case HOODIE_TYPE_DECIMAL: {
        char txt[48];
        int len;
        if (json_is_string(v)) return text_append(cv, a, f, json_string_value(v), json_string_length(v));
        if (json_is_integer(v)) {
            len = snprintf(txt, sizeof txt, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        } else if (json_is_real(v)) {
            double d = json_real_value(v);
            if (!isfinite(d)) return json_bad(f, v, "not finite");
            len = 0;
            for (int prec = 1; prec <= 17; prec++) {
                len = snprintf(txt, sizeof txt, "%.*g", prec, d);
                if (strtod(txt, NULL) == d) break;
            }
            if (strchr(txt, 'e')) {
                /* Exponent form: write it out positionally. */
                len = snprintf(txt, sizeof txt, "%.*f", f->type.scale > 0 ? f->type.scale : 0, d);
                if (strtod(txt, NULL) != d) return json_bad(f, v, "not exactly representable at this scale");
            }
        } else {
            return json_bad(f, v, "want a string or a number");
        }
        return text_append(cv, a, f, txt, (size_t)len);
    }
    case HOODIE_TYPE_BINARY: case HOODIE_TYPE_FIXED_BINARY:
        if (!json_is_string(v)) return json_bad(f, v, "want a string");
        return text_append(cv, a, f, json_string_value(v), json_string_length(v));
    case HOODIE_TYPE_NULL:
        return json_bad(f, v, "a NULL column holds only nulls");
    }
    return json_bad(f, v, "unsupported type");
}

/* ====================================================================================================== */
/* source: a window over the bytes                                                                         */
/* ====================================================================================================== */

typedef struct source {
    int is_file;
    hoodie_reader rd;
    uint8_t *buf;          /* file mode: owned */
    size_t cap;
    const char *data;      /* window: data[0..len) */
    size_t len;
    size_t pos;            /* next unread byte in the window */
    uint64_t base;         /* input offset of data[0] */
    uint64_t next_read;    /* file mode: offset of the next read */
    int eof;               /* nothing beyond the window */
    size_t chunk;
    const void *mem;       /* buffer mode */
    size_t mem_len;
} source;

static void source_rewind(source *s)
{
    s->pos = 0;
    s->base = 0;
    if (s->is_file) {
        s->len = 0;
        s->next_read = 0;
        s->eof = s->rd.size == 0;
        s->data = (const char *)s->buf;
    } else {
        s->data = s->mem_len ? s->mem : "";
        s->len = s->mem_len;
        s->eof = 1;
    }
}

/* Keep [pos, len), read more after it. Only called when !eof. */
static hoodie_status source_refill(source *s)
{
    size_t keep = s->len - s->pos;
    if (keep && s->pos) memmove(s->buf, s->buf + s->pos, keep);
    s->base += s->pos;
    s->pos = 0;
    s->len = keep;
    uint64_t left = s->rd.size - s->next_read;
    size_t want = left < s->chunk ? (size_t)left : s->chunk;
    if (s->cap - s->len < want) {
        if (keep >= MAX_RECORD_BYTES)
            return HOODIE_CORRUPT("%s: a record at byte %llu is longer than %zu bytes", s->rd.path,
                                  (unsigned long long)s->base, MAX_RECORD_BYTES);
        size_t ncap = s->cap ? s->cap : s->chunk;
        while (ncap - s->len < want) ncap *= 2;
        uint8_t *nb = realloc(s->buf, ncap);
        if (!nb) return HOODIE_NOMEM();
        s->buf = nb;
        s->cap = ncap;
    }
    if (want) HOODIE_TRY(hoodie_reader_read(&s->rd, s->next_read, s->buf + s->len, want));
    s->next_read += want;
    s->len += want;
    s->eof = s->next_read == s->rd.size;
    s->data = (const char *)s->buf;
    return HOODIE_OK;
}

/* ====================================================================================================== */
/* the reader                                                                                              */
/* ====================================================================================================== */

/*
 * The next byte that ends an unquoted field (delimiter, CR, LF or quote) at or after p. A 64-byte block's mask of
 * such bytes is computed once and cached, so the several fields of a short record cost one SIMD pass.
 */
typedef struct scancache {
    const char *blk;    /* start of the cached block (64 bytes, all before the window's end) or NULL */
    uint64_t mask;      /* bit i: blk[i] is special */
} scancache;

typedef struct span {
    const char *p;
    uint32_t len;
    uint8_t quoted, escaped;
} span;

enum { COL_GENERIC = 0, COL_INT64, COL_INT32, COL_STRING };

struct hoodie_input {
    hoodie_input_format format;
    char *name;
    source src;
    conv cv;
    hoodie_field schema;        /* root STRUCT */
    int64_t batch_rows, infer_rows;
    int64_t line;               /* line of the next record */
    int64_t rows;
    int poisoned;
    /* CSV */
    char delim;
    uint8_t special[256];       /* bytes that end an unquoted field */
    scancache scan;             /* reset whenever the window moves */
    span *spans;
    size_t n_spans, spans_cap;
    size_t n_file_cols;
    char **file_names;          /* header names */
    int *map;                   /* file column -> schema column or -1 */
    int *missing;               /* schema columns absent from the file */
    size_t n_missing;
    uint8_t *kind;              /* per schema column: COL_* */
    size_t *var_bytes;          /* per schema column: bytes to reserve for a batch (from the previous one) */
};

enum { REC_OK = 1, REC_END = 0, REC_MORE = 2 };


static inline uint64_t special_mask64(const char *p, char delim, const uint8_t *special_tab)
{
#ifdef __SSE2__
    const __m128i vd = _mm_set1_epi8(delim), vn = _mm_set1_epi8('\n'), vr = _mm_set1_epi8('\r'),
                  vq = _mm_set1_epi8('"');
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        __m128i e = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, vd), _mm_cmpeq_epi8(x, vn)),
                                 _mm_or_si128(_mm_cmpeq_epi8(x, vr), _mm_cmpeq_epi8(x, vq)));
        m |= (uint64_t)(unsigned)_mm_movemask_epi8(e) << (16 * k);
    }
    return m;
#else
    uint64_t m = 0;
    for (int i = 0; i < 64; i++) m |= (uint64_t)special_tab[(uint8_t)p[i]] << i;
    (void)delim;
    return m;
#endif
}

static inline const char *scan_special(scancache *sc, const char *p, const char *end, char delim,
                                       const uint8_t *special_tab)
{
    for (;;) {
        if (sc->blk && p >= sc->blk && p < sc->blk + 64) {
            uint64_t m = sc->mask & (~0ULL << (p - sc->blk));
            if (m) return sc->blk + __builtin_ctzll(m);
            p = sc->blk + 64;
        }
        if (end - p < 64) break;
        sc->blk = p;
        sc->mask = special_mask64(p, delim, special_tab);
    }
    while (p < end && !special_tab[(uint8_t)*p]) p++;
    return p;
}

static hoodie_status rec_error(hoodie_input *in, const char *fmt, const char *detail)
{
    return HOODIE_CORRUPT("%s: line %lld: %s%s", in->name, (long long)in->line, fmt, detail ? detail : "");
}

static hoodie_status spans_grow(hoodie_input *in)
{
    size_t nc = in->spans_cap ? in->spans_cap * 2 : 16;
    span *ns = realloc(in->spans, nc * sizeof *ns);
    if (!ns) return HOODIE_NOMEM();
    in->spans = ns;
    in->spans_cap = nc;
    return HOODIE_OK;
}

/*
 * Split the record at the window's pos into in->spans. REC_OK (pos advanced past the record, *nl = line ends it
 * spans), REC_END (no bytes left), REC_MORE (the record runs past the window and more input exists), or < 0.
 */
static int csv_split(hoodie_input *in, int64_t *nl_out)
{
    source *s = &in->src;
    const char *start = s->data + s->pos, *end = s->data + s->len, *p = start;
    const char delim = in->delim;
    int eof = s->eof;
    int64_t nl = 0;
    size_t nf = 0;
    if (p == end) return eof ? REC_END : REC_MORE;
    for (;;) {
        if (nf == in->spans_cap) {
            hoodie_status rc = spans_grow(in);
            if (rc < 0) return rc;
        }
        span *sp = &in->spans[nf++];
        if (p < end && *p == '"') {
            const char *q = p + 1;
            int esc = 0;
            for (;;) {
                const char *r = memchr(q, '"', (size_t)(end - q));
                if (!r) {
                    if (!eof) return REC_MORE;
                    return rec_error(in, "unterminated quoted field", NULL);
                }
                if (r + 1 < end && r[1] == '"') { esc = 1; q = r + 2; continue; }
                if (r + 1 == end && !eof) return REC_MORE;
                for (const char *t = p + 1; (t = memchr(t, '\n', (size_t)(r - t))) != NULL; t++) nl++;
                if ((size_t)(r - (p + 1)) > UINT32_MAX) return rec_error(in, "field too long", NULL);
                sp->p = p + 1;
                sp->len = (uint32_t)(r - (p + 1));
                sp->quoted = 1;
                sp->escaped = (uint8_t)esc;
                p = r + 1;
                break;
            }
        } else {
            const char *r = scan_special(&in->scan, p, end, delim, in->special);
            if (r < end && *r == '"') {
                char d[64];
                snprintf(d, sizeof d, " (field %zu)", nf);
                return rec_error(in, "quote inside an unquoted field", d);
            }
            if ((size_t)(r - p) > UINT32_MAX) return rec_error(in, "field too long", NULL);
            sp->p = p;
            sp->len = (uint32_t)(r - p);
            sp->quoted = sp->escaped = 0;
            p = r;
        }
        if (p == end) {
            if (!eof) return REC_MORE;
            break;
        }
        char c = *p;
        if (c == delim) { p++; continue; }
        if (c == '\n') { p++; nl++; break; }
        if (c == '\r') {
            if (p + 1 == end) {
                if (!eof) return REC_MORE;
                p++;
                break;
            }
            if (p[1] == '\n') { p += 2; nl++; break; }
            char d[64];
            snprintf(d, sizeof d, " (field %zu)", nf);
            return rec_error(in, "carriage return not followed by a line feed", d);
        }
        {
            char d[64];
            snprintf(d, sizeof d, " (field %zu)", nf);
            return rec_error(in, "unexpected character after a closing quote", d);
        }
    }
    in->n_spans = nf;
    s->pos = (size_t)(p - s->data);
    *nl_out = nl;
    return REC_OK;
}

/* Next record into in->spans: REC_OK (*nl = line ends inside and after it) or REC_END or < 0. Empty lines are
 * skipped when skip_empty (files of several columns). in->line stays the record's first line. */
static int csv_next_record(hoodie_input *in, int skip_empty, int64_t *nl)
{
    for (;;) {
        *nl = 0;
        int rc = csv_split(in, nl);
        if (rc == REC_MORE) {
            hoodie_status st = source_refill(&in->src);
            in->scan.blk = NULL;
            if (st < 0) return st;
            continue;
        }
        if (rc != REC_OK) return rc;
        if (skip_empty && in->n_spans == 1 && in->spans[0].len == 0 && !in->spans[0].quoted) {
            in->line += *nl;
            continue;
        }
        return REC_OK;
    }
}

/* Unescape a quoted field with "" into scratch; returns the text. */
static inline __attribute__((always_inline)) const char *span_text(hoodie_buf *scratch, const span *sp, size_t *n)
{
    if (!sp->escaped) { *n = sp->len; return sp->p; }
    hoodie_buf_clear(scratch);
    if (hoodie_buf_reserve(scratch, sp->len) < 0) return NULL;
    uint8_t *o = scratch->data;
    for (uint32_t i = 0; i < sp->len; i++) {
        *o++ = (uint8_t)sp->p[i];
        if (sp->p[i] == '"') i++;
    }
    *n = (size_t)(o - scratch->data);
    return (const char *)scratch->data;
}

/* ---- CSV: header, inference, rows ---- */

static hoodie_status field_error_prefix(hoodie_input *in, size_t col, hoodie_status rc)
{
    const char *nm = col < in->n_file_cols ? in->file_names[col] : "?";
    hoodie_error__prefix("%s: line %lld, column %zu (%s): ", in->name, (long long)in->line, col + 1, nm);
    return rc;
}

static void free_names(hoodie_input *in)
{
    for (size_t i = 0; i < in->n_file_cols; i++) free(in->file_names[i]);
    free(in->file_names);
    in->file_names = NULL;
    in->n_file_cols = 0;
}

static hoodie_status csv_read_header(hoodie_input *in)
{
    source *s = &in->src;
    in->scan.blk = NULL;
    if (!s->eof && s->len - s->pos < 3) HOODIE_TRY(source_refill(s));
    if (s->len - s->pos >= 3 && memcmp(s->data + s->pos, "\xEF\xBB\xBF", 3) == 0) s->pos += 3;
    in->line = 1;
    int64_t nl;
    int rc = csv_next_record(in, 0, &nl);
    if (rc < 0) return rc;
    if (rc == REC_END) return HOODIE_CORRUPT("%s: empty file: a CSV header line is required", in->name);
    free_names(in);
    in->file_names = calloc(in->n_spans, sizeof *in->file_names);
    if (!in->file_names) return HOODIE_NOMEM();
    for (size_t i = 0; i < in->n_spans; i++) {
        size_t n;
        const char *t = span_text(&in->cv.scratch, &in->spans[i], &n);
        if (!t || !(in->file_names[i] = strndup(t, n))) return HOODIE_NOMEM();
        in->n_file_cols = i + 1;
        for (size_t j = 0; j < i; j++)
            if (strcmp(in->file_names[j], in->file_names[i]) == 0)
                return HOODIE_FAIL(HOODIE_EINVAL, "%s: line 1: duplicate column '%s' in the header (columns %zu and %zu)",
                                   in->name, in->file_names[i], j + 1, i + 1);
    }
    in->line += nl;
    return HOODIE_OK;
}

typedef struct cinfer {
    uint8_t seen, can_bool, can_int, can_dbl, can_date, can_ts;
} cinfer;

static int leading_zero(const char *p, size_t n)
{
    size_t i = (n && (p[0] == '-' || p[0] == '+')) ? 1 : 0;
    return n - i >= 2 && p[i] == '0' && is_digit(p[i + 1]);
}

static void infer_csv_value(cinfer *ci, const char *p, size_t n)
{
    ci->seen = 1;
    if (ci->can_bool) ci->can_bool = ci_eq(p, n, "true") || ci_eq(p, n, "false");
    int lz = leading_zero(p, n);
    if (ci->can_int) {
        int64_t v;
        ci->can_int = !lz && parse_i64(p, n, &v) == 0;
    }
    if (ci->can_dbl) {
        double d;
        size_t i = (n && (p[0] == '-' || p[0] == '+')) ? 1 : 0;
        /* numeric syntax only: nan / inf words are not inferred as numbers */
        ci->can_dbl = !lz && i < n && (is_digit(p[i]) || p[i] == '.') && parse_double(p, n, &d) == 0;
    }
    if (ci->can_date) {
        int64_t days;
        ci->can_date = n == 10 && parse_date10(p, &days) == 0;
    }
    if (ci->can_ts) {
        int64_t secs, nanos, v;
        ci->can_ts = parse_ts_text(p, n, &secs, &nanos) == 0 && to_unit(secs, nanos, HOODIE_UNIT_MICRO, &v) == 0;
    }
}

static hoodie_status csv_infer(hoodie_input *in)
{
    hoodie_status rc = HOODIE_OK;
    HOODIE_TRY(csv_read_header(in));
    size_t nc = in->n_file_cols;
    cinfer *ci = calloc(nc, sizeof *ci);
    if (!ci) return HOODIE_NOMEM();
    for (size_t i = 0; i < nc; i++) ci[i].can_bool = ci[i].can_int = ci[i].can_dbl = ci[i].can_date = ci[i].can_ts = 1;
    for (int64_t r = 0; r < in->infer_rows; r++) {
        int64_t nl;
        int st = csv_next_record(in, nc > 1, &nl);
        if (st < 0) { rc = st; goto done; }
        if (st == REC_END) break;
        if (in->n_spans != nc) {
            rc = HOODIE_CORRUPT("%s: line %lld: %zu fields, the header has %zu", in->name, (long long)in->line,
                                in->n_spans, nc);
            goto done;
        }
        for (size_t i = 0; i < nc; i++) {
            const span *sp = &in->spans[i];
            if (sp->len == 0) {
                if (sp->quoted) { ci[i].seen = 1; ci[i].can_bool = ci[i].can_int = ci[i].can_dbl = ci[i].can_date = ci[i].can_ts = 0; }
                continue;
            }
            size_t n;
            const char *t = span_text(&in->cv.scratch, sp, &n);
            if (!t) { rc = HOODIE_NOMEM(); goto done; }
            infer_csv_value(&ci[i], t, n);
        }
        in->line += nl;
    }
    HOODIE_TRY_GOTO(rc, hoodie_field_init(&in->schema, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0), done);
    for (size_t i = 0; i < nc; i++) {
        hoodie_type t = hoodie_type_of(HOODIE_TYPE_STRING);
        if (ci[i].seen) {
            if (ci[i].can_bool) t = hoodie_type_of(HOODIE_TYPE_BOOL);
            else if (ci[i].can_int) t = hoodie_type_of(HOODIE_TYPE_INT64);
            else if (ci[i].can_dbl) t = hoodie_type_of(HOODIE_TYPE_DOUBLE);
            else if (ci[i].can_date) t = hoodie_type_of(HOODIE_TYPE_DATE32);
            else if (ci[i].can_ts) {
                t = hoodie_type_of(HOODIE_TYPE_TIMESTAMP);
                t.unit = HOODIE_UNIT_MICRO;
                t.utc = 1;
            }
        }
        hoodie_field col;
        HOODIE_TRY_GOTO(rc, hoodie_field_init(&col, in->file_names[i], t, 1), done);
        rc = hoodie_field_add_child(&in->schema, &col);
        hoodie_field_dispose(&col);
        if (rc < 0) goto done;
    }
done:
    free(ci);
    return rc;
}

static hoodie_status csv_bind(hoodie_input *in, int ignore_extra)
{
    size_t ns = in->schema.n_children;
    in->map = malloc((in->n_file_cols ? in->n_file_cols : 1) * sizeof *in->map);
    in->missing = malloc((ns ? ns : 1) * sizeof *in->missing);
    in->kind = calloc(ns ? ns : 1, 1);
    in->var_bytes = calloc(ns ? ns : 1, sizeof *in->var_bytes);
    int *seen = calloc(ns ? ns : 1, sizeof *seen);
    hoodie_status rc = HOODIE_OK;
    if (!in->map || !in->missing || !in->kind || !in->var_bytes || !seen) { rc = HOODIE_NOMEM(); goto done; }
    for (size_t i = 0; i < in->n_file_cols; i++) {
        int c = hoodie_field_find(&in->schema, in->file_names[i]);
        in->map[i] = c;
        if (c < 0 && !ignore_extra) {
            rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: line 1: column %zu '%s' of the header is not in the schema", in->name,
                             i + 1, in->file_names[i]);
            goto done;
        }
        if (c >= 0) seen[c] = 1;
    }
    in->n_missing = 0;
    for (size_t c = 0; c < ns; c++) {
        const hoodie_field *f = &in->schema.children[c];
        if (!seen[c]) {
            if (!f->nullable) {
                rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: column '%s' is not nullable and missing from the header",
                                 in->name, f->name);
                goto done;
            }
            in->missing[in->n_missing++] = (int)c;
        }
        switch (f->type.id) {
        case HOODIE_TYPE_INT64: in->kind[c] = COL_INT64; break;
        case HOODIE_TYPE_INT32: in->kind[c] = COL_INT32; break;
        case HOODIE_TYPE_STRING: in->kind[c] = COL_STRING; break;
        default: in->kind[c] = COL_GENERIC;
        }
    }
done:
    free(seen);
    return rc;
}

static hoodie_status put_null(hoodie_array *a, const hoodie_field *f, int64_t cap_rows)
{
    if (!f->nullable) return HOODIE_CORRUPT("null (empty field) in a non-nullable column");
    HOODIE_TRY(hoodie_array_materialize_validity(a, cap_rows));
    return hoodie_array_append_null(a, f);
}

static inline void put_done(hoodie_array *a)
{
    if (a->validity) hoodie_bit_set(a->validity, a->length);
    a->length++;
}

static hoodie_status put_field(hoodie_input *in, hoodie_array *a, const hoodie_field *f, int kind, const span *sp,
                               int64_t cap_rows, hoodie_buf *unesc)
{
    if (sp->len == 0 && !sp->quoted) return put_null(a, f, cap_rows);
    size_t n;
    const char *p = span_text(unesc, sp, &n);
    if (!p) return HOODIE_NOMEM();
    switch (kind) {
    case COL_INT64: {
        int64_t v;
        if (parse_i64(p, n, &v) != 0) break;
        ((int64_t *)(void *)a->values)[a->length] = v;
        put_done(a);
        return HOODIE_OK;
    }
    case COL_INT32: {
        int64_t v;
        if (parse_i64(p, n, &v) != 0 || v < INT32_MIN || v > INT32_MAX) break;
        ((int32_t *)(void *)a->values)[a->length] = (int32_t)v;
        put_done(a);
        return HOODIE_OK;
    }
    case COL_STRING: {
        size_t need = a->values_len + n;
        if (need > a->values_cap) {
            if (need > INT32_MAX)
                return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "more than 2 GiB of values in one batch column");
            HOODIE_TRY(hoodie_array_reserve(a, f, cap_rows, need));
        }
        if (n) memcpy(a->values + a->values_len, p, n);
        a->values_len = need;
        a->offsets[a->length + 1] = (int32_t)need;
        put_done(a);
        return HOODIE_OK;
    }
    default:
        break;
    }
    /* generic path (and the error message of a fast path that failed) */
    return text_append(&in->cv, a, f, p, n);
}

static hoodie_status csv_next(hoodie_input *in, hoodie_batch *out)
{
    int64_t nl;
    const int skip_empty = in->n_file_cols > 1;
    int st = csv_next_record(in, skip_empty, &nl);
    if (st < 0) return st;
    if (st == REC_END) return HOODIE_ITEROVER;
    HOODIE_TRY(hoodie_batch_init(out, &in->schema));
    hoodie_status rc = HOODIE_OK;
    const int64_t cap = in->batch_rows;
    hoodie_array *cols = out->root.children;
    const hoodie_field *fs = in->schema.children;
    hoodie_buf unesc = HOODIE_BUF_INIT;
    /* the input's bytes still to come bound a string column's bytes: a first batch (no size from an earlier one)
     * reserves that much, at most 64 bytes a row, instead of doubling up from nothing (the pages stay untouched
     * until used) */
    uint64_t total = in->src.is_file ? in->src.rd.size : in->src.mem_len;
    uint64_t left = total > in->src.base + in->src.pos ? total - (in->src.base + in->src.pos) : 0;
    if (left > (uint64_t)cap * 64) left = (uint64_t)cap * 64;
    if (left > INT32_MAX) left = INT32_MAX;
    for (size_t c = 0; c < in->schema.n_children; c++) {
        size_t vb = in->var_bytes ? in->var_bytes[c] : 0;
        if (!vb && (fs[c].type.id == HOODIE_TYPE_STRING || fs[c].type.id == HOODIE_TYPE_BINARY)) vb = (size_t)left;
        HOODIE_TRY_GOTO(rc, hoodie_array_reserve(&cols[c], &fs[c], cap, vb), fail);
    }
    int64_t r = 0;
    for (;;) {
        if (in->n_spans != in->n_file_cols) {
            rc = HOODIE_CORRUPT("%s: line %lld: %zu fields, the header has %zu", in->name, (long long)in->line,
                                in->n_spans, in->n_file_cols);
            goto fail;
        }
        for (size_t i = 0; i < in->n_file_cols; i++) {
            int c = in->map[i];
            if (c < 0) continue;
            rc = put_field(in, &cols[c], &fs[c], in->kind[c], &in->spans[i], cap, &unesc);
            if (rc < 0) { field_error_prefix(in, i, rc); goto fail; }
        }
        for (size_t k = 0; k < in->n_missing; k++) {
            int c = in->missing[k];
            HOODIE_TRY_GOTO(rc, put_null(&cols[c], &fs[c], cap), fail);
        }
        r++;
        in->rows++;
        in->line += nl;
        if (r == cap) break;
        st = csv_next_record(in, skip_empty, &nl);
        if (st < 0) { rc = st; goto fail; }
        if (st == REC_END) break;
    }
    out->root.length = r;
    hoodie_buf_dispose(&unesc);
    /* Var-width bytes of a full batch, plus an eighth, as the next batch's reservation. */
    if (r == cap && in->var_bytes)
        for (size_t c = 0; c < in->schema.n_children; c++) {
            size_t v = cols[c].values_len;
            in->var_bytes[c] = fs[c].type.id == HOODIE_TYPE_STRING || fs[c].type.id == HOODIE_TYPE_BINARY
                                   ? v + v / 8 : 0;
        }
    return HOODIE_OK;
fail:
    hoodie_buf_dispose(&unesc);
    hoodie_batch_dispose(out);
    return rc;
}

/* ---- JSON lines ---- */

/* Next non-blank line; REC_OK / REC_END / < 0. in->line is its number. */
static int jsonl_next_line(hoodie_input *in, const char **lp, size_t *ln)
{
    source *s = &in->src;
    for (;;) {
        const char *p = s->data + s->pos, *end = s->data + s->len;
        if (p == end) {
            if (s->eof) return REC_END;
            hoodie_status rc = source_refill(s);
            if (rc < 0) return rc;
            continue;
        }
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e) {
            if (!s->eof) {
                hoodie_status rc = source_refill(s);
                if (rc < 0) return rc;
                continue;
            }
            e = end;
            s->pos = s->len;
        } else {
            s->pos = (size_t)(e + 1 - s->data);
        }
        in->line++;
        size_t n = (size_t)(e - p);
        if (n && p[n - 1] == '\r') n--;
        size_t i = 0;
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
        if (i == n) continue;
        *lp = p;
        *ln = n;
        return REC_OK;
    }
}

static hoodie_status jsonl_load(hoodie_input *in, const char *p, size_t n, json_t **out)
{
    json_error_t err;
    json_t *j = json_loadb(p, n, JSON_REJECT_DUPLICATES, &err);
    if (!j)
        return HOODIE_CORRUPT("%s: line %lld: bad JSON at character %d: %s", in->name, (long long)in->line,
                              err.position, err.text);
    if (!json_is_object(j)) {
        json_decref(j);
        return HOODIE_CORRUPT("%s: line %lld: want a JSON object", in->name, (long long)in->line);
    }
    *out = j;
    return HOODIE_OK;
}

static hoodie_status jsonl_next(hoodie_input *in, hoodie_batch *out)
{
    const char *p;
    size_t n;
    int st = jsonl_next_line(in, &p, &n);
    if (st < 0) return st;
    if (st == REC_END) return HOODIE_ITEROVER;
    HOODIE_TRY(hoodie_batch_init(out, &in->schema));
    hoodie_status rc = HOODIE_OK;
    hoodie_array *cols = out->root.children;
    const hoodie_field *fs = in->schema.children;
    int64_t r = 0;
    for (;;) {
        json_t *j;
        HOODIE_TRY_GOTO(rc, jsonl_load(in, p, n, &j), fail);
        in->cv.in_json = 1;
        size_t matched = 0;
        for (size_t c = 0; c < in->schema.n_children; c++) {
            json_t *fv = json_object_get(j, fs[c].name);
            matched += fv != NULL;
            rc = json_append(&in->cv, &cols[c], &fs[c], fv);
            if (rc < 0) {
                hoodie_error__prefix("%s: line %lld: field '%s': ", in->name, (long long)in->line, fs[c].name);
                break;
            }
        }
        if (rc == HOODIE_OK && !in->cv.ignore_extra && json_object_size(j) > matched) {
            const char *key;
            json_t *val;
            json_object_foreach(j, key, val) {
                if (hoodie_field_find(&in->schema, key) < 0) {
                    rc = HOODIE_CORRUPT("%s: line %lld: field '%s' is not in the schema", in->name,
                                        (long long)in->line, key);
                    break;
                }
            }
        }
        json_decref(j);
        if (rc < 0) goto fail;
        r++;
        in->rows++;
        if (r == in->batch_rows) break;
        st = jsonl_next_line(in, &p, &n);
        if (st < 0) { rc = st; goto fail; }
        if (st == REC_END) break;
    }
    out->root.length = r;
    return HOODIE_OK;
fail:
    hoodie_batch_dispose(out);
    return rc;
}

/* JSON inference: a tree of kinds merged over the sampled values. */
enum { IN_NONE = 0, IN_BOOL, IN_INT, IN_REAL, IN_STRING, IN_STRUCT, IN_LIST };

typedef struct inode {
    int kind;
    size_t n;                  /* STRUCT fields */
    char **names;
    struct inode **kids;
    struct inode *elem;        /* LIST */
} inode;

static void inode_free(inode *x)
{
    if (!x) return;
    for (size_t i = 0; i < x->n; i++) { free(x->names[i]); inode_free(x->kids[i]); }
    free(x->names);
    free(x->kids);
    inode_free(x->elem);
    free(x);
}

static void inode_to_string(inode *x)
{
    for (size_t i = 0; i < x->n; i++) { free(x->names[i]); inode_free(x->kids[i]); }
    free(x->names);
    free(x->kids);
    inode_free(x->elem);
    x->names = NULL;
    x->kids = NULL;
    x->elem = NULL;
    x->n = 0;
    x->kind = IN_STRING;
}

static hoodie_status inode_merge(inode *x, json_t *v, int depth)
{
    if (depth > 64) return HOODIE_CORRUPT("JSON nested deeper than 64 levels");
    if (json_is_null(v) || (x->kind == IN_STRING && !json_is_object(v) && !json_is_array(v))) {
        if (x->kind == IN_NONE && json_is_string(v)) x->kind = IN_STRING;
        return HOODIE_OK;
    }
    if (x->kind == IN_STRING) return HOODIE_OK;
    if (json_is_boolean(v)) {
        if (x->kind == IN_NONE) x->kind = IN_BOOL;
        else if (x->kind != IN_BOOL) inode_to_string(x);
    } else if (json_is_integer(v)) {
        if (x->kind == IN_NONE) x->kind = IN_INT;
        else if (x->kind != IN_INT && x->kind != IN_REAL) inode_to_string(x);
    } else if (json_is_real(v)) {
        if (x->kind == IN_NONE || x->kind == IN_INT) x->kind = IN_REAL;
        else if (x->kind != IN_REAL) inode_to_string(x);
    } else if (json_is_string(v)) {
        inode_to_string(x);
    } else if (json_is_object(v)) {
        if (x->kind == IN_NONE) x->kind = IN_STRUCT;
        if (x->kind != IN_STRUCT) { inode_to_string(x); return HOODIE_OK; }
        const char *key;
        json_t *val;
        json_object_foreach(v, key, val) {
            size_t i = 0;
            while (i < x->n && strcmp(x->names[i], key) != 0) i++;
            if (i == x->n) {
                char **nn = realloc(x->names, (x->n + 1) * sizeof *nn);
                if (!nn) return HOODIE_NOMEM();
                x->names = nn;
                inode **nk = realloc(x->kids, (x->n + 1) * sizeof *nk);
                if (!nk) return HOODIE_NOMEM();
                x->kids = nk;
                x->kids[i] = calloc(1, sizeof(inode));
                x->names[i] = strdup(key);
                if (!x->kids[i] || !x->names[i]) { free(x->kids[i]); free(x->names[i]); return HOODIE_NOMEM(); }
                x->n++;
            }
            HOODIE_TRY(inode_merge(x->kids[i], val, depth + 1));
        }
    } else if (json_is_array(v)) {
        if (x->kind == IN_NONE) {
            x->kind = IN_LIST;
            if (!(x->elem = calloc(1, sizeof(inode)))) return HOODIE_NOMEM();
        }
        if (x->kind != IN_LIST) { inode_to_string(x); return HOODIE_OK; }
        for (size_t i = 0; i < json_array_size(v); i++) HOODIE_TRY(inode_merge(x->elem, json_array_get(v, i), depth + 1));
    }
    return HOODIE_OK;
}

static hoodie_status inode_field(hoodie_field *out, const inode *x, const char *name)
{
    hoodie_type_id id = HOODIE_TYPE_STRING;
    switch (x->kind) {
    case IN_BOOL: id = HOODIE_TYPE_BOOL; break;
    case IN_INT: id = HOODIE_TYPE_INT64; break;
    case IN_REAL: id = HOODIE_TYPE_DOUBLE; break;
    case IN_STRUCT: if (x->n) id = HOODIE_TYPE_STRUCT; break;   /* only empty objects: JSON text */
    case IN_LIST: id = HOODIE_TYPE_LIST; break;
    default: break;
    }
    HOODIE_TRY(hoodie_field_init(out, name, hoodie_type_of(id), 1));
    hoodie_status rc = HOODIE_OK;
    if (id == HOODIE_TYPE_STRUCT) {
        for (size_t i = 0; i < x->n && rc == HOODIE_OK; i++) {
            hoodie_field c;
            rc = inode_field(&c, x->kids[i], x->names[i]);
            if (rc == HOODIE_OK) { rc = hoodie_field_add_child(out, &c); hoodie_field_dispose(&c); }
        }
    } else if (id == HOODIE_TYPE_LIST) {
        hoodie_field c;
        rc = inode_field(&c, x->elem, "element");
        if (rc == HOODIE_OK) { rc = hoodie_field_add_child(out, &c); hoodie_field_dispose(&c); }
    }
    if (rc < 0) hoodie_field_dispose(out);
    return rc;
}

static hoodie_status jsonl_infer(hoodie_input *in)
{
    hoodie_status rc = HOODIE_OK;
    inode *root = calloc(1, sizeof *root);
    if (!root) return HOODIE_NOMEM();
    root->kind = IN_STRUCT;
    for (int64_t r = 0; r < in->infer_rows; r++) {
        const char *p;
        size_t n;
        int st = jsonl_next_line(in, &p, &n);
        if (st < 0) { rc = st; goto done; }
        if (st == REC_END) break;
        json_t *j;
        HOODIE_TRY_GOTO(rc, jsonl_load(in, p, n, &j), done);
        rc = inode_merge(root, j, 0);
        json_decref(j);
        if (rc < 0) { hoodie_error__prefix("%s: line %lld: ", in->name, (long long)in->line); goto done; }
    }
    HOODIE_TRY_GOTO(rc, hoodie_field_init(&in->schema, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0), done);
    for (size_t i = 0; i < root->n; i++) {
        hoodie_field c;
        HOODIE_TRY_GOTO(rc, inode_field(&c, root->kids[i], root->names[i]), done);
        rc = hoodie_field_add_child(&in->schema, &c);
        hoodie_field_dispose(&c);
        if (rc < 0) goto done;
    }
done:
    inode_free(root);
    return rc;
}

/* ---- open / next / free ---- */

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcasecmp(s + n - m, suf) == 0;
}

/* The fields of inferred JSON field `c` that table field `t` lacks appended to t's records, nullable: through
 * records' fields, lists' elements and maps' values (a JSON object read as a map: each of its values). */
static hoodie_status add_new_fields(hoodie_field *t, const hoodie_field *c)
{
    hoodie_type_id tt = t->type.id, ct = c->type.id;
    if (tt == HOODIE_TYPE_STRUCT && ct == HOODIE_TYPE_STRUCT) {
        for (size_t i = 0; i < c->n_children; i++) {
            const hoodie_field *cc = &c->children[i];
            int k = hoodie_field_find(t, cc->name);
            if (k >= 0) {
                HOODIE_TRY(add_new_fields(&t->children[k], cc));
                continue;
            }
            HOODIE_TRY(hoodie_field_add_child(t, cc));
            t->children[t->n_children - 1].nullable = 1;
        }
    } else if (tt == HOODIE_TYPE_LIST && ct == HOODIE_TYPE_LIST && t->n_children == 1 && c->n_children == 1) {
        HOODIE_TRY(add_new_fields(&t->children[0], &c->children[0]));
    } else if (tt == HOODIE_TYPE_MAP && ct == HOODIE_TYPE_STRUCT && t->n_children == 1 && t->children[0].n_children == 2) {
        for (size_t i = 0; i < c->n_children; i++) HOODIE_TRY(add_new_fields(&t->children[0].children[1], &c->children[i]));
    }
    return HOODIE_OK;
}

/*
 * Schema evolution through text inputs: columns (CSV) or fields (JSON lines, nested ones too) the table schema in
 * in->schema lacks are inferred from the first rows, as on a table's first write, and appended to the schema (to
 * their records) as nullable; the writer then evolves the table schema with them. The table's own columns keep the
 * table's types.
 */
static hoodie_status add_new_columns(hoodie_input *in)
{
    if (in->format == HOODIE_INPUT_CSV) { /* infer only when the header names a new column */
        HOODIE_TRY(csv_read_header(in));
        source_rewind(&in->src);
        size_t i = 0;
        while (i < in->n_file_cols && hoodie_field_find(&in->schema, in->file_names[i]) >= 0) i++;
        if (i == in->n_file_cols) return HOODIE_OK;
    }
    hoodie_field table = in->schema;
    memset(&in->schema, 0, sizeof in->schema);
    hoodie_status rc = in->format == HOODIE_INPUT_CSV ? csv_infer(in) : jsonl_infer(in);
    source_rewind(&in->src);
    for (size_t i = 0; rc == HOODIE_OK && i < in->schema.n_children; i++) {
        hoodie_field *c = &in->schema.children[i];
        int k = hoodie_field_find(&table, c->name);
        if (k >= 0) {
            if (in->format == HOODIE_INPUT_JSONL) rc = add_new_fields(&table.children[k], c);
            continue;
        }
        c->nullable = 1;
        rc = hoodie_field_add_child(&table, c);
    }
    hoodie_field_dispose(&in->schema);
    in->schema = table;
    return rc;
}

static hoodie_status input_start(hoodie_input *in, const hoodie_input_opts *opts)
{
    hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
    if (opts) o = *opts;
    in->format = o.format;
    if (in->format == HOODIE_INPUT_AUTO)
        in->format = (has_suffix(in->name, ".json") || has_suffix(in->name, ".jsonl") ||
                      has_suffix(in->name, ".ndjson")) ? HOODIE_INPUT_JSONL : HOODIE_INPUT_CSV;
    if (in->format != HOODIE_INPUT_CSV && in->format != HOODIE_INPUT_JSONL)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: unknown input format %d", in->name, (int)o.format);
    in->delim = o.delimiter ? o.delimiter : ',';
    if (in->delim == '"' || in->delim == '\n' || in->delim == '\r')
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: the delimiter cannot be a quote or a line end", in->name);
    if (o.batch_rows < 0 || o.infer_rows < 0 || o.batch_rows > INT32_MAX)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: bad batch_rows / infer_rows", in->name);
    in->batch_rows = o.batch_rows ? o.batch_rows : DEFAULT_BATCH_ROWS;
    in->infer_rows = o.infer_rows ? o.infer_rows : DEFAULT_INFER_ROWS;
    in->cv.binary = o.binary;
    in->cv.ignore_extra = o.ignore_extra_columns;
    memset(in->special, 0, sizeof in->special);
    in->special[(uint8_t)in->delim] = in->special['\n'] = in->special['\r'] = in->special['"'] = 1;
    source_rewind(&in->src);
    if (o.schema) {
        if (o.schema->type.id != HOODIE_TYPE_STRUCT)
            return HOODIE_FAIL(HOODIE_EINVAL, "%s: the schema must be a root STRUCT", in->name);
        HOODIE_TRY(hoodie_field_clone(&in->schema, o.schema));
        if (o.add_new_columns && !o.ignore_extra_columns) HOODIE_TRY(add_new_columns(in));
    } else {
        HOODIE_TRY(in->format == HOODIE_INPUT_CSV ? csv_infer(in) : jsonl_infer(in));
        source_rewind(&in->src);
    }
    in->line = 0;
    if (in->format == HOODIE_INPUT_CSV) {
        HOODIE_TRY(csv_read_header(in));
        HOODIE_TRY(csv_bind(in, o.ignore_extra_columns));
    }
    return HOODIE_OK;
}

static hoodie_status input_new(hoodie_input **out, const char *name, const hoodie_input_opts *opts)
{
    hoodie_input *in = calloc(1, sizeof *in);
    if (!in) return HOODIE_NOMEM();
    in->name = strdup(name ? name : "(input)");
    if (!in->name) { free(in); return HOODIE_NOMEM(); }
    in->src.chunk = opts && opts->chunk_bytes ? opts->chunk_bytes : DEFAULT_CHUNK;
    *out = in;
    return HOODIE_OK;
}

hoodie_status hoodie_input_open(hoodie_input **out, const hoodie_storage *storage, const char *path,
                                const hoodie_input_opts *opts)
{
    hoodie_input *in;
    *out = NULL;
    HOODIE_TRY(input_new(&in, path, opts));
    in->src.is_file = 1;
    hoodie_status rc = hoodie_reader_open(&in->src.rd, hoodie_storage__or_default(storage), in->name);
    if (rc < 0) { free(in->name); free(in); return rc; }
    in->src.rd.path = in->name;
    rc = input_start(in, opts);
    if (rc < 0) { hoodie_input_free(in); return rc; }
    *out = in;
    return HOODIE_OK;
}

hoodie_status hoodie_input_open_buffer(hoodie_input **out, const void *data, size_t len, const char *name,
                                       const hoodie_input_opts *opts)
{
    hoodie_input *in;
    *out = NULL;
    HOODIE_TRY(input_new(&in, name, opts));
    in->src.mem = data;
    in->src.mem_len = len;
    hoodie_status rc = input_start(in, opts);
    if (rc < 0) { hoodie_input_free(in); return rc; }
    *out = in;
    return HOODIE_OK;
}

const hoodie_field *hoodie_input_schema(const hoodie_input *in) { return &in->schema; }

int hoodie_input_lacks(const hoodie_input *in, size_t c)
{
    for (size_t k = 0; in->missing && k < in->n_missing; k++)
        if ((size_t)in->missing[k] == c) return 1;
    return 0;
}

int64_t hoodie_input_rows(const hoodie_input *in) { return in->rows; }

hoodie_status hoodie_input_next(hoodie_input *in, hoodie_batch *out)
{
    if (in->poisoned) return HOODIE_FAIL(HOODIE_ESTATE, "%s: an earlier error stopped the read", in->name);
    hoodie_status rc = in->format == HOODIE_INPUT_CSV ? csv_next(in, out) : jsonl_next(in, out);
    if (rc < 0 && rc != HOODIE_ITEROVER) in->poisoned = 1;
    return rc;
}

void hoodie_input_free(hoodie_input *in)
{
    if (!in) return;
    if (in->src.is_file) hoodie_reader_close(&in->src.rd);
    free(in->src.buf);
    free_names(in);
    free(in->spans);
    free(in->map);
    free(in->missing);
    free(in->kind);
    free(in->var_bytes);
    hoodie_buf_dispose(&in->cv.scratch);
    hoodie_field_dispose(&in->schema);
    free(in->name);
    free(in);
}
