/*
 * The metadata table's record_index entries as Hudi writes them (HoodieMetadataPayload.createRecordIndexUpdate):
 * HoodieRecordIndexInfo {partitionName, fileIdHighBits, fileIdLowBits, fileIndex, fileId, instantTime,
 * fileIdEncoding, position}, inside a HoodieMetadataRecord of type 5.
 */
#include "write/mdt.h"
#include "write/mdt_int.h"
#include "hoodie/parquet.h"
#include "format/avro/binary.h"
#include "format/hlog/hlog.h"
#include "storage/storage.h"
#include "table/commit_meta.h"
#include "table/file_name.h"
#include "table/mdt.h"
#include "format/parquet/reader.h"
#include "util/cursor.h"
#include "util/hash.h"
#include "table/timeline.h"
#include "table/pqfile.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RLI_TYPE 5

/* 0 and the value of hex digit ch, or -1. */
static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* A file id "<UUID>-<index>" (or a bare UUID: index -1) as Java's UUID.fromString reads the canonical form:
 * its most and least significant 64 bits; 0 when it is not one. */
static int uuid_file_id(const char *id, uint64_t *hi, uint64_t *lo, int32_t *index)
{
    size_t n = strlen(id);
    if (n < 36) return 0;
    static const int dash[4] = { 8, 13, 18, 23 };
    uint64_t v[2] = { 0, 0 };
    int k = 0;
    for (int i = 0; i < 36; i++) {
        if (k < 4 && i == dash[k]) {
            if (id[i] != '-') return 0;
            k++;
            continue;
        }
        int h = hexval(id[i]);
        if (h < 0) return 0;
        int word = i < 19 ? 0 : 1; /* 16 hex digits each: 8-4-4 | 4-12 */
        v[word] = v[word] << 4 | (uint64_t)h;
    }
    *hi = v[0], *lo = v[1];
    if (n == 36) { *index = -1; return 1; }
    if (id[36] != '-' || n == 37 || n > 37 + 10) return 0;
    int64_t x = 0;
    for (size_t i = 37; i < n; i++) {
        if (id[i] < '0' || id[i] > '9') return 0;
        x = x * 10 + (id[i] - '0');
    }
    if (x > INT32_MAX) return 0;
    *index = (int32_t)x;
    return 1;
}

