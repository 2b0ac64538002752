/* HFile version 3 writer (see hfile_write.h). */
#include "format/hfile/hfile_write.h"
#include "format/hfile/hfile.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define BLOCK_HEADER 33
#define TRAILER_SIZE 4096
#define BYTES_PER_CHECKSUM 16384
#define MIN_INDEX_ENTRIES 16 /* hfile.index.block.min.entries */
#define LATEST_TIMESTAMP INT64_MAX
#define TYPE_PUT 4
#define TYPE_MAXIMUM 0xff

/* HBase's BlockType: each block records the offset of the previous block of its type */
enum { BT_DATA, BT_LEAF, BT_META, BT_INTERMEDIATE, BT_ROOT, BT_FILE_INFO, BT_COUNT };
static const char *const magics[BT_COUNT] = { "DATABLK*", "IDXLEAF2", "METABLKc", "IDXINTE2", "IDXROOT2",
                                              "FILEINF2" };

/* One level of the block index being built (HBase's BlockIndexChunk). */
typedef struct chunk {
    struct entry {
        uint8_t *key; /* a serialized HBase key */
        size_t key_len;
        uint64_t offset;
        uint32_t size;     /* the block's on-disk size with its header */
        uint64_t sub_upto; /* data blocks indexed up to and including this entry (for the mid key) */
    } *e;
    size_t n, cap;
    size_t root_size;    /* bytes in the root format */
    size_t nonroot_size; /* entries' bytes in the non-root format, without the count and secondary index */
} chunk;

typedef struct named {
    char *name;
    uint8_t *data;
    size_t len;
} named;

struct hoodie_hfile_writer {
    hoodie_hfile_writer_opts o;
    hoodie_hfile_sink sink;
    void *ctx;
    uint64_t pos;
    int64_t prev[BT_COUNT];
    hoodie_buf block;     /* the data block's cells */
    hoodie_buf out;       /* a block as written */
    hoodie_buf tmp;
    hoodie_buf first_row; /* the block's first row */
    hoodie_buf prev_row;  /* the previous block's last row */
    hoodie_buf last_row;
    int have_last, have_prev, in_block;
    uint64_t entries, key_bytes, value_bytes, total_uncompressed, index_uncompressed;
    int64_t first_data, last_data;
    chunk inline_chunk, root;
    int levels, single_level; /* single_level: the inline chunk became the root */
    uint64_t index_entries;   /* data blocks indexed */
    named *metas, *infos;
    size_t n_metas, n_infos;
    int failed, finished;
};

/* ---- small encoders ---- */

static void put_be16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v; }

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

/* Hadoop's WritableUtils.writeVLong */
static size_t vlong_size(int64_t v)
{
    if (v >= -112 && v <= 127) return 1;
    if (v < 0) v = ~v;
    size_t n = 0;
    for (uint64_t t = (uint64_t)v; t; t >>= 8) n++;
    return n + 1;
}

static hoodie_status put_vlong(hoodie_buf *b, int64_t v)
{
    if (v >= -112 && v <= 127) return hoodie_buf_putc(b, (uint8_t)v);
    int len = -112;
    if (v < 0) v = ~v, len = -120;
    int n = 0;
    for (uint64_t t = (uint64_t)v; t; t >>= 8) n++;
    HOODIE_TRY(hoodie_buf_putc(b, (uint8_t)(int8_t)(len - n)));
    for (int i = n; i > 0; i--) HOODIE_TRY(hoodie_buf_putc(b, (uint8_t)((uint64_t)v >> (8 * (i - 1)))));
    return HOODIE_OK;
}

/* The serialized HBase key of a row: i16 rowLen, row, u8 familyLen 0, i64 timestamp, u8 type. */
static hoodie_status put_key(hoodie_buf *b, const uint8_t *row, size_t len, int type)
{
    uint8_t h[2], t[10];
    put_be16(h, (uint32_t)len);
    t[0] = 0;
    put_be64(t + 1, (uint64_t)LATEST_TIMESTAMP);
    t[9] = (uint8_t)type;
    HOODIE_TRY(hoodie_buf_append(b, h, 2));
    HOODIE_TRY(hoodie_buf_append(b, row, len));
    return hoodie_buf_append(b, t, 10);
}

