#include "hoodie_test.h"
#include "merge/sorted_merge.h"
#include "model/build.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The streaming sorted merge against a reference: every record of every source, sorted by (key, source,
 * position), folded per key with the pairwise rule of record_merge.h (base candidate, folded log candidate, then
 * base vs log), on random inputs: duplicate keys within and across sources, empty sources, one source, thousands
 * of sources, random batch boundaries (keys spanning batches), deletes by flag and by _hoodie_is_deleted.
 */

typedef struct rec { int key; int64_t ts; int64_t id; int del_flag; int del_col; } rec;

typedef struct tsrc {
    rec *r;
    size_t n, pos;
    unsigned seed;
    int max_batch;
    hoodie_field *schema;
} tsrc;

static hoodie_status make_schema(hoodie_field *f)
{
    hoodie_field c;
    HOODIE_TRY(hoodie_field_init(f, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    const char *names[4] = { "_hoodie_record_key", "ts", "id", "_hoodie_is_deleted" };
    hoodie_type_id types[4] = { HOODIE_TYPE_STRING, HOODIE_TYPE_INT64, HOODIE_TYPE_INT64, HOODIE_TYPE_BOOL };
    for (int i = 0; i < 4; i++) {
        HOODIE_TRY(hoodie_field_init(&c, names[i], hoodie_type_of(types[i]), 1));
        hoodie_status rc = hoodie_field_add_child(f, &c);
        hoodie_field_dispose(&c);
        HOODIE_TRY(rc);
    }
    return HOODIE_OK;
}

static hoodie_status tsrc_next(void *ctx, hoodie_batch *out, uint8_t **deleted)
{
    tsrc *s = ctx;
    if (s->pos >= s->n) return HOODIE_ITEROVER;
    size_t take = (size_t)(1 + (int)(rand_r(&s->seed) % (unsigned)s->max_batch));
    if (rand_r(&s->seed) % 10 == 0) take = 0; /* an empty batch now and then */
    if (take > s->n - s->pos) take = s->n - s->pos;
    HOODIE_TRY(hoodie_batch_init(out, s->schema));
    uint8_t *d = malloc(take + 1);
    char kb[32];
    for (size_t i = 0; i < take; i++) {
        const rec *r = &s->r[s->pos + i];
        snprintf(kb, sizeof kb, "key%06d", r->key);
        hoodie_array *c = out->root.children;
        hoodie_field *f = out->schema.children;
        hoodie_array_append_str(&c[0], &f[0], kb);
        hoodie_array_append_int(&c[1], &f[1], r->ts);
        hoodie_array_append_int(&c[2], &f[2], r->id);
        hoodie_array_append_bool(&c[3], &f[3], r->del_col);
        d[i] = (uint8_t)r->del_flag;
    }
    out->root.length = (int64_t)take;
    s->pos += take;
    *deleted = d;
    return HOODIE_OK;
}

static int cmp_rec_key(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

typedef struct flat { rec r; uint32_t src; size_t pos; } flat;

static int cmp_flat(const void *a, const void *b)
{
    const flat *x = a, *y = b;
    if (x->r.key != y->r.key) return x->r.key < y->r.key ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static hoodie_merge_version ver(const rec *r)
{
    hoodie_merge_version v;
    memset(&v, 0, sizeof v);
    v.is_delete = r->del_flag || r->del_col;
    v.ord.kind = HOODIE_ORD_INT;
    v.ord.i = r->ts;
    return v;
}

typedef struct expect { int64_t id; int del; } expect;

static size_t reference(const hoodie_sorted_merge_cfg *cfg, tsrc *s, uint32_t k, expect *out)
{
    size_t total = 0, t = 0, n_out = 0;
    for (uint32_t i = 0; i < k; i++) total += s[i].n;
    flat *f = malloc((total + 1) * sizeof *f);
    for (uint32_t i = 0; i < k; i++)
        for (size_t j = 0; j < s[i].n; j++) f[t++] = (flat){ s[i].r[j], i, j };
    qsort(f, total, sizeof *f, cmp_flat);
    for (size_t a = 0; a < total;) {
        size_t b = a;
        const rec *base = NULL, *log = NULL;
        int after_natural = 0; /* a delete without an ordering value was replaced: the base record is gone */
        int after_delete = 0;  /* a delete was replaced by a record */
        for (; b < total && f[b].r.key == f[a].r.key; b++) {
            const rec **c = cfg->first_is_base && f[b].src == 0 ? &base : &log;
            if (!*c) { *c = &f[b].r; continue; }
            hoodie_merge_version o = ver(*c), nv = ver(&f[b].r);
            if (hoodie_merge_newer_wins(cfg->policy.log_fold, &o, &nv)) {
                if (c == &log && o.is_delete && o.ord.i == 0) after_natural = 1;
                if (c == &log && o.is_delete && !nv.is_delete) after_delete = 1;
                *c = &f[b].r;
            }
        }
        const rec *w = base ? base : log;
        if (base && log) {
            hoodie_merge_version o = ver(base), nv = ver(log);
            w = after_natural || hoodie_merge_newer_wins(cfg->policy.base, &o, &nv) ? log : base;
        }
        hoodie_merge_version wv = ver(w);
        /* the row kind (hoodie_sorted_row_kind): a log winner after a delete without an ordering value carries it */
        int kind = wv.is_delete ? HOODIE_SORTED_DELETE : HOODIE_SORTED_RECORD;
        if (w == log && after_natural)
            kind = wv.is_delete ? HOODIE_SORTED_NATURAL_DELETE : HOODIE_SORTED_RECORD_AFTER_NATURAL;
        else if (w == log && after_delete && !wv.is_delete)
            kind = HOODIE_SORTED_RECORD_AFTER_DELETE;
        if (!wv.is_delete || cfg->keep_deletes) out[n_out++] = (expect){ w->id, kind };
        a = b;
    }
    free(f);
    return n_out;
}

static void run_case(uint32_t k, size_t max_len, int key_range, int unique, int first_is_base, int keep_deletes,
                     hoodie_merge_policy pol, int max_batch, int64_t out_rows, unsigned seed)
{
    hoodie_field schema;
    hoodie_assert_ok(make_schema(&schema));
    tsrc *s = calloc(k, sizeof *s);
    hoodie_sorted_source *ss = calloc(k, sizeof *ss);
    int64_t id = 0;
    unsigned st = seed;
    for (uint32_t i = 0; i < k; i++) {
        s[i].n = max_len ? (size_t)rand_r(&st) % (max_len + 1) : 0;
        s[i].r = malloc((s[i].n + 1) * sizeof *s[i].r);
        for (size_t j = 0; j < s[i].n; j++) {
            rec *r = &s[i].r[j];
            r->key = (int)(rand_r(&st) % (unsigned)key_range);
            r->ts = rand_r(&st) % 5; /* many ties: ties go to the later version */
            r->del_flag = rand_r(&st) % 7 == 0;
            r->del_col = rand_r(&st) % 11 == 0;
        }
        qsort(s[i].r, s[i].n, sizeof *s[i].r, cmp_rec_key); /* not stable: ids below fix the order */
        if (unique) {
            size_t w = 0;
            for (size_t j = 0; j < s[i].n; j++)
                if (w == 0 || s[i].r[w - 1].key != s[i].r[j].key) s[i].r[w++] = s[i].r[j];
            s[i].n = w;
        }
        for (size_t j = 0; j < s[i].n; j++) s[i].r[j].id = id++;
        s[i].seed = seed * 31 + i;
        s[i].max_batch = max_batch;
        s[i].schema = &schema;
        ss[i].next = tsrc_next;
        ss[i].ctx = &s[i];
    }
    hoodie_sorted_merge_cfg cfg = { &schema, 0, 1, 3, pol, first_is_base, keep_deletes, unique, out_rows, NULL };
    expect *want = malloc(((size_t)id + 1) * sizeof *want);
    size_t n_want = reference(&cfg, s, k, want);

    hoodie_sorted_merge *m;
    hoodie_assert_ok(hoodie_sorted_merge_open(&m, &cfg, ss, k));
    size_t got = 0;
    hoodie_batch b;
    uint8_t *del;
    hoodie_status rc;
    char prev[32] = "";
    while ((rc = hoodie_sorted_merge_next(m, &b, &del)) == HOODIE_OK) {
        hoodie_assert(b.root.length > 0);
        hoodie_assert(b.root.length <= (out_rows > 0 ? out_rows : 65536));
        const hoodie_array *ids = &b.root.children[2];
        const hoodie_array *keys = &b.root.children[0];
        for (int64_t r = 0; r < b.root.length; r++, got++) {
            hoodie_assert(got < n_want);
            hoodie_assert_equal_i(want[got].id, ((const int64_t *)ids->values)[r]);
            if (keep_deletes) hoodie_assert_equal_i(want[got].del, del[r]);
            char kb[32];
            int kl = keys->offsets[r + 1] - keys->offsets[r];
            snprintf(kb, sizeof kb, "%.*s", kl, (const char *)keys->values + keys->offsets[r]);
            hoodie_assert(strcmp(prev, kb) < 0); /* strictly increasing keys: one record per key */
            memcpy(prev, kb, sizeof kb);
        }
        free(del);
        hoodie_batch_dispose(&b);
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
    hoodie_assert_equal_i(n_want, got);
    hoodie_sorted_merge_stats stats;
    hoodie_sorted_merge_stats_get(m, &stats);
    hoodie_assert_equal_i(id, (int64_t)stats.rows_in);
    hoodie_assert_equal_i(got, (int64_t)stats.rows_out);
    hoodie_sorted_merge_free(m);
    for (uint32_t i = 0; i < k; i++) free(s[i].r);
    free(s);
    free(ss);
    free(want);
    hoodie_field_dispose(&schema);
}

static const hoodie_merge_policy COMMIT = { .log_fold = HOODIE_MERGE_COMMIT_TIME_ORDERING,
                                                .base = HOODIE_MERGE_COMMIT_TIME_ORDERING };
static const hoodie_merge_policy EVENT = { .log_fold = HOODIE_MERGE_EVENT_TIME_ORDERING,
                                               .base = HOODIE_MERGE_EVENT_TIME_ORDERING };
static const hoodie_merge_policy V6 = { .log_fold = HOODIE_MERGE_EVENT_TIME_ORDERING,
                                          .base = HOODIE_MERGE_COMMIT_TIME_ORDERING };

HOODIE_TEST(merge_sorted__one_source_and_empty_sources)
{
    run_case(1, 200, 50, 0, 0, 0, COMMIT, 7, 16, 1);
    run_case(1, 200, 50, 1, 1, 1, EVENT, 3, 0, 2);
    run_case(1, 0, 50, 0, 1, 0, EVENT, 3, 0, 3);
    run_case(5, 0, 50, 0, 1, 0, EVENT, 3, 0, 4);
}

HOODIE_TEST(merge_sorted__random_against_reference)
{
    const hoodie_merge_policy *pols[3] = { &COMMIT, &EVENT, &V6 };
    for (unsigned seed = 1; seed <= 400; seed++) {
        uint32_t k = 1 + seed % 13;
        size_t len = seed % 9 == 0 ? 0 : 1 + seed % 80;
        run_case(k, len, 1 + (int)(seed % 40), (int)(seed % 2), (int)(seed / 2 % 2), (int)(seed / 4 % 2),
                 *pols[seed % 3], 1 + (int)(seed % 9), (int64_t)(seed % 5 == 0 ? 1 : seed % 50), seed);
    }
}

HOODIE_TEST(merge_sorted__thousands_of_inputs)
{
    run_case(2500, 12, 5000, 1, 1, 0, EVENT, 4, 1000, 77);
    run_case(3001, 6, 60, 0, 0, 1, COMMIT, 2, 0, 78);
}

HOODIE_TEST(merge_sorted__unsorted_source_is_corrupt)
{
    hoodie_field schema;
    hoodie_assert_ok(make_schema(&schema));
    rec r[3] = { { 5, 0, 0, 0, 0 }, { 2, 0, 1, 0, 0 }, { 9, 0, 2, 0, 0 } };
    tsrc s = { r, 3, 0, 5, 1, &schema };
    hoodie_sorted_source ss = { tsrc_next, &s };
    hoodie_sorted_merge_cfg cfg = { &schema, 0, 1, 3, COMMIT, 0, 0, 0, 0, NULL };
    hoodie_sorted_merge *m;
    hoodie_assert_ok(hoodie_sorted_merge_open(&m, &cfg, &ss, 1));
    hoodie_batch b;
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_sorted_merge_next(m, &b, NULL));
    hoodie_sorted_merge_free(m);
    hoodie_field_dispose(&schema);
}

/*
 * Fills (partial updates, TOASTed values): the winner of a merge takes the loser's values where its own are null,
 * in every merge (policy.partial) or where a log record replaces the base record only (one way). Random sources of
 * (key, ts, a, b) with nulls in a and b, tiny batches (keys spanning batches: candidates carried while filled
 * records wait in the merge), small output batches, against a reference fold.
 */
typedef struct frec { int key; int64_t ts; int64_t a, b; int has_a, has_b, del; } frec;

typedef struct fsrc { frec *r; size_t n, pos; unsigned seed; hoodie_field *schema; } fsrc;

static hoodie_status fsrc_next(void *ctx, hoodie_batch *out, uint8_t **deleted)
{
    fsrc *s = ctx;
    if (s->pos >= s->n) return HOODIE_ITEROVER;
    size_t take = 1 + (size_t)(rand_r(&s->seed) % 3);
    if (take > s->n - s->pos) take = s->n - s->pos;
    HOODIE_TRY(hoodie_batch_init(out, s->schema));
    uint8_t *d = malloc(take + 1);
    hoodie_array *c = out->root.children;
    const hoodie_field *f = out->schema.children;
    for (size_t i = 0; i < take; i++) {
        const frec *r = &s->r[s->pos + i];
        char kb[16];
        snprintf(kb, sizeof kb, "k%04d", r->key);
        hoodie_array_append_str(&c[0], &f[0], kb);
        hoodie_array_append_int(&c[1], &f[1], r->ts);
        if (r->has_a) hoodie_array_append_int(&c[2], &f[2], r->a); else hoodie_array_append_null(&c[2], &f[2]);
        if (r->has_b) hoodie_array_append_int(&c[3], &f[3], r->b); else hoodie_array_append_null(&c[3], &f[3]);
        d[i] = (uint8_t)r->del;
    }
    out->root.length = (int64_t)take;
    s->pos += take;
    *deleted = d;
    return HOODIE_OK;
}

static int cmp_frec(const void *x, const void *y)
{
    const frec *a = x, *b = y;
    return (a->key > b->key) - (a->key < b->key);
}

/* The reference: w takes l's a and b where it has none (neither a delete). */
static void ref_fill(frec *w, const frec *l)
{
    if (w->del || l->del) return;
    if (!w->has_a && l->has_a) w->has_a = 1, w->a = l->a;
    if (!w->has_b && l->has_b) w->has_b = 1, w->b = l->b;
}

static int ref_newer(const hoodie_merge_policy *p, hoodie_merge_mode mode, const frec *o, const frec *n)
{
    (void)p;
    hoodie_merge_version a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.is_delete = o->del, b.is_delete = n->del;
    a.ord.kind = b.ord.kind = HOODIE_ORD_INT;
    a.ord.i = o->ts, b.ord.i = n->ts;
    return hoodie_merge_newer_wins(mode, &a, &b);
}

static void fill_case(unsigned seed, int oneway, int64_t out_rows)
{
    hoodie_field schema, col;
    hoodie_assert_ok(hoodie_field_init(&schema, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    const char *names[4] = { "_hoodie_record_key", "ts", "a", "b" };
    hoodie_type_id types[4] = { HOODIE_TYPE_STRING, HOODIE_TYPE_INT64, HOODIE_TYPE_INT64, HOODIE_TYPE_INT64 };
    for (int i = 0; i < 4; i++) {
        hoodie_assert_ok(hoodie_field_init(&col, names[i], hoodie_type_of(types[i]), 1));
        hoodie_assert_ok(hoodie_field_add_child(&schema, &col));
        hoodie_field_dispose(&col);
    }
    enum { K = 4 };
    fsrc s[K];
    hoodie_sorted_source ss[K];
    unsigned st = seed;
    int64_t v = 1;
    for (int i = 0; i < K; i++) {
        s[i].n = (size_t)(rand_r(&st) % 30);
        s[i].r = malloc((s[i].n + 1) * sizeof *s[i].r);
        for (size_t j = 0; j < s[i].n; j++) {
            frec *r = &s[i].r[j];
            r->key = (int)(rand_r(&st) % 12);
            r->ts = rand_r(&st) % 4;
            r->has_a = rand_r(&st) % 5 < 3, r->a = v++;
            r->has_b = rand_r(&st) % 5 < 2, r->b = v++;
            r->del = i > 0 && rand_r(&st) % 9 == 0;
        }
        qsort(s[i].r, s[i].n, sizeof *s[i].r, cmp_frec);
        size_t w = 0; /* one record a key in each source, as written */
        for (size_t j = 0; j < s[i].n; j++)
            if (w == 0 || s[i].r[w - 1].key != s[i].r[j].key) s[i].r[w++] = s[i].r[j];
        s[i].n = w;
        s[i].pos = 0;
        s[i].seed = seed * 7 + (unsigned)i;
        s[i].schema = &schema;
        ss[i] = (hoodie_sorted_source){ fsrc_next, &s[i] };
    }
    hoodie_merge_policy pol = EVENT;
    pol.partial = HOODIE_PARTIAL_IGNORE_DEFAULTS;
    pol.partial_oneway = oneway;
    if (oneway) pol.base = HOODIE_MERGE_COMMIT_TIME_ORDERING;
    /* the reference, key by key: source 0 is the base */
    frec want[12];
    int have[12] = { 0 };
    for (int key = 0; key < 12; key++) {
        frec base = { 0 }, log = { 0 };
        int has_base = 0, has_log = 0, after_delete = 0, after_natural = 0;
        for (int i = 0; i < K; i++)
            for (size_t j = 0; j < s[i].n; j++) {
                const frec *r = &s[i].r[j];
                if (r->key != key) continue;
                if (i == 0) { base = *r; has_base = 1; continue; }
                if (!has_log) { log = *r; has_log = 1; continue; }
                int newer = ref_newer(&pol, pol.log_fold, &log, r);
                /* a record that follows a delete of its key is new: nothing fills it from the base */
                after_delete = after_delete || (newer && log.del && !r->del);
                /* ... and a delete without an ordering value removed the base record, whatever it holds */
                after_natural = after_natural || (newer && log.del && log.ts == 0);
                if (!oneway) {
                    frec w = newer ? *r : log;
                    ref_fill(&w, newer ? &log : r);
                    log = w;
                } else if (newer) {
                    log = *r;
                }
            }
        if (!has_base && !has_log) continue;
        frec w = has_log ? log : base;
        if (has_base && has_log) {
            int newer = after_natural || ref_newer(&pol, pol.base, &base, &log);
            w = newer ? log : base;
            if (newer ? !after_delete : !oneway) ref_fill(&w, newer ? &base : &log);
        }
        if (w.del) continue;
        want[key] = w;
        have[key] = 1;
    }
    hoodie_sorted_merge_cfg cfg = { &schema, 0, 1, -1, pol, 1, 0, 1, out_rows, NULL };
    hoodie_sorted_merge *m;
    hoodie_assert_ok(hoodie_sorted_merge_open(&m, &cfg, ss, K));
    hoodie_batch b;
    hoodie_status rc;
    int seen[12] = { 0 };
    while ((rc = hoodie_sorted_merge_next(m, &b, NULL)) == HOODIE_OK) {
        const hoodie_array *c = b.root.children;
        for (int64_t r = 0; r < b.root.length; r++) {
            char kb[8] = "";
            memcpy(kb, (const char *)c[0].values + c[0].offsets[r] + 1, 4); /* "k%04d" */
            int key = atoi(kb);
            hoodie_assert(key >= 0 && key < 12 && have[key] && !seen[key]);
            seen[key] = 1;
            hoodie_assert_equal_i(want[key].ts, ((const int64_t *)c[1].values)[r]);
            hoodie_assert_equal_i(want[key].has_a, hoodie_array_is_valid(&c[2], r));
            hoodie_assert_equal_i(want[key].has_b, hoodie_array_is_valid(&c[3], r));
            if (want[key].has_a) hoodie_assert_equal_i(want[key].a, ((const int64_t *)c[2].values)[r]);
            if (want[key].has_b) hoodie_assert_equal_i(want[key].b, ((const int64_t *)c[3].values)[r]);
        }
        hoodie_batch_dispose(&b);
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
    for (int key = 0; key < 12; key++) hoodie_assert_equal_i(have[key], seen[key]);
    hoodie_sorted_merge_free(m);
    for (int i = 0; i < K; i++) free(s[i].r);
    hoodie_field_dispose(&schema);
}

HOODIE_TEST(merge_sorted__fills_against_reference)
{
    for (unsigned seed = 1; seed <= 300; seed++) fill_case(seed, (int)(seed % 2), (int64_t)(1 + seed % 4));
}
