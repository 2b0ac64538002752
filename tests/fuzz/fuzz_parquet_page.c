/* Fuzz the encodings: the first byte picks a decoder, the rest is its input. */
#include "format/parquet/decode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint8_t sel = data[0], arg = data[1];
    const uint8_t *p = data + 2;
    size_t n = size - 2, count = (size_t)arg * 8 + 1;
    switch (sel % 6) {
    case 0: {
        hoodie_pq_rle d;
        uint32_t out[512];
        hoodie_pq_rle_init(&d, p, n, arg % 33);
        /* Runs may be huge; decode a bounded number of values. */
        for (int k = 0; k < 256 && hoodie_pq_rle_get_u32(&d, out, 512) == 512; k++) {}
        break;
    }
    case 1: {
        int16_t out[2048];
        (void)hoodie_pq_bitpacked_legacy_levels(p, n, arg % 17, out, count > 2048 ? 2048 : count);
        break;
    }
    case 2: {
        int64_t *out = malloc(count * sizeof *out);
        size_t got, used;
        if (out) (void)hoodie_pq_delta_binary_decode(p, n, count, out, &got, &used, "fuzz");
        free(out);
        break;
    }
    case 3: {
        int64_t *s = malloc(count * sizeof *s);
        int32_t *off = malloc((count + 1) * sizeof *off);
        const uint8_t *dd;
        size_t used;
        if (s && off) (void)hoodie_pq_delta_length_decode(p, n, count, s, off, &dd, &used, "fuzz");
        free(s);
        free(off);
        break;
    }
    case 4: {
        hoodie_buf b = HOODIE_BUF_INIT;
        int32_t *off = malloc((count + 1) * sizeof *off);
        if (off) (void)hoodie_pq_delta_byte_array_decode(p, n, count, &b, off, "fuzz");
        free(off);
        hoodie_buf_dispose(&b);
        break;
    }
    case 5: {
        size_t w = (size_t)(arg % 16) + 1, k = n / w;
        uint8_t *out = malloc(k * w + 1);
        if (out) (void)hoodie_pq_byte_stream_split_decode(p, n, k, w, out, "fuzz");
        free(out);
        break;
    }
    }
    return 0;
}
