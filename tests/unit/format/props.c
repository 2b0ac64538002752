#include "hoodie_test.h"
#include "format/props.h"
#include "storage/storage.h"
#include "util/error.h"

static void parse_str(hoodie_props *p, const char *text)
{
    hoodie_props_init(p);
    hoodie_assert_ok(hoodie_props_parse(p, text, strlen(text), "t.properties"));
}

HOODIE_TEST(format_props__syntax)
{
    hoodie_props p;
    parse_str(&p,
              "# comment\n"
              "! another = comment\n"
              "   \n"
              "  a=1\n"
              "b : 2\n"
              "c 3\n"
              "d\t=\t  4  \n"
              "e\n"
              "f=\n"
              "g=x\\\n"
              "     y\\\n"
              "z\n"
              "h\\=k=v\\:w\n"
              "i=tab\\there\\nnl\\\\\n"
              "j=\\u00e9\\u20AC\\uD83D\\uDE00\r\n"
              "k=latin\xe9\r"
              "l=dup\n"
              "l=second\n"
              "m=a\\\\\n"
              "n=last");
    hoodie_assert_equal_s("1", hoodie_props_get(&p, "a"));
    hoodie_assert_equal_s("2", hoodie_props_get(&p, "b"));
    hoodie_assert_equal_s("3", hoodie_props_get(&p, "c"));
    hoodie_assert_equal_s("4  ", hoodie_props_get(&p, "d"));
    hoodie_assert_equal_s("", hoodie_props_get(&p, "e"));
    hoodie_assert_equal_s("", hoodie_props_get(&p, "f"));
    hoodie_assert_equal_s("xyz", hoodie_props_get(&p, "g"));
    hoodie_assert_equal_s("v:w", hoodie_props_get(&p, "h=k"));
    hoodie_assert_equal_s("tab\there\nnl\\", hoodie_props_get(&p, "i"));
    hoodie_assert_equal_s("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", hoodie_props_get(&p, "j"));
    hoodie_assert_equal_s("latin\xc3\xa9", hoodie_props_get(&p, "k"));
    hoodie_assert_equal_s("second", hoodie_props_get(&p, "l"));
    hoodie_assert_equal_s("a\\", hoodie_props_get(&p, "m"));
    hoodie_assert_equal_s("last", hoodie_props_get(&p, "n"));
    hoodie_assert(hoodie_props_get(&p, "# comment") == NULL);
    /* order of first appearance; a duplicate keeps its first slot */
    hoodie_assert_equal_s("a", p.entries[0].key);
    hoodie_assert_equal_s("l", p.entries[11].key);
    hoodie_assert_equal_i(14, p.count);
    hoodie_assert_equal_i(4, hoodie_props_find(&p, "a")->line);
    hoodie_props_dispose(&p);
}

HOODIE_TEST(format_props__bad_unicode_names_line)
{
    hoodie_props p = HOODIE_PROPS_INIT;
    const char *t = "a=1\n\nb=\\u12G4\n";
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_props_parse(&p, t, strlen(t), "x/hoodie.properties"));
    hoodie_assert_contains(hoodie_error_last()->message, "x/hoodie.properties:3");
    hoodie_props_dispose(&p);
    const char *t2 = "a=\\u12";
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_props_parse(&p, t2, strlen(t2), "y"));
    hoodie_props_dispose(&p);
}

