/*
 * The write client (include/hoodie/writer.h): one call, one commit.
 *
 *   recover    roll back pending writes left by dead writers (write/rollback.h)
 *   input      drain the Arrow stream, evolve the table schema with the input's (write/wschema.h), conform
 *   keys       record key and partition path of every row (table/keygen.h)
 *   combine    one row per (partition, key): the larger ordering value wins, ties to the later row
 *   index      upsert/delete: base files whose key range and bloom filter admit a key are read (key column only)
 *              to find the file group holding it
 *   assign     updates and deletes to their file group; inserts fill small file groups
 *              (< small_file_limit, up to max_file_size by the group's average record size), then new groups
 *   write      COW: a new base file version per touched group (merge handle), new groups (create handle);
 *              MOR: updates and deletes as log files (Avro data block, delete block), inserts as base files
 *   commit     requested -> markers -> inflight (workload) -> data files -> [pre-commit check] -> completed
 *              (commit metadata), the completed file created exclusively and last (write/commit.h)
 *
 * Memory: the input is held in memory (one batch); base files touched are rewritten one at a time.
 * HOODIE_TRACE_WRITE (environment): the wall time of each phase on stderr, the files phase also by handle (merges,
 * log appends, new files).
 */
#include "write/writer_int.h"
#include "model/avro_schema_gen.h"
#include "write/precommit.h"

#include <time.h>

/* ---- schema ---- */

static hoodie_status table_schema_field(wctx *w, hoodie_field *out, int *found)
{
    hoodie_status rc = hoodie_table__schema_field(w->t, NULL, out);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; *found = 0; }
    else *found = rc == HOODIE_OK;
    return rc;
}

/* Hudi refuses a batch without some of the table's columns (hoodie.write.set.null.for.missing.columns=false):
 * an upsert would put nulls in place of the stored values. The table's meta columns are the writer's. */
static hoodie_status missing_columns(wctx *w, const hoodie_field *table, const hoodie_field *input)
{
    for (size_t i = 0; i < table->n_children; i++) {
        const char *name = table->children[i].name;
        if (hoodie_is_meta_field(name) || hoodie_field_find(input, name) >= 0) continue;
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: the input has no column '%s' of the table; Hudi refuses such a write "
                           "(it would store nulls there: hoodie.write.set.null.for.missing.columns=false). Give the "
                           "input every column, or write nulls with --set-null-for-missing-columns "
                           "(hoodie_write_opts.set_null_for_missing_columns)", w->t->base_path, name);
    }
    return HOODIE_OK;
}

/* hoodie_fill_spec.absent_of of partial updates: the columns the merge handle's records of input rows lack. */
static const uint8_t *input_absent(void *ctx, const hoodie_batch *b, int64_t r)
{
    const wctx *w = ctx;
    (void)r;
    return b == w->fresh ? w->absent : NULL;
}

/*
 * Partial updates: which of the table's columns the input lacks (w->absent), the schema of MOR log blocks of the
 * others, and the merge's fill from the stored records. An input with every column is a whole update. Refused
 * where Hudi writes no partial blocks (table version 6 MOR, the LSM layout, change data capture, tables without
 * meta fields) and for other operations than upsert; the ordering field must be there (it decides the merge).
 */
static hoodie_status partial_setup(wctx *w, const hoodie_field *input)
{
    size_t nc = w->file_schema.n_children, c = 5;
    while (c < nc && hoodie_field_find(input, w->file_schema.children[c].name) >= 0) c++;
    if (c == nc) return HOODIE_OK;
    const char *why = w->o.op != HOODIE_WRITE_UPSERT ? "are for upserts"
                      : w->cfg->lsm_tree ? "are not written to the LSM layout"
                      : w->cfg->cdc ? "are not written to tables that log changes (hoodie.table.cdc.enabled)"
                      : !w->cfg->populate_meta_fields ? "need meta fields"
                      : w->cfg->type == HOODIE_TABLE_MERGE_ON_READ && w->cfg->version < 8
                          ? "are written to merge-on-read tables from version 8 (IS_PARTIAL log blocks)" : NULL;
    if (why) return HOODIE_FAIL(HOODIE_EINVAL, "%s: partial updates %s", w->t->base_path, why);
    const char *ord = hoodie_table_ordering_field(w->cfg);
    if (ord && hoodie_field_find(input, ord) < 0)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: partial updates need the ordering field '%s' in the input",
                           w->t->base_path, ord);
    if (!(w->absent = calloc(nc + 1, 1)) || !(w->partial_col = calloc(nc + 1, sizeof *w->partial_col)))
        return HOODIE_NOMEM();
    hoodie_field data;
    HOODIE_TRY(hoodie_field_init(&data, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_status rc = HOODIE_OK;
    size_t k = 5;
    for (c = 0; c < 5; c++) w->partial_col[c] = (int)c;
    for (c = 5; c < nc && rc == HOODIE_OK; c++) {
        w->absent[c] = (uint8_t)(hoodie_field_find(input, w->file_schema.children[c].name) < 0);
        if (w->absent[c]) continue;
        w->partial_col[k++] = (int)c;
        rc = hoodie_field_add_child(&data, &w->file_schema.children[c]);
    }
    if (rc == HOODIE_OK) rc = hoodie_field_with_meta(&w->partial_schema, &data);
    w->have_partial_schema = rc == HOODIE_OK;
    if (rc == HOODIE_OK) rc = hoodie_wlog_avro_schema(&w->partial_avro, &data, w->cfg->name, 1);
    hoodie_field_dispose(&data);
    return rc;
}

/* One change of a write to a schema-on-read table: `path` (malloc; NULL: a top-level column, named by f) taken. */
static hoodie_status evo_change(wctx *w, hoodie_evo_kind kind, char *path, const hoodie_field *f)
{
    if (w->n_evo_ch == w->cap_evo_ch) {
        size_t nc = w->cap_evo_ch ? 2 * w->cap_evo_ch : 8;
        hoodie_evo_change *ch = realloc(w->evo_ch, nc * sizeof *ch);
        if (ch) w->evo_ch = ch;
        char **ps = ch ? realloc(w->evo_paths, nc * sizeof *ps) : NULL;
        if (ps) w->evo_paths = ps;
        if (!ps) { free(path); return HOODIE_NOMEM(); }
        w->cap_evo_ch = nc;
    }
    w->evo_paths[w->n_evo_ch] = path;
    w->evo_ch[w->n_evo_ch++] = (hoodie_evo_change){ kind, path ? path : f->name, NULL, f };
    return HOODIE_OK;
}

/* "parent.name" (malloc; name alone at the top), NULL when out of memory. */
static char *evo_path(const char *parent, const char *name)
{
    size_t n = (parent ? strlen(parent) + 1 : 0) + strlen(name) + 1;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s%s%s", parent ? parent : "", parent ? "." : "", name);
    return p;
}

/* The schema-version changes that make column or nested field `t` (NULL: new) the write's `d` (its evolved type:
 * t's fields and more, or t widened), at `path` (NULL: a top-level column): a new field added, a widened one
 * retyped, through records' fields, a list's element and a map's value. An element or a value whose type
 * changed otherwise than by new record fields is left to ALTER TABLE. */
static hoodie_status evo_changes(wctx *w, const hoodie_field *t, const hoodie_field *d, const char *parent)
{
    if (t && hoodie_field_equal(t, d)) return HOODIE_OK;
    char *path = NULL;
    if (parent && !(path = evo_path(parent, d->name))) return HOODIE_NOMEM();
    const char *at = path ? path : d->name;
    if (!t) return evo_change(w, HOODIE_EVO_ADD, path, d);
    hoodie_type_id id = t->type.id;
    hoodie_status rc = HOODIE_OK;
    if (id == HOODIE_TYPE_STRUCT && d->type.id == id) {
        for (size_t c = 0; c < d->n_children && rc == HOODIE_OK; c++) {
            int k = hoodie_field_find(t, d->children[c].name);
            rc = evo_changes(w, k >= 0 ? &t->children[k] : NULL, &d->children[c], at);
        }
    } else if ((id == HOODIE_TYPE_LIST || id == HOODIE_TYPE_MAP) && d->type.id == id) {
        /* a list's element, a map's value: only their records' fields may change here */
        const hoodie_field *te = id == HOODIE_TYPE_LIST ? &t->children[0] : &t->children[0].children[1];
        const hoodie_field *de = id == HOODIE_TYPE_LIST ? &d->children[0] : &d->children[0].children[1];
        const char *step = id == HOODIE_TYPE_LIST ? "element" : "value";
        char *sub = evo_path(at, step);
        if (!sub) rc = HOODIE_NOMEM();
        else if (te->type.id == HOODIE_TYPE_STRUCT && de->type.id == HOODIE_TYPE_STRUCT)
            for (size_t c = 0; c < de->n_children && rc == HOODIE_OK; c++) {
                int k = hoodie_field_find(te, de->children[c].name);
                rc = evo_changes(w, k >= 0 ? &te->children[k] : NULL, &de->children[c], sub);
            }
        else if (te->type.id != de->type.id && te->type.id != HOODIE_TYPE_STRUCT && te->type.id != HOODIE_TYPE_LIST &&
                 te->type.id != HOODIE_TYPE_MAP) { /* widened (int to long: hoodie_wschema_evolve checked it) */
            rc = evo_change(w, HOODIE_EVO_RETYPE, sub, de);
            sub = NULL; /* the change's */
        } else if (!hoodie_field_equal(te, de) || (id == HOODIE_TYPE_MAP && !hoodie_field_equal(&t->children[0].children[0],
                                                                                              &d->children[0].children[0])))
            rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: the table reads its schema by field id (schema on read): this "
                             "write would change the type of '%s', which hoodie does not reconcile (Spark SQL's ALTER "
                             "TABLE ... ALTER COLUMN does)", w->t->base_path, sub);
        free(sub);
    } else if (id == HOODIE_TYPE_STRUCT || id == HOODIE_TYPE_LIST || id == HOODIE_TYPE_MAP) {
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: the table reads its schema by field id (schema on read): this write "
                         "would change the type of nested column '%s', which hoodie does not reconcile", w->t->base_path,
                         at);
    } else {
        return evo_change(w, HOODIE_EVO_RETYPE, path, d); /* widened (hoodie_wschema_evolve checked it) */
    }
    free(path);
    return rc;
}

