#include "format/hlog/hlog.h"

#include <string.h>

#include "util/cursor.h"
#include "util/error.h"

static const char *const block_type_names[HOODIE_HLOG_BLOCK_TYPE_COUNT] = {
    "COMMAND_BLOCK", "DELETE_BLOCK", "CORRUPT_BLOCK", "AVRO_DATA_BLOCK",
    "HFILE_DATA_BLOCK", "PARQUET_DATA_BLOCK", "CDC_DATA_BLOCK",
};

static const char *const header_key_names[HOODIE_HLOG_HEADER_KEY_COUNT] = {
    "INSTANT_TIME", "TARGET_INSTANT_TIME", "SCHEMA", "COMMAND_BLOCK_TYPE", "COMPACTED_BLOCK_TIMES",
    "RECORD_POSITIONS", "BLOCK_IDENTIFIER", "IS_PARTIAL", "BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS",
};

const char *hoodie_hlog_block_type_name(hoodie_hlog_block_type t)
{
    return (unsigned)t < HOODIE_HLOG_BLOCK_TYPE_COUNT ? block_type_names[t] : "UNKNOWN_BLOCK";
}

const char *hoodie_hlog_header_key_name(hoodie_hlog_header_key k)
{
    return (unsigned)k < HOODIE_HLOG_HEADER_KEY_COUNT ? header_key_names[k] : "UNKNOWN";
}

hoodie_status hoodie_hlog_iter_init(hoodie_hlog_iter *it, const void *data, size_t len, const char *what)
{
    return hoodie_hlog_iter_init_at(it, data, len, 0, what);
}

hoodie_status hoodie_hlog_iter_init_at(hoodie_hlog_iter *it, const void *data, size_t len, uint64_t base,
                                       const char *what)
{
    memset(it, 0, sizeof *it);
    it->data = data;
    it->len = len;
    it->base = base;
    it->what = what ? what : "log file";
    return hoodie_arena_new(&it->arena, NULL, 4096);
}

void hoodie_hlog_iter_dispose(hoodie_hlog_iter *it)
{
    hoodie_arena_free(it->arena);
    it->arena = NULL;
}

static uint64_t be64_at(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static int is_magic(const hoodie_hlog_iter *it, size_t pos)
{
    return it->len - pos >= HOODIE_HLOG_MAGIC_LEN && memcmp(it->data + pos, HOODIE_HLOG_MAGIC, HOODIE_HLOG_MAGIC_LEN) == 0;
}

/* Offset of the next magic at or after `from`, or the end. */
static size_t scan_magic(const hoodie_hlog_iter *it, size_t from)
{
    while (from < it->len) {
        const uint8_t *hit = memchr(it->data + from, '#', it->len - from);
        if (!hit) return it->len;
        from = (size_t)(hit - it->data);
        if (is_magic(it, from)) return from;
        from++;
    }
    return it->len;
}

/* Hand out [start, next magic after start+magic) as a CORRUPT block. */
static hoodie_status corrupt_block(hoodie_hlog_iter *it, size_t start, hoodie_hlog_block *out, const char *reason)
{
    size_t from = start + HOODIE_HLOG_MAGIC_LEN <= it->len ? start + HOODIE_HLOG_MAGIC_LEN : it->len;
    size_t next = scan_magic(it, from);
    memset(out, 0, sizeof *out);
    out->type = HOODIE_HLOG_CORRUPT_BLOCK;
    out->offset = it->base + start;
    out->total_len = next - start;
    out->content = it->data + from;
    out->content_len = next - from;
    out->content_offset = it->base + from;
    out->corrupt_reason = hoodie_arena_sprintf(it->arena, "%s: corrupt block at offset %llu (%zu bytes): %s",
                                               it->what, (unsigned long long)(it->base + start), next - start,
                                               reason);
    if (!out->corrupt_reason) return HOODIE_NOMEM();
    it->corrupt_blocks++;
    it->pos = next;
    return HOODIE_OK;
}

/* Parse a header/footer map; 0 on success, -1 if it overruns. */
static int read_map(hoodie_arena *a, hoodie_cursor *c, hoodie_hlog_block *b, int is_header, uint32_t *count_out)
{
    uint32_t n = hoodie_cursor_be32(c);
    if (c->status) return -1;
    if (n > hoodie_cursor_left(c) / 8) return -1; /* every entry takes at least 8 bytes */
    *count_out = n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t key = hoodie_cursor_be32(c);
        uint32_t len = hoodie_cursor_be32(c);
        const uint8_t *v = hoodie_cursor_bytes(c, len);
        if (!v) return -1;
        if (!is_header) continue;
        if (key >= HOODIE_HLOG_HEADER_KEY_COUNT) {
            b->unknown_header_keys++;
            continue;
        }
        b->header[key] = hoodie_arena_strndup(a, (const char *)v, len);
        if (!b->header[key]) return -2;
        b->header_len[key] = len;
    }
    return 0;
}

