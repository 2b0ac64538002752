/*
 * Base and log file names (hudi-format.md §7.1-7.2).
 *
 *   base file: <fileId>_<writeToken>_<instant>.<ext>          e.g. a22e...-0_0-161-223_20240418173235694.parquet
 *   log file:  .<fileId>_<instant>.log.<version>[_<writeToken>][.cdc]   (archive: .commits_.archive.<n>_<token>)
 *
 * Parsed names are plain values with fixed buffers; a component that does not fit is "not a file name".
 */
#ifndef HOODIE_TABLE_FILENAME_H
#define HOODIE_TABLE_FILENAME_H

#include <stddef.h>
#include <stdint.h>
#include "hoodie/common.h"

#define HOODIE_FILE_ID_MAX 128
#define HOODIE_TOKEN_MAX 64
#define HOODIE_INSTANT_MAX 32

typedef struct hoodie_base_file_name {
    char file_id[HOODIE_FILE_ID_MAX];
    char write_token[HOODIE_TOKEN_MAX];
    char instant[HOODIE_INSTANT_MAX];
    char ext[16];          /* "parquet", "orc", "hfile", ... (no dot) */
} hoodie_base_file_name;

typedef struct hoodie_log_file_name {
    char file_id[HOODIE_FILE_ID_MAX];
    char instant[HOODIE_INSTANT_MAX]; /* v6: base instant of the slice; v8+: the delta commit's instant */
    int is_archive;                   /* ".archive" (v6 archived timeline) instead of ".log" */
    int64_t version;                  /* >= 0 (1 is the first) */
    char write_token[HOODIE_TOKEN_MAX]; /* "" if absent */
    int is_cdc;                       /* ".cdc" suffix */
} hoodie_log_file_name;

/** Parse a base file name (no directory). HOODIE_ENOTFOUND if it is not one (Java's isBaseFile regex). */
hoodie_status hoodie_base_file_parse(hoodie_base_file_name *out, const char *name);
/** "<fileId>_<token>_<instant>.<ext>"; HOODIE_EINVAL if it does not fit. */
hoodie_status hoodie_base_file_format(char *dst, size_t cap, const char *file_id, const char *write_token,
                                      const char *instant, const char *ext);

/** Parse a log file name (no directory). HOODIE_ENOTFOUND if it is not one. */
hoodie_status hoodie_log_file_parse(hoodie_log_file_name *out, const char *name);
/** ".<fileId>_<instant>.log.<version>_<token>[.cdc]"; token NULL or "" omits "_<token>". */
hoodie_status hoodie_log_file_format(char *dst, size_t cap, const char *file_id, const char *instant,
                                     int64_t version, const char *write_token, int cdc);
/** Order of log files within one file group: (instant, version, write token); negative/0/positive. */
int hoodie_log_file_cmp(const hoodie_log_file_name *a, const hoodie_log_file_name *b);

/** A write token "<partitionId>-<stageId>-<attemptId>". */
hoodie_status hoodie_write_token_format(char *dst, size_t cap, uint32_t partition_id, uint32_t stage_id,
                                        uint64_t attempt_id);

#endif
