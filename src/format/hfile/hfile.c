/* HFile version 3 reader (see hfile.h). */
#include "format/hfile/hfile.h"
#include "format/parquet/codec.h"
#include "util/cursor.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_HEADER 33
#define TRAILER_SIZE 4096
#define MAX_INDEX_LEVELS 16

/* HBase's Compression.Algorithm ordinals, as the trailer stores them */
enum { HF_LZO = 0, HF_GZ = 1, HF_NONE = 2, HF_SNAPPY = 3, HF_LZ4 = 4, HF_BZIP2 = 5, HF_ZSTD = 6 };
static const char *const codec_names[] = { "LZO", "GZ", "NONE", "SNAPPY", "LZ4", "BZIP2", "ZSTD" };

typedef struct idx_entry {
    uint64_t offset;
    uint32_t size;
    const uint8_t *key; /* the row (key content) of the block's first key, or a meta block's name */
    size_t key_len;
} idx_entry;

typedef struct info_kv {
    const uint8_t *k, *v;
    size_t klen, vlen;
} info_kv;

struct hoodie_hfile {
    const uint8_t *data;
    size_t len;
    char *what;
    int codec;
    uint32_t major, minor;
    const uint8_t *comparator; /* the trailer's comparator class name */
    size_t comparator_len;
    uint64_t entry_count, load_on_open, first_data, last_data;
    uint32_t data_index_count, meta_index_count, index_levels;
    idx_entry *blocks;   /* data blocks in key order */
    size_t n_blocks, cap_blocks;
    idx_entry *metas;
    size_t n_metas;
    info_kv *info;
    size_t n_info;
    int mvcc;            /* cells end with an MVCC vlong */
    int tags;            /* cells carry a tags length (and tags) after the value */
    hoodie_buf *owned;   /* decompressed index and info blocks the entries point into */
    size_t n_owned;
};

/* ---- small decoders ---- */

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

/* Hadoop's WritableUtils vlong: one byte -112..127 is the value; else a length byte and big-endian bytes. */
static int64_t read_vlong(hoodie_cursor *c)
{
    int8_t first = (int8_t)hoodie_cursor_u8(c);
    if (first >= -112) return first;
    int neg = first < -120;
    int n = neg ? -(first + 120) : -(first + 112);
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | hoodie_cursor_u8(c);
    return neg ? (int64_t)~v : (int64_t)v;
}

static int key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c) return c;
    return an < bn ? -1 : an > bn;
}

/* The row of an HBase key (i16 rowLen, row, family, qualifier, timestamp, type). */
static int key_row(const uint8_t *key, size_t len, const uint8_t **row, size_t *row_len)
{
    if (len < 2) return 0;
    size_t r = (size_t)key[0] << 8 | key[1];
    if (2 + r > len) return 0;
    *row = key + 2;
    *row_len = r;
    return 1;
}

/* ---- CRC-32C (HBase's default checksum) and CRC-32 ---- */

/* The table of a reflected CRC polynomial, filled once (the same values from every thread). */
static const uint32_t *crc_table(uint32_t *table, int *ready, uint32_t poly)
{
    if (!__atomic_load_n(ready, __ATOMIC_ACQUIRE)) {
        uint32_t t[256];
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ poly : c >> 1;
            t[i] = c;
        }
        memcpy(table, t, sizeof t);
        __atomic_store_n(ready, 1, __ATOMIC_RELEASE);
    }
    return table;
}

static uint32_t crc_run(const uint32_t *t, uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = t[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <nmmintrin.h>
/* SSE 4.2's crc32 instruction computes CRC-32C: 8 bytes a step (HFile blocks are checksummed whole). */
__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *p, size_t n)
{
    uint64_t c = ~crc;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
    }
    uint32_t c32 = (uint32_t)c;
    for (; n; p++, n--) c32 = _mm_crc32_u8(c32, *p);
    return ~c32;
}
#endif

