/* hoodie_properties (include/hoodie/props.h): a properties file read through storage and parsed by format/props. */
#include "hoodie/props.h"
#include "format/props.h"
#include "storage/storage.h"
#include "util/error.h"

#include <stdlib.h>

struct hoodie_properties {
    hoodie_props p;
};

hoodie_status hoodie_properties_read(const char *path, const hoodie_storage *storage, hoodie_properties **out)
{
    *out = NULL;
    hoodie_buf data = HOODIE_BUF_INIT;
    HOODIE_TRY(hoodie_storage_read_all(storage, path, &data));
    hoodie_properties *p = malloc(sizeof *p);
    hoodie_status rc = p ? HOODIE_OK : HOODIE_NOMEM();
    if (rc == HOODIE_OK) {
        hoodie_props_init(&p->p);
        rc = hoodie_props_parse(&p->p, data.data, data.len, path);
    }
    hoodie_buf_dispose(&data);
    if (rc < 0) { hoodie_properties_free(p); return rc; }
    *out = p;
    return HOODIE_OK;
}

size_t hoodie_properties_count(const hoodie_properties *p) { return p ? p->p.count : 0; }

void hoodie_properties_entry(const hoodie_properties *p, size_t i, const char **key, const char **value,
                             unsigned *line)
{
    const hoodie_props_entry *e = &p->p.entries[i];
    if (key) *key = e->key;
    if (value) *value = e->value;
    if (line) *line = e->line;
}

void hoodie_properties_free(hoodie_properties *p)
{
    if (!p) return;
    hoodie_props_dispose(&p->p);
    free(p);
}
