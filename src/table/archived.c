#include "table/archived.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "format/avro/json.h"
#include "format/hlog/hlog.h"
#include "format/parquet/reader.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/warn.h"

/* ---- collecting records ---------------------------------------------------------------------------------- */

typedef struct ar_collect {
    hoodie_instant *inst;
    hoodie_archived_meta *meta;
    size_t count, cap;
    hoodie_arena *arena;
} ar_collect;

static hoodie_status ar_push(ar_collect *c, const hoodie_instant *in, const hoodie_archived_meta *m)
{
    if (c->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        hoodie_instant *ni = realloc(c->inst, cap * sizeof *ni);
        if (!ni) return HOODIE_NOMEM();
        c->inst = ni;
        hoodie_archived_meta *nm = realloc(c->meta, cap * sizeof *nm);
        if (!nm) return HOODIE_NOMEM();
        c->meta = nm;
        c->cap = cap;
    }
    c->inst[c->count] = *in;
    c->meta[c->count] = *m;
    c->count++;
    return HOODIE_OK;
}

static void ar_collect_dispose(ar_collect *c)
{
    for (size_t i = 0; i < c->count; i++) json_decref(c->meta[i].json);
    free(c->inst);
    free(c->meta);
    hoodie_arena_free(c->arena);
    memset(c, 0, sizeof *c);
}

/* order of the sort: requested time, completed action, state; ties keep the reading order (index) */
typedef struct ar_sortkey {
    const hoodie_instant *in;
    size_t idx;
} ar_sortkey;

static int ar_cmp(const void *a, const void *b)
{
    const ar_sortkey *x = a, *y = b;
    int r = strcmp(x->in->requested, y->in->requested);
    if (r) return r;
    r = (int)hoodie_action_completed(x->in->action) - (int)hoodie_action_completed(y->in->action);
    if (r) return r;
    r = (int)x->in->state - (int)y->in->state;
    if (r) return r;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sort and collapse the state records of each instant into the timeline (consumes c). */
static hoodie_status ar_finish(ar_collect *c, int layout, const char *dir, size_t files,
                               hoodie_archived_timeline **out)
{
    hoodie_archived_timeline *a = calloc(1, sizeof *a);
    ar_sortkey *keys = NULL;
    if (!a) return HOODIE_NOMEM();
    a->layout_version = layout;
    a->files = files;
    a->dir = strdup(dir);
    size_t n = c->count;
    keys = malloc((n ? n : 1) * sizeof *keys);
    a->instants = malloc((n ? n : 1) * sizeof *a->instants);
    a->meta = calloc(n ? n : 1, sizeof *a->meta);
    if (!a->dir || !keys || !a->instants || !a->meta) {
        free(keys);
        hoodie_archived_free(a);
        return HOODIE_NOMEM();
    }
    for (size_t i = 0; i < n; i++) {
        keys[i].in = &c->inst[i];
        keys[i].idx = i;
    }
    if (n) qsort(keys, n, sizeof *keys, ar_cmp);
    size_t w = 0;
    for (size_t k = 0; k < n; k++) {
        const hoodie_instant *cur = keys[k].in;
        hoodie_archived_meta *cm = &c->meta[keys[k].idx];
        if (w > 0) {
            hoodie_instant *prev = &a->instants[w - 1];
            if (!strcmp(prev->requested, cur->requested)
                && hoodie_action_completed(prev->action) == hoodie_action_completed(cur->action)) {
                unsigned files_mask = prev->state_files | cur->state_files;
                hoodie_action plan = prev->plan_action;
                if (cur->state > prev->state) {
                    *prev = *cur;
                    json_decref(a->meta[w - 1].json);
                    a->meta[w - 1] = *cm;
                    cm->json = NULL;
                } else if (cur->state == prev->state && !a->meta[w - 1].json && !a->meta[w - 1].bytes) {
                    a->meta[w - 1] = *cm; /* a duplicate record (archive files merged twice): keep one with metadata */
                    cm->json = NULL;
                }
                prev->state_files = files_mask;
                if (plan != prev->action) prev->plan_action = plan;
                continue;
            }
        }
        a->instants[w] = *cur;
        a->meta[w] = *cm;
        cm->json = NULL;
        w++;
    }
    free(keys);
    /* metadata of states other than the completed one is not kept */
    for (size_t i = 0; i < w; i++)
        if (a->instants[i].state != HOODIE_STATE_COMPLETED) {
            json_decref(a->meta[i].json);
            memset(&a->meta[i], 0, sizeof a->meta[i]);
        }
    a->count = w;
    a->arena = c->arena; /* the metadata bytes and source names live there */
    c->arena = NULL;
    ar_collect_dispose(c);
    *out = a;
    return HOODIE_OK;
}

void hoodie_archived_free(hoodie_archived_timeline *a)
{
    if (!a) return;
    for (size_t i = 0; a->meta && i < a->count; i++) json_decref(a->meta[i].json);
    free(a->instants);
    free(a->meta);
    free(a->dir);
    hoodie_arena_free(a->arena);
    free(a);
}

/* ---- layout 1: archive log files ------------------------------------------------------------------------- */

/* ".commits_.archive.<N>" optionally followed by "_<token>"; *n receives N. */
static int v1_archive_name(const char *name, unsigned long long *n)
{
    static const char prefix[] = ".commits_.archive.";
    const char *p = name + sizeof prefix - 1;
    if (strncmp(name, prefix, sizeof prefix - 1) || *p < '0' || *p > '9') return 0;
    char *end;
    *n = strtoull(p, &end, 10);
    if (*end && *end != '_') return 0;
    return strstr(name, ".crc") == NULL;
}

typedef struct v1_file {
    char *name;
    unsigned long long n;
} v1_file;

typedef struct v1_list {
    v1_file *files;
    size_t count, cap;
    hoodie_status rc;
} v1_list;

static int v1_on_entry(const hoodie_dirent *e, void *payload)
{
    v1_list *l = payload;
    unsigned long long n;
    if (e->is_dir || !v1_archive_name(e->name, &n)) return 0;
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        v1_file *nf = realloc(l->files, cap * sizeof *nf);
        if (!nf) { l->rc = HOODIE_NOMEM(); return 1; }
        l->files = nf;
        l->cap = cap;
    }
    l->files[l->count].name = strdup(e->name);
    if (!l->files[l->count].name) { l->rc = HOODIE_NOMEM(); return 1; }
    l->files[l->count++].n = n;
    return 0;
}

