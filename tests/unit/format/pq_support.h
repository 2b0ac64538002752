/*
 * Test support for the Parquet reader tests: a file-backed hoodie_pq_source, a value renderer that matches
 * DuckDB's VARCHAR rendering of nested values ([a, b], {'x': 1}, {k=v}), and a DuckDB oracle runner.
 * Header-only (static), included by the format test files.
 */
#ifndef HOODIE_TEST_PQ_SUPPORT_H
#define HOODIE_TEST_PQ_SUPPORT_H

#include "hoodie_test.h"
#include "format/parquet/reader.h"
#include "util/buf.h"
#include "util/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pqt_mem { const uint8_t *data; size_t len; } pqt_mem;

__attribute__((unused)) static hoodie_status pqt_mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    pqt_mem *m = ctx;
    if (off > m->len || len > m->len - off) return HOODIE_FAIL(HOODIE_EIO, "read past the end");
    memcpy(buf, m->data + off, len);
    return HOODIE_OK;
}

/* Load a whole file; NULL on failure. */
__attribute__((unused)) static uint8_t *pqt_load(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, fp) != (size_t)n) { free(b); b = NULL; }
    fclose(fp);
    *len = (size_t)(n > 0 ? n : 0);
    return b;
}

static void pqt_render(hoodie_buf *o, const hoodie_field *f, const hoodie_array *a, int64_t i, int nested);

static void pqt_render_decimal(hoodie_buf *o, const uint8_t *p, int scale)
{
    /* 128-bit two's complement LE -> decimal text */
    uint8_t mag[16];
    int neg = (p[15] & 0x80) != 0;
    int carry = 1;
    for (int k = 0; k < 16; k++) {
        unsigned v = neg ? (unsigned)(uint8_t)~p[k] + (unsigned)carry : p[k];
        if (neg) carry = v > 0xff;
        mag[k] = (uint8_t)v;
    }
    char digits[64];
    int nd = 0;
    for (;;) {
        int zero = 1;
        unsigned rem = 0;
        for (int k = 15; k >= 0; k--) {
            unsigned cur = rem << 8 | mag[k];
            mag[k] = (uint8_t)(cur / 10);
            rem = cur % 10;
            if (mag[k]) zero = 0;
        }
        digits[nd++] = (char)('0' + rem);
        if (zero) break;
    }
    while (nd <= scale) digits[nd++] = '0';
    if (neg) hoodie_buf_putc(o, '-');
    for (int k = nd - 1; k >= 0; k--) {
        hoodie_buf_putc(o, (uint8_t)digits[k]);
        if (k == scale && scale > 0) hoodie_buf_putc(o, '.');
    }
}

static void pqt_render(hoodie_buf *o, const hoodie_field *f, const hoodie_array *a, int64_t i, int nested)
{
    if (!hoodie_array_is_valid(a, i)) { hoodie_buf_append_str(o, "NULL"); return; }
    const hoodie_type *t = &f->type;
    switch (t->id) {
    case HOODIE_TYPE_BOOL: hoodie_buf_append_str(o, hoodie_bit_get(a->values, i) ? "true" : "false"); break;
    case HOODIE_TYPE_INT8: hoodie_buf_printf(o, "%d", ((int8_t *)a->values)[i]); break;
    case HOODIE_TYPE_INT16: hoodie_buf_printf(o, "%d", ((int16_t *)(void *)a->values)[i]); break;
    case HOODIE_TYPE_INT32: case HOODIE_TYPE_DATE32: case HOODIE_TYPE_TIME32:
        hoodie_buf_printf(o, "%d", ((int32_t *)(void *)a->values)[i]); break;
    case HOODIE_TYPE_INT64: case HOODIE_TYPE_TIMESTAMP: case HOODIE_TYPE_TIME64:
        hoodie_buf_printf(o, "%lld", (long long)((int64_t *)(void *)a->values)[i]); break;
    case HOODIE_TYPE_UINT8: hoodie_buf_printf(o, "%u", ((uint8_t *)a->values)[i]); break;
    case HOODIE_TYPE_UINT16: hoodie_buf_printf(o, "%u", ((uint16_t *)(void *)a->values)[i]); break;
    case HOODIE_TYPE_UINT32: hoodie_buf_printf(o, "%u", ((uint32_t *)(void *)a->values)[i]); break;
    case HOODIE_TYPE_UINT64: hoodie_buf_printf(o, "%llu", (unsigned long long)((uint64_t *)(void *)a->values)[i]); break;
    case HOODIE_TYPE_FLOAT: hoodie_buf_printf(o, "%.3f", (double)((float *)(void *)a->values)[i]); break;
    case HOODIE_TYPE_DOUBLE: hoodie_buf_printf(o, "%.3f", ((double *)(void *)a->values)[i]); break;
    case HOODIE_TYPE_FLOAT16: hoodie_buf_printf(o, "h%04x", ((uint16_t *)(void *)a->values)[i]); break;
    case HOODIE_TYPE_DECIMAL: pqt_render_decimal(o, a->values + 16 * i, t->scale); break;
    case HOODIE_TYPE_STRING:
        hoodie_buf_append(o, a->values + a->offsets[i], (size_t)(a->offsets[i + 1] - a->offsets[i]));
        break;
    case HOODIE_TYPE_BINARY:
        for (int32_t k = a->offsets[i]; k < a->offsets[i + 1]; k++) hoodie_buf_printf(o, "%02X", a->values[k]);
        break;
    case HOODIE_TYPE_FIXED_BINARY: {
        const uint8_t *p = a->values + (size_t)i * (size_t)t->width;
        for (int32_t k = 0; k < t->width; k++) {
            if (t->ext == HOODIE_EXT_UUID && (k == 4 || k == 6 || k == 8 || k == 10)) hoodie_buf_putc(o, '-');
            hoodie_buf_printf(o, t->ext == HOODIE_EXT_UUID ? "%02x" : "%02X", p[k]);
        }
        break;
    }
    case HOODIE_TYPE_STRUCT:
        hoodie_buf_putc(o, '{');
        for (size_t k = 0; k < f->n_children; k++) {
            hoodie_buf_printf(o, "%s'%s': ", k ? ", " : "", f->children[k].name);
            pqt_render(o, &f->children[k], &a->children[k], i, 1);
        }
        hoodie_buf_putc(o, '}');
        break;
    case HOODIE_TYPE_LIST:
        hoodie_buf_putc(o, '[');
        for (int32_t k = a->offsets[i]; k < a->offsets[i + 1]; k++) {
            if (k > a->offsets[i]) hoodie_buf_append_str(o, ", ");
            pqt_render(o, &f->children[0], &a->children[0], k, 1);
        }
        hoodie_buf_putc(o, ']');
        break;
    case HOODIE_TYPE_MAP: {
        const hoodie_field *ef = &f->children[0];
        const hoodie_array *ea = &a->children[0];
        hoodie_buf_putc(o, '{');
        for (int32_t k = a->offsets[i]; k < a->offsets[i + 1]; k++) {
            if (k > a->offsets[i]) hoodie_buf_append_str(o, ", ");
            pqt_render(o, &ef->children[0], &ea->children[0], k, 1);
            hoodie_buf_putc(o, '=');
            pqt_render(o, &ef->children[1], &ea->children[1], k, 1);
        }
        hoodie_buf_putc(o, '}');
        break;
    }
    default: hoodie_buf_append_str(o, "?");
    }
    (void)nested;
}

