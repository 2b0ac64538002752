/* Public Parquet reader: storage <-> format/parquet/reader glue, describe (text / JSON), schema text. */
#include "table/pqfile.h"
#include "format/parquet/codec.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hoodie_parquet_reader {
    hoodie_reader rd;
    char *path;
    hoodie_pq_source src;
    hoodie_pq_file *file;
    char **columns;
    size_t n_columns;
    int64_t batch_rows;
    hoodie_pq_scan *proto;   /* validates the projection; owns the projected schema */
};

static hoodie_status src_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    return hoodie_reader_read(ctx, off, buf, len);
}

static void src_will_read(void *ctx, const uint64_t *offs, const size_t *lens, size_t n)
{
    hoodie_reader_will_read(ctx, offs, lens, n);
}

void hoodie_parquet_reader_free(hoodie_parquet_reader *r)
{
    if (!r) return;
    hoodie_pq_scan_free(r->proto);
    hoodie_pq_file_free(r->file);
    hoodie_reader_close(&r->rd);
    for (size_t i = 0; i < r->n_columns; i++) free(r->columns[i]);
    free(r->columns);
    free(r->path);
    free(r);
}

static hoodie_status open_scan(hoodie_parquet_reader *r, const uint32_t *rgs, size_t n_rgs, hoodie_pq_scan **out)
{
    hoodie_pq_scan_opts o = { 0 };
    o.columns = (const char *const *)r->columns;
    o.n_columns = r->n_columns;
    o.row_groups = rgs;
    o.n_row_groups = n_rgs;
    o.batch_rows = r->batch_rows;
    return hoodie_pq_scan_open(out, r->file, &o);
}

hoodie_status hoodie_parquet_reader_open(hoodie_parquet_reader **out, const char *path,
                                         const hoodie_parquet_read_opts *opts)
{
    return hoodie_pqfile__open(out, path, opts, NULL);
}

hoodie_status hoodie_pqfile__open(hoodie_parquet_reader **out, const char *path, const hoodie_parquet_read_opts *opts,
                                  const hoodie_renames *rn)
{
    hoodie_status rc;
    hoodie_parquet_read_opts def = HOODIE_PARQUET_READ_OPTS_INIT;
    *out = NULL;
    if (!opts) opts = &def;
    if (!path) return HOODIE_FAIL(HOODIE_EINVAL, "no path");
    hoodie_parquet_reader *r = calloc(1, sizeof *r);
    if (!r) return HOODIE_NOMEM();
    r->path = strdup(path);
    if (!r->path) { free(r); return HOODIE_NOMEM(); }
    r->batch_rows = opts->batch_rows > 0 ? opts->batch_rows : 65536;
    if (opts->columns) {
        r->columns = calloc(opts->n_columns ? opts->n_columns : 1, sizeof *r->columns);
        if (!r->columns) { rc = HOODIE_NOMEM(); goto fail; }
        for (size_t i = 0; i < opts->n_columns; i++) {
            r->columns[i] = strdup(opts->columns[i] ? opts->columns[i] : "");
            if (!r->columns[i]) { rc = HOODIE_NOMEM(); goto fail; }
            r->n_columns = i + 1;
        }
        if (opts->n_columns == 0) r->n_columns = 0;
    }
    HOODIE_TRY_GOTO(rc, hoodie_reader_open(&r->rd, opts->storage, r->path), fail);
    r->rd.path = r->path;
    r->src.ctx = &r->rd;
    r->src.read = src_read;
    r->src.will_read = src_will_read;
    r->src.size = r->rd.size;
    r->src.name = r->path;
    HOODIE_TRY_GOTO(rc, hoodie_pq_file_open(&r->file, &r->src), fail);
    if (rn) HOODIE_TRY_GOTO(rc, hoodie_pq_file_rename(r->file, rn->from, rn->to, rn->n), fail);
    HOODIE_TRY_GOTO(rc, open_scan(r, NULL, 0, &r->proto), fail);
    *out = r;
    return HOODIE_OK;
fail:
    hoodie_parquet_reader_free(r);
    return rc;
}

int64_t hoodie_parquet_reader_num_rows(const hoodie_parquet_reader *r)
{
    return hoodie_pq_file_metadata(r->file)->num_rows;
}

const char *hoodie_parquet_reader_kv(const hoodie_parquet_reader *r, const char *key)
{
    return hoodie_pq_file_kv(r->file, key);
}

