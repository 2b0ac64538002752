#include "model/build.h"
#include "util/error.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ---- bitmaps ---- */

void hoodie_bits_copy(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off, int64_t count)
{
    if (count <= 0) return;
    if ((dst_off & 7) == 0 && (src_off & 7) == 0) {
        int64_t whole = count >> 3;
        memcpy(dst + (dst_off >> 3), src + (src_off >> 3), (size_t)whole);
        for (int64_t i = whole << 3; i < count; i++) {
            if (hoodie_bit_get(src, src_off + i)) hoodie_bit_set(dst, dst_off + i);
            else hoodie_bit_clear(dst, dst_off + i);
        }
        return;
    }
    /* Align the destination, then assemble each destination byte from two source bytes. */
    int64_t i = 0;
    while (i < count && ((dst_off + i) & 7) != 0) {
        if (hoodie_bit_get(src, src_off + i)) hoodie_bit_set(dst, dst_off + i);
        else hoodie_bit_clear(dst, dst_off + i);
        i++;
    }
    int64_t s = src_off + i, shift = s & 7;
    uint8_t *d = dst + ((dst_off + i) >> 3);
    const uint8_t *sp = src + (s >> 3);
    while (count - i >= 8) {
        /* The second source byte is only read when the shift needs it and it lies within the range. */
        unsigned v = sp[0] >> shift;
        if (shift) v |= (unsigned)sp[1] << (8 - shift);
        *d++ = (uint8_t)v;
        sp++;
        i += 8;
    }
    for (; i < count; i++) {
        if (hoodie_bit_get(src, src_off + i)) hoodie_bit_set(dst, dst_off + i);
        else hoodie_bit_clear(dst, dst_off + i);
    }
}

/* Set bits of a word (SWAR: the generic build has no POPCNT instruction, and libgcc's fallback is a call). */
static inline int popcount64(uint64_t w)
{
    w = w - ((w >> 1) & 0x5555555555555555ULL);
    w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((w * 0x0101010101010101ULL) >> 56);
}

int64_t hoodie_bits_count(const uint8_t *bits, int64_t off, int64_t count)
{
    int64_t n = 0, i = 0;
    while (i < count && ((off + i) & 7) != 0) { n += hoodie_bit_get(bits, off + i); i++; }
    const uint8_t *p = bits + ((off + i) >> 3);
    for (; count - i >= 64; i += 64, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        n += popcount64(w);
    }
    for (; count - i >= 8; i += 8, p++) n += popcount64(*p);
    for (; i < count; i++) n += hoodie_bit_get(bits, off + i);
    return n;
}

static void bits_fill(uint8_t *bits, int64_t off, int64_t count, int v)
{
    int64_t i = 0;
    for (; i < count && ((off + i) & 7); i++) { /* to a byte boundary, then whole bytes */
        if (v) hoodie_bit_set(bits, off + i); else hoodie_bit_clear(bits, off + i);
    }
    if (count - i >= 8) {
        int64_t bytes = (count - i) / 8;
        memset(bits + (off + i) / 8, v ? 0xff : 0, (size_t)bytes);
        i += bytes * 8;
    }
    for (; i < count; i++) {
        if (v) hoodie_bit_set(bits, off + i); else hoodie_bit_clear(bits, off + i);
    }
}

/* ---- appending one value ---- */

static inline int is_var(hoodie_type_id id) { return id == HOODIE_TYPE_STRING || id == HOODIE_TYPE_BINARY; }
static inline int is_listy(hoodie_type_id id) { return id == HOODIE_TYPE_LIST || id == HOODIE_TYPE_MAP; }

/* Whether one more row (with `bytes` value bytes in all, for var-width types) fits the buffers as they are: the
 * common case, checked here so that appends skip hoodie_array_reserve. */
