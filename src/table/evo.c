#include "table/evo.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage.h"
#include "table/file_name.h"
#include "table/instant.h"
#include "util/buf.h"
#include "util/error.h"

/* A type of an InternalSchema: primitives are leaves; records, arrays and maps carry the ids of what they hold. */
typedef struct evo_type evo_type;
typedef struct evo_field {
    long id;
    const char *name;   /* borrowed from the version's JSON */
    evo_type *type;
} evo_field;
struct evo_type {
    enum { EVO_PRIM, EVO_RECORD, EVO_ARRAY, EVO_MAP } kind;
    size_t n;
    evo_field *fields;  /* record: n fields; array: [element]; map: [key, value] */
};

typedef struct evo_version {
    long long id;       /* version_id: the instant (yyyyMMddHHmmss[SSS]) that made it */
    json_t *json;       /* this version's object (a reference into the parsed document) */
    char *text;         /* json_dumps of it: latest_schema as Hudi writes it */
    evo_type root;
} evo_version;

typedef struct evo_pair {
    hoodie_status rc;   /* HOODIE_EUNSUPPORTED: an element, key or value added again (msg says which) */
    char *msg;
    hoodie_renames r;   /* from: dotted paths of the file's names; to: the new name of the last step */
    size_t cap;
    char **owned;       /* paths and hidden names, malloc */
    size_t n_owned, cap_owned;
} evo_pair;

struct hoodie_evo {
    json_t *doc;
    size_t n;
    evo_version *v;     /* ascending version_id */
    evo_pair *pairs;    /* n * n: [query * n + file] */
};

static void type_free(evo_type *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->fields[i].type) { type_free(t->fields[i].type); free(t->fields[i].type); }
    free(t->fields);
    t->fields = NULL;
    t->n = 0;
}

static hoodie_status type_parse(evo_type *out, json_t *j, const char *what, int depth);

static hoodie_status field_at(evo_field *f, json_t *type, long id, const char *name, const char *what, int depth)
{
    f->id = id;
    f->name = name;
    f->type = calloc(1, sizeof *f->type);
    if (!f->type) return HOODIE_NOMEM();
    return type_parse(f->type, type, what, depth + 1);
}

static hoodie_status type_parse(evo_type *out, json_t *j, const char *what, int depth)
{
    memset(out, 0, sizeof *out);
    if (depth > 64) return HOODIE_CORRUPT("%s: InternalSchema nested deeper than 64 levels", what);
    if (json_is_string(j)) return HOODIE_OK;
    const char *kind = json_is_object(j) ? json_string_value(json_object_get(j, "type")) : NULL;
    if (!kind) return HOODIE_CORRUPT("%s: an InternalSchema type is neither a name nor an object with \"type\"", what);
    if (!strcmp(kind, "record")) {
        json_t *fs = json_object_get(j, "fields");
        if (!json_is_array(fs)) return HOODIE_CORRUPT("%s: an InternalSchema record has no \"fields\" array", what);
        out->kind = EVO_RECORD;
        out->fields = calloc(json_array_size(fs) + 1, sizeof *out->fields);
        if (!out->fields) return HOODIE_NOMEM();
        for (size_t i = 0; i < json_array_size(fs); i++) {
            json_t *f = json_array_get(fs, i);
            json_t *id = json_object_get(f, "id");
            const char *name = json_string_value(json_object_get(f, "name"));
            if (!json_is_integer(id) || !name || !json_object_get(f, "type"))
                return HOODIE_CORRUPT("%s: InternalSchema field %zu lacks an integer \"id\", a \"name\" or a \"type\"",
                                      what, i);
            out->n = i + 1;
            HOODIE_TRY(field_at(&out->fields[i], json_object_get(f, "type"), (long)json_integer_value(id), name, what,
                                depth));
        }
        return HOODIE_OK;
    }
    if (!strcmp(kind, "array")) {
        json_t *id = json_object_get(j, "element-id");
        if (!json_is_integer(id) || !json_object_get(j, "element"))
            return HOODIE_CORRUPT("%s: an InternalSchema array lacks \"element-id\" or \"element\"", what);
        out->kind = EVO_ARRAY;
        if (!(out->fields = calloc(1, sizeof *out->fields))) return HOODIE_NOMEM();
        out->n = 1;
        return field_at(&out->fields[0], json_object_get(j, "element"), (long)json_integer_value(id), "element", what,
                        depth);
    }
    if (!strcmp(kind, "map")) {
        json_t *kid = json_object_get(j, "key-id"), *vid = json_object_get(j, "value-id");
        if (!json_is_integer(kid) || !json_is_integer(vid) || !json_object_get(j, "key") || !json_object_get(j, "value"))
            return HOODIE_CORRUPT("%s: an InternalSchema map lacks \"key-id\", \"key\", \"value-id\" or \"value\"", what);
        out->kind = EVO_MAP;
        if (!(out->fields = calloc(2, sizeof *out->fields))) return HOODIE_NOMEM();
        out->n = 1;
        HOODIE_TRY(field_at(&out->fields[0], json_object_get(j, "key"), (long)json_integer_value(kid), "key", what,
                            depth));
        out->n = 2;
        return field_at(&out->fields[1], json_object_get(j, "value"), (long)json_integer_value(vid), "value", what,
                        depth);
    }
    return HOODIE_CORRUPT("%s: unknown InternalSchema type \"%s\"", what, kind);
}

