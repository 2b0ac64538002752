#include "table/commit_meta.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "format/avro/json.h"
#include "util/error.h"

/* Content -> one JSON object (NULL for empty content). */
static hoodie_status cm_load(const void *data, size_t len, const char *what, json_t **out)
{
    *out = NULL;
    if (len == 0) return HOODIE_OK;
    if (hoodie_avro_is_ocf(data, len)) {
        hoodie_avro_ocf f;
        hoodie_status rc = hoodie_avro_ocf_open(&f, data, len, what);
        if (!rc) {
            rc = hoodie_avro_ocf_next(&f, out);
            /* Hudi writes exactly one record; a header alone is a truncated file */
            if (rc == HOODIE_ITEROVER) rc = HOODIE_CORRUPT("%s: Avro metadata file holds no record", what);
        }
        hoodie_avro_ocf_close(&f);
        if (rc) return rc;
    } else {
        json_error_t err;
        *out = json_loadb(data, len, 0, &err);
        if (!*out)
            return HOODIE_CORRUPT("%s: offset %d: not JSON or Avro metadata: %s", what, err.position, err.text);
    }
    if (*out && !json_is_object(*out)) {
        json_decref(*out);
        *out = NULL;
        return HOODIE_CORRUPT("%s: metadata is not a JSON object / Avro record", what);
    }
    return HOODIE_OK;
}

hoodie_status hoodie_meta_json(const void *data, size_t len, const char *what, json_t **out)
{
    return cm_load(data, len, what ? what : "metadata", out);
}

typedef struct cm_ctx {
    hoodie_arena *a;
    const char *what;
} cm_ctx;

static hoodie_status cm_str(cm_ctx *x, json_t *obj, const char *key, const char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v)) return HOODIE_OK;
    if (!json_is_string(v)) return HOODIE_CORRUPT("%s: '%s' is not a string", x->what, key);
    *out = hoodie_arena_strndup(x->a, json_string_value(v), json_string_length(v));
    return *out ? HOODIE_OK : HOODIE_NOMEM();
}

static hoodie_status cm_int(cm_ctx *x, json_t *obj, const char *key, int64_t dflt, int64_t *out)
{
    json_t *v = json_object_get(obj, key);
    *out = dflt;
    if (!v || json_is_null(v)) return HOODIE_OK;
    if (!json_is_integer(v)) return HOODIE_CORRUPT("%s: '%s' is not an integer", x->what, key);
    *out = (int64_t)json_integer_value(v);
    return HOODIE_OK;
}

static hoodie_status cm_str_array(cm_ctx *x, json_t *arr, const char *key, const char ***out, size_t *count)
{
    size_t i;
    json_t *v;
    *out = NULL;
    *count = 0;
    if (!arr || json_is_null(arr)) return HOODIE_OK;
    if (!json_is_array(arr)) return HOODIE_CORRUPT("%s: '%s' is not an array", x->what, key);
    *out = hoodie_arena_calloc(x->a, json_array_size(arr) + 1, sizeof **out);
    if (!*out) return HOODIE_NOMEM();
    json_array_foreach(arr, i, v) {
        if (!json_is_string(v)) return HOODIE_CORRUPT("%s: '%s' holds a non-string", x->what, key);
        (*out)[i] = hoodie_arena_strndup(x->a, json_string_value(v), json_string_length(v));
        if (!(*out)[i]) return HOODIE_NOMEM();
    }
    *count = json_array_size(arr);
    return HOODIE_OK;
}

