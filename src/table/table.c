#include "table/table.h"
#include "table/archived.h"
#include "format/avro/schema.h"
#include "model/avro.h"
#include "storage/storage.h"
#include "util/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hoodie_status hoodie_table_open(hoodie_table **out, const char *base_path, const hoodie_table_open_opts *opts)
{
    hoodie_status rc;
    *out = NULL;
    if (!base_path || !*base_path) return HOODIE_FAIL(HOODIE_EINVAL, "no table path given");
    hoodie_table *t = calloc(1, sizeof *t);
    if (!t) return HOODIE_NOMEM();
    t->storage = opts && opts->storage ? opts->storage : hoodie_storage_default();
    t->open_flags = opts ? opts->flags : 0;
    t->base_path = strdup(base_path);
    if (!t->base_path) { free(t); return HOODIE_NOMEM(); }
    for (size_t n = strlen(t->base_path); n > 1 && t->base_path[n - 1] == '/'; n--) t->base_path[n - 1] = '\0';
    unsigned flags = opts && (opts->flags & HOODIE_OPEN_NO_CHECKSUM) ? HOODIE_CONFIG_NO_CHECKSUM : 0;
    if ((rc = hoodie_table_config_load(&t->cfg, t->storage, t->base_path, flags)) < 0 ||
        (rc = hoodie_timeline_load(&t->tl, t->storage, t->base_path, t->cfg)) < 0) {
        hoodie_table_free(t);
        return rc;
    }
    /* a metadata table that is listed but not there (removed with its folder): storage is listed instead */
    if (opts && (opts->flags & HOODIE_OPEN_METADATA_TABLE) && hoodie_mdt_listed(t->cfg, "files") &&
        (rc = hoodie_mdt_files(&t->mdt, t->storage, t->base_path, t->tl)) < 0) {
        if (rc != HOODIE_ENOTFOUND) {
            hoodie_table_free(t);
            return rc;
        }
        hoodie_error_clear();
    }
    if ((rc = hoodie_evo_load(&t->evo, t->storage, t->base_path, t->tl)) < 0) {
        t->evo_rc = rc;
        t->evo_err = strdup(hoodie_error__message());
        hoodie_error_clear();
        if (rc == HOODIE_ENOMEM || !t->evo_err) {
            hoodie_table_free(t);
            return HOODIE_NOMEM();
        }
    }
    *out = t;
    return HOODIE_OK;
}

void hoodie_table_free(hoodie_table *t)
{
    if (!t) return;
    hoodie_evo_free(t->evo);
    hoodie_mdt_listing_free(t->mdt);
    free(t->evo_err);
    hoodie_timeline_free(t->tl);
    hoodie_table_config_free(t->cfg);
    free(t->base_path);
    free(t);
}

const char *hoodie_table_name(const hoodie_table *t) { return t->cfg->name; }
const char *hoodie_table_base_path(const hoodie_table *t) { return t->base_path; }
int hoodie_table_version(const hoodie_table *t) { return t->cfg->version; }
int hoodie_table_is_mor(const hoodie_table *t) { return t->cfg->type == HOODIE_TABLE_MERGE_ON_READ; }
const char *hoodie_table_property(const hoodie_table *t, const char *key)
{
    return key ? hoodie_props_get(&t->cfg->props, key) : NULL;
}

size_t hoodie_table_instant_count(const hoodie_table *t) { return t->tl->count; }

hoodie_status hoodie_table_instant(const hoodie_table *t, size_t i, hoodie_instant_info *out)
{
    if (i >= t->tl->count) return HOODIE_FAIL(HOODIE_EINVAL, "instant index %zu out of range", i);
    const hoodie_instant *in = &t->tl->instants[i];
    out->requested = in->requested;
    out->completion = in->completion;
    out->action = hoodie_action_name(in->state == HOODIE_STATE_COMPLETED ? in->action : in->plan_action);
    out->state = hoodie_state_name(in->state);
    return HOODIE_OK;
}

hoodie_status hoodie_table__evo_ok(const hoodie_table *t)
{
    return t->evo_rc < 0 ? HOODIE_FAIL(t->evo_rc, "%s", t->evo_err) : HOODIE_OK;
}

