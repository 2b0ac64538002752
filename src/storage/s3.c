/*
 * S3 storage (Amazon S3 and servers that speak its REST API: MinIO, Ceph RGW, R2, ...) over libcurl, requests
 * signed with AWS Signature Version 4 (storage/s3_sign.h). Paths are s3://bucket/key or s3a://bucket/key (what
 * Hudi tables written through Hadoop's S3A name themselves).
 *
 * How the vtable maps onto S3, which has objects and no directories:
 *   open_read    one GET of the last megabyte (a suffix range; the Parquet footer), whose Content-Range says the
 *                size; an empty object (416) is asked with HEAD;
 *   will_read    the ranges a reader announces (a Parquet row group's column chunks) fetched at once, in up to
 *                8 parallel requests of at most 8 MiB;
 *   read_at      from those, from the tail, else GETs with a Range through a read-ahead window that grows while
 *                reads go forward;
 *   create/write the bytes are kept in memory;     finish   one PUT (or the multipart upload's completion): the
 *                object appears whole or not at all;
 *                exclusive creation is a conditional PUT (If-None-Match: *), which S3 answers 412 when the key
 *                exists, so two racing writers of an instant file cannot both win;
 *   list         ListObjectsV2 with delimiter '/': objects are files, common prefixes directories; a directory
 *                exists when some key is under it;
 *   mkdirs       a zero-byte "dir/" marker object (as S3A writes), hidden from listings; rmdir deletes it;
 *   remove       HEAD (a missing file is HOODIE_ENOTFOUND, as the vtable wants) then DELETE;
 *   rename       server-side copy, then delete: NOT atomic. hoodie renames only a temporary it has just written
 *                into place (a partition's metadata file, the LSM timeline's _version_): the target appears whole,
 *                and a crash between the two steps leaves a stray temporary, not a broken table.
 * Durability comes with the PUT (S3 acknowledges after storing), so HOODIE_CREATE_DEFER_SYNC changes nothing.
 * HOODIE_CREATE_DEFER_VISIBLE does: such a file (one PUT's worth) goes up on a thread of its own once finished, up
 * to UPLOAD_PARALLEL at a time, and the writer goes on. A later operation on its path (open_read, exists, remove,
 * rename, a listing of its folder) first waits for it; a file finished without either DEFER flag (a commit point)
 * first waits for every one, and fails if one that the same thread finished failed (the write's commit then never
 * appears), unless the failed file has been removed since (a rollback of that write). Markers come with
 * HOODIE_CREATE_BARRIER: they go up in the background too, but every file the same thread finishes after a marker
 * (a data file, in the background or not) is PUT only once the marker is up, and fails without a PUT if it is not,
 * so no data file is ever visible before its marker (await_barriers).
 *
 * Requests that fail with HTTP 5xx or a broken connection are retried (4 attempts, backoff 0.1/0.4/1.6 s), except
 * a conditional PUT, whose first attempt may have succeeded unseen. Errors name the object and the server's code
 * and message: "s3://b/t/x.parquet: GET: HTTP 403 AccessDenied: Access Denied".
 *
 * Files larger than two parts (16 MiB each; HOODIE_S3_PART_MB, at least 5) go up as a multipart upload while they
 * are written, so a writer holds at most two parts of each file in memory; the upload completes at finish (with
 * If-None-Match for an exclusive file) and is aborted when the file is abandoned or finishing fails.
 * HOODIE_S3_TRACE (environment) logs every request on stderr: method, URL, status and bytes. https verifies the
 * server's certificate against the system's CAs, or AWS_CA_BUNDLE / the profile's ca_bundle.
 *
 * Thread-safety: curl handles come from a small pool behind a mutex; handles of distinct files are independent.
 * will_read runs its requests on threads of its own and returns when they are done.
 */
#include "hoodie/sys/storage.h"
#include "storage/s3_ahead.h"
#include "storage/s3_creds.h"
#include "storage/s3_sign.h"
#include "storage/s3_xml.h"
#include "storage/storage.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/sha256.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define POOL_MAX 8
#define ATTEMPTS 4

typedef struct s3 {
    hoodie_storage vt;
    char *scheme;      /* "http" or "https" */
    char *authority;   /* host[:port], as in the endpoint */
    char *region;
    char *ak, *sk, *token; /* ak NULL: anonymous, unsigned requests; guarded by mu once prov is set */
    hoodie_s3_provider *prov; /* where temporary keys come from again (s3_creds.h); NULL: the keys are fixed */
    char *ca_bundle;          /* certificates to trust (AWS_CA_BUNDLE), or NULL: the system's */
    int64_t expires_ms;       /* when they expire (0: never) */
    int64_t tried_ms;         /* the last time they were fetched, or tried */
    int path_style;
    int trace;         /* HOODIE_S3_TRACE set: requests logged on stderr */
    size_t part_size;  /* multipart uploads' part (HOODIE_S3_PART_MB) */
    pthread_mutex_t mu;
    CURL *pool[POOL_MAX];
    size_t n_pool;
    /* files finished with HOODIE_CREATE_DEFER_VISIBLE, going up in the background (finish_deferred, settle) */
    pthread_mutex_t up_mu;
    pthread_cond_t up_cv;
    struct upload *ups;    /* running, done, and failed ones kept until reported */
    size_t n_running;
    uint64_t barrier_seq;  /* HOODIE_CREATE_BARRIER uploads handed to threads so far */
    /* folders this storage made (mkdirs): made once, not once per file (a marker's folder is asked for each time) */
    hoodie_hmap made;      /* keys: the folder objects' keys, owned by made_keys; guarded by mu */
    char **made_keys;
    size_t n_made;
} s3;

/* The last TAIL_BYTES of a file are fetched by one request at the first read that falls in them: a Parquet
 * footer's magic, length and metadata then cost one round trip, not three. Hudi's footers carry the bloom filter
 * (about 800 KB in a base file of 100,000 records at the default 60,000 entries), hence a megabyte. */
#define TAIL_BYTES (1024 * 1024)

/* An object named by a path: its bucket, its key (no leading or trailing '/'; "" for the bucket itself) and the
 * path for messages, in one allocation (obj_parse, obj_free). */
typedef struct obj {
    char *bucket, *key, *path;
} obj;

/* Bytes fetched ahead on advice (s3_will_read). */
typedef struct ahead {
    uint64_t off;
    size_t len;
    uint8_t *data;       /* NULL: its fetch failed (reads then fetch the range as usual) */
} ahead;

struct hoodie_rfile {
    obj o;
    uint64_t size;
    ahead *ahead;        /* ascending, disjoint */
    size_t n_ahead;
    uint8_t *tail;       /* the file's bytes from tail_off(), once read */
    uint8_t *win;        /* the read-ahead window: bytes [win_off, win_off + win_len) (window_read) */
    uint64_t win_off;
    size_t win_len, win_cap, ra;
};

/* Background uploads of the files of the same key or under a folder (o), waited for (finish_deferred, settle). */
enum settle_mode {
    SETTLE_WAIT,    /* wait for them; a failure stays to be reported */
    SETTLE_READ,    /* the same, and a failure of one is this call's (a read of what did not go up) */
    SETTLE_REMOVED, /* the files are being removed: their failures no longer matter */
    SETTLE_COMMIT   /* a commit point: the failures of the files this thread finished are reported, once */
};
static hoodie_status settle(s3 *s, const obj *o, enum settle_mode mode);

/* Where the file's cached tail begins: its last TAIL_BYTES (all of a smaller file). */
static uint64_t tail_off(const hoodie_rfile *f) { return f->size < TAIL_BYTES ? 0 : f->size - TAIL_BYTES; }

/* A file being written: its bytes are kept until finish makes them one PUT, or, past part_size, uploaded in parts
 * of a multipart upload as they come (memory stays under two parts; files past S3's 5 GB limit of one PUT). */
struct hoodie_wfile {
    obj o;
    unsigned flags;
    hoodie_buf data;     /* bytes not uploaded yet */
    char *upload_id;     /* the multipart upload, once started */
    hoodie_buf etags;    /* the uploaded parts' ETags, '\n'-separated, in part order */
    int parts;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;
static void curl_init(void) { curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* ---- paths ---- */

static int scheme_len(const char *path)
{
    if (!strncmp(path, "s3://", 5)) return 5;
    if (!strncmp(path, "s3a://", 6)) return 6;
    return 0;
}

/* s3://bucket/key/... -> o. file: the path must name an object, not a bucket. */
static hoodie_status obj_parse(obj *o, const char *path, int file)
{
    int n = scheme_len(path);
    o->bucket = o->key = o->path = NULL;
    if (!n) return HOODIE_FAIL(HOODIE_EINVAL, "%s: not an s3:// or s3a:// path", path);
    const char *b = path + n, *slash = strchr(b, '/');
    size_t bl = slash ? (size_t)(slash - b) : strlen(b);
    if (!bl) return HOODIE_FAIL(HOODIE_EINVAL, "%s: no bucket in the path", path);
    const char *k = slash ? slash : b + bl;
    while (*k == '/') k++;
    size_t kl = strlen(k), pl = strlen(path);
    while (kl && k[kl - 1] == '/') kl--;
    if (file && !kl) return HOODIE_FAIL(HOODIE_EINVAL, "%s is a bucket, not a file", path);
    char *m = malloc(bl + kl + pl + 3);
    if (!m) return HOODIE_NOMEM();
    o->bucket = memcpy(m, b, bl);
    o->bucket[bl] = '\0';
    o->key = memcpy(m + bl + 1, k, kl);
    o->key[kl] = '\0';
    o->path = memcpy(o->key + kl + 1, path, pl + 1);
    return HOODIE_OK;
}

static void obj_free(obj *o) { free(o->bucket); }

/* ---- one request ---- */

typedef struct req {
    const char *method;      /* GET HEAD PUT DELETE */
    const char *bucket, *key;
    const char *query;       /* canonical (sorted, encoded), "" for none */
    const void *body;
    size_t body_len;
    const char *range, *if_none_match, *copy_source;
    const char *what;        /* the path for messages */
    /* response */
    uint8_t *dst;            /* the body goes here, at most dst_len bytes (a ranged GET) ... */
    size_t dst_len, dst_got;
    int dst_overflow;
    hoodie_buf *out;         /* ... or here (may be NULL: discarded) */
    hoodie_buf err;          /* the body of a failed request */
    long status;
    curl_off_t length;       /* Content-Length (HEAD) */
    int64_t range_total;     /* the object's size from a Content-Range answer ("bytes a-b/size"), else -1 */
    size_t sent;             /* upload position */
    char etag[160];          /* the ETag header (an uploaded part's) */
} req;

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    req *r = ud;
    size_t len = size * n;
    if (r->status >= 300 || (!r->dst && !r->out)) {
        if (r->err.len < 65536) (void)hoodie_buf_append(&r->err, p, len);
        return len;
    }
    if (r->dst) {
        size_t room = r->dst_len - r->dst_got;
        if (len > room) { r->dst_overflow = 1; return 0; }
        memcpy(r->dst + r->dst_got, p, len);
        r->dst_got += len;
        return len;
    }
    return hoodie_buf_append(r->out, p, len) == HOODIE_OK ? len : 0;
}

/* The status line arrives first: it decides where the body goes. */
static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    req *r = ud;
    size_t len = size * n;
    if (len > 9 && !memcmp(p, "HTTP/", 5)) {
        const char *sp = memchr(p, ' ', len);
        if (sp && sp + 4 <= p + len) r->status = strtol(sp + 1, NULL, 10);
    } else if (len > 14 && !strncasecmp(p, "content-range:", 14)) {
        const char *v = p + 14, *e = p + len;
        while (v < e && *v != '/') v++;
        if (v < e && v[1] >= '0' && v[1] <= '9') { /* "*" when the size is unknown */
            int64_t total = 0;
            for (v++; v < e && *v >= '0' && *v <= '9' && total < INT64_MAX / 10 - 10; v++) total = total * 10 + (*v - '0');
            r->range_total = total;
        }
    } else if (len > 5 && !strncasecmp(p, "etag:", 5)) {
        const char *v = p + 5, *e = p + len;
        while (v < e && (*v == ' ' || *v == '\t')) v++;
        while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ')) e--;
        size_t vl = (size_t)(e - v) < sizeof r->etag - 1 ? (size_t)(e - v) : 0; /* too long: none (refused later) */
        memcpy(r->etag, v, vl);
        r->etag[vl] = '\0';
    }
    return len;
}

