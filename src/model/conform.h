/*
 * Reshaping batches read from files (base files, log blocks) to the schema a query returns: columns matched by
 * name, in the target's order; columns the file lacks become nulls (schema evolution: added nullable columns);
 * widening promotions (int8/16/32 -> int64, int -> float/double, float -> double, date -> timestamp is not one)
 * are applied. Equal types move without copying.
 */
#ifndef HOODIE_MODEL_CONFORM_H
#define HOODIE_MODEL_CONFORM_H

#include "model/batch.h"

/**
 * Build `out` (initialised here, schema `target`) from `src`, consuming src's arrays where types match (src is
 * left with empty or moved-out columns; dispose it as usual).
 * @return HOODIE_OK; HOODIE_EUNSUPPORTED when a column's type cannot be read as the target's (message names it);
 *         HOODIE_EINVAL when a missing column is not nullable in the target.
 */
hoodie_status hoodie_conform_batch(hoodie_batch *out, const hoodie_field *target, hoodie_batch *src);

#endif
