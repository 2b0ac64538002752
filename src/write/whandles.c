/*
 * The write client's handles (write/writer_int.h): what each file group of a write becomes on storage.
 *
 *   create     a new file group's first base file (inserts)
 *   bulk       bulk_insert: new file groups, the input streamed into files rolled by size
 *   merge      an existing group's base file rewritten with its updates, deletes and inserts (COW; MOR small files),
 *              keeping the old file's unchanged row groups and column chunks (write/rgcopy.h); a file that only
 *              takes inserts is kept whole without being read (keep_and_append)
 *   append     MOR: an existing group's updates and deletes as one new log file
 *   lsm        MOR, LSM layout: sorted native log files; bucket index: rows routed to their bucket's group
 *
 * Each records its write statistics (add_stat) for the commit metadata. writer.c decides which group gets which
 * rows and runs the commit around them.
 */
#include "write/writer_int.h"
#include "write/wcdc.h"

/* ---- records ---- */

/* Append a string to a STRING array whose buffers were reserved: straight into them (the general append is a
 * tenth of a bulk insert's time); hoodie_array_append_bytes when the room or the layout is not there. */
static inline hoodie_status put_str(hoodie_array *a, const hoodie_field *f, const char *p, size_t len)
{
    if (a->validity || a->values_len + len > a->values_cap || a->values_len + len > INT32_MAX ||
        (size_t)(a->length + 2) * 4 > a->offsets_cap)
        return hoodie_array_append_bytes(a, f, p, len);
    if (len) memcpy(a->values + a->values_len, p, len);
    a->values_len += len;
    a->offsets[++a->length] = (int32_t)a->values_len;
    return HOODIE_OK;
}

/* n copies of one value (a constant column: commit time, partition path, file name): copied once, then the filled
 * bytes doubled, instead of a copy per row. */
static hoodie_status put_const(hoodie_array *a, const hoodie_field *f, const char *p, size_t len, size_t n)
{
    size_t total;
    if (a->validity || hoodie_mul_overflow(len, n, &total) || a->values_len + total > INT32_MAX) {
        for (size_t k = 0; k < n; k++) HOODIE_TRY(put_str(a, f, p, len)); /* the general path reports limits */
        return HOODIE_OK;
    }
    HOODIE_TRY(hoodie_array_reserve(a, f, a->length + (int64_t)n, a->values_len + total));
    hoodie_mem_repeat(a->values + a->values_len, p, len, n);
    int32_t *o = a->offsets + a->length + 1;
    int32_t at = (int32_t)a->values_len;
    for (size_t k = 0; k < n; k++) o[k] = at + (int32_t)((k + 1) * len);
    a->values_len += total;
    a->length += (int64_t)n;
    return HOODIE_OK;
}

static hoodie_status make_meta(wctx *w, const wgroup *g, const int64_t *rows, size_t n, const char *file_name,
                               int64_t seq_start, size_t n_const, hoodie_batch *out);

/* The rows of the input (in the order given) as file records: meta columns + data. file_name NULL: the file-name
 * column is left empty (length 0) for a base-file writer that fills it (hoodie_basefile_opts.file_name). */
static hoodie_status make_records(wctx *w, const wgroup *g, const int64_t *rows, size_t n, const char *file_name,
                                  int64_t seq_start, hoodie_batch *out)
{
    HOODIE_TRY(make_meta(w, g, rows, n, file_name, seq_start, n, out));
    hoodie_status rc = HOODIE_OK;
    for (size_t c = 0; c < w->data_schema.n_children && rc == HOODIE_OK; c++)
        rc = hoodie_array_take(&out->root.children[5 + c], &out->schema.children[5 + c], &w->in.root.children[c],
                               rows, n);
    if (rc < 0) hoodie_batch_dispose(out);
    return rc;
}

/* File records whose meta columns are filled and whose data columns are left empty (length 0). The constant
 * columns (commit time, partition path, file name) get n_const rows: n, or 1 for encoder sources taking row 0. */
static hoodie_status make_meta(wctx *w, const wgroup *g, const int64_t *rows, size_t n, const char *file_name,
                               int64_t seq_start, size_t n_const, hoodie_batch *out)
{
    HOODIE_TRY(hoodie_batch_init(out, &w->file_schema));
    hoodie_status rc = HOODIE_OK;
    hoodie_field *fs = &out->schema;
    hoodie_array *cols = out->root.children;
    char seq[96];
    size_t inst_len = strlen(w->tx.inst.requested);
    int pl0 = snprintf(seq, 64, "%s_%d_", w->tx.inst.requested, g->ordinal);
    size_t prefix_len = pl0 > 0 && pl0 < 64 ? (size_t)pl0 : 0;
    /* the meta columns' buffers sized once: no regrowth row by row */
    size_t kbytes = 0, fl = file_name ? strlen(file_name) : 0, n_keys = n;
    for (size_t i = 0; !w->no_meta && i < n; i++) {
        size_t kl;
        (void)key_at(&w->keys, rows[i], &kl);
        kbytes += kl;
    }
    if (w->no_meta) {
        /* no meta fields: the first four null and the file name, as Spark's writer leaves them */
        for (int c = 0; c < 4 && rc == HOODIE_OK; c++)
            rc = hoodie_array_append_nulls(&cols[c], &fs->children[c], (int64_t)n);
        if (rc == HOODIE_OK && file_name) rc = put_const(&cols[4], &fs->children[4], file_name, fl, n);
        kbytes = 0;
        n_keys = 0;
    }
    /* a group's rows share their partition (and the commit time and file name): constant columns */
    const char *part = w->part_names[g->part];
    if (rc == HOODIE_OK && n_keys) rc = put_const(&cols[0], &fs->children[0], w->tx.inst.requested, inst_len, n_const);
    if (rc == HOODIE_OK && n_keys) rc = put_const(&cols[3], &fs->children[3], part, strlen(part), n_const);
    if (rc == HOODIE_OK && n_keys && file_name) rc = put_const(&cols[4], &fs->children[4], file_name, fl, n_const);
    if (rc == HOODIE_OK && n_keys)
        rc = hoodie_array_reserve(&cols[1], &fs->children[1], (int64_t)n, n * (prefix_len + 20));
    if (rc == HOODIE_OK && n_keys) rc = hoodie_array_reserve(&cols[2], &fs->children[2], (int64_t)n, kbytes);
    for (size_t i = 0; i < n_keys && rc == HOODIE_OK; i++) {
        int64_t r = rows[i];
        size_t kl;
        const char *k = key_at(&w->keys, r, &kl);
        /* INSTANT_TASK_N: the prefix once, the number in place (no printf per row) */
        size_t sl = prefix_len;
        char digits[24];
        int nd = 0;
        for (uint64_t v = (uint64_t)(seq_start + (int64_t)i);; v /= 10) {
            digits[nd++] = (char)('0' + v % 10);
            if (v < 10) break;
        }
        while (nd) seq[sl++] = digits[--nd];
        rc = put_str(&cols[1], &fs->children[1], seq, sl);
        if (rc == HOODIE_OK) rc = put_str(&cols[2], &fs->children[2], k, kl);
    }
    out->root.length = (int64_t)n;
    if (rc < 0) hoodie_batch_dispose(out);
    return rc;
}

/* ---- stats ---- */

static hoodie_wstat *add_stat(wctx *w)
{
    if (w->n_stats == w->cap_stats) {
        size_t nc = w->cap_stats ? w->cap_stats * 2 : 16;
        hoodie_wstat *s = realloc(w->stats, nc * sizeof *s);
        if (!s) { HOODIE_NOMEM(); return NULL; }
        w->stats = s;
        w->cap_stats = nc;
    }
    hoodie_wstat *s = &w->stats[w->n_stats++];
    memset(s, 0, sizeof *s);
    return s;
}

/* ---- base files ---- */

static hoodie_status record_file(wctx *w, const wgroup *g, const char *rel, const char *prev_commit, int64_t rows,
                                 int64_t inserts, int64_t updates, int64_t deletes, uint64_t size);

/* reuse: the footer index of the old file whose records the new one begins with, in place (reuse_rows of them, 0:
 * all of the new file's), or NULL (hoodie_basefile_opts) */
