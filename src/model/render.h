/*
 * Text rendering of batches: CSV, JSON lines, and an aligned terminal table.
 *
 * Cell text (CSV and table) follows DuckDB's VARCHAR cast with TimeZone UTC, which is how the project's expected
 * CSVs were produced:
 *   BOOL true/false; integers in decimal; FLOAT/DOUBLE the shortest round-trip digits, Python-repr layout
 *   ("1.0", "0.1", "1e+20", "1e-05", "nan", "inf", "-inf"); DECIMAL exact with `scale` digits ("12345.67890");
 *   STRING raw; BINARY and FIXED_BINARY upper-case hex without prefix ("62696E" - the fixtures' convention);
 *   FIXED_BINARY with ext UUID as 8-4-4-4-12 lower-case hex; DATE32 "YYYY-MM-DD" (years <= 0 as "0045-03-15 (BC)");
 *   TIME "HH:MM:SS[.f]" and TIMESTAMP "YYYY-MM-DD HH:MM:SS[.f]" with the fraction's trailing zeros dropped, and
 *   "+00" appended to UTC-adjusted timestamps; STRUCT {'f': v, ...}; LIST [a, b]; MAP {k=v, ...}. Inside nested
 *   values NULL is "NULL" and leaf texts (strings, but also times and timestamps) are quoted 'like this' (with \'
 *   escapes) when they are empty, "NULL" (any case), have leading/trailing whitespace or contain one of
 *   , ' " : = { } [ ] ( )
 *
 * CSV: a header line of column names (optional), RFC 4180 quoting (a field containing , " CR or LF is quoted and
 * its quotes doubled), "\n" line ends, top-level NULL as an empty field.
 *
 * JSON lines: one object per row, keys in column order. null; BOOL true/false; integers (int64/uint64 included)
 * and DECIMAL as exact JSON numbers (no float rounding); FLOAT/DOUBLE as shortest round-trip numbers, non-finite
 * values as the strings "nan", "inf", "-inf"; STRING as JSON strings (invalid UTF-8 bytes become U+FFFD); BINARY and
 * FIXED_BINARY as standard base64 strings (UUIDs as their text); DATE/TIME/TIMESTAMP as the strings above; STRUCT as
 * objects; LIST as arrays; MAP as an object when the key type is STRING, else an array of {"key":..,"value":..}.
 *
 * Table: DuckDB-like box drawing (UTF-8), a header with names and types, numbers right-aligned, cells longer
 * than 40 characters cut with "…", at most `max_rows` rows (first half and last half, with a "·" row between) and
 * a footer "N rows" when rows were left out.
 */
#ifndef HOODIE_MODEL_RENDER_H
#define HOODIE_MODEL_RENDER_H

#include <stdio.h>
#include "model/batch.h"
#include "util/buf.h"

typedef enum hoodie_render_mode {
    HOODIE_RENDER_CSV = 0,    /* DuckDB text; a top-level null renders as "" */
    HOODIE_RENDER_JSON = 1,   /* a JSON value */
    HOODIE_RENDER_NESTED = 2  /* DuckDB text inside a nested value (strings quoted, null as NULL) */
} hoodie_render_mode;

/** Append the text of one cell. */
hoodie_status hoodie_render_cell(hoodie_buf *out, const hoodie_field *f, const hoodie_array *a, int64_t row,
                                 hoodie_render_mode mode);

/** Append the batch as CSV (the header line first when `header`). */
hoodie_status hoodie_render_csv(hoodie_buf *out, const hoodie_batch *b, int header);
/** Append the batch as JSON lines. */
hoodie_status hoodie_render_jsonl(hoodie_buf *out, const hoodie_batch *b);
/** Append the batch as a terminal table showing at most max_rows rows (<= 0: all). */
hoodie_status hoodie_render_table(hoodie_buf *out, const hoodie_batch *b, int64_t max_rows);

/** The same, written to a FILE* (HOODIE_EIO if writing fails). */
hoodie_status hoodie_render_csv_file(FILE *fp, const hoodie_batch *b, int header);
hoodie_status hoodie_render_jsonl_file(FILE *fp, const hoodie_batch *b);
hoodie_status hoodie_render_table_file(FILE *fp, const hoodie_batch *b, int64_t max_rows);

#endif
