/*
 * Parquet writer: schema mapping, record shredding (definition/repetition levels), page building (PLAIN,
 * dictionary with fallback, DELTA_*, BYTE_STREAM_SPLIT), row groups (encoded, or with chunks copied from another
 * file), footer. Statistics are in writer_stats.c; the types both share in writer_int.h.
 *
 * SCHEMA (hoodie type -> Parquet physical type, logical type, converted type)
 *   BOOL -> BOOLEAN;  INT8/16/32 -> INT32 INTEGER(bw, signed) INT_x;  UINT8/16/32 -> INT32 INTEGER(bw, unsigned)
 *   UINT_x;  INT64 -> INT64;  UINT64 -> INT64 INTEGER(64, unsigned) UINT_64;  FLOAT, DOUBLE;  FLOAT16 -> FLBA(2)
 *   FLOAT16;  STRING -> BYTE_ARRAY STRING UTF8 (ext ENUM: ENUM, ext JSON: JSON);  BINARY -> BYTE_ARRAY (ext BSON:
 *   BSON);  FIXED_BINARY(w) -> FLBA(w) (ext UUID: UUID);  DECIMAL(p,s) -> INT32 (p <= 9), INT64 (p <= 18), else
 *   FLBA(minimal bytes) DECIMAL;  DATE32 -> INT32 DATE;  TIME32 -> INT32 TIME(MILLIS) (seconds scaled);
 *   TIME64 -> INT64 TIME(MICROS|NANOS);  TIMESTAMP -> INT64 TIMESTAMP(unit, utc) (+ TIMESTAMP_MILLIS/MICROS when
 *   utc; seconds scaled to millis), ext INT96 -> INT96;  NULL -> INT32 UNKNOWN (always null);
 *   STRUCT -> group;  LIST -> <name> (LIST) { repeated group list { <elem> element; } };
 *   MAP -> <name> (MAP) { repeated group key_value { required key; <opt> value; } }.
 *
 * SHREDDING: each leaf column has a chain of steps from its top-level field (STRUCT: optional level; LIST:
 * optional level + repeated level; LEAF). Flat columns take fast paths (no levels for required, validity bits
 * for optional); columns under lists are shredded recursively. Levels and the leaf positions of non-null values
 * are produced per slice of rows, then values are converted to their physical form and fed to the page builder
 * in small chunks that end on record boundaries, so pages split at rows (needed for DATA_PAGE_V2 num_rows).
 */
#include "format/parquet/writer_int.h"
#include "format/parquet/codec.h"
#include "format/parquet/encode.h"
#include "format/parquet/schema.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PQ_SLICE_ROWS 65536
#define PQ_CREATED_BY "hoodie version 0.1.0"

/* ------------------------------------------------------------------------------------------------ options */

void hoodie_pq_writer_opts_init(hoodie_pq_writer_opts *o)
{
    memset(o, 0, sizeof *o);
    o->codec = HOODIE_PQ_SNAPPY;
    o->dictionary = 1;
    o->value_encoding = HOODIE_PQ_PLAIN;
}

/* ------------------------------------------------------------------------------------------------ schema */

static hoodie_pq_schema_element *schema_push(hoodie_pq_writer *w, const char *name, int rep)
{
    if (w->n_elems == w->elems_cap) {
        uint32_t ncap = w->elems_cap ? w->elems_cap * 2 : 16;
        hoodie_pq_schema_element *n = realloc(w->elems, ncap * sizeof *n);
        if (!n) return NULL;
        w->elems = n;
        w->elems_cap = ncap;
    }
    hoodie_pq_schema_element *e = &w->elems[w->n_elems++];
    memset(e, 0, sizeof *e);
    e->converted = HOODIE_PQ_CT_NONE;
    e->name = hoodie_arena_strdup(w->arena, name);
    if (!e->name) return NULL;
    if (rep >= 0) { e->has_repetition = 1; e->repetition = (hoodie_pq_repetition)rep; }
    return e;
}

static int decimal_bytes(int p)
{
    return (int)ceil((p * 3.321928094887362 + 1) / 8);
}

/* Map a leaf hoodie type to its schema element and the column's physical handling. */
static hoodie_status leaf_map(const hoodie_type *t, hoodie_pq_schema_element *e, pq_col *c)
{
    hoodie_pq_logical_type *lt = &e->logical;
    e->has_type = 1;
    c->conv = CV_COPY;
    c->legacy_minmax = 1;
#define PHYS(pt, wd, st) do { e->type = (pt); c->ptype = (pt); c->width = (wd); c->stat_kind = (st); } while (0)
#define INTEGER(bw, sg, ct) do { lt->kind = HOODIE_PQ_LT_INTEGER; lt->int_bit_width = (bw); lt->int_signed = (sg); \
                                 e->converted = (ct); } while (0)
    switch (t->id) {
    case HOODIE_TYPE_NULL:
        PHYS(HOODIE_PQ_INT32, 4, ST_NONE);
        lt->kind = HOODIE_PQ_LT_UNKNOWN;
        c->conv = CV_NULL;
        break;
    case HOODIE_TYPE_BOOL: PHYS(HOODIE_PQ_BOOLEAN, 1, ST_BOOL); c->conv = CV_BOOL; break;
    case HOODIE_TYPE_INT8: PHYS(HOODIE_PQ_INT32, 4, ST_I32); INTEGER(8, 1, HOODIE_PQ_CT_INT_8); c->conv = CV_I8; break;
    case HOODIE_TYPE_INT16: PHYS(HOODIE_PQ_INT32, 4, ST_I32); INTEGER(16, 1, HOODIE_PQ_CT_INT_16); c->conv = CV_I16; break;
    case HOODIE_TYPE_INT32: PHYS(HOODIE_PQ_INT32, 4, ST_I32); INTEGER(32, 1, HOODIE_PQ_CT_INT_32); break;
    case HOODIE_TYPE_UINT8:
        PHYS(HOODIE_PQ_INT32, 4, ST_U32); INTEGER(8, 0, HOODIE_PQ_CT_UINT_8); c->conv = CV_U8; c->legacy_minmax = 0; break;
    case HOODIE_TYPE_UINT16:
        PHYS(HOODIE_PQ_INT32, 4, ST_U32); INTEGER(16, 0, HOODIE_PQ_CT_UINT_16); c->conv = CV_U16; c->legacy_minmax = 0; break;
    case HOODIE_TYPE_UINT32:
        PHYS(HOODIE_PQ_INT32, 4, ST_U32); INTEGER(32, 0, HOODIE_PQ_CT_UINT_32); c->legacy_minmax = 0; break;
    case HOODIE_TYPE_INT64: PHYS(HOODIE_PQ_INT64, 8, ST_I64); break;
    case HOODIE_TYPE_UINT64:
        PHYS(HOODIE_PQ_INT64, 8, ST_U64); INTEGER(64, 0, HOODIE_PQ_CT_UINT_64); c->legacy_minmax = 0; break;
    case HOODIE_TYPE_FLOAT: PHYS(HOODIE_PQ_FLOAT, 4, ST_FLOAT); break;
    case HOODIE_TYPE_DOUBLE: PHYS(HOODIE_PQ_DOUBLE, 8, ST_DOUBLE); break;
    case HOODIE_TYPE_FLOAT16:
        PHYS(HOODIE_PQ_FIXED_LEN_BYTE_ARRAY, 2, ST_F16);
        e->type_length = 2;
        lt->kind = HOODIE_PQ_LT_FLOAT16;
        c->legacy_minmax = 0;
        break;
    case HOODIE_TYPE_STRING:
        PHYS(HOODIE_PQ_BYTE_ARRAY, 0, ST_BYTES);
        c->conv = CV_BYTES;
        c->legacy_minmax = 0;
        if (t->ext == HOODIE_EXT_ENUM) { lt->kind = HOODIE_PQ_LT_ENUM; e->converted = HOODIE_PQ_CT_ENUM; }
        else if (t->ext == HOODIE_EXT_JSON) { lt->kind = HOODIE_PQ_LT_JSON; e->converted = HOODIE_PQ_CT_JSON; }
        else { lt->kind = HOODIE_PQ_LT_STRING; e->converted = HOODIE_PQ_CT_UTF8; }
        break;
    case HOODIE_TYPE_BINARY:
        PHYS(HOODIE_PQ_BYTE_ARRAY, 0, ST_BYTES);
        c->conv = CV_BYTES;
        c->legacy_minmax = 0;
        if (t->ext == HOODIE_EXT_BSON) { lt->kind = HOODIE_PQ_LT_BSON; e->converted = HOODIE_PQ_CT_BSON; }
        else if (t->ext == HOODIE_EXT_JSON) { lt->kind = HOODIE_PQ_LT_JSON; e->converted = HOODIE_PQ_CT_JSON; }
        break;
    case HOODIE_TYPE_FIXED_BINARY:
        if (t->width <= 0) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: fixed_binary width %d", t->width);
        PHYS(HOODIE_PQ_FIXED_LEN_BYTE_ARRAY, t->width, ST_BYTES);
        e->type_length = t->width;
        c->legacy_minmax = 0;
        if (t->ext == HOODIE_EXT_UUID) {
            if (t->width != 16) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: UUID must be 16 bytes");
            lt->kind = HOODIE_PQ_LT_UUID;
        }
        break;
    case HOODIE_TYPE_DECIMAL:
        if (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision)
            return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: bad decimal(%d,%d)", t->precision, t->scale);
        if (t->precision <= 9) { PHYS(HOODIE_PQ_INT32, 4, ST_I32); c->conv = CV_DEC32; }
        else if (t->precision <= 18) { PHYS(HOODIE_PQ_INT64, 8, ST_I64); c->conv = CV_DEC64; }
        else {
            int n = decimal_bytes(t->precision);
            PHYS(HOODIE_PQ_FIXED_LEN_BYTE_ARRAY, n, ST_DECBE);
            e->type_length = n;
            c->conv = CV_DECFLBA;
        }
        c->legacy_minmax = 0;
        lt->kind = HOODIE_PQ_LT_DECIMAL;
        lt->decimal_precision = t->precision;
        lt->decimal_scale = t->scale;
        e->converted = HOODIE_PQ_CT_DECIMAL;
        e->precision = t->precision;
        e->scale = t->scale;
        break;
    case HOODIE_TYPE_DATE32:
        PHYS(HOODIE_PQ_INT32, 4, ST_I32);
        lt->kind = HOODIE_PQ_LT_DATE;
        e->converted = HOODIE_PQ_CT_DATE;
        break;
    case HOODIE_TYPE_TIME32:
        PHYS(HOODIE_PQ_INT32, 4, ST_I32);
        if (t->unit == HOODIE_UNIT_SECOND) c->conv = CV_X1000_32;
        lt->kind = HOODIE_PQ_LT_TIME;
        lt->unit = HOODIE_PQ_MILLIS;
        lt->is_adjusted_to_utc = t->utc;
        if (t->utc) e->converted = HOODIE_PQ_CT_TIME_MILLIS;
        break;
    case HOODIE_TYPE_TIME64:
        PHYS(HOODIE_PQ_INT64, 8, ST_I64);
        lt->kind = HOODIE_PQ_LT_TIME;
        lt->unit = t->unit == HOODIE_UNIT_NANO ? HOODIE_PQ_NANOS : HOODIE_PQ_MICROS;
        lt->is_adjusted_to_utc = t->utc;
        if (t->utc && t->unit != HOODIE_UNIT_NANO) e->converted = HOODIE_PQ_CT_TIME_MICROS;
        break;
    case HOODIE_TYPE_TIMESTAMP:
        if (t->ext == HOODIE_EXT_INT96) {
            PHYS(HOODIE_PQ_INT96, 12, ST_NONE);
            c->conv = CV_INT96;
            c->legacy_minmax = 0;
            break;
        }
        PHYS(HOODIE_PQ_INT64, 8, ST_I64);
        lt->kind = HOODIE_PQ_LT_TIMESTAMP;
        lt->is_adjusted_to_utc = t->utc;
        switch (t->unit) {
        case HOODIE_UNIT_SECOND: c->conv = CV_X1000_64; lt->unit = HOODIE_PQ_MILLIS; break;
        case HOODIE_UNIT_MILLI: lt->unit = HOODIE_PQ_MILLIS; break;
        case HOODIE_UNIT_MICRO: lt->unit = HOODIE_PQ_MICROS; break;
        default: lt->unit = HOODIE_PQ_NANOS; break;
        }
        if (t->utc && lt->unit == HOODIE_PQ_MILLIS) e->converted = HOODIE_PQ_CT_TIMESTAMP_MILLIS;
        if (t->utc && lt->unit == HOODIE_PQ_MICROS) e->converted = HOODIE_PQ_CT_TIMESTAMP_MICROS;
        break;
    default:
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: unsupported leaf type %d", (int)t->id);
    }
