/*
 * Archived timelines. No fixture table has one, so the tests build them from the fixtures' own timeline files:
 *   v6: every state file of every instant becomes a HoodieArchivedMetaEntry (as Hudi 0.14's archiver converts
 *       them), Avro-encoded with a writer schema composed of the real schemas found in the fixtures' Avro
 *       timeline files, framed as log blocks in two .commits_.archive files;
 *   v8: every completed instant becomes a HoodieLSMTimelineInstant row (metadata = the completed file's bytes,
 *       plan = the requested file's bytes, as Hudi 1.x's MetadataConversionUtils.createLSMTimelineInstant),
 *       written to Parquet by DuckDB, with manifest_N files and _version_.
 * Then the archived timeline must give back every instant and its metadata as the active timeline does.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation" /* test paths are short */
#endif
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hoodie_test.h"
#include "archive_build.h"
#include "storage/storage.h"
#include "table/archived.h"
#include "table/timeline.h"
#include "util/warn.h"

/* ---- helpers --------------------------------------------------------------------------------------------- */

static void ar_read(const char *path, hoodie_buf *b)
{
    hoodie_buf_clear(b);
    hoodie_assert_ok(hoodie_storage_read_all(NULL, path, b));
}

static void ar_write(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    hoodie_assert(f != NULL);
    hoodie_assert(fwrite(p, 1, n, f) == n);
    fclose(f);
}

/* The writer schema of an Avro timeline file (a new reference). */
static json_t *ocf_schema(const char *path)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_avro_ocf f;
    ar_read(path, &b);
    hoodie_assert_ok(hoodie_avro_ocf_open(&f, b.data, b.len, path));
    json_t *s = json_incref(f.schema.root);
    hoodie_avro_ocf_close(&f);
    hoodie_buf_dispose(&b);
    return s;
}

/* Content of a timeline file as a jansson value: Avro OCF or JSON; NULL when empty. */
static json_t *file_value(const char *path)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    json_t *v = NULL;
    ar_read(path, &b);
    if (b.len && hoodie_avro_is_ocf(b.data, b.len)) {
        hoodie_avro_ocf f;
        hoodie_assert_ok(hoodie_avro_ocf_open(&f, b.data, b.len, path));
        hoodie_assert_ok(hoodie_avro_ocf_next(&f, &v));
        hoodie_avro_ocf_close(&f);
    } else if (b.len) {
        json_error_t e;
        v = json_loadb((const char *)b.data, b.len, 0, &e);
        hoodie_assert(v != NULL);
    }
    hoodie_buf_dispose(&b);
    return v;
}

static const char *fx(const char *rel)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s", hoodie_fixture(rel));
    return buf;
}

/* HoodieArchivedMetaEntry (field order of hudi-common's HoodieArchivedMetaEntry.avsc), built from real schemas. */
static char *entry_schema(void)
{
    json_t *commit = ocf_schema(fx("hudi/tables/cow_v8_simplekeygen_nonhivestyle_overwritetable/.hoodie/timeline/"
                                   "20250713011345587_20250713011345863.commit"));
    json_t *replace = ocf_schema(fx("hudi/tables/cow_v8_simplekeygen_nonhivestyle_overwritetable/.hoodie/timeline/"
                                    "20250713011347462_20250713011347809.replacecommit"));
    json_t *rollback = ocf_schema(fx("hudi/tables/mor_parquet_v6_nonpartitioned_rollback/.hoodie/20250126040936578.rollback"));
    json_t *reqrepl = ocf_schema(fx("hudi/tables/cow_v6_simplekeygen_nonhivestyle_overwritetable/.hoodie/"
                                    "20240707001303088.replacecommit.requested"));
    json_t *clean = json_pack(
        "{s:s,s:s,s:s,s:[{s:s,s:s},{s:s,s:s},{s:s,s:s},{s:s,s:s},{s:s,s:[s,s],s:n},{s:s,s:{s:s,s:{s:s,s:s,s:["
        "{s:s,s:s},{s:s,s:s},{s:s,s:{s:s,s:s}},{s:s,s:{s:s,s:s}},{s:s,s:{s:s,s:s}}]}}},{s:s,s:[s,s],s:i}]}",
        "type", "record", "name", "HoodieCleanMetadata", "namespace", "org.apache.hudi.avro.model", "fields",
        "name", "startCleanTime", "type", "string", "name", "timeTakenInMillis", "type", "long",
        "name", "totalFilesDeleted", "type", "int", "name", "earliestCommitToRetain", "type", "string",
        "name", "lastCompletedCommitTimestamp", "type", "null", "string", "default",
        "name", "partitionMetadata", "type", "type", "map", "values", "type", "record", "name",
        "HoodieCleanPartitionMetadata", "fields", "name", "partitionPath", "type", "string", "name", "policy", "type",
        "string", "name", "deletePathPatterns", "type", "type", "array", "items", "string", "name",
        "successDeleteFiles", "type", "type", "array", "items", "string", "name", "failedDeleteFiles", "type", "type",
        "array", "items", "string", "name", "version", "type", "int", "null", "default", 1);
    hoodie_assert(commit && replace && rollback && reqrepl && clean);
    json_t *seen = json_object();
    json_t *fields = json_array();
#define AR_FIELD(name, type) \
    json_array_append_new(fields, json_pack("{s:s,s:[s,o],s:n}", "name", name, "type", "null", type, "default"))
#define AR_STUB(rec) json_pack("{s:s,s:s,s:[{s:s,s:[s,s],s:n}]}", "type", "record", "name", rec, "fields", "name", \
                               "unused", "type", "null", "string", "default")
    json_object_set_new(seen, "org.apache.hudi.avro.model.HoodieArchivedMetaEntry", json_true());
    AR_FIELD("hoodieCommitMetadata", arb_dedupe_names(commit, "org.apache.hudi.avro.model", seen));
    AR_FIELD("hoodieCleanMetadata", arb_dedupe_names(clean, "org.apache.hudi.avro.model", seen));
    AR_FIELD("hoodieCompactionMetadata", AR_STUB("HoodieCompactionMetadata"));
    AR_FIELD("hoodieRollbackMetadata", arb_dedupe_names(rollback, "org.apache.hudi.avro.model", seen));
    AR_FIELD("hoodieSavePointMetadata", AR_STUB("HoodieSavepointMetadata"));
    json_array_append_new(fields, json_pack("{s:s,s:[s,s],s:n}", "name", "commitTime", "type", "null", "string", "default"));
    json_array_append_new(fields, json_pack("{s:s,s:[s,s],s:n}", "name", "actionType", "type", "null", "string", "default"));
    json_array_append_new(fields, json_pack("{s:s,s:[s,s],s:i}", "name", "version", "type", "int", "null", "default", 1));
    AR_FIELD("hoodieCompactionPlan", AR_STUB("HoodieCompactionPlan"));
    AR_FIELD("hoodieCleanerPlan", AR_STUB("HoodieCleanerPlan"));
    json_array_append_new(fields, json_pack("{s:s,s:[s,s],s:n}", "name", "actionState", "type", "null", "string", "default"));
    AR_FIELD("hoodieReplaceCommitMetadata", arb_dedupe_names(replace, "org.apache.hudi.avro.model", seen));
    AR_FIELD("hoodieRequestedReplaceMetadata", arb_dedupe_names(reqrepl, "org.apache.hudi.avro.model", seen));
    AR_FIELD("hoodieInflightReplaceMetadata", json_string("org.apache.hudi.avro.model.HoodieCommitMetadata"));
