/* Log scans decode only the Avro data blocks that apply: blocks a later block drops (rollback command block,
 * log compaction) are not decoded, so even corrupt records in them do not fail the scan. */
#include "hoodie_test.h"
#include "format/avro/binary.h"
#include "format/hlog/hlog_write.h"
#include "model/avro.h"
#include "read/logscan.h"
#include "read/slice_merge.h"
#include "storage/storage.h"
#include "table/pqwrite.h"
#include "util/error.h"

#include <stdlib.h>

static const char *LS_SCHEMA =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"_hoodie_record_key\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"v\",\"type\":[\"null\",\"long\"]}]}";

#define T(n) "2025010100000000" #n

/* An Avro data block begun with headers h (sorted here), its records to follow; then ended. */
static void avro_block_begin(hoodie_buf *out, hoodie_hlog_header_entry *h, size_t nh, hoodie_hlog_block_mark *m,
                             hoodie_hlog_avro_writer *w)
{
    hoodie_hlog_header_sort(h, nh);
    hoodie_assert_ok(hoodie_hlog_block_begin(out, m, HOODIE_HLOG_AVRO_DATA_BLOCK, h, nh));
    hoodie_assert_ok(hoodie_hlog_avro_content_begin(out, w));
}

static void avro_block_end(hoodie_buf *out, const hoodie_hlog_block_mark *m, hoodie_hlog_avro_writer *w)
{
    hoodie_assert_ok(hoodie_hlog_avro_content_end(out, w));
    hoodie_assert_ok(hoodie_hlog_block_end(out, m));
}

/* An Avro data block of `n` records (key "k<i>", v = base + i); corrupt: the records' union branch is 7. With
 * `ident`, a BLOCK_IDENTIFIER header of that value. */
static void data_block_id(hoodie_buf *out, const char *instant, const char *compacted, int n, int base, int corrupt,
                          const char *ident)
{
    hoodie_hlog_header_entry h[4];
    size_t nh = 0;
    h[nh++] = (hoodie_hlog_header_entry){ HOODIE_HLOG_INSTANT_TIME, instant, strlen(instant) };
    if (ident) h[nh++] = (hoodie_hlog_header_entry){ HOODIE_HLOG_BLOCK_IDENTIFIER, ident, strlen(ident) };
    if (compacted) h[nh++] = (hoodie_hlog_header_entry){ HOODIE_HLOG_COMPACTED_BLOCK_TIMES, compacted, strlen(compacted) };
    h[nh++] = (hoodie_hlog_header_entry){ HOODIE_HLOG_SCHEMA, LS_SCHEMA, strlen(LS_SCHEMA) };
    hoodie_hlog_block_mark m;
    hoodie_hlog_avro_writer w;
    avro_block_begin(out, h, nh, &m, &w);
    for (int i = 0; i < n; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", base + i);
        hoodie_assert_ok(hoodie_hlog_avro_record_begin(out, &w));
        hoodie_assert_ok(hoodie_avro_write_long(out, corrupt ? 7 : 1));
        hoodie_assert_ok(hoodie_avro_write_bytes(out, key, strlen(key)));
        hoodie_assert_ok(hoodie_avro_write_long(out, 1));
        hoodie_assert_ok(hoodie_avro_write_long(out, base + i));
        hoodie_assert_ok(hoodie_hlog_avro_record_end(out, &w));
    }
    avro_block_end(out, &m, &w);
}

static void data_block(hoodie_buf *out, const char *instant, const char *compacted, int n, int base, int corrupt)
{
    data_block_id(out, instant, compacted, n, base, corrupt, NULL);
}

typedef struct ls_fixture {
    hoodie_storage *s;
    hoodie_timeline *tl;
    hoodie_arena *a;
    hoodie_field schema;
    hoodie_fs_file files[4];
    const hoodie_fs_file *logs[4];
    size_t n_logs;
} ls_fixture;

static void ls_setup(ls_fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    hoodie_assert_ok(hoodie_storage_mem_new(&fx->s));
    hoodie_assert_ok(hoodie_arena_new(&fx->a, NULL, 4096));
    for (int i = 1; i <= 6; i++) {
        char p[64];
        snprintf(p, sizeof p, "/t/.hoodie/2025010100000000%d.deltacommit", i);
        hoodie_assert_ok(hoodie_storage_write_all(fx->s, p, 0, "{}", 2));
    }
    hoodie_assert_ok(hoodie_timeline_load_dir(&fx->tl, fx->s, "/t/.hoodie", 1));
    hoodie_avro_schema *sch;
    hoodie_assert_ok(hoodie_avro_schema_parse(&sch, LS_SCHEMA, strlen(LS_SCHEMA), fx->a, "schema"));
    hoodie_assert_ok(hoodie_avro_to_field(&fx->schema, sch, "root"));
}

