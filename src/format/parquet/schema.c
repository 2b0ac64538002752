#include "format/parquet/schema.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NESTING 64

typedef struct sbuild {
    const hoodie_pq_file_meta *m;
    const char *what;
    uint32_t i;              /* next element */
    size_t n_leaves, cap_leaves;
    hoodie_pq_leaf *leaves;
    char path[4096];
    size_t path_len;
} sbuild;

const char *hoodie_pq_type_name(hoodie_pq_type t)
{
    static const char *n[] = { "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
                               "FIXED_LEN_BYTE_ARRAY" };
    return (unsigned)t < 8 ? n[t] : "UNKNOWN";
}

const char *hoodie_pq_encoding_name(hoodie_pq_encoding e)
{
    switch (e) {
    case HOODIE_PQ_PLAIN: return "PLAIN";
    case HOODIE_PQ_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case HOODIE_PQ_RLE: return "RLE";
    case HOODIE_PQ_BIT_PACKED: return "BIT_PACKED";
    case HOODIE_PQ_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case HOODIE_PQ_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case HOODIE_PQ_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case HOODIE_PQ_RLE_DICTIONARY: return "RLE_DICTIONARY";
    case HOODIE_PQ_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
    }
    return "UNKNOWN";
}

static int is_list_annot(const hoodie_pq_schema_element *e)
{
    return e->logical.kind == HOODIE_PQ_LT_LIST || e->converted == HOODIE_PQ_CT_LIST;
}

static int is_map_annot(const hoodie_pq_schema_element *e)
{
    return e->logical.kind == HOODIE_PQ_LT_MAP || e->converted == HOODIE_PQ_CT_MAP ||
           e->converted == HOODIE_PQ_CT_MAP_KEY_VALUE;
}