#undef AR_FIELD
#undef AR_STUB
    json_t *root = json_pack("{s:s,s:s,s:s,s:o}", "type", "record", "name", "HoodieArchivedMetaEntry", "namespace",
                             "org.apache.hudi.avro.model", "fields", fields);
    char *text = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    json_decref(seen);
    json_decref(commit);
    json_decref(replace);
    json_decref(rollback);
    json_decref(reqrepl);
    json_decref(clean);
    return text;
}

static const char *state_enum(hoodie_instant_state s)
{
    return s == HOODIE_STATE_COMPLETED ? "COMPLETED" : s == HOODIE_STATE_INFLIGHT ? "INFLIGHT" : "REQUESTED";
}

/* The HoodieArchivedMetaEntry of one state file, as Hudi 0.14's MetadataConversionUtils builds it. */
static json_t *entry_of(const char *tldir, const hoodie_instant *in, hoodie_instant_state st)
{
    char name[128], path[1024];
    hoodie_action act = st == HOODIE_STATE_COMPLETED ? in->action : in->plan_action;
    hoodie_assert_ok(hoodie_instant_file_name(in, st, 1, name, sizeof name));
    snprintf(path, sizeof path, "%s/%s", tldir, name);
    json_t *e = json_pack("{s:s,s:s,s:s}", "commitTime", in->requested, "actionType", hoodie_action_name(act),
                          "actionState", state_enum(st));
    json_t *v = file_value(path);
    const char *field = NULL;
    if (v && (act == HOODIE_ACTION_COMMIT || act == HOODIE_ACTION_DELTACOMMIT) && st != HOODIE_STATE_REQUESTED) {
        field = "hoodieCommitMetadata";
        json_t *extra = json_object_get(v, "extraMetadata");
        if (json_is_object(extra)) json_object_set_new(extra, "ROLLING_STAT", json_string(""));
    } else if (v && act == HOODIE_ACTION_REPLACECOMMIT) {
        field = st == HOODIE_STATE_COMPLETED ? "hoodieReplaceCommitMetadata"
              : st == HOODIE_STATE_INFLIGHT ? "hoodieInflightReplaceMetadata" : "hoodieRequestedReplaceMetadata";
    } else if (v && act == HOODIE_ACTION_ROLLBACK && st == HOODIE_STATE_COMPLETED) {
        field = "hoodieRollbackMetadata";
    }
    if (field) json_object_set(e, field, v);
    json_decref(v);
    return e;
}

/* Write entries as log blocks of `per_block` records into `path`. */
static void write_archive(const char *path, const char *schema_text, json_t **entries, size_t n, size_t per_block)
{
    hoodie_avro_jschema js;
    hoodie_buf file = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_avro_jschema_parse(&js, schema_text, strlen(schema_text), "entry schema"));
    for (size_t i = 0; i < n; i += per_block) {
        size_t k = n - i < per_block ? n - i : per_block;
        hoodie_buf recs[16];
        hoodie_assert(k <= 16);
        for (size_t j = 0; j < k; j++) {
            hoodie_buf_init(&recs[j]);
            hoodie_assert_ok(arb_avro_encode(&js, js.root, entries[i + j], &recs[j]));
        }
        hoodie_assert_ok(arb_log_block(&file, schema_text, recs, k));
        for (size_t j = 0; j < k; j++) hoodie_buf_dispose(&recs[j]);
    }
    ar_write(path, file.data, file.len);
    hoodie_buf_dispose(&file);
    hoodie_avro_jschema_dispose(&js);
}

/* Every fixture table of a table version (name prefix match on "hoodie.table.version=N"). */
static size_t tables_of_version(int version, char names[][128], size_t cap)
{
    char dir[1024];
    size_t n = 0;
    snprintf(dir, sizeof dir, "%s", fx("hudi/tables"));
    DIR *d = opendir(dir);
    hoodie_assert(d != NULL);
    struct dirent *e;
    while ((e = readdir(d)) && n < cap) {
        char path[1200], want[64];
        hoodie_buf b = HOODIE_BUF_INIT;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s/.hoodie/hoodie.properties", dir, e->d_name);
        if (hoodie_storage_read_all(NULL, path, &b) != HOODIE_OK) { hoodie_buf_dispose(&b); continue; }
        hoodie_buf_cstr(&b);
        snprintf(want, sizeof want, "hoodie.table.version=%d\n", version);
        if (strstr((const char *)b.data, want)) snprintf(names[n++], 128, "%s", e->d_name);
        hoodie_buf_dispose(&b);
    }
    closedir(d);
    return n;
}

