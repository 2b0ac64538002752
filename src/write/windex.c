/*
 * The write client's index lookup (write/writer_int.h): which existing file group holds each updated or deleted
 * key. Bloom index: key ranges and bloom filters of the base-file footers, then an exact check of the candidates
 * against the files' record keys; tables without meta fields: the SIMPLE index (key fields of every base file).
 */
#include "write/writer_int.h"
#include "write/mdt.h"

hoodie_status hoodie_wr__keybits_init(keybits *b, size_t n)
{
    size_t bits = 512;
    while (bits < n * 16 && bits < ((size_t)1 << 31)) bits <<= 1;
    b->mask = (uint32_t)(bits - 1);
    b->w = calloc(bits / 64, sizeof *b->w);
    return b->w ? HOODIE_OK : HOODIE_NOMEM();
}

/* ---- index lookup ---- */


hoodie_status hoodie_wr__key_index(const wctx *w, const rowvec *rows, hoodie_hmap *m, keybits *kb)
{
    kb->w = NULL;
    hoodie_status rc = hoodie_hmap_init(m, rows->n + 1);
    if (rc == HOODIE_OK) rc = hoodie_wr__keybits_init(kb, rows->n);
    for (size_t i = 0; rc == HOODIE_OK && i < rows->n; i++) {
        size_t kl;
        const char *k = key_at(&w->keys, rows->v[i], &kl);
        uint32_t h = hoodie_hmap_hash(k, kl);
        uint64_t *slot;
        int existed;
        keybits_add(kb, h);
        rc = hoodie_hmap_upsert_hashed(m, k, kl, h, &slot, &existed);
        if (rc == HOODIE_OK) *slot = i;
    }
    return rc;
}

/*
 * The exact check: which of the candidate rows `cand` have their key in a base file. The file's
 * _hoodie_record_key column is streamed (no copy of the file's keys is kept) against the candidates, merged with
 * them or looked up in a hash map of them (reader_probe); found[i] is set for the candidates present.
 */
static const char *const key_column[] = { "_hoodie_record_key" };

/* A base file opened for its footer and its record keys alone. */
static hoodie_status open_keys(wctx *w, const hoodie_fs_file *f, hoodie_parquet_reader **r)
{
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    o.storage = w->s;
    o.columns = key_column;
    o.n_columns = 1;
    return hoodie_parquet_reader_open(r, f->path, &o);
}

/* memcmp order, shorter first on a tie (hoodie_keyed_row_cmp's order). */
static inline int key_cmp(const void *a, size_t al, const void *b, size_t bl)
{
    size_t m = al < bl ? al : bl;
    int c = m ? memcmp(a, b, m) : 0;
    return c ? c : (al > bl) - (al < bl);
}

