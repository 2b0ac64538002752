#include "read/slice_merge.h"
#include "model/build.h"
#include "model/conform.h"
#include "util/error.h"
#include "util/alloc.h"
#include "util/hash.h"

#include <stdlib.h>
#include <string.h>

/*
 * The winning version of one key among the log items. Compact (24 bytes; a slice can hold millions of log
 * keys): an integer ordering value (the usual case) is kept here, any other is read again from the record or
 * the delete it came from when a later version is compared with it (entry_version).
 */
/* A slot of the key table: a key's 32-bit hash and 1 + its entry's index (0: empty). 8 bytes a slot, where a
 * general map holding key pointers needs 24. */
typedef struct kslot {
    uint32_t hash;
    uint32_t idx;
} kslot;

typedef struct log_entry {
    int64_t ord;           /* the ordering value when ord_int */
    uint32_t src;          /* 1 + index into m->batches, or 0 for a delete (no row) */
    uint32_t row;          /* row of srcs[src]; a delete: index into m->dels */
    uint8_t is_delete;
    uint8_t ord_int;       /* the ordering value is an integer, in ord */
    uint8_t consumed;
    uint8_t after_natural; /* a natural-order delete came before the version: it removed the base record, whatever
                              the version is */
    uint8_t after_delete;  /* a delete (any; after_natural implies it) came before the version: nothing fills it from
                              the base record */
} log_entry;

struct hoodie_slice_merger {
    hoodie_slice_merge_cfg cfg;
    hoodie_log_items *items;
    const hoodie_batch **srcs;   /* [0] = the current base batch, [1..] = log data batches */
    size_t n_srcs;
    int64_t replaced, deleted;   /* base rows a log version replaced, and deleted */
    kslot *slots;                /* key -> entry: open addressing, linear probing; keys read through the entry */
    size_t slot_mask;
    log_entry *entries;
    size_t n_entries, cap_entries;
    const hoodie_hlog_delete **dels; /* the deletes entries refer to (log_entry.row) */
    size_t n_dels, cap_dels;
    hoodie_row_ref *sel;
    size_t sel_cap;
    uint32_t *hashes;            /* the keys' hashes of the batch being probed (util/hash.h batched probing) */
    size_t hash_cap;
    /* Records made of two (policy.toast_fill, policy.partial): the winner with the loser's values in the columns
     * it lacks. aux: one base batch's worth (srcs[aux_src]); fold_aux: made while folding log records, for the
     * whole merge (srcs[fold_src]). fill: which values can be lacking, and whether in every merge (merge/record_merge.h) */
    hoodie_batch aux, fold_aux;
    int have_aux, have_fold_aux;
    uint32_t aux_src, fold_src;
    hoodie_fill_spec fill;
    /* partial log blocks among the items (hoodie_log_items.partial): a record takes the other's values where its
     * block left columns out, in every merge (Hudi's KEEP_VALUES); the records made of two keep which columns
     * neither carried (aux_abs, fold_abs: n_cols bytes a row, hoodie_fill_spec.absent_of) */
    int partial;
    size_t n_cols;
    uint8_t *aux_abs, *fold_abs, *abs_tmp;
    size_t aux_abs_rows, fold_abs_rows;
    /* lazy log items (read/logscan.h): their sources (lazy_item[src], NULL for the others) hold the key and
     * ordering columns only; the rows a selection takes of them are decoded whole into lazy_rows
     * (srcs[lazy_src]) first, and the selection points there */
    const hoodie_log_item **lazy_item;
    hoodie_batch lazy_rows;
    int have_lazy_rows;
    uint32_t lazy_src;
    uint64_t lazy_bytes;         /* of records decoded since the mapped log files' pages were last let go */
};

/* The columns row r of b does not carry (hoodie_fill_spec.absent_of): a made record's own, a log item's its
 * block's; a base batch carries them all. */
