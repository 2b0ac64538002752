/*
 * The SQLite virtual table over hoodie scans (see hoodie_sqlite.h).
 *
 *   xConnect     parse the arguments, open the table once to learn its columns, declare them
 *   xBestIndex   choose the constraints to push down; the plan is written into idxStr as text:
 *                "<projection mask, hex>" then one ";<kind><column>" per argv value, kind one of
 *                = ! < { > } (comparison), I (IN all at once), N / n (IS NULL / IS NOT NULL), h (hidden)
 *   xFilter      reopen the table (to see the latest commits), turn the argv values into the scan's filter
 *                text (or a key lookup), start the stream
 *   xColumn      read the cell of the current Arrow batch
 *
 * Values are only pushed down when SQLite would compare them the same way the scan's filter does (same kind of
 * value, binary collation); the constraints stay for SQLite to check (omit = 0), except the hidden ones.
 */
#include "hoodie_sqlite.h"

#ifdef HOODIE_SQLITE_LOADABLE
SQLITE_EXTENSION_INIT1
#endif

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hoodie/hoodie.h"

/* What a column holds, from its Arrow format string. */
typedef enum {
    K_NULL, K_BOOL, K_INT, K_UINT, K_HALF, K_FLOAT, K_DOUBLE, K_STR, K_BIN, K_FIXED, K_DEC,
    K_DATE, K_TIME, K_TS, K_NESTED, K_OTHER
} kind;

typedef struct col {
    char *name;
    kind k;
    int width;      /* bytes of an integer, a time or a fixed binary value */
    int scale;      /* decimal scale; digits of the fraction of a time or timestamp */
    int prec;
    int64_t per_s;  /* time and timestamp units per second */
    int fixed;      /* a record-key or partition field: an UPDATE may not assign it */
    int unchanged;  /* read with sqlite3_vtab_nochange() since the last xFilter: the UPDATE leaves it */
} col;

/* The changes of a transaction, in order: runs of inserts and updates (upserts) and runs of deletes. At xSync they
 * become one Hudi commit: an upsert, a delete, or an upsert whose delete rows are marked (a delete column). */
typedef struct seg {
    int del;
    sqlite3_str *jsonl;   /* upsert: one JSON object per row, the table's columns */
    char **keys;          /* delete: record keys */
    size_t n;
} seg;

enum { H_AS_OF, H_FROM, H_TO, N_HIDDEN };
static const char *const hidden_names[N_HIDDEN] = { "_hoodie_as_of", "_hoodie_from", "_hoodie_to" };

typedef struct vtab {
    sqlite3_vtab base;
    char *path;
    hoodie_query_type query;
    char *opt[N_HIDDEN];  /* as_of, from, to from the CREATE arguments */
    col *cols;
    int n_cols;
    seg *segs;
    size_t n_segs;
    int past_read;        /* the last xFilter read another version (t('T'), t(NULL, 'FROM')): no UPDATE or DELETE */
    const hoodie_storage *storage; /* the module's (hoodie_sqlite_register_storage): read-only; NULL: local files */
    int metadata;         /* 'metadata=on': files, record index and column statistics from the metadata table */
} vtab;

/* The table at v->path, through the module's storage. */
static hoodie_status open_table(const vtab *v, hoodie_table **t)
{
    hoodie_table_open_opts o = HOODIE_TABLE_OPEN_OPTS_INIT;
    o.storage = v->storage;
    if (v->metadata) o.flags |= HOODIE_OPEN_METADATA_TABLE;
    return hoodie_table_open(t, v->path, &o);
}

typedef struct cursor {
    sqlite3_vtab_cursor base;
    hoodie_table *t;
    struct ArrowArrayStream st;
    struct ArrowSchema sch;
    struct ArrowArray arr;
    int *map;             /* vtab column -> child of the batch, -1 when not projected */
    int64_t row;
    sqlite3_int64 rowid;
    int eof;
    char *hid[N_HIDDEN];  /* the as_of, from and to of this query */
} cursor;

/* ---- arguments and schema ---------------------------------------------------------------------------------- */

/* An argument as written in CREATE VIRTUAL TABLE: strip one level of '...' or "..." quoting. */
static char *unquote(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n')) n--;
    char q = n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0] ? s[0] : 0;
    char *out = sqlite3_malloc64(n + 1), *o = out;
    if (!out) return NULL;
    size_t i = q ? 1 : 0, end = q ? n - 1 : n;
    for (; i < end; i++) {
        *o++ = s[i];
        if (q && s[i] == q && i + 1 < end && s[i + 1] == q) i++;
    }
    *o = 0;
    return out;
}

static int parse_kind(const char *f, col *c)
{
    c->k = K_OTHER;
    c->width = 0;
    c->scale = 0;
    c->per_s = 1;
    switch (f[0]) {
    case 'n': c->k = K_NULL; return 0;
    case 'b': c->k = K_BOOL; return 0;
    case 'c': c->k = K_INT; c->width = 1; return 0;
    case 's': c->k = K_INT; c->width = 2; return 0;
    case 'i': c->k = K_INT; c->width = 4; return 0;
    case 'l': c->k = K_INT; c->width = 8; return 0;
    case 'C': c->k = K_UINT; c->width = 1; return 0;
    case 'S': c->k = K_UINT; c->width = 2; return 0;
    case 'I': c->k = K_UINT; c->width = 4; return 0;
    case 'L': c->k = K_UINT; c->width = 8; return 0;
    case 'e': c->k = K_HALF; return 0;
    case 'f': c->k = K_FLOAT; return 0;
    case 'g': c->k = K_DOUBLE; return 0;
    case 'u': c->k = K_STR; return 0;
    case 'z': c->k = K_BIN; return 0;
    case 'w': c->k = K_FIXED; c->width = atoi(f + 2); return 0;
    case 'd': {
        int p = 0, s = 0, bits = 128;
        if (sscanf(f, "d:%d,%d,%d", &p, &s, &bits) < 2 || bits != 128) return 0;
        c->k = K_DEC;
        c->prec = p;
        c->scale = s;
        return 0;
    }
    case '+': c->k = K_NESTED; return 0;
    case 't': break;
    default: return 0;
    }
    char unit = f[2];
    int64_t per = unit == 's' ? 1 : unit == 'm' ? 1000 : unit == 'u' ? 1000000 : unit == 'n' ? 1000000000 : 0;
    int digits = unit == 's' ? 0 : unit == 'm' ? 3 : unit == 'u' ? 6 : 9;
    if (f[1] == 'd') { c->k = K_DATE; c->width = unit == 'D' ? 4 : 8; return 0; }
    if (!per) return 0;
    if (f[1] == 't') { c->k = K_TIME; c->width = unit == 's' || unit == 'm' ? 4 : 8; }
    else if (f[1] == 's') c->k = K_TS;
    else return 0;
    c->per_s = per;
    c->scale = digits;
    return 0;
}

static const char *decl_type(const col *c)
{
    switch (c->k) {
    case K_BOOL: case K_INT: case K_UINT: return "INTEGER";
    case K_HALF: case K_FLOAT: case K_DOUBLE: return "REAL";
    case K_DEC: return c->prec <= 15 ? "REAL" : "TEXT";
    case K_BIN: case K_FIXED: return "BLOB";
    case K_NULL: return "";
    default: return "TEXT";
    }
}

static void segs_clear(vtab *v)
{
    for (size_t i = 0; i < v->n_segs; i++) {
        sqlite3_free(sqlite3_str_finish(v->segs[i].jsonl));
        for (size_t k = 0; v->segs[i].del && k < v->segs[i].n; k++) sqlite3_free(v->segs[i].keys[k]);
        sqlite3_free(v->segs[i].keys);
    }
    sqlite3_free(v->segs);
    v->segs = NULL;
    v->n_segs = 0;
}

