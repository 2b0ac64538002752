/*
 * Change data capture on write (hoodie.table.cdc.enabled): every base-file rewrite leaves a CDC log beside the new
 * file, named in the commit's cdcStats, whose records libavro decodes with the schema in the block header (as
 * Java's reader would: one definition of the table record, the second image naming it) and which say exactly
 * what changed: "i" with the after image, "u" with both, "d" with the before image -- or the key alone.
 */
#include "hoodie_test.h"
#include "hoodie/read.h"
#include "hoodie/services.h"
#include "hoodie/table.h"
#include "hoodie/write.h"
#include "hoodie/writer.h"
#include "model/arrow.h"
#include "model/build.h"
#include "format/hlog/hlog.h"
#include "format/hlog/hlog_write.h"
#include "util/buf.h"
#include "util/error.h"

#include <avro.h>
#include <jansson.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- input: (id, name, city, ts) rows, name = tag + id, city by id ---- */

typedef struct cdc_rows { int64_t first, last, ts; const char *tag; int done; } cdc_rows;

static const char *cdc_city(int64_t id) { return id % 2 ? "odd" : "even"; }

static hoodie_status cdc_next(hoodie_batch *out, void *payload)
{
    cdc_rows *r = payload;
    if (r->done) return HOODIE_ITEROVER;
    r->done = 1;
    for (int64_t id = r->first; id <= r->last; id++) {
        char name[32];
        snprintf(name, sizeof name, "%s%lld", r->tag, (long long)id);
        HOODIE_TRY(hoodie_array_append_int(&out->root.children[0], &out->schema.children[0], id));
        HOODIE_TRY(hoodie_array_append_str(&out->root.children[1], &out->schema.children[1], name));
        HOODIE_TRY(hoodie_array_append_str(&out->root.children[2], &out->schema.children[2], cdc_city(id)));
        HOODIE_TRY(hoodie_array_append_int(&out->root.children[3], &out->schema.children[3], r->ts));
    }
    out->root.length = r->last - r->first + 1;
    return HOODIE_OK;
}

