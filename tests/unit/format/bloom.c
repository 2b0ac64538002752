#include "hoodie_test.h"
#include "format/bloom.h"
#include "util/base64.h"

#include <stdio.h>
#include <stdlib.h>

HOODIE_TEST(format_bloom__hudi_default_sizing)
{
    hoodie_bloom b;
    hoodie_assert_ok(hoodie_bloom_init(&b, HOODIE_BLOOM_DYNAMIC_V0, 60000, 1e-9, 100000));
    /* the figures decoded from real Spark-written base files (hudi-format.md 10.2) */
    hoodie_assert_equal_i(2587966, b.vector_size);
    hoodie_assert_equal_i(30, b.nb_hash);
    hoodie_buf raw = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_bloom_serialize(&b, &raw));
    hoodie_assert_equal_i(13 + 12 + 13 + 323496, raw.len);
    hoodie_buf b64 = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_base64_encode(raw.data, raw.len, &b64));
    hoodie_assert_equal_i(431380, b64.len);
    hoodie_buf_dispose(&raw);
    hoodie_buf_dispose(&b64);
    hoodie_bloom_dispose(&b);
}

HOODIE_TEST(format_bloom__roundtrip_no_false_negatives)
{
    hoodie_bloom b, c;
    char key[32];
    hoodie_assert_ok(hoodie_bloom_init(&b, HOODIE_BLOOM_DYNAMIC_V0, 1000, 1e-6, 3000));
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "key-%d-\xc3\xa9", i); /* non-ASCII tail exercises sign extension */
        hoodie_assert_ok(hoodie_bloom_add(&b, key, (size_t)n));
    }
    hoodie_assert_equal_i(3, b.rows); /* bounded: 3 rows of 1000, then round-robin */
    hoodie_buf text = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_bloom_to_base64(&b, &text));
    hoodie_assert_ok(hoodie_bloom_from_base64(&c, (const char *)text.data, text.len, "DYNAMIC_V0", "t"));
    hoodie_assert_equal_i(b.rows, c.rows);
    int fp = 0;
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "key-%d-\xc3\xa9", i);
        hoodie_assert(hoodie_bloom_test(&c, key, (size_t)n));
        n = snprintf(key, sizeof key, "other-%d", i);
        fp += hoodie_bloom_test(&c, key, (size_t)n);
    }
    hoodie_assert(fp < 250); /* overfilled rows, but far from saturated */
    hoodie_buf again = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_bloom_to_base64(&c, &again));
    hoodie_assert_equal_i(text.len, again.len);
    hoodie_assert(memcmp(text.data, again.data, text.len) == 0);
    hoodie_buf_dispose(&text);
    hoodie_buf_dispose(&again);
    hoodie_bloom_dispose(&b);
    hoodie_bloom_dispose(&c);
}

HOODIE_TEST(format_bloom__corrupt_input_is_an_error)
{
    hoodie_bloom b;
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_bloom_from_base64(&b, "AAAA", 4, "SIMPLE", "f.parquet"));
    hoodie_assert_contains(hoodie_error_last()->message, "f.parquet");
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_bloom_from_base64(&b, "/////wAAAB4BACd9PgAA", 20, "DYNAMIC_V0", "f"));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_bloom_from_base64(&b, "!!!!", 4, "SIMPLE", "f"));
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_bloom_from_base64(&b, "AAAA", 4, "WHAT", "f"));
}

HOODIE_TEST(util_base64__vectors)
{
    static const char *in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
    static const char *out[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
    for (int i = 0; i < 7; i++) {
        hoodie_buf b = HOODIE_BUF_INIT, d = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_base64_encode((const uint8_t *)in[i], strlen(in[i]), &b));
        hoodie_assert_ok(hoodie_buf_cstr(&b));
        hoodie_assert_equal_s(out[i], b.len ? (const char *)b.data : "");
        hoodie_assert_ok(hoodie_base64_decode(out[i], strlen(out[i]), &d));
        hoodie_assert_equal_i(strlen(in[i]), d.len);
        hoodie_assert(d.len == 0 || memcmp(d.data, in[i], d.len) == 0);
        hoodie_buf_dispose(&b);
        hoodie_buf_dispose(&d);
    }
}

