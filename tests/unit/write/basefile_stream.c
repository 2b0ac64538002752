/* Streamed base files: the footer's key index (bloom filter, min/max keys) as Hudi expects it, also when it is
 * continued from an earlier file's index (compaction keeping every base record in place). */
#include "hoodie_test.h"
#include "format/bloom.h"
#include "hoodie/parquet.h"
#include "model/build.h"
#include "storage/storage.h"
#include "write/basefile_stream.h"
#include "model/avro_schema_gen.h"
#include "write/wschema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bs_schema(hoodie_field *data, hoodie_field *file)
{
    hoodie_field c;
    hoodie_assert_ok(hoodie_field_init(data, "r", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&c, "v", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_assert_ok(hoodie_field_add_child(data, &c));
    hoodie_field_dispose(&c);
    hoodie_assert_ok(hoodie_field_with_meta(file, data));
}

/* Rows [from, to) as file records (key "k<i*37 % 10007>"), in batches of `per` rows, into the stream. */
static void bs_write(hoodie_basefile_stream *s, const hoodie_field *file, int from, int to, int per)
{
    char key[32];
    for (int b0 = from; b0 < to; b0 += per) {
        hoodie_batch b;
        hoodie_assert_ok(hoodie_batch_init(&b, file));
        int n = to - b0 < per ? to - b0 : per;
        for (int i = b0; i < b0 + n; i++) {
            snprintf(key, sizeof key, "k%05d", i * 37 % 10007);
            for (int c = 0; c < 5; c++)
                hoodie_assert_ok(hoodie_array_append_str(&b.root.children[c], &b.schema.children[c], c == 2 ? key : "m"));
            hoodie_assert_ok(hoodie_array_append_int(&b.root.children[5], &b.schema.children[5], i));
        }
        b.root.length = n;
        hoodie_assert_ok(hoodie_basefile_stream_write(s, &b));
        hoodie_batch_dispose(&b);
    }
}

static void bs_index(const hoodie_storage *mem, const char *path, char **kv)
{
    static const char *const keys[4] = { "org.apache.hudi.bloomfilter", "hoodie_bloom_filter_type_code",
                                         "hoodie_min_record_key", "hoodie_max_record_key" };
    hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
    ro.storage = mem;
    hoodie_parquet_reader *r;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, path, &ro));
    for (int i = 0; i < 4; i++) kv[i] = strdup(hoodie_parquet_reader_kv(r, keys[i]));
    hoodie_parquet_reader_free(r);
}

/* base: rows [0, n); then a file of rows [0, total) seeded with base's index equals the same file built whole,
 * whatever the batch boundaries; a seed from another key sequence's index (n + 1 keys claimed) is not used. */
static void seed_case(int entries, int n, int total, int per)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    hoodie_field data, file;
    bs_schema(&data, &file);
    const char *paths[3] = { "/t/base.parquet", "/t/whole.parquet", "/t/seeded.parquet" };
    char *kv[3][4];
    for (int f = 0; f < 3; f++) {
        hoodie_basefile_opts bo = { mem, paths[f], &file, "{}", HOODIE_PARQUET_CODEC_SNAPPY, 0, entries,
                                    NULL, NULL, NULL, NULL, 0, NULL, 0 };
        hoodie_basefile_stream *s;
        hoodie_assert_ok(hoodie_basefile_stream_open(&s, &bo, 0, 0, 0));
        if (f == 2) hoodie_assert_ok(hoodie_basefile_stream_seed(s, kv[0][0], kv[0][1], kv[0][2], kv[0][3], n));
        bs_write(s, &file, 0, f == 0 ? n : total, per);
        hoodie_assert_ok(hoodie_basefile_stream_close(s, NULL, NULL));
        hoodie_basefile_stream_free(s);
        bs_index(mem, paths[f], kv[f]);
    }
    for (int i = 0; i < 4; i++) hoodie_assert_equal_s(kv[1][i], kv[2][i]);
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < 4; i++) free(kv[f][i]);
    hoodie_field_dispose(&data);
    hoodie_field_dispose(&file);
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_basefile_stream__seeded_index_equals_whole)
{
    seed_case(10, 0, 5, 3);       /* an empty base */
    seed_case(10, 7, 7, 3);       /* the same keys only */
    seed_case(10, 7, 40, 3);      /* more keys after, the boundary inside a batch */
    seed_case(10, 50, 300, 64);   /* the base past the entry bound (100000 is the floor: not reached here) */
    seed_case(100, 250, 1000, 97);
}
