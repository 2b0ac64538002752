#include "hoodie_test.h"
#include "storage/storage.h"
#include "storage/overlay.h"
#include "format/parquet/reader.h"
#include "table/pqfile.h"
#include "hoodie/parquet.h"
#include "util/error.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Descriptors this process has open (Linux: /proc/self/fd; -1 elsewhere). */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    while (readdir(d)) n++;
    closedir(d);
    return n;
}

/*
 * HOODIE_CREATE_DEFER_SYNC files are visible with their content as soon as finish returns (their sync is what is
 * deferred); their kept descriptors are released by the next file finished without the flag (the commit point),
 * and never more than a bounded number are held however many files a commit writes.
 */
HOODIE_TEST(storage_posix__deferred_sync)
{
    const hoodie_storage *s = hoodie_storage_posix();
    char path[600], want[32], dir[512];
    snprintf(dir, sizeof dir, "%s", hoodie_test_tmpdir());
    int before = open_fds();
    for (int i = 0; i < 150; i++) {
        snprintf(path, sizeof path, "%s/part%d/f%03d", dir, i % 3, i);
        snprintf(want, sizeof want, "file %d", i);
        hoodie_assert_ok(hoodie_storage_write_all(s, path, HOODIE_CREATE_EXCLUSIVE | HOODIE_CREATE_DEFER_SYNC, want,
                                                  strlen(want)));
        hoodie_buf got = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_storage_read_all(s, path, &got));
        hoodie_assert_equal_i(strlen(want), got.len);
        hoodie_assert(!memcmp(want, got.data, got.len));
        hoodie_buf_dispose(&got);
        if (before >= 0) hoodie_assert(open_fds() - before <= 64);
    }
    /* an exclusive create of an existing deferred file still fails */
    snprintf(path, sizeof path, "%s/part0/f000", dir);
    hoodie_assert_equal_i(HOODIE_EEXISTS,
                          hoodie_storage_write_all(s, path, HOODIE_CREATE_EXCLUSIVE | HOODIE_CREATE_DEFER_SYNC, "x", 1));
    hoodie_error_clear();
    /* some are held, unless syncing is off altogether (HOODIE_NO_FSYNC, as CI runs) */
    if (before >= 0 && !getenv("HOODIE_NO_FSYNC")) hoodie_assert(open_fds() > before);
    if (before >= 0 && getenv("HOODIE_NO_FSYNC")) hoodie_assert_equal_i(before, open_fds());
    snprintf(path, sizeof path, "%s/commit", dir);
    hoodie_assert_ok(hoodie_storage_write_all(s, path, HOODIE_CREATE_EXCLUSIVE, "", 0));
    if (before >= 0) hoodie_assert_equal_i(before, open_fds());
}

/*
 * HOODIE_CREATE_DEFER_VISIBLE files are written in the background: finish returns at once, yet a read of the file
 * (or of its folder's listing) right after sees it whole, and a failure (here a name taken meanwhile) is reported by
 * the writer's next commit point, which then does not happen, unless the file has been removed since. A child
 * process forked meanwhile writes at once.
 */
static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 131 + (i >> 9) + seed);
}