static hoodie_type leaf_type(const hoodie_pq_schema_element *e)
{
    hoodie_type t = hoodie_type_of(HOODIE_TYPE_NULL);
    const hoodie_pq_logical_type *lt = &e->logical;
    hoodie_pq_converted ct = e->converted;
    switch (e->type) {
    case HOODIE_PQ_BOOLEAN: t.id = HOODIE_TYPE_BOOL; break;
    case HOODIE_PQ_INT32:
        t.id = HOODIE_TYPE_INT32;
        if (lt->kind == HOODIE_PQ_LT_INTEGER) {
            int s = lt->int_signed;
            switch (lt->int_bit_width) {
            case 8: t.id = s ? HOODIE_TYPE_INT8 : HOODIE_TYPE_UINT8; break;
            case 16: t.id = s ? HOODIE_TYPE_INT16 : HOODIE_TYPE_UINT16; break;
            default: t.id = s ? HOODIE_TYPE_INT32 : HOODIE_TYPE_UINT32; break;
            }
        } else if (lt->kind == HOODIE_PQ_LT_DATE || (lt->kind == HOODIE_PQ_LT_NONE && ct == HOODIE_PQ_CT_DATE)) {
            t.id = HOODIE_TYPE_DATE32;
        } else if (lt->kind == HOODIE_PQ_LT_TIME || (lt->kind == HOODIE_PQ_LT_NONE && ct == HOODIE_PQ_CT_TIME_MILLIS)) {
            t.id = HOODIE_TYPE_TIME32;
            t.unit = HOODIE_UNIT_MILLI;
            t.utc = lt->kind == HOODIE_PQ_LT_TIME ? lt->is_adjusted_to_utc : 1;
        } else if (lt->kind == HOODIE_PQ_LT_NONE) {
            switch (ct) {
            case HOODIE_PQ_CT_INT_8: t.id = HOODIE_TYPE_INT8; break;
            case HOODIE_PQ_CT_INT_16: t.id = HOODIE_TYPE_INT16; break;
            case HOODIE_PQ_CT_UINT_8: t.id = HOODIE_TYPE_UINT8; break;
            case HOODIE_PQ_CT_UINT_16: t.id = HOODIE_TYPE_UINT16; break;
            case HOODIE_PQ_CT_UINT_32: t.id = HOODIE_TYPE_UINT32; break;
            default: break;
            }
        }
        break;
    case HOODIE_PQ_INT64:
        t.id = HOODIE_TYPE_INT64;
        if (lt->kind == HOODIE_PQ_LT_INTEGER) {
            t.id = lt->int_signed ? HOODIE_TYPE_INT64 : HOODIE_TYPE_UINT64;
        } else if (lt->kind == HOODIE_PQ_LT_TIMESTAMP) {
            t.id = HOODIE_TYPE_TIMESTAMP;
            t.unit = lt->unit == HOODIE_PQ_MILLIS ? HOODIE_UNIT_MILLI
                   : lt->unit == HOODIE_PQ_NANOS ? HOODIE_UNIT_NANO : HOODIE_UNIT_MICRO;
            t.utc = lt->is_adjusted_to_utc;
        } else if (lt->kind == HOODIE_PQ_LT_TIME) {
            t.id = HOODIE_TYPE_TIME64;
            t.unit = lt->unit == HOODIE_PQ_NANOS ? HOODIE_UNIT_NANO : HOODIE_UNIT_MICRO;
            t.utc = lt->is_adjusted_to_utc;
        } else if (lt->kind == HOODIE_PQ_LT_NONE) {
            switch (ct) {
            case HOODIE_PQ_CT_UINT_64: t.id = HOODIE_TYPE_UINT64; break;
            case HOODIE_PQ_CT_TIMESTAMP_MILLIS: t.id = HOODIE_TYPE_TIMESTAMP; t.unit = HOODIE_UNIT_MILLI; t.utc = 1; break;
            case HOODIE_PQ_CT_TIMESTAMP_MICROS: t.id = HOODIE_TYPE_TIMESTAMP; t.unit = HOODIE_UNIT_MICRO; t.utc = 1; break;
            case HOODIE_PQ_CT_TIME_MICROS: t.id = HOODIE_TYPE_TIME64; t.unit = HOODIE_UNIT_MICRO; t.utc = 1; break;
            default: break;
            }
        }
        break;
    case HOODIE_PQ_INT96:
        t.id = HOODIE_TYPE_TIMESTAMP;
        t.unit = HOODIE_UNIT_NANO;
        t.utc = 1;
        t.ext = HOODIE_EXT_INT96;
        break;
    case HOODIE_PQ_FLOAT: t.id = HOODIE_TYPE_FLOAT; break;
    case HOODIE_PQ_DOUBLE: t.id = HOODIE_TYPE_DOUBLE; break;
    case HOODIE_PQ_BYTE_ARRAY:
        t.id = HOODIE_TYPE_BINARY;
        if (lt->kind == HOODIE_PQ_LT_STRING || (lt->kind == HOODIE_PQ_LT_NONE && ct == HOODIE_PQ_CT_UTF8)) {
            t.id = HOODIE_TYPE_STRING;
        } else if (lt->kind == HOODIE_PQ_LT_ENUM || (lt->kind == HOODIE_PQ_LT_NONE && ct == HOODIE_PQ_CT_ENUM)) {
            t.id = HOODIE_TYPE_STRING;
            t.ext = HOODIE_EXT_ENUM;
        } else if (lt->kind == HOODIE_PQ_LT_JSON || (lt->kind == HOODIE_PQ_LT_NONE && ct == HOODIE_PQ_CT_JSON)) {
            t.id = HOODIE_TYPE_STRING;
            t.ext = HOODIE_EXT_JSON;
        } else if (lt->kind == HOODIE_PQ_LT_BSON || (lt->kind == HOODIE_PQ_LT_NONE && ct == HOODIE_PQ_CT_BSON)) {
            t.ext = HOODIE_EXT_BSON;
        }
        break;
    case HOODIE_PQ_FIXED_LEN_BYTE_ARRAY:
        t.id = HOODIE_TYPE_FIXED_BINARY;
        t.width = e->type_length;
        if (lt->kind == HOODIE_PQ_LT_UUID && e->type_length == 16) t.ext = HOODIE_EXT_UUID;
        else if (lt->kind == HOODIE_PQ_LT_FLOAT16 && e->type_length == 2) t.id = HOODIE_TYPE_FLOAT16;
        break;
    }
    /* DECIMAL on any of its physical types. */
    int is_dec = lt->kind == HOODIE_PQ_LT_DECIMAL || (lt->kind == HOODIE_PQ_LT_NONE && ct == HOODIE_PQ_CT_DECIMAL);
    if (is_dec && (e->type == HOODIE_PQ_INT32 || e->type == HOODIE_PQ_INT64 || e->type == HOODIE_PQ_BYTE_ARRAY ||
                   (e->type == HOODIE_PQ_FIXED_LEN_BYTE_ARRAY && e->type_length <= 16))) {
        int32_t p = lt->kind == HOODIE_PQ_LT_DECIMAL ? lt->decimal_precision : e->precision;
        int32_t s = lt->kind == HOODIE_PQ_LT_DECIMAL ? lt->decimal_scale : e->scale;
        if (p > 0 && p <= 38 && s >= 0 && s <= p) {
            t = hoodie_type_of(HOODIE_TYPE_DECIMAL);
            t.precision = p;
            t.scale = s;
        }
    }
    return t;
}

