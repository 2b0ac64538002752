/*
 * The schema the input fuzz targets read into: one nullable column of most types, named a..p (so that headers
 * made of those letters reach every converter), lists, maps and structs among them. Header-only (static).
 */
#ifndef HOODIE_FUZZ_SCHEMA_H
#define HOODIE_FUZZ_SCHEMA_H

#include "model/build.h"

static void fuzz_add(hoodie_field *root, const char *name, hoodie_type t)
{
    hoodie_field c;
    if (hoodie_field_init(&c, name, t, 1) != HOODIE_OK) return;
    hoodie_field_add_child(root, &c);
    hoodie_field_dispose(&c);
}

static void fuzz_add_nested(hoodie_field *root, const char *name, hoodie_type_id id)
{
    hoodie_field c, e, k, v;
    hoodie_field_init(&c, name, hoodie_type_of(id), 1);
    if (id == HOODIE_TYPE_LIST) {
        hoodie_field_init(&e, "element", hoodie_type_of(HOODIE_TYPE_INT32), 1);
        hoodie_field_add_child(&c, &e);
        hoodie_field_dispose(&e);
    } else if (id == HOODIE_TYPE_MAP) {
        hoodie_field_init(&e, "entries", hoodie_type_of(HOODIE_TYPE_STRUCT), 0);
        hoodie_field_init(&k, "key", hoodie_type_of(HOODIE_TYPE_STRING), 0);
        hoodie_field_init(&v, "value", hoodie_type_of(HOODIE_TYPE_DOUBLE), 1);
        hoodie_field_add_child(&e, &k);
        hoodie_field_add_child(&e, &v);
        hoodie_field_add_child(&c, &e);
        hoodie_field_dispose(&k);
        hoodie_field_dispose(&v);
        hoodie_field_dispose(&e);
    } else {
        hoodie_field_init(&k, "x", hoodie_type_of(HOODIE_TYPE_INT64), 1);
        hoodie_field_init(&v, "y", hoodie_type_of(HOODIE_TYPE_BINARY), 1);
        hoodie_field_add_child(&c, &k);
        hoodie_field_add_child(&c, &v);
        hoodie_field_dispose(&k);
        hoodie_field_dispose(&v);
    }
    hoodie_field_add_child(root, &c);
    hoodie_field_dispose(&c);
}

/* The root STRUCT; 0 when it could not be made. */
static int fuzz_schema(hoodie_field *root)
{
    if (hoodie_field_init(root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0) != HOODIE_OK) return 0;
    hoodie_type t;
    fuzz_add(root, "a", hoodie_type_of(HOODIE_TYPE_INT64));
    fuzz_add(root, "b", hoodie_type_of(HOODIE_TYPE_STRING));
    fuzz_add(root, "c", hoodie_type_of(HOODIE_TYPE_INT32));
    fuzz_add(root, "d", hoodie_type_of(HOODIE_TYPE_DOUBLE));
    fuzz_add(root, "e", hoodie_type_of(HOODIE_TYPE_BOOL));
    t = hoodie_type_of(HOODIE_TYPE_DECIMAL); t.precision = 38; t.scale = 4;
    fuzz_add(root, "f", t);
    fuzz_add(root, "g", hoodie_type_of(HOODIE_TYPE_DATE32));
    t = hoodie_type_of(HOODIE_TYPE_TIMESTAMP); t.unit = HOODIE_UNIT_NANO; t.utc = 1;
    fuzz_add(root, "h", t);
    t = hoodie_type_of(HOODIE_TYPE_TIME32); t.unit = HOODIE_UNIT_MILLI;
    fuzz_add(root, "i", t);
    fuzz_add(root, "j", hoodie_type_of(HOODIE_TYPE_UINT8));
    t = hoodie_type_of(HOODIE_TYPE_FIXED_BINARY); t.width = 16; t.ext = HOODIE_EXT_UUID;
    fuzz_add(root, "k", t);
    fuzz_add(root, "l", hoodie_type_of(HOODIE_TYPE_FLOAT16));
    fuzz_add_nested(root, "m", HOODIE_TYPE_LIST);
    fuzz_add_nested(root, "n", HOODIE_TYPE_MAP);
    fuzz_add_nested(root, "o", HOODIE_TYPE_STRUCT);
    fuzz_add(root, "p", hoodie_type_of(HOODIE_TYPE_BINARY));
    return 1;
}

#endif