static int v1_file_cmp(const void *a, const void *b)
{
    const v1_file *x = a, *y = b;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The metadata field of a HoodieArchivedMetaEntry for a completed action. */
static const char *v1_meta_field(hoodie_action a)
{
    switch (a) {
    case HOODIE_ACTION_COMMIT:
    case HOODIE_ACTION_DELTACOMMIT: return "hoodieCommitMetadata";
    case HOODIE_ACTION_REPLACECOMMIT: return "hoodieReplaceCommitMetadata";
    case HOODIE_ACTION_ROLLBACK: return "hoodieRollbackMetadata";
    case HOODIE_ACTION_CLEAN: return "hoodieCleanMetadata";
    case HOODIE_ACTION_SAVEPOINT: return "hoodieSavePointMetadata";
    default: return NULL;
    }
}

static hoodie_status v1_state(const char *s, hoodie_instant_state *out)
{
    if (!s || !strcmp(s, "COMPLETED")) *out = HOODIE_STATE_COMPLETED; /* very old entries have no state */
    else if (!strcmp(s, "INFLIGHT")) *out = HOODIE_STATE_INFLIGHT;
    else if (!strcmp(s, "REQUESTED")) *out = HOODIE_STATE_REQUESTED;
    else return HOODIE_ENOTFOUND; /* NIL or unknown: not a timeline state */
    return HOODIE_OK;
}

/* One HoodieArchivedMetaEntry (decoded) -> a record of the collection. */
static hoodie_status v1_entry(ar_collect *c, json_t *rec, const char *source, uint64_t off)
{
    if (!json_is_object(rec))
        return HOODIE_CORRUPT("%s: offset %llu: archived entry is not a record", source, (unsigned long long)off);
    const char *t = json_string_value(json_object_get(rec, "commitTime"));
    const char *action = json_string_value(json_object_get(rec, "actionType"));
    const char *state = json_string_value(json_object_get(rec, "actionState"));
    hoodie_instant in;
    hoodie_action act;
    hoodie_instant_state st;
    if (!t || !action)
        return HOODIE_CORRUPT("%s: offset %llu: archived entry without commitTime or actionType", source,
                              (unsigned long long)off);
    if (!hoodie_instant_time_valid(t, strlen(t)))
        return HOODIE_CORRUPT("%s: offset %llu: archived entry with a bad commitTime '%s'", source,
                              (unsigned long long)off, t);
    if (hoodie_action_parse(action, strlen(action), &act) != HOODIE_OK) return HOODIE_OK; /* unknown action */
    if (v1_state(state, &st) != HOODIE_OK) return HOODIE_OK;
    memset(&in, 0, sizeof in);
    snprintf(in.requested, sizeof in.requested, "%s", t);
    in.state = st;
    in.plan_action = act;
    in.action = st == HOODIE_STATE_COMPLETED ? hoodie_action_completed(act) : act;
    if (st == HOODIE_STATE_COMPLETED) in.plan_action = in.action;
    in.state_files = HOODIE_STATE_BIT(st);
    hoodie_archived_meta m = { NULL, NULL, 0, source };
    const char *field = st == HOODIE_STATE_COMPLETED ? v1_meta_field(in.action) : NULL;
    json_t *v = field ? json_object_get(rec, field) : NULL;
    /* replacecommit written by old archivers as a commit-metadata record */
    if (st == HOODIE_STATE_COMPLETED && in.action == HOODIE_ACTION_REPLACECOMMIT && (!v || json_is_null(v)))
        v = json_object_get(rec, "hoodieCommitMetadata");
    if (v && !json_is_null(v)) {
        if (!json_is_object(v))
            return HOODIE_CORRUPT("%s: offset %llu: '%s' of instant %s is not a record", source,
                                  (unsigned long long)off, field, t);
        m.json = json_incref(v);
    }
    hoodie_status rc = ar_push(c, &in, &m);
    if (rc) json_decref(m.json);
    return rc;
}

static hoodie_status v1_block(ar_collect *c, const hoodie_hlog_block *b, const char *source)
{
    const char *schema = b->header[HOODIE_HLOG_SCHEMA];
    hoodie_avro_jschema js;
    hoodie_hlog_avro_records r;
    hoodie_status rc;
    if (!schema)
        return HOODIE_CORRUPT("%s: offset %llu: archive data block without a SCHEMA header", source,
                              (unsigned long long)b->offset);
    HOODIE_TRY(hoodie_avro_jschema_parse(&js, schema, b->header_len[HOODIE_HLOG_SCHEMA], source));
    rc = hoodie_hlog_avro_open(&r, b, source);
    while (rc == HOODIE_OK) {
        const uint8_t *p;
        size_t len;
        rc = hoodie_hlog_avro_next(&r, &p, &len);
        if (rc) break;
        uint64_t off = b->content_offset + (uint64_t)(p - b->content);
        hoodie_cursor cur;
        json_t *rec = NULL;
        hoodie_cursor_init(&cur, p, len, off, source);
        rc = hoodie_avro_decode_json(&js, &cur, &rec);
        if (rc == HOODIE_OK && hoodie_cursor_left(&cur))
            rc = HOODIE_CORRUPT("%s: offset %llu: %zu bytes left after an archived entry", source,
                                (unsigned long long)hoodie_cursor_offset(&cur), hoodie_cursor_left(&cur));
        if (rc == HOODIE_OK) rc = v1_entry(c, rec, source, off);
        json_decref(rec);
    }
    hoodie_avro_jschema_dispose(&js);
    return rc == HOODIE_ITEROVER ? HOODIE_OK : rc;
}

static hoodie_status v1_file_read(ar_collect *c, const hoodie_storage *s, const char *path)
{
    hoodie_buf data = HOODIE_BUF_INIT;
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    const char *source = hoodie_arena_strdup(c->arena, path);
    if (!source) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_storage_read_all(s, path, &data);
    if (rc) {
        hoodie_buf_dispose(&data);
        return rc;
    }
    rc = hoodie_hlog_iter_init(&it, data.data, data.len, source);
    while (rc == HOODIE_OK && (rc = hoodie_hlog_iter_next(&it, &b)) == HOODIE_OK) {
        if (b.type == HOODIE_HLOG_CORRUPT_BLOCK) {
            hoodie_warn("skipped a corrupt archived-timeline block: %s",
                        b.corrupt_reason ? b.corrupt_reason : source);
            continue;
        }
        if (b.type != HOODIE_HLOG_AVRO_DATA_BLOCK) continue; /* archives hold data blocks only */
        rc = v1_block(c, &b, source);
    }
    if (rc == HOODIE_OK || rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    hoodie_hlog_iter_dispose(&it);
    hoodie_buf_dispose(&data);
    return rc;
}

hoodie_status hoodie_archived_load_v1(hoodie_archived_timeline **out, const hoodie_storage *s, const char *dir)
{
    ar_collect c;
    v1_list l = { NULL, 0, 0, HOODIE_OK };
    hoodie_buf path = HOODIE_BUF_INIT;
    hoodie_status rc;
    *out = NULL;
    s = hoodie_storage__or_default(s);
    memset(&c, 0, sizeof c);
    HOODIE_TRY(hoodie_arena_new(&c.arena, NULL, 4096));
    rc = s->list(s->ctx, dir, v1_on_entry, &l);
    if (rc == HOODIE_ENOTFOUND) rc = HOODIE_OK; /* never archived */
    if (rc == HOODIE_OK) rc = l.rc;
    if (rc == HOODIE_OK && l.count) qsort(l.files, l.count, sizeof *l.files, v1_file_cmp);
    for (size_t i = 0; rc == HOODIE_OK && i < l.count; i++) {
        hoodie_buf_clear(&path);
        rc = hoodie_buf_printf(&path, "%s/%s", dir, l.files[i].name);
        if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&path);
        if (rc == HOODIE_OK) rc = v1_file_read(&c, s, (const char *)path.data);
    }
    for (size_t i = 0; i < l.count; i++) free(l.files[i].name);
    free(l.files);
    hoodie_buf_dispose(&path);
    if (rc == HOODIE_OK) return ar_finish(&c, 1, dir, l.count, out);
    ar_collect_dispose(&c);
    return rc;
}

/* ---- layout 2: LSM history ------------------------------------------------------------------------------- */

static hoodie_status lsm_read_small(const hoodie_storage *s, const char *dir, const char *name, hoodie_buf *out)
{
    hoodie_buf path = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_printf(&path, "%s/%s", dir, name);
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&path);
    hoodie_buf_clear(out);
    if (rc == HOODIE_OK) rc = hoodie_storage_read_all(s, (const char *)path.data, out);
    hoodie_buf_dispose(&path);
    return rc;
}

