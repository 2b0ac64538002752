/*
 * Rollback of an instant, savepoints and restore (hudi-format.md 9.4, 9.5).
 *
 * Rollback of a pending instant (write, compaction, log compaction, clustering): write/rollback.h (files found by
 * markers and by their instant in the partitions touched; rollback plan and metadata; the instant's files
 * removed). Rollback of a completed write instant, which must be the latest completed write and not savepointed:
 *   1. markers are recreated for the files its commit metadata names (those carrying its instant time), so the
 *      pending rollback finds them even when the write left no inflight workload (compaction, clustering);
 *   2. the instant is reverted to inflight (its inflight file written if missing, then its completed file
 *      removed): from here it is invisible, as Hudi's revertToInflight;
 *   3. the pending rollback of write/rollback.h.
 * Log files of table version 6 that carry another instant's name (appends) are not deleted: their blocks of the
 * rolled-back instant are skipped by readers through the rollback metadata.
 *
 * Savepoint of a completed write T: T.savepoint.inflight, then T.savepoint (v8: T_C.savepoint) holding
 * HoodieSavepointMetadata with the base files of the latest slices as of T. Clean keeps every file of those
 * slices. Restore to savepoint S: R.restore.requested (HoodieRestorePlan), R.restore.inflight, every write instant
 * after S rolled back newest first, R.restore (HoodieRestoreMetadata with the rollback metadata of each). An
 * interrupted restore is resumed by the next restore to the same savepoint.
 */
#include "services/svc.h"
#include "storage/storage.h"
#include "table/file_name.h"
#include "util/error.h"
#include "write/avro_enc.h"
#include "write/create.h"
#include "write/rollback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SERVICE_ACTIONS \
    (HOODIE_ACTIONS_WRITE | HOODIE_ACTION_BIT(HOODIE_ACTION_COMPACTION) | \
     HOODIE_ACTION_BIT(HOODIE_ACTION_LOGCOMPACTION) | HOODIE_ACTION_BIT(HOODIE_ACTION_CLUSTERING))

static int is_savepointed(const hoodie_timeline *tl, const char *t)
{
    const hoodie_instant *sp = hoodie_timeline_find(tl, t, HOODIE_ACTION_SAVEPOINT);
    return sp && sp->state == HOODIE_STATE_COMPLETED;
}

/* Markers for the files of a completed write that carry its instant time. */
static hoodie_status recreate_markers(hoodie_svc *sv, hoodie_write_txn *tx, const hoodie_commit_meta *m)
{
    for (size_t i = 0; i < m->stat_count; i++) {
        const hoodie_write_stat *st = &m->stats[i];
        if (!st->path) continue;
        const char *name = strrchr(st->path, '/');
        name = name ? name + 1 : st->path;
        hoodie_file_name fn;
        if (hoodie_file_name_parse(&fn, name) == HOODIE_FILE_OTHER) continue;
        if (fn.instant.len != strlen(tx->inst.requested) || memcmp(fn.instant.p, tx->inst.requested, fn.instant.len))
            continue;
        hoodie_status rc = hoodie_write__marker(tx, st->partition_path ? st->partition_path : "", name,
                                                HOODIE_MARKER_CREATE);
        if (rc == HOODIE_EEXISTS) { hoodie_error_clear(); rc = HOODIE_OK; }
        HOODIE_TRY(rc);
    }
    (void)sv;
    return HOODIE_OK;
}

