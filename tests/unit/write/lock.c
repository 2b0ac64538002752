/*
 * The table lock and writer heartbeats (write/lock.h): who is alive is told by the owner a file names (a process of
 * this machine, alive or gone; this process, holding or not), else by the file's age, as Java tells it.
 */
#include "hoodie_test.h"
#include "storage/storage.h"
#include "util/error.h"
#include "write/lock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* The identity line hoodie writes for process `pid` (start time as /proc tells, or `start` if given). */
static void owner_text(char *out, size_t cap, long pid, unsigned long long start)
{
    char boot[64] = "?", path[64], stat[1024];
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) { if (!fgets(boot, sizeof boot, f)) boot[0] = '?'; fclose(f); }
    boot[strcspn(boot, "\r\n")] = 0;
    if (!start) {
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        f = fopen(path, "r");
        hoodie_assert(f != NULL);
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = 0;
        const char *p = strrchr(stat, ')');
        for (int field = 3; p && field <= 22; field++) p = strchr(p + 1, ' ');
        hoodie_assert(p != NULL);
        start = strtoull(p + 1, NULL, 10);
    }
    snprintf(out, cap, "hoodie-writer boot=%s pid=%ld start=%llu\n", boot, pid, start);
}

static long dead_pid(void)
{
    pid_t c = fork();
    if (c == 0) _exit(0);
    int st;
    waitpid(c, &st, 0);
    return (long)c;
}

static int alive_with(hoodie_storage *s, const char *content)
{
    hoodie_assert_ok(hoodie_storage_write_all(s, "/t/.hoodie/.heartbeat/20260101000000000", 0, content,
                                              strlen(content)));
    hoodie_heartbeats *h;
    hoodie_assert_ok(hoodie_write__heartbeats_load(&h, s, "/t"));
    int a = hoodie_write__heartbeat_alive(h, "20260101000000000");
    hoodie_write__heartbeats_free(h);
    return a;
}

HOODIE_TEST(write_lock__heartbeat_owners)
{
    hoodie_storage *s;
    char text[256];
    hoodie_assert_ok(hoodie_storage_mem_new(&s));
    hoodie_heartbeats *h;
    hoodie_assert_ok(hoodie_write__heartbeats_load(&h, s, "/t")); /* no folder yet: none */
    hoodie_assert_equal_i(0, hoodie_write__heartbeat_alive(h, "20260101000000000"));
    hoodie_write__heartbeats_free(h);
    owner_text(text, sizeof text, (long)getppid(), 0);
    hoodie_assert_equal_i(1, alive_with(s, text));                /* another process, running */
    owner_text(text, sizeof text, dead_pid(), 12345);
    hoodie_assert_equal_i(0, alive_with(s, text));                /* another process, gone */
    owner_text(text, sizeof text, (long)getppid(), 7);
    hoodie_assert_equal_i(0, alive_with(s, text));                /* its pid, now another process's */
    owner_text(text, sizeof text, (long)getpid(), 0);
    hoodie_assert_equal_i(0, alive_with(s, text));                /* this process, not writing that instant */
    hoodie_assert_equal_i(1, alive_with(s, "hoodie-writer boot=elsewhere pid=1 start=1\n")); /* no age known */
    /* this process, writing it: alive until it stops */
    hoodie_assert_ok(hoodie_write__heartbeat_start(s, "/t", "20260102000000000"));
    hoodie_assert_status(HOODIE_EEXISTS, hoodie_write__heartbeat_start(s, "/t", "20260102000000000"));
    hoodie_error_clear();
    hoodie_assert_ok(hoodie_write__heartbeat_tick(s, "/t", "20260102000000000"));
    hoodie_assert_ok(hoodie_write__heartbeats_load(&h, s, "/t"));
    hoodie_assert_equal_i(1, hoodie_write__heartbeat_alive(h, "20260102000000000"));
    hoodie_write__heartbeats_free(h);
    hoodie_write__heartbeat_stop(s, "/t", "20260102000000000");
    hoodie_assert_equal_i(0, s->exists(s->ctx, "/t/.hoodie/.heartbeat/20260102000000000"));
    hoodie_storage_free(s);
}

