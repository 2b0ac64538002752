#include "model_gen.h"
#include "model/value.h"

#include <math.h>
#include <stdlib.h>

/* Properties over every column of random batches: antisymmetry, transitivity (on triples), equal => same hash,
 * reflexivity, and agreement between equal and compare. */
HOODIE_TEST(model_value__order_and_hash_properties)
{
    hoodie_batch b;
    gen_batch(&b, 120, 21);
    uint64_t rng = 5;
    for (size_t c = 0; c < b.schema.n_children; c++) {
        const hoodie_field *f = &b.schema.children[c];
        const hoodie_array *a = &b.root.children[c];
        for (int iter = 0; iter < 400; iter++) {
            int64_t i = (int64_t)(gen_rng(&rng) % 120), j = (int64_t)(gen_rng(&rng) % 120),
                    k = (int64_t)(gen_rng(&rng) % 120);
            int ij = hoodie_value_compare(f, a, i, a, j), ji = hoodie_value_compare(f, a, j, a, i);
            hoodie_assert((ij > 0) == (ji < 0) && (ij == 0) == (ji == 0));
            hoodie_assert_equal_i(0, hoodie_value_compare(f, a, i, a, i));
            if (ij == 0) hoodie_assert(hoodie_value_hash(f, a, i, 9) == hoodie_value_hash(f, a, j, 9));
            int jk = hoodie_value_compare(f, a, j, a, k), ik = hoodie_value_compare(f, a, i, a, k);
            if (ij <= 0 && jk <= 0) hoodie_assert(ik <= 0);
            hoodie_assert_equal_i(ij == 0, hoodie_value_equal(f, a, i, a, j));
        }
    }
    hoodie_batch_dispose(&b);
}

static void one_col(hoodie_batch *b, hoodie_field f)
{
    hoodie_field s;
    hoodie_assert_ok(hoodie_field_init(&s, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    gen_add(&s, f);
    hoodie_assert_ok(hoodie_batch_init(b, &s));
    hoodie_field_dispose(&s);
}

HOODIE_TEST(model_value__specific_orders)
{
    hoodie_batch b;
    /* doubles: null < -inf < -1 < -0.0 == 0.0 < 2 < inf < NaN == NaN */
    one_col(&b, gen_leaf("d", HOODIE_TYPE_DOUBLE, 1));
    hoodie_array *a = &b.root.children[0];
    const hoodie_field *f = &b.schema.children[0];
    hoodie_assert_ok(hoodie_array_append_null(a, f));
    double vals[] = { -INFINITY, -1, -0.0, 0.0, 2, INFINITY, NAN, -NAN };
    for (int i = 0; i < 8; i++) hoodie_assert_ok(hoodie_array_append_double(a, f, vals[i]));
    for (int i = 0; i < 8; i++) hoodie_assert(hoodie_value_compare(f, a, i, a, i + 1) <= 0);
    hoodie_assert_equal_i(0, hoodie_value_compare(f, a, 3, a, 4));
    hoodie_assert_equal_i(0, hoodie_value_compare(f, a, 7, a, 8));
    hoodie_assert(hoodie_value_compare(f, a, 0, a, 1) < 0);
    hoodie_assert(hoodie_value_compare(f, a, 6, a, 7) < 0);
    hoodie_assert(hoodie_value_hash(f, a, 3, 0) == hoodie_value_hash(f, a, 4, 0));
    hoodie_assert(hoodie_value_hash(f, a, 7, 0) == hoodie_value_hash(f, a, 8, 0));
    hoodie_batch_dispose(&b);

    /* strings: bytewise unsigned, prefix first */
    one_col(&b, gen_leaf("s", HOODIE_TYPE_STRING, 1));
    a = &b.root.children[0];
    f = &b.schema.children[0];
    const char *ss[] = { "", "a", "ab", "b", "\xc3\xa9" };
    for (int i = 0; i < 5; i++) hoodie_assert_ok(hoodie_array_append_str(a, f, ss[i]));
    for (int i = 0; i < 4; i++) hoodie_assert(hoodie_value_compare(f, a, i, a, i + 1) < 0);
    hoodie_batch_dispose(&b);

    /* decimals: numeric on 128 bits */
    hoodie_field d = gen_leaf("d", HOODIE_TYPE_DECIMAL, 1);
    d.type.precision = 38; d.type.scale = 2;
    one_col(&b, d);
    a = &b.root.children[0];
    f = &b.schema.children[0];
    hoodie_assert_ok(hoodie_array_append_decimal128(a, f, -2, 5));
    hoodie_assert_ok(hoodie_array_append_int(a, f, -1));
    hoodie_assert_ok(hoodie_array_append_int(a, f, 0));
    hoodie_assert_ok(hoodie_array_append_uint(a, f, UINT64_MAX));
    hoodie_assert_ok(hoodie_array_append_decimal128(a, f, 1, 0));
    for (int i = 0; i < 4; i++) hoodie_assert(hoodie_value_compare(f, a, i, a, i + 1) < 0);
    hoodie_batch_dispose(&b);

    /* lists: element-wise, then shorter first */
    one_col(&b, gen_list("l", gen_leaf("e", HOODIE_TYPE_INT32, 1)));
    a = &b.root.children[0];
    f = &b.schema.children[0];
    int rows[][3] = { { 0, 0, 0 }, { 1, 1, 0 }, { 2, 1, 2 }, { 1, 2, 0 } };   /* [count, v0, v1] */
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < rows[r][0]; i++)
            hoodie_assert_ok(hoodie_array_append_int(&a->children[0], &f->children[0], rows[r][1 + i]));
        hoodie_assert_ok(hoodie_array_list_end(a, f));
    }
    for (int i = 0; i < 3; i++) hoodie_assert(hoodie_value_compare(f, a, i, a, i + 1) < 0);
    hoodie_batch_dispose(&b);
}