static const uint8_t *merger_absent(void *ctx, const hoodie_batch *b, int64_t r)
{
    const hoodie_slice_merger *m = ctx;
    if (b == &m->aux) return m->aux_abs ? m->aux_abs + (size_t)r * m->n_cols : NULL;
    if (b == &m->fold_aux) return m->fold_abs ? m->fold_abs + (size_t)r * m->n_cols : NULL;
    const hoodie_log_item *its = m->items->items;
    if ((const char *)b < (const char *)its || (const char *)b >= (const char *)(its + m->items->count)) return NULL;
    size_t i = (size_t)((const char *)b - (const char *)its) / sizeof *its;
    return &its[i].batch == b ? its[i].absent : NULL;
}

/* The absent columns of made record `row` of aux (m->aux or m->fold_aux), of (wb, wr) filled from (lb, lr). */
static hoodie_status note_absent(hoodie_slice_merger *m, const hoodie_batch *aux, int64_t row, const hoodie_batch *wb,
                                 int64_t wr, const hoodie_batch *lb, int64_t lr)
{
    int fold = aux == &m->fold_aux;
    uint8_t **buf = fold ? &m->fold_abs : &m->aux_abs;
    size_t *cap = fold ? &m->fold_abs_rows : &m->aux_abs_rows;
    if ((size_t)row >= *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        while (nc <= (size_t)row) nc *= 2;
        uint8_t *n = realloc(*buf, nc * m->n_cols + 1);
        if (!n) return HOODIE_NOMEM();
        *buf = n;
        *cap = nc;
    }
    hoodie_fill_absent_after(&m->fill, wb, wr, lb, lr, m->abs_tmp); /* first: wb may be aux */
    memcpy(*buf + (size_t)row * m->n_cols, m->abs_tmp, m->n_cols);
    return HOODIE_OK;
}

/*
 * The winner of a merge, row wr of srcs[wsrc], given the loser, row lr of lb: the winner itself, or, when it lacks
 * values, a record appended to `aux` (srcs[aux_src]) made of it with the loser's values there (as
 * PostgresDebeziumAvroPayload.combineAndGetUpdateValue, and Hudi 1.1's PartialUpdateHandler).
 */
static hoodie_status fill_merge(hoodie_slice_merger *m, hoodie_batch *aux, uint32_t aux_src, uint32_t wsrc,
                                int64_t wr, const hoodie_batch *lb, int64_t lr, int disorder, hoodie_row_ref *out)
{
    const hoodie_batch *wb = m->srcs[wsrc];
    out->source = wsrc;
    out->row = wr;
    if (!hoodie_fill_wanted(&m->fill, wb, wr, lb, lr, disorder)) return HOODIE_OK;
    out->source = aux_src;
    HOODIE_TRY(hoodie_fill_append(&m->fill, aux, wb, wr, lb, lr, disorder, -1, &out->row));
    return m->partial ? note_absent(m, aux, out->row, wb, wr, lb, lr) : HOODIE_OK;
}

/* Batched probing distances (rows ahead): home slots at PF_FAR, keys and log entries at PF_NEAR. */
#define PF_FAR 32
#define PF_NEAR 12

/* Hash the keys of rows [0, n) of `keys` into m->hashes. */
static hoodie_status hash_keys(hoodie_slice_merger *m, const hoodie_array *keys, int64_t n)
{
    if ((size_t)n > m->hash_cap) {
        uint32_t *h = realloc(m->hashes, (size_t)n * sizeof *h);
        if (!h) return HOODIE_NOMEM();
        m->hashes = h;
        m->hash_cap = (size_t)n;
    }
    for (int64_t r = 0; r < n; r++) {
        const uint8_t *k;
        size_t kl;
        hoodie_array_bytes_or_empty(keys, r, &k, &kl);
        m->hashes[r] = hoodie_hmap_hash(k, kl);
    }
    return HOODIE_OK;
}

/* 1 if a record of the slice can be a delete by its own columns (_hoodie_is_deleted, the custom delete marker). */
static int marks_deletes(const hoodie_slice_merger *m)
{
    return m->cfg.deleted_col >= 0 || (m->cfg.marker && m->cfg.marker->col >= 0);
}