static inline int has_room(const hoodie_array *a, const hoodie_field *f, size_t bytes)
{
    size_t n = (size_t)a->length + 1;
    if (a->validity && (n + 7) / 8 > a->validity_cap) return 0;
    switch (f->type.id) {
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY:
        return bytes <= a->values_cap && (n + 1) * sizeof(int32_t) <= a->offsets_cap;
    case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP: return (n + 1) * sizeof(int32_t) <= a->offsets_cap;
    case HOODIE_TYPE_BOOL: return (n + 7) / 8 <= a->values_cap;
    case HOODIE_TYPE_STRUCT: case HOODIE_TYPE_NULL: return 1;
    case HOODIE_TYPE_INT32: case HOODIE_TYPE_DATE32: case HOODIE_TYPE_FLOAT: return n * 4 <= a->values_cap;
    case HOODIE_TYPE_INT64: case HOODIE_TYPE_DOUBLE: case HOODIE_TYPE_TIMESTAMP: return n * 8 <= a->values_cap;
    default: return 0;
    }
}

static hoodie_status row_begin(hoodie_array *a, const hoodie_field *f, size_t extra_bytes, int null)
{
    if (!null && has_room(a, f, a->values_len + extra_bytes) && a->values_len + extra_bytes <= INT32_MAX)
        return HOODIE_OK;
    size_t bytes = a->values_len;
    if (extra_bytes) {
        if (hoodie_add_overflow(bytes, extra_bytes, &bytes) || bytes > INT32_MAX)
            return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "column '%s': more than 2 GiB of values in one array", f->name);
    }
    if (null) HOODIE_TRY(hoodie_array_materialize_validity(a, a->length + 1));
    return hoodie_array_reserve(a, f, a->length + 1, bytes);
}

static void row_finish(hoodie_array *a, int null)
{
    if (null) {
        hoodie_bit_clear(a->validity, a->length);
        a->null_count++;
    } else if (a->validity) {
        hoodie_bit_set(a->validity, a->length);
    }
    a->length++;
}

/* Append a null (null=1) or a zero/empty placeholder (null=0). */
static hoodie_status push_empty(hoodie_array *a, const hoodie_field *f, int null)
{
    if (f->type.id == HOODIE_TYPE_NULL) { a->length++; a->null_count++; return HOODIE_OK; }
    HOODIE_TRY(row_begin(a, f, 0, null));
    switch (f->type.id) {
    case HOODIE_TYPE_BOOL: hoodie_bit_clear(a->values, a->length); break;
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP:
        a->offsets[a->length + 1] = a->offsets[a->length];
        break;
    case HOODIE_TYPE_STRUCT:
        for (size_t i = 0; i < a->n_children; i++)
            HOODIE_TRY(push_empty(&a->children[i], &f->children[i], f->children[i].nullable));
        break;
    default: {
        size_t w = hoodie_type_fixed_width(&f->type);
        memset(a->values + (size_t)a->length * w, 0, w);
    }
    }
    row_finish(a, null);
    return HOODIE_OK;
}

hoodie_status hoodie_array_append_null(hoodie_array *a, const hoodie_field *f) { return push_empty(a, f, 1); }

hoodie_status hoodie_array_append_nulls(hoodie_array *a, const hoodie_field *f, int64_t n)
{
    if (n <= 0) return HOODIE_OK;
    if (f->type.id == HOODIE_TYPE_NULL) { a->length += n; a->null_count += n; return HOODIE_OK; }
    if (f->type.id == HOODIE_TYPE_STRUCT) { /* children get their own placeholders: row by row */
        for (int64_t i = 0; i < n; i++) HOODIE_TRY(push_empty(a, f, 1));
        return HOODIE_OK;
    }
    HOODIE_TRY(hoodie_array_materialize_validity(a, a->length + n));
    HOODIE_TRY(hoodie_array_reserve(a, f, a->length + n, a->values_len));
    bits_fill(a->validity, a->length, n, 0);
    switch (f->type.id) {
    case HOODIE_TYPE_BOOL: bits_fill(a->values, a->length, n, 0); break;
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP:
        for (int64_t i = 1; i <= n; i++) a->offsets[a->length + i] = a->offsets[a->length];
        break;
    default: {
        size_t w = hoodie_type_fixed_width(&f->type);
        memset(a->values + (size_t)a->length * w, 0, (size_t)n * w);
    }
    }
    a->length += n;
    a->null_count += n;
    return HOODIE_OK;
}