static void cdc_write(const char *table, hoodie_write_operation op, int64_t first, int64_t last, int64_t ts,
                      const char *tag, hoodie_write_result *res)
{
    static const struct { const char *n; hoodie_type_id t; } cols[] = {
        { "id", HOODIE_TYPE_INT64 }, { "name", HOODIE_TYPE_STRING }, { "city", HOODIE_TYPE_STRING },
        { "ts", HOODIE_TYPE_INT64 },
    };
    hoodie_field sc, f;
    hoodie_assert_ok(hoodie_field_init(&sc, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    for (size_t i = 0; i < 4; i++) {
        hoodie_assert_ok(hoodie_field_init(&f, cols[i].n, hoodie_type_of(cols[i].t), 1));
        hoodie_assert_ok(hoodie_field_add_child(&sc, &f));
        hoodie_field_dispose(&f);
    }
    cdc_rows *p = calloc(1, sizeof *p);
    *p = (cdc_rows){ first, last, ts, tag, 0 };
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_arrow_stream_export(&st, &sc, cdc_next, free, p));
    hoodie_field_dispose(&sc);
    hoodie_write_opts o = HOODIE_WRITE_OPTS_INIT;
    o.op = op;
    hoodie_assert_ok(hoodie_table_write(table, &st, &o, res));
}

static void cdc_table(const char *table, int mor, int version, const char *mode)
{
    static const char *const rk[] = { "id" }, *const pf[] = { "city" };
    const char *extra[] = { "hoodie.table.cdc.enabled", "true", "hoodie.table.cdc.supplemental.logging.mode", mode,
                            NULL };
    if (!mode) extra[2] = NULL;
    hoodie_table_create_opts co = HOODIE_TABLE_CREATE_OPTS_INIT;
    co.table_version = version;
    co.type = mor ? HOODIE_CREATE_MERGE_ON_READ : HOODIE_CREATE_COPY_ON_WRITE;
    co.name = "cdct";
    co.record_key_fields = rk;
    co.record_key_count = 1;
    co.partition_fields = pf;
    co.partition_count = 1;
    co.ordering_field = "ts";
    co.extra_props = extra;
    hoodie_assert_ok(hoodie_table_create(table, &co));
}

/* ---- reading the CDC logs back through libavro ---- */

typedef struct cdc_seen { char lines[64][160]; size_t n, files, bytes; } cdc_seen;

/* "id/name" of an image (a union with null), or "-" */
static void image(avro_value_t *rec, const char *field, char *out, size_t cap)
{
    avro_value_t u, img, v;
    hoodie_assert_equal_i(0, avro_value_get_by_name(rec, field, &u, NULL));
    hoodie_assert_equal_i(0, avro_value_get_current_branch(&u, &img));
    if (avro_value_get_type(&img) == AVRO_NULL) { snprintf(out, cap, "-"); return; }
    int64_t id = 0;
    const char *name = NULL;
    size_t len;
    hoodie_assert_equal_i(0, avro_value_get_by_name(&img, "id", &u, NULL));
    hoodie_assert_equal_i(0, avro_value_get_current_branch(&u, &v));
    hoodie_assert_equal_i(0, avro_value_get_long(&v, &id));
    hoodie_assert_equal_i(0, avro_value_get_by_name(&img, "name", &u, NULL));
    hoodie_assert_equal_i(0, avro_value_get_current_branch(&u, &v));
    hoodie_assert_equal_i(0, avro_value_get_string(&v, &name, &len));
    snprintf(out, cap, "%lld/%s", (long long)id, name);
}

static const char *str_field(avro_value_t *rec, const char *field)
{
    avro_value_t u, v;
    const char *s = NULL;
    size_t len;
    hoodie_assert_equal_i(0, avro_value_get_by_name(rec, field, &u, NULL));
    hoodie_assert_equal_i(0, avro_value_get_current_branch(&u, &v));
    if (avro_value_get_type(&v) == AVRO_NULL) return "-";
    hoodie_assert_equal_i(0, avro_value_get_string(&v, &s, &len));
    return s;
}

/* One CDC log: one CDC_DATA_BLOCK of `instant`; its records as "op ts|key before after" lines. */
static void read_cdc_file(const char *path, const char *instant, cdc_seen *seen)
{
    FILE *fp = fopen(path, "rb");
    hoodie_assert(fp != NULL);
    static uint8_t data[1 << 16];
    size_t len = fread(data, 1, sizeof data, fp);
    fclose(fp);
    seen->files++;
    seen->bytes += len;
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, data, len, path));
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
    hoodie_assert_equal_i(HOODIE_HLOG_CDC_DATA_BLOCK, b.type);
    hoodie_assert_equal_s(instant, b.header[HOODIE_HLOG_INSTANT_TIME]);
    const char *sj = b.header[HOODIE_HLOG_SCHEMA];
    hoodie_assert(sj != NULL);
    avro_schema_t s;
    if (avro_schema_from_json_length(sj, strlen(sj), &s)) {
        fprintf(stderr, "libavro refuses the CDC schema: %s\n%s\n", avro_strerror(), sj);
        hoodie_assert(0);
    }
    int op_key_only = !strcmp(avro_schema_name(s), "Record");
    avro_value_iface_t *iface = avro_generic_class_from_schema(s);
    avro_value_t rec;
    hoodie_assert_equal_i(0, avro_generic_value_new(iface, &rec));
    hoodie_hlog_avro_records rr;
    hoodie_assert_ok(hoodie_hlog_avro_open(&rr, &b, path));
    const uint8_t *p;
    size_t n;
    while (hoodie_hlog_avro_next(&rr, &p, &n) == HOODIE_OK) {
        avro_reader_t ar = avro_reader_memory((const char *)p, (int64_t)n);
        avro_value_reset(&rec);
        hoodie_assert_equal_i(0, avro_value_read(ar, &rec));
        avro_reader_free(ar);
        char before[64], after[64];
        const char *second;
        if (op_key_only) {
            second = str_field(&rec, "record_key");
            snprintf(before, sizeof before, "-");
            snprintf(after, sizeof after, "-");
        } else {
            avro_value_t tmp;
            int has_ts = avro_value_get_by_name(&rec, "ts_ms", &tmp, NULL) == 0;
            second = str_field(&rec, has_ts ? "ts_ms" : "record_key");
            if (has_ts) hoodie_assert_equal_s(instant, second);
            image(&rec, "before", before, sizeof before);
            if (has_ts) image(&rec, "after", after, sizeof after);
            else snprintf(after, sizeof after, "-");
            if (has_ts) second = "T";
        }
        hoodie_assert(seen->n < 64);
        snprintf(seen->lines[seen->n++], 160, "%s %s %s %s", str_field(&rec, "op"), second, before, after);
    }
    hoodie_assert(hoodie_hlog_iter_next(&it, &b) == HOODIE_ITEROVER); /* one block */
    hoodie_hlog_iter_dispose(&it);
    avro_value_decref(&rec);
    avro_value_iface_decref(iface);
    avro_schema_decref(s);
}

/* The CDC logs of `instant` in both partitions. */
static void read_cdc(const char *table, const char *instant, cdc_seen *seen)
{
    memset(seen, 0, sizeof *seen);
    static const char *const parts[] = { "even", "odd" };
    for (int k = 0; k < 2; k++) {
        char dir[1024], path[2048];
        snprintf(dir, sizeof dir, "%s/%s", table, parts[k]);
        DIR *d = opendir(dir);
        if (!d) continue;
        for (struct dirent *e; (e = readdir(d));) {
            size_t l = strlen(e->d_name);
            if (l < 4 || strcmp(e->d_name + l - 4, ".cdc") || !strstr(e->d_name, instant)) continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            read_cdc_file(path, instant, seen);
        }
        closedir(d);
    }
    qsort(seen->lines, seen->n, sizeof seen->lines[0], (int (*)(const void *, const void *))strcmp);
}