#undef PHYS
#undef INTEGER
    return HOODIE_OK;
}

typedef struct schema_ctx {
    pq_step steps[PQ_MAX_STEPS];
    const char *names[PQ_MAX_STEPS * 2];
    int n_steps, n_names, top;
    int16_t def, rep;
} schema_ctx;

static int value_enc_ok(hoodie_pq_encoding e, hoodie_pq_type t)
{
    switch (e) {
    case HOODIE_PQ_PLAIN: return 1;
    case HOODIE_PQ_DELTA_BINARY_PACKED: return t == HOODIE_PQ_INT32 || t == HOODIE_PQ_INT64;
    case HOODIE_PQ_DELTA_LENGTH_BYTE_ARRAY: return t == HOODIE_PQ_BYTE_ARRAY;
    case HOODIE_PQ_DELTA_BYTE_ARRAY: return t == HOODIE_PQ_BYTE_ARRAY || t == HOODIE_PQ_FIXED_LEN_BYTE_ARRAY;
    case HOODIE_PQ_BYTE_STREAM_SPLIT:
        /* the spec allows INT32/INT64/FLBA since format 2.11, but common readers (DuckDB) only take floats */
        return t == HOODIE_PQ_FLOAT || t == HOODIE_PQ_DOUBLE;
    default: return 0;
    }
}

static hoodie_status add_leaf(hoodie_pq_writer *w, schema_ctx *sc, const hoodie_field *f,
                              hoodie_pq_schema_element *e)
{
    if (w->n_cols == w->cols_cap) {
        size_t ncap = w->cols_cap ? w->cols_cap * 2 : 8;
        pq_col *n = realloc(w->cols, ncap * sizeof *n);
        if (!n) return HOODIE_NOMEM();
        w->cols = n;
        w->cols_cap = ncap;
    }
    pq_col *c = &w->cols[w->n_cols];
    memset(c, 0, sizeof *c);
    w->n_cols++;
    HOODIE_TRY(leaf_map(&f->type, e, c));
    memcpy(c->steps, sc->steps, (size_t)sc->n_steps * sizeof *c->steps);
    c->n_steps = sc->n_steps;
    for (int i = 0; i < sc->n_steps; i++) if (sc->steps[i].kind == STEP_LIST) c->has_list = 1;
    c->always_null = f->type.id == HOODIE_TYPE_NULL;
    c->top = sc->top;
    c->elem = (uint32_t)(e - w->elems);
    c->max_def = sc->def;
    c->max_rep = sc->rep;
    c->htype = f->type;
    c->path_count = (uint32_t)sc->n_names;
    c->path = hoodie_arena_calloc(w->arena, (size_t)sc->n_names, sizeof *c->path);
    if (!c->path) return HOODIE_NOMEM();
    size_t dl = 0;
    for (int i = 0; i < sc->n_names; i++) {
        c->path[i] = hoodie_arena_strdup(w->arena, sc->names[i]);
        if (!c->path[i]) return HOODIE_NOMEM();
        dl += strlen(sc->names[i]) + 1;
    }
    c->dotted = hoodie_arena_alloc(w->arena, dl + 1);
    if (!c->dotted) return HOODIE_NOMEM();
    c->dotted[0] = 0;
    for (int i = 0; i < sc->n_names; i++) {
        if (i) strcat(c->dotted, ".");
        strcat(c->dotted, sc->names[i]);
    }
    /* encodings */
    hoodie_pq_encoding enc = w->o.value_encoding;
    int dict = w->o.dictionary;
    for (size_t i = 0; i < w->o.n_column_encodings; i++) {
        const char *p = w->o.column_encodings[i].path;
        if (strcmp(p, c->dotted) == 0 || strcmp(p, c->path[0]) == 0) {
            hoodie_pq_encoding ce = w->o.column_encodings[i].encoding;
            if (ce == HOODIE_PQ_RLE_DICTIONARY || ce == HOODIE_PQ_PLAIN_DICTIONARY) dict = 1;
            else { dict = 0; enc = ce; }
        }
    }
    if (!value_enc_ok(enc, c->ptype)) enc = HOODIE_PQ_PLAIN;
    c->value_enc = enc;
    c->want_dict = dict && c->ptype != HOODIE_PQ_BOOLEAN && !c->always_null;
    return HOODIE_OK;
}

static hoodie_status schema_walk(hoodie_pq_writer *w, schema_ctx *sc, const hoodie_field *f, const char *name,
                                 int repetition, uint16_t child_index);

static hoodie_status push_step(schema_ctx *sc, uint8_t kind, int optional, uint16_t child)
{
    if (sc->n_steps >= PQ_MAX_STEPS || sc->n_names + 2 >= PQ_MAX_STEPS * 2)
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: schema nested too deeply");
    pq_step *s = &sc->steps[sc->n_steps++];
    s->kind = kind;
    s->optional = (uint8_t)(optional != 0);
    s->child = child;
    s->rep = 0;
    sc->def = (int16_t)(sc->def + (optional != 0));
    return HOODIE_OK;
}

static hoodie_status schema_walk(hoodie_pq_writer *w, schema_ctx *sc, const hoodie_field *f, const char *name,
                                 int repetition, uint16_t child_index)
{
    schema_ctx saved = *sc;
    hoodie_pq_schema_element *e = schema_push(w, name, repetition);
    if (!e) return HOODIE_NOMEM();
    size_t ei = w->n_elems - 1;
    if (f->field_id >= 0) { e->has_field_id = 1; e->field_id = f->field_id; }
    sc->names[sc->n_names++] = name;
    int opt = repetition == HOODIE_PQ_OPTIONAL;
    switch (f->type.id) {
    case HOODIE_TYPE_STRUCT:
        if (f->n_children == 0) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: struct '%s' has no fields", name);
        e->num_children = (int32_t)f->n_children;
        HOODIE_TRY(push_step(sc, STEP_STRUCT, opt, 0));
        for (size_t i = 0; i < f->n_children; i++) {
            sc->steps[sc->n_steps - 1].child = (uint16_t)i;
            const hoodie_field *ch = &f->children[i];
            HOODIE_TRY(schema_walk(w, sc, ch, ch->name, ch->nullable ? HOODIE_PQ_OPTIONAL : HOODIE_PQ_REQUIRED,
                                   (uint16_t)i));
        }
        break;
    case HOODIE_TYPE_LIST: {
        if (f->n_children != 1) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: list '%s' needs one child", name);
        e->num_children = 1;
        e->converted = HOODIE_PQ_CT_LIST;
        e->logical.kind = HOODIE_PQ_LT_LIST;
        HOODIE_TRY(push_step(sc, STEP_LIST, opt, 0));
        sc->def++;
        sc->rep++;
        sc->steps[sc->n_steps - 1].rep = sc->rep;
        hoodie_pq_schema_element *g = schema_push(w, "list", HOODIE_PQ_REPEATED);
        if (!g) return HOODIE_NOMEM();
        g->num_children = 1;
        sc->names[sc->n_names++] = "list";
        const hoodie_field *el = &f->children[0];
        HOODIE_TRY(schema_walk(w, sc, el, "element", el->nullable ? HOODIE_PQ_OPTIONAL : HOODIE_PQ_REQUIRED, 0));
        break;
    }
    case HOODIE_TYPE_MAP: {
        const hoodie_field *ent = f->n_children == 1 ? &f->children[0] : NULL;
        if (!ent || ent->type.id != HOODIE_TYPE_STRUCT || ent->n_children != 2)
            return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: map '%s' needs an entries struct of key and value",
                               name);
        e->num_children = 1;
        e->converted = HOODIE_PQ_CT_MAP;
        e->logical.kind = HOODIE_PQ_LT_MAP;
        HOODIE_TRY(push_step(sc, STEP_LIST, opt, 0));
        sc->def++;
        sc->rep++;
        sc->steps[sc->n_steps - 1].rep = sc->rep;
        hoodie_pq_schema_element *g = schema_push(w, "key_value", HOODIE_PQ_REPEATED);
        if (!g) return HOODIE_NOMEM();
        g->num_children = 2;
        sc->names[sc->n_names++] = "key_value";
        HOODIE_TRY(push_step(sc, STEP_STRUCT, 0, 0));
        HOODIE_TRY(schema_walk(w, sc, &ent->children[0], "key", HOODIE_PQ_REQUIRED, 0));
        sc->steps[sc->n_steps - 1].child = 1;
        HOODIE_TRY(schema_walk(w, sc, &ent->children[1], "value",
                               ent->children[1].nullable ? HOODIE_PQ_OPTIONAL : HOODIE_PQ_REQUIRED, 1));
        break;
    }
    default:
        if (f->type.id == HOODIE_TYPE_NULL && !opt)
            return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: null-typed column '%s' must be nullable", name);
        HOODIE_TRY(push_step(sc, STEP_LEAF, opt, 0));
        /* the element may have moved if schema_push reallocated: re-fetch */
        HOODIE_TRY(add_leaf(w, sc, f, &w->elems[ei]));
        break;
    }
    (void)child_index;
    *sc = saved;
    return HOODIE_OK;
}

/* ------------------------------------------------------------------------------------------------ dictionary */

static inline uint32_t hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (uint32_t)x;
}

static void dict_dispose(pq_dict *d)
{
    free(d->slots); free(d->hashes); free(d->offs); free(d->lens);
    hoodie_buf_dispose(&d->plain);
    memset(d, 0, sizeof *d);
}

static void dict_clear(pq_dict *d)
{
    if (d->slots) memset(d->slots, 0, ((size_t)d->mask + 1) * sizeof *d->slots);
    d->count = 0;
    hoodie_buf_clear(&d->plain);
}

static hoodie_status dict_grow(pq_dict *d, int is_bytes)
{
    if (d->count + 1 > d->ecap) {
        uint32_t ncap = d->ecap ? d->ecap * 2 : 1024;
        uint32_t *h = realloc(d->hashes, ncap * sizeof *h);
        if (!h) return HOODIE_NOMEM();
        d->hashes = h;
        if (is_bytes) {
            uint32_t *o = realloc(d->offs, ncap * sizeof *o);
            if (!o) return HOODIE_NOMEM();
            d->offs = o;
            uint32_t *l = realloc(d->lens, ncap * sizeof *l);
            if (!l) return HOODIE_NOMEM();
            d->lens = l;
        }
        d->ecap = ncap;
    }
    if (!d->slots || (size_t)(d->count + 1) * 2 > (size_t)d->mask + 1) {
        size_t ncap = d->slots ? ((size_t)d->mask + 1) * 2 : 2048;
        uint32_t *s = calloc(ncap, sizeof *s);
        if (!s) return HOODIE_NOMEM();
        uint32_t m = (uint32_t)(ncap - 1);
        for (uint32_t e = 0; e < d->count; e++) {
            uint32_t i = d->hashes[e] & m;
            while (s[i]) i = (i + 1) & m;
            s[i] = e + 1;
        }
        free(d->slots);
        d->slots = s;
        d->mask = m;
    }
    return HOODIE_OK;
}