static int row_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c) return c;
    return an < bn ? -1 : an > bn;
}

/* ---- blocks ---- */

static hoodie_status emit(hoodie_hfile_writer *w, const uint8_t *p, size_t n)
{
    hoodie_status rc = w->sink(w->ctx, p, n);
    if (rc < 0) { w->failed = 1; return rc; }
    w->pos += n;
    return HOODIE_OK;
}

/* gzip as Hadoop's GzipCodec frames it: a 10-byte header of zeros but the magic and method, raw deflate at
 * zlib's default level, CRC-32 and length (little-endian). */
static hoodie_status gzip_into(hoodie_buf *out, const uint8_t *p, size_t n)
{
    static const uint8_t header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0 };
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return HOODIE_NOMEM();
    size_t bound = deflateBound(&z, (uLong)n);
    hoodie_status rc = hoodie_buf_reserve(out, 10 + bound + 8);
    if (rc == HOODIE_OK) {
        memcpy(out->data + out->len, header, 10);
        z.next_in = (Bytef *)(uintptr_t)p;
        z.avail_in = (uInt)n;
        z.next_out = out->data + out->len + 10;
        z.avail_out = (uInt)bound;
        if (deflate(&z, Z_FINISH) != Z_STREAM_END) rc = HOODIE_FAIL(HOODIE_ENOMEM, "gzip: deflate did not finish");
    }
    if (rc == HOODIE_OK) {
        out->len += 10 + z.total_out;
        uint32_t crc = (uint32_t)crc32(0, p, (uInt)n), len = (uint32_t)n;
        uint8_t t[8] = { (uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24),
                         (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24) };
        memcpy(out->data + out->len, t, 8);
        out->len += 8;
    }
    deflateEnd(&z);
    return rc;
}

/* Write a block of `type` holding payload[0..n); *size its on-disk size with the header. */
static hoodie_status write_block(hoodie_hfile_writer *w, int type, const uint8_t *payload, size_t n, uint32_t *size)
{
    if (n > INT32_MAX) return HOODIE_FAIL(HOODIE_EINVAL, "HFile block of %zu bytes: too large", n);
    hoodie_buf *o = &w->out;
    o->len = 0;
    HOODIE_TRY(hoodie_buf_reserve(o, BLOCK_HEADER));
    o->len = BLOCK_HEADER;
    if (w->o.gzip) HOODIE_TRY(gzip_into(o, payload, n));
    else HOODIE_TRY(hoodie_buf_append(o, payload, n));
    size_t with_header = o->len, chunks = (with_header + BYTES_PER_CHECKSUM - 1) / BYTES_PER_CHECKSUM;
    size_t on_disk = with_header - BLOCK_HEADER + 4 * chunks;
    uint8_t *h = o->data;
    memcpy(h, magics[type], 8);
    put_be32(h + 8, (uint32_t)on_disk);
    put_be32(h + 12, (uint32_t)n);
    put_be64(h + 16, (uint64_t)w->prev[type]);
    h[24] = 2; /* CRC32C */
    put_be32(h + 25, BYTES_PER_CHECKSUM);
    put_be32(h + 29, (uint32_t)with_header);
    HOODIE_TRY(hoodie_buf_reserve(o, 4 * chunks));
    for (size_t i = 0; i < chunks; i++) {
        size_t at = i * BYTES_PER_CHECKSUM, len = with_header - at < BYTES_PER_CHECKSUM ? with_header - at : BYTES_PER_CHECKSUM;
        put_be32(o->data + o->len, hoodie_crc32c(0, o->data + at, len));
        o->len += 4;
    }
    w->prev[type] = (int64_t)w->pos;
    *size = (uint32_t)(BLOCK_HEADER + on_disk);
    return emit(w, o->data, o->len);
}

/* ---- the block index ---- */

static void chunk_clear(chunk *c)
{
    for (size_t i = 0; i < c->n; i++) free(c->e[i].key);
    c->n = c->root_size = c->nonroot_size = 0;
}