const hoodie_field *hoodie_pqfile__schema(const hoodie_parquet_reader *r) { return hoodie_pq_scan_schema(r->proto); }
hoodie_pq_file *hoodie_pqfile__file(hoodie_parquet_reader *r) { return r->file; }
hoodie_status hoodie_pqfile__scan_open(hoodie_parquet_reader *r, hoodie_pq_scan **out) { return open_scan(r, NULL, 0, out); }
hoodie_status hoodie_pqfile__scan_open_without(hoodie_parquet_reader *r, const char *skip, hoodie_pq_scan **out)
{
    const hoodie_field *fs = hoodie_pqfile__schema(r);
    const char **cols = calloc(fs->n_children + 1, sizeof *cols);
    if (!cols) return HOODIE_NOMEM();
    size_t n = 0;
    for (size_t i = 0; i < fs->n_children; i++)
        if (strcmp(fs->children[i].name, skip)) cols[n++] = fs->children[i].name;
    hoodie_pq_scan_opts o = { 0 };
    o.columns = cols;
    o.n_columns = n;
    o.batch_rows = r->batch_rows;
    hoodie_status rc = n ? hoodie_pq_scan_open(out, r->file, &o) : open_scan(r, NULL, 0, out);
    free(cols);
    return rc;
}
hoodie_status hoodie_pqfile__scan_open_row_groups(hoodie_parquet_reader *r, const uint32_t *row_groups,
                                                  size_t n_row_groups, hoodie_pq_scan **out)
{
    return open_scan(r, row_groups ? row_groups : (const uint32_t *)"", n_row_groups, out);
}

hoodie_status hoodie_parquet_reader_schema_text(hoodie_parquet_reader *r, char **out)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_pq_schema_text(hoodie_pq_file_metadata(r->file), &b);
    if (rc >= 0) rc = hoodie_buf_cstr(&b);
    if (rc < 0) { hoodie_buf_dispose(&b); return rc; }
    *out = (char *)hoodie_buf_detach(&b, NULL);
    return HOODIE_OK;
}

/* ---- describe ---- */

static void stat_texts(const hoodie_pq_file *f, uint32_t rg, int leaf, char *min, char *max, size_t len,
                       hoodie_pq_column_stats *st)
{
    const hoodie_pq_leaf *lf = &hoodie_pq_file_schema(f)->leaves[leaf];
    min[0] = max[0] = 0;
    if (hoodie_pq_row_group_stats(f, rg, leaf, st) < 0) { memset(st, 0, sizeof *st); return; }
    if (st->has_min) hoodie_pq_value_text(&st->min, lf->type.scale, min, len);
    if (st->has_max) hoodie_pq_value_text(&st->max, lf->type.scale, max, len);
}

static void arrow_fields_text(hoodie_buf *b, const hoodie_field *f, int depth)
{
    char tb[128];
    for (int k = 0; k < depth; k++) hoodie_buf_append_str(b, "  ");
    hoodie_buf_printf(b, "%s: %s%s", f->name, hoodie_type_name(&f->type, tb, sizeof tb), f->nullable ? "" : " not null");
    if (f->field_id >= 0) hoodie_buf_printf(b, " (field_id %d)", f->field_id);
    hoodie_buf_putc(b, '\n');
    for (size_t i = 0; i < f->n_children; i++) arrow_fields_text(b, &f->children[i], depth + 1);
}

static json_t *arrow_field_json(const hoodie_field *f)
{
    char tb[128];
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(f->name));
    json_object_set_new(o, "type", json_string(hoodie_type_name(&f->type, tb, sizeof tb)));
    json_object_set_new(o, "nullable", json_boolean(f->nullable));
    if (f->field_id >= 0) json_object_set_new(o, "field_id", json_integer(f->field_id));
    if (f->n_children) {
        json_t *c = json_array();
        for (size_t i = 0; i < f->n_children; i++) json_array_append_new(c, arrow_field_json(&f->children[i]));
        json_object_set_new(o, "children", c);
    }
    return o;
}

/* A JSON string of bytes from a file: invalid UTF-8 (a corrupt or binary value) is shown with \\xHH escapes. */
static json_t *jstr(const char *s)
{
    if (!s) return json_null();
    json_t *j = json_string(s);
    if (j) return j;
    size_t n = strlen(s);
    char *buf = malloc(n * 4 + 1);
    if (!buf) return NULL;
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) buf[w++] = (char)c;
        else w += (size_t)snprintf(buf + w, 5, "\\x%02X", c);
    }
    buf[w] = '\0';
    j = json_string(buf);
    free(buf);
    return j;
}