hoodie_status hoodie_hlog_iter_next(hoodie_hlog_iter *it, hoodie_hlog_block *out)
{
    size_t start = it->pos;
    uint64_t block_size, end, rev;
    hoodie_cursor c;
    int mr;

    memset(out, 0, sizeof *out);
    hoodie_arena_reset(it->arena);
    if (start >= it->len) return HOODIE_ITEROVER;
    if (!is_magic(it, start)) return corrupt_block(it, start, out, "no #HUDI# magic where a block starts");
    if (it->len - start < HOODIE_HLOG_MAGIC_LEN + 8)
        return corrupt_block(it, start, out, "block size cut off by the end of the file");
    block_size = be64_at(it->data + start + HOODIE_HLOG_MAGIC_LEN);
    /* (a) the block must fit: its last 8 bytes are the reverse pointer */
    if (block_size < 4 + 4 + 4 + 8 + 4 + 8 || block_size > it->len - start - HOODIE_HLOG_MAGIC_LEN - 8)
        return corrupt_block(it, start, out, "block size runs past the end of the file");
    end = start + HOODIE_HLOG_MAGIC_LEN + 8 + block_size;
    /* (b) the reverse pointer, minus the magic, must equal the block size */
    rev = be64_at(it->data + end - 8);
    if (rev - HOODIE_HLOG_MAGIC_LEN != block_size)
        return corrupt_block(it, start, out, "reverse pointer does not match the block size");
    /* (c) the next block must start right after, or the file end */
    if (end < it->len && !is_magic(it, (size_t)end))
        return corrupt_block(it, start, out, "no #HUDI# magic after the block");

    hoodie_cursor_init(&c, it->data + start + HOODIE_HLOG_MAGIC_LEN + 8, (size_t)block_size - 8,
                       it->base + start + HOODIE_HLOG_MAGIC_LEN + 8, it->what);
    out->offset = it->base + start;
    out->total_len = end - start;
    out->format_version = (int32_t)hoodie_cursor_be32(&c);
    if (out->format_version == 0)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: offset %llu: log format version 0 is not supported", it->what,
                           (unsigned long long)(it->base + start));
    if (out->format_version != 1)
        return corrupt_block(it, start, out, "unknown log format version");
    uint32_t type = hoodie_cursor_be32(&c);
    if (type >= HOODIE_HLOG_BLOCK_TYPE_COUNT || type == HOODIE_HLOG_CORRUPT_BLOCK)
        return corrupt_block(it, start, out, "unknown block type");
    out->type = (hoodie_hlog_block_type)type;
    uint32_t header_count;
    mr = read_map(it->arena, &c, out, 1, &header_count);
    if (mr == -2) return HOODIE_NOMEM();
    if (mr) return corrupt_block(it, start, out, "header runs past the block");
    uint64_t content_len = hoodie_cursor_be64(&c);
    if (c.status || content_len > hoodie_cursor_left(&c))
        return corrupt_block(it, start, out, "content length runs past the block");
    out->content_offset = hoodie_cursor_offset(&c);
    out->content = hoodie_cursor_bytes(&c, (size_t)content_len);
    out->content_len = content_len;
    if (read_map(it->arena, &c, out, 0, &out->footer_count) || hoodie_cursor_left(&c) != 0)
        return corrupt_block(it, start, out, "footer does not end where the block does");
    it->pos = (size_t)end;
    return HOODIE_OK;
}

