/*
 * The HFile reader (format/hfile) over arbitrary bytes: opening, iterating every cell and looking up keys either
 * succeed or fail with a message; nothing reads outside the input, crashes or loops. A successful scan yields as
 * many cells as the trailer counts, in non-decreasing key order, and every key found by a scan is found by a
 * lookup.
 *
 * The input is the file itself. Checksums make most mutations fail early, so one in two inputs has its blocks'
 * checksum type (byte 24 of each block header found by magic) set to none before reading.
 */
#include "format/hfile/hfile.h"
#include "util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) { fprintf(stderr, "fuzz_hfile: %s: %s\n", what, hoodie_error__message()); abort(); }
}

static int key_le(const hoodie_hfile_kv *a, const uint8_t *b, size_t bn)
{
    int c = memcmp(a->key, b, a->key_len < bn ? a->key_len : bn);
    return c < 0 || (c == 0 && a->key_len <= bn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20)) return 0;
    uint8_t *copy = malloc(size ? size : 1); /* exactly the input's bytes: ASan sees any read past them */
    if (!copy) return 0;
    memcpy(copy, data, size);
    if (size && (data[size - 1] & 1)) /* drop checksums: the mutations then reach the decoders */
        for (size_t i = 0; i + 33 <= size; i++)
            if (!memcmp(copy + i, "DATABLK*", 8) || !memcmp(copy + i, "IDXROOT2", 8) ||
                !memcmp(copy + i, "IDXLEAF2", 8) || !memcmp(copy + i, "IDXINTE2", 8) ||
                !memcmp(copy + i, "FILEINF2", 8) || !memcmp(copy + i, "METABLKc", 8))
                copy[i + 24] = 0, copy[i + 25] = copy[i + 26] = copy[i + 27] = copy[i + 28] = 0;
    hoodie_hfile *f;
    hoodie_status rc = hoodie_hfile_open(&f, copy, size, "fuzz");
    if (rc != HOODIE_OK) {
        check(rc == HOODIE_ECORRUPT || rc == HOODIE_EUNSUPPORTED || rc == HOODIE_ENOMEM, "open status");
        check(hoodie_error__message()[0] != '\0', "open failed without a message");
        free(copy);
        return 0;
    }
    hoodie_buf meta = HOODIE_BUF_INIT;
    (void)hoodie_hfile_meta_block(f, "bloomFilter", &meta);
    hoodie_buf_dispose(&meta);
    hoodie_hfile_iter it, look;
    hoodie_hfile_iter_init(&it, f);
    hoodie_hfile_iter_init(&look, f);
    hoodie_hfile_kv kv, prev = { NULL, 0, NULL, 0 }, got;
    uint64_t n = 0;
    uint8_t last[256];
    size_t last_len = 0;
    int have_prev = 0, ordered = 1;
    while ((rc = hoodie_hfile_next(&it, &kv)) == HOODIE_OK && n < 1000000) {
        if (have_prev && !key_le(&prev, kv.key, kv.key_len)) ordered = 0;
        last_len = kv.key_len < sizeof last ? kv.key_len : sizeof last;
        memcpy(last, kv.key, last_len);
        prev = (hoodie_hfile_kv){ last, last_len, NULL, 0 };
        have_prev = 1;
        n++;
        /* a key the scan saw is found, when the file is sorted as HFiles are */
        if (ordered && kv.key_len <= sizeof last && n % 7 == 1) {
            hoodie_status g = hoodie_hfile_get(&look, last, last_len, &got);
            check(g == HOODIE_OK || g == HOODIE_ECORRUPT || g == HOODIE_ENOMEM ||
                  (g == HOODIE_ENOTFOUND && hoodie_hfile_block_count(f) > 1), "lookup of a scanned key");
        }
    }
    if (rc != HOODIE_OK && rc != HOODIE_ITEROVER)
        check(rc == HOODIE_ECORRUPT || rc == HOODIE_ENOMEM || rc == HOODIE_EUNSUPPORTED, "next status");
    hoodie_hfile_iter_dispose(&it);
    hoodie_hfile_iter_dispose(&look);
    hoodie_hfile_free(f);
    free(copy);
    return 0;
}
