#include "model/arrow.h"
#include "model/build.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================================================== */
/* Schema export                                                                                            */
/* ======================================================================================================== */

typedef struct schema_priv {
    char *format, *name, *metadata;
    struct ArrowSchema **ptrs;
    struct ArrowSchema *kids;
    int64_t n;
} schema_priv;

static void schema_release(struct ArrowSchema *s)
{
    if (!s || !s->release) return;
    schema_priv *p = s->private_data;
    if (p) {
        for (int64_t i = 0; i < p->n; i++)
            if (p->kids[i].release) p->kids[i].release(&p->kids[i]);
        free(p->kids);
        free(p->ptrs);
        free(p->format);
        free(p->name);
        free(p->metadata);
        free(p);
    }
    s->release = NULL;
    s->private_data = NULL;
}

static const char tunit[] = { 's', 'm', 'u', 'n' };

static hoodie_status field_format(const hoodie_field *f, char *buf, size_t len)
{
    const hoodie_type *t = &f->type;
    const char *s = NULL;
    switch (t->id) {
    case HOODIE_TYPE_NULL: s = "n"; break;
    case HOODIE_TYPE_BOOL: s = "b"; break;
    case HOODIE_TYPE_INT8: s = "c"; break;
    case HOODIE_TYPE_INT16: s = "s"; break;
    case HOODIE_TYPE_INT32: s = "i"; break;
    case HOODIE_TYPE_INT64: s = "l"; break;
    case HOODIE_TYPE_UINT8: s = "C"; break;
    case HOODIE_TYPE_UINT16: s = "S"; break;
    case HOODIE_TYPE_UINT32: s = "I"; break;
    case HOODIE_TYPE_UINT64: s = "L"; break;
    case HOODIE_TYPE_FLOAT16: s = "e"; break;
    case HOODIE_TYPE_FLOAT: s = "f"; break;
    case HOODIE_TYPE_DOUBLE: s = "g"; break;
    case HOODIE_TYPE_STRING: s = "u"; break;
    case HOODIE_TYPE_BINARY: s = "z"; break;
    case HOODIE_TYPE_FIXED_BINARY: snprintf(buf, len, "w:%d", (int)t->width); return HOODIE_OK;
    case HOODIE_TYPE_DECIMAL: snprintf(buf, len, "d:%d,%d", (int)t->precision, (int)t->scale); return HOODIE_OK;
    case HOODIE_TYPE_DATE32: s = "tdD"; break;
    case HOODIE_TYPE_TIME32:
        if (t->unit > HOODIE_UNIT_MILLI) return HOODIE_FAIL(HOODIE_EINVAL, "field '%s': time32 unit", f->name);
        snprintf(buf, len, "tt%c", tunit[t->unit]);
        return HOODIE_OK;
    case HOODIE_TYPE_TIME64:
        if (t->unit < HOODIE_UNIT_MICRO) return HOODIE_FAIL(HOODIE_EINVAL, "field '%s': time64 unit", f->name);
        snprintf(buf, len, "tt%c", tunit[t->unit]);
        return HOODIE_OK;
    case HOODIE_TYPE_TIMESTAMP:
        snprintf(buf, len, "ts%c:%s", tunit[t->unit & 3], t->utc ? "UTC" : "");
        return HOODIE_OK;
    case HOODIE_TYPE_STRUCT: s = "+s"; break;
    case HOODIE_TYPE_LIST: s = "+l"; break;
    case HOODIE_TYPE_MAP: s = "+m"; break;
    }
    if (!s) return HOODIE_FAIL(HOODIE_EINVAL, "field '%s': unknown type %d", f->name, (int)t->id);
    snprintf(buf, len, "%s", s);
    return HOODIE_OK;
}

static hoodie_status meta_put(hoodie_buf *b, const char *s)
{
    int32_t n = (int32_t)strlen(s);
    HOODIE_TRY(hoodie_buf_append(b, &n, 4));
    return hoodie_buf_append(b, s, (size_t)n);
}

/* Arrow's metadata encoding: int32 count, then per pair int32 len + key bytes, int32 len + value bytes. */
static hoodie_status field_metadata(const hoodie_field *f, char **out)
{
    const char *ext = f->type.ext == HOODIE_EXT_UUID ? "arrow.uuid" : f->type.ext == HOODIE_EXT_JSON ? "arrow.json"
                                                                                                      : NULL;
    /* annotations Arrow has no type for, kept so a Parquet round trip through Arrow loses nothing */
    const char *hext = f->type.ext == HOODIE_EXT_INT96 ? "INT96" : f->type.ext == HOODIE_EXT_ENUM ? "ENUM"
                     : f->type.ext == HOODIE_EXT_BSON ? "BSON" : NULL;
    int32_t count = (ext ? 1 : 0) + (hext ? 1 : 0) + (f->field_id >= 0 ? 1 : 0);
    *out = NULL;
    if (!count) return HOODIE_OK;
    hoodie_buf b = HOODIE_BUF_INIT;
    char id[16];
    hoodie_status rc = hoodie_buf_append(&b, &count, 4);
    if (rc == HOODIE_OK && ext) {
        rc = meta_put(&b, "ARROW:extension:name");
        if (rc == HOODIE_OK) rc = meta_put(&b, ext);
    }
    if (rc == HOODIE_OK && hext) {
        rc = meta_put(&b, "hoodie:ext");
        if (rc == HOODIE_OK) rc = meta_put(&b, hext);
    }
    if (rc == HOODIE_OK && f->field_id >= 0) {
        snprintf(id, sizeof id, "%d", (int)f->field_id);
        rc = meta_put(&b, "PARQUET:field_id");
        if (rc == HOODIE_OK) rc = meta_put(&b, id);
    }
    if (rc < 0) { hoodie_buf_dispose(&b); return rc; }
    *out = (char *)hoodie_buf_detach(&b, NULL);
    return HOODIE_OK;
}