#include "hoodie/parquet.h"
#include "model/batch.h"
#include "table/pqfile.h"

/* Rebuild the bloom filter of a Spark-written base file from its keys: the bytes must be identical. */
HOODIE_TEST(format_bloom__rebuilt_filter_is_byte_identical_to_spark)
{
    const char *path = hoodie_fixture("hudi/tables/cow_v8_nonpartitioned/"
                                      "2746610d-ad02-4adb-a038-5cbb99cbd455-0_0-75-100_20250713010536861.parquet");
    static const char *const cols[] = { "_hoodie_record_key" };
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    o.columns = cols;
    o.n_columns = 1;
    hoodie_parquet_reader *r;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, path, &o));
    const char *footer = hoodie_parquet_reader_kv(r, "org.apache.hudi.bloomfilter");
    hoodie_assert(footer != NULL);
    hoodie_assert_equal_s("DYNAMIC_V0", hoodie_parquet_reader_kv(r, "hoodie_bloom_filter_type_code"));
    hoodie_bloom b;
    hoodie_assert_ok(hoodie_bloom_init(&b, HOODIE_BLOOM_DYNAMIC_V0, 60000, 1e-9, 100000));
    hoodie_pq_scan *s;
    hoodie_batch batch;
    hoodie_assert_ok(hoodie_pqfile__scan_open(r, &s));
    int keys = 0;
    while (hoodie_pq_scan_next(s, &batch) == HOODIE_OK) {
        const hoodie_array *k = &batch.root.children[0];
        for (int64_t i = 0; i < k->length; i++, keys++)
            hoodie_assert_ok(hoodie_bloom_add(&b, k->values + k->offsets[i], (size_t)(k->offsets[i + 1] - k->offsets[i])));
        hoodie_batch_dispose(&batch);
    }
    hoodie_pq_scan_free(s);
    hoodie_assert_equal_i(4, keys);
    hoodie_buf text = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_bloom_to_base64(&b, &text));
    hoodie_assert_equal_i(strlen(footer), text.len);
    hoodie_assert(memcmp(footer, text.data, text.len) == 0);
    /* and the parsed footer filter answers for those keys */
    hoodie_bloom parsed;
    hoodie_assert_ok(hoodie_bloom_from_base64(&parsed, footer, strlen(footer), "DYNAMIC_V0", path));
    hoodie_assert(hoodie_bloom_test(&parsed, "3", 1));
    hoodie_assert(!hoodie_bloom_test(&parsed, "no-such-key", 11));
    hoodie_bloom_dispose(&parsed);
    hoodie_buf_dispose(&text);
    hoodie_bloom_dispose(&b);
    hoodie_parquet_reader_free(r);
}

/* ---- tests on the Base64 text (hoodie_bloom_text) against the decoded filter ---- */

static void text_agrees(hoodie_bloom_type type, int32_t entries, int32_t max_entries, int n_keys, int *rem_seen)
{
    hoodie_bloom b, d;
    char key[32];
    hoodie_assert_ok(hoodie_bloom_init(&b, type, entries, 1e-4, max_entries));
    for (int i = 0; i < n_keys; i++) {
        int l = snprintf(key, sizeof key, "key-%d", i * 7);
        hoodie_assert_ok(hoodie_bloom_add(&b, key, (size_t)l));
    }
    hoodie_buf raw = HOODIE_BUF_INIT, text = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_bloom_serialize(&b, &raw));
    rem_seen[raw.len % 3] = 1;
    hoodie_assert_ok(hoodie_bloom_to_base64(&b, &text));
    const char *code = type == HOODIE_BLOOM_SIMPLE ? "SIMPLE" : "DYNAMIC_V0";
    hoodie_assert_ok(hoodie_bloom_from_base64(&d, (const char *)text.data, text.len, code, "t"));
    hoodie_bloom_text t;
    hoodie_assert_ok(hoodie_bloom_text_open(&t, (const char *)text.data, text.len, code, "t"));
    hoodie_assert_equal_i(d.rows, t.rows);
    int maybe = 0;
    for (int j = 0; j < 7 * n_keys; j++) { /* every 7th is present, the others mostly absent */
        int l = snprintf(key, sizeof key, "key-%d", j);
        int want = hoodie_bloom_test(&d, key, (size_t)l);
        int got = hoodie_bloom_text_test(&t, key, (size_t)l);
        hoodie_assert_equal_i(want, got);
        if (j % 7 == 0) hoodie_assert_equal_i(1, got);
        maybe += got;
    }
    hoodie_assert(maybe >= n_keys && maybe < 2 * n_keys);
    hoodie_bloom_dispose(&d);
    hoodie_bloom_dispose(&b);
    hoodie_buf_dispose(&raw);
    hoodie_buf_dispose(&text);
}