static hoodie_status prepare_schema(wctx *w, const hoodie_field *input)
{
    hoodie_field table;
    int found;
    HOODIE_TRY(table_schema_field(w, &table, &found));
    hoodie_status rc;
    if (w->o.op == HOODIE_WRITE_DELETE || w->o.op == HOODIE_WRITE_DELETE_PARTITION) {
        if (!found) {
            rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: nothing to delete: the table has no schema yet", w->t->base_path);
        } else {
            rc = hoodie_wschema_evolve(&w->data_schema, &table, &table);
        }
    } else {
        rc = hoodie_wschema_evolve(&w->data_schema, found ? &table : NULL, input);
        if (rc == HOODIE_OK && found && !w->o.set_null_for_missing_columns && !w->o.partial_updates &&
            (rc = missing_columns(w, &table, input)) < 0)
            hoodie_field_dispose(&w->data_schema); /* (a column of the wrong type is the first thing to say) */
    }
    if (rc == HOODIE_OK && found && w->t->evo && !hoodie_field_equal(&table, &w->data_schema)) {
        /* schema on read (table/evo.h): new columns and nested fields take new field ids, widened ones keep theirs,
         * in a new schema version made at commit, as Hudi's writers reconcile it
         * (AvroSchemaEvolutionUtils.reconcileSchema) */
        const hoodie_field *d = &w->data_schema;
        for (size_t c = 0; c < d->n_children && rc == HOODIE_OK; c++) {
            int at = hoodie_field_find(&table, d->children[c].name);
            rc = evo_changes(w, at >= 0 ? &table.children[at] : NULL, &d->children[c], NULL);
        }
        if (rc < 0) hoodie_field_dispose(&w->data_schema);
    }
    if (found) hoodie_field_dispose(&table);
    if (rc < 0) return rc;
    rc = hoodie_field_with_meta(&w->file_schema, &w->data_schema);
    if (rc < 0) { hoodie_field_dispose(&w->data_schema); return rc; }
    w->have_schemas = 1;
    const char *tn = w->cfg->name;
    HOODIE_TRY(hoodie_wlog_avro_schema(&w->avro_data_schema, &w->data_schema, tn, 0));
    HOODIE_TRY(hoodie_wlog_avro_schema(&w->avro_file_schema, &w->data_schema, tn, 1));
    return w->o.partial_updates && w->o.op != HOODIE_WRITE_DELETE && w->o.op != HOODIE_WRITE_DELETE_PARTITION
               ? partial_setup(w, input) : HOODIE_OK;
}

/* ---- combine ---- */

/*
 * Partial updates: a row appended to the input made of row `win` with row `lose`'s values where win lacks its own
 * (w->fill_in), with win's key, partition and delete mark; *row is its index. *cap: rows the per-row arrays (keys'
 * offsets, partitions, delete marks) have room for beyond the input's length when the combining began.
 */
static hoodie_status combined_row_from(wctx *w, const hoodie_fill_spec *fs, int64_t win, const hoodie_batch *lb,
                                       int64_t lose, size_t *cap, int64_t *row)
{
    int64_t r = w->in.root.length;
    if ((size_t)r + 1 > *cap) {
        size_t nc = *cap * 2 + 64;
        int64_t *off = realloc(w->keys.offsets, (nc + 1) * sizeof *off);
        if (off) w->keys.offsets = off;
        uint32_t *rp = off ? realloc(w->row_part, (nc + 1) * sizeof *rp) : NULL;
        if (rp) w->row_part = rp;
        uint8_t *d = rp ? realloc(w->del, nc + 1) : NULL;
        if (!d) return HOODIE_NOMEM();
        w->del = d;
        *cap = nc;
    }
    HOODIE_TRY(hoodie_fill_append(fs, &w->in, &w->in, win, lb, lose, 0, -1, &r)); /* no meta yet */
    size_t kl;
    const char *k = key_at(&w->keys, win, &kl);
    if (kl) {
        size_t at = (size_t)(k - (const char *)w->keys.data.data);
        HOODIE_TRY(hoodie_buf_reserve(&w->keys.data, kl)); /* then the key is copied from where it stays */
        HOODIE_TRY(hoodie_buf_append(&w->keys.data, w->keys.data.data + at, kl));
    }
    w->keys.offsets[r + 1] = (int64_t)w->keys.data.len;
    w->keys.rows = r + 1;
    w->row_part[r] = w->row_part[win];
    w->del[r] = 0;
    *row = r;
    return HOODIE_OK;
}

static hoodie_status combined_row(wctx *w, int64_t win, int64_t lose, size_t *cap, int64_t *row)
{
    return combined_row_from(w, &w->fill_in, win, &w->in, lose, cap, row);
}

hoodie_status hoodie_wr__fill_row(wctx *w, const hoodie_fill_spec *fs, int64_t src, const hoodie_batch *lb, int64_t lr,
                                  int64_t *row)
{
    return combined_row_from(w, fs, src, lb, lr, &w->row_cap, row);
}

hoodie_status hoodie_wr__copy_row(wctx *w, int64_t src, int64_t *row)
{
    HOODIE_TRY(combined_row(w, src, src, &w->row_cap, row));
    w->del[*row] = w->del[src];
    return HOODIE_OK;
}

/* One row per (partition, key): an open-addressing table of row indices, keys compared in place (no copies),
 * partitions by their index (index_partitions runs first); with partial updates, a key's rows combine into a new
 * row (combined_row) when the winner lacks values. */