int64_t hoodie_write__instant_ms(const char *instant, int utc)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int ms = 0;
    size_t n = strlen(instant);
    if (n < 14) return -1;
    if (sscanf(instant, "%4d%2d%2d%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec) != 6)
        return -1;
    if (n >= 17 && sscanf(instant + 14, "%3d", &ms) != 1) return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_isdst = -1;
    time_t t = utc ? timegm(&tm) : mktime(&tm);
    if (t == (time_t)-1) return -1;
    return (int64_t)t * 1000 + ms;
}

hoodie_status hoodie_write__rli_info(hoodie_buf *out, const char *partition, const char *file_id, int64_t ms)
{
    uint64_t hi = 0, lo = 0;
    int32_t index = -1;
    int uuid = uuid_file_id(file_id, &hi, &lo, &index);
    HOODIE_TRY(hoodie_avro_write_long(out, 1)); /* partitionName */
    HOODIE_TRY(hoodie_avro_write_bytes(out, partition, strlen(partition)));
    /* encoding 0 (UUID-based ids, Hudi's default): the id's UUID as two longs and its index, fileId ""; 1: the
     * id as it is, the bits and index -1 */
    HOODIE_TRY(hoodie_avro_write_long(out, 1));
    HOODIE_TRY(hoodie_avro_write_long(out, uuid ? (int64_t)hi : -1));
    HOODIE_TRY(hoodie_avro_write_long(out, 1));
    HOODIE_TRY(hoodie_avro_write_long(out, uuid ? (int64_t)lo : -1));
    HOODIE_TRY(hoodie_avro_write_long(out, 1));
    HOODIE_TRY(hoodie_avro_write_long(out, uuid ? index : -1));
    HOODIE_TRY(hoodie_avro_write_long(out, 1));
    HOODIE_TRY(hoodie_avro_write_bytes(out, uuid ? "" : file_id, uuid ? 0 : strlen(file_id)));
    HOODIE_TRY(hoodie_avro_write_long(out, 1)); /* instantTime */
    HOODIE_TRY(hoodie_avro_write_long(out, ms));
    HOODIE_TRY(hoodie_avro_write_long(out, uuid ? 0 : 1)); /* fileIdEncoding */
    return hoodie_buf_putc(out, 0);                        /* position: null */
}

hoodie_status hoodie_mdtw__record_head(hoodie_buf *out, int type, const char *base_file)
{
    static const uint8_t nulls[4] = { 0, 0, 0, 0 }; /* commit time, sequence number, record key, partition path */
    HOODIE_TRY(hoodie_buf_append(out, nulls, 4));
    if (base_file) { /* a base file's records name it */
        HOODIE_TRY(hoodie_avro_write_long(out, 1));
        HOODIE_TRY(hoodie_avro_write_bytes(out, base_file, strlen(base_file)));
    } else {
        HOODIE_TRY(hoodie_buf_putc(out, 0));
    }
    HOODIE_TRY(hoodie_buf_putc(out, 0)); /* key "" (the HFile row is the key) */
    return hoodie_avro_write_long(out, type);
}

hoodie_status hoodie_write__rli_encode(hoodie_buf *out, const uint8_t *ri, size_t ri_len, const char *base_file)
{
    HOODIE_TRY(hoodie_mdtw__record_head(out, RLI_TYPE, base_file));
    static const uint8_t none[3] = { 0, 0, 0 }; /* filesystemMetadata, BloomFilterMetadata, ColumnStatsMetadata */
    HOODIE_TRY(hoodie_buf_append(out, none, 3));
    HOODIE_TRY(hoodie_avro_write_long(out, 1)); /* recordIndexMetadata */
    HOODIE_TRY(hoodie_buf_append(out, ri, ri_len));
    return hoodie_buf_putc(out, 0); /* SecondaryIndexMetadata */
}

/* ---- what an instant changes in the record index ---- */

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The record keys of base file `path` (its _hoodie_record_key column) in `a`, sorted when `sort`. */
static hoodie_status file_keys(const hoodie_storage *s, const char *path, hoodie_arena *a, int sort, char ***out,
                               size_t *n)
{
    static const char *const key_column[] = { "_hoodie_record_key" };
    *out = NULL;
    *n = 0;
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    o.storage = s;
    o.columns = key_column;
    o.n_columns = 1;
    hoodie_parquet_reader *r = NULL;
    hoodie_pq_scan *sc = NULL;
    HOODIE_TRY(hoodie_parquet_reader_open(&r, path, &o));
    int64_t rows = hoodie_parquet_reader_num_rows(r);
    char **v = hoodie_arena_alloc(a, ((size_t)(rows > 0 ? rows : 0) + 1) * sizeof *v);
    hoodie_status rc = v ? hoodie_pqfile__scan_open(r, &sc) : HOODIE_NOMEM();
    size_t k = 0;
    while (rc == HOODIE_OK) {
        hoodie_batch b;
        if ((rc = hoodie_pq_scan_next(sc, &b)) < 0) break;
        const hoodie_array *col = &b.root.children[0];
        for (int64_t i = 0; rc == HOODIE_OK && i < col->length; i++) {
            if (!hoodie_array_is_valid(col, i)) continue;
            if ((int64_t)k >= rows) { rc = HOODIE_CORRUPT("%s: more record keys than its %lld rows", path, (long long)rows); break; }
            size_t kl;
            const uint8_t *kp = hoodie_array_bytes_at(col, i, &kl);
            if (!(v[k++] = hoodie_arena_strndup(a, (const char *)kp, kl))) rc = HOODIE_NOMEM();
        }
        hoodie_batch_dispose(&b);
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    hoodie_pq_scan_free(sc);
    hoodie_parquet_reader_free(r);
    if (rc < 0) return rc;
    if (sort && k > 1) qsort(v, k, sizeof *v, str_cmp);
    *out = v, *n = k;
    return HOODIE_OK;
}

static hoodie_status push(hoodie_rli_changes *c, const char *key, const char *partition, const char *file_id)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 1024;
        hoodie_rli_change *v = realloc(c->v, nc * sizeof *v);
        if (!v) return HOODIE_NOMEM();
        c->v = v, c->cap = nc;
    }
    c->v[c->n++] = (hoodie_rli_change){ key, partition, file_id };
    return HOODIE_OK;
}