static hoodie_status set_name(hoodie_field *f, const char *name)
{
    f->name = strdup(name ? name : "");
    f->field_id = -1;
    return f->name ? HOODIE_OK : HOODIE_NOMEM();
}

static hoodie_status alloc_children(hoodie_field *f, hoodie_pq_node *n, size_t count)
{
    f->children = calloc(count ? count : 1, sizeof *f->children);
    n->children = calloc(count ? count : 1, sizeof *n->children);
    if (!f->children || !n->children) return HOODIE_NOMEM();
    f->n_children = n->n_children = count;
    return HOODIE_OK;
}

static hoodie_status path_push(sbuild *b, const char *name, size_t *saved)
{
    size_t l = strlen(name);
    *saved = b->path_len;
    if (b->path_len + l + 2 > sizeof b->path)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: schema path too long", b->what);
    if (b->path_len) b->path[b->path_len++] = '.';
    memcpy(b->path + b->path_len, name, l + 1);
    b->path_len += l;
    return HOODIE_OK;
}

static hoodie_status build_node(sbuild *b, int depth, int16_t rep, int16_t def_slot, int16_t def_base,
                                int as_required, hoodie_field *f, hoodie_pq_node *n);

/* Skip the subtree at b->i (used nowhere on the success path; kept for symmetry). */
static hoodie_status build_children(sbuild *b, int depth, const hoodie_pq_schema_element *e, int16_t rep,
                                    int16_t def_slot, int16_t def_base, hoodie_field *f, hoodie_pq_node *n)
{
    if ((uint32_t)e->num_children > b->m->schema_count - b->i)
        return HOODIE_CORRUPT("%s: '%s' claims %d children, only %u schema elements follow", b->what, e->name,
                              (int)e->num_children, b->m->schema_count - b->i);
    HOODIE_TRY(alloc_children(f, n, (size_t)e->num_children));
    for (int32_t k = 0; k < e->num_children; k++)
        HOODIE_TRY(build_node(b, depth + 1, rep, def_slot, def_base, 0, &f->children[k], &n->children[k]));
    return HOODIE_OK;
}

static const hoodie_pq_schema_element *peek(sbuild *b, uint32_t i)
{
    return i < b->m->schema_count ? &b->m->schema[i] : NULL;
}

/* Build a LIST node whose repeated child starts at b->i; f/n are the list (already named). */
static hoodie_status build_list(sbuild *b, int depth, const hoodie_pq_schema_element *le, int16_t rep,
                                int16_t def_valid, hoodie_field *f, hoodie_pq_node *n)
{
    const hoodie_pq_schema_element *c = peek(b, b->i);
    int16_t erep = (int16_t)(rep + 1), edef = (int16_t)(def_valid + 1);
    size_t saved;
    f->type = hoodie_type_of(HOODIE_TYPE_LIST);
    n->kind = HOODIE_PQ_NODE_LIST;
    HOODIE_TRY(alloc_children(f, n, 1));
    if (!c || !c->has_repetition || c->repetition != HOODIE_PQ_REPEATED)
        return HOODIE_CORRUPT("%s: LIST '%s' whose child is not repeated", b->what, le->name);
    int elem_is_child = c->num_children == 0 || c->num_children > 1 || !strcmp(c->name, "array");
    if (!elem_is_child) {
        char tuple[512];
        snprintf(tuple, sizeof tuple, "%s_tuple", le->name);
        if (!strcmp(c->name, tuple)) elem_is_child = 1;
    }
    if (elem_is_child) {
        /* Legacy 2-level list: the repeated field is the (required) element. */
        HOODIE_TRY(build_node(b, depth + 1, erep, edef, edef, 1, &f->children[0], &n->children[0]));
        return HOODIE_OK;
    }
    /* Standard 3-level list: repeated group with one child, the element. */
    b->i++;
    HOODIE_TRY(path_push(b, c->name, &saved));
    hoodie_status rc = build_node(b, depth + 2, erep, edef, edef, 0, &f->children[0], &n->children[0]);
    b->path_len = saved;
    b->path[saved] = 0;
    return rc;
}