static hoodie_status combine(wctx *w)
{
    int64_t n = w->in.root.length;
    /* upserts and deletes always; inserts when asked (hoodie.combine.before.insert, default false); LSM files hold
     * each key once */
    int dedupe = w->cfg->lsm_tree || !(w->o.op == HOODIE_WRITE_INSERT || w->o.op == HOODIE_WRITE_BULK_INSERT) ||
                 (w->o.combine_before_insert && !w->o.no_combine);
    int64_t *best = malloc(((size_t)n + 1) * sizeof *best); /* becomes w->live */
    if (!best) return HOODIE_NOMEM();
    w->row_cap = (size_t)n;
    if (!dedupe) {
        for (int64_t r = 0; r < n; r++) best[r] = r;
        free(w->live.v);
        w->live = (rowvec){ best, (size_t)n, (size_t)n + 1 };
        return HOODIE_OK;
    }
    if (n > (int64_t)UINT32_MAX - 1) { free(best); return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "more than 2^32 rows in one write"); }
    /* a global index (RECORD_INDEX) holds a key once whatever its partition: rows combine by key alone, as Hudi's
     * deduplication does for global indexes */
    int global = (w->o.record_index || w->o.global_bloom) &&
                 (w->o.op == HOODIE_WRITE_UPSERT || w->o.op == HOODIE_WRITE_DELETE);
    size_t cap = 16;
    while (cap < (size_t)n + (size_t)n / 3 + 1) cap *= 2;
    /* 8-byte slots (the table is touched all over: its size is page faults); h: the hash's high half, best: index
     * into `best` + 1, 0 = empty */
    typedef struct { uint32_t h; uint32_t best; } slot;
    slot *tab = calloc(cap, sizeof *tab);
    if (!tab) { free(best); return HOODIE_NOMEM(); }
    size_t n_best = 0, mask = cap - 1;
    /* hashes a block ahead, their slots prefetched: the table is far larger than the caches */
    enum { AHEAD = 16 };
    uint64_t hs[AHEAD];
    for (int64_t r = 0; r < n; r++) {
        if (r % AHEAD == 0)
            for (int64_t j = r; j < r + AHEAD && j < n; j++) {
                size_t jkl;
                const char *jk = key_at(&w->keys, j, &jkl);
                hs[j - r] = hoodie_hash_bytes(jk, jkl, 0x9e3779b97f4a7c15ull * (global ? 1ull : w->row_part[j] + 1ull));
                __builtin_prefetch(&tab[hs[j - r] & mask]);
            }
        size_t kl;
        const char *k = key_at(&w->keys, r, &kl);
        uint32_t p = w->row_part[r];
        uint64_t h = hs[r % AHEAD];
        uint32_t h32 = (uint32_t)(h >> 32);
        size_t i = (size_t)h & mask;
        for (;; i = (i + 1) & mask) {
            slot *s = &tab[i];
            if (!s->best) { s->h = h32; s->best = (uint32_t)n_best + 1; best[n_best++] = r; break; }
            if (s->h != h32) continue;
            int64_t o = best[s->best - 1];
            size_t okl;
            const char *ok = key_at(&w->keys, o, &okl);
            if (okl != kl || (!global && w->row_part[o] != p) || memcmp(ok, k, kl)) continue;
            hoodie_merge_version a, b;
            version_of(w, o, &a);
            version_of(w, r, &b);
            /* precombine: the larger ordering value wins, ties to the later row (both payloads agree) */
            int later = hoodie_merge_newer_wins(HOODIE_MERGE_EVENT_TIME_ORDERING, &a, &b);
            best[s->best - 1] = later ? r : o;
            /* partial updates: the winner takes the loser's values where it lacks its own, as a new row */
            if (w->fill_in.both && !a.is_delete && !b.is_delete &&
                hoodie_fill_wanted(&w->fill_in, &w->in, later ? r : o, &w->in, later ? o : r, 0)) {
                int64_t made = 0;
                hoodie_status rc = combined_row(w, later ? r : o, later ? o : r, &w->row_cap, &made);
                if (rc < 0) { free(tab); free(best); return rc; }
                best[s->best - 1] = made;
            }
            break;
        }
    }
    free(tab);
    free(w->live.v);
    w->live = (rowvec){ best, n_best, (size_t)n + 1 };
    return HOODIE_OK;
}

/* ---- partitions ---- */

/*
 * Every input row's partition as an index into part_names (numbered in order of first appearance); the paths
 * themselves are freed then (tens of MB for millions of rows). Combining keeps one row of each (partition, key),
 * of a partition some kept row has, so the partitions are those of the rows written.
 */
static hoodie_status index_partitions(wctx *w)
{
    int64_t n = w->in.root.length;
    hoodie_hmap m = HOODIE_HMAP_INIT;
    hoodie_status rc = hoodie_hmap_init(&m, 64);
    w->row_part = calloc((size_t)n + 1, sizeof *w->row_part);
    if (!w->row_part) rc = HOODIE_NOMEM();
    for (int64_t r = 0; rc == HOODIE_OK && r < n; r++) {
        size_t pl;
        const char *p = key_at(&w->parts, r, &pl);
        uint64_t *slot;
        int existed;
        rc = hoodie_hmap_upsert(&m, p, pl, &slot, &existed);
        if (rc < 0) break;
        if (!existed) {
            char **np = realloc(w->part_names, (w->n_parts + 1) * sizeof *np);
            if (!np) { rc = HOODIE_NOMEM(); break; }
            w->part_names = np;
            np[w->n_parts] = strndup(pl ? p : "", pl) /* p is NULL when every path is empty */;
            if (!np[w->n_parts]) { rc = HOODIE_NOMEM(); break; }
            *slot = w->n_parts++;
        }
        w->row_part[r] = (uint32_t)*slot;
    }
    hoodie_hmap_dispose(&m);
    hoodie_keygen_out_dispose(&w->parts);
    hoodie_keygen_out_init(&w->parts);
    return rc;
}

int hoodie_wr__part_index(const wctx *w, const char *p)
{
    for (size_t i = 0; i < w->n_parts; i++)
        if (!strcmp(w->part_names[i], p)) return (int)i;
    return -1;
}

static int view_filter(void *ctx, const char *partition)
{
    const wctx *w = ctx;
    if (w->o.op == HOODIE_WRITE_INSERT_OVERWRITE_TABLE) return 1;
    if (w->o.global_bloom && (w->o.op == HOODIE_WRITE_UPSERT || w->o.op == HOODIE_WRITE_DELETE)) return 1;
    return hoodie_wr__part_index(w, partition) >= 0;
}

/* ---- groups ---- */

wgroup *hoodie_wr__new_group(wctx *w, uint32_t part, const hoodie_file_group *existing)
{
    if (w->n_groups == w->cap_groups) {
        size_t nc = w->cap_groups ? w->cap_groups * 2 : 16;
        wgroup *g = realloc(w->groups, nc * sizeof *g);
        if (!g) { HOODIE_NOMEM(); return NULL; }
        w->groups = g;
        w->cap_groups = nc;
    }
    wgroup *g = &w->groups[w->n_groups];
    memset(g, 0, sizeof *g);
    g->part = part;
    g->ordinal = (int)w->n_groups;
    g->existing = existing;
    if (existing) {
        snprintf(g->file_id, sizeof g->file_id, "%s", existing->file_id);
        g->slice = hoodie_file_group_latest(existing);
        if (g->slice && g->slice->base) g->base_size = g->slice->base->size;
    } else {
        hoodie_write__new_file_id(g->file_id, sizeof g->file_id);
    }
    w->n_groups++;
    return g;
}

/* ---- assignment ---- */

/*
 * Average record size, as Hudi estimates it: from the latest completed write whose base files add up to more than
 * hoodie.record.size.estimation.threshold (1.0) x the small file limit, else hoodie.copyonwrite.record.size.estimate
 * (1024). Small commits are skipped: their files are mostly footer (the bloom filter alone is ~430 KB).
 */
static hoodie_status estimate_record_size(wctx *w)
{
    int64_t threshold = w->o.small_file_limit > 0 ? w->o.small_file_limit
                      : w->o.small_file_limit < 0 ? 0 : DEFAULT_SMALL_FILE; /* Hudi: 1.0 x a limit of 0 */
    w->record_size = DEFAULT_RECORD_SIZE;
    const hoodie_timeline *tl = w->t->tl;
    for (size_t i = tl->count; i-- > 0;) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->state != HOODIE_STATE_COMPLETED || !(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action))) continue;
        hoodie_commit_meta *m;
        HOODIE_TRY(hoodie_table__commit_meta(w->t, in, &m));
        int64_t bytes = 0, recs = 0;
        for (size_t k = 0; k < m->stat_count; k++) {
            const char *p = m->stats[k].path;
            if (!p || strlen(p) < 8 || strcmp(p + strlen(p) - 8, ".parquet")) continue;
            bytes += m->stats[k].total_write_bytes;
            recs += m->stats[k].num_writes;
        }
        hoodie_commit_meta_free(m);
        if (recs > 0 && bytes > threshold) { w->record_size = bytes / recs > 0 ? bytes / recs : 1; break; }
    }
    return HOODIE_OK;
}

/* hoodie.merge.small.file.group.candidates.limit: small file groups of a partition a MOR write may pad */
#define MOR_SMALL_FILE_CANDIDATES 1

static int by_base_size(const void *a, const void *b)
{
    const hoodie_file_slice *x = hoodie_file_group_latest(*(const hoodie_file_group *const *)a);
    const hoodie_file_slice *y = hoodie_file_group_latest(*(const hoodie_file_group *const *)b);
    return x->base->size < y->base->size ? -1 : x->base->size > y->base->size;
}

static wgroup *group_of(wctx *w, uint32_t part, const hoodie_file_group *fg)
{
    for (size_t k = 0; k < w->n_groups; k++)
        if (w->groups[k].existing == fg) return &w->groups[k];
    return hoodie_wr__new_group(w, part, fg);
}

/* Collect the "fileId" strings of a clustering plan (inputGroups[].slices[].fileId), at any depth. */
static hoodie_status plan_file_ids(wctx *w, const json_t *v, const char *instant)
{
    const char *k;
    json_t *c;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, c) {
            if (strcmp(k, "fileId") || !json_is_string(c)) { HOODIE_TRY(plan_file_ids(w, c, instant)); continue; }
            char **ni = realloc(w->clus_ids, (w->n_clus + 1) * sizeof *ni);
            if (ni) w->clus_ids = ni;
            char **nt = ni ? realloc(w->clus_instants, (w->n_clus + 1) * sizeof *nt) : NULL;
            if (nt) w->clus_instants = nt;
            if (!ni || !nt) return HOODIE_NOMEM();
            w->clus_ids[w->n_clus] = hoodie_arena_strdup(w->arena, json_string_value(c));
            w->clus_instants[w->n_clus] = hoodie_arena_strdup(w->arena, instant);
            if (!w->clus_ids[w->n_clus] || !w->clus_instants[w->n_clus]) return HOODIE_NOMEM();
            w->n_clus++;
        }
    } else if (json_is_array(v)) {
        json_array_foreach((json_t *)v, i, c) HOODIE_TRY(plan_file_ids(w, c, instant));
    }
    return HOODIE_OK;
}

