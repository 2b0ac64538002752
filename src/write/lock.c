/* The table lock and writer heartbeats (see lock.h). */
#define _GNU_SOURCE
#include "write/lock.h"
#include "write/commit.h"
#include "write/create.h"
#include "storage/storage.h"
#include "util/error.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- who we are ---- */

typedef struct ident {
    char boot[64];               /* /proc/sys/kernel/random/boot_id, or the host name */
    long pid;
    unsigned long long start;    /* process start time in clock ticks since boot (0: unknown) */
} ident;

static unsigned long long proc_start(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (!p) return 0;
    /* after the name: field 3 (state) onwards, one space apart; field 22 is the start time */
    for (int field = 3; field <= 22; field++) { /* p: the space before `field` */
        p = strchr(p + 1, ' ');
        if (!p) return 0;
    }
    return strtoull(p + 1, NULL, 10);
}

static pthread_once_t self_once = PTHREAD_ONCE_INIT;
static ident self_id;

static void self_init(void)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f || !fgets(self_id.boot, sizeof self_id.boot, f)) {
        if (gethostname(self_id.boot, sizeof self_id.boot - 1) < 0) snprintf(self_id.boot, sizeof self_id.boot, "?");
    }
    if (f) fclose(f);
    self_id.boot[strcspn(self_id.boot, "\r\n \t")] = 0;
    self_id.pid = (long)getpid();
    self_id.start = proc_start(self_id.pid);
}

static const ident *self(void)
{
    pthread_once(&self_once, self_init);
    return &self_id;
}

static int ident_text(char *out, size_t cap)
{
    const ident *me = self();
    return snprintf(out, cap, "hoodie-writer boot=%s pid=%ld start=%llu\n", me->boot, me->pid, me->start);
}

static int ident_parse(const char *text, ident *out)
{
    memset(out, 0, sizeof *out);
    return sscanf(text, "hoodie-writer boot=%63s pid=%ld start=%llu", out->boot, &out->pid, &out->start) == 3;
}

/* ---- what this process holds: locks, and the instants it beats for ---- */

typedef struct held {
    char *key;          /* lock path, or heartbeat path */
    int64_t last_us;    /* heartbeats: time of the last beat */
} held;

static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static held *held_v;
static size_t held_n;

static hoodie_status held_add(const char *key)
{
    hoodie_status rc = HOODIE_OK;
    pthread_mutex_lock(&held_mu);
    held *nv = realloc(held_v, (held_n + 1) * sizeof *nv);
    if (nv) held_v = nv;
    char *k = nv ? strdup(key) : NULL;
    if (!k) rc = HOODIE_NOMEM();
    else held_v[held_n++] = (held){ k, hoodie_write__now_us() };
    pthread_mutex_unlock(&held_mu);
    return rc;
}

static void held_remove(const char *key)
{
    pthread_mutex_lock(&held_mu);
    for (size_t i = 0; i < held_n; i++)
        if (!strcmp(held_v[i].key, key)) {
            free(held_v[i].key);
            held_v[i] = held_v[--held_n];
            break;
        }
    if (!held_n) { free(held_v); held_v = NULL; }
    pthread_mutex_unlock(&held_mu);
}

/* 1 if held; with due_us > 0, also whether a beat is due (2) and, if so, the beat time is set to now */
static int held_check(const char *key, int64_t due_us)
{
    int r = 0;
    pthread_mutex_lock(&held_mu);
    for (size_t i = 0; i < held_n && !r; i++)
        if (!strcmp(held_v[i].key, key)) {
            r = 1;
            int64_t now = hoodie_write__now_us();
            if (due_us > 0 && now - held_v[i].last_us >= due_us) { held_v[i].last_us = now; r = 2; }
        }
    pthread_mutex_unlock(&held_mu);
    return r;
}

/*
 * Whether the owner named by `text` (a lock's or heartbeat's content) is alive: 1 alive, 0 dead, -1 cannot tell
 * (another machine, or not written by hoodie). `key` is what this process would hold if it were the owner.
 */
static int owner_alive(const char *text, const char *key)
{
    ident o;
    const ident *me = self();
    if (!ident_parse(text, &o) || strcmp(o.boot, me->boot)) return -1;
    if (o.pid == me->pid && o.start == me->start) return held_check(key, 0) != 0;
    if (o.start && me->start) return proc_start(o.pid) == o.start; /* a reused pid starts at another time */
    return kill((pid_t)o.pid, 0) == 0 || errno == EPERM;
}

/* ---- the table lock ---- */

