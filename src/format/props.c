#include "format/props.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error.h"

void hoodie_props_dispose(hoodie_props *p)
{
    for (size_t i = 0; i < p->count; i++) {
        free(p->entries[i].key);
        free(p->entries[i].value);
    }
    free(p->entries);
    hoodie_props_init(p);
}

static hoodie_props_entry *props_lookup(const hoodie_props *p, const char *key)
{
    for (size_t i = 0; i < p->count; i++)
        if (strcmp(p->entries[i].key, key) == 0) return &p->entries[i];
    return NULL;
}

const hoodie_props_entry *hoodie_props_find(const hoodie_props *p, const char *key)
{
    return props_lookup(p, key);
}

const char *hoodie_props_get(const hoodie_props *p, const char *key)
{
    const hoodie_props_entry *e = props_lookup(p, key);
    return e ? e->value : NULL;
}

/* Takes ownership of key and value (frees them on failure). */
static hoodie_status props_put_owned(hoodie_props *p, char *key, char *value, unsigned line)
{
    hoodie_props_entry *e = props_lookup(p, key);
    if (e) {
        free(key);
        free(e->value);
        e->value = value;
        e->line = line;
        return HOODIE_OK;
    }
    if (p->count == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        hoodie_props_entry *n = realloc(p->entries, cap * sizeof *n);
        if (!n) {
            free(key);
            free(value);
            return HOODIE_NOMEM();
        }
        p->entries = n;
        p->cap = cap;
    }
    p->entries[p->count].key = key;
    p->entries[p->count].value = value;
    p->entries[p->count].line = line;
    p->count++;
    return HOODIE_OK;
}

hoodie_status hoodie_props_set(hoodie_props *p, const char *key, const char *value)
{
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return HOODIE_NOMEM();
    }
    return props_put_owned(p, k, v, 0);
}

int hoodie_props_remove(hoodie_props *p, const char *key)
{
    hoodie_props_entry *e = props_lookup(p, key);
    if (!e) return 0;
    size_t i = (size_t)(e - p->entries);
    free(e->key);
    free(e->value);
    memmove(&p->entries[i], &p->entries[i + 1], (p->count - i - 1) * sizeof *e);
    p->count--;
    return 1;
}

/* ---- parsing ---------------------------------------------------------------------------------------------- */

static int props_is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\f'; }
static int props_is_eol(uint8_t c) { return c == '\n' || c == '\r'; }

static hoodie_status props_put_utf8(hoodie_buf *b, uint32_t cp)
{
    uint8_t u[4];
    size_t n;
    if (cp < 0x80) { u[0] = (uint8_t)cp; n = 1; }
    else if (cp < 0x800) { u[0] = (uint8_t)(0xC0 | cp >> 6); u[1] = (uint8_t)(0x80 | (cp & 0x3F)); n = 2; }
    else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xE0 | cp >> 12); u[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp & 0x3F)); n = 3;
    } else {
        u[0] = (uint8_t)(0xF0 | cp >> 18); u[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F)); u[3] = (uint8_t)(0x80 | (cp & 0x3F)); n = 4;
    }
    return hoodie_buf_append(b, u, n);
}

static int props_hex(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Java loadConvert over Latin-1 bytes s[0..n), producing a malloc'd UTF-8 string. */
static hoodie_status props_convert(const uint8_t *s, size_t n, char **out, const char *what, unsigned line)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    uint32_t high = 0; /* pending high surrogate */
    size_t i = 0;
    *out = NULL;
    while (i < n && rc == HOODIE_OK) {
        uint32_t unit;
        uint8_t c = s[i++];
        if (c == '\\' && i < n) {
            c = s[i++];
            if (c == 'u') {
                if (n - i < 4) {
                    rc = HOODIE_CORRUPT("%s:%u: malformed \\uxxxx encoding", what, line);
                    break;
                }
                unit = 0;
                for (int k = 0; k < 4; k++) {
                    int h = props_hex(s[i + (size_t)k]);
                    if (h < 0) {
                        rc = HOODIE_CORRUPT("%s:%u: malformed \\uxxxx encoding", what, line);
                        break;
                    }
                    unit = unit << 4 | (uint32_t)h;
                }
                if (rc) break;
                i += 4;
            } else if (c == 't') unit = '\t';
            else if (c == 'r') unit = '\r';
            else if (c == 'n') unit = '\n';
            else if (c == 'f') unit = '\f';
            else unit = c;
        } else {
            unit = c; /* a lone trailing backslash is dropped by Java; here it cannot occur (continuation) */
            if (c == '\\') continue;
        }
        if (high) {
            if (unit >= 0xDC00 && unit <= 0xDFFF) {
                rc = props_put_utf8(&b, 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00));
                high = 0;
                continue;
            }
            rc = props_put_utf8(&b, 0xFFFD);
            high = 0;
            if (rc) break;
        }
        if (unit >= 0xD800 && unit <= 0xDBFF) high = unit;
        else if (unit >= 0xDC00 && unit <= 0xDFFF) rc = props_put_utf8(&b, 0xFFFD);
        else rc = props_put_utf8(&b, unit);
    }
    if (!rc && high) rc = props_put_utf8(&b, 0xFFFD);
    if (!rc) rc = hoodie_buf_cstr(&b);
    if (!rc && !b.data) {
        b.data = malloc(1);
        if (!b.data) rc = HOODIE_NOMEM();
        else b.data[0] = 0;
    }
    if (rc) {
        hoodie_buf_dispose(&b);
        return rc;
    }
    *out = (char *)b.data;
    return HOODIE_OK;
}

