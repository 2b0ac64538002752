#include "format/parquet/encode.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

/* ---- bit packing ---- */

/* Pack n u64 values of `bw` bits (0..64) LSB first; the output is padded to a whole byte. */
static hoodie_status pack64(const uint64_t *v, size_t n, int bw, hoodie_buf *out)
{
    size_t bytes = (n * (size_t)bw + 7) / 8;
    HOODIE_TRY(hoodie_buf_reserve(out, bytes + 8));
    uint8_t *p = out->data + out->len;
    memset(p, 0, bytes);
    if (bw == 0) return HOODIE_OK;
    size_t bit = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = bw == 64 ? v[i] : v[i] & ((1ull << bw) - 1);
        int left = bw;
        while (left > 0) {
            size_t byte = bit >> 3;
            int off = (int)(bit & 7);
            int take = 8 - off < left ? 8 - off : left;
            p[byte] |= (uint8_t)((x & ((1u << take) - 1)) << off);
            x >>= take;
            left -= take;
            bit += (size_t)take;
        }
    }
    out->len += bytes;
    return HOODIE_OK;
}

/* Pack exactly 8 values of bw <= 32 bits into bw bytes (fast path for the hybrid encoder). */
static void pack8(const uint32_t *v, int bw, uint8_t *p)
{
    uint64_t acc = 0;
    int nbits = 0;
    for (int i = 0; i < 8; i++) {
        acc |= (uint64_t)v[i] << nbits;
        nbits += bw;
        while (nbits >= 8) {
            *p++ = (uint8_t)acc;
            acc >>= 8;
            nbits -= 8;
        }
    }
}

hoodie_status hoodie_pq_bitpack(const uint32_t *values, size_t n, int bit_width, hoodie_buf *out)
{
    size_t full = n / 8, bytes = (n * (size_t)bit_width + 7) / 8;
    HOODIE_TRY(hoodie_buf_reserve(out, bytes + (size_t)bit_width));
    uint8_t *p = out->data + out->len;
    for (size_t g = 0; g < full; g++) pack8(values + g * 8, bit_width, p + g * (size_t)bit_width);
    if (n % 8) {
        uint32_t tail[8] = { 0 };
        uint8_t tmp[32];
        memcpy(tail, values + full * 8, (n % 8) * sizeof *tail);
        pack8(tail, bit_width, tmp);
        memcpy(p + full * (size_t)bit_width, tmp, bytes - full * (size_t)bit_width);
    }
    out->len += bytes;
    return HOODIE_OK;
}

hoodie_status hoodie_pq_plain_bool(const uint8_t *bytes, size_t n, hoodie_buf *out)
{
    size_t nb = (n + 7) / 8;
    HOODIE_TRY(hoodie_buf_reserve(out, nb));
    uint8_t *p = out->data + out->len;
    size_t i = 0, o = 0;
    for (; i + 8 <= n; i += 8, o++) {
        p[o] = (uint8_t)((bytes[i] & 1) | (bytes[i + 1] & 1) << 1 | (bytes[i + 2] & 1) << 2 | (bytes[i + 3] & 1) << 3 |
                         (bytes[i + 4] & 1) << 4 | (bytes[i + 5] & 1) << 5 | (bytes[i + 6] & 1) << 6 |
                         (bytes[i + 7] & 1) << 7);
    }
    if (i < n) {
        uint8_t b = 0;
        for (int k = 0; i < n; i++, k++) b |= (uint8_t)((bytes[i] & 1) << k);
        p[o++] = b;
    }
    out->len += nb;
    return HOODIE_OK;
}

/* ---- RLE / bit-packed hybrid ---- */

static inline uint32_t rle_get(const uint16_t *v16, const uint32_t *v32, size_t i)
{
    return v16 ? v16[i] : v32[i];
}

static size_t rle_run(const uint16_t *v16, const uint32_t *v32, size_t i, size_t n)
{
    uint32_t x = rle_get(v16, v32, i);
    size_t j = i + 1;
    if (v16) { while (j < n && v16[j] == x) j++; }
    else { while (j < n && v32[j] == x) j++; }
    return j - i;
}

