/* hoodie metadata: what a table's metadata table records (Hudi's CLI `metadata list-partitions`, `list-files`,
 * `validate-files`), and record index lookups. */
#include "cli.h"
#include "storage/storage.h"
#include "table/fsview.h"
#include "table/mdt.h"
#include "model/arrow.h"
#include "table/file_name.h"
#include "table/table.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/hash.h"
#include "write/mdt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void metadata_usage(FILE *out)
{
    fprintf(out,
            "usage: hoodie metadata TABLE partitions\n"
            "       hoodie metadata TABLE files [--partition P]\n"
            "       hoodie metadata TABLE validate\n"
            "       hoodie metadata TABLE init [--record-index [--secondary-index COLUMN[=NAME]]...]\n"
            "       hoodie metadata TABLE lookup KEY...\n"
            "       hoodie metadata TABLE lookup --secondary-index NAME VALUE...\n"
            "\n"
            "  What the table's metadata table (.hoodie/metadata) records, read by hoodie:\n"
            "  partitions  the partitions of its files partition (\"\" is printed as '.')\n"
            "  files       the files of each partition (or of P) with their sizes\n"
            "  validate    its files against a listing of storage: partitions and files on one side only, sizes\n"
            "              that differ; exit status 1 when they differ (files of writes that did not commit are\n"
            "              in storage only until rolled back). With a column_stats partition hoodie keeps: every\n"
            "              listed base file's statistics against its Parquet footer, and none of a file not listed;\n"
            "              with a record_index partition: every key of the snapshot where the index puts it (its\n"
            "              partition and file group), and no key the snapshot does not hold; with secondary\n"
            "              indexes (Hudi 1.x, layout V1): each one's entries against the snapshot's (record key,\n"
            "              value) pairs, both ways\n"
            "  lookup      where its record index puts each key (partition, file id, instant in epoch ms);\n"
            "              --secondary-index NAME (e.g. secondary_index_name_idx): the record keys the index\n"
            "              holds for each value (value, tab, key; '-' for none)\n"
            "  init        create one (a version 8 table without one, no instant pending): its files partition\n"
            "              lists every data file, its column_stats partition holds every base file's statistics\n"
            "              (a table with a schema), and hoodie's writes and services keep both in step from then on;\n"
            "              --record-index: a record_index partition too, every live key where it is (kept in step\n"
            "              likewise, insert_overwrite and delete_partition removing the replaced file groups' keys);\n"
            "              --secondary-index COLUMN[=NAME]: a secondary index of a string or integer column too\n"
            "              (partition secondary_index_NAME, NAME COLUMN_idx by default; kept in step by writes)\n");
}

typedef struct raw_list { char **names; uint64_t *sizes; size_t n, cap; int oom; } raw_list;

static int collect(const hoodie_dirent *e, void *payload)
{
    raw_list *l = payload;
    if (e->is_dir || !strcmp(e->name, ".hoodie_partition_metadata")) return 0;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        char **nn = realloc(l->names, nc * sizeof *nn);
        if (nn) l->names = nn;
        uint64_t *ns = realloc(l->sizes, nc * sizeof *ns);
        if (ns) l->sizes = ns;
        if (!nn || !ns) { l->oom = 1; return 1; }
        l->cap = nc;
    }
    if (!(l->names[l->n] = strdup(e->name))) { l->oom = 1; return 1; }
    l->sizes[l->n++] = e->size;
    return 0;
}

static void raw_dispose(raw_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->names[i]);
    free(l->names);
    free(l->sizes);
}

static const char *shown(const char *partition) { return *partition ? partition : "."; }