static hoodie_status export_field(struct ArrowSchema *out, const hoodie_field *f, int force_non_null)
{
    char fmt[64];
    HOODIE_TRY(field_format(f, fmt, sizeof fmt));
    schema_priv *p = calloc(1, sizeof *p);
    if (!p) return HOODIE_NOMEM();
    memset(out, 0, sizeof *out);
    out->private_data = p;
    out->release = schema_release;
    hoodie_status rc = HOODIE_OK;
    p->format = strdup(fmt);
    p->name = strdup(f->name ? f->name : "");
    if (!p->format || !p->name) { rc = HOODIE_NOMEM(); goto fail; }
    HOODIE_TRY_GOTO(rc, field_metadata(f, &p->metadata), fail);
    out->format = p->format;
    out->name = p->name;
    out->metadata = p->metadata;
    out->flags = (f->nullable && !force_non_null) ? ARROW_FLAG_NULLABLE : 0;
    if (f->n_children) {
        p->kids = calloc(f->n_children, sizeof *p->kids);
        p->ptrs = calloc(f->n_children, sizeof *p->ptrs);
        if (!p->kids || !p->ptrs) { rc = HOODIE_NOMEM(); goto fail; }
        for (size_t i = 0; i < f->n_children; i++) {
            /* Map entries and keys are never null (force 2: "non-null, and so is your first child"). */
            int cf = f->type.id == HOODIE_TYPE_MAP ? 2 : (force_non_null == 2 && i == 0) ? 1 : 0;
            HOODIE_TRY_GOTO(rc, export_field(&p->kids[i], &f->children[i], cf), fail);
            p->ptrs[i] = &p->kids[i];
            p->n++;
        }
        out->n_children = (int64_t)f->n_children;
        out->children = p->ptrs;
    }
    return HOODIE_OK;
fail:
    schema_release(out);
    return rc;
}

hoodie_status hoodie_arrow_export_field(struct ArrowSchema *out, const hoodie_field *f)
{
    return export_field(out, f, 0);
}

/* ======================================================================================================== */
/* Array export                                                                                             */
/* ======================================================================================================== */

typedef struct array_priv {
    void *owned[3];
    unsigned from_src;          /* bit i: owned[i] came from the hoodie array (not freed on a failed export) */
    const void *bufs[3];
    struct ArrowArray **ptrs;
    struct ArrowArray *kids;
    int64_t n;
} array_priv;

static void array_release(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    array_priv *p = a->private_data;
    if (p) {
        for (int64_t i = 0; i < p->n; i++)
            if (p->kids[i].release) p->kids[i].release(&p->kids[i]);
        for (int i = 0; i < 3; i++) free(p->owned[i]);
        free(p->kids);
        free(p->ptrs);
        free(p);
    }
    a->release = NULL;
    a->private_data = NULL;
}

/* Undo a half-built export: free what we allocated, never the hoodie array's buffers. */
static void array_abandon(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    array_priv *p = a->private_data;
    for (int64_t i = 0; i < p->n; i++) array_abandon(&p->kids[i]);
    for (int i = 0; i < 3; i++)
        if (!(p->from_src & (1u << i))) free(p->owned[i]);
    free(p->kids);
    free(p->ptrs);
    free(p);
    a->release = NULL;
}

static hoodie_status use_buf(array_priv *p, int slot, void *src, size_t dummy_len)
{
    if (src) {
        p->owned[slot] = src;
        p->from_src |= 1u << slot;
    } else {
        p->owned[slot] = calloc(1, dummy_len ? dummy_len : 8);
        if (!p->owned[slot]) return HOODIE_NOMEM();
    }
    p->bufs[slot] = p->owned[slot];
    return HOODIE_OK;
}

static hoodie_status export_node(struct ArrowArray *out, const hoodie_array *a, const hoodie_field *f)
{
    array_priv *p = calloc(1, sizeof *p);
    if (!p) return HOODIE_NOMEM();
    memset(out, 0, sizeof *out);
    out->private_data = p;
    out->release = array_release;
    out->length = a->length;
    out->null_count = a->null_count;
    out->buffers = p->bufs;
    hoodie_status rc = HOODIE_OK;
    hoodie_type_id id = f->type.id;
    if (a->n_children != f->n_children) {
        rc = HOODIE_FAIL(HOODIE_EINVAL, "export: array for '%s' has %zu children, field %zu", f->name,
                         a->n_children, f->n_children);
        goto fail;
    }
    if (id == HOODIE_TYPE_NULL) {
        out->null_count = a->length;
        out->n_buffers = 0;
    } else {
        if (a->null_count > 0 && !a->validity) {
            rc = HOODIE_FAIL(HOODIE_EINVAL, "export: '%s' has nulls but no validity", f->name);
            goto fail;
        }
        /* Validity: ours to free either way; exported only when there are nulls. */
        if (a->validity) { p->owned[0] = a->validity; p->from_src |= 1u; }
        p->bufs[0] = a->null_count > 0 ? a->validity : NULL;
        size_t L = (size_t)a->length;
        switch (id) {
        case HOODIE_TYPE_STRUCT:
            out->n_buffers = 1;
            break;
        case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP: case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY:
            if (!a->offsets && L) {
                rc = HOODIE_FAIL(HOODIE_EINVAL, "export: '%s' has no offsets", f->name);
                goto fail;
            }
            HOODIE_TRY_GOTO(rc, use_buf(p, 1, a->offsets, (L + 1) * 4), fail);
            out->n_buffers = 2;
            if (id == HOODIE_TYPE_STRING || id == HOODIE_TYPE_BINARY) {
                HOODIE_TRY_GOTO(rc, use_buf(p, 2, a->values, 8), fail);
                out->n_buffers = 3;
            }
            break;
        case HOODIE_TYPE_BOOL:
        default: {
            size_t need = id == HOODIE_TYPE_BOOL ? (L + 7) / 8 : L * hoodie_type_fixed_width(&f->type);
            if (!a->values && L) {
                rc = HOODIE_FAIL(HOODIE_EINVAL, "export: '%s' has no values", f->name);
                goto fail;
            }
            HOODIE_TRY_GOTO(rc, use_buf(p, 1, a->values, need), fail);
            out->n_buffers = 2;
        }
        }
    }
    if (f->n_children) {
        p->kids = calloc(f->n_children, sizeof *p->kids);
        p->ptrs = calloc(f->n_children, sizeof *p->ptrs);
        if (!p->kids || !p->ptrs) { rc = HOODIE_NOMEM(); goto fail; }
        for (size_t i = 0; i < f->n_children; i++) {
            HOODIE_TRY_GOTO(rc, export_node(&p->kids[i], &a->children[i], &f->children[i]), fail);
            p->ptrs[i] = &p->kids[i];
            p->n++;
        }
        out->n_children = (int64_t)f->n_children;
        out->children = p->ptrs;
    }
    return HOODIE_OK;
fail:
    array_abandon(out);
    return rc;
}