static void version_of(const hoodie_slice_merger *m, const hoodie_batch *b, int64_t r, hoodie_merge_version *v)
{
    const hoodie_field *f = &b->schema;
    memset(v, 0, sizeof *v);
    if (m->cfg.ordering_col >= 0)
        hoodie_ordering_of(&v->ord, &f->children[m->cfg.ordering_col], &b->root.children[m->cfg.ordering_col], r);
    if (m->cfg.policy.seq_ordering) hoodie_ordering_seq(&v->ord);
    if (m->cfg.n_more_ordering) {
        v->n_more = m->cfg.n_more_ordering;
        v->more_cols = m->cfg.more_ordering_cols;
        v->more_batch = b;
        v->more_row = r;
    }
    if (m->cfg.deleted_col >= 0) {
        const hoodie_array *d = &b->root.children[m->cfg.deleted_col];
        v->is_delete = hoodie_array_is_valid(d, r) && hoodie_bit_get(d->values, r);
    }
    if (!v->is_delete && m->cfg.marker) v->is_delete = hoodie_delete_marked(m->cfg.marker, b, r);
}

static void delete_ordering(const hoodie_hlog_delete *d, hoodie_ordering *o)
{
    memset(o, 0, sizeof *o);
    switch (d->ord_type) {
    case HOODIE_HLOG_ORD_NULL: break;
    case HOODIE_HLOG_ORD_FLOAT: case HOODIE_HLOG_ORD_DOUBLE: o->kind = HOODIE_ORD_DOUBLE; o->d = d->ord_d; break;
    case HOODIE_HLOG_ORD_BYTES: case HOODIE_HLOG_ORD_STRING:
        o->kind = HOODIE_ORD_BYTES; o->bytes = d->ord_bytes; o->len = d->ord_len; break;
    case HOODIE_HLOG_ORD_DECIMAL: {
        if (d->ord_len > 16) break;
        uint8_t fill = d->ord_len && (d->ord_bytes[0] & 0x80) ? 0xff : 0;
        uint64_t hi = fill ? ~0ull : 0, lo = fill ? ~0ull : 0;
        for (size_t i = 0; i < d->ord_len; i++) {
            hi = hi << 8 | lo >> 56;
            lo = lo << 8 | d->ord_bytes[i];
        }
        o->kind = HOODIE_ORD_DECIMAL; o->i = (int64_t)hi; o->lo = lo; o->scale = 15;
        break;
    }
    default: o->kind = HOODIE_ORD_INT; o->i = d->ord_i; break;
    }
}

/* The key of entry `e`: in its record's key column, or its delete's. */
static inline void entry_key(const hoodie_slice_merger *m, const log_entry *e, const uint8_t **k, size_t *kl)
{
    if (e->src) {
        hoodie_array_bytes_or_empty(&m->srcs[e->src]->root.children[m->cfg.key_col], e->row, k, kl);
        return;
    }
    *k = (const uint8_t *)m->dels[e->row]->record_key;
    *kl = strlen(m->dels[e->row]->record_key);
}

static hoodie_status keys_init(hoodie_slice_merger *m, size_t expected)
{
    size_t cap = 16;
    while (cap < expected + expected / 2 + 1) cap *= 2;
    if (cap > (size_t)UINT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "merge: more than 2^31 log records in a file slice");
    m->slots = calloc(cap, sizeof *m->slots);
    if (!m->slots) return HOODIE_NOMEM();
    hoodie_mem_advise_huge(m->slots, cap * sizeof *m->slots);
    m->slot_mask = cap - 1;
    return HOODIE_OK;
}

/* The slot of key (k, kl) with hash h: its entry's, or the empty slot where it would go. */
static inline kslot *keys_probe(const hoodie_slice_merger *m, const uint8_t *k, size_t kl, uint32_t h)
{
    for (size_t i = h & m->slot_mask;; i = (i + 1) & m->slot_mask) {
        kslot *s = &m->slots[i];
        if (!s->idx) return s;
        if (s->hash != h) continue;
        const uint8_t *ek;
        size_t el;
        entry_key(m, &m->entries[s->idx - 1], &ek, &el);
        if (el == kl && (!kl || !memcmp(ek, k, kl))) return s;
    }
}

