#include "merge/record_merge.h"
#include "model/avro_schema_gen.h"
#include "model/build.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i128(int64_t ahi, uint64_t alo, int64_t bhi, uint64_t blo)
{
    if (ahi != bhi) return ahi < bhi ? -1 : 1;
    return alo < blo ? -1 : alo > blo;
}

/* Scale a decimal up by 10^k (k small); saturates on overflow, which only affects absurd comparisons. */
static void dec_scale_up(int64_t *hi, uint64_t *lo, int k)
{
    for (int i = 0; i < k; i++) {
        __int128 v = (__int128)(((unsigned __int128)(uint64_t)*hi << 64) | *lo);
        __int128 r;
        if (__builtin_mul_overflow(v, 10, &r)) r = v < 0 ? -(__int128)((~(unsigned __int128)0) >> 1) - 1 : (__int128)((~(unsigned __int128)0) >> 1);
        *hi = (int64_t)(r >> 64);
        *lo = (uint64_t)r;
    }
}

int hoodie_ordering_compare(const hoodie_ordering *a, const hoodie_ordering *b, int *comparable)
{
    *comparable = 1;
    if (a->kind == HOODIE_ORD_NONE || b->kind == HOODIE_ORD_NONE)
        return (a->kind != HOODIE_ORD_NONE) - (b->kind != HOODIE_ORD_NONE);
    if (a->kind == b->kind) {
        switch (a->kind) {
        case HOODIE_ORD_INT: return (a->i > b->i) - (a->i < b->i);
        case HOODIE_ORD_DOUBLE: return (a->d > b->d) - (a->d < b->d);
        case HOODIE_ORD_BYTES: {
            size_t n = a->len < b->len ? a->len : b->len;
            int c = n ? memcmp(a->bytes, b->bytes, n) : 0;
            if (c) return c < 0 ? -1 : 1;
            return (a->len > b->len) - (a->len < b->len);
        }
        case HOODIE_ORD_DECIMAL: {
            int64_t ahi = a->i, bhi = b->i;
            uint64_t alo = a->lo, blo = b->lo;
            if (a->scale < b->scale) dec_scale_up(&ahi, &alo, b->scale - a->scale);
            else if (b->scale < a->scale) dec_scale_up(&bhi, &blo, a->scale - b->scale);
            return cmp_i128(ahi, alo, bhi, blo);
        }
        default: break;
        }
    }
    /* mixed numeric kinds compare as doubles */
    if ((a->kind == HOODIE_ORD_INT || a->kind == HOODIE_ORD_DOUBLE) &&
        (b->kind == HOODIE_ORD_INT || b->kind == HOODIE_ORD_DOUBLE)) {
        double x = a->kind == HOODIE_ORD_INT ? (double)a->i : a->d;
        double y = b->kind == HOODIE_ORD_INT ? (double)b->i : b->d;
        return (x > y) - (x < y);
    }
    *comparable = 0;
    return 0;
}

int hoodie_ordering_is_natural(const hoodie_ordering *o)
{
    switch (o->kind) {
    case HOODIE_ORD_NONE: return 1;
    case HOODIE_ORD_INT: return o->i == 0;
    case HOODIE_ORD_DOUBLE: return o->d == 0;
    case HOODIE_ORD_DECIMAL: return o->i == 0 && o->lo == 0;
    default: return 0;
    }
}

/* Field i (0-based among the further ordering fields) of version v; NONE where v has none (a delete, a column
 * the record lacks). */
static void more_ordering(const hoodie_merge_version *v, int i, hoodie_ordering *o)
{
    memset(o, 0, sizeof *o);
    if (i >= v->n_more || !v->more_batch || v->more_cols[i] < 0) return;
    const hoodie_batch *b = v->more_batch;
    int c = v->more_cols[i];
    hoodie_ordering_of(o, &b->schema.children[c], &b->root.children[c], v->more_row);
}

