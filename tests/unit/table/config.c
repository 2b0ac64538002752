#include "hoodie_test.h"
#include "merge/record_merge.h"
#include "model/build.h"
#include "table/config.h"
#include "storage/storage.h"
#include "util/error.h"

static hoodie_table_config *load(const char *rel, unsigned flags)
{
    hoodie_table_config *c = NULL;
    hoodie_assert_ok(hoodie_table_config_load(&c, NULL, hoodie_fixture(rel), flags));
    return c;
}

HOODIE_TEST(table_config__checksum_vectors)
{
    hoodie_assert_equal_i(281415413u, hoodie_table_config_checksum("default", "v6_complexkeygen_hivestyle"));
    hoodie_assert_equal_i(1461121508u, hoodie_table_config_checksum("default", "v8_complexkeygen_hivestyle"));
    hoodie_assert_equal_i(3761586722u, hoodie_table_config_checksum(NULL, "trips"));
}

/* Every fixture table loads with its checksum verified, and the typed values agree with the raw keys. */
HOODIE_TEST(table_config__every_fixture_table)
{
    static const struct { const char *t; int version; int mor; int layout; int partitions; } cases[] = {
        { "cow_v6_complexkeygen_hivestyle", 6, 0, 1, 2 }, { "cow_v6_empty", 6, 0, 1, 0 },
        { "cow_v6_nonpartitioned", 6, 0, 1, 0 }, { "cow_v6_simplekeygen_hivestyle_no_metafields", 6, 0, 1, 1 },
        { "cow_v6_simplekeygen_nonhivestyle", 6, 0, 1, 1 }, { "cow_v6_simplekeygen_nonhivestyle_overwritetable", 6, 0, 1, 1 },
        { "cow_v8_complexkeygen_hivestyle", 8, 0, 2, 2 }, { "cow_v8_empty", 8, 0, 2, 0 },
        { "cow_v8_nonpartitioned", 8, 0, 2, 0 }, { "cow_v8_simplekeygen_nonhivestyle", 8, 0, 2, 1 },
        { "cow_v8_simplekeygen_nonhivestyle_overwritetable", 8, 0, 2, 1 }, { "cow_v9_txns_nonpart_nometa", 9, 0, 2, 0 },
        { "mdt_basic_mor_avro_v8_nonpartitioned", 8, 1, 2, 0 }, { "mor_parquet_v6_complexkeygen_hivestyle", 6, 1, 1, 2 },
        { "mor_parquet_v6_empty", 6, 1, 1, 0 }, { "mor_parquet_v6_nonpartitioned", 6, 1, 1, 0 },
        { "mor_parquet_v6_nonpartitioned_rollback", 6, 1, 1, 0 }, { "mor_parquet_v6_simplekeygen_nonhivestyle", 6, 1, 1, 1 },
        { "trips_mor_avro_table_column_projection", 9, 1, 2, 0 }, { "trips_mor_avro_table_log_only", 9, 1, 2, 0 },
        { "trips_mor_avro_v6_trips_8i1u", 6, 1, 1, 1 }, { "trips_mor_avro_v8_trips_8i1u", 8, 1, 2, 1 },
        { "trips_mor_avro_v8_trips_8i3d", 8, 1, 2, 1 }, { "trips_mor_avro_v9_mor_nonpart_3commits", 9, 1, 2, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "hudi/tables/%s", cases[i].t);
        hoodie_table_config *c = load(rel, 0);
        hoodie_assert_equal_i(cases[i].version, c->version);
        hoodie_assert_equal_i(cases[i].mor, c->type == HOODIE_TABLE_MERGE_ON_READ);
        hoodie_assert_equal_i(cases[i].layout, c->timeline_layout_version);
        hoodie_assert_equal_i(cases[i].partitions, c->partition_fields.count);
        hoodie_assert(c->has_checksum);
        hoodie_assert_equal_i(hoodie_table_config_checksum(c->database, c->name), c->checksum);
        hoodie_assert(c->record_key_fields.count >= 1);
        hoodie_assert_equal_s(cases[i].layout == 2 ? ".hoodie/timeline" : ".hoodie", c->timeline_dir);
        hoodie_assert_equal_s(".hoodie/archived", c->archive_dir);
        hoodie_assert_equal_i(HOODIE_BASE_PARQUET, c->base_file_format);
        hoodie_assert(c->keygen != HOODIE_KEYGEN_OTHER);
        hoodie_assert(!c->keygen_inferred);
        hoodie_assert(c->merge_mode != HOODIE_MERGE_CUSTOM);
        if (cases[i].partitions == 0) hoodie_assert_equal_i(HOODIE_KEYGEN_NON_PARTITION, c->keygen);
        hoodie_table_config_free(c);
    }
}