hoodie_status hoodie_array_append_bool(hoodie_array *a, const hoodie_field *f, int v)
{
    if (f->type.id != HOODIE_TYPE_BOOL) return HOODIE_FAIL(HOODIE_EINVAL, "column '%s' is not boolean", f->name);
    HOODIE_TRY(row_begin(a, f, 0, 0));
    if (v) hoodie_bit_set(a->values, a->length); else hoodie_bit_clear(a->values, a->length);
    row_finish(a, 0);
    return HOODIE_OK;
}

static hoodie_status put_fixed(hoodie_array *a, const hoodie_field *f, const void *p, size_t w)
{
    HOODIE_TRY(row_begin(a, f, 0, 0));
    memcpy(a->values + (size_t)a->length * w, p, w);
    row_finish(a, 0);
    return HOODIE_OK;
}

hoodie_status hoodie_array_append_int(hoodie_array *a, const hoodie_field *f, int64_t v)
{
    switch (f->type.id) {
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_UINT8: { uint8_t x = (uint8_t)v; return put_fixed(a, f, &x, 1); }
    case HOODIE_TYPE_INT16: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_FLOAT16: { uint16_t x = (uint16_t)v; return put_fixed(a, f, &x, 2); }
    case HOODIE_TYPE_INT32: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_DATE32: case HOODIE_TYPE_TIME32: {
        uint32_t x = (uint32_t)v;
        return put_fixed(a, f, &x, 4);
    }
    case HOODIE_TYPE_INT64: case HOODIE_TYPE_UINT64: case HOODIE_TYPE_TIME64: case HOODIE_TYPE_TIMESTAMP:
        return put_fixed(a, f, &v, 8);
    case HOODIE_TYPE_DECIMAL: return hoodie_array_append_decimal128(a, f, v < 0 ? -1 : 0, (uint64_t)v);
    default: return HOODIE_FAIL(HOODIE_EINVAL, "column '%s' does not hold integers", f->name);
    }
}

hoodie_status hoodie_array_append_uint(hoodie_array *a, const hoodie_field *f, uint64_t v)
{
    if (f->type.id == HOODIE_TYPE_DECIMAL) return hoodie_array_append_decimal128(a, f, 0, v);
    return hoodie_array_append_int(a, f, (int64_t)v);
}

hoodie_status hoodie_array_append_double(hoodie_array *a, const hoodie_field *f, double v)
{
    if (f->type.id == HOODIE_TYPE_DOUBLE) return put_fixed(a, f, &v, 8);
    if (f->type.id == HOODIE_TYPE_FLOAT) { float x = (float)v; return put_fixed(a, f, &x, 4); }
    return HOODIE_FAIL(HOODIE_EINVAL, "column '%s' is not floating point", f->name);
}

hoodie_status hoodie_array_append_float(hoodie_array *a, const hoodie_field *f, float v)
{
    if (f->type.id == HOODIE_TYPE_FLOAT) return put_fixed(a, f, &v, 4);
    return hoodie_array_append_double(a, f, v);
}

hoodie_status hoodie_array_append_bytes(hoodie_array *a, const hoodie_field *f, const void *p, size_t len)
{
    if (is_var(f->type.id)) {
        HOODIE_TRY(row_begin(a, f, len ? len : 0, 0));
        if (len) memcpy(a->values + a->values_len, p, len);
        a->values_len += len;
        a->offsets[a->length + 1] = (int32_t)a->values_len;
        row_finish(a, 0);
        return HOODIE_OK;
    }
    if (f->type.id == HOODIE_TYPE_FIXED_BINARY || f->type.id == HOODIE_TYPE_DECIMAL) {
        size_t w = hoodie_type_fixed_width(&f->type);
        if (len != w)
            return HOODIE_FAIL(HOODIE_EINVAL, "column '%s': value of %zu bytes, want %zu", f->name, len, w);
        return put_fixed(a, f, p, w);
    }
    return HOODIE_FAIL(HOODIE_EINVAL, "column '%s' does not hold bytes", f->name);
}

hoodie_status hoodie_array_append_decimal128(hoodie_array *a, const hoodie_field *f, int64_t hi, uint64_t lo)
{
    if (f->type.id != HOODIE_TYPE_DECIMAL) return HOODIE_FAIL(HOODIE_EINVAL, "column '%s' is not decimal", f->name);
    uint8_t b[16];
    uint64_t h = (uint64_t)hi;
    for (int i = 0; i < 8; i++) { b[i] = (uint8_t)(lo >> (8 * i)); b[8 + i] = (uint8_t)(h >> (8 * i)); }
    return put_fixed(a, f, b, 16);
}

