#include "table/filename.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

static int fn_alnum_dash(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

static int fn_digit(char c) { return c >= '0' && c <= '9'; }

static int fn_copy(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap) return 0;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 1;
}

/* [a-zA-Z0-9-]+_[a-zA-Z0-9-]+_[0-9]+\.[a-zA-Z0-9]+ */
hoodie_status hoodie_base_file_parse(hoodie_base_file_name *out, const char *name)
{
    const char *p = name, *a, *b, *c, *d;
    memset(out, 0, sizeof *out);
    for (a = p; fn_alnum_dash(*a); a++) {}
    if (a == p || *a != '_') return HOODIE_ENOTFOUND;
    for (b = a + 1; fn_alnum_dash(*b); b++) {}
    if (b == a + 1 || *b != '_') return HOODIE_ENOTFOUND;
    for (c = b + 1; fn_digit(*c); c++) {}
    if (c == b + 1 || *c != '.') return HOODIE_ENOTFOUND;
    for (d = c + 1; fn_alnum_dash(*d) && *d != '-'; d++) {}
    if (d == c + 1 || *d) return HOODIE_ENOTFOUND;
    if (!fn_copy(out->file_id, sizeof out->file_id, p, (size_t)(a - p))
        || !fn_copy(out->write_token, sizeof out->write_token, a + 1, (size_t)(b - a - 1))
        || !fn_copy(out->instant, sizeof out->instant, b + 1, (size_t)(c - b - 1))
        || !fn_copy(out->ext, sizeof out->ext, c + 1, (size_t)(d - c - 1)))
        return HOODIE_ENOTFOUND;
    return HOODIE_OK;
}

hoodie_status hoodie_base_file_format(char *dst, size_t cap, const char *file_id, const char *write_token,
                                      const char *instant, const char *ext)
{
    int n = snprintf(dst, cap, "%s_%s_%s.%s", file_id, write_token, instant, ext);
    if (n < 0 || (size_t)n >= cap) return HOODIE_FAIL(HOODIE_EINVAL, "base file name does not fit");
    return HOODIE_OK;
}

/* ^\.([^._]+)_([^.]*)\.(log|archive)\.(\d+)(_((\d+)-(\d+)-(\d+))(\.cdc)?)?$ */
hoodie_status hoodie_log_file_parse(hoodie_log_file_name *out, const char *name)
{
    const char *p = name + 1, *a, *b, *v, *t;
    memset(out, 0, sizeof *out);
    if (name[0] != '.') return HOODIE_ENOTFOUND;
    for (a = p; *a && *a != '.' && *a != '_'; a++) {}
    if (a == p || *a != '_') return HOODIE_ENOTFOUND;
    for (b = a + 1; *b && *b != '.'; b++) {}
    if (*b != '.') return HOODIE_ENOTFOUND;
    if (!strncmp(b, ".log.", 5)) v = b + 5;
    else if (!strncmp(b, ".archive.", 9)) { v = b + 9; out->is_archive = 1; }
    else return HOODIE_ENOTFOUND;
    if (!fn_digit(*v)) return HOODIE_ENOTFOUND;
    out->version = 0;
    for (t = v; fn_digit(*t); t++) {
        if (out->version > (INT64_MAX - 9) / 10) return HOODIE_ENOTFOUND;
        out->version = out->version * 10 + (*t - '0');
    }
    if (*t == '_') {
        const char *q = t + 1;
        for (int part = 0; part < 3; part++) {
            const char *s = q;
            while (fn_digit(*q)) q++;
            if (q == s) return HOODIE_ENOTFOUND;
            if (part < 2) {
                if (*q != '-') return HOODIE_ENOTFOUND;
                q++;
            }
        }
        if (!fn_copy(out->write_token, sizeof out->write_token, t + 1, (size_t)(q - t - 1))) return HOODIE_ENOTFOUND;
        if (!strcmp(q, ".cdc")) out->is_cdc = 1;
        else if (*q) return HOODIE_ENOTFOUND;
    } else if (*t) {
        return HOODIE_ENOTFOUND;
    }
    if (!fn_copy(out->file_id, sizeof out->file_id, p, (size_t)(a - p))
        || !fn_copy(out->instant, sizeof out->instant, a + 1, (size_t)(b - a - 1)))
        return HOODIE_ENOTFOUND;
    return HOODIE_OK;
}

hoodie_status hoodie_log_file_format(char *dst, size_t cap, const char *file_id, const char *instant,
                                     int64_t version, const char *write_token, int cdc)
{
    int n;
    if (write_token && *write_token)
        n = snprintf(dst, cap, ".%s_%s.log.%lld_%s%s", file_id, instant, (long long)version, write_token,
                     cdc ? ".cdc" : "");
    else
        n = snprintf(dst, cap, ".%s_%s.log.%lld", file_id, instant, (long long)version);
    if (n < 0 || (size_t)n >= cap) return HOODIE_FAIL(HOODIE_EINVAL, "log file name does not fit");
    return HOODIE_OK;
}

int hoodie_log_file_cmp(const hoodie_log_file_name *a, const hoodie_log_file_name *b)
{
    int r = strcmp(a->instant, b->instant);
    if (r) return r;
    if (a->version != b->version) return a->version < b->version ? -1 : 1;
    return strcmp(a->write_token, b->write_token);
}

hoodie_status hoodie_write_token_format(char *dst, size_t cap, uint32_t partition_id, uint32_t stage_id,
                                        uint64_t attempt_id)
{
    int n = snprintf(dst, cap, "%u-%u-%llu", partition_id, stage_id, (unsigned long long)attempt_id);
    if (n < 0 || (size_t)n >= cap) return HOODIE_FAIL(HOODIE_EINVAL, "write token does not fit");
    return HOODIE_OK;
}
