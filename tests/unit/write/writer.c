/*
 * The write client end to end through the public API: hoodie_table_write fed an Arrow stream built in C,
 * hoodie_table_scan to read back.
 *
 *   fault injection  every storage operation of a write failing in turn (the k-th only, and the k-th and all
 *                    after it, as a writer that died there): the table then reads exactly as before the write
 *                    (or, when the write reported success, as after it); the next write rolls back what was
 *                    left and ends with the table the fault-free write gives
 *   commit files     the v8 completed instants the writer leaves decode with libavro against their embedded
 *                    schema, with write statistics that add up to what the table holds
 */
#include <stddef.h>
#include "hoodie_test.h"
#include "hoodie/input.h"
#include "hoodie/read.h"
#include "hoodie/lookup.h"
#include "hoodie/table.h"
#include "hoodie/write.h"
#include "hoodie/writer.h"
#include "hoodie/services.h"
#include "model/arrow.h"
#include "model/build.h"
#include "format/bloom.h"
#include "format/parquet/reader.h"
#include "hoodie/parquet.h"
#include "model/render.h"
#include "table/pqfile.h"
#include "table/pqwrite.h"
#include "table/table.h"
#include "format/avro/binary.h"
#include "format/hlog/hlog.h"
#include "format/hlog/hlog_write.h"
#include "storage/storage.h"
#include "util/error.h"
#include "util/warn.h"
#include "write/writer_int.h"
#include "read/logscan.h"
#include "services/svc.h"

#include <avro.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- input: rows (id, name, city, ts) as an Arrow stream ---- */

typedef struct rows_spec {
    int64_t first, last;   /* ids first..last */
    int64_t ts;
    const char *tag;       /* name = tag + id */
    const char *only_city; /* NULL: every id; else only ids of that city */
    int done;
} rows_spec;

static int64_t g_step; /* > 1: ids first, first+g_step, ... (not with g_scramble) */
static int g_scramble; /* non-zero: ids in a scrambled order (a multiplicative permutation of first..last) */

static const char *city_of(int64_t id) { static const char *c[] = { "sf", "la", "ny" }; return c[id % 3]; }

static void schema_of(hoodie_field *s)
{
    hoodie_field f;
    hoodie_assert_ok(hoodie_field_init(s, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    static const struct { const char *n; hoodie_type_id t; } cols[] = {
        { "id", HOODIE_TYPE_INT64 }, { "name", HOODIE_TYPE_STRING }, { "city", HOODIE_TYPE_STRING },
        { "ts", HOODIE_TYPE_INT64 },
    };
    for (size_t i = 0; i < 4; i++) {
        hoodie_assert_ok(hoodie_field_init(&f, cols[i].n, hoodie_type_of(cols[i].t), 1));
        hoodie_assert_ok(hoodie_field_add_child(s, &f));
        hoodie_field_dispose(&f);
    }
}

static hoodie_status next_rows(hoodie_batch *out, void *payload)
{
    rows_spec *r = payload;
    if (r->done) return HOODIE_ITEROVER;
    r->done = 1;
    char name[64];
    int64_t n = 0;
    for (int64_t k = r->first; k <= r->last; k += g_step > 1 && !g_scramble ? g_step : 1) {
        int64_t span = r->last - r->first + 1, id = k;
        if (g_scramble) id = r->first + (int64_t)(((uint64_t)(k - r->first) * 7919u) % (uint64_t)span);
        const char *c = city_of(id);
        if (r->only_city && strcmp(c, r->only_city)) continue;
        snprintf(name, sizeof name, "%s%lld", r->tag, (long long)id);
        HOODIE_TRY(hoodie_array_append_int(&out->root.children[0], &out->schema.children[0], id));
        if (r->tag[0] == '~') { /* "~": 1,500 incompressible letters (records bigger than the size estimate) */
            char big[1501];
            uint64_t x = (uint64_t)id * 0x9e3779b97f4a7c15ull + 1;
            for (int i = 0; i < 1500; i++) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                big[i] = (char)('a' + x % 26);
            }
            big[1500] = 0;
            HOODIE_TRY(hoodie_array_append_str(&out->root.children[1], &out->schema.children[1], big));
        } else
        HOODIE_TRY(hoodie_array_append_str(&out->root.children[1], &out->schema.children[1], name));
        HOODIE_TRY(hoodie_array_append_str(&out->root.children[2], &out->schema.children[2], c));
        HOODIE_TRY(hoodie_array_append_int(&out->root.children[3], &out->schema.children[3], r->ts));
        n++;
    }
    out->root.length = n;
    return HOODIE_OK;
}

static int32_t g_bloom_entries; /* 0: Hudi's default (60000 keys per row, ~430 KB per file) */
static hoodie_log_block_format g_log_blocks; /* MOR data blocks of write_rows: Avro (default) or Parquet */

static const char *const *g_extra; /* write_rows: hoodie_write_opts.extra_metadata */
static hoodie_precommit_fn g_pre;   /* write_rows: hoodie_write_opts.pre_commit (g_pre_ctx) */
static void *g_pre_ctx;

static hoodie_status write_rows(const char *base, const hoodie_storage *s, hoodie_write_operation op,
                                const rows_spec *spec, hoodie_write_result *res)
{
    hoodie_field sc;
    schema_of(&sc);
    rows_spec *p = malloc(sizeof *p);
    *p = *spec;
    p->done = 0;
    struct ArrowArrayStream st;
    hoodie_status rc = hoodie_arrow_stream_export(&st, &sc, next_rows, free, p);
    hoodie_field_dispose(&sc);
    hoodie_assert_ok(rc);
    hoodie_write_opts o = HOODIE_WRITE_OPTS_INIT;
    o.storage = s;
    o.op = op;
    o.bloom_num_entries = g_bloom_entries;
    o.log_block_format = g_log_blocks;
    o.extra_metadata = g_extra;
    o.pre_commit = g_pre;
    o.pre_commit_ctx = g_pre_ctx;
    return hoodie_table_write(base, &st, &o, res);
}

/* ---- reading: the table's rows as sorted CSV lines ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Each batch of a scan of the table (options `so`, storage s) to `each`; the scan's status (HOODIE_OK at its end). */
static hoodie_status scan_batches(const char *base, const hoodie_storage *s, const hoodie_scan_opts *so,
                                  void (*each)(void *ctx, const hoodie_batch *b), void *ctx)
{
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, base, &to));
    struct ArrowArrayStream st;
    hoodie_status rc = hoodie_table_scan(t, so, &st);
    if (rc == HOODIE_OK) {
        hoodie_arrow_reader r;
        hoodie_assert_ok(hoodie_arrow_reader_open(&r, &st));
        hoodie_batch b;
        while ((rc = hoodie_arrow_reader_next(&r, &b)) == HOODIE_OK) {
            each(ctx, &b);
            hoodie_batch_dispose(&b);
        }
        hoodie_arrow_reader_close(&r);
        if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    }
    hoodie_table_free(t);
    return rc;
}

static void render_each(void *ctx, const hoodie_batch *b) { hoodie_assert_ok(hoodie_render_csv(ctx, b, 0)); }

/* All columns (meta included) when `meta`, else the record key and data columns only; as of `as_of` (NULL: the
 * latest), with the scan's merge_memory (0: its default). */
static char *snapshot_with(const char *base, const hoodie_storage *s, int meta, const char *as_of, int64_t merge_memory)
{
    static const char *const data_cols[] = { "_hoodie_record_key", "_hoodie_partition_path", "id", "name", "city", "ts" };
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    if (!meta) { so.columns = data_cols; so.n_columns = 6; }
    so.as_of = as_of;
    so.merge_memory = merge_memory;
    hoodie_buf text = HOODIE_BUF_INIT;
    hoodie_status rc = scan_batches(base, s, &so, render_each, &text);
    if (rc < 0) fprintf(stderr, "scan: %s\n", hoodie_error_last()->message);
    hoodie_assert_ok(rc);
    /* sort the lines */
    size_t n = 0, cap = 16;
    char **lines = malloc(cap * sizeof *lines);
    hoodie_assert_ok(hoodie_buf_cstr(&text));
    char *save = NULL;
    for (char *l = strtok_r((char *)text.data, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (n == cap) lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[n++] = l;
    }
    qsort(lines, n, sizeof *lines, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < n; i++) len += strlen(lines[i]) + 1;
    char *out = malloc(len), *o = out;
    for (size_t i = 0; i < n; i++) o += sprintf(o, "%s\n", lines[i]);
    *o = 0;
    free(lines);
    hoodie_buf_dispose(&text);
    return out;
}

static char *snapshot(const char *base, const hoodie_storage *s, int meta) { return snapshot_with(base, s, meta, NULL, 0); }

/* The expected lines (malloc'd, freed here with the array) sorted and joined: the snapshot `got` (freed). */
static void assert_lines(char **lines, size_t n, char *got)
{
    hoodie_buf want = HOODIE_BUF_INIT;
    qsort(lines, n, sizeof *lines, cmp_str);
    for (size_t i = 0; i < n; i++) {
        hoodie_assert_ok(hoodie_buf_append(&want, lines[i], strlen(lines[i])));
        hoodie_assert_ok(hoodie_buf_putc(&want, '\n'));
        free(lines[i]);
    }
    free(lines);
    hoodie_assert_ok(hoodie_buf_cstr(&want));
    hoodie_assert_equal_s((const char *)want.data, got);
    hoodie_buf_dispose(&want);
    free(got);
}

/* ---- fault injection ---- */

typedef struct wstep { hoodie_write_operation op; rows_spec rows; } wstep;

static int g_no_meta; /* make_table: hoodie.populate.meta.fields=false */
static int g_buckets; /* make_table: the bucket index with this many buckets (0: the bloom index) */
static int g_bare;    /* prepare: the table left empty */

static void make_table(const char *base, const hoodie_storage *s, int mor, int version)
{
    static const char *const rk[] = { "id" }, *const pf[] = { "city" };
    hoodie_table_create_opts co = HOODIE_TABLE_CREATE_OPTS_INIT;
    co.storage = s;
    co.table_version = version;
    co.type = mor ? HOODIE_CREATE_MERGE_ON_READ : HOODIE_CREATE_COPY_ON_WRITE;
    co.name = "ft";
    co.record_key_fields = rk;
    co.record_key_count = 1;
    co.partition_fields = pf;
    co.partition_count = 1;
    co.ordering_field = "ts";
    co.no_meta_fields = g_no_meta;
    co.index_type = g_buckets ? "bucket" : NULL;
    co.bucket_count = g_buckets;
    hoodie_assert_ok(hoodie_table_create(base, &co));
}

/* The table before the step under test: a bulk insert, then an upsert that leaves MOR log files. */
static void prepare(const char *base, const hoodie_storage *s, int mor, int version)
{
    make_table(base, s, mor, version);
    if (g_bare) return;
    rows_spec a = { 1, 40, 10, "a", NULL, 0 }, b = { 1, 6, 30, "b", NULL, 0 };
    hoodie_assert_ok(write_rows(base, s, HOODIE_WRITE_BULK_INSERT, &a, NULL));
    hoodie_assert_ok(write_rows(base, s, HOODIE_WRITE_UPSERT, &b, NULL));
}

static void fault_sweep(int mor, int version, const wstep *w, hoodie_fault_mode mode, int *checked)
{
    const char *base = "/tbl";
    /* the fault-free run: how many operations, and the table it gives */
    hoodie_storage *mem, *fs;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    hoodie_assert_ok(hoodie_storage_faulty_new(&fs, mem));
    prepare(base, mem, mor, version);
    char *before = snapshot(base, mem, 1);
    hoodie_storage_faulty_arm(fs, HOODIE_FAULT_NONE, 0);
    hoodie_write_result res;
    hoodie_status rc = write_rows(base, fs, w->op, &w->rows, &res);
    if (rc < 0) fprintf(stderr, "write: %s\n", hoodie_error_last()->message);
    hoodie_assert_ok(rc);
    uint64_t n_ops = hoodie_storage_faulty_count(fs);
    char *after_data = snapshot(base, mem, 0);
    char *after_full = snapshot(base, mem, 1);
    hoodie_assert(strcmp(before, after_full) != 0);
    hoodie_storage_free(fs);
    hoodie_storage_free(mem);
    hoodie_assert(n_ops > 5);

    for (uint64_t k = 1; k <= n_ops; k++) {
        hoodie_assert_ok(hoodie_storage_mem_new(&mem));
        hoodie_assert_ok(hoodie_storage_faulty_new(&fs, mem));
        prepare(base, mem, mor, version);
        free(before);
        before = snapshot(base, mem, 1); /* instants and file ids are new each time */
        hoodie_storage_faulty_arm(fs, mode, k);
        rc = write_rows(base, fs, w->op, &w->rows, &res);
        hoodie_error_clear();
        hoodie_assert(hoodie_storage_faulty_fired(fs));
        char *now = snapshot(base, mem, 1);
        if (rc < 0) {
            if (strcmp(now, before)) {
                fprintf(stderr, "%s v%d op %d fault %d at %llu/%llu: the table changed\n--- before\n%s--- now\n%s",
                        mor ? "mor" : "cow", version, (int)w->op, (int)mode, (unsigned long long)k,
                        (unsigned long long)n_ops, before, now);
            }
            hoodie_assert_equal_s(before, now);
        } else {
            char *d = snapshot(base, mem, 0);
            hoodie_assert_equal_s(after_data, d);
            free(d);
        }
        free(now);
        /* the next write (the same one, fault-free) rolls back what the failed one left and succeeds; a bulk insert
         * or insert that succeeded is done (another would add its rows again: neither looks keys up) */
        int idempotent = w->op != HOODIE_WRITE_BULK_INSERT && w->op != HOODIE_WRITE_INSERT;
        if (rc == HOODIE_OK && !idempotent) goto next;
        rc = write_rows(base, mem, w->op, &w->rows, &res);
        if (rc < 0) fprintf(stderr, "retry after fault %llu: %s\n", (unsigned long long)k, hoodie_error_last()->message);
        hoodie_assert_ok(rc);
        char *again = snapshot(base, mem, 0);
        if (strcmp(again, after_data))
            fprintf(stderr, "%s v%d op %d: after the fault at %llu and a retry:\n%s--- want\n%s", mor ? "mor" : "cow",
                    version, (int)w->op, (unsigned long long)k, again, after_data);
        hoodie_assert_equal_s(after_data, again);
        free(again);
        /* nothing pending is left */
        hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
        to.storage = mem;
        hoodie_table *t;
        hoodie_assert_ok(hoodie_table_open(&t, base, &to));
        for (size_t i = 0; i < hoodie_table_instant_count(t); i++) {
            hoodie_instant_info ii;
            hoodie_assert_ok(hoodie_table_instant(t, i, &ii));
            hoodie_assert_equal_s("completed", ii.state);
        }
        hoodie_table_free(t);
    next:
        hoodie_storage_free(fs);
        hoodie_storage_free(mem);
        (*checked)++;
    }
    free(before);
    free(after_data);
    free(after_full);
}

static const wstep STEPS[] = {
    /* updates (newer and stale ordering values) and inserts */
    { HOODIE_WRITE_UPSERT, { 3, 50, 20, "u", NULL, 0 } },
    { HOODIE_WRITE_BULK_INSERT, { 41, 70, 5, "n", NULL, 0 } }, /* streamed into new file groups */
    { HOODIE_WRITE_INSERT, { 71, 90, 7, "i", NULL, 0 } },      /* COW: small files kept whole, inserts appended */
    { HOODIE_WRITE_DELETE, { 5, 15, 0, "d", NULL, 0 } },
    { HOODIE_WRITE_INSERT_OVERWRITE, { 1, 60, 1, "o", "sf", 0 } },
};

static void sweep_all(int mor, int version)
{
    int checked = 0;
    g_bloom_entries = 100; /* small filters: the sweeps write thousands of files (sanitizer builds too) */
    for (size_t i = 0; i < sizeof STEPS / sizeof *STEPS; i++) {
        fault_sweep(mor, version, &STEPS[i], HOODIE_FAULT_FAIL_NTH, &checked);
        if (i == 0) fault_sweep(mor, version, &STEPS[i], HOODIE_FAULT_CRASH_AT, &checked); /* a dead writer */
    }
    hoodie_assert(checked > 30);
    g_bloom_entries = 0;
}

HOODIE_TEST(write_writer__faults_cow_v8) { sweep_all(0, 8); }
HOODIE_TEST(write_writer__faults_mor_v8) { sweep_all(1, 8); }
HOODIE_TEST(write_writer__faults_cow_v6) { sweep_all(0, 6); }
HOODIE_TEST(write_writer__faults_cow_v8_no_meta_fields) { g_no_meta = 1; sweep_all(0, 8); g_no_meta = 0; }
HOODIE_TEST(write_writer__faults_mor_v6) { sweep_all(1, 6); }
HOODIE_TEST(write_writer__faults_mor_v8_parquet_blocks)
{
    g_log_blocks = HOODIE_LOG_BLOCK_PARQUET;
    sweep_all(1, 8);
    g_log_blocks = HOODIE_LOG_BLOCK_AVRO;
}

/* ---- the bucket index on merge-on-read: inserts into new buckets are log files ---- */

static void file_ids(const char *base, const hoodie_storage *s, size_t *n_ids, size_t *from_logs);
static void compact_all(const char *base, const hoodie_storage *s);

/*
 * An index that sees log files lets Hudi's MOR write a new file group as a log file: inserts and upserts into
 * buckets without a file group make log-only groups (a bulk insert still writes base files). They read back,
 * compact into base files, and survive a fault at every storage operation (the table then reads as before, and the
 * retried write succeeds).
 */
static void bucket_logs_case(int version)
{
    const char *base = version == 8 ? "/bl8" : "/bl6";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    g_buckets = 4;
    make_table(base, mem, 1, version);
    rows_spec a = { 1, 60, 10, "a", NULL, 0 }, u = { 50, 90, 20, "u", NULL, 0 };
    hoodie_write_result res;
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_INSERT, &a, &res));
    hoodie_assert_equal_i(60, res.inserts);
    size_t n_ids, from_logs, groups;
    file_ids(base, mem, &groups, &from_logs);
    hoodie_assert(groups >= 3 && groups <= 12); /* 3 partitions x up to 4 buckets */
    hoodie_assert_equal_i(60, from_logs);
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &u, NULL));
    file_ids(base, mem, &n_ids, &from_logs);
    hoodie_assert(n_ids >= groups);
    hoodie_assert_equal_i(90, from_logs);
    groups = n_ids;
    char **lines = calloc(90, sizeof *lines);
    for (int64_t id = 1; id <= 90; id++) {
        char l[128];
        const char *c = city_of(id), *tag = id >= 50 ? "u" : "a";
        snprintf(l, sizeof l, "%lld,%s,%lld,%s%lld,%s,%d", (long long)id, c, (long long)id, tag, (long long)id, c,
                 id >= 50 ? 20 : 10);
        lines[id - 1] = strdup(l);
    }
    char *want = NULL;
    {
        char *got = snapshot(base, mem, 0);
        want = strdup(got);
        assert_lines(lines, 90, got);
    }
    compact_all(base, mem);
    file_ids(base, mem, &n_ids, &from_logs);
    hoodie_assert_equal_i(groups, n_ids);
    hoodie_assert_equal_i(0, from_logs);
    char *got = snapshot(base, mem, 0);
    hoodie_assert_equal_s(want, got);
    free(got);
    free(want);
    hoodie_storage_free(mem);
    /* faults: upserts into an empty table (every group new), and inserts into the buckets a bulk insert made */
    int checked = 0;
    g_bare = 1;
    wstep first = { HOODIE_WRITE_UPSERT, { 1, 20, 10, "a", NULL, 0 } };
    fault_sweep(1, version, &first, HOODIE_FAULT_FAIL_NTH, &checked);
    g_bare = 0;
    wstep more = { HOODIE_WRITE_INSERT, { 41, 60, 5, "n", NULL, 0 } };
    fault_sweep(1, version, &more, HOODIE_FAULT_FAIL_NTH, &checked);
    hoodie_assert(checked > 10);
    g_buckets = 0;
}

HOODIE_TEST(write_writer__bucket_mor_inserts_as_logs_v8) { bucket_logs_case(8); }
HOODIE_TEST(write_writer__bucket_mor_inserts_as_logs_v6) { bucket_logs_case(6); }

/* ---- v8 commit files, as written, through libavro ---- */

typedef struct stat_sums { int64_t writes, inserts, updates, deletes, files, bad_sizes, log_files; } stat_sums;

static int64_t avro_long_field(avro_value_t *rec, const char *name)
{
    avro_value_t f, b;
    int64_t l = -1;
    hoodie_assert_equal_i(0, avro_value_get_by_name(rec, name, &f, NULL));
    if (avro_value_get_type(&f) == AVRO_UNION) {
        hoodie_assert_equal_i(0, avro_value_get_current_branch(&f, &b));
        f = b;
    }
    if (avro_value_get_type(&f) == AVRO_NULL) return -1;
    hoodie_assert_equal_i(0, avro_value_get_long(&f, &l));
    return l;
}

static const char *avro_str_field(avro_value_t *rec, const char *name)
{
    avro_value_t f, b;
    const char *s = NULL;
    size_t len;
    hoodie_assert_equal_i(0, avro_value_get_by_name(rec, name, &f, NULL));
    if (avro_value_get_type(&f) == AVRO_UNION) {
        hoodie_assert_equal_i(0, avro_value_get_current_branch(&f, &b));
        f = b;
    }
    if (avro_value_get_type(&f) == AVRO_NULL) return NULL;
    hoodie_assert_equal_i(0, avro_value_get_string(&f, &s, &len));
    return s;
}