/* After a successful export the buffers belong to the ArrowArray: forget them. */
static void steal(hoodie_array *a)
{
    a->validity = NULL;
    a->offsets = NULL;
    a->values = NULL;
    a->validity_cap = a->offsets_cap = a->values_cap = 0;
    a->length = a->null_count = 0;
    a->values_len = 0;
    for (size_t i = 0; i < a->n_children; i++) steal(&a->children[i]);
}

hoodie_status hoodie_arrow_export_array(struct ArrowArray *out, hoodie_array *a, const hoodie_field *f)
{
    struct ArrowArray tmp;
    HOODIE_TRY(export_node(&tmp, a, f));
    steal(a);
    *out = tmp;
    return HOODIE_OK;
}

hoodie_status hoodie_arrow_export_batch(struct ArrowArray *out, hoodie_batch *b)
{
    return hoodie_arrow_export_array(out, &b->root, &b->schema);
}

/* ======================================================================================================== */
/* Import                                                                                                   */
/* ======================================================================================================== */

typedef enum akind {
    AK_NULL, AK_BOOL, AK_FIXED, AK_DEC32, AK_DEC64, AK_DATE64, AK_STR32, AK_STR64, AK_VIEW,
    AK_STRUCT, AK_LIST32, AK_LIST64, AK_FIXEDLIST, AK_MAP
} akind;

typedef struct afmt {
    akind kind;
    hoodie_type type;
    int32_t list_size;          /* AK_FIXEDLIST */
} afmt;

static int parse_int(const char **p, int32_t *out)
{
    const char *s = *p;
    long v = 0;
    if (*s < '0' || *s > '9') return 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > INT32_MAX) return 0;
        s++;
    }
    *out = (int32_t)v;
    *p = s;
    return 1;
}

static hoodie_status parse_format(afmt *o, const char *fmt, const char *name)
{
    memset(o, 0, sizeof *o);
    o->kind = AK_FIXED;
    hoodie_type *t = &o->type;
    *t = hoodie_type_of(HOODIE_TYPE_NULL);
    if (!fmt) return HOODIE_FAIL(HOODIE_EINVAL, "arrow import: field '%s' has no format", name);
    if (fmt[0] && !fmt[1]) {
        switch (fmt[0]) {
        case 'n': o->kind = AK_NULL; return HOODIE_OK;
        case 'b': o->kind = AK_BOOL; t->id = HOODIE_TYPE_BOOL; return HOODIE_OK;
        case 'c': t->id = HOODIE_TYPE_INT8; return HOODIE_OK;
        case 's': t->id = HOODIE_TYPE_INT16; return HOODIE_OK;
        case 'i': t->id = HOODIE_TYPE_INT32; return HOODIE_OK;
        case 'l': t->id = HOODIE_TYPE_INT64; return HOODIE_OK;
        case 'C': t->id = HOODIE_TYPE_UINT8; return HOODIE_OK;
        case 'S': t->id = HOODIE_TYPE_UINT16; return HOODIE_OK;
        case 'I': t->id = HOODIE_TYPE_UINT32; return HOODIE_OK;
        case 'L': t->id = HOODIE_TYPE_UINT64; return HOODIE_OK;
        case 'e': t->id = HOODIE_TYPE_FLOAT16; return HOODIE_OK;
        case 'f': t->id = HOODIE_TYPE_FLOAT; return HOODIE_OK;
        case 'g': t->id = HOODIE_TYPE_DOUBLE; return HOODIE_OK;
        case 'u': o->kind = AK_STR32; t->id = HOODIE_TYPE_STRING; return HOODIE_OK;
        case 'z': o->kind = AK_STR32; t->id = HOODIE_TYPE_BINARY; return HOODIE_OK;
        case 'U': o->kind = AK_STR64; t->id = HOODIE_TYPE_STRING; return HOODIE_OK;
        case 'Z': o->kind = AK_STR64; t->id = HOODIE_TYPE_BINARY; return HOODIE_OK;
        default: break;
        }
    }
    const char *p = fmt;
    if (!strcmp(fmt, "vu")) { o->kind = AK_VIEW; t->id = HOODIE_TYPE_STRING; return HOODIE_OK; }
    if (!strcmp(fmt, "vz")) { o->kind = AK_VIEW; t->id = HOODIE_TYPE_BINARY; return HOODIE_OK; }
    if (!strcmp(fmt, "+s")) { o->kind = AK_STRUCT; t->id = HOODIE_TYPE_STRUCT; return HOODIE_OK; }
    if (!strcmp(fmt, "+l")) { o->kind = AK_LIST32; t->id = HOODIE_TYPE_LIST; return HOODIE_OK; }
    if (!strcmp(fmt, "+L")) { o->kind = AK_LIST64; t->id = HOODIE_TYPE_LIST; return HOODIE_OK; }
    if (!strcmp(fmt, "+m")) { o->kind = AK_MAP; t->id = HOODIE_TYPE_MAP; return HOODIE_OK; }
    if (!strcmp(fmt, "tdD")) { t->id = HOODIE_TYPE_DATE32; return HOODIE_OK; }
    if (!strcmp(fmt, "tdm")) { o->kind = AK_DATE64; t->id = HOODIE_TYPE_DATE32; return HOODIE_OK; }
    if (!strncmp(fmt, "+w:", 3)) {
        p = fmt + 3;
        if (!parse_int(&p, &o->list_size) || *p) goto bad;
        o->kind = AK_FIXEDLIST;
        t->id = HOODIE_TYPE_LIST;
        return HOODIE_OK;
    }
    if (!strncmp(fmt, "w:", 2)) {
        p = fmt + 2;
        if (!parse_int(&p, &t->width) || *p) goto bad;
        t->id = HOODIE_TYPE_FIXED_BINARY;
        return HOODIE_OK;
    }
    if (!strncmp(fmt, "d:", 2)) {
        int32_t bits = 128;
        p = fmt + 2;
        if (!parse_int(&p, &t->precision) || *p++ != ',') goto bad;
        int neg = 0;
        if (*p == '-') { neg = 1; p++; }
        if (!parse_int(&p, &t->scale)) goto bad;
        if (neg) t->scale = -t->scale;
        if (*p == ',') { p++; if (!parse_int(&p, &bits)) goto bad; }
        if (*p) goto bad;
        t->id = HOODIE_TYPE_DECIMAL;
        if (bits == 128) return HOODIE_OK;
        if (bits == 32) { o->kind = AK_DEC32; return HOODIE_OK; }
        if (bits == 64) { o->kind = AK_DEC64; return HOODIE_OK; }
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "arrow import: field '%s': decimal%d", name, (int)bits);
    }
    if (fmt[0] == 't' && fmt[1] == 't' && fmt[2] && !fmt[3]) {
        switch (fmt[2]) {
        case 's': t->id = HOODIE_TYPE_TIME32; t->unit = HOODIE_UNIT_SECOND; return HOODIE_OK;
        case 'm': t->id = HOODIE_TYPE_TIME32; t->unit = HOODIE_UNIT_MILLI; return HOODIE_OK;
        case 'u': t->id = HOODIE_TYPE_TIME64; t->unit = HOODIE_UNIT_MICRO; return HOODIE_OK;
        case 'n': t->id = HOODIE_TYPE_TIME64; t->unit = HOODIE_UNIT_NANO; return HOODIE_OK;
        default: goto bad;
        }
    }
    if (fmt[0] == 't' && fmt[1] == 's' && fmt[2] && fmt[3] == ':') {
        const char *u = memchr(tunit, fmt[2], sizeof tunit);
        if (!u) goto bad;
        t->id = HOODIE_TYPE_TIMESTAMP;
        t->unit = (hoodie_time_unit)(u - tunit);
        t->utc = fmt[4] != '\0';
        return HOODIE_OK;
    }
