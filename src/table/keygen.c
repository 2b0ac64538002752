/* Key generators (see keygen.h). */
#include "table/keygen.h"
#include "model/value.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HIVE_DEFAULT "__HIVE_DEFAULT_PARTITION__"

static void field_dispose(hoodie_keygen_field *f)
{
    free(f->name);
    free(f->path);
}

void hoodie_keygen_dispose(hoodie_keygen_plan *kg)
{
    if (!kg) return;
    for (size_t i = 0; i < kg->key_count; i++) field_dispose(&kg->keys[i]);
    for (size_t i = 0; i < kg->part_count; i++) field_dispose(&kg->parts[i]);
    free(kg->keys);
    free(kg->parts);
    free(kg->ts_format);
    memset(kg, 0, sizeof *kg);
}

void hoodie_keygen_out_dispose(hoodie_keygen_out *o)
{
    hoodie_buf_dispose(&o->data);
    free(o->offsets);
    o->offsets = NULL;
    o->rows = 0;
}

static hoodie_status resolve(hoodie_keygen_field *kf, const char *name, const hoodie_field *schema)
{
    memset(kf, 0, sizeof *kf);
    if (!(kf->name = strdup(name))) return HOODIE_NOMEM();
    size_t depth = 1;
    for (const char *c = name; *c; c++) depth += *c == '.';
    if (!(kf->path = malloc(depth * sizeof *kf->path))) return HOODIE_NOMEM();
    const hoodie_field *f = schema;
    const char *seg = name;
    for (size_t d = 0; d < depth; d++) {
        const char *dot = strchr(seg, '.');
        size_t n = dot ? (size_t)(dot - seg) : strlen(seg);
        if (f->type.id != HOODIE_TYPE_STRUCT)
            return HOODIE_FAIL(HOODIE_EINVAL, "key field '%s': '%.*s' is not inside a struct", name, (int)n, seg);
        int idx = -1;
        for (size_t i = 0; i < f->n_children; i++)
            if (strlen(f->children[i].name) == n && !memcmp(f->children[i].name, seg, n)) { idx = (int)i; break; }
        if (idx < 0) return HOODIE_FAIL(HOODIE_EINVAL, "key field '%s': no column '%.*s' in the data", name, (int)n, seg);
        kf->path[d] = idx;
        f = &f->children[idx];
        seg = dot ? dot + 1 : seg + n;
    }
    kf->depth = depth;
    return HOODIE_OK;
}

static hoodie_status init_fields(hoodie_keygen_field **out, size_t *count, const hoodie_str_list *names,
                                 const hoodie_str_list *types, const hoodie_field *schema)
{
    *count = 0;
    if (!names->count) return HOODIE_OK;
    if (!(*out = calloc(names->count, sizeof **out))) return HOODIE_NOMEM();
    for (size_t i = 0; i < names->count; i++) {
        (*count)++;
        HOODIE_TRY(resolve(&(*out)[i], names->items[i], schema));
        if (types && i < types->count && types->items[i]) {
            if (!strcasecmp(types->items[i], "TIMESTAMP")) (*out)[i].timestamp = 1;
            else if (strcasecmp(types->items[i], "SIMPLE"))
                return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "partition field '%s': key generator type '%s' (SIMPLE or "
                                   "TIMESTAMP)", names->items[i], types->items[i]);
        }
    }
    return HOODIE_OK;
}

