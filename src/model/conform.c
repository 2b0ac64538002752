#include "model/conform.h"
#include "model/build.h"
#include "model/value.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 i128;

static int is_real(hoodie_type_id id) { return id == HOODIE_TYPE_FLOAT || id == HOODIE_TYPE_DOUBLE; }

static i128 pow10_i128(int k)
{
    i128 v = 1;
    while (k-- > 0) v *= 10;
    return v;
}

/* 1 if the unscaled value has `precision` digits or fewer. */
static int fits(i128 v, int precision) { i128 lim = pow10_i128(precision); return v < lim && v > -lim; }

/* Unscaled `v` of scale `from` at scale `to` (half up when digits are dropped, as BigDecimal.setScale(to,
 * HALF_UP)): 1 with *out when the result has `precision` digits or fewer, else 0. */
static int rescale(i128 v, int from, int to, int precision, i128 *out)
{
    if (to >= from) {
        int k = to - from;
        if (k > precision || !fits(v, precision - k)) return 0;
        *out = v * pow10_i128(k);
        return 1;
    }
    int k = from - to;
    if (k > 38) { *out = 0; return 1; } /* every digit dropped: |v| < 10^38 <= half of 10^k */
    i128 d = pow10_i128(k), q = v / d, r = v % d;
    if (r < 0) r = -r;
    if (r * 2 >= d) q += v < 0 ? -1 : 1;
    *out = q;
    return fits(q, precision);
}

/*
 * Text as Java's new BigDecimal(text.trim()) reads it ("-1.5", "+2", ".5", "1.0E10", "1e-3"), at `scale` digits
 * after the point, half up: 1 with the unscaled value in *out when it has `precision` digits or fewer; 0 when the
 * text is no number (NaN and Infinity included) or the value does not fit (what Spark's cast makes a null).
 */
static int text_to_decimal(const uint8_t *p, size_t n, int precision, int scale, i128 *out)
{
    while (n && p[0] <= ' ') p++, n--;
    while (n && p[n - 1] <= ' ') n--;
    size_t i = 0;
    int neg = 0, nd = 0, seen = 0, frac = 0;
    uint8_t dg[80]; /* significant digits: more cannot fit 38 digits, nor move a rounding within them */
    int64_t e = 0;  /* the value: dg as an integer times 10^e */
    if (i < n && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
    for (; i < n; i++) {
        if (p[i] == '.') {
            if (frac) return 0;
            frac = 1;
            continue;
        }
        if (p[i] < '0' || p[i] > '9') break;
        seen = 1;
        if (nd == (int)sizeof dg) { if (!frac) e++; continue; }
        if (frac) e--;
        if (nd || p[i] != '0') dg[nd++] = (uint8_t)(p[i] - '0');
    }
    if (!seen) return 0;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        int eneg = 0, edig = 0;
        int64_t x = 0;
        if (++i < n && (p[i] == '+' || p[i] == '-')) eneg = p[i++] == '-';
        for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, edig++)
            if (x < 1000000000) x = x * 10 + (p[i] - '0');
        if (!edig) return 0;
        e += eneg ? -x : x;
    }
    if (i != n) return 0;
    if (!nd) { *out = 0; return 1; }
    int64_t sh = e + scale; /* the unscaled value: dg times 10^sh */
    i128 u = 0;
    if (sh >= 0) {
        if (nd + sh > precision) return 0;
        for (int k = 0; k < nd; k++) u = u * 10 + dg[k];
        u *= pow10_i128((int)sh);
    } else {
        int64_t keep = nd + sh; /* digits left of the rounding one */
        if (keep > precision) return 0;
        for (int64_t k = 0; k < keep; k++) u = u * 10 + dg[k];
        if (keep >= 0 && dg[keep] >= 5) u++;
        if (!fits(u, precision)) return 0;
    }
    *out = neg ? -u : u;
    return 1;
}