bad:
    return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "arrow import: field '%s': unsupported format '%s'", name, fmt);
}

/* Read one int32 from the metadata blob (which has no stated length: trust its own counts, with sanity caps). */
static int32_t meta_i32(const char **p)
{
    int32_t v;
    memcpy(&v, *p, 4);
    *p += 4;
    return v;
}

static hoodie_status import_metadata(hoodie_field *f, const char *md)
{
    if (!md) return HOODIE_OK;
    const char *p = md;
    int32_t n = meta_i32(&p);
    if (n < 0 || n > 100000) return HOODIE_FAIL(HOODIE_EINVAL, "arrow import: field '%s': bad metadata", f->name);
    for (int32_t i = 0; i < n; i++) {
        int32_t kl = meta_i32(&p);
        if (kl < 0) return HOODIE_FAIL(HOODIE_EINVAL, "arrow import: field '%s': bad metadata", f->name);
        const char *k = p;
        p += kl;
        int32_t vl = meta_i32(&p);
        if (vl < 0) return HOODIE_FAIL(HOODIE_EINVAL, "arrow import: field '%s': bad metadata", f->name);
        const char *v = p;
        p += vl;
        if (kl == 20 && !memcmp(k, "ARROW:extension:name", 20)) {
            if (vl == 10 && !memcmp(v, "arrow.uuid", 10)) f->type.ext = HOODIE_EXT_UUID;
            else if (vl == 10 && !memcmp(v, "arrow.json", 10)) f->type.ext = HOODIE_EXT_JSON;
        } else if (kl == 10 && !memcmp(k, "hoodie:ext", 10)) {
            if (vl == 5 && !memcmp(v, "INT96", 5) && f->type.id == HOODIE_TYPE_TIMESTAMP) f->type.ext = HOODIE_EXT_INT96;
            else if (vl == 4 && !memcmp(v, "ENUM", 4) && f->type.id == HOODIE_TYPE_STRING) f->type.ext = HOODIE_EXT_ENUM;
            else if (vl == 4 && !memcmp(v, "BSON", 4) && f->type.id == HOODIE_TYPE_BINARY) f->type.ext = HOODIE_EXT_BSON;
        } else if (kl == 16 && !memcmp(k, "PARQUET:field_id", 16) && vl > 0 && vl < 11) {
            char buf[12];
            memcpy(buf, v, (size_t)vl);
            buf[vl] = 0;
            f->field_id = (int32_t)strtol(buf, NULL, 10);
        }
    }
    return HOODIE_OK;
}