static void chunk_dispose(chunk *c)
{
    chunk_clear(c);
    free(c->e);
    memset(c, 0, sizeof *c);
}

/* Add an entry; `key` is taken over on success. */
static hoodie_status chunk_add(chunk *c, uint8_t *key, size_t key_len, uint64_t offset, uint32_t size, uint64_t sub)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 64;
        struct entry *p = realloc(c->e, nc * sizeof *p);
        if (!p) return HOODIE_NOMEM();
        c->e = p, c->cap = nc;
    }
    c->e[c->n++] = (struct entry){ key, key_len, offset, size, sub };
    c->root_size += 12 + vlong_size((int64_t)key_len) + key_len;
    c->nonroot_size += 12 + key_len;
    return HOODIE_OK;
}

static hoodie_status chunk_add_copy(chunk *c, const uint8_t *key, size_t key_len, uint64_t offset, uint32_t size,
                                    uint64_t sub)
{
    uint8_t *k = malloc(key_len ? key_len : 1);
    if (!k) return HOODIE_NOMEM();
    memcpy(k, key, key_len);
    hoodie_status rc = chunk_add(c, k, key_len, offset, size, sub);
    if (rc < 0) free(k);
    return rc;
}

static size_t nonroot_size(const chunk *c) { return 4 + 4 * (c->n + 1) + c->nonroot_size; }

/* i32 count, i32 offsets of the entries (and their end), entries: i64 offset, i32 size, key */
static hoodie_status write_nonroot(const chunk *c, hoodie_buf *b)
{
    HOODIE_TRY(hoodie_buf_reserve(b, nonroot_size(c)));
    HOODIE_TRY(hoodie_buf_put_be32(b, (uint32_t)c->n));
    uint32_t at = 0;
    for (size_t i = 0; i < c->n; i++) {
        HOODIE_TRY(hoodie_buf_put_be32(b, at));
        at += 12 + (uint32_t)c->e[i].key_len;
    }
    HOODIE_TRY(hoodie_buf_put_be32(b, at));
    for (size_t i = 0; i < c->n; i++) {
        HOODIE_TRY(hoodie_buf_put_be64(b, c->e[i].offset));
        HOODIE_TRY(hoodie_buf_put_be32(b, c->e[i].size));
        HOODIE_TRY(hoodie_buf_append(b, c->e[i].key, c->e[i].key_len));
    }
    return HOODIE_OK;
}

/* i64 offset, i32 size, vint key length, key */
static hoodie_status write_root(const chunk *c, hoodie_buf *b)
{
    for (size_t i = 0; i < c->n; i++) {
        HOODIE_TRY(hoodie_buf_put_be64(b, c->e[i].offset));
        HOODIE_TRY(hoodie_buf_put_be32(b, c->e[i].size));
        HOODIE_TRY(put_vlong(b, (int64_t)c->e[i].key_len));
        HOODIE_TRY(hoodie_buf_append(b, c->e[i].key, c->e[i].key_len));
    }
    return HOODIE_OK;
}

/* A leaf index block once the inline chunk has grown to an index block's size (or, closing, holds entries and
 * leaves were written before: a lone chunk becomes the root instead). */
static hoodie_status write_inline(hoodie_hfile_writer *w, int closing)
{
    chunk *c = &w->inline_chunk;
    if (w->single_level) return HOODIE_OK;
    if (closing) {
        if (!c->n) return HOODIE_OK;
        if (!w->root.n) {
            chunk t = w->root;
            w->root = *c, *c = t;
            w->single_level = 1;
            return HOODIE_OK;
        }
    } else if (nonroot_size(c) < w->o.index_block_size) {
        return HOODIE_OK;
    }
    w->tmp.len = 0;
    HOODIE_TRY(write_nonroot(c, &w->tmp));
    uint64_t at = w->pos;
    uint32_t size;
    HOODIE_TRY(write_block(w, BT_LEAF, w->tmp.data, w->tmp.len, &size));
    w->index_uncompressed += w->tmp.len;
    w->total_uncompressed += BLOCK_HEADER + w->tmp.len;
    if (!w->root.n) w->levels = 2;
    HOODIE_TRY(chunk_add(&w->root, c->e[0].key, c->e[0].key_len, at, size, w->index_entries));
    c->e[0].key = NULL; /* moved */
    chunk_clear(c);
    return HOODIE_OK;
}

