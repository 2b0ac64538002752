/* hoodie sql: SQL (SQLite) over Hudi tables through the virtual table module of ext/sqlite. */
#include "cli.h"
#include "hoodie_sqlite.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sql_usage(FILE *out)
{
    fprintf(out,
            "usage: hoodie sql [NAME=]TABLE... QUERY [--format csv|jsonl|table] [--db FILE] [--metadata-table]\n"
            "\n"
            "  Run QUERY (SQLite SQL; several statements separated by ';') with each TABLE as a virtual table\n"
            "  named NAME, by default its hoodie.table.name. Columns are typed INTEGER, REAL, TEXT (dates,\n"
            "  timestamps, wide decimals; structs, lists and maps as JSON) and BLOB. Time travel:\n"
            "  SELECT ... FROM t('INSTANT'); incremental: FROM t(NULL, 'FROM'[, 'TO']). More tables:\n"
            "  CREATE VIRTUAL TABLE x USING hoodie('/path'[, 'query=read_optimized'|'query=cdc'|'as_of=T'|'from=T'|'to=T']).\n"
            "  Comparisons on integer, floating point, boolean and string columns are pushed into the scan\n"
            "  (partition pruning, column statistics); _hoodie_record_key = / IN becomes a key lookup.\n"
            "  INSERT (an upsert), UPDATE (not of key or partition fields) and DELETE are written as Hudi\n"
            "  commits at COMMIT. --db FILE opens a SQLite database as main (default: in memory); the tables\n"
            "  are temporary. --metadata-table reads the tables' files, record index and column statistics\n"
            "  from their metadata tables (USING hoodie('/path', 'metadata=on')).\n");
}

typedef enum { FMT_CSV, FMT_JSONL, FMT_TABLE } sql_format;

/* The shortest %g that reads back as d. */
static void fmt_double(char *buf, size_t n, double d)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) break;
    }
    if (!strpbrk(buf, ".eEn")) strncat(buf, ".0", n - strlen(buf) - 1);
}

static void put_csv_text(FILE *out, const char *s, int n)
{
    int quote = 0;
    for (int i = 0; i < n && !quote; i++) quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) { fwrite(s, 1, (size_t)n, out); return; }
    fputc('"', out);
    for (int i = 0; i < n; i++) {
        if (s[i] == '"') fputc('"', out);
        fputc(s[i], out);
    }
    fputc('"', out);
}

static void put_json_text(FILE *out, const char *s, int n)
{
    fputc('"', out);
    for (int i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c == '\r') fputs("\\r", out);
        else if (c == '\t') fputs("\\t", out);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

/* A cell as text for CSV and the table format; *is_text for quoting. Returns a malloc'd string. */
static char *cell_text(sqlite3_stmt *st, int i)
{
    char num[64];
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: return strdup("");
    case SQLITE_INTEGER: snprintf(num, sizeof num, "%lld", (long long)sqlite3_column_int64(st, i)); return strdup(num);
    case SQLITE_FLOAT: fmt_double(num, sizeof num, sqlite3_column_double(st, i)); return strdup(num);
    case SQLITE_BLOB: {
        int n = sqlite3_column_bytes(st, i);
        const unsigned char *p = sqlite3_column_blob(st, i);
        char *s = malloc((size_t)n * 2 + 1);
        if (!s) return NULL;
        for (int k = 0; k < n; k++) snprintf(s + 2 * k, 3, "%02x", p[k]);
        s[2 * n] = 0;
        return s;
    }
    default: {
        const char *t = (const char *)sqlite3_column_text(st, i);
        int n = sqlite3_column_bytes(st, i);
        char *s = malloc((size_t)n + 1);
        if (!s) return NULL;
        if (n) memcpy(s, t, (size_t)n);
        s[n] = 0;
        return s;
    }
    }
}

static void put_row_csv(FILE *out, sqlite3_stmt *st, int nc)
{
    for (int i = 0; i < nc; i++) {
        if (i) fputc(',', out);
        int t = sqlite3_column_type(st, i);
        if (t == SQLITE_TEXT) {
            const char *s = (const char *)sqlite3_column_text(st, i);
            put_csv_text(out, s, sqlite3_column_bytes(st, i));
        } else if (t != SQLITE_NULL) {
            char *s = cell_text(st, i);
            if (s) fputs(s, out);
            free(s);
        }
    }
    fputc('\n', out);
}