/*
 * File groups of pending clustering plans (v8 clustering instants; in v6 a pending replacecommit is a pending write,
 * rolled back by recovery). Hudi's default update strategy (SparkRejectUpdateStrategy) refuses updates to them, and
 * its partitioner leaves them out of the small files: the clustering rewrites them from the plan's slices, so an
 * update written in between would be dropped.
 */
static hoodie_status load_pending_clustering(wctx *w)
{
    const hoodie_timeline *tl = w->t->tl;
    for (size_t i = 0; i < tl->count; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->state == HOODIE_STATE_COMPLETED || in->plan_action != HOODIE_ACTION_CLUSTERING) continue;
        hoodie_buf path = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
        json_t *plan = NULL;
        hoodie_status rc = hoodie_timeline_instant_path(tl, in, HOODIE_STATE_REQUESTED, &path);
        if (rc == HOODIE_OK) rc = hoodie_storage_read_all(w->s, (const char *)path.data, &data);
        if (rc == HOODIE_OK) rc = hoodie_meta_json(data.data, data.len, (const char *)path.data, &plan);
        if (rc == HOODIE_OK) rc = plan_file_ids(w, plan, in->requested);
        json_decref(plan);
        hoodie_buf_dispose(&path);
        hoodie_buf_dispose(&data);
        if (rc < 0) return rc;
    }
    return HOODIE_OK;
}

static const char *clustering_of(const wctx *w, const char *file_id)
{
    for (size_t i = 0; i < w->n_clus; i++)
        if (!strcmp(w->clus_ids[i], file_id)) return w->clus_instants[i];
    return NULL;
}

/*
 * Updates and deletes go to the group holding their key. Inserts fill the partition's small file groups (latest
 * base file under small_file_limit; on MOR only slices without log files, as the bloom index cannot see into
 * logs, and only the smallest MOR_SMALL_FILE_CANDIDATES of them), smallest first, each up to max_file_size by the
 * estimated record size, then new groups of max_file_size each. On MOR a small file group that receives inserts is
 * rewritten by the merge handle, its updates included; the updates of every other group go to log files, as
 * Hudi's delta-commit partitioner does with the bloom index.
 */
static hoodie_status assign(wctx *w, const int32_t *row_group)
{
    HOODIE_TRY(load_pending_clustering(w));
    int64_t small = w->o.small_file_limit > 0 ? w->o.small_file_limit : DEFAULT_SMALL_FILE;
    if (w->o.small_file_limit < 0) small = 0; /* HOODIE_NO_SMALL_FILES: no base file is under 0 bytes */
    int64_t maxsz = w->o.max_file_size > 0 ? w->o.max_file_size : DEFAULT_MAX_FILE;
    int64_t rsz = w->record_size > 0 ? w->record_size : 1;
    int64_t per_file = maxsz / rsz;
    if (per_file < 1) per_file = 1;
    hoodie_status rc = HOODIE_OK;
    /* LSM: no bin-packing into existing base files (they would have to be re-sorted) */
    int pack = !w->cfg->lsm_tree && (w->o.op == HOODIE_WRITE_UPSERT || w->o.op == HOODIE_WRITE_INSERT);
    for (uint32_t p = 0; p < w->n_parts && rc == HOODIE_OK; p++) {
        int64_t n_inserts = 0;
        for (size_t i = 0; i < w->live.n && rc == HOODIE_OK; i++) {
            int64_t row = w->live.v[i];
            if (w->row_part[row] != p) continue;
            if (row_group[row] >= 0) rc = rv_push(&w->groups[row_group[row]].updates, row);
            else if (!w->del[row]) n_inserts++; /* deleting a key that does not exist: nothing */
        }
        if (rc < 0) break;
        for (size_t k = 0; k < w->n_groups; k++) {
            const wgroup *g = &w->groups[k];
            const char *c = g->part == p && g->existing && g->updates.n ? clustering_of(w, g->file_id) : NULL;
            if (c)
                return HOODIE_FAIL(HOODIE_ECONFLICT, "%s: file group %s in partition '%s' has updates or deletes but "
                                   "is being clustered (pending clustering %s); Hudi refuses them too: complete the "
                                   "clustering (hoodie cluster) or roll it back first", w->t->base_path, g->file_id,
                                   w->part_names[p], c);
        }
        if (!n_inserts) continue;
        /* the partition's small file groups, smallest base file first; MOR: at most
         * hoodie.merge.small.file.group.candidates.limit (1) of them, as Hudi's delta-commit partitioner */
        size_t n_small = 0, *smalls = NULL, n_cand = 0;
        const hoodie_file_group **cands = NULL;
        for (size_t v = 0; pack && v < w->view->group_count; v++) {
            const hoodie_file_group *fg = &w->view->groups[v];
            const hoodie_file_slice *sl = hoodie_file_group_latest(fg);
            if (strcmp(fg->partition, w->part_names[p]) || !sl || !sl->base) continue;
            if ((int64_t)sl->base->size >= small || (w->mor && sl->log_count)) continue;
            if (clustering_of(w, fg->file_id)) continue; /* being clustered: no inserts either */
            const hoodie_file_group **nc = realloc(cands, (n_cand + 1) * sizeof *nc);
            if (!nc) { free(cands); return HOODIE_NOMEM(); }
            cands = nc;
            cands[n_cand++] = fg;
        }
        if (n_cand) qsort(cands, n_cand, sizeof *cands, by_base_size);
        if (w->mor && n_cand > MOR_SMALL_FILE_CANDIDATES) n_cand = MOR_SMALL_FILE_CANDIDATES;
        if (n_cand && !(smalls = malloc(n_cand * sizeof *smalls))) { free(cands); return HOODIE_NOMEM(); }
        for (size_t c = 0; c < n_cand; c++) {
            wgroup *g = group_of(w, p, cands[c]);
            if (!g) { free(cands); free(smalls); return HOODIE_ENOMEM; }
            smalls[n_small++] = (size_t)(g - w->groups);
        }
        free(cands);
        size_t next_small = 0;
        wgroup *cur = NULL;
        int64_t room = 0;
        for (size_t i = 0; i < w->live.n && rc == HOODIE_OK; i++) {
            int64_t row = w->live.v[i];
            if (w->row_part[row] != p || row_group[row] >= 0 || w->del[row]) continue;
            while (!cur || room <= 0) {
                cur = NULL;
                while (next_small < n_small) {
                    wgroup *g = &w->groups[smalls[next_small++]];
                    room = (maxsz - (int64_t)g->base_size) / rsz;
                    if (room > 0) { cur = g; break; }
                }
                if (!cur) {
                    if (!(cur = hoodie_wr__new_group(w, p, NULL))) { free(smalls); return HOODIE_ENOMEM; }
                    room = per_file;
                }
            }
            rc = rv_push(&cur->inserts, row);
            room--;
        }
        free(smalls);
    }
    return rc;
}

/* ---- the commit ---- */

static hoodie_status workload(wctx *w, hoodie_buf *out)
{
    hoodie_wstat *ws = calloc(w->n_groups + 1, sizeof *ws);
    if (!ws) return HOODIE_NOMEM();
    size_t n = 0;
    for (size_t i = 0; i < w->n_groups; i++) {
        const wgroup *g = &w->groups[i];
        if (!g->inserts.n && !g->updates.n) continue; /* a small file candidate left unused */
        ws[n].workload = 1;
        ws[n].partition_path = w->part_names[g->part];
        ws[n].file_id = g->existing ? g->file_id : "";
        ws[n].num_inserts = (int64_t)g->inserts.n;
        ws[n].num_update_writes = (int64_t)g->updates.n;
        n++;
    }
    hoodie_commit_info ci = { 0 };
    ci.stats = ws;
    ci.stat_count = n;
    ci.operation_type = w->op_name;
    ci.is_replace = 0; /* Hudi writes a replacecommit's inflight workload as plain HoodieCommitMetadata */
    hoodie_status rc = hoodie_commit_encode(out, &ci, w->cfg->version >= 8 ? 8 : 6);
    free(ws);
    return rc;
}

