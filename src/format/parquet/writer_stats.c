/* Parquet writer: column and page statistics (min/max in the column's sort order, null counts). */
#include "format/parquet/writer_int.h"
#include "util/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ stats */

void hoodie_pqw__stats_reset(pq_stats *s)
{
    s->nulls = 0;
    s->has = 0;
    hoodie_buf_clear(&s->bmin);
    hoodie_buf_clear(&s->bmax);
}

static float half_to_float(const uint8_t *p)
{
    uint16_t h = (uint16_t)(p[0] | p[1] << 8);
    int sign = h >> 15, ex = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (ex == 0) v = ldexpf((float)man, -24);
    else if (ex == 31) v = man ? NAN : INFINITY;
    else v = ldexpf((float)(man | 0x400), ex - 25);
    return sign ? -v : v;
}

static inline int bytes_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t m = al < bl ? al : bl;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* 8 bytes at a time as big-endian words, no memcmp call: most pairs differ early (sequence numbers after their
     * 17-byte instant) */
    size_t i = 0;
    for (; i + 8 <= m; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
    }
    if (i < m && m >= 8) { /* the last 8 bytes (all before them are equal) */
        uint64_t x, y;
        memcpy(&x, a + m - 8, 8);
        memcpy(&y, b + m - 8, 8);
        if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
        return al < bl ? -1 : al > bl;
    }
    if (i) { /* (an empty bound's bytes may be a null pointer: never offset it) */
        a += i;
        b += i;
        m -= i;
    }
#endif
    int r = m ? memcmp(a, b, m) : 0;
    if (r) return r;
    return al < bl ? -1 : al > bl;
}

/* The first 8 bytes of a byte string as a big-endian number, zero-padded: prefix(a) < prefix(b) implies a < b. */
static inline uint64_t bytes_prefix(const uint8_t *p, size_t len)
{
    uint64_t x = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len >= 8) memcpy(&x, p, 8);
    else if (len) memcpy(&x, p, len);
    return __builtin_bswap64(x);
#else
    for (size_t i = 0; i < 8; i++) x = x << 8 | (i < len ? p[i] : 0);
    return x;
#endif
}

static int decbe_cmp(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n == 0) return 0;
    if ((int8_t)a[0] != (int8_t)b[0]) return (int8_t)a[0] < (int8_t)b[0] ? -1 : 1;
    return memcmp(a + 1, b + 1, n - 1);
}

/* A new page's statistics: empty, and no dictionary entry seen in it yet. */
void hoodie_pqw__page_stats_reset(pq_col *c)
{
    hoodie_pqw__stats_reset(&c->pstats);
    if (++c->page_epoch == 0) { /* wrapped: forget every stamp */
        if (c->dict_seen) memset(c->dict_seen, 0, c->dict_seen_cap * sizeof *c->dict_seen);
        c->page_epoch = 1;
    }
}

/* One byte-string value into `s` (the first of its dictionary entry in the page). */
hoodie_status hoodie_pqw__stats_bytes_one(pq_stats *s, const uint8_t *p, size_t l)
{
    if (!s->has || bytes_cmp(p, l, s->bmin.data, s->bmin.len) < 0) {
        hoodie_buf_clear(&s->bmin);
        HOODIE_TRY(hoodie_buf_append(&s->bmin, p, l));
    }
    if (!s->has || bytes_cmp(p, l, s->bmax.data, s->bmax.len) > 0) {
        hoodie_buf_clear(&s->bmax);
        HOODIE_TRY(hoodie_buf_append(&s->bmax, p, l));
    }
    s->has = 1;
    return HOODIE_OK;
}

