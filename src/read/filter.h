/*
 * Row filters: a conjunction of simple predicates on columns, parsed from text
 *
 *   filter := pred ( AND pred )*
 *   pred   := column op literal | column IN ( literal, ... ) | column IS [NOT] NULL
 *   op     := = | == | != | <> | < | <= | > | >=
 *   literal:= number | 'text' ('' for a quote) | true | false | null
 *   column := a name, or a dotted path through structs (a.b); "quoted names" too
 *
 * Predicates are evaluated on batches (rows whose value compares false or null are dropped, as SQL does), on
 * partition values (for pruning whole partitions), and turned into Parquet row-group predicates by the scanner.
 */
#ifndef HOODIE_READ_FILTER_H
#define HOODIE_READ_FILTER_H

#include "format/parquet/reader.h"
#include "model/batch.h"
#include "util/arena.h"

typedef enum hoodie_filter_op {
    HOODIE_F_EQ, HOODIE_F_NE, HOODIE_F_LT, HOODIE_F_LE, HOODIE_F_GT, HOODIE_F_GE,
    HOODIE_F_IN, HOODIE_F_IS_NULL, HOODIE_F_IS_NOT_NULL
} hoodie_filter_op;

typedef enum hoodie_lit_kind { HOODIE_LIT_NULL, HOODIE_LIT_NUMBER, HOODIE_LIT_STRING, HOODIE_LIT_BOOL } hoodie_lit_kind;

typedef struct hoodie_literal {
    hoodie_lit_kind kind;
    const char *text;     /* arena: the literal as written (unquoted for strings) */
    size_t len;
    double num;           /* NUMBER */
    int is_integer;       /* NUMBER without fraction or exponent that fits int64 */
    int64_t i;
    int b;                /* BOOL */
} hoodie_literal;

typedef struct hoodie_pred {
    const char *column;   /* arena */
    hoodie_filter_op op;
    hoodie_literal *values; /* one, or the IN list */
    size_t n_values;
} hoodie_pred;

typedef struct hoodie_filter {
    hoodie_pred *preds;
    size_t count;
    hoodie_arena *arena;
} hoodie_filter;

/** Parse `text`. HOODIE_EINVAL with the position of the problem. */
hoodie_status hoodie_filter_parse(hoodie_filter *out, const char *text);
void hoodie_filter_dispose(hoodie_filter *f);

/**
 * Evaluate the filter on every row of `b`; keep[i] = 1 if row i passes. Predicates on columns the batch lacks
 * fail with HOODIE_EINVAL naming the column.
 */
hoodie_status hoodie_filter_eval(const hoodie_filter *f, const hoodie_batch *b, uint8_t *keep);

/**
 * Decide on a partition: the column p names (in the table schema `root`) has, for every row of the partition,
 * the value the partition path gives as `value` (its text as the key generator wrote it, NULL or
 * __HIVE_DEFAULT_PARTITION__ for nulls and, for strings, empty values). The text is read back as a value of
 * the column's type and compared as hoodie_filter_eval compares rows. Returns 0 only if no row of the partition
 * can pass `p`; 1 when some may, or when that cannot be told (the column not in `root`, a type or a text that
 * does not read back exactly).
 */
int hoodie_pred_may_match_partition(const hoodie_pred *p, const hoodie_field *root, const char *value);

/** Most values of an IN list that a statistics predicate takes (hoodie_pred_to_pq). */
#define HOODIE_PRED_PQ_MAX 16
/**
 * `p` as a predicate on the statistics of a Parquet column of type `t` (row-group pruning), its values in `vals`
 * (room for HOODIE_PRED_PQ_MAX, borrowed by *out). 0 when it cannot be expressed (!=, a literal of another kind
 * than the column's, a longer IN list): such a predicate prunes nothing.
 */
int hoodie_pred_to_pq(const hoodie_pred *p, const hoodie_type *t, hoodie_pq_value *vals, hoodie_pq_pred *out);

/**
 * 1 if the statistics of a file's column of type `file_type` may prune for predicates on column `column` of the
 * table schema `root`: its type is the file's, or both are numbers a reader converts exactly (int to long or to a
 * decimal, int or float to double). 0 when a schema change made the column a string, a date or a decimal of a
 * float (the file's order, or its values, are not the table's: 10 < 9 as text, 0.125 read as 0.13).
 */
int hoodie_pred_stats_usable(const hoodie_field *root, const char *column, const hoodie_type *file_type);

#endif
