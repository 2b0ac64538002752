#include "write/rgcopy.h"
#include "util/error.h"
#include "util/hash.h"

#include <stdlib.h>
#include <string.h>

/* The batch column of leaf l of the new file (-1: the batches do not carry it). */
static int in_col(const hoodie_rgcopy *c, size_t l)
{
    int top = c->map.top[l];
    return top >= 0 ? c->in_of_top[top] : -1;
}

static void next_group(hoodie_rgcopy *c)
{
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(c->src);
    c->left = 0;
    while (c->rg < m->row_group_count && (c->left = m->row_groups[c->rg].num_rows) == 0) c->rg++;
    c->in_place = 1;
    memset(c->same, 0, c->in_schema->n_children);
    for (size_t l = 0; l < c->map.n_leaves; l++) {
        int in = in_col(c, l);
        if (c->map.src_leaf[l] >= 0 && in >= 0 && !c->excluded[in]) c->same[in] = 1;
    }
}

hoodie_status hoodie_rgcopy_init(hoodie_rgcopy *c, const hoodie_field *file_schema, const hoodie_field *in_schema,
                                 int key_col, const hoodie_pq_file *src, hoodie_pq_codec codec)
{
    memset(c, 0, sizeof *c);
    c->schema = file_schema;
    c->in_schema = in_schema;
    c->key_col = key_col;
    c->src = src;
    c->codec = codec;
    HOODIE_TRY(hoodie_basefile_copy_map(file_schema, src, &c->map));
    c->same = calloc(in_schema->n_children + 1, 1);
    c->excluded = calloc(in_schema->n_children + 1, 1);
    c->in_of_top = malloc((file_schema->n_children + 1) * sizeof *c->in_of_top);
    hoodie_status rc = c->same && c->excluded && c->in_of_top ? hoodie_arena_new(&c->arena, NULL, 0) : HOODIE_NOMEM();
    for (size_t t = 0; rc == HOODIE_OK && t < file_schema->n_children; t++)
        c->in_of_top[t] = hoodie_field_find(in_schema, file_schema->children[t].name);
    if (rc < 0) { hoodie_rgcopy_dispose(c); return rc; }
    c->enabled = c->map.n_copyable > 0;
    next_group(c);
    return HOODIE_OK;
}

void hoodie_rgcopy_exclude(hoodie_rgcopy *c, int col)
{
    if (col < 0 || (size_t)col >= c->in_schema->n_children) return;
    c->excluded[col] = 1;
    c->same[col] = 0;
}

void hoodie_rgcopy_release(hoodie_rgcopy *c) { hoodie_arena_reset(c->arena); }

static void pend_clear(hoodie_rgcopy *c)
{
    for (size_t i = 0; i < c->n_pend; i++) { hoodie_batch_dispose(&c->old[i]); free(c->sel[i]); }
    c->n_pend = 0;
}

void hoodie_rgcopy_dispose(hoodie_rgcopy *c)
{
    if (c->old) pend_clear(c);
    free(c->old);
    free(c->sel);
    free(c->nsel);
    free(c->map.src_leaf);
    free(c->map.top);
    free(c->same);
    free(c->excluded);
    free(c->in_of_top);
    free(c->rep);
    hoodie_arena_free(c->arena);
    memset(c, 0, sizeof *c);
}

/* Cell a[i] equals cell b[j] (flat columns; anything else counts as different). */
static int cell_eq(const hoodie_field *f, const hoodie_array *a, int64_t i, const hoodie_array *b, int64_t j)
{
    int va = hoodie_array_is_valid(a, i), vb = hoodie_array_is_valid(b, j);
    if (va != vb) return 0;
    if (!va) return 1;
    switch (f->type.id) {
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: {
        size_t la, lb;
        const uint8_t *pa = hoodie_array_bytes_at(a, i, &la), *pb = hoodie_array_bytes_at(b, j, &lb);
        return la == lb && hoodie_bytes_eq(pa, pb, la);
    }
    case HOODIE_TYPE_BOOL:
        return hoodie_bit_get(a->values, i) == hoodie_bit_get(b->values, j);
    case HOODIE_TYPE_STRUCT: case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP: case HOODIE_TYPE_NULL:
        return 0;
    default: {
        size_t w = hoodie_type_fixed_width(&f->type);
        return w && hoodie_bytes_eq(a->values + (size_t)i * w, b->values + (size_t)j * w, w);
    }
    }
}

