/*
 * The open table (include/hoodie/table.h): configuration, active timeline, storage, and the derived facts the
 * readers and writers need (replaced file groups as of an instant, the table schema as of an instant).
 */
#ifndef HOODIE_TABLE_TABLE_H
#define HOODIE_TABLE_TABLE_H

#include "hoodie/table.h"
#include "table/commit_meta.h"
#include "table/config.h"
#include "table/evo.h"
#include "table/fsview.h"
#include "table/timeline.h"

struct hoodie_table {
    char *base_path;                 /* malloc, no trailing slash */
    const hoodie_storage *storage;   /* borrowed (or the POSIX singleton) */
    hoodie_table_config *cfg;
    hoodie_timeline *tl;
    hoodie_evo *evo;                 /* schema-on-read history (table/evo.h); NULL: columns read by name */
    hoodie_status evo_rc;            /* why the history could not be loaded (0: it could), said by reads and writes */
    char *evo_err;                   /* its message, malloc */
    hoodie_mdt_listing *mdt;         /* HOODIE_OPEN_METADATA_TABLE: the files the metadata table records */
    uint32_t open_flags;             /* hoodie_table_open_opts.flags */
};

/** HOODIE_OK, or why the table's schema history could not be loaded (the table opens without it, so that its
 *  timeline can still be listed and its instants rolled back; reading or writing its data fails with this). */
hoodie_status hoodie_table__evo_ok(const hoodie_table *t);

/** File groups replaced by completed replacecommits requested at or before as_of (NULL: all). */
typedef struct hoodie_replaced_set {
    const char **partitions;   /* parallel arrays, malloc */
    const char **file_ids;
    size_t count;
    hoodie_commit_meta **metas; /* keeps the strings alive */
    size_t meta_count;
} hoodie_replaced_set;

hoodie_status hoodie_table__replaced(const hoodie_table *t, const char *as_of, hoodie_replaced_set *out);
void hoodie_replaced_set_dispose(hoodie_replaced_set *r);

/** Decode the commit metadata of a completed write instant. */
hoodie_status hoodie_table__commit_meta(const hoodie_table *t, const hoodie_instant *in, hoodie_commit_meta **out);

/**
 * The table's schema as of an instant (NULL: the latest) as a STRUCT field (`out` initialised here), as written in
 * the timeline: with the meta columns when the Avro schema has them. HOODIE_ENOTFOUND as hoodie_table__schema.
 */
hoodie_status hoodie_table__schema_field(const hoodie_table *t, const char *as_of, hoodie_field *out);

/**
 * The table's Avro schema (JSON text, malloc'ed) as of an instant: the latest completed write instant's
 * extraMetadata.schema, else hoodie.table.create.schema. HOODIE_ENOTFOUND when neither exists (the caller may
 * then fall back to a base file's parquet.avro.schema).
 */
hoodie_status hoodie_table__schema(const hoodie_table *t, const char *as_of, char **out);

/** Build the file-system view as of an instant, replaced file groups dropped. */
hoodie_status hoodie_table__fsview(const hoodie_table *t, const char *as_of,
                                   int (*partition_filter)(void *ctx, const char *partition), void *filter_ctx,
                                   hoodie_fsview **out);

#endif