static void vtab_free(vtab *v)
{
    if (!v) return;
    segs_clear(v);
    for (int i = 0; i < v->n_cols; i++) sqlite3_free(v->cols[i].name);
    sqlite3_free(v->cols);
    for (int i = 0; i < N_HIDDEN; i++) sqlite3_free(v->opt[i]);
    sqlite3_free(v->path);
    sqlite3_free(v);
}

static const char *last_error(void)
{
    const hoodie_error *e = hoodie_error_last();
    return e->message && *e->message ? e->message : hoodie_status_str(e->code);
}

/* The columns of a scan of the table with the CREATE options. */
static int learn_columns(vtab *v, char **err)
{
    hoodie_table *t = NULL;
    hoodie_status rc = open_table(v, &t);
    if (rc != HOODIE_OK) { *err = sqlite3_mprintf("hoodie: %s", last_error()); return SQLITE_ERROR; }
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.query = v->query;
    so.as_of = v->opt[H_AS_OF];
    so.from = v->opt[H_FROM];
    so.to = v->opt[H_TO];
    if (so.query == HOODIE_QUERY_CDC) { /* the columns only: an empty window computes no change */
        so.from = "99999999999999999999999";
        so.to = NULL;
    }
    struct ArrowArrayStream st;
    rc = hoodie_table_scan(t, &so, &st);
    if (rc != HOODIE_OK) {
        *err = sqlite3_mprintf("hoodie: %s", last_error());
        hoodie_table_free(t);
        return SQLITE_ERROR;
    }
    struct ArrowSchema sch;
    int src = st.get_schema(&st, &sch);
    if (src) {
        *err = sqlite3_mprintf("hoodie: %s", st.get_last_error(&st));
        st.release(&st);
        hoodie_table_free(t);
        return SQLITE_ERROR;
    }
    int out = SQLITE_OK;
    v->cols = sqlite3_malloc64(sizeof *v->cols * (size_t)(sch.n_children ? sch.n_children : 1));
    if (!v->cols) out = SQLITE_NOMEM;
    for (int64_t i = 0; out == SQLITE_OK && i < sch.n_children; i++) {
        col *c = &v->cols[i];
        memset(c, 0, sizeof *c);
        c->name = sqlite3_mprintf("%s", sch.children[i]->name ? sch.children[i]->name : "");
        if (!c->name) { out = SQLITE_NOMEM; break; }
        v->n_cols = (int)i + 1;
        parse_kind(sch.children[i]->format, c);
    }
    sch.release(&sch);
    st.release(&st);
    /* the record-key and partition fields ("f" or, custom key generator, "f:SIMPLE") */
    static const char *const lists[] = { "hoodie.table.recordkey.fields", "hoodie.table.partition.fields" };
    for (int l = 0; l < 2; l++) {
        const char *txt = hoodie_table_property(t, lists[l]);
        while (txt && *txt) {
            size_t n = strcspn(txt, ",");
            size_t name_len = strcspn(txt, ",:");
            for (int i = 0; i < v->n_cols; i++)
                if (strlen(v->cols[i].name) == name_len && !strncmp(v->cols[i].name, txt, name_len))
                    v->cols[i].fixed = 1;
            txt += n + (txt[n] == ',');
        }
    }
    hoodie_table_free(t);
    return out;
}

static int x_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
    if (argc < 4) {
        *err = sqlite3_mprintf("hoodie: usage: CREATE VIRTUAL TABLE name USING hoodie('/path/to/table' "
                               "[, 'query=snapshot|read_optimized|incremental'] [, 'as_of=T'] [, 'from=T'] "
                               "[, 'to=T'] [, 'metadata=on'])");
        return SQLITE_ERROR;
    }
    vtab *v = sqlite3_malloc64(sizeof *v);
    if (!v) return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    v->storage = aux;
    v->path = unquote(argv[3]);
    if (!v->path) { vtab_free(v); return SQLITE_NOMEM; }
    for (int i = 4; i < argc; i++) {
        char *a = unquote(argv[i]);
        if (!a) { vtab_free(v); return SQLITE_NOMEM; }
        char *eq = strchr(a, '=');
        int bad = !eq;
        if (eq) {
            *eq = 0;
            const char *val = eq + 1;
            int h = !strcmp(a, "as_of") ? H_AS_OF : !strcmp(a, "from") ? H_FROM : !strcmp(a, "to") ? H_TO : -1;
            if (h >= 0) {
                sqlite3_free(v->opt[h]);
                v->opt[h] = sqlite3_mprintf("%s", val);
            } else if (!strcmp(a, "metadata")) {
                if (!strcmp(val, "on")) v->metadata = 1;
                else if (!strcmp(val, "off")) v->metadata = 0;
                else bad = 3;
            } else if (!strcmp(a, "query")) {
                if (!strcmp(val, "snapshot")) v->query = HOODIE_QUERY_SNAPSHOT;
                else if (!strcmp(val, "read_optimized")) v->query = HOODIE_QUERY_READ_OPTIMIZED;
                else if (!strcmp(val, "incremental")) v->query = HOODIE_QUERY_INCREMENTAL;
                else if (!strcmp(val, "cdc")) v->query = HOODIE_QUERY_CDC;
                else bad = 2;
            } else bad = 1;
        }
        if (bad) {
            *err = bad == 2 ? sqlite3_mprintf("hoodie: unknown query type '%s' (snapshot, read_optimized, "
                                              "incremental, cdc)", eq + 1)
                 : bad == 3 ? sqlite3_mprintf("hoodie: metadata=%s: on or off", eq + 1)
                            : sqlite3_mprintf("hoodie: unknown argument '%s' (query=, as_of=, from=, to=, "
                                              "metadata=)", argv[i]);
            sqlite3_free(a);
            vtab_free(v);
            return SQLITE_ERROR;
        }
        sqlite3_free(a);
    }
    if ((v->opt[H_FROM] || v->opt[H_TO]) && v->query == HOODIE_QUERY_SNAPSHOT) v->query = HOODIE_QUERY_INCREMENTAL;
    int rc = learn_columns(v, err);
    if (rc != SQLITE_OK) { vtab_free(v); return rc; }

    sqlite3_str *s = sqlite3_str_new(db);
    sqlite3_str_appendall(s, "CREATE TABLE x(");
    for (int i = 0; i < v->n_cols; i++)
        sqlite3_str_appendf(s, "%s\"%w\" %s", i ? ", " : "", v->cols[i].name, decl_type(&v->cols[i]));
    for (int h = 0; h < N_HIDDEN; h++)
        sqlite3_str_appendf(s, "%s%s TEXT HIDDEN", v->n_cols || h ? ", " : "", hidden_names[h]);
    /* keyed by the record key: a DELETE or UPDATE names its rows by it */
    int has_key = 0;
    for (int i = 0; i < v->n_cols; i++) has_key |= !strcmp(v->cols[i].name, "_hoodie_record_key");
    sqlite3_str_appendall(s, has_key ? ", PRIMARY KEY(_hoodie_record_key)) WITHOUT ROWID" : ")");
    char *ddl = sqlite3_str_finish(s);
    if (!ddl) { vtab_free(v); return SQLITE_NOMEM; }
    rc = sqlite3_declare_vtab(db, ddl);
    sqlite3_free(ddl);
    if (rc != SQLITE_OK) {
        *err = sqlite3_mprintf("hoodie: cannot declare the columns of %s: %s", v->path, sqlite3_errmsg(db));
        vtab_free(v);
        return rc;
    }
    *out = &v->base;
    return SQLITE_OK;
}

static int x_create(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
    return x_connect(db, aux, argc, argv, out, err);
}

static int x_disconnect(sqlite3_vtab *vt)
{
    vtab_free((vtab *)vt);
    return SQLITE_OK;
}

/* ---- planning ---------------------------------------------------------------------------------------------- */