static const evo_field *by_id(const evo_type *t, long id)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->fields[i].id == id) return &t->fields[i];
    return NULL;
}

static const char *pair_own(evo_pair *p, char *str)
{
    if (!str) return NULL;
    if (p->n_owned == p->cap_owned) {
        size_t nc = p->cap_owned ? p->cap_owned * 2 : 8;
        char **no = realloc(p->owned, nc * sizeof *no);
        if (!no) { free(str); return NULL; }
        p->owned = no;
        p->cap_owned = nc;
    }
    return p->owned[p->n_owned++] = str;
}

static hoodie_status pair_add(evo_pair *p, const char *from, const char *to)
{
    if (!from || !to) return HOODIE_NOMEM();
    if (p->r.n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 8;
        const char **nf = realloc(p->r.from, nc * sizeof *nf);
        if (nf) p->r.from = nf;
        const char **nt = realloc(p->r.to, nc * sizeof *nt);
        if (nt) p->r.to = nt;
        if (!nf || !nt) return HOODIE_NOMEM();
        p->cap = nc;
    }
    p->r.from[p->r.n] = from;
    p->r.to[p->r.n++] = to;
    return HOODIE_OK;
}

static hoodie_status pair_field(evo_pair *p, const evo_field *ff, const evo_field *qf, const char *parent,
                                const evo_version *q, const evo_version *f);

/* "parent.name", owned by the pair (NULL: out of memory). */
static const char *pair_path(evo_pair *p, const char *parent, const char *name)
{
    size_t len = strlen(parent) + strlen(name) + 2;
    char *s = malloc(len);
    if (s) snprintf(s, len, "%s.%s", parent, name);
    return pair_own(p, s);
}

/* The renames inside a field of type ft read as qt (the field's path `path`): a record's fields matched by id, an
 * array's element ("path.element") and a map's key and value ("path.key", "path.value") by position, as Hudi
 * names them in full names; an element, key or value whose id changed (dropped and added again) is refused. */
static hoodie_status pair_type(evo_pair *p, const evo_type *ft, const evo_type *qt, const char *path,
                               const evo_version *q, const evo_version *f)
{
    if (qt->kind == EVO_RECORD && ft->kind == EVO_RECORD) {
        for (size_t i = 0; i < ft->n && p->rc == HOODIE_OK; i++)
            HOODIE_TRY(pair_field(p, &ft->fields[i], by_id(qt, ft->fields[i].id), path, q, f));
        return HOODIE_OK;
    }
    if (qt->kind != ft->kind || qt->kind == EVO_PRIM) return HOODIE_OK; /* a type change: the reader's to tell */
    for (size_t i = 0; i < ft->n && i < qt->n && p->rc == HOODIE_OK; i++) {
        const evo_field *fe = &ft->fields[i], *qe = &qt->fields[i];
        if (fe->id != qe->id) {
            char text[1400];
            snprintf(text, sizeof text, "schema on read: %s.%s was dropped and added again (id %ld, then %ld), which "
                     "is not supported (written in version %lld, read as of %lld)", path, fe->name, fe->id, qe->id,
                     f->id, q->id);
            p->rc = HOODIE_EUNSUPPORTED;
            return (p->msg = strdup(text)) ? HOODIE_OK : HOODIE_NOMEM();
        }
        const char *sub = pair_path(p, path, fe->name);
        if (!sub) return HOODIE_NOMEM();
        HOODIE_TRY(pair_type(p, fe->type, qe->type, sub, q, f));
    }
    return HOODIE_OK;
}

