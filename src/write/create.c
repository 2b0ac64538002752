/*
 * hoodie_table_create: the folder layout and hoodie.properties of a new table (hudi-format.md §2, §3), and the
 * .hoodie_partition_metadata writer.
 */
#include "write/create.h"
#include "storage/storage.h"
#include "table/config.h"
#include "util/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>

int64_t hoodie_write__now_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

/* ---- java.util.Properties (ConcurrentHashMap) iteration order ---- */

static uint32_t java_string_hash(const char *s)
{
    /* String.hashCode over UTF-16 code units; property keys are ASCII in practice, and non-ASCII UTF-8 is
     * decoded to code points (BMP) which is what Java sees for them. */
    uint32_t h = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp = *p++;
        if (cp >= 0xC0 && (*p & 0xC0) == 0x80) {
            int extra = cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : 1;
            cp &= 0x3Fu >> extra;
            for (int i = 0; i < extra && (*p & 0xC0) == 0x80; i++) cp = cp << 6 | (*p++ & 0x3Fu);
            if (cp > 0xFFFF) { /* surrogate pair */
                cp -= 0x10000;
                h = 31 * h + (0xD800 + (cp >> 10));
                cp = 0xDC00 + (cp & 0x3FF);
            }
        }
        h = 31 * h + cp;
    }
    return h;
}

static uint32_t chm_spread(uint32_t h) { return (h ^ (h >> 16)) & 0x7fffffffu; }

hoodie_status hoodie_write__java_props_order(hoodie_props *p)
{
    size_t n = 16, count = p->count;
    /* bins as singly linked lists of entry indexes */
    size_t *next = malloc((count + 1) * sizeof *next);
    size_t *bins = NULL;
    uint32_t *hash = malloc((count + 1) * sizeof *hash);
    hoodie_props_entry *sorted = malloc((count + 1) * sizeof *sorted);
    const size_t NIL = (size_t)-1;
    if (!next || !hash || !sorted) goto nomem;
    for (size_t i = 0; i < count; i++) hash[i] = chm_spread(java_string_hash(p->entries[i].key));
    bins = malloc(n * sizeof *bins);
    if (!bins) goto nomem;
    for (size_t b = 0; b < n; b++) bins[b] = NIL;
    size_t size_ctl = n - (n >> 2), filled = 0;
    for (size_t i = 0; i < count; i++) {
        size_t b = hash[i] & (n - 1);
        next[i] = NIL;
        if (bins[b] == NIL) bins[b] = i;
        else {
            size_t t = bins[b];
            while (next[t] != NIL) t = next[t];
            next[t] = i;
        }
        if (++filled >= size_ctl) { /* transfer to a table twice as large */
            size_t *nb = malloc(2 * n * sizeof *nb);
            if (!nb) goto nomem;
            for (size_t k = 0; k < 2 * n; k++) nb[k] = NIL;
            for (size_t k = 0; k < n; k++) {
                size_t f = bins[k];
                if (f == NIL) continue;
                size_t run_bit = hash[f] & n, last_run = f;
                for (size_t q = next[f]; q != NIL; q = next[q])
                    if ((hash[q] & n) != run_bit) { run_bit = hash[q] & n; last_run = q; }
                size_t ln = run_bit == 0 ? last_run : NIL, hn = run_bit == 0 ? NIL : last_run;
                /* nodes before last_run are prepended (the chain from last_run on is reused as is) */
                size_t q = f;
                while (q != last_run) {
                    size_t nx = next[q];
                    if ((hash[q] & n) == 0) { next[q] = ln; ln = q; }
                    else { next[q] = hn; hn = q; }
                    q = nx;
                }
                nb[k] = ln;
                nb[k + n] = hn;
            }
            free(bins);
            bins = nb;
            n *= 2;
            size_ctl = n - (n >> 2);
        }
    }
    size_t out = 0;
    for (size_t b = 0; b < n; b++)
        for (size_t q = bins[b]; q != NIL; q = next[q]) sorted[out++] = p->entries[q];
    memcpy(p->entries, sorted, count * sizeof *sorted);
    free(bins);
    free(next);
    free(hash);
    free(sorted);
    return HOODIE_OK;
nomem:
    free(bins);
    free(next);
    free(hash);
    free(sorted);
    return HOODIE_NOMEM();
}

