/*
 * RFC-103 native log files (hudi-format.md §13): a log file that is a plain Parquet file whose footer key/value
 * metadata holds the log block header under the single key "hudi.log.format.metadata". Only the metadata codec
 * lives here (no I/O, no Parquet writing).
 *
 * The value is a JSON object (Jackson's compact output of a LinkedHashMap<String,String>, as Java's
 * NativeLogFooterMetadata writes it): first "VERSION" (the log format version as a decimal string), then one entry
 * per header, named by HeaderMetadataType (INSTANT_TIME, SCHEMA, ...), with string values:
 *
 *   {"VERSION":"2","INSTANT_TIME":"20250101000000000","SCHEMA":"{\"type\":\"record\",...}"}
 *
 * Reading follows Java: unknown names are ignored, a missing VERSION is accepted, a VERSION that is not an
 * integer is corrupt, a VERSION newer than HOODIE_NATIVE_LOG_VERSION is unsupported.
 */
#ifndef HOODIE_FORMAT_HLOG_NATIVE_LOG_H
#define HOODIE_FORMAT_HLOG_NATIVE_LOG_H

#include "format/hlog/hlog_write.h"
#include "format/parquet/meta.h"
#include "util/arena.h"
#include "util/buf.h"

#define HOODIE_NATIVE_LOG_FOOTER_KEY "hudi.log.format.metadata"
/** Native log format version written (and the newest read). */
#define HOODIE_NATIVE_LOG_VERSION 2

typedef struct hoodie_native_log_meta {
    int32_t version;             /* VERSION, -1 when absent */
    const char *header[HOODIE_HLOG_HEADER_KEY_COUNT]; /* NUL-terminated (arena), NULL when absent */
    size_t header_len[HOODIE_HLOG_HEADER_KEY_COUNT];
    uint32_t unknown_keys;       /* entries with names this version does not know (ignored) */
} hoodie_native_log_meta;

/**
 * Append the JSON value for the footer key: VERSION = `version` first, then the entries in the order given
 * (entries with a NULL value are skipped, as Java skips null values). Strings are escaped as Jackson does
 * (", \, and control characters; \u00XX in upper-case hex for the ones without a short form).
 * @return HOODIE_OK, HOODIE_ENOMEM, HOODIE_EINVAL (an unknown key or a key given twice). On failure `out` is left
 *         as it was.
 */
hoodie_status hoodie_native_log_meta_build(hoodie_buf *out, const hoodie_hlog_header_entry *entries, size_t count,
                                           int32_t version);

/**
 * Parse the footer value. Strings land in `arena`; `what` names the file in messages.
 * @return HOODIE_OK; HOODIE_ECORRUPT (not a JSON object, a value that is not a string/number/boolean/null, a bad
 *         VERSION); HOODIE_EUNSUPPORTED (VERSION newer than supported); HOODIE_ENOMEM.
 */
hoodie_status hoodie_native_log_meta_parse(hoodie_native_log_meta *out, const char *json, size_t len,
                                           hoodie_arena *arena, const char *what);

/**
 * Find the footer key among a Parquet file's key/value metadata and parse it.
 * @return as hoodie_native_log_meta_parse; HOODIE_ENOTFOUND if the key is absent (not a native log file).
 */
hoodie_status hoodie_native_log_meta_from_kv(hoodie_native_log_meta *out, const hoodie_pq_kv *kv, uint32_t kv_count,
                                             hoodie_arena *arena, const char *what);

#endif