int hoodie_merge_newer_wins(hoodie_merge_mode mode, const hoodie_merge_version *older,
                            const hoodie_merge_version *newer)
{
    if (mode == HOODIE_MERGE_COMMIT_TIME_ORDERING) return 1;
    if (newer->is_delete && hoodie_ordering_is_natural(&newer->ord)) return 1;
    if (older->is_delete && hoodie_ordering_is_natural(&older->ord)) return 1;
    int comparable;
    int c = hoodie_ordering_compare(&newer->ord, &older->ord, &comparable);
    /* a tie on the first field: the next ones decide, as long as both versions have them */
    int n = newer->n_more < older->n_more ? newer->n_more : older->n_more;
    for (int i = 0; comparable && c == 0 && i < n; i++) {
        hoodie_ordering a, b;
        more_ordering(newer, i, &a);
        more_ordering(older, i, &b);
        c = hoodie_ordering_compare(&a, &b, &comparable);
    }
    return !comparable || c >= 0;
}


void hoodie_ordering_of(hoodie_ordering *out, const hoodie_field *f, const hoodie_array *a, int64_t row)
{
    memset(out, 0, sizeof *out);
    if (!hoodie_array_is_valid(a, row)) return;
    switch (f->type.id) {
    case HOODIE_TYPE_BOOL: out->kind = HOODIE_ORD_INT; out->i = hoodie_bit_get(a->values, row); break;
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_INT64:
    case HOODIE_TYPE_UINT8: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_UINT64:
    case HOODIE_TYPE_DATE32: case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: case HOODIE_TYPE_TIMESTAMP:
        out->kind = HOODIE_ORD_INT;
        out->i = hoodie_array_int_at(f, a, row);
        break;
    case HOODIE_TYPE_FLOAT: out->kind = HOODIE_ORD_DOUBLE; out->d = ((const float *)a->values)[row]; break;
    case HOODIE_TYPE_DOUBLE: out->kind = HOODIE_ORD_DOUBLE; out->d = ((const double *)a->values)[row]; break;
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY:
        out->kind = HOODIE_ORD_BYTES;
        out->bytes = hoodie_array_bytes_at(a, row, &out->len);
        break;
    case HOODIE_TYPE_FIXED_BINARY:
        out->kind = HOODIE_ORD_BYTES;
        out->len = (size_t)f->type.width;
        out->bytes = a->values + (size_t)row * out->len;
        break;
    case HOODIE_TYPE_DECIMAL: {
        const uint8_t *p = a->values + (size_t)row * 16;
        uint64_t lo = 0, hi = 0;
        for (int i = 7; i >= 0; i--) { lo = lo << 8 | p[i]; hi = hi << 8 | p[8 + i]; }
        out->kind = HOODIE_ORD_DECIMAL;
        out->lo = lo;
        out->i = (int64_t)hi;
        out->scale = f->type.scale;
        break;
    }
    default: break; /* nested or null types do not order */
    }
}

void hoodie_ordering_seq(hoodie_ordering *o)
{
    if (o->kind != HOODIE_ORD_BYTES) return;
    uint64_t part[2] = { 0, 0 };
    size_t i = 0;
    for (int k = 0; k < 2; k++) {
        size_t start = i;
        for (; i < o->len && o->bytes[i] >= '0' && o->bytes[i] <= '9'; i++) {
            if (part[k] > (UINT64_MAX >> 1) / 10) return; /* beyond Java's long: left as text */
            part[k] = part[k] * 10 + (uint64_t)(o->bytes[i] - '0');
        }
        if (i == start) return;
        if (k == 0 && (i == o->len || o->bytes[i++] != '.')) return;
    }
    if (i != o->len) return;
    memset(o, 0, sizeof *o);
    o->kind = HOODIE_ORD_DECIMAL;
    o->i = (int64_t)part[0];
    o->lo = part[1];
}

