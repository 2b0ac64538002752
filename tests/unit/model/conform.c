#include "model_gen.h"
#include "model/conform.h"
#include "model/value.h"

#include <math.h>
#include <string.h>

/* The conversions of Hudi's type changes (hoodie_conform_append): one value of field `sf` (filled by the caller
 * into `src`) read as `tf`, rendered ("null", a decimal in plain text, text as is, a date as yyyy-mm-dd). */
static char out_text[128];

static hoodie_field dec(int p, int s)
{
    hoodie_type t = hoodie_type_of(HOODIE_TYPE_DECIMAL);
    t.precision = p;
    t.scale = s;
    hoodie_field f;
    hoodie_assert_ok(hoodie_field_init(&f, "v", t, 1));
    return f;
}

static const char *convert(hoodie_field *sf, hoodie_array *src, hoodie_field tf)
{
    hoodie_array dst;
    hoodie_buf tmp = HOODIE_BUF_INIT, text = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_array_init(&dst, &tf));
    hoodie_assert_equal_i(1, hoodie_conform_is_retype(sf, &tf) || sf->type.id == tf.type.id);
    hoodie_assert_ok(hoodie_conform_append(&dst, &tf, src, sf, 0, &tmp));
    hoodie_assert_equal_i(1, dst.length);
    if (!hoodie_array_is_valid(&dst, 0)) snprintf(out_text, sizeof out_text, "null");
    else {
        if (tf.type.id == HOODIE_TYPE_DECIMAL) hoodie_assert_ok(hoodie_decimal_to_text(&text, dst.values, tf.type.scale));
        else hoodie_assert_ok(hoodie_value_to_key(&text, &tf, &dst, 0));
        snprintf(out_text, sizeof out_text, "%.*s", (int)text.len, (const char *)text.data);
    }
    hoodie_buf_dispose(&tmp);
    hoodie_buf_dispose(&text);
    hoodie_array_dispose(&dst);
    hoodie_array_dispose(src);
    hoodie_field_dispose(sf);
    hoodie_field_dispose(&tf);
    return out_text;
}

static const char *from_text(const char *v, hoodie_field tf)
{
    hoodie_field sf = gen_leaf("v", HOODIE_TYPE_STRING, 1);
    hoodie_array a;
    hoodie_assert_ok(hoodie_array_init(&a, &sf));
    hoodie_assert_ok(hoodie_array_append_bytes(&a, &sf, v, strlen(v)));
    return convert(&sf, &a, tf);
}

static const char *from_int(hoodie_type_id id, int64_t v, hoodie_field tf)
{
    hoodie_field sf = gen_leaf("v", id, 1);
    hoodie_array a;
    hoodie_assert_ok(hoodie_array_init(&a, &sf));
    hoodie_assert_ok(hoodie_array_append_int(&a, &sf, v));
    return convert(&sf, &a, tf);
}

static const char *from_real(hoodie_type_id id, double v, hoodie_field tf)
{
    hoodie_field sf = gen_leaf("v", id, 1);
    hoodie_array a;
    hoodie_assert_ok(hoodie_array_init(&a, &sf));
    if (id == HOODIE_TYPE_FLOAT) hoodie_assert_ok(hoodie_array_append_float(&a, &sf, (float)v));
    else hoodie_assert_ok(hoodie_array_append_double(&a, &sf, v));
    return convert(&sf, &a, tf);
}

static const char *from_dec(int p, int s, int64_t unscaled, hoodie_field tf)
{
    hoodie_field sf = dec(p, s);
    hoodie_array a;
    hoodie_assert_ok(hoodie_array_init(&a, &sf));
    hoodie_assert_ok(hoodie_array_append_decimal128(&a, &sf, unscaled < 0 ? -1 : 0, (uint64_t)unscaled));
    return convert(&sf, &a, tf);
}

