/*
 * Archival (hudi-format.md 6.6-6.8): when more than keep.max.commits completed writes are on the active timeline,
 * the oldest instants move to the archived timeline until keep.min.commits writes remain. Archival stops before
 * the earliest pending instant, the earliest savepoint and the last clean's earliest commit to retain. Every
 * instant (any action) requested before that cut is archived with all its state files.
 *
 *   v8 (LSM history, .hoodie/timeline/history/): one Parquet file <minRequested>_<maxCompletion>_0.parquet of
 *      HoodieLSMTimelineInstant rows (instantTime, completionTime, action, metadata = the completed file's bytes,
 *      plan = the requested file's bytes, version = 1), then manifest_<N+1> listing the previous manifest's files
 *      and the new one, then _version_ = N+1 (written to a temporary name and renamed);
 *   v6 (.hoodie/archived/.commits_.archive.<N+1>_1-0-1): a log file with one AVRO_DATA_BLOCK of
 *      HoodieArchivedMetaEntry records (one per state file; the completed one carries the metadata).
 * Then the archived instants' files are removed from the active timeline, oldest instant first, its requested
 * and inflight files before the completed one, so that a crash never leaves a completed instant looking pending.
 * An instant found in both timelines (a crash before the removal) is read once; the next run removes it.
 */
#include "services/svc.h"
#include "format/avro/json.h"
#include "format/hlog/hlog_write.h"
#include "model/build.h"
#include "storage/storage.h"
#include "table/mdt.h"
#include "table/pqwrite.h"
#include "util/error.h"
#include "write/avro_enc.h"
#include "write/mdt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- selection ---- */

static int min_time(const char *a, const char *b) { return strcmp(a, b) < 0; }

static hoodie_status select_instants(hoodie_svc *sv, hoodie_instant **out, size_t *n)
{
    const hoodie_timeline *tl = sv->t->tl;
    int64_t maxc = sv->o.max_commits > 0 ? sv->o.max_commits : 30;
    int64_t minc = sv->o.min_commits > 0 ? sv->o.min_commits : 20;
    hoodie_instant_list w = { 0 };
    *out = NULL;
    *n = 0;
    if (minc > maxc) return HOODIE_FAIL(HOODIE_EINVAL, "archive: min commits %lld > max commits %lld",
                                        (long long)minc, (long long)maxc);
    HOODIE_TRY(hoodie_timeline_completed_writes(tl, NULL, &w));
    if ((int64_t)w.count <= maxc) { hoodie_instant_list_dispose(&w); return HOODIE_OK; }
    char cut[HOODIE_INSTANT_TIME_MAX + 1];
    snprintf(cut, sizeof cut, "%s", w.items[w.count - (size_t)minc]->requested);
    hoodie_instant_list_dispose(&w);
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < tl->count; i++) {
        const hoodie_instant *in = &tl->instants[i];
        int stop = in->state != HOODIE_STATE_COMPLETED || in->action == HOODIE_ACTION_SAVEPOINT;
        if (stop && min_time(in->requested, cut)) snprintf(cut, sizeof cut, "%s", in->requested);
    }
    /* the last clean's earliest commit to retain */
    const hoodie_instant *clean = hoodie_timeline_last_completed(tl, HOODIE_ACTION_BIT(HOODIE_ACTION_CLEAN));
    if (clean) {
        json_t *m = NULL;
        rc = hoodie_svc__read_record(sv, clean, HOODIE_STATE_COMPLETED, &m);
        const char *e = json_string_value(json_object_get(m, "earliestCommitToRetain"));
        if (rc == HOODIE_OK && e && *e && min_time(e, cut)) snprintf(cut, sizeof cut, "%s", e);
        json_decref(m);
        HOODIE_TRY(rc);
    }
    /* a metadata table's own instants: those whose log files no compaction took stay */
    const char *kg = hoodie_table_config_get(sv->t->cfg, "hoodie.table.keygenerator.type");
    if (kg && !strcmp(kg, "HOODIE_TABLE_METADATA")) {
        char mc[HOODIE_INSTANT_TIME_MAX + 1];
        hoodie_mdt_compaction_floor(tl, mc);
        if (!*mc) return HOODIE_OK;
        if (min_time(mc, cut)) snprintf(cut, sizeof cut, "%s", mc);
    }
    /* a metadata table's latest compaction: its log blocks of later instants count while they are active */
    if (hoodie_mdt_listed(sv->t->cfg, "files")) {
        char mc[HOODIE_INSTANT_TIME_MAX + 1];
        rc = hoodie_mdt_latest_compaction(sv->s, sv->base_path, mc);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
        else if (rc == HOODIE_OK && !*mc) return HOODIE_OK; /* not compacted yet: nothing can go */
        else if (rc == HOODIE_OK && min_time(mc, cut)) snprintf(cut, sizeof cut, "%s", mc);
        HOODIE_TRY(rc);
    }
    *out = calloc(tl->count + 1, sizeof **out);
    if (!*out) return HOODIE_NOMEM();
    for (size_t i = 0; i < tl->count; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (!min_time(in->requested, cut)) break;
        if (in->state == HOODIE_STATE_COMPLETED) (*out)[(*n)++] = *in;
    }
    return HOODIE_OK;
}

