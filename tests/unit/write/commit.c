#include "hoodie_test.h"
#include "hoodie/table.h"
#include "hoodie/write.h"
#include "storage/storage.h"
#include "table/table.h"
#include "write/commit.h"
#include "write/commit_encode.h"
#include "write/create.h"
#include "write/rollback.h"
#include "table/file_name.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const KEYS[] = { "id" };
static const char *const PARTS[] = { "city" };

static void make_table(hoodie_storage *s, const char *base, int version, int mor)
{
    hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
    o.storage = s;
    o.table_version = version;
    o.type = mor ? HOODIE_CREATE_MERGE_ON_READ : HOODIE_CREATE_COPY_ON_WRITE;
    o.name = "t";
    o.record_key_fields = KEYS; o.record_key_count = 1;
    o.partition_fields = PARTS; o.partition_count = 1;
    o.hive_style = 1;
    hoodie_assert_ok(hoodie_table_create(base, &o));
}

static hoodie_table *open_table(hoodie_storage *s, const char *base)
{
    hoodie_table_open_opts oo = HOODIE_TABLE_OPEN_OPTS_INIT;
    oo.storage = s;
    hoodie_table *t = NULL;
    hoodie_assert_ok(hoodie_table_open(&t, base, &oo));
    return t;
}

/* One insert write of one data file in partition city=x, through every step of the protocol. The storage may
 * inject faults: the first failure is returned. done_out: 1 if the instant completed. */
static hoodie_status write_one(hoodie_storage *s, const char *base, char t_out[18], int *done_out, int stop_before_complete)
{
    hoodie_status rc;
    hoodie_table_config *cfg = NULL;
    hoodie_write_txn tx;
    memset(&tx, 0, sizeof tx);
    hoodie_buf name = HOODIE_BUF_INIT, meta = HOODIE_BUF_INIT, rel = HOODIE_BUF_INIT;
    char *data_path = NULL;
    *done_out = 0;
    HOODIE_TRY_GOTO(rc, hoodie_table_config_load(&cfg, s, base, 0), out);
    hoodie_action action = cfg->type == HOODIE_TABLE_MERGE_ON_READ ? HOODIE_ACTION_DELTACOMMIT : HOODIE_ACTION_COMMIT;
    HOODIE_TRY_GOTO(rc, hoodie_write__begin(&tx, s, base, cfg, action, NULL, 0), out);
    memcpy(t_out, tx.inst.requested, 18);
    hoodie_wstat w = { 0 };
    w.partition_path = "city=x"; w.file_id = ""; w.workload = 1; w.num_inserts = 1;
    hoodie_commit_info ci = { 0 };
    ci.stats = &w; ci.stat_count = 1; ci.operation_type = "INSERT";
    HOODIE_TRY_GOTO(rc, hoodie_commit_encode(&meta, &ci, cfg->version), out);
    HOODIE_TRY_GOTO(rc, hoodie_write__inflight(&tx, meta.data, meta.len), out);
    HOODIE_TRY_GOTO(rc, hoodie_file_name_base(&name, "11111111-2222-3333-4444-555555555555-0", "0-1-1", tx.inst.requested, "parquet"), out);
    HOODIE_TRY_GOTO(rc, hoodie_write__partition_metadata(s, base, "city=x", tx.inst.requested), out);
    HOODIE_TRY_GOTO(rc, hoodie_write__marker(&tx, "city=x", (const char *)name.data, HOODIE_MARKER_CREATE), out);
    HOODIE_TRY_GOTO(rc, hoodie_buf_printf(&rel, "city=x/%s", (const char *)name.data), out);
    HOODIE_TRY_GOTO(rc, hoodie_buf_cstr(&rel), out);
    data_path = hoodie_write__path(base, (const char *)rel.data);
    HOODIE_TRY_GOTO(rc, hoodie_storage_write_all(s, data_path, 0, "PAR1fakePAR1", 12), out);
    if (stop_before_complete) goto out;
    w.workload = 0; w.file_id = "11111111-2222-3333-4444-555555555555-0"; w.path = (const char *)rel.data;
    w.num_writes = 1; w.total_write_bytes = w.file_size_in_bytes = 12;
    hoodie_buf_clear(&meta);
    HOODIE_TRY_GOTO(rc, hoodie_commit_encode(&meta, &ci, cfg->version), out);
    HOODIE_TRY_GOTO(rc, hoodie_write__complete(&tx, meta.data, meta.len), out);
    *done_out = 1;
out:
    hoodie_write__txn_dispose(&tx);
    hoodie_table_config_free(cfg);
    hoodie_buf_dispose(&name);
    hoodie_buf_dispose(&meta);
    hoodie_buf_dispose(&rel);
    free(data_path);
    return rc;
}