HOODIE_TEST(storage_posix__background_files)
{
    const hoodie_storage *s = hoodie_storage_posix();
    const unsigned bg = HOODIE_CREATE_EXCLUSIVE | HOODIE_CREATE_DEFER_SYNC | HOODIE_CREATE_DEFER_VISIBLE;
    const char *root = hoodie_test_tmpdir();
    char p[600], q[600];
    size_t big = (9u << 20) + 12345; /* several of the thread's chunks */
    uint8_t *want = malloc(big), *got = malloc(big);
    hoodie_assert(want && got);
    for (int i = 0; i < 12; i++) {
        size_t n = i % 3 == 0 ? big : (size_t)(i * 1000 + 1);
        fill(want, n, (unsigned)i);
        snprintf(p, sizeof p, "%s/part/f%02d.parquet", root, i);
        hoodie_writer_file w;
        hoodie_assert_ok(hoodie_wfile_open(&w, s, p, bg));
        for (size_t off = 0; off < n; off += 100000) /* in pieces, as a Parquet writer writes */
            hoodie_assert_ok(hoodie_wfile_write(&w, want + off, n - off < 100000 ? n - off : 100000));
        hoodie_assert_ok(hoodie_wfile_finish(&w));
        hoodie_rfile *f;
        uint64_t size;
        hoodie_assert_ok(s->open_read(s->ctx, p, &f, &size));
        hoodie_assert_equal_i(n, size);
        hoodie_assert_ok(s->read_at(s->ctx, f, 0, got, n));
        hoodie_assert(!memcmp(want, got, n));
        s->close_read(s->ctx, f);
    }
    /* a listing right after the last finish shows every file, no temporary */
    snprintf(p, sizeof p, "%s/part/g.parquet", root);
    hoodie_assert_ok(hoodie_storage_write_all(s, p, bg, want, big));
    snprintf(q, sizeof q, "%s/part", root);
    listing l = { .n = 0 };
    hoodie_assert_ok(s->list(s->ctx, q, collect, &l));
    hoodie_assert_equal_i(13, l.n);
    hoodie_assert(has(&l, "g.parquet") && has(&l, "f11.parquet"));
    snprintf(q, sizeof q, "%s/commit", root);
    hoodie_assert_ok(hoodie_storage_write_all(s, q, HOODIE_CREATE_EXCLUSIVE, "", 0));

    /* a name another writer took before this file was linked: the commit point fails, naming it, and is not made */
    snprintf(p, sizeof p, "%s/part/taken.parquet", root);
    hoodie_writer_file w;
    hoodie_assert_ok(hoodie_wfile_open(&w, s, p, bg));
    hoodie_assert_ok(hoodie_wfile_write(&w, "mine", 4));
    hoodie_assert_ok(hoodie_storage_write_all(s, p, 0, "theirs", 6)); /* (at once: not a background file) */
    hoodie_assert_ok(hoodie_wfile_finish(&w));
    snprintf(q, sizeof q, "%s/commit2", root);
    hoodie_assert_status(HOODIE_EEXISTS, hoodie_storage_write_all(s, q, HOODIE_CREATE_EXCLUSIVE, "", 0));
    hoodie_assert_contains(hoodie_error_last()->message, "taken.parquet");
    hoodie_assert_contains(hoodie_error_last()->message, "in the background");
    hoodie_error_clear();
    hoodie_assert_equal_i(0, s->exists(s->ctx, q));
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(s, p, &b));
    hoodie_assert(b.len == 6 && !memcmp(b.data, "theirs", 6));
    hoodie_buf_dispose(&b);
    hoodie_assert_ok(hoodie_storage_write_all(s, q, HOODIE_CREATE_EXCLUSIVE, "", 0)); /* reported once */
    /* the same, but the file is removed before the commit point (a rollback): nothing to report */
    hoodie_assert_ok(hoodie_storage_write_all(s, p, bg, "again", 5));
    hoodie_assert_ok(s->remove(s->ctx, p));
    snprintf(q, sizeof q, "%s/commit3", root);
    hoodie_assert_ok(hoodie_storage_write_all(s, q, HOODIE_CREATE_EXCLUSIVE, "", 0));
    /* an abandoned background file leaves nothing */
    snprintf(p, sizeof p, "%s/part/dropped.parquet", root);
    hoodie_assert_ok(hoodie_wfile_open(&w, s, p, bg));
    hoodie_assert_ok(hoodie_wfile_write(&w, want, big));
    hoodie_wfile_abandon(&w);
    hoodie_assert_equal_i(0, s->exists(s->ctx, p));
    snprintf(q, sizeof q, "%s/part", root);
    l.n = 0;
    hoodie_assert_ok(s->list(s->ctx, q, collect, &l));
    hoodie_assert_equal_i(13, l.n); /* f00-f11 and g: the taken file was removed, the dropped one never came */

    /* a child forked now (the thread runs in this process only) writes at once */
    pid_t child = fork();
    if (child == 0) {
        char cp[600];
        snprintf(cp, sizeof cp, "%s/part/child.parquet", root);
        if (hoodie_storage_write_all(s, cp, bg, want, big) < 0) _exit(1);
        snprintf(cp, sizeof cp, "%s/child_commit", root);
        _exit(hoodie_storage_write_all(s, cp, HOODIE_CREATE_EXCLUSIVE, "", 0) < 0 ? 2 : 0);
    }
    int st;
    hoodie_assert(child > 0 && waitpid(child, &st, 0) == child);
    hoodie_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    snprintf(p, sizeof p, "%s/part/child.parquet", root);
    hoodie_assert_ok(hoodie_storage_read_all(s, p, &b));
    hoodie_assert_equal_i(big, b.len);
    hoodie_assert(!memcmp(b.data, want, big));
    hoodie_buf_dispose(&b);
    free(want);
    free(got);
}

