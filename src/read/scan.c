/*
 * Table scans (include/hoodie/read.h): snapshot, read-optimized, time travel and incremental queries.
 *
 *   open:  as-of instant -> table schema (meta columns + table columns) -> file-system view (partition pruning)
 *   next:  per file group, its latest slice: base file batches (row groups pruned when no log can change them)
 *          conformed to the schema, merged with the slice's log records (read/slice_merge.h), then the
 *          incremental window, the row filter, the meta columns of tables without them, and the projection.
 *
 * The stream is lazy: one slice is open at a time (its log records in a hash map, its base file streamed). A slice
 * whose log records take more than hoodie_scan_opts.merge_memory is merged in key-hash partitions (start_pass):
 * each pass folds one partition's log records and streams the base file again for that partition's rows.
 */
#include "hoodie/read.h"
#include "format/avro/schema.h"
#include "format/bloom.h"
#include "format/parquet/reader.h"
#include "model/arrow.h"
#include "model/avro.h"
#include "model/avro_schema_gen.h"
#include "model/build.h"
#include "model/value.h"
#include "model/conform.h"
#include "read/cdc.h"
#include "read/scan.h"
#include "table/mdt.h"
#include "read/filter.h"
#include "read/logscan.h"
#include "read/spill.h"
#include "read/lookup.h"
#include "read/lsm_read.h"
#include "table/bucket.h"
#include "read/slice_merge.h"
#include "storage/storage.h"
#include "table/archived.h"
#include "table/keygen.h"
#include "table/pqfile.h"
#include "table/table.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct scan {
    hoodie_table *t;
    hoodie_query_type query;
    char as_of[HOODIE_INSTANT_TIME_MAX + 1];   /* "" = latest */
    char **columns;
    size_t n_columns;
    int64_t batch_rows;
    hoodie_filter filter;
    int has_filter;
    hoodie_field full;                   /* meta + table columns (narrowed: the ones the query needs) */
    hoodie_field part_schema;            /* with a filter: the table columns, for partition pruning (none: none
                                            recorded, so no pruning by partition) */
    hoodie_field out_schema;             /* after projection */
    char *schema_json;                   /* the Avro schema the commits record (NULL: none recorded) */
    int schema_loaded;                   /* schema_json read (once: partition pruning and build_schema share it) */
    hoodie_fsview *view;
    size_t next_group;
    char **rolled_back;
    size_t n_rolled_back;
    char **incr;                         /* incremental: requested times of the instants in range (sorted) */
    size_t n_incr;
    int key_col, ord_col, del_col;
    int more_ord[HOODIE_ORDERING_FIELDS_MAX - 1]; /* further ordering fields' columns (table version 9), -1: absent */
    int n_more_ord;
    hoodie_delete_marker marker;    /* the table's custom delete marker (col -1: none) */
    hoodie_merge_policy policy;
    /* the open slice */
    const hoodie_file_group *group;
    const hoodie_file_slice *slice;
    hoodie_parquet_reader *base;
    hoodie_pq_scan *base_scan;
    hoodie_log_items logs;
    int have_logs;
    hoodie_slice_merger *merger;
    int64_t merge_memory;                /* memory a slice's merge may hold its log records in
                                            (hoodie_scan_opts.merge_memory; <= 0: HOODIE_MERGE_MEMORY_DEFAULT) */
    uint32_t parts, part;                /* the open slice merged in key-hash partitions: how many, which one now */
    int lazy;                            /* its log records read lazily (read/logscan.h lazy_cols) */
    hoodie_spill *spill;                 /* its files copied locally for the passes (read/spill.h), or NULL */
    hoodie_lsm_slice *lsm;               /* LSM layout: the slice's sorted merge (read/lsm_read.h) */
    int slice_done_base;
    uint64_t pruned_row_groups;          /* statistics: row groups skipped by the filter */
    /* point lookup (read/lookup.h): sorted unique keys; with the bucket index, their buckets */
    char **keys;
    size_t n_keys;
    int *key_buckets;
    /* hoodie_read__scan_only: the file groups to read ("partition\x01file id"), NULL: all */
    const hoodie_hmap *only;
    hoodie_hmap *rli_only;  /* point lookup through the record index: the file groups it puts the keys in */
    hoodie_arena *rli_arena; /* their ids */
    hoodie_mdt_colstats *colstats; /* a filter on a table whose metadata table has column_stats: file slices */
} scan;

/* ---- schema ---- */

/* The columns of an Avro record schema (meta columns aside) appended to `into`. */
static hoodie_status avro_fields(hoodie_field *into, const char *json)
{
    hoodie_arena *a;
    hoodie_avro_schema *as;
    hoodie_field data;
    HOODIE_TRY(hoodie_arena_new(&a, NULL, 16384));
    hoodie_status rc = hoodie_avro_schema_parse(&as, json, strlen(json), a, "table schema");
    if (rc == HOODIE_OK && as->kind != HOODIE_AVRO_RECORD)
        rc = HOODIE_CORRUPT("table schema is not an Avro record");
    if (rc == HOODIE_OK) rc = hoodie_avro_to_field(&data, as, "root");
    hoodie_arena_free(a);
    if (rc < 0) return rc;
    for (size_t i = 0; i < data.n_children && rc == HOODIE_OK; i++)
        if (!hoodie_is_meta_field(data.children[i].name)) rc = hoodie_field_add_child(into, &data.children[i]);
    hoodie_field_dispose(&data);
    return rc;
}

static hoodie_status schema_from_avro(scan *s, const char *json) { return avro_fields(&s->full, json); }

static hoodie_status schema_from_base_file(scan *s, const char *path)
{
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    hoodie_parquet_reader *r;
    o.storage = s->t->storage;
    HOODIE_TRY(hoodie_parquet_reader_open(&r, path, &o));
    const char *avro = hoodie_parquet_reader_kv(r, "parquet.avro.schema");
    hoodie_status rc = HOODIE_OK;
    if (avro) {
        rc = schema_from_avro(s, avro);
    } else {
        const hoodie_field *f = hoodie_pqfile__schema(r);
        for (size_t i = 0; i < f->n_children && rc == HOODIE_OK; i++)
            if (!hoodie_is_meta_field(f->children[i].name)) rc = hoodie_field_add_child(&s->full, &f->children[i]);
    }
    hoodie_parquet_reader_free(r);
    return rc;
}

/* 1 if the projection `cols` needs the top-level column `name` (itself or a dotted path inside it). */
static int projection_needs(char *const *cols, size_t n, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < n; i++)
        if (!strncmp(cols[i], name, len) && (cols[i][len] == 0 || cols[i][len] == '.')) return 1;
    return 0;
}

/* 1 if a predicate of the filter reads the top-level column `name`. */
static int filter_needs(const scan *s, const char *name)
{
    if (!s->has_filter) return 0;
    size_t len = strlen(name);
    for (size_t k = 0; k < s->filter.count; k++) {
        const char *c = s->filter.preds[k].column;
        if (!strncmp(c, name, len) && (c[len] == 0 || c[len] == '.')) return 1;
    }
    return 0;
}

/*
 * Projection pushdown: s->full narrowed to the columns the query needs (the projection, the filter's columns, the
 * record key, the ordering field, _hoodie_is_deleted), so base files read and log blocks decode only those. Not
 * with an incremental window, virtual keys or the LSM layout, which use other columns.
 */