static void put_row_json(FILE *out, sqlite3_stmt *st, int nc)
{
    fputc('{', out);
    for (int i = 0; i < nc; i++) {
        const char *name = sqlite3_column_name(st, i);
        if (i) fputc(',', out);
        put_json_text(out, name ? name : "", name ? (int)strlen(name) : 0);
        fputc(':', out);
        int t = sqlite3_column_type(st, i);
        if (t == SQLITE_NULL || (t == SQLITE_FLOAT && !isfinite(sqlite3_column_double(st, i)))) fputs("null", out);
        else if (t == SQLITE_INTEGER || t == SQLITE_FLOAT) {
            char *s = cell_text(st, i);
            if (s) fputs(s, out);
            free(s);
        } else if (t == SQLITE_TEXT) {
            put_json_text(out, (const char *)sqlite3_column_text(st, i), sqlite3_column_bytes(st, i));
        } else {
            char *s = cell_text(st, i);
            if (s) put_json_text(out, s, (int)strlen(s));
            free(s);
        }
    }
    fputs("}\n", out);
}

/* The rows of a statement in the aligned table format: all rows are held to size the columns. */
static int put_table(FILE *out, sqlite3_stmt *st, int nc, int *step_rc)
{
    size_t n_rows = 0, cap = 0;
    char **cells = NULL;
    int *width = calloc((size_t)nc, sizeof *width);
    int ok = width != NULL, rc = SQLITE_DONE;
    for (int i = 0; ok && i < nc; i++) width[i] = (int)strlen(sqlite3_column_name(st, i));
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((n_rows + 1) * (size_t)nc > cap) {
            size_t ncap = cap ? cap * 2 : (size_t)nc * 64;
            char **nn = realloc(cells, ncap * sizeof *nn);
            if (!nn) { ok = 0; break; }
            cells = nn;
            cap = ncap;
        }
        for (int i = 0; i < nc; i++) {
            char *s = sqlite3_column_type(st, i) == SQLITE_NULL ? strdup("NULL") : cell_text(st, i);
            cells[n_rows * (size_t)nc + (size_t)i] = s;
            if (!s) ok = 0;
            else if ((int)strlen(s) > width[i]) width[i] = (int)strlen(s);
        }
        n_rows++;
    }
    *step_rc = ok ? rc : SQLITE_NOMEM;
    if (ok && rc == SQLITE_DONE) {
        for (int i = 0; i < nc; i++) fprintf(out, "%s%-*s", i ? " | " : "", width[i], sqlite3_column_name(st, i));
        fputc('\n', out);
        for (int i = 0; i < nc; i++) {
            if (i) fputs("-+-", out);
            for (int k = 0; k < width[i]; k++) fputc('-', out);
        }
        fputc('\n', out);
        for (size_t r = 0; r < n_rows; r++) {
            for (int i = 0; i < nc; i++)
                fprintf(out, "%s%-*s", i ? " | " : "", width[i], cells[r * (size_t)nc + (size_t)i]);
            fputc('\n', out);
        }
        fprintf(out, "(%zu row%s)\n", n_rows, n_rows == 1 ? "" : "s");
    }
    for (size_t k = 0; k < n_rows * (size_t)nc; k++) free(cells[k]);
    free(cells);
    free(width);
    return ok;
}

/* "NAME=PATH": NAME when the part before '=' is an identifier, else NULL (the whole argument is a path). */
static const char *split_name(const char *arg, size_t *name_len)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) return NULL;
    for (const char *p = arg; p < eq; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') return NULL;
    *name_len = (size_t)(eq - arg);
    return eq + 1;
}

/* The module's messages start "hoodie: ", as the CLI's do: say it once. */
static const char *unprefixed(const char *msg)
{
    return strncmp(msg, "hoodie: ", 8) ? msg : msg + 8;
}

static int attach_table(sqlite3 *db, const char *arg, int metadata)
{
    size_t nl = 0;
    const char *path = split_name(arg, &nl);
    char *name = NULL;
    if (path) name = strndup(arg, nl);
    else {
        path = arg;
        hoodie_table *t = NULL;
        hoodie_status rc = hoodie_table_open(&t, path, NULL);
        if (rc != HOODIE_OK) return cli_fail(rc, "sql");
        name = strdup(hoodie_table_name(t));
        hoodie_table_free(t);
    }
    if (!name) return cli_fail(HOODIE_ENOMEM, NULL);
    char *ddl = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.\"%w\" USING hoodie(%Q%s)", name, path,
                                metadata ? ", 'metadata=on'" : "");
    char *err = NULL;
    int rc = ddl ? sqlite3_exec(db, ddl, NULL, NULL, &err) : SQLITE_NOMEM;
    if (rc != SQLITE_OK)
        fprintf(stderr, "hoodie: sql: table %s (%s): %s\n", name, path, unprefixed(err ? err : sqlite3_errstr(rc)));
    sqlite3_free(err);
    sqlite3_free(ddl);
    free(name);
    return rc == SQLITE_OK ? CLI_OK : CLI_ERROR;
}