/* Decode one completed v8 commit file; sum its write statistics and check each file's size on disk. */
static void decode_commit(const char *table, const char *path, const char *want_schema, const char *want_op,
                          stat_sums *sum)
{
    memset(sum, 0, sizeof *sum);
    avro_file_reader_t r;
    hoodie_assert_equal_i(0, avro_file_reader(path, &r));
    avro_schema_t s = avro_file_reader_get_writer_schema(r);
    hoodie_assert_equal_s(want_schema, avro_schema_name(s));
    avro_value_iface_t *iface = avro_generic_class_from_schema(s);
    avro_value_t rec, field, map;
    hoodie_assert_equal_i(0, avro_generic_value_new(iface, &rec));
    hoodie_assert_equal_i(0, avro_file_reader_read_value(r, &rec));
    hoodie_assert_equal_s(want_op, avro_str_field(&rec, "operationType"));
    hoodie_assert_equal_i(0, avro_value_get_by_name(&rec, "partitionToWriteStats", &field, NULL));
    hoodie_assert_equal_i(0, avro_value_get_current_branch(&field, &map));
    size_t np = 0;
    hoodie_assert_equal_i(0, avro_value_get_size(&map, &np));
    for (size_t p = 0; p < np; p++) {
        avro_value_t arr, st;
        const char *part;
        hoodie_assert_equal_i(0, avro_value_get_by_index(&map, p, &arr, &part));
        size_t ns = 0;
        hoodie_assert_equal_i(0, avro_value_get_size(&arr, &ns));
        for (size_t i = 0; i < ns; i++) {
            hoodie_assert_equal_i(0, avro_value_get_by_index(&arr, i, &st, NULL));
            hoodie_assert_equal_s(part, avro_str_field(&st, "partitionPath"));
            sum->writes += avro_long_field(&st, "numWrites");
            sum->inserts += avro_long_field(&st, "numInserts");
            sum->updates += avro_long_field(&st, "numUpdateWrites");
            sum->deletes += avro_long_field(&st, "numDeletes");
            sum->files++;
            const char *rel = avro_str_field(&st, "path");
            hoodie_assert(rel != NULL);
            if (strstr(rel, ".log.")) sum->log_files++;
            char full[1024];
            snprintf(full, sizeof full, "%s/%s", table, rel);
            FILE *f = fopen(full, "rb");
            hoodie_assert(f != NULL);
            fseek(f, 0, SEEK_END);
            if (ftell(f) != avro_long_field(&st, "fileSizeInBytes") ||
                ftell(f) != avro_long_field(&st, "totalWriteBytes"))
                sum->bad_sizes++;
            fclose(f);
        }
    }
    hoodie_assert(avro_file_reader_read_value(r, &rec) != 0); /* exactly one record */
    avro_value_decref(&rec);
    avro_value_iface_decref(iface);
    avro_schema_decref(s);
    avro_file_reader_close(r);
}

static void completed_file(const char *table, const char *instant, const char *action, char *out, size_t cap)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/.hoodie/timeline", table);
    out[0] = 0;
    size_t il = strlen(instant);
    DIR *d = opendir(dir);
    hoodie_assert(d != NULL);
    for (struct dirent *e; (e = readdir(d));) {
        const char *nm = e->d_name, *dot = strchr(nm, '.');
        /* REQUESTED_COMPLETED.action, nothing after the action */
        if (!strncmp(nm, instant, il) && nm[il] == '_' && dot && !strcmp(dot + 1, action) && dot - nm == 35)
            if ((size_t)snprintf(out, cap, "%s/%s", dir, nm) >= cap) out[0] = 0;
    }
    closedir(d);
    hoodie_assert(out[0] != 0);
}

static void commit_files_case(int mor)
{
    char table[512], path[2048];
    snprintf(table, sizeof table, "%s/commits_%s", hoodie_test_tmpdir(), mor ? "mor" : "cow");
    make_table(table, NULL, mor, 8);
    const char *action = mor ? "deltacommit" : "commit";
    hoodie_write_result res;
    stat_sums s;
    /* 60 inserts across three partitions */
    rows_spec a = { 1, 60, 10, "a", NULL, 0 };
    hoodie_assert_ok(write_rows(table, NULL, HOODIE_WRITE_BULK_INSERT, &a, &res));
    completed_file(table, res.instant, action, path, sizeof path);
    decode_commit(table, path, "HoodieCommitMetadata", "BULK_INSERT", &s);
    hoodie_assert_equal_i(60, s.writes);
    hoodie_assert_equal_i(60, s.inserts);
    hoodie_assert_equal_i(0, s.updates + s.deletes + s.bad_sizes);
    hoodie_assert_equal_i(res.files_written, s.files);
    /* 20 updates (ids 41..60) and 10 inserts (61..70) */
    rows_spec b = { 41, 70, 20, "b", NULL, 0 };
    hoodie_assert_ok(write_rows(table, NULL, HOODIE_WRITE_UPSERT, &b, &res));
    hoodie_assert_equal_i(20, res.updates);
    hoodie_assert_equal_i(10, res.inserts);
    completed_file(table, res.instant, action, path, sizeof path);
    decode_commit(table, path, "HoodieCommitMetadata", "UPSERT", &s);
    hoodie_assert_equal_i(20, s.updates);
    hoodie_assert_equal_i(10, s.inserts);
    hoodie_assert_equal_i(0, s.bad_sizes);
    /* the partitions receive inserts, so their small file groups are rewritten with their updates (on MOR too,
       as Hudi does when the index cannot see log files): every record of a touched file is written again */
    hoodie_assert_equal_i(70, s.writes);
    /* deletes of 5 keys that exist and 2 that do not */
    rows_spec d = { 1, 5, 0, "d", NULL, 0 }, d2 = { 100, 101, 0, "d", NULL, 0 };
    hoodie_assert_ok(write_rows(table, NULL, HOODIE_WRITE_DELETE, &d, &res));
    completed_file(table, res.instant, action, path, sizeof path);
    decode_commit(table, path, "HoodieCommitMetadata", "DELETE", &s);
    hoodie_assert_equal_i(5, s.deletes);
    hoodie_assert_equal_i(mor ? s.files : 0, s.log_files); /* MOR deletes go to log files */
    hoodie_assert_equal_i(0, s.bad_sizes);
    if (mor) { /* 10 updates to log files too, then a compaction: it counts the updates and deletes it merged */
        rows_spec u = { 41, 50, 30, "u", NULL, 0 };
        hoodie_assert_ok(write_rows(table, NULL, HOODIE_WRITE_UPSERT, &u, &res));
        hoodie_service_opts so = HOODIE_SERVICE_OPTS_INIT;
        hoodie_service_result sr;
        hoodie_assert_ok(hoodie_compaction_schedule(table, &so, &sr));
        hoodie_assert_ok(hoodie_compaction_run(table, &so, sr.instant, &sr));
        completed_file(table, sr.instant, "commit", path, sizeof path);
        decode_commit(table, path, "HoodieCommitMetadata", "COMPACT", &s);
        hoodie_assert_equal_i(10, s.updates);
        hoodie_assert_equal_i(5, s.deletes);
        hoodie_assert_equal_i(0, s.bad_sizes);
    }
    hoodie_assert_ok(write_rows(table, NULL, HOODIE_WRITE_DELETE, &d2, &res));
    completed_file(table, res.instant, action, path, sizeof path);
    decode_commit(table, path, "HoodieCommitMetadata", "DELETE", &s);
    hoodie_assert_equal_i(0, s.deletes);
    /* insert_overwrite of partition sf */
    rows_spec o = { 1, 9, 5, "o", "sf", 0 };
    hoodie_assert_ok(write_rows(table, NULL, HOODIE_WRITE_INSERT_OVERWRITE, &o, &res));
    hoodie_assert_equal_s("replacecommit", res.action);
    completed_file(table, res.instant, "replacecommit", path, sizeof path);
    decode_commit(table, path, "HoodieReplaceCommitMetadata", "INSERT_OVERWRITE", &s);
    hoodie_assert_equal_i(3, s.inserts);
    hoodie_assert_equal_i(3, s.writes);
    hoodie_assert_equal_i(0, s.bad_sizes);
}

HOODIE_TEST(write_writer__v8_commit_files_by_libavro_cow) { commit_files_case(0); }
HOODIE_TEST(write_writer__v8_commit_files_by_libavro_mor) { commit_files_case(1); }

/* ---- small files ---- */

/* Distinct file ids of the table's records (the part of _hoodie_file_name before the write token), and how many
 * records came from log files (whose _hoodie_file_name is the bare file id). */
/* A snapshot scan of the given columns, opened for reading (close r, then free *t). */
static void scan_columns(const char *base, const hoodie_storage *s, const char *const *cols, size_t n_cols,
                         hoodie_table **t, hoodie_arrow_reader *r)
{
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    hoodie_assert_ok(hoodie_table_open(t, base, &to));
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.columns = cols;
    so.n_columns = n_cols;
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_table_scan(*t, &so, &st));
    hoodie_assert_ok(hoodie_arrow_reader_open(r, &st));
}

static void file_ids(const char *base, const hoodie_storage *s, size_t *n_ids, size_t *from_logs)
{
    static const char *const cols[] = { "_hoodie_file_name" };
    hoodie_table *t;
    hoodie_arrow_reader r;
    scan_columns(base, s, cols, 1, &t, &r);
    char ids[64][40];
    size_t n = 0, logs = 0;
    hoodie_batch b;
    while (hoodie_arrow_reader_next(&r, &b) == HOODIE_OK) {
        const hoodie_array *a = &b.root.children[0];
        for (int64_t i = 0; i < a->length; i++) {
            const char *v = (const char *)a->values + a->offsets[i];
            size_t len = (size_t)(a->offsets[i + 1] - a->offsets[i]);
            if (len < 38 || memcmp(v + len - 8, ".parquet", 8)) logs++;
            char id[40];
            snprintf(id, sizeof id, "%.38s", v); /* uuid-0 */
            size_t k;
            for (k = 0; k < n && strcmp(ids[k], id); k++) {}
            if (k == n && n < 64) memcpy(ids[n++], id, sizeof id);
        }
        hoodie_batch_dispose(&b);
    }
    hoodie_arrow_reader_close(&r);
    hoodie_table_free(t);
    *n_ids = n;
    *from_logs = logs;
}

static hoodie_status write_sized(const char *base, const hoodie_storage *s, hoodie_write_operation op,
                                 const rows_spec *spec, int64_t small, int64_t max)
{
    hoodie_field sc;
    schema_of(&sc);
    rows_spec *p = malloc(sizeof *p);
    *p = *spec;
    p->done = 0;
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_arrow_stream_export(&st, &sc, next_rows, free, p));
    hoodie_field_dispose(&sc);
    hoodie_write_opts o = HOODIE_WRITE_OPTS_INIT;
    o.storage = s;
    o.op = op;
    o.small_file_limit = small;
    o.max_file_size = max;
    return hoodie_table_write(base, &st, &o, NULL);
}

static void small_files_case(int mor)
{
    const char *base = "/sf";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table(base, mem, mor, 8);
    size_t ids, logs;
    /* 300 rows in 3 partitions: one group each */
    rows_spec a = { 1, 300, 10, "a", NULL, 0 };
    hoodie_assert_ok(write_sized(base, mem, HOODIE_WRITE_BULK_INSERT, &a, 0, 0));
    file_ids(base, mem, &ids, &logs);
    hoodie_assert_equal_i(3, ids);
    /* inserts fill the small groups (every file is far under 100 MB): still 3 groups */
    rows_spec b = { 301, 330, 10, "b", NULL, 0 };
    hoodie_assert_ok(write_sized(base, mem, HOODIE_WRITE_INSERT, &b, 0, 0));
    file_ids(base, mem, &ids, &logs);
    hoodie_assert_equal_i(3, ids);
    hoodie_assert_equal_i(0, logs);
    /* no file is small under a 1000-byte limit: the inserts open new groups, one per partition */
    rows_spec c = { 331, 360, 10, "c", NULL, 0 };
    hoodie_assert_ok(write_sized(base, mem, HOODIE_WRITE_INSERT, &c, 1000, 0));
    file_ids(base, mem, &ids, &logs);
    hoodie_assert_equal_i(6, ids);
    /* a max file size that leaves no room in any file: new groups again */
    rows_spec d = { 361, 390, 10, "d", NULL, 0 };
    /* (files are ~435 KB, mostly bloom filter; the record size estimate stays 1024 bytes below 100 MB written) */
    hoodie_assert_ok(write_sized(base, mem, HOODIE_WRITE_INSERT, &d, 100 << 20, 400000));
    file_ids(base, mem, &ids, &logs);
    hoodie_assert_equal_i(9, ids);
    /* small-file handling off (Hudi's limit 0), every file small as it is: the inserts open new groups */
    rows_spec e = { 391, 420, 10, "e", NULL, 0 };
    hoodie_assert_ok(write_sized(base, mem, HOODIE_WRITE_UPSERT, &e, HOODIE_NO_SMALL_FILES, 0));
    file_ids(base, mem, &ids, &logs);
    hoodie_assert_equal_i(12, ids);
    hoodie_assert_equal_i(0, logs);
    /* updates only: COW rewrites the groups (new base files), MOR writes log files */
    rows_spec u = { 1, 30, 20, "u", NULL, 0 };
    hoodie_assert_ok(write_sized(base, mem, HOODIE_WRITE_UPSERT, &u, 0, 0));
    file_ids(base, mem, &ids, &logs);
    hoodie_assert_equal_i(12, ids);
    hoodie_assert_equal_i(mor ? 30 : 0, logs);
    hoodie_storage_free(mem);
}

static void open_slices(const char *base, const hoodie_storage *s, hoodie_table **t, hoodie_slices **sl)
{
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    hoodie_assert_ok(hoodie_table_open(t, base, &to));
    hoodie_assert_ok(hoodie_table_slices(*t, NULL, sl));
}

/* Latest slices of the table: file id, base file size and number of log files; returns how many. */
static size_t latest_slices(const char *base, const hoodie_storage *s, char (*ids)[40], uint64_t *sizes,
                            size_t *logs, size_t cap)
{
    hoodie_table *t;
    hoodie_slices *sl;
    open_slices(base, s, &t, &sl);
    size_t n = 0;
    for (size_t i = 0; i < hoodie_slices_count(sl); i++) {
        hoodie_slice_info si;
        hoodie_assert_ok(hoodie_slices_get(sl, i, &si));
        if (!si.latest || n == cap) continue;
        snprintf(ids[n], 40, "%s", si.file_id);
        sizes[n] = 0;
        if (si.base_file) {
            hoodie_rfile *f;
            hoodie_assert_ok(s->open_read(s->ctx, si.base_file, &f, &sizes[n]));
            s->close_read(s->ctx, f);
        }
        logs[n++] = si.n_log_files;
    }
    hoodie_slices_free(sl);
    hoodie_table_free(t);
    return n;
}

/* Inserts go to the smallest small file group first; MOR pads at most one small group per partition
 * (hoodie.merge.small.file.group.candidates.limit), whose updates are merged; other groups' updates go to logs. */
static void small_file_order_case(int mor)
{
    const char *base = "/so";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table(base, mem, mor, 8);
    rows_spec big = { 1, 6000, 10, "a", "sf", 0 }, little = { 6001, 6030, 10, "a", "sf", 0 };
    hoodie_assert_ok(write_sized(base, mem, HOODIE_WRITE_BULK_INSERT, &big, 0, 0));
    hoodie_assert_ok(write_sized(base, mem, HOODIE_WRITE_BULK_INSERT, &little, 0, 0));
    char ids[8][40];
    uint64_t sz[8];
    size_t logs[8];
    hoodie_assert_equal_i(2, latest_slices(base, mem, ids, sz, logs, 8));
    size_t small_i = sz[0] < sz[1] ? 0 : 1, big_i = 1 - small_i;
    char small_id[40], big_id[40];
    memcpy(small_id, ids[small_i], 40);
    memcpy(big_id, ids[big_i], 40);
    /* room for 5 records (1024 bytes each by the estimate) in the big group, more in the small one; ~190 inserts
     * (more than both rooms) and an update of keys in each group */
    int64_t max = (int64_t)sz[big_i] + 5 * 1024 + 512;
    rows_spec up = { 5997, 6600, 20, "u", "sf", 0 }; /* sf ids 5997, 6000 (big), 6003..6030 (small), then new */
    hoodie_assert_ok(write_sized(base, mem, HOODIE_WRITE_UPSERT, &up, 100 << 20, max));
    size_t n = latest_slices(base, mem, ids, sz, logs, 8);
    /* the small group is padded (merged with its updates: no log); the big one too on COW, but not on MOR, whose
     * updates of it go to a log file; the remaining inserts open new groups */
    int saw_small = 0, saw_big = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(ids[i], small_id)) { saw_small = 1; hoodie_assert_equal_i(0, logs[i]); }
        if (!strcmp(ids[i], big_id)) { saw_big = 1; hoodie_assert_equal_i(mor ? 1 : 0, logs[i]); }
    }
    hoodie_assert(saw_small && saw_big);
    hoodie_assert(n > 2);
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_writer__small_file_order_cow) { small_file_order_case(0); }
HOODIE_TEST(write_writer__small_file_order_mor) { small_file_order_case(1); }
/* bulk_insert closes a file that reaches max_file_size by its actual size, even where the record-size estimate
 * (1,024 bytes a record on a first write) said the group's records would fit */
HOODIE_TEST(write_writer__bulk_insert_rolls_by_size)
{
    const char *base = "/bi";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table(base, mem, 0, 8);
    size_t ids, logs;
    rows_spec a = { 1, 18000, 10, "~", "sf", 0 }; /* 6,000 records of ~1.5 KB in one partition */
    hoodie_assert_ok(write_sized(base, mem, HOODIE_WRITE_BULK_INSERT, &a, 0, 6000 * 1024));
    file_ids(base, mem, &ids, &logs);
    hoodie_assert_equal_i(2, ids);
    char fid[8][40];
    uint64_t sz[8];
    size_t lg[8];
    hoodie_assert_equal_i(2, latest_slices(base, mem, fid, sz, lg, 8));
    hoodie_assert(sz[0] < 8000000 && sz[1] < 8000000);
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_writer__small_files_cow) { small_files_case(0); }
HOODIE_TEST(write_writer__small_files_mor) { small_files_case(1); }

/* ---- bulk_insert streamed batch by batch ---- */

/* ids first..last, and again (ts 2) 500 rows later (or at the end) for every id % 7 == 0, in batches of `chunk`
 * rows; the stream fails at batch `fail_at` (1-based; 0: never). */
typedef struct chunks_spec {
    int64_t first, last, chunk;
    int fail_at, batch;
    int64_t *ids, *ts, n, pos;  /* the whole sequence, built on the first call */
} chunks_spec;

static void chunks_free(void *p)
{
    chunks_spec *c = p;
    free(c->ids);
    free(c->ts);
    free(c);
}

static hoodie_status next_chunk(hoodie_batch *out, void *payload)
{
    chunks_spec *c = payload;
    if (!c->ids) {
        size_t cap = (size_t)(c->last - c->first + 1) * 2;
        c->ids = malloc(cap * sizeof *c->ids);
        c->ts = malloc(cap * sizeof *c->ts);
        int64_t *later = malloc(cap * sizeof *later), n_later = 0, k = 0;
        for (int64_t id = c->first; id <= c->last; id++, k++) {
            c->ids[c->n] = id;
            c->ts[c->n++] = 1;
            if (id % 7 == 0) later[n_later++] = id;
            if (k >= 500 && n_later && later[0] <= id - 500) { /* the oldest pending duplicate */
                c->ids[c->n] = later[0];
                c->ts[c->n++] = 2;
                memmove(later, later + 1, (size_t)--n_later * sizeof *later);
            }
        }
        for (int64_t i = 0; i < n_later; i++) { c->ids[c->n] = later[i]; c->ts[c->n++] = 2; }
        free(later);
    }
    if (c->pos == c->n) return HOODIE_ITEROVER;
    if (++c->batch == c->fail_at) return HOODIE_FAIL(HOODIE_EIO, "input broken at batch %d", c->batch);
    char name[32];
    int64_t n = 0;
    for (; n < c->chunk && c->pos < c->n; n++, c->pos++) {
        int64_t id = c->ids[c->pos];
        snprintf(name, sizeof name, "c%lld", (long long)id);
        HOODIE_TRY(hoodie_array_append_int(&out->root.children[0], &out->schema.children[0], id));
        HOODIE_TRY(hoodie_array_append_str(&out->root.children[1], &out->schema.children[1], name));
        HOODIE_TRY(hoodie_array_append_str(&out->root.children[2], &out->schema.children[2], city_of(id)));
        HOODIE_TRY(hoodie_array_append_int(&out->root.children[3], &out->schema.children[3], c->ts[c->pos]));
    }
    out->root.length = n;
    return HOODIE_OK;
}

static hoodie_status write_chunks(const char *base, const hoodie_storage *s, const chunks_spec *spec, int combine,
                                  int64_t max_file_size, hoodie_write_result *res)
{
    hoodie_field sc;
    schema_of(&sc);
    chunks_spec *p = malloc(sizeof *p);
    *p = *spec;
    p->ids = p->ts = NULL;
    p->n = p->pos = 0;
    p->batch = 0;
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_arrow_stream_export(&st, &sc, next_chunk, chunks_free, p));
    hoodie_field_dispose(&sc);
    hoodie_write_opts o = HOODIE_WRITE_OPTS_INIT;
    o.storage = s;
    o.op = HOODIE_WRITE_BULK_INSERT;
    o.bloom_num_entries = 100;
    o.combine_before_insert = combine;
    o.max_file_size = max_file_size;
    return hoodie_table_write(base, &st, &o, res);
}

/* The table's (record key, seqno, file name) rows. */
typedef struct meta_row { char key[16], seq[48], file[96]; } meta_row;

static size_t meta_rows(const char *base, const hoodie_storage *s, meta_row *out, size_t cap)
{
    static const char *const cols[] = { "_hoodie_record_key", "_hoodie_commit_seqno", "_hoodie_file_name" };
    hoodie_table *t;
    hoodie_arrow_reader r;
    scan_columns(base, s, cols, 3, &t, &r);
    hoodie_batch b;
    size_t n = 0;
    while (hoodie_arrow_reader_next(&r, &b) == HOODIE_OK) {
        for (int64_t i = 0; i < b.root.length; i++, n++) {
            hoodie_assert(n < cap);
            char *dst[3] = { out[n].key, out[n].seq, out[n].file };
            size_t caps[3] = { sizeof out[n].key, sizeof out[n].seq, sizeof out[n].file };
            for (int c = 0; c < 3; c++) {
                const hoodie_array *a = &b.root.children[c];
                snprintf(dst[c], caps[c], "%.*s", (int)(a->offsets[i + 1] - a->offsets[i]),
                         (const char *)a->values + a->offsets[i]);
            }
        }
        hoodie_batch_dispose(&b);
    }
    hoodie_arrow_reader_close(&r);
    hoodie_table_free(t);
    return n;
}

