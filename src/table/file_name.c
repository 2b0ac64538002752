#include "table/file_name.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

static int is_digits(const char *p, size_t n)
{
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9') return 0;
    return 1;
}

static int is_id_chars(const char *p, size_t n)
{
    if (!n) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')) return 0;
    }
    return 1;
}

/* token: digits-digits-digits */
static int is_token(const char *p, size_t n)
{
    int dashes = 0;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '-') {
            if (!run) return 0;
            dashes++;
            run = 0;
        } else if (p[i] >= '0' && p[i] <= '9') run++;
        else return 0;
    }
    return dashes == 2 && run > 0;
}

static hoodie_slice_ref ref(const char *p, size_t n) { hoodie_slice_ref r = { p, n }; return r; }

static hoodie_file_kind parse_log(hoodie_file_name *out, const char *name)
{
    /* .<fileId>_<instant>.log.<version>[_<token>][.cdc] */
    const char *s = name + 1;
    const char *us = strchr(s, '_');
    if (!us) return HOODIE_FILE_OTHER;
    const char *dot = strchr(us + 1, '.');
    if (!dot || !is_id_chars(s, (size_t)(us - s))) return HOODIE_FILE_OTHER;
    const char *ext = dot + 1;
    size_t ext_len;
    if (!strncmp(ext, "log.", 4)) ext_len = 3;
    else if (!strncmp(ext, "archive.", 8)) ext_len = 7;
    else return HOODIE_FILE_OTHER;
    const char *ver = ext + ext_len + 1;
    size_t vlen = strspn(ver, "0123456789");
    if (!vlen || vlen > 9) return HOODIE_FILE_OTHER;
    const char *rest = ver + vlen;
    out->file_id = ref(s, (size_t)(us - s));
    out->instant = ref(us + 1, (size_t)(dot - us - 1));
    out->ext = ref(ext, ext_len);
    out->version = strtoll(ver, NULL, 10);
    out->write_token = ref(rest, 0);
    out->cdc = 0;
    if (*rest == '_') {
        const char *tok = rest + 1;
        const char *end = strchr(tok, '.');
        size_t tlen = end ? (size_t)(end - tok) : strlen(tok);
        if (!is_token(tok, tlen)) return HOODIE_FILE_OTHER;
        out->write_token = ref(tok, tlen);
        rest = tok + tlen;
    }
    if (!strcmp(rest, ".cdc")) out->cdc = 1;
    else if (*rest) return HOODIE_FILE_OTHER;
    if (!is_digits(out->instant.p, out->instant.len)) return HOODIE_FILE_OTHER;
    out->kind = HOODIE_FILE_LOG;
    return out->kind;
}

hoodie_file_kind hoodie_file_name_parse(hoodie_file_name *out, const char *name)
{
    memset(out, 0, sizeof *out);
    if (name[0] == '.') return parse_log(out, name);
    /* <fileId>_<token>_<instant>(.<ext> | _<version>.log.parquet | _<version>.deletes.parquet) */
    const char *u1 = strchr(name, '_');
    if (!u1 || !is_id_chars(name, (size_t)(u1 - name))) return HOODIE_FILE_OTHER;
    const char *u2 = strchr(u1 + 1, '_');
    if (!u2 || !is_token(u1 + 1, (size_t)(u2 - u1 - 1))) return HOODIE_FILE_OTHER;
    const char *inst = u2 + 1;
    size_t ilen = strspn(inst, "0123456789");
    if (!ilen) return HOODIE_FILE_OTHER;
    out->file_id = ref(name, (size_t)(u1 - name));
    out->write_token = ref(u1 + 1, (size_t)(u2 - u1 - 1));
    out->instant = ref(inst, ilen);
    const char *rest = inst + ilen;
    if (*rest == '.') {
        const char *ext = rest + 1;
        if (!is_id_chars(ext, strlen(ext)) || strchr(ext, '-')) return HOODIE_FILE_OTHER;
        out->ext = ref(ext, strlen(ext));
        out->kind = HOODIE_FILE_BASE;
        return out->kind;
    }
    if (*rest == '_') {
        const char *ver = rest + 1;
        size_t vlen = strspn(ver, "0123456789");
        if (!vlen || vlen > 9) return HOODIE_FILE_OTHER;
        out->version = strtoll(ver, NULL, 10);
        const char *suffix = ver + vlen;
        if (!strcmp(suffix, ".log.parquet")) out->kind = HOODIE_FILE_LOG_NATIVE;
        else if (!strcmp(suffix, ".deletes.parquet")) out->kind = HOODIE_FILE_DELETES_NATIVE;
        else return HOODIE_FILE_OTHER;
        out->ext = ref("parquet", 7);
        return out->kind;
    }
    return HOODIE_FILE_OTHER;
}

hoodie_status hoodie_file_name_base(hoodie_buf *out, const char *file_id, const char *write_token,
                                    const char *instant, const char *ext)
{
    HOODIE_TRY(hoodie_buf_printf(out, "%s_%s_%s.%s", file_id, write_token, instant, ext));
    return hoodie_buf_cstr(out);
}

hoodie_status hoodie_file_name_log(hoodie_buf *out, const char *file_id, const char *instant, int64_t version,
                                   const char *write_token)
{
    HOODIE_TRY(hoodie_buf_printf(out, ".%s_%s.log.%lld_%s", file_id, instant, (long long)version, write_token));
    return hoodie_buf_cstr(out);
}

hoodie_status hoodie_file_name_native_log(hoodie_buf *out, const char *file_id, const char *write_token,
                                          const char *instant, int64_t version, int deletes)
{
    HOODIE_TRY(hoodie_buf_printf(out, "%s_%s_%s_%lld.%s.parquet", file_id, write_token, instant, (long long)version,
                                 deletes ? "deletes" : "log"));
    return hoodie_buf_cstr(out);
}

static long long token_part(hoodie_slice_ref t, int idx)
{
    size_t i = 0;
    for (int part = 0; part < idx; part++) {
        while (i < t.len && t.p[i] != '-') i++;
        i++;
    }
    long long v = 0;
    while (i < t.len && t.p[i] >= '0' && t.p[i] <= '9' && v < (1LL << 55)) v = v * 10 + (t.p[i++] - '0');
    return v;
}

int hoodie_write_token_compare(hoodie_slice_ref a, hoodie_slice_ref b)
{
    for (int i = 0; i < 3; i++) {
        long long x = token_part(a, i), y = token_part(b, i);
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}
