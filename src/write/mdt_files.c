/* Keeping the metadata table in step with the table's commits: the records of an instant, its deltacommit, compaction
 * and rollback (see mdt.h; which partitions are kept: mdt_conf.c). */
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

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static hoodie_status remove_if_exists(const hoodie_storage *s, const char *path);

/* ---- the records of an instant ---- */


void hoodie_mdtw__changes_dispose(changes *c)
{
    hoodie_mdtw__cs_conf_dispose(c->csc);
    hoodie_mdtw__rli_conf_free(c->rli);
    free(c->rc.v);
    free(c->contested.v);
    for (size_t i = 0; c->sic && c->si && i < c->si->n; i++) free(c->sic[i].v);
    free(c->sic);
    hoodie_mdtw__si_conf_free(c->si);
    free(c->cs);
    hoodie_arena_free(c->a);
    for (size_t i = 0; i < c->n; i++) free(c->v[i].partition), free(c->v[i].name);
    free(c->v);
    for (size_t i = 0; i < c->n_parts; i++) free(c->parts[i]);
    free(c->parts);
}

static const char *mdt_partition(const char *p) { return p && *p ? p : "."; }

/* A partition for __all_partitions__ (repeats of the last one skipped here, the others by hoodie_mdtw__build_hfile). */
hoodie_status hoodie_mdtw__add_part(changes *c, const char *partition)
{
    const char *p = mdt_partition(partition);
    if (c->n_parts && !strcmp(c->parts[c->n_parts - 1], p)) return HOODIE_OK;
    char **v = realloc(c->parts, (c->n_parts + 1) * sizeof *v);
    if (!v) return HOODIE_NOMEM();
    c->parts = v;
    if (!(v[c->n_parts] = strdup(p))) return HOODIE_NOMEM();
    c->n_parts++;
    return HOODIE_OK;
}

/* The file name of `path` (relative to the base path). */
static const char *base_name(const char *path)
{
    const char *sl = strrchr(path, '/');
    return sl ? sl + 1 : path;
}

hoodie_status hoodie_mdtw__add_file(changes *c, const char *partition, const char *name, int64_t size, int deleted)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 32;
        fchange *v = realloc(c->v, nc * sizeof *v);
        if (!v) return HOODIE_NOMEM();
        c->v = v, c->cap = nc;
    }
    fchange *f = &c->v[c->n];
    f->partition = strdup(mdt_partition(partition));
    f->name = strdup(name);
    if (!f->partition || !f->name) { free(f->partition), free(f->name); return HOODIE_NOMEM(); }
    f->size = size;
    f->deleted = deleted;
    c->n++;
    return hoodie_mdtw__add_part(c, partition);
}

static int fchange_cmp(const void *a, const void *b)
{
    const fchange *x = a, *y = b;
    int r = strcmp(x->partition, y->partition);
    return r ? r : strcmp(x->name, y->name);
}

static hoodie_status cs_push(changes *c, const hoodie_mdt_csrec *r)
{
    return hoodie_write__cs_push(&c->cs, &c->n_cs, &c->cap_cs, r);
}

/* The statistics of a base file the instant wrote (its path relative to the base path); log files have none
 * (readers take a file without statistics as one to read). */
hoodie_status hoodie_mdtw__cs_of_written(changes *c, const char *partition, const char *rel)
{
    hoodie_file_name fn;
    if (hoodie_file_name_parse(&fn, base_name(rel)) != HOODIE_FILE_BASE) return HOODIE_OK;
    size_t len = strlen(rel);
    if (len < 8 || strcmp(rel + len - 8, ".parquet")) return HOODIE_OK;
    if (!c->a) HOODIE_TRY(hoodie_arena_new(&c->a, NULL, 65536));
    char *path = hoodie_write__path(c->base_path, rel);
    if (!path) return HOODIE_NOMEM();
    hoodie_mdt_csrec *recs;
    size_t n;
    hoodie_status rc = hoodie_write__cs_of_base_file(c->s, path, mdt_partition(partition),
                                                     (const char *const *)c->csc->columns, c->csc->n_columns, c->a,
                                                     &recs, &n);
    free(path);
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) rc = cs_push(c, &recs[i]);
    return rc;
}

/* A removed file's tombstones, one per column (HoodieColumnRangeMetadata.stub: no bounds, counts -1). */
static hoodie_status cs_tombstones(changes *c, const char *partition, const char *name)
{
    if (!c->a) HOODIE_TRY(hoodie_arena_new(&c->a, NULL, 65536));
    hoodie_buf key = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < c->csc->n_columns; i++) {
        hoodie_mdt_csrec r;
        memset(&r, 0, sizeof r);
        key.len = 0;
        rc = hoodie_write__cs_key(&key, c->csc->columns[i], mdt_partition(partition), name);
        if (rc < 0) break;
        r.key = hoodie_arena_strndup(c->a, (const char *)key.data, key.len);
        r.file = hoodie_arena_strdup(c->a, name);
        r.column = c->csc->columns[i];
        r.value_count = r.null_count = r.total_size = r.total_uncompressed_size = -1;
        r.deleted = 1;
        rc = r.key && r.file ? cs_push(c, &r) : HOODIE_NOMEM();
    }
    hoodie_buf_dispose(&key);
    return rc;
}

/* A written file's entry: the largest size reported for it (HoodieTableMetadataUtil keeps the max). */
static hoodie_status from_commit(changes *c, const void *content, size_t len, const char *what,
                                 hoodie_action action, int located)
{
    hoodie_commit_meta *m = NULL;
    HOODIE_TRY(hoodie_commit_meta_decode(&m, content, len, what));
    hoodie_status rc = HOODIE_OK;
    /* the record index: a compaction moves no record, but its base file drops the keys its logs deleted (the
     * index may hold one still: an update that lost to a delete by the ordering field, and was put back); log
     * compaction changes nothing; clustering moves them all; a replace that overwrites file groups
     * (insert_overwrite, delete_partition) removes the replaced groups' keys */
    if (c->rli && action != HOODIE_ACTION_LOGCOMPACTION) {
        int moved = action == HOODIE_ACTION_CLUSTERING ||
                    (m->operation_type && !strcmp(m->operation_type, "CLUSTER"));
        hoodie_table_config *cfg = NULL;
        hoodie_timeline *tl = NULL;
        if (!c->a) rc = hoodie_arena_new(&c->a, NULL, 65536);
        if (rc == HOODIE_OK) rc = hoodie_table_config_load(&cfg, c->s, c->base_path, 0);
        if (rc == HOODIE_OK) rc = hoodie_timeline_load(&tl, c->s, c->base_path, cfg);
        if (rc == HOODIE_OK)
            rc = hoodie_write__rli_changes(&c->rc, c->s, c->base_path, tl, m, moved, located, c->a,
                                           c->want_contested ? &c->contested : NULL);
        hoodie_timeline_free(tl);
        hoodie_table_config_free(cfg);
    }
    c->all_record = 1;
    for (size_t i = 0; rc == HOODIE_OK && i < m->stat_count; i++) {
        const hoodie_write_stat *st = &m->stats[i];
        rc = hoodie_mdtw__add_part(c, st->partition_path);
        if (rc == HOODIE_OK && st->path && *st->path && st->file_size_in_bytes > 0)
            rc = hoodie_mdtw__add_file(c, st->partition_path, base_name(st->path), st->file_size_in_bytes, 0);
        if (rc == HOODIE_OK && c->csc && st->path && *st->path && st->file_size_in_bytes > 0)
            rc = hoodie_mdtw__cs_of_written(c, st->partition_path, st->path);
        for (size_t k = 0; rc == HOODIE_OK && k < st->cdc_file_count; k++)
            if (st->cdc_sizes[k] > 0) rc = hoodie_mdtw__add_file(c, st->partition_path, base_name(st->cdc_files[k]), st->cdc_sizes[k], 0);
    }
    hoodie_commit_meta_free(m);
    return rc;
}

static hoodie_status from_clean(changes *c, const void *content, size_t len, const char *what)
{
    hoodie_clean_meta *m = NULL;
    HOODIE_TRY(hoodie_clean_meta_decode(&m, content, len, what));
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < m->partition_count; i++) {
        const hoodie_partition_files *p = &m->partitions[i];
        rc = hoodie_mdtw__add_part(c, p->partition_path);
        for (size_t k = 0; rc == HOODIE_OK && k < p->count; k++) {
            rc = hoodie_mdtw__add_file(c, p->partition_path, base_name(p->files[k]), 0, 1);
            if (rc == HOODIE_OK && c->csc) rc = cs_tombstones(c, p->partition_path, base_name(p->files[k]));
        }
    }
    hoodie_clean_meta_free(m);
    return rc;
}

/* HoodieMetadataRecord, Avro binary: five null meta fields, key "" (the HFile row is the key), type,
 * filesystemMetadata {name: {size, isDeleted}}, and null bloom filter, column stats, record index and secondary
 * index entries. */
