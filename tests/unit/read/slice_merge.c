/* The slice merger folds log items per key and merges base batches against them. Its entries keep integer
 * ordering values inline and read any other kind again from the record or delete they came from: these tests
 * fold string, double and integer ordering values, deletes with and without one, and read back both the merge
 * with a base batch and the folded log records alone. */
#include "hoodie_test.h"
#include "model/build.h"
#include "read/logscan.h"
#include "read/slice_merge.h"
#include "util/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* schema: _hoodie_record_key string, ord <ord_type>, v long */
static void sm_schema(hoodie_field *f, hoodie_type_id ord_type)
{
    hoodie_field c;
    hoodie_assert_ok(hoodie_field_init(f, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&c, "_hoodie_record_key", hoodie_type_of(HOODIE_TYPE_STRING), 1));
    hoodie_assert_ok(hoodie_field_add_child(f, &c));
    hoodie_field_dispose(&c);
    hoodie_assert_ok(hoodie_field_init(&c, "ord", hoodie_type_of(ord_type), 1));
    hoodie_assert_ok(hoodie_field_add_child(f, &c));
    hoodie_field_dispose(&c);
    hoodie_assert_ok(hoodie_field_init(&c, "v", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_assert_ok(hoodie_field_add_child(f, &c));
    hoodie_field_dispose(&c);
}

/* Append row (key, ord, v) to b; ord is text for a string column, else a number. */
static void sm_row(hoodie_batch *b, const char *key, const char *ord, int64_t v)
{
    hoodie_field *f = &b->schema;
    hoodie_assert_ok(hoodie_array_append_str(&b->root.children[0], &f->children[0], key));
    hoodie_type_id t = f->children[1].type.id;
    if (!ord) hoodie_assert_ok(hoodie_array_append_null(&b->root.children[1], &f->children[1]));
    else if (t == HOODIE_TYPE_STRING) hoodie_assert_ok(hoodie_array_append_str(&b->root.children[1], &f->children[1], ord));
    else if (t == HOODIE_TYPE_DOUBLE) hoodie_assert_ok(hoodie_array_append_double(&b->root.children[1], &f->children[1], atof(ord)));
    else hoodie_assert_ok(hoodie_array_append_int(&b->root.children[1], &f->children[1], atoll(ord)));
    hoodie_assert_ok(hoodie_array_append_int(&b->root.children[2], &f->children[2], v));
    b->root.length++;
}

static hoodie_log_item *sm_data(hoodie_log_items *l, const hoodie_field *schema, const char *instant)
{
    hoodie_log_item *it = hoodie_log_items_push(l, HOODIE_LOG_DATA, instant);
    hoodie_assert(it != NULL);
    it->block_start = 1;
    hoodie_assert_ok(hoodie_batch_init(&it->batch, schema));
    return it;
}

/* A delete block of `n` keys; ords[i] NULL: no ordering value (a natural-order delete), else one of type
 * ord_type (LONG, DOUBLE or STRING). */
static void sm_deletes(hoodie_log_items *l, const char *instant, const char *const *keys, const char *const *ords,
                       hoodie_hlog_ord_type ord_type, size_t n)
{
    hoodie_log_item *it = hoodie_log_items_push(l, HOODIE_LOG_DELETES, instant);
    hoodie_assert(it != NULL);
    it->block_start = 1;
    it->deletes = hoodie_arena_alloc(l->arena, n * sizeof *it->deletes);
    hoodie_assert(it->deletes != NULL);
    memset(it->deletes, 0, n * sizeof *it->deletes);
    for (size_t i = 0; i < n; i++) {
        hoodie_hlog_delete *d = &it->deletes[i];
        d->record_key = hoodie_arena_strdup(l->arena, keys[i]);
        if (!ords[i]) d->ord_type = HOODIE_HLOG_ORD_NULL;
        else if (ord_type == HOODIE_HLOG_ORD_DOUBLE) {
            d->ord_type = ord_type;
            d->ord_d = atof(ords[i]);
        } else if (ord_type == HOODIE_HLOG_ORD_STRING) {
            d->ord_type = ord_type;
            d->ord_bytes = (const uint8_t *)hoodie_arena_strdup(l->arena, ords[i]);
            d->ord_len = strlen(ords[i]);
        } else {
            d->ord_type = HOODIE_HLOG_ORD_LONG;
            d->ord_i = atoll(ords[i]);
        }
    }
    it->delete_count = n;
}

/* The rows of b as "key:v" lines sorted by key. */
static void sm_render(const hoodie_batch *b, char *out, size_t cap)
{
    size_t n = (size_t)b->root.length, used = 0;
    char (*lines)[64] = calloc(n + 1, sizeof *lines);
    hoodie_assert(lines != NULL);
    for (size_t r = 0; r < n; r++) {
        size_t kl;
        const uint8_t *k = hoodie_array_bytes_at(&b->root.children[0], (int64_t)r, &kl);
        snprintf(lines[r], sizeof lines[r], "%.*s:%lld", (int)kl, (const char *)k,
                 (long long)((const int64_t *)b->root.children[2].values)[r]);
    }
    qsort(lines, n, sizeof *lines, (int (*)(const void *, const void *))strcmp);
    out[0] = '\0';
    for (size_t r = 0; r < n; r++) used += (size_t)snprintf(out + used, cap - used, "%s%s", r ? " " : "", lines[r]);
    free(lines);
}

typedef struct sm_case {
    hoodie_field schema;
    hoodie_log_items items;
    hoodie_batch base;
} sm_case;

static void sm_begin(sm_case *c, hoodie_type_id ord_type)
{
    memset(c, 0, sizeof *c);
    sm_schema(&c->schema, ord_type);
    hoodie_assert_ok(hoodie_arena_new(&c->items.arena, NULL, 4096));
    hoodie_assert_ok(hoodie_batch_init(&c->base, &c->schema));
}

static void sm_end(sm_case *c)
{
    hoodie_batch_dispose(&c->base);
    hoodie_log_items_dispose(&c->items);
    hoodie_field_dispose(&c->schema);
}

/* Key column 0, ordering column 1, no _hoodie_is_deleted, event-time ordering throughout. */
static hoodie_slice_merge_cfg sm_cfg(const sm_case *c)
{
    hoodie_slice_merge_cfg mc;
    memset(&mc, 0, sizeof mc);
    mc.schema = &c->schema;
    mc.key_col = 0;
    mc.ordering_col = 1;
    mc.deleted_col = -1;
    mc.policy.log_fold = mc.policy.base = HOODIE_MERGE_EVENT_TIME_ORDERING;
    return mc;
}

/* Merge c's base batch with its log items under event-time ordering: merged rows, then log-only rows. */
static void sm_merge(sm_case *c, char *out, size_t cap, int64_t *replaced, int64_t *deleted)
{
    hoodie_slice_merge_cfg mc = sm_cfg(c);
    hoodie_slice_merger *m;
    hoodie_batch merged, rest;
    hoodie_assert_ok(hoodie_slice_merger_new(&m, &mc, &c->items));
    hoodie_assert_ok(hoodie_slice_merger_base(m, &c->base, &merged));
    hoodie_assert_ok(hoodie_slice_merger_finish(m, &rest));
    *replaced = hoodie_slice_merger_replaced(m, deleted);
    for (int64_t r = 0; r < rest.root.length; r++) {
        hoodie_assert_ok(hoodie_array_append_range(&merged.root.children[0], &c->schema.children[0], &rest.root.children[0], r, 1));
        hoodie_assert_ok(hoodie_array_append_range(&merged.root.children[1], &c->schema.children[1], &rest.root.children[1], r, 1));
        hoodie_assert_ok(hoodie_array_append_range(&merged.root.children[2], &c->schema.children[2], &rest.root.children[2], r, 1));
        merged.root.length++;
    }
    sm_render(&merged, out, cap);
    hoodie_batch_dispose(&merged);
    hoodie_batch_dispose(&rest);
    hoodie_slice_merger_free(m);
}

HOODIE_TEST(read_slice_merge__string_ordering_values_are_compared_from_the_records)
{
    sm_case c;
    sm_begin(&c, HOODIE_TYPE_STRING);
    sm_row(&c.base, "a", "m", 1);
    sm_row(&c.base, "b", "m", 2);
    sm_row(&c.base, "c", "m", 3);
    sm_row(&c.base, "d", "m", 4);
    hoodie_log_item *l1 = sm_data(&c.items, &c.schema, "20250101000000001");
    sm_row(&l1->batch, "a", "p", 10);  /* newer than the base */
    sm_row(&l1->batch, "b", "a", 20);  /* older than the base: loses */
    sm_row(&l1->batch, "x", "q", 30);  /* a log-only key */
    hoodie_log_item *l2 = sm_data(&c.items, &c.schema, "20250101000000002");
    sm_row(&l2->batch, "a", "o", 11);  /* older than l1's: the fold keeps l1's */
    sm_row(&l2->batch, "x", "z", 31);  /* newer than l1's */
    sm_row(&l2->batch, "c", "n", 33);
    const char *dk[] = { "c", "d" }, *dord[] = { "b", "zz" };
    sm_deletes(&c.items, "20250101000000003", dk, dord, HOODIE_HLOG_ORD_STRING, 2); /* c: older than l2's "n"; d: newer than the base */
    char got[512];
    int64_t replaced, deleted;
    sm_merge(&c, got, sizeof got, &replaced, &deleted);
    hoodie_assert_equal_s(got, "a:10 b:2 c:33 x:31");
    hoodie_assert(replaced == 2 && deleted == 1);
    sm_end(&c);
}

HOODIE_TEST(read_slice_merge__double_and_integer_ordering_and_natural_deletes)
{
    static const hoodie_type_id kinds[] = { HOODIE_TYPE_DOUBLE, HOODIE_TYPE_INT64 };
    for (size_t k = 0; k < 2; k++) {
        sm_case c;
        sm_begin(&c, kinds[k]);
        sm_row(&c.base, "a", "5", 1);
        sm_row(&c.base, "b", "5", 2);
        sm_row(&c.base, "c", "5", 3);
        hoodie_log_item *l1 = sm_data(&c.items, &c.schema, "20250101000000001");
        sm_row(&l1->batch, "a", "7", 10);
        sm_row(&l1->batch, "b", "7", 20);
        sm_row(&l1->batch, "c", "3", 30); /* loses against the base's 5 */
        /* a: deleted with no ordering value (natural order) and then written again with a low ordering value: the
         * later record survives and the base record does not come back (HUDI-7610); b: a delete with a lower
         * ordering value than l1's loses */
        const char *dk[] = { "a", "b" }, *dord[] = { NULL, "6" };
        sm_deletes(&c.items, "20250101000000002", dk, dord,
                   kinds[k] == HOODIE_TYPE_DOUBLE ? HOODIE_HLOG_ORD_DOUBLE : HOODIE_HLOG_ORD_LONG, 2);
        hoodie_log_item *l2 = sm_data(&c.items, &c.schema, "20250101000000003");
        sm_row(&l2->batch, "a", "1", 11);
        char got[512];
        int64_t replaced, deleted;
        sm_merge(&c, got, sizeof got, &replaced, &deleted);
        hoodie_assert_equal_s(got, "a:11 b:20 c:3");
        hoodie_assert(replaced == 2 && deleted == 0);
        sm_end(&c);
    }
}

HOODIE_TEST(read_slice_merge__log_records_alone_keep_deletes_and_their_ordering_values)
{
    sm_case c;
    sm_begin(&c, HOODIE_TYPE_STRING);
    hoodie_log_item *l1 = sm_data(&c.items, &c.schema, "20250101000000001");
    sm_row(&l1->batch, "a", "b", 1);
    sm_row(&l1->batch, "b", "b", 2);
    sm_row(&l1->batch, "c", "b", 3);
    const char *dk[] = { "a", "c" }, *dord[] = { "k", NULL };
    sm_deletes(&c.items, "20250101000000002", dk, dord, HOODIE_HLOG_ORD_STRING, 2);
    hoodie_log_item *l2 = sm_data(&c.items, &c.schema, "20250101000000003");
    sm_row(&l2->batch, "c", "a", 33); /* after c's natural delete: kept, with the delete before it */
    hoodie_slice_merge_cfg mc = sm_cfg(&c);
    hoodie_slice_merger *m;
    hoodie_batch recs;
    hoodie_slice_log_deletes dels;
    hoodie_assert_ok(hoodie_slice_merger_new(&m, &mc, &c.items));
    hoodie_assert(hoodie_slice_merger_log_keys(m) == 3);
    hoodie_assert(hoodie_slice_merger_may_drop(m));
    hoodie_assert_ok(hoodie_slice_merger_log_records(m, &recs, &dels));
    char got[256];
    sm_render(&recs, got, sizeof got);
    hoodie_assert_equal_s(got, "b:2 c:33");
    hoodie_assert(dels.count == 2);
    /* keys in first-seen order: a (its delete's ordering value "k"), then c (no ordering value) */
    hoodie_assert(dels.key_lens[0] == 1 && dels.keys[0][0] == 'a');
    hoodie_assert(dels.ords[0].kind == HOODIE_ORD_BYTES && dels.ords[0].len == 1 && dels.ords[0].bytes[0] == 'k');
    hoodie_assert(dels.key_lens[1] == 1 && dels.keys[1][0] == 'c');
    hoodie_assert(dels.ords[1].kind == HOODIE_ORD_NONE);
    hoodie_slice_log_deletes_dispose(&dels);
    hoodie_batch_dispose(&recs);
    hoodie_slice_merger_free(m);
    sm_end(&c);
}

HOODIE_TEST(read_slice_merge__many_keys_probe_through_their_records)
{
    /* enough keys to wrap around the key table's probing, two versions of each, half of them in the base */
    enum { N = 20000 };
    sm_case c;
    sm_begin(&c, HOODIE_TYPE_INT64);
    hoodie_log_item *l1 = sm_data(&c.items, &c.schema, "20250101000000001");
    hoodie_log_item *l2 = sm_data(&c.items, &c.schema, "20250101000000002");
    char key[32], ord[32];
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "key-%d", i);
        snprintf(ord, sizeof ord, "%d", i % 3);
        if (i % 2 == 0) sm_row(&c.base, key, "1", -i);
        sm_row(&l1->batch, key, ord, i);
        sm_row(&l2->batch, key, "1", 100000 + i); /* wins where l1's ordering value is 0 or 1 */
    }
    hoodie_slice_merge_cfg mc = sm_cfg(&c);
    hoodie_slice_merger *m;
    hoodie_batch merged, rest;
    hoodie_assert_ok(hoodie_slice_merger_new(&m, &mc, &c.items));
    hoodie_assert(hoodie_slice_merger_log_keys(m) == N);
    hoodie_assert_ok(hoodie_slice_merger_base(m, &c.base, &merged));
    hoodie_assert_ok(hoodie_slice_merger_finish(m, &rest));
    hoodie_assert(merged.root.length == N / 2 && rest.root.length == N / 2);
    for (int pass = 0; pass < 2; pass++) {
        const hoodie_batch *b = pass ? &rest : &merged;
        for (int64_t r = 0; r < b->root.length; r++) {
            size_t kl;
            const uint8_t *k = hoodie_array_bytes_at(&b->root.children[0], r, &kl);
            char kb[32];
            snprintf(kb, sizeof kb, "%.*s", (int)kl, (const char *)k);
            int i = atoi(kb + 4);
            int64_t v = ((const int64_t *)b->root.children[2].values)[r];
            hoodie_assert(v == (i % 3 == 2 ? i : 100000 + i)); /* equal ordering values: the later one wins */
            hoodie_assert((i % 2 == 0) == !pass);
        }
    }
    hoodie_batch_dispose(&merged);
    hoodie_batch_dispose(&rest);
    hoodie_slice_merger_free(m);
    sm_end(&c);
}

