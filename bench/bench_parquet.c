/*
 * bench_parquet: the hoodie side of `make bench` (bench/run.sh). One case per run, so peak RSS is per case.
 *
 *   bench_parquet parquet_write OUT.parquet ROWS
 *       Generate ROWS rows of the dataset (bench_gen.h: the same rows DuckDB generates in duck_bench.mjs) into
 *       Arrow batches in memory, untimed; then time writing them to OUT as snappy Parquet (open, write every
 *       batch, close).
 *   bench_parquet parquet_scan IN.parquet
 *       Time reading IN completely, every column of every row materialized, and aggregate what DuckDB's scan query
 *       aggregates: count, sum of string lengths of id/name/address/partition_path, sum(age), sum(ts).
 *
 *   bench_parquet table_scan TABLE
 *       Time a snapshot query of the Hudi table (hoodie/read.h; the dataset's six columns, every row
 *       materialized; opening the table included), aggregated as parquet_scan aggregates.
 *   bench_parquet compaction TABLE
 *       Time scheduling and running a compaction of the MOR table (hoodie/services.h: every slice with logs);
 *       prints `hoodie_s= hoodie_rss_mb= instant=<compaction instant> records=<rows written>` (run.sh checks the
 *       new base file through DuckDB).
 *   bench_parquet bloom ROWS
 *       Time adding ROWS 8-byte keys "%08d" (the dataset's ids) to Hudi bloom filters as a base file writer does
 *       (DYNAMIC_V0, 60000 entries, fpp 1e-9, bounded at 100000; 256 keys per hoodie_bloom_add_many, a new filter
 *       every 1M keys), then testing ROWS keys (half present, half absent if ROWS > 100000) against a filter of
 *       the first 100000 keys, then
 *       the same keys through hoodie_bloom_test_many (256 a call). Prints `add_ns_per_key= test_ns_per_key=
 *       test_many_ns_per_key= found= check=<FNV-1a of the serialized filters>` (thread CPU time; the check must
 *       not change between implementations).
 *
 * Output, one line: `hoodie_s=<seconds> hoodie_rss_mb=<peak RSS, getrusage> check=<aggregates>` (check has the
 * format of duck_bench.mjs checksum, so run.sh can compare). Exit 2 on usage error, 3 for an unknown case (run.sh
 * prints NA), 1 on failure.
 *
 * It uses the public API (hoodie/parquet.h, Arrow C data interface); all strings in the dataset are ASCII, so byte
 * lengths equal DuckDB's character lengths.
 */
#include "hoodie/hoodie.h"
#include "hoodie/parquet.h"
#include "hoodie/arrow.h"
#include "hoodie/read.h"
#include "hoodie/services.h"
#include "bench_gen.h"
#include "format/bloom.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define BATCH_ROWS 65536
#define N_COLS 6

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* Linux: kilobytes */
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bench_parquet: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* Sums are 128-bit, as DuckDB's sum(BIGINT) is: sum(ts) over 10M rows does not fit 64 bits. */
typedef __int128 sum_t;

static void print_i128(sum_t v)
{
    char buf[48];
    int n = 0, neg = v < 0;
    unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
    do { buf[n++] = (char)('0' + (int)(u % 10)); u /= 10; } while (u);
    if (neg) putchar('-');
    while (n) putchar(buf[--n]);
}

static double peak_rss_mb(void);

static void print_result(double seconds, int64_t rows, const sum_t *sums)
{
    printf("hoodie_s=%.3f hoodie_rss_mb=%.1f check=%" PRId64, seconds, peak_rss_mb(), rows);
    for (int k = 0; k < 6; k++) { putchar(','); print_i128(sums[k]); }
    putchar('\n');
}

/* ---- Arrow export of the generated batches: everything malloc'ed, freed by the release callbacks ---- */

static const char *const COL_NAMES[N_COLS] = { "id", "name", "age", "address", "partition_path", "ts" };
static const char *const COL_FORMATS[N_COLS] = { "u", "u", "i", "u", "u", "l" };

static void release_schema(struct ArrowSchema *s)
{
    if (s->children) {
        for (int64_t k = 0; k < s->n_children; k++) {
            if (s->children[k]->release) s->children[k]->release(s->children[k]);
            free(s->children[k]);
        }
        free(s->children);
    }
    s->release = NULL;
}

static void release_leaf_schema(struct ArrowSchema *s) { s->release = NULL; }

