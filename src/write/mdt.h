/*
 * The metadata table (MDT, <base>/.hoodie/metadata) of a table hoodie writes to.
 *
 * hoodie does not maintain the MDT. A table whose hoodie.properties lists MDT partitions tells readers (Spark,
 * Trino) to list its files from the MDT, which would then miss every file hoodie writes and still list files
 * hoodie's cleaner removed. So before its first change to such a table, hoodie disables the MDT as a Hudi writer
 * running with hoodie.metadata.enable=false does (HoodieTableMetadataUtil.deleteMetadataTable): first
 * hoodie.table.metadata.partitions and hoodie.table.metadata.partitions.inflight are emptied
 * (HoodieTableConfig.clearMetadataPartitions), through Hudi's update protocol (hoodie.properties.backup written,
 * hoodie.properties removed and written anew, the backup removed), then the .hoodie/metadata folder is removed.
 *
 * Crash safety: once hoodie.properties lists no partitions readers list files themselves; a crash before the folder
 * is gone leaves a folder the next writer removes; a crash in the middle of the update leaves the backup, which
 * readers fall back to (table/config.h) and the next writer completes the update from.
 */
#ifndef HOODIE_WRITE_MDT_H
#define HOODIE_WRITE_MDT_H

#include "hoodie/sys/storage.h"
#include "table/config.h"

/**
 * Disable the metadata table of the table at `base_path` (config `cfg`, as loaded) if it has one: MDT partitions
 * listed, or a .hoodie/metadata folder present. *changed (may be NULL) is set to 1 if hoodie.properties was
 * rewritten (the caller reloads its config).
 */
hoodie_status hoodie_write__drop_metadata_table(const hoodie_storage *s, const char *base_path,
                                                const hoodie_table_config *cfg, int *changed);

#endif
