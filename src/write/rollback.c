/* Rollback of failed write instants, and recovery (see rollback.h). */
#include "write/rollback.h"
#include "write/lock.h"
#include "write/avro_enc.h"
#include "write/commit.h"
#include "write/mdt.h"
#include "write/create.h"
#include "storage/storage.h"
#include "table/commit_meta.h"
#include "table/file_name.h"
#include "format/hlog/hlog.h"
#include "util/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file to delete: partition and name, with its size. */
typedef struct rb_file {
    char *partition;
    char *name;
    uint64_t size;
    int is_log;
    int deleted;
    int foreign;    /* another instant's log file (a v6 name both took): neither deleted nor listed */
} rb_file;

typedef struct rb_ctx {
    const hoodie_storage *s;
    const char *base;
    const char *t;          /* failed instant time */
    rb_file *files;
    size_t count, cap;
    char **parts;           /* partitions to scan */
    size_t part_count, part_cap;
    int oom;
} rb_ctx;

static int has_part(rb_ctx *c, const char *p)
{
    for (size_t i = 0; i < c->part_count; i++)
        if (!strcmp(c->parts[i], p)) return 1;
    return 0;
}

static void add_part(rb_ctx *c, const char *p)
{
    if (has_part(c, p)) return;
    if (c->part_count == c->part_cap) {
        size_t n = c->part_cap ? c->part_cap * 2 : 8;
        char **np = realloc(c->parts, n * sizeof *np);
        if (!np) { c->oom = 1; return; }
        c->parts = np;
        c->part_cap = n;
    }
    char *d = strdup(p);
    if (!d) { c->oom = 1; return; }
    c->parts[c->part_count++] = d;
}

static void add_file(rb_ctx *c, const char *part, const char *name, uint64_t size, int is_log)
{
    for (size_t i = 0; i < c->count; i++)
        if (!strcmp(c->files[i].partition, part) && !strcmp(c->files[i].name, name)) {
            if (size) c->files[i].size = size;
            return;
        }
    if (c->count == c->cap) {
        size_t n = c->cap ? c->cap * 2 : 16;
        rb_file *nf = realloc(c->files, n * sizeof *nf);
        if (!nf) { c->oom = 1; return; }
        c->files = nf;
        c->cap = n;
    }
    rb_file *f = &c->files[c->count];
    f->partition = strdup(part);
    f->name = strdup(name);
    f->size = size;
    f->is_log = is_log;
    f->deleted = 0;
    f->foreign = 0;
    if (!f->partition || !f->name) { free(f->partition); free(f->name); c->oom = 1; return; }
    c->count++;
}

/* --- markers: .hoodie/.temp/T/<partition...>/<file>.marker.<TYPE> --- */

typedef struct walk {
    rb_ctx *c;
    const char *rel;     /* partition path so far */
    char **subdirs;
    size_t sub_count, sub_cap;
} walk;

static int marker_cb(const hoodie_dirent *e, void *payload)
{
    walk *w = payload;
    if (e->is_dir) {
        if (w->sub_count == w->sub_cap) {
            size_t n = w->sub_cap ? w->sub_cap * 2 : 8;
            char **ns = realloc(w->subdirs, n * sizeof *ns);
            if (!ns) { w->c->oom = 1; return 1; }
            w->subdirs = ns;
            w->sub_cap = n;
        }
        if (!(w->subdirs[w->sub_count] = strdup(e->name))) { w->c->oom = 1; return 1; }
        w->sub_count++;
        return 0;
    }
    const char *m = strstr(e->name, ".marker.");
    if (!m) return 0;
    char *data = strndup(e->name, (size_t)(m - e->name));
    if (!data) { w->c->oom = 1; return 1; }
    hoodie_file_name fn;
    int is_log = hoodie_file_name_parse(&fn, data) == HOODIE_FILE_LOG;
    add_file(w->c, w->rel, data, 0, is_log);
    add_part(w->c, w->rel);
    free(data);
    return 0;
}

