#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The message lives in a fixed thread-local buffer, so reporting never allocates (and so works under OOM). */
static _Thread_local char tl_msg[1024];
static _Thread_local hoodie_error tl_err = { HOODIE_OK, 0, "" };

unsigned hoodie_version_number(void) { return HOODIE_VERSION_NUMBER; }

const hoodie_error *hoodie_error_last(void)
{
    tl_err.message = tl_msg;
    return &tl_err;
}

void hoodie_error_clear(void)
{
    tl_msg[0] = '\0';
    tl_err.code = HOODIE_OK;
    tl_err.sys_errno = 0;
}

const char *hoodie_error__message(void) { return tl_msg; }

const char *hoodie_status_str(hoodie_status code)
{
    switch (code) {
    case HOODIE_OK: return "ok";
    case HOODIE_ERROR: return "error";
    case HOODIE_ENOMEM: return "out of memory";
    case HOODIE_EIO: return "I/O error";
    case HOODIE_ENOTFOUND: return "not found";
    case HOODIE_EEXISTS: return "already exists";
    case HOODIE_ECONFLICT: return "conflict";
    case HOODIE_ECORRUPT: return "corrupt";
    case HOODIE_EUNSUPPORTED: return "unsupported";
    case HOODIE_EINVAL: return "invalid argument";
    case HOODIE_ESTATE: return "invalid state";
    case HOODIE_ITEROVER: return "end of iteration";
    case HOODIE_EVALIDATION: return "validation failed";
    }
    return "unknown status";
}

hoodie_status hoodie_error__set(hoodie_status code, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    (void)file;
    (void)line;
    va_start(ap, fmt);
    vsnprintf(tl_msg, sizeof tl_msg, fmt, ap);
    va_end(ap);
    tl_err.code = code;
    tl_err.sys_errno = 0;
    return code;
}

hoodie_status hoodie_error__set_errno(hoodie_status code, int sys_errno, const char *fmt, ...)
{
    va_list ap;
    size_t n;
    va_start(ap, fmt);
    vsnprintf(tl_msg, sizeof tl_msg, fmt, ap);
    va_end(ap);
    n = strlen(tl_msg);
    if (sys_errno && n + 3 < sizeof tl_msg)
        snprintf(tl_msg + n, sizeof tl_msg - n, ": %s", strerror(sys_errno));
    tl_err.code = code;
    tl_err.sys_errno = sys_errno;
    return code;
}

void hoodie_error__prefix(const char *fmt, ...)
{
    char pre[512];
    char old[sizeof tl_msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    size_t plen = strlen(pre);
    memcpy(old, tl_msg, sizeof old);
    if (plen >= sizeof tl_msg) plen = sizeof tl_msg - 1;
    memcpy(tl_msg, pre, plen);
    size_t rest = strnlen(old, sizeof old - 1);
    if (rest > sizeof tl_msg - 1 - plen) rest = sizeof tl_msg - 1 - plen;
    memcpy(tl_msg + plen, old, rest);
    tl_msg[plen + rest] = '\0';
}
