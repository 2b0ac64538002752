/*
 * hoodie ingest: streaming ingestion of JSON lines or Debezium change events, exactly once.
 *
 * The inputs are one stream, file after file. Every batch of --batch-rows events is one upsert commit whose
 * extraMetadata holds where the batch ended (hoodie.ingest.checkpoint: "<byte offset>:<file>") and where it began
 * (hoodie.ingest.from). A run starts where the newest commit's checkpoint points; a batch that died before its
 * commit completed is rolled back by the next writer and read again. Events that arrive out of order are settled by
 * the table's ordering field (event-time merging: an older event does not replace a newer one). A last line without
 * its newline is left for the next run (a producer may still be writing it).
 *
 * Debezium: the envelope {"before", "after", "op", "ts_ms", "source"} (alone, or as "payload" with a "schema"):
 * c, r and u write "after"; d deletes "before" in the same commit (marked by _hoodie_is_deleted = true when the table
 * has that boolean column, else by a delete column hoodie does not store: hoodie_write_opts.delete_column);
 * t and m events and Kafka tombstones (a null payload) are skipped. Columns named as Hudi's Debezium sources name
 * them are filled when the table has them: _change_operation_type (op), _upstream_event_processed_ts_ms (ts_ms),
 * _event_origin_ts_ms (source.ts_ms), _event_lsn (source.lsn), _event_bin_file (source.file), _event_pos
 * (source.pos), and _event_seq ("<number after the binlog file name's last dot>.<pos>", MysqlDebeziumSource's
 * order key, by which MySqlDebeziumAvroPayload orders).
 */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop; /* SIGINT or SIGTERM: commit what was read, then stop */

static void on_stop(int sig)
{
    (void)sig;
    g_stop = 1;
}

#define CHECKPOINT_KEY "hoodie.ingest.checkpoint"
#define FROM_KEY "hoodie.ingest.from"
#define EVENTS_KEY "hoodie.ingest.events"
/* Debezium deletes into a table without a _hoodie_is_deleted column: marked by an input column hoodie never stores
 * (hoodie_write_opts.delete_column) */
#define DELETE_MARK "_hoodie_ingest_delete"

static void ingest_usage(FILE *out)
{
    fprintf(out,
            "usage: hoodie ingest TABLE --input FILE [--input FILE...] [--format jsonl|debezium] [--batch-rows N]\n"
            "                     [--follow SECONDS] [--index bloom|simple|global_bloom|global_simple|record_index]\n"
            "                     [--update-partition-path true|false] [--validate-... QUERY] [--props FILE]\n"
            "       hoodie ingest TABLE --checkpoints   (each ingested commit: instant, from, to, events)\n"
            "\n"
            "  Upsert the events of the inputs (one stream, file after file) in batches of N (default 100000),\n"
            "  one commit each, exactly once: each commit records where its batch ended (extraMetadata\n"
            "  " CHECKPOINT_KEY "), and a run starts there. Out-of-order events are settled by the table's\n"
            "  ordering field. debezium: c/r/u events write 'after', d events delete 'before' (in the same\n"
            "  commit; a table's boolean _hoodie_is_deleted column is set too); _change_operation_type,\n"
            "  _upstream_event_processed_ts_ms, _event_origin_ts_ms, _event_lsn, _event_bin_file,\n"
            "  _event_pos and _event_seq (\"<binlog file number>.<pos>\") are filled when the table has such\n"
            "  columns. --follow S: at the\n"
            "  end, commit what was read and look for appended events every S seconds, until SIGINT/SIGTERM\n"
            "  (which commit what was read, then stop).\n"
            "  --index and --update-partition-path as for hoodie write: with a global index (global_bloom,\n"
            "  record_index) a record whose partition field changes stays one record (moved, or updated where\n"
            "  it is).\n"
            CLI_VALIDATE_USAGE
            "  A batch a validator refuses stops the run (exit 5); the next run reads it again.\n");
}

typedef struct ingest {
    const char *table;
    char **files;          /* realpath of each input */
    size_t n_files;
    int debezium;
    long long batch_rows;
    char **columns;        /* the table's columns */
    size_t n_columns;
    int has_deleted;       /* a boolean _hoodie_is_deleted column */
    char *batch;           /* JSON lines */
    size_t len, cap;
    long long n_events, skipped;
    cli_validators val;    /* pre-commit validators of every batch's commit */
    hoodie_write_opts index; /* --index, --update-partition-path: record_index, global_bloom, update_partition_path */
} ingest;

