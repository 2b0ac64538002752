/* Conflict check of concurrent writes (see conflict.h). */
#include "write/conflict.h"
#include "storage/storage.h"
#include "table/commit_meta.h"
#include "util/buf.h"
#include "util/error.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const hoodie_instant *seen_at(const hoodie_timeline *tl, const char *t)
{
    for (size_t i = 0; tl && i < tl->count; i++)
        if (!strcmp(tl->instants[i].requested, t)) return &tl->instants[i];
    return NULL;
}

/* This write's own instant (another action may have the same time: a rollback's, picked in the same millisecond). */
static int is_self(const hoodie_instant *in, const char *self)
{
    return !strcmp(in->requested, self) && (HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action));
}

static const char *mine_hit(const char *fid, const char *const *ids, size_t n)
{
    for (size_t i = 0; fid && i < n; i++)
        if (!strcmp(ids[i], fid)) return ids[i];
    return NULL;
}

/* Every "fileId" string in a plan (compaction operations, clustering input slices), at any depth. */
static const char *plan_hit(const json_t *v, const char *const *ids, size_t n)
{
    const char *k, *hit = NULL;
    json_t *c;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, c) {
            if (!strcmp(k, "fileId") && json_is_string(c)) hit = mine_hit(json_string_value(c), ids, n);
            else hit = plan_hit(c, ids, n);
            if (hit) return hit;
        }
    } else if (json_is_array(v)) {
        json_array_foreach((json_t *)v, i, c) if ((hit = plan_hit(c, ids, n))) return hit;
    }
    return NULL;
}

static const char *kind(const hoodie_instant *in)
{
    switch (in->plan_action) {
    case HOODIE_ACTION_COMPACTION: return "compaction";
    case HOODIE_ACTION_LOGCOMPACTION: return "log compaction";
    case HOODIE_ACTION_CLUSTERING: return "clustering";
    default: return hoodie_action_name(in->action) ? hoodie_action_name(in->action) : "instant";
    }
}

/*
 * A restore, or a rollback of a commit this write saw completed, that completed since the write read the table: the
 * write was made from file versions that are gone (a merge would bring back records the restore removed, a log file
 * would follow a slice that no longer exists), so it may not commit. A rollback of a failed write changes nothing the
 * write read.
 */
static hoodie_status undone_since(const hoodie_storage *s, const hoodie_timeline *now, const hoodie_instant *in,
                                  const hoodie_timeline *seen)
{
    if (in->action == HOODIE_ACTION_RESTORE)
        return HOODIE_FAIL(HOODIE_ECONFLICT, "write conflict: the table was restored (restore %s) after this write "
                           "read it", in->requested);
    hoodie_buf path = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
    hoodie_rollback_meta *m = NULL;
    hoodie_status rc = hoodie_timeline_instant_path(now, in, HOODIE_STATE_COMPLETED, &path);
    if (rc == HOODIE_OK) rc = hoodie_storage_read_all(s, (const char *)path.data, &data);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; } /* archived since */
    else if (rc == HOODIE_OK) rc = hoodie_rollback_meta_decode(&m, data.data, data.len, (const char *)path.data);
    for (size_t k = 0; rc == HOODIE_OK && m && k < m->commit_count; k++) {
        const hoodie_instant *t = seen_at(seen, m->commits_rollback[k]);
        if (t && t->state == HOODIE_STATE_COMPLETED)
            rc = HOODIE_FAIL(HOODIE_ECONFLICT, "write conflict: %s %s, which this write read, was rolled back "
                             "(rollback %s) after this write read the table", hoodie_action_name(t->action),
                             t->requested, in->requested);
    }
    hoodie_rollback_meta_free(m);
    hoodie_buf_dispose(&path);
    hoodie_buf_dispose(&data);
    return rc;
}