HOODIE_TEST(table_config__v6_complex_hive)
{
    hoodie_table_config *c = load("hudi/tables/cow_v6_complexkeygen_hivestyle", 0);
    hoodie_assert_equal_s("v6_complexkeygen_hivestyle", c->name);
    hoodie_assert_equal_s("default", c->database);
    hoodie_assert_equal_i(HOODIE_KEYGEN_COMPLEX, c->keygen);
    hoodie_assert_equal_s("org.apache.hudi.keygen.ComplexKeyGenerator", c->keygen_class);
    hoodie_assert(c->keygen_type == NULL);
    hoodie_assert_equal_i(2, c->record_key_fields.count);
    hoodie_assert_equal_s("id", c->record_key_fields.items[0]);
    hoodie_assert_equal_s("name", c->record_key_fields.items[1]);
    hoodie_assert_equal_s("byteField", c->partition_fields.items[0]);
    hoodie_assert_equal_s("shortField", c->partition_fields.items[1]);
    hoodie_assert(c->partition_field_types.items[0] == NULL);
    hoodie_assert_equal_i(1, c->ordering_fields.count);
    hoodie_assert_equal_s("longField", c->ordering_fields.items[0]);
    hoodie_assert(c->hive_style_partitioning);
    hoodie_assert(!c->url_encode_partitions);
    hoodie_assert(c->populate_meta_fields);
    /* v6 without a payload class: 0.x default OverwriteWithLatestAvroPayload */
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, c->merge_mode);
    hoodie_assert(c->merge_mode_inferred);
    hoodie_assert(c->create_schema && strstr(c->create_schema, "\"type\":\"record\""));
    hoodie_assert_equal_s("COPY_ON_WRITE", hoodie_table_config_get(c, "hoodie.table.type"));
    hoodie_assert(hoodie_table_config_get(c, "no.such.key") == NULL);
    hoodie_table_config_free(c);
}