static const char *key_of(hoodie_buf *out, const hoodie_batch *b, int64_t row)
{
    hoodie_buf_clear(out);
    hoodie_assert_ok(hoodie_value_to_key(out, &b->schema.children[0], &b->root.children[0], row));
    hoodie_assert_ok(hoodie_buf_cstr(out));
    return (const char *)out->data;
}

HOODIE_TEST(model_value__record_key_text)
{
    hoodie_batch b;
    hoodie_buf out = HOODIE_BUF_INIT;
    one_col(&b, gen_leaf("d", HOODIE_TYPE_DOUBLE, 1));
    hoodie_array *a = &b.root.children[0];
    const hoodie_field *f = &b.schema.children[0];
    double vals[] = { 1.0, 0.001, 1e7, 1.5e-5, 123.456, -0.0, NAN, 1e21 };
    const char *want[] = { "1.0", "0.001", "1.0E7", "1.5E-5", "123.456", "-0.0", "NaN", "1.0E21" };
    for (int i = 0; i < 8; i++) hoodie_assert_ok(hoodie_array_append_double(a, f, vals[i]));
    hoodie_assert_ok(hoodie_array_append_null(a, f));
    for (int i = 0; i < 8; i++) hoodie_assert_equal_s(want[i], key_of(&out, &b, i));
    hoodie_assert_equal_s("__null__", key_of(&out, &b, 8));
    hoodie_batch_dispose(&b);

    hoodie_field d = gen_leaf("d", HOODIE_TYPE_DECIMAL, 1);
    d.type.precision = 20; d.type.scale = 7;
    one_col(&b, d);
    a = &b.root.children[0];
    f = &b.schema.children[0];
    hoodie_assert_ok(hoodie_array_append_int(a, f, 123456789));
    hoodie_assert_ok(hoodie_array_append_int(a, f, -1));
    hoodie_assert_ok(hoodie_array_append_int(a, f, 10));
    hoodie_assert_equal_s("12.3456789", key_of(&out, &b, 0));
    hoodie_assert_equal_s("-1E-7", key_of(&out, &b, 1));
    hoodie_assert_equal_s("0.0000010", key_of(&out, &b, 2));
    hoodie_batch_dispose(&b);

    one_col(&b, gen_leaf("s", HOODIE_TYPE_STRING, 1));
    hoodie_assert_ok(hoodie_array_append_str(&b.root.children[0], &b.schema.children[0], "id-1"));
    hoodie_assert_ok(hoodie_array_append_str(&b.root.children[0], &b.schema.children[0], ""));
    hoodie_assert_equal_s("id-1", key_of(&out, &b, 0));
    hoodie_assert_equal_s("__empty__", key_of(&out, &b, 1));
    hoodie_batch_dispose(&b);

    one_col(&b, gen_leaf("dt", HOODIE_TYPE_DATE32, 1));
    hoodie_assert_ok(hoodie_array_append_int(&b.root.children[0], &b.schema.children[0], 19448));
    hoodie_assert_equal_s("2023-04-01", key_of(&out, &b, 0));
    hoodie_batch_dispose(&b);

    one_col(&b, gen_leaf("i", HOODIE_TYPE_INT64, 1));
    hoodie_assert_ok(hoodie_array_append_int(&b.root.children[0], &b.schema.children[0], -9876543210LL));
    hoodie_assert_equal_s("-9876543210", key_of(&out, &b, 0));
    hoodie_batch_dispose(&b);
    hoodie_buf_dispose(&out);
}

/* The shortest round-trip text of doubles and floats (CSV and JSON output, record keys) is the one the plain search
 * finds: every precision from one digit up, the first that reads back. Random bits, short decimals at every scale,
 * powers of two (the asymmetric rounding intervals), and the extremes. */
