/* hoodie create: create an empty Hudi table (hoodie.properties and the .hoodie layout). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: hoodie create TABLE --type cow|mor --name NAME --record-key F[,F...]\n"
    "                    [--partition-fields F[,F...]] [--hive-style] [--url-encode]\n"
    "                    [--keygen simple|complex|nonpartitioned|timestamp|custom]\n"
    "                    [--ordering-field F] [--merge-mode event_time|commit_time|aws_dms]\n"
    "                    [--table-version 8|6] [--schema FILE] [--database DB]\n"
    "                    [--timezone utc|local] [--no-meta-fields] [--prop KEY=VALUE]...\n"
    "                    [--layout default|lsm_tree] [--index bloom|bucket] [--buckets N]\n"
    "\n"
    "Custom key generator partition fields carry their type: --partition-fields region:SIMPLE,ts:TIMESTAMP.\n"
    "--prop persists extra table properties, e.g. hoodie.keygen.timebased.output.dateformat=yyyy/MM/dd, or\n"
    "hoodie.table.cdc.enabled=true (writes also log their changes for Hudi's CDC queries; with\n"
    "hoodie.table.cdc.supplemental.logging.mode=OP_KEY_ONLY|DATA_BEFORE|DATA_BEFORE_AFTER, the default).\n"
    "--merge-mode aws_dms makes an AWS DMS table (AWSDmsAvroPayload): the later write wins, and a row whose Op\n"
    "column is D deletes its key. Any other delete marker, as Hudi 1.1 stores it: --prop\n"
    "hoodie.record.merge.property.hoodie.payload.delete.field=F with ...hoodie.payload.delete.marker=VALUE.\n";

/* Split "a,b,c" in place into a malloc'ed array of pointers. */
static const char **split(char *s, size_t *count)
{
    size_t n = 1;
    for (char *p = s; *p; p++) n += *p == ',';
    const char **items = malloc(n * sizeof *items);
    if (!items) return NULL;
    *count = 0;
    for (char *tok = s, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next) *next++ = 0;
        items[(*count)++] = tok;
    }
    return items;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        /* drop trailing whitespace: the schema is stored as one property value */
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ')) len--;
        buf[len] = 0;
    }
    return buf;
}

