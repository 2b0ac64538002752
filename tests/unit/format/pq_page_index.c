/* Parquet page index (ColumnIndex + OffsetIndex): written by our writer, read back, used to seek rows; broken
 * index bytes are reported as corruption and scans fall back to reading the chunk from its start. */
#include "hoodie_test.h"
#include "pq_support.h"
#include "format/parquet/writer.h"
#include "model/build.h"

#define PI_ROWS 2500
#define PI_RG_ROWS 1000
#define PI_PAGE_ROWS 100

static hoodie_status pi_sink(void *ctx, const void *p, size_t n) { return hoodie_buf_append(ctx, p, n); }

static void pi_key(char *out, size_t n, int64_t row) { snprintf(out, n, "k%06lld", (long long)row * 2); }

/* key (sorted, required), v = row * 3 (null every 7th row), n: null in rows 300..499, "n<row>" elsewhere. */
static void pi_schema(hoodie_field *root)
{
    hoodie_field c;
    hoodie_assert_ok(hoodie_field_init(root, "schema", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&c, "_hoodie_record_key", hoodie_type_of(HOODIE_TYPE_STRING), 0));
    hoodie_assert_ok(hoodie_field_add_child(root, &c));
    hoodie_field_dispose(&c);
    hoodie_assert_ok(hoodie_field_init(&c, "v", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_assert_ok(hoodie_field_add_child(root, &c));
    hoodie_field_dispose(&c);
    hoodie_assert_ok(hoodie_field_init(&c, "n", hoodie_type_of(HOODIE_TYPE_STRING), 1));
    hoodie_assert_ok(hoodie_field_add_child(root, &c));
    hoodie_field_dispose(&c);
}

static void pi_write(hoodie_buf *out)
{
    hoodie_field schema;
    pi_schema(&schema);
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    o.row_group_rows = PI_RG_ROWS;
    o.page_rows = PI_PAGE_ROWS;
    hoodie_pq_sink sink = { out, pi_sink };
    hoodie_pq_writer *w;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &schema, &o, sink));
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &schema));
    const hoodie_field *f = b.schema.children;
    hoodie_array *a = b.root.children;
    char s[32];
    for (int64_t i = 0; i < PI_ROWS; i++) {
        pi_key(s, sizeof s, i);
        hoodie_assert_ok(hoodie_array_append_str(&a[0], &f[0], s));
        if (i % 7 == 6) hoodie_assert_ok(hoodie_array_append_null(&a[1], &f[1]));
        else hoodie_assert_ok(hoodie_array_append_int(&a[1], &f[1], i * 3));
        snprintf(s, sizeof s, "n%lld", (long long)i);
        if (i >= 300 && i < 500) hoodie_assert_ok(hoodie_array_append_null(&a[2], &f[2]));
        else hoodie_assert_ok(hoodie_array_append_str(&a[2], &f[2], s));
    }
    b.root.length = PI_ROWS;
    hoodie_assert_ok(hoodie_pq_writer_write(w, &b));
    hoodie_assert_ok(hoodie_pq_writer_close(w));
    hoodie_pq_writer_free(w);
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&schema);
}

static int pi_bytes_eq(const uint8_t *p, uint32_t n, const char *s) { return n == strlen(s) && !memcmp(p, s, n); }

