/* hoodie write: one commit of insert / upsert / delete / bulk_insert / insert_overwrite(_table) / delete_partition. */
#include "cli.h"
#include "hoodie/writer.h"
#include "hoodie/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static void write_usage(FILE *out)
{
    fprintf(out,
            "usage: hoodie write TABLE --op OP --input FILE [--input FILE ...] [--input-format csv|jsonl|parquet]\n"
            "                    [--small-file-limit BYTES] [--max-file-size BYTES] [--codec snappy|zstd|gzip|lz4_raw|none]\n"
            "                    [--combine-before-insert] [--log-block-format avro|parquet] [--delete-column F]\n"
            "                    [--index bloom|simple|global_bloom|global_simple|record_index]\n"
            "                    [--update-partition-path true|false]\n"
            "                    [--set-null-for-missing-columns | --partial-updates]\n"
            "                    [--validate-single-value 'QUERY#EXPECTED'] [--validate-equality QUERY]\n"
            "                    [--validate-inequality QUERY] [--validate-policy fail|warn_log] [--props FILE]\n"
            "\n"
            "  OP: insert, upsert, delete, bulk_insert, insert_overwrite, insert_overwrite_table, delete_partition\n"
            "  The input format is taken from the file name (.csv, .jsonl/.json, .parquet) unless given.\n"
            "  For delete, rows need the record key fields (and the partition fields).\n"
            "  Other operations need every column of the table, as Hudi does (hoodie.write.set.null.for.missing.\n"
            "  columns=false): an upsert would store nulls over the values it lacks. --set-null-for-missing-columns\n"
            "  writes nulls there. JSON lines records may leave out what they have no value for (null).\n"
            "  --partial-updates (upsert): the input's columns update those columns only, the others keep their\n"
            "  stored values, as Spark SQL's MERGE INTO ... UPDATE SET of some columns: MOR (version 8) writes log\n"
            "  blocks of those columns marked IS_PARTIAL, as Spark does; COW merges with the stored records. New\n"
            "  keys get nulls there. The input needs the key, partition and ordering fields.\n"
            "  --delete-column F (upsert): the rows whose boolean column F is true delete their keys, in the same\n"
            "  commit as the other rows' upserts (F is not stored). A delete row is a whole row: its ordering value\n"
            "  counts, as the other rows'.\n"
            "  insert and bulk_insert write every input row, as Hudi does by default; --combine-before-insert keeps\n"
            "  one record per key, chosen by the ordering field (hoodie.combine.before.insert=true). Upserts always\n"
            "  combine.\n"
            "  Inserts first fill file groups whose base file is under --small-file-limit (100 MiB; 0 turns this\n"
            "  off, as hoodie.parquet.small.file.limit=0), up to --max-file-size (120 MiB).\n"
            "  MOR updates go to log files as Avro data blocks (Hudi's default); --log-block-format parquet writes\n"
            "  Parquet data blocks instead (hoodie.logfile.data.block.format=parquet), compressed with --codec.\n"
            "  Inline table services after the commit: --compact-every N (MOR: compact when N delta commits are\n"
            "  uncompacted), --clean (default policy), --archive (default keep.min/max.commits).\n"
            "  --index record_index (hoodie.index.type=RECORD_INDEX): upserts and deletes find their keys in the\n"
            "  metadata table's record index (hoodie metadata TABLE init --record-index) instead of bloom filters\n"
            "  and the base files' keys; --index global_bloom (GLOBAL_BLOOM): in every partition's base files.\n"
            "  Both are global: input rows combine by key alone, and a key the input puts in another partition\n"
            "  than the one it is in is updated (or deleted) there with --update-partition-path false (the record\n"
            "  index's default), or moved with true (global_bloom's default): deleted where it is and inserted in\n"
            "  the input's partition when the input wins over the stored record by the table's ordering.\n"
            CLI_VALIDATE_USAGE
            "  --props also sets hoodie.datasource.write.operation, hoodie.parquet.small.file.limit,\n"
            "  hoodie.parquet.max.file.size, hoodie.parquet.compression.codec, hoodie.logfile.data.block.format,\n"
            "  hoodie.combine.before.insert, hoodie.index.type (BLOOM, GLOBAL_BLOOM, RECORD_INDEX: the metadata\n"
            "  table's record index, see hoodie metadata; SIMPLE and GLOBAL_SIMPLE find the same file groups as\n"
            "  BLOOM and GLOBAL_BLOOM, and are looked up as those), hoodie.{record,bloom,simple}.index.update.\n"
            "  partition.path (the global index's own), hoodie.index.bloom.num_entries and\n"
            "  hoodie.write.set.null.for.missing.columns (what comes later on the command line wins).\n");
}