static hoodie_status narrow_schema(scan *s)
{
    if (!s->columns || s->query == HOODIE_QUERY_INCREMENTAL || !s->t->cfg->populate_meta_fields ||
        s->t->cfg->lsm_tree || s->key_col < 0)
        return HOODIE_OK;
    hoodie_field need;
    HOODIE_TRY(hoodie_field_init(&need, s->full.name, s->full.type, s->full.nullable));
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < s->full.n_children && rc == HOODIE_OK; i++) {
        int k = (int)i;
        int more = 0;
        for (int j = 0; j < s->n_more_ord; j++) more |= k == s->more_ord[j];
        if (k == s->key_col || k == s->ord_col || k == s->del_col || k == s->marker.col || more ||
            projection_needs(s->columns, s->n_columns, s->full.children[i].name) ||
            filter_needs(s, s->full.children[i].name))
            rc = hoodie_field_add_child(&need, &s->full.children[i]);
    }
    if (rc < 0 || need.n_children == s->full.n_children) { hoodie_field_dispose(&need); return rc; }
    const char *ord = s->ord_col >= 0 ? s->full.children[s->ord_col].name : NULL;
    s->key_col = hoodie_field_find(&need, "_hoodie_record_key");
    s->ord_col = ord ? hoodie_field_find(&need, ord) : -1;
    for (int j = 0; j < s->n_more_ord; j++)
        if (s->more_ord[j] >= 0) s->more_ord[j] = hoodie_field_find(&need, s->full.children[s->more_ord[j]].name);
    s->del_col = s->del_col >= 0 ? hoodie_field_find(&need, "_hoodie_is_deleted") : -1;
    hoodie_delete_marker_of(s->t->cfg, &need, &s->marker);
    hoodie_field_dispose(&s->full);
    s->full = need;
    return HOODIE_OK;
}

/*
 * Table version 9 orders records by several ordering fields (hoodie.table.ordering.fields "a,b"), compared in turn
 * (Hudi's ArrayComparable): the columns of the fields after the first. A Debezium payload's own ordering column
 * replaces the table's fields.
 */
static hoodie_status more_ordering_fields(scan *s)
{
    const hoodie_table_config *c = s->t->cfg;
    s->n_more_ord = 0;
    if (c->debezium != HOODIE_DEBEZIUM_NONE || c->ordering_fields.count < 2) return HOODIE_OK;
    if (c->ordering_fields.count > HOODIE_ORDERING_FIELDS_MAX)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: %zu ordering fields (hoodie.table.ordering.fields); hoodie merges "
                           "records by at most %d", s->t->base_path, c->ordering_fields.count,
                           HOODIE_ORDERING_FIELDS_MAX);
    for (size_t i = 1; i < c->ordering_fields.count; i++)
        s->more_ord[s->n_more_ord++] = hoodie_field_find(&s->full, c->ordering_fields.items[i]);
    return HOODIE_OK;
}

/* The table schema recorded by the commits as of the query's instant, read once; *json = NULL when none is. */
static hoodie_status recorded_schema(scan *s, const char **json)
{
    if (!s->schema_loaded) {
        hoodie_status rc = hoodie_table__schema(s->t, s->as_of[0] ? s->as_of : NULL, &s->schema_json);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); s->schema_json = NULL; }
        else if (rc < 0) return rc;
        s->schema_loaded = 1;
    }
    *json = s->schema_json;
    return HOODIE_OK;
}

static hoodie_status build_schema(scan *s)
{
    const char *json = NULL;
    HOODIE_TRY(hoodie_field_init(&s->full, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    for (int i = 0; i < 5; i++) {
        hoodie_field m;
        HOODIE_TRY(hoodie_field_init(&m, hoodie_avro_meta_fields[i], hoodie_type_of(HOODIE_TYPE_STRING), 1));
        hoodie_status rc = hoodie_field_add_child(&s->full, &m);
        hoodie_field_dispose(&m);
        HOODIE_TRY(rc);
    }
    HOODIE_TRY(recorded_schema(s, &json));
    if (json) return schema_from_avro(s, json);
    /* no schema recorded: take it from a base file, if there is one */
    for (size_t g = 0; g < s->view->group_count; g++) {
        const hoodie_file_slice *sl = hoodie_file_group_latest(&s->view->groups[g]);
        if (sl && sl->base) return schema_from_base_file(s, sl->base->path);
    }
    return HOODIE_OK; /* an empty table: the meta columns only */
}

/* ---- partition pruning ---- */

/* Value of partition field `idx` in a partition path ("a=1/b=2" or "1/2"), copied into buf. */
static const char *partition_value(const hoodie_table_config *c, const char *path, size_t idx, char *buf, size_t cap)
{
    const char *p = path;
    for (size_t i = 0; i < idx && p; i++) {
        p = strchr(p, '/');
        if (p) p++;
    }
    if (!p || !*p) return NULL;
    const char *end = strchr(p, '/');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    const char *eq = c->hive_style_partitioning ? memchr(p, '=', n) : NULL;
    if (eq) { n -= (size_t)(eq + 1 - p); p = eq + 1; }
    if (n >= cap) return NULL; /* too long to hold: decides nothing */
    memcpy(buf, p, n);
    buf[n] = '\0';
    if (c->url_encode_partitions) { /* %XX unescaping */
        char *w = buf;
        for (const char *r = buf; *r; r++) {
            unsigned v;
            if (*r == '%' && sscanf(r + 1, "%2x", &v) == 1 && r[1] && r[2]) { *w++ = (char)v; r += 2; }
            else *w++ = *r;
        }
        *w = '\0';
    }
    return buf;
}

/*
 * Whether the path segments of partition field f hold the field's value itself, so that its text can decide a
 * predicate: with the Simple and Complex key generators and the Custom one's SIMPLE fields. A TIMESTAMP field's
 * segment is a date formatted from the value, and an unknown key generator may write anything.
 */
static int segment_is_value(const hoodie_table_config *c, size_t f)
{
    switch (c->keygen) {
    case HOODIE_KEYGEN_SIMPLE: case HOODIE_KEYGEN_COMPLEX: return 1;
    case HOODIE_KEYGEN_CUSTOM: {
        const char *t = f < c->partition_field_types.count ? c->partition_field_types.items[f] : NULL;
        return t && !strcasecmp(t, "SIMPLE");
    }
    default: return 0;
    }
}

/* The table schema for partition pruning, which runs before the file system view exists: the one the commits
 * record (none when no commit records one: then partitions are not pruned). */
static hoodie_status load_partition_schema(scan *s)
{
    const char *json = NULL;
    HOODIE_TRY(hoodie_field_init(&s->part_schema, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    HOODIE_TRY(recorded_schema(s, &json));
    return json ? avro_fields(&s->part_schema, json) : HOODIE_OK;
}

static int partition_filter(void *ctx, const char *partition)
{
    scan *s = ctx;
    const hoodie_table_config *c = s->t->cfg;
    /* one path segment per field, or the segments are not the fields' values one by one (a value holding '/'
     * written without URL encoding makes more): then nothing can be told */
    size_t segments = 1;
    for (const char *q = partition; *q; q++) segments += *q == '/';
    if (segments != c->partition_fields.count) return 1;
    for (size_t k = 0; k < s->filter.count; k++) {
        const hoodie_pred *p = &s->filter.preds[k];
        for (size_t f = 0; f < c->partition_fields.count; f++) {
            if (strcmp(p->column, c->partition_fields.items[f]) || !segment_is_value(c, f)) continue;
            char buf[512];
            const char *v = partition_value(c, partition, f, buf, sizeof buf);
            if (v && !hoodie_pred_may_match_partition(p, &s->part_schema, v)) return 0;
        }
    }
    return 1;
}

/* ---- rollbacks and the incremental window ---- */

static hoodie_status push_str(char ***v, size_t *n, const char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv) return HOODIE_NOMEM();
    *v = nv;
    nv[*n] = strdup(s);
    if (!nv[*n]) return HOODIE_NOMEM();
    (*n)++;
    return HOODIE_OK;
}

static int cmp_strp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static hoodie_status load_rollbacks(scan *s)
{
    const hoodie_timeline *tl = s->t->tl;
    for (size_t i = 0; i < tl->count; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->action != HOODIE_ACTION_ROLLBACK || in->state != HOODIE_STATE_COMPLETED) continue;
        hoodie_buf path = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
        hoodie_rollback_meta *m = NULL;
        hoodie_status rc = hoodie_timeline_instant_path(tl, in, HOODIE_STATE_COMPLETED, &path);
        if (rc == HOODIE_OK) rc = hoodie_storage_read_all(s->t->storage, (const char *)path.data, &data);
        if (rc == HOODIE_OK) rc = hoodie_rollback_meta_decode(&m, data.data, data.len, (const char *)path.data);
        for (size_t k = 0; rc == HOODIE_OK && k < m->commit_count; k++)
            rc = push_str(&s->rolled_back, &s->n_rolled_back, m->commits_rollback[k]);
        hoodie_rollback_meta_free(m);
        hoodie_buf_dispose(&path);
        hoodie_buf_dispose(&data);
        HOODIE_TRY(rc);
    }
    return HOODIE_OK;
}

/*
 * An incremental window that starts before the active timeline (or at the beginning) also takes the completed
 * writes of the archived timeline (hudi-format.md §6.6-6.7, §8.7), loaded here only for that. Archived instants
 * are found by requested time, so on the completion-time axis (v8) a window starting after the first active
 * instant's requested time does not look at the archive.
 */
static int reaches_archive(const hoodie_timeline *tl, const char *from)
{
    return tl->count == 0 || !from || strcmp(from, tl->instants[0].requested) < 0;
}

static hoodie_status incremental_window(scan *s, const char *from, const char *to)
{
    const hoodie_timeline *tl = s->t->tl;
    int by_completion = tl->layout_version == 2;
    const char *q = NULL;
    hoodie_archived_timeline *arch = NULL;
    hoodie_status rc = HOODIE_OK;
    if (!s->t->cfg->populate_meta_fields)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "incremental queries need meta fields (hoodie.populate.meta.fields)");
    const char *ends[2] = { from, to };
    for (int i = 0; i < 2; i++) /* compared as strings: a word would silently select nothing, or everything */
        if (ends[i] && !hoodie_instant_bound_valid(ends[i], strlen(ends[i])))
            return HOODIE_FAIL(HOODIE_EINVAL, "'%s' is not an instant time (yyyyMMddHHmmssSSS, or digits of one such "
                               "as 000)", ends[i]);
    if (reaches_archive(tl, from))
        HOODIE_TRY(hoodie_archived_load(&arch, s->t->storage, s->t->base_path, s->t->cfg));
    /* archived instants first (older), then the active ones; an instant in both (archival interrupted before
     * the active files were removed) counts once */
    size_t n_arch = arch ? arch->count : 0;
    for (size_t k = 0; rc == HOODIE_OK && k < n_arch + tl->count; k++) {
        const hoodie_instant *in = k < n_arch ? &arch->instants[k] : &tl->instants[k - n_arch];
        if (in->state != HOODIE_STATE_COMPLETED || !(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action))) continue;
        if (k < n_arch && hoodie_timeline_find(tl, in->requested, in->action)) continue;
        const char *axis = by_completion && in->completion[0] ? in->completion : in->requested;
        /* the snapshot the window is cut from: as of the last instant completed by `to` */
        if (to && strcmp(axis, to) <= 0 && (!q || strcmp(in->requested, q) > 0)) q = in->requested;
        if (from && strcmp(axis, from) <= 0) continue;
        if (to && strcmp(axis, to) > 0) continue;
        rc = push_str(&s->incr, &s->n_incr, in->requested);
    }
    if (rc == HOODIE_OK && to) snprintf(s->as_of, sizeof s->as_of, "%s", q ? q : "0");
    if (rc == HOODIE_OK && s->n_incr > 1) qsort(s->incr, s->n_incr, sizeof *s->incr, cmp_strp);
    hoodie_archived_free(arch);
    return rc;
}

