/* Temporary AWS credentials: see s3_creds.h. */
#include "storage/s3_creds.h"
#include "storage/s3_sign.h"
#include "storage/s3_xml.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/sha256.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>

/* ---- the documents ---- */

static void wipe_free(char *s)
{
    if (!s) return;
    memset(s, 0, strlen(s));
    free(s);
}

/* Dispose of a buffer that held a secret (a token, keys), zeroed first. */
static void buf_wipe(hoodie_buf *b)
{
    if (b->data) memset(b->data, 0, b->len);
    hoodie_buf_dispose(b);
}

void hoodie_s3_creds_dispose(hoodie_s3_creds *c)
{
    wipe_free(c->ak);
    wipe_free(c->sk);
    wipe_free(c->token);
    c->ak = c->sk = c->token = NULL;
    c->expires_ms = 0;
}

/* Expiration as the sources write it: "2026-12-04T19:51:24Z", with or without fractional seconds. */
static hoodie_status expiration(const char *s, const char *what, int64_t *ms)
{
    *ms = hoodie_s3_parse_time(s, strlen(s));
    if (*ms < 0) return HOODIE_FAIL(HOODIE_ECORRUPT, "%s: Expiration '%s' is not an ISO 8601 time", what, s);
    return HOODIE_OK;
}

static hoodie_status check_keys(hoodie_s3_creds *c, const char *what)
{
    if (!c->ak || !*c->ak || !c->sk || !*c->sk) {
        hoodie_s3_creds_dispose(c);
        return HOODIE_FAIL(HOODIE_ECORRUPT, "%s: the answer has no AccessKeyId or SecretAccessKey", what);
    }
    return HOODIE_OK;
}

hoodie_status hoodie_s3_creds_parse_json(const char *text, size_t len, const char *what, hoodie_s3_creds *out)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *o = json_loadb(text, len, 0, &je);
    if (!o || !json_is_object(o)) {
        json_decref(o);
        return HOODIE_FAIL(HOODIE_ECORRUPT, "%s: not a JSON object (at offset %d: %s)", what, o ? 0 : je.position,
                           o ? "another value" : je.text);
    }
    const char *code = json_string_value(json_object_get(o, "Code")); /* the instance service says how it went */
    if (code && strcmp(code, "Success")) {
        hoodie_status rc = HOODIE_FAIL(HOODIE_EIO, "%s: Code %s: %s", what, code,
                                       json_string_value(json_object_get(o, "Message")) ?
                                       json_string_value(json_object_get(o, "Message")) : "(no message)");
        json_decref(o);
        return rc;
    }
    json_t *ver = json_object_get(o, "Version"); /* credential_process documents are version 1 */
    if (ver && (!json_is_integer(ver) || json_integer_value(ver) != 1)) {
        json_decref(o);
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: Version must be 1", what);
    }
    const char *ak = json_string_value(json_object_get(o, "AccessKeyId"));
    const char *sk = json_string_value(json_object_get(o, "SecretAccessKey"));
    const char *tok = json_string_value(json_object_get(o, "Token"));
    if (!tok) tok = json_string_value(json_object_get(o, "SessionToken"));
    const char *exp = json_string_value(json_object_get(o, "Expiration"));
    hoodie_status rc = HOODIE_OK;
    out->ak = ak ? strdup(ak) : NULL;
    out->sk = sk ? strdup(sk) : NULL;
    out->token = tok && *tok ? strdup(tok) : NULL;
    if ((ak && !out->ak) || (sk && !out->sk) || (tok && *tok && !out->token)) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK && exp) rc = expiration(exp, what, &out->expires_ms);
    json_decref(o);
    if (rc < 0) { hoodie_s3_creds_dispose(out); return rc; }
    return check_keys(out, what);
}

