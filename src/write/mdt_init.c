/* Creating a table's metadata table (hoodie metadata TABLE init; see mdt.h): its files partition, column_stats
 * and, when asked, record_index. */
#include "write/mdt_int.h"
#include "format/avro/binary.h"
#include "format/bloom.h"
#include "format/props.h"
#include "format/hfile/hfile_write.h"
#include "format/hlog/hlog_write.h"
#include "storage/storage.h"
#include "table/commit_meta.h"
#include "table/file_name.h"
#include "table/fsview.h"
#include "table/mdt.h"
#include "table/table.h"
#include "table/timeline.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"
#include "write/commit.h"
#include "write/avro_enc.h"
#include "write/commit_encode.h"
#include "write/create.h"
#include "write/lock.h"

/* The write stat of a base HFile an initialization wrote (out: its name, bytes and relative path). */
static void base_stat(hoodie_wstat *st, const char *part, const char *fid, const out_file *out, int64_t records)
{
    st->partition_path = part, st->file_id = fid, st->path = (const char *)out->rel.data;
    st->num_writes = st->num_inserts = records;
    st->total_write_bytes = st->file_size_in_bytes = (int64_t)out->bytes.len;
    st->has_runtime = 1;
}

/* Complete an initializing deltacommit of the MDT (BULK_INSERT) with the write statistics of its base files. */
static hoodie_status bulk_complete(hoodie_write_txn *tx, const hoodie_wstat *sts, size_t n, hoodie_buf *meta)
{
    hoodie_kv extra = { "schema", hoodie_write__mdt_schema };
    hoodie_commit_info ci;
    memset(&ci, 0, sizeof ci);
    ci.stats = sts, ci.stat_count = n, ci.extra = &extra, ci.extra_count = 1;
    ci.operation_type = "BULK_INSERT";
    HOODIE_TRY(hoodie_commit_encode(meta, &ci, 8));
    return hoodie_write__complete(tx, meta->data, meta->len);
}

static int cs_rec_cmp(const void *a, const void *b)
{
    const hoodie_mdt_csrec *x = a, *y = b;
    return strcmp(x->key, y->key);
}

/* The MDT's hoodie.properties, as Hudi 1.x writes it for a version 8 table named `name`. */
hoodie_status hoodie_write__mdt_props(hoodie_buf *out, const char *name)
{
    hoodie_props p = HOODIE_PROPS_INIT;
    char mname[512], num[16], comment[96];
    snprintf(mname, sizeof mname, "%s_metadata", name);
    snprintf(num, sizeof num, "%lu", (unsigned long)hoodie_table_config_checksum(NULL, mname));
    static const char *const kv[][2] = {
        { "hoodie.table.recordkey.fields", "key" },
        { "hoodie.table.name", NULL },
        { "hoodie.table.type", "MERGE_ON_READ" },
        { "hoodie.table.version", "8" },
        { "hoodie.table.initial.version", "8" },
        { "hoodie.timeline.layout.version", "2" },
        { "hoodie.timeline.path", "timeline" },
        { "hoodie.timeline.history.path", "history" },
        { "hoodie.archivelog.folder", "history" },
        { "hoodie.table.base.file.format", "HFILE" },
        { "hoodie.table.keygenerator.type", "HOODIE_TABLE_METADATA" },
        { "hoodie.populate.meta.fields", "false" },
        { "hoodie.compaction.payload.class", "org.apache.hudi.metadata.HoodieMetadataPayload" },
        { "hoodie.record.merge.mode", "CUSTOM" },
        { "hoodie.record.merge.strategy.id", "00000000-0000-0000-0000-000000000000" },
        { "hoodie.datasource.write.drop.partition.columns", "false" },
        { "hoodie.table.checksum", NULL },
    };
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < sizeof kv / sizeof *kv; i++)
        rc = hoodie_props_set(&p, kv[i][0], kv[i][1] ? kv[i][1] : i == 1 ? mname : num);
    if (rc == HOODIE_OK) rc = hoodie_write__java_props_order(&p);
    int64_t now = hoodie_write__now_us();
    hoodie_props_store_comment(comment, sizeof comment, "Properties saved on ", now);
    if (rc == HOODIE_OK) rc = hoodie_props_store(&p, out, comment, now / 1000);
    hoodie_props_dispose(&p);
    return rc;
}

typedef struct files_ctx { changes *c; const char *partition; hoodie_status rc; } files_ctx;

static int files_cb(const hoodie_dirent *e, void *payload)
{
    files_ctx *f = payload;
    hoodie_file_name fn;
    if (e->is_dir || hoodie_file_name_parse(&fn, e->name) == HOODIE_FILE_OTHER) return 0;
    f->rc = hoodie_mdtw__add_file(f->c, f->partition, e->name, (int64_t)e->size, 0);
    return f->rc < 0;
}

/* Every data file storage has, by partition (the folders holding .hoodie_partition_metadata). */
static hoodie_status storage_listing(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                     const hoodie_timeline *tl, changes *c)
{
    hoodie_fsview *v = NULL;
    hoodie_fsview_opts o = { NULL, NULL, NULL, 0, NULL, NULL, NULL };
    HOODIE_TRY(hoodie_fsview_build(&v, s, base_path, cfg, tl, &o));
    hoodie_status rc = HOODIE_OK;
    c->all_record = 1;
    for (size_t p = 0; rc == HOODIE_OK && p < v->partition_count; p++) {
        const char *part = v->partitions[p];
        rc = hoodie_mdtw__add_part(c, part);
        char *dir = rc == HOODIE_OK ? hoodie_write__path(base_path, part) : NULL;
        if (rc == HOODIE_OK && !dir) rc = HOODIE_NOMEM();
        files_ctx f = { c, part, HOODIE_OK };
        if (rc == HOODIE_OK) rc = s->list(s->ctx, dir, files_cb, &f);
        if (rc == HOODIE_OK) rc = f.rc;
        free(dir);
    }
    hoodie_fsview_free(v);
    return rc;
}