/* Prefetch the home slot of hash h. */
static inline void keys_prefetch(const hoodie_slice_merger *m, uint32_t h) { HOODIE_PREFETCH(&m->slots[h & m->slot_mask]); }

/* Prefetch the entry in the home slot of hash h, if that slot holds that hash. */
static inline void keys_prefetch_entry(const hoodie_slice_merger *m, uint32_t h)
{
    const kslot *s = &m->slots[h & m->slot_mask];
    if (s->idx && s->hash == h) HOODIE_PREFETCH(&m->entries[s->idx - 1]);
}

/* The version entry `e` holds (ordering values that are not integers read again from their record or delete). */
static void entry_version(const hoodie_slice_merger *m, const log_entry *e, hoodie_merge_version *v)
{
    if (e->ord_int) {
        memset(v, 0, sizeof *v);
        v->is_delete = e->is_delete;
        v->ord.kind = HOODIE_ORD_INT;
        v->ord.i = e->ord;
        return;
    }
    if (e->src) {
        version_of(m, m->srcs[e->src], e->row, v);
        return;
    }
    memset(v, 0, sizeof *v);
    v->is_delete = 1;
    delete_ordering(m->dels[e->row], &v->ord);
    if (m->cfg.policy.seq_ordering) hoodie_ordering_seq(&v->ord);
}

/* Entry `e` takes version v of (src, row); a delete (src 0) is `del`. */
static hoodie_status entry_set(hoodie_slice_merger *m, log_entry *e, uint32_t src, int64_t row,
                               const hoodie_hlog_delete *del, const hoodie_merge_version *v)
{
    if (!src) {
        if (m->n_dels == m->cap_dels) {
            size_t ncap = m->cap_dels ? m->cap_dels * 2 : 64;
            const hoodie_hlog_delete **n = realloc(m->dels, ncap * sizeof *n);
            if (!n) return HOODIE_NOMEM();
            m->dels = n;
            m->cap_dels = ncap;
        }
        m->dels[m->n_dels] = del;
        row = (int64_t)m->n_dels++;
    }
    if (row < 0 || row > (int64_t)UINT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "merge: a log block of more than 2^32 rows");
    e->src = src;
    e->row = (uint32_t)row;
    e->is_delete = v->is_delete != 0;
    e->ord_int = v->ord.kind == HOODIE_ORD_INT && !v->n_more; /* several ordering fields: read again */
    e->ord = e->ord_int ? v->ord.i : 0;
    return HOODIE_OK;
}

static hoodie_status fold(hoodie_slice_merger *m, const uint8_t *key, size_t len, uint32_t h, uint32_t src,
                          int64_t row, const hoodie_hlog_delete *del, const hoodie_merge_version *v)
{
    kslot *slot = keys_probe(m, key, len, h);
    if (slot->idx) {
        log_entry *e = &m->entries[slot->idx - 1];
        hoodie_merge_version ev;
        entry_version(m, e, &ev);
        int newer = hoodie_merge_newer_wins(m->cfg.policy.log_fold, &ev, v);
        if (m->fill.both && src && e->src && !ev.is_delete && !v->is_delete) { /* partial updates: winner filled */
            hoodie_row_ref r;
            if (newer) HOODIE_TRY(fill_merge(m, &m->fold_aux, m->fold_src, src, row, m->srcs[e->src], e->row, 0, &r));
            else HOODIE_TRY(fill_merge(m, &m->fold_aux, m->fold_src, e->src, e->row, m->srcs[src], row, 1, &r));
            if (r.source == e->src && r.row == (int64_t)e->row) return HOODIE_OK;
            return entry_set(m, e, r.source, r.row, NULL, newer ? v : &ev);
        }
        if (newer) {
            /* records before a delete without an ordering value are removed by it, whatever their ordering
               values; a later record survives it and does not bring the base record back (HUDI-7610) */
            if (ev.is_delete && hoodie_ordering_is_natural(&ev.ord)) e->after_natural = 1;
            if (ev.is_delete) e->after_delete = 1;
            return entry_set(m, e, src, row, del, v);
        }
        return HOODIE_OK;
    }
    if (m->n_entries == m->cap_entries) {
        size_t ncap = m->cap_entries ? m->cap_entries * 2 : 256;
        log_entry *n = realloc(m->entries, ncap * sizeof *n);
        if (!n) return HOODIE_NOMEM();
        m->entries = n;
        m->cap_entries = ncap;
    }
    log_entry *e = &m->entries[m->n_entries++];
    e->consumed = 0;
    e->after_natural = e->after_delete = 0;
    HOODIE_TRY(entry_set(m, e, src, row, del, v));
    slot->hash = h;
    slot->idx = (uint32_t)m->n_entries; /* after entry_set: the key is read through the entry */
    return HOODIE_OK;
}

