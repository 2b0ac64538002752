#include "format/parquet/decode.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

void hoodie_pq_rle_init(hoodie_pq_rle *d, const uint8_t *p, size_t len, int bit_width)
{
    memset(d, 0, sizeof *d);
    d->p = p;
    d->end = p + len;
    d->bit_width = bit_width;
    d->run_min = UINT32_MAX;
    if (bit_width < 0 || bit_width > 32) d->bad = 1;
}

/* Read the next run header; 0 when the input is exhausted or malformed. */
static int rle_next_run(hoodie_pq_rle *d)
{
  for (;;) {
    uint64_t h = 0;
    unsigned shift = 0;
    for (;;) {
        if (d->p >= d->end) return 0;
        uint8_t b = *d->p++;
        if (shift < 64) h |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
        if (shift > 35) { d->bad = 1; return 0; }
    }
    if (h & 1) {
        uint64_t groups = h >> 1;
        size_t have = (size_t)(d->end - d->p);
        uint64_t need = groups * (uint64_t)d->bit_width; /* bytes: 8 values * width bits / 8 */
        uint64_t count = groups * 8;
        if (need > have) {
            /* A truncated final run: decode what is present. */
            if (d->bit_width == 0) { d->bad = 1; return 0; }
            count = (uint64_t)have * 8 / (uint64_t)d->bit_width;
        }
        if (count == 0) return 0;
        if (count > UINT32_MAX) count = UINT32_MAX;
        d->bp_left = (uint32_t)count;
        d->bp_seen = 1;
        d->acc = 0;
        d->acc_bits = 0;
    } else {
        uint64_t count = h >> 1;
        int nbytes = (d->bit_width + 7) / 8;
        if ((size_t)(d->end - d->p) < (size_t)nbytes) { d->bad = 1; return 0; }
        uint32_t v = 0;
        for (int i = 0; i < nbytes; i++) v |= (uint32_t)d->p[i] << (8 * i);
        d->p += nbytes;
        if (count == 0) continue; /* an empty run: skip it */
        if (count > UINT32_MAX) count = UINT32_MAX;
        d->rle_left = (uint32_t)count;
        d->rle_value = v;
        if (v > d->run_max) d->run_max = v;
        if (v < d->run_min) d->run_min = v;
    }
    return 1;
  }
}

