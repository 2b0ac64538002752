/*
 * A table with a metadata table (hoodie.properties listing MDT partitions, a .hoodie/metadata tree) that hoodie
 * cannot keep: hoodie's first write disables it (partitions emptied, every other key kept, the folder removed) and
 * reads are unchanged; a write that dies at any storage operation leaves a table that reads as before, and the next
 * write finishes the job.
 *
 * A Spark-written one (mdt_basic_mor_avro_v8_nonpartitioned): its files and column_stats partitions are kept in step
 * by writes and services (every base file's statistics as its footer gives them), the other partitions dropped; after any crash the table reads as before through it and through a
 * listing, and after the next write its listing equals storage's.
 */
#include "hoodie_test.h"
#include "hoodie/hoodie.h"
#include "storage/storage.h"
#include "table/config.h"
#include "table/mdt.h"
#include "table/timeline.h"
#include "table/table.h"
#include "write/mdt.h"
#include "util/arena.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TBL "/m"

/* A write of CSV `text`; index: 1 hoodie.index.type=RECORD_INDEX, | 2 hoodie.record.index.update.partition.path. */
static hoodie_status write_op_index(const hoodie_storage *s, const char *text, hoodie_write_operation op,
                                    int index)
{
    struct ArrowArrayStream in;
    const char *paths[1] = { "/in.csv" };
    hoodie_files_opts fo = HOODIE_FILES_OPTS_INIT;
    hoodie_write_opts wo = HOODIE_WRITE_OPTS_INIT;
    hoodie_status rc = hoodie_storage_write_all(s, "/in.csv", 0, text, strlen(text));
    if (rc < 0) return rc;
    fo.storage = s;
    if ((rc = hoodie_files_stream(paths, 1, TBL, &fo, &in)) < 0) return rc;
    wo.storage = s;
    wo.op = op;
    wo.record_index = index & 1;
    wo.update_partition_path = (index & 2) != 0;
    return hoodie_table_write(TBL, &in, &wo, NULL);
}

static hoodie_status write_op(const hoodie_storage *s, const char *text, hoodie_write_operation op)
{
    return write_op_index(s, text, op, 0);
}

static hoodie_status write_csv(const hoodie_storage *s, const char *text)
{
    return write_op(s, text, HOODIE_WRITE_UPSERT);
}

/* A snapshot of `cols` as CSV (NULL if the table cannot be read), listed or through the metadata table. */
static char *scan_csv(const hoodie_storage *s, const char *const *cols, size_t n_cols, uint32_t flags)
{
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    to.flags = flags;
    if (hoodie_table_open(&t, TBL, &to) < 0) return NULL;
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.columns = cols;
    so.n_columns = n_cols;
    struct ArrowArrayStream st;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hoodie_output_opts oo = HOODIE_OUTPUT_OPTS_INIT;
    hoodie_status rc = hoodie_table_scan(t, &so, &st);
    if (rc == HOODIE_OK) rc = hoodie_output_stream(&st, NULL, f, &oo, NULL);
    fclose(f);
    hoodie_table_free(t);
    if (rc < 0) { free(buf); return NULL; }
    return buf;
}

/* The snapshot's keys and data columns (one file group per partition, rows in key order: stable). */
static char *rows(const hoodie_storage *s)
{
    static const char *const cols[] = { "_hoodie_record_key", "p", "ts", "v" };
    return scan_csv(s, cols, 4, 0);
}

static char *props_text(const hoodie_storage *s, const char *name)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    char path[64];
    snprintf(path, sizeof path, TBL "/.hoodie/%s", name);
    if (hoodie_storage_read_all(s, path, &b) < 0 || hoodie_buf_cstr(&b) < 0) { hoodie_buf_dispose(&b); return NULL; }
    return (char *)b.data;
}

/* The key=value lines of a properties text without the two MDT keys (comments dropped). */
static char *other_keys(const char *text)
{
    char *out = calloc(1, strlen(text) + 1), *o = out;
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (n && l[0] != '#' && strncmp(l, "hoodie.table.metadata.partitions", 32) != 0) {
            memcpy(o, l, n);
            o += n;
            *o++ = '\n';
        }
        l += n + (e != NULL);
    }
    return out;
}

/* A MOR table of version 8 in memory (key id, partition p, ordering field ts) with rows 1, 2 (a) and 3 (b). */
static hoodie_storage *mor_table(void)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    hoodie_table_create_opts co = HOODIE_TABLE_CREATE_OPTS_INIT;
    static const char *const keys[] = { "id" }, *const parts[] = { "p" };
    co.storage = mem;
    co.table_version = 8;
    co.type = HOODIE_CREATE_MERGE_ON_READ;
    co.name = "m";
    co.record_key_fields = keys;
    co.record_key_count = 1;
    co.partition_fields = parts;
    co.partition_count = 1;
    co.ordering_field = "ts";
    hoodie_assert_ok(hoodie_table_create(TBL, &co));
    hoodie_assert_ok(write_csv(mem, "id,p,ts,v\n1,a,1,x1\n2,a,1,x2\n3,b,1,x3\n"));
    return mem;
}

static hoodie_storage *table_with_mdt(void)
{
    hoodie_storage *mem = mor_table();
    /* as a Spark writer with the metadata table enabled leaves it */
    char *p = props_text(mem, "hoodie.properties");
    hoodie_assert(p != NULL);
    hoodie_buf nb = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_buf_printf(&nb, "%shoodie.table.metadata.partitions=column_stats,files\n"
                                       "hoodie.table.metadata.partitions.inflight=record_index\n", p));
    free(p);
    hoodie_assert_ok(hoodie_storage_write_all(mem, TBL "/.hoodie/hoodie.properties", 0, nb.data, nb.len));
    hoodie_buf_dispose(&nb);
    hoodie_assert_ok(mem->mkdirs(mem->ctx, TBL "/.hoodie/metadata/files"));
    hoodie_assert_ok(hoodie_storage_write_all(mem, TBL "/.hoodie/metadata/.hoodie/hoodie.properties", 0, "x=1\n", 4));
    hoodie_assert_ok(hoodie_storage_write_all(mem, TBL "/.hoodie/metadata/files/.files-0000-0_00000000000000000.log.1_0-0-0", 0, "#HUDI#", 6));
    return mem;
}

/* The MDT is gone: no partitions listed, every other key as `orig` had it, no folder, no backup left. */
static void assert_dropped(const hoodie_storage *s, const char *orig)
{
    char *p = props_text(s, "hoodie.properties");
    hoodie_assert(p != NULL);
    hoodie_assert_contains(p, "\nhoodie.table.metadata.partitions=\n");
    hoodie_assert_contains(p, "\nhoodie.table.metadata.partitions.inflight=\n");
    hoodie_assert_contains(p, "#Updated at ");
    char *a = other_keys(orig), *b = other_keys(p);
    hoodie_assert_equal_s(a, b);
    free(a);
    free(b);
    free(p);
    hoodie_assert(s->exists(s->ctx, TBL "/.hoodie/metadata") == 0);
    hoodie_assert(s->exists(s->ctx, TBL "/.hoodie/hoodie.properties.backup") == 0);
}

