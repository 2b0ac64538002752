/*
 * Table configuration: .hoodie/hoodie.properties (hudi-format.md §3), loaded, checksum-verified and typed.
 *
 * Memory: a hoodie_table_config owns everything it points to (its own arena and props); strings and lists are
 * valid until hoodie_table_config_free(). Thread-safety: immutable after load, so shareable for reading.
 */
#ifndef HOODIE_TABLE_CONFIG_H
#define HOODIE_TABLE_CONFIG_H

#include <stdint.h>
#include "hoodie/common.h"
#include "hoodie/sys/storage.h"
#include "format/props.h"
#include "util/arena.h"

typedef enum hoodie_table_type {
    HOODIE_TABLE_COPY_ON_WRITE = 0,
    HOODIE_TABLE_MERGE_ON_READ = 1
} hoodie_table_type;

typedef enum hoodie_merge_mode {
    HOODIE_MERGE_COMMIT_TIME_ORDERING = 0, /* last write wins by timeline/log order */
    HOODIE_MERGE_EVENT_TIME_ORDERING = 1,  /* larger ordering value wins, ties to the later write */
    HOODIE_MERGE_CUSTOM = 2                /* user merger or payload class hoodie cannot apply: no log merges, no
                                            * upserts (copy-on-write tables and read-optimized queries read) */
} hoodie_merge_mode;

/* The Debezium payloads (hudi-format.md 8.x): event-time ordering by a column of Debezium's own, deletes marked by
 * _change_operation_type = 'd'. */
typedef enum hoodie_debezium {
    HOODIE_DEBEZIUM_NONE = 0,
    HOODIE_DEBEZIUM_MYSQL,    /* MySqlDebeziumAvroPayload: _event_seq "<binlog file>.<position>", both as numbers */
    HOODIE_DEBEZIUM_POSTGRES  /* PostgresDebeziumAvroPayload: _event_lsn; TOASTed values keep the stored ones */
} hoodie_debezium;

/** Table version 9's partial updates (hoodie.table.partial.update.mode): the record that wins a merge takes the
 *  other record's value in the columns where its own is null (IGNORE_DEFAULTS), the unavailable marker
 *  (FILL_UNAVAILABLE, string and bytes columns) or that its log block's schema leaves out (KEEP_VALUES; partial
 *  log blocks, IS_PARTIAL, are merged so whatever the mode). */
typedef enum hoodie_partial_update {
    HOODIE_PARTIAL_NONE = 0,
    HOODIE_PARTIAL_IGNORE_DEFAULTS,
    HOODIE_PARTIAL_FILL_UNAVAILABLE,
    HOODIE_PARTIAL_KEEP_VALUES,
    HOODIE_PARTIAL_OTHER          /* a mode hoodie does not know */
} hoodie_partial_update;

typedef enum hoodie_keygen {
    HOODIE_KEYGEN_SIMPLE = 0,
    HOODIE_KEYGEN_COMPLEX,
    HOODIE_KEYGEN_NON_PARTITION,
    HOODIE_KEYGEN_TIMESTAMP,
    HOODIE_KEYGEN_CUSTOM,
    HOODIE_KEYGEN_METADATA, /* HOODIE_TABLE_METADATA: the metadata table */
    HOODIE_KEYGEN_OTHER     /* a class/type hoodie does not know; see keygen_class / keygen_type */
} hoodie_keygen;

/** hoodie.table.cdc.supplemental.logging.mode: what a CDC log record holds besides its operation. */
typedef enum hoodie_cdc_mode {
    HOODIE_CDC_OP_KEY_ONLY = 0,     /* op, record_key */
    HOODIE_CDC_DATA_BEFORE,         /* op, record_key, before */
    HOODIE_CDC_DATA_BEFORE_AFTER    /* op, ts_ms, before, after (the default) */
} hoodie_cdc_mode;

typedef enum hoodie_base_format {
    HOODIE_BASE_PARQUET = 0,
    HOODIE_BASE_ORC,
    HOODIE_BASE_HFILE,
    HOODIE_BASE_LANCE
} hoodie_base_format;