static hoodie_status xml_dup(const char *xml, size_t len, const char *name, char **out)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    *out = NULL;
    if (!hoodie_s3_xml_value(xml, len, name, &b)) { hoodie_buf_dispose(&b); return HOODIE_OK; }
    *out = (char *)hoodie_buf_detach(&b, NULL);
    return *out ? HOODIE_OK : HOODIE_NOMEM();
}

hoodie_status hoodie_s3_creds_parse_sts(const char *xml, size_t len, const char *what, hoodie_s3_creds *out)
{
    memset(out, 0, sizeof *out);
    hoodie_buf m = HOODIE_BUF_INIT;
    if (hoodie_s3_error_parse(xml, len, &m)) {
        hoodie_status rc = HOODIE_FAIL(HOODIE_EIO, "%s: %s", what, (const char *)m.data);
        hoodie_buf_dispose(&m);
        return rc;
    }
    hoodie_buf_dispose(&m);
    char *exp = NULL;
    hoodie_status rc = xml_dup(xml, len, "AccessKeyId", &out->ak);
    if (rc == HOODIE_OK) rc = xml_dup(xml, len, "SecretAccessKey", &out->sk);
    if (rc == HOODIE_OK) rc = xml_dup(xml, len, "SessionToken", &out->token);
    if (rc == HOODIE_OK) rc = xml_dup(xml, len, "Expiration", &exp);
    if (rc == HOODIE_OK && exp) rc = expiration(exp, what, &out->expires_ms);
    free(exp);
    if (rc < 0) { hoodie_s3_creds_dispose(out); return rc; }
    return check_keys(out, what);
}

/* ---- the sources ---- */

typedef enum { SRC_WEB_IDENTITY, SRC_ASSUME_ROLE, SRC_PROCESS, SRC_CONTAINER, SRC_INSTANCE } src_kind;

struct hoodie_s3_provider {
    src_kind kind;
    char *name;         /* for messages */
    char *url;          /* STS endpoint, container URL, instance endpoint */
    char *role_arn, *token_file, *session_name;
    char *command;      /* credential_process */
    char *auth, *auth_file; /* container: the Authorization value, or the file holding it */
    char *ca;           /* CA bundle for https, or NULL: the system's */
    /* assume role: the source's keys (NULL with `source`), the role's options, STS's region */
    char *src_ak, *src_sk, *src_token;
    struct hoodie_s3_provider *source; /* credential_source Ec2InstanceMetadata / EcsContainer */
    char *external_id, *region;
    int duration_s;
};

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

void hoodie_s3_provider_free(hoodie_s3_provider *p)
{
    if (!p) return;
    free(p->name);
    free(p->url);
    free(p->role_arn);
    free(p->token_file);
    free(p->session_name);
    free(p->command);
    wipe_free(p->auth);
    free(p->auth_file);
    free(p->ca);
    free(p->src_ak);
    wipe_free(p->src_sk);
    wipe_free(p->src_token);
    hoodie_s3_provider_free(p->source);
    free(p->external_id);
    free(p->region);
    free(p);
}

const char *hoodie_s3_provider_name(const hoodie_s3_provider *p) { return p->name; }
int hoodie_s3_provider_is_instance(const hoodie_s3_provider *p) { return p->kind == SRC_INSTANCE; }

static int dup_into(char **dst, const char *s, int *fail)
{
    if (!s) return 0;
    *dst = strdup(s);
    if (!*dst) *fail = 1;
    return 1;
}

static char *trim_end(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
    return s;
}