static void same_commit_meta(const hoodie_commit_meta *w, const hoodie_commit_meta *g)
{
    hoodie_assert_equal_i(w->stat_count, g->stat_count);
    hoodie_assert_equal_i(w->compacted, g->compacted);
    hoodie_assert((w->operation_type == NULL) == (g->operation_type == NULL));
    if (w->operation_type) hoodie_assert_equal_s(w->operation_type, g->operation_type);
    for (size_t k = 0; k < w->stat_count; k++) {
        const hoodie_write_stat *a = &w->stats[k], *b = NULL;
        for (size_t j = 0; j < g->stat_count && !b; j++)
            if (!strcmp(g->stats[j].path, a->path)) b = &g->stats[j];
        hoodie_assert(b != NULL);
        hoodie_assert_equal_s(a->partition_path, b->partition_path);
        hoodie_assert_equal_s(a->file_id, b->file_id);
        hoodie_assert_equal_s(a->prev_commit, b->prev_commit);
        hoodie_assert_equal_i(a->num_writes, b->num_writes);
        hoodie_assert_equal_i(a->num_inserts, b->num_inserts);
        hoodie_assert_equal_i(a->num_update_writes, b->num_update_writes);
        hoodie_assert_equal_i(a->num_deletes, b->num_deletes);
        hoodie_assert_equal_i(a->file_size_in_bytes, b->file_size_in_bytes);
        hoodie_assert_equal_i(a->log_file_count, b->log_file_count);
        for (size_t j = 0; j < a->log_file_count; j++) hoodie_assert_equal_s(a->log_files[j], b->log_files[j]);
    }
    hoodie_assert_equal_i(w->replaced_count, g->replaced_count);
    for (size_t k = 0; k < w->replaced_count; k++) {
        hoodie_assert_equal_s(w->replaced[k].partition_path, g->replaced[k].partition_path);
        hoodie_assert_equal_i(w->replaced[k].count, g->replaced[k].count);
    }
    for (size_t k = 0; k < w->extra_count; k++)
        hoodie_assert_equal_s(w->extra[k].value, hoodie_commit_meta_extra(g, w->extra[k].key));
    hoodie_assert((w->schema == NULL) == (g->schema == NULL));
}

/* Compare the archived timeline with the active one it was built from; returns the write instants checked. */
static size_t same_as_active(const hoodie_timeline *tl, const hoodie_archived_timeline *a, int completed_only)
{
    size_t writes = 0, j = 0;
    for (size_t i = 0; i < tl->count; i++) {
        const hoodie_instant *w = &tl->instants[i];
        if (completed_only && w->state != HOODIE_STATE_COMPLETED) continue;
        hoodie_assert(j < a->count);
        const hoodie_instant *g = &a->instants[j];
        hoodie_assert_equal_s(w->requested, g->requested);
        hoodie_assert_equal_i(w->action, g->action);
        hoodie_assert_equal_i(w->state, g->state);
        hoodie_assert_equal_s(w->completion, g->completion);
        if (!completed_only) {
            hoodie_assert_equal_i(w->plan_action, g->plan_action);
            hoodie_assert_equal_i(w->state_files, g->state_files);
        }
        hoodie_assert_equal_i(j, hoodie_archived_find(a, w->requested, w->action));
        if (w->state == HOODIE_STATE_COMPLETED && (HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(w->action))) {
            hoodie_buf path = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
            hoodie_commit_meta *want, *got;
            hoodie_assert_ok(hoodie_timeline_instant_path(tl, w, HOODIE_STATE_COMPLETED, &path));
            ar_read((const char *)path.data, &data);
            hoodie_assert_ok(hoodie_commit_meta_decode(&want, data.data, data.len, (const char *)path.data));
            hoodie_assert_ok(hoodie_archived_commit_meta(a, j, &got));
            same_commit_meta(want, got);
            hoodie_commit_meta_free(want);
            hoodie_commit_meta_free(got);
            hoodie_buf_dispose(&path);
            hoodie_buf_dispose(&data);
            writes++;
        }
        if (w->state == HOODIE_STATE_COMPLETED && w->action == HOODIE_ACTION_ROLLBACK) {
            hoodie_buf path = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
            hoodie_rollback_meta *want, *got;
            hoodie_assert_ok(hoodie_timeline_instant_path(tl, w, HOODIE_STATE_COMPLETED, &path));
            ar_read((const char *)path.data, &data);
            hoodie_assert_ok(hoodie_rollback_meta_decode(&want, data.data, data.len, (const char *)path.data));
            hoodie_assert_ok(hoodie_archived_rollback_meta(a, j, &got));
            hoodie_assert_equal_i(want->commit_count, got->commit_count);
            hoodie_assert(want->commit_count > 0);
            for (size_t k = 0; k < want->commit_count; k++)
                hoodie_assert_equal_s(want->commits_rollback[k], got->commits_rollback[k]);
            hoodie_assert_equal_i(want->partition_count, got->partition_count);
            hoodie_rollback_meta_free(want);
            hoodie_rollback_meta_free(got);
            hoodie_buf_dispose(&path);
            hoodie_buf_dispose(&data);
            /* the wrong kind of metadata is refused */
            hoodie_commit_meta *cm;
            hoodie_assert_status(HOODIE_EINVAL, hoodie_archived_commit_meta(a, j, &cm));
        }
        j++;
    }
    hoodie_assert_equal_i(j, a->count);
    return writes;
}

/* ---- v6 -------------------------------------------------------------------------------------------------- */