/* Index of the fixed-width value at p (inserted when new). */
static inline hoodie_status dict_fixed(pq_dict *d, const uint8_t *p, size_t wd, uint32_t *out)
{
    uint32_t h;
    if (wd == 4) { uint32_t x; memcpy(&x, p, 4); h = hash_u64(x); }
    else if (wd == 8) { uint64_t x; memcpy(&x, p, 8); h = hash_u64(x); }
    else h = (uint32_t)hoodie_hash_bytes(p, wd, 0);
    if (!d->slots) HOODIE_TRY(dict_grow(d, 0));
    uint32_t i = h & d->mask;
    for (;;) {
        uint32_t s = d->slots[i];
        if (!s) break;
        uint32_t e = s - 1;
        if (d->hashes[e] == h && memcmp(d->plain.data + (size_t)e * wd, p, wd) == 0) { *out = e; return HOODIE_OK; }
        i = (i + 1) & d->mask;
    }
    if ((size_t)(d->count + 1) * 2 > (size_t)d->mask + 1 || d->count + 1 > d->ecap) {
        HOODIE_TRY(dict_grow(d, 0));
        i = h & d->mask;
        while (d->slots[i]) i = (i + 1) & d->mask;
    }
    HOODIE_TRY(hoodie_buf_append(&d->plain, p, wd));
    uint32_t e = d->count++;
    d->hashes[e] = h;
    d->slots[i] = e + 1;
    *out = e;
    return HOODIE_OK;
}

static inline hoodie_status dict_bytes(pq_dict *d, const uint8_t *p, uint32_t len, uint32_t *out)
{
    uint32_t h = (uint32_t)hoodie_hash_bytes(p, len, 0);
    if (!d->slots) HOODIE_TRY(dict_grow(d, 1));
    uint32_t i = h & d->mask;
    for (;;) {
        uint32_t s = d->slots[i];
        if (!s) break;
        uint32_t e = s - 1;
        if (d->hashes[e] == h && d->lens[e] == len && hoodie_bytes_eq(d->plain.data + d->offs[e], p, len)) {
            *out = e;
            return HOODIE_OK;
        }
        i = (i + 1) & d->mask;
    }
    if ((size_t)(d->count + 1) * 2 > (size_t)d->mask + 1 || d->count + 1 > d->ecap) {
        HOODIE_TRY(dict_grow(d, 1));
        i = h & d->mask;
        while (d->slots[i]) i = (i + 1) & d->mask;
    }
    HOODIE_TRY(hoodie_buf_put_le32(&d->plain, len));
    uint32_t off = (uint32_t)d->plain.len;
    HOODIE_TRY(hoodie_buf_append(&d->plain, p, len));
    uint32_t e = d->count++;
    d->hashes[e] = h;
    d->offs[e] = off;
    d->lens[e] = len;
    d->slots[i] = e + 1;
    *out = e;
    return HOODIE_OK;
}

/* ------------------------------------------------------------------------------------------------ shredding */

#define GROW(ptr, cap, need)                                                                  \
    do {                                                                                      \
        if ((need) > (cap)) {                                                                 \
            size_t _nc = (cap) ? (cap) : 1024;                                                \
            while (_nc < (need)) _nc *= 2;                                                    \
            void *_np = realloc((ptr), _nc * sizeof *(ptr));                                  \
            if (!_np) return HOODIE_NOMEM();                                                  \
            (ptr) = _np;                                                                      \
            (cap) = _nc;                                                                      \
        }                                                                                     \
    } while (0)

/*
 * Value positions in c->sidx carry their source (hoodie_pq_writer_write_refs) above bit REF_SHIFT: the source's
 * leaf array holds the value at the position below it. One source: 0.
 */
#define REF_SHIFT 40
#define REF_ROW(x) ((x) & (((int64_t)1 << REF_SHIFT) - 1))
#define REF_MAX_SOURCES ((size_t)1 << 20)

static inline hoodie_status emit(pq_col *c, int16_t d, int16_t r, int64_t idx)
{
    if (c->s_nlev == c->s_levcap) {
        GROW(c->sdef, c->s_levcap, c->s_nlev + 1);
        size_t cap2 = c->s_levcap;
        void *np = realloc(c->srep, cap2 * sizeof *c->srep);
        if (!np) return HOODIE_NOMEM();
        c->srep = np;
    }
    c->sdef[c->s_nlev] = (uint16_t)d;
    c->srep[c->s_nlev] = (uint16_t)r;
    c->s_nlev++;
    if (idx >= 0) {
        GROW(c->sidx, c->s_idxcap, c->s_nvals + 1);
        c->sidx[c->s_nvals++] = idx + c->ref_tag;
    }
    return HOODIE_OK;
}

static hoodie_status shred_rec(pq_col *c, int k, const hoodie_array *a, int64_t i, int16_t d, int16_t r)
{
    const pq_step *s = &c->steps[k];
    if (s->optional && ((s->kind == STEP_LEAF && c->always_null) || !hoodie_array_is_valid(a, i)))
        return emit(c, d, r, -1);
    d = (int16_t)(d + s->optional);
    switch (s->kind) {
    case STEP_LEAF:
        return emit(c, d, r, i);
    case STEP_STRUCT:
        return shred_rec(c, k + 1, &a->children[s->child], i, d, r);
    default: {
        int64_t b = a->offsets[i], e = a->offsets[i + 1];
        if (b >= e) return emit(c, d, r, -1);
        const hoodie_array *ch = &a->children[0];
        for (int64_t j = b; j < e; j++)
            HOODIE_TRY(shred_rec(c, k + 1, ch, j, (int16_t)(d + 1), j == b ? r : s->rep));
        return HOODIE_OK;
    }
    }
}

static const hoodie_array *leaf_array(const pq_col *c, const hoodie_array *top)
{
    const hoodie_array *a = top;
    for (int k = 0; k < c->n_steps - 1; k++)
        a = c->steps[k].kind == STEP_STRUCT ? &a->children[c->steps[k].child] : &a->children[0];
    return a;
}

/*
 * Levels and non-null value positions of rows [r0, r1) of the column's top-level array tops[0]; with `sel`, of
 * the rows sel[r0 .. r1) instead, each of the source its tag names (REF_SHIFT; tops[s]: source s's array).
 */
static hoodie_status shred(pq_col *c, const hoodie_array *const *tops, size_t n_tops, int64_t r0, int64_t r1,
                           const int64_t *sel)
{
    size_t n = (size_t)(r1 - r0);
    c->s_nlev = 0;
    c->s_nvals = 0;
    c->contig = 0;
#define SRC_OF(i) (sel ? (size_t)(sel[i] >> REF_SHIFT) : 0)
#define ROW(i) (sel ? REF_ROW(sel[i]) : (int64_t)(i))
#define POS(i) (sel ? sel[i] : (int64_t)(i)) /* the row with its tag */
    if (c->has_list) {
        hoodie_status rc = HOODIE_OK;
        for (int64_t i = r0; i < r1 && rc == HOODIE_OK; i++) {
            c->ref_tag = POS(i) - ROW(i);
            rc = shred_rec(c, 0, tops[SRC_OF(i)], ROW(i), 0, 0);
        }
        c->ref_tag = 0;
        return rc;
    }
    int validity = 0;
    for (size_t s = 0; s < n_tops; s++) validity |= tops[s]->validity != NULL;
    if (c->max_def == 0 || (c->n_steps == 1 && !c->always_null && !validity)) {
        if (c->max_def) {
            GROW(c->sdef, c->s_levcap, n);
            c->s_nlev = n;
            for (size_t i = 0; i < n; i++) c->sdef[i] = 1;
        }
        c->s_nvals = n;
        if (!sel) {
            c->contig = 1;
            c->s_start = r0;
            return HOODIE_OK;
        }
        GROW(c->sidx, c->s_idxcap, n);
        memcpy(c->sidx, sel + r0, n * sizeof *c->sidx);
        return HOODIE_OK;
    }
    GROW(c->sdef, c->s_levcap, n);
    c->s_nlev = n;
    if (c->n_steps == 1) {
        if (c->always_null) { memset(c->sdef, 0, n * sizeof *c->sdef); return HOODIE_OK; }
        GROW(c->sidx, c->s_idxcap, n);
        size_t nv = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t at = r0 + (int64_t)i, row = ROW(at);
            const uint8_t *v = tops[SRC_OF(at)]->validity;
            int bit = v ? (v[row >> 3] >> (row & 7)) & 1 : 1;
            c->sdef[i] = (uint16_t)bit;
            c->sidx[nv] = POS(at);
            nv += (size_t)bit;
        }
        c->s_nvals = nv;
        if (nv == n && !sel) { c->contig = 1; c->s_start = r0; }
        return HOODIE_OK;
    }
    /* structs without lists: the same row index at every level */
    GROW(c->sidx, c->s_idxcap, n);
    size_t nv = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t at = r0 + (int64_t)i, row = ROW(at);
        const hoodie_array *a = tops[SRC_OF(at)];
        int16_t d = 0;
        int ok = 1;
        for (int k = 0; k < c->n_steps; k++) {
            if (k) a = &a->children[c->steps[k - 1].child];
            if (!c->steps[k].optional) continue;
            if ((c->steps[k].kind == STEP_LEAF && c->always_null) || !hoodie_array_is_valid(a, row)) {
                ok = 0;
                break;
            }
            d++;
        }
        c->sdef[i] = (uint16_t)d;
        if (ok) c->sidx[nv++] = POS(at);
    }
    c->s_nvals = nv;
    return HOODIE_OK;
#undef SRC_OF
#undef ROW
#undef POS
}

/* Values n of the slice, from position `at` on (positions idx[0..n), or st.. when contig; all in `leaf`), to their
 * physical representation (c->phys / c->bphys at `at`). */
static hoodie_status materialize_run(pq_col *c, const hoodie_array *leaf, const int64_t *idx, int contig, int64_t st,
                                     size_t n, size_t at)
{
#define SRC(i) (contig ? st + (int64_t)(i) : REF_ROW(idx[i]))
    if (c->conv == CV_BYTES) {
        GROW(c->bphys, c->bphys_cap, at + n);
        const int32_t *off = leaf->offsets;
        static const uint8_t empty[1] = { 0 };
        const uint8_t *base = leaf->values ? leaf->values : empty;
        for (size_t i = 0; i < n; i++) {
            int64_t j = SRC(i);
            c->bphys[at + i].p = base + off[j];
            c->bphys[at + i].len = (uint32_t)(off[j + 1] - off[j]);
        }
        return HOODIE_OK;
    }
    size_t wd = (size_t)c->width;
    if (c->conv == CV_COPY && contig && at == 0) {
        c->phys_ptr = leaf->values + (size_t)st * wd;
        return HOODIE_OK;
    }
    GROW(c->phys, c->phys_cap, (at + n) * wd + 16);
    uint8_t *out = c->phys + at * wd;
    const uint8_t *src = leaf->values;
    c->phys_ptr = c->phys;
    switch (c->conv) {
    case CV_COPY:
        if (wd == 4) for (size_t i = 0; i < n; i++) memcpy(out + 4 * i, src + 4 * SRC(i), 4);
        else if (wd == 8) for (size_t i = 0; i < n; i++) memcpy(out + 8 * i, src + 8 * SRC(i), 8);
        else for (size_t i = 0; i < n; i++) memcpy(out + wd * i, src + wd * (size_t)SRC(i), wd);
        break;
    case CV_BOOL:
        for (size_t i = 0; i < n; i++) { int64_t j = SRC(i); out[i] = (uint8_t)((src[j >> 3] >> (j & 7)) & 1); }
        break;
    case CV_I8: case CV_I16: case CV_U8: case CV_U16: {
        int32_t *o = (int32_t *)(void *)out;
        if (c->conv == CV_I8) for (size_t i = 0; i < n; i++) o[i] = (int8_t)src[SRC(i)];
        else if (c->conv == CV_U8) for (size_t i = 0; i < n; i++) o[i] = src[SRC(i)];
        else if (c->conv == CV_I16) for (size_t i = 0; i < n; i++) { int16_t x; memcpy(&x, src + 2 * SRC(i), 2); o[i] = x; }
        else for (size_t i = 0; i < n; i++) { uint16_t x; memcpy(&x, src + 2 * SRC(i), 2); o[i] = x; }
        break;
    }
    case CV_X1000_32:
        for (size_t i = 0; i < n; i++) {
            int32_t x;
            memcpy(&x, src + 4 * SRC(i), 4);
            x = (int32_t)((uint32_t)x * 1000u);
            memcpy(out + 4 * i, &x, 4);
        }
        break;
    case CV_X1000_64:
        for (size_t i = 0; i < n; i++) {
            int64_t x;
            memcpy(&x, src + 8 * SRC(i), 8);
            x = (int64_t)((uint64_t)x * 1000u);
            memcpy(out + 8 * i, &x, 8);
        }
        break;
    case CV_DEC32:
        for (size_t i = 0; i < n; i++) memcpy(out + 4 * i, src + 16 * SRC(i), 4);
        break;
    case CV_DEC64:
        for (size_t i = 0; i < n; i++) memcpy(out + 8 * i, src + 16 * SRC(i), 8);
        break;
    case CV_DECFLBA:
        for (size_t i = 0; i < n; i++) {
            const uint8_t *v = src + 16 * SRC(i);
            for (size_t k = 0; k < wd; k++) out[wd * i + k] = v[wd - 1 - k];
        }
        break;
    case CV_INT96: {
        int64_t mul = 1, div = 1;
        switch (c->htype.unit) {
        case HOODIE_UNIT_SECOND: mul = 1000000000; break;
        case HOODIE_UNIT_MILLI: mul = 1000000; break;
        case HOODIE_UNIT_MICRO: mul = 1000; break;
        default: break;
        }
        (void)div;
        for (size_t i = 0; i < n; i++) {
            int64_t x;
            memcpy(&x, src + 8 * SRC(i), 8);
            const int64_t day_units = 86400LL * 1000000000LL / mul; /* units per day */
            int64_t days = x / day_units, rem = x % day_units;
            if (rem < 0) { rem += day_units; days--; }
            int64_t nanos = rem * mul;
            int32_t jd = (int32_t)(days + 2440588);
            memcpy(out + 12 * i, &nanos, 8);
            memcpy(out + 12 * i + 8, &jd, 4);
        }
        break;
    }
    default:
        return HOODIE_FAIL(HOODIE_ERROR, "parquet writer: internal conversion %d", c->conv);
    }
#undef SRC
    return HOODIE_OK;
}