static hoodie_status read_state(hoodie_svc *sv, const hoodie_instant *in, hoodie_instant_state st, hoodie_buf *out)
{
    hoodie_buf path = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_timeline_instant_path(sv->t->tl, in, st, &path);
    if (rc == HOODIE_OK) rc = hoodie_storage_read_all(sv->s, (const char *)path.data, out);
    hoodie_buf_dispose(&path);
    return rc;
}

/* ---- v8: LSM history ---- */

typedef struct man_ctx { long max; } man_ctx;

static int man_cb(const hoodie_dirent *e, void *payload)
{
    man_ctx *c = payload;
    if (!strncmp(e->name, "manifest_", 9)) {
        char *end;
        long v = strtol(e->name + 9, &end, 10);
        if (!*end && v > c->max) c->max = v;
    }
    return 0;
}

static hoodie_status lsm_write(hoodie_svc *sv, const hoodie_instant *ins, size_t n)
{
    char *dir = hoodie_write__path(sv->base_path, ".hoodie/timeline/history");
    hoodie_field schema;
    hoodie_batch b;
    int have_schema = 0, have_batch = 0;
    hoodie_pqwrite *w = NULL;
    char *path = NULL, *tmp = NULL, *vpath = NULL;
    hoodie_buf text = HOODIE_BUF_INIT, old = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
    json_t *man = NULL;
    if (!dir) return HOODIE_NOMEM();
    hoodie_status rc = sv->s->mkdirs(sv->s->ctx, dir);
    static const struct { const char *name; hoodie_type_id t; int nullable; } cols[] = {
        { "instantTime", HOODIE_TYPE_STRING, 0 }, { "completionTime", HOODIE_TYPE_STRING, 1 },
        { "action", HOODIE_TYPE_STRING, 0 }, { "metadata", HOODIE_TYPE_BINARY, 1 },
        { "plan", HOODIE_TYPE_BINARY, 1 }, { "version", HOODIE_TYPE_INT32, 0 },
    };
    if (rc == HOODIE_OK) rc = hoodie_field_init(&schema, "HoodieLSMTimelineInstant", hoodie_type_of(HOODIE_TYPE_STRUCT), 0);
    have_schema = rc == HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < sizeof cols / sizeof *cols; i++) {
        hoodie_field f;
        rc = hoodie_field_init(&f, cols[i].name, hoodie_type_of(cols[i].t), cols[i].nullable);
        if (rc == HOODIE_OK) { rc = hoodie_field_add_child(&schema, &f); hoodie_field_dispose(&f); }
    }
    if (rc == HOODIE_OK) rc = hoodie_batch_init(&b, &schema);
    have_batch = rc == HOODIE_OK;
    char minr[HOODIE_INSTANT_TIME_MAX + 1] = "", maxc[HOODIE_INSTANT_TIME_MAX + 1] = "";
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        const hoodie_instant *in = &ins[i];
        hoodie_array *c = b.root.children;
        const hoodie_field *f = b.schema.children;
        if (!minr[0] || strcmp(in->requested, minr) < 0) snprintf(minr, sizeof minr, "%s", in->requested);
        const char *ct = in->completion[0] ? in->completion : in->requested;
        if (strcmp(ct, maxc) > 0) snprintf(maxc, sizeof maxc, "%s", ct);
        rc = hoodie_array_append_str(&c[0], &f[0], in->requested);
        if (rc == HOODIE_OK) rc = in->completion[0] ? hoodie_array_append_str(&c[1], &f[1], in->completion)
                                                    : hoodie_array_append_null(&c[1], &f[1]);
        if (rc == HOODIE_OK) rc = hoodie_array_append_str(&c[2], &f[2], hoodie_action_name(in->action));
        hoodie_buf_clear(&data);
        if (rc == HOODIE_OK) rc = read_state(sv, in, HOODIE_STATE_COMPLETED, &data);
        if (rc == HOODIE_OK) rc = hoodie_array_append_bytes(&c[3], &f[3], data.data ? data.data : (const uint8_t *)"", data.len);
        hoodie_buf_clear(&data);
        if (rc == HOODIE_OK && (in->state_files & HOODIE_STATE_BIT(HOODIE_STATE_REQUESTED))) {
            hoodie_instant pend = *in;
            pend.action = pend.plan_action;
            rc = read_state(sv, &pend, HOODIE_STATE_REQUESTED, &data);
            if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; hoodie_buf_clear(&data); }
        }
        if (rc == HOODIE_OK) rc = data.len ? hoodie_array_append_bytes(&c[4], &f[4], data.data, data.len)
                                           : hoodie_array_append_null(&c[4], &f[4]);
        if (rc == HOODIE_OK) rc = hoodie_array_append_int(&c[5], &f[5], 1);
        b.root.length++;
    }
    /* the previous manifest */
    man_ctx mc = { 0 };
    if (rc == HOODIE_OK) {
        rc = sv->s->list(sv->s->ctx, dir, man_cb, &mc);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    }
    json_t *files = NULL;
    if (rc == HOODIE_OK && mc.max > 0) {
        char name[64];
        snprintf(name, sizeof name, "manifest_%ld", mc.max);
        char *mp = hoodie_write__path(dir, name);
        rc = mp ? hoodie_storage_read_all(sv->s, mp, &old) : HOODIE_NOMEM();
        free(mp);
        json_error_t je;
        if (rc == HOODIE_OK && !(man = json_loadb((const char *)old.data, old.len, 0, &je)))
            rc = HOODIE_CORRUPT("%s/manifest_%ld: not JSON", dir, mc.max);
        files = json_object_get(man, "files");
    }
    if (rc == HOODIE_OK && !man) {
        man = json_object();
        files = json_array();
        if (hoodie_svc__set(man, "files", files) < 0) rc = HOODIE_NOMEM();
    }
    /* the new file */
    char fname[128];
    snprintf(fname, sizeof fname, "%s_%s_0.parquet", minr, maxc);
    if (rc == HOODIE_OK && !(path = hoodie_write__path(dir, fname))) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK) {
        hoodie_svc__remove(sv->s, path); /* a dead run's file of the same instants */
        hoodie_parquet_write_opts po = { 0 };
        po.version = HOODIE_PARQUET_WRITE_OPTS_VERSION;
        po.codec = HOODIE_PARQUET_CODEC_UNCOMPRESSED;
        rc = hoodie_pqwrite_open(&w, path, sv->s, &schema, &po);
    }
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_write_batch(w, &b);
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_close(w);
    uint64_t size = w ? hoodie_pqwrite_size(w) : 0;
    json_t *fe = json_object();
    if (rc == HOODIE_OK) {
        int bad = hoodie_svc__set(fe, "fileName", json_string(fname)) < 0;
        bad |= hoodie_svc__set(fe, "fileLen", json_integer((json_int_t)size)) < 0;
        bad |= json_array_append(files, fe) < 0;
        if (bad) rc = HOODIE_NOMEM();
    }
    json_decref(fe);
    char *mtext = rc == HOODIE_OK ? json_dumps(man, JSON_INDENT(2)) : NULL;
    if (rc == HOODIE_OK && !mtext) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK) {
        char name[64];
        snprintf(name, sizeof name, "manifest_%ld", mc.max + 1);
        char *mp = hoodie_write__path(dir, name);
        if (!mp) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) { hoodie_svc__remove(sv->s, mp); rc = hoodie_storage_write_all(sv->s, mp, HOODIE_CREATE_EXCLUSIVE, mtext, strlen(mtext)); }
        free(mp);
    }
    free(mtext);
    /* _version_, replaced atomically */
    if (rc == HOODIE_OK) {
        char v[32];
        snprintf(v, sizeof v, "%ld", mc.max + 1);
        tmp = hoodie_write__path(dir, "._version_.tmp");
        vpath = hoodie_write__path(dir, "_version_");
        if (!tmp || !vpath) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) { hoodie_svc__remove(sv->s, tmp); rc = hoodie_storage_write_all(sv->s, tmp, 0, v, strlen(v)); }
        if (rc == HOODIE_OK) rc = sv->s->rename(sv->s->ctx, tmp, vpath);
    }
    json_decref(man);
    hoodie_pqwrite_free(w);
    if (have_batch) hoodie_batch_dispose(&b);
    if (have_schema) hoodie_field_dispose(&schema);
    hoodie_buf_dispose(&text);
    hoodie_buf_dispose(&old);
    hoodie_buf_dispose(&data);
    free(path);
    free(tmp);
    free(vpath);
    free(dir);
    return rc;
}