static hoodie_status walk_markers(rb_ctx *c, const char *dir, const char *rel, int depth)
{
    walk w = { c, rel, NULL, 0, 0 };
    hoodie_status rc = c->s->list(c->s->ctx, dir, marker_cb, &w);
    if (rc == HOODIE_ENOTFOUND) rc = HOODIE_OK;
    if (rc == HOODIE_OK && c->oom) rc = HOODIE_NOMEM();
    for (size_t i = 0; i < w.sub_count; i++) {
        if (rc == HOODIE_OK && depth < 32) {
            char *sub = hoodie_write__path(dir, w.subdirs[i]);
            size_t n = strlen(rel) + strlen(w.subdirs[i]) + 2;
            char *srel = malloc(n);
            if (!sub || !srel) rc = HOODIE_NOMEM();
            else {
                snprintf(srel, n, "%s%s%s", rel, *rel ? "/" : "", w.subdirs[i]);
                rc = walk_markers(c, sub, srel, depth + 1);
            }
            free(sub);
            free(srel);
        }
        free(w.subdirs[i]);
    }
    free(w.subdirs);
    return rc;
}

/* --- partition scan: files whose name carries T --- */

typedef struct scan {
    rb_ctx *c;
    const char *part;
} scan;

static int slice_eq(hoodie_slice_ref r, const char *s) { return r.len == strlen(s) && !memcmp(r.p, s, r.len); }

static int scan_cb(const hoodie_dirent *e, void *payload)
{
    scan *sc = payload;
    if (e->is_dir) return 0;
    hoodie_file_name fn;
    hoodie_file_kind k = hoodie_file_name_parse(&fn, e->name);
    if (k == HOODIE_FILE_OTHER || !slice_eq(fn.instant, sc->c->t)) return 0;
    add_file(sc->c, sc->part, e->name, e->size, k != HOODIE_FILE_BASE);
    return sc->c->oom;
}

static hoodie_status scan_partitions(rb_ctx *c)
{
    for (size_t i = 0; i < c->part_count; i++) {
        char *dir = hoodie_write__path(c->base, c->parts[i]);
        if (!dir) return HOODIE_NOMEM();
        scan sc = { c, c->parts[i] };
        hoodie_status rc = c->s->list(c->s->ctx, dir, scan_cb, &sc);
        free(dir);
        if (rc == HOODIE_ENOTFOUND) rc = HOODIE_OK;
        if (rc == HOODIE_OK && c->oom) rc = HOODIE_NOMEM();
        if (rc < 0) return rc;
    }
    return HOODIE_OK;
}

/* Partitions named by the pending instant's inflight workload (best effort: unreadable content is skipped). */
static void workload_partitions(rb_ctx *c, const char *tl_dir, const hoodie_instant *failed, int layout)
{
    char name[128];
    if (!(failed->state_files & HOODIE_STATE_BIT(HOODIE_STATE_INFLIGHT))) return;
    if (hoodie_instant_file_name(failed, HOODIE_STATE_INFLIGHT, layout, name, sizeof name) < 0) return;
    char *path = hoodie_write__path(tl_dir, name);
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_commit_meta *m = NULL;
    if (path && hoodie_storage_read_all(c->s, path, &b) == HOODIE_OK && b.len &&
        hoodie_commit_meta_decode(&m, b.data, b.len, path) == HOODIE_OK) {
        for (size_t i = 0; i < m->stat_count; i++)
            if (m->stats[i].partition_path) add_part(c, m->stats[i].partition_path);
    }
    hoodie_error_clear();
    hoodie_commit_meta_free(m);
    hoodie_buf_dispose(&b);
    free(path);
}

static void rb_dispose(rb_ctx *c)
{
    for (size_t i = 0; i < c->count; i++) { free(c->files[i].partition); free(c->files[i].name); }
    free(c->files);
    for (size_t i = 0; i < c->part_count; i++) free(c->parts[i]);
    free(c->parts);
}

/* --- Avro contents --- */

static char *full_path(rb_ctx *c, const rb_file *f)
{
    char *dir = hoodie_write__path(c->base, f->partition);
    char *p = dir ? hoodie_write__path(dir, f->name) : NULL;
    free(dir);
    return p;
}

static int set(json_t *o, const char *k, json_t *v) { return v ? json_object_set_new(o, k, v) : -1; }