/* The commit's cdcStats (v8: Avro; v6: JSON text): the number of entries and the sum of their sizes. */
static void cdc_stats(const char *table, const char *instant, int version, size_t *entries, size_t *bytes)
{
    char dir[1024], path[2048] = "";
    snprintf(dir, sizeof dir, "%s/.hoodie%s", table, version >= 8 ? "/timeline" : "");
    DIR *d = opendir(dir);
    hoodie_assert(d != NULL);
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, instant, strlen(instant)) && (strstr(e->d_name, "commit")) &&
            !strstr(e->d_name, "requested") && !strstr(e->d_name, "inflight"))
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    closedir(d);
    hoodie_assert(path[0] != 0);
    *entries = *bytes = 0;
    if (version < 8) { /* "cdcStats" : { "odd/....cdc" : 1234 } */
        FILE *fp = fopen(path, "rb");
        static char text[1 << 16];
        size_t n = fread(text, 1, sizeof text - 1, fp);
        fclose(fp);
        text[n] = 0;
        for (char *q = text; (q = strstr(q, "\"cdcStats\"")); q++) {
            char *v = strchr(q, ':') + 1;
            while (*v == ' ') v++;
            if (*v != '{') continue;
            char *colon = strstr(v, ".cdc\"");
            hoodie_assert(colon != NULL);
            colon = strchr(colon, ':');
            *entries += 1;
            *bytes += (size_t)strtoll(colon + 1, NULL, 10);
        }
        return;
    }
    avro_file_reader_t r;
    hoodie_assert_equal_i(0, avro_file_reader(path, &r));
    avro_schema_t s = avro_file_reader_get_writer_schema(r);
    avro_value_iface_t *iface = avro_generic_class_from_schema(s);
    avro_value_t rec, f, map;
    hoodie_assert_equal_i(0, avro_generic_value_new(iface, &rec));
    hoodie_assert_equal_i(0, avro_file_reader_read_value(r, &rec));
    hoodie_assert_equal_i(0, avro_value_get_by_name(&rec, "partitionToWriteStats", &f, NULL));
    hoodie_assert_equal_i(0, avro_value_get_current_branch(&f, &map));
    size_t np = 0;
    avro_value_get_size(&map, &np);
    for (size_t p = 0; p < np; p++) {
        avro_value_t arr, st, u, cm, sz;
        size_t ns = 0;
        avro_value_get_by_index(&map, p, &arr, NULL);
        avro_value_get_size(&arr, &ns);
        for (size_t i = 0; i < ns; i++) {
            avro_value_get_by_index(&arr, i, &st, NULL);
            hoodie_assert_equal_i(0, avro_value_get_by_name(&st, "cdcStats", &u, NULL));
            hoodie_assert_equal_i(0, avro_value_get_current_branch(&u, &cm));
            if (avro_value_get_type(&cm) == AVRO_NULL) continue;
            size_t nc = 0;
            avro_value_get_size(&cm, &nc);
            for (size_t k = 0; k < nc; k++) {
                const char *key;
                int64_t l = 0;
                avro_value_get_by_index(&cm, k, &sz, &key);
                hoodie_assert(strstr(key, ".cdc") != NULL);
                avro_value_get_long(&sz, &l);
                *entries += 1;
                *bytes += (size_t)l;
            }
        }
    }
    avro_value_decref(&rec);
    avro_value_iface_decref(iface);
    avro_schema_decref(s);
    avro_file_reader_close(r);
}

static void expect(const cdc_seen *seen, const char *const *want, size_t n_want)
{
    for (size_t i = 0; i < seen->n && i < n_want; i++) hoodie_assert_equal_s(want[i], seen->lines[i]);
    hoodie_assert_equal_i((int64_t)n_want, (int64_t)seen->n);
}

/* CDC logs and base files of the table: how many, and how many logs have no base file of their id and instant. */
static void count_files(const char *table, size_t *cdc, size_t *orphans)
{
    *cdc = *orphans = 0;
    static const char *const parts[] = { "even", "odd" };
    for (int k = 0; k < 2; k++) {
        char dir[1024], names[64][256];
        size_t n = 0;
        snprintf(dir, sizeof dir, "%s/%s", table, parts[k]);
        DIR *d = opendir(dir);
        hoodie_assert(d != NULL);
        for (struct dirent *e; (e = readdir(d)) && n < 64;) snprintf(names[n++], 256, "%s", e->d_name);
        closedir(d);
        for (size_t i = 0; i < n; i++) {
            size_t l = strlen(names[i]);
            if (l < 4 || strcmp(names[i] + l - 4, ".cdc")) continue;
            (*cdc)++;
            /* .<fileId>_<instant>.log.1_<token>.cdc  ->  <fileId>_<token>_<instant>.parquet */
            char id[80], instant[32];
            const char *us = strrchr(names[i], '_'), *lg = strstr(names[i], ".log.");
            const char *us1 = names[i] + 1;
            const char *sep = strchr(us1 + 36, '_');
            hoodie_assert(us && lg && sep);
            snprintf(id, sizeof id, "%.*s", (int)(sep - us1), us1);
            snprintf(instant, sizeof instant, "%.*s", (int)(lg - sep - 1), sep + 1);
            int found = 0;
            for (size_t j = 0; j < n; j++)
                if (!strncmp(names[j], id, strlen(id)) && strstr(names[j], instant) && strstr(names[j], ".parquet"))
                    found = 1;
            if (!found) (*orphans)++;
        }
    }
}

/* ---- the CDC query (HOODIE_QUERY_CDC), read back as the same lines ---- */

