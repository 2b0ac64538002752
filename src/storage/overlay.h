/* A read-only view of a storage with one more file in it, served from memory (storage/overlay.c). */
#ifndef HOODIE_STORAGE_OVERLAY_H
#define HOODIE_STORAGE_OVERLAY_H

#include "hoodie/sys/storage.h"

/**
 * A view of `inner` (borrowed: it must outlive the view) in which the file `path` (a full path, as callers of the
 * storage will name it) holds `data` (copied). Changes are refused with HOODIE_EUNSUPPORTED. Release with
 * hoodie_storage_free.
 */
hoodie_status hoodie_storage_overlay_new(hoodie_storage **out, const hoodie_storage *inner, const char *path,
                                         const void *data, size_t len);

#endif