static int pushable(const col *c)
{
    /* not floats: SQLite sees them rounded to their shortest decimal text, the filter compares them exactly */
    return c->k == K_BOOL || c->k == K_INT || c->k == K_DOUBLE || c->k == K_STR;
}

static char op_code(unsigned char op)
{
    switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ: return '=';
    case SQLITE_INDEX_CONSTRAINT_NE: return '!';
    case SQLITE_INDEX_CONSTRAINT_LT: return '<';
    case SQLITE_INDEX_CONSTRAINT_LE: return '{';
    case SQLITE_INDEX_CONSTRAINT_GT: return '>';
    case SQLITE_INDEX_CONSTRAINT_GE: return '}';
    case SQLITE_INDEX_CONSTRAINT_ISNULL: return 'N';
    case SQLITE_INDEX_CONSTRAINT_ISNOTNULL: return 'n';
    default: return 0;
    }
}

static int x_best_index(sqlite3_vtab *vt, sqlite3_index_info *ii)
{
    vtab *v = (vtab *)vt;
    sqlite3_str *s = sqlite3_str_new(NULL);
    sqlite3_str_appendf(s, "%llx", (unsigned long long)ii->colUsed);
    int argc = 0, hidden_wanted = 0, hidden_got = 0, key_eq = 0;
    double rows = 1e6;
    for (int i = 0; i < ii->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &ii->aConstraint[i];
        int cn = c->iColumn;
        if (cn >= v->n_cols) {
            int h = cn - v->n_cols;
            if (c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
            hidden_wanted |= 1 << h;
            if (!c->usable || (hidden_got & (1 << h))) continue;
            hidden_got |= 1 << h;
            ii->aConstraintUsage[i].argvIndex = ++argc;
            ii->aConstraintUsage[i].omit = 1;
            sqlite3_str_appendf(s, ";h%d", h);
            continue;
        }
        if (cn < 0 || !c->usable || !pushable(&v->cols[cn])) continue;
        char oc = op_code(c->op);
        if (!oc) continue;
        if (v->cols[cn].k == K_STR && oc != 'N' && oc != 'n') {
            const char *coll = sqlite3_vtab_collation(ii, i);
            if (coll && sqlite3_stricmp(coll, "BINARY")) continue;
        }
        if (oc == '=' && sqlite3_vtab_in(ii, i, -1)) {
            sqlite3_vtab_in(ii, i, 1);
            oc = 'I';
        }
        ii->aConstraintUsage[i].argvIndex = ++argc;
        ii->aConstraintUsage[i].omit = 0;
        sqlite3_str_appendf(s, ";%c%d", oc, cn);
        int is_key = !strcmp(v->cols[cn].name, "_hoodie_record_key");
        if (is_key && (oc == '=' || oc == 'I')) key_eq = 1;
        rows /= oc == '=' || oc == 'I' ? 10 : oc == 'N' || oc == 'n' || oc == '!' ? 1.2 : 2;
    }
    /* A table-valued call t('T') whose argument cannot be used in this plan: refuse the plan. */
    if (hidden_wanted & ~hidden_got) {
        sqlite3_free(sqlite3_str_finish(s));
        return SQLITE_CONSTRAINT;
    }
    char *idx = sqlite3_str_finish(s);
    if (!idx) return SQLITE_NOMEM;
    ii->idxStr = idx;
    ii->needToFreeIdxStr = 1;
    if (key_eq && v->query == HOODIE_QUERY_SNAPSHOT) rows = 10;
    if (rows < 1) rows = 1;
    ii->estimatedRows = (sqlite3_int64)rows;
    ii->estimatedCost = rows * 10 + 1000; /* each query opens the table and lists its files */
    return SQLITE_OK;
}

/* ---- cursor ------------------------------------------------------------------------------------------------ */

static void cur_close_stream(cursor *c)
{
    if (c->arr.release) c->arr.release(&c->arr);
    if (c->sch.release) c->sch.release(&c->sch);
    if (c->st.release) c->st.release(&c->st);
    memset(&c->arr, 0, sizeof c->arr);
    memset(&c->sch, 0, sizeof c->sch);
    memset(&c->st, 0, sizeof c->st);
    for (int h = 0; h < N_HIDDEN; h++) { sqlite3_free(c->hid[h]); c->hid[h] = NULL; }
}

static int x_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    vtab *v = (vtab *)vt;
    cursor *c = sqlite3_malloc64(sizeof *c);
    if (!c) return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    c->map = sqlite3_malloc64(sizeof *c->map * (size_t)(v->n_cols + 1));
    if (!c->map) { sqlite3_free(c); return SQLITE_NOMEM; }
    c->eof = 1;
    *out = &c->base;
    return SQLITE_OK;
}

static int x_close(sqlite3_vtab_cursor *cur)
{
    cursor *c = (cursor *)cur;
    cur_close_stream(c);
    hoodie_table_free(c->t);
    sqlite3_free(c->map);
    sqlite3_free(c);
    return SQLITE_OK;
}

static int fail(cursor *c, const char *what)
{
    sqlite3_free(c->base.pVtab->zErrMsg);
    c->base.pVtab->zErrMsg = sqlite3_mprintf("hoodie: %s", what);
    c->eof = 1;
    return SQLITE_ERROR;
}

/* The next non-empty batch into c->arr (c->eof at the end). */
static int next_batch(cursor *c)
{
    for (;;) {
        if (c->arr.release) c->arr.release(&c->arr);
        memset(&c->arr, 0, sizeof c->arr);
        c->row = 0;
        if (c->st.get_next(&c->st, &c->arr)) return fail(c, c->st.get_last_error(&c->st));
        if (!c->arr.release) { c->eof = 1; return SQLITE_OK; }
        if (c->arr.length > 0) return SQLITE_OK;
    }
}

/* Append `val` to the filter text as a literal comparable with column `cl`; 0 when it is not of its kind. */
static int put_literal(sqlite3_str *f, const col *cl, sqlite3_value *val)
{
    int t = sqlite3_value_type(val);
    switch (cl->k) {
    case K_BOOL:
        if (t != SQLITE_INTEGER) return 0;
        if (sqlite3_value_int64(val) == 0) sqlite3_str_appendall(f, "false");
        else if (sqlite3_value_int64(val) == 1) sqlite3_str_appendall(f, "true");
        else return 0;
        return 1;
    case K_INT: case K_DOUBLE:
        if (t == SQLITE_INTEGER) {
            sqlite3_int64 i = sqlite3_value_int64(val);
            /* a double column compares with the literal as a double: exact only up to 2^53 */
            if (cl->k != K_INT && (i > (1LL << 53) || i < -(1LL << 53))) return 0;
            sqlite3_str_appendf(f, "%lld", (long long)i);
            return 1;
        }
        if (t == SQLITE_FLOAT) {
            double d = sqlite3_value_double(val);
            if (!isfinite(d)) return 0;
            /* an integer column compares with a fractional literal as a double: exact only up to 2^53 */
            if (cl->k == K_INT && fabs(d) > 9007199254740992.0) return 0;
            char num[40];
            snprintf(num, sizeof num, "%.17g", d);
            if (!strpbrk(num, ".eEn")) strcat(num, ".0");
            sqlite3_str_appendall(f, num);
            return 1;
        }
        return 0;
    case K_STR: {
        if (t != SQLITE_TEXT) return 0;
        const char *txt = (const char *)sqlite3_value_text(val);
        int n = sqlite3_value_bytes(val);
        if (!txt || (int)strlen(txt) != n) return 0; /* a NUL byte inside */
        sqlite3_str_appendf(f, "%Q", txt);
        return 1;
    }
    default:
        return 0;
    }
}

/* "name" quoted for the filter; 0 when the name cannot be written there. */
static int put_column(sqlite3_str *f, const col *cl)
{
    if (strchr(cl->name, '"') || strchr(cl->name, '.')) return 0;
    sqlite3_str_appendf(f, "\"%s\"", cl->name);
    return 1;
}