static hoodie_status encode_record(hoodie_buf *b, int type, const fchange *files, size_t n, char *const *names,
                                   size_t n_names, const char *file_name)
{
    static const uint8_t nulls[4] = { 0, 0, 0, 0 }; /* commit time, sequence number, record key, partition path */
    HOODIE_TRY(hoodie_buf_append(b, nulls, 4));
    if (file_name) { /* a base file's records name it */
        HOODIE_TRY(hoodie_avro_write_long(b, 1));
        HOODIE_TRY(hoodie_avro_write_bytes(b, file_name, strlen(file_name)));
    } else {
        HOODIE_TRY(hoodie_buf_putc(b, 0));
    }
    HOODIE_TRY(hoodie_buf_putc(b, 0)); /* key "" */
    HOODIE_TRY(hoodie_avro_write_long(b, type));
    HOODIE_TRY(hoodie_avro_write_long(b, 1)); /* the map branch */
    size_t count = files ? n : n_names;
    if (count) {
        HOODIE_TRY(hoodie_avro_write_long(b, (int64_t)count));
        for (size_t i = 0; i < count; i++) {
            const char *name = files ? files[i].name : names[i];
            HOODIE_TRY(hoodie_avro_write_bytes(b, name, strlen(name)));
            HOODIE_TRY(hoodie_avro_write_long(b, files ? files[i].size : 0));
            HOODIE_TRY(hoodie_buf_putc(b, files ? (uint8_t)files[i].deleted : 0));
        }
    }
    HOODIE_TRY(hoodie_buf_putc(b, 0)); /* end of the map */
    static const uint8_t tail[4] = { 0, 0, 0, 0 };
    return hoodie_buf_append(b, tail, 4);
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static hoodie_status to_buf(void *ctx, const uint8_t *p, size_t n) { return hoodie_buf_append(ctx, p, n); }

/* The schema the MDT's HFiles and log blocks carry: the record with the meta fields first. */
hoodie_status hoodie_mdtw__schema_with_meta(hoodie_buf *out)
{
    const char *s = hoodie_write__mdt_schema, *at = strstr(s, "\"fields\":[");
    if (!at) return HOODIE_FAIL(HOODIE_EINVAL, "metadata table schema without fields");
    at += strlen("\"fields\":[");
    HOODIE_TRY(hoodie_buf_append(out, s, (size_t)(at - s)));
    HOODIE_TRY(hoodie_buf_append_str(out, hoodie_write__mdt_meta_fields));
    return hoodie_buf_append_str(out, at);
}

/* The cells of an HFile: keys in order, values in one buffer. */
typedef struct cell {
    const char *key;
    size_t off, len;
} cell;

typedef struct cells {
    cell *v;
    size_t n, cap;
    hoodie_buf vals;
} cells;

static void cells_dispose(cells *c)
{
    free(c->v);
    hoodie_buf_dispose(&c->vals);
    memset(c, 0, sizeof *c);
}

/* A cell whose value is the bytes of vals from `off` on; `key` is borrowed. */
static hoodie_status cells_push(cells *c, const char *key, size_t off)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 64;
        cell *v = realloc(c->v, nc * sizeof *v);
        if (!v) return HOODIE_NOMEM();
        c->v = v, c->cap = nc;
    }
    c->v[c->n++] = (cell){ key, off, c->vals.len - off };
    return HOODIE_OK;
}

/* An HFile of the cells (their keys in order), the records' schema in its file info; `base_file`: a base file's
 * name (min/max record keys and a bloom filter of its keys go with it, as HoodieAvroHFileWriter closes one), NULL
 * for a log block's. */
static hoodie_status write_cells(const cells *c, const hoodie_buf *schema, const char *base_file, hoodie_buf *out)
{
    hoodie_hfile_writer *hw;
    hoodie_hfile_writer_opts o = { 0, 0, 1, NULL, 0 };
    HOODIE_TRY(hoodie_hfile_writer_new(&hw, &o, to_buf, out));
    hoodie_buf text = HOODIE_BUF_INIT;
    hoodie_bloom bloom;
    memset(&bloom, 0, sizeof bloom);
    hoodie_status rc = HOODIE_OK;
    if (base_file) rc = hoodie_bloom_init(&bloom, HOODIE_BLOOM_DYNAMIC_V0, 60000, 0.000000001, 100000);
    for (size_t i = 0; rc == HOODIE_OK && i < c->n; i++) {
        const char *k = c->v[i].key;
        if (base_file) rc = hoodie_bloom_add(&bloom, k, strlen(k));
        if (rc == HOODIE_OK)
            rc = hoodie_hfile_writer_add(hw, (const uint8_t *)k, strlen(k), c->vals.data + c->v[i].off, c->v[i].len);
    }
    if (rc == HOODIE_OK) rc = hoodie_hfile_writer_info(hw, "schema", schema->data, schema->len);
    if (rc == HOODIE_OK && base_file) {
        const char *first = c->n ? c->v[0].key : "", *last = c->n ? c->v[c->n - 1].key : "";
        rc = hoodie_bloom_to_base64(&bloom, &text);
        if (rc == HOODIE_OK) rc = hoodie_hfile_writer_meta(hw, "bloomFilter", text.data, text.len);
        if (rc == HOODIE_OK)
            rc = hoodie_hfile_writer_info(hw, "bloomFilterTypeCode", (const uint8_t *)"DYNAMIC_V0", 10);
        if (rc == HOODIE_OK) rc = hoodie_hfile_writer_info(hw, "minRecordKey", (const uint8_t *)first, strlen(first));
        if (rc == HOODIE_OK) rc = hoodie_hfile_writer_info(hw, "maxRecordKey", (const uint8_t *)last, strlen(last));
    }
    if (rc == HOODIE_OK) rc = hoodie_hfile_writer_finish(hw);
    hoodie_hfile_writer_free(hw);
    if (base_file) hoodie_bloom_dispose(&bloom);
    hoodie_buf_dispose(&text);
    return rc;
}

/* The HFile of the records (sorted by key: the partitions' records and __all_partitions__). `file_name`: a base
 * file's (its records name it), NULL for a log block's. */
hoodie_status hoodie_mdtw__build_hfile(changes *c, const hoodie_buf *schema, const char *file_name, hoodie_buf *out,
                                 int64_t *records)
{
    if (c->n) qsort(c->v, c->n, sizeof *c->v, fchange_cmp);
    /* one entry per file: the largest size; a deletion wins over an addition in one instant */
    size_t w = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (w && !fchange_cmp(&c->v[w - 1], &c->v[i])) {
            fchange *p = &c->v[w - 1];
            if (c->v[i].size > p->size) p->size = c->v[i].size;
            p->deleted |= c->v[i].deleted;
            free(c->v[i].partition), free(c->v[i].name);
            continue;
        }
        c->v[w++] = c->v[i];
    }
    c->n = w;
    if (c->n_parts) qsort(c->parts, c->n_parts, sizeof *c->parts, str_cmp);
    w = 0;
    for (size_t i = 0; i < c->n_parts; i++) {
        if (w && !strcmp(c->parts[w - 1], c->parts[i])) { free(c->parts[i]); continue; }
        c->parts[w++] = c->parts[i];
    }
    c->n_parts = w;
    cells cl;
    memset(&cl, 0, sizeof cl);
    hoodie_status rc = HOODIE_OK;
    /* keys in byte order: partition paths and "__all_partitions__" interleave */
    size_t f = 0;
    int all_done = !c->all_record;
    for (size_t p = 0; rc == HOODIE_OK && (p < c->n_parts || !all_done); ) {
        const char *key = p < c->n_parts ? c->parts[p] : NULL;
        size_t off = cl.vals.len;
        if (!all_done && (!key || strcmp(ALL_PARTITIONS, key) < 0)) {
            rc = encode_record(&cl.vals, 1, NULL, 0, c->parts, c->n_parts, file_name);
            if (rc == HOODIE_OK) rc = cells_push(&cl, ALL_PARTITIONS, off);
            all_done = 1;
            continue;
        }
        size_t start = f;
        while (f < c->n && !strcmp(c->v[f].partition, key)) f++;
        rc = encode_record(&cl.vals, 2, c->v + start, f - start, NULL, 0, file_name);
        if (rc == HOODIE_OK) rc = cells_push(&cl, key, off);
        p++;
    }
    *records = (int64_t)cl.n;
    if (rc == HOODIE_OK) rc = write_cells(&cl, schema, file_name, out);
    cells_dispose(&cl);
    return rc;
}

/* The HFile of column_stats records (sorted by key; tombstones and deleted records left out of a base file). */
hoodie_status hoodie_mdtw__build_cs_hfile(const hoodie_mdt_csrec *recs, size_t n, const hoodie_buf *schema,
                                    const char *file_name, hoodie_buf *out, int64_t *records)
{
    cells cl;
    memset(&cl, 0, sizeof cl);
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        if (file_name && (!recs[i].key || recs[i].deleted)) continue;
        size_t off = cl.vals.len;
        rc = hoodie_write__cs_encode(&cl.vals, &recs[i], file_name);
        if (rc == HOODIE_OK) rc = cells_push(&cl, recs[i].key, off);
    }
    *records = (int64_t)cl.n;
    if (rc == HOODIE_OK) rc = write_cells(&cl, schema, file_name, out);
    cells_dispose(&cl);
    return rc;
}

/* The HFile of record index entries recs[0..n) (sorted by key); `file_name`: a base file's, NULL for a log
 * block's. */
hoodie_status hoodie_mdtw__build_rli_hfile(const hoodie_mdt_rlirec *recs, size_t n, const hoodie_buf *schema,
                                     const char *file_name, hoodie_buf *out, int64_t *records)
{
    cells cl;
    memset(&cl, 0, sizeof cl);
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        size_t off = cl.vals.len;
        rc = hoodie_write__rli_encode(&cl.vals, recs[i].ri, recs[i].ri_len, file_name);
        if (rc == HOODIE_OK) rc = cells_push(&cl, recs[i].key, off);
    }
    *records = (int64_t)cl.n;
    if (rc == HOODIE_OK) rc = write_cells(&cl, schema, file_name, out);
    cells_dispose(&cl);
    return rc;
}

/* The HFile of secondary index keys[0..n) (sorted; live entries); `file_name`: a base file's, NULL for a log
 * block's. */
hoodie_status hoodie_mdtw__build_si_hfile(const char *const *keys, size_t n, const hoodie_buf *schema,
                                          const char *file_name, hoodie_buf *out, int64_t *records)
{
    cells cl;
    memset(&cl, 0, sizeof cl);
    hoodie_status rc = hoodie_mdtw__si_encode(&cl.vals, 0, file_name); /* every entry's value: these bytes */
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) rc = cells_push(&cl, keys[i], 0);
    *records = (int64_t)cl.n;
    if (rc == HOODIE_OK) rc = write_cells(&cl, schema, file_name, out);
    cells_dispose(&cl);
    return rc;
}

