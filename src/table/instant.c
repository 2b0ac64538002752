#include "table/instant.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

static const char *const action_names[HOODIE_ACTION_COUNT] = {
    "commit", "deltacommit", "replacecommit", "clustering", "compaction", "logcompaction",
    "clean",  "rollback",    "savepoint",     "restore",    "indexing",
};

const char *hoodie_action_name(hoodie_action a)
{
    return (unsigned)a < HOODIE_ACTION_COUNT ? action_names[a] : NULL;
}

hoodie_status hoodie_action_parse(const char *name, size_t len, hoodie_action *out)
{
    for (int i = 0; i < HOODIE_ACTION_COUNT; i++)
        if (strlen(action_names[i]) == len && memcmp(action_names[i], name, len) == 0) {
            *out = (hoodie_action)i;
            return HOODIE_OK;
        }
    return HOODIE_ENOTFOUND;
}

hoodie_action hoodie_action_completed(hoodie_action a)
{
    switch (a) {
    case HOODIE_ACTION_COMPACTION: return HOODIE_ACTION_COMMIT;
    case HOODIE_ACTION_LOGCOMPACTION: return HOODIE_ACTION_DELTACOMMIT;
    case HOODIE_ACTION_CLUSTERING: return HOODIE_ACTION_REPLACECOMMIT;
    default: return a;
    }
}

const char *hoodie_state_name(hoodie_instant_state s)
{
    switch (s) {
    case HOODIE_STATE_REQUESTED: return "requested";
    case HOODIE_STATE_INFLIGHT: return "inflight";
    case HOODIE_STATE_COMPLETED: return "completed";
    }
    return "?";
}

int hoodie_instant_time_valid(const char *s, size_t len)
{
    if (len < 14 || len > HOODIE_INSTANT_TIME_MAX) return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

int hoodie_instant_bound_valid(const char *s, size_t len)
{
    if (len < 1 || len > HOODIE_INSTANT_TIME_MAX) return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

hoodie_status hoodie_instant_parse(hoodie_instant *out, const char *name)
{
    const char *dot = strchr(name, '.');
    const char *us, *rest, *dot2;
    size_t tlen;
    memset(out, 0, sizeof *out);
    if (!dot) return HOODIE_ENOTFOUND;
    us = memchr(name, '_', (size_t)(dot - name));
    tlen = (size_t)((us ? us : dot) - name);
    if (!hoodie_instant_time_valid(name, tlen)) return HOODIE_ENOTFOUND;
    memcpy(out->requested, name, tlen);
    if (us) {
        size_t clen = (size_t)(dot - us - 1);
        if (!hoodie_instant_time_valid(us + 1, clen)) return HOODIE_ENOTFOUND;
        memcpy(out->completion, us + 1, clen);
    }
    rest = dot + 1;
    dot2 = strchr(rest, '.');
    if (!dot2) {
        if (!us && strcmp(rest, "inflight") == 0) { /* T.inflight: a commit in flight */
            out->action = out->plan_action = HOODIE_ACTION_COMMIT;
            out->state = HOODIE_STATE_INFLIGHT;
            out->state_files = HOODIE_STATE_BIT(out->state);
            return HOODIE_OK;
        }
        if (hoodie_action_parse(rest, strlen(rest), &out->action)) return HOODIE_ENOTFOUND;
        /* pending-only actions never name a completed file */
        if (hoodie_action_completed(out->action) != out->action) return HOODIE_ENOTFOUND;
        out->plan_action = out->action;
        out->state = HOODIE_STATE_COMPLETED;
    } else {
        if (us) return HOODIE_ENOTFOUND; /* T_C is only for completed instants */
        if (hoodie_action_parse(rest, (size_t)(dot2 - rest), &out->action)) return HOODIE_ENOTFOUND;
        out->plan_action = out->action;
        if (strcmp(dot2 + 1, "requested") == 0) out->state = HOODIE_STATE_REQUESTED;
        else if (strcmp(dot2 + 1, "inflight") == 0) out->state = HOODIE_STATE_INFLIGHT;
        else return HOODIE_ENOTFOUND;
    }
    out->state_files = HOODIE_STATE_BIT(out->state);
    return HOODIE_OK;
}

hoodie_status hoodie_instant_file_name(const hoodie_instant *inst, hoodie_instant_state state, int layout_version,
                                       char *dst, size_t cap)
{
    int n;
    if (!hoodie_instant_time_valid(inst->requested, strlen(inst->requested)) || !hoodie_action_name(inst->action)
        || !hoodie_action_name(inst->plan_action))
        return HOODIE_FAIL(HOODIE_EINVAL, "invalid instant");
    if (state == HOODIE_STATE_COMPLETED) {
        const char *a = hoodie_action_name(hoodie_action_completed(inst->action));
        if (layout_version >= 2 && inst->completion[0])
            n = snprintf(dst, cap, "%s_%s.%s", inst->requested, inst->completion, a);
        else
            n = snprintf(dst, cap, "%s.%s", inst->requested, a);
    } else if (state == HOODIE_STATE_INFLIGHT && inst->plan_action == HOODIE_ACTION_COMMIT) {
        n = snprintf(dst, cap, "%s.inflight", inst->requested);
    } else {
        n = snprintf(dst, cap, "%s.%s.%s", inst->requested, hoodie_action_name(inst->plan_action),
                     state == HOODIE_STATE_INFLIGHT ? "inflight" : "requested");
    }
    if (n < 0 || (size_t)n >= cap) return HOODIE_FAIL(HOODIE_EINVAL, "instant file name does not fit");
    return HOODIE_OK;
}