typedef struct plan {
    sqlite3_str *filter;
    int n_preds;
    int never;              /* a comparison with NULL: no row can pass */
    char **keys;            /* a record-key lookup */
    size_t n_keys;
    int no_lookup;          /* a key value that is not text */
} plan;

/* A copy of key `k` into the plan: values of an IN list do not outlive the iteration over them. */
static int add_key(plan *p, const char *k)
{
    char **nk = sqlite3_realloc64(p->keys, sizeof *nk * (p->n_keys + 1));
    if (!nk) return SQLITE_NOMEM;
    p->keys = nk;
    if (!(p->keys[p->n_keys] = sqlite3_mprintf("%s", k))) return SQLITE_NOMEM;
    p->n_keys++;
    return SQLITE_OK;
}

static void plan_free_keys(plan *p)
{
    for (size_t i = 0; i < p->n_keys; i++) sqlite3_free(p->keys[i]);
    sqlite3_free(p->keys);
}

/* One pushed constraint into the plan. */
static int plan_constraint(plan *p, const col *cl, char oc, sqlite3_value *val)
{
    int is_key = !strcmp(cl->name, "_hoodie_record_key");
    if (oc == 'N' || oc == 'n') {
        if (!put_column(p->filter, cl)) return SQLITE_OK;
        sqlite3_str_appendall(p->filter, oc == 'N' ? " IS NULL AND " : " IS NOT NULL AND ");
        p->n_preds++;
        return SQLITE_OK;
    }
    if (oc == 'I') {
        sqlite3_value *x;
        sqlite3_str *lits = sqlite3_str_new(NULL);
        int n = 0, all = 1, rc, nonnull = 0;
        for (rc = sqlite3_vtab_in_first(val, &x); rc == SQLITE_OK && x; rc = sqlite3_vtab_in_next(val, &x)) {
            if (sqlite3_value_type(x) == SQLITE_NULL) continue; /* never equal */
            nonnull++;
            if (is_key) {
                if (sqlite3_value_type(x) == SQLITE_TEXT) {
                    if (add_key(p, (const char *)sqlite3_value_text(x)) != SQLITE_OK) {
                        sqlite3_free(sqlite3_str_finish(lits));
                        return SQLITE_NOMEM;
                    }
                } else p->no_lookup = 1;
            }
            if (n++) sqlite3_str_appendall(lits, ", ");
            if (!put_literal(lits, cl, x)) all = 0;
        }
        char *l = sqlite3_str_finish(lits);
        if (rc != SQLITE_DONE) { sqlite3_free(l); return rc == SQLITE_OK ? SQLITE_ERROR : rc; }
        if (!nonnull) p->never = 1;
        else if (all && l && put_column(p->filter, cl)) {
            sqlite3_str_appendf(p->filter, " IN (%s) AND ", l);
            p->n_preds++;
        }
        sqlite3_free(l);
        return SQLITE_OK;
    }
    if (sqlite3_value_type(val) == SQLITE_NULL) { p->never = 1; return SQLITE_OK; }
    if (is_key && oc == '=') {
        if (sqlite3_value_type(val) == SQLITE_TEXT) {
            int rc = add_key(p, (const char *)sqlite3_value_text(val));
            if (rc != SQLITE_OK) return rc;
        } else p->no_lookup = 1;
    }
    static const char *const ops[] = { "=", "!=", "<", "<=", ">", ">=" };
    const char *op = ops[strchr("=!<{>}", oc) - "=!<{>}"];
    sqlite3_str *one = sqlite3_str_new(NULL);
    int ok = put_column(one, cl);
    if (ok) sqlite3_str_appendf(one, " %s ", op);
    if (ok) ok = put_literal(one, cl, val);
    char *txt = sqlite3_str_finish(one);
    if (ok && txt) {
        sqlite3_str_appendf(p->filter, "%s AND ", txt);
        p->n_preds++;
    }
    sqlite3_free(txt);
    return SQLITE_OK;
}

static int x_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx, int argc, sqlite3_value **argv)
{
    (void)idx_num;
    cursor *c = (cursor *)cur;
    vtab *v = (vtab *)cur->pVtab;
    cur_close_stream(c);
    c->eof = 1;
    c->rowid = 0;
    for (int i = 0; i < v->n_cols; i++) v->cols[i].unchanged = 0;
    v->past_read = 0;
    /* Reads see the table as committed: after changes that wait for COMMIT they would miss them (an UPDATE after a
     * DELETE in one transaction brought deleted rows back), so such a read is refused. */
    for (size_t i = 0; i < v->n_segs; i++)
        if (v->segs[i].n)
            return fail(c, "this transaction changed the table, and its changes are written at COMMIT: read it (or "
                           "UPDATE or DELETE with a WHERE) after COMMIT, or in a statement of its own");
    if (!c->t) {
        if (open_table(v, &c->t) != HOODIE_OK) return fail(c, last_error());
    }
    char *end = NULL;
    uint64_t used = idx ? strtoull(idx, &end, 16) : ~0ull;
    const char *p = end ? end : "";
    plan pl = { sqlite3_str_new(NULL), 0, 0, NULL, 0, 0 };
    int rc = SQLITE_OK;
    for (int a = 0; a < argc && rc == SQLITE_OK; a++) {
        if (*p != ';') break;
        char oc = p[1];
        int cn = (int)strtol(p + 2, &end, 10);
        p = end;
        if (oc == 'h') {
            if (cn >= 0 && cn < N_HIDDEN && sqlite3_value_type(argv[a]) != SQLITE_NULL) {
                v->past_read = 1;
                c->hid[cn] = sqlite3_mprintf("%s", (const char *)sqlite3_value_text(argv[a]));
                if (!c->hid[cn]) rc = SQLITE_NOMEM;
            }
            continue;
        }
        if (cn < 0 || cn >= v->n_cols) continue;
        rc = plan_constraint(&pl, &v->cols[cn], oc, argv[a]);
    }
    for (int h = 0; h < N_HIDDEN && rc == SQLITE_OK; h++)
        if (!c->hid[h] && v->opt[h] && !(c->hid[h] = sqlite3_mprintf("%s", v->opt[h]))) rc = SQLITE_NOMEM;
    int filter_err = sqlite3_str_errcode(pl.filter);
    char *filter = sqlite3_str_finish(pl.filter); /* NULL when empty */
    if (rc == SQLITE_OK && filter_err) rc = SQLITE_NOMEM;
    if (rc != SQLITE_OK || pl.never) {
        sqlite3_free(filter);
        plan_free_keys(&pl);
        return rc;
    }
    if (pl.n_preds) filter[strlen(filter) - 5] = 0; /* the last " AND " */

    /* The projection: the columns the statement reads (bit 63 stands for every column from the 64th on). */
    const char **cols = sqlite3_malloc64(sizeof *cols * (size_t)(v->n_cols + 1));
    size_t n = 0;
    if (!cols) rc = SQLITE_NOMEM;
    /* The record key always: it is the primary key, which a DELETE or UPDATE reads without saying so in colUsed
     * (and with no column used at all, count(*), some column must be read). */
    for (int i = 0; rc == SQLITE_OK && i < v->n_cols; i++)
        if ((used & (1ull << (i < 63 ? i : 63))) || !strcmp(v->cols[i].name, "_hoodie_record_key"))
            cols[n++] = v->cols[i].name;
    if (rc == SQLITE_OK && !n && v->n_cols) cols[n++] = v->cols[0].name;

    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.query = v->query;
    so.as_of = c->hid[H_AS_OF];
    so.from = c->hid[H_FROM];
    so.to = c->hid[H_TO];
    if ((so.from || so.to) && so.query == HOODIE_QUERY_SNAPSHOT) so.query = HOODIE_QUERY_INCREMENTAL;
    so.columns = cols;
    so.n_columns = n;
    if (so.query == HOODIE_QUERY_CDC) { /* op, ts_ms, before, after: all read, SQLite checks the constraints */
        so.columns = NULL;
        so.n_columns = 0;
        pl.n_preds = 0;
    }
    hoodie_status hs = HOODIE_OK;
    if (rc == SQLITE_OK) {
        if (pl.n_keys && !pl.no_lookup && so.query == HOODIE_QUERY_SNAPSHOT)
            hs = hoodie_table_get_opts(c->t, &so, (const char *const *)pl.keys, pl.n_keys, &c->st);
        else {
            so.filter = pl.n_preds ? filter : NULL;
            hs = hoodie_table_scan(c->t, &so, &c->st);
        }
    }
    sqlite3_free(cols);
    sqlite3_free(filter);
    plan_free_keys(&pl);
    if (rc != SQLITE_OK) return rc;
    if (hs != HOODIE_OK) { memset(&c->st, 0, sizeof c->st); return fail(c, last_error()); }
    if (c->st.get_schema(&c->st, &c->sch)) return fail(c, c->st.get_last_error(&c->st));
    for (int i = 0; i < v->n_cols; i++) {
        c->map[i] = -1;
        for (int64_t j = 0; j < c->sch.n_children; j++)
            if (c->sch.children[j]->name && !strcmp(c->sch.children[j]->name, v->cols[i].name)) {
                c->map[i] = (int)j;
                break;
            }
    }
    c->eof = 0;
    return next_batch(c);
}