/* ---- partition metadata ---- */

static char *join_path(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s) return NULL;
    memcpy(s, a, la);
    size_t o = la;
    if (lb) {
        if (la && a[la - 1] != '/') s[o++] = '/';
        memcpy(s + o, b, lb);
        o += lb;
    }
    s[o] = 0;
    return s;
}

hoodie_status hoodie_write__partition_metadata(const hoodie_storage *s, const char *base_path,
                                               const char *partition, const char *commit_time)
{
    hoodie_status rc = HOODIE_OK;
    hoodie_props props = HOODIE_PROPS_INIT;
    hoodie_buf text = HOODIE_BUF_INIT;
    char *dir = NULL, *path = NULL, *tmp = NULL;
    char depth[24], suffix[40];
    unsigned segments = 0;
    s = hoodie_storage__or_default(s);

    if (partition && *partition) {
        segments = 1;
        for (const char *c = partition; *c; c++) segments += *c == '/';
    }
    dir = join_path(base_path, partition ? partition : "");
    path = dir ? join_path(dir, ".hoodie_partition_metadata") : NULL;
    int64_t now = hoodie_write__now_us();
    snprintf(suffix, sizeof suffix, ".hoodie_partition_metadata_%lld", (long long)(now % 1000000007));
    tmp = dir ? join_path(dir, suffix) : NULL;
    if (!tmp || !path) { rc = HOODIE_NOMEM(); goto done; }

    int ex = s->exists(s->ctx, path);
    if (ex < 0) { rc = (hoodie_status)ex; goto done; }
    if (ex) goto done;
    HOODIE_TRY_GOTO(rc, s->mkdirs(s->ctx, dir), done);
    snprintf(depth, sizeof depth, "%u", segments);
    HOODIE_TRY_GOTO(rc, hoodie_props_set(&props, "commitTime", commit_time), done);
    HOODIE_TRY_GOTO(rc, hoodie_props_set(&props, "partitionDepth", depth), done);
    HOODIE_TRY_GOTO(rc, hoodie_props_store(&props, &text, "partition metadata", now / 1000), done);
    HOODIE_TRY_GOTO(rc, hoodie_storage_write_all(s, tmp, HOODIE_CREATE_EXCLUSIVE, text.data, text.len), done);
    rc = s->rename(s->ctx, tmp, path);
    if (rc < 0) (void)s->remove(s->ctx, tmp);

done:
    if (rc < 0) hoodie_error__prefix("partition metadata of '%s': ", partition ? partition : "");
    hoodie_props_dispose(&props);
    hoodie_buf_dispose(&text);
    free(dir);
    free(path);
    free(tmp);
    return rc;
}

/* ---- hoodie_table_create ---- */

typedef struct keygen_desc {
    const char *names[3];   /* accepted spellings */
    const char *type;       /* v8 hoodie.table.keygenerator.type */
    const char *klass;      /* v6 hoodie.table.keygenerator.class */
} keygen_desc;

static const keygen_desc keygens[] = {
    { { "simple", "SIMPLE", NULL }, "SIMPLE", "org.apache.hudi.keygen.SimpleKeyGenerator" },
    { { "complex", "COMPLEX", NULL }, "COMPLEX", "org.apache.hudi.keygen.ComplexKeyGenerator" },
    { { "nonpartitioned", "NON_PARTITION", "non_partitioned" }, "NON_PARTITION",
      "org.apache.hudi.keygen.NonpartitionedKeyGenerator" },
    { { "timestamp", "TIMESTAMP", "timestamp_based" }, "TIMESTAMP",
      "org.apache.hudi.keygen.TimestampBasedKeyGenerator" },
    { { "custom", "CUSTOM", NULL }, "CUSTOM", "org.apache.hudi.keygen.CustomKeyGenerator" },
};
enum { KG_SIMPLE, KG_COMPLEX, KG_NONPART, KG_TIMESTAMP, KG_CUSTOM };