static hoodie_status write_base(wctx *w, wgroup *g, const hoodie_basefile_part *bp, size_t n_parts, const char *name,
                                const char *prev_commit, int64_t inserts, int64_t updates, int64_t deletes,
                                char *const *reuse, int64_t reuse_rows)
{
    const char *partition = w->part_names[g->part];
    char *rel = *partition ? hoodie_arena_sprintf(w->arena, "%s/%s", partition, name) : hoodie_arena_strdup(w->arena, name);
    char *path = hoodie_arena_sprintf(w->arena, "%s/%s", w->t->base_path, rel);
    if (!rel || !path) return HOODIE_ENOMEM;
    int64_t rows = 0;
    uint64_t size = 0;
    hoodie_basefile_opts bo = { w->s, path, &w->file_schema, w->avro_file_schema, w->o.codec, 0, w->o.bloom_num_entries,
                                reuse ? reuse[0] : NULL, reuse ? reuse[1] : NULL, reuse ? reuse[2] : NULL,
                                reuse ? reuse[3] : NULL, w->no_meta, name, reuse ? reuse_rows : 0 };
    hoodie_status rc = hoodie_write__marker(&w->tx, partition, name, g->existing ? HOODIE_MARKER_MERGE : HOODIE_MARKER_CREATE);
    if (rc == HOODIE_OK) rc = hoodie_write__partition_metadata(w->s, w->t->base_path, partition, w->tx.inst.requested);
    if (rc == HOODIE_OK) rc = hoodie_basefile_write_parts(&bo, bp, n_parts, &size, &rows);
    if (rc < 0) return rc;
    return record_file(w, g, rel, prev_commit, rows, inserts, updates, deletes, size);
}

/* The write statistics of a base file written for group g (rel: its path relative to the table). */
static hoodie_status record_file(wctx *w, const wgroup *g, const char *rel, const char *prev_commit, int64_t rows,
                                 int64_t inserts, int64_t updates, int64_t deletes, uint64_t size)
{
    const char *partition = w->part_names[g->part];
    const char *file_id = hoodie_arena_strdup(w->arena, g->file_id); /* w->groups may move */
    hoodie_wstat *st = file_id ? add_stat(w) : NULL;
    if (!st) return HOODIE_ENOMEM;
    st->partition_path = partition;
    st->file_id = file_id;
    st->path = rel;
    st->prev_commit = prev_commit;
    /* a merge names the base file it rewrote (Hudi 1.x's prevBaseFile: the record index's diff of the two) */
    if (prev_commit && g->existing && g->slice && g->slice->base) st->prev_base_file = g->slice->base->name;
    st->num_writes = rows;
    st->num_inserts = inserts;
    st->num_update_writes = updates;
    st->num_deletes = deletes;
    st->total_write_bytes = (int64_t)size;
    st->file_size_in_bytes = (int64_t)size;
    w->res.files_written++;
    w->res.bytes_written += (int64_t)size;
    return HOODIE_OK;
}

hoodie_status hoodie_wr__create_handle(wctx *w, wgroup *g)
{
    char token[32], name[256];
    hoodie_buf nb = HOODIE_BUF_INIT;
    write_token(g, token, sizeof token);
    HOODIE_TRY(hoodie_file_name_base(&nb, g->file_id, token, w->tx.inst.requested, "parquet"));
    snprintf(name, sizeof name, "%s", (const char *)nb.data);
    hoodie_buf_dispose(&nb);
    hoodie_batch recs;
    if (w->cfg->lsm_tree) HOODIE_TRY(hoodie_lsm_sort_rows(&w->keys, g->inserts.v, g->inserts.n));
    HOODIE_TRY(make_records(w, g, g->inserts.v, g->inserts.n, NULL, 0, &recs)); /* write_base names the file */
    hoodie_basefile_part part = { &recs, NULL, NULL, 0, NULL, 0 };
    hoodie_status rc = write_base(w, g, &part, 1, name, NULL, (int64_t)g->inserts.n, 0, 0, NULL, 0);
    hoodie_batch_dispose(&recs);
    w->res.inserts += (int64_t)g->inserts.n;
    return rc;
}

/*
 * bulk_insert: a new group's rows streamed into its base file a chunk of records at a time (memory: one chunk and
 * the Parquet writer's row group instead of the group's records). The groups are sized by the record-size estimate
 * like inserts (Spark's bulk insert splits by its input partitions, which the estimate stands in for); a file that
 * reaches hoodie.parquet.max.file.size by its actual size is closed anyway and the rest goes to a new file group,
 * as Hudi's bulk insert handles roll.
 */
#define BULK_CHUNK_ROWS 4096
#define BULK_ROW_GROUP_ROWS 131072

/* A base file being written by bulk_insert for group gi. */
typedef struct bulk_file {
    size_t gi;
    hoodie_basefile_stream *bs;     /* NULL: none open */
    char *name, *rel;               /* arena */
    int64_t rows;
} bulk_file;

static hoodie_status bulk_file_open(wctx *w, size_t gi, bulk_file *f)
{
    const char *partition = w->part_names[w->groups[gi].part];
    char token[32];
    hoodie_buf nb = HOODIE_BUF_INIT;
    write_token(&w->groups[gi], token, sizeof token);
    HOODIE_TRY(hoodie_write__heartbeat_tick(w->s, w->t->base_path, w->tx.inst.requested));
    HOODIE_TRY(hoodie_file_name_base(&nb, w->groups[gi].file_id, token, w->tx.inst.requested, "parquet"));
    f->gi = gi;
    f->rows = 0;
    f->name = hoodie_arena_strdup(w->arena, (const char *)nb.data);
    hoodie_buf_dispose(&nb);
    f->rel = !f->name ? NULL : *partition ? hoodie_arena_sprintf(w->arena, "%s/%s", partition, f->name) : f->name;
    char *path = f->rel ? hoodie_arena_sprintf(w->arena, "%s/%s", w->t->base_path, f->rel) : NULL;
    if (!path) return HOODIE_ENOMEM;
    HOODIE_TRY(hoodie_write__marker(&w->tx, partition, f->name, HOODIE_MARKER_CREATE));
    HOODIE_TRY(hoodie_write__partition_metadata(w->s, w->t->base_path, partition, w->tx.inst.requested));
    hoodie_basefile_opts bo = { w->s, path, &w->file_schema, w->avro_file_schema, w->o.codec, 0, w->o.bloom_num_entries,
                                NULL, NULL, NULL, NULL, w->no_meta, f->name, 0 };
    return hoodie_basefile_stream_open(&f->bs, &bo, BULK_ROW_GROUP_ROWS, 0, 0);
}

/* Append input rows[0..n) to the open file in chunks of records (the file's sequence numbers continue). */
static hoodie_status bulk_file_write(wctx *w, bulk_file *f, const int64_t *rows, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t k = n - done < BULK_CHUNK_ROWS ? n - done : BULK_CHUNK_ROWS;
        /* the meta columns made, the data columns written from the input, picked by row (no gathered copy) */
        hoodie_batch recs;
        HOODIE_TRY(make_meta(w, &w->groups[f->gi], rows + done, k, NULL, f->rows, k, &recs)); /* named by the stream */
        size_t nc = recs.root.n_children;
        hoodie_array *cols = malloc(nc * sizeof *cols);
        const int64_t **sel = calloc(nc, sizeof *sel);
        hoodie_status rc = cols && sel ? HOODIE_OK : HOODIE_NOMEM();
        if (rc == HOODIE_OK) {
            hoodie_array root = recs.root;
            for (size_t c = 0; c < nc; c++) {
                cols[c] = c < 5 ? recs.root.children[c] : w->in.root.children[c - 5]; /* borrowed */
                if (c >= 5) sel[c] = rows + done;
            }
            root.children = cols;
            rc = hoodie_basefile_stream_write_selected(f->bs, &root, sel);
        }
        free(cols);
        free(sel);
        hoodie_batch_dispose(&recs);
        if (rc < 0) return rc;
        done += k;
        f->rows += (int64_t)k;
        w->res.inserts += (int64_t)k;
    }
    return HOODIE_OK;
}

static hoodie_status bulk_file_close(wctx *w, bulk_file *f)
{
    uint64_t size = 0;
    int64_t nrows = 0;
    hoodie_status rc = hoodie_basefile_stream_close(f->bs, &size, &nrows);
    hoodie_basefile_stream_free(f->bs);
    f->bs = NULL;
    if (rc == HOODIE_OK) rc = record_file(w, &w->groups[f->gi], f->rel, NULL, nrows, nrows, 0, 0, size);
    return rc;
}

static int64_t max_file_size(const wctx *w)
{
    return w->o.max_file_size > 0 ? w->o.max_file_size : DEFAULT_MAX_FILE;
}

hoodie_status hoodie_wr__bulk_handle(wctx *w, size_t gi)
{
    const int64_t *rows = w->groups[gi].inserts.v;
    size_t total = w->groups[gi].inserts.n, done = 0;
    uint32_t part = w->groups[gi].part;
    hoodie_status rc = HOODIE_OK;
    while (rc == HOODIE_OK && done < total) {
        if (done && !hoodie_wr__new_group(w, part, NULL)) return HOODIE_ENOMEM;
        bulk_file f = { 0 };
        HOODIE_TRY(bulk_file_open(w, done ? w->n_groups - 1 : gi, &f));
        while (rc == HOODIE_OK && done < total && (int64_t)hoodie_basefile_stream_bytes(f.bs) < max_file_size(w)) {
            size_t n = total - done < BULK_CHUNK_ROWS ? total - done : BULK_CHUNK_ROWS;
            rc = bulk_file_write(w, &f, rows + done, n);
            done += n;
        }
        if (rc == HOODIE_OK) rc = bulk_file_close(w, &f);
        else hoodie_basefile_stream_free(f.bs);
    }
    return rc;
}

