/*
 * A table with a metadata table (hoodie.properties listing MDT partitions, a .hoodie/metadata tree): hoodie's first
 * write disables it (partitions emptied, every other key kept, the folder removed) and reads are unchanged; a write
 * that dies at any storage operation leaves a table that reads as before, and the next write finishes the job.
 */
#include "hoodie_test.h"
#include "hoodie/hoodie.h"
#include "storage/storage.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TBL "/m"

static hoodie_status write_csv(const hoodie_storage *s, const char *text)
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
    wo.op = HOODIE_WRITE_UPSERT;
    return hoodie_table_write(TBL, &in, &wo, NULL);
}

/* The snapshot's keys and data columns as sorted CSV (NULL if the table cannot be read). */
static char *rows(const hoodie_storage *s)
{
    static const char *const cols[] = { "_hoodie_record_key", "p", "ts", "v" };
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = s;
    if (hoodie_table_open(&t, TBL, &to) < 0) return NULL;
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.columns = cols;
    so.n_columns = 4;
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
    return buf; /* one file group per partition, rows in key order: stable */
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

static hoodie_storage *table_with_mdt(void)
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
