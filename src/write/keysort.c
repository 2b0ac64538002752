/* Sorting input rows by record key (see keysort.h). */
#include "write/keysort.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

int hoodie_keyed_row_cmp(const void *a, const void *b)
{
    const hoodie_keyed_row *x = a, *y = b;
    int c = memcmp(x->k, y->k, x->len < y->len ? x->len : y->len);
    return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

/*
 * Faster than qsort's comparator calls: an LSD radix sort (16-bit digits, passes whose digit is the same for every
 * row skipped) on the keys' first 8 bytes read big-endian (zero padded, so that the order of the prefixes is
 * memcmp's), then the runs of equal prefixes by hoodie_keyed_row_cmp.
 */
typedef struct pfx_row { uint64_t pfx; size_t at; } pfx_row;

hoodie_status hoodie_keyed_rows_sort(hoodie_keyed_row *rows, size_t n)
{
    size_t run = 1; /* rows already in order (an input sorted by key, as many are) are left as they are */
    while (run < n && hoodie_keyed_row_cmp(&rows[run - 1], &rows[run]) <= 0) run++;
    if (run >= n) return HOODIE_OK;
    if (n < 64) {
        if (n > 1) qsort(rows, n, sizeof *rows, hoodie_keyed_row_cmp);
        return HOODIE_OK;
    }
    pfx_row *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    hoodie_keyed_row *out = malloc(n * sizeof *out);
    size_t(*hist)[65536] = calloc(4, sizeof *hist);
    if (!a || !b || !out || !hist) { free(a); free(b); free(out); free(hist); return HOODIE_NOMEM(); }
    for (size_t i = 0; i < n; i++) {
        uint8_t k8[8] = { 0 };
        memcpy(k8, rows[i].k, rows[i].len < 8 ? rows[i].len : 8);
        uint64_t v = 0;
        for (int j = 0; j < 8; j++) v = v << 8 | k8[j];
        a[i].pfx = v;
        a[i].at = i;
        for (int d = 0; d < 4; d++) hist[d][(v >> (16 * d)) & 0xffff]++;
    }
    for (int d = 0; d < 4; d++) {
        if (hist[d][(a[0].pfx >> (16 * d)) & 0xffff] == n) continue; /* one digit value: nothing to order */
        size_t sum = 0;
        for (size_t v = 0; v < 65536; v++) { size_t c = hist[d][v]; hist[d][v] = sum; sum += c; }
        for (size_t i = 0; i < n; i++) b[hist[d][(a[i].pfx >> (16 * d)) & 0xffff]++] = a[i];
        pfx_row *t = a; a = b; b = t;
    }
    for (size_t i = 0; i < n; i++) out[i] = rows[a[i].at];
    memcpy(rows, out, n * sizeof *rows);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && a[j].pfx == a[i].pfx) j++;
        if (j - i > 1) qsort(rows + i, j - i, sizeof *rows, hoodie_keyed_row_cmp);
        i = j;
    }
    free(a); free(b); free(out); free(hist);
    return HOODIE_OK;
}

/* (keysort.h) */
size_t hoodie_keyed_row_bound(const hoodie_keyed_row *rows, size_t n, const char *key, int upper)
{
    hoodie_keyed_row probe = { key, (uint32_t)strlen(key), 0 };
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = hoodie_keyed_row_cmp(&rows[mid], &probe);
        if (c < 0 || (upper && c == 0)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