/* Build .hoodie/archived of `table` under `out_dir` from all its timeline files (two archive files). */
static int build_v6_archive(const char *table, const char *out_dir, const char *schema_text, hoodie_timeline **tl_out)
{
    char tldir[1024], path[1200];
    snprintf(tldir, sizeof tldir, "%s/%s/.hoodie", fx("hudi/tables"), table);
    hoodie_timeline *tl;
    hoodie_assert_ok(hoodie_timeline_load_dir(&tl, NULL, tldir, 1));
    if (tl->count == 0) {
        hoodie_timeline_free(tl);
        return 0;
    }
    json_t **entries = calloc(tl->count * 3 + 1, sizeof *entries);
    size_t n = 0;
    for (size_t i = 0; i < tl->count; i++)
        for (int st = HOODIE_STATE_REQUESTED; st <= HOODIE_STATE_COMPLETED; st++)
            if (tl->instants[i].state_files & HOODIE_STATE_BIT(st))
                entries[n++] = entry_of(tldir, &tl->instants[i], (hoodie_instant_state)st);
    hoodie_assert(n > 0);
    mkdir(out_dir, 0777);
    /* the second file first on disk: order of files must not matter; a stray .crc is ignored */
    snprintf(path, sizeof path, "%s/.commits_.archive.2_1-0-1", out_dir);
    write_archive(path, schema_text, entries + n / 2, n - n / 2, 3);
    snprintf(path, sizeof path, "%s/.commits_.archive.1_1-0-1", out_dir);
    write_archive(path, schema_text, entries, n / 2, 4);
    snprintf(path, sizeof path, "%s/..commits_.archive.1_1-0-1.crc", out_dir);
    ar_write(path, "crc", 3);
    for (size_t i = 0; i < n; i++) json_decref(entries[i]);
    free(entries);
    *tl_out = tl;
    return 1;
}

HOODIE_TEST(table_archived__v6_every_fixture_timeline)
{
    char names[64][128];
    size_t nt = tables_of_version(6, names, 64), writes = 0;
    char *schema_text = entry_schema();
    hoodie_assert(nt >= 3);
    for (size_t t = 0; t < nt; t++) {
        char dir[1024];
        hoodie_timeline *tl;
        hoodie_archived_timeline *a;
        snprintf(dir, sizeof dir, "%s/v6_%s", hoodie_test_tmpdir(), names[t]);
        if (!build_v6_archive(names[t], dir, schema_text, &tl)) continue;
        hoodie_assert_ok(hoodie_archived_load_v1(&a, NULL, dir));
        hoodie_assert_equal_i(2, a->files);
        hoodie_assert_equal_i(1, a->layout_version);
        writes += same_as_active(tl, a, 0);
        hoodie_archived_free(a);
        hoodie_timeline_free(tl);
    }
    hoodie_assert(writes >= 10);
    free(schema_text);
}

HOODIE_TEST(table_archived__v6_clean_and_missing_folder)
{
    char *schema_text = entry_schema();
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/v6_clean", hoodie_test_tmpdir());
    mkdir(dir, 0777);
    json_t *e[3];
    e[0] = json_pack("{s:s,s:s,s:s}", "commitTime", "20240101000000000", "actionType", "clean", "actionState",
                     "REQUESTED");
    e[1] = json_pack("{s:s,s:s,s:s,s:{s:s,s:i,s:i,s:s,s:s,s:{s:{s:s,s:s,s:[],s:[s],s:[]}}}}", "commitTime",
                     "20240101000000000", "actionType", "clean", "actionState", "COMPLETED", "hoodieCleanMetadata",
                     "startCleanTime", "20240101000000000", "timeTakenInMillis", 12, "totalFilesDeleted", 1,
                     "earliestCommitToRetain", "20231231000000000", "lastCompletedCommitTimestamp",
                     "20231231100000000", "partitionMetadata", "p=1", "partitionPath", "p=1", "policy",
                     "KEEP_LATEST_COMMITS", "deletePathPatterns", "successDeleteFiles", "f1.parquet",
                     "failedDeleteFiles");
    /* an instant of an action this reader does not know is skipped, not an error */
    e[2] = json_pack("{s:s,s:s,s:s}", "commitTime", "20240101000000001", "actionType", "futureaction",
                     "actionState", "COMPLETED");
    snprintf(path, sizeof path, "%s/.commits_.archive.1_1-0-1", dir);
    write_archive(path, schema_text, e, 3, 2);
    hoodie_archived_timeline *a;
    hoodie_assert_ok(hoodie_archived_load_v1(&a, NULL, dir));
    hoodie_assert_equal_i(1, a->count);
    hoodie_assert_equal_i(HOODIE_ACTION_CLEAN, a->instants[0].action);
    hoodie_assert_equal_i(HOODIE_STATE_COMPLETED, a->instants[0].state);
    hoodie_assert_equal_i(HOODIE_STATE_BIT(HOODIE_STATE_REQUESTED) | HOODIE_STATE_BIT(HOODIE_STATE_COMPLETED),
                          a->instants[0].state_files);
    hoodie_clean_meta *cm;
    hoodie_assert_ok(hoodie_archived_clean_meta(a, 0, &cm));
    hoodie_assert_equal_s("20231231000000000", cm->earliest_commit_to_retain);
    hoodie_assert_equal_i(1, cm->partition_count);
    hoodie_assert_equal_s("f1.parquet", cm->partitions[0].files[0]);
    hoodie_clean_meta_free(cm);
    hoodie_assert(hoodie_archived_before_start(a, "20231231000000000"));
    hoodie_assert(!hoodie_archived_before_start(a, "20240101000000000"));
    hoodie_assert_equal_i(-1, hoodie_archived_find(a, "20240101000000000", HOODIE_ACTION_COMMIT));
    hoodie_archived_free(a);
    for (int i = 0; i < 3; i++) json_decref(e[i]);

    /* no archive folder at all: an empty timeline */
    snprintf(path, sizeof path, "%s/nowhere", dir);
    hoodie_assert_ok(hoodie_archived_load_v1(&a, NULL, path));
    hoodie_assert_equal_i(0, a->count);
    hoodie_assert(hoodie_archived_before_start(a, "20240101000000000"));
    hoodie_archived_free(a);
    free(schema_text);
}