#define STR gen_leaf("v", HOODIE_TYPE_STRING, 1)
#define DATE gen_leaf("v", HOODIE_TYPE_DATE32, 1)

/* Numbers, decimals and dates to text as Java's String.valueOf writes them (what HoodieAvroUtils and Spark's
 * cast give): Double.toString's two layouts, the shortest digits that read back, BigDecimal.toString. */
HOODIE_TEST(model_conform__to_text_as_java_writes_it)
{
    hoodie_assert_equal_s("12", from_int(HOODIE_TYPE_INT32, 12, STR));
    hoodie_assert_equal_s("-9223372036854775808", from_int(HOODIE_TYPE_INT64, INT64_MIN, STR));
    hoodie_assert_equal_s("0.1", from_real(HOODIE_TYPE_FLOAT, 0.1, STR)); /* the float's digits, not the double's */
    hoodie_assert_equal_s("1.0E-5", from_real(HOODIE_TYPE_FLOAT, 1e-5, STR));
    hoodie_assert_equal_s("1.0E10", from_real(HOODIE_TYPE_DOUBLE, 1e10, STR));
    hoodie_assert_equal_s("1.23456789E8", from_real(HOODIE_TYPE_DOUBLE, 123456789.0, STR));
    hoodie_assert_equal_s("1234567.0", from_real(HOODIE_TYPE_DOUBLE, 1234567.0, STR));
    hoodie_assert_equal_s("0.001", from_real(HOODIE_TYPE_DOUBLE, 0.001, STR));
    hoodie_assert_equal_s("1.0E-4", from_real(HOODIE_TYPE_DOUBLE, 0.0001, STR));
    hoodie_assert_equal_s("-2.5E-7", from_real(HOODIE_TYPE_DOUBLE, -2.5e-7, STR));
    hoodie_assert_equal_s("NaN", from_real(HOODIE_TYPE_DOUBLE, NAN, STR));
    hoodie_assert_equal_s("-Infinity", from_real(HOODIE_TYPE_DOUBLE, -INFINITY, STR));
    hoodie_assert_equal_s("123.45", from_dec(5, 2, 12345, STR));
    hoodie_assert_equal_s("-0.01", from_dec(5, 2, -1, STR));
    hoodie_assert_equal_s("1E-7", from_dec(10, 7, 1, STR)); /* BigDecimal.toString: adjusted exponent below -6 */
    hoodie_assert_equal_s("0E-10", from_dec(12, 10, 0, STR));
    hoodie_assert_equal_s("1969-12-31", from_int(HOODIE_TYPE_DATE32, -1, STR));
    hoodie_assert_equal_s("2024-02-29", from_int(HOODIE_TYPE_DATE32, 19782, STR));
}

/* To a decimal: exact for integers and decimals (nulls when the digits do not fit), half up at the scale, floating
 * point numbers through their Java text (0.1f is 0.1, 0.125 rounds to 0.13). */