static void sleep_ms(int64_t ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

hoodie_status hoodie_write__lock(hoodie_table_lock *l, const hoodie_storage *s, const char *base_path, int64_t wait_ms)
{
    char me[160];
    int n = ident_text(me, sizeof me);
    memset(l, 0, sizeof l[0]);
    l->s = hoodie_storage__or_default(s);
    if (wait_ms < 0) {
        const char *e = getenv("HOODIE_LOCK_WAIT_MS");
        wait_ms = e && *e ? strtoll(e, NULL, 10) : HOODIE_LOCK_WAIT_MS;
    }
    char *path = hoodie_write__path(base_path, ".hoodie/lock");
    if (!path) return HOODIE_NOMEM();
    int64_t t0 = hoodie_write__now_us(), pause = 5;
    for (;;) {
        hoodie_status rc = hoodie_storage_write_all(l->s, path, HOODIE_CREATE_EXCLUSIVE, me, (size_t)n);
        if (rc == HOODIE_OK) {
            if ((rc = held_add(path)) < 0) { (void)l->s->remove(l->s->ctx, path); free(path); return rc; }
            l->path = path;
            return HOODIE_OK;
        }
        if (rc != HOODIE_EEXISTS) {
            hoodie_error__prefix("table lock %s: ", path);
            free(path);
            return rc;
        }
        hoodie_error_clear();
        hoodie_buf holder = HOODIE_BUF_INIT;
        rc = hoodie_storage_read_all(l->s, path, &holder);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); hoodie_buf_dispose(&holder); continue; } /* released */
        if (rc < 0) { hoodie_error__prefix("table lock %s: ", path); free(path); return rc; }
        const char *text = holder.data ? (const char *)holder.data : "";
        if (owner_alive(text, path) == 0) {
            /* left by a process of this machine that is gone (or by this one, not holding it): break it */
            rc = l->s->remove(l->s->ctx, path);
            if (rc < 0 && rc != HOODIE_ENOTFOUND) {
                hoodie_buf_dispose(&holder);
                hoodie_error__prefix("breaking the dead table lock %s: ", path);
                free(path);
                return rc;
            }
            hoodie_error_clear();
            hoodie_buf_dispose(&holder);
            continue;
        }
        if ((hoodie_write__now_us() - t0) / 1000 >= wait_ms) {
            size_t tl = strcspn(text, "\n");
            rc = HOODIE_FAIL(HOODIE_ECONFLICT, "table lock %s is held by another writer (%.*s) and was not released "
                             "in %lld ms; if no writer is running, remove the file", path, (int)(tl > 200 ? 200 : tl),
                             *text ? text : "no owner recorded", (long long)wait_ms);
            hoodie_buf_dispose(&holder);
            free(path);
            return rc;
        }
        hoodie_buf_dispose(&holder);
        sleep_ms(pause);
        if (pause < 200) pause *= 2;
    }
}

hoodie_status hoodie_write__unlock(hoodie_table_lock *l)
{
    if (!l || !l->path) return HOODIE_OK;
    hoodie_status rc = l->s->remove(l->s->ctx, l->path);
    held_remove(l->path); /* not held any more, even if the file stays: the next taker breaks it */
    if (rc < 0) hoodie_error__prefix("releasing the table lock %s: ", l->path);
    free(l->path);
    l->path = NULL;
    return rc;
}

/* ---- heartbeats ---- */

static char *beat_path(const char *base_path, const char *instant)
{
    hoodie_buf rel = HOODIE_BUF_INIT;
    char *p = NULL;
    if (hoodie_buf_printf(&rel, ".hoodie/.heartbeat/%s", instant) == HOODIE_OK && hoodie_buf_cstr(&rel) == HOODIE_OK)
        p = hoodie_write__path(base_path, (const char *)rel.data);
    hoodie_buf_dispose(&rel);
    return p;
}

hoodie_status hoodie_write__heartbeat_start(const hoodie_storage *s, const char *base_path, const char *instant)
{
    char me[160];
    int n = ident_text(me, sizeof me);
    s = hoodie_storage__or_default(s);
    char *path = beat_path(base_path, instant);
    if (!path) return HOODIE_NOMEM();
    hoodie_status rc = held_add(path); /* first: the beat is ours from the moment the file can be seen */
    if (rc == HOODIE_OK) rc = hoodie_storage_write_all(s, path, HOODIE_CREATE_EXCLUSIVE, me, (size_t)n);
    if (rc < 0) {
        held_remove(path);
        if (rc != HOODIE_EEXISTS) hoodie_error__prefix("heartbeat %s: ", path);
    }
    free(path);
    return rc;
}

