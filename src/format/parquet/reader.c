/*
 * Parquet reader: footer, column chunk pages, value decoding straight into Arrow-layout buffers, and record
 * assembly from definition/repetition levels (see schema.h for the slot rules).
 *
 * Per batch and per projected leaf, the column reader appends the level entries of the batch's rows to
 * lbuf.def/rep and the non-null values, densely, to the leaf's output array. Assembly then walks the node tree:
 * every node derives its slots, validity and (lists/maps) offsets from the levels of its first leaf, and leaf
 * values are scattered in place (backwards) from dense to slot positions when there are nulls.
 */
#include "format/parquet/reader.h"
#include "format/parquet/codec.h"
#include "format/parquet/decode.h"
#include "model/build.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FOOTER_LEN ((uint64_t)1 << 30)
#define MAX_PAGE_VALUES ((int32_t)1 << 26)
#define MAX_PAGE_BYTES ((int32_t)1 << 30)
/* Column chunks are read in windows of at least this many bytes (a page needs its whole body in the window), so
 * a scan holds about one window per projected column instead of whole column chunks. */
#define CHUNK_WINDOW ((size_t)64 * 1024)
#define HEADER_PROBE ((size_t)4096)
/* Footer key-value values longer than this are read on first use only (a Hudi bloom filter: ~1 MiB). */
#define KV_DEFER_OVER ((uint32_t)64 * 1024)

struct hoodie_pq_file {
    hoodie_pq_source src;
    hoodie_arena *arena;
    hoodie_pq_file_meta meta;
    hoodie_pq_schema schema;
    uint64_t footer_off;
};

/* ---- growable buffers ---- */

static hoodie_status grow(void *pp, size_t *cap, size_t need)
{
    void **p = pp;
    if (need <= *cap) return HOODIE_OK;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return HOODIE_NOMEM();
        nc *= 2;
    }
    void *n = realloc(*p, nc);
    if (!n) return HOODIE_NOMEM();
    *p = n;
    *cap = nc;
    return HOODIE_OK;
}

/* Per-page buffers (levels, decompressed page): sized to the page (rounded up to 4 KiB), not doubled, since each
 * projected column of every open scan holds one. */
static hoodie_status grow_fit(void *pp, size_t *cap, size_t need)
{
    void **p = pp;
    if (need <= *cap) return HOODIE_OK;
    size_t nc = (need + 4095) & ~(size_t)4095;
    if (nc < need) return HOODIE_NOMEM();
    void *n = realloc(*p, nc);
    if (!n) return HOODIE_NOMEM();
    *p = n;
    *cap = nc;
    return HOODIE_OK;
}

/* ---- leaf output kinds and conversions ---- */

enum out_kind { OUT_FIXED, OUT_BOOL, OUT_VAR };
enum conv { CV_NONE, CV_I32_I8, CV_I32_I16, CV_INT96, CV_DEC_I32, CV_DEC_I64, CV_DEC_BE };

typedef struct lbuf {
    int16_t *def, *rep;
    size_t n, def_cap, rep_cap;
    int64_t nvals;       /* dense values appended to the leaf array */
    int partial;         /* some level below the leaf's max_def (a page with nulls) */
} lbuf;

typedef struct colr {
    const hoodie_pq_file *f;
    const hoodie_pq_leaf *lf;
    int leaf;
    hoodie_pq_type ptype;
    size_t pw;           /* physical width (fixed types) */
    size_t ow;           /* output width (OUT_FIXED) */
    enum out_kind out;
    enum conv conv;
    int16_t max_def, max_rep;
    char what[256];
    /* chunk: bytes [chunk_off, chunk_off + chunk_len) of the file, read through a window holding chunk bytes
     * [win_pos, win_pos + win_len); pos is the next page header */
    uint8_t *chunk;
    size_t chunk_cap, win_pos, win_len;
    size_t chunk_len, pos;
    uint64_t chunk_off;
    hoodie_pq_codec codec;
    hoodie_arena *hdr_arena;
    /* dictionary, in output representation */
    int has_dict;
    uint32_t dict_n;
    uint8_t *dict_fixed;     /* OUT_FIXED: dict_n * ow bytes */
    int32_t *dict_off;       /* OUT_VAR: dict_n + 1 offsets into dict_data */
    uint8_t *dict_data;
    /* page */
    uint8_t *page_buf;
    size_t page_cap;
    int16_t *def, *rep;
    size_t def_cap, rep_cap;
    int32_t page_n, page_i;
    int page_full;       /* every definition level of the page is max_def (no nulls) */
    uint64_t page_off;       /* file offset of the current page header, for messages */
    /* values */
    enum { V_PLAIN_FIXED, V_PLAIN_BOOL, V_PLAIN_BA, V_DICT, V_RLE_BOOL, V_MAT_BA } venc;
    const uint8_t *vp, *vend;
    uint64_t vbit;
    hoodie_pq_rle rle;
    uint8_t *mat;
    size_t mat_cap;
    int32_t *mat_off;
    size_t mat_off_cap, mat_i;
    const uint8_t *mat_data;
    hoodie_buf matbuf;
    uint32_t *idx;
    size_t idx_cap;
    int64_t *i64s;
    size_t i64s_cap;
} colr;

static hoodie_status col_corrupt(colr *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static hoodie_status col_corrupt(colr *c, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return HOODIE_CORRUPT("%s: %s (page at offset %" PRIu64 ")", c->what, why, c->page_off);
}

/* Big-endian two's complement bytes (n <= 16) to 16 bytes little-endian. */
static inline void be_to_dec16(const uint8_t *p, size_t n, uint8_t *out)
{
    uint8_t fill = n && (p[0] & 0x80) ? 0xff : 0;
    for (size_t k = 0; k < 16; k++) out[k] = k < n ? p[n - 1 - k] : fill;
}

static inline void i64_to_dec16(int64_t v, uint8_t *out)
{
    uint64_t u = (uint64_t)v, hi = v < 0 ? ~(uint64_t)0 : 0;
    memcpy(out, &u, 8);
    memcpy(out + 8, &hi, 8);
}

/* Convert n physical fixed values at src to the output representation at dst. */
static void convert_fixed(const colr *c, const uint8_t *src, uint8_t *dst, size_t n)
{
    switch (c->conv) {
    case CV_NONE: memcpy(dst, src, n * c->ow); break;
    case CV_I32_I8:
        for (size_t i = 0; i < n; i++) dst[i] = src[4 * i];
        break;
    case CV_I32_I16:
        for (size_t i = 0; i < n; i++) { dst[2 * i] = src[4 * i]; dst[2 * i + 1] = src[4 * i + 1]; }
        break;
    case CV_INT96:
        for (size_t i = 0; i < n; i++) {
            int64_t v = hoodie_pq_int96_to_nanos(src + 12 * i);
            memcpy(dst + 8 * i, &v, 8);
        }
        break;
    case CV_DEC_I32:
        for (size_t i = 0; i < n; i++) {
            int32_t v;
            memcpy(&v, src + 4 * i, 4);
            i64_to_dec16(v, dst + 16 * i);
        }
        break;
    case CV_DEC_I64:
        for (size_t i = 0; i < n; i++) {
            int64_t v;
            memcpy(&v, src + 8 * i, 8);
            i64_to_dec16(v, dst + 16 * i);
        }
        break;
    case CV_DEC_BE:
        for (size_t i = 0; i < n; i++) be_to_dec16(src + c->pw * i, c->pw, dst + 16 * i);
        break;
    }
}

static hoodie_status colr_setup(colr *c, const hoodie_pq_file *f, int leaf)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->leaf = leaf;
    c->lf = &f->schema.leaves[leaf];
    c->ptype = c->lf->el->type;
    c->max_def = c->lf->max_def;
    c->max_rep = c->lf->max_rep;
    snprintf(c->what, sizeof c->what, "%s: column %s", f->src.name ? f->src.name : "parquet", c->lf->path);
    const hoodie_type *t = &c->lf->type;
    switch (c->ptype) {
    case HOODIE_PQ_BOOLEAN: c->pw = 0; break;
    case HOODIE_PQ_INT32: case HOODIE_PQ_FLOAT: c->pw = 4; break;
    case HOODIE_PQ_INT64: case HOODIE_PQ_DOUBLE: c->pw = 8; break;
    case HOODIE_PQ_INT96: c->pw = 12; break;
    case HOODIE_PQ_FIXED_LEN_BYTE_ARRAY: c->pw = (size_t)c->lf->el->type_length; break;
    case HOODIE_PQ_BYTE_ARRAY: c->pw = 0; break;
    }
    if (c->ptype == HOODIE_PQ_BOOLEAN) c->out = OUT_BOOL;
    else if (t->id == HOODIE_TYPE_STRING || t->id == HOODIE_TYPE_BINARY) c->out = OUT_VAR;
    else c->out = OUT_FIXED;
    c->ow = c->out == OUT_FIXED ? hoodie_type_fixed_width(t) : 0;
    c->conv = CV_NONE;
    if (t->id == HOODIE_TYPE_DECIMAL) {
        c->conv = c->ptype == HOODIE_PQ_INT32 ? CV_DEC_I32 : c->ptype == HOODIE_PQ_INT64 ? CV_DEC_I64 : CV_DEC_BE;
    } else if (c->ptype == HOODIE_PQ_INT32 && c->ow == 1) {
        c->conv = CV_I32_I8;
    } else if (c->ptype == HOODIE_PQ_INT32 && c->ow == 2) {
        c->conv = CV_I32_I16;
    } else if (c->ptype == HOODIE_PQ_INT96) {
        c->conv = CV_INT96;
    }
    if (c->out == OUT_FIXED && c->conv == CV_NONE && c->ow != c->pw)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: cannot map %s to %zu-byte values", c->what,
                           hoodie_pq_type_name(c->ptype), c->ow);
    return hoodie_arena_new(&c->hdr_arena, NULL, 4096);
}

static void colr_dispose(colr *c)
{
    free(c->chunk);
    hoodie_arena_free(c->hdr_arena);
    free(c->dict_fixed);
    free(c->dict_off);
    free(c->dict_data);
    free(c->page_buf);
    free(c->def);
    free(c->rep);
    free(c->mat);
    free(c->mat_off);
    hoodie_buf_dispose(&c->matbuf);
    free(c->idx);
    free(c->i64s);
    memset(c, 0, sizeof *c);
}

/* Where a chunk's pages are: from its dictionary page (if any, as writers place it before the data pages) or its
 * first data page, total_compressed_size bytes. 0 when that range is not in the file's data part. */
