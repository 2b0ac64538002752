#include "read/logscan.h"
#include "read/lsm_read.h"
#include "format/avro/binary.h"
#include "format/avro/schema.h"
#include "model/conform.h"
#include "format/parquet/reader.h"
#include "model/avro.h"
#include "storage/storage.h"
#include "model/build.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/warn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Writer schemas seen in SCHEMA headers, parsed once per scan. */
typedef struct schema_cache_entry {
    const char *json;          /* arena */
    const hoodie_renames *rn;  /* schema on read: the writer's columns as renamed for the reader (NULL: none) */
    hoodie_avro_schema *schema;
    hoodie_avro_decoder *decoder;
    hoodie_avro_decoder *slim;  /* into the lazy columns only (scan_state.slim), made when first needed */
} schema_cache_entry;

typedef struct scan_state {
    const hoodie_logscan_ctx *ctx;
    hoodie_log_items *out;
    schema_cache_entry *cache;
    size_t cache_count;
    char **replaced;           /* instants listed in COMPACTED_BLOCK_TIMES of applying blocks (arena) */
    size_t n_replaced, cap_replaced;
    hoodie_buf data;           /* the current log file; its memory is reused for the next one */
    hoodie_buf head, tail, content; /* a file read in ranges: a block's first bytes, its tail, its content */
    hoodie_arena *head_arena;  /* header strings of the block read in ranges */
    struct pending *pending;   /* the current file's Avro data blocks, decoded once the file's blocks are known */
    size_t n_pending, cap_pending;
    int key_col;               /* a pass of a partitioned merge (ctx.parts > 1, or ctx.mem_limit): the reader
                                  schema's record key column (-1: none, every row kept); else -1 */
    uint32_t parts;            /* the partitions rows are kept by: ctx.parts, more once the limit was passed */
    uint64_t log_bytes;        /* of all the scan's log files */
    hoodie_field slim;         /* ctx.lazy_cols: a STRUCT of those columns of the reader's schema */
    int have_slim;
    size_t file_lazy;          /* lazy items made from the current file (it then stays mapped) */
} scan_state;

/* An Avro data block waiting for the end of its file: blocks a later block of the file drops (rollback command,
 * log compaction) are never decoded. Content pointers borrow scan_state.data. */
typedef struct pending {
    size_t item;               /* index into out->items */
    size_t cache;              /* its writer schema's scan_state.cache entry */
    hoodie_avro_decoder *dec;
    const hoodie_avro_schema *writer; /* the block's writer schema */
    hoodie_hlog_block b;       /* header pointers not used */
} pending;

/* What a merge keeps for each log row or delete besides the row: its key table entry and slots (read/slice_merge.c:
 * a 24-byte entry, 8-byte slots at most two thirds full). */
enum { MERGE_ROW_BYTES = 48 };

/* The bytes an array's values take (not its buffers' capacities: what they hold past that is not touched). */
static uint64_t array_mem(const hoodie_array *a)
{
    uint64_t n = (uint64_t)(a->length > 0 ? a->length : 0), m = 0;
    if (a->validity) m += (n + 7) / 8;
    if (a->offsets) m += (n + 1) * 4 + a->values_len; /* strings, binaries (lists, maps: values_len 0) */
    else if (a->values) m += n * 8 < a->values_cap ? n * 8 : a->values_cap; /* fixed width: 8 bytes at most, mostly */
    for (size_t i = 0; i < a->n_children; i++) m += array_mem(&a->children[i]);
    return m;
}

static uint64_t item_mem(const hoodie_log_item *it)
{
    if (it->kind == HOODIE_LOG_DELETES) {
        uint64_t m = (uint64_t)it->delete_count * (sizeof *it->deletes + MERGE_ROW_BYTES);
        for (size_t i = 0; i < it->delete_count; i++)
            m += it->deletes[i].record_key ? strlen(it->deletes[i].record_key) + 1 : 0;
        return m;
    }
    uint64_t per_row = MERGE_ROW_BYTES + (it->lazy ? 2 * sizeof(uint32_t) : 0);
    return array_mem(&it->batch.root) + (uint64_t)it->batch.root.length * per_row;
}

static void lazy_free(hoodie_log_item *it)
{
    if (!it->lazy) return;
    free(it->lazy->off);
    free(it->lazy->len);
    free(it->lazy);
    it->lazy = NULL;
}

static hoodie_status keep_part(const scan_state *st, hoodie_log_item *it);

/*
 * Item `it`, decoded from `block_bytes` of log blocks, counted. When the rows kept pass ctx.mem_limit (the first
 * pass of a merge), the scan takes more partitions (hoodie_logscan_parts_over, from what the rows took per log
 * byte so far) and drops the rows of the others from every item it has: the pass goes on with partition 0 of
 * those, a subset of the one it had (partitions split the key hashes' range evenly). `it` may be partly filled.
 */
static hoodie_status count_item(scan_state *st, hoodie_log_item *it, uint64_t block_bytes)
{
    uint64_t m = item_mem(it);
    st->out->mem += m - it->mem;
    it->mem = m;
    st->out->scanned += block_bytes;
    while (st->ctx->mem_limit && st->out->mem > st->ctx->mem_limit && st->parts < 4096 && st->key_col >= 0 &&
           st->ctx->part == 0) {
        st->parts = hoodie_logscan_parts_over(st->out, st->log_bytes, (int64_t)st->ctx->mem_limit, st->parts);
        st->out->mem = 0;
        for (size_t i = 0; i < st->out->count; i++) {
            hoodie_log_item *x = &st->out->items[i];
            HOODIE_TRY(keep_part(st, x));
            x->mem = item_mem(x);
            st->out->mem += x->mem;
        }
    }
    return HOODIE_OK;
}

/* An item that will not be applied (rolled back, replaced): its rows are freed now, the item stays. */
static void drop_item(scan_state *st, hoodie_log_item *it)
{
    if (it->removed) return;
    it->removed = 1;
    st->out->mem -= it->mem;
    it->mem = 0;
    if (it->kind != HOODIE_LOG_DATA || !it->batch.root.length) return;
    if (it->lazy) st->out->lazy--;
    lazy_free(it);
    hoodie_batch_dispose(&it->batch);
    if (hoodie_batch_init(&it->batch, st->ctx->schema) < 0) memset(&it->batch, 0, sizeof it->batch);
}

/* Room for one more element in a growable array of `count` elements of `size` bytes. */
static hoodie_status room_for_one(void **arr, size_t *cap, size_t count, size_t size)
{
    if (count < *cap) return HOODIE_OK;
    size_t nc = *cap ? *cap * 2 : 16;
    void *n = realloc(*arr, nc * size);
    if (!n) return HOODIE_NOMEM();
    *arr = n;
    *cap = nc;
    return HOODIE_OK;
}

