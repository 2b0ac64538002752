/* The pre-commit check (write/precommit.h). */
#include "write/precommit.h"
#include "storage/overlay.h"
#include "util/error.h"
#include "write/lock.h"
#include "write/rollback.h"

#include <stdlib.h>
#include <string.h>

static int str_cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

hoodie_status hoodie_write__pre_commit(const hoodie_precommit_call *c, const void *meta, size_t len)
{
    char *path = NULL;
    hoodie_storage *after = NULL;
    size_t n = 0;
    const char **parts = malloc((c->n_stats + c->n_replaced + 1) * sizeof *parts);
    hoodie_status rc = parts ? HOODIE_OK : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < c->n_stats; i++)
        parts[n++] = c->stats[i].partition_path ? c->stats[i].partition_path : "";
    for (size_t i = 0; rc == HOODIE_OK && i < c->n_replaced; i++)
        parts[n++] = c->replaced[i].partition_path ? c->replaced[i].partition_path : "";
    if (rc == HOODIE_OK && n) { /* sorted, each once */
        qsort(parts, n, sizeof *parts, str_cmp);
        size_t k = 1;
        for (size_t i = 1; i < n; i++)
            if (strcmp(parts[i], parts[k - 1])) parts[k++] = parts[i];
        n = k;
    }
    if (rc == HOODIE_OK) rc = hoodie_write__completed_preview(c->tx, &path);
    if (rc == HOODIE_OK) rc = hoodie_storage_overlay_new(&after, c->s, path, meta, len);
    if (rc < 0) {
        hoodie_error__prefix("pre-commit check: ");
    } else {
        char msg[2048] = "";
        hoodie_precommit pc = { c->base_path, c->tx->inst.requested, hoodie_action_name(c->tx->inst.action), c->op,
                                c->s, after, parts, n, c->result, msg, sizeof msg, c->operation };
        hoodie_status vrc = c->fn(c->ctx, &pc);
        if (vrc != HOODIE_OK) {
            msg[sizeof msg - 1] = '\0';
            char *why = strdup(*msg ? msg : hoodie_status_str(vrc));
            /* undo it now: the files go, the timeline records a rollback, as Hudi's failed-write rollback does */
            char rb[18];
            hoodie_table_lock lock;
            hoodie_status lrc = hoodie_write__lock(&lock, c->s, c->base_path, -1);
            if (lrc == HOODIE_OK) {
                lrc = hoodie_write__rollback(c->s, c->base_path, c->cfg, &c->tx->inst, rb);
                if (hoodie_write__unlock(&lock) < 0 && lrc == HOODIE_OK) hoodie_error_clear();
            }
            rc = HOODIE_FAIL(HOODIE_EVALIDATION, "%s: pre-commit check refused %s %s: %s%s", c->base_path,
                             c->operation, c->tx->inst.requested, why ? why : "out of memory",
                             lrc == HOODIE_OK ? " (rolled back)"
                                              : " (the rollback failed: the next writer rolls it back)");
            free(why);
        }
    }
    hoodie_storage_free(after);
    free(path);
    free(parts);
    return rc;
}
