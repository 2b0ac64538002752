/*
 * Record merge semantics of Hudi (hudi-format.md section 8; the fixtures' README), as one pairwise rule applied
 * in write order: a file slice's base record first, then its log records in (log version, write token, block
 * order) order. Folding every version of a key with hoodie_merge_newer_wins() leaves the surviving version.
 *
 *   COMMIT_TIME_ORDERING  the newer version wins (last write wins).
 *   EVENT_TIME_ORDERING   the version with the larger ordering value wins; ties go to the newer one.
 *   deletes               a delete whose ordering value is absent or 0 (Hudi's "natural order") always wins over
 *                         what came before it, and loses to anything after it, as commit-time ordering would;
 *                         a delete with another ordering value competes on its ordering value like a record.
 *                         Ordering values of incomparable types (a string against a long) let the newer win.
 *   several fields        table version 9 may order by several fields (hoodie.table.ordering.fields "a,b"): they
 *                         compare in turn, the next deciding when the ones before tie (Hudi's ArrayComparable);
 *                         a version without them (a delete block's record) compares on the first alone.
 *
 * Table version 6 payload classes map onto two modes, one for folding log records together (preCombine) and one
 * for log against base (combineAndGetUpdateValue):
 *   OverwriteWithLatestAvroPayload   log fold EVENT_TIME, base COMMIT_TIME
 *   DefaultHoodieRecordPayload, EventTimeAvroPayload   EVENT_TIME for both
 *   AWSDmsAvroPayload (any version below 9)           as OverwriteWithLatestAvroPayload, plus its delete marker
 * Table version 8 `hoodie.record.merge.mode` applies to both.
 *
 * A record is a delete when its _hoodie_is_deleted (BOOL) is true, or when the table's custom delete marker
 * column (hoodie.payload.delete.field; AWS DMS: Op) holds the marker value (hoodie.payload.delete.marker; 'D'),
 * as Hudi's DeleteContext decides it.
 */
#ifndef HOODIE_MERGE_RECORD_MERGE_H
#define HOODIE_MERGE_RECORD_MERGE_H

#include <stdint.h>
#include <stddef.h>
#include "model/batch.h"
#include "table/config.h" /* hoodie_merge_mode */


typedef enum hoodie_ordering_kind {
    HOODIE_ORD_NONE = 0,   /* absent or null */
    HOODIE_ORD_INT,        /* boolean, int, long, date, time, timestamp: as int64 */
    HOODIE_ORD_DOUBLE,     /* float, double */
    HOODIE_ORD_BYTES,      /* string, bytes: unsigned bytewise (Java String.compareTo for BMP text) */
    HOODIE_ORD_DECIMAL     /* 128-bit unscaled with a scale */
} hoodie_ordering_kind;

/** An ordering (precombine) value. BYTES borrow their bytes from the batch or block they came from. */
typedef struct hoodie_ordering {
    hoodie_ordering_kind kind;
    int32_t scale;           /* DECIMAL */
    int64_t i;               /* INT; DECIMAL high 64 bits (signed) */
    uint64_t lo;             /* DECIMAL low 64 bits */
    double d;                /* DOUBLE */
    const uint8_t *bytes;    /* BYTES */
    size_t len;
} hoodie_ordering;

/** At most this many ordering fields (table version 9 orders records by several, compared in turn). */
#define HOODIE_ORDERING_FIELDS_MAX 4

/** One version of a record. */
typedef struct hoodie_merge_version {
    int is_delete;
    hoodie_ordering ord;          /* the (first) ordering field's value */
    /* further ordering fields, compared in turn when the ones before tie (Hudi's ArrayComparable): columns
     * more_cols[0..n_more) of row more_row of more_batch, read only on a tie */
    int n_more;
    const int *more_cols;
    const hoodie_batch *more_batch;
    int64_t more_row;
} hoodie_merge_version;

/** A table's custom delete marker, resolved against one schema: the record is a delete when column `col` renders
 *  as `value` (strings bytewise, integers in decimal, booleans as true/false, as Java's toString()). */
typedef struct hoodie_delete_marker {
    int col;              /* column of the batches it is applied to; -1: the column is absent (nothing is marked) */
    const char *value;
    size_t len;
    int nocase;           /* ASCII case ignored (Debezium's 'd', compared with equalsIgnoreCase) */
} hoodie_delete_marker;

/** The table's marker resolved against `schema` into *m: col -1 when there is none or `schema` lacks its column. */
void hoodie_delete_marker_of(const hoodie_table_config *c, const hoodie_field *schema, hoodie_delete_marker *m);
/** 1 if row `row` of batch `b` (shaped like the schema m was resolved against) holds the marker value (m may be
 *  NULL: 0). */
int hoodie_delete_marked(const hoodie_delete_marker *m, const hoodie_batch *b, int64_t row);

/** The pair of modes that a table's merge configuration maps to. */
typedef struct hoodie_merge_policy {
    hoodie_merge_mode log_fold;   /* log record against an earlier log record */
    hoodie_merge_mode base;       /* (folded) log record against the base record */
    int seq_ordering;             /* MySqlDebeziumAvroPayload: string ordering values "<file>.<pos>" order as the
                                   * two numbers (hoodie_ordering_seq) */
    int toast_fill;               /* PostgresDebeziumAvroPayload: a log record that replaces the base record keeps
                                   * the base record's value where it holds HOODIE_DEBEZIUM_UNAVAILABLE */
    hoodie_partial_update partial;/* version 9, and legacy payloads of partial updates: in every merge (log records
                                   * folded, then against the base record) the winner takes the loser's values
                                   * where its own are null (IGNORE_DEFAULTS) or `unavailable` (FILL_UNAVAILABLE);
                                   * nothing when either is a delete */
    const char *unavailable;
    int partial_oneway;           /* OverwriteNonDefaultsWithLatestAvroPayload (below version 9): only the record
                                   * replacing the stored one is filled, log records fold whole */
    int disorder_meta;            /* PartialUpdateAvroPayload (below version 9): a record written before the other
                                   * that wins a merge takes the later record's meta fields where it has them
                                   * (mergeDisorderRecordsWithMetadata): the merged record is of the later commit */
} hoodie_merge_policy;