static hoodie_status replaced_groups(wctx *w)
{
    /* every existing group of the affected partitions (all of them for insert_overwrite_table) */
    for (size_t g = 0; g < w->view->group_count; g++) {
        const hoodie_file_group *fg = &w->view->groups[g];
        if (w->o.op != HOODIE_WRITE_INSERT_OVERWRITE_TABLE && hoodie_wr__part_index(w, fg->partition) < 0) continue;
        size_t k;
        for (k = 0; k < w->n_replaced; k++)
            if (!strcmp(w->replaced[k].partition_path, fg->partition)) break;
        if (k == w->n_replaced) {
            hoodie_replaced_file_ids *nr = realloc(w->replaced, (w->n_replaced + 1) * sizeof *nr);
            if (!nr) return HOODIE_NOMEM();
            w->replaced = nr;
            memset(&nr[k], 0, sizeof nr[k]);
            nr[k].partition_path = fg->partition;
            w->n_replaced++;
        }
        hoodie_replaced_file_ids *r = &w->replaced[k];
        const char **ids = realloc((void *)r->file_ids, (r->count + 1) * sizeof *ids);
        if (!ids) return HOODIE_NOMEM();
        ids[r->count++] = fg->file_id;
        r->file_ids = ids;
    }
    return HOODIE_OK;
}

static const char *op_name(hoodie_write_operation op)
{
    switch (op) {
    case HOODIE_WRITE_UPSERT: return "UPSERT";
    case HOODIE_WRITE_INSERT: return "INSERT";
    case HOODIE_WRITE_BULK_INSERT: return "BULK_INSERT";
    case HOODIE_WRITE_DELETE: return "DELETE";
    case HOODIE_WRITE_INSERT_OVERWRITE: return "INSERT_OVERWRITE";
    case HOODIE_WRITE_INSERT_OVERWRITE_TABLE: return "INSERT_OVERWRITE_TABLE";
    case HOODIE_WRITE_DELETE_PARTITION: return "DELETE_PARTITION";
    }
    return "UNKNOWN";
}

static void wctx_dispose(wctx *w)
{
    for (size_t i = 0; i < w->n_cs_cols; i++) free(w->cs_cols[i]);
    free(w->cs_cols);
    free(w->log_stats);
    for (size_t i = 0; w->evo_paths && i < w->n_evo_ch; i++) free(w->evo_paths[i]);
    free(w->evo_paths);
    free(w->evo_ch);
    free(w->pending_ids);
    free(w->pending_instants);
    free(w->clus_ids);
    free(w->clus_instants);
    if (w->tx_started) hoodie_write__txn_dispose(&w->tx);
    for (size_t i = 0; i < w->n_groups; i++) { free(w->groups[i].updates.v); free(w->groups[i].inserts.v); }
    free(w->groups);
    for (size_t i = 0; i < w->n_replaced; i++) free((void *)w->replaced[i].file_ids);
    free(w->replaced);
    free(w->stats);
    hoodie_fsview_free(w->view);
    for (size_t i = 0; i < w->n_parts; i++) free(w->part_names[i]);
    free(w->part_names);
    free(w->row_part);
    free(w->live.v);
    free(w->rli_locs);
    free(w->del);
    hoodie_fill_spec_dispose(&w->fill_in);
    hoodie_fill_spec_dispose(&w->fill_file);
    free(w->absent);
    free(w->partial_col);
    free(w->partial_avro);
    if (w->have_partial_schema) hoodie_field_dispose(&w->partial_schema);
    hoodie_keygen_out_dispose(&w->keys);
    hoodie_keygen_out_dispose(&w->parts);
    if (w->have_kg) hoodie_keygen_dispose(&w->kg);
    if (w->have_kg_file) hoodie_keygen_dispose(&w->kg_file);
    if (w->have_in) hoodie_batch_dispose(&w->in);
    if (w->have_schemas) { hoodie_field_dispose(&w->data_schema); hoodie_field_dispose(&w->file_schema); }
    free(w->avro_data_schema);
    free(w->avro_file_schema);
    hoodie_arena_free(w->arena);
    hoodie_table_free(w->t);
}

/* hoodie_write_opts.delete_column: its true rows marked in *marks (a byte each), the column taken out of `raw` (never
 * stored, nor taken for a new column of the table). */
static hoodie_status take_delete_column(const char *name, hoodie_batch *raw, uint8_t **marks)
{
    int c = hoodie_field_find(&raw->schema, name);
    if (c < 0) return HOODIE_FAIL(HOODIE_EINVAL, "input: no column '%s' (the delete column)", name);
    hoodie_field *f = &raw->schema.children[c];
    if (f->type.id != HOODIE_TYPE_BOOL) {
        char tb[64];
        return HOODIE_FAIL(HOODIE_EINVAL, "input: the delete column '%s' is %s, not boolean", name,
                           hoodie_type_name(&f->type, tb, sizeof tb));
    }
    int64_t n = raw->root.length;
    uint8_t *m = calloc((size_t)n + 1, 1);
    if (!m) return HOODIE_NOMEM();
    hoodie_array *a = &raw->root.children[c];
    for (int64_t r = 0; r < n; r++) m[r] = hoodie_array_is_valid(a, r) && hoodie_bit_get(a->values, r);
    hoodie_field_dispose(f);
    hoodie_array_dispose(a);
    size_t rest = raw->schema.n_children - (size_t)c - 1;
    memmove(f, f + 1, rest * sizeof *f);
    memmove(a, a + 1, rest * sizeof *a);
    raw->schema.n_children--;
    raw->root.n_children--;
    *marks = m;
    return HOODIE_OK;
}

/*
 * Version 9's further ordering fields (compared in turn on a tie, as the reader does) and partial updates
 * (hoodie.table.partial.update.mode): the columns of the input and of file records they concern.
 */
static hoodie_status ordering_and_fills(wctx *w)
{
    const hoodie_table_config *c = w->cfg;
    w->n_more_ord = 0;
    if (c->debezium == HOODIE_DEBEZIUM_NONE && c->ordering_fields.count > 1) {
        if (c->ordering_fields.count > HOODIE_ORDERING_FIELDS_MAX)
            return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: %zu ordering fields (hoodie.table.ordering.fields); hoodie "
                               "merges records by at most %d", w->t->base_path, c->ordering_fields.count,
                               HOODIE_ORDERING_FIELDS_MAX);
        for (size_t i = 1; i < c->ordering_fields.count; i++) {
            int col = hoodie_field_find(&w->in.schema, c->ordering_fields.items[i]);
            w->more_ord[w->n_more_ord] = col;
            w->more_ord_file[w->n_more_ord++] = col >= 0 ? col + 5 : -1;
        }
    }
    int merges = w->o.op == HOODIE_WRITE_UPSERT || (w->o.combine_before_insert && !w->o.no_combine);
    if ((c->partial == HOODIE_PARTIAL_OTHER || c->partial == HOODIE_PARTIAL_KEEP_VALUES) && merges)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: partial update mode %s (hoodie.table.partial.update.mode) is not "
                           "supported for writes; IGNORE_DEFAULTS and FILL_UNAVAILABLE are (reads merge KEEP_VALUES)",
                           w->t->base_path, c->partial_update);
    HOODIE_TRY(hoodie_fill_spec_init(&w->fill_in, &w->policy, &w->in.schema));
    HOODIE_TRY(hoodie_fill_spec_init(&w->fill_file, &w->policy, &w->file_schema));
    if (w->absent) { /* partial updates (partial_setup) */
        w->fill_file.absent_ctx = w;
        w->fill_file.absent_of = input_absent;
    }
    return HOODIE_OK;
}

static hoodie_status drain(struct ArrowArrayStream *input, hoodie_batch *out)
{
    hoodie_arrow_reader r;
    hoodie_status rc = hoodie_arrow_reader_open(&r, input);
    if (rc < 0) {
        if (input->release) input->release(input);
        return rc;
    }
    /* The first batch becomes the result; each later one is appended to it and freed at once, so that the next
     * batch reuses its memory: the input's pages are touched about once (fresh pages cost a fault and zeroing each)
     * and the result's buffers grow by doubling (large ones by mremap, without a copy). */
    hoodie_batch b;
    int have = 0;
    for (;;) {
        rc = hoodie_arrow_reader_next(&r, have ? &b : out);
        if (rc == HOODIE_ITEROVER) { rc = HOODIE_OK; break; }
        if (rc < 0) break;
        if (!have) { have = 1; continue; }
        rc = hoodie_batch_concat(out, &b);
        hoodie_batch_dispose(&b);
        if (rc < 0) break;
    }
    if (rc == HOODIE_OK && !have) rc = hoodie_batch_init(out, &r.schema);
    else if (rc < 0 && have) hoodie_batch_dispose(out);
    hoodie_arrow_reader_close(&r);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* HOODIE_TRACE_WRITE: the wall time of the phase that just ended, on stderr (for profiling a write). */
static void trace_phase(wctx *w, const char *phase)
{
    if (!w->trace) return;
    double now = now_s();
    struct timespec ct;
    double cpu = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ct) ? 0 : (double)ct.tv_sec + (double)ct.tv_nsec * 1e-9;
    if (phase) {
        long pages = -1, rss = -1; /* resident memory where /proc tells it (Linux), else -1 */
        FILE *f = fopen("/proc/self/statm", "r");
        if (f) {
            if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = -1;
            fclose(f);
        }
        fprintf(stderr, "hoodie: write: %-12s %8.3f s  cpu %6.3f s  rss %6.1f MB\n", phase, now - w->trace_at,
                cpu - w->trace_cpu, rss < 0 ? -1.0 : (double)rss * 4096.0 / 1048576.0);
    }
    w->trace_at = now;
    w->trace_cpu = cpu;
}