hoodie_status hoodie_array_struct_end(hoodie_array *a, const hoodie_field *f)
{
    if (f->type.id != HOODIE_TYPE_STRUCT) return HOODIE_FAIL(HOODIE_EINVAL, "column '%s' is not a struct", f->name);
    for (size_t i = 0; i < a->n_children; i++)
        if (a->children[i].length != a->length + 1)
            return HOODIE_FAIL(HOODIE_EINVAL, "struct '%s': field '%s' has %lld values, want %lld", f->name,
                               f->children[i].name, (long long)a->children[i].length, (long long)a->length + 1);
    HOODIE_TRY(row_begin(a, f, 0, 0));
    row_finish(a, 0);
    return HOODIE_OK;
}

hoodie_status hoodie_array_list_end(hoodie_array *a, const hoodie_field *f)
{
    if (!is_listy(f->type.id)) return HOODIE_FAIL(HOODIE_EINVAL, "column '%s' is not a list or map", f->name);
    if (a->children[0].length > INT32_MAX)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "column '%s': more than 2^31 list elements", f->name);
    HOODIE_TRY(row_begin(a, f, 0, 0));
    a->offsets[a->length + 1] = (int32_t)a->children[0].length;
    row_finish(a, 0);
    return HOODIE_OK;
}

/* ---- ranges ---- */

/* Validity of rows appended from src (rows [start, start+count)); returns the nulls added. */
static hoodie_status copy_validity(hoodie_array *dst, const hoodie_array *src, int64_t start, int64_t count)
{
    int64_t nulls = src->validity ? count - hoodie_bits_count(src->validity, start, count) : 0;
    if (nulls == 0 && !dst->validity) return HOODIE_OK;
    HOODIE_TRY(hoodie_array_materialize_validity(dst, dst->length + count));
    if (src->validity) hoodie_bits_copy(dst->validity, dst->length, src->validity, start, count);
    else bits_fill(dst->validity, dst->length, count, 1);
    dst->null_count += nulls;
    return HOODIE_OK;
}

hoodie_status hoodie_array_append_range(hoodie_array *dst, const hoodie_field *f, const hoodie_array *src,
                                        int64_t start, int64_t count)
{
    if (count <= 0) return HOODIE_OK;
    if (start < 0 || start + count > src->length)
        return HOODIE_FAIL(HOODIE_EINVAL, "rows [%lld, +%lld) out of range (%lld rows)", (long long)start,
                           (long long)count, (long long)src->length);
    if (f->type.id == HOODIE_TYPE_NULL) { dst->length += count; dst->null_count += count; return HOODIE_OK; }
    size_t bytes = dst->values_len;
    int32_t base = 0, end = 0;
    if (is_var(f->type.id) || is_listy(f->type.id)) {
        base = src->offsets[start];
        end = src->offsets[start + count];
        if (is_var(f->type.id) && (hoodie_add_overflow(bytes, (size_t)(end - base), &bytes) || bytes > INT32_MAX))
            return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "column '%s': more than 2 GiB of values in one array", f->name);
    }
    HOODIE_TRY(hoodie_array_reserve(dst, f, dst->length + count, bytes));
    HOODIE_TRY(copy_validity(dst, src, start, count));
    switch (f->type.id) {
    case HOODIE_TYPE_BOOL:
        hoodie_bits_copy(dst->values, dst->length, src->values, start, count);
        break;
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP: {
        int32_t d0 = dst->offsets[dst->length];
        if (is_listy(f->type.id)) {
            if (dst->children[0].length + (end - base) > INT32_MAX)
                return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "column '%s': more than 2^31 list elements", f->name);
            HOODIE_TRY(hoodie_array_append_range(&dst->children[0], &f->children[0], &src->children[0], base,
                                                 end - base));
        } else if (end > base) {
            memcpy(dst->values + dst->values_len, src->values + base, (size_t)(end - base));
            dst->values_len += (size_t)(end - base);
        }
        int32_t *o = dst->offsets + dst->length + 1;
        const int32_t *s = src->offsets + start + 1;
        int32_t delta = d0 - base;
        for (int64_t i = 0; i < count; i++) o[i] = s[i] + delta;
        break;
    }
    case HOODIE_TYPE_STRUCT:
        for (size_t i = 0; i < dst->n_children; i++)
            HOODIE_TRY(hoodie_array_append_range(&dst->children[i], &f->children[i], &src->children[i], start,
                                                 count));
        break;
    default: {
        size_t w = hoodie_type_fixed_width(&f->type);
        memcpy(dst->values + (size_t)dst->length * w, src->values + (size_t)start * w, (size_t)count * w);
    }
    }
    dst->length += count;
    return HOODIE_OK;
}