/* ---- a log file read in ranges (hoodie_hlog_head, hoodie_hlog_tail) ---- */

int hoodie_hlog_head(const uint8_t *p, size_t n, uint64_t off, uint64_t file_size, const char *what,
                     hoodie_arena *a, hoodie_hlog_block *out, size_t *need)
{
    const size_t pre = HOODIE_HLOG_MAGIC_LEN + 8;
    memset(out, 0, sizeof *out);
    if (off >= file_size) return HOODIE_HLOG_UNCLEAN;
    uint64_t left = file_size - off;
    if (n > left) n = (size_t)left;
    if (n < pre) {
        if (left < pre) return HOODIE_HLOG_UNCLEAN;
        *need = pre;
        return HOODIE_HLOG_MORE;
    }
    if (memcmp(p, HOODIE_HLOG_MAGIC, HOODIE_HLOG_MAGIC_LEN)) return HOODIE_HLOG_UNCLEAN;
    uint64_t block_size = be64_at(p + HOODIE_HLOG_MAGIC_LEN);
    if (block_size < 4 + 4 + 4 + 8 + 4 + 8 || block_size > left - pre) return HOODIE_HLOG_UNCLEAN;
    uint64_t body_end = pre + block_size - 8; /* the reverse pointer's offset in the block */
    size_t have = n < body_end ? n : (size_t)body_end;
    int whole = have == body_end; /* the bytes in hand reach the reverse pointer: a failure is not for want of more */
    hoodie_cursor c;
    hoodie_cursor_init(&c, p + pre, have - pre, off + pre, what);
    out->offset = off;
    out->total_len = pre + block_size;
    out->format_version = (int32_t)hoodie_cursor_be32(&c);
    uint32_t type = hoodie_cursor_be32(&c);
    uint32_t header_count;
    int mr = c.status ? -1 : read_map(a, &c, out, 1, &header_count);
    if (mr == -2) return HOODIE_NOMEM();
    uint64_t content_len = mr ? 0 : hoodie_cursor_be64(&c);
    if (mr || c.status) {
        if (whole) return HOODIE_HLOG_UNCLEAN;
        hoodie_error_clear(); /* the cursor's message: only short of bytes */
        *need = n * 2 < body_end ? n * 2 : (size_t)body_end;
        return HOODIE_HLOG_MORE;
    }
    if (out->format_version != 1 || type >= HOODIE_HLOG_BLOCK_TYPE_COUNT || type == HOODIE_HLOG_CORRUPT_BLOCK)
        return HOODIE_HLOG_UNCLEAN;
    out->type = (hoodie_hlog_block_type)type;
    uint64_t at = hoodie_cursor_offset(&c) - off; /* the content's offset in the block */
    if (content_len > body_end - at) return HOODIE_HLOG_UNCLEAN;
    out->content_offset = off + at;
    out->content_len = content_len;
    return HOODIE_OK;
}

void hoodie_hlog_tail_range(const hoodie_hlog_block *b, uint64_t file_size, uint64_t *tail_off, size_t *tail_len)
{
    uint64_t from = b->content_offset + b->content_len, end = b->offset + b->total_len;
    uint64_t to = end + HOODIE_HLOG_MAGIC_LEN < file_size ? end + HOODIE_HLOG_MAGIC_LEN : file_size;
    *tail_off = from;
    *tail_len = (size_t)(to - from);
}