hoodie_merge_policy hoodie_merge_policy_of(const hoodie_table_config *c)
{
    hoodie_merge_policy p;
    memset(&p, 0, sizeof p);
    p.seq_ordering = c->debezium == HOODIE_DEBEZIUM_MYSQL;
    p.toast_fill = c->debezium == HOODIE_DEBEZIUM_POSTGRES;
    p.partial = c->partial;
    p.unavailable = c->unavailable_value;
    p.partial_oneway = c->partial_oneway;
    p.disorder_meta = c->legacy_partial && !c->partial_oneway && c->version < 9; /* PartialUpdateAvroPayload */
    if (c->merge_mode == HOODIE_MERGE_EVENT_TIME_ORDERING) {
        p.log_fold = p.base = HOODIE_MERGE_EVENT_TIME_ORDERING;
    } else if (c->version < 8 || c->payload_fold) {
        p.log_fold = HOODIE_MERGE_EVENT_TIME_ORDERING;
        p.base = HOODIE_MERGE_COMMIT_TIME_ORDERING;
    } else {
        p.log_fold = p.base = HOODIE_MERGE_COMMIT_TIME_ORDERING;
    }
    return p;
}

hoodie_status hoodie_fill_spec_init(hoodie_fill_spec *s, const hoodie_merge_policy *pol, const hoodie_field *schema)
{
    memset(s, 0, sizeof *s);
    int fill = pol->toast_fill || pol->partial == HOODIE_PARTIAL_IGNORE_DEFAULTS ||
               (pol->partial == HOODIE_PARTIAL_FILL_UNAVAILABLE && pol->unavailable);
    if (!fill) return HOODIE_OK;
    size_t nc = schema->n_children;
    if (!(s->cols = calloc(nc + 1, 1))) return HOODIE_NOMEM();
    s->unavailable = pol->partial == HOODIE_PARTIAL_IGNORE_DEFAULTS ? NULL
                     : pol->partial == HOODIE_PARTIAL_FILL_UNAVAILABLE ? pol->unavailable
                                                                      : HOODIE_DEBEZIUM_UNAVAILABLE;
    s->unavailable_len = s->unavailable ? strlen(s->unavailable) : 0;
    for (size_t c = 0; c < nc; c++) {
        const hoodie_field *f = &schema->children[c];
        int data = strncmp(f->name, "_hoodie_", 8) != 0;
        s->cols[c] = (uint8_t)(data && (!s->unavailable || f->type.id == HOODIE_TYPE_STRING ||
                                        f->type.id == HOODIE_TYPE_BINARY));
    }
    s->both = pol->partial != HOODIE_PARTIAL_NONE && !pol->partial_oneway;
    if (pol->disorder_meta) {
        if (!(s->meta = calloc(nc + 1, 1))) { hoodie_fill_spec_dispose(s); return HOODIE_NOMEM(); }
        for (size_t c = 0; c < nc; c++)
            s->meta[c] = (uint8_t)hoodie_is_meta_field(schema->children[c].name);
    }
    return HOODIE_OK;
}

void hoodie_fill_spec_dispose(hoodie_fill_spec *s)
{
    free(s->cols);
    free(s->meta);
    s->cols = s->meta = NULL;
}

/* With `disorder`: the meta field c comes from the loser (it has one). */
static int meta_from_loser(const hoodie_fill_spec *s, const hoodie_batch *lb, int64_t lr, size_t c, int disorder)
{
    return disorder && s->meta && s->meta[c] && hoodie_array_is_valid(&lb->root.children[c], lr);
}

/* 1 if row r of b does not carry column c (s->absent_of). */
static int absent(const hoodie_fill_spec *s, const hoodie_batch *b, int64_t r, size_t c)
{
    if (!s->absent_of) return 0;
    const uint8_t *m = s->absent_of(s->absent_ctx, b, r);
    return m && m[c];
}

int hoodie_fill_lacks(const hoodie_fill_spec *s, const hoodie_batch *b, int64_t r, size_t c)
{
    if (absent(s, b, r, c)) return 1;
    if (!s->cols || !s->cols[c]) return 0;
    const hoodie_array *a = &b->root.children[c];
    if (!s->unavailable) return !hoodie_array_is_valid(a, r);
    if (!hoodie_array_is_valid(a, r)) return 0;
    size_t n;
    const uint8_t *p = hoodie_array_bytes_at(a, r, &n);
    return n == s->unavailable_len && !memcmp(p, s->unavailable, n);
}

