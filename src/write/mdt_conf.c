/*
 * The metadata table as hoodie keeps it (see mdt.h): which partitions a table's writes keep in step (files, and
 * column_stats, record_index and secondary indexes laid out as hoodie writes them), their configuration, and
 * hoodie_write__mdt_prepare dropping the others before a change to the table's files.
 */
#include "write/mdt_int.h"
#include "storage/storage.h"
#include "table/file_name.h"
#include "table/mdt.h"
#include "table/table.h"
#include "util/buf.h"
#include "util/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the MDT as hoodie keeps it ---- */

/* hoodie.table.metadata.partitions lists only partitions hoodie keeps: files, and column_stats, record_index and
 * secondary indexes (hoodie_write__mdt_prepare lists only those it can keep). */
static int only_kept(const hoodie_table_config *cfg)
{
    const char *v = hoodie_table_config_get(cfg, "hoodie.table.metadata.partitions");
    int files = 0;
    for (const char *p = v; p && *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 5 && !memcmp(p, "files", 5)) files = 1;
        else if (!(n == 12 && !memcmp(p, CS_PART, 12)) && !(n == 12 && !memcmp(p, RLI_PART, 12)) &&
                 !(n > 16 && !memcmp(p, SI_PART_PREFIX, 16)))
            return 0;
        p = e ? e + 1 : p + n;
    }
    return files;
}

int hoodie_write__mdt_mode(const hoodie_table_config *cfg)
{
    const char *inflight = hoodie_table_config_get(cfg, "hoodie.table.metadata.partitions.inflight");
    if (cfg->version != 8 || !hoodie_mdt_listed(cfg, "files")) return 0;
    return only_kept(cfg) && !(inflight && *inflight) ? 1 : 2;
}

char *hoodie_mdtw__mdt_path(const char *base_path)
{
    size_t n = strlen(base_path) + sizeof MDT_DIR;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s%s", base_path, MDT_DIR);
    return p;
}

/* Append a copy of name to names[0..*n); 1 when out of memory (a listing callback's stop). */
int hoodie_mdtw__push_name(char ***names, size_t *n, const char *name)
{
    char **v = realloc(*names, (*n + 1) * sizeof *v);
    if (!v) return 1;
    *names = v;
    if (!(v[*n] = strdup(name))) return 1;
    (*n)++;
    return 0;
}

/* Whether every file of the files partition is one of files-0000-0 (bad: one is not). */
static int scan_cb(const hoodie_dirent *e, void *payload)
{
    int *bad = payload;
    if (e->is_dir || !strcmp(e->name, ".hoodie_partition_metadata")) return 0;
    hoodie_file_name fn;
    hoodie_file_kind k = hoodie_file_name_parse(&fn, e->name);
    if ((k != HOODIE_FILE_BASE && k != HOODIE_FILE_LOG) || fn.file_id.len != strlen(FILES_GROUP) ||
        memcmp(fn.file_id.p, FILES_GROUP, fn.file_id.len))
        *bad = 1;
    return 0;
}

/* The MDT has the layout hoodie keeps: Hudi 1.x's (version 8, timeline layout 2, HFile base files) and one file
 * group in its files partition. */
static int keepable(const hoodie_storage *s, const char *base_path)
{
    char *mdt = hoodie_mdtw__mdt_path(base_path);
    if (!mdt) return 0;
    hoodie_table_config *mc = NULL;
    int ok = hoodie_table_config_load(&mc, s, mdt, 0) == HOODIE_OK && mc->version == 8 &&
             mc->timeline_layout_version == 2 && mc->base_file_format == HOODIE_BASE_HFILE;
    hoodie_buf dir = HOODIE_BUF_INIT;
    int bad = 0;
    if (ok) ok = hoodie_buf_printf(&dir, "%s/files", mdt) == HOODIE_OK &&
                 s->list(s->ctx, (const char *)dir.data, scan_cb, &bad) == HOODIE_OK && !bad;
    hoodie_buf_dispose(&dir);
    hoodie_error_clear();
    hoodie_table_config_free(mc);
    free(mdt);
    return ok;
}

/* ---- the column_stats partition as hoodie keeps it ---- */


void hoodie_mdtw__cs_conf_dispose(cs_conf *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->n_columns; i++) free(c->columns[i]);
    free(c->columns);
    free(c->first);
    free(c);
}

typedef struct group_scan {
    const char *prefix;
    group_set *gs;
    int bad;
    unsigned char *seen;
} group_scan;

