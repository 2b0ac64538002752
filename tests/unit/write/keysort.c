#include "hoodie_test.h"
#include "write/keysort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hoodie_keyed_rows_sort against qsort with hoodie_keyed_row_cmp: keys sharing 8-byte prefixes, shorter than 8
 * bytes, empty; inputs already in order (left as they are), in order but for the last row, reversed, shuffled. */
static void sort_case(size_t n, int order)
{
    char *text = malloc(n * 16);
    hoodie_keyed_row *rows = malloc(n * sizeof *rows), *want = malloc(n * sizeof *want);
    hoodie_assert(text && rows && want);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        char *k = text + i * 16;
        size_t j = order == 3 ? (size_t)((x ^= x << 13, x ^= x >> 7, x ^= x << 17) % n) : i;
        int l = j % 17 == 5 ? snprintf(k, 16, "%zu", j % 1000) /* short keys */
                            : snprintf(k, 16, "prefix%02zu%05zu", j / 100000 % 100, j % 100000);
        if (j % 101 == 7) l = 0; /* empty */
        rows[i].k = k;
        rows[i].len = (uint32_t)l;
        rows[i].row = (uint32_t)i;
    }
    if (order == 0 || order == 1) qsort(rows, n, sizeof *rows, hoodie_keyed_row_cmp); /* in order */
    if (order == 1 && n > 1) { hoodie_keyed_row t = rows[n - 1]; rows[n - 1] = rows[0]; rows[0] = t; }
    if (order == 2) { /* reversed */
        qsort(rows, n, sizeof *rows, hoodie_keyed_row_cmp);
        for (size_t i = 0; i < n / 2; i++) { hoodie_keyed_row t = rows[i]; rows[i] = rows[n - 1 - i]; rows[n - 1 - i] = t; }
    }
    memcpy(want, rows, n * sizeof *rows);
    qsort(want, n, sizeof *want, hoodie_keyed_row_cmp);
    uint32_t first_row = n ? rows[0].row : 0;
    hoodie_assert_ok(hoodie_keyed_rows_sort(rows, n));
    for (size_t i = 0; i < n; i++) {
        hoodie_assert(hoodie_keyed_row_cmp(&want[i], &rows[i]) == 0);
        if (i) hoodie_assert(hoodie_keyed_row_cmp(&rows[i - 1], &rows[i]) <= 0);
    }
    if (order == 0 && n) hoodie_assert_equal_i(first_row, rows[0].row); /* untouched */
    free(text);
    free(rows);
    free(want);
}

HOODIE_TEST(write_keysort__orders_as_memcmp_whatever_the_input_order)
{
    static const size_t sizes[] = { 0, 1, 2, 63, 64, 65, 1000, 70000 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int order = 0; order < 4; order++) sort_case(sizes[s], order);
}