static hoodie_status import_field(hoodie_field *out, const struct ArrowSchema *s, int depth)
{
    afmt af;
    const char *name = s->name ? s->name : "";
    memset(out, 0, sizeof *out);
    if (depth > 64) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "arrow import: schema nested too deeply");
    if (!s->release) return HOODIE_FAIL(HOODIE_EINVAL, "arrow import: schema '%s' is released", name);
    if (s->dictionary) {
        /* Dictionary-encoded: the field takes the value type; the index type only matters for the data. */
        HOODIE_TRY(parse_format(&af, s->format, name));
        if (af.kind != AK_FIXED || af.type.id < HOODIE_TYPE_INT8 || af.type.id > HOODIE_TYPE_UINT64)
            return HOODIE_FAIL(HOODIE_EINVAL, "arrow import: field '%s': dictionary index type '%s'", name,
                               s->format);
        HOODIE_TRY(import_field(out, s->dictionary, depth + 1));
        char *nn = strdup(name);
        if (!nn) { hoodie_field_dispose(out); return HOODIE_NOMEM(); }
        free(out->name);
        out->name = nn;
        out->nullable = (s->flags & ARROW_FLAG_NULLABLE) != 0;
        out->field_id = -1;
        hoodie_status rc = import_metadata(out, s->metadata);
        if (rc < 0) hoodie_field_dispose(out);
        return rc;
    }
    HOODIE_TRY(parse_format(&af, s->format, name));
    int64_t want = -1;
    switch (af.kind) {
    case AK_STRUCT: want = s->n_children; break;
    case AK_LIST32: case AK_LIST64: case AK_FIXEDLIST: case AK_MAP: want = 1; break;
    default: want = 0;
    }
    if (s->n_children != want || (want && !s->children))
        return HOODIE_FAIL(HOODIE_EINVAL, "arrow import: field '%s' (%s) has %lld children", name, s->format,
                           (long long)s->n_children);
    HOODIE_TRY(hoodie_field_init(out, name, af.type, (s->flags & ARROW_FLAG_NULLABLE) != 0));
    hoodie_status rc = import_metadata(out, s->metadata);
    for (int64_t i = 0; i < s->n_children && rc == HOODIE_OK; i++) {
        hoodie_field c;
        if (!s->children[i]) { rc = HOODIE_FAIL(HOODIE_EINVAL, "arrow import: '%s': NULL child", name); break; }
        rc = import_field(&c, s->children[i], depth + 1);
        if (rc < 0) break;
        if (af.kind == AK_MAP && (c.type.id != HOODIE_TYPE_STRUCT || c.n_children != 2))
            rc = HOODIE_FAIL(HOODIE_EINVAL, "arrow import: map '%s': entries must be struct<key, value>", name);
        if (rc == HOODIE_OK) rc = hoodie_field_add_child(out, &c);
        hoodie_field_dispose(&c);
    }
    if (rc < 0) hoodie_field_dispose(out);
    return rc;
}

hoodie_status hoodie_arrow_import_field(hoodie_field *out, const struct ArrowSchema *s)
{
    return import_field(out, s, 0);
}

#define BAD(...) HOODIE_FAIL(HOODIE_EINVAL, __VA_ARGS__)

static hoodie_status import_validity(hoodie_array *out, const struct ArrowArray *a, int64_t start, int64_t len)
{
    if (a->null_count == 0 || a->n_buffers < 1 || !a->buffers || !a->buffers[0] || len == 0) return HOODIE_OK;
    size_t nb = (size_t)(len + 7) / 8;
    out->validity = calloc(1, nb);
    if (!out->validity) return HOODIE_NOMEM();
    out->validity_cap = nb;
    hoodie_bits_copy(out->validity, 0, a->buffers[0], start, len);
    out->null_count = len - hoodie_bits_count(out->validity, 0, len);
    if (out->null_count == 0) { free(out->validity); out->validity = NULL; out->validity_cap = 0; }
    return HOODIE_OK;
}

static void *alloc_buf(size_t n, size_t *cap)
{
    void *p = malloc(n ? n : 8);
    *cap = n ? n : 8;
    return p;
}

static hoodie_status import_node(hoodie_array *out, const hoodie_field *f, const struct ArrowSchema *s,
                                 const struct ArrowArray *a, int64_t start, int64_t len, int depth, int adopt);

/* Offsets (32- or 64-bit) rebased to start at 0; returns the child range in *base, *end. */
static hoodie_status import_offsets(hoodie_array *out, const hoodie_field *f, const void *buf, int wide,
                                    int64_t start, int64_t len, int64_t *base_out, int64_t *end_out)
{
    if (!buf) return BAD("arrow import: '%s': offsets buffer is NULL", f->name);
    out->offsets = alloc_buf((size_t)(len + 1) * 4, &out->offsets_cap);
    if (!out->offsets) return HOODIE_NOMEM();
    int64_t base = wide ? ((const int64_t *)buf)[start] : ((const int32_t *)buf)[start], prev = base;
    for (int64_t i = 0; i <= len; i++) {
        int64_t v = wide ? ((const int64_t *)buf)[start + i] : ((const int32_t *)buf)[start + i];
        if (v < prev) return BAD("arrow import: '%s': offsets decrease at row %lld", f->name, (long long)i);
        if (v - base > INT32_MAX)
            return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "arrow import: '%s': more than 2^31 values", f->name);
        out->offsets[i] = (int32_t)(v - base);
        prev = v;
    }
    *base_out = base;
    *end_out = prev;
    return HOODIE_OK;
}

static hoodie_status import_dictionary(hoodie_array *out, const hoodie_field *f, const struct ArrowSchema *s,
                                       const struct ArrowArray *a, int64_t start, int64_t len, int depth)
{
    afmt idx;
    HOODIE_TRY(parse_format(&idx, s->format, f->name));
    if (!a->dictionary) return BAD("arrow import: '%s': dictionary array missing", f->name);
    if (a->n_buffers != 2 || !a->buffers || (len && !a->buffers[1]))
        return BAD("arrow import: '%s': dictionary indices need 2 buffers", f->name);
    hoodie_array dict;
    hoodie_status rc = hoodie_array_init(&dict, f);
    if (rc < 0) return rc;
    const struct ArrowArray *d = a->dictionary;
    int64_t *rows = malloc((size_t)(len ? len : 1) * sizeof *rows);
    if (!rows) { hoodie_array_dispose(&dict); return HOODIE_NOMEM(); }
    rc = import_node(&dict, f, s->dictionary, d, d->offset, d->length, depth + 1, 0);
    const uint8_t *valid = a->null_count != 0 ? a->buffers[0] : NULL;
    size_t w = hoodie_type_fixed_width(&idx.type);
    int is_signed = idx.type.id <= HOODIE_TYPE_INT64;
    for (int64_t i = 0; i < len && rc == HOODIE_OK; i++) {
        if (valid && !hoodie_bit_get(valid, start + i)) { rows[i] = -1; continue; }
        const uint8_t *p = (const uint8_t *)a->buffers[1] + (size_t)(start + i) * w;
        int64_t v = 0;
        switch (w) {
        case 1: v = is_signed ? *(const int8_t *)p : *p; break;
        case 2: { int16_t x; uint16_t y; memcpy(&x, p, 2); memcpy(&y, p, 2); v = is_signed ? x : y; break; }
        case 4: { int32_t x; uint32_t y; memcpy(&x, p, 4); memcpy(&y, p, 4); v = is_signed ? x : (int64_t)y; break; }
        default: memcpy(&v, p, 8); break;
        }
        if (v < 0 || v >= dict.length)
            rc = BAD("arrow import: '%s': dictionary index %lld out of range", f->name, (long long)v);
        rows[i] = v;
    }
    if (rc == HOODIE_OK) rc = hoodie_array_take(out, f, &dict, rows, (size_t)len);
    free(rows);
    hoodie_array_dispose(&dict);
    return rc;
}