static void ls_add_file(ls_fixture *fx, const char *name, const hoodie_buf *content)
{
    hoodie_fs_file *f = &fx->files[fx->n_logs];
    char *path = hoodie_arena_calloc(fx->a, strlen(name) + 4, 1);
    sprintf(path, "/t/%s", name);
    hoodie_assert_ok(hoodie_storage_write_all(fx->s, path, 0, content->data, content->len));
    f->name = path + 3;
    f->path = path;
    f->partition = "";
    f->size = content->len;
    f->fn.kind = HOODIE_FILE_LOG;
    fx->logs[fx->n_logs++] = f;
}

static hoodie_status ls_scan_ranged(ls_fixture *fx, hoodie_log_items *items, uint64_t ranged_min)
{
    hoodie_logscan_ctx ctx = { fx->s, fx->tl, NULL, &fx->schema, NULL, 0, 0, 0, 0, ranged_min, 0, NULL, NULL, 0 };
    return hoodie_logscan(items, &ctx, fx->logs, fx->n_logs);
}

static hoodie_status ls_scan(ls_fixture *fx, hoodie_log_items *items)
{
    return ls_scan_ranged(fx, items, 0);
}

static void ls_teardown(ls_fixture *fx)
{
    hoodie_field_dispose(&fx->schema);
    hoodie_timeline_free(fx->tl);
    hoodie_arena_free(fx->a);
    hoodie_storage_free(fx->s);
}

HOODIE_TEST(read_logscan__dropped_blocks_are_not_decoded)
{
    ls_fixture fx;
    ls_setup(&fx);
    hoodie_buf f1 = HOODIE_BUF_INIT, f2 = HOODIE_BUF_INIT, f3 = HOODIE_BUF_INIT;
    /* file 1: T1 (2 rows), T2 corrupt, a rollback of T2, T2 again (1 row: the retry stays) */
    data_block(&f1, T(1), NULL, 2, 0, 0);
    data_block(&f1, T(2), NULL, 3, 10, 1);
    hoodie_assert_ok(hoodie_hlog_write_rollback(&f1, T(3), T(2)));
    data_block(&f1, T(2), NULL, 1, 20, 0);
    /* file 2: T4 corrupt, then T5 compacting T4 (2 rows) */
    data_block(&f2, T(4), NULL, 4, 30, 1);
    data_block(&f2, T(5), T(4), 2, 40, 0);
    /* file 3: T6 compacting T1 (decoded in file 1 already: dropped, its rows freed) */
    data_block(&f3, T(6), T(1), 1, 50, 0);
    ls_add_file(&fx, ".f1_" T(1) ".log.1_0-1-0", &f1);
    ls_add_file(&fx, ".f1_" T(1) ".log.2_0-1-0", &f2);
    ls_add_file(&fx, ".f1_" T(1) ".log.3_0-1-0", &f3);
    hoodie_log_items items;
    hoodie_assert_ok(ls_scan(&fx, &items));
    hoodie_assert_equal_i(6, items.count);
    static const struct { const char *instant; int removed; int64_t rows; } want[] = {
        { T(1), 1, 0 }, { T(2), 1, 0 }, { T(2), 0, 1 }, { T(4), 1, 0 }, { T(5), 0, 2 }, { T(6), 0, 1 },
    };
    for (size_t i = 0; i < 6; i++) {
        hoodie_assert_equal_s(want[i].instant, items.items[i].instant);
        hoodie_assert_equal_i(want[i].removed, items.items[i].removed);
        hoodie_assert_equal_i(want[i].rows, items.items[i].batch.root.length);
    }
    /* the retried T2 block's row */
    const hoodie_array *v = &items.items[2].batch.root.children[1];
    hoodie_assert_equal_i(20, hoodie_array_int_at(&fx.schema.children[1], v, 0));
    /* blocks that apply, as log compaction scheduling counts them: the retried T2, T5, T6 */
    hoodie_assert_equal_i(3, hoodie_log_items_blocks(&items));
    hoodie_log_items_dispose(&items);
    hoodie_logscan_ctx hc = { fx.s, fx.tl, NULL, &fx.schema, NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, 0 };
    int64_t blocks = -1;
    hoodie_assert_ok(hoodie_logscan_blocks(&hc, fx.logs, fx.n_logs, &blocks, NULL));
    hoodie_assert_equal_i(3, blocks);

    /* a corrupt block that applies still fails the scan, naming the file and the record's offset */
    hoodie_buf f4 = HOODIE_BUF_INIT;
    data_block(&f4, T(6), NULL, 1, 60, 1);
    ls_add_file(&fx, ".f1_" T(1) ".log.4_0-1-0", &f4);
    hoodie_assert_ok(hoodie_logscan_blocks(&hc, fx.logs, fx.n_logs, &blocks, NULL)); /* counting decodes no record */
    hoodie_assert_equal_i(4, blocks);
    hoodie_assert_status(HOODIE_ECORRUPT, ls_scan(&fx, &items));
    hoodie_assert_contains(hoodie_error__message(), ".log.4_0-1-0");
    hoodie_assert_contains(hoodie_error__message(), "union branch 7 out of range");
    hoodie_assert_contains(hoodie_error__message(), "at offset ");
    hoodie_buf_dispose(&f1);
    hoodie_buf_dispose(&f2);
    hoodie_buf_dispose(&f3);
    hoodie_buf_dispose(&f4);
    ls_teardown(&fx);
}