static void account(hoodie_rgcopy *c, const hoodie_batch *old, const hoodie_batch *const *srcs, size_t n_srcs,
                    const hoodie_row_ref *sel, size_t n)
{
    if (c->pending_reset) {
        c->pending_reset = 0;
        next_group(c);
    }
    int64_t len = old->root.length;
    c->left -= len;
    if (!c->enabled || !c->in_place) return;
    if ((int64_t)n != len || c->left < 0) { c->in_place = 0; return; }
    size_t n_rep = 0;
    if (n > c->rep_cap) {
        uint32_t *nr = realloc(c->rep, n * sizeof *nr);
        if (!nr) { c->in_place = 0; return; } /* nothing copied: correct, only slower */
        c->rep = nr;
        c->rep_cap = n;
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t s = sel[k].source;
        if (s == 0) {
            if (sel[k].row != (int64_t)k) { c->in_place = 0; return; }
            continue;
        }
        if (s >= n_srcs || sel[k].row < 0) { c->in_place = 0; return; }
        c->rep[n_rep++] = (uint32_t)k;
    }
    /* column by column over the replacing rows (one column's buffers at a time; a column stops at its first
     * difference) */
    for (size_t col = 0; n_rep && col < c->in_schema->n_children; col++) {
        if (!c->same[col]) continue;
        const hoodie_field *f = &c->in_schema->children[col];
        const hoodie_array *oa = &old->root.children[col];
        for (size_t i = 0; i < n_rep; i++) {
            size_t k = c->rep[i];
            if (!cell_eq(f, oa, (int64_t)k, &srcs[sel[k].source]->root.children[col], sel[k].row)) {
                c->same[col] = 0;
                break;
            }
        }
    }
}

hoodie_status hoodie_rgcopy_push(hoodie_rgcopy *c, hoodie_batch *old, const hoodie_batch *const *srcs, size_t n_srcs,
                                 const hoodie_row_ref *sel, size_t n)
{
    account(c, old, srcs, n_srcs, sel, n);
    if (c->n_pend == c->cap_pend) {
        size_t nc = c->cap_pend ? c->cap_pend * 2 : 4;
        hoodie_batch *no = realloc(c->old, nc * sizeof *no);
        if (no) c->old = no;
        hoodie_row_ref **ns = no ? realloc(c->sel, nc * sizeof *ns) : NULL;
        if (ns) c->sel = ns;
        size_t *nn = ns ? realloc(c->nsel, nc * sizeof *nn) : NULL;
        if (!nn) { hoodie_batch_dispose(old); return HOODIE_NOMEM(); }
        c->nsel = nn;
        c->cap_pend = nc;
    }
    hoodie_row_ref *cp = malloc((n + 1) * sizeof *cp);
    if (!cp) { hoodie_batch_dispose(old); return HOODIE_NOMEM(); }
    if (n) memcpy(cp, sel, n * sizeof *cp);
    c->old[c->n_pend] = *old;
    memset(old, 0, sizeof *old);
    c->sel[c->n_pend] = cp;
    c->nsel[c->n_pend++] = n;
    return HOODIE_OK;
}

static hoodie_status finish(hoodie_rgcopy *c, const hoodie_pq_chunk_copy *const **copies_out);