hoodie_status hoodie_slice_merger_new(hoodie_slice_merger **out, const hoodie_slice_merge_cfg *cfg,
                                      hoodie_log_items *items)
{
    *out = NULL;
    hoodie_slice_merger *m = calloc(1, sizeof *m);
    if (!m) return HOODIE_NOMEM();
    m->cfg = *cfg;
    m->items = items;
    hoodie_status rc = HOODIE_OK;
    size_t rows = 0, n_data = 0;
    for (size_t i = 0; i < items->count; i++)
        if (items->items[i].kind == HOODIE_LOG_DATA && !items->items[i].removed) {
            n_data++;
            rows += (size_t)items->items[i].batch.root.length;
        } else if (!items->items[i].removed) rows += items->items[i].delete_count;
    m->srcs = calloc(n_data + 4, sizeof *m->srcs);
    m->lazy_item = items->lazy ? calloc(n_data + 4, sizeof *m->lazy_item) : NULL;
    if (!m->srcs || (items->lazy && !m->lazy_item)) { rc = HOODIE_NOMEM(); goto done; }
    m->n_srcs = 1;
    /* the columns whose values a merged record can take from the other record */
    if ((rc = hoodie_fill_spec_init(&m->fill, &cfg->policy, cfg->schema)) < 0) goto done;
    if (items->partial) { /* partial blocks: filled in every merge, from whichever record carries the values */
        m->partial = 1;
        m->n_cols = cfg->schema->n_children;
        m->fill.absent_of = merger_absent;
        m->fill.absent_ctx = m;
        m->fill.both = 1;
        if (!(m->abs_tmp = malloc(m->n_cols + 1))) { rc = HOODIE_NOMEM(); goto done; }
    }
    /* records made of two read every column of both: lazy items decoded whole first */
    if (items->lazy && (m->fill.cols || m->fill.both) && (rc = hoodie_log_items_materialize(items)) < 0) goto done;
    if (m->fill.both) { /* before the log batches' sources: folding makes records from the first */
        if ((rc = hoodie_batch_init(&m->fold_aux, cfg->schema)) < 0) goto done;
        m->have_fold_aux = 1;
        m->fold_src = (uint32_t)m->n_srcs;
        m->srcs[m->n_srcs++] = &m->fold_aux;
    }
    if ((rc = keys_init(m, rows)) < 0) goto done;
    /* room for every row's key (pages not touched stay unbacked): no copies as the entries grow */
    if (rows && !(m->entries = malloc(rows * sizeof *m->entries))) { rc = HOODIE_NOMEM(); goto done; }
    m->cap_entries = rows;
    for (size_t i = 0; i < items->count && rc == HOODIE_OK; i++) {
        hoodie_log_item *it = &items->items[i];
        if (it->removed) continue;
        if (it->kind == HOODIE_LOG_DATA) {
            uint32_t src = (uint32_t)m->n_srcs;
            m->srcs[m->n_srcs++] = &it->batch;
            if (it->lazy) m->lazy_item[src] = it;
            const hoodie_array *keys = &it->batch.root.children[cfg->key_col];
            int64_t n = it->batch.root.length;
            rc = hash_keys(m, keys, n);
            for (int64_t r = 0; r < n && rc == HOODIE_OK; r++) {
                const uint8_t *k;
                size_t kl;
                hoodie_merge_version v;
                if (r + PF_FAR < n) keys_prefetch(m, m->hashes[r + PF_FAR]);
                if (r + PF_NEAR < n) keys_prefetch_entry(m, m->hashes[r + PF_NEAR]);
                hoodie_array_bytes_or_empty(keys, r, &k, &kl);
                version_of(m, &it->batch, r, &v);
                rc = fold(m, k, kl, m->hashes[r], src, r, NULL, &v);
            }
        } else {
            for (size_t d = 0; d < it->delete_count && rc == HOODIE_OK; d++) {
                const hoodie_hlog_delete *del = &it->deletes[d];
                if (!del->record_key) continue;
                hoodie_merge_version v;
                memset(&v, 0, sizeof v);
                v.is_delete = 1;
                delete_ordering(del, &v.ord);
                if (cfg->policy.seq_ordering) hoodie_ordering_seq(&v.ord);
                size_t kl = strlen(del->record_key);
                rc = fold(m, (const uint8_t *)del->record_key, kl, hoodie_hmap_hash(del->record_key, kl), 0, 0, del, &v);
            }
        }
    }
    if (rc == HOODIE_OK && items->lazy) {
        rc = hoodie_batch_init(&m->lazy_rows, cfg->schema);
        m->have_lazy_rows = rc == HOODIE_OK;
        m->lazy_src = (uint32_t)m->n_srcs;
        m->srcs[m->n_srcs++] = &m->lazy_rows;
    }
    if (rc == HOODIE_OK && (m->fill.cols || m->partial)) {
        rc = hoodie_batch_init(&m->aux, cfg->schema);
        m->have_aux = rc == HOODIE_OK;
        m->aux_src = (uint32_t)m->n_srcs;
        m->srcs[m->n_srcs++] = &m->aux;
    }
done:
    if (rc < 0) { hoodie_slice_merger_free(m); return rc; }
    *out = m;
    return HOODIE_OK;
}

