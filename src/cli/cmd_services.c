/*
 * Table-service commands: compact, logcompact, cluster, clean, archive, rollback, savepoint, restore.
 * Each prints one line describing what it did.
 */
#include "cli.h"
#include "hoodie/services.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int parse_count(const char *cmd, const char *opt, const char *v, int64_t *out)
{
    char *end;
    long long x = v ? strtoll(v, &end, 10) : -1;
    if (!v || *end || x <= 0) return cli_usage("%s: %s needs a positive number", cmd, opt);
    *out = x;
    return CLI_OK;
}

/* Progress on a terminal: one line rewritten in place (at most every 100 ms), ended when the work is done. */
static void tty_progress(void *ctx, const char *what, int64_t done, int64_t total)
{
    static struct timespec last;
    struct timespec now;
    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ms = (int64_t)(now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec - last.tv_nsec) / 1000000;
    if (done != total && done != 0 && ms < 100) return;
    last = now;
    fprintf(stderr, "\r%s %lld/%lld (%d%%)%s", what, (long long)done, (long long)total,
            total ? (int)(done * 100 / total) : 100, done == total ? "\n" : "");
    fflush(stderr);
}

/* Long service runs report progress when stderr is a terminal. */
static void progress_on_tty(hoodie_service_opts *o)
{
    if (isatty(STDERR_FILENO)) o->progress = tty_progress;
}

static void print_result(const char *what, const hoodie_service_result *r)
{
    if (r->rolled_back) printf("rolled back %zu pending write(s)\n", r->rolled_back);
    if (!r->instant[0]) { printf("%s: nothing to do\n", what); return; }
    printf("%s %s: %lld file group(s), %lld file(s) written, %lld file(s) deleted, %lld instant(s), %lld record(s)\n",
           what, r->instant, (long long)r->file_groups, (long long)r->files_written, (long long)r->files_deleted,
           (long long)r->instants, (long long)r->records);
}

/* The schedule and run steps of a plan-based service (both when neither is asked for). */
typedef hoodie_status (*schedule_fn)(const char *, const hoodie_service_opts *, hoodie_service_result *);
typedef hoodie_status (*run_fn)(const char *, const hoodie_service_opts *, const char *, hoodie_service_result *);

static int schedule_and_run(const char *cmd, const char *what, schedule_fn sched, run_fn exec, const char *table,
                            const hoodie_service_opts *o, const char *instant, int schedule, int run)
{
    if (!schedule && !run) schedule = run = 1;
    hoodie_service_result r;
    hoodie_status rc;
    if (schedule) {
        if ((rc = sched(table, o, &r)) < 0) return cli_fail(rc, cmd);
        if (r.rolled_back) printf("rolled back %zu pending write(s)\n", r.rolled_back);
        if (r.instant[0]) printf("scheduled %s %s: %lld file group(s)\n", what, r.instant, (long long)r.file_groups);
        else printf("%s: nothing to schedule\n", what);
    }
    if (run) {
        if ((rc = exec(table, o, instant, &r)) < 0) return cli_fail(rc, cmd);
        print_result(what, &r);
    }
    return CLI_OK;
}

int cmd_compact(int argc, char **argv)
{
    const char *table = NULL, *instant = NULL;
    int schedule = 0, run = 0;
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: hoodie compact TABLE [--schedule | --run [INSTANT]] [--strategy all|log-size|bounded-io]\n"
                   "                      [--log-size BYTES] [--io-budget BYTES] [--codec snappy|zstd|gzip|lz4_raw|none]\n"
                   "                      [--merge-memory MB]\n"
                   "  Without --schedule or --run: schedule, then run every pending compaction.\n"
                   "  --merge-memory: memory a file group's merge holds its decoded log records in (default 1024);\n"
                   "  past a quarter of it, Avro log records stay in the log files (keys and ordering values in\n"
                   "  memory, records decoded when merged); a group whose records take more still is merged in\n"
                   "  key-hash partitions, a pass over the base file each.\n");
            return CLI_OK;
        }
        if (!strcmp(a, "--schedule")) schedule = 1;
        else if (!strcmp(a, "--run")) {
            run = 1;
            if (v && v[0] != '-') { instant = v; i++; }
        } else if (!strcmp(a, "--strategy")) {
            if (!v) return cli_usage("compact: --strategy needs a value");
            if (!strcmp(v, "all")) o.strategy = HOODIE_COMPACT_ALL;
            else if (!strcmp(v, "log-size")) o.strategy = HOODIE_COMPACT_LOG_SIZE;
            else if (!strcmp(v, "bounded-io")) o.strategy = HOODIE_COMPACT_BOUNDED_IO;
            else return cli_usage("compact: unknown strategy '%s'", v);
            i++;
        } else if (!strcmp(a, "--log-size")) {
            if (parse_count("compact", a, v, &o.log_size_threshold)) return CLI_USAGE;
            i++;
        } else if (!strcmp(a, "--io-budget")) {
            if (parse_count("compact", a, v, &o.io_budget)) return CLI_USAGE;
            i++;
        } else if (!strcmp(a, "--codec")) {
            if (!cli_parse_codec(v, &o.codec)) return cli_usage("compact: unknown codec '%s'", v ? v : "");
            i++;
        } else if (!strcmp(a, "--merge-memory")) {
            if (!cli_parse_mb(v, &o.merge_memory)) return cli_usage("compact: --merge-memory needs a positive number of MB");
            i++;
        } else if (a[0] == '-') return cli_usage("compact: unknown option '%s'", a);
        else if (!table) table = a;
        else return cli_usage("compact: unexpected argument '%s'", a);
    }
    if (!table) return cli_usage("compact: no table given");
    progress_on_tty(&o);
    return schedule_and_run("compact", "compaction", hoodie_compaction_schedule, hoodie_compaction_run, table, &o,
                            instant, schedule, run);
}

