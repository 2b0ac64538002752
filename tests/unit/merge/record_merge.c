#include "hoodie_test.h"
#include "merge/record_merge.h"
#include "model/build.h"

#include <string.h>

static hoodie_merge_version rec(long long v)
{
    hoodie_merge_version m;
    memset(&m, 0, sizeof m);
    m.ord.kind = HOODIE_ORD_INT;
    m.ord.i = v;
    return m;
}

static hoodie_merge_version del(long long v)
{
    hoodie_merge_version m = rec(v);
    m.is_delete = 1;
    return m;
}

HOODIE_TEST(merge_record__commit_time_newer_always_wins)
{
    hoodie_merge_version a = rec(10), b = rec(1);
    hoodie_assert(hoodie_merge_newer_wins(HOODIE_MERGE_COMMIT_TIME_ORDERING, &a, &b));
    hoodie_merge_version d = del(5);
    hoodie_assert(hoodie_merge_newer_wins(HOODIE_MERGE_COMMIT_TIME_ORDERING, &a, &d));
}

HOODIE_TEST(merge_record__event_time_larger_wins_ties_to_newer)
{
    hoodie_merge_version a = rec(10), b = rec(1), c = rec(10);
    hoodie_assert(!hoodie_merge_newer_wins(HOODIE_MERGE_EVENT_TIME_ORDERING, &a, &b)); /* stale update loses */
    hoodie_assert(hoodie_merge_newer_wins(HOODIE_MERGE_EVENT_TIME_ORDERING, &b, &a));
    hoodie_assert(hoodie_merge_newer_wins(HOODIE_MERGE_EVENT_TIME_ORDERING, &a, &c)); /* tie: newer */
}

HOODIE_TEST(merge_record__deletes)
{
    hoodie_merge_version a = rec(10), d0 = del(0), d5 = del(5), d20 = del(20), later = rec(3);
    hoodie_merge_version dnull = del(0);
    dnull.ord.kind = HOODIE_ORD_NONE;
    hoodie_assert(hoodie_merge_newer_wins(HOODIE_MERGE_EVENT_TIME_ORDERING, &a, &d0));    /* natural delete wins */
    hoodie_assert(hoodie_merge_newer_wins(HOODIE_MERGE_EVENT_TIME_ORDERING, &a, &dnull));
    hoodie_assert(!hoodie_merge_newer_wins(HOODIE_MERGE_EVENT_TIME_ORDERING, &a, &d5));   /* older delete loses */
    hoodie_assert(hoodie_merge_newer_wins(HOODIE_MERGE_EVENT_TIME_ORDERING, &a, &d20));
    hoodie_assert(hoodie_merge_newer_wins(HOODIE_MERGE_EVENT_TIME_ORDERING, &d0, &later)); /* after a natural delete */
    hoodie_assert(!hoodie_merge_newer_wins(HOODIE_MERGE_EVENT_TIME_ORDERING, &d20, &later));
}

HOODIE_TEST(merge_record__ordering_compare_kinds)
{
    int comparable;
    hoodie_ordering i5 = { HOODIE_ORD_INT, 0, 5, 0, 0, NULL, 0 };
    hoodie_ordering d55 = { HOODIE_ORD_DOUBLE, 0, 0, 0, 5.5, NULL, 0 };
    hoodie_ordering sa = { HOODIE_ORD_BYTES, 0, 0, 0, 0, (const uint8_t *)"abc", 3 };
    hoodie_ordering sb = { HOODIE_ORD_BYTES, 0, 0, 0, 0, (const uint8_t *)"abd", 3 };
    hoodie_ordering s_short = { HOODIE_ORD_BYTES, 0, 0, 0, 0, (const uint8_t *)"ab", 2 };
    hoodie_ordering none = { HOODIE_ORD_NONE, 0, 0, 0, 0, NULL, 0 };
    hoodie_ordering dec1 = { HOODIE_ORD_DECIMAL, 2, 0, 150, 0, NULL, 0 };  /* 1.50 */
    hoodie_ordering dec2 = { HOODIE_ORD_DECIMAL, 1, 0, 15, 0, NULL, 0 };   /* 1.5 */
    hoodie_ordering decneg = { HOODIE_ORD_DECIMAL, 0, -1, (uint64_t)-3, 0, NULL, 0 }; /* -3 */
    hoodie_assert(hoodie_ordering_compare(&i5, &d55, &comparable) < 0 && comparable);
    hoodie_assert(hoodie_ordering_compare(&sa, &sb, &comparable) < 0 && comparable);
    hoodie_assert(hoodie_ordering_compare(&s_short, &sa, &comparable) < 0);
    hoodie_assert(hoodie_ordering_compare(&none, &i5, &comparable) < 0 && comparable);
    hoodie_assert(hoodie_ordering_compare(&dec1, &dec2, &comparable) == 0 && comparable);
    hoodie_assert(hoodie_ordering_compare(&decneg, &dec2, &comparable) < 0);
    (void)hoodie_ordering_compare(&sa, &i5, &comparable);
    hoodie_assert(!comparable);
    hoodie_assert(hoodie_ordering_is_natural(&none));
    hoodie_assert(!hoodie_ordering_is_natural(&i5));
}