/* ---- gather ---- */

/* How many selections from sel[i] on name consecutive rows of one source (at least 1; sel[i].row >= 0). */
static size_t run_length(const hoodie_row_ref *sel, size_t i, size_t n)
{
    size_t j = i + 1;
    while (j < n && sel[j].source == sel[i].source && sel[j].row == sel[i].row + (int64_t)(j - i)) j++;
    return j - i;
}

static hoodie_status gather(hoodie_array *dst, const hoodie_field *f, const hoodie_array *const *srcs,
                            size_t n_srcs, const hoodie_row_ref *sel, size_t n)
{
    if (n == 0) return HOODIE_OK;
    for (size_t i = 0; i < n; i++)
        if (sel[i].row >= 0 && (sel[i].source >= n_srcs || sel[i].row >= srcs[sel[i].source]->length))
            return HOODIE_FAIL(HOODIE_EINVAL, "take: row %lld of source %u out of range", (long long)sel[i].row,
                               (unsigned)sel[i].source);
    if (f->type.id == HOODIE_TYPE_NULL) {
        dst->length += (int64_t)n; dst->null_count += (int64_t)n;
        return HOODIE_OK;
    }
    /* validity */
    int64_t nulls = 0;
    for (size_t i = 0; i < n; i++)
        if (sel[i].row < 0 || !hoodie_array_is_valid(srcs[sel[i].source], sel[i].row)) nulls++;
    size_t bytes = dst->values_len;
    if (is_var(f->type.id)) {
        for (size_t i = 0; i < n; i++) {
            if (sel[i].row < 0) continue;
            const int32_t *o = srcs[sel[i].source]->offsets + sel[i].row;
            if (hoodie_add_overflow(bytes, (size_t)(o[1] - o[0]), &bytes) || bytes > INT32_MAX)
                return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "column '%s': more than 2 GiB of values in one array",
                                   f->name);
        }
    }
    HOODIE_TRY(hoodie_array_reserve(dst, f, dst->length + (int64_t)n, bytes));
    if (nulls || dst->validity) {
        HOODIE_TRY(hoodie_array_materialize_validity(dst, dst->length + (int64_t)n));
        for (size_t i = 0; i < n; i++) {
            if (sel[i].row < 0 || !hoodie_array_is_valid(srcs[sel[i].source], sel[i].row))
                hoodie_bit_clear(dst->validity, dst->length + (int64_t)i);
            else
                hoodie_bit_set(dst->validity, dst->length + (int64_t)i);
        }
    }
    hoodie_status rc = HOODIE_OK;
    int64_t L = dst->length;
    switch (f->type.id) {
    case HOODIE_TYPE_BOOL:
        for (size_t i = 0; i < n; i++) {
            int v = sel[i].row >= 0 && hoodie_bit_get(srcs[sel[i].source]->values, sel[i].row);
            if (v) hoodie_bit_set(dst->values, L + (int64_t)i); else hoodie_bit_clear(dst->values, L + (int64_t)i);
        }
        break;
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: {
        int32_t *o = dst->offsets + L;
        for (size_t i = 0; i < n;) {
            if (sel[i].row < 0) { o[i + 1] = (int32_t)dst->values_len; i++; continue; }
            /* a run of consecutive rows of one source: one copy of its bytes, its offsets rebased */
            size_t k = run_length(sel, i, n);
            const hoodie_array *s = srcs[sel[i].source];
            const int32_t *so = s->offsets + sel[i].row;
            int32_t b = so[0], e = so[k];
            if (e > b) memcpy(dst->values + dst->values_len, s->values + b, (size_t)(e - b));
            int32_t delta = (int32_t)dst->values_len - b;
            for (size_t j = 1; j <= k; j++) o[i + j] = so[j] + delta;
            dst->values_len += (size_t)(e - b);
            i += k;
        }
        break;
    }
    case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP: {
        size_t total = 0;
        for (size_t i = 0; i < n; i++) {
            if (sel[i].row < 0) continue;
            const int32_t *so = srcs[sel[i].source]->offsets + sel[i].row;
            total += (size_t)(so[1] - so[0]);
        }
        if ((size_t)dst->children[0].length + total > INT32_MAX)
            return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "column '%s': more than 2^31 list elements", f->name);
        hoodie_row_ref *csel = malloc((total ? total : 1) * sizeof *csel);
        const hoodie_array **csrcs = malloc(n_srcs * sizeof *csrcs);
        if (!csel || !csrcs) { free(csel); free(csrcs); return HOODIE_NOMEM(); }
        for (size_t k = 0; k < n_srcs; k++) csrcs[k] = &srcs[k]->children[0];
        int32_t *o = dst->offsets + L;
        int32_t cur = o[0];
        size_t j = 0;
        for (size_t i = 0; i < n; i++) {
            if (sel[i].row >= 0) {
                const int32_t *so = srcs[sel[i].source]->offsets + sel[i].row;
                for (int32_t r = so[0]; r < so[1]; r++) { csel[j].source = sel[i].source; csel[j].row = r; j++; }
                cur += so[1] - so[0];
            }
            o[i + 1] = cur;
        }
        rc = gather(&dst->children[0], &f->children[0], csrcs, n_srcs, csel, total);
        free(csel);
        free(csrcs);
        break;
    }
    case HOODIE_TYPE_STRUCT: {
        const hoodie_array **csrcs = malloc((n_srcs ? n_srcs : 1) * sizeof *csrcs);
        if (!csrcs) return HOODIE_NOMEM();
        for (size_t c = 0; c < dst->n_children && rc == HOODIE_OK; c++) {
            for (size_t k = 0; k < n_srcs; k++) csrcs[k] = &srcs[k]->children[c];
            rc = gather(&dst->children[c], &f->children[c], csrcs, n_srcs, sel, n);
        }
        free(csrcs);
        break;
    }
    default: {
        size_t w = hoodie_type_fixed_width(&f->type);
        uint8_t *d = dst->values + (size_t)L * w;
        for (size_t i = 0; i < n; i++, d += w) {
            if (sel[i].row < 0) { memset(d, 0, w); continue; }
            if (i + 1 < n && sel[i + 1].source == sel[i].source && sel[i + 1].row == sel[i].row + 1) {
                size_t k = run_length(sel, i, n);
                memcpy(d, srcs[sel[i].source]->values + (size_t)sel[i].row * w, k * w);
                i += k - 1;
                d += (k - 1) * w;
                continue;
            }
            const uint8_t *s = srcs[sel[i].source]->values + (size_t)sel[i].row * w;
            switch (w) {
            case 1: *d = *s; break;
            case 2: memcpy(d, s, 2); break;
            case 4: memcpy(d, s, 4); break;
            case 8: memcpy(d, s, 8); break;
            case 16: memcpy(d, s, 16); break;
            default: memcpy(d, s, w);
            }
        }
    }
    }
    if (rc < 0) return rc;
    dst->null_count += nulls;
    dst->length += (int64_t)n;
    return HOODIE_OK;
}

