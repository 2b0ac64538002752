/* Commit protocol of write instants (see commit.h). */
#include "write/commit.h"
#include "write/mdt.h"
#include "write/create.h"
#include "write/lock.h"
#include "storage/storage.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *hoodie_write__path(const char *base_path, const char *rel)
{
    size_t lb = strlen(base_path), lr = strlen(rel);
    while (lb > 1 && base_path[lb - 1] == '/') lb--;
    char *p = malloc(lb + lr + 2);
    if (!p) return NULL;
    memcpy(p, base_path, lb);
    size_t o = lb;
    if (lr) { p[o++] = '/'; memcpy(p + o, rel, lr); o += lr; }
    p[o] = 0;
    return p;
}

/* ---- times ---- */

static void format_time(char out[18], int64_t ms, int utc)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    if (utc) gmtime_r(&secs, &tm);
    else localtime_r(&secs, &tm);
    char buf[64];
    snprintf(buf, sizeof buf, "%04d%02d%02d%02d%02d%02d%03d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
    memcpy(out, buf, 17); /* years past 9999 are out of scope */
    out[17] = 0;
}

/* floor + 1 ms, with field arithmetic on the naive date-time (no time zone involved). */
static int next_after(char out[18], const char *floor)
{
    char f[18];
    size_t n = strlen(floor);
    if (n < 14 || n > 17) return -1;
    memcpy(f, floor, n);
    for (size_t i = n; i < 17; i++) f[i] = '0';
    f[17] = 0;
    struct tm tm = { 0 };
    int ms;
    if (sscanf(f, "%4d%2d%2d%2d%2d%2d%3d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &ms) != 7)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);
    if (t == (time_t)-1) return -1;
    format_time(out, (int64_t)t * 1000 + ms + 1, 1);
    return 0;
}

static int time_cmp(const char *a, const char *b)
{
    /* legacy 14-digit times compare as if padded with zeros */
    size_t la = strlen(a), lb = strlen(b), n = la > lb ? la : lb;
    for (size_t i = 0; i < n; i++) {
        char ca = i < la ? a[i] : '0', cb = i < lb ? b[i] : '0';
        if (ca != cb) return ca < cb ? -1 : 1;
    }
    return 0;
}

hoodie_status hoodie_write__new_time(char out[18], int utc, const char *floor)
{
    format_time(out, hoodie_write__now_us() / 1000, utc);
    if (floor && *floor && time_cmp(out, floor) <= 0) {
        /* the clock is behind the timeline (skew, or several instants in one millisecond): go past it */
        if (next_after(out, floor) < 0)
            return HOODIE_FAIL(HOODIE_EINVAL, "instant time '%s' on the timeline is not yyyyMMddHHmmss[SSS]", floor);
    }
    return HOODIE_OK;
}

void hoodie_write__timeline_max(const hoodie_timeline *tl, char out[HOODIE_INSTANT_TIME_MAX + 1])
{
    out[0] = 0;
    for (size_t i = 0; tl && i < tl->count; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (time_cmp(in->requested, out) > 0) snprintf(out, HOODIE_INSTANT_TIME_MAX + 1, "%s", in->requested);
        if (in->completion[0] && time_cmp(in->completion, out) > 0)
            snprintf(out, HOODIE_INSTANT_TIME_MAX + 1, "%s", in->completion);
    }
}

/* ---- protocol ---- */

static hoodie_status state_path(hoodie_write_txn *tx, hoodie_instant_state st, char **out)
{
    char name[128];
    HOODIE_TRY(hoodie_instant_file_name(&tx->inst, st, tx->layout, name, sizeof name));
    *out = hoodie_write__path(tx->timeline_dir, name);
    return *out ? HOODIE_OK : HOODIE_NOMEM();
}

static hoodie_status load_max(const hoodie_write_txn *tx, char max[HOODIE_INSTANT_TIME_MAX + 1])
{
    hoodie_timeline *tl = NULL;
    HOODIE_TRY(hoodie_timeline_load_dir(&tl, tx->s, tx->timeline_dir, tx->layout));
    hoodie_write__timeline_max(tl, max);
    hoodie_timeline_free(tl);
    return HOODIE_OK;
}

hoodie_status hoodie_write__begin(hoodie_write_txn *tx, const hoodie_storage *s, const char *base_path,
                                  const hoodie_table_config *cfg, hoodie_action action, const void *requested,
                                  size_t len)
{
    hoodie_status rc = HOODIE_OK;
    char max[HOODIE_INSTANT_TIME_MAX + 1], t[18];
    char *path = NULL;
    memset(tx, 0, sizeof *tx);
    if (action != HOODIE_ACTION_COMMIT && action != HOODIE_ACTION_DELTACOMMIT && action != HOODIE_ACTION_REPLACECOMMIT)
        return HOODIE_FAIL(HOODIE_EINVAL, "write instant: action '%s' is not a write action",
                           hoodie_action_name(action) ? hoodie_action_name(action) : "?");
    if (cfg->version != 6 && cfg->version != 8)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "write instant: hoodie writes table versions 6 and 8, not %d",
                           cfg->version);
    tx->s = hoodie_storage__or_default(s);
    tx->table_version = cfg->version;
    tx->mdt = hoodie_write__mdt_mode(cfg);
    tx->layout = cfg->timeline_layout_version;
    tx->utc = cfg->timeline_timezone_utc;
    tx->base_path = hoodie_write__path(base_path, "");
    tx->timeline_dir = hoodie_write__path(base_path, cfg->timeline_dir);
    if (!tx->base_path || !tx->timeline_dir) { rc = HOODIE_NOMEM(); goto fail; }
    HOODIE_TRY_GOTO(rc, load_max(tx, max), fail);
    for (int attempt = 0; attempt < 16; attempt++) {
        HOODIE_TRY_GOTO(rc, hoodie_write__new_time(t, tx->utc, max), fail);
        memset(&tx->inst, 0, sizeof tx->inst);
        memcpy(tx->inst.requested, t, 18);
        tx->inst.action = tx->inst.plan_action = action;
        tx->inst.state = HOODIE_STATE_REQUESTED;
        free(path);
        path = NULL;
        HOODIE_TRY_GOTO(rc, state_path(tx, HOODIE_STATE_REQUESTED, &path), fail);
        /* the heartbeat first: a recovering writer that sees the instant sees that it has a live writer */
        rc = hoodie_write__heartbeat_start(tx->s, tx->base_path, t);
        if (rc == HOODIE_OK) {
            rc = hoodie_storage_write_all(tx->s, path, HOODIE_CREATE_EXCLUSIVE, requested ? requested : "", len);
            if (rc == HOODIE_OK) tx->beating = 1;
            else hoodie_write__heartbeat_stop(tx->s, tx->base_path, t);
        }
        if (rc != HOODIE_EEXISTS) break;
        hoodie_error_clear();
        memcpy(max, t, 18); /* taken by a concurrent writer: go past it */
    }
    if (rc < 0) goto fail;
    free(path);
    return HOODIE_OK;
fail:
    hoodie_error__prefix("start %s instant: ", hoodie_action_name(action) ? hoodie_action_name(action) : "?");
    free(path);
    hoodie_write__txn_dispose(tx);
    return rc;
}

static const char *const marker_names[] = { "CREATE", "MERGE", "APPEND" };

hoodie_status hoodie_write__marker(hoodie_write_txn *tx, const char *partition, const char *file_name,
                                   hoodie_marker_type type)
{
    hoodie_buf rel = HOODIE_BUF_INIT;
    char *path = NULL, *dir = NULL;
    hoodie_status rc;
    if ((unsigned)type > HOODIE_MARKER_APPEND) return HOODIE_FAIL(HOODIE_EINVAL, "marker: bad IO type %d", (int)type);
    rc = hoodie_buf_printf(&rel, ".hoodie/.temp/%s%s%s", tx->inst.requested, partition && *partition ? "/" : "",
                           partition ? partition : "");
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&rel);
    if (rc < 0) goto done;
    dir = hoodie_write__path(tx->base_path, (const char *)rel.data);
    hoodie_buf_clear(&rel);
    if (!dir || hoodie_buf_printf(&rel, "%s.marker.%s", file_name, marker_names[type]) < 0) { rc = HOODIE_NOMEM(); goto done; }
    path = hoodie_write__path(dir, (const char *)rel.data);
    if (!path) { rc = HOODIE_NOMEM(); goto done; }
    HOODIE_TRY_GOTO(rc, tx->s->mkdirs(tx->s->ctx, dir), done);
    /* an object store may upload it in the background: every file this writer finishes later waits for it */
    rc = hoodie_storage_write_all(tx->s, path, HOODIE_CREATE_EXCLUSIVE | HOODIE_CREATE_DEFER_SYNC |
                                  HOODIE_CREATE_DEFER_VISIBLE | HOODIE_CREATE_BARRIER, "", 0);
done:
    if (rc < 0) hoodie_error__prefix("marker of '%s': ", file_name);
    hoodie_buf_dispose(&rel);
    free(dir);
    free(path);
    return rc;
}