/* Update `s` with values [v0, v0+n) of the slice's physical values. */
hoodie_status hoodie_pqw__stats_update(pq_col *c, pq_stats *s, size_t v0, size_t n)
{
    if (n == 0) return HOODIE_OK;
    const uint8_t *p = c->phys_ptr;
    switch (c->stat_kind) {
    case ST_NONE: return HOODIE_OK;
    case ST_BOOL: case ST_I32: case ST_I64: {
        int64_t mn = INT64_MAX, mx = INT64_MIN;
        if (c->stat_kind == ST_BOOL) {
            for (size_t i = v0; i < v0 + n; i++) { int64_t x = p[i]; mn = x < mn ? x : mn; mx = x > mx ? x : mx; }
        } else if (c->stat_kind == ST_I32) {
            const int32_t *q = (const int32_t *)(const void *)p;
            int32_t a = INT32_MAX, b = INT32_MIN;
            for (size_t i = v0; i < v0 + n; i++) { int32_t x = q[i]; a = x < a ? x : a; b = x > b ? x : b; }
            mn = a; mx = b;
        } else {
            const int64_t *q = (const int64_t *)(const void *)p;
            for (size_t i = v0; i < v0 + n; i++) { int64_t x = q[i]; mn = x < mn ? x : mn; mx = x > mx ? x : mx; }
        }
        if (!s->has || mn < s->imin) s->imin = mn;
        if (!s->has || mx > s->imax) s->imax = mx;
        s->has = 1;
        return HOODIE_OK;
    }
    case ST_U32: case ST_U64: {
        uint64_t mn = UINT64_MAX, mx = 0;
        if (c->stat_kind == ST_U32) {
            const uint32_t *q = (const uint32_t *)(const void *)p;
            uint32_t a = UINT32_MAX, b = 0;
            for (size_t i = v0; i < v0 + n; i++) { uint32_t x = q[i]; a = x < a ? x : a; b = x > b ? x : b; }
            mn = a; mx = b;
        } else {
            const uint64_t *q = (const uint64_t *)(const void *)p;
            for (size_t i = v0; i < v0 + n; i++) { uint64_t x = q[i]; mn = x < mn ? x : mn; mx = x > mx ? x : mx; }
        }
        if (!s->has || mn < (uint64_t)s->imin) s->imin = (int64_t)mn;
        if (!s->has || mx > (uint64_t)s->imax) s->imax = (int64_t)mx;
        s->has = 1;
        return HOODIE_OK;
    }
    case ST_FLOAT: case ST_DOUBLE: {
        double mn = INFINITY, mx = -INFINITY;
        int any = 0;
        if (c->stat_kind == ST_FLOAT) {
            const float *q = (const float *)(const void *)p;
            for (size_t i = v0; i < v0 + n; i++) {
                float x = q[i];
                if (x != x) continue;
                any = 1;
                if (x < mn) mn = x;
                if (x > mx) mx = x;
            }
        } else {
            const double *q = (const double *)(const void *)p;
            for (size_t i = v0; i < v0 + n; i++) {
                double x = q[i];
                if (x != x) continue;
                any = 1;
                if (x < mn) mn = x;
                if (x > mx) mx = x;
            }
        }
        if (!any) return HOODIE_OK;
        if (!s->has || mn < s->dmin) s->dmin = mn;
        if (!s->has || mx > s->dmax) s->dmax = mx;
        s->has = 1;
        return HOODIE_OK;
    }
    case ST_F16: {
        const uint8_t *mnp = NULL, *mxp = NULL;
        float mn = INFINITY, mx = -INFINITY;
        for (size_t i = v0; i < v0 + n; i++) {
            float x = half_to_float(p + 2 * i);
            if (x != x) continue;
            if (!mnp || x < mn) { mn = x; mnp = p + 2 * i; }
            if (!mxp || x > mx) { mx = x; mxp = p + 2 * i; }
        }
        if (!mnp) return HOODIE_OK;
        if (!s->has || mn < s->dmin) { s->dmin = mn; hoodie_buf_clear(&s->bmin); HOODIE_TRY(hoodie_buf_append(&s->bmin, mnp, 2)); }
        if (!s->has || mx > s->dmax) { s->dmax = mx; hoodie_buf_clear(&s->bmax); HOODIE_TRY(hoodie_buf_append(&s->bmax, mxp, 2)); }
        s->has = 1;
        return HOODIE_OK;
    }
    case ST_BYTES: case ST_DECBE: {
        const uint8_t *mnp, *mxp;
        size_t mnl, mxl;
        if (c->ptype == HOODIE_PQ_BYTE_ARRAY) {
            const pq_bytes *b = c->bphys;
            mnp = mxp = b[v0].p;
            mnl = mxl = b[v0].len;
            /* The first 8 bytes as a big-endian word (zero-padded) order most values: one strictly between the
             * current bounds' words is neither a new minimum nor a new maximum, without comparing bytes. */
            uint64_t mnk = bytes_prefix(mnp, mnl), mxk = mnk;
            for (size_t i = v0 + 1; i < v0 + n; i++) {
                uint64_t x = bytes_prefix(b[i].p, b[i].len);
                if (x > mnk && x < mxk) continue;
                if (x <= mnk) {
                    int cm = bytes_cmp(b[i].p, b[i].len, mnp, mnl);
                    if (cm < 0) { mnp = b[i].p; mnl = b[i].len; mnk = x; }
                    if (cm <= 0) continue; /* (equal to the minimum: constant columns) */
                }
                if (x >= mxk && bytes_cmp(b[i].p, b[i].len, mxp, mxl) > 0) { mxp = b[i].p; mxl = b[i].len; mxk = x; }
            }
        } else {
            size_t wd = (size_t)c->width;
            mnp = mxp = p + v0 * wd;
            mnl = mxl = wd;
            for (size_t i = v0 + 1; i < v0 + n; i++) {
                const uint8_t *x = p + i * wd;
                int lt = c->stat_kind == ST_DECBE ? decbe_cmp(x, mnp, wd) < 0 : memcmp(x, mnp, wd) < 0;
                int gt = c->stat_kind == ST_DECBE ? decbe_cmp(x, mxp, wd) > 0 : memcmp(x, mxp, wd) > 0;
                if (lt) mnp = x;
                if (gt) mxp = x;
            }
        }
        int lt = !s->has || (c->stat_kind == ST_DECBE ? decbe_cmp(mnp, s->bmin.data, mnl) < 0
                                                      : bytes_cmp(mnp, mnl, s->bmin.data, s->bmin.len) < 0);
        int gt = !s->has || (c->stat_kind == ST_DECBE ? decbe_cmp(mxp, s->bmax.data, mxl) > 0
                                                      : bytes_cmp(mxp, mxl, s->bmax.data, s->bmax.len) > 0);
        if (lt) { hoodie_buf_clear(&s->bmin); HOODIE_TRY(hoodie_buf_append(&s->bmin, mnp, mnl)); }
        if (gt) { hoodie_buf_clear(&s->bmax); HOODIE_TRY(hoodie_buf_append(&s->bmax, mxp, mxl)); }
        s->has = 1;
        return HOODIE_OK;
    }
    default:
        return HOODIE_OK;
    }
}