static const char *UPSERT = "id,p,ts,v\n1,a,2,y1\n3,b,2,y3\n4,b,2,y4\n";

HOODIE_TEST(write_mdt__first_write_disables_it)
{
    hoodie_storage *mem = table_with_mdt();
    char *orig = props_text(mem, "hoodie.properties");
    hoodie_assert_ok(write_csv(mem, UPSERT));
    assert_dropped(mem, orig);
    char *r = rows(mem);
    hoodie_assert(r != NULL);
    hoodie_assert_equal_s("_hoodie_record_key,p,ts,v\n1,a,2,y1\n2,a,1,x2\n3,b,2,y3\n4,b,2,y4\n", r);
    free(r);
    /* a table without one: the next write changes nothing of hoodie.properties */
    char *p1 = props_text(mem, "hoodie.properties");
    hoodie_assert_ok(write_csv(mem, "id,p,ts,v\n2,a,3,z2\n"));
    char *p2 = props_text(mem, "hoodie.properties");
    hoodie_assert_equal_s(p1, p2);
    free(p1);
    free(p2);
    free(orig);
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_mdt__services_disable_it)
{
    hoodie_storage *mem = table_with_mdt();
    char *orig = props_text(mem, "hoodie.properties");
    char *before = rows(mem);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    o.storage = mem;
    hoodie_assert_ok(hoodie_compaction_schedule(TBL, &o, NULL));
    assert_dropped(mem, orig);
    char *now = rows(mem);
    hoodie_assert_equal_s(before, now);
    free(now);
    free(before);
    free(orig);
    hoodie_storage_free(mem);
}

/* A write that dies at its k-th storage operation, for every k. */
HOODIE_TEST(write_mdt__crash_at_every_operation)
{
    hoodie_storage *mem = table_with_mdt(), *fs;
    hoodie_assert_ok(hoodie_storage_faulty_new(&fs, mem));
    char *orig = props_text(mem, "hoodie.properties"), *before = rows(mem);
    hoodie_assert(before != NULL);
    hoodie_assert_ok(write_csv(fs, UPSERT));
    uint64_t n_ops = hoodie_storage_faulty_count(fs);
    char *after = rows(mem);
    hoodie_storage_free(fs);
    hoodie_storage_free(mem);
    int checked = 0;
    for (uint64_t k = 1; k <= n_ops; k++) {
        mem = table_with_mdt();
        hoodie_assert_ok(hoodie_storage_faulty_new(&fs, mem));
        hoodie_storage_faulty_arm(fs, HOODIE_FAULT_CRASH_AT, k);
        hoodie_status rc = write_csv(fs, UPSERT);
        hoodie_error_clear();
        char *now = rows(mem); /* readers: hoodie.properties or its backup, either way a table */
        hoodie_assert(now != NULL);
        hoodie_assert_equal_s(rc == HOODIE_OK ? after : before, now);
        free(now);
        hoodie_assert_ok(write_csv(mem, UPSERT)); /* the next writer finishes */
        assert_dropped(mem, orig);
        now = rows(mem);
        hoodie_assert_equal_s(after, now);
        free(now);
        hoodie_storage_free(fs);
        hoodie_storage_free(mem);
        checked++;
    }
    hoodie_assert(checked > 10);
    free(orig);
    free(before);
    free(after);
}

/* ---- a Spark-written metadata table, kept ---- */

#define SPARK_MDT "hudi/tables/mdt_basic_mor_avro_v8_nonpartitioned"

typedef struct copy_ctx { const hoodie_storage *to; const char *from_dir, *to_dir; hoodie_status rc; } copy_ctx;

static void copy_tree(const hoodie_storage *to, const char *from, const char *dest);

static int copy_cb(const hoodie_dirent *e, void *payload)
{
    copy_ctx *c = payload;
    char f[1024], t[1024];
    snprintf(f, sizeof f, "%s/%s", c->from_dir, e->name);
    snprintf(t, sizeof t, "%s/%s", c->to_dir, e->name);
    if (e->is_dir) { copy_tree(c->to, f, t); return 0; }
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), f, &b));
    hoodie_assert_ok(hoodie_storage_write_all(c->to, t, 0, b.data ? (const void *)b.data : "", b.len));
    hoodie_buf_dispose(&b);
    return 0;
}

static void copy_tree(const hoodie_storage *to, const char *from, const char *dest)
{
    copy_ctx c = { to, from, dest, HOODIE_OK };
    hoodie_assert_ok(to->mkdirs(to->ctx, dest));
    const hoodie_storage *posix = hoodie_storage_posix();
    hoodie_assert_ok(posix->list(posix->ctx, from, copy_cb, &c));
}

static hoodie_storage *spark_table(void)
{
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    char from[1024];
    snprintf(from, sizeof from, "%s", hoodie_fixture(SPARK_MDT));
    copy_tree(mem, from, TBL);
    return mem;
}

#define SPARK_HEAD "id,name,isActive,byteField,shortField,intField,longField,floatField,doubleField,decimalField," \
                   "dateField,timestampField,binaryField\n"
static const char *SPARK_UPSERT = SPARK_HEAD
    "4,Diana Again,true,1,500,45000,987654399,4.0,2.468,65432.12345,2023-04-04,2023-04-04 15:04:00+00,\n"
    "7,Grace,true,1,2,3,4,5.0,6.0,7.00000,2023-05-05,2023-05-05 10:00:00+00,\n";

static int line_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted "name size" lines. */
static char *sorted_lines(hoodie_buf *b)
{
    hoodie_assert_ok(hoodie_buf_cstr(b));
    char **v = calloc(b->len + 1, sizeof *v);
    size_t n = 0;
    for (char *p = strtok((char *)b->data, "\n"); p; p = strtok(NULL, "\n")) v[n++] = p;
    qsort(v, n, sizeof *v, line_cmp);
    hoodie_buf o = HOODIE_BUF_INIT;
    for (size_t i = 0; i < n; i++) hoodie_assert_ok(hoodie_buf_printf(&o, "%s\n", v[i]));
    hoodie_assert_ok(hoodie_buf_cstr(&o));
    free(v);
    return (char *)o.data;
}

/* The snapshot (id, name, longField) as CSV, listed from storage or through the metadata table. */
static char *spark_rows(const hoodie_storage *s, int through_mdt)
{
    static const char *const cols[] = { "id", "name", "longField" };
    char *buf = scan_csv(s, cols, 3, through_mdt ? HOODIE_OPEN_METADATA_TABLE : 0);
    if (!buf) return NULL;
    /* the header, then the rows sorted (a new file group may come first) */
    char *nl = strchr(buf, '\n');
    if (!nl) return buf;
    hoodie_buf body = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_buf_append_str(&body, nl + 1));
    char *sorted = sorted_lines(&body);
    nl[1] = '\0';
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_buf_printf(&out, "%s%s", buf, sorted));
    hoodie_assert_ok(hoodie_buf_cstr(&out));
    free(sorted);
    free(buf);
    hoodie_buf_dispose(&body);
    return (char *)out.data;
}

