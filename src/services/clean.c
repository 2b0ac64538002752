/*
 * Cleaning (hudi-format.md 9.2): file slices that the policy no longer needs are deleted.
 *
 *   KEEP_LATEST_COMMITS (N)       E = the N-th latest completed write instant; per file group keep the latest
 *                                 slice, every slice whose base instant is >= E, and the newest slice before E
 *                                 (it serves reads as of E); so every query as of a retained commit still reads
 *   KEEP_LATEST_FILE_VERSIONS (N) per file group keep the N latest slices
 *   KEEP_LATEST_BY_HOURS (N)      as KEEP_LATEST_COMMITS with E = the first completed write requested in the last
 *                                 N hours (the latest write if none is)
 * File groups replaced by a completed replacecommit are deleted whole once the replacecommit is before E (any
 * replacecommit under KEEP_LATEST_FILE_VERSIONS). LSM layout: log files of a retained slice that a log compaction (L0 -> L0) replaced
 * are deleted once the log compaction's file applies as of E (any completed one under KEEP_LATEST_FILE_VERSIONS). Never deleted: the latest slice of a file group, files of file
 * groups in a pending compaction or clustering, and every file of the latest slices as of a savepoint.
 *
 * Instants: C.clean.requested (HoodieCleanerPlan, full paths), C.clean.inflight (the plan again, as Hudi writes
 * it), deletes, then the completed clean (HoodieCleanMetadata). A pending clean is finished from its plan by the
 * next run (a file already gone counts as deleted).
 */
#include "read/lsm_read.h"
#include "services/svc.h"
#include "storage/storage.h"
#include "util/error.h"
#include "write/create.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const POLICY_NAMES[] = { "KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS" };

typedef struct strset { char **v; size_t n, cap; } strset;

static hoodie_status set_add(strset *s, const char *x)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], x)) return HOODIE_OK;
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 32;
        char **nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) return HOODIE_NOMEM();
        s->v = nv;
        s->cap = nc;
    }
    if (!(s->v[s->n] = strdup(x))) return HOODIE_NOMEM();
    s->n++;
    return HOODIE_OK;
}

static int set_has(const strset *s, const char *x)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], x)) return 1;
    return 0;
}

static void set_dispose(strset *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* Full paths of the files of the latest slices as of every completed savepoint. */
static hoodie_status savepointed(hoodie_svc *sv, strset *out)
{
    const hoodie_timeline *tl = sv->t->tl;
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < tl->count && rc == HOODIE_OK; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->action != HOODIE_ACTION_SAVEPOINT || in->state != HOODIE_STATE_COMPLETED) continue;
        hoodie_fsview *v = NULL;
        if ((rc = hoodie_table__fsview(sv->t, in->requested, NULL, NULL, &v)) < 0) break;
        for (size_t g = 0; g < v->group_count && rc == HOODIE_OK; g++) {
            const hoodie_file_slice *sl = hoodie_file_group_latest(&v->groups[g]);
            if (!sl) continue;
            if (sl->base) rc = set_add(out, sl->base->path);
            for (size_t k = 0; k < sl->log_count && rc == HOODIE_OK; k++) rc = set_add(out, sl->logs[k]->path);
        }
        hoodie_fsview_free(v);
    }
    return rc;
}

/* The instant time `hours` before now, in the table's time zone. */
static void hours_ago(char out[18], int64_t hours, int utc)
{
    time_t secs = (time_t)(hoodie_write__now_us() / 1000000) - (time_t)(hours * 3600);
    struct tm tm;
    if (utc) gmtime_r(&secs, &tm);
    else localtime_r(&secs, &tm);
    char buf[64];
    snprintf(buf, sizeof buf, "%04d%02d%02d%02d%02d%02d000", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec);
    memcpy(out, buf, 17);
    out[17] = 0;
}

typedef struct clean_plan {
    const hoodie_instant *earliest;  /* E, NULL if none (file versions, or too few commits) */
    strset parts;                    /* partitions with files to delete */
    strset files;                    /* full paths */
    strset file_parts;               /* partition of each file (parallel to files, duplicates allowed) */
} clean_plan;