static hoodie_ordering seq(const char *s)
{
    hoodie_ordering o = { .kind = HOODIE_ORD_BYTES, .bytes = (const uint8_t *)s, .len = strlen(s) };
    hoodie_ordering_seq(&o);
    return o;
}

HOODIE_TEST(merge_record__mysql_binlog_sequence_orders_as_numbers)
{
    int comparable;
    hoodie_ordering a = seq("1.99"), b = seq("1.100"), c = seq("2.5"), d = seq("002.05"), e = seq("10.1");
    hoodie_assert(a.kind == HOODIE_ORD_DECIMAL);
    hoodie_assert(hoodie_ordering_compare(&a, &b, &comparable) < 0 && comparable); /* as text it would be > */
    hoodie_assert(hoodie_ordering_compare(&c, &d, &comparable) == 0 && comparable);
    hoodie_assert(hoodie_ordering_compare(&e, &c, &comparable) > 0);
    /* anything else stays text */
    const char *bad[] = { "", "1", "1.", ".5", "1.2.3", "a.1", "1.-2", "99999999999999999999.1" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) hoodie_assert(seq(bad[i]).kind == HOODIE_ORD_BYTES);
}

/* Several ordering fields (table version 9): the first decides unless it ties, then the next, in turn; a tie on
 * all of them goes to the newer version; a version without the further fields (a delete) is compared on the
 * first alone. */
HOODIE_TEST(merge_record__several_ordering_fields_compare_in_turn)
{
    hoodie_field schema, c;
    hoodie_assert_ok(hoodie_field_init(&schema, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&c, "seq", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_assert_ok(hoodie_field_add_child(&schema, &c));
    hoodie_field_dispose(&c);
    hoodie_assert_ok(hoodie_field_init(&c, "pos", hoodie_type_of(HOODIE_TYPE_STRING), 1));
    hoodie_assert_ok(hoodie_field_add_child(&schema, &c));
    hoodie_field_dispose(&c);
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &schema));
    const char *pos[] = { "b", "a", "b", NULL };
    for (int r = 0; r < 4; r++) {
        hoodie_assert_ok(hoodie_array_append_int(&b.root.children[0], &schema.children[0], 1));
        if (pos[r]) hoodie_assert_ok(hoodie_array_append_str(&b.root.children[1], &schema.children[1], pos[r]));
        else hoodie_assert_ok(hoodie_array_append_null(&b.root.children[1], &schema.children[1]));
        b.root.length++;
    }
    static const int more_cols[] = { 1 };
    hoodie_merge_version v[4];
    for (int r = 0; r < 4; r++) {
        v[r] = rec(7);
        v[r].n_more = 1;
        v[r].more_cols = more_cols;
        v[r].more_batch = &b;
        v[r].more_row = r;
    }
    const hoodie_merge_mode ev = HOODIE_MERGE_EVENT_TIME_ORDERING;
    hoodie_assert(!hoodie_merge_newer_wins(ev, &v[0], &v[1])); /* 7,"b" then 7,"a": the older stays */
    hoodie_assert(hoodie_merge_newer_wins(ev, &v[1], &v[0]));
    hoodie_assert(hoodie_merge_newer_wins(ev, &v[0], &v[2]));  /* a tie on both: the newer */
    hoodie_assert(!hoodie_merge_newer_wins(ev, &v[0], &v[3])); /* a null second field orders first */
    hoodie_merge_version later = v[1];
    later.ord.i = 8;                                           /* the first field decides before the second */
    hoodie_assert(hoodie_merge_newer_wins(ev, &v[0], &later));
    hoodie_merge_version d = del(7);                           /* no second field: the first alone, a tie */
    hoodie_assert(hoodie_merge_newer_wins(ev, &v[0], &d));
    hoodie_assert(hoodie_merge_newer_wins(HOODIE_MERGE_COMMIT_TIME_ORDERING, &v[0], &v[1]));
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&schema);
}

/* What a merged record takes from the other one (partial updates): nulls (IGNORE_DEFAULTS) or the marker in
 * strings (FILL_UNAVAILABLE), in data columns only; every merge, or the replacing record's only (one way). */