/* ---- column_stats at initialization ---- */

#define CS_INIT_TIME "00000000000000001" /* as Spark initializes it, after the files partition's 00000000000000000 */
#define CS_INIT_GROUPS 2                 /* hoodie.metadata.index.column.stats.file.group.count */
#define CS_MAX_DATA_COLUMNS 32           /* hoodie.metadata.index.column.stats.max.columns.to.index */
#define INDEX_DEFS_KEY "hoodie.table.index.defs.path"
#define INDEX_DEFS_PATH ".hoodie/.index_defs/index.json"

/* JSON as Jackson's default pretty printer writes it (Hudi's index definitions): two-space indents, " : ",
 * arrays on one line, "{ }" for an empty object, no final newline. */
static hoodie_status jackson(hoodie_buf *b, const json_t *v, int depth)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        if (!json_object_size(v)) return hoodie_buf_append_str(b, "{ }");
        HOODIE_TRY(hoodie_buf_append_str(b, "{\n"));
        const char *k;
        json_t *x;
        size_t i = 0, n = json_object_size(v);
        json_object_foreach((json_t *)v, k, x) {
            for (int d = 0; d <= depth; d++) HOODIE_TRY(hoodie_buf_append_str(b, "  "));
            json_t *kj = json_string(k);
            char *ks = kj ? json_dumps(kj, JSON_ENCODE_ANY) : NULL;
            json_decref(kj);
            hoodie_status rc = ks ? hoodie_buf_printf(b, "%s : ", ks) : HOODIE_NOMEM();
            free(ks);
            HOODIE_TRY(rc);
            HOODIE_TRY(jackson(b, x, depth + 1));
            HOODIE_TRY(hoodie_buf_append_str(b, ++i < n ? ",\n" : "\n"));
        }
        for (int d = 0; d < depth; d++) HOODIE_TRY(hoodie_buf_append_str(b, "  "));
        return hoodie_buf_append_str(b, "}");
    }
    case JSON_ARRAY: {
        if (!json_array_size(v)) return hoodie_buf_append_str(b, "[ ]");
        HOODIE_TRY(hoodie_buf_append_str(b, "[ "));
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i) HOODIE_TRY(hoodie_buf_append_str(b, ", "));
            HOODIE_TRY(jackson(b, json_array_get(v, i), depth + 1));
        }
        return hoodie_buf_append_str(b, " ]");
    }
    default: {
        char *t = json_dumps(v, JSON_ENCODE_ANY);
        if (!t) return HOODIE_NOMEM();
        hoodie_status rc = hoodie_buf_append_str(b, t);
        free(t);
        return rc;
    }
    }
}

/* The columns column_stats indexes on a table of schema `sch` (meta and data columns): the three meta columns Hudi
 * always indexes, then the first data columns of types the index takes. */
static hoodie_status cs_init_columns(const hoodie_field *sch, json_t *arr)
{
    static const char *const meta[3] = { "_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key" };
    for (int i = 0; i < 3; i++)
        if (json_array_append_new(arr, json_string(meta[i])) < 0) return HOODIE_NOMEM();
    size_t taken = 0;
    for (size_t c = 0; c < sch->n_children && taken < CS_MAX_DATA_COLUMNS; c++) {
        const hoodie_field *f = &sch->children[c];
        if (!strncmp(f->name, "_hoodie_", 8) || !hoodie_write__cs_type_ok(&f->type)) continue;
        if (json_array_append_new(arr, json_string(f->name)) < 0) return HOODIE_NOMEM();
        taken++;
    }
    return HOODIE_OK;
}

/*
 * The index definition of column_stats (written when the table has none; kept when it has one) and its columns
 * (*cols, malloc'd). *defs_key: 1 when hoodie.properties must name the definitions' file.
 */
/* The table's index definitions file: *path (malloc), *root (its JSON, or a new one with no definitions when there
 * is none), *defs_key: hoodie.properties does not name it yet. */
static hoodie_status defs_load(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                               char **path, json_t **root, int *defs_key)
{
    const char *rel = hoodie_table_config_get(cfg, INDEX_DEFS_KEY);
    *defs_key = !rel || !*rel;
    if (*defs_key) rel = INDEX_DEFS_PATH;
    *root = NULL;
    if (!(*path = hoodie_write__path(base_path, rel))) return HOODIE_NOMEM();
    hoodie_buf text = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_storage_read_all(s, *path, &text);
    if (rc == HOODIE_OK) {
        json_error_t je;
        *root = json_loadb((const char *)text.data, text.len, 0, &je);
        if (!*root || !json_is_object(json_object_get(*root, "indexDefinitions")))
            rc = HOODIE_CORRUPT("%s: not an index definitions file (%s)", *path,
                                *root ? "no indexDefinitions" : je.text);
    } else if (rc == HOODIE_ENOTFOUND) {
        hoodie_error_clear();
        rc = (*root = json_object()) && !json_object_set_new(*root, "indexDefinitions", json_object())
                 ? HOODIE_OK : HOODIE_NOMEM();
    }
    hoodie_buf_dispose(&text);
    return rc;
}