int hoodie_hlog_tail(const uint8_t *t, size_t n, uint64_t file_size, const char *what, hoodie_hlog_block *b)
{
    uint64_t from = b->content_offset + b->content_len, end = b->offset + b->total_len;
    uint64_t footer_len = end - 8 - from;
    if (n < footer_len + 8) return HOODIE_HLOG_UNCLEAN;
    hoodie_cursor c;
    hoodie_cursor_init(&c, t, (size_t)footer_len, from, what);
    if (read_map(NULL, &c, b, 0, &b->footer_count) || hoodie_cursor_left(&c) != 0) {
        hoodie_error_clear();
        return HOODIE_HLOG_UNCLEAN;
    }
    if (be64_at(t + footer_len) - HOODIE_HLOG_MAGIC_LEN != b->total_len - HOODIE_HLOG_MAGIC_LEN - 8)
        return HOODIE_HLOG_UNCLEAN;
    if (end < file_size && (n < footer_len + 8 + HOODIE_HLOG_MAGIC_LEN ||
                            memcmp(t + footer_len + 8, HOODIE_HLOG_MAGIC, HOODIE_HLOG_MAGIC_LEN)))
        return HOODIE_HLOG_UNCLEAN;
    return HOODIE_OK;
}

/* ---- content decoders ------------------------------------------------------------------------------------ */

static hoodie_status content_fail(const char *what, uint64_t off, const char *msg)
{
    return HOODIE_CORRUPT("%s: offset %llu: %s", what, (unsigned long long)off, msg);
}

hoodie_status hoodie_hlog_avro_open(hoodie_hlog_avro_records *r, const hoodie_hlog_block *b, const char *what)
{
    memset(r, 0, sizeof *r);
    r->what = what ? what : "log file";
    r->base_off = b->content_offset;
    if (b->type != HOODIE_HLOG_AVRO_DATA_BLOCK && b->type != HOODIE_HLOG_CDC_DATA_BLOCK)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: block at %llu is a %s, not an Avro data block", r->what,
                           (unsigned long long)b->offset, hoodie_hlog_block_type_name(b->type));
    r->p = r->start = b->content;
    r->end = b->content + b->content_len;
    if (r->end - r->p < 4) return content_fail(r->what, r->base_off, "Avro data block content too short");
    r->version = (int32_t)((uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3]);
    r->p += 4;
    if (r->version < 1 || r->version > 3)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: offset %llu: Avro data block version %d not supported", r->what,
                           (unsigned long long)r->base_off, r->version);
    if (r->version == 1) {
        r->record_count = -1;
    } else {
        if (r->end - r->p < 4) return content_fail(r->what, r->base_off + 4, "record count cut off");
        r->record_count = (int32_t)((uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3]);
        r->p += 4;
        if (r->record_count < 0 || (uint64_t)r->record_count > (uint64_t)(r->end - r->p) / 4)
            return content_fail(r->what, r->base_off + 4, "record count exceeds the block");
    }
    return HOODIE_OK;
}

hoodie_status hoodie_hlog_avro_next(hoodie_hlog_avro_records *r, const uint8_t **rec, size_t *len)
{
    uint64_t off = r->base_off + (uint64_t)(r->p - r->start);
    uint32_t n;
    if ((r->record_count >= 0 && r->returned == r->record_count) || (r->record_count < 0 && r->p == r->end)) {
        if (r->p != r->end) return content_fail(r->what, off, "bytes left after the last Avro record");
        return HOODIE_ITEROVER;
    }
    if (r->end - r->p < 4) return content_fail(r->what, off, "Avro record length cut off");
    n = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
    if (n > (uint64_t)(r->end - r->p - 4)) return content_fail(r->what, off, "Avro record runs past the block");
    *rec = r->p + 4;
    *len = n;
    r->p += 4 + (size_t)n;
    r->returned++;
    return HOODIE_OK;
}

