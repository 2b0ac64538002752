/*
 * Fuzz the CSV / JSON-lines input reader on a buffer. The first byte picks the mode:
 *   bit 0: JSON lines instead of CSV;  bit 1: infer the schema instead of the fixed one;
 *   bits 2-3: delimiter (',' ';' '\t' '|');  bit 4: ignore extra columns;  bits 5-7: batch size 1 << n.
 * The fixed schema has one column of most types, named a..p, so headers made of those letters reach every
 * converter.
 */
#include "model/build.h"
#include "table/input.h"
#include "util/error.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void add(hoodie_field *root, const char *name, hoodie_type t)
{
    hoodie_field c;
    if (hoodie_field_init(&c, name, t, 1) != HOODIE_OK) return;
    hoodie_field_add_child(root, &c);
    hoodie_field_dispose(&c);
}

static void add_nested(hoodie_field *root, const char *name, hoodie_type_id id)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    hoodie_field root;
    if (hoodie_field_init(&root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0) != HOODIE_OK) return 0;
    hoodie_type t;
    add(&root, "a", hoodie_type_of(HOODIE_TYPE_INT64));
    add(&root, "b", hoodie_type_of(HOODIE_TYPE_STRING));
    add(&root, "c", hoodie_type_of(HOODIE_TYPE_INT32));
    add(&root, "d", hoodie_type_of(HOODIE_TYPE_DOUBLE));
    add(&root, "e", hoodie_type_of(HOODIE_TYPE_BOOL));
    t = hoodie_type_of(HOODIE_TYPE_DECIMAL); t.precision = 38; t.scale = 4;
    add(&root, "f", t);
    add(&root, "g", hoodie_type_of(HOODIE_TYPE_DATE32));
    t = hoodie_type_of(HOODIE_TYPE_TIMESTAMP); t.unit = HOODIE_UNIT_NANO; t.utc = 1;
    add(&root, "h", t);
    t = hoodie_type_of(HOODIE_TYPE_TIME32); t.unit = HOODIE_UNIT_MILLI;
    add(&root, "i", t);
    add(&root, "j", hoodie_type_of(HOODIE_TYPE_UINT8));
    t = hoodie_type_of(HOODIE_TYPE_FIXED_BINARY); t.width = 16; t.ext = HOODIE_EXT_UUID;
    add(&root, "k", t);
    add(&root, "l", hoodie_type_of(HOODIE_TYPE_FLOAT16));
    add_nested(&root, "m", HOODIE_TYPE_LIST);
    add_nested(&root, "n", HOODIE_TYPE_MAP);
    add_nested(&root, "o", HOODIE_TYPE_STRUCT);
    add(&root, "p", hoodie_type_of(HOODIE_TYPE_BINARY));

    static const char delims[] = { ',', ';', '\t', '|' };
    hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
    o.format = (mode & 1) ? HOODIE_INPUT_JSONL : HOODIE_INPUT_CSV;
    o.schema = (mode & 2) ? NULL : &root;
    o.delimiter = delims[(mode >> 2) & 3];
    o.ignore_extra_columns = (mode >> 4) & 1;
    o.batch_rows = (int64_t)1 << ((mode >> 5) & 7);
    o.infer_rows = 50;
    o.binary = (mode & 0x40) ? HOODIE_INPUT_BINARY_HEX : HOODIE_INPUT_BINARY_DEFAULT;

    hoodie_input *in;
    if (hoodie_input_open_buffer(&in, data, size, "fuzz.csv", &o) == HOODIE_OK) {
        hoodie_batch b;
        int64_t total = 0;
        while (hoodie_input_next(in, &b) == HOODIE_OK) {
            if (b.root.length <= 0 || b.root.length > o.batch_rows) __builtin_trap();
            for (size_t c = 0; c < b.root.n_children; c++)
                if (b.root.children[c].length != b.root.length) __builtin_trap();
            total += b.root.length;
            hoodie_batch_dispose(&b);
            if (total > 100000) break;
        }
        hoodie_input_free(in);
    }
    hoodie_field_dispose(&root);
    return 0;
}