uint32_t hoodie_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static int hw = -1;
    int h = __atomic_load_n(&hw, __ATOMIC_RELAXED);
    if (h < 0) __atomic_store_n(&hw, h = __builtin_cpu_supports("sse4.2") ? 1 : 0, __ATOMIC_RELAXED);
    if (h) return crc32c_sse42(crc, p, n);
#endif
    static uint32_t table[256];
    static int ready;
    return crc_run(crc_table(table, &ready, 0x82F63B78u), crc, p, n);
}

/* zlib's CRC-32 (checksum type 1), without linking zlib into the format layer's decoder here */
static uint32_t crc32_plain(const uint8_t *p, size_t n)
{
    static uint32_t table[256];
    static int ready;
    return crc_run(crc_table(table, &ready, 0xEDB88320u), 0, p, n);
}

/* ---- blocks ---- */

typedef struct block {
    uint64_t offset;         /* of the header */
    uint64_t next;           /* offset of the block after it */
    const uint8_t *payload;  /* uncompressed */
    size_t payload_len;
} block;

static hoodie_status block_fail(const hoodie_hfile *f, uint64_t off, const char *why)
{
    return HOODIE_CORRUPT("%s: HFile block at offset %llu: %s", f->what, (unsigned long long)off, why);
}

/* The block at `off`, whose magic must be `magic`; a compressed payload is decompressed into *buf. */
static hoodie_status read_block(const hoodie_hfile *f, uint64_t off, const char *magic, hoodie_buf *buf, block *b)
{
    if (off > f->len || f->len - off < BLOCK_HEADER) return block_fail(f, off, "runs past the end of the file");
    const uint8_t *h = f->data + off;
    if (memcmp(h, magic, 8)) {
        char got[9];
        for (int i = 0; i < 8; i++) got[i] = h[i] >= 0x20 && h[i] < 0x7f ? (char)h[i] : '?';
        got[8] = '\0';
        return HOODIE_CORRUPT("%s: HFile block at offset %llu: magic '%s', expected '%.8s'", f->what,
                              (unsigned long long)off, got, magic);
    }
    uint32_t on_disk = be32(h + 8), raw = be32(h + 12), per_sum = be32(h + 25), data_with_header = be32(h + 29);
    uint8_t sum_type = h[24];
    if (on_disk > INT32_MAX || raw > INT32_MAX || data_with_header < BLOCK_HEADER ||
        (uint64_t)data_with_header > (uint64_t)on_disk + BLOCK_HEADER)
        return block_fail(f, off, "sizes in its header do not agree");
    if ((uint64_t)on_disk + BLOCK_HEADER > f->len - off) return block_fail(f, off, "runs past the end of the file");
    size_t stored = data_with_header - BLOCK_HEADER;
    /* checksums: one per bytesPerChecksum bytes of header and payload, after them */
    size_t sum_bytes = on_disk + BLOCK_HEADER - data_with_header;
    if (sum_type == 1 || sum_type == 2) {
        if (per_sum == 0) return block_fail(f, off, "zero bytes per checksum");
        size_t chunks = (data_with_header + (size_t)per_sum - 1) / per_sum;
        if (sum_bytes != chunks * 4) return block_fail(f, off, "checksum bytes do not match its size");
        const uint8_t *sums = h + data_with_header;
        for (size_t i = 0; i < chunks; i++) {
            size_t at = i * per_sum, n = data_with_header - at < per_sum ? data_with_header - at : per_sum;
            uint32_t want = be32(sums + 4 * i);
            uint32_t got = sum_type == 2 ? hoodie_crc32c(0, h + at, n) : crc32_plain(h + at, n);
            if (got != want)
                return HOODIE_CORRUPT("%s: HFile block at offset %llu: checksum mismatch in bytes %llu..%llu",
                                      f->what, (unsigned long long)off, (unsigned long long)(off + at),
                                      (unsigned long long)(off + at + n));
        }
    } else if (sum_type != 0) {
        return block_fail(f, off, "unknown checksum type");
    }
    b->offset = off;
    b->next = off + BLOCK_HEADER + on_disk;
    if (f->codec == HF_NONE) {
        if (raw != stored) return block_fail(f, off, "uncompressed size differs from the stored size");
        b->payload = h + BLOCK_HEADER;
        b->payload_len = raw;
        return HOODIE_OK;
    }
    hoodie_pq_codec pc = f->codec == HF_GZ ? HOODIE_PQ_GZIP : f->codec == HF_ZSTD ? HOODIE_PQ_ZSTD
                       : f->codec == HF_LZ4 ? HOODIE_PQ_LZ4 : HOODIE_PQ_UNCOMPRESSED;
    buf->len = 0;
    HOODIE_TRY(hoodie_buf_reserve(buf, raw ? raw : 1));
    char what[160];
    snprintf(what, sizeof what, "%s: HFile block at offset %llu", f->what, (unsigned long long)off);
    HOODIE_TRY(hoodie_codec_decompress(pc, h + BLOCK_HEADER, stored, buf->data, raw, what));
    buf->len = raw;
    b->payload = buf->data;
    b->payload_len = raw;
    return HOODIE_OK;
}

