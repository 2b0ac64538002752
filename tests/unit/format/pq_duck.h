/* Test-only: write Parquet files through a FILE* sink and query them with DuckDB (tests/oracle/duck.mjs). */
#ifndef HOODIE_TEST_PQ_DUCK_H
#define HOODIE_TEST_PQ_DUCK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/parquet/writer.h"
#include "util/error.h"

static inline hoodie_status pqd_file_write(void *ctx, const void *p, size_t n)
{
    return fwrite(p, 1, n, (FILE *)ctx) == n ? HOODIE_OK : HOODIE_FAIL(HOODIE_EIO, "fwrite failed");
}

/* Write `nb` batches (root arrays) with `schema` to `path`. */
static inline hoodie_status pqd_write(const char *path, const hoodie_field *schema, const hoodie_array *const *roots,
                                      size_t nb, const hoodie_pq_writer_opts *o)
{
    FILE *f = fopen(path, "wb");
    if (!f) return HOODIE_FAIL(HOODIE_EIO, "cannot create %s", path);
    hoodie_pq_sink sink = { f, pqd_file_write };
    hoodie_pq_writer *w = NULL;
    hoodie_status rc = hoodie_pq_writer_open(&w, schema, o, sink);
    for (size_t i = 0; rc == HOODIE_OK && i < nb; i++) rc = hoodie_pq_writer_write_array(w, roots[i]);
    if (rc == HOODIE_OK) rc = hoodie_pq_writer_close(w);
    hoodie_pq_writer_free(w);
    if (fclose(f) != 0 && rc == HOODIE_OK) rc = HOODIE_FAIL(HOODIE_EIO, "fclose failed");
    return rc;
}

/* Run SQL in DuckDB; returns malloc'ed stdout (NULL if node failed). `mode` is "--json" or "--csv". */
static inline char *pqd_duck(const char *mode, const char *sql)
{
    size_t cl = strlen(sql) * 2 + 256;
    char *cmd = malloc(cl);
    size_t o = (size_t)snprintf(cmd, cl, "node %s/tests/oracle/duck.mjs %s '", HOODIE_SOURCE_DIR, mode);
    for (const char *p = sql; *p; p++) {
        if (*p == '\'') { memcpy(cmd + o, "'\\''", 4); o += 4; }
        else cmd[o++] = *p;
    }
    cmd[o++] = '\'';
    cmd[o] = 0;
    FILE *f = popen(cmd, "r");
    free(cmd);
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    size_t n;
    while ((n = fread(out + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) { cap *= 2; out = realloc(out, cap); }
    }
    out[len] = 0;
    if (pclose(f) != 0) { fprintf(stderr, "duckdb failed for: %.300s...\n%s\n", sql, out); free(out); return NULL; }
    return out;
}

#endif