hoodie_status hoodie_array_take_multi(hoodie_array *dst, const hoodie_field *f, const hoodie_array *const *srcs,
                                      size_t n_srcs, const hoodie_row_ref *sel, size_t n)
{
    return gather(dst, f, srcs, n_srcs, sel, n);
}

hoodie_status hoodie_array_take(hoodie_array *dst, const hoodie_field *f, const hoodie_array *src,
                                const int64_t *rows, size_t n)
{
    if (n == 0) return HOODIE_OK;
    hoodie_row_ref *sel = malloc(n * sizeof *sel);
    if (!sel) return HOODIE_NOMEM();
    for (size_t i = 0; i < n; i++) { sel[i].source = 0; sel[i].row = rows[i]; }
    const hoodie_array *s = src;
    hoodie_status rc = gather(dst, f, &s, 1, sel, n);
    free(sel);
    return rc;
}

/* ---- batches ---- */

hoodie_status hoodie_batch_take(hoodie_batch *dst, const hoodie_batch *const *srcs, size_t n_srcs,
                                const hoodie_row_ref *sel, size_t n)
{
    for (size_t k = 0; k < n_srcs; k++)
        if (!hoodie_field_compatible(&dst->schema, &srcs[k]->schema))
            return HOODIE_FAIL(HOODIE_EINVAL, "take: source %zu has an incompatible schema", k);
    for (size_t i = 0; i < n; i++)
        if (sel[i].row < 0) return HOODIE_FAIL(HOODIE_EINVAL, "take: a batch row cannot be null");
    const hoodie_array **roots = malloc((n_srcs ? n_srcs : 1) * sizeof *roots);
    if (!roots) return HOODIE_NOMEM();
    for (size_t k = 0; k < n_srcs; k++) roots[k] = &srcs[k]->root;
    hoodie_status rc = gather(&dst->root, &dst->schema, roots, n_srcs, sel, n);
    free(roots);
    return rc;
}

