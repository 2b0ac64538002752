/*
 * Hudi's pre-commit validators (hoodie.precommit.validators) for hoodie write and hoodie ingest: SQL queries over
 * the table before and after the write, run through the SQLite virtual table on the views the writer gives its
 * pre-commit check (hoodie_write_opts.pre_commit), as Hudi's SqlQuery*PreCommitValidator classes run Spark SQL:
 *
 *   equality      (SqlQueryEqualityPreCommitValidator,  hoodie.precommit.validators.equality.sql.queries)
 *                 each query gives the same rows before and after
 *   inequality    (SqlQueryInequalityPreCommitValidator, hoodie.precommit.validators.inequality.sql.queries)
 *                 each query gives other rows after than before
 *   single value  (SqlQuerySingleResultPreCommitValidator, hoodie.precommit.validators.single.value.sql.queries)
 *                 "query#expected": the first column of the query's first row, after, as text, is `expected`
 *
 * Queries are separated by ';' and name the table <TABLE_NAME>. As in Hudi, the table is restricted to the
 * partitions the write touched (its rows with such a _hoodie_partition_path); unlike Hudi, which reads base files
 * only, merge-on-read tables are read as a snapshot query reads them (log files merged), the rows are compared as
 * multisets (Hudi's check passes when the new result only adds rows), and bulk_insert is validated too (Hudi skips it).
 */
#include "cli.h"
#include "hoodie_sqlite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const kind_name[CLI_VALIDATE_KINDS] = { "equality", "inequality", "single value" };
static const char *const kind_class[CLI_VALIDATE_KINDS] = {
    "org.apache.hudi.client.validator.SqlQueryEqualityPreCommitValidator",
    "org.apache.hudi.client.validator.SqlQueryInequalityPreCommitValidator",
    "org.apache.hudi.client.validator.SqlQuerySingleResultPreCommitValidator",
};
static const char *const kind_key[CLI_VALIDATE_KINDS] = {
    "hoodie.precommit.validators.equality.sql.queries",
    "hoodie.precommit.validators.inequality.sql.queries",
    "hoodie.precommit.validators.single.value.sql.queries",
};

void cli_validators_dispose(cli_validators *v)
{
    for (int k = 0; k < CLI_VALIDATE_KINDS; k++) {
        for (size_t i = 0; i < v->n[k]; i++) free(v->q[k][i]);
        free(v->q[k]);
        v->q[k] = NULL;
        v->n[k] = 0;
    }
}

int cli_validators_any(const cli_validators *v)
{
    for (int k = 0; k < CLI_VALIDATE_KINDS; k++)
        if (v->n[k]) return 1;
    return 0;
}

static char *trim_dup(const char *p, size_t n)
{
    while (n && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) { p++; n--; }
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n' || p[n - 1] == '\r')) n--;
    char *s = malloc(n + 1);
    if (s) { memcpy(s, p, n); s[n] = 0; }
    return s;
}

int cli_validators_add(cli_validators *v, int kind, const char *queries, const char *from)
{
    const char *p = queries;
    size_t added = 0;
    for (;;) {
        size_t n = strcspn(p, ";");
        char *q = trim_dup(p, n);
        if (!q) return cli_fail(HOODIE_ENOMEM, NULL);
        if (*q) {
            if (kind == CLI_VALIDATE_SINGLE) {
                const char *hash = strchr(q, '#');
                if (!hash || strchr(hash + 1, '#')) {
                    free(q);
                    return cli_usage("%s: a single-value query is 'QUERY#EXPECTED', with one '#': '%.*s'", from,
                                     (int)n, p);
                }
            }
            char **nq = realloc(v->q[kind], (v->n[kind] + 1) * sizeof *nq);
            if (!nq) { free(q); return cli_fail(HOODIE_ENOMEM, NULL); }
            v->q[kind] = nq;
            v->q[kind][v->n[kind]++] = q;
            added++;
        } else {
            free(q);
        }
        if (!p[n]) break;
        p += n + 1;
    }
    if (!added) return cli_usage("%s: no %s query in '%s'", from, kind_name[kind], queries);
    return CLI_OK;
}