HOODIE_TEST(table_config__merge_modes)
{
    hoodie_table_config *c = load("hudi/tables/cow_v8_complexkeygen_hivestyle", 0);
    hoodie_assert_equal_i(HOODIE_MERGE_EVENT_TIME_ORDERING, c->merge_mode);
    hoodie_assert(!c->merge_mode_inferred);
    hoodie_assert_equal_s(HOODIE_MERGE_STRATEGY_EVENT_TIME, c->merge_strategy_id);
    hoodie_assert_equal_i(HOODIE_KEYGEN_COMPLEX, c->keygen);
    hoodie_assert_equal_s("COMPLEX", c->keygen_type);
    hoodie_assert_equal_s(".hoodie/timeline/history", c->timeline_history_dir);
    hoodie_table_config_free(c);

    c = load("hudi/tables/cow_v8_empty", 0);
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, c->merge_mode);
    hoodie_table_config_free(c);

    c = load("hudi/tables/mor_parquet_v6_nonpartitioned", 0);
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, c->merge_mode); /* OverwriteWithLatestAvroPayload */
    hoodie_assert(c->merge_mode_inferred);
    hoodie_assert_equal_s(HOODIE_MERGE_STRATEGY_EVENT_TIME, c->merge_strategy_id); /* the 0.x generic default */
    hoodie_table_config_free(c);

    c = load("hudi/tables/trips_mor_avro_v9_mor_nonpart_3commits", 0);
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, c->merge_mode);
    hoodie_assert_equal_s("ts", c->ordering_fields.items[0]); /* hoodie.table.ordering.fields (v9) */
    hoodie_table_config_free(c);

    /* inference without the mode key */
    const char *t = "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.table.precombine.field=ts\n"
                    "hoodie.compaction.payload.class=org.apache.hudi.common.model.DefaultHoodieRecordPayload\n";
    hoodie_assert_ok(hoodie_table_config_parse(&c, t, strlen(t), "m1", 0));
    hoodie_assert_equal_i(HOODIE_MERGE_EVENT_TIME_ORDERING, c->merge_mode);
    hoodie_table_config_free(c);
    t = "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.compaction.payload.class=com.x.MyPayload\n";
    hoodie_assert_ok(hoodie_table_config_parse(&c, t, strlen(t), "m2", 0));
    hoodie_assert_equal_i(HOODIE_MERGE_CUSTOM, c->merge_mode);
    hoodie_table_config_free(c);
    t = "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.record.merge.strategy.id=" HOODIE_MERGE_STRATEGY_COMMIT_TIME "\n";
    hoodie_assert_ok(hoodie_table_config_parse(&c, t, strlen(t), "m3", 0));
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, c->merge_mode);
    hoodie_table_config_free(c);
    t = "hoodie.table.name=t\nhoodie.table.version=9\nhoodie.table.ordering.fields=a, b\n";
    hoodie_assert_ok(hoodie_table_config_parse(&c, t, strlen(t), "m4", 0));
    hoodie_assert_equal_i(HOODIE_MERGE_EVENT_TIME_ORDERING, c->merge_mode);
    hoodie_assert_equal_i(2, c->ordering_fields.count);
    hoodie_assert_equal_s("b", c->ordering_fields.items[1]);
    hoodie_assert_equal_i(HOODIE_KEYGEN_NON_PARTITION, c->keygen);
    hoodie_assert(c->keygen_inferred);
    hoodie_assert_equal_i(2, c->timeline_layout_version);
    hoodie_table_config_free(c);
    t = "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.record.merge.mode=LATEST\n";
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_table_config_parse(&c, t, strlen(t), "m5", 0));
    hoodie_assert_contains(hoodie_error_last()->message, "m5:3: hoodie.record.merge.mode");
}

/* The legacy payloads of partial updates (below version 9) map as Hudi 1.1's upgrade maps them; version 9 keeps its
 * own properties, and an unknown payload stays CUSTOM. Each case: properties, then the merge mode, partial mode,
 * one-way fill, and the policy's log fold and base merge modes. */
HOODIE_TEST(table_config__legacy_partial_payloads)
{
    static const struct {
        const char *props;
        hoodie_merge_mode mode;
        hoodie_partial_update partial;
        int oneway;
        hoodie_merge_mode fold, base;
    } cases[] = {
        { "hoodie.table.version=8\nhoodie.record.merge.mode=CUSTOM\n"
          "hoodie.compaction.payload.class=org.apache.hudi.common.model.PartialUpdateAvroPayload\n",
          HOODIE_MERGE_EVENT_TIME_ORDERING, HOODIE_PARTIAL_IGNORE_DEFAULTS, 0,
          HOODIE_MERGE_EVENT_TIME_ORDERING, HOODIE_MERGE_EVENT_TIME_ORDERING },
        /* preCombine keeps the larger ordering value; the later record replaces the stored one */
        { "hoodie.table.version=6\n"
          "hoodie.compaction.payload.class=org.apache.hudi.common.model.OverwriteNonDefaultsWithLatestAvroPayload\n",
          HOODIE_MERGE_COMMIT_TIME_ORDERING, HOODIE_PARTIAL_IGNORE_DEFAULTS, 1,
          HOODIE_MERGE_EVENT_TIME_ORDERING, HOODIE_MERGE_COMMIT_TIME_ORDERING },
        { "hoodie.table.version=9\nhoodie.record.merge.mode=CUSTOM\n"
          "hoodie.compaction.payload.class=org.apache.hudi.common.model.PartialUpdateAvroPayload\n",
          HOODIE_MERGE_CUSTOM, HOODIE_PARTIAL_NONE, 0, HOODIE_MERGE_COMMIT_TIME_ORDERING,
          HOODIE_MERGE_COMMIT_TIME_ORDERING },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512];
        snprintf(text, sizeof text, "hoodie.table.name=t\nhoodie.table.precombine.field=ts\n%s", cases[i].props);
        hoodie_table_config *c;
        hoodie_assert_ok(hoodie_table_config_parse(&c, text, strlen(text), "p", 0));
        hoodie_assert_equal_i(cases[i].mode, c->merge_mode);
        hoodie_assert_equal_i(cases[i].partial, c->partial);
        hoodie_assert_equal_i(cases[i].oneway, c->partial_oneway);
        hoodie_merge_policy p = hoodie_merge_policy_of(c);
        hoodie_assert_equal_i(cases[i].fold, p.log_fold);
        hoodie_assert_equal_i(cases[i].base, p.base);
        hoodie_table_config_free(c);
    }
}

