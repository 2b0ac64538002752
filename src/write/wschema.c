#include "write/wschema.h"
#include "model/avro_schema_gen.h"
#include "util/error.h"

#include <stdio.h>
#include <string.h>

/* The wider of two column types, or 0 if they do not evolve into each other. */
static int widen(const hoodie_field *t, const hoodie_field *in, hoodie_type *out)
{
    hoodie_type_id a = t->type.id, b = in->type.id;
    if (a == b) {
        switch (a) {
        case HOODIE_TYPE_DECIMAL:
            if (t->type.scale != in->type.scale || in->type.precision > t->type.precision) return 0;
            break;
        case HOODIE_TYPE_FIXED_BINARY: if (t->type.width != in->type.width) return 0; break;
        case HOODIE_TYPE_TIMESTAMP: case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64:
            if (t->type.unit != in->type.unit) return 0;
            break;
        default: break;
        }
        *out = t->type;
        return 1;
    }
    if (hoodie_type_is_int(a) && hoodie_type_is_int(b)) {
        *out = hoodie_type_fixed_width(&t->type) >= hoodie_type_fixed_width(&in->type) ? t->type : in->type;
        return 1;
    }
    if ((hoodie_type_is_int(a) || a == HOODIE_TYPE_FLOAT) && (b == HOODIE_TYPE_DOUBLE || (b == HOODIE_TYPE_FLOAT && hoodie_type_is_int(a)))) {
        *out = in->type;
        return 1;
    }
    if ((a == HOODIE_TYPE_DOUBLE && (hoodie_type_is_int(b) || b == HOODIE_TYPE_FLOAT)) || (a == HOODIE_TYPE_FLOAT && hoodie_type_is_int(b))) {
        *out = t->type;
        return 1;
    }
    if ((a == HOODIE_TYPE_STRING && b == HOODIE_TYPE_BINARY) || (a == HOODIE_TYPE_BINARY && b == HOODIE_TYPE_STRING)) {
        *out = t->type;
        return 1;
    }
    return 0;
}

/* `path`: t's full name ("s.x", "a.element", "m.value"), for messages. */
static hoodie_status evolve_field(hoodie_field *out, const hoodie_field *t, const hoodie_field *in, const char *path)
{
    char ta[64], tb[64], sub[512];
    if (t->type.id == HOODIE_TYPE_STRUCT && in->type.id == HOODIE_TYPE_STRUCT) {
        HOODIE_TRY(hoodie_field_init(out, t->name, t->type, t->nullable || in->nullable));
        hoodie_status rc = HOODIE_OK;
        for (size_t i = 0; i < t->n_children && rc == HOODIE_OK; i++) {
            int j = hoodie_field_find(in, t->children[i].name);
            hoodie_field c;
            if (j < 0) {
                rc = hoodie_field_clone(&c, &t->children[i]);
                if (rc == HOODIE_OK) c.nullable = 1;
            } else {
                snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", t->children[i].name);
                rc = evolve_field(&c, &t->children[i], &in->children[j], sub);
            }
            if (rc == HOODIE_OK) { rc = hoodie_field_add_child(out, &c); hoodie_field_dispose(&c); }
        }
        for (size_t j = 0; j < in->n_children && rc == HOODIE_OK; j++) {
            if (hoodie_field_find(t, in->children[j].name) >= 0) continue;
            hoodie_field c;
            rc = hoodie_field_clone(&c, &in->children[j]);
            if (rc == HOODIE_OK) { c.nullable = 1; rc = hoodie_field_add_child(out, &c); hoodie_field_dispose(&c); }
        }
        if (rc < 0) hoodie_field_dispose(out);
        return rc;
    }
    if ((t->type.id == HOODIE_TYPE_LIST || t->type.id == HOODIE_TYPE_MAP) && t->type.id == in->type.id) {
        HOODIE_TRY(hoodie_field_init(out, t->name, t->type, t->nullable || in->nullable));
        hoodie_field c;
        /* a list's element is "path.element"; a map's entries are the map (their key and value: "path.key") */
        if (t->type.id == HOODIE_TYPE_LIST) snprintf(sub, sizeof sub, "%s.element", path);
        else snprintf(sub, sizeof sub, "%s", path);
        hoodie_status rc = evolve_field(&c, &t->children[0], &in->children[0], sub);
        if (rc == HOODIE_OK) { rc = hoodie_field_add_child(out, &c); hoodie_field_dispose(&c); }
        if (rc < 0) hoodie_field_dispose(out);
        return rc;
    }
    hoodie_type w;
    if (!widen(t, in, &w))
        return HOODIE_FAIL(HOODIE_EINVAL, "column '%s': the input's %s cannot be written to the table's %s "
                           "(allowed: new nullable columns, int to long, float to double)", path,
                           hoodie_type_name(&in->type, tb, sizeof tb), hoodie_type_name(&t->type, ta, sizeof ta));
    HOODIE_TRY(hoodie_field_init(out, t->name, w, t->nullable || in->nullable));
    out->field_id = t->field_id;
    return HOODIE_OK;
}

hoodie_status hoodie_wschema_evolve(hoodie_field *out, const hoodie_field *table, const hoodie_field *input)
{
    hoodie_field t0, in0;
    hoodie_status rc;
    /* strip meta columns from both sides */
    HOODIE_TRY(hoodie_field_init(&in0, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    rc = hoodie_field_init(&t0, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0);
    for (size_t i = 0; rc == HOODIE_OK && i < input->n_children; i++)
        if (!hoodie_is_meta_field(input->children[i].name)) rc = hoodie_field_add_child(&in0, &input->children[i]);
    for (size_t i = 0; rc == HOODIE_OK && table && i < table->n_children; i++)
        if (!hoodie_is_meta_field(table->children[i].name)) rc = hoodie_field_add_child(&t0, &table->children[i]);
    if (rc == HOODIE_OK) {
        if (!table) {
            rc = hoodie_field_clone(out, &in0);
            for (size_t i = 0; rc == HOODIE_OK && i < out->n_children; i++) out->children[i].nullable = 1;
        } else {
            rc = evolve_field(out, &t0, &in0, "");
            if (rc == HOODIE_OK) out->nullable = 0;
        }
    }
    hoodie_field_dispose(&t0);
    hoodie_field_dispose(&in0);
    return rc;
}

