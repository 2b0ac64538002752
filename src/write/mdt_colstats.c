/*
 * The metadata table's column_stats partition: the records hoodie writes into it (see mdt.h).
 *
 * A record per (file, column): HoodieMetadataRecord of type 3 whose ColumnStatsMetadata holds the file's name, the
 * column's, its bounds as wrapper records (Boolean, Int, Long, Float, Double, Bytes, String, Date, Decimal, ...),
 * value and null counts, compressed and uncompressed sizes, isDeleted and isTightBound. Its key is HashID's:
 * base64(XXH64(column)) + base64(XXH64(partition)) + base64(MD5(file name)); its file group String.hashCode(key)
 * mod the partition's file groups. Bounds of a base file are its Parquet footer's (ParquetUtils: the row groups'
 * min/max statistics converted to Java values, then wrapped): byte, short and int columns are Int, dates Date
 * (days), timestamps Long (the column's unit), strings String, other binary Bytes, decimals Decimal(30, 15).
 */
#include "write/mdt.h"
#include "format/avro/binary.h"
#include "format/parquet/meta.h"
#include "format/parquet/reader.h"
#include "format/parquet/schema.h"
#include "model/batch.h"
#include "model/value.h"
#include "table/mdt.h"
#include "table/pqfile.h"
#include "util/arena.h"
#include "util/base64.h"
#include "util/digest.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

#define HASH_SEED 0xFFFFFFFFDABADABAULL /* HashID's int seed 0xdabadaba, sign-extended to hash64's long */

static hoodie_status b64_be64(hoodie_buf *out, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (56 - 8 * i));
    return hoodie_base64_encode(b, 8, out);
}

hoodie_status hoodie_write__cs_key(hoodie_buf *out, const char *column, const char *partition, const char *file_name)
{
    uint8_t md5[HOODIE_MD5_LEN];
    HOODIE_TRY(b64_be64(out, hoodie_xxh64(column, strlen(column), HASH_SEED)));
    HOODIE_TRY(b64_be64(out, hoodie_xxh64(partition, strlen(partition), HASH_SEED)));
    hoodie_md5(file_name, strlen(file_name), md5);
    return hoodie_base64_encode(md5, sizeof md5, out);
}

/* ---- bounds from a Parquet footer ---- */

/* The wrapper Hudi puts a leaf's values in, or -1 for a type its index does not take. */
static int wrapper_of(const hoodie_pq_schema_element *el)
{
    hoodie_pq_logical lt = el->logical.kind;
    int decimal = lt == HOODIE_PQ_LT_DECIMAL || el->converted == HOODIE_PQ_CT_DECIMAL;
    switch (el->type) {
    case HOODIE_PQ_BOOLEAN: return HOODIE_CS_BOOLEAN;
    case HOODIE_PQ_INT32:
        if (decimal) return HOODIE_CS_DECIMAL;
        if (lt == HOODIE_PQ_LT_DATE || el->converted == HOODIE_PQ_CT_DATE) return HOODIE_CS_DATE;
        if (lt == HOODIE_PQ_LT_TIME || el->converted == HOODIE_PQ_CT_TIME_MILLIS) return -1;
        if (lt == HOODIE_PQ_LT_INTEGER && !el->logical.int_signed) return -1;
        if (el->converted == HOODIE_PQ_CT_UINT_8 || el->converted == HOODIE_PQ_CT_UINT_16 ||
            el->converted == HOODIE_PQ_CT_UINT_32)
            return -1;
        return HOODIE_CS_INT;
    case HOODIE_PQ_INT64:
        if (decimal) return HOODIE_CS_DECIMAL;
        if (lt == HOODIE_PQ_LT_TIME || el->converted == HOODIE_PQ_CT_TIME_MICROS) return -1;
        if ((lt == HOODIE_PQ_LT_INTEGER && !el->logical.int_signed) || el->converted == HOODIE_PQ_CT_UINT_64) return -1;
        return HOODIE_CS_LONG; /* timestamps too, in their unit */
    case HOODIE_PQ_FLOAT: return HOODIE_CS_FLOAT;
    case HOODIE_PQ_DOUBLE: return HOODIE_CS_DOUBLE;
    case HOODIE_PQ_BYTE_ARRAY:
        if (decimal) return HOODIE_CS_DECIMAL;
        if (lt == HOODIE_PQ_LT_STRING || lt == HOODIE_PQ_LT_ENUM || lt == HOODIE_PQ_LT_JSON ||
            el->converted == HOODIE_PQ_CT_UTF8 || el->converted == HOODIE_PQ_CT_ENUM || el->converted == HOODIE_PQ_CT_JSON)
            return HOODIE_CS_STRING;
        return HOODIE_CS_BYTES;
    case HOODIE_PQ_FIXED_LEN_BYTE_ARRAY: return decimal ? HOODIE_CS_DECIMAL : -1;
    default: return -1;
    }
}