/* A decimal version number ("12", surrounding white space allowed); -1 if not one. */
static long lsm_parse_version(const uint8_t *p, size_t n)
{
    size_t i = 0;
    long v = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) i++;
    if (i == n || p[i] < '0' || p[i] > '9') return -1;
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
        if (v > 100000000L) return -1;
        v = v * 10 + (p[i] - '0');
    }
    while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) i++;
    return i == n ? v : -1;
}

typedef struct lsm_versions {
    long max;
    int any_entry;
} lsm_versions;

static int lsm_on_entry(const hoodie_dirent *e, void *payload)
{
    lsm_versions *v = payload;
    static const char prefix[] = "manifest_";
    v->any_entry = 1;
    if (e->is_dir || strncmp(e->name, prefix, sizeof prefix - 1)) return 0;
    const char *p = e->name + sizeof prefix - 1;
    long n = lsm_parse_version((const uint8_t *)p, strlen(p));
    if (n >= 0 && strspn(p, "0123456789") == strlen(p) && n > v->max) v->max = n;
    return 0;
}

typedef struct lsm_src {
    hoodie_reader r;
} lsm_src;

static hoodie_status lsm_read_cb(void *ctx, uint64_t off, void *buf, size_t len)
{
    return hoodie_reader_read(&((lsm_src *)ctx)->r, off, buf, len);
}

