#include "model_gen.h"
#include "model/arrow.h"
#include "model/value.h"
#include "util/error.h"

#include <stdlib.h>

/* Export a batch, import it back, compare with a copy taken before export. */
HOODIE_TEST(model_arrow__roundtrip_all_types)
{
    hoodie_batch b, copy, back;
    gen_batch(&b, 300, 1);
    hoodie_assert_ok(hoodie_batch_clone(&copy, &b));
    hoodie_assert(hoodie_batch_equal(&b, &copy));

    struct ArrowSchema s;
    struct ArrowArray a;
    hoodie_assert_ok(hoodie_arrow_export_field(&s, &b.schema));
    hoodie_assert_ok(hoodie_arrow_export_batch(&a, &b));
    hoodie_assert_equal_i(0, hoodie_batch_rows(&b));       /* moved out */
    hoodie_assert_equal_i(300, a.length);
    hoodie_assert_equal_s("+s", s.format);
    hoodie_assert_ok(hoodie_arrow_import_batch(&back, &s, &a));
    hoodie_assert(hoodie_batch_equal(&copy, &back));
    /* field ids survive through metadata */
    hoodie_assert_equal_i(1, back.schema.children[0].field_id);
    hoodie_assert_equal_i(HOODIE_EXT_UUID, back.schema.children[hoodie_field_find(&back.schema, "uuid")].type.ext);
    hoodie_assert_equal_i(HOODIE_EXT_JSON, back.schema.children[hoodie_field_find(&back.schema, "json")].type.ext);

    /* The batch is reusable after export. */
    gen_value(&b.root.children[0], &b.schema.children[0], &(uint64_t){ 5 }, 1);

    a.release(&a);
    hoodie_assert(a.release == NULL);
    s.release(&s);
    hoodie_batch_dispose(&b);
    hoodie_batch_dispose(&copy);
    hoodie_batch_dispose(&back);
}

HOODIE_TEST(model_arrow__formats_and_flags)
{
    hoodie_batch b;
    gen_batch(&b, 0, 2);
    struct ArrowSchema s;
    hoodie_assert_ok(hoodie_arrow_export_field(&s, &b.schema));
    const char *want[] = { "b", "c", "s", "i", "l", "C", "S", "I", "L", "e", "f", "g", "u", "z", "tdD", "n", "w:3",
                           "d:30,4", "ttm", "ttn", "tsu:UTC", "tsn:", "w:16", "u", "+s", "+l", "+l", "+m", "+m" };
    hoodie_assert_equal_i(sizeof want / sizeof *want, s.n_children);
    for (int64_t i = 0; i < s.n_children; i++) hoodie_assert_equal_s(want[i], s.children[i]->format);
    /* c1 (INT8) is the non-nullable one */
    hoodie_assert_equal_i(0, s.children[1]->flags & ARROW_FLAG_NULLABLE);
    hoodie_assert_equal_i(ARROW_FLAG_NULLABLE, s.children[2]->flags);
    struct ArrowSchema *m = s.children[27];
    hoodie_assert_equal_s("entries", m->children[0]->name);
    hoodie_assert_equal_i(0, m->children[0]->flags);
    hoodie_assert_equal_i(0, m->children[0]->children[0]->flags);  /* key */
    hoodie_assert_equal_i(0, m->flags & ARROW_FLAG_MAP_KEYS_SORTED);
    /* UUID metadata: count 1, "ARROW:extension:name" -> "arrow.uuid" */
    const char *md = s.children[22]->metadata;
    hoodie_assert(md != NULL);
    int32_t n, kl, vl;
    memcpy(&n, md, 4);
    memcpy(&kl, md + 4, 4);
    hoodie_assert_equal_i(1, n);
    hoodie_assert_equal_i(20, kl);
    hoodie_assert(!memcmp(md + 8, "ARROW:extension:name", 20));
    memcpy(&vl, md + 28, 4);
    hoodie_assert_equal_i(10, vl);
    hoodie_assert(!memcmp(md + 32, "arrow.uuid", 10));
    /* a consumer may move a child out and release it separately */
    struct ArrowSchema moved = *s.children[24];
    s.children[24]->release = NULL;
    s.release(&s);
    moved.release(&moved);
    hoodie_batch_dispose(&b);
}