static hoodie_status build_map(sbuild *b, int depth, const hoodie_pq_schema_element *me, int16_t rep,
                               int16_t def_valid, hoodie_field *f, hoodie_pq_node *n)
{
    const hoodie_pq_schema_element *kv = peek(b, b->i);
    int16_t erep = (int16_t)(rep + 1), edef = (int16_t)(def_valid + 1);
    size_t saved;
    f->type = hoodie_type_of(HOODIE_TYPE_MAP);
    n->kind = HOODIE_PQ_NODE_MAP;
    HOODIE_TRY(alloc_children(f, n, 1));
    b->i++;
    hoodie_field *ef = &f->children[0];
    hoodie_pq_node *en = &n->children[0];
    HOODIE_TRY(set_name(ef, "entries"));
    ef->type = hoodie_type_of(HOODIE_TYPE_STRUCT);
    en->kind = HOODIE_PQ_NODE_STRUCT;
    en->rep = erep;
    en->def_slot = en->def_valid = edef;
    HOODIE_TRY(path_push(b, kv->name, &saved));
    hoodie_status rc = build_children(b, depth + 1, kv, erep, edef, edef, ef, en);
    b->path_len = saved;
    b->path[saved] = 0;
    HOODIE_TRY(rc);
    if (ef->n_children == 2) {
        free(ef->children[0].name);
        ef->children[0].name = strdup("key");
        free(ef->children[1].name);
        ef->children[1].name = strdup("value");
        if (!ef->children[0].name || !ef->children[1].name) return HOODIE_NOMEM();
        ef->children[0].nullable = 0;
    }
    (void)me;
    return HOODIE_OK;
}