hoodie_status hoodie_table__commit_meta(const hoodie_table *t, const hoodie_instant *in, hoodie_commit_meta **out)
{
    hoodie_buf path = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_timeline_instant_path(t->tl, in, HOODIE_STATE_COMPLETED, &path);
    if (rc == HOODIE_OK) rc = hoodie_storage_read_all(t->storage, (const char *)path.data, &data);
    if (rc == HOODIE_OK) rc = hoodie_commit_meta_decode(out, data.data, data.len, (const char *)path.data);
    hoodie_buf_dispose(&path);
    hoodie_buf_dispose(&data);
    return rc;
}

hoodie_status hoodie_table_instant_extra(const hoodie_table *t, size_t i, const char *key, char **value)
{
    if (!key || !value || i >= t->tl->count) return HOODIE_FAIL(HOODIE_EINVAL, "instant extra: no key or instant");
    *value = NULL;
    const hoodie_instant *in = &t->tl->instants[i];
    if (in->state != HOODIE_STATE_COMPLETED || !(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action)))
        return HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: instant %s is not a completed write", t->base_path, in->requested);
    hoodie_commit_meta *m = NULL;
    HOODIE_TRY(hoodie_table__commit_meta(t, in, &m));
    const char *v = hoodie_commit_meta_extra(m, key);
    hoodie_status rc = HOODIE_OK;
    if (!v) rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: instant %s has no extra metadata '%s'", t->base_path,
                             in->requested, key);
    else if (!(*value = strdup(v))) rc = HOODIE_NOMEM();
    hoodie_commit_meta_free(m);
    return rc;
}

hoodie_status hoodie_table_commit_extra(const hoodie_table *t, const char *key, char **value, char *instant,
                                        size_t instant_len)
{
    if (!key || !value) return HOODIE_FAIL(HOODIE_EINVAL, "commit extra: no key");
    *value = NULL;
    for (size_t i = t->tl->count; i-- > 0;) {
        const hoodie_instant *in = &t->tl->instants[i];
        if (in->state != HOODIE_STATE_COMPLETED || !(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action))) continue;
        hoodie_status rc = hoodie_table_instant_extra(t, i, key, value);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); continue; }
        if (rc == HOODIE_OK && instant && instant_len) snprintf(instant, instant_len, "%s", in->requested);
        return rc;
    }
    return HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no completed commit has extra metadata '%s'", t->base_path, key);
}

void hoodie_replaced_set_dispose(hoodie_replaced_set *r)
{
    for (size_t i = 0; i < r->meta_count; i++) hoodie_commit_meta_free(r->metas[i]);
    free(r->metas);
    free(r->partitions);
    free(r->file_ids);
    memset(r, 0, sizeof *r);
}

hoodie_status hoodie_table__replaced(const hoodie_table *t, const char *as_of, hoodie_replaced_set *out)
{
    hoodie_status rc = HOODIE_OK;
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    for (size_t i = 0; i < t->tl->count && rc == HOODIE_OK; i++) {
        const hoodie_instant *in = &t->tl->instants[i];
        if (in->state != HOODIE_STATE_COMPLETED || in->action != HOODIE_ACTION_REPLACECOMMIT) continue;
        if (as_of && strcmp(in->requested, as_of) > 0) continue;
        hoodie_commit_meta *m;
        if ((rc = hoodie_table__commit_meta(t, in, &m)) < 0) break;
        hoodie_commit_meta **nm = realloc(out->metas, (out->meta_count + 1) * sizeof *nm);
        if (!nm) { hoodie_commit_meta_free(m); rc = HOODIE_NOMEM(); break; }
        out->metas = nm;
        out->metas[out->meta_count++] = m;
        for (size_t p = 0; p < m->replaced_count && rc == HOODIE_OK; p++)
            for (size_t f = 0; f < m->replaced[p].count; f++) {
                if (out->count == cap) {
                    cap = cap ? cap * 2 : 16;
                    const char **np = realloc(out->partitions, cap * sizeof *np);
                    if (np) out->partitions = np;
                    const char **nf = realloc(out->file_ids, cap * sizeof *nf);
                    if (nf) out->file_ids = nf;
                    if (!np || !nf) { rc = HOODIE_NOMEM(); break; }
                }
                out->partitions[out->count] = m->replaced[p].partition_path;
                out->file_ids[out->count] = m->replaced[p].file_ids[f];
                out->count++;
            }
    }
    if (rc < 0) hoodie_replaced_set_dispose(out);
    return rc;
}

