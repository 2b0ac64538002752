#include "hoodie_test.h"
#include "storage/storage.h"
#include "table/commit_meta.h"
#include "write/avro_enc.h"
#include "write/commit_encode.h"
#include "util/error.h"

#include <avro.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void read_fixture(const char *rel, hoodie_buf *b)
{
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), b));
}

/* The v6 fixture commit, rebuilt from its values, must come out byte for byte. */
HOODIE_TEST(write_commit_encode__v6_json_matches_fixture)
{
    hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
    read_fixture("hudi/standalone/commit_metadata/v6_commit.json", &want);
    hoodie_commit_meta *m = NULL;
    hoodie_assert_ok(hoodie_commit_meta_decode(&m, want.data, want.len, "v6_commit.json"));
    hoodie_wstat w = { 0 };
    w.partition_path = "";
    w.file_id = "a079bdb3-731c-4894-b855-abfcd6921007-0";
    w.path = "a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet";
    w.prev_commit = "20240418173550988";
    w.num_writes = 4; w.num_update_writes = 1; w.num_inserts = 1;
    w.total_write_bytes = w.file_size_in_bytes = 441520;
    w.has_runtime = 1; w.total_upsert_time = 105;
    hoodie_kv extra = { "schema", m->schema };
    hoodie_commit_info ci = { 0 };
    ci.stats = &w; ci.stat_count = 1;
    ci.extra = &extra; ci.extra_count = 1;
    ci.operation_type = "UPSERT";
    hoodie_assert_ok(hoodie_commit_encode(&got, &ci, 6));
    hoodie_assert_ok(hoodie_buf_cstr(&want));
    hoodie_assert_ok(hoodie_buf_cstr(&got));
    hoodie_assert_equal_s((const char *)want.data, (const char *)got.data);
    hoodie_commit_meta_free(m);
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&got);
}

/* v6 delta (log) write and workload inflight, against the fixture tables. */
HOODIE_TEST(write_commit_encode__v6_inflight_workload_matches_fixture)
{
    hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
    read_fixture("hudi/tables/cow_v6_nonpartitioned/.hoodie/20240418173551906.inflight", &want);
    hoodie_wstat w[2] = { { 0 }, { 0 } };
    w[0].partition_path = ""; w[0].file_id = ""; w[0].workload = 1; w[0].num_inserts = 1;
    w[1].partition_path = ""; w[1].file_id = "a079bdb3-731c-4894-b855-abfcd6921007-0"; w[1].workload = 1;
    w[1].prev_commit = "20240418173550988"; w[1].num_update_writes = 1;
    hoodie_commit_info ci = { 0 };
    ci.stats = w; ci.stat_count = 2;
    ci.operation_type = "UPSERT";
    hoodie_assert_ok(hoodie_commit_encode(&got, &ci, 6));
    hoodie_assert_ok(hoodie_buf_cstr(&want));
    hoodie_assert_ok(hoodie_buf_cstr(&got));
    hoodie_assert_equal_s((const char *)want.data, (const char *)got.data);
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&got);
}

HOODIE_TEST(write_commit_encode__v6_delta_matches_fixture)
{
    hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
    read_fixture("hudi/tables/trips_mor_avro_v6_trips_8i1u/.hoodie/20250331030645735.deltacommit", &want);
    hoodie_commit_meta *m = NULL;
    hoodie_assert_ok(hoodie_commit_meta_decode(&m, want.data, want.len, "deltacommit"));
    hoodie_assert_equal_i(1, m->stat_count);
    const hoodie_write_stat *s = &m->stats[0];
    hoodie_wstat w = { 0 };
    w.partition_path = s->partition_path; w.file_id = s->file_id; w.path = s->path; w.prev_commit = s->prev_commit;
    w.num_writes = s->num_writes; w.num_update_writes = s->num_update_writes; w.num_inserts = s->num_inserts;
    w.num_deletes = s->num_deletes;
    w.total_write_bytes = s->total_write_bytes; w.file_size_in_bytes = s->file_size_in_bytes;
    w.is_delta = 1; w.log_version = (int32_t)s->log_version; w.base_file = s->base_file;
    w.log_files = s->log_files; w.log_file_count = s->log_file_count;
    w.has_runtime = 1; w.total_upsert_time = 296;
    hoodie_kv extra[2] = { { "schema", m->schema }, { "_hoodie.spark.sql.writes.prepped", "true" } };
    hoodie_commit_info ci = { 0 };
    ci.stats = &w; ci.stat_count = 1;
    ci.extra = extra; ci.extra_count = 2;
    ci.operation_type = "UPSERT_PREPPED";
    hoodie_assert_ok(hoodie_commit_encode(&got, &ci, 6));
    hoodie_assert_ok(hoodie_buf_cstr(&want));
    hoodie_assert_ok(hoodie_buf_cstr(&got));
    hoodie_assert_equal_s((const char *)want.data, (const char *)got.data);
    hoodie_commit_meta_free(m);
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&got);
}