/* A key's first 8 bytes (zero-padded) as a number ordered as memcmp orders them. */
static inline uint64_t key_prefix(const void *p, size_t n)
{
    uint64_t v = 0;
    if (n >= 8) memcpy(&v, p, 8); /* a fixed size: one load */
    else
        for (size_t i = 0; i < n; i++) ((uint8_t *)&v)[i] = ((const uint8_t *)p)[i];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* key_cmp, given both keys' prefixes: equal prefixes with a key of 8 bytes or fewer make the shorter one first. */
static inline int key_cmp_pre(uint64_t ap, const uint8_t *a, size_t al, uint64_t bp, const uint8_t *b, size_t bl)
{
    if (ap != bp) return ap < bp ? -1 : 1;
    if (al <= 8 || bl <= 8) return (al > bl) - (al < bl);
    return key_cmp(a + 8, al - 8, b + 8, bl - 8);
}

/* reader_probe's state: the candidates merged with the file's keys while these rise, else a hash map of them. */
typedef struct probe {
    wctx *w;
    const rowvec *cand;
    const uint64_t *cpre; /* the candidates' key prefixes */
    uint8_t *found;
    size_t j;             /* merge: the first candidate not below the keys seen */
    int hashed;
    hoodie_hmap map;
    keybits kb;
    const uint8_t *prev;  /* the previous key (in the current page or batch, else in `last`) */
    size_t prev_len;
    uint64_t prev_pre;
    int have_prev;
    hoodie_buf last;
} probe;

static hoodie_status probe_hash(probe *ps)
{
    ps->hashed = 1;
    return hoodie_wr__key_index(ps->w, ps->cand, &ps->map, &ps->kb);
}

/* One key of the file. */
static inline hoodie_status probe_key(probe *ps, const uint8_t *kp, size_t kl)
{
    if (!ps->hashed) {
        uint64_t kpre = key_prefix(kp, kl);
        if (!ps->have_prev || key_cmp_pre(kpre, kp, kl, ps->prev_pre, ps->prev, ps->prev_len) >= 0) {
            ps->prev = kp;
            ps->prev_len = kl;
            ps->prev_pre = kpre;
            ps->have_prev = 1;
            const rowvec *cand = ps->cand;
            size_t j = ps->j;
            for (; j < cand->n && ps->cpre[j] <= kpre; j++) {
                size_t cl;
                const uint8_t *c = (const uint8_t *)key_at(&ps->w->keys, cand->v[j], &cl);
                int d = key_cmp_pre(ps->cpre[j], c, cl, kpre, kp, kl);
                if (d >= 0) {
                    if (d == 0) ps->found[j] = 1;
                    break;
                }
            }
            ps->j = j;
            return HOODIE_OK;
        }
        hoodie_status rc = probe_hash(ps); /* a key below the one before: the rest through the map */
        if (rc < 0) return rc;
    }
    uint32_t h = hoodie_hmap_hash(kp, kl);
    if (!keybits_may(&ps->kb, h)) return HOODIE_OK;
    uint64_t *v = hoodie_hmap_get_hashed(&ps->map, kp, kl, h);
    if (v) ps->found[*v] = 1;
    return HOODIE_OK;
}

/* The page's or batch's last key kept past it (its memory goes with it). */
static hoodie_status probe_keep_prev(probe *ps)
{
    if (ps->hashed || !ps->have_prev || ps->prev == ps->last.data) return HOODIE_OK;
    ps->last.len = 0;
    hoodie_status rc = hoodie_buf_append(&ps->last, ps->prev, ps->prev_len);
    ps->prev = ps->last.data;
    return rc;
}

/*
 * base_file_probe on a reader open_keys opened (left open). The candidates come in key order (the lookup's sorted
 * rows), and base files are often sorted by key too (a sorted bulk insert, a merge of one): while the file's keys
 * keep rising they are merged with the candidates, mostly comparisons of 8-byte prefixes; the first key that
 * falls (or candidates out of order) switches to a hash map of the candidates for the rest of the file. PLAIN
 * pages are read in place (hoodie_pq_scan_plain_page), others a batch at a time.
 */
static hoodie_status reader_probe(wctx *w, hoodie_parquet_reader *r, const char *path, const rowvec *cand,
                                  uint8_t *found)
{
    probe ps = { .w = w, .cand = cand, .found = found, .map = HOODIE_HMAP_INIT, .last = HOODIE_BUF_INIT };
    hoodie_status rc = HOODIE_OK;
    uint64_t *cpre = malloc((cand->n + 1) * sizeof *cpre);
    if (!cpre) return HOODIE_NOMEM();
    ps.cpre = cpre;
    for (size_t i = 0; i < cand->n; i++) {
        size_t cl;
        const char *c = key_at(&w->keys, cand->v[i], &cl);
        cpre[i] = key_prefix(c, cl);
        if (i && !ps.hashed) {
            size_t pl;
            const char *p = key_at(&w->keys, cand->v[i - 1], &pl);
            if (key_cmp_pre(cpre[i - 1], (const uint8_t *)p, pl, cpre[i], (const uint8_t *)c, cl) > 0) ps.hashed = 1;
        }
    }
    if (ps.hashed) rc = probe_hash(&ps);
    hoodie_pq_scan *sc = NULL;
    if (rc == HOODIE_OK) rc = hoodie_pqfile__scan_open(r, &sc);
    while (rc == HOODIE_OK) {
        const uint8_t *p, *end;
        int64_t n;
        rc = hoodie_pq_scan_plain_page(sc, &p, &end, &n);
        if (rc == HOODIE_OK) {
            for (int64_t i = 0; i < n && rc == HOODIE_OK; i++) {
                const uint8_t *kp;
                size_t kl;
                if (!hoodie_pq_plain_next(&p, end, &kp, &kl))
                    rc = HOODIE_CORRUPT("%s: _hoodie_record_key: value %lld of the page at offset %llu overruns it",
                                        path, (long long)i,
                                        (unsigned long long)hoodie_pq_scan_page_offset(sc));
                else rc = probe_key(&ps, kp, kl);
            }
            if (rc == HOODIE_OK) rc = probe_keep_prev(&ps);
            continue;
        }
        if (rc != 1) break;
        hoodie_batch b;
        if ((rc = hoodie_pq_scan_next(sc, &b)) < 0) break;
        const hoodie_array *k = &b.root.children[0];
        for (int64_t i = 0; rc == HOODIE_OK && i < k->length; i++) {
            if (!hoodie_array_is_valid(k, i)) continue;
            size_t kl;
            const uint8_t *kp = hoodie_array_bytes_at(k, i, &kl);
            rc = probe_key(&ps, kp, kl);
        }
        if (rc == HOODIE_OK) rc = probe_keep_prev(&ps);
        hoodie_batch_dispose(&b);
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    hoodie_pq_scan_free(sc);
    hoodie_buf_dispose(&ps.last);
    hoodie_hmap_dispose(&ps.map);
    free(ps.kb.w);
    free(cpre);
    return rc;
}

static hoodie_status base_file_probe(wctx *w, const hoodie_fs_file *f, const rowvec *cand, uint8_t *found)
{
    hoodie_parquet_reader *r = NULL;
    hoodie_status rc = open_keys(w, f, &r);
    if (rc == HOODIE_OK) rc = reader_probe(w, r, f->path, cand, found);
    hoodie_parquet_reader_free(r);
    return rc;
}

/*
 * The SIMPLE index of a table without meta fields (its footers have no key index, its records no stored keys):
 * every latest base file of a partition the input writes to is read for the key fields alone, its keys formed
 * by the table's key generator and looked up among that partition's input rows, as Hudi's SIMPLE index joins
 * them. A row found in a file is an update of its group; the others are inserts.
 */
static hoodie_status simple_probe(wctx *w, const hoodie_fs_file *f, const hoodie_hmap *map, const keybits *kb,
                                  uint8_t *found, int64_t *num_rows)
{
    /* the top-level columns the key (and partition) fields are in (dot paths go through structs); the key
     * generator resolves both */
    size_t nk = w->kg.key_count + w->kg.part_count, nc = 0;
    char **cols = calloc(nk + 1, sizeof *cols);
    hoodie_status rc = cols ? HOODIE_OK : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < nk; i++) {
        const hoodie_keygen_field *kf = i < w->kg.key_count ? &w->kg.keys[i] : &w->kg.parts[i - w->kg.key_count];
        const char *name = kf->name, *dot = strchr(name, '.');
        size_t len = dot ? (size_t)(dot - name) : strlen(name), j = 0;
        while (j < nc && !(strlen(cols[j]) == len && !memcmp(cols[j], name, len))) j++;
        if (j < nc) continue;
        if (!(cols[nc] = strndup(name, len))) rc = HOODIE_NOMEM();
        else nc++;
    }
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    hoodie_parquet_reader *r = NULL;
    hoodie_pq_scan *sc = NULL;
    hoodie_keygen_out ko;
    hoodie_keygen_out_init(&ko);
    o.storage = w->s;
    o.columns = (const char *const *)cols;
    o.n_columns = nc;
    if (rc == HOODIE_OK) rc = hoodie_parquet_reader_open(&r, f->path, &o);
    if (rc == HOODIE_OK) *num_rows = hoodie_parquet_reader_num_rows(r);
    if (rc == HOODIE_OK) rc = hoodie_pqfile__scan_open(r, &sc);
    while (rc == HOODIE_OK) {
        hoodie_batch b;
        rc = hoodie_pq_scan_next(sc, &b);
        if (rc < 0) break;
        hoodie_keygen_plan kg;
        rc = hoodie_keygen_init(&kg, w->cfg, &b.schema);
        if (rc == HOODIE_OK) {
            rc = hoodie_keygen_record_keys(&kg, &b, &ko);
            hoodie_keygen_dispose(&kg);
        }
        for (int64_t i = 0; rc == HOODIE_OK && i < ko.rows; i++) {
            const uint8_t *kp = ko.data.data + ko.offsets[i];
            size_t kl = (size_t)(ko.offsets[i + 1] - ko.offsets[i]);
            uint32_t h = hoodie_hmap_hash(kp, kl);
            if (!keybits_may(kb, h)) continue;
            uint64_t *v = hoodie_hmap_get_hashed(map, kp, kl, h);
            if (v) found[*v] = 1;
        }
        hoodie_batch_dispose(&b);
        if (rc < 0) hoodie_error__prefix("%s: ", f->path);
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    hoodie_keygen_out_dispose(&ko);
    hoodie_pq_scan_free(sc);
    hoodie_parquet_reader_free(r);
    for (size_t i = 0; i < nc; i++) free(cols[i]);
    free(cols);
    return rc;
}

static hoodie_status simple_lookup(wctx *w, int32_t *row_group)
{
    rowvec *rows = calloc(w->n_parts + 1, sizeof *rows);
    uint8_t *found = calloc(w->live.n + 1, 1);
    hoodie_status rc = rows && found ? HOODIE_OK : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < w->live.n; i++) rc = rv_push(&rows[w->row_part[w->live.v[i]]], w->live.v[i]);
    for (size_t p = 0; rc == HOODIE_OK && p < w->n_parts; p++) {
        if (!rows[p].n) continue;
        hoodie_hmap map = HOODIE_HMAP_INIT;
        keybits kb;
        rc = hoodie_wr__key_index(w, &rows[p], &map, &kb);
        for (size_t g = 0; rc == HOODIE_OK && g < w->view->group_count; g++) {
            const hoodie_file_group *fg = &w->view->groups[g];
            const hoodie_file_slice *sl = hoodie_file_group_latest(fg);
            if (hoodie_wr__part_index(w, fg->partition) != (int)p || !sl || !sl->base) continue;
            int64_t base_rows = 0;
            memset(found, 0, rows[p].n);
            rc = simple_probe(w, sl->base, &map, &kb, found, &base_rows);
            wgroup *grp = NULL;
            for (size_t i = 0; rc == HOODIE_OK && i < rows[p].n; i++) {
                int64_t row = rows[p].v[i];
                if (!found[i] || row_group[row] >= 0) continue; /* a key in two files: the first one's */
                if (!grp) {
                    grp = hoodie_wr__new_group(w, (uint32_t)p, fg);
                    if (!grp) { rc = HOODIE_ENOMEM; break; }
                    grp->base_rows = base_rows;
                }
                row_group[row] = (int32_t)(grp - w->groups);
            }
        }
        hoodie_hmap_dispose(&map);
        free(kb.w);
    }
    for (size_t p = 0; rows && p < w->n_parts; p++) free(rows[p].v);
    free(rows);
    free(found);
    return rc;
}

/* Keys in range of a file, tested against its bloom filter a batch at a time (hoodie_bloom_test_many). */
enum { BLOOM_BATCH = 256 };
typedef struct bloom_batch {
    const uint8_t *key[BLOOM_BATCH];
    size_t len[BLOOM_BATCH];
    int64_t row[BLOOM_BATCH];
    uint8_t maybe[BLOOM_BATCH];
    size_t n;
} bloom_batch;

/* The batch's rows whose keys may be in the filter, in order, onto `cand`; the batch is emptied. */
static hoodie_status bloom_batch_flush(const hoodie_bloom *bloom, bloom_batch *bb, rowvec *cand)
{
    hoodie_bloom_test_many(bloom, bb->key, bb->len, bb->n, bb->maybe);
    hoodie_status rc = HOODIE_OK;
    for (size_t j = 0; j < bb->n && rc == HOODIE_OK; j++)
        if (bb->maybe[j]) rc = rv_push(cand, bb->row[j]);
    bb->n = 0;
    return rc;
}

/*
 * A file's candidates among the rows prow[from, to) in its key range: those its bloom filter `bf` (footer text,
 * NULL: none) may hold, onto `cand`. With `first` (a MOR lookup: every candidate is then checked against the
 * file's keys, which are not fewer than these rows) the filter is consulted only until one row may be present:
 * the file is read for that row anyway, and the exact check answers for the rest as well as the filter would.
 * Those tests read the filter's text in place (hoodie_bloom_text); after FIRST_TESTS rows that may all be absent
 * it is decoded and tested a batch at a time instead, as it is for every row without `first`.
 */
enum { FIRST_TESTS = 4096 };
static hoodie_status file_candidates(const char *bf, const char *type_code, const char *what,
                                     const hoodie_keyed_row *prow, size_t from, size_t to, int first, rowvec *cand)
{
    hoodie_status rc = HOODIE_OK;
    size_t i = from;
    if (!bf) {
        for (; i < to && rc == HOODIE_OK; i++) rc = rv_push(cand, prow[i].row);
        return rc;
    }
    hoodie_bloom_text t;
    if (first && hoodie_bloom_text_open(&t, bf, strlen(bf), type_code, what) == HOODIE_OK) {
        size_t end = to - from > FIRST_TESTS ? from + FIRST_TESTS : to;
        for (; i < end; i++) {
            int maybe = hoodie_bloom_text_test(&t, prow[i].k, prow[i].len);
            if (maybe < 0) return maybe;
            if (!maybe) continue;
            for (; i < to && rc == HOODIE_OK; i++) rc = rv_push(cand, prow[i].row);
            return rc;
        }
        if (i == to) return HOODIE_OK; /* none may be present: the file is not read */
    }
    hoodie_bloom bloom;
    if ((rc = hoodie_bloom_from_base64(&bloom, bf, strlen(bf), type_code, what)) < 0) return rc;
    bloom_batch bb;
    bb.n = 0;
    for (; rc == HOODIE_OK && i < to; i++) {
        bb.key[bb.n] = (const uint8_t *)prow[i].k;
        bb.len[bb.n] = prow[i].len;
        bb.row[bb.n++] = prow[i].row;
        if (bb.n == BLOOM_BATCH) rc = bloom_batch_flush(&bloom, &bb, cand);
    }
    if (rc == HOODIE_OK && bb.n) rc = bloom_batch_flush(&bloom, &bb, cand);
    hoodie_bloom_dispose(&bloom);
    return rc;
}

/*
 * The exact check of one file's candidates, and the rows it holds assigned to its group. Rows assigned already
 * (found in an earlier file) are passed over. trust_single: rows that are candidates of this file alone are taken
 * unchecked (see hoodie_wr__lookup). r: the file opened by open_keys, or NULL to open it here.
 */
static hoodie_status settle(wctx *w, const hoodie_file_group *fg, int pi, int64_t base_rows, const rowvec *cand,
                            int trust_single, const uint8_t *n_files, hoodie_parquet_reader *r, int32_t *row_group)
{
    const hoodie_file_slice *sl = hoodie_file_group_latest(fg);
    rowvec check = { 0 };
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; rc == HOODIE_OK && i < cand->n; i++)
        if (row_group[cand->v[i]] < 0 && !(trust_single && n_files[cand->v[i]] == 1)) rc = rv_push(&check, cand->v[i]);
    uint8_t *found = rc == HOODIE_OK && check.n ? calloc(check.n, 1) : NULL;
    if (rc == HOODIE_OK && check.n && !found) rc = HOODIE_NOMEM();
    if (rc == HOODIE_OK && check.n) rc = r ? reader_probe(w, r, sl->base->path, &check, found) : base_file_probe(w, sl->base, &check, found);
    wgroup *grp = NULL;
    size_t k = 0; /* check.v is in cand->v's order */
    for (size_t i = 0; rc == HOODIE_OK && i < cand->n; i++) {
        int64_t row = cand->v[i];
        int take;
        if (k < check.n && check.v[k] == row) take = found[k++];
        else take = row_group[row] < 0 && trust_single && n_files[row] == 1;
        if (!take) continue;
        if (!grp) {
            grp = hoodie_wr__new_group(w, (uint32_t)pi, fg);
            if (!grp) { rc = HOODIE_ENOMEM; break; }
            grp->base_rows = base_rows;
        }
        row_group[row] = (int32_t)(grp - w->groups);
    }
    free(found);
    free(check.v);
    return rc;
}

