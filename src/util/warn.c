#include "util/warn.h"

#include <stdarg.h>
#include <stdio.h>

static hoodie_warning_fn g_handler;
static void *g_payload;
static _Thread_local unsigned long tl_count;

void hoodie_set_warning_handler(hoodie_warning_fn fn, void *payload)
{
    g_handler = fn;
    g_payload = payload;
}

void hoodie_warn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tl_count++;
    if (g_handler) g_handler(msg, g_payload);
    else fprintf(stderr, "hoodie: warning: %s\n", msg);
}

unsigned long hoodie_warn_count(void) { return tl_count; }