hoodie_status hoodie_rgcopy_take(hoodie_rgcopy *c, int complete, const hoodie_batch *const *srcs, size_t n_srcs,
                                 hoodie_batch *rows, const hoodie_pq_chunk_copy *const **copies)
{
    *copies = NULL;
    hoodie_status rc = complete ? finish(c, copies) : HOODIE_OK;
    if (rc == HOODIE_OK) rc = hoodie_batch_init(rows, c->in_schema);
    if (rc < 0) { pend_clear(c); return rc; }
    const hoodie_array **from = malloc((n_srcs + 1) * sizeof *from);
    if (!from) rc = HOODIE_NOMEM();
    size_t total = 0;
    for (size_t i = 0; i < c->n_pend; i++) total += c->nsel[i];
    for (size_t col = 0; col < c->in_schema->n_children && rc == HOODIE_OK; col++) {
        if (*copies && c->same[col] && (int)col != c->key_col) continue;
        for (size_t i = 0; i < c->n_pend && rc == HOODIE_OK; i++) {
            from[0] = &c->old[i].root.children[col];
            for (size_t s = 1; s < n_srcs; s++) from[s] = &srcs[s]->root.children[col];
            rc = hoodie_array_take_multi(&rows->root.children[col], &rows->schema.children[col], from,
                                         n_srcs ? n_srcs : 1, c->sel[i], c->nsel[i]);
        }
    }
    free(from);
    rows->root.length = (int64_t)total;
    pend_clear(c);
    if (!complete) { c->in_place = 0; memset(c->same, 0, c->in_schema->n_children); }
    if (rc < 0) { hoodie_batch_dispose(rows); *copies = NULL; }
    return rc;
}

hoodie_status hoodie_rgcopy_take_refs(hoodie_rgcopy *c, int complete, hoodie_rgcopy_part *out)
{
    memset(out, 0, sizeof *out);
    hoodie_status rc = complete ? finish(c, &out->copies) : HOODIE_OK;
    size_t total = 0;
    for (size_t i = 0; i < c->n_pend; i++) total += c->nsel[i];
    if (rc == HOODIE_OK) {
        out->refs = malloc((total + 1) * sizeof *out->refs);
        out->old = malloc((c->n_pend + 1) * sizeof *out->old);
        if (!out->refs || !out->old) rc = HOODIE_NOMEM();
    }
    if (rc < 0) { pend_clear(c); hoodie_rgcopy_part_dispose(out); return rc; }
    size_t k = 0, np = c->n_pend;
    for (size_t i = 0; i < np; i++) {
        for (size_t j = 0; j < c->nsel[i]; j++) {
            hoodie_row_ref r = c->sel[i][j];
            r.source = r.source == 0 ? (uint32_t)i : (uint32_t)(np + r.source - 1);
            out->refs[k++] = r;
        }
        out->old[i] = c->old[i]; /* moved */
        free(c->sel[i]);
    }
    out->n_old = np;
    out->n = total;
    c->n_pend = 0;
    if (!complete) { c->in_place = 0; memset(c->same, 0, c->in_schema->n_children); }
    return HOODIE_OK;
}

void hoodie_rgcopy_part_dispose(hoodie_rgcopy_part *p)
{
    for (size_t i = 0; p->old && i < p->n_old; i++) hoodie_batch_dispose(&p->old[i]);
    free(p->old);
    free(p->refs);
    memset(p, 0, sizeof *p);
}

/* The copy of chunk `sl` of row group `rg` of src, in the arena: *out NULL when it cannot be copied (not stored
 * in this file, another codec, not one value per row, or unreadable: then the rows are encoded instead). */