/* The renames of file field `ff` (its path under `parent`, a dotted path of file names; NULL at the top) read as
 * query field `qf` (NULL: the query has no field of its id): its own, then those of what it holds (pair_type). */
static hoodie_status pair_field(evo_pair *p, const evo_field *ff, const evo_field *qf, const char *parent,
                                const evo_version *q, const evo_version *f)
{
    const char *path = parent ? pair_path(p, parent, ff->name) : ff->name;
    if (!path) return HOODIE_NOMEM();
    if (!qf) {
        char hidden[64];
        snprintf(hidden, sizeof hidden, "_hoodie_evo_dropped_%ld", ff->id);
        return pair_add(p, path, pair_own(p, strdup(hidden)));
    }
    if (strcmp(qf->name, ff->name)) HOODIE_TRY(pair_add(p, path, qf->name));
    return pair_type(p, ff->type, qf->type, path, q, f);
}

static hoodie_status pair_build(evo_pair *p, const evo_version *q, const evo_version *f)
{
    for (size_t i = 0; i < f->root.n && p->rc == HOODIE_OK; i++)
        HOODIE_TRY(pair_field(p, &f->root.fields[i], by_id(&q->root, f->root.fields[i].id), NULL, q, f));
    return HOODIE_OK;
}

void hoodie_evo_free(hoodie_evo *e)
{
    if (!e) return;
    for (size_t i = 0; e->pairs && i < e->n * e->n; i++) {
        evo_pair *p = &e->pairs[i];
        for (size_t k = 0; k < p->n_owned; k++) free(p->owned[k]);
        free(p->owned);
        free(p->r.from);
        free(p->r.to);
        free(p->msg);
    }
    free(e->pairs);
    for (size_t i = 0; i < e->n; i++) {
        type_free(&e->v[i].root);
        free(e->v[i].text);
    }
    free(e->v);
    json_decref(e->doc);
    free(e);
}

static int version_cmp(const void *a, const void *b)
{
    const evo_version *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

hoodie_status hoodie_evo_parse(hoodie_evo **out, const char *json, size_t len, const char *what)
{
    *out = NULL;
    json_error_t err;
    json_t *doc = json_loadb(json, len, 0, &err);
    if (!doc) return HOODIE_CORRUPT("%s: not JSON at byte offset %d: %s", what, err.position, err.text);
    hoodie_evo *e = calloc(1, sizeof *e);
    if (!e) { json_decref(doc); return HOODIE_NOMEM(); }
    e->doc = doc;
    json_t *list = json_object_get(doc, "schemas");
    size_t n = list ? json_array_size(list) : 1;
    hoodie_status rc = HOODIE_OK;
    if (list && !json_is_array(list)) rc = HOODIE_CORRUPT("%s: \"schemas\" is not an array", what);
    else if (n == 0) rc = HOODIE_CORRUPT("%s: an InternalSchema history without versions", what);
    else if (!(e->v = calloc(n, sizeof *e->v))) rc = HOODIE_NOMEM();
    for (size_t i = 0; i < n && rc == HOODIE_OK; i++) {
        evo_version *v = &e->v[i];
        v->json = list ? json_array_get(list, i) : doc;
        json_t *id = json_object_get(v->json, "version_id");
        e->n = i + 1;
        if (!json_is_integer(id)) {
            rc = HOODIE_CORRUPT("%s: InternalSchema %zu has no integer \"version_id\"", what, i);
            break;
        }
        v->id = (long long)json_integer_value(id);
        if ((rc = type_parse(&v->root, v->json, what, 0)) < 0) break;
        if (v->root.kind != EVO_RECORD) rc = HOODIE_CORRUPT("%s: InternalSchema %zu is not a record", what, i);
        else if (!(v->text = json_dumps(v->json, JSON_COMPACT | JSON_PRESERVE_ORDER))) rc = HOODIE_NOMEM();
    }
    if (rc == HOODIE_OK) {
        qsort(e->v, e->n, sizeof *e->v, version_cmp);
        for (size_t i = 1; i < e->n && rc == HOODIE_OK; i++)
            if (e->v[i].id == e->v[i - 1].id) rc = HOODIE_CORRUPT("%s: two InternalSchemas of version %lld", what, e->v[i].id);
    }
    if (rc == HOODIE_OK && !(e->pairs = calloc(e->n * e->n, sizeof *e->pairs))) rc = HOODIE_NOMEM();
    for (size_t q = 0; q < e->n && rc == HOODIE_OK; q++)
        for (size_t f = 0; f < e->n && rc == HOODIE_OK; f++)
            if (f != q) rc = pair_build(&e->pairs[q * e->n + f], &e->v[q], &e->v[f]);
    if (rc < 0) { hoodie_evo_free(e); return rc; }
    *out = e;
    return HOODIE_OK;
}

/* Index of the newest version made at or before instant t (digits; NULL: the newest); the oldest if none is. */
static size_t version_at(const hoodie_evo *e, const char *t)
{
    if (!t) return e->n - 1;
    long long v = strtoll(t, NULL, 10);
    size_t k = 0;
    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].id <= v) k = i;
    return k;
}