hoodie_status hoodie_write__inflight(hoodie_write_txn *tx, const void *content, size_t len)
{
    char *path = NULL;
    hoodie_status rc;
    if (tx->inst.state != HOODIE_STATE_REQUESTED)
        return HOODIE_FAIL(HOODIE_ESTATE, "instant %s is not requested", tx->inst.requested);
    HOODIE_TRY(state_path(tx, HOODIE_STATE_INFLIGHT, &path));
    rc = hoodie_storage_write_all(tx->s, path, HOODIE_CREATE_EXCLUSIVE, content ? content : "", len);
    free(path);
    if (rc == HOODIE_OK) tx->inst.state = HOODIE_STATE_INFLIGHT;
    else hoodie_error__prefix("inflight %s: ", tx->inst.requested);
    return rc;
}

hoodie_status hoodie_write__complete(hoodie_write_txn *tx, const void *content, size_t len)
{
    char *path = NULL, *markers = NULL;
    char max[HOODIE_INSTANT_TIME_MAX + 1], c[18];
    hoodie_status rc = HOODIE_OK;
    if (tx->inst.state != HOODIE_STATE_INFLIGHT)
        return HOODIE_FAIL(HOODIE_ESTATE, "instant %s is not inflight", tx->inst.requested);
    /* a metadata table created since this instant began (hoodie_write__mdt_init) must have its changes too */
    if (!tx->mdt && tx->table_version == 8 && tx->s->exists) {
        char *mp = hoodie_write__path(tx->base_path, ".hoodie/metadata/.hoodie/hoodie.properties");
        if (!mp) { rc = HOODIE_NOMEM(); goto done; }
        if (tx->s->exists(tx->s->ctx, mp) == 1) {
            hoodie_table_config *cfg = NULL;
            rc = hoodie_table_config_load(&cfg, tx->s, tx->base_path, 0);
            if (rc == HOODIE_OK) tx->mdt = hoodie_write__mdt_mode(cfg);
            hoodie_table_config_free(cfg);
        }
        free(mp);
        if (rc < 0) goto done;
    }
    /* the metadata table first: readers count its deltacommit once this instant completes */
    HOODIE_TRY_GOTO(rc, hoodie_write__mdt_apply(tx, content, len), done);
    if (tx->layout == 2) {
        HOODIE_TRY_GOTO(rc, load_max(tx, max), done);
        HOODIE_TRY_GOTO(rc, hoodie_write__new_time(c, tx->utc, max), done);
        memcpy(tx->inst.completion, c, 18);
    }
    HOODIE_TRY_GOTO(rc, state_path(tx, HOODIE_STATE_COMPLETED, &path), done);
    /* the commit point */
    rc = hoodie_storage_write_all(tx->s, path, HOODIE_CREATE_EXCLUSIVE, content ? content : "", len);
    if (rc < 0) goto done;
    tx->inst.state = HOODIE_STATE_COMPLETED;
    char rel[64];
    snprintf(rel, sizeof rel, ".hoodie/.temp/%s", tx->inst.requested);
    markers = hoodie_write__path(tx->base_path, rel);
    if (markers) (void)hoodie_storage_remove_tree(tx->s, markers); /* committed whatever happens here */
done:
    if (rc < 0) {
        tx->inst.completion[0] = 0;
        hoodie_error__prefix("complete %s: ", tx->inst.requested);
    }
    free(path);
    free(markers);
    return rc;
}