/* Reads by listing and through the metadata table agree. */
static void assert_reads_agree(const hoodie_storage *s)
{
    char *r1 = spark_rows(s, 0), *r2 = spark_rows(s, 1);
    hoodie_assert(r1 && r2);
    hoodie_assert_equal_s(r1, r2);
    free(r1), free(r2);
}

typedef struct list_ctx { hoodie_buf *b; } list_ctx;

static int list_cb(const hoodie_dirent *e, void *payload)
{
    list_ctx *c = payload;
    if (!e->is_dir && strcmp(e->name, ".hoodie_partition_metadata"))
        hoodie_buf_printf(c->b, "%s %llu\n", e->name, (unsigned long long)e->size);
    return 0;
}

static const char *const spark_cs_columns[] = {
    "_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "id", "name", "isActive", "byteField",
    "shortField", "intField", "longField", "floatField", "doubleField", "decimalField", "dateField", "timestampField",
    "binaryField" };
#define N_CS_COLUMNS (sizeof spark_cs_columns / sizeof spark_cs_columns[0])

/* The column_stats partition in step with storage: every base file has its statistics (the bytes computed from
 * its footer now), every file with live statistics exists. */
static void assert_cs_in_step(const hoodie_storage *s, const hoodie_timeline *tl, const char *listing)
{
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_mdt_csrec *g[2];
    size_t n[2];
    for (int i = 0; i < 2; i++) {
        char fid[32];
        snprintf(fid, sizeof fid, "col-stats-000%d-0", i);
        hoodie_assert_ok(hoodie_mdt_cs_group(s, TBL, tl, fid, a, &g[i], &n[i]));
        for (size_t k = 0; k < n[i]; k++) {
            if (g[i][k].deleted) continue;
            char want[512];
            snprintf(want, sizeof want, "%s ", g[i][k].file);
            if (!strstr(listing, want)) fprintf(stderr, "stats of a file storage does not have: %s\n", g[i][k].file);
            hoodie_assert(strstr(listing, want) != NULL);
        }
    }
    /* every base file has its footer's statistics; every log file has statistics too (Spark's, or those hoodie's
     * writer collected) */
    size_t bases = 0;
    for (const char *p = listing; *p;) {
        const char *sp = strchr(p, ' '), *nl = strchr(p, '\n');
        char name[512];
        snprintf(name, sizeof name, "%.*s", (int)(sp - p), p);
        p = nl + 1;
        if (strstr(name, ".log.")) {
            size_t live = 0;
            for (int i = 0; i < 2; i++)
                for (size_t k = 0; k < n[i]; k++) live += !g[i][k].deleted && !strcmp(g[i][k].file, name);
            if (live != N_CS_COLUMNS) fprintf(stderr, "%s: %zu statistics\n", name, live);
            hoodie_assert_equal_i((int)N_CS_COLUMNS, (int)live);
            continue;
        }
        if (!strstr(name, ".parquet")) continue;
        char path[600];
        snprintf(path, sizeof path, TBL "/%s", name);
        hoodie_mdt_csrec *recs;
        size_t nr;
        hoodie_assert_ok(hoodie_write__cs_of_base_file(s, path, ".", spark_cs_columns, N_CS_COLUMNS, a, &recs, &nr));
        hoodie_assert_equal_i((int)N_CS_COLUMNS, (int)nr);
        for (size_t k = 0; k < nr; k++) {
            size_t gi = hoodie_mdt_key_group(recs[k].key, 2), j = 0;
            while (j < n[gi] && strcmp(g[gi][j].key, recs[k].key)) j++;
            hoodie_assert(j < n[gi] && !g[gi][j].deleted);
            hoodie_buf x = HOODIE_BUF_INIT, y = HOODIE_BUF_INIT;
            hoodie_assert_ok(hoodie_write__cs_encode(&x, &recs[k], NULL));
            hoodie_assert_ok(hoodie_write__cs_encode(&y, &g[gi][j], NULL));
            hoodie_assert_equal_i((int)x.len, (int)y.len);
            hoodie_assert(!memcmp(x.data, y.data, x.len));
            hoodie_buf_dispose(&x);
            hoodie_buf_dispose(&y);
        }
        bases++;
    }
    hoodie_assert(bases > 0);
    hoodie_arena_free(a);
}

/* The record_index partition in step with the snapshot: each live key where the index puts it (the partition and
 * file group of its record), and no other key in the index. */
static void assert_rli_in_step(const hoodie_storage *s, const hoodie_timeline *tl)
{
    static const char *const cols[] = { "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name" };
    char *csv = scan_csv(s, cols, 3, 0);
    hoodie_assert(csv != NULL);
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    size_t n_keys = 0;
    for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char *key = line + 1, *part = strchr(key, ','), *file = part ? strchr(part + 1, ',') : NULL;
        char *end = file ? strchr(file + 1, '\n') : NULL;
        hoodie_assert(part && file && end);
        char k[64], p[128], f[256];
        snprintf(k, sizeof k, "%.*s", (int)(part - key), key);
        snprintf(p, sizeof p, "%.*s", (int)(file - part - 1), part + 1);
        snprintf(f, sizeof f, "%.*s", (int)(end - file - 1), file + 1);
        char *us = strchr(f, '_'); /* a base file's name, or a log record's file id */
        if (us) *us = '\0';
        const char *kp = k;
        hoodie_mdt_location loc;
        hoodie_assert_ok(hoodie_mdt_record_index(s, TBL, tl, &kp, 1, a, &loc));
        if (!loc.found || strcmp(loc.file_id, f)) fprintf(stderr, "record index: key %s: %s, not %s\n", k,
                                                          loc.found ? loc.file_id : "absent", f);
        hoodie_assert(loc.found);
        hoodie_assert_equal_s(f, loc.file_id);
        hoodie_assert_equal_s(p, loc.partition);
        n_keys++;
    }
    size_t live = 0;
    hoodie_assert_ok(hoodie_mdt_rli_live(s, TBL, tl, &live));
    if (n_keys != live) fprintf(stderr, "snapshot:\n%s", csv);
    hoodie_assert_equal_i((int)n_keys, (int)live);
    hoodie_arena_free(a);
    free(csv);
}

/* The secondary index on name in step with the snapshot: an entry "name$key" for each record with a name (sorted
 * lines both sides), and no other. */