hoodie_status hoodie_evo_renames(const hoodie_evo *e, const char *as_of, const char *instant, const hoodie_renames **out)
{
    *out = NULL;
    if (!e || !instant) return HOODIE_OK;
    size_t q = version_at(e, as_of), f = version_at(e, instant);
    if (q == f) return HOODIE_OK;
    const evo_pair *p = &e->pairs[q * e->n + f];
    if (p->rc < 0) return HOODIE_FAIL(p->rc, "%s (a file of instant %s)", p->msg, instant);
    if (p->r.n) *out = &p->r;
    return HOODIE_OK;
}

const char *hoodie_evo_latest_json(const hoodie_evo *e, const char *as_of)
{
    return e ? e->v[version_at(e, as_of)].text : NULL;
}

size_t hoodie_evo_count(const hoodie_evo *e) { return e ? e->n : 0; }

/* ---- .hoodie/.schema ---- */

/* The history folder, .hoodie/.schema, into *dir (then NUL-terminated; appended to). */
static hoodie_status schema_dir(hoodie_buf *dir, const char *base_path)
{
    return hoodie_buf_printf(dir, "%s/.hoodie/.schema", base_path) < 0 ? HOODIE_NOMEM() : HOODIE_OK;
}

/* 1 and the instant of a history file <instant>.schemacommit into t[64]; 0 for any other entry. */
static int hist_instant(const hoodie_dirent *d, char t[64])
{
    const char *dot = strchr(d->name, '.');
    if (d->is_dir || !dot || strcmp(dot, ".schemacommit")) return 0;
    size_t n = (size_t)(dot - d->name);
    if (n == 0 || n >= 64) return 0;
    memcpy(t, d->name, n);
    t[n] = '\0';
    return 1;
}

typedef struct hist_pick {
    const hoodie_timeline *tl;
    char best[64];
} hist_pick;

static int on_hist(const hoodie_dirent *d, void *payload)
{
    hist_pick *h = payload;
    char t[64];
    if (!hist_instant(d, t)) return 0;
    /* a write that did not complete (in flight, rolled back) left a history that may not hold; an archived one
     * (older than the active timeline) did complete */
    if (!hoodie_timeline_is_completed(h->tl, t, HOODIE_ACTIONS_WRITE) && !hoodie_timeline_before_start(h->tl, t))
        return 0;
    if (strcmp(t, h->best) > 0) snprintf(h->best, sizeof h->best, "%s", t);
    return 0;
}

hoodie_status hoodie_evo_load(hoodie_evo **out, const hoodie_storage *s, const char *base_path,
                              const hoodie_timeline *tl)
{
    *out = NULL;
    s = hoodie_storage__or_default(s);
    hoodie_buf dir = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
    hist_pick h = { tl, "" };
    hoodie_status rc = schema_dir(&dir, base_path);
    if (rc == HOODIE_OK) {
        rc = s->list(s->ctx, (const char *)dir.data, on_hist, &h);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    }
    if (rc == HOODIE_OK && h.best[0]) {
        if (hoodie_buf_printf(&dir, "/%s.schemacommit", h.best) < 0) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) rc = hoodie_storage_read_all(s, (const char *)dir.data, &data);
        if (rc == HOODIE_OK) rc = hoodie_evo_parse(out, (const char *)data.data, data.len, (const char *)dir.data);
    }
    hoodie_buf_dispose(&dir);
    hoodie_buf_dispose(&data);
    return rc;
}

