#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct cli_cmd { const char *name; cli_cmd_fn fn; const char *summary; } cli_cmd;

static const cli_cmd commands[] = {
    { "read", cmd_read, "Query a table: snapshot, read-optimized, time travel, incremental" },
    { "sql", cmd_sql, "SQL (SQLite) over tables: joins, aggregates, time travel, incremental" },
    { "get", cmd_get, "Point lookup: the latest version of records by record key" },
    { "describe", cmd_describe, "Show a table's type, version, keys, merge mode and schema" },
    { "timeline", cmd_timeline, "List the instants of a table's active timeline" },
    { "fsview", cmd_fsview, "Show partitions, file groups and file slices (--as-of T)" },
    { "metadata", cmd_metadata, "What the metadata table records: partitions, files, validate, lookup" },
    { "write", cmd_write, "Write rows into a table: insert, upsert, delete, bulk_insert, insert_overwrite, ..." },
    { "ingest", cmd_ingest, "Stream JSON lines or Debezium change events into a table, exactly once" },
    { "create", cmd_create, "Create an empty Hudi table (table version 8 or 6, COW or MOR)" },
    { "alter", cmd_alter, "Rename, drop or add columns (ALTER TABLE, schema on read: files stay as written)" },
    { "compact", cmd_compact, "Schedule and/or run compaction of a MOR table's file slices" },
    { "logcompact", cmd_logcompact, "Merge the log files of each latest file slice into one" },
    { "cluster", cmd_cluster, "Rewrite small file groups into larger ones, sorted by columns" },
    { "clean", cmd_clean, "Delete file versions that the clean policy no longer needs" },
    { "archive", cmd_archive, "Move old instants from the active to the archived timeline" },
    { "rollback", cmd_rollback, "Roll back a pending or the latest completed write" },
    { "savepoint", cmd_savepoint, "Create, delete or list savepoints" },
    { "restore", cmd_restore, "Restore the table to a savepoint" },
    { "parquet", cmd_parquet, "Inspect and convert Parquet files (schema, meta, cat)" },
};

int cli_fail(hoodie_status rc, const char *context)
{
    const hoodie_error *e = hoodie_error_last();
    if (context) fprintf(stderr, "hoodie: %s: %s\n", context, e->message[0] ? e->message : hoodie_status_str(rc));
    else fprintf(stderr, "hoodie: %s\n", e->message[0] ? e->message : hoodie_status_str(rc));
    switch (rc) {
    case HOODIE_ECORRUPT: return CLI_CORRUPT;
    case HOODIE_ECONFLICT: return CLI_CONFLICT;
    case HOODIE_EVALIDATION: return CLI_REFUSED;
    case HOODIE_EINVAL: return CLI_USAGE;
    default: return CLI_ERROR;
    }
}

int cli_usage(const char *fmt, ...)
{
    va_list ap;
    fputs("hoodie: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_USAGE;
}

int cli_parse_codec(const char *v, hoodie_parquet_codec *out)
{
    static const struct { const char *name; hoodie_parquet_codec codec; } codecs[] = {
        { "snappy", HOODIE_PARQUET_CODEC_SNAPPY }, { "zstd", HOODIE_PARQUET_CODEC_ZSTD },
        { "gzip", HOODIE_PARQUET_CODEC_GZIP },     { "lz4_raw", HOODIE_PARQUET_CODEC_LZ4_RAW },
        { "lz4", HOODIE_PARQUET_CODEC_LZ4_RAW },   { "none", HOODIE_PARQUET_CODEC_UNCOMPRESSED },
        { "uncompressed", HOODIE_PARQUET_CODEC_UNCOMPRESSED },
    };
    for (size_t i = 0; v && i < sizeof codecs / sizeof *codecs; i++)
        if (!strcasecmp(v, codecs[i].name)) { *out = codecs[i].codec; return 1; }
    return 0;
}

int cli_parse_mb(const char *v, int64_t *bytes)
{
    char *end;
    double mb = v ? strtod(v, &end) : 0;
    if (!v || *end || !(mb > 0) || mb > 1e9) return 0;
    *bytes = (int64_t)(mb * 1048576.0) > 0 ? (int64_t)(mb * 1048576.0) : 1;
    return 1;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: hoodie <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nRun 'hoodie <command> --help' for the options of a command.\n");
}

/* The writers and services allocate and free buffers of tens of megabytes per file: keep freed memory for reuse
 * rather than paying for zeroed pages again (hoodie_tune_process), with a huge-page heap unless HOODIE_HUGEPAGES=0. */
int main(int argc, char **argv)
{
    hoodie_tune_process(argv);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("hoodie %d.%d.%d\n", HOODIE_VERSION_MAJOR, HOODIE_VERSION_MINOR, HOODIE_VERSION_PATCH);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "hoodie: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
