/*
 * The S3 response parsers (storage/s3_xml.h) on arbitrary bytes: a ListObjectsV2 page, an error document and a
 * timestamp; and the temporary-credential documents (storage/s3_creds.h): STS's XML, the endpoints' JSON. They
 * accept or refuse with a message; they never read past the buffer (the input is copied into an allocation of its
 * exact size), crash or leak. Every key they give is a NUL-terminated string that does not reach past the input's
 * length (decoding only shortens text); credentials accepted have both keys.
 */
#include "storage/s3_creds.h"
#include "storage/s3_xml.h"
#include "util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int each(const hoodie_s3_list_item *it, void *payload)
{
    size_t *limit = payload;
    if (strlen(it->key) > *limit) { fprintf(stderr, "fuzz_s3_xml: a key longer than the input\n"); abort(); }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *xml = malloc(size ? size : 1);
    if (!xml) return 0;
    if (size) memcpy(xml, data, size);
    int stopped, truncated;
    hoodie_buf tok = HOODIE_BUF_INIT, msg = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_s3_list_parse(xml, size, each, &size, &stopped, &truncated, &tok);
    if (rc < 0 && !*hoodie_error__message()) { fprintf(stderr, "fuzz_s3_xml: a failure without a message\n"); abort(); }
    if (rc == HOODIE_OK && truncated && !tok.len) { fprintf(stderr, "fuzz_s3_xml: truncated without a token\n"); abort(); }
    (void)hoodie_s3_error_parse(xml, size, &msg);
    (void)hoodie_s3_parse_time(xml, size);
    for (int kind = 0; kind < 2; kind++) {
        hoodie_s3_creds c;
        rc = kind ? hoodie_s3_creds_parse_json(xml, size, "fuzz", &c) : hoodie_s3_creds_parse_sts(xml, size, "fuzz", &c);
        if (rc < 0 && !*hoodie_error__message()) { fprintf(stderr, "fuzz_s3_xml: a refusal without a message\n"); abort(); }
        if (rc == HOODIE_OK && (!c.ak || !*c.ak || !c.sk || !*c.sk)) {
            fprintf(stderr, "fuzz_s3_xml: credentials without keys\n");
            abort();
        }
        if (rc < 0 && (c.ak || c.sk || c.token)) { fprintf(stderr, "fuzz_s3_xml: a refusal left strings\n"); abort(); }
        if (rc == HOODIE_OK) hoodie_s3_creds_dispose(&c);
        hoodie_error_clear();
    }
    hoodie_buf_dispose(&tok);
    hoodie_buf_dispose(&msg);
    free(xml);
    return 0;
}