/* A new file group for bucket b of partition part, its file id beginning with the bucket's number. */
static wgroup *new_bucket_group(wctx *w, uint32_t part, int b)
{
    wgroup *g = hoodie_wr__new_group(w, part, NULL);
    if (!g) return NULL;
    char id[80];
    hoodie_bucket_file_id(id, sizeof id, b, g->file_id);
    snprintf(g->file_id, sizeof g->file_id, "%s", id);
    return g;
}

/* The row groups the open files hold in memory together stay under BULK_BUFFER_BUDGET bytes: past it, the largest
 * ones are written out (smaller row groups) until they hold half. Many files can be open at once: one per partition
 * written, or per bucket and partition. */
#define BULK_BUFFER_BUDGET ((uint64_t)128 << 20)
static hoodie_status bulk_bound_memory(bulk_file *files, size_t n)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        if (files[i].bs) total += hoodie_basefile_stream_buffered(files[i].bs);
    if (total <= BULK_BUFFER_BUDGET) return HOODIE_OK;
    while (total > BULK_BUFFER_BUDGET / 2) {
        size_t big = n;
        uint64_t most = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t b = files[i].bs ? hoodie_basefile_stream_buffered(files[i].bs) : 0;
            if (b > most) { most = b; big = i; }
        }
        if (big == n) break;
        HOODIE_TRY(hoodie_basefile_stream_flush(files[big].bs));
        total -= most;
    }
    return HOODIE_OK;
}

/*
 * bulk_insert without combining (Hudi's default, hoodie.combine.before.insert=false), streamed: the input is read a
 * batch at a time and each row goes to its partition's open file group; a group holds the records the size estimate
 * allows (as assign() sizes new groups) unless its file reaches hoodie.parquet.max.file.size first, then a new group
 * takes the partition's next rows. With the bucket index, each bucket of a partition has its one group, never rolled
 * over. Memory: one input batch and the open files' row groups (bulk_bound_memory), whatever the input's size. As
 * Hudi's bulk insert, the inflight instant is empty (no workload is known in advance).
 */
static hoodie_status bulk_route_batch(wctx *w, hoodie_hmap *pmap, bulk_file **files, rowvec **rows, int64_t per_file)
{
    int64_t n = w->in.root.length;
    /* the slots rows go to: one per partition, or with the bucket index one per bucket of each partition */
    size_t nb = w->cfg->bucket_index ? (size_t)w->cfg->bucket_count : 1;
    HOODIE_TRY(hoodie_keygen_record_keys(&w->kg, &w->in, &w->keys));
    HOODIE_TRY(hoodie_keygen_partition_paths(&w->kg, &w->in, &w->parts));
    int del_col = hoodie_field_find(&w->in.schema, "_hoodie_is_deleted");
    const hoodie_array *del = del_col >= 0 && w->in.schema.children[del_col].type.id == HOODIE_TYPE_BOOL
                                  ? &w->in.root.children[del_col] : NULL;
    hoodie_delete_marker mk; /* the table's custom delete marker (AWS DMS: Op = 'D') */
    hoodie_delete_marker_of(w->cfg, &w->in.schema, &mk);
    for (size_t sl = 0; sl < w->n_parts * nb; sl++) (*rows)[sl].n = 0;
    for (int64_t r = 0; r < n; r++) {
        if (del && hoodie_array_is_valid(del, r) && hoodie_bit_get(del->values, r)) continue; /* nothing to delete */
        if (mk.col >= 0 && hoodie_delete_marked(&mk, &w->in, r)) continue;
        size_t pl;
        const char *p = key_at(&w->parts, r, &pl);
        uint64_t *slot = hoodie_hmap_get(pmap, p, pl);
        if (!slot) { /* a new partition: the map's key is its name, which outlives the batch */
            size_t np = w->n_parts + 1;
            char **names = realloc(w->part_names, np * sizeof *names);
            if (names) w->part_names = names;
            bulk_file *nf = names ? realloc(*files, np * nb * sizeof *nf) : NULL;
            if (nf) *files = nf;
            rowvec *nr = nf ? realloc(*rows, np * nb * sizeof *nr) : NULL;
            if (!nr) return HOODIE_NOMEM();
            *rows = nr;
            memset(&(*files)[w->n_parts * nb], 0, nb * sizeof **files);
            memset(&(*rows)[w->n_parts * nb], 0, nb * sizeof **rows);
            if (!(w->part_names[w->n_parts] = strndup(pl ? p : "", pl))) return HOODIE_NOMEM();
            int existed;
            HOODIE_TRY(hoodie_hmap_upsert(pmap, w->part_names[w->n_parts], pl, &slot, &existed));
            *slot = w->n_parts++;
        }
        size_t b = 0;
        if (w->cfg->bucket_index) {
            size_t kl;
            const char *k = key_at(&w->keys, r, &kl);
            b = (size_t)hoodie_bucket_id(k, kl, w->cfg->bucket_hash_fields.items, w->cfg->bucket_hash_fields.count,
                                         (int)nb);
        }
        HOODIE_TRY(rv_push(&(*rows)[*slot * nb + b], r));
    }
    for (size_t sl = 0; sl < w->n_parts * nb; sl++) {
        const int64_t *v = (*rows)[sl].v;
        size_t left = (*rows)[sl].n;
        bulk_file *f = &(*files)[sl];
        while (left) {
            if (!f->bs) {
                wgroup *g = w->cfg->bucket_index ? new_bucket_group(w, (uint32_t)(sl / nb), (int)(sl % nb))
                                                 : hoodie_wr__new_group(w, (uint32_t)(sl / nb), NULL);
                if (!g) return HOODIE_ENOMEM;
                HOODIE_TRY(bulk_file_open(w, w->n_groups - 1, f));
            }
            size_t k = per_file - f->rows < (int64_t)left ? (size_t)(per_file - f->rows) : left;
            if (k > BULK_CHUNK_ROWS) k = BULK_CHUNK_ROWS; /* the size is checked a chunk at a time */
            HOODIE_TRY(bulk_file_write(w, f, v, k));
            v += k;
            left -= k;
            /* a bucket's file never rolls over: the bucket index knows one file group per bucket */
            if (!w->cfg->bucket_index &&
                (f->rows >= per_file || (int64_t)hoodie_basefile_stream_bytes(f->bs) >= max_file_size(w)))
                HOODIE_TRY(bulk_file_close(w, f));
        }
    }
    return bulk_bound_memory(*files, w->n_parts * nb);
}

/* bulk_insert streamed (see above). A table with the bucket index streams only while it has no file group: each
 * bucket of each partition then gets one new group; otherwise the rows of existing buckets must merge into their
 * groups, and hoodie_table_write takes the way of inserts. */
hoodie_status hoodie_wr__bulk_stream(wctx *w, hoodie_arrow_reader *r)
{
    int64_t per_file = w->cfg->bucket_index ? INT64_MAX : max_file_size(w) / (w->record_size > 0 ? w->record_size : 1);
    if (per_file < 1) per_file = 1;
    size_t nb = w->cfg->bucket_index ? (size_t)w->cfg->bucket_count : 1;
    HOODIE_TRY(hoodie_write__begin(&w->tx, w->s, w->t->base_path, w->cfg, w->action, NULL, 0));
    w->tx_started = 1;
    HOODIE_TRY(hoodie_write__inflight(&w->tx, "", 0));
    hoodie_hmap pmap = HOODIE_HMAP_INIT;
    bulk_file *files = NULL;
    rowvec *rows = NULL;
    hoodie_status rc = hoodie_hmap_init(&pmap, 64);
    while (rc == HOODIE_OK) {
        hoodie_batch raw;
        rc = hoodie_arrow_reader_next(r, &raw);
        if (rc == HOODIE_ITEROVER) { rc = HOODIE_OK; break; }
        if (rc < 0) break;
        /* an input stream may take its time: beat between batches */
        rc = hoodie_write__heartbeat_tick(w->s, w->t->base_path, w->tx.inst.requested);
        if (rc < 0) { hoodie_batch_dispose(&raw); break; }
        if (w->have_in) { hoodie_batch_dispose(&w->in); w->have_in = 0; }
        rc = hoodie_conform_batch(&w->in, &w->data_schema, &raw);
        hoodie_batch_dispose(&raw);
        if (rc < 0) { hoodie_error__prefix("input: "); break; }
        w->have_in = 1;
        rc = bulk_route_batch(w, &pmap, &files, &rows, per_file);
    }
    for (size_t sl = 0; sl < w->n_parts * nb; sl++) {
        if (files[sl].bs && rc == HOODIE_OK) rc = bulk_file_close(w, &files[sl]);
        else if (files[sl].bs) hoodie_basefile_stream_free(files[sl].bs);
        free(rows[sl].v);
    }
    free(files);
    free(rows);
    hoodie_hmap_dispose(&pmap);
    return rc;
}

