#include "hoodie_test.h"
#include "storage/storage.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct { char names[32][64]; int n; } listing;

static int collect(const hoodie_dirent *e, void *payload)
{
    listing *l = payload;
    if (l->n < 32) snprintf(l->names[l->n++], 64, "%s%s", e->name, e->is_dir ? "/" : "");
    return 0;
}

static int has(const listing *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->names[i], name)) return 1;
    return 0;
}

static void exercise(const hoodie_storage *s, const char *root)
{
    char p[512], q[512];
    hoodie_buf b = HOODIE_BUF_INIT;
    snprintf(p, sizeof p, "%s/a/b/file.txt", root);
    hoodie_assert_ok(hoodie_storage_write_all(s, p, 0, "hello", 5));
    hoodie_assert_ok(hoodie_storage_read_all(s, p, &b));
    hoodie_assert_equal_i(5, b.len);
    hoodie_assert(memcmp(b.data, "hello", 5) == 0);

    /* exclusive create refuses an existing file and leaves it untouched */
    hoodie_assert_status(HOODIE_EEXISTS, hoodie_storage_write_all(s, p, HOODIE_CREATE_EXCLUSIVE, "x", 1));
    hoodie_buf_clear(&b);
    hoodie_assert_ok(hoodie_storage_read_all(s, p, &b));
    hoodie_assert_equal_i(5, b.len);

    /* positional reads, and a read past the end is corruption naming the file */
    hoodie_reader r;
    char two[2];
    hoodie_assert_ok(hoodie_reader_open(&r, s, p));
    hoodie_assert_equal_i(5, r.size);
    hoodie_assert_ok(hoodie_reader_read(&r, 3, two, 2));
    hoodie_assert(two[0] == 'l' && two[1] == 'o');
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_reader_read(&r, 4, two, 2));
    hoodie_reader_close(&r);

    /* abandoned writes leave nothing */
    hoodie_writer_file w;
    snprintf(q, sizeof q, "%s/a/b/ghost.txt", root);
    hoodie_assert_ok(hoodie_wfile_open(&w, s, q, 0));
    hoodie_assert_ok(hoodie_wfile_write(&w, "zz", 2));
    hoodie_wfile_abandon(&w);
    hoodie_assert_equal_i(0, s->exists(s->ctx, q));

    listing l = { .n = 0 };
    snprintf(q, sizeof q, "%s/a", root);
    hoodie_assert_ok(s->list(s->ctx, q, collect, &l));
    hoodie_assert_equal_i(1, l.n);
    hoodie_assert(has(&l, "b/"));

    snprintf(q, sizeof q, "%s/a/b/renamed.txt", root);
    hoodie_assert_ok(s->rename(s->ctx, p, q));
    hoodie_assert_equal_i(0, s->exists(s->ctx, p));
    hoodie_assert_equal_i(1, s->exists(s->ctx, q));
    hoodie_assert_status(HOODIE_ENOTFOUND, s->remove(s->ctx, p));
    hoodie_rfile *f;
    uint64_t sz;
    hoodie_assert_status(HOODIE_ENOTFOUND, s->open_read(s->ctx, p, &f, &sz));

    snprintf(q, sizeof q, "%s/a", root);
    hoodie_assert_ok(hoodie_storage_remove_tree(s, q));
    hoodie_assert_equal_i(0, s->exists(s->ctx, q));
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(storage_posix__basic_operations)
{
    exercise(hoodie_storage_posix(), hoodie_test_tmpdir());
}

HOODIE_TEST(storage_mem__basic_operations)
{
    hoodie_storage *m;
    hoodie_assert_ok(hoodie_storage_mem_new(&m));
    exercise(m, "/t");
    hoodie_storage_free(m);
}

HOODIE_TEST(storage_faulty__every_operation_can_fail)
{
    hoodie_storage *m, *f;
    hoodie_assert_ok(hoodie_storage_mem_new(&m));
    hoodie_assert_ok(hoodie_storage_faulty_new(&f, m));
    /* count operations of a clean run, then fail each one in turn */
    hoodie_storage_faulty_arm(f, HOODIE_FAULT_NONE, 0);
    hoodie_assert_ok(hoodie_storage_write_all(f, "/x/y", 0, "abc", 3));
    uint64_t ops = hoodie_storage_faulty_count(f);
    hoodie_assert(ops >= 3);
    for (uint64_t k = 1; k <= ops; k++) {
        hoodie_storage_faulty_arm(f, HOODIE_FAULT_FAIL_NTH, k);
        hoodie_status rc = hoodie_storage_write_all(f, "/x/z", 0, "def", 3);
        hoodie_assert_equal_i(HOODIE_EIO, rc);
        hoodie_assert(hoodie_storage_faulty_fired(f));
        hoodie_assert_equal_i(0, m->exists(m->ctx, "/x/z")); /* nothing half-written is visible */
    }
    hoodie_storage_faulty_arm(f, HOODIE_FAULT_CRASH_AT, 1);
    hoodie_assert_status(HOODIE_EIO, f->remove(f->ctx, "/x/y"));
    hoodie_assert_equal_i(1, m->exists(m->ctx, "/x/y"));
    hoodie_storage_free(f);
    hoodie_storage_free(m);
}