/* Roll back `in` (pending or completed) on the open table; *rtime receives the rollback instant. */
static hoodie_status rollback_instant(hoodie_svc *sv, const hoodie_instant *in, char rtime[18])
{
    hoodie_instant target = *in;
    if (in->state == HOODIE_STATE_COMPLETED) {
        const hoodie_instant *last = hoodie_timeline_last_completed(sv->t->tl, HOODIE_ACTIONS_WRITE);
        if (!(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action)))
            return HOODIE_FAIL(HOODIE_EINVAL, "instant %s is a %s, not a write", in->requested,
                               hoodie_action_name(in->action));
        if (last && strcmp(last->requested, in->requested) > 0)
            return HOODIE_FAIL(HOODIE_EINVAL, "instant %s is not the latest completed write (%s is): roll back the "
                               "later writes first", in->requested, last->requested);
        if (is_savepointed(sv->t->tl, in->requested))
            return HOODIE_FAIL(HOODIE_EINVAL, "instant %s is savepointed: delete the savepoint first", in->requested);
        hoodie_commit_meta *m = NULL;
        hoodie_write_txn tx;
        hoodie_buf content = HOODIE_BUF_INIT;
        char name[128];
        HOODIE_TRY(hoodie_table__commit_meta(sv->t, in, &m));
        hoodie_status rc = hoodie_svc__resume(sv, &tx, in);
        if (rc == HOODIE_OK) rc = recreate_markers(sv, &tx, m);
        /* revert to inflight */
        if (rc == HOODIE_OK && !(in->state_files & HOODIE_STATE_BIT(HOODIE_STATE_INFLIGHT))) {
            rc = hoodie_instant_file_name(in, HOODIE_STATE_INFLIGHT, tx.layout, name, sizeof name);
            char *p = rc == HOODIE_OK ? hoodie_write__path(tx.timeline_dir, name) : NULL;
            if (rc == HOODIE_OK && !p) rc = HOODIE_NOMEM();
            if (rc == HOODIE_OK) rc = hoodie_storage_write_all(sv->s, p, 0, "", 0);
            free(p);
            target.state_files |= HOODIE_STATE_BIT(HOODIE_STATE_INFLIGHT);
        }
        if (rc == HOODIE_OK) rc = hoodie_svc__remove_instant_files(sv, in, 1);
        hoodie_buf_dispose(&content);
        hoodie_write__txn_dispose(&tx);
        hoodie_commit_meta_free(m);
        HOODIE_TRY(rc);
        target.state = HOODIE_STATE_INFLIGHT;
        target.completion[0] = 0;
        target.action = target.plan_action;
    }
    return hoodie_write__rollback(sv->s, sv->base_path, sv->t->cfg, &target, rtime);
}

/* totalFilesDeleted of the completed rollback `rtime` (0 if unreadable). */
static int64_t deleted_by(hoodie_svc *sv, const char *rtime)
{
    json_t *rm = NULL;
    int64_t n = 0;
    if (hoodie_svc__reload(sv) < 0) { hoodie_error_clear(); return 0; }
    const hoodie_instant *rb = hoodie_timeline_find(sv->t->tl, rtime, HOODIE_ACTION_ROLLBACK);
    if (rb && hoodie_svc__read_record(sv, rb, HOODIE_STATE_COMPLETED, &rm) == HOODIE_OK && rm)
        n = json_integer_value(json_object_get(rm, "totalFilesDeleted"));
    hoodie_error_clear();
    json_decref(rm);
    return n;
}

static const hoodie_instant *find_target(const hoodie_timeline *tl, const char *t)
{
    for (size_t i = 0; i < tl->count; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (strcmp(in->requested, t)) continue;
        if (SERVICE_ACTIONS & HOODIE_ACTION_BIT(in->plan_action)) return in;
        if (SERVICE_ACTIONS & HOODIE_ACTION_BIT(in->action)) return in;
    }
    return NULL;
}

/*
 * A pending instant whose writer is alive (write/lock.h: its heartbeat) is refused: rolling it back would delete the
 * files it is writing, and its commit would then complete over them. Run under the table lock, so that no writer
 * commits in between; a writer that read the table before finds the rollback or restore at its commit and fails
 * (write/conflict.h).
 */
static hoodie_status refuse_live(hoodie_svc *sv, const hoodie_instant *in, const char *what)
{
    if (in->state == HOODIE_STATE_COMPLETED) return HOODIE_OK;
    hoodie_heartbeats *hb = NULL;
    HOODIE_TRY(hoodie_write__heartbeats_load(&hb, sv->s, sv->base_path));
    int alive = hoodie_write__heartbeat_alive(hb, in->requested);
    hoodie_write__heartbeats_free(hb);
    if (!alive) return HOODIE_OK;
    return HOODIE_FAIL(HOODIE_ECONFLICT, "%s: %s: %s %s is being written by a live writer (its heartbeat "
                       ".hoodie/.heartbeat/%s beats): wait for it to end", sv->base_path, what,
                       hoodie_action_name(in->plan_action) ? hoodie_action_name(in->plan_action) : "instant",
                       in->requested, in->requested);
}