/* Whether commit time p[0..n) is one of the window's instants (s->incr, sorted): a binary search per row. */
static int in_window(const scan *s, const uint8_t *p, size_t n)
{
    size_t lo = 0, hi = s->n_incr;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2, ml = strlen(s->incr[mid]);
        int c = memcmp(s->incr[mid], p, ml < n ? ml : n);
        if (!c) c = ml < n ? -1 : ml > n;
        if (!c) return 1;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

/* ---- missing files ---- */

/*
 * A listing cannot see a file that is gone. Cross-check it with the timeline: the latest base file that a
 * completed write instant (as of the query) recorded for a file group must be in the view, unless the group was
 * replaced. Cleaning only removes older file versions, so this never trips on a healthy table.
 */
static hoodie_status check_base_files(scan *s)
{
    const hoodie_timeline *tl = s->t->tl;
    hoodie_status rc = HOODIE_OK;
    for (size_t i = tl->count; i-- > 0 && rc == HOODIE_OK;) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->state != HOODIE_STATE_COMPLETED || !(HOODIE_ACTIONS_WRITE & HOODIE_ACTION_BIT(in->action))) continue;
        if (s->as_of[0] && strcmp(in->requested, s->as_of) > 0) continue;
        hoodie_commit_meta *m;
        if ((rc = hoodie_table__commit_meta(s->t, in, &m)) < 0) break;
        for (size_t k = 0; k < m->stat_count; k++) {
            const hoodie_write_stat *st = &m->stats[k];
            if (!st->path || !st->file_id) continue;
            size_t n = strlen(st->path);
            if (n < 8 || strcmp(st->path + n - 8, ".parquet")) continue;
            const char *name = strrchr(st->path, '/');
            name = name ? name + 1 : st->path;
            hoodie_file_name fnp;
            if (hoodie_file_name_parse(&fnp, name) != HOODIE_FILE_BASE) continue; /* native log files */
            const hoodie_file_group *g = NULL;
            for (size_t x = 0; x < s->view->group_count; x++)
                if (!strcmp(s->view->groups[x].file_id, st->file_id) &&
                    !strcmp(s->view->groups[x].partition, st->partition_path ? st->partition_path : "")) {
                    g = &s->view->groups[x];
                    break;
                }
            const hoodie_file_slice *sl = g ? hoodie_file_group_latest(g) : NULL;
            int present = sl && sl->base && strcmp(sl->base->instant, in->requested) >= 0;
            if (!present && g == NULL) {
                /* the whole group is gone: fine only if a replacecommit dropped it */
                hoodie_replaced_set r;
                if ((rc = hoodie_table__replaced(s->t, s->as_of[0] ? s->as_of : NULL, &r)) < 0) break;
                for (size_t q = 0; q < r.count && !present; q++)
                    present = !strcmp(r.file_ids[q], st->file_id);
                hoodie_replaced_set_dispose(&r);
            }
            if (!present && g && sl && !sl->base) present = 1; /* log-only slice after a base: v6 pending state */
            if (!present) {
                rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s/%s: base file written by instant %s is missing", s->t->base_path,
                                 st->path, in->requested);
                break;
            }
        }
        hoodie_commit_meta_free(m);
    }
    return rc;
}

/* ---- slices ---- */