/* Scan a whole file into text lines (one per row, columns joined by '|'); returns the status of the scan. */
__attribute__((unused)) static hoodie_status pqt_scan_text(const char *path, const hoodie_pq_scan_opts *opts, hoodie_buf *out,
                                   int64_t *rows_out, int64_t *batches_out)
{
    size_t len;
    uint8_t *data = pqt_load(path, &len);
    if (!data) return HOODIE_FAIL(HOODIE_ENOTFOUND, "cannot read %s", path);
    pqt_mem m = { data, len };
    hoodie_pq_source src = { &m, pqt_mem_read, len, path, NULL };
    hoodie_pq_file *f = NULL;
    hoodie_pq_scan *s = NULL;
    hoodie_batch b;
    hoodie_status rc;
    int64_t rows = 0, batches = 0;
    HOODIE_TRY_GOTO(rc, hoodie_pq_file_open(&f, &src), done);
    HOODIE_TRY_GOTO(rc, hoodie_pq_scan_open(&s, f, opts), done);
    while ((rc = hoodie_pq_scan_next(s, &b)) == HOODIE_OK) {
        batches++;
        for (int64_t r = 0; r < b.root.length; r++) {
            for (size_t c = 0; c < b.schema.n_children; c++) {
                if (c) hoodie_buf_putc(out, '|');
                pqt_render(out, &b.schema.children[c], &b.root.children[c], r, 0);
            }
            hoodie_buf_putc(out, '\n');
        }
        rows += b.root.length;
        hoodie_batch_dispose(&b);
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
done:
    hoodie_pq_scan_free(s);
    hoodie_pq_file_free(f);
    free(data);
    if (rows_out) *rows_out = rows;
    if (batches_out) *batches_out = batches;
    hoodie_buf_cstr(out);
    return rc;
}

/* Run DuckDB SQL (through tests/oracle/duck.mjs); the last statement must select one VARCHAR column `r`.
 * Appends one line per row. Returns 0 on success. */
__attribute__((unused)) static int pqt_duck(const char *sql, hoodie_buf *out)
{
    hoodie_buf cmd = HOODIE_BUF_INIT;
    hoodie_buf_printf(&cmd, "node '%s/tests/oracle/duck.mjs' --json \"", HOODIE_SOURCE_DIR);
    for (const char *p = sql; *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '$' || *p == '`') hoodie_buf_putc(&cmd, '\\');
        hoodie_buf_putc(&cmd, (uint8_t)*p);
    }
    hoodie_buf_append_str(&cmd, "\"");
    hoodie_buf_cstr(&cmd);
    FILE *fp = popen((const char *)cmd.data, "r");
    hoodie_buf_dispose(&cmd);
    if (!fp) return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) > 0) {
        json_error_t err;
        json_t *j = json_loads(line, 0, &err);
        if (!j) continue;
        json_t *r = json_object_get(j, "r");
        if (json_is_string(r)) hoodie_buf_append_str(out, json_string_value(r));
        else if (json_is_null(r)) hoodie_buf_append_str(out, "NULL");
        hoodie_buf_putc(out, '\n');
        json_decref(j);
    }
    free(line);
    int st = pclose(fp);
    hoodie_buf_cstr(out);
    return st;
}

#endif