static void quiet_warning(const char *msg, void *payload)
{
    (void)msg;
    (void)payload;
}

HOODIE_TEST(table_archived__v6_damaged_archives)
{
    char *schema_text = entry_schema();
    char dir[1024], path[1200];
    hoodie_timeline *tl;
    hoodie_archived_timeline *a;
    hoodie_buf b = HOODIE_BUF_INIT;
    snprintf(dir, sizeof dir, "%s/v6_damaged", hoodie_test_tmpdir());
    hoodie_assert(build_v6_archive("cow_v6_nonpartitioned", dir, schema_text, &tl));
    snprintf(path, sizeof path, "%s/.commits_.archive.1_1-0-1", dir);
    ar_read(path, &b);
    hoodie_buf orig = HOODIE_BUF_INIT;
    hoodie_buf_append(&orig, b.data, b.len);

    /* a torn tail (a crash while archiving): the block is skipped with a warning, the rest is read */
    unsigned long w0 = hoodie_warn_count();
    hoodie_set_warning_handler(quiet_warning, NULL);
    ar_write(path, orig.data, orig.len - 5);
    hoodie_assert_ok(hoodie_archived_load_v1(&a, NULL, dir));
    hoodie_assert(hoodie_warn_count() > w0);
    hoodie_assert(a->count > 0 && a->count <= tl->count);
    hoodie_archived_free(a);

    /* bytes that frame correctly but do not decode as the schema: ECORRUPT naming the file */
    size_t at = orig.len - 12 - 20; /* inside the last record of the last block */
    memcpy(b.data, orig.data, orig.len);
    for (size_t k = at; k < at + 8; k++) b.data[k] = 0xff;
    ar_write(path, b.data, orig.len);
    hoodie_status rc = hoodie_archived_load_v1(&a, NULL, dir);
    hoodie_assert(rc == HOODIE_ECORRUPT || rc == HOODIE_OK);
    if (rc == HOODIE_ECORRUPT) hoodie_assert_contains(hoodie_error_last()->message, ".commits_.archive.1_1-0-1");
    else hoodie_archived_free(a);

    /* every truncation: never a crash or a leak */
    for (size_t n = 0; n < orig.len; n += 97) {
        ar_write(path, orig.data, n);
        rc = hoodie_archived_load_v1(&a, NULL, dir);
        if (rc == HOODIE_OK) hoodie_archived_free(a);
        else hoodie_assert_equal_i(HOODIE_ECORRUPT, rc);
    }
    hoodie_set_warning_handler(NULL, NULL);
    hoodie_buf_dispose(&b);
    hoodie_buf_dispose(&orig);
    hoodie_timeline_free(tl);
    free(schema_text);
}

/* ---- v8 -------------------------------------------------------------------------------------------------- */

static int have_duckdb(void)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "node %s/tests/oracle/duck.mjs \"SELECT 1\" >/dev/null 2>&1", HOODIE_SOURCE_DIR);
    return system(cmd) == 0;
}

static void duck(const char *sql)
{
    size_t cl = strlen(sql) * 2 + 256;
    char *cmd = malloc(cl);
    size_t o = (size_t)snprintf(cmd, cl, "node %s/tests/oracle/duck.mjs '", HOODIE_SOURCE_DIR);
    for (const char *p = sql; *p; p++) {
        if (*p == '\'') { memcpy(cmd + o, "'\\''", 4); o += 4; }
        else cmd[o++] = *p;
    }
    snprintf(cmd + o, cl - o, "' >/dev/null");
    int rc = system(cmd);
    free(cmd);
    hoodie_assert_equal_i(0, rc);
}

/* A HoodieLSMTimelineInstant parquet file of the completed instants [from, to) of `tl`. */
static void write_lsm_file(hoodie_buf *sql_out, const hoodie_timeline *tl, const hoodie_instant **ins, size_t from,
                           size_t to, const char *path)
{
    hoodie_buf *sql = sql_out, p = HOODIE_BUF_INIT;
    hoodie_buf_printf(sql, "COPY (");
    for (size_t i = from; i < to; i++) {
        const hoodie_instant *in = ins[i];
        hoodie_assert_ok(hoodie_timeline_instant_path(tl, in, HOODIE_STATE_COMPLETED, &p));
        if (i > from) hoodie_buf_printf(sql, " UNION ALL ");
        hoodie_buf_printf(sql, "SELECT '%s' AS instantTime, '%s' AS completionTime, '%s' AS action, ", in->requested,
                          in->completion, hoodie_action_name(in->action));
        if (in->size) hoodie_buf_printf(sql, "(SELECT content FROM read_blob('%s')) AS metadata, ", (const char *)p.data);
        else hoodie_buf_printf(sql, "NULL::BLOB AS metadata, ");
        struct stat stt;
        int has_plan = 0;
        if (in->state_files & HOODIE_STATE_BIT(HOODIE_STATE_REQUESTED)) {
            hoodie_assert_ok(hoodie_timeline_instant_path(tl, in, HOODIE_STATE_REQUESTED, &p));
            has_plan = stat((const char *)p.data, &stt) == 0 && stt.st_size > 0;
        }
        if (has_plan) hoodie_buf_printf(sql, "(SELECT content FROM read_blob('%s')) AS plan, ", (const char *)p.data);
        else hoodie_buf_printf(sql, "NULL::BLOB AS plan, ");
        hoodie_buf_printf(sql, "1::INTEGER AS version");
    }
    hoodie_buf_printf(sql, ") TO '%s' (FORMAT PARQUET); ", path);
    hoodie_buf_dispose(&p);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ar_write(path, text, strlen(text));
}