hoodie_status hoodie_batch_append_row(hoodie_batch *dst, const hoodie_batch *src, int64_t row)
{
    return hoodie_array_append_range(&dst->root, &dst->schema, &src->root, row, 1);
}

hoodie_status hoodie_batch_concat(hoodie_batch *dst, const hoodie_batch *src)
{
    if (!hoodie_field_compatible(&dst->schema, &src->schema))
        return HOODIE_FAIL(HOODIE_EINVAL, "concat: incompatible schemas");
    return hoodie_array_append_range(&dst->root, &dst->schema, &src->root, 0, src->root.length);
}

hoodie_status hoodie_batch_slice(hoodie_batch *out, const hoodie_batch *src, int64_t start, int64_t count)
{
    HOODIE_TRY(hoodie_batch_init(out, &src->schema));
    hoodie_status rc = hoodie_array_append_range(&out->root, &out->schema, &src->root, start, count);
    if (rc < 0) hoodie_batch_dispose(out);
    return rc;
}

hoodie_status hoodie_batch_clone(hoodie_batch *out, const hoodie_batch *src)
{
    return hoodie_batch_slice(out, src, 0, src->root.length);
}

/* ---- projection ---- */

typedef struct psel {
    int whole;
    size_t n;
    size_t *idx;          /* child index in the source field */
    struct psel *kids;
} psel;

static void psel_free(psel *p)
{
    for (size_t i = 0; i < p->n; i++) psel_free(&p->kids[i]);
    free(p->idx);
    free(p->kids);
    memset(p, 0, sizeof *p);
}

