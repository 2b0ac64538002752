/*
 * The schema of a write: the table's columns (from its latest commit, or its create schema) evolved by the
 * input's columns. Allowed evolutions: new columns (nullable), int8/16/32 -> int64, int -> float/double,
 * float -> double (hudi-format.md 8.9 and Hudi's schema evolution on write); anything else is refused with a
 * message naming the column. Table columns the input lacks are written as nulls (they must be nullable).
 */
#ifndef HOODIE_WRITE_WSCHEMA_H
#define HOODIE_WRITE_WSCHEMA_H

#include "model/batch.h"

/**
 * `out` = the evolved data schema (a root STRUCT, no meta columns). `table` may be NULL (first write: the input's
 * schema, every column nullable). Meta columns in either are ignored.
 */
hoodie_status hoodie_wschema_evolve(hoodie_field *out, const hoodie_field *table, const hoodie_field *input);

#endif