hoodie_status hoodie_mdtw__rli_push(hoodie_rli_changes *c, const char *key, const char *partition, const char *file_id)
{
    return push(c, key, partition, file_id);
}

/* The record keys of a PARQUET_DATA_BLOCK's embedded file onto `keys` (in `a`). */
static hoodie_status parquet_keys(hoodie_rli_changes *keys, const hoodie_hlog_block *b, const char *path,
                                  hoodie_arena *a, const char *part, const char *fid)
{
    static const char *const key_column[] = { "_hoodie_record_key" };
    const uint8_t *data;
    size_t len;
    HOODIE_TRY(hoodie_hlog_parquet_content(b, path, &data, &len));
    hoodie_pq_mem m;
    hoodie_pq_source src;
    hoodie_pq_source_mem(&src, &m, data, len, path);
    hoodie_pq_file *f = NULL;
    hoodie_pq_scan *sc = NULL;
    hoodie_pq_scan_opts so = { key_column, 1, NULL, 0, 0, 0 };
    hoodie_status rc = hoodie_pq_file_open(&f, &src);
    if (rc == HOODIE_OK) rc = hoodie_pq_scan_open(&sc, f, &so);
    while (rc == HOODIE_OK) {
        hoodie_batch bt;
        if ((rc = hoodie_pq_scan_next(sc, &bt)) < 0) break;
        const hoodie_array *col = &bt.root.children[0];
        for (int64_t i = 0; rc == HOODIE_OK && i < col->length; i++) {
            if (!hoodie_array_is_valid(col, i)) continue;
            size_t kl;
            const uint8_t *kp = hoodie_array_bytes_at(col, i, &kl);
            const char *k = hoodie_arena_strndup(a, (const char *)kp, kl);
            rc = k ? push(keys, k, part, fid) : HOODIE_NOMEM();
        }
        hoodie_batch_dispose(&bt);
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    hoodie_pq_scan_free(sc);
    hoodie_pq_file_free(f);
    return rc;
}

/* The record keys of an AVRO_DATA_BLOCK onto `keys` (in `a`): each record's third field, _hoodie_record_key (the
 * meta fields come first, each a union of null and string). */
static hoodie_status avro_keys(hoodie_rli_changes *keys, const hoodie_hlog_block *b, const char *path,
                               hoodie_arena *a, const char *part, const char *fid)
{
    hoodie_hlog_avro_records r;
    HOODIE_TRY(hoodie_hlog_avro_open(&r, b, path));
    const uint8_t *rec;
    size_t len;
    hoodie_status rc;
    while ((rc = hoodie_hlog_avro_next(&r, &rec, &len)) == HOODIE_OK) {
        hoodie_cursor cur;
        hoodie_cursor_init(&cur, rec, len, b->content_offset + (uint64_t)(rec - b->content), path); /* file offsets */
        const uint8_t *k = NULL;
        size_t kl = 0;
        for (int f = 0; f < 3 && cur.status == HOODIE_OK; f++) {
            int64_t br = hoodie_avro_read_long(&cur);
            if (br == 1) {
                const uint8_t *v = hoodie_avro_read_bytes(&cur, &kl);
                if (f == 2) k = v;
            } else if (br != 0 && cur.status == HOODIE_OK) {
                hoodie_cursor__fail(&cur, "a meta field's union branch %lld", (long long)br);
            }
        }
        if (cur.status != HOODIE_OK) return cur.status;
        if (!k) continue; /* no key: nothing to place */
        const char *kc = hoodie_arena_strndup(a, (const char *)k, kl);
        if (!kc) return HOODIE_NOMEM();
        HOODIE_TRY(push(keys, kc, part, fid));
    }
    return rc == HOODIE_ITEROVER ? HOODIE_OK : rc;
}

/* Whether a delete's ordering value is the natural one (absent or 0): such a delete wins over what came before. */
static int delete_natural(const hoodie_hlog_delete *d)
{
    switch (d->ord_type) {
    case HOODIE_HLOG_ORD_NULL: return 1;
    case HOODIE_HLOG_ORD_FLOAT:
    case HOODIE_HLOG_ORD_DOUBLE: return d->ord_d == 0;
    case HOODIE_HLOG_ORD_BYTES:
    case HOODIE_HLOG_ORD_STRING: return 0;
    case HOODIE_HLOG_ORD_DECIMAL:
        for (size_t i = 0; i < d->ord_len; i++)
            if (d->ord_bytes[i]) return 0;
        return 1;
    default: return d->ord_i == 0;
    }
}

/* A log file the instant wrote: its DELETE_BLOCKs' keys leave the index (onto c; onto `contested` when their
 * ordering value may lose to the stored record's, and contested is not NULL), its data blocks' keys onto `data`
 * (updates in place, unless the index lost them to an earlier delete; NULL: not wanted). */
static hoodie_status log_keys(hoodie_rli_changes *c, hoodie_rli_changes *contested, hoodie_rli_changes *data,
                              const hoodie_storage *s, const char *path, hoodie_arena *a, const char *part,
                              const char *fid)
{
    hoodie_buf bytes = HOODIE_BUF_INIT;
    HOODIE_TRY(hoodie_storage_read_all(s, path, &bytes));
    hoodie_hlog_iter it;
    hoodie_status rc = hoodie_hlog_iter_init(&it, bytes.data, bytes.len, path);
    int open = rc == HOODIE_OK;
    hoodie_hlog_block b;
    while (rc == HOODIE_OK && (rc = hoodie_hlog_iter_next(&it, &b)) == HOODIE_OK) {
        if (data && b.type == HOODIE_HLOG_AVRO_DATA_BLOCK) rc = avro_keys(data, &b, path, a, part, fid);
        else if (data && b.type == HOODIE_HLOG_PARQUET_DATA_BLOCK) rc = parquet_keys(data, &b, path, a, part, fid);
        if (b.type != HOODIE_HLOG_DELETE_BLOCK) continue;
        hoodie_hlog_delete *d;
        size_t n;
        rc = hoodie_hlog_delete_decode(&b, a, path, &d, &n);
        for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
            if (!d[i].record_key) continue;
            if (contested && !delete_natural(&d[i])) rc = push(contested, d[i].record_key, part, fid);
            else rc = push(c, d[i].record_key, NULL, NULL);
        }
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    if (open) hoodie_hlog_iter_dispose(&it);
    hoodie_buf_dispose(&bytes);
    return rc;
}

/* Into `set`: the file groups a completed deltacommit of the timeline requested after `since` wrote deletes to
 * (its write stats' numDeletes). *all: the timeline may not show them all (instants after `since` archived). */
static hoodie_status deleting_groups(const hoodie_storage *s, const hoodie_timeline *tl, const char *since,
                                     hoodie_arena *a, hoodie_hmap *set, int *all)
{
    *all = !since || !*since || !strcmp(since, "null") || hoodie_timeline_before_start(tl, since);
    hoodie_buf path = HOODIE_BUF_INIT, bytes = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && !*all && i < tl->count; i++) {
        const hoodie_instant *in = &tl->instants[i];
        if (in->state != HOODIE_STATE_COMPLETED || strcmp(in->requested, since) <= 0 ||
            (in->action != HOODIE_ACTION_DELTACOMMIT && in->action != HOODIE_ACTION_LOGCOMPACTION))
            continue;
        hoodie_commit_meta *m = NULL;
        path.len = bytes.len = 0;
        rc = hoodie_timeline_instant_path(tl, in, HOODIE_STATE_COMPLETED, &path);
        if (rc == HOODIE_OK) rc = hoodie_storage_read_all(s, (const char *)path.data, &bytes);
        if (rc == HOODIE_OK) rc = hoodie_commit_meta_decode(&m, bytes.data, bytes.len, (const char *)path.data);
        for (size_t k = 0; rc == HOODIE_OK && k < m->stat_count; k++) {
            const hoodie_write_stat *st = &m->stats[k];
            if (st->num_deletes <= 0 || !st->file_id) continue;
            size_t len = strlen(st->file_id);
            if (hoodie_hmap_get(set, st->file_id, len)) continue;
            const char *id = hoodie_arena_strdup(a, st->file_id); /* the map borrows its keys: past m */
            uint64_t *slot;
            int existed;
            rc = id ? hoodie_hmap_upsert(set, id, len, &slot, &existed) : HOODIE_NOMEM();
        }
        hoodie_commit_meta_free(m);
    }
    hoodie_buf_dispose(&path);
    hoodie_buf_dispose(&bytes);
    return rc;
}