/* Reads through the in-memory storage, counted: the largest read and the bytes read. */
static hoodie_status (*inner_read_at)(void *, hoodie_rfile *, uint64_t, void *, size_t);
static size_t max_read;
static uint64_t bytes_read;

static hoodie_status counted_read_at(void *ctx, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    if (len > max_read) max_read = len;
    bytes_read += len;
    return inner_read_at(ctx, f, off, buf, len);
}

/* Two scans' items are the same: instants, removed, rows (keys and values) and deletes. */
static void assert_same_items(const hoodie_field *schema, const hoodie_log_items *a, const hoodie_log_items *b)
{
    hoodie_assert_equal_i(a->count, b->count);
    hoodie_assert_equal_i(a->corrupt_blocks, b->corrupt_blocks);
    hoodie_assert_equal_i(a->skipped_blocks, b->skipped_blocks);
    for (size_t i = 0; i < a->count; i++) {
        const hoodie_log_item *x = &a->items[i], *y = &b->items[i];
        hoodie_assert_equal_i(x->kind, y->kind);
        hoodie_assert_equal_s(x->instant, y->instant);
        hoodie_assert_equal_i(x->removed, y->removed);
        hoodie_assert_equal_i(x->block_start, y->block_start);
        if (x->kind == HOODIE_LOG_DELETES) {
            hoodie_assert_equal_i(x->delete_count, y->delete_count);
            for (size_t d = 0; d < x->delete_count; d++)
                hoodie_assert_equal_s(x->deletes[d].record_key, y->deletes[d].record_key);
            continue;
        }
        hoodie_assert_equal_i(x->batch.root.length, y->batch.root.length);
        for (int64_t r = 0; r < x->batch.root.length; r++) {
            size_t kx, ky;
            const uint8_t *px = hoodie_array_bytes_at(&x->batch.root.children[0], r, &kx);
            const uint8_t *py = hoodie_array_bytes_at(&y->batch.root.children[0], r, &ky);
            hoodie_assert_equal_i(kx, ky);
            hoodie_assert(!memcmp(px, py, kx));
            hoodie_assert_equal_i(hoodie_array_int_at(&schema->children[1], &x->batch.root.children[1], r),
                                  hoodie_array_int_at(&schema->children[1], &y->batch.root.children[1], r));
        }
    }
}

/*
 * A large log file on storage that does not map files (S3) is read a block at a time: headers from a block's first
 * bytes (more when the header is longer), content when it is decoded. It gives exactly the items of a whole read:
 * data, deletes, a rollback, a log compaction, a header of 100 KB, and corrupt bytes in the middle (from which the
 * rest is read whole and scanned as before); no read is of the whole file.
 */