/* A block whose payload must outlive the call (index and info blocks): decompressed into a buffer the file owns. */
static hoodie_status read_kept_block(hoodie_hfile *f, uint64_t off, const char *magic, block *b)
{
    if (f->codec == HF_NONE) return read_block(f, off, magic, NULL, b);
    hoodie_buf *o = realloc(f->owned, (f->n_owned + 1) * sizeof *o);
    if (!o) return HOODIE_NOMEM();
    f->owned = o;
    o[f->n_owned] = (hoodie_buf)HOODIE_BUF_INIT;
    hoodie_status rc = read_block(f, off, magic, &o[f->n_owned], b);
    f->n_owned++; /* disposed at free, even on failure */
    return rc;
}

/* ---- index blocks ---- */

static hoodie_status push_entry(idx_entry **v, size_t *n, size_t *cap, idx_entry e)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        idx_entry *p = realloc(*v, nc * sizeof *p);
        if (!p) return HOODIE_NOMEM();
        *v = p;
        *cap = nc;
    }
    (*v)[(*n)++] = e;
    return HOODIE_OK;
}

/* `count` root-index entries: i64 offset, i32 size, vint keyLen, key. `raw_keys`: meta names, not HBase keys. */
static hoodie_status parse_root(const hoodie_hfile *f, const block *b, uint32_t count, int raw_keys,
                                idx_entry **v, size_t *n, size_t *cap)
{
    hoodie_cursor c;
    hoodie_cursor_init(&c, b->payload, b->payload_len, f->codec == HF_NONE ? b->offset + BLOCK_HEADER : 0, f->what);
    for (uint32_t i = 0; i < count; i++) {
        idx_entry e;
        e.offset = hoodie_cursor_be64(&c);
        e.size = hoodie_cursor_be32(&c);
        int64_t kl = read_vlong(&c);
        if (c.status == HOODIE_OK && (kl < 0 || (uint64_t)kl > hoodie_cursor_left(&c)))
            return block_fail(f, b->offset, "index key runs past the block");
        const uint8_t *k = hoodie_cursor_bytes(&c, (size_t)kl);
        if (c.status != HOODIE_OK) return block_fail(f, b->offset, "index entries run past the block");
        if (raw_keys) e.key = k, e.key_len = (size_t)kl;
        else if (!key_row(k, (size_t)kl, &e.key, &e.key_len)) return block_fail(f, b->offset, "malformed index key");
        HOODIE_TRY(push_entry(v, n, cap, e));
    }
    return HOODIE_OK;
}