/* ---- hash-partitioned passes (ctx.parts) ---- */

uint32_t hoodie_logscan_parts(uint64_t log_bytes, int64_t budget)
{
    uint64_t b = hoodie_logscan_budget(budget);
    return log_bytes > b ? (uint32_t)(log_bytes / b + 1 < 4096 ? log_bytes / b + 1 : 4096) : 1;
}

uint32_t hoodie_logscan_parts_over(const hoodie_log_items *over, uint64_t log_bytes, int64_t budget, uint32_t parts)
{
    uint64_t b = hoodie_logscan_budget(budget);
    /* the part's rows took mem of the scanned bytes' share 1/parts: the slice's would take per * log_bytes */
    double per = over->scanned ? (double)over->mem * parts / (double)over->scanned : 1.0;
    double want = per * (double)log_bytes / (double)b * 1.25 + 1; /* parts are even only on average */
    double at_least = (double)parts * 2;
    if (want < at_least) want = at_least;
    return want >= 4096 ? 4096 : (uint32_t)want;
}

uint32_t hoodie_logscan_key_part(const void *key, size_t len, uint32_t parts)
{
    uint64_t h = hoodie_hash_bytes(key, len, 0x9e3779b97f4a7c15ull); /* not the key tables' hash: their slots */
    return (uint32_t)(((h >> 32) * (uint64_t)parts) >> 32);
}

/* 1 if a row with this key (NULL: none; such rows go to part 0, so one pass sees them) is in partition `part`. */
static int key_in_part(const uint8_t *key, size_t len, uint32_t parts, uint32_t part)
{
    return key ? hoodie_logscan_key_part(key, len, parts) == part : part == 0;
}

int hoodie_logscan_row_in_part(const hoodie_array *keys, int64_t r, uint32_t parts, uint32_t part)
{
    size_t kl = 0;
    const uint8_t *kp = hoodie_array_is_valid(keys, r) ? hoodie_array_bytes_at(keys, r, &kl) : NULL;
    return key_in_part(kp, kl, parts, part);
}

/* The rows of `b` in partition `part` appended to `dst` (shaped like b). */
static hoodie_status take_part(const hoodie_batch *b, int key_col, uint32_t parts, uint32_t part, hoodie_batch *dst)
{
    int64_t n = b->root.length;
    if (!n) return HOODIE_OK;
    hoodie_row_ref *sel = malloc((size_t)n * sizeof *sel);
    if (!sel) return HOODIE_NOMEM();
    const hoodie_array *keys = &b->root.children[key_col];
    size_t k = 0;
    for (int64_t r = 0; r < n; r++)
        if (hoodie_logscan_row_in_part(keys, r, parts, part)) sel[k++] = (hoodie_row_ref){ 0, r };
    hoodie_status rc = hoodie_batch_take(dst, &b, 1, sel, k);
    free(sel);
    return rc;
}

hoodie_status hoodie_logscan_keep_part(hoodie_batch *b, int key_col, uint32_t parts, uint32_t part)
{
    hoodie_batch kept;
    HOODIE_TRY(hoodie_batch_init(&kept, &b->schema));
    hoodie_status rc = take_part(b, key_col, parts, part, &kept);
    if (rc < 0) { hoodie_batch_dispose(&kept); return rc; }
    hoodie_batch_dispose(b);
    *b = kept;
    return HOODIE_OK;
}

/* A lazy item's rows outside the pass's part dropped: its decoded columns and record positions. */
static hoodie_status keep_part_lazy(const scan_state *st, hoodie_log_item *it)
{
    int64_t n = it->batch.root.length;
    int64_t *rows = malloc((size_t)n * sizeof *rows);
    if (!rows) return HOODIE_NOMEM();
    const hoodie_array *keys = &it->batch.root.children[st->key_col];
    size_t k = 0;
    for (int64_t r = 0; r < n; r++)
        if (hoodie_logscan_row_in_part(keys, r, st->parts, st->ctx->part)) rows[k++] = r;
    hoodie_status rc = HOODIE_OK;
    for (size_t j = 0; j < st->ctx->n_lazy_cols && rc == HOODIE_OK; j++) {
        int c = st->ctx->lazy_cols[j];
        const hoodie_field *f = &it->batch.schema.children[c];
        hoodie_array kept;
        if ((rc = hoodie_array_init(&kept, f)) < 0) break;
        rc = hoodie_array_take(&kept, f, &it->batch.root.children[c], rows, k);
        if (rc < 0) { hoodie_array_dispose(&kept); break; }
        hoodie_array_dispose(&it->batch.root.children[c]);
        it->batch.root.children[c] = kept;
    }
    if (rc == HOODIE_OK) {
        for (size_t i = 0; i < k; i++) {
            it->lazy->off[i] = it->lazy->off[rows[i]];
            it->lazy->len[i] = it->lazy->len[rows[i]];
        }
        it->batch.root.length = (int64_t)k;
    }
    free(rows);
    return rc;
}

/* An item's rows (or deletes) outside the pass's part dropped. */
static hoodie_status keep_part(const scan_state *st, hoodie_log_item *it)
{
    if (st->parts <= 1) return HOODIE_OK;
    if (it->kind == HOODIE_LOG_DELETES) {
        size_t k = 0;
        for (size_t i = 0; i < it->delete_count; i++) {
            const char *key = it->deletes[i].record_key;
            if (key_in_part((const uint8_t *)key, key ? strlen(key) : 0, st->parts, st->ctx->part))
                it->deletes[k++] = it->deletes[i];
        }
        it->delete_count = k;
        return HOODIE_OK;
    }
    if (st->key_col < 0 || !it->batch.root.length) return HOODIE_OK;
    if (it->lazy) return keep_part_lazy(st, it);
    return hoodie_logscan_keep_part(&it->batch, st->key_col, st->parts, st->ctx->part);
}

/* A log-compacted block (COMPACTED_BLOCK_TIMES = "t1,t2,..."): its instants' blocks are replaced by it. */
static hoodie_status note_compacted(scan_state *st, const char *list, size_t len)
{
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && list[j] != ',') j++;
        if (j > i) {
            HOODIE_TRY(room_for_one((void **)&st->replaced, &st->cap_replaced, st->n_replaced, sizeof *st->replaced));
            char *t = hoodie_arena_strndup(st->out->arena, list + i, j - i);
            if (!t) return HOODIE_NOMEM();
            st->replaced[st->n_replaced++] = t;
        }
        i = j + 1;
    }
    return HOODIE_OK;
}

/* Remove the items of replaced instants (transitively: a replaced compacted block's list still counts, as its
 * replacement lists only the blocks it saw). */
