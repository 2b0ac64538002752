#include "merge/sorted_merge.h"
#include "merge/losertree.h"
#include "model/build.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

typedef struct src_state {
    hoodie_batch batch;
    uint8_t *deleted;     /* per-row delete flags or NULL */
    int64_t row, len;
    int done;
} src_state;

/* A candidate version of the current key. */
typedef struct cand {
    int set;
    int after_delete;             /* a log version that follows a delete of the key: nothing fills it from the base */
    int after_natural;            /* ... a delete without an ordering value: it removed the base record, whatever the
                                     ordering values (as the hash merge, read/slice_merge.c) */
    hoodie_row_ref ref;
    hoodie_merge_version ver;
} cand;

struct hoodie_sorted_merge {
    hoodie_sorted_merge_cfg cfg;
    const hoodie_sorted_source *srcs;
    uint32_t k;
    src_state *st;                /* k sources */
    hoodie_batch carry;           /* source number k: candidates that outlived their source's batch */
    hoodie_batch aux;             /* source number k + 1: records made of two (fills), until gathered */
    hoodie_fill_spec fill;        /* policy.toast_fill / partial: what a winner takes from the loser */
    const hoodie_batch **bptr;    /* k + 2 batch pointers for the gather */
    hoodie_losertree lt;
    int lt_ready;
    hoodie_row_ref *sel;          /* rows chosen but not yet gathered */
    uint8_t *sel_del;
    size_t n_sel, cap_sel;
    hoodie_batch out;             /* output being filled */
    uint8_t *out_del;
    size_t cap_out_del;
    uint8_t *key;                 /* the current key */
    size_t key_len, key_cap;
    int in_key, finished;
    cand base, log;
    hoodie_sorted_merge_stats stats;
};

static inline void key_of(const hoodie_batch *b, int col, int64_t r, const uint8_t **p, size_t *n)
{
    hoodie_array_bytes_or_empty(&b->root.children[col], r, p, n);
}

static int cmp_heads(void *ctx, uint32_t a, uint32_t b)
{
    hoodie_sorted_merge *m = ctx;
    const uint8_t *pa, *pb;
    size_t na, nb;
    key_of(&m->st[a].batch, m->cfg.key_col, m->st[a].row, &pa, &na);
    key_of(&m->st[b].batch, m->cfg.key_col, m->st[b].row, &pb, &nb);
    return hoodie_sorted_key_compare(pa, na, pb, nb);
}

static void ordering_of(const hoodie_sorted_merge *m, const hoodie_batch *b, int64_t r, hoodie_ordering *o)
{
    if (m->cfg.ordering_col >= 0) {
        hoodie_ordering_of(o, &b->schema.children[m->cfg.ordering_col], &b->root.children[m->cfg.ordering_col], r);
        if (m->cfg.policy.seq_ordering) hoodie_ordering_seq(o);
    } else {
        memset(o, 0, sizeof *o);
    }
}

static void version_of(const hoodie_sorted_merge *m, uint32_t s, int64_t r, hoodie_merge_version *v)
{
    const src_state *st = &m->st[s];
    memset(v, 0, sizeof *v);
    ordering_of(m, &st->batch, r, &v->ord);
    v->is_delete = st->deleted && st->deleted[r];
    if (!v->is_delete && m->cfg.deleted_col >= 0) {
        const hoodie_array *d = &st->batch.root.children[m->cfg.deleted_col];
        v->is_delete = hoodie_array_is_valid(d, r) && hoodie_bit_get(d->values, r);
    }
    if (!v->is_delete && m->cfg.marker) v->is_delete = hoodie_delete_marked(m->cfg.marker, &st->batch, r);
}

