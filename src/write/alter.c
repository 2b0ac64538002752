/*
 * ALTER TABLE as Spark SQL does it on a table read by field id (schema on read, table/evo.h; Hudi's
 * AlterTableCommand): rename, drop, add and retype columns, and fields of nested records by their paths (s.x,
 * a.element.x, m.value.x), without rewriting a file. Under the table lock, so that no write commits between the
 * version it reads and the one it makes (writers check the version at commit, writer.c schema_unchanged):
 *
 *   T.<commit|deltacommit>.requested, T...inflight      as any write instant (write/commit.h)
 *   .hoodie/.schema/T.schemacommit                      every version, the new one (version_id T) first; the
 *                                                       first ALTER adds version 0, the table's schema as it was
 *   completed instant                                   no write statistics, operationType ALTER_SCHEMA,
 *                                                       extraMetadata schema (the new Avro schema) and
 *                                                       latest_schema (the new version)
 *
 * A crash before the completed file leaves a pending instant the next writer rolls back; its history file is
 * ignored (its instant never completed).
 */
#include "hoodie/write.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/avro_schema_gen.h"
#include "storage/storage.h"
#include "table/evo.h"
#include "table/table.h"
#include "util/buf.h"
#include "util/error.h"
#include "write/commit.h"
#include "write/commit_encode.h"
#include "write/lock.h"
#include "write/mdt.h"
#include "write/rollback.h"
#include "write/wlog.h"

/* A column type of ADD COLUMNS: its field type and InternalSchema name (into name[64]). */
static hoodie_status add_type(const char *spec, hoodie_type *t, char name[64])
{
    static const struct { const char *s; hoodie_type_id id; } simple[] = {
        { "boolean", HOODIE_TYPE_BOOL }, { "int", HOODIE_TYPE_INT32 }, { "long", HOODIE_TYPE_INT64 },
        { "float", HOODIE_TYPE_FLOAT }, { "double", HOODIE_TYPE_DOUBLE }, { "string", HOODIE_TYPE_STRING },
        { "binary", HOODIE_TYPE_BINARY }, { "date", HOODIE_TYPE_DATE32 }, { "timestamp", HOODIE_TYPE_TIMESTAMP },
    };
    for (size_t i = 0; i < sizeof simple / sizeof *simple; i++)
        if (!strcmp(spec, simple[i].s)) {
            *t = hoodie_type_of(simple[i].id);
            if (simple[i].id == HOODIE_TYPE_TIMESTAMP) { t->unit = HOODIE_UNIT_MICRO; t->utc = 1; }
            snprintf(name, 64, "%s", spec);
            return HOODIE_OK;
        }
    int p, s, n = 0;
    if (sscanf(spec, "decimal(%d,%d)%n", &p, &s, &n) == 2 && spec[n] == '\0' && p >= 1 && p <= 38 && s >= 0 &&
        s <= p) {
        *t = hoodie_type_of(HOODIE_TYPE_DECIMAL);
        t->precision = p;
        t->scale = s;
        snprintf(name, 64, "decimal(%d, %d)", p, s);
        return HOODIE_OK;
    }
    return HOODIE_FAIL(HOODIE_EINVAL, "unknown column type '%s' (boolean, int, long, float, double, string, "
                       "binary, date, timestamp, decimal(P,S))", spec);
}

/* The field of the list that `name` is or holds (a key field "s.id" is in record "s"), NULL if none. */
static const char *in_list(const hoodie_str_list *l, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < l->count; i++)
        if (!strncmp(l->items[i], name, n) && (l->items[i][n] == '\0' || l->items[i][n] == '.')) return l->items[i];
    return NULL;
}

/* A column the table's keys, partitions or ordering are made of, or one that holds such a field: Hudi refuses to
 * rename, drop or retype those. */
