/* Disabling the metadata table of a table hoodie writes to (see mdt.h). */
#include "write/mdt.h"
#include "format/props.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/error.h"
#include "write/commit.h"
#include "write/create.h"

#include <stdlib.h>
#include <string.h>

#define K_MDT_PARTITIONS "hoodie.table.metadata.partitions"
#define K_MDT_INFLIGHT   "hoodie.table.metadata.partitions.inflight"

static int listed(const hoodie_table_config *cfg, const char *key)
{
    const char *v = hoodie_table_config_get(cfg, key);
    return v && *v;
}

/* hoodie.properties with the MDT partitions set to `value` (the inflight ones emptied), by Hudi's update protocol
 * (HoodieTableConfig.modify). */
hoodie_status hoodie_write__set_mdt_partitions(const hoodie_storage *s, const char *base_path,
                                               const hoodie_table_config *cfg, const char *value)
{
    return hoodie_write__set_mdt_partitions_with(s, base_path, cfg, value, NULL, NULL);
}

hoodie_status hoodie_write__set_mdt_partitions_with(const hoodie_storage *s, const char *base_path,
                                                    const hoodie_table_config *cfg, const char *value,
                                                    const char *key, const char *key_value)
{
    char *path = hoodie_write__path(base_path, ".hoodie/hoodie.properties");
    char *backup = hoodie_write__path(base_path, ".hoodie/hoodie.properties.backup");
    hoodie_props p = HOODIE_PROPS_INIT;
    hoodie_buf old = HOODIE_BUF_INIT, text = HOODIE_BUF_INIT;
    char comment[96];
    hoodie_status rc = path && backup ? HOODIE_OK : HOODIE_NOMEM();
    int64_t now = hoodie_write__now_us();
    /* the keys as loaded (from hoodie.properties, or from the backup an interrupted update left) */
    for (size_t i = 0; rc == HOODIE_OK && i < cfg->props.count; i++)
        rc = hoodie_props_set(&p, cfg->props.entries[i].key, cfg->props.entries[i].value);
    if (rc == HOODIE_OK) rc = hoodie_props_store(&p, &old, NULL, now / 1000);
    /* both set, present or not, as setMetadataPartitionState does */
    if (rc == HOODIE_OK) rc = hoodie_props_set(&p, K_MDT_PARTITIONS, value);
    if (rc == HOODIE_OK) rc = hoodie_props_set(&p, K_MDT_INFLIGHT, "");
    if (rc == HOODIE_OK && key) rc = hoodie_props_set(&p, key, key_value);
    hoodie_props_store_comment(comment, sizeof comment, "Updated at ", now);
    if (rc == HOODIE_OK) rc = hoodie_props_store(&p, &text, comment, now / 1000);
    if (rc == HOODIE_OK) rc = hoodie_storage_write_all(s, backup, 0, old.data, old.len);
    if (rc == HOODIE_OK) {
        rc = s->remove(s->ctx, path);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    }
    if (rc == HOODIE_OK) rc = hoodie_storage_write_all(s, path, 0, text.data, text.len);
    if (rc == HOODIE_OK) rc = s->remove(s->ctx, backup);
    if (rc < 0) hoodie_error__prefix("%s: %s: ", path ? path : base_path,
                                     *value ? "updating the metadata table's partitions" : "disabling the metadata table");
    hoodie_props_dispose(&p);
    hoodie_buf_dispose(&old);
    hoodie_buf_dispose(&text);
    free(path);
    free(backup);
    return rc;
}

hoodie_status hoodie_write__drop_metadata_table(const hoodie_storage *s, const char *base_path,
                                                const hoodie_table_config *cfg, int *changed)
{
    if (changed) *changed = 0;
    if (cfg->version != 6 && cfg->version != 8) return HOODIE_OK; /* read-only for hoodie: the write is refused */
    s = hoodie_storage__or_default(s);
    int props = listed(cfg, K_MDT_PARTITIONS) || listed(cfg, K_MDT_INFLIGHT);
    char *dir = hoodie_write__path(base_path, ".hoodie/metadata");
    if (!dir) return HOODIE_NOMEM();
    char *backup = hoodie_write__path(base_path, ".hoodie/hoodie.properties.backup");
    if (!backup) { free(dir); return HOODIE_NOMEM(); }
    /* loaded from the backup: an update died after removing hoodie.properties, and this one completes it */
    size_t lp = cfg->path ? strlen(cfg->path) : 0;
    int from_backup = lp > 7 && !strcmp(cfg->path + lp - 7, ".backup");
    hoodie_status rc = HOODIE_OK;
    if (props || from_backup) {
        rc = hoodie_write__set_mdt_partitions(s, base_path, cfg, "");
        if (rc == HOODIE_OK && changed) *changed = 1;
    } else if (s->exists && s->exists(s->ctx, backup) == 1) {
        /* an update died after writing hoodie.properties anew: the backup is stale (Hudi removes it too) */
        rc = s->remove(s->ctx, backup);
        if (rc == HOODIE_ENOTFOUND) { hoodie_error_clear(); rc = HOODIE_OK; }
    }
    if (rc == HOODIE_OK && (props || (s->exists && s->exists(s->ctx, dir) == 1))) {
        rc = hoodie_storage_remove_tree(s, dir);
        if (rc < 0) hoodie_error__prefix("%s: removing the metadata table: ", dir);
    }
    free(dir);
    free(backup);
    return rc;
}