/* The files of one partition, by storage and by the metadata table: differences printed, their count returned. */
static long validate_partition(const hoodie_table *t, const char *partition, const hoodie_mdt_partition *mp,
                               hoodie_status *rc)
{
    raw_list l = { 0 };
    char *dir = NULL;
    size_t n = strlen(t->base_path) + strlen(partition) + 2;
    if (!(dir = malloc(n))) { *rc = HOODIE_NOMEM(); return 0; }
    snprintf(dir, n, *partition ? "%s/%s" : "%s", t->base_path, partition);
    *rc = t->storage->list(t->storage->ctx, dir, collect, &l);
    if (*rc == HOODIE_OK && l.oom) *rc = HOODIE_NOMEM();
    long diffs = 0;
    for (size_t i = 0; *rc == HOODIE_OK && i < l.n; i++) {
        hoodie_file_name fn;
        if (hoodie_file_name_parse(&fn, l.names[i]) == HOODIE_FILE_OTHER) continue; /* not a Hudi data file */
        const hoodie_mdt_file *m = NULL;
        for (size_t j = 0; mp && j < mp->count && !m; j++)
            if (!strcmp(mp->files[j].name, l.names[i])) m = &mp->files[j];
        if (!m) printf("only in storage: %s/%s (%llu bytes)\n", shown(partition), l.names[i],
                       (unsigned long long)l.sizes[i]), diffs++;
        else if (m->size != l.sizes[i])
            printf("size differs: %s/%s: %llu bytes in storage, %llu in the metadata table\n", shown(partition),
                   l.names[i], (unsigned long long)l.sizes[i], (unsigned long long)m->size), diffs++;
    }
    for (size_t j = 0; *rc == HOODIE_OK && mp && j < mp->count; j++) {
        size_t i = 0;
        while (i < l.n && strcmp(l.names[i], mp->files[j].name)) i++;
        if (i == l.n) printf("only in the metadata table: %s/%s (%llu bytes)\n", shown(partition),
                             mp->files[j].name, (unsigned long long)mp->files[j].size), diffs++;
    }
    raw_dispose(&l);
    free(dir);
    return diffs;
}

static int csrec_key_cmp(const void *a, const void *b)
{
    return strcmp(((const hoodie_mdt_csrec *)a)->key, ((const hoodie_mdt_csrec *)b)->key);
}

/* The column_stats partition (when hoodie keeps it) against the base files' footers: every base file the listing
 * has with the statistics its footer gives, no live statistics of a file it does not have. */
static long validate_cs(const hoodie_table *t, const hoodie_mdt_listing *l, long *checked, hoodie_status *rc)
{
    char **cols = NULL;
    size_t n_cols = 0, n_groups = 0;
    *rc = hoodie_write__cs_layout(t->storage, t->base_path, t->cfg, &cols, &n_cols, &n_groups);
    if (*rc == HOODIE_ENOTFOUND) {
        if (hoodie_mdt_listed(t->cfg, "column_stats")) /* listed, but not as hoodie keeps it: its next write drops it */
            printf("column_stats: not checked: %s\n", hoodie_error_last()->message);
        hoodie_error_clear();
        *rc = HOODIE_OK;
        return 0;
    }
    if (*rc < 0) return 0;
    hoodie_arena *a = NULL;
    hoodie_mdt_csrec **g = calloc(n_groups, sizeof *g);
    size_t *ng = calloc(n_groups, sizeof *ng);
    long diffs = 0;
    *rc = g && ng ? hoodie_arena_new(&a, NULL, 65536) : HOODIE_NOMEM();
    for (size_t i = 0; *rc == HOODIE_OK && i < n_groups; i++) {
        char fid[32];
        snprintf(fid, sizeof fid, "col-stats-%04u-0", (unsigned)i);
        *rc = hoodie_mdt_cs_group(t->storage, t->base_path, t->tl, fid, a, &g[i], &ng[i]);
    }
    /* live statistics of a file the listing does not have */
    hoodie_hmap listed = HOODIE_HMAP_INIT;
    if (*rc == HOODIE_OK) *rc = hoodie_hmap_init(&listed, 256);
    for (size_t p = 0; *rc == HOODIE_OK && p < l->count; p++)
        for (size_t f = 0; *rc == HOODIE_OK && f < l->partitions[p].count; f++) {
            const char *name = l->partitions[p].files[f].name;
            uint64_t *slot;
            int existed;
            *rc = hoodie_hmap_upsert(&listed, name, strlen(name), &slot, &existed);
        }
    for (size_t i = 0; *rc == HOODIE_OK && i < n_groups; i++)
        for (size_t k = 0; k < ng[i]; k++)
            if (!g[i][k].deleted && !hoodie_hmap_get(&listed, g[i][k].file, strlen(g[i][k].file)))
                printf("statistics of a file not listed: %s (%s)\n", g[i][k].file, g[i][k].column), diffs++;
    hoodie_hmap_dispose(&listed);
    hoodie_buf x = HOODIE_BUF_INIT, y = HOODIE_BUF_INIT;
    for (size_t p = 0; *rc == HOODIE_OK && p < l->count; p++) {
        const hoodie_mdt_partition *mp = &l->partitions[p];
        for (size_t f = 0; *rc == HOODIE_OK && f < mp->count; f++) {
            const char *name = mp->files[f].name;
            size_t len = strlen(name);
            hoodie_file_name fn;
            if (len < 8 || strcmp(name + len - 8, ".parquet") || hoodie_file_name_parse(&fn, name) != HOODIE_FILE_BASE)
                continue;
            char *path = malloc(strlen(t->base_path) + strlen(mp->path) + len + 3);
            if (!path) { *rc = HOODIE_NOMEM(); break; }
            sprintf(path, *mp->path ? "%s/%s/%s" : "%s%s/%s", t->base_path, mp->path, name);
            hoodie_mdt_csrec *recs;
            size_t nr;
            *rc = hoodie_write__cs_of_base_file(t->storage, path, shown(mp->path), (const char *const *)cols, n_cols,
                                                a, &recs, &nr);
            free(path);
            for (size_t k = 0; *rc == HOODIE_OK && k < nr; k++) {
                size_t gi = hoodie_mdt_key_group(recs[k].key, n_groups);
                const hoodie_mdt_csrec *m = bsearch(&recs[k], g[gi], ng[gi], sizeof *g[gi], csrec_key_cmp);
                (*checked)++;
                if (!m || m->deleted) {
                    printf("statistics missing: %s/%s (%s)\n", shown(mp->path), name, recs[k].column), diffs++;
                    continue;
                }
                x.len = y.len = 0;
                *rc = hoodie_write__cs_encode(&x, &recs[k], NULL);
                if (*rc == HOODIE_OK) *rc = hoodie_write__cs_encode(&y, m, NULL);
                if (*rc == HOODIE_OK && (x.len != y.len || memcmp(x.data, y.data, x.len)))
                    printf("statistics differ from the footer's: %s/%s (%s)\n", shown(mp->path), name,
                           recs[k].column), diffs++;
            }
        }
    }
    hoodie_buf_dispose(&x);
    hoodie_buf_dispose(&y);
    hoodie_arena_free(a);
    free(g);
    free(ng);
    for (size_t i = 0; i < n_cols; i++) free(cols[i]);
    free(cols);
    return diffs;
}