/* A leaf or intermediate index block: i32 n, (n+1) i32 offsets of the entries, entries (i64, i32, key). */
static hoodie_status parse_nonroot(const hoodie_hfile *f, const block *b, idx_entry **v, size_t *n, size_t *cap)
{
    const uint8_t *p = b->payload;
    size_t len = b->payload_len;
    if (len < 4) return block_fail(f, b->offset, "index block too short");
    uint32_t count = be32(p);
    if ((uint64_t)4 * ((uint64_t)count + 1) > len - 4)
        return block_fail(f, b->offset, "index entry count runs past the block");
    const uint8_t *sec = p + 4, *ents = p + 4 + 4 * ((size_t)count + 1);
    size_t ents_len = len - (size_t)(ents - p);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t a = be32(sec + 4 * i), z = be32(sec + 4 * (i + 1));
        if (a > z || z > ents_len || z - a < 12) return block_fail(f, b->offset, "malformed secondary index");
        idx_entry e;
        e.offset = be64(ents + a);
        e.size = be32(ents + a + 8);
        if (!key_row(ents + a + 12, z - a - 12, &e.key, &e.key_len)) return block_fail(f, b->offset, "malformed index key");
        HOODIE_TRY(push_entry(v, n, cap, e));
    }
    return HOODIE_OK;
}

/* ---- protobuf (the trailer and the file info) ---- */

typedef struct pb_field {
    uint32_t num;
    int wire;
    uint64_t u;             /* varint value */
    const uint8_t *p;       /* length-delimited bytes */
    size_t n;
} pb_field;

/* The next field of the message in c, or 0 at its end. */
static int pb_next(hoodie_cursor *c, pb_field *fl)
{
    if (c->status != HOODIE_OK || !hoodie_cursor_left(c)) return 0;
    uint64_t tag = hoodie_cursor_uvarint(c);
    fl->num = (uint32_t)(tag >> 3);
    fl->wire = (int)(tag & 7);
    switch (fl->wire) {
    case 0: fl->u = hoodie_cursor_uvarint(c); break;
    case 1: hoodie_cursor_bytes(c, 8); break;
    case 5: hoodie_cursor_bytes(c, 4); break;
    case 2: {
        uint64_t n = hoodie_cursor_uvarint(c);
        if (c->status == HOODIE_OK && n > hoodie_cursor_left(c)) { hoodie_cursor__short(c, (size_t)n); return 0; }
        fl->n = (size_t)n;
        fl->p = hoodie_cursor_bytes(c, fl->n);
        break;
    }
    default: hoodie_cursor__fail(c, "protobuf wire type %d", fl->wire); return 0;
    }
    return c->status == HOODIE_OK;
}