HOODIE_TEST(format_bloom__text_tests_agree_with_the_decoded_filter)
{
    int rem_seen[3] = { 0, 0, 0 };
    /* SIMPLE and DYNAMIC_V0 of one, several and the round-robin rows; sizes giving each length mod 3 */
    for (int32_t e = 100; e < 106; e++) text_agrees(HOODIE_BLOOM_SIMPLE, e, e, 80, rem_seen);
    text_agrees(HOODIE_BLOOM_DYNAMIC_V0, 300, 1000, 200, rem_seen);
    text_agrees(HOODIE_BLOOM_DYNAMIC_V0, 300, 1000, 950, rem_seen);
    text_agrees(HOODIE_BLOOM_DYNAMIC_V0, 300, 900, 2000, rem_seen);
    hoodie_assert(rem_seen[0] && rem_seen[1] && rem_seen[2]);

    /* a Spark-written footer */
    const char *path = hoodie_fixture("hudi/tables/cow_v8_nonpartitioned/"
                                      "2746610d-ad02-4adb-a038-5cbb99cbd455-0_0-75-100_20250713010536861.parquet");
    hoodie_parquet_reader *r;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, path, NULL));
    const char *footer = hoodie_parquet_reader_kv(r, "org.apache.hudi.bloomfilter");
    hoodie_bloom_text t;
    hoodie_assert_ok(hoodie_bloom_text_open(&t, footer, strlen(footer), "DYNAMIC_V0", path));
    hoodie_assert_equal_i(30, t.nb_hash);
    hoodie_assert_equal_i(2587966, t.vector_size);
    hoodie_assert_equal_i(1, hoodie_bloom_text_test(&t, "3", 1));
    hoodie_assert_equal_i(0, hoodie_bloom_text_test(&t, "no-such-key", 11));
    hoodie_parquet_reader_free(r);
}

HOODIE_TEST(format_bloom__text_layouts_it_leaves_to_the_decoder)
{
    hoodie_bloom b;
    hoodie_assert_ok(hoodie_bloom_init(&b, HOODIE_BLOOM_SIMPLE, 100, 1e-4, 100));
    hoodie_assert_ok(hoodie_bloom_add(&b, "a", 1));
    hoodie_buf text = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_bloom_to_base64(&b, &text));
    const char *s = (const char *)text.data;
    size_t n = text.len;
    hoodie_bloom_text t;
    hoodie_assert_ok(hoodie_bloom_text_open(&t, s, n, "SIMPLE", "t"));
    hoodie_assert_ok(hoodie_bloom_text_open(&t, s, n, NULL, "t")); /* no type code: SIMPLE */
    /* not laid out as Java writes it, or not this type: HOODIE_EINVAL, for the decoder to read or refuse */
    hoodie_assert_status(HOODIE_EINVAL, hoodie_bloom_text_open(&t, s, n, "DYNAMIC_V0", "t"));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_bloom_text_open(&t, s, n, "BOGUS", "t"));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_bloom_text_open(&t, s, n - 4, "SIMPLE", "t"));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_bloom_text_open(&t, s, 8, "SIMPLE", "t"));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_bloom_text_open(&t, s, 0, "SIMPLE", "t"));
    char *w = malloc(n + 2); /* a line break inside: the decoder skips it */
    hoodie_assert(w != NULL);
    memcpy(w, s, 40);
    w[40] = '\r';
    w[41] = '\n';
    memcpy(w + 42, s + 40, n - 40);
    hoodie_assert_status(HOODIE_EINVAL, hoodie_bloom_text_open(&t, w, n + 2, "SIMPLE", "t"));
    hoodie_bloom d;
    hoodie_assert_ok(hoodie_bloom_from_base64(&d, w, n + 2, "SIMPLE", "t"));
    hoodie_assert(hoodie_bloom_test(&d, "a", 1));
    hoodie_bloom_dispose(&d);
    memcpy(w, s, n); /* a version that is not -1 */
    w[0] = 'A';
    hoodie_assert_status(HOODIE_EINVAL, hoodie_bloom_text_open(&t, w, n, "SIMPLE", "t"));
    /* a corrupt character among the bits: the test that reads it fails, naming the file and the offset */
    memcpy(w, s, n);
    for (size_t i = 20; i + 4 < n; i++) w[i] = '*';
    hoodie_assert_ok(hoodie_bloom_text_open(&t, w, n, "SIMPLE", "bits.parquet"));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_bloom_text_test(&t, "a", 1));
    hoodie_assert_contains(hoodie_error_last()->message, "bits.parquet: bloom filter: invalid base64 character 0x2a at offset");
    free(w);
    hoodie_buf_dispose(&text);
    hoodie_bloom_dispose(&b);
}