hoodie_status hoodie_table__schema(const hoodie_table *t, const char *as_of, char **out)
{
    *out = NULL;
    for (size_t i = t->tl->count; i-- > 0;) {
        const hoodie_instant *in = &t->tl->instants[i];
        if (in->state != HOODIE_STATE_COMPLETED || !(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action))) continue;
        if (as_of && strcmp(in->requested, as_of) > 0) continue;
        hoodie_commit_meta *m;
        HOODIE_TRY(hoodie_table__commit_meta(t, in, &m));
        if (m->schema && *m->schema) {
            *out = strdup(m->schema);
            hoodie_commit_meta_free(m);
            return *out ? HOODIE_OK : HOODIE_NOMEM();
        }
        hoodie_commit_meta_free(m);
    }
    /* no schema in the active timeline as of that instant: the archived writes before it may have one */
    if (!as_of || hoodie_timeline_before_start(t->tl, as_of) || t->tl->count == 0) {
        hoodie_archived_timeline *a;
        HOODIE_TRY(hoodie_archived_load(&a, t->storage, t->base_path, t->cfg));
        hoodie_status rc = HOODIE_OK;
        for (size_t i = a->count; i-- > 0 && rc == HOODIE_OK && !*out;) {
            const hoodie_instant *in = &a->instants[i];
            if (in->state != HOODIE_STATE_COMPLETED || !(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action))) continue;
            if (as_of && strcmp(in->requested, as_of) > 0) continue;
            hoodie_commit_meta *m;
            if ((rc = hoodie_archived_commit_meta(a, i, &m)) < 0) break;
            if (m->schema && *m->schema && !(*out = strdup(m->schema))) rc = HOODIE_NOMEM();
            hoodie_commit_meta_free(m);
        }
        hoodie_archived_free(a);
        HOODIE_TRY(rc);
        if (*out) return HOODIE_OK;
    }
    if (t->cfg->create_schema && *t->cfg->create_schema) {
        *out = strdup(t->cfg->create_schema);
        return *out ? HOODIE_OK : HOODIE_NOMEM();
    }
    return HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no schema in the timeline or the table config", t->base_path);
}

hoodie_status hoodie_table__schema_field(const hoodie_table *t, const char *as_of, hoodie_field *out)
{
    char *json = NULL;
    HOODIE_TRY(hoodie_table__schema(t, as_of, &json));
    hoodie_arena *a;
    hoodie_avro_schema *s;
    hoodie_status rc = hoodie_arena_new(&a, NULL, 16384);
    if (rc == HOODIE_OK) rc = hoodie_avro_schema_parse(&s, json, strlen(json), a, "table schema");
    if (rc == HOODIE_OK) rc = hoodie_avro_to_field(out, s, "root");
    hoodie_arena_free(a);
    free(json);
    return rc;
}

hoodie_status hoodie_table__fsview(const hoodie_table *t, const char *as_of,
                                   int (*partition_filter)(void *ctx, const char *partition), void *filter_ctx,
                                   hoodie_fsview **out)
{
    hoodie_replaced_set r;
    HOODIE_TRY(hoodie_table__replaced(t, as_of, &r));
    hoodie_fsview_opts o = { as_of, r.partitions, r.file_ids, r.count, partition_filter, filter_ctx, t->mdt };
    hoodie_status rc = hoodie_fsview_build(out, t->storage, t->base_path, t->cfg, t->tl, &o);
    hoodie_replaced_set_dispose(&r);
    return rc;
}

/* ---- renderings ---- */

static hoodie_status finish_json(json_t *root, char **out)
{
    *out = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    return *out ? HOODIE_OK : HOODIE_NOMEM();
}

static hoodie_status finish_buf(hoodie_buf *b, char **out)
{
    hoodie_status rc = hoodie_buf_cstr(b);
    if (rc < 0) { hoodie_buf_dispose(b); return rc; }
    *out = (char *)hoodie_buf_detach(b, NULL);
    return HOODIE_OK;
}

static json_t *str_list_json(const hoodie_str_list *l)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < l->count; i++) json_array_append_new(a, json_string(l->items[i]));
    return a;
}

