/* The SQLite virtual table (ext/sqlite): values and types on a fixture, time travel and incremental queries, errors,
 * and a differential test: random WHERE clauses over a MOR table give the rows SQLite gives over a native copy. */
#include "hoodie_test.h"
#include "hoodie/hoodie.h"
#include "hoodie_sqlite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sqlite3 *open_db(void)
{
    sqlite3 *db = NULL;
    hoodie_assert(sqlite3_open(":memory:", &db) == SQLITE_OK);
    hoodie_assert(hoodie_sqlite_register(db) == SQLITE_OK);
    return db;
}

static void exec_ok(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) hoodie_test__fail(__FILE__, __LINE__, "%s: %s", sql, err ? err : "?");
}

/* Every row of `sql` as text, cells tagged by type ("i:5|t:abc|n|"), rows separated by newlines. */
static char *rows_of(sqlite3 *db, const char *sql, int *err)
{
    sqlite3_stmt *st = NULL;
    *err = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "prepare %s: %s\n", sql, sqlite3_errmsg(db));
        *err = 1;
        return NULL;
    }
    sqlite3_str *s = sqlite3_str_new(db);
    int rc, nc = sqlite3_column_count(st);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < nc; i++) {
            switch (sqlite3_column_type(st, i)) {
            case SQLITE_NULL: sqlite3_str_appendall(s, "n|"); break;
            case SQLITE_INTEGER: sqlite3_str_appendf(s, "i:%lld|", (long long)sqlite3_column_int64(st, i)); break;
            case SQLITE_FLOAT: sqlite3_str_appendf(s, "r:%!.17g|", sqlite3_column_double(st, i)); break;
            case SQLITE_BLOB: sqlite3_str_appendf(s, "b:%d|", sqlite3_column_bytes(st, i)); break;
            default: sqlite3_str_appendf(s, "t:%s|", (const char *)sqlite3_column_text(st, i)); break;
            }
        }
        sqlite3_str_appendchar(s, 1, '\n');
    }
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "step %s: %s\n", sql, sqlite3_errmsg(db));
        *err = 1;
    }
    sqlite3_finalize(st);
    char *out = sqlite3_str_finish(s);
    return out ? out : sqlite3_mprintf("%s", "");
}

static char *one(sqlite3 *db, const char *sql)
{
    int err;
    char *r = rows_of(db, sql, &err);
    hoodie_assert(!err);
    return r;
}

/* The rows of `sql` are `want`. */
#define expect_rows(db, sql, want)          \
    do {                                    \
        char *_r = one((db), (sql));        \
        hoodie_assert_equal_s((want), _r);  \
        sqlite3_free(_r);                   \
    } while (0)

/* `sql` fails with a message containing `needle`. */
#define expect_error(db, sql, needle)                 \
    do {                                              \
        char *_e = error_of((db), (sql));             \
        hoodie_assert_contains(_e, (needle));         \
        sqlite3_free(_e);                             \
    } while (0)

static char *error_of(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc == SQLITE_OK) fprintf(stderr, "succeeded: %s\n", sql);
    hoodie_assert(rc != SQLITE_OK);
    return err ? err : sqlite3_mprintf("%s", "");
}

