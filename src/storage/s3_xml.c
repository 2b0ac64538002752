#include "storage/s3_xml.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

/* The next element <name>...</name> in [p, end): its content in [*vb, *ve), *after past the closing tag. 0 if none;
 * -1 if the element opens but never closes. <name/> is an empty element. */
static int find_elem(const char *p, const char *end, const char *name, const char **vb, const char **ve,
                     const char **after)
{
    size_t nl = strlen(name);
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt || (size_t)(end - lt) < nl + 2) return 0;
        if (!memcmp(lt + 1, name, nl) && (lt[nl + 1] == '>' || lt[nl + 1] == '/')) {
            if (lt[nl + 1] == '/') {
                if ((size_t)(end - lt) < nl + 3 || lt[nl + 2] != '>') return -1;
                *vb = *ve = lt + nl + 3;
                *after = lt + nl + 3;
                return 1;
            }
            const char *b = lt + nl + 2, *q = b;
            while (q < end) { /* the matching close: S3 never nests an element in one of the same name */
                const char *c = memchr(q, '<', (size_t)(end - q));
                if (!c) break;
                if ((size_t)(end - c) >= nl + 3 && c[1] == '/' && !memcmp(c + 2, name, nl) && c[nl + 2] == '>') {
                    *vb = b;
                    *ve = c;
                    *after = c + nl + 3;
                    return 1;
                }
                q = c + 1;
            }
            return -1;
        }
        p = lt + 1;
    }
    return 0;
}

static void put_utf8(hoodie_buf *out, unsigned long cp)
{
    uint8_t *p = out->data + out->len;
    if (cp < 0x80) { *p++ = (uint8_t)cp; }
    else if (cp < 0x800) { *p++ = (uint8_t)(0xc0 | cp >> 6); *p++ = (uint8_t)(0x80 | (cp & 0x3f)); }
    else if (cp < 0x10000) {
        *p++ = (uint8_t)(0xe0 | cp >> 12); *p++ = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
        *p++ = (uint8_t)(0x80 | (cp & 0x3f));
    } else {
        *p++ = (uint8_t)(0xf0 | cp >> 18); *p++ = (uint8_t)(0x80 | (cp >> 12 & 0x3f));
        *p++ = (uint8_t)(0x80 | (cp >> 6 & 0x3f)); *p++ = (uint8_t)(0x80 | (cp & 0x3f));
    }
    out->len = (size_t)(p - out->data);
}

/* Text content [b, e) with its references decoded, replacing out's bytes (NUL-terminated). `doc` for offsets. */
static hoodie_status text(const char *doc, const char *b, const char *e, hoodie_buf *out)
{
    out->len = 0;
    HOODIE_TRY(hoodie_buf_reserve(out, (size_t)(e - b) + 4));
    for (const char *p = b; p < e; p++) {
        if (*p == '<') return HOODIE_CORRUPT("S3 response: markup inside a value at byte %zu", (size_t)(p - doc));
        if (*p != '&') { out->data[out->len++] = (uint8_t)*p; continue; }
        const char *semi = memchr(p, ';', (size_t)(e - p));
        if (!semi || semi - p > 12)
            return HOODIE_CORRUPT("S3 response: unterminated reference at byte %zu", (size_t)(p - doc));
        size_t n = (size_t)(semi - p - 1);
        const char *r = p + 1;
        static const struct { const char *name; char c; } ents[] = {
            { "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' }, { "apos", '\'' } };
        int done = 0;
        for (size_t i = 0; i < sizeof ents / sizeof *ents && !done; i++)
            if (strlen(ents[i].name) == n && !memcmp(r, ents[i].name, n)) { out->data[out->len++] = (uint8_t)ents[i].c; done = 1; }
        if (!done && n >= 2 && r[0] == '#') {
            unsigned long cp = 0;
            int hexa = r[1] == 'x' || r[1] == 'X';
            size_t i = hexa ? 2 : 1;
            if (i == n) return HOODIE_CORRUPT("S3 response: empty character reference at byte %zu", (size_t)(p - doc));
            for (; i < n; i++) {
                int d = r[i] >= '0' && r[i] <= '9' ? r[i] - '0'
                      : hexa && r[i] >= 'a' && r[i] <= 'f' ? r[i] - 'a' + 10
                      : hexa && r[i] >= 'A' && r[i] <= 'F' ? r[i] - 'A' + 10 : -1;
                if (d < 0 || cp > 0x10ffff) return HOODIE_CORRUPT("S3 response: bad character reference at byte %zu", (size_t)(p - doc));
                cp = cp * (hexa ? 16u : 10u) + (unsigned long)d;
            }
            if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return HOODIE_CORRUPT("S3 response: character reference out of range at byte %zu", (size_t)(p - doc));
            put_utf8(out, cp);
            done = 1;
        }
        if (!done) return HOODIE_CORRUPT("S3 response: unknown entity at byte %zu", (size_t)(p - doc));
        p = semi;
    }
    out->data[out->len] = '\0';
    return HOODIE_OK;
}

static int days_from_civil(int64_t y, unsigned m, unsigned d, int64_t *out)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    *out = era * 146097 + (int64_t)doe - 719468;
    return 0;
}

int64_t hoodie_s3_parse_time(const char *s, size_t len)
{
    /* yyyy-mm-ddThh:mm:ss[.fff...]Z */
    if (len < 20) return -1;
    int v[6];
    static const int at[6] = { 0, 5, 8, 11, 14, 17 }, w[6] = { 4, 2, 2, 2, 2, 2 };
    for (int i = 0; i < 6; i++) {
        v[i] = 0;
        for (int j = 0; j < w[i]; j++) {
            char c = s[at[i] + j];
            if (c < '0' || c > '9') return -1;
            v[i] = v[i] * 10 + (c - '0');
        }
    }
    if (s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':') return -1;
    if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 60) return -1;
    size_t i = 19;
    int ms = 0, digits = 0;
    if (i < len && s[i] == '.') {
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
            if (digits < 3) ms = ms * 10 + (s[i] - '0');
        if (!digits) return -1;
        for (; digits < 3; digits++) ms *= 10;
    }
    if (i + 1 != len || (s[i] != 'Z' && s[i] != 'z')) return -1;
    int64_t days;
    days_from_civil(v[0], (unsigned)v[1], (unsigned)v[2], &days);
    return ((days * 24 + v[3]) * 60 + v[4]) * 60000 + (int64_t)v[5] * 1000 + ms;
}