static hoodie_status join_list(hoodie_buf *b, const char *const *items, size_t count, int strip_type,
                               const char *what)
{
    hoodie_buf_clear(b);
    for (size_t i = 0; i < count; i++) {
        const char *f = items[i];
        if (!f || !*f) return HOODIE_FAIL(HOODIE_EINVAL, "%s #%zu is empty", what, i + 1);
        if (strchr(f, ',')) return HOODIE_FAIL(HOODIE_EINVAL, "%s '%s' contains a comma", what, f);
        size_t n = strlen(f);
        if (strip_type) {
            const char *colon = strchr(f, ':');
            if (colon) n = (size_t)(colon - f);
        }
        if (i) HOODIE_TRY(hoodie_buf_putc(b, ','));
        HOODIE_TRY(hoodie_buf_append(b, f, n));
    }
    return hoodie_buf_cstr(b);
}

static hoodie_status create_dirs(const hoodie_storage *s, const char *base, int v8)
{
    static const char *const common[] = { ".hoodie/.aux/.bootstrap/.partitions", ".hoodie/.aux/.bootstrap/.fileids",
                                          ".hoodie/.temp", ".hoodie/.schema", ".hoodie/archived" };
    hoodie_status rc = HOODIE_OK;
    for (size_t i = 0; i < sizeof common / sizeof *common + 1 && rc == HOODIE_OK; i++) {
        const char *rel = i < sizeof common / sizeof *common ? common[i] : (v8 ? ".hoodie/timeline/history" : NULL);
        if (!rel) break;
        char *p = join_path(base, rel);
        if (!p) return HOODIE_NOMEM();
        rc = s->mkdirs(s->ctx, p);
        free(p);
    }
    return rc;
}