/* Split one logical line (escapes still in) into key and value, as Properties.load does. */
static hoodie_status props_add_line(hoodie_props *p, const uint8_t *l, size_t n, const char *what, unsigned line)
{
    size_t key_len = 0, value_start = n;
    int has_sep = 0, backslash = 0;
    char *key, *value;
    while (key_len < n) {
        uint8_t c = l[key_len];
        if ((c == '=' || c == ':') && !backslash) {
            value_start = key_len + 1;
            has_sep = 1;
            break;
        } else if (props_is_ws(c) && !backslash) {
            value_start = key_len + 1;
            break;
        }
        backslash = c == '\\' ? !backslash : 0;
        key_len++;
    }
    while (value_start < n) {
        uint8_t c = l[value_start];
        if (!props_is_ws(c)) {
            if (!has_sep && (c == '=' || c == ':')) has_sep = 1;
            else break;
        }
        value_start++;
    }
    HOODIE_TRY(props_convert(l, key_len, &key, what, line));
    hoodie_status rc = props_convert(l + value_start, n - value_start, &value, what, line);
    if (rc) {
        free(key);
        return rc;
    }
    return props_put_owned(p, key, value, line);
}

hoodie_status hoodie_props_parse(hoodie_props *p, const void *data, size_t len, const char *what)
{
    const uint8_t *s = data;
    size_t pos = 0;
    unsigned line_no = 1;
    hoodie_buf lb = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    if (!what) what = "properties";

    while (pos < len && rc == HOODIE_OK) {
        unsigned start_line = line_no;
        while (pos < len && props_is_ws(s[pos])) pos++;
        if (pos >= len) break;
        if (props_is_eol(s[pos])) { /* blank line */
            if (s[pos] == '\r' && pos + 1 < len && s[pos + 1] == '\n') pos++;
            pos++;
            line_no++;
            continue;
        }
        if (s[pos] == '#' || s[pos] == '!') { /* comment: to the end of this natural line */
            while (pos < len && !props_is_eol(s[pos])) pos++;
            if (pos < len) {
                if (s[pos] == '\r' && pos + 1 < len && s[pos + 1] == '\n') pos++;
                pos++;
                line_no++;
            }
            continue;
        }
        hoodie_buf_clear(&lb);
        for (;;) {
            size_t seg = pos;
            while (pos < len && !props_is_eol(s[pos])) pos++;
            rc = hoodie_buf_append(&lb, s + seg, pos - seg);
            if (rc) break;
            /* an odd number of trailing backslashes continues the line */
            size_t bs = 0;
            while (bs < lb.len && lb.data[lb.len - 1 - bs] == '\\') bs++;
            if (pos < len) { /* consume the terminator */
                if (s[pos] == '\r' && pos + 1 < len && s[pos + 1] == '\n') pos++;
                pos++;
                line_no++;
            }
            if (bs % 2 == 0) break;
            lb.len--; /* drop the continuation backslash */
            if (pos >= len) break;
            while (pos < len && props_is_ws(s[pos])) pos++;
        }
        if (rc) break;
        rc = props_add_line(p, lb.data ? lb.data : (const uint8_t *)"", lb.len, what, start_line);
    }
    hoodie_buf_dispose(&lb);
    return rc;
}

/* ---- writing ---------------------------------------------------------------------------------------------- */

/* Decode one UTF-8 code point; invalid bytes are taken as Latin-1. */
static uint32_t props_next_cp(const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    uint32_t c = *p;
    int n = c >= 0xF0 && c < 0xF5 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 && c < 0xE0 ? 1 : 0;
    if (c >= 0xF5) n = 0;
    if (c >= 0x80 && n > 0 && end - p > n) {
        uint32_t cp = c & (0x3Fu >> n);
        int ok = 1;
        for (int k = 1; k <= n; k++) {
            if ((p[k] & 0xC0) != 0x80) { ok = 0; break; }
            cp = cp << 6 | (p[k] & 0x3F);
        }
        if (ok && !(n == 2 && cp < 0x800) && !(n == 3 && (cp < 0x10000 || cp > 0x10FFFF))
            && !(cp >= 0xD800 && cp <= 0xDFFF)) {
            *pp = p + n + 1;
            return cp;
        }
    }
    *pp = p + 1;
    return c;
}