HOODIE_TEST(ext_sqlite__fixture_values)
{
    sqlite3 *db = open_db();
    char *sql = sqlite3_mprintf("CREATE VIRTUAL TABLE t USING hoodie(%Q)",
                                hoodie_fixture("hudi/tables/cow_v8_complexkeygen_hivestyle"));
    exec_ok(db, sql);
    sqlite3_free(sql);
    expect_rows(db, "SELECT count(*) FROM t", "i:4|\n");
    expect_rows(db, "SELECT _hoodie_record_key, isActive, intField, longField, floatField, doubleField, decimalField, "
                "dateField, timestampField, binaryField, byteField, shortField FROM t WHERE id = 1",
                "t:id:1,name:Alice|i:0|i:15000|i:1234567890|r:1.0|r:3.1415899999999999|"
                "r:12345.678900000001|t:2023-04-01|t:2023-04-01 12:01:00.000000|b:11|i:10|i:300|\n");
    expect_rows(db, "SELECT typeof(floatField), typeof(decimalField), typeof(binaryField), CAST(binaryField AS TEXT), "
                "json_extract(structField, '$.child_struct.child_field1'), json_extract(mapField, '$.key2."
                "map_field_value_struct_f1'), json_extract(arrayField, '$[1].arr_struct_f1'), "
                "json_array_length(arrayField), date(timestampField) FROM t WHERE name = 'Alice'",
                "t:real|t:real|t:blob|t:binary data|r:123.456|r:789.01199999999994|t:blue|i:3|"
                "t:2023-04-01|\n");
    /* pushed down: a partition field, a key lookup, an IN list; the plan names them */
    expect_rows(db, "SELECT id FROM t WHERE byteField = 10 ORDER BY id", "i:1|\ni:3|\n");
    char *r = one(db, "EXPLAIN QUERY PLAN SELECT id FROM t WHERE byteField = 10 AND name IN ('Alice', 'Bob')");
    hoodie_assert_contains(r, ";I6");
    hoodie_assert_contains(r, ";=19");
    sqlite3_free(r);
    expect_rows(db, "SELECT id FROM t WHERE _hoodie_record_key IN ('id:2,name:Bob', 'id:9,name:Nobody', NULL)",
                "i:2|\n");
    expect_rows(db, "SELECT id FROM t WHERE _hoodie_record_key = 'id:3,name:Carol' AND isActive = 1",
                "i:3|\n");
    /* not pushed: another collation than BINARY, values of another kind than the column's */
    expect_rows(db, "SELECT id FROM t WHERE name COLLATE NOCASE = 'alice' AND name COLLATE NOCASE >= 'ALICE'",
                "i:1|\n");
    expect_rows(db, "SELECT id FROM t WHERE id = '2' AND byteField IN ('20', 21.0) AND _hoodie_record_key > 5",
                "i:2|\n");
    sqlite3_close(db);
}

HOODIE_TEST(ext_sqlite__time_travel_and_incremental)
{
    const char *path = hoodie_fixture("hudi/tables/trips_mor_avro_v8_trips_8i3d");
    sqlite3 *db = open_db();
    char *sql = sqlite3_mprintf("CREATE VIRTUAL TABLE t USING hoodie(%Q);"
                                "CREATE VIRTUAL TABLE first USING hoodie(%Q, 'as_of=20250713011946968');"
                                "CREATE VIRTUAL TABLE inc USING hoodie(%Q, 'from=20250713011947335');"
                                "CREATE VIRTUAL TABLE ro USING hoodie(%Q, 'query=read_optimized')",
                                path, path, path, path);
    exec_ok(db, sql);
    sqlite3_free(sql);
    static const char *const q[][2] = {
        { "SELECT count(*) FROM t", "i:5|\n" },
        { "SELECT count(*) FROM t('20250713011946968')", "i:8|\n" },
        { "SELECT count(*) FROM first", "i:8|\n" },
        { "SELECT count(*) FROM t('20250713011948129')", "i:5|\n" },
        { "SELECT count(*) FROM t(NULL, NULL, '20250713011947335')", "i:8|\n" },
        { "SELECT count(*) FROM t(NULL, '20250713011947335')", "i:0|\n" },
        { "SELECT count(*) FROM inc", "i:0|\n" },
        { "SELECT count(*) FROM ro", "i:8|\n" },
        /* the hidden columns read back as the query's instants */
        { "SELECT DISTINCT _hoodie_as_of FROM t('20250713011946968')", "t:20250713011946968|\n" },
        /* a join of two versions: the rows the second commit deleted */
        { "SELECT count(*) FROM t('20250713011946968') AS a WHERE a._hoodie_record_key NOT IN "
          "(SELECT _hoodie_record_key FROM t)", "i:3|\n" },
    };
    for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
        char *r = one(db, q[i][0]);
        if (strcmp(r, q[i][1])) fprintf(stderr, "%s\n", q[i][0]);
        hoodie_assert_equal_s(q[i][1], r);
        sqlite3_free(r);
    }
    expect_error(db, "SELECT * FROM t('2025xx')", "not an instant time");
    expect_error(db, "CREATE VIRTUAL TABLE bad USING hoodie('/no/such/table')", "/no/such/table");
    sql = sqlite3_mprintf("CREATE VIRTUAL TABLE bad USING hoodie(%Q, 'color=red')", path);
    expect_error(db, sql, "unknown argument");
    sqlite3_free(sql);
    expect_error(db, "CREATE VIRTUAL TABLE bad USING hoodie", "usage");
    sqlite3_close(db);
}