/* Compare the minimums (max = 0) or maximums (max = 1) of two stats that both have values: <0, 0, >0. */
int hoodie_pqw__stats_bound_cmp(const pq_col *c, const pq_stats *a, const pq_stats *b, int max)
{
    int64_t ai = max ? a->imax : a->imin, bi = max ? b->imax : b->imin;
    double ad = max ? a->dmax : a->dmin, bd = max ? b->dmax : b->dmin;
    const hoodie_buf *ab = max ? &a->bmax : &a->bmin, *bb = max ? &b->bmax : &b->bmin;
    switch (c->stat_kind) {
    case ST_BOOL: case ST_I32: case ST_I64: return (ai > bi) - (ai < bi);
    case ST_U32: case ST_U64: return ((uint64_t)ai > (uint64_t)bi) - ((uint64_t)ai < (uint64_t)bi);
    case ST_FLOAT: case ST_DOUBLE: case ST_F16: return (ad > bd) - (ad < bd);
    case ST_BYTES: return bytes_cmp(ab->data, ab->len, bb->data, bb->len);
    case ST_DECBE: return decbe_cmp(ab->data, bb->data, ab->len);
    default: return 0;
    }
}

/* Merge page stats `p` into chunk stats `s`. */
hoodie_status hoodie_pqw__stats_merge(pq_col *c, pq_stats *s, const pq_stats *p)
{
    s->nulls += p->nulls;
    if (!p->has) return HOODIE_OK;
    if (!s->has) {
        s->imin = p->imin; s->imax = p->imax; s->dmin = p->dmin; s->dmax = p->dmax;
        hoodie_buf_clear(&s->bmin); hoodie_buf_clear(&s->bmax);
        HOODIE_TRY(hoodie_buf_append(&s->bmin, p->bmin.data, p->bmin.len));
        HOODIE_TRY(hoodie_buf_append(&s->bmax, p->bmax.data, p->bmax.len));
        s->has = 1;
        return HOODIE_OK;
    }
    int lt = hoodie_pqw__stats_bound_cmp(c, p, s, 0) < 0, gt = hoodie_pqw__stats_bound_cmp(c, p, s, 1) > 0;
    if (lt) {
        s->imin = p->imin; s->dmin = p->dmin;
        hoodie_buf_clear(&s->bmin);
        HOODIE_TRY(hoodie_buf_append(&s->bmin, p->bmin.data, p->bmin.len));
    }
    if (gt) {
        s->imax = p->imax; s->dmax = p->dmax;
        hoodie_buf_clear(&s->bmax);
        HOODIE_TRY(hoodie_buf_append(&s->bmax, p->bmax.data, p->bmax.len));
    }
    return HOODIE_OK;
}