HOODIE_TEST(model_arrow__sliced_struct_offset)
{
    hoodie_batch b, copy, back, want;
    gen_batch(&b, 100, 3);
    hoodie_assert_ok(hoodie_batch_clone(&copy, &b));
    struct ArrowSchema s;
    struct ArrowArray a;
    hoodie_assert_ok(hoodie_arrow_export_field(&s, &b.schema));
    hoodie_assert_ok(hoodie_arrow_export_batch(&a, &b));
    for (int64_t off = 0; off < 20; off += 7) {
        a.offset = off;
        a.length = 100 - off - 11;
        a.null_count = -1;
        hoodie_assert_ok(hoodie_arrow_import_batch(&back, &s, &a));
        hoodie_assert_ok(hoodie_batch_slice(&want, &copy, off, 100 - off - 11));
        hoodie_assert(hoodie_batch_equal(&want, &back));
        hoodie_batch_dispose(&back);
        hoodie_batch_dispose(&want);
    }
    /* Moving a column out, then releasing parent and child separately. */
    struct ArrowArray col = *a.children[3];
    a.children[3]->release = NULL;
    a.release(&a);
    col.release(&col);
    s.release(&s);
    hoodie_batch_dispose(&b);
    hoodie_batch_dispose(&copy);
}

/* ---- hand-built arrays with offsets at every level ---- */

static int released;
static void count_release(struct ArrowArray *a) { released++; a->release = NULL; }
static void count_release_s(struct ArrowSchema *s) { released++; s->release = NULL; }

#define SCHEMA(fmt, nm, nch, ch) { fmt, nm, NULL, ARROW_FLAG_NULLABLE, nch, ch, NULL, count_release_s, NULL }