/* The keys of log data blocks the index does not hold (deleted by an earlier log block of their slice, and put
 * back by this update: the bloom index finds them in the base file still) are added where the update went. Only
 * the file groups whose slices had deletes are looked up (the timeline's deltacommits since the slices' bases
 * tell which; all when it may not show them all). */
static hoodie_status readd(hoodie_rli_changes *c, const hoodie_rli_changes *data, const hoodie_storage *s,
                           const char *base_path, const hoodie_timeline *tl, const char *since, hoodie_arena *a)
{
    if (!data->n) return HOODIE_OK;
    hoodie_hmap set = HOODIE_HMAP_INIT;
    int all = 0;
    const char **keys = malloc(data->n * sizeof *keys);
    const hoodie_rli_change **of = malloc(data->n * sizeof *of);
    hoodie_mdt_location *locs = malloc(data->n * sizeof *locs);
    hoodie_status rc = keys && of && locs ? hoodie_hmap_init(&set, 64) : HOODIE_NOMEM();
    if (rc == HOODIE_OK) rc = deleting_groups(s, tl, since, a, &set, &all);
    size_t n = 0;
    for (size_t i = 0; rc == HOODIE_OK && i < data->n; i++)
        if (all || hoodie_hmap_get(&set, data->v[i].file_id, strlen(data->v[i].file_id)))
            keys[n] = data->v[i].key, of[n++] = &data->v[i];
    if (rc == HOODIE_OK && n) rc = hoodie_mdt_record_index(s, base_path, tl, keys, n, a, locs);
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++)
        if (!locs[i].found) rc = push(c, of[i]->key, of[i]->partition, of[i]->file_id);
    hoodie_hmap_dispose(&set);
    free(keys);
    free(of);
    free(locs);
    return rc;
}

