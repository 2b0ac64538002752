/*
 * Internal error reporting. A failure records its code and a one-line message in thread-local storage and
 * evaluates to the code, so `return HOODIE_FAIL(HOODIE_EINVAL, "bad %s", x);` is the common shape.
 */
#ifndef HOODIE_UTIL_ERROR_H
#define HOODIE_UTIL_ERROR_H

#include "hoodie/common.h"

#define HOODIE_PRINTF(f, a) __attribute__((format(printf, f, a)))

hoodie_status hoodie_error__set(hoodie_status code, const char *file, int line, const char *fmt, ...)
    HOODIE_PRINTF(4, 5);
/** Like hoodie_error__set, with errno recorded (for HOODIE_EIO). */
hoodie_status hoodie_error__set_errno(hoodie_status code, int sys_errno, const char *fmt, ...) HOODIE_PRINTF(3, 4);
/** Prepend context to the current message ("partition 'x': " + message). */
void hoodie_error__prefix(const char *fmt, ...) HOODIE_PRINTF(1, 2);
/** Current message (never NULL). */
const char *hoodie_error__message(void);

#define HOODIE_FAIL(code, ...) hoodie_error__set((code), __FILE__, __LINE__, __VA_ARGS__)
#define HOODIE_CORRUPT(...)    HOODIE_FAIL(HOODIE_ECORRUPT, __VA_ARGS__)
#define HOODIE_NOMEM()         HOODIE_FAIL(HOODIE_ENOMEM, "out of memory")

#define HOODIE_TRY(expr) \
    do { hoodie_status hoodie__rc = (expr); if (hoodie__rc < 0) return hoodie__rc; } while (0)
#define HOODIE_TRY_GOTO(rc, expr, label) \
    do { if (((rc) = (expr)) < 0) goto label; } while (0)

/* Overflow-checked size arithmetic: true on overflow. */
#define hoodie_add_overflow(a, b, out) __builtin_add_overflow((a), (b), (out))
#define hoodie_mul_overflow(a, b, out) __builtin_mul_overflow((a), (b), (out))

#endif