static int has_column(const ingest *g, const char *name)
{
    for (size_t i = 0; i < g->n_columns; i++)
        if (!strcmp(g->columns[i], name)) return 1;
    return 0;
}

static int append(ingest *g, const char *s, size_t n)
{
    if (g->len + n + 1 > g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 1 << 16;
        while (cap < g->len + n + 1) cap *= 2;
        char *nb = realloc(g->batch, cap);
        if (!nb) return -1;
        g->batch = nb;
        g->cap = cap;
    }
    memcpy(g->batch + g->len, s, n);
    g->len += n;
    g->batch[g->len] = 0;
    return 0;
}

/* The table's columns, from an (empty-projection) scan's schema. */
static int load_columns(ingest *g)
{
    hoodie_table *t = NULL;
    hoodie_status rc = hoodie_table_open(&t, g->table, NULL);
    if (rc != HOODIE_OK) return cli_fail(rc, "ingest");
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    struct ArrowArrayStream st;
    struct ArrowSchema sch;
    rc = hoodie_table_scan(t, &so, &st);
    if (rc != HOODIE_OK) { hoodie_table_free(t); return cli_fail(rc, "ingest"); }
    if (st.get_schema(&st, &sch)) {
        fprintf(stderr, "hoodie: ingest: %s\n", st.get_last_error(&st));
        st.release(&st);
        hoodie_table_free(t);
        return CLI_ERROR;
    }
    g->columns = calloc((size_t)sch.n_children + 1, sizeof *g->columns);
    for (int64_t i = 0; g->columns && i < sch.n_children; i++) {
        g->columns[g->n_columns] = strdup(sch.children[i]->name ? sch.children[i]->name : "");
        if (!g->columns[g->n_columns]) break;
        if (!strcmp(sch.children[i]->name, "_hoodie_is_deleted") && !strcmp(sch.children[i]->format, "b"))
            g->has_deleted = 1;
        g->n_columns++;
    }
    int ok = g->columns && g->n_columns == (size_t)sch.n_children;
    sch.release(&sch);
    st.release(&st);
    hoodie_table_free(t);
    return ok ? CLI_OK : cli_fail(HOODIE_ENOMEM, NULL);
}

static void set_if_column(const ingest *g, json_t *row, const char *name, json_t *v)
{
    if (v && !json_is_null(v) && has_column(g, name)) json_object_set(row, name, v);
}

/* One Debezium event as a JSON row (appended), or skipped; `where` names it in errors. CLI_OK or an exit code. */
static int debezium_row(ingest *g, const char *line, size_t n, const char *where)
{
    json_error_t err;
    json_t *ev = json_loadb(line, n, 0, &err);
    if (!ev) {
        fprintf(stderr, "hoodie: ingest: %s: bad JSON at character %d: %s\n", where, err.position, err.text);
        return CLI_CORRUPT;
    }
    json_t *p = json_object_get(ev, "payload");
    if (json_object_get(ev, "schema") || p) {
        if (!p || json_is_null(p)) { json_decref(ev); g->skipped++; return CLI_OK; } /* a tombstone */
    } else {
        p = ev;
    }
    const char *op = json_string_value(json_object_get(p, "op"));
    if (!op) {
        fprintf(stderr, "hoodie: ingest: %s: not a Debezium change event (no \"op\")\n", where);
        json_decref(ev);
        return CLI_CORRUPT;
    }
    int del = !strcmp(op, "d");
    if (!del && strcmp(op, "c") && strcmp(op, "r") && strcmp(op, "u")) { /* t (truncate), m (message) */
        json_decref(ev);
        g->skipped++;
        return CLI_OK;
    }
    json_t *src = json_object_get(p, del ? "before" : "after");
    if (!json_is_object(src)) {
        fprintf(stderr, "hoodie: ingest: %s: a '%s' event without \"%s\"\n", where, op, del ? "before" : "after");
        json_decref(ev);
        return CLI_CORRUPT;
    }
    json_t *row = json_deep_copy(src);
    json_t *source = json_object_get(p, "source");
    if (row) json_object_set_new(row, g->has_deleted ? "_hoodie_is_deleted" : DELETE_MARK, json_boolean(del));
    if (row) {
        set_if_column(g, row, "_change_operation_type", json_object_get(p, "op"));
        set_if_column(g, row, "_upstream_event_processed_ts_ms", json_object_get(p, "ts_ms"));
        set_if_column(g, row, "_event_origin_ts_ms", json_object_get(source, "ts_ms"));
        set_if_column(g, row, "_event_lsn", json_object_get(source, "lsn"));
        set_if_column(g, row, "_event_bin_file", json_object_get(source, "file"));
        set_if_column(g, row, "_event_pos", json_object_get(source, "pos"));
    }
    if (row && has_column(g, "_event_seq")) { /* MySqlDebeziumAvroPayload's order: "<binlog file number>.<pos>" */
        const char *file = json_string_value(json_object_get(source, "file"));
        json_t *pos = json_object_get(source, "pos");
        if (!file || !*file || !json_is_integer(pos) || json_integer_value(pos) < 0) {
            fprintf(stderr, "hoodie: ingest: %s: the table orders by _event_seq, but the event has no binlog file and "
                            "position (source.file, source.pos)\n", where);
            json_decref(row);
            json_decref(ev);
            return CLI_CORRUPT;
        }
        const char *dot = strrchr(file, '.');
        char seq[96];
        snprintf(seq, sizeof seq, "%.60s.%lld", dot ? dot + 1 : file, (long long)json_integer_value(pos));
        json_object_set_new(row, "_event_seq", json_string(seq));
    }
    char *txt = row ? json_dumps(row, JSON_COMPACT) : NULL;
    int ok = txt && append(g, txt, strlen(txt)) == 0 && append(g, "\n", 1) == 0;
    int rc = ok ? CLI_OK : cli_fail(HOODIE_ENOMEM, NULL);
    free(txt);
    json_decref(row);
    json_decref(ev);
    return rc;
}

