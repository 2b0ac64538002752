#include "read/filter.h"
#include "model/value.h"
#include "util/buf.h"
#include "util/error.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

typedef struct lexer { const char *s, *p; hoodie_arena *a; } lexer;

static void skip_ws(lexer *l) { while (isspace((unsigned char)*l->p)) l->p++; }

static hoodie_status perr(lexer *l, const char *what)
{
    return HOODIE_FAIL(HOODIE_EINVAL, "filter: %s at position %d in \"%s\"", what, (int)(l->p - l->s), l->s);
}

static int kw(lexer *l, const char *word)
{
    size_t n = strlen(word);
    skip_ws(l);
    if (strncasecmp(l->p, word, n) == 0 && !isalnum((unsigned char)l->p[n]) && l->p[n] != '_') {
        l->p += n;
        return 1;
    }
    return 0;
}

static hoodie_status ident(lexer *l, const char **out)
{
    skip_ws(l);
    const char *start = l->p;
    if (*l->p == '"') {
        const char *end = strchr(l->p + 1, '"');
        if (!end) return perr(l, "unterminated quoted name");
        *out = hoodie_arena_strndup(l->a, l->p + 1, (size_t)(end - l->p - 1));
        l->p = end + 1;
        return *out ? HOODIE_OK : HOODIE_ENOMEM;
    }
    while (isalnum((unsigned char)*l->p) || *l->p == '_' || *l->p == '.' || *l->p == '$') l->p++;
    if (l->p == start) return perr(l, "expected a column name");
    *out = hoodie_arena_strndup(l->a, start, (size_t)(l->p - start));
    return *out ? HOODIE_OK : HOODIE_ENOMEM;
}

static hoodie_status literal(lexer *l, hoodie_literal *lit)
{
    memset(lit, 0, sizeof *lit);
    skip_ws(l);
    if (*l->p == '\'') {
        hoodie_buf b = HOODIE_BUF_INIT;
        l->p++;
        for (;;) {
            if (!*l->p) { hoodie_buf_dispose(&b); return perr(l, "unterminated string"); }
            if (*l->p == '\'') {
                if (l->p[1] == '\'') { hoodie_buf_putc(&b, '\''); l->p += 2; continue; }
                l->p++;
                break;
            }
            hoodie_buf_putc(&b, (uint8_t)*l->p++);
        }
        lit->kind = HOODIE_LIT_STRING;
        lit->text = hoodie_arena_strndup(l->a, b.data ? (const char *)b.data : "", b.len);
        lit->len = b.len;
        hoodie_buf_dispose(&b);
        return lit->text ? HOODIE_OK : HOODIE_ENOMEM;
    }
    int is_true = kw(l, "true");
    if (is_true || kw(l, "false")) {
        lit->kind = HOODIE_LIT_BOOL;
        lit->b = is_true;
        lit->text = lit->b ? "true" : "false";
        lit->len = strlen(lit->text);
        return HOODIE_OK;
    }
    if (kw(l, "null")) { lit->kind = HOODIE_LIT_NULL; lit->text = "null"; lit->len = 4; return HOODIE_OK; }
    const char *start = l->p;
    char *end;
    double d = strtod(l->p, &end);
    if (end == l->p) return perr(l, "expected a literal");
    l->p = end;
    lit->kind = HOODIE_LIT_NUMBER;
    lit->num = d;
    lit->text = hoodie_arena_strndup(l->a, start, (size_t)(end - start));
    lit->len = (size_t)(end - start);
    if (!strpbrk(lit->text, ".eE") && fabs(d) < 9.2e18) {
        lit->is_integer = 1;
        lit->i = strtoll(lit->text, NULL, 10);
    }
    return lit->text ? HOODIE_OK : HOODIE_ENOMEM;
}