static hoodie_status init_timestamp(hoodie_keygen_plan *kg, const hoodie_table_config *cfg)
{
    const char *type = hoodie_table_config_get(cfg, "hoodie.keygen.timebased.timestamp.type");
    const char *fmt = hoodie_table_config_get(cfg, "hoodie.keygen.timebased.output.dateformat");
    const char *tz = hoodie_table_config_get(cfg, "hoodie.keygen.timebased.timezone");
    const char *otz = hoodie_table_config_get(cfg, "hoodie.keygen.timebased.output.timezone");
    if (!type) return HOODIE_FAIL(HOODIE_EINVAL, "timestamp key generator: hoodie.keygen.timebased.timestamp.type is not set");
    kg->ts_unit_ms_num = 1;
    kg->ts_unit_ms_den = 1;
    if (!strcasecmp(type, "EPOCHMILLISECONDS")) kg->ts_input = HOODIE_TS_EPOCHMILLIS;
    else if (!strcasecmp(type, "UNIX_TIMESTAMP")) { kg->ts_input = HOODIE_TS_UNIX_SECONDS; kg->ts_unit_ms_num = 1000; }
    else if (!strcasecmp(type, "SCALAR")) {
        kg->ts_input = HOODIE_TS_SCALAR;
        const char *u = hoodie_table_config_get(cfg, "hoodie.keygen.timebased.timestamp.scalar.time.unit");
        if (!u || !strcasecmp(u, "SECONDS")) kg->ts_unit_ms_num = 1000;
        else if (!strcasecmp(u, "MILLISECONDS")) kg->ts_unit_ms_num = 1;
        else if (!strcasecmp(u, "MICROSECONDS")) kg->ts_unit_ms_den = 1000;
        else if (!strcasecmp(u, "NANOSECONDS")) kg->ts_unit_ms_den = 1000000;
        else if (!strcasecmp(u, "MINUTES")) kg->ts_unit_ms_num = 60000;
        else if (!strcasecmp(u, "HOURS")) kg->ts_unit_ms_num = 3600000;
        else if (!strcasecmp(u, "DAYS")) kg->ts_unit_ms_num = 86400000;
        else return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "timestamp key generator: scalar time unit '%s'", u);
    } else {
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "timestamp key generator: timestamp type '%s' (hoodie supports "
                           "EPOCHMILLISECONDS, UNIX_TIMESTAMP and SCALAR)", type);
    }
    const char *zones[2] = { tz, otz };
    for (int i = 0; i < 2; i++)
        if (zones[i] && *zones[i] && strcasecmp(zones[i], "UTC") && strcasecmp(zones[i], "GMT") &&
            strcasecmp(zones[i], "Z") && strcasecmp(zones[i], "Etc/UTC"))
            return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "timestamp key generator: time zone '%s' (only UTC)", zones[i]);
    if (!(kg->ts_format = strdup(fmt && *fmt ? fmt : "yyyy-MM-dd"))) return HOODIE_NOMEM();
    return HOODIE_OK;
}

hoodie_status hoodie_keygen_init(hoodie_keygen_plan *kg, const hoodie_table_config *cfg, const hoodie_field *schema)
{
    hoodie_status rc = HOODIE_OK;
    memset(kg, 0, sizeof *kg);
    kg->kind = cfg->keygen;
    kg->hive_style = cfg->hive_style_partitioning;
    kg->url_encode = cfg->url_encode_partitions;
    if (schema->type.id != HOODIE_TYPE_STRUCT) return HOODIE_FAIL(HOODIE_EINVAL, "keygen: the schema is not a struct");
    switch (kg->kind) {
    case HOODIE_KEYGEN_SIMPLE: case HOODIE_KEYGEN_COMPLEX: case HOODIE_KEYGEN_NON_PARTITION:
    case HOODIE_KEYGEN_TIMESTAMP: case HOODIE_KEYGEN_CUSTOM: break;
    default:
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "keygen: key generator %s is not supported",
                           cfg->keygen_class ? cfg->keygen_class : cfg->keygen_type ? cfg->keygen_type : "(unknown)");
    }
    if (cfg->record_key_fields.count == 0) return HOODIE_FAIL(HOODIE_EINVAL, "keygen: the table has no record key fields");
    HOODIE_TRY_GOTO(rc, init_fields(&kg->keys, &kg->key_count, &cfg->record_key_fields, NULL, schema), fail);
    kg->complex_key = kg->kind == HOODIE_KEYGEN_COMPLEX || kg->key_count > 1;
    if (kg->kind != HOODIE_KEYGEN_NON_PARTITION) {
        HOODIE_TRY_GOTO(rc, init_fields(&kg->parts, &kg->part_count, &cfg->partition_fields,
                                        kg->kind == HOODIE_KEYGEN_CUSTOM ? &cfg->partition_field_types : NULL, schema),
                        fail);
        if (kg->kind == HOODIE_KEYGEN_TIMESTAMP)
            for (size_t i = 0; i < kg->part_count; i++) kg->parts[i].timestamp = 1;
        int any_ts = 0;
        for (size_t i = 0; i < kg->part_count; i++) any_ts |= kg->parts[i].timestamp;
        if (any_ts) HOODIE_TRY_GOTO(rc, init_timestamp(kg, cfg), fail);
    }
    return HOODIE_OK;
fail:
    hoodie_keygen_dispose(kg);
    return rc;
}