/* Delete markers (Hudi's DeleteContext) and the AWS DMS payload. */
HOODIE_TEST(table_config__delete_markers)
{
    hoodie_table_config *c;
    static const char dms[] = "org.apache.hudi.common.model.AWSDmsAvroPayload";
    /* v6 (0.x): the payload class alone; the marker is derived, log records fold by ordering value */
    char t[512];
    snprintf(t, sizeof t, "hoodie.table.name=t\nhoodie.table.version=6\nhoodie.compaction.payload.class=%s\n", dms);
    hoodie_assert_ok(hoodie_table_config_parse(&c, t, strlen(t), "d1", 0));
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, c->merge_mode);
    hoodie_assert_equal_s("Op", c->delete_field);
    hoodie_assert_equal_s("D", c->delete_marker);
    hoodie_merge_policy p = hoodie_merge_policy_of(c);
    hoodie_assert_equal_i(HOODIE_MERGE_EVENT_TIME_ORDERING, p.log_fold);
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, p.base);
    hoodie_table_config_free(c);
    /* v8 as Hudi 1.0 writes it: CUSTOM with the payload-based strategy */
    snprintf(t, sizeof t, "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.record.merge.mode=CUSTOM\n"
             "hoodie.record.merge.strategy.id=" HOODIE_MERGE_STRATEGY_PAYLOAD "\n"
             "hoodie.compaction.payload.class=%s\n", dms);
    hoodie_assert_ok(hoodie_table_config_parse(&c, t, strlen(t), "d2", 0));
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, c->merge_mode);
    hoodie_assert_equal_s("Op", c->delete_field);
    p = hoodie_merge_policy_of(c);
    hoodie_assert_equal_i(HOODIE_MERGE_EVENT_TIME_ORDERING, p.log_fold);
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, p.base);
    hoodie_table_config_free(c);
    /* v9 stores the marker; the legacy payload class derives nothing, the mode is what it says */
    snprintf(t, sizeof t, "hoodie.table.name=t\nhoodie.table.version=9\nhoodie.record.merge.mode=COMMIT_TIME_ORDERING\n"
             "hoodie.table.legacy.payload.class=%s\n"
             "hoodie.record.merge.property.hoodie.payload.delete.field=Op\n"
             "hoodie.record.merge.property.hoodie.payload.delete.marker=D\n", dms);
    hoodie_assert_ok(hoodie_table_config_parse(&c, t, strlen(t), "d3", 0));
    hoodie_assert_equal_s("Op", c->delete_field);
    hoodie_assert_equal_s("D", c->delete_marker);
    p = hoodie_merge_policy_of(c);
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, p.log_fold);
    hoodie_table_config_free(c);
    snprintf(t, sizeof t, "hoodie.table.name=t\nhoodie.table.version=9\nhoodie.table.legacy.payload.class=%s\n", dms);
    hoodie_assert_ok(hoodie_table_config_parse(&c, t, strlen(t), "d4", 0));
    hoodie_assert(!c->delete_field && !c->delete_marker);
    hoodie_table_config_free(c);
    /* bare keys, any payload; the Debezium payloads: their own ordering column and marker */
    const char *u = "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.precombine.field=ts\n"
                    "hoodie.payload.delete.field=deleted\nhoodie.payload.delete.marker=1\n";
    hoodie_assert_ok(hoodie_table_config_parse(&c, u, strlen(u), "d5", 0));
    hoodie_assert_equal_s("deleted", c->delete_field);
    hoodie_assert_equal_s("1", c->delete_marker);
    hoodie_table_config_free(c);
    u = "hoodie.table.name=t\nhoodie.table.version=6\n"
        "hoodie.compaction.payload.class=org.apache.hudi.common.model.debezium.MySqlDebeziumAvroPayload\n";
    hoodie_assert_ok(hoodie_table_config_parse(&c, u, strlen(u), "d6", 0));
    hoodie_assert_equal_i(HOODIE_MERGE_EVENT_TIME_ORDERING, c->merge_mode);
    hoodie_assert_equal_i(HOODIE_DEBEZIUM_MYSQL, c->debezium);
    hoodie_assert_equal_s("_change_operation_type", c->delete_field);
    hoodie_assert_equal_s("d", c->delete_marker);
    hoodie_assert_equal_s("_event_seq", hoodie_table_ordering_field(c));
    p = hoodie_merge_policy_of(c);
    hoodie_assert(p.seq_ordering && !p.toast_fill);
    hoodie_table_config_free(c);
    /* v8 as Hudi 1.0 writes a Debezium table: CUSTOM with the payload-based strategy */
    u = "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.record.merge.mode=CUSTOM\nhoodie.precombine.field=ts\n"
        "hoodie.record.merge.strategy.id=" HOODIE_MERGE_STRATEGY_PAYLOAD "\n"
        "hoodie.compaction.payload.class=org.apache.hudi.common.model.debezium.PostgresDebeziumAvroPayload\n";
    hoodie_assert_ok(hoodie_table_config_parse(&c, u, strlen(u), "d6b", 0));
    hoodie_assert_equal_i(HOODIE_MERGE_EVENT_TIME_ORDERING, c->merge_mode);
    hoodie_assert_equal_i(HOODIE_DEBEZIUM_POSTGRES, c->debezium);
    hoodie_assert_equal_s("_event_lsn", hoodie_table_ordering_field(c));
    hoodie_assert_equal_s("_change_operation_type", c->delete_field);
    p = hoodie_merge_policy_of(c);
    hoodie_assert(!p.seq_ordering && p.toast_fill);
    hoodie_table_config_free(c);
    /* half a marker: refused, naming the line */
    u = "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.record.merge.property.hoodie.payload.delete.marker=D\n";
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_table_config_parse(&c, u, strlen(u), "d7", 0));
    hoodie_assert_contains(hoodie_error_last()->message, "d7:3: hoodie.record.merge.property.hoodie.payload.delete."
                                                         "marker: a custom delete marker needs");
}