/* ---- differential: pushdown never changes a result ---------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static const char *const words[] = { "a", "b", "ab", "B", "b\"q", "x,y", "é", "zz", "", "a'b", "10", "9" };
#define N_WORDS (sizeof words / sizeof *words)

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Rows id in [lo, hi) with random values; ts orders the versions. */
static void write_rows(const char *base, const char *csv, int lo, int hi, int ts, hoodie_write_operation op)
{
    FILE *f = fopen(csv, "w");
    hoodie_assert(f != NULL);
    fprintf(f, "id,p,i,d,s,b,ts\n");
    static const char *const parts[] = { "p0", "p1", "p2" };
    for (int id = lo; id < hi; id++) {
        fprintf(f, "%d,%s,", id, parts[id % 3]);
        if (rnd(8)) fprintf(f, "%d", (int)rnd(41) - 20);
        fputc(',', f);
        if (rnd(8)) fprintf(f, "%.2f", ((double)rnd(4001) - 2000) / 100);
        fputc(',', f);
        if (rnd(8)) csv_field(f, words[rnd(N_WORDS)]);
        fputc(',', f);
        if (rnd(6)) fputs(rnd(2) ? "true" : "false", f);
        fprintf(f, ",%d\n", ts);
    }
    fclose(f);
    struct ArrowArrayStream in;
    const char *paths[1] = { csv };
    hoodie_assert_ok(hoodie_files_stream(paths, 1, base, NULL, &in));
    hoodie_write_opts wo = HOODIE_WRITE_OPTS_INIT;
    wo.op = op;
    hoodie_assert_ok(hoodie_table_write(base, &in, &wo, NULL));
}

static const char *const schema =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"p\",\"type\":\"string\"},"
    "{\"name\":\"i\",\"type\":[\"null\",\"int\"],\"default\":null},"
    "{\"name\":\"d\",\"type\":[\"null\",\"double\"],\"default\":null},"
    "{\"name\":\"s\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"b\",\"type\":[\"null\",\"boolean\"],\"default\":null},"
    "{\"name\":\"ts\",\"type\":\"long\"}]}";

/* An empty table keyed by id, partitioned by p, ordered by ts, with `schema_json`. */
static void create_table(const char *base, int mor, int version, const char *schema_json)
{
    static const char *const rk[] = { "id" }, *const pf[] = { "p" };
    hoodie_table_create_opts co = HOODIE_TABLE_CREATE_OPTS_INIT;
    co.type = mor ? HOODIE_CREATE_MERGE_ON_READ : HOODIE_CREATE_COPY_ON_WRITE;
    co.table_version = version;
    co.name = "t";
    co.record_key_fields = rk;
    co.record_key_count = 1;
    co.partition_fields = pf;
    co.partition_count = 1;
    co.ordering_field = "ts";
    co.schema_json = schema_json;
    hoodie_assert_ok(hoodie_table_create(base, &co));
}