static int by_file_then_seq(const void *a, const void *b)
{
    const meta_row *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (c) return c;
    const char *sx = strrchr(x->seq, '_'), *sy = strrchr(y->seq, '_');
    long long nx = atoll(sx + 1), ny = atoll(sy + 1);
    return nx < ny ? -1 : nx > ny;
}

/*
 * 3,000 ids (and 428 duplicates, 500 rows after the first) in batches of 700 rows over 3 partitions:
 * by default every row is written (Hudi's hoodie.combine.before.insert=false); files hold at most the records the
 * size estimate allows (max_file_size / 1024 = 300 here), so each partition's ~1,143 rows span 4 file groups; in
 * every file the sequence numbers run 0..n-1 under one task number, across input batches; the inflight instant is
 * empty as Spark's bulk insert leaves it. With combine_before_insert one record per key remains, the newer one.
 */
HOODIE_TEST(write_writer__bulk_insert_streams_batches)
{
    static meta_row rows[4000];
    const char *base = "/bs";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table(base, mem, 0, 8);
    chunks_spec spec = { 1, 3000, 700, 0, 0, NULL, NULL, 0, 0 };
    hoodie_write_result res;
    hoodie_assert_ok(write_chunks(base, mem, &spec, 0, 300 * 1024, &res));
    hoodie_assert_equal_i(3428, res.inserts);
    size_t n = meta_rows(base, mem, rows, 4000);
    hoodie_assert_equal_i(3428, n);
    qsort(rows, n, sizeof *rows, by_file_then_seq);
    size_t files = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        const char *us = strchr(rows[i].seq, '_');
        size_t task_len = (size_t)(strrchr(rows[i].seq, '_') - us);
        for (; j < n && !strcmp(rows[j].file, rows[i].file); j++) {
            char want[64];
            snprintf(want, sizeof want, "%.*s%zu", (int)(us - rows[i].seq) + (int)task_len + 1, rows[i].seq, j - i);
            hoodie_assert_equal_s(want, rows[j].seq);
        }
        hoodie_assert(j - i <= 300);
        files++;
        i = j;
    }
    hoodie_assert_equal_i(12, files);
    hoodie_assert_equal_i(12, res.files_written);
    /* the inflight instant is empty */
    char path[256];
    snprintf(path, sizeof path, "%s/.hoodie/timeline/%s.inflight", base, res.instant); /* a commit's inflight */
    hoodie_rfile *f;
    uint64_t size = 99;
    hoodie_assert_ok(mem->open_read(mem->ctx, path, &f, &size));
    mem->close_read(mem->ctx, f);
    hoodie_assert_equal_i(0, size);

    /* combining: one record per key */
    const char *base2 = "/bs2";
    make_table(base2, mem, 0, 8);
    hoodie_assert_ok(write_chunks(base2, mem, &spec, 1, 0, &res));
    hoodie_assert_equal_i(3000, res.inserts);
    hoodie_assert_equal_i(3000, meta_rows(base2, mem, rows, 4000));
    hoodie_storage_free(mem);
}

/* The input failing after files were written: the write fails naming the input; the table reads as before (the
 * instant stays inflight, its files unseen) and the next write rolls it back first. */
HOODIE_TEST(write_writer__bulk_insert_input_fails_midway)
{
    const char *base = "/bf";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table(base, mem, 1, 6);
    rows_spec a = { 1, 40, 10, "a", NULL, 0 };
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
    char *before = snapshot(base, mem, 1);
    chunks_spec spec = { 100, 3000, 700, 3, 0, NULL, NULL, 0, 0 };
    hoodie_write_result res;
    hoodie_status rc = write_chunks(base, mem, &spec, 0, 0, &res);
    hoodie_assert_equal_i(HOODIE_EIO, rc);
    hoodie_assert(strstr(hoodie_error_last()->message, "input broken at batch 3") != NULL);
    char *mid = snapshot(base, mem, 1);
    hoodie_assert_equal_s(before, mid);
    spec.fail_at = 0;
    hoodie_assert_ok(write_chunks(base, mem, &spec, 0, 0, &res));
    hoodie_assert_equal_i(1, res.rolled_back);
    static meta_row rows[4000];
    hoodie_assert_equal_i(40 + 2901 + 414, meta_rows(base, mem, rows, 4000)); /* ids 100..3000, 414 twice */
    free(before);
    free(mid);
    hoodie_storage_free(mem);
}

/* ---- the key index of rewritten base files ---- */

/* Each latest base file's footer filter (with its type code and min/max keys) against the filter rebuilt from the
 * file's keys in file order; returns how many files had the same footer index as `prev` (the previous versions'). */
static size_t check_key_index(const char *base, const hoodie_storage *s, char (*prev)[4][200], size_t *n_prev)
{
    static const char *const kv[4] = { "org.apache.hudi.bloomfilter", "hoodie_bloom_filter_type_code",
                                       "hoodie_min_record_key", "hoodie_max_record_key" };
    size_t same = 0, k = 0;
    hoodie_table *t;
    hoodie_slices *sl;
    open_slices(base, s, &t, &sl);
    for (size_t i = 0; i < hoodie_slices_count(sl) && k < 8; i++) {
        hoodie_slice_info si;
        hoodie_assert_ok(hoodie_slices_get(sl, i, &si));
        if (!si.latest || !si.base_file) continue;
        hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
        ro.storage = s;
        hoodie_parquet_reader *r;
        hoodie_assert_ok(hoodie_parquet_reader_open(&r, si.base_file, &ro));
        char cur[4][200];
        memset(cur, 0, sizeof cur);
        for (int j = 0; j < 4; j++) {
            const char *v = hoodie_parquet_reader_kv(r, kv[j]);
            hoodie_assert(v != NULL);
            snprintf(cur[j], sizeof cur[j], "%s", j ? v : v + strlen(v) / 2); /* the filter: a slice of it */
        }
        /* rebuilt from the keys */
        static const char *const kc[] = { "_hoodie_record_key" };
        hoodie_pq_scan *sc;
        hoodie_parquet_reader_free(r);
        ro.columns = kc;
        ro.n_columns = 1;
        hoodie_assert_ok(hoodie_parquet_reader_open(&r, si.base_file, &ro));
        hoodie_assert_ok(hoodie_pqfile__scan_open(r, &sc));
        hoodie_bloom bloom;
        hoodie_assert_ok(hoodie_bloom_init(&bloom, HOODIE_BLOOM_DYNAMIC_V0, 100, 1e-9, 100000));
        hoodie_batch b;
        while (hoodie_pq_scan_next(sc, &b) == HOODIE_OK) {
            const hoodie_array *a = &b.root.children[0];
            for (int64_t q = 0; q < a->length; q++)
                hoodie_assert_ok(hoodie_bloom_add(&bloom, a->values + a->offsets[q], (size_t)(a->offsets[q + 1] - a->offsets[q])));
            hoodie_batch_dispose(&b);
        }
        hoodie_buf bf = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_bloom_to_base64(&bloom, &bf));
        hoodie_assert_ok(hoodie_buf_cstr(&bf));
        hoodie_assert_equal_s((const char *)bf.data, hoodie_parquet_reader_kv(r, kv[0]));
        hoodie_buf_dispose(&bf);
        hoodie_bloom_dispose(&bloom);
        hoodie_pq_scan_free(sc);
        hoodie_parquet_reader_free(r);
        int was = 0;
        for (size_t p = 0; p < *n_prev; p++)
            if (!memcmp(prev[p], cur, sizeof cur)) was = 1;
        same += (size_t)was;
        memcpy(prev[k++], cur, sizeof cur);
    }
    *n_prev = k;
    hoodie_slices_free(sl);
    hoodie_table_free(t);
    return same;
}

/* A copy-on-write rewrite with only updates keeps the file's key sequence, so its footer index is reused as is;
 * one with a delete (or inserts) rebuilds it. Either way the footer is the filter of the file's keys. */
HOODIE_TEST(write_writer__cow_rewrite_key_index)
{
    const char *base = "/ki";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table(base, mem, 0, 8);
    g_bloom_entries = 100;
    rows_spec a = { 1, 300, 10, "a", NULL, 0 }, u = { 1, 30, 20, "u", NULL, 0 }, d = { 4, 6, 0, "d", NULL, 0 };
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
    char prev[8][4][200];
    size_t n_prev = 0;
    check_key_index(base, mem, prev, &n_prev);
    hoodie_assert_equal_i(3, n_prev);
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &u, NULL)); /* updates in every partition */
    hoodie_assert_equal_i(3, check_key_index(base, mem, prev, &n_prev));
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_DELETE, &d, NULL)); /* one key less in each partition */
    hoodie_assert_equal_i(0, check_key_index(base, mem, prev, &n_prev));
    g_bloom_entries = 0;
    hoodie_storage_free(mem);
}

/* ---- copy-on-write: the chunks of columns no update changes are copied ---- */

/* fn(storage, slice, ctx) for every latest file slice of the table. */
static void each_latest_slice(const char *base, const hoodie_storage *s,
                              void (*fn)(const hoodie_storage *, const hoodie_slice_info *, void *), void *ctx)
{
    hoodie_table *t;
    hoodie_slices *sl;
    open_slices(base, s, &t, &sl);
    for (size_t i = 0; i < hoodie_slices_count(sl); i++) {
        hoodie_slice_info si;
        hoodie_assert_ok(hoodie_slices_get(sl, i, &si));
        if (si.latest) fn(s, &si, ctx);
    }
    hoodie_slices_free(sl);
    hoodie_table_free(t);
}

static void base_file_of(const hoodie_storage *s, const hoodie_slice_info *si, void *fn)
{
    if (si->base_file) (*(void (**)(const hoodie_storage *, const char *))fn)(s, si->base_file);
}

/* fn(storage, path) for every latest base file of the table. */
static void each_base_file(const char *base, const hoodie_storage *s, void (*fn)(const hoodie_storage *, const char *))
{
    each_latest_slice(base, s, base_file_of, &fn);
}

/* A Parquet file of storage s opened, and a scan of every column of it. */
static void open_scan(const hoodie_storage *s, const char *path, hoodie_parquet_reader **r, hoodie_pq_scan **sc)
{
    hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
    ro.storage = s;
    hoodie_assert_ok(hoodie_parquet_reader_open(r, path, &ro));
    hoodie_assert_ok(hoodie_pqfile__scan_open(*r, sc));
}

/* Rewrite a base file as it is (rows, footer key-values) but without dictionary encoding: chunks hoodie's writer
 * would not produce, so that a later rewrite's copies are told from its encodings. */
static void recode_base_file(const hoodie_storage *s, const char *path)
{
    hoodie_parquet_reader *r;
    hoodie_pq_scan *sc;
    open_scan(s, path, &r, &sc);
    hoodie_pq_file *f = hoodie_pqfile__file(r);
    uint32_t nkv = hoodie_pq_file_metadata(f)->kv_count;
    char *keys[16], *vals[16];
    hoodie_assert(nkv <= 16);
    for (uint32_t k = 0; k < nkv; k++) {
        keys[k] = strdup(hoodie_pq_file_metadata(f)->kv[k].key);
        const char *v = hoodie_pq_file_kv_at(f, k);
        vals[k] = v ? strdup(v) : NULL;
    }
    hoodie_batch all[16];
    size_t n = 0;
    while (n < 16 && hoodie_pq_scan_next(sc, &all[n]) == HOODIE_OK) n++;
    hoodie_pq_scan_free(sc);
    hoodie_parquet_reader_free(r);
    hoodie_pq_writer_opts wo;
    hoodie_pq_writer_opts_init(&wo);
    wo.dictionary = 0;
    wo.kv_keys = (const char *const *)keys;
    wo.kv_values = (const char *const *)vals;
    wo.n_kv = nkv;
    hoodie_pqwrite *w;
    hoodie_assert_ok(hoodie_pqwrite_open_ex(&w, path, s, 0, &all[0].schema, &wo));
    for (size_t b = 0; b < n; b++) hoodie_assert_ok(hoodie_pqwrite_write_batch(w, &all[b]));
    hoodie_assert_ok(hoodie_pqwrite_close(w));
    hoodie_pqwrite_free(w);
    for (size_t b = 0; b < n; b++) hoodie_batch_dispose(&all[b]);
    for (uint32_t k = 0; k < nkv; k++) { free(keys[k]); free(vals[k]); }
}

static void recode_base_files(const char *base, const hoodie_storage *s) { each_base_file(base, s, recode_base_file); }

/* fn(storage, latest base file, the group's newest earlier base file, ctx) for each file group that has both;
 * returns how many. */
static size_t each_replaced_base(const char *base, const hoodie_storage *s,
                                 void (*fn)(const hoodie_storage *, const char *, const char *, void *), void *ctx)
{
    hoodie_table *t;
    hoodie_slices *sl;
    open_slices(base, s, &t, &sl);
    size_t n = 0;
    for (size_t i = 0; i < hoodie_slices_count(sl); i++) {
        hoodie_slice_info cur, prev = { 0 };
        hoodie_assert_ok(hoodie_slices_get(sl, i, &cur));
        if (!cur.latest || !cur.base_file) continue;
        for (size_t j = 0; j < hoodie_slices_count(sl); j++) {
            hoodie_slice_info o;
            hoodie_assert_ok(hoodie_slices_get(sl, j, &o));
            if (!o.latest && o.base_file && !strcmp(o.file_id, cur.file_id) &&
                (!prev.base_instant || strcmp(o.base_instant, prev.base_instant) > 0))
                prev = o;
        }
        if (!prev.base_file) continue;
        fn(s, cur.base_file, prev.base_file, ctx);
        n++;
    }
    hoodie_slices_free(sl);
    hoodie_table_free(t);
    return n;
}

/* Whether column `col`'s chunk (row group 0) has the same bytes in a latest base file and the one it replaced. */
typedef struct kept_ctx { const char *col; size_t same; } kept_ctx;

static void chunk_same(const hoodie_storage *s, const char *cur, const char *prev, void *ctx)
{
    kept_ctx *k = ctx;
    hoodie_buf bytes[2] = { HOODIE_BUF_INIT, HOODIE_BUF_INIT };
    const char *paths[2] = { cur, prev };
    for (int i = 0; i < 2; i++) {
        hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
        ro.storage = s;
        hoodie_parquet_reader *r;
        hoodie_assert_ok(hoodie_parquet_reader_open(&r, paths[i], &ro));
        hoodie_pq_file *f = hoodie_pqfile__file(r);
        int leaf = hoodie_pq_schema_find_leaf(hoodie_pq_file_schema(f), k->col);
        hoodie_assert(leaf >= 0);
        hoodie_assert_equal_i(1, hoodie_pq_file_metadata(f)->row_group_count);
        uint64_t off;
        hoodie_assert_ok(hoodie_pq_chunk_bytes(f, 0, leaf, &bytes[i], &off));
        hoodie_parquet_reader_free(r);
    }
    k->same += bytes[0].len == bytes[1].len && !memcmp(bytes[0].data, bytes[1].data, bytes[0].len);
    hoodie_buf_dispose(&bytes[0]);
    hoodie_buf_dispose(&bytes[1]);
}

/* For each file group with a latest and an earlier base file: whether column `col`'s chunk (row group 0) has the
 * same bytes in both. Returns how many file groups were compared; *same_out how many had the same bytes. */
static size_t chunk_kept(const char *base, const hoodie_storage *s, const char *col, size_t *same_out)
{
    kept_ctx k = { col, 0 };
    size_t compared = each_replaced_base(base, s, chunk_same, &k);
    *same_out = k.same;
    return compared;
}

/*
 * Upserts that change ts only (same names): the rewritten files copy the chunks of the record keys, partition
 * paths, id, name and city, and encode the commit times, sequence numbers, file names and ts; an upsert that
 * renames changes the name chunk too; a delete (rows no longer in place) encodes every column. The table reads
 * as the writes say throughout.
 */
HOODIE_TEST(write_writer__cow_unchanged_columns_copied)
{
    const char *base = "/cc";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table(base, mem, 0, 8);
    rows_spec a = { 1, 300, 10, "a", NULL, 0 }, u = { 1, 30, 20, "a", NULL, 0 }, n = { 31, 60, 30, "n", NULL, 0 };
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
    recode_base_files(base, mem); /* plain pages: hoodie would write dictionaries */
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &u, NULL)); /* every partition has updates */
    static const struct { const char *col; int kept; } after_ts[] = {
        { "_hoodie_record_key", 1 }, { "_hoodie_partition_path", 1 }, { "id", 1 }, { "name", 1 }, { "city", 1 },
        { "_hoodie_commit_time", 0 }, { "_hoodie_commit_seqno", 0 }, { "_hoodie_file_name", 0 }, { "ts", 0 },
    };
    size_t same;
    for (size_t i = 0; i < sizeof after_ts / sizeof after_ts[0]; i++) {
        hoodie_assert_equal_i(3, chunk_kept(base, mem, after_ts[i].col, &same));
        if (same != (after_ts[i].kept ? 3u : 0u)) fprintf(stderr, "column %s\n", after_ts[i].col);
        hoodie_assert_equal_i(after_ts[i].kept ? 3 : 0, same);
    }
    recode_base_files(base, mem);
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &n, NULL)); /* new names */
    hoodie_assert_equal_i(3, chunk_kept(base, mem, "name", &same));
    hoodie_assert_equal_i(0, same);
    hoodie_assert_equal_i(3, chunk_kept(base, mem, "city", &same));
    hoodie_assert_equal_i(3, same);
    rows_spec d = { 100, 100, 0, "d", NULL, 0 };
    recode_base_files(base, mem);
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_DELETE, &d, NULL)); /* id 100: city "la" */
    hoodie_assert_equal_i(3, chunk_kept(base, mem, "city", &same));
    hoodie_assert_equal_i(2, same);
    /* the rows: ids 1..300 but 100; ts 20 for 1..30, 30 for 31..60, else 10; names a<id> but n<id> for 31..60 */
    char *got = snapshot(base, mem, 0);
    char **lines = calloc(300, sizeof *lines);
    size_t nl = 0;
    for (int64_t id = 1; id <= 300; id++) {
        if (id == 100) continue;
        char l[128];
        const char *c = city_of(id);
        snprintf(l, sizeof l, "%lld,%s,%lld,%s%lld,%s,%d", (long long)id, c, (long long)id,
                 id >= 31 && id <= 60 ? "n" : "a", (long long)id, c, id <= 30 ? 20 : id <= 60 ? 30 : 10);
        lines[nl++] = strdup(l);
    }
    assert_lines(lines, nl, got);
    hoodie_storage_free(mem);
}

/* ---- inserts into a small file: the file kept whole, the inserts appended ---- */

/* A latest base file that replaced an earlier one of its group: every row group of the earlier file is in the new
 * one with the same chunk bytes (but _hoodie_file_name's), and every row names the new file. */
static void whole_kept(const hoodie_storage *s, const char *cur, const char *prev, void *ctx)
{
    (void)ctx;
    hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
    ro.storage = s;
    hoodie_parquet_reader *rn, *ro_;
    hoodie_assert_ok(hoodie_parquet_reader_open(&rn, cur, &ro));
    hoodie_assert_ok(hoodie_parquet_reader_open(&ro_, prev, &ro));
    hoodie_pq_file *fn = hoodie_pqfile__file(rn), *fo = hoodie_pqfile__file(ro_);
    const hoodie_pq_file_meta *mn = hoodie_pq_file_metadata(fn), *mo = hoodie_pq_file_metadata(fo);
    hoodie_assert(mn->row_group_count > mo->row_group_count); /* the inserts: row groups of their own */
    const hoodie_pq_schema *sch = hoodie_pq_file_schema(fo);
    int fname = hoodie_pq_schema_find_leaf(sch, "_hoodie_file_name");
    for (uint32_t g = 0; g < mo->row_group_count; g++) {
        hoodie_assert_equal_i(mo->row_groups[g].num_rows, mn->row_groups[g].num_rows);
        for (size_t l = 0; l < sch->n_leaves; l++) {
            if ((int)l == fname) continue;
            hoodie_buf a = HOODIE_BUF_INIT, b = HOODIE_BUF_INIT;
            uint64_t off;
            hoodie_assert_ok(hoodie_pq_chunk_bytes(fo, g, (int)l, &a, &off));
            hoodie_assert_ok(hoodie_pq_chunk_bytes(fn, g, hoodie_pq_schema_find_leaf(hoodie_pq_file_schema(fn),
                                                                                    sch->leaves[l].path), &b, &off));
            hoodie_assert(a.len == b.len && !memcmp(a.data, b.data, a.len));
            hoodie_buf_dispose(&a);
            hoodie_buf_dispose(&b);
        }
    }
    hoodie_parquet_reader_free(ro_);
    hoodie_parquet_reader_free(rn);
    /* every record names the new file */
    static const char *const fc[] = { "_hoodie_file_name" };
    ro.columns = fc;
    ro.n_columns = 1;
    hoodie_pq_scan *sc;
    hoodie_assert_ok(hoodie_parquet_reader_open(&rn, cur, &ro));
    hoodie_assert_ok(hoodie_pqfile__scan_open(rn, &sc));
    const char *name = strrchr(cur, '/') + 1;
    hoodie_batch b;
    int64_t rows = 0;
    while (hoodie_pq_scan_next(sc, &b) == HOODIE_OK) {
        for (int64_t q = 0; q < b.root.length; q++) {
            size_t l;
            const uint8_t *p = hoodie_array_bytes_at(&b.root.children[0], q, &l);
            hoodie_assert(l == strlen(name) && !memcmp(p, name, l));
        }
        rows += b.root.length;
        hoodie_batch_dispose(&b);
    }
    hoodie_assert_equal_i(hoodie_parquet_reader_num_rows(rn), rows);
    hoodie_pq_scan_free(sc);
    hoodie_parquet_reader_free(rn);
}

static size_t kept_whole(const char *base, const hoodie_storage *s) { return each_replaced_base(base, s, whole_kept, NULL); }

/* How many latest base files have exactly `rgs` row groups. */
static int g_rgs_want, g_rgs_count;
static void count_rgs(const hoodie_storage *s, const char *path)
{
    hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
    ro.storage = s;
    hoodie_parquet_reader *r;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, path, &ro));
    g_rgs_count += hoodie_pq_file_metadata(hoodie_pqfile__file(r))->row_group_count == (uint32_t)g_rgs_want;
    hoodie_parquet_reader_free(r);
}

static void each_base_file(const char *base, const hoodie_storage *s, void (*fn)(const hoodie_storage *, const char *));