/* Compare two OCF files byte for byte except their sync markers (random per file). */
static void assert_same_ocf(const hoodie_buf *want, const hoodie_buf *got)
{
    hoodie_assert_equal_i(want->len, got->len);
    /* header: magic + map; the sync marker follows the map and ends the file */
    size_t tail = 16;
    hoodie_assert(!memcmp(want->data + want->len - tail, want->data + (want->len - tail) - 0, 0));
    /* find the header sync: it is the 16 bytes that also end the file */
    const uint8_t *ws = want->data + want->len - 16, *gs = got->data + got->len - 16;
    size_t hdr_end = 0;
    for (size_t i = 4; i + 16 <= want->len - 16; i++)
        if (!memcmp(want->data + i, ws, 16)) { hdr_end = i; break; }
    hoodie_assert(hdr_end > 0);
    hoodie_assert(!memcmp(got->data + hdr_end, gs, 16));
    hoodie_assert(!memcmp(want->data, got->data, hdr_end));
    hoodie_assert(!memcmp(want->data + hdr_end + 16, got->data + hdr_end + 16, want->len - hdr_end - 32));
}

HOODIE_TEST(write_commit_encode__v8_avro_matches_fixture)
{
    hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
    read_fixture("hudi/tables/trips_mor_avro_v8_trips_8i1u/.hoodie/timeline/20250713011914363_20250713011914662.deltacommit",
                 &want);
    hoodie_commit_meta *m = NULL;
    hoodie_assert_ok(hoodie_commit_meta_decode(&m, want.data, want.len, "deltacommit"));
    static const char *const logs[] = { ".87a4c895-1f59-4518-972f-27f49a92c7b4-0_20250713011914363.log.1_0-265-414" };
    hoodie_wstat w = { 0 };
    w.partition_path = "city=san_francisco";
    w.file_id = "87a4c895-1f59-4518-972f-27f49a92c7b4-0";
    w.path = "city=san_francisco/.87a4c895-1f59-4518-972f-27f49a92c7b4-0_20250713011914363.log.1_0-265-414";
    w.prev_commit = "20250713011914363";
    w.num_writes = 1; w.num_update_writes = 1;
    w.total_write_bytes = w.file_size_in_bytes = 1148;
    w.is_delta = 1; w.log_version = 1; w.base_file = ""; w.log_files = logs; w.log_file_count = 1;
    w.has_runtime = 1; w.total_upsert_time = 70;
    hoodie_kv extra[2] = { { "schema", m->schema }, { "_hoodie.spark.sql.writes.prepped", "true" } };
    hoodie_commit_info ci = { 0 };
    ci.stats = &w; ci.stat_count = 1;
    ci.extra = extra; ci.extra_count = 2;
    ci.operation_type = "UPSERT_PREPPED";
    hoodie_assert_ok(hoodie_commit_encode(&got, &ci, 8));
    assert_same_ocf(&want, &got);

    /* and the inflight workload of the same instant */
    hoodie_buf_clear(&want);
    hoodie_buf_clear(&got);
    read_fixture("hudi/tables/trips_mor_avro_v8_trips_8i1u/.hoodie/timeline/20250713011914363.deltacommit.inflight", &want);
    hoodie_wstat wl[2] = { { 0 }, { 0 } };
    wl[0].partition_path = "city=san_francisco"; wl[0].file_id = ""; wl[0].workload = 1;
    wl[1].partition_path = "city=san_francisco"; wl[1].file_id = "87a4c895-1f59-4518-972f-27f49a92c7b4-0";
    wl[1].workload = 1; wl[1].prev_commit = "20250713011913147"; wl[1].num_update_writes = 1;
    hoodie_commit_info wi = { 0 };
    wi.stats = wl; wi.stat_count = 2; wi.operation_type = "UPSERT_PREPPED";
    hoodie_assert_ok(hoodie_commit_encode(&got, &wi, 8));
    assert_same_ocf(&want, &got);

    hoodie_commit_meta_free(m);
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&got);
}