hoodie_status hoodie_pq_rle_encode(const uint16_t *values16, const uint32_t *values32, size_t n, int bit_width,
                                   hoodie_buf *out)
{
    int vbytes = (bit_width + 7) / 8;
    size_t i = 0;
    while (i < n) {
        size_t run = rle_run(values16, values32, i, n);
        if (run >= 8 || bit_width == 0) {
            if (bit_width == 0) run = n - i;
            HOODIE_TRY(hoodie_buf_put_uvarint(out, (uint64_t)run << 1));
            uint32_t x = rle_get(values16, values32, i);
            for (int k = 0; k < vbytes; k++) HOODIE_TRY(hoodie_buf_putc(out, (uint8_t)(x >> (8 * k))));
            i += run;
            continue;
        }
        /* A literal section from i: extend until a run of >= 8 that still has >= 8 values after the next
         * multiple-of-8 boundary. */
        size_t j = i + run, end = n;
        while (j < n) {
            size_t r = rle_run(values16, values32, j, n);
            if (r >= 8) {
                size_t e = i + ((j - i + 7) / 8) * 8;
                if (j + r >= e + 8) { end = e; break; }
            }
            j += r;
        }
        size_t count = end - i, groups = (count + 7) / 8;
        HOODIE_TRY(hoodie_buf_put_uvarint(out, (uint64_t)groups << 1 | 1));
        HOODIE_TRY(hoodie_buf_reserve(out, groups * (size_t)bit_width + 8));
        uint8_t *p = out->data + out->len;
        uint32_t grp[8];
        for (size_t g = 0; g < groups; g++) {
            size_t base = i + g * 8;
            for (int k = 0; k < 8; k++) grp[k] = base + (size_t)k < end ? rle_get(values16, values32, base + (size_t)k) : 0;
            pack8(grp, bit_width, p + g * (size_t)bit_width);
        }
        out->len += groups * (size_t)bit_width;
        i = end;
    }
    return HOODIE_OK;
}

/* ---- DELTA_BINARY_PACKED ---- */

#define DBP_BLOCK 128
#define DBP_MINI 4
#define DBP_MINI_VALUES (DBP_BLOCK / DBP_MINI)

static uint64_t zigzag64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

/* Values as int64 (int32 columns sign-extended; deltas then wrap at 32 bits). */
static hoodie_status dbp_encode(const int64_t *v, size_t n, int is64, hoodie_buf *out)
{
    HOODIE_TRY(hoodie_buf_put_uvarint(out, DBP_BLOCK));
    HOODIE_TRY(hoodie_buf_put_uvarint(out, DBP_MINI));
    HOODIE_TRY(hoodie_buf_put_uvarint(out, n));
    HOODIE_TRY(hoodie_buf_put_uvarint(out, zigzag64(n ? v[0] : 0)));
    int64_t delta[DBP_BLOCK];
    uint64_t packed[DBP_BLOCK];
    size_t i = 1;
    while (i < n) {
        size_t cnt = n - i < DBP_BLOCK ? n - i : DBP_BLOCK;
        int64_t mind = INT64_MAX;
        for (size_t k = 0; k < cnt; k++) {
            int64_t d;
            if (is64) d = (int64_t)((uint64_t)v[i + k] - (uint64_t)v[i + k - 1]);
            else d = (int32_t)((uint32_t)v[i + k] - (uint32_t)v[i + k - 1]);
            delta[k] = d;
            if (d < mind) mind = d;
        }
        for (size_t k = 0; k < DBP_BLOCK; k++) {
            if (k < cnt) {
                uint64_t p = (uint64_t)delta[k] - (uint64_t)mind;
                packed[k] = is64 ? p : (uint32_t)p;
            } else {
                packed[k] = 0;
            }
        }
        HOODIE_TRY(hoodie_buf_put_uvarint(out, zigzag64(mind)));
        uint8_t widths[DBP_MINI];
        size_t minis = (cnt + DBP_MINI_VALUES - 1) / DBP_MINI_VALUES;
        for (size_t m = 0; m < DBP_MINI; m++) {
            uint64_t mx = 0;
            if (m < minis)
                for (size_t k = m * DBP_MINI_VALUES; k < (m + 1) * DBP_MINI_VALUES; k++) mx |= packed[k];
            widths[m] = (uint8_t)hoodie_pq_bit_width(mx);
        }
        HOODIE_TRY(hoodie_buf_append(out, widths, DBP_MINI));
        for (size_t m = 0; m < minis; m++)
            HOODIE_TRY(pack64(packed + m * DBP_MINI_VALUES, DBP_MINI_VALUES, widths[m], out));
        i += cnt;
    }
    return HOODIE_OK;
}