/* "<offset>:<file>" */
static char *position_text(const char *file, long long off)
{
    size_t n = strlen(file) + 32;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%lld:%s", off, file);
    return s;
}

/* The batch as one upsert commit, with where it began and ended. */
static int commit_batch(ingest *g, const char *from, const char *to, long long events)
{
    char nev[32];
    snprintf(nev, sizeof nev, "%lld", events);
    const char *extra[] = { CHECKPOINT_KEY, to, FROM_KEY, from, EVENTS_KEY, nev, NULL };
    hoodie_files_opts fo = HOODIE_FILES_OPTS_INIT;
    fo.format = "jsonl";
    hoodie_write_opts wo = HOODIE_WRITE_OPTS_INIT;
    wo.op = HOODIE_WRITE_UPSERT;
    wo.extra_metadata = extra;
    wo.record_index = g->index.record_index;
    wo.global_bloom = g->index.global_bloom;
    wo.update_partition_path = g->index.update_partition_path;
    if (g->debezium && !g->has_deleted) wo.delete_column = DELETE_MARK;
    if (cli_validators_any(&g->val)) {
        wo.pre_commit = cli_validate_precommit;
        wo.pre_commit_ctx = &g->val;
    }
    struct ArrowArrayStream in;
    hoodie_write_result res;
    hoodie_status rc = hoodie_buffer_stream(g->batch, g->len, from, g->table, &fo, &in);
    if (rc == HOODIE_OK) rc = hoodie_table_write(g->table, &in, &wo, &res);
    if (rc != HOODIE_OK) return cli_fail(rc, "ingest");
    printf("%s %s: %lld events (%lld inserted, %lld updated, %lld deleted), checkpoint %s\n", res.action, res.instant,
           events, (long long)res.inserts, (long long)res.updates, (long long)res.deletes, to);
    fflush(stdout);
    g->len = 0;
    return CLI_OK;
}

/* Where the newest checkpoint points: *file_i (g->n_files: not among the inputs: start at the first), *offset. */
static int resume_point(ingest *g, size_t *file_i, long long *offset)
{
    *file_i = 0;
    *offset = 0;
    hoodie_table *t = NULL;
    hoodie_status rc = hoodie_table_open(&t, g->table, NULL);
    char *cp = NULL;
    if (rc == HOODIE_OK) rc = hoodie_table_commit_extra(t, CHECKPOINT_KEY, &cp, NULL, 0);
    hoodie_table_free(t);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); return CLI_OK; }
    if (rc != HOODIE_OK) return cli_fail(rc, "ingest");
    char *colon = strchr(cp, ':');
    if (!colon) {
        fprintf(stderr, "hoodie: ingest: %s: checkpoint '%s' is not <offset>:<file>\n", g->table, cp);
        free(cp);
        return CLI_CORRUPT;
    }
    *colon = 0;
    long long off = strtoll(cp, NULL, 10);
    for (size_t i = 0; i < g->n_files; i++)
        if (!strcmp(g->files[i], colon + 1)) { *file_i = i; *offset = off; break; }
    free(cp);
    return CLI_OK;
}