static int chunk_extent(const hoodie_pq_file *f, const hoodie_pq_column_meta *m, int64_t *start, int64_t *len)
{
    *start = m->data_page_offset;
    if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 && m->dictionary_page_offset < *start)
        *start = m->dictionary_page_offset;
    *len = m->total_compressed_size;
    return *start >= 4 && *len >= 0 && (uint64_t)*start <= f->footer_off &&
           (uint64_t)*len <= f->footer_off - (uint64_t)*start;
}

/* Load the column chunk of row group `rg`. */
static hoodie_status colr_open_chunk(colr *c, uint32_t rg)
{
    const hoodie_pq_file *f = c->f;
    const hoodie_pq_row_group *g = &f->meta.row_groups[rg];
    const hoodie_pq_column_chunk *cc = &g->columns[c->leaf];
    const hoodie_pq_column_meta *m = &cc->meta;
    c->chunk_len = c->pos = c->win_pos = c->win_len = 0;
    c->has_dict = 0;
    c->page_n = c->page_i = 0;
    c->page_full = 0;
    c->page_off = 0;
    if (!cc->has_meta) return HOODIE_CORRUPT("%s: row group %u has no column metadata", c->what, rg);
    if (cc->file_path) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: column chunk in another file", c->what);
    if (m->type != c->ptype)
        return HOODIE_CORRUPT("%s: row group %u chunk type %s differs from the schema (%s)", c->what, rg,
                              hoodie_pq_type_name(m->type), hoodie_pq_type_name(c->ptype));
    int64_t start, len;
    if (!chunk_extent(f, m, &start, &len))
        return HOODIE_CORRUPT("%s: row group %u chunk at offset %lld length %lld is outside the file", c->what, rg,
                              (long long)start, (long long)len);
    c->codec = m->codec;
    c->chunk_off = (uint64_t)start;
    c->chunk_len = (size_t)len;
    return HOODIE_OK;
}

/* Make chunk bytes [pos, pos + need) available (need <= chunk_len - pos); returns them. */
static hoodie_status window(colr *c, size_t need, const uint8_t **out)
{
    if (c->pos < c->win_pos || c->pos + need > c->win_pos + c->win_len) {
        size_t left = c->chunk_len - c->pos, len = need > CHUNK_WINDOW ? need : CHUNK_WINDOW;
        if (len > left) len = left;
        if (len > c->chunk_cap) {
            /* replace rather than realloc: nothing in the old window is kept */
            free(c->chunk);
            c->chunk_cap = 0;
            c->chunk = malloc(len);
            if (!c->chunk) return HOODIE_NOMEM();
            c->chunk_cap = len;
        }
        c->win_pos = c->pos;
        c->win_len = 0;
        HOODIE_TRY(c->f->src.read(c->f->src.ctx, c->chunk_off + c->pos, c->chunk, len));
        c->win_len = len;
    }
    *out = c->chunk + (c->pos - c->win_pos);
    return HOODIE_OK;
}

/* Decompress a page body into c->page_buf (or borrow it when uncompressed). */
static hoodie_status page_body(colr *c, const uint8_t *src, size_t src_len, size_t dst_len, int compressed,
                               const uint8_t **out)
{
    if (!compressed || c->codec == HOODIE_PQ_UNCOMPRESSED) {
        if (src_len != dst_len) return col_corrupt(c, "page sizes differ (%zu vs %zu) without compression", src_len, dst_len);
        *out = src;
        return HOODIE_OK;
    }
    HOODIE_TRY(grow_fit(&c->page_buf, &c->page_cap, dst_len ? dst_len : 1));
    char what[320];
    snprintf(what, sizeof what, "%s page at offset %" PRIu64, c->what, c->page_off);
    HOODIE_TRY(hoodie_codec_decompress(c->codec, src, src_len, c->page_buf, dst_len, what));
    *out = c->page_buf;
    return HOODIE_OK;
}

static hoodie_status load_dict(colr *c, const hoodie_pq_page_header *h, const uint8_t *p, size_t len)
{
    int32_t n = h->dict.num_values;
    if (h->dict.encoding != HOODIE_PQ_PLAIN && h->dict.encoding != HOODIE_PQ_PLAIN_DICTIONARY)
        return col_corrupt(c, "dictionary page encoding %d", (int)h->dict.encoding);
    if (n < 0) return col_corrupt(c, "dictionary with %d values", (int)n);
    if (c->out == OUT_BOOL) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: boolean dictionary", c->what);
    c->has_dict = 0;
    if (c->ptype == HOODIE_PQ_BYTE_ARRAY) {
        if ((size_t)n > len / 4) return col_corrupt(c, "dictionary of %d values in %zu bytes", (int)n, len);
        /* Parse lengths first. */
        size_t pos = 0, total = 0;
        for (int32_t i = 0; i < n; i++) {
            if (len - pos < 4) return col_corrupt(c, "truncated dictionary");
            uint32_t l = (uint32_t)p[pos] | (uint32_t)p[pos + 1] << 8 | (uint32_t)p[pos + 2] << 16 | (uint32_t)p[pos + 3] << 24;
            pos += 4;
            if (l > len - pos) return col_corrupt(c, "dictionary value of %u bytes overruns the page", l);
            pos += l;
            total += l;
        }
        if (c->out == OUT_VAR) {
            free(c->dict_off);
            free(c->dict_data);
            c->dict_off = malloc(((size_t)n + 1) * sizeof *c->dict_off);
            c->dict_data = calloc(1, total + 16);
            if (!c->dict_off || !c->dict_data) return HOODIE_NOMEM();
            pos = 0;
            size_t o = 0;
            c->dict_off[0] = 0;
            for (int32_t i = 0; i < n; i++) {
                uint32_t l = (uint32_t)p[pos] | (uint32_t)p[pos + 1] << 8 | (uint32_t)p[pos + 2] << 16 | (uint32_t)p[pos + 3] << 24;
                memcpy(c->dict_data + o, p + pos + 4, l);
                pos += 4 + l;
                o += l;
                c->dict_off[i + 1] = (int32_t)o;
            }
        } else { /* decimal on BYTE_ARRAY */
            free(c->dict_fixed);
            c->dict_fixed = malloc(((size_t)n ? (size_t)n : 1) * 16);
            if (!c->dict_fixed) return HOODIE_NOMEM();
            pos = 0;
            for (int32_t i = 0; i < n; i++) {
                uint32_t l = (uint32_t)p[pos] | (uint32_t)p[pos + 1] << 8 | (uint32_t)p[pos + 2] << 16 | (uint32_t)p[pos + 3] << 24;
                if (l > 16) return col_corrupt(c, "decimal of %u bytes", l);
                be_to_dec16(p + pos + 4, l, c->dict_fixed + 16 * (size_t)i);
                pos += 4 + l;
            }
        }
    } else {
        if (c->pw == 0 || (size_t)n > len / c->pw) return col_corrupt(c, "dictionary of %d values in %zu bytes", (int)n, len);
        free(c->dict_fixed);
        c->dict_fixed = malloc(((size_t)n ? (size_t)n : 1) * c->ow);
        if (!c->dict_fixed) return HOODIE_NOMEM();
        convert_fixed(c, p, c->dict_fixed, (size_t)n);
    }
    c->dict_n = (uint32_t)n;
    c->has_dict = 1;
    return HOODIE_OK;
}

/* Levels of a page; *all_max (may be NULL) tells whether every one is `max` (runs of it alone, nothing bit-packed:
 * a column with no nulls on the page, whose values then need no counting). */
static hoodie_status decode_levels_rle(colr *c, const uint8_t *p, size_t len, int16_t *out, int32_t n, int16_t max,
                                       const char *kind, int *all_max)
{
    hoodie_pq_rle d;
    hoodie_pq_rle_init(&d, p, len, hoodie_pq_bit_width((uint32_t)max));
    size_t got = hoodie_pq_rle_get_i16(&d, out, (size_t)n);
    if (got != (size_t)n) return col_corrupt(c, "%s levels: %zu of %d decoded", kind, got, (int)n);
    int16_t bad = 0;
    if (max == (int16_t)((1u << d.bit_width) - 1)) /* bit-packed levels cannot exceed it: the runs' values alone */
        bad = d.run_max > (uint32_t)max;
    else
        for (int32_t i = 0; i < n; i++) bad |= (int16_t)(out[i] > max || out[i] < 0);
    if (bad) return col_corrupt(c, "%s level above the maximum %d", kind, (int)max);
    if (all_max) *all_max = !d.bp_seen && d.run_min == (uint32_t)max && d.run_max == (uint32_t)max;
    return HOODIE_OK;
}

/* v1 levels: RLE with a 4-byte length, or legacy BIT_PACKED. Advances *pp. */
static hoodie_status levels_v1(colr *c, const uint8_t **pp, const uint8_t *end, hoodie_pq_encoding enc, int16_t *out,
                               int32_t n, int16_t max, const char *kind, int *all_max)
{
    if (all_max) *all_max = 0;
    const uint8_t *p = *pp;
    if (enc == HOODIE_PQ_BIT_PACKED) {
        size_t used = hoodie_pq_bitpacked_legacy_levels(p, (size_t)(end - p), hoodie_pq_bit_width((uint32_t)max), out, (size_t)n);
        if (used == (size_t)-1) return col_corrupt(c, "truncated %s levels", kind);
        for (int32_t i = 0; i < n; i++) if (out[i] > max) return col_corrupt(c, "%s level above the maximum", kind);
        *pp = p + used;
        return HOODIE_OK;
    }
    if (enc != HOODIE_PQ_RLE) return col_corrupt(c, "%s level encoding %d", kind, (int)enc);
    if (end - p < 4) return col_corrupt(c, "truncated %s levels", kind);
    uint32_t l = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    p += 4;
    if (l > (size_t)(end - p)) return col_corrupt(c, "%s levels of %u bytes overrun the page", kind, l);
    HOODIE_TRY(decode_levels_rle(c, p, l, out, n, max, kind, all_max));
    *pp = p + l;
    return HOODIE_OK;
}

static int64_t count_present(const colr *c, int32_t from, int32_t to)
{
    if (c->max_def == 0 || c->page_full) return to - from;
    int64_t k = 0;
    const int16_t *d = c->def, md = c->max_def;
    for (int32_t i = from; i < to; i++) k += d[i] == md;
    return k;
}