static hoodie_status build_node(sbuild *b, int depth, int16_t rep, int16_t def_slot, int16_t def_base,
                                int as_required, hoodie_field *f, hoodie_pq_node *n)
{
    const hoodie_pq_schema_element *e = peek(b, b->i);
    size_t saved;
    if (!e) return HOODIE_CORRUPT("%s: schema ends early (num_children exceeds the element list)", b->what);
    if (depth > MAX_NESTING) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: schema nested deeper than %d", b->what, MAX_NESTING);
    b->i++;
    HOODIE_TRY(set_name(f, e->name));
    if (e->has_field_id) f->field_id = e->field_id;
    n->leaf = -1;
    HOODIE_TRY(path_push(b, e->name, &saved));
    hoodie_status rc = HOODIE_OK;
    int repeated = !as_required && e->has_repetition && e->repetition == HOODIE_PQ_REPEATED;
    int optional = !as_required && e->has_repetition && e->repetition == HOODIE_PQ_OPTIONAL;

    if (repeated) {
        /* A repeated field without a LIST annotation: a non-null list of required elements. */
        f->type = hoodie_type_of(HOODIE_TYPE_LIST);
        f->nullable = 0;
        n->kind = HOODIE_PQ_NODE_LIST;
        n->rep = rep;
        n->def_slot = def_slot;
        n->def_valid = def_base;
        HOODIE_TRY_GOTO(rc, alloc_children(f, n, 1), out);
        b->i--; /* re-read the same element as the element */
        b->path_len = saved;
        b->path[saved] = 0;
        rc = build_node(b, depth + 1, (int16_t)(rep + 1), (int16_t)(def_base + 1), (int16_t)(def_base + 1), 1,
                        &f->children[0], &n->children[0]);
        if (rc >= 0) {
            free(f->children[0].name);
            f->children[0].name = strdup("element");
            if (!f->children[0].name) rc = HOODIE_NOMEM();
        }
        return rc;
    }

    f->nullable = optional;
    n->rep = rep;
    n->def_slot = def_slot;
    n->def_valid = (int16_t)(def_base + optional);
    if (e->num_children == 0 && e->has_type) {
        hoodie_pq_leaf *lf;
        if (b->n_leaves == b->cap_leaves) {
            size_t nc = b->cap_leaves ? b->cap_leaves * 2 : 16;
            hoodie_pq_leaf *nl = realloc(b->leaves, nc * sizeof *nl);
            if (!nl) { rc = HOODIE_NOMEM(); goto out; }
            b->leaves = nl;
            b->cap_leaves = nc;
        }
        if (e->type == HOODIE_PQ_FIXED_LEN_BYTE_ARRAY && (e->type_length <= 0 || e->type_length > (1 << 20))) {
            rc = HOODIE_CORRUPT("%s: column '%s' has FIXED_LEN_BYTE_ARRAY length %d", b->what, b->path, e->type_length);
            goto out;
        }
        lf = &b->leaves[b->n_leaves];
        memset(lf, 0, sizeof *lf);
        lf->el = e;
        lf->max_def = n->def_valid;
        lf->max_rep = rep;
        lf->type = leaf_type(e);
        lf->path = strdup(b->path);
        if (!lf->path) { rc = HOODIE_NOMEM(); goto out; }
        f->type = lf->type;
        n->kind = HOODIE_PQ_NODE_LEAF;
        n->leaf = (int)b->n_leaves++;
    } else if (e->num_children == 0) {
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: group '%s' has no children", b->what, b->path);
    } else if (is_list_annot(e) && e->num_children == 1) {
        rc = build_list(b, depth, e, rep, n->def_valid, f, n);
    } else if (is_map_annot(e) && e->num_children == 1 && peek(b, b->i) && peek(b, b->i)->num_children == 2 &&
               peek(b, b->i)->repetition == HOODIE_PQ_REPEATED) {
        rc = build_map(b, depth, e, rep, n->def_valid, f, n);
    } else {
        f->type = hoodie_type_of(HOODIE_TYPE_STRUCT);
        n->kind = HOODIE_PQ_NODE_STRUCT;
        rc = build_children(b, depth, e, rep, def_slot, n->def_valid, f, n);
    }
out:
    b->path_len = saved;
    b->path[saved] = 0;
    return rc;
}

static void set_first_leaf(hoodie_pq_node *n)
{
    if (n->kind == HOODIE_PQ_NODE_LEAF) return;
    n->leaf = -1;
    for (size_t i = 0; i < n->n_children; i++) {
        set_first_leaf(&n->children[i]);
        if (n->leaf < 0) n->leaf = n->children[i].leaf;
    }
}

void hoodie_pq_node_dispose(hoodie_pq_node *n)
{
    if (!n) return;
    for (size_t i = 0; i < n->n_children; i++) hoodie_pq_node_dispose(&n->children[i]);
    free(n->children);
    memset(n, 0, sizeof *n);
}

void hoodie_pq_schema_dispose(hoodie_pq_schema *s)
{
    if (!s) return;
    hoodie_field_dispose(&s->root);
    hoodie_pq_node_dispose(&s->node);
    for (size_t i = 0; i < s->n_leaves; i++) free(s->leaves[i].path);
    free(s->leaves);
    memset(s, 0, sizeof *s);
}