/* A DELETE_BLOCK of instant t removing keys[0..n) from the record index, appended to out. */
static hoodie_status part_delete_block(hoodie_buf *out, const char *t, const hoodie_buf *schema, const char *part,
                                       const char *const *keys, size_t n)
{
    hoodie_hlog_delete *d = calloc(n + 1, sizeof *d);
    if (!d) return HOODIE_NOMEM();
    for (size_t i = 0; i < n; i++) {
        d[i].record_key = keys[i];
        d[i].partition_path = part; /* the index's partition, as Hudi's MDT writer names it */
        d[i].ord_type = HOODIE_HLOG_ORD_INT;
    }
    hoodie_hlog_header_entry h[2] = { { HOODIE_HLOG_INSTANT_TIME, t, strlen(t) },
                                      { HOODIE_HLOG_SCHEMA, (const char *)schema->data, schema->len } };
    hoodie_status rc = hoodie_hlog_write_delete_block(out, h, 2, d, n);
    free(d);
    return rc;
}

/* A transaction over instant `time` of `action` on the MDT at `mdt` (config mc): its requested file written (with
 * `content`), exclusively. */
hoodie_status hoodie_mdtw__mdt_begin(hoodie_write_txn *tx, const hoodie_storage *s, const char *mdt,
                               const hoodie_table_config *mc, const char *time, hoodie_action action,
                               const void *content, size_t len)
{
    tx->s = s;
    tx->mdt = -1; /* the metadata table's own instant */
    tx->table_version = 8;
    tx->layout = mc->timeline_layout_version;
    tx->utc = mc->timeline_timezone_utc;
    tx->base_path = hoodie_write__path(mdt, "");
    tx->timeline_dir = hoodie_write__path(mdt, mc->timeline_dir);
    if (!tx->base_path || !tx->timeline_dir) return HOODIE_NOMEM();
    snprintf(tx->inst.requested, sizeof tx->inst.requested, "%.23s", time);
    tx->inst.action = tx->inst.plan_action = action;
    char name[128];
    HOODIE_TRY(hoodie_instant_file_name(&tx->inst, HOODIE_STATE_REQUESTED, tx->layout, name, sizeof name));
    char *path = hoodie_write__path(tx->timeline_dir, name);
    if (!path) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_storage_write_all(s, path, HOODIE_CREATE_EXCLUSIVE, content, len);
    free(path);
    if (rc == HOODIE_OK) tx->inst.state = HOODIE_STATE_REQUESTED;
    return rc;
}

/* The file `name` of MDT partition `part`, after its marker: `bytes`, created exclusively; *rel gets
 * "<part>/<name>". */
hoodie_status hoodie_mdtw__put_part_file(hoodie_write_txn *tx, const char *mdt, const char *part, const char *name,
                                   const hoodie_buf *bytes, hoodie_marker_type type, hoodie_buf *rel)
{
    HOODIE_TRY(hoodie_write__marker(tx, part, name, type));
    rel->len = 0;
    HOODIE_TRY(hoodie_buf_printf(rel, "%s/%s", part, name));
    char *path = hoodie_write__path(mdt, (const char *)rel->data);
    if (!path) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_storage_write_all(tx->s, path, HOODIE_CREATE_EXCLUSIVE, bytes->data, bytes->len);
    free(path);
    return rc;
}

hoodie_status hoodie_mdtw__put_file(hoodie_write_txn *tx, const char *mdt, const char *name, const hoodie_buf *bytes,
                              hoodie_marker_type type, hoodie_buf *rel)
{
    return hoodie_mdtw__put_part_file(tx, mdt, "files", name, bytes, type, rel);
}

/* ---- compaction of the files partition ---- */

#define COMPACT_AFTER 10 /* hoodie.metadata.compact.max.delta.commits */

int hoodie_write__mdt_compact_after = COMPACT_AFTER;

static int kept_partition(void *ctx, const char *partition)
{
    (void)ctx;
    return !strcmp(partition, "files") || !strcmp(partition, CS_PART) || !strcmp(partition, RLI_PART) ||
           !strncmp(partition, SI_PART_PREFIX, strlen(SI_PART_PREFIX));
}

/* The live listing as records: __all_partitions__ and one record per partition. */
static hoodie_status changes_of_listing(changes *c, const hoodie_mdt_listing *l)
{
    c->all_record = 1;
    for (size_t p = 0; p < l->count; p++) {
        const hoodie_mdt_partition *part = &l->partitions[p];
        HOODIE_TRY(hoodie_mdtw__add_part(c, part->path));
        for (size_t i = 0; i < part->count; i++)
            HOODIE_TRY(hoodie_mdtw__add_file(c, part->path, part->files[i].name, (int64_t)part->files[i].size, 0));
    }
    return HOODIE_OK;
}

hoodie_status hoodie_write__mdt_base_hfile(const hoodie_mdt_listing *l, const char *file_name, hoodie_buf *out)
{
    changes ch;
    memset(&ch, 0, sizeof ch);
    hoodie_buf schema = HOODIE_BUF_INIT;
    int64_t records;
    hoodie_status rc = changes_of_listing(&ch, l);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__schema_with_meta(&schema);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__build_hfile(&ch, &schema, file_name, out, &records);
    hoodie_mdtw__changes_dispose(&ch);
    hoodie_buf_dispose(&schema);
    return rc;
}

hoodie_status hoodie_write__cs_base_hfile(const hoodie_mdt_csrec *recs, size_t n, const char *file_name,
                                         hoodie_buf *out)
{
    hoodie_buf schema = HOODIE_BUF_INIT;
    int64_t records;
    hoodie_status rc = hoodie_mdtw__schema_with_meta(&schema);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__build_cs_hfile(recs, n, &schema, file_name, out, &records);
    hoodie_buf_dispose(&schema);
    return rc;
}

hoodie_status hoodie_mdtw__delete_block(hoodie_buf *out, const char *t, const char *part, const char *const *keys,
                                        size_t n)
{
    hoodie_buf schema = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_mdtw__schema_with_meta(&schema);
    if (rc == HOODIE_OK) rc = part_delete_block(out, t, &schema, part, keys, n);
    hoodie_buf_dispose(&schema);
    return rc;
}

hoodie_status hoodie_write__rli_delete_block(hoodie_buf *out, const char *t, const char *const *keys, size_t n)
{
    return hoodie_mdtw__delete_block(out, t, RLI_PART, keys, n);
}

hoodie_status hoodie_write__rli_base_hfile(const hoodie_mdt_rlirec *recs, size_t n, const char *file_name,
                                           hoodie_buf *out)
{
    hoodie_buf schema = HOODIE_BUF_INIT;
    int64_t records;
    hoodie_status rc = hoodie_mdtw__schema_with_meta(&schema);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__build_rli_hfile(recs, n, &schema, file_name, out, &records);
    hoodie_buf_dispose(&schema);
    return rc;
}

/* After a compaction: the files of the slices before the one it compacted go (readers take the latest slice; the
 * one before stays for readers that started on it). Best effort: what is left goes after the next compaction. */
static void clean_old_slices(const hoodie_storage *s, const char *mdt)
{
    hoodie_table_config *mc = NULL;
    hoodie_timeline *tl = NULL;
    hoodie_fsview *v = NULL;
    hoodie_fsview_opts fo = { NULL, NULL, NULL, 0, kept_partition, NULL, NULL };
    hoodie_status rc = hoodie_table_config_load(&mc, s, mdt, 0);
    if (rc == HOODIE_OK) rc = hoodie_timeline_load(&tl, s, mdt, mc);
    if (rc == HOODIE_OK) rc = hoodie_fsview_build(&v, s, mdt, mc, tl, &fo);
    for (size_t g = 0; rc == HOODIE_OK && g < v->group_count; g++) {
        const hoodie_file_group *fg = &v->groups[g];
        if (fg->slice_count <= 2) continue;
        for (size_t k = 0; rc == HOODIE_OK && k + 2 < fg->slice_count; k++) {
            const hoodie_file_slice *sl = &fg->slices[k];
            for (size_t i = 0; rc == HOODIE_OK && i < sl->log_count; i++) rc = remove_if_exists(s, sl->logs[i]->path);
            if (rc == HOODIE_OK && sl->base) rc = remove_if_exists(s, sl->base->path);
        }
    }
    if (rc < 0) hoodie_error_clear();
    hoodie_fsview_free(v);
    hoodie_timeline_free(tl);
    hoodie_table_config_free(mc);
}

/* A file an MDT instant writes: its name, bytes, and path relative to the MDT ("<partition>/<name>"). */

void hoodie_mdtw__out_file_dispose(out_file *o)
{
    hoodie_buf_dispose(&o->name);
    hoodie_buf_dispose(&o->bytes);
    hoodie_buf_dispose(&o->rel);
}

/* One file group compacted: its slice, and the base file written. */
typedef struct cgroup {
    const char *part;
    char file_id[48];
    const hoodie_file_slice *sl;
    out_file f;
    int64_t records;
    uint64_t log_bytes;
    int none;           /* nothing to write: no base file */
    /* the records of a column_stats or record_index group, read: its base HFile is built from them */
    const hoodie_mdt_csrec *cs;
    const hoodie_mdt_rlirec *rl;
    const char **si_keys; /* a secondary index group's live keys (malloc) */
    size_t n;
} cgroup;

typedef struct cbuild {
    cgroup *gs;
    const hoodie_buf *schema;
} cbuild;

/* The base HFile of group i (run by hoodie_mdtw__run2: the groups' builds are independent). */
static hoodie_status cgroup_build(void *ctx, size_t i)
{
    const cbuild *b = ctx;
    cgroup *g = &b->gs[i];
    const char *name = (const char *)g->f.name.data;
    if (g->none) return HOODIE_OK;
    if (g->cs) return hoodie_mdtw__build_cs_hfile(g->cs, g->n, b->schema, name, &g->f.bytes, &g->records);
    if (g->rl) return hoodie_mdtw__build_rli_hfile(g->rl, g->n, b->schema, name, &g->f.bytes, &g->records);
    if (g->si_keys) return hoodie_mdtw__build_si_hfile(g->si_keys, g->n, b->schema, name, &g->f.bytes, &g->records);
    return HOODIE_OK; /* the files partition's: built as it was read */
}