static void assert_si_in_step(const hoodie_storage *s, const hoodie_timeline *tl)
{
    static const char *const cols[] = { "_hoodie_record_key", "name" };
    char *csv = scan_csv(s, cols, 2, 0);
    hoodie_assert(csv != NULL);
    hoodie_buf snap = HOODIE_BUF_INIT, idx = HOODIE_BUF_INIT;
    for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char *key = line + 1, *comma = strchr(key, ','), *end = comma ? strchr(comma, '\n') : NULL;
        hoodie_assert(comma && end);
        if (end == comma + 1) continue; /* no name: not indexed */
        hoodie_assert_ok(hoodie_buf_printf(&snap, "%.*s$%.*s\n", (int)(end - comma - 1), comma + 1,
                                           (int)(comma - key), key));
    }
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_mdt_si_entry *e;
    size_t n;
    hoodie_assert_ok(hoodie_mdt_secondary_entries(s, TBL, tl, "secondary_index_name_idx", a, &e, &n));
    for (size_t i = 0; i < n; i++) hoodie_assert_ok(hoodie_buf_printf(&idx, "%s$%s\n", e[i].secondary, e[i].record_key));
    char *x = sorted_lines(&snap), *y = sorted_lines(&idx);
    hoodie_assert_equal_s(x, y);
    free(x), free(y), free(e), free(csv);
    hoodie_buf_dispose(&snap);
    hoodie_buf_dispose(&idx);
    hoodie_arena_free(a);
}

/* The metadata table lists exactly the files storage has, with their sizes, and has the statistics of its base
 * files; it keeps its files, column_stats and record_index partitions and the secondary index. */
static void assert_mdt_in_step(const hoodie_storage *s)
{
    hoodie_buf stor = HOODIE_BUF_INIT, md = HOODIE_BUF_INIT;
    list_ctx lc = { &stor };
    hoodie_assert_ok(s->list(s->ctx, TBL, list_cb, &lc));
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    hoodie_assert_equal_s("column_stats,files,record_index,secondary_index_name_idx",
                          hoodie_table_config_get(t->cfg, "hoodie.table.metadata.partitions"));
    hoodie_mdt_listing *l;
    hoodie_assert_ok(hoodie_mdt_files(&l, s, TBL, t->tl));
    hoodie_assert_equal_i(1, l->count);
    for (size_t i = 0; i < l->partitions[0].count; i++)
        hoodie_assert_ok(hoodie_buf_printf(&md, "%s %llu\n", l->partitions[0].files[i].name,
                                           (unsigned long long)l->partitions[0].files[i].size));
    char *a = sorted_lines(&stor), *b = sorted_lines(&md);
    hoodie_assert_equal_s(a, b);
    assert_cs_in_step(s, t->tl, a);
    assert_rli_in_step(s, t->tl);
    assert_si_in_step(s, t->tl);
    free(a), free(b);
    hoodie_mdt_listing_free(l);
    hoodie_table_free(t);
    hoodie_buf_dispose(&stor);
    hoodie_buf_dispose(&md);
    hoodie_assert(s->exists(s->ctx, TBL "/.hoodie/metadata/column_stats") == 1);
    hoodie_assert(s->exists(s->ctx, TBL "/.hoodie/metadata/record_index") == 1);
    hoodie_assert(s->exists(s->ctx, TBL "/.hoodie/metadata/secondary_index_name_idx") == 1);
    assert_reads_agree(s);
}

HOODIE_TEST(write_mdt__spark_files_partition_kept_in_step)
{
    hoodie_storage *mem = spark_table();
    char *before = spark_rows(mem, 0);
    hoodie_assert_equal_s("id,name,longField\n1,Alice,1234567891\n4,Diana Updated,987654322\n5,Eve,1122334455\n",
                          before);
    hoodie_assert_ok(write_op(mem, SPARK_UPSERT, HOODIE_WRITE_UPSERT));
    assert_mdt_in_step(mem);
    {
        /* the update of id 4 went to a log file: its statistics are that record's values */
        hoodie_table *t;
        hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
        to.storage = mem;
        hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
        const char *last = t->tl->instants[t->tl->count - 1].requested;
        hoodie_mdt_colstats *cs;
        hoodie_assert_ok(hoodie_mdt_column_stats(&cs, mem, TBL, t->tl));
        char logname[256];
        snprintf(logname, sizeof logname, ".ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_%s.log.1_0-1-0", last);
        const hoodie_mdt_stat *st = hoodie_mdt_stat_of(cs, logname, "intField");
        hoodie_assert(st != NULL);
        hoodie_assert(st->has_min && st->has_max && st->min.i == 45000 && st->max.i == 45000);
        hoodie_assert(st->has_counts && st->value_count == 1 && st->null_count == 0);
        st = hoodie_mdt_stat_of(cs, logname, "name");
        hoodie_assert(st && st->has_min && st->min.len == 11 && !memcmp(st->min.bytes, "Diana Again", 11));
        hoodie_mdt_colstats_free(cs);
        hoodie_table_free(t);
    }
    char *r = spark_rows(mem, 1);
    hoodie_assert_equal_s("id,name,longField\n1,Alice,1234567891\n4,Diana Again,987654399\n5,Eve,1122334455\n"
                          "7,Grace,4\n", r);
    free(r);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    o.storage = mem;
    hoodie_assert_ok(hoodie_compaction_schedule(TBL, &o, NULL));
    hoodie_assert_ok(hoodie_compaction_run(TBL, &o, NULL, NULL));
    assert_mdt_in_step(mem);
    hoodie_assert_ok(hoodie_clustering(TBL, &o, NULL));
    assert_mdt_in_step(mem);
    hoodie_assert_ok(write_op(mem, SPARK_HEAD "1,,,,,,,,,,,,\n", HOODIE_WRITE_DELETE));
    assert_mdt_in_step(mem);
    /* id 1 back: its base file has it still (the delete is in a log), so the update goes to a log as well; the
     * record index, which its delete left, has it again */
    hoodie_assert_ok(write_op(mem, SPARK_HEAD "1,Alice Back,true,1,1,1,7,1.0,1.0,1.00000,2023-01-01,"
                                              "2023-01-01 00:00:00+00,\n", HOODIE_WRITE_UPSERT));
    assert_mdt_in_step(mem);
    hoodie_assert_ok(write_op(mem, SPARK_HEAD "1,,,,,,,,,,,,\n", HOODIE_WRITE_DELETE));
    assert_mdt_in_step(mem);
    /* a delete of id 5 whose ordering value (longField) is below the stored one loses: the record, its record
     * index entry and its secondary index entry stay */
    hoodie_assert_ok(write_op(mem, SPARK_HEAD "5,,,,,,3,,,,,,\n", HOODIE_WRITE_DELETE));
    assert_mdt_in_step(mem);
    r = spark_rows(mem, 1);
    hoodie_assert(strstr(r, "\n5,Eve,1122334455\n") != NULL);
    free(r);
    /* two more updates, then a log compaction of the slice: its new log file has statistics too */
    hoodie_assert_ok(write_op(mem, SPARK_UPSERT, HOODIE_WRITE_UPSERT));
    hoodie_assert_ok(write_op(mem, SPARK_UPSERT, HOODIE_WRITE_UPSERT));
    int64_t saved_threshold = o.log_blocks_threshold;
    o.log_blocks_threshold = 2;
    hoodie_service_result lr;
    hoodie_assert_ok(hoodie_log_compaction(TBL, &o, &lr));
    hoodie_assert(lr.files_written >= 1);
    o.log_blocks_threshold = saved_threshold;
    assert_mdt_in_step(mem);
    o.clean_policy = HOODIE_CLEAN_KEEP_LATEST_FILE_VERSIONS;
    o.retain = 1;
    hoodie_assert_ok(hoodie_clean(TBL, &o, NULL));
    assert_mdt_in_step(mem);
    /* the last write rolled back: its metadata table deltacommit goes too */
    hoodie_assert_ok(write_op(mem, SPARK_HEAD "5,Eve Later,true,1,1,1,1,1.0,1.0,1.00000,2023-01-01,2023-01-01 00:00:00+00,\n",
                                 HOODIE_WRITE_UPSERT));
    assert_mdt_in_step(mem);
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = mem;
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    char last[24];
    snprintf(last, sizeof last, "%s", t->tl->instants[t->tl->count - 1].requested);
    hoodie_table_free(t);
    hoodie_assert_ok(hoodie_rollback(TBL, &o, last, NULL));
    assert_mdt_in_step(mem);
    r = spark_rows(mem, 1);
    hoodie_assert_equal_s("id,name,longField\n4,Diana Again,987654399\n5,Eve,1122334455\n7,Grace,4\n", r);
    free(r);
    free(before);
    hoodie_storage_free(mem);
}