static void close_slice(scan *s)
{
    hoodie_slice_merger_free(s->merger);
    s->merger = NULL;
    hoodie_lsm_slice_free(s->lsm);
    s->lsm = NULL;
    if (s->have_logs) hoodie_log_items_dispose(&s->logs);
    s->have_logs = 0;
    hoodie_pq_scan_free(s->base_scan);
    s->base_scan = NULL;
    hoodie_parquet_reader_free(s->base);
    s->base = NULL;
    hoodie_spill_free(s->spill); /* after the base file it may have opened */
    s->spill = NULL;
    s->group = NULL;
    s->slice = NULL;
}

/* ---- row-group pruning ---- */

/* Row groups of the open base file that the filter may match (statistics), into *rgs (malloc). */
static hoodie_status prune_row_groups(scan *s, uint32_t **rgs, size_t *n_rgs)
{
    hoodie_pq_file *f = hoodie_pqfile__file(s->base);
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    const hoodie_pq_schema *sch = hoodie_pq_file_schema(f);
    *rgs = malloc((m->row_group_count + 1) * sizeof **rgs);
    *n_rgs = 0;
    if (!*rgs) return HOODIE_NOMEM();
    for (uint32_t rg = 0; rg < m->row_group_count; rg++) {
        int keep = 1;
        for (size_t k = 0; k < s->filter.count && keep; k++) {
            const hoodie_pred *p = &s->filter.preds[k];
            /* a table without meta fields stores them null (its file name aside): the scan fills them in, so
             * the file's statistics of them say nothing of the values filtered */
            if (!s->t->cfg->populate_meta_fields && hoodie_is_meta_field(p->column)) continue;
            int leaf = hoodie_pq_schema_find_leaf(sch, p->column);
            if (leaf < 0 || sch->leaves[leaf].max_rep > 0) continue;
            if (!hoodie_pred_stats_usable(&s->full, p->column, &sch->leaves[leaf].type)) continue; /* retyped */
            hoodie_pq_value vals[HOODIE_PRED_PQ_MAX];
            hoodie_pq_pred pp;
            int expressible = hoodie_pred_to_pq(p, &sch->leaves[leaf].type, vals, &pp);
            if (expressible && !hoodie_pq_row_group_may_match(f, rg, leaf, &pp)) keep = 0;
        }
        if (keep) (*rgs)[(*n_rgs)++] = rg;
    }
    return HOODIE_OK;
}

/*
 * A point lookup's keys against a base file's bloom filter (Hudi's, in the footer; tested in its text): 0 when
 * the file certainly holds none of them, 1 when it may (or has no filter), < 0 on an error. Only for a slice no log
 * can add keys to: a bloom-indexed writer sends a key to the file group its base file holds, but writers with other
 * indexes (Flink's, the bucket index) insert into log files.
 */
static int base_may_hold_keys(scan *s, hoodie_pq_file *f, const char *path)
{
    static const char bloom_key[] = "org.apache.hudi.bloomfilter";
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    uint32_t at = m->kv_count;
    for (uint32_t i = 0; i < m->kv_count && at == m->kv_count; i++)
        if (m->kv[i].key && !strcmp(m->kv[i].key, bloom_key)) at = i;
    if (at == m->kv_count) return 1;
    const char *text = hoodie_pq_file_kv_at(f, at);
    if (!text) return m->kv[at].value_deferred ? HOODIE_EIO : 1; /* a deferred value that did not read: error set */
    const char *code = hoodie_pq_file_kv(f, "hoodie_bloom_filter_type_code");
    size_t len = strlen(text);
    hoodie_bloom_text t;
    if (hoodie_bloom_text_open(&t, text, len, code, path) == HOODIE_OK) {
        for (size_t i = 0; i < s->n_keys; i++) {
            int maybe = hoodie_bloom_text_test(&t, s->keys[i], strlen(s->keys[i]));
            if (maybe) return maybe;
        }
        return 0;
    }
    hoodie_bloom b; /* not laid out as Java writes it: decoded (or refused, with the reason) */
    HOODIE_TRY(hoodie_bloom_from_base64(&b, text, len, code, path));
    int maybe = 0;
    for (size_t i = 0; i < s->n_keys && !maybe; i++) maybe = hoodie_bloom_test(&b, s->keys[i], strlen(s->keys[i]));
    hoodie_bloom_dispose(&b);
    return maybe;
}

/* The open slice's log records of the current key-hash partition (all of them with one partition), folded. */
static hoodie_status start_pass(scan *s)
{
    hoodie_slice_merger_free(s->merger);
    s->merger = NULL;
    if (s->have_logs) hoodie_log_items_dispose(&s->logs);
    s->have_logs = 0;
    /* the first pass takes more partitions when its records outgrow the budget (nothing was read from the slice
     * yet): the later passes follow */
    /* the columns the merge compares: key, ordering, delete marks, further ordering fields */
    int want[HOODIE_ORDERING_FIELDS_MAX + 3] = { s->key_col, s->ord_col, s->del_col, s->marker.col };
    int cols[HOODIE_ORDERING_FIELDS_MAX + 3];
    for (int i = 0; i < s->n_more_ord; i++) want[4 + i] = s->more_ord[i];
    size_t n_cols = s->lazy ? hoodie_logscan_lazy_cols(cols, want, 4 + (size_t)s->n_more_ord) : 0;
    hoodie_logscan_ctx lc = { hoodie_spill_storage(s->spill, s->t->storage), s->t->tl,
                              s->as_of[0] ? s->as_of : NULL, &s->full, (const char *const *)s->rolled_back,
                              s->n_rolled_back, 0, s->parts, s->part, 0,
                              s->part == 0 ? hoodie_logscan_budget(s->merge_memory) : 0, s->t->evo, cols, n_cols };
    HOODIE_TRY(hoodie_logscan(&s->logs, &lc, s->slice->logs, s->slice->log_count));
    s->parts = s->logs.parts;
    s->have_logs = 1;
    hoodie_slice_merge_cfg mc = { &s->full, s->key_col, s->ord_col, s->del_col, s->policy, &s->marker,
                                  s->more_ord, s->n_more_ord, s->parts, s->part };
    return hoodie_slice_merger_new(&s->merger, &mc, &s->logs);
}

/* The passes over a slice read its files again: copied locally first if they are not (read/spill.h). */
static hoodie_status spill_slice(scan *s, const hoodie_file_slice *sl)
{
    return hoodie_spill_open_slice(&s->spill, s->t->storage, sl->logs, sl->log_count, sl->base ? sl->base->path : NULL);
}