/** A comma-separated list, split and trimmed. */
typedef struct hoodie_str_list {
    const char **items;
    size_t count;
} hoodie_str_list;

typedef struct hoodie_table_config {
    hoodie_arena *arena;
    hoodie_props props;      /* every raw key, in file order */
    const char *path;        /* the file that was loaded (hoodie.properties or its .backup) */

    const char *name;        /* hoodie.table.name (required) */
    const char *database;    /* hoodie.database.name, NULL if absent */
    hoodie_table_type type;  /* hoodie.table.type, default COPY_ON_WRITE */
    int version;             /* hoodie.table.version: 6, 8 or 9 */
    int initial_version;     /* hoodie.table.initial.version, or `version` if absent */
    int timeline_layout_version;     /* 1 (table version 6) or 2 (8, 9) */
    const char *timeline_dir;        /* relative to the base path: ".hoodie" or ".hoodie/timeline" */
    const char *timeline_history_dir;/* layout 2: ".hoodie/timeline/history"; layout 1: NULL */
    const char *archive_dir;         /* ".hoodie/" + hoodie.archivelog.folder (default "archived") */

    hoodie_str_list record_key_fields;     /* hoodie.table.recordkey.fields */
    hoodie_str_list partition_fields;      /* names, with any ":TYPE" suffix removed */
    hoodie_str_list partition_field_types; /* same count: the v8 CUSTOM keygen suffix ("SIMPLE"...) or NULL */
    hoodie_str_list ordering_fields;       /* hoodie.table.ordering.fields, else hoodie.table.precombine.field */

    hoodie_keygen keygen;
    int keygen_inferred;      /* 1 if neither class nor type was written and keygen was inferred */
    const char *keygen_class; /* hoodie.table.keygenerator.class (v6) or NULL */
    const char *keygen_type;  /* hoodie.table.keygenerator.type (v8+) or NULL */

    int hive_style_partitioning;   /* hoodie.datasource.write.hive_style_partitioning, default false */
    int url_encode_partitions;     /* hoodie.datasource.write.partitionpath.urlencode, default false */
    int drop_partition_columns;    /* hoodie.datasource.write.drop.partition.columns, default false */
    int populate_meta_fields;      /* hoodie.populate.meta.fields, default true */
    hoodie_base_format base_file_format; /* hoodie.table.base.file.format, default PARQUET */
    int timeline_timezone_utc;     /* hoodie.table.timeline.timezone == UTC (default LOCAL) */

    hoodie_merge_mode merge_mode;  /* written, or inferred as in hudi-format.md §8.2/§8.4 */
    int merge_mode_inferred;       /* 1 if hoodie.record.merge.mode was absent */
    const char *payload_class;     /* hoodie.compaction.payload.class or NULL */
    const char *merge_strategy_id; /* hoodie.record.merge.strategy.id / hoodie.compaction.record.merger.strategy */
    int payload_fold;              /* a legacy payload (AWSDmsAvroPayload) merges: log records fold by ordering
                                    * value, the folded record replaces the stored one (hoodie_merge_policy_of) */
    hoodie_debezium debezium;      /* a Debezium payload (merge_mode is then EVENT_TIME_ORDERING) */
    const char *delete_field;      /* custom delete marker (Hudi's hoodie.payload.delete.field / .marker): a record */
    const char *delete_marker;     /* whose delete_field renders as delete_marker is a delete; both NULL: none */
    const char *partial_update;    /* hoodie.table.partial.update.mode (version 9) other than NONE, or NULL: whole
                                    * records merge */
    hoodie_partial_update partial; /* partial_update as hoodie merges it (HOODIE_PARTIAL_OTHER: it does not) */
    hoodie_partial_update legacy_partial; /* below version 9: the partial updates of the payload class */
    int partial_oneway;            /* only the record that replaces the stored one is filled (a legacy payload) */
    const char *unavailable_value; /* FILL_UNAVAILABLE's marker (hoodie.record.merge.property.partial.update.
                                    * unavailable.value) or NULL */

    const char *create_schema;     /* hoodie.table.create.schema or NULL */
    int has_checksum;
    uint32_t checksum;             /* hoodie.table.checksum (verified unless HOODIE_CONFIG_NO_CHECKSUM) */

    int lsm_tree;                  /* hoodie.table.storage.layout=lsm_tree (RFC-103; MERGE_ON_READ only) */
    int bucket_index;              /* hoodie.index.type=BUCKET with the SIMPLE engine */
    int bucket_count;              /* hoodie.bucket.index.num.buckets */
    hoodie_str_list bucket_hash_fields; /* hoodie.bucket.index.hash.field, else the record key fields */

    int cdc;                       /* hoodie.table.cdc.enabled: writes also log their changes (.cdc log files) */
    hoodie_cdc_mode cdc_mode;      /* hoodie.table.cdc.supplemental.logging.mode, default DATA_BEFORE_AFTER */
} hoodie_table_config;

