/*
 * Names of Hudi data files (hudi-format.md section 7.1, 7.2 and 13). No I/O.
 *
 *   base file          <fileId>_<writeToken>_<instant>.<ext>               ext: parquet, orc, hfile, lance
 *   log file (v1)      .<fileId>_<instant>.log.<version>_<writeToken>[.cdc]
 *   native log (LSM)   <fileId>_<writeToken>_<instant>_<version>.log.parquet
 *   native deletes     <fileId>_<writeToken>_<instant>_<version>.deletes.parquet
 *
 * writeToken is <taskPartitionId>-<stageId>-<taskAttemptId>. Parsed fields point into the caller's name buffer
 * (ptr + len), so parsing allocates nothing.
 */
#ifndef HOODIE_TABLE_FILE_NAME_H
#define HOODIE_TABLE_FILE_NAME_H

#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"

typedef enum hoodie_file_kind {
    HOODIE_FILE_OTHER = 0,     /* not a data file (partition metadata, temporaries, ...) */
    HOODIE_FILE_BASE,
    HOODIE_FILE_LOG,           /* framed log file (log format version 1) */
    HOODIE_FILE_LOG_NATIVE,    /* native Parquet log file (LSM layout) */
    HOODIE_FILE_DELETES_NATIVE /* native Parquet delete file (LSM layout) */
} hoodie_file_kind;

typedef struct hoodie_slice_ref { const char *p; size_t len; } hoodie_slice_ref;

typedef struct hoodie_file_name {
    hoodie_file_kind kind;
    hoodie_slice_ref file_id;
    hoodie_slice_ref write_token;   /* may be empty for old log names */
    hoodie_slice_ref instant;
    hoodie_slice_ref ext;           /* base files: "parquet" ...; logs: "log" or "archive" */
    int64_t version;                /* log files: version, from 1 */
    int cdc;                        /* log files: a ".cdc" log */
} hoodie_file_name;

/** Classify and split a file name (no directories). Returns the kind (HOODIE_FILE_OTHER if not a data file). */
hoodie_file_kind hoodie_file_name_parse(hoodie_file_name *out, const char *name);

/** Format names into `out` (appended, NUL-terminated). */
hoodie_status hoodie_file_name_base(hoodie_buf *out, const char *file_id, const char *write_token,
                                    const char *instant, const char *ext);
hoodie_status hoodie_file_name_log(hoodie_buf *out, const char *file_id, const char *instant, int64_t version,
                                   const char *write_token);
hoodie_status hoodie_file_name_native_log(hoodie_buf *out, const char *file_id, const char *write_token,
                                          const char *instant, int64_t version, int deletes);

/** Compare two write tokens as Java's log comparator does (task partition, stage, attempt; numerically). */
int hoodie_write_token_compare(hoodie_slice_ref a, hoodie_slice_ref b);

#endif