HOODIE_TEST(format_pq_page_index__round_trip)
{
    hoodie_buf file = HOODIE_BUF_INIT;
    pi_write(&file);
    pqt_mem mem = { file.data, file.len };
    hoodie_pq_source src = { &mem, pqt_mem_read, file.len, "pi.parquet", NULL };
    hoodie_pq_file *f;
    hoodie_assert_ok(hoodie_pq_file_open(&f, &src));
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    hoodie_assert_equal_i(3, m->row_group_count);
    hoodie_arena *ar;
    hoodie_assert_ok(hoodie_arena_new(&ar, NULL, 4096));
    char k[32];
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        int64_t rows = m->row_groups[g].num_rows, base = (int64_t)g * PI_RG_ROWS;
        uint32_t pages = (uint32_t)((rows + PI_PAGE_ROWS - 1) / PI_PAGE_ROWS);
        for (int leaf = 0; leaf < 3; leaf++) {
            hoodie_pq_page_index pi;
            hoodie_arena_reset(ar);
            hoodie_assert_ok(hoodie_pq_page_index_read(f, g, leaf, ar, &pi));
            hoodie_assert_equal_i(pages, pi.oi.page_count);
            hoodie_assert(pi.has_ci);
            hoodie_assert_equal_i(pages, pi.ci.page_count);
            hoodie_assert(pi.ci.has_null_counts);
            for (uint32_t p = 0; p < pages; p++) {
                const hoodie_pq_page_location *pl = &pi.oi.pages[p];
                hoodie_assert_equal_i((int64_t)p * PI_PAGE_ROWS, pl->first_row_index);
                /* the location is a data page header whose size adds up */
                hoodie_cursor cur;
                hoodie_pq_page_header h;
                hoodie_cursor_init(&cur, file.data + pl->offset, file.len - (size_t)pl->offset, (uint64_t)pl->offset, "pi");
                hoodie_assert_ok(hoodie_pq_page_header_decode(&h, &cur, ar));
                hoodie_assert_equal_i(HOODIE_PQ_DATA_PAGE, h.type);
                hoodie_assert_equal_i(PI_PAGE_ROWS, h.data.num_values);
                hoodie_assert_equal_i(pl->compressed_page_size, (int64_t)(cur.p - cur.base) + h.compressed_size);
                int64_t r0 = base + (int64_t)p * PI_PAGE_ROWS, r1 = r0 + PI_PAGE_ROWS - 1;
                if (leaf == 0) { /* keys: the page's first and last */
                    hoodie_assert(!pi.ci.null_pages[p]);
                    pi_key(k, sizeof k, r0);
                    hoodie_assert(pi_bytes_eq(pi.ci.min_values[p], pi.ci.min_lens[p], k));
                    pi_key(k, sizeof k, r1);
                    hoodie_assert(pi_bytes_eq(pi.ci.max_values[p], pi.ci.max_lens[p], k));
                    hoodie_assert_equal_i(0, pi.ci.null_counts[p]);
                } else if (leaf == 1) { /* v: little-endian int64 bounds over the non-null rows */
                    int64_t mn, mx, lo = r0 % 7 == 6 ? r0 + 1 : r0, hi = r1 % 7 == 6 ? r1 - 1 : r1;
                    hoodie_assert_equal_i(8, pi.ci.min_lens[p]);
                    memcpy(&mn, pi.ci.min_values[p], 8);
                    memcpy(&mx, pi.ci.max_values[p], 8);
                    hoodie_assert_equal_i(lo * 3, mn);
                    hoodie_assert_equal_i(hi * 3, mx);
                } else { /* n: rows 300..499 are null pages with empty bounds */
                    int null_page = r0 >= 300 && r1 < 500;
                    hoodie_assert_equal_i(null_page, pi.ci.null_pages[p]);
                    hoodie_assert_equal_i(null_page ? PI_PAGE_ROWS : 0, pi.ci.null_counts[p]);
                    if (null_page) hoodie_assert_equal_i(0, pi.ci.max_lens[p]);
                }
            }
            /* keys and v grow page by page; n only from row 1000 on (in row group 0, max "n199" < "n99") */
            hoodie_assert_equal_i(leaf == 2 && g == 0 ? HOODIE_PQ_UNORDERED : HOODIE_PQ_ASCENDING, pi.ci.boundary_order);
            hoodie_assert_equal_i(pages - 1, hoodie_pq_page_index_find_row(&pi.oi, rows - 1));
            hoodie_assert_equal_i(1, hoodie_pq_page_index_find_row(&pi.oi, PI_PAGE_ROWS));
            hoodie_assert_equal_i(0, hoodie_pq_page_index_find_row(&pi.oi, PI_PAGE_ROWS - 1));
        }
    }
    hoodie_arena_free(ar);
    hoodie_pq_file_free(f);
    hoodie_buf_dispose(&file);
}