/* Text as Spark casts it to a date (DateTimeUtils.stringToDate): trimmed, [+-]yyyy[-[m]m[-[d]d]] with 4 to 7 year
 * digits, then nothing, or a space or 'T' and anything. 1 with the days since 1970-01-01, 0 when it is no date. */
static int text_to_date(const uint8_t *p, size_t n, int64_t *days)
{
    while (n && (p[0] <= ' ' || p[0] == 0x7f)) p++, n--;
    while (n && (p[n - 1] <= ' ' || p[n - 1] == 0x7f)) n--;
    size_t i = 0;
    int neg = 0;
    int64_t seg[3] = { 0, 1, 1 };
    if (i < n && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
    for (int s = 0; s < 3; s++) {
        size_t start = i;
        int64_t v = 0;
        while (i < n && p[i] >= '0' && p[i] <= '9' && i - start < 8) v = v * 10 + (p[i++] - '0');
        size_t len = i - start;
        if (s == 0 ? len < 4 || len > 7 : len < 1 || len > 2) return 0;
        seg[s] = v;
        if (i == n) break;
        if (s < 2 && p[i] == '-') { i++; continue; }
        if (s == 2 && (p[i] == ' ' || p[i] == 'T')) break; /* a time may follow the day only */
        return 0;
    }
    int64_t y = neg ? -seg[0] : seg[0], m = seg[1], d = seg[2];
    if (!hoodie_civil_date_valid(y, m, d)) return 0;
    *days = hoodie_days_from_civil(y, (unsigned)m, (unsigned)d);
    return 1;
}

/* The unscaled value of row r of a decimal column. */
static i128 decimal_at(const hoodie_array *a, int64_t r)
{
    i128 v;
    memcpy(&v, a->values + 16 * (size_t)r, 16); /* little-endian two's complement, as hoodie_array_append_decimal128 */
    return v;
}

/* 1 if a column of type s (sf) may be read as t (tf): the widenings Avro's schema resolution promotes, or a
 * conversion of a type change Hudi's schema evolution allows (hoodie_conform_is_retype). */
static int convertible(const hoodie_field *sf, const hoodie_field *tf)
{
    hoodie_type_id s = sf->type.id, t = tf->type.id;
    if (hoodie_type_is_int(s) && hoodie_type_is_int(t) &&
        (t == HOODIE_TYPE_INT64 || hoodie_type_fixed_width(&tf->type) >= hoodie_type_fixed_width(&sf->type)))
        return 1;
    if ((hoodie_type_is_int(s) || s == HOODIE_TYPE_FLOAT) && is_real(t)) return 1;
    if ((s == HOODIE_TYPE_STRING && t == HOODIE_TYPE_BINARY) || (s == HOODIE_TYPE_BINARY && t == HOODIE_TYPE_STRING))
        return 1;
    return hoodie_conform_is_retype(sf, tf);
}

/*
 * One value of row r of src (field sf) appended to dst as tf. Numbers to text as Java's String.valueOf writes them
 * ("12", "1.0E10", "0.1" for 0.1f), decimals as BigDecimal.toString ("1.50", "1E-7"), dates as yyyy-mm-dd (what
 * HoodieAvroUtils and Spark's cast give); to a decimal by value, half up at the target's scale, numbers with a
 * fraction through their Java text (Hudi converts them so: 0.1 is 0.1, not the double's binary expansion); text
 * to a decimal or a date as Spark's cast reads it. A value that does not fit the decimal, or text that is no
 * number or no date, becomes a null (Spark's cast, ANSI mode off).
 */
hoodie_status hoodie_conform_append(hoodie_array *dst, const hoodie_field *tf, const hoodie_array *src,
                                   const hoodie_field *sf, int64_t r, hoodie_buf *tmp)
{
    hoodie_type_id s = sf->type.id, t = tf->type.id;
    if (s == HOODIE_TYPE_STRING || s == HOODIE_TYPE_BINARY) {
        size_t n;
        const uint8_t *p = hoodie_array_bytes_at(src, r, &n);
        if (t == HOODIE_TYPE_DECIMAL) {
            i128 v;
            if (!text_to_decimal(p, n, tf->type.precision, tf->type.scale, &v)) return hoodie_array_append_null(dst, tf);
            return hoodie_array_append_decimal128(dst, tf, (int64_t)(v >> 64), (uint64_t)v);
        }
        if (t == HOODIE_TYPE_DATE32) {
            int64_t days;
            if (!text_to_date(p, n, &days)) return hoodie_array_append_null(dst, tf);
            return hoodie_array_append_int(dst, tf, days);
        }
        return hoodie_array_append_bytes(dst, tf, p, n);
    }
    if (t == HOODIE_TYPE_STRING) {
        tmp->len = 0;
        HOODIE_TRY(hoodie_value_to_key(tmp, sf, src, r)); /* String.valueOf of the value (valid here) */
        return hoodie_array_append_bytes(dst, tf, tmp->data, tmp->len);
    }
    if (t == HOODIE_TYPE_DECIMAL) {
        i128 v;
        int ok;
        if (is_real(s)) {
            tmp->len = 0;
            HOODIE_TRY(hoodie_value_to_key(tmp, sf, src, r));
            ok = text_to_decimal(tmp->data, tmp->len, tf->type.precision, tf->type.scale, &v);
        } else {
            i128 u = s == HOODIE_TYPE_DECIMAL ? decimal_at(src, r) : (i128)hoodie_array_int_at(sf, src, r);
            ok = rescale(u, s == HOODIE_TYPE_DECIMAL ? sf->type.scale : 0, tf->type.scale, tf->type.precision, &v);
        }
        if (!ok) return hoodie_array_append_null(dst, tf);
        return hoodie_array_append_decimal128(dst, tf, (int64_t)(v >> 64), (uint64_t)v);
    }
    if (is_real(t)) {
        double v = s == HOODIE_TYPE_FLOAT ? (double)((const float *)src->values)[r] : (double)hoodie_array_int_at(sf, src, r);
        return hoodie_array_append_double(dst, tf, v);
    }
    return hoodie_array_append_int(dst, tf, hoodie_array_int_at(sf, src, r));
}

int hoodie_conform_is_retype(const hoodie_field *from, const hoodie_field *to)
{
    hoodie_type_id s = from->type.id, t = to->type.id;
    if (t == HOODIE_TYPE_STRING)
        return hoodie_type_is_int(s) || is_real(s) || s == HOODIE_TYPE_DECIMAL || s == HOODIE_TYPE_DATE32;
    if (t == HOODIE_TYPE_DECIMAL)
        return hoodie_type_is_int(s) || is_real(s) || s == HOODIE_TYPE_STRING ||
               (s == HOODIE_TYPE_DECIMAL && from->type.scale != to->type.scale);
    return t == HOODIE_TYPE_DATE32 && s == HOODIE_TYPE_STRING;
}

/* Convert column `src` (field sf) into a new array for field tf by value. */
static hoodie_status promote(hoodie_array *dst, const hoodie_field *tf, const hoodie_array *src, const hoodie_field *sf)
{
    if (!convertible(sf, tf)) {
        char a[64], b[64];
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "column '%s' of type %s cannot be read as %s", tf->name,
                           hoodie_type_name(&sf->type, a, sizeof a), hoodie_type_name(&tf->type, b, sizeof b));
    }
    HOODIE_TRY(hoodie_array_init(dst, tf));
    hoodie_buf tmp = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    for (int64_t r = 0; r < src->length && rc == HOODIE_OK; r++)
        rc = hoodie_array_is_valid(src, r) ? hoodie_conform_append(dst, tf, src, sf, r, &tmp) : hoodie_array_append_null(dst, tf);
    hoodie_buf_dispose(&tmp);
    if (rc < 0) hoodie_array_dispose(dst);
    return rc;
}