hoodie_status hoodie_filter_parse(hoodie_filter *out, const char *text)
{
    memset(out, 0, sizeof *out);
    HOODIE_TRY(hoodie_arena_new(&out->arena, NULL, 4096));
    lexer l = { text, text, out->arena };
    size_t cap = 0;
    hoodie_status rc = HOODIE_OK;
    for (;;) {
        if (out->count == cap) {
            cap = cap ? cap * 2 : 4;
            hoodie_pred *n = realloc(out->preds, cap * sizeof *n);
            if (!n) { rc = HOODIE_NOMEM(); break; }
            out->preds = n;
        }
        hoodie_pred *p = &out->preds[out->count];
        memset(p, 0, sizeof *p);
        if ((rc = ident(&l, &p->column)) < 0) break;
        skip_ws(&l);
        if (kw(&l, "IS")) {
            p->op = kw(&l, "NOT") ? HOODIE_F_IS_NOT_NULL : HOODIE_F_IS_NULL;
            if (!kw(&l, "NULL")) { rc = perr(&l, "expected NULL"); break; }
        } else if (kw(&l, "IN")) {
            p->op = HOODIE_F_IN;
            skip_ws(&l);
            if (*l.p != '(') { rc = perr(&l, "expected ( after IN"); break; }
            l.p++;
            size_t vcap = 0;
            for (;;) {
                if (p->n_values == vcap) {
                    vcap = vcap ? vcap * 2 : 4;
                    hoodie_literal *nv = hoodie_arena_alloc(out->arena, vcap * sizeof *nv);
                    if (!nv) { rc = HOODIE_NOMEM(); break; }
                    if (p->n_values) memcpy(nv, p->values, p->n_values * sizeof *nv);
                    p->values = nv;
                }
                if ((rc = literal(&l, &p->values[p->n_values])) < 0) break;
                p->n_values++;
                skip_ws(&l);
                if (*l.p == ',') { l.p++; continue; }
                if (*l.p == ')') { l.p++; break; }
                rc = perr(&l, "expected , or ) in IN list");
                break;
            }
            if (rc < 0) break;
        } else {
            static const struct { const char *s; hoodie_filter_op op; } ops[] = {
                { "<=", HOODIE_F_LE }, { ">=", HOODIE_F_GE }, { "<>", HOODIE_F_NE }, { "!=", HOODIE_F_NE },
                { "==", HOODIE_F_EQ }, { "=", HOODIE_F_EQ }, { "<", HOODIE_F_LT }, { ">", HOODIE_F_GT },
            };
            size_t k;
            for (k = 0; k < sizeof ops / sizeof *ops; k++)
                if (!strncmp(l.p, ops[k].s, strlen(ops[k].s))) break;
            if (k == sizeof ops / sizeof *ops) { rc = perr(&l, "expected an operator"); break; }
            p->op = ops[k].op;
            l.p += strlen(ops[k].s);
            p->values = hoodie_arena_alloc(out->arena, sizeof *p->values);
            if (!p->values) { rc = HOODIE_NOMEM(); break; }
            p->n_values = 1;
            if ((rc = literal(&l, p->values)) < 0) break;
        }
        out->count++;
        skip_ws(&l);
        if (!*l.p) break;
        if (!kw(&l, "AND")) { rc = perr(&l, "expected AND (only conjunctions are supported)"); break; }
    }
    if (rc < 0) hoodie_filter_dispose(out);
    return rc;
}

void hoodie_filter_dispose(hoodie_filter *f)
{
    free(f->preds);
    hoodie_arena_free(f->arena);
    memset(f, 0, sizeof *f);
}

/* ---- evaluation ---- */

/* Find a column by dotted path; returns the field and, when ra is given, the array (through struct children). */
static int find_path(const hoodie_field *root, const hoodie_array *ra, const char *path, const hoodie_field **f,
                     const hoodie_array **a)
{
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return 0;
    const hoodie_field *cf = root;
    const hoodie_array *ca = ra;
    for (char *tok = buf; tok;) {
        char *dot = strchr(tok, '.');
        if (dot) *dot = 0;
        if (cf->type.id != HOODIE_TYPE_STRUCT) return 0;
        int i = hoodie_field_find(cf, tok);
        if (i < 0) return 0;
        cf = &cf->children[i];
        if (ca) ca = &ca->children[i];
        tok = dot ? dot + 1 : NULL;
    }
    *f = cf;
    if (a) *a = ca;
    return 1;
}

static int64_t int_value(const hoodie_field *f, const hoodie_array *a, int64_t r, int *is_unsigned)
{
    *is_unsigned = f->type.id == HOODIE_TYPE_UINT64;
    return hoodie_array_int_at(f, a, r);
}

static int cmp_num(double x, double y) { return (x > y) - (x < y); }

/* "Y-M-D" as days since 1970-01-01 (proleptic Gregorian); 0 if it is not three numbers so separated. */
static int date_days(const char *text, int64_t *days)
{
    int y, m, d;
    if (sscanf(text, "%d-%d-%d", &y, &m, &d) != 3) return 0;
    *days = hoodie_days_from_civil(y, (unsigned)m, (unsigned)d);
    return 1;
}