static void make_schema(struct ArrowSchema *out)
{
    memset(out, 0, sizeof *out);
    out->format = "+s";
    out->name = "";
    out->n_children = N_COLS;
    out->children = xmalloc(sizeof(struct ArrowSchema *) * N_COLS);
    for (int k = 0; k < N_COLS; k++) {
        struct ArrowSchema *c = xmalloc(sizeof *c);
        memset(c, 0, sizeof *c);
        c->format = COL_FORMATS[k];
        c->name = COL_NAMES[k];
        c->flags = ARROW_FLAG_NULLABLE;
        c->release = release_leaf_schema;
        out->children[k] = c;
    }
    out->release = release_schema;
}

static void release_array(struct ArrowArray *a)
{
    for (int64_t k = 0; k < a->n_children; k++) {
        a->children[k]->release(a->children[k]);
        free(a->children[k]);
    }
    free(a->children);
    for (int64_t b = 0; b < a->n_buffers; b++) free((void *)a->buffers[b]);
    free(a->buffers);
    a->release = NULL;
}

static struct ArrowArray *new_array(int64_t length, int64_t n_buffers)
{
    struct ArrowArray *a = xmalloc(sizeof *a);
    memset(a, 0, sizeof *a);
    a->length = length;
    a->n_buffers = n_buffers;
    a->buffers = xmalloc(sizeof(void *) * (size_t)n_buffers);
    for (int64_t b = 0; b < n_buffers; b++) a->buffers[b] = NULL;
    a->release = release_array;
    return a;
}

typedef struct strcol {
    int32_t *offsets;
    char *data;
    size_t len, cap;
} strcol;

static void strcol_push(strcol *s, int64_t row, const char *v, size_t n)
{
    if (s->len + n > s->cap) {
        s->cap = (s->len + n) * 2;
        char *d = realloc(s->data, s->cap);
        if (!d) {
            fprintf(stderr, "bench_parquet: out of memory\n");
            exit(1);
        }
        s->data = d;
    }
    memcpy(s->data + s->len, v, n);
    s->len += n;
    s->offsets[row + 1] = (int32_t)s->len;
}

static struct ArrowArray *string_array(strcol *s, int64_t rows)
{
    struct ArrowArray *a = new_array(rows, 3);
    a->buffers[1] = s->offsets;
    a->buffers[2] = s->data;
    return a;
}

/* Rows [start, start+rows) as a struct array. */
static void make_batch(int64_t start, int64_t rows, struct ArrowArray *out)
{
    strcol str[4];
    for (int k = 0; k < 4; k++) {
        str[k].offsets = xmalloc(sizeof(int32_t) * (size_t)(rows + 1));
        str[k].offsets[0] = 0;
        str[k].cap = (size_t)rows * 16;
        str[k].data = xmalloc(str[k].cap);
        str[k].len = 0;
    }
    int32_t *age = xmalloc(sizeof(int32_t) * (size_t)rows);
    int64_t *ts = xmalloc(sizeof(int64_t) * (size_t)rows);
    bench_row r;
    for (int64_t j = 0; j < rows; j++) {
        bench_gen_row(start + j, &r);
        strcol_push(&str[0], j, r.id, r.id_len);
        strcol_push(&str[1], j, r.name, r.name_len);
        age[j] = r.age;
        strcol_push(&str[2], j, r.address, r.address_len);
        strcol_push(&str[3], j, r.partition_path, r.partition_path_len);
        ts[j] = r.ts;
    }
    memset(out, 0, sizeof *out);
    out->length = rows;
    out->n_buffers = 1;
    out->buffers = xmalloc(sizeof(void *));
    out->buffers[0] = NULL;
    out->n_children = N_COLS;
    out->children = xmalloc(sizeof(struct ArrowArray *) * N_COLS);
    out->children[0] = string_array(&str[0], rows);
    out->children[1] = string_array(&str[1], rows);
    out->children[2] = new_array(rows, 2);
    out->children[2]->buffers[1] = age;
    out->children[3] = string_array(&str[2], rows);
    out->children[4] = string_array(&str[3], rows);
    out->children[5] = new_array(rows, 2);
    out->children[5]->buffers[1] = ts;
    out->release = release_array;
}

static int fail(const char *what, hoodie_status rc)
{
    const hoodie_error *e = hoodie_error_last();
    fprintf(stderr, "bench_parquet: %s: %s: %s\n", what, hoodie_status_str(rc), e->message ? e->message : "");
    return 1;
}