/* A random literal: of the column's kind mostly, sometimes of another kind or NULL. */
static void literal(sqlite3_str *q, char col)
{
    uint32_t k = rnd(10);
    if (k == 0) { sqlite3_str_appendall(q, "NULL"); return; }
    if (k == 1) { sqlite3_str_appendf(q, "%Q", words[rnd(N_WORDS)]); return; }
    if (k == 2) { sqlite3_str_appendf(q, "%d", (int)rnd(41) - 20); return; }
    if (k == 3) { sqlite3_str_appendf(q, "%.1f", ((double)rnd(81) - 40) / 2); return; }
    switch (col) {
    case 'i': sqlite3_str_appendf(q, "%d", (int)rnd(41) - 20); break;
    case 'd': sqlite3_str_appendf(q, rnd(2) ? "%.2f" : "%.0f", ((double)rnd(4001) - 2000) / 100); break;
    case 'b': sqlite3_str_appendf(q, "%d", (int)rnd(3)); break;
    case 'k': sqlite3_str_appendf(q, "'%d'", (int)rnd(3100)); break;
    default: sqlite3_str_appendf(q, "%Q", words[rnd(N_WORDS)]); break;
    }
}

static void predicate(sqlite3_str *q)
{
    static const char cols[] = "idsbpk";
    static const char *const names[] = { "i", "d", "s", "b", "p", "_hoodie_record_key" };
    static const char *const ops[] = { "=", "<>", "<", "<=", ">", ">=", "==", "!=" };
    uint32_t c = rnd(6);
    const char *name = names[c];
    uint32_t form = rnd(10);
    if (form == 0) { sqlite3_str_appendf(q, "%s IS %sNULL", name, rnd(2) ? "NOT " : ""); return; }
    if (form == 1) {
        sqlite3_str_appendf(q, "%s IN (", name);
        for (uint32_t n = 1 + rnd(4), j = 0; j < n; j++) {
            if (j) sqlite3_str_appendall(q, ", ");
            literal(q, cols[c]);
        }
        sqlite3_str_appendchar(q, 1, ')');
        return;
    }
    if (form == 2 && (c == 2 || c == 4)) {
        sqlite3_str_appendf(q, "%s COLLATE NOCASE %s ", name, ops[rnd(6)]);
        literal(q, cols[c]);
        return;
    }
    sqlite3_str_appendf(q, "%s %s ", name, ops[rnd(8)]);
    literal(q, cols[c]);
}

HOODIE_TEST(ext_sqlite__pushdown_differential)
{
    char base[1024], csv[1100];
    snprintf(base, sizeof base, "%s/mor", hoodie_test_tmpdir());
    snprintf(csv, sizeof csv, "%s/in.csv", hoodie_test_tmpdir());
    create_table(base, 1, 8, schema);
    write_rows(base, csv, 0, 3000, 1, HOODIE_WRITE_BULK_INSERT);
    write_rows(base, csv, 2500, 3100, 2, HOODIE_WRITE_UPSERT); /* updates (log files) and inserts */
    write_rows(base, csv, 0, 200, 3, HOODIE_WRITE_DELETE);

    sqlite3 *db = open_db();
    char *sql = sqlite3_mprintf("CREATE VIRTUAL TABLE t USING hoodie(%Q); CREATE TABLE m AS SELECT * FROM t", base);
    exec_ok(db, sql);
    sqlite3_free(sql);
    expect_rows(db, "SELECT count(*), count(DISTINCT _hoodie_record_key) FROM m", "i:2900|i:2900|\n");

    int pushed = 0;
    for (int n = 0; n < 400; n++) {
        sqlite3_str *w = sqlite3_str_new(NULL);
        for (uint32_t k = 0, np = 1 + rnd(3); k < np; k++) {
            if (k) sqlite3_str_appendall(w, " AND ");
            predicate(w);
        }
        char *where = sqlite3_str_finish(w);
        const char *cols = rnd(2) ? "*" : "id, s, d";
        char *qt = sqlite3_mprintf("SELECT %s FROM t WHERE %s ORDER BY id", cols, where);
        char *qm = sqlite3_mprintf("SELECT %s FROM m WHERE %s ORDER BY id", cols, where);
        char *plan = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", qt);
        int e1, e2;
        char *a = rows_of(db, qt, &e1), *b = rows_of(db, qm, &e2), *p = one(db, plan);
        hoodie_assert(!e1 && !e2);
        if (strchr(strstr(p, "INDEX") ? strstr(p, "INDEX") : "", ';')) pushed++;
        if (strcmp(a, b)) fprintf(stderr, "differs: WHERE %s\nplan: %s\n", where, p);
        hoodie_assert(strcmp(a, b) == 0);
        sqlite3_free(a);
        sqlite3_free(b);
        sqlite3_free(p);
        sqlite3_free(qt);
        sqlite3_free(qm);
        sqlite3_free(plan);
        sqlite3_free(where);
    }
    hoodie_assert(pushed > 200);

    /* bound parameters reach xFilter as values too */
    sqlite3_stmt *st;
    const char *bound = "SELECT count(*) FROM t WHERE p = ?1 AND i >= ?2";
    hoodie_assert(sqlite3_prepare_v2(db, bound, -1, &st, NULL) == SQLITE_OK);
    sqlite3_bind_text(st, 1, "p1", -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, 5);
    hoodie_assert(sqlite3_step(st) == SQLITE_ROW);
    int got = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    char want[32];
    snprintf(want, sizeof want, "i:%d|\n", got);
    expect_rows(db, "SELECT count(*) FROM m WHERE p = 'p1' AND i >= 5", want);

    /* a query started after another write sees it */
    write_rows(base, csv, 3100, 3110, 4, HOODIE_WRITE_INSERT);
    expect_rows(db, "SELECT count(*) FROM t", "i:2910|\n");
    sqlite3_close(db);
}

