#include "read/lookup.h"
#include "merge/sorted_merge.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

static int key_order(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    return hoodie_sorted_key_compare((const uint8_t *)x, strlen(x), (const uint8_t *)y, strlen(y));
}

hoodie_status hoodie_table_get_opts(hoodie_table *t, const hoodie_scan_opts *opts, const char *const *keys, size_t n,
                                    struct ArrowArrayStream *out)
{
    hoodie_scan_opts o = HOODIE_SCAN_OPTS_INIT;
    if (opts) o = *opts;
    if (!t || !out) return HOODIE_FAIL(HOODIE_EINVAL, "hoodie_table_get: table and stream are required");
    if (!n || !keys) return HOODIE_FAIL(HOODIE_EINVAL, "a point lookup needs at least one record key");
    if (o.query != HOODIE_QUERY_SNAPSHOT) return HOODIE_FAIL(HOODIE_EINVAL, "a point lookup is a snapshot query");
    if (o.filter) return HOODIE_FAIL(HOODIE_EINVAL, "a point lookup takes no filter");
    const char **sorted = malloc(n * sizeof *sorted);
    if (!sorted) return HOODIE_NOMEM();
    for (size_t i = 0; i < n; i++) {
        if (!keys[i]) { free(sorted); return HOODIE_FAIL(HOODIE_EINVAL, "record key %zu is NULL", i); }
        sorted[i] = keys[i];
    }
    qsort(sorted, n, sizeof *sorted, key_order);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || key_order(&sorted[u - 1], &sorted[i]) != 0) sorted[u++] = sorted[i];
    /* the filter selects the keys for every path (and prunes partitions and row groups of other tables) */
    hoodie_buf f = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_append_str(&f, "_hoodie_record_key IN (");
    for (size_t i = 0; rc == HOODIE_OK && i < u; i++) {
        rc = hoodie_buf_append_str(&f, i ? ", '" : "'");
        for (const char *p = sorted[i]; rc == HOODIE_OK && *p; p++)
            rc = *p == '\'' ? hoodie_buf_append_str(&f, "''") : hoodie_buf_putc(&f, (uint8_t)*p);
        if (rc == HOODIE_OK) rc = hoodie_buf_putc(&f, '\'');
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&f, ")");
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&f);
    if (rc == HOODIE_OK) {
        o.filter = (const char *)f.data;
        rc = hoodie_read__scan_keys(t, &o, sorted, u, out);
    }
    hoodie_buf_dispose(&f);
    free(sorted);
    return rc;
}

hoodie_status hoodie_table_get(hoodie_table *t, const char *const *keys, size_t n, struct ArrowArrayStream *out)
{
    return hoodie_table_get_opts(t, NULL, keys, n, out);
}