/* Load source s's next non-empty batch (its current one must no longer be referenced). */
static hoodie_status load(hoodie_sorted_merge *m, uint32_t s)
{
    src_state *st = &m->st[s];
    for (;;) {
        hoodie_batch b;
        uint8_t *del = NULL;
        hoodie_status rc = m->srcs[s].next(m->srcs[s].ctx, &b, &del);
        if (rc == HOODIE_ITEROVER) {
            st->done = 1;
            st->row = st->len = 0;
            hoodie_array_clear(&st->batch.root);
            for (size_t c = 0; c < st->batch.root.n_children; c++) hoodie_array_clear(&st->batch.root.children[c]);
            free(st->deleted);
            st->deleted = NULL;
            return HOODIE_OK;
        }
        if (rc < 0) return rc;
        hoodie_batch_dispose(&st->batch);
        free(st->deleted);
        st->batch = b;
        st->deleted = del;
        st->row = 0;
        st->len = b.root.length;
        if (st->len > 0) return HOODIE_OK;
    }
}

static hoodie_status sel_push(hoodie_sorted_merge *m, hoodie_row_ref ref, int kind)
{
    if (m->n_sel == m->cap_sel) {
        size_t nc = m->cap_sel ? m->cap_sel * 2 : 1024;
        hoodie_row_ref *s = realloc(m->sel, nc * sizeof *s);
        if (!s) return HOODIE_NOMEM();
        m->sel = s;
        uint8_t *d = realloc(m->sel_del, nc);
        if (!d) return HOODIE_NOMEM();
        m->sel_del = d;
        m->cap_sel = nc;
    }
    m->sel[m->n_sel] = ref;
    m->sel_del[m->n_sel] = (uint8_t)kind; /* hoodie_sorted_row_kind */
    m->n_sel++;
    return HOODIE_OK;
}

/* Gather the selected rows into the output batch (before any referenced batch goes away). */
static hoodie_status flush(hoodie_sorted_merge *m)
{
    if (!m->n_sel) return HOODIE_OK;
    size_t have = (size_t)m->out.root.length;
    if (m->cfg.keep_deletes) {
        size_t need = have + m->n_sel;
        if (need > m->cap_out_del) {
            size_t nc = m->cap_out_del ? m->cap_out_del : 1024;
            while (nc < need) nc *= 2;
            uint8_t *d = realloc(m->out_del, nc);
            if (!d) return HOODIE_NOMEM();
            m->out_del = d;
            m->cap_out_del = nc;
        }
        memcpy(m->out_del + have, m->sel_del, m->n_sel);
    }
    HOODIE_TRY(hoodie_batch_take(&m->out, m->bptr, m->k + 2, m->sel, m->n_sel));
    m->stats.rows_out += m->n_sel;
    m->n_sel = 0;
    uint32_t a = m->k + 1;
    if (m->aux.root.length && !(m->base.set && m->base.ref.source == a) && !(m->log.set && m->log.ref.source == a)) {
        hoodie_array_clear(&m->aux.root);
        for (size_t c = 0; c < m->aux.root.n_children; c++) hoodie_array_clear(&m->aux.root.children[c]);
    }
    return HOODIE_OK;
}

/*
 * The winner `w` of a merge, given the loser `l`: itself, or, when it lacks values the loser has (m->fill), a
 * record made in the aux batch of it with the loser's values there (record_merge.h hoodie_fill_spec). The aux
 * batch may move: a candidate set to the result borrows its ordering value again.
 */
static hoodie_status fill_winner(hoodie_sorted_merge *m, hoodie_row_ref w, hoodie_row_ref l, int disorder,
                                 hoodie_row_ref *out)
{
    const hoodie_batch *wb = m->bptr[w.source], *lb = m->bptr[l.source];
    *out = w;
    if (!hoodie_fill_wanted(&m->fill, wb, w.row, lb, l.row, disorder)) return HOODIE_OK;
    out->source = m->k + 1;
    return hoodie_fill_append(&m->fill, &m->aux, wb, w.row, lb, l.row, disorder, -1, &out->row);
}