static void str_list_text(hoodie_buf *b, const hoodie_str_list *l)
{
    if (!l->count) hoodie_buf_append_str(b, "-");
    for (size_t i = 0; i < l->count; i++) hoodie_buf_printf(b, "%s%s", i ? "," : "", l->items[i]);
}

/* The index hoodie writes the table with. */
static const char *index_name(const hoodie_table_config *c)
{
    return c->bucket_index ? "BUCKET" : c->populate_meta_fields ? "BLOOM" : "SIMPLE";
}

static const char *keygen_name(const hoodie_table_config *c)
{
    static const char *names[] = { "SIMPLE", "COMPLEX", "NON_PARTITION", "TIMESTAMP", "CUSTOM", "METADATA" };
    if ((unsigned)c->keygen < sizeof names / sizeof *names) return names[c->keygen];
    return c->keygen_type ? c->keygen_type : c->keygen_class ? c->keygen_class : "OTHER";
}

/* Avro type rendering for people: "string", "int (nullable)", "struct<a: int, ...>", ... */
static void avro_type_text(hoodie_buf *b, const hoodie_avro_schema *s)
{
    static const char *prim[] = { "null", "boolean", "int", "long", "float", "double", "bytes", "string" };
    int nulls = 0;
    const hoodie_avro_schema *inner = hoodie_avro_nullable_branch(s, &nulls);
    if (inner) s = inner;
    switch (s->logical) {
    case HOODIE_AVRO_LT_DECIMAL: hoodie_buf_printf(b, "decimal(%d,%d)", s->precision, s->scale); goto done;
    case HOODIE_AVRO_LT_DATE: hoodie_buf_append_str(b, "date"); goto done;
    case HOODIE_AVRO_LT_UUID: hoodie_buf_append_str(b, "uuid"); goto done;
    case HOODIE_AVRO_LT_TIME_MILLIS: case HOODIE_AVRO_LT_TIME_MICROS: hoodie_buf_append_str(b, "time"); goto done;
    case HOODIE_AVRO_LT_TIMESTAMP_MILLIS: hoodie_buf_append_str(b, "timestamp(ms)"); goto done;
    case HOODIE_AVRO_LT_TIMESTAMP_MICROS: hoodie_buf_append_str(b, "timestamp(us)"); goto done;
    case HOODIE_AVRO_LT_TIMESTAMP_NANOS: hoodie_buf_append_str(b, "timestamp(ns)"); goto done;
    case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS: case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MICROS:
    case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_NANOS: hoodie_buf_append_str(b, "local_timestamp"); goto done;
    default: break;
    }
    switch (s->kind) {
    case HOODIE_AVRO_RECORD:
        hoodie_buf_append_str(b, "struct<");
        for (size_t i = 0; i < s->count; i++) {
            hoodie_buf_printf(b, "%s%s: ", i ? ", " : "", s->fields[i].name);
            avro_type_text(b, s->fields[i].type);
        }
        hoodie_buf_putc(b, '>');
        break;
    case HOODIE_AVRO_ARRAY: hoodie_buf_append_str(b, "list<"); avro_type_text(b, s->items); hoodie_buf_putc(b, '>'); break;
    case HOODIE_AVRO_MAP: hoodie_buf_append_str(b, "map<string, "); avro_type_text(b, s->items); hoodie_buf_putc(b, '>'); break;
    case HOODIE_AVRO_ENUM: hoodie_buf_append_str(b, "enum"); break;
    case HOODIE_AVRO_FIXED: hoodie_buf_printf(b, "fixed(%d)", s->size); break;
    case HOODIE_AVRO_UNION:
        hoodie_buf_append_str(b, "union<");
        for (size_t i = 0; i < s->count; i++) { if (i) hoodie_buf_append_str(b, ", "); avro_type_text(b, s->branches[i]); }
        hoodie_buf_putc(b, '>');
        break;
    default: hoodie_buf_append_str(b, prim[s->kind]); break;
    }
done:
    if (inner) hoodie_buf_append_str(b, " (nullable)");
}

