#include "util/cursor.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

void hoodie_cursor__short(hoodie_cursor *c, size_t want)
{
    if (c->status != HOODIE_OK) return;
    c->status = HOODIE_CORRUPT("%s%struncated: wanted %zu bytes at offset %" PRIu64 ", %zu left",
                               c->what ? c->what : "", c->what ? ": " : "", want, hoodie_cursor_offset(c),
                               hoodie_cursor_left(c));
}

hoodie_status hoodie_cursor__fail(hoodie_cursor *c, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    if (c->status != HOODIE_OK) return c->status;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    c->status = HOODIE_CORRUPT("%s%s%s at offset %" PRIu64, c->what ? c->what : "", c->what ? ": " : "", why,
                               hoodie_cursor_offset(c));
    return c->status;
}