/* A write into the Spark table that dies at its k-th storage operation, for every k (compact_after 0: the write
 * compacts the metadata table first). */
static void spark_crash(int compact_after)
{
    int saved = hoodie_write__mdt_compact_after;
    hoodie_write__mdt_compact_after = compact_after;
    hoodie_storage *mem = spark_table(), *fs;
    hoodie_assert_ok(hoodie_storage_faulty_new(&fs, mem));
    char *before = spark_rows(mem, 0);
    hoodie_assert(before != NULL);
    hoodie_assert_ok(write_op(fs, SPARK_UPSERT, HOODIE_WRITE_UPSERT));
    uint64_t n_ops = hoodie_storage_faulty_count(fs);
    char *after = spark_rows(mem, 0);
    hoodie_storage_free(fs);
    hoodie_storage_free(mem);
    int checked = 0;
    for (uint64_t k = 1; k <= n_ops; k++) {
        mem = spark_table();
        hoodie_assert_ok(hoodie_storage_faulty_new(&fs, mem));
        hoodie_storage_faulty_arm(fs, HOODIE_FAULT_CRASH_AT, k);
        hoodie_status rc = write_op(fs, SPARK_UPSERT, HOODIE_WRITE_UPSERT);
        hoodie_error_clear();
        /* as of the last completed commit, by listing and through the metadata table alike */
        char *now = spark_rows(mem, 0), *via = spark_rows(mem, 1);
        hoodie_assert(now != NULL && via != NULL);
        hoodie_assert_equal_s(rc == HOODIE_OK ? after : before, now);
        hoodie_assert_equal_s(now, via);
        free(now), free(via);
        hoodie_assert_ok(write_op(mem, SPARK_UPSERT, HOODIE_WRITE_UPSERT)); /* the next writer repairs */
        assert_mdt_in_step(mem);
        now = spark_rows(mem, 0);
        hoodie_assert_equal_s(after, now);
        free(now);
        hoodie_storage_free(fs);
        hoodie_storage_free(mem);
        checked++;
    }
    hoodie_assert(checked > 20);
    free(before);
    free(after);
    hoodie_write__mdt_compact_after = saved;
}

HOODIE_TEST(write_mdt__spark_crash_at_every_operation) { spark_crash(10); }
HOODIE_TEST(write_mdt__spark_crash_at_every_operation_compacting) { spark_crash(0); }

/* The base HFile a compaction writes, for the first one Spark wrote (no partition yet: __all_partitions__ with no
 * entry): the same bytes, bloom filter and all. */
HOODIE_TEST(write_mdt__base_hfile_as_spark_writes_it)
{
    hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
    const char *name = "files-0000-0_0-35-149_00000000000000000.hfile";
    char rel[256];
    snprintf(rel, sizeof rel, SPARK_MDT "/.hoodie/metadata/files/%s", name);
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &want));
    hoodie_mdt_listing l;
    memset(&l, 0, sizeof l);
    hoodie_assert_ok(hoodie_write__mdt_base_hfile(&l, name, &got));
    hoodie_assert_equal_i(want.len, got.len);
    hoodie_assert(!memcmp(want.data, got.data, want.len));
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&got);
}

/* Compaction of the files partition every 2 deltacommits: a base file of an instant after T's, before T's own
 * deltacommit, the slices before the one it compacted cleaned; the listing stays in step; rolling back the last
 * write keeps the metadata table (its deltacommit came after the compaction). */
HOODIE_TEST(write_mdt__spark_files_partition_compacted)
{
    int saved = hoodie_write__mdt_compact_after;
    hoodie_write__mdt_compact_after = 2;
    hoodie_storage *mem = spark_table();
    char last[24] = "";
    for (int i = 0; i < 3; i++) {
        hoodie_assert_ok(write_op(mem, SPARK_UPSERT, HOODIE_WRITE_UPSERT));
        assert_mdt_in_step(mem);
    }
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = mem;
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    snprintf(last, sizeof last, "%s", t->tl->instants[t->tl->count - 1].requested);
    hoodie_table_free(t);
    /* the compaction: the latest completed commit of the metadata table, requested after T */
    hoodie_assert_ok(hoodie_table_open(&t, TBL "/.hoodie/metadata", &to));
    const hoodie_instant *c = hoodie_timeline_last_completed(t->tl, HOODIE_ACTION_BIT(HOODIE_ACTION_COMMIT));
    hoodie_assert(c && strcmp(c->requested, last) > 0 && strlen(c->requested) == 17);
    char path[256];
    snprintf(path, sizeof path, TBL "/.hoodie/metadata/files/files-0000-0_0-1-0_%s.hfile", c->requested);
    hoodie_table_free(t);
    hoodie_assert(mem->exists(mem->ctx, path) == 1);
    /* the slice before the one compacted is cleaned: Spark's first base file */
    hoodie_assert(mem->exists(mem->ctx, TBL "/.hoodie/metadata/files/files-0000-0_0-35-149_00000000000000000.hfile") == 0);
    hoodie_assert(mem->exists(mem->ctx, TBL "/.hoodie/metadata/files/files-0000-0_22-161-506_20260101054337083.hfile") == 1);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    o.storage = mem;
    hoodie_assert_ok(hoodie_rollback(TBL, &o, last, NULL));
    assert_mdt_in_step(mem);
    hoodie_assert(mem->exists(mem->ctx, path) == 1);
    hoodie_storage_free(mem);
    hoodie_write__mdt_compact_after = saved;
}

/* The metadata table's hoodie.properties: the keys, values and order of the one Spark wrote (comments aside). */
HOODIE_TEST(write_mdt__props_as_spark_writes_them)
{
    hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(),
                                             hoodie_fixture(SPARK_MDT "/.hoodie/metadata/.hoodie/hoodie.properties"), &want));
    hoodie_assert_ok(hoodie_write__mdt_props(&got, "v8_nonpartitioned"));
    hoodie_assert_ok(hoodie_buf_cstr(&want));
    hoodie_assert_ok(hoodie_buf_cstr(&got));
    char *a = other_keys((const char *)want.data), *b = other_keys((const char *)got.data);
    hoodie_assert_equal_s(a, b);
    free(a), free(b);
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&got);
}