static int case_write(const char *path, int64_t rows)
{
    int64_t n_batches = (rows + BATCH_ROWS - 1) / BATCH_ROWS;
    struct ArrowArray *batches = xmalloc(sizeof(struct ArrowArray) * (size_t)(n_batches ? n_batches : 1));
    for (int64_t b = 0; b < n_batches; b++) {
        int64_t start = b * BATCH_ROWS;
        make_batch(start, rows - start < BATCH_ROWS ? rows - start : BATCH_ROWS, &batches[b]);
    }
    struct ArrowSchema schema;
    make_schema(&schema);
    hoodie_parquet_write_opts opts = HOODIE_PARQUET_WRITE_OPTS_INIT;
    opts.codec = HOODIE_PARQUET_CODEC_SNAPPY;

    double t0 = now_s();
    hoodie_parquet_writer *w = NULL;
    hoodie_status rc = hoodie_parquet_writer_open(&w, path, &schema, &opts);
    if (rc != HOODIE_OK) return fail("writer_open", rc);
    for (int64_t b = 0; b < n_batches; b++) {
        rc = hoodie_parquet_writer_write(w, &batches[b]);
        if (rc != HOODIE_OK) {
            hoodie_parquet_writer_free(w);
            return fail("writer_write", rc);
        }
    }
    rc = hoodie_parquet_writer_close(w);
    if (rc != HOODIE_OK) {
        hoodie_parquet_writer_free(w);
        return fail("writer_close", rc);
    }
    double t1 = now_s();
    hoodie_parquet_writer_free(w);

    /* The check of what was written is DuckDB's job (run.sh); here only what went in. */
    sum_t sums[N_COLS] = { 0 };
    for (int64_t b = 0; b < n_batches; b++) {
        struct ArrowArray *a = &batches[b];
        const int32_t *age = a->children[2]->buffers[1];
        const int64_t *ts = a->children[5]->buffers[1];
        for (int k = 0; k < N_COLS; k++) {
            if (k == 2 || k == 5) continue;
            const int32_t *off = a->children[k]->buffers[1];
            sums[k] += off[a->length] - off[0];
        }
        for (int64_t j = 0; j < a->length; j++) {
            sums[2] += age[j];
            sums[5] += ts[j];
        }
        a->release(a);
    }
    free(batches);
    schema.release(&schema);
    print_result(t1 - t0, rows, sums);
    return 0;
}

/* Sum of string byte lengths, or of int values, of one column of a batch (honouring the array offset). */
static int add_column(const struct ArrowSchema *s, const struct ArrowArray *a, sum_t *sum)
{
    const uint8_t *valid = a->buffers[0];
    int64_t n = a->length, o = a->offset;
    if (strcmp(s->format, "u") == 0 || strcmp(s->format, "z") == 0) {
        const int32_t *off = a->buffers[1];
        for (int64_t j = 0; j < n; j++)
            if (!valid || (valid[(o + j) >> 3] >> ((o + j) & 7) & 1)) *sum += off[o + j + 1] - off[o + j];
    } else if (strcmp(s->format, "U") == 0 || strcmp(s->format, "Z") == 0) {
        const int64_t *off = a->buffers[1];
        for (int64_t j = 0; j < n; j++)
            if (!valid || (valid[(o + j) >> 3] >> ((o + j) & 7) & 1)) *sum += off[o + j + 1] - off[o + j];
    } else if (strcmp(s->format, "i") == 0) {
        const int32_t *v = a->buffers[1];
        for (int64_t j = 0; j < n; j++)
            if (!valid || (valid[(o + j) >> 3] >> ((o + j) & 7) & 1)) *sum += v[o + j];
    } else if (strcmp(s->format, "l") == 0) {
        const int64_t *v = a->buffers[1];
        for (int64_t j = 0; j < n; j++)
            if (!valid || (valid[(o + j) >> 3] >> ((o + j) & 7) & 1)) *sum += v[o + j];
    } else {
        fprintf(stderr, "bench_parquet: column %s has Arrow format %s, not one of the dataset's\n", s->name,
                s->format);
        return 1;
    }
    return 0;
}

/* Read `stream` to its end (released here), aggregating what DuckDB's scan query aggregates; print the result
 * with the time since t0. */