static hoodie_commit_info sample(hoodie_wstat w[3], hoodie_replaced_file_ids *rep, hoodie_kv *extra)
{
    static const char *const logs[] = { ".f2_001.log.1_0-1-1", ".f2_001.log.2_0-1-1" };
    static const char *ids[] = { "old-1", "old-2" };
    memset(w, 0, 3 * sizeof *w);
    w[0].partition_path = "a=1"; w[0].file_id = "f1"; w[0].path = "a=1/f1_0-1-1_001.parquet";
    w[0].num_writes = 10; w[0].num_inserts = 10; w[0].total_write_bytes = 1234; w[0].file_size_in_bytes = 1234;
    w[0].has_event_time = 1; w[0].min_event_time = -5; w[0].max_event_time = 1LL << 40;
    w[1].partition_path = "a=2"; w[1].file_id = "f2"; w[1].path = "a=2/.f2_001.log.2_0-1-1"; w[1].prev_commit = "001";
    w[1].is_delta = 1; w[1].log_version = 2; w[1].log_offset = 0; w[1].base_file = "";
    w[1].log_files = logs; w[1].log_file_count = 2; w[1].num_writes = 3; w[1].num_deletes = 1;
    w[1].has_runtime = 1; w[1].total_upsert_time = 7;
    w[2].partition_path = "a=1"; w[2].file_id = "f3"; w[2].path = "a=1/f3_0-1-1_001.parquet"; w[2].prev_commit = "000";
    w[2].num_update_writes = 2; w[2].num_writes = 2;
    rep->partition_path = "a=1"; rep->file_ids = ids; rep->count = 2;
    extra->key = "schema"; extra->value = "{\"type\":\"record\",\"name\":\"r\",\"fields\":[]}";
    hoodie_commit_info ci = { 0 };
    ci.stats = w; ci.stat_count = 3;
    ci.is_replace = 1; ci.replaced = rep; ci.replaced_count = 1;
    ci.extra = extra; ci.extra_count = 1;
    ci.operation_type = "INSERT_OVERWRITE";
    return ci;
}

HOODIE_TEST(write_commit_encode__roundtrip_both_versions)
{
    for (int v = 6; v <= 8; v += 2) {
        hoodie_wstat w[3];
        hoodie_replaced_file_ids rep;
        hoodie_kv extra;
        hoodie_commit_info ci = sample(w, &rep, &extra);
        hoodie_buf out = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_commit_encode(&out, &ci, v));
        hoodie_commit_meta *m = NULL;
        hoodie_assert_ok(hoodie_commit_meta_decode(&m, out.data, out.len, "encoded"));
        hoodie_assert_equal_s("INSERT_OVERWRITE", m->operation_type);
        hoodie_assert_equal_i(3, m->stat_count);
        hoodie_assert_equal_i(0, m->compacted);
        /* grouped by partition: a=1 (f1, f3), then a=2 (f2) */
        hoodie_assert_equal_s("f1", m->stats[0].file_id);
        hoodie_assert_equal_s("f3", m->stats[1].file_id);
        hoodie_assert_equal_s("f2", m->stats[2].file_id);
        hoodie_assert_equal_s("a=1", m->stats[0].partition_path);
        hoodie_assert_equal_s("a=1/f1_0-1-1_001.parquet", m->stats[0].path);
        hoodie_assert_equal_s("null", m->stats[0].prev_commit);
        hoodie_assert_equal_s("000", m->stats[1].prev_commit);
        hoodie_assert_equal_i(10, m->stats[0].num_inserts);
        hoodie_assert_equal_i(10, m->stats[0].num_writes);
        hoodie_assert_equal_i(1234, m->stats[0].total_write_bytes);
        hoodie_assert_equal_i(1234, m->stats[0].file_size_in_bytes);
        hoodie_assert_equal_i(2, m->stats[1].num_update_writes);
        hoodie_assert_equal_i(-1, m->stats[0].log_version);
        hoodie_assert_equal_i(2, m->stats[2].log_version);
        hoodie_assert_equal_i(1, m->stats[2].num_deletes);
        hoodie_assert_equal_s("", m->stats[2].base_file);
        hoodie_assert_equal_i(2, m->stats[2].log_file_count);
        hoodie_assert_equal_s(".f2_001.log.2_0-1-1", m->stats[2].log_files[1]);
        hoodie_assert_equal_i(1, m->replaced_count);
        hoodie_assert_equal_s("a=1", m->replaced[0].partition_path);
        hoodie_assert_equal_i(2, m->replaced[0].count);
        hoodie_assert_equal_s("old-2", m->replaced[0].file_ids[1]);
        hoodie_assert_equal_s(extra.value, m->schema);
        hoodie_commit_meta_free(m);
        hoodie_buf_dispose(&out);
    }
}