int cli_parse_index(const char *v, hoodie_write_opts *wo, int *simple)
{
    /* SIMPLE indexes find the same file groups as the bloom ones (the base files' keys decide; bloom filters only
     * spare reading files that cannot hold a key) */
    int global = !strcasecmp(v, "global_bloom") || !strcasecmp(v, "global_simple");
    int rli = !strcasecmp(v, "record_index");
    if (!global && !rli && strcasecmp(v, "bloom") && strcasecmp(v, "simple")) return 0;
    wo->record_index = rli;
    wo->global_bloom = global;
    *simple = !strcasecmp(v, "simple") || !strcasecmp(v, "global_simple");
    return 1;
}

int cli_parse_upp(const char *v, int *out)
{
    if (v && !strcasecmp(v, "true")) *out = 1;
    else if (v && !strcasecmp(v, "false")) *out = -1;
    else return 0;
    return 1;
}

static int parse_op(const char *s, hoodie_write_operation *op)
{
    static const struct { const char *n; hoodie_write_operation op; } ops[] = {
        { "upsert", HOODIE_WRITE_UPSERT }, { "insert", HOODIE_WRITE_INSERT }, { "bulk_insert", HOODIE_WRITE_BULK_INSERT },
        { "delete", HOODIE_WRITE_DELETE }, { "insert_overwrite", HOODIE_WRITE_INSERT_OVERWRITE },
        { "insert_overwrite_table", HOODIE_WRITE_INSERT_OVERWRITE_TABLE },
        { "delete_partition", HOODIE_WRITE_DELETE_PARTITION },
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(s, ops[i].n)) { *op = ops[i].op; return 1; }
    return 0;
}

/* A log data block format (hoodie.logfile.data.block.format's, any case): 0 if unknown. */
static int parse_block_format(const char *v, hoodie_log_block_format *out)
{
    if (!strcasecmp(v, "avro")) *out = HOODIE_LOG_BLOCK_AVRO;
    else if (!strcasecmp(v, "parquet")) *out = HOODIE_LOG_BLOCK_PARQUET;
    else return 0;
    return 1;
}

/* Hudi's write settings that hoodie write takes from --props (later options and --props files win). */
typedef struct write_props {
    hoodie_write_opts *wo;
    int *have_op;
    int rli_upp, bloom_upp, simple_upp; /* the global indexes' update.partition.path: 1 true, -1 false, 0 unset */
    int simple;                      /* SIMPLE or GLOBAL_SIMPLE asked for */
} write_props;

static int prop_bytes(const char *v, int64_t *out)
{
    char *end;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || x < 0) return 0;
    *out = x;
    return 1;
}