/** A table's partial updates in messages, as printf arguments of "%s%s": "hoodie.table.partial.update.mode=<mode>"
 *  or "payload <class>" (below version 9). */
#define HOODIE_PARTIAL_ARGS(c)                                                                                     \
    ((c)->legacy_partial ? "payload " : "hoodie.table.partial.update.mode="),                                      \
        ((c)->legacy_partial ? (c)->payload_class : (c)->partial_update)

/** A CUSTOM table's merger in messages, as printf arguments of "%s %s": "payload <class>" or "merge strategy <id>". */
#define HOODIE_CUSTOM_MERGER_ARGS(c)                                                                                   \
    ((c)->payload_class ? "payload" : "merge strategy"),                                                               \
        ((c)->payload_class ? (c)->payload_class : (c)->merge_strategy_id ? (c)->merge_strategy_id : "?")

/** Load flags. */
#define HOODIE_CONFIG_NO_CHECKSUM 1u /**< do not verify hoodie.table.checksum */
#define HOODIE_CONFIG_NO_BACKUP   2u /**< do not fall back to hoodie.properties.backup */

/**
 * Load `<base_path>/.hoodie/hoodie.properties` (storage NULL: local POSIX). If it is missing or fails its
 * checksum, `hoodie.properties.backup` is tried, as Java does.
 * @return HOODIE_OK; HOODIE_ENOTFOUND (no table there); HOODIE_ECORRUPT (malformed file, bad value, checksum
 *         mismatch: the message names the file and key); HOODIE_EUNSUPPORTED (table version not 6, 8 or 9).
 */
hoodie_status hoodie_table_config_load(hoodie_table_config **out, const hoodie_storage *s, const char *base_path,
                                       unsigned flags);
/** The same from bytes already read; `what` names the file in messages. */
hoodie_status hoodie_table_config_parse(hoodie_table_config **out, const void *data, size_t len,
                                        const char *what, unsigned flags);
/** NULL is a no-op. */
void hoodie_table_config_free(hoodie_table_config *c);

/** Any raw key (borrowed), or NULL. */
const char *hoodie_table_config_get(const hoodie_table_config *c, const char *key);

/** CRC32 of UTF-8 "<database>.<table>" (database NULL: ""), the value of hoodie.table.checksum. */
uint32_t hoodie_table_config_checksum(const char *database, const char *table);

const char *hoodie_table_type_name(hoodie_table_type t);   /* "COPY_ON_WRITE" / "MERGE_ON_READ" */
const char *hoodie_merge_mode_name(hoodie_merge_mode m);   /* "EVENT_TIME_ORDERING" ... */
/** The column records of a key are ordered by: the Debezium payloads' own, else the first ordering field; NULL:
 *  none. */
const char *hoodie_table_ordering_field(const hoodie_table_config *c);

/** Strategy ids of hudi-format.md §8.4. */
#define HOODIE_MERGE_STRATEGY_COMMIT_TIME "ce9acb64-bde0-424c-9b91-f6ebba25356d"
#define HOODIE_MERGE_STRATEGY_EVENT_TIME  "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
#define HOODIE_MERGE_STRATEGY_CUSTOM      "1897ef5f-18bc-4557-939c-9d6a8afd1519"
#define HOODIE_MERGE_STRATEGY_PAYLOAD     "00000000-0000-0000-0000-000000000000"

#endif