/* p as the container endpoint source (the environment names it). */
static hoodie_status init_container(hoodie_s3_provider *p, hoodie_buf *name, int *fail)
{
    p->kind = SRC_CONTAINER;
    hoodie_status rc;
    if (env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"))
        rc = hoodie_buf_printf(name, "http://169.254.170.2%s", env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"));
    else if (env("AWS_CONTAINER_CREDENTIALS_FULL_URI"))
        rc = hoodie_buf_append_str(name, env("AWS_CONTAINER_CREDENTIALS_FULL_URI"));
    else
        return HOODIE_FAIL(HOODIE_EINVAL, "credential_source EcsContainer, but neither "
                                          "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI nor _FULL_URI is set");
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(name);
    if (rc == HOODIE_OK) dup_into(&p->url, (const char *)name->data, fail);
    if (!dup_into(&p->auth_file, env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"), fail))
        dup_into(&p->auth, env("AWS_CONTAINER_AUTHORIZATION_TOKEN"), fail);
    name->len = 0;
    if (rc == HOODIE_OK) rc = hoodie_buf_printf(name, "container endpoint %s", p->url ? p->url : "?");
    return rc;
}

/* p as the instance metadata source. */
static hoodie_status init_instance(hoodie_s3_provider *p, hoodie_buf *name, int *fail)
{
    p->kind = SRC_INSTANCE;
    const char *ep = env("AWS_EC2_METADATA_SERVICE_ENDPOINT");
    dup_into(&p->url, ep ? ep : "http://169.254.169.254", fail);
    if (p->url) {
        size_t n = strlen(p->url);
        while (n && p->url[n - 1] == '/') p->url[--n] = '\0';
    }
    return hoodie_buf_printf(name, "instance metadata %s", p->url ? p->url : "?");
}

/* STS's endpoint: AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL, or https://sts.<region>.amazonaws.com[.cn]. */
static void sts_url(hoodie_s3_provider *p, const char *region, hoodie_buf *tmp, int *fail)
{
    const char *ep = env("AWS_ENDPOINT_URL_STS") ? env("AWS_ENDPOINT_URL_STS") : env("AWS_ENDPOINT_URL");
    if (ep) dup_into(&p->url, ep, fail);
    else if (hoodie_buf_printf(tmp, "https://sts.%s.%s", region ? region : "us-east-1", hoodie_s3_aws_domain(region)) ==
             HOODIE_OK)
        dup_into(&p->url, (const char *)tmp->data, fail);
    else *fail = 1;
    tmp->len = 0;
}

/* The role session name: AWS_ROLE_SESSION_NAME, the profile's, or hoodie-<time>. */
static void session_name(hoodie_s3_provider *p, const hoodie_s3_profile_sources *prof, int *fail)
{
    const char *sn = env("AWS_ROLE_SESSION_NAME") ? env("AWS_ROLE_SESSION_NAME") : prof->role_session_name;
    char def[48];
    snprintf(def, sizeof def, "hoodie-%lld", (long long)time(NULL));
    dup_into(&p->session_name, sn ? sn : def, fail);
}

/* p as AssumeRole of the profile's role_arn with its source_profile's keys or its credential_source. */
static hoodie_status init_assume_role(hoodie_s3_provider *p, const char *region, const hoodie_s3_profile_sources *prof,
                                      hoodie_buf *name, int *fail)
{
    p->kind = SRC_ASSUME_ROLE;
    sts_url(p, region, name, fail);
    dup_into(&p->role_arn, prof->role_arn, fail);
    session_name(p, prof, fail);
    dup_into(&p->external_id, prof->external_id, fail);
    dup_into(&p->region, region ? region : "us-east-1", fail);
    p->duration_s = 3600;
    if (prof->duration_seconds) {
        char *end;
        long d = strtol(prof->duration_seconds, &end, 10);
        if (*end || d < 900 || d > 43200)
            return HOODIE_FAIL(HOODIE_EINVAL, "duration_seconds '%s' is not a number of seconds from 900 to 43200",
                               prof->duration_seconds);
        p->duration_s = (int)d;
    }
    const char *cs = prof->credential_source;
    hoodie_status rc = HOODIE_OK;
    if (prof->source_ak) {
        dup_into(&p->src_ak, prof->source_ak, fail);
        dup_into(&p->src_sk, prof->source_sk, fail);
        dup_into(&p->src_token, prof->source_token, fail);
        rc = hoodie_buf_printf(name, "assume role %s (source profile keys %s)", prof->role_arn, prof->source_ak);
    } else if (cs && (!strcmp(cs, "Ec2InstanceMetadata") || !strcmp(cs, "EcsContainer"))) {
        hoodie_buf sn = HOODIE_BUF_INIT;
        if (!(p->source = calloc(1, sizeof *p->source))) return HOODIE_NOMEM();
        rc = !strcmp(cs, "EcsContainer") ? init_container(p->source, &sn, fail) : init_instance(p->source, &sn, fail);
        if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&sn);
        dup_into(&p->source->ca, prof->ca_bundle, fail);
        if (rc == HOODIE_OK) p->source->name = (char *)hoodie_buf_detach(&sn, NULL);
        hoodie_buf_dispose(&sn);
        if (rc == HOODIE_OK && !p->source->name) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK)
            rc = hoodie_buf_printf(name, "assume role %s (credential_source %s)", prof->role_arn, p->source->name);
    } else {
        rc = HOODIE_FAIL(HOODIE_EINVAL, "role_arn %s: credential_source '%s' is not one of Ec2InstanceMetadata, "
                                        "EcsContainer (keys in the environment are used as they are)",
                                 prof->role_arn, cs ? cs : "");
    }
    return rc;
}

hoodie_status hoodie_s3_provider_from_env(hoodie_s3_provider **out, const char *region,
                                          const hoodie_s3_profile_sources *prof)
{
    *out = NULL;
    static const hoodie_s3_profile_sources none = { 0 };
    if (!prof) prof = &none;
    hoodie_s3_provider *p = calloc(1, sizeof *p);
    if (!p) return HOODIE_NOMEM();
    int fail = 0;
    hoodie_buf name = HOODIE_BUF_INIT;
    const char *role = env("AWS_ROLE_ARN") ? env("AWS_ROLE_ARN") : prof->role_arn;
    const char *tokf = env("AWS_WEB_IDENTITY_TOKEN_FILE") ? env("AWS_WEB_IDENTITY_TOKEN_FILE")
                                                          : prof->web_identity_token_file;
    hoodie_status rc = HOODIE_OK;
    if (role && tokf) {
        p->kind = SRC_WEB_IDENTITY;
        sts_url(p, region, &name, &fail);
        dup_into(&p->role_arn, role, &fail);
        dup_into(&p->token_file, tokf, &fail);
        session_name(p, prof, &fail);
        rc = hoodie_buf_printf(&name, "web identity (role %s, token %s)", role, tokf);
    } else if (prof->role_arn && (prof->source_ak || prof->credential_source)) {
        rc = init_assume_role(p, region, prof, &name, &fail);
    } else if (prof->credential_process) {
        p->kind = SRC_PROCESS;
        dup_into(&p->command, prof->credential_process, &fail);
        rc = hoodie_buf_printf(&name, "credential_process '%s'", prof->credential_process);
    } else if (env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") || env("AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
        rc = init_container(p, &name, &fail);
    } else {
        const char *off = env("AWS_EC2_METADATA_DISABLED");
        if (off && !strcasecmp(off, "true")) {
            hoodie_buf_dispose(&name);
            free(p);
            return HOODIE_OK;
        }
        rc = init_instance(p, &name, &fail);
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&name);
    dup_into(&p->ca, prof->ca_bundle, &fail);
    if (rc == HOODIE_OK && !fail) p->name = (char *)hoodie_buf_detach(&name, NULL);
    hoodie_buf_dispose(&name);
    if (rc < 0 || fail || !p->name) {
        hoodie_s3_provider_free(p);
        return rc < 0 ? rc : HOODIE_NOMEM();
    }
    *out = p;
    return HOODIE_OK;
}

/* ---- fetching ---- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_rc;
static void curl_init(void) { curl_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

#define ANSWER_MAX (1024 * 1024)

static size_t on_data(char *d, size_t size, size_t n, void *ud)
{
    hoodie_buf *b = ud;
    size_t len = size * n;
    if (b->len + len > ANSWER_MAX) return 0;
    return hoodie_buf_append(b, d, len) == HOODIE_OK ? len : 0;
}

/* One unsigned request: *status and the answer in body; HOODIE_EIO when the server cannot be reached. `shown`: the
 * URL for messages (STS's carries the web identity token). */
static hoodie_status http_call(const hoodie_s3_provider *p, const char *method, const char *url, const char *shown,
                               struct curl_slist *hdrs, long connect_s, long total_s, long *status, hoodie_buf *body,
                               const hoodie_buf *form)
{
    if (pthread_once(&curl_once, curl_init) != 0 || curl_rc != CURLE_OK)
        return HOODIE_FAIL(HOODIE_EIO, "cannot initialise libcurl");
    CURL *h = curl_easy_init();
    if (!h) return HOODIE_NOMEM();
    char err[CURL_ERROR_SIZE] = "";
    body->len = 0;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, connect_s);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, total_s);
    if (p->ca) curl_easy_setopt(h, CURLOPT_CAINFO, p->ca);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, body);
    if (form) { /* a POST of a form */
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, (const char *)form->data);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)form->len);
    } else if (strcmp(method, "GET")) {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    }
    CURLcode c = curl_easy_perform(h);
    *status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(h);
    if (c != CURLE_OK)
        return HOODIE_FAIL(HOODIE_EIO, "%s: %s %s: %s", p->name, method, shown, *err ? err : curl_easy_strerror(c));
    return hoodie_buf_cstr(body);
}