void hoodie_slice_merger_free(hoodie_slice_merger *m)
{
    if (!m) return;
    free(m->slots);
    free(m->entries);
    free(m->dels);
    free(m->srcs);
    free(m->sel);
    free(m->hashes);
    if (m->have_aux) hoodie_batch_dispose(&m->aux);
    if (m->have_lazy_rows) hoodie_batch_dispose(&m->lazy_rows);
    free(m->lazy_item);
    hoodie_fill_spec_dispose(&m->fill);
    if (m->have_fold_aux) hoodie_batch_dispose(&m->fold_aux);
    free(m->aux_abs);
    free(m->fold_abs);
    free(m->abs_tmp);
    free(m);
}

size_t hoodie_slice_merger_log_keys(const hoodie_slice_merger *m) { return m->n_entries; }

int hoodie_slice_merger_may_drop(const hoodie_slice_merger *m)
{
    if (marks_deletes(m)) return 1;
    for (size_t i = 0; i < m->n_entries; i++)
        if (m->entries[i].is_delete || m->entries[i].after_natural) return 1;
    return 0;
}

static hoodie_status sel_reserve(hoodie_slice_merger *m, size_t n)
{
    if (n <= m->sel_cap) return HOODIE_OK;
    hoodie_row_ref *s = realloc(m->sel, n * sizeof *s);
    if (!s) return HOODIE_NOMEM();
    m->sel = s;
    m->sel_cap = n;
    return HOODIE_OK;
}

/* The selected rows of lazy sources (m->sel[0..n)) decoded whole into m->lazy_rows, in selection order, and the
 * selection pointed at them there. */
static hoodie_status decode_lazy(hoodie_slice_merger *m, size_t n)
{
    if (!m->have_lazy_rows) return HOODIE_OK;
    for (size_t i = 0; i < n; i++) {
        hoodie_row_ref *r = &m->sel[i];
        const hoodie_log_item *it = r->source < m->lazy_src ? m->lazy_item[r->source] : NULL;
        if (!it) continue;
        m->lazy_bytes += it->lazy->len[r->row];
        HOODIE_TRY(hoodie_log_item_decode_row(it, r->row, &m->lazy_rows.root));
        r->source = m->lazy_src;
        r->row = m->lazy_rows.root.length - 1;
    }
    if (m->lazy_bytes > ((uint64_t)64 << 20)) { /* the log files' pages read so far leave the process's memory */
        hoodie_log_items_release(m->items);
        m->lazy_bytes = 0;
    }
    return HOODIE_OK;
}