/* Emit the winner of the current key. */
static hoodie_status finish_key(hoodie_sorted_merge *m)
{
    const cand *w = NULL;
    if (m->base.set && m->log.set)
        w = m->log.after_natural || hoodie_merge_newer_wins(m->cfg.policy.base, &m->base.ver, &m->log.ver) ? &m->log
                                                                                                          : &m->base;
    else if (m->base.set)
        w = &m->base;
    else if (m->log.set)
        w = &m->log;
    hoodie_row_ref ref = w ? w->ref : (hoodie_row_ref){ 0, 0 };
    /* a log record replacing the base record takes its missing values from it, unless it follows a delete of the
     * key (it is a new record); with partial updates (fill.both) the base record winning takes them from the log
     * record too */
    if (w && m->fill.cols && m->base.set && m->log.set && !m->base.ver.is_delete && !m->log.ver.is_delete &&
        (w == &m->log ? !m->log.after_delete : m->fill.both)) {
        hoodie_status rc = fill_winner(m, w->ref, w == &m->log ? m->base.ref : m->log.ref, w == &m->base, &ref);
        if (rc < 0) return rc;
    }
    int is_delete = w && w->ver.is_delete;
    int kind = is_delete ? HOODIE_SORTED_DELETE : HOODIE_SORTED_RECORD;
    if (w == &m->log && m->log.after_natural)
        kind = is_delete ? HOODIE_SORTED_NATURAL_DELETE : HOODIE_SORTED_RECORD_AFTER_NATURAL;
    else if (w == &m->log && m->log.after_delete && !is_delete)
        kind = HOODIE_SORTED_RECORD_AFTER_DELETE;
    m->base.set = m->log.set = 0;
    m->in_key = 0;
    if (!w || (is_delete && !m->cfg.keep_deletes)) return HOODIE_OK;
    return sel_push(m, ref, kind);
}

static hoodie_status fold(hoodie_sorted_merge *m, uint32_t s, int64_t r)
{
    hoodie_merge_version v;
    version_of(m, s, r, &v);
    cand *c = m->cfg.first_is_base && s == 0 ? &m->base : &m->log;
    hoodie_row_ref here = { s, r };
    if (!c->set) {
        c->set = 1;
        c->after_delete = c->after_natural = 0;
        c->ref = here;
        c->ver = v;
        return HOODIE_OK;
    }
    int newer = hoodie_merge_newer_wins(m->cfg.policy.log_fold, &c->ver, &v);
    /* partial updates: the winner of two log versions takes the loser's values where it lacks its own */
    if (m->fill.both && c != &m->base && !c->ver.is_delete && !v.is_delete) {
        hoodie_row_ref ref;
        HOODIE_TRY(fill_winner(m, newer ? here : c->ref, newer ? c->ref : here, !newer, &ref));
        if (newer) c->ver = v;
        c->ref = ref;
        if (ref.source == m->k + 1) ordering_of(m, &m->aux, ref.row, &c->ver.ord);
        return HOODIE_OK;
    }
    if (newer) {
        c->after_delete = c->after_delete || (c->ver.is_delete && !v.is_delete);
        c->after_natural = c->after_natural || (c->ver.is_delete && hoodie_ordering_is_natural(&c->ver.ord));
        c->ref = here;
        c->ver = v;
    }
    return HOODIE_OK;
}

/* Source s is about to replace its batch: candidates in it (or in the carry) move to a new carry batch. */
static hoodie_status carry(hoodie_sorted_merge *m, uint32_t s)
{
    cand *cs[2] = { &m->base, &m->log };
    hoodie_row_ref refs[2];
    size_t n = 0;
    for (int i = 0; i < 2; i++)
        if (cs[i]->set && (cs[i]->ref.source == s || cs[i]->ref.source == m->k)) refs[n++] = cs[i]->ref;
    if (!n) return HOODIE_OK;
    hoodie_batch nb;
    HOODIE_TRY(hoodie_batch_init(&nb, m->cfg.schema));
    hoodie_status rc = hoodie_batch_take(&nb, m->bptr, m->k + 2, refs, n);
    if (rc < 0) { hoodie_batch_dispose(&nb); return rc; }
    hoodie_batch_dispose(&m->carry);
    m->carry = nb;
    size_t j = 0;
    for (int i = 0; i < 2; i++)
        if (cs[i]->set && (cs[i]->ref.source == s || cs[i]->ref.source == m->k)) {
            cs[i]->ref.source = m->k;
            cs[i]->ref.row = (int64_t)j++;
            ordering_of(m, &m->carry, cs[i]->ref.row, &cs[i]->ver.ord); /* re-borrow from the carry */
        }
    return HOODIE_OK;
}

