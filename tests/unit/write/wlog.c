/*
 * Log files as the write client writes them (write/wlog.h): records that would pass the data block size go to
 * several data blocks of the same instant, as Hudi's append handle flushes at hoodie.logfile.data.block.max.size;
 * the scan reads them back whole and in order.
 */
#include "hoodie_test.h"
#include "format/hlog/hlog.h"
#include "model/avro_schema_gen.h"
#include "model/build.h"
#include "read/logscan.h"
#include "storage/storage.h"
#include "table/timeline.h"
#include "write/wlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSTANT "20250101000000000"
#define LOG_PATH "/t/.f1-0_" INSTANT ".log.1_0-1-0"

/* Writes through the in-memory storage, counted: the largest one. */
static hoodie_status (*inner_write)(void *, hoodie_wfile *, const void *, size_t);
static size_t max_write;

static hoodie_status counted_write(void *ctx, hoodie_wfile *f, const void *data, size_t len)
{
    if (len > max_write) max_write = len;
    return inner_write(ctx, f, data, len);
}

/*
 * A first pass whose records outgrow ctx.mem_limit takes more partitions as it goes (hoodie_log_items.parts, sized
 * by hoodie_logscan_parts_over) and keeps partition 0 of those; the other passes, in that many partitions, each
 * fit the limit too, and every record comes out once. `all`: the file's whole scan.
 */
static void mem_limited_passes(const hoodie_logscan_ctx *base, const hoodie_fs_file *const *logs,
                               const hoodie_log_items *all, int64_t n)
{
    hoodie_logscan_ctx ctx = *base;
    uint64_t limit = all->mem / 5;
    uint32_t parts = 0;
    int64_t rows = 0;
    for (uint32_t part = 0; part == 0 || part < parts; part++) {
        hoodie_log_items pass;
        ctx.part = part;
        ctx.parts = part ? parts : 1;
        ctx.mem_limit = part ? 0 : limit;
        hoodie_assert_ok(hoodie_logscan(&pass, &ctx, logs, 1));
        if (part == 0) {
            parts = pass.parts;
            hoodie_assert(parts >= 5 && parts <= 12); /* about all->mem / limit, with a margin */
        }
        hoodie_assert_equal_i(parts, pass.parts);
        hoodie_assert(pass.mem <= limit);
        for (size_t i = 0; i < pass.count; i++) {
            const hoodie_array *keys = &pass.items[i].batch.root.children[2];
            for (int64_t r = 0; r < keys->length; r++) {
                size_t kl;
                const uint8_t *k = hoodie_array_bytes_at(keys, r, &kl);
                hoodie_assert_equal_i(part, hoodie_logscan_key_part(k, kl, parts));
            }
            rows += keys->length;
        }
        hoodie_log_items_dispose(&pass);
    }
    hoodie_assert_equal_i(n, rows);
}

/* N records (meta columns, id, name) written as one log file with blocks of at most max_block bytes (0: the
 * default); *blocks gets the data blocks found in the file, and the scan must give the records back in order;
 * *file_size gets the file's size (max_write: its largest write). */