HOODIE_TEST(format_props__store_escapes_like_java)
{
    hoodie_props p = HOODIE_PROPS_INIT;
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_props_set(&p, "hoodie.table.name", "t"));
    hoodie_assert_ok(hoodie_props_set(&p, "k y", " v:a=b#c!d e\t\xc3\xa9\xf0\x9f\x98\x80\\"));
    hoodie_assert_ok(hoodie_props_set(&p, "s", "{\"type\":\"record\"}"));
    hoodie_assert_ok(hoodie_props_store(&p, &b, "Updated at 2026-01-01T05:43:25.991683Z", 1767246205991LL));
    hoodie_assert_ok(hoodie_buf_cstr(&b));
    hoodie_assert_equal_s("#Updated at 2026-01-01T05:43:25.991683Z\n"
                          "#Thu Jan 01 05:43:25 UTC 2026\n"
                          "hoodie.table.name=t\n"
                          "k\\ y=\\ v\\:a\\=b\\#c\\!d e\\t\\u00E9\\uD83D\\uDE00\\\\\n"
                          "s={\"type\"\\:\"record\"}\n",
                          (const char *)b.data);
    /* and it parses back to the same values */
    hoodie_props q = HOODIE_PROPS_INIT;
    hoodie_assert_ok(hoodie_props_parse(&q, b.data, b.len, "rt"));
    hoodie_assert_equal_i(3, q.count);
    for (size_t i = 0; i < 3; i++) {
        hoodie_assert_equal_s(p.entries[i].key, q.entries[i].key);
        hoodie_assert_equal_s(p.entries[i].value, q.entries[i].value);
    }
    hoodie_assert_equal_i(1, hoodie_props_remove(&q, "k y"));
    hoodie_assert_equal_i(0, hoodie_props_remove(&q, "k y"));
    hoodie_assert_equal_s("s", q.entries[1].key);
    hoodie_props_dispose(&q);
    hoodie_props_dispose(&p);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_props__store_comment_instant_forms)
{
    char c[80];
    hoodie_props_store_comment(c, sizeof c, "Updated at ", 1767246205991683LL);
    hoodie_assert_equal_s("Updated at 2026-01-01T05:43:25.991683Z", c);
    hoodie_props_store_comment(c, sizeof c, "Properties saved on ", 1713479533522000LL);
    hoodie_assert_equal_s("Properties saved on 2024-04-18T22:32:13.522Z", c);
    hoodie_props_store_comment(c, sizeof c, "", 1713479533000000LL);
    hoodie_assert_equal_s("2024-04-18T22:32:13Z", c);
}

/* Every fixture hoodie.properties parses; re-storing and re-parsing gives the same entries. */
HOODIE_TEST(format_props__fixture_roundtrip)
{
    static const char *tables[] = {
        "hudi/tables/cow_v6_complexkeygen_hivestyle", "hudi/tables/cow_v8_complexkeygen_hivestyle",
        "hudi/tables/mdt_basic_mor_avro_v8_nonpartitioned", "hudi/tables/trips_mor_avro_v9_mor_nonpart_3commits",
        "hudi/standalone/table_props_valid", "hudi/standalone/table_props_invalid",
    };
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
        char path[1024];
        hoodie_buf raw = HOODIE_BUF_INIT, out = HOODIE_BUF_INIT;
        hoodie_props p = HOODIE_PROPS_INIT, q = HOODIE_PROPS_INIT;
        snprintf(path, sizeof path, "%s/.hoodie/hoodie.properties", hoodie_fixture(tables[t]));
        hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), path, &raw));
        hoodie_assert_ok(hoodie_props_parse(&p, raw.data, raw.len, path));
        hoodie_assert(p.count >= 6);
        hoodie_assert(hoodie_props_get(&p, "hoodie.table.type") != NULL);
        hoodie_assert_ok(hoodie_props_store(&p, &out, "Updated at 2026-01-01T05:43:25.991683Z", 0));
        hoodie_assert_ok(hoodie_props_parse(&q, out.data, out.len, "stored"));
        hoodie_assert_equal_i(p.count, q.count);
        for (size_t i = 0; i < p.count; i++) {
            hoodie_assert_equal_s(p.entries[i].key, q.entries[i].key);
            hoodie_assert_equal_s(p.entries[i].value, q.entries[i].value);
        }
        hoodie_props_dispose(&p);
        hoodie_props_dispose(&q);
        hoodie_buf_dispose(&raw);
        hoodie_buf_dispose(&out);
    }
}

/* A real Hudi-written file: storing its entries in file order reproduces the file byte for byte (minus the two
 * comment lines, which carry the write time). */
HOODIE_TEST(format_props__fixture_bytes_identical)
{
    char path[1024];
    hoodie_buf raw = HOODIE_BUF_INIT, out = HOODIE_BUF_INIT;
    hoodie_props p = HOODIE_PROPS_INIT;
    snprintf(path, sizeof path, "%s/.hoodie/hoodie.properties",
             hoodie_fixture("hudi/tables/mdt_basic_mor_avro_v8_nonpartitioned"));
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), path, &raw));
    hoodie_assert_ok(hoodie_props_parse(&p, raw.data, raw.len, path));
    /* "#Updated at 2026-01-01T05:43:25.991683Z" / "#Thu Jan 01 05:43:25 UTC 2026" */
    hoodie_assert_ok(hoodie_props_store(&p, &out, "Updated at 2026-01-01T05:43:25.991683Z", 1767246205991LL));
    hoodie_assert_equal_i(raw.len, out.len);
    hoodie_assert(memcmp(raw.data, out.data, raw.len) == 0);
    hoodie_props_dispose(&p);
    hoodie_buf_dispose(&raw);
    hoodie_buf_dispose(&out);
}