/* The index key of a block: the shortest row between the previous block's last row and the block's first
 * (HBase's getMinimumMidpointArray, Java's signed byte comparison included), as a first-on-row key; the first
 * cell's own key for the first block and when the rows are equal. */
static hoodie_status index_key(hoodie_hfile_writer *w, hoodie_buf *key)
{
    const uint8_t *l = w->prev_row.data, *r = w->first_row.data;
    size_t ln = w->prev_row.len, rn = w->first_row.len;
    key->len = 0;
    if (!w->have_prev || row_cmp(l, ln, r, rn) == 0) return put_key(key, r, rn, TYPE_PUT);
    size_t min = ln < rn ? ln : rn, d = 0;
    while (d < min && l[d] == r[d]) d++;
    /* d + 1 bytes: the right row's (the left's prefix is the same), or the left's first d and its byte d + 1 */
    if (d >= min) return put_key(key, r, d + 1, TYPE_MAXIMUM);
    HOODIE_TRY(put_key(key, r, d + 1, TYPE_MAXIMUM));
    int diff = (int8_t)l[d];
    if ((diff & 0xff) < 0xff && diff + 1 < (int)r[d]) key->data[2 + d] = (uint8_t)(diff + 1);
    return HOODIE_OK;
}

static hoodie_status finish_block(hoodie_hfile_writer *w)
{
    if (!w->in_block || !w->block.len) return HOODIE_OK;
    if (w->first_data < 0) w->first_data = (int64_t)w->pos;
    w->last_data = (int64_t)w->pos;
    uint64_t at = w->pos;
    uint32_t size;
    HOODIE_TRY(write_block(w, BT_DATA, w->block.data, w->block.len, &size));
    w->total_uncompressed += BLOCK_HEADER + w->block.len;
    w->tmp.len = 0;
    HOODIE_TRY(index_key(w, &w->tmp));
    HOODIE_TRY(chunk_add_copy(&w->inline_chunk, w->tmp.data, w->tmp.len, at, size, 0));
    w->index_entries++;
    w->prev_row.len = 0;
    HOODIE_TRY(hoodie_buf_append(&w->prev_row, w->last_row.data, w->last_row.len));
    w->have_prev = 1;
    w->block.len = 0;
    w->in_block = 0;
    return HOODIE_OK;
}

/* ---- the writer ---- */

hoodie_status hoodie_hfile_writer_new(hoodie_hfile_writer **out, const hoodie_hfile_writer_opts *opts,
                                      hoodie_hfile_sink sink, void *ctx)
{
    *out = NULL;
    hoodie_hfile_writer *w = calloc(1, sizeof *w);
    if (!w) return HOODIE_NOMEM();
    if (opts) w->o = *opts;
    else w->o.gzip = 1;
    if (!w->o.block_size) w->o.block_size = 1024 * 1024;
    if (!w->o.index_block_size) w->o.index_block_size = 128 * 1024;
    if (!w->o.comparator) w->o.comparator = HOODIE_HFILE_HUDI_COMPARATOR;
    w->sink = sink;
    w->ctx = ctx;
    for (int i = 0; i < BT_COUNT; i++) w->prev[i] = -1;
    w->first_data = w->last_data = -1;
    w->levels = 1;
    *out = w;
    return HOODIE_OK;
}

static void named_free(named *v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i].name), free(v[i].data);
    free(v);
}

void hoodie_hfile_writer_free(hoodie_hfile_writer *w)
{
    if (!w) return;
    hoodie_buf_dispose(&w->block);
    hoodie_buf_dispose(&w->out);
    hoodie_buf_dispose(&w->tmp);
    hoodie_buf_dispose(&w->first_row);
    hoodie_buf_dispose(&w->prev_row);
    hoodie_buf_dispose(&w->last_row);
    chunk_dispose(&w->inline_chunk);
    chunk_dispose(&w->root);
    named_free(w->metas, w->n_metas);
    named_free(w->infos, w->n_infos);
    free(w);
}