hoodie_status hoodie_evo_file_renames(const hoodie_evo *e, const char *as_of, const char *path, const hoodie_renames **out)
{
    *out = NULL;
    if (!e || !path) return HOODIE_OK;
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    hoodie_file_name fn;
    char t[64];
    if (hoodie_file_name_parse(&fn, name) == HOODIE_FILE_OTHER || !fn.instant.len || fn.instant.len >= sizeof t)
        return HOODIE_OK;
    memcpy(t, fn.instant.p, fn.instant.len);
    t[fn.instant.len] = '\0';
    return hoodie_evo_renames(e, as_of, t, out);
}

/* ---- new versions (ALTER TABLE) ---- */

static json_t *type_json(const hoodie_field *f, long *next);

/* A record as AvroInternalSchemaConverter numbers it: its own fields first, then what they hold, in order. */
static json_t *record_json(const hoodie_field *st, long *next)
{
    long first = *next;
    *next += (long)st->n_children;
    json_t *rec = json_object(), *fields = json_array();
    json_object_set_new(rec, "type", json_string("record"));
    for (size_t i = 0; i < st->n_children; i++) {
        const hoodie_field *c = &st->children[i];
        json_t *f = json_object();
        json_object_set_new(f, "id", json_integer(first + (long)i));
        json_object_set_new(f, "name", json_string(c->name));
        json_object_set_new(f, "optional", json_boolean(c->nullable));
        json_object_set_new(f, "type", type_json(c, next));
        json_array_append_new(fields, f);
    }
    json_object_set_new(rec, "fields", fields);
    return rec;
}

static json_t *type_json(const hoodie_field *f, long *next)
{
    char buf[64];
    const hoodie_type *t = &f->type;
    switch (t->id) {
    case HOODIE_TYPE_BOOL: return json_string("boolean");
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_UINT8:
    case HOODIE_TYPE_UINT16: return json_string("int");
    case HOODIE_TYPE_INT64: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_UINT64: return json_string("long");
    case HOODIE_TYPE_FLOAT16: case HOODIE_TYPE_FLOAT: return json_string("float");
    case HOODIE_TYPE_DOUBLE: return json_string("double");
    case HOODIE_TYPE_STRING: return json_string(t->ext == HOODIE_EXT_UUID ? "uuid" : "string");
    case HOODIE_TYPE_BINARY: return json_string("binary");
    case HOODIE_TYPE_FIXED_BINARY:
        snprintf(buf, sizeof buf, "fixed[%d]", (int)t->width);
        return json_string(buf);
    case HOODIE_TYPE_DECIMAL: /* SerDeHelper reads "decimal\((\d+),\s+(\d+)\)": the space is required */
        snprintf(buf, sizeof buf, "decimal(%d, %d)", (int)t->precision, (int)t->scale);
        return json_string(buf);
    case HOODIE_TYPE_DATE32: return json_string("date");
    case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: return json_string("time");
    case HOODIE_TYPE_TIMESTAMP: return json_string("timestamp");
    case HOODIE_TYPE_STRUCT: return record_json(f, next);
    case HOODIE_TYPE_LIST: {
        json_t *a = json_object();
        const hoodie_field *e = &f->children[0];
        json_object_set_new(a, "type", json_string("array"));
        json_object_set_new(a, "element-id", json_integer((*next)++));
        json_object_set_new(a, "element", type_json(e, next));
        json_object_set_new(a, "element_optional", json_boolean(e->nullable));
        return a;
    }
    case HOODIE_TYPE_MAP: {
        json_t *m = json_object();
        const hoodie_field *k = &f->children[0].children[0], *v = &f->children[0].children[1];
        long kid = (*next)++, vid = (*next)++;
        json_object_set_new(m, "type", json_string("map"));
        json_object_set_new(m, "key-id", json_integer(kid));
        json_object_set_new(m, "key", type_json(k, next));
        json_object_set_new(m, "value-id", json_integer(vid));
        json_object_set_new(m, "value", type_json(v, next));
        json_object_set_new(m, "value_optional", json_boolean(v->nullable));
        return m;
    }
    default: return json_string("string");
    }
}