static hoodie_status add_hdr(struct curl_slist **l, const char *name, const char *value)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_printf(&b, "%s: %s", name, value);
    struct curl_slist *n = rc == HOODIE_OK ? curl_slist_append(*l, (const char *)b.data) : NULL;
    buf_wipe(&b);
    if (!n) return rc < 0 ? rc : HOODIE_NOMEM();
    *l = n;
    return HOODIE_OK;
}

static hoodie_status read_small_file(const char *path, const char *what, hoodie_buf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return HOODIE_FAIL(HOODIE_EIO, "%s: cannot read %s", what, path);
    char chunk[4096];
    size_t n;
    hoodie_status rc = HOODIE_OK;
    while (rc == HOODIE_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (out->len + n > ANSWER_MAX) rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: %s is larger than 1 MiB", what, path);
        else rc = hoodie_buf_append(out, chunk, n);
    }
    if (rc == HOODIE_OK && ferror(f)) rc = HOODIE_FAIL(HOODIE_EIO, "%s: cannot read %s", what, path);
    fclose(f);
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(out);
    if (rc == HOODIE_OK) trim_end((char *)out->data);
    return rc;
}

static hoodie_status status_error(const char *what, const char *method, const char *url, long status,
                                  const hoodie_buf *body)
{
    hoodie_buf m = HOODIE_BUF_INIT;
    int have = body->len && hoodie_s3_error_parse((const char *)body->data, body->len, &m);
    hoodie_status rc = HOODIE_FAIL(HOODIE_EIO, "%s: %s %s: HTTP %ld%s%s", what, method, url, status, have ? " " : "",
                                   have ? (const char *)m.data : "");
    hoodie_buf_dispose(&m);
    return rc;
}