hoodie_status hoodie_pq_schema_build(hoodie_pq_schema *out, const hoodie_pq_file_meta *m, const char *what)
{
    sbuild b;
    hoodie_status rc;
    memset(out, 0, sizeof *out);
    memset(&b, 0, sizeof b);
    b.m = m;
    b.what = what ? what : "parquet";
    if (m->schema_count == 0) return HOODIE_CORRUPT("%s: empty schema", b.what);
    const hoodie_pq_schema_element *root = &m->schema[0];
    HOODIE_TRY(set_name(&out->root, "schema"));
    out->root.type = hoodie_type_of(HOODIE_TYPE_STRUCT);
    out->node.kind = HOODIE_PQ_NODE_STRUCT;
    b.i = 1;
    if ((uint32_t)(root->num_children > 0 ? root->num_children : 0) > m->schema_count - 1)
        rc = HOODIE_CORRUPT("%s: root claims %d children, only %u schema elements follow", b.what,
                            (int)root->num_children, m->schema_count - 1);
    else
        rc = alloc_children(&out->root, &out->node, (size_t)(root->num_children > 0 ? root->num_children : 0));
    for (int32_t k = 0; rc >= 0 && k < root->num_children; k++)
        rc = build_node(&b, 1, 0, 0, 0, 0, &out->root.children[k], &out->node.children[k]);
    if (rc >= 0 && b.i != m->schema_count)
        rc = HOODIE_CORRUPT("%s: schema has %u elements, the tree uses %u", b.what, m->schema_count, b.i);
    out->leaves = b.leaves;
    out->n_leaves = b.n_leaves;
    if (rc < 0) { hoodie_pq_schema_dispose(out); return rc; }
    set_first_leaf(&out->node);
    return HOODIE_OK;
}

int hoodie_pq_schema_find_leaf(const hoodie_pq_schema *s, const char *dotted_path)
{
    for (size_t i = 0; i < s->n_leaves; i++)
        if (!strcmp(s->leaves[i].path, dotted_path)) return (int)i;
    return -1;
}

/* ---- projection ---- */

typedef struct sel {
    int all;
    struct sel *kids; /* n_children of the field, or NULL */
} sel;

static void sel_free(sel *s, const hoodie_field *f)
{
    if (!s->kids) return;
    for (size_t i = 0; i < f->n_children; i++) sel_free(&s->kids[i], &f->children[i]);
    free(s->kids);
    s->kids = NULL;
}

static int sel_any(const sel *s, const hoodie_field *f)
{
    if (s->all) return 1;
    if (!s->kids) return 0;
    for (size_t i = 0; i < f->n_children; i++) if (sel_any(&s->kids[i], &f->children[i])) return 1;
    return 0;
}

static hoodie_status node_clone(hoodie_pq_node *o, const hoodie_pq_node *i)
{
    *o = *i;
    o->children = NULL;
    o->n_children = 0;
    if (!i->n_children) return HOODIE_OK;
    o->children = calloc(i->n_children, sizeof *o->children);
    if (!o->children) return HOODIE_NOMEM();
    o->n_children = i->n_children;
    for (size_t k = 0; k < i->n_children; k++) HOODIE_TRY(node_clone(&o->children[k], &i->children[k]));
    return HOODIE_OK;
}

static hoodie_status copy_pruned(const hoodie_field *fi, const hoodie_pq_node *ni, const sel *s, hoodie_field *fo,
                                 hoodie_pq_node *no)
{
    if (s->all || fi->type.id != HOODIE_TYPE_STRUCT || !s->kids) {
        HOODIE_TRY(hoodie_field_clone(fo, fi));
        return node_clone(no, ni);
    }
    size_t count = 0;
    for (size_t i = 0; i < fi->n_children; i++) if (sel_any(&s->kids[i], &fi->children[i])) count++;
    HOODIE_TRY(hoodie_field_init(fo, fi->name, fi->type, fi->nullable));
    fo->field_id = fi->field_id;
    *no = *ni;
    no->children = NULL;
    no->n_children = 0;
    HOODIE_TRY(alloc_children(fo, no, count));
    size_t k = 0;
    for (size_t i = 0; i < fi->n_children; i++) {
        if (!sel_any(&s->kids[i], &fi->children[i])) continue;
        HOODIE_TRY(copy_pruned(&fi->children[i], &ni->children[i], &s->kids[i], &fo->children[k], &no->children[k]));
        k++;
    }
    return HOODIE_OK;
}

