/* hoodie read: query a table (snapshot, read-optimized, time travel, incremental, CDC). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void read_usage(FILE *out)
{
    fprintf(out,
            "usage: hoodie read TABLE [--query snapshot|read_optimized|incremental|cdc] [--as-of T]\n"
            "                   [--from T] [--to T] [--columns a,b.c] [--filter EXPR]\n"
            "                   [--format csv|jsonl|parquet|table] [--limit N] [-o FILE] [--merge-memory MB]\n"
            "                   [--metadata-table]\n"
            "\n"
            "  --as-of T     time travel to instant T (yyyyMMddHHmmssSSS)\n"
            "  --from/--to   incremental window (from, to]; completion times on table version 8+\n"
            "  --query cdc   the changes of each commit in (from, to]: op (i, u, d), ts_ms (the commit), before and\n"
            "                after (the record's columns as JSON, or null), as Hudi's CDC query gives them\n"
            "  --filter      e.g. \"city = 'sao_paulo' AND fare > 20 AND rider IN ('a','b') AND x IS NULL\"\n"
            "  --merge-memory MB  memory a file slice's merge holds its decoded log records in (default 1024,\n"
            "                as Hudi's hoodie.memory.merge.max.size); past a quarter of it, Avro log records\n"
            "                stay in the log files (keys and ordering values in memory, records decoded when\n"
            "                merged); a slice whose records take more still is merged in key-hash partitions,\n"
            "                a pass over the base file each\n"
            "  --metadata-table  the partitions and files as the table's metadata table records them (its files\n"
            "                partition), not a listing of storage; with --filter, file slices its column statistics\n"
            "                rule out are not read; tables without one are listed\n");
}

int cmd_read(int argc, char **argv)
{
    const char *table = NULL, *columns = NULL, *out_path = NULL;
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    hoodie_output_opts oo = HOODIE_OUTPUT_OPTS_INIT;
    hoodie_parquet_write_opts wo = HOODIE_PARQUET_WRITE_OPTS_INIT;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    oo.format = HOODIE_OUTPUT_CSV;
    oo.parquet = &wo;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { read_usage(stdout); return CLI_OK; }
        int takes = !strcmp(a, "--query") || !strcmp(a, "--as-of") || !strcmp(a, "--from") || !strcmp(a, "--to") ||
                    !strcmp(a, "--columns") || !strcmp(a, "--filter") || !strcmp(a, "--format") ||
                    !strcmp(a, "--limit") || !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--merge-memory");
        if (takes) {
            if (!v) return cli_usage("read: %s needs a value", a);
            i++;
            if (!strcmp(a, "--query")) {
                if (!strcmp(v, "snapshot")) so.query = HOODIE_QUERY_SNAPSHOT;
                else if (!strcmp(v, "read_optimized") || !strcmp(v, "ro")) so.query = HOODIE_QUERY_READ_OPTIMIZED;
                else if (!strcmp(v, "incremental")) so.query = HOODIE_QUERY_INCREMENTAL;
                else if (!strcmp(v, "cdc")) so.query = HOODIE_QUERY_CDC;
                else return cli_usage("read: unknown query type '%s' (snapshot, read_optimized, incremental, cdc)", v);
            } else if (!strcmp(a, "--as-of")) so.as_of = v;
            else if (!strcmp(a, "--from")) so.from = v;
            else if (!strcmp(a, "--to")) so.to = v;
            else if (!strcmp(a, "--columns")) columns = v;
            else if (!strcmp(a, "--filter")) so.filter = v;
            else if (!strcmp(a, "--limit")) {
                char *end;
                oo.max_rows = strtoll(v, &end, 10);
                if (*end || oo.max_rows < 0) return cli_usage("read: --limit needs a non-negative number");
            } else if (!strcmp(a, "--merge-memory")) {
                if (!cli_parse_mb(v, &so.merge_memory)) return cli_usage("read: --merge-memory needs a positive number of MB");
            } else if (!strcmp(a, "--format")) {
                if (!strcmp(v, "csv")) oo.format = HOODIE_OUTPUT_CSV;
                else if (!strcmp(v, "jsonl") || !strcmp(v, "json")) oo.format = HOODIE_OUTPUT_JSONL;
                else if (!strcmp(v, "parquet")) oo.format = HOODIE_OUTPUT_PARQUET;
                else if (!strcmp(v, "table")) oo.format = HOODIE_OUTPUT_TABLE;
                else return cli_usage("read: unknown format '%s' (csv, jsonl, parquet, table)", v);
            } else out_path = v;
        } else if (!strcmp(a, "--metadata-table")) {
            to.flags |= HOODIE_OPEN_METADATA_TABLE;
        } else if (a[0] == '-' && a[1]) return cli_usage("read: unknown option '%s'", a);
        else if (!table) table = a;
        else return cli_usage("read: unexpected argument '%s'", a);
    }
    if (!table) { read_usage(stderr); return CLI_USAGE; }
    if (oo.format == HOODIE_OUTPUT_PARQUET && !out_path) return cli_usage("read: --format parquet needs -o FILE");
    if ((so.from || so.to) && so.query != HOODIE_QUERY_INCREMENTAL && so.query != HOODIE_QUERY_CDC)
        return cli_usage("read: --from/--to need --query incremental or cdc");

    char *colbuf = NULL;
    const char **cols = NULL;
    if (columns) {
        colbuf = strdup(columns);
        cols = calloc(strlen(columns) + 1, sizeof *cols);
        if (!colbuf || !cols) { free(colbuf); free(cols); return cli_fail(HOODIE_ENOMEM, NULL); }
        for (char *tok = strtok(colbuf, ","); tok; tok = strtok(NULL, ",")) cols[so.n_columns++] = tok;
        so.columns = cols;
    }
    hoodie_table *t = NULL;
    struct ArrowArrayStream stream;
    hoodie_status rc = hoodie_table_open(&t, table, &to);
    if (rc == HOODIE_OK) rc = hoodie_table_scan(t, &so, &stream);
    if (rc == HOODIE_OK) rc = hoodie_output_stream(&stream, out_path, stdout, &oo, NULL);
    int code = rc < 0 ? cli_fail(rc, NULL) : CLI_OK;
    hoodie_table_free(t);
    free(colbuf);
    free(cols);
    return code;
}
