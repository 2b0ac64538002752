/*
 * Fuzz the schema-on-read history parser (table/evo.h): a .schemacommit file or a latest_schema as read from
 * storage. A history that parses answers the renames between every pair of its versions (as of each version, for
 * files of each version and of instants around them) and takes an ALTER (a rename, a drop, an add) on top, and
 * nested ones (fields of records by path, an array's element and a map's value widened, retyped to decimals and
 * text), and writes itself out
 * again whole (what a write that keeps the schema persists).
 */
#include "table/evo.h"
#include "util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The changes on top of e: when they take, a history that parses back with one more version. */
static void check_alter(const hoodie_evo *e, const hoodie_evo_change *ch, size_t n)
{
    char *latest = NULL, *history = NULL;
    if (hoodie_evo_alter(e, NULL, ch, n, "20250101000000000", &latest, &history) == HOODIE_OK) {
        hoodie_evo *again = NULL;
        if (hoodie_evo_parse(&again, history, strlen(history), "fuzz history") != HOODIE_OK) abort();
        if (hoodie_evo_count(again) != hoodie_evo_count(e) + 1) abort();
        hoodie_evo_free(again);
    }
    hoodie_error_clear();
    free(latest);
    free(history);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hoodie_evo *e = NULL;
    if (hoodie_evo_parse(&e, (const char *)data, size, "fuzz.schemacommit") != HOODIE_OK) {
        hoodie_error_clear();
        return 0;
    }
    /* the instants: "0", and around each version's id as the parser ordered them (through latest_json) */
    static const char *const probes[] = { "0", "1", "20240101000000000", "99999999999999999", NULL };
    for (size_t a = 0; a < 5; a++)
        for (size_t f = 0; f < 4; f++) {
            const hoodie_renames *r;
            if (hoodie_evo_renames(e, probes[a], probes[f], &r) == HOODIE_OK && r)
                for (size_t i = 0; i < r->n; i++)
                    if (!r->from[i] || !r->to[i]) abort();
            hoodie_error_clear();
        }
    if (!hoodie_evo_latest_json(e, NULL)) abort();
    hoodie_evo_change ch[] = { { HOODIE_EVO_RENAME, "a", "zz", NULL }, { HOODIE_EVO_DROP, "b", NULL, NULL },
                               { HOODIE_EVO_ADD, "new", "string", NULL } };
    check_alter(e, ch, 3);
    /* nested changes (records' fields by path, an array's element and a map's value retyped), each on its own */
    hoodie_field dbl, dec, str;
    hoodie_type dt = hoodie_type_of(HOODIE_TYPE_DECIMAL);
    dt.precision = 12;
    dt.scale = 3;
    if (hoodie_field_init(&dbl, "retyped", hoodie_type_of(HOODIE_TYPE_DOUBLE), 1) != HOODIE_OK ||
        hoodie_field_init(&dec, "retyped", dt, 1) != HOODIE_OK ||
        hoodie_field_init(&str, "retyped", hoodie_type_of(HOODIE_TYPE_STRING), 1) != HOODIE_OK)
        abort();
    hoodie_evo_change nested[] = { { HOODIE_EVO_RENAME, "s.x", "y", NULL }, { HOODIE_EVO_DROP, "s.y", NULL, NULL },
                                   { HOODIE_EVO_ADD, "s.n", "int", NULL }, { HOODIE_EVO_ADD, "a.element.q", "long", NULL },
                                   { HOODIE_EVO_DROP, "m.value.v", NULL, NULL },
                                   { HOODIE_EVO_RETYPE, "a.element", NULL, &dbl },
                                   { HOODIE_EVO_RETYPE, "m.value", NULL, &dbl }, { HOODIE_EVO_RETYPE, "s.x", NULL, &dbl },
                                   { HOODIE_EVO_RETYPE, "a", NULL, &dbl }, { HOODIE_EVO_RETYPE, "s.x", NULL, &dec },
                                   { HOODIE_EVO_RETYPE, "a.element", NULL, &str }, { HOODIE_EVO_RETYPE, "b", NULL, &dec } };
    for (size_t i = 0; i < sizeof nested / sizeof *nested; i++) check_alter(e, &nested[i], 1);
    hoodie_field_dispose(&dbl);
    hoodie_field_dispose(&dec);
    hoodie_field_dispose(&str);
    /* the history a write that keeps the schema persists: every version, parsed back as they were */
    char *same = hoodie_evo_history_json(e);
    if (!same) abort();
    hoodie_evo *again = NULL;
    if (hoodie_evo_parse(&again, same, strlen(same), "fuzz same history") != HOODIE_OK) abort();
    if (hoodie_evo_count(again) != hoodie_evo_count(e) || hoodie_evo_newest(again) != hoodie_evo_newest(e)) abort();
    hoodie_evo_free(again);
    free(same);
    hoodie_evo_free(e);
    return 0;
}