/* Index of partition path p in part_names (`parts` maps them), added when new. */
static hoodie_status part_of(wctx *w, hoodie_hmap *parts, const char *p, uint32_t *out)
{
    uint64_t *slot;
    int existed;
    HOODIE_TRY(hoodie_hmap_upsert(parts, p, strlen(p), &slot, &existed));
    if (!existed) {
        char **np = realloc(w->part_names, (w->n_parts + 1) * sizeof *np);
        if (!np) return HOODIE_NOMEM();
        w->part_names = np;
        if (!(np[w->n_parts] = strdup(p))) return HOODIE_NOMEM();
        *slot = w->n_parts++;
    }
    *out = (uint32_t)*slot;
    return HOODIE_OK;
}

/* A global index moving records (update.partition.path=true): the rows whose key is held in another partition,
 * and what becomes of each once its stored record is seen */
enum { MOVE_STAY = 0, MOVE_MOVE, MOVE_INSERT };
typedef struct movers {
    wctx *w;
    size_t n, cap;
    size_t *live_at;                /* index into w->live of each */
    uint8_t *fate;                  /* MOVE_*: MOVE_INSERT until its stored record is seen */
    int64_t *filled;                /* MOVE_MOVE: the input row filled from the stored record where it lacks values
                                       (partial updates, TOASTed values: hoodie_wr__fill_row), or -1 */
    hoodie_hmap by_key;             /* key -> index into live_at */
} movers;