hoodie_status hoodie_write__heartbeat_tick(const hoodie_storage *s, const char *base_path, const char *instant)
{
    char me[160];
    char *path = beat_path(base_path, instant);
    if (!path) return HOODIE_NOMEM();
    hoodie_status rc = HOODIE_OK;
    if (held_check(path, (int64_t)HOODIE_HEARTBEAT_INTERVAL_MS * 500) == 2) {
        int n = ident_text(me, sizeof me);
        rc = hoodie_storage_write_all(hoodie_storage__or_default(s), path, 0, me, (size_t)n);
        if (rc < 0) hoodie_error__prefix("heartbeat %s: ", path);
    }
    free(path);
    return rc;
}

void hoodie_write__heartbeat_stop(const hoodie_storage *s, const char *base_path, const char *instant)
{
    char *path = beat_path(base_path, instant);
    if (!path) return;
    held_remove(path);
    s = hoodie_storage__or_default(s);
    if (s->remove(s->ctx, path) < 0) hoodie_error_clear();
    free(path);
}

typedef struct beat {
    char *name;
    int64_t mtime_ms;
} beat;

struct hoodie_heartbeats {
    const hoodie_storage *s;
    char *dir;
    beat *v;
    size_t n;
};

static int beat_cb(const hoodie_dirent *e, void *payload)
{
    hoodie_heartbeats *h = payload;
    if (e->is_dir) return 0;
    beat *nv = realloc(h->v, (h->n + 1) * sizeof *nv);
    if (!nv) return -1;
    h->v = nv;
    if (!(nv[h->n].name = strdup(e->name))) return -1;
    nv[h->n++].mtime_ms = e->mtime_ms;
    return 0;
}

hoodie_status hoodie_write__heartbeats_load(hoodie_heartbeats **out, const hoodie_storage *s, const char *base_path)
{
    hoodie_heartbeats *h = calloc(1, sizeof *h);
    if (!h) return HOODIE_NOMEM();
    h->s = hoodie_storage__or_default(s);
    h->dir = hoodie_write__path(base_path, ".hoodie/.heartbeat");
    if (!h->dir) { hoodie_write__heartbeats_free(h); return HOODIE_NOMEM(); }
    hoodie_status rc = h->s->list(h->s->ctx, h->dir, beat_cb, h);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    else if (rc > 0) rc = HOODIE_NOMEM(); /* the callback stopped: out of memory */
    if (rc < 0) { hoodie_error__prefix("heartbeats in %s: ", h->dir); hoodie_write__heartbeats_free(h); return rc; }
    *out = h;
    return HOODIE_OK;
}

static int beat_alive(const hoodie_heartbeats *h, const beat *b)
{
    hoodie_buf text = HOODIE_BUF_INIT;
    char *path = hoodie_write__path(h->dir, b->name);
    int alive = 1; /* cannot read it: take it as alive (rolling back a live writer loses data) */
    if (path && hoodie_storage_read_all(h->s, path, &text) == HOODIE_OK) {
        alive = owner_alive(text.data ? (const char *)text.data : "", path);
        if (alive < 0) /* Hudi's rule: beaten within the tolerable misses */
            alive = !b->mtime_ms || hoodie_write__now_us() / 1000 - b->mtime_ms <=
                    (int64_t)HOODIE_HEARTBEAT_INTERVAL_MS * HOODIE_HEARTBEAT_MISSES;
    } else if (path) {
        hoodie_error_clear();
    }
    hoodie_buf_dispose(&text);
    free(path);
    return alive;
}

int hoodie_write__heartbeat_alive(const hoodie_heartbeats *h, const char *instant)
{
    for (size_t i = 0; h && i < h->n; i++)
        if (!strcmp(h->v[i].name, instant)) return beat_alive(h, &h->v[i]);
    return 0; /* no heartbeat: a writer that never beat (Hudi's eager policy), or one that is gone */
}

void hoodie_write__heartbeats_prune(const hoodie_heartbeats *h, int (*pending)(void *ctx, const char *instant),
                                    void (*gone)(void *ctx, const char *instant), void *ctx)
{
    for (size_t i = 0; h && i < h->n; i++) {
        if (pending(ctx, h->v[i].name) || beat_alive(h, &h->v[i])) continue;
        char *path = hoodie_write__path(h->dir, h->v[i].name);
        if (path && h->s->remove(h->s->ctx, path) < 0) hoodie_error_clear();
        free(path);
        if (gone) gone(ctx, h->v[i].name);
    }
}

void hoodie_write__heartbeats_free(hoodie_heartbeats *h)
{
    if (!h) return;
    for (size_t i = 0; i < h->n; i++) free(h->v[i].name);
    free(h->v);
    free(h->dir);
    free(h);
}
