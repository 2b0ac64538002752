#include "table/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "storage/storage.h"
#include "util/error.h"

#define K_NAME            "hoodie.table.name"
#define K_DATABASE        "hoodie.database.name"
#define K_TYPE            "hoodie.table.type"
#define K_VERSION         "hoodie.table.version"
#define K_INITIAL_VERSION "hoodie.table.initial.version"
#define K_LAYOUT          "hoodie.timeline.layout.version"
#define K_TIMELINE_PATH   "hoodie.timeline.path"
#define K_HISTORY_PATH    "hoodie.timeline.history.path"
#define K_ARCHIVE         "hoodie.archivelog.folder"
#define K_RECORD_KEYS     "hoodie.table.recordkey.fields"
#define K_PARTITIONS      "hoodie.table.partition.fields"
#define K_ORDERING        "hoodie.table.ordering.fields"
#define K_PRECOMBINE      "hoodie.table.precombine.field"
#define K_KEYGEN_CLASS    "hoodie.table.keygenerator.class"
#define K_KEYGEN_TYPE     "hoodie.table.keygenerator.type"
#define K_HIVE_STYLE      "hoodie.datasource.write.hive_style_partitioning"
#define K_URL_ENCODE      "hoodie.datasource.write.partitionpath.urlencode"
#define K_DROP_PARTCOLS   "hoodie.datasource.write.drop.partition.columns"
#define K_META_FIELDS     "hoodie.populate.meta.fields"
#define K_BASE_FORMAT     "hoodie.table.base.file.format"
#define K_BASE_FORMAT_OLD "hoodie.table.ro.file.format"
#define K_TIMEZONE        "hoodie.table.timeline.timezone"
#define K_MERGE_MODE      "hoodie.record.merge.mode"
#define K_PAYLOAD         "hoodie.compaction.payload.class"
#define K_STRATEGY        "hoodie.record.merge.strategy.id"
#define K_STRATEGY_OLD    "hoodie.compaction.record.merger.strategy"
#define K_CREATE_SCHEMA   "hoodie.table.create.schema"
#define K_CHECKSUM        "hoodie.table.checksum"

uint32_t hoodie_table_config_checksum(const char *database, const char *table)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    if (database) crc = crc32(crc, (const Bytef *)database, (uInt)strlen(database));
    crc = crc32(crc, (const Bytef *)".", 1);
    crc = crc32(crc, (const Bytef *)table, (uInt)strlen(table));
    return (uint32_t)crc;
}

const char *hoodie_table_type_name(hoodie_table_type t)
{
    return t == HOODIE_TABLE_MERGE_ON_READ ? "MERGE_ON_READ" : "COPY_ON_WRITE";
}

const char *hoodie_merge_mode_name(hoodie_merge_mode m)
{
    switch (m) {
    case HOODIE_MERGE_COMMIT_TIME_ORDERING: return "COMMIT_TIME_ORDERING";
    case HOODIE_MERGE_EVENT_TIME_ORDERING: return "EVENT_TIME_ORDERING";
    case HOODIE_MERGE_CUSTOM: return "CUSTOM";
    }
    return "?";
}

void hoodie_table_config_free(hoodie_table_config *c)
{
    if (!c) return;
    hoodie_props_dispose(&c->props);
    hoodie_arena_free(c->arena);
    free(c);
}

const char *hoodie_table_config_get(const hoodie_table_config *c, const char *key)
{
    return hoodie_props_get(&c->props, key);
}

/* Errors name the file, the key and (when known) the line. */
static hoodie_status cfg_bad(const hoodie_table_config *c, const char *key, const char *fmt, ...)
    HOODIE_PRINTF(3, 4);
static hoodie_status cfg_bad(const hoodie_table_config *c, const char *key, const char *fmt, ...)
{
    const hoodie_props_entry *e = hoodie_props_find(&c->props, key);
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (e && e->line)
        return HOODIE_CORRUPT("%s:%u: %s: %s", c->path, e->line, key, what);
    return HOODIE_CORRUPT("%s: %s: %s", c->path, key, what);
}

static hoodie_status cfg_int(const hoodie_table_config *c, const char *key, long lo, long hi, long *out)
{
    const char *v = hoodie_props_get(&c->props, key);
    char *end;
    long n;
    if (!v) return HOODIE_ENOTFOUND;
    errno = 0;
    n = strtol(v, &end, 10);
    if (!*v || *end || errno || n < lo || n > hi) return cfg_bad(c, key, "not a valid number: '%s'", v);
    *out = n;
    return HOODIE_OK;
}