static void drop_replaced(scan_state *st)
{
    for (size_t i = 0; i < st->out->count; i++) {
        hoodie_log_item *it = &st->out->items[i];
        for (size_t k = 0; k < st->n_replaced && !it->removed; k++)
            if (!strcmp(it->instant, st->replaced[k])) drop_item(st, it);
    }
}

hoodie_log_item *hoodie_log_items_push(hoodie_log_items *l, hoodie_log_item_kind kind, const char *instant)
{
    if (l->count == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 8;
        hoodie_log_item *n = realloc(l->items, ncap * sizeof *n);
        if (!n) { HOODIE_NOMEM(); return NULL; }
        l->items = n;
        l->cap = ncap;
    }
    hoodie_log_item *it = &l->items[l->count++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    snprintf(it->instant, sizeof it->instant, "%s", instant ? instant : "");
    return it;
}

void hoodie_log_items_dispose(hoodie_log_items *l)
{
    for (size_t i = 0; i < l->count; i++) {
        lazy_free(&l->items[i]);
        if (l->items[i].kind == HOODIE_LOG_DATA) hoodie_batch_dispose(&l->items[i].batch);
    }
    for (size_t i = 0; i < l->n_maps; i++) hoodie_file_bytes_done(&l->maps[i]);
    free(l->maps);
    for (size_t i = 0; i < l->n_decoders; i++) hoodie_avro_decoder_free(l->decoders[i]);
    free(l->decoders);
    free(l->items);
    hoodie_arena_free(l->arena);
    memset(l, 0, sizeof *l);
}

int hoodie_logscan__applies(const hoodie_logscan_ctx *c, const char *t)
{
    if (!t || !hoodie_instant_time_valid(t, strlen(t))) return 0;
    if (c->as_of && strcmp(t, c->as_of) > 0) return 0;
    for (size_t i = 0; i < c->rolled_back_count; i++)
        if (!strcmp(c->rolled_back[i], t)) return 0;
    if (hoodie_timeline_is_completed(c->tl, t, HOODIE_ACTIONS_WRITE)) return 1;
    return hoodie_timeline_before_start(c->tl, t);
}

static hoodie_status rename_fields(hoodie_avro_schema *rec, const char *parent, const hoodie_renames *rn,
                                   hoodie_arena *a, int depth);

/* The records inside a field's type `t` (path `path`) renamed: itself when a record, through nullable unions, an
 * array's items ("path.element") and a map's values ("path.value"). */
static hoodie_status rename_inside(hoodie_avro_schema *t, const char *path, const hoodie_renames *rn, hoodie_arena *a,
                                   int depth, const hoodie_avro_schema *self)
{
    if (depth > 32) return HOODIE_OK;
    for (size_t b = 0; t->kind == HOODIE_AVRO_UNION && b < t->count; b++)
        if (t->branches[b]->kind != HOODIE_AVRO_NULL) { t = t->branches[b]; break; }
    if (t->kind == HOODIE_AVRO_RECORD) return t != self ? rename_fields(t, path, rn, a, depth + 1) : HOODIE_OK;
    if ((t->kind != HOODIE_AVRO_ARRAY && t->kind != HOODIE_AVRO_MAP) || !t->items) return HOODIE_OK;
    size_t len = strlen(path) + 9;
    char *sub = hoodie_arena_alloc(a, len);
    if (!sub) return HOODIE_NOMEM();
    snprintf(sub, len, "%s.%s", path, t->kind == HOODIE_AVRO_ARRAY ? "element" : "value");
    return rename_inside(t->items, sub, rn, a, depth + 1, self);
}

/* Schema on read: the writer schema's fields renamed as `rn` says (dotted paths of the names as written, through
 * records, nullable records, arrays' elements and maps' values), all of one record's at once (a swap stays a
 * swap). */
static hoodie_status rename_fields(hoodie_avro_schema *rec, const char *parent, const hoodie_renames *rn,
                                   hoodie_arena *a, int depth)
{
    if (rec->kind != HOODIE_AVRO_RECORD || depth > 32) return HOODIE_OK;
    const char **names = hoodie_arena_alloc(a, (rec->count + 1) * sizeof *names);
    if (!names) return HOODIE_NOMEM();
    for (size_t f = 0; f < rec->count; f++) {
        const char *name = rec->fields[f].name, *path = name;
        if (parent) {
            size_t len = strlen(parent) + strlen(name) + 2;
            char *p = hoodie_arena_alloc(a, len);
            if (!p) return HOODIE_NOMEM();
            snprintf(p, len, "%s.%s", parent, name);
            path = p;
        }
        names[f] = name;
        for (size_t r = 0; r < rn->n; r++)
            if (!strcmp(path, rn->from[r])) { names[f] = rn->to[r]; break; }
        HOODIE_TRY(rename_inside(rec->fields[f].type, path, rn, a, depth, rec));
    }
    for (size_t f = 0; f < rec->count; f++) rec->fields[f].name = names[f];
    return HOODIE_OK;
}

static hoodie_status decoder_for(scan_state *st, const char *json, size_t len, const char *what,
                                 const char *instant, hoodie_avro_decoder **out, const hoodie_avro_schema **writer,
                                 size_t *idx)
{
    const hoodie_renames *rn;
    HOODIE_TRY(hoodie_evo_renames(st->ctx->evo, st->ctx->as_of, instant, &rn));
    for (size_t i = 0; i < st->cache_count; i++)
        if (st->cache[i].rn == rn && !strcmp(st->cache[i].json, json)) {
            *out = st->cache[i].decoder;
            *writer = st->cache[i].schema;
            *idx = i;
            return HOODIE_OK;
        }
    schema_cache_entry *n = realloc(st->cache, (st->cache_count + 1) * sizeof *n);
    if (!n) return HOODIE_NOMEM();
    st->cache = n;
    schema_cache_entry *e = &st->cache[st->cache_count];
    memset(e, 0, sizeof *e);
    e->json = hoodie_arena_strndup(st->out->arena, json, len);
    if (!e->json) return HOODIE_NOMEM();
    HOODIE_TRY(hoodie_avro_schema_parse(&e->schema, json, len, st->out->arena, what));
    e->rn = rn;
    if (rn) HOODIE_TRY(rename_fields(e->schema, NULL, rn, st->out->arena, 0));
    HOODIE_TRY(hoodie_avro_decoder_new(&e->decoder, e->schema, st->ctx->schema));
    *idx = st->cache_count++;
    *out = e->decoder;
    *writer = e->schema;
    return HOODIE_OK;
}

/* 1 if the block says it holds partial updates (IS_PARTIAL "true"). */
static int is_partial(const hoodie_hlog_block *b)
{
    const char *v = b->header[HOODIE_HLOG_IS_PARTIAL];
    return v && b->header_len[HOODIE_HLOG_IS_PARTIAL] == 4 && !strncasecmp(v, "true", 4);
}

/* A headers-only scan's item of a partial block: marked, with no columns (hoodie_logscan_blocks). */
static const uint8_t PARTIAL_MARK[1] = { 0 };

/* A partial block's absent columns (hoodie_log_item.absent) into *out: the reader schema's columns the block's own
 * schema (`has`: 1 if it has the named column) leaves out. NULL for a whole-record block. */
static hoodie_status partial_mask(scan_state *st, const hoodie_hlog_block *b,
                                  int (*has)(const void *schema, const char *name), const void *block_schema,
                                  const uint8_t **out)
{
    *out = NULL;
    if (!is_partial(b)) return HOODIE_OK;
    const hoodie_field *r = st->ctx->schema;
    uint8_t *m = hoodie_arena_calloc(st->out->arena, r->n_children + 1, 1);
    if (!m) return HOODIE_NOMEM();
    int any = 0;
    for (size_t c = 0; c < r->n_children; c++) any |= m[c] = (uint8_t)!has(block_schema, r->children[c].name);
    if (!any) return HOODIE_OK; /* every column there: a whole record after all */
    *out = m;
    st->out->partial = 1;
    return HOODIE_OK;
}

static int avro_has(const void *schema, const char *name)
{
    return hoodie_avro_field_index(schema, name) >= 0;
}

static int field_has(const void *schema, const char *name)
{
    return hoodie_field_find(schema, name) >= 0;
}

/* An applying Avro data block: its item now (apply order), its rows when the file ends (decode_pending). */
static hoodie_status avro_block(scan_state *st, const hoodie_hlog_block *b, const char *what, const char *instant)
{
    const char *schema = b->header[HOODIE_HLOG_SCHEMA];
    if (!schema)
        return HOODIE_CORRUPT("%s: Avro data block at offset %llu has no SCHEMA header", what,
                              (unsigned long long)b->offset);
    if (st->ctx->headers_only) {
        hoodie_log_item *it = hoodie_log_items_push(st->out, HOODIE_LOG_DATA, instant);
        if (!it) return HOODIE_ENOMEM;
        if (is_partial(b)) it->absent = PARTIAL_MARK;
        return hoodie_batch_init(&it->batch, st->ctx->schema);
    }
    hoodie_avro_decoder *dec = NULL;
    const hoodie_avro_schema *writer = NULL;
    size_t cache = 0;
    hoodie_status rc = decoder_for(st, schema, b->header_len[HOODIE_HLOG_SCHEMA], what, instant, &dec, &writer, &cache);
    if (rc < 0) { hoodie_error__prefix("%s: block at offset %llu: ", what, (unsigned long long)b->offset); return rc; }
    HOODIE_TRY(room_for_one((void **)&st->pending, &st->cap_pending, st->n_pending, sizeof *st->pending));
    hoodie_log_item *it = hoodie_log_items_push(st->out, HOODIE_LOG_DATA, instant);
    if (!it) return HOODIE_ENOMEM;
    HOODIE_TRY(hoodie_batch_init(&it->batch, st->ctx->schema));
    if (writer && writer->kind == HOODIE_AVRO_RECORD) HOODIE_TRY(partial_mask(st, b, avro_has, writer, &it->absent));
    pending *p = &st->pending[st->n_pending++];
    p->item = st->out->count - 1;
    p->cache = cache;
    p->dec = dec;
    p->writer = writer;
    p->b = *b;
    return HOODIE_OK;
}

/* The position of the record key among the writer schema's fields when it is a string or a nullable string (the
 * key can then be read without decoding the record), else -1. */
static int peek_key_field(const hoodie_avro_schema *writer)
{
    if (!writer || writer->kind != HOODIE_AVRO_RECORD) return -1;
    int k = hoodie_avro_field_index(writer, "_hoodie_record_key");
    if (k < 0) return -1;
    const hoodie_avro_schema *t = writer->fields[k].type;
    int null_index;
    if (t->kind == HOODIE_AVRO_UNION) t = hoodie_avro_nullable_branch(t, &null_index);
    return t && t->kind == HOODIE_AVRO_STRING ? k : -1;
}

/* The record key of an encoded record (the fields before it skipped): 1 and the key (*key NULL: a null key), or 0
 * when the record cannot be read so (it is then decoded, which reports what is wrong). */
static int peek_key(const hoodie_avro_schema *writer, int kf, const uint8_t *rec, size_t len, const uint8_t **key,
                    size_t *klen)
{
    hoodie_cursor c;
    hoodie_cursor_init(&c, rec, len, 0, "log record");
    for (int f = 0; f < kf && c.status == HOODIE_OK; f++) hoodie_avro_skip(&c, writer->fields[f].type);
    const hoodie_avro_schema *t = writer->fields[kf].type;
    *key = NULL;
    *klen = 0;
    if (t->kind == HOODIE_AVRO_UNION) {
        int64_t b = hoodie_avro_read_long(&c);
        if (c.status != HOODIE_OK || b < 0 || (size_t)b >= t->count) { hoodie_error_clear(); return 0; }
        if (t->branches[b]->kind == HOODIE_AVRO_NULL) return 1;
    }
    *key = hoodie_avro_read_bytes(&c, klen);
    if (c.status != HOODIE_OK) { hoodie_error_clear(); return 0; }
    if (!*key) *key = (const uint8_t *)""; /* an empty key */
    return 1;
}

/* Decode the record of `len` bytes at `rec` (file offset `off` of `what`) as one row of `root`: all its bytes. */
static hoodie_status decode_record(hoodie_avro_decoder *dec, const uint8_t *rec, size_t len, uint64_t off,
                                   const char *what, hoodie_array *root)
{
    hoodie_cursor c;
    hoodie_cursor_init(&c, rec, len, off, what);
    HOODIE_TRY(hoodie_avro_decode_row(dec, &c, root));
    if (hoodie_cursor_left(&c))
        return HOODIE_CORRUPT("%s: Avro record at offset %llu has %zu trailing bytes", what, (unsigned long long)off,
                              hoodie_cursor_left(&c));
    return HOODIE_OK;
}

/* The block's bytes (framing included) up to `end` in its content, in proportion: what the records decoded so far
 * stand for in a memory count. */
static uint64_t block_share(const hoodie_hlog_block *b, const uint8_t *end)
{
    uint64_t share = b->content_len ? (uint64_t)((double)b->total_len * (double)(end - b->content) /
                                                 (double)b->content_len) : 0;
    return share > b->total_len ? b->total_len : share;
}

/*
 * A block's records decoded into `it`. In a pass of a hash-partitioned merge (key_col >= 0) only the part's records
 * are kept: their keys are read from the encoded records where the writer schema allows (peek_key: the others are
 * never decoded), else (no string record key in the writer schema) the block is decoded and the part's rows kept.
 * Under a memory limit they are counted every 4096 records (count_item), so a pass takes more partitions as soon as
 * they outgrow it, not a whole block later.
 */
static hoodie_status avro_decode(scan_state *st, const hoodie_hlog_block *b, const char *what,
                                 hoodie_avro_decoder *dec, const hoodie_avro_schema *writer, hoodie_log_item *it)
{
    const hoodie_logscan_ctx *ctx = st->ctx;
    hoodie_status rc;
    hoodie_hlog_avro_records recs;
    HOODIE_TRY(hoodie_hlog_avro_open(&recs, b, what));
    int kf = st->key_col >= 0 ? peek_key_field(writer) : -1;
    if (kf < 0) HOODIE_TRY(hoodie_avro_decoder_reserve(dec, &it->batch.root, recs.record_count));
    const uint8_t *rec;
    size_t len;
    uint64_t counted = 0; /* of the block's bytes: those of the records decoded so far */
    unsigned since = 0;
    while ((rc = hoodie_hlog_avro_next(&recs, &rec, &len)) == HOODIE_OK) {
        const uint8_t *key;
        size_t kl;
        if (kf >= 0 && peek_key(writer, kf, rec, len, &key, &kl) && !key_in_part(key, kl, st->parts, ctx->part))
            continue;
        HOODIE_TRY(decode_record(dec, rec, len, b->content_offset + (uint64_t)(rec - b->content), what,
                                 &it->batch.root));
        if (++since == 4096 && ctx->mem_limit) {
            since = 0;
            uint64_t share = block_share(b, rec + len);
            HOODIE_TRY(count_item(st, it, share - counted));
            counted = share;
        }
    }
    if (rc != HOODIE_ITEROVER) return rc;
    if (kf < 0) HOODIE_TRY(keep_part(st, it));
    return count_item(st, it, b->total_len - counted);
}

/*
 * A block's records decoded lazily into `it` (ctx.lazy_cols; its content is in a mapped file that stays mapped):
 * the lazy columns decoded (through the cache entry's slim decoder, into those columns of the item's batch; the
 * others keep no rows), each record's position noted. Parts and the memory limit as avro_decode.
 */
static hoodie_status avro_decode_lazy(scan_state *st, const hoodie_hlog_block *b, const char *what,
                                      schema_cache_entry *ce, hoodie_log_item *it)
{
    const hoodie_logscan_ctx *ctx = st->ctx;
    const size_t nl = ctx->n_lazy_cols;
    hoodie_status rc;
    hoodie_hlog_avro_records recs;
    HOODIE_TRY(hoodie_hlog_avro_open(&recs, b, what));
    if (!ce->slim) {
        rc = hoodie_avro_decoder_new(&ce->slim, ce->schema, &st->slim);
        if (rc < 0) { hoodie_error__prefix("%s: block at offset %llu: ", what, (unsigned long long)b->offset); return rc; }
    }
    hoodie_log_lazy *z = calloc(1, sizeof *z);
    if (!z) return HOODIE_NOMEM();
    it->lazy = z;
    st->out->lazy++;
    __atomic_add_fetch(&hoodie_logscan__lazy_blocks, 1, __ATOMIC_RELAXED);
    z->content = b->content;
    z->content_offset = b->content_offset;
    z->dec = ce->decoder;
    if (!(z->path = hoodie_arena_strndup(st->out->arena, what, strlen(what)))) return HOODIE_NOMEM();
    size_t cap = recs.record_count > 0 ? (size_t)recs.record_count : 16;
    z->off = malloc(cap * sizeof *z->off);
    z->len = malloc(cap * sizeof *z->len);
    if (!z->off || !z->len) return HOODIE_NOMEM();
    int kf = st->key_col >= 0 ? peek_key_field(ce->schema) : -1;
    /* the decoder appends to a STRUCT of the lazy columns: the item's own arrays, moved in and back out */
    hoodie_array view;
    memset(&view, 0, sizeof view);
    hoodie_array *cols = calloc(nl, sizeof *cols);
    if (!cols) return HOODIE_NOMEM();
    view.children = cols;
    view.n_children = nl;
    hoodie_array *root = &it->batch.root;
    const uint8_t *rec;
    size_t len;
    uint64_t counted = 0;
    unsigned since = 0;
    int in_view = 0;
    while ((rc = hoodie_hlog_avro_next(&recs, &rec, &len)) == HOODIE_OK) {
        const uint8_t *key;
        size_t kl;
        if (kf >= 0 && st->parts > 1 && peek_key(ce->schema, kf, rec, len, &key, &kl) &&
            !key_in_part(key, kl, st->parts, ctx->part))
            continue;
        if (!in_view) {
            for (size_t j = 0; j < nl; j++) cols[j] = root->children[ctx->lazy_cols[j]];
            view.length = root->length;
            in_view = 1;
        }
        size_t r = (size_t)view.length;
        if (r == cap) {
            size_t nc = cap * 2;
            uint32_t *o = realloc(z->off, nc * sizeof *o);
            if (o) z->off = o;
            uint32_t *l = o ? realloc(z->len, nc * sizeof *l) : NULL;
            if (l) z->len = l;
            if (!o || !l) { rc = HOODIE_NOMEM(); break; }
            cap = nc;
        }
        z->off[r] = (uint32_t)(rec - b->content);
        z->len[r] = (uint32_t)len;
        if ((rc = decode_record(ce->slim, rec, len, b->content_offset + z->off[r], what, &view)) < 0) break;
        if (++since == 4096 && ctx->mem_limit) {
            since = 0;
            for (size_t j = 0; j < nl; j++) root->children[ctx->lazy_cols[j]] = cols[j];
            root->length = view.length;
            in_view = 0;
            uint64_t share = block_share(b, rec + len);
            if ((rc = count_item(st, it, share - counted)) < 0) break;
            counted = share;
        }
    }
    if (in_view) { /* the arrays back where they belong (also on failure: the item owns them) */
        for (size_t j = 0; j < nl; j++) root->children[ctx->lazy_cols[j]] = cols[j];
        root->length = view.length;
    }
    free(cols);
    if (rc != HOODIE_ITEROVER) return rc;
    if (kf < 0) HOODIE_TRY(keep_part(st, it));
    return count_item(st, it, b->total_len - counted);
}

/* A PARQUET_DATA_BLOCK (`block_bytes` long): the embedded file's batches, conformed to the reader's schema, as
 * DATA items; in a pass of a partitioned merge each keeps its part's rows as it is read, and is counted. */
static hoodie_status parquet_block(scan_state *st, const hoodie_hlog_block *blk, const uint8_t *data, size_t len,
                                   const char *what, const char *instant, uint64_t block_bytes)
{
    const hoodie_field *schema = st->ctx->schema;
    hoodie_log_items *out = st->out;
    hoodie_pq_mem m;
    hoodie_pq_source src;
    hoodie_pq_source_mem(&src, &m, data, len, what);
    hoodie_pq_file *f = NULL;
    hoodie_pq_scan *sc = NULL;
    hoodie_status rc = hoodie_pq_file_open(&f, &src);
    const hoodie_renames *rn = NULL;
    if (rc == HOODIE_OK) rc = hoodie_evo_renames(st->ctx->evo, st->ctx->as_of, instant, &rn);
    if (rc == HOODIE_OK && rn) rc = hoodie_pq_file_rename(f, rn->from, rn->to, rn->n);
    /* smaller batches under a memory limit (checked a batch at a time) and in passes (each keeps its part) */
    hoodie_pq_scan_opts so = { NULL, 0, NULL, 0, st->ctx->mem_limit || st->parts > 1 ? 8192 : 0, 0 };
    if (rc == HOODIE_OK) rc = hoodie_pq_scan_open(&sc, f, &so);
    const uint8_t *absent = NULL; /* the embedded file's columns are the block's */
    if (rc == HOODIE_OK) rc = partial_mask(st, blk, field_has, hoodie_pq_scan_schema(sc), &absent);
    int64_t rows = rc == HOODIE_OK ? hoodie_pq_file_metadata(f)->num_rows : 0, seen = 0;
    uint64_t counted = 0; /* the block's bytes counted scanned, in proportion to its rows read */
    while (rc == HOODIE_OK) {
        hoodie_batch b;
        rc = hoodie_pq_scan_next(sc, &b);
        if (rc < 0) break;
        seen += b.root.length;
        uint64_t share = rows > 0 && seen < rows ? (uint64_t)((double)block_bytes * (double)seen / (double)rows)
                                                 : block_bytes;
        hoodie_log_item *it = hoodie_log_items_push(out, HOODIE_LOG_DATA, instant);
        if (!it) { hoodie_batch_dispose(&b); rc = HOODIE_ENOMEM; break; }
        it->kind = HOODIE_LOG_DATA;
        it->absent = absent;
        rc = hoodie_conform_batch(&it->batch, schema, &b);
        hoodie_batch_dispose(&b);
        if (rc < 0) { hoodie_batch_init(&it->batch, schema); break; }
        rc = keep_part(st, it);
        if (rc == HOODIE_OK) rc = count_item(st, it, share - counted);
        counted = share;
    }
    if (rc == HOODIE_ITEROVER && counted < block_bytes) st->out->scanned += block_bytes - counted;
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    hoodie_pq_scan_free(sc);
    hoodie_pq_file_free(f);
    return rc;
}


/* The content of a block of a file read in ranges (content NULL), read into st->content (one block at a time). */
static hoodie_status block_content(scan_state *st, hoodie_reader *r, hoodie_hlog_block *b)
{
    if (b->content || !r) return HOODIE_OK;
    if (b->content_len > SIZE_MAX / 2) return HOODIE_FAIL(HOODIE_ENOMEM, "%s: log block too large", r->path);
    st->content.len = 0;
    HOODIE_TRY(hoodie_buf_reserve(&st->content, (size_t)b->content_len + 1));
    if (b->content_len) HOODIE_TRY(hoodie_reader_read(r, b->content_offset, st->content.data, (size_t)b->content_len));
    b->content = st->content.data;
    return HOODIE_OK;
}

/* One block of a log file, in file order. r: the file when it is read in ranges (a block's content is then
 * read when it is needed: delete and Parquet blocks now, Avro data blocks when the file ends), else NULL. */
static hoodie_status scan_block(scan_state *st, const hoodie_fs_file *f, const hoodie_hlog_block *bp,
                                hoodie_reader *r)
{
    const hoodie_logscan_ctx *ctx = st->ctx;
    hoodie_hlog_block b = *bp;
    hoodie_status rc = HOODIE_OK;
    const char *instant = b.header[HOODIE_HLOG_INSTANT_TIME];
    if (b.type == HOODIE_HLOG_CORRUPT_BLOCK) {
        st->out->corrupt_blocks++;
        hoodie_warn("%s: corrupt log block at offset %llu skipped (%s)", f->path, (unsigned long long)b.offset,
                    b.corrupt_reason ? b.corrupt_reason : "unreadable");
        return HOODIE_OK;
    }
    if (b.type == HOODIE_HLOG_COMMAND_BLOCK) {
        const char *target = NULL;
        int cr = hoodie_hlog_command_rollback(&b, f->path, &target);
        if (cr < 0) return cr;
        if (cr == 1 && target)
            for (size_t i = 0; i < st->out->count; i++)
                if (!strcmp(st->out->items[i].instant, target)) drop_item(st, &st->out->items[i]);
        return HOODIE_OK;
    }
    if (!hoodie_logscan__applies(ctx, instant)) { st->out->skipped_blocks++; return HOODIE_OK; }
    size_t first = st->out->count;
    if (b.header[HOODIE_HLOG_COMPACTED_BLOCK_TIMES])
        HOODIE_TRY(note_compacted(st, b.header[HOODIE_HLOG_COMPACTED_BLOCK_TIMES],
                                  b.header_len[HOODIE_HLOG_COMPACTED_BLOCK_TIMES]));
    switch (b.type) {
    case HOODIE_HLOG_AVRO_DATA_BLOCK:
        rc = avro_block(st, &b, f->path, instant);
        break;
    case HOODIE_HLOG_DELETE_BLOCK: {
        hoodie_log_item *item = hoodie_log_items_push(st->out, HOODIE_LOG_DELETES, instant);
        if (!item) { rc = HOODIE_ENOMEM; break; }
        if (ctx->headers_only) break;
        rc = block_content(st, r, &b);
        if (rc == HOODIE_OK)
            rc = hoodie_hlog_delete_decode(&b, st->out->arena, f->path, &item->deletes, &item->delete_count);
        if (rc == HOODIE_OK) rc = keep_part(st, item);
        if (rc == HOODIE_OK) rc = count_item(st, item, b.total_len);
        break;
    }
    case HOODIE_HLOG_PARQUET_DATA_BLOCK: {
        const uint8_t *p;
        size_t n;
        rc = block_content(st, r, &b);
        if (rc == HOODIE_OK) rc = hoodie_hlog_parquet_content(&b, f->path, &p, &n);
        if (rc == HOODIE_OK && ctx->headers_only) {
            hoodie_log_item *item = hoodie_log_items_push(st->out, HOODIE_LOG_DATA, instant);
            rc = item ? hoodie_batch_init(&item->batch, ctx->schema) : HOODIE_ENOMEM;
            if (item && is_partial(&b)) item->absent = PARTIAL_MARK;
        } else if (rc == HOODIE_OK) {
            rc = parquet_block(st, &b, p, n, f->path, instant, b.total_len);
        }
        break;
    }
    case HOODIE_HLOG_HFILE_DATA_BLOCK:
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: HFile data block at offset %llu (metadata table) is not "
                         "supported", f->path, (unsigned long long)b.offset);
        break;
    default: /* CDC blocks carry change records, not table rows */
        break;
    }
    if (first < st->out->count) st->out->items[first].block_start = 1;
    return rc;
}