static hoodie_status chunk_copy(hoodie_arena *a, const hoodie_pq_file *src, uint32_t rg, int sl, hoodie_pq_codec codec,
                                const hoodie_pq_chunk_copy **out)
{
    *out = NULL;
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(src);
    const hoodie_pq_row_group *g = &m->row_groups[rg];
    if (sl < 0 || (uint32_t)sl >= g->column_count) return HOODIE_OK;
    const hoodie_pq_column_chunk *cc = &g->columns[sl];
    if (!cc->has_meta || cc->file_path || cc->meta.codec != codec || cc->meta.num_values != g->num_rows)
        return HOODIE_OK;
    hoodie_pq_chunk_copy *k = hoodie_arena_calloc(a, 1, sizeof *k);
    hoodie_pq_page_index *pi = k ? hoodie_arena_calloc(a, 1, sizeof *pi) : NULL;
    if (!pi) return HOODIE_NOMEM();
    uint64_t off = 0;
    size_t len = 0;
    hoodie_status brc = hoodie_pq_chunk_extent(src, rg, sl, &off, &len);
    uint8_t *bytes = brc == HOODIE_OK ? hoodie_arena_alloc(a, len ? len : 1) : NULL;
    if (brc == HOODIE_OK && !bytes) return HOODIE_NOMEM();
    if (brc == HOODIE_OK) brc = hoodie_pq_chunk_read(src, rg, sl, bytes, len);
    if (brc == HOODIE_ENOMEM) return brc;
    if (brc < 0) { hoodie_error_clear(); return HOODIE_OK; }
    k->bytes = bytes;
    k->len = len;
    k->src_offset = off;
    k->meta = &cc->meta;
    k->src_leaf = &hoodie_pq_file_schema(src)->leaves[sl];
    hoodie_status prc = hoodie_pq_page_index_read(src, rg, sl, a, pi);
    if (prc == HOODIE_OK) {
        k->offset_index = &pi->oi;
        k->column_index = pi->has_ci ? &pi->ci : NULL;
    } else if (prc == HOODIE_ENOMEM) {
        return prc;
    } else { /* no page index (copied without one), or a broken one (not copied) */
        hoodie_error_clear();
        if (prc != HOODIE_ENOTFOUND) return HOODIE_OK;
    }
    *out = k;
    return HOODIE_OK;
}

/* The row group is complete: the copies of the chunks of the columns still `same` (c->same then marks exactly the
 * columns copied), then on to the next row group at the next batch. */
static hoodie_status finish(hoodie_rgcopy *c, const hoodie_pq_chunk_copy *const **copies_out)
{
    *copies_out = NULL;
    hoodie_status rc = HOODIE_OK;
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(c->src);
    if (c->enabled && c->in_place && c->left == 0 && c->rg < m->row_group_count) {
        const hoodie_pq_chunk_copy **copies = hoodie_arena_calloc(c->arena, c->map.n_leaves + 1, sizeof *copies);
        if (!copies) return HOODIE_NOMEM();
        size_t n = 0;
        for (size_t l = 0; l < c->map.n_leaves && rc == HOODIE_OK; l++) {
            int top = in_col(c, l);
            if (top < 0 || !c->same[top]) continue;
            rc = chunk_copy(c->arena, c->src, c->rg, c->map.src_leaf[l], c->codec, &copies[l]);
            if (rc == HOODIE_OK && !copies[l]) c->same[top] = 0;
            if (copies[l]) n++;
        }
        if (rc == HOODIE_OK && n) *copies_out = (const hoodie_pq_chunk_copy *const *)copies;
        if (rc == HOODIE_OK && !n) memset(c->same, 0, c->in_schema->n_children);
        /* a top-level column is left out of the rows only when all its leaves are copied (one leaf each here) */
        for (size_t l = 0; rc == HOODIE_OK && l < c->map.n_leaves; l++)
            if (!copies[l] && in_col(c, l) >= 0) c->same[in_col(c, l)] = 0;
    } else {
        memset(c->same, 0, c->in_schema->n_children);
    }
    if (rc < 0) return rc;
    /* take() reads c->same before the next batch, which resets it */
    c->rg++;
    c->pending_reset = 1;
    return HOODIE_OK;
}

hoodie_status hoodie_rgcopy_whole(hoodie_arena *a, const hoodie_basefile_copymap *map, const hoodie_pq_file *src,
                                  uint32_t rg, hoodie_pq_codec codec, int except_top,
                                  const hoodie_pq_chunk_copy *const **out)
{
    *out = NULL;
    const hoodie_pq_chunk_copy **copies = hoodie_arena_calloc(a, map->n_leaves + 1, sizeof *copies);
    if (!copies) return HOODIE_NOMEM();
    for (size_t l = 0; l < map->n_leaves; l++) {
        if (map->top[l] == except_top) continue;
        HOODIE_TRY(chunk_copy(a, src, rg, map->src_leaf[l], codec, &copies[l]));
        if (!copies[l]) return HOODIE_OK;
    }
    *out = (const hoodie_pq_chunk_copy *const *)copies;
    return HOODIE_OK;
}