static hoodie_status cfg_bool(const hoodie_table_config *c, const char *key, int dflt, int *out)
{
    const char *v = hoodie_props_get(&c->props, key);
    if (!v) *out = dflt;
    else if (!strcasecmp(v, "true")) *out = 1;
    else if (!strcasecmp(v, "false")) *out = 0;
    else return cfg_bad(c, key, "not a boolean (true/false): '%s'", v);
    return HOODIE_OK;
}

static int cfg_is_space(char ch) { return ch == ' ' || ch == '\t'; }

/* Split a comma list; empty items are dropped (Java splits and filters blank entries). */
static hoodie_status cfg_split(hoodie_table_config *c, const char *v, hoodie_str_list *out)
{
    size_t n = 1, i = 0;
    out->items = NULL;
    out->count = 0;
    if (!v) return HOODIE_OK;
    for (const char *p = v; *p; p++) n += *p == ',';
    out->items = hoodie_arena_calloc(c->arena, n, sizeof *out->items);
    if (!out->items) return HOODIE_NOMEM();
    for (const char *p = v;;) {
        const char *e = strchr(p, ',');
        const char *end = e ? e : p + strlen(p);
        const char *b = p;
        while (b < end && cfg_is_space(*b)) b++;
        while (end > b && cfg_is_space(end[-1])) end--;
        if (end > b) {
            out->items[i] = hoodie_arena_strndup(c->arena, b, (size_t)(end - b));
            if (!out->items[i]) return HOODIE_NOMEM();
            i++;
        }
        if (!e) break;
        p = e + 1;
    }
    out->count = i;
    return HOODIE_OK;
}

static const struct { const char *suffix; hoodie_keygen kg; } keygen_classes[] = {
    { "SimpleKeyGenerator", HOODIE_KEYGEN_SIMPLE },
    { "SimpleAvroKeyGenerator", HOODIE_KEYGEN_SIMPLE },
    { "ComplexKeyGenerator", HOODIE_KEYGEN_COMPLEX },
    { "ComplexAvroKeyGenerator", HOODIE_KEYGEN_COMPLEX },
    { "NonpartitionedKeyGenerator", HOODIE_KEYGEN_NON_PARTITION },
    { "NonpartitionedAvroKeyGenerator", HOODIE_KEYGEN_NON_PARTITION },
    { "TimestampBasedKeyGenerator", HOODIE_KEYGEN_TIMESTAMP },
    { "TimestampBasedAvroKeyGenerator", HOODIE_KEYGEN_TIMESTAMP },
    { "CustomKeyGenerator", HOODIE_KEYGEN_CUSTOM },
    { "CustomAvroKeyGenerator", HOODIE_KEYGEN_CUSTOM },
    { "HoodieTableMetadataKeyGenerator", HOODIE_KEYGEN_METADATA },
};

static const struct { const char *name; hoodie_keygen kg; } keygen_types[] = {
    { "SIMPLE", HOODIE_KEYGEN_SIMPLE },       { "SIMPLE_AVRO", HOODIE_KEYGEN_SIMPLE },
    { "COMPLEX", HOODIE_KEYGEN_COMPLEX },     { "COMPLEX_AVRO", HOODIE_KEYGEN_COMPLEX },
    { "NON_PARTITION", HOODIE_KEYGEN_NON_PARTITION }, { "NON_PARTITION_AVRO", HOODIE_KEYGEN_NON_PARTITION },
    { "TIMESTAMP", HOODIE_KEYGEN_TIMESTAMP }, { "TIMESTAMP_AVRO", HOODIE_KEYGEN_TIMESTAMP },
    { "CUSTOM", HOODIE_KEYGEN_CUSTOM },       { "CUSTOM_AVRO", HOODIE_KEYGEN_CUSTOM },
    { "HOODIE_TABLE_METADATA", HOODIE_KEYGEN_METADATA },
};