/* Count instants of the table: completed writes, pending writes, completed rollbacks, pending anything. */
typedef struct tl_counts { size_t done, pending, rollbacks; } tl_counts;

static tl_counts counts(hoodie_storage *s, const char *base)
{
    hoodie_table *t = open_table(s, base);
    tl_counts c = { 0, 0, 0 };
    for (size_t i = 0; i < t->tl->count; i++) {
        const hoodie_instant *in = &t->tl->instants[i];
        if (in->state != HOODIE_STATE_COMPLETED) c.pending++;
        else if (in->action == HOODIE_ACTION_ROLLBACK) c.rollbacks++;
        else c.done++;
    }
    hoodie_table_free(t);
    return c;
}

static int exists(hoodie_storage *s, const char *base, const char *rel)
{
    char *p = hoodie_write__path(base, rel);
    int r = s->exists(s->ctx, p);
    free(p);
    return r;
}

HOODIE_TEST(write_commit__times)
{
    char a[18], b[18];
    hoodie_assert_ok(hoodie_write__new_time(a, 1, NULL));
    hoodie_assert_equal_i(17, strlen(a));
    hoodie_assert_ok(hoodie_write__new_time(b, 1, "20991231235959999"));
    hoodie_assert_equal_s("21000101000000000", b);
    hoodie_assert_ok(hoodie_write__new_time(b, 0, "20990228235959"));
    hoodie_assert_equal_s("20990228235959001", b);
    hoodie_assert_status(HOODIE_EINVAL, hoodie_write__new_time(b, 0, "3000x"));
}

static void check_protocol(int version, int mor)
{
    hoodie_storage *s = NULL;
    hoodie_assert_ok(hoodie_storage_mem_new(&s));
    make_table(s, "/t", version, mor);
    char t1[18], t2[18];
    int done = 0;
    hoodie_assert_ok(write_one(s, "/t", t1, &done, 0));
    hoodie_assert(done);
    hoodie_assert_ok(write_one(s, "/t", t2, &done, 0));
    hoodie_assert(strcmp(t1, t2) < 0);
    hoodie_table *t = open_table(s, "/t");
    hoodie_assert_equal_i(2, t->tl->count);
    const char *action = mor ? "deltacommit" : "commit";
    char rel[128];
    for (size_t i = 0; i < 2; i++) {
        const hoodie_instant *in = &t->tl->instants[i];
        hoodie_assert_equal_i(HOODIE_STATE_COMPLETED, in->state);
        hoodie_assert_equal_s(action, hoodie_action_name(in->action));
        hoodie_assert_equal_i(version == 8, in->completion[0] != 0);
        if (version == 8) hoodie_assert(strcmp(in->completion, in->requested) > 0);
        /* requested and inflight stay, as Hudi leaves them */
        hoodie_assert_equal_i(7, in->state_files);
        hoodie_commit_meta *m = NULL;
        hoodie_assert_ok(hoodie_table__commit_meta(t, in, &m));
        hoodie_assert_equal_i(1, m->stat_count);
        hoodie_assert_equal_s("city=x", m->stats[0].partition_path);
        hoodie_assert_equal_s("INSERT", m->operation_type);
        hoodie_commit_meta_free(m);
        snprintf(rel, sizeof rel, ".hoodie/.temp/%s", in->requested);
        hoodie_assert_equal_i(0, exists(s, "/t", rel));
    }
    if (version == 8) hoodie_assert(strcmp(t->tl->instants[0].completion, t->tl->instants[1].requested) < 0);
    /* file names of the layout */
    snprintf(rel, sizeof rel, "%s/%s.%s.requested", version == 8 ? ".hoodie/timeline" : ".hoodie", t1, action);
    hoodie_assert_equal_i(1, exists(s, "/t", rel));
    snprintf(rel, sizeof rel, "%s/%s.%s", version == 8 ? ".hoodie/timeline" : ".hoodie", t1,
             mor ? "deltacommit.inflight" : "inflight");
    hoodie_assert_equal_i(1, exists(s, "/t", rel));
    if (version == 6) {
        snprintf(rel, sizeof rel, ".hoodie/%s.%s", t1, action);
        hoodie_assert_equal_i(1, exists(s, "/t", rel));
    }
    hoodie_assert_equal_i(1, exists(s, "/t", "city=x/.hoodie_partition_metadata"));
    hoodie_table_free(t);
    hoodie_storage_free(s);
}