static int write_prop(void *ctx, const char *key, const char *v, const char *where)
{
    write_props *p = ctx;
    hoodie_write_opts *wo = p->wo;
    int64_t x;
    if (!strcmp(key, "hoodie.datasource.write.operation")) {
        if (!parse_op(v, &wo->op)) return cli_usage("%s: %s: unknown operation '%s'", where, key, v);
        *p->have_op = 1;
    } else if (!strcmp(key, "hoodie.parquet.small.file.limit")) {
        if (!prop_bytes(v, &x)) return cli_usage("%s: %s needs a number of bytes, not '%s'", where, key, v);
        wo->small_file_limit = x ? x : HOODIE_NO_SMALL_FILES;
    } else if (!strcmp(key, "hoodie.parquet.max.file.size")) {
        if (!prop_bytes(v, &x) || !x)
            return cli_usage("%s: %s needs a positive number of bytes, not '%s'", where, key, v);
        wo->max_file_size = x;
    } else if (!strcmp(key, "hoodie.parquet.compression.codec")) {
        if (!cli_parse_codec(v, &wo->codec))
            return cli_usage("%s: %s: codec '%s' is not one hoodie writes (snappy, zstd, gzip, lz4_raw, uncompressed)", where,
                             key, v);
    } else if (!strcmp(key, "hoodie.logfile.data.block.format")) {
        if (!parse_block_format(v, &wo->log_block_format))
            return cli_usage("%s: %s: '%s' is not a log block format hoodie writes (avro, parquet)", where, key, v);
    } else if (!strcmp(key, "hoodie.write.set.null.for.missing.columns")) {
        if (!strcasecmp(v, "true")) wo->set_null_for_missing_columns = 1;
        else if (!strcasecmp(v, "false")) wo->set_null_for_missing_columns = 0;
        else return cli_usage("%s: %s is true or false, not '%s'", where, key, v);
    } else if (!strcmp(key, "hoodie.combine.before.insert")) {
        if (!strcasecmp(v, "true")) wo->combine_before_insert = 1;
        else if (!strcasecmp(v, "false")) wo->combine_before_insert = 0;
        else return cli_usage("%s: %s is true or false, not '%s'", where, key, v);
    } else if (!strcmp(key, "hoodie.index.type")) {
        if (!cli_parse_index(v, wo, &p->simple))
            return cli_usage("%s: %s: '%s' is not an index hoodie looks keys up with (BLOOM, SIMPLE, GLOBAL_BLOOM, "
                              "GLOBAL_SIMPLE, RECORD_INDEX; a bucket index is the table's, chosen at create)", where,
                              key, v);
    } else if (!strcmp(key, "hoodie.record.index.update.partition.path") ||
               !strcmp(key, "hoodie.bloom.index.update.partition.path") ||
               !strcmp(key, "hoodie.simple.index.update.partition.path")) {
        int *upp = !strcmp(key, "hoodie.record.index.update.partition.path")  ? &p->rli_upp
                   : !strcmp(key, "hoodie.bloom.index.update.partition.path") ? &p->bloom_upp
                                                                              : &p->simple_upp;
        if (!cli_parse_upp(v, upp)) return cli_usage("%s: %s is true or false, not '%s'", where, key, v);
    } else if (!strcmp(key, "hoodie.index.bloom.num_entries")) {
        if (!prop_bytes(v, &x) || !x || x > INT32_MAX)
            return cli_usage("%s: %s needs a positive number of keys, not '%s'", where, key, v);
        wo->bloom_num_entries = (int32_t)x;
    } else {
        return -1;
    }
    return CLI_OK;
}