static void cfg_keygen(hoodie_table_config *c)
{
    c->keygen_class = hoodie_props_get(&c->props, K_KEYGEN_CLASS);
    c->keygen_type = hoodie_props_get(&c->props, K_KEYGEN_TYPE);
    c->keygen_inferred = 0;
    if (c->keygen_type && *c->keygen_type) {
        c->keygen = HOODIE_KEYGEN_OTHER;
        for (size_t i = 0; i < sizeof keygen_types / sizeof *keygen_types; i++)
            if (!strcasecmp(c->keygen_type, keygen_types[i].name)) c->keygen = keygen_types[i].kg;
        return;
    }
    if (c->keygen_class && *c->keygen_class) {
        const char *dot = strrchr(c->keygen_class, '.');
        const char *simple = dot ? dot + 1 : c->keygen_class;
        c->keygen = HOODIE_KEYGEN_OTHER;
        for (size_t i = 0; i < sizeof keygen_classes / sizeof *keygen_classes; i++)
            if (!strcmp(simple, keygen_classes[i].suffix)) c->keygen = keygen_classes[i].kg;
        return;
    }
    /* Java's inference (KeyGenUtils.inferKeyGeneratorType): no partition field -> non-partitioned,
     * several record key fields -> complex, else simple. */
    c->keygen_inferred = 1;
    if (c->partition_fields.count == 0) c->keygen = HOODIE_KEYGEN_NON_PARTITION;
    else if (c->record_key_fields.count > 1) c->keygen = HOODIE_KEYGEN_COMPLEX;
    else c->keygen = HOODIE_KEYGEN_SIMPLE;
}

static int cfg_payload_is(const char *payload, const char *simple_name)
{
    const char *dot = strrchr(payload, '.');
    return !strcmp(dot ? dot + 1 : payload, simple_name);
}

/*
 * The Debezium payloads order a key's records by a column of their own, whatever the table's ordering field: the
 * stored record stays only when it is strictly newer, a tie goes to the incoming one, and a record whose
 * _change_operation_type is 'd' is a delete (AbstractDebeziumAvroPayload). MySQL orders by _event_seq, a
 * "<binlog file number>.<position>" string compared as two numbers; Postgres by _event_lsn, and a string or bytes
 * column holding "__debezium_unavailable_value" (a TOASTed value Debezium did not send) keeps the stored value.
 */
static hoodie_debezium debezium_of(const char *payload)
{
    if (cfg_payload_is(payload, "MySqlDebeziumAvroPayload")) return HOODIE_DEBEZIUM_MYSQL;
    if (cfg_payload_is(payload, "PostgresDebeziumAvroPayload")) return HOODIE_DEBEZIUM_POSTGRES;
    return HOODIE_DEBEZIUM_NONE;
}

const char *hoodie_table_ordering_field(const hoodie_table_config *c)
{
    if (c->debezium == HOODIE_DEBEZIUM_MYSQL) return "_event_seq";
    if (c->debezium == HOODIE_DEBEZIUM_POSTGRES) return "_event_lsn";
    return c->ordering_fields.count ? c->ordering_fields.items[0] : NULL;
}

/*
 * The legacy payloads of partial updates (below version 9), merged as their classes do, which is what Hudi 1.1's
 * upgrade maps them to (RFC-97): PartialUpdateAvroPayload orders by the ordering field and, in every merge, the
 * winner takes the loser's values where its own are null (event time, IGNORE_DEFAULTS);
 * OverwriteNonDefaultsWithLatestAvroPayload's preCombine keeps the record with the larger ordering value whole and
 * its combineAndGetUpdateValue lets the later record win, keeping the stored values where it has nulls (commit time,
 * IGNORE_DEFAULTS, the winner of the last merge only). 1 if `payload` is one of them (c is set up for it).
 */
static int legacy_partial(hoodie_table_config *c, const char *payload)
{
    if (cfg_payload_is(payload, "PartialUpdateAvroPayload")) {
        c->merge_mode = HOODIE_MERGE_EVENT_TIME_ORDERING;
        c->legacy_partial = HOODIE_PARTIAL_IGNORE_DEFAULTS;
        return 1;
    }
    if (cfg_payload_is(payload, "OverwriteNonDefaultsWithLatestAvroPayload")) {
        c->merge_mode = HOODIE_MERGE_COMMIT_TIME_ORDERING;
        c->payload_fold = 1;
        c->legacy_partial = HOODIE_PARTIAL_IGNORE_DEFAULTS;
        c->partial_oneway = 1;
        return 1;
    }
    return 0;
}