/* ---- v6: archive log ---- */

/* Replace repeated definitions of named types by their full name (schemas composed from several records). */
static json_t *dedupe_names(json_t *s, const char *ns, json_t *seen)
{
    if (json_is_array(s)) {
        json_t *a = json_array();
        for (size_t i = 0; i < json_array_size(s); i++) json_array_append_new(a, dedupe_names(json_array_get(s, i), ns, seen));
        return a;
    }
    if (!json_is_object(s)) return json_incref(s);
    const char *type = json_string_value(json_object_get(s, "type"));
    const char *name = json_string_value(json_object_get(s, "name"));
    const char *nns = json_string_value(json_object_get(s, "namespace"));
    if (nns) ns = nns;
    if (type && name && (!strcmp(type, "record") || !strcmp(type, "enum") || !strcmp(type, "fixed"))) {
        char full[512];
        if (strchr(name, '.')) snprintf(full, sizeof full, "%s", name);
        else snprintf(full, sizeof full, "%s.%s", ns ? ns : "", name);
        if (json_object_get(seen, full)) return json_string(full);
        json_object_set_new(seen, full, json_true());
    }
    json_t *o = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(s, k, v) {
        if (!strcmp(k, "fields") || !strcmp(k, "items") || !strcmp(k, "values") || !strcmp(k, "type")) {
            if (json_is_array(v) && !strcmp(k, "fields")) {
                json_t *fa = json_array();
                for (size_t i = 0; i < json_array_size(v); i++) {
                    json_t *fo = json_object(), *fld = json_array_get(v, i);
                    const char *fk;
                    json_t *fv;
                    json_object_foreach(fld, fk, fv)
                        json_object_set_new(fo, fk, !strcmp(fk, "type") ? dedupe_names(fv, ns, seen) : json_incref(fv));
                    json_array_append_new(fa, fo);
                }
                json_object_set_new(o, k, fa);
            } else {
                json_object_set_new(o, k, dedupe_names(v, ns, seen));
            }
        } else {
            json_object_set_new(o, k, json_incref(v));
        }
    }
    return o;
}