/**
 * Which values a merged record takes from the other record (policy.toast_fill, policy.partial), for batches of one
 * schema: cols[c] is 1 for a data column (not a _hoodie_ one) whose value can be lacking: null (IGNORE_DEFAULTS:
 * Spark's columns default to null) or, in string and bytes columns, the `unavailable` marker (FILL_UNAVAILABLE,
 * Postgres's TOASTed values). both: partial updates, filled in every merge whichever record wins (the Postgres
 * payload and OverwriteNonDefaultsWithLatestAvroPayload: a record replacing the stored one only). cols is NULL when nothing is filled.
 */
typedef struct hoodie_fill_spec {
    uint8_t *cols;
    uint8_t *meta;             /* policy.disorder_meta: 1 for the _hoodie_ meta columns, else NULL */
    int both;
    const char *unavailable;   /* NULL: a null is lacking */
    size_t unavailable_len;
    /* Values a record does not carry at all (partial log blocks, IS_PARTIAL: their schema leaves columns out; Hudi
     * keeps the other record's values there, KEEP_VALUES): set by the merge that knows its records' blocks.
     * absent_of(absent_ctx, b, r) gives row r of b's absent columns, one byte each (1: absent), or NULL when it
     * carries them all; an absent value is lacking in any column, whatever it holds. NULL: none is absent. */
    const uint8_t *(*absent_of)(void *absent_ctx, const hoodie_batch *b, int64_t r);
    void *absent_ctx;
} hoodie_fill_spec;

/** The spec of `policy` over batches of `schema` (a root STRUCT); dispose with hoodie_fill_spec_dispose. */
hoodie_status hoodie_fill_spec_init(hoodie_fill_spec *s, const hoodie_merge_policy *policy, const hoodie_field *schema);
void hoodie_fill_spec_dispose(hoodie_fill_spec *s);
/** 1 if the record at row r of b lacks its value of column c (0 when s->cols and s->absent_of are NULL). */
int hoodie_fill_lacks(const hoodie_fill_spec *s, const hoodie_batch *b, int64_t r, size_t c);
/**
 * 1 if the record at row wr of wb lacks a value that the one at row lr of lb (same schema) has, or, when the
 * winner was written before the loser (`disorder`) and s->meta, the loser has meta fields to give.
 */
int hoodie_fill_wanted(const hoodie_fill_spec *s, const hoodie_batch *wb, int64_t wr, const hoodie_batch *lb, int64_t lr,
                       int disorder);
/** Append to dst (same schema; dst may be wb or lb) the record at row wr of wb with row lr of lb's values where it
 *  lacks its own, and with `disorder` and s->meta lb's meta fields where it has them; column skip_col (or -1) is
 *  left out (its array stays shorter); *row: the new row of dst. */
hoodie_status hoodie_fill_append(const hoodie_fill_spec *s, hoodie_batch *dst, const hoodie_batch *wb, int64_t wr,
                                 const hoodie_batch *lb, int64_t lr, int disorder, int skip_col, int64_t *row);
/** The absent columns (s->absent_of) of the record hoodie_fill_append makes of (wb, wr) and (lb, lr) into
 *  mask[0..n_children): those the winner lacks and the loser does not carry either. 1 if there is one. */
int hoodie_fill_absent_after(const hoodie_fill_spec *s, const hoodie_batch *wb, int64_t wr, const hoodie_batch *lb,
                             int64_t lr, uint8_t *mask);

/** The value Debezium's Postgres connector sends for a TOASTed column it did not read. */
#define HOODIE_DEBEZIUM_UNAVAILABLE "__debezium_unavailable_value"

/** A string ordering value "<n>.<m>" (decimal numbers) made a DECIMAL ordering (n, m) comparing as the pair; any
 *  other value is left as it is. */
void hoodie_ordering_seq(hoodie_ordering *o);

/**
 * The merge policy of a table, as the snapshot reader and the services both apply it: event-time ordering throughout
 * for EVENT_TIME_ORDERING; on v6 tables with commit-time ordering (OverwriteWithLatestAvroPayload) and on tables of
 * AWSDmsAvroPayload, preCombine keeps the larger ordering value among log records while the merge with the stored
 * record takes the newer one.
 */
hoodie_merge_policy hoodie_merge_policy_of(const hoodie_table_config *c);

/**
 * Compare two ordering values: <0, 0, >0; *comparable is set to 0 when their kinds cannot be compared
 * (NONE compares below everything else).
 */
int hoodie_ordering_compare(const hoodie_ordering *a, const hoodie_ordering *b, int *comparable);
/** An absent ordering value, or a numeric zero: a delete carrying it is a "natural order" delete. */
int hoodie_ordering_is_natural(const hoodie_ordering *o);
/** 1 if `newer` replaces `older` under `mode`. */
int hoodie_merge_newer_wins(hoodie_merge_mode mode, const hoodie_merge_version *older,
                            const hoodie_merge_version *newer);

/** The ordering value of a cell (a borrowed view: BYTES point into the array). Null gives HOODIE_ORD_NONE. */
void hoodie_ordering_of(hoodie_ordering *out, const hoodie_field *f, const hoodie_array *a, int64_t row);

#endif