/* Prepare the value decoder for a page's value bytes. */
static hoodie_status values_init(colr *c, hoodie_pq_encoding enc, const uint8_t *p, size_t len)
{
    c->vp = p;
    c->vend = p + len;
    c->vbit = 0;
    switch (enc) {
    case HOODIE_PQ_PLAIN:
        c->venc = c->ptype == HOODIE_PQ_BOOLEAN ? V_PLAIN_BOOL : c->ptype == HOODIE_PQ_BYTE_ARRAY ? V_PLAIN_BA : V_PLAIN_FIXED;
        return HOODIE_OK;
    case HOODIE_PQ_PLAIN_DICTIONARY:
    case HOODIE_PQ_RLE_DICTIONARY:
        if (!c->has_dict) return col_corrupt(c, "dictionary-encoded page without a dictionary");
        if (len < 1 || p[0] > 32) return col_corrupt(c, "bad dictionary index bit width");
        hoodie_pq_rle_init(&c->rle, p + 1, len - 1, p[0]);
        c->venc = V_DICT;
        return HOODIE_OK;
    case HOODIE_PQ_RLE: {
        if (c->ptype != HOODIE_PQ_BOOLEAN) return col_corrupt(c, "RLE values for a non-boolean column");
        if (len < 4) return col_corrupt(c, "truncated RLE booleans");
        uint32_t l = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        if (l > len - 4) return col_corrupt(c, "RLE booleans of %u bytes overrun the page", l);
        hoodie_pq_rle_init(&c->rle, p + 4, l, 1);
        c->venc = V_RLE_BOOL;
        return HOODIE_OK;
    }
    default: break;
    }
    /* Materialized encodings: decode the whole page's values now. */
    int64_t nv = count_present(c, 0, c->page_n);
    switch (enc) {
    case HOODIE_PQ_DELTA_BINARY_PACKED: {
        if (c->ptype != HOODIE_PQ_INT32 && c->ptype != HOODIE_PQ_INT64)
            return col_corrupt(c, "DELTA_BINARY_PACKED on %s", hoodie_pq_type_name(c->ptype));
        size_t got, used;
        HOODIE_TRY(grow(&c->i64s, &c->i64s_cap, ((size_t)nv + 1) * 8));
        HOODIE_TRY(hoodie_pq_delta_binary_decode(p, len, (size_t)nv, c->i64s, &got, &used, c->what));
        if ((int64_t)got != nv) return col_corrupt(c, "DELTA_BINARY_PACKED has %zu values, expected %lld", got, (long long)nv);
        HOODIE_TRY(grow(&c->mat, &c->mat_cap, (size_t)nv * c->pw + 1));
        if (c->pw == 4) for (int64_t i = 0; i < nv; i++) { int32_t v = (int32_t)(uint32_t)(uint64_t)c->i64s[i]; memcpy(c->mat + 4 * i, &v, 4); }
        else memcpy(c->mat, c->i64s, (size_t)nv * 8);
        c->vp = c->mat;
        c->vend = c->mat + (size_t)nv * c->pw;
        c->venc = V_PLAIN_FIXED;
        return HOODIE_OK;
    }
    case HOODIE_PQ_BYTE_STREAM_SPLIT: {
        if (c->pw == 0) return col_corrupt(c, "BYTE_STREAM_SPLIT on %s", hoodie_pq_type_name(c->ptype));
        if ((uint64_t)nv * c->pw != len) return col_corrupt(c, "BYTE_STREAM_SPLIT page of %zu bytes for %lld values", len, (long long)nv);
        HOODIE_TRY(grow(&c->mat, &c->mat_cap, len + 1));
        HOODIE_TRY(hoodie_pq_byte_stream_split_decode(p, len, (size_t)nv, c->pw, c->mat, c->what));
        c->vp = c->mat;
        c->vend = c->mat + len;
        c->venc = V_PLAIN_FIXED;
        return HOODIE_OK;
    }
    case HOODIE_PQ_DELTA_LENGTH_BYTE_ARRAY: {
        if (c->ptype != HOODIE_PQ_BYTE_ARRAY) return col_corrupt(c, "DELTA_LENGTH_BYTE_ARRAY on %s", hoodie_pq_type_name(c->ptype));
        size_t used;
        HOODIE_TRY(grow(&c->i64s, &c->i64s_cap, ((size_t)nv + 1) * 8));
        HOODIE_TRY(grow(&c->mat_off, &c->mat_off_cap, ((size_t)nv + 1) * 4));
        HOODIE_TRY(hoodie_pq_delta_length_decode(p, len, (size_t)nv, c->i64s, c->mat_off, &c->mat_data, &used, c->what));
        c->mat_i = 0;
        c->venc = V_MAT_BA;
        return HOODIE_OK;
    }
    case HOODIE_PQ_DELTA_BYTE_ARRAY: {
        if (c->ptype != HOODIE_PQ_BYTE_ARRAY && c->ptype != HOODIE_PQ_FIXED_LEN_BYTE_ARRAY)
            return col_corrupt(c, "DELTA_BYTE_ARRAY on %s", hoodie_pq_type_name(c->ptype));
        hoodie_buf_clear(&c->matbuf);
        HOODIE_TRY(grow(&c->mat_off, &c->mat_off_cap, ((size_t)nv + 1) * 4));
        HOODIE_TRY(hoodie_pq_delta_byte_array_decode(p, len, (size_t)nv, &c->matbuf, c->mat_off, c->what));
        if (c->ptype == HOODIE_PQ_FIXED_LEN_BYTE_ARRAY) {
            for (int64_t i = 0; i < nv; i++)
                if ((size_t)(c->mat_off[i + 1] - c->mat_off[i]) != c->pw) return col_corrupt(c, "DELTA_BYTE_ARRAY value of the wrong width");
            c->vp = c->matbuf.data ? c->matbuf.data : (const uint8_t *)"";
            c->vend = c->vp + (size_t)nv * c->pw;
            c->venc = V_PLAIN_FIXED;
        } else {
            c->mat_data = c->matbuf.data ? c->matbuf.data : (const uint8_t *)"";
            c->mat_i = 0;
            c->venc = V_MAT_BA;
        }
        return HOODIE_OK;
    }
    default:
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: value encoding %s (%d)", c->what, hoodie_pq_encoding_name(enc), (int)enc);
    }
}

/* The page header at pos (pos < chunk_len) and its body; pos moves past the page. The body stays valid until the
 * next window move. */
static hoodie_status read_page(colr *c, hoodie_pq_page_header *h, const uint8_t **body)
{
    size_t left = c->chunk_len - c->pos, want = left < HEADER_PROBE ? left : HEADER_PROBE;
    c->page_off = c->chunk_off + c->pos;
    for (;;) {
        /* a header longer than the probe (large statistics) is decoded again from a larger window */
        const uint8_t *p;
        hoodie_cursor cur;
        HOODIE_TRY(window(c, want, &p));
        size_t avail = c->win_pos + c->win_len - c->pos;
        hoodie_cursor_init(&cur, p, avail, c->page_off, c->f->src.name);
        hoodie_arena_reset(c->hdr_arena);
        hoodie_status rc = hoodie_pq_page_header_decode(h, &cur, c->hdr_arena);
        if (rc == HOODIE_OK) { c->pos += (size_t)(cur.p - cur.base); break; }
        if (rc != HOODIE_ECORRUPT || avail >= left) return rc;
        hoodie_error_clear();
        want = avail * 2 < left ? avail * 2 : left;
    }
    if ((size_t)h->compressed_size > c->chunk_len - c->pos)
        return col_corrupt(c, "page of %d bytes overruns the column chunk", (int)h->compressed_size);
    if (h->uncompressed_size > MAX_PAGE_BYTES) return col_corrupt(c, "page of %d bytes", (int)h->uncompressed_size);
    HOODIE_TRY(window(c, (size_t)h->compressed_size, body));
    c->pos += (size_t)h->compressed_size;
    return HOODIE_OK;
}

/* ---- page index ---- */

/* Read `len` bytes at `off` (inside the file's data, before the footer) into the arena and decode them. */
static hoodie_status index_bytes(const hoodie_pq_file *f, int64_t off, int32_t len, hoodie_arena *a, const char *what,
                                 hoodie_cursor *cur)
{
    if (off < 4 || len <= 0 || (uint64_t)off > f->footer_off || (uint64_t)len > f->footer_off - (uint64_t)off)
        return HOODIE_CORRUPT("%s: %s at offset %lld length %d is outside the file", f->src.name, what, (long long)off,
                              (int)len);
    uint8_t *b = hoodie_arena_alloc(a, (size_t)len);
    if (!b) return HOODIE_NOMEM();
    HOODIE_TRY(f->src.read(f->src.ctx, (uint64_t)off, b, (size_t)len));
    hoodie_cursor_init(cur, b, (size_t)len, (uint64_t)off, f->src.name);
    return HOODIE_OK;
}

/* The OffsetIndex of leaf's chunk in rg, checked against the footer. */
static hoodie_status read_offset_index(const hoodie_pq_file *f, uint32_t rg, int leaf, hoodie_arena *arena,
                                       hoodie_pq_offset_index *oi)
{
    memset(oi, 0, sizeof *oi);
    if (rg >= f->meta.row_group_count || leaf < 0 || (size_t)leaf >= f->schema.n_leaves)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: no row group %u or leaf %d", f->src.name, rg, leaf);
    const hoodie_pq_row_group *g = &f->meta.row_groups[rg];
    const hoodie_pq_column_chunk *cc = &g->columns[leaf];
    if (!cc->has_offset_index || !cc->has_meta)
        return HOODIE_FAIL(HOODIE_ENOTFOUND, "%s: row group %u column %d has no page index", f->src.name, rg, leaf);
    hoodie_cursor cur;
    HOODIE_TRY(index_bytes(f, cc->offset_index_offset, cc->offset_index_length, arena, "OffsetIndex", &cur));
    HOODIE_TRY(hoodie_pq_offset_index_decode(oi, &cur, arena));
    const hoodie_pq_column_meta *m = &cc->meta;
    int64_t start = m->data_page_offset, end;
    if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 && m->dictionary_page_offset < start)
        start = m->dictionary_page_offset;
    if (hoodie_add_overflow(start, m->total_compressed_size, &end)) end = -1;
    for (uint32_t i = 0; i < oi->page_count; i++) {
        const hoodie_pq_page_location *pl = &oi->pages[i];
        if (pl->offset < start || pl->offset > end - pl->compressed_page_size || pl->first_row_index >= g->num_rows)
            return HOODIE_CORRUPT("%s: OffsetIndex at offset %lld: page %u (offset %lld, row %lld) is outside row group "
                                  "%u column %d", f->src.name, (long long)cc->offset_index_offset, i,
                                  (long long)pl->offset, (long long)pl->first_row_index, rg, leaf);
    }
    if (!oi->page_count && g->num_rows > 0)
        return HOODIE_CORRUPT("%s: OffsetIndex at offset %lld has no pages", f->src.name,
                              (long long)cc->offset_index_offset);
    return HOODIE_OK;
}