static hoodie_status cm_stat(cm_ctx *x, const char *partition, json_t *s, hoodie_write_stat *w)
{
    if (!json_is_object(s)) return HOODIE_CORRUPT("%s: a write stat of partition '%s' is not an object", x->what, partition);
    w->partition_path = partition;
    HOODIE_TRY(cm_str(x, s, "fileId", &w->file_id));
    HOODIE_TRY(cm_str(x, s, "path", &w->path));
    HOODIE_TRY(cm_str(x, s, "prevCommit", &w->prev_commit));
    HOODIE_TRY(cm_str(x, s, "baseFile", &w->base_file));
    HOODIE_TRY(cm_str(x, s, "prevBaseFile", &w->prev_base_file));
    HOODIE_TRY(cm_str_array(x, json_object_get(s, "logFiles"), "logFiles", &w->log_files, &w->log_file_count));
    HOODIE_TRY(cm_int(x, s, "numWrites", 0, &w->num_writes));
    HOODIE_TRY(cm_int(x, s, "numDeletes", 0, &w->num_deletes));
    HOODIE_TRY(cm_int(x, s, "numUpdateWrites", 0, &w->num_update_writes));
    HOODIE_TRY(cm_int(x, s, "numInserts", 0, &w->num_inserts));
    HOODIE_TRY(cm_int(x, s, "totalWriteBytes", 0, &w->total_write_bytes));
    HOODIE_TRY(cm_int(x, s, "fileSizeInBytes", 0, &w->file_size_in_bytes));
    HOODIE_TRY(cm_int(x, s, "logVersion", -1, &w->log_version));
    /* cdcStats: {path: size} (Avro: a map in a union, which decodes to the map) */
    json_t *cdc = json_object_get(s, "cdcStats");
    if (cdc && !json_is_null(cdc)) {
        const char *path;
        json_t *size;
        if (!json_is_object(cdc)) return HOODIE_CORRUPT("%s: 'cdcStats' is not a map", x->what);
        w->cdc_files = hoodie_arena_calloc(x->a, json_object_size(cdc) + 1, sizeof *w->cdc_files);
        int64_t *sizes = hoodie_arena_calloc(x->a, json_object_size(cdc) + 1, sizeof *sizes);
        w->cdc_sizes = sizes;
        if (!w->cdc_files || !sizes) return HOODIE_NOMEM();
        json_object_foreach(cdc, path, size) {
            if (!json_is_integer(size)) return HOODIE_CORRUPT("%s: 'cdcStats' size of '%s' is not an integer", x->what, path);
            sizes[w->cdc_file_count] = (int64_t)json_integer_value(size);
            if (!(w->cdc_files[w->cdc_file_count++] = hoodie_arena_strdup(x->a, path))) return HOODIE_NOMEM();
        }
    }
    return HOODIE_OK;
}

static hoodie_status cm_fill(cm_ctx *x, json_t *root, hoodie_commit_meta *m)
{
    json_t *pws = json_object_get(root, "partitionToWriteStats");
    json_t *rep = json_object_get(root, "partitionToReplaceFileIds");
    json_t *extra = json_object_get(root, "extraMetadata");
    json_t *compacted = json_object_get(root, "compacted");
    const char *key;
    json_t *v;
    size_t n = 0;

    HOODIE_TRY(cm_str(x, root, "operationType", &m->operation_type));
    if (compacted && !json_is_null(compacted)) {
        if (!json_is_boolean(compacted)) return HOODIE_CORRUPT("%s: 'compacted' is not a boolean", x->what);
        m->compacted = json_is_true(compacted);
    }
    if (pws && !json_is_null(pws)) {
        if (!json_is_object(pws)) return HOODIE_CORRUPT("%s: 'partitionToWriteStats' is not a map", x->what);
        json_object_foreach(pws, key, v) {
            if (json_is_null(v)) continue;
            if (!json_is_array(v)) return HOODIE_CORRUPT("%s: write stats of partition '%s' are not a list", x->what, key);
            n += json_array_size(v);
        }
        m->stats = hoodie_arena_calloc(x->a, n + 1, sizeof *m->stats);
        if (!m->stats) return HOODIE_NOMEM();
        json_object_foreach(pws, key, v) {
            const char *part = hoodie_arena_strdup(x->a, key);
            size_t i;
            json_t *s;
            if (!part) return HOODIE_NOMEM();
            json_array_foreach(v, i, s) HOODIE_TRY(cm_stat(x, part, s, &m->stats[m->stat_count++]));
        }
    }
    if (rep && !json_is_null(rep)) {
        size_t i = 0;
        if (!json_is_object(rep)) return HOODIE_CORRUPT("%s: 'partitionToReplaceFileIds' is not a map", x->what);
        m->replaced = hoodie_arena_calloc(x->a, json_object_size(rep) + 1, sizeof *m->replaced);
        if (!m->replaced) return HOODIE_NOMEM();
        json_object_foreach(rep, key, v) {
            hoodie_replaced_file_ids *r = &m->replaced[i++];
            r->partition_path = hoodie_arena_strdup(x->a, key);
            if (!r->partition_path) return HOODIE_NOMEM();
            HOODIE_TRY(cm_str_array(x, v, "partitionToReplaceFileIds", &r->file_ids, &r->count));
        }
        m->replaced_count = i;
    }
    if (extra && !json_is_null(extra)) {
        size_t i = 0;
        if (!json_is_object(extra)) return HOODIE_CORRUPT("%s: 'extraMetadata' is not a map", x->what);
        m->extra = hoodie_arena_calloc(x->a, json_object_size(extra) + 1, sizeof *m->extra);
        if (!m->extra) return HOODIE_NOMEM();
        json_object_foreach(extra, key, v) {
            if (json_is_null(v)) continue;
            if (!json_is_string(v)) return HOODIE_CORRUPT("%s: extraMetadata '%s' is not a string", x->what, key);
            m->extra[i].key = hoodie_arena_strdup(x->a, key);
            m->extra[i].value = hoodie_arena_strndup(x->a, json_string_value(v), json_string_length(v));
            if (!m->extra[i].key || !m->extra[i].value) return HOODIE_NOMEM();
            i++;
        }
        m->extra_count = i;
    }
    m->schema = hoodie_commit_meta_extra(m, "schema");
    if (m->schema && !*m->schema) m->schema = NULL;
    return HOODIE_OK;
}

