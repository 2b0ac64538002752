/*
 * AWS Signature Version 4 for S3 requests (the Authorization header), and the URI encoding it relies on; the same
 * for another service (STS) with its name in place of "s3".
 * Pure functions over strings: no I/O, no clock (the caller passes the time), so they are tested against the
 * examples of AWS's documentation.
 *
 *   canonical request = METHOD \n URI \n QUERY \n (name:value\n)* \n signed;names \n payload-hash
 *   string to sign    = "AWS4-HMAC-SHA256" \n yyyymmddThhmmssZ \n yyyymmdd/region/s3/aws4_request \n
 *                       hex(sha256(canonical request))
 *   signing key       = HMAC(HMAC(HMAC(HMAC("AWS4" secret, yyyymmdd), region), "s3"), "aws4_request")
 *
 * The URI and query given here are sent as they are, so the server decodes exactly what was signed.
 */
#ifndef HOODIE_STORAGE_S3_SIGN_H
#define HOODIE_STORAGE_S3_SIGN_H

#include "util/buf.h"

/** SHA-256 of no bytes, in hex: the payload hash of a request without a body. */
#define HOODIE_S3_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/**
 * Append `s[0, len)` URI-encoded as SigV4 wants it: the unreserved characters (A-Z a-z 0-9 - _ . ~) as they are,
 * every other byte as %XX (upper-case hex); '/' kept when keep_slash (object key paths), encoded otherwise.
 */
hoodie_status hoodie_s3_uri_encode(hoodie_buf *out, const char *s, size_t len, int keep_slash);

typedef struct hoodie_s3_header {
    const char *name;  /* lower case */
    const char *value; /* trimmed */
} hoodie_s3_header;

typedef struct hoodie_s3_sign_in {
    const char *method;          /* GET, HEAD, PUT, DELETE */
    const char *uri;             /* encoded path, from '/' */
    const char *query;           /* encoded, sorted by name, "" when none */
    const hoodie_s3_header *headers; /* the headers to sign, sorted by name, `host` among them */
    size_t n_headers;
    const char *payload_sha256;  /* hex, or "UNSIGNED-PAYLOAD" */
    const char *amz_date;        /* yyyymmddThhmmssZ (the x-amz-date header's value) */
    const char *region;
    const char *access_key_id;
    const char *secret_access_key;
    const char *service;         /* the credential scope's service: NULL is "s3" (STS requests: "sts") */
} hoodie_s3_sign_in;

/**
 * The Authorization header's value for the request:
 *   "AWS4-HMAC-SHA256 Credential=AK/yyyymmdd/region/s3/aws4_request, SignedHeaders=a;b, Signature=hex"
 * appended to `out` (NUL-terminated, not counted). When `canonical` is not NULL, the canonical request is appended
 * to it (for messages and tests).
 */
hoodie_status hoodie_s3_sign(const hoodie_s3_sign_in *in, hoodie_buf *out, hoodie_buf *canonical);

#endif