/*
 * A whole array that hoodie exported itself (its release is array_release, so every buffer is a malloc'd block
 * the private data owns): the buffers move into `out` instead of being copied. The writer's input from the CLI
 * comes this way, batch after batch. Layouts that import converts (64-bit offsets, decimal32/64, date64, views)
 * are never adopted. Returns 0, having changed nothing, when the array is not such.
 */
static int adopt_node(hoodie_array *out, const afmt *af, const struct ArrowArray *a)
{
    array_priv *p = a->private_data;
    size_t L = (size_t)a->length;
    if (!p || (a->null_count > 0 && !p->owned[0])) return 0;
    switch (af->kind) {
    case AK_STR32:
        if (!p->owned[1] || !p->owned[2] || ((const int32_t *)p->owned[1])[0] != 0) return 0;
        out->offsets = p->owned[1];
        out->offsets_cap = (L + 1) * 4;
        out->values_len = (size_t)out->offsets[L];
        out->values = p->owned[2];
        out->values_cap = out->values_len;
        p->owned[1] = p->owned[2] = NULL;
        break;
    case AK_BOOL: case AK_FIXED:
        if (!p->owned[1]) return 0;
        out->values = p->owned[1];
        out->values_cap = af->kind == AK_BOOL ? (L + 7) / 8 : L * hoodie_type_fixed_width(&af->type);
        p->owned[1] = NULL;
        break;
    default:
        return 0;
    }
    if (a->null_count > 0) {
        out->validity = p->owned[0];
        out->validity_cap = (L + 7) / 8;
        out->null_count = a->null_count;
        p->owned[0] = NULL;
    }
    out->length = a->length;
    return 1;
}