/* history/ of `table` under `hist`: two L0 files (manifest_1 has the first, manifest_2 both), _version_ = 2,
 * and a stale file no manifest lists. */
static int build_lsm(const char *table, const char *hist, hoodie_timeline **tl_out, size_t *n_out)
{
    char tldir[1024], f1[1400], f2[1400], n1[128], n2[128], man[1024];
    snprintf(tldir, sizeof tldir, "%s/%s/.hoodie/timeline", fx("hudi/tables"), table);
    hoodie_timeline *tl;
    hoodie_assert_ok(hoodie_timeline_load_dir(&tl, NULL, tldir, 2));
    const hoodie_instant **ins = calloc(tl->count + 1, sizeof *ins);
    size_t n = 0;
    for (size_t i = 0; i < tl->count; i++)
        if (tl->instants[i].state == HOODIE_STATE_COMPLETED) ins[n++] = &tl->instants[i];
    if (n < 2) {
        free(ins);
        hoodie_timeline_free(tl);
        return 0;
    }
    mkdir(hist, 0777);
    size_t half = n / 2;
    snprintf(n1, sizeof n1, "%s_%s_0.parquet", ins[0]->requested, ins[half - 1]->completion);
    snprintf(n2, sizeof n2, "%s_%s_0.parquet", ins[half]->requested, ins[n - 1]->completion);
    snprintf(f1, sizeof f1, "%s/%s", hist, n1);
    snprintf(f2, sizeof f2, "%s/%s", hist, n2);
    hoodie_buf sql = HOODIE_BUF_INIT;
    write_lsm_file(&sql, tl, ins, 0, half, f1);
    write_lsm_file(&sql, tl, ins, half, n, f2);
    /* stale: a compacted-away file (same rows as f1): reading it would duplicate instants */
    snprintf(f2, sizeof f2, "%s/00000000000000000_99999999999999999_1.parquet", hist);
    write_lsm_file(&sql, tl, ins, 0, 1, f2);
    hoodie_buf_printf(&sql, "SELECT 1");
    hoodie_buf_cstr(&sql);
    duck((const char *)sql.data);
    hoodie_buf_dispose(&sql);
    snprintf(man, sizeof man, "{\n  \"files\" : [ {\n    \"fileName\" : \"%s\",\n    \"fileLen\" : 1\n  } ]\n}", n1);
    write_text(hist, "manifest_1", man);
    snprintf(man, sizeof man,
             "{\n  \"files\" : [ {\n    \"fileName\" : \"%s\",\n    \"fileLen\" : 1\n  }, {\n    \"fileName\" : \"%s\",\n"
             "    \"fileLen\" : 1\n  } ]\n}",
             n1, n2);
    write_text(hist, "manifest_2", man);
    write_text(hist, "_version_", "2");
    free(ins);
    *tl_out = tl;
    *n_out = n;
    return 1;
}

HOODIE_TEST(table_archived__lsm_every_fixture_timeline)
{
    if (!have_duckdb()) { printf("  (skipped: node or DuckDB not available)\n"); return; }
    char names[64][128];
    size_t nt = tables_of_version(8, names, 64), writes = 0;
    nt += tables_of_version(9, names + nt, 64 - nt);
    hoodie_assert(nt >= 6);
    for (size_t t = 0; t < nt; t++) {
        char hist[1024];
        hoodie_timeline *tl;
        hoodie_archived_timeline *a;
        size_t n;
        snprintf(hist, sizeof hist, "%s/lsm_%s", hoodie_test_tmpdir(), names[t]);
        if (!build_lsm(names[t], hist, &tl, &n)) continue;
        hoodie_assert_ok(hoodie_archived_load_lsm(&a, NULL, hist));
        hoodie_assert_equal_i(2, a->layout_version);
        hoodie_assert_equal_i(2, a->files);
        hoodie_assert_equal_i(n, a->count);
        writes += same_as_active(tl, a, 1);
        hoodie_archived_free(a);

        /* without _version_: the largest manifest_N */
        char path[1200];
        snprintf(path, sizeof path, "%s/_version_", hist);
        unlink(path);
        hoodie_assert_ok(hoodie_archived_load_lsm(&a, NULL, hist));
        hoodie_assert_equal_i(n, a->count);
        hoodie_archived_free(a);
        /* an older version names only the first file */
        write_text(hist, "_version_", "1\n");
        hoodie_assert_ok(hoodie_archived_load_lsm(&a, NULL, hist));
        hoodie_assert_equal_i(n / 2, a->count);
        hoodie_archived_free(a);
        hoodie_timeline_free(tl);
    }
    hoodie_assert(writes >= 8);
}