void hoodie_sorted_merge_free(hoodie_sorted_merge *m)
{
    if (!m) return;
    for (uint32_t i = 0; m->st && i < m->k; i++) {
        hoodie_batch_dispose(&m->st[i].batch);
        free(m->st[i].deleted);
    }
    free(m->st);
    hoodie_batch_dispose(&m->carry);
    hoodie_batch_dispose(&m->aux);
    hoodie_fill_spec_dispose(&m->fill);
    hoodie_batch_dispose(&m->out);
    free(m->bptr);
    if (m->lt_ready) hoodie_losertree_dispose(&m->lt);
    free(m->sel);
    free(m->sel_del);
    free(m->out_del);
    free(m->key);
    free(m);
}

hoodie_status hoodie_sorted_merge_open(hoodie_sorted_merge **out, const hoodie_sorted_merge_cfg *cfg,
                                       const hoodie_sorted_source *sources, size_t k)
{
    *out = NULL;
    if (k == 0 || k >= UINT32_MAX / 2) return HOODIE_FAIL(HOODIE_EINVAL, "a sorted merge needs 1 .. 2^31 sources");
    if (cfg->key_col < 0 || (size_t)cfg->key_col >= cfg->schema->n_children ||
        (cfg->schema->children[cfg->key_col].type.id != HOODIE_TYPE_STRING &&
         cfg->schema->children[cfg->key_col].type.id != HOODIE_TYPE_BINARY))
        return HOODIE_FAIL(HOODIE_EINVAL, "the record key column of a sorted merge must be a string column");
    hoodie_sorted_merge *m = calloc(1, sizeof *m);
    if (!m) return HOODIE_NOMEM();
    m->cfg = *cfg;
    if (m->cfg.batch_rows <= 0) m->cfg.batch_rows = 65536;
    m->srcs = sources;
    m->k = (uint32_t)k;
    hoodie_status rc = HOODIE_OK;
    m->st = calloc(k, sizeof *m->st);
    m->bptr = calloc(k + 2, sizeof *m->bptr);
    uint8_t *exhausted = calloc(k, 1);
    if (!m->st || !m->bptr || !exhausted) rc = HOODIE_NOMEM();
    for (uint32_t i = 0; rc == HOODIE_OK && i < m->k; i++) {
        rc = hoodie_batch_init(&m->st[i].batch, cfg->schema);
        m->bptr[i] = &m->st[i].batch;
    }
    if (rc == HOODIE_OK) rc = hoodie_batch_init(&m->carry, cfg->schema);
    if (rc == HOODIE_OK) rc = hoodie_batch_init(&m->out, cfg->schema);
    if (rc == HOODIE_OK) rc = hoodie_batch_init(&m->aux, cfg->schema);
    if (rc == HOODIE_OK) rc = hoodie_fill_spec_init(&m->fill, &cfg->policy, cfg->schema);
    if (m->bptr) m->bptr[k] = &m->carry, m->bptr[k + 1] = &m->aux;
    for (uint32_t i = 0; rc == HOODIE_OK && i < m->k; i++) {
        rc = load(m, i);
        exhausted[i] = (uint8_t)m->st[i].done;
    }
    if (rc == HOODIE_OK) rc = hoodie_losertree_init(&m->lt, m->k, cmp_heads, m);
    if (rc == HOODIE_OK) {
        m->lt_ready = 1;
        hoodie_losertree_build(&m->lt, exhausted);
    }
    free(exhausted);
    if (rc < 0) { hoodie_sorted_merge_free(m); return rc; }
    *out = m;
    return HOODIE_OK;
}

