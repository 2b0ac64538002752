#include "model_gen.h"
#include "model/value.h"

#include <stdlib.h>

/* Structural invariants of an array (see build.h). */
static void check_invariants(const hoodie_array *a, const hoodie_field *f)
{
    if (f->type.id == HOODIE_TYPE_NULL) { hoodie_assert_equal_i(a->length, a->null_count); return; }
    int64_t nulls = 0;
    for (int64_t i = 0; i < a->length; i++) nulls += !hoodie_array_is_valid(a, i);
    hoodie_assert_equal_i(nulls, a->null_count);
    hoodie_assert_equal_i(f->n_children, a->n_children);
    switch (f->type.id) {
    case HOODIE_TYPE_STRUCT:
        for (size_t c = 0; c < a->n_children; c++) {
            hoodie_assert_equal_i(a->length, a->children[c].length);
            check_invariants(&a->children[c], &f->children[c]);
        }
        break;
    case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP: case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY:
        if (a->length == 0 && !a->offsets) break;
        hoodie_assert_equal_i(0, a->offsets[0]);
        for (int64_t i = 0; i < a->length; i++) hoodie_assert(a->offsets[i] <= a->offsets[i + 1]);
        if (f->type.id == HOODIE_TYPE_LIST || f->type.id == HOODIE_TYPE_MAP) {
            hoodie_assert_equal_i(a->children[0].length, a->offsets[a->length]);
            check_invariants(&a->children[0], &f->children[0]);
        } else {
            hoodie_assert_equal_i(a->values_len, a->offsets[a->length]);
        }
        break;
    default: break;
    }
}

static void check_rows(const hoodie_batch *out, int64_t out_row, const hoodie_batch *src, int64_t row)
{
    for (size_t c = 0; c < out->schema.n_children; c++)
        if (!hoodie_value_equal(&out->schema.children[c], &out->root.children[c], out_row, &src->root.children[c],
                                row))
            hoodie_test__fail(__FILE__, __LINE__, "column %s row %lld != source row %lld",
                              out->schema.children[c].name, (long long)out_row, (long long)row);
}

HOODIE_TEST(model_build__bits_copy_vs_naive)
{
    uint64_t rng = 7;
    uint8_t src[40], dst[40], want[40];
    for (int iter = 0; iter < 2000; iter++) {
        for (int i = 0; i < 40; i++) { src[i] = (uint8_t)gen_rng(&rng); dst[i] = want[i] = (uint8_t)gen_rng(&rng); }
        int64_t so = (int64_t)(gen_rng(&rng) % 100), d_o = (int64_t)(gen_rng(&rng) % 100);
        int64_t n = (int64_t)(gen_rng(&rng) % 200);
        for (int64_t i = 0; i < n; i++) {
            if (hoodie_bit_get(src, so + i)) hoodie_bit_set(want, d_o + i); else hoodie_bit_clear(want, d_o + i);
        }
        hoodie_bits_copy(dst, d_o, src, so, n);
        hoodie_assert(!memcmp(dst, want, 40));
        int64_t cnt = 0;
        for (int64_t i = 0; i < n; i++) cnt += hoodie_bit_get(src, so + i);
        hoodie_assert_equal_i(cnt, hoodie_bits_count(src, so, n));
    }
}

