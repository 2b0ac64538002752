#include "hoodie_test.h"
#include "table/timeline.h"
#include "storage/storage.h"
#include "util/error.h"

HOODIE_TEST(table_instant__parse_names)
{
    hoodie_instant i;
    hoodie_assert_ok(hoodie_instant_parse(&i, "20250713010139392_20250713010140981.commit"));
    hoodie_assert_equal_s("20250713010139392", i.requested);
    hoodie_assert_equal_s("20250713010140981", i.completion);
    hoodie_assert_equal_i(HOODIE_ACTION_COMMIT, i.action);
    hoodie_assert_equal_i(HOODIE_STATE_COMPLETED, i.state);

    hoodie_assert_ok(hoodie_instant_parse(&i, "20240418173213674.inflight"));
    hoodie_assert_equal_i(HOODIE_ACTION_COMMIT, i.action);
    hoodie_assert_equal_i(HOODIE_STATE_INFLIGHT, i.state);
    hoodie_assert_equal_s("", i.completion);

    hoodie_assert_ok(hoodie_instant_parse(&i, "20260307135802835.clustering.requested"));
    hoodie_assert_equal_i(HOODIE_ACTION_CLUSTERING, i.action);
    hoodie_assert_equal_i(HOODIE_STATE_REQUESTED, i.state);
    hoodie_assert_ok(hoodie_instant_parse(&i, "20250126040936578.rollback"));
    hoodie_assert_equal_i(HOODIE_ACTION_ROLLBACK, i.action);
    hoodie_assert_ok(hoodie_instant_parse(&i, "00000000000000.deltacommit")); /* 14 digits */

    static const char *not_instants[] = {
        "hoodie.properties", "hoodie.properties.backup", ".aux", "archived", ".20240418173213674.commit.crc",
        "20240418173213674.commit.crc", "20240418173213674.compaction", "2024.commit", "20240418173213674.foo",
        "20240418173213674_2024041817321367x.commit", "20240418173213674_20240418173213675.commit.inflight",
        "20240418173213674", "x20240418173213674.commit", "20240418173213674.deltacommit.done",
        "20240418173213674_.commit", "123456789012345678901234.commit",
    };
    for (size_t k = 0; k < sizeof not_instants / sizeof *not_instants; k++)
        hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_instant_parse(&i, not_instants[k]));
}