/* ---- the AVX2 batch path against the scalar one: the same bytes ---- */

static uint64_t bloom_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Set bits of a SIMPLE filter straight from the definition (k chained Murmur hashes, |h % m|): no premixing. */
static void bloom_reference_add(hoodie_bloom *b, const uint8_t *key, size_t len)
{
    int32_t h = 0;
    for (int32_t i = 0; i < b->nb_hash; i++) {
        h = hoodie_bloom_murmur(key, len, h);
        int32_t p = h % b->vector_size;
        if (p < 0) p = -p;
        b->bits[0][p >> 3] |= (uint8_t)(1u << (p & 7));
    }
}

static void bloom_assert_same(const hoodie_bloom *x, const hoodie_bloom *y)
{
    hoodie_buf a = HOODIE_BUF_INIT, c = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_bloom_serialize(x, &a));
    hoodie_assert_ok(hoodie_bloom_serialize(y, &c));
    hoodie_assert_equal_i(a.len, c.len);
    hoodie_assert(memcmp(a.data, c.data, a.len) == 0);
    hoodie_buf_dispose(&a);
    hoodie_buf_dispose(&c);
}

/* test_many against test, for the keys (all present) and for the keys with their last byte changed (absent, or
 * false positives: small filters have many), on both paths. `scratch` has room for the altered keys. */
static void bloom_check_test_many(const hoodie_bloom *b, const uint8_t **kp, const size_t *kl, size_t n,
                                  uint8_t *scratch, int saturated)
{
    const uint8_t **other = malloc(n * sizeof *other);
    uint8_t *maybe = malloc(n);
    hoodie_assert(other && maybe);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(scratch + off, kp[i], kl[i]);
        if (kl[i]) scratch[off + kl[i] - 1] ^= 0x5a;
        other[i] = scratch + off;
        off += kl[i];
    }
    int was = hoodie_bloom__simd(1);
    int positives = 0;
    for (int pass = 0; pass < 2; pass++) {
        hoodie_bloom__simd(pass == 0);
        for (size_t i = 0; i < n;) {
            size_t m = 1 + (i * 7 + 3) % 41;
            if (m > n - i) m = n - i;
            hoodie_bloom_test_many(b, kp + i, kl + i, m, maybe + i);
            i += m;
        }
        for (size_t i = 0; i < n; i++) hoodie_assert_equal_i(1, maybe[i]);
        hoodie_bloom_test_many(b, other, kl, n, maybe);
        for (size_t i = 0; i < n; i++) {
            hoodie_assert_equal_i(hoodie_bloom_test(b, other[i], kl[i]), maybe[i]);
            positives += maybe[i];
        }
    }
    hoodie_bloom__simd(was);
    if (!saturated) hoodie_assert(positives < (int)n); /* most altered keys are answered absent */
    free(other);
    free(maybe);
}

/*
 * Keys (random bytes, so tails with the high bit set too) added one by one (the scalar chain), through add_many
 * with the AVX2 path, and through add_many on the portable path only; for SIMPLE also from the definition. `lens`
 * picks each key's length; add_many gets random batch sizes (not multiples of 8 or 16).
 */