/*
 * A process that finishes files written in the background and exits without a commit point after them (a tool
 * writing Parquet files through the write modules, as bench_lsm does) finds them in place, whole, and no temporary
 * file left: a normal exit waits for them. The child is this test binary run anew (a forked child would write at
 * once, see above), told by HOODIE_TEST_EXIT_DIR to write and exit.
 */
HOODIE_TEST(storage_posix__exit_lands_background_files)
{
    const hoodie_storage *s = hoodie_storage_posix();
    const unsigned bg = HOODIE_CREATE_EXCLUSIVE | HOODIE_CREATE_DEFER_SYNC | HOODIE_CREATE_DEFER_VISIBLE;
    size_t big = (13u << 20) + 777; /* several of the thread's chunks: not written by the time exit is called */
    uint8_t *want = malloc(big);
    hoodie_assert(want);
    fill(want, big, 7);
    char p[700];
    const char *child_dir = getenv("HOODIE_TEST_EXIT_DIR");
    if (child_dir) { /* the child: three files, the last one finished just before exit */
        for (int i = 0; i < 3; i++) {
            snprintf(p, sizeof p, "%.600s/f%d.parquet", child_dir, i);
            hoodie_writer_file w;
            if (hoodie_wfile_open(&w, s, p, bg) < 0) _exit(3);
            for (size_t off = 0; off < big; off += 65536)
                if (hoodie_wfile_write(&w, want + off, big - off < 65536 ? big - off : 65536) < 0) _exit(4);
            if (hoodie_wfile_finish(&w) < 0) _exit(5);
        }
        exit(0);
    }
    const char *root = hoodie_test_tmpdir();
    char dir[600];
    snprintf(dir, sizeof dir, "%s/exit", root);
    pid_t child = fork();
    if (child == 0) {
        setenv("HOODIE_TEST_EXIT_DIR", dir, 1);
        unsetenv("HOODIE_NO_BACKGROUND_WRITES");
        char *args[] = { "test_storage", "storage_posix__exit_lands_background_files", NULL };
        execv("/proc/self/exe", args);
        _exit(127);
    }
    int st;
    hoodie_assert(child > 0 && waitpid(child, &st, 0) == child);
    hoodie_assert(WIFEXITED(st));
    hoodie_assert_equal_i(0, WEXITSTATUS(st));
    hoodie_buf b = HOODIE_BUF_INIT;
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/f%d.parquet", dir, i);
        b.len = 0;
        hoodie_assert_ok(hoodie_storage_read_all(s, p, &b));
        hoodie_assert_equal_i(big, b.len);
        hoodie_assert(!memcmp(b.data, want, big));
    }
    hoodie_buf_dispose(&b);
    DIR *d = opendir(dir); /* every entry, hidden ones too: no temporary file is left */
    hoodie_assert(d != NULL);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) entries++;
    closedir(d);
    hoodie_assert_equal_i(3, entries);
    free(want);
}

/*
 * A whole file's bytes (hoodie_storage_file_bytes): the local file system maps the file (the default storage passes
 * that on), in-memory storage reads it into the caller's buffer; both give the file's bytes, and dropping a mapped
 * range (its pages leave the process) leaves them readable and unchanged.
 */