static hoodie_status set_key(hoodie_sorted_merge *m, const uint8_t *p, size_t n)
{
    if (n > m->key_cap) {
        size_t nc = m->key_cap ? m->key_cap : 64;
        while (nc < n) nc *= 2;
        uint8_t *k = realloc(m->key, nc);
        if (!k) return HOODIE_NOMEM();
        m->key = k;
        m->key_cap = nc;
    }
    if (n) memcpy(m->key, p, n);
    m->key_len = n;
    return HOODIE_OK;
}

/* Hand the output batch to the caller. */
static hoodie_status take_out(hoodie_sorted_merge *m, hoodie_batch *out, uint8_t **deleted)
{
    if (deleted) *deleted = NULL;
    if (m->out.root.length == 0) return HOODIE_ITEROVER;
    if (m->cfg.keep_deletes && deleted) {
        *deleted = m->out_del;
        m->out_del = NULL;
        m->cap_out_del = 0;
    }
    *out = m->out;
    hoodie_status rc = hoodie_batch_init(&m->out, m->cfg.schema);
    if (rc < 0) {
        hoodie_batch_dispose(out);
        if (deleted) { free(*deleted); *deleted = NULL; }
        memset(&m->out, 0, sizeof m->out);
        m->finished = 1;
    }
    return rc;
}

hoodie_status hoodie_sorted_merge_next(hoodie_sorted_merge *m, hoodie_batch *out, uint8_t **deleted)
{
    hoodie_status rc = HOODIE_OK;
    int64_t limit = m->cfg.batch_rows;
    while (!m->finished) {
        if (m->out.root.length + (int64_t)m->n_sel >= limit) {
            HOODIE_TRY(flush(m));
            return take_out(m, out, deleted);
        }
        uint32_t top = hoodie_losertree_top(&m->lt);
        if (top == HOODIE_LT_NONE) {
            if (m->in_key) HOODIE_TRY(finish_key(m));
            m->finished = 1;
            break;
        }
        src_state *st = &m->st[top];
        if (!m->in_key || !hoodie_losertree_same_key(&m->lt)) {
            if (m->in_key) {
                HOODIE_TRY(finish_key(m));
                if (m->out.root.length + (int64_t)m->n_sel >= limit) continue; /* emit before the next key */
            }
            const uint8_t *p;
            size_t n;
            key_of(&st->batch, m->cfg.key_col, st->row, &p, &n);
            HOODIE_TRY(set_key(m, p, n));
            m->in_key = 1;
            m->stats.keys++;
        }
        HOODIE_TRY(fold(m, top, st->row));
        m->stats.rows_in++;
        st->row++;
        if (st->row >= st->len) {
            HOODIE_TRY(flush(m));
            HOODIE_TRY(carry(m, top));
            HOODIE_TRY(load(m, top));
        }
        int repeats = 0;
        if (!st->done && !m->cfg.unique_sources) {
            const uint8_t *p;
            size_t n;
            key_of(&st->batch, m->cfg.key_col, st->row, &p, &n);
            m->stats.repeat_checks++;
            int c = hoodie_sorted_key_compare(p, n, m->key, m->key_len);
            if (c < 0) {
                rc = HOODIE_FAIL(HOODIE_ECORRUPT, "sorted merge: source %u is not sorted by record key (row %lld)",
                                 top, (long long)st->row);
                m->finished = 1;
                return rc;
            }
            repeats = c == 0;
        }
        hoodie_losertree_advance(&m->lt, st->done, repeats);
    }
    HOODIE_TRY(flush(m));
    return take_out(m, out, deleted);
}

void hoodie_sorted_merge_stats_get(const hoodie_sorted_merge *m, hoodie_sorted_merge_stats *out)
{
    *out = m->stats;
    out->comparisons = m->lt.comparisons;
}
