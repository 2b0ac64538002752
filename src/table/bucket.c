#include "table/bucket.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t hoodie_java_string_hash(const uint8_t *s, size_t n)
{
    uint32_t h = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0xFFFD;
        uint8_t c = s[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (len == 0 || i + len > n) { i++; }
        else {
            cp = len == 1 ? c : len == 2 ? c & 0x1Fu : len == 3 ? c & 0x0Fu : c & 0x07u;
            int ok = 1;
            for (size_t k = 1; k < len; k++) {
                if ((s[i + k] & 0xC0) != 0x80) { ok = 0; break; }
                cp = cp << 6 | (s[i + k] & 0x3Fu);
            }
            if (!ok) { cp = 0xFFFD; i++; }
            else i += len;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = 31 * h + (0xD800 + (cp >> 10));
            h = 31 * h + (0xDC00 + (cp & 0x3FF));
        } else {
            h = 31 * h + cp;
        }
    }
    return (int32_t)h;
}

static int is_field(const char *p, size_t n, const char *const *fields, size_t n_fields)
{
    if (n_fields == 0) return 1;
    for (size_t i = 0; i < n_fields; i++)
        if (strlen(fields[i]) == n && !memcmp(fields[i], p, n)) return 1;
    return 0;
}

int hoodie_bucket_id(const char *key, size_t len, const char *const *fields, size_t n_fields, int n_buckets)
{
    uint32_t h = 1;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && key[i] != ',') continue;
        const char *part = key + start;
        size_t pn = i - start;
        const char *colon = memchr(part, ':', pn);
        const char *v = part;
        size_t vn = pn;
        int keep = 1, is_null = 0;
        if (colon) {
            keep = is_field(part, (size_t)(colon - part), fields, n_fields);
            v = colon + 1;
            vn = pn - (size_t)(colon + 1 - part);
            if (vn == 8 && !memcmp(v, "__null__", 8)) is_null = 1;
            else if (vn == 9 && !memcmp(v, "__empty__", 9)) vn = 0;
        }
        if (keep) h = 31 * h + (is_null ? 0u : (uint32_t)hoodie_java_string_hash((const uint8_t *)v, vn));
        start = i + 1;
    }
    return n_buckets > 0 ? (int)((h & 0x7FFFFFFFu) % (uint32_t)n_buckets) : 0;
}

int hoodie_bucket_of_file_id(const char *file_id)
{
    int v = 0;
    for (int i = 0; i < 8; i++) {
        if (file_id[i] < '0' || file_id[i] > '9') return -1;
        v = v * 10 + (file_id[i] - '0');
    }
    return v;
}

void hoodie_bucket_file_id(char *out, size_t cap, int bucket, const char *random_file_id)
{
    size_t n = strlen(random_file_id);
    snprintf(out, cap, "%08d%s", bucket, n > 8 ? random_file_id + 8 : "");
}