const char *hoodie_commit_meta_extra(const hoodie_commit_meta *m, const char *key)
{
    for (size_t i = 0; i < m->extra_count; i++)
        if (!strcmp(m->extra[i].key, key)) return m->extra[i].value;
    return NULL;
}

void hoodie_commit_meta_free(hoodie_commit_meta *m)
{
    if (!m) return;
    hoodie_arena_free(m->arena);
    free(m);
}

/* Shared shape: allocate struct + arena, load JSON, fill, clean up. */
#define CM_DECODE(type, fill_fn, free_fn)                                                        \
    do {                                                                                         \
        json_t *root = NULL;                                                                     \
        type *m = calloc(1, sizeof *m);                                                          \
        hoodie_status rc;                                                                        \
        cm_ctx x;                                                                                \
        *out = NULL;                                                                             \
        if (!m) return HOODIE_NOMEM();                                                           \
        rc = hoodie_arena_new(&m->arena, NULL, 4096);                                            \
        if (!rc) rc = cm_load(data, len, what ? what : "metadata", &root);                       \
        x.a = m->arena;                                                                          \
        x.what = what ? what : "metadata";                                                       \
        if (!rc && root) rc = fill_fn(&x, root, m);                                              \
        json_decref(root);                                                                       \
        if (rc) {                                                                                \
            free_fn(m);                                                                          \
            return rc;                                                                           \
        }                                                                                        \
        *out = m;                                                                                \
        return HOODIE_OK;                                                                        \
    } while (0)

hoodie_status hoodie_commit_meta_decode(hoodie_commit_meta **out, const void *data, size_t len, const char *what)
{
    CM_DECODE(hoodie_commit_meta, cm_fill, hoodie_commit_meta_free);
}

/* Same as CM_DECODE, from an already decoded value (NULL or json null: empty metadata). */
#define CM_FROM_JSON(type, fill_fn, free_fn)                                                     \
    do {                                                                                         \
        type *m = calloc(1, sizeof *m);                                                          \
        hoodie_status rc;                                                                        \
        cm_ctx x;                                                                                \
        *out = NULL;                                                                             \
        if (!m) return HOODIE_NOMEM();                                                           \
        rc = hoodie_arena_new(&m->arena, NULL, 4096);                                            \
        x.a = m->arena;                                                                          \
        x.what = what ? what : "metadata";                                                       \
        if (!rc && root && !json_is_null(root) && !json_is_object(root))                         \
            rc = HOODIE_CORRUPT("%s: metadata is not a JSON object / Avro record", x.what);      \
        if (!rc && root && json_is_object(root)) rc = fill_fn(&x, (json_t *)root, m);            \
        if (rc) {                                                                                \
            free_fn(m);                                                                          \
            return rc;                                                                           \
        }                                                                                        \
        *out = m;                                                                                \
        return HOODIE_OK;                                                                        \
    } while (0)