/* hoodie.precommit.validators.failure.policy: FAIL (the default) or WARN_LOG; -1 for anything else. */
static int set_policy(cli_validators *v, const char *p)
{
    if (!strcasecmp(p, "FAIL")) v->warn_only = 0;
    else if (!strcasecmp(p, "WARN_LOG") || !strcasecmp(p, "warn")) v->warn_only = 1;
    else return -1;
    return 0;
}

/* ---- --props: the keys Hudi's validators read (hoodie/props.h parses the file as Java does) ---- */

int cli_validators_load_props(cli_validators *v, const char *path)
{
    hoodie_properties *props = NULL;
    hoodie_status prc = hoodie_properties_read(path, NULL, &props);
    if (prc < 0) { /* a missing file is a bad argument; a broken escape names its line */
        int code = cli_fail(prc, "--props");
        return prc == HOODIE_ECORRUPT ? code : CLI_USAGE;
    }
    const char *classes = NULL, *queries[CLI_VALIDATE_KINDS] = { NULL, NULL, NULL };
    int code = CLI_OK;
    for (size_t e = 0; code == CLI_OK && e < hoodie_properties_count(props); e++) {
        const char *key, *val;
        unsigned line;
        hoodie_properties_entry(props, e, &key, &val, &line);
        int used = 0;
        if (!strcmp(key, "hoodie.precommit.validators")) { classes = val; used = 1; }
        else if (!strcmp(key, "hoodie.precommit.validators.failure.policy")) {
            used = 1;
            if (set_policy(v, val) < 0)
                code = cli_usage("%s:%u: %s is FAIL or WARN_LOG, not '%s'", path, line, key, val);
        }
        for (int k = 0; k < CLI_VALIDATE_KINDS; k++)
            if (!strcmp(key, kind_key[k])) { queries[k] = val; used = 1; }
        if (!used && v->other) {
            char where[600];
            snprintf(where, sizeof where, "%s:%u", path, line);
            int r = v->other(v->other_ctx, key, val, where);
            if (r >= 0) used = 1;
            if (r > 0) code = r;
        }
        if (!used)
            fprintf(stderr, "hoodie: warning: %s:%u: %s is not a setting this command reads; ignored\n", path,
                    line, key);
    }
    /* the listed validators, each with its queries (Hudi: at least one), then the queries of unlisted ones */
    int listed[CLI_VALIDATE_KINDS] = { 0, 0, 0 };
    for (const char *p = classes; code == CLI_OK && p && *p;) {
        size_t n = strcspn(p, ",");
        char *c = trim_dup(p, n);
        if (!c) { code = cli_fail(HOODIE_ENOMEM, NULL); break; }
        int k = 0;
        while (k < CLI_VALIDATE_KINDS && strcmp(c, kind_class[k])) k++;
        if (*c && k == CLI_VALIDATE_KINDS)
            code = cli_usage("%s: hoodie.precommit.validators: unknown validator '%s' (hoodie runs %s, %s and %s)",
                             path, c, kind_class[0], kind_class[1], kind_class[2]);
        else if (*c && !listed[k]) {
            listed[k] = 1;
            if (!queries[k] || !*queries[k])
                code = cli_usage("%s: %s is listed in hoodie.precommit.validators but %s has no query", path, c,
                                 kind_key[k]);
            else {
                char from[512];
                snprintf(from, sizeof from, "%s: %s", path, kind_key[k]);
                code = cli_validators_add(v, k, queries[k], from);
            }
        }
        free(c);
        p += n + (p[n] == ',');
    }
    for (int k = 0; code == CLI_OK && k < CLI_VALIDATE_KINDS; k++)
        if (queries[k] && !listed[k])
            fprintf(stderr, "hoodie: warning: %s: %s is set but %s is not in hoodie.precommit.validators; its "
                            "queries do not run (as in Hudi)\n", path, kind_key[k], kind_class[k]);
    hoodie_properties_free(props);
    return code;
}