static void reference_text(hoodie_buf *out, double v, int is_float)
{
    char buf[40], dg[40];
    if (isnan(v) || isinf(v) || v == 0) { hoodie_assert_ok(hoodie_double_to_text(out, v, is_float)); return; }
    for (int p = 0; p < 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p, fabs(v));
        double back = strtod(buf, NULL);
        if (is_float ? (float)back == (float)fabs(v) : back == fabs(v)) break;
    }
    int n = 0;
    const char *s = buf;
    for (; *s != 'e'; s++)
        if (*s >= '0' && *s <= '9') dg[n++] = *s;
    int e = atoi(s + 1);
    while (n > 1 && dg[n - 1] == '0') n--;
    if (v < 0) hoodie_assert_ok(hoodie_buf_putc(out, '-'));
    /* hoodie_double_to_text's layouts */
    if (e < -4 || e >= 16) {
        hoodie_assert_ok(hoodie_buf_putc(out, (uint8_t)dg[0]));
        if (n > 1) { hoodie_assert_ok(hoodie_buf_putc(out, '.')); hoodie_assert_ok(hoodie_buf_append(out, dg + 1, (size_t)n - 1)); }
        hoodie_assert_ok(hoodie_buf_printf(out, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e));
    } else if (e < 0) {
        hoodie_assert_ok(hoodie_buf_append(out, "0.", 2));
        for (int i = 0; i < -e - 1; i++) hoodie_assert_ok(hoodie_buf_putc(out, '0'));
        hoodie_assert_ok(hoodie_buf_append(out, dg, (size_t)n));
    } else if (n <= e + 1) {
        hoodie_assert_ok(hoodie_buf_append(out, dg, (size_t)n));
        for (int i = n; i < e + 1; i++) hoodie_assert_ok(hoodie_buf_putc(out, '0'));
        hoodie_assert_ok(hoodie_buf_append(out, ".0", 2));
    } else {
        hoodie_assert_ok(hoodie_buf_append(out, dg, (size_t)e + 1));
        hoodie_assert_ok(hoodie_buf_putc(out, '.'));
        hoodie_assert_ok(hoodie_buf_append(out, dg + e + 1, (size_t)(n - e - 1)));
    }
}

static void same_text(double v, int is_float)
{
    hoodie_buf a = HOODIE_BUF_INIT, b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_double_to_text(&a, v, is_float));
    reference_text(&b, v, is_float);
    hoodie_assert_ok(hoodie_buf_cstr(&a));
    hoodie_assert_ok(hoodie_buf_cstr(&b));
    hoodie_assert_equal_s((const char *)b.data, (const char *)a.data);
    hoodie_buf_dispose(&a);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(model_value__shortest_double_text)
{
    uint64_t rng = 77;
    for (int i = 0; i < 40000; i++) {
        uint64_t bits = gen_rng(&rng);
        double d;
        memcpy(&d, &bits, 8);
        if (isfinite(d)) same_text(d, 0);
        uint32_t fb = (uint32_t)(bits >> 17);
        float f;
        memcpy(&f, &fb, 4);
        if (isfinite(f)) same_text(f, 1);
        /* short decimals: k / 10^j, scaled */
        double k = (double)(gen_rng(&rng) % 1000000000), sc = pow(10, (int)(gen_rng(&rng) % 60) - 30);
        int j = (int)(gen_rng(&rng) % 12);
        double v = k / pow(10, j) * sc;
        if (isfinite(v)) same_text(v, 0);
        same_text((float)((double)(gen_rng(&rng) % 100000) / pow(10, j % 6)), 1);
        /* 16 and 17 digits where values usually are: uniform in [0, 1) times 10^-12 to 10^44 */
        double u = (double)(gen_rng(&rng) >> 11) * 0x1p-53 * pow(10, (int)(gen_rng(&rng) % 57) - 12);
        if (u > 0) { same_text(u, 0); same_text((float)u, 1); }
    }
    for (int e = -1074; e <= 1023; e++) same_text(ldexp(1, e), 0);
    for (int e = -149; e <= 127; e++) same_text((float)ldexp(1, e), 1);
    const double edge[] = { 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e23, 9.999999999999999e22,
                            1e22, 1e21, 1e16, 9007199254740993.0, 0.1, 0.3, 1e-5, 123456789012345678.0, -2.5e-7,
                            1e15, 999999999999999.9, 0.000123, 100.0 };
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) { same_text(edge[i], 0); same_text(-edge[i], 0); }
    const float fedge[] = { 1e-45f, 1.17549435e-38f, 3.40282347e38f, 0.1f, 16777217.0f, 1e10f, 123456.7f, 1e-5f };
    for (size_t i = 0; i < sizeof fedge / sizeof *fedge; i++) same_text(fedge[i], 1);
}