hoodie_status hoodie_table_create(const char *base_path, const hoodie_table_create_opts *o)
{
    hoodie_status rc = HOODIE_OK;
    hoodie_props props = HOODIE_PROPS_INIT;
    hoodie_buf keys = HOODIE_BUF_INIT, parts = HOODIE_BUF_INIT, text = HOODIE_BUF_INIT;
    char *props_path = NULL;
    char num[32], comment[96];

    if (!base_path || !*base_path) return HOODIE_FAIL(HOODIE_EINVAL, "table create: no base path");
    if (!o) return HOODIE_FAIL(HOODIE_EINVAL, "table create: no options");
    if (o->version != HOODIE_TABLE_CREATE_OPTS_VERSION)
        return HOODIE_FAIL(HOODIE_EINVAL, "table create: options version %u, expected %u", o->version,
                           HOODIE_TABLE_CREATE_OPTS_VERSION);
    const hoodie_storage *s = hoodie_storage__or_default(o->storage);
    int tv = o->table_version ? o->table_version : 8;
    if (tv != 8 && tv != 6)
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "table create: table version %d (hoodie writes 6 and 8)", tv);
    int v8 = tv == 8;
    if (!o->name || !*o->name) return HOODIE_FAIL(HOODIE_EINVAL, "table create: a table name is required");
    if (o->type != HOODIE_CREATE_COPY_ON_WRITE && o->type != HOODIE_CREATE_MERGE_ON_READ)
        return HOODIE_FAIL(HOODIE_EINVAL, "table create: unknown table type %d", (int)o->type);
    if (!o->record_key_fields || o->record_key_count == 0)
        return HOODIE_FAIL(HOODIE_EINVAL, "table create: at least one record key field is required");
    size_t npart = o->partition_fields ? o->partition_count : 0;

    /* key generator */
    int kg = -1;
    if (o->keygen && *o->keygen) {
        for (size_t i = 0; i < sizeof keygens / sizeof *keygens && kg < 0; i++)
            for (size_t j = 0; j < 3 && keygens[i].names[j]; j++)
                if (!strcasecmp(o->keygen, keygens[i].names[j])) kg = (int)i;
        if (kg < 0)
            return HOODIE_FAIL(HOODIE_EINVAL, "table create: unknown key generator '%s' (simple, complex, "
                               "nonpartitioned, timestamp or custom)", o->keygen);
    } else {
        kg = npart == 0 ? KG_NONPART : o->record_key_count > 1 ? KG_COMPLEX : KG_SIMPLE;
    }
    if (kg == KG_NONPART && npart)
        return HOODIE_FAIL(HOODIE_EINVAL, "table create: the nonpartitioned key generator takes no partition fields");
    if ((kg == KG_SIMPLE || kg == KG_TIMESTAMP) && o->record_key_count != 1)
        return HOODIE_FAIL(HOODIE_EINVAL, "table create: the %s key generator takes exactly one record key field "
                           "(use complex)", keygens[kg].names[0]);
    if ((kg == KG_SIMPLE || kg == KG_TIMESTAMP) && npart != 1)
        return HOODIE_FAIL(HOODIE_EINVAL, "table create: the %s key generator takes exactly one partition field",
                           keygens[kg].names[0]);
    if (kg == KG_CUSTOM)
        for (size_t i = 0; i < npart; i++) {
            const char *c = o->partition_fields[i] ? strchr(o->partition_fields[i], ':') : NULL;
            if (!c || (strcasecmp(c + 1, "SIMPLE") && strcasecmp(c + 1, "TIMESTAMP")))
                return HOODIE_FAIL(HOODIE_EINVAL, "table create: custom key generator partition field '%s' needs a "
                                   ":SIMPLE or :TIMESTAMP suffix", o->partition_fields[i] ? o->partition_fields[i] : "");
        }
    else
        for (size_t i = 0; i < npart; i++)
            if (o->partition_fields[i] && strchr(o->partition_fields[i], ':'))
                return HOODIE_FAIL(HOODIE_EINVAL, "table create: partition field '%s': a ':TYPE' suffix needs the "
                                   "custom key generator", o->partition_fields[i]);

    /* merge mode */
    int event_time;
    switch (o->merge_mode) {
    case HOODIE_CREATE_MERGE_DEFAULT: event_time = o->ordering_field && *o->ordering_field; break;
    case HOODIE_CREATE_MERGE_EVENT_TIME: event_time = 1; break;
    case HOODIE_CREATE_MERGE_COMMIT_TIME: case HOODIE_CREATE_MERGE_AWS_DMS: event_time = 0; break;
    default: return HOODIE_FAIL(HOODIE_EINVAL, "table create: unknown merge mode %d", (int)o->merge_mode);
    }
    if (event_time && !(o->ordering_field && *o->ordering_field))
        return HOODIE_FAIL(HOODIE_EINVAL, "table create: event-time merging needs an ordering field");

    int lsm = 0, bucket = 0;
    if (o->layout && *o->layout && strcasecmp(o->layout, "default")) {
        if (strcasecmp(o->layout, "lsm_tree"))
            return HOODIE_FAIL(HOODIE_EINVAL, "table create: unknown storage layout '%s' (default or lsm_tree)", o->layout);
        if (o->type != HOODIE_CREATE_MERGE_ON_READ)
            return HOODIE_FAIL(HOODIE_EINVAL, "table create: the lsm_tree layout is for MERGE_ON_READ tables only");
        if (!v8) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "table create: the lsm_tree layout needs table version 8");
        lsm = 1;
    }
    if (o->index_type && *o->index_type && strcasecmp(o->index_type, "bloom")) {
        if (strcasecmp(o->index_type, "bucket"))
            return HOODIE_FAIL(HOODIE_EINVAL, "table create: unknown index '%s' (bloom or bucket)", o->index_type);
        if (o->bucket_count < 1)
            return HOODIE_FAIL(HOODIE_EINVAL, "table create: the bucket index needs a number of buckets >= 1");
        bucket = 1;
    } else if (o->bucket_count) {
        return HOODIE_FAIL(HOODIE_EINVAL, "table create: a number of buckets needs the bucket index");
    }

    if (o->schema_json) {
        json_error_t jerr;
        json_t *j = json_loads(o->schema_json, 0, &jerr);
        if (!j || !json_is_object(j)) {
            json_decref(j);
            return HOODIE_FAIL(HOODIE_EINVAL, "table create: the schema is not a JSON object (line %d: %s)",
                               jerr.line, jerr.text);
        }
        json_decref(j);
    }

    HOODIE_TRY_GOTO(rc, join_list(&keys, o->record_key_fields, o->record_key_count, 0, "record key field"), done);
    HOODIE_TRY_GOTO(rc, join_list(&parts, o->partition_fields, npart, !v8, "partition field"), done);
    int dms = o->merge_mode == HOODIE_CREATE_MERGE_AWS_DMS;
    const char *payload = dms          ? "org.apache.hudi.common.model.AWSDmsAvroPayload"
                          : event_time ? "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
                                       : "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload";
    const char *ordering = o->ordering_field && *o->ordering_field ? o->ordering_field : NULL;
    const char *db = o->database && *o->database ? o->database : NULL;
    snprintf(num, sizeof num, "%lu", (unsigned long)hoodie_table_config_checksum(db, o->name));