static hoodie_status fetch_web_identity(hoodie_s3_provider *p, hoodie_s3_creds *out)
{
    hoodie_buf tok = HOODIE_BUF_INIT, url = HOODIE_BUF_INIT, body = HOODIE_BUF_INIT;
    hoodie_status rc = read_small_file(p->token_file, p->name, &tok); /* read each time: the token rotates */
    if (rc == HOODIE_OK && !tok.len) rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: the token file is empty", p->name);
    const char *base = p->url;
    size_t bl = strlen(base);
    while (bl && base[bl - 1] == '/') bl--;
    /* the parameters as a form in a POST's body, not in the URL: the token stays out of logs of URLs */
    hoodie_buf form = HOODIE_BUF_INIT;
    if (rc == HOODIE_OK) rc = hoodie_buf_printf(&url, "%.*s/", (int)bl, base);
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&url);
    if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&form, "Action=AssumeRoleWithWebIdentity&DurationSeconds=3600&RoleArn=");
    if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&form, p->role_arn, strlen(p->role_arn), 0);
    if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&form, "&RoleSessionName=");
    if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&form, p->session_name, strlen(p->session_name), 0);
    if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&form, "&Version=2011-06-15&WebIdentityToken=");
    if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&form, (const char *)tok.data, tok.len, 0);
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&form);
    long status = 0;
    if (rc == HOODIE_OK) {
        struct curl_slist *h = NULL;
        rc = add_hdr(&h, "Accept", "application/xml");
        if (rc == HOODIE_OK) rc = add_hdr(&h, "Content-Type", "application/x-www-form-urlencoded");
        if (rc == HOODIE_OK) rc = http_call(p, "POST", (const char *)url.data, p->url, h, 10, 30, &status, &body, &form);
        curl_slist_free_all(h);
    }
    buf_wipe(&form);
    if (rc == HOODIE_OK && status != 200) rc = status_error(p->name, "AssumeRoleWithWebIdentity", p->url, status, &body);
    if (rc == HOODIE_OK) rc = hoodie_s3_creds_parse_sts((const char *)body.data, body.len, p->name, out);
    buf_wipe(&tok);
    buf_wipe(&url);
    hoodie_buf_dispose(&body);
    return rc;
}

