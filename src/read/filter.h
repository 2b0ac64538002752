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
 * Decide on a partition: `column` has the value `value` (text from the partition path) for every row of it.
 * Returns 0 if some predicate on that column is certainly false, 1 otherwise. Numbers compare numerically when
 * both sides are numbers, else as text.
 */
int hoodie_pred_may_match_text(const hoodie_pred *p, const char *value);

#endif
