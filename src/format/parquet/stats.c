/* Column-chunk statistics decoded into typed values, and row-group pruning on simple predicates. */
#include "format/parquet/reader.h"
#include "util/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static hoodie_pq_value_kind kind_of(const hoodie_type *t)
{
    switch (t->id) {
    case HOODIE_TYPE_BOOL: return HOODIE_PQ_VAL_BOOL;
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_INT64:
    case HOODIE_TYPE_DATE32: case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: case HOODIE_TYPE_TIMESTAMP:
        return HOODIE_PQ_VAL_I64;
    case HOODIE_TYPE_UINT8: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_UINT64:
        return HOODIE_PQ_VAL_U64;
    case HOODIE_TYPE_FLOAT16: case HOODIE_TYPE_FLOAT: case HOODIE_TYPE_DOUBLE: return HOODIE_PQ_VAL_F64;
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: case HOODIE_TYPE_FIXED_BINARY: return HOODIE_PQ_VAL_BYTES;
    case HOODIE_TYPE_DECIMAL: return HOODIE_PQ_VAL_DECIMAL;
    default: return HOODIE_PQ_VAL_NONE;
    }
}

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Decode one statistics value; 0 when the bytes do not fit the type. */
static int decode_value(const hoodie_pq_leaf *lf, const uint8_t *p, uint32_t n, hoodie_pq_value *v)
{
    memset(v, 0, sizeof *v);
    v->kind = kind_of(&lf->type);
    hoodie_pq_type pt = lf->el->type;
    switch (v->kind) {
    case HOODIE_PQ_VAL_BOOL:
        if (n < 1) return 0;
        v->i = p[0] & 1;
        return 1;
    case HOODIE_PQ_VAL_I64:
    case HOODIE_PQ_VAL_U64:
        if (pt == HOODIE_PQ_INT32) {
            if (n != 4) return 0;
            uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            v->i = (int32_t)u;
            v->u = u;
        } else if (pt == HOODIE_PQ_INT64) {
            if (n != 8) return 0;
            uint64_t u = 0;
            for (int k = 7; k >= 0; k--) u = u << 8 | p[k];
            v->i = (int64_t)u;
            v->u = u;
        } else {
            return 0; /* INT96: no defined order */
        }
        return 1;
    case HOODIE_PQ_VAL_F64:
        if (pt == HOODIE_PQ_FLOAT && n == 4) { float f; memcpy(&f, p, 4); v->d = f; }
        else if (pt == HOODIE_PQ_DOUBLE && n == 8) memcpy(&v->d, p, 8);
        else if (n == 2) v->d = half_to_double((uint16_t)(p[0] | p[1] << 8));
        else return 0;
        return !isnan(v->d);
    case HOODIE_PQ_VAL_BYTES:
        v->bytes = p;
        v->len = n;
        return 1;
    case HOODIE_PQ_VAL_DECIMAL: {
        int64_t x = 0;
        if (pt == HOODIE_PQ_INT32 || pt == HOODIE_PQ_INT64) {
            hoodie_pq_value t;
            hoodie_pq_leaf l2 = *lf;
            l2.type = hoodie_type_of(HOODIE_TYPE_INT64);
            if (!decode_value(&l2, p, n, &t)) return 0;
            x = t.i;
            v->dec_hi = x < 0 ? -1 : 0;
            v->dec_lo = (uint64_t)x;
            v->kind = HOODIE_PQ_VAL_DECIMAL;
            return 1;
        }
        if (n == 0 || n > 16) return 0;
        uint8_t b[16];
        uint8_t fill = (p[0] & 0x80) ? 0xff : 0;
        for (int k = 0; k < 16; k++) b[k] = k < 16 - (int)n ? fill : p[k - (16 - (int)n)];
        uint64_t hi = 0, lo = 0;
        for (int k = 0; k < 8; k++) hi = hi << 8 | b[k];
        for (int k = 8; k < 16; k++) lo = lo << 8 | b[k];
        v->dec_hi = (int64_t)hi;
        v->dec_lo = lo;
        return 1;
    }
    default:
        return 0;
    }
}

