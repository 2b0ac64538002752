#include "model_gen.h"
#include "model/render.h"
#include "model/value.h"
#include "util/buf.h"

#include <math.h>
#include <stdlib.h>

/* One row with a value of each type, values chosen to match DuckDB output checked by hand:
 * node tests/oracle/duck.mjs --json "select ...::varchar" (TimeZone UTC). */
static void golden_batch(hoodie_batch *b)
{
    hoodie_field s;
    hoodie_assert_ok(hoodie_field_init(&s, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    gen_add(&s, gen_leaf("b", HOODIE_TYPE_BOOL, 1));
    gen_add(&s, gen_leaf("i", HOODIE_TYPE_INT32, 1));
    gen_add(&s, gen_leaf("big", HOODIE_TYPE_INT64, 1));
    gen_add(&s, gen_leaf("d", HOODIE_TYPE_DOUBLE, 1));
    gen_add(&s, gen_leaf("f", HOODIE_TYPE_FLOAT, 1));
    hoodie_field f = gen_leaf("dec", HOODIE_TYPE_DECIMAL, 1); f.type.precision = 38; f.type.scale = 10; gen_add(&s, f);
    gen_add(&s, gen_leaf("dt", HOODIE_TYPE_DATE32, 1));
    f = gen_leaf("ts", HOODIE_TYPE_TIMESTAMP, 1); f.type.unit = HOODIE_UNIT_MICRO; f.type.utc = 1; gen_add(&s, f);
    f = gen_leaf("tl", HOODIE_TYPE_TIMESTAMP, 1); f.type.unit = HOODIE_UNIT_NANO; gen_add(&s, f);
    f = gen_leaf("t", HOODIE_TYPE_TIME64, 1); f.type.unit = HOODIE_UNIT_MICRO; gen_add(&s, f);
    gen_add(&s, gen_leaf("str", HOODIE_TYPE_STRING, 1));
    gen_add(&s, gen_leaf("bin", HOODIE_TYPE_BINARY, 1));
    f = gen_leaf("u", HOODIE_TYPE_FIXED_BINARY, 1); f.type.width = 16; f.type.ext = HOODIE_EXT_UUID; gen_add(&s, f);
    hoodie_field st = gen_leaf("st", HOODIE_TYPE_STRUCT, 1);
    gen_add(&st, gen_leaf("f", HOODIE_TYPE_INT32, 1));
    gen_add(&st, gen_leaf("g", HOODIE_TYPE_STRING, 1));
    gen_add(&s, st);
    gen_add(&s, gen_list("l", gen_leaf("element", HOODIE_TYPE_STRING, 1)));
    gen_add(&s, gen_map("m", gen_leaf("key", HOODIE_TYPE_STRING, 0), gen_leaf("value", HOODIE_TYPE_INT32, 1)));
    gen_add(&s, gen_map("mi", gen_leaf("key", HOODIE_TYPE_INT32, 0), gen_leaf("value", HOODIE_TYPE_DOUBLE, 1)));
    gen_add(&s, gen_leaf("n", HOODIE_TYPE_INT32, 1));
    hoodie_assert_ok(hoodie_batch_init(b, &s));
    hoodie_field_dispose(&s);

    hoodie_array *c = b->root.children;
    const hoodie_field *fs = b->schema.children;
    hoodie_assert_ok(hoodie_array_append_bool(&c[0], &fs[0], 1));
    hoodie_assert_ok(hoodie_array_append_int(&c[1], &fs[1], -5));
    hoodie_assert_ok(hoodie_array_append_int(&c[2], &fs[2], 12345678901234LL));
    hoodie_assert_ok(hoodie_array_append_double(&c[3], &fs[3], 0.1));
    hoodie_assert_ok(hoodie_array_append_float(&c[4], &fs[4], 0.1f));
    hoodie_assert_ok(hoodie_array_append_int(&c[5], &fs[5], -15000000000LL));
    hoodie_assert_ok(hoodie_array_append_int(&c[6], &fs[6], 19724));
    hoodie_assert_ok(hoodie_array_append_int(&c[7], &fs[7], 1704164645123000LL));
    hoodie_assert_ok(hoodie_array_append_int(&c[8], &fs[8], 1704164645123456789LL));
    hoodie_assert_ok(hoodie_array_append_int(&c[9], &fs[9], 3723500000LL));
    hoodie_assert_ok(hoodie_array_append_str(&c[10], &fs[10], "x,\"y\""));
    hoodie_assert_ok(hoodie_array_append_str(&c[11], &fs[11], "binary data"));
    hoodie_assert_ok(hoodie_array_append_bytes(&c[12], &fs[12],
        "\x12\x34\x56\x78\x12\x34\x56\x78\x12\x34\x56\x78\x12\x34\x56\x78", 16));
    hoodie_assert_ok(hoodie_array_append_int(&c[13].children[0], &fs[13].children[0], 1));
    hoodie_assert_ok(hoodie_array_append_str(&c[13].children[1], &fs[13].children[1], "x y"));
    hoodie_assert_ok(hoodie_array_struct_end(&c[13], &fs[13]));
    const char *items[] = { "a", NULL, "it's", "", "a,b", "12:00" };
    for (int i = 0; i < 6; i++) {
        if (items[i]) hoodie_assert_ok(hoodie_array_append_str(&c[14].children[0], &fs[14].children[0], items[i]));
        else hoodie_assert_ok(hoodie_array_append_null(&c[14].children[0], &fs[14].children[0]));
    }
    hoodie_assert_ok(hoodie_array_list_end(&c[14], &fs[14]));
    hoodie_array *e = hoodie_array_list_elems(&c[15]);
    const hoodie_field *ef = &fs[15].children[0];
    hoodie_assert_ok(hoodie_array_append_str(&e->children[0], &ef->children[0], "a"));
    hoodie_assert_ok(hoodie_array_append_int(&e->children[1], &ef->children[1], 1));
    hoodie_assert_ok(hoodie_array_struct_end(e, ef));
    hoodie_assert_ok(hoodie_array_append_str(&e->children[0], &ef->children[0], "k k"));
    hoodie_assert_ok(hoodie_array_append_null(&e->children[1], &ef->children[1]));
    hoodie_assert_ok(hoodie_array_struct_end(e, ef));
    hoodie_assert_ok(hoodie_array_list_end(&c[15], &fs[15]));
    e = hoodie_array_list_elems(&c[16]);
    ef = &fs[16].children[0];
    hoodie_assert_ok(hoodie_array_append_int(&e->children[0], &ef->children[0], 7));
    hoodie_assert_ok(hoodie_array_append_double(&e->children[1], &ef->children[1], 1e20));
    hoodie_assert_ok(hoodie_array_struct_end(e, ef));
    hoodie_assert_ok(hoodie_array_list_end(&c[16], &fs[16]));
    hoodie_assert_ok(hoodie_array_append_null(&c[17], &fs[17]));
    hoodie_assert_ok(hoodie_array_struct_end(&b->root, &b->schema));
    /* second row: all nulls */
    for (size_t i = 0; i < b->schema.n_children; i++) hoodie_assert_ok(hoodie_array_append_null(&c[i], &fs[i]));
    hoodie_assert_ok(hoodie_array_struct_end(&b->root, &b->schema));
}

static const char *buf_str(hoodie_buf *b)
{
    hoodie_assert_ok(hoodie_buf_cstr(b));
    return (const char *)b->data;
}

HOODIE_TEST(model_render__csv_golden)
{
    hoodie_batch b;
    hoodie_buf out = HOODIE_BUF_INIT;
    golden_batch(&b);
    hoodie_assert_ok(hoodie_render_csv(&out, &b, 1));
    hoodie_assert_equal_s(
        "b,i,big,d,f,dec,dt,ts,tl,t,str,bin,u,st,l,m,mi,n\n"
        "true,-5,12345678901234,0.1,0.1,-1.5000000000,2024-01-02,2024-01-02 03:04:05.123+00,"
        "2024-01-02 03:04:05.123456789,01:02:03.5,\"x,\"\"y\"\"\",62696E6172792064617461,"
        "12345678-1234-5678-1234-567812345678,\"{'f': 1, 'g': x y}\",\"[a, NULL, 'it\\'s', '', 'a,b', '12:00']\","
        "\"{a=1, k k=NULL}\",{7=1e+20},\n"
        ",,,,,,,,,,,,,,,,,\n",
        buf_str(&out));
    hoodie_buf_dispose(&out);
    hoodie_batch_dispose(&b);
}

HOODIE_TEST(model_render__jsonl_golden)
{
    hoodie_batch b;
    hoodie_buf out = HOODIE_BUF_INIT;
    golden_batch(&b);
    hoodie_assert_ok(hoodie_render_jsonl(&out, &b));
    hoodie_assert_equal_s(
        "{\"b\":true,\"i\":-5,\"big\":12345678901234,\"d\":0.1,\"f\":0.1,\"dec\":-1.5000000000,"
        "\"dt\":\"2024-01-02\",\"ts\":\"2024-01-02 03:04:05.123+00\",\"tl\":\"2024-01-02 03:04:05.123456789\","
        "\"t\":\"01:02:03.5\",\"str\":\"x,\\\"y\\\"\",\"bin\":\"YmluYXJ5IGRhdGE=\","
        "\"u\":\"12345678-1234-5678-1234-567812345678\",\"st\":{\"f\":1,\"g\":\"x y\"},"
        "\"l\":[\"a\",null,\"it's\",\"\",\"a,b\",\"12:00\"],\"m\":{\"a\":1,\"k k\":null},"
        "\"mi\":[{\"key\":7,\"value\":1e+20}],\"n\":null}\n"
        "{\"b\":null,\"i\":null,\"big\":null,\"d\":null,\"f\":null,\"dec\":null,\"dt\":null,\"ts\":null,"
        "\"tl\":null,\"t\":null,\"str\":null,\"bin\":null,\"u\":null,\"st\":null,\"l\":null,\"m\":null,"
        "\"mi\":null,\"n\":null}\n",
        buf_str(&out));
    hoodie_buf_dispose(&out);
    hoodie_batch_dispose(&b);
}

HOODIE_TEST(model_render__table_layout)
{
    hoodie_field s;
    hoodie_batch b;
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_field_init(&s, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    gen_add(&s, gen_leaf("id", HOODIE_TYPE_INT64, 1));
    gen_add(&s, gen_leaf("name", HOODIE_TYPE_STRING, 1));
    hoodie_assert_ok(hoodie_batch_init(&b, &s));
    hoodie_field_dispose(&s);
    const char *names[] = { "ann", "bé", NULL, "d" };
    for (int i = 0; i < 4; i++) {
        hoodie_assert_ok(hoodie_array_append_int(&b.root.children[0], &b.schema.children[0], i * 10));
        if (names[i]) hoodie_assert_ok(hoodie_array_append_str(&b.root.children[1], &b.schema.children[1], names[i]));
        else hoodie_assert_ok(hoodie_array_append_null(&b.root.children[1], &b.schema.children[1]));
        hoodie_assert_ok(hoodie_array_struct_end(&b.root, &b.schema));
    }
    hoodie_assert_ok(hoodie_render_table(&out, &b, 0));
    hoodie_assert_equal_s(
        "┌───────┬────────┐\n"
        "│  id   │  name  │\n"
        "│ int64 │ string │\n"
        "├───────┼────────┤\n"
        "│     0 │ ann    │\n"
        "│    10 │ bé     │\n"
        "│    20 │ NULL   │\n"
        "│    30 │ d      │\n"
        "└───────┴────────┘\n", buf_str(&out));
    hoodie_buf_clear(&out);
    hoodie_assert_ok(hoodie_render_table(&out, &b, 2));
    hoodie_assert_equal_s(
        "┌───────┬────────┐\n"
        "│  id   │  name  │\n"
        "│ int64 │ string │\n"
        "├───────┼────────┤\n"
        "│     0 │ ann    │\n"
        "│   ·   │   ·    │\n"
        "│    30 │ d      │\n"
        "└───────┴────────┘\n"
        "4 rows (2 shown)\n", buf_str(&out));
    hoodie_buf_dispose(&out);
    hoodie_batch_dispose(&b);
}

/* Cross-check number/date/time text against DuckDB itself when node is available. */
HOODIE_TEST(model_render__duckdb_crosscheck)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "command -v node >/dev/null 2>&1 && test -d %s/tests/oracle/node_modules",
             HOODIE_SOURCE_DIR);
    if (system(cmd) != 0) { printf("  (skipped: node or DuckDB not available)\n"); return; }
    uint64_t rng = 12345;
    char fbuf[32];
    hoodie_buf sql = HOODIE_BUF_INIT, want = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_buf_append_str(&sql, "select * from (values "));
    for (int i = 0; i < 60; i++) {
        uint64_t r = gen_rng(&rng);
        double d;
        switch (i % 4) {
        case 0: d = (double)(int64_t)(r % 2000000) / 1000.0; break;
        case 1: memcpy(&d, &r, 8); if (!isfinite(d)) d = 1.5; break;
        case 2: d = ldexp((double)(r % 1000003), (int)(gen_rng(&rng) % 120) - 60); break;
        default: d = (double)(r % 100000) * 1e10; break;
        }
        /* floats with at most 7 significant digits (DuckDB diverges from shortest round trip on some large
         * integral floats, see hoodie_double_to_text) */
        float f = (float)((double)(int64_t)(r % 20000001) / (double)(1 + (r >> 40) % 1000));
        f = strtof((snprintf(fbuf, sizeof fbuf, "%.7g", (double)f), fbuf), NULL);
        int64_t us = (int64_t)(gen_rng(&rng) % 8000000000000000ULL) - 2000000000000000LL;
        if (i % 5 == 0) us -= us % 1000000;
        int64_t days = (int64_t)(gen_rng(&rng) % 200000) - 100000;
        int64_t tod = (int64_t)(gen_rng(&rng) % 86400000000ULL);
        char dec[64];
        snprintf(dec, sizeof dec, "%lld", (long long)(gen_rng(&rng) % 20000000000ULL) - 10000000000LL);
        hoodie_assert_ok(hoodie_buf_printf(&sql,
            "%s('%.17g'::double::varchar, '%.9g'::float::varchar, make_timestamp(%lld)::varchar, "
            "to_timestamp(%lld / 1000000.0)::varchar, (date '1970-01-01' + %lld)::varchar, "
            "(time '00:00:00' + to_microseconds(%lld))::varchar, ((%s)::decimal(38,0) / 1000000)::decimal(38,6)::varchar)",
            i ? ", " : "", d, (double)f, (long long)us, (long long)us, (long long)days, (long long)tod, dec));
    }
    hoodie_assert_ok(hoodie_buf_append_str(&sql, ")"));
    hoodie_assert_ok(hoodie_buf_cstr(&sql));
    /* Note: to_timestamp goes through a double; only seconds-aligned rows are compared for it (i % 5 == 0). */
    char path[256];
    snprintf(path, sizeof path, "%s/duck_crosscheck.sql", hoodie_test_tmpdir());
    FILE *fp = fopen(path, "w");
    hoodie_assert(fp != NULL);
    fputs((const char *)sql.data, fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "cd %s && node tests/oracle/duck.mjs --csv \"$(cat %s)\"", HOODIE_SOURCE_DIR, path);
    FILE *pp = popen(cmd, "r");
    hoodie_assert(pp != NULL);
    char line[4096];
    hoodie_assert(fgets(line, sizeof line, pp) != NULL);   /* header */
    rng = 12345;
    int checked = 0;
    for (int i = 0; i < 60; i++) {
        uint64_t r = gen_rng(&rng);
        double d;
        switch (i % 4) {
        case 0: d = (double)(int64_t)(r % 2000000) / 1000.0; break;
        case 1: memcpy(&d, &r, 8); if (!isfinite(d)) d = 1.5; break;
        case 2: d = ldexp((double)(r % 1000003), (int)(gen_rng(&rng) % 120) - 60); break;
        default: d = (double)(r % 100000) * 1e10; break;
        }
        /* floats with at most 7 significant digits (DuckDB diverges from shortest round trip on some large
         * integral floats, see hoodie_double_to_text) */
        float f = (float)((double)(int64_t)(r % 20000001) / (double)(1 + (r >> 40) % 1000));
        f = strtof((snprintf(fbuf, sizeof fbuf, "%.7g", (double)f), fbuf), NULL);
        int64_t us = (int64_t)(gen_rng(&rng) % 8000000000000000ULL) - 2000000000000000LL;
        if (i % 5 == 0) us -= us % 1000000;
        int64_t days = (int64_t)(gen_rng(&rng) % 200000) - 100000;
        int64_t tod = (int64_t)(gen_rng(&rng) % 86400000000ULL);
        long long decv = (long long)(gen_rng(&rng) % 20000000000ULL) - 10000000000LL;

        hoodie_field s;
        hoodie_batch b;
        hoodie_assert_ok(hoodie_field_init(&s, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
        gen_add(&s, gen_leaf("d", HOODIE_TYPE_DOUBLE, 1));
        gen_add(&s, gen_leaf("f", HOODIE_TYPE_FLOAT, 1));
        hoodie_field t = gen_leaf("ts", HOODIE_TYPE_TIMESTAMP, 1); t.type.unit = HOODIE_UNIT_MICRO; gen_add(&s, t);
        t = gen_leaf("tz", HOODIE_TYPE_TIMESTAMP, 1); t.type.unit = HOODIE_UNIT_MICRO; t.type.utc = 1; gen_add(&s, t);
        gen_add(&s, gen_leaf("dt", HOODIE_TYPE_DATE32, 1));
        t = gen_leaf("t", HOODIE_TYPE_TIME64, 1); t.type.unit = HOODIE_UNIT_MICRO; gen_add(&s, t);
        t = gen_leaf("dec", HOODIE_TYPE_DECIMAL, 1); t.type.precision = 38; t.type.scale = 6; gen_add(&s, t);
        hoodie_assert_ok(hoodie_batch_init(&b, &s));
        hoodie_field_dispose(&s);
        hoodie_array *c = b.root.children;
        const hoodie_field *fs = b.schema.children;
        hoodie_assert_ok(hoodie_array_append_double(&c[0], &fs[0], d));
        hoodie_assert_ok(hoodie_array_append_float(&c[1], &fs[1], f));
        hoodie_assert_ok(hoodie_array_append_int(&c[2], &fs[2], us));
        hoodie_assert_ok(hoodie_array_append_int(&c[3], &fs[3], us));
        hoodie_assert_ok(hoodie_array_append_int(&c[4], &fs[4], days));
        hoodie_assert_ok(hoodie_array_append_int(&c[5], &fs[5], tod));
        hoodie_assert_ok(hoodie_array_append_int(&c[6], &fs[6], decv));
        hoodie_assert_ok(hoodie_array_struct_end(&b.root, &b.schema));
        hoodie_buf_clear(&want);
        hoodie_assert_ok(hoodie_render_csv(&want, &b, 0));
        hoodie_assert_ok(hoodie_buf_cstr(&want));
        hoodie_batch_dispose(&b);

        hoodie_assert(fgets(line, sizeof line, pp) != NULL);
        /* compare column by column; skip the to_timestamp column unless seconds-aligned */
        char *g = line, *w = (char *)want.data;
        for (int col = 0; col < 7; col++) {
            char *ge = strpbrk(g, ",\n"), *we = strpbrk(w, ",\n");
            hoodie_assert(ge && we);
            *ge = 0; *we = 0;
            if (col != 3 || i % 5 == 0) {
                if (strcmp(g, w) != 0)
                    hoodie_test__fail(__FILE__, __LINE__, "row %d col %d: duckdb \"%s\", hoodie \"%s\"", i, col, g, w);
                checked++;
            }
            g = ge + 1;
            w = we + 1;
        }
    }
    pclose(pp);
    hoodie_assert(checked >= 60 * 6);
    hoodie_buf_dispose(&sql);
    hoodie_buf_dispose(&want);
}

/* JSON string escaping, byte by byte as the format says: the reference the chunked escaper must equal. */
static void json_escape_ref(hoodie_buf *out, const uint8_t *p, size_t n)
{
    hoodie_assert_ok(hoodie_buf_putc(out, '"'));
    for (size_t i = 0; i < n;) {
        uint8_t c = p[i];
        size_t l = 0;
        if (c < 0x80) l = 1;
        else if (c >= 0xC2 && c <= 0xDF) l = 2;
        else if (c >= 0xE0 && c <= 0xEF) l = 3;
        else if (c >= 0xF0 && c <= 0xF4) l = 4;
        uint32_t cp = l == 2 ? c & 0x1Fu : l == 3 ? c & 0x0Fu : c & 0x07u;
        for (size_t k = 1; l > 1 && k < l; k++) {
            if (i + k >= n || (p[i + k] & 0xC0) != 0x80) { l = 0; break; }
            cp = cp << 6 | (p[i + k] & 0x3Fu);
        }
        if ((l == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (l == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
            l = 0;
        if (c == '"' || c == '\\') hoodie_assert_ok(hoodie_buf_printf(out, "\\%c", c));
        else if (c == '\n') hoodie_assert_ok(hoodie_buf_append_str(out, "\\n"));
        else if (c == '\r') hoodie_assert_ok(hoodie_buf_append_str(out, "\\r"));
        else if (c == '\t') hoodie_assert_ok(hoodie_buf_append_str(out, "\\t"));
        else if (c == '\b') hoodie_assert_ok(hoodie_buf_append_str(out, "\\b"));
        else if (c == '\f') hoodie_assert_ok(hoodie_buf_append_str(out, "\\f"));
        else if (c < 0x20) hoodie_assert_ok(hoodie_buf_printf(out, "\\u%04x", c));
        else if (!l) { hoodie_assert_ok(hoodie_buf_append_str(out, "\xEF\xBF\xBD")); i++; continue; }
        else { hoodie_assert_ok(hoodie_buf_append(out, p + i, l)); i += l; continue; }
        i++;
    }
    hoodie_assert_ok(hoodie_buf_putc(out, '"'));
}

/* Strings of every length around the escaper's 4 KiB chunks, made of runs of plain text, quotes, control bytes,
 * valid multi-byte sequences (some straddling a chunk's end) and invalid bytes, render as the reference does. */
HOODIE_TEST(model_render__json_string_escaping)
{
    static const char *const pieces[] = { "plain text ", "\"", "\\", "\n", "\x01", "\x1f", "\t", "\xC3\xA9",
                                          "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xFF", "\xC3", "\xED\xA0\x80", "\x7f" };
    const size_t np = sizeof pieces / sizeof *pieces;
    hoodie_field s;
    hoodie_assert_ok(hoodie_field_init(&s, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    gen_add(&s, gen_leaf("s", HOODIE_TYPE_STRING, 1));
    uint64_t seed = 42;
    for (int round = 0; round < 60; round++) {
        hoodie_buf in = HOODIE_BUF_INIT, want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
        size_t target = round < 20 ? (size_t)round : 4096 - 8 + (size_t)(round % 20) + (round >= 40 ? 8192 : 0);
        while (in.len < target) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            const char *pc = pieces[(seed >> 33) % np];
            hoodie_assert_ok(hoodie_buf_append_str(&in, (seed >> 40) % 3 ? "a" : pc));
        }
        hoodie_batch b;
        hoodie_assert_ok(hoodie_batch_init(&b, &s));
        hoodie_assert_ok(hoodie_array_append_bytes(&b.root.children[0], &b.schema.children[0], in.data, in.len));
        hoodie_assert_ok(hoodie_array_struct_end(&b.root, &b.schema));
        hoodie_assert_ok(hoodie_render_cell(&got, &b.schema.children[0], &b.root.children[0], 0, HOODIE_RENDER_JSON));
        json_escape_ref(&want, in.data, in.len);
        hoodie_assert_equal_i((int64_t)want.len, (int64_t)got.len);
        hoodie_assert(!memcmp(want.data, got.data, want.len));
        hoodie_batch_dispose(&b);
        hoodie_buf_dispose(&in);
        hoodie_buf_dispose(&want);
        hoodie_buf_dispose(&got);
    }
    hoodie_field_dispose(&s);
}

/* CSV quoting and JSON escaping look at eight bytes at a time: a byte that needs quoting or escaping at every
 * position of strings of 0 to 40 bytes, against a byte-at-a-time rendering of the same string; integers at their
 * extremes. */
static void ref_csv(hoodie_buf *b, const char *s, size_t n)
{
    int q = 0;
    for (size_t i = 0; i < n; i++) q |= s[i] == '"' || s[i] == ',' || s[i] == '\n' || s[i] == '\r';
    if (q) hoodie_assert_ok(hoodie_buf_putc(b, '"'));
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') hoodie_assert_ok(hoodie_buf_putc(b, '"'));
        hoodie_assert_ok(hoodie_buf_putc(b, (uint8_t)s[i]));
    }
    if (q) hoodie_assert_ok(hoodie_buf_putc(b, '"'));
}

static void ref_json(hoodie_buf *b, const char *s, size_t n)
{
    hoodie_assert_ok(hoodie_buf_putc(b, '"'));
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)s[i];
        if (c == '"' || c == '\\') { hoodie_assert_ok(hoodie_buf_putc(b, '\\')); hoodie_assert_ok(hoodie_buf_putc(b, c)); }
        else if (c == '\n') hoodie_assert_ok(hoodie_buf_append_str(b, "\\n"));
        else if (c == '\r') hoodie_assert_ok(hoodie_buf_append_str(b, "\\r"));
        else if (c < 0x20) hoodie_assert_ok(hoodie_buf_printf(b, "\\u%04x", c));
        else hoodie_assert_ok(hoodie_buf_putc(b, c)); /* ASCII, and whole UTF-8 sequences below */
    }
    hoodie_assert_ok(hoodie_buf_putc(b, '"'));
}

HOODIE_TEST(model_render__special_bytes_at_every_position)
{
    static const char *const specials[] = { "\"", ",", "\n", "\r", "\\", "\x01", "\x1f", "\x7f", "\xc3\xa9", " " };
    hoodie_field s;
    hoodie_assert_ok(hoodie_field_init(&s, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    gen_add(&s, gen_leaf("s", HOODIE_TYPE_STRING, 1));
    gen_add(&s, gen_leaf("i", HOODIE_TYPE_INT64, 1));
    gen_add(&s, gen_leaf("u", HOODIE_TYPE_UINT64, 1));
    for (size_t k = 0; k < sizeof specials / sizeof *specials; k++)
        for (size_t len = 0; len <= 40; len++)
            for (size_t at = 0; at <= len; at++) {
                char str[64];
                size_t n = 0;
                for (size_t i = 0; i < len; i++) {
                    if (i == at) { memcpy(str + n, specials[k], strlen(specials[k])); n += strlen(specials[k]); }
                    else str[n++] = (char)('a' + i % 26);
                }
                if (at == len && len) continue;
                hoodie_batch b;
                hoodie_assert_ok(hoodie_batch_init(&b, &s));
                hoodie_assert_ok(hoodie_array_append_bytes(&b.root.children[0], &b.schema.children[0], str, n));
                hoodie_assert_ok(hoodie_array_append_int(&b.root.children[1], &b.schema.children[1],
                                                         at & 1 ? INT64_MIN : INT64_MAX));
                hoodie_assert_ok(hoodie_array_append_int(&b.root.children[2], &b.schema.children[2], (int64_t)at - 1));
                b.root.length = 1;
                hoodie_buf got = HOODIE_BUF_INIT, want = HOODIE_BUF_INIT;
                hoodie_assert_ok(hoodie_render_csv(&got, &b, 0));
                ref_csv(&want, str, n);
                const char *i64 = at & 1 ? "-9223372036854775808" : "9223372036854775807";
                if (at) hoodie_assert_ok(hoodie_buf_printf(&want, ",%s,%zu\n", i64, at - 1));
                else hoodie_assert_ok(hoodie_buf_printf(&want, ",%s,18446744073709551615\n", i64));
                hoodie_assert_ok(hoodie_buf_cstr(&got));
                hoodie_assert_ok(hoodie_buf_cstr(&want));
                hoodie_assert_equal_s((const char *)want.data, (const char *)got.data);
                got.len = want.len = 0;
                hoodie_assert_ok(hoodie_render_jsonl(&got, &b));
                hoodie_assert_ok(hoodie_buf_append_str(&want, "{\"s\":"));
                ref_json(&want, str, n);
                hoodie_assert_ok(hoodie_buf_printf(&want, ",\"i\":%s,\"u\":", i64));
                if (at) hoodie_assert_ok(hoodie_buf_printf(&want, "%zu}\n", at - 1));
                else hoodie_assert_ok(hoodie_buf_append_str(&want, "18446744073709551615}\n"));
                hoodie_assert_ok(hoodie_buf_cstr(&got));
                hoodie_assert_ok(hoodie_buf_cstr(&want));
                hoodie_assert_equal_s((const char *)want.data, (const char *)got.data);
                hoodie_buf_dispose(&got);
                hoodie_buf_dispose(&want);
                hoodie_batch_dispose(&b);
            }
    hoodie_field_dispose(&s);
}