int cmd_write(int argc, char **argv)
{
    const char *table = NULL, *format = NULL;
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    size_t n_inputs = 0;
    int have_op = 0;
    int64_t compact_every = 0;
    int inline_clean = 0, inline_archive = 0;
    hoodie_write_opts wo = HOODIE_WRITE_OPTS_INIT;
    write_props wp = { &wo, &have_op, 0, 0, 0, 0 };
    int upp = 0; /* --update-partition-path */
    cli_validators val = { { NULL, NULL, NULL }, { 0, 0, 0 }, write_prop, &wp, 0 };
    if (!inputs) return cli_fail(HOODIE_ENOMEM, NULL);
    int code = CLI_OK;
    for (int i = 1; i < argc && code == CLI_OK; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { write_usage(stdout); free(inputs); return CLI_OK; }
        int took, vc = cli_validators_option(&val, a, v, &took);
        if (vc >= 0) { code = vc; i += took; continue; }
        int takes = !strcmp(a, "--op") || !strcmp(a, "--input") || !strcmp(a, "--input-format") ||
                    !strcmp(a, "--small-file-limit") || !strcmp(a, "--max-file-size") || !strcmp(a, "--codec") ||
                    !strcmp(a, "--log-block-format") || !strcmp(a, "--delete-column") || !strcmp(a, "--index") ||
                    !strcmp(a, "--update-partition-path");
        if (takes && !v) { code = cli_usage("write: %s needs a value", a); break; }
        if (!strcmp(a, "--op")) {
            if (!parse_op(v, &wo.op)) code = cli_usage("write: unknown operation '%s'", v);
            have_op = 1;
            i++;
        } else if (!strcmp(a, "--input")) { inputs[n_inputs++] = v; i++; }
        else if (!strcmp(a, "--input-format")) { format = v; i++; }
        else if (!strcmp(a, "--small-file-limit") || !strcmp(a, "--max-file-size")) {
            char *end;
            long long x = strtoll(v, &end, 10);
            int small = !strcmp(a, "--small-file-limit");
            if (*end || x < 0 || (x == 0 && !small))
                code = cli_usage(small ? "write: %s needs a number of bytes (0: no small-file handling)"
                                       : "write: %s needs a positive number of bytes", a);
            else if (small) wo.small_file_limit = x ? x : HOODIE_NO_SMALL_FILES;
            else wo.max_file_size = x;
            i++;
        } else if (!strcmp(a, "--index")) {
            if (!cli_parse_index(v, &wo, &wp.simple))
                code = cli_usage("write: --index is bloom, simple, global_bloom, global_simple or record_index, not "
                                 "'%s'", v);
            i++;
        } else if (!strcmp(a, "--codec")) {
            if (!cli_parse_codec(v, &wo.codec)) code = cli_usage("write: unknown codec '%s'", v);
            i++;
        } else if (!strcmp(a, "--log-block-format")) {
            if (!parse_block_format(v, &wo.log_block_format))
                code = cli_usage("write: unknown log block format '%s' (avro or parquet)", v);
            i++;
        } else if (!strcmp(a, "--delete-column")) {
            wo.delete_column = v;
            i++;
        } else if (!strcmp(a, "--update-partition-path")) {
            if (!cli_parse_upp(v, &upp)) code = cli_usage("write: --update-partition-path is true or false");
            i++;
        } else if (!strcmp(a, "--compact-every")) {
            char *end;
            long long x = v ? strtoll(v, &end, 10) : 0;
            if (!v || *end || x <= 0) code = cli_usage("write: --compact-every needs a positive number");
            compact_every = x;
            i++;
        } else if (!strcmp(a, "--clean")) inline_clean = 1;
        else if (!strcmp(a, "--combine-before-insert")) wo.combine_before_insert = 1;
        else if (!strcmp(a, "--set-null-for-missing-columns")) wo.set_null_for_missing_columns = 1;
        else if (!strcmp(a, "--partial-updates")) wo.partial_updates = 1;
        else if (!strcmp(a, "--archive")) inline_archive = 1;
        else if (a[0] == '-' && a[1]) code = cli_usage("write: unknown option '%s'", a);
        else if (!table) table = a;
        else code = cli_usage("write: unexpected argument '%s'", a);
    }
    if (code == CLI_OK && (!table || !have_op || !n_inputs)) {
        write_usage(stderr);
        code = CLI_USAGE;
    }
    if (code != CLI_OK) { free(inputs); cli_validators_dispose(&val); return code; }
    /* the global index's own setting from --props (as Hudi, the other index's is ignored); the option wins */
    wo.update_partition_path = upp                ? upp
                               : wo.record_index  ? wp.rli_upp
                               : wo.global_bloom  ? (wp.simple ? wp.simple_upp : wp.bloom_upp)
                                                  : 0;
    if (cli_validators_any(&val)) {
        wo.pre_commit = cli_validate_precommit;
        wo.pre_commit_ctx = &val;
    }

    struct ArrowArrayStream stream;
    hoodie_write_result res;
    hoodie_files_opts fo = HOODIE_FILES_OPTS_INIT;
    fo.format = format;
    if (wo.op != HOODIE_WRITE_BULK_INSERT) {
        /* the writer holds all the rows at once: read them in batches as large as the inputs (text: at least
         * 8 bytes a row), not in 65,536-row batches it would copy into one */
        int64_t bytes = 0;
        for (size_t k = 0; k < n_inputs; k++) {
            struct stat st;
            if (stat(inputs[k], &st) == 0 && st.st_size > 0) bytes += (int64_t)st.st_size;
        }
        int64_t rows = bytes / 8 + 1;
        /* at most 16M rows a batch: the reservations of a batch (8 bytes a row for a long column) stay modest
         * when the 8-byte guess is far below the rows' real size; larger inputs take several batches */
        if (rows > fo.batch_rows && rows > 65536) fo.batch_rows = rows < (1 << 24) ? rows : (1 << 24);
    }
    hoodie_status rc = hoodie_files_stream(inputs, n_inputs, table, &fo, &stream);
    if (rc == HOODIE_OK) rc = hoodie_table_write(table, &stream, &wo, &res);
    free(inputs);
    cli_validators_dispose(&val);
    if (rc < 0) return cli_fail(rc, NULL);
    if (res.rolled_back) printf("rolled back %zu pending instant(s) left by a failed writer\n", res.rolled_back);
    printf("%s %s: %lld inserted, %lld updated, %lld deleted, %lld file(s), %lld bytes\n", res.action, res.instant,
           (long long)res.inserts, (long long)res.updates, (long long)res.deletes, (long long)res.files_written,
           (long long)res.bytes_written);
    if (compact_every || inline_clean || inline_archive)
        return cli_inline_services(table, compact_every, inline_clean, inline_archive);
    return CLI_OK;
}