static int fields_find(json_t *fields, const char *name)
{
    for (size_t i = 0; i < json_array_size(fields); i++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(fields, i), "name")), name)) return (int)i;
    return -1;
}

/* The fields array of the record holding the field at dotted path `path` ("s.x", "a.element.x", "m.value.x") and,
 * in *last, where the field's own name starts in path: through records' fields by name, an array's "element" and a
 * map's "key" and "value". NULL when the path leads to no record's field. */
static json_t *nested_fields(json_t *fields, const char *path, const char **last)
{
    const char *p = path;
    for (;;) {
        const char *dot = strchr(p, '.');
        if (!dot) { *last = p; return fields; }
        char name[256];
        if ((size_t)(dot - p) >= sizeof name) return NULL;
        memcpy(name, p, (size_t)(dot - p));
        name[dot - p] = 0;
        int at = fields_find(fields, name);
        if (at < 0) return NULL;
        json_t *type = json_object_get(json_array_get(fields, (size_t)at), "type");
        p = dot + 1;
        for (;;) { /* through arrays' elements and maps' keys and values to a record */
            const char *kind = json_is_object(type) ? json_string_value(json_object_get(type, "type")) : NULL;
            if (!kind) return NULL;
            if (!strcmp(kind, "record")) break;
            const char *next = strchr(p, '.');
            size_t len = next ? (size_t)(next - p) : strlen(p);
            const char *step = !strcmp(kind, "array") ? "element" : !strcmp(kind, "map") ? (len == 3 ? "key" : "value")
                                                                                        : NULL;
            if (!step || !next || len != strlen(step) || strncmp(p, step, len)) return NULL;
            type = json_object_get(type, step);
            p = next + 1;
        }
        fields = json_object_get(type, "fields");
        if (!json_is_array(fields)) return NULL;
    }
}

/* A new optional field `name` at the end of record fields `fields`: its id after *max (and its nested ids after it),
 * of the change's InternalSchema type (ch->arg) or its field's type (ch->field). */
static hoodie_status add_field(json_t *fields, const char *name, const hoodie_evo_change *ch, long *max)
{
    json_t *f = json_object();
    if (!f) return HOODIE_NOMEM();
    json_object_set_new(f, "id", json_integer(++*max));
    json_object_set_new(f, "name", json_string(name));
    json_object_set_new(f, "optional", json_true());
    if (ch->field) {
        long next = *max + 1;
        json_object_set_new(f, "type", type_json(ch->field, &next));
        *max = next - 1;
    } else {
        json_object_set_new(f, "type", json_string(ch->arg));
    }
    return json_array_append_new(fields, f) ? HOODIE_NOMEM() : HOODIE_OK;
}

/* A RETYPE of an array's element or a map's value ("a.element", "s.m.value": a write widened it, int to long):
 * its type in the array or map replaced (ids stay). 1 when the path names something else (a record's field, one
 * named "value" too). */
static hoodie_status retype_item(json_t *fields, const hoodie_evo_change *ch)
{
    const char *dot = strrchr(ch->name, '.'), *step = dot + 1;
    if (strcmp(step, "element") && strcmp(step, "value")) return 1;
    char parent[512];
    if ((size_t)(dot - ch->name) >= sizeof parent) return 1;
    memcpy(parent, ch->name, (size_t)(dot - ch->name));
    parent[dot - ch->name] = '\0';
    const char *last = parent;
    json_t *in = strchr(parent, '.') ? nested_fields(fields, parent, &last) : fields;
    int at = in ? fields_find(in, last) : -1;
    json_t *type = at >= 0 ? json_object_get(json_array_get(in, (size_t)at), "type") : NULL;
    const char *kind = json_is_object(type) ? json_string_value(json_object_get(type, "type")) : NULL;
    if (!kind || strcmp(kind, !strcmp(step, "element") ? "array" : "map")) return 1;
    long unused = 0;
    json_object_set_new(type, step, type_json(ch->field, &unused));
    return HOODIE_OK;
}

