/* S3: Signature V4 against AWS's documented examples, URI encoding, the listing and error XML, the configuration
 * checks. Requests against a server are tested by tests/compat/s3.sh. */
#include "hoodie_test.h"
#include "hoodie/sys/storage.h"
#include "storage/s3_ahead.h"
#include "storage/s3_creds.h"
#include "storage/s3_sign.h"
#include "storage/s3_xml.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AK "AKIAIOSFODNN7EXAMPLE"
#define SK "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

/* AWS S3 API reference, "Signature Calculations for the Authorization Header: Transferring Payload in a Single
 * Chunk", example "GET Object": the first 10 bytes of examplebucket/test.txt. */
HOODIE_TEST(storage_s3__sign_get_object_example)
{
    hoodie_s3_header h[] = {
        { "host", "examplebucket.s3.amazonaws.com" },
        { "range", "bytes=0-9" },
        { "x-amz-content-sha256", HOODIE_S3_EMPTY_SHA256 },
        { "x-amz-date", "20130524T000000Z" },
    };
    hoodie_s3_sign_in in = { "GET", "/test.txt", "", h, 4, HOODIE_S3_EMPTY_SHA256, "20130524T000000Z", "us-east-1",
                             AK, SK, NULL };
    hoodie_buf out = HOODIE_BUF_INIT, creq = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_s3_sign(&in, &out, &creq));
    hoodie_assert_equal_s("GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
                          "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
                          "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
                          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                          (const char *)creq.data);
    hoodie_assert_equal_s("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                          "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                          "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
                          (const char *)out.data);
    hoodie_buf_dispose(&out);
    hoodie_buf_dispose(&creq);
}

/* The same page, example "GET Bucket (List Objects)": GET /?max-keys=2&prefix=J. */
HOODIE_TEST(storage_s3__sign_list_objects_example)
{
    hoodie_s3_header h[] = {
        { "host", "examplebucket.s3.amazonaws.com" },
        { "x-amz-content-sha256", HOODIE_S3_EMPTY_SHA256 },
        { "x-amz-date", "20130524T000000Z" },
    };
    hoodie_s3_sign_in in = { "GET", "/", "max-keys=2&prefix=J", h, 3, HOODIE_S3_EMPTY_SHA256, "20130524T000000Z",
                             "us-east-1", AK, SK, NULL };
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_s3_sign(&in, &out, NULL));
    hoodie_assert_contains((const char *)out.data,
                           "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
    hoodie_buf_dispose(&out);
    in.amz_date = "2013-05-24";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_s3_sign(&in, &out, NULL));
    hoodie_assert_contains(hoodie_error_last()->message, "yyyymmddThhmmssZ");
    hoodie_buf_dispose(&out);
}

HOODIE_TEST(storage_s3__sign_another_service)
{
    /* AWS's Signature Version 4 test suite (2011), get-vanilla-query-order-key: service "host" in the scope and the
     * signing key (STS requests are signed the same way with "sts") */
    hoodie_s3_header h[] = { { "date", "Mon, 09 Sep 2011 23:36:00 GMT" }, { "host", "host.foo.com" } };
    hoodie_s3_sign_in in = { "GET", "/", "foo=Zoo&foo=aha", h, 2, HOODIE_S3_EMPTY_SHA256, "20110909T233600Z",
                             "us-east-1", "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "host" };
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_s3_sign(&in, &out, NULL));
    hoodie_assert_equal_s("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20110909/us-east-1/host/aws4_request, "
                          "SignedHeaders=date;host, "
                          "Signature=be7148d34ebccdc6423b19085378aa0bee970bdc61d144bd1a8c48c33079ab09",
                          (const char *)out.data);
    hoodie_buf_dispose(&out);
}

HOODIE_TEST(storage_s3__aws_domain_by_region)
{
    hoodie_assert_equal_s("amazonaws.com", hoodie_s3_aws_domain("eu-west-3"));
    hoodie_assert_equal_s("amazonaws.com", hoodie_s3_aws_domain(NULL));
    hoodie_assert_equal_s("amazonaws.com.cn", hoodie_s3_aws_domain("cn-north-1"));
    hoodie_assert_equal_s("amazonaws.com.cn", hoodie_s3_aws_domain("cn-northwest-1"));
}