static int group_scan_cb(const hoodie_dirent *e, void *payload)
{
    group_scan *sc = payload;
    if (e->is_dir || !strcmp(e->name, ".hoodie_partition_metadata")) return 0;
    hoodie_file_name fn;
    hoodie_file_kind k = hoodie_file_name_parse(&fn, e->name);
    size_t pl = strlen(sc->prefix);
    unsigned g = 0;
    int ok = (k == HOODIE_FILE_BASE || k == HOODIE_FILE_LOG) && fn.file_id.len == pl + 6 &&
             !memcmp(fn.file_id.p, sc->prefix, pl) && !memcmp(fn.file_id.p + pl + 4, "-0", 2);
    for (size_t i = 0; ok && i < 4; i++) {
        char ch = fn.file_id.p[pl + i];
        if (ch < '0' || ch > '9') ok = 0;
        else g = g * 10 + (unsigned)(ch - '0');
    }
    if (!ok || g >= MAX_GROUPS || fn.instant.len > HOODIE_INSTANT_TIME_MAX) { sc->bad = 1; return 0; }
    char inst[HOODIE_INSTANT_TIME_MAX + 1], *first = sc->gs->first[g];
    memcpy(inst, fn.instant.p, fn.instant.len);
    inst[fn.instant.len] = '\0';
    if (!sc->seen[g] || strcmp(inst, first) < 0) memcpy(first, inst, fn.instant.len + 1);
    sc->seen[g] = 1;
    if (g + 1 > sc->gs->n_groups) sc->gs->n_groups = g + 1;
    return 0;
}

/* The file groups of MDT partition `part` named <prefix>NNNN-0 into *gs (first malloc'ed); *ok = 0 when the
 * folder is missing or holds other files, or a number is skipped. */
static hoodie_status scan_groups(const hoodie_storage *s, const char *base_path, const char *part,
                                 const char *prefix, group_set *gs, int *ok)
{
    *ok = 0;
    gs->n_groups = 0;
    gs->first = calloc(MAX_GROUPS, sizeof *gs->first);
    group_scan sc = { prefix, gs, 0, calloc(MAX_GROUPS, 1) };
    hoodie_buf dir = HOODIE_BUF_INIT;
    hoodie_status rc = gs->first && sc.seen ? hoodie_buf_printf(&dir, "%s" MDT_DIR "/%s", base_path, part)
                                            : HOODIE_NOMEM();
    if (rc == HOODIE_OK) rc = s->list(s->ctx, (const char *)dir.data, group_scan_cb, &sc);
    int good = rc == HOODIE_OK && !sc.bad && gs->n_groups;
    for (size_t g = 0; good && g < gs->n_groups; g++) good = sc.seen[g];
    hoodie_buf_dispose(&dir);
    free(sc.seen);
    if (rc == HOODIE_ENOMEM) return rc;
    hoodie_error_clear();
    *ok = good;
    return HOODIE_OK;
}

/* The index definition's source fields of column_stats (hoodie.table.index.defs.path, a JSON file of Hudi 1.x). */
static hoodie_status cs_columns(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                cs_conf *c)
{
    const char *rel = hoodie_table_config_get(cfg, "hoodie.table.index.defs.path");
    hoodie_buf p = HOODIE_BUF_INIT, text = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_printf(&p, "%s/%s", base_path, rel && *rel ? rel : ".hoodie/.index_defs/index.json");
    if (rc == HOODIE_OK) rc = hoodie_storage_read_all(s, (const char *)p.data, &text);
    json_t *root = NULL;
    if (rc == HOODIE_OK) {
        json_error_t je;
        root = json_loadb((const char *)text.data, text.len, 0, &je);
        json_t *def = json_object_get(json_object_get(root, "indexDefinitions"), CS_PART);
        json_t *f = json_object_get(def, "sourceFields"), *ver = json_object_get(def, "version");
        /* Hudi 1.1's definitions carry a version; V2 wraps values otherwise (logical types): hoodie writes V1's */
        size_t n = ver && !(json_is_string(ver) && !strcmp(json_string_value(ver), "V1")) ? 0 : json_array_size(f);
        if (n && !(c->columns = calloc(n, sizeof *c->columns))) rc = HOODIE_NOMEM();
        for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
            const char *name = json_string_value(json_array_get(f, i));
            if (!name || !*name || strchr(name, '.')) { c->n_columns = 0; break; } /* nested fields: not kept */
            if (!(c->columns[c->n_columns] = strdup(name))) rc = HOODIE_NOMEM();
            else c->n_columns++;
        }
    }
    json_decref(root);
    hoodie_buf_dispose(&p);
    hoodie_buf_dispose(&text);
    return rc;
}

