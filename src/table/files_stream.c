/*
 * hoodie_files_stream (include/hoodie/input.h): input files as one Arrow stream. Text inputs are typed by the
 * table's schema (its data columns) when the table has one, else inferred; Parquet inputs keep their types.
 * Batches of later files are conformed to the first file's schema by column name.
 */
#include "hoodie/input.h"
#include "format/avro/schema.h"
#include "model/arrow.h"
#include "model/avro.h"
#include "model/conform.h"
#include "table/input.h"
#include "table/pqfile.h"
#include "table/table.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct files_stream {
    char **paths;
    size_t n, i;
    const hoodie_storage *storage;
    char *format;
    int64_t batch_rows;
    hoodie_field table_schema;   /* data columns of the table, or none */
    int have_table_schema;
    hoodie_field schema;         /* of the stream: the first file's */
    hoodie_field cur;            /* the open file's columns: a CSV input's those of its header */
    int have_cur;
    const void *buf;             /* hoodie_buffer_stream: the one input's bytes (borrowed), paths[0] its name */
    size_t buf_len;
    /* the open file */
    hoodie_input *text;
    hoodie_parquet_reader *pq;
    hoodie_pq_scan *pq_scan;
} files_stream;

static int is_parquet(const files_stream *fs, const char *path)
{
    if (fs->format) return !strcasecmp(fs->format, "parquet");
    size_t n = strlen(path);
    return n >= 8 && !strcasecmp(path + n - 8, ".parquet");
}

static void close_current(files_stream *fs)
{
    if (fs->have_cur) hoodie_field_dispose(&fs->cur);
    fs->have_cur = 0;
    hoodie_input_free(fs->text);
    fs->text = NULL;
    hoodie_pq_scan_free(fs->pq_scan);
    fs->pq_scan = NULL;
    hoodie_parquet_reader_free(fs->pq);
    fs->pq = NULL;
}

/* The open file's columns: a Parquet file's, a text input's typed by the table schema, but without the columns a
 * CSV header lacks (a write can then tell them from columns of nulls: Hudi refuses a batch without a table column,
 * hoodie_write_opts.set_null_for_missing_columns). */
static hoodie_status file_columns(files_stream *fs)
{
    const hoodie_field *all = fs->text ? hoodie_input_schema(fs->text) : hoodie_pqfile__schema(fs->pq);
    HOODIE_TRY(hoodie_field_init(&fs->cur, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    fs->have_cur = 1;
    for (size_t c = 0; c < all->n_children; c++)
        if (!fs->text || !hoodie_input_lacks(fs->text, c)) HOODIE_TRY(hoodie_field_add_child(&fs->cur, &all->children[c]));
    return HOODIE_OK;
}

static const hoodie_field *current_schema(const files_stream *fs) { return &fs->cur; }

static hoodie_status open_file(files_stream *fs, const char *path)
{
    if (fs->buf && is_parquet(fs, path))
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: Parquet from memory is not read; csv or jsonl", path);
    if (is_parquet(fs, path)) {
        hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
        o.storage = fs->storage;
        o.batch_rows = fs->batch_rows;
        HOODIE_TRY(hoodie_parquet_reader_open(&fs->pq, path, &o));
        HOODIE_TRY(hoodie_pqfile__scan_open(fs->pq, &fs->pq_scan));
        return file_columns(fs);
    }
    hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
    if (fs->format && !strcasecmp(fs->format, "csv")) o.format = HOODIE_INPUT_CSV;
    else if (fs->format && (!strcasecmp(fs->format, "jsonl") || !strcasecmp(fs->format, "json"))) o.format = HOODIE_INPUT_JSONL;
    else if (fs->format) return HOODIE_FAIL(HOODIE_EINVAL, "unknown input format '%s' (csv, jsonl, parquet)", fs->format);
    o.schema = fs->have_table_schema ? &fs->table_schema : NULL;
    o.add_new_columns = 1; /* columns the table lacks evolve its schema */
    o.batch_rows = fs->batch_rows;
    if (fs->buf) HOODIE_TRY(hoodie_input_open_buffer(&fs->text, fs->buf, fs->buf_len, path, &o));
    else HOODIE_TRY(hoodie_input_open(&fs->text, fs->storage, path, &o));
    return file_columns(fs);
}

static hoodie_status files_next(hoodie_batch *out, void *payload)
{
    files_stream *fs = payload;
    for (;;) {
        if (!fs->text && !fs->pq) {
            if (fs->i >= fs->n) return HOODIE_ITEROVER;
            HOODIE_TRY(open_file(fs, fs->paths[fs->i]));
            fs->i++;
            /* a column the first file lacks would be dropped by conforming: refuse it */
            const hoodie_field *cur = current_schema(fs);
            for (size_t c = 0; c < cur->n_children; c++)
                if (hoodie_field_find(&fs->schema, cur->children[c].name) < 0)
                    return HOODIE_FAIL(HOODIE_EINVAL, "%s: column '%s' is not a column of the first input, %s "
                                       "(give the inputs the same columns, or write them one at a time)",
                                       fs->paths[fs->i - 1], cur->children[c].name, fs->paths[0]);
        }
        hoodie_batch b;
        hoodie_status rc = fs->text ? hoodie_input_next(fs->text, &b) : hoodie_pq_scan_next(fs->pq_scan, &b);
        if (rc == HOODIE_ITEROVER) { close_current(fs); continue; }
        if (rc < 0) return rc;
        hoodie_batch c;
        rc = hoodie_conform_batch(&c, &fs->schema, &b);
        hoodie_batch_dispose(&b);
        if (rc < 0) { hoodie_error__prefix("%s: ", fs->paths[fs->i - 1]); return rc; }
        hoodie_batch_dispose(out);
        *out = c;
        return HOODIE_OK;
    }
}

static void files_free(void *payload)
{
    files_stream *fs = payload;
    if (!fs) return;
    close_current(fs);
    for (size_t i = 0; i < fs->n; i++) free(fs->paths[i]);
    free(fs->paths);
    free(fs->format);
    if (fs->have_table_schema) hoodie_field_dispose(&fs->table_schema);
    hoodie_field_dispose(&fs->schema);
    free(fs);
}

static hoodie_status load_table_schema(files_stream *fs, const char *table_path)
{
    hoodie_table *t;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    to.storage = fs->storage;
    HOODIE_TRY(hoodie_table_open(&t, table_path, &to));
    hoodie_field all;
    hoodie_status rc = hoodie_table__schema_field(t, NULL, &all);
    hoodie_table_free(t);
    if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); return HOODIE_OK; }
    if (rc < 0) return rc;
    rc = hoodie_field_init(&fs->table_schema, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0);
    for (size_t i = 0; rc == HOODIE_OK && i < all.n_children; i++)
        if (strncmp(all.children[i].name, "_hoodie_", 8) || !strcmp(all.children[i].name, "_hoodie_is_deleted"))
            rc = hoodie_field_add_child(&fs->table_schema, &all.children[i]);
    hoodie_field_dispose(&all);
    if (rc == HOODIE_OK) fs->have_table_schema = 1;
    else hoodie_field_dispose(&fs->table_schema);
    return rc;
}