static hoodie_status open_slice(scan *s, const hoodie_file_group *g)
{
    const hoodie_file_slice *sl = hoodie_file_group_latest(g);
    s->group = g;
    s->slice = sl;
    s->slice_done_base = 0;
    int use_logs = s->query != HOODIE_QUERY_READ_OPTIMIZED && sl->log_count > 0;
    int lookup = s->n_keys && s->query == HOODIE_QUERY_SNAPSHOT && s->t->cfg->populate_meta_fields;
    /* a custom merger (a payload class or merger hoodie does not know) only matters where log files are merged:
     * copy-on-write tables, read-optimized queries and slices without log files read as they are */
    if (use_logs && s->t->cfg->merge_mode == HOODIE_MERGE_CUSTOM)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: file group %s of partition '%s' has log files, and merging them "
                           "needs the table's custom record merger (%s %s), which hoodie does not support; "
                           "read-optimized queries read", s->t->base_path, g->file_id, g->partition,
                           HOODIE_CUSTOM_MERGER_ARGS(s->t->cfg));
    if (use_logs && s->t->cfg->partial == HOODIE_PARTIAL_OTHER)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: file group %s of partition '%s' has log files, and merging them "
                           "needs partial updates (%s%s), which hoodie supports as IGNORE_DEFAULTS, "
                           "FILL_UNAVAILABLE and KEEP_VALUES; read-optimized queries read",
                           s->t->base_path, g->file_id, g->partition, HOODIE_PARTIAL_ARGS(s->t->cfg));
    if ((use_logs || (lookup && sl->base)) && s->t->cfg->lsm_tree && s->key_col >= 0 && hoodie_lsm_slice_sortable(sl)) {
        hoodie_lsm_slice_cfg lc = { { s->t->storage, s->t->tl, s->as_of[0] ? s->as_of : NULL, &s->full,
                                      (const char *const *)s->rolled_back, s->n_rolled_back, 0, 0, 0, 0, 0, s->t->evo, NULL, 0 },
                                    s->key_col, s->ord_col, s->del_col, s->policy, s->batch_rows, 0, 0,
                                    lookup ? (const char *const *)s->keys : NULL, lookup ? s->n_keys : 0,
                                    &s->marker };
        s->slice_done_base = 1;
        return hoodie_lsm_slice_open(&s->lsm, &lc, sl);
    }
    s->parts = 1;
    s->part = 0;
    s->lazy = 0;
    if (use_logs) {
        if (s->key_col < 0)
            return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "merging log files needs the _hoodie_record_key column");
        /* log files past a quarter of what the merge may hold are read lazily (only the columns the merge
         * compares decoded, the records left in the mapped log files; copied locally first where the storage
         * does not map files and they are larger than the budget), and the first pass takes more key-hash
         * partitions, each merged with a pass over the base file, when what it keeps takes more than the budget
         * (hoodie_logscan_ctx.mem_limit; eager decoded records take at least their log bytes) */
        uint64_t log_bytes = 0;
        for (size_t i = 0; i < sl->log_count; i++) log_bytes += sl->logs[i]->size;
        uint32_t parts = hoodie_logscan_parts(log_bytes, s->merge_memory);
        s->lazy = hoodie_logscan_lazy(log_bytes, s->merge_memory);
        if (parts > 1) HOODIE_TRY(spill_slice(s, sl));
        s->parts = s->lazy ? 1 : parts;
        HOODIE_TRY(start_pass(s));
        if (s->parts > 1 && !s->spill) HOODIE_TRY(spill_slice(s, sl)); /* the first pass took more partitions */
    }
    if (sl->base) {
        const hoodie_storage *bs = hoodie_spill_storage(s->spill, s->t->storage);
        const hoodie_renames *rn;
        HOODIE_TRY(hoodie_evo_renames(s->t->evo, s->as_of[0] ? s->as_of : NULL, sl->base->instant, &rn));
        hoodie_status rc = hoodie_pqfile__open_columns(&s->base, sl->base->path, bs, s->batch_rows, &s->full, rn);
        if (rc < 0) return rc;
        if (s->has_filter && !s->merger) {
            /* no log can change these rows: statistics may skip row groups */
            uint32_t *rgs;
            size_t n;
            HOODIE_TRY(prune_row_groups(s, &rgs, &n));
            if (n && lookup) { /* a point lookup: none of the row groups when the bloom filter holds none of the keys */
                int may = base_may_hold_keys(s, hoodie_pqfile__file(s->base), sl->base->path);
                if (may < 0) { free(rgs); return may; }
                if (!may) n = 0;
            }
            s->pruned_row_groups += hoodie_pq_file_metadata(hoodie_pqfile__file(s->base))->row_group_count - n;
            rc = hoodie_pqfile__scan_open_row_groups(s->base, rgs, n, &s->base_scan);
            free(rgs);
            return rc;
        }
        HOODIE_TRY(hoodie_pqfile__scan_open(s->base, &s->base_scan));
    } else {
        s->slice_done_base = 1;
    }
    return HOODIE_OK;
}

/* Fill the meta columns of a table written without them: record key from the key fields, partition path and
 * file name from the slice. */
static hoodie_status fill_meta(scan *s, hoodie_batch *b)
{
    hoodie_field *sf = &b->schema;
    hoodie_array keys, parts, names;
    hoodie_keygen_plan kg;
    hoodie_keygen_out ko;
    hoodie_keygen_out_init(&ko);
    memset(&keys, 0, sizeof keys);
    memset(&parts, 0, sizeof parts);
    memset(&names, 0, sizeof names);
    /* the table's key generator, as the writer ran it (so keys match what Hudi computed) */
    hoodie_status rc = hoodie_keygen_init(&kg, s->t->cfg, sf);
    if (rc < 0) return rc;
    rc = hoodie_keygen_record_keys(&kg, b, &ko);
    if (rc == HOODIE_OK) rc = hoodie_array_init(&keys, &sf->children[2]);
    if (rc == HOODIE_OK) rc = hoodie_array_init(&parts, &sf->children[3]);
    if (rc == HOODIE_OK) rc = hoodie_array_init(&names, &sf->children[4]);
    for (int64_t r = 0; r < b->root.length && rc == HOODIE_OK; r++) {
        rc = hoodie_array_append_bytes(&keys, &sf->children[2], ko.data.data + ko.offsets[r],
                                       (size_t)(ko.offsets[r + 1] - ko.offsets[r]));
        if (rc == HOODIE_OK) rc = hoodie_array_append_str(&parts, &sf->children[3], s->group->partition);
        if (rc == HOODIE_OK)
            rc = hoodie_array_append_str(&names, &sf->children[4], s->slice->base ? s->slice->base->name : s->group->file_id);
    }
    hoodie_keygen_out_dispose(&ko);
    hoodie_keygen_dispose(&kg);
    if (rc < 0) {
        hoodie_array_dispose(&keys);
        hoodie_array_dispose(&parts);
        hoodie_array_dispose(&names);
        return rc;
    }
    hoodie_array_dispose(&b->root.children[2]);
    hoodie_array_dispose(&b->root.children[3]);
    hoodie_array_dispose(&b->root.children[4]);
    b->root.children[2] = keys;
    b->root.children[3] = parts;
    b->root.children[4] = names;
    return HOODIE_OK;
}

/* Incremental window, row filter, projection: `in` (full schema) -> `out` (output schema). */
static hoodie_status finish_batch(scan *s, hoodie_batch *in, hoodie_batch *out)
{
    hoodie_status rc = HOODIE_OK;
    int64_t n = in->root.length;
    if (!s->t->cfg->populate_meta_fields) HOODIE_TRY(fill_meta(s, in));
    if (s->query == HOODIE_QUERY_INCREMENTAL || s->has_filter) {
        uint8_t *keep = malloc((size_t)n + 1);
        if (!keep) return HOODIE_NOMEM();
        if (s->has_filter) rc = hoodie_filter_eval(&s->filter, in, keep);
        else memset(keep, 1, (size_t)n);
        if (rc == HOODIE_OK && s->query == HOODIE_QUERY_INCREMENTAL) {
            const hoodie_array *ct = &in->root.children[0];
            for (int64_t r = 0; r < n; r++) {
                if (!keep[r]) continue;
                size_t cl = 0;
                const uint8_t *cp = hoodie_array_is_valid(ct, r) ? hoodie_array_bytes_at(ct, r, &cl) : NULL;
                keep[r] = cp && in_window(s, cp, cl);
            }
        }
        int64_t kept = 0;
        for (int64_t r = 0; r < n; r++) kept += keep[r];
        if (rc == HOODIE_OK && kept != n) {
            int64_t *rows = malloc((size_t)kept * sizeof *rows + 1);
            hoodie_batch f;
            if (!rows) rc = HOODIE_NOMEM();
            else {
                int64_t j = 0;
                for (int64_t r = 0; r < n; r++) if (keep[r]) rows[j++] = r;
                rc = hoodie_batch_init(&f, &in->schema);
                if (rc == HOODIE_OK) {
                    for (size_t c = 0; c < in->root.n_children && rc == HOODIE_OK; c++)
                        rc = hoodie_array_take(&f.root.children[c], &f.schema.children[c], &in->root.children[c],
                                               rows, (size_t)kept);
                    f.root.length = kept;
                    if (rc == HOODIE_OK) { hoodie_batch_dispose(in); *in = f; }
                    else hoodie_batch_dispose(&f);
                }
            }
            free(rows);
        }
        free(keep);
        if (rc < 0) return rc;
    }
    if (s->columns) {
        rc = hoodie_batch_project(out, in, (const char *const *)s->columns, s->n_columns);
        hoodie_batch_dispose(in);
        return rc;
    }
    *out = *in; /* move */
    memset(in, 0, sizeof *in);
    return HOODIE_OK;
}