/* Every live key of the table's snapshot with its partition and file group (a base file's name gives its file
 * id; a log record's file name is the file id), onto *out; strings in `a`. */
static hoodie_status snapshot_keys(hoodie_table *t, hoodie_arena *a, hoodie_rli_changes *out)
{
    static const char *const cols[] = { "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name" };
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.columns = cols;
    so.n_columns = 3;
    struct ArrowArrayStream st;
    hoodie_arrow_reader ar;
    hoodie_status r = hoodie_table_scan(t, &so, &st);
    if (r == HOODIE_OK && (r = hoodie_arrow_reader_open(&ar, &st)) < 0 && st.release) st.release(&st);
    int open = r == HOODIE_OK;
    hoodie_batch b;
    while (r == HOODIE_OK && (r = hoodie_arrow_reader_next(&ar, &b)) == HOODIE_OK) {
        for (int64_t i = 0; r == HOODIE_OK && i < b.root.length; i++) {
            if (out->n == out->cap) {
                size_t nc = out->cap ? out->cap * 2 : 1024;
                hoodie_rli_change *v = realloc(out->v, nc * sizeof *v);
                if (!v) { r = HOODIE_NOMEM(); break; }
                out->v = v, out->cap = nc;
            }
            const char *v[3] = { NULL, NULL, NULL };
            for (int c = 0; c < 3 && r == HOODIE_OK; c++) {
                const hoodie_array *col = &b.root.children[c];
                size_t len = 0;
                const uint8_t *p = hoodie_array_is_valid(col, i) ? hoodie_array_bytes_at(col, i, &len) : NULL;
                const uint8_t *us = c == 2 && p ? memchr(p, '_', len) : NULL;
                if (us) len = (size_t)(us - p);
                v[c] = hoodie_arena_strndup(a, p ? (const char *)p : "", len);
                if (!v[c]) r = HOODIE_NOMEM();
            }
            if (r == HOODIE_OK) out->v[out->n++] = (hoodie_rli_change){ v[0], v[1], v[2] };
        }
        hoodie_batch_dispose(&b);
    }
    if (r == HOODIE_ITEROVER) r = HOODIE_OK;
    if (open) hoodie_arrow_reader_close(&ar);
    return r;
}