/* The leaf array and field of `kf` at `row`; NULL if a struct on the way (or the value) is null. */
static const hoodie_array *leaf(const hoodie_keygen_field *kf, const hoodie_batch *b, int64_t row,
                                const hoodie_field **field_out)
{
    const hoodie_array *a = &b->root;
    const hoodie_field *f = &b->schema;
    for (size_t d = 0; d < kf->depth; d++) {
        if (!hoodie_array_is_valid(a, row)) return NULL;
        a = &a->children[kf->path[d]];
        f = &f->children[kf->path[d]];
    }
    *field_out = f;
    return hoodie_array_is_valid(a, row) ? a : NULL;
}

static int is_empty_string(const hoodie_field *f, const hoodie_array *a, int64_t row)
{
    return (f->type.id == HOODIE_TYPE_STRING || f->type.id == HOODIE_TYPE_BINARY) &&
           a->offsets[row + 1] == a->offsets[row];
}

static hoodie_status out_begin(hoodie_keygen_out *out, int64_t rows)
{
    hoodie_buf_clear(&out->data);
    free(out->offsets);
    out->rows = 0;
    if (!(out->offsets = malloc(((size_t)rows + 1) * sizeof *out->offsets))) return HOODIE_NOMEM();
    out->offsets[0] = 0;
    out->rows = rows;
    return HOODIE_OK;
}

hoodie_status hoodie_keygen_record_keys(const hoodie_keygen_plan *kg, const hoodie_batch *b, hoodie_keygen_out *out)
{
    int64_t rows = hoodie_batch_rows(b);
    HOODIE_TRY(out_begin(out, rows));
    if (!kg->complex_key && kg->keys[0].depth == 1 && b->schema.children[kg->keys[0].path[0]].type.id == HOODIE_TYPE_STRING) {
        /* one top-level string key field: the keys are the column's bytes, copied at once */
        const hoodie_array *a = &b->root.children[kg->keys[0].path[0]];
        const int32_t *o = a->offsets;
        for (int64_t r = 0; r < rows; r++)
            if (!hoodie_array_is_valid(a, r) || o[r + 1] == o[r])
                return HOODIE_FAIL(HOODIE_EINVAL, "row %lld: record key field '%s' is %s", (long long)r,
                                   kg->keys[0].name, hoodie_array_is_valid(a, r) ? "empty" : "null");
        size_t bytes = rows ? (size_t)(o[rows] - o[0]) : 0;
        HOODIE_TRY(hoodie_buf_reserve(&out->data, bytes + 1));
        if (bytes) memcpy(out->data.data, a->values + o[0], bytes);
        out->data.len = bytes;
        for (int64_t r = 0; r < rows; r++) out->offsets[r + 1] = (int64_t)(o[r + 1] - o[0]);
        return HOODIE_OK;
    }
    for (int64_t r = 0; r < rows; r++) {
        if (!kg->complex_key) {
            const hoodie_field *f = NULL;
            const hoodie_array *a = leaf(&kg->keys[0], b, r, &f);
            if (!a || is_empty_string(f, a, r))
                return HOODIE_FAIL(HOODIE_EINVAL, "row %lld: record key field '%s' is %s", (long long)r,
                                   kg->keys[0].name, a ? "empty" : "null");
            HOODIE_TRY(hoodie_value_to_key(&out->data, f, a, r));
        } else {
            int all_missing = 1;
            for (size_t k = 0; k < kg->key_count; k++) {
                const hoodie_field *f = NULL;
                const hoodie_array *a = leaf(&kg->keys[k], b, r, &f);
                if (k) HOODIE_TRY(hoodie_buf_putc(&out->data, ','));
                HOODIE_TRY(hoodie_buf_append_str(&out->data, kg->keys[k].name));
                HOODIE_TRY(hoodie_buf_putc(&out->data, ':'));
                if (!a) HOODIE_TRY(hoodie_buf_append_str(&out->data, "__null__"));
                else {
                    if (!is_empty_string(f, a, r)) all_missing = 0;
                    HOODIE_TRY(hoodie_value_to_key(&out->data, f, a, r));
                }
            }
            if (all_missing)
                return HOODIE_FAIL(HOODIE_EINVAL, "row %lld: every record key field (%s...) is null or empty",
                                   (long long)r, kg->keys[0].name);
        }
        out->offsets[r + 1] = (int64_t)out->data.len;
    }
    return HOODIE_OK;
}