HOODIE_TEST(model_arrow__import_handmade_offsets)
{
    /* int32 column, offset 3: logical rows 10, null, 12 */
    static const int32_t ivals[] = { 0, 0, 0, 10, 11, 12, 99 };
    static const uint8_t ivalid[] = { 0xEF };           /* bit 4 clear */
    const void *ibufs[] = { ivalid, ivals };
    /* string column, offset 2: "cc", "", "dddd" */
    static const int32_t soffs[] = { 0, 1, 3, 5, 5, 9 };
    static const char sdata[] = "abbccdddd";
    const void *sbufs[] = { NULL, soffs, sdata };
    /* list<int64> with offset 1, child offset 2: rows [e2,e3], [], [e4] (child logical indices from offsets) */
    static const int32_t loffs[] = { 0, 0, 2, 2, 3 };
    static const int64_t lvals[] = { -1, -1, 100, 200, 300, 400, 500 };
    const void *lbufs[] = { NULL, loffs };
    const void *cbufs[] = { NULL, lvals };
    struct ArrowArray lchild = { 5, 0, 2, 2, 0, cbufs, NULL, NULL, count_release, NULL };
    struct ArrowArray *lch[] = { &lchild };
    struct ArrowArray icol = { 4, -1, 3, 2, 0, ibufs, NULL, NULL, count_release, NULL };
    struct ArrowArray scol = { 3, 0, 2, 3, 0, sbufs, NULL, NULL, count_release, NULL };
    struct ArrowArray lcol = { 3, 0, 1, 2, 1, lbufs, lch, NULL, count_release, NULL };
    struct ArrowArray *cols[] = { &icol, &scol, &lcol };
    const void *rbufs[] = { NULL };
    struct ArrowArray root = { 3, 0, 0, 1, 3, rbufs, cols, NULL, count_release, NULL };

    struct ArrowSchema le = SCHEMA("l", "item", 0, NULL);
    struct ArrowSchema *les[] = { &le };
    struct ArrowSchema si = SCHEMA("i", "i", 0, NULL), ss = SCHEMA("u", "s", 0, NULL), sl = SCHEMA("+l", "l", 1, les);
    struct ArrowSchema *sch[] = { &si, &ss, &sl };
    struct ArrowSchema rs = SCHEMA("+s", "", 3, sch);

    hoodie_batch b;
    hoodie_assert_ok(hoodie_arrow_import_batch(&b, &rs, &root));
    hoodie_assert_equal_i(3, hoodie_batch_rows(&b));
    const hoodie_array *ic = &b.root.children[0], *sc = &b.root.children[1], *lc = &b.root.children[2];
    hoodie_assert_equal_i(1, ic->null_count);
    hoodie_assert(hoodie_array_is_valid(ic, 0) && !hoodie_array_is_valid(ic, 1) && hoodie_array_is_valid(ic, 2));
    hoodie_assert_equal_i(10, ((int32_t *)ic->values)[0]);
    hoodie_assert_equal_i(12, ((int32_t *)ic->values)[2]);
    hoodie_assert_equal_i(0, sc->offsets[0]);
    hoodie_assert_equal_i(2, sc->offsets[1]);
    hoodie_assert_equal_i(2, sc->offsets[2]);
    hoodie_assert_equal_i(6, sc->offsets[3]);
    hoodie_assert(!memcmp(sc->values, "ccdddd", 6));
    /* list row 0: loffs[1..2] = 0..2 -> child logical 0,1 -> physical 2,3 -> 100,200 */
    hoodie_assert_equal_i(0, lc->offsets[0]);
    hoodie_assert_equal_i(2, lc->offsets[1]);
    hoodie_assert_equal_i(2, lc->offsets[2]);
    hoodie_assert_equal_i(3, lc->offsets[3]);
    hoodie_assert_equal_i(3, lc->children[0].length);
    const int64_t *lv = (const int64_t *)lc->children[0].values;
    hoodie_assert_equal_i(100, lv[0]);
    hoodie_assert_equal_i(200, lv[1]);
    hoodie_assert_equal_i(300, lv[2]);
    hoodie_assert_equal_i(0, released);   /* import never releases its input */
    hoodie_batch_dispose(&b);

    /* bad input: list offsets beyond the child */
    static const int32_t bad_offs[] = { 0, 0, 2, 2, 30 };
    lbufs[1] = bad_offs;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_arrow_import_batch(&b, &rs, &root));
    /* bad input: wrong buffer count */
    lbufs[1] = loffs;
    scol.n_buffers = 2;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_arrow_import_batch(&b, &rs, &root));
}