hoodie_status hoodie_rollback(const char *base_path, const hoodie_service_opts *opts, const char *instant,
                              hoodie_service_result *result)
{
    hoodie_svc sv;
    hoodie_service_result res;
    char rtime[18];
    memset(&res, 0, sizeof res);
    if (!instant || !hoodie_instant_time_valid(instant, strlen(instant)))
        return HOODIE_FAIL(HOODIE_EINVAL, "rollback: '%s' is not an instant time", instant ? instant : "");
    hoodie_status rc = hoodie_svc__open(&sv, base_path, opts, HOODIE_SVC_FILES);
    hoodie_table_lock lock = { 0 };
    if (rc == HOODIE_OK) rc = hoodie_svc__lock_fresh(&sv, &lock);
    if (rc == HOODIE_OK) {
        const hoodie_instant *in = find_target(sv.t->tl, instant);
        if (!in) rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no write or table-service instant %s on the timeline",
                                  sv.base_path, instant);
        else rc = refuse_live(&sv, in, "rollback");
        if (rc == HOODIE_OK) {
            hoodie_instant copy = *in;
            rc = rollback_instant(&sv, &copy, rtime);
        }
        if (rc == HOODIE_OK) {
            snprintf(res.instant, sizeof res.instant, "%s", rtime);
            res.instants = 1;
            res.files_deleted = deleted_by(&sv, rtime);
        }
    }
    hoodie_status urc = hoodie_write__unlock(&lock);
    if (rc == HOODIE_OK) rc = urc;
    hoodie_svc__close(&sv);
    if (result) *result = res;
    return rc;
}

/* ---- savepoints ---- */

hoodie_status hoodie_savepoint_create(const char *base_path, const hoodie_service_opts *opts, const char *instant,
                                      hoodie_service_result *result)
{
    hoodie_svc sv;
    hoodie_service_result res;
    hoodie_fsview *v = NULL;
    hoodie_write_txn tx;
    int have_tx = 0;
    hoodie_buf content = HOODIE_BUF_INIT;
    memset(&res, 0, sizeof res);
    hoodie_status rc = hoodie_svc__open(&sv, base_path, opts, 0);
    const hoodie_instant *target = NULL;
    if (rc == HOODIE_OK) {
        if (instant) {
            target = hoodie_timeline_find(sv.t->tl, instant, HOODIE_ACTION_COMMIT);
            if (!target) target = hoodie_timeline_find(sv.t->tl, instant, HOODIE_ACTION_DELTACOMMIT);
            if (!target) target = hoodie_timeline_find(sv.t->tl, instant, HOODIE_ACTION_REPLACECOMMIT);
        } else {
            target = hoodie_timeline_last_completed(sv.t->tl, HOODIE_ACTIONS_WRITE);
        }
        if (!target || target->state != HOODIE_STATE_COMPLETED)
            rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no completed write instant %s to savepoint", sv.base_path,
                             instant ? instant : "(the table has none)");
        else if (is_savepointed(sv.t->tl, target->requested))
            rc = HOODIE_FAIL(HOODIE_EEXISTS, "%s: instant %s is already savepointed", sv.base_path, target->requested);
    }
    if (rc == HOODIE_OK) rc = hoodie_table__fsview(sv.t, target->requested, NULL, NULL, &v);
    json_t *meta = NULL, *pm = NULL;
    if (rc == HOODIE_OK) {
        meta = json_object();
        pm = json_object();
        int bad = !meta || !pm;
        for (size_t g = 0; !bad && g < v->group_count; g++) {
            const hoodie_file_slice *sl = hoodie_file_group_latest(&v->groups[g]);
            if (!sl || !sl->base) continue;
            const char *part = v->groups[g].partition;
            json_t *e = json_object_get(pm, part);
            if (!e) {
                e = json_object();
                bad |= hoodie_svc__set(e, "partitionPath", json_string(part)) < 0;
                bad |= hoodie_svc__set(e, "savepointDataFile", json_array()) < 0;
                bad |= hoodie_svc__set(pm, part, e) < 0;
            }
            if (!bad) bad |= json_array_append_new(json_object_get(e, "savepointDataFile"), json_string(sl->base->name)) < 0;
        }
        bad |= hoodie_svc__set(meta, "savepointedBy", json_string("hoodie")) < 0;
        bad |= hoodie_svc__set(meta, "savepointedAt", json_integer(hoodie_write__now_us() / 1000000)) < 0;
        bad |= hoodie_svc__set(meta, "comments", json_string("")) < 0;
        bad |= hoodie_svc__set(meta, "partitionMetadata", pm) < 0;
        pm = NULL;
        if (bad) rc = HOODIE_NOMEM();
    }
    if (rc == HOODIE_OK) {
        hoodie_instant sp;
        memset(&sp, 0, sizeof sp);
        snprintf(sp.requested, sizeof sp.requested, "%s", target->requested);
        sp.action = sp.plan_action = HOODIE_ACTION_SAVEPOINT;
        sp.state = HOODIE_STATE_REQUESTED; /* Hudi writes no savepoint.requested: inflight comes first */
        rc = hoodie_svc__resume(&sv, &tx, &sp);
        have_tx = rc == HOODIE_OK;
    }
    if (rc == HOODIE_OK) rc = hoodie_write__inflight(&tx, NULL, 0);
    if (rc == HOODIE_OK) { rc = hoodie_svc__ocf(&content, hoodie_svc__schema_savepoint, meta); meta = NULL; }
    if (rc == HOODIE_OK) rc = hoodie_write__complete(&tx, content.data, content.len);
    if (rc == HOODIE_OK) {
        snprintf(res.instant, sizeof res.instant, "%s", tx.inst.requested);
        res.instants = 1;
    }
    json_decref(meta);
    json_decref(pm);
    hoodie_buf_dispose(&content);
    if (have_tx) hoodie_write__txn_dispose(&tx);
    hoodie_fsview_free(v);
    hoodie_svc__close(&sv);
    if (result) *result = res;
    return rc;
}