static size_t on_upload(char *p, size_t size, size_t n, void *ud)
{
    req *r = ud;
    size_t room = size * n, left = r->body_len - r->sent;
    if (room > left) room = left;
    if (room) memcpy(p, (const uint8_t *)r->body + r->sent, room);
    r->sent += room;
    return room;
}

static CURL *take_handle(s3 *s)
{
    CURL *h = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->n_pool) h = s->pool[--s->n_pool];
    pthread_mutex_unlock(&s->mu);
    if (h) curl_easy_reset(h);
    else h = curl_easy_init();
    return h;
}

static void give_handle(s3 *s, CURL *h)
{
    pthread_mutex_lock(&s->mu);
    if (s->n_pool < POOL_MAX) { s->pool[s->n_pool++] = h; h = NULL; }
    pthread_mutex_unlock(&s->mu);
    if (h) curl_easy_cleanup(h);
}

static void amz_now(char out[17])
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

static hoodie_status add_header(struct curl_slist **l, hoodie_buf *line, const char *name, const char *value)
{
    line->len = 0;
    HOODIE_TRY(hoodie_buf_printf(line, value ? "%s: %s" : "%s:", name, value ? value : ""));
    HOODIE_TRY(hoodie_buf_cstr(line));
    struct curl_slist *n = curl_slist_append(*l, (const char *)line->data);
    if (!n) return HOODIE_NOMEM();
    *l = n;
    return HOODIE_OK;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Temporary keys are fetched again from their source REFRESH_MS before they expire (the AWS SDKs' margin), at
 * most every RETRY_MS while the old ones still work; once they have expired, at every request until it works. */
#define REFRESH_MS (5 * 60 * 1000)
#define RETRY_MS (10 * 1000)

/* The keys a request is signed with, copied under the lock (another thread may renew them). */
typedef struct sign_keys { char *ak, *sk, *token; } sign_keys;

static void keys_dispose(sign_keys *k)
{
    if (k->sk) memset(k->sk, 0, strlen(k->sk));
    if (k->token) memset(k->token, 0, strlen(k->token));
    free(k->ak);
    free(k->sk);
    free(k->token);
}

static void set_keys(s3 *s, hoodie_s3_creds *c) /* takes c's strings */
{
    if (s->sk) memset(s->sk, 0, strlen(s->sk));
    if (s->token) memset(s->token, 0, strlen(s->token));
    free(s->ak);
    free(s->sk);
    free(s->token);
    s->ak = c->ak;
    s->sk = c->sk;
    s->token = c->token;
    s->expires_ms = c->expires_ms;
    c->ak = c->sk = c->token = NULL;
}

static hoodie_status current_keys(s3 *s, sign_keys *k)
{
    memset(k, 0, sizeof *k);
    hoodie_status rc = HOODIE_OK;
    pthread_mutex_lock(&s->mu);
    int64_t now = s->prov && s->expires_ms ? now_ms() : 0;
    if (s->prov && s->expires_ms && now >= s->expires_ms - REFRESH_MS &&
        (now >= s->expires_ms || now - s->tried_ms >= RETRY_MS)) {
        hoodie_s3_creds c;
        s->tried_ms = now;
        rc = hoodie_s3_provider_fetch(s->prov, &c);
        if (rc == HOODIE_OK) {
            set_keys(s, &c);
            if (s->trace) fprintf(stderr, "hoodie: s3: credentials renewed from %s\n", hoodie_s3_provider_name(s->prov));
        } else if (now < s->expires_ms) {
            hoodie_error_clear(); /* the old keys still work: try again later */
            rc = HOODIE_OK;
        } else {
            hoodie_error__prefix("the credentials from %s expired and could not be renewed: ",
                                 hoodie_s3_provider_name(s->prov));
        }
    }
    if (rc == HOODIE_OK && s->ak) {
        k->ak = strdup(s->ak);
        k->sk = strdup(s->sk ? s->sk : "");
        k->token = s->token ? strdup(s->token) : NULL;
        if (!k->ak || !k->sk || (s->token && !k->token)) rc = HOODIE_NOMEM();
    }
    pthread_mutex_unlock(&s->mu);
    if (rc < 0) keys_dispose(k);
    return rc;
}

/* URL and signature headers of r into url / hdrs. */
static hoodie_status prepare(s3 *s, req *r, hoodie_buf *url, struct curl_slist **hdrs)
{
    sign_keys k;
    *hdrs = NULL;
    HOODIE_TRY(current_keys(s, &k));
    hoodie_buf uri = HOODIE_BUF_INIT, host = HOODIE_BUF_INIT, auth = HOODIE_BUF_INIT, line = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_putc(&uri, '/');
    if (rc == HOODIE_OK && s->path_style) {
        rc = hoodie_s3_uri_encode(&uri, r->bucket, strlen(r->bucket), 0);
        if (rc == HOODIE_OK && r->key && *r->key) rc = hoodie_buf_putc(&uri, '/');
    }
    if (rc == HOODIE_OK && r->key) rc = hoodie_s3_uri_encode(&uri, r->key, strlen(r->key), 1);
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&uri);
    if (rc == HOODIE_OK)
        rc = s->path_style ? hoodie_buf_append_str(&host, s->authority)
                           : hoodie_buf_printf(&host, "%s.%s", r->bucket, s->authority);
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&host);
    if (rc == HOODIE_OK)
        rc = hoodie_buf_printf(url, "%s://%s%s%s%s", s->scheme, (const char *)host.data, (const char *)uri.data,
                               r->query && *r->query ? "?" : "", r->query ? r->query : "");
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(url);

    char date[17], hash[2 * HOODIE_SHA256_LEN + 1];
    amz_now(date);
    if (r->body_len) {
        uint8_t d[HOODIE_SHA256_LEN];
        hoodie_sha256_digest(r->body, r->body_len, d);
        hoodie_hex_lower(d, sizeof d, hash);
    } else {
        memcpy(hash, HOODIE_S3_EMPTY_SHA256, sizeof hash);
    }
    /* the signed headers, in name order */
    hoodie_s3_header h[8];
    size_t nh = 0;
    h[nh++] = (hoodie_s3_header){ "host", rc == HOODIE_OK ? (const char *)host.data : "" };
    if (r->if_none_match) h[nh++] = (hoodie_s3_header){ "if-none-match", r->if_none_match };
    if (r->range) h[nh++] = (hoodie_s3_header){ "range", r->range };
    h[nh++] = (hoodie_s3_header){ "x-amz-content-sha256", hash };
    if (r->copy_source) h[nh++] = (hoodie_s3_header){ "x-amz-copy-source", r->copy_source };
    h[nh++] = (hoodie_s3_header){ "x-amz-date", date };
    if (k.token) h[nh++] = (hoodie_s3_header){ "x-amz-security-token", k.token };
    if (rc == HOODIE_OK && k.ak) {
        hoodie_s3_sign_in in = { r->method, (const char *)uri.data, r->query ? r->query : "", h, nh, hash, date,
                                 s->region, k.ak, k.sk, "s3" };
        rc = hoodie_s3_sign(&in, &auth, NULL);
    }
    *hdrs = NULL;
    for (size_t i = 1; i < nh && rc == HOODIE_OK; i++) /* not host: curl sends it, from the URL */
        rc = add_header(hdrs, &line, h[i].name, h[i].value);
    if (rc == HOODIE_OK && k.ak) rc = add_header(hdrs, &line, "authorization", (const char *)auth.data);
    if (rc == HOODIE_OK) rc = add_header(hdrs, &line, "expect", NULL); /* no 100-continue round trip */
    if (rc == HOODIE_OK) rc = add_header(hdrs, &line, "content-type", NULL); /* not curl's form type for a POST */
    hoodie_buf_dispose(&uri);
    hoodie_buf_dispose(&host);
    hoodie_buf_dispose(&auth);
    hoodie_buf_dispose(&line);
    keys_dispose(&k);
    return rc;
}

