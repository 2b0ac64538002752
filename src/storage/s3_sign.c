#include "storage/s3_sign.h"
#include "util/error.h"
#include "util/sha256.h"

#include <string.h>

static int unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == '~';
}

hoodie_status hoodie_s3_uri_encode(hoodie_buf *out, const char *s, size_t len, int keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    HOODIE_TRY(hoodie_buf_reserve(out, len * 3 + 1));
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (unreserved(c) || (keep_slash && c == '/')) {
            out->data[out->len++] = c;
        } else {
            out->data[out->len++] = '%';
            out->data[out->len++] = (uint8_t)hex[c >> 4];
            out->data[out->len++] = (uint8_t)hex[c & 15];
        }
    }
    return hoodie_buf_cstr(out);
}

hoodie_status hoodie_s3_sign(const hoodie_s3_sign_in *in, hoodie_buf *out, hoodie_buf *canonical)
{
    if (!in->amz_date || strlen(in->amz_date) != 16 || in->amz_date[8] != 'T' || in->amz_date[15] != 'Z')
        return HOODIE_FAIL(HOODIE_EINVAL, "x-amz-date '%s' is not yyyymmddThhmmssZ", in->amz_date ? in->amz_date : "");
    hoodie_buf creq = HOODIE_BUF_INIT, signed_names = HOODIE_BUF_INIT, sts = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_printf(&creq, "%s\n%s\n%s\n", in->method, in->uri, in->query ? in->query : "");
    for (size_t i = 0; i < in->n_headers && rc == HOODIE_OK; i++) {
        rc = hoodie_buf_printf(&creq, "%s:%s\n", in->headers[i].name, in->headers[i].value);
        if (rc == HOODIE_OK)
            rc = hoodie_buf_printf(&signed_names, "%s%s", i ? ";" : "", in->headers[i].name);
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&signed_names);
    if (rc == HOODIE_OK)
        rc = hoodie_buf_printf(&creq, "\n%s\n%s", (const char *)signed_names.data, in->payload_sha256);
    uint8_t digest[HOODIE_SHA256_LEN];
    char hex[2 * HOODIE_SHA256_LEN + 1];
    char day[9];
    memcpy(day, in->amz_date, 8);
    day[8] = '\0';
    const char *svc = in->service ? in->service : "s3";
    if (rc == HOODIE_OK) {
        hoodie_sha256_digest(creq.data, creq.len, digest);
        hoodie_hex_lower(digest, sizeof digest, hex);
        rc = hoodie_buf_printf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s", in->amz_date, day,
                               in->region, svc, hex);
    }
    if (rc == HOODIE_OK) {
        /* the signing key: the secret, then the day, region, service and terminator, each an HMAC key for the next */
        size_t slen = strlen(in->secret_access_key);
        uint8_t k[HOODIE_SHA256_LEN];
        hoodie_buf first = HOODIE_BUF_INIT;
        rc = hoodie_buf_printf(&first, "AWS4%s", in->secret_access_key);
        if (rc == HOODIE_OK) {
            hoodie_hmac_sha256(first.data, 4 + slen, day, 8, k);
            hoodie_hmac_sha256(k, sizeof k, in->region, strlen(in->region), k);
            hoodie_hmac_sha256(k, sizeof k, svc, strlen(svc), k);
            hoodie_hmac_sha256(k, sizeof k, "aws4_request", 12, k);
            hoodie_hmac_sha256(k, sizeof k, sts.data, sts.len, digest);
            hoodie_hex_lower(digest, sizeof digest, hex);
            rc = hoodie_buf_printf(out, "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request, SignedHeaders=%s, "
                                        "Signature=%s", in->access_key_id, day, in->region, svc,
                                   (const char *)signed_names.data, hex);
            if (rc == HOODIE_OK) rc = hoodie_buf_cstr(out);
        }
        if (first.data) memset(first.data, 0, first.len);
        hoodie_buf_dispose(&first);
        memset(k, 0, sizeof k);
    }
    if (rc == HOODIE_OK && canonical) {
        rc = hoodie_buf_append(canonical, creq.data, creq.len);
        if (rc == HOODIE_OK) rc = hoodie_buf_cstr(canonical);
    }
    hoodie_buf_dispose(&creq);
    hoodie_buf_dispose(&signed_names);
    hoodie_buf_dispose(&sts);
    return rc;
}