/* Scan from row `first` of row group `rg` (batch of `n` rows): the rows are those of the file. */
static void pi_check_seek(hoodie_pq_file *f, uint32_t rg, int64_t first, int64_t n)
{
    hoodie_pq_scan_opts so = { NULL, 0, &rg, 1, n, first };
    hoodie_pq_scan *sc;
    hoodie_batch b;
    hoodie_assert_ok(hoodie_pq_scan_open(&sc, f, &so));
    hoodie_assert_ok(hoodie_pq_scan_next(sc, &b));
    hoodie_assert_equal_i(n, b.root.length);
    char k[32];
    for (int64_t i = 0; i < n; i++) {
        int64_t row = (int64_t)rg * PI_RG_ROWS + first + i;
        const hoodie_array *ka = &b.root.children[0], *va = &b.root.children[1], *na = &b.root.children[2];
        pi_key(k, sizeof k, row);
        hoodie_assert(pi_bytes_eq(ka->values + ka->offsets[i], (uint32_t)(ka->offsets[i + 1] - ka->offsets[i]), k));
        hoodie_assert_equal_i(row % 7 != 6, hoodie_array_is_valid(va, i));
        if (row % 7 != 6) hoodie_assert_equal_i(row * 3, ((const int64_t *)va->values)[i]);
        hoodie_assert_equal_i(!(row >= 300 && row < 500), hoodie_array_is_valid(na, i));
    }
    hoodie_batch_dispose(&b);
    /* the rest of the row group follows */
    int64_t left = (int64_t)hoodie_pq_file_metadata(f)->row_groups[rg].num_rows - first - n;
    while (left > 0) {
        hoodie_assert_ok(hoodie_pq_scan_next(sc, &b));
        left -= b.root.length;
        hoodie_batch_dispose(&b);
    }
    hoodie_assert_equal_i(0, left);
    hoodie_assert_status(HOODIE_ITEROVER, hoodie_pq_scan_next(sc, &b));
    hoodie_pq_scan_free(sc);
}

static void pi_check_seeks(hoodie_pq_file *f)
{
    static const int64_t firsts[] = { 0, 1, 99, 100, 101, 350, 555, 899, 999 };
    for (size_t i = 0; i < sizeof firsts / sizeof *firsts; i++) {
        pi_check_seek(f, 0, firsts[i], 1);
        pi_check_seek(f, 1, firsts[i], firsts[i] < 990 ? 10 : 1);
    }
    pi_check_seek(f, 2, 499, 1); /* the last row of the file */
    pi_check_seek(f, 2, 250, 120);
}

HOODIE_TEST(format_pq_page_index__seek_rows)
{
    hoodie_buf file = HOODIE_BUF_INIT;
    pi_write(&file);
    pqt_mem mem = { file.data, file.len };
    hoodie_pq_source src = { &mem, pqt_mem_read, file.len, "pi.parquet", NULL };
    hoodie_pq_file *f;
    hoodie_assert_ok(hoodie_pq_file_open(&f, &src));
    pi_check_seeks(f);
    uint32_t rg = 0;
    hoodie_pq_scan_opts so = { NULL, 0, &rg, 1, 10, PI_RG_ROWS + 1 };
    hoodie_pq_scan *sc;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_pq_scan_open(&sc, f, &so));
    hoodie_pq_file_free(f);
    hoodie_buf_dispose(&file);
}

/* Garbage over a chunk's index bytes: reading the index is corruption naming the file and offset; scans still
 * seek correctly (from the chunk's start). */