/* Compare a cell with a literal: <0, 0, >0; *ok = 0 when not comparable (type mismatch). */
static int cmp_cell(const hoodie_field *f, const hoodie_array *a, int64_t r, const hoodie_literal *lit, int *ok)
{
    *ok = 1;
    switch (f->type.id) {
    case HOODIE_TYPE_BOOL:
        if (lit->kind != HOODIE_LIT_BOOL) break;
        return hoodie_bit_get(a->values, r) - lit->b;
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_INT64:
    case HOODIE_TYPE_UINT8: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_UINT64:
    case HOODIE_TYPE_TIMESTAMP: case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: {
        if (lit->kind != HOODIE_LIT_NUMBER) break;
        int uns;
        int64_t v = int_value(f, a, r, &uns);
        if (lit->is_integer && !uns) return (v > lit->i) - (v < lit->i);
        return cmp_num(uns ? (double)(uint64_t)v : (double)v, lit->num);
    }
    case HOODIE_TYPE_DATE32: {
        int uns;
        int64_t v = int_value(f, a, r, &uns);
        if (lit->kind == HOODIE_LIT_NUMBER) return cmp_num((double)v, lit->num);
        if (lit->kind == HOODIE_LIT_STRING) {
            int64_t days;
            if (!date_days(lit->text, &days)) break;
            return (v > days) - (v < days);
        }
        break;
    }
    case HOODIE_TYPE_FLOAT: case HOODIE_TYPE_DOUBLE: {
        if (lit->kind != HOODIE_LIT_NUMBER) break;
        double v = f->type.id == HOODIE_TYPE_FLOAT ? ((const float *)a->values)[r] : ((const double *)a->values)[r];
        return cmp_num(v, lit->num);
    }
    case HOODIE_TYPE_DECIMAL: {
        if (lit->kind != HOODIE_LIT_NUMBER) break;
        const uint8_t *p = a->values + (size_t)r * 16;
        __int128 v = 0;
        for (int i = 15; i >= 0; i--) v = v * 256 + p[i];
        double dv = (double)v;
        for (int s = 0; s < f->type.scale; s++) dv /= 10;
        return cmp_num(dv, lit->num);
    }
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: {
        if (lit->kind == HOODIE_LIT_NULL || lit->kind == HOODIE_LIT_BOOL) break;
        size_t n;
        const uint8_t *p = hoodie_array_bytes_at(a, r, &n);
        size_t m = n < lit->len ? n : lit->len;
        int c = m ? memcmp(p, lit->text, m) : 0;
        if (c) return c < 0 ? -1 : 1;
        return (n > lit->len) - (n < lit->len);
    }
    default: break;
    }
    *ok = 0;
    return 0;
}

static int apply_op(hoodie_filter_op op, int c)
{
    switch (op) {
    case HOODIE_F_EQ: return c == 0;
    case HOODIE_F_NE: return c != 0;
    case HOODIE_F_LT: return c < 0;
    case HOODIE_F_LE: return c <= 0;
    case HOODIE_F_GT: return c > 0;
    case HOODIE_F_GE: return c >= 0;
    default: return 0;
    }
}

hoodie_status hoodie_filter_eval(const hoodie_filter *flt, const hoodie_batch *b, uint8_t *keep)
{
    int64_t n = b->root.length;
    memset(keep, 1, (size_t)n);
    for (size_t k = 0; k < flt->count; k++) {
        const hoodie_pred *p = &flt->preds[k];
        const hoodie_field *f;
        const hoodie_array *a;
        if (!find_path(&b->schema, &b->root, p->column, &f, &a))
            return HOODIE_FAIL(HOODIE_EINVAL, "filter: no column '%s'", p->column);
        for (int64_t r = 0; r < n; r++) {
            if (!keep[r]) continue;
            int valid = hoodie_array_is_valid(a, r);
            if (p->op == HOODIE_F_IS_NULL) { keep[r] = !valid; continue; }
            if (p->op == HOODIE_F_IS_NOT_NULL) { keep[r] = (uint8_t)valid; continue; }
            if (!valid) { keep[r] = 0; continue; }
            int pass = 0;
            for (size_t v = 0; v < p->n_values && !pass; v++) {
                int ok;
                int c = cmp_cell(f, a, r, &p->values[v], &ok);
                if (!ok) {
                    char tb[64];
                    return HOODIE_FAIL(HOODIE_EINVAL, "filter: cannot compare column '%s' (%s) with %s", p->column,
                                       hoodie_type_name(&f->type, tb, sizeof tb), p->values[v].text);
                }
                pass = p->op == HOODIE_F_IN ? c == 0 : apply_op(p->op, c);
            }
            keep[r] = (uint8_t)pass;
        }
    }
    return HOODIE_OK;
}