/* Produce the next merged batch (full schema) from the open slice; HOODIE_ITEROVER when the slice is done. */
static hoodie_status slice_next(scan *s, hoodie_batch *out)
{
    if (s->lsm) return hoodie_lsm_slice_next(s->lsm, out, NULL);
    if (!s->slice_done_base) {
        hoodie_batch raw, conformed;
        hoodie_status rc = hoodie_pq_scan_next(s->base_scan, &raw);
        if (rc == HOODIE_ITEROVER) {
            s->slice_done_base = 1;
        } else if (rc < 0) {
            return rc;
        } else {
            rc = hoodie_conform_batch(&conformed, &s->full, &raw);
            hoodie_batch_dispose(&raw);
            if (rc < 0) { hoodie_error__prefix("%s: ", s->slice->base->path); return rc; }
            if (!s->merger) { *out = conformed; return HOODIE_OK; }
            rc = hoodie_slice_merger_base(s->merger, &conformed, out); /* this pass's rows (s->parts) */
            hoodie_batch_dispose(&conformed);
            return rc;
        }
    }
    if (s->merger) {
        hoodie_status rc = hoodie_slice_merger_finish(s->merger, out);
        hoodie_slice_merger_free(s->merger);
        s->merger = NULL;
        if (rc == HOODIE_OK && ++s->part < s->parts) { /* the next partition: its log records, the base again */
            rc = start_pass(s);
            if (rc == HOODIE_OK && s->base) {
                hoodie_pq_scan_free(s->base_scan);
                s->base_scan = NULL;
                rc = hoodie_pqfile__scan_open(s->base, &s->base_scan);
                s->slice_done_base = 0;
            }
            if (rc < 0) hoodie_batch_dispose(out);
        }
        return rc;
    }
    return HOODIE_ITEROVER;
}

static int slice_may_match(const scan *s, const hoodie_file_slice *sl);

static hoodie_status scan_next(hoodie_batch *out, void *payload)
{
    scan *s = payload;
    for (;;) {
        if (!s->group) {
            if (s->next_group >= s->view->group_count) return HOODIE_ITEROVER;
            const hoodie_file_group *g = &s->view->groups[s->next_group++];
            if (!hoodie_file_group_latest(g)) continue;
            if (s->only) {
                char id[512];
                int n = snprintf(id, sizeof id, "%s\x01%s", g->partition, g->file_id);
                if (n < 0 || (size_t)n >= sizeof id || !hoodie_hmap_get(s->only, id, (size_t)n)) continue;
            }
            if (s->rli_only) {
                char id[512];
                int n = snprintf(id, sizeof id, "%s\x01%s", g->partition, g->file_id);
                if (n < 0 || (size_t)n >= sizeof id || !hoodie_hmap_get(s->rli_only, id, (size_t)n)) continue;
            }
            if (s->colstats && !slice_may_match(s, hoodie_file_group_latest(g))) continue;
            if (s->key_buckets) { /* point lookup with the bucket index: only the keys' buckets */
                int b = hoodie_bucket_of_file_id(g->file_id), hit = 0;
                for (size_t i = 0; i < s->n_keys && !hit; i++) hit = s->key_buckets[i] == b;
                if (!hit) continue;
            }
            hoodie_status rc = open_slice(s, g);
            if (rc < 0) { close_slice(s); return rc; }
        }
        hoodie_batch merged, done;
        hoodie_status rc = slice_next(s, &merged);
        if (rc == HOODIE_ITEROVER) { close_slice(s); continue; }
        if (rc < 0) return rc;
        rc = finish_batch(s, &merged, &done);
        hoodie_batch_dispose(&merged);
        if (rc < 0) return rc;
        if (done.root.length == 0) { hoodie_batch_dispose(&done); continue; }
        hoodie_batch_dispose(out);
        *out = done;
        return HOODIE_OK;
    }
}

static void scan_free(void *payload)
{
    scan *s = payload;
    if (!s) return;
    close_slice(s);
    hoodie_fsview_free(s->view);
    hoodie_field_dispose(&s->full);
    hoodie_field_dispose(&s->part_schema);
    hoodie_field_dispose(&s->out_schema);
    free(s->schema_json);
    for (size_t i = 0; i < s->n_columns; i++) free(s->columns[i]);
    free(s->columns);
    for (size_t i = 0; i < s->n_rolled_back; i++) free(s->rolled_back[i]);
    free(s->rolled_back);
    for (size_t i = 0; i < s->n_incr; i++) free(s->incr[i]);
    free(s->incr);
    if (s->has_filter) hoodie_filter_dispose(&s->filter);
    for (size_t i = 0; i < s->n_keys; i++) free(s->keys[i]);
    free(s->keys);
    free(s->key_buckets);
    hoodie_mdt_colstats_free(s->colstats);
    if (s->rli_only) hoodie_hmap_dispose(s->rli_only);
    free(s->rli_only);
    hoodie_arena_free(s->rli_arena);
    free(s);
}

/* A filtered scan of a table whose metadata table has column statistics (opened with HOODIE_OPEN_METADATA_TABLE):
 * they are loaded once, and file slices none of whose files can hold a row passing the filter are not read (Hudi's
 * data skipping). */
static hoodie_status load_colstats(scan *s)
{
    hoodie_table *t = s->t;
    if (!(t->open_flags & HOODIE_OPEN_METADATA_TABLE) || !s->has_filter || !s->filter.count ||
        (s->query != HOODIE_QUERY_SNAPSHOT && s->query != HOODIE_QUERY_READ_OPTIMIZED) ||
        !hoodie_mdt_listed(t->cfg, "column_stats"))
        return HOODIE_OK;
    /* with a schema-on-read history, a file's statistics are under the names its columns had then (a column
     * dropped and added again under its name would be judged by the old one's values): not used */
    if (t->evo) return HOODIE_OK;
    hoodie_status rc = hoodie_mdt_column_stats(&s->colstats, t->storage, t->base_path, t->tl);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); return HOODIE_OK; }
    return rc;
}

/* 0 when no file of the slice (its base file; its logs too unless read-optimized) can hold a row that passes the
 * filter by their column statistics; 1 when one may, or when a file has none for a filtered column. A file's
 * statistics cover every record it holds (a log's updates and inserts; its deletes add no row), and a merged row's
 * value of a column comes from one of the files, so a slice none of whose files can match yields no row. */