static hoodie_status movers_add(movers *m, size_t live_i)
{
    if (m->n == m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 64;
        size_t *la = realloc(m->live_at, nc * sizeof *la);
        if (la) m->live_at = la;
        int64_t *fl = la ? realloc(m->filled, nc * sizeof *fl) : NULL;
        if (fl) m->filled = fl;
        uint8_t *f = fl ? realloc(m->fate, nc) : NULL;
        if (!f) return HOODIE_NOMEM();
        m->fate = f;
        m->cap = nc;
    }
    m->filled[m->n] = -1;
    m->fate[m->n] = MOVE_INSERT;
    m->live_at[m->n++] = live_i;
    return HOODIE_OK;
}

static void movers_dispose(movers *m)
{
    free(m->live_at);
    free(m->fate);
    free(m->filled);
}

/* A column of the stored records by the name of an input column (-1: none). */
static int stored_col(const wctx *w, const hoodie_batch *b, int in_col)
{
    return in_col < 0 ? -1 : hoodie_field_find(&b->schema, w->in.schema.children[in_col].name);
}

/* Partial updates: the input's rows lack the columns the input has none of (w->absent is by file column). */
static const uint8_t *input_absent(void *ctx, const hoodie_batch *b, int64_t r)
{
    const wctx *w = ctx;
    (void)r;
    return b == &w->in && w->absent ? w->absent + 5 : NULL;
}