static hoodie_status import_node(hoodie_array *out, const hoodie_field *f, const struct ArrowSchema *s,
                                 const struct ArrowArray *a, int64_t start, int64_t len, int depth, int adopt)
{
    afmt af;
    if (depth > 64) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "arrow import: array nested too deeply");
    if (!a || !a->release) return BAD("arrow import: '%s': array is NULL or released", f->name);
    if (a->length < 0 || a->offset < 0 || start < a->offset || len < 0 || start + len > a->offset + a->length)
        return BAD("arrow import: '%s': rows [%lld, +%lld) outside array (offset %lld, length %lld)", f->name,
                   (long long)start, (long long)len, (long long)a->offset, (long long)a->length);
    if (a->n_buffers > 0 && !a->buffers) return BAD("arrow import: '%s': buffers is NULL", f->name);
    if (s->dictionary) return import_dictionary(out, f, s, a, start, len, depth);
    HOODIE_TRY(parse_format(&af, s->format, f->name));
    int64_t nbuf = 2;
    switch (af.kind) {
    case AK_NULL: nbuf = 0; break;
    case AK_STRUCT: nbuf = 1; break;
    case AK_STR32: case AK_STR64: nbuf = 3; break;
    case AK_FIXEDLIST: nbuf = 1; break;
    case AK_VIEW: nbuf = a->n_buffers >= 3 ? a->n_buffers : 3; break;
    default: break;
    }
    if (a->n_buffers != nbuf)
        return BAD("arrow import: '%s' (%s): %lld buffers, want %lld", f->name, s->format,
                   (long long)a->n_buffers, (long long)nbuf);
    if (a->n_children != s->n_children || (a->n_children && !a->children))
        return BAD("arrow import: '%s': %lld children, schema has %lld", f->name, (long long)a->n_children,
                   (long long)s->n_children);
    if (af.kind == AK_NULL) {
        out->length = len;
        out->null_count = len;
        return HOODIE_OK;
    }
    if (adopt && a->release == array_release && start == 0 && a->offset == 0 && len == a->length &&
        adopt_node(out, &af, a))
        return HOODIE_OK;
    HOODIE_TRY(import_validity(out, a, start, len));
    const uint8_t *b1 = nbuf > 1 ? a->buffers[1] : NULL;
    if (nbuf > 1 && len && !b1 && af.kind != AK_FIXEDLIST)
        return BAD("arrow import: '%s': data buffer is NULL", f->name);
    size_t L = (size_t)len;
    switch (af.kind) {
    case AK_BOOL:
        out->values = alloc_buf((L + 7) / 8, &out->values_cap);
        if (!out->values) return HOODIE_NOMEM();
        if (len) hoodie_bits_copy(out->values, 0, b1, start, len);
        break;
    case AK_FIXED: {
        size_t w = hoodie_type_fixed_width(&af.type);
        if (af.type.id == HOODIE_TYPE_FIXED_BINARY && w == 0 && af.type.width != 0)
            return BAD("arrow import: '%s': bad fixed width", f->name);
        out->values = alloc_buf(L * w, &out->values_cap);
        if (!out->values) return HOODIE_NOMEM();
        if (L && w) memcpy(out->values, b1 + (size_t)start * w, L * w);
        break;
    }
    case AK_DEC32: case AK_DEC64: {
        out->values = alloc_buf(L * 16, &out->values_cap);
        if (!out->values) return HOODIE_NOMEM();
        for (size_t i = 0; i < L; i++) {
            int64_t v;
            if (af.kind == AK_DEC32) { int32_t x; memcpy(&x, b1 + ((size_t)start + i) * 4, 4); v = x; }
            else memcpy(&v, b1 + ((size_t)start + i) * 8, 8);
            int64_t hi = v < 0 ? -1 : 0;
            memcpy(out->values + i * 16, &v, 8);
            memcpy(out->values + i * 16 + 8, &hi, 8);
        }
        break;
    }
    case AK_DATE64: {
        out->values = alloc_buf(L * 4, &out->values_cap);
        if (!out->values) return HOODIE_NOMEM();
        for (size_t i = 0; i < L; i++) {
            int64_t ms;
            memcpy(&ms, b1 + ((size_t)start + i) * 8, 8);
            int64_t days = ms / 86400000 - (ms % 86400000 < 0);
            int32_t d = (int32_t)days;
            memcpy(out->values + i * 4, &d, 4);
        }
        break;
    }
    case AK_STR32: case AK_STR64: {
        int64_t base, end;
        HOODIE_TRY(import_offsets(out, f, b1, af.kind == AK_STR64, start, len, &base, &end));
        const uint8_t *data = a->buffers[2];
        if (end > base && !data) return BAD("arrow import: '%s': values buffer is NULL", f->name);
        out->values = alloc_buf((size_t)(end - base), &out->values_cap);
        if (!out->values) return HOODIE_NOMEM();
        if (end > base) memcpy(out->values, data + base, (size_t)(end - base));
        out->values_len = (size_t)(end - base);
        break;
    }
    case AK_VIEW: {
        int64_t n_data = a->n_buffers - 3;
        size_t total = 0;
        out->offsets = alloc_buf((L + 1) * 4, &out->offsets_cap);
        if (!out->offsets) return HOODIE_NOMEM();
        for (int pass = 0; pass < 2; pass++) {
            size_t pos = 0;
            if (pass == 1) {
                out->values = alloc_buf(total, &out->values_cap);
                if (!out->values) return HOODIE_NOMEM();
                out->offsets[0] = 0;
            }
            for (size_t i = 0; i < L; i++) {
                const uint8_t *v = b1 + ((size_t)start + i) * 16;
                int32_t vl, bi, bo;
                memcpy(&vl, v, 4);
                if (!hoodie_array_is_valid(out, (int64_t)i)) vl = 0;
                if (vl < 0) return BAD("arrow import: '%s': negative view length", f->name);
                if (pass == 0) {
                    total += (size_t)vl;
                    if (total > INT32_MAX)
                        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "arrow import: '%s': more than 2 GiB", f->name);
                    if (vl > 12) {
                        memcpy(&bi, v + 8, 4);
                        memcpy(&bo, v + 12, 4);
                        if (bi < 0 || bi >= n_data || bo < 0 || !a->buffers[2 + bi])
                            return BAD("arrow import: '%s': bad view buffer index", f->name);
                    }
                    continue;
                }
                if (vl <= 12) memcpy(out->values + pos, v + 4, (size_t)vl);
                else {
                    memcpy(&bi, v + 8, 4);
                    memcpy(&bo, v + 12, 4);
                    memcpy(out->values + pos, (const uint8_t *)a->buffers[2 + bi] + bo, (size_t)vl);
                }
                pos += (size_t)vl;
                out->offsets[i + 1] = (int32_t)pos;
            }
            out->values_len = pos;
        }
        break;
    }
    case AK_STRUCT:
        if (out->n_children != (size_t)a->n_children) return BAD("arrow import: '%s': child count", f->name);
        for (int64_t i = 0; i < a->n_children; i++) {
            const struct ArrowArray *c = a->children[i];
            if (!c) return BAD("arrow import: '%s': NULL child", f->name);
            HOODIE_TRY(import_node(&out->children[i], &f->children[i], s->children[i], c, c->offset + start, len,
                                   depth + 1, adopt));
        }
        break;
    case AK_LIST32: case AK_LIST64: case AK_MAP: {
        int64_t base, end;
        HOODIE_TRY(import_offsets(out, f, b1, af.kind == AK_LIST64, start, len, &base, &end));
        const struct ArrowArray *c = a->children[0];
        if (!c) return BAD("arrow import: '%s': NULL child", f->name);
        HOODIE_TRY(import_node(&out->children[0], &f->children[0], s->children[0], c, c->offset + base,
                               end - base, depth + 1, 0));
        break;
    }
    case AK_FIXEDLIST: {
        int64_t n = af.list_size;
        if (len * n > INT32_MAX)
            return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "arrow import: '%s': more than 2^31 values", f->name);
        out->offsets = alloc_buf((L + 1) * 4, &out->offsets_cap);
        if (!out->offsets) return HOODIE_NOMEM();
        for (int64_t i = 0; i <= len; i++) out->offsets[i] = (int32_t)(i * n);
        const struct ArrowArray *c = a->children[0];
        if (!c) return BAD("arrow import: '%s': NULL child", f->name);
        HOODIE_TRY(import_node(&out->children[0], &f->children[0], s->children[0], c, c->offset + start * n,
                               len * n, depth + 1, 0));
        break;
    }
    case AK_NULL: break;
    }
    out->length = len;
    return HOODIE_OK;
}

hoodie_status hoodie_arrow_import_array(hoodie_array *out, const hoodie_field *f, const struct ArrowSchema *s,
                                        const struct ArrowArray *arr)
{
    HOODIE_TRY(hoodie_array_init(out, f));
    hoodie_status rc = import_node(out, f, s, arr, arr ? arr->offset : 0, arr ? arr->length : 0, 0, 0);
    if (rc < 0) hoodie_array_dispose(out);
    return rc;
}

