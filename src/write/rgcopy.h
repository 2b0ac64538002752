/*
 * Column chunks a copy-on-write rewrite can keep. A merge writes the old file's records again with some replaced
 * (updates) or dropped (deletes), and adds inserts after them. For a row group of the old file whose records all
 * stay, in place, a column that no update changes holds exactly the values it held: its chunk is copied as it is
 * stored (hoodie_pq_writer_write_row_group) instead of being encoded and compressed again. Updates change the
 * commit time, sequence number and file name of their records, and the columns the update sets; record keys,
 * partition paths and the columns an update leaves alone are usually copied.
 *
 *   hoodie_rgcopy c;
 *   hoodie_rgcopy_init(&c, file_schema, batch_schema, key_col, src_file, codec);
 *   for each scan batch `old` (conformed) and the merge's selection sel[0..n) over sources { old, others... }:
 *       hoodie_rgcopy_push(&c, &old, srcs, n_srcs, sel, n);        (old is kept until its row group is written)
 *       if (c.left <= 0) { hoodie_rgcopy_take(&c, c.left == 0, srcs, n_srcs, &rows, &copies); write them; }
 *   at the end of the scan, rows still pending: hoodie_rgcopy_take(&c, 0, ...) (nothing copied)
 *   hoodie_rgcopy_dispose(&c);
 *
 * A column is copied only when the old file stores it as the new one would (hoodie_basefile_copy_map) with the
 * codec of the new file, and when every row that replaces an old one gives it the value it had (compared cell by
 * cell). The copied bytes and page indexes live in the struct until it is disposed.
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
    const hoodie_field *in_schema;  /* the batches': the file's columns or some of them (by name) */
    int *in_of_top;                 /* per column of the new file: its batch column, or -1 (never copied) */
    int key_col;                    /* batch column always gathered (the footer's key index is built from it) */
    const hoodie_pq_file *src;
    hoodie_pq_codec codec;
    hoodie_basefile_copymap map;
    int enabled;                    /* some column could be copied at all */
    uint32_t rg;                    /* the source row group being scanned */
    int64_t left;                   /* its rows not seen yet */
    int in_place;                   /* every row seen so far is kept, in place */
    uint8_t *same;                  /* per batch column: no replacing row seen so far changes it */
    uint8_t *excluded;              /* per batch column: never copied (rewritten for every row) */
    int pending_reset;              /* take() done: the next batch starts the next row group */
    uint32_t *rep;                  /* scratch: the positions of a batch's replacing rows */
    size_t rep_cap;
    hoodie_arena *arena;            /* copies, chunk bytes, page indexes */
    /* the current row group's batches and their selections (copies), until take() */
    hoodie_batch *old;
    hoodie_row_ref **sel;
    size_t *nsel;
    size_t n_pend, cap_pend;
} hoodie_rgcopy;

/** file_schema: the new file's; in_schema: the batches' (file_schema itself, or a subset of its columns: the
 *  others are never copied); key_col: the record key's batch column. */
hoodie_status hoodie_rgcopy_init(hoodie_rgcopy *c, const hoodie_field *file_schema, const hoodie_field *in_schema,
                                 int key_col, const hoodie_pq_file *src, hoodie_pq_codec codec);
/** Batch column `col` is never copied (e.g. a file name every row gets anew). */
void hoodie_rgcopy_exclude(hoodie_rgcopy *c, int col);
/**
 * One scan batch of the current row group: `old` (conformed to the schema; moved into c, *old is emptied) and
 * the merge's selection (source 0: rows of old, kept; source s > 0: rows of srcs[s], replacing the old row at that
 * position; srcs[0] is not read). A selection shorter than the batch dropped rows.
 */
hoodie_status hoodie_rgcopy_push(hoodie_rgcopy *c, hoodie_batch *old, const hoodie_batch *const *srcs, size_t n_srcs,
                                 const hoodie_row_ref *sel, size_t n);
/**
 * The pending rows as one batch `rows` (initialised here, shaped as in_schema): selected from the pending batches and srcs[1..], except
 * the columns whose chunks are copied (left empty; the key column is always gathered). complete: the row group
 * was scanned whole (c->left == 0), so its chunks may be copied: *copies gets one entry per leaf (NULL: encode)
 * or NULL when nothing is copied. Then moves to the next row group.
 */
hoodie_status hoodie_rgcopy_take(hoodie_rgcopy *c, int complete, const hoodie_batch *const *srcs, size_t n_srcs,
                                 hoodie_batch *rows, const hoodie_pq_chunk_copy *const **copies);
/**
 * The pending rows as references instead of a gathered batch (hoodie_pq_writer_write_refs): the row group's scan
 * batches, moved into the part, and one reference per row, source i < n_old being old[i] and n_old + s - 1 the
 * caller's srcs[s] (s >= 1); copies as hoodie_rgcopy_take's. For a batch schema that is the file's (in_schema ==
 * file_schema). Then moves to the next row group.
 */
typedef struct hoodie_rgcopy_part {
    hoodie_batch *old;          /* malloc, n_old batches owned */
    size_t n_old;
    hoodie_row_ref *refs;       /* malloc */
    size_t n;
    const hoodie_pq_chunk_copy *const *copies; /* c's arena (hoodie_rgcopy_release) or NULL */
} hoodie_rgcopy_part;

hoodie_status hoodie_rgcopy_take_refs(hoodie_rgcopy *c, int complete, hoodie_rgcopy_part *out);
void hoodie_rgcopy_part_dispose(hoodie_rgcopy_part *p);
/** The row groups taken so far are written: the memory of their copies (chunk bytes, page indexes) is released
 *  and those copies become invalid. */
void hoodie_rgcopy_release(hoodie_rgcopy *c);
void hoodie_rgcopy_dispose(hoodie_rgcopy *c);

/**
 * Row group `rg` of src kept whole, without a scan: the copies of all its chunks (one entry per leaf of the map,
 * in arena `a`) except those of top-level column except_top, which the writer makes (NULL entries). *out is NULL
 * when some chunk cannot be copied (see hoodie_rgcopy_init's rules): the rows must then be read and encoded.
 */
hoodie_status hoodie_rgcopy_whole(hoodie_arena *a, const hoodie_basefile_copymap *map, const hoodie_pq_file *src,
                                  uint32_t rg, hoodie_pq_codec codec, int except_top,
                                  const hoodie_pq_chunk_copy *const **out);

#endif