/* A table hoodie wrote gets a metadata table: it lists every file; writes and services keep it in step; a second
 * init, and one while an instant is pending, are refused. */
HOODIE_TEST(write_mdt__init)
{
    hoodie_storage *mem = mor_table();
    hoodie_assert_ok(write_csv(mem, UPSERT));
    int64_t files = 0;
    const char *pending = TBL "/.hoodie/timeline/20990101000000000.deltacommit.requested";
    hoodie_assert_ok(hoodie_storage_write_all(mem, pending, 0, "", 0));
    hoodie_assert_status(HOODIE_ESTATE, hoodie_write__mdt_init(mem, TBL, NULL));
    hoodie_assert_contains(hoodie_error_last()->message, "instant 20990101000000000 is pending");
    hoodie_assert_ok(mem->remove(mem->ctx, pending));
    hoodie_assert_ok(hoodie_write__mdt_init(mem, TBL, &files));
    hoodie_assert(files >= 3);
    hoodie_assert_status(HOODIE_EEXISTS, hoodie_write__mdt_init(mem, TBL, NULL));
    char *via = scan_csv(mem, (const char *const[]){ "_hoodie_record_key", "p", "ts", "v" }, 4, HOODIE_OPEN_METADATA_TABLE);
    char *listed = rows(mem);
    hoodie_assert(via && listed);
    hoodie_assert_equal_s(listed, via);
    free(via), free(listed);
    hoodie_assert_ok(write_csv(mem, "id,p,ts,v\n2,a,5,z2\n9,c,5,z9\n"));
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    o.storage = mem;
    hoodie_assert_ok(hoodie_compaction_schedule(TBL, &o, NULL));
    hoodie_assert_ok(hoodie_compaction_run(TBL, &o, NULL, NULL));
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = mem;
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    hoodie_mdt_listing *l;
    hoodie_assert_ok(hoodie_mdt_files(&l, mem, TBL, t->tl));
    hoodie_assert_equal_i(3, l->count); /* partitions a, b, c */
    /* column_stats too (the table had a schema): every base file and the write's log files have statistics */
    hoodie_assert_equal_s("column_stats,files", hoodie_table_config_get(t->cfg, "hoodie.table.metadata.partitions"));
    hoodie_mdt_colstats *cs;
    hoodie_assert_ok(hoodie_mdt_column_stats(&cs, mem, TBL, t->tl));
    size_t with = 0, logs_after = 0;
    for (size_t p = 0; p < l->count; p++)
        for (size_t f = 0; f < l->partitions[p].count; f++) {
            const char *name = l->partitions[p].files[f].name;
            const hoodie_mdt_stat *st = hoodie_mdt_stat_of(cs, name, "ts");
            if (strstr(name, ".parquet")) hoodie_assert(st != NULL);
            with += st != NULL;
            logs_after += st && strstr(name, ".log.");
        }
    hoodie_assert(with >= 4 && logs_after >= 1);
    hoodie_mdt_colstats_free(cs);
    hoodie_mdt_listing_free(l);
    hoodie_table_free(t);
    via = scan_csv(mem, (const char *const[]){ "_hoodie_record_key", "p", "ts", "v" }, 4, HOODIE_OPEN_METADATA_TABLE);
    listed = rows(mem);
    hoodie_assert_equal_s(listed, via);
    hoodie_assert_contains(via, "9,c,5,z9");
    free(via), free(listed);
    hoodie_storage_free(mem);
}

/* column_stats whose index definition is not one hoodie writes (Hudi 1.1's version V2 wraps values by logical
 * type), or without a definition: dropped by the first write, the files partition kept. */
HOODIE_TEST(write_mdt__column_stats_not_kept_unless_v1)
{
    for (int variant = 0; variant < 2; variant++) {
        hoodie_storage *mem = spark_table();
        const char *defs = TBL "/.hoodie/.index_defs/index.json";
        if (variant == 0) {
            hoodie_buf b = HOODIE_BUF_INIT, o = HOODIE_BUF_INIT;
            hoodie_assert_ok(hoodie_storage_read_all(mem, defs, &b));
            hoodie_assert_ok(hoodie_buf_cstr(&b));
            const char *at = strstr((const char *)b.data, "\"indexType\" : \"column_stats\",");
            hoodie_assert(at != NULL);
            hoodie_assert_ok(hoodie_buf_append(&o, b.data, (size_t)(at - (const char *)b.data)));
            hoodie_assert_ok(hoodie_buf_append_str(&o, "\"version\" : \"V2\", "));
            hoodie_assert_ok(hoodie_buf_append_str(&o, at));
            hoodie_assert_ok(mem->remove(mem->ctx, defs));
            hoodie_assert_ok(hoodie_storage_write_all(mem, defs, 0, o.data, o.len));
            hoodie_buf_dispose(&b);
            hoodie_buf_dispose(&o);
        } else {
            hoodie_assert_ok(mem->remove(mem->ctx, defs));
        }
        hoodie_assert_ok(write_op(mem, SPARK_UPSERT, HOODIE_WRITE_UPSERT));
        hoodie_table *t;
        hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
        to.storage = mem;
        hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
        /* the secondary index's definition is V1 still in the first variant; gone with the file in the second */
        hoodie_assert_equal_s(variant == 0 ? "files,record_index,secondary_index_name_idx" : "files,record_index",
                              hoodie_table_config_get(t->cfg, "hoodie.table.metadata.partitions"));
        hoodie_table_free(t);
        hoodie_assert(mem->exists(mem->ctx, TBL "/.hoodie/metadata/column_stats") == 0);
        hoodie_assert(mem->exists(mem->ctx, TBL "/.hoodie/metadata/files") == 1);
        assert_reads_agree(mem);
        hoodie_storage_free(mem);
    }
}

/* A compaction's base HFiles of record_index: each file group's live entries (keys 2 and 3 deleted by later
 * commits' DELETE_BLOCKs: groups 0 and 1 empty) give Spark's base HFile byte for byte; groups that never had an
 * entry get none. */
