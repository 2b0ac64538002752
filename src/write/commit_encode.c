/* Commit metadata encoding (see commit_encode.h). */
#include "write/commit_encode.h"
#include "write/avro_enc.h"
#include "util/error.h"

#include <jansson.h>
#include <string.h>

/* Build helpers: every failure of jansson is an allocation failure. */
typedef struct jb {
    int oom;
} jb;

static void put(jb *b, json_t *obj, const char *k, json_t *v)
{
    if (!v || json_object_set_new(obj, k, v) < 0) b->oom = 1;
}
static json_t *jstr_or_null(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *runtime_stats(jb *b, const hoodie_wstat *w, int v8)
{
    if (!w->has_runtime) return json_null();
    json_t *r = json_object();
    if (!r) { b->oom = 1; return NULL; }
    put(b, r, "totalScanTime", json_integer(w->total_scan_time));
    if (v8) {
        put(b, r, "totalCreateTime", json_integer(w->total_create_time));
        put(b, r, "totalUpsertTime", json_integer(w->total_upsert_time));
    } else { /* Jackson's order for HoodieRuntimeStats */
        put(b, r, "totalUpsertTime", json_integer(w->total_upsert_time));
        put(b, r, "totalCreateTime", json_integer(w->total_create_time));
    }
    return r;
}

static json_t *log_files(jb *b, const hoodie_wstat *w)
{
    json_t *a = json_array();
    if (!a) { b->oom = 1; return NULL; }
    for (size_t i = 0; i < w->log_file_count; i++)
        if (json_array_append_new(a, json_string(w->log_files[i] ? w->log_files[i] : "")) < 0) b->oom = 1;
    return a;
}

static json_t *cdc_stats(jb *b, const hoodie_wstat *w)
{
    if (!w->cdc_path) return json_null();
    json_t *o = json_object();
    if (!o || json_object_set_new(o, w->cdc_path, json_integer(w->cdc_size)) < 0) b->oom = 1;
    return o;
}

static json_t *stat_v6(jb *b, const hoodie_wstat *w)
{
    json_t *o = json_object();
    if (!o) { b->oom = 1; return NULL; }
    put(b, o, "fileId", json_string(w->file_id));
    put(b, o, "path", w->workload ? json_null() : jstr_or_null(w->path));
    put(b, o, "cdcStats", cdc_stats(b, w));
    put(b, o, "prevCommit", json_string(w->prev_commit ? w->prev_commit : "null"));
    put(b, o, "numWrites", json_integer(w->num_writes));
    put(b, o, "numDeletes", json_integer(w->num_deletes));
    put(b, o, "numUpdateWrites", json_integer(w->num_update_writes));
    put(b, o, "numInserts", json_integer(w->num_inserts));
    put(b, o, "totalWriteBytes", json_integer(w->total_write_bytes));
    put(b, o, "totalWriteErrors", json_integer(w->total_write_errors));
    put(b, o, "tempPath", json_null());
    put(b, o, "partitionPath", w->workload ? json_null() : json_string(w->partition_path));
    put(b, o, "totalLogRecords", json_integer(w->total_log_records));
    put(b, o, "totalLogFilesCompacted", json_integer(w->total_log_files_compacted));
    put(b, o, "totalLogSizeCompacted", json_integer(w->total_log_size_compacted));
    put(b, o, "totalUpdatedRecordsCompacted", json_integer(w->total_updated_records_compacted));
    put(b, o, "totalLogBlocks", json_integer(w->total_log_blocks));
    put(b, o, "totalCorruptLogBlock", json_integer(w->total_corrupt_log_block));
    put(b, o, "totalRollbackBlocks", json_integer(w->total_rollback_blocks));
    put(b, o, "fileSizeInBytes", json_integer(w->file_size_in_bytes));
    put(b, o, "minEventTime", w->has_event_time ? json_integer(w->min_event_time) : json_null());
    put(b, o, "maxEventTime", w->has_event_time ? json_integer(w->max_event_time) : json_null());
    put(b, o, "runtimeStats", w->workload ? json_null() : runtime_stats(b, w, 0));
    if (w->is_delta && !w->workload) {
        put(b, o, "logVersion", json_integer(w->log_version));
        put(b, o, "logOffset", json_integer(w->log_offset));
        put(b, o, "baseFile", json_string(w->base_file ? w->base_file : ""));
        put(b, o, "logFiles", log_files(b, w));
        json_t *rs = json_object();
        put(b, rs, "val", json_null());
        put(b, o, "recordsStats", rs);
    }
    return o;
}

static json_t *stat_v8(jb *b, const hoodie_wstat *w)
{
    json_t *o = json_object();
    if (!o) { b->oom = 1; return NULL; }
    int delta = w->is_delta && !w->workload;
    put(b, o, "fileId", json_string(w->file_id));
    put(b, o, "path", w->workload ? json_null() : jstr_or_null(w->path));
    put(b, o, "prevCommit", json_string(w->prev_commit ? w->prev_commit : "null"));
    put(b, o, "numWrites", json_integer(w->num_writes));
    put(b, o, "numDeletes", json_integer(w->num_deletes));
    put(b, o, "numUpdateWrites", json_integer(w->num_update_writes));
    put(b, o, "totalWriteBytes", json_integer(w->total_write_bytes));
    put(b, o, "totalWriteErrors", json_integer(w->total_write_errors));
    put(b, o, "partitionPath", w->workload ? json_null() : json_string(w->partition_path));
    put(b, o, "totalLogRecords", json_integer(w->total_log_records));
    put(b, o, "totalLogFiles", json_null());
    put(b, o, "totalUpdatedRecordsCompacted", json_integer(w->total_updated_records_compacted));
    put(b, o, "numInserts", json_integer(w->num_inserts));
    put(b, o, "totalLogBlocks", json_integer(w->total_log_blocks));
    put(b, o, "totalCorruptLogBlock", json_integer(w->total_corrupt_log_block));
    put(b, o, "totalRollbackBlocks", json_integer(w->total_rollback_blocks));
    put(b, o, "fileSizeInBytes", json_integer(w->file_size_in_bytes));
    put(b, o, "logVersion", delta ? json_integer(w->log_version) : json_null());
    put(b, o, "logOffset", delta ? json_integer(w->log_offset) : json_null());
    put(b, o, "baseFile", delta ? json_string(w->base_file ? w->base_file : "") : json_null());
    put(b, o, "logFiles", delta ? log_files(b, w) : json_null());
    put(b, o, "cdcStats", cdc_stats(b, w));
    put(b, o, "prevBaseFile", jstr_or_null(w->workload ? NULL : w->prev_base_file));
    put(b, o, "minEventTime", w->has_event_time ? json_integer(w->min_event_time) : json_null());
    put(b, o, "maxEventTime", w->has_event_time ? json_integer(w->max_event_time) : json_null());
    put(b, o, "runtimeStats", w->workload ? json_null() : runtime_stats(b, w, 1));
    put(b, o, "totalLogFilesCompacted", json_integer(w->total_log_files_compacted));
    put(b, o, "totalLogReadTimeMs", json_integer(w->total_log_read_time_ms));
    put(b, o, "totalLogSizeCompacted", json_integer(w->total_log_size_compacted));
    put(b, o, "tempPath", json_null());
    put(b, o, "numUpdates", json_integer(0));
    return o;
}

hoodie_status hoodie_commit_encode(hoodie_buf *out, const hoodie_commit_info *ci, int table_version)
{
    if (table_version != 6 && table_version != 8)
        return HOODIE_FAIL(HOODIE_EINVAL, "commit metadata: table version %d (6 or 8)", table_version);
    int v8 = table_version == 8;
    jb b = { 0 };
    hoodie_status rc = HOODIE_OK;
    json_t *root = json_object(), *p2ws = json_object(), *extra = json_object();
    if (!root || !p2ws || !extra) { json_decref(root); json_decref(p2ws); json_decref(extra); return HOODIE_NOMEM(); }

    for (size_t i = 0; i < ci->stat_count; i++) {
        const hoodie_wstat *w = &ci->stats[i];
        if (!w->partition_path || !w->file_id) {
            rc = HOODIE_FAIL(HOODIE_EINVAL, "commit metadata: write stat #%zu has no %s", i + 1,
                             w->partition_path ? "fileId" : "partition path");
            goto done;
        }
        json_t *list = json_object_get(p2ws, w->partition_path);
        if (!list) {
            list = json_array();
            put(&b, p2ws, w->partition_path, list);
            if (b.oom) { rc = HOODIE_FAIL(HOODIE_ENOMEM, "commit metadata: out of memory (or a partition path is not UTF-8)"); goto done; }
        }
        if (json_array_append_new(list, v8 ? stat_v8(&b, w) : stat_v6(&b, w)) < 0) b.oom = 1;
    }
    for (size_t i = 0; i < ci->extra_count; i++) put(&b, extra, ci->extra[i].key, json_string(ci->extra[i].value));
    put(&b, root, "partitionToWriteStats", p2ws);
    p2ws = NULL;
    put(&b, root, "compacted", json_boolean(ci->compacted));
    put(&b, root, "extraMetadata", extra);
    extra = NULL;
    if (v8) put(&b, root, "version", json_null());
    put(&b, root, "operationType", jstr_or_null(ci->operation_type));
    if (ci->is_replace) {
        json_t *rep = json_object();
        put(&b, root, "partitionToReplaceFileIds", rep);
        for (size_t i = 0; rep && i < ci->replaced_count; i++) {
            const hoodie_replaced_file_ids *r = &ci->replaced[i];
            json_t *ids = json_array();
            for (size_t j = 0; ids && j < r->count; j++)
                if (json_array_append_new(ids, json_string(r->file_ids[j])) < 0) b.oom = 1;
            put(&b, rep, r->partition_path ? r->partition_path : "", ids);
        }
    }
    /* json_string() also returns NULL for text that is not UTF-8, which put() records as oom */
    if (b.oom) { rc = HOODIE_FAIL(HOODIE_ENOMEM, "commit metadata: out of memory (or a string is not UTF-8)"); goto done; }
    if (v8) {
        json_t *records = json_array();
        if (!records || json_array_append(records, root) < 0) { json_decref(records); rc = HOODIE_NOMEM(); goto done; }
        rc = hoodie_write__avro_ocf(out, ci->is_replace ? hoodie_write__schema_replace : hoodie_write__schema_commit,
                                    records);
        json_decref(records);
    } else {
        rc = hoodie_write__jackson(out, root);
    }
done:
    json_decref(root);
    json_decref(p2ws);
    json_decref(extra);
    return rc;
}