static int transient(CURLcode c, long status)
{
    if (c == CURLE_OK) return status >= 500 || status == 429;
    return c == CURLE_COULDNT_CONNECT || c == CURLE_SEND_ERROR || c == CURLE_RECV_ERROR ||
           c == CURLE_OPERATION_TIMEDOUT || c == CURLE_GOT_NOTHING || c == CURLE_PARTIAL_FILE;
}

/* Perform r. HOODIE_OK with r->status set to whatever the server answered (the caller judges it), or a failure to
 * reach the server. */
static hoodie_status perform(s3 *s, req *r)
{
    if (pthread_once(&curl_once, curl_init) != 0 || curl_init_rc != CURLE_OK)
        return HOODIE_FAIL(HOODIE_EIO, "cannot initialise libcurl");
    int retry_ok = !r->if_none_match;
    for (int attempt = 0;; attempt++) {
        CURL *h = take_handle(s);
        if (!h) return HOODIE_NOMEM();
        hoodie_buf url = HOODIE_BUF_INIT;
        struct curl_slist *hdrs = NULL;
        hoodie_status rc = prepare(s, r, &url, &hdrs);
        if (rc < 0) { curl_slist_free_all(hdrs); hoodie_buf_dispose(&url); give_handle(s, h); return rc; }
        r->status = 0;
        r->range_total = -1;
        r->dst_got = 0;
        r->dst_overflow = 0;
        r->sent = 0;
        r->err.len = 0;
        r->etag[0] = '\0';
        if (r->out) r->out->len = 0;
        char errbuf[CURL_ERROR_SIZE] = "";
        curl_easy_setopt(h, CURLOPT_URL, (const char *)url.data);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 15L);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);  /* a stalled transfer: no byte for a minute */
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
        if (s->ca_bundle) curl_easy_setopt(h, CURLOPT_CAINFO, s->ca_bundle);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
        if (!strcmp(r->method, "HEAD")) {
            curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
        } else if (!strcmp(r->method, "POST")) {
            curl_easy_setopt(h, CURLOPT_POST, 1L);
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, r->body_len ? r->body : "");
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
        } else if (!strcmp(r->method, "PUT")) {
            curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
            curl_easy_setopt(h, CURLOPT_READFUNCTION, on_upload);
            curl_easy_setopt(h, CURLOPT_READDATA, r);
            curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->body_len);
        } else if (strcmp(r->method, "GET")) {
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, r->method);
        }
        CURLcode c = curl_easy_perform(h);
        long code = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
        if (c == CURLE_OK) r->status = code;
        curl_off_t cl = -1;
        if (c == CURLE_OK) curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
        r->length = cl;
        curl_slist_free_all(hdrs);
        give_handle(s, h);
        if (c == CURLE_WRITE_ERROR && r->dst_overflow) c = CURLE_OK; /* judged by the caller: too many bytes */
        if (s->trace) /* HOODIE_S3_TRACE: each request on stderr, to see what a command costs on S3 */
            fprintf(stderr, "hoodie: s3: %s %s%s%s -> %ld, %zu bytes sent, %zu received\n", r->method,
                    (const char *)url.data, r->range ? " " : "", r->range ? r->range : "", r->status, r->body_len,
                    r->dst ? r->dst_got : r->out ? r->out->len : r->err.len);
        if (retry_ok && attempt + 1 < ATTEMPTS && transient(c, r->status)) {
            hoodie_buf_dispose(&url);
            struct timespec ts = { 0, 100000000L << (2 * attempt) };
            while (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
            nanosleep(&ts, NULL);
            continue;
        }
        if (c != CURLE_OK) {
            rc = hoodie_error__set_errno(HOODIE_EIO, 0, "%s: %s: %s (%s)", r->what, r->method,
                                         *errbuf ? errbuf : curl_easy_strerror(c), (const char *)url.data);
            hoodie_buf_dispose(&url);
            return rc;
        }
        hoodie_buf_dispose(&url);
        return HOODIE_OK;
    }
}

/* The error for an unexpected status: 404 not found, 412 exists, else an I/O failure, with the server's words. */
static hoodie_status status_fail(const req *r)
{
    hoodie_buf m = HOODIE_BUF_INIT;
    int have = r->err.len && hoodie_s3_error_parse((const char *)r->err.data, r->err.len, &m);
    hoodie_status code = r->status == 404 ? HOODIE_ENOTFOUND : r->status == 412 ? HOODIE_EEXISTS : HOODIE_EIO;
    hoodie_status rc = hoodie_error__set_errno(code, 0, "%s: %s: HTTP %ld%s%s", r->what, r->method, r->status,
                                               have ? " " : "", have ? (const char *)m.data : "");
    hoodie_buf_dispose(&m);
    return rc;
}

static void req_dispose(req *r) { hoodie_buf_dispose(&r->err); }

/* ---- the vtable ---- */

static hoodie_status s3_head(s3 *s, const obj *o, uint64_t *size)
{
    req r = { .method = "HEAD", .bucket = o->bucket, .key = o->key, .query = "", .what = o->path };
    hoodie_status rc = perform(s, &r);
    if (rc == HOODIE_OK && r.status != 200 && r.status != 404) {
        /* an answer to HEAD has no body, so no error code: ask again with a GET of one byte, whose failure says why
         * (SignatureDoesNotMatch, AccessDenied, ...) */
        req g = { .method = "GET", .bucket = o->bucket, .key = o->key, .query = "", .range = "bytes=0-0",
                  .what = o->path };
        uint8_t byte;
        g.dst = &byte;
        g.dst_len = 1;
        if (perform(s, &g) == HOODIE_OK && g.status >= 300 && g.err.len) {
            g.method = "HEAD";
            rc = status_fail(&g);
        } else {
            rc = status_fail(&r);
        }
        req_dispose(&g);
    } else if (rc == HOODIE_OK && r.status != 200) {
        rc = status_fail(&r);
    }
    if (rc == HOODIE_OK && size) {
        if (r.length < 0) rc = HOODIE_FAIL(HOODIE_EIO, "%s: HEAD: no Content-Length in the answer", o->path);
        else *size = (uint64_t)r.length;
    }
    req_dispose(&r);
    return rc;
}

/*
 * Open: one GET of the last TAIL_BYTES (a suffix range, "bytes=-N"), whose Content-Range gives the size: the
 * size, a small file whole, and a Parquet file's footer in one round trip instead of a HEAD and a GET. An empty
 * object has no byte to return (416): a HEAD then says it exists. A server that ignores the range sends the whole
 * object, which is taken when it fits; one that sends neither a usable range nor a small whole is asked with HEAD.
 */
static hoodie_status open_tail(s3 *s, hoodie_rfile *f)
{
    char range[32];
    snprintf(range, sizeof range, "bytes=-%d", TAIL_BYTES);
    uint8_t *t = malloc(TAIL_BYTES);
    if (!t) return HOODIE_NOMEM();
    req r = { .method = "GET", .bucket = f->o.bucket, .key = f->o.key, .query = "", .range = range,
              .what = f->o.path, .dst = t, .dst_len = TAIL_BYTES };
    hoodie_status rc = perform(s, &r);
    int head = 0;
    if (rc == HOODIE_OK) {
        if (r.status == 206 && r.range_total >= 0 && !r.dst_overflow &&
            r.dst_got == ((uint64_t)r.range_total < TAIL_BYTES ? (size_t)r.range_total : (size_t)TAIL_BYTES)) {
            f->size = (uint64_t)r.range_total;
        } else if (r.status == 200 && !r.dst_overflow) {
            f->size = r.dst_got;
        } else if (r.status == 416 || r.status == 206 || r.status == 200) {
            head = 1;
        } else {
            rc = status_fail(&r);
        }
    }
    req_dispose(&r);
    if (rc == HOODIE_OK && head) {
        free(t);
        return s3_head(s, &f->o, &f->size);
    }
    if (rc < 0) { free(t); return rc; }
    uint8_t *shrunk = f->size ? realloc(t, (size_t)(f->size - tail_off(f))) : NULL;
    if (!f->size) { free(t); return HOODIE_OK; }
    f->tail = shrunk ? shrunk : t;
    return HOODIE_OK;
}

static hoodie_status s3_open_read(void *ctx, const char *path, hoodie_rfile **out, uint64_t *size_out)
{
    s3 *s = ctx;
    *out = NULL;
    hoodie_rfile *f = calloc(1, sizeof *f);
    if (!f) return HOODIE_NOMEM();
    hoodie_status rc = obj_parse(&f->o, path, 1);
    if (rc == HOODIE_OK) rc = settle(s, &f->o, SETTLE_READ);
    if (rc == HOODIE_OK) rc = open_tail(s, f);
    if (rc < 0) { obj_free(&f->o); free(f); return rc; }
    *size_out = f->size;
    *out = f;
    return HOODIE_OK;
}


static hoodie_status get_range(s3 *s, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    char range[64], what[1200];
    snprintf(range, sizeof range, "bytes=%llu-%llu", (unsigned long long)off, (unsigned long long)(off + len - 1));
    snprintf(what, sizeof what, "%s (%zu bytes at offset %llu)", f->o.path, len, (unsigned long long)off);
    req r = { .method = "GET", .bucket = f->o.bucket, .key = f->o.key, .query = "", .range = range, .what = what,
              .dst = buf, .dst_len = len };
    hoodie_status rc = perform(s, &r);
    if (rc == HOODIE_OK) {
        int whole = r.status == 200 && off == 0 && len == f->size; /* a server may ignore a range covering all */
        if (r.status != 206 && !whole) rc = status_fail(&r);
        else if (r.dst_overflow || r.dst_got != len)
            rc = HOODIE_FAIL(HOODIE_EIO, "%s: GET %s: %s%zu bytes, not %zu", f->o.path, range,
                             r.dst_overflow ? "more than " : "", r.dst_got, len);
    }
    req_dispose(&r);
    return rc;
}


/*
 * Reads before the tail go through a read-ahead window, as a kernel reads ahead a file: a miss fetches at least
 * RA_MIN bytes, and a miss at or just past the end of the window (reading on through a file, as a scan reads its
 * pages and column chunks) doubles the fetch, up to RA_MAX; a jump elsewhere starts again at RA_MIN. A Parquet page
 * header read and the page body after it, or a row group's column chunks one after the other, then cost one request
 * between them instead of one each, while reading two columns of a wide file fetches little more than those
 * columns. A scan of a 4 MB base file of the benchmark table: 9 GETs, not 46. It still fetched about 1.5 times the
 * file, because the scan reads a row group's columns page by page, interleaved (a stream per column), and a window
 * follows one stream: hence will_read, which serves a scan's chunks now; the window serves what comes unannounced.
 */