hoodie_status hoodie_write__complete_unlocked(hoodie_write_txn *tx, const void *content, size_t len)
{
    if (tx->mdt <= 0) return hoodie_write__complete(tx, content, len);
    hoodie_table_lock lock;
    HOODIE_TRY(hoodie_write__lock(&lock, tx->s, tx->base_path, -1));
    hoodie_status rc = hoodie_write__complete(tx, content, len);
    if (hoodie_write__unlock(&lock) < 0 && rc == HOODIE_OK) hoodie_error_clear(); /* committed */
    return rc;
}

hoodie_status hoodie_write__completed_preview(const hoodie_write_txn *tx, char **path_out)
{
    char max[HOODIE_INSTANT_TIME_MAX + 1], c[18];
    *path_out = NULL;
    if (tx->inst.state != HOODIE_STATE_INFLIGHT)
        return HOODIE_FAIL(HOODIE_ESTATE, "instant %s is not inflight", tx->inst.requested);
    hoodie_instant in = tx->inst;
    if (tx->layout == 2) {
        HOODIE_TRY(load_max(tx, max));
        HOODIE_TRY(hoodie_write__new_time(c, tx->utc, max));
        memcpy(in.completion, c, 18);
    }
    char name[128];
    HOODIE_TRY(hoodie_instant_file_name(&in, HOODIE_STATE_COMPLETED, tx->layout, name, sizeof name));
    *path_out = hoodie_write__path(tx->timeline_dir, name);
    return *path_out ? HOODIE_OK : HOODIE_NOMEM();
}

void hoodie_write__txn_dispose(hoodie_write_txn *tx)
{
    if (!tx) return;
    if (tx->beating) hoodie_write__heartbeat_stop(tx->s, tx->base_path, tx->inst.requested);
    tx->beating = 0;
    free(tx->base_path);
    free(tx->timeline_dir);
    tx->base_path = tx->timeline_dir = NULL;
}