static void bloom_check_paths(hoodie_bloom_type type, int32_t entries, double fpp, int32_t max_entries, size_t n,
                              size_t (*len_of)(size_t i, uint64_t *rng), uint64_t seed)
{
    uint64_t rng = seed;
    uint8_t *data = malloc(2 * n * 300 + 1); /* the keys, then room for altered copies */
    const uint8_t **kp = malloc(n * sizeof *kp);
    size_t *kl = malloc(n * sizeof *kl);
    hoodie_assert(data && kp && kl);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        kl[i] = len_of(i, &rng);
        kp[i] = data + off;
        for (size_t j = 0; j < kl[i]; j++) data[off + j] = (uint8_t)bloom_rng(&rng);
        off += kl[i];
    }
    hoodie_bloom one, simd, portable, ref;
    hoodie_assert_ok(hoodie_bloom_init(&one, type, entries, fpp, max_entries));
    hoodie_assert_ok(hoodie_bloom_init(&simd, type, entries, fpp, max_entries));
    hoodie_assert_ok(hoodie_bloom_init(&portable, type, entries, fpp, max_entries));
    hoodie_assert_ok(hoodie_bloom_init(&ref, type, entries, fpp, max_entries));
    for (size_t i = 0; i < n; i++) hoodie_assert_ok(hoodie_bloom_add(&one, kp[i], kl[i]));
    if (type == HOODIE_BLOOM_SIMPLE)
        for (size_t i = 0; i < n; i++) bloom_reference_add(&ref, kp[i], kl[i]);
    int was = hoodie_bloom__simd(1);
    for (int pass = 0; pass < 2; pass++) {
        hoodie_bloom__simd(pass == 0);
        for (size_t i = 0; i < n;) {
            size_t m = 1 + bloom_rng(&rng) % 40;
            if (m > n - i) m = n - i;
            hoodie_assert_ok(hoodie_bloom_add_many(pass == 0 ? &simd : &portable, kp + i, kl + i, m));
            i += m;
        }
    }
    hoodie_bloom__simd(was);
    bloom_assert_same(&one, &simd);
    bloom_assert_same(&one, &portable);
    if (type == HOODIE_BLOOM_SIMPLE) bloom_assert_same(&one, &ref);
    for (size_t i = 0; i < n; i++) hoodie_assert(hoodie_bloom_test(&simd, kp[i], kl[i]));
    bloom_check_test_many(&simd, kp, kl, n, data + off, entries * 10 < (int32_t)n);
    hoodie_bloom_dispose(&one);
    hoodie_bloom_dispose(&simd);
    hoodie_bloom_dispose(&portable);
    hoodie_bloom_dispose(&ref);
    free(data);
    free(kp);
    free(kl);
}

static size_t bloom_len_blocks(size_t i, uint64_t *rng) { (void)rng; return (i / 37) % 65; } /* runs of 37 of each length */
static size_t bloom_len_mixed(size_t i, uint64_t *rng) { (void)i; return bloom_rng(rng) % 65; }
static size_t bloom_len_long(size_t i, uint64_t *rng) { return i % 5 == 0 ? 250 + bloom_rng(rng) % 40 : bloom_rng(rng) % 20; }
static size_t bloom_len_8(size_t i, uint64_t *rng) { (void)i; (void)rng; return 8; }

HOODIE_TEST(format_bloom__batch_paths_match_scalar_every_length)
{
    /* every length 0..64 in runs (uniform batches), Hudi's k = 30 */
    bloom_check_paths(HOODIE_BLOOM_SIMPLE, 3000, 1e-9, 0, 37 * 65, bloom_len_blocks, 1);
    bloom_check_paths(HOODIE_BLOOM_DYNAMIC_V0, 3000, 1e-9, 5000, 37 * 65, bloom_len_blocks, 2);
}

HOODIE_TEST(format_bloom__batch_paths_match_scalar_mixed_lengths)
{
    bloom_check_paths(HOODIE_BLOOM_SIMPLE, 2000, 1e-9, 0, 2000, bloom_len_mixed, 3);
    /* past the premix buffer (256 bytes): those batches take the scalar path */
    bloom_check_paths(HOODIE_BLOOM_SIMPLE, 500, 1e-4, 0, 500, bloom_len_long, 4);
    /* small and odd vector sizes (m = 10, k = 7) */
    bloom_check_paths(HOODIE_BLOOM_SIMPLE, 1, 0.01, 0, 300, bloom_len_mixed, 5);
}