static hoodie_status fetch_process(hoodie_s3_provider *p, hoodie_s3_creds *out)
{
    fflush(NULL);
    FILE *f = popen(p->command, "r");
    if (!f) return HOODIE_FAIL(HOODIE_EIO, "%s: cannot run it", p->name);
    hoodie_buf b = HOODIE_BUF_INIT;
    char chunk[4096];
    size_t n;
    hoodie_status rc = HOODIE_OK;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (rc == HOODIE_OK) rc = b.len + n > ANSWER_MAX ? HOODIE_FAIL(HOODIE_EINVAL, "%s: more than 1 MiB of output",
                                                                      p->name)
                                                         : hoodie_buf_append(&b, chunk, n);
    int st = pclose(f);
    if (rc == HOODIE_OK && (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0))
        rc = HOODIE_FAIL(HOODIE_EIO, "%s: exited with status %d", p->name,
                         st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    if (rc == HOODIE_OK) rc = hoodie_s3_creds_parse_json((const char *)b.data, b.len, p->name, out);
    buf_wipe(&b);
    return rc;
}

static hoodie_status fetch_container(hoodie_s3_provider *p, hoodie_s3_creds *out)
{
    struct curl_slist *h = NULL;
    hoodie_buf auth = HOODIE_BUF_INIT, body = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    if (p->auth_file) rc = read_small_file(p->auth_file, p->name, &auth);
    else if (p->auth) rc = hoodie_buf_append_str(&auth, p->auth);
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&auth);
    if (rc == HOODIE_OK && auth.len) rc = add_hdr(&h, "Authorization", (const char *)auth.data);
    long status = 0;
    if (rc == HOODIE_OK) rc = http_call(p, "GET", p->url, p->url, h, 2, 10, &status, &body, NULL);
    if (rc == HOODIE_OK && status != 200) rc = status_error(p->name, "GET", p->url, status, &body);
    if (rc == HOODIE_OK) rc = hoodie_s3_creds_parse_json((const char *)body.data, body.len, p->name, out);
    curl_slist_free_all(h);
    buf_wipe(&auth);
    buf_wipe(&body);
    return rc;
}