#define RA_MIN (256 * 1024)
#define RA_MAX (8 * 1024 * 1024)

static hoodie_status window_read(s3 *s, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    if (f->win_len && off >= f->win_off && off - f->win_off <= f->win_len) {
        size_t have = f->win_len - (size_t)(off - f->win_off);
        if (len <= have) {
            memcpy(buf, f->win + (off - f->win_off), len);
            return HOODIE_OK;
        }
        /* a read that runs past the window: what it holds, then the rest (read on from its end) */
        memcpy(buf, f->win + (off - f->win_off), have);
        off += have;
        buf = (uint8_t *)buf + have;
        len -= have;
    }
    int onward = f->win_len && off >= f->win_off && off - f->win_off <= (uint64_t)f->win_len + f->ra;
    f->ra = !onward ? RA_MIN : f->ra * 2 > RA_MAX ? RA_MAX : f->ra * 2;
    uint64_t want = f->ra, end = tail_off(f); /* the tail is cached */
    if (want > end - off) want = end - off; /* off < end: reads in the tail do not come here */
    if (want < len) want = len;
    if (want > f->win_cap) {
        uint8_t *w = realloc(f->win, (size_t)want);
        if (!w) return HOODIE_NOMEM();
        f->win = w;
        f->win_cap = (size_t)want;
    }
    f->win_len = 0;
    HOODIE_TRY(get_range(s, f, off, f->win, (size_t)want));
    f->win_off = off;
    f->win_len = (size_t)want;
    memcpy(buf, f->win, len);
    return HOODIE_OK;
}

/* Copy what the fetched-ahead ranges hold of [off, off + len) from its start; returns the bytes copied. */
static size_t ahead_prefix(const hoodie_rfile *f, uint64_t off, uint8_t *buf, size_t len)
{
    size_t lo = 0, hi = f->n_ahead, got = 0;
    while (lo < hi) { /* the first range ending after off */
        size_t mid = lo + (hi - lo) / 2;
        if (f->ahead[mid].off + f->ahead[mid].len <= off) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < f->n_ahead && got < len; i++) {
        const ahead *a = &f->ahead[i];
        uint64_t at = off + got;
        if (at < a->off || !a->data) break;
        size_t n = (size_t)(a->off + a->len - at);
        if (n > len - got) n = len - got;
        memcpy(buf + got, a->data + (at - a->off), n);
        got += n;
    }
    return got;
}

static void ahead_free(hoodie_rfile *f)
{
    for (size_t i = 0; i < f->n_ahead; i++) free(f->ahead[i].data);
    free(f->ahead);
    f->ahead = NULL;
    f->n_ahead = 0;
}

/*
 * will_read: the ranges a reader is about to read (a Parquet scan's column chunks for a row group) are fetched
 * at once, in up to AHEAD_PARALLEL requests in flight together, instead of as the reads come: a scan reads a row
 * group's columns page by page, interleaved, which one read-ahead window cannot follow (it fetched 1.5 times the
 * file). Close ranges merge into one request and long ones split (s3_ahead.h), so that requests are few but many
 * run together; at most 256 MiB per advice are held, until the next advice or the close. The tail is cached already and left out. A failed fetch is dropped: the read that needs those bytes
 * then fetches them itself, with its retries and its error.
 */
#define AHEAD_PARALLEL 8

typedef struct ahead_job {
    s3 *s;
    hoodie_rfile *f;
    pthread_mutex_t mu;
    size_t next;
} ahead_job;

static void *ahead_worker(void *p)
{
    ahead_job *j = p;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        size_t i = j->next++;
        pthread_mutex_unlock(&j->mu);
        if (i >= j->f->n_ahead) return NULL;
        ahead *a = &j->f->ahead[i];
        a->data = malloc(a->len);
        if (a->data && get_range(j->s, j->f, a->off, a->data, a->len) < 0) {
            free(a->data);
            a->data = NULL;
        }
    }
}

static void s3_will_read(void *ctx, hoodie_rfile *f, const uint64_t *offs, const size_t *lens, size_t n)
{
    s3 *s = ctx;
    ahead_free(f);
    hoodie_s3_piece *p;
    size_t nv;
    if (hoodie_s3_plan_ahead(offs, lens, n, tail_off(f), &p, &nv) < 0) { hoodie_error_clear(); return; } /* advice */
    ahead *v = nv ? malloc(nv * sizeof *v) : NULL;
    for (size_t i = 0; v && i < nv; i++) v[i] = (ahead){ p[i].off, p[i].len, NULL };
    free(p);
    if (!nv || !v) { free(v); return; }
    f->ahead = v;
    f->n_ahead = nv;
    ahead_job j = { s, f, PTHREAD_MUTEX_INITIALIZER, 0 };
    pthread_t th[AHEAD_PARALLEL];
    size_t nt = 0;
    while (nt < AHEAD_PARALLEL && nt < nv && pthread_create(&th[nt], NULL, ahead_worker, &j) == 0) nt++;
    if (!nt) { ahead_free(f); return; }
    for (size_t i = 0; i < nt; i++) pthread_join(th[i], NULL);
    pthread_mutex_destroy(&j.mu);
}

/*
 * A large read (two pieces or more, none of it in the cached tail) goes straight into the caller's buffer, its
 * HOODIE_S3_AHEAD_PIECE pieces fetched AHEAD_PARALLEL at a time as will_read fetches: no second copy of the bytes
 * is held (a read-ahead window or fetched-ahead ranges would be one), and a 256 MB log block comes in 32 requests
 * run 8 at a time rather than one. The first piece that fails (after its retries) fails the read, with its message.
 */
typedef struct split_job {
    s3 *s;
    hoodie_rfile *f;
    uint64_t off;
    uint8_t *buf;
    size_t len, pieces, next;
    pthread_mutex_t mu;
    hoodie_status rc;
    char msg[512];
} split_job;

static void *split_worker(void *p)
{
    split_job *j = p;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        size_t i = j->next++;
        int stop = i >= j->pieces || j->rc < 0;
        pthread_mutex_unlock(&j->mu);
        if (stop) return NULL;
        uint64_t at = (uint64_t)i * HOODIE_S3_AHEAD_PIECE;
        size_t n = j->len - at < HOODIE_S3_AHEAD_PIECE ? (size_t)(j->len - at) : (size_t)HOODIE_S3_AHEAD_PIECE;
        hoodie_status rc = get_range(j->s, j->f, j->off + at, j->buf + at, n);
        if (rc < 0) {
            pthread_mutex_lock(&j->mu);
            if (j->rc == HOODIE_OK) {
                j->rc = rc;
                snprintf(j->msg, sizeof j->msg, "%s", hoodie_error__message());
            }
            pthread_mutex_unlock(&j->mu);
            hoodie_error_clear();
        }
    }
}

static hoodie_status split_read(s3 *s, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    split_job j = { s, f, off, buf, len, (len + HOODIE_S3_AHEAD_PIECE - 1) / HOODIE_S3_AHEAD_PIECE, 0,
                    PTHREAD_MUTEX_INITIALIZER, HOODIE_OK, "" };
    pthread_t th[AHEAD_PARALLEL];
    size_t nt = 0;
    while (nt < AHEAD_PARALLEL && nt < j.pieces && pthread_create(&th[nt], NULL, split_worker, &j) == 0) nt++;
    split_worker(&j); /* this thread fetches pieces too (all of them if no thread started) */
    for (size_t i = 0; i < nt; i++) pthread_join(th[i], NULL);
    pthread_mutex_destroy(&j.mu);
    return j.rc < 0 ? HOODIE_FAIL(j.rc, "%s", j.msg) : HOODIE_OK;
}

static hoodie_status s3_read_at(void *ctx, hoodie_rfile *f, uint64_t off, void *buf, size_t len)
{
    s3 *s = ctx;
    if (!len) return HOODIE_OK;
    if (off > f->size || len > f->size - off)
        return HOODIE_CORRUPT("%s: unexpected end of file at offset %llu", f->o.path,
                              (unsigned long long)(off > f->size ? off : f->size));
    if (f->n_ahead) {
        size_t got = ahead_prefix(f, off, buf, len);
        if (got == len) return HOODIE_OK;
        off += got;
        buf = (uint8_t *)buf + got;
        len -= got;
    }
    uint64_t t_off = tail_off(f);
    if (off < t_off) {
        size_t before = len <= t_off - off ? len : (size_t)(t_off - off); /* the bytes before the cached tail */
        if (before < 2 * HOODIE_S3_AHEAD_PIECE) return window_read(s, f, off, buf, len);
        HOODIE_TRY(split_read(s, f, off, buf, before));
        if (before == len) return HOODIE_OK;
        off += before; /* the rest from the tail */
        buf = (uint8_t *)buf + before;
        len -= before;
    }
    if (!f->tail) {
        uint8_t *t = malloc((size_t)(f->size - t_off));
        if (!t) return HOODIE_NOMEM();
        hoodie_status rc = get_range(s, f, t_off, t, (size_t)(f->size - t_off));
        if (rc < 0) { free(t); return rc; }
        f->tail = t;
    }
    memcpy(buf, f->tail + (off - t_off), len);
    return HOODIE_OK;
}

static void s3_close_read(void *ctx, hoodie_rfile *f)
{
    (void)ctx;
    if (!f) return;
    obj_free(&f->o);
    ahead_free(f);
    free(f->tail);
    free(f->win);
    free(f);
}

static hoodie_status s3_create(void *ctx, const char *path, unsigned flags, hoodie_wfile **out)
{
    (void)ctx;
    *out = NULL;
    hoodie_wfile *f = calloc(1, sizeof *f);
    if (!f) return HOODIE_NOMEM();
    hoodie_status rc = obj_parse(&f->o, path, 1);
    if (rc < 0) { free(f); return rc; }
    f->flags = flags;
    *out = f;
    return HOODIE_OK;
}

static void wfile_free(hoodie_wfile *f)
{
    obj_free(&f->o);
    free(f->upload_id);
    hoodie_buf_dispose(&f->data);
    hoodie_buf_dispose(&f->etags);
    free(f);
}