HOODIE_TEST(model_build__take_multi_vs_reference)
{
    hoodie_batch srcs[3], out;
    for (int k = 0; k < 3; k++) gen_batch(&srcs[k], 50 + 20 * k, 10 + (uint64_t)k);
    const hoodie_batch *sp[3] = { &srcs[0], &srcs[1], &srcs[2] };
    uint64_t rng = 99;
    size_t n = 700;
    hoodie_row_ref *sel = malloc(n * sizeof *sel);
    for (size_t i = 0; i < n; i++) {
        sel[i].source = (uint32_t)(gen_rng(&rng) % 3);
        sel[i].row = (int64_t)(gen_rng(&rng) % (uint64_t)hoodie_batch_rows(&srcs[sel[i].source]));
    }
    hoodie_assert_ok(hoodie_batch_init(&out, &srcs[0].schema));
    /* in two chunks, to exercise appending to a non-empty batch */
    hoodie_assert_ok(hoodie_batch_take(&out, sp, 3, sel, 300));
    hoodie_assert_ok(hoodie_batch_take(&out, sp, 3, sel + 300, n - 300));
    hoodie_assert_equal_i((int64_t)n, hoodie_batch_rows(&out));
    check_invariants(&out.root, &out.schema);
    for (size_t i = 0; i < n; i++) check_rows(&out, (int64_t)i, &srcs[sel[i].source], sel[i].row);
    /* out-of-range row */
    sel[0].row = 1000;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_batch_take(&out, sp, 3, sel, 1));
    free(sel);
    hoodie_batch_dispose(&out);
    for (int k = 0; k < 3; k++) hoodie_batch_dispose(&srcs[k]);
}

HOODIE_TEST(model_build__array_take_with_nulls)
{
    hoodie_batch b;
    gen_batch(&b, 40, 4);
    for (size_t c = 0; c < b.schema.n_children; c++) {
        const hoodie_field *f = &b.schema.children[c];
        hoodie_array out;
        int64_t rows[] = { 3, -1, 39, 0, 3, -1 };
        hoodie_assert_ok(hoodie_array_init(&out, f));
        hoodie_assert_ok(hoodie_array_take(&out, f, &b.root.children[c], rows, 6));
        check_invariants(&out, f);
        for (int i = 0; i < 6; i++) {
            if (rows[i] < 0) hoodie_assert(f->type.id == HOODIE_TYPE_NULL || !hoodie_array_is_valid(&out, i));
            else hoodie_assert(hoodie_value_equal(f, &out, i, &b.root.children[c], rows[i]));
        }
        hoodie_array_dispose(&out);
    }
    hoodie_batch_dispose(&b);
}

HOODIE_TEST(model_build__slice_concat_append_row)
{
    hoodie_batch a, b, cat, sl, rows;
    gen_batch(&a, 77, 5);
    gen_batch(&b, 33, 6);
    hoodie_assert_ok(hoodie_batch_clone(&cat, &a));
    hoodie_assert_ok(hoodie_batch_concat(&cat, &b));
    check_invariants(&cat.root, &cat.schema);
    hoodie_assert_equal_i(110, hoodie_batch_rows(&cat));
    for (int64_t i = 0; i < 110; i++) check_rows(&cat, i, i < 77 ? &a : &b, i < 77 ? i : i - 77);
    uint64_t rng = 3;
    for (int iter = 0; iter < 40; iter++) {
        int64_t start = (int64_t)(gen_rng(&rng) % 110), count = (int64_t)(gen_rng(&rng) % (uint64_t)(111 - start));
        hoodie_assert_ok(hoodie_batch_slice(&sl, &cat, start, count));
        check_invariants(&sl.root, &sl.schema);
        hoodie_assert_equal_i(count, hoodie_batch_rows(&sl));
        for (int64_t i = 0; i < count; i++) check_rows(&sl, i, &cat, start + i);
        hoodie_batch_dispose(&sl);
    }
    hoodie_assert_status(HOODIE_EINVAL, hoodie_batch_slice(&sl, &cat, 100, 20));
    hoodie_assert_ok(hoodie_batch_init(&rows, &a.schema));
    for (int64_t i = 76; i >= 0; i -= 3) hoodie_assert_ok(hoodie_batch_append_row(&rows, &a, i));
    check_invariants(&rows.root, &rows.schema);
    for (int64_t i = 76, j = 0; i >= 0; i -= 3, j++) check_rows(&rows, j, &a, i);
    hoodie_batch_dispose(&rows);
    hoodie_batch_dispose(&cat);
    hoodie_batch_dispose(&a);
    hoodie_batch_dispose(&b);
}