HOODIE_TEST(merge_record__fill_spec)
{
    static const char *const names[3] = { "_hoodie_commit_time", "name", "age" };
    static const hoodie_type_id types[3] = { HOODIE_TYPE_STRING, HOODIE_TYPE_STRING, HOODIE_TYPE_INT64 };
    hoodie_field schema, col;
    hoodie_assert_ok(hoodie_field_init(&schema, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    for (int i = 0; i < 3; i++) {
        hoodie_assert_ok(hoodie_field_init(&col, names[i], hoodie_type_of(types[i]), 1));
        hoodie_assert_ok(hoodie_field_add_child(&schema, &col));
        hoodie_field_dispose(&col);
    }
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &schema));
    hoodie_array *c = b.root.children;
    const hoodie_field *f = schema.children;
    /* row 0: all null; row 1: values; row 2: the marker and a value */
    for (int i = 0; i < 3; i++) hoodie_assert_ok(hoodie_array_append_null(&c[i], &f[i]));
    hoodie_assert_ok(hoodie_array_append_str(&c[0], &f[0], "t1"));
    hoodie_assert_ok(hoodie_array_append_str(&c[1], &f[1], "x"));
    hoodie_assert_ok(hoodie_array_append_int(&c[2], &f[2], 7));
    hoodie_assert_ok(hoodie_array_append_str(&c[0], &f[0], "t2"));
    hoodie_assert_ok(hoodie_array_append_str(&c[1], &f[1], "MISSING"));
    hoodie_assert_ok(hoodie_array_append_int(&c[2], &f[2], 8));
    b.root.length = 3;
    hoodie_merge_policy p;
    memset(&p, 0, sizeof p);
    hoodie_fill_spec s;
    hoodie_assert_ok(hoodie_fill_spec_init(&s, &p, &schema));
    hoodie_assert(!s.cols && !hoodie_fill_lacks(&s, &b, 0, 1)); /* whole records: nothing filled */
    p.partial = HOODIE_PARTIAL_IGNORE_DEFAULTS;
    hoodie_assert_ok(hoodie_fill_spec_init(&s, &p, &schema));
    hoodie_assert(s.both);
    hoodie_assert(!hoodie_fill_lacks(&s, &b, 0, 0)); /* a meta column */
    hoodie_assert(hoodie_fill_lacks(&s, &b, 0, 1) && hoodie_fill_lacks(&s, &b, 0, 2));
    hoodie_assert(!hoodie_fill_lacks(&s, &b, 1, 1));
    hoodie_assert(hoodie_fill_wanted(&s, &b, 0, &b, 1, 0));
    hoodie_assert(!hoodie_fill_wanted(&s, &b, 1, &b, 0, 0));
    hoodie_assert(!s.meta && !hoodie_fill_wanted(&s, &b, 1, &b, 2, 1)); /* no meta fields taken */
    hoodie_fill_spec_dispose(&s);
    /* PartialUpdateAvroPayload: a winner written before the loser takes the loser's meta fields where it has them */
    p.disorder_meta = 1;
    hoodie_assert_ok(hoodie_fill_spec_init(&s, &p, &schema));
    hoodie_assert(s.meta && s.meta[0] && !s.meta[1] && !s.meta[2]);
    hoodie_assert(!hoodie_fill_wanted(&s, &b, 1, &b, 2, 0)); /* the later record wins: nothing to take */
    hoodie_assert(hoodie_fill_wanted(&s, &b, 1, &b, 2, 1));
    hoodie_assert(!hoodie_fill_wanted(&s, &b, 1, &b, 0, 1)); /* the loser has no meta field, nor values */
    int64_t row;
    hoodie_assert_ok(hoodie_fill_append(&s, &b, &b, 1, &b, 2, 1, -1, &row));
    hoodie_assert_equal_i(3, row);
    size_t n;
    const uint8_t *v = hoodie_array_bytes_at(&c[0], 3, &n);
    hoodie_assert(n == 2 && !memcmp(v, "t2", 2)); /* the loser's commit time */
    v = hoodie_array_bytes_at(&c[1], 3, &n);
    hoodie_assert(n == 1 && !memcmp(v, "x", 1)); /* the winner's values */
    hoodie_assert_equal_i(7, ((const int64_t *)c[2].values)[3]);
    hoodie_assert_ok(hoodie_fill_append(&s, &b, &b, 0, &b, 1, 1, -1, &row)); /* and fills as before */
    v = hoodie_array_bytes_at(&c[0], 4, &n);
    hoodie_assert(n == 2 && !memcmp(v, "t1", 2));
    hoodie_assert_equal_i(7, ((const int64_t *)c[2].values)[4]);
    b.root.length = 3;
    for (int i = 0; i < 3; i++) c[i].length = 3;
    hoodie_fill_spec_dispose(&s);
    p.disorder_meta = 0;
    p.partial_oneway = 1;
    hoodie_assert_ok(hoodie_fill_spec_init(&s, &p, &schema));
    hoodie_assert(s.cols && !s.both);
    hoodie_fill_spec_dispose(&s);
    p.partial = HOODIE_PARTIAL_FILL_UNAVAILABLE;
    p.partial_oneway = 0;
    p.unavailable = "MISSING";
    hoodie_assert_ok(hoodie_fill_spec_init(&s, &p, &schema));
    hoodie_assert(!s.cols[2]); /* not a string */
    hoodie_assert(hoodie_fill_lacks(&s, &b, 2, 1) && !hoodie_fill_lacks(&s, &b, 0, 1)); /* a null is a value */
    hoodie_assert(hoodie_fill_wanted(&s, &b, 2, &b, 1, 0));
    hoodie_fill_spec_dispose(&s);
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&schema);
}
