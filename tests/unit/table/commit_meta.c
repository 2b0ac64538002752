#include "hoodie_test.h"
#include "table/commit_meta.h"
#include "table/timeline.h"
#include "storage/storage.h"
#include "util/error.h"

static hoodie_commit_meta *decode_file(const char *path)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_commit_meta *m = NULL;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), path, &b));
    hoodie_assert_ok(hoodie_commit_meta_decode(&m, b.data, b.len, path));
    hoodie_buf_dispose(&b);
    return m;
}

HOODIE_TEST(table_commit_meta__v6_json)
{
    hoodie_commit_meta *m = decode_file(hoodie_fixture("hudi/standalone/commit_metadata/v6_commit.json"));
    hoodie_assert_equal_i(1, m->stat_count);
    const hoodie_write_stat *s = &m->stats[0];
    hoodie_assert_equal_s("", s->partition_path);
    hoodie_assert_equal_s("a079bdb3-731c-4894-b855-abfcd6921007-0", s->file_id);
    hoodie_assert_equal_s("a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet", s->path);
    hoodie_assert_equal_s("20240418173550988", s->prev_commit);
    hoodie_assert_equal_i(4, s->num_writes);
    hoodie_assert_equal_i(1, s->num_update_writes);
    hoodie_assert_equal_i(1, s->num_inserts);
    hoodie_assert_equal_i(441520, s->total_write_bytes);
    hoodie_assert_equal_i(441520, s->file_size_in_bytes);
    hoodie_assert_equal_i(-1, s->log_version);
    hoodie_assert(!m->compacted);
    hoodie_assert(m->schema && strstr(m->schema, "v6_nonpartitioned_record"));
    hoodie_commit_meta_free(m);
}

HOODIE_TEST(table_commit_meta__v8_avro)
{
    hoodie_commit_meta *m = decode_file(hoodie_fixture("hudi/standalone/commit_metadata/v8_deltacommit.avro"));
    hoodie_assert(m->stat_count >= 1);
    hoodie_assert(m->operation_type != NULL);
    hoodie_assert(m->schema != NULL);
    for (size_t i = 0; i < m->stat_count; i++) {
        hoodie_assert(m->stats[i].file_id && *m->stats[i].file_id);
        hoodie_assert(m->stats[i].path && *m->stats[i].path);
    }
    hoodie_commit_meta_free(m);
}

HOODIE_TEST(table_commit_meta__standalone_timelines)
{
    char path[1024];
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_commit_meta *m;
    /* "{}" */
    m = decode_file(hoodie_fixture("hudi/standalone/timeline/commits_with_empty_commit_metadata/.hoodie/20240402144910683.commit"));
    hoodie_assert_equal_i(0, m->stat_count);
    hoodie_assert(m->operation_type == NULL && m->schema == NULL);
    hoodie_commit_meta_free(m);
    /* 0 bytes */
    m = decode_file(hoodie_fixture("hudi/standalone/timeline/commits_stub/.hoodie/20240402144910683.commit"));
    hoodie_assert_equal_i(0, m->stat_count + m->extra_count);
    hoodie_commit_meta_free(m);
    m = decode_file(hoodie_fixture("hudi/standalone/timeline/commits_with_no_schema_and_write_stats/.hoodie/20240402144910683.commit"));
    hoodie_assert_equal_s("BULK_INSERT", m->operation_type);
    hoodie_assert(m->schema == NULL);
    hoodie_commit_meta_free(m);
    m = decode_file(hoodie_fixture("hudi/standalone/timeline/commits_with_valid_schema_in_commit_metadata/.hoodie/20240402144910683.commit"));
    hoodie_assert(m->schema && strstr(m->schema, "v6_trips_record"));
    hoodie_commit_meta_free(m);
    /* a JSON array is not commit metadata */
    snprintf(path, sizeof path, "%s", hoodie_fixture("hudi/standalone/timeline/commits_with_invalid_content/.hoodie/20240402144910683.commit"));
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), path, &b));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_commit_meta_decode(&m, b.data, b.len, path));
    hoodie_assert_contains(hoodie_error_last()->message, "commits_with_invalid_content/.hoodie/20240402144910683.commit");
    hoodie_buf_dispose(&b);
    static const char *bad[] = { "{", "nonsense", "{\"partitionToWriteStats\": []}", "{\"compacted\": 3}",
                                 "{\"partitionToWriteStats\": {\"p\": [ {\"numWrites\": \"x\"} ]}}",
                                 "{\"extraMetadata\": {\"schema\": 1}}", "Obj\x01", "Obj\x01\x02\x16" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        hoodie_assert_status(HOODIE_ECORRUPT, hoodie_commit_meta_decode(&m, bad[i], strlen(bad[i]) + (i >= 6), "bad"));
}

