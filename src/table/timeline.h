/*
 * The active timeline (hudi-format.md §6): the instant files of .hoodie/ (layout 1) or .hoodie/timeline/
 * (layout 2), listed once and collapsed to one instant per (requested time, completed action) in its most
 * advanced state, sorted by requested time. Archived / LSM-history instants are not loaded.
 *
 * Completion times: layout 2 takes them from the T_C file names. Layout 1 has none (hoodie_instant.completion
 * is ""); the completed file's modification time is kept in mtime_ms for callers that need an order
 * (that is what Java 1.x uses for v6 instants; hudi-format.md §6.3 marks it UNCONFIRMED).
 *
 * Memory: owned by the hoodie_timeline, valid until hoodie_timeline_free(). Immutable after load.
 */
#ifndef HOODIE_TABLE_TIMELINE_H
#define HOODIE_TABLE_TIMELINE_H

#include "hoodie/sys/storage.h"
#include "table/config.h"
#include "table/instant.h"
#include "util/buf.h"

typedef struct hoodie_timeline {
    hoodie_instant *instants; /* sorted by (requested, completed action) */
    size_t count;
    char *dir;                /* the timeline directory, base path included */
    int layout_version;       /* 1 or 2 */
} hoodie_timeline;

/** Load the active timeline of the table at base_path (storage NULL: POSIX) with its config. */
hoodie_status hoodie_timeline_load(hoodie_timeline **out, const hoodie_storage *s, const char *base_path,
                                   const hoodie_table_config *cfg);
/** Load from a timeline directory; a missing directory gives an empty timeline. */
hoodie_status hoodie_timeline_load_dir(hoodie_timeline **out, const hoodie_storage *s, const char *dir,
                                       int layout_version);
void hoodie_timeline_free(hoodie_timeline *tl);

/** Selection criteria; zero-initialise, then set what matters (0 masks mean "all"). */
typedef struct hoodie_timeline_filter {
    unsigned actions;          /* HOODIE_ACTION_BIT()s of `action` (the current, completed-form name) */
    unsigned states;           /* HOODIE_STATE_BIT()s */
    const char *as_of;         /* keep requested <= as_of (time travel; requested-time axis) */
    const char *completed_before; /* keep instants with a completion time <= this (layout 2 only) */
} hoodie_timeline_filter;

typedef struct hoodie_instant_list {
    const hoodie_instant **items; /* borrowed from the timeline; the array is malloc'd */
    size_t count;
} hoodie_instant_list;

hoodie_status hoodie_timeline_select(const hoodie_timeline *tl, const hoodie_timeline_filter *f,
                                     hoodie_instant_list *out);
void hoodie_instant_list_dispose(hoodie_instant_list *l);

/** Completed commit/deltacommit/replacecommit instants, requested <= as_of (NULL: all). */
hoodie_status hoodie_timeline_completed_writes(const hoodie_timeline *tl, const char *as_of,
                                               hoodie_instant_list *out);

/** The instant requested at `t` whose completed action is hoodie_action_completed(action); NULL if absent.
 *  action HOODIE_ACTION_COUNT: any action (the first). */
const hoodie_instant *hoodie_timeline_find(const hoodie_timeline *tl, const char *t, hoodie_action action);
/** 1 if some completed instant was requested at `t` with an action in `actions`. */
int hoodie_timeline_is_completed(const hoodie_timeline *tl, const char *t, unsigned actions);
/** The last completed instant with an action in `actions`, or NULL. */
const hoodie_instant *hoodie_timeline_last_completed(const hoodie_timeline *tl, unsigned actions);
/** 1 if `t` sorts before the first instant of the active timeline (archived: treat as committed). */
int hoodie_timeline_before_start(const hoodie_timeline *tl, const char *t);

/** Full path of the file holding `inst` in `state` (the content to decode) into `out` (NUL-terminated). */
hoodie_status hoodie_timeline_instant_path(const hoodie_timeline *tl, const hoodie_instant *inst,
                                           hoodie_instant_state state, hoodie_buf *out);

#endif