/* Each stored record of a mover: does the input row win over it by the table's merge rule? One that moves takes
 * the stored values where it lacks its own (partial updates, TOASTed values), as Hudi's merged record does: the
 * record inserted elsewhere is the merge of the two. */
static hoodie_status movers_each(void *ctx, hoodie_batch *b)
{
    movers *m = ctx;
    wctx *w = m->w;
    hoodie_merge_mode mode = w->cfg->merge_mode == HOODIE_MERGE_EVENT_TIME_ORDERING ? HOODIE_MERGE_EVENT_TIME_ORDERING
                                                                                     : HOODIE_MERGE_COMMIT_TIME_ORDERING;
    int kc = hoodie_field_find(&b->schema, "_hoodie_record_key"), oc = stored_col(w, b, w->ord_col);
    if (kc < 0) return HOODIE_FAIL(HOODIE_ESTATE, "%s: the records looked up have no _hoodie_record_key", w->t->base_path);
    int more[HOODIE_ORDERING_FIELDS_MAX];
    for (int j = 0; j < w->n_more_ord; j++) more[j] = stored_col(w, b, w->more_ord[j]);
    hoodie_fill_spec fs = w->fill_in; /* (borrowed arrays) with the input's absent columns */
    fs.absent_of = input_absent;
    fs.absent_ctx = w;
    int fills = w->fill_in.cols || w->absent;
    int64_t *fill_at = fills ? malloc(((size_t)b->root.length + 1) * sizeof *fill_at) : NULL; /* -> mover */
    if (fills && !fill_at) return HOODIE_NOMEM();
    int any_fill = 0;
    for (int64_t r = 0; r < b->root.length; r++) {
        if (fill_at) fill_at[r] = -1;
        size_t kl;
        const uint8_t *k = hoodie_array_bytes_at(&b->root.children[kc], r, &kl);
        uint64_t *slot = k ? hoodie_hmap_get(&m->by_key, k, kl) : NULL;
        if (!slot) continue;
        hoodie_merge_version vo = { 0 }, vn;
        if (oc >= 0) hoodie_ordering_of(&vo.ord, &b->schema.children[oc], &b->root.children[oc], r);
        if (w->policy.seq_ordering) hoodie_ordering_seq(&vo.ord);
        vo.n_more = w->n_more_ord;
        vo.more_cols = more;
        vo.more_batch = b;
        vo.more_row = r;
        version_of(w, w->live.v[m->live_at[*slot]], &vn);
        m->fate[*slot] = hoodie_merge_newer_wins(mode, &vo, &vn) ? MOVE_MOVE : MOVE_STAY;
        if (fill_at && m->fate[*slot] == MOVE_MOVE) fill_at[r] = (int64_t)*slot, any_fill = 1;
    }
    hoodie_status rc = HOODIE_OK;
    if (any_fill) { /* the stored records in the input's shape (their arrays taken), then the filled rows */
        hoodie_batch cb;
        rc = hoodie_conform_batch(&cb, &w->in.schema, b);
        int have_cb = rc == HOODIE_OK;
        for (int64_t r = 0; rc == HOODIE_OK && r < cb.root.length; r++) {
            if (fill_at[r] < 0) continue;
            int64_t row = w->live.v[m->live_at[fill_at[r]]];
            if (hoodie_fill_wanted(&fs, &w->in, row, &cb, r, 0))
                rc = hoodie_wr__fill_row(w, &fs, row, &cb, r, &m->filled[fill_at[r]]);
        }
        if (have_cb) hoodie_batch_dispose(&cb);
        if (rc < 0) hoodie_error__prefix("%s: the stored records of keys moved: ", w->t->base_path);
    }
    free(fill_at);
    return rc;
}

/*
 * The movers' fates, from their stored records (a snapshot point lookup through the write's hooks): an input row
 * that loses to its stored record stays where the record is (Hudi's merged record is the stored one, in its
 * partition); one that wins moves (inserted in its own partition, deleted in the stored one's); one without a
 * live record (the index held a deleted key) is inserted.
 */