/* The keys the index holds in the file groups `m` replaces, removed. */
static hoodie_status replaced_keys(hoodie_rli_changes *c, const hoodie_storage *s, const char *base_path,
                                   const hoodie_timeline *tl, const hoodie_commit_meta *m, hoodie_arena *a)
{
    size_t n = 0;
    for (size_t i = 0; i < m->replaced_count; i++) n += m->replaced[i].count;
    if (!n) return HOODIE_OK;
    const char **parts = malloc(n * sizeof *parts), **fids = malloc(n * sizeof *fids), **keys = NULL;
    hoodie_status rc = parts && fids ? HOODIE_OK : HOODIE_NOMEM();
    size_t k = 0, n_keys = 0;
    for (size_t i = 0; rc == HOODIE_OK && i < m->replaced_count; i++)
        for (size_t j = 0; j < m->replaced[i].count; j++, k++) {
            parts[k] = m->replaced[i].partition_path ? m->replaced[i].partition_path : "";
            fids[k] = m->replaced[i].file_ids[j];
        }
    if (rc == HOODIE_OK) rc = hoodie_mdt_rli_keys_in(s, base_path, tl, parts, fids, n, a, &keys, &n_keys);
    for (size_t i = 0; rc == HOODIE_OK && i < n_keys; i++) rc = push(c, keys[i], NULL, NULL);
    free(keys);
    free(parts);
    free(fids);
    return rc;
}