hoodie_status hoodie_table_describe(hoodie_table *t, int json, char **out)
{
    const hoodie_table_config *c = t->cfg;
    char *schema = NULL;
    hoodie_status rc = hoodie_table__schema(t, NULL, &schema);
    if (rc == HOODIE_ENOTFOUND) { rc = HOODIE_OK; hoodie_error_clear(); }
    if (rc < 0) return rc;
    *out = NULL;
    if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(c->name));
        json_object_set_new(o, "base_path", json_string(t->base_path));
        json_object_set_new(o, "type", json_string(hoodie_table_type_name(c->type)));
        json_object_set_new(o, "version", json_integer(c->version));
        json_object_set_new(o, "timeline_layout_version", json_integer(c->timeline_layout_version));
        json_object_set_new(o, "record_key_fields", str_list_json(&c->record_key_fields));
        json_object_set_new(o, "partition_fields", str_list_json(&c->partition_fields));
        json_object_set_new(o, "hive_style_partitioning", json_boolean(c->hive_style_partitioning));
        json_object_set_new(o, "ordering_fields", str_list_json(&c->ordering_fields));
        json_object_set_new(o, "key_generator", json_string(keygen_name(c)));
        json_object_set_new(o, "merge_mode", json_string(hoodie_merge_mode_name(c->merge_mode)));
        if (c->payload_class) json_object_set_new(o, "payload_class", json_string(c->payload_class));
        if (c->partial_update) json_object_set_new(o, "partial_update_mode", json_string(c->partial_update));
        if (c->delete_field) {
            json_object_set_new(o, "delete_field", json_string(c->delete_field));
            json_object_set_new(o, "delete_marker", json_string(c->delete_marker));
        }
        json_object_set_new(o, "populate_meta_fields", json_boolean(c->populate_meta_fields));
        json_object_set_new(o, "index_type", json_string(index_name(c)));
        if (c->bucket_index) {
            json_object_set_new(o, "bucket_count", json_integer(c->bucket_count));
            json_object_set_new(o, "bucket_hash_fields", str_list_json(&c->bucket_hash_fields));
        }
        json_object_set_new(o, "layout", json_string(c->lsm_tree ? "lsm_tree" : "default"));
        json_object_set_new(o, "instants", json_integer((json_int_t)t->tl->count));
        if (t->evo) { /* schema on read (table/evo.h) */
            json_t *e = json_object();
            json_object_set_new(e, "versions", json_integer((json_int_t)hoodie_evo_count(t->evo)));
            json_object_set_new(e, "newest", json_integer((json_int_t)hoodie_evo_newest(t->evo)));
            json_object_set_new(o, "schema_on_read", e);
        }
        json_t *sj = schema ? json_loads(schema, 0, NULL) : NULL;
        json_object_set_new(o, "schema", sj ? sj : json_null());
        free(schema);
        return finish_json(o, out);
    }
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_buf_printf(&b, "name          %s\n", c->name);
    hoodie_buf_printf(&b, "base path     %s\n", t->base_path);
    hoodie_buf_printf(&b, "type          %s\n", hoodie_table_type_name(c->type));
    hoodie_buf_printf(&b, "version       %d (timeline layout %d)\n", c->version, c->timeline_layout_version);
    hoodie_buf_append_str(&b, "record key    ");
    str_list_text(&b, &c->record_key_fields);
    hoodie_buf_append_str(&b, "\npartitions    ");
    str_list_text(&b, &c->partition_fields);
    hoodie_buf_printf(&b, "%s\n", c->hive_style_partitioning ? " (hive style)" : "");
    hoodie_buf_append_str(&b, "ordering      ");
    str_list_text(&b, &c->ordering_fields);
    hoodie_buf_printf(&b, "\nkey generator %s\n", keygen_name(c));
    hoodie_buf_printf(&b, "merge mode    %s%s\n", hoodie_merge_mode_name(c->merge_mode),
                      c->merge_mode_inferred ? " (inferred)" : "");
    if (c->payload_class) hoodie_buf_printf(&b, "payload class %s\n", c->payload_class);
    if (c->partial_update)
        hoodie_buf_printf(&b, "partial       %s%s\n", c->partial_update,
                          c->partial_oneway ? " (the record replacing the stored one)" : "");
    if (c->delete_field)
        hoodie_buf_printf(&b, "deletes       rows whose %s is '%s'\n", c->delete_field, c->delete_marker);
    hoodie_buf_printf(&b, "meta fields   %s\n", c->populate_meta_fields ? "populated" : "not populated");
    hoodie_buf_printf(&b, "index         %s", index_name(c));
    if (c->bucket_index) {
        hoodie_buf_printf(&b, ", %d buckets hashed by ", c->bucket_count);
        for (size_t i = 0; i < c->bucket_hash_fields.count; i++)
            hoodie_buf_printf(&b, "%s%s", i ? "," : "", c->bucket_hash_fields.items[i]);
    }
    hoodie_buf_printf(&b, "\n");
    if (c->lsm_tree) hoodie_buf_printf(&b, "layout        lsm_tree\n");
    hoodie_buf_printf(&b, "instants      %zu\n", t->tl->count);
    if (t->evo)
        hoodie_buf_printf(&b, "columns       by field id (schema on read): %zu schema versions, the newest %lld\n",
                          hoodie_evo_count(t->evo), hoodie_evo_newest(t->evo));
    if (schema) {
        hoodie_arena *a = NULL;
        hoodie_avro_schema *s = NULL;
        rc = hoodie_arena_new(&a, NULL, 16384);
        if (rc == HOODIE_OK) rc = hoodie_avro_schema_parse(&s, schema, strlen(schema), a, "table schema");
        if (rc == HOODIE_OK && s->kind == HOODIE_AVRO_RECORD) {
            hoodie_buf_append_str(&b, "schema\n");
            for (size_t i = 0; i < s->count; i++) {
                hoodie_buf_printf(&b, "  %-24s ", s->fields[i].name);
                avro_type_text(&b, s->fields[i].type);
                hoodie_buf_putc(&b, '\n');
            }
        }
        hoodie_arena_free(a);
        free(schema);
        if (rc < 0) { hoodie_buf_dispose(&b); return rc; }
    } else {
        hoodie_buf_append_str(&b, "schema        (none recorded yet)\n");
    }
    return finish_buf(&b, out);
}