#define SET(k, v) HOODIE_TRY_GOTO(rc, hoodie_props_set(&props, (k), (v)), done)
    /* Insertion order as Hudi's (it only decides the order of keys that share a hash bin). */
    if (v8) {
        SET("hoodie.compaction.payload.class", payload);
        SET("hoodie.table.initial.version", "8");
        SET("hoodie.table.keygenerator.type", keygens[kg].type);
        SET("hoodie.table.type", o->type == HOODIE_CREATE_MERGE_ON_READ ? "MERGE_ON_READ" : "COPY_ON_WRITE");
        if (ordering) SET("hoodie.table.precombine.field", ordering);
        if (npart) SET("hoodie.table.partition.fields", (const char *)parts.data);
        SET("hoodie.archivelog.folder", "archived");
        if (o->schema_json) SET("hoodie.table.create.schema", o->schema_json);
        SET("hoodie.timeline.layout.version", "2");
        SET("hoodie.timeline.history.path", "history");
        SET("hoodie.table.checksum", num);
        SET("hoodie.datasource.write.drop.partition.columns", o->drop_partition_columns ? "true" : "false");
        SET("hoodie.record.merge.strategy.id", dms          ? HOODIE_MERGE_STRATEGY_PAYLOAD
                                               : event_time ? HOODIE_MERGE_STRATEGY_EVENT_TIME
                                                            : HOODIE_MERGE_STRATEGY_COMMIT_TIME);
        SET("hoodie.table.name", o->name);
        SET("hoodie.table.recordkey.fields", (const char *)keys.data);
        SET("hoodie.timeline.path", "timeline");
        SET("hoodie.datasource.write.hive_style_partitioning", o->hive_style ? "true" : "false");
        if (db) SET("hoodie.database.name", db);
        SET("hoodie.datasource.write.partitionpath.urlencode", o->url_encode ? "true" : "false");
        SET("hoodie.record.merge.mode", dms ? "CUSTOM" : event_time ? "EVENT_TIME_ORDERING" : "COMMIT_TIME_ORDERING");
        SET("hoodie.table.version", "8");
    } else {
        SET("hoodie.compaction.payload.class", payload);
        SET("hoodie.table.type", o->type == HOODIE_CREATE_MERGE_ON_READ ? "MERGE_ON_READ" : "COPY_ON_WRITE");
        if (ordering) SET("hoodie.table.precombine.field", ordering);
        if (npart) SET("hoodie.table.partition.fields", (const char *)parts.data);
        SET("hoodie.archivelog.folder", "archived");
        if (o->schema_json) SET("hoodie.table.create.schema", o->schema_json);
        SET("hoodie.timeline.layout.version", "1");
        SET("hoodie.table.checksum", num);
        SET("hoodie.datasource.write.drop.partition.columns", o->drop_partition_columns ? "true" : "false");
        SET("hoodie.table.recordkey.fields", (const char *)keys.data);
        SET("hoodie.table.name", o->name);
        SET("hoodie.compaction.record.merger.strategy", HOODIE_MERGE_STRATEGY_EVENT_TIME);
        SET("hoodie.datasource.write.hive_style_partitioning", o->hive_style ? "true" : "false");
        SET("hoodie.table.keygenerator.class", keygens[kg].klass);
        if (db) SET("hoodie.database.name", db);
        SET("hoodie.datasource.write.partitionpath.urlencode", o->url_encode ? "true" : "false");
        SET("hoodie.table.version", "6");
    }
    if (o->no_meta_fields) SET("hoodie.populate.meta.fields", "false");
    if (o->timeline_timezone_utc) SET("hoodie.table.timeline.timezone", "UTC");
    if (lsm) SET("hoodie.table.storage.layout", "lsm_tree");
    if (bucket) {
        char nb[32];
        snprintf(nb, sizeof nb, "%d", o->bucket_count);
        SET("hoodie.index.type", "BUCKET");
        SET("hoodie.index.bucket.engine", "SIMPLE");
        SET("hoodie.bucket.index.num.buckets", nb);
        SET("hoodie.bucket.index.hash.field", (const char *)keys.data);
    }
    if (o->extra_props) {
        for (const char *const *kv = o->extra_props; kv[0]; kv += 2) {
            if (!kv[1]) { rc = HOODIE_FAIL(HOODIE_EINVAL, "table create: extra property '%s' has no value", kv[0]); goto done; }
            if (hoodie_props_get(&props, kv[0])) {
                rc = HOODIE_FAIL(HOODIE_EINVAL, "table create: extra property '%s' is set by the create itself", kv[0]);
                goto done;
            }
            SET(kv[0], kv[1]);
        }
    }