/* --checkpoints: every commit of the table that ingestion wrote, in timeline order: instant, from, to, events. */
static int list_checkpoints(const char *table)
{
    hoodie_table *t = NULL;
    hoodie_status rc = hoodie_table_open(&t, table, NULL);
    if (rc != HOODIE_OK) return cli_fail(rc, "ingest");
    for (size_t i = 0; rc == HOODIE_OK && i < hoodie_table_instant_count(t); i++) {
        char *to = NULL, *from = NULL, *ev = NULL;
        hoodie_instant_info info;
        rc = hoodie_table_instant(t, i, &info);
        if (rc == HOODIE_OK) rc = hoodie_table_instant_extra(t, i, CHECKPOINT_KEY, &to);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; continue; }
        if (rc == HOODIE_OK) rc = hoodie_table_instant_extra(t, i, FROM_KEY, &from);
        if (rc == HOODIE_OK) rc = hoodie_table_instant_extra(t, i, EVENTS_KEY, &ev);
        if (rc == HOODIE_OK) printf("%s %s %s %s\n", info.requested, from, to, ev);
        free(to);
        free(from);
        free(ev);
    }
    hoodie_table_free(t);
    return rc == HOODIE_OK ? CLI_OK : cli_fail(rc, "ingest");
}

int cmd_ingest(int argc, char **argv)
{
    ingest g;
    memset(&g, 0, sizeof g);
    g.batch_rows = 100000;
    g.files = calloc((size_t)argc + 1, sizeof *g.files);
    if (!g.files) return cli_fail(HOODIE_ENOMEM, NULL);
    int code = CLI_OK, list_checkpoints_only = 0;
    double follow = -1;
    for (int i = 1; i < argc && code == CLI_OK; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { ingest_usage(stdout); code = -1; break; }
        if (!strcmp(a, "--checkpoints")) { list_checkpoints_only = 1; continue; }
        int took, vc = cli_validators_option(&g.val, a, v, &took);
        if (vc >= 0) { code = vc; i += took; continue; }
        if (!strcmp(a, "--input") || !strcmp(a, "--format") || !strcmp(a, "--batch-rows") || !strcmp(a, "--follow") ||
            !strcmp(a, "--index") || !strcmp(a, "--update-partition-path")) {
            if (!v) { code = cli_usage("ingest: %s needs a value", a); break; }
            i++;
            int simple;
            if (!strcmp(a, "--index")) {
                if (!cli_parse_index(v, &g.index, &simple))
                    code = cli_usage("ingest: --index is bloom, simple, global_bloom, global_simple or record_index, "
                                     "not '%s'", v);
            } else if (!strcmp(a, "--update-partition-path")) {
                if (!cli_parse_upp(v, &g.index.update_partition_path))
                    code = cli_usage("ingest: --update-partition-path is true or false");
            } else if (!strcmp(a, "--input")) {
                char *rp = realpath(v, NULL);
                if (!rp) { fprintf(stderr, "hoodie: ingest: %s: %s\n", v, strerror(errno)); code = CLI_ERROR; }
                else g.files[g.n_files++] = rp;
            } else if (!strcmp(a, "--format")) {
                if (!strcmp(v, "debezium")) g.debezium = 1;
                else if (!strcmp(v, "jsonl") || !strcmp(v, "json")) g.debezium = 0;
                else code = cli_usage("ingest: unknown format '%s' (jsonl, debezium)", v);
            } else if (!strcmp(a, "--follow")) {
                char *end;
                follow = strtod(v, &end);
                if (*end || !(follow >= 0.001 && follow <= 86400))
                    code = cli_usage("ingest: --follow needs a pause in seconds (0.001 to 86400)");
            } else {
                char *end;
                g.batch_rows = strtoll(v, &end, 10);
                if (*end || g.batch_rows < 1) code = cli_usage("ingest: --batch-rows needs a positive number");
            }
        } else if (a[0] == '-' && a[1]) code = cli_usage("ingest: unknown option '%s'", a);
        else if (!g.table) g.table = a;
        else code = cli_usage("ingest: unexpected argument '%s'", a);
    }
    if (code == CLI_OK && list_checkpoints_only && g.table) {
        free(g.files);
        cli_validators_dispose(&g.val);
        return list_checkpoints(g.table);
    }
    if (code == CLI_OK && (!g.table || !g.n_files)) { ingest_usage(stderr); code = CLI_USAGE; }
    if (code == CLI_OK) code = load_columns(&g);
    size_t fi = 0;
    long long off = 0;
    if (code == CLI_OK) code = resume_point(&g, &fi, &off);
    size_t start_fi = fi;
    long long start_off = off, in_batch = 0;
    char *from = code == CLI_OK ? position_text(g.files[fi], off) : NULL;
    if (code == CLI_OK && !from) code = cli_fail(HOODIE_ENOMEM, NULL);
    char *line = NULL;
    size_t line_cap = 0;
    const char *last_file = NULL;
    long long last_off = 0;
    if (follow >= 0) {
        signal(SIGINT, on_stop);
        signal(SIGTERM, on_stop);
    }
    for (;;) {
        for (; code == CLI_OK && fi < g.n_files && !g_stop; fi++, off = 0) {
            FILE *f = fopen(g.files[fi], "r");
            if (!f) {
                fprintf(stderr, "hoodie: ingest: %s: %s\n", g.files[fi], strerror(errno));
                code = CLI_ERROR;
                break;
            }
            if (off && fseeko(f, (off_t)off, SEEK_SET)) {
                fprintf(stderr, "hoodie: ingest: %s: cannot seek to the checkpoint (byte %lld)\n", g.files[fi], off);
                fclose(f);
                code = CLI_ERROR;
                break;
            }
            long long line_no = 0, first_off = off; /* line numbers are known from the start of a file only */
            ssize_t n;
            while (code == CLI_OK && !g_stop && (n = getline(&line, &line_cap, f)) > 0) {
                line_no++;
                if (line[n - 1] != '\n') break; /* not finished yet: left for the next pass */
                long long end = off + n;
                size_t body = (size_t)n - 1;
                while (body && (line[body - 1] == '\r' || line[body - 1] == ' ' || line[body - 1] == '\t')) body--;
                if (body) {
                    char where[PATH_MAX + 64];
                    if (first_off) snprintf(where, sizeof where, "%s (byte %lld)", g.files[fi], off);
                    else snprintf(where, sizeof where, "%s:%lld (byte %lld)", g.files[fi], line_no, off);
                    if (g.debezium) code = debezium_row(&g, line, body, where);
                    else if (append(&g, line, body) || append(&g, "\n", 1)) code = cli_fail(HOODIE_ENOMEM, NULL);
                    in_batch++;
                }
                off = end;
                last_file = g.files[fi];
                last_off = off;
                if (code == CLI_OK && in_batch >= g.batch_rows && g.len) { /* (only skipped events: read on) */
                    char *to = position_text(g.files[fi], off);
                    code = to ? commit_batch(&g, from, to, in_batch) : cli_fail(HOODIE_ENOMEM, NULL);
                    g.n_events += in_batch;
                    in_batch = 0;
                    free(from);
                    from = to;
                }
            }
            if (!g_stop || !last_file || strcmp(last_file, g.files[fi])) { fclose(f); continue; }
            fclose(f);
            break; /* stopped in this file: stay on it */
        }
        if (code == CLI_OK && g.len && last_file) {
            char *to = position_text(last_file, last_off);
            code = to ? commit_batch(&g, from, to, in_batch) : cli_fail(HOODIE_ENOMEM, NULL);
            g.n_events += in_batch;
            in_batch = 0;
            free(from);
            from = to;
        }
        if (code != CLI_OK || follow < 0 || g_stop) break;
        /* --follow: read on from the end of the last complete line, after a pause */
        if (last_file) {
            for (fi = 0; fi < g.n_files && strcmp(g.files[fi], last_file); fi++) {}
            off = last_off;
        } else {
            fi = start_fi;
            off = start_off;
        }
        struct timespec ts = { (time_t)follow, (long)((follow - (double)(time_t)follow) * 1e9) };
        while (!g_stop && nanosleep(&ts, &ts) && errno == EINTR) {}
    }
    if (code == CLI_OK)
        printf("ingest: %lld events, %lld skipped; %s\n", g.n_events, g.skipped, g_stop ? "stopped" : "up to date");
    free(from);
    free(line);
    free(g.batch);
    for (size_t i = 0; i < g.n_files; i++) free(g.files[i]);
    free(g.files);
    for (size_t i = 0; i < g.n_columns; i++) free(g.columns[i]);
    free(g.columns);
    cli_validators_dispose(&g.val);
    return code < 0 ? CLI_OK : code;
}