/* *out: the column_stats partition hoodie keeps, or NULL (not listed, or not keepable: a missing or unreadable
 * definition or folder counts as not keepable). */
hoodie_status hoodie_mdtw__cs_conf_load(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                  cs_conf **out)
{
    *out = NULL;
    if (!hoodie_mdt_listed(cfg, CS_PART)) return HOODIE_OK;
    cs_conf *c = calloc(1, sizeof *c);
    if (!c) return HOODIE_NOMEM();
    hoodie_status rc = cs_columns(s, base_path, cfg, c);
    group_set gs = { 0, NULL };
    int ok = 0;
    if (rc == HOODIE_OK) rc = scan_groups(s, base_path, CS_PART, CS_PREFIX, &gs, &ok);
    c->n_groups = gs.n_groups, c->first = gs.first;
    if (rc == HOODIE_ENOMEM) { hoodie_mdtw__cs_conf_dispose(c); return rc; }
    hoodie_error_clear();
    if (!ok || !c->n_columns) { hoodie_mdtw__cs_conf_dispose(c); return HOODIE_OK; }
    c->on = 1;
    *out = c;
    return HOODIE_OK;
}

/* *out: the record_index partition hoodie keeps (its file groups record-index-NNNN-0), or NULL: not listed, or a
 * table whose keys hoodie does not see in its files alone (no meta fields; a bucket index or the LSM layout, which
 * insert into log files). */
hoodie_status hoodie_mdtw__rli_conf_load(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                   group_set **out)
{
    *out = NULL;
    if (!hoodie_mdt_listed(cfg, RLI_PART) || !cfg->populate_meta_fields || cfg->bucket_index || cfg->lsm_tree)
        return HOODIE_OK;
    group_set *gs = calloc(1, sizeof *gs);
    int ok = 0;
    hoodie_status rc = gs ? scan_groups(s, base_path, RLI_PART, RLI_PREFIX, gs, &ok) : HOODIE_NOMEM();
    if (rc == HOODIE_OK && ok) *out = gs, gs = NULL;
    if (gs) free(gs->first);
    free(gs);
    return rc;
}

void hoodie_mdtw__rli_conf_free(group_set *gs)
{
    if (gs) free(gs->first);
    free(gs);
}

/* Whether top-level field `column` of the table's Avro schema `js` has values hoodie renders as Java's toString()
 * does for a secondary index: string, int or long (null unions aside, no logical type). */
static int si_column_ok(const char *js, const char *column)
{
    json_error_t je;
    json_t *root = js ? json_loads(js, 0, &je) : NULL;
    json_t *fields = json_object_get(root, "fields"), *f;
    size_t i;
    int ok = 0;
    json_array_foreach (fields, i, f) {
        const char *fname = json_string_value(json_object_get(f, "name"));
        if (!fname || strcmp(fname, column)) continue;
        json_t *t = json_object_get(f, "type"), *br, *one = NULL;
        size_t k;
        if (json_is_array(t)) {
            json_array_foreach (t, k, br) {
                if (json_is_string(br) && !strcmp(json_string_value(br), "null")) continue;
                if (one) { one = NULL; break; } /* a union of two types */
                one = br;
            }
        } else {
            one = t;
        }
        if (json_is_object(one) && !json_object_get(one, "logicalType")) one = json_object_get(one, "type");
        const char *name = json_string_value(one);
        ok = name && (!strcmp(name, "string") || !strcmp(name, "int") || !strcmp(name, "long"));
        break;
    }
    json_decref(root);
    return ok;
}

void hoodie_mdtw__si_conf_free(si_conf *c)
{
    for (size_t i = 0; c && i < c->n; i++) {
        free(c->v[i].name), free(c->v[i].column), free(c->v[i].prefix);
        free(c->v[i].gs.first);
    }
    if (c) free(c->v);
    free(c);
}

/* *out: the secondary indexes hoodie keeps (mdt_int.h si_conf), or NULL: none. They need the record index kept
 * (Hudi builds them on it; hoodie's keeping of it rules out the tables whose keys it would not see). */