static hoodie_status psel_add(psel *p, const hoodie_field *f, const char *path)
{
    if (p->whole) return HOODIE_OK;
    const char *dot = strchr(path, '.');
    size_t len = dot ? (size_t)(dot - path) : strlen(path);
    size_t ci = SIZE_MAX;
    for (size_t i = 0; i < f->n_children; i++)
        if (strlen(f->children[i].name) == len && !memcmp(f->children[i].name, path, len)) { ci = i; break; }
    if (ci == SIZE_MAX) {
        char names[400];
        size_t used = 0;
        names[0] = '\0';
        for (size_t i = 0; i < f->n_children && used + 4 < sizeof names; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", f->children[i].name);
        return HOODIE_FAIL(HOODIE_EINVAL, "no column named '%.*s' (columns: %s)", (int)len, path, names);
    }
    const hoodie_field *c = &f->children[ci];
    if (dot && c->type.id != HOODIE_TYPE_STRUCT)
        return HOODIE_FAIL(HOODIE_EINVAL, "field '%s' is not a struct: cannot select '%s'", c->name, dot + 1);
    size_t k = 0;
    while (k < p->n && p->idx[k] != ci) k++;
    if (k == p->n) {
        size_t *ni = realloc(p->idx, (p->n + 1) * sizeof *ni);
        if (!ni) return HOODIE_NOMEM();
        p->idx = ni;
        psel *nk = realloc(p->kids, (p->n + 1) * sizeof *nk);
        if (!nk) return HOODIE_NOMEM();
        p->kids = nk;
        p->idx[k] = ci;
        memset(&p->kids[k], 0, sizeof p->kids[k]);
        p->n++;
    }
    if (!dot) { psel_free(&p->kids[k]); p->kids[k].whole = 1; return HOODIE_OK; }
    return psel_add(&p->kids[k], c, dot + 1);
}

static hoodie_status psel_field(hoodie_field *out, const hoodie_field *f, const psel *p)
{
    if (p->whole) return hoodie_field_clone(out, f);
    HOODIE_TRY(hoodie_field_init(out, f->name, f->type, f->nullable));
    out->field_id = f->field_id;
    for (size_t i = 0; i < p->n; i++) {
        hoodie_field c;
        hoodie_status rc = psel_field(&c, &f->children[p->idx[i]], &p->kids[i]);
        if (rc == HOODIE_OK) rc = hoodie_field_add_child(out, &c);
        hoodie_field_dispose(&c);
        if (rc < 0) { hoodie_field_dispose(out); return rc; }
    }
    return HOODIE_OK;
}

static hoodie_status psel_copy(hoodie_array *dst, const hoodie_field *df, const hoodie_array *src,
                               const hoodie_field *sf, const psel *p)
{
    if (p->whole) return hoodie_array_append_range(dst, df, src, 0, src->length);
    HOODIE_TRY(hoodie_array_reserve(dst, df, src->length, 0));
    HOODIE_TRY(copy_validity(dst, src, 0, src->length));
    for (size_t i = 0; i < p->n; i++)
        HOODIE_TRY(psel_copy(&dst->children[i], &df->children[i], &src->children[p->idx[i]],
                             &sf->children[p->idx[i]], &p->kids[i]));
    dst->length = src->length;
    return HOODIE_OK;
}

hoodie_status hoodie_batch_project(hoodie_batch *out, const hoodie_batch *src, const char *const *paths, size_t n)
{
    psel root;
    hoodie_field schema;
    hoodie_status rc = HOODIE_OK;
    memset(&root, 0, sizeof root);
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n && rc == HOODIE_OK; i++) rc = psel_add(&root, &src->schema, paths[i]);
    if (rc == HOODIE_OK) rc = psel_field(&schema, &src->schema, &root);
    if (rc == HOODIE_OK) {
        rc = hoodie_batch_init(out, &schema);
        hoodie_field_dispose(&schema);
        if (rc == HOODIE_OK) {
            rc = psel_copy(&out->root, &out->schema, &src->root, &src->schema, &root);
            if (rc < 0) hoodie_batch_dispose(out);
        }
    }
    psel_free(&root);
    return rc;
}

/* ---- schema checks ---- */

static int type_equal(const hoodie_type *a, const hoodie_type *b, int strict)
{
    if (a->id != b->id) return 0;
    switch (a->id) {
    case HOODIE_TYPE_FIXED_BINARY: if (a->width != b->width) return 0; break;
    case HOODIE_TYPE_DECIMAL: if (a->precision != b->precision || a->scale != b->scale) return 0; break;
    case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: if (a->unit != b->unit) return 0; break;
    case HOODIE_TYPE_TIMESTAMP:
        if (a->unit != b->unit || (strict && a->utc != b->utc)) return 0;
        break;
    default: break;
    }
    return !strict || a->ext == b->ext;
}

int hoodie_field_equal(const hoodie_field *a, const hoodie_field *b)
{
    if (strcmp(a->name, b->name) || !type_equal(&a->type, &b->type, 1) || !a->nullable != !b->nullable ||
        a->n_children != b->n_children)
        return 0;
    for (size_t i = 0; i < a->n_children; i++)
        if (!hoodie_field_equal(&a->children[i], &b->children[i])) return 0;
    return 1;
}

int hoodie_field_compatible(const hoodie_field *dst, const hoodie_field *src)
{
    if (!type_equal(&dst->type, &src->type, 0) || dst->n_children != src->n_children) return 0;
    for (size_t i = 0; i < dst->n_children; i++)
        if (!hoodie_field_compatible(&dst->children[i], &src->children[i])) return 0;
    return 1;
}