/* Rewrite an existing base file with the group's updates, deletes and inserts (COW; MOR small files). */
/* A merge's output: batches of file records, each with the chunks it copies (NULL: none). */
static void merge_parts_free(hoodie_basefile_part *bp, size_t n)
{
    for (size_t i = 0; bp && i < n; i++) free((void *)bp[i].roots);
    free(bp);
}

/* A merge's output, row group by row group: the rows as references into the old file's scan batches (each part
 * owns its own) and the new records (`fresh`, the source after a part's batches), written without a gather. */
typedef struct merge_out {
    hoodie_rgcopy_part *p;
    size_t n, cap;
} merge_out;

static hoodie_status merge_out_push(merge_out *o, hoodie_rgcopy_part *p)
{
    if (o->n == o->cap) {
        size_t nc = o->cap ? o->cap * 2 : 8;
        hoodie_rgcopy_part *np = realloc(o->p, nc * sizeof *np);
        if (!np) { hoodie_rgcopy_part_dispose(p); return HOODIE_NOMEM(); }
        o->p = np;
        o->cap = nc;
    }
    o->p[o->n++] = *p;
    return HOODIE_OK;
}

static void merge_out_dispose(merge_out *o)
{
    for (size_t i = 0; i < o->n; i++) hoodie_rgcopy_part_dispose(&o->p[i]);
    free(o->p);
}

/* The merged records of the old file's pending row group (write/rgcopy.h). */
static hoodie_status merge_row_group(hoodie_rgcopy *rcp, int complete, merge_out *out)
{
    hoodie_rgcopy_part p;
    HOODIE_TRY(hoodie_rgcopy_take_refs(rcp, complete, &p));
    return merge_out_push(out, &p);
}

/* The output's parts as base-file parts over their batches, `fresh` and `filled` (the records of fill_record, or
 * NULL) (roots: malloc, one array per part). */
static hoodie_status merge_out_parts(const merge_out *o, const hoodie_batch *fresh, const hoodie_batch *filled,
                                     hoodie_basefile_part **out)
{
    hoodie_basefile_part *bp = calloc(o->n + 1, sizeof *bp);
    if (!bp) return HOODIE_NOMEM();
    for (size_t i = 0; i < o->n; i++) {
        const hoodie_rgcopy_part *p = &o->p[i];
        const hoodie_array **roots = malloc((p->n_old + 2) * sizeof *roots);
        if (!roots) { merge_parts_free(bp, i); return HOODIE_NOMEM(); }
        for (size_t k = 0; k < p->n_old; k++) roots[k] = &p->old[k].root;
        roots[p->n_old] = &fresh->root;
        if (filled) roots[p->n_old + 1] = &filled->root;
        bp[i].copies = p->copies;
        bp[i].roots = roots;
        bp[i].n_roots = p->n_old + 1 + (filled != NULL);
        bp[i].refs = p->refs;
        bp[i].n_refs = p->n;
    }
    *out = bp;
    return HOODIE_OK;
}

/*
 * A merged record that takes values from the record it won over (w->fill_file): the Postgres payload's update
 * keeps the stored value where it holds the TOASTed marker (combineAndGetUpdateValue); version 9's partial updates
 * fill whichever record wins (Hudi 1.1's PartialUpdateHandler). The winner is *ref (source 0: old, 1: fresh), the
 * loser row lr of lb; when the winner lacks values, the record is made in `filled` and *ref points to it (source
 * 2). _hoodie_file_name is the writer's constant, in no batch.
 */
static hoodie_status fill_record(const wctx *w, hoodie_batch *filled, const hoodie_batch *old, const hoodie_batch *fresh,
                                 hoodie_row_ref *ref, const hoodie_batch *lb, int64_t lr)
{
    const hoodie_batch *wb = ref->source ? fresh : old;
    int disorder = !ref->source; /* the stored record wins: PartialUpdateAvroPayload makes it one of this commit */
    if (!hoodie_fill_wanted(&w->fill_file, wb, ref->row, lb, lr, disorder)) return HOODIE_OK;
    HOODIE_TRY(hoodie_fill_append(&w->fill_file, filled, wb, ref->row, lb, lr, disorder, 4, &ref->row));
    ref->source = 2;
    return HOODIE_OK;
}

/* The key index in a base file's footer: bloom filter, its type code, min and max record keys. */
static const char *const index_kv[4] = { "org.apache.hudi.bloomfilter", "hoodie_bloom_filter_type_code",
                                         "hoodie_min_record_key", "hoodie_max_record_key" };

int64_t hoodie_wr__keep_rg_rows = 65536, hoodie_wr__keep_rg_bytes = 8LL << 20;

/* Row groups [from, to) of the old file read and written into the stream as its records (keep_and_append). */
static hoodie_status rewrite_row_groups(wctx *w, hoodie_parquet_reader *r, uint32_t from, uint32_t to,
                                        hoodie_basefile_stream *bs)
{
    uint32_t *idx = malloc((to - from + 1) * sizeof *idx);
    if (!idx) return HOODIE_NOMEM();
    for (uint32_t i = from; i < to; i++) idx[i - from] = i;
    hoodie_pq_scan *sc = NULL;
    hoodie_status rc = hoodie_pqfile__scan_open_row_groups(r, idx, to - from, &sc);
    while (rc == HOODIE_OK) {
        hoodie_batch raw, old;
        if ((rc = hoodie_pq_scan_next(sc, &raw)) < 0) break;
        rc = hoodie_conform_batch(&old, &w->file_schema, &raw);
        hoodie_batch_dispose(&raw);
        if (rc < 0) break;
        rc = hoodie_basefile_stream_write(bs, &old); /* keys already in the continued filter; the stream names the file */
        hoodie_batch_dispose(&old);
    }
    hoodie_pq_scan_free(sc);
    free(idx);
    return rc == HOODIE_ITEROVER ? HOODIE_OK : rc;
}

/*
 * A group that only takes inserts (a small file filled): its file is kept whole. Its row groups are copied chunk by
 * chunk without being read, except _hoodie_file_name, which names the new file as the merge names every record;
 * its bloom filter is continued with the inserts' keys (a filter is a function of the key sequence, so this is the
 * filter a rebuild from all the keys gives), and the inserts follow. Row groups under hoodie_wr__keep_rg_rows rows
 * and hoodie_wr__keep_rg_bytes bytes at the end of the file are read and written again with the inserts instead, so
 * that a file filled by many small inserts does not end up as many small row groups. *done = 0 and
 * nothing written when the file cannot be kept so (no meta fields, change data capture, the LSM layout's sorted
 * files, another codec or column layout, a filter of another kind or sizing): the merge reads it instead.
 * r: the old file, open (its scans are freed here).
 */