static hoodie_status plan_add(clean_plan *p, const char *partition, const char *path)
{
    if (set_has(&p->files, path)) return HOODIE_OK;
    HOODIE_TRY(set_add(&p->parts, partition));
    size_t before = p->files.n;
    HOODIE_TRY(set_add(&p->files, path));
    if (p->files.n == before) return HOODIE_OK;
    /* parallel entry (not deduplicated) */
    if (p->file_parts.n == p->file_parts.cap) {
        size_t nc = p->file_parts.cap ? p->file_parts.cap * 2 : 32;
        char **nv = realloc(p->file_parts.v, nc * sizeof *nv);
        if (!nv) return HOODIE_NOMEM();
        p->file_parts.v = nv;
        p->file_parts.cap = nc;
    }
    if (!(p->file_parts.v[p->file_parts.n] = strdup(partition))) return HOODIE_NOMEM();
    p->file_parts.n++;
    return HOODIE_OK;
}

static hoodie_status slice_add(clean_plan *p, const strset *keep, const char *partition, const hoodie_file_slice *sl)
{
    if (sl->base && !set_has(keep, sl->base->path)) HOODIE_TRY(plan_add(p, partition, sl->base->path));
    for (size_t k = 0; k < sl->log_count; k++)
        if (!set_has(keep, sl->logs[k]->path)) HOODIE_TRY(plan_add(p, partition, sl->logs[k]->path));
    return HOODIE_OK;
}

/* LSM layout: the logs of a retained slice that a log compaction at or before `as_of` replaced (NULL: any
 * completed one); no read as of a retained instant needs them. */
static hoodie_status lsm_replaced_add(hoodie_svc *sv, clean_plan *p, const strset *keep, const char *partition,
                                      const hoodie_file_slice *sl, const char *as_of)
{
    if (sl->log_count < 2 || !hoodie_lsm_slice_sortable(sl)) return HOODIE_OK;
    hoodie_lsm_slice_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scan.storage = sv->s;
    cfg.scan.tl = sv->t->tl;
    cfg.scan.as_of = as_of;
    cfg.scan.schema = &sv->file_schema;
    cfg.scan.rolled_back = (const char *const *)sv->rolled_back_instants;
    cfg.scan.rolled_back_count = sv->n_rolled_back_instants;
    cfg.scan.evo = sv->t->evo;
    uint8_t *replaced = malloc(sl->log_count);
    if (!replaced) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_lsm_slice_replaced_logs(&cfg, sl, replaced);
    for (size_t i = 0; rc == HOODIE_OK && i < sl->log_count; i++)
        if (replaced[i] && !set_has(keep, sl->logs[i]->path)) rc = plan_add(p, partition, sl->logs[i]->path);
    free(replaced);
    return rc;
}