static hoodie_status movers_fates(wctx *w, movers *m)
{
    const char **keys = malloc((m->n + 1) * sizeof *keys);
    hoodie_status rc = keys ? hoodie_hmap_init(&m->by_key, m->n + 1) : HOODIE_NOMEM();
    for (size_t j = 0; rc == HOODIE_OK && j < m->n; j++) {
        size_t kl;
        const char *k = key_at(&w->keys, w->live.v[m->live_at[j]], &kl);
        uint64_t *slot;
        int existed;
        if (!(keys[j] = hoodie_arena_strndup(w->arena, kl ? k : "", kl))) rc = HOODIE_NOMEM();
        else if ((rc = hoodie_hmap_upsert(&m->by_key, keys[j], kl, &slot, &existed)) == HOODIE_OK) *slot = j;
    }
    if (rc == HOODIE_OK && (!w->hooks || !w->hooks->current))
        rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: moving records across partitions needs their stored versions, "
                         "which this write cannot look up", w->t->base_path);
    if (rc == HOODIE_OK) rc = w->hooks->current(w->t, keys, m->n, movers_each, m);
    hoodie_hmap_dispose(&m->by_key);
    free(keys);
    return rc;
}

/* How many movers move (each adds a delete row). */
static size_t moves(const movers *m)
{
    size_t k = 0;
    for (size_t j = 0; j < m->n; j++) k += m->fate[j] == MOVE_MOVE;
    return k;
}

/* A delete of live row `row`'s key in partition `part`, a copy of it appended to the input and the live rows. */
static hoodie_status delete_row(wctx *w, int64_t row, uint32_t part, int64_t *out)
{
    HOODIE_TRY(hoodie_wr__copy_row(w, row, out));
    w->del[*out] = 1;
    w->row_part[*out] = part;
    return rv_push(&w->live, *out);
}

/* The record index's movers settled (their locations in w->rli_locs): see movers_fates. */
static hoodie_status rli_settle_movers(wctx *w, hoodie_hmap *parts, movers *m)
{
    hoodie_status rc = movers_fates(w, m);
    if (rc == HOODIE_OK) { /* room for a location per delete row */
        hoodie_mdt_location *nl = realloc(w->rli_locs, (w->live.n + moves(m) + 1) * sizeof *nl);
        if (nl) w->rli_locs = nl;
        else rc = HOODIE_NOMEM();
    }
    for (size_t j = 0; rc == HOODIE_OK && j < m->n; j++) {
        size_t i = m->live_at[j];
        int64_t row = w->live.v[i];
        uint32_t old;
        if ((rc = part_of(w, parts, w->rli_locs[i].partition, &old)) < 0) break;
        if (m->fate[j] == MOVE_STAY) {
            w->row_part[row] = old;
            continue;
        }
        hoodie_mdt_location loc = w->rli_locs[i];
        w->rli_locs[i].found = 0; /* the row is an insert in its partition */
        if (m->fate[j] == MOVE_INSERT) continue;
        if (m->filled[j] >= 0) w->live.v[i] = m->filled[j]; /* inserted as merged with the stored record */
        int64_t d;
        if ((rc = delete_row(w, row, old, &d)) < 0) break;
        w->rli_locs[w->live.n - 1] = loc;
    }
    return rc;
}

/* part_names mapped to their indices (for part_of). */
static hoodie_status parts_map(const wctx *w, hoodie_hmap *parts)
{
    hoodie_status rc = hoodie_hmap_init(parts, w->n_parts + 8);
    for (size_t p = 0; rc == HOODIE_OK && p < w->n_parts; p++) {
        uint64_t *slot;
        int existed;
        rc = hoodie_hmap_upsert(parts, w->part_names[p], strlen(w->part_names[p]), &slot, &existed);
        if (rc == HOODIE_OK) *slot = p;
    }
    return rc;
}

/*
 * GLOBAL_BLOOM: live rows whose key was found in another partition's file group. Deletes, and every row when
 * hoodie.bloom.index.update.partition.path=false, go where the key is; otherwise (Hudi's default, true) each
 * moves as movers_fates settles it: stays (the stored record wins), moves (an insert in its own partition and a
 * delete row in the file group), or is inserted. row_group grows with the delete rows.
 */
static hoodie_status global_moves(wctx *w, int32_t **row_group_p)
{
    movers m = { w, 0, 0, NULL, NULL, NULL, HOODIE_HMAP_INIT };
    int32_t *row_group = *row_group_p;
    hoodie_status rc = HOODIE_OK;
    size_t n = w->live.n;
    int64_t n_rows = w->in.root.length; /* row_group's rows */
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        int64_t row = w->live.v[i];
        int32_t g = row_group[row];
        if (g < 0 || w->groups[g].part == w->row_part[row]) continue;
        if (w->o.update_partition_path >= 0 && !w->del[row]) rc = movers_add(&m, i);
        else w->row_part[row] = w->groups[g].part;
    }
    if (rc == HOODIE_OK && m.n) rc = movers_fates(w, &m);
    if (rc == HOODIE_OK && m.n) { /* room for the rows filled from stored records (inserts) and the delete rows */
        size_t rows = (size_t)w->in.root.length + moves(&m);
        int32_t *nrg = realloc(row_group, (rows + 1) * sizeof *nrg);
        if (!nrg) rc = HOODIE_NOMEM();
        else *row_group_p = row_group = nrg;
        for (int64_t r = n_rows; rc == HOODIE_OK && r < w->in.root.length; r++) row_group[r] = -1;
    }
    for (size_t j = 0; rc == HOODIE_OK && j < m.n; j++) {
        int64_t row = w->live.v[m.live_at[j]], d;
        int32_t g = row_group[row];
        if (m.fate[j] == MOVE_STAY) { w->row_part[row] = w->groups[g].part; continue; }
        row_group[row] = -1; /* an insert in its partition */
        if (m.fate[j] == MOVE_INSERT) continue;
        if (m.filled[j] >= 0) w->live.v[m.live_at[j]] = m.filled[j]; /* inserted as merged with the stored one */
        if ((rc = delete_row(w, row, w->groups[g].part, &d)) < 0) break;
        row_group[d] = g;
    }
    movers_dispose(&m);
    return rc;
}