/* hoodie_delete_marked: strings bytewise, integers in decimal, booleans as true/false; nulls never. */
HOODIE_TEST(table_config__delete_marked)
{
    const char *u = "hoodie.table.name=t\nhoodie.table.version=8\n"
                    "hoodie.payload.delete.field=op\nhoodie.payload.delete.marker=1\n";
    hoodie_table_config *c;
    hoodie_assert_ok(hoodie_table_config_parse(&c, u, strlen(u), "m", 0));
    static const hoodie_type_id types[3] = { HOODIE_TYPE_STRING, HOODIE_TYPE_INT32, HOODIE_TYPE_BOOL };
    for (int k = 0; k < 3; k++) {
        hoodie_field f;
        hoodie_assert_ok(hoodie_field_init(&f, "r", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
        hoodie_field op;
        hoodie_assert_ok(hoodie_field_init(&op, "op", hoodie_type_of(types[k]), 1));
        hoodie_assert_ok(hoodie_field_add_child(&f, &op));
        hoodie_field_dispose(&op);
        hoodie_delete_marker mk;
        hoodie_delete_marker_of(c, &f, &mk);
        hoodie_assert_equal_i(0, mk.col); /* the table has a marker, and its column is the first */
        hoodie_batch b;
        hoodie_assert_ok(hoodie_batch_init(&b, &f));
        hoodie_array *a = &b.root.children[0];
        const hoodie_field *af = &b.schema.children[0];
        /* rows: "1"/1/true, "10"/10/false, null */
        if (types[k] == HOODIE_TYPE_STRING) {
            hoodie_assert_ok(hoodie_array_append_bytes(a, af, "1", 1));
            hoodie_assert_ok(hoodie_array_append_bytes(a, af, "10", 2));
        } else if (types[k] == HOODIE_TYPE_INT32) {
            hoodie_assert_ok(hoodie_array_append_int(a, af, 1));
            hoodie_assert_ok(hoodie_array_append_int(a, af, 10));
        } else {
            hoodie_assert_ok(hoodie_array_append_bool(a, af, 1));
            hoodie_assert_ok(hoodie_array_append_bool(a, af, 0));
        }
        hoodie_assert_ok(hoodie_array_append_null(a, af));
        b.root.length = 3;
        /* the marker "1" is Java's toString() of 1 and "1"; a boolean renders as "true" */
        hoodie_assert_equal_i(types[k] == HOODIE_TYPE_BOOL ? 0 : 1, hoodie_delete_marked(&mk, &b, 0));
        hoodie_assert_equal_i(0, hoodie_delete_marked(&mk, &b, 1));
        hoodie_assert_equal_i(0, hoodie_delete_marked(&mk, &b, 2));
        hoodie_assert_equal_i(0, hoodie_delete_marked(NULL, &b, 0));
        hoodie_batch_dispose(&b);
        hoodie_field_dispose(&f);
    }
    hoodie_table_config_free(c);
}

HOODIE_TEST(table_config__v8_custom_partition_types)
{
    hoodie_table_config *c;
    const char *t = "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.table.keygenerator.type=CUSTOM\n"
                    "hoodie.table.partition.fields=region:SIMPLE,ts:TIMESTAMP\nhoodie.table.recordkey.fields=id\n";
    hoodie_assert_ok(hoodie_table_config_parse(&c, t, strlen(t), "p", 0));
    hoodie_assert_equal_i(HOODIE_KEYGEN_CUSTOM, c->keygen);
    hoodie_assert_equal_i(2, c->partition_fields.count);
    hoodie_assert_equal_s("region", c->partition_fields.items[0]);
    hoodie_assert_equal_s("SIMPLE", c->partition_field_types.items[0]);
    hoodie_assert_equal_s("ts", c->partition_fields.items[1]);
    hoodie_assert_equal_s("TIMESTAMP", c->partition_field_types.items[1]);
    hoodie_table_config_free(c);
}

HOODIE_TEST(table_config__standalone_props)
{
    hoodie_table_config *c = NULL;
    /* "valid": written by hand for hudi-rs; its checksum is CRC32(".trips") although hoodie.database.name=db,
     * so Java (and we) reject it unless verification is off */
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_table_config_load(&c, NULL,
                         hoodie_fixture("hudi/standalone/table_props_valid"), 0));
    hoodie_assert_contains(hoodie_error_last()->message, "table_props_valid/.hoodie/hoodie.properties");
    hoodie_assert_contains(hoodie_error_last()->message, "hoodie.table.checksum");
    c = load("hudi/standalone/table_props_valid", HOODIE_CONFIG_NO_CHECKSUM);
    hoodie_assert_equal_i(HOODIE_TABLE_COPY_ON_WRITE, c->type); /* "copy_on_write": case-insensitive */
    hoodie_assert_equal_s("trips", c->name);
    hoodie_assert_equal_s("db", c->database);
    hoodie_assert_equal_i(HOODIE_KEYGEN_SIMPLE, c->keygen);
    hoodie_assert_equal_s("city", c->partition_fields.items[0]);
    hoodie_assert_equal_s("ts", c->ordering_fields.items[0]);
    hoodie_assert(!c->timeline_timezone_utc);
    hoodie_assert_equal_s("files", hoodie_table_config_get(c, "hoodie.table.metadata.partitions"));
    hoodie_assert_equal_s("", hoodie_table_config_get(c, "hoodie.table.metadata.partitions.inflight"));
    hoodie_table_config_free(c);

    c = load("hudi/standalone/table_props_valid_minimum", 0);
    hoodie_assert_equal_i(6, c->version);
    hoodie_assert_equal_i(0, c->partition_fields.count);
    hoodie_assert_equal_i(HOODIE_KEYGEN_NON_PARTITION, c->keygen);
    hoodie_assert(c->keygen_inferred);
    hoodie_assert(c->populate_meta_fields);
    hoodie_table_config_free(c);

    c = load("hudi/standalone/table_props_partial", 0);
    hoodie_assert(c->database == NULL);
    hoodie_assert_equal_i(HOODIE_TABLE_COPY_ON_WRITE, c->type); /* absent: default */
    hoodie_table_config_free(c);

    c = load("hudi/standalone/table_props_no_create_schema", 0);
    hoodie_assert(c->create_schema == NULL);
    hoodie_table_config_free(c);

    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_table_config_load(&c, NULL,
                         hoodie_fixture("hudi/standalone/table_props_invalid"), 0));
    hoodie_assert_contains(hoodie_error_last()->message, "hoodie.table.version");
    hoodie_assert_contains(hoodie_error_last()->message, "baz");
    hoodie_assert(c == NULL);

    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_table_config_load(&c, NULL,
                         hoodie_fixture("hudi/standalone/leaf_dir"), 0));
}

