/*
 * Warnings: conditions that do not fail a call but that a user should hear about (a corrupt log block that was
 * skipped, as Hudi does). They go to a process-wide handler: by default one line on stderr, "hoodie: warning: ...";
 * hoodie_set_warning_handler() (include/hoodie/common.h) replaces it. The count is kept per thread.
 */
#ifndef HOODIE_UTIL_WARN_H
#define HOODIE_UTIL_WARN_H

#include "hoodie/common.h"

void hoodie_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Warnings issued on this thread so far. */
unsigned long hoodie_warn_count(void);

#endif