/* A history file's document {"schemas": [...]}: `newest` (NULL: none), then e's versions newest first, then
 * `oldest` (NULL: none). */
static json_t *history_doc(const hoodie_evo *e, json_t *newest, json_t *oldest)
{
    json_t *hist = json_object(), *list = json_array();
    if (newest) json_array_append(list, newest);
    for (size_t i = e ? e->n : 0; i-- > 0;) json_array_append(list, e->v[i].json);
    if (oldest) json_array_append(list, oldest);
    json_object_set_new(hist, "schemas", list);
    return hist;
}

hoodie_status hoodie_evo_alter(const hoodie_evo *e, const hoodie_field *table, const hoodie_evo_change *ch, size_t n,
                               const char *instant, char **latest_json, char **history_json)
{
    *latest_json = *history_json = NULL;
    long long vid = strtoll(instant, NULL, 10);
    if (e && e->v[e->n - 1].id >= vid) /* a version must be newer than every one before it */
        return HOODIE_FAIL(HOODIE_ECONFLICT, "schema version %s is not newer than the table's newest, %lld", instant,
                           e->v[e->n - 1].id);
    json_t *v = NULL, *v0 = NULL;
    long max;
    if (e) {
        v = json_deep_copy(e->v[e->n - 1].json);
        max = (long)json_integer_value(json_object_get(v, "max_column_id"));
        for (size_t i = 0; i < e->v[e->n - 1].root.n; i++) /* a version without max_column_id: its largest id */
            if (e->v[e->n - 1].root.fields[i].id > max) max = e->v[e->n - 1].root.fields[i].id;
    } else { /* evolution begins: the table's schema as version 0 */
        long next = 0;
        json_t *rec = record_json(table, &next);
        max = next - 1;
        v0 = json_object();
        json_object_set_new(v0, "max_column_id", json_integer(max));
        json_object_set_new(v0, "version_id", json_integer(0));
        json_object_update(v0, rec);
        json_decref(rec);
        v = json_deep_copy(v0);
    }
    if (!v || (!e && !v0)) { json_decref(v); json_decref(v0); return HOODIE_NOMEM(); }
    json_t *fields = json_object_get(v, "fields");
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < n && rc == HOODIE_OK; i++) {
        const char *name = ch[i].name;
        json_t *in = fields; /* the record the change is in: a nested field's (dotted path) or the top level */
        if (ch[i].kind == HOODIE_EVO_RETYPE && strchr(ch[i].name, '.') && (rc = retype_item(fields, &ch[i])) != 1)
            continue; /* an array's element or a map's value widened (1: the path ends at a record's field) */
        rc = HOODIE_OK;
        if (strchr(ch[i].name, '.')) {
            in = nested_fields(fields, ch[i].name, &name);
            if (!in) {
                rc = HOODIE_FAIL(HOODIE_EINVAL, "no record holds '%s' (a nested field's path goes through records' "
                                 "fields, an array's element, a map's key or value)", ch[i].name);
                break;
            }
        }
        /* in its record: a nested field, or a top-level column */
        int nested = in != fields, at = fields_find(in, name);
        const char *noun = nested ? "field" : "column";
        if (ch[i].kind != HOODIE_EVO_ADD && at < 0) {
            rc = HOODIE_FAIL(HOODIE_EINVAL, "no %s '%s' to %s", nested ? "nested field" : "column", ch[i].name,
                             ch[i].kind == HOODIE_EVO_RENAME ? "rename" : ch[i].kind == HOODIE_EVO_DROP ? "drop"
                                                                                                    : "change");
        } else if (ch[i].kind == HOODIE_EVO_RETYPE) {
            long unused = max + 1;
            json_object_set_new(json_array_get(in, (size_t)at), "type", type_json(ch[i].field, &unused));
        } else if (ch[i].kind == HOODIE_EVO_RENAME) {
            if (fields_find(in, ch[i].arg) >= 0)
                rc = HOODIE_FAIL(HOODIE_EINVAL, "cannot rename '%s' to '%s': a %s of that name exists", ch[i].name,
                                 ch[i].arg, noun);
            else json_object_set_new(json_array_get(in, (size_t)at), "name", json_string(ch[i].arg));
        } else if (ch[i].kind == HOODIE_EVO_DROP) {
            if (nested && json_array_size(in) < 2)
                rc = HOODIE_FAIL(HOODIE_EINVAL, "cannot drop '%s': it is the only field of its record", ch[i].name);
            else json_array_remove(in, (size_t)at);
        } else if (at >= 0) {
            rc = HOODIE_FAIL(HOODIE_EINVAL, "cannot add %s '%s': it exists", noun, ch[i].name);
        } else {
            rc = add_field(in, name, &ch[i], &max);
        }
    }
    json_object_set_new(v, "max_column_id", json_integer(max));
    json_object_set_new(v, "version_id", json_integer(vid));
    json_t *hist = history_doc(e, v, v0);
    if (rc == HOODIE_OK) {
        *latest_json = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
        *history_json = json_dumps(hist, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (!*latest_json || !*history_json) {
            free(*latest_json);
            free(*history_json);
            *latest_json = *history_json = NULL;
            rc = HOODIE_NOMEM();
        }
    }
    json_decref(hist);
    json_decref(v);
    json_decref(v0);
    return rc;
}

