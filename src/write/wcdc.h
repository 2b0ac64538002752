/*
 * Change data capture on write (hoodie.table.cdc.enabled; hudi-format.md 8.10): what a base-file rewrite changed,
 * logged as Hudi's HoodieCDCLogger logs it, in a CDC log file beside the new base file
 * (.<fileId>_<instant>.log.1_<writeToken>.cdc, one CDC_DATA_BLOCK) and named by the write statistics' cdcStats.
 * Hudi's CDC queries read those records as they are; without them a query over the commit fails ("There should
 * be a cdc log file"). Writes that only add files (new file groups, MOR log files, replaced file groups) need
 * none: readers infer their changes.
 *
 * One record per changed key: op "i" (insert), "u" (update) or "d" (delete), and by the table's supplemental
 * logging mode its key, the commit time, the record before and after (data columns, no meta columns).
 * Internal to the write client (write/whandles.c).
 */
#ifndef HOODIE_WRITE_WCDC_H
#define HOODIE_WRITE_WCDC_H

#include "write/writer_int.h"

typedef struct hoodie_wcdc {
    int on;                 /* the table logs changes */
    int mode;               /* hoodie_cdc_mode */
    hoodie_field schema;    /* the CDC record: op, ts_ms or record_key, before[, after] */
    hoodie_batch out;       /* the records: op and ts_ms/record_key appended as changes come */
    hoodie_batch old;       /* before images (file records), unless OP_KEY_ONLY */
    int have_out, have_old;
    rowvec before, after;   /* per record: its row of `old` / of the new records, -1: none */
    rowvec pending;         /* rows of the current scan batch whose before images are still to be taken */
} hoodie_wcdc;

/** Start logging a rewrite's changes (nothing to do unless the table has CDC enabled). */
hoodie_status hoodie_wcdc_begin(hoodie_wcdc *c, wctx *w);
/** `after_row` of a record that a fill made (a row of the filled records, not of the new ones). */
#define HOODIE_WCDC_FILLED(row) (-2 - (int64_t)(row))
/** An update (`after_row`: a row of the new records >= 0, or HOODIE_WCDC_FILLED(row of the filled records)) or
 *  delete (-1) of the old record `old_row` of the current scan batch, key k. The after image is the record as
 *  written. */
hoodie_status hoodie_wcdc_change(hoodie_wcdc *c, wctx *w, int64_t old_row, const void *k, size_t kl,
                                 int64_t after_row);
/** The end of a scan batch (file records): the before images of its changes are copied out of it. */
hoodie_status hoodie_wcdc_batch_end(hoodie_wcdc *c, const hoodie_batch *old);
/** An insert: the new record `after_row`, key k. */
hoodie_status hoodie_wcdc_insert(hoodie_wcdc *c, wctx *w, const void *k, size_t kl, int64_t after_row);
/**
 * Write the CDC log of group g (its partition and file id) with the after images from `fresh` (file records) or
 * `filled` (the records fills made; NULL if none) and name it in `st` (cdcStats). Written even when nothing
 * changed, as Hudi does: the commit's statistics then say so rather than leave readers to guess.
 */
hoodie_status hoodie_wcdc_finish(hoodie_wcdc *c, wctx *w, const wgroup *g, const hoodie_batch *fresh,
                                 const hoodie_batch *filled, hoodie_wstat *st);
void hoodie_wcdc_dispose(hoodie_wcdc *c);

#endif
