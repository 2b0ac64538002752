/*
 * SQL over Hudi tables: the SQLite virtual table module "hoodie".
 *
 *   CREATE VIRTUAL TABLE trips USING hoodie('/data/trips' [, 'query=snapshot|read_optimized|incremental']
 *                                            [, 'as_of=T'] [, 'from=T'] [, 'to=T']);
 *   SELECT city, count(*) FROM trips WHERE fare > 20 GROUP BY city;
 *   SELECT * FROM trips('20240301120000000');              -- time travel: the hidden column _hoodie_as_of
 *   SELECT * FROM trips(NULL, '20240301120000000');        -- incremental: _hoodie_from (and _hoodie_to)
 *
 * Columns are the table's (meta columns first), typed INTEGER (booleans and integers), REAL (floating point,
 * decimals of precision 15 or less), TEXT (strings; dates 'YYYY-MM-DD', times and timestamps
 * 'YYYY-MM-DD HH:MM:SS.ffffff' in the column's unit; wider decimals exactly; structs, lists and maps as JSON)
 * and BLOB (binary). Each query reopens the table, so it sees the commits completed before it started.
 *
 * Pushed down: the projection; comparisons (=, <>, <, <=, >, >=, IN, IS [NOT] NULL) of integer, floating point,
 * boolean and string columns with values of the same kind (strings under the BINARY collation) become the
 * scan's filter (partition pruning, column statistics, then rows); `_hoodie_record_key = ...` or `IN (...)` on a
 * snapshot becomes a point lookup (bloom filters, key ranges). SQLite evaluates every constraint again, so a
 * pushed filter only saves work and never changes a result.
 *
 * Writes (snapshot tables without as_of/from/to): INSERT upserts (Hudi's upsert: a row whose record key exists
 * replaces it unless its ordering value is older), UPDATE upserts the new versions (it may not change a record-key or
 * partition field, nor a meta column), DELETE deletes by record key (the table is keyed by _hoodie_record_key, WITHOUT
 * ROWID). Changes are written at COMMIT (of the statement, or of the transaction) as one Hudi commit: an upsert, a
 * delete, or an upsert whose deleted rows are marked (hoodie_write_opts.delete_column), all of it or none. The rows
 * of one key combine by ordering value as in one Hudi upsert (a delete carries the deleted version's). A read of the table after changes that
 * wait for COMMIT is refused (it would not see them), and so is an UPDATE or DELETE whose rows are selected by
 * _hoodie_as_of, _hoodie_from or _hoodie_to (it would write another version's rows as current).
 *
 * The module uses only the public hoodie API.
 */
#ifndef HOODIE_SQLITE_H
#define HOODIE_SQLITE_H

#ifdef HOODIE_SQLITE_LOADABLE
#include <sqlite3ext.h>
#else
#include <sqlite3.h>
#endif

#include "hoodie/sys/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Register the module "hoodie" on `db`. SQLITE_OK or an SQLite error code. */
int hoodie_sqlite_register(sqlite3 *db);
/**
 * Register the same module as `name`, its tables read through `storage` (borrowed: it must outlive their use) and
 * read-only: e.g. the view of a table as a pending write leaves it (hoodie_precommit.after).
 */
int hoodie_sqlite_register_storage(sqlite3 *db, const char *name, const hoodie_storage *storage);

#ifdef __cplusplus
}
#endif
#endif
