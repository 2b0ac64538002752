/* The hoodie command-line tool: shared declarations. The CLI uses only the public API (include/hoodie). */
#ifndef HOODIE_CLI_H
#define HOODIE_CLI_H

#include "hoodie/hoodie.h"

/* Exit codes. */
enum { CLI_OK = 0, CLI_ERROR = 1, CLI_USAGE = 2, CLI_CORRUPT = 3, CLI_CONFLICT = 4 };

typedef int (*cli_cmd_fn)(int argc, char **argv);

/* Each command: argv[0] is the command name. */
int cmd_parquet(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_fsview(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_read(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_write(int argc, char **argv);
int cmd_create(int argc, char **argv);
int cmd_compact(int argc, char **argv);
int cmd_logcompact(int argc, char **argv);
int cmd_cluster(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_rollback(int argc, char **argv);
int cmd_savepoint(int argc, char **argv);
int cmd_restore(int argc, char **argv);

/** Table services run after a write (hoodie write --compact-every N --clean --archive); cmd_services.c. */
int cli_inline_services(const char *table, int64_t compact_every, int clean, int archive);

/** Print the last library error to stderr and map the status to an exit code. */
int cli_fail(hoodie_status rc, const char *context);
/** Print a usage error to stderr; returns CLI_USAGE. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