/* Avro primitives for the fixed HoodieDeleteRecordList schema. */
static int64_t del_long(hoodie_cursor *c) { return hoodie_zigzag_decode(hoodie_cursor_uvarint(c)); }

static const uint8_t *del_bytes(hoodie_cursor *c, size_t *len)
{
    int64_t n = del_long(c);
    if (c->status) return NULL;
    if (n < 0 || (uint64_t)n > hoodie_cursor_left(c)) {
        hoodie_cursor__fail(c, "bad Avro length %lld", (long long)n);
        return NULL;
    }
    *len = (size_t)n;
    return hoodie_cursor_bytes(c, (size_t)n);
}

static const char *del_opt_string(hoodie_cursor *c, hoodie_arena *a)
{
    int64_t branch = del_long(c);
    size_t n;
    const uint8_t *p;
    if (c->status || branch == 0) return NULL;
    if (branch != 1) {
        hoodie_cursor__fail(c, "bad union branch %lld for [null, string]", (long long)branch);
        return NULL;
    }
    p = del_bytes(c, &n);
    if (!p) return NULL;
    const char *s = hoodie_arena_strndup(a, (const char *)p, n);
    if (!s && c->status == HOODIE_OK) c->status = HOODIE_NOMEM();
    return s;
}

static void del_ordering(hoodie_cursor *c, hoodie_arena *a, hoodie_hlog_delete *d)
{
    int64_t branch = del_long(c);
    if (c->status) return;
    if (branch < 0 || branch > HOODIE_HLOG_ORD_TIMESTAMP_MICROS) {
        hoodie_cursor__fail(c, "unsupported orderingVal union branch %lld", (long long)branch);
        return;
    }
    d->ord_type = (hoodie_hlog_ord_type)branch;
    switch (d->ord_type) {
    case HOODIE_HLOG_ORD_NULL: break;
    case HOODIE_HLOG_ORD_BOOLEAN: {
        uint8_t b = hoodie_cursor_u8(c);
        if (b > 1) hoodie_cursor__fail(c, "bad Avro boolean");
        d->ord_i = b;
        break;
    }
    case HOODIE_HLOG_ORD_INT: case HOODIE_HLOG_ORD_DATE: {
        int64_t v = del_long(c);
        if (!c->status && (v < INT32_MIN || v > INT32_MAX)) hoodie_cursor__fail(c, "Avro int out of range");
        d->ord_i = v;
        break;
    }
    case HOODIE_HLOG_ORD_LONG: case HOODIE_HLOG_ORD_TIME_MICROS: case HOODIE_HLOG_ORD_TIMESTAMP_MICROS:
        d->ord_i = del_long(c);
        break;
    case HOODIE_HLOG_ORD_FLOAT: {
        uint32_t bits = hoodie_cursor_le32(c);
        float f;
        memcpy(&f, &bits, 4);
        d->ord_d = f;
        break;
    }
    case HOODIE_HLOG_ORD_DOUBLE: {
        uint64_t bits = hoodie_cursor_le64(c);
        memcpy(&d->ord_d, &bits, 8);
        break;
    }
    case HOODIE_HLOG_ORD_BYTES: case HOODIE_HLOG_ORD_STRING: case HOODIE_HLOG_ORD_DECIMAL: {
        size_t n = 0;
        const uint8_t *p = del_bytes(c, &n);
        if (!p) break;
        d->ord_bytes = hoodie_arena_memdup(a, p, n ? n : 1);
        d->ord_len = n;
        if (!d->ord_bytes && c->status == HOODIE_OK) c->status = HOODIE_NOMEM();
        break;
    }
    }
}