HOODIE_TEST(table_archived__lsm_damaged)
{
    if (!have_duckdb()) { printf("  (skipped: node or DuckDB not available)\n"); return; }
    char hist[1024], path[1200];
    hoodie_timeline *tl;
    hoodie_archived_timeline *a;
    size_t n;
    snprintf(hist, sizeof hist, "%s/lsm_damaged", hoodie_test_tmpdir());
    hoodie_assert(build_lsm("cow_v8_nonpartitioned", hist, &tl, &n));

    /* a manifest that is not JSON */
    write_text(hist, "manifest_2", "{\"files\": [");
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_archived_load_lsm(&a, NULL, hist));
    hoodie_assert_contains(hoodie_error_last()->message, "manifest_2");
    /* a manifest naming a file that is gone, or escaping the folder */
    write_text(hist, "manifest_2", "{\"files\":[{\"fileName\":\"1_2_0.parquet\",\"fileLen\":3}]}");
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_archived_load_lsm(&a, NULL, hist));
    hoodie_assert_contains(hoodie_error_last()->message, "1_2_0.parquet");
    write_text(hist, "manifest_2", "{\"files\":[{\"fileName\":\"../x.parquet\",\"fileLen\":3}]}");
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_archived_load_lsm(&a, NULL, hist));
    /* a listed file that is not Parquet */
    write_text(hist, "1_2_0.parquet", "PAR1 not really");
    write_text(hist, "manifest_2", "{\"files\":[{\"fileName\":\"1_2_0.parquet\",\"fileLen\":3}]}");
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_archived_load_lsm(&a, NULL, hist));
    hoodie_assert_contains(hoodie_error_last()->message, "1_2_0.parquet");
    /* Parquet without the LSM columns */
    snprintf(path, sizeof path, "%s/3_4_0.parquet", hist);
    char sql[1600];
    snprintf(sql, sizeof sql, "COPY (SELECT 1 AS x) TO '%s' (FORMAT PARQUET)", path);
    duck(sql);
    write_text(hist, "manifest_2", "{\"files\":[{\"fileName\":\"3_4_0.parquet\",\"fileLen\":3}]}");
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_archived_load_lsm(&a, NULL, hist));
    hoodie_assert_contains(hoodie_error_last()->message, "instantTime");
    /* a row whose metadata is not commit metadata: loading works, decoding fails naming the instant */
    snprintf(path, sizeof path, "%s/5_6_0.parquet", hist);
    snprintf(sql, sizeof sql,
             "COPY (SELECT '20250101000000000' AS instantTime, '20250101000000001' AS completionTime, "
             "'commit' AS action, 'garbage'::BLOB AS metadata) TO '%s' (FORMAT PARQUET)", path);
    duck(sql);
    write_text(hist, "manifest_2", "{\"files\":[{\"fileName\":\"5_6_0.parquet\",\"fileLen\":3}]}");
    hoodie_assert_ok(hoodie_archived_load_lsm(&a, NULL, hist));
    hoodie_assert_equal_i(1, a->count);
    hoodie_assert_equal_s("20250101000000001", a->instants[0].completion);
    hoodie_commit_meta *m;
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_archived_commit_meta(a, 0, &m));
    hoodie_assert_contains(hoodie_error_last()->message, "20250101000000000");
    hoodie_archived_free(a);
    /* no history folder: empty */
    snprintf(path, sizeof path, "%s/none", hist);
    hoodie_assert_ok(hoodie_archived_load_lsm(&a, NULL, path));
    hoodie_assert_equal_i(0, a->count);
    hoodie_archived_free(a);
    hoodie_timeline_free(tl);
}

/* ---- reads that reach into the archive ------------------------------------------------------------------- */

#include "hoodie/read.h"

/* Rows of a query as sorted "commit_time|record_key" lines (malloc'ed, NULL on error with *rc set). */
static char *query_rows(hoodie_table *t, hoodie_query_type q, const char *as_of, const char *from, const char *to,
                        size_t *n_rows)
{
    static const char *const cols[] = { "_hoodie_commit_time", "_hoodie_record_key" };
    hoodie_scan_opts o = HOODIE_SCAN_OPTS_INIT;
    struct ArrowArrayStream st;
    o.query = q;
    o.as_of = as_of;
    o.from = from;
    o.to = to;
    o.columns = cols;
    o.n_columns = 2;
    hoodie_assert_ok(hoodie_table_scan(t, &o, &st));
    char **lines = NULL;
    size_t n = 0;
    for (;;) {
        struct ArrowArray a;
        hoodie_assert_equal_i(0, st.get_next(&st, &a));
        if (!a.release) break;
        for (int64_t r = 0; r < a.length; r++) {
            char line[256];
            size_t o2 = 0;
            for (int c = 0; c < 2; c++) {
                const struct ArrowArray *col = a.children[c];
                const int32_t *off = col->buffers[1];
                const char *data = col->buffers[2];
                int64_t i = r + col->offset;
                o2 += (size_t)snprintf(line + o2, sizeof line - o2, "%s%.*s", c ? "|" : "", (int)(off[i + 1] - off[i]),
                                       data + off[i]);
            }
            lines = realloc(lines, (n + 1) * sizeof *lines);
            lines[n++] = strdup(line);
        }
        a.release(&a);
    }
    st.release(&st);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
            char *x = lines[j];
            lines[j] = lines[j - 1];
            lines[j - 1] = x;
        }
    hoodie_buf out = HOODIE_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        hoodie_buf_printf(&out, "%s\n", lines[i]);
        free(lines[i]);
    }
    free(lines);
    hoodie_buf_cstr(&out);
    *n_rows = n;
    return (char *)hoodie_buf_detach(&out, NULL);
}

/* The same query on the original table and on its copy with archived instants gives the same rows. */
static void same_rows(hoodie_table *orig, hoodie_table *arch, hoodie_query_type q, const char *as_of,
                      const char *from, const char *to, const char *must_have_time)
{
    size_t n1, n2;
    char *a = query_rows(orig, q, as_of, from, to, &n1);
    char *b = query_rows(arch, q, as_of, from, to, &n2);
    if (strcmp(a, b)) printf("  query %d as_of=%s from=%s to=%s\n  original:\n%s  archived copy:\n%s", (int)q,
                             as_of ? as_of : "-", from ? from : "-", to ? to : "-", a, b);
    hoodie_assert_equal_s(a, b);
    hoodie_assert(n1 > 0);
    if (must_have_time) hoodie_assert_contains(a, must_have_time);
    free(a);
    free(b);
}

static void copy_table(const char *table, const char *dst)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "cp -r '%s/%s' '%s' && chmod -R u+w '%s'", fx("hudi/tables"), table, dst, dst);
    hoodie_assert_equal_i(0, system(cmd));
}