/* Fill a thrift Statistics from `s`; fixed-size values go to `scratch` (>= 32 bytes). Byte values are
 * borrowed from s. */
void hoodie_pqw__stats_to_thrift(const pq_col *c, const pq_stats *s, uint8_t *scratch, hoodie_pq_statistics *out)
{
    memset(out, 0, sizeof *out);
    out->present = 1;
    out->has_null_count = 1;
    out->null_count = s->nulls;
    if (!s->has || c->stat_kind == ST_NONE) return;
    const uint8_t *mn = scratch, *mx = scratch + 16;
    uint32_t len = 0;
    switch (c->stat_kind) {
    case ST_BOOL: scratch[0] = (uint8_t)s->imin; scratch[16] = (uint8_t)s->imax; len = 1; break;
    case ST_I32: case ST_U32: {
        uint32_t a = (uint32_t)s->imin, b = (uint32_t)s->imax;
        memcpy(scratch, &a, 4); memcpy(scratch + 16, &b, 4); len = 4;
        break;
    }
    case ST_I64: case ST_U64: memcpy(scratch, &s->imin, 8); memcpy(scratch + 16, &s->imax, 8); len = 8; break;
    case ST_FLOAT: {
        float a = (float)s->dmin, b = (float)s->dmax;
        if (a == 0) a = -0.0f;
        if (b == 0) b = 0.0f;
        memcpy(scratch, &a, 4); memcpy(scratch + 16, &b, 4); len = 4;
        break;
    }
    case ST_DOUBLE: {
        double a = s->dmin, b = s->dmax;
        if (a == 0) a = -0.0;
        if (b == 0) b = 0.0;
        memcpy(scratch, &a, 8); memcpy(scratch + 16, &b, 8); len = 8;
        break;
    }
    case ST_F16:
        memcpy(scratch, s->bmin.data, 2); memcpy(scratch + 16, s->bmax.data, 2);
        if (s->dmin == 0) { scratch[0] = 0; scratch[1] = 0x80; }
        if (s->dmax == 0) { scratch[16] = 0; scratch[17] = 0; }
        len = 2;
        break;
    default: /* bytes */
        out->min_value = s->bmin.data ? s->bmin.data : (const uint8_t *)"";
        out->min_value_len = (uint32_t)s->bmin.len;
        out->max_value = s->bmax.data ? s->bmax.data : (const uint8_t *)"";
        out->max_value_len = (uint32_t)s->bmax.len;
        out->has_min_value = out->has_max_value = 1;
        return;
    }
    out->min_value = mn; out->min_value_len = len; out->has_min_value = 1;
    out->max_value = mx; out->max_value_len = len; out->has_max_value = 1;
    if (c->legacy_minmax) {
        out->min = mn; out->min_len = len; out->has_min = 1;
        out->max = mx; out->max_len = len; out->has_max = 1;
    }
}