hoodie_status hoodie_write__conflicts(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                      const hoodie_timeline *seen, const char *self, const char *const *file_ids,
                                      size_t n_file_ids)
{
    hoodie_timeline *now = NULL;
    hoodie_status rc = HOODIE_OK;
    s = hoodie_storage__or_default(s);
    HOODIE_TRY(hoodie_timeline_load(&now, s, base_path, cfg));
    const hoodie_instant *me = NULL;
    for (size_t i = 0; i < now->count; i++)
        if (is_self(&now->instants[i], self)) me = &now->instants[i];
    if (!me || me->state == HOODIE_STATE_COMPLETED)
        rc = HOODIE_FAIL(HOODIE_ECONFLICT, "write conflict: this write's instant %s is no longer pending (another "
                         "process rolled it back or restored the table): nothing of it is committed", self);
    /* restores first (each of their rollbacks would be found too, but the restore says more) */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; rc == HOODIE_OK && n_file_ids && i < now->count; i++) {
            const hoodie_instant *in = &now->instants[i], *before = seen_at(seen, in->requested);
            if (in->state == HOODIE_STATE_COMPLETED && !(before && before->state == HOODIE_STATE_COMPLETED) &&
                in->action == (pass ? HOODIE_ACTION_ROLLBACK : HOODIE_ACTION_RESTORE))
                rc = undone_since(s, now, in, seen);
        }
    for (size_t i = 0; rc == HOODIE_OK && n_file_ids && i < now->count; i++) {
        const hoodie_instant *in = &now->instants[i], *before = seen_at(seen, in->requested);
        if (is_self(in, self)) continue;
        int completed = in->state == HOODIE_STATE_COMPLETED;
        int service = in->plan_action == HOODIE_ACTION_COMPACTION || in->plan_action == HOODIE_ACTION_LOGCOMPACTION;
        int plan = service || in->plan_action == HOODIE_ACTION_CLUSTERING ||
                   (in->action == HOODIE_ACTION_REPLACECOMMIT && !completed); /* v6 clustering: a replacecommit */
        if (completed) {
            if (!(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action))) continue;
            if (before && before->state == HOODIE_STATE_COMPLETED) continue; /* seen */
            if (before && service) continue; /* pending when the write looked: written around */
        } else if (!plan || before) {
            continue; /* other writes in flight check against this one when they commit */
        }
        hoodie_buf path = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
        const char *hit = NULL;
        rc = hoodie_timeline_instant_path(now, in, completed ? HOODIE_STATE_COMPLETED : HOODIE_STATE_REQUESTED, &path);
        if (rc == HOODIE_OK) rc = hoodie_storage_read_all(s, (const char *)path.data, &data);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; } /* archived or rolled back since */
        else if (rc == HOODIE_OK && completed) {
            hoodie_commit_meta *m = NULL;
            rc = hoodie_commit_meta_decode(&m, data.data, data.len, (const char *)path.data);
            for (size_t k = 0; rc == HOODIE_OK && !hit && k < m->stat_count; k++)
                hit = mine_hit(m->stats[k].file_id, file_ids, n_file_ids);
            for (size_t k = 0; rc == HOODIE_OK && !hit && k < m->replaced_count; k++)
                for (size_t j = 0; !hit && j < m->replaced[k].count; j++)
                    hit = mine_hit(m->replaced[k].file_ids[j], file_ids, n_file_ids);
            if (hit) {
                rc = HOODIE_FAIL(HOODIE_ECONFLICT, "write conflict: file group %s was also written by %s %s, "
                                 "completed after this write read the table", hit, kind(in), in->requested);
            }
            hoodie_commit_meta_free(m);
        } else if (rc == HOODIE_OK) {
            json_t *root = NULL;
            rc = hoodie_meta_json(data.data, data.len, (const char *)path.data, &root);
            if (rc == HOODIE_OK && (hit = plan_hit(root, file_ids, n_file_ids)))
                rc = HOODIE_FAIL(HOODIE_ECONFLICT, "write conflict: file group %s is in the %s plan %s, scheduled "
                                 "after this write read the table", hit, kind(in), in->requested);
            json_decref(root);
        }
        hoodie_buf_dispose(&path);
        hoodie_buf_dispose(&data);
        if (rc < 0) break;
    }
    hoodie_timeline_free(now);
    return rc;
}