hoodie_status hoodie_pq_page_index_read(const hoodie_pq_file *f, uint32_t rg, int leaf, hoodie_arena *arena,
                                        hoodie_pq_page_index *out)
{
    memset(out, 0, sizeof *out);
    HOODIE_TRY(read_offset_index(f, rg, leaf, arena, &out->oi));
    const hoodie_pq_column_chunk *cc = &f->meta.row_groups[rg].columns[leaf];
    hoodie_cursor cur;
    if (!cc->has_column_index) return HOODIE_OK;
    HOODIE_TRY(index_bytes(f, cc->column_index_offset, cc->column_index_length, arena, "ColumnIndex", &cur));
    HOODIE_TRY(hoodie_pq_column_index_decode(&out->ci, &cur, arena));
    if (out->ci.page_count != out->oi.page_count)
        return HOODIE_CORRUPT("%s: ColumnIndex at offset %lld has %u pages, the OffsetIndex %u", f->src.name,
                              (long long)cc->column_index_offset, out->ci.page_count, out->oi.page_count);
    out->has_ci = 1;
    return HOODIE_OK;
}

hoodie_status hoodie_pq_chunk_extent(const hoodie_pq_file *f, uint32_t rg, int leaf, uint64_t *offset, size_t *len)
{
    const char *name = f->src.name ? f->src.name : "parquet";
    if (rg >= f->meta.row_group_count || leaf < 0 || (uint32_t)leaf >= f->meta.row_groups[rg].column_count)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: no row group %u or leaf %d", name, rg, leaf);
    const hoodie_pq_column_chunk *cc = &f->meta.row_groups[rg].columns[leaf];
    if (!cc->has_meta || cc->file_path)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: row group %u column %d is not stored in the file", name, rg, leaf);
    int64_t start, n;
    if (!chunk_extent(f, &cc->meta, &start, &n))
        return HOODIE_CORRUPT("%s: row group %u column %d chunk at offset %lld length %lld is outside the file", name,
                              rg, leaf, (long long)start, (long long)n);
    *offset = (uint64_t)start;
    *len = (size_t)n;
    return HOODIE_OK;
}

hoodie_status hoodie_pq_chunk_read(const hoodie_pq_file *f, uint32_t rg, int leaf, void *dst, size_t len)
{
    uint64_t off;
    size_t n;
    HOODIE_TRY(hoodie_pq_chunk_extent(f, rg, leaf, &off, &n));
    if (n != len)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: row group %u column %d holds %zu bytes, not %zu",
                           f->src.name ? f->src.name : "parquet", rg, leaf, n, len);
    return f->src.read(f->src.ctx, off, dst, len);
}

hoodie_status hoodie_pq_chunk_bytes(const hoodie_pq_file *f, uint32_t rg, int leaf, hoodie_buf *out,
                                   uint64_t *offset_out)
{
    size_t len;
    HOODIE_TRY(hoodie_pq_chunk_extent(f, rg, leaf, offset_out, &len));
    hoodie_buf_clear(out);
    HOODIE_TRY(hoodie_buf_reserve(out, len));
    HOODIE_TRY(f->src.read(f->src.ctx, *offset_out, out->data, len));
    out->len = len;
    return HOODIE_OK;
}

uint32_t hoodie_pq_page_index_find_row(const hoodie_pq_offset_index *oi, int64_t row)
{
    uint32_t lo = 0, hi = oi->page_count; /* first page whose first row is > row */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (oi->pages[mid].first_row_index <= row) lo = mid + 1;
        else hi = mid;
    }
    return lo ? lo - 1 : 0;
}

/* Load the next data page. *done = 1 at the end of the chunk. */
static hoodie_status load_page(colr *c, int *done)
{
    *done = 0;
    for (;;) {
        if (c->pos >= c->chunk_len) { *done = 1; return HOODIE_OK; }
        hoodie_pq_page_header h;
        const uint8_t *body;
        HOODIE_TRY(read_page(c, &h, &body));
        size_t clen = (size_t)h.compressed_size, ulen = (size_t)h.uncompressed_size;
        const uint8_t *p;
        if (h.type == HOODIE_PQ_DICTIONARY_PAGE) {
            HOODIE_TRY(page_body(c, body, clen, ulen, 1, &p));
            HOODIE_TRY(load_dict(c, &h, p, ulen));
            continue;
        }
        if (h.type == HOODIE_PQ_DATA_PAGE) {
            int32_t n = h.data.num_values;
            if (n < 0 || n > MAX_PAGE_VALUES) return col_corrupt(c, "page with %d values", (int)n);
            HOODIE_TRY(page_body(c, body, clen, ulen, 1, &p));
            const uint8_t *end = p + ulen;
            if (c->max_rep) {
                HOODIE_TRY(grow_fit(&c->rep, &c->rep_cap, (size_t)n * 2 + 2));
                HOODIE_TRY(levels_v1(c, &p, end, h.data.rep_encoding, c->rep, n, c->max_rep, "repetition", NULL));
            }
            c->page_full = 0;
            if (c->max_def) {
                HOODIE_TRY(grow_fit(&c->def, &c->def_cap, (size_t)n * 2 + 2));
                HOODIE_TRY(levels_v1(c, &p, end, h.data.def_encoding, c->def, n, c->max_def, "definition",
                                     &c->page_full));
            }
            c->page_n = n;
            c->page_i = 0;
            HOODIE_TRY(values_init(c, h.data.encoding, p, (size_t)(end - p)));
        } else if (h.type == HOODIE_PQ_DATA_PAGE_V2) {
            const hoodie_pq_data_page_v2_header *v = &h.data_v2;
            int32_t n = v->num_values;
            if (n < 0 || n > MAX_PAGE_VALUES) return col_corrupt(c, "page with %d values", (int)n);
            if (v->rep_levels_len < 0 || v->def_levels_len < 0 ||
                (uint64_t)v->rep_levels_len + (uint64_t)v->def_levels_len > clen ||
                (uint64_t)v->rep_levels_len + (uint64_t)v->def_levels_len > ulen)
                return col_corrupt(c, "level lengths exceed the page");
            size_t ll = (size_t)v->rep_levels_len + (size_t)v->def_levels_len;
            if (c->max_rep) {
                HOODIE_TRY(grow_fit(&c->rep, &c->rep_cap, (size_t)n * 2 + 2));
                HOODIE_TRY(decode_levels_rle(c, body, (size_t)v->rep_levels_len, c->rep, n, c->max_rep, "repetition", NULL));
            }
            c->page_full = 0;
            if (c->max_def) {
                HOODIE_TRY(grow_fit(&c->def, &c->def_cap, (size_t)n * 2 + 2));
                HOODIE_TRY(decode_levels_rle(c, body + v->rep_levels_len, (size_t)v->def_levels_len, c->def, n,
                                             c->max_def, "definition", &c->page_full));
            }
            HOODIE_TRY(page_body(c, body + ll, clen - ll, ulen - ll, v->is_compressed, &p));
            c->page_n = n;
            c->page_i = 0;
            HOODIE_TRY(values_init(c, v->encoding, p, ulen - ll));
        } else {
            continue; /* index pages and unknown page types are skipped */
        }
        return HOODIE_OK;
    }
}

/* ---- value decoding into the leaf array (dense) ---- */

static hoodie_status reserve_fixed(hoodie_array *a, size_t count, size_t width)
{
    size_t need;
    if (hoodie_mul_overflow(count, width, &need)) return HOODIE_NOMEM();
    return grow(&a->values, &a->values_cap, need ? need : 1);
}

static hoodie_status get_indices(colr *c, size_t nv)
{
    HOODIE_TRY(grow(&c->idx, &c->idx_cap, nv * 4 + 4));
    size_t got = hoodie_pq_rle_get_u32(&c->rle, c->idx, nv);
    if (got != nv) return col_corrupt(c, "%zu of %zu dictionary indices decoded", got, nv);
    return HOODIE_OK;
}

static hoodie_status append_var(hoodie_array *a, int64_t base, const uint8_t *src, size_t len)
{
    (void)base;
    HOODIE_TRY(grow(&a->values, &a->values_cap, a->values_len + len + 1));
    memcpy(a->values + a->values_len, src, len);
    a->values_len += len;
    return HOODIE_OK;
}

