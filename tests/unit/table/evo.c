#include "hoodie_test.h"
#include "table/evo.h"
#include "util/error.h"

/* Versions 0 (a, b, s{x}), 20240101000000000 (a and b swapped by name, c added), 20240201000000000 (b dropped,
 * b added again as id 5), as InternalSchema histories are written: newest first. */
static const char *HISTORY =
    "{\"schemas\":["
    "{\"max_column_id\":5,\"version_id\":20240201000000000,\"type\":\"record\",\"fields\":["
    "{\"id\":0,\"name\":\"k\",\"optional\":false,\"type\":\"string\"},"
    "{\"id\":1,\"name\":\"b\",\"optional\":true,\"type\":\"long\"},"
    "{\"id\":3,\"name\":\"s\",\"optional\":true,\"type\":{\"type\":\"record\",\"fields\":["
    "{\"id\":4,\"name\":\"x\",\"optional\":true,\"type\":\"int\"}]}},"
    "{\"id\":5,\"name\":\"a\",\"optional\":true,\"type\":\"string\"}]},"
    "{\"max_column_id\":4,\"version_id\":20240101000000000,\"type\":\"record\",\"fields\":["
    "{\"id\":0,\"name\":\"k\",\"optional\":false,\"type\":\"string\"},"
    "{\"id\":1,\"name\":\"b\",\"optional\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"a\",\"optional\":true,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"s\",\"optional\":true,\"type\":{\"type\":\"record\",\"fields\":["
    "{\"id\":4,\"name\":\"x\",\"optional\":true,\"type\":\"int\"}]}}]},"
    "{\"max_column_id\":4,\"version_id\":0,\"type\":\"record\",\"fields\":["
    "{\"id\":0,\"name\":\"k\",\"optional\":false,\"type\":\"string\"},"
    "{\"id\":1,\"name\":\"a\",\"optional\":true,\"type\":\"int\"},"
    "{\"id\":2,\"name\":\"b\",\"optional\":true,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"s\",\"optional\":true,\"type\":{\"type\":\"record\",\"fields\":["
    "{\"id\":4,\"name\":\"x\",\"optional\":true,\"type\":\"int\"}]}}]}"
    "]}";

static const char *to_of(const hoodie_renames *r, const char *from)
{
    for (size_t i = 0; r && i < r->n; i++)
        if (!strcmp(r->from[i], from)) return r->to[i];
    return NULL;
}

HOODIE_TEST(table_evo__renames_by_id)
{
    hoodie_evo *e;
    hoodie_assert_ok(hoodie_evo_parse(&e, HISTORY, strlen(HISTORY), "history"));
    hoodie_assert_equal_i(3, hoodie_evo_count(e));
    const hoodie_renames *r;
    /* a file older than the history has the first version's columns: a and b swapped, as of the second */
    hoodie_assert_ok(hoodie_evo_renames(e, "20240115000000000", "20231231000000000", &r));
    hoodie_assert(r != NULL);
    hoodie_assert_equal_i(2, r->n);
    hoodie_assert_equal_s("b", to_of(r, "a"));
    hoodie_assert_equal_s("a", to_of(r, "b"));
    /* as of the newest: version 0's b (id 2) was dropped, its a (id 1) is now b; the new a (id 5) is not in it */
    hoodie_assert_ok(hoodie_evo_renames(e, NULL, "20231231000000000", &r));
    hoodie_assert_equal_s("b", to_of(r, "a"));
    hoodie_assert_equal_s("_hoodie_evo_dropped_2", to_of(r, "b"));
    hoodie_assert(to_of(r, "k") == NULL && to_of(r, "s") == NULL);
    /* the second version's file as of the newest: its a (id 2) is hidden, its b (id 1) stays b */
    hoodie_assert_ok(hoodie_evo_renames(e, NULL, "20240101000000000", &r));
    hoodie_assert_equal_i(1, r->n);
    hoodie_assert_equal_s("_hoodie_evo_dropped_2", to_of(r, "a"));
    /* same version: nothing; no history: nothing */
    hoodie_assert_ok(hoodie_evo_renames(e, NULL, "20240301000000000", &r));
    hoodie_assert(r == NULL);
    hoodie_assert_ok(hoodie_evo_renames(e, "20240115000000000", "20240101000000001", &r));
    hoodie_assert(r == NULL);
    hoodie_assert_ok(hoodie_evo_renames(NULL, NULL, "20240101000000000", &r));
    hoodie_assert(r == NULL);
    /* a base file by its name */
    hoodie_assert_ok(hoodie_evo_file_renames(e, NULL, "p=1/f-0_0-1-0_20240101000000000.parquet", &r));
    hoodie_assert_equal_s("_hoodie_evo_dropped_2", to_of(r, "a"));
    /* the version in effect, as commit metadata carries it */
    hoodie_assert_contains(hoodie_evo_latest_json(e, NULL), "\"version_id\":20240201000000000");
    hoodie_assert_contains(hoodie_evo_latest_json(e, "20240115000000000"), "\"version_id\":20240101000000000");
    hoodie_evo_free(e);
}