/* The table's schema history (table/evo.h) as it is now on storage, under the lock, against the one the write
 * read: an ALTER TABLE that committed meanwhile renamed or dropped columns this write's files name as they were,
 * and its latest_schema would go back a version (HOODIE_ECONFLICT: retry). One listing when there is none. */
static hoodie_status schema_unchanged(wctx *w)
{
    if (!w->t->evo) { /* the common case: no history then, none now */
        int any = 0;
        HOODIE_TRY(hoodie_evo_present(w->s, w->t->base_path, &any));
        if (!any) return HOODIE_OK;
    }
    hoodie_timeline *tl = NULL;
    hoodie_evo *now = NULL;
    hoodie_status rc = hoodie_timeline_load(&tl, w->s, w->t->base_path, w->cfg);
    if (rc == HOODIE_OK) rc = hoodie_evo_load(&now, w->s, w->t->base_path, tl);
    if (rc == HOODIE_OK && hoodie_evo_newest(now) != hoodie_evo_newest(w->t->evo))
        rc = HOODIE_FAIL(HOODIE_ECONFLICT, "%s: the table's schema was altered (ALTER TABLE, version %lld) while "
                         "this write ran; retry it", w->t->base_path, hoodie_evo_newest(now));
    hoodie_evo_free(now);
    hoodie_timeline_free(tl);
    return rc;
}

/* The history file of a write to a schema-on-read table, under its instant (every version, newest first), as
 * Hudi's writers persist it on every commit (BaseHoodieWriteClient.saveInternalSchema): a write that added or
 * widened columns makes a new version first, its latest_schema into *latest (malloc). */
static hoodie_status persist_history(wctx *w, char **latest)
{
    char *history = NULL;
    hoodie_status rc = HOODIE_OK;
    if (w->n_evo_ch)
        rc = hoodie_evo_alter(w->t->evo, &w->file_schema, w->evo_ch, w->n_evo_ch, w->tx.inst.requested, latest,
                              &history);
    else if (!(history = hoodie_evo_history_json(w->t->evo)))
        rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK) rc = hoodie_evo_write_history(w->s, w->t->base_path, w->tx.inst.requested, history);
    free(history);
    return rc;
}

/*
 * The commit point, under the table lock: no instant that completed (or a compaction or clustering plan scheduled)
 * since this write read the table may have changed a file group this write changed (write/conflict.h). On a
 * conflict the instant stays inflight without a heartbeat: the next writer rolls it back.
 */
static hoodie_status commit_checked(wctx *w, const void *meta, size_t len)
{
    size_t n = 0, cap = w->n_stats;
    for (size_t i = 0; i < w->n_replaced; i++) cap += w->replaced[i].count;
    const char **ids = malloc((cap + 1) * sizeof *ids);
    if (!ids) return HOODIE_NOMEM();
    for (size_t i = 0; i < w->n_stats; i++)
        if (w->stats[i].file_id && *w->stats[i].file_id) ids[n++] = w->stats[i].file_id;
    for (size_t i = 0; i < w->n_replaced; i++)
        for (size_t j = 0; j < w->replaced[i].count; j++) ids[n++] = w->replaced[i].file_ids[j];
    hoodie_table_lock lock;
    hoodie_status rc = hoodie_write__lock(&lock, w->s, w->t->base_path, -1);
    if (rc == HOODIE_OK) {
        rc = hoodie_write__conflicts(w->s, w->t->base_path, w->cfg, w->t->tl, w->tx.inst.requested,
                                     (const char *const *)ids, n);
        if (rc == HOODIE_OK) rc = schema_unchanged(w);
        if (rc == HOODIE_OK) rc = hoodie_write__complete(&w->tx, meta, len);
        if (rc == HOODIE_OK) {
            if (hoodie_write__unlock(&lock) < 0) hoodie_error_clear(); /* committed; a leftover lock is broken */
        } else {
            char *why = strdup(hoodie_error__message());
            (void)hoodie_write__unlock(&lock);
            if (why) { hoodie_error__set(rc, __FILE__, __LINE__, "%s", why); free(why); }
        }
    }
    free(ids);
    return rc;
}

/* The pre-commit check of this write (write/precommit.h). */
static hoodie_status pre_commit(wctx *w, const void *meta, size_t len)
{
    hoodie_write_result res = w->res;
    hoodie_precommit_call c = { w->o.pre_commit, w->o.pre_commit_ctx, w->s, w->t->base_path, w->cfg, &w->tx, w->o.op,
                                w->op_name, w->stats, w->n_stats, w->replaced, w->n_replaced, &res };
    return hoodie_write__pre_commit(&c, meta, len);
}

/*
 * A file the write read vanished under it: when a restore or rollback undid what the write read (write/conflict.h),
 * say so (HOODIE_ECONFLICT: retry) rather than name the missing file; otherwise keep the error `rc`.
 */
static hoodie_status file_gone(wctx *w, hoodie_status rc)
{
    char *why = strdup(hoodie_error__message());
    const char **ids = malloc((w->n_groups + 1) * sizeof *ids);
    size_t n = 0;
    for (size_t i = 0; ids && i < w->n_groups; i++)
        if (w->groups[i].existing) ids[n++] = w->groups[i].file_id;
    hoodie_status c = ids && why ? hoodie_write__conflicts(w->s, w->t->base_path, w->cfg, w->t->tl,
                                                           w->tx.inst.requested, ids, n)
                                 : HOODIE_OK;
    if (c == HOODIE_ECONFLICT) {
        rc = c;
        hoodie_error__prefix("%s: ", w->t->base_path);
    } else if (why) {
        hoodie_error__set(rc, __FILE__, __LINE__, "%s", why);
    }
    free(ids);
    free(why);
    return rc;
}