HOODIE_TEST(storage_file_bytes__mapped_or_read)
{
    const char *root = hoodie_test_tmpdir();
    char p[600];
    snprintf(p, sizeof p, "%s/bytes/f.log", root);
    size_t n = (3u << 20) + 4321;
    uint8_t *want = malloc(n);
    hoodie_assert(want != NULL);
    fill(want, n, 3);
    const hoodie_storage *stores[2] = { hoodie_storage_posix(), hoodie_storage_default() };
    hoodie_assert_ok(hoodie_storage_write_all(stores[0], p, 0, want, n));
    hoodie_buf buf = HOODIE_BUF_INIT;
    for (int k = 0; k < 2; k++) {
        hoodie_file_bytes fb;
        hoodie_assert_ok(hoodie_storage_file_bytes(stores[k], p, &buf, &fb));
        hoodie_assert(fb.f != NULL);            /* mapped */
        hoodie_assert(fb.data != buf.data);     /* not read into the buffer */
        hoodie_assert_equal_i(n, fb.len);
        hoodie_assert(!memcmp(fb.data, want, n));
        hoodie_file_bytes_drop(&fb, 4096, n - 8192);
        hoodie_assert(!memcmp(fb.data, want, n)); /* read again from the file */
        hoodie_file_bytes_done(&fb);
        hoodie_assert(fb.data == NULL && fb.f == NULL);
    }
    hoodie_storage *mem;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    hoodie_assert_ok(hoodie_storage_write_all(mem, "/m/f.log", 0, want, n));
    hoodie_file_bytes fb;
    hoodie_assert_ok(hoodie_storage_file_bytes(mem, "/m/f.log", &buf, &fb));
    hoodie_assert(fb.f == NULL && fb.data == buf.data); /* read into the buffer */
    hoodie_assert_equal_i(n, fb.len);
    hoodie_file_bytes_drop(&fb, 0, n);                  /* a buffer's bytes stay */
    hoodie_assert(!memcmp(fb.data, want, n));
    hoodie_file_bytes_done(&fb);
    hoodie_assert_equal_i(HOODIE_ENOTFOUND, hoodie_storage_file_bytes(mem, "/m/none", &buf, &fb));
    hoodie_error_clear();
    hoodie_storage_free(mem);
    hoodie_buf_dispose(&buf);
    free(want);
}

/* The pre-commit view: one more file, served from memory and listed once; everything else is the inner storage's,
 * and nothing can be changed through it. */
HOODIE_TEST(storage_overlay__one_more_file_read_only)
{
    hoodie_storage *mem, *ov;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    hoodie_assert_ok(hoodie_storage_write_all(mem, "/t/.hoodie/a.commit", 0, "aa", 2));
    hoodie_assert_ok(hoodie_storage_write_all(mem, "/t/data.parquet", 0, "pq", 2));
    hoodie_assert_ok(hoodie_storage_overlay_new(&ov, mem, "/t/.hoodie/b.commit", "hello", 5));
    listing l = { .n = 0 };
    hoodie_assert_ok(ov->list(ov->ctx, "/t/.hoodie", collect, &l));
    hoodie_assert_equal_i(2, l.n);
    hoodie_assert(has(&l, "a.commit") && has(&l, "b.commit"));
    l.n = 0;
    hoodie_assert_ok(ov->list(ov->ctx, "/t/.hoodie/", collect, &l)); /* a trailing slash names the same folder */
    hoodie_assert_equal_i(2, l.n);
    l.n = 0;
    hoodie_assert_ok(ov->list(ov->ctx, "/t", collect, &l));
    hoodie_assert(has(&l, "data.parquet") && has(&l, ".hoodie/") && !has(&l, "b.commit"));
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(ov, "/t/.hoodie/b.commit", &b));
    hoodie_assert(b.len == 5 && !memcmp(b.data, "hello", 5));
    b.len = 0;
    hoodie_assert_ok(hoodie_storage_read_all(ov, "/t/data.parquet", &b));
    hoodie_assert(b.len == 2 && !memcmp(b.data, "pq", 2));
    hoodie_buf_dispose(&b);
    hoodie_rfile *f;
    uint64_t size;
    char buf[8];
    hoodie_assert_ok(ov->open_read(ov->ctx, "/t/.hoodie/b.commit", &f, &size));
    hoodie_assert_equal_i(5, size);
    hoodie_assert_ok(ov->read_at(ov->ctx, f, 3, buf, 2));
    hoodie_assert(!memcmp(buf, "lo", 2));
    hoodie_assert_status(HOODIE_EIO, ov->read_at(ov->ctx, f, 4, buf, 2));
    hoodie_assert_contains(hoodie_error_last()->message, "b.commit");
    ov->close_read(ov->ctx, f);
    hoodie_assert_equal_i(1, ov->exists(ov->ctx, "/t/.hoodie/b.commit"));
    hoodie_assert_equal_i(1, ov->exists(ov->ctx, "/t/data.parquet"));
    hoodie_assert_equal_i(0, ov->exists(ov->ctx, "/t/none"));
    hoodie_assert_status(HOODIE_ENOTFOUND, ov->open_read(ov->ctx, "/t/none", &f, &size));
    /* read-only, and the inner storage never sees the added file */
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_storage_write_all(ov, "/t/x", 0, "x", 1));
    hoodie_assert_status(HOODIE_EUNSUPPORTED, ov->remove(ov->ctx, "/t/data.parquet"));
    hoodie_assert_status(HOODIE_EUNSUPPORTED, ov->rename(ov->ctx, "/t/data.parquet", "/t/y"));
    hoodie_assert_status(HOODIE_EUNSUPPORTED, ov->mkdirs(ov->ctx, "/t/d"));
    hoodie_assert_status(HOODIE_EUNSUPPORTED, ov->rmdir(ov->ctx, "/t/.hoodie"));
    hoodie_assert_equal_i(0, mem->exists(mem->ctx, "/t/.hoodie/b.commit"));
    hoodie_assert_equal_i(1, mem->exists(mem->ctx, "/t/data.parquet"));
    hoodie_storage *bad;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_storage_overlay_new(&bad, mem, "nofolder", "", 0));
    hoodie_assert(bad == NULL);
    hoodie_storage_free(ov);
    hoodie_storage_free(mem);
}