/* hudi-format.md §8.2/§8.4. */
static hoodie_status cfg_merge_mode(hoodie_table_config *c)
{
    const char *mode = hoodie_props_get(&c->props, K_MERGE_MODE);
    c->payload_class = hoodie_props_get(&c->props, K_PAYLOAD);
    c->merge_strategy_id = hoodie_props_get(&c->props, K_STRATEGY);
    if (!c->merge_strategy_id) c->merge_strategy_id = hoodie_props_get(&c->props, K_STRATEGY_OLD);
    if (c->payload_class && !*c->payload_class) c->payload_class = NULL;
    if (c->merge_strategy_id && !*c->merge_strategy_id) c->merge_strategy_id = NULL;

    if (mode && *mode) {
        c->merge_mode_inferred = 0;
        if (!strcasecmp(mode, "COMMIT_TIME_ORDERING")) c->merge_mode = HOODIE_MERGE_COMMIT_TIME_ORDERING;
        else if (!strcasecmp(mode, "EVENT_TIME_ORDERING")) c->merge_mode = HOODIE_MERGE_EVENT_TIME_ORDERING;
        else if (!strcasecmp(mode, "CUSTOM")) c->merge_mode = HOODIE_MERGE_CUSTOM;
        else return cfg_bad(c, K_MERGE_MODE,
                            "unknown merge mode '%s' (COMMIT_TIME_ORDERING, EVENT_TIME_ORDERING or CUSTOM)", mode);
        /* Hudi 1.0 (version 8) writes CUSTOM for every payload class but the two standard ones; AWSDmsAvroPayload
         * is OverwriteWithLatestAvroPayload plus its delete marker (Op = 'D'), which hoodie applies itself */
        if (c->merge_mode == HOODIE_MERGE_CUSTOM && c->payload_class &&
            cfg_payload_is(c->payload_class, "AWSDmsAvroPayload"))
            c->merge_mode = HOODIE_MERGE_COMMIT_TIME_ORDERING, c->payload_fold = 1;
        if (c->merge_mode == HOODIE_MERGE_CUSTOM && c->payload_class && (c->debezium = debezium_of(c->payload_class)))
            c->merge_mode = HOODIE_MERGE_EVENT_TIME_ORDERING;
        if (c->merge_mode == HOODIE_MERGE_CUSTOM && c->payload_class && c->version < 9)
            (void)legacy_partial(c, c->payload_class);
        return HOODIE_OK;
    }
    c->merge_mode_inferred = 1;
    /* A payload class decides first. */
    if (c->payload_class) {
        const char *p = c->payload_class;
        if (cfg_payload_is(p, "OverwriteWithLatestAvroPayload"))
            c->merge_mode = HOODIE_MERGE_COMMIT_TIME_ORDERING;
        else if (cfg_payload_is(p, "AWSDmsAvroPayload"))
            c->merge_mode = HOODIE_MERGE_COMMIT_TIME_ORDERING, c->payload_fold = 1;
        else if (cfg_payload_is(p, "DefaultHoodieRecordPayload") || cfg_payload_is(p, "EventTimeAvroPayload"))
            c->merge_mode = HOODIE_MERGE_EVENT_TIME_ORDERING;
        else if ((c->debezium = debezium_of(p)))
            c->merge_mode = HOODIE_MERGE_EVENT_TIME_ORDERING;
        else if (c->version >= 9 || !legacy_partial(c, p))
            c->merge_mode = HOODIE_MERGE_CUSTOM;
        return HOODIE_OK;
    }
    /* The strategy id: in 0.x (table version 6) eeb8d96f was the generic default merger, so it says nothing. */
    if (c->merge_strategy_id && c->version >= 8) {
        const char *s = c->merge_strategy_id;
        if (!strcmp(s, HOODIE_MERGE_STRATEGY_COMMIT_TIME)) c->merge_mode = HOODIE_MERGE_COMMIT_TIME_ORDERING;
        else if (!strcmp(s, HOODIE_MERGE_STRATEGY_EVENT_TIME)) c->merge_mode = HOODIE_MERGE_EVENT_TIME_ORDERING;
        else c->merge_mode = HOODIE_MERGE_CUSTOM;
        return HOODIE_OK;
    }
    if (c->version < 8) {
        /* 0.14/0.15 default payload: OverwriteWithLatestAvroPayload */
        c->merge_mode = HOODIE_MERGE_COMMIT_TIME_ORDERING;
    } else {
        /* 1.x inference without payload or strategy: event time iff an ordering field is set */
        c->merge_mode = c->ordering_fields.count ? HOODIE_MERGE_EVENT_TIME_ORDERING
                                                 : HOODIE_MERGE_COMMIT_TIME_ORDERING;
    }
    return HOODIE_OK;
}