static hoodie_status fetch_instance(hoodie_s3_provider *p, hoodie_s3_creds *out)
{
    hoodie_buf url = HOODIE_BUF_INIT, token = HOODIE_BUF_INIT, body = HOODIE_BUF_INIT;
    struct curl_slist *h = NULL;
    long status = 0;
    /* IMDSv2: a session token first (1 s to connect: most machines have no such service) */
    hoodie_status rc = hoodie_buf_printf(&url, "%s/latest/api/token", p->url);
    if (rc == HOODIE_OK) rc = add_hdr(&h, "X-aws-ec2-metadata-token-ttl-seconds", "21600");
    if (rc == HOODIE_OK) rc = http_call(p, "PUT", (const char *)url.data, (const char *)url.data, h, 1, 2, &status, &token, NULL);
    curl_slist_free_all(h);
    h = NULL;
    if (rc == HOODIE_OK && status == 200 && token.len) {
        rc = add_hdr(&h, "X-aws-ec2-metadata-token", trim_end((char *)token.data));
    } else if (rc == HOODIE_OK && status == 403) {
        rc = HOODIE_FAIL(HOODIE_EIO, "%s: the instance metadata service is disabled (HTTP 403)", p->name);
    } /* else IMDSv1: no token */
    url.len = 0;
    if (rc == HOODIE_OK) rc = hoodie_buf_printf(&url, "%s/latest/meta-data/iam/security-credentials/", p->url);
    if (rc == HOODIE_OK) rc = http_call(p, "GET", (const char *)url.data, (const char *)url.data, h, 1, 2, &status, &body, NULL);
    if (rc == HOODIE_OK && status == 404)
        rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: the instance has no IAM role", p->name);
    else if (rc == HOODIE_OK && status != 200) rc = status_error(p->name, "GET", (const char *)url.data, status, &body);
    if (rc == HOODIE_OK) {
        char *role = (char *)body.data, *nl = strchr(role, '\n'); /* the first role listed */
        if (nl) *nl = '\0';
        trim_end(role);
        if (!*role) rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: the instance has no IAM role", p->name);
        else rc = hoodie_buf_append_str(&url, role);
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&url);
    if (rc == HOODIE_OK) rc = http_call(p, "GET", (const char *)url.data, (const char *)url.data, h, 1, 5, &status, &body, NULL);
    if (rc == HOODIE_OK && status != 200) rc = status_error(p->name, "GET", (const char *)url.data, status, &body);
    if (rc == HOODIE_OK) rc = hoodie_s3_creds_parse_json((const char *)body.data, body.len, p->name, out);
    curl_slist_free_all(h);
    hoodie_buf_dispose(&url);
    buf_wipe(&token);
    buf_wipe(&body);
    return rc;
}