/* The blocks of a file's bytes from file offset `base` to its end, in memory. */
static hoodie_status scan_bytes(scan_state *st, const hoodie_fs_file *f, const uint8_t *data, size_t len,
                                uint64_t base, hoodie_reader *r)
{
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    hoodie_status rc = hoodie_hlog_iter_init_at(&it, data, len, base, f->path);
    while (rc == HOODIE_OK && (rc = hoodie_hlog_iter_next(&it, &b)) == HOODIE_OK) rc = scan_block(st, f, &b, r);
    hoodie_hlog_iter_dispose(&it);
    return rc == HOODIE_ITEROVER ? HOODIE_OK : rc;
}

/*
 * The blocks of a file read in ranges (one that is not mapped and is large): a block's first bytes for its header,
 * the bytes after its content for its footer and framing, its content only when it is decoded; memory holds one
 * block's content at a time instead of the file. From a block whose framing does not check out (a corrupt block:
 * Hudi scans forward for the next magic), the rest of the file is read whole and iterated as a whole file is.
 */
enum { HEAD_BYTES = 64 << 10 };
static hoodie_status scan_ranged(scan_state *st, const hoodie_fs_file *f, hoodie_reader *r)
{
    uint64_t pos = 0, size = r->size;
    hoodie_status rc = HOODIE_OK;
    if (!st->head_arena && (rc = hoodie_arena_new(&st->head_arena, NULL, 4096)) < 0) return rc;
    while (rc == HOODIE_OK && pos < size) {
        hoodie_hlog_block b;
        size_t n = size - pos < HEAD_BYTES ? (size_t)(size - pos) : HEAD_BYTES, need = 0;
        int h;
        st->head.len = 0;
        for (;;) { /* the head's bytes: those in hand kept, the rest read */
            if ((rc = hoodie_buf_reserve(&st->head, n)) < 0) return rc;
            if ((rc = hoodie_reader_read(r, pos + st->head.len, st->head.data + st->head.len, n - st->head.len)) < 0)
                return rc;
            st->head.len = n;
            hoodie_arena_reset(st->head_arena);
            h = hoodie_hlog_head(st->head.data, n, pos, size, f->path, st->head_arena, &b, &need);
            if (h != HOODIE_HLOG_MORE || need <= n) break;
            n = need;
        }
        if (h == HOODIE_HLOG_MORE) h = HOODIE_HLOG_UNCLEAN;
        if (h < 0) return h;
        if (h == HOODIE_OK) { /* the tail: in the head's bytes (a small block), else read */
            uint64_t toff;
            size_t tlen;
            const uint8_t *t = NULL;
            hoodie_hlog_tail_range(&b, size, &toff, &tlen);
            if (toff + tlen <= pos + n) {
                t = st->head.data + (toff - pos);
            } else {
                if ((rc = hoodie_buf_reserve(&st->tail, tlen + 1)) < 0) return rc;
                if ((rc = hoodie_reader_read(r, toff, st->tail.data, tlen)) < 0) return rc;
                t = st->tail.data;
            }
            h = hoodie_hlog_tail(t, tlen, size, f->path, &b);
        }
        if (h != HOODIE_OK) { /* the rest whole: the iterator decides, as for a file read whole */
            if (size - pos > SIZE_MAX / 2) return HOODIE_FAIL(HOODIE_ENOMEM, "%s: log file too large", f->path);
            st->data.len = 0;
            if ((rc = hoodie_buf_reserve(&st->data, (size_t)(size - pos) + 1)) < 0) return rc;
            if ((rc = hoodie_reader_read(r, pos, st->data.data, (size_t)(size - pos))) < 0) return rc;
            st->data.len = (size_t)(size - pos);
            return scan_bytes(st, f, st->data.data, st->data.len, pos, r);
        }
        rc = scan_block(st, f, &b, r);
        pos += b.total_len;
    }
    return rc;
}