static hoodie_status describe_json(hoodie_parquet_reader *r, char **out)
{
    const hoodie_pq_file *f = r->file;
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    const hoodie_pq_schema *s = hoodie_pq_file_schema(f);
    char tb[160], mn[512], mx[512];
    json_t *root = json_object();
    if (!root) return HOODIE_NOMEM();
    json_object_set_new(root, "file", jstr(r->path));
    json_object_set_new(root, "size", json_integer((json_int_t)r->src.size));
    json_object_set_new(root, "version", json_integer(m->version));
    json_object_set_new(root, "created_by", jstr(m->created_by));
    json_object_set_new(root, "num_rows", json_integer(m->num_rows));
    json_t *schema = json_array();
    for (uint32_t i = 0; i < m->schema_count; i++) {
        const hoodie_pq_schema_element *e = &m->schema[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", jstr(e->name));
        json_object_set_new(o, "type", json_string(hoodie_pq_element_type_text(e, tb, sizeof tb)));
        if (e->has_repetition)
            json_object_set_new(o, "repetition", json_string(e->repetition == HOODIE_PQ_REQUIRED ? "required"
                                                             : e->repetition == HOODIE_PQ_OPTIONAL ? "optional" : "repeated"));
        json_object_set_new(o, "num_children", json_integer(e->num_children));
        if (e->has_field_id) json_object_set_new(o, "field_id", json_integer(e->field_id));
        json_array_append_new(schema, o);
    }
    json_object_set_new(root, "schema", schema);
    json_object_set_new(root, "arrow_schema", arrow_field_json(&s->root));
    json_t *rgs = json_array();
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        const hoodie_pq_row_group *rg = &m->row_groups[g];
        json_t *o = json_object();
        json_object_set_new(o, "num_rows", json_integer(rg->num_rows));
        json_object_set_new(o, "total_byte_size", json_integer(rg->total_byte_size));
        json_t *cols = json_array();
        for (uint32_t c = 0; c < rg->column_count; c++) {
            const hoodie_pq_column_meta *cm = &rg->columns[c].meta;
            hoodie_pq_column_stats st;
            json_t *co = json_object();
            json_object_set_new(co, "path", jstr(s->leaves[c].path));
            json_object_set_new(co, "type", json_string(hoodie_pq_type_name(cm->type)));
            json_object_set_new(co, "codec", json_string(hoodie_codec_name(cm->codec)));
            json_t *enc = json_array();
            for (uint32_t k = 0; k < cm->encoding_count; k++) json_array_append_new(enc, json_string(hoodie_pq_encoding_name(cm->encodings[k])));
            json_object_set_new(co, "encodings", enc);
            json_object_set_new(co, "num_values", json_integer(cm->num_values));
            json_object_set_new(co, "compressed_size", json_integer(cm->total_compressed_size));
            json_object_set_new(co, "uncompressed_size", json_integer(cm->total_uncompressed_size));
            json_object_set_new(co, "data_page_offset", json_integer(cm->data_page_offset));
            if (cm->has_dictionary_page_offset)
                json_object_set_new(co, "dictionary_page_offset", json_integer(cm->dictionary_page_offset));
            stat_texts(f, g, (int)c, mn, mx, sizeof mn, &st);
            json_t *so = json_object();
            if (st.has_min) json_object_set_new(so, "min", jstr(mn));
            if (st.has_max) json_object_set_new(so, "max", jstr(mx));
            if (st.has_null_count) json_object_set_new(so, "null_count", json_integer(st.null_count));
            if (cm->statistics.has_distinct_count)
                json_object_set_new(so, "distinct_count", json_integer(cm->statistics.distinct_count));
            json_object_set_new(co, "statistics", so);
            json_array_append_new(cols, co);
        }
        json_object_set_new(o, "columns", cols);
        json_array_append_new(rgs, o);
    }
    json_object_set_new(root, "row_groups", rgs);
    json_t *kv = json_object();
    for (uint32_t i = 0; i < m->kv_count; i++) json_object_set_new(kv, m->kv[i].key, jstr(hoodie_pq_file_kv_at(r->file, i)));
    json_object_set_new(root, "key_value_metadata", kv);
    char *txt = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!txt) return HOODIE_NOMEM();
    *out = strdup(txt);
    free(txt);
    return *out ? HOODIE_OK : HOODIE_NOMEM();
}