static int each_base_file_rgs(const char *base, const hoodie_storage *s, int rgs)
{
    g_rgs_want = rgs;
    g_rgs_count = 0;
    each_base_file(base, s, count_rgs);
    return g_rgs_count;
}

/*
 * Inserts into small files: each partition's file is kept whole in the new version (its row groups copied, the
 * file names made anew) with the inserts after it, and its footer filter is the one its keys give (continued, here
 * past a row of the bounded dynamic filter). Twice, so that a kept file is kept again; then, with the default bounds,
 * the small row groups are written again with the inserts (one row group a file); then an upsert with updates and
 * inserts rewrites by reading, its filter continued too. The table reads as written throughout.
 */
static void insert_keeps_file_case(int mor)
{
    const char *base = mor ? "/kfm" : "/kfc";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table(base, mem, mor, 8);
    g_bloom_entries = 100;
    int64_t keep_rows = hoodie_wr__keep_rg_rows;
    hoodie_wr__keep_rg_rows = 1; /* every row group kept, however small */
    rows_spec a = { 1, 300, 10, "a", NULL, 0 }, i1 = { 301, 330, 20, "i", NULL, 0 }, i2 = { 331, 660, 30, "j", NULL, 0 };
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
    recode_base_files(base, mem); /* plain pages: a re-encoding would write dictionaries */
    char prev[8][4][200];
    size_t n_prev = 0;
    check_key_index(base, mem, prev, &n_prev);
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_INSERT, &i1, NULL)); /* 100 keys + 10 in each partition */
    hoodie_assert_equal_i(3, kept_whole(base, mem));
    hoodie_assert_equal_i(0, check_key_index(base, mem, prev, &n_prev)); /* rebuilt-equal, and not the old one */
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_INSERT, &i2, NULL)); /* 110 + 110: a third filter row */
    hoodie_assert_equal_i(3, kept_whole(base, mem));
    hoodie_assert_equal_i(0, check_key_index(base, mem, prev, &n_prev));
    /* with the default bounds, the small row groups at the end are written again with the inserts: one each */
    hoodie_wr__keep_rg_rows = keep_rows;
    rows_spec i3 = { 661, 690, 35, "k", NULL, 0 };
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_INSERT, &i3, NULL));
    hoodie_assert_equal_i(3, each_base_file_rgs(base, mem, 1));
    check_key_index(base, mem, prev, &n_prev); /* each footer filter is the one its keys give */
    /* updates and inserts: read and rewritten, the old records in place, so the old filter is continued */
    rows_spec u = { 290, 700, 40, "u", NULL, 0 }; /* (i3's rows all updated) */
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &u, NULL));
    check_key_index(base, mem, prev, &n_prev); /* each footer filter is the one its keys give */
    hoodie_assert_equal_i(3, n_prev);         /* in the three groups: the inserts filled them */
    char *got = snapshot(base, mem, 0);
    char **lines = calloc(700, sizeof *lines);
    for (int64_t id = 1; id <= 700; id++) {
        char l[128];
        const char *c = city_of(id), *tag = id >= 290 ? "u" : "a";
        int ts = id >= 290 ? 40 : 10;
        snprintf(l, sizeof l, "%lld,%s,%lld,%s%lld,%s,%d", (long long)id, c, (long long)id, tag, (long long)id, c, ts);
        lines[id - 1] = strdup(l);
    }
    assert_lines(lines, 700, got);
    g_bloom_entries = 0;
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_writer__insert_keeps_small_file_cow) { insert_keeps_file_case(0); }
HOODIE_TEST(write_writer__insert_keeps_small_file_mor) { insert_keeps_file_case(1); }

static void compact_all(const char *base, const hoodie_storage *s)
{
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    o.storage = s;
    hoodie_assert_ok(hoodie_compaction_schedule(base, &o, NULL));
    hoodie_assert_ok(hoodie_compaction_run(base, &o, NULL, NULL));
}

/* The write statistics of a table's last completed compaction (a commit on a MOR table), summed. */
static void last_compaction_stats(const char *base, const hoodie_storage *s, int64_t sums[4])
{
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, base, &to));
    const hoodie_instant *last = NULL;
    for (size_t i = 0; i < t->tl->count; i++)
        if (t->tl->instants[i].action == HOODIE_ACTION_COMMIT && t->tl->instants[i].state == HOODIE_STATE_COMPLETED)
            last = &t->tl->instants[i];
    hoodie_assert(last != NULL);
    hoodie_commit_meta *m;
    hoodie_assert_ok(hoodie_table__commit_meta(t, last, &m));
    memset(sums, 0, 4 * sizeof *sums);
    for (size_t k = 0; k < m->stat_count; k++) {
        sums[0] += m->stats[k].num_writes;
        sums[1] += m->stats[k].num_update_writes;
        sums[2] += m->stats[k].num_deletes;
        sums[3]++;
    }
    hoodie_commit_meta_free(m);
    hoodie_table_free(t);
}

/* Tables ta and tb, compacted in two ways, hold the same rows (`before`, read before) and their compactions have
 * the same statistics, updates among them; returns ta's rows. */
static char *same_compactions(const char *ta, const char *tb, const hoodie_storage *s, const char *before)
{
    char *a = snapshot(ta, s, 0), *b = snapshot(tb, s, 0);
    hoodie_assert_equal_s(before, a);
    hoodie_assert_equal_s(a, b);
    int64_t sa[4], sb[4];
    last_compaction_stats(ta, s, sa);
    last_compaction_stats(tb, s, sb);
    for (int i = 0; i < 4; i++) hoodie_assert_equal_i(sa[i], sb[i]);
    hoodie_assert(sa[1] > 0 && sa[3] > 0); /* updates were compacted */
    free(b);
    return a;
}

/*
 * Log files larger than the merge may hold (hoodie_scan_opts / hoodie_service_opts .merge_memory) are merged in
 * key-hash partitions, a pass over the base file each: every instant's snapshot reads as in one pass, and a
 * compaction so merged writes the same records with the same statistics. The sequence: a bulk insert, updates,
 * deletes, updates with inserts, stale updates (event time: they lose), more updates.
 */
/* Reads of log files through the in-memory storage (a table on storage that does not map files, as S3), counted in
 * bytes. */
static hoodie_status (*mp_inner_open_read)(void *, const char *, hoodie_rfile **, uint64_t *);
static hoodie_status (*mp_inner_read_at)(void *, hoodie_rfile *, uint64_t, void *, size_t);
static uint64_t mp_bytes_read;
static hoodie_rfile *mp_data_files[4096];
static size_t mp_n_data_files;

static hoodie_status mp_counted_open_read(void *ctx, const char *path, hoodie_rfile **out, uint64_t *size)
{
    hoodie_status rc = mp_inner_open_read(ctx, path, out, size);
    if (rc == HOODIE_OK && strstr(path, ".log.") && mp_n_data_files < 4096)
        mp_data_files[mp_n_data_files++] = *out;
    return rc;
}

static void (*mp_inner_close_read)(void *, hoodie_rfile *);

static void mp_counted_close_read(void *ctx, hoodie_rfile *f)
{
    for (size_t i = 0; i < mp_n_data_files; i++)
        if (mp_data_files[i] == f) { mp_data_files[i] = mp_data_files[--mp_n_data_files]; break; }
    mp_inner_close_read(ctx, f);
}

static hoodie_status mp_counted_read_at(void *ctx, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    for (size_t i = mp_n_data_files; i > 0; i--)
        if (mp_data_files[i - 1] == f) { mp_bytes_read += len; break; }
    return mp_inner_read_at(ctx, f, off, buf, len);
}

/* The entries of a directory whose name starts with `prefix`. */
static int dir_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) n += !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return n;
}

/* The writes of a table whose slices have log files of every kind: a bulk insert, updates, deletes, updates with
 * inserts, stale updates (event time: they lose), more updates. */
static const struct { hoodie_write_operation op; rows_spec rows; } mixed_writes[] = {
    { HOODIE_WRITE_BULK_INSERT, { 1, 300, 10, "a", NULL, 0 } },
    { HOODIE_WRITE_UPSERT, { 1, 120, 20, "u", NULL, 0 } },
    { HOODIE_WRITE_DELETE, { 50, 70, 0, "d", NULL, 0 } },
    { HOODIE_WRITE_UPSERT, { 250, 400, 30, "v", NULL, 0 } },
    { HOODIE_WRITE_UPSERT, { 1, 40, 5, "stale", NULL, 0 } },
    { HOODIE_WRITE_UPSERT, { 60, 90, 40, "w", "la", 0 } },
};

static void merge_parts_case(int version, hoodie_log_block_format fmt)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    g_log_blocks = fmt;
    const char *tables[2] = { "/mpa", "/mpb" };
    for (int k = 0; k < 2; k++) {
        make_table(tables[k], mem, 1, version);
        for (size_t i = 0; i < sizeof mixed_writes / sizeof *mixed_writes; i++)
            hoodie_assert_ok(write_rows(tables[k], mem, mixed_writes[i].op, &mixed_writes[i].rows, NULL));
    }
    size_t n_ids, from_logs;
    file_ids(tables[1], mem, &n_ids, &from_logs);
    hoodie_assert(from_logs > 50); /* records whose latest version is in a log file */
    /* every instant, and the latest: one pass (the default), and a partition per 256 and per 4096 bytes of log
     * files (tens, and a few, of passes) */
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = mem;
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, tables[1], &to));
    int checked = 0;
    for (size_t i = 0; i <= t->tl->count; i++) {
        const char *as_of = i < t->tl->count ? t->tl->instants[i].requested : NULL;
        if (as_of && t->tl->instants[i].state != HOODIE_STATE_COMPLETED) continue;
        char *one = snapshot_with(tables[1], mem, 1, as_of, 0);
        for (int64_t budget = 256; budget <= 4096; budget *= 16) {
            char *parts = snapshot_with(tables[1], mem, 1, as_of, budget);
            hoodie_assert_equal_s(one, parts);
            free(parts);
            checked++;
        }
        free(one);
    }
    hoodie_table_free(t);
    hoodie_assert(checked >= 2 * 6);
    /* the passes read the slice's files once from the table's storage (they are copied locally, to TMPDIR, and
     * read from there), not once per pass; the copies are gone afterwards */
    hoodie_storage counted = *mem;
    mp_inner_read_at = mem->read_at;
    mp_inner_open_read = mem->open_read;
    mp_inner_close_read = mem->close_read;
    counted.read_at = mp_counted_read_at;
    counted.open_read = mp_counted_open_read;
    counted.close_read = mp_counted_close_read;
    counted.destroy = NULL;
    const char *old_tmp = getenv("TMPDIR");
    char *saved_tmp = old_tmp ? strdup(old_tmp) : NULL;
    char *spill_dir = strdup(hoodie_test_tmpdir());
    hoodie_assert(spill_dir != NULL);
    setenv("TMPDIR", spill_dir, 1);
    mp_bytes_read = 0;
    mp_n_data_files = 0;
    char *one = snapshot_with(tables[1], &counted, 1, NULL, 0);
    uint64_t one_pass = mp_bytes_read;
    /* copies a killed process left (its pid gone) are removed by the next spill; a live process's stay */
    pid_t child = fork();
    if (child == 0) _exit(0);
    hoodie_assert(child > 0);
    waitpid(child, NULL, 0);
    char dead[512], live[512], junk[600];
    snprintf(dead, sizeof dead, "%s/hoodie-spill-%ld-dead00", spill_dir, (long)child);
    snprintf(live, sizeof live, "%s/hoodie-spill-%ld-live00", spill_dir, (long)getpid());
    snprintf(junk, sizeof junk, "%s/0", dead);
    hoodie_assert_ok(hoodie_storage_posix()->mkdirs(hoodie_storage_posix()->ctx, dead));
    hoodie_assert_ok(hoodie_storage_posix()->mkdirs(hoodie_storage_posix()->ctx, live));
    hoodie_assert_ok(hoodie_storage_write_all(hoodie_storage_posix(), junk, 0, "x", 1));
    mp_bytes_read = 0;
    mp_n_data_files = 0;
    char *many = snapshot_with(tables[1], &counted, 1, NULL, 256);
    int dead_left = dir_entries(spill_dir, strrchr(dead, '/') + 1);
    int live_left = dir_entries(spill_dir, strrchr(live, '/') + 1);
    hoodie_assert_ok(hoodie_storage_remove_tree(hoodie_storage_posix(), live));
    int left = dir_entries(spill_dir, "hoodie-spill-");
    if (saved_tmp) setenv("TMPDIR", saved_tmp, 1); else unsetenv("TMPDIR");
    free(saved_tmp);
    free(spill_dir);
    hoodie_assert_equal_s(one, many);
    hoodie_assert(one_pass > 0);
    hoodie_assert(mp_bytes_read <= one_pass); /* tens of passes: once */
    hoodie_assert_equal_i(0, left);
    hoodie_assert_equal_i(0, dead_left);
    hoodie_assert_equal_i(1, live_left);
    free(one);
    free(many);
    /* log compaction, table a in one pass, table b in partitions (a delete block and a data block each): each reads
     * as before, meta columns included */
    char *before = snapshot(tables[0], mem, 0);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    o.storage = mem;
    o.log_blocks_threshold = 2;
    for (int k = 0; k < 2; k++) {
        char *full = snapshot(tables[k], mem, 1);
        o.merge_memory = k ? 64 : 0;
        hoodie_service_result lr;
        hoodie_assert_ok(hoodie_log_compaction(tables[k], &o, &lr));
        hoodie_assert(lr.instant[0] && lr.files_written > 0);
        char *after = snapshot(tables[k], mem, 1);
        hoodie_assert_equal_s(full, after);
        free(full);
        free(after);
    }
    /* compaction (of the log-compacted slices): table a in one pass, table b in partitions */
    compact_all(tables[0], mem);
    o.merge_memory = 64;
    hoodie_assert_ok(hoodie_compaction_schedule(tables[1], &o, NULL));
    hoodie_assert_ok(hoodie_compaction_run(tables[1], &o, NULL, NULL));
    char *a = same_compactions(tables[0], tables[1], mem, before);
    file_ids(tables[1], mem, &n_ids, &from_logs);
    hoodie_assert_equal_i(0, from_logs);
    free(before);
    free(a);
    g_log_blocks = HOODIE_LOG_BLOCK_AVRO;
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_writer__merge_in_key_partitions_v8) { merge_parts_case(8, HOODIE_LOG_BLOCK_AVRO); }
HOODIE_TEST(write_writer__merge_in_key_partitions_v6) { merge_parts_case(6, HOODIE_LOG_BLOCK_AVRO); }
HOODIE_TEST(write_writer__merge_in_key_partitions_parquet_blocks) { merge_parts_case(8, HOODIE_LOG_BLOCK_PARQUET); }

/*
 * Compaction keeps the base file's chunks that no log record changes (the same rule as the COW write), except
 * _hoodie_file_name, which names the new file in every row; a log delete (rows no longer in place) encodes every
 * column of that file again.
 */
HOODIE_TEST(write_writer__compaction_unchanged_columns_copied)
{
    const char *base = "/mc";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table(base, mem, 1, 8);
    rows_spec a = { 1, 300, 10, "a", NULL, 0 }, u = { 1, 30, 20, "a", NULL, 0 }, d = { 100, 100, 0, "d", NULL, 0 };
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
    recode_base_files(base, mem);
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &u, NULL)); /* log files: ts 20 for 1..30 */
    compact_all(base, mem);
    static const struct { const char *col; int kept; } cols[] = {
        { "_hoodie_record_key", 1 }, { "id", 1 }, { "name", 1 }, { "city", 1 },
        { "_hoodie_file_name", 0 }, { "_hoodie_commit_time", 0 }, { "ts", 0 },
    };
    size_t same;
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        hoodie_assert_equal_i(3, chunk_kept(base, mem, cols[i].col, &same));
        if (same != (cols[i].kept ? 3u : 0u)) fprintf(stderr, "column %s\n", cols[i].col);
        hoodie_assert_equal_i(cols[i].kept ? 3 : 0, same);
    }
    char *got = snapshot(base, mem, 0);
    recode_base_files(base, mem);
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_DELETE, &d, NULL)); /* a delete block in "la" */
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &u, NULL)); /* and updates everywhere */
    compact_all(base, mem);
    hoodie_assert_equal_i(3, chunk_kept(base, mem, "city", &same));
    hoodie_assert_equal_i(2, same);
    char *after = snapshot(base, mem, 0);
    /* the rows after the first compaction but id 100 */
    char *line = strstr(got, "\n100,la,");
    hoodie_assert(line != NULL);
    char *end = strchr(line + 1, '\n');
    memmove(line, end, strlen(end) + 1);
    hoodie_assert_equal_s(got, after);
    free(got);
    free(after);
    hoodie_storage_free(mem);
}

/* Every OffsetIndex of a base file overwritten with bytes that do not decode. */
static void break_offset_index(const hoodie_storage *s, const char *path)
{
    hoodie_buf file = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(s, path, &file));
    hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
    ro.storage = s;
    hoodie_parquet_reader *r;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, path, &ro));
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(hoodie_pqfile__file(r));
    for (uint32_t c = 0; c < m->row_groups[0].column_count; c++) {
        const hoodie_pq_column_chunk *cc = &m->row_groups[0].columns[c];
        hoodie_assert(cc->has_offset_index);
        memset(file.data + cc->offset_index_offset, 0xff, (size_t)cc->offset_index_length);
    }
    hoodie_parquet_reader_free(r);
    hoodie_assert_ok(hoodie_storage_write_all(s, path, 0, file.data, file.len));
    hoodie_buf_dispose(&file);
}

/* A base file whose page index is broken (the data pages are fine): the rewrite encodes the columns it cannot copy
 * with their index, and the table reads as the writes say. */
HOODIE_TEST(write_writer__cow_copy_falls_back_on_broken_page_index)
{
    const char *base = "/cb";
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table(base, mem, 0, 8);
    rows_spec a = { 1, 30, 10, "a", NULL, 0 }, u = { 1, 30, 20, "a", NULL, 0 };
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
    recode_base_files(base, mem);
    char *before = snapshot(base, mem, 0);
    each_base_file(base, mem, break_offset_index);
    hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &u, NULL));
    size_t same;
    hoodie_assert_equal_i(3, chunk_kept(base, mem, "city", &same));
    hoodie_assert_equal_i(0, same); /* encoded again: a chunk is copied only with a page index that reads */
    char *after = snapshot(base, mem, 0);
    /* the same rows with ts 20 */
    for (char *p = before; (p = strstr(p, ",10\n")); p += 4) p[2] = '0', p[1] = '2';
    hoodie_assert_equal_s(before, after);
    free(before);
    free(after);
    hoodie_storage_free(mem);
}

/* ---- copy-on-write: a single bloom candidate is not read, the merge sorts it out ---- */

/* Rewrite a base file without its key index (no bloom filter, no min/max keys): every key of its partition is then
 * a candidate of that file alone, as a bloom false positive would be. */
static void strip_key_index(const hoodie_storage *s, const char *path)
{
    hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
    ro.storage = s;
    hoodie_parquet_reader *r;
    hoodie_pq_scan *sc;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, path, &ro));
    char *avro = strdup(hoodie_parquet_reader_kv(r, "parquet.avro.schema"));
    hoodie_assert_ok(hoodie_pqfile__scan_open(r, &sc));
    hoodie_batch all[64];
    size_t n = 0;
    while (n < 64 && hoodie_pq_scan_next(sc, &all[n]) == HOODIE_OK) n++;
    hoodie_pq_scan_free(sc);
    hoodie_parquet_reader_free(r);
    const char *keys[] = { "parquet.avro.schema" }, *vals[] = { avro };
    hoodie_parquet_write_opts po = HOODIE_PARQUET_WRITE_OPTS_INIT;
    po.kv_keys = keys;
    po.kv_values = vals;
    po.n_kv = 1;
    hoodie_pqwrite *w;
    hoodie_assert_ok(hoodie_pqwrite_open(&w, path, s, &all[0].schema, &po));
    for (size_t i = 0; i < n; i++) hoodie_assert_ok(hoodie_pqwrite_write_batch(w, &all[i]));
    hoodie_assert_ok(hoodie_pqwrite_close(w));
    hoodie_pqwrite_free(w);
    for (size_t i = 0; i < n; i++) hoodie_batch_dispose(&all[i]);
    free(avro);
}

/*
 * COW upsert into files whose key index cannot rule keys out: updates of keys the file holds and new keys that
 * only this file could hold. The new keys are inserted into the rewritten file (counted as inserts), the updates
 * replace their records, and the table reads as the same writes into a table with intact indexes.
 */