uint64_t hoodie_hfile_writer_entries(const hoodie_hfile_writer *w) { return w->entries; }
uint64_t hoodie_hfile_writer_offset(const hoodie_hfile_writer *w) { return w->pos; }

static hoodie_status usable(const hoodie_hfile_writer *w)
{
    if (w->finished) return HOODIE_FAIL(HOODIE_EINVAL, "HFile writer: already finished");
    if (w->failed) return HOODIE_FAIL(HOODIE_EINVAL, "HFile writer: an earlier write failed");
    return HOODIE_OK;
}

hoodie_status hoodie_hfile_writer_add(hoodie_hfile_writer *w, const uint8_t *key, size_t key_len,
                                      const uint8_t *value, size_t value_len)
{
    HOODIE_TRY(usable(w));
    if (key_len > 32767) return HOODIE_FAIL(HOODIE_EINVAL, "HFile key of %zu bytes: at most 32767", key_len);
    if (value_len > INT32_MAX - 32767 - 64)
        return HOODIE_FAIL(HOODIE_EINVAL, "HFile value of %zu bytes: too large", value_len);
    int dup = 0;
    if (w->have_last) {
        int c = row_cmp(w->last_row.data, w->last_row.len, key, key_len);
        if (c > 0)
            return HOODIE_FAIL(HOODIE_EINVAL, "HFile cells must be added in key order: '%.*s' after '%.*s'",
                               (int)(key_len > 200 ? 200 : key_len), (const char *)key,
                               (int)(w->last_row.len > 200 ? 200 : w->last_row.len), (const char *)w->last_row.data);
        dup = c == 0;
    }
    hoodie_status rc = HOODIE_OK;
    /* a block ends before the cell that finds it full; a run of one key stays in one block */
    if (!dup && w->in_block && w->block.len >= w->o.block_size) {
        rc = finish_block(w);
        if (rc == HOODIE_OK) rc = write_inline(w, 0);
        if (rc < 0) { w->failed = 1; return rc; }
    }
    size_t kl = key_len + 12;
    uint8_t lens[8];
    put_be32(lens, (uint32_t)kl);
    put_be32(lens + 4, (uint32_t)value_len);
    size_t mark = w->block.len;
    rc = hoodie_buf_reserve(&w->block, 8 + kl + value_len + 1);
    if (rc == HOODIE_OK) rc = hoodie_buf_append(&w->block, lens, 8);
    if (rc == HOODIE_OK) rc = put_key(&w->block, key, key_len, TYPE_PUT);
    if (rc == HOODIE_OK) rc = hoodie_buf_append(&w->block, value, value_len);
    if (rc == HOODIE_OK) rc = hoodie_buf_putc(&w->block, 0); /* MVCC */
    if (rc == HOODIE_OK && !w->in_block) {
        w->first_row.len = 0;
        rc = hoodie_buf_append(&w->first_row, key, key_len);
    }
    if (rc == HOODIE_OK && !dup) {
        w->last_row.len = 0;
        rc = hoodie_buf_append(&w->last_row, key, key_len);
    }
    if (rc < 0) { w->block.len = mark; return rc; }
    w->in_block = 1;
    w->have_last = 1;
    w->entries++;
    w->key_bytes += kl;
    w->value_bytes += value_len;
    return HOODIE_OK;
}

/* Insert into v (kept in unsigned byte order of names, a new entry after equal ones; `replace`: an equal name's
 * entry is replaced instead). */