static hoodie_status keep_and_append(wctx *w, wgroup *g, hoodie_parquet_reader *r, const char *name, int *done)
{
    *done = 0;
    if (w->no_meta || w->cfg->cdc || w->cfg->lsm_tree) return HOODIE_OK;
    const char *idx[4];
    int ok = 1;
    for (int i = 0; i < 4; i++)
        if (!(idx[i] = hoodie_parquet_reader_kv(r, index_kv[i]))) ok = 0;
    if (ok && strcmp(idx[1], "DYNAMIC_V0")) ok = 0;
    const hoodie_pq_file *src = hoodie_pqfile__file(r);
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(src);
    hoodie_basefile_copymap map = { 0 };
    hoodie_parquet_write_opts po = HOODIE_PARQUET_WRITE_OPTS_INIT;
    hoodie_pq_writer_opts fo;
    hoodie_arena *a = NULL;
    const hoodie_pq_chunk_copy *const **copies = NULL;
    po.codec = w->o.codec;
    hoodie_status rc = hoodie_pqwrite_map_opts(&po, &fo);
    if (rc == HOODIE_OK && ok) rc = hoodie_basefile_copy_map(&w->file_schema, src, &map);
    if (rc == HOODIE_OK && ok) rc = hoodie_arena_new(&a, NULL, 0);
    if (rc == HOODIE_OK && ok && !(copies = hoodie_arena_calloc(a, m->row_group_count + 1, sizeof *copies)))
        rc = HOODIE_NOMEM();
    uint32_t keep = m->row_group_count; /* the row groups kept; the small ones after them are written again */
    while (keep > 0 && m->row_groups[keep - 1].num_rows < hoodie_wr__keep_rg_rows &&
           m->row_groups[keep - 1].total_byte_size < hoodie_wr__keep_rg_bytes)
        keep--;
    /* every chunk read first (a small file: under hoodie.parquet.small.file.limit), so nothing is written unless
     * all of them can be copied */
    for (uint32_t rg = 0; rc == HOODIE_OK && ok && rg < keep; rg++) {
        rc = hoodie_rgcopy_whole(a, &map, src, rg, fo.codec, 4, &copies[rg]);
        if (rc == HOODIE_OK && !copies[rg] && m->row_groups[rg].num_rows) ok = 0;
    }
    const char *partition = w->part_names[g->part];
    char *rel = NULL, *path = NULL;
    if (rc == HOODIE_OK && ok) {
        rel = *partition ? hoodie_arena_sprintf(w->arena, "%s/%s", partition, name) : hoodie_arena_strdup(w->arena, name);
        path = rel ? hoodie_arena_sprintf(w->arena, "%s/%s", w->t->base_path, rel) : NULL;
        if (!path) rc = HOODIE_ENOMEM;
    }
    hoodie_basefile_stream *bs = NULL;
    int64_t old_rows = hoodie_parquet_reader_num_rows(r);
    if (rc == HOODIE_OK && ok) { /* the file appears only when closed: opened (and the filter tried) before the marker */
        hoodie_basefile_opts bo = { w->s, path, &w->file_schema, w->avro_file_schema, w->o.codec, 0,
                                    w->o.bloom_num_entries, NULL, NULL, NULL, NULL, 0, name, 0 };
        rc = hoodie_basefile_stream_open(&bs, &bo, 0, 0, 0);
        if (rc == HOODIE_OK) rc = hoodie_basefile_stream_seed(bs, idx[0], idx[1], idx[2], idx[3], old_rows);
        if (rc == HOODIE_OK && old_rows && hoodie_basefile_stream_seeded(bs) != old_rows) ok = 0;
    }
    if (rc == HOODIE_OK && ok) rc = hoodie_write__marker(&w->tx, partition, name, HOODIE_MARKER_MERGE);
    if (rc == HOODIE_OK && ok) rc = hoodie_write__partition_metadata(w->s, w->t->base_path, partition, w->tx.inst.requested);
    /* the old rows: a batch of their count whose columns are all copies or the file name (none is read) */
    hoodie_batch shell;
    int have_shell = 0;
    if (rc == HOODIE_OK && ok) {
        rc = hoodie_batch_init(&shell, &w->file_schema);
        have_shell = rc == HOODIE_OK;
    }
    for (uint32_t rg = 0; rc == HOODIE_OK && ok && rg < keep; rg++) {
        if (!m->row_groups[rg].num_rows) continue;
        shell.root.length = m->row_groups[rg].num_rows;
        rc = hoodie_basefile_stream_write_row_group(bs, &shell, copies[rg]);
    }
    if (have_shell) { shell.root.length = 0; hoodie_batch_dispose(&shell); }
    if (rc == HOODIE_OK && ok && keep < m->row_group_count) /* the small row groups at the end, with the inserts */
        rc = rewrite_row_groups(w, r, keep, m->row_group_count, bs);
    hoodie_batch fresh;
    if (rc == HOODIE_OK && ok) {
        rc = make_records(w, g, g->inserts.v, g->inserts.n, NULL, 0, &fresh); /* named by the stream */
        if (rc == HOODIE_OK) {
            rc = hoodie_basefile_stream_write(bs, &fresh);
            hoodie_batch_dispose(&fresh);
        }
    }
    uint64_t size = 0;
    int64_t rows = 0;
    if (rc == HOODIE_OK && ok) rc = hoodie_basefile_stream_close(bs, &size, &rows);
    hoodie_basefile_stream_free(bs); /* abandoned unless closed */
    if (rc == HOODIE_OK && ok)
        rc = record_file(w, g, rel, g->slice->base_instant, rows, (int64_t)g->inserts.n, 0, 0, size);
    if (rc == HOODIE_OK && ok) {
        w->res.inserts += (int64_t)g->inserts.n;
        *done = 1;
    }
    hoodie_arena_free(a);
    free(map.src_leaf);
    free(map.top);
    return rc;
}

