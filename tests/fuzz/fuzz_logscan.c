/*
 * Fuzz the log scan of a file slice (what merge-on-read reads): the input is one Hudi log file, scanned into the
 * items the merge applies with the trips reader schema (meta columns, ts, uuid, rider, driver, fare, city). Its
 * blocks' instants are made completed instants of the timeline, except those ending in 9 (blocks that do not
 * apply), so every framing, header, Avro, delete, command and Parquet data block path is reached. The scan must
 * never crash or leak; a failure must say what is wrong; reading the file in ranges must give what reading it
 * whole gives; read lazily from a file the storage maps (a local copy), it must give what it gives read eagerly,
 * merged. The corpus holds log files of the Spark fixtures.
 */
#include "format/hlog/hlog.h"
#include "format/avro/schema.h"
#include "model/avro.h"
#include "read/logscan.h"
#include "read/slice_merge.h"
#include "model/render.h"
#include "storage/storage.h"
#include "table/instant.h"
#include "util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *SCHEMA =
    "{\"type\":\"record\",\"name\":\"trips_record\",\"fields\":["
    "{\"name\":\"_hoodie_commit_time\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"_hoodie_commit_seqno\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"_hoodie_record_key\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"_hoodie_partition_path\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"_hoodie_file_name\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"ts\",\"type\":[\"null\",\"long\"],\"default\":null},"
    "{\"name\":\"uuid\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"rider\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"driver\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"fare\",\"type\":[\"null\",\"double\"],\"default\":null},"
    "{\"name\":\"city\",\"type\":[\"null\",\"string\"],\"default\":null}]}";

#define LOG_NAME ".f1-0_20250101000000000.log.1_0-1-0"

static void check(int ok, const char *what)
{
    if (!ok) { fprintf(stderr, "fuzz_logscan: %s: %s\n", what, hoodie_error__message()); abort(); }
}

/* The completed instants: the INSTANT_TIME and TARGET_INSTANT_TIME headers of the file's blocks. */
static void add_instants(hoodie_storage *s, const uint8_t *data, size_t size)
{
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    if (hoodie_hlog_iter_init(&it, data, size, "log") != HOODIE_OK) return;
    for (int n = 0; n < 64 && hoodie_hlog_iter_next(&it, &b) == HOODIE_OK; n++) {
        const int keys[] = { HOODIE_HLOG_INSTANT_TIME, HOODIE_HLOG_TARGET_INSTANT_TIME };
        for (size_t k = 0; k < 2; k++) {
            const char *t = b.header[keys[k]];
            size_t len = b.header_len[keys[k]];
            if (!t || !hoodie_instant_time_valid(t, len) || t[len - 1] == '9') continue;
            char path[96];
            snprintf(path, sizeof path, "/t/.hoodie/%.*s.deltacommit", (int)len, t);
            hoodie_storage_write_all(s, path, 0, "{}", 2);
        }
    }
    hoodie_hlog_iter_dispose(&it);
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull; }

static uint64_t mix_str(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) h = mix(h, (uint8_t)p[i]);
    return mix(h, n);
}

/* What a scan handed out: items (kind, instant, removed, block start, rows, delete keys) and block counts. */
static uint64_t items_signature(const hoodie_log_items *l)
{
    uint64_t h = mix(mix(0xcbf29ce484222325ull, l->corrupt_blocks), l->skipped_blocks);
    for (size_t i = 0; i < l->count; i++) {
        const hoodie_log_item *it = &l->items[i];
        h = mix(mix(mix(h, (uint64_t)it->kind), (uint64_t)it->removed), (uint64_t)it->block_start);
        h = mix_str(h, it->instant, strlen(it->instant));
        if (it->kind == HOODIE_LOG_DATA) {
            h = mix(h, (uint64_t)it->batch.root.length);
            continue;
        }
        h = mix(h, it->delete_count);
        for (size_t d = 0; d < it->delete_count; d++) {
            const char *k = it->deletes[d].record_key;
            h = k ? mix_str(h, k, strlen(k)) : mix(h, 1);
        }
    }
    return h;
}