/* A bound as the Avro binary of its wrapper's value; 0 when it cannot be (a decimal beyond Decimal(30, 15)). */
static int encode_bound(hoodie_buf *b, int wrapper, int scale, const hoodie_pq_value *v)
{
    switch (wrapper) {
    case HOODIE_CS_BOOLEAN: return hoodie_buf_putc(b, (uint8_t)(v->i != 0)) == HOODIE_OK;
    case HOODIE_CS_INT:
    case HOODIE_CS_DATE:
    case HOODIE_CS_LONG: return hoodie_avro_write_long(b, v->i) == HOODIE_OK;
    case HOODIE_CS_FLOAT: {
        float f = (float)v->d;
        uint32_t u;
        memcpy(&u, &f, 4);
        uint8_t le[4] = { (uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24) };
        return hoodie_buf_append(b, le, 4) == HOODIE_OK;
    }
    case HOODIE_CS_DOUBLE: {
        uint64_t u;
        memcpy(&u, &v->d, 8);
        uint8_t le[8];
        for (int i = 0; i < 8; i++) le[i] = (uint8_t)(u >> (8 * i));
        return hoodie_buf_append(b, le, 8) == HOODIE_OK;
    }
    case HOODIE_CS_BYTES:
    case HOODIE_CS_STRING: return hoodie_avro_write_bytes(b, v->bytes, v->len) == HOODIE_OK;
    case HOODIE_CS_DECIMAL: {
        /* the unscaled value at scale 15 (Hudi's tryUpcastDecimal), as BigInteger.toByteArray writes it */
        if (scale < 0 || scale > 15) return 0;
        unsigned __int128 x = ((unsigned __int128)(uint64_t)v->dec_hi << 64) | v->dec_lo;
        __int128 sx = (__int128)x;
        for (int i = scale; i < 15; i++) {
            __int128 y = sx * 10;
            if (y / 10 != sx) return 0;
            sx = y;
        }
        /* Decimal(30, 15): at most 30 digits */
        __int128 lim = 1;
        for (int i = 0; i < 30; i++) lim *= 10;
        if (sx >= lim || sx <= -lim) return 0;
        uint8_t be[16];
        for (int i = 0; i < 16; i++) be[i] = (uint8_t)((unsigned __int128)sx >> (8 * (15 - i)));
        size_t k = 0; /* minimal two's complement: drop sign bytes the next byte's top bit repeats */
        while (k < 15 && ((be[k] == 0 && !(be[k + 1] & 0x80)) || (be[k] == 0xff && (be[k + 1] & 0x80)))) k++;
        return hoodie_avro_write_bytes(b, be + k, 16 - k) == HOODIE_OK;
    }
    default: return 0;
    }
}

static int set_bound(hoodie_arena *a, hoodie_mdt_csval *out, int wrapper, int scale, const hoodie_pq_value *v)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    int ok = encode_bound(&b, wrapper, scale, v);
    if (ok) {
        out->wrapper = wrapper;
        out->len = b.len;
        out->bytes = hoodie_arena_memdup(a, b.data, b.len ? b.len : 1);
        ok = out->bytes != NULL ? 1 : -1;
    }
    hoodie_buf_dispose(&b);
    return ok;
}