HOODIE_TEST(write_mdt_rli__base_hfiles_as_spark_writes_them)
{
    static const char *const bases[10] = { "record-index-0000-0_10-161-494_20260101054337083.hfile",
                                           "record-index-0001-0_11-161-495_20260101054337083.hfile",
                                           "record-index-0002-0_12-161-496_20260101054337083.hfile",
                                           "record-index-0003-0_13-161-497_20260101054337083.hfile",
                                           NULL, NULL, NULL, NULL, NULL,
                                           "record-index-0009-0_19-161-503_20260101054337083.hfile" };
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    /* the table as it was before the metadata table's compaction: its instant and base files gone */
    hoodie_storage *mem = spark_table();
    const char *gone[] = { "timeline/20260101054337083.compaction.requested",
                           "timeline/20260101054337083.compaction.inflight",
                           "timeline/20260101054337083_20260101054337425.commit" };
    for (size_t i = 0; i < 3; i++) {
        char p[256];
        snprintf(p, sizeof p, TBL "/.hoodie/metadata/.hoodie/%s", gone[i]);
        hoodie_assert_ok(mem->remove(mem->ctx, p));
    }
    for (int g = 0; g < 10; g++) {
        char p[256];
        if (!bases[g]) continue;
        snprintf(p, sizeof p, TBL "/.hoodie/metadata/record_index/%s", bases[g]);
        hoodie_assert_ok(mem->remove(mem->ctx, p));
    }
    hoodie_timeline *tl = NULL;
    hoodie_table_config *cfg = NULL;
    hoodie_assert_ok(hoodie_table_config_load(&cfg, mem, TBL, 0));
    hoodie_assert_ok(hoodie_timeline_load(&tl, mem, TBL, cfg));
    for (int g = 0; g < 10; g++) {
        char fid[32];
        snprintf(fid, sizeof fid, "record-index-%04d-0", g);
        hoodie_mdt_rlirec *recs;
        size_t n, seen;
        hoodie_assert_ok(hoodie_mdt_rli_group(mem, TBL, tl, fid, a, &recs, &n, &seen));
        hoodie_assert_equal_i(g == 2 || g == 3 || g == 9, (int)n);
        hoodie_assert_equal_i(bases[g] ? 1 : 0, (int)seen);
        if (!bases[g]) continue;
        hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
        char rel[256];
        snprintf(rel, sizeof rel, SPARK_MDT "/.hoodie/metadata/record_index/%s", bases[g]);
        hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &want));
        hoodie_assert_ok(hoodie_write__rli_base_hfile(recs, n, bases[g], &got));
        hoodie_assert_equal_i((int)want.len, (int)got.len);
        hoodie_assert(!memcmp(want.data, got.data, want.len));
        hoodie_buf_dispose(&want);
        hoodie_buf_dispose(&got);
    }
    hoodie_timeline_free(tl);
    hoodie_table_config_free(cfg);
    hoodie_arena_free(a);
    hoodie_storage_free(mem);
}

/* Every live key of the snapshot (with its partition and file group), as `hoodie metadata init --record-index`
 * reads them. */
static hoodie_rli_changes snapshot_keys(const hoodie_storage *s, hoodie_arena *a)
{
    static const char *const cols[] = { "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name" };
    char *csv = scan_csv(s, cols, 3, 0);
    hoodie_assert(csv != NULL);
    hoodie_rli_changes k = { NULL, 0, 0 };
    for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char *key = line + 1, *part = strchr(key, ','), *file = part ? strchr(part + 1, ',') : NULL;
        char *end = file ? strchr(file + 1, '\n') : NULL;
        hoodie_assert(part && file && end);
        char *us = memchr(file + 1, '_', (size_t)(end - file - 1));
        k.v = realloc(k.v, (k.n + 1) * sizeof *k.v);
        k.v[k.n++] = (hoodie_rli_change){ hoodie_arena_strndup(a, key, (size_t)(part - key)),
                                          hoodie_arena_strndup(a, part + 1, (size_t)(file - part - 1)),
                                          hoodie_arena_strndup(a, file + 1, (size_t)((us ? us : end) - file - 1)) };
    }
    free(csv);
    return k;
}

/* The mark of the table's timeline as it is now (hoodie_write__timeline_mark). */
static void mark_of(const hoodie_storage *s, char mark[HOODIE_TIMELINE_MARK_MAX])
{
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    hoodie_write__timeline_mark(t->tl, mark);
    hoodie_table_free(t);
}

/* init with a record index: every live key of a partitioned MOR table (a key deleted in a log left out) in file
 * groups of their own instant; a table changed since its keys were read is refused; writes and services keep it
 * in step, replaces included. */
HOODIE_TEST(write_mdt__init_record_index)
{
    hoodie_storage *mem = mor_table();
    hoodie_assert_ok(write_csv(mem, UPSERT));
    hoodie_assert_ok(write_op(mem, "id,p,ts,v\n3,b,9,x\n", HOODIE_WRITE_DELETE));
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = mem;
    char mark[HOODIE_TIMELINE_MARK_MAX];
    mark_of(mem, mark);
    hoodie_rli_changes k = snapshot_keys(mem, a);
    for (size_t i = 0; i < k.n; i++) hoodie_assert(strcmp(k.v[i].key, "3"));
    /* a write between the read and the init: refused */
    hoodie_assert_ok(write_csv(mem, "id,p,ts,v\n2,a,5,z2\n"));
    hoodie_assert_status(HOODIE_ECONFLICT, hoodie_write__mdt_init_with(mem, TBL, NULL, &k, mark));
    hoodie_assert_contains(hoodie_error_last()->message, "run init again");
    free(k.v);
    mark_of(mem, mark);
    k = snapshot_keys(mem, a);
    hoodie_assert_ok(hoodie_write__mdt_init_with(mem, TBL, NULL, &k, mark));
    free(k.v);
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    hoodie_assert_equal_s("column_stats,files,record_index",
                          hoodie_table_config_get(t->cfg, "hoodie.table.metadata.partitions"));
    hoodie_assert(mem->exists(mem->ctx, TBL "/.hoodie/metadata/record_index/"
                                        "record-index-0009-0_0-1-0_00000000000000002.hfile") == 1);
    assert_rli_in_step(mem, t->tl);
    hoodie_table_free(t);
    /* kept in step: an upsert of 3 and 9, a compaction, a clustering, a delete. The update of 3 (ts 7) loses to its
     * delete (ts 9) in the merge, but the bloom index found 3 in its base file and the update went to a log: the
     * index has 3 again (more than the snapshot, which lookups tolerate: they read the file group and find no
     * record) until the compaction, whose base file lacks it */
    hoodie_assert_ok(write_csv(mem, "id,p,ts,v\n3,b,7,y3\n9,c,5,z9\n"));
    const char *three = "3";
    hoodie_mdt_location loc;
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    hoodie_assert_ok(hoodie_mdt_record_index(mem, TBL, t->tl, &three, 1, a, &loc));
    hoodie_assert(loc.found);
    hoodie_table_free(t);
    hoodie_service_opts o = HOODIE_SERVICE_OPTS_INIT;
    o.storage = mem;
    hoodie_assert_ok(hoodie_compaction_schedule(TBL, &o, NULL));
    hoodie_assert_ok(hoodie_compaction_run(TBL, &o, NULL, NULL));
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    hoodie_assert_ok(hoodie_mdt_record_index(mem, TBL, t->tl, &three, 1, a, &loc));
    hoodie_assert(!loc.found);
    assert_rli_in_step(mem, t->tl);
    hoodie_table_free(t);
    hoodie_assert_ok(hoodie_clustering(TBL, &o, NULL));
    hoodie_assert_ok(write_op(mem, "id,p,ts,v\n1,a,9,x\n", HOODIE_WRITE_DELETE));
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    assert_rli_in_step(mem, t->tl);
    hoodie_table_free(t);
    /* replaces: the keys of the replaced file groups leave the index, a key written again stays (at its new
     * group); without their removal the index would hold keys the snapshot does not */
    hoodie_assert_ok(write_op(mem, "id,p,ts,v\n2,a,9,w\n6,a,9,w\n", HOODIE_WRITE_INSERT_OVERWRITE));
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    hoodie_assert_equal_s("column_stats,files,record_index",
                          hoodie_table_config_get(t->cfg, "hoodie.table.metadata.partitions"));
    assert_rli_in_step(mem, t->tl);
    const char *two = "2";
    hoodie_assert_ok(hoodie_mdt_record_index(mem, TBL, t->tl, &two, 1, a, &loc));
    hoodie_assert(loc.found);
    hoodie_table_free(t);
    hoodie_assert_ok(write_op(mem, "id,p,ts,v\n0,b,9,w\n", HOODIE_WRITE_DELETE_PARTITION));
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    assert_rli_in_step(mem, t->tl);
    hoodie_table_free(t);
    hoodie_assert_ok(write_op(mem, "id,p,ts,v\n5,c,9,w\n", HOODIE_WRITE_INSERT_OVERWRITE_TABLE));
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    assert_rli_in_step(mem, t->tl);
    hoodie_assert_ok(hoodie_mdt_record_index(mem, TBL, t->tl, &two, 1, a, &loc));
    hoodie_assert(!loc.found);
    hoodie_table_free(t);
    hoodie_arena_free(a);
    hoodie_storage_free(mem);
}

