/*
 * Table services interrupted at every storage operation (hoodie_storage_faulty_new over the in-memory storage,
 * CRASH_AT n: the n-th operation and all later ones fail, as a process that died there). For every n:
 *   - the table reads as before (compaction, clean, clustering change no rows; a rollback or restore reads as
 *     before or as after it);
 *   - the next run of the service succeeds and leaves the expected reads, with no pending service instant.
 */
#include "hoodie_test.h"
#include "hoodie/hoodie.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TBL "/t"
#define TRY(x) do { hoodie_status rc_ = (x); if (rc_ < 0) return rc_; } while (0)

static hoodie_status put(hoodie_storage *s, const char *path, const char *text)
{
    hoodie_wfile *f;
    hoodie_status rc = s->create(s->ctx, path, 0, &f);
    if (rc < 0) return rc;
    rc = s->write(s->ctx, f, text, strlen(text));
    if (rc == HOODIE_OK) return s->finish(s->ctx, f);
    s->abandon(s->ctx, f);
    return rc;
}

static hoodie_status write_csv(hoodie_storage *s, const char *text, hoodie_write_operation op)
{
    struct ArrowArrayStream in;
    const char *paths[1] = { "/in.csv" };
    hoodie_files_opts fo = HOODIE_FILES_OPTS_INIT;
    hoodie_write_opts wo = HOODIE_WRITE_OPTS_INIT;
    s->remove(s->ctx, "/in.csv");
    TRY(put(s, "/in.csv", text));
    fo.storage = s;
    TRY(hoodie_files_stream(paths, 1, TBL, &fo, &in));
    wo.storage = s;
    wo.op = op;
    return hoodie_table_write(TBL, &in, &wo, NULL);
}