static hoodie_status keep_column(const hoodie_table_config *c, const char *name, const char *what)
{
    if (hoodie_is_meta_field(name)) return HOODIE_FAIL(HOODIE_EINVAL, "cannot %s '%s': it is a meta column", what, name);
    static const char *const roles[] = { "a record key field", "a partition field", "an ordering field" };
    const hoodie_str_list *lists[] = { &c->record_key_fields, &c->partition_fields, &c->ordering_fields };
    for (size_t i = 0; i < 3; i++) {
        const char *f = in_list(lists[i], name);
        if (f && !strcmp(f, name)) return HOODIE_FAIL(HOODIE_EINVAL, "cannot %s '%s': it is %s", what, name, roles[i]);
        if (f) return HOODIE_FAIL(HOODIE_EINVAL, "cannot %s '%s': it holds %s '%s'", what, name, roles[i], f);
    }
    return HOODIE_OK;
}

/* The table's data columns (no meta columns) from its newest schema. */
static hoodie_status data_schema(const hoodie_table *t, hoodie_field *out)
{
    hoodie_field all;
    HOODIE_TRY(hoodie_table__schema_field(t, NULL, &all));
    hoodie_status rc = hoodie_field_init(out, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0);
    for (size_t i = 0; rc == HOODIE_OK && i < all.n_children; i++)
        if (!hoodie_is_meta_field(all.children[i].name)) rc = hoodie_field_add_child(out, &all.children[i]);
    hoodie_field_dispose(&all);
    if (rc < 0) hoodie_field_dispose(out);
    return rc;
}

/* The field `len` bytes at p name inside f: a struct's field, a list's "element", a map's "key" or "value". */
static hoodie_field *step_into(hoodie_field *f, const char *p, size_t len)
{
    if (f->type.id == HOODIE_TYPE_STRUCT) {
        for (size_t i = 0; i < f->n_children; i++)
            if (strlen(f->children[i].name) == len && !strncmp(f->children[i].name, p, len)) return &f->children[i];
    } else if (f->type.id == HOODIE_TYPE_LIST && f->n_children == 1 && len == 7 && !strncmp(p, "element", 7)) {
        return &f->children[0];
    } else if (f->type.id == HOODIE_TYPE_MAP && f->n_children == 1 && f->children[0].n_children == 2 &&
               ((len == 3 && !strncmp(p, "key", 3)) || (len == 5 && !strncmp(p, "value", 5)))) {
        return &f->children[0].children[len == 3 ? 0 : 1];
    }
    return NULL;
}

/* The record holding the field at dotted path `path` of `root` (hoodie_evo_alter checked the path), through structs
 * by name, a list's "element", a map's "key" and "value": into *rec, and the field's index there into *at (-1: no
 * field of that name, a field to add); *last: where its name starts in path. */
static hoodie_status nested_at(hoodie_field *root, const char *path, hoodie_field **rec, int *at, const char **last)
{
    hoodie_field *f = root;
    const char *p = path, *dot;
    while ((dot = strchr(p, '.'))) {
        if (!(f = step_into(f, p, (size_t)(dot - p)))) return HOODIE_FAIL(HOODIE_EINVAL, "no record holds '%s'", path);
        p = dot + 1;
    }
    if (f->type.id != HOODIE_TYPE_STRUCT) return HOODIE_FAIL(HOODIE_EINVAL, "no record holds '%s'", path);
    *rec = f;
    *at = hoodie_field_find(f, p);
    *last = p;
    return HOODIE_OK;
}

/* The column or nested field at dotted path `path` (an array's element and a map's key or value too), NULL if none. */
static hoodie_field *field_at(hoodie_field *root, const char *path)
{
    hoodie_field *f = root;
    const char *p = path;
    for (;;) {
        const char *dot = strchr(p, '.');
        if (!(f = step_into(f, p, dot ? (size_t)(dot - p) : strlen(p))) || !dot) return f;
        p = dot + 1;
    }
}

/* 1 if a column of type `from` may be changed to `to` (SchemaChangeUtils.isTypeUpdateAllow): int to long, float,
 * double, string or decimal; long to float, double, string or decimal; float to double, string or decimal; double to
 * string or decimal; decimal to a decimal with as many digits before and after the point at least, or to string;
 * date to string; string to date or decimal. Readers convert what files hold (model/conform.c). */