hoodie_status hoodie_wr__merge_handle(wctx *w, wgroup *g)
{
    char token[32], name[256];
    hoodie_buf nb = HOODIE_BUF_INIT;
    write_token(g, token, sizeof token);
    HOODIE_TRY(hoodie_file_name_base(&nb, g->file_id, token, w->tx.inst.requested, "parquet"));
    snprintf(name, sizeof name, "%s", (const char *)nb.data);
    hoodie_buf_dispose(&nb);
    hoodie_parquet_read_opts ro = HOODIE_PARQUET_READ_OPTS_INIT;
    hoodie_parquet_reader *r = NULL;
    ro.storage = w->s;
    const hoodie_renames *rn;
    HOODIE_TRY(hoodie_evo_renames(w->t->evo, NULL, g->slice->base->instant, &rn));
    HOODIE_TRY(hoodie_pqfile__open(&r, g->slice->base->path, &ro, rn));
    if (!g->updates.n && g->inserts.n) {
        int done;
        hoodie_status krc = keep_and_append(w, g, r, name, &done);
        if (krc < 0 || done) { hoodie_parquet_reader_free(r); return krc; }
    }

    /* the group's input: key -> index into g->updates */
    hoodie_hmap m = HOODIE_HMAP_INIT;
    keybits kb;
    hoodie_status rc = hoodie_wr__key_index(w, &g->updates, &m, &kb);
    /* new versions of updated records, then inserts: one batch of file records */
    rowvec newrows = { 0 };
    for (size_t i = 0; rc == HOODIE_OK && i < g->updates.n; i++) rc = rv_push(&newrows, g->updates.v[i]);
    for (size_t i = 0; rc == HOODIE_OK && i < g->inserts.n; i++) rc = rv_push(&newrows, g->inserts.v[i]);
    hoodie_batch fresh;
    int have_fresh = 0;
    if (rc == HOODIE_OK) rc = make_records(w, g, newrows.v, newrows.n, NULL, 0, &fresh); /* named by write_base */
    have_fresh = rc == HOODIE_OK;
    /* records that take values from the record they won over (fill_record) */
    hoodie_batch filled;
    int have_filled = 0;
    if (rc == HOODIE_OK && (w->fill_file.cols || w->absent)) {
        rc = hoodie_batch_init(&filled, &w->file_schema);
        have_filled = rc == HOODIE_OK;
    }
    w->fresh = have_fresh ? &fresh : NULL; /* partial updates: its records lack w->absent's columns */

    hoodie_merge_mode mode = w->cfg->merge_mode == HOODIE_MERGE_EVENT_TIME_ORDERING ? HOODIE_MERGE_EVENT_TIME_ORDERING
                                                                                     : HOODIE_MERGE_COMMIT_TIME_ORDERING;
    int ord_file_col = w->ord_col >= 0 ? w->ord_col + 5 : -1;
    hoodie_pq_scan *sc = NULL;
    /* the old file's key index, reused when the new file's keys turn out to be the same sequence */
    char *reuse[4] = { NULL, NULL, NULL, NULL };
    int can_reuse = rc == HOODIE_OK;
    for (int i = 0; can_reuse && i < 4; i++) {
        const char *v = hoodie_parquet_reader_kv(r, index_kv[i]);
        if (!v || !(reuse[i] = strdup(v))) can_reuse = 0;
    }
    /* the old records' file names are not read: the new file's name replaces them (write_base) */
    if (rc == HOODIE_OK) rc = hoodie_pqfile__scan_open_without(r, "_hoodie_file_name", &sc);
    /* chunks of the old file the rewrite keeps as they are (write/rgcopy.h), in the new file's codec */
    hoodie_rgcopy rcp;
    int have_rcp = 0;
    hoodie_parquet_write_opts po = HOODIE_PARQUET_WRITE_OPTS_INIT;
    hoodie_pq_writer_opts fo;
    po.codec = w->o.codec;
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_map_opts(&po, &fo);
    if (rc == HOODIE_OK) {
        rc = hoodie_rgcopy_init(&rcp, &w->file_schema, &w->file_schema, 2, hoodie_pqfile__file(r), fo.codec);
        have_rcp = rc == HOODIE_OK;
        if (have_rcp) hoodie_rgcopy_exclude(&rcp, 4);
    }
    merge_out out = { 0 };
    hoodie_wcdc cdc; /* hoodie.table.cdc.enabled: the changes, logged beside the new file */
    hoodie_status crc = hoodie_wcdc_begin(&cdc, w);
    if (rc == HOODIE_OK) rc = crc;
    uint8_t *used = calloc(g->updates.n + 1, 1);
    if (!used && rc == HOODIE_OK) rc = HOODIE_NOMEM();
    int64_t updates = 0, deletes = 0, seq = (int64_t)newrows.n;
    hoodie_keygen_out old_keys;
    hoodie_keygen_out_init(&old_keys);
    while (rc == HOODIE_OK) {
        hoodie_batch raw, old;
        rc = hoodie_pq_scan_next(sc, &raw);
        if (rc < 0) break;
        rc = hoodie_conform_batch(&old, &w->file_schema, &raw);
        hoodie_batch_dispose(&raw);
        if (rc < 0) break;
        hoodie_row_ref *sel = malloc(((size_t)old.root.length + 1) * sizeof *sel);
        if (!sel) { hoodie_batch_dispose(&old); rc = HOODIE_NOMEM(); break; }
        size_t n = 0;
        const hoodie_array *ka = &old.root.children[2];
        if (w->no_meta) { /* no stored keys: formed from the key fields, as the index did */
            if (!w->have_kg_file) {
                rc = hoodie_keygen_init(&w->kg_file, w->cfg, &w->file_schema);
                w->have_kg_file = rc == HOODIE_OK;
            }
            if (rc == HOODIE_OK) rc = hoodie_keygen_record_keys(&w->kg_file, &old, &old_keys);
            if (rc < 0) { free(sel); hoodie_batch_dispose(&old); break; }
        }
        for (int64_t i = 0; i < old.root.length; i++) {
            size_t kl;
            const uint8_t *k;
            if (!w->no_meta) k = hoodie_array_bytes_at(ka, i, &kl);
            else { k = old_keys.data.data + old_keys.offsets[i]; kl = (size_t)(old_keys.offsets[i + 1] - old_keys.offsets[i]); }
            uint32_t h = g->updates.n ? hoodie_hmap_hash(k, kl) : 0;
            uint64_t *slot = g->updates.n && keybits_may(&kb, h) ? hoodie_hmap_get_hashed(&m, k, kl, h) : NULL;
            if (!slot) { sel[n].source = 0; sel[n].row = i; n++; continue; }
            used[*slot] = 1;
            int64_t inrow = g->updates.v[*slot];
            hoodie_merge_version vo = { 0 }, vn;
            if (ord_file_col >= 0)
                hoodie_ordering_of(&vo.ord, &old.schema.children[ord_file_col], &old.root.children[ord_file_col], i);
            if (w->policy.seq_ordering) hoodie_ordering_seq(&vo.ord);
            version_of(w, inrow, &vn);
            vo.n_more = w->n_more_ord;
            vo.more_cols = w->more_ord_file;
            vo.more_batch = &old;
            vo.more_row = i;
            if (!hoodie_merge_newer_wins(mode, &vo, &vn)) {
                sel[n].source = 0;
                sel[n].row = i;
                /* partial updates: the stored record stays, filled from the update */
                if (have_filled && w->fill_file.both && !vn.is_delete) {
                    if ((rc = fill_record(w, &filled, &old, &fresh, &sel[n], &fresh, (int64_t)*slot)) < 0) break;
                    if (sel[n].source == 2) updates++; /* the stored record, changed: an update of this commit */
                    if (sel[n].source == 2 && cdc.on &&
                        (rc = hoodie_wcdc_change(&cdc, w, i, k, kl, HOODIE_WCDC_FILLED(sel[n].row))) < 0)
                        break;
                }
                n++;
                continue;
            }
            if (vn.is_delete) {
                if (cdc.on && (rc = hoodie_wcdc_change(&cdc, w, i, k, kl, -1)) < 0) break;
                deletes++;
                continue;
            }
            updates++;
            sel[n].source = 1;
            sel[n].row = (int64_t)*slot;
            if (have_filled && !vo.is_delete && (rc = fill_record(w, &filled, &old, &fresh, &sel[n], &old, i)) < 0) break;
            /* the record as written: the incoming one, or the incoming one filled from the stored one */
            if (cdc.on && (rc = hoodie_wcdc_change(&cdc, w, i, k, kl, sel[n].source == 2 ? HOODIE_WCDC_FILLED(sel[n].row)
                                                                                         : sel[n].row)) < 0)
                break;
            n++;
        }
        if (rc == HOODIE_OK) rc = hoodie_wcdc_batch_end(&cdc, &old);
        if (rc < 0) { free(sel); hoodie_batch_dispose(&old); break; }
        const hoodie_batch *srcs[3] = { NULL, &fresh, have_filled ? &filled : NULL };
        rc = hoodie_rgcopy_push(&rcp, &old, srcs, have_filled ? 3 : 2, sel, n);
        free(sel);
        if (rc == HOODIE_OK && rcp.left <= 0) rc = merge_row_group(&rcp, rcp.left == 0, &out);
    }
    if (rc == HOODIE_ITEROVER) rc = rcp.n_pend ? merge_row_group(&rcp, 0, &out) : HOODIE_OK;
    hoodie_keygen_out_dispose(&old_keys);
    (void)seq;
    /* inserts assigned to this group (rows after the updates in `fresh`), after them the updates whose key the file
     * turned out not to hold (lookup() trusts a single bloom match on COW tables): those are inserts too */
    size_t n_ins = 0;
    int64_t *idx = rc == HOODIE_OK ? malloc((g->inserts.n + g->updates.n + 1) * sizeof *idx) : NULL;
    if (rc == HOODIE_OK && !idx) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < g->inserts.n; i++) idx[n_ins++] = (int64_t)(g->updates.n + i);
    for (size_t i = 0; rc == HOODIE_OK && i < g->updates.n; i++)
        if (!used[i] && !w->del[g->updates.v[i]]) idx[n_ins++] = (int64_t)i;
    for (size_t i = 0; rc == HOODIE_OK && cdc.on && i < n_ins; i++) {
        size_t kl;
        int64_t inrow = idx[i] < (int64_t)g->updates.n ? g->updates.v[idx[i]] : g->inserts.v[idx[i] - (int64_t)g->updates.n];
        const char *k = key_at(&w->keys, inrow, &kl);
        rc = hoodie_wcdc_insert(&cdc, w, k, kl, idx[i]);
    }
    if (rc == HOODIE_OK && n_ins) { /* a part of new records alone (fresh is its source 0) */
        hoodie_rgcopy_part ins = { NULL, 0, malloc(n_ins * sizeof(hoodie_row_ref)), n_ins, NULL };
        if (!ins.refs) rc = HOODIE_NOMEM();
        for (size_t i = 0; rc == HOODIE_OK && i < n_ins; i++) { ins.refs[i].source = 0; ins.refs[i].row = idx[i]; }
        if (rc == HOODIE_OK) rc = merge_out_push(&out, &ins);
    }
    free(idx);
    if (rc == HOODIE_OK) {
        hoodie_basefile_part *bp = NULL;
        rc = merge_out_parts(&out, &fresh, have_filled ? &filled : NULL, &bp);
        /* no deletes: every old record is there once, in place, so the key sequence is the old one, then the
         * inserts' (the old index is reused, continued with them) */
        can_reuse = can_reuse && !deletes;
        if (rc == HOODIE_OK)
            rc = write_base(w, g, bp, out.n, name, g->slice->base_instant, (int64_t)n_ins, updates, deletes,
                            can_reuse ? reuse : NULL, n_ins ? hoodie_parquet_reader_num_rows(r) : 0);
        if (rc == HOODIE_OK)
            rc = hoodie_wcdc_finish(&cdc, w, g, &fresh, have_filled ? &filled : NULL, &w->stats[w->n_stats - 1]);
        merge_parts_free(bp, out.n);
    }
    for (int i = 0; i < 4; i++) free(reuse[i]);
    w->res.inserts += (int64_t)n_ins;
    w->res.updates += updates;
    w->res.deletes += deletes;
    merge_out_dispose(&out);
    hoodie_wcdc_dispose(&cdc);
    if (have_rcp) hoodie_rgcopy_dispose(&rcp); /* after the write: the copies point into it */
    free(used);
    hoodie_pq_scan_free(sc);
    hoodie_parquet_reader_free(r);
    w->fresh = NULL;
    if (have_fresh) hoodie_batch_dispose(&fresh);
    if (have_filled) hoodie_batch_dispose(&filled);
    free(newrows.v);
    hoodie_hmap_dispose(&m);
    free(kb.w);
    return rc;
}

/*
 * Pending compactions of a v6 table: file group id -> compaction instant, from the plans
 * (HoodieCompactionPlan.operations[].fileId) of requested/inflight compaction instants. Loaded once per write.
 */
static hoodie_status load_pending_compactions(wctx *w)
{
    const hoodie_timeline *tl = w->t->tl;
    w->pending_loaded = 1;
    for (size_t i = 0; i < tl->count; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->state == HOODIE_STATE_COMPLETED || in->plan_action != HOODIE_ACTION_COMPACTION) continue;
        hoodie_buf path = HOODIE_BUF_INIT, data = HOODIE_BUF_INIT;
        hoodie_avro_ocf ocf;
        int have_ocf = 0;
        hoodie_status rc = hoodie_timeline_instant_path(tl, in, HOODIE_STATE_REQUESTED, &path);
        if (rc == HOODIE_OK) rc = hoodie_storage_read_all(w->s, (const char *)path.data, &data);
        if (rc == HOODIE_OK) { rc = hoodie_avro_ocf_open(&ocf, data.data, data.len, (const char *)path.data); have_ocf = rc == HOODIE_OK; }
        json_t *plan = NULL;
        if (rc == HOODIE_OK) rc = hoodie_avro_ocf_next(&ocf, &plan);
        if (rc == HOODIE_OK) {
            json_t *ops = json_object_get(plan, "operations"), *op;
            size_t k;
            json_array_foreach(ops, k, op) {
                const char *fid = json_string_value(json_object_get(op, "fileId"));
                if (!fid) continue;
                char **nf = realloc(w->pending_ids, (w->n_pending + 1) * sizeof *nf);
                char **ni = nf ? realloc(w->pending_instants, (w->n_pending + 1) * sizeof *ni) : NULL;
                if (nf) w->pending_ids = nf;
                if (ni) w->pending_instants = ni;
                if (!nf || !ni) { rc = HOODIE_NOMEM(); break; }
                w->pending_ids[w->n_pending] = hoodie_arena_strdup(w->arena, fid);
                w->pending_instants[w->n_pending] = hoodie_arena_strdup(w->arena, in->requested);
                if (!w->pending_ids[w->n_pending] || !w->pending_instants[w->n_pending]) { rc = HOODIE_ENOMEM; break; }
                w->n_pending++;
            }
        }
        if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
        json_decref(plan);
        if (have_ocf) hoodie_avro_ocf_close(&ocf);
        hoodie_buf_dispose(&path);
        hoodie_buf_dispose(&data);
        if (rc < 0) return rc;
    }
    return HOODIE_OK;
}

