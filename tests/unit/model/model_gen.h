/* Shared by the model unit tests: random batches of every type (header-only, static functions). */
#ifndef HOODIE_TEST_MODEL_GEN_H
#define HOODIE_TEST_MODEL_GEN_H

#include "hoodie_test.h"
#include "model/batch.h"
#include "model/build.h"

#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunused-function"

static uint64_t gen_rng(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

static hoodie_field gen_leaf(const char *name, hoodie_type_id id, int nullable)
{
    hoodie_field f;
    hoodie_assert_ok(hoodie_field_init(&f, name, hoodie_type_of(id), nullable));
    return f;
}

static void gen_add(hoodie_field *parent, hoodie_field child)
{
    hoodie_assert_ok(hoodie_field_add_child(parent, &child));
    hoodie_field_dispose(&child);
}

static hoodie_field gen_list(const char *name, hoodie_field elem)
{
    hoodie_field f = gen_leaf(name, HOODIE_TYPE_LIST, 1);
    gen_add(&f, elem);
    return f;
}

static hoodie_field gen_map(const char *name, hoodie_field key, hoodie_field value)
{
    hoodie_field f = gen_leaf(name, HOODIE_TYPE_MAP, 1);
    hoodie_field e = gen_leaf("entries", HOODIE_TYPE_STRUCT, 0);
    key.nullable = 0;
    gen_add(&e, key);
    gen_add(&e, value);
    gen_add(&f, e);
    return f;
}

/* A schema with every type, nested ones included. */
static void gen_schema(hoodie_field *s)
{
    hoodie_assert_ok(hoodie_field_init(s, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    static const hoodie_type_id leaves[] = {
        HOODIE_TYPE_BOOL, HOODIE_TYPE_INT8, HOODIE_TYPE_INT16, HOODIE_TYPE_INT32, HOODIE_TYPE_INT64,
        HOODIE_TYPE_UINT8, HOODIE_TYPE_UINT16, HOODIE_TYPE_UINT32, HOODIE_TYPE_UINT64, HOODIE_TYPE_FLOAT16,
        HOODIE_TYPE_FLOAT, HOODIE_TYPE_DOUBLE, HOODIE_TYPE_STRING, HOODIE_TYPE_BINARY, HOODIE_TYPE_DATE32,
        HOODIE_TYPE_NULL };
    char name[32];
    for (size_t i = 0; i < sizeof leaves / sizeof *leaves; i++) {
        snprintf(name, sizeof name, "c%zu", i);
        hoodie_field f = gen_leaf(name, leaves[i], i % 5 != 1);
        f.field_id = (int32_t)i + 1;
        gen_add(s, f);
    }
    hoodie_field f = gen_leaf("fixed3", HOODIE_TYPE_FIXED_BINARY, 1); f.type.width = 3; gen_add(s, f);
    f = gen_leaf("dec", HOODIE_TYPE_DECIMAL, 1); f.type.precision = 30; f.type.scale = 4; gen_add(s, f);
    f = gen_leaf("t32", HOODIE_TYPE_TIME32, 1); f.type.unit = HOODIE_UNIT_MILLI; gen_add(s, f);
    f = gen_leaf("t64", HOODIE_TYPE_TIME64, 1); f.type.unit = HOODIE_UNIT_NANO; gen_add(s, f);
    f = gen_leaf("ts_utc", HOODIE_TYPE_TIMESTAMP, 1); f.type.unit = HOODIE_UNIT_MICRO; f.type.utc = 1; gen_add(s, f);
    f = gen_leaf("ts_local", HOODIE_TYPE_TIMESTAMP, 1); f.type.unit = HOODIE_UNIT_NANO; gen_add(s, f);
    f = gen_leaf("uuid", HOODIE_TYPE_FIXED_BINARY, 1); f.type.width = 16; f.type.ext = HOODIE_EXT_UUID; gen_add(s, f);
    f = gen_leaf("json", HOODIE_TYPE_STRING, 1); f.type.ext = HOODIE_EXT_JSON; gen_add(s, f);
    hoodie_field st = gen_leaf("st", HOODIE_TYPE_STRUCT, 1);
    gen_add(&st, gen_leaf("a", HOODIE_TYPE_INT32, 1));
    gen_add(&st, gen_leaf("b", HOODIE_TYPE_STRING, 0));
    hoodie_field inner = gen_leaf("inner", HOODIE_TYPE_STRUCT, 1);
    gen_add(&inner, gen_list("d", gen_leaf("element", HOODIE_TYPE_INT64, 1)));
    gen_add(&st, inner);
    gen_add(s, st);
    gen_add(s, gen_list("ls", gen_leaf("element", HOODIE_TYPE_STRING, 1)));
    hoodie_field pt = gen_leaf("element", HOODIE_TYPE_STRUCT, 1);
    gen_add(&pt, gen_leaf("x", HOODIE_TYPE_INT32, 1));
    gen_add(&pt, gen_leaf("y", HOODIE_TYPE_DOUBLE, 1));
    gen_add(s, gen_list("lst", pt));
    gen_add(s, gen_map("m1", gen_leaf("key", HOODIE_TYPE_STRING, 0), gen_leaf("value", HOODIE_TYPE_INT32, 1)));
    gen_add(s, gen_map("m2", gen_leaf("key", HOODIE_TYPE_INT32, 0),
                       gen_list("value", gen_leaf("element", HOODIE_TYPE_STRING, 1))));
}

static void gen_value(hoodie_array *a, const hoodie_field *f, uint64_t *rng, int allow_null)
{
    uint64_t r = gen_rng(rng);
    if (f->type.id == HOODIE_TYPE_NULL || (allow_null && f->nullable && r % 7 == 0)) {
        hoodie_assert_ok(hoodie_array_append_null(a, f));
        return;
    }
    r = gen_rng(rng);
    switch (f->type.id) {
    case HOODIE_TYPE_BOOL: hoodie_assert_ok(hoodie_array_append_bool(a, f, (int)(r & 1))); break;
    case HOODIE_TYPE_FLOAT: case HOODIE_TYPE_DOUBLE: {
        double v = (double)(int64_t)(r % 2000001) / 64.0 - 15000.0;
        if (r % 31 == 0) v = 0.0 / 0.0;
        hoodie_assert_ok(hoodie_array_append_double(a, f, v));
        break;
    }
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: case HOODIE_TYPE_FIXED_BINARY: {
        char buf[20];
        size_t n = f->type.id == HOODIE_TYPE_FIXED_BINARY ? (size_t)f->type.width : (size_t)(r % 9);
        for (size_t i = 0; i < n; i++) buf[i] = (char)('a' + (gen_rng(rng) % 4));
        hoodie_assert_ok(hoodie_array_append_bytes(a, f, buf, n));
        break;
    }
    case HOODIE_TYPE_DECIMAL:
        hoodie_assert_ok(hoodie_array_append_decimal128(a, f, (int64_t)(r % 5) - 2, gen_rng(rng)));
        break;
    case HOODIE_TYPE_STRUCT:
        for (size_t i = 0; i < f->n_children; i++) gen_value(&a->children[i], &f->children[i], rng, 1);
        hoodie_assert_ok(hoodie_array_struct_end(a, f));
        break;
    case HOODIE_TYPE_LIST: {
        size_t n = r % 4;
        for (size_t i = 0; i < n; i++) gen_value(&a->children[0], &f->children[0], rng, 1);
        hoodie_assert_ok(hoodie_array_list_end(a, f));
        break;
    }
    case HOODIE_TYPE_MAP: {
        size_t n = r % 3;
        hoodie_array *e = hoodie_array_list_elems(a);
        const hoodie_field *ef = &f->children[0];
        for (size_t i = 0; i < n; i++) {
            gen_value(&e->children[0], &ef->children[0], rng, 0);
            gen_value(&e->children[1], &ef->children[1], rng, 1);
            hoodie_assert_ok(hoodie_array_struct_end(e, ef));
        }
        hoodie_assert_ok(hoodie_array_list_end(a, f));
        break;
    }
    case HOODIE_TYPE_FLOAT16:
        hoodie_assert_ok(hoodie_array_append_int(a, f, (int64_t)(r % 0x7c00)));
        break;
    default:
        hoodie_assert_ok(hoodie_array_append_int(a, f, (int64_t)(r % 2000001) - 1000000));
    }
}

/* A fresh batch of `rows` random rows. */
static void gen_batch(hoodie_batch *b, int64_t rows, uint64_t seed)
{
    hoodie_field s;
    uint64_t rng = seed * 2654435761u + 1;
    gen_schema(&s);
    hoodie_assert_ok(hoodie_batch_init(b, &s));
    hoodie_field_dispose(&s);
    for (int64_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < b->schema.n_children; c++)
            gen_value(&b->root.children[c], &b->schema.children[c], &rng, 1);
        hoodie_assert_ok(hoodie_array_struct_end(&b->root, &b->schema));
    }
}

#endif