static hoodie_status conform_array(hoodie_array *dst, const hoodie_field *tf, hoodie_array *src,
                                   const hoodie_field *sf);

static hoodie_status conform_struct_children(hoodie_array *dst, const hoodie_field *tf, hoodie_array *src,
                                             const hoodie_field *sf, int64_t rows)
{
    for (size_t i = 0; i < tf->n_children; i++) {
        const hoodie_field *tc = &tf->children[i];
        int si = hoodie_field_find(sf, tc->name);
        hoodie_array_dispose(&dst->children[i]);
        if (si < 0) {
            if (!tc->nullable)
                return HOODIE_FAIL(HOODIE_EINVAL, "column '%s' is missing and not nullable", tc->name);
            HOODIE_TRY(hoodie_array_init(&dst->children[i], tc));
            HOODIE_TRY(hoodie_array_append_nulls(&dst->children[i], tc, rows));
        } else {
            HOODIE_TRY(conform_array(&dst->children[i], tc, &src->children[si], &sf->children[si]));
        }
    }
    return HOODIE_OK;
}

static int same_shape(const hoodie_field *a, const hoodie_field *b)
{
    if (a->type.id != b->type.id) return 0;
    switch (a->type.id) {
    case HOODIE_TYPE_FIXED_BINARY: return a->type.width == b->type.width;
    case HOODIE_TYPE_DECIMAL: return a->type.scale == b->type.scale;
    case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: case HOODIE_TYPE_TIMESTAMP: return a->type.unit == b->type.unit;
    case HOODIE_TYPE_STRUCT: {
        if (a->n_children != b->n_children) return 0;
        for (size_t i = 0; i < a->n_children; i++)
            if (strcmp(a->children[i].name, b->children[i].name) || !same_shape(&a->children[i], &b->children[i]))
                return 0;
        return 1;
    }
    case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP:
        return a->n_children == b->n_children && same_shape(&a->children[0], &b->children[0]);
    default: return 1;
    }
}