/* One pass (part of parts; parts 1: the whole merge) over 300 base rows (one with a null key) and a log that
 * updates every third key, deletes every seventh and adds 30: the log items hold only the pass's keys, as a
 * pass's scan keeps them, and the base batch every row. The merged rows, rendered, and their count. */
static size_t sm_pass(uint32_t parts, uint32_t part, char *out, size_t cap)
{
    sm_case c;
    sm_begin(&c, HOODIE_TYPE_INT64);
    hoodie_log_item *l1 = sm_data(&c.items, &c.schema, "20250101000000001");
    const char *dk[300], *dord[300];
    char keys[330][16];
    size_t nd = 0;
    for (int i = 0; i < 330; i++) {
        snprintf(keys[i], sizeof keys[i], "k%03d", i);
        int in = hoodie_logscan_key_part(keys[i], strlen(keys[i]), parts) == part;
        if (i < 300) sm_row(&c.base, keys[i], "1", i);
        if (in && (i % 3 == 0 || i >= 300)) sm_row(&l1->batch, keys[i], "2", 1000 + i);
        if (in && i % 7 == 0 && i < 300) dk[nd] = keys[i], dord[nd++] = "3";
    }
    /* a null key goes to partition 0 */
    hoodie_assert_ok(hoodie_array_append_null(&c.base.root.children[0], &c.schema.children[0]));
    hoodie_assert_ok(hoodie_array_append_int(&c.base.root.children[1], &c.schema.children[1], 1));
    hoodie_assert_ok(hoodie_array_append_int(&c.base.root.children[2], &c.schema.children[2], -1));
    c.base.root.length++;
    if (nd) sm_deletes(&c.items, "20250101000000002", dk, dord, HOODIE_HLOG_ORD_LONG, nd);
    hoodie_slice_merge_cfg mc = sm_cfg(&c);
    mc.pass_parts = parts;
    mc.pass_part = part;
    hoodie_slice_merger *m;
    hoodie_batch merged, rest;
    hoodie_assert_ok(hoodie_slice_merger_new(&m, &mc, &c.items));
    hoodie_assert_ok(hoodie_slice_merger_base(m, &c.base, &merged));
    hoodie_assert_ok(hoodie_slice_merger_finish(m, &rest));
    size_t n = (size_t)(merged.root.length + rest.root.length);
    for (int64_t r = 0; r < merged.root.length; r++) { /* every row of the pass's partition */
        size_t kl = 0;
        const uint8_t *k = hoodie_array_is_valid(&merged.root.children[0], r)
                               ? hoodie_array_bytes_at(&merged.root.children[0], r, &kl) : NULL;
        hoodie_assert(k ? hoodie_logscan_key_part(k, kl, parts) == part : part == 0);
    }
    char a[8192], b[4096];
    sm_render(&merged, a, sizeof a);
    sm_render(&rest, b, sizeof b);
    snprintf(out, cap, "%s%s%s", a, *a && *b ? " " : "", b);
    hoodie_batch_dispose(&merged);
    hoodie_batch_dispose(&rest);
    hoodie_slice_merger_free(m);
    sm_end(&c);
    return n;
}