HOODIE_TEST(read_logscan__ranged_reads_give_whole_file_items)
{
    ls_fixture fx;
    ls_setup(&fx);
    hoodie_storage counted = *fx.s;
    inner_read_at = fx.s->read_at;
    counted.read_at = counted_read_at;
    counted.destroy = NULL;
    hoodie_storage *mem = fx.s;
    fx.s = &counted;

    char *ident = malloc(100001);
    memset(ident, 'x', 100000);
    ident[100000] = '\0';
    hoodie_buf f1 = HOODIE_BUF_INIT, f2 = HOODIE_BUF_INIT;
    data_block(&f1, T(1), NULL, 40000, 0, 0);
    data_block_id(&f1, T(2), NULL, 50, 5000, 0, ident); /* a header longer than the first read */
    hoodie_hlog_delete del[3] = { { "k1", "", HOODIE_HLOG_ORD_NULL, 0, 0, NULL, 0 },
                                  { "k2", "", HOODIE_HLOG_ORD_NULL, 0, 0, NULL, 0 },
                                  { "k5001", "", HOODIE_HLOG_ORD_NULL, 0, 0, NULL, 0 } };
    hoodie_hlog_header_entry dh[1] = { { HOODIE_HLOG_INSTANT_TIME, T(3), strlen(T(3)) } };
    hoodie_assert_ok(hoodie_hlog_write_delete_block(&f1, dh, 1, del, 3));
    data_block(&f1, T(4), NULL, 20000, 90000, 0);
    hoodie_assert_ok(hoodie_hlog_write_rollback(&f1, T(5), T(4)));
    data_block(&f1, T(4), NULL, 20, 91000, 0);
    data_block(&f2, T(1), NULL, 4000, 200000, 0);
    data_block(&f2, T(5), T(4), 10, 300000, 0); /* replaces T4's retry */
    size_t cut = f2.len;
    static const char junk[] = "#HUDI#\0\0\0\0\0\0\xff\xff" "junk"; /* a block size past the end: corrupt */
    hoodie_assert_ok(hoodie_buf_append(&f2, junk, sizeof junk - 1));
    data_block(&f2, T(6), NULL, 30, 400000, 0);
    ls_add_file(&fx, ".f1_" T(1) ".log.1_0-1-0", &f1);
    ls_add_file(&fx, ".f1_" T(1) ".log.2_0-1-0", &f2);

    hoodie_log_items whole, ranged;
    max_read = 0;
    hoodie_assert_ok(ls_scan_ranged(&fx, &whole, UINT64_MAX));
    hoodie_assert_equal_i(f1.len > f2.len ? f1.len : f2.len, max_read); /* read whole */
    hoodie_assert_equal_i(1, whole.corrupt_blocks);
    max_read = 0;
    bytes_read = 0;
    hoodie_assert_ok(ls_scan_ranged(&fx, &ranged, 1));
    assert_same_items(&fx.schema, &whole, &ranged);
    hoodie_assert(max_read < f1.len * 3 / 4);  /* file 1: a block at a time (T1's is 3/5 of it) */
    hoodie_assert(max_read > f2.len - cut);    /* file 2: from the corrupt bytes on, whole */
    hoodie_assert(bytes_read < (f1.len + f2.len) * 2);
    /* what was read: T1 3000 rows, T2 50, deletes, T4 removed, T4 retry replaced by T5, T1 4000, T5 10, T6 30 */
    int64_t rows = 0;
    for (size_t i = 0; i < ranged.count; i++)
        if (!ranged.items[i].removed && ranged.items[i].kind == HOODIE_LOG_DATA) rows += ranged.items[i].batch.root.length;
    hoodie_assert_equal_i(40000 + 50 + 4000 + 10 + 30, rows);
    hoodie_log_items_dispose(&whole);
    hoodie_log_items_dispose(&ranged);

    /* headers only (log compaction scheduling): the same blocks counted from their first bytes */
    hoodie_logscan_ctx hc = { fx.s, fx.tl, NULL, &fx.schema, NULL, 0, 1, 0, 0, 1, 0, NULL, NULL, 0 };
    int64_t blocks = -1;
    bytes_read = 0;
    max_read = 0;
    hoodie_assert_ok(hoodie_logscan_blocks(&hc, fx.logs, 1, &blocks, NULL));
    hoodie_assert_equal_i(4, blocks); /* T1, T2, deletes, T4 retry (T5 in file 2 not seen) */
    hoodie_assert(bytes_read < f1.len / 2);
    hoodie_assert(max_read <= 64 << 10);

    /* a failure in a block read in ranges names the file and the offset, as a whole read does */
    hoodie_buf f3 = HOODIE_BUF_INIT;
    data_block(&f3, T(6), NULL, 5, 50000, 1);
    ls_add_file(&fx, ".f1_" T(1) ".log.3_0-1-0", &f3);
    hoodie_assert_status(HOODIE_ECORRUPT, ls_scan_ranged(&fx, &ranged, 1));
    hoodie_assert_contains(hoodie_error__message(), ".log.3_0-1-0");
    hoodie_assert_contains(hoodie_error__message(), "at offset ");

    fx.s = mem;
    free(ident);
    hoodie_buf_dispose(&f1);
    hoodie_buf_dispose(&f2);
    hoodie_buf_dispose(&f3);
    ls_teardown(&fx);
}