hoodie_status hoodie_write__table_write(const char *base_path, struct ArrowArrayStream *input,
                                       const hoodie_write_opts *opts, const hoodie_write_hooks *hooks,
                                       hoodie_write_result *result)
{
    hoodie_write_opts def = HOODIE_WRITE_OPTS_INIT;
    wctx w;
    hoodie_status rc;
    hoodie_batch raw;
    int have_raw = 0;
    uint8_t *marks = NULL; /* delete_column: per input row, a delete */
    int32_t *row_group = NULL;
    char *evo_latest = NULL; /* schema on read: the version this write makes (latest_schema) */
    memset(&w, 0, sizeof w);
    w.o = def;
    if (opts) /* an older caller's struct ends before the fields its version lacks */
        memcpy(&w.o, opts, opts->version >= 10 ? sizeof *opts
                           : opts->version == 9 ? offsetof(hoodie_write_opts, update_partition_path)
                           : opts->version == 8 ? offsetof(hoodie_write_opts, record_index)
                           : opts->version == 7 ? offsetof(hoodie_write_opts, set_null_for_missing_columns)
                           : opts->version == 6 ? offsetof(hoodie_write_opts, delete_column)
                           : opts->version == 5 ? offsetof(hoodie_write_opts, pre_commit)
                           : opts->version == 4 ? offsetof(hoodie_write_opts, extra_metadata)
                           : opts->version == 3 ? offsetof(hoodie_write_opts, log_block_format)
                           : opts->version == 2 ? offsetof(hoodie_write_opts, combine_before_insert)
                                                : offsetof(hoodie_write_opts, bloom_num_entries));
    if (opts && opts->version < 8) w.o.set_null_for_missing_columns = 1; /* as they were written against */
    w.s = w.o.storage ? w.o.storage : hoodie_storage_default();
    w.hooks = hooks;
    size_t n_extra = 0;
    for (const char *const *kv = w.o.extra_metadata; kv && kv[0]; kv += 2, n_extra++) {
        if (!kv[1] || !strcmp(kv[0], "schema")) {
            if (input && input->release) input->release(input);
            return HOODIE_FAIL(HOODIE_EINVAL, "write: extra metadata key '%s' %s", kv[0],
                               kv[1] ? "is the writer's own" : "has no value");
        }
    }
    if (w.o.delete_column && w.o.op != HOODIE_WRITE_UPSERT) {
        if (input && input->release) input->release(input);
        return HOODIE_FAIL(HOODIE_EINVAL, "write: a delete column ('%s') marks deletes of an upsert, not of %s",
                           w.o.delete_column, op_name(w.o.op));
    }
    w.trace = getenv("HOODIE_TRACE_WRITE") != NULL;
    trace_phase(&w, NULL);
    hoodie_keygen_out_init(&w.keys);
    hoodie_keygen_out_init(&w.parts);
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = w.s;

    /* disable a metadata table hoodie does not maintain (write/mdt.h; first, as rolling back a dead writer's files
     * is a change it would not know of either), recover from dead writers, then see the table as it is now */
    rc = hoodie_table_open(&w.t, base_path, &to);
    int changed = 0;
    if (rc == HOODIE_OK && (w.t->cfg->populate_meta_fields || w.t->cfg->type == HOODIE_TABLE_COPY_ON_WRITE))
        rc = hoodie_write__mdt_prepare(w.s, base_path, w.t->cfg, &changed);
    if (rc == HOODIE_OK) rc = hoodie_write__recover(w.t, &w.res.rolled_back);
    if (rc == HOODIE_OK && (w.res.rolled_back || changed)) {
        hoodie_table_free(w.t);
        w.t = NULL;
        rc = hoodie_table_open(&w.t, base_path, &to);
    }
    if (rc == HOODIE_OK) rc = hoodie_table__evo_ok(w.t); /* the files' columns by id, or no write */
    if (rc < 0) {
        if (input->release) input->release(input);
        goto done;
    }
    trace_phase(&w, "open");
    w.cfg = w.t->cfg;
    w.mor = w.cfg->type == HOODIE_TABLE_MERGE_ON_READ;
    /* a kept column_stats partition: the statistics of the log files written go with the commit (base files' come
     * from their footers) */
    if (w.mor && (rc = hoodie_write__cs_columns(w.s, base_path, w.cfg, &w.cs_cols, &w.n_cs_cols)) < 0) {
        if (input->release) input->release(input);
        goto done;
    }
    if (w.o.record_index && (w.cfg->bucket_index || w.cfg->lsm_tree)) {
        rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: hoodie.index.type=RECORD_INDEX: the table's %s places its keys", base_path,
                         w.cfg->bucket_index ? "bucket index" : "LSM layout");
        if (input->release) input->release(input);
        goto done;
    }
    if (w.o.update_partition_path && !w.o.record_index && !w.o.global_bloom) {
        rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: update.partition.path goes with a global index (RECORD_INDEX, "
                         "GLOBAL_BLOOM); the bloom index is not global", base_path);
        if (input->release) input->release(input);
        goto done;
    }
    if (w.o.global_bloom && (w.o.record_index || w.cfg->bucket_index || w.cfg->lsm_tree ||
                             !w.cfg->populate_meta_fields)) {
        rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: hoodie.index.type=GLOBAL_BLOOM: %s", base_path,
                         w.o.record_index ? "one index at a time (RECORD_INDEX is asked for too)"
                         : w.cfg->bucket_index ? "the table's bucket index places its keys"
                         : w.cfg->lsm_tree ? "the table's LSM layout places its keys"
                                           : "the table has no meta fields (hoodie.populate.meta.fields=false)");
        if (input->release) input->release(input);
        goto done;
    }
    w.no_meta = !w.cfg->populate_meta_fields;
    if (w.no_meta && w.mor) {
        /* log records would carry no record keys: every reader and the compactor would have to form them from the
         * key fields of log blocks, which hoodie's merge of base and log files does not do */
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: writing a merge-on-read table without meta fields "
                         "(hoodie.populate.meta.fields=false) is not supported; copy-on-write tables are", base_path);
        if (input->release) input->release(input);
        goto done;
    }
    w.replace = w.o.op == HOODIE_WRITE_INSERT_OVERWRITE || w.o.op == HOODIE_WRITE_INSERT_OVERWRITE_TABLE ||
                w.o.op == HOODIE_WRITE_DELETE_PARTITION;
    w.action = w.replace ? HOODIE_ACTION_REPLACECOMMIT : w.mor ? HOODIE_ACTION_DELTACOMMIT : HOODIE_ACTION_COMMIT;
    w.op_name = op_name(w.o.op);
    if ((rc = hoodie_arena_new(&w.arena, NULL, 16384)) < 0) goto done;

    int combine_inserts = w.o.combine_before_insert && !w.o.no_combine;
    /* a custom merger decides how records of one key combine: writes that combine them (an upsert against the
     * stored records, de-duplication of the input) would do it otherwise than Hudi; plain inserts and deletes don't */
    int plain_op = w.o.op == HOODIE_WRITE_INSERT || w.o.op == HOODIE_WRITE_BULK_INSERT ||
                   w.o.op == HOODIE_WRITE_DELETE || w.o.op == HOODIE_WRITE_DELETE_PARTITION;
    /* the Debezium payloads are merged here too (their ordering column, sequence order, delete marker and TOASTed
     * values), in the LSM layout's sorted writes too */
    int own_merger = w.cfg->merge_mode == HOODIE_MERGE_CUSTOM && !w.cfg->debezium;
    if (own_merger && (w.cfg->lsm_tree || combine_inserts || !plain_op)) {
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: %s combines records by the table's custom record merger (%s %s), "
                         "which hoodie does not support; insert, bulk_insert (without combining), delete and "
                         "delete_partition write such tables", base_path, w.op_name, HOODIE_CUSTOM_MERGER_ARGS(w.cfg));
        if (input->release) input->release(input);
        goto done;
    }
    /* bulk_insert streams its rows into new file groups. A bucket index table keeps one file group per bucket: it
     * streams only while it has none (no completed instant), one new group per bucket; otherwise its rows go the
     * way of inserts, to their buckets' groups, existing ones included */
    int streams = w.o.op == HOODIE_WRITE_BULK_INSERT && !combine_inserts && !w.cfg->lsm_tree;
    for (size_t i = 0; streams && w.cfg->bucket_index && i < w.t->tl->count; i++)
        if (w.t->tl->instants[i].state == HOODIE_STATE_COMPLETED) streams = 0;
    if (streams) {
        hoodie_arrow_reader ar;
        if ((rc = hoodie_arrow_reader_open(&ar, input)) < 0) {
            if (input->release) input->release(input);
            goto done;
        }
        rc = prepare_schema(&w, &ar.schema);
        if (rc == HOODIE_OK) rc = hoodie_keygen_init(&w.kg, w.cfg, &w.data_schema);
        w.have_kg = rc == HOODIE_OK;
        if (rc == HOODIE_OK) rc = estimate_record_size(&w);
        if (rc == HOODIE_OK) rc = hoodie_wr__bulk_stream(&w, &ar);
        hoodie_arrow_reader_close(&ar);
        if (rc < 0) goto done;
        goto commit;
    }

    /* input */
    if ((rc = drain(input, &raw)) < 0) goto done;
    have_raw = 1;
    if (w.o.delete_column && (rc = take_delete_column(w.o.delete_column, &raw, &marks)) < 0) goto done;
    trace_phase(&w, "input");
    if ((rc = prepare_schema(&w, &raw.schema)) < 0) goto done;
    if (w.o.op == HOODIE_WRITE_DELETE || w.o.op == HOODIE_WRITE_DELETE_PARTITION) {
        /* the given columns (at least the key and partition fields) as the table's, every other column null: a
         * merge builds records of them, which it never writes but which must have the table's shape */
        hoodie_field relaxed;
        rc = hoodie_field_clone(&relaxed, &w.data_schema);
        if (rc < 0) goto done;
        for (size_t c = 0; c < relaxed.n_children; c++) relaxed.children[c].nullable = 1;
        rc = hoodie_conform_batch(&w.in, &relaxed, &raw);
        hoodie_field_dispose(&relaxed);
        if (rc < 0) { hoodie_error__prefix("input: "); goto done; }
    } else {
        rc = hoodie_conform_batch(&w.in, &w.data_schema, &raw);
        if (rc < 0) { hoodie_error__prefix("input: "); goto done; }
    }
    w.have_in = 1;
    int64_t n = w.in.root.length;
    const char *ord_field = hoodie_table_ordering_field(w.cfg);
    w.ord_col = ord_field ? hoodie_field_find(&w.in.schema, ord_field) : -1;
    w.policy = hoodie_merge_policy_of(w.cfg);
    if ((rc = ordering_and_fills(&w)) < 0) goto done;
    if ((rc = hoodie_keygen_init(&w.kg, w.cfg, &w.in.schema)) < 0) goto done;
    w.have_kg = 1;
    if ((rc = hoodie_keygen_record_keys(&w.kg, &w.in, &w.keys)) < 0) goto done;
    if ((rc = hoodie_keygen_partition_paths(&w.kg, &w.in, &w.parts)) < 0) goto done;
    trace_phase(&w, "keys");
    w.del = calloc((size_t)n + 1, 1);
    if (!w.del) { rc = HOODIE_NOMEM(); goto done; }
    int del_col = hoodie_field_find(&w.in.schema, "_hoodie_is_deleted");
    hoodie_delete_marker mk; /* the table's custom delete marker (AWS DMS: Op = 'D') */
    hoodie_delete_marker_of(w.cfg, &w.in.schema, &mk);
    for (int64_t r = 0; r < n; r++) {
        if (w.o.op == HOODIE_WRITE_DELETE) w.del[r] = 1;
        else if (del_col >= 0 && w.in.schema.children[del_col].type.id == HOODIE_TYPE_BOOL) {
            const hoodie_array *a = &w.in.root.children[del_col];
            w.del[r] = hoodie_array_is_valid(a, r) && hoodie_bit_get(a->values, r);
        }
        if (marks) w.del[r] |= marks[r];
        if (mk.col >= 0 && !w.del[r]) w.del[r] = (uint8_t)hoodie_delete_marked(&mk, &w.in, r);
    }
    if ((rc = index_partitions(&w)) < 0) goto done;
    if ((rc = combine(&w)) < 0) goto done;
    if (w.o.record_index && (w.o.op == HOODIE_WRITE_UPSERT || w.o.op == HOODIE_WRITE_DELETE) &&
        (rc = hoodie_wr__rli_locate(&w)) < 0)
        goto done;
    n = w.in.root.length; /* with the rows partial updates combined into */
    trace_phase(&w, "combine");
    if ((rc = hoodie_table__fsview(w.t, NULL, view_filter, &w, &w.view)) < 0) goto done;
    if ((rc = estimate_record_size(&w)) < 0) goto done;
    trace_phase(&w, "view");

    row_group = malloc(((size_t)n + 1) * sizeof *row_group);
    if (!row_group) { rc = HOODIE_NOMEM(); goto done; }
    for (int64_t r = 0; r < n; r++) row_group[r] = -1;
    if ((w.o.op == HOODIE_WRITE_UPSERT || w.o.op == HOODIE_WRITE_DELETE) && !w.cfg->bucket_index)
        if ((rc = hoodie_wr__lookup(&w, &row_group)) < 0) goto done;
    n = w.in.root.length; /* with the delete rows of records moved across partitions */
    trace_phase(&w, "lookup");
    if (w.replace && (rc = replaced_groups(&w)) < 0) goto done;
    if (w.o.op != HOODIE_WRITE_DELETE_PARTITION && w.cfg->bucket_index) {
        if ((rc = hoodie_wr__bucket_assign(&w)) < 0) goto done;
    } else if (w.o.op != HOODIE_WRITE_DELETE_PARTITION) {
        hoodie_write_opts saved = w.o;
        if (w.o.op == HOODIE_WRITE_BULK_INSERT || w.replace) w.o.op = HOODIE_WRITE_BULK_INSERT; /* new groups only */
        rc = assign(&w, row_group);
        w.o = saved;
        if (rc < 0) goto done;
    }
    trace_phase(&w, "assign");

    /* the instant */
    if (w.replace) {
        /* HoodieRequestedReplaceMetadata with every field null, as Spark writes it for insert_overwrite */
        hoodie_buf req = HOODIE_BUF_INIT;
        rc = hoodie_wlog_requested_replace(&req, w.op_name);
        if (rc == HOODIE_OK) rc = hoodie_write__begin(&w.tx, w.s, w.t->base_path, w.cfg, w.action, req.data, req.len);
        hoodie_buf_dispose(&req);
    } else {
        rc = hoodie_write__begin(&w.tx, w.s, w.t->base_path, w.cfg, w.action, NULL, 0);
    }
    if (rc < 0) goto done;
    w.tx_started = 1;
    {
        hoodie_buf wl = HOODIE_BUF_INIT;
        rc = workload(&w, &wl);
        if (rc == HOODIE_OK) rc = hoodie_write__inflight(&w.tx, wl.data, wl.len);
        hoodie_buf_dispose(&wl);
        if (rc < 0) goto done;
    }
    for (size_t i = 0; i < w.n_groups && rc == HOODIE_OK; i++) {
        wgroup *g = &w.groups[i];
        double t0 = w.trace ? now_s() : 0;
        int kind = -1;
        if ((rc = hoodie_write__heartbeat_tick(w.s, w.t->base_path, w.tx.inst.requested)) < 0) break;
        if (!g->existing && g->inserts.n && w.o.op == HOODIE_WRITE_BULK_INSERT && !w.cfg->lsm_tree &&
            !w.cfg->bucket_index) /* the bulk handle rolls over to more groups: never for a bucket */
            kind = 0, rc = hoodie_wr__bulk_handle(&w, i);
        else if (!g->existing && w.mor && w.cfg->bucket_index && !w.cfg->lsm_tree && !w.replace &&
                 w.o.op != HOODIE_WRITE_BULK_INSERT)
            kind = 2, rc = g->inserts.n ? hoodie_wr__append_handle(&w, g) : HOODIE_OK; /* an index that sees logs */
        else if (!g->existing) kind = 0, rc = g->inserts.n ? hoodie_wr__create_handle(&w, g) : HOODIE_OK;
        else if (w.mor && w.cfg->lsm_tree) kind = 3, rc = g->updates.n || g->inserts.n ? hoodie_wr__lsm_append_handle(&w, g) : HOODIE_OK;
        else if (w.mor && g->updates.n && !g->inserts.n) kind = 2, rc = hoodie_wr__append_handle(&w, g);
        else if (g->updates.n || g->inserts.n) kind = 1, rc = hoodie_wr__merge_handle(&w, g);
        if (w.trace && kind >= 0) { w.trace_handle[kind] += now_s() - t0; w.trace_handles[kind]++; }
    }
    if (rc == HOODIE_ENOTFOUND) rc = file_gone(&w, rc);
    if (rc < 0) goto done;
    trace_phase(&w, "files");
    if (w.trace) {
        static const char *const kinds[4] = { "create", "merge", "append", "lsm" };
        for (int k = 0; k < 4; k++)
            if (w.trace_handles[k])
                fprintf(stderr, "hoodie: write:   %-10s %8.3f s  (%d file groups)\n", kinds[k], w.trace_handle[k],
                        w.trace_handles[k]);
    }