hoodie_status hoodie_keygen_escape_path(hoodie_buf *out, const char *s, size_t len)
{
    static const char special[] = "\"#%'*/:=?\\\x7f{[]^";
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 0x01 && c <= 0x1F) || (c && strchr(special, c)))
            HOODIE_TRY(hoodie_buf_printf(out, "%%%02X", c));
        else
            HOODIE_TRY(hoodie_buf_putc(out, c));
    }
    return HOODIE_OK;
}

static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d) { hoodie_days_to_civil(days, y, m, d); }

hoodie_status hoodie_keygen_format_date(hoodie_buf *out, const char *pat, int64_t ms)
{
    int64_t days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
    int64_t rem = ms - days * 86400000;
    int64_t y;
    unsigned mo, d;
    civil(days, &y, &mo, &d);
    int64_t vals[128] = { 0 };
    vals['y'] = y; vals['M'] = mo; vals['d'] = d;
    vals['H'] = rem / 3600000; vals['m'] = rem / 60000 % 60; vals['s'] = rem / 1000 % 60; vals['S'] = rem % 1000;
    for (const char *p = pat; *p;) {
        char c = *p;
        if (c == '\'') {
            const char *e = strchr(p + 1, '\'');
            if (!e) return HOODIE_FAIL(HOODIE_EINVAL, "date format '%s': unterminated quote", pat);
            if (e == p + 1) HOODIE_TRY(hoodie_buf_putc(out, '\''));
            else HOODIE_TRY(hoodie_buf_append(out, p + 1, (size_t)(e - p - 1)));
            p = e + 1;
            continue;
        }
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            if (!strchr("yMdHmsS", c))
                return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "date format '%s': pattern letter '%c'", pat, c);
            int n = 0;
            while (p[n] == c) n++;
            int64_t v = vals[(unsigned char)c];
            if (c == 'y' && n == 2) v %= 100;
            if (c == 'S' && n != 3) {
                /* fraction of a second with n digits */
                int64_t f = v;
                if (n < 3) for (int i = n; i < 3; i++) f /= 10;
                else for (int i = 3; i < n; i++) f *= 10;
                v = f;
            }
            HOODIE_TRY(hoodie_buf_printf(out, "%0*lld", n, (long long)v));
            p += n;
            continue;
        }
        HOODIE_TRY(hoodie_buf_putc(out, (uint8_t)c));
        p++;
    }
    return HOODIE_OK;
}

/* An integer input of a timestamp segment. */
static hoodie_status ts_value(const hoodie_keygen_field *kf, const hoodie_field *f, const hoodie_array *a, int64_t r,
                              int64_t *out)
{
    switch (f->type.id) {
    case HOODIE_TYPE_INT8: *out = ((const int8_t *)a->values)[r]; return HOODIE_OK;
    case HOODIE_TYPE_INT16: *out = ((const int16_t *)a->values)[r]; return HOODIE_OK;
    case HOODIE_TYPE_INT32: case HOODIE_TYPE_DATE32: case HOODIE_TYPE_TIME32:
        *out = ((const int32_t *)a->values)[r]; return HOODIE_OK;
    case HOODIE_TYPE_INT64: case HOODIE_TYPE_TIMESTAMP: case HOODIE_TYPE_TIME64:
        *out = ((const int64_t *)a->values)[r]; return HOODIE_OK;
    case HOODIE_TYPE_UINT8: *out = ((const uint8_t *)a->values)[r]; return HOODIE_OK;
    case HOODIE_TYPE_UINT16: *out = ((const uint16_t *)a->values)[r]; return HOODIE_OK;
    case HOODIE_TYPE_UINT32: *out = ((const uint32_t *)a->values)[r]; return HOODIE_OK;
    case HOODIE_TYPE_STRING: {
        size_t n;
        const char *s = (const char *)hoodie_array_bytes_at(a, r, &n);
        char tmp[32];
        if (n == 0 || n >= sizeof tmp) break;
        memcpy(tmp, s, n);
        tmp[n] = 0;
        char *end;
        long long v = strtoll(tmp, &end, 10);
        if (*end) break;
        *out = v;
        return HOODIE_OK;
    }
    default: break;
    }
    return HOODIE_FAIL(HOODIE_EINVAL, "row %lld: timestamp partition field '%s' is not an integer", (long long)r,
                       kf->name);
}

/*
 * The common case at a row's cost of two copies: one top-level STRING partition field, not URL-encoded. Each path
 * is [field=]value, or [field=]__HIVE_DEFAULT_PARTITION__ for a null or empty value, as the general loop forms it.
 */
