/*
 * A file slice merged in several key-hash passes (hoodie_logscan_parts > 1) from storage that does not map files
 * (S3): every pass would fetch every log file and the base file again, N times the bytes over the network. Its files
 * are copied once to local temporary files instead (in $TMPDIR, else /tmp: Hudi spills its merges to
 * hoodie.memory.spillable.map.path, /tmp by default), and the passes read them from there, mapped, through a
 * storage that sends reads of those paths to the copies and everything else to the table's storage. Paths stay the
 * table's, so messages about the data name the table's files. The copies are removed when the spill is freed; those
 * of a process that died in the middle (hoodie-spill-<pid>-*) are removed by the next spill made in the same place.
 */
#ifndef HOODIE_READ_SPILL_H
#define HOODIE_READ_SPILL_H

#include "hoodie/sys/storage.h"
#include "table/fsview.h"

typedef struct hoodie_spill hoodie_spill;

/**
 * Copy the files at `paths` (NULL entries skipped) for a merge in several passes. *out NULL, HOODIE_OK: nothing to
 * do (the storage maps the first file: the local file system), or the copy failed (no room, say: a warning, and the
 * passes read the table's storage as before). Only running out of memory fails.
 */
hoodie_status hoodie_spill_open(hoodie_spill **out, const hoodie_storage *s, const char *const *paths, size_t n);
/** hoodie_spill_open of a slice's log files and its base file (NULL: none). */
hoodie_status hoodie_spill_open_slice(hoodie_spill **out, const hoodie_storage *s, const hoodie_fs_file *const *logs,
                                      size_t n_logs, const char *base);
/** The storage the passes read the slice's files through (NULL spill: s). */
const hoodie_storage *hoodie_spill_storage(const hoodie_spill *sp, const hoodie_storage *s);
/** Remove the copies (NULL: nothing). Files opened through the spill's storage are closed first. */
void hoodie_spill_free(hoodie_spill *sp);

#endif