HOODIE_TEST(storage_s3__uri_encode)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    const char *key = "t/partition_path=Monday/a b%c~_-.x\xc3\xa9";
    hoodie_assert_ok(hoodie_s3_uri_encode(&b, key, strlen(key), 1));
    hoodie_assert_equal_s("t/partition_path%3DMonday/a%20b%25c~_-.x%C3%A9", (const char *)b.data);
    b.len = 0;
    hoodie_assert_ok(hoodie_s3_uri_encode(&b, "a/b", 3, 0));
    hoodie_assert_equal_s("a%2Fb", (const char *)b.data);
    hoodie_buf_dispose(&b);
}

typedef struct { char lines[16][96]; int n; int stop_at; } got;

static int take(const hoodie_s3_list_item *it, void *p)
{
    got *g = p;
    if (g->n < 16)
        snprintf(g->lines[g->n++], 96, "%s %s %llu %lld", it->is_prefix ? "P" : "F", it->key,
                 (unsigned long long)it->size, (long long)it->mtime_ms);
    return g->stop_at && g->n == g->stop_at;
}

HOODIE_TEST(storage_s3__list_parse)
{
    const char *xml =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>b</Name><Prefix>t/</Prefix>"
        "<KeyCount>4</KeyCount><MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>"
        "<Contents><Key>t/</Key><LastModified>1970-01-01T00:00:00.000Z</LastModified><Size>0</Size></Contents>"
        "<Contents><Key>t/a&amp;b &lt;&#233;&#x41;&gt;.parquet</Key><LastModified>2024-03-01T12:34:56.789Z"
        "</LastModified><ETag>&quot;x&quot;</ETag><Size>1234</Size><StorageClass>STANDARD</StorageClass></Contents>"
        "<CommonPrefixes><Prefix>t/.hoodie/</Prefix></CommonPrefixes>"
        "<Contents><Key>t/z</Key><LastModified>2024-03-01T12:34:56Z</LastModified><Size>7</Size></Contents>"
        "<NextContinuationToken>tok+/=&amp;</NextContinuationToken></ListBucketResult>";
    got g = { .n = 0 };
    int stopped, truncated;
    hoodie_buf tok = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_s3_list_parse(xml, strlen(xml), take, &g, &stopped, &truncated, &tok));
    hoodie_assert_equal_i(4, g.n);
    hoodie_assert_equal_s("F t/ 0 0", g.lines[0]);
    hoodie_assert_equal_s("F t/a&b <\xc3\xa9" "A>.parquet 1234 1709296496789", g.lines[1]);
    hoodie_assert_equal_s("P t/.hoodie/ 0 0", g.lines[2]);
    hoodie_assert_equal_s("F t/z 7 1709296496000", g.lines[3]);
    hoodie_assert_equal_i(1, truncated);
    hoodie_assert_equal_i(0, stopped);
    hoodie_assert_equal_s("tok+/=&", (const char *)tok.data);
    /* a callback stops it */
    got g2 = { .n = 0, .stop_at = 2 };
    hoodie_assert_ok(hoodie_s3_list_parse(xml, strlen(xml), take, &g2, &stopped, &truncated, NULL));
    hoodie_assert_equal_i(2, g2.n);
    hoodie_assert_equal_i(1, stopped);
    hoodie_buf_dispose(&tok);
    /* the last page, empty */
    const char *empty = "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>";
    got g3 = { .n = 0 };
    hoodie_assert_ok(hoodie_s3_list_parse(empty, strlen(empty), take, &g3, &stopped, &truncated, &tok));
    hoodie_assert_equal_i(0, g3.n);
    hoodie_assert_equal_i(0, truncated);
}