/* Column index in a batch of a (STRING or BINARY) column, -1 if absent; HOODIE_ECORRUPT if of another type. */
static hoodie_status lsm_column(const hoodie_field *root, const char *name, const char *path, int required,
                                int *out)
{
    *out = hoodie_field_find(root, name);
    if (*out < 0) {
        if (required) return HOODIE_CORRUPT("%s: LSM timeline file without a '%s' column", path, name);
        return HOODIE_OK;
    }
    hoodie_type_id t = root->children[*out].type.id;
    if (t != HOODIE_TYPE_STRING && t != HOODIE_TYPE_BINARY)
        return HOODIE_CORRUPT("%s: LSM timeline column '%s' is not a string/binary column", path, name);
    return HOODIE_OK;
}

static const uint8_t *lsm_cell(const hoodie_array *col, int64_t row, size_t *len)
{
    if (!hoodie_array_is_valid(col, row)) return NULL;
    return hoodie_array_bytes_at(col, row, len);
}

static hoodie_status lsm_rows(ar_collect *c, const hoodie_batch *b, const int col[4], const char *source)
{
    for (int64_t r = 0; r < hoodie_batch_rows(b); r++) {
        size_t tl = 0, cl = 0, al = 0, ml = 0;
        const uint8_t *t = lsm_cell(&b->root.children[col[0]], r, &tl);
        const uint8_t *comp = col[1] >= 0 ? lsm_cell(&b->root.children[col[1]], r, &cl) : NULL;
        const uint8_t *act = lsm_cell(&b->root.children[col[2]], r, &al);
        const uint8_t *meta = col[3] >= 0 ? lsm_cell(&b->root.children[col[3]], r, &ml) : NULL;
        hoodie_instant in;
        hoodie_action a;
        if (!t || !act) return HOODIE_CORRUPT("%s: row %lld: LSM instant without instantTime or action", source, (long long)r);
        if (!hoodie_instant_time_valid((const char *)t, tl))
            return HOODIE_CORRUPT("%s: row %lld: bad instantTime '%.*s'", source, (long long)r, (int)(tl > 40 ? 40 : tl),
                                  (const char *)t);
        if (comp && cl && !hoodie_instant_time_valid((const char *)comp, cl))
            return HOODIE_CORRUPT("%s: row %lld: bad completionTime '%.*s'", source, (long long)r,
                                  (int)(cl > 40 ? 40 : cl), (const char *)comp);
        if (hoodie_action_parse((const char *)act, al, &a) != HOODIE_OK) continue; /* unknown action: skip */
        memset(&in, 0, sizeof in);
        memcpy(in.requested, t, tl);
        if (comp) memcpy(in.completion, comp, cl);
        in.action = in.plan_action = hoodie_action_completed(a);
        in.state = HOODIE_STATE_COMPLETED;
        in.state_files = HOODIE_STATE_BIT(HOODIE_STATE_COMPLETED);
        in.size = meta ? ml : 0;
        hoodie_archived_meta m = { NULL, NULL, 0, source };
        if (meta && ml) {
            m.bytes = hoodie_arena_memdup(c->arena, meta, ml);
            if (!m.bytes) return HOODIE_NOMEM();
            m.len = ml;
        }
        HOODIE_TRY(ar_push(c, &in, &m));
    }
    return HOODIE_OK;
}