/*
 * The custom delete marker (Hudi's DeleteContext): hoodie.payload.delete.field and .marker, as table version 9
 * stores them (under hoodie.record.merge.property.) or bare; below version 9, derived from a legacy payload class
 * as HoodieTableConfig.getTableMergeProperties() derives it (AWSDmsAvroPayload: Op = 'D'). The Debezium payloads'
 * marker: _change_operation_type = 'd'.
 */
static hoodie_status cfg_delete_marker(hoodie_table_config *c)
{
    static const char prefix[] = "hoodie.record.merge.property.";
    static const char *const keys[2] = { "hoodie.payload.delete.field", "hoodie.payload.delete.marker" };
    const char *v[2] = { NULL, NULL };
    char used[2][96];
    for (int i = 0; i < 2; i++) {
        snprintf(used[i], sizeof used[i], "%s%s", prefix, keys[i]);
        v[i] = hoodie_props_get(&c->props, used[i]);
        if (!v[i] || !*v[i]) {
            snprintf(used[i], sizeof used[i], "%s", keys[i]);
            v[i] = hoodie_props_get(&c->props, keys[i]);
        }
        if (v[i] && !*v[i]) v[i] = NULL;
    }
    if (v[0] && v[1]) {
        c->delete_field = v[0];
        c->delete_marker = v[1];
        return HOODIE_OK;
    }
    if (v[0] || v[1])
        return cfg_bad(c, v[0] ? used[0] : used[1], "a custom delete marker needs both %s and %s", keys[0], keys[1]);
    if (c->version >= 9) return HOODIE_OK;
    static const char *const payload_keys[3] = { K_PAYLOAD, "hoodie.datasource.write.payload.class",
                                                 "hoodie.table.legacy.payload.class" };
    for (int i = 0; i < 3; i++) {
        const char *p = hoodie_props_get(&c->props, payload_keys[i]);
        if (!p || !*p) continue;
        if (cfg_payload_is(p, "AWSDmsAvroPayload")) c->delete_field = "Op", c->delete_marker = "D";
        if (debezium_of(p)) c->delete_field = "_change_operation_type", c->delete_marker = "d";
        break;
    }
    return HOODIE_OK;
}

/* RFC-103 storage layout and the simple bucket index (hudi-format.md 12.1, 13). */
static hoodie_status cfg_lsm(hoodie_table_config *c)
{
    const char *v = hoodie_props_get(&c->props, "hoodie.table.storage.layout");
    if (v && !strcasecmp(v, "lsm_tree")) {
        if (c->type != HOODIE_TABLE_MERGE_ON_READ)
            return cfg_bad(c, "hoodie.table.storage.layout", "the lsm_tree layout is for MERGE_ON_READ tables only");
        c->lsm_tree = 1;
    } else if (v && strcasecmp(v, "default")) {
        return cfg_bad(c, "hoodie.table.storage.layout", "unknown storage layout '%s' (default or lsm_tree)", v);
    }
    v = hoodie_props_get(&c->props, "hoodie.index.type");
    if (!v || strcasecmp(v, "BUCKET")) return HOODIE_OK;
    const char *engine = hoodie_props_get(&c->props, "hoodie.index.bucket.engine");
    if (engine && strcasecmp(engine, "SIMPLE"))
        return HOODIE_OK; /* consistent hashing: not supported for writing; readers need no index */
    v = hoodie_props_get(&c->props, "hoodie.bucket.index.num.buckets");
    char *end = NULL;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || n < 1 || n > 1000000000L)
        return cfg_bad(c, "hoodie.bucket.index.num.buckets", "the bucket index needs a number of buckets >= 1, not '%s'",
                       v ? v : "(absent)");
    c->bucket_index = 1;
    c->bucket_count = (int)n;
    v = hoodie_props_get(&c->props, "hoodie.bucket.index.hash.field");
    if (v && *v) return cfg_split(c, v, &c->bucket_hash_fields);
    c->bucket_hash_fields = c->record_key_fields;
    return HOODIE_OK;
}