HOODIE_TEST(storage_s3__list_parse_rejects_malformed)
{
    static const char *bad[] = {
        "",
        "<Error><Code>x</Code></Error>",
        "<ListBucketResult><Contents><Key>a</Key>",
        "<ListBucketResult><Contents><Key>a</Key></Contents>",
        "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>a&bogus;</Key></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>a&#0;</Key></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>a&#x110000;</Key></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>a</Key><Size>12x</Size></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>a</Key><Size>99999999999999999999999</Size></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>a</Key><LastModified>yesterday</LastModified></Contents></ListBucketResult>",
        "<ListBucketResult><CommonPrefixes></CommonPrefixes></ListBucketResult>",
        "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
        "<ListBucketResult><Contents><Key>a<b/></Key></Contents></ListBucketResult>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        got g = { .n = 0 };
        int stopped, truncated;
        hoodie_buf tok = HOODIE_BUF_INIT;
        hoodie_status rc = hoodie_s3_list_parse(bad[i], strlen(bad[i]), take, &g, &stopped, &truncated, &tok);
        if (rc != HOODIE_ECORRUPT) fprintf(stderr, "case %zu: %d\n", i, (int)rc);
        hoodie_assert_equal_i(HOODIE_ECORRUPT, rc);
        hoodie_assert_contains(hoodie_error_last()->message, "S3 response");
        hoodie_buf_dispose(&tok);
    }
}

HOODIE_TEST(storage_s3__error_parse_and_time)
{
    const char *xml = "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>The specified key does not "
                      "exist.</Message><Key>t/x</Key></Error>";
    hoodie_buf m = HOODIE_BUF_INIT;
    hoodie_assert_equal_i(1, hoodie_s3_error_parse(xml, strlen(xml), &m));
    hoodie_assert_equal_s("NoSuchKey: The specified key does not exist.", (const char *)m.data);
    m.len = 0;
    hoodie_assert_equal_i(0, hoodie_s3_error_parse("<html>", 6, &m));
    hoodie_buf_dispose(&m);
    hoodie_assert(hoodie_s3_parse_time("1970-01-01T00:00:00Z", 20) == 0);
    hoodie_assert(hoodie_s3_parse_time("2000-02-29T23:59:59.5Z", 22) == 951868799500LL);
    hoodie_assert(hoodie_s3_parse_time("1969-12-31T23:59:59Z", 20) == -1000);
    hoodie_assert(hoodie_s3_parse_time("2000-13-01T00:00:00Z", 20) == -1);
    hoodie_assert(hoodie_s3_parse_time("2000-01-01T00:00:00", 19) == -1);
    hoodie_assert(hoodie_s3_parse_time("2000-01-01 00:00:00Z", 20) == -1);
}

HOODIE_TEST(storage_s3__config_errors)
{
    hoodie_storage *s = NULL;
    hoodie_s3_config c = { .endpoint = "ftp://x", .access_key_id = "a", .secret_access_key = "b" };
    hoodie_assert_status(HOODIE_EINVAL, hoodie_storage_s3_new(&s, &c));
    hoodie_assert_contains(hoodie_error_last()->message, "not an http:// or https:// URL");
    c.endpoint = "http://host:9000/some/path";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_storage_s3_new(&s, &c));
    c.endpoint = "http://host:9000";
    c.secret_access_key = NULL;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_storage_s3_new(&s, &c));
    hoodie_assert_contains(hoodie_error_last()->message, "secret access key");
    c.secret_access_key = "b";
    c.region = "us east";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_storage_s3_new(&s, &c));
    c.region = "eu-west-1";
    hoodie_assert_ok(hoodie_storage_s3_new(&s, &c));
    /* paths that are not S3's, or name a bucket where a file is wanted: refused before any request */
    hoodie_rfile *f = NULL;
    uint64_t size;
    hoodie_assert_status(HOODIE_EINVAL, s->open_read(s->ctx, "/tmp/x", &f, &size));
    hoodie_assert_contains(hoodie_error_last()->message, "not an s3:// or s3a:// path");
    hoodie_assert_status(HOODIE_EINVAL, s->open_read(s->ctx, "s3:///x", &f, &size));
    hoodie_assert_contains(hoodie_error_last()->message, "no bucket");
    hoodie_assert_status(HOODIE_EINVAL, s->open_read(s->ctx, "s3a://bucket/", &f, &size));
    hoodie_assert_contains(hoodie_error_last()->message, "is a bucket");
    /* nothing listens there: a clear I/O error naming the object (connection refused, no retry storm) */
    hoodie_storage_free(s);
    c.endpoint = "http://127.0.0.1:9";
    c.path_style = 1;
    hoodie_assert_ok(hoodie_storage_s3_new(&s, &c));
    hoodie_assert_status(HOODIE_EIO, s->open_read(s->ctx, "s3://b/t/x.parquet", &f, &size));
    hoodie_assert_contains(hoodie_error_last()->message, "s3://b/t/x.parquet: GET:");
    hoodie_storage_free(s);
}