static hoodie_status decode_values(colr *c, hoodie_array *a, int64_t base, size_t nv)
{
    if (nv == 0) return HOODIE_OK;
    switch (c->venc) {
    case V_PLAIN_FIXED: {
        size_t need = nv * c->pw;
        if ((size_t)(c->vend - c->vp) < need) return col_corrupt(c, "values truncated");
        if (c->out == OUT_VAR) {
            /* FIXED_LEN_BYTE_ARRAY read as binary would land here; not produced by the schema mapping. */
            return col_corrupt(c, "fixed values for a variable-width column");
        }
        HOODIE_TRY(reserve_fixed(a, (size_t)base + nv, c->ow));
        convert_fixed(c, c->vp, a->values + (size_t)base * c->ow, nv);
        c->vp += need;
        return HOODIE_OK;
    }
    case V_PLAIN_BOOL: {
        uint64_t avail = (uint64_t)(c->vend - c->vp) * 8;
        if (c->vbit + nv > avail) return col_corrupt(c, "boolean values truncated");
        HOODIE_TRY(grow(&a->values, &a->values_cap, ((size_t)base + nv + 7) / 8 + 1));
        hoodie_pq_copy_bits(c->vp, c->vbit, a->values, (uint64_t)base, nv);
        c->vbit += nv;
        return HOODIE_OK;
    }
    case V_RLE_BOOL: {
        HOODIE_TRY(get_indices(c, nv));
        HOODIE_TRY(grow(&a->values, &a->values_cap, ((size_t)base + nv + 7) / 8 + 1));
        for (size_t i = 0; i < nv; i++) {
            uint64_t t = (uint64_t)base + i;
            if (c->idx[i]) a->values[t >> 3] |= (uint8_t)(1u << (t & 7));
            else a->values[t >> 3] &= (uint8_t)~(1u << (t & 7));
        }
        return HOODIE_OK;
    }
    case V_DICT: {
        HOODIE_TRY(get_indices(c, nv));
        const uint32_t *idx = c->idx, dn = c->dict_n;
        uint32_t bad = 0;
        for (size_t i = 0; i < nv; i++) bad |= idx[i] >= dn;
        if (bad) return col_corrupt(c, "dictionary index out of range (dictionary has %u values)", dn);
        if (c->out == OUT_FIXED) {
            HOODIE_TRY(reserve_fixed(a, (size_t)base + nv, c->ow));
            uint8_t *dst = a->values + (size_t)base * c->ow;
            const uint8_t *dict = c->dict_fixed;
            switch (c->ow) {
            case 4: {
                uint32_t *d = (uint32_t *)(void *)dst;
                const uint32_t *sv = (const uint32_t *)(const void *)dict;
                for (size_t i = 0; i < nv; i++) d[i] = sv[idx[i]];
                break;
            }
            case 8: {
                uint64_t *d = (uint64_t *)(void *)dst;
                const uint64_t *sv = (const uint64_t *)(const void *)dict;
                for (size_t i = 0; i < nv; i++) d[i] = sv[idx[i]];
                break;
            }
            default: {
                size_t w = c->ow;
                for (size_t i = 0; i < nv; i++) memcpy(dst + i * w, dict + (size_t)idx[i] * w, w);
            }
            }
            return HOODIE_OK;
        }
        if (c->out == OUT_VAR) {
            const int32_t *doff = c->dict_off;
            size_t total = 0;
            for (size_t i = 0; i < nv; i++) total += (size_t)(doff[idx[i] + 1] - doff[idx[i]]);
            if (a->values_len + total > INT32_MAX) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: batch exceeds 2 GiB of bytes", c->what);
            /* 16 bytes of slack on both sides let short values be copied in fixed 16-byte steps. */
            HOODIE_TRY(grow(&a->values, &a->values_cap, a->values_len + total + 16));
            int32_t *off = a->offsets + base;
            uint8_t *dst = a->values;
            const uint8_t *dd = c->dict_data;
            size_t o = a->values_len;
            for (size_t i = 0; i < nv; i++) {
                int32_t s = doff[idx[i]], l = doff[idx[i] + 1] - s;
                if (l <= 16) {
                    memcpy(dst + o, dd + s, 16);
                } else {
                    memcpy(dst + o, dd + s, (size_t)l);
                }
                o += (size_t)l;
                off[i + 1] = (int32_t)o;
            }
            a->values_len = o;
            return HOODIE_OK;
        }
        return col_corrupt(c, "dictionary for a boolean column");
    }
    case V_PLAIN_BA: {
        const uint8_t *p = c->vp, *end = c->vend;
        if (c->out == OUT_FIXED) { /* decimal on BYTE_ARRAY */
            HOODIE_TRY(reserve_fixed(a, (size_t)base + nv, 16));
            for (size_t i = 0; i < nv; i++) {
                if (end - p < 4) return col_corrupt(c, "byte array values truncated");
                uint32_t l = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
                p += 4;
                if (l > (size_t)(end - p) || l > 16) return col_corrupt(c, "bad decimal of %u bytes", l);
                be_to_dec16(p, l, a->values + ((size_t)base + i) * 16);
                p += l;
            }
            c->vp = p;
            return HOODIE_OK;
        }
        /* the values' bytes first (lengths checked), then one reservation for them */
        size_t room = 0;
        const uint8_t *q = p;
        for (size_t i = 0; i < nv && end - q >= 4; i++) {
            uint32_t l = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
            if (l > (size_t)(end - q) - 4) break; /* reported below */
            room += l;
            q += 4 + (size_t)l;
        }
        HOODIE_TRY(grow(&a->values, &a->values_cap, a->values_len + room + 33));
        int32_t *off = a->offsets + base;
        uint8_t *dst = a->values;
        size_t o = a->values_len;
        for (size_t i = 0; i < nv; i++) {
            if (end - p < 4) return col_corrupt(c, "byte array values truncated");
            uint32_t l = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            p += 4;
            if (l > (size_t)(end - p)) return col_corrupt(c, "byte array of %u bytes overruns the page", l);
            if (o + l > INT32_MAX) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: batch exceeds 2 GiB of bytes", c->what);
            /* short values in fixed 16/32-byte steps when both buffers have the slack: no call per value */
            if (l <= 32 && end - p >= 32 && a->values_cap - o >= 32) {
                memcpy(dst + o, p, 16);
                if (l > 16) memcpy(dst + o + 16, p + 16, 16);
            } else {
                memcpy(dst + o, p, l);
            }
            p += l;
            o += l;
            off[i + 1] = (int32_t)o;
        }
        a->values_len = o;
        c->vp = p;
        return HOODIE_OK;
    }
    case V_MAT_BA: {
        const int32_t *mo = c->mat_off + c->mat_i;
        size_t total = (size_t)(mo[nv] - mo[0]);
        if (c->out == OUT_FIXED) {
            HOODIE_TRY(reserve_fixed(a, (size_t)base + nv, 16));
            for (size_t i = 0; i < nv; i++) {
                size_t l = (size_t)(mo[i + 1] - mo[i]);
                if (l > 16) return col_corrupt(c, "bad decimal of %zu bytes", l);
                be_to_dec16(c->mat_data + mo[i], l, a->values + ((size_t)base + i) * 16);
            }
            c->mat_i += nv;
            return HOODIE_OK;
        }
        if (a->values_len + total > INT32_MAX) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: batch exceeds 2 GiB of bytes", c->what);
        HOODIE_TRY(append_var(a, base, c->mat_data + mo[0], total));
        int32_t *off = a->offsets + base;
        int32_t shift = off[0] - mo[0];
        for (size_t i = 1; i <= nv; i++) off[i] = mo[i] + shift;
        c->mat_i += nv;
        return HOODIE_OK;
    }
    }
    return HOODIE_OK;
}

/*
 * Append the next `nrows` rows of this column to lb and (dense values) to a. *rows_out: rows read.
 */
static hoodie_status colr_read_rows(colr *c, int64_t nrows, lbuf *lb, hoodie_array *a, int64_t *rows_out)
{
    int64_t rows = 0;
    for (;;) {
        if (c->max_rep == 0 && rows >= nrows) break;
        if (c->page_i >= c->page_n) {
            int done;
            HOODIE_TRY(load_page(c, &done));
            if (done) break;
            continue;
        }
        int32_t start = c->page_i, end;
        if (c->max_rep == 0) {
            if (rows >= nrows) break;
            int64_t take = c->page_n - start;
            if (take > nrows - rows) take = nrows - rows;
            end = start + (int32_t)take;
            rows += take;
        } else {
            const int16_t *rep = c->rep;
            int32_t i = start;
            if (lb->n == 0 && rep[i] != 0) return col_corrupt(c, "batch starts inside a row");
            while (i < c->page_n) {
                if (rep[i] == 0) {
                    if (rows == nrows) break;
                    rows++;
                }
                i++;
            }
            end = i;
            if (end == start) break;
        }
        size_t k = (size_t)(end - start);
        if (lb->n + k > INT32_MAX) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: batch has too many values", c->what);
        if (c->max_def) {
            HOODIE_TRY(grow(&lb->def, &lb->def_cap, (lb->n + k) * 2));
            memcpy(lb->def + lb->n, c->def + start, k * 2);
            lb->partial |= !c->page_full;
        }
        if (c->max_rep) {
            HOODIE_TRY(grow(&lb->rep, &lb->rep_cap, (lb->n + k) * 2));
            memcpy(lb->rep + lb->n, c->rep + start, k * 2);
        }
        size_t nv = (size_t)count_present(c, start, end);
        if (c->out == OUT_VAR) {
            HOODIE_TRY(grow(&a->offsets, &a->offsets_cap, ((size_t)lb->nvals + nv + 1) * 4));
            if (lb->nvals == 0) a->offsets[0] = 0;
        }
        HOODIE_TRY(decode_values(c, a, lb->nvals, nv));
        lb->nvals += (int64_t)nv;
        lb->n += k;
        c->page_i = end;
    }
    *rows_out = rows;
    return HOODIE_OK;
}

/* Drop the next n values of the page's value decoder without materializing them. */
static hoodie_status skip_values(colr *c, size_t nv)
{
    if (nv == 0) return HOODIE_OK;
    switch (c->venc) {
    case V_PLAIN_FIXED:
        if ((size_t)(c->vend - c->vp) < nv * c->pw) return col_corrupt(c, "values truncated");
        c->vp += nv * c->pw;
        return HOODIE_OK;
    case V_PLAIN_BOOL:
        if (c->vbit + nv > (uint64_t)(c->vend - c->vp) * 8) return col_corrupt(c, "boolean values truncated");
        c->vbit += nv;
        return HOODIE_OK;
    case V_RLE_BOOL:
    case V_DICT:
        return get_indices(c, nv);
    case V_PLAIN_BA:
        for (size_t i = 0; i < nv; i++) {
            if (c->vend - c->vp < 4) return col_corrupt(c, "byte array values truncated");
            uint32_t l = (uint32_t)c->vp[0] | (uint32_t)c->vp[1] << 8 | (uint32_t)c->vp[2] << 16 | (uint32_t)c->vp[3] << 24;
            if (l > (size_t)(c->vend - c->vp) - 4) return col_corrupt(c, "byte array of %u bytes overruns the page", l);
            c->vp += 4 + (size_t)l;
        }
        return HOODIE_OK;
    case V_MAT_BA:
        c->mat_i += nv;
        return HOODIE_OK;
    }
    return HOODIE_OK;
}

/* Skip the next n rows of a flat column (no repetition). */
static hoodie_status skip_rows_flat(colr *c, int64_t n)
{
    while (n > 0) {
        if (c->page_i >= c->page_n) {
            int done;
            HOODIE_TRY(load_page(c, &done));
            if (done) return col_corrupt(c, "column chunk ends %lld rows early", (long long)n);
            continue;
        }
        int32_t take = c->page_n - c->page_i;
        if (take > n) take = (int32_t)n;
        HOODIE_TRY(skip_values(c, (size_t)count_present(c, c->page_i, c->page_i + take)));
        c->page_i += take;
        n -= take;
    }
    return HOODIE_OK;
}

/* 1 if the chunk of row group rg may start with a dictionary page. */
static int chunk_has_dict(const colr *c, uint32_t rg)
{
    const hoodie_pq_column_meta *m = &c->f->meta.row_groups[rg].columns[c->leaf].meta;
    if (m->has_dictionary_page_offset) return 1;
    for (uint32_t i = 0; i < m->encoding_count; i++)
        if (m->encodings[i] == HOODIE_PQ_PLAIN_DICTIONARY || m->encodings[i] == HOODIE_PQ_RLE_DICTIONARY) return 1;
    return 0;
}

/* Position the chunk (just opened) at row `row` of row group `rg`: jump to the page holding it through the
 * OffsetIndex (the dictionary page is loaded first), then decode and drop the rows before it in that page. A chunk
 * without a usable OffsetIndex is read from its start. */
