#include "hoodie_test.h"
#include "format/hlog/hlog_write.h"
#include "format/avro/binary.h"
#include "format/avro/json.h"
#include "storage/storage.h"
#include "util/error.h"

#include <dirent.h>
#include <stdlib.h>

static void read_file(const char *path, hoodie_buf *b)
{
    hoodie_buf_clear(b);
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), path, b));
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The header entries of a block in the order they were written (parsed from the raw bytes). */
static size_t raw_header_order(const uint8_t *data, const hoodie_hlog_block *b, hoodie_hlog_header_entry *e)
{
    const uint8_t *p = data + b->offset + 22;
    uint32_t n = be32(p);
    p += 4;
    hoodie_assert(n <= HOODIE_HLOG_HEADER_KEY_COUNT);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = be32(p), len = be32(p + 4);
        hoodie_assert(k < HOODIE_HLOG_HEADER_KEY_COUNT);
        e[i].key = (hoodie_hlog_header_key)k;
        e[i].value = b->header[k];
        e[i].len = b->header_len[k];
        hoodie_assert_equal_i(len, e[i].len);
        p += 8 + len;
    }
    return n;
}

typedef struct rewrite_stats {
    size_t blocks, avro, deletes, rollbacks, parquet, generic, sorted_match;
} rewrite_stats;

/* Re-encode every block of a log file from its decoded pieces; each must come out byte-identical. */
static void rewrite_log(const char *path, void *arg)
{
    rewrite_stats *st = arg;
    hoodie_buf in = HOODIE_BUF_INIT, out = HOODIE_BUF_INIT, generic = HOODIE_BUF_INIT;
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    hoodie_status rc;
    hoodie_arena *a;
    read_file(path, &in);
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, in.data, in.len, path));
    while ((rc = hoodie_hlog_iter_next(&it, &b)) == HOODIE_OK) {
        hoodie_hlog_header_entry hdr[HOODIE_HLOG_HEADER_KEY_COUNT], sorted[HOODIE_HLOG_HEADER_KEY_COUNT];
        hoodie_assert(b.type != HOODIE_HLOG_CORRUPT_BLOCK);
        size_t nh = raw_header_order(in.data, &b, hdr);
        const uint8_t *want = in.data + b.offset;
        hoodie_buf_clear(&out);
        hoodie_buf_clear(&generic);

        /* framing alone: any block type, content copied */
        hoodie_assert_ok(hoodie_hlog_write_block(&generic, b.type, hdr, nh, b.content, (size_t)b.content_len));
        hoodie_assert_equal_i(b.total_len, generic.len);
        hoodie_assert(memcmp(generic.data, want, generic.len) == 0);
        st->generic++;

        /* the fixed order reproduces the order the fixture has */
        size_t ns = hoodie_hlog_header_from_block(&b, sorted);
        hoodie_assert_equal_i(nh, ns);
        hoodie_hlog_header_sort(sorted, ns);
        int same = 1;
        for (size_t i = 0; i < nh; i++) same &= sorted[i].key == hdr[i].key;
        if (same) st->sorted_match++;

        if (b.type == HOODIE_HLOG_AVRO_DATA_BLOCK) {
            hoodie_hlog_avro_records r;
            hoodie_hlog_avro_writer w;
            hoodie_hlog_block_mark m;
            const uint8_t *rec;
            size_t len;
            int i = 0;
            hoodie_assert_ok(hoodie_hlog_avro_open(&r, &b, path));
            hoodie_assert_ok(hoodie_hlog_block_begin(&out, &m, b.type, hdr, nh));
            hoodie_assert_ok(hoodie_hlog_avro_content_begin(&out, &w));
            while ((rc = hoodie_hlog_avro_next(&r, &rec, &len)) == HOODIE_OK) {
                if (i++ % 2) {
                    hoodie_assert_ok(hoodie_hlog_avro_record_add(&out, &w, rec, len));
                } else { /* the in-place way */
                    hoodie_assert_ok(hoodie_hlog_avro_record_begin(&out, &w));
                    hoodie_assert_ok(hoodie_buf_append(&out, rec, len));
                    hoodie_assert_ok(hoodie_hlog_avro_record_end(&out, &w));
                }
            }
            hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
            hoodie_assert_ok(hoodie_hlog_avro_content_end(&out, &w));
            hoodie_assert_ok(hoodie_hlog_block_end(&out, &m));
            st->avro++;
        } else if (b.type == HOODIE_HLOG_DELETE_BLOCK) {
            hoodie_hlog_delete *d;
            size_t n;
            hoodie_assert_ok(hoodie_hlog_delete_decode(&b, a, path, &d, &n));
            hoodie_assert_ok(hoodie_hlog_write_delete_block(&out, hdr, nh, d, n));
            st->deletes++;
        } else if (b.type == HOODIE_HLOG_COMMAND_BLOCK) {
            const char *target;
            hoodie_assert_equal_i(1, hoodie_hlog_command_rollback(&b, path, &target));
            hoodie_assert_ok(hoodie_hlog_write_rollback(&out, b.header[HOODIE_HLOG_INSTANT_TIME], target));
            st->rollbacks++;
        } else if (b.type == HOODIE_HLOG_PARQUET_DATA_BLOCK) {
            const uint8_t *p;
            size_t n;
            hoodie_assert_ok(hoodie_hlog_parquet_content(&b, path, &p, &n));
            hoodie_assert_ok(hoodie_hlog_write_block(&out, b.type, hdr, nh, p, n));
            st->parquet++;
        } else {
            hoodie_arena_reset(a);
            st->blocks++;
            continue;
        }
        if (out.len != b.total_len || memcmp(out.data, want, out.len) != 0) {
            size_t i = 0;
            while (i < out.len && i < b.total_len && out.data[i] == want[i]) i++;
            hoodie_test__fail(__FILE__, __LINE__, "%s: block at %llu (%s) re-encodes differently at byte %zu (%zu vs %llu bytes)",
                              path, (unsigned long long)b.offset, hoodie_hlog_block_type_name(b.type), i, out.len,
                              (unsigned long long)b.total_len);
        }
        hoodie_arena_reset(a);
        st->blocks++;
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
    hoodie_hlog_iter_dispose(&it);
    hoodie_arena_free(a);
    hoodie_buf_dispose(&in);
    hoodie_buf_dispose(&out);
    hoodie_buf_dispose(&generic);
}