/* Remove every state file of `in` from the timeline folder. */
static void drop_instant(const hoodie_timeline *tl, const hoodie_instant *in, const char *tldir)
{
    for (int st = HOODIE_STATE_REQUESTED; st <= HOODIE_STATE_COMPLETED; st++) {
        char name[128], path[1400];
        if (!(in->state_files & HOODIE_STATE_BIT(st))) continue;
        hoodie_assert_ok(hoodie_instant_file_name(in, (hoodie_instant_state)st, tl->layout_version, name, sizeof name));
        snprintf(path, sizeof path, "%s/%s", tldir, name);
        hoodie_assert_equal_i(0, unlink(path));
    }
}

HOODIE_TEST(table_archived__v6_reads_reach_into_the_archive)
{
    char *schema_text = entry_schema();
    char dir[1024], tldir[1200], path[1400];
    snprintf(dir, sizeof dir, "%s/v6_read", hoodie_test_tmpdir());
    copy_table("cow_v6_simplekeygen_nonhivestyle", dir);
    snprintf(tldir, sizeof tldir, "%s/.hoodie", dir);
    hoodie_timeline *tl;
    hoodie_assert_ok(hoodie_timeline_load_dir(&tl, NULL, tldir, 1));
    hoodie_assert(tl->count == 2);
    const hoodie_instant *first = &tl->instants[0];
    /* archive the first commit as Hudi does: its three state files become entries, then they leave .hoodie */
    json_t *e[3];
    size_t n = 0;
    for (int st = HOODIE_STATE_REQUESTED; st <= HOODIE_STATE_COMPLETED; st++)
        if (first->state_files & HOODIE_STATE_BIT(st)) e[n++] = entry_of(tldir, first, (hoodie_instant_state)st);
    snprintf(path, sizeof path, "%s/archived", tldir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/archived/.commits_.archive.1_1-0-1", tldir);
    write_archive(path, schema_text, e, n, 10);
    for (size_t i = 0; i < n; i++) json_decref(e[i]);
    drop_instant(tl, first, tldir);

    hoodie_table *orig, *arch;
    hoodie_assert_ok(hoodie_table_open(&orig, fx("hudi/tables/cow_v6_simplekeygen_nonhivestyle"), NULL));
    hoodie_assert_ok(hoodie_table_open(&arch, dir, NULL));
    hoodie_assert_equal_i(1, hoodie_table_instant_count(arch));
    /* incremental from the beginning, and windows ending before the active timeline starts */
    same_rows(orig, arch, HOODIE_QUERY_INCREMENTAL, NULL, NULL, NULL, first->requested);
    same_rows(orig, arch, HOODIE_QUERY_INCREMENTAL, NULL, NULL, first->requested, first->requested);
    same_rows(orig, arch, HOODIE_QUERY_INCREMENTAL, NULL, "20240101000000000", first->requested, first->requested);
    /* time travel to the archived instant, and the snapshot */
    same_rows(orig, arch, HOODIE_QUERY_SNAPSHOT, first->requested, NULL, NULL, first->requested);
    same_rows(orig, arch, HOODIE_QUERY_SNAPSHOT, NULL, NULL, NULL, NULL);
    hoodie_table_free(orig);
    hoodie_table_free(arch);
    hoodie_timeline_free(tl);
    free(schema_text);
}

HOODIE_TEST(table_archived__v8_reads_reach_into_the_history)
{
    if (!have_duckdb()) { printf("  (skipped: node or DuckDB not available)\n"); return; }
    char dir[1024], tldir[1200], hist[1400], name[128], path[1600];
    snprintf(dir, sizeof dir, "%s/v8_read", hoodie_test_tmpdir());
    copy_table("cow_v8_simplekeygen_nonhivestyle", dir);
    snprintf(tldir, sizeof tldir, "%s/.hoodie/timeline", dir);
    snprintf(hist, sizeof hist, "%s/history", tldir);
    hoodie_timeline *tl;
    hoodie_assert_ok(hoodie_timeline_load_dir(&tl, NULL, tldir, 2));
    hoodie_assert(tl->count == 2);
    const hoodie_instant *first = &tl->instants[0];
    const hoodie_instant *ins[1] = { first };
    mkdir(hist, 0777);
    snprintf(name, sizeof name, "%s_%s_0.parquet", first->requested, first->completion);
    snprintf(path, sizeof path, "%s/%s", hist, name);
    hoodie_buf sql = HOODIE_BUF_INIT;
    write_lsm_file(&sql, tl, ins, 0, 1, path);
    hoodie_buf_printf(&sql, "SELECT 1");
    hoodie_buf_cstr(&sql);
    duck((const char *)sql.data);
    hoodie_buf_dispose(&sql);
    char man[512];
    snprintf(man, sizeof man, "{\"files\":[{\"fileName\":\"%s\",\"fileLen\":1}]}", name);
    write_text(hist, "manifest_1", man);
    write_text(hist, "_version_", "1");
    drop_instant(tl, first, tldir);

    hoodie_table *orig, *arch;
    hoodie_assert_ok(hoodie_table_open(&orig, fx("hudi/tables/cow_v8_simplekeygen_nonhivestyle"), NULL));
    hoodie_assert_ok(hoodie_table_open(&arch, dir, NULL));
    hoodie_assert_equal_i(1, hoodie_table_instant_count(arch));
    /* v8 windows are on completion time */
    same_rows(orig, arch, HOODIE_QUERY_INCREMENTAL, NULL, NULL, NULL, first->requested);
    same_rows(orig, arch, HOODIE_QUERY_INCREMENTAL, NULL, NULL, first->completion, first->requested);
    same_rows(orig, arch, HOODIE_QUERY_INCREMENTAL, NULL, "20250101000000000", first->completion, first->requested);
    same_rows(orig, arch, HOODIE_QUERY_SNAPSHOT, first->requested, NULL, NULL, first->requested);
    same_rows(orig, arch, HOODIE_QUERY_SNAPSHOT, NULL, NULL, NULL, NULL);
    hoodie_table_free(orig);
    hoodie_table_free(arch);
    hoodie_timeline_free(tl);
}