static hoodie_status put_object(s3 *s, const obj *o, const void *data, size_t len, int exclusive)
{
    req r = { .method = "PUT", .bucket = o->bucket, .key = o->key, .query = "", .body = data, .body_len = len,
              .if_none_match = exclusive ? "*" : NULL, .what = o->path };
    hoodie_status rc = perform(s, &r);
    if (rc == HOODIE_OK && r.status != 200) rc = status_fail(&r);
    req_dispose(&r);
    return rc;
}

/* ---- uploads in the background (HOODIE_CREATE_DEFER_VISIBLE) ---- */

#define UPLOAD_PARALLEL 8

typedef struct upload {
    struct upload *next;
    s3 *s;
    obj o;
    hoodie_buf data;     /* freed once sent */
    int exclusive;
    int barrier;         /* HOODIE_CREATE_BARRIER (a marker): seq is its number */
    uint64_t seq;
    uint64_t after;      /* not a barrier: the owner's barriers numbered up to this go up before it */
    pthread_t th;
    pthread_t owner;     /* the thread that finished the file: its next commit point hears of a failure */
    int threaded;        /* th is to be joined (0: the upload ran on the caller's thread) */
    int done;            /* guarded by up_mu, as are the next two */
    hoodie_status rc;
    char msg[1024];      /* the failure's message */
} upload;

static hoodie_status await_barriers(s3 *s, pthread_t owner, uint64_t upto, const char *path);

static void *upload_run(void *arg)
{
    upload *u = arg;
    hoodie_status rc = u->barrier || !u->after ? HOODIE_OK : await_barriers(u->s, u->owner, u->after, u->o.path);
    if (rc == HOODIE_OK) rc = put_object(u->s, &u->o, u->data.data, u->data.len, u->exclusive);
    hoodie_buf_dispose(&u->data);
    s3 *s = u->s;
    pthread_mutex_lock(&s->up_mu);
    if (rc < 0) snprintf(u->msg, sizeof u->msg, "%s", hoodie_error_last()->message);
    u->rc = rc;
    u->done = 1;
    s->n_running--;
    pthread_cond_broadcast(&s->up_cv);
    pthread_mutex_unlock(&s->up_mu);
    return NULL;
}

/* 1 if upload u is of object o or of one under it (o NULL: every upload). */
static int upload_under(const upload *u, const obj *o)
{
    if (!o) return 1;
    if (strcmp(u->o.bucket, o->bucket)) return 0;
    size_t n = strlen(o->key);
    return !n || (!strncmp(u->o.key, o->key, n) && (u->o.key[n] == 0 || u->o.key[n] == '/'));
}


/* Wait for the background uploads of o and under it (o NULL: all), then forget those that went up. A failed one is
 * kept (its message) until the next commit point of the thread that finished the file reports it, or the file is
 * removed: a writer's data files and its commit are one thread's, and two writers in one process are two. */
static hoodie_status settle(s3 *s, const obj *o, enum settle_mode mode)
{
    hoodie_status rc = HOODIE_OK;
    char msg[1024] = "";
    pthread_mutex_lock(&s->up_mu);
    for (upload **pp = &s->ups; *pp;) {
        upload *u = *pp;
        if (!upload_under(u, o)) { pp = &u->next; continue; }
        while (!u->done) pthread_cond_wait(&s->up_cv, &s->up_mu);
        if (u->threaded) { pthread_join(u->th, NULL); u->threaded = 0; }
        int mine = mode == SETTLE_COMMIT && pthread_equal(u->owner, pthread_self());
        if (u->rc < 0 && rc == HOODIE_OK && (mode == SETTLE_READ || mine)) {
            rc = u->rc;
            memcpy(msg, u->msg, sizeof msg);
        }
        if (u->rc < 0 && mode != SETTLE_REMOVED && !mine) { pp = &u->next; continue; }
        *pp = u->next;
        obj_free(&u->o);
        free(u);
    }
    pthread_mutex_unlock(&s->up_mu);
    return rc < 0 ? hoodie_error__set_errno(rc, 0, "%s (a file written earlier, uploaded in the background)", msg)
                  : HOODIE_OK;
}

/* Wait until the barrier uploads (markers) that thread `owner` handed over, numbered up to `upto`, are up: fails,
 * naming the marker, if one of them failed. A barrier that went up may have been forgotten already (settle). */
static hoodie_status await_barriers(s3 *s, pthread_t owner, uint64_t upto, const char *path)
{
    char msg[1024] = "";
    pthread_mutex_lock(&s->up_mu);
    for (upload *u = s->ups; u;) {
        if (!u->barrier || u->seq > upto || !pthread_equal(u->owner, owner)) { u = u->next; continue; }
        if (!u->done) { pthread_cond_wait(&s->up_cv, &s->up_mu); u = s->ups; continue; } /* the list may change */
        if (u->rc < 0) { snprintf(msg, sizeof msg, "%s", u->msg); break; }
        u = u->next;
    }
    pthread_mutex_unlock(&s->up_mu);
    if (!msg[0]) return HOODIE_OK;
    return HOODIE_FAIL(HOODIE_EIO, "%s: not written, as the marker written before it failed: %s", path, msg);
}

/* Hand f's bytes (one PUT) to a thread: f is freed, the PUT's outcome waits for settle. */
static hoodie_status finish_deferred(s3 *s, hoodie_wfile *f)
{
    hoodie_status rc = settle(s, &f->o, SETTLE_WAIT); /* an earlier upload of the same key lands first */
    upload *u = rc == HOODIE_OK ? calloc(1, sizeof *u) : NULL;
    if (rc == HOODIE_OK && !u) rc = HOODIE_NOMEM();
    if (rc < 0) { wfile_free(f); return rc; }
    u->s = s;
    u->o = f->o;
    u->data = f->data;
    u->exclusive = (f->flags & HOODIE_CREATE_EXCLUSIVE) != 0;
    u->barrier = (f->flags & HOODIE_CREATE_BARRIER) != 0;
    u->owner = pthread_self();
    f->o = (obj){ NULL, NULL, NULL };
    f->data = (hoodie_buf)HOODIE_BUF_INIT;
    wfile_free(f);
    pthread_mutex_lock(&s->up_mu);
    while (s->n_running >= UPLOAD_PARALLEL) pthread_cond_wait(&s->up_cv, &s->up_mu);
    s->n_running++;
    if (u->barrier) u->seq = ++s->barrier_seq;
    else u->after = s->barrier_seq;
    u->next = s->ups;
    s->ups = u;
    u->threaded = pthread_create(&u->th, NULL, upload_run, u) == 0;
    pthread_mutex_unlock(&s->up_mu);
    if (!u->threaded) (void)upload_run(u); /* no thread to be had: here and now */
    return HOODIE_OK;
}

/* A request whose 200 may still carry an <Error> (CompleteMultipartUpload, CopyObject): the error, if any. */
static hoodie_status late_error(const req *r, const hoodie_buf *body)
{
    hoodie_buf m = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    if (body->len && hoodie_s3_error_parse((const char *)body->data, body->len, &m))
        rc = hoodie_error__set_errno(strstr((const char *)m.data, "PreconditionFailed") ? HOODIE_EEXISTS : HOODIE_EIO,
                                     0, "%s: %s: %s", r->what, r->method, (const char *)m.data);
    hoodie_buf_dispose(&m);
    return rc;
}

/* Upload data[0, n) as the next part (the multipart upload started first if need be). */
static hoodie_status upload_part(s3 *s, hoodie_wfile *f, const uint8_t *data, size_t n)
{
    hoodie_status rc = HOODIE_OK;
    hoodie_buf body = HOODIE_BUF_INIT, q = HOODIE_BUF_INIT, id = HOODIE_BUF_INIT;
    if (!f->upload_id) {
        req r = { .method = "POST", .bucket = f->o.bucket, .key = f->o.key, .query = "uploads=", .what = f->o.path,
                  .out = &body };
        rc = perform(s, &r);
        if (rc == HOODIE_OK && r.status != 200) rc = status_fail(&r);
        req_dispose(&r);
        if (rc == HOODIE_OK && (hoodie_s3_xml_value((const char *)body.data, body.len, "UploadId", &id) != 1 || !id.len))
            rc = HOODIE_FAIL(HOODIE_EIO, "%s: POST ?uploads: no UploadId in the answer", f->o.path);
        if (rc == HOODIE_OK && !(f->upload_id = strdup((const char *)id.data))) rc = HOODIE_NOMEM();
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_printf(&q, "partNumber=%d&uploadId=", f->parts + 1);
    if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&q, f->upload_id, strlen(f->upload_id), 0);
    if (rc == HOODIE_OK) {
        req r = { .method = "PUT", .bucket = f->o.bucket, .key = f->o.key, .query = (const char *)q.data, .body = data,
                  .body_len = n, .what = f->o.path };
        rc = perform(s, &r);
        if (rc == HOODIE_OK && r.status != 200) rc = status_fail(&r);
        if (rc == HOODIE_OK && !r.etag[0])
            rc = HOODIE_FAIL(HOODIE_EIO, "%s: part %d: no ETag in the answer", f->o.path, f->parts + 1);
        if (rc == HOODIE_OK) rc = hoodie_buf_printf(&f->etags, "%s\n", r.etag);
        if (rc == HOODIE_OK) f->parts++;
        req_dispose(&r);
    }
    hoodie_buf_dispose(&body);
    hoodie_buf_dispose(&q);
    hoodie_buf_dispose(&id);
    return rc;
}

static hoodie_status s3_write(void *ctx, hoodie_wfile *f, const void *data, size_t len)
{
    s3 *s = ctx;
    HOODIE_TRY(hoodie_buf_append(&f->data, data, len));
    size_t ps = s->part_size;
    if (f->data.len < 2 * ps) return HOODIE_OK; /* a part goes once another is behind it: the last is never empty */
    size_t done = 0;
    while (f->data.len - done >= 2 * ps) {
        HOODIE_TRY(upload_part(s, f, f->data.data + done, ps));
        done += ps;
    }
    memmove(f->data.data, f->data.data + done, f->data.len - done);
    f->data.len -= done;
    return HOODIE_OK;
}