/* ---- writes: the same statements on the Hudi table and on a native copy give the same rows --------------------- */

static const char *const dml_schema =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"p\",\"type\":\"string\"},"
    "{\"name\":\"i\",\"type\":[\"null\",\"int\"],\"default\":null},"
    "{\"name\":\"d\",\"type\":[\"null\",\"double\"],\"default\":null},"
    "{\"name\":\"s\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"b\",\"type\":[\"null\",\"boolean\"],\"default\":null},"
    "{\"name\":\"dt\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}],\"default\":null},"
    "{\"name\":\"ts\",\"type\":\"long\"}]}";

/* `sql` with every X replaced by `name` */
static char *for_table(const char *sql, const char *name)
{
    sqlite3_str *s = sqlite3_str_new(NULL);
    for (const char *p = sql; *p; p++)
        if (*p == 'X') sqlite3_str_appendall(s, name);
        else sqlite3_str_appendchar(s, 1, *p);
    return sqlite3_str_finish(s);
}

/* Both tables: the statement on t, then on m (the native table applies Hudi's rule: the later ordering value wins) */
static void both(sqlite3 *db, const char *sql)
{
    char *a = for_table(sql, "t"), *b = for_table(sql, "m");
    exec_ok(db, a);
    exec_ok(db, b);
    sqlite3_free(a);
    sqlite3_free(b);
}

static int g_ts = 1000;

/* An INSERT of n rows with ids in [0, span): existing keys are upserts; ts values never repeat, some are older than
 * the stored row's (those do not win) */
static char *insert_sql(int n, int span)
{
    sqlite3_str *s = sqlite3_str_new(NULL);
    sqlite3_str_appendall(s, "INSERT INTO X(id, p, i, d, s, b, dt, ts) VALUES ");
    for (int k = 0; k < n; k++) {
        int id = (int)rnd((uint32_t)span);
        /* a quarter of the upper ids stale; the lower ids are the ones deleted, whose MOR delete records keep their
         * ordering value (a stale insert after one loses to it until compaction, as in Hudi) */
        int ts = id < span / 2 || rnd(4) ? g_ts + k : g_ts - 500 - k;
        sqlite3_str_appendf(s, "%s(%d, 'p%d', %d, %s, %Q, %s, %s, %d)", k ? ", " : "", id, id % 3, (int)rnd(41) - 20,
                            rnd(5) ? "1.25 * (id_placeholder)" : "NULL", rnd(6) ? words[rnd(N_WORDS)] : NULL,
                            rnd(3) ? "1" : "0", rnd(4) ? "'2024-02-29'" : "NULL", ts);
    }
    g_ts += n + 1;
    char *txt = sqlite3_str_finish(s);
    /* 1.25 * (id_placeholder): a double derived from the row */
    sqlite3_str *o = sqlite3_str_new(NULL);
    for (char *p = txt; *p; p++) {
        if (!strncmp(p, "(id_placeholder)", 16)) { sqlite3_str_appendf(o, "%d", (int)rnd(100) - 50); p += 15; }
        else sqlite3_str_appendchar(o, 1, *p);
    }
    sqlite3_free(txt);
    return sqlite3_str_finish(o);
}