HOODIE_TEST(model_arrow__import_other_encodings)
{
    /* dictionary<int8 -> utf8> with a null index */
    static const int8_t idx[] = { 9, 1, 0, 1, 2 };
    static const uint8_t valid[] = { 0x1B };   /* rows (offset 1): 1,0(null? bit2),.. */
    static const int32_t doffs[] = { 0, 3, 6, 6 };
    const void *dbufs[] = { NULL, doffs, "foobar" };
    struct ArrowArray dict = { 3, 0, 0, 3, 0, dbufs, NULL, NULL, count_release, NULL };
    const void *ibufs[] = { valid, idx };
    struct ArrowArray darr = { 4, -1, 1, 2, 0, ibufs, NULL, &dict, count_release, NULL };
    struct ArrowSchema dv = SCHEMA("u", "", 0, NULL);
    struct ArrowSchema ds = SCHEMA("c", "d", 0, NULL);
    ds.dictionary = &dv;
    hoodie_field f;
    hoodie_array a;
    hoodie_assert_ok(hoodie_arrow_import_field(&f, &ds));
    hoodie_assert_equal_i(HOODIE_TYPE_STRING, f.type.id);
    hoodie_assert_equal_s("d", f.name);
    hoodie_assert_ok(hoodie_arrow_import_array(&a, &f, &ds, &darr));
    /* logical rows: idx 1 (valid bit1), 0 (bit2 clear -> null), 1 (bit3), 2 (bit4) */
    hoodie_assert_equal_i(4, a.length);
    hoodie_assert_equal_i(1, a.null_count);
    hoodie_assert(!hoodie_array_is_valid(&a, 1));
    hoodie_assert(!memcmp(a.values + a.offsets[0], "bar", 3));
    hoodie_assert(!memcmp(a.values + a.offsets[2], "bar", 3));
    hoodie_assert_equal_i(0, a.offsets[4] - a.offsets[3]);
    hoodie_array_dispose(&a);
    hoodie_field_dispose(&f);

    /* large string, string view, decimal64, date64, timestamp with a zone, fixed-size list, large list */
    static const int64_t Uoffs[] = { 0, 2, 5 };
    const void *Ubufs[] = { NULL, Uoffs, "xxyyy" };
    struct ArrowArray Ua = { 2, 0, 0, 3, 0, Ubufs, NULL, NULL, count_release, NULL };
    struct ArrowSchema Us = SCHEMA("U", "U", 0, NULL);
    hoodie_assert_ok(hoodie_arrow_import_field(&f, &Us));
    hoodie_assert_ok(hoodie_arrow_import_array(&a, &f, &Us, &Ua));
    hoodie_assert_equal_i(3, a.offsets[2] - a.offsets[1]);
    hoodie_array_dispose(&a);
    hoodie_field_dispose(&f);

    uint8_t views[2][16];
    memset(views, 0, sizeof views);
    int32_t l0 = 3, l1 = 15, bi = 0, bo = 1;
    memcpy(views[0], &l0, 4); memcpy(views[0] + 4, "abc", 3);
    memcpy(views[1], &l1, 4); memcpy(views[1] + 4, "0123", 4); memcpy(views[1] + 8, &bi, 4); memcpy(views[1] + 12, &bo, 4);
    static const int64_t vsizes[] = { 16 };
    const void *vbufs[] = { NULL, views, "_0123456789ABCDE", vsizes };
    struct ArrowArray va = { 2, 0, 0, 4, 0, vbufs, NULL, NULL, count_release, NULL };
    struct ArrowSchema vs = SCHEMA("vu", "v", 0, NULL);
    hoodie_assert_ok(hoodie_arrow_import_field(&f, &vs));
    hoodie_assert_ok(hoodie_arrow_import_array(&a, &f, &vs, &va));
    hoodie_assert_equal_i(18, a.values_len);
    hoodie_assert(!memcmp(a.values, "abc0123456789ABCDE", 18));
    hoodie_array_dispose(&a);
    hoodie_field_dispose(&f);

    static const int64_t d64[] = { -150, 12345 };
    const void *d64b[] = { NULL, d64 };
    struct ArrowArray d64a = { 2, 0, 0, 2, 0, d64b, NULL, NULL, count_release, NULL };
    struct ArrowSchema d64s = SCHEMA("d:10,2,64", "d", 0, NULL);
    hoodie_assert_ok(hoodie_arrow_import_field(&f, &d64s));
    hoodie_assert_equal_i(HOODIE_TYPE_DECIMAL, f.type.id);
    hoodie_assert_equal_i(2, f.type.scale);
    hoodie_assert_ok(hoodie_arrow_import_array(&a, &f, &d64s, &d64a));
    int64_t hi;
    memcpy(&hi, a.values + 8, 8);
    hoodie_assert_equal_i(-1, hi);
    hoodie_array_dispose(&a);
    hoodie_field_dispose(&f);

    static const int64_t ms[] = { -1, 86400000LL * 3 + 5 };
    const void *msb[] = { NULL, ms };
    struct ArrowArray msa = { 2, 0, 0, 2, 0, msb, NULL, NULL, count_release, NULL };
    struct ArrowSchema mss = SCHEMA("tdm", "d", 0, NULL);
    hoodie_assert_ok(hoodie_arrow_import_field(&f, &mss));
    hoodie_assert_ok(hoodie_arrow_import_array(&a, &f, &mss, &msa));
    hoodie_assert_equal_i(-1, ((int32_t *)a.values)[0]);
    hoodie_assert_equal_i(3, ((int32_t *)a.values)[1]);
    hoodie_array_dispose(&a);
    hoodie_field_dispose(&f);

    struct ArrowSchema tz = SCHEMA("tsm:Europe/Paris", "t", 0, NULL);
    hoodie_assert_ok(hoodie_arrow_import_field(&f, &tz));
    hoodie_assert_equal_i(1, f.type.utc);
    hoodie_assert_equal_i(HOODIE_UNIT_MILLI, f.type.unit);
    hoodie_field_dispose(&f);

    /* +w:2 of int16, offset 1 */
    static const int16_t fl[] = { 1, 2, 3, 4, 5, 6 };
    const void *flc[] = { NULL, fl };
    struct ArrowArray flchild = { 6, 0, 0, 2, 0, flc, NULL, NULL, count_release, NULL };
    struct ArrowArray *flch[] = { &flchild };
    const void *flb[] = { NULL };
    struct ArrowArray fla = { 2, 0, 1, 1, 1, flb, flch, NULL, count_release, NULL };
    struct ArrowSchema fle = SCHEMA("s", "e", 0, NULL);
    struct ArrowSchema *fles[] = { &fle };
    struct ArrowSchema fls = SCHEMA("+w:2", "fl", 1, fles);
    hoodie_assert_ok(hoodie_arrow_import_field(&f, &fls));
    hoodie_assert_equal_i(HOODIE_TYPE_LIST, f.type.id);
    hoodie_assert_ok(hoodie_arrow_import_array(&a, &f, &fls, &fla));
    hoodie_assert_equal_i(4, a.children[0].length);
    hoodie_assert_equal_i(3, ((int16_t *)a.children[0].values)[0]);
    hoodie_assert_equal_i(4, a.offsets[2]);
    hoodie_array_dispose(&a);
    hoodie_field_dispose(&f);

    /* +L large list of int8 */
    static const int64_t Loffs[] = { 0, 1, 3 };
    static const int8_t Lv[] = { 7, 8, 9 };
    const void *Lcb[] = { NULL, Lv };
    struct ArrowArray Lc = { 3, 0, 0, 2, 0, Lcb, NULL, NULL, count_release, NULL };
    struct ArrowArray *Lch[] = { &Lc };
    const void *Lb[] = { NULL, Loffs };
    struct ArrowArray La = { 2, 0, 0, 2, 1, Lb, Lch, NULL, count_release, NULL };
    struct ArrowSchema Le = SCHEMA("c", "e", 0, NULL);
    struct ArrowSchema *Les[] = { &Le };
    struct ArrowSchema Ls = SCHEMA("+L", "L", 1, Les);
    hoodie_assert_ok(hoodie_arrow_import_field(&f, &Ls));
    hoodie_assert_ok(hoodie_arrow_import_array(&a, &f, &Ls, &La));
    hoodie_assert_equal_i(3, a.offsets[2]);
    hoodie_array_dispose(&a);
    hoodie_field_dispose(&f);

    struct ArrowSchema unk = SCHEMA("+ud:0,1", "x", 0, NULL);
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_arrow_import_field(&f, &unk));
}