hoodie_status hoodie_table_timeline_render(hoodie_table *t, int json, char **out)
{
    if (json) {
        json_t *a = json_array();
        for (size_t i = 0; i < t->tl->count; i++) {
            hoodie_instant_info in;
            hoodie_table_instant(t, i, &in);
            json_t *o = json_object();
            json_object_set_new(o, "requested_time", json_string(in.requested));
            json_object_set_new(o, "action", json_string(in.action));
            json_object_set_new(o, "state", json_string(in.state));
            json_object_set_new(o, "completion_time", in.completion[0] ? json_string(in.completion) : json_null());
            json_array_append_new(a, o);
        }
        return finish_json(a, out);
    }
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_buf_printf(&b, "%-20s %-14s %-10s %s\n", "requested_time", "action", "state", "completion_time");
    for (size_t i = 0; i < t->tl->count; i++) {
        hoodie_instant_info in;
        hoodie_table_instant(t, i, &in);
        hoodie_buf_printf(&b, "%-20s %-14s %-10s %s\n", in.requested, in.action, in.state,
                          in.completion[0] ? in.completion : "-");
    }
    return finish_buf(&b, out);
}

hoodie_status hoodie_table_fsview_render(hoodie_table *t, const char *as_of, int json, char **out)
{
    hoodie_fsview *v;
    HOODIE_TRY(hoodie_table__fsview(t, as_of, NULL, NULL, &v));
    hoodie_status rc;
    if (json) {
        json_t *root = json_object();
        json_t *parts = json_array();
        for (size_t p = 0; p < v->partition_count; p++) json_array_append_new(parts, json_string(v->partitions[p]));
        json_object_set_new(root, "partitions", parts);
        json_t *groups = json_array();
        for (size_t g = 0; g < v->group_count; g++) {
            const hoodie_file_group *grp = &v->groups[g];
            json_t *go = json_object();
            json_object_set_new(go, "partition", json_string(grp->partition));
            json_object_set_new(go, "file_id", json_string(grp->file_id));
            json_t *slices = json_array();
            for (size_t s = 0; s < grp->slice_count; s++) {
                const hoodie_file_slice *sl = &grp->slices[s];
                json_t *so = json_object();
                json_object_set_new(so, "base_instant", json_string(sl->base_instant));
                json_object_set_new(so, "base_file", sl->base ? json_string(sl->base->name) : json_null());
                json_t *logs = json_array();
                for (size_t l = 0; l < sl->log_count; l++) json_array_append_new(logs, json_string(sl->logs[l]->name));
                json_object_set_new(so, "log_files", logs);
                json_array_append_new(slices, so);
            }
            json_object_set_new(go, "slices", slices);
            json_array_append_new(groups, go);
        }
        json_object_set_new(root, "file_groups", groups);
        rc = finish_json(root, out);
    } else {
        hoodie_buf b = HOODIE_BUF_INIT;
        hoodie_buf_printf(&b, "%zu partition(s), %zu file group(s)%s%s\n", v->partition_count, v->group_count,
                          as_of ? " as of " : "", as_of ? as_of : "");
        const char *last_part = NULL;
        for (size_t g = 0; g < v->group_count; g++) {
            const hoodie_file_group *grp = &v->groups[g];
            if (!last_part || strcmp(last_part, grp->partition)) {
                hoodie_buf_printf(&b, "partition %s\n", grp->partition[0] ? grp->partition : "(root)");
                last_part = grp->partition;
            }
            hoodie_buf_printf(&b, "  file group %s\n", grp->file_id);
            for (size_t s = 0; s < grp->slice_count; s++) {
                const hoodie_file_slice *sl = &grp->slices[s];
                hoodie_buf_printf(&b, "    slice %s%s\n", sl->base_instant, s + 1 == grp->slice_count ? " (latest)" : "");
                if (sl->base) hoodie_buf_printf(&b, "      base %s (%llu bytes)\n", sl->base->name,
                                                (unsigned long long)sl->base->size);
                for (size_t l = 0; l < sl->log_count; l++)
                    hoodie_buf_printf(&b, "      log  %s (%llu bytes)\n", sl->logs[l]->name,
                                      (unsigned long long)sl->logs[l]->size);
            }
        }
        rc = finish_buf(&b, out);
    }
    hoodie_fsview_free(v);
    return rc;
}

