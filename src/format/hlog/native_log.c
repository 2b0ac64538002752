#include "format/hlog/native_log.h"
#include "util/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hoodie_status put_json_string(hoodie_buf *b, const char *s, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    HOODIE_TRY(hoodie_buf_reserve(b, len + 2));
    HOODIE_TRY(hoodie_buf_putc(b, '"'));
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default: break;
        }
        if (esc) {
            HOODIE_TRY(hoodie_buf_append(b, esc, 2));
        } else if (c < 0x20) {
            char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
            HOODIE_TRY(hoodie_buf_append(b, u, 6));
        } else {
            HOODIE_TRY(hoodie_buf_putc(b, c));
        }
    }
    return hoodie_buf_putc(b, '"');
}

hoodie_status hoodie_native_log_meta_build(hoodie_buf *out, const hoodie_hlog_header_entry *entries, size_t count,
                                           int32_t version)
{
    size_t start = out->len;
    unsigned seen = 0;
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < count; i++) {
        unsigned k = (unsigned)entries[i].key;
        if (k >= HOODIE_HLOG_HEADER_KEY_COUNT)
            return HOODIE_FAIL(HOODIE_EINVAL, "native log metadata: unknown header key %u", k);
        if (seen & (1u << k))
            return HOODIE_FAIL(HOODIE_EINVAL, "native log metadata: header %s given twice",
                               hoodie_hlog_header_key_name(entries[i].key));
        seen |= 1u << k;
    }
    char v[16];
    int vn = snprintf(v, sizeof v, "%d", (int)version);
    rc = hoodie_buf_append_str(out, "{\"VERSION\":");
    if (rc == HOODIE_OK) rc = put_json_string(out, v, (size_t)vn);
    for (size_t i = 0; i < count && rc == HOODIE_OK; i++) {
        if (!entries[i].value) continue;
        const char *name = hoodie_hlog_header_key_name(entries[i].key);
        rc = hoodie_buf_putc(out, ',');
        if (rc == HOODIE_OK) rc = put_json_string(out, name, strlen(name));
        if (rc == HOODIE_OK) rc = hoodie_buf_putc(out, ':');
        if (rc == HOODIE_OK) rc = put_json_string(out, entries[i].value, entries[i].len);
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_putc(out, '}');
    if (rc < 0) out->len = start;
    return rc;
}

static int key_of(const char *name)
{
    for (int k = 0; k < HOODIE_HLOG_HEADER_KEY_COUNT; k++)
        if (!strcmp(name, hoodie_hlog_header_key_name((hoodie_hlog_header_key)k))) return k;
    return -1;
}

/* A JSON scalar as the text Jackson's String deserializer gives it; NULL for null. */
static hoodie_status scalar_text(json_t *v, char *buf, size_t cap, const char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    switch (json_typeof(v)) {
    case JSON_STRING: *text = json_string_value(v); *len = json_string_length(v); return HOODIE_OK;
    case JSON_INTEGER: *len = (size_t)snprintf(buf, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); *text = buf; return HOODIE_OK;
    case JSON_REAL: *len = (size_t)snprintf(buf, cap, "%.17g", json_real_value(v)); *text = buf; return HOODIE_OK;
    case JSON_TRUE: *text = "true"; *len = 4; return HOODIE_OK;
    case JSON_FALSE: *text = "false"; *len = 5; return HOODIE_OK;
    case JSON_NULL: return HOODIE_OK;
    default: return HOODIE_ECORRUPT;
    }
}

hoodie_status hoodie_native_log_meta_parse(hoodie_native_log_meta *out, const char *json, size_t len,
                                           hoodie_arena *arena, const char *what)
{
    json_error_t err;
    memset(out, 0, sizeof *out);
    out->version = -1;
    what = what ? what : "native log file";
    json_t *root = json_loadb(json, len, 0, &err);
    if (!root)
        return HOODIE_CORRUPT("%s: footer %s is not valid JSON at offset %d: %s", what, HOODIE_NATIVE_LOG_FOOTER_KEY,
                              err.position, err.text);
    hoodie_status rc = HOODIE_OK;
    if (!json_is_object(root)) {
        rc = HOODIE_CORRUPT("%s: footer %s is not a JSON object", what, HOODIE_NATIVE_LOG_FOOTER_KEY);
        goto done;
    }
    const char *name;
    json_t *v;
    json_object_foreach(root, name, v) {
        char num[64];
        const char *text;
        size_t tlen;
        if (scalar_text(v, num, sizeof num, &text, &tlen) < 0) {
            rc = HOODIE_CORRUPT("%s: footer %s: entry '%s' is not a string", what, HOODIE_NATIVE_LOG_FOOTER_KEY, name);
            goto done;
        }
        if (!strcmp(name, "VERSION")) {
            if (!text) continue;
            /* Integer.parseInt(version.trim()) */
            size_t a = 0, b = tlen;
            while (a < b && (unsigned char)text[a] <= ' ') a++;
            while (b > a && (unsigned char)text[b - 1] <= ' ') b--;
            size_t i = a;
            int neg = 0;
            if (i < b && (text[i] == '-' || text[i] == '+')) neg = text[i++] == '-';
            long long n = 0;
            int ok = i < b;
            for (; i < b && ok; i++) {
                if (text[i] < '0' || text[i] > '9') ok = 0;
                else if ((n = n * 10 + (text[i] - '0')) > (long long)INT32_MAX + 1) ok = 0;
            }
            if (neg) n = -n;
            if (!ok || n > INT32_MAX || n < INT32_MIN) {
                rc = HOODIE_CORRUPT("%s: footer %s: invalid native log format version '%.*s'", what,
                                    HOODIE_NATIVE_LOG_FOOTER_KEY, (int)(tlen > 40 ? 40 : tlen), text);
                goto done;
            }
            if (n > HOODIE_NATIVE_LOG_VERSION) {
                rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: native log format version %lld is newer than the supported "
                                 "version %d", what, n, HOODIE_NATIVE_LOG_VERSION);
                goto done;
            }
            out->version = (int32_t)n;
            continue;
        }
        int k = key_of(name);
        if (k < 0) { out->unknown_keys++; continue; }
        if (!text) { out->header[k] = NULL; out->header_len[k] = 0; continue; }
        char *copy = hoodie_arena_alloc(arena, tlen + 1);
        if (!copy) { rc = HOODIE_NOMEM(); goto done; }
        memcpy(copy, text, tlen);
        copy[tlen] = 0;
        out->header[k] = copy;
        out->header_len[k] = tlen;
    }
done:
    json_decref(root);
    return rc;
}

hoodie_status hoodie_native_log_meta_from_kv(hoodie_native_log_meta *out, const hoodie_pq_kv *kv, uint32_t kv_count,
                                             hoodie_arena *arena, const char *what)
{
    memset(out, 0, sizeof *out);
    out->version = -1;
    for (uint32_t i = 0; i < kv_count; i++) {
        if (!kv[i].key || strcmp(kv[i].key, HOODIE_NATIVE_LOG_FOOTER_KEY) != 0) continue;
        if (!kv[i].value)
            return HOODIE_CORRUPT("%s: footer key %s has no value", what ? what : "native log file",
                                  HOODIE_NATIVE_LOG_FOOTER_KEY);
        return hoodie_native_log_meta_parse(out, kv[i].value, strlen(kv[i].value), arena, what);
    }
    return HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no %s footer key: not a native log file", what ? what : "file",
                       HOODIE_NATIVE_LOG_FOOTER_KEY);
}