static hoodie_status lsm_file_read(ar_collect *c, const hoodie_storage *s, const char *path)
{
    lsm_src src;
    hoodie_pq_source ps;
    hoodie_pq_file *f = NULL;
    hoodie_pq_scan *scan = NULL;
    const char *source = hoodie_arena_strdup(c->arena, path);
    int col[4];
    if (!source) return HOODIE_NOMEM();
    HOODIE_TRY(hoodie_reader_open(&src.r, s, source));
    ps.ctx = &src;
    ps.read = lsm_read_cb;
    ps.size = src.r.size;
    ps.name = source;
    ps.will_read = NULL;
    hoodie_status rc = hoodie_pq_file_open(&f, &ps);
    if (rc == HOODIE_OK) {
        const hoodie_field *root = &hoodie_pq_file_schema(f)->root;
        rc = lsm_column(root, "instantTime", source, 1, &col[0]);
        if (rc == HOODIE_OK) rc = lsm_column(root, "completionTime", source, 0, &col[1]);
        if (rc == HOODIE_OK) rc = lsm_column(root, "action", source, 1, &col[2]);
        if (rc == HOODIE_OK) rc = lsm_column(root, "metadata", source, 0, &col[3]);
    }
    if (rc == HOODIE_OK) {
        const char *names[4];
        size_t n = 0;
        int pos[4];
        static const char *const all[4] = { "instantTime", "completionTime", "action", "metadata" };
        for (int i = 0; i < 4; i++) {
            pos[i] = col[i] < 0 ? -1 : (int)n;
            if (col[i] >= 0) names[n++] = all[i];
        }
        hoodie_pq_scan_opts o;
        memset(&o, 0, sizeof o);
        o.columns = names;
        o.n_columns = n;
        o.batch_rows = 1024;
        rc = hoodie_pq_scan_open(&scan, f, &o);
        while (rc == HOODIE_OK) {
            hoodie_batch b;
            rc = hoodie_pq_scan_next(scan, &b);
            if (rc) break;
            rc = lsm_rows(c, &b, pos, source);
            hoodie_batch_dispose(&b);
        }
        if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    }
    hoodie_pq_scan_free(scan);
    hoodie_pq_file_free(f);
    hoodie_reader_close(&src.r);
    return rc;
}