static char *entry_schema(void)
{
    static const struct { const char *field; const char *schema; } parts[] = {
        { "hoodieCommitMetadata", hoodie_write__schema_commit },
        { "hoodieCleanMetadata", hoodie_svc__schema_clean_meta },
        { "hoodieRollbackMetadata", hoodie_write__schema_rollback_meta },
        { "hoodieSavePointMetadata", hoodie_svc__schema_savepoint },
        { "hoodieReplaceCommitMetadata", hoodie_write__schema_replace },
    };
    json_t *seen = json_object(), *fields = json_array();
    json_object_set_new(seen, "org.apache.hudi.avro.model.HoodieArchivedMetaEntry", json_true());
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        json_error_t je;
        json_t *s = json_loads(parts[i].schema, 0, &je);
        json_t *d = s ? dedupe_names(s, "org.apache.hudi.avro.model", seen) : json_null();
        json_decref(s);
        json_array_append_new(fields, json_pack("{s:s,s:[s,o],s:n}", "name", parts[i].field, "type", "null", d, "default"));
        if (i == 3) {
            json_array_append_new(fields, json_pack("{s:s,s:[s,s],s:n}", "name", "commitTime", "type", "null", "string", "default"));
            json_array_append_new(fields, json_pack("{s:s,s:[s,s],s:n}", "name", "actionType", "type", "null", "string", "default"));
            json_array_append_new(fields, json_pack("{s:s,s:[s,s],s:i}", "name", "version", "type", "int", "null", "default", 1));
            json_array_append_new(fields, json_pack("{s:s,s:[s,s],s:n}", "name", "actionState", "type", "null", "string", "default"));
        }
    }
    json_t *root = json_pack("{s:s,s:s,s:s,s:o}", "type", "record", "name", "HoodieArchivedMetaEntry", "namespace",
                             "org.apache.hudi.avro.model", "fields", fields);
    char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    json_decref(seen);
    return text;
}