static int cmp_line(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Snapshot (or as-of) rows as sorted CSV lines without the commit time, sequence number and file name; malloc'd text, NULL on failure. */
static char *read_rows(const hoodie_storage *s, const char *as_of)
{
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    if (hoodie_table_open(&t, TBL, &to) < 0) return NULL;
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.as_of = as_of;
    struct ArrowArrayStream st;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hoodie_output_opts oo = HOODIE_OUTPUT_OPTS_INIT;
    hoodie_status rc = hoodie_table_scan(t, &so, &st);
    if (rc == HOODIE_OK) rc = hoodie_output_stream(&st, NULL, f, &oo, NULL);
    fclose(f);
    hoodie_table_free(t);
    if (rc < 0) { free(buf); return NULL; }
    /* lines, column 5 dropped, sorted */
    char **lines = calloc(len + 1, sizeof *lines);
    size_t n = 0;
    for (char *p = strtok(buf, "\n"); p; p = strtok(NULL, "\n")) {
        /* commit time and sequence number differ between the tables built; the file name changes on rewrite */
        char *start = p;
        for (int k = 0; k < 2 && start; k++) { start = strchr(start, ','); if (start) start++; }
        if (!start) start = p;
        char *c = start;
        for (int k = 0; k < 2 && c; k++) { c = strchr(c, ','); if (c) c++; }
        char *e = c ? strchr(c, ',') : NULL;
        if (c && e) memmove(c, e + 1, strlen(e + 1) + 1);
        lines[n++] = start;
    }
    qsort(lines, n, sizeof *lines, cmp_line);
    size_t total = 1;
    for (size_t i = 0; i < n; i++) total += strlen(lines[i]) + 1;
    char *out = malloc(total);
    out[0] = 0;
    for (size_t i = 0; i < n; i++) { strcat(out, lines[i]); strcat(out, "\n"); }
    free(lines);
    free(buf);
    return out;
}

static size_t pending_instants(const hoodie_storage *s)
{
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    if (hoodie_table_open(&t, TBL, &to) < 0) return 999;
    size_t n = 0;
    for (size_t i = 0; i < hoodie_table_instant_count(t); i++) {
        hoodie_instant_info ii;
        if (hoodie_table_instant(t, i, &ii) == HOODIE_OK && strcmp(ii.state, "completed")) n++;
    }
    hoodie_table_free(t);
    return n;
}

typedef enum { SVC_COMPACT, SVC_CLEAN, SVC_ROLLBACK_LATEST, SVC_RESTORE, SVC_CLUSTER, SVC_ARCHIVE, SVC_LOGCOMPACT } svc_kind;

/* An empty table (id keyed, partitioned by p, ordered by ts) on a new in-memory storage. */
static hoodie_storage *fresh(int version, int mor)
{
    hoodie_storage *mem;
    if (hoodie_storage_mem_new(&mem) < 0) return NULL;
    hoodie_table_create_opts co = HOODIE_TABLE_CREATE_OPTS_INIT;
    static const char *const keys[] = { "id" }, *const parts[] = { "p" };
    co.storage = mem;
    co.table_version = version;
    co.type = mor ? HOODIE_CREATE_MERGE_ON_READ : HOODIE_CREATE_COPY_ON_WRITE;
    co.name = "t";
    co.record_key_fields = keys;
    co.record_key_count = 1;
    co.partition_fields = parts;
    co.partition_count = 1;
    co.ordering_field = "ts";
    if (hoodie_table_create(TBL, &co) == HOODIE_OK) return mem;
    hoodie_storage_free(mem);
    return NULL;
}

/* Fresh table with a few writes (and, for restore, a savepoint after the first). */
static hoodie_storage *build(int version, int mor, svc_kind kind, char sp[24], char latest[24])
{
    hoodie_storage *mem = fresh(version, mor);
    int ok = mem != NULL;
    ok = ok && write_csv(mem, "id,p,ts,v\n1,a,1,x1\n2,a,1,x2\n3,b,1,x3\n", HOODIE_WRITE_UPSERT) == HOODIE_OK;
    if (ok && kind == SVC_RESTORE) {
        hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
        hoodie_service_result r;
        o.storage = mem;
        ok = hoodie_savepoint_create(TBL, &o, NULL, &r) == HOODIE_OK;
        snprintf(sp, 24, "%s", r.instant);
    }
    ok = ok && write_csv(mem, "id,p,ts,v\n1,a,2,y1\n3,b,2,y3\n4,b,2,y4\n", HOODIE_WRITE_UPSERT) == HOODIE_OK;
    ok = ok && write_csv(mem, "id,p,ts,v\n2,a,3,z2\n", HOODIE_WRITE_UPSERT) == HOODIE_OK;
    ok = ok && write_csv(mem, "id,p,ts,v\n4,b,3,z4\n", HOODIE_WRITE_DELETE) == HOODIE_OK;
    if (ok && kind == SVC_CLUSTER) {
        ok = write_csv(mem, "id,p,ts,v\n10,a,1,m10\n11,b,1,a11\n", HOODIE_WRITE_BULK_INSERT) == HOODIE_OK;
        ok = ok && write_csv(mem, "id,p,ts,v\n12,a,1,b12\n13,b,1,c13\n", HOODIE_WRITE_BULK_INSERT) == HOODIE_OK;
    }
    for (int i = 0; ok && kind == SVC_ARCHIVE && i < 5; i++) {
        char text[128];
        snprintf(text, sizeof text, "id,p,ts,v\n%d,a,%d,n%d\n1,a,%d,u%d\n", 20 + i, 10 + i, i, 10 + i, i);
        ok = write_csv(mem, text, HOODIE_WRITE_UPSERT) == HOODIE_OK;
    }
    if (ok && mor && kind == SVC_CLEAN) {
        hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
        o.storage = mem;
        ok = hoodie_compaction_schedule(TBL, &o, NULL) == HOODIE_OK && hoodie_compaction_run(TBL, &o, NULL, NULL) == HOODIE_OK;
        ok = ok && write_csv(mem, "id,p,ts,v\n1,a,4,w1\n", HOODIE_WRITE_UPSERT) == HOODIE_OK;
    }
    if (ok && latest) {
        hoodie_table *t;
        hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
        to.storage = mem;
        ok = hoodie_table_open(&t, TBL, &to) == HOODIE_OK;
        latest[0] = 0;
        for (size_t i = 0; ok && i < hoodie_table_instant_count(t); i++) {
            hoodie_instant_info ii;
            if (hoodie_table_instant(t, i, &ii) == HOODIE_OK && !strcmp(ii.state, "completed") &&
                (!strcmp(ii.action, "commit") || !strcmp(ii.action, "deltacommit")))
                snprintf(latest, 24, "%s", ii.requested);
        }
        if (ok) hoodie_table_free(t);
    }
    if (!ok) { hoodie_storage_free(mem); return NULL; }
    return mem;
}

static hoodie_status run(svc_kind kind, const hoodie_storage *s, const char *sp, const char *latest)
{
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    o.storage = s;
    switch (kind) {
    case SVC_COMPACT:
        TRY(hoodie_compaction_schedule(TBL, &o, NULL));
        return hoodie_compaction_run(TBL, &o, NULL, NULL);
    case SVC_LOGCOMPACT:
        o.log_blocks_threshold = 2; /* the built table's slices hold 2-3 blocks */
        TRY(hoodie_log_compaction_schedule(TBL, &o, NULL));
        return hoodie_log_compaction_run(TBL, &o, NULL, NULL);
    case SVC_CLEAN:
        o.clean_policy = HOODIE_CLEAN_KEEP_LATEST_FILE_VERSIONS;
        o.retain = 1;
        return hoodie_clean(TBL, &o, NULL);
    case SVC_ROLLBACK_LATEST: {
        hoodie_status rc = hoodie_rollback(TBL, &o, latest, NULL);
        return rc == HOODIE_ENOTFOUND ? HOODIE_OK : rc; /* an earlier run finished it */
    }
    case SVC_RESTORE:
        return hoodie_restore(TBL, &o, sp, NULL);
    case SVC_ARCHIVE: {
        o.min_commits = 3;
        o.max_commits = 5;
        hoodie_service_result r;
        TRY(hoodie_archive(TBL, &o, &r));
        return HOODIE_OK;
    }
    case SVC_CLUSTER: {
        static const char *const cols[] = { "v" };
        o.sort_columns = cols;
        o.n_sort_columns = 1;
        return hoodie_clustering(TBL, &o, NULL);
    }
    }
    return HOODIE_EINVAL;
}

/* Crash at every operation; returns the number of crash points tried. */
static int sweep(int version, int mor, svc_kind kind)
{
    int points = 0;
    char *after = NULL;
    for (uint64_t n = 1; n < 5000; n++) {
        char sp[24] = "", latest[24] = "";
        hoodie_storage *mem = build(version, mor, kind, sp, latest);
        hoodie_assert(mem != NULL);
        char *before = read_rows(mem, NULL);
        hoodie_assert(before != NULL);
        /* a restore undoes the writes one at a time: it may stop at the read as of any earlier write */
        char *prefix[16];
        size_t n_prefix = 0;
        if (kind == SVC_RESTORE) {
            hoodie_table *t;
            hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
            to.storage = mem;
            hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
            for (size_t i = 0; i < hoodie_table_instant_count(t) && n_prefix < 16; i++) {
                hoodie_instant_info ii;
                if (hoodie_table_instant(t, i, &ii) == HOODIE_OK && !strcmp(ii.state, "completed") &&
                    (!strcmp(ii.action, "commit") || !strcmp(ii.action, "deltacommit")))
                    prefix[n_prefix++] = read_rows(mem, ii.requested);
            }
            hoodie_table_free(t);
        }
        if (!after) { /* the result of an uninterrupted run */
            char sp2[24] = "", latest2[24] = "";
            hoodie_storage *m2 = build(version, mor, kind, sp2, latest2);
            hoodie_assert_ok(run(kind, m2, sp2, latest2));
            after = read_rows(m2, NULL);
            hoodie_assert(after != NULL);
            hoodie_storage_free(m2);
        }
        hoodie_storage *faulty;
        hoodie_assert_ok(hoodie_storage_faulty_new(&faulty, mem));
        hoodie_storage_faulty_arm(faulty, HOODIE_FAULT_CRASH_AT, n);
        hoodie_status rc = run(kind, faulty, sp, latest);
        int fired = hoodie_storage_faulty_fired(faulty);
        hoodie_storage_free(faulty);
        hoodie_error_clear();
        if (!fired) { /* the run completed before operation n: every point has been tried */
            hoodie_assert_ok(rc);
            for (size_t i = 0; i < n_prefix; i++) free(prefix[i]);
            free(before);
            hoodie_storage_free(mem);
            break;
        }
        points++;
        char *mid = read_rows(mem, NULL);
        if (!mid) fprintf(stderr, "crash at %llu: read failed: %s\n", (unsigned long long)n, hoodie_error_last()->message);
        hoodie_assert(mid != NULL);
        int as_before = !strcmp(mid, before), as_after = !strcmp(mid, after);
        for (size_t i = 0; i < n_prefix; i++) as_after |= prefix[i] && !strcmp(mid, prefix[i]);
        if (!(as_before || ((kind == SVC_ROLLBACK_LATEST || kind == SVC_RESTORE) && as_after)))
            fprintf(stderr, "crash at %llu: reads changed\n--- before\n%s--- now\n%s", (unsigned long long)n, before, mid);
        hoodie_assert(as_before || ((kind == SVC_ROLLBACK_LATEST || kind == SVC_RESTORE) && as_after));
        /* the next run completes */
        rc = run(kind, mem, sp, latest);
        if (rc < 0) fprintf(stderr, "crash at %llu: rerun: %s\n", (unsigned long long)n, hoodie_error_last()->message);
        hoodie_assert_ok(rc);
        char *fin = read_rows(mem, NULL);
        hoodie_assert(fin != NULL);
        if (strcmp(fin, after)) fprintf(stderr, "crash at %llu: after rerun\n%s--- want\n%s", (unsigned long long)n, fin, after);
        hoodie_assert_equal_s(after, fin);
        if (kind != SVC_ROLLBACK_LATEST && kind != SVC_RESTORE) hoodie_assert_equal_i(0, (long long)pending_instants(mem));
        free(fin);
        free(mid);
        for (size_t i = 0; i < n_prefix; i++) free(prefix[i]);
        free(before);
        hoodie_storage_free(mem);
    }
    free(after);
    return points;
}

HOODIE_TEST(services_faults__compaction_v8)
{
    hoodie_assert(sweep(8, 1, SVC_COMPACT) > 10);
}

HOODIE_TEST(services_faults__compaction_v6)
{
    hoodie_assert(sweep(6, 1, SVC_COMPACT) > 10);
}

HOODIE_TEST(services_faults__logcompaction_v8)
{
    hoodie_assert(sweep(8, 1, SVC_LOGCOMPACT) > 10);
}

HOODIE_TEST(services_faults__logcompaction_v6)
{
    hoodie_assert(sweep(6, 1, SVC_LOGCOMPACT) > 10);
}

typedef struct name_list { char **v; size_t n; } name_list;

static int collect_logs(const hoodie_dirent *e, void *payload)
{
    name_list *l = payload;
    if (e->is_dir || !strstr(e->name, ".log.")) return 0;
    char **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
    if (!nv) return 1;
    l->v = nv;
    l->v[l->n++] = strdup(e->name);
    return 0;
}

/* Log compaction: reads at every instant unchanged; the compacted files alone hold the slices' logs (the files
 * they replace removed, reads still unchanged); a later write and a second log compaction over the first. */
static void logcompact_reads(int version)
{
    char latest[24];
    hoodie_storage *mem = build(version, 1, SVC_LOGCOMPACT, NULL, latest);
    hoodie_assert(mem != NULL);
    char *before = read_rows(mem, NULL), *before_latest = read_rows(mem, latest);
    hoodie_assert(before != NULL && before_latest != NULL);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    hoodie_service_result r;
    o.storage = mem;
    o.log_blocks_threshold = 2;
    /* pending: reads unchanged */
    hoodie_assert_ok(hoodie_log_compaction_schedule(TBL, &o, &r));
    hoodie_assert(r.instant[0] != 0);
    char lc[24];
    snprintf(lc, sizeof lc, "%s", r.instant);
    char *mid = read_rows(mem, NULL);
    hoodie_assert_equal_s(before, mid);
    free(mid);
    /* completed */
    hoodie_assert_ok(hoodie_log_compaction_run(TBL, &o, NULL, &r));
    hoodie_assert(r.files_written > 0);
    char *now = read_rows(mem, NULL), *now_latest = read_rows(mem, latest), *now_lc = read_rows(mem, lc);
    hoodie_assert_equal_s(before, now);
    hoodie_assert_equal_s(before_latest, now_latest);
    hoodie_assert_equal_s(before, now_lc);
    free(now);
    free(now_latest);
    free(now_lc);
    /* the replaced log files removed: the compacted ones suffice */
    static const char *const parts[] = { TBL "/a", TBL "/b" };
    for (size_t p = 0; p < 2; p++) {
        name_list l = { 0 };
        hoodie_assert_ok(mem->list(mem->ctx, parts[p], collect_logs, &l));
        /* v8 names the compacted file with the log compaction's instant; v6 gives it the write token 0-0-0 /
           1-0-1 (the operation's index) where writes use x-1-x. Only the groups it compacted lose their logs. */
        char fids[8][64];
        size_t n_fids = 0;
        for (size_t i = 0; i < l.n; i++) {
            int compacted = version >= 8 ? strstr(l.v[i], lc) != NULL : strstr(l.v[i], "-0-") != NULL;
            if (compacted && n_fids < 8) snprintf(fids[n_fids++], sizeof fids[0], "%.*s", (int)strcspn(l.v[i], "_"), l.v[i]);
        }
        for (size_t i = 0; i < l.n; i++) {
            int compacted = version >= 8 ? strstr(l.v[i], lc) != NULL : strstr(l.v[i], "-0-") != NULL, in_group = 0;
            for (size_t k = 0; k < n_fids; k++) in_group |= !strncmp(l.v[i], fids[k], strlen(fids[k]));
            char path[256];
            snprintf(path, sizeof path, "%s/%s", parts[p], l.v[i]);
            if (!compacted && in_group) hoodie_assert_ok(mem->remove(mem->ctx, path));
            free(l.v[i]);
        }
        free(l.v);
    }
    now = read_rows(mem, NULL);
    hoodie_assert_equal_s(before, now);
    free(now);
    /* another write, then a second log compaction over the first one's file */
    hoodie_assert_ok(write_csv(mem, "id,p,ts,v\n1,a,9,w1\n3,b,9,w3\n", HOODIE_WRITE_UPSERT));
    before = (free(before), read_rows(mem, NULL));
    hoodie_assert_ok(hoodie_log_compaction(TBL, &o, &r));
    hoodie_assert(r.files_written > 0);
    now = read_rows(mem, NULL);
    hoodie_assert_equal_s(before, now);
    free(now);
    /* then a compaction of the slices */
    hoodie_assert_ok(hoodie_compaction_schedule(TBL, &o, NULL));
    hoodie_assert_ok(hoodie_compaction_run(TBL, &o, NULL, NULL));
    now = read_rows(mem, NULL);
    hoodie_assert_equal_s(before, now);
    free(now);
    free(before);
    free(before_latest);
    hoodie_storage_free(mem);
}

/* Scheduling counts the log blocks that apply (hoodie.log.compaction.blocks.threshold, default 5): blocks of
 * rolled-back writes do not count, a log compaction's block replaces the ones it compacted. */
static hoodie_status update_one(hoodie_storage *mem, int ts)
{
    char text[64];
    snprintf(text, sizeof text, "id,p,ts,v\n1,a,%d,u%d\n", ts, ts);
    return write_csv(mem, text, HOODIE_WRITE_UPSERT);
}

static const char *latest_write(hoodie_storage *mem, char out[24])
{
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = mem;
    out[0] = 0;
    if (hoodie_table_open(&t, TBL, &to) < 0) return out;
    for (size_t i = 0; i < hoodie_table_instant_count(t); i++) {
        hoodie_instant_info ii;
        if (hoodie_table_instant(t, i, &ii) == HOODIE_OK && !strcmp(ii.action, "deltacommit")) snprintf(out, 24, "%s", ii.requested);
    }
    hoodie_table_free(t);
    return out;
}

static void logcompact_threshold(int version)
{
    hoodie_storage *mem = fresh(version, 1);
    hoodie_assert(mem != NULL);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    hoodie_service_result r;
    char last[24];
    o.storage = mem;
    hoodie_assert_ok(write_csv(mem, "id,p,ts,v\n1,a,1,x1\n2,a,1,x2\n3,a,1,x3\n", HOODIE_WRITE_INSERT));
    for (int i = 0; i < 4; i++) hoodie_assert_ok(update_one(mem, 10 + i)); /* four blocks in one slice */
    hoodie_assert_ok(hoodie_log_compaction_schedule(TBL, &o, &r));
    hoodie_assert_equal_s("", r.instant);
    hoodie_assert_ok(update_one(mem, 20)); /* the fifth, rolled back: four again */
    hoodie_assert_ok(hoodie_rollback(TBL, &o, latest_write(mem, last), NULL));
    hoodie_assert_ok(hoodie_log_compaction_schedule(TBL, &o, &r));
    hoodie_assert_equal_s("", r.instant);
    hoodie_assert_ok(update_one(mem, 21)); /* five */
    char *before = read_rows(mem, NULL);
    hoodie_assert(before != NULL);
    hoodie_assert_ok(hoodie_log_compaction_schedule(TBL, &o, &r));
    hoodie_assert(r.instant[0] != 0);
    hoodie_assert(r.file_groups == 1);
    hoodie_assert_ok(hoodie_log_compaction_run(TBL, &o, NULL, &r));
    char *now = read_rows(mem, NULL);
    hoodie_assert_equal_s(before, now);
    free(now);
    free(before);
    /* the slice's applying blocks: the log compaction's data block alone */
    o.log_blocks_threshold = 2;
    hoodie_assert_ok(hoodie_log_compaction_schedule(TBL, &o, &r));
    hoodie_assert_equal_s("", r.instant);
    hoodie_assert_ok(update_one(mem, 30));
    hoodie_assert_ok(hoodie_log_compaction_schedule(TBL, &o, &r));
    hoodie_assert(r.instant[0] != 0);
    hoodie_storage_free(mem);
}

/* Progress callbacks: (0, n) first, then increasing, (n, n) last, for each service that reports. */
typedef struct progress_log { int calls, bad; int64_t last_done, total; char what[64]; } progress_log;

static void on_progress(void *ctx, const char *what, int64_t done, int64_t total)
{
    progress_log *p = ctx;
    if (p->calls == 0) { p->bad |= done != 0; p->total = total; snprintf(p->what, sizeof p->what, "%s", what); }
    else p->bad |= done < p->last_done || total != p->total || strcmp(what, p->what) != 0;
    p->last_done = done;
    p->calls++;
}

HOODIE_TEST(services_progress__reported)
{
    hoodie_storage *mem = build(8, 1, SVC_CLEAN, NULL, NULL); /* compacted once, then a write: old slices to clean */
    hoodie_assert(mem != NULL);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    progress_log p;
    o.storage = mem;
    o.progress = on_progress;
    o.progress_ctx = &p;
    memset(&p, 0, sizeof p);
    hoodie_assert_ok(hoodie_compaction_schedule(TBL, &o, NULL));
    hoodie_assert_ok(hoodie_compaction_run(TBL, &o, NULL, NULL));
    hoodie_assert(p.calls >= 2 && !p.bad && p.last_done == p.total && p.total >= 1);
    hoodie_assert_equal_s("compaction: file groups", p.what);
    memset(&p, 0, sizeof p);
    o.clean_policy = HOODIE_CLEAN_KEEP_LATEST_FILE_VERSIONS;
    o.retain = 1;
    hoodie_service_result r;
    hoodie_assert_ok(hoodie_clean(TBL, &o, &r));
    hoodie_assert(r.files_deleted > 0);
    hoodie_assert(p.calls >= 2 && !p.bad && p.last_done == p.total && p.total == r.files_deleted);
    hoodie_assert_equal_s("clean: files", p.what);
    hoodie_storage_free(mem);
}

HOODIE_TEST(services_logcompact__threshold_v8) { logcompact_threshold(8); }
HOODIE_TEST(services_logcompact__threshold_v6) { logcompact_threshold(6); }
HOODIE_TEST(services_logcompact__reads_v8) { logcompact_reads(8); }
HOODIE_TEST(services_logcompact__reads_v6) { logcompact_reads(6); }

HOODIE_TEST(services_faults__clean_mor_v8)
{
    hoodie_assert(sweep(8, 1, SVC_CLEAN) > 5);
}

HOODIE_TEST(services_faults__clean_cow_v6)
{
    hoodie_assert(sweep(6, 0, SVC_CLEAN) > 5);
}

HOODIE_TEST(services_faults__rollback_cow_v8)
{
    hoodie_assert(sweep(8, 0, SVC_ROLLBACK_LATEST) > 5);
}

HOODIE_TEST(services_faults__rollback_mor_v6)
{
    hoodie_assert(sweep(6, 1, SVC_ROLLBACK_LATEST) > 5);
}

HOODIE_TEST(services_faults__restore_mor_v8)
{
    hoodie_assert(sweep(8, 1, SVC_RESTORE) > 5);
}

HOODIE_TEST(services_faults__clustering_cow_v8)
{
    hoodie_assert(sweep(8, 0, SVC_CLUSTER) > 5);
}

HOODIE_TEST(services_faults__clustering_mor_v6)
{
    hoodie_assert(sweep(6, 1, SVC_CLUSTER) > 5);
}

HOODIE_TEST(services_faults__archive_mor_v8)
{
    hoodie_assert(sweep(8, 1, SVC_ARCHIVE) > 5);
}

HOODIE_TEST(services_faults__archive_cow_v6)
{
    hoodie_assert(sweep(6, 0, SVC_ARCHIVE) > 5);
}

/* The archived instants are readable by the archived-timeline reader, metadata included. */
#include "table/archived.h"
#include "table/table.h"

static void archived_readable(int version)
{
    char sp[24] = "", latest[24] = "";
    hoodie_storage *mem = build(version, 1, SVC_ARCHIVE, sp, latest);
    hoodie_assert(mem != NULL);
    hoodie_assert_ok(run(SVC_ARCHIVE, mem, sp, latest));
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = mem;
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    hoodie_archived_timeline *a;
    hoodie_assert_ok(hoodie_archived_load(&a, mem, TBL, t->cfg));
    hoodie_assert(a->count >= 4);
    size_t writes = 0;
    for (size_t i = 0; i < a->count; i++) {
        hoodie_assert(a->instants[i].state == HOODIE_STATE_COMPLETED);
        hoodie_assert(!hoodie_timeline_find(t->tl, a->instants[i].requested, a->instants[i].action));
        if (!(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(a->instants[i].action))) continue;
        hoodie_commit_meta *m;
        hoodie_assert_ok(hoodie_archived_commit_meta(a, i, &m));
        hoodie_assert(m->stat_count > 0);
        hoodie_assert(m->schema != NULL);
        hoodie_commit_meta_free(m);
        writes++;
    }
    hoodie_assert(writes >= 4);
    hoodie_assert(strcmp(a->instants[a->count - 1].requested, t->tl->instants[0].requested) < 0);
    hoodie_archived_free(a);
    hoodie_table_free(t);
    hoodie_storage_free(mem);
}

HOODIE_TEST(services_archive__readable_v8)
{
    archived_readable(8);
}

HOODIE_TEST(services_archive__readable_v6)
{
    archived_readable(6);
}