HOODIE_TEST(format_pq_page_index__corrupt_index_bytes)
{
    hoodie_buf file = HOODIE_BUF_INIT;
    pi_write(&file);
    pqt_mem mem = { file.data, file.len };
    hoodie_pq_source src = { &mem, pqt_mem_read, file.len, "pi.parquet", NULL };
    hoodie_pq_file *f;
    hoodie_assert_ok(hoodie_pq_file_open(&f, &src));
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    /* OffsetIndexes of every chunk of row groups 0 and 1, the ColumnIndex of row group 0's key column */
    for (uint32_t g = 0; g < 2; g++)
        for (uint32_t c = 0; c < 3; c++) {
            const hoodie_pq_column_chunk *cc = &m->row_groups[g].columns[c];
            hoodie_assert(cc->has_offset_index && cc->has_column_index);
            memset(file.data + cc->offset_index_offset, g ? 0x15 : 0xff, (size_t)cc->offset_index_length);
        }
    /* and the ColumnIndex of row group 2's key column, after its first field header */
    const hoodie_pq_column_chunk *k2 = &m->row_groups[2].columns[0];
    memset(file.data + k2->column_index_offset + 1, 0x19, (size_t)k2->column_index_length - 1);
    hoodie_arena *ar;
    hoodie_pq_page_index pi;
    hoodie_assert_ok(hoodie_arena_new(&ar, NULL, 4096));
    for (uint32_t g = 0; g < 2; g++) {
        hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_page_index_read(f, g, 0, ar, &pi));
        hoodie_assert(strstr(hoodie_error_last()->message, "pi.parquet") != NULL);
    }
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_page_index_read(f, 2, 0, ar, &pi));
    hoodie_assert_ok(hoodie_pq_page_index_read(f, 2, 1, ar, &pi));
    pi_check_seeks(f);
    hoodie_pq_file_free(f);
    hoodie_arena_free(ar);

    /* an index that points outside its chunk */
    hoodie_buf enc = HOODIE_BUF_INIT;
    hoodie_pq_page_location bad[2] = { { 4, 10, 0 }, { 5, 10, 50 } };
    hoodie_pq_offset_index oi = { 2, bad };
    hoodie_assert_ok(hoodie_pq_offset_index_encode(&oi, &enc));
    hoodie_cursor cur;
    hoodie_assert_ok(hoodie_arena_new(&ar, NULL, 4096));
    hoodie_cursor_init(&cur, enc.data, enc.len, 0, "oi");
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_offset_index_decode(&oi, &cur, ar)); /* pages overlap */
    hoodie_arena_free(ar);
    hoodie_buf_dispose(&enc);
    hoodie_buf_dispose(&file);
}

/* Byte-string bounds (page index and row-group statistics) over values built to defeat an 8-byte prefix shortcut:
 * shared 8-byte prefixes, proper prefixes of each other, embedded zero bytes ("a" < "a\0"), bytes >= 0x80, empty
 * strings. Every page's min/max must be the brute-force unsigned lexicographic bounds of its values. */
#define BS_ROWS 3000
#define BS_PAGE 37

static size_t bs_value(uint64_t *seed, uint8_t *out)
{
    static const uint8_t alpha[] = { 0x00, 0x01, 'a', 'b', 0x7f, 0x80, 0xff };
    static const uint8_t stems[][10] = { "prefix_a", "prefix_b", "prefix" };
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t r = *seed >> 24;
    size_t n = 0;
    if (r % 3) { /* a common stem of 6 or 8 bytes, then 0..4 more bytes */
        const uint8_t *st = stems[(r >> 2) % 3];
        size_t sl = strlen((const char *)st);
        memcpy(out, st, sl);
        n = sl;
    }
    size_t extra = (r >> 5) % 5;
    for (size_t i = 0; i < extra; i++) out[n++] = alpha[(r >> (8 + 3 * i)) % sizeof alpha];
    return n;
}

static int bs_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    for (size_t i = 0; i < al && i < bl; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return al < bl ? -1 : al > bl;
}

