/* hoodie get: point lookup of records by record key. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void get_usage(FILE *out)
{
    fprintf(out,
            "usage: hoodie get TABLE KEY... [--as-of T] [--columns a,b.c] [--format csv|jsonl|table]\n"
            "                  [--time] [-o FILE] [--metadata-table]\n"
            "\n"
            "  The latest (or as-of) version of each record key, with the columns of 'hoodie read'. On LSM tree\n"
            "  tables with the bucket index only the keys' file groups are read, and in them only the row groups\n"
            "  whose key statistics may hold a key. Elsewhere a base file that no log file follows is skipped\n"
            "  when its bloom filter holds none of the keys, and its row groups by their key statistics.\n"
            "  --metadata-table: files from the table's metadata table, and with its record index (the latest\n"
            "  snapshot) only the file groups it puts the keys in are read.\n"
            "  --time prints the lookup's time to stderr.\n");
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int cmd_get(int argc, char **argv)
{
    const char *table = NULL, *columns = NULL, *out_path = NULL;
    int timing = 0;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    hoodie_output_opts oo = HOODIE_OUTPUT_OPTS_INIT;
    oo.format = HOODIE_OUTPUT_CSV;
    const char **keys = calloc((size_t)argc + 1, sizeof *keys);
    size_t n_keys = 0;
    if (!keys) return cli_fail(HOODIE_ENOMEM, NULL);
    int code = -1;
    for (int i = 1; i < argc && code < 0; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { get_usage(stdout); code = CLI_OK; break; }
        if (!strcmp(a, "--time")) { timing = 1; continue; }
        if (!strcmp(a, "--metadata-table")) { to.flags |= HOODIE_OPEN_METADATA_TABLE; continue; }
        if (!strcmp(a, "--")) { for (i++; i < argc; i++) keys[n_keys++] = argv[i]; break; }
        int takes = !strcmp(a, "--as-of") || !strcmp(a, "--columns") || !strcmp(a, "--format") || !strcmp(a, "-o") ||
                    !strcmp(a, "--output");
        if (takes) {
            if (!v) { code = cli_usage("get: %s needs a value", a); break; }
            i++;
            if (!strcmp(a, "--as-of")) so.as_of = v;
            else if (!strcmp(a, "--columns")) columns = v;
            else if (!strcmp(a, "--format")) {
                if (!strcmp(v, "csv")) oo.format = HOODIE_OUTPUT_CSV;
                else if (!strcmp(v, "jsonl") || !strcmp(v, "json")) oo.format = HOODIE_OUTPUT_JSONL;
                else if (!strcmp(v, "table")) oo.format = HOODIE_OUTPUT_TABLE;
                else code = cli_usage("get: unknown format '%s' (csv, jsonl, table)", v);
            } else out_path = v;
        } else if (a[0] == '-' && a[1] == '-' && a[2]) code = cli_usage("get: unknown option '%s'", a);
        else if (!table) table = a;
        else keys[n_keys++] = a;
    }
    if (code < 0 && (!table || !n_keys)) { get_usage(stderr); code = CLI_USAGE; }
    if (code >= 0) { free(keys); return code; }

    char *colbuf = NULL;
    const char **cols = NULL;
    if (columns) {
        colbuf = strdup(columns);
        cols = calloc(strlen(columns) + 1, sizeof *cols);
        if (!colbuf || !cols) { free(colbuf); free(cols); free(keys); return cli_fail(HOODIE_ENOMEM, NULL); }
        for (char *tok = strtok(colbuf, ","); tok; tok = strtok(NULL, ",")) cols[so.n_columns++] = tok;
        so.columns = cols;
    }
    hoodie_table *t = NULL;
    struct ArrowArrayStream stream;
    hoodie_status rc = hoodie_table_open(&t, table, &to);
    double t0 = now_ms();
    if (rc == HOODIE_OK) rc = hoodie_table_get_opts(t, &so, keys, n_keys, &stream);
    if (rc == HOODIE_OK) rc = hoodie_output_stream(&stream, out_path, stdout, &oo, NULL);
    if (rc == HOODIE_OK && timing) fprintf(stderr, "lookup: %.3f ms\n", now_ms() - t0);
    code = rc < 0 ? cli_fail(rc, NULL) : CLI_OK;
    hoodie_table_free(t);
    free(colbuf);
    free(cols);
    free(keys);
    return code;
}