hoodie_status hoodie_write__cs_of_base_file(const hoodie_storage *s, const char *path, const char *partition,
                                            const char *const *columns, size_t n_columns, hoodie_arena *a,
                                            hoodie_mdt_csrec **recs, size_t *n)
{
    *recs = NULL;
    *n = 0;
    hoodie_parquet_reader *r = NULL;
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    o.storage = s;
    HOODIE_TRY(hoodie_pqfile__open(&r, path, &o, NULL));
    hoodie_pq_file *f = hoodie_pqfile__file(r);
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    const hoodie_pq_schema *sch = hoodie_pq_file_schema(f);
    const char *slash = strrchr(path, '/'), *file_name = slash ? slash + 1 : path;
    hoodie_status rc = HOODIE_OK;
    hoodie_mdt_csrec *v = hoodie_arena_calloc(a, n_columns + 1, sizeof *v);
    size_t k = 0;
    int whole = 1;
    hoodie_buf key = HOODIE_BUF_INIT;
    if (!v) rc = HOODIE_NOMEM();
    for (size_t c = 0; rc == HOODIE_OK && whole && c < n_columns; c++) {
        int leaf = hoodie_pq_schema_find_leaf(sch, columns[c]);
        if (leaf < 0) continue; /* not in this file (added later): no record, as Hudi */
        const hoodie_pq_leaf *lf = &sch->leaves[leaf];
        int w = wrapper_of(lf->el);
        if (w < 0 || lf->max_rep > 0 || strchr(columns[c], '.')) { whole = 0; break; }
        int scale = lf->el->logical.kind == HOODIE_PQ_LT_DECIMAL ? lf->el->logical.decimal_scale : lf->el->scale;
        hoodie_mdt_csrec *cr = &v[k];
        memset(cr, 0, sizeof *cr);
        cr->value_count = cr->null_count = cr->total_size = cr->total_uncompressed_size = 0;
        hoodie_pq_value mn, mx;
        int have = 0;
        for (uint32_t g = 0; rc == HOODIE_OK && whole && g < m->row_group_count; g++) {
            const hoodie_pq_column_chunk *cc = &m->row_groups[g].columns[leaf];
            hoodie_pq_column_stats st;
            if ((rc = hoodie_pq_row_group_stats(f, g, leaf, &st)) < 0) break;
            if (!cc->has_meta || !st.has_null_count) { whole = 0; break; }
            cr->value_count += cc->meta.num_values;
            cr->null_count += st.null_count;
            cr->total_size += cc->meta.total_compressed_size;
            cr->total_uncompressed_size += cc->meta.total_uncompressed_size;
            if (st.null_count >= cc->meta.num_values) continue; /* nulls only: no bound */
            if (!st.has_min || !st.has_max) { whole = 0; break; }
            if (!have || hoodie_pq_value_cmp(&st.min, &mn) < 0) mn = st.min;
            if (!have || hoodie_pq_value_cmp(&st.max, &mx) > 0) mx = st.max;
            have = 1;
        }
        if (rc < 0 || !whole) break;
        if (have) {
            int ok1 = set_bound(a, &cr->min, w, scale, &mn), ok2 = ok1 > 0 ? set_bound(a, &cr->max, w, scale, &mx) : ok1;
            if (ok1 < 0 || ok2 < 0) { rc = HOODIE_NOMEM(); break; }
            if (!ok1 || !ok2) { whole = 0; break; }
        }
        key.len = 0;
        if ((rc = hoodie_write__cs_key(&key, columns[c], partition, file_name)) < 0) break;
        cr->key = hoodie_arena_strndup(a, (const char *)key.data, key.len);
        cr->file = hoodie_arena_strdup(a, file_name);
        cr->column = hoodie_arena_strdup(a, columns[c]);
        if (!cr->key || !cr->file || !cr->column) { rc = HOODIE_NOMEM(); break; }
        k++;
    }
    hoodie_buf_dispose(&key);
    hoodie_parquet_reader_free(r);
    if (rc < 0) return rc;
    if (whole) *recs = v, *n = k;
    return HOODIE_OK;
}

/* ---- bounds of in-memory values (log files) ---- */