/* ---- partial-update blocks (IS_PARTIAL) ---- */

static const char *PU_FULL =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"_hoodie_record_key\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"ts\",\"type\":[\"null\",\"long\"]},"
    "{\"name\":\"a\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"b\",\"type\":[\"null\",\"string\"]}]}";

/* A data block of records (key, ts, value of column `col`: "a", "b", or NULL for a whole record with a and b
 * both `v`), its schema the key, ts and that column; IS_PARTIAL "true" unless whole. */
static void pu_block(hoodie_buf *out, const char *instant, const char *col, const char *const *keys, const int *ts,
                     const char *const *vals, int n)
{
    char schema[512];
    if (col)
        snprintf(schema, sizeof schema, "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
                 "{\"name\":\"_hoodie_record_key\",\"type\":[\"null\",\"string\"]},"
                 "{\"name\":\"ts\",\"type\":[\"null\",\"long\"]},"
                 "{\"name\":\"%s\",\"type\":[\"null\",\"string\"]}]}", col);
    else snprintf(schema, sizeof schema, "%s", PU_FULL);
    hoodie_hlog_header_entry h[3];
    size_t nh = 0;
    h[nh++] = (hoodie_hlog_header_entry){ HOODIE_HLOG_INSTANT_TIME, instant, strlen(instant) };
    if (col) h[nh++] = (hoodie_hlog_header_entry){ HOODIE_HLOG_IS_PARTIAL, "true", 4 };
    h[nh++] = (hoodie_hlog_header_entry){ HOODIE_HLOG_SCHEMA, schema, strlen(schema) };
    hoodie_hlog_block_mark m;
    hoodie_hlog_avro_writer w;
    avro_block_begin(out, h, nh, &m, &w);
    for (int i = 0; i < n; i++) {
        hoodie_assert_ok(hoodie_hlog_avro_record_begin(out, &w));
        hoodie_assert_ok(hoodie_avro_write_long(out, 1));
        hoodie_assert_ok(hoodie_avro_write_bytes(out, keys[i], strlen(keys[i])));
        hoodie_assert_ok(hoodie_avro_write_long(out, 1));
        hoodie_assert_ok(hoodie_avro_write_long(out, ts[i]));
        for (int k = 0; k < (col ? 1 : 2); k++) {
            hoodie_assert_ok(hoodie_avro_write_long(out, 1));
            hoodie_assert_ok(hoodie_avro_write_bytes(out, vals[i], strlen(vals[i])));
        }
        hoodie_assert_ok(hoodie_hlog_avro_record_end(out, &w));
    }
    avro_block_end(out, &m, &w);
}