/* STS AssumeRole: a POST of a form, signed (service "sts") with the source's credentials. */
static hoodie_status fetch_assume_role(hoodie_s3_provider *p, hoodie_s3_creds *out)
{
    hoodie_s3_creds src = { NULL, NULL, NULL, 0 };
    const char *ak = p->src_ak, *sk = p->src_sk, *tok = p->src_token;
    hoodie_status rc = HOODIE_OK;
    if (p->source) {
        rc = hoodie_s3_provider_fetch(p->source, &src);
        if (rc < 0) hoodie_error__prefix("%s: ", p->name);
        ak = src.ak, sk = src.sk, tok = src.token;
    }
    if (rc == HOODIE_OK && (!ak || !sk)) rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: the source has no secret key", p->name);
    hoodie_buf form = HOODIE_BUF_INIT, url = HOODIE_BUF_INIT, host = HOODIE_BUF_INIT, auth = HOODIE_BUF_INIT;
    hoodie_buf body = HOODIE_BUF_INIT;
    if (rc == HOODIE_OK) rc = hoodie_buf_printf(&form, "Action=AssumeRole&DurationSeconds=%d", p->duration_s);
    if (rc == HOODIE_OK && p->external_id) {
        rc = hoodie_buf_append_str(&form, "&ExternalId=");
        if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&form, p->external_id, strlen(p->external_id), 0);
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&form, "&RoleArn=");
    if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&form, p->role_arn, strlen(p->role_arn), 0);
    if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&form, "&RoleSessionName=");
    if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&form, p->session_name, strlen(p->session_name), 0);
    if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&form, "&Version=2011-06-15");
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&form);
    /* the endpoint's authority is the Host header, sent as signed */
    const char *base = p->url, *a = strstr(base, "://");
    a = a ? a + 3 : base;
    size_t al = strcspn(a, "/?#"), bl = strlen(base);
    while (bl && base[bl - 1] == '/') bl--;
    if (rc == HOODIE_OK) rc = hoodie_buf_printf(&url, "%.*s/", (int)bl, base);
    if (rc == HOODIE_OK) rc = hoodie_buf_printf(&host, "%.*s", (int)al, a);
    char date[17], hash[2 * HOODIE_SHA256_LEN + 1];
    if (rc == HOODIE_OK) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(date, sizeof date, "%Y%m%dT%H%M%SZ", &tm);
        uint8_t d[HOODIE_SHA256_LEN];
        hoodie_sha256_digest(form.data, form.len, d);
        hoodie_hex_lower(d, sizeof d, hash);
        static const char ctype[] = "application/x-www-form-urlencoded; charset=utf-8";
        hoodie_s3_header h[5] = { { "content-type", ctype }, { "host", (const char *)host.data },
                                  { "x-amz-content-sha256", hash }, { "x-amz-date", date },
                                  { "x-amz-security-token", tok } };
        hoodie_s3_sign_in in = { "POST", "/", "", h, tok ? 5 : 4, hash, date, p->region, ak, sk, "sts" };
        rc = hoodie_s3_sign(&in, &auth, NULL);
        struct curl_slist *hl = NULL;
        if (rc == HOODIE_OK) rc = add_hdr(&hl, "Accept", "application/xml");
        if (rc == HOODIE_OK) rc = add_hdr(&hl, "Content-Type", ctype);
        if (rc == HOODIE_OK) rc = add_hdr(&hl, "Host", (const char *)host.data);
        if (rc == HOODIE_OK) rc = add_hdr(&hl, "X-Amz-Content-Sha256", hash);
        if (rc == HOODIE_OK) rc = add_hdr(&hl, "X-Amz-Date", date);
        if (rc == HOODIE_OK && tok) rc = add_hdr(&hl, "X-Amz-Security-Token", tok);
        if (rc == HOODIE_OK) rc = add_hdr(&hl, "Authorization", (const char *)auth.data);
        long status = 0;
        if (rc == HOODIE_OK) rc = http_call(p, "POST", (const char *)url.data, p->url, hl, 10, 30, &status, &body, &form);
        curl_slist_free_all(hl);
        if (rc == HOODIE_OK && status != 200) rc = status_error(p->name, "AssumeRole", p->url, status, &body);
    }
    if (rc == HOODIE_OK) rc = hoodie_s3_creds_parse_sts((const char *)body.data, body.len, p->name, out);
    hoodie_s3_creds_dispose(&src);
    buf_wipe(&auth);
    hoodie_buf_dispose(&form);
    hoodie_buf_dispose(&url);
    hoodie_buf_dispose(&host);
    hoodie_buf_dispose(&body);
    return rc;
}

hoodie_status hoodie_s3_provider_fetch(hoodie_s3_provider *p, hoodie_s3_creds *out)
{
    memset(out, 0, sizeof *out);
    switch (p->kind) {
    case SRC_WEB_IDENTITY: return fetch_web_identity(p, out);
    case SRC_ASSUME_ROLE: return fetch_assume_role(p, out);
    case SRC_PROCESS: return fetch_process(p, out);
    case SRC_CONTAINER: return fetch_container(p, out);
    case SRC_INSTANCE: return fetch_instance(p, out);
    }
    return HOODIE_FAIL(HOODIE_EINVAL, "unknown credential source");
}