static hoodie_status named_add(named **v, size_t *n, const char *name, const uint8_t *data, size_t len, int replace)
{
    size_t at = 0, nl = strlen(name);
    while (at < *n) {
        int c = row_cmp((const uint8_t *)(*v)[at].name, strlen((*v)[at].name), (const uint8_t *)name, nl);
        if (c > 0 || (c == 0 && replace)) break;
        at++;
    }
    char *nm = strdup(name);
    uint8_t *d = malloc(len ? len : 1);
    if (!nm || !d) { free(nm), free(d); return HOODIE_NOMEM(); }
    if (len) memcpy(d, data, len);
    if (replace && at < *n && !strcmp((*v)[at].name, name)) {
        free((*v)[at].name), free((*v)[at].data);
        (*v)[at] = (named){ nm, d, len };
        return HOODIE_OK;
    }
    named *p = realloc(*v, (*n + 1) * sizeof *p);
    if (!p) { free(nm), free(d); return HOODIE_NOMEM(); }
    *v = p;
    memmove(p + at + 1, p + at, (*n - at) * sizeof *p);
    p[at] = (named){ nm, d, len };
    (*n)++;
    return HOODIE_OK;
}

hoodie_status hoodie_hfile_writer_info(hoodie_hfile_writer *w, const char *key, const uint8_t *value, size_t len)
{
    HOODIE_TRY(usable(w));
    return named_add(&w->infos, &w->n_infos, key, value, len, 1);
}

hoodie_status hoodie_hfile_writer_meta(hoodie_hfile_writer *w, const char *name, const uint8_t *data, size_t len)
{
    HOODIE_TRY(usable(w));
    return named_add(&w->metas, &w->n_metas, name, data, len, 0);
}

/* The levels above the root's entries while they exceed an index block (HBase's writeIntermediateLevel). */
static hoodie_status intermediate_level(hoodie_hfile_writer *w)
{
    chunk parent = { 0 }, cur = { 0 };
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < w->root.n; i++) {
        struct entry *e = &w->root.e[i];
        rc = chunk_add(&cur, e->key, e->key_len, e->offset, e->size, 0);
        if (rc < 0) break;
        e->key = NULL;
        int last = i + 1 == w->root.n;
        if (cur.root_size >= w->o.index_block_size || (last && cur.n)) {
            w->tmp.len = 0;
            uint64_t at = w->pos;
            uint32_t size;
            rc = write_nonroot(&cur, &w->tmp);
            if (rc == HOODIE_OK) rc = write_block(w, BT_INTERMEDIATE, w->tmp.data, w->tmp.len, &size);
            if (rc == HOODIE_OK) rc = chunk_add(&parent, cur.e[0].key, cur.e[0].key_len, at, size, 0);
            if (rc == HOODIE_OK) cur.e[0].key = NULL;
            w->index_uncompressed += w->tmp.len;
            chunk_clear(&cur);
        }
    }
    chunk_dispose(&cur);
    chunk_dispose(&w->root);
    w->root = parent;
    return rc;
}

/* HBase's mid-key metadata: the root entry holding the middle data block, its size, the block's place in it. */
static hoodie_status mid_key(const chunk *root, hoodie_buf *b)
{
    uint64_t total = root->n ? root->e[root->n - 1].sub_upto : 0, k = total ? (total - 1) / 2 : 0;
    size_t i = 0; /* the first entry whose blocks reach past sub-entry k */
    while (i < root->n && root->e[i].sub_upto <= k) i++;
    if (i >= root->n) i = root->n - 1;
    uint64_t before = i ? root->e[i - 1].sub_upto : 0;
    HOODIE_TRY(hoodie_buf_put_be64(b, root->e[i].offset));
    HOODIE_TRY(hoodie_buf_put_be32(b, root->e[i].size));
    return hoodie_buf_put_be32(b, (uint32_t)(k - before));
}

static hoodie_status put_pb_bytes(hoodie_buf *b, uint32_t field, const uint8_t *p, size_t n)
{
    HOODIE_TRY(hoodie_buf_put_uvarint(b, (uint64_t)field << 3 | 2));
    HOODIE_TRY(hoodie_buf_put_uvarint(b, n));
    return hoodie_buf_append(b, p, n);
}

static hoodie_status put_pb_uint(hoodie_buf *b, uint32_t field, uint64_t v)
{
    HOODIE_TRY(hoodie_buf_put_uvarint(b, (uint64_t)field << 3));
    return hoodie_buf_put_uvarint(b, v);
}