HOODIE_TEST(write_commit__protocol_v8_cow) { check_protocol(8, 0); }
HOODIE_TEST(write_commit__protocol_v8_mor) { check_protocol(8, 1); }
HOODIE_TEST(write_commit__protocol_v6_cow) { check_protocol(6, 0); }
HOODIE_TEST(write_commit__protocol_v6_mor) { check_protocol(6, 1); }

HOODIE_TEST(write_commit__wrong_state)
{
    hoodie_storage *s = NULL;
    hoodie_assert_ok(hoodie_storage_mem_new(&s));
    make_table(s, "/t", 8, 0);
    hoodie_table_config *cfg = NULL;
    hoodie_assert_ok(hoodie_table_config_load(&cfg, s, "/t", 0));
    hoodie_write_txn tx;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_write__begin(&tx, s, "/t", cfg, HOODIE_ACTION_CLEAN, NULL, 0));
    hoodie_assert_ok(hoodie_write__begin(&tx, s, "/t", cfg, HOODIE_ACTION_COMMIT, NULL, 0));
    hoodie_assert_status(HOODIE_ESTATE, hoodie_write__complete(&tx, NULL, 0));
    hoodie_assert_ok(hoodie_write__inflight(&tx, NULL, 0));
    hoodie_assert_status(HOODIE_ESTATE, hoodie_write__inflight(&tx, NULL, 0));
    hoodie_write__txn_dispose(&tx);
    hoodie_table_config_free(cfg);
    hoodie_storage_free(s);
}