/* The record_index partition (when listed) against the snapshot: every live key where the index puts it (its
 * partition and file group), and no entry of a key the snapshot does not hold. *checked: the keys checked. */
static long validate_rli(hoodie_table *t, long *checked, hoodie_status *rc)
{
    if (!hoodie_mdt_listed(t->cfg, "record_index")) return 0;
    hoodie_arena *a = NULL;
    hoodie_rli_changes k = { NULL, 0, 0 };
    const char **keys = NULL;
    hoodie_mdt_location *locs = NULL;
    long diffs = 0, shown_diffs = 0;
    hoodie_status r = hoodie_arena_new(&a, NULL, 65536);
    if (r == HOODIE_OK) r = snapshot_keys(t, a, &k);
    if (r == HOODIE_OK) {
        keys = malloc((k.n + 1) * sizeof *keys);
        locs = calloc(k.n + 1, sizeof *locs);
        if (!keys || !locs) r = HOODIE_NOMEM();
    }
    for (size_t i = 0; r == HOODIE_OK && i < k.n; i++) keys[i] = k.v[i].key;
    if (r == HOODIE_OK) r = hoodie_mdt_record_index(t->storage, t->base_path, t->tl, keys, k.n, a, locs);
    size_t found = 0, live = 0;
    for (size_t i = 0; r == HOODIE_OK && i < k.n; i++) {
        const hoodie_rli_change *c = &k.v[i];
        found += locs[i].found != 0;
        if (locs[i].found && !strcmp(locs[i].file_id, c->file_id) && !strcmp(locs[i].partition, c->partition)) continue;
        if (shown_diffs++ < 20) {
            if (!locs[i].found) printf("record_index: key '%s' (%s, file group %s) not indexed\n", c->key,
                                       shown(c->partition), c->file_id);
            else printf("record_index: key '%s' in %s, file group %s; indexed in %s, file group %s\n", c->key,
                        shown(c->partition), c->file_id, shown(locs[i].partition), locs[i].file_id);
        }
        diffs++;
    }
    if (r == HOODIE_OK) r = hoodie_mdt_rli_live(t->storage, t->base_path, t->tl, &live);
    if (r == HOODIE_OK && live > found) {
        printf("record_index: %zu key(s) indexed that the snapshot does not hold\n", live - found);
        diffs += (long)(live - found);
    }
    if (r < 0) {
        *rc = r;
        diffs = 0;
    }
    *checked = (long)k.n;
    free(locs);
    free(keys);
    free(k.v);
    hoodie_arena_free(a);
    return diffs;
}

typedef struct si_pairs { hoodie_mdt_si_entry *v; size_t n, cap; } si_pairs;

/* The (record key, value) pairs of the snapshot for column `column` (non-null values), onto *out; strings in `a`.
 * HOODIE_EUNSUPPORTED when the column's type has no rendering of Java's toString() (hoodie_mdt_si_value). */
static hoodie_status snapshot_values(hoodie_table *t, const char *column, hoodie_arena *a, si_pairs *out)
{
    const char *cols[2] = { "_hoodie_record_key", column };
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.columns = cols;
    so.n_columns = 2;
    struct ArrowArrayStream st;
    hoodie_arrow_reader ar;
    hoodie_buf val = HOODIE_BUF_INIT;
    hoodie_status r = hoodie_table_scan(t, &so, &st);
    if (r == HOODIE_OK && (r = hoodie_arrow_reader_open(&ar, &st)) < 0 && st.release) st.release(&st);
    int open = r == HOODIE_OK;
    hoodie_batch b;
    while (r == HOODIE_OK && (r = hoodie_arrow_reader_next(&ar, &b)) == HOODIE_OK) {
        const hoodie_field *f = &b.schema.children[1];
        if (!hoodie_mdt_si_type_ok(&f->type)) {
            char tn[64];
            r = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "column %s of type %s: its values as Java renders them are not "
                            "reproduced", column, hoodie_type_name(&f->type, tn, sizeof tn));
        }
        for (int64_t i = 0; r == HOODIE_OK && i < b.root.length; i++) {
            val.len = 0;
            int got = hoodie_mdt_si_value(f, &b.root.children[1], i, &val);
            if (got < 0) { r = HOODIE_NOMEM(); break; }
            if (!got) continue; /* nulls are not indexed */
            if (out->n == out->cap) {
                size_t nc = out->cap ? out->cap * 2 : 1024;
                hoodie_mdt_si_entry *v = realloc(out->v, nc * sizeof *v);
                if (!v) { r = HOODIE_NOMEM(); break; }
                out->v = v, out->cap = nc;
            }
            size_t kl;
            const uint8_t *k = hoodie_array_bytes_at(&b.root.children[0], i, &kl);
            hoodie_mdt_si_entry *e = &out->v[out->n];
            e->record_key = hoodie_arena_strndup(a, (const char *)k, kl);
            e->secondary = hoodie_arena_strndup(a, (const char *)val.data, val.len);
            if (!e->record_key || !e->secondary) r = HOODIE_NOMEM();
            else out->n++;
        }
        hoodie_batch_dispose(&b);
    }
    if (r == HOODIE_ITEROVER) r = HOODIE_OK;
    if (open) hoodie_arrow_reader_close(&ar);
    hoodie_buf_dispose(&val);
    return r;
}