hoodie_status hoodie_pq_delta_binary_encode_i64(const int64_t *v, size_t n, hoodie_buf *out)
{
    return dbp_encode(v, n, 0, out);
}

hoodie_status hoodie_pq_delta_binary_encode(const uint8_t *plain, size_t n, int is64, hoodie_buf *out)
{
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return HOODIE_NOMEM();
    for (size_t i = 0; i < n; i++) {
        if (is64) { uint64_t x; memcpy(&x, plain + 8 * i, 8); v[i] = (int64_t)x; }
        else { int32_t x; memcpy(&x, plain + 4 * i, 4); v[i] = x; }
    }
    hoodie_status rc = dbp_encode(v, n, is64, out);
    free(v);
    return rc;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}

hoodie_status hoodie_pq_delta_length_encode(const uint8_t *plain, size_t plain_len, size_t n, hoodie_buf *out)
{
    int64_t *len = malloc((n ? n : 1) * sizeof *len);
    if (!len) return HOODIE_NOMEM();
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        len[i] = rd32(plain + off);
        off += 4 + (size_t)len[i];
    }
    (void)plain_len;
    hoodie_status rc = dbp_encode(len, n, 0, out);
    free(len);
    if (rc < 0) return rc;
    off = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t l = rd32(plain + off);
        HOODIE_TRY(hoodie_buf_append(out, plain + off + 4, l));
        off += 4 + l;
    }
    return HOODIE_OK;
}

hoodie_status hoodie_pq_delta_byte_array_encode(const uint8_t *plain, size_t plain_len, size_t n, int width,
                                                hoodie_buf *out)
{
    int64_t *pre = malloc((n ? n : 1) * sizeof *pre);
    hoodie_buf suffixes = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    if (!pre) return HOODIE_NOMEM();
    const uint8_t *prev = NULL;
    uint32_t prev_len = 0;
    size_t off = 0;
    for (size_t i = 0; i < n && rc == HOODIE_OK; i++) {
        uint32_t l;
        const uint8_t *p;
        if (width) { l = (uint32_t)width; p = plain + off; off += l; }
        else { l = rd32(plain + off); p = plain + off + 4; off += 4 + (size_t)l; }
        uint32_t k = 0, m = l < prev_len ? l : prev_len;
        while (k < m && p[k] == prev[k]) k++;
        pre[i] = k;
        rc = hoodie_buf_put_le32(&suffixes, l - k);
        if (rc == HOODIE_OK) rc = hoodie_buf_append(&suffixes, p + k, l - k);
        prev = p;
        prev_len = l;
    }
    (void)plain_len;
    if (rc == HOODIE_OK) rc = dbp_encode(pre, n, 0, out);
    if (rc == HOODIE_OK) rc = hoodie_pq_delta_length_encode(suffixes.data, suffixes.len, n, out);
    free(pre);
    hoodie_buf_dispose(&suffixes);
    return rc;
}

hoodie_status hoodie_pq_byte_stream_split(const uint8_t *plain, size_t n, int width, hoodie_buf *out)
{
    size_t total = n * (size_t)width;
    HOODIE_TRY(hoodie_buf_reserve(out, total));
    uint8_t *p = out->data + out->len;
    for (int k = 0; k < width; k++) {
        uint8_t *dst = p + (size_t)k * n;
        for (size_t i = 0; i < n; i++) dst[i] = plain[i * (size_t)width + (size_t)k];
    }
    out->len += total;
    return HOODIE_OK;
}
