/*
 * Several writers on one table: the table lock and writer heartbeats.
 *
 * The table lock is Hudi's FileSystemBasedLockProvider file, <base>/.hoodie/lock, created atomically
 * (create-if-absent) and removed to unlock, so hoodie and a Spark writer configured with that provider exclude each
 * other. hoodie holds it only for short critical sections: rolling back dead writers, and a commit's conflict check
 * with its completed instant. Its content names the holder (boot id, process id, process start time): a lock left by
 * a dead process of this machine is broken at once; any other lock is waited for, then refused with its holder named.
 *
 * A heartbeat is Hudi's <base>/.hoodie/.heartbeat/<instant>: it exists while a writer works on that instant and is
 * rewritten every HOODIE_HEARTBEAT_INTERVAL_MS. Java judges a heartbeat by its modification time (expired after
 * interval x 2 tolerable misses); hoodie writes its identity in it too, so a heartbeat of a process of this machine
 * that is gone (or of this process, for an instant it no longer writes) is dead at once. A pending write instant
 * without a live heartbeat belongs to a dead writer: the next writer rolls it back (Hudi's eager policy when there is
 * no heartbeat, its lazy one when there is).
 */
#ifndef HOODIE_WRITE_LOCK_H
#define HOODIE_WRITE_LOCK_H

#include "hoodie/sys/storage.h"

#include <stdint.h>

#define HOODIE_HEARTBEAT_INTERVAL_MS 60000 /* hoodie.client.heartbeat.interval_in_ms */
#define HOODIE_HEARTBEAT_MISSES 2          /* hoodie.client.heartbeat.tolerable.misses */
#define HOODIE_LOCK_WAIT_MS 60000          /* hoodie.write.lock.wait_time_ms */

typedef struct hoodie_table_lock {
    const hoodie_storage *s;
    char *path;   /* malloc: <base>/.hoodie/lock; NULL when not held */
} hoodie_table_lock;

/* Take the table lock, waiting up to wait_ms (negative: HOODIE_LOCK_WAIT_MS, or $HOODIE_LOCK_WAIT_MS); held by
 * someone else past that: HOODIE_ECONFLICT naming the holder. */
hoodie_status hoodie_write__lock(hoodie_table_lock *l, const hoodie_storage *s, const char *base_path, int64_t wait_ms);

/* Release it (nothing if not held). A failed removal leaves a lock of this process, which the next taker breaks. */
hoodie_status hoodie_write__unlock(hoodie_table_lock *l);

/* Start the heartbeat of `instant` before its requested file exists (HOODIE_EEXISTS: the time is taken). */
hoodie_status hoodie_write__heartbeat_start(const hoodie_storage *s, const char *base_path, const char *instant);

/* Rewrite it if half an interval has passed since the last beat of this process for it. */
hoodie_status hoodie_write__heartbeat_tick(const hoodie_storage *s, const char *base_path, const char *instant);

/* Stop beating (always) and remove the file (best effort: a leftover is dead, this process no longer beats it). */
void hoodie_write__heartbeat_stop(const hoodie_storage *s, const char *base_path, const char *instant);

/* The heartbeats of a table, as read once. */
typedef struct hoodie_heartbeats hoodie_heartbeats;

hoodie_status hoodie_write__heartbeats_load(hoodie_heartbeats **out, const hoodie_storage *s, const char *base_path);

/* Whether a writer is alive on `instant`. */
int hoodie_write__heartbeat_alive(const hoodie_heartbeats *h, const char *instant);

/* Remove the dead heartbeats of instants not pending (pending(ctx, instant) == 0): leftovers of finished writes,
 * or of writers that died before their instant reached the timeline. gone (may be NULL) is called with each. */
void hoodie_write__heartbeats_prune(const hoodie_heartbeats *h, int (*pending)(void *ctx, const char *instant),
                                    void (*gone)(void *ctx, const char *instant), void *ctx);

void hoodie_write__heartbeats_free(hoodie_heartbeats *h);

#endif