static int si_pair_cmp(const void *a, const void *b)
{
    const hoodie_mdt_si_entry *x = a, *y = b;
    int c = strcmp(x->record_key, y->record_key);
    return c ? c : strcmp(x->secondary, y->secondary);
}

/* Each secondary index hoodie reads against the snapshot: an entry for every (record key, value) pair of it, and
 * none other. *checked: the pairs checked; *n_idx: the indexes checked. */
static long validate_si(hoodie_table *t, long *checked, size_t *n_idx, hoodie_status *rc)
{
    hoodie_arena *a = NULL;
    hoodie_mdt_secondary *defs = NULL;
    size_t n_defs = 0;
    long diffs = 0;
    hoodie_status r = hoodie_arena_new(&a, NULL, 65536);
    if (r == HOODIE_OK) r = hoodie_mdt_secondary_indexes(t->storage, t->base_path, t->cfg, a, &defs, &n_defs);
    for (size_t d = 0; r == HOODIE_OK && d < n_defs; d++) {
        si_pairs snap = { NULL, 0, 0 };
        hoodie_mdt_si_entry *idx = NULL;
        size_t n_idx_e = 0, shown_diffs = 0;
        r = snapshot_values(t, defs[d].column, a, &snap);
        if (r == HOODIE_EUNSUPPORTED) {
            printf("%s: not checked (%s)\n", defs[d].name, hoodie_error__message());
            hoodie_error_clear();
            r = HOODIE_OK;
            free(snap.v);
            continue;
        }
        if (r == HOODIE_OK) r = hoodie_mdt_secondary_entries(t->storage, t->base_path, t->tl, defs[d].name, a, &idx,
                                                             &n_idx_e);
        if (r == HOODIE_OK && snap.n) qsort(snap.v, snap.n, sizeof *snap.v, si_pair_cmp);
        for (size_t i = 0, j = 0; r == HOODIE_OK && (i < snap.n || j < n_idx_e);) {
            int c = i == snap.n ? 1 : j == n_idx_e ? -1 : si_pair_cmp(&snap.v[i], &idx[j]);
            if (!c) { i++, j++; continue; }
            const hoodie_mdt_si_entry *e = c < 0 ? &snap.v[i++] : &idx[j++];
            if (shown_diffs++ < 20)
                printf("%s: key '%s' value '%s' %s\n", defs[d].name, e->record_key, e->secondary,
                       c < 0 ? "in the snapshot, not indexed" : "indexed, not in the snapshot");
            diffs++;
        }
        if (r == HOODIE_OK) *checked += (long)snap.n, ++*n_idx;
        free(snap.v);
        free(idx);
    }
    if (r < 0) *rc = r, diffs = 0;
    hoodie_arena_free(a);
    return diffs;
}