/* A batch's rows, hashed. */
static uint64_t rows_signature(const hoodie_batch *b)
{
    hoodie_buf text = HOODIE_BUF_INIT;
    check(hoodie_render_csv(&text, b, 0) == HOODIE_OK, "rendering merged rows");
    uint64_t h = mix_str(0xcbf29ce484222325ull, (const char *)text.data, text.len);
    hoodie_buf_dispose(&text);
    return h;
}

/* The slice merge of the items (key _hoodie_record_key, event-time ordering on ts) over a base batch of the
 * keys k0..k3 and uuid1..uuid3: it must not crash or leak, and give no more rows than it was given. Returns a
 * signature of the rows it gave (0: the merge failed). */
static uint64_t merge_items(const hoodie_field *schema, hoodie_log_items *items)
{
    hoodie_slice_merge_cfg mc;
    memset(&mc, 0, sizeof mc);
    mc.schema = schema;
    mc.key_col = hoodie_field_find(schema, "_hoodie_record_key");
    mc.ordering_col = hoodie_field_find(schema, "ts");
    mc.deleted_col = -1;
    mc.policy.log_fold = mc.policy.base = HOODIE_MERGE_EVENT_TIME_ORDERING;
    hoodie_slice_merger *m;
    hoodie_status rc = hoodie_slice_merger_new(&m, &mc, items);
    if (rc < 0) { check(hoodie_error__message()[0] != '\0', "a merge failure without a message"); return 0; }
    hoodie_batch base, merged, rest, recs;
    check(hoodie_batch_init(&base, schema) == HOODIE_OK, "base batch");
    static const char *const keys[] = { "k0", "k1", "k2", "k3", "uuid1", "uuid2", "uuid3" };
    for (size_t i = 0; i < 7; i++) {
        for (size_t c = 0; c < schema->n_children; c++) {
            hoodie_array *a = &base.root.children[c];
            const hoodie_field *f = &schema->children[c];
            if ((int)c == mc.key_col || f->type.id == HOODIE_TYPE_STRING) rc = hoodie_array_append_str(a, f, keys[i]);
            else if (f->type.id == HOODIE_TYPE_INT64) rc = hoodie_array_append_int(a, f, (int64_t)i);
            else rc = hoodie_array_append_null(a, f);
            check(rc == HOODIE_OK, "base row");
        }
        base.root.length++;
    }
    int64_t in = 0;
    for (size_t i = 0; i < items->count; i++)
        if (!items->items[i].removed && items->items[i].kind == HOODIE_LOG_DATA) in += items->items[i].batch.root.length;
    rc = hoodie_slice_merger_base(m, &base, &merged);
    check(rc == HOODIE_OK, "merging a base batch");
    check(hoodie_slice_merger_finish(m, &rest) == HOODIE_OK, "the log-only rows");
    check(merged.root.length <= base.root.length && rest.root.length <= in, "more rows than given");
    uint64_t sig = mix(rows_signature(&merged), rows_signature(&rest)) | 1;
    hoodie_slice_log_deletes dels;
    rc = hoodie_slice_merger_log_records(m, &recs, &dels);
    check(rc == (items->partial ? HOODIE_EUNSUPPORTED : HOODIE_OK), "log records of partial blocks");
    if (rc == HOODIE_OK) {
        sig = mix(sig, rows_signature(&recs));
        for (size_t d = 0; d < dels.count; d++) sig = mix_str(sig, dels.keys[d], dels.key_lens[d]);
        hoodie_batch_dispose(&recs);
        hoodie_slice_log_deletes_dispose(&dels);
    }
    hoodie_error_clear();
    hoodie_batch_dispose(&merged);
    hoodie_batch_dispose(&rest);
    hoodie_batch_dispose(&base);
    hoodie_slice_merger_free(m);
    return sig;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hoodie_storage *s = NULL;
    hoodie_arena *a = NULL;
    hoodie_timeline *tl = NULL;
    hoodie_avro_schema *sch;
    hoodie_field schema;
    check(hoodie_storage_mem_new(&s) == HOODIE_OK, "storage");
    check(hoodie_arena_new(&a, NULL, 4096) == HOODIE_OK, "arena");
    check(hoodie_avro_schema_parse(&sch, SCHEMA, strlen(SCHEMA), a, "schema") == HOODIE_OK, "schema");
    check(hoodie_avro_to_field(&schema, sch, "root") == HOODIE_OK, "reader schema");
    check(hoodie_storage_write_all(s, "/t/" LOG_NAME, 0, data, size) == HOODIE_OK, "log file");
    check(hoodie_storage_write_all(s, "/t/.hoodie/20250101000000000.deltacommit", 0, "{}", 2) == HOODIE_OK,
          "timeline");
    add_instants(s, data, size);
    check(hoodie_timeline_load_dir(&tl, s, "/t/.hoodie", 1) == HOODIE_OK, "timeline");

    hoodie_fs_file f;
    memset(&f, 0, sizeof f);
    f.name = LOG_NAME;
    f.path = "/t/" LOG_NAME;
    f.partition = "";
    f.fn.kind = HOODIE_FILE_LOG;
    f.size = size;
    strcpy(f.instant, "20250101000000000");
    const hoodie_fs_file *logs[1] = { &f };
    /* the whole scan, headers only, then the three key-hash partitions of a partitioned merge: when the whole scan
     * succeeds, so does each part, and the parts' rows and deletes add up to the whole scan's */
    int64_t whole = -1, parts_sum = 0;
    int parts_ok = 1;
    uint64_t merged_sig = 0, items_sig = 0;
    for (int mode = 0; mode < 5; mode++) {
        int headers_only = mode == 1;
        uint32_t parts = mode >= 2 ? 3 : 0, part = mode >= 2 ? (uint32_t)(mode - 2) : 0;
        hoodie_logscan_ctx ctx = { s, tl, NULL, &schema, NULL, 0, headers_only, parts, part, 0, 0, NULL, NULL, 0 };
        hoodie_log_items items;
        hoodie_status rc = hoodie_logscan(&items, &ctx, logs, 1);
        if (rc < 0) {
            check(hoodie_error__message()[0] != '\0', "a failure without a message");
            if (parts) parts_ok = 0;
            continue;
        }
        int64_t n = 0;
        for (size_t i = 0; i < items.count; i++) {
            const hoodie_log_item *it = &items.items[i];
            if (it->kind == HOODIE_LOG_DATA && !it->removed && !headers_only)
                check(it->batch.root.n_children == schema.n_children, "rows not in the reader's schema");
            if (!it->removed) n += it->kind == HOODIE_LOG_DATA ? it->batch.root.length : (int64_t)it->delete_count;
        }
        if (mode == 0) whole = n;
        if (mode == 0) items_sig = items_signature(&items);
        if (mode == 0) merged_sig = merge_items(&schema, &items);
        if (parts) parts_sum += n;
        hoodie_log_items_dispose(&items);
    }
    if (whole >= 0) check(parts_ok && parts_sum == whole, "the key-hash parts do not add up to the whole scan");
    /* a first pass under a small memory limit takes more partitions as it goes; it and the passes over the other
     * partitions then add up to the whole scan too */
    if (whole >= 0) {
        uint32_t parts = 1;
        int64_t sum = 0;
        for (uint32_t part = 0; part < parts && part < 64; part++) {
            hoodie_logscan_ctx ctx = { s, tl, NULL, &schema, NULL, 0, 0, parts, part, 0, part ? 0 : 4096, NULL, NULL, 0 };
            hoodie_log_items items;
            hoodie_status rc = hoodie_logscan(&items, &ctx, logs, 1);
            check(rc == HOODIE_OK, "a pass fails where the whole scan did not");
            if (part == 0) parts = items.parts;
            check(items.parts == parts && parts >= 1 && parts <= 4096, "the passes' partitions");
            check(part > 0 || parts == 4096 || items.mem <= 4096, "the first pass holds more than its limit");
            for (size_t i = 0; i < items.count; i++)
                if (!items.items[i].removed)
                    sum += items.items[i].kind == HOODIE_LOG_DATA ? items.items[i].batch.root.length
                                                                  : (int64_t)items.items[i].delete_count;
            hoodie_log_items_dispose(&items);
        }
        if (parts <= 64) check(sum == whole, "the passes of a limited first pass do not add up to the whole scan");
    }
    /* the file read in ranges, a block at a time (as a large file on S3 is), gives what reading it whole gives:
     * the same failure or the same items, rows and deletes, with and without headers only */
    for (int headers_only = 0; headers_only < 2; headers_only++) {
        uint64_t sig[2];
        hoodie_status rcs[2];
        for (int ranged = 0; ranged < 2; ranged++) {
            hoodie_logscan_ctx ctx = { s, tl, NULL, &schema, NULL, 0, headers_only, 0, 0, ranged ? 1 : UINT64_MAX, 0, NULL, NULL, 0 };
            hoodie_log_items items;
            rcs[ranged] = hoodie_logscan(&items, &ctx, logs, 1);
            sig[ranged] = rcs[ranged] < 0 ? 0 : items_signature(&items);
            if (rcs[ranged] >= 0) hoodie_log_items_dispose(&items);
        }
        check(rcs[0] == rcs[1], "reading in ranges fails differently from reading whole");
        check(sig[0] == sig[1], "reading in ranges gives other items than reading whole");
    }
    /* lazily: the file where the storage maps it (a local copy), only the key and ordering columns decoded by the
     * scan, each record decoded whole when the merge takes it; when the whole scan succeeds, so does the lazy one,
     * with the same items, and the merge gives the same rows */
    char local[128];
    snprintf(local, sizeof local, "%s/fuzz_logscan_%ld.log", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());
    const hoodie_storage *px = hoodie_storage_posix();
    if (size && hoodie_storage_write_all(px, local, 0, data, size) == HOODIE_OK) {
        hoodie_fs_file lf = f;
        lf.path = local;
        const hoodie_fs_file *llogs[1] = { &lf };
        const int lazy_cols[2] = { hoodie_field_find(&schema, "_hoodie_record_key"), hoodie_field_find(&schema, "ts") };
        hoodie_logscan_ctx ctx = { px, tl, NULL, &schema, NULL, 0, 0, 0, 0, 0, 0, NULL, lazy_cols, 2 };
        hoodie_log_items items;
        hoodie_status rc = hoodie_logscan(&items, &ctx, llogs, 1);
        if (rc < 0) check(hoodie_error__message()[0] != '\0', "a lazy scan's failure without a message");
        if (whole >= 0) check(rc == HOODIE_OK, "a lazy scan fails where the whole scan did not");
        if (rc == HOODIE_OK) {
            if (whole >= 0) check(items_signature(&items) == items_sig, "a lazy scan gives other items");
            uint64_t sig = merge_items(&schema, &items);
            if (whole >= 0 && merged_sig) check(sig == merged_sig, "a lazy merge gives other rows");
            hoodie_log_items_dispose(&items);
        }
        /* lazily under a small memory limit: the first pass takes more partitions as it goes (its lazy rows kept
         * by part), and the passes add up to the whole scan */
        if (whole >= 0) {
            uint32_t parts = 1;
            int64_t sum = 0;
            for (uint32_t part = 0; part < parts && part < 64; part++) {
                hoodie_logscan_ctx pc = { px, tl, NULL, &schema, NULL, 0, 0, parts, part, 0, part ? 0 : 2048, NULL,
                                          lazy_cols, 2 };
                rc = hoodie_logscan(&items, &pc, llogs, 1);
                check(rc == HOODIE_OK, "a lazy pass fails where the whole scan did not");
                if (part == 0) parts = items.parts;
                for (size_t i = 0; i < items.count; i++)
                    if (!items.items[i].removed)
                        sum += items.items[i].kind == HOODIE_LOG_DATA ? items.items[i].batch.root.length
                                                                      : (int64_t)items.items[i].delete_count;
                if (part == 0) (void)merge_items(&schema, &items);
                hoodie_log_items_dispose(&items);
            }
            if (parts <= 64) check(sum == whole, "the lazy passes do not add up to the whole scan");
        }
        hoodie_error_clear();
        (void)unlink(local);
    } else {
        hoodie_error_clear();
    }
    hoodie_timeline_free(tl);
    hoodie_field_dispose(&schema);
    hoodie_arena_free(a);
    hoodie_storage_free(s);
    return 0;
}