hoodie_status hoodie_savepoint_delete(const char *base_path, const hoodie_service_opts *opts, const char *instant)
{
    hoodie_svc sv;
    if (!instant) return HOODIE_FAIL(HOODIE_EINVAL, "savepoint delete: no instant given");
    hoodie_status rc = hoodie_svc__open(&sv, base_path, opts, 0);
    if (rc == HOODIE_OK) {
        const hoodie_instant *sp = hoodie_timeline_find(sv.t->tl, instant, HOODIE_ACTION_SAVEPOINT);
        if (!sp) rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no savepoint %s", sv.base_path, instant);
        else {
            hoodie_instant copy = *sp;
            /* completed file first (the savepoint stops protecting files), then inflight and requested */
            if (copy.state == HOODIE_STATE_COMPLETED) rc = hoodie_svc__remove_instant_files(&sv, &copy, 1);
            if (rc == HOODIE_OK) rc = hoodie_svc__remove_instant_files(&sv, &copy, 0);
        }
    }
    hoodie_svc__close(&sv);
    return rc;
}

hoodie_status hoodie_savepoint_list(const char *base_path, const hoodie_service_opts *opts, char **out)
{
    hoodie_svc sv;
    hoodie_buf b = HOODIE_BUF_INIT;
    *out = NULL;
    hoodie_status rc = hoodie_svc__open(&sv, base_path, opts, 0);
    for (size_t i = 0; rc == HOODIE_OK && i < sv.t->tl->count; i++) {
        const hoodie_instant *in = &sv.t->tl->instants[i];
        if (in->action == HOODIE_ACTION_SAVEPOINT && in->state == HOODIE_STATE_COMPLETED)
            rc = hoodie_buf_printf(&b, "%s\n", in->requested);
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&b);
    if (rc == HOODIE_OK) {
        *out = strdup(b.len ? (const char *)b.data : "");
        if (!*out) rc = HOODIE_NOMEM();
    }
    hoodie_buf_dispose(&b);
    hoodie_svc__close(&sv);
    return rc;
}