/* "id/name" of a JSON image, or "-" */
static void json_image(const char *text, char *out, size_t cap)
{
    if (!text) { snprintf(out, cap, "-"); return; }
    json_error_t err;
    json_t *o = json_loads(text, 0, &err);
    hoodie_assert(o != NULL);
    snprintf(out, cap, "%lld/%s", (long long)json_integer_value(json_object_get(o, "id")),
             json_string_value(json_object_get(o, "name")));
    json_decref(o);
}

static const char *str_at(const hoodie_batch *b, int col, int64_t row)
{
    static char buf[4][256];
    const hoodie_array *a = &b->root.children[col];
    if (!hoodie_array_is_valid(a, row)) return NULL;
    size_t n;
    const uint8_t *p = hoodie_array_bytes_at(a, row, &n);
    snprintf(buf[col], sizeof buf[col], "%.*s", (int)n, (const char *)p);
    return buf[col];
}

/* The changes of commit `instant` (NULL: every commit) that the query over (from, ...] gives, as "op T before
 * after" lines (sorted); the query's status when it cannot start. */
static hoodie_status query_cdc_from(const char *table, const char *from, const char *instant, cdc_seen *seen)
{
    memset(seen, 0, sizeof *seen);
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, table, NULL));
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.query = HOODIE_QUERY_CDC;
    so.from = from;
    so.batch_rows = 2; /* changes of a commit across batches: the cursor resumes where it stopped */
    struct ArrowArrayStream st;
    hoodie_status src = hoodie_table_scan(t, &so, &st);
    if (src < 0) { hoodie_table_free(t); return src; }
    hoodie_arrow_reader r;
    hoodie_assert_ok(hoodie_arrow_reader_open(&r, &st));
    hoodie_batch b;
    hoodie_status rc;
    while ((rc = hoodie_arrow_reader_next(&r, &b)) == HOODIE_OK) {
        hoodie_assert(b.root.length >= 1 && b.root.length <= 2);
        for (int64_t i = 0; i < b.root.length; i++) {
            if (instant && strcmp(str_at(&b, 1, i), instant)) continue;
            char before[64], after[64], op[8];
            snprintf(op, sizeof op, "%s", str_at(&b, 0, i));
            json_image(str_at(&b, 2, i), before, sizeof before);
            json_image(str_at(&b, 3, i), after, sizeof after);
            hoodie_assert(seen->n < 64);
            snprintf(seen->lines[seen->n++], 160, "%s T %s %s", op, before, after);
        }
        hoodie_batch_dispose(&b);
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
    hoodie_arrow_reader_close(&r);
    hoodie_table_free(t);
    qsort(seen->lines, seen->n, sizeof seen->lines[0], (int (*)(const void *, const void *))strcmp);
    return HOODIE_OK;
}

static void query_cdc(const char *table, const char *instant, cdc_seen *seen)
{
    hoodie_assert_ok(query_cdc_from(table, NULL, instant, seen));
}

