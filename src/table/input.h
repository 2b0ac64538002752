/*
 * Input files for the writer: CSV and JSON lines turned into hoodie_batch values of at most N rows.
 *
 *   hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
 *   o.schema = &target;                       (NULL: infer from the first o.infer_rows rows)
 *   hoodie_input *in;
 *   hoodie_input_open(&in, storage, "data.csv", &o);
 *   const hoodie_field *schema = hoodie_input_schema(in);     (root STRUCT, owned by in)
 *   hoodie_batch b;
 *   while ((rc = hoodie_input_next(in, &b)) == HOODIE_OK) { ... hoodie_batch_dispose(&b); }
 *   (rc == HOODIE_ITEROVER at the end)
 *   hoodie_input_free(in);
 *
 * The file is read in large chunks through the storage vtable; parsing works on buffers
 * (hoodie_input_open_buffer) so it can be fuzzed.
 *
 * CSV (RFC 4180)
 *   - a header line is required; columns are matched to the schema by name. Schema columns missing from the file
 *     are null (they must be nullable); file columns missing from the schema are an error (HOODIE_EINVAL) unless
 *     opts.ignore_extra_columns. Duplicate header names are an error.
 *   - records end with LF or CRLF (a CR not followed by LF outside quotes is an error); the last record may lack
 *     its line end. Quoted fields may hold the delimiter, line ends and "" (one quote). A quote inside an unquoted
 *     field, or anything but a delimiter / line end after a closing quote, is an error. A UTF-8 BOM is skipped.
 *   - an empty unquoted field is null; a quoted empty field ("") is the empty string (an error for non-string
 *     columns). Empty lines are skipped, except in a one-column file, where they are null values.
 *   - every record must have as many fields as the header.
 *   - no trimming: " 1" is not an integer.
 *
 * Text values (CSV fields; JSON strings for non-string columns)
 *   BOOL        true / false / 1 / 0, case-insensitive
 *   INT*, UINT* optional sign, decimal digits, range-checked for the column's width
 *   FLOAT*      strtod syntax without hex: 1, -1.5, 1e10, nan, inf, infinity (case-insensitive)
 *   DECIMAL     [sign] digits [. digits], no exponent: exact; at most precision-scale integer digits (leading
 *               zeros not counted) and at most `scale` fraction digits (further digits are an error unless zeros)
 *   DATE32      YYYY-MM-DD, or an integer (days since the epoch)
 *   TIME*       HH:MM:SS[.fraction], or an integer in the column's unit
 *   TIMESTAMP   YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]][Z|+hh|+hhmm|+hh:mm|-...], or an integer (epoch in the
 *               column's unit). With an offset the value is converted to UTC; without, it is taken as is.
 *               Fraction digits beyond the unit must be zeros.
 *   STRING      the text (UTF-8 is not validated)
 *   BINARY, FIXED_BINARY   opts.binary: TEXT (raw bytes of the text), HEX, or BASE64; DEFAULT is TEXT for CSV
 *               and BASE64 for JSON. FIXED_BINARY with the UUID annotation also takes the 36-character form.
 *   STRUCT, LIST, MAP   (CSV only) JSON text, converted as below
 *
 * JSON lines: one object per line (empty lines skipped); duplicate keys are an error.
 *   - top-level and STRUCT fields by name; missing -> null; keys the schema lacks are an error unless
 *     opts.ignore_extra_columns; JSON null -> null (error for non-nullable fields)
 *   - BOOL: true/false; integers: JSON integers (range-checked) or strings (jansson rejects JSON integers beyond
 *     int64, so UINT64 values above INT64_MAX must be strings); floats: numbers or strings;
 *     DECIMAL: strings or integers (exact), or reals (their shortest round-trip text); DATE/TIME/TIMESTAMP:
 *     strings or integers as above; STRING: strings, other values as their compact JSON text;
 *     BINARY: strings decoded per opts.binary; LIST: arrays; MAP: objects (keys converted from their text);
 *     STRUCT: objects.
 *
 * Inference (opts.schema == NULL), from the first opts.infer_rows records; every column is nullable:
 *   CSV, per column, the narrowest type that holds every non-null sampled value:
 *       BOOL (true/false only) | INT64 | DOUBLE | DATE32 | TIMESTAMP[us, UTC] | STRING
 *     - integers widen to DOUBLE (so do integers out of int64 range); BOOL, DATE, TIMESTAMP mixed with anything
 *       else but (DATE with TIMESTAMP -> TIMESTAMP) become STRING; numbers mixed with non-numbers become STRING;
 *     - numbers with a redundant leading zero ("007", "-01.5") are STRING (they are identifiers, not numbers);
 *     - integer epochs are not recognised as timestamps; quoted fields are inferred like unquoted ones, but a
 *       quoted empty field is a string; a column with only nulls is STRING.
 *   JSON: booleans -> BOOL, integers -> INT64, reals (or integers mixed with reals) -> DOUBLE, strings ->
 *     STRING, objects -> STRUCT (fields in first-seen order, merged over rows), arrays -> LIST of the widened
 *     element type (empty or all-null: list<string>); conflicting kinds (e.g. object and number) -> STRING (the
 *     values are then kept as JSON text); fields only ever null -> STRING. Top-level fields are in first-seen
 *     order.
 *   A later row that does not fit the inferred type fails the read like any bad value.
 *
 * Errors: every data error is HOODIE_ECORRUPT and names the file, the line (1-based, physical line of the
 * record's start), for CSV the column (1-based number and name), and what was wrong. A bad row fails the read:
 * nothing is skipped. Non-nullable columns reject nulls.
 *
 * Thread-safety: one handle per thread.
 */