/* `root` written to `path` as Jackson writes it (replacing the file). */
static hoodie_status defs_store(const hoodie_storage *s, const char *path, const json_t *root)
{
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_status rc = jackson(&out, root, 0);
    if (rc == HOODIE_OK) {
        rc = s->remove(s->ctx, path);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    }
    if (rc == HOODIE_OK) rc = hoodie_storage_write_all(s, path, 0, out.data, out.len);
    hoodie_buf_dispose(&out);
    return rc;
}

static hoodie_status cs_init_definition(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                        const hoodie_field *sch, char ***cols, size_t *n_cols, int *defs_key)
{
    char *path = NULL;
    json_t *root = NULL;
    hoodie_status rc = defs_load(s, base_path, cfg, &path, &root, defs_key);
    json_t *defs = rc == HOODIE_OK ? json_object_get(root, "indexDefinitions") : NULL;
    json_t *def = defs ? json_object_get(defs, CS_PART) : NULL;
    if (rc == HOODIE_OK && !def) { /* a new definition, as Hudi 1.0 writes it */
        json_t *fields = json_array();
        def = json_object();
        if (!fields || !def) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) rc = cs_init_columns(sch, fields);
        if (rc == HOODIE_OK &&
            (json_object_set_new(def, "indexName", json_string(CS_PART)) < 0 ||
             json_object_set_new(def, "indexType", json_string(CS_PART)) < 0 ||
             json_object_set_new(def, "indexFunction", json_string(CS_PART)) < 0 ||
             json_object_set_new(def, "sourceFields", fields) < 0 ||
             json_object_set_new(def, "indexOptions", json_object()) < 0 ||
             json_object_set_new(defs, CS_PART, def) < 0))
            rc = HOODIE_NOMEM();
        else fields = NULL, def = json_object_get(defs, CS_PART);
        json_decref(fields);
        if (rc == HOODIE_OK) rc = defs_store(s, path, root);
    }
    json_t *f = rc == HOODIE_OK ? json_object_get(def, "sourceFields") : NULL;
    size_t n = json_array_size(f);
    *cols = NULL, *n_cols = 0;
    if (rc == HOODIE_OK && !(*cols = calloc(n + 1, sizeof **cols))) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        const char *name = json_string_value(json_array_get(f, i));
        if (!name) continue;
        if (!((*cols)[*n_cols] = strdup(name))) rc = HOODIE_NOMEM();
        else (*n_cols)++;
    }
    if (rc < 0) hoodie_error__prefix("%s: ", path ? path : base_path);
    json_decref(root);
    free(path);
    return rc;
}

/* The column_stats partition of a new MDT: deltacommit 00000000000000001 with a base HFile per file group holding
 * the statistics of every base file of the listing (log files get none). */
static hoodie_status cs_init_partition(const hoodie_storage *s, const char *base_path, const char *mdt,
                                       const hoodie_table_config *mc, const changes *listing, char *const *cols,
                                       size_t n_cols)
{
    hoodie_write_txn tx;
    memset(&tx, 0, sizeof tx);
    changes c; /* the records, through the commit path's helpers */
    memset(&c, 0, sizeof c);
    cs_conf conf;
    memset(&conf, 0, sizeof conf);
    conf.columns = (char **)cols, conf.n_columns = n_cols, conf.n_groups = CS_INIT_GROUPS, conf.on = 1;
    c.csc = &conf, c.s = s, c.base_path = base_path;
    hoodie_buf schema = HOODIE_BUF_INIT, meta = HOODIE_BUF_INIT;
    out_file outs[CS_INIT_GROUPS];
    memset(outs, 0, sizeof outs);
    hoodie_wstat sts[CS_INIT_GROUPS];
    memset(sts, 0, sizeof sts);
    char fids[CS_INIT_GROUPS][32];
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < listing->n; i++) {
        const fchange *f = &listing->v[i];
        hoodie_buf rel = HOODIE_BUF_INIT;
        rc = strcmp(f->partition, ".") ? hoodie_buf_printf(&rel, "%s/%s", f->partition, f->name)
                                       : hoodie_buf_append_str(&rel, f->name);
        if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&rel);
        if (rc == HOODIE_OK) rc = hoodie_mdtw__cs_of_written(&c, strcmp(f->partition, ".") ? f->partition : "", (const char *)rel.data);
        hoodie_buf_dispose(&rel);
    }
    if (rc == HOODIE_OK) rc = hoodie_mdtw__schema_with_meta(&schema);
    if (rc == HOODIE_OK) rc = hoodie_write__partition_metadata(s, mdt, CS_PART, CS_INIT_TIME);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__mdt_begin(&tx, s, mdt, mc, CS_INIT_TIME, HOODIE_ACTION_DELTACOMMIT, "", 0);
    if (rc == HOODIE_OK) rc = hoodie_write__inflight(&tx, NULL, 0);
    hoodie_mdt_csrec *sorted = rc == HOODIE_OK ? malloc((c.n_cs + 1) * sizeof *sorted) : NULL;
    if (rc == HOODIE_OK && !sorted) rc = HOODIE_NOMEM();
    for (size_t g = 0; rc == HOODIE_OK && g < CS_INIT_GROUPS; g++) {
        size_t k = 0;
        for (size_t i = 0; i < c.n_cs; i++)
            if (hoodie_mdt_key_group(c.cs[i].key, CS_INIT_GROUPS) == g) sorted[k++] = c.cs[i];
        if (k) qsort(sorted, k, sizeof *sorted, cs_rec_cmp);
        snprintf(fids[g], sizeof fids[g], CS_PREFIX "%04u-0", (unsigned)g);
        int64_t records = 0;
        rc = hoodie_file_name_base(&outs[g].name, fids[g], LOG_TOKEN, CS_INIT_TIME, "hfile");
        if (rc == HOODIE_OK)
            rc = hoodie_mdtw__build_cs_hfile(sorted, k, &schema, (const char *)outs[g].name.data, &outs[g].bytes, &records);
        if (rc == HOODIE_OK)
            rc = hoodie_mdtw__put_part_file(&tx, mdt, CS_PART, (const char *)outs[g].name.data, &outs[g].bytes,
                               HOODIE_MARKER_CREATE, &outs[g].rel);
        base_stat(&sts[g], CS_PART, fids[g], &outs[g], records);
    }
    free(sorted);
    if (rc == HOODIE_OK) rc = bulk_complete(&tx, sts, CS_INIT_GROUPS, &meta);
    c.csc = NULL; /* borrowed */
    hoodie_mdtw__changes_dispose(&c);
    hoodie_write__txn_dispose(&tx);
    for (size_t g = 0; g < CS_INIT_GROUPS; g++) hoodie_mdtw__out_file_dispose(&outs[g]);
    hoodie_buf_dispose(&schema);
    hoodie_buf_dispose(&meta);
    return rc;
}