static hoodie_status sel_mark(sel *s, const hoodie_field *f, const char *path)
{
    if (s->all) return HOODIE_OK;
    if (!*path) {
        s->all = 1;
        return HOODIE_OK;
    }
    if (f->type.id != HOODIE_TYPE_STRUCT) return HOODIE_FAIL(HOODIE_EINVAL, "'%s' is not a struct field", f->name);
    if (!s->kids) {
        s->kids = calloc(f->n_children ? f->n_children : 1, sizeof *s->kids);
        if (!s->kids) return HOODIE_NOMEM();
    }
    /* Longest child name that matches a prefix of path up to a '.' or the end. */
    int best = -1;
    size_t best_len = 0;
    for (size_t i = 0; i < f->n_children; i++) {
        size_t l = strlen(f->children[i].name);
        if (!strncmp(path, f->children[i].name, l) && (path[l] == 0 || path[l] == '.') && (best < 0 || l > best_len)) {
            best = (int)i;
            best_len = l;
        }
    }
    if (best < 0) return HOODIE_FAIL(HOODIE_EINVAL, "no column '%s' in '%s'", path, f->name);
    return sel_mark(&s->kids[best], &f->children[best], path[best_len] ? path + best_len + 1 : "");
}

hoodie_status hoodie_pq_schema_project(hoodie_field *root_out, hoodie_pq_node *node_out, const hoodie_pq_schema *in,
                                       const char *const *paths, size_t n_paths)
{
    hoodie_status rc = HOODIE_OK;
    const hoodie_field *r = &in->root;
    sel top = { 0, NULL };
    int *order = NULL;
    size_t n_order = 0;
    memset(root_out, 0, sizeof *root_out);
    memset(node_out, 0, sizeof *node_out);
    if (!paths) {
        HOODIE_TRY(copy_pruned(r, &in->node, &(sel){ 1, NULL }, root_out, node_out));
        return HOODIE_OK;
    }
    top.kids = calloc(r->n_children ? r->n_children : 1, sizeof *top.kids);
    order = calloc(r->n_children ? r->n_children : 1, sizeof *order);
    if (!top.kids || !order) { rc = HOODIE_NOMEM(); goto done; }
    for (size_t p = 0; p < n_paths; p++) {
        const char *path = paths[p];
        int best = -1;
        size_t best_len = 0;
        for (size_t i = 0; i < r->n_children; i++) {
            size_t l = strlen(r->children[i].name);
            if (!strncmp(path, r->children[i].name, l) && (path[l] == 0 || path[l] == '.') &&
                (best < 0 || l > best_len)) {
                best = (int)i;
                best_len = l;
            }
        }
        if (best < 0) { rc = HOODIE_FAIL(HOODIE_EINVAL, "no column '%s'", path); goto done; }
        int seen = 0;
        for (size_t k = 0; k < n_order; k++) if (order[k] == best) seen = 1;
        if (!seen) order[n_order++] = best;
        rc = sel_mark(&top.kids[best], &r->children[best], path[best_len] ? path + best_len + 1 : "");
        if (rc < 0) goto done;
    }
    HOODIE_TRY_GOTO(rc, hoodie_field_init(root_out, r->name, r->type, 0), done);
    *node_out = in->node;
    node_out->children = NULL;
    node_out->n_children = 0;
    HOODIE_TRY_GOTO(rc, alloc_children(root_out, node_out, n_order), done);
    for (size_t k = 0; k < n_order; k++) {
        int i = order[k];
        HOODIE_TRY_GOTO(rc, copy_pruned(&r->children[i], &in->node.children[i], &top.kids[i], &root_out->children[k],
                                        &node_out->children[k]), done);
    }
    set_first_leaf(node_out);
done:
    sel_free(&top, r);
    free(order);
    if (rc < 0) {
        hoodie_field_dispose(root_out);
        hoodie_pq_node_dispose(node_out);
    }
    return rc;
}

/* ---- text ---- */