static hoodie_status compute_plan(hoodie_svc *sv, clean_plan *p)
{
    const hoodie_service_opts *o = &sv->o;
    hoodie_instant_list writes = { 0 };
    strset keep = { 0 };
    hoodie_svc_pending_fgs pend = { 0 };
    hoodie_fsview *v = NULL;
    hoodie_status rc = hoodie_timeline_completed_writes(sv->t->tl, NULL, &writes);
    int64_t retain = o->retain > 0 ? o->retain
                   : o->clean_policy == HOODIE_CLEAN_KEEP_LATEST_FILE_VERSIONS ? 3
                   : o->clean_policy == HOODIE_CLEAN_KEEP_LATEST_BY_HOURS ? 24 : 10;
    if (rc == HOODIE_OK && writes.count) {
        if (o->clean_policy == HOODIE_CLEAN_KEEP_LATEST_COMMITS) {
            if ((int64_t)writes.count > retain) p->earliest = writes.items[writes.count - (size_t)retain];
        } else if (o->clean_policy == HOODIE_CLEAN_KEEP_LATEST_BY_HOURS) {
            char cut[18];
            hours_ago(cut, retain, sv->t->cfg->timeline_timezone_utc);
            p->earliest = writes.items[writes.count - 1];
            for (size_t i = 0; i < writes.count; i++)
                if (strcmp(writes.items[i]->requested, cut) >= 0) { p->earliest = writes.items[i]; break; }
        }
    }
    /* LSM layout: replaced logs go once the log compaction's file applies as of E (its instant is that of the
     * latest log it compacted), so that every read as of a retained instant skips them; by file versions, once
     * the log compaction completed */
    int lsm = 0;
    const char *lsm_as_of = NULL;
    if (rc == HOODIE_OK && sv->t->cfg->lsm_tree) {
        lsm = o->clean_policy == HOODIE_CLEAN_KEEP_LATEST_FILE_VERSIONS || p->earliest;
        lsm_as_of = p->earliest ? p->earliest->requested : NULL;
        if (lsm && (rc = hoodie_svc__load_schema(sv)) == HOODIE_ENOTFOUND) { hoodie_error_clear(); lsm = 0; rc = HOODIE_OK; }
    }
    if (rc == HOODIE_OK) rc = savepointed(sv, &keep);
    if (rc == HOODIE_OK) rc = hoodie_svc__pending_file_groups(sv, &pend);
    int by_versions = o->clean_policy == HOODIE_CLEAN_KEEP_LATEST_FILE_VERSIONS;
    /* replaced file groups: every slice, once the replacecommit is out of retention */
    hoodie_replaced_set rep = { 0 };
    if (rc == HOODIE_OK && (by_versions || p->earliest)) {
        const char *before = NULL;
        rc = hoodie_table__replaced(sv->t, NULL, &rep);
        (void)before;
    }
    if (rc == HOODIE_OK) {
        hoodie_fsview_opts vo = { 0 };
        rc = hoodie_fsview_build(&v, sv->s, sv->base_path, sv->t->cfg, sv->t->tl, &vo); /* replaced groups kept */
    }
    for (size_t g = 0; rc == HOODIE_OK && v && g < v->group_count; g++) {
        const hoodie_file_group *fg = &v->groups[g];
        if (hoodie_svc__pending_has(&pend, fg->partition, fg->file_id)) continue;
        int replaced = 0;
        for (size_t r = 0; r < rep.count && !replaced; r++) {
            if (strcmp(rep.partitions[r], fg->partition) || strcmp(rep.file_ids[r], fg->file_id)) continue;
            /* which replacecommit: the first one naming it */
            for (size_t m = 0; m < rep.meta_count && !replaced; m++) (void)m;
            replaced = 1;
        }
        if (replaced) {
            /* eligible when a completed replacecommit naming it is before E (any, by versions) */
            int eligible = by_versions;
            const hoodie_timeline *tl = sv->t->tl;
            for (size_t i = 0; i < tl->count && !eligible; i++) {
                const hoodie_instant *in = &tl->instants[i];
                if (in->state != HOODIE_STATE_COMPLETED || in->action != HOODIE_ACTION_REPLACECOMMIT) continue;
                if (!p->earliest || strcmp(in->requested, p->earliest->requested) >= 0) continue;
                hoodie_commit_meta *m;
                if ((rc = hoodie_table__commit_meta(sv->t, in, &m)) < 0) break;
                for (size_t r = 0; r < m->replaced_count && !eligible; r++) {
                    if (strcmp(m->replaced[r].partition_path, fg->partition)) continue;
                    for (size_t k = 0; k < m->replaced[r].count; k++)
                        if (!strcmp(m->replaced[r].file_ids[k], fg->file_id)) eligible = 1;
                }
                hoodie_commit_meta_free(m);
            }
            for (size_t s = 0; eligible && s < fg->slice_count && rc == HOODIE_OK; s++)
                rc = slice_add(p, &keep, fg->partition, &fg->slices[s]);
            continue;
        }
        /* slices [0, first_kept) go: by versions all but the latest `retain`; by commits those older than the
         * newest slice before E (it serves reads as of E; the latest is always kept) */
        size_t first_kept = 0;
        if (fg->slice_count >= 2 && by_versions) {
            if (fg->slice_count > (size_t)retain) first_kept = fg->slice_count - (size_t)retain;
        } else if (fg->slice_count >= 2 && p->earliest) {
            first_kept = fg->slice_count - 1;
            while (first_kept > 0 && strcmp(fg->slices[first_kept].base_instant, p->earliest->requested) >= 0)
                first_kept--;
        }
        for (size_t k = 0; k < first_kept && rc == HOODIE_OK; k++) rc = slice_add(p, &keep, fg->partition, &fg->slices[k]);
        for (size_t k = first_kept; lsm && k < fg->slice_count && rc == HOODIE_OK; k++)
            rc = lsm_replaced_add(sv, p, &keep, fg->partition, &fg->slices[k], lsm_as_of);
    }
    hoodie_replaced_set_dispose(&rep);
    hoodie_fsview_free(v);
    hoodie_svc__pending_dispose(&pend);
    set_dispose(&keep);
    hoodie_instant_list_dispose(&writes);
    return rc;
}