static void abort_upload(s3 *s, hoodie_wfile *f)
{
    hoodie_buf q = HOODIE_BUF_INIT;
    if (hoodie_buf_append_str(&q, "uploadId=") == HOODIE_OK &&
        hoodie_s3_uri_encode(&q, f->upload_id, strlen(f->upload_id), 0) == HOODIE_OK) {
        req r = { .method = "DELETE", .bucket = f->o.bucket, .key = f->o.key, .query = (const char *)q.data,
                  .what = f->o.path };
        (void)perform(s, &r); /* best effort: a bucket's lifecycle rule removes what is left */
        req_dispose(&r);
    }
    hoodie_buf_dispose(&q);
}

static hoodie_status complete_upload(s3 *s, hoodie_wfile *f)
{
    hoodie_buf xml = HOODIE_BUF_INIT, q = HOODIE_BUF_INIT, body = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_append_str(&xml, "<CompleteMultipartUpload>");
    const char *e = (const char *)f->etags.data;
    for (int i = 0; i < f->parts && rc == HOODIE_OK; i++) {
        const char *nl = strchr(e, '\n');
        rc = hoodie_buf_printf(&xml, "<Part><PartNumber>%d</PartNumber><ETag>", i + 1);
        for (const char *c = e; c < nl && rc == HOODIE_OK; c++) /* ETags are quoted: escaped for XML */
            rc = *c == '"' ? hoodie_buf_append_str(&xml, "&quot;") : *c == '&' ? hoodie_buf_append_str(&xml, "&amp;")
               : *c == '<' ? hoodie_buf_append_str(&xml, "&lt;") : hoodie_buf_putc(&xml, (uint8_t)*c);
        if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&xml, "</ETag></Part>");
        e = nl + 1;
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&xml, "</CompleteMultipartUpload>");
    if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&q, "uploadId=");
    if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&q, f->upload_id, strlen(f->upload_id), 0);
    if (rc == HOODIE_OK) {
        req r = { .method = "POST", .bucket = f->o.bucket, .key = f->o.key, .query = (const char *)q.data,
                  .body = xml.data, .body_len = xml.len, .what = f->o.path, .out = &body,
                  .if_none_match = (f->flags & HOODIE_CREATE_EXCLUSIVE) ? "*" : NULL };
        rc = perform(s, &r);
        if (rc == HOODIE_OK && r.status != 200) rc = status_fail(&r);
        if (rc == HOODIE_OK) rc = late_error(&r, &body);
        req_dispose(&r);
    }
    hoodie_buf_dispose(&xml);
    hoodie_buf_dispose(&q);
    hoodie_buf_dispose(&body);
    return rc;
}

static hoodie_status s3_finish(void *ctx, hoodie_wfile *f)
{
    s3 *s = ctx;
    hoodie_status rc;
    if ((f->flags & HOODIE_CREATE_DEFER_VISIBLE) && !f->upload_id) return finish_deferred(s, f);
    if (!(f->flags & (HOODIE_CREATE_DEFER_VISIBLE | HOODIE_CREATE_DEFER_SYNC)) &&
        (rc = settle(s, NULL, SETTLE_COMMIT)) < 0) { /* a commit point: what it commits is up, or it fails */
        if (f->upload_id) abort_upload(s, f);
        wfile_free(f);
        return rc;
    }
    pthread_mutex_lock(&s->up_mu);
    uint64_t upto = s->barrier_seq;
    pthread_mutex_unlock(&s->up_mu);
    if ((rc = await_barriers(s, pthread_self(), upto, f->o.path)) < 0) { /* markers before data */
        if (f->upload_id) abort_upload(s, f);
    } else if (!f->upload_id) {
        rc = put_object(s, &f->o, f->data.data, f->data.len, (f->flags & HOODIE_CREATE_EXCLUSIVE) != 0);
    } else {
        rc = upload_part(s, f, f->data.data, f->data.len);
        if (rc == HOODIE_OK) rc = complete_upload(s, f);
        if (rc < 0) abort_upload(s, f);
    }
    wfile_free(f);
    return rc;
}

static void s3_abandon(void *ctx, hoodie_wfile *f)
{
    if (!f) return;
    if (f->upload_id) abort_upload(ctx, f);
    wfile_free(f);
}

typedef struct list_ctx {
    size_t skip;              /* the prefix's length */
    hoodie_storage_list_cb cb;
    void *payload;
    int any;                  /* something is under the prefix (the marker included) */
    int stop;
    hoodie_buf name;
} list_ctx;

static int list_item(const hoodie_s3_list_item *it, void *ud)
{
    list_ctx *l = ud;
    l->any = 1;
    size_t kl = strlen(it->key);
    if (kl <= l->skip) return 0; /* the directory's own marker */
    const char *name = it->key + l->skip;
    size_t nl = kl - l->skip;
    if (it->is_prefix && nl && name[nl - 1] == '/') nl--;
    if (!nl || memchr(name, '/', nl)) return 0; /* "dir//x" and the like: not a plain entry */
    l->name.len = 0;
    if (hoodie_buf_append(&l->name, name, nl) < 0 || hoodie_buf_cstr(&l->name) < 0) { l->stop = -1; return 1; }
    hoodie_dirent e = { (const char *)l->name.data, it->is_prefix, it->is_prefix ? 0 : it->size,
                        it->is_prefix ? 0 : it->mtime_ms };
    if (l->cb(&e, l->payload)) { l->stop = 1; return 1; }
    return 0;
}

/* List the keys under o's key/ (all of the bucket when the key is ""). l->any: something is there. max_keys 0:
 * all. */
static hoodie_status list_prefix(s3 *s, const obj *o, int max_keys, list_ctx *l)
{
    hoodie_buf prefix = HOODIE_BUF_INIT, query = HOODIE_BUF_INIT, token = HOODIE_BUF_INIT, body = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_printf(&prefix, "%s%s", o->key, *o->key ? "/" : "");
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&prefix);
    l->skip = prefix.len;
    while (rc == HOODIE_OK) {
        query.len = 0;
        /* the parameters in name order: continuation-token, delimiter, list-type, max-keys, prefix */
        if (token.len) {
            rc = hoodie_buf_append_str(&query, "continuation-token=");
            if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&query, (const char *)token.data, token.len, 0);
            if (rc == HOODIE_OK) rc = hoodie_buf_putc(&query, '&');
        }
        if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&query, "delimiter=%2F&list-type=2");
        if (rc == HOODIE_OK && max_keys) rc = hoodie_buf_printf(&query, "&max-keys=%d", max_keys);
        if (rc == HOODIE_OK) rc = hoodie_buf_append_str(&query, "&prefix=");
        if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&query, (const char *)prefix.data, prefix.len, 0);
        if (rc < 0) break;
        req r = { .method = "GET", .bucket = o->bucket, .key = "", .query = (const char *)query.data,
                  .what = o->path, .out = &body };
        rc = perform(s, &r);
        if (rc == HOODIE_OK && r.status != 200) rc = status_fail(&r);
        req_dispose(&r);
        if (rc < 0) break;
        int stopped = 0, truncated = 0;
        token.len = 0;
        rc = hoodie_s3_list_parse((const char *)body.data, body.len, list_item, l, &stopped, &truncated, &token);
        if (rc < 0) { hoodie_error__prefix("%s: ", o->path); break; }
        if (l->stop < 0) { rc = HOODIE_NOMEM(); break; }
        if (stopped || !truncated || max_keys) break; /* truncated: the parser saw a token */
    }
    hoodie_buf_dispose(&prefix);
    hoodie_buf_dispose(&query);
    hoodie_buf_dispose(&token);
    hoodie_buf_dispose(&body);
    return rc;
}

static int ignore_entry(const hoodie_dirent *e, void *p) { (void)e; (void)p; return 0; }

static hoodie_status s3_list(void *ctx, const char *dir, hoodie_storage_list_cb cb, void *payload)
{
    obj o;
    HOODIE_TRY(obj_parse(&o, dir, 0));
    list_ctx l = { 0, cb, payload, 0, 0, HOODIE_BUF_INIT };
    hoodie_status rc = settle(ctx, &o, SETTLE_WAIT);
    if (rc == HOODIE_OK) rc = list_prefix(ctx, &o, 0, &l);
    if (rc == HOODIE_OK && !l.any && *o.key) rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "cannot list %s: no such folder", dir);
    hoodie_buf_dispose(&l.name);
    obj_free(&o);
    return rc;
}

static hoodie_status delete_object(s3 *s, const obj *o)
{
    req r = { .method = "DELETE", .bucket = o->bucket, .key = o->key, .query = "", .what = o->path };
    hoodie_status rc = perform(s, &r);
    if (rc == HOODIE_OK && r.status != 204 && r.status != 200) rc = status_fail(&r);
    req_dispose(&r);
    return rc;
}

static hoodie_status s3_remove(void *ctx, const char *path)
{
    obj o;
    HOODIE_TRY(obj_parse(&o, path, 1));
    hoodie_status rc = settle(ctx, &o, SETTLE_REMOVED);
    if (rc == HOODIE_OK) rc = s3_head(ctx, &o, NULL);
    if (rc == HOODIE_ENOTFOUND) rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "cannot remove %s: not found", path);
    if (rc == HOODIE_OK) rc = delete_object(ctx, &o);
    obj_free(&o);
    return rc;
}

static hoodie_status s3_rename(void *ctx, const char *from, const char *to)
{
    s3 *s = ctx;
    obj f, t = { NULL, NULL, NULL };
    hoodie_buf src = HOODIE_BUF_INIT, body = HOODIE_BUF_INIT;
    hoodie_status rc = obj_parse(&f, from, 1);
    if (rc == HOODIE_OK) rc = obj_parse(&t, to, 1);
    if (rc == HOODIE_OK) rc = settle(s, &f, SETTLE_READ);
    if (rc == HOODIE_OK) rc = settle(s, &t, SETTLE_WAIT);
    if (rc == HOODIE_OK) rc = hoodie_buf_putc(&src, '/');
    if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&src, f.bucket, strlen(f.bucket), 0);
    if (rc == HOODIE_OK) rc = hoodie_buf_putc(&src, '/');
    if (rc == HOODIE_OK) rc = hoodie_s3_uri_encode(&src, f.key, strlen(f.key), 1);
    if (rc == HOODIE_OK) {
        req r = { .method = "PUT", .bucket = t.bucket, .key = t.key, .query = "", .copy_source = (const char *)src.data,
                  .what = from, .out = &body };
        rc = perform(s, &r);
        if (rc == HOODIE_OK && r.status != 200) rc = status_fail(&r);
        if (rc == HOODIE_OK) rc = late_error(&r, &body); /* a copy may fail after its 200 has been sent */
        req_dispose(&r);
    }
    if (rc == HOODIE_OK) rc = delete_object(s, &f);
    obj_free(&f);
    obj_free(&t);
    hoodie_buf_dispose(&src);
    hoodie_buf_dispose(&body);
    return rc;
}