void hoodie_slice_merger_rows_taken(hoodie_slice_merger *m)
{
    if (m->have_lazy_rows) hoodie_array_clear(&m->lazy_rows.root);
}

static hoodie_status gather(hoodie_slice_merger *m, size_t n, hoodie_batch *out)
{
    HOODIE_TRY(hoodie_batch_init(out, m->cfg.schema));
    hoodie_status rc = n ? hoodie_batch_take(out, m->srcs, m->n_srcs, m->sel, n) : HOODIE_OK;
    if (rc < 0) hoodie_batch_dispose(out);
    hoodie_slice_merger_rows_taken(m); /* gathered */
    return rc;
}

/* The selection of one base batch into m->sel (*n_out rows). */
static hoodie_status select_rows(hoodie_slice_merger *m, const hoodie_batch *base, size_t *n_out)
{
    size_t n = 0;
    HOODIE_TRY(sel_reserve(m, (size_t)base->root.length));
    m->srcs[0] = base;
    if (m->have_aux) hoodie_array_clear(&m->aux.root); /* the previous base batch's records are gathered */
    const hoodie_array *keys = &base->root.children[m->cfg.key_col];
    int64_t nb = base->root.length;
    if (m->n_entries) HOODIE_TRY(hash_keys(m, keys, nb));
    uint32_t parts = m->cfg.pass_parts, part = m->cfg.pass_part;
    for (int64_t r = 0; r < nb; r++) {
        const uint8_t *k;
        size_t kl;
        log_entry *e = NULL;
        if (parts > 1 && !hoodie_logscan_row_in_part(keys, r, parts, part)) continue; /* another pass's row */
        hoodie_array_bytes_or_empty(keys, r, &k, &kl);
        if (m->n_entries) {
            if (r + PF_FAR < nb) keys_prefetch(m, m->hashes[r + PF_FAR]);
            if (r + PF_NEAR < nb) keys_prefetch_entry(m, m->hashes[r + PF_NEAR]);
            const kslot *slot = keys_probe(m, k, kl, m->hashes[r]);
            if (slot->idx) e = &m->entries[slot->idx - 1];
        }
        hoodie_merge_version vb;
        if (!e) {
            if (marks_deletes(m)) {
                version_of(m, base, r, &vb);
                if (vb.is_delete) continue;
            }
            m->sel[n].source = 0;
            m->sel[n].row = r;
            n++;
            continue;
        }
        e->consumed = 1;
        version_of(m, base, r, &vb);
        hoodie_merge_version ev;
        if (!e->after_natural) entry_version(m, e, &ev);
        if (e->after_natural || hoodie_merge_newer_wins(m->cfg.policy.base, &vb, &ev)) {
            if (e->is_delete) { m->deleted++; continue; }
            m->replaced++;
            if (m->have_aux && !e->after_delete && !vb.is_delete)
                HOODIE_TRY(fill_merge(m, &m->aux, m->aux_src, e->src, e->row, base, r, 0, &m->sel[n]));
            else m->sel[n].source = e->src, m->sel[n].row = e->row;
        } else {
            if (vb.is_delete) continue;
            if (m->fill.both && !e->is_delete) /* partial updates: the base record, filled from the log record */
                HOODIE_TRY(fill_merge(m, &m->aux, m->aux_src, 0, r, m->srcs[e->src], e->row, 1, &m->sel[n]));
            else m->sel[n].source = 0, m->sel[n].row = r;
        }
        n++;
    }
    *n_out = n;
    return decode_lazy(m, n);
}

hoodie_status hoodie_slice_merger_base(hoodie_slice_merger *m, const hoodie_batch *base, hoodie_batch *out)
{
    size_t n = 0;
    HOODIE_TRY(select_rows(m, base, &n));
    return gather(m, n, out);
}

