/*
 * The XML documents of S3 that hoodie reads: a ListObjectsV2 result page and an error. Pure parsers over a buffer
 * (no I/O), fuzzed like the format decoders. Only what S3 and its clones send is understood: elements without
 * attributes inside the root (the root's xmlns is skipped), the five predefined entities and numeric character
 * references; anything else malformed is HOODIE_ECORRUPT with the byte offset.
 */
#ifndef HOODIE_STORAGE_S3_XML_H
#define HOODIE_STORAGE_S3_XML_H

#include "util/buf.h"

typedef struct hoodie_s3_list_item {
    const char *key;     /* the object key, or the common prefix (ends with the delimiter); valid in the callback */
    int is_prefix;       /* a CommonPrefixes entry */
    uint64_t size;       /* objects: Size */
    int64_t mtime_ms;    /* objects: LastModified, ms since the epoch (0 when absent) */
} hoodie_s3_list_item;

/** Non-zero stops the parse (hoodie_s3_list_parse then sets *stopped). */
typedef int (*hoodie_s3_list_cb)(const hoodie_s3_list_item *item, void *payload);

/**
 * One page of a ListBucketResult: every Contents and CommonPrefixes entry, in document order, to cb.
 * *truncated: the IsTruncated flag; next_token (may be NULL): NextContinuationToken appended, NUL-terminated.
 */
hoodie_status hoodie_s3_list_parse(const char *xml, size_t len, hoodie_s3_list_cb cb, void *payload, int *stopped,
                                   int *truncated, hoodie_buf *next_token);

/** The text of the first <name> element, decoded, appended to out (NUL-terminated): 1, or 0 if there is none or it
 *  is malformed (an InitiateMultipartUploadResult's UploadId). */
int hoodie_s3_xml_value(const char *xml, size_t len, const char *name, hoodie_buf *out);

/** An <Error> document's "Code: Message" appended to out (NUL-terminated); 0 if xml is not one. */
int hoodie_s3_error_parse(const char *xml, size_t len, hoodie_buf *out);

/** "2009-10-12T17:50:30.000Z" (ISO 8601, UTC) to ms since the epoch; -1 if malformed. */
int64_t hoodie_s3_parse_time(const char *s, size_t len);

#endif