HOODIE_TEST(write_writer__cow_single_candidate_unread)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    const char *bases[2] = { "/sc_plain", "/sc_stripped" };
    rows_spec a = { 1, 300, 10, "a", NULL, 0 }, u = { 280, 330, 20, "u", NULL, 0 }; /* 21 updates, 30 new keys */
    g_bloom_entries = 100;
    char *snaps[2];
    hoodie_write_result res[2];
    for (int t = 0; t < 2; t++) {
        make_table(bases[t], mem, 0, 8);
        hoodie_assert_ok(write_rows(bases[t], mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
        if (t == 1) {
            hoodie_table *tb;
            hoodie_slices *sl;
            open_slices(bases[t], mem, &tb, &sl);
            for (size_t i = 0; i < hoodie_slices_count(sl); i++) {
                hoodie_slice_info si;
                hoodie_assert_ok(hoodie_slices_get(sl, i, &si));
                if (si.latest && si.base_file) strip_key_index(mem, si.base_file);
            }
            hoodie_slices_free(sl);
            hoodie_table_free(tb);
        }
        hoodie_assert_ok(write_rows(bases[t], mem, HOODIE_WRITE_UPSERT, &u, &res[t]));
        snaps[t] = snapshot(bases[t], mem, 0);
    }
    g_bloom_entries = 0;
    hoodie_assert_equal_s(snaps[0], snaps[1]);
    hoodie_assert_equal_i(30, res[1].inserts);
    hoodie_assert_equal_i(21, res[1].updates);
    hoodie_assert_equal_i(res[0].inserts, res[1].inserts);
    /* the new keys went into the partitions' existing groups (no new file group) */
    size_t ids, logs;
    file_ids(bases[1], mem, &ids, &logs);
    hoodie_assert_equal_i(3, ids);
    free(snaps[0]);
    free(snaps[1]);
    hoodie_storage_free(mem);
}

static size_t g_no_meta_rows;

/* A base file of a table without meta fields: no key index in the footer, meta columns null but the file name. */
static void check_no_meta_file(const hoodie_storage *s, const char *path)
{
    hoodie_parquet_reader *r;
    hoodie_pq_scan *sc;
    open_scan(s, path, &r, &sc);
    hoodie_assert(hoodie_parquet_reader_kv(r, "parquet.avro.schema") != NULL);
    hoodie_assert(hoodie_parquet_reader_kv(r, "org.apache.hudi.bloomfilter") == NULL);
    hoodie_assert(hoodie_parquet_reader_kv(r, "hoodie_min_record_key") == NULL);
    hoodie_batch b;
    while (hoodie_pq_scan_next(sc, &b) == HOODIE_OK) {
        hoodie_assert_equal_s("_hoodie_record_key", b.schema.children[2].name);
        for (int64_t row = 0; row < b.root.length; row++) {
            for (int c = 0; c < 4; c++) hoodie_assert(!hoodie_array_is_valid(&b.root.children[c], row));
            hoodie_assert(hoodie_array_is_valid(&b.root.children[4], row));
        }
        g_no_meta_rows += (size_t)b.root.length;
        hoodie_batch_dispose(&b);
    }
    hoodie_pq_scan_free(sc);
    hoodie_parquet_reader_free(r);
}

/*
 * A copy-on-write table without meta fields (hoodie.populate.meta.fields=false): the writer forms keys from the key
 * fields (SIMPLE index: every base file of a written partition read for them), writes the meta columns null but the
 * file name, and no key index in the footers. Upserts with newer and stale ordering values and deletes read back
 * as in a table with meta fields, record keys and partition paths formed by the reader. MOR is refused clearly.
 */
HOODIE_TEST(write_writer__no_meta_fields)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    const char *bases[2] = { "/nm_meta", "/nm_none" };
    rows_spec a = { 1, 300, 10, "a", NULL, 0 }, u = { 280, 330, 20, "u", NULL, 0 }, st = { 1, 20, 5, "s", NULL, 0 },
              d = { 100, 109, 0, "d", NULL, 0 };
    char *snaps[2];
    hoodie_write_result res[4][2];
    for (int t = 0; t < 2; t++) {
        g_no_meta = t;
        make_table(bases[t], mem, 0, 8);
        g_no_meta = 0;
        hoodie_assert_ok(write_rows(bases[t], mem, HOODIE_WRITE_BULK_INSERT, &a, &res[0][t]));
        hoodie_assert_ok(write_rows(bases[t], mem, HOODIE_WRITE_UPSERT, &u, &res[1][t]));  /* 21 updates, 30 new */
        hoodie_assert_ok(write_rows(bases[t], mem, HOODIE_WRITE_UPSERT, &st, &res[2][t])); /* stale: none win */
        hoodie_assert_ok(write_rows(bases[t], mem, HOODIE_WRITE_DELETE, &d, &res[3][t]));
        snaps[t] = snapshot(bases[t], mem, 0);
    }
    hoodie_assert_equal_s(snaps[0], snaps[1]);
    hoodie_assert(strstr(snaps[1], ",u300,") && !strstr(snaps[1], ",s1,") && !strstr(snaps[1], ",a105,"));
    for (int i = 0; i < 4; i++) {
        hoodie_assert_equal_i(res[i][0].inserts, res[i][1].inserts);
        hoodie_assert_equal_i(res[i][0].updates, res[i][1].updates);
        hoodie_assert_equal_i(res[i][0].deletes, res[i][1].deletes);
    }
    hoodie_assert_equal_i(21, res[1][1].updates);
    hoodie_assert_equal_i(30, res[1][1].inserts);
    hoodie_assert_equal_i(10, res[3][1].deletes);
    /* the base files: no key index; meta columns null, but the file name */
    g_no_meta_rows = 0;
    each_base_file(bases[1], mem, check_no_meta_file);
    hoodie_assert_equal_i(320, g_no_meta_rows);
    /* merge-on-read: refused, the table unchanged */
    g_no_meta = 1;
    make_table("/nm_mor", mem, 1, 8);
    g_no_meta = 0;
    hoodie_status rc = write_rows("/nm_mor", mem, HOODIE_WRITE_BULK_INSERT, &a, NULL);
    hoodie_assert_equal_i(HOODIE_EUNSUPPORTED, rc);
    hoodie_assert(strstr(hoodie_error_last()->message, "hoodie.populate.meta.fields=false") != NULL);
    hoodie_error_clear();
    free(snaps[0]);
    free(snaps[1]);
    hoodie_storage_free(mem);
}

/* Upserts of thousands of keys per partition (the index sorts them by radix on 8-byte prefixes, then by the whole
 * key where prefixes tie): 9-digit keys share their first 8 bytes ten at a time, the files' key ranges end inside
 * such runs, and every update is found. */
static void many_keys_case(int mor)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    rows_spec a = { 100000005, 100003004, 10, "a", NULL, 0 }, u = { 100001505, 100004504, 20, "u", NULL, 0 };
    hoodie_write_result res;
    make_table("/many", mem, mor, 8);
    g_scramble = 1;
    hoodie_assert_ok(write_rows("/many", mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
    hoodie_assert_ok(write_rows("/many", mem, HOODIE_WRITE_UPSERT, &u, &res));
    g_scramble = 0;
    hoodie_assert_equal_i(1500, res.updates);
    hoodie_assert_equal_i(1500, res.inserts);
    char *snap = snapshot("/many", mem, 0);
    size_t lines = 0;
    for (const char *p = snap; *p; p++) lines += *p == '\n';
    hoodie_assert_equal_i(4500, lines);
    hoodie_assert(strstr(snap, "100001504,a100001504,") != NULL);
    hoodie_assert(strstr(snap, "100001505,u100001505,") != NULL);
    hoodie_assert(strstr(snap, "100003004,u100003004,") != NULL);
    free(snap);
    hoodie_storage_free(mem);
}
HOODIE_TEST(write_writer__many_keys_cow) { many_keys_case(0); }
HOODIE_TEST(write_writer__many_keys_mor) { many_keys_case(1); }

/* The MOR exact check merges a sorted base file's keys with the sorted candidates, and a file whose keys fall
 * part way (inserts a small-file merge appended after the file's rows) switches to the hash map: every update
 * is found either side of the fall, and across the 65,536-row scan batches of 80,000-row files. */
HOODIE_TEST(write_writer__mor_lookup_sorted_then_falling_keys)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    enum { B = 100000000 };
    rows_spec a = { B + 60000, B + 299999, 10, "a", NULL, 0 };  /* 80,000 sorted keys per city */
    rows_spec u1 = { B + 59000, B + 60999, 20, "v", NULL, 0 }; /* 1,000 lower keys (inserts), 1,000 updates */
    rows_spec u2 = { B + 59500, B + 60499, 30, "w", NULL, 0 }; /* 500 after the fall, 500 before: all updates */
    hoodie_write_result res;
    make_table("/fall", mem, 1, 8);
    hoodie_assert_ok(write_rows("/fall", mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
    hoodie_assert_ok(write_rows("/fall", mem, HOODIE_WRITE_UPSERT, &u1, &res));
    hoodie_assert_equal_i(1000, res.updates);
    hoodie_assert_equal_i(1000, res.inserts);
    hoodie_assert_ok(write_rows("/fall", mem, HOODIE_WRITE_UPSERT, &u2, &res));
    hoodie_assert_equal_i(1000, res.updates);
    hoodie_assert_equal_i(0, res.inserts);
    char *snap = snapshot("/fall", mem, 0);
    size_t lines = 0, w = 0;
    for (const char *p = snap; *p; p++) lines += *p == '\n';
    for (const char *p = snap; (p = strstr(p, ",w1")); p++) w++;
    hoodie_assert_equal_i(241000, lines);
    hoodie_assert_equal_i(1000, w);
    hoodie_assert(strstr(snap, ",w100059500,") && strstr(snap, ",w100060499,") && strstr(snap, ",v100059499,"));
    free(snap);
    hoodie_storage_free(mem);
}

/*
 * New keys inside base files' key ranges (the even ids are stored, odd ids are new): a MOR lookup tests a file's
 * bloom filter only until one candidate may be present (in its Base64 text; decoded after 4,096 that may all be
 * absent), then leaves the rest to the exact check; with more candidates than the file has rows, every one is
 * tested. Each case, on a fresh MOR table and a COW twin (whose lookup tests every candidate): the same counts and
 * rows.
 */
HOODIE_TEST(write_writer__mor_lookup_new_keys_inside_key_ranges)
{
    enum { B = 100000000 };
    static const struct {
        rows_spec up;
        int64_t step, updates, inserts;
    } cases[] = {
        { { B + 1, B + 20001, 20, "u", NULL, 0 }, 2, 0, 10001 },      /* ~3,300 a file, all absent */
        { { B + 1, B + 40001, 20, "u", NULL, 0 }, 2, 0, 20001 },      /* ~6,700 a file: past 4,096 */
        { { B + 30001, B + 40001, 20, "u", NULL, 0 }, 1, 5000, 5001 }, /* absent, present, absent, ... */
        { { B + 0, B + 100000, 20, "u", NULL, 0 }, 1, 36001, 64000 },  /* twice a file's rows in its range */
    };
    rows_spec base = { B + 0, B + 72000, 10, "a", NULL, 0 }; /* the even ids: 12,000 keys a city */
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *snap[2];
        for (int mor = 0; mor < 2; mor++) {
            char path[32];
            snprintf(path, sizeof path, "/inr%zu_%d", c, mor);
            make_table(path, mem, mor, 8);
            g_step = 2;
            hoodie_assert_ok(write_rows(path, mem, HOODIE_WRITE_BULK_INSERT, &base, NULL));
            hoodie_write_result res;
            g_step = cases[c].step;
            hoodie_assert_ok(write_rows(path, mem, HOODIE_WRITE_UPSERT, &cases[c].up, &res));
            g_step = 1;
            hoodie_assert_equal_i(cases[c].updates, res.updates);
            hoodie_assert_equal_i(cases[c].inserts, res.inserts);
            snap[mor] = snapshot(path, mem, 0);
            size_t lines = 0;
            for (const char *p = snap[mor]; *p; p++) lines += *p == '\n';
            hoodie_assert_equal_i(36001 + cases[c].inserts, lines);
        }
        hoodie_assert_equal_s(snap[0], snap[1]);
        free(snap[0]);
        free(snap[1]);
    }
    hoodie_storage_free(mem);
}

/* Rows a point lookup of `key` returns, and the storage operations it took (`fs`: a counting storage). */
static int64_t get_counting(const char *base, hoodie_storage *fs, const char *key, uint64_t *ops)
{
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = fs;
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, base, &to));
    uint64_t before = hoodie_storage_faulty_count(fs);
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_table_get(t, &key, 1, &st));
    hoodie_arrow_reader r;
    hoodie_assert_ok(hoodie_arrow_reader_open(&r, &st));
    hoodie_batch b;
    int64_t rows = 0;
    hoodie_status rc;
    while ((rc = hoodie_arrow_reader_next(&r, &b)) == HOODIE_OK) {
        rows += b.root.length;
        hoodie_batch_dispose(&b);
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
    hoodie_arrow_reader_close(&r);
    *ops = hoodie_storage_faulty_count(fs) - before;
    hoodie_table_free(t);
    return rows;
}

/*
 * A point lookup reads no row group of a base file whose bloom filter holds none of the keys. Two bulk inserts
 * (odd ids, then even ids) give each city two files whose key ranges overlap, so statistics prune neither: a key
 * inside both ranges but in neither file costs the footers and filters only (as a key outside every range does,
 * plus one read of each file's filter text), fewer operations than a key one file holds.
 */
HOODIE_TEST(write_writer__point_lookup_skips_base_files_by_bloom_filter)
{
    hoodie_storage *mem, *fs;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    hoodie_assert_ok(hoodie_storage_faulty_new(&fs, mem));
    rows_spec odd = { 1, 2999, 10, "a", NULL, 0 }, even = { 2, 3000, 10, "b", NULL, 0 };
    make_table("/pl", mem, 0, 8);
    g_step = 2;
    hoodie_assert_ok(write_rows("/pl", mem, HOODIE_WRITE_BULK_INSERT, &odd, NULL));
    hoodie_assert_ok(write_rows("/pl", mem, HOODIE_WRITE_BULK_INSERT, &even, NULL));
    g_step = 1;
    uint64_t present, absent, outside;
    hoodie_assert_equal_i(1, get_counting("/pl", fs, "1501", &present));
    hoodie_assert_equal_i(1, get_counting("/pl", fs, "2000", &present));
    hoodie_assert_equal_i(0, get_counting("/pl", fs, "15015", &absent)); /* between "1" and "999": in range */
    hoodie_assert_equal_i(0, get_counting("/pl", fs, "0", &outside));    /* below every range */
    hoodie_assert(absent < present);
    hoodie_assert(absent <= outside + 6); /* 6 base files */
    hoodie_storage_free(fs);
    hoodie_storage_free(mem);
}

/* Counts of Avro and Parquet data blocks in a slice's log files (ctx: size_t[2]). */
static void count_data_blocks(const hoodie_storage *s, const hoodie_slice_info *si, void *ctx)
{
    size_t *n = ctx;
    for (size_t k = 0; k < si->n_log_files; k++) {
        hoodie_buf b = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_storage_read_all(s, si->log_files[k], &b));
        hoodie_hlog_iter it;
        hoodie_hlog_block blk;
        hoodie_assert_ok(hoodie_hlog_iter_init(&it, b.data, b.len, si->log_files[k]));
        while (hoodie_hlog_iter_next(&it, &blk) == HOODIE_OK) {
            if (blk.type == HOODIE_HLOG_AVRO_DATA_BLOCK) n[0]++;
            if (blk.type != HOODIE_HLOG_PARQUET_DATA_BLOCK) continue;
            n[1]++;
            const uint8_t *pq;
            size_t pq_len;
            hoodie_assert_ok(hoodie_hlog_parquet_content(&blk, si->log_files[k], &pq, &pq_len));
            hoodie_assert(pq_len > 8 && !memcmp(pq, "PAR1", 4)); /* an embedded Parquet file */
        }
        hoodie_hlog_iter_dispose(&it);
        hoodie_buf_dispose(&b);
    }
}

/* MOR updates as Parquet data blocks (hoodie.logfile.data.block.format=parquet), alone and mixed with Avro blocks
 * in one slice, with a delete block after them: the table reads as its twin written with Avro blocks, before and
 * after compaction. */
HOODIE_TEST(write_writer__mor_parquet_data_blocks)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    rows_spec a = { 1, 3000, 10, "a", NULL, 0 }, u = { 1, 900, 20, "u", NULL, 0 }, v = { 500, 1200, 30, "v", NULL, 0 };
    rows_spec stale = { 1, 100, 5, "s", NULL, 0 }, d = { 1100, 1150, 40, "", NULL, 0 };
    char *want = NULL;
    for (int pass = 0; pass < 2; pass++) {
        const char *base = pass ? "/pqb" : "/avb";
        make_table(base, mem, 1, 8);
        hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
        g_log_blocks = pass ? HOODIE_LOG_BLOCK_PARQUET : HOODIE_LOG_BLOCK_AVRO;
        hoodie_write_result res;
        hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &u, &res));
        hoodie_assert_equal_i(900, res.updates);
        g_log_blocks = HOODIE_LOG_BLOCK_AVRO;
        hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &v, NULL)); /* Avro after Parquet */
        g_log_blocks = pass ? HOODIE_LOG_BLOCK_PARQUET : HOODIE_LOG_BLOCK_AVRO;
        hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_UPSERT, &stale, NULL)); /* older ts: loses */
        hoodie_assert_ok(write_rows(base, mem, HOODIE_WRITE_DELETE, &d, NULL));
        g_log_blocks = HOODIE_LOG_BLOCK_AVRO;
        size_t blocks[2] = { 0, 0 }; /* Avro, Parquet */
        each_latest_slice(base, mem, count_data_blocks, blocks);
        hoodie_assert(blocks[0] > 0);
        if (pass) hoodie_assert(blocks[1] > 0);
        else hoodie_assert_equal_i(0, blocks[1]);
        char *snap = snapshot(base, mem, 0);
        if (!pass) want = snap;
        else {
            hoodie_assert_equal_s(want, snap);
            /* log compaction into one Parquet block per slice (its deletes first, as always) */
            hoodie_service_opts lo = HOODIE_SERVICE_OPTS_INIT;
            lo.storage = mem;
            lo.log_blocks_threshold = 2;
            lo.log_block_format = HOODIE_LOG_BLOCK_PARQUET;
            hoodie_assert_ok(hoodie_log_compaction(base, &lo, NULL));
            size_t after_lc[2] = { 0, 0 };
            each_latest_slice(base, mem, count_data_blocks, after_lc);
            hoodie_assert(after_lc[1] > blocks[1]); /* the compacted files' blocks are Parquet */
            char *lc = snapshot(base, mem, 0);
            hoodie_assert_equal_s(want, lc);
            free(lc);
            compact_all(base, mem);
            char *after = snapshot(base, mem, 0);
            hoodie_assert_equal_s(want, after);
            free(after);
            free(snap);
        }
    }
    hoodie_assert(strstr(want, ",s1,") == NULL && strstr(want, ",u1,") && strstr(want, ",v1200,"));
    hoodie_assert(strstr(want, ",v1100,") == NULL);
    free(want);
    hoodie_storage_free(mem);
}

/* ---- several writers: a second write runs while the first is in flight ----
 *
 * The interleaving is exact: a storage that, when the first write creates its inflight instant file, runs the second
 * write (through the plain storage underneath) to its end, then lets the first one go on. */

static hoodie_storage *g_under;                  /* the memory storage both writes share */
static void (*g_meanwhile)(void);                /* run once, when the first write goes inflight */

static const char *g_hook_suffix = ".inflight";  /* the file whose creation runs g_meanwhile */

static hoodie_status hook_create(void *ctx, const char *path, unsigned flags, hoodie_wfile **out)
{
    size_t n = strlen(path), k = strlen(g_hook_suffix);
    if (g_meanwhile && n > k && !strcmp(path + n - k, g_hook_suffix)) {
        void (*run)(void) = g_meanwhile;
        g_meanwhile = NULL;
        run();
    }
    return g_under->create(ctx, path, flags, out);
}

static rows_spec g_second_rows;
static hoodie_write_operation g_second_op;
static hoodie_status g_second_rc;
static hoodie_write_result g_second_res;

static void second_write(void)
{
    g_second_rc = write_rows("/tbl", g_under, g_second_op, &g_second_rows, &g_second_res);
    if (g_second_rc < 0) fprintf(stderr, "second write: %s\n", hoodie_error_last()->message);
}

static void schedule_compaction(void)
{
    hoodie_service_opts so = HOODIE_SERVICE_OPTS_INIT;
    hoodie_service_result sr;
    so.storage = g_under;
    g_second_rc = hoodie_compaction_schedule("/tbl", &so, &sr);
    if (g_second_rc == HOODIE_OK && !sr.instant[0]) g_second_rc = HOODIE_ENOTFOUND; /* nothing planned */
}

/* The first write `op1 rows1` with `meanwhile` run while it is inflight; returns its status; *table the rows after
 * (key and data columns). */
static hoodie_status interleave(int mor, int version, hoodie_write_operation op1, rows_spec rows1,
                                void (*meanwhile)(void), char **table, hoodie_write_result *res1)
{
    hoodie_assert_ok(hoodie_storage_mem_new(&g_under));
    prepare("/tbl", g_under, mor, version);
    hoodie_storage hook = *g_under;
    hook.create = hook_create;
    hook.destroy = NULL;
    g_meanwhile = meanwhile;
    g_second_rc = HOODIE_ERROR;
    hoodie_status rc = write_rows("/tbl", &hook, op1, &rows1, res1);
    hoodie_assert(g_meanwhile == NULL); /* the second write ran */
    *table = snapshot("/tbl", g_under, 0);
    return rc;
}

/* The same writes one after the other, no interleaving: the table they give. */
static char *in_turn(int mor, int version, const wstep *steps, size_t n)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    prepare("/tbl", mem, mor, version);
    for (size_t i = 0; i < n; i++) hoodie_assert_ok(write_rows("/tbl", mem, steps[i].op, &steps[i].rows, NULL));
    char *t = snapshot("/tbl", mem, 0);
    hoodie_storage_free(mem);
    return t;
}

static void conflict_case(int mor, int version)
{
    /* both update ids 1..6: the second commits first; the first then finds its file groups changed */
    rows_spec a = { 1, 6, 50, "x", NULL, 0 }, b = { 1, 6, 60, "y", NULL, 0 };
    g_second_op = HOODIE_WRITE_UPSERT;
    g_second_rows = b;
    char *got;
    hoodie_write_result r1;
    hoodie_status rc = interleave(mor, version, HOODIE_WRITE_UPSERT, a, second_write, &got, &r1);
    hoodie_assert_ok(g_second_rc);
    hoodie_assert_equal_i(0, (int64_t)g_second_res.rolled_back); /* the first write was alive: left alone */
    hoodie_assert_status(HOODIE_ECONFLICT, rc);
    hoodie_assert_contains(hoodie_error_last()->message, "write conflict: file group");
    /* found at commit, by the other instant; or, v6 MOR, when the log file name it chose was taken */
    if (mor && version == 6) hoodie_assert_contains(hoodie_error_last()->message, "appeared");
    else hoodie_assert_contains(hoodie_error_last()->message, g_second_res.instant);
    wstep only_b[] = { { HOODIE_WRITE_UPSERT, b } };
    char *want = in_turn(mor, version, only_b, 1);
    hoodie_assert_equal_s(want, got); /* the second write's rows, nothing of the first */
    /* the next write rolls the first one back, and the table holds the second write's rows */
    rows_spec c = { 7, 8, 70, "z", NULL, 0 };
    hoodie_write_result r3;
    hoodie_assert_ok(write_rows("/tbl", g_under, HOODIE_WRITE_UPSERT, &c, &r3));
    hoodie_assert_equal_i(1, (int64_t)r3.rolled_back);
    wstep b_then_c[] = { { HOODIE_WRITE_UPSERT, b }, { HOODIE_WRITE_UPSERT, c } };
    char *want2 = in_turn(mor, version, b_then_c, 2), *got2 = snapshot("/tbl", g_under, 0);
    hoodie_assert_equal_s(want2, got2);
    free(want); free(got); free(want2); free(got2);
    hoodie_storage_free(g_under);
}