HOODIE_TEST(write_lock__heartbeat_age)
{
    /* a heartbeat that names no owner hoodie can check (Java writes it empty) lives by its modification time:
     * interval x tolerable misses, 120 s */
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s/t", hoodie_test_tmpdir());
    snprintf(file, sizeof file, "%s/.hoodie/.heartbeat/20260101000000000", dir);
    const hoodie_storage *s = hoodie_storage_posix();
    hoodie_assert_ok(hoodie_storage_write_all(s, file, 0, "", 0));
    hoodie_heartbeats *h;
    hoodie_assert_ok(hoodie_write__heartbeats_load(&h, s, dir));
    hoodie_assert_equal_i(1, hoodie_write__heartbeat_alive(h, "20260101000000000"));
    hoodie_write__heartbeats_free(h);
    struct timeval old[2];
    gettimeofday(&old[0], NULL);
    old[0].tv_sec -= 3 * 60;
    old[1] = old[0];
    hoodie_assert(utimes(file, old) == 0);
    hoodie_assert_ok(hoodie_write__heartbeats_load(&h, s, dir));
    hoodie_assert_equal_i(0, hoodie_write__heartbeat_alive(h, "20260101000000000"));
    hoodie_write__heartbeats_free(h);
}

HOODIE_TEST(write_lock__table_lock)
{
    hoodie_storage *s;
    char text[256];
    hoodie_assert_ok(hoodie_storage_mem_new(&s));
    hoodie_table_lock a, b;
    hoodie_assert_ok(hoodie_write__lock(&a, s, "/t", 0));
    hoodie_assert_equal_i(1, s->exists(s->ctx, "/t/.hoodie/lock"));
    /* held by this process: a second taker waits, then gives up naming the holder */
    hoodie_assert_status(HOODIE_ECONFLICT, hoodie_write__lock(&b, s, "/t", 30));
    hoodie_assert_contains(hoodie_error_last()->message, "/t/.hoodie/lock is held by another writer (hoodie-writer");
    hoodie_assert_ok(hoodie_write__unlock(&a));
    hoodie_assert_equal_i(0, s->exists(s->ctx, "/t/.hoodie/lock"));
    /* held by a running process of this machine: waited for */
    owner_text(text, sizeof text, (long)getppid(), 0);
    hoodie_assert_ok(hoodie_storage_write_all(s, "/t/.hoodie/lock", 0, text, strlen(text)));
    hoodie_assert_status(HOODIE_ECONFLICT, hoodie_write__lock(&b, s, "/t", 20));
    /* left by a process that is gone, or by Spark with nothing hoodie can check: broken, or waited for */
    owner_text(text, sizeof text, dead_pid(), 99);
    hoodie_assert_ok(hoodie_storage_write_all(s, "/t/.hoodie/lock", 0, text, strlen(text)));
    hoodie_assert_ok(hoodie_write__lock(&b, s, "/t", 0));
    hoodie_assert_ok(hoodie_write__unlock(&b));
    const char *java = "LockInfo{lockCreateTime='2026-12-03 10:00:00.000', lockThreadName='main'}";
    hoodie_assert_ok(hoodie_storage_write_all(s, "/t/.hoodie/lock", 0, java, strlen(java)));
    hoodie_assert_status(HOODIE_ECONFLICT, hoodie_write__lock(&b, s, "/t", 10));
    hoodie_assert_contains(hoodie_error_last()->message, "if no writer is running, remove the file");
    /* a lock of this process it no longer holds (its removal failed): broken */
    hoodie_assert_ok(s->remove(s->ctx, "/t/.hoodie/lock"));
    owner_text(text, sizeof text, (long)getpid(), 0);
    hoodie_assert_ok(hoodie_storage_write_all(s, "/t/.hoodie/lock", 0, text, strlen(text)));
    hoodie_assert_ok(hoodie_write__lock(&b, s, "/t", 0));
    hoodie_assert_ok(hoodie_write__unlock(&b));
    hoodie_storage_free(s);
}