static hoodie_status conform_array(hoodie_array *dst, const hoodie_field *tf, hoodie_array *src,
                                   const hoodie_field *sf)
{
    if (same_shape(tf, sf)) {
        *dst = *src; /* move */
        memset(src, 0, sizeof *src);
        return HOODIE_OK;
    }
    if (tf->type.id == HOODIE_TYPE_STRUCT && sf->type.id == HOODIE_TYPE_STRUCT) {
        HOODIE_TRY(hoodie_array_init(dst, tf));
        hoodie_status rc = conform_struct_children(dst, tf, src, sf, src->length);
        if (rc < 0) return rc;
        dst->length = src->length;
        dst->null_count = src->null_count;
        dst->validity = src->validity;
        dst->validity_cap = src->validity_cap;
        src->validity = NULL;
        src->validity_cap = 0;
        return HOODIE_OK;
    }
    if ((tf->type.id == HOODIE_TYPE_LIST || tf->type.id == HOODIE_TYPE_MAP) && tf->type.id == sf->type.id) {
        HOODIE_TRY(hoodie_array_init(dst, tf));
        hoodie_array_dispose(&dst->children[0]);
        HOODIE_TRY(conform_array(&dst->children[0], &tf->children[0], &src->children[0], &sf->children[0]));
        dst->length = src->length;
        dst->null_count = src->null_count;
        dst->validity = src->validity;
        dst->validity_cap = src->validity_cap;
        dst->offsets = src->offsets;
        dst->offsets_cap = src->offsets_cap;
        src->validity = NULL;
        src->offsets = NULL;
        src->validity_cap = src->offsets_cap = 0;
        return HOODIE_OK;
    }
    return promote(dst, tf, src, sf);
}

hoodie_status hoodie_conform_batch(hoodie_batch *out, const hoodie_field *target, hoodie_batch *src)
{
    HOODIE_TRY(hoodie_batch_init(out, target));
    hoodie_status rc = conform_struct_children(&out->root, &out->schema, &src->root, &src->schema,
                                               src->root.length);
    if (rc < 0) { hoodie_batch_dispose(out); return rc; }
    out->root.length = src->root.length;
    return HOODIE_OK;
}