HOODIE_TEST(write_writer__concurrent_conflict_cow_v8) { conflict_case(0, 8); }
HOODIE_TEST(write_writer__concurrent_conflict_mor_v8) { conflict_case(1, 8); }
HOODIE_TEST(write_writer__concurrent_conflict_cow_v6) { conflict_case(0, 6); }
HOODIE_TEST(write_writer__concurrent_conflict_mor_v6) { conflict_case(1, 6); }

static void disjoint_case(int mor, int version, hoodie_write_operation op, rows_spec a, rows_spec b)
{
    g_second_op = op;
    g_second_rows = b;
    char *got;
    hoodie_write_result r1;
    hoodie_status rc = interleave(mor, version, op, a, second_write, &got, &r1);
    if (rc < 0) fprintf(stderr, "first write: %s\n", hoodie_error_last()->message);
    hoodie_assert_ok(rc);
    hoodie_assert_ok(g_second_rc);
    hoodie_assert_equal_i(0, (int64_t)g_second_res.rolled_back);
    wstep both[] = { { op, b }, { op, a } };
    char *want = in_turn(mor, version, both, 2);
    hoodie_assert_equal_s(want, got); /* both writes' rows */
    free(want); free(got);
    hoodie_storage_free(g_under);
}

HOODIE_TEST(write_writer__concurrent_disjoint_partitions)
{
    /* updates of different partitions (city) touch different file groups: both commit */
    for (int mor = 0; mor <= 1; mor++)
        for (int v = 6; v <= 8; v += 2) {
            rows_spec a = { 1, 12, 50, "x", "sf", 0 }, b = { 1, 12, 60, "y", "la", 0 };
            disjoint_case(mor, v, HOODIE_WRITE_UPSERT, a, b);
        }
}

HOODIE_TEST(write_writer__concurrent_bulk_inserts)
{
    /* bulk inserts open new file groups only: never a conflict */
    rows_spec a = { 100, 130, 50, "x", NULL, 0 }, b = { 200, 230, 60, "y", NULL, 0 };
    disjoint_case(1, 8, HOODIE_WRITE_BULK_INSERT, a, b);
    disjoint_case(0, 6, HOODIE_WRITE_BULK_INSERT, a, b);
}

HOODIE_TEST(write_writer__concurrent_compaction_plan_conflicts)
{
    /* a compaction planned while a MOR upsert is in flight names the file groups the upsert appends to */
    rows_spec a = { 1, 6, 50, "x", NULL, 0 };
    char *got;
    hoodie_write_result r1;
    hoodie_status rc = interleave(1, 8, HOODIE_WRITE_UPSERT, a, schedule_compaction, &got, &r1);
    hoodie_assert_ok(g_second_rc);
    hoodie_assert_status(HOODIE_ECONFLICT, rc);
    hoodie_assert_contains(hoodie_error_last()->message, "compaction plan");
    free(got);
    hoodie_storage_free(g_under);
}

/* ---- a restore or a rollback while a write is in flight ----
 *
 * Restore and rollback run under the table lock and refuse a pending instant whose writer is alive (it would go on
 * writing into a table whose files were deleted, then complete); a write that read the table before a restore, or
 * before a rollback of a commit it saw, fails at its commit (it was made from file versions that are gone). */

static char g_first[24], g_latest[24], g_pending[24]; /* the bulk insert (savepointed), the upsert, the write's */
static char g_second_msg[512];

static hoodie_service_opts under_opts(void)
{
    hoodie_service_opts so = HOODIE_SERVICE_OPTS_INIT;
    so.storage = g_under;
    return so;
}

static void keep_second_msg(void)
{
    snprintf(g_second_msg, sizeof g_second_msg, "%s", g_second_rc < 0 ? hoodie_error_last()->message : "");
}

static void restore_meanwhile(void)
{
    hoodie_service_opts so = under_opts();
    hoodie_service_result sr;
    g_second_rc = hoodie_restore("/tbl", &so, g_first, &sr);
    keep_second_msg();
}

static void rollback_latest_meanwhile(void)
{
    hoodie_service_opts so = under_opts();
    hoodie_service_result sr;
    g_second_rc = hoodie_rollback("/tbl", &so, g_latest, &sr);
    keep_second_msg();
}

static void rollback_pending_meanwhile(void)
{
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = g_under;
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, "/tbl", &to));
    g_pending[0] = 0;
    for (size_t i = 0; i < hoodie_table_instant_count(t); i++) {
        hoodie_instant_info in;
        hoodie_assert_ok(hoodie_table_instant(t, i, &in));
        if (strcmp(in.state, "completed")) snprintf(g_pending, sizeof g_pending, "%s", in.requested);
    }
    hoodie_table_free(t);
    hoodie_assert(g_pending[0]);
    hoodie_service_opts so = under_opts();
    hoodie_service_result sr;
    g_second_rc = hoodie_rollback("/tbl", &so, g_pending, &sr);
    keep_second_msg();
}

/* The upsert of ids 1..6 with `meanwhile` run when it creates a file ending in `at`: the statuses of both. */
static void undo_case(int mor, int version, const char *at, void (*meanwhile)(void), hoodie_status want_write,
                      hoodie_status want_other, const char *want_msg)
{
    hoodie_assert_ok(hoodie_storage_mem_new(&g_under));
    prepare("/tbl", g_under, mor, version); /* bulk insert "a" of 1..40, then upsert "b" of 1..6 */
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = g_under;
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, "/tbl", &to));
    hoodie_instant_info in;
    hoodie_assert_ok(hoodie_table_instant(t, 0, &in));
    snprintf(g_first, sizeof g_first, "%s", in.requested);
    hoodie_assert_ok(hoodie_table_instant(t, hoodie_table_instant_count(t) - 1, &in));
    snprintf(g_latest, sizeof g_latest, "%s", in.requested);
    hoodie_table_free(t);
    hoodie_service_opts so = under_opts();
    hoodie_service_result sr;
    hoodie_assert_ok(hoodie_savepoint_create("/tbl", &so, g_first, &sr));
    char *was = snapshot("/tbl", g_under, 0);
    hoodie_storage hook = *g_under;
    hook.create = hook_create;
    hook.destroy = NULL;
    g_hook_suffix = at;
    g_meanwhile = meanwhile;
    g_second_rc = HOODIE_ERROR;
    rows_spec a = { 1, 6, 50, "x", NULL, 0 };
    hoodie_status rc = write_rows("/tbl", &hook, HOODIE_WRITE_UPSERT, &a, NULL);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", rc < 0 ? hoodie_error_last()->message : "");
    g_hook_suffix = ".inflight";
    hoodie_assert(g_meanwhile == NULL); /* it ran (or there was none: g_pre runs it) */
    if (g_second_rc != want_other) fprintf(stderr, "restore/rollback: %s\n", g_second_msg);
    hoodie_assert_equal_i(want_other, g_second_rc);
    if (rc != want_write) { /* what happened, for the failure */
        fprintf(stderr, "write: %s\n", msg);
        hoodie_table *dt;
        char *txt;
        if (hoodie_table_open(&dt, "/tbl", &to) == HOODIE_OK) {
            if (hoodie_table_timeline_render(dt, 0, &txt) == HOODIE_OK) { fprintf(stderr, "%s\n", txt); free(txt); }
            hoodie_table_free(dt);
        }
    }
    hoodie_assert_equal_i(want_write, rc);
    hoodie_assert_contains(want_write < 0 ? msg : g_second_msg, want_msg);
    char *got = snapshot("/tbl", g_under, 0);
    if (want_write == HOODIE_OK) { /* the restore or rollback did nothing; the write committed */
        hoodie_assert(strstr(got, ",x1,") && !strstr(was, ",x1,"));
    } else { /* the restore or rollback took place; nothing of the write */
        hoodie_assert(!strstr(got, ",x1,"));
        hoodie_assert(!strstr(got, ",b1,") && strstr(was, ",b1,") && strstr(got, ",a1,"));
        /* the next write rolls the refused one back and commits */
        rows_spec c = { 7, 8, 70, "z", NULL, 0 };
        hoodie_write_result r3;
        hoodie_assert_ok(write_rows("/tbl", g_under, HOODIE_WRITE_UPSERT, &c, &r3));
        hoodie_assert_equal_i(1, (int64_t)r3.rolled_back);
    }
    free(was);
    free(got);
    hoodie_storage_free(g_under);
}

HOODIE_TEST(write_writer__restore_after_the_write_read_conflicts)
{
    for (int mor = 0; mor <= 1; mor++)
        for (int v = 6; v <= 8; v += 2)
            undo_case(mor, v, ".requested", restore_meanwhile, HOODIE_ECONFLICT, HOODIE_OK, "was restored");
}

HOODIE_TEST(write_writer__rollback_of_a_read_commit_conflicts)
{
    undo_case(0, 8, ".requested", rollback_latest_meanwhile, HOODIE_ECONFLICT, HOODIE_OK, "was rolled back");
    undo_case(1, 6, ".requested", rollback_latest_meanwhile, HOODIE_ECONFLICT, HOODIE_OK, "was rolled back");
}

/* The rollback runs when every file of the write is written (its pre-commit check): a copy-on-write merge has read
 * the rolled-back commit's file versions, so committing would bring its records back. */
static hoodie_status rollback_at_pre_commit(void *ctx, hoodie_precommit *pc)
{
    (void)ctx;
    (void)pc;
    rollback_latest_meanwhile();
    return HOODIE_OK;
}

HOODIE_TEST(write_writer__rollback_before_commit_conflicts)
{
    for (int mor = 0; mor <= 1; mor++) {
        g_pre = rollback_at_pre_commit;
        undo_case(mor, mor ? 6 : 8, ".never", NULL, HOODIE_ECONFLICT, HOODIE_OK, "was rolled back");
        g_pre = NULL;
    }
}

HOODIE_TEST(write_writer__restore_and_rollback_leave_a_live_write_alone)
{
    for (int mor = 0; mor <= 1; mor++) {
        undo_case(mor, 8, ".inflight", restore_meanwhile, HOODIE_OK, HOODIE_ECONFLICT, "live writer");
        undo_case(mor, 6, ".inflight", rollback_pending_meanwhile, HOODIE_OK, HOODIE_ECONFLICT, "live writer");
    }
}

/* ---- a write that completes while a table service plans ----
 *
 * The service has read the table when the write runs: the hook (hook_create) runs it when the service first
 * creates the table lock (its recovery of dead writers, just after it loaded the timeline). Planning under the lock on a fresh
 * timeline, the plan takes the write's files; planned on the timeline read before, a compaction left the write's
 * log files in the slice it closed and a clustering rewrote the file versions before the write's: updates lost. */

static void service_sees_write(int mor, int version)
{
    hoodie_assert_ok(hoodie_storage_mem_new(&g_under));
    prepare("/tbl", g_under, mor, version);
    rows_spec more = { 41, 60, 20, "m", NULL, 0 }, b = { 1, 6, 60, "y", NULL, 0 };
    if (!mor) hoodie_assert_ok(write_rows("/tbl", g_under, HOODIE_WRITE_BULK_INSERT, &more, NULL)); /* 2 groups */
    g_second_op = HOODIE_WRITE_UPSERT;
    g_second_rows = b;
    g_second_rc = HOODIE_ERROR;
    g_meanwhile = second_write;
    hoodie_storage hook = *g_under;
    hook.create = hook_create;
    hook.destroy = NULL;
    g_hook_suffix = "/.hoodie/lock";
    hoodie_service_opts so = HOODIE_SERVICE_OPTS_INIT;
    so.storage = &hook;
    hoodie_service_result sr;
    if (mor) {
        hoodie_assert_ok(hoodie_compaction_schedule("/tbl", &so, &sr));
        hoodie_assert(sr.instant[0] != 0);
        so.storage = g_under;
        hoodie_assert_ok(hoodie_compaction_run("/tbl", &so, sr.instant, NULL));
    } else {
        hoodie_assert_ok(hoodie_clustering("/tbl", &so, &sr));
        hoodie_assert(sr.file_groups > 0);
    }
    g_hook_suffix = ".inflight";
    hoodie_assert(g_meanwhile == NULL); /* the write ran, and committed */
    hoodie_assert_ok(g_second_rc);
    wstep steps[] = { { HOODIE_WRITE_BULK_INSERT, more }, { HOODIE_WRITE_UPSERT, b } };
    char *want = mor ? in_turn(mor, version, steps + 1, 1) : in_turn(mor, version, steps, 2);
    char *got = snapshot("/tbl", g_under, 0);
    hoodie_assert_equal_s(want, got);
    free(want);
    free(got);
    hoodie_storage_free(g_under);
}

HOODIE_TEST(write_writer__compaction_plans_completed_writes)
{
    service_sees_write(1, 8);
    service_sees_write(1, 6);
}

HOODIE_TEST(write_writer__clustering_plans_completed_writes)
{
    service_sees_write(0, 8);
    service_sees_write(0, 6);
}

HOODIE_TEST(write_writer__pending_clustering_refuses_updates)
{
    /* a clustering that died after planning (v8: a pending clustering instant) still owns its file groups: updates
     * and deletes of them are refused, as Hudi's SparkRejectUpdateStrategy does, and inserts go elsewhere; the next
     * clustering finishes the plan with every row */
    for (int mor = 0; mor <= 1; mor++) {
        hoodie_storage *mem = NULL, *fs = NULL;
        int pending = 0;
        rows_spec more = { 41, 60, 20, "m", NULL, 0 };
        for (uint64_t k = 1; k < 400 && !pending; k++) {
            if (fs) { hoodie_storage_free(fs); hoodie_storage_free(mem); }
            hoodie_assert_ok(hoodie_storage_mem_new(&mem));
            hoodie_assert_ok(hoodie_storage_faulty_new(&fs, mem));
            prepare("/tbl", mem, mor, 8);
            hoodie_assert_ok(write_rows("/tbl", mem, HOODIE_WRITE_BULK_INSERT, &more, NULL)); /* 2 groups each */
            hoodie_service_opts so = HOODIE_SERVICE_OPTS_INIT;
            so.storage = fs;
            hoodie_storage_faulty_arm(fs, HOODIE_FAULT_CRASH_AT, k);
            if (hoodie_clustering("/tbl", &so, NULL) == HOODIE_OK) break; /* past the last operation */
            hoodie_error_clear();
            hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
            to.storage = mem;
            hoodie_table *t;
            hoodie_assert_ok(hoodie_table_open(&t, "/tbl", &to));
            for (size_t i = 0; i < t->tl->count; i++)
                pending |= t->tl->instants[i].plan_action == HOODIE_ACTION_CLUSTERING &&
                           t->tl->instants[i].state != HOODIE_STATE_COMPLETED;
            hoodie_table_free(t);
        }
        hoodie_assert(pending);
        char *before = snapshot("/tbl", mem, 0);
        rows_spec u = { 1, 6, 50, "x", NULL, 0 }, ins = { 61, 65, 50, "n", NULL, 0 };
        hoodie_assert_status(HOODIE_ECONFLICT, write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &u, NULL));
        hoodie_assert_contains(hoodie_error_last()->message, "is being clustered (pending clustering");
        char *same = snapshot("/tbl", mem, 0);
        hoodie_assert_equal_s(before, same);
        hoodie_assert_ok(write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &ins, NULL)); /* inserts: new groups */
        hoodie_service_opts so = HOODIE_SERVICE_OPTS_INIT;
        so.storage = mem;
        hoodie_assert_ok(hoodie_clustering("/tbl", &so, NULL));
        hoodie_assert_ok(write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &u, NULL)); /* clustered: updates go in */
        wstep all[] = { { HOODIE_WRITE_BULK_INSERT, more }, { HOODIE_WRITE_UPSERT, ins }, { HOODIE_WRITE_UPSERT, u } };
        char *want = in_turn(mor, 8, all, 3), *got = snapshot("/tbl", mem, 0);
        hoodie_assert_equal_s(want, got);
        free(before); free(same); free(want); free(got);
        hoodie_storage_free(fs);
        hoodie_storage_free(mem);
    }
}

HOODIE_TEST(write_writer__extra_metadata_checkpoint)
{
    /* a stream's checkpoint in the commits' extraMetadata: the newest one that has it is read back */
    for (int v = 6; v <= 8; v += 2) {
        hoodie_storage *mem;
        hoodie_assert_ok(hoodie_storage_mem_new(&mem));
        make_table("/tbl", mem, 1, v);
        hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
        to.storage = mem;
        hoodie_table *t;
        char *val = NULL, inst[24];
        hoodie_assert_ok(hoodie_table_open(&t, "/tbl", &to));
        hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_table_commit_extra(t, "my.checkpoint", &val, inst, sizeof inst));
        hoodie_table_free(t);
        static const char *const cp1[] = { "my.checkpoint", "file-a:120", "other", "x", NULL };
        static const char *const cp2[] = { "my.checkpoint", "file-b:7", NULL };
        rows_spec a = { 1, 10, 10, "a", NULL, 0 }, b = { 5, 15, 20, "b", NULL, 0 }, c = { 1, 3, 30, "c", NULL, 0 };
        hoodie_write_result r2;
        g_extra = cp1;
        hoodie_assert_ok(write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &a, NULL));
        g_extra = cp2;
        hoodie_assert_ok(write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &b, &r2));
        g_extra = NULL;
        hoodie_assert_ok(write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &c, NULL)); /* a write without one */
        hoodie_assert_ok(hoodie_table_open(&t, "/tbl", &to));
        hoodie_assert_ok(hoodie_table_commit_extra(t, "my.checkpoint", &val, inst, sizeof inst));
        hoodie_assert_equal_s("file-b:7", val);
        hoodie_assert_equal_s(r2.instant, inst);
        free(val);
        hoodie_assert_ok(hoodie_table_commit_extra(t, "other", &val, NULL, 0));
        hoodie_assert_equal_s("x", val);
        free(val);
        hoodie_table_free(t);
        /* the writer's own key is refused */
        static const char *const bad[] = { "schema", "{}", NULL };
        g_extra = bad;
        hoodie_assert_status(HOODIE_EINVAL, write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &c, NULL));
        g_extra = NULL;
        hoodie_storage_free(mem);
    }
}

/* ---- the pre-commit check (hoodie_write_opts.pre_commit) ---- */

typedef struct pre_seen {
    hoodie_status verdict;  /* what the check answers */
    int calls;
    char *before, *after;   /* snapshots through pc->before / pc->after */
    char parts[256];        /* pc->partitions, joined by ',' */
    char instant[24], action[24];
    hoodie_write_operation op;
    hoodie_status create_rc; /* pc->after refuses changes */
} pre_seen;

static hoodie_status pre_check(void *ctx, hoodie_precommit *pc)
{
    pre_seen *p = ctx;
    p->calls++;
    free(p->before);
    free(p->after);
    p->before = snapshot(pc->base_path, pc->before, 0);
    p->after = snapshot(pc->base_path, pc->after, 0);
    p->parts[0] = 0;
    for (size_t i = 0; i < pc->n_partitions; i++)
        snprintf(p->parts + strlen(p->parts), sizeof p->parts - strlen(p->parts), "%s%s", i ? "," : "",
                 pc->partitions[i]);
    snprintf(p->instant, sizeof p->instant, "%s", pc->instant);
    snprintf(p->action, sizeof p->action, "%s", pc->action);
    p->op = pc->op;
    hoodie_wfile *f = NULL;
    char path[256];
    snprintf(path, sizeof path, "%s/x.txt", pc->base_path);
    p->create_rc = pc->after->create(pc->after->ctx, path, 0, &f);
    if (p->verdict != HOODIE_OK) snprintf(pc->message, pc->message_cap, "%d rows is too many", 41);
    return p->verdict;
}

/* Files anywhere under dir whose name holds `needle`. */
static size_t files_named(const hoodie_storage *s, const char *dir, const char *needle);
typedef struct fn_ctx { const hoodie_storage *s; const char *dir, *needle; size_t n; } fn_ctx;
static int fn_entry(const hoodie_dirent *e, void *payload)
{
    fn_ctx *c = payload;
    if (strstr(e->name, c->needle)) c->n++;
    if (e->is_dir) {
        char sub[512];
        snprintf(sub, sizeof sub, "%s/%s", c->dir, e->name);
        c->n += files_named(c->s, sub, c->needle);
    }
    return 0;
}
static size_t files_named(const hoodie_storage *s, const char *dir, const char *needle)
{
    fn_ctx c = { s, dir, needle, 0 };
    hoodie_assert_ok(s->list(s->ctx, dir, fn_entry, &c));
    return c.n;
}

