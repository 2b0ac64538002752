/* Log scans decode only the Avro data blocks that apply: blocks a later block drops (rollback command block,
 * log compaction) are not decoded, so even corrupt records in them do not fail the scan. */
#include "hoodie_test.h"
#include "format/avro/binary.h"
#include "format/hlog/hlog_write.h"
#include "model/avro.h"
#include "read/logscan.h"
#include "storage/storage.h"
#include "util/error.h"

#include <stdlib.h>

static const char *LS_SCHEMA =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"_hoodie_record_key\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"v\",\"type\":[\"null\",\"long\"]}]}";

#define T(n) "2025010100000000" #n

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
    hoodie_hlog_header_sort(h, nh);
    hoodie_hlog_block_mark m;
    hoodie_hlog_avro_writer w;
    hoodie_assert_ok(hoodie_hlog_block_begin(out, &m, HOODIE_HLOG_AVRO_DATA_BLOCK, h, nh));
    hoodie_assert_ok(hoodie_hlog_avro_content_begin(out, &w));
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
    hoodie_assert_ok(hoodie_hlog_avro_content_end(out, &w));
    hoodie_assert_ok(hoodie_hlog_block_end(out, &m));
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
    hoodie_logscan_ctx ctx = { fx->s, fx->tl, NULL, &fx->schema, NULL, 0, 0, 0, 0, ranged_min, 0 };
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
    hoodie_logscan_ctx hc = { fx.s, fx.tl, NULL, &fx.schema, NULL, 0, 0, 0, 0, 0, 0 };
    int64_t blocks = -1;
    hoodie_assert_ok(hoodie_logscan_blocks(&hc, fx.logs, fx.n_logs, &blocks));
    hoodie_assert_equal_i(3, blocks);

    /* a corrupt block that applies still fails the scan, naming the file and the record's offset */
    hoodie_buf f4 = HOODIE_BUF_INIT;
    data_block(&f4, T(6), NULL, 1, 60, 1);
    ls_add_file(&fx, ".f1_" T(1) ".log.4_0-1-0", &f4);
    hoodie_assert_ok(hoodie_logscan_blocks(&hc, fx.logs, fx.n_logs, &blocks)); /* counting decodes no record */
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
    hoodie_logscan_ctx hc = { fx.s, fx.tl, NULL, &fx.schema, NULL, 0, 1, 0, 0, 1, 0 };
    int64_t blocks = -1;
    bytes_read = 0;
    max_read = 0;
    hoodie_assert_ok(hoodie_logscan_blocks(&hc, fx.logs, 1, &blocks));
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