/* Change data capture (hudi-format.md 8.10): the mode's spellings of 0.13 (cdc_op_key, cdc_data_before,
 * cdc_data_before_after), 0.14 (lower case) and 1.x (upper case). */
static hoodie_status cfg_cdc(hoodie_table_config *c)
{
    static const struct { const char *name; hoodie_cdc_mode mode; } modes[] = {
        { "OP_KEY_ONLY", HOODIE_CDC_OP_KEY_ONLY },   { "cdc_op_key", HOODIE_CDC_OP_KEY_ONLY },
        { "DATA_BEFORE", HOODIE_CDC_DATA_BEFORE },   { "cdc_data_before", HOODIE_CDC_DATA_BEFORE },
        { "DATA_BEFORE_AFTER", HOODIE_CDC_DATA_BEFORE_AFTER },
        { "cdc_data_before_after", HOODIE_CDC_DATA_BEFORE_AFTER },
    };
    HOODIE_TRY(cfg_bool(c, "hoodie.table.cdc.enabled", 0, &c->cdc));
    c->cdc_mode = HOODIE_CDC_DATA_BEFORE_AFTER;
    const char *v = hoodie_props_get(&c->props, "hoodie.table.cdc.supplemental.logging.mode");
    if (!v) return HOODIE_OK;
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (!strcasecmp(v, modes[i].name)) { c->cdc_mode = modes[i].mode; return HOODIE_OK; }
    return cfg_bad(c, "hoodie.table.cdc.supplemental.logging.mode",
                   "unknown CDC logging mode '%s' (OP_KEY_ONLY, DATA_BEFORE or DATA_BEFORE_AFTER)", v);
}