HOODIE_TEST(table_instant__format_roundtrip)
{
    char name[128];
    hoodie_instant i;
    static const struct { hoodie_action a; const char *req, *inf, *v1, *v2; } cases[] = {
        { HOODIE_ACTION_COMMIT, "T.commit.requested", "T.inflight", "T.commit", "T_C.commit" },
        { HOODIE_ACTION_DELTACOMMIT, "T.deltacommit.requested", "T.deltacommit.inflight", "T.deltacommit", "T_C.deltacommit" },
        { HOODIE_ACTION_REPLACECOMMIT, "T.replacecommit.requested", "T.replacecommit.inflight", "T.replacecommit", "T_C.replacecommit" },
        { HOODIE_ACTION_CLUSTERING, "T.clustering.requested", "T.clustering.inflight", "T.replacecommit", "T_C.replacecommit" },
        { HOODIE_ACTION_COMPACTION, "T.compaction.requested", "T.compaction.inflight", "T.commit", "T_C.commit" },
        { HOODIE_ACTION_LOGCOMPACTION, "T.logcompaction.requested", "T.logcompaction.inflight", "T.deltacommit", "T_C.deltacommit" },
        { HOODIE_ACTION_CLEAN, "T.clean.requested", "T.clean.inflight", "T.clean", "T_C.clean" },
        { HOODIE_ACTION_ROLLBACK, "T.rollback.requested", "T.rollback.inflight", "T.rollback", "T_C.rollback" },
        { HOODIE_ACTION_SAVEPOINT, "T.savepoint.requested", "T.savepoint.inflight", "T.savepoint", "T_C.savepoint" },
        { HOODIE_ACTION_RESTORE, "T.restore.requested", "T.restore.inflight", "T.restore", "T_C.restore" },
        { HOODIE_ACTION_INDEXING, "T.indexing.requested", "T.indexing.inflight", "T.indexing", "T_C.indexing" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const char *want[4] = { cases[k].req, cases[k].inf, cases[k].v1, cases[k].v2 };
        memset(&i, 0, sizeof i);
        strcpy(i.requested, "20250713010139392");
        strcpy(i.completion, "20250713010140981");
        i.action = i.plan_action = cases[k].a;
        for (int s = 0; s < 4; s++) {
            char expect[128], *o = expect;
            for (const char *p = want[s]; *p; p++) {
                if (*p == 'T') o += sprintf(o, "20250713010139392");
                else if (*p == 'C') o += sprintf(o, "20250713010140981");
                else *o++ = *p;
            }
            *o = 0;
            hoodie_assert_ok(hoodie_instant_file_name(&i, s < 2 ? (hoodie_instant_state)s : HOODIE_STATE_COMPLETED,
                                                      s == 3 ? 2 : 1, name, sizeof name));
            hoodie_assert_equal_s(expect, name);
            /* and parse it back */
            hoodie_instant back;
            hoodie_assert_ok(hoodie_instant_parse(&back, name));
            hoodie_assert_equal_s(i.requested, back.requested);
            hoodie_assert_equal_i(s < 2 ? cases[k].a : hoodie_action_completed(cases[k].a), back.action);
        }
    }
    hoodie_assert_status(HOODIE_EINVAL, hoodie_instant_file_name(&i, HOODIE_STATE_COMPLETED, 2, name, 10));
}

static hoodie_timeline *load_tl(const char *table)
{
    char rel[256];
    hoodie_table_config *c;
    hoodie_timeline *tl;
    snprintf(rel, sizeof rel, "hudi/tables/%s", table);
    hoodie_assert_ok(hoodie_table_config_load(&c, NULL, hoodie_fixture(rel), 0));
    hoodie_assert_ok(hoodie_timeline_load(&tl, NULL, hoodie_fixture(rel), c));
    hoodie_table_config_free(c);
    return tl;
}

HOODIE_TEST(table_timeline__v6_and_v8)
{
    hoodie_timeline *tl = load_tl("cow_v6_simplekeygen_nonhivestyle_overwritetable");
    hoodie_instant_list l;
    hoodie_assert_equal_i(3, tl->count);
    hoodie_assert_equal_s("20240707001301554", tl->instants[0].requested);
    hoodie_assert_equal_i(HOODIE_ACTION_REPLACECOMMIT, tl->instants[2].action);
    hoodie_assert_equal_i(HOODIE_STATE_COMPLETED, tl->instants[2].state);
    hoodie_assert_equal_i(7, tl->instants[2].state_files);
    hoodie_assert_equal_s("", tl->instants[2].completion);
    hoodie_assert(tl->instants[2].mtime_ms > 0);
    hoodie_assert_ok(hoodie_timeline_completed_writes(tl, "20240707001302376", &l));
    hoodie_assert_equal_i(2, l.count);
    hoodie_instant_list_dispose(&l);
    hoodie_buf p = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_timeline_instant_path(tl, &tl->instants[2], HOODIE_STATE_COMPLETED, &p));
    hoodie_assert_contains((const char *)p.data, "overwritetable/.hoodie/20240707001303088.replacecommit");
    hoodie_assert_ok(hoodie_timeline_instant_path(tl, &tl->instants[0], HOODIE_STATE_INFLIGHT, &p));
    hoodie_assert_contains((const char *)p.data, "/.hoodie/20240707001301554.inflight");
    hoodie_buf_dispose(&p);
    hoodie_timeline_free(tl);

    tl = load_tl("cow_v9_txns_nonpart_nometa");
    hoodie_assert_equal_i(11, tl->count);
    const hoodie_instant *cl = hoodie_timeline_find(tl, "20260307135802835", HOODIE_ACTION_REPLACECOMMIT);
    hoodie_assert(cl != NULL);
    hoodie_assert_equal_i(HOODIE_ACTION_REPLACECOMMIT, cl->action);
    hoodie_assert_equal_i(HOODIE_ACTION_CLUSTERING, cl->plan_action);
    hoodie_assert_equal_s("20260307135803308", cl->completion);
    hoodie_assert(hoodie_timeline_find(tl, "20260307135802835", HOODIE_ACTION_CLUSTERING) == cl);
    hoodie_assert(hoodie_timeline_find(tl, "20260307135802836", HOODIE_ACTION_COUNT) == NULL);
    hoodie_assert(hoodie_timeline_is_completed(tl, "20260307135802835", HOODIE_ACTIONS_WRITE));
    hoodie_assert(!hoodie_timeline_is_completed(tl, "20260307135802835", HOODIE_ACTION_BIT(HOODIE_ACTION_COMMIT)));
    hoodie_assert_equal_s("20260307135803380", hoodie_timeline_last_completed(tl, HOODIE_ACTIONS_WRITE)->requested);
    hoodie_assert(hoodie_timeline_before_start(tl, "20260307135753542"));
    hoodie_assert(!hoodie_timeline_before_start(tl, "20260307135753543"));
    /* completion-time filter */
    hoodie_timeline_filter f = { HOODIE_ACTIONS_WRITE, 0, NULL, "20260307135758041" };
    hoodie_assert_ok(hoodie_timeline_select(tl, &f, &l));
    hoodie_assert_equal_i(3, l.count);
    hoodie_instant_list_dispose(&l);
    hoodie_timeline_free(tl);

    tl = load_tl("mdt_basic_mor_avro_v8_nonpartitioned");
    const hoodie_instant *cp = hoodie_timeline_find(tl, "20260101054335805", HOODIE_ACTION_COMPACTION);
    hoodie_assert(cp != NULL);
    hoodie_assert_equal_i(HOODIE_ACTION_COMMIT, cp->action);
    hoodie_assert_equal_i(HOODIE_ACTION_COMPACTION, cp->plan_action);
    hoodie_buf q = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_timeline_instant_path(tl, cp, HOODIE_STATE_REQUESTED, &q));
    hoodie_assert_contains((const char *)q.data, "/.hoodie/timeline/20260101054335805.compaction.requested");
    hoodie_assert_ok(hoodie_timeline_instant_path(tl, cp, HOODIE_STATE_COMPLETED, &q));
    hoodie_assert_contains((const char *)q.data, "/.hoodie/timeline/20260101054335805_20260101054336262.commit");
    hoodie_buf_dispose(&q);
    hoodie_assert(hoodie_timeline_find(tl, "20260101054325431", HOODIE_ACTION_INDEXING) != NULL);
    hoodie_timeline_free(tl);

    tl = load_tl("cow_v8_empty");
    hoodie_assert_equal_i(0, tl->count);
    hoodie_assert(hoodie_timeline_last_completed(tl, 0) == NULL);
    hoodie_timeline_free(tl);
}