/* The CDC logs of a directory whose (file id, instant) is in `bases`, added to the plan (hoodie.table.cdc.enabled). */
typedef struct cdc_list { clean_plan *p; const strset *bases; const char *dir, *partition; hoodie_status rc; } cdc_list;

static int cdc_collect(const hoodie_dirent *e, void *payload)
{
    cdc_list *l = payload;
    hoodie_file_name fn;
    if (e->is_dir || hoodie_file_name_parse(&fn, e->name) != HOODIE_FILE_LOG || !fn.cdc) return 0;
    char id[256], *path;
    snprintf(id, sizeof id, "%.*s_%.*s", (int)fn.file_id.len, fn.file_id.p, (int)fn.instant.len, fn.instant.p);
    if (!set_has(l->bases, id)) return 0;
    if (!(path = malloc(strlen(l->dir) + strlen(e->name) + 2))) { l->rc = HOODIE_NOMEM(); return 1; }
    sprintf(path, "%s/%s", l->dir, e->name);
    l->rc = plan_add(l->p, l->partition, path);
    free(path);
    return l->rc < 0;
}

/* The CDC logs that describe the base files the plan deletes (same file id and instant) go with them, as Hudi's
 * cleaner deletes a slice's CDC logs with it; each directory that loses a base file is listed once. */
static hoodie_status cdc_logs_add(hoodie_svc *sv, clean_plan *p)
{
    size_t n = p->files.n;
    strset dirs = { 0 };
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < n && rc == HOODIE_OK; i++) {
        const char *name = strrchr(p->files.v[i], '/');
        hoodie_file_name fn;
        if (!name || hoodie_file_name_parse(&fn, name + 1) != HOODIE_FILE_BASE) continue;
        size_t dl = (size_t)(name - p->files.v[i]);
        char *dir = strndup(p->files.v[i], dl);
        if (!dir) { rc = HOODIE_NOMEM(); break; }
        if (set_has(&dirs, dir)) { free(dir); continue; }
        rc = set_add(&dirs, dir);
        /* "<file id>_<instant>" of the planned base files of this directory */
        strset bases = { 0 };
        for (size_t k = i; k < n && rc == HOODIE_OK; k++) {
            const char *bn = strrchr(p->files.v[k], '/');
            hoodie_file_name bf;
            if (!bn || (size_t)(bn - p->files.v[k]) != dl || strncmp(p->files.v[k], dir, dl) ||
                hoodie_file_name_parse(&bf, bn + 1) != HOODIE_FILE_BASE)
                continue;
            char id[256];
            snprintf(id, sizeof id, "%.*s_%.*s", (int)bf.file_id.len, bf.file_id.p, (int)bf.instant.len, bf.instant.p);
            rc = set_add(&bases, id);
        }
        cdc_list l = { p, &bases, dir, p->file_parts.v[i], HOODIE_OK };
        if (rc == HOODIE_OK) rc = sv->s->list(sv->s->ctx, dir, cdc_collect, &l);
        if (rc == HOODIE_OK) rc = l.rc;
        set_dispose(&bases);
        free(dir);
    }
    set_dispose(&dirs);
    return rc;
}