static void cdc_case(int mor, int version, const char *mode, const char *tag)
{
    char table[512];
    snprintf(table, sizeof table, "%s/cdc_%s", hoodie_test_tmpdir(), tag);
    cdc_table(table, mor, version, mode);
    int keys = mode && !strcmp(mode, "OP_KEY_ONLY"), before_only = mode && (!strcmp(mode, "DATA_BEFORE") || !strcmp(mode, "cdc_data_before"));
    hoodie_write_result res;
    cdc_seen seen;
    size_t entries, bytes;
    /* inserts into new file groups: nothing to log (readers take the new base files as inserts) */
    cdc_write(table, HOODIE_WRITE_INSERT, 1, 6, 10, "a", &res);
    read_cdc(table, res.instant, &seen);
    hoodie_assert_equal_i(0, (int64_t)seen.files);
    query_cdc(table, res.instant, &seen); /* the query infers them from the new files */
    const char *inserted[] = { "i T - 1/a1", "i T - 2/a2", "i T - 3/a3", "i T - 4/a4", "i T - 5/a5", "i T - 6/a6" };
    expect(&seen, inserted, 6);
    cdc_stats(table, res.instant, version, &entries, &bytes);
    hoodie_assert_equal_i(0, (int64_t)entries);
    /* updates of 5 and 6, inserts of 7 and 8: both file groups are rewritten (small files, on MOR too) */
    cdc_write(table, HOODIE_WRITE_UPSERT, 5, 8, 20, "b", &res);
    read_cdc(table, res.instant, &seen);
    hoodie_assert_equal_i(2, (int64_t)seen.files);
    cdc_stats(table, res.instant, version, &entries, &bytes);
    hoodie_assert_equal_i(2, (int64_t)entries);
    hoodie_assert_equal_i((int64_t)seen.bytes, (int64_t)bytes);
    if (keys) {
        const char *want[] = { "i 7 - -", "i 8 - -", "u 5 - -", "u 6 - -" };
        expect(&seen, want, 4);
    } else if (before_only) {
        const char *want[] = { "i 7 - -", "i 8 - -", "u 5 5/a5 -", "u 6 6/a6 -" };
        expect(&seen, want, 4);
    } else {
        const char *want[] = { "i T - 7/b7", "i T - 8/b8", "u T 5/a5 5/b5", "u T 6/a6 6/b6" };
        expect(&seen, want, 4);
    }
    const char *upserted[] = { "i T - 7/b7", "i T - 8/b8", "u T 5/a5 5/b5", "u T 6/a6 6/b6" };
    query_cdc(table, res.instant, &seen); /* what the logs say in full, whatever the mode */
    expect(&seen, upserted, 4);
    if (mor) { /* later updates and deletes go to log files: no CDC log, the query reads the log files */
        cdc_write(table, HOODIE_WRITE_UPSERT, 1, 1, 30, "c", &res);
        read_cdc(table, res.instant, &seen);
        hoodie_assert_equal_i(0, (int64_t)seen.files);
        query_cdc(table, res.instant, &seen);
        const char *logged[] = { "u T 1/a1 1/c1" };
        expect(&seen, logged, 1);
        cdc_write(table, HOODIE_WRITE_UPSERT, 2, 2, 5, "s", &res); /* stale: 2 keeps its version */
        query_cdc(table, res.instant, &seen);
        hoodie_assert_equal_i(0, (int64_t)seen.n);
        cdc_write(table, HOODIE_WRITE_DELETE, 1, 2, 0, "d", &res);
        query_cdc(table, res.instant, &seen);
        const char *deleted[] = { "d T 1/c1 -", "d T 2/a2 -" };
        expect(&seen, deleted, 2);
        return;
    }
    /* deletes of 1 and 2, then a stale update of 4 (an older ordering value) that changes nothing */
    cdc_write(table, HOODIE_WRITE_DELETE, 1, 2, 0, "d", &res);
    read_cdc(table, res.instant, &seen);
    if (keys) {
        const char *want[] = { "d 1 - -", "d 2 - -" };
        expect(&seen, want, 2);
    } else if (before_only) {
        const char *want[] = { "d 1 1/a1 -", "d 2 2/a2 -" };
        expect(&seen, want, 2);
    } else {
        const char *want[] = { "d T 1/a1 -", "d T 2/a2 -" };
        expect(&seen, want, 2);
    }
    const char *deleted[] = { "d T 1/a1 -", "d T 2/a2 -" };
    query_cdc(table, res.instant, &seen);
    expect(&seen, deleted, 2);
    cdc_write(table, HOODIE_WRITE_UPSERT, 4, 4, 5, "s", &res);
    read_cdc(table, res.instant, &seen);
    hoodie_assert_equal_i(1, (int64_t)seen.files); /* written, with no record: the commit says nothing changed */
    hoodie_assert_equal_i(0, (int64_t)seen.n);
    query_cdc(table, res.instant, &seen);
    hoodie_assert_equal_i(0, (int64_t)seen.n);
    cdc_stats(table, res.instant, version, &entries, &bytes);
    hoodie_assert_equal_i(1, (int64_t)entries);
    /* insert_overwrite of partition even (10): a replacecommit, no CDC log; the query reads it as Hudi infers it,
     * every record of the replaced file group deleted, the new one inserted */
    cdc_write(table, HOODIE_WRITE_INSERT_OVERWRITE, 10, 10, 40, "o", &res);
    char overwrite[32];
    snprintf(overwrite, sizeof overwrite, "%s", res.instant);
    read_cdc(table, res.instant, &seen);
    hoodie_assert_equal_i(0, (int64_t)seen.files);
    query_cdc(table, res.instant, &seen);
    const char *overwritten[] = { "d T 4/a4 -", "d T 6/b6 -", "d T 8/b8 -", "i T - 10/o10" };
    expect(&seen, overwritten, 4);
    /* the cleaner deletes the CDC logs of the base files it deletes, and only those */
    size_t before, after, orphans;
    count_files(table, &before, &orphans);
    hoodie_assert_equal_i(5, (int64_t)before);
    hoodie_assert_equal_i(0, (int64_t)orphans);
    hoodie_service_opts so = HOODIE_SERVICE_OPTS_INIT;
    hoodie_service_result sr;
    so.clean_policy = HOODIE_CLEAN_KEEP_LATEST_FILE_VERSIONS;
    so.retain = 1;
    hoodie_assert_ok(hoodie_clean(table, &so, &sr));
    count_files(table, &after, &orphans);
    hoodie_assert_equal_i(1, (int64_t)after); /* the log of group odd's latest file (group even was replaced) */
    hoodie_assert_equal_i(0, (int64_t)orphans);
    /* the query needs the versions the clean deleted: it says so rather than report updates as inserts */
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, table, NULL));
    hoodie_scan_opts so2 = HOODIE_SCAN_OPTS_INIT;
    struct ArrowArrayStream st;
    so2.query = HOODIE_QUERY_CDC;
    hoodie_assert_equal_i(HOODIE_ENOTFOUND, hoodie_table_scan(t, &so2, &st));
    /* the window that holds the insert_overwrite alone: from the end of the commit before it (its completion time
     * on version 8, else its instant) */
    char from[32] = "";
    for (size_t i = 0; i < hoodie_table_instant_count(t); i++) {
        hoodie_instant_info ii;
        hoodie_assert_ok(hoodie_table_instant(t, i, &ii));
        if (strcmp(ii.requested, overwrite) < 0 && strcmp(ii.action, "clean") && !strcmp(ii.state, "completed"))
            snprintf(from, sizeof from, "%s", *ii.completion ? ii.completion : ii.requested);
    }
    so2.from = from; /* the insert_overwrite alone: its replaced file group is gone too */
    hoodie_assert_equal_i(HOODIE_ENOTFOUND, hoodie_table_scan(t, &so2, &st));
    hoodie_table_free(t);
}