HOODIE_TEST(model_conform__to_decimal)
{
    hoodie_assert_equal_s("999.00", from_int(HOODIE_TYPE_INT32, 999, dec(5, 2)));
    hoodie_assert_equal_s("-999.00", from_int(HOODIE_TYPE_INT32, -999, dec(5, 2)));
    hoodie_assert_equal_s("null", from_int(HOODIE_TYPE_INT32, 1000, dec(5, 2)));
    hoodie_assert_equal_s("9223372036854775807", from_int(HOODIE_TYPE_INT64, INT64_MAX, dec(19, 0)));
    hoodie_assert_equal_s("null", from_int(HOODIE_TYPE_INT64, INT64_MAX, dec(18, 0)));
    hoodie_assert_equal_s("123.450", from_dec(5, 2, 12345, dec(8, 3)));
    hoodie_assert_equal_s("-123.45", from_dec(5, 2, -12345, dec(7, 2)));
    hoodie_assert_equal_s("0.13", from_real(HOODIE_TYPE_DOUBLE, 0.125, dec(3, 2)));
    hoodie_assert_equal_s("-0.13", from_real(HOODIE_TYPE_DOUBLE, -0.125, dec(3, 2)));
    hoodie_assert_equal_s("0.100000000", from_real(HOODIE_TYPE_FLOAT, 0.1, dec(10, 9)));
    hoodie_assert_equal_s("null", from_real(HOODIE_TYPE_DOUBLE, 1e10, dec(10, 3)));
    hoodie_assert_equal_s("10000000000.000", from_real(HOODIE_TYPE_DOUBLE, 1e10, dec(14, 3)));
    hoodie_assert_equal_s("0.000", from_real(HOODIE_TYPE_DOUBLE, -2.5e-7, dec(10, 3)));
    hoodie_assert_equal_s("null", from_real(HOODIE_TYPE_DOUBLE, NAN, dec(10, 3)));
    hoodie_assert_equal_s("null", from_real(HOODIE_TYPE_DOUBLE, INFINITY, dec(10, 3)));
    /* text as new BigDecimal(text.trim()) reads it */
    hoodie_assert_equal_s("1.01", from_text(" 1.005 ", dec(6, 2)));
    hoodie_assert_equal_s("-1.01", from_text("-1.005", dec(6, 2)));
    hoodie_assert_equal_s("0.01", from_text("0.005", dec(3, 2)));
    hoodie_assert_equal_s("0.00", from_text("0.00499999999999999999999999999999999999999999", dec(3, 2)));
    hoodie_assert_equal_s("100.00", from_text("1e2", dec(6, 2)));
    hoodie_assert_equal_s("100.00", from_text("99.995", dec(5, 2)));
    hoodie_assert_equal_s("null", from_text("99.995", dec(4, 2)));
    hoodie_assert_equal_s("0.50", from_text(".5", dec(3, 2)));
    hoodie_assert_equal_s("5.00", from_text("+5.", dec(3, 2)));
    hoodie_assert_equal_s("1.20", from_text("12E-1", dec(3, 2)));
    hoodie_assert_equal_s("0.00", from_text("1e-400", dec(3, 2)));
    hoodie_assert_equal_s("0.00", from_text("-0", dec(3, 2)));
    hoodie_assert_equal_s("null", from_text("1e40", dec(38, 0)));
    hoodie_assert_equal_s("12345678901234567890123456789012345678",
                          from_text("12345678901234567890123456789012345678.4", dec(38, 0)));
    hoodie_assert_equal_s("null", from_text("99999999999999999999999999999999999999.5", dec(38, 0)));
    const char *bad[] = { "", " ", "abc", "1.2.3", "1e", "1e+", "--1", "+", ".", "1 2", "NaN", "Infinity", "0x10" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) hoodie_assert_equal_s("null", from_text(bad[i], dec(10, 2)));
}

/* Text to a date as Spark's cast reads it: [+-]yyyy[-[m]m[-[d]d]], a time after the day only, else null. */
HOODIE_TEST(model_conform__text_to_date)
{
    hoodie_assert_equal_s("2024-01-05", from_text("2024-1-5", DATE));
    hoodie_assert_equal_s("2024-01-01", from_text("2024", DATE));
    hoodie_assert_equal_s("2024-05-01", from_text(" 2024-05 ", DATE));
    hoodie_assert_equal_s("2023-06-07", from_text("2023-06-07T10:00", DATE));
    hoodie_assert_equal_s("2023-06-07", from_text("2023-06-07 anything", DATE));
    hoodie_assert_equal_s("2024-02-29", from_text("2024-02-29", DATE));
    const char *bad[] = { "2023-02-29", "2024-13-01", "2024-00-10", "2024-05-06X", "2024-05 x", "99-01-01",
                          "12345678-01-01", "2024-", "2024--01", "2024-123-01", "", "x" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) hoodie_assert_equal_s("null", from_text(bad[i], DATE));
}