/* ---- running them ---- */

/* A query's result rows, each as one string (cells tagged by type, so NULL, 1 and '1' differ), sorted. */
typedef struct rows {
    char **v;
    size_t n;
} rows;

static void rows_free(rows *r)
{
    for (size_t i = 0; i < r->n; i++) sqlite3_free(r->v[i]);
    free(r->v);
    r->v = NULL;
    r->n = 0;
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Run `sql`; rows into *out (sorted unless first_only), or an error message into msg. SQLite status. */
static int run_query(sqlite3 *db, const char *sql, rows *out, char *msg, size_t cap)
{
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, &tail);
    if (rc == SQLITE_OK && !st) { snprintf(msg, cap, "'%s' is not a query", sql); return SQLITE_ERROR; }
    if (rc == SQLITE_OK && tail && *tail) { /* what follows may be blanks and comments, not a statement */
        sqlite3_stmt *more = NULL;
        int mrc = sqlite3_prepare_v2(db, tail, -1, &more, NULL);
        sqlite3_finalize(more);
        if (mrc != SQLITE_OK || more) {
            snprintf(msg, cap, "'%s': one statement is one query (queries are separated by ';')", sql);
            sqlite3_finalize(st);
            return SQLITE_ERROR;
        }
    }
    while (rc == SQLITE_OK) {
        int s = sqlite3_step(st);
        if (s == SQLITE_DONE) break;
        if (s != SQLITE_ROW) { rc = s; break; }
        sqlite3_str *b = sqlite3_str_new(db);
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            int t = sqlite3_column_type(st, c);
            if (c) sqlite3_str_appendchar(b, 1, '\x1f');
            if (t == SQLITE_NULL) { sqlite3_str_appendall(b, "\x01NULL"); continue; }
            sqlite3_str_appendchar(b, 1, t == SQLITE_TEXT || t == SQLITE_BLOB ? '\x02' : '\x03');
            if (t == SQLITE_BLOB) {
                const unsigned char *p = sqlite3_column_blob(st, c);
                for (int i = 0; i < sqlite3_column_bytes(st, c); i++) sqlite3_str_appendf(b, "%02x", p[i]);
            } else {
                sqlite3_str_appendall(b, (const char *)sqlite3_column_text(st, c));
            }
        }
        char *row = sqlite3_str_finish(b);
        char **nv = row ? realloc(out->v, (out->n + 1) * sizeof *nv) : NULL;
        if (!nv) { sqlite3_free(row); rc = SQLITE_NOMEM; break; }
        out->v = nv;
        out->v[out->n++] = row;
    }
    if (rc != SQLITE_OK) snprintf(msg, cap, "'%s': %s", sql, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
}

/* A row as people read it: cells separated by ", ", NULL as NULL. */
static void show_row(char *dst, size_t cap, const char *row)
{
    size_t o = 0;
    for (const char *p = row; *p && o + 1 < cap; p++) {
        if (*p == '\x1f') { if (o + 2 < cap) { dst[o++] = ','; dst[o++] = ' '; } continue; }
        if (*p == '\x02' || *p == '\x03') continue;
        if (*p == '\x01') continue;
        dst[o++] = *p;
    }
    dst[o] = 0;
}

static void show_rows(char *dst, size_t cap, const rows *r)
{
    size_t o = (size_t)snprintf(dst, cap, "%zu row%s", r->n, r->n == 1 ? "" : "s");
    for (size_t i = 0; i < r->n && i < 3 && o + 8 < cap; i++) {
        char cell[256];
        show_row(cell, sizeof cell, r->v[i]);
        o += (size_t)snprintf(dst + o, cap - o, "%s(%s)", i ? ", " : ": ", cell);
    }
    if (r->n > 3 && o + 8 < cap) snprintf(dst + o, cap - o, ", ...");
}