/* The credential documents: the instance and container endpoints' JSON (as AWS documents it), credential_process's
 * (Version 1, SessionToken), STS's AssumeRoleWithWebIdentityResponse, and what each refuses. */
HOODIE_TEST(storage_s3__temporary_credential_documents)
{
    hoodie_s3_creds c;
    static const char imds[] = "{\n  \"Code\" : \"Success\",\n  \"LastUpdated\" : \"2026-12-04T13:00:00Z\",\n"
                               "  \"Type\" : \"AWS-HMAC\",\n  \"AccessKeyId\" : \"ASIAEXAMPLE\",\n"
                               "  \"SecretAccessKey\" : \"se/cret+\",\n  \"Token\" : \"tok==\",\n"
                               "  \"Expiration\" : \"2026-12-04T19:00:00Z\"\n}";
    hoodie_assert_ok(hoodie_s3_creds_parse_json(imds, strlen(imds), "imds", &c));
    hoodie_assert_equal_s("ASIAEXAMPLE", c.ak);
    hoodie_assert_equal_s("se/cret+", c.sk);
    hoodie_assert_equal_s("tok==", c.token);
    hoodie_assert_equal_i(1796410800000LL, c.expires_ms); /* 2026-12-04T19:00:00Z */
    hoodie_s3_creds_dispose(&c);
    static const char proc[] = "{\"Version\": 1, \"AccessKeyId\": \"AK\", \"SecretAccessKey\": \"SK\", "
                               "\"SessionToken\": \"ST\", \"Expiration\": \"2026-12-04T19:00:00.123Z\"}";
    hoodie_assert_ok(hoodie_s3_creds_parse_json(proc, strlen(proc), "proc", &c));
    hoodie_assert_equal_s("ST", c.token);
    hoodie_assert_equal_i(1796410800123LL, c.expires_ms);
    hoodie_s3_creds_dispose(&c);
    static const char forever[] = "{\"Version\": 1, \"AccessKeyId\": \"AK\", \"SecretAccessKey\": \"SK\"}";
    hoodie_assert_ok(hoodie_s3_creds_parse_json(forever, strlen(forever), "proc", &c));
    hoodie_assert(c.token == NULL && c.expires_ms == 0);
    hoodie_s3_creds_dispose(&c);
    static const struct { const char *doc, *msg; } bad[] = {
        { "{\"Code\": \"AssumeRoleUnauthorizedAccess\", \"Message\": \"no role\"}", "Code AssumeRoleUnauthorizedAccess: no role" },
        { "{\"Version\": 2, \"AccessKeyId\": \"AK\", \"SecretAccessKey\": \"SK\"}", "Version must be 1" },
        { "{\"AccessKeyId\": \"AK\"}", "no AccessKeyId or SecretAccessKey" },
        { "{\"AccessKeyId\": \"AK\", \"SecretAccessKey\": \"SK\", \"Expiration\": \"tomorrow\"}", "'tomorrow' is not" },
        { "[1, 2]", "not a JSON object" },
        { "{\"AccessKeyId\": ", "not a JSON object (at offset" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        hoodie_assert(hoodie_s3_creds_parse_json(bad[i].doc, strlen(bad[i].doc), "src", &c) < 0);
        hoodie_assert_contains(hoodie_error_last()->message, bad[i].msg);
        hoodie_assert(c.ak == NULL && c.sk == NULL);
    }
    static const char sts[] =
        "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
        "<AssumeRoleWithWebIdentityResult><SubjectFromWebIdentityToken>amzn1.account.AF6RHO7KZU5XRVQJGXK6HB56KR2A"
        "</SubjectFromWebIdentityToken><Audience>client.5498841531868486423.1548@apps.example.com</Audience>"
        "<AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/FederatedWebIdentityRole/app1</Arn>"
        "<AssumedRoleId>AROACLKWSDQRAOEXAMPLE:app1</AssumedRoleId></AssumedRoleUser><Credentials>"
        "<SessionToken>AQoDYXdzEE0a8ANXXXXXXXXNO1ewxE5TijQyp+IEXAMPLE</SessionToken>"
        "<SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>"
        "<Expiration>2014-10-24T23:00:23Z</Expiration><AccessKeyId>ASgeIAIOSFODNN7EXAMPLE</AccessKeyId>"
        "</Credentials><SourceIdentity>SourceIdentityValue</SourceIdentity><Provider>www.amazon.com</Provider>"
        "</AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE"
        "</RequestId></ResponseMetadata></AssumeRoleWithWebIdentityResponse>";
    hoodie_assert_ok(hoodie_s3_creds_parse_sts(sts, strlen(sts), "sts", &c));
    hoodie_assert_equal_s("ASgeIAIOSFODNN7EXAMPLE", c.ak);
    hoodie_assert_equal_s("wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY", c.sk);
    hoodie_assert_equal_s("AQoDYXdzEE0a8ANXXXXXXXXNO1ewxE5TijQyp+IEXAMPLE", c.token);
    hoodie_assert_equal_i(1414191623000LL, c.expires_ms);
    hoodie_s3_creds_dispose(&c);
    static const char sts_err[] = "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error>"
                                  "<Type>Sender</Type><Code>InvalidIdentityToken</Code><Message>bad token</Message>"
                                  "</Error><RequestId>x</RequestId></ErrorResponse>";
    hoodie_assert_status(HOODIE_EIO, hoodie_s3_creds_parse_sts(sts_err, strlen(sts_err), "sts", &c));
    hoodie_assert_contains(hoodie_error_last()->message, "sts: InvalidIdentityToken: bad token");
    hoodie_assert(hoodie_s3_creds_parse_sts("<x/>", 4, "sts", &c) < 0);
    hoodie_assert_contains(hoodie_error_last()->message, "no AccessKeyId");
}

/* Which source the environment and the profile choose, in the AWS SDKs' order. */
HOODIE_TEST(storage_s3__credential_source_order)
{
    static const char *const vars[] = { "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ENDPOINT_URL_STS",
                                        "AWS_ENDPOINT_URL", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                                        "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_EC2_METADATA_DISABLED",
                                        "AWS_EC2_METADATA_SERVICE_ENDPOINT", "AWS_ROLE_SESSION_NAME" };
    char *saved[sizeof vars / sizeof *vars];
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        saved[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
        unsetenv(vars[i]);
    }
    hoodie_s3_provider *p;
    hoodie_assert_ok(hoodie_s3_provider_from_env(&p, "eu-west-3", NULL)); /* nothing set: the instance, maybe */
    hoodie_assert(p && hoodie_s3_provider_is_instance(p));
    hoodie_assert_equal_s("instance metadata http://169.254.169.254", hoodie_s3_provider_name(p));
    hoodie_s3_provider_free(p);
    setenv("AWS_EC2_METADATA_DISABLED", "TRUE", 1);
    hoodie_assert_ok(hoodie_s3_provider_from_env(&p, "eu-west-3", NULL));
    hoodie_assert(p == NULL);
    setenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/abc", 1);
    hoodie_assert_ok(hoodie_s3_provider_from_env(&p, "eu-west-3", NULL));
    hoodie_assert_equal_s("container endpoint http://169.254.170.2/v2/credentials/abc", hoodie_s3_provider_name(p));
    hoodie_s3_provider_free(p);
    hoodie_s3_profile_sources ps = { NULL, NULL, NULL, "/usr/bin/creds --json", NULL,
                                     NULL, NULL, NULL, NULL, NULL, NULL };
    hoodie_assert_ok(hoodie_s3_provider_from_env(&p, "eu-west-3", &ps)); /* the profile's process comes first */
    hoodie_assert_equal_s("credential_process '/usr/bin/creds --json'", hoodie_s3_provider_name(p));
    hoodie_s3_provider_free(p);
    ps.role_arn = "arn:aws:iam::1:role/r"; /* and web identity before it, when both its settings are there */
    hoodie_assert_ok(hoodie_s3_provider_from_env(&p, "eu-west-3", &ps));
    hoodie_assert_equal_s("credential_process '/usr/bin/creds --json'", hoodie_s3_provider_name(p));
    hoodie_s3_provider_free(p);
    /* a role to assume with a source (the source profile's keys, or a credential_source) comes before the process */
    ps.credential_source = "EcsContainer";
    hoodie_assert_ok(hoodie_s3_provider_from_env(&p, "eu-west-3", &ps));
    hoodie_assert_equal_s("assume role arn:aws:iam::1:role/r (credential_source container endpoint "
                          "http://169.254.170.2/v2/credentials/abc)", hoodie_s3_provider_name(p));
    hoodie_s3_provider_free(p);
    ps.credential_source = "Ec2";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_s3_provider_from_env(&p, "eu-west-3", &ps));
    hoodie_assert_contains(hoodie_error_last()->message, "credential_source 'Ec2' is not one of");
    ps.credential_source = NULL;
    ps.source_ak = "AKIASOURCE";
    ps.source_sk = "secret";
    ps.duration_seconds = "60";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_s3_provider_from_env(&p, "eu-west-3", &ps));
    hoodie_assert_contains(hoodie_error_last()->message, "duration_seconds '60' is not a number of seconds");
    ps.duration_seconds = "7200";
    hoodie_assert_ok(hoodie_s3_provider_from_env(&p, "eu-west-3", &ps));
    hoodie_assert_equal_s("assume role arn:aws:iam::1:role/r (source profile keys AKIASOURCE)",
                          hoodie_s3_provider_name(p));
    hoodie_s3_provider_free(p);
    ps.web_identity_token_file = "/var/run/token";
    hoodie_assert_ok(hoodie_s3_provider_from_env(&p, "eu-west-3", &ps));
    hoodie_assert_equal_s("web identity (role arn:aws:iam::1:role/r, token /var/run/token)", hoodie_s3_provider_name(p));
    hoodie_s3_provider_free(p);
    setenv("AWS_ROLE_ARN", "arn:aws:iam::2:role/env", 1); /* the environment over the profile */
    hoodie_assert_ok(hoodie_s3_provider_from_env(&p, "eu-west-3", &ps));
    hoodie_assert_equal_s("web identity (role arn:aws:iam::2:role/env, token /var/run/token)", hoodie_s3_provider_name(p));
    hoodie_s3_provider_free(p);
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        if (saved[i]) setenv(vars[i], saved[i], 1);
        else unsetenv(vars[i]);
        free(saved[i]);
    }
}