#ifndef HOODIE_TABLE_INPUT_H
#define HOODIE_TABLE_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include "hoodie/sys/storage.h"
#include "model/batch.h"

typedef enum hoodie_input_format {
    HOODIE_INPUT_AUTO = 0,   /**< by extension: .json/.jsonl/.ndjson -> JSONL, anything else CSV */
    HOODIE_INPUT_CSV,
    HOODIE_INPUT_JSONL
} hoodie_input_format;

typedef enum hoodie_input_binary {
    HOODIE_INPUT_BINARY_DEFAULT = 0,  /**< CSV: TEXT; JSON: BASE64 */
    HOODIE_INPUT_BINARY_TEXT,
    HOODIE_INPUT_BINARY_HEX,
    HOODIE_INPUT_BINARY_BASE64
} hoodie_input_binary;

typedef struct hoodie_input_opts {
    hoodie_input_format format;
    const hoodie_field *schema;    /**< root STRUCT target schema (copied); NULL: infer */
    char delimiter;                /**< CSV; 0: ',' */
    int ignore_extra_columns;      /**< file columns / JSON keys the schema lacks are skipped, not an error */
    int64_t batch_rows;            /**< rows per batch; 0: 65536 */
    int64_t infer_rows;            /**< records sampled for inference; 0: 10000 */
    hoodie_input_binary binary;
    size_t chunk_bytes;            /**< read size; 0: 1 MiB (the buffer grows for longer records) */
    int add_new_columns;           /**< with a schema: file columns / JSON keys it lacks are inferred from the
                                        first rows and appended as nullable columns (schema evolution) */
} hoodie_input_opts;
#define HOODIE_INPUT_OPTS_INIT { HOODIE_INPUT_AUTO, NULL, 0, 0, 0, 0, HOODIE_INPUT_BINARY_DEFAULT, 0, 0 }

typedef struct hoodie_input hoodie_input;

/**
 * Open `path` on `storage` (NULL: POSIX), read the CSV header (or infer the schema).
 * @return HOODIE_OK; HOODIE_ENOTFOUND; HOODIE_EIO; HOODIE_ECORRUPT (bad header, or a bad record while inferring);
 *         HOODIE_EINVAL (header does not match the schema, bad options).
 */
hoodie_status hoodie_input_open(hoodie_input **out, const hoodie_storage *storage, const char *path,
                                const hoodie_input_opts *opts);
/** Same on bytes in memory (borrowed: they must outlive the handle). `name` is used in messages and for
 *  HOODIE_INPUT_AUTO. */
hoodie_status hoodie_input_open_buffer(hoodie_input **out, const void *data, size_t len, const char *name,
                                       const hoodie_input_opts *opts);
/** The schema of the batches (the target schema, or the inferred one): owned by `in`. */
const hoodie_field *hoodie_input_schema(const hoodie_input *in);
/** 1 if column c of the schema is one a CSV input's header lacks (its values are all null); 0 otherwise, and for
 *  JSON lines (a record leaves out what it has no value for). */
int hoodie_input_lacks(const hoodie_input *in, size_t c);
/**
 * The next batch (1..batch_rows rows), initialised here; the caller disposes it.
 * @return HOODIE_OK; HOODIE_ITEROVER at the end (out untouched); HOODIE_ECORRUPT on a bad record (the handle is
 *         then poisoned: later calls return HOODIE_ESTATE); HOODIE_EIO; HOODIE_ENOMEM.
 */
hoodie_status hoodie_input_next(hoodie_input *in, hoodie_batch *out);
/** Records consumed so far (data rows, not counting the header). */
int64_t hoodie_input_rows(const hoodie_input *in);
void hoodie_input_free(hoodie_input *in);

/* ---- text conversion (shared with other input paths; exposed for tests) ---- */

/** Parse `text` as a value of `f`'s type and append it to `a` (shaped like f). Scalars and, via JSON text,
 *  nested types. HOODIE_ECORRUPT with a message describing the value on failure. */
hoodie_status hoodie_input__append_text(hoodie_array *a, const hoodie_field *f, const char *text, size_t len,
                                        hoodie_input_binary binary);

#endif
