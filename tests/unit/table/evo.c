#include "hoodie_test.h"
#include "table/evo.h"
#include "util/error.h"

#include <stdlib.h>

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

/* History `h` parsed into *e: the renames of what was written at instant 1 read as of the newest version (n of
 * them). */
static const hoodie_renames *newest_renames(hoodie_evo **e, const char *h, size_t n)
{
    const hoodie_renames *r;
    hoodie_assert_ok(hoodie_evo_parse(e, h, strlen(h), "history"));
    hoodie_assert_ok(hoodie_evo_renames(*e, NULL, "1", &r));
    hoodie_assert(r != NULL);
    hoodie_assert_equal_i((int64_t)n, (int64_t)r->n);
    return r;
}

/* Fields of the records an array and a map hold, renamed or dropped: paths through "element" and "value", as
 * Hudi's full names go; an element dropped and added again (a new id) is refused. */
HOODIE_TEST(table_evo__array_and_map_field_renames)
{
    const char *h =
        "{\"schemas\":["
        "{\"version_id\":2,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"s\",\"optional\":true,\"type\":"
        "{\"type\":\"array\",\"element-id\":1,\"element_optional\":true,\"element\":{\"type\":\"record\",\"fields\":["
        "{\"id\":2,\"name\":\"y\",\"optional\":true,\"type\":\"int\"}]}}},"
        "{\"id\":3,\"name\":\"m\",\"optional\":true,\"type\":{\"type\":\"map\",\"key-id\":4,\"key\":\"string\","
        "\"value-id\":5,\"value_optional\":true,\"value\":{\"type\":\"record\",\"fields\":["
        "{\"id\":6,\"name\":\"b\",\"optional\":true,\"type\":\"int\"}]}}}]},"
        "{\"version_id\":1,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"s\",\"optional\":true,\"type\":"
        "{\"type\":\"array\",\"element-id\":1,\"element_optional\":true,\"element\":{\"type\":\"record\",\"fields\":["
        "{\"id\":2,\"name\":\"x\",\"optional\":true,\"type\":\"int\"}]}}},"
        "{\"id\":3,\"name\":\"m\",\"optional\":true,\"type\":{\"type\":\"map\",\"key-id\":4,\"key\":\"string\","
        "\"value-id\":5,\"value_optional\":true,\"value\":{\"type\":\"record\",\"fields\":["
        "{\"id\":6,\"name\":\"a\",\"optional\":true,\"type\":\"int\"},"
        "{\"id\":7,\"name\":\"c\",\"optional\":true,\"type\":\"int\"}]}}}]}]}";
    hoodie_evo *e;
    const hoodie_renames *r = newest_renames(&e, h, 3);
    hoodie_assert_equal_s("y", to_of(r, "s.element.x"));
    hoodie_assert_equal_s("b", to_of(r, "m.value.a"));
    hoodie_assert_equal_s("_hoodie_evo_dropped_7", to_of(r, "m.value.c"));
    hoodie_assert_ok(hoodie_evo_renames(e, "1", "1", &r));
    hoodie_evo_free(e);
    const char *readded =
        "{\"schemas\":["
        "{\"version_id\":2,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"s\",\"optional\":true,\"type\":"
        "{\"type\":\"array\",\"element-id\":3,\"element_optional\":true,\"element\":\"int\"}}]},"
        "{\"version_id\":1,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"s\",\"optional\":true,\"type\":"
        "{\"type\":\"array\",\"element-id\":1,\"element_optional\":true,\"element\":\"int\"}}]}]}";
    hoodie_assert_ok(hoodie_evo_parse(&e, readded, strlen(readded), "history"));
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_evo_renames(e, NULL, "1", &r));
    hoodie_assert_contains(hoodie_error__message(), "s.element was dropped and added again");
    hoodie_error_clear();
    hoodie_evo_free(e);
}