commit: /* commit metadata */
    {
        hoodie_kv *extra = malloc((n_extra + 2) * sizeof *extra);
        if (!extra) { rc = HOODIE_NOMEM(); goto done; }
        extra[0] = (hoodie_kv){ "schema", w.avro_data_schema };
        for (size_t i = 0; i < n_extra; i++)
            extra[1 + i] = (hoodie_kv){ w.o.extra_metadata[2 * i], w.o.extra_metadata[2 * i + 1] };
        /* schema on read: the version in effect goes on with the commit, as Hudi's writers carry it (a reader
         * takes the newest commit's latest_schema as the table's; without it the table would read by name), and
         * the history under the commit's instant; a write that changed the schema makes a new version */
        const char *latest = hoodie_evo_latest_json(w.t->evo, NULL);
        if ((w.n_evo_ch || w.t->evo) && (rc = persist_history(&w, &evo_latest)) < 0) { free(extra); goto done; }
        if (evo_latest) latest = evo_latest;
        if (latest) extra[1 + n_extra++] = (hoodie_kv){ "latest_schema", latest };
        hoodie_commit_info ci = { 0 };
        ci.stats = w.stats;
        ci.stat_count = w.n_stats;
        ci.is_replace = w.replace;
        ci.replaced = w.replaced;
        ci.replaced_count = w.n_replaced;
        ci.extra = extra;
        ci.extra_count = 1 + n_extra;
        ci.operation_type = w.op_name;
        hoodie_buf meta = HOODIE_BUF_INIT;
        rc = hoodie_commit_encode(&meta, &ci, w.cfg->version >= 8 ? 8 : 6);
        if (rc == HOODIE_OK && w.o.pre_commit) {
            rc = pre_commit(&w, meta.data, meta.len);
            trace_phase(&w, "pre-commit");
        }
        w.tx.log_stats = w.log_stats;
        w.tx.n_log_stats = w.n_log_stats;
        w.tx.rli_located = w.o.record_index;
        w.tx.data_write = 1;
        w.tx.si_read = w.hooks ? w.hooks->secondary : NULL;
        if (rc == HOODIE_OK) rc = commit_checked(&w, meta.data, meta.len);
        hoodie_buf_dispose(&meta);
        free(extra);
        if (rc < 0) goto done;
        /* the histories of archived instants, which this commit's holds: gone, as Hudi's writers remove them (a
         * failure leaves files that are no longer read) */
        if ((w.n_evo_ch || w.t->evo) && hoodie_evo_prune_history(w.s, base_path, w.t->tl, w.tx.inst.requested) < 0)
            hoodie_error_clear();
        trace_phase(&w, "commit");
    }
    snprintf(w.res.instant, sizeof w.res.instant, "%s", w.tx.inst.requested);
    snprintf(w.res.action, sizeof w.res.action, "%s", hoodie_action_name(w.action));
    if (result) *result = w.res;
done:
    if (rc < 0 && result) {
        memset(result, 0, sizeof *result);
        result->rolled_back = w.res.rolled_back;
    }
    free(row_group);
    free(marks);
    free(evo_latest);
    if (have_raw) hoodie_batch_dispose(&raw);
    wctx_dispose(&w);
    return rc;
}