static const char *pending_compaction_of(wctx *w, const wgroup *g)
{
    if (!w->pending_loaded && load_pending_compactions(w) < 0) return NULL;
    const char *best = NULL;
    for (size_t i = 0; i < w->n_pending; i++)
        if (!strcmp(w->pending_ids[i], g->file_id) && strcmp(w->pending_instants[i], g->slice->base_instant) > 0 &&
            (!best || strcmp(w->pending_instants[i], best) > 0))
            best = w->pending_instants[i];
    return best;
}

/* The statistics of a log file for a kept column_stats partition (write/mdt.h), onto w->log_stats: per indexed
 * column, over the records written (meta: make_meta's batch; data: the input rows). None for a file of partial
 * records (the columns left out have no values) or a column of a type the index does not take. */
static hoodie_status log_stats(wctx *w, const hoodie_batch *meta, const rowvec *ups, const char *partition,
                               const char *name)
{
    if (!w->n_cs_cols || w->absent) return HOODIE_OK;
    hoodie_mdt_csrec *v = calloc(w->n_cs_cols, sizeof *v);
    hoodie_status rc = v ? HOODIE_OK : HOODIE_NOMEM();
    size_t k = 0;
    int ok = 1;
    const char *mdt_part = *partition ? partition : ".";
    for (size_t c = 0; rc == HOODIE_OK && ok && c < w->n_cs_cols; c++) {
        int col = hoodie_field_find(&w->file_schema, w->cs_cols[c]);
        if (col < 0) continue; /* not a column of the table (any more) */
        const hoodie_field *f = &w->file_schema.children[col];
        const hoodie_array *a = NULL;
        const int64_t *rows = NULL;
        int constant = 0; /* make_meta's commit time, partition path and file name: one row each */
        if (ups->n && col >= 5) a = &w->in.root.children[col - 5], rows = ups->v;
        else if (ups->n) a = &meta->root.children[col], constant = col == 0 || col == 3 || col == 4;
        rc = hoodie_write__cs_of_values(w->cs_cols[c], f, a, rows, constant, ups->n, mdt_part, name, w->arena, &v[k],
                                        &ok);
        if (rc == HOODIE_OK && ok) k++;
    }
    for (size_t i = 0; rc == HOODIE_OK && ok && i < k; i++)
        rc = hoodie_write__cs_push(&w->log_stats, &w->n_log_stats, &w->cap_log_stats, &v[i]);
    free(v);
    return rc;
}

/* MOR: updates and deletes of an existing group as one new log file; or, with the bucket index (which sees log
 * files), the inserts of a new group as its first file, a log file, as Hudi's MOR writes them. */
hoodie_status hoodie_wr__append_handle(wctx *w, wgroup *g)
{
    rowvec ups = { 0 }, dels = { 0 };
    hoodie_status rc = HOODIE_OK;
    const hoodie_file_slice *slice = g->existing ? g->slice : NULL;
    const rowvec *rows = slice ? &g->updates : &g->inserts;
    for (size_t i = 0; rc == HOODIE_OK && i < rows->n; i++)
        rc = rv_push(w->del[rows->v[i]] ? &dels : &ups, rows->v[i]);
    /* the records straight from the input rows: only their meta columns are built (the constant ones once) */
    hoodie_batch meta;
    hoodie_avro_col *src = NULL;
    hoodie_wlog_records recs = { 0 };
    int have = 0;
    if (rc == HOODIE_OK && ups.n) {
        rc = make_meta(w, g, ups.v, ups.n, g->file_id, 0, 1, &meta);
        have = rc == HOODIE_OK;
        /* partial updates: the columns the input has (partial_schema; partial_col: their file columns) */
        size_t nc = w->absent ? w->partial_schema.n_children : w->file_schema.n_children;
        if (rc == HOODIE_OK && !(src = calloc(nc, sizeof *src))) rc = HOODIE_NOMEM();
        for (size_t k = 0; rc == HOODIE_OK && k < nc; k++) {
            size_t c = w->absent ? (size_t)w->partial_col[k] : k;
            if (c >= 5) src[k] = (hoodie_avro_col){ &w->in.root.children[c - 5], ups.v, 0 };
            else /* commit time, partition path and file name: one row each (make_meta's n_const) */
                src[k] = (hoodie_avro_col){ &meta.root.children[c], NULL, c == 0 || c == 3 || c == 4 };
        }
        recs = (hoodie_wlog_records){ src, nc, (int64_t)ups.n, w->o.log_block_format, w->o.codec, 0,
                                      w->absent != NULL };
    }
    hoodie_wlog_deletes d = { 0 };
    if (rc == HOODIE_OK && dels.n) {
        d.count = dels.n;
        d.keys = calloc(dels.n, sizeof *d.keys);
        d.key_lens = calloc(dels.n, sizeof *d.key_lens);
        d.ords = calloc(dels.n, sizeof *d.ords);
        if (!d.keys || !d.key_lens || !d.ords) rc = HOODIE_NOMEM();
        for (size_t i = 0; rc == HOODIE_OK && i < dels.n; i++) {
            d.keys[i] = key_at(&w->keys, dels.v[i], &d.key_lens[i]);
            if (w->ord_col >= 0) /* as the input holds it (a binlog position stays text) */
                hoodie_ordering_of(&d.ords[i], &w->in.schema.children[w->ord_col], &w->in.root.children[w->ord_col],
                                   dels.v[i]);
        }
        d.partition = w->part_names[g->part];
    }
    /* log file name: v8 names it with this instant; v6 with the slice's base instant, next version -- or, when a
     * compaction of the group is pending, with the compaction's instant, so the log joins the slice the compaction
     * will create (otherwise the update would stay behind in the compacted slice and be lost) */
    /* (a new group's slice begins at this instant) */
    const char *name_instant = w->cfg->version >= 8 || !slice ? w->tx.inst.requested : slice->base_instant;
    const char *pending = w->cfg->version < 8 && slice ? pending_compaction_of(w, g) : NULL;
    if (pending) name_instant = pending;
    int64_t version = 1;
    if (w->cfg->version < 8 && slice)
        for (size_t i = 0; i < slice->log_count; i++) {
            const hoodie_fs_file *lf = slice->logs[i];
            if (!strcmp(lf->instant, name_instant) && lf->fn.version >= version) version = lf->fn.version + 1;
        }
    char token[32];
    write_token(g, token, sizeof token);
    hoodie_buf nb = HOODIE_BUF_INIT;
    if (rc == HOODIE_OK) rc = hoodie_file_name_log(&nb, g->file_id, name_instant, version, token);
    const char *partition = w->part_names[g->part];
    char *name = rc == HOODIE_OK ? hoodie_arena_strdup(w->arena, (const char *)nb.data) : NULL;
    hoodie_buf_dispose(&nb);
    if (rc == HOODIE_OK && !name) rc = HOODIE_ENOMEM;
    char *rel = name ? (*partition ? hoodie_arena_sprintf(w->arena, "%s/%s", partition, name) : name) : NULL;
    uint64_t size = 0;
    if (rc == HOODIE_OK) rc = hoodie_write__marker(&w->tx, partition, name, HOODIE_MARKER_APPEND);
    if (rc == HOODIE_OK && !slice) /* perhaps a new partition */
        rc = hoodie_write__partition_metadata(w->s, w->t->base_path, partition, w->tx.inst.requested);
    if (rc == HOODIE_OK) {
        char *path = hoodie_arena_sprintf(w->arena, "%s/%s", w->t->base_path, rel);
        rc = path ? hoodie_wlog_write(w->s, path, w->tx.inst.requested,
                                      w->absent ? w->partial_avro : w->avro_file_schema,
                                      w->absent ? &w->partial_schema : &w->file_schema, ups.n ? &recs : NULL,
                                      dels.n ? &d : NULL, w->cfg->version >= 8, &size)
                  : HOODIE_ENOMEM;
        if (rc == HOODIE_EEXISTS) /* a v6 log name (base instant, version) another writer took since the view */
            rc = HOODIE_FAIL(HOODIE_ECONFLICT, "write conflict: file group %s was written by another writer since "
                             "this write read the table (log file %s appeared)", g->file_id, rel);
    }
    if (rc == HOODIE_OK) rc = log_stats(w, have ? &meta : NULL, &ups, partition, name);
    if (rc == HOODIE_OK) {
        hoodie_wstat *st = add_stat(w);
        if (!st) rc = HOODIE_ENOMEM;
        else {
            const char **logs = hoodie_arena_alloc(w->arena, sizeof *logs);
            if (logs) logs[0] = name;
            st->partition_path = partition;
            st->file_id = g->file_id;
            st->path = rel;
            st->prev_commit = slice ? slice->base_instant : w->tx.inst.requested; /* as Hudi's append handle */
            st->num_writes = (int64_t)ups.n;
            st->num_update_writes = slice ? (int64_t)ups.n : 0;
            st->num_inserts = slice ? 0 : (int64_t)ups.n;
            st->num_deletes = (int64_t)dels.n;
            st->total_write_bytes = (int64_t)size;
            st->file_size_in_bytes = (int64_t)size;
            st->is_delta = 1;
            st->log_version = (int32_t)version;
            st->base_file = slice && slice->base ? slice->base->name : "";
            st->log_files = logs;
            st->log_file_count = logs ? 1 : 0;
            st->total_log_records = (int64_t)(ups.n + dels.n);
            st->total_log_blocks = (ups.n ? 1 : 0) + (dels.n ? 1 : 0);
            w->res.files_written++;
            w->res.bytes_written += (int64_t)size;
            if (slice) w->res.updates += (int64_t)ups.n;
            else w->res.inserts += (int64_t)ups.n;
            w->res.deletes += (int64_t)dels.n;
        }
    }
    if (have) hoodie_batch_dispose(&meta);
    free(src);
    free(d.keys);
    free(d.key_lens);
    free(d.ords);
    free(ups.v);
    free(dels.v);
    return rc;
}

