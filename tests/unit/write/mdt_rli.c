/*
 * The record_index entries hoodie writes into a metadata table, against the ones Spark wrote in
 * mdt_basic_mor_avro_v8_nonpartitioned: entry bytes of its inserts' log blocks, and its compacted base HFiles.
 */
#include "hoodie_test.h"
#include "format/hfile/hfile.h"
#include "format/hlog/hlog.h"
#include "storage/storage.h"
#include "table/config.h"
#include "table/mdt.h"
#include "table/timeline.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "write/mdt.h"
#include "write/mdt_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPARK_MDT "hudi/tables/mdt_basic_mor_avro_v8_nonpartitioned"
#define RLI_DIR SPARK_MDT "/.hoodie/metadata/record_index/"

/* The entries of the first commit's log blocks (keys 1..5, groups 9, 0, 1, 2, 3): each value re-encoded from the
 * key's location gives Spark's bytes. */
HOODIE_TEST(write_mdt_rli__entries_as_spark_writes_them)
{
    static const char *const logs[] = { ".record-index-0000-0_20260101054316354.log.1_0-72-237",
                                        ".record-index-0001-0_20260101054316354.log.1_1-72-238",
                                        ".record-index-0002-0_20260101054316354.log.1_2-72-239",
                                        ".record-index-0003-0_20260101054316354.log.1_3-72-240",
                                        ".record-index-0009-0_20260101054316354.log.1_4-72-241" };
    hoodie_assert_equal_i(1767246196354LL == hoodie_write__instant_ms("20260101054316354", 1), 1);
    int cells = 0;
    for (size_t l = 0; l < sizeof logs / sizeof logs[0]; l++) {
        char rel[256];
        snprintf(rel, sizeof rel, RLI_DIR "%s", logs[l]);
        hoodie_buf b = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &b));
        hoodie_hlog_iter it;
        hoodie_assert_ok(hoodie_hlog_iter_init(&it, b.data, b.len, logs[l]));
        hoodie_hlog_block bl;
        hoodie_assert_ok(hoodie_hlog_iter_next(&it, &bl));
        hoodie_assert_equal_i(HOODIE_HLOG_HFILE_DATA_BLOCK, bl.type);
        hoodie_hfile *h;
        hoodie_assert_ok(hoodie_hfile_open(&h, bl.content, (size_t)bl.content_len, logs[l]));
        hoodie_hfile_iter hi;
        hoodie_hfile_iter_init(&hi, h);
        hoodie_hfile_kv kv;
        while (hoodie_hfile_next(&hi, &kv) == HOODIE_OK) {
            char key[32];
            snprintf(key, sizeof key, "%.*s", (int)kv.key_len, kv.key);
            hoodie_assert_equal_i((int)l == 4 ? 9 : (int)l, (int)hoodie_mdt_key_group(key, 10));
            hoodie_buf ri = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
            hoodie_assert_ok(hoodie_write__rli_info(&ri, "", "ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0",
                                                    hoodie_write__instant_ms("20260101054316354", 1)));
            hoodie_assert_ok(hoodie_write__rli_encode(&got, ri.data, ri.len, NULL));
            hoodie_assert_equal_i((int)kv.value_len, (int)got.len);
            hoodie_assert(!memcmp(kv.value, got.data, got.len));
            hoodie_buf_dispose(&ri);
            hoodie_buf_dispose(&got);
            cells++;
        }
        hoodie_hfile_iter_dispose(&hi);
        hoodie_hfile_free(h);
        hoodie_hlog_iter_dispose(&it);
        hoodie_buf_dispose(&b);
    }
    hoodie_assert_equal_i(5, cells);
}

/* A deleted key's entry: a DELETE_BLOCK (the instant and the records' schema in its header) of the key with
 * partition "record_index" and ordering value 0, as Spark's log of key 2's delete holds it byte for byte. */
HOODIE_TEST(write_mdt_rli__delete_block_as_spark_writes_it)
{
    const char *name = ".record-index-0000-0_20260101054332333.log.1_1-112-353";
    char rel[256];
    snprintf(rel, sizeof rel, RLI_DIR "%s", name);
    hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &want));
    hoodie_assert_ok(hoodie_write__rli_delete_block(&got, "20260101054332333", (const char *const[]){ "2" }, 1));
    hoodie_assert_equal_i((int)want.len, (int)got.len);
    hoodie_assert(!memcmp(want.data, got.data, want.len));
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&got);
}

/* Secondary index entries as Spark wrote them: a delete block of a removed key (Bob's, group 1), the value of an
 * entry in a log block (Diana's new name, group 0), a compacted base HFile (Alice's, group 9) byte for byte. */