static int type_change_allowed(const hoodie_type *from, const hoodie_type *to)
{
    hoodie_type_id a = from->id, b = to->id;
    int a_int = a == HOODIE_TYPE_INT8 || a == HOODIE_TYPE_INT16 || a == HOODIE_TYPE_INT32;
    int to_text_or_dec = b == HOODIE_TYPE_STRING || b == HOODIE_TYPE_DECIMAL;
    if (a == HOODIE_TYPE_DECIMAL && b == HOODIE_TYPE_DECIMAL)
        return (to->scale > from->scale && to->precision - to->scale >= from->precision - from->scale) ||
               (to->scale == from->scale && to->precision > from->precision);
    return (a_int && (b == HOODIE_TYPE_INT64 || b == HOODIE_TYPE_FLOAT || b == HOODIE_TYPE_DOUBLE || to_text_or_dec)) ||
           (a == HOODIE_TYPE_INT64 && (b == HOODIE_TYPE_FLOAT || b == HOODIE_TYPE_DOUBLE || to_text_or_dec)) ||
           (a == HOODIE_TYPE_FLOAT && (b == HOODIE_TYPE_DOUBLE || to_text_or_dec)) ||
           (a == HOODIE_TYPE_DOUBLE && to_text_or_dec) || (a == HOODIE_TYPE_DECIMAL && b == HOODIE_TYPE_STRING) ||
           (a == HOODIE_TYPE_DATE32 && b == HOODIE_TYPE_STRING) ||
           (a == HOODIE_TYPE_STRING && (b == HOODIE_TYPE_DATE32 || b == HOODIE_TYPE_DECIMAL));
}

/* A nested change (dotted path) made to the data columns `root`: a field renamed, dropped or added (nullable, last). */
static hoodie_status nested_change(hoodie_field *root, const hoodie_evo_change *ch, const hoodie_type *add_type)
{
    hoodie_field *rec = NULL;
    int at = -1;
    const char *last = NULL;
    HOODIE_TRY(nested_at(root, ch->name, &rec, &at, &last));
    if (ch->kind != HOODIE_EVO_ADD && at < 0) return HOODIE_FAIL(HOODIE_EINVAL, "no nested field '%s'", ch->name);
    if (ch->kind == HOODIE_EVO_RENAME) {
        char *nn = strdup(ch->arg);
        if (!nn) return HOODIE_NOMEM();
        free(rec->children[at].name);
        rec->children[at].name = nn;
    } else if (ch->kind == HOODIE_EVO_DROP) {
        hoodie_field_dispose(&rec->children[at]);
        memmove(&rec->children[at], &rec->children[at + 1], (rec->n_children - (size_t)at - 1) * sizeof *rec->children);
        rec->n_children--;
    } else {
        hoodie_field f;
        HOODIE_TRY(hoodie_field_init(&f, last, *add_type, 1));
        hoodie_status rc = hoodie_field_add_child(rec, &f);
        hoodie_field_dispose(&f);
        return rc;
    }
    return HOODIE_OK;
}