/* column_stats for a new MDT, when the table has a schema: its definition, then its partition. *made: 1 if so,
 * *defs_key: hoodie.properties must name the definitions' file. */
static hoodie_status cs_init(const hoodie_storage *s, const char *base_path, const char *mdt,
                             const hoodie_table_config *cfg, const hoodie_table_config *mc, const changes *listing,
                             int *made, int *defs_key)
{
    *made = *defs_key = 0;
    hoodie_table *t = NULL;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    hoodie_field sch;
    int have_sch = 0;
    char **cols = NULL;
    size_t n_cols = 0;
    hoodie_status rc = hoodie_table_open(&t, base_path, &to);
    if (rc == HOODIE_OK) {
        rc = hoodie_table__schema_field(t, NULL, &sch);
        have_sch = rc == HOODIE_OK;
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; } /* no write yet: no columns known */
    }
    if (rc == HOODIE_OK && have_sch) rc = cs_init_definition(s, base_path, cfg, &sch, &cols, &n_cols, defs_key);
    if (rc == HOODIE_OK && n_cols) rc = cs_init_partition(s, base_path, mdt, mc, listing, cols, n_cols);
    if (rc == HOODIE_OK) *made = n_cols > 0;
    for (size_t i = 0; i < n_cols; i++) free(cols[i]);
    free(cols);
    if (have_sch) hoodie_field_dispose(&sch);
    hoodie_table_free(t);
    return rc;
}

void hoodie_write__timeline_mark(const hoodie_timeline *tl, char out[HOODIE_TIMELINE_MARK_MAX])
{
    size_t done = 0;
    const char *last = "";
    for (size_t i = 0; tl && i < tl->count; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->state != HOODIE_STATE_COMPLETED) continue;
        done++;
        const char *t = *in->completion ? in->completion : in->requested;
        if (strcmp(t, last) > 0) last = t;
    }
    snprintf(out, HOODIE_TIMELINE_MARK_MAX, "%zu:%s", done, last);
}

/* Hudi's estimate of the record index's file groups (HoodieTableMetadataUtil.estimateFileGroupCount): twice the
 * records (growth factor 2) at 48 bytes each, 1 GB a file group, between 10 and 10000. */
static size_t rli_init_groups(size_t records)
{
    uint64_t expected = (uint64_t)records * 2, per_group = (1024ULL * 1024 * 1024) / 48;
    uint64_t n = expected / per_group;
    return n <= 10 ? 10 : n >= 10000 ? 10000 : (size_t)n;
}

/* record_index for a new MDT: deltacommit `t` (BULK_INSERT) with a base HFile per file group of the keys keys[]
 * (each in its file group and partition; the instant is its file slice's base instant, as Hudi's initialization
 * takes it). */