static const char *meta_field(hoodie_action a)
{
    switch (a) {
    case HOODIE_ACTION_COMMIT: case HOODIE_ACTION_DELTACOMMIT: return "hoodieCommitMetadata";
    case HOODIE_ACTION_REPLACECOMMIT: return "hoodieReplaceCommitMetadata";
    case HOODIE_ACTION_ROLLBACK: return "hoodieRollbackMetadata";
    case HOODIE_ACTION_CLEAN: return "hoodieCleanMetadata";
    case HOODIE_ACTION_SAVEPOINT: return "hoodieSavePointMetadata";
    default: return NULL;
    }
}

/* Fill what a record schema needs and the value lacks (defaults, zero values), so that a JSON document written
 * by Jackson encodes with the Avro schema. */
static json_t *conform(json_t *names, json_t *s, json_t *v)
{
    if (json_is_string(s)) {
        const char *t = json_string_value(s);
        json_t *named = json_object_get(names, t);
        if (named) return conform(names, named, v);
        if (!strcmp(t, "null")) return json_null();
        if (!strcmp(t, "string")) return json_is_string(v) ? json_incref(v) : json_string("");
        if (!strcmp(t, "int") || !strcmp(t, "long")) return json_is_integer(v) ? json_incref(v) : json_integer(0);
        if (!strcmp(t, "double") || !strcmp(t, "float")) return json_is_number(v) ? json_incref(v) : json_real(0);
        if (!strcmp(t, "boolean")) return json_is_boolean(v) ? json_incref(v) : json_false();
        return json_incref(v);
    }
    if (json_is_array(s)) { /* union: null if allowed and the value is null, else the first branch that takes it */
        int has_null = 0;
        for (size_t i = 0; i < json_array_size(s); i++)
            if (!strcmp(json_string_value(json_array_get(s, i)) ? json_string_value(json_array_get(s, i)) : "", "null"))
                has_null = 1;
        if (!v || json_is_null(v)) return has_null ? json_null() : conform(names, json_array_get(s, 0), v);
        for (size_t i = 0; i < json_array_size(s); i++) {
            json_t *b = json_array_get(s, i);
            const char *bt = json_is_string(b) ? json_string_value(b) : json_string_value(json_object_get(b, "type"));
            if (bt && !strcmp(bt, "null")) continue;
            return conform(names, b, v);
        }
        return json_null();
    }
    const char *t = json_string_value(json_object_get(s, "type"));
    if (!t) return conform(names, json_object_get(s, "type"), v);
    if (!strcmp(t, "record")) {
        const char *name = json_string_value(json_object_get(s, "name"));
        if (name) json_object_set(names, name, s);
        json_t *o = json_object();
        json_t *fields = json_object_get(s, "fields");
        for (size_t i = 0; i < json_array_size(fields); i++) {
            json_t *f = json_array_get(fields, i);
            const char *fn = json_string_value(json_object_get(f, "name"));
            json_t *fv = json_is_object(v) ? json_object_get(v, fn) : NULL;
            json_object_set_new(o, fn, conform(names, json_object_get(f, "type"), fv));
        }
        return o;
    }
    if (!strcmp(t, "array")) {
        json_t *a = json_array();
        for (size_t i = 0; json_is_array(v) && i < json_array_size(v); i++)
            json_array_append_new(a, conform(names, json_object_get(s, "items"), json_array_get(v, i)));
        return a;
    }
    if (!strcmp(t, "map")) {
        json_t *o = json_object();
        const char *k;
        json_t *x;
        if (json_is_object(v)) json_object_foreach(v, k, x) json_object_set_new(o, k, conform(names, json_object_get(s, "values"), x));
        return o;
    }
    return conform(names, json_object_get(s, "type"), v);
}