/* ---- streams ---- */

typedef struct producer { int calls, fail_at; int *freed; } producer;

static hoodie_status produce(hoodie_batch *out, void *payload)
{
    producer *p = payload;
    if (p->calls == p->fail_at) return HOODIE_FAIL(HOODIE_ECORRUPT, "file x.parquet: bad page at byte 42");
    if (p->calls++ == 3) return HOODIE_ITEROVER;
    for (int i = 0; i < 10; i++) {
        hoodie_assert_ok(hoodie_array_append_int(&out->root.children[0], &out->schema.children[0], p->calls * 100 + i));
        hoodie_assert_ok(hoodie_array_struct_end(&out->root, &out->schema));
    }
    return HOODIE_OK;
}

static void free_producer(void *payload) { (*((producer *)payload)->freed)++; }

HOODIE_TEST(model_arrow__stream_roundtrip_and_error)
{
    hoodie_field s;
    hoodie_assert_ok(hoodie_field_init(&s, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    gen_add(&s, gen_leaf("v", HOODIE_TYPE_INT64, 1));
    int freed = 0;
    producer p = { 0, -1, &freed };
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_arrow_stream_export(&st, &s, produce, free_producer, &p));
    hoodie_arrow_reader r;
    hoodie_assert_ok(hoodie_arrow_reader_open(&r, &st));
    hoodie_assert(st.release == NULL);
    hoodie_assert(hoodie_field_equal(&s, &r.schema));
    int n = 0;
    hoodie_batch b;
    hoodie_status rc;
    while ((rc = hoodie_arrow_reader_next(&r, &b)) == HOODIE_OK) {
        hoodie_assert_equal_i(10, hoodie_batch_rows(&b));
        hoodie_assert_equal_i((n + 1) * 100 + 9, ((int64_t *)b.root.children[0].values)[9]);
        hoodie_batch_dispose(&b);
        n++;
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
    hoodie_assert_equal_i(3, n);
    hoodie_arrow_reader_close(&r);
    hoodie_assert_equal_i(1, freed);

    producer q = { 0, 1, &freed };
    hoodie_assert_ok(hoodie_arrow_stream_export(&st, &s, produce, free_producer, &q));
    struct ArrowArray arr;
    hoodie_assert_equal_i(0, st.get_next(&st, &arr));
    arr.release(&arr);
    hoodie_assert(st.get_next(&st, &arr) != 0);
    hoodie_assert_contains(st.get_last_error(&st), "bad page at byte 42");
    hoodie_assert_ok(hoodie_arrow_reader_open(&r, &st));
    hoodie_assert_status(HOODIE_EIO, hoodie_arrow_reader_next(&r, &b));
    hoodie_assert_contains(hoodie_error_last()->message, "byte 42");
    hoodie_arrow_reader_close(&r);
    hoodie_assert_equal_i(2, freed);
    hoodie_field_dispose(&s);
}

/* A stream of hoodie's own batches (every type, nulls, nested): the reader adopts the exported buffers of flat
 * columns instead of copying them; what it gives back equals what was produced, batch after batch, and nothing
 * is freed twice or leaked (ASan runs this). */
typedef struct gen_producer { int calls; uint64_t seed; } gen_producer;

static hoodie_status produce_gen(hoodie_batch *out, void *payload)
{
    gen_producer *p = payload;
    if (p->calls == 4) return HOODIE_ITEROVER;
    hoodie_batch b;
    gen_batch(&b, p->calls == 2 ? 0 : 50 + 37 * p->calls, p->seed + (uint64_t)p->calls);
    p->calls++;
    hoodie_status rc = hoodie_batch_concat(out, &b);
    hoodie_batch_dispose(&b);
    return rc;
}

static void free_nothing(void *payload) { (void)payload; }

HOODIE_TEST(model_arrow__stream_adopts_own_buffers)
{
    hoodie_batch proto;
    gen_batch(&proto, 1, 7);
    gen_producer p = { 0, 11 };
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_arrow_stream_export(&st, &proto.schema, produce_gen, free_nothing, &p));
    hoodie_arrow_reader r;
    hoodie_assert_ok(hoodie_arrow_reader_open(&r, &st));
    hoodie_batch b;
    hoodie_status rc;
    int n = 0;
    while ((rc = hoodie_arrow_reader_next(&r, &b)) == HOODIE_OK) {
        hoodie_batch want;
        gen_batch(&want, n == 2 ? 0 : 50 + 37 * n, 11 + (uint64_t)n);
        hoodie_assert(hoodie_batch_equal(&want, &b));
        /* adopted buffers are the batch's own: it grows like any other */
        hoodie_assert_ok(hoodie_batch_concat(&b, &want));
        hoodie_assert_equal_i(2 * hoodie_batch_rows(&want), hoodie_batch_rows(&b));
        hoodie_batch_dispose(&want);
        hoodie_batch_dispose(&b);
        n++;
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
    hoodie_assert_equal_i(4, n);
    hoodie_arrow_reader_close(&r);
    hoodie_batch_dispose(&proto);
}