int cmd_logcompact(int argc, char **argv)
{
    const char *table = NULL, *instant = NULL;
    int schedule = 0, run = 0;
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: hoodie logcompact TABLE [--schedule | --run [INSTANT]] [--blocks-threshold N]\n"
                   "                       [--log-block-format avro|parquet] [--codec snappy|zstd|gzip|lz4_raw|none]\n"
                   "                       [--merge-memory MB]\n"
                   "  Merge the log blocks of each latest slice in which N or more blocks apply (default 5,\n"
                   "  hoodie.log.compaction.blocks.threshold) into one log file, its records in an Avro data\n"
                   "  block (default) or a Parquet one compressed with --codec (hoodie.logfile.data.block.format).\n"
                   "  Without --schedule or --run: schedule, then run every pending log compaction.\n"
                   "  --merge-memory: memory a slice's merge holds its decoded log records in (default 1024); a slice\n"
                   "  whose records take more is merged in key-hash partitions, each adding a delete block and a data\n"
                   "  block to the new file.\n");
            return CLI_OK;
        }
        if (!strcmp(a, "--schedule")) schedule = 1;
        else if (!strcmp(a, "--run")) {
            run = 1;
            if (v && v[0] != '-') { instant = v; i++; }
        } else if (!strcmp(a, "--blocks-threshold")) {
            if (parse_count("logcompact", a, v, &o.log_blocks_threshold)) return CLI_USAGE;
            i++;
        } else if (!strcmp(a, "--log-block-format")) {
            if (v && !strcmp(v, "avro")) o.log_block_format = HOODIE_LOG_BLOCK_AVRO;
            else if (v && !strcmp(v, "parquet")) o.log_block_format = HOODIE_LOG_BLOCK_PARQUET;
            else return cli_usage("logcompact: --log-block-format needs avro or parquet");
            i++;
        } else if (!strcmp(a, "--codec")) {
            if (!cli_parse_codec(v, &o.codec)) return cli_usage("logcompact: unknown codec '%s'", v ? v : "");
            i++;
        } else if (!strcmp(a, "--merge-memory")) {
            if (!cli_parse_mb(v, &o.merge_memory)) return cli_usage("logcompact: --merge-memory needs a positive number of MB");
            i++;
        } else if (a[0] == '-') return cli_usage("logcompact: unknown option '%s'", a);
        else if (!table) table = a;
        else return cli_usage("logcompact: unexpected argument '%s'", a);
    }
    if (!table) return cli_usage("logcompact: no table given");
    progress_on_tty(&o);
    return schedule_and_run("logcompact", "log compaction", hoodie_log_compaction_schedule, hoodie_log_compaction_run,
                            table, &o, instant, schedule, run);
}