static int validate(hoodie_table *t, const hoodie_mdt_listing *l)
{
    /* the partitions storage has (folders holding .hoodie_partition_metadata) */
    hoodie_fsview *v = NULL;
    hoodie_fsview_opts o = { NULL, NULL, NULL, 0, NULL, NULL, NULL };
    hoodie_status rc = hoodie_fsview_build(&v, t->storage, t->base_path, t->cfg, t->tl, &o);
    if (rc < 0) return cli_fail(rc, NULL);
    long diffs = 0, files = 0;
    for (size_t p = 0; rc == HOODIE_OK && p < v->partition_count; p++) {
        const hoodie_mdt_partition *mp = NULL;
        for (size_t i = 0; i < l->count && !mp; i++)
            if (!strcmp(l->partitions[i].path, v->partitions[p])) mp = &l->partitions[i];
        if (!mp) printf("partition only in storage: %s\n", shown(v->partitions[p])), diffs++;
        diffs += validate_partition(t, v->partitions[p], mp, &rc);
    }
    for (size_t i = 0; rc == HOODIE_OK && i < l->count; i++) {
        files += (long)l->partitions[i].count;
        size_t p = 0;
        while (p < v->partition_count && strcmp(v->partitions[p], l->partitions[i].path)) p++;
        if (p < v->partition_count) continue;
        printf("partition only in the metadata table: %s\n", shown(l->partitions[i].path)), diffs++;
        diffs += validate_partition(t, l->partitions[i].path, &l->partitions[i], &rc);
    }
    hoodie_fsview_free(v);
    long cs_checked = 0, cs_diffs = rc == HOODIE_OK ? validate_cs(t, l, &cs_checked, &rc) : 0;
    long rli_checked = 0, rli_diffs = rc == HOODIE_OK ? validate_rli(t, &rli_checked, &rc) : 0;
    long si_checked = 0;
    size_t si_n = 0;
    long si_diffs = rc == HOODIE_OK ? validate_si(t, &si_checked, &si_n, &rc) : 0;
    if (rc < 0) return cli_fail(rc, NULL);
    printf("%zu partition(s), %ld file(s) in the metadata table; %ld difference(s) from storage\n", l->count, files,
           diffs);
    if (cs_checked || cs_diffs)
        printf("column_stats: %ld statistics of base files checked against their footers; %ld difference(s)\n",
               cs_checked, cs_diffs);
    if (hoodie_mdt_listed(t->cfg, "record_index"))
        printf("record_index: %ld key(s) of the snapshot checked; %ld difference(s)\n", rli_checked, rli_diffs);
    if (si_n || si_diffs)
        printf("secondary indexes: %zu checked, %ld (record key, value) pair(s) of the snapshot; %ld difference(s)\n",
               si_n, si_checked, si_diffs);
    return diffs || cs_diffs || rli_diffs || si_diffs ? 1 : CLI_OK;
}

/* A secondary index to create from `spec` ("COLUMN" or "COLUMN=NAME"): its partition name, column, and the keys of
 * the snapshot's records with a value (in `a`; *out->keys an array to free). */
static hoodie_status si_init_keys(hoodie_table *t, const char *spec, hoodie_arena *a, hoodie_si_init *out)
{
    const char *eq = strchr(spec, '=');
    size_t cl = eq ? (size_t)(eq - spec) : strlen(spec);
    const char *column = hoodie_arena_strndup(a, spec, cl);
    const char *name = eq ? hoodie_arena_sprintf(a, "secondary_index_%s", eq + 1)
                          : hoodie_arena_sprintf(a, "secondary_index_%.*s_idx", (int)cl, spec);
    if (!column || !name) return HOODIE_NOMEM();
    if (!cl || (eq && !eq[1]) || strchr(column, '.') || strpbrk(name, ",/ "))
        return HOODIE_FAIL(HOODIE_EINVAL, "--secondary-index '%s': COLUMN (a top-level one) or COLUMN=NAME", spec);
    si_pairs p = { NULL, 0, 0 };
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_status rc = snapshot_values(t, column, a, &p);
    const char **keys = rc == HOODIE_OK ? malloc((p.n + 1) * sizeof *keys) : NULL;
    if (rc == HOODIE_OK && !keys) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < p.n; i++) {
        b.len = 0;
        rc = hoodie_mdt_si_escape(&b, p.v[i].secondary, strlen(p.v[i].secondary));
        if (rc == HOODIE_OK && hoodie_buf_putc(&b, '$') < 0) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) rc = hoodie_mdt_si_escape(&b, p.v[i].record_key, strlen(p.v[i].record_key));
        if (rc == HOODIE_OK && !(keys[i] = hoodie_arena_strndup(a, (const char *)b.data, b.len))) rc = HOODIE_NOMEM();
    }
    if (rc == HOODIE_OK) *out = (hoodie_si_init){ name, column, keys, p.n };
    else free(keys);
    if (rc < 0) hoodie_error__prefix("secondary index on %s: ", column);
    free(p.v);
    hoodie_buf_dispose(&b);
    return rc;
}