static hoodie_status colr_seek(colr *c, uint32_t rg, int64_t row)
{
    int64_t at = 0;
    hoodie_pq_offset_index oi;
    hoodie_arena_reset(c->hdr_arena);
    hoodie_status rc = read_offset_index(c->f, rg, c->leaf, c->hdr_arena, &oi);
    if (rc == HOODIE_OK && oi.page_count) {
        hoodie_pq_page_location loc = oi.pages[hoodie_pq_page_index_find_row(&oi, row)];
        if (loc.first_row_index > 0) {
            size_t target = (size_t)((uint64_t)loc.offset - c->chunk_off);
            hoodie_pq_page_header h;
            const uint8_t *body, *p;
            c->pos = target;
            HOODIE_TRY(read_page(c, &h, &body));
            hoodie_pq_encoding enc = h.type == HOODIE_PQ_DATA_PAGE_V2 ? h.data_v2.encoding : h.data.encoding;
            if ((enc == HOODIE_PQ_PLAIN_DICTIONARY || enc == HOODIE_PQ_RLE_DICTIONARY) && chunk_has_dict(c, rg)) {
                /* a dictionary-encoded page: load the dictionary page the chunk starts with */
                c->pos = 0;
                HOODIE_TRY(read_page(c, &h, &body));
                if (h.type == HOODIE_PQ_DICTIONARY_PAGE) {
                    HOODIE_TRY(page_body(c, body, (size_t)h.compressed_size, (size_t)h.uncompressed_size, 1, &p));
                    HOODIE_TRY(load_dict(c, &h, p, (size_t)h.uncompressed_size));
                }
            }
            c->pos = target;
            at = loc.first_row_index;
        }
    } else if (rc < 0 && rc != HOODIE_ENOTFOUND && rc != HOODIE_ECORRUPT) {
        return rc;
    } else {
        hoodie_error_clear(); /* no or a broken page index: read from the start */
    }
    if (row <= at) return HOODIE_OK;
    if (c->max_rep == 0) return skip_rows_flat(c, row - at);
    lbuf lb = { 0 };
    hoodie_array a;
    int64_t got = 0;
    memset(&a, 0, sizeof a);
    rc = colr_read_rows(c, row - at, &lb, &a, &got);
    if (rc == HOODIE_OK && got != row - at)
        rc = col_corrupt(c, "row group %u ends before row %lld", rg, (long long)row);
    free(lb.def);
    free(lb.rep);
    free(a.values);
    free(a.offsets);
    free(a.validity);
    return rc;
}

/* ---- assembly ---- */

typedef struct hoodie_pq_scan_leaf {
    int leaf;
    colr cr;
    lbuf lb;
    hoodie_array *arr;   /* in the current batch */
    size_t last_bytes;   /* variable-width values of the previous batch, and its rows: the next batch's bytes are */
    int64_t last_rows;   /* reserved from them at once instead of doubling up from nothing */
} scan_leaf;

struct hoodie_pq_scan {
    hoodie_pq_file *f;
    hoodie_field root;
    hoodie_pq_node node;
    uint32_t *rgs;
    size_t n_rgs, rg_i;
    int64_t rg_rows_left;
    int rg_open;
    int64_t batch_rows;
    int64_t first_row;    /* rows to skip in the first row group */
    size_t n_leaves;
    scan_leaf *leaves;
    int *leaf_slot;       /* leaf index -> index in leaves, or -1 */
    hoodie_status poisoned;
};

static inline int16_t lvl(const int16_t *a, size_t i) { return a ? a[i] : 0; }

/* Validity for a node's slots: returns slot count; *nulls set. bitmap NULL when all valid. */
static hoodie_status node_slots(const hoodie_pq_node *n, const lbuf *lb, hoodie_array *a, int64_t *nslots_out)
{
    const int16_t *def = lb->def, *rep = lb->rep;
    size_t ne = lb->n;
    int64_t ns = 0, nulls = 0;
    int all_slots = rep == NULL && (def == NULL || n->def_slot == 0);
    if (all_slots) ns = (int64_t)ne;
    else for (size_t i = 0; i < ne; i++) ns += lvl(rep, i) <= n->rep && lvl(def, i) >= n->def_slot;
    if (def && n->def_valid > 0 && lb->partial) { /* else every level is the maximum: nothing null */
        HOODIE_TRY(grow(&a->validity, &a->validity_cap, ((size_t)ns + 7) / 8 + 1));
        memset(a->validity, 0, ((size_t)ns + 7) / 8 + 1);
        uint8_t *v = a->validity;
        int64_t s = 0;
        const int16_t dv = n->def_valid;
        if (all_slots) {
            size_t i = 0;
            for (; i + 8 <= ne; i += 8) {
                const int16_t *d8 = def + i;
                v[i >> 3] = (uint8_t)((d8[0] >= dv) | (d8[1] >= dv) << 1 | (d8[2] >= dv) << 2 | (d8[3] >= dv) << 3 |
                                      (d8[4] >= dv) << 4 | (d8[5] >= dv) << 5 | (d8[6] >= dv) << 6 | (d8[7] >= dv) << 7);
            }
            for (; i < ne; i++) v[i >> 3] |= (uint8_t)((def[i] >= dv) << (i & 7));
        } else {
            for (size_t i = 0; i < ne; i++) {
                if (!(lvl(rep, i) <= n->rep && def[i] >= n->def_slot)) continue;
                v[s >> 3] |= (uint8_t)((def[i] >= dv) << (s & 7));
                s++;
            }
        }
        nulls = ns - hoodie_bits_count(v, 0, ns);
        if (nulls == 0) { free(a->validity); a->validity = NULL; a->validity_cap = 0; }
    }
    a->length = ns;
    a->null_count = nulls;
    *nslots_out = ns;
    return HOODIE_OK;
}

static hoodie_status scatter_leaf(const scan_leaf *sl, hoodie_array *a, int64_t ns)
{
    const colr *c = &sl->cr;
    int64_t nv = sl->lb.nvals;
    if (nv + a->null_count != ns) return col_corrupt((colr *)c, "%lld values for %lld slots with %lld nulls",
                                                     (long long)nv, (long long)ns, (long long)a->null_count);
    if (c->out == OUT_VAR) {
        HOODIE_TRY(grow(&a->offsets, &a->offsets_cap, ((size_t)ns + 1) * 4));
        if (nv == 0) a->offsets[0] = 0;
        if (ns != nv) {
            int32_t *off = a->offsets;
            int64_t k = nv;
            for (int64_t s = ns - 1; s >= 0; s--) {
                off[s + 1] = off[k];
                if (hoodie_bit_get(a->validity, s)) k--;
            }
        }
        return HOODIE_OK;
    }
    if (ns == nv) return HOODIE_OK;
    if (c->out == OUT_BOOL) {
        HOODIE_TRY(grow(&a->values, &a->values_cap, ((size_t)ns + 7) / 8 + 1));
        int64_t k = nv;
        for (int64_t s = ns - 1; s >= 0; s--) {
            if (hoodie_bit_get(a->validity, s)) {
                k--;
                if (hoodie_bit_get(a->values, k)) hoodie_bit_set(a->values, s); else hoodie_bit_clear(a->values, s);
            } else {
                hoodie_bit_clear(a->values, s);
            }
        }
        return HOODIE_OK;
    }
    size_t w = c->ow;
    HOODIE_TRY(reserve_fixed(a, (size_t)ns, w));
    uint8_t *v = a->values;
    int64_t k = nv;
    switch (w) {
    case 4: {
        uint32_t *x = (uint32_t *)(void *)v;
        for (int64_t s = ns - 1; s >= 0; s--) {
            if (hoodie_bit_get(a->validity, s)) x[s] = x[--k]; else x[s] = 0;
        }
        break;
    }
    case 8: {
        uint64_t *x = (uint64_t *)(void *)v;
        for (int64_t s = ns - 1; s >= 0; s--) {
            if (hoodie_bit_get(a->validity, s)) x[s] = x[--k]; else x[s] = 0;
        }
        break;
    }
    default:
        for (int64_t s = ns - 1; s >= 0; s--) {
            if (hoodie_bit_get(a->validity, s)) { k--; memmove(v + (size_t)s * w, v + (size_t)k * w, w); }
            else memset(v + (size_t)s * w, 0, w);
        }
    }
    return HOODIE_OK;
}

static hoodie_status assemble(hoodie_pq_scan *s, const hoodie_pq_node *n, hoodie_array *a)
{
    if (n->leaf < 0) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: nested field without columns", s->f->src.name);
    scan_leaf *sl = &s->leaves[s->leaf_slot[n->leaf]];
    const lbuf *lb = &sl->lb;
    int64_t ns;
    HOODIE_TRY(node_slots(n, lb, a, &ns));
    switch (n->kind) {
    case HOODIE_PQ_NODE_LEAF:
        return scatter_leaf(sl, a, ns);
    case HOODIE_PQ_NODE_STRUCT:
        for (size_t i = 0; i < n->n_children; i++) {
            HOODIE_TRY(assemble(s, &n->children[i], &a->children[i]));
            if (a->children[i].length != ns)
                return HOODIE_CORRUPT("%s: struct child %zu has %lld values for %lld rows (inconsistent levels)",
                                      s->f->src.name, i, (long long)a->children[i].length, (long long)ns);
        }
        return HOODIE_OK;
    case HOODIE_PQ_NODE_LIST:
    case HOODIE_PQ_NODE_MAP: {
        const hoodie_pq_node *e = &n->children[0];
        const int16_t *def = lb->def, *rep = lb->rep;
        HOODIE_TRY(grow(&a->offsets, &a->offsets_cap, ((size_t)ns + 1) * 4));
        int32_t *off = a->offsets;
        int64_t slot = 0, elems = 0;
        for (size_t i = 0; i < lb->n; i++) {
            int16_t r = lvl(rep, i), d = lvl(def, i);
            if (r <= n->rep && d >= n->def_slot) off[slot++] = (int32_t)elems;
            if (r <= e->rep && d >= e->def_slot) elems++;
        }
        off[ns] = (int32_t)elems;
        HOODIE_TRY(assemble(s, e, &a->children[0]));
        if (a->children[0].length != elems)
            return HOODIE_CORRUPT("%s: list has %lld elements, its child %lld (inconsistent levels)", s->f->src.name,
                                  (long long)elems, (long long)a->children[0].length);
        return HOODIE_OK;
    }
    }
    return HOODIE_OK;
}

/* ---- file ---- */