hoodie_status hoodie_parquet_reader_describe(hoodie_parquet_reader *r, int json, char **out)
{
    if (json) return describe_json(r, out);
    const hoodie_pq_file *f = r->file;
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(f);
    const hoodie_pq_schema *s = hoodie_pq_file_schema(f);
    char mn[512], mx[512];
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_buf_printf(&b, "file: %s\nsize: %llu bytes\nversion: %d\ncreated_by: %s\nrows: %lld\nrow groups: %u\n",
                      r->path, (unsigned long long)r->src.size, m->version, m->created_by ? m->created_by : "",
                      (long long)m->num_rows, m->row_group_count);
    hoodie_buf_append_str(&b, "parquet schema:\n");
    hoodie_pq_schema_text(m, &b);
    hoodie_buf_append_str(&b, "arrow schema:\n");
    for (size_t i = 0; i < s->root.n_children; i++) arrow_fields_text(&b, &s->root.children[i], 1);
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        const hoodie_pq_row_group *rg = &m->row_groups[g];
        hoodie_buf_printf(&b, "row group %u: %lld rows, %lld bytes\n", g, (long long)rg->num_rows,
                          (long long)rg->total_byte_size);
        for (uint32_t c = 0; c < rg->column_count; c++) {
            const hoodie_pq_column_meta *cm = &rg->columns[c].meta;
            hoodie_pq_column_stats st;
            hoodie_buf_printf(&b, "  %s: %s %s encodings=", s->leaves[c].path, hoodie_pq_type_name(cm->type),
                              hoodie_codec_name(cm->codec));
            for (uint32_t k = 0; k < cm->encoding_count; k++)
                hoodie_buf_printf(&b, "%s%s", k ? "," : "", hoodie_pq_encoding_name(cm->encodings[k]));
            hoodie_buf_printf(&b, " values=%lld compressed=%lld uncompressed=%lld", (long long)cm->num_values,
                              (long long)cm->total_compressed_size, (long long)cm->total_uncompressed_size);
            stat_texts(f, g, (int)c, mn, mx, sizeof mn, &st);
            if (st.has_min) hoodie_buf_printf(&b, " min=%s max=%s", mn, mx);
            if (st.has_null_count) hoodie_buf_printf(&b, " nulls=%lld", (long long)st.null_count);
            hoodie_buf_putc(&b, '\n');
        }
    }
    if (m->kv_count) hoodie_buf_append_str(&b, "key-value metadata:\n");
    for (uint32_t i = 0; i < m->kv_count; i++) {
        const char *v = hoodie_pq_file_kv_at(r->file, i);
        hoodie_buf_printf(&b, "  %s = %s\n", m->kv[i].key, v ? v : "");
    }
    hoodie_status rc = hoodie_buf_cstr(&b);
    if (rc < 0) { hoodie_buf_dispose(&b); return rc; }
    *out = (char *)hoodie_buf_detach(&b, NULL);
    return HOODIE_OK;
}

/* Narrow an open reader to columns cols[0..n) (top-level names). */
static hoodie_status project(hoodie_parquet_reader *r, const char *const *cols, size_t n)
{
    char **v = calloc(n, sizeof *v);
    if (!v) return HOODIE_NOMEM();
    for (size_t i = 0; i < n; i++)
        if (!(v[i] = strdup(cols[i]))) {
            for (size_t k = 0; k < i; k++) free(v[k]);
            free(v);
            return HOODIE_NOMEM();
        }
    hoodie_pq_scan *proto = NULL;
    char **old = r->columns;
    size_t old_n = r->n_columns;
    r->columns = v;
    r->n_columns = n;
    hoodie_status rc = open_scan(r, NULL, 0, &proto);
    if (rc < 0) { /* as it was */
        r->columns = old;
        r->n_columns = old_n;
        old = v;
        old_n = n;
    } else {
        hoodie_pq_scan_free(r->proto);
        r->proto = proto;
    }
    for (size_t i = 0; i < old_n; i++) free(old[i]);
    free(old);
    return rc;
}

hoodie_status hoodie_pqfile__open_columns(hoodie_parquet_reader **out, const char *path, const hoodie_storage *storage,
                                          int64_t batch_rows, const hoodie_field *want, const hoodie_renames *rn)
{
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    o.storage = storage;
    o.batch_rows = batch_rows;
    HOODIE_TRY(hoodie_pqfile__open(out, path, &o, rn));
    const hoodie_field *fs = hoodie_pqfile__schema(*out);
    const char **cols = calloc(want->n_children + 1, sizeof *cols);
    if (!cols) return HOODIE_NOMEM();
    size_t n = 0;
    for (size_t i = 0; i < want->n_children; i++)
        if (hoodie_field_find(fs, want->children[i].name) >= 0) cols[n++] = want->children[i].name;
    hoodie_status rc = HOODIE_OK;
    if (n && n < fs->n_children) rc = project(*out, cols, n); /* the open file, not a second open (a round trip
                                                                    and its footer again on S3) */
    free(cols);
    if (rc < 0) { hoodie_parquet_reader_free(*out); *out = NULL; }
    return rc;
}