static void each_log(const char *dir, int depth, void (*fn)(const char *path, void *), void *arg)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d))) {
        char p[2048];
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR) {
            if (depth < 6) each_log(p, depth + 1, fn, arg);
        } else if (e->d_name[0] == '.' && strstr(e->d_name, ".log.") && !strstr(e->d_name, ".crc")) {
            fn(p, arg);
        }
    }
    closedir(d);
}

HOODIE_TEST(format_hlog_write__fixture_blocks_reencode_identically)
{
    rewrite_stats st;
    memset(&st, 0, sizeof st);
    each_log(hoodie_fixture("hudi/tables"), 0, rewrite_log, &st);
    each_log(hoodie_fixture("hudi/standalone/log_files"), 0, rewrite_log, &st);
    fprintf(stderr, "  re-encoded %zu blocks: %zu avro, %zu delete, %zu rollback, %zu parquet; framing %zu; "
            "header order reproduced %zu\n", st.blocks, st.avro, st.deletes, st.rollbacks, st.parquet, st.generic,
            st.sorted_match);
    hoodie_assert(st.avro >= 8);
    hoodie_assert(st.deletes >= 4);
    hoodie_assert(st.rollbacks >= 1);
    hoodie_assert(st.parquet >= 4);
    hoodie_assert(st.generic > st.avro + st.deletes + st.parquet); /* the metadata table's HFile blocks too */
}

/* The schema constant parses and describes the fixture payloads exactly (a generic skip uses every byte, and
 * the generic JSON decoding agrees with the delete decoder). */