/* Convert the slice's non-null values to their physical representation (c->phys_ptr / c->bphys), each from the
 * leaf array of its source (leaves[0] alone unless the positions carry sources). */
static hoodie_status materialize(pq_col *c, const hoodie_array *const *leaves)
{
    size_t n = c->s_nvals;
    if (c->conv == CV_NULL || n == 0) { c->phys_ptr = c->phys; return HOODIE_OK; }
    if (c->contig) return materialize_run(c, leaves[0], NULL, 1, c->s_start, n, 0);
    const int64_t *idx = c->sidx;
    for (size_t i0 = 0; i0 < n;) {
        int64_t s = idx[i0] >> REF_SHIFT;
        size_t i1 = i0 + 1;
        while (i1 < n && idx[i1] >> REF_SHIFT == s) i1++;
        HOODIE_TRY(materialize_run(c, leaves[s], idx + i0, 0, 0, i1 - i0, i0));
        i0 = i1;
    }
    return HOODIE_OK;
}

/* A constant column's slice of n rows (hoodie_pq_writer_set_constant): every row the value, none null. */
static hoodie_status shred_const(pq_col *c, size_t n)
{
    c->s_nlev = 0;
    c->contig = 0;
    if (c->max_def) {
        GROW(c->sdef, c->s_levcap, n);
        for (size_t i = 0; i < n; i++) c->sdef[i] = (uint16_t)c->max_def;
        c->s_nlev = n;
    }
    GROW(c->bphys, c->bphys_cap, n);
    for (size_t i = 0; i < n; i++) { c->bphys[i].p = c->cval; c->bphys[i].len = c->clen; }
    c->s_nvals = n;
    return HOODIE_OK;
}

/* Rows [r0, r1) of column c as a slice ready for col_consume: its constant, or shredded and materialized from the
 * sources' arrays (shred, materialize). */
static hoodie_status slice_col(pq_col *c, const hoodie_array *const *tops, const hoodie_array *const *leaves,
                               size_t n_tops, int64_t r0, int64_t r1, const int64_t *sel)
{
    if (c->is_const) return shred_const(c, (size_t)(r1 - r0));
    HOODIE_TRY(shred(c, tops, n_tops, r0, r1, sel));
    return materialize(c, leaves);
}

/* ------------------------------------------------------------------------------------------------ pages */

static size_t page_estimate(const pq_col *c)
{
    size_t lv = c->p_nlev * (size_t)((c->max_def > 0) + (c->max_rep > 0)) / 4;
    if (c->dict_on) {
        int bw = hoodie_pq_bit_width(c->dict.count);
        return lv + c->p_nidx * (size_t)(bw ? bw : 1) / 8 + 1;
    }
    if (c->ptype == HOODIE_PQ_BOOLEAN) return lv + c->pvals.len / 8;
    return lv + c->pvals.len;
}

static hoodie_status encode_values(hoodie_pq_writer *w, pq_col *c, int dict_page, hoodie_pq_encoding *enc)
{
    hoodie_buf *v = &w->vals;
    hoodie_buf_clear(v);
    if (dict_page) {
        int bw = hoodie_pq_bit_width(c->dict.count ? c->dict.count - 1 : 0);
        HOODIE_TRY(hoodie_buf_putc(v, (uint8_t)bw));
        HOODIE_TRY(hoodie_pq_rle_encode(NULL, c->pidx, c->p_nidx, bw, v));
        *enc = w->o.data_page_v2 ? HOODIE_PQ_RLE_DICTIONARY : HOODIE_PQ_PLAIN_DICTIONARY;
        return HOODIE_OK;
    }
    size_t n = (size_t)c->p_nvals;
    *enc = c->value_enc;
    switch (c->value_enc) {
    case HOODIE_PQ_DELTA_BINARY_PACKED:
        return hoodie_pq_delta_binary_encode(c->pvals.data, n, c->ptype == HOODIE_PQ_INT64, v);
    case HOODIE_PQ_DELTA_LENGTH_BYTE_ARRAY:
        return hoodie_pq_delta_length_encode(c->pvals.data, c->pvals.len, n, v);
    case HOODIE_PQ_DELTA_BYTE_ARRAY:
        return hoodie_pq_delta_byte_array_encode(c->pvals.data, c->pvals.len, n,
                                                 c->ptype == HOODIE_PQ_BYTE_ARRAY ? 0 : c->width, v);
    case HOODIE_PQ_BYTE_STREAM_SPLIT:
        return hoodie_pq_byte_stream_split(c->pvals.data, n, c->width, v);
    default:
        *enc = HOODIE_PQ_PLAIN;
        if (c->ptype == HOODIE_PQ_BOOLEAN) return hoodie_pq_plain_bool(c->pvals.data, n, v);
        return hoodie_buf_append(v, c->pvals.data, c->pvals.len);
    }
}

/* Note the page about to be appended to the chunk buffer (data pages only) in the chunk's page index. */
static hoodie_status page_index_add(pq_col *c, size_t size, const hoodie_pq_statistics *st)
{
    if (c->pi_n == c->pi_cap) {
        size_t nc = c->pi_cap ? c->pi_cap * 2 : 16;
        pq_page_ent *n = realloc(c->pi, nc * sizeof *n);
        if (!n) return HOODIE_NOMEM();
        c->pi = n;
        c->pi_cap = nc;
    }
    pq_page_ent *e = &c->pi[c->pi_n++];
    memset(e, 0, sizeof *e);
    e->off = (int64_t)c->chunk.len;
    e->size = (int32_t)size;
    e->first_row = c->chunk_rows;
    e->nulls = c->pstats.nulls;
    e->null_page = !c->pstats.has && c->p_nvals == 0;
    if (c->stat_kind == ST_NONE || (!c->pstats.has && !e->null_page)) c->pi_stats_ok = 0;
    if (!c->pi_stats_ok || e->null_page) return HOODIE_OK;
    e->min_off = c->pi_vals.len;
    e->min_len = st->min_value_len;
    HOODIE_TRY(hoodie_buf_append(&c->pi_vals, st->min_value, st->min_value_len));
    e->max_off = c->pi_vals.len;
    e->max_len = st->max_value_len;
    HOODIE_TRY(hoodie_buf_append(&c->pi_vals, st->max_value, st->max_value_len));
    if (c->pi_has_prev) {
        int dmin = hoodie_pqw__stats_bound_cmp(c, &c->pstats, &c->pi_prev, 0), dmax = hoodie_pqw__stats_bound_cmp(c, &c->pstats, &c->pi_prev, 1);
        if (dmin < 0 || dmax < 0) c->pi_asc = 0;
        if (dmin > 0 || dmax > 0) c->pi_desc = 0;
    }
    hoodie_pqw__stats_reset(&c->pi_prev);
    HOODIE_TRY(hoodie_pqw__stats_merge(c, &c->pi_prev, &c->pstats));
    c->pi_has_prev = 1;
    return HOODIE_OK;
}