/* ---- LSM tree layout and bucket index ---- */

/* One native log file of sorted rows (data, or deletes: key, partition path, ordering value). */
static hoodie_status lsm_log_file(wctx *w, wgroup *g, rowvec *rows, int deletes, int64_t *size_out)
{
    char token[32];
    hoodie_buf nb = HOODIE_BUF_INIT;
    const char *partition = w->part_names[g->part];
    write_token(g, token, sizeof token);
    HOODIE_TRY(hoodie_lsm_sort_rows(&w->keys, rows->v, rows->n));
    HOODIE_TRY(hoodie_file_name_native_log(&nb, g->file_id, token, w->tx.inst.requested, 1, deletes));
    char *name = hoodie_arena_strdup(w->arena, (const char *)nb.data);
    hoodie_buf_dispose(&nb);
    if (!name) return HOODIE_ENOMEM;
    char *rel = *partition ? hoodie_arena_sprintf(w->arena, "%s/%s", partition, name) : name;
    char *path = rel ? hoodie_arena_sprintf(w->arena, "%s/%s", w->t->base_path, rel) : NULL;
    if (!path) return HOODIE_ENOMEM;
    hoodie_batch recs, dels;
    int have_dels = 0;
    HOODIE_TRY(make_records(w, g, rows->v, rows->n, deletes ? g->file_id : name, 0, &recs));
    hoodie_status rc = HOODIE_OK;
    if (deletes) {
        const char *cols[3] = { "_hoodie_record_key", "_hoodie_partition_path",
                                w->ord_col >= 0 ? w->data_schema.children[w->ord_col].name : NULL };
        rc = hoodie_batch_project(&dels, &recs, cols, w->ord_col >= 0 ? 3 : 2);
        have_dels = rc == HOODIE_OK;
    }
    uint64_t size = 0;
    const hoodie_batch *parts[1] = { deletes ? &dels : &recs };
    hoodie_lsm_log_opts lo = { w->s, path, w->tx.inst.requested, w->avro_file_schema, w->o.codec, deletes ? 0 : 2 };
    if (rc == HOODIE_OK) rc = hoodie_write__marker(&w->tx, partition, name, HOODIE_MARKER_APPEND);
    if (rc == HOODIE_OK) rc = hoodie_write__partition_metadata(w->s, w->t->base_path, partition, w->tx.inst.requested);
    if (rc == HOODIE_OK) rc = hoodie_lsm_write_log(&lo, parts, 1, &size);
    if (have_dels) hoodie_batch_dispose(&dels);
    hoodie_batch_dispose(&recs);
    if (rc < 0) return rc;
    hoodie_wstat *st = add_stat(w);
    const char **logs = hoodie_arena_alloc(w->arena, sizeof *logs);
    if (!st || !logs) return HOODIE_ENOMEM;
    logs[0] = name;
    st->partition_path = partition;
    st->file_id = g->file_id;
    st->path = rel;
    st->prev_commit = g->slice && g->slice->base_instant ? g->slice->base_instant : "null";
    st->num_writes = deletes ? 0 : (int64_t)rows->n;
    st->num_update_writes = deletes ? 0 : (int64_t)rows->n;
    st->num_deletes = deletes ? (int64_t)rows->n : 0;
    st->total_write_bytes = st->file_size_in_bytes = (int64_t)size;
    st->is_delta = 1;
    st->log_version = 1;
    st->base_file = g->slice && g->slice->base ? g->slice->base->name : "";
    st->log_files = logs;
    st->log_file_count = 1;
    st->total_log_records = (int64_t)rows->n;
    st->total_log_blocks = 1;
    w->res.files_written++;
    w->res.bytes_written += (int64_t)size;
    *size_out = (int64_t)size;
    return HOODIE_OK;
}

/* MOR, LSM layout: the group's updates, inserts and deletes as sorted native log files (RFC-103 L0). */
hoodie_status hoodie_wr__lsm_append_handle(wctx *w, wgroup *g)
{
    rowvec ups = { 0 }, dels = { 0 };
    hoodie_status rc = HOODIE_OK;
    int64_t size = 0;
    for (size_t i = 0; rc == HOODIE_OK && i < g->updates.n; i++)
        rc = rv_push(w->del[g->updates.v[i]] ? &dels : &ups, g->updates.v[i]);
    for (size_t i = 0; rc == HOODIE_OK && i < g->inserts.n; i++) rc = rv_push(&ups, g->inserts.v[i]);
    if (rc == HOODIE_OK && ups.n) rc = lsm_log_file(w, g, &ups, 0, &size);
    if (rc == HOODIE_OK && dels.n) rc = lsm_log_file(w, g, &dels, 1, &size);
    w->res.updates += (int64_t)ups.n;
    w->res.deletes += (int64_t)dels.n;
    free(ups.v);
    free(dels.v);
    return rc;
}

/* Bucket index: every live row goes to its bucket's file group in its partition, no lookup (hudi-format.md 12.1).
 * Rows of an existing group are its updates (MOR: appended to its logs), rows of a new group its inserts. */
hoodie_status hoodie_wr__bucket_assign(wctx *w)
{
    int nb = w->cfg->bucket_count;
    size_t n_slots = w->n_parts * (size_t)nb;
    int32_t *slot = calloc(n_slots + 1, sizeof *slot); /* group index + 1 */
    if (!slot) return HOODIE_NOMEM();
    if (!w->replace)
        for (size_t i = 0; i < w->view->group_count; i++) {
            const hoodie_file_group *fg = &w->view->groups[i];
            int pi = hoodie_wr__part_index(w, fg->partition), b = hoodie_bucket_of_file_id(fg->file_id);
            if (pi < 0 || b < 0 || b >= nb || slot[(size_t)pi * (size_t)nb + (size_t)b]) continue;
            if (!hoodie_file_group_latest(fg)) continue;
            wgroup *g = hoodie_wr__new_group(w, (uint32_t)pi, fg);
            if (!g) { free(slot); return HOODIE_ENOMEM; }
            slot[(size_t)pi * (size_t)nb + (size_t)b] = (int32_t)(g - w->groups) + 1;
        }
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < w->live.n; i++) {
        int64_t row = w->live.v[i];
        size_t kl;
        const char *k = key_at(&w->keys, row, &kl);
        int b = hoodie_bucket_id(k, kl, w->cfg->bucket_hash_fields.items, w->cfg->bucket_hash_fields.count, nb);
        int32_t *s = &slot[(size_t)w->row_part[row] * (size_t)nb + (size_t)b];
        if (!*s) {
            if (w->del[row]) continue; /* deleting from a bucket that does not exist */
            wgroup *g = new_bucket_group(w, w->row_part[row], b);
            if (!g) { rc = HOODIE_ENOMEM; break; }
            *s = (int32_t)(g - w->groups) + 1;
        }
        wgroup *g = &w->groups[*s - 1];
        if (g->existing) rc = rv_push(&g->updates, row);
        else if (!w->del[row]) rc = rv_push(&g->inserts, row);
    }
    free(slot);
    return rc;
}

