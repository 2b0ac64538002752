/*
 * Java .properties files, read as Hudi reads its configuration (java.util.Properties.load): comments, line
 * continuations, escapes (\uXXXX included) and ISO-8859-1 bytes, as hoodie.properties is read. For tools that take
 * Hudi's settings from a file (`hoodie write --props`).
 */
#ifndef HOODIE_PROPS_H
#define HOODIE_PROPS_H

#include <stddef.h>
#include "hoodie/common.h"
#include "hoodie/sys/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hoodie_properties hoodie_properties; /**< parsed entries, in the order of their first line */

/**
 * Read the properties file at `path` through `storage` (NULL: local POSIX).
 * @return HOODIE_OK; HOODIE_ENOTFOUND; HOODIE_ECORRUPT ("<path>:<line>: ..." for a malformed \uXXXX escape).
 */
HOODIE_API hoodie_status hoodie_properties_read(const char *path, const hoodie_storage *storage,
                                                hoodie_properties **out);
HOODIE_API size_t hoodie_properties_count(const hoodie_properties *p);
/** The i-th entry (i < count): key and value (UTF-8, borrowed from p) and the 1-based line that set it. */
HOODIE_API void hoodie_properties_entry(const hoodie_properties *p, size_t i, const char **key, const char **value,
                                        unsigned *line);
HOODIE_API void hoodie_properties_free(hoodie_properties *p);

#ifdef __cplusplus
}
#endif
#endif