typedef struct arch_ctx { unsigned long long max; int any; } arch_ctx;

static int arch_cb(const hoodie_dirent *e, void *payload)
{
    arch_ctx *c = payload;
    static const char prefix[] = ".commits_.archive.";
    if (strncmp(e->name, prefix, sizeof prefix - 1)) return 0;
    unsigned long long n = strtoull(e->name + sizeof prefix - 1, NULL, 10);
    if (!c->any || n > c->max) c->max = n;
    c->any = 1;
    return 0;
}

static hoodie_status v6_write(hoodie_svc *sv, const hoodie_instant *ins, size_t n)
{
    char *dir = hoodie_write__path(sv->base_path, sv->t->cfg->archive_dir);
    char *schema_text = entry_schema();
    json_t *schema = NULL, *names = json_object();
    hoodie_buf file = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
    hoodie_status rc = dir && schema_text && names ? HOODIE_OK : HOODIE_NOMEM();
    json_error_t je;
    if (rc == HOODIE_OK && !(schema = json_loads(schema_text, 0, &je))) rc = HOODIE_FAIL(HOODIE_EINVAL, "archive entry schema");
    json_t *entries = json_array();
    static const char *const states[] = { "REQUESTED", "INFLIGHT", "COMPLETED" };
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        const hoodie_instant *in = &ins[i];
        for (int st = HOODIE_STATE_REQUESTED; st <= HOODIE_STATE_COMPLETED && rc == HOODIE_OK; st++) {
            if (!(in->state_files & HOODIE_STATE_BIT(st)) && st != HOODIE_STATE_COMPLETED) continue;
            hoodie_action act = st == HOODIE_STATE_COMPLETED ? in->action : in->plan_action;
            json_t *e = json_object();
            hoodie_svc__set(e, "commitTime", json_string(in->requested));
            hoodie_svc__set(e, "actionType", json_string(hoodie_action_name(act)));
            hoodie_svc__set(e, "actionState", json_string(states[st]));
            hoodie_svc__set(e, "version", json_integer(1));
            const char *field = st == HOODIE_STATE_COMPLETED ? meta_field(in->action) : NULL;
            if (field) {
                json_t *m = NULL;
                rc = hoodie_svc__read_record(sv, in, HOODIE_STATE_COMPLETED, &m);
                if (rc == HOODIE_OK && m) hoodie_svc__set(e, field, m);
            }
            json_array_append_new(entries, e);
        }
    }
    /* conform every entry to the schema, encode, one data block */
    json_t *conformed = json_array();
    for (size_t i = 0; rc == HOODIE_OK && i < json_array_size(entries); i++)
        json_array_append_new(conformed, conform(names, schema, json_array_get(entries, i)));
    hoodie_hlog_header_entry hdr[2] = { { HOODIE_HLOG_INSTANT_TIME, NULL, 0 }, { HOODIE_HLOG_SCHEMA, NULL, 0 } };
    if (rc == HOODIE_OK) {
        hdr[0].value = ins[n - 1].requested;
        hdr[0].len = strlen(ins[n - 1].requested);
        hdr[1].value = schema_text;
        hdr[1].len = strlen(schema_text);
        hoodie_hlog_block_mark mk;
        hoodie_hlog_avro_writer aw;
        rc = hoodie_hlog_block_begin(&file, &mk, HOODIE_HLOG_AVRO_DATA_BLOCK, hdr, 2);
        if (rc == HOODIE_OK) rc = hoodie_hlog_avro_content_begin(&file, &aw);
        for (size_t i = 0; rc == HOODIE_OK && i < json_array_size(conformed); i++) {
            rc = hoodie_hlog_avro_record_begin(&file, &aw);
            if (rc == HOODIE_OK) rc = hoodie_write__avro_encode(&file, schema, json_array_get(conformed, i));
            if (rc == HOODIE_OK) rc = hoodie_hlog_avro_record_end(&file, &aw);
        }
        if (rc == HOODIE_OK) rc = hoodie_hlog_avro_content_end(&file, &aw);
        if (rc == HOODIE_OK) rc = hoodie_hlog_block_end(&file, &mk);
    }
    arch_ctx ac = { 0, 0 };
    if (rc == HOODIE_OK) rc = sv->s->mkdirs(sv->s->ctx, dir);
    if (rc == HOODIE_OK) {
        rc = sv->s->list(sv->s->ctx, dir, arch_cb, &ac);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    }
    if (rc == HOODIE_OK) {
        char name[96];
        snprintf(name, sizeof name, ".commits_.archive.%llu_1-0-1", ac.any ? ac.max + 1 : 1ull);
        char *p = hoodie_write__path(dir, name);
        rc = p ? hoodie_storage_write_all(sv->s, p, HOODIE_CREATE_EXCLUSIVE, file.data, file.len) : HOODIE_NOMEM();
        free(p);
    }
    json_decref(conformed);
    json_decref(entries);
    json_decref(schema);
    json_decref(names);
    free(schema_text);
    hoodie_buf_dispose(&file);
    hoodie_buf_dispose(&data);
    free(dir);
    return rc;
}