static hoodie_status parse_trailer(hoodie_hfile *f)
{
    if (f->len < TRAILER_SIZE)
        return HOODIE_CORRUPT("%s: %zu bytes, shorter than an HFile trailer (%d bytes)", f->what, f->len, TRAILER_SIZE);
    uint64_t at = f->len - TRAILER_SIZE;
    const uint8_t *t = f->data + at;
    uint32_t ver = be32(f->data + f->len - 4);
    f->major = ver & 0xffffff;
    f->minor = ver >> 24;
    if (memcmp(t, "TRABLK\"$", 8))
        return HOODIE_CORRUPT("%s: no HFile trailer magic at offset %llu", f->what, (unsigned long long)at);
    if (f->major != 3)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: HFile version %u.%u; version 3 is read", f->what, f->major,
                           f->minor);
    hoodie_cursor c;
    hoodie_cursor_init(&c, t + 8, TRAILER_SIZE - 12, at + 8, f->what);
    uint64_t mlen = hoodie_cursor_uvarint(&c);
    if (c.status != HOODIE_OK || mlen > hoodie_cursor_left(&c))
        return HOODIE_CORRUPT("%s: HFile trailer at offset %llu: bad length", f->what, (unsigned long long)at);
    hoodie_cursor m;
    hoodie_cursor_init(&m, c.p, (size_t)mlen, hoodie_cursor_offset(&c), f->what);
    f->codec = HF_NONE;
    f->index_levels = 1;
    pb_field fl;
    while (pb_next(&m, &fl)) {
        if (fl.wire == 2 && fl.num == 11) f->comparator = fl.p, f->comparator_len = fl.n;
        if (fl.wire != 0) continue; /* an encryption key */
        switch (fl.num) {
        case 2: f->load_on_open = fl.u; break;
        case 5: f->data_index_count = (uint32_t)fl.u; break;
        case 6: f->meta_index_count = (uint32_t)fl.u; break;
        case 7: f->entry_count = fl.u; break;
        case 8: f->index_levels = (uint32_t)fl.u; break;
        case 9: f->first_data = fl.u; break;
        case 10: f->last_data = fl.u; break;
        case 12: f->codec = (int)(fl.u > 100 ? 100 : fl.u); break;
        default: break;
        }
    }
    if (m.status != HOODIE_OK) return m.status;
    if (f->codec != HF_NONE && f->codec != HF_GZ && f->codec != HF_ZSTD && f->codec != HF_LZ4)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: HFile compression %s is not supported (NONE, GZ, ZSTD, LZ4)",
                           f->what, f->codec < 7 ? codec_names[f->codec] : "unknown");
    if (f->load_on_open >= at)
        return HOODIE_CORRUPT("%s: HFile trailer: load-on-open offset %llu is past the trailer", f->what,
                              (unsigned long long)f->load_on_open);
    if (f->index_levels < 1 || f->index_levels > MAX_INDEX_LEVELS)
        return HOODIE_CORRUPT("%s: HFile trailer: %u data index levels", f->what, f->index_levels);
    return HOODIE_OK;
}

static hoodie_status parse_info(hoodie_hfile *f, const block *b)
{
    if (b->payload_len < 4 || memcmp(b->payload, "PBUF", 4)) return block_fail(f, b->offset, "file info without 'PBUF'");
    hoodie_cursor c;
    hoodie_cursor_init(&c, b->payload + 4, b->payload_len - 4, 0, f->what);
    uint64_t mlen = hoodie_cursor_uvarint(&c);
    if (c.status != HOODIE_OK || mlen > hoodie_cursor_left(&c)) return block_fail(f, b->offset, "file info length");
    hoodie_cursor m;
    hoodie_cursor_init(&m, c.p, (size_t)mlen, 0, f->what);
    pb_field fl;
    size_t cap = 0;
    while (pb_next(&m, &fl)) {
        if (fl.num != 1 || fl.wire != 2) continue;
        info_kv kv = { NULL, NULL, 0, 0 };
        hoodie_cursor e;
        hoodie_cursor_init(&e, fl.p, fl.n, 0, f->what);
        pb_field x;
        while (pb_next(&e, &x))
            if (x.wire == 2 && x.num == 1) kv.k = x.p, kv.klen = x.n;
            else if (x.wire == 2 && x.num == 2) kv.v = x.p, kv.vlen = x.n;
        if (e.status != HOODIE_OK || !kv.k) return block_fail(f, b->offset, "malformed file info entry");
        if (!kv.v) kv.v = kv.k, kv.vlen = 0;
        if (f->n_info == cap) {
            cap = cap ? cap * 2 : 16;
            info_kv *p = realloc(f->info, cap * sizeof *p);
            if (!p) return HOODIE_NOMEM();
            f->info = p;
        }
        f->info[f->n_info++] = kv;
    }
    if (m.status != HOODIE_OK) return block_fail(f, b->offset, "malformed file info");
    return HOODIE_OK;
}

int hoodie_hfile_info(const hoodie_hfile *f, const char *key, const uint8_t **value, size_t *len)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i < f->n_info; i++)
        if (f->info[i].klen == kl && !memcmp(f->info[i].k, key, kl)) {
            *value = f->info[i].v;
            *len = f->info[i].vlen;
            return 1;
        }
    return 0;
}