/* The compaction plan's operation for g (appended to ops). */
static int plan_op(json_t *ops, const cgroup *g)
{
    json_t *deltas = json_array(), *metrics = json_object(), *op = json_object();
    int bad = !deltas || !metrics || !op;
    for (size_t i = 0; !bad && i < g->sl->log_count; i++)
        bad |= json_array_append_new(deltas, json_string(g->sl->logs[i]->name)) < 0;
    if (!bad) {
        bad |= json_object_set_new(op, "baseInstantTime", json_string(g->sl->base_instant)) < 0;
        bad |= json_object_set_new(op, "deltaFilePaths", deltas) < 0;
        deltas = NULL;
        bad |= json_object_set_new(op, "dataFilePath", g->sl->base ? json_string(g->sl->base->name) : json_null()) < 0;
        bad |= json_object_set_new(op, "fileId", json_string(g->file_id)) < 0;
        bad |= json_object_set_new(op, "partitionPath", json_string(g->part)) < 0;
        bad |= json_object_set_new(metrics, "TOTAL_LOG_FILES", json_real((double)g->sl->log_count)) < 0;
        bad |= json_object_set_new(metrics, "TOTAL_IO_READ_MB", json_real(0)) < 0;
        bad |= json_object_set_new(metrics, "TOTAL_LOG_FILES_SIZE", json_real((double)g->log_bytes)) < 0;
        bad |= json_object_set_new(metrics, "TOTAL_IO_WRITE_MB", json_real(0)) < 0;
        bad |= json_object_set_new(metrics, "TOTAL_IO_MB", json_real(0)) < 0;
        bad |= json_object_set_new(op, "metrics", metrics) < 0;
        metrics = NULL;
        bad |= json_object_set_new(op, "bootstrapFilePath", json_null()) < 0;
        bad |= json_array_append_new(ops, op) < 0;
        op = NULL;
    }
    json_decref(deltas), json_decref(metrics), json_decref(op);
    return bad;
}

/*
 * Compact the files partition (and column_stats, when kept) before instant T's deltacommit when enough
 * deltacommits came since its last compaction (Hudi does it there too: T's log then completes after the
 * compaction's request, in the new slice). The compaction's instant is a new time after every time on both
 * timelines, as Hudi 1.x picks it. Skipped while the MDT has a pending instant, or a deltacommit of an instant the
 * table has pending (its records cannot go into a base file before it completes). *compacted: 1 when it did.
 */
static hoodie_status compact_if_due(const hoodie_write_txn *dtx, const char *mdt, const hoodie_table_config *mc,
                                    const hoodie_timeline *mtl, const cs_conf *csc, const group_set *rli,
                                    const si_conf *si, char base_instant[HOODIE_INSTANT_TIME_MAX + 1],
                                    int *compacted)
{
    const char *t = dtx->inst.requested;
    *compacted = 0;
    const hoodie_instant *lastc = hoodie_timeline_last_completed(mtl, HOODIE_ACTION_BIT(HOODIE_ACTION_COMMIT));
    int since = 0;
    for (size_t i = 0; i < mtl->count; i++) {
        const hoodie_instant *x = &mtl->instants[i];
        if (x->state != HOODIE_STATE_COMPLETED) return HOODIE_OK;
        if (x->action == HOODIE_ACTION_DELTACOMMIT && (!lastc || strcmp(x->requested, lastc->requested) > 0)) since++;
    }
    if (since < hoodie_write__mdt_compact_after) return HOODIE_OK;
    hoodie_timeline *dtl = NULL;
    HOODIE_TRY(hoodie_timeline_load_dir(&dtl, dtx->s, dtx->timeline_dir, dtx->layout));
    for (size_t i = 0; i < dtl->count; i++) {
        const hoodie_instant *x = &dtl->instants[i];
        if (x->state == HOODIE_STATE_COMPLETED || !strcmp(x->requested, t)) continue;
        if (hoodie_timeline_find(mtl, x->requested, HOODIE_ACTION_DELTACOMMIT)) { hoodie_timeline_free(dtl); return HOODIE_OK; }
    }
    char c_time[18], max[HOODIE_INSTANT_TIME_MAX + 1], mmax[HOODIE_INSTANT_TIME_MAX + 1];
    hoodie_write__timeline_max(dtl, max);
    hoodie_write__timeline_max(mtl, mmax);
    if (strcmp(mmax, max) > 0) memcpy(max, mmax, sizeof max);
    if (strcmp(t, max) > 0) snprintf(max, sizeof max, "%s", t);
    hoodie_status trc = hoodie_write__new_time(c_time, dtx->utc, max);
    if (trc < 0) { hoodie_timeline_free(dtl); return trc; }
    size_t n_cs = csc ? csc->n_groups : 0, n_rli = rli ? rli->n_groups : 0, ng = 1 + n_cs + n_rli;
    for (size_t x = 0; si && x < si->n; x++) ng += si->v[x].gs.n_groups;
    hoodie_mdt_listing *l = NULL;
    hoodie_fsview *v = NULL;
    hoodie_arena *a = NULL;
    hoodie_write_txn tx;
    memset(&tx, 0, sizeof tx);
    changes ch;
    memset(&ch, 0, sizeof ch);
    hoodie_buf schema = HOODIE_BUF_INIT, meta = HOODIE_BUF_INIT;
    json_t *plan = NULL;
    cgroup *gs = calloc(ng, sizeof *gs);
    hoodie_wstat *sts = calloc(ng, sizeof *sts);
    hoodie_status rc = gs && sts ? HOODIE_OK : HOODIE_NOMEM();
    if (rc == HOODIE_OK) rc = hoodie_arena_new(&a, NULL, 65536);
    if (rc == HOODIE_OK) rc = hoodie_mdt_files(&l, dtx->s, dtx->base_path, dtl);
    /* the slices compacted: every file group's latest */
    hoodie_fsview_opts fo = { NULL, NULL, NULL, 0, kept_partition, NULL, NULL };
    if (rc == HOODIE_OK) rc = hoodie_fsview_build(&v, dtx->s, mdt, mc, mtl, &fo);
    if (rc == HOODIE_OK) rc = hoodie_mdtw__schema_with_meta(&schema);
    for (size_t i = 0; rc == HOODIE_OK && i < ng; i++) {
        cgroup *g = &gs[i];
        const si_index *sx = NULL; /* a secondary index's group: which index */
        size_t sg = i - 1 - n_cs - n_rli;
        for (size_t x = 0; i > n_cs + n_rli && si && x < si->n && !sx; x++) {
            if (sg < si->v[x].gs.n_groups) sx = &si->v[x];
            else sg -= si->v[x].gs.n_groups;
        }
        g->part = !i ? "files" : i <= n_cs ? CS_PART : !sx ? RLI_PART : sx->name;
        if (!i) snprintf(g->file_id, sizeof g->file_id, "%s", FILES_GROUP);
        else if (i <= n_cs) snprintf(g->file_id, sizeof g->file_id, CS_PREFIX "%04u-0", (unsigned)(i - 1));
        else if (!sx) snprintf(g->file_id, sizeof g->file_id, RLI_PREFIX "%04u-0", (unsigned)(i - 1 - n_cs));
        else snprintf(g->file_id, sizeof g->file_id, "%s%04u-0", sx->prefix, (unsigned)sg);
        for (size_t k = 0; k < v->group_count; k++)
            if (!strcmp(v->groups[k].partition, g->part) && !strcmp(v->groups[k].file_id, g->file_id))
                g->sl = hoodie_file_group_latest(&v->groups[k]);
        if (!g->sl) { rc = HOODIE_FAIL(HOODIE_ECORRUPT, "%s: no file slice of %s", mdt, g->file_id); break; }
        for (size_t k = 0; k < g->sl->log_count; k++) g->log_bytes += g->sl->logs[k]->size;
        rc = hoodie_file_name_base(&g->f.name, g->file_id, LOG_TOKEN, c_time, "hfile");
        if (rc < 0) break;
        if (!i) {
            rc = changes_of_listing(&ch, l);
            if (rc == HOODIE_OK) rc = hoodie_mdtw__build_hfile(&ch, &schema, (const char *)g->f.name.data, &g->f.bytes, &g->records);
        } else if (i <= n_cs) {
            hoodie_mdt_csrec *recs;
            rc = hoodie_mdt_cs_group(dtx->s, dtx->base_path, dtl, g->file_id, a, &recs, &g->n);
            g->cs = recs;
        } else if (sx) {
            size_t seen;
            rc = hoodie_mdt_si_group(dtx->s, dtx->base_path, dtl, sx->name, g->file_id, a, &g->si_keys, &g->n, &seen);
            if (rc == HOODIE_OK && !seen && !g->sl->base) g->none = 1; /* as the record index's */
        } else {
            hoodie_mdt_rlirec *recs;
            size_t seen;
            rc = hoodie_mdt_rli_group(dtx->s, dtx->base_path, dtl, g->file_id, a, &recs, &g->n, &seen);
            g->rl = recs;
            /* a slice that never had an entry gets no base file (Hudi's compactor writes none for no records) */
            if (rc == HOODIE_OK && !seen && !g->sl->base) g->none = 1;
        }
    }
    /* read on this thread (storage), built on two */
    cbuild cb = { gs, &schema };
    if (rc == HOODIE_OK) rc = hoodie_mdtw__run2(ng, cgroup_build, &cb);
    if (rc < 0) goto done;

    /* the plan: an operation per file group, its slice's base file and logs */
    json_t *ops = json_array();
    plan = json_object();
    int bad = !ops || !plan;
    for (size_t i = 0; !bad && i < ng; i++) bad |= plan_op(ops, &gs[i]);
    if (!bad) {
        bad |= json_object_set_new(plan, "operations", ops) < 0;
        ops = NULL;
        bad |= json_object_set_new(plan, "extraMetadata", json_object()) < 0;
        bad |= json_object_set_new(plan, "version", json_integer(2)) < 0;
        bad |= json_object_set_new(plan, "strategy", json_null()) < 0;
        bad |= json_object_set_new(plan, "preserveHoodieMetadata", json_false()) < 0;
        bad |= json_object_set_new(plan, "missingSchedulePartitions", json_array()) < 0;
    }
    json_decref(ops);
    json_t *arr = bad ? NULL : json_array();
    if (bad || !arr || json_array_append(arr, plan) < 0) { json_decref(arr); rc = HOODIE_NOMEM(); goto done; }
    rc = hoodie_write__avro_ocf(&meta, hoodie_write__schema_compaction_plan, arr);
    json_decref(arr);
    if (rc < 0) goto done;

    /* requested (the plan), inflight, the base files after their markers, completed */
    HOODIE_TRY_GOTO(rc, hoodie_mdtw__mdt_begin(&tx, dtx->s, mdt, mc, c_time, HOODIE_ACTION_COMPACTION, meta.data, meta.len), done);
    HOODIE_TRY_GOTO(rc, hoodie_write__inflight(&tx, NULL, 0), done);
    size_t ns = 0;
    for (size_t i = 0; i < ng; i++) {
        cgroup *g = &gs[i];
        if (g->none) continue;
        HOODIE_TRY_GOTO(rc, hoodie_mdtw__put_part_file(&tx, mdt, g->part, (const char *)g->f.name.data, &g->f.bytes,
                                          HOODIE_MARKER_CREATE, &g->f.rel), done);
        hoodie_wstat *st = &sts[ns++];
        st->partition_path = g->part, st->file_id = g->file_id, st->path = (const char *)g->f.rel.data;
        st->prev_commit = g->sl->base_instant;
        st->prev_base_file = g->sl->base ? g->sl->base->name : NULL;
        st->num_writes = g->records;
        st->total_write_bytes = st->file_size_in_bytes = (int64_t)g->f.bytes.len;
        st->total_log_files_compacted = (int64_t)g->sl->log_count;
        st->total_log_size_compacted = (int64_t)g->log_bytes;
        st->total_log_blocks = (int64_t)g->sl->log_count;
        st->has_runtime = 1;
    }
    hoodie_kv extra = { "schema", hoodie_write__mdt_schema };
    hoodie_commit_info ci;
    memset(&ci, 0, sizeof ci);
    ci.stats = sts, ci.stat_count = ns, ci.extra = &extra, ci.extra_count = 1, ci.operation_type = "COMPACT";
    ci.compacted = 1;
    meta.len = 0;
    HOODIE_TRY_GOTO(rc, hoodie_commit_encode(&meta, &ci, 8), done);
    HOODIE_TRY_GOTO(rc, hoodie_write__complete(&tx, meta.data, meta.len), done);
    memcpy(base_instant, c_time, sizeof c_time);
    *compacted = 1;
    clean_old_slices(dtx->s, mdt);
done:
    if (rc < 0) hoodie_error__prefix("metadata table compaction %s: ", c_time);
    json_decref(plan);
    hoodie_write__txn_dispose(&tx);
    hoodie_mdtw__changes_dispose(&ch);
    hoodie_fsview_free(v);
    hoodie_mdt_listing_free(l);
    hoodie_timeline_free(dtl);
    hoodie_buf_dispose(&schema);
    hoodie_buf_dispose(&meta);
    for (size_t i = 0; gs && i < ng; i++) hoodie_mdtw__out_file_dispose(&gs[i].f), free(gs[i].si_keys);
    free(gs);
    free(sts);
    hoodie_arena_free(a);
    return rc;
}