/* `sql` with every <TABLE_NAME> replaced by `name` (sqlite3_malloc'ed). */
static char *with_table(const char *sql, const char *name)
{
    static const char var[] = "<TABLE_NAME>";
    sqlite3_str *b = sqlite3_str_new(NULL);
    for (const char *p = sql;;) {
        const char *hit = strstr(p, var);
        if (!hit) { sqlite3_str_appendall(b, p); break; }
        sqlite3_str_append(b, p, (int)(hit - p));
        sqlite3_str_appendall(b, name);
        p = hit + sizeof var - 1;
    }
    return sqlite3_str_finish(b);
}

static int exec(sqlite3 *db, const char *sql, char *msg, size_t cap)
{
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) snprintf(msg, cap, "%s", err ? err : sqlite3_errstr(rc));
    sqlite3_free(err);
    return rc;
}

/* The views staged_table_before / staged_table_after: the table before and after, in the touched partitions. */
static int stage(sqlite3 *db, const hoodie_precommit *pc, char *msg, size_t cap)
{
    if (hoodie_sqlite_register_storage(db, "hoodie_before", pc->before) != SQLITE_OK ||
        hoodie_sqlite_register_storage(db, "hoodie_after", pc->after) != SQLITE_OK) {
        snprintf(msg, cap, "cannot register the SQLite module: %s", sqlite3_errmsg(db));
        return SQLITE_ERROR;
    }
    sqlite3_str *b = sqlite3_str_new(db);
    sqlite3_str_appendf(b, "CREATE VIRTUAL TABLE temp.hoodie_table_before USING hoodie_before(%Q);"
                           "CREATE VIRTUAL TABLE temp.hoodie_table_after USING hoodie_after(%Q);",
                        pc->base_path, pc->base_path);
    for (int side = 0; side < 2; side++) {
        const char *s = side ? "after" : "before";
        sqlite3_str_appendf(b, "CREATE TEMP VIEW staged_table_%s AS SELECT * FROM hoodie_table_%s WHERE "
                               "_hoodie_partition_path IN (", s, s);
        for (size_t i = 0; i < pc->n_partitions; i++) sqlite3_str_appendf(b, "%s%Q", i ? ", " : "", pc->partitions[i]);
        if (!pc->n_partitions) sqlite3_str_appendall(b, "NULL");
        sqlite3_str_appendall(b, ");");
    }
    char *sql = sqlite3_str_finish(b);
    if (!sql) { snprintf(msg, cap, "out of memory"); return SQLITE_NOMEM; }
    int rc = exec(db, sql, msg, cap);
    sqlite3_free(sql);
    return rc;
}