static json_t *instant_info(const char *t, const char *action)
{
    json_t *o = json_object();
    if (!o || set(o, "commitTime", json_string(t)) < 0 || set(o, "action", json_string(action)) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *build_plan(rb_ctx *c, const char *action)
{
    json_t *root = json_object(), *reqs = json_array();
    int bad = !root || !reqs;
    for (size_t p = 0; !bad && p < c->part_count; p++) {
        json_t *req = json_object(), *files = json_array(), *logs = json_object();
        bad |= !req || !files || !logs;
        for (size_t i = 0; !bad && i < c->count; i++) {
            if (strcmp(c->files[i].partition, c->parts[p])) continue;
            char *fp = full_path(c, &c->files[i]);
            bad |= !fp || json_array_append_new(files, json_string(fp)) < 0;
            free(fp);
        }
        if (!bad && json_array_size(files) == 0) { json_decref(req); json_decref(files); json_decref(logs); continue; }
        bad |= set(req, "partitionPath", json_string(c->parts[p])) < 0 || set(req, "fileId", json_string("")) < 0 ||
               set(req, "latestBaseInstant", json_string("")) < 0;
        bad |= set(req, "filesToBeDeleted", files) < 0;
        files = NULL;
        bad |= set(req, "logBlocksToBeDeleted", logs) < 0;
        logs = NULL;
        bad |= json_array_append_new(reqs, req) < 0;
        req = NULL;
        json_decref(req);
        json_decref(files);
        json_decref(logs);
    }
    bad |= set(root, "instantToRollback", instant_info(c->t, action)) < 0;
    bad |= set(root, "RollbackRequests", reqs) < 0;
    reqs = NULL;
    bad |= set(root, "version", json_integer(1)) < 0;
    if (bad) { json_decref(root); json_decref(reqs); return NULL; }
    return root;
}

static json_t *build_meta(rb_ctx *c, const char *rtime, const char *action, int64_t took_ms)
{
    json_t *root = json_object(), *pm = json_object(), *commits = json_array(), *infos = json_array();
    int bad = !root || !pm || !commits || !infos;
    int deleted = 0;
    for (size_t p = 0; !bad && p < c->part_count; p++) {
        json_t *e = json_object(), *ok = json_array(), *failed = json_array(), *logs = json_object();
        bad |= !e || !ok || !failed || !logs;
        for (size_t i = 0; !bad && i < c->count; i++) {
            rb_file *f = &c->files[i];
            if (f->foreign || strcmp(f->partition, c->parts[p])) continue;
            char *fp = full_path(c, f);
            bad |= !fp || json_array_append_new(f->deleted ? ok : failed, json_string(fp)) < 0;
            if (!bad && f->is_log) bad |= json_object_set_new(logs, fp, json_integer((json_int_t)f->size)) < 0;
            deleted += f->deleted;
            free(fp);
        }
        bad |= set(e, "partitionPath", json_string(c->parts[p])) < 0;
        bad |= set(e, "successDeleteFiles", ok) < 0;
        bad |= set(e, "failedDeleteFiles", failed) < 0;
        bad |= set(e, "rollbackLogFiles", json_object()) < 0;
        bad |= set(e, "logFilesFromFailedCommit", logs) < 0;
        bad |= set(pm, c->parts[p], e) < 0;
    }
    bad |= json_array_append_new(commits, json_string(c->t)) < 0;
    bad |= json_array_append_new(infos, instant_info(c->t, action)) < 0;
    bad |= set(root, "startRollbackTime", json_string(rtime)) < 0;
    bad |= set(root, "timeTakenInMillis", json_integer(took_ms)) < 0;
    bad |= set(root, "totalFilesDeleted", json_integer(deleted)) < 0;
    bad |= set(root, "commitsRollback", commits) < 0;
    bad |= set(root, "partitionMetadata", pm) < 0;
    bad |= set(root, "version", json_integer(1)) < 0;
    bad |= set(root, "instantsRollback", infos) < 0;
    if (bad) { json_decref(root); return NULL; }
    return root;
}

static hoodie_status ocf_of(hoodie_buf *out, const char *schema, json_t *rec)
{
    if (!rec) return HOODIE_NOMEM();
    json_t *arr = json_array();
    hoodie_status rc = arr && json_array_append_new(arr, rec) == 0 ? hoodie_write__avro_ocf(out, schema, arr)
                                                                    : HOODIE_NOMEM();
    json_decref(arr);
    return rc;
}

static hoodie_status remove_if_exists(const hoodie_storage *s, const char *path)
{
    hoodie_status rc = s->remove(s->ctx, path);
    return rc == HOODIE_ENOTFOUND ? HOODIE_OK : rc;
}

/*
 * Whether a log file the failed instant has a marker for was written by another instant: a v6 log name carries the
 * base instant, not the writer's, so a concurrent writer may have taken the name first (this one's create then
 * failed). Its first block's INSTANT_TIME tells; an unreadable file is taken as the failed instant's.
 */
static int written_by_other(rb_ctx *c, const rb_file *f, const char *path)
{
    hoodie_file_name fn;
    if (hoodie_file_name_parse(&fn, f->name) == HOODIE_FILE_LOG && fn.instant.len == strlen(c->t) &&
        !memcmp(fn.instant.p, c->t, fn.instant.len))
        return 0; /* v8: named by the writing instant */
    hoodie_buf data = HOODIE_BUF_INIT;
    int other = 0;
    if (hoodie_storage_read_all(c->s, path, &data) == HOODIE_OK) {
        hoodie_hlog_iter it;
        hoodie_hlog_block b;
        if (hoodie_hlog_iter_init(&it, data.data, data.len, path) == HOODIE_OK) {
            if (hoodie_hlog_iter_next(&it, &b) == HOODIE_OK && b.type != HOODIE_HLOG_CORRUPT_BLOCK &&
                b.header[HOODIE_HLOG_INSTANT_TIME])
                other = strcmp(b.header[HOODIE_HLOG_INSTANT_TIME], c->t) != 0;
            hoodie_hlog_iter_dispose(&it);
        }
    }
    hoodie_error_clear();
    hoodie_buf_dispose(&data);
    return other;
}

hoodie_status hoodie_write__rollback(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                     const hoodie_instant *failed, char rollback_time[18])
{
    hoodie_status rc = HOODIE_OK;
    rb_ctx c;
    memset(&c, 0, sizeof c);
    s = hoodie_storage__or_default(s);
    c.s = s;
    c.base = base_path;
    c.t = failed->requested;
    hoodie_buf content = HOODIE_BUF_INIT;
    hoodie_timeline *tl = NULL;
    char *tl_dir = hoodie_write__path(base_path, cfg->timeline_dir);
    char *marker_dir = NULL, *path = NULL;
    char max[HOODIE_INSTANT_TIME_MAX + 1], name[128], rel[64];
    int layout = cfg->timeline_layout_version;
    const char *action = hoodie_action_name(failed->plan_action);
    int64_t start_us = hoodie_write__now_us();
    int beating = 0;
    if (!tl_dir) return HOODIE_NOMEM();
    if (failed->state == HOODIE_STATE_COMPLETED) {
        rc = HOODIE_FAIL(HOODIE_ESTATE, "instant %s is completed: only pending instants are rolled back", c.t);
        goto done;
    }

    /* 1. what to delete */
    snprintf(rel, sizeof rel, ".hoodie/.temp/%s", c.t);
    marker_dir = hoodie_write__path(base_path, rel);
    if (!marker_dir) { rc = HOODIE_NOMEM(); goto done; }
    HOODIE_TRY_GOTO(rc, walk_markers(&c, marker_dir, "", 0), done);
    workload_partitions(&c, tl_dir, failed, layout);
    if (c.oom) { rc = HOODIE_NOMEM(); goto done; }
    HOODIE_TRY_GOTO(rc, scan_partitions(&c), done);

    /* 2. rollback instant: requested (plan), inflight */
    HOODIE_TRY_GOTO(rc, hoodie_timeline_load_dir(&tl, s, tl_dir, layout), done);
    hoodie_write__timeline_max(tl, max);
    hoodie_instant rb;
    memset(&rb, 0, sizeof rb);
    rb.action = rb.plan_action = HOODIE_ACTION_ROLLBACK;
    for (int attempt = 0; attempt < 16; attempt++) {
        HOODIE_TRY_GOTO(rc, hoodie_write__new_time(rollback_time, cfg->timeline_timezone_utc, max), done);
        memcpy(rb.requested, rollback_time, 18);
        HOODIE_TRY_GOTO(rc, hoodie_instant_file_name(&rb, HOODIE_STATE_REQUESTED, layout, name, sizeof name), done);
        free(path);
        if (!(path = hoodie_write__path(tl_dir, name))) { rc = HOODIE_NOMEM(); goto done; }
        hoodie_buf_clear(&content);
        HOODIE_TRY_GOTO(rc, ocf_of(&content, hoodie_write__schema_rollback_plan, build_plan(&c, action)), done);
        /* the time is reserved by a heartbeat, as a writer's is: a writer that picked the same time has its heartbeat
         * and may not have its requested file yet, and two instants of one time would confuse every reader */
        rc = hoodie_write__heartbeat_start(s, base_path, rollback_time);
        if (rc == HOODIE_OK) {
            beating = 1;
            rc = hoodie_storage_write_all(s, path, HOODIE_CREATE_EXCLUSIVE, content.data, content.len);
        }
        if (rc != HOODIE_EEXISTS) break;
        hoodie_error_clear();
        if (beating) hoodie_write__heartbeat_stop(s, base_path, rollback_time);
        beating = 0;
        memcpy(max, rollback_time, 18);
    }
    if (rc < 0) goto done;
    HOODIE_TRY_GOTO(rc, hoodie_instant_file_name(&rb, HOODIE_STATE_INFLIGHT, layout, name, sizeof name), done);
    free(path);
    if (!(path = hoodie_write__path(tl_dir, name))) { rc = HOODIE_NOMEM(); goto done; }
    HOODIE_TRY_GOTO(rc, hoodie_storage_write_all(s, path, HOODIE_CREATE_EXCLUSIVE, "", 0), done);

    /* 3. delete the files (a missing file counts as deleted: an earlier attempt got it) */
    for (size_t i = 0; i < c.count; i++) {
        char *fp = full_path(&c, &c.files[i]);
        if (!fp) { rc = HOODIE_NOMEM(); goto done; }
        if (c.files[i].is_log && written_by_other(&c, &c.files[i], fp)) {
            c.files[i].foreign = 1;
            free(fp);
            continue;
        }
        rc = remove_if_exists(s, fp);
        free(fp);
        if (rc < 0) goto done; /* stop: the rollback stays inflight and is redone by the next recovery */
        c.files[i].deleted = 1;
    }

    /* 4. the metadata table's deltacommit of the instant goes too, then the completed rollback: the commit point */
    HOODIE_TRY_GOTO(rc, hoodie_write__mdt_rollback(s, base_path, cfg, c.t), done);
    if (layout == 2) {
        hoodie_write__timeline_max(tl, max);
        if (strcmp(max, rollback_time) < 0) memcpy(max, rollback_time, 18);
        char ct[18];
        HOODIE_TRY_GOTO(rc, hoodie_write__new_time(ct, cfg->timeline_timezone_utc, max), done);
        memcpy(rb.completion, ct, 18);
    }
    HOODIE_TRY_GOTO(rc, hoodie_instant_file_name(&rb, HOODIE_STATE_COMPLETED, layout, name, sizeof name), done);
    free(path);
    if (!(path = hoodie_write__path(tl_dir, name))) { rc = HOODIE_NOMEM(); goto done; }
    hoodie_buf_clear(&content);
    HOODIE_TRY_GOTO(rc, ocf_of(&content, hoodie_write__schema_rollback_meta,
                               build_meta(&c, rollback_time, action, (hoodie_write__now_us() - start_us) / 1000)),
                    done);
    HOODIE_TRY_GOTO(rc, hoodie_storage_write_all(s, path, HOODIE_CREATE_EXCLUSIVE, content.data, content.len), done);

    /* 5. drop the failed instant: inflight, then requested, then its markers */
    for (int st = HOODIE_STATE_INFLIGHT; st >= HOODIE_STATE_REQUESTED; st--) {
        HOODIE_TRY_GOTO(rc, hoodie_instant_file_name(failed, (hoodie_instant_state)st, layout, name, sizeof name), done);
        free(path);
        if (!(path = hoodie_write__path(tl_dir, name))) { rc = HOODIE_NOMEM(); goto done; }
        HOODIE_TRY_GOTO(rc, remove_if_exists(s, path), done);
    }
    HOODIE_TRY_GOTO(rc, hoodie_storage_remove_tree(s, marker_dir), done);

done:
    if (rc < 0) hoodie_error__prefix("rollback of %s: ", c.t);
    if (beating) hoodie_write__heartbeat_stop(s, base_path, rollback_time);
    rb_dispose(&c);
    hoodie_timeline_free(tl);
    hoodie_buf_dispose(&content);
    free(tl_dir);
    free(marker_dir);
    free(path);
    return rc;
}

typedef struct pending_ctx { const hoodie_timeline *tl; const hoodie_storage *s; } pending_ctx;

static int is_pending(void *ctx, const char *instant)
{
    const hoodie_timeline *tl = ((pending_ctx *)ctx)->tl;
    for (size_t i = 0; i < tl->count; i++)
        if (!strcmp(tl->instants[i].requested, instant) && tl->instants[i].state != HOODIE_STATE_COMPLETED) return 1;
    return 0;
}

/*
 * A dead heartbeat whose instant is not on the timeline: a writer killed after starting its heartbeat and before its
 * requested file was in place may have left that file's hidden temporary in the timeline folder. Asking the storage
 * to remove the file it never finished removes such temporaries of dead processes (posix), whatever the action.
 */
static void heartbeat_gone(void *ctx, const char *instant)
{
    const pending_ctx *pc = ctx;
    char name[128];
    for (size_t i = 0; i < pc->tl->count; i++)
        if (!strcmp(pc->tl->instants[i].requested, instant)) return;
    hoodie_instant in;
    memset(&in, 0, sizeof in);
    if (strlen(instant) >= sizeof in.requested) return;
    strcpy(in.requested, instant);
    for (int a = 0; a < HOODIE_ACTION_COUNT; a++) {
        in.action = in.plan_action = (hoodie_action)a;
        in.state = HOODIE_STATE_REQUESTED;
        if (hoodie_instant_file_name(&in, HOODIE_STATE_REQUESTED, pc->tl->layout_version, name, sizeof name) < 0)
            continue;
        char *p = hoodie_write__path(pc->tl->dir, name);
        if (p && pc->s->exists(pc->s->ctx, p) == 0) (void)pc->s->remove(pc->s->ctx, p);
        free(p);
    }
    hoodie_error_clear();
}

static hoodie_status recover_locked(const hoodie_table *t, size_t *n_out)
{
    hoodie_status rc = HOODIE_OK;
    hoodie_timeline *tl = NULL;
    hoodie_heartbeats *hb = NULL;
    size_t n = 0;
    char name[128], rtime[18];
    const hoodie_table_config *cfg = t->cfg;
    /* the timeline before the heartbeats: a writer starts its heartbeat before its instant */
    HOODIE_TRY(hoodie_timeline_load(&tl, t->storage, t->base_path, cfg));
    rc = hoodie_write__heartbeats_load(&hb, t->storage, t->base_path);
    /* pending rollbacks first: drop them (their targets are still pending and get a fresh rollback) */
    for (size_t i = 0; i < tl->count && rc == HOODIE_OK; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->action != HOODIE_ACTION_ROLLBACK || in->state == HOODIE_STATE_COMPLETED) continue;
        for (int st = HOODIE_STATE_INFLIGHT; st >= HOODIE_STATE_REQUESTED && rc == HOODIE_OK; st--) {
            if (!(in->state_files & HOODIE_STATE_BIT(st))) continue;
            rc = hoodie_instant_file_name(in, (hoodie_instant_state)st, tl->layout_version, name, sizeof name);
            char *p = rc == HOODIE_OK ? hoodie_write__path(tl->dir, name) : NULL;
            if (rc == HOODIE_OK && !p) rc = HOODIE_NOMEM();
            if (rc == HOODIE_OK) rc = remove_if_exists(t->storage, p);
            free(p);
        }
    }
    for (size_t i = 0; i < tl->count && rc == HOODIE_OK; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->state == HOODIE_STATE_COMPLETED || !(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action))) continue;
        if (hoodie_write__heartbeat_alive(hb, in->requested)) continue; /* a writer is still at it */
        rc = hoodie_write__rollback(t->storage, t->base_path, cfg, in, rtime);
        if (rc == HOODIE_OK) {
            n++;
            hoodie_write__heartbeat_stop(t->storage, t->base_path, in->requested);
        }
    }
    if (rc == HOODIE_OK) {
        pending_ctx pc = { tl, hoodie_storage__or_default(t->storage) };
        hoodie_write__heartbeats_prune(hb, is_pending, heartbeat_gone, &pc); /* left by finished or dead writes */
    }
    hoodie_write__heartbeats_free(hb);
    hoodie_timeline_free(tl);
    *n_out = n;
    return rc;
}

hoodie_status hoodie_write__recover(const hoodie_table *t, size_t *rolled_back_out)
{
    hoodie_table_lock lock;
    size_t n = 0;
    if (rolled_back_out) *rolled_back_out = 0;
    HOODIE_TRY(hoodie_write__lock(&lock, t->storage, t->base_path, -1));
    hoodie_status rc = recover_locked(t, &n);
    hoodie_status urc = hoodie_write__unlock(&lock);
    if (rc == HOODIE_OK) rc = urc;
    if (rolled_back_out) *rolled_back_out = n;
    return rc;
}
