/*
 * Internals of the Parquet writer shared by its source files: writer.c (schema, shredding, pages, dictionaries,
 * row groups, footer) and writer_stats.c (column and page statistics: min/max in the column's sort order, null
 * counts, their Thrift form). Not an API: include format/parquet/writer.h.
 */
#ifndef HOODIE_FORMAT_PARQUET_WRITER_INT_H
#define HOODIE_FORMAT_PARQUET_WRITER_INT_H

#include "format/parquet/writer.h"
#include "util/arena.h"
#include "util/buf.h"

#define PQ_MAX_STEPS 64

enum { STEP_STRUCT, STEP_LIST, STEP_LEAF };
enum {
    CV_COPY, CV_BOOL, CV_I8, CV_I16, CV_U8, CV_U16, CV_X1000_32, CV_X1000_64, CV_DEC32, CV_DEC64, CV_DECFLBA,
    CV_INT96, CV_BYTES, CV_NULL
};
enum { ST_NONE, ST_BOOL, ST_I32, ST_U32, ST_I64, ST_U64, ST_FLOAT, ST_DOUBLE, ST_BYTES, ST_DECBE, ST_F16 };

typedef struct pq_step {
    uint8_t kind;
    uint8_t optional;
    uint16_t child;
    int16_t rep;            /* LIST: repetition level of its repeated group */
} pq_step;

typedef struct pq_bytes {
    const uint8_t *p;
    uint32_t len;
} pq_bytes;

typedef struct pq_stats {
    int64_t nulls;
    int has;                /* min/max set */
    int64_t imin, imax;     /* BOOL, I32, I64 (signed); U32, U64 stored as uint64 bits in imin/imax */
    double dmin, dmax;      /* FLOAT, DOUBLE, F16 (value) */
    hoodie_buf bmin, bmax;  /* BYTES, DECBE, F16 (raw) */
} pq_stats;

/* One data page of the current chunk, for the page index. */
typedef struct pq_page_ent {
    int64_t off;            /* header offset in the chunk buffer */
    int32_t size;           /* header + body */
    int64_t first_row;      /* within the row group */
    int64_t nulls;
    uint8_t null_page;
    size_t min_off, max_off; /* plain-encoded bounds in pq_col.pi_vals */
    uint32_t min_len, max_len;
} pq_page_ent;

typedef struct pq_dict {
    uint32_t *slots;        /* entry + 1; 0 empty */
    uint32_t mask;
    uint32_t *hashes, *offs, *lens;
    uint32_t count, ecap;
    hoodie_buf plain;       /* the dictionary page, PLAIN-encoded */
} pq_dict;

typedef struct pq_col {
    pq_step steps[PQ_MAX_STEPS];
    int n_steps, has_list, always_null, top;
    int16_t max_def, max_rep;
    uint32_t elem;          /* its schema element in w->elems */
    const hoodie_pq_chunk_copy *copy; /* the current row group's chunk is this one, copied (write_row_group) */
    const uint8_t *cval;    /* hoodie_pq_writer_set_constant: every row's value (in w->arena), its arrays unread */
    uint32_t clen;
    int is_const;
    char **path;
    uint32_t path_count;
    char *dotted;
    hoodie_type htype;
    hoodie_pq_type ptype;
    int width;              /* physical bytes per value (BOOL 1, BYTE_ARRAY 0) */
    int conv, stat_kind, legacy_minmax;
    int want_dict;
    hoodie_pq_encoding value_enc;

    /* slice */
    uint16_t *sdef, *srep;
    size_t s_nlev, s_levcap;
    int64_t *sidx;          /* value positions (and sources: writer.c REF_SHIFT) */
    size_t s_idxcap;
    int64_t ref_tag;        /* shredding a row of a source other than 0: its tag, added to the positions */
    int contig;
    int64_t s_start;
    size_t s_nvals;
    uint8_t *phys;
    size_t phys_cap;
    const uint8_t *phys_ptr;
    pq_bytes *bphys;
    size_t bphys_cap;

    /* page */
    uint16_t *pdef, *prep;
    size_t p_nlev, p_levcap;
    hoodie_buf pvals;
    uint32_t *pidx;
    size_t p_nidx, p_idxcap;
    int64_t p_nvals, p_rows, p_nulls;
    pq_stats pstats;

    /* chunk */
    hoodie_buf chunk;
    int64_t chunk_unc, chunk_nlev;
    uint32_t enc_mask;
    int dict_on, dict_pages;
    pq_stats cstats;
    pq_dict dict;
    /* byte-string statistics of dictionary pages from each entry's first value in the page: the page's epoch
     * stamped on the entries seen (constant and low-cardinality columns compare a few values a page, not all) */
    uint32_t *dict_seen;
    size_t dict_seen_cap;
    uint32_t page_epoch;

    /* page index of the chunk: data pages, their bounds, whether a ColumnIndex can be written */
    pq_page_ent *pi;
    size_t pi_n, pi_cap;
    hoodie_buf pi_vals;
    int64_t chunk_rows;
    int pi_stats_ok, pi_asc, pi_desc;
    pq_stats pi_prev;       /* bounds of the last non-null page */
    int pi_has_prev;
} pq_col;

struct hoodie_pq_writer {
    hoodie_pq_sink sink;
    hoodie_pq_writer_opts o;
    hoodie_field schema;
    hoodie_arena *arena;
    hoodie_pq_schema_element *elems;
    uint32_t n_elems, elems_cap;
    pq_col *cols;
    size_t n_cols, cols_cap;
    hoodie_pq_row_group *rgs;
    uint32_t n_rgs, rgs_cap;
    hoodie_pq_kv *kv;
    uint32_t n_kv;
    char *created_by;
    uint64_t pos;
    int64_t rows_total, rg_rows;
    int poisoned, closed;
    hoodie_buf tmp, cmp, hdr, lv, vals;
    hoodie_buf col_index, off_index; /* page index of the row groups written so far (offsets relative) */
};

/* ---- statistics (writer_stats.c) ---- */

void hoodie_pqw__stats_reset(pq_stats *s);
void hoodie_pqw__page_stats_reset(pq_col *c);
hoodie_status hoodie_pqw__stats_bytes_one(pq_stats *s, const uint8_t *p, size_t l);
hoodie_status hoodie_pqw__stats_update(pq_col *c, pq_stats *s, size_t v0, size_t n);
int hoodie_pqw__stats_bound_cmp(const pq_col *c, const pq_stats *a, const pq_stats *b, int max);
hoodie_status hoodie_pqw__stats_merge(pq_col *c, pq_stats *s, const pq_stats *p);
void hoodie_pqw__stats_to_thrift(const pq_col *c, const pq_stats *s, uint8_t *scratch, hoodie_pq_statistics *out);

#endif