hoodie_status hoodie_wr__rli_locate(wctx *w)
{
    int kept = 0;
    HOODIE_TRY(hoodie_write__rli_kept(w->s, w->t->base_path, w->cfg, &kept));
    if (!kept)
        return HOODIE_FAIL(HOODIE_ESTATE, "%s: hoodie.index.type=RECORD_INDEX needs the table's record index (a "
                           "metadata table with a record_index partition: hoodie metadata TABLE init --record-index)",
                           w->t->base_path);
    size_t n = w->live.n;
    const char **keys = malloc((n + 1) * sizeof *keys);
    free(w->rli_locs);
    w->rli_locs = calloc(n + 1, sizeof *w->rli_locs);
    movers m = { w, 0, 0, NULL, NULL, NULL, HOODIE_HMAP_INIT };
    hoodie_hmap parts = HOODIE_HMAP_INIT; /* partition path -> index in part_names */
    hoodie_status rc = keys && w->rli_locs ? parts_map(w, &parts) : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        size_t kl;
        const char *k = key_at(&w->keys, w->live.v[i], &kl);
        if (!(keys[i] = hoodie_arena_strndup(w->arena, kl ? k : "", kl))) rc = HOODIE_NOMEM();
    }
    if (rc == HOODIE_OK) rc = hoodie_mdt_record_index(w->s, w->t->base_path, w->t->tl, keys, n, w->arena, w->rli_locs);
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        hoodie_mdt_location *loc = &w->rli_locs[i];
        int64_t row = w->live.v[i];
        if (!loc->found || !strcmp(loc->partition, w->part_names[w->row_part[row]])) continue;
        if (w->o.update_partition_path > 0 && !w->del[row]) { /* settled below, once the stored records are seen */
            rc = movers_add(&m, i);
            continue;
        }
        /* updated (or deleted) where the index holds it */
        uint32_t old;
        if ((rc = part_of(w, &parts, loc->partition, &old)) < 0) break;
        w->row_part[row] = old;
    }
    if (rc == HOODIE_OK && m.n) rc = rli_settle_movers(w, &parts, &m);
    movers_dispose(&m);
    hoodie_hmap_dispose(&parts);
    free(keys);
    return rc;
}

/*
 * hoodie.index.type=RECORD_INDEX: the file group of each live row's key, as hoodie_wr__rli_locate found it in the
 * metadata table's record index; keys it does not hold (or whose file group is gone: an index that held a key
 * past its delete) are inserts.
 */
static hoodie_status rli_lookup(wctx *w, int32_t *row_group)
{
    size_t n = w->live.n, ng = w->view->group_count;
    if (!w->rli_locs) return HOODIE_FAIL(HOODIE_ESTATE, "%s: the record index was not read", w->t->base_path);
    int32_t *of_view = malloc((ng + 1) * sizeof *of_view); /* view group -> its wgroup, or -1 */
    hoodie_hmap by_id = HOODIE_HMAP_INIT;
    hoodie_status rc = of_view ? hoodie_hmap_init(&by_id, ng + 1) : HOODIE_NOMEM();
    for (size_t g = 0; rc == HOODIE_OK && g < ng; g++) {
        uint64_t *slot;
        int existed;
        of_view[g] = -1;
        const char *id = w->view->groups[g].file_id;
        rc = hoodie_hmap_upsert(&by_id, id, strlen(id), &slot, &existed);
        if (rc == HOODIE_OK) *slot = g;
    }
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        const hoodie_mdt_location *loc = &w->rli_locs[i];
        if (!loc->found) continue;
        int64_t row = w->live.v[i];
        const char *part = w->part_names[w->row_part[row]];
        uint64_t *slot = hoodie_hmap_get(&by_id, loc->file_id, strlen(loc->file_id));
        const hoodie_file_group *fg = slot ? &w->view->groups[*slot] : NULL;
        if (!fg || strcmp(fg->partition, part) || !hoodie_file_group_latest(fg)) continue;
        if (of_view[*slot] < 0) {
            wgroup *grp = hoodie_wr__new_group(w, w->row_part[row], fg);
            if (!grp) { rc = HOODIE_ENOMEM; break; }
            of_view[*slot] = (int32_t)(grp - w->groups);
        }
        row_group[row] = of_view[*slot];
    }
    hoodie_hmap_dispose(&by_id);
    free(of_view);
    return rc;
}

/*
 * Which existing file group holds each live row's key (bloom index: key range, bloom filter, exact check). Each
 * partition's rows are sorted by key once, so a file's key range selects its candidates by binary search instead
 * of every row of the partition being compared with every file's range.
 */