#define RLE_GET_BODY(T)                                                                      \
    size_t got = 0;                                                                          \
    const int bw = d->bit_width;                                                             \
    const uint64_t mask = bw >= 32 ? 0xffffffffULL : ((1ULL << bw) - 1);                     \
    while (got < n) {                                                                        \
        if (d->rle_left) {                                                                   \
            size_t k = n - got < d->rle_left ? n - got : d->rle_left;                        \
            T v = (T)d->rle_value;                                                           \
            for (size_t i = 0; i < k; i++) out[got + i] = v;                                 \
            got += k;                                                                        \
            d->rle_left -= (uint32_t)k;                                                      \
        } else if (d->bp_left) {                                                             \
            size_t k = n - got < d->bp_left ? n - got : d->bp_left;                          \
            uint64_t acc = d->acc;                                                           \
            int bits = d->acc_bits;                                                          \
            const uint8_t *p = d->p;                                                         \
            size_t i = 0;                                                                    \
            /* whole groups of 8 values of up to 8 bits from one 64-bit load (the group's    \
             * bw bytes, little-endian); bits is 0 at every group's start */                 \
            if (bw <= 8 && bits == 0)                                                        \
                for (; i + 8 <= k && d->end - p >= 8; i += 8, p += bw) {                     \
                    uint64_t w = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | \
                                 (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |               \
                                 (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |               \
                                 (uint64_t)p[7] << 56;                                       \
                    T *o8 = out + got + i;                                                   \
                    for (int j = 0; j < 8; j++) o8[j] = (T)((w >> (j * bw)) & mask);         \
                }                                                                            \
            for (; i < k; i++) {                                                             \
                while (bits < bw) { acc |= (uint64_t)(*p++) << bits; bits += 8; }            \
                out[got + i] = (T)(acc & mask);                                              \
                acc >>= bw;                                                                  \
                bits -= bw;                                                                  \
            }                                                                                \
            d->p = p;                                                                        \
            got += k;                                                                        \
            d->bp_left -= (uint32_t)k;                                                       \
            if (d->bp_left == 0) { acc = 0; bits = 0; }                                      \
            d->acc = acc;                                                                    \
            d->acc_bits = bits;                                                              \
        } else if (d->bad || !rle_next_run(d)) {                                             \
            break;                                                                           \
        }                                                                                    \
    }                                                                                        \
    return got;

/* The bit-packed loop reads only bytes counted into bp_left by rle_next_run (count * width <= bytes * 8). */
size_t hoodie_pq_rle_get_u32(hoodie_pq_rle *d, uint32_t *out, size_t n) { RLE_GET_BODY(uint32_t) }
size_t hoodie_pq_rle_get_i16(hoodie_pq_rle *d, int16_t *out, size_t n) { RLE_GET_BODY(int16_t) }

size_t hoodie_pq_bitpacked_legacy_levels(const uint8_t *p, size_t len, int bit_width, int16_t *out, size_t n)
{
    uint64_t bits = (uint64_t)n * (uint64_t)bit_width;
    size_t need = (size_t)((bits + 7) / 8);
    if (bit_width < 0 || bit_width > 16 || need > len) return (size_t)-1;
    uint64_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = 0;
        for (int b = 0; b < bit_width; b++, pos++) v = v << 1 | ((p[pos >> 3] >> (7 - (pos & 7))) & 1);
        out[i] = (int16_t)v;
    }
    return need;
}

/* ---- DELTA_BINARY_PACKED ---- */

typedef struct dcur { const uint8_t *p, *end; int bad; } dcur;

static uint64_t d_uvarint(dcur *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (c->p >= c->end) { c->bad = 1; return 0; }
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    c->bad = 1;
    return 0;
}

static uint64_t get_bits(const uint8_t *p, uint64_t bitpos, int bw)
{
    uint64_t v = 0;
    int got = 0;
    size_t byte = (size_t)(bitpos >> 3);
    int shift = (int)(bitpos & 7);
    while (got < bw) {
        uint64_t b = (uint64_t)(p[byte++] >> shift);
        v |= b << got;
        got += 8 - shift;
        shift = 0;
    }
    return bw >= 64 ? v : v & ((1ULL << bw) - 1);
}

static hoodie_status delta_header(dcur *c, uint64_t *block, uint64_t *minis, uint64_t *count, int64_t *first,
                                  const char *what)
{
    *block = d_uvarint(c);
    *minis = d_uvarint(c);
    *count = d_uvarint(c);
    uint64_t z = d_uvarint(c);
    *first = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    if (c->bad) return HOODIE_CORRUPT("%s: truncated DELTA_BINARY_PACKED header", what);
    if (*block == 0 || *block % 128 || *minis == 0 || *block % *minis || (*block / *minis) % 32 || *block > (1u << 20))
        return HOODIE_CORRUPT("%s: bad DELTA_BINARY_PACKED block size %llu / %llu miniblocks", what,
                              (unsigned long long)*block, (unsigned long long)*minis);
    return HOODIE_OK;
}

hoodie_status hoodie_pq_delta_binary_count(const uint8_t *p, size_t len, size_t *count_out, const char *what)
{
    dcur c = { p, p + len, 0 };
    uint64_t block, minis, count;
    int64_t first;
    HOODIE_TRY(delta_header(&c, &block, &minis, &count, &first, what));
    if (count > SIZE_MAX / 16) return HOODIE_CORRUPT("%s: DELTA_BINARY_PACKED count too large", what);
    *count_out = (size_t)count;
    return HOODIE_OK;
}

hoodie_status hoodie_pq_delta_binary_decode(const uint8_t *p, size_t len, size_t max_count, int64_t *out,
                                            size_t *count_out, size_t *consumed_out, const char *what)
{
    dcur c = { p, p + len, 0 };
    uint64_t block, minis, count;
    int64_t first;
    HOODIE_TRY(delta_header(&c, &block, &minis, &count, &first, what));
    if (count > max_count)
        return HOODIE_CORRUPT("%s: DELTA_BINARY_PACKED holds %llu values, at most %zu expected", what,
                              (unsigned long long)count, max_count);
    size_t n = (size_t)count, i = 0;
    uint64_t per_mini = block / minis;
    uint64_t last = (uint64_t)first;
    if (n > 0) out[i++] = first;
    while (i < n) {
        uint64_t zmin = d_uvarint(&c);
        int64_t min_delta = (int64_t)(zmin >> 1) ^ -(int64_t)(zmin & 1);
        if (c.bad || (size_t)(c.end - c.p) < minis)
            return HOODIE_CORRUPT("%s: truncated DELTA_BINARY_PACKED block header", what);
        const uint8_t *widths = c.p;
        c.p += minis;
        for (uint64_t m = 0; m < minis && i < n; m++) {
            int bw = widths[m];
            if (bw > 64) return HOODIE_CORRUPT("%s: DELTA_BINARY_PACKED bit width %d", what, bw);
            size_t bytes = (size_t)(per_mini * (uint64_t)bw / 8);
            if ((size_t)(c.end - c.p) < bytes)
                return HOODIE_CORRUPT("%s: truncated DELTA_BINARY_PACKED miniblock", what);
            size_t k = n - i < per_mini ? n - i : (size_t)per_mini;
            for (size_t j = 0; j < k; j++) {
                uint64_t delta = bw ? get_bits(c.p, (uint64_t)j * (uint64_t)bw, bw) : 0;
                last = last + (uint64_t)min_delta + delta;
                out[i++] = (int64_t)last;
            }
            c.p += bytes;
        }
    }
    *count_out = n;
    *consumed_out = (size_t)(c.p - p);
    return HOODIE_OK;
}

hoodie_status hoodie_pq_delta_length_decode(const uint8_t *p, size_t len, size_t n, int64_t *scratch,
                                            int32_t *offsets, const uint8_t **data_out, size_t *consumed_out,
                                            const char *what)
{
    size_t got, used;
    HOODIE_TRY(hoodie_pq_delta_binary_decode(p, len, n, scratch, &got, &used, what));
    if (got != n) return HOODIE_CORRUPT("%s: DELTA_LENGTH_BYTE_ARRAY has %zu lengths, expected %zu", what, got, n);
    size_t avail = len - used;
    uint64_t total = 0;
    offsets[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (scratch[i] < 0 || (uint64_t)scratch[i] > avail - total)
            return HOODIE_CORRUPT("%s: DELTA_LENGTH_BYTE_ARRAY length %lld out of range", what, (long long)scratch[i]);
        total += (uint64_t)scratch[i];
        offsets[i + 1] = (int32_t)total;
    }
    if (total > INT32_MAX) return HOODIE_CORRUPT("%s: byte arrays too large", what);
    *data_out = p + used;
    *consumed_out = used + (size_t)total;
    return HOODIE_OK;
}

#define DBA_MAX_BYTES ((size_t)1 << 30)

hoodie_status hoodie_pq_delta_byte_array_decode(const uint8_t *p, size_t len, size_t n, hoodie_buf *data,
                                                int32_t *offsets, const char *what)
{
    hoodie_status rc = HOODIE_OK;
    int64_t *prefix = malloc((n ? n : 1) * sizeof *prefix);
    int64_t *scratch = malloc((n ? n : 1) * sizeof *scratch);
    int32_t *soff = malloc((n + 1) * sizeof *soff);
    size_t got, used, used2;
    const uint8_t *sdata;
    if (!prefix || !scratch || !soff) { rc = HOODIE_NOMEM(); goto done; }
    HOODIE_TRY_GOTO(rc, hoodie_pq_delta_binary_decode(p, len, n, prefix, &got, &used, what), done);
    if (got != n) { rc = HOODIE_CORRUPT("%s: DELTA_BYTE_ARRAY has %zu prefixes, expected %zu", what, got, n); goto done; }
    HOODIE_TRY_GOTO(rc, hoodie_pq_delta_length_decode(p + used, len - used, n, scratch, soff, &sdata, &used2, what), done);
    size_t base = data->len, prev_start = 0, prev_len = 0;
    offsets[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t slen = (size_t)(soff[i + 1] - soff[i]);
        if (prefix[i] < 0 || (uint64_t)prefix[i] > prev_len) {
            rc = HOODIE_CORRUPT("%s: DELTA_BYTE_ARRAY prefix %lld longer than the previous value", what,
                                (long long)prefix[i]);
            goto done;
        }
        size_t plen = (size_t)prefix[i];
        if (data->len - base + plen + slen > DBA_MAX_BYTES) {
            rc = HOODIE_CORRUPT("%s: DELTA_BYTE_ARRAY expands beyond %zu bytes", what, DBA_MAX_BYTES);
            goto done;
        }
        HOODIE_TRY_GOTO(rc, hoodie_buf_reserve(data, plen + slen), done);
        size_t start = data->len;
        memmove(data->data + start, data->data + prev_start, plen);
        memcpy(data->data + start + plen, sdata + soff[i], slen);
        data->len += plen + slen;
        prev_start = start;
        prev_len = plen + slen;
        offsets[i + 1] = (int32_t)(data->len - base);
    }
done:
    free(prefix);
    free(scratch);
    free(soff);
    return rc;
}

hoodie_status hoodie_pq_byte_stream_split_decode(const uint8_t *p, size_t len, size_t n, size_t width,
                                                 uint8_t *out, const char *what)
{
    size_t need;
    if (hoodie_mul_overflow(n, width, &need) || need > len)
        return HOODIE_CORRUPT("%s: BYTE_STREAM_SPLIT needs %zu x %zu bytes, page has %zu", what, n, width, len);
    for (size_t k = 0; k < width; k++) {
        const uint8_t *s = p + k * n;
        for (size_t i = 0; i < n; i++) out[i * width + k] = s[i];
    }
    return HOODIE_OK;
}

void hoodie_pq_copy_bits(const uint8_t *src, uint64_t src_bit, uint8_t *dst, uint64_t dst_bit, size_t n)
{
    if ((src_bit & 7) == 0 && (dst_bit & 7) == 0) {
        size_t whole = n / 8;
        memcpy(dst + (dst_bit >> 3), src + (src_bit >> 3), whole);
        src_bit += (uint64_t)whole * 8;
        dst_bit += (uint64_t)whole * 8;
        n -= whole * 8;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t s = src_bit + i, t = dst_bit + i;
        if ((src[s >> 3] >> (s & 7)) & 1) dst[t >> 3] |= (uint8_t)(1u << (t & 7));
        else dst[t >> 3] &= (uint8_t)~(1u << (t & 7));
    }
}