/* The requests S3 makes of a reader's advice: close ranges merge, long ones split at 8 MiB, nothing is fetched
 * twice or from the cached tail, and the plan stops at 256 MiB. */
HOODIE_TEST(storage_s3__read_ahead_plan)
{
    const uint64_t MiB = 1024 * 1024;
    hoodie_s3_piece *p;
    size_t n;
    /* a row group's chunks, contiguous or nearly (a 1 KiB gap), then one just over 64 KiB past: two requests */
    uint64_t o1[] = { 4, 1004, 2004 + 1024, 0 };
    size_t l1[] = { 1000, 1000, 2000, 500 };
    o1[3] = o1[2] + l1[2] + 64 * 1024 + 1;
    hoodie_assert_ok(hoodie_s3_plan_ahead(o1, l1, 4, 100 * MiB, &p, &n));
    hoodie_assert_equal_i(2, (int64_t)n);
    hoodie_assert_equal_i(4, (int64_t)p[0].off);
    hoodie_assert_equal_i((int64_t)(o1[2] + l1[2] - 4), (int64_t)p[0].len);
    hoodie_assert_equal_i((int64_t)o1[3], (int64_t)p[1].off);
    hoodie_assert_equal_i(500, (int64_t)p[1].len);
    free(p);
    /* one 20 MiB chunk: 8 + 8 + 4; its last 3 MiB are the cached tail: 8 + 8 + 1 */
    uint64_t o2[] = { 0 };
    size_t l2[] = { (size_t)(20 * MiB) };
    hoodie_assert_ok(hoodie_s3_plan_ahead(o2, l2, 1, 17 * MiB, &p, &n));
    hoodie_assert_equal_i(3, (int64_t)n);
    hoodie_assert_equal_i((int64_t)(8 * MiB), (int64_t)p[1].off);
    hoodie_assert_equal_i((int64_t)(8 * MiB), (int64_t)p[1].len);
    hoodie_assert_equal_i((int64_t)MiB, (int64_t)p[2].len);
    free(p);
    /* overlapping announcements are fetched once; a range wholly in the tail is not fetched */
    uint64_t o3[] = { 100, 150, 900 };
    size_t l3[] = { 100, 100, 50 };
    hoodie_assert_ok(hoodie_s3_plan_ahead(o3, l3, 3, 800, &p, &n));
    hoodie_assert_equal_i(1, (int64_t)n);
    hoodie_assert_equal_i(100, (int64_t)p[0].off);
    hoodie_assert_equal_i(150, (int64_t)p[0].len);
    free(p);
    /* a gap of just over 64 KiB splits; a request near 8 MiB does not grow past it over a gap */
    uint64_t o4[] = { 0, 1000 + 64 * 1024 + 1, 8 * MiB - 10, 8 * MiB + 100 };
    size_t l4[] = { 1000, 10, 5, 10 };
    o4[2] = o4[1] + 10; /* adjacent: merged into the second request */
    hoodie_assert_ok(hoodie_s3_plan_ahead(o4, l4, 4, 100 * MiB, &p, &n));
    hoodie_assert_equal_i(3, (int64_t)n);
    hoodie_assert_equal_i((int64_t)o4[1], (int64_t)p[1].off);
    hoodie_assert_equal_i(15, (int64_t)p[1].len);
    hoodie_assert_equal_i((int64_t)(8 * MiB + 100), (int64_t)p[2].off);
    free(p);
    uint64_t o5[] = { 7 * MiB + 1000, 8 * MiB + 2000 }; /* the second starts within a gap of the first, past 8 MiB */
    size_t l5[] = { (size_t)MiB - 1000, 10 };
    hoodie_assert_ok(hoodie_s3_plan_ahead(o5, l5, 2, 100 * MiB, &p, &n));
    hoodie_assert_equal_i(1, (int64_t)n); /* 7 MiB + 1000 .. 8 MiB + 2010: one request under 8 MiB */
    hoodie_assert_equal_i((int64_t)(MiB + 1010), (int64_t)p[0].len);
    free(p);
    uint64_t o6[] = { 0, 8 * MiB + 2000 };
    size_t l6[] = { (size_t)(8 * MiB) - 10, 10 }; /* the first is nearly 8 MiB: the second cannot join it */
    hoodie_assert_ok(hoodie_s3_plan_ahead(o6, l6, 2, 100 * MiB, &p, &n));
    hoodie_assert_equal_i(2, (int64_t)n);
    hoodie_assert_equal_i((int64_t)(8 * MiB + 2000), (int64_t)p[1].off);
    hoodie_assert_equal_i(10, (int64_t)p[1].len);
    free(p);
    /* at most 256 MiB are planned; nothing announced, nothing planned */
    uint64_t o7[] = { 0 };
    size_t l7[] = { (size_t)(1024 * MiB) };
    hoodie_assert_ok(hoodie_s3_plan_ahead(o7, l7, 1, 2048 * MiB, &p, &n));
    hoodie_assert_equal_i(32, (int64_t)n);
    free(p);
    hoodie_assert_ok(hoodie_s3_plan_ahead(o7, l7, 0, 2048 * MiB, &p, &n));
    hoodie_assert(n == 0 && p == NULL);
}