static hoodie_status scan_file(scan_state *st, const hoodie_fs_file *f)
{
    const hoodie_logscan_ctx *ctx = st->ctx;
    const hoodie_storage *s = hoodie_storage__or_default(ctx->storage);
    uint64_t ranged_min = ctx->ranged_min ? ctx->ranged_min : HOODIE_LOG_RANGED_MIN;
    hoodie_reader r;
    hoodie_file_bytes fb; /* mapped where the storage maps files: the file's pages, not a copy of them */
    hoodie_status rc = hoodie_storage_file_bytes_or_reader(s, f->path, &st->data, ranged_min - 1, &fb, &r);
    if (rc < 0) return rc; /* a read that failed part-way */
    int ranged = r.f != NULL;
    rc = ranged ? scan_ranged(st, f, &r) : scan_bytes(st, f, fb.data, fb.len, 0, NULL);
    /* the file's data blocks that are still to be applied (replacements seen so far applied first) */
    if (rc == HOODIE_OK && st->n_replaced) drop_replaced(st);
    for (size_t i = 0; i < st->n_pending && rc == HOODIE_OK; i++) {
        pending *p = &st->pending[i];
        hoodie_log_item *item = &st->out->items[p->item];
        if (item->removed) continue;
        rc = block_content(st, ranged ? &r : NULL, &p->b);
        /* lazily where the file is mapped (it stays so) and the block holds whole records */
        int lazy = st->have_slim && fb.f && !item->absent && p->b.content_len <= UINT32_MAX &&
                   p->writer && p->writer->kind == HOODIE_AVRO_RECORD;
        if (rc == HOODIE_OK && lazy) rc = avro_decode_lazy(st, &p->b, f->path, &st->cache[p->cache], item);
        else if (rc == HOODIE_OK) rc = avro_decode(st, &p->b, f->path, p->dec, p->writer, item);
        st->file_lazy += lazy;
        if (!ranged) hoodie_file_bytes_drop(&fb, p->b.offset, p->b.total_len); /* decoded */
    }
    st->n_pending = 0;
    hoodie_reader_close(&r);
    if (st->file_lazy) { /* lazy items' records are in it: the items keep it mapped */
        hoodie_file_bytes *nm = realloc(st->out->maps, (st->out->n_maps + 1) * sizeof *nm);
        if (nm) {
            st->out->maps = nm;
            nm[st->out->n_maps++] = fb;
            memset(&fb, 0, sizeof fb);
        } else if (rc == HOODIE_OK) {
            rc = HOODIE_NOMEM();
        }
        st->file_lazy = 0;
    }
    hoodie_file_bytes_done(&fb); /* else nothing points into it any more: the items own their rows and deletes */
    return rc;
}