static void check_delete_schema(const char *path, void *arg)
{
    const hoodie_avro_schema *s = arg;
    hoodie_buf in = HOODIE_BUF_INIT;
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    hoodie_avro_jschema js;
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    read_file(path, &in);
    hoodie_assert_ok(hoodie_avro_jschema_parse(&js, hoodie_hlog_delete_list_schema, strlen(hoodie_hlog_delete_list_schema), "schema"));
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, in.data, in.len, path));
    while (hoodie_hlog_iter_next(&it, &b) == HOODIE_OK) {
        if (b.type != HOODIE_HLOG_DELETE_BLOCK) continue;
        hoodie_cursor c;
        hoodie_cursor_init(&c, b.content + 8, (size_t)b.content_len - 8, b.content_offset + 8, path);
        hoodie_avro_skip(&c, s);
        hoodie_assert_ok(c.status);
        hoodie_assert_equal_i(0, hoodie_cursor_left(&c));
        json_t *v = NULL;
        hoodie_cursor_init(&c, b.content + 8, (size_t)b.content_len - 8, b.content_offset + 8, path);
        hoodie_assert_ok(hoodie_avro_decode_json(&js, &c, &v));
        json_t *list = json_object_get(v, "deleteRecordList");
        hoodie_hlog_delete *d;
        size_t n;
        hoodie_assert_ok(hoodie_hlog_delete_decode(&b, a, path, &d, &n));
        hoodie_assert_equal_i(n, json_array_size(list)); /* metadata-table logs hold empty lists */
        for (size_t i = 0; i < n; i++)
            hoodie_assert_equal_s(d[i].record_key, json_string_value(json_object_get(json_array_get(list, i), "recordKey")));
        hoodie_arena_reset(a);
        json_decref(v);
    }
    hoodie_hlog_iter_dispose(&it);
    hoodie_avro_jschema_dispose(&js);
    hoodie_arena_free(a);
    hoodie_buf_dispose(&in);
}

HOODIE_TEST(format_hlog_write__delete_schema_matches_fixtures)
{
    hoodie_arena *a;
    hoodie_avro_schema *s;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_assert_ok(hoodie_avro_schema_parse(&s, hoodie_hlog_delete_list_schema, strlen(hoodie_hlog_delete_list_schema), a,
                                              "delete schema"));
    hoodie_assert_equal_s("org.apache.hudi.avro.model.HoodieDeleteRecordList", s->name);
    const hoodie_avro_schema *rec = s->fields[0].type->items;
    const hoodie_avro_schema *ord = rec->fields[2].type;
    hoodie_assert_equal_i(HOODIE_AVRO_UNION, ord->kind);
    hoodie_assert_equal_i(HOODIE_HLOG_ORD_TIMESTAMP_MICROS + 1, ord->count);
    hoodie_assert_equal_s("org.apache.hudi.avro.model.IntWrapper", ord->branches[HOODIE_HLOG_ORD_INT]->name);
    hoodie_assert_equal_i(HOODIE_AVRO_LT_DECIMAL, ord->branches[HOODIE_HLOG_ORD_DECIMAL]->fields[0].type->logical);
    each_log(hoodie_fixture("hudi/tables"), 0, check_delete_schema, s);
    each_log(hoodie_fixture("hudi/standalone/log_files"), 0, check_delete_schema, s);
    hoodie_arena_free(a);
}