HOODIE_TEST(table_config__bad_values)
{
    static const struct { const char *text; hoodie_status want; const char *msg; } cases[] = {
        { "hoodie.table.name=t\nhoodie.table.version=5\n", HOODIE_EUNSUPPORTED, "table version 5" },
        { "hoodie.table.name=t\nhoodie.table.version=7\n", HOODIE_EUNSUPPORTED, "table version 7" },
        { "hoodie.table.name=t\nhoodie.table.version=10\n", HOODIE_EUNSUPPORTED, "table version 10" },
        { "hoodie.table.name=t\n", HOODIE_EUNSUPPORTED, "hoodie.table.version" },
        { "hoodie.table.version=6\n", HOODIE_ECORRUPT, "missing hoodie.table.name" },
        { "hoodie.table.name=t\nhoodie.table.version=6\nhoodie.table.type=cow\n", HOODIE_ECORRUPT, "f:3: hoodie.table.type" },
        { "hoodie.table.name=t\nhoodie.table.version=6\nhoodie.table.checksum=bar\n", HOODIE_ECORRUPT, "checksum" },
        { "hoodie.table.name=t\nhoodie.table.version=6\nhoodie.table.checksum=1\n", HOODIE_ECORRUPT, "does not match" },
        { "hoodie.table.name=t\nhoodie.table.version=6\nhoodie.timeline.layout.version=2\n", HOODIE_ECORRUPT, "layout" },
        { "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.timeline.layout.version=_\n", HOODIE_ECORRUPT, "layout" },
        { "hoodie.table.name=t\nhoodie.table.version=6\nhoodie.table.base.file.format=foo\n", HOODIE_ECORRUPT, "base.file.format" },
        { "hoodie.table.name=t\nhoodie.table.version=6\nhoodie.populate.meta.fields=1\n", HOODIE_ECORRUPT, "not a boolean" },
        { "hoodie.table.name=t\nhoodie.table.version=6\nx=\\uZZZZ\n", HOODIE_ECORRUPT, "f:3: malformed" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hoodie_table_config *c = NULL;
        hoodie_assert_status(cases[i].want, hoodie_table_config_parse(&c, cases[i].text, strlen(cases[i].text), "f", 0));
        hoodie_assert_contains(hoodie_error_last()->message, cases[i].msg);
        hoodie_assert(c == NULL);
    }
}

/* A corrupt hoodie.properties with a good backup loads from the backup (on a copy, in the memory storage). */
HOODIE_TEST(table_config__backup_fallback)
{
    hoodie_storage *m;
    hoodie_table_config *c;
    const char *bad = "hoodie.table.name=t\nhoodie.table.version=6\nhoodie.table.checksum=1\n";
    char good[200];
    snprintf(good, sizeof good, "hoodie.table.name=t\nhoodie.table.version=6\nhoodie.table.checksum=%u\n",
             hoodie_table_config_checksum(NULL, "t"));
    hoodie_assert_ok(hoodie_storage_mem_new(&m));
    hoodie_assert_ok(hoodie_storage_write_all(m, "/tb/.hoodie/hoodie.properties", 0, bad, strlen(bad)));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_table_config_load(&c, m, "/tb", 0));
    hoodie_assert_ok(hoodie_storage_write_all(m, "/tb/.hoodie/hoodie.properties.backup", 0, good, strlen(good)));
    hoodie_assert_ok(hoodie_table_config_load(&c, m, "/tb", 0));
    hoodie_assert_contains(c->path, ".backup");
    hoodie_table_config_free(c);
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_table_config_load(&c, m, "/tb", HOODIE_CONFIG_NO_BACKUP));
    hoodie_storage_free(m);
}