long long hoodie_evo_newest(const hoodie_evo *e) { return e ? e->v[e->n - 1].id : -1; }

static int on_any(const hoodie_dirent *d, void *payload)
{
    char t[64];
    return *(int *)payload = hist_instant(d, t); /* the first one stops the listing */
}

hoodie_status hoodie_evo_present(const hoodie_storage *s, const char *base_path, int *any)
{
    *any = 0;
    s = hoodie_storage__or_default(s);
    hoodie_buf dir = HOODIE_BUF_INIT;
    hoodie_status rc = schema_dir(&dir, base_path);
    if (rc == HOODIE_OK) rc = s->list(s->ctx, (const char *)dir.data, on_any, any);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    hoodie_buf_dispose(&dir);
    return rc;
}

char *hoodie_evo_history_json(const hoodie_evo *e)
{
    json_t *hist = history_doc(e, NULL, NULL);
    char *out = json_dumps(hist, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(hist);
    return out;
}

typedef struct hist_prune {
    const hoodie_timeline *tl;
    const char *keep;
    char (*old)[64];
    size_t n, cap;
    int nomem;
} hist_prune;

static int on_prune(const hoodie_dirent *d, void *payload)
{
    hist_prune *p = payload;
    char t[64];
    if (!hist_instant(d, t) || !hoodie_timeline_before_start(p->tl, t) || strcmp(t, p->keep) >= 0) return 0;
    if (p->n == p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 16;
        char (*o)[64] = realloc(p->old, nc * sizeof *o);
        if (!o) { p->nomem = 1; return 1; }
        p->old = o;
        p->cap = nc;
    }
    memcpy(p->old[p->n++], t, 64);
    return 0;
}

hoodie_status hoodie_evo_prune_history(const hoodie_storage *s, const char *base_path, const hoodie_timeline *tl,
                                       const char *keep)
{
    s = hoodie_storage__or_default(s);
    hoodie_buf dir = HOODIE_BUF_INIT, path = HOODIE_BUF_INIT;
    hist_prune p = { tl, keep, NULL, 0, 0, 0 };
    hoodie_status rc = schema_dir(&dir, base_path);
    if (rc == HOODIE_OK) rc = s->list(s->ctx, (const char *)dir.data, on_prune, &p);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    if (rc == HOODIE_OK && p.nomem) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < p.n; i++) {
        hoodie_buf_clear(&path);
        if (hoodie_buf_printf(&path, "%s/%s.schemacommit", (const char *)dir.data, p.old[i]) < 0) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) rc = s->remove(s->ctx, (const char *)path.data);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; } /* another writer's prune */
    }
    free(p.old);
    hoodie_buf_dispose(&dir);
    hoodie_buf_dispose(&path);
    return rc;
}

hoodie_status hoodie_evo_write_history(const hoodie_storage *s, const char *base_path, const char *instant,
                                       const char *history)
{
    hoodie_buf path = HOODIE_BUF_INIT;
    hoodie_status rc = schema_dir(&path, base_path);
    if (rc == HOODIE_OK && hoodie_buf_printf(&path, "/%s.schemacommit", instant) < 0) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK)
        rc = hoodie_storage_write_all(hoodie_storage__or_default(s), (const char *)path.data, 0, history, strlen(history));
    hoodie_buf_dispose(&path);
    return rc;
}
