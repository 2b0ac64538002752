/*
 * Column chunks a copy-on-write rewrite can keep. A merge writes the old file's records again with some replaced
 * (updates) or dropped (deletes), and adds inserts after them. For a row group of the old file whose records all
 * stay, in place, a column that no update changes holds exactly the values it held: its chunk is copied as it is
 * stored (hoodie_pq_writer_write_row_group) instead of being encoded and compressed again. Updates change the
 * commit time, sequence number and file name of their records, and the columns the update sets; record keys,
 * partition paths and the columns an update leaves alone are usually copied.
 *
 *   hoodie_rgcopy c;
 *   hoodie_rgcopy_init(&c, file_schema, src_file, codec);
 *   for each scan batch `old` (conformed) and its selection sel[0..n) over { old, fresh }:
 *       hoodie_rgcopy_batch(&c, old, fresh, sel, n);
 *       if (c.left == 0) { hoodie_rgcopy_finish(&c, &part_copies); ... write the row group ...; }
 *   hoodie_rgcopy_dispose(&c);
 *
 * A column is copied only when the old file stores it as the new one would (hoodie_basefile_copy_map) with the
 * codec of the new file, and when every update of the row group gives it the value it had (compared cell by cell).
 * The copied bytes and page indexes live in the struct until it is disposed.
 */
#ifndef HOODIE_WRITE_RGCOPY_H
#define HOODIE_WRITE_RGCOPY_H

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "model/build.h"
#include "util/arena.h"
#include "write/basefile.h"

typedef struct hoodie_rgcopy {
    const hoodie_field *schema;     /* the new file's (meta + data columns) */
    const hoodie_pq_file *src;
    hoodie_pq_codec codec;
    hoodie_basefile_copymap map;
    int enabled;                    /* some column could be copied at all */
    uint32_t rg;                    /* the source row group being scanned */
    int64_t left;                   /* its rows not seen yet */
    int in_place;                   /* every row seen so far is kept, in place */
    uint8_t *same;                  /* per top-level column: no update seen so far changes it */
    int pending_reset;              /* finish() done: the next batch starts the next row group */
    hoodie_arena *arena;            /* copies, chunk bytes, page indexes */
} hoodie_rgcopy;

hoodie_status hoodie_rgcopy_init(hoodie_rgcopy *c, const hoodie_field *file_schema, const hoodie_pq_file *src,
                                 hoodie_pq_codec codec);
/** One scan batch of the current row group: `old` (conformed to the schema) and the merge's selection (source 0:
 *  old rows, kept; source 1: rows of `fresh`, updates replacing the old row at that position). A selection
 *  shorter than the batch dropped rows. */
void hoodie_rgcopy_batch(hoodie_rgcopy *c, const hoodie_batch *old, const hoodie_batch *fresh,
                         const hoodie_row_ref *sel, size_t n);
/**
 * The row group is complete (c->left == 0): *copies_out gets one entry per leaf (NULL: encode it) or NULL when
 * nothing is copied; *copied_top (per top-level column, valid until dispose) marks the columns the rows need not
 * hold. Then moves to the next row group.
 */
hoodie_status hoodie_rgcopy_finish(hoodie_rgcopy *c, const hoodie_pq_chunk_copy *const **copies_out,
                                   const uint8_t **copied_top);
void hoodie_rgcopy_dispose(hoodie_rgcopy *c);

#endif