static int slice_may_match(const scan *s, const hoodie_file_slice *sl)
{
    int with_logs = s->query != HOODIE_QUERY_READ_OPTIMIZED;
    size_t n_files = (sl->base ? 1 : 0) + (with_logs ? sl->log_count : 0);
    if (!n_files) return 1;
    for (size_t k = 0; k < s->filter.count; k++) {
        const hoodie_pred *p = &s->filter.preds[k];
        if (!s->t->cfg->populate_meta_fields && hoodie_is_meta_field(p->column)) continue;
        int c = hoodie_field_find(&s->full, p->column);
        if (c < 0) continue;
        hoodie_pq_value vals[HOODIE_PRED_PQ_MAX];
        hoodie_pq_pred pp;
        if (!hoodie_pred_to_pq(p, &s->full.children[c].type, vals, &pp)) continue;
        int may = 0;
        for (size_t f = 0; f < n_files && !may; f++) {
            const hoodie_fs_file *file = sl->base ? (f == 0 ? sl->base : sl->logs[f - 1]) : sl->logs[f];
            const hoodie_mdt_stat *st = hoodie_mdt_stat_of(s->colstats, file->name, p->column);
            if (!st) { may = 1; break; }
            if (st->has_counts && st->value_count == 0) continue; /* no record (a log of deletes) */
            hoodie_pq_column_stats cs;
            memset(&cs, 0, sizeof cs);
            /* bounds of another kind than the filter's values (a type change since): not compared */
            int kind_ok = pp.n_values == 0 || (st->has_min && st->has_max && st->min.kind == pp.values[0].kind &&
                                               st->max.kind == pp.values[0].kind);
            cs.has_min = cs.has_max = kind_ok && st->has_min && st->has_max;
            cs.min = st->min, cs.max = st->max;
            cs.has_null_count = st->has_counts;
            cs.null_count = st->null_count;
            cs.num_values = cs.num_rows = st->value_count;
            may = hoodie_pq_stats_may_match(&cs, &pp);
        }
        if (!may) return 0;
    }
    return 1;
}

/* A point lookup of the latest snapshot on a table whose metadata table has a record index (opened with
 * HOODIE_OPEN_METADATA_TABLE): only the file groups the index puts the keys in are read (none when it holds none
 * of them), instead of every group's bloom filter. A metadata table that is listed but gone: the usual way. */
static int rli_usable(const scan *s)
{
    const hoodie_table *t = s->t;
    return (t->open_flags & HOODIE_OPEN_METADATA_TABLE) && s->query == HOODIE_QUERY_SNAPSHOT && !s->as_of[0] &&
           !t->cfg->lsm_tree && hoodie_mdt_listed(t->cfg, "record_index");
}

/* s->rli_only: the file groups the record index puts keys[0..n) in (s->rli_arena holds their ids). */
static hoodie_status rli_groups_of(scan *s, const char *const *keys, size_t n)
{
    hoodie_table *t = s->t;
    hoodie_mdt_location *locs = calloc(n + 1, sizeof *locs);
    if (!locs) return HOODIE_NOMEM();
    hoodie_status rc = s->rli_arena ? HOODIE_OK : hoodie_arena_new(&s->rli_arena, NULL, 4096);
    if (rc == HOODIE_OK && n)
        rc = hoodie_mdt_record_index(t->storage, t->base_path, t->tl, keys, n, s->rli_arena, locs);
    if (rc == HOODIE_ENOTFOUND) {
        hoodie_error_clear();
        free(locs);
        return HOODIE_OK;
    }
    if (rc == HOODIE_OK && !(s->rli_only = calloc(1, sizeof *s->rli_only))) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK) rc = hoodie_hmap_init(s->rli_only, n + 1);
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        if (!locs[i].found) continue;
        char *id = hoodie_arena_sprintf(s->rli_arena, "%s\x01%s", locs[i].partition, locs[i].file_id);
        uint64_t *slot;
        int existed;
        rc = id ? hoodie_hmap_upsert(s->rli_only, id, strlen(id), &slot, &existed) : HOODIE_NOMEM();
    }
    free(locs);
    return rc;
}

static hoodie_status rli_groups(scan *s)
{
    if (!s->n_keys || !rli_usable(s)) return HOODIE_OK;
    return rli_groups_of(s, (const char *const *)s->keys, s->n_keys);
}

/* A filtered read of the latest snapshot (opened with HOODIE_OPEN_METADATA_TABLE) whose filter asks for values of
 * a column that a secondary index of the table covers (column = v, column IN (...)), with a record index: the
 * index gives the record keys with those values, the record index their file groups, and only those are read
 * (Hudi's data skipping by secondary index); the filter still decides each row. The first such predicate is
 * used (a conjunction: each one alone bounds the rows). */
static hoodie_status si_groups(scan *s)
{
    hoodie_table *t = s->t;
    if (s->n_keys || !s->has_filter || !s->filter.count || s->rli_only || s->only || !rli_usable(s) ||
        !t->cfg->populate_meta_fields)
        return HOODIE_OK;
    const char *parts = hoodie_table_config_get(t->cfg, "hoodie.table.metadata.partitions");
    if (!parts || !strstr(parts, "secondary_index_")) return HOODIE_OK;
    hoodie_arena *a = NULL;
    hoodie_mdt_secondary *defs = NULL;
    size_t n_defs = 0;
    hoodie_status rc = hoodie_arena_new(&a, NULL, 4096);
    if (rc == HOODIE_OK) rc = hoodie_mdt_secondary_indexes(t->storage, t->base_path, t->cfg, a, &defs, &n_defs);
    const hoodie_pred *use = NULL;
    const char *index = NULL;
    for (size_t k = 0; rc == HOODIE_OK && !use && k < s->filter.count; k++) {
        const hoodie_pred *p = &s->filter.preds[k];
        if (p->op != HOODIE_F_EQ && p->op != HOODIE_F_IN) continue;
        int c = hoodie_field_find(&s->full, p->column);
        if (c < 0 || !hoodie_mdt_si_type_ok(&s->full.children[c].type)) continue;
        int is_str = s->full.children[c].type.id == HOODIE_TYPE_STRING, ok = p->n_values > 0;
        for (size_t v = 0; ok && v < p->n_values; v++) /* literals of the column's kind only */
            ok = is_str ? p->values[v].kind == HOODIE_LIT_STRING
                        : p->values[v].kind == HOODIE_LIT_NUMBER && p->values[v].is_integer;
        for (size_t d = 0; ok && !use && d < n_defs; d++)
            if (!strcmp(defs[d].column, p->column)) use = p, index = defs[d].name;
    }
    const char **vals = NULL, **keys = NULL;
    size_t n_found = 0;
    if (rc == HOODIE_OK && use && !(vals = hoodie_arena_calloc(a, use->n_values, sizeof *vals))) rc = HOODIE_NOMEM();
    for (size_t v = 0; rc == HOODIE_OK && use && v < use->n_values; v++) {
        const hoodie_literal *l = &use->values[v];
        vals[v] = l->kind == HOODIE_LIT_STRING ? hoodie_arena_strndup(a, l->text, l->len)
                                               : hoodie_arena_sprintf(a, "%lld", (long long)l->i);
        if (!vals[v]) rc = HOODIE_NOMEM();
    }
    if (rc == HOODIE_OK && use)
        rc = hoodie_mdt_secondary_keys(t->storage, t->base_path, t->tl, index, vals, use->n_values, a, &keys, &n_found);
    if (rc == HOODIE_OK && use) rc = rli_groups_of(s, keys, n_found);
    if (rc == HOODIE_ENOTFOUND) { /* listed but gone: the usual way */
        hoodie_error_clear();
        rc = HOODIE_OK;
        if (s->rli_only) hoodie_hmap_dispose(s->rli_only);
        free(s->rli_only);
        s->rli_only = NULL;
    }
    free(keys);
    hoodie_arena_free(a);
    return rc;
}

static hoodie_status scan_open(hoodie_table *t, const hoodie_scan_opts *opts, const char *const *keys, size_t n_keys,
                               scan **out);