HOODIE_TEST(table_evo__nested_rename_refused)
{
    const char *h =
        "{\"schemas\":["
        "{\"version_id\":2,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"s\",\"optional\":true,\"type\":"
        "{\"type\":\"array\",\"element-id\":1,\"element_optional\":true,\"element\":{\"type\":\"record\",\"fields\":["
        "{\"id\":2,\"name\":\"y\",\"optional\":true,\"type\":\"int\"}]}}}]},"
        "{\"version_id\":1,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"s\",\"optional\":true,\"type\":"
        "{\"type\":\"array\",\"element-id\":1,\"element_optional\":true,\"element\":{\"type\":\"record\",\"fields\":["
        "{\"id\":2,\"name\":\"x\",\"optional\":true,\"type\":\"int\"}]}}}]}]}";
    hoodie_evo *e;
    hoodie_assert_ok(hoodie_evo_parse(&e, h, strlen(h), "history"));
    const hoodie_renames *r;
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_evo_renames(e, NULL, "1", &r));
    hoodie_assert_contains(hoodie_error__message(), "s.element.x (id 2) reads as s.element.y");
    hoodie_error_clear();
    hoodie_assert_ok(hoodie_evo_renames(e, "1", "1", &r));
    hoodie_evo_free(e);
}

HOODIE_TEST(table_evo__corrupt)
{
    static const char *bad[] = {
        "{\"schemas\":[",
        "{\"schemas\":[]}",
        "{\"schemas\":{}}",
        "{\"schemas\":[{\"type\":\"record\",\"fields\":[]}]}",
        "{\"schemas\":[{\"version_id\":1,\"type\":\"record\",\"fields\":[{\"id\":\"0\",\"name\":\"a\",\"type\":\"int\"}]}]}",
        "{\"schemas\":[{\"version_id\":1,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":{\"type\":\"set\"}}]}]}",
        "{\"schemas\":[{\"version_id\":1,\"type\":\"array\",\"element-id\":1,\"element\":\"int\"}]}",
        "{\"schemas\":[{\"version_id\":1,\"type\":\"record\",\"fields\":[]},{\"version_id\":1,\"type\":\"record\",\"fields\":[]}]}",
        "{\"version_id\":1,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"m\",\"type\":{\"type\":\"map\",\"key-id\":1,\"key\":\"string\"}}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        hoodie_evo *e = (hoodie_evo *)1;
        hoodie_assert_status(HOODIE_ECORRUPT, hoodie_evo_parse(&e, bad[i], strlen(bad[i]), "h.schemacommit"));
        hoodie_assert(e == NULL);
        hoodie_assert_contains(hoodie_error__message(), "h.schemacommit");
        hoodie_error_clear();
    }
    /* one version alone (a commit's latest_schema) parses */
    const char *one = "{\"max_column_id\":0,\"version_id\":7,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"a\","
                      "\"optional\":true,\"type\":\"int\"}]}";
    hoodie_evo *e;
    hoodie_assert_ok(hoodie_evo_parse(&e, one, strlen(one), "latest_schema"));
    hoodie_assert_equal_i(1, hoodie_evo_count(e));
    hoodie_evo_free(e);
}
