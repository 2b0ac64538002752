/*
 * hoodie: common definitions: export macro, version, status codes, error reporting, allocator hooks.
 *
 * Thread-safety: the error state is thread-local; everything here is safe to call from any thread.
 */
#ifndef HOODIE_COMMON_H
#define HOODIE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#  define HOODIE_API __attribute__((visibility("default")))
#else
#  define HOODIE_API
#endif

#define HOODIE_VERSION_MAJOR 0
#define HOODIE_VERSION_MINOR 1
#define HOODIE_VERSION_PATCH 0
#define HOODIE_VERSION_NUMBER \
    (HOODIE_VERSION_MAJOR * 10000 + HOODIE_VERSION_MINOR * 100 + HOODIE_VERSION_PATCH)

/** Runtime twin of HOODIE_VERSION_NUMBER: compare the two to detect header/library skew. */
HOODIE_API unsigned hoodie_version_number(void);

/**
 * For a process whose main work is hoodie's (the CLI, batch jobs): tune the C allocator (glibc) to keep freed
 * memory for reuse instead of returning it to the kernel and faulting it in again (a quarter of a large write was
 * page faults). Process-wide, so a library never calls it on its own; a no-op elsewhere.
 */
HOODIE_API void hoodie_tune_allocator(void);

/**
 * hoodie_tune_allocator(); then, where the kernel gives transparent huge pages only on request (THP "madvise"
 * mode, Debian's default) and glibc's `glibc.malloc.hugetlb` tunable is not set: re-executes the program
 * (/proc/self/exe with `argv`) with that tunable added to GLIBC_TUNABLES, so that glibc backs its whole heap with
 * 2 MiB pages. HOODIE_HUGEPAGES=0 in the environment turns it off. On by default since it measured faster in
 * every case on the 2-core VMs we measure on (kernel 6.18, 10M-row tables, interleaved runs): MOR upsert median
 * 1.9 s -> 1.34 s, COW upsert 3.9-4.2 s -> 3.4 s, bulk_insert 5.9-7.8 s -> 4.9 s, compaction 3.7 -> 3.5 s,
 * snapshot read 7.7 -> 7.0 s; most of the gain is page faults (30K -> 5K per upsert), which these VMs make dear.
 * (On an earlier kernel it had slowed MOR upserts: 2.1 s against 1.76 s.) Large buffers ask for huge pages on
 * their own (madvise) either way. Call it first thing in main(), before any thread or open file matters; it
 * returns when it did nothing or the exec failed. Process-wide, for programs (the CLI, the benchmarks), never
 * called by the library.
 */
HOODIE_API void hoodie_tune_process(char **argv);

/** Every fallible call returns one of these. Negative values are failures. */
typedef enum hoodie_status {
    HOODIE_OK           =   0,
    HOODIE_ERROR        =  -1, /**< unclassified; see hoodie_error_last() */
    HOODIE_ENOMEM       =  -2,
    HOODIE_EIO          =  -3, /**< storage failed; hoodie_error.sys_errno has detail */
    HOODIE_ENOTFOUND    =  -4, /**< table, file, instant, file group, key */
    HOODIE_EEXISTS      =  -5, /**< e.g. instant file already present */
    HOODIE_ECONFLICT    =  -6, /**< another writer committed first: retry */
    HOODIE_ECORRUPT     =  -7, /**< stored bytes violate the format */
    HOODIE_EUNSUPPORTED =  -8, /**< well-formed, not implemented (version, codec) */
    HOODIE_EINVAL       =  -9, /**< bad argument or configuration */
    HOODIE_ESTATE       = -10, /**< handle is poisoned or in the wrong state */
    HOODIE_ITEROVER     = -11, /**< iterator exhausted; not a failure */
    HOODIE_EVALIDATION  = -12  /**< a pre-commit check refused a write (hoodie_write_opts.pre_commit) */
} hoodie_status;

typedef struct hoodie_error {
    hoodie_status code;
    int           sys_errno; /**< 0 unless code == HOODIE_EIO */
    const char   *message;   /**< one line; owned by the library, thread-local */
} hoodie_error;

/** Never NULL. Meaningful right after a call returned < 0; the next failure on this thread overwrites it. */
HOODIE_API const hoodie_error *hoodie_error_last(void);
/** Static text for a status, e.g. "corrupt". */
HOODIE_API const char *hoodie_status_str(hoodie_status code);
/** Forget the last error of this thread. */
HOODIE_API void hoodie_error_clear(void);

/** Receives warnings (e.g. a corrupt log block that was skipped): one line, no newline. */
typedef void (*hoodie_warning_fn)(const char *message, void *payload);
/** Replace the process-wide warning handler (NULL: the default, which prints to stderr). Not thread-safe:
 *  set it once at start-up. */
HOODIE_API void hoodie_set_warning_handler(hoodie_warning_fn fn, void *payload);

/** Memory hooks. All-NULL means malloc/realloc/free. */
typedef struct hoodie_allocator {
    void *(*alloc_fn)(void *ctx, size_t size);
    void *(*realloc_fn)(void *ctx, void *ptr, size_t size);
    void  (*free_fn)(void *ctx, void *ptr);
    void   *ctx;
} hoodie_allocator;

#ifdef __cplusplus
}
#endif
#endif