static void check_rollback(int version, int mor)
{
    hoodie_storage *s = NULL;
    hoodie_assert_ok(hoodie_storage_mem_new(&s));
    make_table(s, "/t", version, mor);
    char t1[18], t2[18], t3[18];
    int done = 0;
    hoodie_assert_ok(write_one(s, "/t", t1, &done, 0));
    hoodie_assert_ok(write_one(s, "/t", t2, &done, 1)); /* a writer that died before completing */
    hoodie_assert(!done);
    char data[256];
    snprintf(data, sizeof data, "city=x/11111111-2222-3333-4444-555555555555-0_0-1-1_%s.parquet", t2);
    hoodie_assert_equal_i(1, exists(s, "/t", data));
    /* a stray file of t2 without a marker is found by name */
    char stray[256];
    snprintf(stray, sizeof stray, "city=x/99999999-2222-3333-4444-555555555555-0_0-1-2_%s.parquet", t2);
    char *sp = hoodie_write__path("/t", stray);
    hoodie_assert_ok(hoodie_storage_write_all(s, sp, 0, "x", 1));
    free(sp);
    tl_counts c = counts(s, "/t");
    hoodie_assert_equal_i(1, c.done);
    hoodie_assert_equal_i(1, c.pending);

    hoodie_table *t = open_table(s, "/t");
    size_t n = 0;
    hoodie_assert_ok(hoodie_write__recover(t, &n));
    hoodie_assert_equal_i(1, n);
    hoodie_table_free(t);
    c = counts(s, "/t");
    hoodie_assert_equal_i(1, c.done);
    hoodie_assert_equal_i(0, c.pending);
    hoodie_assert_equal_i(1, c.rollbacks);
    hoodie_assert_equal_i(0, exists(s, "/t", data));
    hoodie_assert_equal_i(0, exists(s, "/t", stray));
    char rel[64];
    snprintf(rel, sizeof rel, ".hoodie/.temp/%s", t2);
    hoodie_assert_equal_i(0, exists(s, "/t", rel));
    /* the completed rollback decodes and names what it removed */
    t = open_table(s, "/t");
    const hoodie_instant *rb = NULL;
    for (size_t i = 0; i < t->tl->count; i++)
        if (t->tl->instants[i].action == HOODIE_ACTION_ROLLBACK) rb = &t->tl->instants[i];
    hoodie_assert(rb && strcmp(rb->requested, t2) > 0);
    hoodie_buf path = HOODIE_BUF_INIT, b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_timeline_instant_path(t->tl, rb, HOODIE_STATE_COMPLETED, &path));
    hoodie_assert_ok(hoodie_storage_read_all(s, (const char *)path.data, &b));
    hoodie_rollback_meta *rm = NULL;
    hoodie_assert_ok(hoodie_rollback_meta_decode(&rm, b.data, b.len, "rollback"));
    hoodie_assert_equal_i(1, rm->commit_count);
    hoodie_assert_equal_s(t2, rm->commits_rollback[0]);
    hoodie_assert_equal_i(1, rm->partition_count);
    hoodie_assert_equal_s("city=x", rm->partitions[0].partition_path);
    hoodie_assert_equal_i(2, rm->partitions[0].count);
    hoodie_assert_contains(rm->partitions[0].files[0], "/t/city=x/");
    hoodie_rollback_meta_free(rm);
    hoodie_buf_dispose(&path);
    hoodie_buf_dispose(&b);
    /* nothing left to recover; a new write succeeds */
    hoodie_assert_ok(hoodie_write__recover(t, &n));
    hoodie_assert_equal_i(0, n);
    hoodie_table_free(t);
    hoodie_assert_ok(write_one(s, "/t", t3, &done, 0));
    hoodie_assert(done && strcmp(t3, t2) > 0);
    c = counts(s, "/t");
    hoodie_assert_equal_i(2, c.done);
    hoodie_storage_free(s);
}

HOODIE_TEST(write_rollback__v8_cow) { check_rollback(8, 0); }
HOODIE_TEST(write_rollback__v8_mor) { check_rollback(8, 1); }
HOODIE_TEST(write_rollback__v6_cow) { check_rollback(6, 0); }
HOODIE_TEST(write_rollback__v6_mor) { check_rollback(6, 1); }

/* Fail the k-th storage operation of a write, for every k: afterwards the timeline shows the previous state
 * exactly unless the write reported success; recovery then leaves no pending instant, and a new write
 * succeeds. Also once with the process "dying" at operation k (every later operation fails). */