static int x_next(sqlite3_vtab_cursor *cur)
{
    cursor *c = (cursor *)cur;
    c->rowid++;
    if (++c->row < c->arr.length) return SQLITE_OK;
    return next_batch(c);
}

static int x_eof(sqlite3_vtab_cursor *cur)
{
    return ((cursor *)cur)->eof;
}

static int x_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = ((cursor *)cur)->rowid;
    return SQLITE_OK;
}

/* ---- cells ------------------------------------------------------------------------------------------------- */

static int is_valid(const struct ArrowArray *a, int64_t i)
{
    if (a->null_count == 0 || a->n_buffers < 1 || !a->buffers[0]) return 1;
    int64_t j = i + a->offset;
    return (((const uint8_t *)a->buffers[0])[j >> 3] >> (j & 7)) & 1;
}

static int64_t int_at(const struct ArrowArray *a, int64_t i, int width, int is_signed)
{
    const void *b = a->buffers[1];
    int64_t j = i + a->offset;
    switch (width) {
    case 1: return is_signed ? (int64_t)((const int8_t *)b)[j] : (int64_t)((const uint8_t *)b)[j];
    case 2: return is_signed ? (int64_t)((const int16_t *)b)[j] : (int64_t)((const uint16_t *)b)[j];
    case 4: return is_signed ? (int64_t)((const int32_t *)b)[j] : (int64_t)((const uint32_t *)b)[j];
    default: return ((const int64_t *)b)[j];
    }
}

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return h & 0x8000 ? -v : v;
}

/* Days since 1970-01-01 to a proleptic Gregorian date. */
static void civil(int64_t days, int64_t *y, int *m, int *d)
{
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    int64_t doe = days - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
    int64_t q = a / b, r = a % b;
    if (r < 0) { q--; r += b; }
    *rem = r;
    return q;
}

static void put_date(sqlite3_str *s, int64_t days)
{
    int64_t y;
    int m, d;
    civil(days, &y, &m, &d);
    sqlite3_str_appendf(s, "%04lld-%02d-%02d", (long long)y, m, d);
}

/* hh:mm:ss[.fraction] of `units` since midnight (units per second `per`, `digits` of fraction). */
static void put_clock(sqlite3_str *s, int64_t units, int64_t per, int digits)
{
    int64_t frac, secs = floor_div(units, per, &frac);
    sqlite3_str_appendf(s, "%02lld:%02lld:%02lld", (long long)(secs / 3600), (long long)(secs / 60 % 60),
                        (long long)(secs % 60));
    if (digits) sqlite3_str_appendf(s, ".%0*lld", digits, (long long)frac);
}

static void put_timestamp(sqlite3_str *s, int64_t v, int64_t per, int digits)
{
    int64_t in_day, days = floor_div(v, per * 86400, &in_day);
    put_date(s, days);
    sqlite3_str_appendchar(s, 1, ' ');
    put_clock(s, in_day, per, digits);
}

/* A decimal128 value exactly, e.g. -12.50 */
static void put_decimal(sqlite3_str *s, const uint8_t *p, int scale)
{
    unsigned __int128 u = 0;
    for (int i = 15; i >= 0; i--) u = (u << 8) | p[i];
    int neg = (p[15] & 0x80) != 0;
    if (neg) u = ~u + 1;
    char digits[48];
    int n = 0;
    do { digits[n++] = (char)('0' + (int)(u % 10)); u /= 10; } while (u);
    while (n <= scale) digits[n++] = '0';
    if (neg) sqlite3_str_appendchar(s, 1, '-');
    for (int i = n - 1; i >= 0; i--) {
        sqlite3_str_appendchar(s, 1, digits[i]);
        if (i == scale && scale > 0) sqlite3_str_appendchar(s, 1, '.');
    }
}

/* The shortest decimal text of d that reads back as d (as a float when `single`). */
static void fmt_shortest(char *buf, size_t n, double d, int single)
{
    /* below 15 digits (6) one decimal at most reads back; not so for subnormals, whose ulp is wider */
    int sub = single ? fabs(d) < FLT_MIN : fabs(d) < DBL_MIN;
    for (int prec = sub ? 1 : single ? 6 : 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, d);
        double back = strtod(buf, NULL);
        if (single ? (float)back == (float)d : back == d) break;
    }
}

static void put_json_string(sqlite3_str *s, const char *p, size_t n)
{
    sqlite3_str_appendchar(s, 1, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch == '"' || ch == '\\') { sqlite3_str_appendchar(s, 1, '\\'); sqlite3_str_appendchar(s, 1, (char)ch); }
        else if (ch == '\n') sqlite3_str_appendall(s, "\\n");
        else if (ch == '\r') sqlite3_str_appendall(s, "\\r");
        else if (ch == '\t') sqlite3_str_appendall(s, "\\t");
        else if (ch < 0x20) sqlite3_str_appendf(s, "\\u%04x", ch);
        else sqlite3_str_appendchar(s, 1, (char)ch);
    }
    sqlite3_str_appendchar(s, 1, '"');
}

static const uint8_t *bytes_at(const struct ArrowArray *a, int64_t i, size_t *n)
{
    const int32_t *off = a->buffers[1];
    int64_t j = i + a->offset;
    *n = (size_t)(off[j + 1] - off[j]);
    return (const uint8_t *)a->buffers[2] + off[j];
}

static void put_hex(sqlite3_str *s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) sqlite3_str_appendf(s, "%02x", p[i]);
}