static void pre_commit_case(int mor, int version)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    prepare("/tbl", mem, mor, version); /* ids 1..40 in sf, la, ny */
    pre_seen p = { HOODIE_OK, 0, NULL, NULL, "", "", "", 0, HOODIE_OK };
    g_pre = pre_check;
    g_pre_ctx = &p;
    /* accepted: shown the table before and after (ids 38..40 updated, 41..45 inserted; ny holds none of them) */
    char *was = snapshot("/tbl", mem, 0);
    rows_spec up = { 38, 45, 50, "u", NULL, 0 };
    g_step = 1;
    hoodie_write_result res;
    hoodie_assert_ok(write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &up, &res));
    char *now = snapshot("/tbl", mem, 0);
    hoodie_assert_equal_i(1, p.calls);
    hoodie_assert_equal_s(was, p.before);
    hoodie_assert_equal_s(now, p.after);
    hoodie_assert(strcmp(was, now) != 0);
    hoodie_assert_equal_s(res.instant, p.instant);
    hoodie_assert_equal_s(mor ? "deltacommit" : "commit", p.action);
    hoodie_assert_equal_i(HOODIE_WRITE_UPSERT, p.op);
    hoodie_assert_equal_s("la,ny,sf", p.parts);
    hoodie_assert_equal_i(HOODIE_EUNSUPPORTED, p.create_rc);
    free(was);
    free(now);
    /* refused: the write fails, the table reads as before, the instant is rolled back, its files are gone */
    was = snapshot("/tbl", mem, 0);
    p.verdict = HOODIE_EVALIDATION;
    rows_spec more = { 1, 3, 60, "v", NULL, 0 };
    hoodie_assert_status(HOODIE_EVALIDATION, write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &more, NULL));
    hoodie_assert_contains(hoodie_error_last()->message, "pre-commit check refused");
    hoodie_assert_contains(hoodie_error_last()->message, "41 rows is too many");
    hoodie_assert_contains(hoodie_error_last()->message, "(rolled back)");
    hoodie_assert_equal_i(2, p.calls);
    now = snapshot("/tbl", mem, 0);
    hoodie_assert_equal_s(was, now);
    hoodie_assert(strcmp(p.after, was) != 0); /* the check saw the refused rows */
    hoodie_assert_equal_i(0, files_named(mem, "/tbl", p.instant));
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = mem;
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, "/tbl", &to));
    size_t n = hoodie_table_instant_count(t);
    hoodie_instant_info last;
    hoodie_assert_ok(hoodie_table_instant(t, n - 1, &last));
    hoodie_assert_equal_s("rollback", last.action);
    hoodie_assert_equal_s("completed", last.state);
    for (size_t i = 0; i < n; i++) {
        hoodie_instant_info in;
        hoodie_assert_ok(hoodie_table_instant(t, i, &in));
        hoodie_assert_equal_s("completed", in.state);
    }
    hoodie_table_free(t);
    free(was);
    free(now);
    /* the next write goes through; a bulk insert is checked too */
    p.verdict = HOODIE_OK;
    hoodie_assert_ok(write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &more, NULL));
    rows_spec bulk = { 100, 102, 70, "w", NULL, 0 };
    hoodie_assert_ok(write_rows("/tbl", mem, HOODIE_WRITE_BULK_INSERT, &bulk, NULL));
    hoodie_assert_equal_i(4, p.calls);
    hoodie_assert_equal_i(HOODIE_WRITE_BULK_INSERT, p.op);
    hoodie_assert(strstr(p.after, "w100") && !strstr(p.before, "w100"));
    g_pre = NULL;
    g_pre_ctx = NULL;
    free(p.before);
    free(p.after);
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_writer__pre_commit_cow_v8) { pre_commit_case(0, 8); }
HOODIE_TEST(write_writer__pre_commit_mor_v8) { pre_commit_case(1, 8); }
HOODIE_TEST(write_writer__pre_commit_cow_v6) { pre_commit_case(0, 6); }
HOODIE_TEST(write_writer__pre_commit_mor_v6) { pre_commit_case(1, 6); }

/* ---- hoodie_write_opts.delete_column: upserts and deletes in one commit ---- */

typedef struct mixed_row { int64_t id; const char *name; int64_t ts; int del; /* -1: null */ } mixed_row;
typedef struct mixed_rows { const mixed_row *r; size_t n; int done; hoodie_type_id del_type; } mixed_rows;

static hoodie_status next_mixed(hoodie_batch *out, void *payload)
{
    mixed_rows *m = payload;
    if (m->done) return HOODIE_ITEROVER;
    m->done = 1;
    hoodie_field *f = out->schema.children;
    hoodie_array *a = out->root.children;
    for (size_t i = 0; i < m->n; i++) {
        const mixed_row *r = &m->r[i];
        HOODIE_TRY(hoodie_array_append_int(&a[0], &f[0], r->id));
        HOODIE_TRY(hoodie_array_append_str(&a[1], &f[1], r->name));
        HOODIE_TRY(hoodie_array_append_str(&a[2], &f[2], city_of(r->id)));
        HOODIE_TRY(hoodie_array_append_int(&a[3], &f[3], r->ts));
        if (r->del < 0) HOODIE_TRY(hoodie_array_append_null(&a[4], &f[4]));
        else if (m->del_type == HOODIE_TYPE_BOOL) HOODIE_TRY(hoodie_array_append_bool(&a[4], &f[4], r->del));
        else HOODIE_TRY(hoodie_array_append_int(&a[4], &f[4], r->del));
    }
    out->root.length = (int64_t)m->n;
    return HOODIE_OK;
}

static hoodie_status write_mixed(const char *base, const hoodie_storage *s, hoodie_write_operation op,
                                 const mixed_row *rows, size_t n, const char *del_col, hoodie_type_id del_type,
                                 hoodie_write_result *res)
{
    hoodie_field sc, f;
    schema_of(&sc);
    hoodie_assert_ok(hoodie_field_init(&f, "op_delete", hoodie_type_of(del_type), 1));
    hoodie_assert_ok(hoodie_field_add_child(&sc, &f));
    hoodie_field_dispose(&f);
    mixed_rows *m = malloc(sizeof *m);
    *m = (mixed_rows){ rows, n, 0, del_type };
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_arrow_stream_export(&st, &sc, next_mixed, free, m));
    hoodie_field_dispose(&sc);
    hoodie_write_opts o = HOODIE_WRITE_OPTS_INIT;
    o.storage = s;
    o.op = op;
    o.delete_column = del_col;
    return hoodie_table_write(base, &st, &o, res);
}

static void delete_column_case(int mor, int version)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    /* "/mix": one commit of upserts and deletes; "/seq": the same effect by separate writes */
    rows_spec all = { 1, 40, 10, "a", NULL, 0 };
    make_table("/mix", mem, mor, version);
    make_table("/seq", mem, mor, version);
    hoodie_assert_ok(write_rows("/mix", mem, HOODIE_WRITE_BULK_INSERT, &all, NULL));
    hoodie_assert_ok(write_rows("/seq", mem, HOODIE_WRITE_BULK_INSERT, &all, NULL));
    static const mixed_row mix[] = {
        { 1, "a1", 10, 1 },   /* a delete carrying the stored ordering value: deleted */
        { 2, "a2", 5, 1 },    /* a delete older than the stored row: no effect */
        { 3, "u3", 20, 0 },   /* an update */
        { 4, "u4", 20, 0 },   /* an update, then a delete of the same ordering value: the later wins */
        { 4, "a4", 20, 1 },
        { 5, "a5", 10, 1 },   /* a delete, then a newer version: the newer wins */
        { 5, "u5", 30, 0 },
        { 6, "u6", 15, -1 },  /* a null mark: an upsert */
        { 100, "x", 10, 1 },  /* a delete of a key the table does not have: nothing */
        { 101, "n101", 10, 0 }, /* an insert */
    };
    hoodie_write_result res;
    hoodie_status rc = write_mixed("/mix", mem, HOODIE_WRITE_UPSERT, mix, sizeof mix / sizeof *mix, "op_delete",
                                   HOODIE_TYPE_BOOL, &res);
    if (rc < 0) fprintf(stderr, "write: %s\n", hoodie_error_last()->message);
    hoodie_assert_ok(rc);
    hoodie_assert_equal_i(2, res.deletes);
    hoodie_assert_equal_i(3, res.updates);
    hoodie_assert_equal_i(1, res.inserts);
    static const mixed_row dels[] = { { 1, "a1", 10, 0 }, { 4, "a4", 20, 0 } };
    static const mixed_row ups[] = { { 3, "u3", 20, 0 }, { 5, "u5", 30, 0 }, { 6, "u6", 15, 0 }, { 101, "n101", 10, 0 } };
    hoodie_assert_ok(write_mixed("/seq", mem, HOODIE_WRITE_DELETE, dels, 2, NULL, HOODIE_TYPE_BOOL, NULL));
    hoodie_assert_ok(write_mixed("/seq", mem, HOODIE_WRITE_UPSERT, ups, 4, "op_delete", HOODIE_TYPE_BOOL, NULL));
    char *got = snapshot("/mix", mem, 0), *want = snapshot("/seq", mem, 0);
    hoodie_assert_equal_s(want, got);
    hoodie_assert(!strstr(got, "\n1,") && strstr(got, "u5") && strstr(got, "n101") && !strstr(got, "\n100,"));
    free(got);
    free(want);
    /* one commit, of operation UPSERT; the delete column is nowhere in the table's schema */
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = mem;
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, "/mix", &to));
    hoodie_assert_equal_i(2, (int64_t)hoodie_table_instant_count(t));
    struct ArrowArrayStream st;
    struct ArrowSchema schema;
    hoodie_assert_ok(hoodie_table_scan(t, NULL, &st));
    hoodie_assert(st.get_schema(&st, &schema) == 0);
    hoodie_assert_equal_i(9, schema.n_children);
    for (int64_t i = 0; i < schema.n_children; i++) hoodie_assert(strcmp(schema.children[i]->name, "op_delete"));
    schema.release(&schema);
    st.release(&st);
    hoodie_table_free(t);
    /* refused, nothing written: another operation, a missing column, a column that is not boolean */
    hoodie_assert_status(HOODIE_EINVAL, write_mixed("/mix", mem, HOODIE_WRITE_INSERT, mix, 2, "op_delete",
                                                    HOODIE_TYPE_BOOL, NULL));
    hoodie_assert_contains(hoodie_error_last()->message, "marks deletes of an upsert, not of INSERT");
    hoodie_assert_status(HOODIE_EINVAL, write_mixed("/mix", mem, HOODIE_WRITE_UPSERT, mix, 2, "gone",
                                                    HOODIE_TYPE_BOOL, NULL));
    hoodie_assert_contains(hoodie_error_last()->message, "no column 'gone' (the delete column)");
    hoodie_assert_status(HOODIE_EINVAL, write_mixed("/mix", mem, HOODIE_WRITE_UPSERT, mix, 2, "op_delete",
                                                    HOODIE_TYPE_INT32, NULL));
    hoodie_assert_contains(hoodie_error_last()->message, "the delete column 'op_delete' is int32, not boolean");
    hoodie_error_clear();
    hoodie_assert_ok(hoodie_table_open(&t, "/mix", &to));
    hoodie_assert_equal_i(2, (int64_t)hoodie_table_instant_count(t));
    hoodie_table_free(t);
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_writer__delete_column_cow_v8) { delete_column_case(0, 8); }
HOODIE_TEST(write_writer__delete_column_mor_v8) { delete_column_case(1, 8); }
HOODIE_TEST(write_writer__delete_column_cow_v6) { delete_column_case(0, 6); }
HOODIE_TEST(write_writer__delete_column_mor_v6) { delete_column_case(1, 6); }

/* ---- inputs without some of the table's columns (hoodie_write_opts.set_null_for_missing_columns) ---- */

static int g_partial;                      /* write_text: hoodie_write_opts.partial_updates */
static int g_global, g_upp;                /* write_text: global_bloom, update_partition_path */
static const char *g_text_table = "/tbl";  /* write_text's table */

/* A write of text rows (csv or jsonl) through hoodie_buffer_stream; opts version `version`. */
static hoodie_status write_text(const hoodie_storage *s, const char *format, const char *rows, int set_null,
                                unsigned version, hoodie_write_operation op)
{
    hoodie_files_opts fo = HOODIE_FILES_OPTS_INIT;
    fo.storage = s;
    fo.format = format;
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_buffer_stream(rows, strlen(rows), "rows", g_text_table, &fo, &st));
    hoodie_write_opts o = HOODIE_WRITE_OPTS_INIT;
    o.version = version;
    o.storage = s;
    o.op = op;
    o.set_null_for_missing_columns = set_null;
    o.partial_updates = g_partial;
    if (version >= 10) o.global_bloom = g_global, o.update_partition_path = g_upp;
    return hoodie_table_write(g_text_table, &st, &o, NULL);
}

HOODIE_TEST(write_writer__inputs_without_a_column_are_refused_unless_nulls_are_asked_for)
{
    for (int mor = 0; mor < 2; mor++) {
        hoodie_storage *mem;
        hoodie_assert_ok(hoodie_storage_mem_new(&mem));
        make_table("/tbl", mem, mor, 8);
        rows_spec a = { 1, 6, 10, "a", NULL, 0 };
        hoodie_assert_ok(write_rows("/tbl", mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
        /* a CSV header without `name`: an upsert would null the stored names; refused, as Hudi refuses it */
        static const char csv[] = "id,city,ts\n1,la,20\n3,sf,20\n";
        hoodie_assert_status(HOODIE_EINVAL, write_text(mem, "csv", csv, 0, HOODIE_WRITE_OPTS_VERSION,
                                                       HOODIE_WRITE_UPSERT));
        hoodie_assert_contains(hoodie_error__message(), "no column 'name'");
        hoodie_assert_contains(hoodie_error__message(), "set.null.for.missing.columns");
        hoodie_assert_status(HOODIE_EINVAL, write_text(mem, "csv", csv, 0, HOODIE_WRITE_OPTS_VERSION,
                                                       HOODIE_WRITE_INSERT));
        char *got = snapshot("/tbl", mem, 0);
        hoodie_assert(strstr(got, ",a1,") && strstr(got, ",a3,")); /* nothing written */
        free(got);
        /* asked for: nulls (and so for a caller of an older version of the options, as it was) */
        hoodie_assert_ok(write_text(mem, "csv", csv, 1, HOODIE_WRITE_OPTS_VERSION, HOODIE_WRITE_UPSERT));
        hoodie_assert_ok(write_text(mem, "csv", "id,city,ts\n2,ny,20\n", 0, 7, HOODIE_WRITE_UPSERT));
        /* JSON lines records leave out what they have no value for; deletes need only the keys */
        hoodie_assert_ok(write_text(mem, "jsonl", "{\"id\":4,\"city\":\"la\",\"ts\":20}\n", 0,
                                    HOODIE_WRITE_OPTS_VERSION, HOODIE_WRITE_UPSERT));
        hoodie_assert_ok(write_text(mem, "csv", "id,city\n5,ny\n", 0, HOODIE_WRITE_OPTS_VERSION, HOODIE_WRITE_DELETE));
        got = snapshot("/tbl", mem, 0);
        hoodie_assert_equal_s("1,la,1,,la,20\n2,ny,2,,ny,20\n3,sf,3,,sf,20\n4,la,4,,la,20\n6,sf,6,a6,sf,10\n", got);
        free(got);
        hoodie_storage_free(mem);
    }
}

/* ---- partial-update log blocks (IS_PARTIAL), as Spark SQL's MERGE INTO of some columns writes them ---- */

typedef struct plog { char path[3][256]; size_t n; } plog;
static int plog_entry(const hoodie_dirent *e, void *payload)
{
    plog *p = payload;
    if (strstr(e->name, ".log.") && p->n < 3) snprintf(p->path[p->n++], sizeof p->path[0], "%s", e->name);
    return 0;
}

/*
 * The log file of partition `city` rewritten as one partial block of its instant: records of ids in `ids` with
 * ts = 20 and the meta fields, id and city, but no name (the block's schema leaves it out).
 */
static void rewrite_partial(const hoodie_storage *s, const char *dir, const char *name, const char *city)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hoodie_buf old = HOODIE_BUF_INIT, out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(s, path, &old));
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, old.data, old.len, path));
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
    char instant[32], fid[64];
    snprintf(instant, sizeof instant, "%.*s", (int)b.header_len[HOODIE_HLOG_INSTANT_TIME], b.header[HOODIE_HLOG_INSTANT_TIME]);
    hoodie_hlog_iter_dispose(&it);
    snprintf(fid, sizeof fid, "%.*s", (int)(strchr(name + 1, '_') - name - 1), name + 1);
    static const char schema[] =
        "{\"type\":\"record\",\"name\":\"ft_record\",\"namespace\":\"hoodie.ft\",\"fields\":["
        "{\"name\":\"_hoodie_commit_time\",\"type\":[\"null\",\"string\"],\"default\":null},"
        "{\"name\":\"_hoodie_commit_seqno\",\"type\":[\"null\",\"string\"],\"default\":null},"
        "{\"name\":\"_hoodie_record_key\",\"type\":[\"null\",\"string\"],\"default\":null},"
        "{\"name\":\"_hoodie_partition_path\",\"type\":[\"null\",\"string\"],\"default\":null},"
        "{\"name\":\"_hoodie_file_name\",\"type\":[\"null\",\"string\"],\"default\":null},"
        "{\"name\":\"id\",\"type\":[\"null\",\"long\"],\"default\":null},"
        "{\"name\":\"city\",\"type\":[\"null\",\"string\"],\"default\":null},"
        "{\"name\":\"ts\",\"type\":[\"null\",\"long\"],\"default\":null}]}";
    hoodie_hlog_header_entry h[3] = { { HOODIE_HLOG_INSTANT_TIME, instant, strlen(instant) },
                                      { HOODIE_HLOG_IS_PARTIAL, "true", 4 },
                                      { HOODIE_HLOG_SCHEMA, schema, sizeof schema - 1 } };
    hoodie_hlog_header_sort(h, 3);
    hoodie_hlog_block_mark m;
    hoodie_hlog_avro_writer w;
    hoodie_assert_ok(hoodie_hlog_block_begin(&out, &m, HOODIE_HLOG_AVRO_DATA_BLOCK, h, 3));
    hoodie_assert_ok(hoodie_hlog_avro_content_begin(&out, &w));
    for (int64_t id = 1; id <= 3; id++) {
        if (strcmp(city_of(id), city)) continue;
        char key[16], seq[64];
        snprintf(key, sizeof key, "%lld", (long long)id);
        snprintf(seq, sizeof seq, "%s_0_%lld", instant, (long long)id);
        const char *strs[5] = { instant, seq, key, city, fid };
        hoodie_assert_ok(hoodie_hlog_avro_record_begin(&out, &w));
        for (int f = 0; f < 5; f++) {
            hoodie_assert_ok(hoodie_avro_write_long(&out, 1));
            hoodie_assert_ok(hoodie_avro_write_bytes(&out, strs[f], strlen(strs[f])));
        }
        hoodie_assert_ok(hoodie_avro_write_long(&out, 1));
        hoodie_assert_ok(hoodie_avro_write_long(&out, id));
        hoodie_assert_ok(hoodie_avro_write_long(&out, 1));
        hoodie_assert_ok(hoodie_avro_write_bytes(&out, city, strlen(city)));
        hoodie_assert_ok(hoodie_avro_write_long(&out, 1));
        hoodie_assert_ok(hoodie_avro_write_long(&out, 20));
        hoodie_assert_ok(hoodie_hlog_avro_record_end(&out, &w));
    }
    hoodie_assert_ok(hoodie_hlog_avro_content_end(&out, &w));
    hoodie_assert_ok(hoodie_hlog_block_end(&out, &m));
    hoodie_assert_ok(s->remove(s->ctx, path));
    hoodie_assert_ok(hoodie_storage_write_all(s, path, 0, out.data, out.len));
    hoodie_buf_dispose(&old);
    hoodie_buf_dispose(&out);
}