int cmd_cluster(int argc, char **argv)
{
    const char *table = NULL;
    char *sort = NULL;
    const char **cols = calloc((size_t)argc + 16, sizeof *cols);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    cli_validators val;
    memset(&val, 0, sizeof val);
    int code = CLI_OK;
    if (!cols) return cli_fail(HOODIE_ENOMEM, NULL);
    for (int i = 1; i < argc && code == CLI_OK; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: hoodie cluster TABLE --sort-by COL[,COL...] [--small-file-limit BYTES] "
                   "[--max-file-size BYTES]\n"
                   "                      [--validate-... QUERY] [--validate-policy fail|warn_log] [--props FILE]\n"
                   CLI_VALIDATE_USAGE
                   "  A clustering changes no row: e.g. --validate-equality 'select count(*) from <TABLE_NAME>'.\n");
            free(cols);
            return CLI_OK;
        }
        int took, vc = cli_validators_option(&val, a, v, &took);
        if (vc >= 0) { code = vc; i += took; continue; }
        if (!strcmp(a, "--sort-by")) {
            if (!v) { code = cli_usage("cluster: --sort-by needs columns"); break; }
            free(sort);
            sort = strdup(v);
            i++;
        } else if (!strcmp(a, "--small-file-limit")) {
            code = parse_count("cluster", a, v, &o.small_file_limit);
            i++;
        } else if (!strcmp(a, "--max-file-size")) {
            code = parse_count("cluster", a, v, &o.max_file_size);
            i++;
        } else if (a[0] == '-') code = cli_usage("cluster: unknown option '%s'", a);
        else if (!table) table = a;
        else code = cli_usage("cluster: unexpected argument '%s'", a);
    }
    if (code == CLI_OK && !table) code = cli_usage("cluster: no table given");
    progress_on_tty(&o);
    if (code == CLI_OK && sort) {
        size_t n = 0;
        for (char *tok = strtok(sort, ","); tok && n < (size_t)argc + 15; tok = strtok(NULL, ",")) cols[n++] = tok;
        o.sort_columns = cols;
        o.n_sort_columns = n;
    }
    if (cli_validators_any(&val)) {
        o.pre_commit = cli_validate_precommit;
        o.pre_commit_ctx = &val;
    }
    if (code == CLI_OK) {
        hoodie_service_result r;
        hoodie_status rc = hoodie_clustering(table, &o, &r);
        if (rc < 0) code = cli_fail(rc, "cluster");
        else print_result("clustering", &r);
    }
    cli_validators_dispose(&val);
    free(sort);
    free(cols);
    return code;
}

int cmd_clean(int argc, char **argv)
{
    const char *table = NULL;
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: hoodie clean TABLE [--policy P] [--retain N]\n"
                   "  P: KEEP_LATEST_COMMITS (default, N commits: 10), KEEP_LATEST_FILE_VERSIONS (N versions: 3),\n"
                   "     KEEP_LATEST_BY_HOURS (N hours: 24)\n");
            return CLI_OK;
        }
        if (!strcmp(a, "--policy")) {
            if (!v) return cli_usage("clean: --policy needs a value");
            if (!strcasecmp(v, "KEEP_LATEST_COMMITS")) o.clean_policy = HOODIE_CLEAN_KEEP_LATEST_COMMITS;
            else if (!strcasecmp(v, "KEEP_LATEST_FILE_VERSIONS")) o.clean_policy = HOODIE_CLEAN_KEEP_LATEST_FILE_VERSIONS;
            else if (!strcasecmp(v, "KEEP_LATEST_BY_HOURS")) o.clean_policy = HOODIE_CLEAN_KEEP_LATEST_BY_HOURS;
            else return cli_usage("clean: unknown policy '%s'", v);
            i++;
        } else if (!strcmp(a, "--retain")) {
            if (parse_count("clean", a, v, &o.retain)) return CLI_USAGE;
            i++;
        } else if (a[0] == '-') return cli_usage("clean: unknown option '%s'", a);
        else if (!table) table = a;
        else return cli_usage("clean: unexpected argument '%s'", a);
    }
    if (!table) return cli_usage("clean: no table given");
    progress_on_tty(&o);
    hoodie_service_result r;
    hoodie_status rc = hoodie_clean(table, &o, &r);
    if (rc < 0) return cli_fail(rc, "clean");
    print_result("clean", &r);
    return CLI_OK;
}

int cmd_archive(int argc, char **argv)
{
    const char *table = NULL;
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: hoodie archive TABLE [--min-commits N] [--max-commits M]\n");
            return CLI_OK;
        }
        if (!strcmp(a, "--min-commits")) {
            if (parse_count("archive", a, v, &o.min_commits)) return CLI_USAGE;
            i++;
        } else if (!strcmp(a, "--max-commits")) {
            if (parse_count("archive", a, v, &o.max_commits)) return CLI_USAGE;
            i++;
        } else if (a[0] == '-') return cli_usage("archive: unknown option '%s'", a);
        else if (!table) table = a;
        else return cli_usage("archive: unexpected argument '%s'", a);
    }
    if (!table) return cli_usage("archive: no table given");
    hoodie_service_result r;
    hoodie_status rc = hoodie_archive(table, &o, &r);
    if (rc < 0) return cli_fail(rc, "archive");
    print_result("archive", &r);
    return CLI_OK;
}