hoodie_status hoodie_arrow_import_batch(hoodie_batch *out, const struct ArrowSchema *s,
                                        const struct ArrowArray *arr)
{
    hoodie_field f;
    memset(out, 0, sizeof *out);
    HOODIE_TRY(hoodie_arrow_import_field(&f, s));
    if (f.type.id != HOODIE_TYPE_STRUCT) {
        hoodie_field_dispose(&f);
        return BAD("arrow import: a batch must be a struct array, got '%s'", s->format);
    }
    out->schema = f;
    hoodie_status rc = hoodie_array_init(&out->root, &out->schema);
    if (rc == HOODIE_OK) rc = import_node(&out->root, &out->schema, s, arr, arr ? arr->offset : 0,
                                          arr ? arr->length : 0, 0, 0);
    if (rc < 0) hoodie_batch_dispose(out);
    return rc;
}

/* ======================================================================================================== */
/* Streams                                                                                                  */
/* ======================================================================================================== */

typedef struct stream_priv {
    hoodie_field schema;
    hoodie_arrow_next_cb next;
    void (*free_payload)(void *);
    void *payload;
    char err[1024];
} stream_priv;

static int status_errno(hoodie_status rc)
{
    switch (rc) {
    case HOODIE_ENOMEM: return ENOMEM;
    case HOODIE_EINVAL: return EINVAL;
    case HOODIE_EUNSUPPORTED: return ENOSYS;
    default: return EIO;
    }
}

static int stream_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
    stream_priv *p = st->private_data;
    hoodie_status rc = hoodie_arrow_export_field(out, &p->schema);
    if (rc < 0) { snprintf(p->err, sizeof p->err, "%s", hoodie_error__message()); return status_errno(rc); }
    return 0;
}

static int stream_get_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
    stream_priv *p = st->private_data;
    hoodie_batch b;
    hoodie_status rc = hoodie_batch_init(&b, &p->schema);
    if (rc == HOODIE_OK) {
        rc = p->next(&b, p->payload);
        if (rc == HOODIE_ITEROVER) {
            memset(out, 0, sizeof *out);
            out->release = NULL;
            hoodie_batch_dispose(&b);
            return 0;
        }
        if (rc == HOODIE_OK) rc = hoodie_arrow_export_batch(out, &b);
        hoodie_batch_dispose(&b);
    }
    if (rc < 0) { snprintf(p->err, sizeof p->err, "%s", hoodie_error__message()); return status_errno(rc); }
    return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *st)
{
    stream_priv *p = st->private_data;
    return p->err[0] ? p->err : NULL;
}

static void stream_release(struct ArrowArrayStream *st)
{
    if (!st || !st->release) return;
    stream_priv *p = st->private_data;
    if (p) {
        if (p->free_payload) p->free_payload(p->payload);
        hoodie_field_dispose(&p->schema);
        free(p);
    }
    st->release = NULL;
    st->private_data = NULL;
}

hoodie_status hoodie_arrow_stream_export(struct ArrowArrayStream *out, const hoodie_field *schema,
                                         hoodie_arrow_next_cb next, void (*free_payload)(void *), void *payload)
{
    stream_priv *p = calloc(1, sizeof *p);
    hoodie_status rc = p ? hoodie_field_clone(&p->schema, schema) : HOODIE_NOMEM();
    if (rc < 0) {
        free(p);
        if (free_payload) free_payload(payload);
        return rc;
    }
    p->next = next;
    p->free_payload = free_payload;
    p->payload = payload;
    memset(out, 0, sizeof *out);
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = p;
    return HOODIE_OK;
}

static hoodie_status stream_fail(struct ArrowArrayStream *st, int err, const char *what)
{
    const char *msg = st->get_last_error ? st->get_last_error(st) : NULL;
    return HOODIE_FAIL(err == ENOMEM ? HOODIE_ENOMEM : HOODIE_EIO, "arrow stream: %s failed (%s): %s", what,
                       strerror(err), msg ? msg : "no message");
}

hoodie_status hoodie_arrow_reader_open(hoodie_arrow_reader *r, struct ArrowArrayStream *stream)
{
    memset(r, 0, sizeof *r);
    r->stream = *stream;
    stream->release = NULL;
    int e = r->stream.get_schema(&r->stream, &r->arrow_schema);
    hoodie_status rc = e ? stream_fail(&r->stream, e, "get_schema") : HOODIE_OK;
    if (rc == HOODIE_OK) {
        rc = hoodie_arrow_import_field(&r->schema, &r->arrow_schema);
        if (rc == HOODIE_OK && r->schema.type.id != HOODIE_TYPE_STRUCT)
            rc = BAD("arrow stream: schema is '%s', not a struct", r->arrow_schema.format);
    }
    if (rc < 0) hoodie_arrow_reader_close(r);
    return rc;
}

hoodie_status hoodie_arrow_reader_next(hoodie_arrow_reader *r, hoodie_batch *out)
{
    struct ArrowArray arr;
    memset(out, 0, sizeof *out);
    memset(&arr, 0, sizeof arr);
    if (!r->stream.release) return HOODIE_FAIL(HOODIE_ESTATE, "arrow stream: closed");
    int e = r->stream.get_next(&r->stream, &arr);
    if (e) return stream_fail(&r->stream, e, "get_next");
    if (!arr.release) return HOODIE_ITEROVER;
    hoodie_status rc = hoodie_batch_init(out, &r->schema);
    if (rc == HOODIE_OK) {
        rc = import_node(&out->root, &out->schema, &r->arrow_schema, &arr, arr.offset, arr.length, 0, 1);
        if (rc < 0) hoodie_batch_dispose(out);
    }
    arr.release(&arr);
    return rc;
}

void hoodie_arrow_reader_close(hoodie_arrow_reader *r)
{
    if (r->arrow_schema.release) r->arrow_schema.release(&r->arrow_schema);
    if (r->stream.release) r->stream.release(&r->stream);
    hoodie_field_dispose(&r->schema);
}
