/*
 * A small self-registering test framework (clar-shaped).
 *
 *   HOODIE_TEST(format_thrift__varint_roundtrip) { hoodie_assert_ok(...); }
 *
 * Every HOODIE_TEST registers itself at load time; the runner (hoodie_test.c) runs them all, or those whose name
 * contains the filter given as argv[1]. A failed assertion prints file:line, the expression and, for status
 * checks, hoodie_error_last()->message, then abandons the current test (longjmp) and goes on with the next.
 */
#ifndef HOODIE_TEST_H
#define HOODIE_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <inttypes.h>
#include "hoodie/common.h"

typedef void (*hoodie_test_fn)(void);
void hoodie_test__register(const char *name, hoodie_test_fn fn);
void hoodie_test__fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));

#define HOODIE_TEST(name)                                                        \
    static void test_##name(void);                                               \
    __attribute__((constructor)) static void register_##name(void)               \
    { hoodie_test__register(#name, test_##name); }                               \
    static void test_##name(void)

#define hoodie_assert(expr) \
    do { if (!(expr)) hoodie_test__fail(__FILE__, __LINE__, "assertion failed: %s", #expr); } while (0)

#define hoodie_assert_ok(expr)                                                   \
    do { hoodie_status _rc = (expr);                                             \
         if (_rc != HOODIE_OK)                                                   \
             hoodie_test__fail(__FILE__, __LINE__, "%s returned %d (%s): %s", #expr, (int)_rc, \
                               hoodie_status_str(_rc), hoodie_error_last()->message); } while (0)

#define hoodie_assert_status(want, expr)                                         \
    do { hoodie_status _rc = (expr);                                             \
         if (_rc != (want))                                                      \
             hoodie_test__fail(__FILE__, __LINE__, "%s returned %d, wanted %d (%s): %s", #expr,   \
                               (int)_rc, (int)(want), #want, hoodie_error_last()->message); } while (0)

#define hoodie_assert_equal_i(want, got)                                         \
    do { long long _w = (long long)(want), _g = (long long)(got);                \
         if (_w != _g) hoodie_test__fail(__FILE__, __LINE__, "%s == %s: wanted %lld, got %lld", \
                                         #want, #got, _w, _g); } while (0)

#define hoodie_assert_equal_s(want, got)                                         \
    do { const char *_w = (want), *_g = (got);                                   \
         if (!_w || !_g || strcmp(_w, _g) != 0)                                  \
             hoodie_test__fail(__FILE__, __LINE__, "%s == %s: wanted \"%s\", got \"%s\"", #want, #got, \
                               _w ? _w : "(null)", _g ? _g : "(null)"); } while (0)

#define hoodie_assert_contains(haystack, needle)                                 \
    do { const char *_h = (haystack), *_n = (needle);                            \
         if (!_h || !strstr(_h, _n))                                             \
             hoodie_test__fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", _h ? _h : "(null)", _n); } while (0)

/** Path of a file under ../shared/fixtures (static buffer, valid until the next call). */
const char *hoodie_fixture(const char *rel);
/** A fresh empty temporary directory for this test (removed at exit unless HOODIE_KEEP_TMP is set). */
const char *hoodie_test_tmpdir(void);

#endif
