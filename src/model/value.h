/*
 * Comparing, hashing and keying single cells (array, row) of hoodie arrays.
 *
 * Total order (hoodie_value_compare): null sorts first; BOOL false < true; integers, dates, times and timestamps
 * numerically (unsigned types as unsigned); FLOAT16/FLOAT/DOUBLE numerically with -0.0 == 0.0 and every NaN equal
 * to every other NaN and greater than everything else (+inf included); STRING/BINARY/FIXED_BINARY bytewise
 * unsigned, a proper prefix first; DECIMAL numerically on the unscaled 128-bit value (both sides have the field's
 * scale); STRUCT field by field; LIST element by element, then the shorter first; MAP entry by entry (key, then
 * value) in stored order, then the shorter first. NULL-typed cells are all equal.
 * hoodie_value_equal is compare == 0, and hoodie_value_hash agrees with it (equal cells hash equal).
 */
#ifndef HOODIE_MODEL_VALUE_H
#define HOODIE_MODEL_VALUE_H

#include "model/batch.h"
#include "util/buf.h"

/** <0, 0, >0. Both arrays are shaped like `f`. */
int hoodie_value_compare(const hoodie_field *f, const hoodie_array *a, int64_t ra, const hoodie_array *b,
                         int64_t rb);
int hoodie_value_equal(const hoodie_field *f, const hoodie_array *a, int64_t ra, const hoodie_array *b, int64_t rb);
uint64_t hoodie_value_hash(const hoodie_field *f, const hoodie_array *a, int64_t row, uint64_t seed);
/** Same length and every row equal. */
int hoodie_array_equal(const hoodie_field *f, const hoodie_array *a, const hoodie_array *b);
/** Same schema (hoodie_field_equal) and every row equal. */
int hoodie_batch_equal(const hoodie_batch *a, const hoodie_batch *b);

/**
 * Append the record-key text of a cell to `out`, as Hudi's key generators render field values (Java's
 * String.valueOf of the Avro value, with Hudi's logical-type conversions):
 *   null -> "__null__", empty string -> "__empty__" (Hudi's KeyGenUtils placeholders);
 *   integers in decimal; BOOL "true"/"false"; STRING and BINARY raw bytes (no escaping);
 *   FLOAT/DOUBLE as Java's Float/Double.toString ("1.0", "1.0E10", "1.0E-5", "NaN", "Infinity");
 *   DECIMAL as Java's BigDecimal.toString ("123.45", "-0.01", "1E-7" for small adjusted exponents);
 *   DATE32 "YYYY-MM-DD" (LocalDate.toString); TIME and TIMESTAMP as the raw integer in their unit (the Avro long,
 *   as Hudi renders them unless consistent logical timestamps are enabled); FIXED_BINARY raw bytes;
 *   nested values as the CSV rendering ({'f': v}, [a, b], {k=v}).
 */
hoodie_status hoodie_value_to_key(hoodie_buf *out, const hoodie_field *f, const hoodie_array *a, int64_t row);

/* Helpers shared with render.c */

/** Civil date of a day count since 1970-01-01 (proleptic Gregorian). */
void hoodie_days_to_civil(int64_t days, int64_t *y, unsigned *m, unsigned *d);
/** 1 if month m (1-12) of year y has a day d (proleptic Gregorian: February 29 in leap years). */
int hoodie_civil_date_valid(int64_t y, int64_t m, int64_t d);
/** Days since 1970-01-01 of a civil date (proleptic Gregorian; m 1-12, d 1-31). */
int64_t hoodie_days_from_civil(int64_t y, unsigned m, unsigned d);
/** Unscaled 128-bit decimal (16 bytes LE) as plain text with `scale` digits after the point ("-1.50"). */
hoodie_status hoodie_decimal_to_text(hoodie_buf *out, const uint8_t le16[16], int32_t scale);
/** Shortest round-trip text of a double in the style of Python's repr / DuckDB ("1.0", "1e+20", "nan"). */
hoodie_status hoodie_double_to_text(hoodie_buf *out, double v, int is_float);
/** IEEE half to float. */
float hoodie_half_to_float(uint16_t h);

#endif
