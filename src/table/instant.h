/*
 * Timeline instants and their file names (hudi-format.md §6.1-6.3).
 *
 * Layout 1 (table version 6), in .hoodie/:           T.<action>, T.<action>.requested, T.<action>.inflight
 * Layout 2 (table versions 8, 9), in .hoodie/timeline: T_C.<action> when completed, pending files as layout 1.
 * Quirk of both: a commit's inflight file is "T.inflight" (no action). Pending compaction / log compaction /
 * clustering complete as commit / deltacommit / replacecommit.
 *
 * A hoodie_instant is a plain value (no pointers); copy it freely.
 */
#ifndef HOODIE_TABLE_INSTANT_H
#define HOODIE_TABLE_INSTANT_H

#include <stddef.h>
#include <stdint.h>
#include "hoodie/common.h"

typedef enum hoodie_action {
    HOODIE_ACTION_COMMIT = 0,
    HOODIE_ACTION_DELTACOMMIT,
    HOODIE_ACTION_REPLACECOMMIT,
    HOODIE_ACTION_CLUSTERING,    /* layout 2 pending clustering; completes as replacecommit */
    HOODIE_ACTION_COMPACTION,    /* pending; completes as commit */
    HOODIE_ACTION_LOGCOMPACTION, /* pending; completes as deltacommit */
    HOODIE_ACTION_CLEAN,
    HOODIE_ACTION_ROLLBACK,
    HOODIE_ACTION_SAVEPOINT,
    HOODIE_ACTION_RESTORE,
    HOODIE_ACTION_INDEXING,
    HOODIE_ACTION_COUNT
} hoodie_action;

#define HOODIE_ACTION_BIT(a) (1u << (a))
/** The actions whose completed instants make data visible: commit, deltacommit, replacecommit. */
#define HOODIE_ACTIONS_WRITE \
    (HOODIE_ACTION_BIT(HOODIE_ACTION_COMMIT) | HOODIE_ACTION_BIT(HOODIE_ACTION_DELTACOMMIT) | \
     HOODIE_ACTION_BIT(HOODIE_ACTION_REPLACECOMMIT))
#define HOODIE_ACTIONS_ALL ((1u << HOODIE_ACTION_COUNT) - 1)

typedef enum hoodie_instant_state {
    HOODIE_STATE_REQUESTED = 0,
    HOODIE_STATE_INFLIGHT = 1,
    HOODIE_STATE_COMPLETED = 2
} hoodie_instant_state;

#define HOODIE_STATE_BIT(s) (1u << (s))
#define HOODIE_STATES_PENDING (HOODIE_STATE_BIT(HOODIE_STATE_REQUESTED) | HOODIE_STATE_BIT(HOODIE_STATE_INFLIGHT))

/** Longest instant time accepted (17 digits today; MDT 0.x appended 3 more). */
#define HOODIE_INSTANT_TIME_MAX 23

typedef struct hoodie_instant {
    char requested[HOODIE_INSTANT_TIME_MAX + 1];  /* requested instant time (digits) */
    char completion[HOODIE_INSTANT_TIME_MAX + 1]; /* completion time, "" if unknown (layout 1, legacy, pending) */
    hoodie_action action;      /* as named by the file of the current state (completed compaction: COMMIT) */
    hoodie_action plan_action; /* action of its requested/inflight files (COMPACTION for a finished compaction),
                                  equal to `action` otherwise */
    hoodie_instant_state state;
    unsigned state_files;      /* HOODIE_STATE_BIT()s of the state files present on storage */
    uint64_t size;             /* bytes of the current state's file (0: empty) */
    int64_t mtime_ms;          /* modification time of the current state's file (0 if unknown) */
} hoodie_instant;

/** "commit", "deltacommit", ... ; NULL for an invalid value. */
const char *hoodie_action_name(hoodie_action a);
/** Action from its name; HOODIE_ENOTFOUND if unknown. */
hoodie_status hoodie_action_parse(const char *name, size_t len, hoodie_action *out);
/** The action a completed instant of `a` is named with (compaction -> commit, ...). */
hoodie_action hoodie_action_completed(hoodie_action a);
const char *hoodie_state_name(hoodie_instant_state s);

/** 1 if `s` is a valid instant time (all digits, 14 to HOODIE_INSTANT_TIME_MAX long). */
int hoodie_instant_time_valid(const char *s, size_t len);
/** 1 if `s` may bound an incremental or CDC window: digits, 1 to HOODIE_INSTANT_TIME_MAX of them. Instant times
 *  compare as strings, so a shorter one is a prefix: "000" (Hudi's documented "from the beginning") or "2025". */
int hoodie_instant_bound_valid(const char *s, size_t len);

/**
 * Parse a timeline file name (no directory). Both layouts are recognised; `T_C.<action>` gives a completed
 * instant with its completion time.
 * @return HOODIE_OK; HOODIE_ENOTFOUND if the name is not an instant file (hoodie.properties, *.crc, ...).
 */
hoodie_status hoodie_instant_parse(hoodie_instant *out, const char *file_name);

/**
 * The file name of `inst` in state `state` for timeline layout 1 or 2 (completed layout-2 names use
 * inst->completion when set). Pending states use plan_action.
 * @return HOODIE_OK; HOODIE_EINVAL if it does not fit in `cap` or the instant is invalid.
 */
hoodie_status hoodie_instant_file_name(const hoodie_instant *inst, hoodie_instant_state state, int layout_version,
                                       char *dst, size_t cap);

#endif