/* A struct's field renamed, another dropped: paths of the file's names, to the new name (records in records). */
HOODIE_TEST(table_evo__struct_field_renames)
{
    const char *h =
        "{\"schemas\":["
        "{\"version_id\":2,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"t\",\"optional\":true,\"type\":"
        "{\"type\":\"record\",\"fields\":[{\"id\":1,\"name\":\"in\",\"optional\":true,\"type\":{\"type\":\"record\","
        "\"fields\":[{\"id\":2,\"name\":\"y\",\"optional\":true,\"type\":\"int\"}]}}]}}]},"
        "{\"version_id\":1,\"type\":\"record\",\"fields\":[{\"id\":0,\"name\":\"s\",\"optional\":true,\"type\":"
        "{\"type\":\"record\",\"fields\":[{\"id\":1,\"name\":\"in\",\"optional\":true,\"type\":{\"type\":\"record\","
        "\"fields\":[{\"id\":2,\"name\":\"x\",\"optional\":true,\"type\":\"int\"},"
        "{\"id\":3,\"name\":\"z\",\"optional\":true,\"type\":\"int\"}]}}]}}]}]}";
    hoodie_evo *e;
    const hoodie_renames *r = newest_renames(&e, h, 3);
    hoodie_assert_equal_s("t", to_of(r, "s"));
    hoodie_assert_equal_s("y", to_of(r, "s.in.x"));
    hoodie_assert_equal_s("_hoodie_evo_dropped_3", to_of(r, "s.in.z"));
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

/* Version 0 numbered as AvroInternalSchemaConverter numbers it: a record's own fields first, then what they hold
 * (an array's element id, a map's key and value ids, then their types), in order; changes on top of it. */
HOODIE_TEST(table_evo__alter_numbering)
{
    hoodie_field root, f, s, x, l, e, m, ent, k, v;
    hoodie_assert_ok(hoodie_field_init(&root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&f, "id", hoodie_type_of(HOODIE_TYPE_INT64), 0));
    hoodie_assert_ok(hoodie_field_add_child(&root, &f));
    hoodie_field_dispose(&f);
    hoodie_assert_ok(hoodie_field_init(&s, "s", hoodie_type_of(HOODIE_TYPE_STRUCT), 1));
    hoodie_assert_ok(hoodie_field_init(&x, "x", hoodie_type_of(HOODIE_TYPE_INT32), 1));
    hoodie_assert_ok(hoodie_field_add_child(&s, &x));
    hoodie_field_dispose(&x);
    hoodie_assert_ok(hoodie_field_add_child(&root, &s));
    hoodie_field_dispose(&s);
    hoodie_assert_ok(hoodie_field_init(&l, "l", hoodie_type_of(HOODIE_TYPE_LIST), 1));
    hoodie_assert_ok(hoodie_field_init(&e, "element", hoodie_type_of(HOODIE_TYPE_STRING), 0));
    hoodie_assert_ok(hoodie_field_add_child(&l, &e));
    hoodie_field_dispose(&e);
    hoodie_assert_ok(hoodie_field_add_child(&root, &l));
    hoodie_field_dispose(&l);
    hoodie_assert_ok(hoodie_field_init(&m, "m", hoodie_type_of(HOODIE_TYPE_MAP), 1));
    hoodie_assert_ok(hoodie_field_init(&ent, "entries", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&k, "key", hoodie_type_of(HOODIE_TYPE_STRING), 0));
    hoodie_type dec = hoodie_type_of(HOODIE_TYPE_DECIMAL);
    dec.precision = 12;
    dec.scale = 3;
    hoodie_assert_ok(hoodie_field_init(&v, "value", dec, 1));
    hoodie_assert_ok(hoodie_field_add_child(&ent, &k));
    hoodie_assert_ok(hoodie_field_add_child(&ent, &v));
    hoodie_field_dispose(&k);
    hoodie_field_dispose(&v);
    hoodie_assert_ok(hoodie_field_add_child(&m, &ent));
    hoodie_field_dispose(&ent);
    hoodie_assert_ok(hoodie_field_add_child(&root, &m));
    hoodie_field_dispose(&m);

    char *latest, *history;
    hoodie_evo_change ch[] = { { HOODIE_EVO_RENAME, "l", "tags", NULL }, { HOODIE_EVO_DROP, "id", NULL, NULL },
                               { HOODIE_EVO_ADD, "id", "string", NULL } };
    hoodie_assert_ok(hoodie_evo_alter(NULL, &root, ch, 3, "20240101000000000", &latest, &history));
    hoodie_assert_equal_s(
        "{\"max_column_id\":8,\"version_id\":20240101000000000,\"type\":\"record\",\"fields\":["
        "{\"id\":1,\"name\":\"s\",\"optional\":true,\"type\":{\"type\":\"record\",\"fields\":["
        "{\"id\":4,\"name\":\"x\",\"optional\":true,\"type\":\"int\"}]}},"
        "{\"id\":2,\"name\":\"tags\",\"optional\":true,\"type\":{\"type\":\"array\",\"element-id\":5,"
        "\"element\":\"string\",\"element_optional\":false}},"
        "{\"id\":3,\"name\":\"m\",\"optional\":true,\"type\":{\"type\":\"map\",\"key-id\":6,\"key\":\"string\","
        "\"value-id\":7,\"value\":\"decimal(12, 3)\",\"value_optional\":true}},"
        "{\"id\":8,\"name\":\"id\",\"optional\":true,\"type\":\"string\"}]}",
        latest);
    /* the history: the new version, then version 0 (which still has id 0 "id" and "l") */
    hoodie_evo *e2;
    hoodie_assert_ok(hoodie_evo_parse(&e2, history, strlen(history), "history"));
    hoodie_assert_equal_i(2, hoodie_evo_count(e2));
    const hoodie_renames *r;
    hoodie_assert_ok(hoodie_evo_renames(e2, NULL, "20231231000000000", &r));
    hoodie_assert_equal_s("tags", to_of(r, "l"));
    hoodie_assert_equal_s("_hoodie_evo_dropped_0", to_of(r, "id"));
    /* on top of a history: the next id, the names taken and missing refused */
    /* a write's changes: a new column of a field's type (a struct: its own fields numbered after it), a widened one */
    hoodie_field wide, ns, nx;
    hoodie_assert_ok(hoodie_field_init(&wide, "id", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_assert_ok(hoodie_field_init(&ns, "n", hoodie_type_of(HOODIE_TYPE_STRUCT), 1));
    hoodie_assert_ok(hoodie_field_init(&nx, "q", hoodie_type_of(HOODIE_TYPE_FLOAT), 1));
    hoodie_assert_ok(hoodie_field_add_child(&ns, &nx));
    hoodie_field_dispose(&nx);
    hoodie_evo_change more[] = { { HOODIE_EVO_ADD, "z", "long", NULL }, { HOODIE_EVO_ADD, "n", NULL, &ns },
                                 { HOODIE_EVO_RETYPE, "id", NULL, &wide } };
    free(latest);
    free(history);
    hoodie_assert_ok(hoodie_evo_alter(e2, &root, more, 3, "20240102000000000", &latest, &history));
    hoodie_assert_contains(latest, "\"max_column_id\":11,\"version_id\":20240102000000000");
    hoodie_assert_contains(latest, "{\"id\":9,\"name\":\"z\",\"optional\":true,\"type\":\"long\"}");
    hoodie_assert_contains(latest, "{\"id\":10,\"name\":\"n\",\"optional\":true,\"type\":{\"type\":\"record\","
                                   "\"fields\":[{\"id\":11,\"name\":\"q\",\"optional\":true,\"type\":\"float\"}]}}");
    hoodie_assert_contains(latest, "{\"id\":8,\"name\":\"id\",\"optional\":true,\"type\":\"long\"}");
    hoodie_field_dispose(&wide);
    hoodie_field_dispose(&ns);
    hoodie_assert_contains(history, "\"version_id\":0,");
    free(latest);
    free(history);
    hoodie_evo_change taken[] = { { HOODIE_EVO_RENAME, "tags", "m", NULL } }, gone[] = { { HOODIE_EVO_DROP, "l", NULL, NULL } };
    hoodie_assert_status(HOODIE_EINVAL, hoodie_evo_alter(e2, &root, taken, 1, "20250101000000000", &latest, &history));
    hoodie_assert(latest == NULL && history == NULL);
    hoodie_assert_status(HOODIE_EINVAL, hoodie_evo_alter(e2, &root, gone, 1, "20250101000000000", &latest, &history));
    /* a version no newer than the newest one */
    hoodie_assert_status(HOODIE_ECONFLICT, hoodie_evo_alter(e2, &root, more, 1, "20240101000000000", &latest, &history));
    hoodie_error_clear();
    /* a struct's field renamed by its path (the same id); paths through what is no record, or to no field, and a
     * name taken are refused */
    hoodie_evo_change nested[] = { { HOODIE_EVO_RENAME, "s.x", "y", NULL } };
    hoodie_assert_ok(hoodie_evo_alter(e2, &root, nested, 1, "20250101000000000", &latest, &history));
    hoodie_assert_contains(latest, "{\"id\":1,\"name\":\"s\",\"optional\":true,\"type\":{\"type\":\"record\",\"fields\":["
                                   "{\"id\":4,\"name\":\"y\",\"optional\":true,\"type\":\"int\"}]}}");
    free(latest);
    free(history);
    static const char *const bad_paths[] = { "s.nope", "tags.element.x", "m.value.x", "m.entries.key", "s.x.y" };
    for (size_t i = 0; i < sizeof bad_paths / sizeof *bad_paths; i++) {
        hoodie_evo_change c[] = { { HOODIE_EVO_RENAME, bad_paths[i], "q", NULL } };
        hoodie_assert_status(HOODIE_EINVAL, hoodie_evo_alter(e2, &root, c, 1, "20250101000000000", &latest, &history));
        hoodie_assert_contains(hoodie_error__message(), bad_paths[i]);
    }
    hoodie_error_clear();
    /* a nested field added (the next id, at the end of its record, of a type or of a field's type) and dropped; the
     * only field of a record is not dropped, a field there is not added again, a path to no record is refused */
    hoodie_field nn;
    hoodie_assert_ok(hoodie_field_init(&nn, "w", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_evo_change add_drop[] = { { HOODIE_EVO_ADD, "s.q", "string", NULL }, { HOODIE_EVO_ADD, "s.r", NULL, &nn },
                                     { HOODIE_EVO_DROP, "s.x", NULL, NULL } };
    hoodie_assert_ok(hoodie_evo_alter(e2, &root, add_drop, 3, "20250101000000000", &latest, &history));
    hoodie_field_dispose(&nn);
    hoodie_assert_contains(latest, "\"max_column_id\":10,");
    hoodie_assert_contains(latest, "{\"id\":1,\"name\":\"s\",\"optional\":true,\"type\":{\"type\":\"record\",\"fields\":["
                                   "{\"id\":9,\"name\":\"q\",\"optional\":true,\"type\":\"string\"},"
                                   "{\"id\":10,\"name\":\"r\",\"optional\":true,\"type\":\"long\"}]}}");
    hoodie_evo *e3;
    hoodie_assert_ok(hoodie_evo_parse(&e3, history, strlen(history), "history"));
    free(latest);
    free(history);
    /* a file of version 20240101 read as of the new version: s.x (id 4) hidden */
    hoodie_assert_ok(hoodie_evo_renames(e3, NULL, "20240101000000000", &r));
    hoodie_assert(r != NULL);
    hoodie_assert_equal_s("_hoodie_evo_dropped_4", to_of(r, "s.x"));
    hoodie_evo_change only[] = { { HOODIE_EVO_DROP, "s.q", NULL, NULL }, { HOODIE_EVO_DROP, "s.r", NULL, NULL } },
                      again[] = { { HOODIE_EVO_ADD, "s.q", "int", NULL } },
                      nowhere[] = { { HOODIE_EVO_ADD, "z.q", "int", NULL } },
                      missing[] = { { HOODIE_EVO_DROP, "s.nope", NULL, NULL } };
    hoodie_assert_status(HOODIE_EINVAL, hoodie_evo_alter(e3, &root, only, 2, "20260101000000000", &latest, &history));
    hoodie_assert_contains(hoodie_error__message(), "only field of its record");
    hoodie_assert_status(HOODIE_EINVAL, hoodie_evo_alter(e3, &root, again, 1, "20260101000000000", &latest, &history));
    hoodie_assert_contains(hoodie_error__message(), "'s.q': it exists");
    hoodie_assert_status(HOODIE_EINVAL, hoodie_evo_alter(e3, &root, nowhere, 1, "20260101000000000", &latest, &history));
    hoodie_assert_contains(hoodie_error__message(), "no record holds 'z.q'");
    hoodie_assert_status(HOODIE_EINVAL, hoodie_evo_alter(e3, &root, missing, 1, "20260101000000000", &latest, &history));
    hoodie_assert_contains(hoodie_error__message(), "no nested field 's.nope' to drop");
    hoodie_assert(latest == NULL && history == NULL);
    hoodie_error_clear();
    /* a map's value and an array's element retyped in place (their ids stay); a path to neither is refused */
    hoodie_field dbl;
    hoodie_assert_ok(hoodie_field_init(&dbl, "retyped", hoodie_type_of(HOODIE_TYPE_DOUBLE), 1));
    hoodie_evo_change items[] = { { HOODIE_EVO_RETYPE, "m.value", "double", &dbl },
                                  { HOODIE_EVO_RETYPE, "tags.element", "double", &dbl } };
    hoodie_assert_ok(hoodie_evo_alter(e3, &root, items, 2, "20260101000000000", &latest, &history));
    hoodie_assert_contains(latest, "\"value-id\":7,\"value\":\"double\"");
    hoodie_assert_contains(latest, "\"element-id\":5,\"element\":\"double\"");
    hoodie_assert_contains(latest, "\"max_column_id\":10,");
    free(latest);
    free(history);
    hoodie_evo_change not_items[] = { { HOODIE_EVO_RETYPE, "s.element", "double", &dbl } };
    hoodie_assert_status(HOODIE_EINVAL, hoodie_evo_alter(e3, &root, not_items, 1, "20260101000000000", &latest, &history));
    hoodie_assert_contains(hoodie_error__message(), "s.element");
    /* a record's field named "value" is a field (not a map's value) */
    hoodie_evo_change add_value[] = { { HOODIE_EVO_ADD, "s.value", "int", NULL } },
                      widen_value[] = { { HOODIE_EVO_RETYPE, "s.value", "double", &dbl } };
    hoodie_assert_ok(hoodie_evo_alter(e3, &root, add_value, 1, "20260101000000000", &latest, &history));
    hoodie_evo *e4;
    hoodie_assert_ok(hoodie_evo_parse(&e4, history, strlen(history), "history"));
    free(latest);
    free(history);
    hoodie_assert_ok(hoodie_evo_alter(e4, &root, widen_value, 1, "20260102000000000", &latest, &history));
    hoodie_assert_contains(latest, "{\"id\":11,\"name\":\"value\",\"optional\":true,\"type\":\"double\"}");
    free(latest);
    free(history);
    hoodie_evo_free(e4);
    hoodie_field_dispose(&dbl);
    hoodie_error_clear();
    hoodie_evo_free(e3);
    hoodie_evo_free(e2);
    hoodie_field_dispose(&root);
}