static int aggregate_stream(struct ArrowArrayStream *stream, const char *what, double t0)
{
    sum_t sums[N_COLS] = { 0 };
    struct ArrowSchema schema;
    if (stream->get_schema(stream, &schema) != 0) {
        fprintf(stderr, "bench_parquet: get_schema: %s\n", stream->get_last_error(stream));
        return 1;
    }
    /* Map the dataset's columns (by name) to the schema's children. */
    int64_t idx[N_COLS];
    for (int k = 0; k < N_COLS; k++) {
        idx[k] = -1;
        for (int64_t c = 0; c < schema.n_children; c++)
            if (strcmp(schema.children[c]->name, COL_NAMES[k]) == 0) idx[k] = c;
        if (idx[k] < 0) {
            fprintf(stderr, "bench_parquet: %s has no column %s\n", what, COL_NAMES[k]);
            return 1;
        }
    }
    int64_t count = 0;
    for (;;) {
        struct ArrowArray batch;
        if (stream->get_next(stream, &batch) != 0) {
            fprintf(stderr, "bench_parquet: get_next: %s\n", stream->get_last_error(stream));
            return 1;
        }
        if (!batch.release) break;
        count += batch.length;
        for (int k = 0; k < N_COLS; k++)
            if (add_column(schema.children[idx[k]], batch.children[idx[k]], &sums[k])) return 1;
        batch.release(&batch);
    }
    schema.release(&schema);
    stream->release(stream);
    print_result(now_s() - t0, count, sums);
    return 0;
}

static int case_scan(const char *path)
{
    double t0 = now_s();
    hoodie_parquet_read_opts opts = HOODIE_PARQUET_READ_OPTS_INIT;
    hoodie_parquet_reader *r = NULL;
    hoodie_status rc = hoodie_parquet_reader_open(&r, path, &opts);
    if (rc != HOODIE_OK) return fail("reader_open", rc);
    struct ArrowArrayStream stream;
    rc = hoodie_parquet_reader_stream(r, &stream);
    if (rc != HOODIE_OK) {
        hoodie_parquet_reader_free(r);
        return fail("reader_stream", rc);
    }
    int bad = aggregate_stream(&stream, path, t0);
    hoodie_parquet_reader_free(r);
    return bad;
}

/* Snapshot query of the table (the dataset's columns), aggregated as parquet_scan aggregates. */
static int case_table_scan(const char *table)
{
    double t0 = now_s();
    hoodie_table *t = NULL;
    hoodie_status rc = hoodie_table_open(&t, table, NULL);
    if (rc != HOODIE_OK) return fail("table_open", rc);
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.columns = COL_NAMES;
    so.n_columns = N_COLS;
    struct ArrowArrayStream stream;
    rc = hoodie_table_scan(t, &so, &stream);
    if (rc != HOODIE_OK) { hoodie_table_free(t); return fail("table_scan", rc); }
    int bad = aggregate_stream(&stream, table, t0);
    hoodie_table_free(t);
    return bad;
}

