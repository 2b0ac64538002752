/*
 * Java .properties files (java.util.Properties load/store), as Hudi uses them for hoodie.properties and
 * .hoodie_partition_metadata.
 *
 * Parsing follows Properties.load(InputStream): bytes are ISO-8859-1, lines end in \n, \r or \r\n, leading
 * whitespace (space, \t, \f) is skipped, '#' and '!' start comment lines, a line ending in an odd number of
 * backslashes continues on the next line (whose leading whitespace is dropped), the key ends at the first
 * unescaped '=', ':' or whitespace, escapes \t \n \r \f \uXXXX and \<any> are decoded. Keys and values are kept
 * as UTF-8 (Latin-1 bytes and \uXXXX, surrogate pairs included, are converted). A key given twice keeps its
 * first position and its last value (Java's Hashtable semantics).
 *
 * Writing follows Properties.store(): '#' + comment lines, then '#' + the date in Date.toString() form, then
 * one `key=value` per line with Java's escaping (non-ASCII and control characters as \uXXXX, upper-case hex).
 *
 * Memory: a hoodie_props owns all its strings (malloc); release with hoodie_props_dispose().
 * Thread-safety: none; one props per thread.
 */
#ifndef HOODIE_FORMAT_PROPS_H
#define HOODIE_FORMAT_PROPS_H

#include <stddef.h>
#include <stdint.h>
#include "hoodie/common.h"
#include "util/buf.h"

typedef struct hoodie_props_entry {
    char *key;   /* UTF-8, NUL-terminated */
    char *value; /* UTF-8, NUL-terminated */
    unsigned line; /* 1-based line where the key was (last) defined; 0 if set programmatically */
} hoodie_props_entry;

typedef struct hoodie_props {
    hoodie_props_entry *entries; /* in order of first appearance */
    size_t count;
    size_t cap;
} hoodie_props;

#define HOODIE_PROPS_INIT { NULL, 0, 0 }

static inline void hoodie_props_init(hoodie_props *p) { p->entries = NULL; p->count = p->cap = 0; }
void hoodie_props_dispose(hoodie_props *p);

/**
 * Parse `len` bytes of a .properties file into `p` (which must be empty or initialised; parsed entries are
 * added to it). `what` names the file in error messages.
 * @return HOODIE_OK; HOODIE_ECORRUPT (message "<what>:<line>: ...") for a malformed \uXXXX escape;
 *         HOODIE_ENOMEM.
 */
hoodie_status hoodie_props_parse(hoodie_props *p, const void *data, size_t len, const char *what);

/** The value of `key` (borrowed, valid until the props change), or NULL if absent. */
const char *hoodie_props_get(const hoodie_props *p, const char *key);
/** The entry of `key`, or NULL. */
const hoodie_props_entry *hoodie_props_find(const hoodie_props *p, const char *key);
/** Set `key` to `value` (copied): replaces in place if present, else appends. */
hoodie_status hoodie_props_set(hoodie_props *p, const char *key, const char *value);
/** Remove `key`; 1 if it was there, 0 if not. Order of the others is kept. */
int hoodie_props_remove(hoodie_props *p, const char *key);

/**
 * Append the file text to `out` as Properties.store(out, comment) writes it:
 *   "#" comment "\n"  (omitted if comment is NULL)
 *   "#" date "\n"     (Date.toString() of now_ms in UTC, e.g. "Sun Jul 13 01:01:15 UTC 2025")
 *   key=value lines in entry order.
 * Hudi passes comment "Properties saved on <Instant>" on creation and "Updated at <Instant>" on updates; see
 * hoodie_props_store_comment().
 */
hoodie_status hoodie_props_store(const hoodie_props *p, hoodie_buf *out, const char *comment, int64_t now_ms);

/**
 * Hudi's first comment line: "<prefix><Instant.toString()>" where the instant is now_us in UTC, written with
 * 3 or 6 fraction digits as java.time.Instant does (e.g. "Updated at 2026-01-01T05:43:25.991683Z"; whole
 * seconds give no fraction). Writes at most `cap` bytes including the NUL.
 */
void hoodie_props_store_comment(char *dst, size_t cap, const char *prefix, int64_t now_us);

/** Escape one key (is_key: spaces escaped everywhere) or value (only a leading space) as store() does. */
hoodie_status hoodie_props_escape(hoodie_buf *out, const char *s, int is_key);

#endif