/* The manifest's file names, in order. */
static hoodie_status lsm_manifest(const hoodie_buf *text, const char *what, json_t **files)
{
    json_error_t err;
    json_t *root = json_loadb((const char *)text->data, text->len, 0, &err);
    *files = NULL;
    if (!root) return HOODIE_CORRUPT("%s: offset %d: manifest is not JSON: %s", what, err.position, err.text);
    json_t *arr = json_object_get(root, "files");
    if (!json_is_array(arr)) {
        json_decref(root);
        return HOODIE_CORRUPT("%s: manifest without a 'files' list", what);
    }
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        const char *name = json_string_value(json_object_get(v, "fileName"));
        if (!name || !*name || strchr(name, '/') || !strcmp(name, "..") || !strcmp(name, ".")) {
            json_decref(root);
            return HOODIE_CORRUPT("%s: manifest entry %zu has no valid fileName", what, i);
        }
    }
    *files = json_incref(arr);
    json_decref(root);
    return HOODIE_OK;
}

hoodie_status hoodie_archived_load_lsm(hoodie_archived_timeline **out, const hoodie_storage *s, const char *dir)
{
    ar_collect c;
    hoodie_buf text = HOODIE_BUF_INIT, path = HOODIE_BUF_INIT;
    json_t *files = NULL;
    long version = -1;
    hoodie_status rc;
    *out = NULL;
    s = hoodie_storage__or_default(s);
    memset(&c, 0, sizeof c);
    HOODIE_TRY(hoodie_arena_new(&c.arena, NULL, 4096));
    /* the current version: _version_, else the largest manifest_N (Hudi's fallback) */
    rc = lsm_read_small(s, dir, "_version_", &text);
    if (rc == HOODIE_OK) version = lsm_parse_version(text.data, text.len);
    if (rc == HOODIE_OK || rc == HOODIE_ENOTFOUND || rc == HOODIE_ECORRUPT) rc = HOODIE_OK;
    if (rc == HOODIE_OK && version < 0) {
        lsm_versions v = { -1, 0 };
        rc = s->list(s->ctx, dir, lsm_on_entry, &v);
        if (rc == HOODIE_ENOTFOUND) rc = HOODIE_OK; /* never archived */
        version = v.max;
    }
    if (rc == HOODIE_OK && version >= 0) {
        char name[32];
        snprintf(name, sizeof name, "manifest_%ld", version);
        rc = lsm_read_small(s, dir, name, &text);
        if (rc == HOODIE_OK) rc = hoodie_buf_printf(&path, "%s/%s", dir, name);
        if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&path);
        if (rc == HOODIE_OK) rc = lsm_manifest(&text, (const char *)path.data, &files);
    }
    size_t nfiles = files ? json_array_size(files) : 0;
    for (size_t i = 0; rc == HOODIE_OK && i < nfiles; i++) {
        const char *name = json_string_value(json_object_get(json_array_get(files, i), "fileName"));
        hoodie_buf_clear(&path);
        rc = hoodie_buf_printf(&path, "%s/%s", dir, name);
        if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&path);
        if (rc == HOODIE_OK) rc = lsm_file_read(&c, s, (const char *)path.data);
        if (rc == HOODIE_ENOTFOUND)
            rc = HOODIE_CORRUPT("%s: listed in manifest_%ld but missing", (const char *)path.data, version);
    }
    json_decref(files);
    hoodie_buf_dispose(&text);
    hoodie_buf_dispose(&path);
    if (rc == HOODIE_OK) return ar_finish(&c, 2, dir, nfiles, out);
    ar_collect_dispose(&c);
    return rc;
}