/* pu_block's records as a PARQUET_DATA_BLOCK (the embedded file's columns: the key, ts and `col`). */
static void pu_parquet_block(ls_fixture *fx, hoodie_buf *out, const char *instant, const char *col,
                             const char *const *keys, const int *ts, const char *const *vals, int n)
{
    char json[512];
    snprintf(json, sizeof json, "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
             "{\"name\":\"_hoodie_record_key\",\"type\":[\"null\",\"string\"]},"
             "{\"name\":\"ts\",\"type\":[\"null\",\"long\"]},"
             "{\"name\":\"%s\",\"type\":[\"null\",\"string\"]}]}", col);
    hoodie_avro_schema *sch;
    hoodie_field f;
    hoodie_assert_ok(hoodie_avro_schema_parse(&sch, json, strlen(json), fx->a, "schema"));
    hoodie_assert_ok(hoodie_avro_to_field(&f, sch, "root"));
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &f));
    for (int i = 0; i < n; i++) {
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[0], &f.children[0], keys[i]));
        hoodie_assert_ok(hoodie_array_append_int(&b.root.children[1], &f.children[1], ts[i]));
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[2], &f.children[2], vals[i]));
        b.root.length++;
    }
    hoodie_pqwrite *w;
    hoodie_assert_ok(hoodie_pqwrite_open(&w, "/t/block.parquet", fx->s, &f, NULL));
    hoodie_assert_ok(hoodie_pqwrite_write_batch(w, &b));
    hoodie_assert_ok(hoodie_pqwrite_close(w));
    hoodie_pqwrite_free(w);
    hoodie_buf pq = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(fx->s, "/t/block.parquet", &pq));
    hoodie_assert_ok(fx->s->remove(fx->s->ctx, "/t/block.parquet"));
    hoodie_hlog_header_entry h[3] = { { HOODIE_HLOG_INSTANT_TIME, instant, strlen(instant) },
                                      { HOODIE_HLOG_IS_PARTIAL, "true", 4 },
                                      { HOODIE_HLOG_SCHEMA, json, strlen(json) } };
    hoodie_hlog_header_sort(h, 3);
    hoodie_assert_ok(hoodie_hlog_write_block(out, HOODIE_HLOG_PARQUET_DATA_BLOCK, h, 3, pq.data, pq.len));
    hoodie_buf_dispose(&pq);
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&f);
}

/* The merged rows of `base` (rows "key,ts,a,b") with fx's logs as "key:ts:a:b" sorted, event-time ordering on ts;
 * *refused: a log compaction of them was refused. */
static void pu_merge(ls_fixture *fx, const char *const *base, int n_base, char *out, size_t cap, int *refused)
{
    hoodie_log_items items;
    hoodie_assert_ok(ls_scan(fx, &items));
    hoodie_batch b, merged, rest;
    hoodie_assert_ok(hoodie_batch_init(&b, &fx->schema));
    for (int i = 0; i < n_base; i++) {
        char k[16], a[16], bb[16];
        int ts;
        hoodie_assert(sscanf(base[i], "%15[^,],%d,%15[^,],%15s", k, &ts, a, bb) == 4);
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[0], &fx->schema.children[0], k));
        hoodie_assert_ok(hoodie_array_append_int(&b.root.children[1], &fx->schema.children[1], ts));
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[2], &fx->schema.children[2], a));
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[3], &fx->schema.children[3], bb));
        b.root.length++;
    }
    hoodie_slice_merge_cfg mc;
    memset(&mc, 0, sizeof mc);
    mc.schema = &fx->schema;
    mc.key_col = 0;
    mc.ordering_col = 1;
    mc.deleted_col = -1;
    mc.policy.log_fold = mc.policy.base = HOODIE_MERGE_EVENT_TIME_ORDERING;
    hoodie_slice_merger *m;
    hoodie_assert_ok(hoodie_slice_merger_new(&m, &mc, &items));
    hoodie_assert_ok(hoodie_slice_merger_base(m, &b, &merged));
    hoodie_assert_ok(hoodie_slice_merger_finish(m, &rest));
    char lines[16][64];
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        const hoodie_batch *x = pass ? &rest : &merged;
        for (int64_t r = 0; r < x->root.length; r++) {
            char cell[3][16];
            for (int c = 0; c < 3; c++) {
                const hoodie_array *arr = &x->root.children[c == 0 ? 0 : c + 1];
                size_t l = 0;
                const uint8_t *p = hoodie_array_is_valid(arr, r) ? hoodie_array_bytes_at(arr, r, &l) : NULL;
                snprintf(cell[c], sizeof cell[c], "%.*s", (int)l, p ? (const char *)p : "");
                if (!p) snprintf(cell[c], sizeof cell[c], "null");
            }
            snprintf(lines[n++], sizeof lines[0], "%s:%lld:%s:%s", cell[0],
                     (long long)((const int64_t *)x->root.children[1].values)[r], cell[1], cell[2]);
        }
    }
    qsort(lines, (size_t)n, sizeof lines[0], (int (*)(const void *, const void *))strcmp);
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? " " : "", lines[i]);
    /* a log compaction of partial blocks would write them whole: refused */
    hoodie_batch recs;
    hoodie_slice_log_deletes dels;
    *refused = hoodie_slice_merger_log_records(m, &recs, &dels) == HOODIE_EUNSUPPORTED &&
               strstr(hoodie_error__message(), "IS_PARTIAL") != NULL;
    hoodie_slice_merger_free(m);
    hoodie_batch_dispose(&b);
    hoodie_batch_dispose(&merged);
    hoodie_batch_dispose(&rest);
    hoodie_log_items_dispose(&items);
}