static hoodie_status scan_start(hoodie_table *t, const hoodie_scan_opts *opts, const char *const *keys, size_t n_keys,
                                struct ArrowArrayStream *out)
{
    scan *s;
    HOODIE_TRY(scan_open(t, opts, keys, n_keys, &s));
    return hoodie_arrow_stream_export(out, &s->out_schema, scan_next, scan_free, s);
}

hoodie_status hoodie_read__scan_open(hoodie_table *t, const hoodie_scan_opts *opts, hoodie_read_scan **out)
{
    return scan_open(t, opts, NULL, 0, out);
}

hoodie_status hoodie_read__scan_next(hoodie_read_scan *s, hoodie_batch *out)
{
    HOODIE_TRY(hoodie_batch_init(out, &s->out_schema));
    hoodie_status rc = scan_next(out, s);
    if (rc < 0) hoodie_batch_dispose(out);
    return rc;
}

void hoodie_read__scan_only(hoodie_read_scan *s, const hoodie_hmap *groups) { s->only = groups; }

void hoodie_read__scan_group(const hoodie_read_scan *s, const char **partition, const char **file_id)
{
    *partition = s->group ? s->group->partition : NULL;
    *file_id = s->group ? s->group->file_id : NULL;
}

void hoodie_read__scan_close(hoodie_read_scan *s) { scan_free(s); }

hoodie_status hoodie_table_scan(hoodie_table *t, const hoodie_scan_opts *opts, struct ArrowArrayStream *out)
{
    HOODIE_TRY(hoodie_table__evo_ok(t));
    if (opts && opts->query == HOODIE_QUERY_CDC) return hoodie_read__cdc(t, opts, out);
    return scan_start(t, opts, NULL, 0, out);
}

hoodie_status hoodie_read__scan_keys(hoodie_table *t, const hoodie_scan_opts *opts, const char *const *keys,
                                     size_t n_keys, struct ArrowArrayStream *out)
{
    HOODIE_TRY(hoodie_table__evo_ok(t));
    return scan_start(t, opts, keys, n_keys, out);
}

static hoodie_status scan_open(hoodie_table *t, const hoodie_scan_opts *opts, const char *const *keys, size_t n_keys,
                               scan **out)
{
    hoodie_scan_opts def = HOODIE_SCAN_OPTS_INIT;
    hoodie_status rc = HOODIE_OK;
    if (!opts) opts = &def;
    scan *s = calloc(1, sizeof *s);
    if (!s) return HOODIE_NOMEM();
    s->t = t;
    s->query = opts->query;
    s->batch_rows = opts->batch_rows > 0 ? opts->batch_rows : 65536;
    s->merge_memory = opts->version >= 2 ? opts->merge_memory : 0; /* <= 0: the default */
    if (opts->as_of) {
        if (!hoodie_instant_time_valid(opts->as_of, strlen(opts->as_of))) {
            scan_free(s);
            return HOODIE_FAIL(HOODIE_EINVAL, "'%s' is not an instant time (yyyyMMddHHmmssSSS)", opts->as_of);
        }
        snprintf(s->as_of, sizeof s->as_of, "%s", opts->as_of);
    }
    if (opts->query == HOODIE_QUERY_INCREMENTAL) {
        if (opts->as_of) rc = HOODIE_FAIL(HOODIE_EINVAL, "an incremental query takes --from/--to, not --as-of");
        else rc = incremental_window(s, opts->from, opts->to);
    }
    if (rc == HOODIE_OK && opts->filter && *opts->filter) {
        rc = hoodie_filter_parse(&s->filter, opts->filter);
        s->has_filter = rc == HOODIE_OK;
    }
    if (rc == HOODIE_OK && opts->columns) {
        s->columns = calloc(opts->n_columns + 1, sizeof *s->columns);
        if (!s->columns) rc = HOODIE_NOMEM();
        for (size_t i = 0; rc == HOODIE_OK && i < opts->n_columns; i++) {
            s->columns[i] = strdup(opts->columns[i]);
            if (!s->columns[i]) rc = HOODIE_NOMEM();
            else s->n_columns = i + 1;
        }
    }
    if (rc == HOODIE_OK && n_keys) {
        s->keys = calloc(n_keys, sizeof *s->keys);
        int buckets = t->cfg->lsm_tree && t->cfg->bucket_index && t->cfg->bucket_count > 0;
        if (buckets) s->key_buckets = calloc(n_keys, sizeof *s->key_buckets);
        if (!s->keys || (buckets && !s->key_buckets)) rc = HOODIE_NOMEM();
        for (size_t i = 0; rc == HOODIE_OK && i < n_keys; i++) {
            if (!(s->keys[i] = strdup(keys[i]))) { rc = HOODIE_NOMEM(); break; }
            s->n_keys = i + 1;
            if (buckets)
                s->key_buckets[i] = hoodie_bucket_id(keys[i], strlen(keys[i]), t->cfg->bucket_hash_fields.items,
                                                     t->cfg->bucket_hash_fields.count, t->cfg->bucket_count);
        }
    }
    if (rc == HOODIE_OK) rc = rli_groups(s);
    if (rc == HOODIE_OK) rc = load_colstats(s);
    if (rc == HOODIE_OK) rc = load_rollbacks(s);
    if (rc == HOODIE_OK && s->has_filter) rc = load_partition_schema(s);
    if (rc == HOODIE_OK)
        rc = hoodie_table__fsview(t, s->as_of[0] ? s->as_of : NULL, s->has_filter ? partition_filter : NULL, s,
                                  &s->view);
    if (rc == HOODIE_OK && !s->has_filter) rc = check_base_files(s);
    if (rc == HOODIE_OK) rc = build_schema(s);
    if (rc == HOODIE_OK) rc = si_groups(s);
    if (rc == HOODIE_OK) {
        s->key_col = hoodie_field_find(&s->full, "_hoodie_record_key");
        const char *ord = hoodie_table_ordering_field(t->cfg);
        s->ord_col = ord ? hoodie_field_find(&s->full, ord) : -1;
        s->del_col = hoodie_field_find(&s->full, "_hoodie_is_deleted");
        if (s->del_col >= 0 && s->full.children[s->del_col].type.id != HOODIE_TYPE_BOOL) s->del_col = -1;
        hoodie_delete_marker_of(t->cfg, &s->full, &s->marker);
        s->policy = hoodie_merge_policy_of(t->cfg);
        /* the output schema: project an empty batch */
        hoodie_batch empty, projected;
        rc = more_ordering_fields(s);
        if (rc == HOODIE_OK) rc = hoodie_batch_init(&empty, &s->full);
        if (rc == HOODIE_OK) {
            if (s->columns) {
                rc = hoodie_batch_project(&projected, &empty, (const char *const *)s->columns, s->n_columns);
                if (rc == HOODIE_OK) {
                    rc = hoodie_field_clone(&s->out_schema, &projected.schema);
                    hoodie_batch_dispose(&projected);
                }
            } else {
                rc = hoodie_field_clone(&s->out_schema, &s->full);
            }
            hoodie_batch_dispose(&empty);
        }
        if (rc == HOODIE_OK) rc = narrow_schema(s);
        if (rc == HOODIE_OK && s->has_filter) { /* check the filter's columns up front */
            hoodie_batch probe;
            rc = hoodie_batch_init(&probe, &s->full);
            if (rc == HOODIE_OK) { uint8_t k = 0; rc = hoodie_filter_eval(&s->filter, &probe, &k); hoodie_batch_dispose(&probe); }
        }
    }
    if (rc < 0) { scan_free(s); return rc; }
    *out = s;
    return HOODIE_OK;
}