/* ---- partitions ---- */

/* Store integer v in a one-cell array of f's fixed-width type. */
static void put_int(const hoodie_field *f, void *cell, int64_t v)
{
    switch (hoodie_type_fixed_width(&f->type)) {
    case 1: *(int8_t *)cell = (int8_t)v; break;
    case 2: *(int16_t *)cell = (int16_t)v; break;
    case 4: *(int32_t *)cell = (int32_t)v; break;
    default: *(int64_t *)cell = v; break;
    }
}

/*
 * A partition path's text of a column of f's type read back into the one-cell array *a (its value in *cell, or in
 * the text itself for strings): 1 only when the key generator writes exactly this text for that value
 * (hoodie_value_to_key renders it back the same), so that the cell stands for the values of the partition's rows.
 */
static int text_cell(const hoodie_field *f, const char *text, hoodie_array *a, int32_t *offs, uint64_t *cell)
{
    memset(a, 0, sizeof *a);
    a->length = 1;
    *cell = 0;
    a->values = (uint8_t *)cell;
    size_t n = strlen(text);
    char *end = NULL;
    errno = 0;
    switch (f->type.id) {
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: /* the bytes themselves */
        if (n > INT32_MAX) return 0;
        offs[0] = 0;
        offs[1] = (int32_t)n;
        a->offsets = offs;
        a->values = (uint8_t *)(uintptr_t)text;
        a->values_len = n;
        return 1;
    case HOODIE_TYPE_BOOL:
        if (!strcmp(text, "true")) *(uint8_t *)cell = 1;
        else if (strcmp(text, "false")) return 0;
        break;
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_INT64:
    case HOODIE_TYPE_TIMESTAMP: case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: {
        long long v = strtoll(text, &end, 10);
        if (end == text || *end || errno) return 0;
        put_int(f, cell, v);
        break;
    }
    case HOODIE_TYPE_UINT8: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_UINT64: {
        if (text[0] == '-') return 0;
        unsigned long long v = strtoull(text, &end, 10);
        if (end == text || *end || errno) return 0;
        put_int(f, cell, (int64_t)v);
        break;
    }
    case HOODIE_TYPE_DATE32: {
        int64_t days;
        if (!date_days(text, &days) || days < INT32_MIN || days > INT32_MAX) return 0;
        *(int32_t *)cell = (int32_t)days;
        break;
    }
    case HOODIE_TYPE_FLOAT: {
        float v = strtof(text, &end);
        if (end == text || *end) return 0;
        memcpy(cell, &v, sizeof v);
        break;
    }
    case HOODIE_TYPE_DOUBLE: {
        double v = strtod(text, &end);
        if (end == text || *end) return 0;
        memcpy(cell, &v, sizeof v);
        break;
    }
    default:
        return 0; /* decimals, nested and other types: not read back */
    }
    hoodie_buf back = HOODIE_BUF_INIT;
    int same = hoodie_value_to_key(&back, f, a, 0) == HOODIE_OK && back.len == n && !memcmp(back.data, text, n);
    hoodie_buf_dispose(&back);
    return same;
}

int hoodie_pred_may_match_partition(const hoodie_pred *p, const hoodie_field *root, const char *value)
{
    const hoodie_field *f;
    if (!root || !find_path(root, NULL, p->column, &f, NULL)) return 1; /* of a type not known: no decision */
    int var = f->type.id == HOODIE_TYPE_STRING || f->type.id == HOODIE_TYPE_BINARY;
    int hive_null = !value || !strcmp(value, "__HIVE_DEFAULT_PARTITION__");
    /* "default": the null partition of writers before Hudi 0.12, or a value */
    if (p->op == HOODIE_F_IS_NULL) return hive_null || !strcmp(value, "default");
    if (p->op == HOODIE_F_IS_NOT_NULL) return !hive_null || var; /* empty strings share the null partition */
    if (hive_null && !var) return 0;
    hoodie_array a;
    int32_t offs[2];
    uint64_t cell[2];
    if (!text_cell(f, hive_null ? "" : value, &a, offs, cell)) return 1;
    for (size_t v = 0; v < p->n_values; v++) {
        int ok;
        int c = cmp_cell(f, &a, 0, &p->values[v], &ok);
        if (!ok) return 1; /* evaluation will say why */
        if (p->op == HOODIE_F_IN ? c == 0 : apply_op(p->op, c)) return 1;
    }
    return 0;
}