static hoodie_status parse_u64(const char *doc, const char *b, const char *e, uint64_t *out)
{
    uint64_t v = 0;
    if (b == e) return HOODIE_CORRUPT("S3 response: empty number at byte %zu", (size_t)(b - doc));
    for (const char *p = b; p < e; p++) {
        if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
            return HOODIE_CORRUPT("S3 response: bad number at byte %zu", (size_t)(p - doc));
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *out = v;
    return HOODIE_OK;
}

#define ELEM(p, end, name, vb, ve, after) \
    do { int found_ = find_elem((p), (end), (name), (vb), (ve), (after)); \
         if (found_ < 0) { rc = HOODIE_CORRUPT("S3 response: <%s> at byte %zu is not closed", (name), (size_t)((p) - xml)); goto done; } \
         if (!found_) *(vb) = NULL; } while (0)

hoodie_status hoodie_s3_list_parse(const char *xml, size_t len, hoodie_s3_list_cb cb, void *payload, int *stopped,
                                   int *truncated, hoodie_buf *next_token)
{
    const char *end = xml + len, *rb, *re;
    hoodie_status rc = HOODIE_OK;
    hoodie_buf t = HOODIE_BUF_INIT;
    *stopped = 0;
    *truncated = 0;
    /* the root element carries an xmlns attribute: find its start, then its body */
    const char *root = NULL;
    for (const char *p = xml; p + 18 <= end; p++) {
        p = memchr(p, '<', (size_t)(end - p));
        if (!p || p + 18 > end) break;
        if (!memcmp(p, "<ListBucketResult", 17) && (p[17] == '>' || p[17] == ' ')) { root = p; break; }
    }
    if (!root) return HOODIE_CORRUPT("S3 response: no <ListBucketResult> in %zu bytes", len);
    rb = memchr(root, '>', (size_t)(end - root));
    const char *close = NULL;
    for (const char *p = end; p > root && !close; p--)
        if ((size_t)(end - p) >= 19 && !memcmp(p, "</ListBucketResult>", 19)) close = p;
    if (!rb || !close || close < rb) return HOODIE_CORRUPT("S3 response: <ListBucketResult> is not closed");
    rb++;
    re = close;
    /* entries, in document order */
    for (const char *p = rb; p < re && !*stopped;) {
        const char *lt = memchr(p, '<', (size_t)(re - p));
        if (!lt) break;
        int is_c = (size_t)(re - lt) >= 10 && !memcmp(lt, "<Contents>", 10);
        int is_p = !is_c && (size_t)(re - lt) >= 16 && !memcmp(lt, "<CommonPrefixes>", 16);
        if (!is_c && !is_p) { p = lt + 1; continue; }
        const char *eb, *ee, *ea, *vb, *ve, *va;
        ELEM(lt, re, is_c ? "Contents" : "CommonPrefixes", &eb, &ee, &ea);
        hoodie_s3_list_item it = { 0 };
        if (is_c) {
            ELEM(eb, ee, "Key", &vb, &ve, &va);
            if (!vb) { rc = HOODIE_CORRUPT("S3 response: <Contents> without <Key> at byte %zu", (size_t)(lt - xml)); goto done; }
            HOODIE_TRY_GOTO(rc, text(xml, vb, ve, &t), done);
            ELEM(eb, ee, "Size", &vb, &ve, &va);
            if (vb) HOODIE_TRY_GOTO(rc, parse_u64(xml, vb, ve, &it.size), done);
            ELEM(eb, ee, "LastModified", &vb, &ve, &va);
            if (vb) {
                int64_t ms = hoodie_s3_parse_time(vb, (size_t)(ve - vb));
                if (ms < 0) { rc = HOODIE_CORRUPT("S3 response: bad LastModified at byte %zu", (size_t)(vb - xml)); goto done; }
                it.mtime_ms = ms;
            }
        } else {
            ELEM(eb, ee, "Prefix", &vb, &ve, &va);
            if (!vb) { rc = HOODIE_CORRUPT("S3 response: <CommonPrefixes> without <Prefix> at byte %zu", (size_t)(lt - xml)); goto done; }
            HOODIE_TRY_GOTO(rc, text(xml, vb, ve, &t), done);
            it.is_prefix = 1;
        }
        it.key = (const char *)t.data;
        if (cb(&it, payload)) *stopped = 1;
        p = ea;
    }
    /* the flags are direct children of the root: look for them outside the entries */
    {
        const char *vb, *ve, *va, *p = rb;
        ELEM(p, re, "IsTruncated", &vb, &ve, &va);
        if (vb) *truncated = (size_t)(ve - vb) == 4 && !memcmp(vb, "true", 4);
        if (next_token) {
            ELEM(p, re, "NextContinuationToken", &vb, &ve, &va);
            if (vb) HOODIE_TRY_GOTO(rc, text(xml, vb, ve, &t), done);
            if (vb && t.len) {
                HOODIE_TRY_GOTO(rc, hoodie_buf_append(next_token, t.data, t.len), done);
                HOODIE_TRY_GOTO(rc, hoodie_buf_cstr(next_token), done);
            } else if (*truncated) {
                rc = HOODIE_CORRUPT("S3 response: truncated listing without a NextContinuationToken");
            }
        }
    }
done:
    hoodie_buf_dispose(&t);
    return rc;
}

int hoodie_s3_error_parse(const char *xml, size_t len, hoodie_buf *out)
{
    const char *end = xml + len, *eb, *ee, *ea, *vb, *ve, *va;
    if (find_elem(xml, end, "Error", &eb, &ee, &ea) != 1) return 0;
    hoodie_buf t = HOODIE_BUF_INIT;
    size_t start = out->len;
    int ok = 1;
    if (find_elem(eb, ee, "Code", &vb, &ve, &va) == 1 && text(xml, vb, ve, &t) == HOODIE_OK)
        ok = hoodie_buf_append(out, t.data, t.len) == HOODIE_OK;
    if (ok && find_elem(eb, ee, "Message", &vb, &ve, &va) == 1 && text(xml, vb, ve, &t) == HOODIE_OK)
        ok = hoodie_buf_printf(out, "%s%s", out->len > start ? ": " : "", (const char *)t.data) == HOODIE_OK;
    hoodie_buf_dispose(&t);
    if (!ok || hoodie_buf_cstr(out) != HOODIE_OK) { out->len = start; return 0; }
    return out->len > start;
}

int hoodie_s3_xml_value(const char *xml, size_t len, const char *name, hoodie_buf *out)
{
    const char *vb, *ve, *va;
    if (find_elem(xml, xml + len, name, &vb, &ve, &va) != 1) return 0;
    hoodie_buf t = HOODIE_BUF_INIT;
    int ok = text(xml, vb, ve, &t) == HOODIE_OK && hoodie_buf_append(out, t.data, t.len) == HOODIE_OK &&
             hoodie_buf_cstr(out) == HOODIE_OK;
    hoodie_buf_dispose(&t);
    return ok;
}