static void made_forget(s3 *s)
{
    hoodie_hmap_clear(&s->made);
    for (size_t i = 0; i < s->n_made; i++) free(s->made_keys[i]);
    s->n_made = 0;
}

/* 1 if this storage made folder `key` already; else 0, and with `remember` it is now (a failure to remember: 0). */
static int made_before(s3 *s, const char *key, int remember)
{
    size_t n = strlen(key);
    pthread_mutex_lock(&s->mu);
    int made = hoodie_hmap_get(&s->made, key, n) != NULL;
    if (!made && remember) {
        char **nk = realloc(s->made_keys, (s->n_made + 1) * sizeof *nk);
        char *k = nk ? strdup(key) : NULL;
        uint64_t *slot;
        int existed;
        if (nk) s->made_keys = nk;
        if (k && hoodie_hmap_upsert(&s->made, k, n, &slot, &existed) == HOODIE_OK) s->made_keys[s->n_made++] = k;
        else free(k);
    }
    pthread_mutex_unlock(&s->mu);
    return made;
}

/* The folder marker "key/" of `path` put (create; once per storage) or deleted; nothing for a bucket. */
static hoodie_status folder_marker(s3 *s, const char *path, int create)
{
    obj o, m;
    HOODIE_TRY(obj_parse(&o, path, 0));
    hoodie_status rc = create ? HOODIE_OK : settle(s, &o, SETTLE_WAIT);
    if (!create) { pthread_mutex_lock(&s->mu); made_forget(s); pthread_mutex_unlock(&s->mu); }
    else if (*o.key && made_before(s, o.key, 0)) { obj_free(&o); return HOODIE_OK; }
    if (rc == HOODIE_OK && *o.key) {
        m = o;
        size_t n = strlen(o.key);
        if (!(m.key = malloc(n + 2))) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) {
            memcpy(m.key, o.key, n);
            memcpy(m.key + n, "/", 2);
            rc = create ? put_object(s, &m, "", 0, 0) : delete_object(s, &m);
            if (!create && rc == HOODIE_ENOTFOUND) rc = HOODIE_OK;
            if (create && rc == HOODIE_OK) (void)made_before(s, o.key, 1);
        }
        free(m.key);
    }
    obj_free(&o);
    return rc;
}

static hoodie_status s3_mkdirs(void *ctx, const char *path) { return folder_marker(ctx, path, 1); }
static hoodie_status s3_rmdir(void *ctx, const char *path) { return folder_marker(ctx, path, 0); }

static int s3_exists(void *ctx, const char *path)
{
    obj o;
    hoodie_status rc = obj_parse(&o, path, 0);
    if (rc < 0) return rc;
    if ((rc = settle(ctx, &o, SETTLE_WAIT)) < 0) { obj_free(&o); return rc; }
    rc = *o.key ? s3_head(ctx, &o, NULL) : HOODIE_ENOTFOUND;
    int found = rc == HOODIE_OK;
    if (rc == HOODIE_ENOTFOUND) { /* a folder: some key under it (a bucket: the listing answers) */
        list_ctx l = { 0, ignore_entry, NULL, 0, 0, HOODIE_BUF_INIT };
        rc = list_prefix(ctx, &o, 1, &l);
        found = rc == HOODIE_OK && (l.any || !*o.key);
        if (rc == HOODIE_ENOTFOUND) rc = HOODIE_OK; /* no such bucket */
        hoodie_buf_dispose(&l.name);
    }
    obj_free(&o);
    return rc < 0 ? rc : found;
}

static void s3_destroy(void *ctx)
{
    s3 *s = ctx;
    (void)settle(s, NULL, SETTLE_REMOVED); /* the last uploads land (their failures have no one to go to) */
    for (size_t i = 0; i < s->n_pool; i++) curl_easy_cleanup(s->pool[i]);
    made_forget(s);
    hoodie_hmap_dispose(&s->made);
    free(s->made_keys);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->up_mu);
    pthread_cond_destroy(&s->up_cv);
    free(s->scheme);
    free(s->authority);
    free(s->region);
    free(s->ak);
    if (s->sk) memset(s->sk, 0, strlen(s->sk));
    free(s->sk);
    free(s->token);
    hoodie_s3_provider_free(s->prov);
    free(s->ca_bundle);
    free(s);
}

static char *dup_or_null(const char *v, int *fail)
{
    if (!v || !*v) return NULL;
    char *d = strdup(v);
    if (!d) *fail = 1;
    return d;
}