/* The value at row i of (sch, a) as JSON. */
static void put_json(sqlite3_str *s, const struct ArrowSchema *sch, const struct ArrowArray *a, int64_t i)
{
    if (!is_valid(a, i)) { sqlite3_str_appendall(s, "null"); return; }
    col c;
    parse_kind(sch->format, &c);
    int64_t j = i + a->offset;
    switch (c.k) {
    case K_BOOL:
        sqlite3_str_appendall(s, (((const uint8_t *)a->buffers[1])[j >> 3] >> (j & 7)) & 1 ? "true" : "false");
        return;
    case K_INT: sqlite3_str_appendf(s, "%lld", (long long)int_at(a, i, c.width, 1)); return;
    case K_UINT: sqlite3_str_appendf(s, "%llu", (unsigned long long)int_at(a, i, c.width, 0)); return;
    case K_HALF: case K_FLOAT: case K_DOUBLE: {
        double d = c.k == K_HALF ? half_to_double(((const uint16_t *)a->buffers[1])[j])
                 : c.k == K_FLOAT ? ((const float *)a->buffers[1])[j] : ((const double *)a->buffers[1])[j];
        char num[40];
        fmt_shortest(num, sizeof num, d, c.k != K_DOUBLE);
        if (isfinite(d)) sqlite3_str_appendall(s, num);
        else sqlite3_str_appendall(s, "null");
        return;
    }
    case K_STR: { size_t n; const uint8_t *p = bytes_at(a, i, &n); put_json_string(s, (const char *)p, n); return; }
    case K_BIN: {
        size_t n;
        const uint8_t *p = bytes_at(a, i, &n);
        sqlite3_str_appendchar(s, 1, '"');
        put_hex(s, p, n);
        sqlite3_str_appendchar(s, 1, '"');
        return;
    }
    case K_FIXED:
        sqlite3_str_appendchar(s, 1, '"');
        put_hex(s, (const uint8_t *)a->buffers[1] + (size_t)j * (size_t)c.width, (size_t)c.width);
        sqlite3_str_appendchar(s, 1, '"');
        return;
    case K_DEC: put_decimal(s, (const uint8_t *)a->buffers[1] + (size_t)j * 16, c.scale); return;
    case K_DATE: case K_TIME: case K_TS: {
        int64_t v = int_at(a, i, c.k == K_TS ? 8 : c.width, 1);
        sqlite3_str_appendchar(s, 1, '"');
        if (c.k == K_DATE) put_date(s, c.width == 4 ? v : floor_div(v, 86400000, &(int64_t){ 0 }));
        else if (c.k == K_TIME) put_clock(s, v, c.per_s, c.scale);
        else put_timestamp(s, v, c.per_s, c.scale);
        sqlite3_str_appendchar(s, 1, '"');
        return;
    }
    case K_NESTED: break;
    default: sqlite3_str_appendall(s, "null"); return;
    }
    const char *f = sch->format;
    if (!strcmp(f, "+s")) {
        sqlite3_str_appendchar(s, 1, '{');
        for (int64_t k = 0; k < sch->n_children && k < a->n_children; k++) {
            if (k) sqlite3_str_appendchar(s, 1, ',');
            const char *nm = sch->children[k]->name ? sch->children[k]->name : "";
            put_json_string(s, nm, strlen(nm));
            sqlite3_str_appendchar(s, 1, ':');
            put_json(s, sch->children[k], a->children[k], j);
        }
        sqlite3_str_appendchar(s, 1, '}');
        return;
    }
    int64_t lo, hi;
    if (f[1] == 'L') { lo = ((const int64_t *)a->buffers[1])[j]; hi = ((const int64_t *)a->buffers[1])[j + 1]; }
    else { lo = ((const int32_t *)a->buffers[1])[j]; hi = ((const int32_t *)a->buffers[1])[j + 1]; }
    if (a->n_children < 1 || sch->n_children < 1) { sqlite3_str_appendall(s, "null"); return; }
    if (f[1] == 'm') {
        /* entries struct<key, value>: an object when keys are strings, else a list of [key, value] pairs */
        const struct ArrowSchema *es = sch->children[0];
        const struct ArrowArray *ea = a->children[0];
        if (es->n_children < 2 || ea->n_children < 2) { sqlite3_str_appendall(s, "null"); return; }
        int obj = es->children[0]->format[0] == 'u';
        sqlite3_str_appendchar(s, 1, obj ? '{' : '[');
        for (int64_t k = lo; k < hi; k++) {
            if (k > lo) sqlite3_str_appendchar(s, 1, ',');
            int64_t e = k + ea->offset;
            if (!obj) sqlite3_str_appendchar(s, 1, '[');
            put_json(s, es->children[0], ea->children[0], e);
            sqlite3_str_appendchar(s, 1, obj ? ':' : ',');
            put_json(s, es->children[1], ea->children[1], e);
            if (!obj) sqlite3_str_appendchar(s, 1, ']');
        }
        sqlite3_str_appendchar(s, 1, obj ? '}' : ']');
        return;
    }
    sqlite3_str_appendchar(s, 1, '[');
    for (int64_t k = lo; k < hi; k++) {
        if (k > lo) sqlite3_str_appendchar(s, 1, ',');
        put_json(s, sch->children[0], a->children[0], k);
    }
    sqlite3_str_appendchar(s, 1, ']');
}

static void result_str(sqlite3_context *ctx, sqlite3_str *s)
{
    int n = sqlite3_str_length(s);
    char *txt = sqlite3_str_finish(s);
    if (!txt && n) { sqlite3_result_error_nomem(ctx); return; }
    sqlite3_result_text(ctx, txt ? txt : "", n, sqlite3_free);
}

static int x_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i)
{
    cursor *c = (cursor *)cur;
    vtab *v = (vtab *)cur->pVtab;
    if (i >= v->n_cols) {
        const char *h = c->hid[i - v->n_cols];
        if (h) sqlite3_result_text(ctx, h, -1, SQLITE_TRANSIENT);
        return SQLITE_OK;
    }
    if (sqlite3_vtab_nochange(ctx)) v->cols[i].unchanged = 1; /* an UPDATE leaves it: its value follows anyway */
    int ch = c->map[i];
    if (ch < 0 || ch >= c->arr.n_children) return SQLITE_OK; /* not projected: NULL */
    const struct ArrowArray *a = c->arr.children[ch];
    const struct ArrowSchema *sch = c->sch.children[ch];
    int64_t r = c->row;
    if (!is_valid(a, r)) return SQLITE_OK;
    const col *cl = &v->cols[i];
    int64_t j = r + a->offset;
    switch (cl->k) {
    case K_BOOL:
        sqlite3_result_int(ctx, (((const uint8_t *)a->buffers[1])[j >> 3] >> (j & 7)) & 1);
        return SQLITE_OK;
    case K_INT: sqlite3_result_int64(ctx, int_at(a, r, cl->width, 1)); return SQLITE_OK;
    case K_UINT: {
        uint64_t u = (uint64_t)int_at(a, r, cl->width, 0);
        if (u > INT64_MAX) sqlite3_result_double(ctx, (double)u);
        else sqlite3_result_int64(ctx, (sqlite3_int64)u);
        return SQLITE_OK;
    }
    case K_HALF: case K_FLOAT: {
        /* the double nearest to the float's shortest decimal text: 1.1f reads as 1.1, not 1.100000023841858 */
        double d = cl->k == K_HALF ? half_to_double(((const uint16_t *)a->buffers[1])[j])
                                   : ((const float *)a->buffers[1])[j];
        char num[40];
        fmt_shortest(num, sizeof num, d, 1);
        sqlite3_result_double(ctx, isfinite(d) ? strtod(num, NULL) : d);
        return SQLITE_OK;
    }
    case K_DOUBLE: sqlite3_result_double(ctx, ((const double *)a->buffers[1])[j]); return SQLITE_OK;
    case K_STR: case K_BIN: {
        size_t n;
        const uint8_t *p = bytes_at(a, r, &n);
        if (cl->k == K_STR) sqlite3_result_text64(ctx, (const char *)p, n, SQLITE_TRANSIENT, SQLITE_UTF8);
        else sqlite3_result_blob64(ctx, p, n, SQLITE_TRANSIENT);
        return SQLITE_OK;
    }
    case K_FIXED:
        sqlite3_result_blob64(ctx, (const uint8_t *)a->buffers[1] + (size_t)j * (size_t)cl->width,
                              (sqlite3_uint64)cl->width, SQLITE_TRANSIENT);
        return SQLITE_OK;
    case K_DEC: {
        sqlite3_str *s = sqlite3_str_new(NULL);
        put_decimal(s, (const uint8_t *)a->buffers[1] + (size_t)j * 16, cl->scale);
        if (cl->prec > 15) { result_str(ctx, s); return SQLITE_OK; }
        char *txt = sqlite3_str_finish(s);
        if (!txt) { sqlite3_result_error_nomem(ctx); return SQLITE_OK; }
        sqlite3_result_double(ctx, strtod(txt, NULL));
        sqlite3_free(txt);
        return SQLITE_OK;
    }
    case K_DATE: case K_TIME: case K_TS: case K_NESTED: {
        sqlite3_str *s = sqlite3_str_new(NULL);
        if (cl->k == K_NESTED) put_json(s, sch, a, r);
        else {
            int64_t val = int_at(a, r, cl->k == K_TS ? 8 : cl->width, 1);
            if (cl->k == K_DATE) put_date(s, cl->width == 4 ? val : floor_div(val, 86400000, &(int64_t){ 0 }));
            else if (cl->k == K_TIME) put_clock(s, val, cl->per_s, cl->scale);
            else put_timestamp(s, val, cl->per_s, cl->scale);
        }
        result_str(ctx, s);
        return SQLITE_OK;
    }
    default:
        return SQLITE_OK;
    }
}