/* ---- the MDT deltacommit ---- */

/* One log file of an MDT deltacommit: its partition, file group, name, bytes and records. */
typedef struct dc_log {
    const char *part;
    char file_id[48];
    out_file f;
    int64_t records, deletes;
    char prev[HOODIE_INSTANT_TIME_MAX + 1]; /* the base instant of its slice */
} dc_log;

/* A record of an instant: its file group and arrival order. */
typedef struct cs_ref {
    size_t group, seq;
    const hoodie_mdt_csrec *r;
} cs_ref;

static int cs_ref_cmp(const void *a, const void *b)
{
    const cs_ref *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    int c = strcmp(x->r->key, y->r->key);
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* The log file of `group` holding the records recs[0..n) (sorted by key; a key twice: the later one). */
static hoodie_status cs_log(dc_log *l, const char *t, size_t group, hoodie_mdt_csrec *recs, size_t n,
                            const hoodie_buf *schema)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && !strcmp(recs[w - 1].key, recs[i].key)) { recs[w - 1] = recs[i]; continue; }
        recs[w++] = recs[i];
    }
    hoodie_buf hfile = HOODIE_BUF_INIT;
    l->part = CS_PART;
    snprintf(l->file_id, sizeof l->file_id, CS_PREFIX "%04u-0", (unsigned)group);
    hoodie_status rc = hoodie_mdtw__build_cs_hfile(recs, w, schema, NULL, &hfile, &l->records);
    hoodie_hlog_header_entry h[2] = { { HOODIE_HLOG_INSTANT_TIME, t, strlen(t) },
                                      { HOODIE_HLOG_SCHEMA, (const char *)schema->data, schema->len } };
    if (rc == HOODIE_OK) rc = hoodie_hlog_write_block(&l->f.bytes, HOODIE_HLOG_HFILE_DATA_BLOCK, h, 2, hfile.data, hfile.len);
    if (rc == HOODIE_OK) rc = hoodie_file_name_log(&l->f.name, l->file_id, t, 1, LOG_TOKEN);
    hoodie_buf_dispose(&hfile);
    return rc;
}


static uint64_t key_prefix(const char *k)
{
    uint64_t v = 0;
    for (int i = 0; i < 8 && k[i]; i++) v |= (uint64_t)(uint8_t)k[i] << (56 - 8 * i);
    return v;
}

/* Same key (prefixes equal first). */
int hoodie_mdtw__rli_same_key(const rli_ref *x, const rli_ref *y)
{
    return x->prefix == y->prefix && !strcmp(x->ch.key, y->ch.key);
}

static int rli_ref_cmp(const void *a, const void *b)
{
    const rli_ref *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->prefix != y->prefix) return x->prefix < y->prefix ? -1 : 1;
    int c = strcmp(x->ch.key, y->ch.key);
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

hoodie_status hoodie_mdtw__rli_by_group(const hoodie_rli_changes *c, size_t n_groups, uint32_t **idx, size_t **end)
{
    *idx = NULL, *end = NULL;
    if (c->n > UINT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "record index: %zu changes in one commit", c->n);
    uint32_t *v = malloc((c->n + 1) * sizeof *v), *grp = malloc((c->n + 1) * sizeof *grp);
    size_t *at = calloc(n_groups + 1, sizeof *at);
    if (!v || !grp || !at) {
        free(v), free(grp), free(at);
        return HOODIE_NOMEM();
    }
    for (size_t i = 0; i < c->n; i++) at[(grp[i] = (uint32_t)hoodie_mdt_key_group(c->v[i].key, n_groups)) + 1]++;
    for (size_t g = 0; g < n_groups; g++) at[g + 1] += at[g];
    for (size_t i = 0; i < c->n; i++) v[at[grp[i]]++] = (uint32_t)i; /* at[g] ends as the end of group g */
    free(grp);
    *idx = v, *end = at;
    return HOODIE_OK;
}

rli_ref *hoodie_mdtw__rli_group_refs(const hoodie_rli_changes *c, const uint32_t *idx, size_t n, size_t g)
{
    rli_ref *refs = malloc((n + 1) * sizeof *refs);
    if (!refs) return NULL;
    for (size_t k = 0; k < n; k++) {
        const hoodie_rli_change *ch = &c->v[idx[k]];
        refs[k] = (rli_ref){ key_prefix(ch->key), (uint32_t)g, idx[k], *ch };
    }
    if (n > 1) qsort(refs, n, sizeof *refs, rli_ref_cmp);
    return refs;
}

static size_t ri_slot(const hoodie_mdtw_ri_memo *m, const char *fid, const char *part)
{
    uint64_t h = ((uint64_t)(uintptr_t)fid ^ ((uint64_t)(uintptr_t)part << 1)) * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 20) & (m->cap - 1);
    while (m->tab[i].fid && (m->tab[i].fid != fid || m->tab[i].part != part)) i = (i + 1) & (m->cap - 1);
    return i;
}

hoodie_status hoodie_mdtw__ri_of(hoodie_mdtw_ri_memo *m, hoodie_buf *ri, const char *partition, const char *file_id,
                                 int64_t t_ms, size_t *off, size_t *len)
{
    if (2 * (m->used + 1) > m->cap) { /* grow (and start) at half full */
        hoodie_mdtw_ri_memo g = { NULL, m->cap ? 2 * m->cap : 64, 0 };
        if (!(g.tab = calloc(g.cap, sizeof *g.tab))) return HOODIE_NOMEM();
        for (size_t i = 0; i < m->cap; i++)
            if (m->tab[i].fid) g.tab[ri_slot(&g, m->tab[i].fid, m->tab[i].part)] = m->tab[i], g.used++;
        free(m->tab);
        *m = g;
    }
    size_t i = ri_slot(m, file_id, partition);
    if (!m->tab[i].fid) {
        size_t at = ri->len;
        HOODIE_TRY(hoodie_write__rli_info(ri, partition, file_id, t_ms));
        m->tab[i].fid = file_id, m->tab[i].part = partition, m->tab[i].off = at, m->tab[i].len = ri->len - at;
        m->used++;
    }
    *off = m->tab[i].off, *len = m->tab[i].len;
    return HOODIE_OK;
}

/* The log file of record_index group `group` for the changes refs[0..n) (sorted by key; a key's last counts): an
 * HFILE_DATA_BLOCK of the keys added, then a DELETE_BLOCK of the keys removed, as Hudi's append handle writes
 * them. */