hoodie_status hoodie_wr__lookup(wctx *w, int32_t **row_group_p)
{
    int32_t *row_group = *row_group_p;
    if (w->o.record_index) return rli_lookup(w, row_group);
    if (w->no_meta) return simple_lookup(w, row_group);
    hoodie_status rc = HOODIE_OK;
    /* the live rows by partition (a counting sort), so that each file looks at its partition's keys only; a
     * global index (GLOBAL_BLOOM) looks at every file for every key: one bucket */
    int global = w->o.global_bloom;
    size_t nb = global ? 1 : w->n_parts;
    hoodie_hmap parts = HOODIE_HMAP_INIT; /* global: partition path -> index in part_names */
    size_t *start = calloc(nb + 1, sizeof *start);
    hoodie_keyed_row *by_part = malloc((w->live.n + 1) * sizeof *by_part);
    if (!start || !by_part) { free(start); free(by_part); return HOODIE_NOMEM(); }
    for (size_t i = 0; i < w->live.n; i++) start[(global ? 0 : w->row_part[w->live.v[i]]) + 1]++;
    for (size_t p = 0; p < nb; p++) start[p + 1] += start[p];
    for (size_t i = 0; i < w->live.n; i++) {
        hoodie_keyed_row *kr = &by_part[start[global ? 0 : w->row_part[w->live.v[i]]]++];
        size_t kl;
        kr->row = (uint32_t)w->live.v[i];
        kr->k = key_at(&w->keys, kr->row, &kl);
        kr->len = (uint32_t)kl; /* key bytes are in int32-offset arrays */
    }
    for (size_t p = nb; p > 0; p--) start[p] = start[p - 1];
    start[0] = 0;
    for (size_t p = 0; p < nb && rc == HOODIE_OK; p++)
        rc = hoodie_keyed_rows_sort(by_part + start[p], start[p + 1] - start[p]);
    if (rc == HOODIE_OK && global) rc = parts_map(w, &parts);
    if (rc < 0) { free(start); free(by_part); hoodie_hmap_dispose(&parts); return rc; }
    /*
     * The candidates of every file (key range, then bloom filter), then the exact check, reading the candidate
     * files' keys. A copy-on-write table skips it for the rows that are candidates of one file only: that file is
     * rewritten anyway, its merge finds which of them it holds, and one it does not hold (a bloom false positive)
     * is inserted there, which is where the key may go (no other file can hold it: bloom filters have no false
     * negatives); so it first counts of how many files each row is a candidate, then checks the others in a
     * second pass. MOR writes updates to logs without reading the base file, so every candidate is checked, each
     * file's as soon as its footer is read (one opening per file).
     */
    int trust_single = !w->mor && !global; /* (a global index's false positive would be a key in another partition) */
    size_t ng = w->view->group_count;
    rowvec *cands = calloc(ng + 1, sizeof *cands);
    int64_t *base_rows = calloc(ng + 1, sizeof *base_rows);
    uint8_t *n_files = calloc((size_t)w->in.root.length + 1, 1);
    if (!cands || !base_rows || !n_files) rc = HOODIE_NOMEM();
    for (size_t g = 0; g < ng && rc == HOODIE_OK; g++) {
        const hoodie_file_group *fg = &w->view->groups[g];
        const hoodie_file_slice *sl = hoodie_file_group_latest(fg);
        if (!sl || !sl->base) continue;
        int pi;
        if (global) {
            uint32_t gp;
            if ((rc = part_of(w, &parts, fg->partition, &gp)) < 0) break;
            pi = (int)gp;
        } else if ((pi = hoodie_wr__part_index(w, fg->partition)) < 0) {
            continue;
        }
        size_t b = global ? 0 : (size_t)pi;
        hoodie_parquet_reader *r;
        if ((rc = open_keys(w, sl->base, &r)) < 0) break;
        const char *minkey = hoodie_parquet_reader_kv(r, "hoodie_min_record_key");
        const char *maxkey = hoodie_parquet_reader_kv(r, "hoodie_max_record_key");
        base_rows[g] = hoodie_parquet_reader_num_rows(r);
        rowvec cand = { 0 };
        const hoodie_keyed_row *prow = by_part + start[b];
        size_t from = 0, to = start[b + 1] - start[b];
        if (minkey && maxkey) {
            from = hoodie_keyed_row_bound(prow, to, minkey, 0);
            to = hoodie_keyed_row_bound(prow, to, maxkey, 1);
        }
        if (from < to)
            rc = file_candidates(hoodie_parquet_reader_kv(r, "org.apache.hudi.bloomfilter"),
                                 hoodie_parquet_reader_kv(r, "hoodie_bloom_filter_type_code"), sl->base->path, prow,
                                 from, to, !trust_single && (int64_t)(to - from) <= base_rows[g], &cand);
        if (!trust_single) {
            /* checked now, with the footer just read: files in order, as the second pass would */
            if (rc == HOODIE_OK && cand.n) rc = settle(w, fg, pi, base_rows[g], &cand, 0, n_files, r, row_group);
            free(cand.v);
        } else {
            for (size_t i = 0; i < cand.n; i++)
                if (n_files[cand.v[i]] < 2) n_files[cand.v[i]]++;
            cands[g] = cand;
        }
        hoodie_parquet_reader_free(r);
    }
    for (size_t g = 0; trust_single && g < ng && rc == HOODIE_OK; g++) {
        if (!cands[g].n) continue;
        const hoodie_file_group *fg = &w->view->groups[g];
        rc = settle(w, fg, hoodie_wr__part_index(w, fg->partition), base_rows[g], &cands[g], 1, n_files, NULL,
                    row_group);
    }
    for (size_t g = 0; cands && g < ng; g++) free(cands[g].v);
    free(cands);
    free(base_rows);
    free(n_files);
    free(start);
    free(by_part);
    if (rc == HOODIE_OK && global) rc = global_moves(w, row_group_p);
    hoodie_hmap_dispose(&parts);
    return rc;
}