/* ---- writes: INSERT, UPDATE and DELETE become Hudi commits at xSync ------------------------------------------- */

static int vt_error(vtab *v, const char *fmt, const char *arg)
{
    sqlite3_free(v->base.zErrMsg);
    v->base.zErrMsg = sqlite3_mprintf(fmt, arg);
    return SQLITE_ERROR;
}

/* The segment the next change joins: the last one if of the same kind, else a new one. */
static seg *segment(vtab *v, int del)
{
    if (v->n_segs && v->segs[v->n_segs - 1].del == del) return &v->segs[v->n_segs - 1];
    seg *ns = sqlite3_realloc64(v->segs, sizeof *ns * (v->n_segs + 1));
    if (!ns) return NULL;
    v->segs = ns;
    seg *g = &v->segs[v->n_segs];
    memset(g, 0, sizeof *g);
    g->del = del;
    if (!del && !(g->jsonl = sqlite3_str_new(NULL))) return NULL;
    v->n_segs++;
    return g;
}

static void put_base64(sqlite3_str *s, const unsigned char *p, int n)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    sqlite3_str_appendchar(s, 1, '"');
    for (int i = 0; i < n; i += 3) {
        unsigned x = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        char q[4] = { al[x >> 18 & 63], al[x >> 12 & 63], i + 1 < n ? al[x >> 6 & 63] : '=',
                      i + 2 < n ? al[x & 63] : '=' };
        sqlite3_str_append(s, q, 4);
    }
    sqlite3_str_appendchar(s, 1, '"');
}

/* A SQL value as the JSON value the table's JSON-lines input reads for column `cl`. */
static void put_json_value(sqlite3_str *s, const col *cl, sqlite3_value *val)
{
    int t = sqlite3_value_type(val);
    char num[40];
    if (t == SQLITE_NULL) { sqlite3_str_appendall(s, "null"); return; }
    if (cl->k == K_BOOL && (t == SQLITE_INTEGER || t == SQLITE_FLOAT)) {
        sqlite3_str_appendall(s, sqlite3_value_double(val) != 0 ? "true" : "false");
        return;
    }
    if ((cl->k == K_BIN || cl->k == K_FIXED) && t == SQLITE_BLOB) {
        put_base64(s, sqlite3_value_blob(val), sqlite3_value_bytes(val));
        return;
    }
    if (cl->k == K_NESTED && t == SQLITE_TEXT) { /* JSON text, as the column reads */
        sqlite3_str_append(s, (const char *)sqlite3_value_text(val), sqlite3_value_bytes(val));
        return;
    }
    if (cl->k != K_STR && cl->k != K_BIN && cl->k != K_FIXED) {
        if (t == SQLITE_INTEGER) { sqlite3_str_appendf(s, "%lld", (long long)sqlite3_value_int64(val)); return; }
        if (t == SQLITE_FLOAT) {
            fmt_shortest(num, sizeof num, sqlite3_value_double(val), 0);
            sqlite3_str_appendall(s, num);
            return;
        }
    }
    /* text (numbers, dates, timestamps and decimals as text are parsed by the column's type) */
    put_json_string(s, (const char *)sqlite3_value_text(val), (size_t)sqlite3_value_bytes(val));
}

static int x_update(sqlite3_vtab *vt, int argc, sqlite3_value **argv, sqlite3_int64 *rowid)
{
    (void)rowid;
    vtab *v = (vtab *)vt;
    if (v->storage)
        return vt_error(v, "hoodie: %s is read-only here: a view of the table through another storage", v->path);
    if (v->query != HOODIE_QUERY_SNAPSHOT || v->opt[H_AS_OF] || v->opt[H_FROM] || v->opt[H_TO])
        return vt_error(v, "hoodie: %s is read-only: a time-travel, read-optimized, incremental or CDC view", v->path);
    /* an UPDATE or DELETE follows its statement's scan: rows of another version would be written as current */
    if ((argc == 1 || sqlite3_value_type(argv[0]) != SQLITE_NULL) && v->past_read)
        return vt_error(v, "hoodie: %s: UPDATE and DELETE read the latest version; _hoodie_as_of, _hoodie_from and "
                           "_hoodie_to cannot select their rows", v->path);
    if (argc == 1) { /* DELETE: argv[0] is the record key */
        if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
        seg *g = segment(v, 1);
        char **nk = g ? sqlite3_realloc64(g->keys, sizeof *nk * (g->n + 1)) : NULL;
        if (!nk) return SQLITE_NOMEM;
        g->keys = nk;
        if (!(g->keys[g->n] = sqlite3_mprintf("%s", (const char *)sqlite3_value_text(argv[0])))) return SQLITE_NOMEM;
        g->n++;
        return SQLITE_OK;
    }
    int update = sqlite3_value_type(argv[0]) != SQLITE_NULL;
    for (int i = 0; update && i < v->n_cols; i++) {
        int meta = !strncmp(v->cols[i].name, "_hoodie_", 8);
        if ((v->cols[i].fixed || meta) && !v->cols[i].unchanged)
            return vt_error(v, meta ? "hoodie: UPDATE cannot set the meta column %s (hoodie writes it)"
                                    : "hoodie: UPDATE cannot change the record key or partition field %s: DELETE "
                                      "the row and INSERT its new version", v->cols[i].name);
    }
    seg *g = segment(v, 0);
    if (!g) return SQLITE_NOMEM;
    sqlite3_str_appendchar(g->jsonl, 1, '{');
    int first = 1;
    for (int i = 0; i < v->n_cols; i++) {
        if (!strncmp(v->cols[i].name, "_hoodie_", 8)) continue; /* hoodie writes them */
        if (!first) sqlite3_str_appendchar(g->jsonl, 1, ',');
        first = 0;
        put_json_string(g->jsonl, v->cols[i].name, strlen(v->cols[i].name));
        sqlite3_str_appendchar(g->jsonl, 1, ':');
        put_json_value(g->jsonl, &v->cols[i], argv[2 + i]);
    }
    sqlite3_str_appendall(g->jsonl, "}\n");
    g->n++;
    return sqlite3_str_errcode(g->jsonl) ? SQLITE_NOMEM : SQLITE_OK;
}

static int x_begin(sqlite3_vtab *vt)
{
    segs_clear((vtab *)vt);
    return SQLITE_OK;
}

/* One segment as a commit: an upsert of the rows (JSON lines typed by the table's schema), or a delete of the rows
 * the keys name (looked up, so the delete carries their partitions). */