static json_t *action_instant(const hoodie_instant *in)
{
    if (!in) return json_null();
    json_t *o = json_object();
    if (hoodie_svc__set(o, "timestamp", json_string(in->requested)) < 0 ||
        hoodie_svc__set(o, "action", json_string(hoodie_action_name(in->action))) < 0 ||
        hoodie_svc__set(o, "state", json_string("COMPLETED")) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *plan_json(const clean_plan *p, const char *policy)
{
    json_t *root = json_object(), *per = json_object();
    int bad = !root || !per;
    for (size_t k = 0; !bad && k < p->parts.n; k++) {
        json_t *arr = json_array();
        bad |= !arr;
        for (size_t i = 0; !bad && i < p->files.n; i++) {
            if (strcmp(p->file_parts.v[i], p->parts.v[k])) continue;
            json_t *fi = json_object();
            bad |= hoodie_svc__set(fi, "filePath", json_string(p->files.v[i])) < 0;
            bad |= hoodie_svc__set(fi, "isBootstrapBaseFile", json_false()) < 0;
            bad |= json_array_append_new(arr, fi) < 0;
        }
        bad |= hoodie_svc__set(per, p->parts.v[k], arr) < 0;
    }
    bad |= hoodie_svc__set(root, "earliestInstantToRetain", action_instant(p->earliest)) < 0;
    bad |= hoodie_svc__set(root, "policy", json_string(policy)) < 0;
    bad |= hoodie_svc__set(root, "filesToBeDeletedPerPartition", json_object()) < 0;
    bad |= hoodie_svc__set(root, "version", json_integer(2)) < 0;
    bad |= hoodie_svc__set(root, "filePathsToBeDeletedPerPartition", per) < 0;
    per = NULL;
    bad |= hoodie_svc__set(root, "partitionsToBeDeleted", json_array()) < 0;
    if (bad) { json_decref(root); json_decref(per); return NULL; }
    return root;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Execute a plan (decoded HoodieCleanerPlan) and complete the clean instant. */
static hoodie_status execute(hoodie_svc *sv, hoodie_write_txn *tx, json_t *plan, int64_t start_us,
                             hoodie_service_result *res)
{
    json_t *per = json_object_get(plan, "filePathsToBeDeletedPerPartition");
    json_t *old = json_object_get(plan, "filesToBeDeletedPerPartition");
    const char *policy = json_string_value(json_object_get(plan, "policy"));
    json_t *eitr = json_object_get(plan, "earliestInstantToRetain");
    const char *earliest = json_string_value(json_object_get(eitr, "timestamp"));
    json_t *pm = json_object();
    hoodie_status rc = pm ? HOODIE_OK : HOODIE_NOMEM();
    int64_t deleted = 0, total = 0;
    const char *part;
    json_t *files;
    json_object_foreach(per, part, files) total += (int64_t)json_array_size(files);
    json_object_foreach(old, part, files) if (!json_object_get(per, part)) total += (int64_t)json_array_size(files);
    if (total) hoodie_svc__progress(sv, "clean: files", 0, total);
    json_object_foreach(per, part, files) {
        if (rc < 0) break;
        json_t *e = json_object(), *ok = json_array(), *failed = json_array(), *pats = json_array();
        int bad = !e || !ok || !failed || !pats;
        for (size_t i = 0; !bad && rc == HOODIE_OK && i < json_array_size(files); i++) {
            const char *fp = json_string_value(json_object_get(json_array_get(files, i), "filePath"));
            if (!fp) continue;
            rc = hoodie_svc__remove(sv->s, fp);
            if (rc < 0) break;
            deleted++;
            if ((deleted & 63) == 0 || deleted == total) hoodie_svc__progress(sv, "clean: files", deleted, total);
            bad |= json_array_append_new(pats, json_string(base_name(fp))) < 0;
            bad |= json_array_append_new(ok, json_string(base_name(fp))) < 0;
        }
        bad |= hoodie_svc__set(e, "partitionPath", json_string(part)) < 0;
        bad |= hoodie_svc__set(e, "policy", json_string(policy ? policy : "")) < 0;
        bad |= hoodie_svc__set(e, "deletePathPatterns", pats) < 0;
        bad |= hoodie_svc__set(e, "successDeleteFiles", ok) < 0;
        bad |= hoodie_svc__set(e, "failedDeleteFiles", failed) < 0;
        bad |= hoodie_svc__set(e, "isPartitionDeleted", json_false()) < 0;
        bad |= hoodie_svc__set(pm, part, e) < 0;
        if (bad && rc == HOODIE_OK) rc = HOODIE_NOMEM();
    }
    /* version-1 plans: file names per partition */
    json_object_foreach(old, part, files) {
        if (rc < 0 || json_object_get(pm, part)) break;
        json_t *e = json_object(), *ok = json_array();
        int bad = !e || !ok;
        for (size_t i = 0; !bad && rc == HOODIE_OK && i < json_array_size(files); i++) {
            const char *n = json_string_value(json_array_get(files, i));
            char *fp = n ? hoodie_svc__file_path(sv, part, n) : NULL;
            if (!fp) continue;
            rc = hoodie_svc__remove(sv->s, fp);
            free(fp);
            if (rc == HOODIE_OK) { deleted++; bad |= json_array_append_new(ok, json_string(n)) < 0; }
            if (rc == HOODIE_OK && ((deleted & 63) == 0 || deleted == total))
                hoodie_svc__progress(sv, "clean: files", deleted, total);
        }
        bad |= hoodie_svc__set(e, "partitionPath", json_string(part)) < 0;
        bad |= hoodie_svc__set(e, "policy", json_string(policy ? policy : "")) < 0;
        bad |= hoodie_svc__set(e, "deletePathPatterns", json_array()) < 0;
        bad |= hoodie_svc__set(e, "successDeleteFiles", ok) < 0;
        bad |= hoodie_svc__set(e, "failedDeleteFiles", json_array()) < 0;
        bad |= hoodie_svc__set(e, "isPartitionDeleted", json_false()) < 0;
        bad |= hoodie_svc__set(pm, part, e) < 0;
        if (bad && rc == HOODIE_OK) rc = HOODIE_NOMEM();
    }
    if (rc == HOODIE_OK && total && deleted != total) hoodie_svc__progress(sv, "clean: files", total, total);
    const hoodie_instant *last = hoodie_timeline_last_completed(sv->t->tl, HOODIE_ACTIONS_WRITE);
    json_t *meta = rc == HOODIE_OK ? json_object() : NULL;
    if (rc == HOODIE_OK) {
        int bad = !meta;
        bad |= hoodie_svc__set(meta, "policy", json_string(policy ? policy : "")) < 0;
        bad |= hoodie_svc__set(meta, "startCleanTime", json_string(tx->inst.requested)) < 0;
        bad |= hoodie_svc__set(meta, "timeTakenInMillis", json_integer((hoodie_write__now_us() - start_us) / 1000)) < 0;
        bad |= hoodie_svc__set(meta, "totalFilesDeleted", json_integer(deleted)) < 0;
        bad |= hoodie_svc__set(meta, "earliestCommitToRetain", json_string(earliest ? earliest : "")) < 0;
        bad |= hoodie_svc__set(meta, "lastCompletedCommitTimestamp", json_string(last ? last->requested : "")) < 0;
        bad |= hoodie_svc__set(meta, "partitionMetadata", pm) < 0;
        pm = NULL;
        bad |= hoodie_svc__set(meta, "version", json_integer(2)) < 0;
        bad |= hoodie_svc__set(meta, "bootstrapPartitionMetadata", json_object()) < 0;
        if (bad) rc = HOODIE_NOMEM();
    }
    hoodie_buf content = HOODIE_BUF_INIT;
    if (rc == HOODIE_OK) { rc = hoodie_svc__ocf(&content, hoodie_svc__schema_clean_meta, meta); meta = NULL; }
    if (rc == HOODIE_OK) rc = hoodie_write__complete_unlocked(tx, content.data, content.len);
    if (rc == HOODIE_OK) {
        snprintf(res->instant, sizeof res->instant, "%s", tx->inst.requested);
        res->files_deleted += deleted;
        res->instants++;
    }
    hoodie_buf_dispose(&content);
    json_decref(meta);
    json_decref(pm);
    return rc;
}

hoodie_status hoodie_clean(const char *base_path, const hoodie_service_opts *opts, hoodie_service_result *result)
{
    hoodie_svc sv;
    hoodie_service_result res;
    clean_plan p;
    hoodie_write_txn tx;
    int have_tx = 0;
    json_t *plan = NULL;
    hoodie_buf content = HOODIE_BUF_INIT;
    int64_t start = hoodie_write__now_us();
    memset(&res, 0, sizeof res);
    memset(&p, 0, sizeof p);
    hoodie_status rc = hoodie_svc__open(&sv, base_path, opts, HOODIE_SVC_RECOVER | HOODIE_SVC_FILES);
    res.rolled_back = sv.rolled_back;
    if (rc == HOODIE_OK && (unsigned)sv.o.clean_policy > HOODIE_CLEAN_KEEP_LATEST_BY_HOURS)
        rc = HOODIE_FAIL(HOODIE_EINVAL, "clean: unknown policy %d", (int)sv.o.clean_policy);
    /* a pending clean is finished first, from its plan */
    const hoodie_instant *pending = NULL;
    for (size_t i = 0; rc == HOODIE_OK && i < sv.t->tl->count; i++) {
        const hoodie_instant *in = &sv.t->tl->instants[i];
        if (in->action == HOODIE_ACTION_CLEAN && in->state != HOODIE_STATE_COMPLETED) { pending = in; break; }
    }
    if (rc == HOODIE_OK && pending) {
        rc = hoodie_svc__resume(&sv, &tx, pending);
        have_tx = rc == HOODIE_OK;
        if (rc == HOODIE_OK) rc = hoodie_svc__read_record(&sv, pending, HOODIE_STATE_REQUESTED, &plan);
        if (rc == HOODIE_OK && !plan) rc = HOODIE_CORRUPT("%s: empty clean plan", pending->requested);
        if (rc == HOODIE_OK && tx.inst.state == HOODIE_STATE_REQUESTED) {
            rc = hoodie_svc__ocf(&content, hoodie_svc__schema_cleaner_plan, json_incref(plan));
            if (rc == HOODIE_OK) rc = hoodie_write__inflight(&tx, content.data, content.len);
        }
        if (rc == HOODIE_OK) rc = execute(&sv, &tx, plan, start, &res);
        goto done;
    }
    if (rc == HOODIE_OK) rc = compute_plan(&sv, &p);
    if (rc == HOODIE_OK && sv.t->cfg->cdc) rc = cdc_logs_add(&sv, &p);
    if (rc == HOODIE_OK && p.files.n) {
        plan = plan_json(&p, POLICY_NAMES[sv.o.clean_policy]);
        if (!plan) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) rc = hoodie_svc__ocf(&content, hoodie_svc__schema_cleaner_plan, json_incref(plan));
        if (rc == HOODIE_OK) rc = hoodie_svc__begin(&sv, &tx, HOODIE_ACTION_CLEAN, content.data, content.len);
        have_tx = rc == HOODIE_OK;
        if (rc == HOODIE_OK) rc = hoodie_write__inflight(&tx, content.data, content.len);
        if (rc == HOODIE_OK) rc = execute(&sv, &tx, plan, start, &res);
    }
done:
    if (have_tx) hoodie_write__txn_dispose(&tx);
    json_decref(plan);
    hoodie_buf_dispose(&content);
    set_dispose(&p.parts);
    set_dispose(&p.files);
    set_dispose(&p.file_parts);
    hoodie_svc__close(&sv);
    if (result) *result = res;
    return rc;
}
