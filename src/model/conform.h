/*
 * Reshaping batches read from files (base files, log blocks) to the schema a query returns: columns matched by
 * name, in the target's order; columns the file lacks become nulls (schema evolution: added nullable columns);
 * widening promotions (int8/16/32 -> int64, int -> float/double, float -> double, date -> timestamp is not one)
 * and the conversions of Hudi's type changes (hoodie_conform_append) are applied. Equal types move without copying.
 */
#ifndef HOODIE_MODEL_CONFORM_H
#define HOODIE_MODEL_CONFORM_H

#include "model/batch.h"
#include "util/buf.h"

/**
 * Build `out` (initialised here, schema `target`) from `src`, consuming src's arrays where types match (src is
 * left with empty or moved-out columns; dispose it as usual).
 * @return HOODIE_OK; HOODIE_EUNSUPPORTED when a column's type cannot be read as the target's (message names it);
 *         HOODIE_EINVAL when a missing column is not nullable in the target.
 */
hoodie_status hoodie_conform_batch(hoodie_batch *out, const hoodie_field *target, hoodie_batch *src);

/**
 * 1 if values of field `from` are read as field `to` through the conversion of a schema change (Hudi's
 * SchemaChangeUtils.isTypeUpdateAllow): numbers, decimals and dates to text; integers, floating point numbers,
 * text and decimals of another scale to a decimal; text to a date. 0 for equal types and plain widenings.
 */
int hoodie_conform_is_retype(const hoodie_field *from, const hoodie_field *to);

/**
 * Append the value of row r of `src` (field sf; not null) to `dst` as field tf: numbers and dates as Java's
 * String.valueOf writes them, decimals as BigDecimal.toString; numbers to a decimal half up at its scale (floating
 * point through their Java text); text to a decimal or a date as Spark's cast reads it; a value that does not fit
 * or does not parse becomes a null. `tmp` is scratch space. Plain widenings (int to long, to double) too.
 */
hoodie_status hoodie_conform_append(hoodie_array *dst, const hoodie_field *tf, const hoodie_array *src,
                                   const hoodie_field *sf, int64_t r, hoodie_buf *tmp);

#endif
