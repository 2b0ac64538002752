/* The hoodie command-line tool: shared declarations. The CLI uses only the public API (include/hoodie). */
#ifndef HOODIE_CLI_H
#define HOODIE_CLI_H

#include "hoodie/hoodie.h"

/* Exit codes. */
enum { CLI_OK = 0, CLI_ERROR = 1, CLI_USAGE = 2, CLI_CORRUPT = 3, CLI_CONFLICT = 4, CLI_REFUSED = 5 };

typedef int (*cli_cmd_fn)(int argc, char **argv);

/* Each command: argv[0] is the command name. */
int cmd_parquet(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_fsview(int argc, char **argv);
int cmd_metadata(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_read(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_write(int argc, char **argv);
int cmd_create(int argc, char **argv);
int cmd_alter(int argc, char **argv);
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

/** Hudi's pre-commit validators (validate.c): SQL queries checked before a write completes. */
enum { CLI_VALIDATE_EQUALITY = 0, CLI_VALIDATE_INEQUALITY = 1, CLI_VALIDATE_SINGLE = 2, CLI_VALIDATE_KINDS = 3 };
/* A --props setting that is not a validator's: -1 when the command does not read `key`, else CLI_OK or an exit
 * code (a bad value; `where` is "FILE:LINE" for the message). */
typedef int (*cli_prop_fn)(void *ctx, const char *key, const char *value, const char *where);
typedef struct cli_validators {
    char **q[CLI_VALIDATE_KINDS]; /* queries of each kind (single value: "query#expected") */
    size_t n[CLI_VALIDATE_KINDS];
    cli_prop_fn other;            /* the command's own --props settings (NULL: none) */
    void *other_ctx;
    int warn_only;                /* hoodie.precommit.validators.failure.policy=WARN_LOG: warn, commit anyway */
} cli_validators;
/** --validate-equality Q, --validate-inequality Q, --validate-single-value 'Q#R', --props FILE: -1 when `opt` is
 *  none of them, else CLI_OK or an exit code; *consumed is 1 when `val` was taken. */
int cli_validators_option(cli_validators *v, const char *opt, const char *val, int *consumed);
/** Add the ';'-separated queries of a kind; `from` names where they came from in errors. */
int cli_validators_add(cli_validators *v, int kind, const char *queries, const char *from);
/** The validators a Java properties file configures (hoodie.precommit.validators and their query keys); its other
 *  keys go to v->other, and those nobody reads are warned of. */
int cli_validators_load_props(cli_validators *v, const char *path);
int cli_validators_any(const cli_validators *v);
void cli_validators_dispose(cli_validators *v);
/** hoodie_write_opts.pre_commit for a cli_validators (ctx). */
hoodie_status cli_validate_precommit(void *ctx, hoodie_precommit *pc);
/** The validator options' help lines. */
#define CLI_VALIDATE_USAGE \
    "  Pre-commit validators (Hudi's hoodie.precommit.validators; each refuses the commit when it fails, the\n" \
    "  write is rolled back, exit 5): --validate-single-value 'QUERY#EXPECTED' (the first value of the query's\n" \
    "  result after the write), --validate-equality QUERY (the same rows before and after), --validate-inequality\n" \
    "  QUERY (other rows); each repeatable, ';' separates queries, <TABLE_NAME> names the table (the partitions\n" \
    "  the write touched). --validate-policy warn_log only warns of a failure and commits (Hudi's\n" \
    "  hoodie.precommit.validators.failure.policy; default fail). --props FILE reads them from a Java properties\n" \
    "  file with Hudi's keys.\n"

/** Print the last library error to stderr and map the status to an exit code. */
int cli_fail(hoodie_status rc, const char *context);
/** A Parquet codec name (any case: snappy, zstd, gzip, lz4_raw or lz4, uncompressed or none; Hudi's
 *  hoodie.parquet.compression.codec values): 0 if v is NULL or unknown. */
int cli_parse_codec(const char *v, hoodie_parquet_codec *out);
/** --index: bloom, simple, global_bloom, global_simple or record_index (any case) into wo (record_index,
 *  global_bloom); *simple set for the SIMPLE ones. 0 if v is none of them. */
int cli_parse_index(const char *v, hoodie_write_opts *wo, int *simple);
/** --update-partition-path: true (1) or false (-1) into *out; 0 if v is neither. */
int cli_parse_upp(const char *v, int *out);
/** A size in MB (fractions allowed: "0.5"), as bytes; 0 if v is NULL, not a positive number, or above 1e9 MB. */
int cli_parse_mb(const char *v, int64_t *bytes);
/** Print a usage error to stderr; returns CLI_USAGE. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