static hoodie_status rli_init_partition(const hoodie_storage *s, const char *base_path, const char *mdt,
                                        const hoodie_table_config *cfg, const hoodie_timeline *tl,
                                        const hoodie_table_config *mc, const char *t, const hoodie_rli_changes *keys)
{
    size_t ng = rli_init_groups(keys->n);
    hoodie_write_txn tx;
    memset(&tx, 0, sizeof tx);
    hoodie_fsview *v = NULL;
    hoodie_buf schema = HOODIE_BUF_INIT, meta = HOODIE_BUF_INIT, ri = HOODIE_BUF_INIT;
    out_file *outs = calloc(ng, sizeof *outs);
    hoodie_wstat *sts = calloc(ng, sizeof *sts);
    char (*fids)[32] = calloc(ng, sizeof *fids);
    rli_ref *refs = NULL;
    uint32_t *idx = NULL;
    size_t *end = NULL;
    hoodie_mdt_rlirec *recs = malloc((keys->n + 1) * sizeof *recs);
    size_t *offs = malloc((2 * keys->n + 1) * sizeof *offs); /* each key's location: offset and length in ri */
    hoodie_status rc = outs && sts && fids && recs && offs ? HOODIE_OK : HOODIE_NOMEM();
    hoodie_fsview_opts fo = { NULL, NULL, NULL, 0, NULL, NULL, NULL };
    hoodie_hmap by_id = HOODIE_HMAP_INIT; /* file id -> its group in v */
    if (rc == HOODIE_OK) rc = hoodie_fsview_build(&v, s, base_path, cfg, tl, &fo);
    if (rc == HOODIE_OK) rc = hoodie_hmap_init(&by_id, v->group_count + 1);
    for (size_t x = 0; rc == HOODIE_OK && x < v->group_count; x++) {
        uint64_t *slot;
        int existed;
        rc = hoodie_hmap_upsert(&by_id, v->groups[x].file_id, strlen(v->groups[x].file_id), &slot, &existed);
        if (rc == HOODIE_OK) *slot = x;
    }
    if (rc == HOODIE_OK) rc = hoodie_mdtw__rli_by_group(keys, ng, &idx, &end);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__schema_with_meta(&schema);
    if (rc == HOODIE_OK) rc = hoodie_write__partition_metadata(s, mdt, RLI_PART, t);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__mdt_begin(&tx, s, mdt, mc, t, HOODIE_ACTION_DELTACOMMIT, "", 0);
    if (rc == HOODIE_OK) rc = hoodie_write__inflight(&tx, NULL, 0);
    const char *last_inst = NULL;
    int64_t last_ms = -1;
    hoodie_mdtw_ri_memo memo = { NULL, 0, 0 };
    for (size_t g = 0, from = 0; rc == HOODIE_OK && g < ng; from = end[g++]) {
        size_t k = 0, n = end[g] - from;
        ri.len = 0;
        free(refs);
        if (!(refs = hoodie_mdtw__rli_group_refs(keys, idx + from, n, g))) rc = HOODIE_NOMEM();
        for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
            const hoodie_rli_change *ch = &refs[i].ch;
            if (k && hoodie_mdtw__rli_same_key(&refs[i - 1], &refs[i]))
                rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: record key '%s' is in more than one file group (%s, %s): a "
                                 "record index holds a key once", base_path, ch->key, refs[i - 1].ch.file_id,
                                 ch->file_id);
            uint64_t *slot = hoodie_hmap_get(&by_id, ch->file_id, strlen(ch->file_id));
            const hoodie_file_group *fg = slot ? &v->groups[*slot] : NULL;
            if (fg && strcmp(fg->partition, ch->partition)) fg = NULL;
            const hoodie_file_slice *sl = fg ? hoodie_file_group_latest(fg) : NULL;
            if (rc == HOODIE_OK && !sl)
                rc = HOODIE_FAIL(HOODIE_ECONFLICT, "%s: file group %s of key '%s' is not in the table any more: "
                                 "run init again", base_path, ch->file_id, ch->key);
            if (rc < 0) break;
            recs[k].key = ch->key;
            if (!last_inst || strcmp(last_inst, sl->base_instant)) /* mktime is slow: once per instant */
                last_inst = sl->base_instant, last_ms = hoodie_write__instant_ms(last_inst, cfg->timeline_timezone_utc);
            int64_t ms = last_ms;
            if (ms < 0) rc = HOODIE_FAIL(HOODIE_ECORRUPT, "%s: file group %s: base instant '%s' is not a time",
                                         base_path, ch->file_id, sl->base_instant);
            else rc = hoodie_mdtw__ri_of(&memo, &ri, ch->partition, ch->file_id, ms, &offs[2 * k], &offs[2 * k + 1]);
            k++;
        }
        for (size_t j = 0; j < k; j++) recs[j].ri = ri.data + offs[2 * j], recs[j].ri_len = offs[2 * j + 1];
        free(memo.tab); /* ri starts again: so do the locations */
        memo = (hoodie_mdtw_ri_memo){ NULL, 0, 0 };
        snprintf(fids[g], sizeof fids[g], RLI_PREFIX "%04u-0", (unsigned)g);
        int64_t records = 0;
        if (rc == HOODIE_OK) rc = hoodie_file_name_base(&outs[g].name, fids[g], LOG_TOKEN, t, "hfile");
        if (rc == HOODIE_OK)
            rc = hoodie_mdtw__build_rli_hfile(recs, k, &schema, (const char *)outs[g].name.data, &outs[g].bytes, &records);
        if (rc == HOODIE_OK)
            rc = hoodie_mdtw__put_part_file(&tx, mdt, RLI_PART, (const char *)outs[g].name.data, &outs[g].bytes,
                               HOODIE_MARKER_CREATE, &outs[g].rel);
        base_stat(&sts[g], RLI_PART, fids[g], &outs[g], records);
    }
    if (rc == HOODIE_OK) rc = bulk_complete(&tx, sts, ng, &meta);
    hoodie_write__txn_dispose(&tx);
    for (size_t g = 0; outs && g < ng; g++) hoodie_mdtw__out_file_dispose(&outs[g]);
    free(outs);
    free(sts);
    free(fids);
    free(refs);
    free(idx);
    free(end);
    free(recs);
    free(offs);
    hoodie_hmap_dispose(&by_id);
    hoodie_fsview_free(v);
    hoodie_buf_dispose(&schema);
    hoodie_buf_dispose(&meta);
    hoodie_buf_dispose(&ri);
    return rc;
}