HOODIE_TEST(format_hlog_write__own_blocks_round_trip)
{
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_hlog_header_entry h[3] = {
        { HOODIE_HLOG_SCHEMA, "{\"type\":\"string\"}", 17 },
        { HOODIE_HLOG_INSTANT_TIME, "20250101000000000", 17 },
        { HOODIE_HLOG_BLOCK_IDENTIFIER, "1,0", 3 },
    };
    hoodie_hlog_header_sort(h, 3);
    hoodie_assert_equal_i(HOODIE_HLOG_INSTANT_TIME, h[0].key);
    hoodie_assert_equal_i(HOODIE_HLOG_BLOCK_IDENTIFIER, h[1].key);
    hoodie_assert_equal_i(HOODIE_HLOG_SCHEMA, h[2].key);

    /* Avro data block: records are Avro strings */
    hoodie_hlog_block_mark m;
    hoodie_hlog_avro_writer w;
    const char *recs[3] = { "a", "", "hello world" };
    hoodie_assert_ok(hoodie_hlog_block_begin(&out, &m, HOODIE_HLOG_AVRO_DATA_BLOCK, h, 3));
    hoodie_assert_ok(hoodie_hlog_avro_content_begin(&out, &w));
    for (int i = 0; i < 3; i++) {
        hoodie_assert_ok(hoodie_hlog_avro_record_begin(&out, &w));
        hoodie_assert_ok(hoodie_avro_write_bytes(&out, recs[i], strlen(recs[i])));
        hoodie_assert_ok(hoodie_hlog_avro_record_end(&out, &w));
    }
    hoodie_assert_ok(hoodie_hlog_avro_content_end(&out, &w));
    hoodie_assert_ok(hoodie_hlog_block_end(&out, &m));

    /* empty data block */
    hoodie_assert_ok(hoodie_hlog_block_begin(&out, &m, HOODIE_HLOG_AVRO_DATA_BLOCK, h, 2));
    hoodie_assert_ok(hoodie_hlog_avro_content_begin(&out, &w));
    hoodie_assert_ok(hoodie_hlog_avro_content_end(&out, &w));
    hoodie_assert_ok(hoodie_hlog_block_end(&out, &m));

    /* deletes with every ordering type */
    static const uint8_t dec[] = { 0x03, 0x8d, 0x7e, 0xa4, 0xc6, 0x80, 0x00 };
    hoodie_hlog_delete d[13];
    memset(d, 0, sizeof d);
    for (int i = 0; i < 12; i++) {
        char *k = malloc(16);
        snprintf(k, 16, "key%d", i);
        d[i].record_key = k;
        d[i].partition_path = i % 3 ? "p=1" : NULL;
        d[i].ord_type = (hoodie_hlog_ord_type)i;
        d[i].ord_i = i == HOODIE_HLOG_ORD_BOOLEAN ? 1 : -123456789LL * (i == HOODIE_HLOG_ORD_LONG ? 100000 : 1);
        d[i].ord_d = i == HOODIE_HLOG_ORD_FLOAT ? 1.5 : -2.25e300;
        d[i].ord_bytes = i == HOODIE_HLOG_ORD_DECIMAL ? dec : (const uint8_t *)"ord";
        d[i].ord_len = i == HOODIE_HLOG_ORD_DECIMAL ? sizeof dec : 3;
    }
    d[12].record_key = NULL;
    d[12].partition_path = "";
    d[12].ord_type = HOODIE_HLOG_ORD_STRING;
    d[12].ord_bytes = NULL;
    d[12].ord_len = 0;
    hoodie_assert_ok(hoodie_hlog_write_delete_block(&out, h + 1, 1, d, 13));
    hoodie_assert_ok(hoodie_hlog_write_delete_block(&out, h, 1, d, 0));
    hoodie_assert_ok(hoodie_hlog_write_rollback(&out, "20250101000000001", "20250101000000000"));
    static const uint8_t pq[] = "PAR1\x15\x00\x15\x00PAR1";
    hoodie_assert_ok(hoodie_hlog_write_block(&out, HOODIE_HLOG_PARQUET_DATA_BLOCK, h, 3, pq, 12));

    /* bad input leaves the buffer as it was */
    size_t len = out.len;
    hoodie_hlog_delete bad = d[2];
    bad.ord_i = (int64_t)INT32_MAX + 1;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_hlog_write_delete_block(&out, h, 1, &bad, 1));
    bad.ord_type = (hoodie_hlog_ord_type)12;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_hlog_write_delete_block(&out, h, 1, &bad, 1));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_hlog_write_block(&out, HOODIE_HLOG_CORRUPT_BLOCK, h, 1, NULL, 0));
    hoodie_assert_equal_i(len, out.len);

    /* read everything back */
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, out.data, out.len, "own"));

    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
    hoodie_assert_equal_i(HOODIE_HLOG_AVRO_DATA_BLOCK, b.type);
    hoodie_assert_equal_s("20250101000000000", b.header[HOODIE_HLOG_INSTANT_TIME]);
    hoodie_assert_equal_s("1,0", b.header[HOODIE_HLOG_BLOCK_IDENTIFIER]);
    hoodie_assert_equal_s("{\"type\":\"string\"}", b.header[HOODIE_HLOG_SCHEMA]);
    hoodie_assert_equal_i(0, b.footer_count);
    hoodie_hlog_avro_records r;
    const uint8_t *rec;
    size_t rlen;
    hoodie_assert_ok(hoodie_hlog_avro_open(&r, &b, "own"));
    hoodie_assert_equal_i(3, r.version);
    hoodie_assert_equal_i(3, r.record_count);
    for (int i = 0; i < 3; i++) {
        hoodie_cursor c;
        size_t n;
        hoodie_assert_ok(hoodie_hlog_avro_next(&r, &rec, &rlen));
        hoodie_cursor_init(&c, rec, rlen, 0, "own");
        const uint8_t *s = hoodie_avro_read_bytes(&c, &n);
        hoodie_assert_ok(c.status);
        hoodie_assert_equal_i(strlen(recs[i]), n);
        hoodie_assert(n == 0 || memcmp(s, recs[i], n) == 0);
        hoodie_assert_equal_i(0, hoodie_cursor_left(&c));
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, hoodie_hlog_avro_next(&r, &rec, &rlen));

    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
    hoodie_assert_ok(hoodie_hlog_avro_open(&r, &b, "own"));
    hoodie_assert_equal_i(0, r.record_count);
    hoodie_assert_equal_i(HOODIE_ITEROVER, hoodie_hlog_avro_next(&r, &rec, &rlen));

    hoodie_hlog_delete *got;
    size_t n;
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
    hoodie_assert_equal_i(HOODIE_HLOG_DELETE_BLOCK, b.type);
    hoodie_assert_equal_s("1,0", b.header[HOODIE_HLOG_BLOCK_IDENTIFIER]);
    hoodie_assert_ok(hoodie_hlog_delete_decode(&b, a, "own", &got, &n));
    hoodie_assert_equal_i(13, n);
    for (size_t i = 0; i < n; i++) {
        hoodie_assert_equal_i(d[i].ord_type, got[i].ord_type);
        if (d[i].record_key) hoodie_assert_equal_s(d[i].record_key, got[i].record_key);
        else hoodie_assert(got[i].record_key == NULL);
        if (d[i].partition_path) hoodie_assert_equal_s(d[i].partition_path, got[i].partition_path);
        else hoodie_assert(got[i].partition_path == NULL);
        switch (d[i].ord_type) {
        case HOODIE_HLOG_ORD_NULL: break;
        case HOODIE_HLOG_ORD_FLOAT: case HOODIE_HLOG_ORD_DOUBLE:
            hoodie_assert(got[i].ord_d == (d[i].ord_type == HOODIE_HLOG_ORD_FLOAT ? (double)(float)d[i].ord_d : d[i].ord_d));
            break;
        case HOODIE_HLOG_ORD_BYTES: case HOODIE_HLOG_ORD_STRING: case HOODIE_HLOG_ORD_DECIMAL:
            hoodie_assert_equal_i(d[i].ord_len, got[i].ord_len);
            hoodie_assert(d[i].ord_len == 0 || memcmp(d[i].ord_bytes, got[i].ord_bytes, d[i].ord_len) == 0);
            break;
        default:
            hoodie_assert_equal_i(d[i].ord_i, got[i].ord_i);
        }
    }
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
    hoodie_assert_ok(hoodie_hlog_delete_decode(&b, a, "own", &got, &n));
    hoodie_assert_equal_i(0, n);
    hoodie_assert_equal_i(9, b.content_len); /* version, length 1, array end 0 */

    const char *target;
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
    hoodie_assert_equal_i(1, hoodie_hlog_command_rollback(&b, "own", &target));
    hoodie_assert_equal_s("20250101000000000", target);
    hoodie_assert_equal_s("20250101000000001", b.header[HOODIE_HLOG_INSTANT_TIME]);

    const uint8_t *p;
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
    hoodie_assert_ok(hoodie_hlog_parquet_content(&b, "own", &p, &n));
    hoodie_assert_equal_i(12, n);
    hoodie_assert_equal_i(HOODIE_ITEROVER, hoodie_hlog_iter_next(&it, &b));
    hoodie_assert_equal_i(0, it.corrupt_blocks);
    hoodie_hlog_iter_dispose(&it);
    hoodie_arena_free(a);
    for (int i = 0; i < 12; i++) free((char *)d[i].record_key);
    hoodie_buf_dispose(&out);
}