HOODIE_TEST(write_writer__partial_update_blocks_read_and_compact_with_the_stored_values)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    make_table("/pu", mem, 1, 8);
    rows_spec a = { 1, 6, 10, "a", NULL, 0 }, b = { 1, 3, 20, "b", NULL, 0 };
    hoodie_assert_ok(write_rows("/pu", mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
    hoodie_assert_ok(write_rows("/pu", mem, HOODIE_WRITE_UPSERT, &b, NULL)); /* ids 1..3: a log file each */
    static const char *const cities[] = { "sf", "la", "ny" };
    for (int c = 0; c < 3; c++) {
        char dir[64];
        snprintf(dir, sizeof dir, "/pu/%s", cities[c]);
        plog p = { .n = 0 };
        hoodie_assert_ok(mem->list(mem->ctx, dir, plog_entry, &p));
        hoodie_assert_equal_i(1, p.n);
        rewrite_partial(mem, dir, p.path[0], cities[c]);
    }
    /* the updates set ts alone: the names stay the stored ones (a whole block would have given b1..b3) */
    static const char want[] = "1,la,1,a1,la,20\n2,ny,2,a2,ny,20\n3,sf,3,a3,sf,20\n4,la,4,a4,la,10\n"
                               "5,ny,5,a5,ny,10\n6,sf,6,a6,sf,10\n";
    char *got = snapshot("/pu", mem, 0);
    hoodie_assert_equal_s(want, got);
    free(got);
    /* log compaction would write them whole: their slices are not planned (a warning says so); compaction merges
     * them with the base */
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    o.storage = mem;
    o.log_blocks_threshold = 1;
    hoodie_service_result sr;
    unsigned long warned = hoodie_warn_count();
    hoodie_assert_ok(hoodie_log_compaction_schedule("/pu", &o, &sr));
    hoodie_assert_equal_s("", sr.instant);
    hoodie_assert(hoodie_warn_count() == warned + 3);
    compact_all("/pu", mem);
    got = snapshot("/pu", mem, 0);
    hoodie_assert_equal_s(want, got);
    free(got);
    hoodie_storage_free(mem);
}

/* Partial updates written (hoodie_write_opts.partial_updates): the columns given, the others kept. */
HOODIE_TEST(write_writer__partial_updates_keep_the_columns_the_input_lacks)
{
    for (int mor = 0; mor < 2; mor++) {
        hoodie_storage *mem;
        hoodie_assert_ok(hoodie_storage_mem_new(&mem));
        g_text_table = "/pw";
        make_table("/pw", mem, mor, 8);
        rows_spec a = { 1, 6, 10, "a", NULL, 0 };
        hoodie_assert_ok(write_rows("/pw", mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
        g_partial = 1;
        /* ids 1, 2 get ts 20 and keep their names; id 7 is new (no name: null); then a whole record of id 1 at
         * ts 15, older than its ts 20, loses: copy-on-write keeps the stored record (a1); merge-on-read folds the
         * log records first, as Hudi does, and the partial one that wins takes the name it lacks from the record
         * it beat (z1), whatever the base record holds */
        hoodie_assert_ok(write_text(mem, "csv", "id,city,ts\n1,la,20\n2,ny,20\n", 0, HOODIE_WRITE_OPTS_VERSION,
                                    HOODIE_WRITE_UPSERT));
        hoodie_assert_ok(write_text(mem, "csv", "id,name,city\n", 0, HOODIE_WRITE_OPTS_VERSION, HOODIE_WRITE_UPSERT) ==
                         HOODIE_OK ? HOODIE_EINVAL : HOODIE_OK); /* no ordering field: refused */
        hoodie_assert_contains(hoodie_error__message(), "ordering field 'ts'");
        hoodie_assert_ok(write_text(mem, "csv", "id,name,city,ts\n1,z1,la,15\n", 0, HOODIE_WRITE_OPTS_VERSION,
                                    HOODIE_WRITE_UPSERT)); /* every column: a whole update (it loses on ts) */
        hoodie_assert_ok(write_text(mem, "csv", "id,city,ts\n7,la,30\n", 0, HOODIE_WRITE_OPTS_VERSION,
                                    HOODIE_WRITE_UPSERT));
        char want[256];
        snprintf(want, sizeof want, "1,la,1,%s,la,20\n2,ny,2,a2,ny,20\n3,sf,3,a3,sf,10\n4,la,4,a4,la,10\n"
                 "5,ny,5,a5,ny,10\n6,sf,6,a6,sf,10\n7,la,7,,la,30\n", mor ? "z1" : "a1");
        char *got = snapshot("/pw", mem, 0);
        hoodie_assert_equal_s(want, got);
        free(got);
        if (mor) { /* the updates are log blocks of id, city, ts (and the meta fields), marked IS_PARTIAL */
            plog p = { .n = 0 };
            hoodie_assert_ok(mem->list(mem->ctx, "/pw/ny", plog_entry, &p));
            hoodie_assert(p.n >= 1);
            char path[512];
            snprintf(path, sizeof path, "/pw/ny/%s", p.path[0]);
            hoodie_buf lf = HOODIE_BUF_INIT;
            hoodie_assert_ok(hoodie_storage_read_all(mem, path, &lf));
            hoodie_hlog_iter it;
            hoodie_hlog_block b;
            hoodie_assert_ok(hoodie_hlog_iter_init(&it, lf.data, lf.len, path));
            hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
            hoodie_assert(b.header[HOODIE_HLOG_IS_PARTIAL] && !strncmp(b.header[HOODIE_HLOG_IS_PARTIAL], "true", 4));
            char sch[4096];
            snprintf(sch, sizeof sch, "%.*s", (int)b.header_len[HOODIE_HLOG_SCHEMA], b.header[HOODIE_HLOG_SCHEMA]);
            hoodie_assert(strstr(sch, "\"name\":\"city\"") && strstr(sch, "\"name\":\"ts\"") &&
                          !strstr(sch, "\"name\":\"name\""));
            hoodie_hlog_iter_dispose(&it);
            hoodie_buf_dispose(&lf);
            compact_all("/pw", mem); /* merged into base files with the stored names */
            got = snapshot("/pw", mem, 0);
            hoodie_assert_equal_s(want, got);
            free(got);
        }
        /* refused: other operations, and version 6 merge-on-read (no partial blocks there) */
        hoodie_assert_status(HOODIE_EINVAL, write_text(mem, "csv", "id,city,ts\n8,sf,1\n", 0, HOODIE_WRITE_OPTS_VERSION,
                                                       HOODIE_WRITE_INSERT));
        hoodie_assert_contains(hoodie_error__message(), "partial updates are for upserts");
        hoodie_storage_free(mem);
        if (mor) {
            hoodie_assert_ok(hoodie_storage_mem_new(&mem));
            make_table("/pw", mem, 1, 6);
            hoodie_assert_ok(write_rows("/pw", mem, HOODIE_WRITE_BULK_INSERT, &a, NULL));
            hoodie_assert_status(HOODIE_EINVAL, write_text(mem, "csv", "id,city,ts\n1,la,20\n", 0,
                                                           HOODIE_WRITE_OPTS_VERSION, HOODIE_WRITE_UPSERT));
            hoodie_assert_contains(hoodie_error__message(), "version 8");
            hoodie_storage_free(mem);
        }
        g_partial = 0;
        g_text_table = "/tbl";
    }
}

/* ---- schema on read: an ALTER TABLE (hoodie_table_alter) that commits while a write runs ---- */

/* 1 when a scan of (id, col) gives 40 rows, every `col` set; 0 when the scan fails (no such column). */
typedef struct col_count { int64_t rows, set; } col_count;

static void count_each(void *ctx, const hoodie_batch *b)
{
    col_count *c = ctx;
    for (int64_t i = 0; i < b->root.length; i++) c->set += hoodie_array_is_valid(&b->root.children[1], i);
    c->rows += b->root.length;
}

static int reads_column(const hoodie_storage *s, const char *col)
{
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    const char *cols[] = { "id", col };
    so.columns = cols;
    so.n_columns = 2;
    col_count c = { 0, 0 };
    hoodie_status rc = scan_batches("/tbl", s, &so, count_each, &c);
    hoodie_error_clear();
    if (rc < 0) return 0;
    hoodie_assert_equal_i(40, c.rows);
    hoodie_assert_equal_i(40, c.set);
    return 1;
}

typedef struct alter_ctx { const hoodie_storage *s; int calls; } alter_ctx;

static hoodie_status alter_now(void *ctx, hoodie_precommit *pc)
{
    (void)pc;
    alter_ctx *a = ctx;
    a->calls++;
    hoodie_table_alter_opts o = HOODIE_TABLE_ALTER_OPTS_INIT;
    const char *ren[] = { "name", "label" };
    o.storage = a->s;
    o.renames = ren;
    o.n_renames = 1;
    return hoodie_table_alter("/tbl", &o, NULL, 0);
}

static void alter_during_write(int mor, int version)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    prepare("/tbl", mem, mor, version); /* ids 1..40 */
    alter_ctx a = { mem, 0 };
    g_pre = alter_now;
    g_pre_ctx = &a;
    g_step = 1;
    rows_spec up = { 38, 45, 50, "u", NULL, 0 };
    /* the write read the columns as (id, name, city, ts); the ALTER renamed name before it committed */
    hoodie_assert_status(HOODIE_ECONFLICT, write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &up, NULL));
    hoodie_assert_contains(hoodie_error__message(), "schema was altered");
    hoodie_assert_equal_i(1, a.calls);
    g_pre = NULL;
    g_pre_ctx = NULL;
    /* the table reads the renamed column with the old files' values; the same write again is refused (its input
     * has no `label`) */
    hoodie_assert(reads_column(mem, "label") && !reads_column(mem, "name"));
    hoodie_error_clear();
    hoodie_assert_status(HOODIE_EINVAL, write_rows("/tbl", mem, HOODIE_WRITE_UPSERT, &up, NULL));
    hoodie_assert_contains(hoodie_error__message(), "no column 'label'");
    hoodie_error_clear();
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_writer__alter_during_write_cow_v8) { alter_during_write(0, 8); }
HOODIE_TEST(write_writer__alter_during_write_mor_v6) { alter_during_write(1, 6); }

/* hoodie_table_alter with the k-th storage operation failing (or every one from the k-th), for every k: the
 * table then reads as before (by the old name) or, if it reported success, as after; the next ALTER succeeds. */
static void alter_faults(int mor, int version)
{

    hoodie_table_alter_opts o = HOODIE_TABLE_ALTER_OPTS_INIT;
    const char *ren[] = { "name", "label" }, *add[] = { "score", "double" };
    o.renames = ren;
    o.n_renames = 1;
    o.adds = add;
    o.n_adds = 1;
    hoodie_storage *mem, *fs;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    hoodie_assert_ok(hoodie_storage_faulty_new(&fs, mem));
    prepare("/tbl", mem, mor, version);
    hoodie_storage_faulty_arm(fs, HOODIE_FAULT_NONE, 0);
    o.storage = fs;
    hoodie_assert_ok(hoodie_table_alter("/tbl", &o, NULL, 0));
    uint64_t n_ops = hoodie_storage_faulty_count(fs);
    hoodie_assert(reads_column(mem, "label") && !reads_column(mem, "name"));
    hoodie_storage_free(fs);
    hoodie_storage_free(mem);
    for (int mode = HOODIE_FAULT_FAIL_NTH; mode <= HOODIE_FAULT_CRASH_AT; mode++)
        for (uint64_t k = 1; k <= n_ops; k++) {
            hoodie_assert_ok(hoodie_storage_mem_new(&mem));
            hoodie_assert_ok(hoodie_storage_faulty_new(&fs, mem));
            prepare("/tbl", mem, mor, version);
            hoodie_storage_faulty_arm(fs, (hoodie_fault_mode)mode, k);
            o.storage = fs;
            hoodie_status rc = hoodie_table_alter("/tbl", &o, NULL, 0);
            hoodie_error_clear();
            hoodie_assert(hoodie_storage_faulty_fired(fs));
            if (rc < 0) {
                if (!reads_column(mem, "name") || reads_column(mem, "label"))
                    fprintf(stderr, "alter %s v%d fault %d at %llu/%llu: the table changed\n", mor ? "mor" : "cow",
                            version, mode, (unsigned long long)k, (unsigned long long)n_ops);
                hoodie_assert(reads_column(mem, "name") && !reads_column(mem, "label"));
                o.storage = mem;
                rc = hoodie_table_alter("/tbl", &o, NULL, 0);
                if (rc < 0) fprintf(stderr, "alter after fault %llu: %s\n", (unsigned long long)k, hoodie_error_last()->message);
                hoodie_assert_ok(rc);
            }
            hoodie_assert(reads_column(mem, "label") && !reads_column(mem, "name"));
            hoodie_storage_free(fs);
            hoodie_storage_free(mem);
        }
}

/* A caller built against options version 1 (no type changes): its struct ends before `retypes`, which the library
 * does not read; a version it does not know is refused. */
typedef struct alter_opts_v1 { /* hoodie_table_alter_opts as version 1 laid it out */
    unsigned version;
    const hoodie_storage *storage;
    const char *const *renames;
    size_t n_renames;
    const char *const *drops;
    size_t n_drops;
    const char *const *adds;
    size_t n_adds;
} alter_opts_v1;

HOODIE_TEST(write_writer__alter_opts_version_1)
{
    hoodie_assert_equal_i((long long)offsetof(hoodie_table_alter_opts, retypes), (long long)sizeof(alter_opts_v1));
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    prepare("/tbl", mem, 0, 8);
    alter_opts_v1 *o = calloc(1, sizeof *o); /* on the heap: ASan sees a read past it */
    hoodie_assert(o != NULL);
    const char *ren[] = { "name", "label" };
    o->version = 1;
    o->storage = mem;
    o->renames = ren;
    o->n_renames = 1;
    hoodie_assert_ok(hoodie_table_alter("/tbl", (const hoodie_table_alter_opts *)(void *)o, NULL, 0));
    hoodie_assert(reads_column(mem, "label") && !reads_column(mem, "name"));
    o->version = HOODIE_TABLE_ALTER_OPTS_VERSION + 1;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_alter("/tbl", (const hoodie_table_alter_opts *)(void *)o, NULL, 0));
    hoodie_error_clear();
    free(o);
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_writer__faults_alter_cow_v8) { alter_faults(0, 8); }
HOODIE_TEST(write_writer__faults_alter_mor_v6) { alter_faults(1, 6); }

/* ---- a writer killed before its requested file was in place ----
 *
 * Its heartbeat was started and the requested file was still a hidden temporary in the timeline folder. The next
 * writer's recovery drops the dead heartbeat and that temporary with it; a live process's temporary stays. */

HOODIE_TEST(write_writer__dead_requested_temporary_swept)
{
    const hoodie_storage *px = hoodie_storage_posix();
    char boot[64] = "?";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) { if (!fgets(boot, sizeof boot, f)) boot[0] = '?'; fclose(f); }
    boot[strcspn(boot, "\r\n")] = 0;
    for (int version = 8; version >= 6; version -= 2) {
        char table[512], tl[600], path[1024], text[256], dead_prefix[64], live_prefix[64];
        snprintf(table, sizeof table, "%s/dead_requested_v%d", hoodie_test_tmpdir(), version);
        prepare(table, NULL, version == 6, version);
        rows_spec b = { 5, 12, 20, "b", NULL, 0 };
        pid_t child = fork();
        if (child == 0) _exit(0);
        hoodie_assert(child > 0);
        waitpid(child, NULL, 0);
        const char *inst = "20200101000000000";
        snprintf(tl, sizeof tl, "%s/.hoodie%s", table, version == 8 ? "/timeline" : "");
        snprintf(path, sizeof path, "%s/.hoodie/.heartbeat/%s", table, inst);
        snprintf(text, sizeof text, "hoodie-writer boot=%s pid=%ld start=1\n", boot, (long)child);
        hoodie_assert_ok(hoodie_storage_write_all(px, path, 0, text, strlen(text)));
        snprintf(dead_prefix, sizeof dead_prefix, ".hoodie_tmp_%ld_", (long)child);
        snprintf(live_prefix, sizeof live_prefix, ".hoodie_tmp_%ld_", (long)getpid());
        snprintf(path, sizeof path, "%s/%s1_%s.%s.requested", tl, dead_prefix, inst,
                 version == 6 ? "deltacommit" : "commit");
        hoodie_assert_ok(hoodie_storage_write_all(px, path, 0, "", 0));
        char live[1024];
        snprintf(live, sizeof live, "%s/%s1_%s.commit.requested", tl, live_prefix, inst);
        hoodie_assert_ok(hoodie_storage_write_all(px, live, 0, "", 0));
        hoodie_assert_equal_i(1, dir_entries(tl, dead_prefix));
        hoodie_assert_ok(write_rows(table, NULL, HOODIE_WRITE_UPSERT, &b, NULL));
        hoodie_assert_equal_i(0, dir_entries(tl, dead_prefix));
        hoodie_assert_equal_i(1, dir_entries(tl, live_prefix));
        snprintf(path, sizeof path, "%s/.hoodie/.heartbeat", table);
        hoodie_assert_equal_i(0, dir_entries(path, inst));
        hoodie_assert(unlink(live) == 0);
        wstep steps[] = { { HOODIE_WRITE_UPSERT, b } };
        char *want = in_turn(version == 6, version, steps, 1);
        char *got = snapshot(table, NULL, 0);
        hoodie_assert_equal_s(want, got);
        free(want);
        free(got);
    }
}

/* ---- log files merged lazily ----
 *
 * Log files past a quarter of the merge budget are read lazily (read/logscan.h lazy_cols): on a file system (files
 * mapped) the compaction holds the records' keys and ordering values, each record decoded when the merge takes
 * it. It writes what the eager merge writes, with the same statistics, keeping the same unchanged column chunks
 * (one pass: the selections go to the row-group copier, which holds them across batches). */

static uint64_t log_bytes_under(const char *dir)
{
    uint64_t n = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".hoodie")))
            continue;
        char p[2048];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) < 0) continue;
        if (S_ISDIR(st.st_mode)) n += log_bytes_under(p);
        else if (strstr(e->d_name, ".log.")) n += (uint64_t)st.st_size;
    }
    closedir(d);
    return n;
}

static void lazy_case(int version)
{
    char tables[2][512], tmp[400];
    snprintf(tmp, sizeof tmp, "%s", hoodie_test_tmpdir()); /* (a new folder each call) */
    for (int k = 0; k < 2; k++) {
        snprintf(tables[k], sizeof tables[k], "%s/lazy_%c_v%d", tmp, 'a' + k, version);
        make_table(tables[k], NULL, 1, version);
        for (size_t i = 0; i < sizeof mixed_writes / sizeof *mixed_writes; i++) {
            hoodie_assert_ok(write_rows(tables[k], NULL, mixed_writes[i].op, &mixed_writes[i].rows, NULL));
            if (i == 0) recode_base_files(tables[k], NULL); /* row groups and chunks the compaction can keep */
        }
    }
    char *before = snapshot(tables[0], NULL, 0);
    uint64_t lb = log_bytes_under(tables[1]);
    hoodie_assert(lb > 0);
    unsigned long lazy0 = hoodie_logscan__lazy_blocks;
    char *eager_read = snapshot_with(tables[1], NULL, 1, NULL, 0); /* the default budget: eager */
    hoodie_assert_equal_i((int64_t)lazy0, (int64_t)hoodie_logscan__lazy_blocks);
    char *lazy_read = snapshot_with(tables[1], NULL, 1, NULL, (int64_t)lb); /* a snapshot read lazily */
    hoodie_assert(hoodie_logscan__lazy_blocks > lazy0);
    hoodie_assert_equal_s(eager_read, lazy_read);
    free(eager_read);
    free(lazy_read);
    lazy0 = hoodie_logscan__lazy_blocks;
    compact_all(tables[0], NULL); /* the default budget: eager */
    hoodie_assert_equal_i((int64_t)lazy0, (int64_t)hoodie_logscan__lazy_blocks);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    o.merge_memory = (int64_t)lb; /* past a quarter of it: lazy; what the lazy records take fits: one pass */
    hoodie_assert_ok(hoodie_compaction_schedule(tables[1], &o, NULL));
    hoodie_assert_ok(hoodie_compaction_run(tables[1], &o, NULL, NULL));
    hoodie_assert(hoodie_logscan__lazy_blocks > lazy0);
    char *a = same_compactions(tables[0], tables[1], NULL, before);
    size_t same_a, same_b;
    size_t na = chunk_kept(tables[0], NULL, "city", &same_a), nb = chunk_kept(tables[1], NULL, "city", &same_b);
    hoodie_assert_equal_i((int64_t)na, (int64_t)nb);
    hoodie_assert_equal_i((int64_t)same_a, (int64_t)same_b);
    /* updates only (no delete moves rows): the unchanged chunks are kept, as the eager merge keeps them
     * (write_writer__compaction_unchanged_columns_copied): the single pass gave its selections to the copier */
    char k[512];
    snprintf(k, sizeof k, "%s/lazy_k_v%d", tmp, version);
    make_table(k, NULL, 1, version);
    rows_spec ka = { 1, 300, 10, "a", NULL, 0 }, ku = { 1, 30, 20, "a", NULL, 0 };
    hoodie_assert_ok(write_rows(k, NULL, HOODIE_WRITE_BULK_INSERT, &ka, NULL));
    recode_base_files(k, NULL);
    hoodie_assert_ok(write_rows(k, NULL, HOODIE_WRITE_UPSERT, &ku, NULL));
    char *kb = snapshot(k, NULL, 0);
    unsigned long lazy1 = hoodie_logscan__lazy_blocks;
    o.merge_memory = (int64_t)log_bytes_under(k);
    hoodie_svc__batch_rows = 16; /* row groups of many batches: the copier holds selections across them */
    hoodie_assert_ok(hoodie_compaction_schedule(k, &o, NULL));
    hoodie_assert_ok(hoodie_compaction_run(k, &o, NULL, NULL));
    hoodie_svc__batch_rows = 0;
    hoodie_assert(hoodie_logscan__lazy_blocks > lazy1);
    char *ka_s = snapshot(k, NULL, 0);
    hoodie_assert_equal_s(kb, ka_s);
    free(kb);
    free(ka_s);
    hoodie_assert_equal_i(3, chunk_kept(k, NULL, "city", &same_b));
    hoodie_assert_equal_i(3, same_b);
    hoodie_assert_equal_i(3, chunk_kept(k, NULL, "name", &same_b));
    hoodie_assert_equal_i(3, same_b);
    /* and in passes, the lazy records of each partition (a budget far below them) */
    char c[512];
    snprintf(c, sizeof c, "%s/lazy_c_v%d", tmp, version);
    make_table(c, NULL, 1, version);
    for (size_t i = 0; i < sizeof mixed_writes / sizeof *mixed_writes; i++)
        hoodie_assert_ok(write_rows(c, NULL, mixed_writes[i].op, &mixed_writes[i].rows, NULL));
    o.merge_memory = (int64_t)(lb / 16);
    hoodie_assert_ok(hoodie_compaction_schedule(c, &o, NULL));
    hoodie_assert_ok(hoodie_compaction_run(c, &o, NULL, NULL));
    char *cs = snapshot(c, NULL, 0);
    hoodie_assert_equal_s(a, cs);
    free(cs);
    free(before);
    free(a);
}

HOODIE_TEST(write_writer__lazy_log_records_v8) { lazy_case(8); }
HOODIE_TEST(write_writer__lazy_log_records_v6) { lazy_case(6); }

/* hoodie.index.type=GLOBAL_BLOOM: keys found in every partition; a key the input puts in another partition moves
 * (update.partition.path, true by default) when the input wins over the stored record (a newer one, a tie), stays
 * when it loses, is updated where it is with update.partition.path=false; deletes delete where the key is; rows
 * combine by key alone. COW and MOR. */
HOODIE_TEST(write_writer__global_bloom_moves_records_across_partitions)
{
    for (int mor = 0; mor < 2; mor++) {
        hoodie_storage *mem;
        hoodie_assert_ok(hoodie_storage_mem_new(&mem));
        make_table("/tbl", mem, mor, 8);
        hoodie_assert_ok(write_text(mem, "csv", "id,name,city,ts\n1,a,la,1\n2,b,ny,1\n3,c,ny,1\n4,d,ny,5\n5,e,sf,1\n",
                                    0, HOODIE_WRITE_OPTS_VERSION, HOODIE_WRITE_UPSERT));
        g_global = 1;
        hoodie_assert_ok(write_text(mem, "csv", "id,name,city,ts\n2,b2,la,2\n1,a0,ny,0\n9,n,sf,1\n4,d2,sf,5\n"
                                    "3,c1,sf,1\n3,c2,la,2\n", 0, HOODIE_WRITE_OPTS_VERSION, HOODIE_WRITE_UPSERT));
        hoodie_assert_ok(write_text(mem, "csv", "id,name,city,ts\n5,x,la,9\n", 0, HOODIE_WRITE_OPTS_VERSION,
                                    HOODIE_WRITE_DELETE));
        g_upp = -1;
        hoodie_assert_ok(write_text(mem, "csv", "id,name,city,ts\n3,c3,ny,3\n", 0, HOODIE_WRITE_OPTS_VERSION,
                                    HOODIE_WRITE_UPSERT));
        /* a partial update that moves a record keeps the stored values of the columns it lacks (the record
         * inserted is the merge of the two, as Hudi's) */
        g_upp = 0;
        g_partial = 1;
        hoodie_assert_ok(write_text(mem, "csv", "id,city,ts\n1,sf,7\n", 0, HOODIE_WRITE_OPTS_VERSION,
                                    HOODIE_WRITE_UPSERT));
        g_partial = 0;
        /* not with an index that is not global; an older caller's options are the bloom index's */
        g_global = 0;
        g_upp = 1;
        hoodie_assert_status(HOODIE_EINVAL, write_text(mem, "csv", "id,name,city,ts\n3,c4,ny,4\n", 0,
                                                       HOODIE_WRITE_OPTS_VERSION, HOODIE_WRITE_UPSERT));
        hoodie_assert_contains(hoodie_error__message(), "goes with a global index");
        g_upp = 0;
        hoodie_assert_ok(write_text(mem, "csv", "id,name,city,ts\n9,n9,la,2\n", 0, 9, HOODIE_WRITE_UPSERT));
        char *got = snapshot("/tbl", mem, 0);
        hoodie_assert_equal_s("1,sf,1,a,sf,7\n2,la,2,b2,la,2\n3,la,3,c3,ny,3\n4,sf,4,d2,sf,5\n9,la,9,n9,la,2\n"
                              "9,sf,9,n,sf,1\n", got);
        free(got);
        hoodie_storage_free(mem);
    }
}
