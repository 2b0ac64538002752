/*
 * Fuzz the table's own metadata readers. The first byte picks what the rest is:
 *   0: a .properties file: parsed, stored as Java's Properties.store writes it, parsed again: the same entries;
 *   1: hoodie.properties: the table config (checksum checked, and not);
 *   2: commit metadata (JSON or Avro), 3: rollback metadata, 4: clean metadata;
 *   5: file names, one per line: timeline instant file names and data file names.
 * None may crash, leak or fail without a message.
 */
#include "format/props.h"
#include "table/commit_meta.h"
#include "table/config.h"
#include "table/file_name.h"
#include "table/instant.h"
#include "util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) { fprintf(stderr, "fuzz_table_meta: %s: %s\n", what, hoodie_error__message()); abort(); }
}

static void failed(hoodie_status rc)
{
    if (rc < 0) check(hoodie_error__message()[0] != '\0', "a failure without a message");
}

static void props_round_trip(const uint8_t *p, size_t n)
{
    hoodie_props a = HOODIE_PROPS_INIT, b = HOODIE_PROPS_INIT;
    hoodie_status rc = hoodie_props_parse(&a, p, n, "fuzz.properties");
    failed(rc);
    if (rc == HOODIE_OK) {
        hoodie_buf out = HOODIE_BUF_INIT;
        check(hoodie_props_store(&a, &out, "Updated at 2026-01-01T00:00:00Z", 0) == HOODIE_OK, "store");
        check(hoodie_props_parse(&b, out.data, out.len, "stored.properties") == HOODIE_OK, "parse of the stored");
        check(a.count == b.count, "stored entries differ in number");
        for (size_t i = 0; i < a.count; i++) {
            check(!strcmp(a.entries[i].key, b.entries[i].key), "a stored key differs");
            check(!strcmp(a.entries[i].value, b.entries[i].value), "a stored value differs");
        }
        hoodie_buf_dispose(&out);
    }
    hoodie_props_dispose(&a);
    hoodie_props_dispose(&b);
}

static void names(const uint8_t *p, size_t n)
{
    char line[512];
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && p[i] != '\n') continue;
        size_t len = i - start < sizeof line - 1 ? i - start : sizeof line - 1;
        memcpy(line, p + start, len);
        line[len] = '\0';
        start = i + 1;
        hoodie_instant inst;
        if (hoodie_instant_parse(&inst, line) == HOODIE_OK) {
            char back[256];
            for (int layout = 1; layout <= 2; layout++) {
                hoodie_status rc = hoodie_instant_file_name(&inst, inst.state, layout, back, sizeof back);
                failed(rc);
                hoodie_instant again;
                if (rc != HOODIE_OK) continue;
                check(hoodie_instant_parse(&again, back) == HOODIE_OK, "an instant's own file name does not parse");
                check(!strcmp(again.requested, inst.requested) && again.state == inst.state &&
                          again.action == inst.action,
                      "an instant's own file name parses as another instant");
            }
        }
        hoodie_file_name fn;
        (void)hoodie_file_name_parse(&fn, line);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    switch (data[0] % 6) {
    case 0: props_round_trip(p, n); break;
    case 1:
        for (unsigned flags = 0; flags < 2; flags++) {
            hoodie_table_config *c = NULL;
            hoodie_status rc = hoodie_table_config_parse(&c, p, n, "hoodie.properties", flags);
            failed(rc);
            hoodie_table_config_free(c);
        }
        break;
    /* a decoder of timeline metadata: it succeeds or says why, and frees what it made */
#define DECODE(type, decode, free_fn, what)                                                                         \
    do { type *m = NULL; failed(decode(&m, p, n, what)); free_fn(m); } while (0)
    case 2: DECODE(hoodie_commit_meta, hoodie_commit_meta_decode, hoodie_commit_meta_free, "fuzz.commit"); break;
    case 3: DECODE(hoodie_rollback_meta, hoodie_rollback_meta_decode, hoodie_rollback_meta_free, "fuzz.rb"); break;
    case 4: DECODE(hoodie_clean_meta, hoodie_clean_meta_decode, hoodie_clean_meta_free, "fuzz.clean"); break;
#undef DECODE
    default: names(p, n); break;
    }
    return 0;
}