HOODIE_TEST(model_build__nested_builders)
{
    /* list<struct<x:int32, s:string>> built by hand: [{1,"a"},{null,"bc"}], null, [] */
    hoodie_field f = gen_leaf("l", HOODIE_TYPE_LIST, 1), e = gen_leaf("element", HOODIE_TYPE_STRUCT, 1);
    gen_add(&e, gen_leaf("x", HOODIE_TYPE_INT32, 1));
    gen_add(&e, gen_leaf("s", HOODIE_TYPE_STRING, 0));
    gen_add(&f, e);
    const hoodie_field *ef = &f.children[0];
    hoodie_array a;
    hoodie_assert_ok(hoodie_array_init(&a, &f));
    hoodie_array *el = hoodie_array_list_elems(&a);
    hoodie_assert_ok(hoodie_array_append_int(&el->children[0], &ef->children[0], 1));
    hoodie_assert_ok(hoodie_array_append_str(&el->children[1], &ef->children[1], "a"));
    hoodie_assert_ok(hoodie_array_struct_end(el, ef));
    hoodie_assert_ok(hoodie_array_append_null(&el->children[0], &ef->children[0]));
    hoodie_assert_ok(hoodie_array_append_str(&el->children[1], &ef->children[1], "bc"));
    hoodie_assert_ok(hoodie_array_struct_end(el, ef));
    hoodie_assert_ok(hoodie_array_list_end(&a, &f));
    hoodie_assert_ok(hoodie_array_append_null(&a, &f));
    hoodie_assert_ok(hoodie_array_list_end(&a, &f));
    hoodie_assert_equal_i(3, a.length);
    hoodie_assert_equal_i(1, a.null_count);
    hoodie_assert_equal_i(2, a.offsets[1]);
    hoodie_assert_equal_i(2, a.offsets[2]);
    hoodie_assert_equal_i(2, a.offsets[3]);
    check_invariants(&a, &f);
    /* struct_end refuses a row whose children were not all appended */
    hoodie_assert_ok(hoodie_array_append_int(&el->children[0], &ef->children[0], 5));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_array_struct_end(el, ef));
    /* type checks */
    hoodie_assert_status(HOODIE_EINVAL, hoodie_array_append_bool(&el->children[0], &ef->children[0], 1));
    hoodie_array_dispose(&a);
    hoodie_field_dispose(&f);
}

HOODIE_TEST(model_build__project_paths)
{
    hoodie_batch b, p;
    gen_batch(&b, 25, 8);
    const char *paths[] = { "c3", "st.b", "st.inner.d", "m1" };
    hoodie_assert_ok(hoodie_batch_project(&p, &b, paths, 4));
    hoodie_assert_equal_i(3, hoodie_batch_columns(&p));
    hoodie_assert_equal_s("c3", p.schema.children[0].name);
    const hoodie_field *st = &p.schema.children[1];
    hoodie_assert_equal_s("st", st->name);
    hoodie_assert_equal_i(2, st->n_children);
    hoodie_assert_equal_s("b", st->children[0].name);
    hoodie_assert_equal_s("inner", st->children[1].name);
    hoodie_assert_equal_s("m1", p.schema.children[2].name);
    check_invariants(&p.root, &p.schema);
    int sti = hoodie_field_find(&b.schema, "st");
    const hoodie_field *sst = &b.schema.children[sti];
    const hoodie_array *sa = &b.root.children[sti], *pa = &p.root.children[1];
    for (int64_t i = 0; i < 25; i++) {
        hoodie_assert(hoodie_value_equal(&b.schema.children[3], &b.root.children[3], i, &p.root.children[0], i));
        hoodie_assert_equal_i(hoodie_array_is_valid(sa, i), hoodie_array_is_valid(pa, i));
        hoodie_assert(hoodie_value_equal(&sst->children[1], &sa->children[1], i, &pa->children[0], i));
        hoodie_assert(hoodie_value_equal(&sst->children[2], &sa->children[2], i, &pa->children[1], i));
    }
    hoodie_batch_dispose(&p);
    const char *bad[] = { "st.nope" };
    hoodie_assert_status(HOODIE_EINVAL, hoodie_batch_project(&p, &b, bad, 1));
    const char *bad2[] = { "c3.x" };
    hoodie_assert_status(HOODIE_EINVAL, hoodie_batch_project(&p, &b, bad2, 1));
    /* whole struct after a part of it: the whole struct */
    const char *wh[] = { "st.a", "st" };
    hoodie_assert_ok(hoodie_batch_project(&p, &b, wh, 2));
    hoodie_assert(hoodie_field_equal(&p.schema.children[0], sst));
    hoodie_batch_dispose(&p);
    hoodie_batch_dispose(&b);
}