hoodie_status hoodie_archive(const char *base_path, const hoodie_service_opts *opts, hoodie_service_result *result)
{
    hoodie_svc sv;
    hoodie_service_result res;
    hoodie_instant *ins = NULL;
    size_t n = 0;
    memset(&res, 0, sizeof res);
    hoodie_status rc = hoodie_svc__open(&sv, base_path, opts, 0);
    if (rc == HOODIE_OK) rc = select_instants(&sv, &ins, &n);
    if (rc == HOODIE_OK && n) {
        rc = sv.t->cfg->timeline_layout_version >= 2 ? lsm_write(&sv, ins, n) : v6_write(&sv, ins, n);
        /* then out of the active timeline, oldest first; completed files last per instant */
        for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
            rc = hoodie_svc__remove_instant_files(&sv, &ins[i], 0);
            if (rc == HOODIE_OK) rc = hoodie_svc__remove_instant_files(&sv, &ins[i], 1);
        }
        if (rc == HOODIE_OK) {
            snprintf(res.instant, sizeof res.instant, "%s", ins[n - 1].requested);
            res.instants = (int64_t)n;
        }
    }
    free(ins);
    /* then the metadata table's own timeline, as Hudi archives it with the table's settings */
    int mdt = rc == HOODIE_OK && hoodie_write__mdt_mode(sv.t->cfg) == 1;
    char *mpath = mdt ? hoodie_write__path(sv.base_path, ".hoodie/metadata") : NULL;
    hoodie_svc__close(&sv);
    if (mdt && !mpath) rc = HOODIE_NOMEM();
    if (mpath) {
        hoodie_service_opts mo = opts ? *opts : (hoodie_service_opts)HOODIE_SERVICE_OPTS_INIT;
        mo.progress = NULL;
        rc = hoodie_archive(mpath, &mo, NULL);
        if (rc < 0) hoodie_error__prefix("archiving the metadata table: ");
        free(mpath);
    }
    if (result) *result = res;
    return rc;
}