#define SI_DIR SPARK_MDT "/.hoodie/metadata/secondary_index_name_idx/"
HOODIE_TEST(write_mdt_si__entries_as_spark_writes_them)
{
    char rel[256];
    hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
    snprintf(rel, sizeof rel, SI_DIR "%s", ".secondary-index-name-idx-0001-0_20260101054332333.log.1_0-112-352");
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &want));
    hoodie_assert_ok(hoodie_mdtw__delete_block(&got, "20260101054332333", "secondary_index_name_idx",
                                               (const char *const[]){ "Bob$2" }, 1));
    hoodie_assert_equal_i((int)want.len, (int)got.len);
    hoodie_assert(!memcmp(want.data, got.data, want.len));
    hoodie_assert_equal_i(1, (int)hoodie_mdt_key_group("Bob$2", 10));

    want.len = got.len = 0;
    snprintf(rel, sizeof rel, SI_DIR "%s", ".secondary-index-name-idx-0000-0_20260101054337037.log.1_1-175-534");
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &want));
    hoodie_hlog_iter it;
    hoodie_hlog_block bl;
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, want.data, want.len, rel));
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &bl));
    hoodie_hfile *h;
    hoodie_assert_ok(hoodie_hfile_open(&h, bl.content, (size_t)bl.content_len, rel));
    hoodie_hfile_iter hi;
    hoodie_hfile_iter_init(&hi, h);
    hoodie_hfile_kv kv;
    hoodie_assert_ok(hoodie_hfile_next(&hi, &kv));
    hoodie_assert_equal_i((int)strlen("Diana Updated$4"), (int)kv.key_len);
    hoodie_assert(!memcmp(kv.key, "Diana Updated$4", kv.key_len));
    hoodie_assert_equal_i(0, (int)hoodie_mdt_key_group("Diana Updated$4", 10));
    hoodie_assert_ok(hoodie_mdtw__si_encode(&got, 0, NULL));
    hoodie_assert_equal_i((int)kv.value_len, (int)got.len);
    hoodie_assert(!memcmp(kv.value, got.data, got.len));
    hoodie_hfile_iter_dispose(&hi);
    hoodie_hfile_free(h);
    hoodie_hlog_iter_dispose(&it);

    const char *base = "secondary-index-name-idx-0009-0_9-81-279_00000000000000003.hfile";
    want.len = got.len = 0;
    snprintf(rel, sizeof rel, SI_DIR "%s", base);
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &want));
    hoodie_buf schema = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_mdtw__schema_with_meta(&schema));
    int64_t recs;
    hoodie_assert_ok(hoodie_mdtw__build_si_hfile((const char *const[]){ "Alice$1" }, 1, &schema, base, &got, &recs));
    hoodie_assert_equal_i(1, (int)recs);
    hoodie_assert_equal_i((int)want.len, (int)got.len);
    hoodie_assert(!memcmp(want.data, got.data, want.len));
    hoodie_buf_dispose(&schema);
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&got);
}

/* The reference order of the record index's changes: file group, then key, then arrival. */
typedef struct ref_order {
    size_t group, i;
    const char *key;
} ref_order;

static int ref_order_cmp(const void *a, const void *b)
{
    const ref_order *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* A commit's changes ordered for the record index's logs (hoodie_mdtw__rli_by_group, then each group's
 * hoodie_mdtw__rli_group_refs: a prefix of the key compared first) come in the order a plain comparison sort
 * gives: keys sharing 8, 16 or more bytes, keys that are prefixes of others, keys of exactly 8 and 16 bytes,
 * repeated keys (their arrival order kept). */
HOODIE_TEST(write_mdt_rli__changes_sorted_by_group_key_arrival)
{
    enum { N = 6000, GROUPS = 7 };
    static const char *const stems[] = { "", "a", "customer", "customer_", "customer_0000000", "customer_00000001",
                                         "zz", "\xc3\xa9t\xc3\xa9", "2024-01-01 00:00:" };
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 65536));
    hoodie_rli_changes c = { calloc(N, sizeof(hoodie_rli_change)), N, N };
    hoodie_assert(c.v != NULL);
    uint32_t x = 12345;
    for (size_t i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        const char *stem = stems[(x >> 8) % (sizeof stems / sizeof *stems)];
        unsigned tail = (x >> 16) % 300; /* repeats: the same key arrives again */
        char *k = hoodie_arena_sprintf(a, (x >> 4) % 5 ? "%s%u" : "%s", stem, tail);
        hoodie_assert(k != NULL);
        if (!*k) k = hoodie_arena_strdup(a, "k");
        c.v[i] = (hoodie_rli_change){ k, (x >> 3) & 1 ? "p" : NULL, "f" };
    }
    uint32_t *idx;
    size_t *end;
    hoodie_assert_ok(hoodie_mdtw__rli_by_group(&c, GROUPS, &idx, &end));
    rli_ref *refs = calloc(N, sizeof *refs);
    hoodie_assert(refs != NULL);
    for (size_t g = 0, from = 0; g < GROUPS; from = end[g++]) {
        rli_ref *group = hoodie_mdtw__rli_group_refs(&c, idx + from, end[g] - from, g);
        hoodie_assert(group != NULL);
        memcpy(refs + from, group, (end[g] - from) * sizeof *refs);
        free(group);
    }
    free(idx);
    free(end);
    ref_order *want = calloc(N, sizeof *want);
    hoodie_assert(want != NULL);
    for (size_t i = 0; i < N; i++) want[i] = (ref_order){ hoodie_mdt_key_group(c.v[i].key, GROUPS), i, c.v[i].key };
    qsort(want, N, sizeof *want, ref_order_cmp);
    for (size_t i = 0; i < N; i++) {
        hoodie_assert_equal_i((long long)want[i].group, (long long)refs[i].group);
        hoodie_assert_equal_i((long long)want[i].i, (long long)refs[i].seq);
        hoodie_assert(refs[i].ch.key == c.v[want[i].i].key);
        if (i) /* same key: the prefix test agrees */
            hoodie_assert_equal_i(!strcmp(refs[i - 1].ch.key, refs[i].ch.key) && refs[i - 1].group == refs[i].group,
                                  hoodie_mdtw__rli_same_key(&refs[i - 1], &refs[i]) && refs[i - 1].group == refs[i].group);
    }
    free(want);
    free(refs);
    free(c.v);
    hoodie_arena_free(a);
}