static hoodie_status rli_log(dc_log *l, const char *t, int64_t t_ms, size_t group, const rli_ref *refs, size_t n,
                             const hoodie_buf *schema)
{
    hoodie_mdt_rlirec *ups = calloc(n + 1, sizeof *ups);
    const char **dels = calloc(n + 1, sizeof *dels);
    size_t *offs = calloc(2 * n + 1, sizeof *offs); /* each addition's location: offset and length in ri */
    hoodie_buf ri = HOODIE_BUF_INIT, hfile = HOODIE_BUF_INIT;
    hoodie_mdtw_ri_memo memo = { NULL, 0, 0 };
    size_t nu = 0, nd = 0;
    hoodie_status rc = ups && dels && offs ? HOODIE_OK : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        /* a key's last change counts, an addition before any removal: a record moved by this commit (a global
         * index's partition update) is removed from one file group and added to another */
        size_t last = i, add = SIZE_MAX;
        for (;; last++) {
            if (refs[last].ch.partition) add = last;
            if (last + 1 == n || !hoodie_mdtw__rli_same_key(&refs[last], &refs[last + 1])) break;
        }
        const hoodie_rli_change *ch = &refs[add != SIZE_MAX ? add : last].ch;
        i = last;
        if (!ch->partition) { dels[nd++] = ch->key; continue; }
        rc = hoodie_mdtw__ri_of(&memo, &ri, ch->partition, ch->file_id, t_ms, &offs[2 * nu], &offs[2 * nu + 1]);
        ups[nu++].key = ch->key;
    }
    for (size_t i = 0; rc == HOODIE_OK && i < nu; i++) { /* ri's bytes no longer move */
        ups[i].ri = ri.data + offs[2 * i];
        ups[i].ri_len = offs[2 * i + 1];
    }
    free(memo.tab);
    l->part = RLI_PART;
    snprintf(l->file_id, sizeof l->file_id, RLI_PREFIX "%04u-0", (unsigned)group);
    l->records = (int64_t)nu, l->deletes = (int64_t)nd;
    if (rc == HOODIE_OK && nu) {
        int64_t recs;
        rc = hoodie_mdtw__build_rli_hfile(ups, nu, schema, NULL, &hfile, &recs);
        hoodie_hlog_header_entry h[2] = { { HOODIE_HLOG_INSTANT_TIME, t, strlen(t) },
                                          { HOODIE_HLOG_SCHEMA, (const char *)schema->data, schema->len } };
        if (rc == HOODIE_OK)
            rc = hoodie_hlog_write_block(&l->f.bytes, HOODIE_HLOG_HFILE_DATA_BLOCK, h, 2, hfile.data, hfile.len);
    }
    if (rc == HOODIE_OK && nd) rc = part_delete_block(&l->f.bytes, t, schema, RLI_PART, dels, nd);
    if (rc == HOODIE_OK) rc = hoodie_file_name_log(&l->f.name, l->file_id, t, 1, LOG_TOKEN);
    hoodie_buf_dispose(&ri);
    hoodie_buf_dispose(&hfile);
    free(ups);
    free(dels);
    free(offs);
    return rc;
}

/* fn(ctx, i) for i in [0, n) on two threads: this one and a helper taking every other i (the file groups of a
 * metadata table partition: encoding and zlib are most of a big commit's or compaction's time, and they are
 * independent), or on this one alone when no thread starts. The first failure (by i) is raised again here:
 * errors are per thread. */
typedef struct run2 {
    size_t n;
    hoodie_status (*fn)(void *ctx, size_t i);
    void *ctx;
    hoodie_status *rc, *code;
    char **msg; /* a failure's message (malloc) */
} run2;

static void run2_from(run2 *r, size_t first)
{
    for (size_t i = first; i < r->n; i += 2) {
        if ((r->rc[i] = r->fn(r->ctx, i)) >= 0) continue;
        const hoodie_error *e = hoodie_error_last();
        r->code[i] = e->code;
        r->msg[i] = strdup(e->message ? e->message : "");
        break;
    }
}

static void *run2_helper(void *arg)
{
    run2_from(arg, 1);
    return NULL;
}

hoodie_status hoodie_mdtw__run2(size_t n, hoodie_status (*fn)(void *ctx, size_t i), void *ctx)
{
    run2 r = { n, fn, ctx, calloc(n + 1, sizeof *r.rc), calloc(n + 1, sizeof *r.code), calloc(n + 1, sizeof *r.msg) };
    hoodie_status rc = r.rc && r.code && r.msg ? HOODIE_OK : HOODIE_NOMEM();
    if (rc == HOODIE_OK) {
        pthread_t th;
        int helper = n > 1 && pthread_create(&th, NULL, run2_helper, &r) == 0;
        run2_from(&r, 0);
        if (helper) pthread_join(th, NULL);
        else run2_from(&r, 1);
    }
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        if (r.rc[i] >= 0) continue;
        rc = r.msg[i] ? HOODIE_FAIL(r.code[i] < 0 ? r.code[i] : HOODIE_ERROR, "%s", r.msg[i]) : HOODIE_NOMEM();
    }
    for (size_t i = 0; r.msg && i < n; i++) free(r.msg[i]);
    free(r.rc), free(r.code), free(r.msg);
    return rc;
}

/* The record index's log of each file group a commit changes (run by hoodie_mdtw__run2): the group's changes
 * (their indices, in arrival order) sorted by key, then the log built. */
typedef struct rli_job {
    dc_log *l;
    size_t group;
    const uint32_t *idx;
    size_t n;
} rli_job;

typedef struct rli_jobs {
    rli_job *v;
    size_t n;
    const char *t;
    int64_t t_ms;
    const hoodie_buf *schema;
    const hoodie_rli_changes *c;
} rli_jobs;

static hoodie_status rli_job_run(void *ctx, size_t i)
{
    const rli_jobs *js = ctx;
    const rli_job *j = &js->v[i];
    rli_ref *refs = hoodie_mdtw__rli_group_refs(js->c, j->idx, j->n, j->group);
    if (!refs) return HOODIE_NOMEM();
    hoodie_status rc = rli_log(j->l, js->t, js->t_ms, j->group, refs, j->n, js->schema);
    free(refs);
    return rc;
}