#undef SET
    HOODIE_TRY_GOTO(rc, hoodie_write__java_props_order(&props), done);

    props_path = join_path(base_path, ".hoodie/hoodie.properties");
    if (!props_path) { rc = HOODIE_NOMEM(); goto done; }
    int ex = s->exists(s->ctx, props_path);
    if (ex < 0) { rc = (hoodie_status)ex; goto done; }
    if (ex && lsm) {
        rc = HOODIE_FAIL(HOODIE_EEXISTS, "a Hudi table already exists at '%s': the lsm_tree storage layout is chosen "
                         "when a table is created, an existing table cannot be switched to it", base_path);
        goto done;
    }
    if (ex) {
        rc = HOODIE_FAIL(HOODIE_EEXISTS, "a Hudi table already exists at '%s' (%s is present)", base_path, props_path);
        goto done;
    }
    int64_t now = hoodie_write__now_us();
    hoodie_props_store_comment(comment, sizeof comment, "Properties saved on ", now);
    HOODIE_TRY_GOTO(rc, hoodie_props_store(&props, &text, comment, now / 1000), done);
    if (o->extra_props) { /* the table must load: an extra property with a bad value is refused here, not later */
        hoodie_table_config *check = NULL;
        rc = hoodie_table_config_parse(&check, text.data, text.len, "hoodie.properties", 0);
        hoodie_table_config_free(check);
        if (rc < 0) {
            hoodie_error__prefix("table create: ");
            rc = HOODIE_EINVAL;
            goto done;
        }
    }
    HOODIE_TRY_GOTO(rc, create_dirs(s, base_path, v8), done);
    rc = hoodie_storage_write_all(s, props_path, HOODIE_CREATE_EXCLUSIVE, text.data, text.len);
    if (rc == HOODIE_EEXISTS)
        rc = HOODIE_FAIL(HOODIE_EEXISTS, "a Hudi table already exists at '%s' (created concurrently)", base_path);

done:
    if (rc < 0 && rc != HOODIE_EEXISTS && rc != HOODIE_EINVAL) hoodie_error__prefix("create table at '%s': ", base_path);
    hoodie_props_dispose(&props);
    hoodie_buf_dispose(&keys);
    hoodie_buf_dispose(&parts);
    hoodie_buf_dispose(&text);
    free(props_path);
    return rc;
}