/* The data columns after the changes (for the Avro schema of the commit). */
static hoodie_status changed_schema(const hoodie_field *data, const hoodie_evo_change *ch, size_t n,
                                    const hoodie_type *add_types, hoodie_field *out)
{
    HOODIE_TRY(hoodie_field_init(out, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < data->n_children; i++) {
        const hoodie_field *c = &data->children[i];
        const char *name = c->name;
        int dropped = 0;
        for (size_t k = 0; k < n; k++) {
            if (strcmp(ch[k].name, name)) continue;
            if (ch[k].kind == HOODIE_EVO_RENAME) name = ch[k].arg;
            else if (ch[k].kind == HOODIE_EVO_DROP) dropped = 1;
        }
        if (dropped) continue;
        hoodie_field f;
        rc = hoodie_field_clone(&f, c);
        if (rc == HOODIE_OK && name != c->name) {
            char *nn = strdup(name);
            if (!nn) rc = HOODIE_NOMEM();
            else { free(f.name); f.name = nn; }
        }
        if (rc == HOODIE_OK) rc = hoodie_field_add_child(out, &f);
        hoodie_field_dispose(&f);
    }
    for (size_t k = 0; rc == HOODIE_OK && k < n; k++) {
        if (ch[k].kind != HOODIE_EVO_ADD || strchr(ch[k].name, '.')) continue;
        hoodie_field f;
        rc = hoodie_field_init(&f, ch[k].name, add_types[k], 1);
        if (rc == HOODIE_OK) {
            rc = hoodie_field_add_child(out, &f);
            hoodie_field_dispose(&f);
        }
    }
    for (size_t k = 0; rc == HOODIE_OK && k < n; k++)
        if (ch[k].kind != HOODIE_EVO_RETYPE && strchr(ch[k].name, '.')) rc = nested_change(out, &ch[k], &add_types[k]);
    for (size_t k = 0; rc == HOODIE_OK && k < n; k++) { /* type changes, by the names after the other changes */
        if (ch[k].kind != HOODIE_EVO_RETYPE) continue;
        hoodie_field *f = field_at(out, ch[k].name);
        char a[64], b[64];
        if (!f) rc = HOODIE_FAIL(HOODIE_EINVAL, "no column '%s' to change the type of", ch[k].name);
        else if (!type_change_allowed(&f->type, &add_types[k]))
            rc = HOODIE_FAIL(HOODIE_EINVAL, "cannot change the type of '%s' from %s to %s (int to long, float, double, string or "
                             "decimal; long to float, double, string or decimal; float to double, string or decimal; "
                             "double to string or decimal; decimal to a wider decimal or string; date to string; "
                             "string to date or decimal)", ch[k].name,
                             hoodie_type_name(&f->type, a, sizeof a), hoodie_type_name(&add_types[k], b, sizeof b));
        else f->type = add_types[k];
    }
    if (rc < 0) hoodie_field_dispose(out);
    return rc;
}

/* Under the lock: the instant, the history file, the commit. */
static hoodie_status alter_locked(const hoodie_storage *s, const char *base_path, const hoodie_evo_change *ch, size_t n,
                                  hoodie_type *add_types, char *instant_out, size_t cap)
{
    hoodie_table *t = NULL;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    HOODIE_TRY(hoodie_table_open(&t, base_path, &to));
    hoodie_field data = { 0 }, with_meta = { 0 }, after = { 0 };
    char *latest = NULL, *history = NULL, *avro = NULL;
    hoodie_write_txn tx = { 0 };
    hoodie_buf meta = HOODIE_BUF_INIT;
    int have_data = 0, have_meta = 0, have_after = 0;
    hoodie_status rc = hoodie_table__evo_ok(t);
    /* a pending service would write files named as it planned under an instant before the new version: let it
     * finish (or roll it back) first */
    const unsigned services = HOODIE_ACTION_BIT(HOODIE_ACTION_COMPACTION) | HOODIE_ACTION_BIT(HOODIE_ACTION_LOGCOMPACTION) |
                              HOODIE_ACTION_BIT(HOODIE_ACTION_CLUSTERING) | HOODIE_ACTION_BIT(HOODIE_ACTION_REPLACECOMMIT);
    for (size_t i = 0; i < t->tl->count && rc == HOODIE_OK; i++) {
        const hoodie_instant *in = &t->tl->instants[i];
        if (in->state != HOODIE_STATE_COMPLETED &&
            ((HOODIE_ACTION_BIT(in->action) | HOODIE_ACTION_BIT(in->plan_action)) & services))
            rc = HOODIE_FAIL(HOODIE_ECONFLICT, "%s: instant %s (%s) is pending: run it or roll it back before "
                             "altering the table", base_path, in->requested, hoodie_action_name(in->plan_action));
    }
    if (rc == HOODIE_OK) rc = data_schema(t, &data);
    if (rc == HOODIE_ENOTFOUND)
        rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: the table has no schema yet: write to it before altering it", base_path);
    have_data = rc == HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        const char *made = ch[i].kind == HOODIE_EVO_ADD ? ch[i].name : ch[i].kind == HOODIE_EVO_RENAME ? ch[i].arg
                                                                                                      : NULL;
        if (ch[i].kind != HOODIE_EVO_ADD)
            rc = keep_column(t->cfg, ch[i].name, ch[i].kind == HOODIE_EVO_RENAME ? "rename"
                                                 : ch[i].kind == HOODIE_EVO_DROP ? "drop" : "change the type of");
        if (rc == HOODIE_OK && made && hoodie_is_meta_field(made))
            rc = HOODIE_FAIL(HOODIE_EINVAL, "'%s' is a meta column's name", made);
    }
    if (rc == HOODIE_OK) rc = hoodie_field_with_meta(&with_meta, &data);
    have_meta = rc == HOODIE_OK;
    if (rc == HOODIE_OK) rc = changed_schema(&data, ch, n, add_types, &after);
    have_after = rc == HOODIE_OK;
    if (rc == HOODIE_OK) rc = hoodie_wlog_avro_schema(&avro, &after, t->cfg->name, 0);
    hoodie_action action = t->cfg->type == HOODIE_TABLE_MERGE_ON_READ ? HOODIE_ACTION_DELTACOMMIT : HOODIE_ACTION_COMMIT;
    /* the changes checked against the newest version before the instant begins: a refused change leaves nothing */
    if (rc == HOODIE_OK) rc = hoodie_evo_alter(t->evo, &with_meta, ch, n, "99999999999999999", &latest, &history);
    free(latest);
    free(history);
    latest = history = NULL;
    if (rc == HOODIE_OK) rc = hoodie_write__begin(&tx, s, base_path, t->cfg, action, NULL, 0);
    if (rc == HOODIE_OK) rc = hoodie_evo_alter(t->evo, &with_meta, ch, n, tx.inst.requested, &latest, &history);
    if (rc == HOODIE_OK) {
        hoodie_kv extra[2] = { { "schema", avro }, { "latest_schema", latest } };
        hoodie_commit_info ci = { 0 };
        ci.extra = extra;
        ci.extra_count = 2;
        ci.operation_type = "ALTER_SCHEMA";
        rc = hoodie_commit_encode(&meta, &ci, t->cfg->version >= 8 ? 8 : 6);
    }
    if (rc == HOODIE_OK) rc = hoodie_write__inflight(&tx, meta.data, meta.len);
    if (rc == HOODIE_OK) rc = hoodie_evo_write_history(s, base_path, tx.inst.requested, history);
    if (rc == HOODIE_OK) rc = hoodie_write__complete(&tx, meta.data, meta.len);
    if (rc == HOODIE_OK && instant_out && cap) snprintf(instant_out, cap, "%s", tx.inst.requested);
    hoodie_write__txn_dispose(&tx);
    hoodie_buf_dispose(&meta);
    free(latest);
    free(history);
    free(avro);
    if (have_after) hoodie_field_dispose(&after);
    if (have_meta) hoodie_field_dispose(&with_meta);
    if (have_data) hoodie_field_dispose(&data);
    hoodie_table_free(t);
    return rc;
}