/* TABLE INSTANT */
static int table_instant(int argc, char **argv, const char *cmd, const char **table, const char **instant)
{
    *table = *instant = NULL;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') return cli_usage("%s: unknown option '%s'", cmd, argv[i]);
        if (!*table) *table = argv[i];
        else if (!*instant) *instant = argv[i];
        else return cli_usage("%s: unexpected argument '%s'", cmd, argv[i]);
    }
    if (!*table || !*instant) return cli_usage("%s: usage: hoodie %s TABLE INSTANT", cmd, cmd);
    return CLI_OK;
}

/* rollback and restore: TABLE INSTANT, one service call, its result */
static int table_instant_service(int argc, char **argv, const char *cmd, const char *help,
                                 hoodie_status (*fn)(const char *, const hoodie_service_opts *, const char *,
                                                     hoodie_service_result *))
{
    const char *table, *instant;
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: hoodie %s TABLE INSTANT\n  %s\n", cmd, help);
        return CLI_OK;
    }
    int code = table_instant(argc, argv, cmd, &table, &instant);
    if (code) return code;
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    hoodie_service_result r;
    hoodie_status rc = fn(table, &o, instant, &r);
    if (rc < 0) return cli_fail(rc, cmd);
    print_result(cmd, &r);
    return CLI_OK;
}

int cmd_rollback(int argc, char **argv)
{
    return table_instant_service(argc, argv, "rollback", "Undo a pending write, or the latest completed write.",
                                 hoodie_rollback);
}

int cmd_restore(int argc, char **argv)
{
    return table_instant_service(argc, argv, "restore", "Roll the table back to the savepoint INSTANT.", hoodie_restore);
}

int cmd_savepoint(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: hoodie savepoint TABLE create [INSTANT] | delete INSTANT | list\n");
        return CLI_OK;
    }
    if (argc < 3) return cli_usage("savepoint: usage: hoodie savepoint TABLE create|delete|list [INSTANT]");
    const char *table = argv[1], *verb = argv[2], *instant = argc > 3 ? argv[3] : NULL;
    if (argc > 4) return cli_usage("savepoint: unexpected argument '%s'", argv[4]);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    hoodie_status rc;
    if (!strcmp(verb, "create")) {
        hoodie_service_result r;
        if ((rc = hoodie_savepoint_create(table, &o, instant, &r)) < 0) return cli_fail(rc, "savepoint");
        printf("savepoint %s created\n", r.instant);
    } else if (!strcmp(verb, "delete")) {
        if (!instant) return cli_usage("savepoint: delete needs an instant");
        if ((rc = hoodie_savepoint_delete(table, &o, instant)) < 0) return cli_fail(rc, "savepoint");
        printf("savepoint %s deleted\n", instant);
    } else if (!strcmp(verb, "list")) {
        char *out = NULL;
        if (instant) return cli_usage("savepoint: list takes no instant");
        if ((rc = hoodie_savepoint_list(table, &o, &out)) < 0) return cli_fail(rc, "savepoint");
        fputs(out, stdout);
        free(out);
    } else {
        return cli_usage("savepoint: unknown action '%s' (create, delete, list)", verb);
    }
    return CLI_OK;
}

/* Delta commits since the last compaction (commit) on a MOR table's active timeline. */
static int64_t uncompacted_deltas(const char *table)
{
    hoodie_table *t;
    if (hoodie_table_open(&t, table, NULL) < 0) return -1;
    int64_t n = 0;
    for (size_t i = 0; i < hoodie_table_instant_count(t); i++) {
        hoodie_instant_info ii;
        if (hoodie_table_instant(t, i, &ii) < 0 || strcmp(ii.state, "completed")) continue;
        if (!strcmp(ii.action, "commit")) n = 0;
        else if (!strcmp(ii.action, "deltacommit")) n++;
    }
    int mor = hoodie_table_is_mor(t);
    hoodie_table_free(t);
    return mor ? n : 0;
}

int cli_inline_services(const char *table, int64_t compact_every, int clean, int archive)
{
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    hoodie_service_result r;
    hoodie_status rc;
    if (compact_every > 0) {
        int64_t n = uncompacted_deltas(table);
        if (n < 0) return cli_fail(HOODIE_EIO, "compact");
        if (n >= compact_every) {
            if ((rc = hoodie_compaction_schedule(table, &o, &r)) < 0) return cli_fail(rc, "compact");
            if ((rc = hoodie_compaction_run(table, &o, NULL, &r)) < 0) return cli_fail(rc, "compact");
            print_result("compaction", &r);
        }
    }
    if (clean) {
        if ((rc = hoodie_clean(table, &o, &r)) < 0) return cli_fail(rc, "clean");
        print_result("clean", &r);
    }
    if (archive) {
        if ((rc = hoodie_archive(table, &o, &r)) < 0) return cli_fail(rc, "archive");
        print_result("archive", &r);
    }
    return CLI_OK;
}