static void fault_sweep(int version, int mor, hoodie_fault_mode mode)
{
    int finished = 0;
    for (uint64_t k = 1; !finished && k < 200; k++) {
        hoodie_storage *mem = NULL, *s = NULL;
        hoodie_assert_ok(hoodie_storage_mem_new(&mem));
        hoodie_assert_ok(hoodie_storage_faulty_new(&s, mem));
        make_table(s, "/t", version, mor);
        char t1[18], t2[18], t3[18];
        int done = 0;
        hoodie_assert_ok(write_one(s, "/t", t1, &done, 0));
        hoodie_storage_faulty_arm(s, mode, k);
        hoodie_status rc = write_one(s, "/t", t2, &done, 0);
        int fired = hoodie_storage_faulty_fired(s);
        hoodie_storage_faulty_arm(s, HOODIE_FAULT_NONE, 0);
        if (!fired) { hoodie_assert_ok(rc); finished = 1; hoodie_assert(k > 15); /* a write is many operations */ }
        tl_counts c = counts(s, "/t");
        if (rc < 0) {
            hoodie_assert(!done);
            hoodie_assert_equal_i(1, c.done);     /* previous state: only the first write is visible */
        } else {
            hoodie_assert_equal_i(2, c.done);
        }
        hoodie_table *t = open_table(s, "/t");
        hoodie_assert_ok(hoodie_write__recover(t, NULL));
        hoodie_table_free(t);
        c = counts(s, "/t");
        hoodie_assert_equal_i(0, c.pending);
        hoodie_assert_equal_i(rc < 0 ? 1 : 2, c.done);
        hoodie_assert_ok(write_one(s, "/t", t3, &done, 0));
        hoodie_assert(done);
        c = counts(s, "/t");
        hoodie_assert_equal_i(rc < 0 ? 2 : 3, c.done);
        hoodie_storage_free(s);
        hoodie_storage_free(mem);
    }
    hoodie_assert(finished);
}

HOODIE_TEST(write_commit__faults_v8_cow) { fault_sweep(8, 0, HOODIE_FAULT_FAIL_NTH); fault_sweep(8, 0, HOODIE_FAULT_CRASH_AT); }
HOODIE_TEST(write_commit__faults_v8_mor) { fault_sweep(8, 1, HOODIE_FAULT_FAIL_NTH); fault_sweep(8, 1, HOODIE_FAULT_CRASH_AT); }
HOODIE_TEST(write_commit__faults_v6_cow) { fault_sweep(6, 0, HOODIE_FAULT_FAIL_NTH); fault_sweep(6, 0, HOODIE_FAULT_CRASH_AT); }
HOODIE_TEST(write_commit__faults_v6_mor) { fault_sweep(6, 1, HOODIE_FAULT_FAIL_NTH); fault_sweep(6, 1, HOODIE_FAULT_CRASH_AT); }

/* Faults during the rollback itself: recovery converges when run again. */
HOODIE_TEST(write_rollback__faults)
{
    for (int version = 6; version <= 8; version += 2) {
        int finished = 0;
        for (uint64_t k = 1; !finished && k < 200; k++) {
            hoodie_storage *mem = NULL, *s = NULL;
            hoodie_assert_ok(hoodie_storage_mem_new(&mem));
            hoodie_assert_ok(hoodie_storage_faulty_new(&s, mem));
            make_table(s, "/t", version, 0);
            char t1[18], t2[18];
            int done = 0;
            hoodie_assert_ok(write_one(s, "/t", t1, &done, 0));
            hoodie_assert_ok(write_one(s, "/t", t2, &done, 1));
            hoodie_table *t = open_table(s, "/t");
            hoodie_storage_faulty_arm(s, HOODIE_FAULT_CRASH_AT, k);
            hoodie_status rc = hoodie_write__recover(t, NULL);
            if (!hoodie_storage_faulty_fired(s)) { hoodie_assert_ok(rc); finished = 1; hoodie_assert(k > 8); }
            hoodie_storage_faulty_arm(s, HOODIE_FAULT_NONE, 0);
            hoodie_table_free(t);
            tl_counts c = counts(s, "/t");
            hoodie_assert_equal_i(1, c.done);
            t = open_table(s, "/t");
            hoodie_assert_ok(hoodie_write__recover(t, NULL));
            hoodie_table_free(t);
            c = counts(s, "/t");
            hoodie_assert_equal_i(0, c.pending);
            hoodie_assert_equal_i(1, c.done);
            char data[256];
            snprintf(data, sizeof data, "city=x/11111111-2222-3333-4444-555555555555-0_0-1-1_%s.parquet", t2);
            hoodie_assert_equal_i(0, exists(s, "/t", data));
            hoodie_storage_free(s);
            hoodie_storage_free(mem);
        }
        hoodie_assert(finished);
    }
}