/* Every fixture table: every instant is completed, and every state file named by the timeline exists. */
HOODIE_TEST(table_timeline__every_fixture_table)
{
    static const char *tables[] = {
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
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
        hoodie_timeline *tl = load_tl(tables[t]);
        hoodie_buf p = HOODIE_BUF_INIT;
        for (size_t i = 0; i < tl->count; i++) {
            const hoodie_instant *in = &tl->instants[i];
            hoodie_assert_equal_i(HOODIE_STATE_COMPLETED, in->state);
            hoodie_assert_equal_i(tl->layout_version == 2, in->completion[0] != 0);
            if (i) hoodie_assert(strcmp(tl->instants[i - 1].requested, in->requested) < 0);
            for (int s = 0; s < 3; s++) {
                if (!(in->state_files & HOODIE_STATE_BIT(s))) continue;
                hoodie_assert_ok(hoodie_timeline_instant_path(tl, in, (hoodie_instant_state)s, &p));
                hoodie_assert_equal_i(1, hoodie_storage_posix()->exists(NULL, (const char *)p.data));
            }
        }
        hoodie_buf_dispose(&p);
        hoodie_timeline_free(tl);
    }
}

/* Pending instants and unrelated files, on the in-memory storage. */
HOODIE_TEST(table_timeline__pending_and_noise)
{
    hoodie_storage *m;
    hoodie_timeline *tl;
    static const char *files[] = {
        "/t/.hoodie/timeline/20250101000000001.commit.requested", "/t/.hoodie/timeline/20250101000000001.inflight",
        "/t/.hoodie/timeline/20250101000000002.deltacommit.requested",
        "/t/.hoodie/timeline/20250101000000003.clean.requested", "/t/.hoodie/timeline/20250101000000003.clean.inflight",
        "/t/.hoodie/timeline/20250101000000000.rollback.requested",
        "/t/.hoodie/timeline/20250101000000000.rollback.inflight",
        "/t/.hoodie/timeline/20250101000000000_20250101000000009.rollback",
        "/t/.hoodie/timeline/history/00_11_0.parquet", "/t/.hoodie/timeline/.20250101000000001.inflight.crc",
        "/t/.hoodie/timeline/hoodie.properties", "/t/.hoodie/timeline/notes.txt",
    };
    hoodie_assert_ok(hoodie_storage_mem_new(&m));
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        hoodie_assert_ok(hoodie_storage_write_all(m, files[i], 0, "", 0));
    hoodie_assert_ok(hoodie_timeline_load_dir(&tl, m, "/t/.hoodie/timeline", 2));
    hoodie_assert_equal_i(4, tl->count);
    hoodie_assert_equal_i(HOODIE_ACTION_ROLLBACK, tl->instants[0].action);
    hoodie_assert_equal_i(HOODIE_STATE_COMPLETED, tl->instants[0].state);
    hoodie_assert_equal_i(HOODIE_STATE_INFLIGHT, tl->instants[1].state);
    hoodie_assert_equal_i(HOODIE_ACTION_COMMIT, tl->instants[1].action);
    hoodie_assert_equal_i(HOODIE_STATE_REQUESTED, tl->instants[2].state);
    hoodie_assert_equal_i(HOODIE_ACTION_CLEAN, tl->instants[3].action);
    hoodie_instant_list l;
    hoodie_timeline_filter f = { 0, HOODIE_STATES_PENDING, NULL, NULL };
    hoodie_assert_ok(hoodie_timeline_select(tl, &f, &l));
    hoodie_assert_equal_i(3, l.count);
    hoodie_instant_list_dispose(&l);
    hoodie_assert(!hoodie_timeline_is_completed(tl, "20250101000000001", 0));
    hoodie_assert(hoodie_timeline_last_completed(tl, HOODIE_ACTIONS_WRITE) == NULL);
    hoodie_timeline_free(tl);
    /* a missing folder is an empty timeline */
    hoodie_assert_ok(hoodie_timeline_load_dir(&tl, m, "/nope/.hoodie", 1));
    hoodie_assert_equal_i(0, tl->count);
    hoodie_timeline_free(tl);
    hoodie_storage_free(m);
}
