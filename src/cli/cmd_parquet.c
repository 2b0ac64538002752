/* hoodie parquet schema|meta|cat: inspect and convert Parquet files. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void parquet_usage(FILE *out)
{
    fprintf(out,
            "usage: hoodie parquet schema FILE\n"
            "       hoodie parquet meta FILE [--json]\n"
            "       hoodie parquet cat FILE [--columns a,b.c] [--format csv|jsonl|parquet|table]\n"
            "                          [--codec snappy|zstd|gzip|lz4_raw|none] [--limit N] [-o OUT]\n"
            "\n"
            "  schema   print the Parquet schema and the Arrow types it reads as\n"
            "  meta     row groups, column chunks, encodings, codecs, statistics, key-value metadata\n"
            "  cat      decode every row; --format parquet writes it again through hoodie's writer\n");
}

/* Split "a,b.c" into a NULL-terminated vector (one malloc: pointers then the copied text). */
static char **split_list(const char *s, size_t *count)
{
    size_t n = 1, len = strlen(s);
    for (const char *p = s; *p; p++) n += *p == ',';
    char **v = malloc((n + 1) * sizeof *v + len + 1);
    if (!v) return NULL;
    char *text = (char *)(v + n + 1);
    memcpy(text, s, len + 1);
    size_t i = 0;
    for (char *tok = strtok(text, ","); tok; tok = strtok(NULL, ",")) v[i++] = tok;
    v[i] = NULL;
    *count = i;
    return v;
}

static int parse_format(const char *s, hoodie_output_format *out)
{
    if (!strcmp(s, "csv")) *out = HOODIE_OUTPUT_CSV;
    else if (!strcmp(s, "jsonl") || !strcmp(s, "json")) *out = HOODIE_OUTPUT_JSONL;
    else if (!strcmp(s, "parquet")) *out = HOODIE_OUTPUT_PARQUET;
    else if (!strcmp(s, "table")) *out = HOODIE_OUTPUT_TABLE;
    else return 0;
    return 1;
}

static int cmd_schema_or_meta(const char *file, int meta, int json)
{
    hoodie_parquet_reader *r = NULL;
    char *text = NULL;
    hoodie_status rc = hoodie_parquet_reader_open(&r, file, NULL);
    if (rc == HOODIE_OK)
        rc = meta ? hoodie_parquet_reader_describe(r, json, &text) : hoodie_parquet_reader_schema_text(r, &text);
    if (rc < 0) {
        hoodie_parquet_reader_free(r);
        return cli_fail(rc, NULL);
    }
    fputs(text, stdout);
    if (text[0] && text[strlen(text) - 1] != '\n') fputc('\n', stdout);
    free(text);
    hoodie_parquet_reader_free(r);
    return CLI_OK;
}

static int cmd_cat(const char *file, const char *columns, hoodie_output_format format, const char *codec,
                   int64_t limit, const char *out_path)
{
    hoodie_parquet_read_opts ropts = HOODIE_PARQUET_READ_OPTS_INIT;
    hoodie_parquet_write_opts wopts = HOODIE_PARQUET_WRITE_OPTS_INIT;
    hoodie_output_opts oopts = HOODIE_OUTPUT_OPTS_INIT;
    hoodie_parquet_reader *r = NULL;
    struct ArrowArrayStream stream;
    char **cols = NULL;
    size_t ncols = 0;
    int exit_code = CLI_OK;

    if (codec && !cli_parse_codec(codec, &wopts.codec)) return cli_usage("parquet cat: unknown codec '%s'", codec);
    if (format == HOODIE_OUTPUT_PARQUET && !out_path)
        return cli_usage("parquet cat: --format parquet needs -o OUT");
    if (columns) {
        cols = split_list(columns, &ncols);
        if (!cols) return cli_fail(HOODIE_ENOMEM, NULL);
        if (!ncols) { free(cols); return cli_usage("parquet cat: --columns needs at least one name"); }
        ropts.columns = (const char *const *)cols;
        ropts.n_columns = ncols;
    }
    oopts.format = format;
    oopts.parquet = &wopts;
    oopts.max_rows = limit;

    hoodie_status rc = hoodie_parquet_reader_open(&r, file, &ropts);
    if (rc == HOODIE_OK) rc = hoodie_parquet_reader_stream(r, &stream);
    if (rc == HOODIE_OK) rc = hoodie_output_stream(&stream, out_path, stdout, &oopts, NULL);
    if (rc < 0) exit_code = cli_fail(rc, NULL);
    hoodie_parquet_reader_free(r);
    free(cols);
    if (fflush(stdout) != 0 && exit_code == CLI_OK) {
        perror("hoodie: stdout");
        exit_code = CLI_ERROR;
    }
    return exit_code;
}

int cmd_parquet(int argc, char **argv)
{
    const char *sub, *file = NULL, *columns = NULL, *codec = NULL, *out_path = NULL;
    hoodie_output_format format = HOODIE_OUTPUT_CSV;
    int json = 0;
    int64_t limit = 0;

    if (argc < 2) { parquet_usage(stderr); return CLI_USAGE; }
    sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) { parquet_usage(stdout); return CLI_OK; }
    if (strcmp(sub, "schema") && strcmp(sub, "meta") && strcmp(sub, "cat"))
        return cli_usage("parquet: unknown subcommand '%s' (schema, meta, cat)", sub);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { parquet_usage(stdout); return CLI_OK; }
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--columns") || !strcmp(a, "--format") || !strcmp(a, "--codec") || !strcmp(a, "-o") ||
                 !strcmp(a, "--output") || !strcmp(a, "--limit")) {
            if (!val) return cli_usage("parquet %s: %s needs a value", sub, a);
            i++;
            if (!strcmp(a, "--columns")) columns = val;
            else if (!strcmp(a, "--codec")) codec = val;
            else if (!strcmp(a, "-o") || !strcmp(a, "--output")) out_path = val;
            else if (!strcmp(a, "--limit")) {
                char *end;
                limit = strtoll(val, &end, 10);
                if (*end || limit < 0) return cli_usage("parquet %s: --limit needs a non-negative number", sub);
            } else if (!parse_format(val, &format))
                return cli_usage("parquet %s: unknown format '%s' (csv, jsonl, parquet, table)", sub, val);
        } else if (a[0] == '-' && a[1]) return cli_usage("parquet %s: unknown option '%s'", sub, a);
        else if (!file) file = a;
        else return cli_usage("parquet %s: unexpected argument '%s'", sub, a);
    }
    if (!file) return cli_usage("parquet %s: missing FILE", sub);
    if (!strcmp(sub, "cat")) return cmd_cat(file, columns, format, codec, limit, out_path);
    if (columns || codec || out_path) return cli_usage("parquet %s: only 'cat' takes --columns, --codec, -o", sub);
    return cmd_schema_or_meta(file, !strcmp(sub, "meta"), json);
}