/* The wrapper of a column of type t (as its Parquet column's, so that base and log files agree), or -1. */
static int wrapper_of_type(const hoodie_type *t)
{
    switch (t->id) {
    case HOODIE_TYPE_BOOL: return HOODIE_CS_BOOLEAN;
    case HOODIE_TYPE_INT8:
    case HOODIE_TYPE_INT16:
    case HOODIE_TYPE_INT32: return HOODIE_CS_INT;
    case HOODIE_TYPE_INT64: return HOODIE_CS_LONG;
    case HOODIE_TYPE_FLOAT: return HOODIE_CS_FLOAT;
    case HOODIE_TYPE_DOUBLE: return HOODIE_CS_DOUBLE;
    case HOODIE_TYPE_STRING: return HOODIE_CS_STRING;
    case HOODIE_TYPE_BINARY: return HOODIE_CS_BYTES;
    case HOODIE_TYPE_DATE32: return HOODIE_CS_DATE;
    case HOODIE_TYPE_TIMESTAMP: return t->ext == HOODIE_EXT_INT96 ? -1 : HOODIE_CS_LONG;
    case HOODIE_TYPE_DECIMAL: return HOODIE_CS_DECIMAL;
    default: return -1;
    }
}

int hoodie_write__cs_type_ok(const hoodie_type *t) { return wrapper_of_type(t) >= 0; }

/* Value r of a (of type f) as a statistics value. */
static void value_at(const hoodie_field *f, const hoodie_array *a, int64_t r, hoodie_pq_value *v)
{
    memset(v, 0, sizeof *v);
    switch (f->type.id) {
    case HOODIE_TYPE_BOOL: v->kind = HOODIE_PQ_VAL_BOOL, v->i = hoodie_bit_get(a->values, r); break;
    case HOODIE_TYPE_FLOAT: {
        float x;
        memcpy(&x, a->values + 4 * r, 4);
        v->kind = HOODIE_PQ_VAL_F64, v->d = x;
        break;
    }
    case HOODIE_TYPE_DOUBLE: v->kind = HOODIE_PQ_VAL_F64, memcpy(&v->d, a->values + 8 * r, 8); break;
    case HOODIE_TYPE_STRING:
    case HOODIE_TYPE_BINARY: v->kind = HOODIE_PQ_VAL_BYTES, v->bytes = hoodie_array_bytes_at(a, r, &v->len); break;
    case HOODIE_TYPE_DECIMAL: { /* 16 bytes, little-endian two's complement */
        const uint8_t *p = a->values + 16 * r;
        uint64_t lo = 0, hi = 0;
        for (int i = 7; i >= 0; i--) lo = lo << 8 | p[i], hi = hi << 8 | p[8 + i];
        v->kind = HOODIE_PQ_VAL_DECIMAL, v->dec_lo = lo, v->dec_hi = (int64_t)hi;
        break;
    }
    default: v->kind = HOODIE_PQ_VAL_I64, v->i = hoodie_array_int_at(f, a, r); break;
    }
}

hoodie_status hoodie_write__cs_of_values(const char *column, const hoodie_field *f, const hoodie_array *a,
                                         const int64_t *rows, int constant, size_t n, const char *partition,
                                         const char *file_name, hoodie_arena *ar, hoodie_mdt_csrec *out, int *ok)
{
    memset(out, 0, sizeof *out);
    *ok = 0;
    int w = wrapper_of_type(&f->type);
    if (w < 0) return HOODIE_OK;
    int64_t lo = -1, hi = -1, nulls = 0;
    size_t seen = constant ? (n ? 1 : 0) : n; /* a constant: one value stands for every record */
    for (size_t i = 0; i < seen; i++) {
        int64_t r = constant ? 0 : rows ? rows[i] : (int64_t)i;
        if (!hoodie_array_is_valid(a, r)) { nulls++; continue; }
        if (f->type.id == HOODIE_TYPE_FLOAT || f->type.id == HOODIE_TYPE_DOUBLE) {
            hoodie_pq_value x;
            value_at(f, a, r, &x);
            if (x.d != x.d) return HOODIE_OK; /* NaN: Java and Parquet order it apart; not indexed */
        }
        if (lo < 0 || hoodie_value_compare(f, a, r, a, lo) < 0) lo = r;
        if (hi < 0 || hoodie_value_compare(f, a, r, a, hi) > 0) hi = r;
    }
    if (constant) nulls = lo < 0 ? (int64_t)n : 0;
    out->value_count = (int64_t)n;
    out->null_count = nulls;
    out->total_size = out->total_uncompressed_size = 0;
    if (lo >= 0) {
        hoodie_pq_value mn, mx;
        value_at(f, a, lo, &mn);
        value_at(f, a, hi, &mx);
        int scale = f->type.scale;
        int ok1 = set_bound(ar, &out->min, w, scale, &mn), ok2 = ok1 > 0 ? set_bound(ar, &out->max, w, scale, &mx) : ok1;
        if (ok1 < 0 || ok2 < 0) return HOODIE_NOMEM();
        if (!ok1 || !ok2) return HOODIE_OK;
    }
    hoodie_buf key = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_write__cs_key(&key, column, partition, file_name);
    if (rc == HOODIE_OK) {
        out->key = hoodie_arena_strndup(ar, (const char *)key.data, key.len);
        out->file = hoodie_arena_strdup(ar, file_name);
        out->column = hoodie_arena_strdup(ar, column);
        if (!out->key || !out->file || !out->column) rc = HOODIE_NOMEM();
    }
    hoodie_buf_dispose(&key);
    *ok = rc == HOODIE_OK;
    return rc;
}