/* A writer killed between creating a file and finishing it leaves a hidden temporary, which listings do not show:
 * removing the folder as a tree (a rollback's marker folder) must still work, or recovery fails for good. A live
 * process's temporary is left alone. */
HOODIE_TEST(storage_posix__remove_tree_with_a_dead_writers_temporary)
{
    const hoodie_storage *s = hoodie_storage_posix();
    const char *root = hoodie_test_tmpdir(); /* (a new folder at each call) */
    char dir[512], p[600];
    snprintf(dir, sizeof dir, "%s/markers/20260101000000000/city=sf", root);
    hoodie_assert_ok(s->mkdirs(s->ctx, dir));
    hoodie_assert_ok(hoodie_storage_write_all(s, strcat(strcpy(p, dir), "/f.parquet.marker.CREATE"), 0, "", 0));
    pid_t child = fork();
    if (child == 0) _exit(0);
    int st;
    hoodie_assert(child > 0 && waitpid(child, &st, 0) == child); /* a pid that is gone */
    snprintf(p, sizeof p, "%s/.hoodie_tmp_%ld_7_g.parquet.marker.CREATE", dir, (long)child);
    FILE *f = fopen(p, "w");
    hoodie_assert(f != NULL);
    fclose(f);
    char top[512];
    snprintf(top, sizeof top, "%s/markers/20260101000000000", root);
    hoodie_assert_equal_i(1, s->exists(s->ctx, top));
    hoodie_assert_ok(hoodie_storage_remove_tree(s, top));
    hoodie_assert_equal_i(0, s->exists(s->ctx, top));
    /* a live writer's (this test's parent) temporary stays, and so does its folder */
    hoodie_assert_ok(s->mkdirs(s->ctx, dir));
    snprintf(p, sizeof p, "%s/.hoodie_tmp_%ld_8_h.parquet.marker.CREATE", dir, (long)getppid());
    f = fopen(p, "w");
    hoodie_assert(f != NULL);
    fclose(f);
    hoodie_assert(hoodie_storage_remove_tree(s, top) < 0);
    hoodie_assert_equal_i(1, s->exists(s->ctx, p));
    hoodie_assert(unlink(p) == 0);
    hoodie_assert_ok(hoodie_storage_remove_tree(s, top));
    /* a data file a dead writer never finished: removing it (a rollback does) takes its temporary, and only its */
    char part[512], q[700], other[700], live[700];
    snprintf(part, sizeof part, "%s/city=sf", root);
    hoodie_assert_ok(s->mkdirs(s->ctx, part));
    snprintf(q, sizeof q, "%s/.hoodie_tmp_%ld_9_g_1.parquet", part, (long)child);
    snprintf(other, sizeof other, "%s/.hoodie_tmp_%ld_10_h_1.parquet", part, (long)child);
    snprintf(live, sizeof live, "%s/.hoodie_tmp_%ld_11_g_1.parquet", part, (long)getppid());
    const char *made[3] = { q, other, live };
    for (int i = 0; i < 3; i++) {
        f = fopen(made[i], "w");
        hoodie_assert(f != NULL);
        fclose(f);
    }
    snprintf(p, sizeof p, "%s/g_1.parquet", part);
    hoodie_assert_status(HOODIE_ENOTFOUND, s->remove(s->ctx, p));
    hoodie_assert(access(q, F_OK) != 0);
    hoodie_assert(access(other, F_OK) == 0 && access(live, F_OK) == 0);
}