/* ---- restore ---- */

static json_t *instant_info(const hoodie_instant *in)
{
    json_t *o = json_object();
    if (hoodie_svc__set(o, "commitTime", json_string(in->requested)) < 0 ||
        hoodie_svc__set(o, "action", json_string(hoodie_action_name(in->plan_action))) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Instants after the savepoint, newest first (copied). */
static hoodie_status restore_targets(hoodie_svc *sv, const char *sp, hoodie_instant **out, size_t *n)
{
    const hoodie_timeline *tl = sv->t->tl;
    *out = calloc(tl->count + 1, sizeof **out);
    *n = 0;
    if (!*out) return HOODIE_NOMEM();
    for (size_t i = tl->count; i-- > 0;) {
        const hoodie_instant *in = &tl->instants[i];
        if (strcmp(in->requested, sp) <= 0) break;
        if (!(SERVICE_ACTIONS & (HOODIE_ACTION_BIT(in->plan_action) | HOODIE_ACTION_BIT(in->action)))) continue;
        (*out)[(*n)++] = *in;
    }
    return HOODIE_OK;
}

hoodie_status hoodie_restore(const char *base_path, const hoodie_service_opts *opts, const char *instant,
                             hoodie_service_result *result)
{
    hoodie_svc sv;
    hoodie_service_result res;
    hoodie_write_txn tx;
    int have_tx = 0;
    hoodie_instant *targets = NULL;
    size_t n = 0;
    json_t *plan = NULL, *meta = NULL, *rbmap = NULL, *rolled = NULL, *infos = NULL;
    hoodie_buf content = HOODIE_BUF_INIT;
    int64_t start = hoodie_write__now_us();
    memset(&res, 0, sizeof res);
    if (!instant) return HOODIE_FAIL(HOODIE_EINVAL, "restore: no savepoint given");
    hoodie_status rc = hoodie_svc__open(&sv, base_path, opts, HOODIE_SVC_FILES | HOODIE_SVC_DROP_MDT);
    hoodie_table_lock lock = { 0 };
    if (rc == HOODIE_OK) rc = hoodie_svc__lock_fresh(&sv, &lock); /* the whole restore: no commit in between */
    if (rc == HOODIE_OK) {
        const hoodie_instant *sp = hoodie_timeline_find(sv.t->tl, instant, HOODIE_ACTION_SAVEPOINT);
        if (!sp || sp->state != HOODIE_STATE_COMPLETED)
            rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no savepoint %s", sv.base_path, instant);
        for (size_t i = 0; rc == HOODIE_OK && i < sv.t->tl->count; i++) {
            const hoodie_instant *in = &sv.t->tl->instants[i];
            if (in->action == HOODIE_ACTION_SAVEPOINT && in->state == HOODIE_STATE_COMPLETED &&
                strcmp(in->requested, instant) > 0)
                rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: savepoint %s is after %s: delete it first", sv.base_path,
                                 in->requested, instant);
        }
    }
    /* a pending restore is resumed */
    const hoodie_instant *pending = NULL;
    for (size_t i = 0; rc == HOODIE_OK && i < sv.t->tl->count; i++) {
        const hoodie_instant *in = &sv.t->tl->instants[i];
        if (in->action == HOODIE_ACTION_RESTORE && in->state != HOODIE_STATE_COMPLETED) pending = in;
    }
    if (rc == HOODIE_OK) rc = restore_targets(&sv, instant, &targets, &n);
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) rc = refuse_live(&sv, &targets[i], "restore");
    if (rc == HOODIE_OK && !pending) {
        plan = json_object();
        json_t *list = json_array();
        int bad = !plan || !list;
        for (size_t i = 0; !bad && i < n; i++) bad |= json_array_append_new(list, instant_info(&targets[i])) < 0;
        bad |= hoodie_svc__set(plan, "instantsToRollback", list) < 0;
        bad |= hoodie_svc__set(plan, "version", json_integer(2)) < 0;
        bad |= hoodie_svc__set(plan, "savepointToRestoreTimestamp", json_string(instant)) < 0;
        if (bad) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) rc = hoodie_svc__ocf(&content, hoodie_svc__schema_restore_plan, json_incref(plan));
        if (rc == HOODIE_OK) rc = hoodie_svc__begin(&sv, &tx, HOODIE_ACTION_RESTORE, content.data, content.len);
        have_tx = rc == HOODIE_OK;
    } else if (rc == HOODIE_OK) {
        hoodie_instant copy = *pending;
        rc = hoodie_svc__resume(&sv, &tx, &copy);
        have_tx = rc == HOODIE_OK;
    }
    if (rc == HOODIE_OK) rc = hoodie_svc__ensure_inflight(&tx, NULL, 0);
    rbmap = json_object();
    rolled = json_array();
    infos = json_array();
    if (rc == HOODIE_OK && (!rbmap || !rolled || !infos)) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        char rtime[18];
        if ((rc = hoodie_svc__reload(&sv)) < 0) break;
        const hoodie_instant *cur = find_target(sv.t->tl, targets[i].requested);
        if (!cur) continue; /* rolled back by an earlier attempt */
        hoodie_instant copy = *cur;
        if ((rc = rollback_instant(&sv, &copy, rtime)) < 0) break;
        res.instants++;
        /* the rollback's metadata, as recorded */
        if ((rc = hoodie_svc__reload(&sv)) < 0) break;
        const hoodie_instant *rb = hoodie_timeline_find(sv.t->tl, rtime, HOODIE_ACTION_ROLLBACK);
        json_t *rm = NULL;
        if (rb) rc = hoodie_svc__read_record(&sv, rb, HOODIE_STATE_COMPLETED, &rm);
        if (rc == HOODIE_OK && rm) {
            json_t *arr = json_array();
            int bad = !arr || json_array_append_new(arr, rm) < 0;
            if (!bad) bad |= hoodie_svc__set(rbmap, copy.requested, arr) < 0;
            else json_decref(arr);
            json_t *tot = json_object_get(rm, "totalFilesDeleted");
            if (json_is_integer(tot)) res.files_deleted += json_integer_value(tot);
            if (bad) rc = HOODIE_NOMEM();
        }
        if (rc == HOODIE_OK) {
            int bad = json_array_append_new(rolled, json_string(copy.requested)) < 0;
            bad |= json_array_append_new(infos, instant_info(&copy)) < 0;
            if (bad) rc = HOODIE_NOMEM();
        }
    }
    if (rc == HOODIE_OK) {
        meta = json_object();
        int bad = !meta;
        bad |= hoodie_svc__set(meta, "startRestoreTime", json_string(tx.inst.requested)) < 0;
        bad |= hoodie_svc__set(meta, "timeTakenInMillis", json_integer((hoodie_write__now_us() - start) / 1000)) < 0;
        bad |= hoodie_svc__set(meta, "instantsToRollback", rolled) < 0;
        rolled = NULL;
        bad |= hoodie_svc__set(meta, "hoodieRestoreMetadata", rbmap) < 0;
        rbmap = NULL;
        bad |= hoodie_svc__set(meta, "version", json_integer(1)) < 0;
        bad |= hoodie_svc__set(meta, "restoreInstantInfo", infos) < 0;
        infos = NULL;
        bad |= hoodie_svc__set(meta, "extraMetadata", json_null()) < 0;
        if (bad) rc = HOODIE_NOMEM();
        hoodie_buf_clear(&content);
        if (rc == HOODIE_OK) { rc = hoodie_svc__ocf(&content, hoodie_svc__schema_restore_meta, meta); meta = NULL; }
        if (rc == HOODIE_OK) rc = hoodie_write__complete(&tx, content.data, content.len);
        if (rc == HOODIE_OK) snprintf(res.instant, sizeof res.instant, "%s", tx.inst.requested);
    }
    json_decref(plan);
    json_decref(meta);
    json_decref(rbmap);
    json_decref(rolled);
    json_decref(infos);
    hoodie_buf_dispose(&content);
    if (have_tx) hoodie_write__txn_dispose(&tx);
    free(targets);
    hoodie_status urc = hoodie_write__unlock(&lock);
    if (rc == HOODIE_OK) rc = urc;
    hoodie_svc__close(&sv);
    if (result) *result = res;
    return rc;
}