static hoodie_status write_deltacommit(const hoodie_write_txn *dtx, changes *c)
{
    hoodie_status rc;
    char *mdt = hoodie_mdtw__mdt_path(dtx->base_path);
    if (!mdt) return HOODIE_NOMEM();
    const char *t = dtx->inst.requested;
    hoodie_table_config *mc = NULL;
    hoodie_timeline *mtl = NULL;
    hoodie_write_txn tx;
    memset(&tx, 0, sizeof tx);
    hoodie_buf schema = HOODIE_BUF_INIT, hfile = HOODIE_BUF_INIT, meta = HOODIE_BUF_INIT;
    size_t n_groups = c->csc ? c->csc->n_groups : 0, n_rli = c->rli ? c->rli->n_groups : 0, n_logs = 0;
    size_t max_logs = 1 + n_groups + n_rli;
    for (size_t i = 0; c->si && i < c->si->n; i++) max_logs += c->si->v[i].gs.n_groups;
    dc_log *logs = calloc(max_logs, sizeof *logs);
    hoodie_wstat *ws = calloc(2 * max_logs + 2, sizeof *ws);
    const char **log_names = calloc(max_logs, sizeof *log_names);
    if (!logs || !ws || !log_names) { rc = HOODIE_NOMEM(); goto done; }
    HOODIE_TRY_GOTO(rc, hoodie_table_config_load(&mc, dtx->s, mdt, 0), done);
    HOODIE_TRY_GOTO(rc, hoodie_timeline_load(&mtl, dtx->s, mdt, mc), done);
    /* the base instant of the slices the logs join: the latest compaction's (or the initial one's), or the one
     * made now */
    const hoodie_instant *lastc = hoodie_timeline_last_completed(mtl, HOODIE_ACTION_BIT(HOODIE_ACTION_COMMIT));
    char base_instant[HOODIE_INSTANT_TIME_MAX + 1];
    snprintf(base_instant, sizeof base_instant, "%s", lastc ? lastc->requested : "00000000000000000");
    int compacted = 0;
    HOODIE_TRY_GOTO(rc, compact_if_due(dtx, mdt, mc, mtl, c->csc, c->rli, c->si, base_instant, &compacted), done);
    HOODIE_TRY_GOTO(rc, hoodie_mdtw__schema_with_meta(&schema), done);

    /* the files partition's log, then column_stats' (a log per file group with records) */
    dc_log *fl = &logs[n_logs++];
    fl->part = "files";
    snprintf(fl->file_id, sizeof fl->file_id, "%s", FILES_GROUP);
    snprintf(fl->prev, sizeof fl->prev, "%s", base_instant);
    HOODIE_TRY_GOTO(rc, hoodie_mdtw__build_hfile(c, &schema, NULL, &hfile, &fl->records), done);
    hoodie_hlog_header_entry h[2] = { { HOODIE_HLOG_INSTANT_TIME, t, strlen(t) },
                                      { HOODIE_HLOG_SCHEMA, (const char *)schema.data, schema.len } };
    HOODIE_TRY_GOTO(rc, hoodie_hlog_write_block(&fl->f.bytes, HOODIE_HLOG_HFILE_DATA_BLOCK, h, 2, hfile.data, hfile.len), done);
    HOODIE_TRY_GOTO(rc, hoodie_file_name_log(&fl->f.name, FILES_GROUP, t, 1, LOG_TOKEN), done);
    if (c->n_cs) {
        /* by file group, then key, then the order they came in (the later record of a key wins) */
        cs_ref *refs = malloc(c->n_cs * sizeof *refs);
        hoodie_mdt_csrec *sorted = malloc(c->n_cs * sizeof *sorted);
        if (!refs || !sorted) { free(refs); free(sorted); rc = HOODIE_NOMEM(); goto done; }
        for (size_t i = 0; i < c->n_cs; i++) refs[i] = (cs_ref){ hoodie_mdt_key_group(c->cs[i].key, n_groups), i, &c->cs[i] };
        qsort(refs, c->n_cs, sizeof *refs, cs_ref_cmp);
        for (size_t i = 0; rc == HOODIE_OK && i < c->n_cs;) {
            size_t g = refs[i].group, k = 0;
            for (; i < c->n_cs && refs[i].group == g; i++) sorted[k++] = *refs[i].r;
            dc_log *l = &logs[n_logs++];
            snprintf(l->prev, sizeof l->prev, "%s", lastc || compacted ? base_instant : c->csc->first[g]);
            rc = cs_log(l, t, g, sorted, k, &schema);
        }
        free(refs);
        free(sorted);
        if (rc < 0) goto done;
    }
    if (c->rli && c->rc.n) { /* record_index: a log per file group whose keys changed */
        int64_t t_ms = hoodie_write__instant_ms(t, dtx->utc);
        /* the changes' indices by file group (in arrival order); each group's job sorts its own */
        uint32_t *idx = NULL;
        size_t *at = NULL;
        rli_jobs jobs = { NULL, 0, t, t_ms, &schema, &c->rc };
        if (t_ms < 0) rc = HOODIE_FAIL(HOODIE_EINVAL, "record index: instant time '%s' is not yyyyMMddHHmmss[SSS]", t);
        else rc = hoodie_mdtw__rli_by_group(&c->rc, n_rli, &idx, &at);
        if (rc == HOODIE_OK && !(jobs.v = calloc(n_rli + 1, sizeof *jobs.v))) rc = HOODIE_NOMEM();
        for (size_t g = 0, from = 0; rc == HOODIE_OK && g < n_rli; from = at[g++]) {
            if (at[g] == from) continue;
            dc_log *l = &logs[n_logs++];
            snprintf(l->prev, sizeof l->prev, "%s", lastc || compacted ? base_instant : c->rli->first[g]);
            jobs.v[jobs.n++] = (rli_job){ l, g, idx + from, at[g] - from };
        }
        if (rc == HOODIE_OK) rc = hoodie_mdtw__run2(jobs.n, rli_job_run, &jobs);
        free(jobs.v);
        free(idx), free(at);
        if (rc < 0) goto done;
    }

    /* secondary indexes: a log per file group whose keys changed, its additions then its removals */
    for (size_t x = 0; c->sic && x < c->si->n; x++) {
        const si_index *si = &c->si->v[x];
        const si_changes *ch = &c->sic[x];
        for (size_t i = 0; rc == HOODIE_OK && i < ch->n;) {
            size_t g = ch->v[i].group, e = i, na = 0, nd = 0;
            while (e < ch->n && ch->v[e].group == g) e++;
            const char **adds = calloc(e - i + 1, sizeof *adds), **dels = calloc(e - i + 1, sizeof *dels);
            if (!adds || !dels) rc = HOODIE_NOMEM();
            for (size_t k = i; rc == HOODIE_OK && k < e; k++) {
                if (ch->v[k].add) adds[na++] = ch->v[k].key;
                else dels[nd++] = ch->v[k].key;
            }
            dc_log *l = &logs[n_logs++];
            l->part = si->name;
            snprintf(l->file_id, sizeof l->file_id, "%s%04u-0", si->prefix, (unsigned)g);
            snprintf(l->prev, sizeof l->prev, "%s", lastc || compacted ? base_instant : si->gs.first[g]);
            l->records = (int64_t)na, l->deletes = (int64_t)nd;
            hfile.len = 0;
            int64_t recs;
            if (rc == HOODIE_OK && na) rc = hoodie_mdtw__build_si_hfile(adds, na, &schema, NULL, &hfile, &recs);
            if (rc == HOODIE_OK && na)
                rc = hoodie_hlog_write_block(&l->f.bytes, HOODIE_HLOG_HFILE_DATA_BLOCK, h, 2, hfile.data, hfile.len);
            if (rc == HOODIE_OK && nd) rc = part_delete_block(&l->f.bytes, t, &schema, si->name, dels, nd);
            if (rc == HOODIE_OK) rc = hoodie_file_name_log(&l->f.name, l->file_id, t, 1, LOG_TOKEN);
            free(adds);
            free(dels);
            i = e;
        }
        if (rc < 0) goto done;
    }

    /* the instant, as a write instant of the MDT with the table's instant time */
    HOODIE_TRY_GOTO(rc, hoodie_mdtw__mdt_begin(&tx, dtx->s, mdt, mc, t, HOODIE_ACTION_DELTACOMMIT, "", 0), done);
    /* inflight: the workload (per partition an empty insert bucket, then its file groups' updates), as Hudi
     * writes it */
    size_t nw = 0;
    for (size_t i = 0; i < n_logs; i++) {
        if (!i || strcmp(logs[i].part, logs[i - 1].part)) {
            ws[nw].partition_path = logs[i].part, ws[nw].file_id = "", ws[nw].workload = 1;
            nw++;
        }
        ws[nw].partition_path = logs[i].part, ws[nw].file_id = logs[i].file_id, ws[nw].workload = 1;
        ws[nw].num_update_writes = logs[i].records + logs[i].deletes;
        ws[nw].prev_commit = logs[i].prev;
        nw++;
    }
    hoodie_commit_info ci;
    memset(&ci, 0, sizeof ci);
    ci.stats = ws, ci.stat_count = nw, ci.operation_type = "UPSERT_PREPPED";
    HOODIE_TRY_GOTO(rc, hoodie_commit_encode(&meta, &ci, 8), done);
    HOODIE_TRY_GOTO(rc, hoodie_write__inflight(&tx, meta.data, meta.len), done);
    for (size_t i = 0; i < n_logs; i++)
        HOODIE_TRY_GOTO(rc, hoodie_mdtw__put_part_file(&tx, mdt, logs[i].part, (const char *)logs[i].f.name.data, &logs[i].f.bytes,
                                          HOODIE_MARKER_APPEND, &logs[i].f.rel), done);
    /* completed: the write statistics of the log files */
    memset(ws, 0, (n_logs + 1) * sizeof *ws);
    for (size_t i = 0; i < n_logs; i++) {
        hoodie_wstat *st = &ws[i];
        log_names[i] = (const char *)logs[i].f.name.data;
        st->partition_path = logs[i].part, st->file_id = logs[i].file_id, st->path = (const char *)logs[i].f.rel.data;
        st->prev_commit = t;
        st->num_writes = st->num_update_writes = logs[i].records;
        st->num_deletes = logs[i].deletes;
        st->total_write_bytes = st->file_size_in_bytes = (int64_t)logs[i].f.bytes.len;
        st->is_delta = 1, st->log_version = 1, st->log_offset = 0, st->base_file = "", st->log_files = &log_names[i];
        st->log_file_count = 1, st->has_runtime = 1;
    }
    hoodie_kv extra = { "schema", hoodie_write__mdt_schema };
    memset(&ci, 0, sizeof ci);
    ci.stats = ws, ci.stat_count = n_logs, ci.extra = &extra, ci.extra_count = 1, ci.operation_type = "UPSERT_PREPPED";
    meta.len = 0;
    HOODIE_TRY_GOTO(rc, hoodie_commit_encode(&meta, &ci, 8), done);
    HOODIE_TRY_GOTO(rc, hoodie_write__complete(&tx, meta.data, meta.len), done);
done:
    if (rc < 0) hoodie_error__prefix("metadata table deltacommit %s: ", t);
    hoodie_write__txn_dispose(&tx);
    hoodie_timeline_free(mtl);
    hoodie_table_config_free(mc);
    hoodie_buf_dispose(&schema);
    hoodie_buf_dispose(&hfile);
    hoodie_buf_dispose(&meta);
    for (size_t i = 0; logs && i < n_logs; i++) hoodie_mdtw__out_file_dispose(&logs[i].f);
    free(logs);
    free(ws);
    free(log_names);
    free(mdt);
    return rc;
}

/* Disable the MDT of the table of `tx` (its config read afresh). */
static hoodie_status drop_for(const hoodie_storage *s, const char *base_path)
{
    hoodie_table_config *cfg = NULL;
    HOODIE_TRY(hoodie_table_config_load(&cfg, s, base_path, 0));
    hoodie_status rc = hoodie_write__drop_metadata_table(s, base_path, cfg, NULL);
    hoodie_table_config_free(cfg);
    return rc;
}