unsigned long hoodie_logscan__lazy_blocks;

/* ctx.lazy_cols: the STRUCT of those columns lazy blocks are decoded into. */
static hoodie_status slim_schema(scan_state *st)
{
    const hoodie_field *r = st->ctx->schema;
    HOODIE_TRY(hoodie_field_init(&st->slim, "lazy", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    st->have_slim = 1;
    for (size_t j = 0; j < st->ctx->n_lazy_cols; j++) {
        int c = st->ctx->lazy_cols[j];
        if (c < 0 || (size_t)c >= r->n_children)
            return HOODIE_FAIL(HOODIE_EINVAL, "log scan: lazy column %d of a schema of %zu", c, r->n_children);
        HOODIE_TRY(hoodie_field_add_child(&st->slim, &r->children[c]));
    }
    return HOODIE_OK;
}

hoodie_status hoodie_log_item_decode_row(const hoodie_log_item *it, int64_t row, hoodie_array *root)
{
    const hoodie_log_lazy *z = it->lazy;
    return decode_record(z->dec, z->content + z->off[row], z->len[row], z->content_offset + z->off[row], z->path,
                         root);
}

int hoodie_logscan_lazy(uint64_t log_bytes, int64_t budget)
{
    return hoodie_logscan_parts(log_bytes, budget) > 1 || log_bytes > hoodie_logscan_budget(budget) / 4;
}

size_t hoodie_logscan_lazy_cols(int *out, const int *cols, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int seen = cols[i] < 0;
        for (size_t j = 0; j < k && !seen; j++) seen = out[j] == cols[i];
        if (!seen) out[k++] = cols[i];
    }
    return k;
}

hoodie_status hoodie_log_items_materialize(hoodie_log_items *l)
{
    for (size_t i = 0; i < l->count; i++) {
        hoodie_log_item *it = &l->items[i];
        if (!it->lazy) continue;
        hoodie_batch whole;
        HOODIE_TRY(hoodie_batch_init(&whole, &it->batch.schema));
        hoodie_status rc = hoodie_avro_decoder_reserve(it->lazy->dec, &whole.root, it->batch.root.length);
        for (int64_t r = 0; r < it->batch.root.length && rc == HOODIE_OK; r++)
            rc = hoodie_log_item_decode_row(it, r, &whole.root);
        if (rc < 0) { hoodie_batch_dispose(&whole); return rc; }
        hoodie_batch_dispose(&it->batch);
        it->batch = whole;
        lazy_free(it);
        l->lazy--;
    }
    hoodie_log_items_release(l);
    return HOODIE_OK;
}

void hoodie_log_items_release(hoodie_log_items *l)
{
    for (size_t i = 0; i < l->n_maps; i++) hoodie_file_bytes_drop(&l->maps[i], 0, l->maps[i].len);
}

hoodie_status hoodie_logscan(hoodie_log_items *out, const hoodie_logscan_ctx *ctx, const hoodie_fs_file *const *logs,
                             size_t n_logs)
{
    scan_state st;
    memset(&st, 0, sizeof st);
    st.ctx = ctx;
    st.out = out;
    st.key_col = ctx->parts > 1 || ctx->mem_limit ? hoodie_field_find(ctx->schema, "_hoodie_record_key") : -1;
    st.parts = ctx->parts > 1 ? ctx->parts : 1;
    for (size_t i = 0; i < n_logs; i++) st.log_bytes += logs[i]->size;
    memset(out, 0, sizeof *out);
    hoodie_status rc = hoodie_arena_new(&out->arena, NULL, 16384);
    if (rc == HOODIE_OK && ctx->n_lazy_cols && !ctx->headers_only) rc = slim_schema(&st);
    for (size_t i = 0; i < n_logs && rc == HOODIE_OK; i++) {
        size_t first = out->count;
        rc = logs[i]->fn.kind == HOODIE_FILE_LOG ? scan_file(&st, logs[i]) : hoodie_lsm__native_items(ctx, logs[i], out);
        for (size_t j = first; rc == HOODIE_OK && logs[i]->fn.kind != HOODIE_FILE_LOG && j < out->count; j++) {
            rc = keep_part(&st, &out->items[j]);
            if (rc == HOODIE_OK) rc = count_item(&st, &out->items[j], j == first ? logs[i]->size : 0);
        }
    }
    if (rc == HOODIE_OK && st.n_replaced) drop_replaced(&st);
    /* lazy items decode with their decoders later: the items keep them */
    if (st.cache_count && out->lazy && rc == HOODIE_OK) {
        if (!(out->decoders = malloc(st.cache_count * sizeof *out->decoders))) rc = HOODIE_NOMEM();
    }
    for (size_t i = 0; i < st.cache_count; i++) {
        hoodie_avro_decoder_free(st.cache[i].slim);
        if (out->decoders) out->decoders[out->n_decoders++] = st.cache[i].decoder;
        else hoodie_avro_decoder_free(st.cache[i].decoder);
    }
    if (st.have_slim) hoodie_field_dispose(&st.slim);
    free(st.cache);
    free(st.replaced);
    free(st.pending);
    hoodie_buf_dispose(&st.data);
    hoodie_buf_dispose(&st.head);
    hoodie_buf_dispose(&st.tail);
    hoodie_buf_dispose(&st.content);
    hoodie_arena_free(st.head_arena);
    if (rc < 0) hoodie_log_items_dispose(out);
    else out->parts = st.parts;
    return rc;
}

int64_t hoodie_log_items_blocks(const hoodie_log_items *l)
{
    int64_t n = 0;
    for (size_t i = 0; i < l->count; i++) n += l->items[i].block_start && !l->items[i].removed;
    return n;
}

hoodie_status hoodie_logscan_blocks(const hoodie_logscan_ctx *ctx, const hoodie_fs_file *const *logs, size_t n_logs,
                                    int64_t *out, int *partial)
{
    hoodie_logscan_ctx c = *ctx;
    hoodie_log_items items;
    c.headers_only = 1;
    *out = 0;
    HOODIE_TRY(hoodie_logscan(&items, &c, logs, n_logs));
    *out = hoodie_log_items_blocks(&items);
    if (partial) { /* (headers only: an applying item of a partial block has its mark, no mask) */
        *partial = 0;
        for (size_t i = 0; i < items.count; i++) *partial |= !items.items[i].removed && items.items[i].absent;
    }
    hoodie_log_items_dispose(&items);
    return HOODIE_OK;
}