HOODIE_TEST(write_cdc__cow_v8_before_after) { cdc_case(0, 8, NULL, "cow8"); }
HOODIE_TEST(write_cdc__cow_v6_op_key_only) { cdc_case(0, 6, "OP_KEY_ONLY", "cow6k"); }
HOODIE_TEST(write_cdc__cow_v8_data_before_legacy_spelling) { cdc_case(0, 8, "cdc_data_before", "cow8b"); }
HOODIE_TEST(write_cdc__mor_v8_small_file_merge) { cdc_case(1, 8, "DATA_BEFORE_AFTER", "mor8"); }

/* The completion time of `instant` (version 8), the bound of a window that starts after it. */
static void completion_of(const char *table, const char *instant, char *out, size_t cap)
{
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, table, NULL));
    *out = 0;
    for (size_t i = 0; i < hoodie_table_instant_count(t); i++) {
        hoodie_instant_info ii;
        hoodie_assert_ok(hoodie_table_instant(t, i, &ii));
        if (!strcmp(ii.requested, instant)) snprintf(out, cap, "%s", ii.completion);
    }
    hoodie_table_free(t);
    hoodie_assert(*out != 0);
}

/* Replace file `path` with a CDC log: one CDC_DATA_BLOCK of schema `schema` holding the one Avro record `rec`
 * (schema NULL: bytes that are not a log block). */
static void cdc_log_file(const char *path, const char *schema, const uint8_t *rec, size_t len)
{
    hoodie_buf out = HOODIE_BUF_INIT, content = HOODIE_BUF_INIT;
    if (schema) {
        hoodie_hlog_avro_writer w;
        hoodie_hlog_header_entry hdr[2] = { { HOODIE_HLOG_INSTANT_TIME, "20260101000000000", 17 },
                                            { HOODIE_HLOG_SCHEMA, schema, strlen(schema) } };
        hoodie_assert_ok(hoodie_hlog_avro_content_begin(&content, &w));
        if (rec) hoodie_assert_ok(hoodie_hlog_avro_record_add(&content, &w, rec, len));
        hoodie_assert_ok(hoodie_hlog_avro_content_end(&content, &w));
        hoodie_assert_ok(hoodie_hlog_write_block(&out, HOODIE_HLOG_CDC_DATA_BLOCK, hdr, 2, content.data, content.len));
    } else {
        hoodie_assert_ok(hoodie_buf_append(&out, "#HUDI# this is not a log block", 30));
    }
    FILE *fp = fopen(path, "wb");
    hoodie_assert(fp != NULL);
    hoodie_assert(fwrite(out.data, 1, out.len, fp) == out.len);
    fclose(fp);
    hoodie_buf_dispose(&out);
    hoodie_buf_dispose(&content);
}

/* The CDC query over (from, ...] of `table` fails while it streams, its message naming `path` and saying `what`. */
static void query_fails(const char *table, const char *from, const char *path, const char *what)
{
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, table, NULL));
    hoodie_scan_opts qo = HOODIE_SCAN_OPTS_INIT;
    qo.query = HOODIE_QUERY_CDC;
    qo.from = from;
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_table_scan(t, &qo, &st));
    struct ArrowArray arr;
    int err;
    while (!(err = st.get_next(&st, &arr)) && arr.release) arr.release(&arr);
    hoodie_assert(err != 0);
    const char *msg = st.get_last_error(&st);
    hoodie_assert(msg != NULL);
    hoodie_assert_contains(msg, path);
    hoodie_assert_contains(msg, what);
    st.release(&st);
    hoodie_table_free(t);
}

/* A new COW v8 CDC table named <kind>_<tag> in the test's folder (mode NULL: the default). */
static void cow8_cdc_table(char *table, size_t cap, const char *kind, const char *mode, const char *tag)
{
    snprintf(table, cap, "%s/cdc_%s_%s", hoodie_test_tmpdir(), kind, tag);
    cdc_table(table, 0, 8, mode);
}

/* With images logged, a commit's changes are read from its CDC logs, as Hudi's reader reads them (DATA_BEFORE:
 * the after images from the commit's own files): a window whose older file versions were cleaned still reads, as
 * long as the logs of its commits are there. OP_KEY_ONLY logs too little: its queries still need the versions,
 * and say so. */