/* ---- will_read: the advice a Parquet scan gives its storage ---- */

static struct {
    int magic; /* the open's advice: the leading magic, [0, 4) */
    int calls;
    uint64_t off[64];
    size_t len[64];
    size_t n;
} advised;

static void record_will_read(void *ctx, hoodie_rfile *f, const uint64_t *offs, const size_t *lens, size_t n)
{
    (void)ctx;
    (void)f;
    if (n == 1 && offs[0] == 0 && lens[0] == 4) { advised.magic++; return; }
    advised.calls++;
    for (size_t i = 0; i < n && advised.n < 64; i++) {
        advised.off[advised.n] = offs[i];
        advised.len[advised.n++] = lens[i];
    }
}

static void refuse_will_read(void *ctx, hoodie_rfile *f, const uint64_t *offs, const size_t *lens, size_t n)
{
    (void)ctx; (void)f; (void)offs; (void)lens; (void)n;
    hoodie_test__fail(__FILE__, __LINE__, "will_read called on a version 1 storage");
}

static int64_t scan_through(const hoodie_storage *s, const char *path, const char *column, hoodie_parquet_reader **keep)
{
    const char *cols[] = { column };
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    o.storage = s;
    o.columns = column ? cols : NULL;
    o.n_columns = column ? 1 : 0;
    hoodie_parquet_reader *r;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, path, &o));
    hoodie_pq_scan *sc;
    hoodie_batch b;
    int64_t rows = 0;
    hoodie_assert_ok(hoodie_pqfile__scan_open(r, &sc));
    while (hoodie_pq_scan_next(sc, &b) == HOODIE_OK) {
        rows += b.root.length;
        hoodie_batch_dispose(&b);
    }
    hoodie_pq_scan_free(sc);
    if (keep) *keep = r;
    else hoodie_parquet_reader_free(r);
    return rows;
}

/* Opening a file announces its leading magic; a scan announces, as it starts a row group, exactly the column chunks
 * it reads, ascending; a storage of
 * version 1 (which has no will_read) is never asked, whatever the memory after its last function holds. */
HOODIE_TEST(storage_will_read__parquet_scan_announces_its_chunks)
{
    const char *path = hoodie_fixture("hudi/tables/cow_v8_nonpartitioned/"
                                      "2746610d-ad02-4adb-a038-5cbb99cbd455-0_0-75-100_20250713010536861.parquet");
    hoodie_storage rec = *hoodie_storage_posix();
    rec.will_read = record_will_read;
    memset(&advised, 0, sizeof advised);
    hoodie_parquet_reader *r;
    int64_t rows = scan_through(&rec, path, NULL, &r);
    hoodie_assert(rows > 0);
    hoodie_pq_file *f = hoodie_pqfile__file(r);
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    int64_t groups = (int64_t)m->row_group_count;
    hoodie_assert_equal_i(groups, advised.calls);
    hoodie_assert_equal_i(1, advised.magic);
    size_t leaves = hoodie_pq_file_schema(f)->n_leaves, k = 0;
    hoodie_assert_equal_i((int64_t)(leaves * m->row_group_count), (int64_t)advised.n);
    for (uint32_t rg = 0; rg < m->row_group_count; rg++) {
        for (size_t i = 0; i < leaves; i++, k++) { /* every chunk of the row group, each once, in file order */
            uint64_t off;
            size_t len;
            hoodie_assert_ok(hoodie_pq_chunk_extent(f, rg, (int)i, &off, &len));
            int found = 0;
            for (size_t j = rg * leaves; j < (rg + 1) * leaves; j++) found += advised.off[j] == off && advised.len[j] == len;
            hoodie_assert_equal_i(1, found);
            if (i) hoodie_assert(advised.off[k] > advised.off[k - 1]);
        }
    }
    hoodie_parquet_reader_free(r);
    /* a projection announces its column's chunks only */
    memset(&advised, 0, sizeof advised);
    hoodie_assert_equal_i(rows, scan_through(&rec, path, "_hoodie_record_key", NULL));
    hoodie_assert_equal_i(groups, (int64_t)advised.n);
    hoodie_assert_equal_i(1, advised.magic);
    hoodie_storage v1 = *hoodie_storage_posix();
    v1.version = 1;
    v1.will_read = refuse_will_read;
    hoodie_assert_equal_i(rows, scan_through(&v1, path, NULL, NULL));
}