/* "PBUF", then FileInfoProto (BytesBytesPair entries in key order), length-delimited */
static hoodie_status file_info(hoodie_hfile_writer *w, hoodie_buf *out)
{
    uint8_t v[8];
    put_be32(v, w->entries ? (uint32_t)(w->key_bytes / w->entries) : 0);
    HOODIE_TRY(named_add(&w->infos, &w->n_infos, "hfile.AVG_KEY_LEN", v, 4, 1));
    put_be32(v, w->entries ? (uint32_t)(w->value_bytes / w->entries) : 0);
    HOODIE_TRY(named_add(&w->infos, &w->n_infos, "hfile.AVG_VALUE_LEN", v, 4, 1));
    put_be64(v, (uint64_t)w->o.create_time);
    HOODIE_TRY(named_add(&w->infos, &w->n_infos, "hfile.CREATE_TIME_TS", v, 8, 1));
    put_be64(v, 0);
    HOODIE_TRY(named_add(&w->infos, &w->n_infos, "MAX_MEMSTORE_TS_KEY", v, 8, 1));
    put_be32(v, 1);
    HOODIE_TRY(named_add(&w->infos, &w->n_infos, "KEY_VALUE_VERSION", v, 4, 1));
    if (w->have_last) {
        w->tmp.len = 0;
        HOODIE_TRY(put_key(&w->tmp, w->last_row.data, w->last_row.len, TYPE_PUT));
        HOODIE_TRY(named_add(&w->infos, &w->n_infos, "hfile.LASTKEY", w->tmp.data, w->tmp.len, 1));
    }
    hoodie_buf msg = HOODIE_BUF_INIT, pair = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < w->n_infos; i++) {
        pair.len = 0;
        rc = put_pb_bytes(&pair, 1, (const uint8_t *)w->infos[i].name, strlen(w->infos[i].name));
        if (rc == HOODIE_OK) rc = put_pb_bytes(&pair, 2, w->infos[i].data, w->infos[i].len);
        if (rc == HOODIE_OK) rc = put_pb_bytes(&msg, 1, pair.data, pair.len);
    }
    if (rc == HOODIE_OK) rc = hoodie_buf_append(out, "PBUF", 4);
    if (rc == HOODIE_OK) rc = hoodie_buf_put_uvarint(out, msg.len);
    if (rc == HOODIE_OK) rc = hoodie_buf_append(out, msg.data, msg.len);
    hoodie_buf_dispose(&msg);
    hoodie_buf_dispose(&pair);
    return rc;
}