static hoodie_status put_page(hoodie_pq_writer *w, pq_col *c, hoodie_pq_page_header *h, const uint8_t *data,
                              size_t len)
{
    hoodie_buf_clear(&w->hdr);
    HOODIE_TRY(hoodie_pq_page_header_encode(h, &w->hdr));
    if (w->hdr.len + len > INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: page too large");
    HOODIE_TRY(page_index_add(c, w->hdr.len + len, h->type == HOODIE_PQ_DATA_PAGE ? &h->data.statistics
                                                                                 : &h->data_v2.statistics));
    HOODIE_TRY(hoodie_buf_append(&c->chunk, w->hdr.data, w->hdr.len));
    HOODIE_TRY(hoodie_buf_append(&c->chunk, data, len));
    c->chunk_unc += (int64_t)w->hdr.len + h->uncompressed_size;
    return HOODIE_OK;
}

static hoodie_status finish_page(hoodie_pq_writer *w, pq_col *c)
{
    if (c->p_nlev == 0) return HOODIE_OK;
    int dict_page = c->dict_on && c->dict.count > 0;
    hoodie_pq_encoding enc;
    HOODIE_TRY(encode_values(w, c, dict_page, &enc));
    int def_bw = hoodie_pq_bit_width((uint64_t)c->max_def), rep_bw = hoodie_pq_bit_width((uint64_t)c->max_rep);
    hoodie_pq_page_header h;
    memset(&h, 0, sizeof h);
    uint8_t scratch[32];
    hoodie_pq_statistics st;
    hoodie_pqw__stats_to_thrift(c, &c->pstats, scratch, &st);
    hoodie_buf_clear(&w->cmp);
    if (!w->o.data_page_v2) {
        hoodie_buf *t = &w->tmp;
        hoodie_buf_clear(t);
        if (c->max_rep > 0) {
            size_t at = t->len;
            HOODIE_TRY(hoodie_buf_put_le32(t, 0));
            HOODIE_TRY(hoodie_pq_rle_encode(c->prep, NULL, c->p_nlev, rep_bw, t));
            uint32_t l = (uint32_t)(t->len - at - 4);
            memcpy(t->data + at, &l, 4);
        }
        if (c->max_def > 0) {
            size_t at = t->len;
            HOODIE_TRY(hoodie_buf_put_le32(t, 0));
            HOODIE_TRY(hoodie_pq_rle_encode(c->pdef, NULL, c->p_nlev, def_bw, t));
            uint32_t l = (uint32_t)(t->len - at - 4);
            memcpy(t->data + at, &l, 4);
        }
        HOODIE_TRY(hoodie_buf_append(t, w->vals.data, w->vals.len));
        if (t->len > INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: page too large");
        HOODIE_TRY(hoodie_codec_compress(w->o.codec, w->o.level, t->data, t->len, &w->cmp));
        h.type = HOODIE_PQ_DATA_PAGE;
        h.uncompressed_size = (int32_t)t->len;
        h.compressed_size = (int32_t)w->cmp.len;
        h.data.num_values = (int32_t)c->p_nlev;
        h.data.encoding = enc;
        h.data.def_encoding = HOODIE_PQ_RLE;
        h.data.rep_encoding = HOODIE_PQ_RLE;
        h.data.statistics = st;
        HOODIE_TRY(put_page(w, c, &h, w->cmp.data, w->cmp.len));
    } else {
        hoodie_buf *t = &w->tmp;
        hoodie_buf_clear(t);
        if (c->max_rep > 0) HOODIE_TRY(hoodie_pq_rle_encode(c->prep, NULL, c->p_nlev, rep_bw, t));
        size_t rep_len = t->len;
        if (c->max_def > 0) HOODIE_TRY(hoodie_pq_rle_encode(c->pdef, NULL, c->p_nlev, def_bw, t));
        size_t def_len = t->len - rep_len;
        int compressed = w->o.codec != HOODIE_PQ_UNCOMPRESSED;
        if (compressed) HOODIE_TRY(hoodie_codec_compress(w->o.codec, w->o.level, w->vals.data, w->vals.len, &w->cmp));
        else HOODIE_TRY(hoodie_buf_append(&w->cmp, w->vals.data, w->vals.len));
        HOODIE_TRY(hoodie_buf_append(t, w->cmp.data, w->cmp.len));
        if (t->len + w->vals.len > INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: page too large");
        h.type = HOODIE_PQ_DATA_PAGE_V2;
        h.uncompressed_size = (int32_t)(rep_len + def_len + w->vals.len);
        h.compressed_size = (int32_t)t->len;
        h.data_v2.num_values = (int32_t)c->p_nlev;
        h.data_v2.num_nulls = (int32_t)c->p_nulls;
        h.data_v2.num_rows = (int32_t)c->p_rows;
        h.data_v2.encoding = enc;
        h.data_v2.def_levels_len = (int32_t)def_len;
        h.data_v2.rep_levels_len = (int32_t)rep_len;
        h.data_v2.is_compressed = compressed;
        h.data_v2.statistics = st;
        HOODIE_TRY(put_page(w, c, &h, t->data, t->len));
    }
    c->enc_mask |= 1u << enc;
    if (c->max_def > 0 || c->max_rep > 0 || !w->o.data_page_v2) c->enc_mask |= 1u << HOODIE_PQ_RLE;
    if (dict_page) c->dict_pages++;
    c->chunk_nlev += (int64_t)c->p_nlev;
    c->chunk_rows += c->p_rows;
    HOODIE_TRY(hoodie_pqw__stats_merge(c, &c->cstats, &c->pstats));
    hoodie_pqw__page_stats_reset(c);
    c->p_nlev = 0;
    c->p_nidx = 0;
    c->p_nvals = c->p_rows = c->p_nulls = 0;
    hoodie_buf_clear(&c->pvals);
    return HOODIE_OK;
}

/* Append values [v0, v0+n) of the slice to the current page. */
static hoodie_status page_add_values(hoodie_pq_writer *w, pq_col *c, size_t v0, size_t n)
{
    (void)w;
    if (n == 0 || c->conv == CV_NULL) return HOODIE_OK;
    int distinct_stats = c->dict_on && c->ptype == HOODIE_PQ_BYTE_ARRAY && c->stat_kind == ST_BYTES;
    if (!distinct_stats) HOODIE_TRY(hoodie_pqw__stats_update(c, &c->pstats, v0, n));
    if (!c->page_epoch) c->page_epoch = 1; /* stamps start at 0: unseen */
    if (c->dict_on) {
        GROW(c->pidx, c->p_idxcap, c->p_nidx + n);
        uint32_t *o = c->pidx + c->p_nidx;
        if (c->ptype == HOODIE_PQ_BYTE_ARRAY) {
            /* a value equal to the one before it (runs, constant columns) takes its index without a lookup */
            const uint8_t *pp = NULL;
            uint32_t pl = 0, pe = 0;
            for (size_t i = 0; i < n; i++) {
                const uint8_t *p = c->bphys[v0 + i].p;
                uint32_t l = c->bphys[v0 + i].len;
                if (pp && l == pl && (p == pp || l == 0 || memcmp(p, pp, l) == 0)) { o[i] = pe; continue; }
                HOODIE_TRY(dict_bytes(&c->dict, p, l, &o[i]));
                if (distinct_stats) {
                    uint32_t e = o[i];
                    if (e >= c->dict_seen_cap) {
                        size_t nc = c->dict_seen_cap ? c->dict_seen_cap * 2 : 1024;
                        while (nc <= e) nc *= 2;
                        uint32_t *ns = realloc(c->dict_seen, nc * sizeof *ns);
                        if (!ns) return HOODIE_NOMEM();
                        memset(ns + c->dict_seen_cap, 0, (nc - c->dict_seen_cap) * sizeof *ns);
                        c->dict_seen = ns;
                        c->dict_seen_cap = nc;
                    }
                    if (c->dict_seen[e] != c->page_epoch) {
                        c->dict_seen[e] = c->page_epoch;
                        HOODIE_TRY(hoodie_pqw__stats_bytes_one(&c->pstats, p ? p : (const uint8_t *)"", l));
                    }
                }
                pp = p ? p : (const uint8_t *)"";
                pl = l;
                pe = o[i];
            }
        } else {
            size_t wd = (size_t)c->width;
            const uint8_t *p = c->phys_ptr + v0 * wd;
            if (wd == 4) for (size_t i = 0; i < n; i++) HOODIE_TRY(dict_fixed(&c->dict, p + 4 * i, 4, &o[i]));
            else if (wd == 8) for (size_t i = 0; i < n; i++) HOODIE_TRY(dict_fixed(&c->dict, p + 8 * i, 8, &o[i]));
            else for (size_t i = 0; i < n; i++) HOODIE_TRY(dict_fixed(&c->dict, p + wd * i, wd, &o[i]));
        }
        c->p_nidx += n;
    } else if (c->ptype == HOODIE_PQ_BYTE_ARRAY) {
        size_t total = 0;
        for (size_t i = 0; i < n; i++) total += 4 + c->bphys[v0 + i].len;
        HOODIE_TRY(hoodie_buf_reserve(&c->pvals, total));
        uint8_t *o = c->pvals.data + c->pvals.len;
        for (size_t i = 0; i < n; i++) {
            uint32_t l = c->bphys[v0 + i].len;
            memcpy(o, &l, 4);
            if (l) memcpy(o + 4, c->bphys[v0 + i].p, l);
            o += 4 + l;
        }
        c->pvals.len += total;
    } else {
        HOODIE_TRY(hoodie_buf_append(&c->pvals, c->phys_ptr + v0 * (size_t)c->width, n * (size_t)c->width));
    }
    c->p_nvals += (int64_t)n;
    return HOODIE_OK;
}

/*
 * parquet-mr's check of the first page: when a chunk's first page is complete (or the dictionary outgrew its limit
 * before), the dictionary is kept only if the page's indices plus the dictionary take less than the values PLAIN.
 * Otherwise the page is re-encoded PLAIN and the chunk goes on without a dictionary: unique keys, sequence numbers
 * and timestamps stop paying for a dictionary they cannot use (and the file is smaller). `force`: fall back
 * without the comparison (the page so far holds only distinct values: see DICT_DISTINCT_PROBE).
 */
static hoodie_status dict_first_page_check(pq_col *c, int force)
{
    if (!c->dict_on || c->dict_pages || c->p_nidx == 0) return HOODIE_OK;
    const pq_dict *d = &c->dict;
    size_t raw = 0, wd = (size_t)c->width;
    if (c->ptype == HOODIE_PQ_BYTE_ARRAY)
        for (size_t i = 0; i < c->p_nidx; i++) raw += 4 + (size_t)d->lens[c->pidx[i]];
    else
        raw = c->p_nidx * wd;
    if (!force && page_estimate(c) + d->plain.len < raw) return HOODIE_OK;
    hoodie_buf_clear(&c->pvals);
    HOODIE_TRY(hoodie_buf_reserve(&c->pvals, raw));
    uint8_t *o = c->pvals.data;
    for (size_t i = 0; i < c->p_nidx; i++) {
        uint32_t e = c->pidx[i];
        if (c->ptype == HOODIE_PQ_BYTE_ARRAY) { /* the dictionary holds each value PLAIN: length, bytes */
            memcpy(o, d->plain.data + d->offs[e] - 4, 4 + (size_t)d->lens[e]);
            o += 4 + (size_t)d->lens[e];
        } else {
            memcpy(o, d->plain.data + (size_t)e * wd, wd);
            o += wd;
        }
    }
    c->pvals.len = raw;
    c->p_nidx = 0;
    c->dict_on = 0;
    dict_clear(&c->dict);
    return HOODIE_OK;
}

/*
 * A chunk's first page whose first DICT_DISTINCT_PROBE or more values are all distinct falls back to PLAIN at
 * once instead of at its end: its column has far more distinct values than that (with n distinct values, 1024
 * draws repeat one unless n is in the hundreds of thousands), so the first-page check would drop the dictionary
 * anyway, and record keys, sequence numbers and timestamps stop being hashed into a dictionary page by page.
 */
enum { DICT_DISTINCT_PROBE = 1024 };

/* Feed the shredded slice to the page builder. */
static hoodie_status col_consume(hoodie_pq_writer *w, pq_col *c)
{
    int has_levels = c->max_def > 0 || c->max_rep > 0;
    size_t nlev = has_levels ? c->s_nlev : c->s_nvals;
    size_t chunk = (size_t)(w->o.page_bytes / 8);
    if (chunk < 1) chunk = 1;
    if (chunk > 4096) chunk = 4096;
    if ((int64_t)chunk > w->o.page_rows) chunk = (size_t)w->o.page_rows;
    size_t l0 = 0, v0 = 0;
    while (l0 < nlev) {
        size_t l1 = l0 + chunk < nlev ? l0 + chunk : nlev;
        if (c->max_rep > 0) while (l1 < nlev && c->srep[l1] != 0) l1++;
        size_t nv, rows;
        if (c->max_def > 0) {
            nv = 0;
            int16_t md = c->max_def;
            for (size_t i = l0; i < l1; i++) nv += c->sdef[i] == md;
        } else {
            nv = l1 - l0;
        }
        if (c->max_rep > 0) {
            rows = 0;
            for (size_t i = l0; i < l1; i++) rows += c->srep[i] == 0;
        } else {
            rows = l1 - l0;
        }
        if (has_levels) {
            size_t need = c->p_nlev + (l1 - l0);
            if (need > c->p_levcap) {
                size_t nc = c->p_levcap ? c->p_levcap : 4096;
                while (nc < need) nc *= 2;
                uint16_t *a = realloc(c->pdef, nc * sizeof *a);
                if (!a) return HOODIE_NOMEM();
                c->pdef = a;
                uint16_t *b = realloc(c->prep, nc * sizeof *b);
                if (!b) return HOODIE_NOMEM();
                c->prep = b;
                c->p_levcap = nc;
            }
            if (c->max_def > 0) memcpy(c->pdef + c->p_nlev, c->sdef + l0, (l1 - l0) * sizeof *c->pdef);
            if (c->max_rep > 0) memcpy(c->prep + c->p_nlev, c->srep + l0, (l1 - l0) * sizeof *c->prep);
        }
        c->p_nlev += l1 - l0;
        c->p_rows += (int64_t)rows;
        c->p_nulls += (int64_t)(l1 - l0 - nv);
        c->pstats.nulls += (int64_t)(l1 - l0 - nv);
        HOODIE_TRY(page_add_values(w, c, v0, nv));
        v0 += nv;
        l0 = l1;
        if (c->dict_on && (int64_t)c->dict.plain.len >= w->o.dictionary_limit) {
            HOODIE_TRY(dict_first_page_check(c, 0));
            HOODIE_TRY(finish_page(w, c));
            c->dict_on = 0; /* fall back for the rest of the chunk */
        } else if ((int64_t)page_estimate(c) >= w->o.page_bytes || c->p_rows >= w->o.page_rows) {
            HOODIE_TRY(dict_first_page_check(c, 0));
            HOODIE_TRY(finish_page(w, c));
        } else if (c->dict_on && !c->dict_pages && c->p_nidx >= DICT_DISTINCT_PROBE && c->dict.count == c->p_nidx) {
            HOODIE_TRY(dict_first_page_check(c, 1));
        }
    }
    return HOODIE_OK;
}

/* ------------------------------------------------------------------------------------------------ row groups */

static hoodie_status sink_write(hoodie_pq_writer *w, const void *p, size_t n)
{
    if (!n) return HOODIE_OK;
    HOODIE_TRY(w->sink.write(w->sink.ctx, p, n));
    w->pos += n;
    return HOODIE_OK;
}

static int64_t rg_estimate(const hoodie_pq_writer *w)
{
    int64_t t = 0;
    for (size_t i = 0; i < w->n_cols; i++) {
        const pq_col *c = &w->cols[i];
        t += c->chunk_unc + (int64_t)page_estimate(c) + (int64_t)c->dict.plain.len;
    }
    return t;
}

static void col_chunk_reset(hoodie_pq_writer *w, pq_col *c)
{
    hoodie_buf_clear(&c->chunk);
    c->chunk_unc = c->chunk_nlev = c->chunk_rows = 0;
    c->pi_n = 0;
    hoodie_buf_clear(&c->pi_vals);
    c->pi_stats_ok = c->pi_asc = c->pi_desc = 1;
    c->pi_has_prev = 0;
    hoodie_pqw__stats_reset(&c->pi_prev);
    c->enc_mask = 0;
    c->dict_pages = 0;
    c->dict_on = c->want_dict;
    dict_clear(&c->dict);
    hoodie_pqw__stats_reset(&c->cstats);
    hoodie_pqw__page_stats_reset(c);
    (void)w;
}

/* Encode the chunk's OffsetIndex (and ColumnIndex when every page has bounds) into the writer's page-index
 * buffers; cc's offsets are relative to those buffers until close adds where they land in the file. */
static hoodie_status page_index_encode(hoodie_pq_writer *w, const pq_col *c, hoodie_pq_column_chunk *cc,
                                       int64_t data_off)
{
    uint32_t n = (uint32_t)c->pi_n;
    hoodie_pq_page_location *loc = malloc((n + 1) * sizeof *loc);
    uint8_t *nullp = malloc(n + 1);
    const uint8_t **mins = malloc((n + 1) * sizeof *mins), **maxs = malloc((n + 1) * sizeof *maxs);
    uint32_t *minl = malloc((n + 1) * sizeof *minl), *maxl = malloc((n + 1) * sizeof *maxl);
    int64_t *nulls = malloc((n + 1) * sizeof *nulls);
    hoodie_status rc = loc && nullp && mins && maxs && minl && maxl && nulls ? HOODIE_OK : HOODIE_NOMEM();
    /* bounds bytes; none at all (and no buffer) when every page is a null page or its bounds are empty */
    const uint8_t *vals = c->pi_vals.data ? c->pi_vals.data : (const uint8_t *)"";
    for (uint32_t i = 0; rc == HOODIE_OK && i < n; i++) {
        const pq_page_ent *e = &c->pi[i];
        loc[i].offset = data_off + e->off;
        loc[i].compressed_page_size = e->size;
        loc[i].first_row_index = e->first_row;
        nullp[i] = e->null_page;
        nulls[i] = e->nulls;
        mins[i] = vals + e->min_off;
        minl[i] = e->null_page ? 0 : e->min_len;
        maxs[i] = vals + e->max_off;
        maxl[i] = e->null_page ? 0 : e->max_len;
    }
    if (rc == HOODIE_OK && n && c->pi_stats_ok) {
        hoodie_pq_column_index ci = { n, nullp, mins, minl, maxs, maxl,
                                      c->pi_asc ? HOODIE_PQ_ASCENDING : c->pi_desc ? HOODIE_PQ_DESCENDING
                                                                                   : HOODIE_PQ_UNORDERED, 1, nulls };
        size_t at = w->col_index.len;
        rc = hoodie_pq_column_index_encode(&ci, &w->col_index);
        cc->has_column_index = rc == HOODIE_OK;
        cc->column_index_offset = (int64_t)at;
        cc->column_index_length = (int32_t)(w->col_index.len - at);
    }
    if (rc == HOODIE_OK && n) {
        hoodie_pq_offset_index oi = { n, loc };
        size_t at = w->off_index.len;
        rc = hoodie_pq_offset_index_encode(&oi, &w->off_index);
        cc->has_offset_index = rc == HOODIE_OK;
        cc->offset_index_offset = (int64_t)at;
        cc->offset_index_length = (int32_t)(w->off_index.len - at);
    }
    free(loc); free(nullp); free(mins); free(maxs); free(minl); free(maxl); free(nulls);
    return rc;
}

/* A chunk copied verbatim (hoodie_pq_writer_write_row_group): its bytes at the current position, its metadata
 * with the offsets moved by the same distance, its page index likewise (page bounds copied as they are). */
static hoodie_status copy_chunk(hoodie_pq_writer *w, const pq_col *c, hoodie_pq_column_chunk *cc)
{
    const hoodie_pq_chunk_copy *k = c->copy;
    const hoodie_pq_column_meta *sm = k->meta;
    hoodie_pq_column_meta *m = &cc->meta;
    int64_t shift = (int64_t)w->pos - (int64_t)k->src_offset;
    *m = *sm;
    m->path_count = c->path_count;
    m->path = c->path;
    m->kv_count = 0;
    m->kv = NULL;
    m->has_index_page_offset = 0;
    m->has_bloom_filter = 0; /* a split-block filter of the source is not copied */
    m->data_page_offset = sm->data_page_offset + shift;
    if (sm->has_dictionary_page_offset) m->dictionary_page_offset = sm->dictionary_page_offset + shift;
    m->encodings = hoodie_arena_memdup(w->arena, sm->encodings, (sm->encoding_count ? sm->encoding_count : 1) *
                                                                    sizeof *sm->encodings);
    if (!m->encodings) return HOODIE_NOMEM();
    hoodie_pq_statistics *s = &m->statistics;
    const hoodie_pq_statistics *ss = &sm->statistics;
#define COPY_STAT(f, l)                                                                   \
    if (ss->f) {                                                                          \
        s->f = ss->l ? hoodie_arena_memdup(w->arena, ss->f, ss->l) : (const uint8_t *)""; \
        if (!s->f) return HOODIE_NOMEM();                                                 \
    }
    COPY_STAT(min_value, min_value_len)
    COPY_STAT(max_value, max_value_len)
    COPY_STAT(min, min_len)
    COPY_STAT(max, max_len)
#undef COPY_STAT
    if (k->offset_index && k->offset_index->page_count) {
        const hoodie_pq_offset_index *so = k->offset_index;
        hoodie_pq_page_location *loc = malloc(so->page_count * sizeof *loc);
        if (!loc) return HOODIE_NOMEM();
        for (uint32_t i = 0; i < so->page_count; i++) {
            loc[i] = so->pages[i];
            loc[i].offset += shift;
        }
        hoodie_pq_offset_index oi = { so->page_count, loc };
        size_t at = w->off_index.len;
        hoodie_status rc = hoodie_pq_offset_index_encode(&oi, &w->off_index);
        free(loc);
        HOODIE_TRY(rc);
        cc->has_offset_index = 1;
        cc->offset_index_offset = (int64_t)at;
        cc->offset_index_length = (int32_t)(w->off_index.len - at);
        if (k->column_index && k->column_index->page_count == so->page_count) {
            at = w->col_index.len;
            HOODIE_TRY(hoodie_pq_column_index_encode(k->column_index, &w->col_index));
            cc->has_column_index = 1;
            cc->column_index_offset = (int64_t)at;
            cc->column_index_length = (int32_t)(w->col_index.len - at);
        }
    }
    return sink_write(w, k->bytes, k->len);
}

static hoodie_status flush_row_group(hoodie_pq_writer *w)
{
    if (w->rg_rows == 0) return HOODIE_OK;
    for (size_t i = 0; i < w->n_cols; i++) HOODIE_TRY(finish_page(w, &w->cols[i]));
    if (w->n_rgs == w->rgs_cap) {
        uint32_t ncap = w->rgs_cap ? w->rgs_cap * 2 : 4;
        hoodie_pq_row_group *n = realloc(w->rgs, ncap * sizeof *n);
        if (!n) return HOODIE_NOMEM();
        w->rgs = n;
        w->rgs_cap = ncap;
    }
    hoodie_pq_row_group *rg = &w->rgs[w->n_rgs];
    memset(rg, 0, sizeof *rg);
    rg->columns = hoodie_arena_calloc(w->arena, w->n_cols ? w->n_cols : 1, sizeof *rg->columns);
    if (!rg->columns) return HOODIE_NOMEM();
    rg->column_count = (uint32_t)w->n_cols;
    rg->num_rows = w->rg_rows;
    rg->has_file_offset = 1;
    rg->file_offset = (int64_t)w->pos;
    rg->has_ordinal = w->n_rgs < 32768;
    rg->ordinal = (int16_t)w->n_rgs;
    int64_t rg_start = (int64_t)w->pos;
    for (size_t i = 0; i < w->n_cols; i++) {
        pq_col *c = &w->cols[i];
        hoodie_pq_column_chunk *cc = &rg->columns[i];
        hoodie_pq_column_meta *m = &cc->meta;
        int64_t start = (int64_t)w->pos, unc = 0;
        cc->has_meta = 1;
        cc->file_offset = start;
        if (c->copy) {
            HOODIE_TRY(copy_chunk(w, c, cc));
            rg->total_byte_size += cc->meta.total_uncompressed_size;
            c->copy = NULL;
            col_chunk_reset(w, c);
            continue;
        }
        if (c->dict_pages) {
            hoodie_pq_page_header h;
            memset(&h, 0, sizeof h);
            hoodie_buf_clear(&w->cmp);
            HOODIE_TRY(hoodie_codec_compress(w->o.codec, w->o.level, c->dict.plain.data, c->dict.plain.len, &w->cmp));
            h.type = HOODIE_PQ_DICTIONARY_PAGE;
            h.uncompressed_size = (int32_t)c->dict.plain.len;
            h.compressed_size = (int32_t)w->cmp.len;
            h.dict.num_values = (int32_t)c->dict.count;
            h.dict.encoding = w->o.data_page_v2 ? HOODIE_PQ_PLAIN : HOODIE_PQ_PLAIN_DICTIONARY;
            hoodie_buf_clear(&w->hdr);
            HOODIE_TRY(hoodie_pq_page_header_encode(&h, &w->hdr));
            m->has_dictionary_page_offset = 1;
            m->dictionary_page_offset = start;
            HOODIE_TRY(sink_write(w, w->hdr.data, w->hdr.len));
            HOODIE_TRY(sink_write(w, w->cmp.data, w->cmp.len));
            unc += (int64_t)w->hdr.len + h.uncompressed_size;
            c->enc_mask |= 1u << h.dict.encoding;
        }
        m->data_page_offset = (int64_t)w->pos;
        HOODIE_TRY(page_index_encode(w, c, cc, m->data_page_offset));
        HOODIE_TRY(sink_write(w, c->chunk.data, c->chunk.len));
        unc += c->chunk_unc;
        m->type = c->ptype;
        m->codec = w->o.codec;
        m->num_values = c->chunk_nlev;
        m->total_uncompressed_size = unc;
        m->total_compressed_size = (int64_t)w->pos - start;
        m->path_count = c->path_count;
        m->path = c->path;
        uint32_t ne = (uint32_t)__builtin_popcount(c->enc_mask);
        m->encodings = hoodie_arena_calloc(w->arena, ne ? ne : 1, sizeof *m->encodings);
        if (!m->encodings) return HOODIE_NOMEM();
        for (uint32_t b = 0; b < 32; b++)
            if (c->enc_mask & (1u << b)) m->encodings[m->encoding_count++] = (hoodie_pq_encoding)b;
        uint8_t scratch[32];
        hoodie_pqw__stats_to_thrift(c, &c->cstats, scratch, &m->statistics);
        /* copy stats bytes into the footer arena */
        hoodie_pq_statistics *s = &m->statistics;
        if (s->has_min_value) { s->min_value = hoodie_arena_memdup(w->arena, s->min_value, s->min_value_len); if (!s->min_value) return HOODIE_NOMEM(); }
        if (s->has_max_value) { s->max_value = hoodie_arena_memdup(w->arena, s->max_value, s->max_value_len); if (!s->max_value) return HOODIE_NOMEM(); }
        if (s->has_min) s->min = s->min_value;
        if (s->has_max) s->max = s->max_value;
        rg->total_byte_size += unc;
        col_chunk_reset(w, c);
    }
    rg->has_total_compressed_size = 1;
    rg->total_compressed_size = (int64_t)w->pos - rg_start;
    w->n_rgs++;
    w->rg_rows = 0;
    return HOODIE_OK;
}

/* ------------------------------------------------------------------------------------------------ API */

hoodie_status hoodie_pq_writer_open(hoodie_pq_writer **out, const hoodie_field *schema,
                                    const hoodie_pq_writer_opts *opts, hoodie_pq_sink sink)
{
    *out = NULL;
    if (!schema || schema->type.id != HOODIE_TYPE_STRUCT)
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: the schema must be a root struct");
    if (!sink.write) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: no sink");
    hoodie_pq_writer *w = calloc(1, sizeof *w);
    if (!w) return HOODIE_NOMEM();
    hoodie_status rc;
    w->sink = sink;
    if (opts) w->o = *opts;
    else hoodie_pq_writer_opts_init(&w->o);
    hoodie_pq_writer_opts *o = &w->o;
    switch (o->codec) {
    case HOODIE_PQ_UNCOMPRESSED: case HOODIE_PQ_SNAPPY: case HOODIE_PQ_GZIP: case HOODIE_PQ_ZSTD: case HOODIE_PQ_LZ4_RAW:
        break;
    default: {
        int codec = (int)o->codec;
        free(w);
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: codec %d is not supported for writing", codec);
    }
    }
    if (o->row_group_rows <= 0) o->row_group_rows = 1048576;
    if (o->row_group_bytes <= 0) o->row_group_bytes = 128LL << 20;
    if (o->page_bytes <= 0) o->page_bytes = 1LL << 20;
    if (o->page_rows <= 0) o->page_rows = 20000;
    if (o->dictionary_limit <= 0) o->dictionary_limit = 1LL << 20;
    o->kv_keys = NULL;
    o->kv_values = NULL;
    o->column_encodings = opts ? opts->column_encodings : NULL;
    HOODIE_TRY_GOTO(rc, hoodie_arena_new(&w->arena, NULL, 0), fail);
    HOODIE_TRY_GOTO(rc, hoodie_field_clone(&w->schema, schema), fail);
    w->created_by = hoodie_arena_strdup(w->arena, opts && opts->created_by ? opts->created_by : PQ_CREATED_BY);
    if (!w->created_by) { rc = HOODIE_NOMEM(); goto fail; }
    if (opts && opts->n_kv) {
        w->kv = hoodie_arena_calloc(w->arena, opts->n_kv, sizeof *w->kv);
        if (!w->kv) { rc = HOODIE_NOMEM(); goto fail; }
        for (size_t i = 0; i < opts->n_kv; i++) {
            if (!opts->kv_keys[i]) { rc = HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: NULL metadata key"); goto fail; }
            w->kv[i].key = hoodie_arena_strdup(w->arena, opts->kv_keys[i]);
            w->kv[i].value = opts->kv_values && opts->kv_values[i] ? hoodie_arena_strdup(w->arena, opts->kv_values[i])
                                                                  : NULL;
            if (!w->kv[i].key) { rc = HOODIE_NOMEM(); goto fail; }
        }
        w->n_kv = (uint32_t)opts->n_kv;
    }
    /* schema: root then columns */
    {
        hoodie_pq_schema_element *root = schema_push(w, opts && opts->root_name ? opts->root_name : "schema", -1);
        if (!root) { rc = HOODIE_NOMEM(); goto fail; }
        root->num_children = (int32_t)schema->n_children;
        if (schema->n_children == 0) { rc = HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: the schema has no columns"); goto fail; }
        schema_ctx sc;
        memset(&sc, 0, sizeof sc);
        for (size_t i = 0; i < schema->n_children; i++) {
            const hoodie_field *f = &schema->children[i];
            sc.top = (int)i;
            HOODIE_TRY_GOTO(rc, schema_walk(w, &sc, f, f->name, f->nullable ? HOODIE_PQ_OPTIONAL : HOODIE_PQ_REQUIRED,
                                            (uint16_t)i), fail);
        }
    }
    /* top-level column index of each leaf: path[0] order matches children order; remember via steps */
    for (size_t i = 0; i < w->n_cols; i++) col_chunk_reset(w, &w->cols[i]);
    HOODIE_TRY_GOTO(rc, sink_write(w, "PAR1", 4), fail);
    *out = w;
    return HOODIE_OK;
fail:
    w->closed = 1;
    hoodie_pq_writer_free(w);
    return rc;
}

static hoodie_status check_array(const hoodie_field *f, const hoodie_array *a, int64_t len)
{
    if (a->length < len) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: column '%s' has %lld rows, wanted %lld",
                                            f->name, (long long)a->length, (long long)len);
    if (f->n_children != a->n_children)
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: column '%s' does not match the schema", f->name);
    switch (f->type.id) {
    case HOODIE_TYPE_STRUCT:
        for (size_t i = 0; i < f->n_children; i++) HOODIE_TRY(check_array(&f->children[i], &a->children[i], len));
        break;
    case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP:
        if (!a->offsets && len) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: list '%s' has no offsets", f->name);
        if (len) HOODIE_TRY(check_array(&f->children[0], &a->children[0], a->offsets[len]));
        break;
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY:
        if (!a->offsets && len) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: column '%s' has no offsets", f->name);
        break;
    default:
        break;
    }
    return HOODIE_OK;
}

/* Whether top-level column `top` is a constant (hoodie_pq_writer_set_constant): its arrays are not read. */
static int top_const(const hoodie_pq_writer *w, size_t top)
{
    for (size_t l = 0; l < w->n_cols; l++)
        if (w->cols[l].top == (int)top) return w->cols[l].is_const;
    return 0;
}

hoodie_status hoodie_pq_writer_write_array(hoodie_pq_writer *w, const hoodie_array *root)
{
    return hoodie_pq_writer_write_selected(w, root, NULL);
}

hoodie_status hoodie_pq_writer_write_selected(hoodie_pq_writer *w, const hoodie_array *root, const int64_t *const *sel)
{
    if (w->poisoned || w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: not writable (failed or closed)");
    if (root->n_children != w->schema.n_children)
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: batch has %zu columns, schema has %zu", root->n_children,
                           w->schema.n_children);
    int64_t rows = root->length;
    for (size_t i = 0; i < root->n_children; i++) {
        if (top_const(w, i)) continue; /* not read */
        const int64_t *si = sel ? sel[i] : NULL;
        int64_t need = rows;
        if (si) { /* the rows selected must be the column's */
            need = 0;
            for (int64_t r = 0; r < rows; r++) {
                if (si[r] < 0) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: column '%s': row %lld selected",
                                                   w->schema.children[i].name, (long long)si[r]);
                if (si[r] >= need) need = si[r] + 1;
            }
        }
        HOODIE_TRY(check_array(&w->schema.children[i], &root->children[i], need));
    }
    hoodie_status rc = HOODIE_OK;
    int64_t r = 0;
    while (r < rows) {
        int64_t n = rows - r;
        if (n > PQ_SLICE_ROWS) n = PQ_SLICE_ROWS;
        if (n > w->o.row_group_rows - w->rg_rows) n = w->o.row_group_rows - w->rg_rows;
        for (size_t i = 0; i < w->n_cols; i++) {
            pq_col *c = &w->cols[i];
            const hoodie_array *top = &root->children[c->top];
            const hoodie_array *leaf = leaf_array(c, top);
            HOODIE_TRY_GOTO(rc, slice_col(c, &top, &leaf, 1, r, r + n, sel ? sel[c->top] : NULL), fail);
            HOODIE_TRY_GOTO(rc, col_consume(w, c), fail);
        }
        r += n;
        w->rg_rows += n;
        w->rows_total += n;
        if (w->rg_rows >= w->o.row_group_rows || rg_estimate(w) >= w->o.row_group_bytes)
            HOODIE_TRY_GOTO(rc, flush_row_group(w), fail);
    }
    return HOODIE_OK;
fail:
    w->poisoned = 1;
    return rc;
}

size_t hoodie_pq_writer_leaf_count(const hoodie_pq_writer *w) { return w->n_cols; }
int hoodie_pq_writer_leaf_top(const hoodie_pq_writer *w, size_t leaf) { return leaf < w->n_cols ? w->cols[leaf].top : -1; }

static int same_type(const hoodie_type *a, const hoodie_type *b)
{
    return a->id == b->id && a->width == b->width && a->precision == b->precision && a->scale == b->scale &&
           a->unit == b->unit && a->utc == b->utc && a->ext == b->ext;
}

int hoodie_pq_writer_can_copy(const hoodie_pq_writer *w, size_t leaf, const hoodie_pq_leaf *src)
{
    if (leaf >= w->n_cols || !src || !src->el) return 0;
    const pq_col *c = &w->cols[leaf];
    const hoodie_pq_schema_element *e = &w->elems[c->elem], *se = src->el;
    if (c->max_rep || src->max_rep || c->has_list || c->max_def != src->max_def || c->always_null) return 0;
    for (size_t i = 0; i < w->n_cols; i++) /* the only leaf of its top-level column */
        if (i != leaf && w->cols[i].top == c->top) return 0;
    if (!se->has_type || se->type != e->type || se->num_children) return 0;
    if (e->type == HOODIE_PQ_FIXED_LEN_BYTE_ARRAY && se->type_length != e->type_length) return 0;
    if ((se->has_repetition ? se->repetition : HOODIE_PQ_REQUIRED) != e->repetition) return 0;
    /* read as the type written: the reader's and the writer's mappings then agree on the stored values (an
     * unannotated INT32 read as int32 is what int32 is written as; INT32 DATE as date32, FLBA(5) DECIMAL as a
     * decimal the writer stores as INT64 differs in physical type) */
    return same_type(&src->type, &c->htype);
}

/* Chunks to copy into a row group of `rows` rows: each of the type its leaf is written as, and of that many values. */
static hoodie_status check_copies(const hoodie_pq_writer *w, const hoodie_pq_chunk_copy *const *copies, int64_t rows)
{
    for (size_t i = 0; copies && i < w->n_cols; i++) {
        const hoodie_pq_chunk_copy *k = copies[i];
        if (!k) continue;
        const pq_col *c = &w->cols[i];
        if (!hoodie_pq_writer_can_copy(w, i, k->src_leaf))
            return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: column '%s' cannot be copied from a chunk of another "
                               "type", c->dotted);
        if (k->meta->num_values != rows || (int64_t)k->len != k->meta->total_compressed_size)
            return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: the chunk copied into column '%s' has %lld values "
                               "in %zu bytes, the row group %lld rows", c->dotted, (long long)k->meta->num_values,
                               k->len, (long long)rows);
    }
    return HOODIE_OK;
}

/* Whether top-level column `top` is copied (its leaves' chunks: one leaf each where copies are allowed). */
static int top_copied(const hoodie_pq_writer *w, const hoodie_pq_chunk_copy *const *copies, size_t top)
{
    for (size_t l = 0; copies && l < w->n_cols; l++)
        if (w->cols[l].top == (int)top && copies[l]) return 1;
    return 0;
}

hoodie_status hoodie_pq_writer_set_constant(hoodie_pq_writer *w, size_t top, const void *value, size_t len)
{
    if (w->poisoned || w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: not writable (failed or closed)");
    if (top >= w->schema.n_children)
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: no column %zu to make constant", top);
    pq_col *c = NULL;
    size_t leaves = 0;
    for (size_t l = 0; l < w->n_cols; l++)
        if (w->cols[l].top == (int)top) { c = &w->cols[l]; leaves++; }
    if (leaves != 1) c = NULL;
    if (!c || c->n_steps != 1 || c->has_list || c->conv != CV_BYTES || c->always_null)
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: column '%s' is not a flat string or binary column: it "
                           "cannot be a constant", w->schema.children[top].name);
    if (!value) { c->is_const = 0; c->cval = NULL; c->clen = 0; return HOODIE_OK; }
    if (len > INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: constant of %zu bytes", len);
    uint8_t *v = hoodie_arena_alloc(w->arena, len ? len : 1);
    if (!v) return HOODIE_NOMEM();
    if (len) memcpy(v, value, len);
    c->cval = v;
    c->clen = (uint32_t)len;
    c->is_const = 1;
    return HOODIE_OK;
}

hoodie_status hoodie_pq_writer_write_refs(hoodie_pq_writer *w, const hoodie_array *const *roots, size_t n_roots,
                                          const hoodie_row_ref *refs, int64_t rows,
                                          const hoodie_pq_chunk_copy *const *copies)
{
    if (w->poisoned || w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: not writable (failed or closed)");
    if (!n_roots || n_roots > REF_MAX_SOURCES)
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: %zu sources of rows", n_roots);
    for (size_t s = 0; s < n_roots; s++)
        if (roots[s]->n_children != w->schema.n_children)
            return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: source %zu has %zu columns, schema has %zu", s,
                               roots[s]->n_children, w->schema.n_children);
    HOODIE_TRY(check_copies(w, copies, rows));
    /* the rows as tagged positions (REF_SHIFT), and how many rows each source must have */
    int64_t *tag = malloc(((size_t)rows + 1) * sizeof *tag), *need = calloc(n_roots, sizeof *need);
    const hoodie_array **tops = malloc(2 * n_roots * sizeof *tops);
    hoodie_status rc = tag && need && tops ? HOODIE_OK : HOODIE_NOMEM();
    for (int64_t i = 0; rc == HOODIE_OK && i < rows; i++) {
        const hoodie_row_ref *f = &refs[i];
        if (f->source >= n_roots || f->row < 0 || f->row >= ((int64_t)1 << REF_SHIFT)) {
            rc = HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: row %lld: row %lld of source %u selected", (long long)i,
                             (long long)f->row, f->source);
            break;
        }
        tag[i] = (int64_t)f->source << REF_SHIFT | f->row;
        if (f->row >= need[f->source]) need[f->source] = f->row + 1;
    }
    for (size_t i = 0; rc == HOODIE_OK && i < w->schema.n_children; i++)
        for (size_t s = 0; rc == HOODIE_OK && s < n_roots && !top_copied(w, copies, i) && !top_const(w, i); s++)
            rc = check_array(&w->schema.children[i], &roots[s]->children[i], need[s]);
    free(need);
    if (rc < 0) { free(tag); free((void *)tops); return rc; }
    const hoodie_array **leaves = tops + n_roots;
    if (copies) HOODIE_TRY_GOTO(rc, flush_row_group(w), fail); /* a row group of its own */
    for (int64_t r = 0; r < rows;) {
        int64_t n = rows - r < PQ_SLICE_ROWS ? rows - r : PQ_SLICE_ROWS;
        if (!copies && n > w->o.row_group_rows - w->rg_rows) n = w->o.row_group_rows - w->rg_rows;
        for (size_t i = 0; i < w->n_cols; i++) {
            pq_col *c = &w->cols[i];
            if (copies && copies[i]) continue;
            for (size_t s = 0; s < n_roots; s++) {
                tops[s] = &roots[s]->children[c->top];
                leaves[s] = leaf_array(c, tops[s]);
            }
            HOODIE_TRY_GOTO(rc, slice_col(c, tops, leaves, n_roots, r, r + n, tag), fail);
            HOODIE_TRY_GOTO(rc, col_consume(w, c), fail);
        }
        r += n;
        w->rg_rows += n;
        w->rows_total += n;
        if (!copies && (w->rg_rows >= w->o.row_group_rows || rg_estimate(w) >= w->o.row_group_bytes))
            HOODIE_TRY_GOTO(rc, flush_row_group(w), fail);
    }
    if (copies) {
        for (size_t i = 0; i < w->n_cols; i++) w->cols[i].copy = copies[i];
        HOODIE_TRY_GOTO(rc, flush_row_group(w), fail);
    }
    free(tag);
    free((void *)tops);
    return HOODIE_OK;
fail:
    for (size_t i = 0; i < w->n_cols; i++) w->cols[i].copy = NULL;
    w->poisoned = 1;
    free(tag);
    free((void *)tops);
    return rc;
}

hoodie_status hoodie_pq_writer_write_row_group(hoodie_pq_writer *w, const hoodie_array *root,
                                               const hoodie_pq_chunk_copy *const *copies)
{
    if (w->poisoned || w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: not writable (failed or closed)");
    if (root->n_children != w->schema.n_children)
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet writer: batch has %zu columns, schema has %zu", root->n_children,
                           w->schema.n_children);
    int64_t rows = root->length;
    hoodie_status rc = HOODIE_OK;
    HOODIE_TRY(check_copies(w, copies, rows));
    for (size_t i = 0; i < root->n_children; i++)
        if (!top_copied(w, copies, i) && !top_const(w, i))
            HOODIE_TRY(check_array(&w->schema.children[i], &root->children[i], rows));
    HOODIE_TRY_GOTO(rc, flush_row_group(w), fail);
    for (int64_t r = 0; r < rows;) {
        int64_t n = rows - r < PQ_SLICE_ROWS ? rows - r : PQ_SLICE_ROWS;
        for (size_t i = 0; i < w->n_cols; i++) {
            pq_col *c = &w->cols[i];
            if (copies && copies[i]) continue;
            const hoodie_array *top = &root->children[c->top];
            const hoodie_array *leaf = leaf_array(c, top);
            HOODIE_TRY_GOTO(rc, slice_col(c, &top, &leaf, 1, r, r + n, NULL), fail);
            HOODIE_TRY_GOTO(rc, col_consume(w, c), fail);
        }
        r += n;
    }
    for (size_t i = 0; copies && i < w->n_cols; i++) w->cols[i].copy = copies[i];
    w->rg_rows += rows;
    w->rows_total += rows;
    /* an empty row group is not written: there is nothing to copy either */
    HOODIE_TRY_GOTO(rc, flush_row_group(w), fail);
    return HOODIE_OK;
fail:
    for (size_t i = 0; i < w->n_cols; i++) w->cols[i].copy = NULL;
    w->poisoned = 1;
    return rc;
}

hoodie_status hoodie_pq_writer_write(hoodie_pq_writer *w, const hoodie_batch *b)
{
    return hoodie_pq_writer_write_array(w, &b->root);
}

hoodie_status hoodie_pq_writer_flush(hoodie_pq_writer *w)
{
    if (w->poisoned || w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: not writable (failed or closed)");
    hoodie_status rc = flush_row_group(w);
    if (rc < 0) w->poisoned = 1;
    return rc;
}

hoodie_status hoodie_pq_writer_close(hoodie_pq_writer *w)
{
    if (w->poisoned || w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: not writable (failed or closed)");
    hoodie_status rc;
    HOODIE_TRY_GOTO(rc, flush_row_group(w), fail);
    /* the page index, ColumnIndexes first, then OffsetIndexes, before the footer (as parquet-mr lays it out) */
    int64_t ci_base = (int64_t)w->pos, oi_base = ci_base + (int64_t)w->col_index.len;
    for (uint32_t g = 0; g < w->n_rgs; g++)
        for (uint32_t i = 0; i < w->rgs[g].column_count; i++) {
            hoodie_pq_column_chunk *cc = &w->rgs[g].columns[i];
            if (cc->has_column_index) cc->column_index_offset += ci_base;
            if (cc->has_offset_index) cc->offset_index_offset += oi_base;
        }
    HOODIE_TRY_GOTO(rc, sink_write(w, w->col_index.data, w->col_index.len), fail);
    HOODIE_TRY_GOTO(rc, sink_write(w, w->off_index.data, w->off_index.len), fail);
    hoodie_pq_file_meta m;
    memset(&m, 0, sizeof m);
    m.version = 1;
    m.schema = w->elems;
    m.schema_count = w->n_elems;
    m.num_rows = w->rows_total;
    m.row_groups = w->rgs;
    m.row_group_count = w->n_rgs;
    m.kv = w->kv;
    m.kv_count = w->n_kv;
    m.created_by = w->created_by;
    m.column_order_count = (uint32_t)w->n_cols;
    hoodie_buf_clear(&w->tmp);
    HOODIE_TRY_GOTO(rc, hoodie_pq_file_meta_encode(&m, &w->tmp), fail);
    HOODIE_TRY_GOTO(rc, hoodie_buf_put_le32(&w->tmp, (uint32_t)w->tmp.len), fail);
    HOODIE_TRY_GOTO(rc, hoodie_buf_append(&w->tmp, "PAR1", 4), fail);
    HOODIE_TRY_GOTO(rc, sink_write(w, w->tmp.data, w->tmp.len), fail);
    w->closed = 1;
    return HOODIE_OK;
fail:
    w->poisoned = 1;
    return rc;
}

static void col_dispose(pq_col *c)
{
    free(c->sdef); free(c->srep); free(c->sidx); free(c->phys); free(c->bphys);
    free(c->pdef); free(c->prep); free(c->pidx);
    hoodie_buf_dispose(&c->pvals);
    hoodie_buf_dispose(&c->chunk);
    free(c->pi);
    hoodie_buf_dispose(&c->pi_vals);
    hoodie_buf_dispose(&c->pi_prev.bmin);
    hoodie_buf_dispose(&c->pi_prev.bmax);
    hoodie_buf_dispose(&c->pstats.bmin); hoodie_buf_dispose(&c->pstats.bmax);
    hoodie_buf_dispose(&c->cstats.bmin); hoodie_buf_dispose(&c->cstats.bmax);
    dict_dispose(&c->dict);
    free(c->dict_seen);
}

void hoodie_pq_writer_free(hoodie_pq_writer *w)
{
    if (!w) return;
    for (size_t i = 0; i < w->n_cols; i++) col_dispose(&w->cols[i]);
    free(w->cols);
    free(w->elems);
    free(w->rgs);
    hoodie_field_dispose(&w->schema);
    hoodie_arena_free(w->arena);
    hoodie_buf_dispose(&w->tmp); hoodie_buf_dispose(&w->cmp); hoodie_buf_dispose(&w->hdr);
    hoodie_buf_dispose(&w->lv); hoodie_buf_dispose(&w->vals);
    hoodie_buf_dispose(&w->col_index); hoodie_buf_dispose(&w->off_index);
    free(w);
}

uint64_t hoodie_pq_writer_offset(const hoodie_pq_writer *w) { return w->pos; }

uint64_t hoodie_pq_writer_buffered(const hoodie_pq_writer *w)
{
    uint64_t t = 0;
    for (size_t i = 0; i < w->n_cols; i++) {
        const pq_col *c = &w->cols[i];
        t += c->chunk.len + page_estimate(c) + c->dict.plain.len;
    }
    return t;
}
int64_t hoodie_pq_writer_rows(const hoodie_pq_writer *w) { return w->rows_total; }

const hoodie_pq_schema_element *hoodie_pq_writer_schema(const hoodie_pq_writer *w, uint32_t *count)
{
    *count = w->n_elems;
    return w->elems;
}

hoodie_status hoodie_pq_writer_set_kv(hoodie_pq_writer *w, const char *key, const char *value)
{
    if (w->closed || w->poisoned) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: metadata after close or failure");
    char *v = value ? hoodie_arena_strdup(w->arena, value) : NULL;
    if (value && !v) return HOODIE_NOMEM();
    for (uint32_t i = 0; i < w->n_kv; i++)
        if (!strcmp(w->kv[i].key, key)) { w->kv[i].value = v; return HOODIE_OK; }
    hoodie_pq_kv *nk = hoodie_arena_calloc(w->arena, (size_t)w->n_kv + 1, sizeof *nk);
    char *k = hoodie_arena_strdup(w->arena, key);
    if (!nk || !k) return HOODIE_NOMEM();
    if (w->n_kv) memcpy(nk, w->kv, w->n_kv * sizeof *nk);
    nk[w->n_kv].key = k;
    nk[w->n_kv].value = v;
    w->kv = nk;
    w->n_kv++;
    return HOODIE_OK;
}