int cmd_metadata(int argc, char **argv)
{
    const char *table = NULL, *what = NULL, *only = NULL;
    int record_index = 0;
    const char *secondary = NULL;
    const char **si_specs = calloc((size_t)argc + 1, sizeof *si_specs);
    size_t n_si_specs = 0;
    const char **keys = calloc((size_t)argc + 1, sizeof *keys);
    size_t n_keys = 0;
    if (!keys || !si_specs) { free(keys), free(si_specs); return cli_fail(HOODIE_ENOMEM, NULL); }
    int code = -1;
    for (int i = 1; i < argc && code < 0; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { metadata_usage(stdout); code = CLI_OK; }
        else if (!strcmp(a, "--record-index")) record_index = 1;
        else if (!strcmp(a, "--secondary-index")) {
            if (i + 1 >= argc) code = cli_usage("metadata: --secondary-index needs an index name (lookup) or a column "
                                                "(init)");
            else secondary = si_specs[n_si_specs++] = argv[++i];
        } else if (!strcmp(a, "--partition")) {
            if (i + 1 >= argc) code = cli_usage("metadata: --partition needs a partition path");
            else only = argv[++i];
        } else if (a[0] == '-' && a[1] == '-') code = cli_usage("metadata: unknown option '%s'", a);
        else if (!table) table = a;
        else if (!what) what = a;
        else if (!strcmp(what, "lookup")) keys[n_keys++] = a;
        else code = cli_usage("metadata: unexpected argument '%s'", a);
    }
    if (code < 0 && (!table || !what)) { metadata_usage(stderr); code = CLI_USAGE; }
    if (code < 0 && strcmp(what, "partitions") && strcmp(what, "files") && strcmp(what, "validate") &&
        strcmp(what, "lookup") && strcmp(what, "init"))
        code = cli_usage("metadata: unknown request '%s' (partitions, files, validate, lookup, init)", what);
    if (code < 0 && !strcmp(what, "lookup") && !n_keys) code = cli_usage("metadata: lookup needs keys");
    if (code < 0 && only && strcmp(what, "files")) code = cli_usage("metadata: --partition goes with files");
    if (code < 0 && record_index && strcmp(what, "init")) code = cli_usage("metadata: --record-index goes with init");
    if (code < 0 && secondary && strcmp(what, "lookup") && strcmp(what, "init"))
        code = cli_usage("metadata: --secondary-index goes with lookup or init");
    if (code < 0 && secondary && !strcmp(what, "lookup") && n_si_specs > 1)
        code = cli_usage("metadata: lookup takes one --secondary-index");
    if (code < 0 && n_si_specs && !strcmp(what, "init") && !record_index)
        code = cli_usage("metadata: a secondary index needs the record index (--record-index)");
    if (code >= 0) { free(keys), free(si_specs); return code; }

    hoodie_table *t = NULL;
    hoodie_status rc = hoodie_table_open(&t, table, NULL);
    if (rc == HOODIE_OK && !strcmp(what, "init")) {
        int64_t files = 0;
        hoodie_arena *a = NULL;
        hoodie_rli_changes k = { NULL, 0, 0 };
        char mark[HOODIE_TIMELINE_MARK_MAX];
        hoodie_si_init *si = calloc(n_si_specs + 1, sizeof *si);
        if (!si) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK && record_index) { /* the keys of the table as it is now (init checks it still is) */
            hoodie_write__timeline_mark(t->tl, mark);
            rc = hoodie_arena_new(&a, NULL, 65536);
            if (rc == HOODIE_OK) rc = snapshot_keys(t, a, &k);
        }
        for (size_t i = 0; rc == HOODIE_OK && i < n_si_specs; i++) rc = si_init_keys(t, si_specs[i], a, &si[i]);
        if (rc == HOODIE_OK)
            rc = hoodie_write__mdt_init_indexes(t->storage, t->base_path, &files, record_index ? &k : NULL, mark, si,
                                                n_si_specs);
        if (rc == HOODIE_OK) printf("metadata table created: %lld file(s) listed\n", (long long)files);
        if (rc == HOODIE_OK && record_index) printf("record index: %zu key(s)\n", k.n);
        for (size_t i = 0; rc == HOODIE_OK && i < n_si_specs; i++)
            printf("%s on %s: %zu entries\n", si[i].name, si[i].column, si[i].n);
        for (size_t i = 0; si && i < n_si_specs; i++) free((void *)si[i].keys);
        free(si);
        free(si_specs);
        free(k.v);
        hoodie_arena_free(a);
        hoodie_table_free(t);
        free(keys);
        return rc < 0 ? cli_fail(rc, NULL) : CLI_OK;
    }
    const char *needs = secondary ? secondary : !strcmp(what, "lookup") ? "record_index" : "files";
    if (rc == HOODIE_OK && !hoodie_mdt_listed(t->cfg, needs))
        rc = HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: hoodie.table.metadata.partitions does not list %s", table, needs);
    if (rc == HOODIE_OK && secondary) {
        hoodie_arena *a = NULL;
        hoodie_mdt_secondary *defs = NULL;
        size_t n_defs = 0, d = 0;
        rc = hoodie_arena_new(&a, NULL, 4096);
        if (rc == HOODIE_OK) rc = hoodie_mdt_secondary_indexes(t->storage, t->base_path, t->cfg, a, &defs, &n_defs);
        while (rc == HOODIE_OK && d < n_defs && strcmp(defs[d].name, secondary)) d++;
        if (rc == HOODIE_OK && d == n_defs)
            rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: %s is not a secondary index hoodie reads (an index definition "
                             "of type secondary_index, layout V1, on one top-level field)", table, secondary);
        for (size_t i = 0; rc == HOODIE_OK && i < n_keys; i++) {
            const char **found = NULL;
            size_t n_found = 0;
            rc = hoodie_mdt_secondary_keys(t->storage, t->base_path, t->tl, secondary, &keys[i], 1, a, &found,
                                           &n_found);
            for (size_t k = 0; rc == HOODIE_OK && k < n_found; k++) printf("%s\t%s\n", keys[i], found[k]);
            if (rc == HOODIE_OK && !n_found) printf("%s\t-\n", keys[i]);
            free(found);
        }
        hoodie_arena_free(a);
        code = rc < 0 ? cli_fail(rc, NULL) : CLI_OK;
    } else if (rc == HOODIE_OK && !strcmp(what, "lookup")) {
        hoodie_arena *a = NULL;
        hoodie_mdt_location *locs = calloc(n_keys, sizeof *locs);
        rc = locs ? hoodie_arena_new(&a, NULL, 4096) : HOODIE_NOMEM();
        if (rc == HOODIE_OK) rc = hoodie_mdt_record_index(t->storage, t->base_path, t->tl, keys, n_keys, a, locs);
        for (size_t i = 0; rc == HOODIE_OK && i < n_keys; i++) {
            if (locs[i].found)
                printf("%s\t%s\t%s\t%lld\n", keys[i], shown(locs[i].partition), locs[i].file_id,
                       (long long)locs[i].instant_ms);
            else printf("%s\t-\n", keys[i]);
        }
        hoodie_arena_free(a);
        free(locs);
        code = rc < 0 ? cli_fail(rc, NULL) : CLI_OK;
    } else if (rc == HOODIE_OK) {
        hoodie_mdt_listing *l = NULL;
        rc = hoodie_mdt_files(&l, t->storage, t->base_path, t->tl);
        if (rc < 0) code = cli_fail(rc, NULL);
        else if (!strcmp(what, "validate")) code = validate(t, l);
        else {
            int found = !only;
            for (size_t i = 0; i < l->count; i++) {
                const hoodie_mdt_partition *p = &l->partitions[i];
                if (!strcmp(what, "partitions")) { printf("%s\n", shown(p->path)); continue; }
                if (only && strcmp(only, p->path) && strcmp(only, shown(p->path))) continue;
                found = 1;
                for (size_t j = 0; j < p->count; j++)
                    printf("%s\t%s\t%llu\n", shown(p->path), p->files[j].name, (unsigned long long)p->files[j].size);
            }
            code = found ? CLI_OK : cli_usage("metadata: the metadata table has no partition '%s'", only);
        }
        hoodie_mdt_listing_free(l);
    } else {
        code = cli_fail(rc, NULL);
    }
    hoodie_table_free(t);
    free(keys);
    free(si_specs);
    return code;
}