static void write_and_read_size(hoodie_log_block_format format, int64_t n, uint64_t max_block, int *blocks,
                                uint64_t *file_size)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    hoodie_storage counted = *mem, *s = &counted;
    inner_write = mem->write;
    counted.write = counted_write;
    counted.destroy = NULL;
    max_write = 0;
    hoodie_field data, file, f;
    hoodie_assert_ok(hoodie_field_init(&data, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&f, "id", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_assert_ok(hoodie_field_add_child(&data, &f));
    hoodie_field_dispose(&f);
    hoodie_assert_ok(hoodie_field_init(&f, "name", hoodie_type_of(HOODIE_TYPE_STRING), 1));
    hoodie_assert_ok(hoodie_field_add_child(&data, &f));
    hoodie_field_dispose(&f);
    hoodie_assert_ok(hoodie_field_with_meta(&file, &data));
    char *schema_json;
    hoodie_assert_ok(hoodie_wlog_avro_schema(&schema_json, &data, "t", 1));

    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &file));
    for (int64_t i = 0; i < n; i++) {
        char key[32], name[64];
        snprintf(key, sizeof key, "k%08lld", (long long)i);
        snprintf(name, sizeof name, "name of record number %lld", (long long)i);
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[0], &file.children[0], INSTANT));
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[1], &file.children[1], "s"));
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[2], &file.children[2], key));
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[3], &file.children[3], ""));
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[4], &file.children[4], "f1-0"));
        hoodie_assert_ok(hoodie_array_append_int(&b.root.children[5], &file.children[5], i));
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[6], &file.children[6], name));
        b.root.length++;
    }
    hoodie_avro_col cols[7];
    for (size_t c = 0; c < 7; c++) cols[c] = (hoodie_avro_col){ &b.root.children[c], NULL, 0 };
    hoodie_wlog_records recs = { cols, 7, n, format, HOODIE_PARQUET_CODEC_SNAPPY, max_block, 0 };
    uint64_t size = 0;
    hoodie_assert_ok(hoodie_wlog_write(s, LOG_PATH, INSTANT, schema_json, &file, &recs, NULL, 1, &size));
    hoodie_assert_ok(hoodie_storage_write_all(s, "/t/.hoodie/" INSTANT ".deltacommit", 0, "{}", 2));

    /* the blocks: all data blocks of the instant, none (much) over the size */
    hoodie_buf raw = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(s, LOG_PATH, &raw));
    hoodie_assert_equal_i(size, raw.len);
    hoodie_hlog_iter it;
    hoodie_hlog_block blk;
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, raw.data, raw.len, LOG_PATH));
    *blocks = 0;
    hoodie_status rc;
    while ((rc = hoodie_hlog_iter_next(&it, &blk)) == HOODIE_OK) {
        hoodie_assert_equal_i(format == HOODIE_LOG_BLOCK_PARQUET ? HOODIE_HLOG_PARQUET_DATA_BLOCK
                                                                 : HOODIE_HLOG_AVRO_DATA_BLOCK, blk.type);
        hoodie_assert_equal_s(INSTANT, blk.header[HOODIE_HLOG_INSTANT_TIME]);
        if (max_block >= 1024) hoodie_assert(blk.content_len <= max_block + max_block / 2); /* (not under one record) */
        (*blocks)++;
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
    hoodie_hlog_iter_dispose(&it);
    hoodie_buf_dispose(&raw);

    /* read back: every record, in order */
    hoodie_timeline *tl;
    hoodie_assert_ok(hoodie_timeline_load_dir(&tl, s, "/t/.hoodie", 1));
    hoodie_fs_file lf;
    memset(&lf, 0, sizeof lf);
    lf.name = LOG_PATH + 3;
    lf.path = LOG_PATH;
    lf.partition = "";
    lf.fn.kind = HOODIE_FILE_LOG;
    lf.size = size;
    strcpy(lf.instant, INSTANT);
    const hoodie_fs_file *logs[1] = { &lf };
    hoodie_logscan_ctx ctx = { s, tl, NULL, &file, NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, 0 };
    hoodie_log_items items;
    hoodie_assert_ok(hoodie_logscan(&items, &ctx, logs, 1));
    int64_t next = 0;
    for (size_t i = 0; i < items.count; i++) {
        const hoodie_log_item *li = &items.items[i];
        hoodie_assert_equal_i(HOODIE_LOG_DATA, li->kind);
        hoodie_assert(!li->removed);
        const hoodie_array *ids = &li->batch.root.children[5];
        for (int64_t r = 0; r < li->batch.root.length; r++, next++)
            hoodie_assert_equal_i(next, ((const int64_t *)ids->values)[r]);
    }
    hoodie_assert_equal_i(n, next);
    hoodie_assert_equal_i(size, items.scanned); /* every block is a data block */
    hoodie_assert(items.mem > (uint64_t)n * 48); /* the rows, and a merge's key entry for each */
    hoodie_assert_equal_i(1, items.parts);
    if (n >= 1000) mem_limited_passes(&ctx, logs, &items, n);
    hoodie_log_items_dispose(&items);
    hoodie_timeline_free(tl);
    hoodie_batch_dispose(&b);
    free(schema_json);
    hoodie_field_dispose(&file);
    hoodie_field_dispose(&data);
    hoodie_storage_free(mem);
    *file_size = size;
}

static void write_and_read(hoodie_log_block_format format, int64_t n, uint64_t max_block, int *blocks)
{
    uint64_t size;
    write_and_read_size(format, n, max_block, blocks, &size);
}

HOODIE_TEST(write_wlog__data_blocks_split_at_the_block_size)
{
    int blocks;
    write_and_read(HOODIE_LOG_BLOCK_AVRO, 5000, 0, &blocks);
    hoodie_assert_equal_i(1, blocks); /* 5000 small records: far under 256 MB */
    write_and_read(HOODIE_LOG_BLOCK_AVRO, 5000, 16384, &blocks);
    hoodie_assert(blocks >= 10);
    write_and_read(HOODIE_LOG_BLOCK_AVRO, 3, 1, &blocks);
    hoodie_assert_equal_i(3, blocks); /* a record per block when one is over the size */
    /* a large write: blocks sized from a sample of its records, each written to the file once encoded (the file
     * is never whole in memory) */
    uint64_t size;
    write_and_read_size(HOODIE_LOG_BLOCK_AVRO, 100000, 65536, &blocks, &size);
    hoodie_assert(blocks >= 40);
    hoodie_assert(max_write <= 65536 + 32768);
    hoodie_assert(size > 20 * 65536 / 2);
}

HOODIE_TEST(write_wlog__parquet_blocks_split_at_the_block_size)
{
    int blocks;
    write_and_read(HOODIE_LOG_BLOCK_PARQUET, 5000, 0, &blocks);
    hoodie_assert_equal_i(1, blocks);
    uint64_t size;
    write_and_read_size(HOODIE_LOG_BLOCK_PARQUET, 20000, 65536, &blocks, &size);
    hoodie_assert(blocks >= 2);
    hoodie_assert(max_write < size);
    write_and_read_size(HOODIE_LOG_BLOCK_PARQUET, 100000, 262144, &blocks, &size); /* sized from a sample */
    hoodie_assert(blocks >= 4);
    hoodie_assert(max_write < size / 2);
}
