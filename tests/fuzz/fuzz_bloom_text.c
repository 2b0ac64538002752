/*
 * Differential fuzzing of the footer bloom filter tested in its Base64 text (hoodie_bloom_text) against the
 * decoded filter (hoodie_bloom_from_base64): when both accept the text they agree on every key; a filter built
 * from keys holds them; neither reads past the text, crashes or fails without a message.
 *
 * The first byte picks the mode (bits 0-1) and the type code (bits 2-3: NULL, SIMPLE, DYNAMIC_V0, "BAD"):
 *   0: the rest is the footer text itself;
 *   1: the rest is a serialized filter, Base64-encoded;
 *   2, 3: a filter is built (type from bit 4, entries and fpp from the next two bytes) from the keys of the rest
 *         (split at '\n'), encoded, and in mode 3 one character (at the offset of bytes 3-4) replaced by byte 5.
 */
#include "format/bloom.h"
#include "util/base64.h"
#include "util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) { fprintf(stderr, "fuzz_bloom_text: %s: %s\n", what, hoodie_error__message()); abort(); }
}

enum { MAX_KEYS = 64 };

/* Keys of `p` split at '\n' (at most MAX_KEYS). */
static size_t split_keys(const uint8_t *p, size_t n, const uint8_t **keys, size_t *lens)
{
    size_t k = 0, start = 0;
    for (size_t i = 0; i <= n && k < MAX_KEYS; i++) {
        if (i < n && p[i] != '\n') continue;
        keys[k] = p + start;
        lens[k++] = i - start;
        start = i + 1;
    }
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const codes[] = { NULL, "SIMPLE", "DYNAMIC_V0", "BAD" };
    static const char *const probes[] = { "", "a", "key-1", "00000042", "uuid-0000-1111", "zzzzzzzzzzzzzzzzzzzz" };
    if (size < 1) return 0;
    int mode = data[0] & 3;
    const char *code = codes[(data[0] >> 2) & 3];
    const uint8_t *rest = data + 1;
    size_t n = size - 1;
    const uint8_t *keys[MAX_KEYS];
    size_t lens[MAX_KEYS], n_keys = 0;
    int built = 0, mutated = 0;
    hoodie_buf text = HOODIE_BUF_INIT;

    if (mode == 0) {
        check(hoodie_buf_append(&text, rest, n) == HOODIE_OK, "text");
    } else if (mode == 1) {
        check(hoodie_base64_encode(rest, n, &text) == HOODIE_OK, "encode");
    } else {
        if (n < 5) return 0;
        hoodie_bloom b;
        hoodie_bloom_type type = (data[0] >> 4) & 1 ? HOODIE_BLOOM_DYNAMIC_V0 : HOODIE_BLOOM_SIMPLE;
        int32_t entries = 1 + rest[0] % 200;
        double fpp = rest[1] % 2 ? 0.000000001 : 0.05;
        code = type == HOODIE_BLOOM_DYNAMIC_V0 ? "DYNAMIC_V0" : "SIMPLE";
        if (hoodie_bloom_init(&b, type, entries, fpp, type == HOODIE_BLOOM_DYNAMIC_V0 ? entries * 4 : 0) != HOODIE_OK)
            return 0;
        n_keys = split_keys(rest + 5, n - 5, keys, lens);
        for (size_t i = 0; i < n_keys; i++) check(hoodie_bloom_add(&b, keys[i], lens[i]) == HOODIE_OK, "add");
        check(hoodie_bloom_to_base64(&b, &text) == HOODIE_OK, "to_base64");
        hoodie_bloom_dispose(&b);
        built = 1;
        if (mode == 3 && text.len) {
            size_t at = ((size_t)rest[2] << 8 | rest[3]) % text.len;
            mutated = text.data[at] != rest[4];
            text.data[at] = rest[4];
        }
    }
    /* an exact-size copy, so that a read past the text is caught */
    char *t = malloc(text.len ? text.len : 1);
    check(t != NULL, "malloc");
    if (text.len) memcpy(t, text.data, text.len);
    size_t len = text.len;
    hoodie_buf_dispose(&text);

    hoodie_bloom dec;
    int decoded = hoodie_bloom_from_base64(&dec, t, len, code, "fuzz.parquet") == HOODIE_OK;
    if (!decoded) check(hoodie_error__message()[0] != '\0', "a refused filter without a message");
    if (built && !mutated) check(decoded, "a filter as written does not decode");
    hoodie_bloom_text bt;
    hoodie_status rc = hoodie_bloom_text_open(&bt, t, len, code, "fuzz.parquet");
    check(rc == HOODIE_OK || rc == HOODIE_EINVAL, "text_open: an unexpected status");
    if (built && !mutated) check(rc == HOODIE_OK, "a filter as Java writes it is not read in its text");
    if (rc == HOODIE_OK) {
        if (!mode) n_keys = split_keys(rest, n, keys, lens);
        for (size_t i = 0; i < n_keys + sizeof probes / sizeof *probes; i++) {
            const void *k = i < n_keys ? (const void *)keys[i] : probes[i - n_keys];
            size_t kl = i < n_keys ? lens[i] : strlen(probes[i - n_keys]);
            int r = hoodie_bloom_text_test(&bt, k, kl);
            check(r == 0 || r == 1 || r == HOODIE_ECORRUPT, "text_test: an unexpected result");
            if (r < 0) check(!decoded && hoodie_error__message()[0] != '\0', "text_test: corrupt but decodes");
            if (decoded) check(r == hoodie_bloom_test(&dec, k, kl), "text and decoded filter disagree");
            if (built && !mutated && i < n_keys) check(r == 1, "a key added is absent");
        }
    }
    if (decoded) hoodie_bloom_dispose(&dec);
    free(t);
    return 0;
}