HOODIE_TEST(read_logscan__partial_blocks_keep_the_values_they_leave_out)
{
    ls_fixture fx;
    ls_setup(&fx);
    hoodie_field_dispose(&fx.schema);
    hoodie_avro_schema *sch;
    hoodie_assert_ok(hoodie_avro_schema_parse(&sch, PU_FULL, strlen(PU_FULL), fx.a, "schema"));
    hoodie_assert_ok(hoodie_avro_to_field(&fx.schema, sch, "root"));
    /* Spark SQL's MERGE INTO of (ts, a), then of (ts, b): k1 goes high then low, k2 low then high; in both the
     * column only the losing record carries survives (hudi-rs's table_partial_update_event_time). k3: a partial
     * update older than its base record keeps the base record whole; k4: partial records alone (no base record)
     * make one record of the two; k5: a whole record after a partial one takes nothing from it. Avro data blocks,
     * then Parquet data blocks (their embedded file's columns are the block's) */
    for (int parquet = 0; parquet < 2; parquet++) {
        hoodie_buf f1 = HOODIE_BUF_INIT;
        const char *k1[] = { "k1", "k2", "k3", "k4", "k5" }, *v1[] = { "a-high", "a-low", "a-old", "a4", "a5" };
        const int t1[] = { 300, 200, 50, 10, 10 };
        const char *k2[] = { "k1", "k2", "k4" }, *v2[] = { "b-low", "b-high", "b4" };
        const int t2[] = { 200, 300, 5 };
        if (parquet) {
            pu_parquet_block(&fx, &f1, T(1), "a", k1, t1, v1, 5);
            pu_parquet_block(&fx, &f1, T(2), "b", k2, t2, v2, 3);
        } else {
            pu_block(&f1, T(1), "a", k1, t1, v1, 5);
            pu_block(&f1, T(2), "b", k2, t2, v2, 3);
        }
        const char *k3[] = { "k5" }, *v3[] = { "w5" };
        const int t3[] = { 20 };
        pu_block(&f1, T(3), NULL, k3, t3, v3, 1);
        fx.n_logs = 0;
        ls_add_file(&fx, parquet ? ".f2_" T(1) ".log.1_0-1-0" : ".f1_" T(1) ".log.1_0-1-0", &f1);

        hoodie_logscan_ctx hc = { fx.s, fx.tl, NULL, &fx.schema, NULL, 0, 1, 0, 0, 0, 0, NULL, NULL, 0 };
        int64_t blocks = 0;
        int partial = 0;
        hoodie_assert_ok(hoodie_logscan_blocks(&hc, fx.logs, 1, &blocks, &partial));
        hoodie_assert(blocks == 3 && partial); /* (what log compaction scheduling passes over) */
        hoodie_log_items items;
        hoodie_assert_ok(ls_scan(&fx, &items));
        hoodie_assert(items.partial);
        hoodie_assert(items.count == 3 && items.items[0].absent && items.items[1].absent && !items.items[2].absent);
        hoodie_assert(!items.items[0].absent[2] && items.items[0].absent[3]); /* block 1 has a, not b */
        hoodie_assert(items.items[1].absent[2] && !items.items[1].absent[3]);
        hoodie_assert(!items.items[0].absent[0] && !items.items[0].absent[1]);
        hoodie_log_items_dispose(&items);

        const char *base[] = { "k1,100,a-init,b-init", "k2,100,a-init,b-init", "k3,100,a3,b3", "k5,1,a-b5,b-b5" };
        char got[512];
        int refused;
        pu_merge(&fx, base, 4, got, sizeof got, &refused);
        hoodie_assert_equal_s(got, "k1:300:a-high:b-low k2:300:a-low:b-high k3:100:a3:b3 k4:10:a4:b4 k5:20:w5:w5");
        hoodie_assert(refused);
        hoodie_buf_dispose(&f1);
    }
    ls_teardown(&fx);
}