hoodie_status hoodie_hlog_delete_decode(const hoodie_hlog_block *b, hoodie_arena *a, const char *what,
                                        hoodie_hlog_delete **out, size_t *count)
{
    hoodie_cursor c;
    int32_t version;
    uint32_t payload_len;
    size_t n = 0, cap = 0;
    hoodie_hlog_delete *items = NULL;
    *out = NULL;
    *count = 0;
    what = what ? what : "log file";
    if (b->type != HOODIE_HLOG_DELETE_BLOCK)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: block at %llu is not a delete block", what, (unsigned long long)b->offset);
    hoodie_cursor_init(&c, b->content, (size_t)b->content_len, b->content_offset, what);
    version = (int32_t)hoodie_cursor_be32(&c);
    if (c.status) return c.status;
    if (version != 3)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: offset %llu: delete block version %d (Kryo) not supported", what,
                           (unsigned long long)b->content_offset, version);
    payload_len = hoodie_cursor_be32(&c);
    if (c.status) return c.status;
    if (payload_len != hoodie_cursor_left(&c))
        return content_fail(what, b->content_offset + 4, "delete payload length does not match the block");
    /* HoodieDeleteRecordList { deleteRecordList: array<HoodieDeleteRecord> } */
    for (;;) {
        int64_t blk = del_long(&c);
        if (c.status) return c.status;
        if (blk == 0) break;
        if (blk < 0) {
            if (blk == INT64_MIN) return hoodie_cursor__fail(&c, "bad Avro block count");
            blk = -blk;
            (void)del_long(&c);
            if (c.status) return c.status;
        }
        if ((uint64_t)blk > hoodie_cursor_left(&c)) return hoodie_cursor__fail(&c, "Avro block count exceeds the data");
        if (n + (size_t)blk > cap) {
            size_t ncap = (n + (size_t)blk) * 2;
            hoodie_hlog_delete *g = hoodie_arena_calloc(a, ncap, sizeof *g);
            if (!g) return HOODIE_NOMEM();
            if (n) memcpy(g, items, n * sizeof *g);
            items = g;
            cap = ncap;
        }
        for (int64_t i = 0; i < blk; i++) {
            hoodie_hlog_delete *d = &items[n++];
            memset(d, 0, sizeof *d);
            d->record_key = del_opt_string(&c, a);
            d->partition_path = del_opt_string(&c, a);
            del_ordering(&c, a, d);
            if (c.status) return c.status;
        }
    }
    if (hoodie_cursor_left(&c)) return hoodie_cursor__fail(&c, "bytes left after the delete record list");
    *out = items;
    *count = n;
    return HOODIE_OK;
}

int hoodie_hlog_command_rollback(const hoodie_hlog_block *b, const char *what, const char **target)
{
    const char *t = b->header[HOODIE_HLOG_COMMAND_BLOCK_TYPE];
    *target = NULL;
    what = what ? what : "log file";
    if (b->type != HOODIE_HLOG_COMMAND_BLOCK)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: block at %llu is not a command block", what, (unsigned long long)b->offset);
    if (!t) return content_fail(what, b->offset, "command block without COMMAND_BLOCK_TYPE");
    if (strcmp(t, "0") != 0) return 0;
    if (!b->header[HOODIE_HLOG_TARGET_INSTANT_TIME])
        return content_fail(what, b->offset, "rollback command block without TARGET_INSTANT_TIME");
    *target = b->header[HOODIE_HLOG_TARGET_INSTANT_TIME];
    return 1;
}

hoodie_status hoodie_hlog_parquet_content(const hoodie_hlog_block *b, const char *what, const uint8_t **data,
                                          size_t *len)
{
    what = what ? what : "log file";
    *data = NULL;
    *len = 0;
    if (b->type != HOODIE_HLOG_PARQUET_DATA_BLOCK)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: block at %llu is not a parquet block", what, (unsigned long long)b->offset);
    if (b->content_len < 12 || memcmp(b->content, "PAR1", 4) || memcmp(b->content + b->content_len - 4, "PAR1", 4))
        return content_fail(what, b->content_offset, "parquet data block does not hold a Parquet file");
    *data = b->content;
    *len = (size_t)b->content_len;
    return HOODIE_OK;
}