int hoodie_pq_value_cmp(const hoodie_pq_value *a, const hoodie_pq_value *b)
{
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    switch (a->kind) {
    case HOODIE_PQ_VAL_BOOL:
    case HOODIE_PQ_VAL_I64: return a->i < b->i ? -1 : a->i > b->i;
    case HOODIE_PQ_VAL_U64: return a->u < b->u ? -1 : a->u > b->u;
    case HOODIE_PQ_VAL_F64: return a->d < b->d ? -1 : a->d > b->d;
    case HOODIE_PQ_VAL_BYTES: {
        size_t n = a->len < b->len ? a->len : b->len;
        int c = n ? memcmp(a->bytes, b->bytes, n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return a->len < b->len ? -1 : a->len > b->len;
    }
    case HOODIE_PQ_VAL_DECIMAL:
        if (a->dec_hi != b->dec_hi) return a->dec_hi < b->dec_hi ? -1 : 1;
        return a->dec_lo < b->dec_lo ? -1 : a->dec_lo > b->dec_lo;
    default: return 0;
    }
}

const char *hoodie_pq_value_text(const hoodie_pq_value *v, int scale, char *buf, size_t len)
{
    switch (v->kind) {
    case HOODIE_PQ_VAL_BOOL: snprintf(buf, len, "%s", v->i ? "true" : "false"); break;
    case HOODIE_PQ_VAL_I64: snprintf(buf, len, "%lld", (long long)v->i); break;
    case HOODIE_PQ_VAL_U64: snprintf(buf, len, "%llu", (unsigned long long)v->u); break;
    case HOODIE_PQ_VAL_F64: snprintf(buf, len, "%.17g", v->d); break;
    case HOODIE_PQ_VAL_BYTES: {
        int printable = 1;
        for (size_t k = 0; k < v->len; k++) if (v->bytes[k] < 0x20 || v->bytes[k] == 0x7f) printable = 0;
        size_t o = 0;
        if (printable) {
            snprintf(buf, len, "%.*s", (int)(v->len < 200 ? v->len : 200), (const char *)v->bytes);
        } else {
            o += (size_t)snprintf(buf, len, "0x");
            for (size_t k = 0; k < v->len && o + 3 < len && k < 64; k++) o += (size_t)snprintf(buf + o, len - o, "%02X", v->bytes[k]);
        }
        break;
    }
    case HOODIE_PQ_VAL_DECIMAL: {
        /* 128-bit to decimal text */
        uint64_t hi = (uint64_t)v->dec_hi, lo = v->dec_lo;
        int neg = v->dec_hi < 0;
        if (neg) { lo = ~lo + 1; hi = ~hi + (lo == 0); }
        char d[64];
        int nd = 0;
        do {
            /* divide (hi:lo) by 10 */
            uint64_t rh = hi % 10, qh = hi / 10;
            uint64_t cur_hi = rh << 32 | (lo >> 32), q1 = cur_hi / 10, r1 = cur_hi % 10;
            uint64_t cur_lo = r1 << 32 | (lo & 0xffffffffu), q0 = cur_lo / 10, r0 = cur_lo % 10;
            hi = qh;
            lo = q1 << 32 | q0;
            d[nd++] = (char)('0' + r0);
        } while ((hi || lo) && nd < 60);
        while (nd <= scale && nd < 60) d[nd++] = '0';
        size_t o = 0;
        if (neg && o + 1 < len) buf[o++] = '-';
        for (int k = nd - 1; k >= 0 && o + 2 < len; k--) {
            buf[o++] = d[k];
            if (k == scale && scale > 0) buf[o++] = '.';
        }
        buf[o] = 0;
        break;
    }
    default: snprintf(buf, len, "?");
    }
    return buf;
}

/* Deprecated min/max are trustworthy only for signed-order types that are not strings or decimals. */
static int deprecated_ok(const hoodie_pq_leaf *lf)
{
    switch (lf->type.id) {
    case HOODIE_TYPE_BOOL: case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32:
    case HOODIE_TYPE_INT64: case HOODIE_TYPE_FLOAT: case HOODIE_TYPE_DOUBLE: case HOODIE_TYPE_DATE32:
    case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64:
        return 1;
    case HOODIE_TYPE_TIMESTAMP: return lf->type.ext != HOODIE_EXT_INT96;
    default: return 0;
    }
}

hoodie_status hoodie_pq_row_group_stats(const hoodie_pq_file *f, uint32_t rg, int leaf, hoodie_pq_column_stats *out)
{
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    const hoodie_pq_schema *s = hoodie_pq_file_schema(f);
    memset(out, 0, sizeof *out);
    if (rg >= m->row_group_count || leaf < 0 || (size_t)leaf >= s->n_leaves)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: no row group %u / leaf %d", hoodie_pq_file_name(f), rg, leaf);
    const hoodie_pq_column_chunk *cc = &m->row_groups[rg].columns[leaf];
    const hoodie_pq_leaf *lf = &s->leaves[leaf];
    out->num_rows = m->row_groups[rg].num_rows;
    out->num_values = cc->meta.num_values;
    const hoodie_pq_statistics *st = &cc->meta.statistics;
    if (!cc->has_meta || !st->present) return HOODIE_OK;
    if (st->has_null_count && st->null_count >= 0) { out->has_null_count = 1; out->null_count = st->null_count; }
    if (lf->type.ext == HOODIE_EXT_INT96) return HOODIE_OK;
    if (st->has_min_value && st->has_max_value) {
        out->has_min = decode_value(lf, st->min_value, st->min_value_len, &out->min);
        out->has_max = decode_value(lf, st->max_value, st->max_value_len, &out->max);
    } else if (st->has_min && st->has_max && deprecated_ok(lf)) {
        out->has_min = decode_value(lf, st->min, st->min_len, &out->min);
        out->has_max = decode_value(lf, st->max, st->max_len, &out->max);
    }
    if (!out->has_min || !out->has_max) out->has_min = out->has_max = 0;
    if (out->has_min && out->min.kind == HOODIE_PQ_VAL_F64) {
        /* -0.0 / +0.0: widen so that both zeros are covered. */
        if (out->min.d == 0.0) out->min.d = -0.0;
        if (out->max.d == 0.0) out->max.d = 0.0;
    }
    return HOODIE_OK;
}

int hoodie_pq_stats_may_match(const hoodie_pq_column_stats *st, const hoodie_pq_pred *p)
{
    int all_null = st->has_null_count && st->null_count >= st->num_values && st->num_values > 0;
    switch (p->op) {
    case HOODIE_PQ_OP_IS_NULL: return !(st->has_null_count && st->null_count == 0);
    case HOODIE_PQ_OP_IS_NOT_NULL: return !all_null;
    default: break;
    }
    if (all_null) return 0;
    if (!st->has_min || !st->has_max) return 1;
    size_t n = p->op == HOODIE_PQ_OP_IN ? p->n_values : 1;
    if (!p->values || n == 0) return p->op == HOODIE_PQ_OP_IN ? 0 : 1;
    for (size_t i = 0; i < n; i++) {
        const hoodie_pq_value *v = &p->values[i];
        if (v->kind != st->min.kind) return 1;
        if (v->kind == HOODIE_PQ_VAL_F64 && isnan(v->d)) return 1;
        int cmin = hoodie_pq_value_cmp(v, &st->min), cmax = hoodie_pq_value_cmp(v, &st->max);
        switch (p->op) {
        case HOODIE_PQ_OP_EQ: case HOODIE_PQ_OP_IN: if (cmin >= 0 && cmax <= 0) return 1; break;
        case HOODIE_PQ_OP_LT: return cmin > 0;   /* some x < v iff min < v */
        case HOODIE_PQ_OP_LE: return cmin >= 0;
        case HOODIE_PQ_OP_GT: return cmax < 0;   /* some x > v iff max > v */
        case HOODIE_PQ_OP_GE: return cmax <= 0;
        default: return 1;
        }
    }
    return 0;
}

int hoodie_pq_row_group_may_match(const hoodie_pq_file *f, uint32_t rg, int leaf, const hoodie_pq_pred *p)
{
    hoodie_pq_column_stats st;
    if (hoodie_pq_row_group_stats(f, rg, leaf, &st) < 0) return 1;
    return hoodie_pq_stats_may_match(&st, p);
}