int64_t hoodie_slice_merger_replaced(const hoodie_slice_merger *m, int64_t *deleted)
{
    if (deleted) *deleted = m->deleted;
    return m->replaced;
}

hoodie_status hoodie_slice_merger_select(hoodie_slice_merger *m, const hoodie_batch *base, const hoodie_row_ref **sel,
                                         size_t *n, const hoodie_batch *const **srcs, size_t *n_srcs)
{
    *n = 0;
    HOODIE_TRY(select_rows(m, base, n));
    *sel = m->sel;
    *srcs = m->srcs;
    *n_srcs = m->n_srcs;
    return HOODIE_OK;
}

hoodie_status hoodie_slice_merger_finish(hoodie_slice_merger *m, hoodie_batch *out)
{
    size_t n = 0;
    HOODIE_TRY(sel_reserve(m, m->n_entries));
    m->srcs[0] = NULL;
    for (size_t i = 0; i < m->n_entries; i++) {
        const log_entry *e = &m->entries[i];
        if (e->consumed || e->is_delete || e->src == 0) continue;
        m->sel[n].source = e->src;
        m->sel[n].row = e->row;
        n++;
    }
    if (n && !m->srcs[0]) m->srcs[0] = m->srcs[1]; /* never referenced; keeps every source non-NULL */
    HOODIE_TRY(decode_lazy(m, n));
    return gather(m, n, out);
}

hoodie_status hoodie_slice_merger_log_records(hoodie_slice_merger *m, hoodie_batch *out, hoodie_slice_log_deletes *dels)
{
    memset(dels, 0, sizeof *dels);
    if (m->partial) /* a whole-record block of them would lose the columns their blocks left out */
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "partial-update log blocks (IS_PARTIAL: Spark SQL's MERGE INTO of "
                           "some columns) are merged only with their base file: compaction, not log compaction");
    size_t n = 0, nd = 0;
    hoodie_status rc = sel_reserve(m, m->n_entries);
    for (size_t i = 0; rc == HOODIE_OK && i < m->n_entries; i++) {
        const log_entry *e = &m->entries[i];
        nd += e->is_delete || e->after_delete;
    }
    if (rc == HOODIE_OK && nd) {
        dels->keys = calloc(nd, sizeof *dels->keys);
        dels->key_lens = calloc(nd, sizeof *dels->key_lens);
        dels->ords = calloc(nd, sizeof *dels->ords);
        if (!dels->keys || !dels->key_lens || !dels->ords) rc = HOODIE_NOMEM();
    }
    m->srcs[0] = NULL;
    for (size_t i = 0; rc == HOODIE_OK && i < m->n_entries; i++) {
        const log_entry *e = &m->entries[i];
        if (e->is_delete || e->after_delete) {
            /* a winning delete keeps its ordering value; a record after a delete without one gets that delete
               back in front of it (the delete block precedes the data block); a delete after such a pair removes
               the base record whatever its ordering value: it is written without one. A record after a delete
               with an ordering value gets a delete with its own ordering value in front of it (the record wins
               it, ties going to the later), so no merge after fills it from the base record */
            const uint8_t *k;
            entry_key(m, e, &k, &dels->key_lens[dels->count]);
            dels->keys[dels->count] = (const char *)k;
            if (!e->after_natural) {
                hoodie_merge_version ev;
                entry_version(m, e, &ev);
                dels->ords[dels->count] = ev.ord;
            }
            dels->count++;
        }
        if (e->is_delete || e->src == 0) continue;
        m->sel[n].source = e->src;
        m->sel[n].row = e->row;
        n++;
    }
    if (rc == HOODIE_OK && n) m->srcs[0] = m->srcs[1]; /* never referenced; keeps every source non-NULL */
    if (rc == HOODIE_OK) rc = decode_lazy(m, n);
    if (rc == HOODIE_OK) rc = gather(m, n, out);
    if (rc < 0) hoodie_slice_log_deletes_dispose(dels);
    return rc;
}

void hoodie_slice_log_deletes_dispose(hoodie_slice_log_deletes *d)
{
    free(d->keys);
    free(d->key_lens);
    free(d->ords);
    memset(d, 0, sizeof *d);
}
