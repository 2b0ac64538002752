/* Change data capture on write: see wcdc.h. */
#include "write/wcdc.h"

hoodie_status hoodie_wcdc_begin(hoodie_wcdc *c, wctx *w)
{
    memset(c, 0, sizeof *c);
    if (!w->cfg->cdc) return HOODIE_OK;
    c->on = 1;
    c->mode = (int)w->cfg->cdc_mode;
    int images = c->mode != HOODIE_CDC_OP_KEY_ONLY, after = c->mode == HOODIE_CDC_DATA_BEFORE_AFTER;
    hoodie_field f, img;
    HOODIE_TRY(hoodie_field_init(&c->schema, c->mode == HOODIE_CDC_OP_KEY_ONLY ? "Record" : "CDC", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_status rc = hoodie_field_init(&f, "op", hoodie_type_of(HOODIE_TYPE_STRING), 1);
    if (rc == HOODIE_OK) { rc = hoodie_field_add_child(&c->schema, &f); hoodie_field_dispose(&f); }
    if (rc == HOODIE_OK) rc = hoodie_field_init(&f, after ? "ts_ms" : "record_key", hoodie_type_of(HOODIE_TYPE_STRING), 1);
    if (rc == HOODIE_OK) { rc = hoodie_field_add_child(&c->schema, &f); hoodie_field_dispose(&f); }
    for (int k = 0; rc == HOODIE_OK && images && k < 1 + after; k++) {
        rc = hoodie_field_init(&img, k ? "after" : "before", hoodie_type_of(HOODIE_TYPE_STRUCT), 1);
        if (rc < 0) break;
        for (size_t i = 0; rc == HOODIE_OK && i < w->data_schema.n_children; i++)
            rc = hoodie_field_add_child(&img, &w->data_schema.children[i]);
        if (rc == HOODIE_OK) rc = hoodie_field_add_child(&c->schema, &img);
        hoodie_field_dispose(&img);
    }
    if (rc == HOODIE_OK) { rc = hoodie_batch_init(&c->out, &c->schema); c->have_out = rc == HOODIE_OK; }
    if (rc == HOODIE_OK && images) { rc = hoodie_batch_init(&c->old, &w->file_schema); c->have_old = rc == HOODIE_OK; }
    return rc;
}

/* op and the second column (the commit time, or the key) of one more record. */
static hoodie_status put_head(hoodie_wcdc *c, wctx *w, const char *op, const void *k, size_t kl)
{
    const char *t = w->tx.inst.requested;
    HOODIE_TRY(hoodie_array_append_bytes(&c->out.root.children[0], &c->schema.children[0], op, 1));
    if (c->mode == HOODIE_CDC_DATA_BEFORE_AFTER)
        return hoodie_array_append_bytes(&c->out.root.children[1], &c->schema.children[1], t, strlen(t));
    return hoodie_array_append_bytes(&c->out.root.children[1], &c->schema.children[1], k, kl);
}

hoodie_status hoodie_wcdc_change(hoodie_wcdc *c, wctx *w, int64_t old_row, const void *k, size_t kl,
                                 int64_t after_row)
{
    if (!c->on) return HOODIE_OK;
    HOODIE_TRY(put_head(c, w, after_row != -1 ? "u" : "d", k, kl));
    if (c->have_old) {
        HOODIE_TRY(rv_push(&c->before, c->old.root.length + (int64_t)c->pending.n));
        HOODIE_TRY(rv_push(&c->pending, old_row));
    }
    return rv_push(&c->after, after_row);
}

hoodie_status hoodie_wcdc_batch_end(hoodie_wcdc *c, const hoodie_batch *old)
{
    if (!c->on || !c->pending.n) return HOODIE_OK;
    hoodie_row_ref *sel = malloc(c->pending.n * sizeof *sel);
    if (!sel) return HOODIE_NOMEM();
    for (size_t i = 0; i < c->pending.n; i++) { sel[i].source = 0; sel[i].row = c->pending.v[i]; }
    const hoodie_batch *srcs[1] = { old };
    hoodie_status rc = hoodie_batch_take(&c->old, srcs, 1, sel, c->pending.n);
    free(sel);
    c->pending.n = 0;
    return rc;
}

hoodie_status hoodie_wcdc_insert(hoodie_wcdc *c, wctx *w, const void *k, size_t kl, int64_t after_row)
{
    if (!c->on) return HOODIE_OK;
    HOODIE_TRY(put_head(c, w, "i", k, kl));
    if (c->have_old) HOODIE_TRY(rv_push(&c->before, -1));
    return rv_push(&c->after, after_row);
}

/* The data columns (after the five meta columns) of file records `root`, rows[i] of them (-1: null), appended to
 * the image column dst. */
static hoodie_status take_images(hoodie_array *dst, const hoodie_field *f, const hoodie_array *root, const rowvec *rows)
{
    hoodie_array view;
    memset(&view, 0, sizeof view);
    view.length = root->length;
    view.n_children = root->n_children - 5;
    view.children = root->children + 5;
    return hoodie_array_take(dst, f, &view, rows->v, rows->n);
}

/* The after images: rows of the new records, or of the filled ones (HOODIE_WCDC_FILLED), -1 null. */
static hoodie_status take_after_images(hoodie_array *dst, const hoodie_field *f, const hoodie_batch *fresh,
                                       const hoodie_batch *filled, const rowvec *rows)
{
    hoodie_array views[2];
    const hoodie_array *srcs[2] = { &views[0], &views[1] };
    const hoodie_batch *b[2] = { fresh, filled ? filled : fresh };
    for (int i = 0; i < 2; i++) { /* the data columns (after the five meta columns) as a struct */
        memset(&views[i], 0, sizeof views[i]);
        views[i].length = b[i]->root.length;
        views[i].n_children = b[i]->root.n_children - 5;
        views[i].children = b[i]->root.children + 5;
    }
    hoodie_row_ref *sel = malloc((rows->n + 1) * sizeof *sel);
    if (!sel) return HOODIE_NOMEM();
    for (size_t i = 0; i < rows->n; i++) {
        int64_t r = rows->v[i];
        if (r <= -2 && !filled) { free(sel); return HOODIE_FAIL(HOODIE_EINVAL, "CDC: a filled record without fills"); }
        sel[i].source = r <= -2;
        sel[i].row = r <= -2 ? -2 - r : r;
    }
    hoodie_status rc = hoodie_array_take_multi(dst, f, srcs, 2, sel, rows->n);
    free(sel);
    return rc;
}

hoodie_status hoodie_wcdc_finish(hoodie_wcdc *c, wctx *w, const wgroup *g, const hoodie_batch *fresh,
                                 const hoodie_batch *filled, hoodie_wstat *st)
{
    if (!c->on) return HOODIE_OK;
    int64_t n = c->out.root.children[0].length;
    hoodie_status rc = HOODIE_OK;
    if (c->have_old) {
        if (c->pending.n) return HOODIE_FAIL(HOODIE_EINVAL, "CDC: before images of a scan batch were not taken");
        rc = take_images(&c->out.root.children[2], &c->schema.children[2], &c->old.root, &c->before);
        if (rc == HOODIE_OK && c->mode == HOODIE_CDC_DATA_BEFORE_AFTER)
            rc = take_after_images(&c->out.root.children[3], &c->schema.children[3], fresh, filled, &c->after);
        if (rc < 0) return rc;
    }
    c->out.root.length = n;

    char token[32];
    write_token(g, token, sizeof token);
    hoodie_buf nb = HOODIE_BUF_INIT;
    char *schema = NULL;
    rc = hoodie_file_name_log(&nb, g->file_id, w->tx.inst.requested, 1, token);
    if (rc == HOODIE_OK) rc = hoodie_buf_append(&nb, ".cdc", 5); /* with the NUL */
    const char *partition = w->part_names[g->part];
    char *name = rc == HOODIE_OK ? hoodie_arena_strdup(w->arena, (const char *)nb.data) : NULL;
    hoodie_buf_dispose(&nb);
    if (rc == HOODIE_OK && !name) rc = HOODIE_ENOMEM;
    char *rel = name ? (*partition ? hoodie_arena_sprintf(w->arena, "%s/%s", partition, name) : name) : NULL;
    char *path = rel ? hoodie_arena_sprintf(w->arena, "%s/%s", w->t->base_path, rel) : NULL;
    if (rc == HOODIE_OK && !path) rc = HOODIE_ENOMEM;
    if (rc == HOODIE_OK) rc = hoodie_wlog_cdc_schema(&schema, c->mode, w->avro_data_schema);
    uint64_t size = 0;
    if (rc == HOODIE_OK) rc = hoodie_write__marker(&w->tx, partition, name, HOODIE_MARKER_CREATE);
    if (rc == HOODIE_OK) rc = hoodie_wlog_write_cdc(w->s, path, w->tx.inst.requested, schema, &c->out, &size);
    free(schema);
    if (rc < 0) return rc;
    st->cdc_path = rel;
    st->cdc_size = (int64_t)size;
    w->res.bytes_written += (int64_t)size;
    return HOODIE_OK;
}

void hoodie_wcdc_dispose(hoodie_wcdc *c)
{
    if (c->have_out) hoodie_batch_dispose(&c->out);
    if (c->have_old) hoodie_batch_dispose(&c->old);
    if (c->on) hoodie_field_dispose(&c->schema);
    free(c->before.v);
    free(c->after.v);
    free(c->pending.v);
    memset(c, 0, sizeof *c);
}