/* Schedule and run a compaction of the table (every file slice with logs); prints the instant. */
static int case_compaction(const char *table)
{
    double t0 = now_s();
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    hoodie_service_result sched, run;
    hoodie_status rc = hoodie_compaction_schedule(table, &o, &sched);
    if (rc != HOODIE_OK) return fail("compaction_schedule", rc);
    if (!sched.instant[0]) { fprintf(stderr, "bench_parquet: %s: nothing to compact\n", table); return 1; }
    rc = hoodie_compaction_run(table, &o, sched.instant, &run);
    if (rc != HOODIE_OK) return fail("compaction_run", rc);
    double t1 = now_s();
    printf("hoodie_s=%.3f hoodie_rss_mb=%.1f instant=%s records=%" PRId64 "\n", t1 - t0, peak_rss_mb(), sched.instant,
           run.records);
    return 0;
}

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* CPU time of this thread: the machine is shared, so the bloom case counts its own time only */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int case_bloom(int64_t rows)
{
    enum { CHUNK = 256, PER_FILTER = 1000000 };
    char *keys = xmalloc((size_t)rows * 9);
    for (int64_t i = 0; i < rows; i++) snprintf(keys + 9 * i, 9, "%08" PRId64, i % 100000000);
    const uint8_t *kp[CHUNK];
    size_t kl[CHUNK];
    uint64_t check = UINT64_C(0xcbf29ce484222325);
    hoodie_bloom b;
    hoodie_buf raw = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    double t0 = cpu_s();
    for (int64_t f = 0; f < rows && rc == HOODIE_OK; f += PER_FILTER) {
        int64_t end = f + PER_FILTER < rows ? f + PER_FILTER : rows;
        if ((rc = hoodie_bloom_init(&b, HOODIE_BLOOM_DYNAMIC_V0, 60000, 1e-9, 100000)) != HOODIE_OK) break;
        for (int64_t i = f; i < end && rc == HOODIE_OK; i += CHUNK) {
            size_t n = end - i < CHUNK ? (size_t)(end - i) : CHUNK;
            for (size_t j = 0; j < n; j++) {
                kp[j] = (const uint8_t *)keys + 9 * (i + (int64_t)j);
                kl[j] = 8;
            }
            rc = hoodie_bloom_add_many(&b, kp, kl, n);
        }
        raw.len = 0;
        if (rc == HOODIE_OK) rc = hoodie_bloom_serialize(&b, &raw);
        if (rc == HOODIE_OK) check = fnv1a(check, raw.data, raw.len);
        hoodie_bloom_dispose(&b);
    }
    double t1 = cpu_s();
    if (rc != HOODIE_OK) return fail("bloom add", rc);
    /* the test half: a filter of the first 100000 keys, asked for keys that alternate present / absent */
    if ((rc = hoodie_bloom_init(&b, HOODIE_BLOOM_DYNAMIC_V0, 60000, 1e-9, 100000)) != HOODIE_OK) return fail("bloom", rc);
    for (int64_t i = 0; i < rows && i < 100000 && rc == HOODIE_OK; i++) rc = hoodie_bloom_add(&b, keys + 9 * i, 8);
    if (rc != HOODIE_OK) return fail("bloom add", rc);
    int64_t found = 0;
    double t2 = cpu_s();
    for (int64_t i = 0; i < rows; i++) {
        int64_t k = i & 1 && rows > 100000 ? 100000 + i % (rows - 100000) : i % 100000; /* odd i: absent */
        found += hoodie_bloom_test(&b, keys + 9 * k, 8);
    }
    double t3 = cpu_s();
    /* the same keys through hoodie_bloom_test_many, 256 at a time */
    int64_t found_many = 0;
    uint8_t maybe[CHUNK];
    for (int64_t i = 0; i < rows; i += CHUNK) {
        size_t n = rows - i < CHUNK ? (size_t)(rows - i) : CHUNK;
        for (size_t j = 0; j < n; j++) {
            int64_t q = i + (int64_t)j, k = q & 1 && rows > 100000 ? 100000 + q % (rows - 100000) : q % 100000;
            kp[j] = (const uint8_t *)keys + 9 * k;
            kl[j] = 8;
        }
        hoodie_bloom_test_many(&b, kp, kl, n, maybe);
        for (size_t j = 0; j < n; j++) found_many += maybe[j];
    }
    double t4 = cpu_s();
    if (found_many != found) {
        fprintf(stderr, "bench_parquet: bloom: test_many found %" PRId64 ", test %" PRId64 "\n", found_many, found);
        return 1;
    }
    hoodie_bloom_dispose(&b);
    hoodie_buf_dispose(&raw);
    free(keys);
    printf("add_ns_per_key=%.2f test_ns_per_key=%.2f test_many_ns_per_key=%.2f found=%" PRId64 " check=%016" PRIx64
           "\n", (t1 - t0) * 1e9 / (double)rows, (t3 - t2) * 1e9 / (double)rows, (t4 - t3) * 1e9 / (double)rows,
           found, check);
    return 0;
}

int main(int argc, char **argv)
{
    hoodie_tune_process(argv); /* as the hoodie CLI: the cases time what `hoodie compact` / `hoodie read` do */
    if (argc >= 4 && strcmp(argv[1], "parquet_write") == 0) return case_write(argv[2], strtoll(argv[3], NULL, 10));
    if (argc >= 3 && strcmp(argv[1], "parquet_scan") == 0) return case_scan(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "table_scan") == 0) return case_table_scan(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "compaction") == 0) return case_compaction(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "bloom") == 0) return case_bloom(strtoll(argv[2], NULL, 10));
    if (argc >= 2 && strncmp(argv[1], "parquet_", 8) != 0 && argv[1][0] != '-') {
        fprintf(stderr, "bench_parquet: no case %s\n", argv[1]);
        return 3;
    }
    fprintf(stderr, "usage: bench_parquet parquet_write OUT.parquet ROWS | parquet_scan IN.parquet | table_scan TABLE | compaction TABLE | bloom ROWS\n");
    return 2;
}