static void same_rows(sqlite3 *db, const char *when)
{
    char *a = one(db, "SELECT id, p, i, d, s, b, dt, ts FROM t ORDER BY id");
    char *b = one(db, "SELECT id, p, i, d, s, b, dt, ts FROM m ORDER BY id");
    if (strcmp(a, b)) fprintf(stderr, "after %s:\n--- hudi\n%s--- native\n%s", when, a, b);
    hoodie_assert_equal_s(b, a);
    sqlite3_free(a);
    sqlite3_free(b);
}

static size_t instant_count(const char *base)
{
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, base, NULL));
    size_t n = hoodie_table_instant_count(t);
    hoodie_table_free(t);
    return n;
}

static void dml_case(int mor, int version)
{
    char base[1024];
    snprintf(base, sizeof base, "%s/dml_%d_%d", hoodie_test_tmpdir(), mor, version);
    create_table(base, mor, version, dml_schema);
    sqlite3 *db = open_db();
    char *sql = sqlite3_mprintf("CREATE VIRTUAL TABLE t USING hoodie(%Q);"
                                "CREATE TABLE m(id INTEGER PRIMARY KEY, p TEXT, i INTEGER, d REAL, s TEXT, b INTEGER, "
                                "dt TEXT, ts INTEGER);"
                                "CREATE TRIGGER m_order BEFORE INSERT ON m WHEN EXISTS (SELECT 1 FROM m WHERE id = "
                                "NEW.id AND ts > NEW.ts) BEGIN SELECT RAISE(IGNORE); END", base);
    exec_ok(db, sql);
    sqlite3_free(sql);
    /* the native table: an INSERT of an existing key replaces the row unless the stored ts is later */
    for (int round = 0; round < 4; round++) {
        char *ins = insert_sql(40, 120), *ins_m = for_table(ins, "m"), *ins_t = for_table(ins, "t");
        exec_ok(db, ins_t);
        char *repl = sqlite3_mprintf("INSERT OR REPLACE%s", ins_m + strlen("INSERT"));
        exec_ok(db, repl);
        sqlite3_free(repl);
        sqlite3_free(ins);
        sqlite3_free(ins_m);
        sqlite3_free(ins_t);
        same_rows(db, "insert");
        both(db, "UPDATE X SET i = i + 1, s = 'u' || coalesce(s, '') WHERE d > 0");
        same_rows(db, "update");
        both(db, "DELETE FROM X WHERE i < -12 AND id < 60");
        same_rows(db, "delete");
    }
    /* a transaction is one commit: a delete, then an insert of a deleted key */
    exec_ok(db, "INSERT INTO t(id, p, i, ts) VALUES (14, 'p2', 14, 99000)");
    exec_ok(db, "INSERT OR REPLACE INTO m(id, p, i, ts) VALUES (14, 'p2', 14, 99000)");
    size_t commits = instant_count(base);
    exec_ok(db, "BEGIN");
    both(db, "DELETE FROM X WHERE id % 7 = 0 AND id < 60");
    both(db, "INSERT INTO X(id, p, i, ts) VALUES (7, 'p1', 70, 100000), (1000, 'p1', 1, 100000)");
    exec_ok(db, "COMMIT");
    same_rows(db, "transaction");
    hoodie_assert_equal_i((int64_t)commits + 1, (int64_t)instant_count(base));
    /* the rows of a key combine by ordering value, as in one Hudi upsert: a deleted key inserted again with an
     * older ordering value than the deleted version's stays deleted */
    exec_ok(db, "BEGIN");
    exec_ok(db, "DELETE FROM t WHERE id = 1000");
    exec_ok(db, "INSERT INTO t(id, p, i, ts) VALUES (1000, 'p1', 2, 99999), (1001, 'p2', 2, 5)");
    exec_ok(db, "COMMIT");
    exec_ok(db, "DELETE FROM m WHERE id = 1000");
    exec_ok(db, "INSERT INTO m(id, p, i, ts) VALUES (1001, 'p2', 2, 5)");
    same_rows(db, "a stale insert after a delete");
    hoodie_assert_equal_i((int64_t)commits + 2, (int64_t)instant_count(base));
    /* a read after changes waiting for COMMIT would miss them: refused, and the transaction rolls back */
    exec_ok(db, "BEGIN");
    both(db, "DELETE FROM X WHERE id % 5 = 1");
    expect_error(db, "UPDATE t SET b = NOT b WHERE id % 5 = 2", "changes are written at COMMIT");
    exec_ok(db, "ROLLBACK");
    same_rows(db, "refused read");
    /* rolled back: nothing written */
    exec_ok(db, "BEGIN");
    both(db, "DELETE FROM X");
    exec_ok(db, "ROLLBACK");
    same_rows(db, "rollback");
    /* refused: a partition or key field, a meta column; time-travel views */
    expect_error(db, "UPDATE t SET p = 'zz' WHERE id = (SELECT max(id) FROM t)",
                 "cannot change the record key or partition field p");
    expect_error(db, "UPDATE t SET id = id + 1000", "field id");
    expect_error(db, "UPDATE t SET _hoodie_commit_time = 'x'", "meta column");
    char *e = error_of(db, "DELETE FROM t('20240101000000000')"); /* SQLite's grammar has no such DELETE */
    hoodie_assert(strlen(e) > 0);
    sqlite3_free(e);
    hoodie_table *tb;
    hoodie_instant_info first;
    hoodie_assert_ok(hoodie_table_open(&tb, base, NULL));
    hoodie_assert_ok(hoodie_table_instant(tb, 0, &first));
    char *old_sql = sqlite3_mprintf("UPDATE t SET i = 0 WHERE _hoodie_as_of = %Q", first.requested);
    expect_error(db, old_sql, "read the latest version");
    sqlite3_free(old_sql);
    hoodie_table_free(tb);
    expect_error(db, "DELETE FROM t WHERE _hoodie_from = '00000000000000000'", "read the latest version");
    sql = sqlite3_mprintf("CREATE VIRTUAL TABLE old USING hoodie(%Q, 'as_of=20240101000000000')", base);
    exec_ok(db, sql);
    sqlite3_free(sql);
    expect_error(db, "INSERT INTO old(id, p, ts) VALUES (1, 'p1', 1)", "read-only");
    /* a bad value is the input's error, and nothing is written */
    expect_error(db, "INSERT INTO t(id, p, dt, ts) VALUES (1, 'p1', 'not a date', 99999)", "YYYY-MM-DD");
    same_rows(db, "refusals");
    sqlite3_close(db);
    /* what was written is a Hudi table any reader reads: a plain scan has the rows */
    hoodie_assert_ok(hoodie_table_open(&tb, base, NULL));
    hoodie_assert(hoodie_table_instant_count(tb) > 10);
    hoodie_table_free(tb);
}

HOODIE_TEST(ext_sqlite__dml_cow_v8) { dml_case(0, 8); }
HOODIE_TEST(ext_sqlite__dml_mor_v8) { dml_case(1, 8); }
HOODIE_TEST(ext_sqlite__dml_mor_v6) { dml_case(1, 6); }