static hoodie_status open_stream(const char *const *paths, size_t n_paths, const void *buf, size_t buf_len,
                                 const char *table_path, const hoodie_files_opts *opts, struct ArrowArrayStream *out)
{
    hoodie_files_opts def = HOODIE_FILES_OPTS_INIT;
    if (!opts) opts = &def;
    if (!n_paths) return HOODIE_FAIL(HOODIE_EINVAL, "no input files");
    files_stream *fs = calloc(1, sizeof *fs);
    if (!fs) return HOODIE_NOMEM();
    fs->buf = buf;
    fs->buf_len = buf_len;
    fs->storage = opts->storage;
    fs->batch_rows = opts->batch_rows;
    hoodie_status rc = HOODIE_OK;
    fs->paths = calloc(n_paths, sizeof *fs->paths);
    if (!fs->paths || (opts->format && !(fs->format = strdup(opts->format)))) rc = HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < n_paths; i++) {
        fs->paths[i] = strdup(paths[i]);
        if (!fs->paths[i]) rc = HOODIE_NOMEM();
        else fs->n = i + 1;
    }
    if (rc == HOODIE_OK && table_path) rc = load_table_schema(fs, table_path);
    /* the stream's schema is the first file's */
    if (rc == HOODIE_OK) rc = open_file(fs, fs->paths[0]);
    if (rc == HOODIE_OK) {
        fs->i = 1;
        rc = hoodie_field_clone(&fs->schema, current_schema(fs));
    }
    if (rc < 0) { files_free(fs); return rc; }
    return hoodie_arrow_stream_export(out, &fs->schema, files_next, files_free, fs);
}

hoodie_status hoodie_files_stream(const char *const *paths, size_t n_paths, const char *table_path,
                                  const hoodie_files_opts *opts, struct ArrowArrayStream *out)
{
    return open_stream(paths, n_paths, NULL, 0, table_path, opts, out);
}

hoodie_status hoodie_buffer_stream(const void *data, size_t len, const char *name, const char *table_path,
                                   const hoodie_files_opts *opts, struct ArrowArrayStream *out)
{
    if (!opts || !opts->format)
        return HOODIE_FAIL(HOODIE_EINVAL, "%s: an input in memory needs its format (csv or jsonl)",
                           name ? name : "input");
    const char *const names[1] = { name ? name : "input" };
    return open_stream(names, 1, data ? data : "", len, table_path, opts, out);
}