hoodie_status hoodie_write__mdt_apply(const hoodie_write_txn *tx, const void *content, size_t len)
{
    if (tx->mdt <= 0) return HOODIE_OK; /* none, or this is the metadata table's own instant */
    if (tx->mdt == 2) return drop_for(tx->s, tx->base_path);
    changes c;
    memset(&c, 0, sizeof c);
    c.s = tx->s;
    c.base_path = tx->base_path;
    c.want_contested = tx->data_write && tx->si_read;
    hoodie_status rc = HOODIE_OK;
    const char *what = tx->inst.requested;
    if (tx->inst.action != HOODIE_ACTION_ROLLBACK && tx->inst.action != HOODIE_ACTION_RESTORE) {
        hoodie_table_config *cfg = NULL;
        rc = hoodie_table_config_load(&cfg, tx->s, tx->base_path, 0);
        if (rc == HOODIE_OK) rc = hoodie_mdtw__cs_conf_load(tx->s, tx->base_path, cfg, &c.csc);
        if (rc == HOODIE_OK) rc = hoodie_mdtw__rli_conf_load(tx->s, tx->base_path, cfg, &c.rli);
        if (rc == HOODIE_OK) rc = hoodie_mdtw__si_conf_load(tx->s, tx->base_path, cfg, c.rli, &c.si);
        hoodie_table_config_free(cfg);
        if (rc < 0) { hoodie_mdtw__changes_dispose(&c); return rc; }
    }
    switch (tx->inst.action) {
    case HOODIE_ACTION_COMMIT:
    case HOODIE_ACTION_DELTACOMMIT:
    case HOODIE_ACTION_REPLACECOMMIT:
    case HOODIE_ACTION_COMPACTION:    /* completes as a commit */
    case HOODIE_ACTION_LOGCOMPACTION: /* as a deltacommit */
    case HOODIE_ACTION_CLUSTERING:    /* as a replacecommit */
        rc = from_commit(&c, content, len, what, tx->inst.action, tx->rli_located);
        break;
    case HOODIE_ACTION_CLEAN:
        rc = from_clean(&c, content, len, what);
        break;
    case HOODIE_ACTION_ROLLBACK: {
        hoodie_rollback_meta *m = NULL;
        hoodie_table_config *cfg = NULL;
        rc = hoodie_rollback_meta_decode(&m, content, len, what);
        if (rc == HOODIE_OK) rc = hoodie_table_config_load(&cfg, tx->s, tx->base_path, 0);
        for (size_t i = 0; rc == HOODIE_OK && i < m->commit_count; i++)
            rc = hoodie_write__mdt_rollback(tx->s, tx->base_path, cfg, m->commits_rollback[i]);
        hoodie_table_config_free(cfg);
        hoodie_rollback_meta_free(m);
        return rc;
    }
    case HOODIE_ACTION_RESTORE:
        return drop_for(tx->s, tx->base_path);
    default: /* savepoints and the like change no file */
        hoodie_mdtw__changes_dispose(&c);
        return HOODIE_OK;
    }
    if (rc == HOODIE_OK && c.contested.n) rc = hoodie_mdtw__rli_contested(tx, &c, content, len);
    /* the secondary indexes: a write of records changes them (the services move records or none) */
    if (rc == HOODIE_OK && c.si && tx->data_write) {
        if (!c.a) rc = hoodie_arena_new(&c.a, NULL, 65536);
        if (rc == HOODIE_OK && !(c.sic = calloc(c.si->n, sizeof *c.sic))) rc = HOODIE_NOMEM();
        if (rc == HOODIE_OK) rc = hoodie_mdtw__si_changes(tx, c.si, content, len, c.a, c.sic);
    }
    /* the log files' statistics the writer collected (base files' come from their footers) */
    for (size_t i = 0; rc == HOODIE_OK && c.csc && i < tx->n_log_stats; i++) rc = cs_push(&c, &tx->log_stats[i]);
    if (rc == HOODIE_OK && (c.n || c.all_record)) rc = write_deltacommit(tx, &c);
    hoodie_mdtw__changes_dispose(&c);
    return rc;
}

/* ---- rollback ---- */

static hoodie_status remove_if_exists(const hoodie_storage *s, const char *path)
{
    hoodie_status rc = s->remove(s->ctx, path);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    return rc;
}

static hoodie_status remove_state(const hoodie_storage *s, const char *mdt, const hoodie_table_config *mc,
                                  const hoodie_instant *in, hoodie_instant_state st)
{
    char name[128];
    HOODIE_TRY(hoodie_instant_file_name(in, st, mc->timeline_layout_version, name, sizeof name));
    hoodie_buf p = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_printf(&p, "%s/%s/%s", mdt, mc->timeline_dir, name);
    if (rc == HOODIE_OK) rc = remove_if_exists(s, (const char *)p.data);
    hoodie_buf_dispose(&p);
    return rc;
}

typedef struct inst_ctx { const char *instant; char **names; size_t n; int oom; } inst_ctx;

static int inst_cb(const hoodie_dirent *e, void *payload)
{
    inst_ctx *c = payload;
    hoodie_file_name fn;
    if (e->is_dir) return 0;
    hoodie_file_kind k = hoodie_file_name_parse(&fn, e->name);
    if ((k == HOODIE_FILE_BASE || k == HOODIE_FILE_LOG) && fn.instant.len == strlen(c->instant) &&
        !memcmp(fn.instant.p, c->instant, fn.instant.len))
        return c->oom = hoodie_mdtw__push_name(&c->names, &c->n, e->name);
    return 0;
}

typedef struct si_dirs { char **names; size_t n; int oom; } si_dirs;

static int si_dirs_cb(const hoodie_dirent *e, void *payload)
{
    si_dirs *d = payload;
    if (!e->is_dir || strncmp(e->name, SI_PART_PREFIX, strlen(SI_PART_PREFIX))) return 0;
    return d->oom = hoodie_mdtw__push_name(&d->names, &d->n, e->name);
}

/* The files of `instant` in the partitions hoodie keeps (files, column_stats, record_index, secondary indexes),
 * then its markers. */
static hoodie_status remove_files_of(const hoodie_storage *s, const char *mdt, const char *instant)
{
    si_dirs sd = { NULL, 0, 0 };
    hoodie_status rc = s->list(s->ctx, mdt, si_dirs_cb, &sd);
    if (rc == HOODIE_OK && sd.oom) rc = HOODIE_NOMEM();
    size_t n_parts = 3 + sd.n;
    const char **parts = rc == HOODIE_OK ? calloc(n_parts, sizeof *parts) : NULL;
    if (rc == HOODIE_OK && !parts) rc = HOODIE_NOMEM();
    if (parts) {
        parts[0] = "files", parts[1] = CS_PART, parts[2] = RLI_PART;
        for (size_t i = 0; i < sd.n; i++) parts[3 + i] = sd.names[i];
    }
    for (size_t p = 0; rc == HOODIE_OK && p < n_parts; p++) {
        inst_ctx ic = { instant, NULL, 0, 0 };
        hoodie_buf dir = HOODIE_BUF_INIT;
        rc = hoodie_buf_printf(&dir, "%s/%s", mdt, parts[p]);
        if (rc == HOODIE_OK) rc = s->list(s->ctx, (const char *)dir.data, inst_cb, &ic);
        if (rc == HOODIE_ENOTFOUND && p) { hoodie_error_clear(); rc = HOODIE_OK; } /* not kept */
        if (rc == HOODIE_OK && ic.oom) rc = HOODIE_NOMEM();
        for (size_t k = 0; rc == HOODIE_OK && k < ic.n; k++) {
            hoodie_buf path = HOODIE_BUF_INIT;
            rc = hoodie_buf_printf(&path, "%s/%s", (const char *)dir.data, ic.names[k]);
            if (rc == HOODIE_OK) rc = remove_if_exists(s, (const char *)path.data);
            hoodie_buf_dispose(&path);
        }
        for (size_t k = 0; k < ic.n; k++) free(ic.names[k]);
        free(ic.names);
        hoodie_buf_dispose(&dir);
    }
    if (rc == HOODIE_OK) {
        hoodie_buf p = HOODIE_BUF_INIT;
        rc = hoodie_buf_printf(&p, "%s/.hoodie/.temp/%s", mdt, instant);
        if (rc == HOODIE_OK) rc = hoodie_storage_remove_tree(s, (const char *)p.data);
        hoodie_buf_dispose(&p);
    }
    for (size_t i = 0; i < sd.n; i++) free(sd.names[i]);
    free(sd.names);
    free(parts);
    return rc;
}

hoodie_status hoodie_write__mdt_rollback(const hoodie_storage *s, const char *base_path,
                                         const hoodie_table_config *cfg, const char *instant)
{
    s = hoodie_storage__or_default(s);
    if (hoodie_write__mdt_mode(cfg) == 0) return HOODIE_OK;
    char *mdt = hoodie_mdtw__mdt_path(base_path);
    if (!mdt) return HOODIE_NOMEM();
    hoodie_table_config *mc = NULL;
    hoodie_timeline *tl = NULL;
    hoodie_status rc = hoodie_table_config_load(&mc, s, mdt, 0);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; goto done; } /* none after all */
    if (rc == HOODIE_OK) rc = hoodie_timeline_load(&tl, s, mdt, mc);
    if (rc < 0) goto done;
    const hoodie_instant *in = NULL;
    for (size_t i = 0; i < tl->count; i++)
        if (!strcmp(tl->instants[i].requested, instant) && tl->instants[i].action == HOODIE_ACTION_DELTACOMMIT)
            in = &tl->instants[i];
    /* compacted: a compaction requested after the deltacommit completed planned its log (v8 slices by completion) */
    int compacted_after = 0;
    for (size_t i = 0; in && in->state == HOODIE_STATE_COMPLETED && i < tl->count; i++) {
        const hoodie_instant *x = &tl->instants[i];
        if ((x->action == HOODIE_ACTION_COMMIT || x->action == HOODIE_ACTION_COMPACTION) &&
            (!*in->completion || strcmp(x->requested, in->completion) > 0))
            compacted_after = 1;
    }
    /* a compaction the instant's commit started and did not finish (a pending one requested after it: compactions
     * are requested inside a commit, under the table lock): its base file, then the instant */
    for (size_t i = 0; rc == HOODIE_OK && i < tl->count; i++) {
        hoodie_instant x = tl->instants[i];
        if (x.action != HOODIE_ACTION_COMPACTION || x.state == HOODIE_STATE_COMPLETED || strcmp(x.requested, instant) <= 0)
            continue;
        rc = remove_files_of(s, mdt, x.requested);
        if (rc == HOODIE_OK && x.state == HOODIE_STATE_INFLIGHT) rc = remove_state(s, mdt, mc, &x, HOODIE_STATE_INFLIGHT);
        if (rc == HOODIE_OK) rc = remove_state(s, mdt, mc, &x, HOODIE_STATE_REQUESTED);
    }
    if (!in || rc < 0) goto done;
    if (compacted_after) { /* its records are in a base file now: the MDT can only go */
        rc = hoodie_write__drop_metadata_table(s, base_path, cfg, NULL);
        goto done;
    }
    hoodie_instant copy = *in;
    /* completed file first (readers stop counting its blocks), then its log files and markers, inflight, requested */
    if (copy.state == HOODIE_STATE_COMPLETED) rc = remove_state(s, mdt, mc, &copy, HOODIE_STATE_COMPLETED);
    if (rc == HOODIE_OK) rc = remove_files_of(s, mdt, instant);
    if (rc == HOODIE_OK) rc = remove_state(s, mdt, mc, &copy, HOODIE_STATE_INFLIGHT);
    if (rc == HOODIE_OK) rc = remove_state(s, mdt, mc, &copy, HOODIE_STATE_REQUESTED);
done:
    if (rc < 0) hoodie_error__prefix("rolling back metadata table deltacommit %s: ", instant);
    hoodie_timeline_free(tl);
    hoodie_table_config_free(mc);
    free(mdt);
    return rc;
}