/* ---- file slices ---- */

struct hoodie_slices {
    hoodie_fsview *view;
    hoodie_slice_info *items;
    const char **logs;   /* all log paths, sliced per item */
    size_t count;
};

hoodie_status hoodie_table_slices(hoodie_table *t, const char *as_of, hoodie_slices **out)
{
    *out = NULL;
    hoodie_slices *s = calloc(1, sizeof *s);
    if (!s) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_table__fsview(t, as_of, NULL, NULL, &s->view);
    size_t n = 0, nl = 0;
    for (size_t g = 0; rc == HOODIE_OK && g < s->view->group_count; g++)
        for (size_t k = 0; k < s->view->groups[g].slice_count; k++) {
            n++;
            nl += s->view->groups[g].slices[k].log_count;
        }
    if (rc == HOODIE_OK) {
        s->items = calloc(n + 1, sizeof *s->items);
        s->logs = calloc(nl + 1, sizeof *s->logs);
        if (!s->items || !s->logs) rc = HOODIE_NOMEM();
    }
    size_t li = 0;
    for (size_t g = 0; rc == HOODIE_OK && g < s->view->group_count; g++) {
        const hoodie_file_group *grp = &s->view->groups[g];
        for (size_t k = 0; k < grp->slice_count; k++) {
            const hoodie_file_slice *sl = &grp->slices[k];
            hoodie_slice_info *it = &s->items[s->count++];
            it->partition = grp->partition;
            it->file_id = grp->file_id;
            it->base_instant = sl->base_instant;
            it->base_file = sl->base ? sl->base->path : NULL;
            it->log_files = &s->logs[li];
            it->n_log_files = sl->log_count;
            it->latest = k + 1 == grp->slice_count;
            for (size_t l = 0; l < sl->log_count; l++) s->logs[li++] = sl->logs[l]->path;
        }
    }
    if (rc < 0) { hoodie_slices_free(s); return rc; }
    *out = s;
    return HOODIE_OK;
}

size_t hoodie_slices_count(const hoodie_slices *s) { return s ? s->count : 0; }

hoodie_status hoodie_slices_get(const hoodie_slices *s, size_t i, hoodie_slice_info *out)
{
    if (!s || i >= s->count) return HOODIE_FAIL(HOODIE_EINVAL, "slice index %zu out of range", i);
    *out = s->items[i];
    return HOODIE_OK;
}

void hoodie_slices_free(hoodie_slices *s)
{
    if (!s) return;
    hoodie_fsview_free(s->view);
    free(s->items);
    free(s->logs);
    free(s);
}
