/*
 * Fuzz the conversions of Hudi's type changes (model/conform.h, hoodie_conform_append): text read as a decimal of
 * any precision and scale (the first two bytes) and as a date, and a double's Java text read as the decimal. Every
 * result is a null or a value that fits; a decimal written out as plain text and read again is the same value; a
 * date of years 0-9999 written as yyyy-mm-dd and read again is the same day.
 */
#include "model/build.h"
#include "model/conform.h"
#include "model/value.h"
#include "util/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void field(hoodie_field *f, hoodie_type_id id, int p, int s)
{
    hoodie_type t = hoodie_type_of(id);
    t.precision = p;
    t.scale = s;
    if (hoodie_field_init(f, "v", t, 1) != HOODIE_OK) abort();
}

/* src (one value of sf) as tf, into a new one-value array *out (caller disposes). */
static void convert(const hoodie_field *sf, const hoodie_array *src, const hoodie_field *tf, hoodie_array *out)
{
    hoodie_buf tmp = HOODIE_BUF_INIT;
    if (hoodie_array_init(out, tf) != HOODIE_OK) abort();
    if (hoodie_conform_append(out, tf, src, sf, 0, &tmp) != HOODIE_OK || out->length != 1) abort();
    hoodie_buf_dispose(&tmp);
}

static void text_array(const hoodie_field *sf, hoodie_array *a, const void *p, size_t n)
{
    if (hoodie_array_init(a, sf) != HOODIE_OK || hoodie_array_append_bytes(a, sf, p, n) != HOODIE_OK) abort();
}

static __int128 unscaled(const hoodie_array *a)
{
    __int128 v;
    memcpy(&v, a->values, 16);
    return v;
}

static void check_decimal(const hoodie_field *df, const hoodie_array *got)
{
    if (!hoodie_array_is_valid(got, 0)) return;
    __int128 v = unscaled(got), lim = 1;
    for (int i = 0; i < df->type.precision; i++) lim *= 10;
    if (v >= lim || v <= -lim) abort();
    /* plain text of the value reads back as the value */
    hoodie_buf text = HOODIE_BUF_INIT;
    if (hoodie_decimal_to_text(&text, got->values, df->type.scale) != HOODIE_OK) abort();
    hoodie_field sf;
    field(&sf, HOODIE_TYPE_STRING, 0, 0);
    hoodie_array src, again;
    text_array(&sf, &src, text.data, text.len);
    convert(&sf, &src, df, &again);
    if (!hoodie_array_is_valid(&again, 0) || unscaled(&again) != v) abort();
    hoodie_array_dispose(&again);
    hoodie_array_dispose(&src);
    hoodie_field_dispose(&sf);
    hoodie_buf_dispose(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    int p = 1 + data[0] % 38, s = data[1] % (p + 1);
    hoodie_field sf, df, datef, dblf;
    field(&sf, HOODIE_TYPE_STRING, 0, 0);
    field(&df, HOODIE_TYPE_DECIMAL, p, s);
    field(&datef, HOODIE_TYPE_DATE32, 0, 0);
    field(&dblf, HOODIE_TYPE_DOUBLE, 0, 0);
    hoodie_array src, got;
    text_array(&sf, &src, data + 2, size - 2);
    convert(&sf, &src, &df, &got);
    check_decimal(&df, &got);
    hoodie_array_dispose(&got);

    convert(&sf, &src, &datef, &got);
    if (hoodie_array_is_valid(&got, 0)) {
        int32_t days;
        memcpy(&days, got.values, 4);
        int64_t y;
        unsigned m, d;
        hoodie_days_to_civil(days, &y, &m, &d);
        if (y >= 0 && y <= 9999) {
            hoodie_buf text = HOODIE_BUF_INIT;
            if (hoodie_value_to_key(&text, &datef, &got, 0) != HOODIE_OK) abort();
            hoodie_array src2, again;
            text_array(&sf, &src2, text.data, text.len);
            convert(&sf, &src2, &datef, &again);
            int32_t back;
            memcpy(&back, again.values, 4);
            if (!hoodie_array_is_valid(&again, 0) || back != days) abort();
            hoodie_array_dispose(&again);
            hoodie_array_dispose(&src2);
            hoodie_buf_dispose(&text);
        }
    }
    hoodie_array_dispose(&got);
    hoodie_array_dispose(&src);

    if (size >= 10) { /* a double (any bits) through its Java text */
        double v;
        memcpy(&v, data + 2, 8);
        hoodie_array dsrc;
        if (hoodie_array_init(&dsrc, &dblf) != HOODIE_OK || hoodie_array_append_double(&dsrc, &dblf, v) != HOODIE_OK)
            abort();
        convert(&dblf, &dsrc, &df, &got);
        check_decimal(&df, &got);
        hoodie_array_dispose(&got);
        hoodie_array_dispose(&dsrc);
    }
    hoodie_field_dispose(&sf);
    hoodie_field_dispose(&df);
    hoodie_field_dispose(&datef);
    hoodie_field_dispose(&dblf);
    hoodie_error_clear();
    return 0;
}