static const char *all_tables[] = {
    "cow_v6_complexkeygen_hivestyle", "cow_v6_empty", "cow_v6_nonpartitioned",
    "cow_v6_simplekeygen_hivestyle_no_metafields", "cow_v6_simplekeygen_nonhivestyle",
    "cow_v6_simplekeygen_nonhivestyle_overwritetable", "cow_v8_complexkeygen_hivestyle", "cow_v8_empty",
    "cow_v8_nonpartitioned", "cow_v8_simplekeygen_nonhivestyle", "cow_v8_simplekeygen_nonhivestyle_overwritetable",
    "cow_v9_txns_nonpart_nometa", "mdt_basic_mor_avro_v8_nonpartitioned", "mor_parquet_v6_complexkeygen_hivestyle",
    "mor_parquet_v6_empty", "mor_parquet_v6_nonpartitioned", "mor_parquet_v6_nonpartitioned_rollback",
    "mor_parquet_v6_simplekeygen_nonhivestyle", "trips_mor_avro_table_column_projection",
    "trips_mor_avro_table_log_only", "trips_mor_avro_v6_trips_8i1u", "trips_mor_avro_v8_trips_8i1u",
    "trips_mor_avro_v8_trips_8i3d", "trips_mor_avro_v9_mor_nonpart_3commits",
};

/* Every completed write of every fixture table decodes; its write stats name files; replacecommits name
 * replaced groups; rollbacks name what they rolled back. Truncated copies fail cleanly. */
HOODIE_TEST(table_commit_meta__every_fixture_timeline)
{
    size_t writes = 0, replaces = 0, rollbacks = 0, avro = 0;
    for (size_t t = 0; t < sizeof all_tables / sizeof *all_tables; t++) {
        char rel[256];
        hoodie_table_config *c;
        hoodie_timeline *tl;
        hoodie_buf p = HOODIE_BUF_INIT, b = HOODIE_BUF_INIT;
        snprintf(rel, sizeof rel, "hudi/tables/%s", all_tables[t]);
        hoodie_assert_ok(hoodie_table_config_load(&c, NULL, hoodie_fixture(rel), 0));
        hoodie_assert_ok(hoodie_timeline_load(&tl, NULL, hoodie_fixture(rel), c));
        for (size_t i = 0; i < tl->count; i++) {
            const hoodie_instant *in = &tl->instants[i];
            hoodie_assert_ok(hoodie_timeline_instant_path(tl, in, HOODIE_STATE_COMPLETED, &p));
            hoodie_buf_clear(&b);
            hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), (const char *)p.data, &b));
            avro += b.len >= 4 && !memcmp(b.data, "Obj\x01", 4);
            if (HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action)) {
                hoodie_commit_meta *m;
                hoodie_assert_ok(hoodie_commit_meta_decode(&m, b.data, b.len, (const char *)p.data));
                writes++;
                hoodie_assert(m->stat_count > 0);
                hoodie_assert(m->operation_type != NULL);
                for (size_t k = 0; k < m->stat_count; k++) {
                    hoodie_assert(m->stats[k].file_id && m->stats[k].path);
                    hoodie_assert(m->stats[k].partition_path != NULL);
                }
                if (in->action == HOODIE_ACTION_REPLACECOMMIT) {
                    replaces++;
                    hoodie_assert(m->replaced_count >= 1);
                    hoodie_assert(m->replaced[0].count >= 1);
                }
                if (in->plan_action == HOODIE_ACTION_COMPACTION) hoodie_assert(m->compacted);
                if (c->version >= 8) hoodie_assert(b.len >= 4 && !memcmp(b.data, "Obj\x01", 4));
                hoodie_commit_meta_free(m);
                /* every truncation of the content fails cleanly (or, for a cut JSON, is corrupt) */
                for (size_t cut = 1; cut < b.len; cut += 1 + b.len / 40) {
                    hoodie_status rc = hoodie_commit_meta_decode(&m, b.data, cut, "cut");
                    if (rc != HOODIE_ECORRUPT) fprintf(stderr, "%s cut %zu/%zu rc %d %s\n", (const char *)p.data, cut, b.len, rc, hoodie_error_last()->message);
                    hoodie_assert(rc == HOODIE_ECORRUPT);
                    hoodie_assert(m == NULL);
                }
            } else if (in->action == HOODIE_ACTION_ROLLBACK) {
                hoodie_rollback_meta *r;
                hoodie_assert_ok(hoodie_rollback_meta_decode(&r, b.data, b.len, (const char *)p.data));
                rollbacks++;
                hoodie_assert_equal_i(1, r->commit_count);
                hoodie_assert_equal_s("20250126040826878", r->commits_rollback[0]);
                hoodie_rollback_meta_free(r);
            }
        }
        hoodie_buf_dispose(&p);
        hoodie_buf_dispose(&b);
        hoodie_timeline_free(tl);
        hoodie_table_config_free(c);
    }
    hoodie_assert_equal_i(3, replaces);
    hoodie_assert_equal_i(1, rollbacks);
    hoodie_assert(writes > 40);
    hoodie_assert(avro > 20);
}