int cmd_create(int argc, char **argv)
{
    hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
    const char *table = NULL, *type = NULL, *schema_file = NULL;
    char *keys = NULL, *parts = NULL, *schema = NULL;
    const char **key_list = NULL, **part_list = NULL;
    const char **extra = calloc((size_t)argc * 2 + 1, sizeof *extra);
    size_t extra_n = 0;
    int ret = CLI_OK;
    if (!extra) return cli_fail(HOODIE_ENOMEM, "create");

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDS_VALUE() do { if (!v) { ret = cli_usage("create: %s needs a value", a); goto done; } i++; } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(usage_text, stdout); goto done; }
        else if (!strcmp(a, "--type")) { NEEDS_VALUE(); type = v; }
        else if (!strcmp(a, "--name")) { NEEDS_VALUE(); o.name = v; }
        else if (!strcmp(a, "--record-key")) { NEEDS_VALUE(); free(keys); keys = strdup(v); }
        else if (!strcmp(a, "--partition-fields")) { NEEDS_VALUE(); free(parts); parts = strdup(v); }
        else if (!strcmp(a, "--hive-style")) o.hive_style = 1;
        else if (!strcmp(a, "--url-encode")) o.url_encode = 1;
        else if (!strcmp(a, "--no-meta-fields")) o.no_meta_fields = 1;
        else if (!strcmp(a, "--keygen")) { NEEDS_VALUE(); o.keygen = v; }
        else if (!strcmp(a, "--ordering-field")) { NEEDS_VALUE(); o.ordering_field = v; }
        else if (!strcmp(a, "--database")) { NEEDS_VALUE(); o.database = v; }
        else if (!strcmp(a, "--schema")) { NEEDS_VALUE(); schema_file = v; }
        else if (!strcmp(a, "--layout")) { NEEDS_VALUE(); o.layout = v; }
        else if (!strcmp(a, "--index")) { NEEDS_VALUE(); o.index_type = v; }
        else if (!strcmp(a, "--buckets")) {
            NEEDS_VALUE();
            char *end;
            long nb = strtol(v, &end, 10);
            if (*end || nb < 1 || nb > 1000000) { ret = cli_usage("create: --buckets is a number >= 1, not '%s'", v); goto done; }
            o.bucket_count = (int)nb;
        }
        else if (!strcmp(a, "--merge-mode")) {
            NEEDS_VALUE();
            if (!strcmp(v, "event_time")) o.merge_mode = HOODIE_CREATE_MERGE_EVENT_TIME;
            else if (!strcmp(v, "commit_time")) o.merge_mode = HOODIE_CREATE_MERGE_COMMIT_TIME;
            else if (!strcmp(v, "aws_dms")) o.merge_mode = HOODIE_CREATE_MERGE_AWS_DMS;
            else {
                ret = cli_usage("create: --merge-mode is event_time, commit_time or aws_dms, not '%s'", v);
                goto done;
            }
        } else if (!strcmp(a, "--table-version")) {
            NEEDS_VALUE();
            if (!strcmp(v, "8")) o.table_version = 8;
            else if (!strcmp(v, "6")) o.table_version = 6;
            else { ret = cli_usage("create: --table-version is 8 or 6, not '%s'", v); goto done; }
        } else if (!strcmp(a, "--timezone")) {
            NEEDS_VALUE();
            if (!strcmp(v, "utc") || !strcmp(v, "UTC")) o.timeline_timezone_utc = 1;
            else if (strcmp(v, "local") && strcmp(v, "LOCAL")) {
                ret = cli_usage("create: --timezone is utc or local, not '%s'", v);
                goto done;
            }
        } else if (!strcmp(a, "--prop")) {
            NEEDS_VALUE();
            char *eq = strchr(v, '=');
            if (!eq || eq == v) { ret = cli_usage("create: --prop needs KEY=VALUE, not '%s'", v); goto done; }
            *eq = 0;
            extra[extra_n++] = v;
            extra[extra_n++] = eq + 1;
        } else if (a[0] == '-' && a[1]) { ret = cli_usage("create: unknown option '%s'", a); goto done; }
        else if (!table) table = a;
        else { ret = cli_usage("create: unexpected argument '%s'", a); goto done; }
#undef NEEDS_VALUE
    }
    if (!table) { ret = cli_usage("create: missing TABLE"); goto done; }
    if (!type) { ret = cli_usage("create: missing --type cow|mor"); goto done; }
    if (!strcmp(type, "cow") || !strcmp(type, "COPY_ON_WRITE")) o.type = HOODIE_CREATE_COPY_ON_WRITE;
    else if (!strcmp(type, "mor") || !strcmp(type, "MERGE_ON_READ")) o.type = HOODIE_CREATE_MERGE_ON_READ;
    else { ret = cli_usage("create: --type is cow or mor, not '%s'", type); goto done; }
    if (!o.name) { ret = cli_usage("create: missing --name"); goto done; }
    if (!keys) { ret = cli_usage("create: missing --record-key"); goto done; }
    key_list = split(keys, &o.record_key_count);
    o.record_key_fields = key_list;
    if (parts && *parts) {
        part_list = split(parts, &o.partition_count);
        o.partition_fields = part_list;
    }
    if (schema_file) {
        schema = read_file(schema_file);
        if (!schema) {
            fprintf(stderr, "hoodie: create: cannot read schema file '%s'\n", schema_file);
            ret = CLI_ERROR;
            goto done;
        }
        o.schema_json = schema;
    }
    if (extra_n) o.extra_props = extra;
    hoodie_status rc = hoodie_table_create(table, &o);
    if (rc < 0) { ret = cli_fail(rc, "create"); goto done; }
    printf("created %s table '%s' (version %d) at %s\n",
           o.type == HOODIE_CREATE_MERGE_ON_READ ? "MERGE_ON_READ" : "COPY_ON_WRITE", o.name,
           o.table_version ? o.table_version : 8, table);
done:
    free(keys);
    free(parts);
    free(schema);
    free(key_list);
    free(part_list);
    free(extra);
    return ret;
}