int hoodie_fill_wanted(const hoodie_fill_spec *s, const hoodie_batch *wb, int64_t wr, const hoodie_batch *lb, int64_t lr,
                       int disorder)
{
    if (!s->cols && !s->absent_of) return 0;
    for (size_t c = 0; c < wb->schema.n_children; c++)
        if ((hoodie_fill_lacks(s, wb, wr, c) && !hoodie_fill_lacks(s, lb, lr, c)) ||
            meta_from_loser(s, lb, lr, c, disorder))
            return 1;
    return 0;
}

hoodie_status hoodie_fill_append(const hoodie_fill_spec *s, hoodie_batch *dst, const hoodie_batch *wb, int64_t wr,
                                 const hoodie_batch *lb, int64_t lr, int disorder, int skip_col, int64_t *row)
{
    if (dst->root.validity) return HOODIE_FAIL(HOODIE_EINVAL, "merge: a record batch with null rows");
    for (size_t c = 0; c < dst->schema.n_children; c++) {
        if ((int)c == skip_col) continue;
        int from_loser = hoodie_fill_lacks(s, wb, wr, c) || meta_from_loser(s, lb, lr, c, disorder);
        HOODIE_TRY(hoodie_array_append_range(&dst->root.children[c], &dst->schema.children[c],
                                             from_loser ? &lb->root.children[c] : &wb->root.children[c],
                                             from_loser ? lr : wr, 1));
    }
    *row = dst->root.length++;
    return HOODIE_OK;
}

int hoodie_fill_absent_after(const hoodie_fill_spec *s, const hoodie_batch *wb, int64_t wr, const hoodie_batch *lb,
                             int64_t lr, uint8_t *mask)
{
    int any = 0;
    for (size_t c = 0; c < wb->schema.n_children; c++) {
        mask[c] = (uint8_t)(hoodie_fill_lacks(s, wb, wr, c) && absent(s, lb, lr, c));
        any |= mask[c];
    }
    return any;
}

void hoodie_delete_marker_of(const hoodie_table_config *c, const hoodie_field *schema, hoodie_delete_marker *m)
{
    int on = c->delete_field && c->delete_marker;
    m->col = on ? hoodie_field_find(schema, c->delete_field) : -1;
    m->value = on ? c->delete_marker : NULL;
    m->len = on ? strlen(c->delete_marker) : 0;
    m->nocase = c->debezium != HOODIE_DEBEZIUM_NONE;
}

int hoodie_delete_marked(const hoodie_delete_marker *m, const hoodie_batch *b, int64_t row)
{
    if (!m || m->col < 0 || (size_t)m->col >= b->schema.n_children) return 0;
    const hoodie_field *f = &b->schema.children[m->col];
    const hoodie_array *a = &b->root.children[m->col];
    if (!hoodie_array_is_valid(a, row)) return 0;
    char text[32];
    const uint8_t *p;
    size_t n;
    switch (f->type.id) {
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: p = hoodie_array_bytes_at(a, row, &n); break;
    case HOODIE_TYPE_BOOL:
        p = (const uint8_t *)(hoodie_bit_get(a->values, row) ? "true" : "false");
        n = strlen((const char *)p);
        break;
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_INT64:
    case HOODIE_TYPE_UINT8: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_UINT32:
        n = (size_t)snprintf(text, sizeof text, "%" PRId64, hoodie_array_int_at(f, a, row));
        p = (const uint8_t *)text;
        break;
    default: return 0; /* other types never match (Java's toString() of them is not a plain marker) */
    }
    if (n != m->len) return 0;
    if (!m->nocase) return !memcmp(p, m->value, n);
    for (size_t i = 0; i < n; i++) {
        uint8_t x = p[i], y = (uint8_t)m->value[i];
        if (x >= 'A' && x <= 'Z') x = (uint8_t)(x + 32);
        if (y >= 'A' && y <= 'Z') y = (uint8_t)(y + 32);
        if (x != y) return 0;
    }
    return 1;
}