hoodie_status hoodie_table_alter(const char *base_path, const hoodie_table_alter_opts *opts, char *instant_out,
                                 size_t cap)
{
    if (instant_out && cap) instant_out[0] = '\0';
    if (!base_path || !opts) return HOODIE_FAIL(HOODIE_EINVAL, "alter: no table or options");
    if (opts->version < 1 || opts->version > HOODIE_TABLE_ALTER_OPTS_VERSION)
        return HOODIE_FAIL(HOODIE_EINVAL, "alter: options version %u, this library knows 1 to %u", opts->version,
                           HOODIE_TABLE_ALTER_OPTS_VERSION);
    hoodie_table_alter_opts o = HOODIE_TABLE_ALTER_OPTS_INIT; /* version 1 ends before the type changes */
    memcpy(&o, opts, opts->version >= 2 ? sizeof o : offsetof(hoodie_table_alter_opts, retypes));
    opts = &o;
    size_t n = opts->n_renames + opts->n_drops + opts->n_adds + opts->n_retypes;
    if (!n) return HOODIE_FAIL(HOODIE_EINVAL, "alter: no change given (rename, drop, add or retype a column)");
    const hoodie_storage *s = opts->storage ? opts->storage : hoodie_storage_default();
    hoodie_evo_change *ch = calloc(n, sizeof *ch);
    hoodie_type *types = calloc(n, sizeof *types);
    char (*names)[64] = calloc(n, sizeof *names);
    hoodie_field *fields = calloc(n, sizeof *fields); /* the type changes' new types as fields (hoodie_evo_alter's) */
    size_t n_fields = 0;
    hoodie_status rc = ch && types && names && fields ? HOODIE_OK : HOODIE_NOMEM();
    size_t k = 0;
    for (size_t i = 0; rc == HOODIE_OK && i < opts->n_renames; i++, k++)
        ch[k] = (hoodie_evo_change){ HOODIE_EVO_RENAME, opts->renames[2 * i], opts->renames[2 * i + 1], NULL };
    for (size_t i = 0; rc == HOODIE_OK && i < opts->n_drops; i++, k++)
        ch[k] = (hoodie_evo_change){ HOODIE_EVO_DROP, opts->drops[i], NULL, NULL };
    for (size_t i = 0; rc == HOODIE_OK && i < opts->n_adds; i++, k++) {
        rc = opts->adds[2 * i + 1] ? add_type(opts->adds[2 * i + 1], &types[k], names[k])
                                   : HOODIE_FAIL(HOODIE_EINVAL, "alter: column '%s' to add has no type", opts->adds[2 * i]);
        ch[k] = (hoodie_evo_change){ HOODIE_EVO_ADD, opts->adds[2 * i], names[k], NULL };
    }
    for (size_t i = 0; rc == HOODIE_OK && i < opts->n_retypes; i++, k++) {
        rc = opts->retypes[2 * i + 1] ? add_type(opts->retypes[2 * i + 1], &types[k], names[k])
                                      : HOODIE_FAIL(HOODIE_EINVAL, "alter: column '%s' has no new type", opts->retypes[2 * i]);
        if (rc == HOODIE_OK) rc = hoodie_field_init(&fields[n_fields], "retyped", types[k], 1);
        if (rc == HOODIE_OK)
            ch[k] = (hoodie_evo_change){ HOODIE_EVO_RETYPE, opts->retypes[2 * i], names[k], &fields[n_fields++] };
    }
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) /* names, or nested fields' paths: s.x, a.element.x, m.value.x */
        if (!ch[i].name || !*ch[i].name || (ch[i].kind == HOODIE_EVO_RENAME && (!ch[i].arg || !*ch[i].arg)) ||
            strchr(ch[i].name, '"') || ch[i].name[0] == '.' || ch[i].name[strlen(ch[i].name) - 1] == '.' ||
            strstr(ch[i].name, "..") || (ch[i].kind == HOODIE_EVO_RENAME && strpbrk(ch[i].arg, ".\"")))
            rc = HOODIE_FAIL(HOODIE_EINVAL, "change %zu names no column or nested field (a name, or a nested "
                             "field's path: s.x, a.element.x, m.value.x; a rename's new name is a name)", i + 1);
    /* as every writer: the metadata table hoodie does not maintain goes, dead writers' instants are rolled back */
    hoodie_table *t = NULL;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    if (rc == HOODIE_OK) rc = hoodie_table_open(&t, base_path, &to);
    int changed = 0;
    if (rc == HOODIE_OK) rc = hoodie_write__mdt_prepare(s, base_path, t->cfg, &changed);
    if (rc == HOODIE_OK) rc = hoodie_write__recover(t, NULL);
    hoodie_table_free(t);
    hoodie_table_lock lock;
    if (rc == HOODIE_OK) rc = hoodie_write__lock(&lock, s, base_path, -1);
    if (rc == HOODIE_OK) {
        rc = alter_locked(s, base_path, ch, n, types, instant_out, cap);
        char *why = rc < 0 ? strdup(hoodie_error__message()) : NULL;
        if (hoodie_write__unlock(&lock) < 0) hoodie_error_clear();
        if (why) { hoodie_error__set(rc, __FILE__, __LINE__, "%s", why); free(why); }
    }
    for (size_t i = 0; i < n_fields; i++) hoodie_field_dispose(&fields[i]);
    free(fields);
    free(ch);
    free(types);
    free(names);
    return rc;
}