/* ---- secondary indexes at initialization ---- */

/* The definitions of the secondary indexes si[0..n) added to the table's index definitions file (as Hudi 1.0 writes
 * one: name, type secondary_index, function identity, the column, no options). *defs_key as defs_load's. */
static hoodie_status si_init_definitions(const hoodie_storage *s, const char *base_path,
                                         const hoodie_table_config *cfg, const hoodie_si_init *si, size_t n,
                                         int *defs_key)
{
    char *path = NULL;
    json_t *root = NULL;
    hoodie_status rc = defs_load(s, base_path, cfg, &path, &root, defs_key);
    json_t *defs = rc == HOODIE_OK ? json_object_get(root, "indexDefinitions") : NULL;
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        json_t *def = json_object(), *fields = json_array();
        if (!def || !fields || json_array_append_new(fields, json_string(si[i].column)) < 0 ||
            json_object_set_new(def, "indexName", json_string(si[i].name)) < 0 ||
            json_object_set_new(def, "indexType", json_string("secondary_index")) < 0 ||
            json_object_set_new(def, "indexFunction", json_string("identity")) < 0 ||
            json_object_set_new(def, "sourceFields", fields) < 0 ||
            json_object_set_new(def, "indexOptions", json_object()) < 0 ||
            json_object_set_new(defs, si[i].name, def) < 0) {
            rc = HOODIE_NOMEM();
            break;
        }
    }
    if (rc == HOODIE_OK) rc = defs_store(s, path, root);
    if (rc < 0) hoodie_error__prefix("%s: ", path ? path : base_path);
    json_decref(root);
    free(path);
    return rc;
}

static int strp_cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* A secondary index for a new MDT: deltacommit `t` (BULK_INSERT) with a base HFile per file group (as many as the
 * record index would have for as many keys) of its keys. */
static hoodie_status si_init_partition(const hoodie_storage *s, const char *mdt, const hoodie_table_config *mc,
                                       const char *t, const hoodie_si_init *si)
{
    size_t ng = rli_init_groups(si->n);
    hoodie_write_txn tx;
    memset(&tx, 0, sizeof tx);
    hoodie_buf schema = HOODIE_BUF_INIT, meta = HOODIE_BUF_INIT, prefix = HOODIE_BUF_INIT;
    out_file *outs = calloc(ng, sizeof *outs);
    hoodie_wstat *sts = calloc(ng, sizeof *sts);
    char (*fids)[160] = calloc(ng, sizeof *fids);
    size_t *count = calloc(ng + 1, sizeof *count), *at = calloc(ng + 1, sizeof *at);
    const char **keys = malloc((si->n + 1) * sizeof *keys);
    hoodie_status rc = outs && sts && fids && count && at && keys ? HOODIE_OK : HOODIE_NOMEM();
    for (const char *p = si->name; rc == HOODIE_OK && *p; p++) /* secondary_index_x_idx -> secondary-index-x-idx- */
        if (hoodie_buf_putc(&prefix, *p == '_' ? '-' : *p) < 0) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK && (hoodie_buf_putc(&prefix, '-') < 0 || hoodie_buf_cstr(&prefix) < 0)) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK && prefix.len + 8 > sizeof fids[0])
        rc = HOODIE_FAIL(HOODIE_EINVAL, "secondary index name '%s' too long", si->name);
    /* the keys by file group (a counting sort), each group's sorted */
    for (size_t i = 0; rc == HOODIE_OK && i < si->n; i++) count[hoodie_mdt_key_group(si->keys[i], ng)]++;
    for (size_t g = 1; rc == HOODIE_OK && g <= ng; g++) at[g] = at[g - 1] + count[g - 1];
    for (size_t i = 0; rc == HOODIE_OK && i < si->n; i++) keys[at[hoodie_mdt_key_group(si->keys[i], ng)]++] = si->keys[i];
    for (size_t g = 0; rc == HOODIE_OK && g < ng; g++) at[g] -= count[g];
    if (rc == HOODIE_OK) rc = hoodie_mdtw__schema_with_meta(&schema);
    if (rc == HOODIE_OK) rc = hoodie_write__partition_metadata(s, mdt, si->name, t);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__mdt_begin(&tx, s, mdt, mc, t, HOODIE_ACTION_DELTACOMMIT, "", 0);
    if (rc == HOODIE_OK) rc = hoodie_write__inflight(&tx, NULL, 0);
    for (size_t g = 0; rc == HOODIE_OK && g < ng; g++) {
        const char **gk = keys + at[g];
        if (count[g]) qsort(gk, count[g], sizeof *gk, strp_cmp);
        for (size_t i = 1; rc == HOODIE_OK && i < count[g]; i++)
            if (!strcmp(gk[i - 1], gk[i]))
                rc = HOODIE_FAIL(HOODIE_EINVAL, "secondary index %s: key '%s' twice (a record key in two file "
                                 "groups?)", si->name, gk[i]);
        snprintf(fids[g], sizeof fids[g], "%s%04u-0", (const char *)prefix.data, (unsigned)g);
        int64_t records = 0;
        if (rc == HOODIE_OK) rc = hoodie_file_name_base(&outs[g].name, fids[g], LOG_TOKEN, t, "hfile");
        if (rc == HOODIE_OK)
            rc = hoodie_mdtw__build_si_hfile(gk, count[g], &schema, (const char *)outs[g].name.data, &outs[g].bytes,
                                             &records);
        if (rc == HOODIE_OK)
            rc = hoodie_mdtw__put_part_file(&tx, mdt, si->name, (const char *)outs[g].name.data, &outs[g].bytes,
                                            HOODIE_MARKER_CREATE, &outs[g].rel);
        base_stat(&sts[g], si->name, fids[g], &outs[g], records);
    }
    if (rc == HOODIE_OK) rc = bulk_complete(&tx, sts, ng, &meta);
    hoodie_write__txn_dispose(&tx);
    for (size_t g = 0; outs && g < ng; g++) hoodie_mdtw__out_file_dispose(&outs[g]);
    free(outs), free(sts), free(fids), free(count), free(at), free(keys);
    hoodie_buf_dispose(&schema);
    hoodie_buf_dispose(&meta);
    hoodie_buf_dispose(&prefix);
    return rc;
}