static void logs_after_clean(const char *mode, const char *tag)
{
    char table[512], from[32];
    cow8_cdc_table(table, sizeof table, "clean", mode, tag);
    hoodie_write_result res;
    cdc_seen seen;
    cdc_write(table, HOODIE_WRITE_INSERT, 1, 6, 10, "a", &res);
    cdc_write(table, HOODIE_WRITE_UPSERT, 5, 8, 20, "b", &res);
    cdc_write(table, HOODIE_WRITE_DELETE, 1, 2, 0, "d", &res);
    completion_of(table, res.instant, from, sizeof from);
    cdc_write(table, HOODIE_WRITE_UPSERT, 3, 4, 30, "c", &res);
    const char *last[] = { "u T 3/a3 3/c3", "u T 4/a4 4/c4" };
    query_cdc_from(table, from, NULL, &seen);
    expect(&seen, last, 2);
    hoodie_service_opts so = HOODIE_SERVICE_OPTS_INIT;
    hoodie_service_result sr;
    so.clean_policy = HOODIE_CLEAN_KEEP_LATEST_FILE_VERSIONS;
    so.retain = 1;
    hoodie_assert_ok(hoodie_clean(table, &so, &sr));
    hoodie_assert(sr.files_deleted >= 6); /* the three older versions of both groups, and the older logs */
    if (mode && !strcmp(mode, "OP_KEY_ONLY")) {
        hoodie_assert_equal_i(HOODIE_ENOTFOUND, query_cdc_from(table, from, NULL, &seen));
        hoodie_assert_contains(hoodie_error_last()->message, "no longer there");
        return;
    }
    hoodie_assert_ok(query_cdc_from(table, from, NULL, &seen));
    expect(&seen, last, 2);
    /* the whole table: the insert's new files are gone, and nothing logged them */
    hoodie_assert_equal_i(HOODIE_ENOTFOUND, query_cdc_from(table, NULL, NULL, &seen));
    /* CDC logs that are not what the table logs: the query fails naming the file (and where) */
    char dir[1024], path[2048] = "";
    snprintf(dir, sizeof dir, "%s/odd", table);
    DIR *d = opendir(dir);
    hoodie_assert(d != NULL);
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".cdc")) snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    closedir(d);
    hoodie_assert(path[0] != 0);
    static const uint8_t op_x[] = { 2, 2, 'x', 0, 0, 0 };
    static const char both[] = "{\"type\":\"record\",\"name\":\"CDC\",\"fields\":["
                               "{\"name\":\"op\",\"type\":[\"null\",\"string\"]},"
                               "{\"name\":\"ts_ms\",\"type\":[\"null\",\"string\"]},"
                               "{\"name\":\"before\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"r\","
                               "\"fields\":[{\"name\":\"id\",\"type\":[\"null\",\"long\"]}]}]},"
                               "{\"name\":\"after\",\"type\":[\"null\",\"r\"]}]}";
    static const char keys[] = "{\"type\":\"record\",\"name\":\"Record\",\"fields\":["
                               "{\"name\":\"op\",\"type\":[\"string\",\"null\"]},"
                               "{\"name\":\"record_key\",\"type\":[\"string\",\"null\"]}]}";
    static const char before_only[] = "{\"type\":\"record\",\"name\":\"CDC\",\"fields\":["
                                      "{\"name\":\"op\",\"type\":[\"null\",\"string\"]},"
                                      "{\"name\":\"record_key\",\"type\":[\"null\",\"string\"]},"
                                      "{\"name\":\"before\",\"type\":[\"null\",{\"type\":\"record\","
                                      "\"name\":\"r\",\"fields\":[{\"name\":\"id\",\"type\":[\"null\","
                                      "\"long\"]}]}]}]}";
    int has_after = !mode; /* the default mode logs both images */
    cdc_log_file(path, NULL, NULL, 0);
    query_fails(table, from, path, "offset");
    cdc_log_file(path, keys, NULL, 0);
    query_fails(table, from, path, has_after ? "does not hold op, before and after images"
                                             : "does not hold op, record_key and before image");
    /* op "x", then null for the other fields: ts_ms, before, after -- or record_key, before */
    cdc_log_file(path, has_after ? both : before_only, op_x, has_after ? sizeof op_x : sizeof op_x - 1);
    query_fails(table, from, path, "has op 'x', not i, u or d");
}

HOODIE_TEST(write_cdc__query_reads_logs_after_clean)
{
    logs_after_clean(NULL, "default");
    logs_after_clean("DATA_BEFORE", "before");
    logs_after_clean("OP_KEY_ONLY", "keys");
}

/* A commit that deletes every record of its file groups leaves base files without records: the deletes are in
 * the CDC logs (and the states before), in every mode, not lost with the empty state after. */
static void emptied(const char *mode, const char *tag)
{
    char table[512];
    cow8_cdc_table(table, sizeof table, "emptied", mode, tag);
    hoodie_write_result res;
    cdc_seen seen;
    cdc_write(table, HOODIE_WRITE_INSERT, 1, 4, 10, "a", &res);
    cdc_write(table, HOODIE_WRITE_DELETE, 1, 4, 0, "d", &res);
    query_cdc(table, res.instant, &seen);
    const char *want[] = { "d T 1/a1 -", "d T 2/a2 -", "d T 3/a3 -", "d T 4/a4 -" };
    expect(&seen, want, 4);
}

HOODIE_TEST(write_cdc__query_groups_emptied)
{
    emptied(NULL, "default");
    emptied("DATA_BEFORE", "before");
    emptied("OP_KEY_ONLY", "keys");
}