hoodie_status hoodie_storage_s3_new(hoodie_storage **out, const hoodie_s3_config *cfg)
{
    *out = NULL;
    if (!cfg) return HOODIE_FAIL(HOODIE_EINVAL, "no S3 configuration given");
    if ((cfg->access_key_id && *cfg->access_key_id) != (cfg->secret_access_key && *cfg->secret_access_key))
        return HOODIE_FAIL(HOODIE_EINVAL, "S3: an access key id needs its secret access key, and the other way round");
    const char *region = cfg->region && *cfg->region ? cfg->region : "us-east-1";
    for (const char *p = region; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            return HOODIE_FAIL(HOODIE_EINVAL, "S3 region '%s' is not a region name", region);
    s3 *s = calloc(1, sizeof *s);
    if (!s) return HOODIE_NOMEM();
    int fail = 0;
    if (cfg->endpoint && *cfg->endpoint) {
        const char *e = cfg->endpoint, *sep = strstr(e, "://");
        if (!sep || (strncmp(e, "http://", 7) && strncmp(e, "https://", 8))) {
            free(s);
            return HOODIE_FAIL(HOODIE_EINVAL, "S3 endpoint '%s' is not an http:// or https:// URL", e);
        }
        const char *a = sep + 3;
        size_t al = strcspn(a, "/?#");
        if (!al || (a[al] && strspn(a + al, "/") != strlen(a + al))) {
            free(s);
            return HOODIE_FAIL(HOODIE_EINVAL, "S3 endpoint '%s': only scheme://host[:port] is supported", e);
        }
        s->scheme = strndup(e, (size_t)(sep - e));
        s->authority = strndup(a, al);
    } else {
        size_t n = strlen(region) + 32;
        s->scheme = strdup("https");
        s->authority = malloc(n);
        if (s->authority) snprintf(s->authority, n, "s3.%s.%s", region, hoodie_s3_aws_domain(region));
    }
    s->path_style = cfg->path_style;
    s->region = strdup(region);
    s->trace = getenv("HOODIE_S3_TRACE") != NULL;
    const char *mb = getenv("HOODIE_S3_PART_MB");
    long part_mb = mb && *mb ? strtol(mb, NULL, 10) : 16;
    s->part_size = (size_t)(part_mb < 5 ? 5 : part_mb > 4096 ? 4096 : part_mb) << 20; /* 5: S3's smallest part */
    s->ak = dup_or_null(cfg->access_key_id, &fail);
    s->sk = dup_or_null(cfg->secret_access_key, &fail);
    s->token = dup_or_null(cfg->session_token, &fail);
    if (fail || !s->scheme || !s->authority || !s->region || pthread_mutex_init(&s->mu, NULL) != 0 ||
        pthread_mutex_init(&s->up_mu, NULL) != 0 || pthread_cond_init(&s->up_cv, NULL) != 0) {
        free(s->scheme); free(s->authority); free(s->region); free(s->ak); free(s->sk); free(s->token); free(s);
        return HOODIE_NOMEM();
    }
    s->vt = (hoodie_storage){ HOODIE_STORAGE_VERSION, s, s3_open_read, s3_read_at, s3_close_read, s3_create,
                              s3_write, s3_finish, s3_abandon, s3_list, s3_remove, s3_rename, s3_mkdirs, s3_rmdir,
                              s3_exists, s3_destroy, s3_will_read, NULL, NULL };
    *out = &s->vt;
    return HOODIE_OK;
}

/* ---- the environment, and the AWS tools' shared files ---- */

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* An INI file as the AWS tools write ~/.aws/credentials and ~/.aws/config: "[section]" lines, "key = value" lines,
 * '#' and ';' comments. */
typedef struct ini {
    char *text;       /* the file, NUL-terminated; NULL when it does not exist */
    const char *path;
} ini;

static hoodie_status ini_load(ini *f, const char *path)
{
    f->text = NULL;
    f->path = path;
    if (!path) return HOODIE_OK;
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_storage_read_all(hoodie_storage_posix(), path, &b);
    if (rc == HOODIE_ENOTFOUND) return HOODIE_OK; /* no such file: nothing in it */
    if (rc < 0) return rc;
    f->text = (char *)hoodie_buf_detach(&b, NULL); /* read_all NUL-terminates */
    return HOODIE_OK;
}

static void trim(const char **b, const char **e)
{
    while (*b < *e && (**b == ' ' || **b == '\t')) (*b)++;
    while (*e > *b && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r')) (*e)--;
}

/* The value of `key` in section `section` copied to out (cap bytes): 1; 0 if absent; HOODIE_EINVAL if longer.
 * *section_seen: the section exists. */
static int ini_get(const ini *f, const char *section, const char *key, char *out, size_t cap, int *section_seen)
{
    if (!f->text) return 0;
    int in = 0;
    for (const char *line = f->text; *line;) {
        const char *end = strchr(line, '\n'), *next = end ? end + 1 : line + strlen(line);
        if (!end) end = next;
        const char *b = line, *e = end;
        trim(&b, &e);
        line = next;
        if (b == e || *b == '#' || *b == ';') continue;
        if (*b == '[') {
            const char *nb = b + 1, *ne = e;
            if (ne > nb && ne[-1] == ']') ne--;
            trim(&nb, &ne);
            in = (size_t)(ne - nb) == strlen(section) && !memcmp(nb, section, (size_t)(ne - nb));
            if (in) *section_seen = 1;
            continue;
        }
        const char *eq = memchr(b, '=', (size_t)(e - b));
        if (!in || !eq) continue;
        const char *kb = b, *ke = eq, *vb = eq + 1, *ve = e;
        trim(&kb, &ke);
        trim(&vb, &ve);
        if ((size_t)(ke - kb) != strlen(key) || memcmp(kb, key, (size_t)(ke - kb))) continue;
        if ((size_t)(ve - vb) >= cap)
            return HOODIE_FAIL(HOODIE_EINVAL, "%s: %s of [%s] is longer than %zu bytes", f->path, key, section, cap - 1);
        memcpy(out, vb, (size_t)(ve - vb));
        out[ve - vb] = '\0';
        return 1;
    }
    return 0;
}

/* ~/.aws/<name>, or NULL without a home */
static char *home_file(const char *name)
{
    const char *home = env("HOME");
    if (!home) return NULL;
    size_t n = strlen(home) + strlen(name) + 8;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/.aws/%s", home, name);
    return p;
}

hoodie_status hoodie_storage_s3_from_env(hoodie_storage **out)
{
    *out = NULL;
    const char *profile = env("AWS_PROFILE") ? env("AWS_PROFILE") : "default";
    char *cred_home = env("AWS_SHARED_CREDENTIALS_FILE") ? NULL : home_file("credentials");
    char *conf_home = env("AWS_CONFIG_FILE") ? NULL : home_file("config");
    ini creds, conf;
    hoodie_status rc = ini_load(&creds, cred_home ? cred_home : env("AWS_SHARED_CREDENTIALS_FILE"));
    if (rc == HOODIE_OK) rc = ini_load(&conf, conf_home ? conf_home : env("AWS_CONFIG_FILE"));
    else conf.text = NULL;
    /* the config file names a profile "[profile NAME]", except the default one */
    char conf_section[256];
    snprintf(conf_section, sizeof conf_section, strcmp(profile, "default") ? "profile %s" : "%s", profile);
    char ak[256], sk[256], token[4096], region[64], endpoint[512];
    char *vals[5] = { ak, sk, token, region, endpoint };
    static const size_t caps[5] = { sizeof ak, sizeof sk, sizeof token, sizeof region, sizeof endpoint };
    static const char *keys[5] = { "aws_access_key_id", "aws_secret_access_key", "aws_session_token", "region",
                                   "endpoint_url" };
    const char *from[5] = { env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN"),
                            env("AWS_REGION") ? env("AWS_REGION") : env("AWS_DEFAULT_REGION"),
                            env("AWS_ENDPOINT_URL_S3") ? env("AWS_ENDPOINT_URL_S3") : env("AWS_ENDPOINT_URL") };
    int seen = 0, keys_from_env = from[0] != NULL;
    for (int i = 0; i < 5 && rc == HOODIE_OK; i++) {
        if (from[i]) continue;
        if (i < 3 && keys_from_env) continue; /* keys from the environment come with their own secret and token */
        int got = i < 3 ? ini_get(&creds, profile, keys[i], vals[i], caps[i], &seen) : 0;
        if (got == 0) got = ini_get(&conf, conf_section, keys[i], vals[i], caps[i], &seen);
        if (got < 0) rc = got;
        else if (got) from[i] = vals[i];
    }
    if (rc == HOODIE_OK && !seen && env("AWS_PROFILE") && !keys_from_env)
        rc = HOODIE_FAIL(HOODIE_EINVAL, "AWS profile '%s' is in neither %s nor %s", profile,
                         creds.path ? creds.path : "(no credentials file)", conf.path ? conf.path : "(no config file)");
    /* no keys: temporary ones from the first source configured (web identity, credential_process, container,
     * instance metadata; s3_creds.h), fetched again before they expire */
    hoodie_s3_provider *prov = NULL;
    hoodie_s3_creds temp = { NULL, NULL, NULL, 0 };
    char role[512], wit[1024], session[128], process[2048], ca[1024], srcp[256], csrc[64], xid[256], dur[32];
    char sak[256], ssk[256], stok[4096];
    /* certificates to trust for https (a MinIO with its own CA): AWS_CA_BUNDLE, or the profile's ca_bundle */
    const char *ca_bundle = env("AWS_CA_BUNDLE");
    if (rc == HOODIE_OK && !ca_bundle) {
        int got = ini_get(&conf, conf_section, "ca_bundle", ca, sizeof ca, &seen);
        if (got < 0) rc = got;
        else if (got) ca_bundle = ca;
    }
    if (rc == HOODIE_OK && ca_bundle && access(ca_bundle, R_OK) != 0)
        rc = hoodie_error__set_errno(HOODIE_EINVAL, errno, "AWS_CA_BUNDLE (or ca_bundle): cannot read %s", ca_bundle);
    if (rc == HOODIE_OK && !from[0]) {
        char *pv[8] = { role, wit, session, process, srcp, csrc, xid, dur };
        static const size_t pc[8] = { sizeof role, sizeof wit, sizeof session, sizeof process, sizeof srcp,
                                      sizeof csrc, sizeof xid, sizeof dur };
        static const char *pk[8] = { "role_arn", "web_identity_token_file", "role_session_name", "credential_process",
                                     "source_profile", "credential_source", "external_id", "duration_seconds" };
        const char *got_v[8] = { NULL };
        for (int i = 0; i < 8 && rc == HOODIE_OK; i++) {
            int got = ini_get(&conf, conf_section, pk[i], pv[i], pc[i], &seen);
            if (got == 0) got = ini_get(&creds, profile, pk[i], pv[i], pc[i], &seen);
            if (got < 0) rc = got;
            else if (got) got_v[i] = pv[i];
        }
        /* role_arn with source_profile: the keys of that profile sign the AssumeRole request */
        const char *src_keys[3] = { NULL, NULL, NULL };
        if (rc == HOODIE_OK && got_v[0] && got_v[4]) {
            char src_section[300];
            snprintf(src_section, sizeof src_section, strcmp(srcp, "default") ? "profile %s" : "%s", srcp);
            char *sv[3] = { sak, ssk, stok };
            static const size_t sc[3] = { sizeof sak, sizeof ssk, sizeof stok };
            int src_seen = 0;
            for (int i = 0; i < 3 && rc == HOODIE_OK; i++) {
                int got = ini_get(&creds, srcp, keys[i], sv[i], sc[i], &src_seen);
                if (got == 0) got = ini_get(&conf, src_section, keys[i], sv[i], sc[i], &src_seen);
                if (got < 0) rc = got;
                else if (got) src_keys[i] = sv[i];
            }
            char chained[8];
            int chain = 0;
            if (rc == HOODIE_OK && !src_keys[0])
                chain = ini_get(&conf, src_section, "role_arn", chained, sizeof chained, &src_seen) != 0 ||
                        ini_get(&creds, srcp, "role_arn", chained, sizeof chained, &src_seen) != 0;
            if (rc == HOODIE_OK && !src_seen)
                rc = HOODIE_FAIL(HOODIE_EINVAL, "AWS profile '%s': its source_profile '%s' is in neither %s nor %s",
                                 profile, srcp, creds.path ? creds.path : "(no credentials file)",
                                 conf.path ? conf.path : "(no config file)");
            else if (rc == HOODIE_OK && (!src_keys[0] || !src_keys[1]))
                rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, chain
                                 ? "AWS profile '%s': its source_profile '%s' assumes a role itself; hoodie assumes one "
                                   "role from a profile with keys, not a chain of roles"
                                 : "AWS profile '%s': its source_profile '%s' has no aws_access_key_id and "
                                   "aws_secret_access_key", profile, srcp);
        }
        hoodie_s3_profile_sources ps = { got_v[0], got_v[1], got_v[2], got_v[3], ca_bundle,
                                         src_keys[0], src_keys[1], src_keys[2], got_v[5], got_v[6], got_v[7] };
        if (rc == HOODIE_OK) rc = hoodie_s3_provider_from_env(&prov, from[3], &ps);
        if (rc == HOODIE_OK && prov) {
            rc = hoodie_s3_provider_fetch(prov, &temp);
            if (rc < 0 && hoodie_s3_provider_is_instance(prov)) { /* no metadata service here: unsigned requests */
                if (env("HOODIE_S3_TRACE"))
                    fprintf(stderr, "hoodie: s3: no credentials (%s); requests go unsigned\n", hoodie_error_last()->message);
                hoodie_error_clear();
                hoodie_s3_provider_free(prov);
                prov = NULL;
                rc = HOODIE_OK;
            }
        }
        if (rc == HOODIE_OK && prov) {
            from[0] = temp.ak;
            from[1] = temp.sk;
            from[2] = temp.token;
        }
    }
    if (rc == HOODIE_OK) {
        const char *style = env("HOODIE_S3_PATH_STYLE");
        hoodie_s3_config c = { from[4], from[3], from[0], from[1], from[2],
                               style ? strcmp(style, "0") != 0 : from[4] != NULL };
        rc = hoodie_storage_s3_new(out, &c);
    }
    if (rc == HOODIE_OK && ca_bundle) {
        s3 *s = (*out)->ctx;
        if (!(s->ca_bundle = strdup(ca_bundle))) rc = HOODIE_NOMEM();
        if (rc < 0) { hoodie_storage_free(*out); *out = NULL; }
    }
    if (rc == HOODIE_OK && prov) { /* the storage renews them */
        s3 *s = (*out)->ctx;
        s->prov = prov;
        s->expires_ms = temp.expires_ms;
        s->tried_ms = now_ms();
        prov = NULL;
        if (s->trace) fprintf(stderr, "hoodie: s3: credentials from %s\n", hoodie_s3_provider_name(s->prov));
    }
    hoodie_s3_provider_free(prov);
    hoodie_s3_creds_dispose(&temp);
    memset(role, 0, sizeof role);
    memset(process, 0, sizeof process);
    for (int i = 0; i < 5; i++) memset(vals[i], 0, caps[i]);
    if (creds.text) memset(creds.text, 0, strlen(creds.text)); /* it holds secrets */
    if (conf.text) memset(conf.text, 0, strlen(conf.text));
    free(creds.text);
    free(conf.text);
    free(cred_home);
    free(conf_home);
    return rc;
}