/* hoodie alter TABLE --rename OLD:NEW | --drop COL | --add NAME:TYPE | --type NAME:TYPE ... (hoodie_table_alter) */
int cmd_alter(int argc, char **argv)
{
    static const char *usage =
        "usage: hoodie alter TABLE [--rename OLD:NEW]... [--drop COL]... [--add NAME:TYPE]... [--type NAME:TYPE]...\n\n"
        "  ALTER TABLE on a table that reads its columns by field id (Hudi's schema on read): columns, and fields\n"
        "  of nested records by their path (s.x, a.element.x, m.value.x), renamed, dropped, added (nullable, at\n"
        "  the end of their record) or given another type (--type, as Hudi allows: int to long, float, double,\n"
        "  string or decimal; long to float, double, string or decimal; float to double, string or decimal; double\n"
        "  to string or decimal; decimal to a wider decimal or string; date to string; string to date or decimal;\n"
        "  readers convert old values as Hudi does; a.element and m.value name an array's element and a map's\n"
        "  value), without rewriting a file, in one ALTER_SCHEMA commit. Older instants keep reading the columns as\n"
        "  they were. TYPE: boolean, int, long, float, double, string, binary, date, timestamp, decimal(P,S).\n"
        "  Record key, partition and ordering fields (and records holding them) stay as they are.\n";
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) { fputs(usage, stdout); return CLI_OK; }
    if (argc < 2 || argv[1][0] == '-') return cli_usage("alter: no table given");
    size_t cap = (size_t)argc * 2 + 2, nr = 0, nd = 0, na = 0, nt = 0;
    const char **ren = calloc(cap, sizeof *ren), **drop = calloc(cap, sizeof *drop), **add = calloc(cap, sizeof *add),
               **rty = calloc(cap, sizeof *rty);
    char **owned = calloc(cap, sizeof *owned);
    size_t no = 0;
    int ret = CLI_OK;
    if (!ren || !drop || !add || !rty || !owned) { ret = (fputs("hoodie: alter: out of memory\n", stderr), CLI_ERROR); goto out; }
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc || (strcmp(a, "--rename") && strcmp(a, "--drop") && strcmp(a, "--add") && strcmp(a, "--type"))) {
            ret = cli_usage(i + 1 >= argc && a[0] == '-' ? "alter: %s needs a value" : "alter: unexpected argument '%s'", a);
            goto out;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--drop")) { drop[nd++] = v; continue; }
        const char *colon = strchr(v, ':');
        if (!colon || colon == v || !colon[1]) {
            ret = cli_usage("alter: %s takes %s, not '%s'", a, !strcmp(a, "--rename") ? "OLD:NEW" : "NAME:TYPE", v);
            goto out;
        }
        char *name = strndup(v, (size_t)(colon - v));
        if (!name) { ret = (fputs("hoodie: alter: out of memory\n", stderr), CLI_ERROR); goto out; }
        owned[no++] = name;
        if (!strcmp(a, "--rename")) { ren[2 * nr] = name; ren[2 * nr + 1] = colon + 1; nr++; }
        else if (!strcmp(a, "--type")) { rty[2 * nt] = name; rty[2 * nt + 1] = colon + 1; nt++; }
        else { add[2 * na] = name; add[2 * na + 1] = colon + 1; na++; }
    }
    hoodie_table_alter_opts o = HOODIE_TABLE_ALTER_OPTS_INIT;
    o.renames = ren;
    o.n_renames = nr;
    o.drops = drop;
    o.n_drops = nd;
    o.adds = add;
    o.n_adds = na;
    o.retypes = rty;
    o.n_retypes = nt;
    char instant[32];
    hoodie_status rc = hoodie_table_alter(argv[1], &o, instant, sizeof instant);
    if (rc < 0) ret = cli_fail(rc, "alter");
    else printf("alter %s: %zu renamed, %zu dropped, %zu added, %zu retyped\n", instant, nr, nd, na, nt);
out:
    for (size_t i = 0; owned && i < no; i++) free(owned[i]);
    free(owned);
    free(ren);
    free(rty);
    free(drop);
    free(add);
    return ret;
}