static hoodie_status mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    hoodie_pq_mem *m = ctx;
    if (off > m->len || len > m->len - off) return HOODIE_CORRUPT("read past the end of an embedded Parquet file");
    memcpy(buf, m->p + off, len);
    return HOODIE_OK;
}

void hoodie_pq_source_mem(hoodie_pq_source *src, hoodie_pq_mem *m, const uint8_t *data, size_t len, const char *name)
{
    m->p = data, m->len = len;
    *src = (hoodie_pq_source){ m, mem_read, len, name, NULL };
}

hoodie_status hoodie_pq_file_open(hoodie_pq_file **out, const hoodie_pq_source *src)
{
    hoodie_status rc;
    uint8_t tail[8], head[4];
    const char *name = src->name ? src->name : "parquet";
    *out = NULL;
    if (src->size < 12)
        return HOODIE_CORRUPT("%s: %llu bytes is too short for a Parquet file (truncated at offset %llu; a file needs at least 12)",
                              name, (unsigned long long)src->size, (unsigned long long)src->size);
    HOODIE_TRY(src->read(src->ctx, src->size - 8, tail, 8));
    if (!memcmp(tail + 4, "PARE", 4)) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: encrypted Parquet footer", name);
    if (memcmp(tail + 4, "PAR1", 4)) return HOODIE_CORRUPT("%s: no PAR1 magic at offset %llu", name, (unsigned long long)(src->size - 4));
    if (src->will_read) { /* those 4 bytes alone: a store need not fetch what follows them for this */
        uint64_t o = 0;
        size_t l = 4;
        src->will_read(src->ctx, &o, &l, 1);
    }
    HOODIE_TRY(src->read(src->ctx, 0, head, 4));
    if (memcmp(head, "PAR1", 4)) return HOODIE_CORRUPT("%s: no PAR1 magic at offset 0", name);
    uint64_t flen = (uint64_t)tail[0] | (uint64_t)tail[1] << 8 | (uint64_t)tail[2] << 16 | (uint64_t)tail[3] << 24;
    if (flen == 0 || flen > src->size - 12 || flen > MAX_FOOTER_LEN)
        return HOODIE_CORRUPT("%s: footer length %llu at offset %llu does not fit the file", name,
                              (unsigned long long)flen, (unsigned long long)(src->size - 8));
    hoodie_pq_file *f = calloc(1, sizeof *f);
    if (!f) return HOODIE_NOMEM();
    f->src = *src;
    f->src.name = name;
    f->footer_off = src->size - 8 - flen;
    uint8_t *fb = malloc((size_t)flen);
    if (!fb) { free(f); return HOODIE_NOMEM(); }
    HOODIE_TRY_GOTO(rc, src->read(src->ctx, f->footer_off, fb, (size_t)flen), fail);
    HOODIE_TRY_GOTO(rc, hoodie_arena_new(&f->arena, NULL, 64 * 1024), fail);
    hoodie_cursor c;
    hoodie_cursor_init(&c, fb, (size_t)flen, f->footer_off, name);
    HOODIE_TRY_GOTO(rc, hoodie_pq_file_meta_decode_ex(&f->meta, &c, f->arena, KV_DEFER_OVER), fail);
    HOODIE_TRY_GOTO(rc, hoodie_pq_schema_build(&f->schema, &f->meta, name), fail);
    int64_t total = 0;
    for (uint32_t i = 0; i < f->meta.row_group_count; i++) {
        const hoodie_pq_row_group *g = &f->meta.row_groups[i];
        if (g->column_count != f->schema.n_leaves) {
            rc = HOODIE_CORRUPT("%s: row group %u has %u columns, the schema %zu leaves (footer at offset %llu)", name,
                                i, g->column_count, f->schema.n_leaves, (unsigned long long)f->footer_off);
            goto fail;
        }
        if (hoodie_add_overflow(total, g->num_rows, &total)) {
            rc = HOODIE_CORRUPT("%s: row counts overflow", name);
            goto fail;
        }
    }
    free(fb);
    *out = f;
    return HOODIE_OK;
fail:
    free(fb);
    hoodie_pq_file_free(f);
    return rc;
}

void hoodie_pq_file_free(hoodie_pq_file *f)
{
    if (!f) return;
    hoodie_pq_schema_dispose(&f->schema);
    hoodie_arena_free(f->arena);
    free(f);
}

/* What a group holds, for the paths of hoodie_pq_file_rename: its fields, a list's repeated level, the element
 * under a 3-level list's repeated level, a map's key-value level. */
enum { RN_FIELDS, RN_LIST, RN_LIST_REPEATED, RN_MAP, RN_MAP_KV };

static int rn_kind(const hoodie_pq_file_meta *m, uint32_t i)
{
    const hoodie_pq_schema_element *e = &m->schema[i];
    if (e->num_children != 1) return RN_FIELDS;
    if (e->logical.kind == HOODIE_PQ_LT_LIST || e->converted == HOODIE_PQ_CT_LIST) return RN_LIST;
    if ((e->logical.kind == HOODIE_PQ_LT_MAP || e->converted == HOODIE_PQ_CT_MAP ||
         e->converted == HOODIE_PQ_CT_MAP_KEY_VALUE) && i + 1 < m->schema_count && m->schema[i + 1].num_children == 2)
        return RN_MAP;
    return RN_FIELDS;
}

hoodie_status hoodie_pq_file_rename(hoodie_pq_file *f, const char *const *from, const char *const *to, size_t n)
{
    if (!n) return HOODIE_OK;
    hoodie_pq_file_meta *m = &f->meta;
    char **names = calloc(m->schema_count + 1, sizeof *names);
    if (!names) return HOODIE_NOMEM();
    /* depth-first: each element's dotted path of the names as stored, through a list's element as "element" and a
     * map's key and value by their names, the levels that repeat them left out (Hudi's full names: "a.element.x");
     * all renames at once (a swap stays a swap) */
    enum { MAX_DEPTH = 64 };
    int32_t left[MAX_DEPTH];
    size_t plen[MAX_DEPTH];
    int kind[MAX_DEPTH];
    const char *owner[MAX_DEPTH];
    char path[2048];
    int depth = 0;
    hoodie_status rc = HOODIE_OK;
    left[0] = m->schema_count ? m->schema[0].num_children : 0;
    plen[0] = 0;
    kind[0] = RN_FIELDS;
    owner[0] = "";
    for (uint32_t i = 1; i < m->schema_count && rc == HOODIE_OK; i++) {
        while (depth > 0 && left[depth] <= 0) depth--;
        left[depth]--;
        const hoodie_pq_schema_element *el = &m->schema[i];
        names[i] = el->name;
        const char *step = el->name ? el->name : "";
        int own = rn_kind(m, i);
        if (kind[depth] == RN_LIST) { /* the repeated level: the element (2-level), or what holds it (3-level) */
            char tuple[512];
            snprintf(tuple, sizeof tuple, "%s_tuple", owner[depth]);
            int elem = el->num_children != 1 || !strcmp(step, "array") || !strcmp(step, tuple);
            if (elem) step = "element";
            else step = NULL, own = RN_LIST_REPEATED;
        } else if (kind[depth] == RN_LIST_REPEATED) {
            step = "element";
        } else if (kind[depth] == RN_MAP) {
            step = NULL, own = RN_MAP_KV;
        }
        int len = step ? snprintf(path + plen[depth], sizeof path - plen[depth], "%s%s", plen[depth] ? "." : "", step)
                       : 0;
        int fits = len >= 0 && (size_t)len < sizeof path - plen[depth];
        for (size_t r = 0; step && fits && r < n; r++)
            if (!strcmp(path, from[r])) {
                if (!(names[i] = hoodie_arena_strdup(f->arena, to[r]))) rc = HOODIE_NOMEM();
                break;
            }
        if (el->num_children > 0) {
            if (depth + 1 >= MAX_DEPTH || !fits) {
                rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: columns nested too deep to rename", f->src.name);
                break;
            }
            depth++;
            left[depth] = el->num_children;
            plen[depth] = plen[depth - 1] + (size_t)len;
            kind[depth] = own;
            owner[depth] = el->name ? el->name : "";
        }
    }
    if (rc == HOODIE_OK)
        for (uint32_t i = 1; i < m->schema_count; i++) m->schema[i].name = names[i];
    free(names);
    if (rc < 0) return rc;
    hoodie_pq_schema_dispose(&f->schema);
    memset(&f->schema, 0, sizeof f->schema);
    return hoodie_pq_schema_build(&f->schema, m, f->src.name);
}

const hoodie_pq_file_meta *hoodie_pq_file_metadata(const hoodie_pq_file *f) { return &f->meta; }
const hoodie_pq_schema *hoodie_pq_file_schema(const hoodie_pq_file *f) { return &f->schema; }
const char *hoodie_pq_file_name(const hoodie_pq_file *f) { return f->src.name; }

const char *hoodie_pq_file_kv_at(hoodie_pq_file *f, uint32_t i)
{
    if (i >= f->meta.kv_count) return NULL;
    hoodie_pq_kv *kv = &f->meta.kv[i];
    if (!kv->value_deferred || kv->value) return kv->value;
    char *v = hoodie_arena_alloc(f->arena, (size_t)kv->value_len + 1);
    if (!v) { (void)HOODIE_NOMEM(); return NULL; }
    if (f->src.read(f->src.ctx, kv->value_off, v, kv->value_len) < 0) return NULL;
    v[kv->value_len] = 0;
    kv->value = v;
    return v;
}

const char *hoodie_pq_file_kv(hoodie_pq_file *f, const char *key)
{
    for (uint32_t i = 0; i < f->meta.kv_count; i++)
        if (f->meta.kv[i].key && !strcmp(f->meta.kv[i].key, key)) return hoodie_pq_file_kv_at(f, i);
    return NULL;
}

/* ---- scan ---- */

static void collect_leaves(const hoodie_pq_node *n, int *mark)
{
    if (n->kind == HOODIE_PQ_NODE_LEAF) { mark[n->leaf] = 1; return; }
    for (size_t i = 0; i < n->n_children; i++) collect_leaves(&n->children[i], mark);
}

void hoodie_pq_scan_free(hoodie_pq_scan *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n_leaves; i++) {
        colr_dispose(&s->leaves[i].cr);
        free(s->leaves[i].lb.def);
        free(s->leaves[i].lb.rep);
    }
    free(s->leaves);
    free(s->leaf_slot);
    free(s->rgs);
    hoodie_field_dispose(&s->root);
    hoodie_pq_node_dispose(&s->node);
    free(s);
}