static int write_segment(vtab *v, const seg *g)
{
    hoodie_write_opts wo = HOODIE_WRITE_OPTS_INIT;
    struct ArrowArrayStream in;
    hoodie_status rc;
    if (g->del) {
        hoodie_table *t = NULL;
        rc = open_table(v, &t);
        if (rc == HOODIE_OK) rc = hoodie_table_get(t, (const char *const *)g->keys, g->n, &in);
        wo.op = HOODIE_WRITE_DELETE;
        if (rc == HOODIE_OK) rc = hoodie_table_write(v->path, &in, &wo, NULL);
        hoodie_table_free(t);
    } else { /* the rows as JSON lines typed by the table's schema, read from memory */
        hoodie_files_opts fo = HOODIE_FILES_OPTS_INIT;
        fo.format = "jsonl";
        int len = sqlite3_str_length(g->jsonl);
        const char *txt = sqlite3_str_value(g->jsonl);
        rc = hoodie_buffer_stream(txt, len > 0 ? (size_t)len : 0, "the rows written", v->path, &fo, &in);
        wo.op = HOODIE_WRITE_UPSERT;
        if (rc == HOODIE_OK) rc = hoodie_table_write(v->path, &in, &wo, NULL);
    }
    if (rc != HOODIE_OK) return vt_error(v, "hoodie: %s", last_error());
    return SQLITE_OK;
}

/* The input column that marks the deletes of a transaction that also upserts (hoodie_write_opts.delete_column);
 * hoodie never stores it. */
#define DELETE_MARK "_hoodie_sql_delete"

/* `lines` (JSON objects, one a line) onto `out`, each with DELETE_MARK set to `del`. */
static void put_marked(sqlite3_str *out, const char *lines, size_t len, int del)
{
    const char *p = lines, *end = lines + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
        while (e > p && e[-1] != '}') e--; /* e - 1: the object's closing brace */
        if (e - p >= 2) {
            int fields = e - 1 > p + 1; /* not "{}" */
            sqlite3_str_append(out, p, (int)(e - 1 - p));
            sqlite3_str_appendf(out, "%s\"" DELETE_MARK "\":%s}\n", fields ? "," : "", del ? "true" : "false");
        }
        p = nl ? nl + 1 : end;
    }
}

/* The rows the keys of delete segment g name, as the table holds them now, onto `out` as marked JSON lines: a
 * delete carries the deleted version's ordering value, as the delete commit of the same keys would. */
static hoodie_status put_deleted_rows(vtab *v, const seg *g, sqlite3_str *out)
{
    const char **names = sqlite3_malloc64(sizeof *names * (size_t)(v->n_cols + 1));
    if (!names) return HOODIE_ENOMEM;
    size_t nn = 0;
    for (int i = 0; i < v->n_cols; i++)
        if (strncmp(v->cols[i].name, "_hoodie_", 8)) names[nn++] = v->cols[i].name;
    hoodie_table *t = NULL;
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.columns = names;
    so.n_columns = nn;
    struct ArrowArrayStream st;
    hoodie_status rc = open_table(v, &t);
    if (rc == HOODIE_OK) rc = hoodie_table_get_opts(t, &so, (const char *const *)g->keys, g->n, &st);
    char *buf = NULL;
    size_t len = 0;
    if (rc == HOODIE_OK) {
        FILE *f = open_memstream(&buf, &len);
        hoodie_output_opts oo = HOODIE_OUTPUT_OPTS_INIT;
        oo.format = HOODIE_OUTPUT_JSONL;
        if (f) {
            rc = hoodie_output_stream(&st, NULL, f, &oo, NULL);
            if (fclose(f) && rc == HOODIE_OK) rc = HOODIE_ENOMEM;
        } else {
            st.release(&st);
            rc = HOODIE_ENOMEM;
        }
    }
    if (rc == HOODIE_OK) put_marked(out, buf, len, 1);
    free(buf);
    hoodie_table_free(t);
    sqlite3_free(names);
    return rc;
}

/* A transaction of upserts and deletes as one commit: every row in statement order, the deletes marked. */
static int write_mixed(vtab *v)
{
    sqlite3_str *all = sqlite3_str_new(NULL);
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < v->n_segs && rc == HOODIE_OK; i++) {
        const seg *g = &v->segs[i];
        if (!g->n) continue;
        if (g->del) rc = put_deleted_rows(v, g, all);
        else put_marked(all, sqlite3_str_value(g->jsonl), (size_t)sqlite3_str_length(g->jsonl), 0);
    }
    if (rc == HOODIE_OK && sqlite3_str_errcode(all)) rc = HOODIE_ENOMEM;
    if (rc == HOODIE_OK) {
        hoodie_files_opts fo = HOODIE_FILES_OPTS_INIT;
        hoodie_write_opts wo = HOODIE_WRITE_OPTS_INIT;
        struct ArrowArrayStream in;
        fo.format = "jsonl";
        wo.op = HOODIE_WRITE_UPSERT;
        wo.delete_column = DELETE_MARK;
        int len = sqlite3_str_length(all);
        rc = hoodie_buffer_stream(sqlite3_str_value(all), len > 0 ? (size_t)len : 0, "the rows written", v->path,
                                  &fo, &in);
        if (rc == HOODIE_OK) rc = hoodie_table_write(v->path, &in, &wo, NULL);
    }
    sqlite3_free(sqlite3_str_finish(all));
    if (rc == HOODIE_ENOMEM) return SQLITE_NOMEM;
    if (rc != HOODIE_OK) return vt_error(v, "hoodie: %s", last_error());
    return SQLITE_OK;
}

static int x_sync(sqlite3_vtab *vt)
{
    vtab *v = (vtab *)vt;
    int rc = SQLITE_OK, kinds = 0;
    for (size_t i = 0; i < v->n_segs; i++)
        if (v->segs[i].n) kinds |= v->segs[i].del ? 2 : 1;
    if (kinds == 3) rc = write_mixed(v);
    else
        for (size_t i = 0; i < v->n_segs && rc == SQLITE_OK; i++)
            if (v->segs[i].n) rc = write_segment(v, &v->segs[i]);
    segs_clear(v);
    return rc;
}

static int x_commit(sqlite3_vtab *vt)
{
    segs_clear((vtab *)vt);
    return SQLITE_OK;
}

static sqlite3_module hoodie_module = {
    .iVersion = 0,
    .xCreate = x_create,
    .xConnect = x_connect,
    .xBestIndex = x_best_index,
    .xDisconnect = x_disconnect,
    .xDestroy = x_disconnect,
    .xOpen = x_open,
    .xClose = x_close,
    .xFilter = x_filter,
    .xNext = x_next,
    .xEof = x_eof,
    .xColumn = x_column,
    .xRowid = x_rowid,
    .xUpdate = x_update,
    .xBegin = x_begin,
    .xSync = x_sync,
    .xCommit = x_commit,
    .xRollback = x_commit,
};

int hoodie_sqlite_register(sqlite3 *db)
{
    return sqlite3_create_module_v2(db, "hoodie", &hoodie_module, NULL, NULL);
}

int hoodie_sqlite_register_storage(sqlite3 *db, const char *name, const hoodie_storage *storage)
{
    return sqlite3_create_module_v2(db, name, &hoodie_module, (void *)storage, NULL);
}

#ifdef HOODIE_SQLITE_LOADABLE
/* Entry points for sqlite3_load_extension: the default name and the one derived from libhoodie_sqlite.so. */
int sqlite3_hoodiesqlite_init(sqlite3 *db, char **err, const sqlite3_api_routines *api);
int sqlite3_extension_init(sqlite3 *db, char **err, const sqlite3_api_routines *api);

int sqlite3_hoodiesqlite_init(sqlite3 *db, char **err, const sqlite3_api_routines *api)
{
    (void)err;
    SQLITE_EXTENSION_INIT2(api);
    return hoodie_sqlite_register(db);
}

int sqlite3_extension_init(sqlite3 *db, char **err, const sqlite3_api_routines *api)
{
    return sqlite3_hoodiesqlite_init(db, err, api);
}
#endif