const char *hoodie_pq_element_type_text(const hoodie_pq_schema_element *e, char *buf, size_t len)
{
    static const char *ct[] = { "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS",
                                "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32",
                                "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL" };
    static const char *units[] = { "?", "MILLIS", "MICROS", "NANOS" };
    char lt[96] = "";
    const hoodie_pq_logical_type *l = &e->logical;
    switch (l->kind) {
    case HOODIE_PQ_LT_NONE: break;
    case HOODIE_PQ_LT_STRING: snprintf(lt, sizeof lt, "STRING"); break;
    case HOODIE_PQ_LT_MAP: snprintf(lt, sizeof lt, "MAP"); break;
    case HOODIE_PQ_LT_LIST: snprintf(lt, sizeof lt, "LIST"); break;
    case HOODIE_PQ_LT_ENUM: snprintf(lt, sizeof lt, "ENUM"); break;
    case HOODIE_PQ_LT_DECIMAL: snprintf(lt, sizeof lt, "DECIMAL(%d,%d)", l->decimal_precision, l->decimal_scale); break;
    case HOODIE_PQ_LT_DATE: snprintf(lt, sizeof lt, "DATE"); break;
    case HOODIE_PQ_LT_TIME:
        snprintf(lt, sizeof lt, "TIME(%s,%s)", units[l->unit & 3], l->is_adjusted_to_utc ? "true" : "false"); break;
    case HOODIE_PQ_LT_TIMESTAMP:
        snprintf(lt, sizeof lt, "TIMESTAMP(%s,%s)", units[l->unit & 3], l->is_adjusted_to_utc ? "true" : "false"); break;
    case HOODIE_PQ_LT_INTEGER:
        snprintf(lt, sizeof lt, "INTEGER(%d,%s)", l->int_bit_width, l->int_signed ? "true" : "false"); break;
    case HOODIE_PQ_LT_UNKNOWN: snprintf(lt, sizeof lt, "UNKNOWN"); break;
    case HOODIE_PQ_LT_JSON: snprintf(lt, sizeof lt, "JSON"); break;
    case HOODIE_PQ_LT_BSON: snprintf(lt, sizeof lt, "BSON"); break;
    case HOODIE_PQ_LT_UUID: snprintf(lt, sizeof lt, "UUID"); break;
    case HOODIE_PQ_LT_FLOAT16: snprintf(lt, sizeof lt, "FLOAT16"); break;
    }
    if (!lt[0] && e->converted >= 0 && (unsigned)e->converted < sizeof ct / sizeof *ct) {
        if (e->converted == HOODIE_PQ_CT_DECIMAL) snprintf(lt, sizeof lt, "DECIMAL(%d,%d)", e->precision, e->scale);
        else snprintf(lt, sizeof lt, "%s", ct[e->converted]);
    }
    const char *phys = e->has_type && e->num_children == 0 ? hoodie_pq_type_name(e->type) : "group";
    if (e->has_type && e->type == HOODIE_PQ_FIXED_LEN_BYTE_ARRAY && e->num_children == 0)
        snprintf(buf, len, "%s(%d)%s%s", phys, e->type_length, lt[0] ? " " : "", lt);
    else
        snprintf(buf, len, "%s%s%s", phys, lt[0] ? " " : "", lt);
    return buf;
}

hoodie_status hoodie_pq_schema_text(const hoodie_pq_file_meta *m, hoodie_buf *out)
{
    /* Explicit stack of remaining children per depth (no recursion on untrusted depth). */
    int32_t stack[MAX_NESTING + 2];
    int depth = 0;
    char tb[160];
    stack[0] = 1;
    for (uint32_t i = 0; i < m->schema_count; i++) {
        while (depth > 0 && stack[depth] == 0) depth--;
        const hoodie_pq_schema_element *e = &m->schema[i];
        const char *rep = !e->has_repetition ? "" : e->repetition == HOODIE_PQ_REQUIRED ? "required "
                        : e->repetition == HOODIE_PQ_OPTIONAL ? "optional " : "repeated ";
        for (int k = 0; k < depth; k++) HOODIE_TRY(hoodie_buf_append_str(out, "  "));
        if (i == 0) HOODIE_TRY(hoodie_buf_printf(out, "message %s\n", e->name));
        else {
            HOODIE_TRY(hoodie_buf_printf(out, "%s%s %s", rep, hoodie_pq_element_type_text(e, tb, sizeof tb), e->name));
            if (e->has_field_id) HOODIE_TRY(hoodie_buf_printf(out, " = %d", e->field_id));
            HOODIE_TRY(hoodie_buf_putc(out, '\n'));
        }
        if (depth > 0) stack[depth]--;
        if (e->num_children > 0 && depth < MAX_NESTING) stack[++depth] = e->num_children;
    }
    return HOODIE_OK;
}