static hoodie_status cfg_build(hoodie_table_config *c, unsigned flags)
{
    const char *v;
    long n;
    hoodie_status rc;

    /* table version first: an unknown version is unsupported rather than corrupt */
    rc = cfg_int(c, K_VERSION, 0, 1000, &n);
    if (rc == HOODIE_ENOTFOUND)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: no %s (table version 0, pre-0.x Hudi): not supported",
                           c->path, K_VERSION);
    HOODIE_TRY(rc);
    if (n != 6 && n != 8 && n != 9)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: table version %ld is not supported (hoodie reads 6, 8 and 9)",
                           c->path, n);
    c->version = (int)n;
    rc = cfg_int(c, K_INITIAL_VERSION, 0, 1000, &n);
    if (rc == HOODIE_ENOTFOUND) c->initial_version = c->version;
    else if (rc) return rc;
    else c->initial_version = (int)n;

    c->name = hoodie_props_get(&c->props, K_NAME);
    if (!c->name || !*c->name) return HOODIE_CORRUPT("%s: missing %s", c->path, K_NAME);
    c->database = hoodie_props_get(&c->props, K_DATABASE);

    v = hoodie_props_get(&c->props, K_CHECKSUM);
    c->has_checksum = v != NULL;
    if (v) {
        char *end;
        unsigned long long ck;
        errno = 0;
        ck = strtoull(v, &end, 10);
        if (!*v || *end || errno || ck > 0xFFFFFFFFull || *v == '-')
            return cfg_bad(c, K_CHECKSUM, "not a valid checksum: '%s'", v);
        c->checksum = (uint32_t)ck;
        if (!(flags & HOODIE_CONFIG_NO_CHECKSUM)) {
            uint32_t want = hoodie_table_config_checksum(c->database, c->name);
            if (want != c->checksum)
                return HOODIE_CORRUPT("%s: %s=%s does not match CRC32(\"%s.%s\")=%u", c->path, K_CHECKSUM, v,
                                      c->database ? c->database : "", c->name, want);
        }
    }

    v = hoodie_props_get(&c->props, K_TYPE);
    if (!v || !strcasecmp(v, "COPY_ON_WRITE")) c->type = HOODIE_TABLE_COPY_ON_WRITE;
    else if (!strcasecmp(v, "MERGE_ON_READ")) c->type = HOODIE_TABLE_MERGE_ON_READ;
    else return cfg_bad(c, K_TYPE, "unknown table type '%s' (COPY_ON_WRITE or MERGE_ON_READ)", v);

    rc = cfg_int(c, K_LAYOUT, 0, 100, &n);
    if (rc == HOODIE_ENOTFOUND) n = c->version >= 8 ? 2 : 1;
    else if (rc) return rc;
    if (n != 1 && n != 2)
        return cfg_bad(c, K_LAYOUT, "timeline layout version '%s' is not supported (1 or 2)",
                       hoodie_props_get(&c->props, K_LAYOUT));
    if ((c->version >= 8) != (n == 2))
        return HOODIE_CORRUPT("%s: timeline layout version %ld does not go with table version %d", c->path, n,
                              c->version);
    c->timeline_layout_version = (int)n;
    if (n == 2) {
        const char *tp = hoodie_props_get(&c->props, K_TIMELINE_PATH);
        const char *hp = hoodie_props_get(&c->props, K_HISTORY_PATH);
        if (!tp || !*tp) tp = "timeline";
        if (!hp || !*hp) hp = "history";
        c->timeline_dir = hoodie_arena_sprintf(c->arena, ".hoodie/%s", tp);
        c->timeline_history_dir = hoodie_arena_sprintf(c->arena, ".hoodie/%s/%s", tp, hp);
        if (!c->timeline_dir || !c->timeline_history_dir) return HOODIE_NOMEM();
    } else {
        c->timeline_dir = ".hoodie";
        c->timeline_history_dir = NULL;
    }
    v = hoodie_props_get(&c->props, K_ARCHIVE);
    c->archive_dir = hoodie_arena_sprintf(c->arena, ".hoodie/%s", v && *v ? v : "archived");
    if (!c->archive_dir) return HOODIE_NOMEM();

    HOODIE_TRY(cfg_split(c, hoodie_props_get(&c->props, K_RECORD_KEYS), &c->record_key_fields));
    HOODIE_TRY(cfg_split(c, hoodie_props_get(&c->props, K_PARTITIONS), &c->partition_fields));
    c->partition_field_types.count = c->partition_fields.count;
    c->partition_field_types.items = hoodie_arena_calloc(c->arena, c->partition_fields.count + 1, sizeof(char *));
    if (!c->partition_field_types.items) return HOODIE_NOMEM();
    for (size_t i = 0; i < c->partition_fields.count; i++) {
        char *f = (char *)c->partition_fields.items[i];
        char *colon = strchr(f, ':');
        if (colon) {
            *colon = '\0';
            c->partition_field_types.items[i] = colon + 1;
        }
    }
    v = hoodie_props_get(&c->props, K_ORDERING);
    if (!v || !*v) v = hoodie_props_get(&c->props, K_PRECOMBINE);
    HOODIE_TRY(cfg_split(c, v, &c->ordering_fields));

    cfg_keygen(c);
    HOODIE_TRY(cfg_bool(c, K_HIVE_STYLE, 0, &c->hive_style_partitioning));
    HOODIE_TRY(cfg_bool(c, K_URL_ENCODE, 0, &c->url_encode_partitions));
    HOODIE_TRY(cfg_bool(c, K_DROP_PARTCOLS, 0, &c->drop_partition_columns));
    HOODIE_TRY(cfg_bool(c, K_META_FIELDS, 1, &c->populate_meta_fields));

    const char *fkey = K_BASE_FORMAT;
    v = hoodie_props_get(&c->props, K_BASE_FORMAT);
    if (!v) v = hoodie_props_get(&c->props, fkey = K_BASE_FORMAT_OLD);
    if (!v || !strcasecmp(v, "PARQUET")) c->base_file_format = HOODIE_BASE_PARQUET;
    else if (!strcasecmp(v, "ORC")) c->base_file_format = HOODIE_BASE_ORC;
    else if (!strcasecmp(v, "HFILE")) c->base_file_format = HOODIE_BASE_HFILE;
    else if (!strcasecmp(v, "LANCE")) c->base_file_format = HOODIE_BASE_LANCE;
    else return cfg_bad(c, fkey, "unknown base file format '%s' (PARQUET, ORC, HFILE or LANCE)", v);

    v = hoodie_props_get(&c->props, K_TIMEZONE);
    if (!v || !strcasecmp(v, "LOCAL")) c->timeline_timezone_utc = 0;
    else if (!strcasecmp(v, "UTC")) c->timeline_timezone_utc = 1;
    else return cfg_bad(c, K_TIMEZONE, "unknown timeline timezone '%s' (LOCAL or UTC)", v);

    HOODIE_TRY(cfg_merge_mode(c));
    HOODIE_TRY(cfg_delete_marker(c));
    c->partial_update = hoodie_props_get(&c->props, "hoodie.table.partial.update.mode");
    if (c->partial_update && (!*c->partial_update || !strcasecmp(c->partial_update, "NONE"))) c->partial_update = NULL;
    c->partial = !c->partial_update                                   ? HOODIE_PARTIAL_NONE
                 : !strcasecmp(c->partial_update, "IGNORE_DEFAULTS")  ? HOODIE_PARTIAL_IGNORE_DEFAULTS
                 : !strcasecmp(c->partial_update, "FILL_UNAVAILABLE") ? HOODIE_PARTIAL_FILL_UNAVAILABLE
                 : !strcasecmp(c->partial_update, "KEEP_VALUES")      ? HOODIE_PARTIAL_KEEP_VALUES
                                                                      : HOODIE_PARTIAL_OTHER;
    if (!c->partial_update && c->legacy_partial) { /* a legacy payload's (legacy_partial) */
        c->partial = c->legacy_partial;
        c->partial_update = "IGNORE_DEFAULTS";
    }
    c->unavailable_value = hoodie_props_get(&c->props, "hoodie.record.merge.property.partial.update.unavailable.value");
    c->create_schema = hoodie_props_get(&c->props, K_CREATE_SCHEMA);
    HOODIE_TRY(cfg_cdc(c));
    return cfg_lsm(c);
}