static hoodie_status write_rli(const hoodie_storage *s, const char *text, hoodie_write_operation op)
{
    return write_op_index(s, text, op, 1);
}

/* hoodie.index.type=RECORD_INDEX: upserts and deletes placed by the record index write what the bloom index's
 * write does (same rows after), the index kept in step; a key the input puts in another partition is updated in
 * its own, or moved (update.partition.path=true) when the input wins; a table without a record index is
 * refused. */
HOODIE_TEST(write_mdt__record_index_lookups)
{
    hoodie_storage *mem = mor_table(), *bloom = mor_table();
    hoodie_assert_status(HOODIE_ESTATE, write_rli(mem, UPSERT, HOODIE_WRITE_UPSERT));
    hoodie_assert_contains(hoodie_error_last()->message, "init --record-index");
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = mem;
    char mark[HOODIE_TIMELINE_MARK_MAX];
    mark_of(mem, mark);
    hoodie_rli_changes k = snapshot_keys(mem, a);
    hoodie_assert_ok(hoodie_write__mdt_init_with(mem, TBL, NULL, &k, mark));
    free(k.v);
    static const char *const steps[] = { "id,p,ts,v\n1,a,2,y1\n3,b,2,y3\n4,b,2,y4\n",
                                         "id,p,ts,v\n2,a,3,z2\n4,b,3,z4\n5,c,3,z5\n" };
    for (size_t i = 0; i < 2; i++) {
        hoodie_assert_ok(write_rli(mem, steps[i], HOODIE_WRITE_UPSERT));
        hoodie_assert_ok(write_csv(bloom, steps[i]));
    }
    hoodie_assert_ok(write_rli(mem, "id,p,ts,v\n3,b,9,x\n", HOODIE_WRITE_DELETE));
    hoodie_assert_ok(write_op(bloom, "id,p,ts,v\n3,b,9,x\n", HOODIE_WRITE_DELETE));
    char *x = rows(mem), *y = rows(bloom);
    hoodie_assert_equal_s(y, x);
    hoodie_assert_contains(x, "5,c,3,z5");
    free(x), free(y);
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    assert_rli_in_step(mem, t->tl);
    hoodie_table_free(t);
    /* a global index: keys combine whatever their partitions; a key the index holds in another partition is
     * updated there (hoodie.record.index.update.partition.path=false, Hudi's default), an older version losing
     * to the stored one as anywhere; a delete deletes it there */
    hoodie_assert_ok(write_rli(mem, "id,p,ts,v\n2,b,4,moved\n2,c,3,older\n1,c,1,stale\n", HOODIE_WRITE_UPSERT));
    hoodie_assert_ok(write_rli(mem, "id,p,ts,v\n5,a,9,x\n", HOODIE_WRITE_DELETE));
    static const char *const cols[] = { "_hoodie_record_key", "_hoodie_partition_path", "p", "ts", "v" };
    x = scan_csv(mem, cols, 5, 0);
    hoodie_assert(x != NULL);
    hoodie_assert_contains(x, "\n1,a,a,2,y1\n");
    hoodie_assert_contains(x, "\n2,a,b,4,moved\n");
    hoodie_assert_contains(x, "\n4,b,b,3,z4\n");
    hoodie_assert(!strstr(x, "\n5,") && !strstr(x, "older") && !strstr(x, "stale"));
    free(x);
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    assert_rli_in_step(mem, t->tl);
    hoodie_table_free(t);
    /* update.partition.path=true: a newer version (2) or a tie (4, the later wins) moves the record (a delete in
     * the old partition's log, an insert in the new), an older one (1) leaves the stored record where it is; a
     * delete deletes where the key is; not without the record index */
    hoodie_assert_status(HOODIE_EINVAL, write_op_index(mem, "id,p,ts,v\n2,c,5,tomove\n", HOODIE_WRITE_UPSERT, 2));
    hoodie_assert_ok(write_op_index(mem, "id,p,ts,v\n2,c,5,tomove\n1,b,1,stale\n4,a,3,tie\n", HOODIE_WRITE_UPSERT, 3));
    x = scan_csv(mem, cols, 5, 0);
    hoodie_assert(x != NULL);
    /* (file groups in a partition come in the order of their random ids) */
    hoodie_assert_contains(x, "\n1,a,a,2,y1\n");
    hoodie_assert_contains(x, "\n4,a,a,3,tie\n");
    hoodie_assert_contains(x, "\n2,c,c,5,tomove\n");
    hoodie_assert(strlen(x) == strlen("_hoodie_record_key,_hoodie_partition_path,p,ts,v\n1,a,a,2,y1\n4,a,a,3,tie\n"
                                      "2,c,c,5,tomove\n"));
    free(x);
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    assert_rli_in_step(mem, t->tl);
    hoodie_table_free(t);
    hoodie_assert_ok(write_op_index(mem, "id,p,ts,v\n2,a,9,x\n", HOODIE_WRITE_DELETE, 3));
    x = scan_csv(mem, cols, 5, 0);
    hoodie_assert_contains(x, "\n1,a,a,2,y1\n");
    hoodie_assert_contains(x, "\n4,a,a,3,tie\n");
    hoodie_assert(strlen(x) == strlen("_hoodie_record_key,_hoodie_partition_path,p,ts,v\n1,a,a,2,y1\n4,a,a,3,tie\n"));
    free(x);
    hoodie_assert_ok(hoodie_table_open(&t, TBL, &to));
    assert_rli_in_step(mem, t->tl);
    hoodie_table_free(t);
    hoodie_arena_free(a);
    hoodie_storage_free(mem);
    hoodie_storage_free(bloom);
}