HOODIE_TEST(format_bloom__batch_paths_match_scalar_dynamic_rows)
{
    /* more keys than num_entries: rows are added (4 of 100), then max entries reached and rows used round-robin */
    bloom_check_paths(HOODIE_BLOOM_DYNAMIC_V0, 100, 1e-9, 400, 1000, bloom_len_mixed, 6);
    bloom_check_paths(HOODIE_BLOOM_DYNAMIC_V0, 100, 1e-9, 400, 1001, bloom_len_8, 7);
    /* and rows added without reaching the maximum */
    bloom_check_paths(HOODIE_BLOOM_DYNAMIC_V0, 64, 0.001, 100000, 777, bloom_len_8, 8);
}

/* A filter of the first n keys, serialized, read back and resumed, then given the rest, serializes as the filter
 * of all the keys built in one go: before its rows fill, when rows are added, and after the entry bound is
 * reached (round-robin over the rows, state the format does not store). */
static void resume_case(int32_t entries, int32_t max_entries, int n, int total)
{
    char key[32];
    hoodie_bloom whole, first, like;
    hoodie_assert_ok(hoodie_bloom_init(&whole, HOODIE_BLOOM_DYNAMIC_V0, entries, 1e-9, max_entries));
    hoodie_assert_ok(hoodie_bloom_init(&first, HOODIE_BLOOM_DYNAMIC_V0, entries, 1e-9, max_entries));
    hoodie_assert_ok(hoodie_bloom_init(&like, HOODIE_BLOOM_DYNAMIC_V0, entries, 1e-9, max_entries));
    for (int i = 0; i < total; i++) {
        int l = snprintf(key, sizeof key, "key-%07d", i * 7919 % 1000003);
        hoodie_assert_ok(hoodie_bloom_add(&whole, key, (size_t)l));
        if (i < n) hoodie_assert_ok(hoodie_bloom_add(&first, key, (size_t)l));
    }
    hoodie_buf b64 = HOODIE_BUF_INIT, want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_bloom_to_base64(&first, &b64));
    hoodie_bloom back;
    hoodie_assert_ok(hoodie_bloom_from_base64(&back, (const char *)b64.data, b64.len, "DYNAMIC_V0", "t"));
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_bloom_resume(&back, &like, n + 1)); /* not n + 1 keys' rows */
    hoodie_assert_ok(hoodie_bloom_resume(&back, &like, n));
    for (int i = n; i < total; i++) {
        int l = snprintf(key, sizeof key, "key-%07d", i * 7919 % 1000003);
        hoodie_assert_ok(hoodie_bloom_add(&back, key, (size_t)l));
    }
    hoodie_assert_ok(hoodie_bloom_serialize(&whole, &want));
    hoodie_assert_ok(hoodie_bloom_serialize(&back, &got));
    hoodie_assert_equal_i(want.len, got.len);
    hoodie_assert(!memcmp(want.data, got.data, want.len));
    /* other settings: not resumable */
    hoodie_bloom other;
    hoodie_assert_ok(hoodie_bloom_init(&other, HOODIE_BLOOM_DYNAMIC_V0, entries + 1, 1e-9, max_entries));
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_bloom_resume(&back, &other, total));
    hoodie_bloom_dispose(&other);
    hoodie_buf_dispose(&b64);
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&got);
    hoodie_bloom_dispose(&back);
    hoodie_bloom_dispose(&whole);
    hoodie_bloom_dispose(&first);
    hoodie_bloom_dispose(&like);
}

HOODIE_TEST(format_bloom__resume_continues_as_one_build)
{
    resume_case(10, 35, 0, 7);      /* empty, first row */
    resume_case(10, 35, 3, 8);      /* within the first row */
    resume_case(10, 35, 10, 25);    /* rows added after the first fills */
    resume_case(10, 35, 12, 90);    /* across the bound: round-robin from the end of the resumed keys */
    resume_case(10, 35, 60, 97);    /* resumed well after the bound */
    resume_case(60000, 100000, 150000, 150100); /* Hudi's default sizing, bound reached */
}
