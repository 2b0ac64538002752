/*
 * bench_lsm: the hoodie side of the LSM cases of `make bench` (bench/run.sh). One command per process, so peak
 * RSS is per command.
 *
 *   bench_lsm build DIR ROWS LOGS LOG_ROWS
 *       Untimed inputs of one file group, file records (5 meta columns + the bench_gen.h dataset), every file
 *       sorted by record key (= id): DIR/base.parquet with rows 0..ROWS-1 (commit 20240101000000000), and
 *       DIR/log_01.parquet .. log_<LOGS>.parquet, log j holding LOG_ROWS rows i = (j-1) + LOGS*m (commit time
 *       2024010100000000j, ts + j): updates spread over the whole key range.
 *   bench_lsm compact DIR OUT
 *       Time the FULL compaction of that group as services/lsm_compact.c runs it: the streaming sorted merge
 *       (merge/sorted_merge.h, loser tree; commit-time ordering: the newest version of a key wins) of base and
 *       logs, written by the streaming base-file writer (write/basefile_stream.h; bloom filter, key range, row
 *       groups of HOODIE_LSM_ROW_GROUP_ROWS rows, pages of at most HOODIE_LSM_PAGE_ROWS rows) to OUT. Prints hoodie_s, hoodie_rss_mb, rows_in, rows_out and
 *       lt_cmp_per_rec (loser-tree key comparisons per input record, the repeat checks included).
 *   bench_lsm heap DIR
 *       The same k-way merge of the files' key columns through a plain binary heap (pop, replace the top by its
 *       source's next key, sift down; ties by source index): prints heap_cmp_per_rec.
 *   bench_lsm lookup FILE KEY [REPEAT]
 *       Point lookup of KEY in FILE as a base file of an LSM slice (read/lsm_read.h with cfg.keys: row-group
 *       statistics, then the key column's page index: the page whose bounds hold the key is read and searched,
 *       then only the pages holding that row in the other columns; files without a page index: binary search in
 *       key-sorted batches): the time inside the process from opening the file to the merged row, best of REPEAT
 *       (default 5). Prints hoodie_ms and found.
 */
#include "bench_gen.h"
#include "hoodie/sys/storage.h"
#include "merge/sorted_merge.h"
#include "model/build.h"
#include "read/lsm_read.h"
#include "table/pqfile.h"
#include "util/error.h"
#include "write/basefile_stream.h"
#include "write/lsm_write.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define GEN_BATCH 65536
#define MERGE_BATCH 2048
#define MAX_FILES 64

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
    return (double)ru.ru_maxrss / 1024.0;
}

static void die(const char *what, hoodie_status rc)
{
    fprintf(stderr, "bench_lsm: %s: %s (%d)\n", what, hoodie_error_last()->message, (int)rc);
    exit(1);
}
#define CHECK(what, x) do { hoodie_status rc_ = (x); if (rc_ < 0) die(what, rc_); } while (0)

static const char AVRO[] = "{\"type\":\"record\",\"name\":\"bench_record\",\"fields\":[]}";

static void add(hoodie_field *root, const char *name, hoodie_type_id t)
{
    hoodie_field c;
    CHECK("schema", hoodie_field_init(&c, name, hoodie_type_of(t), 1));
    CHECK("schema", hoodie_field_add_child(root, &c));
    hoodie_field_dispose(&c);
}