HOODIE_TEST(format_pq_page_index__byte_string_bounds)
{
    hoodie_field schema, c;
    hoodie_assert_ok(hoodie_field_init(&schema, "schema", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&c, "b", hoodie_type_of(HOODIE_TYPE_BINARY), 0));
    hoodie_assert_ok(hoodie_field_add_child(&schema, &c));
    hoodie_field_dispose(&c);
    static uint8_t vals[BS_ROWS][16];
    static size_t lens[BS_ROWS];
    uint64_t seed = 7;
    for (int i = 0; i < BS_ROWS; i++) lens[i] = bs_value(&seed, vals[i]);
    hoodie_buf file = HOODIE_BUF_INIT;
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    o.page_rows = BS_PAGE;
    o.row_group_rows = 1000;
    hoodie_pq_sink sink = { &file, pi_sink };
    hoodie_pq_writer *w;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &schema, &o, sink));
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &schema));
    for (int i = 0; i < BS_ROWS; i++)
        hoodie_assert_ok(hoodie_array_append_bytes(&b.root.children[0], &b.schema.children[0], vals[i], lens[i]));
    b.root.length = BS_ROWS;
    hoodie_assert_ok(hoodie_pq_writer_write(w, &b));
    hoodie_assert_ok(hoodie_pq_writer_close(w));
    hoodie_pq_writer_free(w);
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&schema);

    pqt_mem mem = { file.data, file.len };
    hoodie_pq_source src = { &mem, pqt_mem_read, file.len, "bs.parquet", NULL };
    hoodie_pq_file *f;
    hoodie_assert_ok(hoodie_pq_file_open(&f, &src));
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    hoodie_arena *ar;
    hoodie_assert_ok(hoodie_arena_new(&ar, NULL, 4096));
    int64_t base = 0;
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        int64_t rows = m->row_groups[g].num_rows;
        hoodie_pq_page_index pi;
        hoodie_arena_reset(ar);
        hoodie_assert_ok(hoodie_pq_page_index_read(f, g, 0, ar, &pi));
        hoodie_assert(pi.has_ci);
        size_t gmn = (size_t)base, gmx = (size_t)base;
        for (uint32_t p = 0; p < pi.oi.page_count; p++) {
            int64_t r0 = base + pi.oi.pages[p].first_row_index;
            int64_t r1 = p + 1 < pi.oi.page_count ? base + pi.oi.pages[p + 1].first_row_index : base + rows;
            size_t mn = (size_t)r0, mx = (size_t)r0;
            for (int64_t r = r0 + 1; r < r1; r++) {
                if (bs_cmp(vals[r], lens[r], vals[mn], lens[mn]) < 0) mn = (size_t)r;
                if (bs_cmp(vals[r], lens[r], vals[mx], lens[mx]) > 0) mx = (size_t)r;
            }
            hoodie_assert_equal_i(lens[mn], pi.ci.min_lens[p]);
            hoodie_assert(!memcmp(vals[mn], pi.ci.min_values[p], lens[mn]));
            hoodie_assert_equal_i(lens[mx], pi.ci.max_lens[p]);
            hoodie_assert(!memcmp(vals[mx], pi.ci.max_values[p], lens[mx]));
            if (bs_cmp(vals[mn], lens[mn], vals[gmn], lens[gmn]) < 0) gmn = mn;
            if (bs_cmp(vals[mx], lens[mx], vals[gmx], lens[gmx]) > 0) gmx = mx;
        }
        hoodie_pq_column_stats st;
        hoodie_assert_ok(hoodie_pq_row_group_stats(f, g, 0, &st));
        hoodie_assert_equal_i(HOODIE_PQ_VAL_BYTES, st.min.kind);
        hoodie_assert_equal_i(0, bs_cmp(st.min.bytes, st.min.len, vals[gmn], lens[gmn]));
        hoodie_assert_equal_i(0, bs_cmp(st.max.bytes, st.max.len, vals[gmx], lens[gmx]));
        base += rows;
    }
    hoodie_assert_equal_i(BS_ROWS, base);
    hoodie_arena_free(ar);
    hoodie_pq_file_free(f);
    hoodie_buf_dispose(&file);
}