/* Run every statement of `sql`, printing the rows of those that return any. */
static int run(sqlite3 *db, const char *sql, sql_format fmt)
{
    const char *tail = sql;
    while (tail && *tail) {
        sqlite3_stmt *st = NULL;
        const char *next = NULL;
        int rc = sqlite3_prepare_v2(db, tail, -1, &st, &next);
        if (rc != SQLITE_OK) {
            fprintf(stderr, "hoodie: sql: %s (at byte %d of the query)\n", unprefixed(sqlite3_errmsg(db)),
                    sqlite3_error_offset(db) >= 0 ? (int)(tail - sql) + sqlite3_error_offset(db) : (int)(tail - sql));
            return CLI_USAGE;
        }
        tail = next;
        if (!st) continue; /* whitespace or a comment */
        int nc = sqlite3_column_count(st);
        if (nc && fmt == FMT_TABLE) {
            if (!put_table(stdout, st, nc, &rc)) rc = SQLITE_NOMEM;
        } else {
            rc = sqlite3_step(st); /* the header only once the query runs */
            if (nc && fmt == FMT_CSV && (rc == SQLITE_ROW || rc == SQLITE_DONE)) {
                for (int i = 0; i < nc; i++) {
                    const char *name = sqlite3_column_name(st, i);
                    if (i) fputc(',', stdout);
                    put_csv_text(stdout, name ? name : "", name ? (int)strlen(name) : 0);
                }
                fputc('\n', stdout);
            }
            for (; rc == SQLITE_ROW; rc = sqlite3_step(st))
                if (fmt == FMT_CSV) put_row_csv(stdout, st, nc);
                else put_row_json(stdout, st, nc);
        }
        if (rc != SQLITE_DONE) {
            fprintf(stderr, "hoodie: sql: %s\n", unprefixed(sqlite3_errmsg(db)));
            sqlite3_finalize(st);
            return CLI_ERROR;
        }
        sqlite3_finalize(st);
    }
    return CLI_OK;
}

int cmd_sql(int argc, char **argv)
{
    const char *db_path = ":memory:";
    sql_format fmt = FMT_CSV;
    int metadata = 0;
    const char **pos = calloc((size_t)argc + 1, sizeof *pos);
    int n_pos = 0;
    if (!pos) return cli_fail(HOODIE_ENOMEM, NULL);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { sql_usage(stdout); free(pos); return CLI_OK; }
        if (!strcmp(a, "--format") || !strcmp(a, "--db")) {
            if (!v) { free(pos); return cli_usage("sql: %s needs a value", a); }
            i++;
            if (!strcmp(a, "--db")) db_path = v;
            else if (!strcmp(v, "csv")) fmt = FMT_CSV;
            else if (!strcmp(v, "jsonl") || !strcmp(v, "json")) fmt = FMT_JSONL;
            else if (!strcmp(v, "table")) fmt = FMT_TABLE;
            else { free(pos); return cli_usage("sql: unknown format '%s' (csv, jsonl, table)", v); }
        } else if (!strcmp(a, "--metadata-table")) {
            metadata = 1;
        } else if (a[0] == '-' && a[1] == '-' && a[2]) {
            free(pos);
            return cli_usage("sql: unknown option '%s'", a);
        } else pos[n_pos++] = a;
    }
    if (n_pos < 1) { sql_usage(stderr); free(pos); return CLI_USAGE; }
    sqlite3 *db = NULL;
    int code = CLI_OK;
    /* no memory statistics: SQLite then takes no mutex per allocation (a text value copied into each row of a scan
     * is one); before SQLite initializes, which opening does. Advice: a failure changes nothing */
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        fprintf(stderr, "hoodie: sql: cannot open %s: %s\n", db_path, db ? sqlite3_errmsg(db) : "out of memory");
        code = CLI_ERROR;
    }
    if (code == CLI_OK && hoodie_sqlite_register(db) != SQLITE_OK) {
        fprintf(stderr, "hoodie: sql: %s\n", sqlite3_errmsg(db));
        code = CLI_ERROR;
    }
    for (int i = 0; code == CLI_OK && i < n_pos - 1; i++) code = attach_table(db, pos[i], metadata);
    if (code == CLI_OK) code = run(db, pos[n_pos - 1], fmt);
    fflush(stdout);
    if (code == CLI_OK && ferror(stdout)) {
        fprintf(stderr, "hoodie: sql: cannot write the output\n");
        code = CLI_ERROR;
    }
    sqlite3_close(db);
    free(pos);
    return code;
}