static hoodie_status finish(hoodie_hfile_writer *w)
{
    HOODIE_TRY(finish_block(w));
    HOODIE_TRY(write_inline(w, 1));
    /* meta blocks, by name */
    chunk meta_index = { 0 };
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < w->n_metas; i++) {
        uint64_t at = w->pos;
        uint32_t size;
        rc = write_block(w, BT_META, w->metas[i].data, w->metas[i].len, &size);
        w->total_uncompressed += BLOCK_HEADER + w->metas[i].len;
        if (rc == HOODIE_OK)
            rc = chunk_add_copy(&meta_index, (const uint8_t *)w->metas[i].name, strlen(w->metas[i].name), at, size, 0);
    }
    /* the data index: levels above a multi-level root, then the root (with the mid key when multi-level) */
    if (rc == HOODIE_OK && !w->single_level && w->root.n) {
        hoodie_buf mid = HOODIE_BUF_INIT;
        rc = mid_key(&w->root, &mid);
        while (rc == HOODIE_OK && w->root.root_size > w->o.index_block_size && w->root.n > MIN_INDEX_ENTRIES &&
               w->levels < 16) {
            rc = intermediate_level(w);
            w->levels++;
        }
        w->tmp.len = 0;
        if (rc == HOODIE_OK) rc = write_root(&w->root, &w->tmp);
        if (rc == HOODIE_OK) rc = hoodie_buf_append(&w->tmp, mid.data, mid.len);
        hoodie_buf_dispose(&mid);
    } else if (rc == HOODIE_OK) {
        w->tmp.len = 0;
        rc = write_root(&w->root, &w->tmp);
    }
    uint64_t root_at = w->pos, info_at = 0;
    uint32_t size;
    if (rc == HOODIE_OK) rc = write_block(w, BT_ROOT, w->tmp.data, w->tmp.len, &size);
    w->index_uncompressed += w->tmp.len;
    /* the meta index, the file info */
    w->tmp.len = 0;
    if (rc == HOODIE_OK) rc = write_root(&meta_index, &w->tmp);
    if (rc == HOODIE_OK) rc = write_block(w, BT_ROOT, w->tmp.data, w->tmp.len, &size);
    w->total_uncompressed += BLOCK_HEADER + w->tmp.len;
    hoodie_buf info = HOODIE_BUF_INIT;
    if (rc == HOODIE_OK) rc = file_info(w, &info);
    info_at = w->pos;
    if (rc == HOODIE_OK) rc = write_block(w, BT_FILE_INFO, info.data, info.len, &size);
    w->total_uncompressed += BLOCK_HEADER + info.len;
    hoodie_buf_dispose(&info);
    chunk_dispose(&meta_index);
    if (rc < 0) return rc;
    /* the trailer: magic, FileTrailerProto (length-delimited), zeros, version 3.3 */
    hoodie_buf pb = HOODIE_BUF_INIT;
    const char *cmp = w->o.comparator;
    rc = put_pb_uint(&pb, 1, info_at);
    if (rc == HOODIE_OK) rc = put_pb_uint(&pb, 2, root_at);
    if (rc == HOODIE_OK) rc = put_pb_uint(&pb, 3, w->index_uncompressed);
    if (rc == HOODIE_OK) rc = put_pb_uint(&pb, 4, w->total_uncompressed + TRAILER_SIZE);
    if (rc == HOODIE_OK) rc = put_pb_uint(&pb, 5, w->root.n);
    if (rc == HOODIE_OK) rc = put_pb_uint(&pb, 6, w->n_metas);
    if (rc == HOODIE_OK) rc = put_pb_uint(&pb, 7, w->entries);
    if (rc == HOODIE_OK) rc = put_pb_uint(&pb, 8, (uint64_t)w->levels);
    if (rc == HOODIE_OK) rc = put_pb_uint(&pb, 9, (uint64_t)w->first_data);
    if (rc == HOODIE_OK) rc = put_pb_uint(&pb, 10, (uint64_t)w->last_data);
    if (rc == HOODIE_OK) rc = put_pb_bytes(&pb, 11, (const uint8_t *)cmp, strlen(cmp));
    if (rc == HOODIE_OK) rc = put_pb_uint(&pb, 12, w->o.gzip ? 1 : 2);
    w->tmp.len = 0;
    if (rc == HOODIE_OK) rc = hoodie_buf_reserve(&w->tmp, TRAILER_SIZE);
    if (rc == HOODIE_OK) {
        memset(w->tmp.data, 0, TRAILER_SIZE);
        memcpy(w->tmp.data, "TRABLK\"$", 8);
        w->tmp.len = 8;
        rc = hoodie_buf_put_uvarint(&w->tmp, pb.len);
    }
    if (rc == HOODIE_OK && w->tmp.len + pb.len > TRAILER_SIZE - 4)
        rc = HOODIE_FAIL(HOODIE_EINVAL, "HFile trailer of %zu bytes: too long", pb.len);
    if (rc == HOODIE_OK) {
        memcpy(w->tmp.data + w->tmp.len, pb.data, pb.len);
        put_be32(w->tmp.data + TRAILER_SIZE - 4, 3u << 24 | 3u);
        rc = emit(w, w->tmp.data, TRAILER_SIZE);
    }
    hoodie_buf_dispose(&pb);
    return rc;
}

hoodie_status hoodie_hfile_writer_finish(hoodie_hfile_writer *w)
{
    HOODIE_TRY(usable(w));
    hoodie_status rc = finish(w);
    if (rc < 0) w->failed = 1;
    else w->finished = 1;
    return rc;
}