static hoodie_status string_partition_paths(const hoodie_keygen_plan *kg, const hoodie_batch *b, hoodie_keygen_out *out)
{
    const hoodie_keygen_field *kf = &kg->parts[0];
    const hoodie_array *a = &b->root.children[kf->path[0]];
    int64_t rows = hoodie_batch_rows(b);
    char pre[256];
    size_t pl = 0;
    if (kg->hive_style) {
        int n = snprintf(pre, sizeof pre, "%s=", kf->name);
        if (n < 0 || (size_t)n >= sizeof pre) return HOODIE_ENOTFOUND; /* a long name: the general loop */
        pl = (size_t)n;
    }
    const size_t dl = strlen(HIVE_DEFAULT);
    size_t bytes = a->length ? (size_t)(a->offsets[rows] - a->offsets[0]) : 0;
    HOODIE_TRY(out_begin(out, rows));
    HOODIE_TRY(hoodie_buf_reserve(&out->data, bytes + (size_t)rows * pl + 64));
    for (int64_t r = 0; r < rows; r++) {
        const int32_t *o = a->offsets + r;
        size_t l = hoodie_array_is_valid(a, r) ? (size_t)(o[1] - o[0]) : 0;
        const uint8_t *v = l ? a->values + o[0] : (const uint8_t *)HIVE_DEFAULT;
        if (!l) l = dl;
        if (out->data.cap - out->data.len < pl + l) HOODIE_TRY(hoodie_buf_reserve(&out->data, pl + l));
        uint8_t *d = out->data.data + out->data.len;
        memcpy(d, pre, pl);
        memcpy(d + pl, v, l);
        out->data.len += pl + l;
        out->offsets[r + 1] = (int64_t)out->data.len;
    }
    return HOODIE_OK;
}

hoodie_status hoodie_keygen_partition_paths(const hoodie_keygen_plan *kg, const hoodie_batch *b, hoodie_keygen_out *out)
{
    int64_t rows = hoodie_batch_rows(b);
    if (kg->part_count == 1 && !kg->parts[0].timestamp && !kg->url_encode && kg->parts[0].depth == 1 &&
        b->schema.children[kg->parts[0].path[0]].type.id == HOODIE_TYPE_STRING) {
        hoodie_status frc = string_partition_paths(kg, b, out);
        if (frc != HOODIE_ENOTFOUND) return frc;
    }
    hoodie_buf seg = HOODIE_BUF_INIT;
    hoodie_status rc = out_begin(out, rows);
    for (int64_t r = 0; rc == HOODIE_OK && r < rows; r++) {
        for (size_t p = 0; rc == HOODIE_OK && p < kg->part_count; p++) {
            const hoodie_keygen_field *kf = &kg->parts[p];
            const hoodie_field *f = NULL;
            const hoodie_array *a = leaf(kf, b, r, &f);
            hoodie_buf_clear(&seg);
            if (kf->timestamp) {
                int64_t v = 1;
                if (a) HOODIE_TRY_GOTO(rc, ts_value(kf, f, a, r, &v), done);
                int64_t ms;
                if (hoodie_mul_overflow(v, kg->ts_unit_ms_num, &ms))
                    { rc = HOODIE_FAIL(HOODIE_EINVAL, "row %lld: timestamp '%s' out of range", (long long)r, kf->name); break; }
                ms /= kg->ts_unit_ms_den;
                rc = hoodie_keygen_format_date(&seg, kg->ts_format, ms);
            } else if (!a || is_empty_string(f, a, r)) {
                rc = hoodie_buf_append_str(&seg, HIVE_DEFAULT);
            } else {
                rc = hoodie_value_to_key(&seg, f, a, r);
            }
            if (rc < 0) break;
            if (p) HOODIE_TRY_GOTO(rc, hoodie_buf_putc(&out->data, '/'), done);
            if (kg->hive_style) {
                HOODIE_TRY_GOTO(rc, hoodie_buf_append_str(&out->data, kf->name), done);
                HOODIE_TRY_GOTO(rc, hoodie_buf_putc(&out->data, '='), done);
            }
            if (kg->url_encode) rc = hoodie_keygen_escape_path(&out->data, (const char *)seg.data, seg.len);
            else rc = hoodie_buf_append(&out->data, seg.data, seg.len);
        }
        out->offsets[r + 1] = (int64_t)out->data.len;
    }
done:
    hoodie_buf_dispose(&seg);
    return rc;
}