static void file_schema(hoodie_field *root)
{
    CHECK("schema", hoodie_field_init(root, "bench_record", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    const char *meta[5] = { "_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                            "_hoodie_partition_path", "_hoodie_file_name" };
    for (int i = 0; i < 5; i++) add(root, meta[i], HOODIE_TYPE_STRING);
    add(root, "id", HOODIE_TYPE_STRING);
    add(root, "name", HOODIE_TYPE_STRING);
    add(root, "age", HOODIE_TYPE_INT32);
    add(root, "address", HOODIE_TYPE_STRING);
    add(root, "partition_path", HOODIE_TYPE_STRING);
    add(root, "ts", HOODIE_TYPE_INT64);
}

/* Write rows first, first+stride, ... (count of them) as one sorted file. */
static void write_file(const char *path, const hoodie_field *schema, int64_t first, int64_t stride, int64_t count,
                       int version)
{
    hoodie_basefile_opts bo = { NULL, path, schema, AVRO, HOODIE_PARQUET_CODEC_SNAPPY, 0, 0, NULL, NULL, NULL, NULL, 0, NULL, 0 };
    hoodie_basefile_stream *bs;
    char commit[32], seq[64], fname[64];
    snprintf(commit, sizeof commit, "202401010000000%02d", version);
    snprintf(fname, sizeof fname, "bench-0000-0_0-0-0_%s.parquet", commit);
    remove(path);
    CHECK(path, hoodie_basefile_stream_open(&bs, &bo, HOODIE_LSM_ROW_GROUP_ROWS, HOODIE_LSM_PAGE_BYTES,
                                             HOODIE_LSM_PAGE_ROWS));
    for (int64_t done = 0; done < count;) {
        int64_t n = count - done < GEN_BATCH ? count - done : GEN_BATCH;
        hoodie_batch b;
        CHECK("batch", hoodie_batch_init(&b, schema));
        const hoodie_field *f = b.schema.children;
        hoodie_array *a = b.root.children;
        for (int64_t k = 0; k < n; k++) {
            int64_t i = first + (done + k) * stride;
            bench_row r;
            bench_gen_row(i, &r);
            snprintf(seq, sizeof seq, "%s_0_%" PRId64, commit, done + k);
            CHECK("row", hoodie_array_append_str(&a[0], &f[0], commit));
            CHECK("row", hoodie_array_append_str(&a[1], &f[1], seq));
            CHECK("row", hoodie_array_append_bytes(&a[2], &f[2], r.id, r.id_len));
            CHECK("row", hoodie_array_append_bytes(&a[3], &f[3], r.partition_path, r.partition_path_len));
            CHECK("row", hoodie_array_append_str(&a[4], &f[4], fname));
            CHECK("row", hoodie_array_append_bytes(&a[5], &f[5], r.id, r.id_len));
            CHECK("row", hoodie_array_append_bytes(&a[6], &f[6], r.name, r.name_len));
            CHECK("row", hoodie_array_append_int(&a[7], &f[7], r.age));
            CHECK("row", hoodie_array_append_bytes(&a[8], &f[8], r.address, r.address_len));
            CHECK("row", hoodie_array_append_bytes(&a[9], &f[9], r.partition_path, r.partition_path_len));
            CHECK("row", hoodie_array_append_int(&a[10], &f[10], r.ts + version));
        }
        b.root.length = n;
        CHECK(path, hoodie_basefile_stream_write(bs, &b));
        hoodie_batch_dispose(&b);
        done += n;
    }
    CHECK(path, hoodie_basefile_stream_close(bs, NULL, NULL));
    hoodie_basefile_stream_free(bs);
}

static int cmd_build(const char *dir, int64_t rows, int logs, int64_t log_rows)
{
    hoodie_field schema;
    char path[4096];
    file_schema(&schema);
    snprintf(path, sizeof path, "%s/base.parquet", dir);
    write_file(path, &schema, 0, 1, rows, 0);
    for (int j = 1; j <= logs; j++) {
        snprintf(path, sizeof path, "%s/log_%02d.parquet", dir, j);
        write_file(path, &schema, j - 1, logs, log_rows, j);
    }
    hoodie_field_dispose(&schema);
    printf("built %s: base %" PRId64 " rows, %d logs of %" PRId64 " rows\n", dir, rows, logs, log_rows);
    return 0;
}

/* ---- the files of DIR ---- */

typedef struct src {
    hoodie_parquet_reader *r;
    hoodie_pq_scan *sc;
} src;

static size_t open_files(const char *dir, src *s, const char *const *cols, size_t n_cols)
{
    size_t n = 0;
    char path[4096];
    for (int j = 0; j < MAX_FILES; j++) {
        if (j == 0) snprintf(path, sizeof path, "%s/base.parquet", dir);
        else snprintf(path, sizeof path, "%s/log_%02d.parquet", dir, j);
        FILE *f = fopen(path, "rb");
        if (!f) { if (j == 0) die("no base.parquet", HOODIE_ENOTFOUND); break; }
        fclose(f);
        hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
        o.batch_rows = MERGE_BATCH;
        o.columns = cols;
        o.n_columns = n_cols;
        CHECK(path, hoodie_parquet_reader_open(&s[n].r, path, &o));
        CHECK(path, hoodie_pqfile__scan_open(s[n].r, &s[n].sc));
        n++;
    }
    return n;
}

static void close_files(src *s, size_t n)
{
    for (size_t i = 0; i < n; i++) { hoodie_pq_scan_free(s[i].sc); hoodie_parquet_reader_free(s[i].r); }
}

static hoodie_status src_next(void *ctx, hoodie_batch *out, uint8_t **deleted)
{
    if (deleted) *deleted = NULL;
    return hoodie_pq_scan_next(((src *)ctx)->sc, out);
}

static int cmd_compact(const char *dir, const char *out)
{
    src s[MAX_FILES];
    hoodie_sorted_source ss[MAX_FILES];
    double t0 = now_s();
    size_t k = open_files(dir, s, NULL, 0);
    for (size_t i = 0; i < k; i++) { ss[i].next = src_next; ss[i].ctx = &s[i]; }
    const hoodie_field *schema = hoodie_pqfile__schema(s[0].r);
    hoodie_merge_policy pol = { .log_fold = HOODIE_MERGE_COMMIT_TIME_ORDERING,
                                .base = HOODIE_MERGE_COMMIT_TIME_ORDERING };
    hoodie_sorted_merge_cfg mc = { schema, 2, -1, -1, pol, 1, 0, 1, MERGE_BATCH, NULL };
    hoodie_sorted_merge *m;
    CHECK("merge", hoodie_sorted_merge_open(&m, &mc, ss, k));
    remove(out);
    hoodie_basefile_opts bo = { NULL, out, schema, AVRO, HOODIE_PARQUET_CODEC_SNAPPY, 0, 0, NULL, NULL, NULL, NULL, 0, NULL, 0 };
    hoodie_basefile_stream *bs;
    CHECK(out, hoodie_basefile_stream_open(&bs, &bo, HOODIE_LSM_ROW_GROUP_ROWS, HOODIE_LSM_PAGE_BYTES,
                                             HOODIE_LSM_PAGE_ROWS));
    hoodie_status rc;
    hoodie_batch b;
    while ((rc = hoodie_sorted_merge_next(m, &b, NULL)) == HOODIE_OK) {
        CHECK(out, hoodie_basefile_stream_write(bs, &b));
        hoodie_batch_dispose(&b);
    }
    if (rc != HOODIE_ITEROVER) die("merge", rc);
    int64_t rows = 0;
    CHECK(out, hoodie_basefile_stream_close(bs, NULL, &rows));
    /* the file is written in the background (HOODIE_CREATE_DEFER_VISIBLE): the time includes its landing, which an
     * operation on its path waits for */
    const hoodie_storage *st_out = hoodie_storage_default();
    if (st_out->exists(st_out->ctx, out) != 1) { fprintf(stderr, "bench_lsm: %s: not written\n", out); exit(1); }
    double t1 = now_s();
    hoodie_sorted_merge_stats st;
    hoodie_sorted_merge_stats_get(m, &st);
    hoodie_basefile_stream_free(bs);
    hoodie_sorted_merge_free(m);
    close_files(s, k);
    printf("hoodie_s=%.3f hoodie_rss_mb=%.1f sources=%zu rows_in=%" PRIu64 " rows_out=%" PRId64
           " lt_cmp_per_rec=%.3f\n", t1 - t0, peak_rss_mb(), k, st.rows_in, rows,
           (double)(st.comparisons + st.repeat_checks) / (double)(st.rows_in ? st.rows_in : 1));
    return 0;
}

/* ---- binary heap k-way merge of the key columns, counting comparisons ---- */

typedef struct hsrc {
    src s;
    hoodie_batch b;
    int64_t row;
    int done;
} hsrc;

static uint64_t heap_cmps;

static void key_of(const hsrc *h, const uint8_t **p, size_t *n)
{
    const hoodie_array *a = &h->b.root.children[0];
    *p = a->values + a->offsets[h->row];
    *n = (size_t)(a->offsets[h->row + 1] - a->offsets[h->row]);
}

static int hless(const hsrc *hs, uint32_t a, uint32_t b)
{
    const uint8_t *pa, *pb;
    size_t na, nb;
    heap_cmps++;
    key_of(&hs[a], &pa, &na);
    key_of(&hs[b], &pb, &nb);
    int c = hoodie_sorted_key_compare(pa, na, pb, nb);
    return c < 0 || (c == 0 && a < b);
}

static int hadvance(hsrc *h)
{
    if (++h->row < h->b.root.length) return 1;
    for (;;) {
        hoodie_batch_dispose(&h->b);
        hoodie_status rc = hoodie_pq_scan_next(h->s.sc, &h->b);
        if (rc == HOODIE_ITEROVER) { memset(&h->b, 0, sizeof h->b); h->done = 1; return 0; }
        if (rc < 0) die("heap scan", rc);
        h->row = 0;
        if (h->b.root.length) return 1;
    }
}

static void sift_down(const hsrc *hs, uint32_t *heap, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && hless(hs, heap[l], heap[m])) m = l;
        if (r < n && hless(hs, heap[r], heap[m])) m = r;
        if (m == i) return;
        uint32_t t = heap[i]; heap[i] = heap[m]; heap[m] = t;
        i = m;
    }
}

static int cmd_heap(const char *dir)
{
    src s[MAX_FILES];
    hsrc hs[MAX_FILES];
    uint32_t heap[MAX_FILES];
    const char *cols[1] = { "_hoodie_record_key" };
    size_t k = open_files(dir, s, cols, 1), n = 0;
    uint64_t records = 0;
    for (size_t i = 0; i < k; i++) {
        memset(&hs[i], 0, sizeof hs[i]);
        hs[i].s = s[i];
        hs[i].row = -1;
        CHECK("heap", hoodie_batch_init(&hs[i].b, hoodie_pqfile__schema(s[i].r)));
        if (hadvance(&hs[i])) heap[n++] = (uint32_t)i;
    }
    for (size_t i = n / 2; i-- > 0;) sift_down(hs, heap, n, i);
    while (n) {
        records++;
        if (hadvance(&hs[heap[0]])) sift_down(hs, heap, n, 0);
        else { heap[0] = heap[--n]; sift_down(hs, heap, n, 0); }
    }
    for (size_t i = 0; i < k; i++) {
        if (!hs[i].done) hoodie_batch_dispose(&hs[i].b);
        hoodie_pq_scan_free(hs[i].s.sc);
        hoodie_parquet_reader_free(hs[i].s.r);
    }
    printf("heap_cmp_per_rec=%.3f records=%" PRIu64 "\n", (double)heap_cmps / (double)(records ? records : 1), records);
    return 0;
}

/* ---- point lookup ---- */

static int cmd_lookup(const char *file, const char *key, int repeat)
{
    hoodie_parquet_reader *r;
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    CHECK(file, hoodie_parquet_reader_open(&r, file, &o));
    hoodie_field schema;
    CHECK("schema", hoodie_field_clone(&schema, hoodie_pqfile__schema(r)));
    hoodie_parquet_reader_free(r);
    hoodie_fs_file base;
    memset(&base, 0, sizeof base);
    base.name = base.path = file;
    base.partition = "";
    hoodie_file_slice sl = { "20240101000000000", &base, NULL, 0 };
    const char *keys[1] = { key };
    hoodie_lsm_slice_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scan.schema = &schema;
    cfg.key_col = 2;
    cfg.ordering_col = cfg.deleted_col = -1;
    cfg.policy.log_fold = cfg.policy.base = HOODIE_MERGE_COMMIT_TIME_ORDERING;
    cfg.keys = keys;
    cfg.n_keys = 1;
    double best = 1e9;
    int64_t found = 0;
    char ts[32] = "";
    for (int it = 0; it < repeat; it++) {
        double t0 = now_s();
        hoodie_lsm_slice *ls;
        CHECK("lookup", hoodie_lsm_slice_open(&ls, &cfg, &sl));
        hoodie_batch b;
        hoodie_status rc;
        found = 0;
        while ((rc = hoodie_lsm_slice_next(ls, &b, NULL)) == HOODIE_OK) {
            found += b.root.length;
            if (b.root.length) snprintf(ts, sizeof ts, "%" PRId64, ((const int64_t *)b.root.children[10].values)[0]);
            hoodie_batch_dispose(&b);
        }
        if (rc != HOODIE_ITEROVER) die("lookup", rc);
        hoodie_lsm_slice_free(ls);
        double t = now_s() - t0;
        if (t < best) best = t;
    }
    hoodie_field_dispose(&schema);
    printf("hoodie_ms=%.3f found=%" PRId64 " ts=%s hoodie_rss_mb=%.1f\n", best * 1e3, found, ts, peak_rss_mb());
    return 0;
}

int main(int argc, char **argv)
{
    hoodie_tune_process(argv); /* as the hoodie CLI */
    if (argc >= 6 && !strcmp(argv[1], "build"))
        return cmd_build(argv[2], strtoll(argv[3], NULL, 10), atoi(argv[4]), strtoll(argv[5], NULL, 10));
    if (argc == 4 && !strcmp(argv[1], "compact")) return cmd_compact(argv[2], argv[3]);
    if (argc == 3 && !strcmp(argv[1], "heap")) return cmd_heap(argv[2]);
    if (argc >= 4 && !strcmp(argv[1], "lookup")) return cmd_lookup(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 5);
    fprintf(stderr, "usage: bench_lsm build DIR ROWS LOGS LOG_ROWS | compact DIR OUT | heap DIR | lookup FILE KEY [N]\n");
    return 2;
}