static hoodie_status props_put_u(hoodie_buf *out, uint32_t unit)
{
    static const char hex[] = "0123456789ABCDEF";
    char e[6] = { '\\', 'u', hex[unit >> 12 & 15], hex[unit >> 8 & 15], hex[unit >> 4 & 15], hex[unit & 15] };
    return hoodie_buf_append(out, e, 6);
}

hoodie_status hoodie_props_escape(hoodie_buf *out, const char *str, int is_key)
{
    const uint8_t *p = (const uint8_t *)str, *end = p + strlen(str);
    int first = 1;
    while (p < end) {
        uint32_t c = props_next_cp(&p, end);
        hoodie_status rc;
        if (c > 61 && c < 127) rc = c == '\\' ? hoodie_buf_append(out, "\\\\", 2) : hoodie_buf_putc(out, (uint8_t)c);
        else switch (c) {
            case ' ': rc = (first || is_key) ? hoodie_buf_append(out, "\\ ", 2) : hoodie_buf_putc(out, ' '); break;
            case '\t': rc = hoodie_buf_append(out, "\\t", 2); break;
            case '\n': rc = hoodie_buf_append(out, "\\n", 2); break;
            case '\r': rc = hoodie_buf_append(out, "\\r", 2); break;
            case '\f': rc = hoodie_buf_append(out, "\\f", 2); break;
            case '=': case ':': case '#': case '!':
                rc = hoodie_buf_putc(out, '\\');
                if (!rc) rc = hoodie_buf_putc(out, (uint8_t)c);
                break;
            default:
                if (c < 0x20 || c > 0x7E) {
                    if (c > 0xFFFF) {
                        rc = props_put_u(out, 0xD800 + ((c - 0x10000) >> 10));
                        if (!rc) rc = props_put_u(out, 0xDC00 + ((c - 0x10000) & 0x3FF));
                    } else {
                        rc = props_put_u(out, c);
                    }
                } else {
                    rc = hoodie_buf_putc(out, (uint8_t)c);
                }
        }
        if (rc) return rc;
        first = 0;
    }
    return HOODIE_OK;
}

hoodie_status hoodie_props_store(const hoodie_props *p, hoodie_buf *out, const char *comment, int64_t now_ms)
{
    char date[64];
    struct tm tm;
    time_t t = (time_t)(now_ms >= 0 ? now_ms / 1000 : (now_ms - 999) / 1000);
    if (comment) {
        HOODIE_TRY(hoodie_buf_putc(out, '#'));
        /* comments are plain text; Java escapes only characters above U+00FF and line breaks */
        for (const char *c = comment; *c; c++) {
            if (*c == '\n' || *c == '\r') HOODIE_TRY(hoodie_buf_append(out, "\n#", 2));
            else HOODIE_TRY(hoodie_buf_putc(out, (uint8_t)*c));
        }
        HOODIE_TRY(hoodie_buf_putc(out, '\n'));
    }
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "#%a %b %d %H:%M:%S UTC %Y\n", &tm);
    HOODIE_TRY(hoodie_buf_append_str(out, date));
    for (size_t i = 0; i < p->count; i++) {
        HOODIE_TRY(hoodie_props_escape(out, p->entries[i].key, 1));
        HOODIE_TRY(hoodie_buf_putc(out, '='));
        HOODIE_TRY(hoodie_props_escape(out, p->entries[i].value, 0));
        HOODIE_TRY(hoodie_buf_putc(out, '\n'));
    }
    return HOODIE_OK;
}

void hoodie_props_store_comment(char *dst, size_t cap, const char *prefix, int64_t now_us)
{
    struct tm tm;
    int64_t secs = now_us >= 0 ? now_us / 1000000 : (now_us - 999999) / 1000000;
    int64_t us = now_us - secs * 1000000;
    time_t t = (time_t)secs;
    char base[40], frac[16] = "";
    gmtime_r(&t, &tm);
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    if (us % 1000 == 0 && us != 0) snprintf(frac, sizeof frac, ".%03d", (int)(us / 1000));
    else if (us != 0) snprintf(frac, sizeof frac, ".%06d", (int)us);
    snprintf(dst, cap, "%s%s%sZ", prefix ? prefix : "", base, frac);
}