hoodie_status cli_validate_precommit(void *ctx, hoodie_precommit *pc)
{
    const cli_validators *v = ctx;
    char *msg = pc->message;
    size_t cap = pc->message_cap;
    const hoodie_write_result *wr = pc->result;
    if (wr && !wr->inserts && !wr->updates && !wr->deletes && !wr->files_written)
        return HOODIE_OK; /* an empty write: nothing to check (as Hudi 1.2 skips it) */
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) snprintf(msg, cap, "cannot open SQLite: %s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    if (rc == SQLITE_OK) rc = stage(db, pc, msg, cap);
    int refused = 0;
    for (int k = 0; rc == SQLITE_OK && !refused && k < CLI_VALIDATE_KINDS; k++) {
        for (size_t i = 0; rc == SQLITE_OK && !refused && i < v->n[k]; i++) {
            char *query = NULL, expected[512] = "", cell[512];
            if (k == CLI_VALIDATE_SINGLE) {
                const char *hash = strrchr(v->q[k][i], '#');
                query = trim_dup(v->q[k][i], (size_t)(hash - v->q[k][i]));
                char *e = trim_dup(hash + 1, strlen(hash + 1));
                if (e) snprintf(expected, sizeof expected, "%s", e);
                free(e);
            } else {
                query = trim_dup(v->q[k][i], strlen(v->q[k][i]));
            }
            if (!query) { snprintf(msg, cap, "out of memory"); rc = SQLITE_NOMEM; break; }
            rows before = { NULL, 0 }, after = { NULL, 0 };
            char *qa = with_table(query, "staged_table_after");
            char *qb = k == CLI_VALIDATE_SINGLE ? NULL : with_table(query, "staged_table_before");
            char err[1024] = "";
            if (!qa || (k != CLI_VALIDATE_SINGLE && !qb)) rc = SQLITE_NOMEM;
            if (rc == SQLITE_OK) rc = run_query(db, qa, &after, err, sizeof err);
            if (rc == SQLITE_OK && qb) rc = run_query(db, qb, &before, err, sizeof err);
            if (rc != SQLITE_OK) {
                snprintf(msg, cap, "%s validator: %s", kind_name[k], *err ? err : sqlite3_errstr(rc));
            } else if (k == CLI_VALIDATE_SINGLE) {
                const char *got = NULL;
                if (after.n) {
                    const char *row = after.v[0], *end = strchr(row, '\x1f');
                    size_t n = end ? (size_t)(end - row) : strlen(row);
                    snprintf(cell, sizeof cell, "%.*s", (int)n, row);
                    got = cell[0] == '\x01' ? NULL : cell + 1;
                }
                if (!got || strcmp(got, expected)) {
                    refused = 1;
                    snprintf(msg, cap, "single value validation failed for '%s': expected %s, got %s", query,
                             expected, !after.n ? "no row" : got ? got : "NULL");
                }
            } else {
                qsort(before.v, before.n, sizeof *before.v, str_cmp);
                qsort(after.v, after.n, sizeof *after.v, str_cmp);
                int same = before.n == after.n;
                for (size_t r = 0; same && r < before.n; r++) same = !strcmp(before.v[r], after.v[r]);
                if (same != (k == CLI_VALIDATE_EQUALITY)) {
                    char sb[400], sa[400];
                    show_rows(sb, sizeof sb, &before);
                    show_rows(sa, sizeof sa, &after);
                    refused = 1;
                    snprintf(msg, cap, "%s validation failed for '%s': before %s; after %s", kind_name[k], query,
                             sb, sa);
                }
            }
            rows_free(&before);
            rows_free(&after);
            sqlite3_free(qa);
            sqlite3_free(qb);
            free(query);
        }
    }
    sqlite3_close(db);
    if (rc == SQLITE_OK && !refused) return HOODIE_OK;
    if (v->warn_only) {
        fprintf(stderr, "hoodie: warning: %s %s: pre-commit validation failed, committed all the same "
                        "(failure policy WARN_LOG): %s\n", pc->base_path, pc->instant, msg);
        return HOODIE_OK;
    }
    return HOODIE_EVALIDATION;
}

int cli_validators_option(cli_validators *v, const char *opt, const char *val, int *consumed)
{
    static const char *const opts[CLI_VALIDATE_KINDS] = { "--validate-equality", "--validate-inequality",
                                                           "--validate-single-value" };
    *consumed = 0;
    if (!strcmp(opt, "--validate-policy")) {
        if (!val) return cli_usage("%s needs fail or warn_log", opt);
        *consumed = 1;
        return set_policy(v, val) < 0 ? cli_usage("%s is fail or warn_log, not '%s'", opt, val) : CLI_OK;
    }
    if (!strcmp(opt, "--props")) {
        if (!val) return cli_usage("%s needs a file", opt);
        *consumed = 1;
        return cli_validators_load_props(v, val);
    }
    for (int k = 0; k < CLI_VALIDATE_KINDS; k++) {
        if (strcmp(opt, opts[k])) continue;
        if (!val) return cli_usage("%s needs %s", opt, k == CLI_VALIDATE_SINGLE ? "'QUERY#EXPECTED'" : "a query");
        *consumed = 1;
        return cli_validators_add(v, k, val, opt);
    }
    return -1;
}
