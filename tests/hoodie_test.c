#include "hoodie_test.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct { const char *name; hoodie_test_fn fn; } test_entry;

static test_entry *g_tests;
static size_t g_count, g_cap;
static jmp_buf g_jmp;
static char g_tmp[4096];
static int g_tmp_made;

void hoodie_test__register(const char *name, hoodie_test_fn fn)
{
    if (g_count == g_cap) {
        g_cap = g_cap ? g_cap * 2 : 64;
        g_tests = realloc(g_tests, g_cap * sizeof(*g_tests));
        if (!g_tests) abort();
    }
    g_tests[g_count].name = name;
    g_tests[g_count].fn = fn;
    g_count++;
}

void hoodie_test__fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "  %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    longjmp(g_jmp, 1);
}

const char *hoodie_fixture(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("HOODIE_FIXTURES");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : HOODIE_FIXTURES_DIR, rel);
    return buf;
}

static void rm_tmp(void)
{
    char cmd[4200];
    if (!g_tmp_made || getenv("HOODIE_KEEP_TMP")) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    if (system(cmd) != 0) { /* best effort */ }
    g_tmp_made = 0;
}

const char *hoodie_test_tmpdir(void)
{
    rm_tmp();
    snprintf(g_tmp, sizeof g_tmp, "%s/hoodie-test-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(g_tmp)) { perror("mkdtemp"); abort(); }
    g_tmp_made = 1;
    return g_tmp;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const test_entry *)a)->name, ((const test_entry *)b)->name);
}

/* Whether `name` holds one of the '|'-separated texts of `filter`. */
static int matches(const char *name, const char *filter)
{
    for (const char *p = filter;;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        for (const char *q = name; n && *q; q++)
            if (!strncmp(q, p, n)) return 1;
        if (!bar) return 0;
        p = bar + 1;
    }
}

int main(int argc, char **argv)
{
    /* argv[1]: run only the tests whose name holds it (or one of its '|'-separated texts), or, as "-TEXT", only
     * those whose name holds none */
    const char *volatile filter = argc > 1 ? argv[1] : NULL;
    const int exclude = filter && filter[0] == '-';
    if (exclude) filter++;
    static size_t passed, failed; /* static: survive longjmp */
    qsort(g_tests, g_count, sizeof *g_tests, by_name);
    for (volatile size_t i = 0; i < g_count; i++) {
        if (filter && matches(g_tests[i].name, filter) == exclude) continue;
        if (setjmp(g_jmp) == 0) {
            g_tests[i].fn();
            passed++;
            printf("ok   %s\n", g_tests[i].name);
        } else {
            failed++;
            printf("FAIL %s\n", g_tests[i].name);
        }
        rm_tmp();
        fflush(stdout);
    }
    printf("%zu passed, %zu failed\n", passed, failed);
    free(g_tests);
    if (!passed && !failed) fprintf(stderr, "no test matches '%s%s'\n", exclude ? "-" : "", filter ? filter : "");
    return failed || !passed ? 1 : 0;
}