/* ---- as Parquet statistics predicates ---- */

/* A filter literal as a statistics value of a column of type t; 0 if it cannot be expressed. */
static int literal_to_pq(const hoodie_literal *lit, const hoodie_type *t, hoodie_pq_value *v)
{
    memset(v, 0, sizeof *v);
    switch (t->id) {
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_INT64:
    case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: case HOODIE_TYPE_TIMESTAMP: case HOODIE_TYPE_DATE32:
        if (lit->kind != HOODIE_LIT_NUMBER || !lit->is_integer) return 0;
        v->kind = HOODIE_PQ_VAL_I64;
        v->i = lit->i;
        return 1;
    case HOODIE_TYPE_UINT8: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_UINT64:
        if (lit->kind != HOODIE_LIT_NUMBER || !lit->is_integer || lit->i < 0) return 0;
        v->kind = HOODIE_PQ_VAL_U64;
        v->u = (uint64_t)lit->i;
        return 1;
    case HOODIE_TYPE_FLOAT: case HOODIE_TYPE_DOUBLE:
        if (lit->kind != HOODIE_LIT_NUMBER) return 0;
        v->kind = HOODIE_PQ_VAL_F64;
        v->d = lit->num;
        return 1;
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY:
        if (lit->kind != HOODIE_LIT_STRING) return 0;
        v->kind = HOODIE_PQ_VAL_BYTES;
        v->bytes = (const uint8_t *)lit->text;
        v->len = lit->len;
        return 1;
    case HOODIE_TYPE_BOOL:
        if (lit->kind != HOODIE_LIT_BOOL) return 0;
        v->kind = HOODIE_PQ_VAL_BOOL;
        v->i = lit->b;
        return 1;
    default:
        return 0;
    }
}

int hoodie_pred_to_pq(const hoodie_pred *p, const hoodie_type *t, hoodie_pq_value *vals, hoodie_pq_pred *out)
{
    out->values = vals;
    out->n_values = 0;
    switch (p->op) {
    case HOODIE_F_EQ: out->op = HOODIE_PQ_OP_EQ; break;
    case HOODIE_F_LT: out->op = HOODIE_PQ_OP_LT; break;
    case HOODIE_F_LE: out->op = HOODIE_PQ_OP_LE; break;
    case HOODIE_F_GT: out->op = HOODIE_PQ_OP_GT; break;
    case HOODIE_F_GE: out->op = HOODIE_PQ_OP_GE; break;
    case HOODIE_F_IN: out->op = HOODIE_PQ_OP_IN; break;
    case HOODIE_F_IS_NULL: out->op = HOODIE_PQ_OP_IS_NULL; return 1;
    case HOODIE_F_IS_NOT_NULL: out->op = HOODIE_PQ_OP_IS_NOT_NULL; return 1;
    default: return 0; /* != prunes nothing */
    }
    if (p->n_values > HOODIE_PRED_PQ_MAX) return 0;
    for (size_t v = 0; v < p->n_values; v++)
        if (!literal_to_pq(&p->values[v], t, &vals[v])) return 0;
    out->n_values = p->n_values;
    return 1;
}

int hoodie_pred_stats_usable(const hoodie_field *root, const char *column, const hoodie_type *file_type)
{
    const hoodie_field *f;
    if (!find_path(root, NULL, column, &f, NULL)) return 1;
    hoodie_type_id t = f->type.id, s = file_type->id;
    if (t == s) return t != HOODIE_TYPE_DECIMAL || f->type.scale >= file_type->scale; /* a smaller scale rounds */
    int t_num = hoodie_type_is_int(t) || t == HOODIE_TYPE_FLOAT || t == HOODIE_TYPE_DOUBLE;
    int s_num = hoodie_type_is_int(s) || s == HOODIE_TYPE_FLOAT || s == HOODIE_TYPE_DOUBLE;
    return (t_num && s_num) || (t == HOODIE_TYPE_DECIMAL && hoodie_type_is_int(s));
}