size_t hoodie_hfile_info_count(const hoodie_hfile *f) { return f->n_info; }

void hoodie_hfile_info_at(const hoodie_hfile *f, size_t i, const uint8_t **key, size_t *key_len,
                          const uint8_t **value, size_t *value_len)
{
    *key = f->info[i].k;
    *key_len = f->info[i].klen;
    *value = f->info[i].v;
    *value_len = f->info[i].vlen;
}

static hoodie_status load_index(hoodie_hfile *f, const block *root)
{
    if (f->index_levels == 1)
        return parse_root(f, root, f->data_index_count, 0, &f->blocks, &f->n_blocks, &f->cap_blocks);
    idx_entry *level = NULL;
    size_t n = 0, cap = 0;
    hoodie_status rc = parse_root(f, root, f->data_index_count, 0, &level, &n, &cap);
    for (uint32_t l = f->index_levels - 1; rc == HOODIE_OK && l >= 1; l--) {
        idx_entry *next = NULL;
        size_t nn = 0, ncap = 0;
        const char *magic = l > 1 ? "IDXINTE2" : "IDXLEAF2";
        for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
            block b;
            rc = read_kept_block(f, level[i].offset, magic, &b);
            if (rc == HOODIE_OK) rc = parse_nonroot(f, &b, &next, &nn, &ncap);
        }
        free(level);
        level = next, n = nn, cap = ncap;
    }
    if (rc < 0) { free(level); return rc; }
    f->blocks = level, f->n_blocks = n, f->cap_blocks = cap;
    return HOODIE_OK;
}

hoodie_status hoodie_hfile_open(hoodie_hfile **out, const uint8_t *data, size_t len, const char *what)
{
    *out = NULL;
    hoodie_hfile *f = calloc(1, sizeof *f);
    if (!f) return HOODIE_NOMEM();
    f->data = data;
    f->len = len;
    f->what = strdup(what ? what : "hfile");
    hoodie_status rc = f->what ? parse_trailer(f) : HOODIE_NOMEM();
    block root, meta, info;
    if (rc == HOODIE_OK) rc = read_kept_block(f, f->load_on_open, "IDXROOT2", &root);
    if (rc == HOODIE_OK) rc = read_kept_block(f, root.next, "IDXROOT2", &meta);
    if (rc == HOODIE_OK) rc = read_kept_block(f, meta.next, "FILEINF2", &info);
    if (rc == HOODIE_OK) rc = load_index(f, &root);
    size_t mcap = 0;
    if (rc == HOODIE_OK) rc = parse_root(f, &meta, f->meta_index_count, 1, &f->metas, &f->n_metas, &mcap);
    if (rc == HOODIE_OK) rc = parse_info(f, &info);
    if (rc == HOODIE_OK) {
        const uint8_t *v;
        size_t vl;
        f->mvcc = hoodie_hfile_info(f, "KEY_VALUE_VERSION", &v, &vl) && vl >= 4 && be32(v) == 1;
        f->tags = hoodie_hfile_info(f, "hfile.MAX_TAGS_LEN", &v, &vl);
        for (size_t i = 0; i < f->n_blocks; i++)
            if (f->blocks[i].offset >= f->load_on_open || f->blocks[i].size < BLOCK_HEADER) {
                rc = HOODIE_CORRUPT("%s: HFile data block %zu: offset %llu, size %u out of range", f->what, i,
                                    (unsigned long long)f->blocks[i].offset, f->blocks[i].size);
                break;
            }
        if (rc == HOODIE_OK && f->entry_count && !f->n_blocks)
            rc = HOODIE_CORRUPT("%s: HFile of %llu cells has no data block index", f->what,
                                (unsigned long long)f->entry_count);
    }
    if (rc < 0) { hoodie_hfile_free(f); return rc; }
    *out = f;
    return HOODIE_OK;
}