HOODIE_TEST(model_build__schema_checks)
{
    hoodie_field a, b;
    gen_schema(&a);
    gen_schema(&b);
    hoodie_assert(hoodie_field_equal(&a, &b));
    hoodie_assert(hoodie_field_compatible(&a, &b));
    free(b.children[0].name);
    b.children[0].name = strdup("renamed");
    hoodie_assert(!hoodie_field_equal(&a, &b));
    hoodie_assert(hoodie_field_compatible(&a, &b));
    b.children[1].nullable = !b.children[1].nullable;
    hoodie_assert(hoodie_field_compatible(&a, &b));
    b.children[17].type.scale = 5;   /* decimal scale */
    hoodie_assert(!hoodie_field_compatible(&a, &b));
    hoodie_field_dispose(&a);
    hoodie_field_dispose(&b);
}

/* n nulls appended at once (hoodie_array_append_nulls) equal the same nulls appended one by one, after rows of every
 * generated column type (and into empty arrays), at odd bit offsets and in whole bytes. */
HOODIE_TEST(model_build__append_nulls_vs_one_by_one)
{
    hoodie_batch a;
    gen_batch(&a, 45, 11);
    uint64_t rng = 17;
    for (int iter = 0; iter < 30; iter++) {
        int64_t keep = (int64_t)(gen_rng(&rng) % 46), n = (int64_t)(gen_rng(&rng) % 70);
        for (size_t c = 0; c < a.schema.n_children; c++) {
            hoodie_field f;
            hoodie_assert_ok(hoodie_field_clone(&f, &a.schema.children[c]));
            f.nullable = 1;
            hoodie_array x, y;
            hoodie_assert_ok(hoodie_array_init(&x, &f));
            hoodie_assert_ok(hoodie_array_init(&y, &f));
            hoodie_assert_ok(hoodie_array_append_range(&x, &f, &a.root.children[c], 0, keep));
            hoodie_assert_ok(hoodie_array_append_range(&y, &f, &a.root.children[c], 0, keep));
            hoodie_assert_ok(hoodie_array_append_nulls(&x, &f, n));
            for (int64_t i = 0; i < n; i++) hoodie_assert_ok(hoodie_array_append_null(&y, &f));
            check_invariants(&x, &f);
            hoodie_assert_equal_i(keep + n, x.length);
            hoodie_assert_equal_i(y.null_count, x.null_count);
            for (int64_t i = 0; i < keep + n; i++) {
                hoodie_assert(hoodie_value_equal(&f, &x, i, &y, i));
                hoodie_assert_equal_i(hoodie_array_is_valid(&y, i), hoodie_array_is_valid(&x, i));
                if (i >= keep && f.type.id != HOODIE_TYPE_NULL) hoodie_assert(!hoodie_array_is_valid(&x, i));
            }
            hoodie_array_dispose(&x);
            hoodie_array_dispose(&y);
            hoodie_field_dispose(&f);
        }
    }
    hoodie_batch_dispose(&a);
}