hoodie_status hoodie_commit_meta_from_json(hoodie_commit_meta **out, const struct json_t *root, const char *what)
{
    CM_FROM_JSON(hoodie_commit_meta, cm_fill, hoodie_commit_meta_free);
}

/* partitionMetadata: map<partition, {successDeleteFiles: [..]}> */
static hoodie_status cm_partition_files(cm_ctx *x, json_t *pm, hoodie_partition_files **out, size_t *count)
{
    const char *key;
    json_t *v;
    size_t i = 0;
    *out = NULL;
    *count = 0;
    if (!pm || json_is_null(pm)) return HOODIE_OK;
    if (!json_is_object(pm)) return HOODIE_CORRUPT("%s: 'partitionMetadata' is not a map", x->what);
    *out = hoodie_arena_calloc(x->a, json_object_size(pm) + 1, sizeof **out);
    if (!*out) return HOODIE_NOMEM();
    json_object_foreach(pm, key, v) {
        hoodie_partition_files *p = &(*out)[i++];
        if (!json_is_object(v)) return HOODIE_CORRUPT("%s: partition metadata of '%s' is not a record", x->what, key);
        p->partition_path = hoodie_arena_strdup(x->a, key);
        if (!p->partition_path) return HOODIE_NOMEM();
        HOODIE_TRY(cm_str_array(x, json_object_get(v, "successDeleteFiles"), "successDeleteFiles", &p->files,
                                &p->count));
    }
    *count = i;
    return HOODIE_OK;
}

static hoodie_status rb_fill(cm_ctx *x, json_t *root, hoodie_rollback_meta *m)
{
    HOODIE_TRY(cm_str_array(x, json_object_get(root, "commitsRollback"), "commitsRollback", &m->commits_rollback,
                            &m->commit_count));
    return cm_partition_files(x, json_object_get(root, "partitionMetadata"), &m->partitions, &m->partition_count);
}

void hoodie_rollback_meta_free(hoodie_rollback_meta *m)
{
    if (!m) return;
    hoodie_arena_free(m->arena);
    free(m);
}

hoodie_status hoodie_rollback_meta_decode(hoodie_rollback_meta **out, const void *data, size_t len,
                                          const char *what)
{
    CM_DECODE(hoodie_rollback_meta, rb_fill, hoodie_rollback_meta_free);
}

hoodie_status hoodie_rollback_meta_from_json(hoodie_rollback_meta **out, const struct json_t *root, const char *what)
{
    CM_FROM_JSON(hoodie_rollback_meta, rb_fill, hoodie_rollback_meta_free);
}

static hoodie_status cl_fill(cm_ctx *x, json_t *root, hoodie_clean_meta *m)
{
    HOODIE_TRY(cm_str(x, root, "earliestCommitToRetain", &m->earliest_commit_to_retain));
    HOODIE_TRY(cm_str(x, root, "lastCompletedCommitTimestamp", &m->last_completed_commit));
    return cm_partition_files(x, json_object_get(root, "partitionMetadata"), &m->partitions, &m->partition_count);
}

void hoodie_clean_meta_free(hoodie_clean_meta *m)
{
    if (!m) return;
    hoodie_arena_free(m->arena);
    free(m);
}

hoodie_status hoodie_clean_meta_decode(hoodie_clean_meta **out, const void *data, size_t len, const char *what)
{
    CM_DECODE(hoodie_clean_meta, cl_fill, hoodie_clean_meta_free);
}

hoodie_status hoodie_clean_meta_from_json(hoodie_clean_meta **out, const struct json_t *root, const char *what)
{
    CM_FROM_JSON(hoodie_clean_meta, cl_fill, hoodie_clean_meta_free);
}
