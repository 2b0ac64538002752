/* Differential fuzzing of the Avro record decoder: the input is a run of records of a fixed writer schema; the
 * flat program (hoodie_avro_decode_row) and the generic plan walk must agree on every row, every failure and its
 * message, and never crash. */
#include "format/avro/schema.h"
#include "model/avro.h"
#include "model/value.h"
#include "util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *WRITER =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"b\",\"type\":\"boolean\"},"
    "{\"name\":\"i\",\"type\":\"int\"},"
    "{\"name\":\"l\",\"type\":\"long\"},"
    "{\"name\":\"s\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"by\",\"type\":[\"bytes\",\"null\"]},"
    "{\"name\":\"d\",\"type\":[\"null\",\"double\"]},"
    "{\"name\":\"f\",\"type\":\"float\"},"
    "{\"name\":\"sk\",\"type\":\"string\"},"
    "{\"name\":\"su\",\"type\":[\"null\",\"long\"]},"
    "{\"name\":\"arr\",\"type\":{\"type\":\"array\",\"items\":\"long\"}},"
    "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"]}},"
    "{\"name\":\"dec\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"d4\",\"size\":4,\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}]}"
    "]}";
static const char *READER =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"b\",\"type\":\"boolean\"},"
    "{\"name\":\"i\",\"type\":\"long\"},"
    "{\"name\":\"l\",\"type\":\"long\"},"
    "{\"name\":\"s\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"by\",\"type\":\"bytes\"},"
    "{\"name\":\"d\",\"type\":[\"null\",\"double\"]},"
    "{\"name\":\"f\",\"type\":\"float\"},"
    "{\"name\":\"arr\",\"type\":{\"type\":\"array\",\"items\":\"long\"}},"
    "{\"name\":\"e\",\"type\":\"string\"},"
    "{\"name\":\"dec\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"d4\",\"size\":4,\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}]},"
    "{\"name\":\"added\",\"type\":[\"null\",\"int\"]}"
    "]}";

static void check(int ok, const char *what)
{
    if (!ok) { fprintf(stderr, "fuzz_avro_records: %s\n", what); abort(); }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hoodie_arena *a = NULL;
    hoodie_avro_schema *ws, *rs;
    hoodie_field rf;
    hoodie_avro_decoder *d = NULL;
    hoodie_batch b1, b2;
    check(hoodie_arena_new(&a, NULL, 8192) == HOODIE_OK, "arena");
    check(hoodie_avro_schema_parse(&ws, WRITER, strlen(WRITER), a, "w") == HOODIE_OK, "writer schema");
    check(hoodie_avro_schema_parse(&rs, READER, strlen(READER), a, "r") == HOODIE_OK, "reader schema");
    check(hoodie_avro_to_field(&rf, rs, "root") == HOODIE_OK, "reader field");
    check(hoodie_avro_decoder_new(&d, ws, &rf) == HOODIE_OK, "decoder");
    check(hoodie_batch_init(&b1, &rf) == HOODIE_OK && hoodie_batch_init(&b2, &rf) == HOODIE_OK, "batches");
    /* a private copy of exactly `size` bytes, so any over-read is caught by ASan */
    uint8_t *copy = malloc(size ? size : 1);
    check(copy != NULL, "copy");
    if (size) memcpy(copy, data, size);
    hoodie_cursor c1 = HOODIE_CURSOR_INIT(copy, size), c2 = HOODIE_CURSOR_INIT(copy, size);
    c1.what = c2.what = "fuzz";
    for (int rows = 0; rows < 1000 && hoodie_cursor_left(&c1); rows++) {
        hoodie_status s1 = hoodie_avro_decode_row(d, &c1, &b1.root);
        char m1[512];
        snprintf(m1, sizeof m1, "%s", s1 < 0 ? hoodie_error__message() : "");
        hoodie_status s2 = hoodie_avro__decode_row_generic(d, &c2, &b2.root);
        check(s1 == s2, "status differs");
        if (s1 < 0) { check(strcmp(m1, hoodie_error__message()) == 0, "message differs"); break; }
        check(c1.p == c2.p, "position differs");
    }
    if (b1.root.length == b2.root.length && hoodie_cursor_left(&c1) == hoodie_cursor_left(&c2) &&
        c1.status == HOODIE_OK)
        check(hoodie_batch_equal(&b1, &b2), "rows differ");
    free(copy);
    hoodie_batch_dispose(&b1);
    hoodie_batch_dispose(&b2);
    hoodie_avro_decoder_free(d);
    hoodie_field_dispose(&rf);
    hoodie_arena_free(a);
    return 0;
}