/* The independent check: libavro (avro-c) reads the v8 file against its embedded schema. */
HOODIE_TEST(write_commit_encode__v8_readable_by_libavro)
{
    hoodie_wstat w[3];
    hoodie_replaced_file_ids rep;
    hoodie_kv extra;
    hoodie_commit_info ci = sample(w, &rep, &extra);
    for (int replace = 0; replace < 2; replace++) {
        ci.is_replace = replace;
        hoodie_buf out = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_commit_encode(&out, &ci, 8));
        char path[512];
        snprintf(path, sizeof path, "%s/c%d.avro", hoodie_test_tmpdir(), replace);
        FILE *f = fopen(path, "wb");
        hoodie_assert(f && fwrite(out.data, 1, out.len, f) == out.len);
        fclose(f);
        avro_file_reader_t r;
        hoodie_assert_equal_i(0, avro_file_reader(path, &r));
        avro_schema_t s = avro_file_reader_get_writer_schema(r);
        hoodie_assert_equal_s(replace ? "HoodieReplaceCommitMetadata" : "HoodieCommitMetadata", avro_schema_name(s));
        avro_value_iface_t *iface = avro_generic_class_from_schema(s);
        avro_value_t rec;
        hoodie_assert_equal_i(0, avro_generic_value_new(iface, &rec));
        hoodie_assert_equal_i(0, avro_file_reader_read_value(r, &rec));
        avro_value_t field, branch, v;
        const char *str;
        size_t len;
        hoodie_assert_equal_i(0, avro_value_get_by_name(&rec, "operationType", &field, NULL));
        hoodie_assert_equal_i(0, avro_value_get_current_branch(&field, &branch));
        hoodie_assert_equal_i(0, avro_value_get_string(&branch, &str, &len));
        hoodie_assert_equal_s("INSERT_OVERWRITE", str);
        hoodie_assert_equal_i(0, avro_value_get_by_name(&rec, "partitionToWriteStats", &field, NULL));
        hoodie_assert_equal_i(0, avro_value_get_current_branch(&field, &branch));
        size_t n = 0;
        hoodie_assert_equal_i(0, avro_value_get_size(&branch, &n));
        hoodie_assert_equal_i(2, n);
        hoodie_assert_equal_i(0, avro_value_get_by_name(&branch, "a=1", &v, NULL));
        hoodie_assert_equal_i(0, avro_value_get_size(&v, &n));
        hoodie_assert_equal_i(2, n);
        avro_value_t st, fid, fb, mx;
        hoodie_assert_equal_i(0, avro_value_get_by_index(&v, 0, &st, NULL));
        hoodie_assert_equal_i(0, avro_value_get_by_name(&st, "fileId", &fid, NULL));
        hoodie_assert_equal_i(0, avro_value_get_current_branch(&fid, &fb));
        hoodie_assert_equal_i(0, avro_value_get_string(&fb, &str, &len));
        hoodie_assert_equal_s("f1", str);
        hoodie_assert_equal_i(0, avro_value_get_by_name(&st, "maxEventTime", &mx, NULL));
        hoodie_assert_equal_i(0, avro_value_get_current_branch(&mx, &fb));
        int64_t l = 0;
        hoodie_assert_equal_i(0, avro_value_get_long(&fb, &l));
        hoodie_assert(l == (1LL << 40));
        /* exactly one record */
        hoodie_assert(avro_file_reader_read_value(r, &rec) != 0);
        avro_value_decref(&rec);
        avro_value_iface_decref(iface);
        avro_schema_decref(s);
        avro_file_reader_close(r);
        hoodie_buf_dispose(&out);
    }
}

HOODIE_TEST(write_commit_encode__errors)
{
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_commit_info ci = { 0 };
    hoodie_assert_status(HOODIE_EINVAL, hoodie_commit_encode(&out, &ci, 7));
    hoodie_wstat w = { 0 };
    ci.stats = &w; ci.stat_count = 1;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_commit_encode(&out, &ci, 8));
    /* empty metadata encodes and decodes */
    ci.stat_count = 0;
    hoodie_assert_ok(hoodie_commit_encode(&out, &ci, 8));
    hoodie_commit_meta *m = NULL;
    hoodie_assert_ok(hoodie_commit_meta_decode(&m, out.data, out.len, "empty"));
    hoodie_assert_equal_i(0, m->stat_count);
    hoodie_commit_meta_free(m);
    hoodie_buf_dispose(&out);
}