/* The rows a scan gives (it must succeed). */
static int64_t scan_rows(hoodie_table *t, const hoodie_scan_opts *so)
{
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_table_scan(t, so, &st));
    hoodie_arrow_reader r;
    hoodie_assert_ok(hoodie_arrow_reader_open(&r, &st));
    hoodie_batch b;
    int64_t n = 0;
    while (hoodie_arrow_reader_next(&r, &b) == HOODIE_OK) {
        n += b.root.length;
        hoodie_batch_dispose(&b);
    }
    hoodie_arrow_reader_close(&r);
    return n;
}

/* The query over Spark's tables (no CDC logs: every change inferred): MOR v8, 8 inserts then 3 deletes (log
 * delete block); MOR v6, 8 inserts then 1 update (log data block). */
static void fixture_ops(const char *rel, const char *from, const char *want_ops)
{
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, hoodie_fixture(rel), NULL));
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.query = HOODIE_QUERY_CDC;
    so.from = from;
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_table_scan(t, &so, &st));
    hoodie_arrow_reader r;
    hoodie_assert_ok(hoodie_arrow_reader_open(&r, &st));
    hoodie_batch b;
    char ops[64] = "";
    size_t n = 0;
    while (hoodie_arrow_reader_next(&r, &b) == HOODIE_OK) {
        for (int64_t i = 0; i < b.root.length && n + 1 < sizeof ops; i++) {
            ops[n++] = str_at(&b, 0, i)[0];
            /* an update's images: the same key, another fare */
            if (ops[n - 1] == 'u') {
                json_error_t e;
                json_t *x = json_loads(str_at(&b, 2, i), 0, &e), *y = json_loads(str_at(&b, 3, i), 0, &e);
                hoodie_assert(x && y);
                hoodie_assert_equal_s(json_string_value(json_object_get(x, "uuid")),
                                      json_string_value(json_object_get(y, "uuid")));
                hoodie_assert(!json_equal(json_object_get(x, "fare"), json_object_get(y, "fare")));
                json_decref(x);
                json_decref(y);
            }
        }
        hoodie_batch_dispose(&b);
    }
    ops[n] = 0;
    hoodie_arrow_reader_close(&r);
    hoodie_table_free(t);
    hoodie_assert_equal_s(want_ops, ops);
}

HOODIE_TEST(write_cdc__query_spark_tables)
{
    fixture_ops("hudi/tables/trips_mor_avro_v8_trips_8i3d", NULL, "iiiiiiiiddd");
    fixture_ops("hudi/tables/trips_mor_avro_v6_trips_8i1u", NULL, "iiiiiiiiu");
    /* windows (from, to]: version 8 by completion time (the first commit completed at ...47335), 6 by requested */
    fixture_ops("hudi/tables/trips_mor_avro_v8_trips_8i3d", "20250713011947335", "ddd");
    fixture_ops("hudi/tables/trips_mor_avro_v8_trips_8i3d", "20250713011947334", "iiiiiiiiddd");
    fixture_ops("hudi/tables/trips_mor_avro_v6_trips_8i1u", "20250331030642808", "u");
}

HOODIE_TEST(write_cdc__query_refuses_what_it_cannot_do)
{
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, hoodie_fixture("hudi/tables/trips_mor_avro_v8_trips_8i3d"), NULL));
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    struct ArrowArrayStream st;
    so.query = HOODIE_QUERY_CDC;
    so.as_of = "20250713011946968";
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_table_scan(t, &so, &st));
    so.as_of = NULL;
    so.from = "yesterday";
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_table_scan(t, &so, &st));
    hoodie_assert_contains(hoodie_error_last()->message, "'yesterday' is not an instant time");
    /* the same for incremental queries, which compared any string with the instant times */
    so.query = HOODIE_QUERY_INCREMENTAL;
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_table_scan(t, &so, &st));
    so.from = NULL;
    so.to = "2025-07-13";
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_table_scan(t, &so, &st));
    hoodie_assert_contains(hoodie_error_last()->message, "'2025-07-13' is not an instant time");
    /* Hudi's "000" (from the beginning) is a bound: every record, as a snapshot reads them */
    so.to = NULL;
    so.from = "000";
    int64_t n_incr = scan_rows(t, &so);
    so.query = HOODIE_QUERY_SNAPSHOT;
    so.from = NULL;
    hoodie_assert(n_incr > 0);
    hoodie_assert_equal_i(scan_rows(t, &so), n_incr);
    so.query = HOODIE_QUERY_CDC;
    so.from = "000";
    hoodie_assert_equal_i(11, scan_rows(t, &so)); /* iiiiiiiiddd */
    so.from = NULL;
    so.filter = "fare > 1";
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_table_scan(t, &so, &st));
    hoodie_table_free(t);
    hoodie_assert_ok(hoodie_table_open(&t, hoodie_fixture("hudi/tables/cow_v6_simplekeygen_hivestyle_no_metafields"),
                                       NULL));
    so.filter = NULL;
    hoodie_assert_equal_i(HOODIE_EUNSUPPORTED, hoodie_table_scan(t, &so, &st));
    hoodie_table_free(t);
}
