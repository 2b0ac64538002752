/*
 * The simple bucket index (hudi-format.md 12.1; Java's BucketIdentifier): a record's file group is decided by
 * hashing its record key, so writes need no index lookup.
 *
 *   hash keys   the values of the hash fields taken from the record key string: the key is split at ',' and each
 *               part at its first ':'; a part without ':' is a value, a "field:value" part is kept when the field is
 *               a hash field ("__null__" -> null, "__empty__" -> "")   [KeyGenUtils.extractRecordKeysByFields]
 *   bucket id   (javaListHashCode(hashKeys) & 0x7FFFFFFF) % N, with Java's List.hashCode and String.hashCode
 *               (over UTF-16 code units, int32 wrap)
 *   file id     sprintf("%08d", bucket) replacing the first 8 characters of a random UUID, then "-0"
 */
#ifndef HOODIE_TABLE_BUCKET_H
#define HOODIE_TABLE_BUCKET_H

#include <stddef.h>
#include <stdint.h>
#include "table/config.h"

/** Java's String.hashCode() of UTF-8 text (decoded to UTF-16 code units; invalid bytes count as U+FFFD). */
int32_t hoodie_java_string_hash(const uint8_t *utf8, size_t len);
/** The bucket of a record key: 0 .. n_buckets-1. `fields` are the hash fields (count 0: every part). */
int hoodie_bucket_id(const char *key, size_t len, const char *const *fields, size_t n_fields, int n_buckets);
/** The bucket a file id names (its first 8 characters as a decimal number), or -1. */
int hoodie_bucket_of_file_id(const char *file_id);
/** The file id for `bucket` made from a random one ("<uuid>-0"): "%08d" replaces its first 8 characters. */
void hoodie_bucket_file_id(char *out, size_t cap, int bucket, const char *random_file_id);

#endif