void hoodie_hfile_free(hoodie_hfile *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->n_owned; i++) hoodie_buf_dispose(&f->owned[i]);
    free(f->owned);
    free(f->blocks);
    free(f->metas);
    free(f->info);
    free(f->what);
    free(f);
}

uint64_t hoodie_hfile_entry_count(const hoodie_hfile *f) { return f->entry_count; }
size_t hoodie_hfile_block_count(const hoodie_hfile *f) { return f->n_blocks; }
unsigned hoodie_hfile_index_levels(const hoodie_hfile *f) { return f->index_levels; }
const char *hoodie_hfile_codec_name(const hoodie_hfile *f) { return f->codec < 7 ? codec_names[f->codec] : "?"; }

size_t hoodie_hfile_meta_count(const hoodie_hfile *f) { return f->n_metas; }

void hoodie_hfile_meta_name(const hoodie_hfile *f, size_t i, const uint8_t **name, size_t *len)
{
    *name = f->metas[i].key;
    *len = f->metas[i].key_len;
}

void hoodie_hfile_comparator(const hoodie_hfile *f, const uint8_t **name, size_t *len)
{
    *name = f->comparator ? f->comparator : (const uint8_t *)"";
    *len = f->comparator_len;
}

hoodie_status hoodie_hfile_meta_block(const hoodie_hfile *f, const char *name, hoodie_buf *out)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < f->n_metas; i++) {
        if (f->metas[i].key_len != nl || memcmp(f->metas[i].key, name, nl)) continue;
        hoodie_buf tmp = HOODIE_BUF_INIT;
        block b;
        hoodie_status rc = read_block(f, f->metas[i].offset, "METABLKc", &tmp, &b);
        if (rc == HOODIE_OK) rc = hoodie_buf_append(out, b.payload, b.payload_len);
        hoodie_buf_dispose(&tmp);
        return rc;
    }
    return HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: no meta block '%s'", f->what, name);
}

/* ---- cells ---- */

void hoodie_hfile_iter_init(hoodie_hfile_iter *it, const hoodie_hfile *f)
{
    memset(it, 0, sizeof *it);
    it->f = f;
    it->block = SIZE_MAX;
    it->buf = (hoodie_buf)HOODIE_BUF_INIT;
}

void hoodie_hfile_iter_dispose(hoodie_hfile_iter *it) { hoodie_buf_dispose(&it->buf); }

static hoodie_status load(hoodie_hfile_iter *it, size_t i)
{
    block b;
    HOODIE_TRY(read_block(it->f, it->f->blocks[i].offset, "DATABLK*", &it->buf, &b));
    it->block = i;
    it->p = it->start = b.payload;
    it->prev_key = NULL, it->prev_len = 0;
    it->end = b.payload + b.payload_len;
    it->compressed = it->f->codec != HF_NONE;
    it->p_off = it->compressed ? b.offset : b.offset + BLOCK_HEADER;
    return HOODIE_OK;
}

