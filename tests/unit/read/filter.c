/* Filters: partition pruning decides as evaluation does, and statistics predicates are what the scanner prunes
 * row groups with. */
#include "hoodie_test.h"
#include "model/build.h"
#include "read/filter.h"

/* The table schema of these tests: one column of each type partitions are made of. */
static void schema(hoodie_field *root)
{
    static const struct { const char *name; hoodie_type_id id; } cols[] = {
        { "i", HOODIE_TYPE_INT32 },   { "l", HOODIE_TYPE_INT64 },     { "s", HOODIE_TYPE_STRING },
        { "d", HOODIE_TYPE_DATE32 },  { "b", HOODIE_TYPE_BOOL },      { "x", HOODIE_TYPE_DOUBLE },
        { "f", HOODIE_TYPE_FLOAT },   { "u", HOODIE_TYPE_UINT8 },     { "n", HOODIE_TYPE_DECIMAL },
    };
    hoodie_assert_ok(hoodie_field_init(root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        hoodie_type t = hoodie_type_of(cols[i].id);
        if (cols[i].id == HOODIE_TYPE_DECIMAL) { t.precision = 10; t.scale = 2; }
        hoodie_field c;
        hoodie_assert_ok(hoodie_field_init(&c, cols[i].name, t, 1));
        hoodie_assert_ok(hoodie_field_add_child(root, &c));
        hoodie_field_dispose(&c);
    }
}

/* May a partition whose `filter` column has the path text `value` hold a row the filter keeps? */
static int part(const hoodie_field *root, const char *filter, const char *value)
{
    hoodie_filter f;
    hoodie_assert_ok(hoodie_filter_parse(&f, filter));
    hoodie_assert_equal_i(1, f.count);
    int r = hoodie_pred_may_match_partition(&f.preds[0], root, value);
    hoodie_filter_dispose(&f);
    return r;
}

HOODIE_TEST(read_filter__partition_text_decides_as_rows_compare)
{
    hoodie_field root;
    schema(&root);
    /* integers */
    hoodie_assert_equal_i(1, part(&root, "i = 10", "10"));
    hoodie_assert_equal_i(0, part(&root, "i = 20", "10"));
    hoodie_assert_equal_i(0, part(&root, "i > 15", "10"));
    hoodie_assert_equal_i(1, part(&root, "i IN (30, 10)", "10"));
    hoodie_assert_equal_i(0, part(&root, "i IS NULL", "10"));
    hoodie_assert_equal_i(1, part(&root, "i IS NOT NULL", "10"));
    hoodie_assert_equal_i(1, part(&root, "l < 9007199254740993", "9007199254740992")); /* exact, not as doubles */
    hoodie_assert_equal_i(0, part(&root, "l > 9007199254740993", "9007199254740992"));
    hoodie_assert_equal_i(1, part(&root, "u = 255", "255"));
    hoodie_assert_equal_i(0, part(&root, "u < 0", "255"));
    /* strings compare as text, whatever the literal: "10" < "9" */
    hoodie_assert_equal_i(1, part(&root, "s < 9", "10"));
    hoodie_assert_equal_i(1, part(&root, "s = '10'", "10"));
    hoodie_assert_equal_i(0, part(&root, "s = 'x'", "10"));
    hoodie_assert_equal_i(0, part(&root, "s > 'b'", "a"));
    /* the null partition holds nulls, and for strings empty values too */
    hoodie_assert_equal_i(1, part(&root, "s = ''", "__HIVE_DEFAULT_PARTITION__"));
    hoodie_assert_equal_i(0, part(&root, "s = 'a'", "__HIVE_DEFAULT_PARTITION__"));
    hoodie_assert_equal_i(1, part(&root, "s IS NOT NULL", "__HIVE_DEFAULT_PARTITION__"));
    hoodie_assert_equal_i(1, part(&root, "s IS NULL", "__HIVE_DEFAULT_PARTITION__"));
    hoodie_assert_equal_i(0, part(&root, "i = 1", "__HIVE_DEFAULT_PARTITION__"));
    hoodie_assert_equal_i(0, part(&root, "i IS NOT NULL", "__HIVE_DEFAULT_PARTITION__"));
    hoodie_assert_equal_i(1, part(&root, "i IS NULL", "__HIVE_DEFAULT_PARTITION__"));
    /* "default": older writers' null partition, or the value itself */
    hoodie_assert_equal_i(1, part(&root, "s = 'default'", "default"));
    hoodie_assert_equal_i(1, part(&root, "s IS NULL", "default"));
    /* dates are written as ISO dates and compare as days */
    hoodie_assert_equal_i(1, part(&root, "d = 19000", "2022-01-08"));
    hoodie_assert_equal_i(0, part(&root, "d < 19000", "2022-01-08"));
    hoodie_assert_equal_i(1, part(&root, "d = '2022-01-08'", "2022-01-08"));
    hoodie_assert_equal_i(0, part(&root, "d > '2022-01-08'", "2022-01-08"));
    /* booleans by value, however the literal is spelled */
    hoodie_assert_equal_i(1, part(&root, "b = TRUE", "true"));
    hoodie_assert_equal_i(0, part(&root, "b = false", "true"));
    /* floating point as Java writes it */
    hoodie_assert_equal_i(1, part(&root, "x = 1.5", "1.5"));
    hoodie_assert_equal_i(0, part(&root, "x > 2", "1.5"));
    hoodie_assert_equal_i(1, part(&root, "x = 10000000000", "1.0E10"));
    hoodie_assert_equal_i(1, part(&root, "f < 0.2", "0.1"));
    hoodie_assert_equal_i(0, part(&root, "f > 0.2", "0.1"));
    /* what cannot be told is kept: text the key generator would not write for the type (a timestamp key
     * generator's date of an integer column, "010"), types not read back, columns not in the schema */
    hoodie_assert_equal_i(1, part(&root, "l = 1700000000000", "2023-11-14"));
    hoodie_assert_equal_i(1, part(&root, "i = 5", "010"));
    hoodie_assert_equal_i(1, part(&root, "i = 5", ""));
    hoodie_assert_equal_i(1, part(&root, "n = 5", "1.00"));
    hoodie_assert_equal_i(1, part(&root, "zz = 5", "1"));
    hoodie_assert_equal_i(1, part(&root, "i = 'a'", "1")); /* evaluation reports the mismatch */
    hoodie_field_dispose(&root);
}

HOODIE_TEST(read_filter__statistics_predicates)
{
    hoodie_filter f;
    hoodie_assert_ok(hoodie_filter_parse(&f, "a IN (1, 2) AND b != 3 AND c IS NULL AND d = 'x' AND e > 1.5"));
    hoodie_assert_equal_i(5, f.count);
    hoodie_pq_value vals[HOODIE_PRED_PQ_MAX];
    hoodie_pq_pred pp;
    hoodie_type i64 = hoodie_type_of(HOODIE_TYPE_INT64), str = hoodie_type_of(HOODIE_TYPE_STRING);
    hoodie_assert_equal_i(1, hoodie_pred_to_pq(&f.preds[0], &i64, vals, &pp));
    hoodie_assert_equal_i(HOODIE_PQ_OP_IN, pp.op);
    hoodie_assert_equal_i(2, pp.n_values);
    hoodie_assert_equal_i(2, pp.values[1].i);
    hoodie_assert_equal_i(0, hoodie_pred_to_pq(&f.preds[1], &i64, vals, &pp)); /* != prunes nothing */
    hoodie_assert_equal_i(1, hoodie_pred_to_pq(&f.preds[2], &str, vals, &pp));
    hoodie_assert_equal_i(HOODIE_PQ_OP_IS_NULL, pp.op);
    hoodie_assert_equal_i(1, hoodie_pred_to_pq(&f.preds[3], &str, vals, &pp));
    hoodie_assert_equal_i(HOODIE_PQ_VAL_BYTES, pp.values[0].kind);
    hoodie_assert_equal_i(0, hoodie_pred_to_pq(&f.preds[3], &i64, vals, &pp)); /* a string on an integer */
    hoodie_assert_equal_i(0, hoodie_pred_to_pq(&f.preds[4], &i64, vals, &pp)); /* 1.5 on an integer */
    hoodie_filter_dispose(&f);
}