hoodie_status hoodie_write__cs_push(hoodie_mdt_csrec **v, size_t *n, size_t *cap, const hoodie_mdt_csrec *r)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        hoodie_mdt_csrec *p = realloc(*v, nc * sizeof *p);
        if (!p) return HOODIE_NOMEM();
        *v = p, *cap = nc;
    }
    (*v)[(*n)++] = *r;
    return HOODIE_OK;
}

/* ---- the record ---- */

static hoodie_status opt_long(hoodie_buf *b, int64_t v)
{
    if (v == HOODIE_CS_NO_COUNT) return hoodie_buf_putc(b, 0);
    HOODIE_TRY(hoodie_buf_putc(b, 2)); /* branch 1 */
    return hoodie_avro_write_long(b, v);
}

static hoodie_status opt_str(hoodie_buf *b, const char *s)
{
    if (!s) return hoodie_buf_putc(b, 0);
    HOODIE_TRY(hoodie_buf_putc(b, 2));
    return hoodie_avro_write_bytes(b, s, strlen(s));
}

static hoodie_status bound(hoodie_buf *b, const hoodie_mdt_csval *v)
{
    HOODIE_TRY(hoodie_avro_write_long(b, v->wrapper));
    return v->wrapper ? hoodie_buf_append(b, v->bytes, v->len) : HOODIE_OK;
}

hoodie_status hoodie_write__cs_encode(hoodie_buf *b, const hoodie_mdt_csrec *r, const char *base_file)
{
    static const uint8_t nulls[4] = { 0, 0, 0, 0 }; /* commit time, sequence number, record key, partition path */
    HOODIE_TRY(hoodie_buf_append(b, nulls, 4));
    HOODIE_TRY(opt_str(b, base_file));              /* _hoodie_file_name */
    HOODIE_TRY(hoodie_buf_putc(b, 0));               /* key "" (the HFile row is the key) */
    HOODIE_TRY(hoodie_avro_write_long(b, 3));        /* type: column stats */
    HOODIE_TRY(hoodie_buf_putc(b, 0));               /* filesystemMetadata */
    HOODIE_TRY(hoodie_buf_putc(b, 0));               /* BloomFilterMetadata */
    HOODIE_TRY(hoodie_buf_putc(b, 2));               /* ColumnStatsMetadata */
    HOODIE_TRY(opt_str(b, r->file));
    HOODIE_TRY(opt_str(b, r->column));
    HOODIE_TRY(bound(b, &r->min));
    HOODIE_TRY(bound(b, &r->max));
    HOODIE_TRY(opt_long(b, r->value_count));
    HOODIE_TRY(opt_long(b, r->null_count));
    HOODIE_TRY(opt_long(b, r->total_size));
    HOODIE_TRY(opt_long(b, r->total_uncompressed_size));
    HOODIE_TRY(hoodie_buf_putc(b, (uint8_t)(r->deleted != 0)));
    HOODIE_TRY(hoodie_buf_putc(b, (uint8_t)(r->tight != 0)));
    static const uint8_t tail[2] = { 0, 0 };         /* recordIndexMetadata, SecondaryIndexMetadata */
    return hoodie_buf_append(b, tail, 2);
}