/* The cell at it->p; *size its length. */
static hoodie_status cell_at(hoodie_hfile_iter *it, hoodie_hfile_kv *kv, size_t *size)
{
    const hoodie_hfile *f = it->f;
    size_t into = (size_t)(it->p - it->start);
    hoodie_cursor c;
    hoodie_cursor_init(&c, it->p, (size_t)(it->end - it->p), it->p_off + into, f->what);
    uint32_t kl = hoodie_cursor_be32(&c), vl = hoodie_cursor_be32(&c);
    const uint8_t *k = c.status == HOODIE_OK && kl <= hoodie_cursor_left(&c) ? hoodie_cursor_bytes(&c, kl) : NULL;
    const uint8_t *v = k && vl <= hoodie_cursor_left(&c) ? hoodie_cursor_bytes(&c, vl) : NULL;
    if (v && f->tags) {
        uint8_t hi = hoodie_cursor_u8(&c), lo = hoodie_cursor_u8(&c);
        size_t tl = (size_t)hi << 8 | lo;
        if (c.status == HOODIE_OK && tl <= hoodie_cursor_left(&c)) hoodie_cursor_bytes(&c, tl);
        else v = NULL;
    }
    if (v && f->mvcc) read_vlong(&c);
    if (!v || c.status != HOODIE_OK || !key_row(k, kl, &kv->key, &kv->key_len)) {
        hoodie_error_clear();
        if (it->compressed)
            return HOODIE_CORRUPT("%s: HFile data block at offset %llu: malformed cell %zu bytes into its "
                                  "uncompressed data", f->what, (unsigned long long)it->p_off, into);
        return HOODIE_CORRUPT("%s: HFile data block at offset %llu: malformed cell at offset %llu", f->what,
                              (unsigned long long)(it->p_off - BLOCK_HEADER), (unsigned long long)(it->p_off + into));
    }
    kv->value = v;
    kv->value_len = vl;
    *size = (size_t)(c.p - it->p);
    return HOODIE_OK;
}

hoodie_status hoodie_hfile_next(hoodie_hfile_iter *it, hoodie_hfile_kv *kv)
{
    while (it->block == SIZE_MAX || it->p >= it->end) {
        size_t n = it->block == SIZE_MAX ? 0 : it->block + 1;
        if (n >= it->f->n_blocks) return HOODIE_ITEROVER;
        HOODIE_TRY(load(it, n));
    }
    size_t size;
    HOODIE_TRY(cell_at(it, kv, &size));
    it->p += size;
    it->prev_key = kv->key, it->prev_len = kv->key_len;
    return HOODIE_OK;
}

hoodie_status hoodie_hfile_seek(hoodie_hfile_iter *it, const uint8_t *key, size_t len)
{
    const hoodie_hfile *f = it->f;
    if (!f->n_blocks) { it->block = 0, it->p = it->end = NULL; return HOODIE_OK; } /* next: ITEROVER */
    /* the last block whose index key is < key (the first when none is): an index key may be a fake one, at most
     * the block's first key, and cells of one key may run across blocks, so a block whose index key equals the
     * key may have earlier cells of it in the block before */
    size_t lo = 0, hi = f->n_blocks;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(f->blocks[mid].key, f->blocks[mid].key_len, key, len) < 0) lo = mid;
        else hi = mid;
    }
    /* the block loaded already (lookups of keys in order): on from where the last seek or cell left off when the
     * cells before are all less than the key, else from the block's start; another block is read (and inflated)
     * first */
    if (it->block == lo && it->start) {
        if (it->prev_key && key_cmp(it->prev_key, it->prev_len, key, len) >= 0)
            it->p = it->start, it->prev_key = NULL, it->prev_len = 0;
    } else {
        HOODIE_TRY(load(it, lo));
    }
    while (it->p < it->end) {
        hoodie_hfile_kv kv;
        size_t size;
        HOODIE_TRY(cell_at(it, &kv, &size));
        if (key_cmp(kv.key, kv.key_len, key, len) >= 0) return HOODIE_OK;
        it->p += size;
        it->prev_key = kv.key, it->prev_len = kv.key_len;
    }
    return HOODIE_OK; /* past this block: the next cell is the next block's first, which is greater */
}

hoodie_status hoodie_hfile_get(hoodie_hfile_iter *it, const uint8_t *key, size_t len, hoodie_hfile_kv *kv)
{
    HOODIE_TRY(hoodie_hfile_seek(it, key, len));
    hoodie_status rc = hoodie_hfile_next(it, kv);
    if (rc == HOODIE_ITEROVER || (rc == HOODIE_OK && key_cmp(kv->key, kv->key_len, key, len) != 0))
        return HOODIE_ENOTFOUND;
    return rc;
}
