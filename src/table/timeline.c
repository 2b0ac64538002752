#include "table/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "storage/storage.h"
#include "util/error.h"

typedef struct tl_collect {
    hoodie_instant *items;
    size_t count, cap;
    hoodie_status rc;
} tl_collect;

static int tl_on_entry(const hoodie_dirent *e, void *payload)
{
    tl_collect *c = payload;
    hoodie_instant inst;
    if (e->is_dir) return 0;
    if (hoodie_instant_parse(&inst, e->name) != HOODIE_OK) return 0; /* not an instant file: ignore */
    inst.size = e->size;
    inst.mtime_ms = e->mtime_ms;
    if (c->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        hoodie_instant *n = realloc(c->items, cap * sizeof *n);
        if (!n) {
            c->rc = HOODIE_NOMEM();
            return 1;
        }
        c->items = n;
        c->cap = cap;
    }
    c->items[c->count++] = inst;
    return 0;
}

static int tl_cmp(const void *a, const void *b)
{
    const hoodie_instant *x = a, *y = b;
    int r = strcmp(x->requested, y->requested);
    if (r) return r;
    r = (int)hoodie_action_completed(x->action) - (int)hoodie_action_completed(y->action);
    if (r) return r;
    return (int)x->state - (int)y->state;
}

hoodie_status hoodie_timeline_load_dir(hoodie_timeline **out, const hoodie_storage *s, const char *dir,
                                       int layout_version)
{
    tl_collect c = { NULL, 0, 0, HOODIE_OK };
    hoodie_timeline *tl;
    hoodie_status rc;
    *out = NULL;
    s = hoodie_storage__or_default(s);
    rc = s->list(s->ctx, dir, tl_on_entry, &c);
    if (rc == HOODIE_ENOTFOUND) rc = HOODIE_OK; /* a table without commits may lack the timeline folder */
    if (!rc) rc = c.rc;
    if (rc) {
        free(c.items);
        return rc;
    }
    if (c.count) qsort(c.items, c.count, sizeof *c.items, tl_cmp);
    /* Collapse the state files of one instant: keep the last (most advanced) state, remember the rest. */
    size_t w = 0;
    for (size_t i = 0; i < c.count; i++) {
        hoodie_instant *cur = &c.items[i];
        if (w > 0) {
            hoodie_instant *prev = &c.items[w - 1];
            if (!strcmp(prev->requested, cur->requested)
                && hoodie_action_completed(prev->action) == hoodie_action_completed(cur->action)) {
                unsigned files = prev->state_files | cur->state_files;
                hoodie_action plan = prev->plan_action;
                if (cur->state >= prev->state) *prev = *cur;
                prev->state_files = files;
                if (cur->state == HOODIE_STATE_COMPLETED && plan != prev->action) prev->plan_action = plan;
                else if (cur->state != HOODIE_STATE_COMPLETED) prev->plan_action = cur->plan_action;
                continue;
            }
        }
        c.items[w++] = *cur;
    }
    tl = calloc(1, sizeof *tl);
    if (!tl || !(tl->dir = strdup(dir))) {
        free(tl);
        free(c.items);
        return HOODIE_NOMEM();
    }
    tl->instants = c.items;
    tl->count = w;
    tl->layout_version = layout_version;
    *out = tl;
    return HOODIE_OK;
}

hoodie_status hoodie_timeline_load(hoodie_timeline **out, const hoodie_storage *s, const char *base_path,
                                   const hoodie_table_config *cfg)
{
    hoodie_buf dir = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_printf(&dir, "%s/%s", base_path, cfg->timeline_dir);
    if (!rc) rc = hoodie_timeline_load_dir(out, s, (const char *)dir.data, cfg->timeline_layout_version);
    hoodie_buf_dispose(&dir);
    return rc;
}

void hoodie_timeline_free(hoodie_timeline *tl)
{
    if (!tl) return;
    free(tl->instants);
    free(tl->dir);
    free(tl);
}

void hoodie_instant_list_dispose(hoodie_instant_list *l)
{
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

static int tl_match(const hoodie_instant *i, const hoodie_timeline_filter *f)
{
    if (f->actions && !(f->actions & HOODIE_ACTION_BIT(i->action))) return 0;
    if (f->states && !(f->states & HOODIE_STATE_BIT(i->state))) return 0;
    if (f->as_of && strcmp(i->requested, f->as_of) > 0) return 0;
    if (f->completed_before && (!i->completion[0] || strcmp(i->completion, f->completed_before) > 0)) return 0;
    return 1;
}

hoodie_status hoodie_timeline_select(const hoodie_timeline *tl, const hoodie_timeline_filter *f,
                                     hoodie_instant_list *out)
{
    out->count = 0;
    out->items = malloc((tl->count ? tl->count : 1) * sizeof *out->items);
    if (!out->items) return HOODIE_NOMEM();
    for (size_t i = 0; i < tl->count; i++)
        if (tl_match(&tl->instants[i], f)) out->items[out->count++] = &tl->instants[i];
    return HOODIE_OK;
}

hoodie_status hoodie_timeline_completed_writes(const hoodie_timeline *tl, const char *as_of,
                                               hoodie_instant_list *out)
{
    hoodie_timeline_filter f = { HOODIE_ACTIONS_WRITE, HOODIE_STATE_BIT(HOODIE_STATE_COMPLETED), as_of, NULL };
    return hoodie_timeline_select(tl, &f, out);
}

const hoodie_instant *hoodie_timeline_find(const hoodie_timeline *tl, const char *t, hoodie_action action)
{
    /* binary search for the first instant with requested >= t */
    size_t lo = 0, hi = tl->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(tl->instants[mid].requested, t) < 0) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < tl->count && !strcmp(tl->instants[i].requested, t); i++)
        if (action == HOODIE_ACTION_COUNT
            || hoodie_action_completed(tl->instants[i].action) == hoodie_action_completed(action))
            return &tl->instants[i];
    return NULL;
}

int hoodie_timeline_is_completed(const hoodie_timeline *tl, const char *t, unsigned actions)
{
    size_t lo = 0, hi = tl->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(tl->instants[mid].requested, t) < 0) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < tl->count && !strcmp(tl->instants[i].requested, t); i++)
        if (tl->instants[i].state == HOODIE_STATE_COMPLETED
            && (!actions || (actions & HOODIE_ACTION_BIT(tl->instants[i].action))))
            return 1;
    return 0;
}

const hoodie_instant *hoodie_timeline_last_completed(const hoodie_timeline *tl, unsigned actions)
{
    for (size_t i = tl->count; i-- > 0;)
        if (tl->instants[i].state == HOODIE_STATE_COMPLETED
            && (!actions || (actions & HOODIE_ACTION_BIT(tl->instants[i].action))))
            return &tl->instants[i];
    return NULL;
}

int hoodie_timeline_before_start(const hoodie_timeline *tl, const char *t)
{
    return tl->count > 0 && strcmp(t, tl->instants[0].requested) < 0;
}

hoodie_status hoodie_timeline_instant_path(const hoodie_timeline *tl, const hoodie_instant *inst,
                                           hoodie_instant_state state, hoodie_buf *out)
{
    char name[128];
    HOODIE_TRY(hoodie_instant_file_name(inst, state, tl->layout_version, name, sizeof name));
    hoodie_buf_clear(out);
    HOODIE_TRY(hoodie_buf_printf(out, "%s/%s", tl->dir, name));
    return hoodie_buf_cstr(out);
}
