/*
 * Hudi's bloom filters, byte-compatible with Java (hudi-format.md section 10): the SIMPLE filter (Hadoop
 * BloomFilter layout) and DYNAMIC_V0 (Hadoop DynamicBloomFilter layout, bounded), Murmur hashing as Hadoop's
 * MurmurHash port computes it (sign-extended tail bytes), serialized big-endian and Base64-encoded in the Parquet
 * footer key "org.apache.hudi.bloomfilter". No I/O.
 *
 * SERIALIZED ROW (SIMPLE), all ints big-endian:
 *   SIZE  FIELD
 *     4   version     -1 (a positive value is a pre-versioned filter: unsupported)
 *     4   nb_hash     k
 *     1   hash_type   1 = Murmur (0 = Jenkins: unsupported)
 *     4   vector_size m bits
 *     *   bits        ceil(m/8) bytes, bit i = byte[i>>3] >> (i&7) & 1
 * DYNAMIC_V0: the same 13-byte header, then int32 nr, int32 current_nb_record, int32 rows, then `rows` SIMPLE rows.
 */
#ifndef HOODIE_FORMAT_BLOOM_H
#define HOODIE_FORMAT_BLOOM_H

#include <stdint.h>
#include "util/buf.h"

typedef enum hoodie_bloom_type { HOODIE_BLOOM_SIMPLE = 0, HOODIE_BLOOM_DYNAMIC_V0 = 1 } hoodie_bloom_type;

typedef struct hoodie_bloom {
    hoodie_bloom_type type;
    int32_t nb_hash;          /* k */
    int32_t vector_size;      /* m (bits per row) */
    int32_t nr;               /* DYNAMIC: keys per row */
    int32_t max_nr;           /* DYNAMIC: bound on rows*nr (not serialized) */
    int32_t current_nb_record;/* DYNAMIC: keys in the current row */
    int32_t rows;
    int reached_max;          /* DYNAMIC: rows used round-robin */
    uint32_t round_robin;
    uint8_t **bits;           /* rows x ceil(m/8) bytes, malloc */
} hoodie_bloom;

/** Java/Hadoop MurmurHash (hash type 1) of `len` bytes with `seed`. */
int32_t hoodie_bloom_murmur(const uint8_t *data, size_t len, int32_t seed);

/**
 * A new empty filter sized as Hudi sizes it: m = ceil(n * -ln(fpp) / ln(2)^2), k = ceil(ln(2) * m / n).
 * Hudi defaults: num_entries 60000, fpp 1e-9, DYNAMIC_V0 with max_entries 100000.
 */
hoodie_status hoodie_bloom_init(hoodie_bloom *b, hoodie_bloom_type type, int32_t num_entries, double fpp,
                                int32_t max_entries);
void hoodie_bloom_dispose(hoodie_bloom *b);
/**
 * Make a deserialized DYNAMIC_V0 filter `b` continue exactly as `like` (a fresh filter of the writer's settings)
 * would after `keys` additions: the settings must match and the rows in `b` must be those `keys` additions make;
 * the state the format does not store (the entry bound, the round-robin position once it is reached) is derived.
 * HOODIE_EINVAL (no error recorded) when `b` cannot be continued so.
 */
hoodie_status hoodie_bloom_resume(hoodie_bloom *b, const hoodie_bloom *like, int64_t keys);
/**
 * Replace `b` (a fresh filter of the writer's settings) by a footer's filter (`text`: Base64, `type_code`) continued
 * after its `keys` additions (hoodie_bloom_resume), when it can be: returns 1. Returns 0 with `b` unchanged (and no
 * error recorded) for another type, an unreadable text or other settings: the filter is then rebuilt from the keys.
 */
int hoodie_bloom_continue(hoodie_bloom *b, const char *text, const char *type_code, int64_t keys);
hoodie_status hoodie_bloom_add(hoodie_bloom *b, const void *key, size_t len);
/** Add `n` keys in order (as n calls of hoodie_bloom_add, computed several keys at a time). */
hoodie_status hoodie_bloom_add_many(hoodie_bloom *b, const uint8_t *const *keys, const size_t *lens, size_t n);
/** 1 if the key may be present, 0 if it is certainly absent. */
int hoodie_bloom_test(const hoodie_bloom *b, const void *key, size_t len);
/** hoodie_bloom_test of `n` keys: maybe[i] = 1 if key i may be present, 0 if it is certainly absent. */
void hoodie_bloom_test_many(const hoodie_bloom *b, const uint8_t *const *keys, const size_t *lens, size_t n,
                            uint8_t *maybe);

/**
 * Internal (tests, benchmarks): use the AVX2 path of add_many/test_many where the CPU has it (on != 0, the
 * default), or only the portable one (0). Returns the previous setting. Not for use while other threads use
 * filters; the result is the same bytes either way.
 */
int hoodie_bloom__simd(int on);

/** Serialize (raw bytes, appended) and Base64 text (appended), as Hudi writes them. */
hoodie_status hoodie_bloom_serialize(const hoodie_bloom *b, hoodie_buf *out);
hoodie_status hoodie_bloom_to_base64(const hoodie_bloom *b, hoodie_buf *out);
/**
 * Parse a Base64 filter string from a footer. `type_code` is the footer's hoodie_bloom_filter_type_code
 * ("SIMPLE", "DYNAMIC_V0"; NULL means SIMPLE). `what` names the file for messages.
 */
hoodie_status hoodie_bloom_from_base64(hoodie_bloom *out, const char *text, size_t len, const char *type_code,
                                       const char *what);

/*
 * A filter tested in place, in the Base64 text of a footer: a test decodes only the bytes holding the bits it
 * reads (a few dozen characters), where hoodie_bloom_from_base64 decodes the whole text first (~0.9 MB for the
 * DYNAMIC_V0 filter of a 118K-key file). For a few tests, such as finding whether any of a file's candidate keys
 * may be present. `text` is borrowed.
 */
typedef struct hoodie_bloom_text {
    const char *text;
    const char *what;
    int32_t nb_hash, vector_size, rows;
    size_t first;  /* decoded offset of row 0's bits */
    size_t stride; /* decoded bytes from one row's bits to the next row's */
} hoodie_bloom_text;

/**
 * Check the layout of a filter's Base64 text (headers of the filter and of each row, and a length that fits them
 * exactly, as java.util.Base64 writes it: padded, unbroken). HOODIE_EINVAL, no error recorded, when it does not
 * fit: hoodie_bloom_from_base64 then reads it or says what is wrong. `what` names the file for messages.
 */
hoodie_status hoodie_bloom_text_open(hoodie_bloom_text *t, const char *text, size_t len, const char *type_code,
                                     const char *what);
/**
 * hoodie_bloom_test on the text: 1 if the key may be present, 0 if it is certainly absent; HOODIE_ECORRUPT (error
 * recorded, naming the file and the character's offset) when a character read is not Base64.
 */
int hoodie_bloom_text_test(const hoodie_bloom_text *t, const void *key, size_t len);

#endif