HOODIE_TEST(read_slice_merge__a_pass_merges_its_partitions_rows_of_whole_base_batches)
{
    char whole[16384], got[16384];
    size_t n = sm_pass(1, 0, whole, sizeof whole);
    hoodie_assert(n == 300 + 1 - 43 + 30); /* 43 deletes among k000..k299 */
    for (uint32_t parts = 2; parts <= 5; parts += 3) {
        /* the passes' rows add up to the whole merge's, each pass's only its own */
        size_t total = 0;
        char *all[5];
        for (uint32_t p = 0; p < parts; p++) {
            total += sm_pass(parts, p, got, sizeof got);
            all[p] = strdup(got);
        }
        hoodie_assert(total == n);
        for (char *tok = strtok(whole, " "); tok; tok = strtok(NULL, " ")) {
            int found = 0;
            for (uint32_t p = 0; p < parts; p++) {
                const char *h = strstr(all[p], tok);
                found += h && (h == all[p] || h[-1] == ' ') && (h[strlen(tok)] == ' ' || !h[strlen(tok)]);
            }
            hoodie_assert(found == 1);
        }
        for (uint32_t p = 0; p < parts; p++) free(all[p]);
        sm_pass(1, 0, whole, sizeof whole); /* strtok cut it up */
    }
}