hoodie_status hoodie_mdtw__si_conf_load(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                  const group_set *rli, si_conf **out)
{
    *out = NULL;
    const char *listed = hoodie_table_config_get(cfg, "hoodie.table.metadata.partitions");
    if (!rli || !listed || !strstr(listed, SI_PART_PREFIX)) return HOODIE_OK;
    hoodie_arena *a = NULL;
    hoodie_mdt_secondary *defs = NULL;
    size_t n = 0;
    si_conf *c = calloc(1, sizeof *c);
    hoodie_status rc = c ? hoodie_arena_new(&a, NULL, 4096) : HOODIE_NOMEM();
    if (rc == HOODIE_OK) rc = hoodie_mdt_secondary_indexes(s, base_path, cfg, a, &defs, &n);
    if (rc == HOODIE_ECORRUPT) { hoodie_error_clear(); rc = HOODIE_OK; n = 0; } /* unreadable: not kept */
    if (rc == HOODIE_OK && n && !(c->v = calloc(n, sizeof *c->v))) rc = HOODIE_NOMEM();
    /* the table's schema (its latest commit's, else hoodie.table.create.schema): the columns' types */
    char *schema = NULL;
    if (rc == HOODIE_OK && n) {
        hoodie_table *t = NULL;
        hoodie_table_open_opts o = HOODIE_TABLE_OPEN_OPTS_INIT;
        o.storage = s;
        rc = hoodie_table_open(&t, base_path, &o);
        if (rc == HOODIE_OK) rc = hoodie_table__schema(t, NULL, &schema);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; n = 0; } /* no schema: none kept */
        hoodie_table_free(t);
    }
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        if (!si_column_ok(schema, defs[i].column)) continue;
        si_index *x = &c->v[c->n];
        x->name = strdup(defs[i].name), x->column = strdup(defs[i].column);
        x->prefix = malloc(strlen(defs[i].name) + 2);
        if (!x->name || !x->column || !x->prefix) {
            free(x->name), free(x->column), free(x->prefix);
            rc = HOODIE_NOMEM();
            break;
        }
        size_t k = 0;
        for (const char *p = defs[i].name; *p; p++) x->prefix[k++] = *p == '_' ? '-' : *p;
        x->prefix[k++] = '-', x->prefix[k] = '\0';
        int ok = 0;
        rc = scan_groups(s, base_path, x->name, x->prefix, &x->gs, &ok);
        if (rc == HOODIE_OK && ok) c->n++;
        else free(x->name), free(x->column), free(x->prefix), free(x->gs.first), memset(x, 0, sizeof *x);
    }
    hoodie_arena_free(a);
    free(schema);
    if (rc == HOODIE_OK && c->n) *out = c, c = NULL;
    hoodie_mdtw__si_conf_free(c);
    return rc;
}

static int si_kept(const si_conf *si, const char *name)
{
    for (size_t i = 0; si && i < si->n; i++)
        if (!strcmp(si->v[i].name, name)) return 1;
    return 0;
}

hoodie_status hoodie_write__rli_kept(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                     int *kept)
{
    *kept = 0;
    if (hoodie_write__mdt_mode(cfg) == 0) return HOODIE_OK;
    group_set *gs = NULL;
    HOODIE_TRY(hoodie_mdtw__rli_conf_load(hoodie_storage__or_default(s), base_path, cfg, &gs));
    *kept = gs != NULL;
    hoodie_mdtw__rli_conf_free(gs);
    return HOODIE_OK;
}

hoodie_status hoodie_write__cs_layout(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                     char ***columns, size_t *n_columns, size_t *n_groups)
{
    *columns = NULL;
    *n_columns = *n_groups = 0;
    cs_conf *c = NULL;
    HOODIE_TRY(hoodie_mdtw__cs_conf_load(hoodie_storage__or_default(s), base_path, cfg, &c));
    if (!c) return HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no column_stats partition hoodie keeps (listed, with an index "
                               "definition of its columns and file groups col-stats-NNNN-0)", base_path);
    *columns = c->columns, *n_columns = c->n_columns, *n_groups = c->n_groups;
    c->columns = NULL, c->n_columns = 0;
    hoodie_mdtw__cs_conf_dispose(c);
    return HOODIE_OK;
}

hoodie_status hoodie_write__cs_columns(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                       char ***cols, size_t *n)
{
    *cols = NULL;
    *n = 0;
    if (hoodie_write__mdt_mode(cfg) != 1 || !hoodie_mdt_listed(cfg, CS_PART)) return HOODIE_OK;
    size_t groups;
    hoodie_status rc = hoodie_write__cs_layout(s, base_path, cfg, cols, n, &groups);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    return rc;
}

typedef struct dirs_ctx { char **names; size_t n; int oom; int keep_cs, keep_rli; const si_conf *si; } dirs_ctx;