static hoodie_status init_locked(const hoodie_storage *s, const char *base_path, int64_t *files_out,
                                 const hoodie_rli_changes *keys, const char *mark, const hoodie_si_init *si,
                                 size_t n_si)
{
    hoodie_table_config *cfg = NULL;
    hoodie_timeline *tl = NULL;
    char *mdt = hoodie_mdtw__mdt_path(base_path);
    if (!mdt) return HOODIE_NOMEM();
    changes ch;
    memset(&ch, 0, sizeof ch);
    hoodie_write_txn tx;
    memset(&tx, 0, sizeof tx);
    hoodie_buf text = HOODIE_BUF_INIT, schema = HOODIE_BUF_INIT, hfile = HOODIE_BUF_INIT, name = HOODIE_BUF_INIT;
    hoodie_buf rel = HOODIE_BUF_INIT, meta = HOODIE_BUF_INIT;
    hoodie_table_config *mc = NULL;
    int64_t records = 0;
    const char *t0 = "00000000000000000";
    hoodie_status rc = hoodie_table_config_load(&cfg, s, base_path, 0);
    if (rc == HOODIE_OK && (cfg->version != 8 || cfg->timeline_layout_version != 2))
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: hoodie creates metadata tables of version 8 tables, not of "
                         "version %d", base_path, cfg->version);
    if (rc == HOODIE_OK && hoodie_mdt_listed(cfg, "files"))
        rc = HOODIE_FAIL(HOODIE_EEXISTS, "%s: the table has a metadata table (hoodie.table.metadata.partitions "
                         "lists files)", base_path);
    if (rc == HOODIE_OK) rc = hoodie_timeline_load(&tl, s, base_path, cfg);
    for (size_t i = 0; rc == HOODIE_OK && i < tl->count; i++)
        if (tl->instants[i].state != HOODIE_STATE_COMPLETED)
            rc = HOODIE_FAIL(HOODIE_ESTATE, "%s: instant %s is pending: the metadata table is created when no write "
                             "or service is (let it complete, or roll it back)", base_path, tl->instants[i].requested);
    if (rc == HOODIE_OK && keys && (!cfg->populate_meta_fields || cfg->bucket_index || cfg->lsm_tree))
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: hoodie keeps a record index of tables with meta fields and a bloom "
                         "index (not %s)", base_path, !cfg->populate_meta_fields ? "without meta fields"
                                                      : cfg->bucket_index ? "a bucket index" : "the LSM layout");
    if (rc == HOODIE_OK && keys) { /* the keys were read from the table as it is now */
        char now[HOODIE_TIMELINE_MARK_MAX];
        hoodie_write__timeline_mark(tl, now);
        if (strcmp(now, mark ? mark : ""))
            rc = HOODIE_FAIL(HOODIE_ECONFLICT, "%s: the table changed while its record keys were read (timeline %s, "
                             "now %s): run init again", base_path, mark ? mark : "", now);
    }
    /* a folder left by a disabled or interrupted one goes first */
    if (rc == HOODIE_OK) rc = hoodie_storage_remove_tree(s, mdt);
    if (rc == HOODIE_OK) rc = storage_listing(s, base_path, cfg, tl, &ch);
    /* the MDT: hoodie.properties, the files partition, deltacommit 00000000000000000 with its base file */
    if (rc == HOODIE_OK) rc = hoodie_write__mdt_props(&text, cfg->name);
    if (rc == HOODIE_OK) {
        hoodie_buf p = HOODIE_BUF_INIT;
        rc = hoodie_buf_printf(&p, "%s/.hoodie/hoodie.properties", mdt);
        if (rc == HOODIE_OK) rc = hoodie_storage_write_all(s, (const char *)p.data, HOODIE_CREATE_EXCLUSIVE, text.data, text.len);
        hoodie_buf_dispose(&p);
    }
    if (rc == HOODIE_OK) rc = hoodie_table_config_load(&mc, s, mdt, 0);
    if (rc == HOODIE_OK) rc = hoodie_write__partition_metadata(s, mdt, "files", t0);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__mdt_begin(&tx, s, mdt, mc, t0, HOODIE_ACTION_DELTACOMMIT, "", 0);
    if (rc == HOODIE_OK) rc = hoodie_write__inflight(&tx, NULL, 0);
    if (rc == HOODIE_OK) rc = hoodie_file_name_base(&name, FILES_GROUP, LOG_TOKEN, t0, "hfile");
    if (rc == HOODIE_OK) rc = hoodie_mdtw__schema_with_meta(&schema);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__build_hfile(&ch, &schema, (const char *)name.data, &hfile, &records);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__put_file(&tx, mdt, (const char *)name.data, &hfile, HOODIE_MARKER_CREATE, &rel);
    if (rc == HOODIE_OK) {
        hoodie_wstat st;
        memset(&st, 0, sizeof st);
        st.partition_path = "files", st.file_id = FILES_GROUP, st.path = (const char *)rel.data;
        st.num_writes = st.num_inserts = records;
        st.total_write_bytes = st.file_size_in_bytes = (int64_t)hfile.len;
        st.has_runtime = 1;
        hoodie_kv extra = { "schema", hoodie_write__mdt_schema };
        hoodie_commit_info ci;
        memset(&ci, 0, sizeof ci);
        ci.stats = &st, ci.stat_count = 1, ci.extra = &extra, ci.extra_count = 1, ci.operation_type = "BULK_INSERT";
        rc = hoodie_commit_encode(&meta, &ci, 8);
    }
    if (rc == HOODIE_OK) rc = hoodie_write__complete(&tx, meta.data, meta.len);
    /* column_stats (as Hudi 1.x has it by default), for a table with a schema */
    int cs_made = 0, defs_key = 0;
    if (rc == HOODIE_OK) rc = cs_init(s, base_path, mdt, cfg, mc, &ch, &cs_made, &defs_key);
    /* the record index, when asked for: its instant follows the others' (Hudi's 000, 001, 002 of one init) */
    if (rc == HOODIE_OK && keys)
        rc = rli_init_partition(s, base_path, mdt, cfg, tl, mc, cs_made ? "00000000000000002" : "00000000000000001",
                                keys);
    /* secondary indexes, when asked for (on the record index: Hudi's too), an instant each after those */
    int si_defs_key = 0;
    if (rc == HOODIE_OK && n_si && !keys)
        rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: secondary indexes need the record index", base_path);
    if (rc == HOODIE_OK && n_si) rc = si_init_definitions(s, base_path, cfg, si, n_si, &si_defs_key);
    for (size_t i = 0; rc == HOODIE_OK && i < n_si; i++) {
        char t[18];
        snprintf(t, sizeof t, "%017u", (unsigned)(2 + cs_made + i));
        rc = si_init_partition(s, mdt, mc, t, &si[i]);
    }
    /* last: the table lists it (readers and writers take it from here on) */
    hoodie_buf parts = HOODIE_BUF_INIT;
    const char **names = calloc(3 + n_si + 1, sizeof *names);
    size_t n_names = 0;
    if (rc == HOODIE_OK && !names) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK) {
        names[n_names++] = "files";
        if (cs_made) names[n_names++] = CS_PART;
        if (keys) names[n_names++] = RLI_PART;
        for (size_t i = 0; i < n_si; i++) names[n_names++] = si[i].name;
        qsort(names, n_names, sizeof *names, strp_cmp);
    }
    for (size_t i = 0; rc == HOODIE_OK && i < n_names; i++)
        if (hoodie_buf_printf(&parts, "%s%s", i ? "," : "", names[i]) < 0) rc = HOODIE_NOMEM();
    free(names);
    if (rc == HOODIE_OK)
        rc = hoodie_write__set_mdt_partitions_with(s, base_path, cfg, (const char *)parts.data,
                                                   (defs_key && cs_made) || si_defs_key ? INDEX_DEFS_KEY : NULL,
                                                   INDEX_DEFS_PATH);
    hoodie_buf_dispose(&parts);
    if (rc == HOODIE_OK && files_out) *files_out = (int64_t)ch.n;
    hoodie_write__txn_dispose(&tx);
    hoodie_mdtw__changes_dispose(&ch);
    hoodie_timeline_free(tl);
    hoodie_table_config_free(cfg);
    hoodie_table_config_free(mc);
    hoodie_buf_dispose(&text);
    hoodie_buf_dispose(&schema);
    hoodie_buf_dispose(&hfile);
    hoodie_buf_dispose(&name);
    hoodie_buf_dispose(&rel);
    hoodie_buf_dispose(&meta);
    free(mdt);
    return rc;
}

hoodie_status hoodie_write__mdt_init(const hoodie_storage *s, const char *base_path, int64_t *files)
{
    return hoodie_write__mdt_init_with(s, base_path, files, NULL, NULL);
}

hoodie_status hoodie_write__mdt_init_with(const hoodie_storage *s, const char *base_path, int64_t *files,
                                         const hoodie_rli_changes *keys, const char *mark)
{
    return hoodie_write__mdt_init_indexes(s, base_path, files, keys, mark, NULL, 0);
}

hoodie_status hoodie_write__mdt_init_indexes(const hoodie_storage *s, const char *base_path, int64_t *files,
                                            const hoodie_rli_changes *keys, const char *mark,
                                            const hoodie_si_init *si, size_t n_si)
{
    s = hoodie_storage__or_default(s);
    hoodie_table_lock lock;
    HOODIE_TRY(hoodie_write__lock(&lock, s, base_path, -1));
    hoodie_status rc = init_locked(s, base_path, files, keys, mark, si, n_si);
    if (rc < 0) hoodie_error__prefix("creating the metadata table: ");
    if (hoodie_write__unlock(&lock) < 0 && rc == HOODIE_OK) hoodie_error_clear();
    return rc;
}