hoodie_status hoodie_table_config_parse(hoodie_table_config **out, const void *data, size_t len,
                                        const char *what, unsigned flags)
{
    hoodie_table_config *c = calloc(1, sizeof *c);
    hoodie_status rc;
    *out = NULL;
    if (!c) return HOODIE_NOMEM();
    hoodie_props_init(&c->props);
    rc = hoodie_arena_new(&c->arena, NULL, 4096);
    if (!rc) {
        c->path = hoodie_arena_strdup(c->arena, what ? what : "hoodie.properties");
        if (!c->path) rc = HOODIE_NOMEM();
    }
    if (!rc) rc = hoodie_props_parse(&c->props, data, len, c->path);
    if (!rc) rc = cfg_build(c, flags);
    if (rc) {
        hoodie_table_config_free(c);
        return rc;
    }
    *out = c;
    return HOODIE_OK;
}

static hoodie_status cfg_load_file(hoodie_table_config **out, const hoodie_storage *s, const char *path,
                                   unsigned flags)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_storage_read_all(s, path, &b);
    if (!rc) rc = hoodie_table_config_parse(out, b.data ? b.data : (const uint8_t *)"", b.len, path, flags);
    hoodie_buf_dispose(&b);
    return rc;
}

hoodie_status hoodie_table_config_load(hoodie_table_config **out, const hoodie_storage *s, const char *base_path,
                                       unsigned flags)
{
    char path[4096], backup[4200], msg[1024];
    hoodie_status rc, rc2;
    *out = NULL;
    s = hoodie_storage__or_default(s);
    if ((size_t)snprintf(path, sizeof path, "%s/.hoodie/hoodie.properties", base_path) >= sizeof path)
        return HOODIE_FAIL(HOODIE_EINVAL, "base path too long: %s", base_path);
    snprintf(backup, sizeof backup, "%s.backup", path);
    rc = cfg_load_file(out, s, path, flags);
    if (rc == HOODIE_OK || (flags & HOODIE_CONFIG_NO_BACKUP)) return rc;
    if (rc != HOODIE_ENOTFOUND && rc != HOODIE_ECORRUPT) return rc;
    /* Java falls back to the backup written by an interrupted update (hudi-format.md §3.3). */
    snprintf(msg, sizeof msg, "%s", hoodie_error_last()->message);
    rc2 = cfg_load_file(out, s, backup, flags);
    if (rc2 == HOODIE_OK) return HOODIE_OK;
    if (rc2 != HOODIE_ENOTFOUND) return rc2;
    if (rc == HOODIE_ENOTFOUND) return HOODIE_FAIL(HOODIE_ENOTFOUND, "no Hudi table at %s: %s missing", base_path, path);
    return HOODIE_FAIL(rc, "%s", msg);
}