hoodie_status hoodie_archived_load(hoodie_archived_timeline **out, const hoodie_storage *s, const char *base_path,
                                   const hoodie_table_config *cfg)
{
    hoodie_buf dir = HOODIE_BUF_INIT;
    hoodie_status rc;
    *out = NULL;
    if (cfg->timeline_layout_version >= 2) {
        rc = hoodie_buf_printf(&dir, "%s/%s", base_path,
                               cfg->timeline_history_dir ? cfg->timeline_history_dir : ".hoodie/timeline/history");
        if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&dir);
        if (rc == HOODIE_OK) rc = hoodie_archived_load_lsm(out, s, (const char *)dir.data);
    } else {
        rc = hoodie_buf_printf(&dir, "%s/%s", base_path, cfg->archive_dir ? cfg->archive_dir : ".hoodie/archived");
        if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&dir);
        if (rc == HOODIE_OK) rc = hoodie_archived_load_v1(out, s, (const char *)dir.data);
    }
    hoodie_buf_dispose(&dir);
    return rc;
}

/* ---- queries --------------------------------------------------------------------------------------------- */

long hoodie_archived_find(const hoodie_archived_timeline *a, const char *t, hoodie_action action)
{
    size_t lo = 0, hi = a->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(a->instants[mid].requested, t) < 0) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < a->count && !strcmp(a->instants[i].requested, t); i++)
        if (action == HOODIE_ACTION_COUNT
            || hoodie_action_completed(a->instants[i].action) == hoodie_action_completed(action))
            return (long)i;
    return -1;
}

int hoodie_archived_before_start(const hoodie_archived_timeline *a, const char *t)
{
    return a->count == 0 || strcmp(t, a->instants[0].requested) < 0;
}

static hoodie_status ar_check(const hoodie_archived_timeline *a, size_t i, unsigned actions, const char *kind)
{
    if (i >= a->count) return HOODIE_FAIL(HOODIE_EINVAL, "archived instant index %zu out of range", i);
    if (!(actions & HOODIE_ACTION_BIT(a->instants[i].action)))
        return HOODIE_FAIL(HOODIE_EINVAL, "archived instant %s is a %s, not a %s", a->instants[i].requested,
                           hoodie_action_name(a->instants[i].action), kind);
    return HOODIE_OK;
}

/* "<archive file> (instant T)" for messages, in the timeline's arena-free scratch */
static const char *ar_what(const hoodie_archived_timeline *a, size_t i, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s (archived %s %s)", a->meta[i].source ? a->meta[i].source : a->dir,
             a->instants[i].requested, hoodie_action_name(a->instants[i].action));
    return buf;
}

hoodie_status hoodie_archived_commit_meta(const hoodie_archived_timeline *a, size_t i, hoodie_commit_meta **out)
{
    char what[1024];
    *out = NULL;
    HOODIE_TRY(ar_check(a, i, HOODIE_ACTIONS_WRITE, "write (commit, deltacommit, replacecommit)"));
    const hoodie_archived_meta *m = &a->meta[i];
    ar_what(a, i, what, sizeof what);
    if (m->json) return hoodie_commit_meta_from_json(out, m->json, what);
    return hoodie_commit_meta_decode(out, m->bytes, m->len, what);
}

hoodie_status hoodie_archived_rollback_meta(const hoodie_archived_timeline *a, size_t i, hoodie_rollback_meta **out)
{
    char what[1024];
    *out = NULL;
    HOODIE_TRY(ar_check(a, i, HOODIE_ACTION_BIT(HOODIE_ACTION_ROLLBACK), "rollback"));
    const hoodie_archived_meta *m = &a->meta[i];
    ar_what(a, i, what, sizeof what);
    if (m->json) return hoodie_rollback_meta_from_json(out, m->json, what);
    return hoodie_rollback_meta_decode(out, m->bytes, m->len, what);
}

hoodie_status hoodie_archived_clean_meta(const hoodie_archived_timeline *a, size_t i, hoodie_clean_meta **out)
{
    char what[1024];
    *out = NULL;
    HOODIE_TRY(ar_check(a, i, HOODIE_ACTION_BIT(HOODIE_ACTION_CLEAN), "clean"));
    const hoodie_archived_meta *m = &a->meta[i];
    ar_what(a, i, what, sizeof what);
    if (m->json) return hoodie_clean_meta_from_json(out, m->json, what);
    return hoodie_clean_meta_decode(out, m->bytes, m->len, what);
}