static int dirs_cb(const hoodie_dirent *e, void *payload)
{
    dirs_ctx *c = payload;
    if (!e->is_dir || !strcmp(e->name, ".hoodie") || !strcmp(e->name, "files")) return 0;
    if ((c->keep_cs && !strcmp(e->name, CS_PART)) || (c->keep_rli && !strcmp(e->name, RLI_PART))) return 0;
    if (si_kept(c->si, e->name)) return 0;
    return c->oom = hoodie_mdtw__push_name(&c->names, &c->n, e->name);
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The partitions hoodie keeps of the MDT of cfg: *want the value of hoodie.table.metadata.partitions (sorted, as
 * Hudi lists them), *si the secondary indexes kept (NULL: none). */
static hoodie_status kept_partitions(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                     int *keep_cs, int *keep_rli, si_conf **si, hoodie_buf *want)
{
    cs_conf *cs = NULL;
    group_set *rli = NULL;
    *si = NULL;
    hoodie_status rc = hoodie_mdtw__cs_conf_load(s, base_path, cfg, &cs);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__rli_conf_load(s, base_path, cfg, &rli);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__si_conf_load(s, base_path, cfg, rli, si);
    *keep_cs = cs != NULL, *keep_rli = rli != NULL;
    hoodie_mdtw__cs_conf_dispose(cs);
    hoodie_mdtw__rli_conf_free(rli);
    size_t n = 0;
    char **names = calloc(4 + (*si ? (*si)->n : 0), sizeof *names);
    if (rc == HOODIE_OK && !names) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK) {
        names[n++] = "files";
        if (*keep_cs) names[n++] = CS_PART;
        if (*keep_rli) names[n++] = RLI_PART;
        for (size_t i = 0; *si && i < (*si)->n; i++) names[n++] = (*si)->v[i].name;
        qsort(names, n, sizeof *names, name_cmp);
    }
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++)
        if (hoodie_buf_printf(want, "%s%s", i ? "," : "", names[i]) < 0) rc = HOODIE_NOMEM();
    free(names);
    return rc;
}

/* Remove the MDT partitions hoodie.properties does not list any more (but files). */
static hoodie_status remove_unlisted(const hoodie_storage *s, const char *base_path, int keep_cs, int keep_rli,
                                     const si_conf *si)
{
    char *mdt = hoodie_mdtw__mdt_path(base_path);
    if (!mdt) return HOODIE_NOMEM();
    dirs_ctx d = { NULL, 0, 0, keep_cs, keep_rli, si };
    hoodie_status rc = s->list(s->ctx, mdt, dirs_cb, &d);
    if (rc == HOODIE_OK && d.oom) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < d.n; i++) {
        char *p = hoodie_write__path(mdt, d.names[i]);
        rc = p ? hoodie_storage_remove_tree(s, p) : HOODIE_NOMEM();
        if (rc < 0) hoodie_error__prefix("%s: removing a metadata table partition: ", p ? p : mdt);
        free(p);
    }
    for (size_t i = 0; i < d.n; i++) free(d.names[i]);
    free(d.names);
    free(mdt);
    return rc;
}

hoodie_status hoodie_write__mdt_prepare(const hoodie_storage *s, const char *base_path,
                                        const hoodie_table_config *cfg, int *changed)
{
    if (changed) *changed = 0;
    s = hoodie_storage__or_default(s);
    if (hoodie_write__mdt_mode(cfg) == 0 || !keepable(s, base_path))
        return hoodie_write__drop_metadata_table(s, base_path, cfg, changed);
    /* the partitions hoodie does not keep: out of hoodie.properties first (readers stop using them), then gone */
    int keep_cs, keep_rli;
    si_conf *si = NULL;
    hoodie_buf want = HOODIE_BUF_INIT;
    hoodie_status rc = kept_partitions(s, base_path, cfg, &keep_cs, &keep_rli, &si, &want);
    const char *have = hoodie_table_config_get(cfg, "hoodie.table.metadata.partitions");
    const char *inflight = hoodie_table_config_get(cfg, "hoodie.table.metadata.partitions.inflight");
    if (rc == HOODIE_OK && (!have || strcmp(have, (const char *)want.data) || (inflight && *inflight))) {
        rc = hoodie_write__set_mdt_partitions(s, base_path, cfg, (const char *)want.data);
        if (rc == HOODIE_OK && changed) *changed = 1;
    }
    if (rc == HOODIE_OK) rc = remove_unlisted(s, base_path, keep_cs, keep_rli, si);
    hoodie_mdtw__si_conf_free(si);
    hoodie_buf_dispose(&want);
    return rc;
}