hoodie_status hoodie_write__rli_changes(hoodie_rli_changes *c, const hoodie_storage *s, const char *base_path,
                                        const hoodie_timeline *tl, const hoodie_commit_meta *m, int moved,
                                        int located, hoodie_arena *a, hoodie_rli_changes *contested)
{
    hoodie_status rc = HOODIE_OK;
    hoodie_buf p = HOODIE_BUF_INIT;
    hoodie_rli_changes data = { NULL, 0, 0 };
    for (size_t i = 0; rc == HOODIE_OK && i < m->stat_count; i++) {
        const hoodie_write_stat *st = &m->stats[i];
        if (!st->path || !*st->path || !st->file_id) continue;
        const char *part = st->partition_path ? st->partition_path : "";
        const char *name = strrchr(st->path, '/');
        name = name ? name + 1 : st->path;
        hoodie_file_name fn;
        hoodie_file_kind kind = hoodie_file_name_parse(&fn, name);
        p.len = 0;
        if ((rc = hoodie_buf_printf(&p, "%s/%s", base_path, st->path)) < 0) break;
        if (kind == HOODIE_FILE_LOG) { /* a log of updates and deletes */
            const char *fid = hoodie_arena_strdup(a, st->file_id), *pp = hoodie_arena_strdup(a, part);
            if (!fid || !pp) rc = HOODIE_NOMEM();
            else if (!moved)
                rc = log_keys(c, contested, located ? NULL : &data, s, (const char *)p.data, a, pp, fid);
            continue;
        }
        if (kind != HOODIE_FILE_BASE) continue;
        char **now, **before = NULL;
        size_t n_now, n_before = 0;
        int diff = !moved && st->prev_base_file && *st->prev_base_file; /* else every key is added */
        if ((rc = file_keys(s, (const char *)p.data, a, diff, &now, &n_now)) < 0) break;
        if (diff) {
            p.len = 0;
            rc = *part ? hoodie_buf_printf(&p, "%s/%s/%s", base_path, part, st->prev_base_file)
                       : hoodie_buf_printf(&p, "%s/%s", base_path, st->prev_base_file);
            if (rc == HOODIE_OK) rc = file_keys(s, (const char *)p.data, a, 1, &before, &n_before);
            if (rc < 0) break;
        }
        /* keys new to the file group are added (all of them when records moved), keys gone from it removed */
        const char *fid = hoodie_arena_strdup(a, st->file_id), *pp = hoodie_arena_strdup(a, part);
        if (!fid || !pp) { rc = HOODIE_NOMEM(); break; }
        size_t x = 0, y = 0;
        while (rc == HOODIE_OK && (x < n_now || y < n_before)) {
            int cmp = x == n_now ? 1 : y == n_before ? -1 : strcmp(now[x], before[y]);
            if (cmp < 0) rc = push(c, now[x++], pp, fid);
            else if (cmp > 0) rc = push(c, before[y++], NULL, NULL);
            else x++, y++;
        }
    }
    /* the earliest base instant of the slices this instant appended to */
    const char *since = NULL;
    for (size_t i = 0; i < m->stat_count; i++) {
        const hoodie_write_stat *st = &m->stats[i];
        if (!st->log_file_count && !(st->path && strstr(st->path, ".log."))) continue;
        const char *pc = st->prev_commit ? st->prev_commit : "";
        if (!since || strcmp(pc, since) < 0) since = pc;
    }
    if (rc == HOODIE_OK) rc = readd(c, &data, s, base_path, tl, since, a);
    if (rc == HOODIE_OK && !moved && m->replaced_count) rc = replaced_keys(c, s, base_path, tl, m, a);
    free(data.v);
    hoodie_buf_dispose(&p);
    return rc;
}