hoodie_status hoodie_pq_scan_open(hoodie_pq_scan **out, hoodie_pq_file *f, const hoodie_pq_scan_opts *opts)
{
    hoodie_status rc = HOODIE_OK;
    hoodie_pq_scan_opts def = { 0 };
    if (!opts) opts = &def;
    *out = NULL;
    hoodie_pq_scan *s = calloc(1, sizeof *s);
    if (!s) return HOODIE_NOMEM();
    s->f = f;
    s->batch_rows = opts->batch_rows > 0 ? opts->batch_rows : 65536;
    s->first_row = opts->first_row > 0 ? opts->first_row : 0;
    HOODIE_TRY_GOTO(rc, hoodie_pq_schema_project(&s->root, &s->node, &f->schema, opts->columns, opts->n_columns), fail);
    size_t nl = f->schema.n_leaves;
    s->leaf_slot = malloc((nl ? nl : 1) * sizeof *s->leaf_slot);
    int *mark = calloc(nl ? nl : 1, sizeof *mark);
    if (!s->leaf_slot || !mark) { free(mark); rc = HOODIE_NOMEM(); goto fail; }
    collect_leaves(&s->node, mark);
    for (size_t i = 0; i < nl; i++) { s->leaf_slot[i] = -1; s->n_leaves += mark[i] != 0; }
    s->leaves = calloc(s->n_leaves ? s->n_leaves : 1, sizeof *s->leaves);
    if (!s->leaves) { free(mark); rc = HOODIE_NOMEM(); goto fail; }
    size_t k = 0;
    for (size_t i = 0; i < nl; i++) {
        if (!mark[i]) continue;
        s->leaf_slot[i] = (int)k;
        s->leaves[k].leaf = (int)i;
        rc = colr_setup(&s->leaves[k].cr, f, (int)i);
        k++;
        if (rc < 0) break;
    }
    free(mark);
    if (rc < 0) goto fail;
    if (opts->row_groups) {
        s->rgs = malloc((opts->n_row_groups ? opts->n_row_groups : 1) * sizeof *s->rgs);
        if (!s->rgs) { rc = HOODIE_NOMEM(); goto fail; }
        for (size_t i = 0; i < opts->n_row_groups; i++) {
            if (opts->row_groups[i] >= f->meta.row_group_count) {
                rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: no row group %u (the file has %u)", f->src.name,
                                 opts->row_groups[i], f->meta.row_group_count);
                goto fail;
            }
            s->rgs[i] = opts->row_groups[i];
        }
        s->n_rgs = opts->n_row_groups;
    } else {
        s->rgs = malloc((f->meta.row_group_count ? f->meta.row_group_count : 1) * sizeof *s->rgs);
        if (!s->rgs) { rc = HOODIE_NOMEM(); goto fail; }
        for (uint32_t i = 0; i < f->meta.row_group_count; i++) s->rgs[i] = i;
        s->n_rgs = f->meta.row_group_count;
    }
    if (s->first_row && (!s->n_rgs || s->first_row > f->meta.row_groups[s->rgs[0]].num_rows)) {
        rc = HOODIE_FAIL(HOODIE_EINVAL, "%s: first row %lld is past the first row group", f->src.name,
                         (long long)s->first_row);
        goto fail;
    }
    *out = s;
    return HOODIE_OK;
fail:
    hoodie_pq_scan_free(s);
    return rc;
}

const hoodie_field *hoodie_pq_scan_schema(const hoodie_pq_scan *s) { return &s->root; }

static void bind_arrays(hoodie_pq_scan *s, const hoodie_pq_node *n, hoodie_array *a)
{
    if (n->kind == HOODIE_PQ_NODE_LEAF) { s->leaves[s->leaf_slot[n->leaf]].arr = a; return; }
    for (size_t i = 0; i < n->n_children; i++) bind_arrays(s, &n->children[i], &a->children[i]);
}

static int by_offset(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Tell the source which bytes the open row group's chunks still hold, ascending: all of them are about to be read,
 * page by page and interleaved, which remote storage serves best fetched at once. */
static hoodie_status advise_row_group(hoodie_pq_scan *s)
{
    if (!s->f->src.will_read || !s->n_leaves) return HOODIE_OK;
    uint64_t *r = malloc(s->n_leaves * 2 * sizeof *r), *offs = malloc(s->n_leaves * sizeof *offs);
    size_t *lens = malloc(s->n_leaves * sizeof *lens), n = 0;
    if (!r || !offs || !lens) { free(r); free(offs); free(lens); return HOODIE_NOMEM(); }
    for (size_t i = 0; i < s->n_leaves; i++) {
        const colr *c = &s->leaves[i].cr;
        if (c->pos >= c->chunk_len) continue;
        r[2 * n] = c->chunk_off + c->pos;
        r[2 * n + 1] = c->chunk_len - c->pos;
        n++;
    }
    qsort(r, n, 2 * sizeof *r, by_offset);
    for (size_t i = 0; i < n; i++) { offs[i] = r[2 * i]; lens[i] = (size_t)r[2 * i + 1]; }
    if (n) s->f->src.will_read(s->f->src.ctx, offs, lens, n);
    free(r);
    free(offs);
    free(lens);
    return HOODIE_OK;
}

/* A row group with rows left open (the next one when the open one is read): HOODIE_ITEROVER after the last. */
static hoodie_status scan_row_group(hoodie_pq_scan *s)
{
    hoodie_status rc;
    if (s->poisoned < 0) return HOODIE_FAIL(HOODIE_ESTATE, "%s: scan failed earlier", s->f->src.name);
    while (!s->rg_open || s->rg_rows_left == 0) {
        if (s->rg_open) { s->rg_open = 0; s->rg_i++; }
        if (s->rg_i >= s->n_rgs) return HOODIE_ITEROVER;
        uint32_t rg = s->rgs[s->rg_i];
        s->rg_rows_left = s->f->meta.row_groups[rg].num_rows;
        int64_t skip = s->rg_i == 0 ? s->first_row : 0;
        for (size_t i = 0; i < s->n_leaves; i++) {
            rc = colr_open_chunk(&s->leaves[i].cr, rg);
            if (rc == HOODIE_OK && skip) rc = colr_seek(&s->leaves[i].cr, rg, skip);
            if (rc < 0) { s->poisoned = rc; return rc; }
        }
        s->rg_rows_left -= skip;
        s->rg_open = 1;
        rc = advise_row_group(s);
        if (rc < 0) { s->poisoned = rc; return rc; }
    }
    return HOODIE_OK;
}

hoodie_status hoodie_pq_scan_plain_page(hoodie_pq_scan *s, const uint8_t **values, const uint8_t **end, int64_t *n)
{
    *values = *end = NULL;
    *n = 0;
    if (s->n_leaves != 1 || s->node.n_children != 1 || s->node.children[0].kind != HOODIE_PQ_NODE_LEAF) return 1;
    colr *c = &s->leaves[0].cr;
    if (c->ptype != HOODIE_PQ_BYTE_ARRAY || c->out != OUT_VAR || c->max_rep) return 1;
    hoodie_status rc = scan_row_group(s);
    if (rc != HOODIE_OK) return rc;
    if (c->page_i >= c->page_n) {
        int done;
        if ((rc = load_page(c, &done)) < 0) { s->poisoned = rc; return rc; }
        if (done) {
            rc = HOODIE_CORRUPT("%s: column chunk ends %lld rows short of row group %u", c->what,
                                (long long)s->rg_rows_left, s->rgs[s->rg_i]);
            s->poisoned = rc;
            return rc;
        }
    }
    if (c->venc != V_PLAIN_BA || (c->max_def && !c->page_full)) return 1;
    int64_t k = c->page_n - c->page_i;
    if (k > s->rg_rows_left) return 1; /* a page past the row group's end: hoodie_pq_scan_next reports it */
    *values = c->vp;
    *end = c->vend;
    *n = k;
    c->vp = c->vend;
    c->page_i = c->page_n;
    s->rg_rows_left -= k;
    return HOODIE_OK;
}

uint64_t hoodie_pq_scan_page_offset(const hoodie_pq_scan *s)
{
    return s->n_leaves ? s->leaves[0].cr.page_off : 0;
}

hoodie_status hoodie_pq_scan_next(hoodie_pq_scan *s, hoodie_batch *out)
{
    hoodie_status rc;
    memset(out, 0, sizeof *out);
    if ((rc = scan_row_group(s)) != HOODIE_OK) return rc;
    int64_t nrows = s->rg_rows_left < s->batch_rows ? s->rg_rows_left : s->batch_rows;
    HOODIE_TRY_GOTO(rc, hoodie_batch_init(out, &s->root), fail);
    bind_arrays(s, &s->node, &out->root);
    for (size_t i = 0; i < s->n_leaves; i++) {
        scan_leaf *sl = &s->leaves[i];
        int64_t got = 0;
        sl->lb.n = 0;
        sl->lb.nvals = 0;
        sl->lb.partial = 0;
        if (sl->cr.out == OUT_VAR && sl->cr.max_rep == 0 && sl->last_rows > 0) {
            size_t want = (size_t)((double)sl->last_bytes / (double)sl->last_rows * (double)nrows * 1.0625) + 64;
            HOODIE_TRY_GOTO(rc, grow(&sl->arr->values, &sl->arr->values_cap, want), fail);
            HOODIE_TRY_GOTO(rc, grow(&sl->arr->offsets, &sl->arr->offsets_cap, ((size_t)nrows + 1) * 4), fail);
        }
        HOODIE_TRY_GOTO(rc, colr_read_rows(&sl->cr, nrows, &sl->lb, sl->arr, &got), fail);
        sl->last_bytes = sl->arr->values_len;
        sl->last_rows = nrows;
        if (got != nrows) {
            rc = HOODIE_CORRUPT("%s: has %lld rows in row group %u, the footer says %lld more", sl->cr.what,
                                (long long)got, s->rgs[s->rg_i], (long long)nrows);
            goto fail;
        }
    }
    for (size_t i = 0; i < s->node.n_children; i++) {
        HOODIE_TRY_GOTO(rc, assemble(s, &s->node.children[i], &out->root.children[i]), fail);
        if (out->root.children[i].length != nrows) {
            rc = HOODIE_CORRUPT("%s: column %s has %lld values for %lld rows", s->f->src.name, s->root.children[i].name,
                                (long long)out->root.children[i].length, (long long)nrows);
            goto fail;
        }
    }
    out->root.length = nrows;
    s->rg_rows_left -= nrows;
    return HOODIE_OK;
fail:
    hoodie_batch_dispose(out);
    memset(out, 0, sizeof *out);
    s->poisoned = rc;
    return rc;
}
