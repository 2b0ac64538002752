/*
 * Avro schemas of the table-service timeline records. HoodieRequestedReplaceMetadata is verbatim from a file Hudi
 * 1.x wrote (fixture: a clustering.requested; HoodieCompactionPlan, from a compaction.requested, is in
 * write/avro_schemas.c: the metadata table's compaction is written there); the clean,
 * savepoint and restore records follow Hudi's .avsc files (hudi-common/src/main/avro), written in the form
 * Java's Schema.toString() gives generated classes (nested records inlined, strings as avro.java.string).
 */
#include "services/svc.h"

const char hoodie_svc__schema_requested_replace[] =
    "{\"type\":\"record\",\"name\":\"HoodieRequestedReplaceMetadata\",\"namespace\":\"org.apache.hudi.avro.model\","
    "\"fields\":[{\"name\":\"operationType\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String"
    "\"}],\"default\":null},{\"name\":\"clusteringPlan\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"HoodieC"
    "lusteringPlan\",\"fields\":[{\"name\":\"inputGroups\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type"
    "\":\"record\",\"name\":\"HoodieClusteringGroup\",\"fields\":[{\"name\":\"slices\",\"type\":[\"null\",{\"type\""
    ":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieSliceInfo\",\"fields\":[{\"name\":\"dataFilePath\","
    "\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"deltaF"
    "ilePaths\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String"
    "\"}}],\"default\":null},{\"name\":\"fileId\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"St"
    "ring\"}]},{\"name\":\"partitionPath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}"
    "],\"default\":null},{\"name\":\"bootstrapFilePath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string"
    "\":\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1}]}}],\"defau"
    "lt\":null},{\"name\":\"metrics\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"double\",\"avro.java.string"
    "\":\"String\"}],\"default\":null},{\"name\":\"numOutputFileGroups\",\"type\":[\"int\",\"null\"],\"default\":1}"
    ",{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"string\",\"avro.java."
    "string\":\"String\"},\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int"
    "\",\"null\"],\"default\":1}]}}],\"default\":null},{\"name\":\"strategy\",\"type\":[\"null\",{\"type\":\"record"
    "\",\"name\":\"HoodieClusteringStrategy\",\"fields\":[{\"name\":\"strategyClassName\",\"type\":[\"null\",{\"typ"
    "e\":\"string\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"strategyParams\",\"type\":[\"nu"
    "ll\",{\"type\":\"map\",\"values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":"
    "\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1}]}],\"default\""
    ":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"string\",\"avro"
    ".java.string\":\"String\"},\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":"
    "[\"int\",\"null\"],\"default\":1},{\"name\":\"preserveHoodieMetadata\",\"type\":[\"null\",\"boolean\"],\"defau"
    "lt\":null},{\"name\":\"missingSchedulePartitions\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":"
    "\"string\",\"avro.java.string\":\"String\"}}],\"default\":null}]}],\"default\":null},{\"name\":\"extraMetadata"
    "\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"avr"
    "o.java.string\":\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1"
    "}]}";

const char hoodie_svc__schema_cleaner_plan[] =
    "{\"type\":\"record\",\"name\":\"HoodieCleanerPlan\",\"namespace\":\"org.apache.hudi.avro.model\",\"fields\":[{"
    "\"name\":\"earliestInstantToRetain\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"HoodieActionInstant\","
    "\"fields\":[{\"name\":\"timestamp\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":"
    "\"action\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"state\",\"type\":{\"typ"
    "e\":\"string\",\"avro.java.string\":\"String\"}}]}],\"default\":null},{\"name\":\"policy\",\"type\":{\"type\":"
    "\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"filesToBeDeletedPerPartition\",\"type\":[\"null\",{\""
    "type\":\"map\",\"values\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}"
    ",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"defau"
    "lt\":1},{\"name\":\"filePathsToBeDeletedPerPartition\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type"
    "\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieCleanFileInfo\",\"fields\":[{\"name\":\"filePath"
    "\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"isB"
    "ootstrapBaseFile\",\"type\":[\"null\",\"boolean\"],\"default\":null}]}},\"avro.java.string\":\"String\"}],\"do"
    "c\":\"This field replaces the field filesToBeDeletedPerPartition\",\"default\":null},{\"name\":\"partitionsToB"
    "eDeleted\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String"
    "\"}}],\"doc\":\"partitions to be deleted\",\"default\":null}]}";

const char hoodie_svc__schema_clean_meta[] =
    "{\"type\":\"record\",\"name\":\"HoodieCleanMetadata\",\"namespace\":\"org.apache.hudi.avro.model\",\"fields\":"
    "[{\"name\":\"policy\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"default\":\"\"},{\"name"
    "\":\"startCleanTime\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"timeTakenInM"
    "illis\",\"type\":\"long\"},{\"name\":\"totalFilesDeleted\",\"type\":\"int\"},{\"name\":\"earliestCommitToRetai"
    "n\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"lastCompletedCommitTimestamp\""
    ",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"default\":\"\"},{\"name\":\"partitionMetadat"
    "a\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"record\",\"name\":\"HoodieCleanPartitionMetadata\",\"fie"
    "lds\":[{\"name\":\"partitionPath\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":"
    "\"policy\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"deletePathPatterns\",\""
    "type\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}},{\"name\":\"succe"
    "ssDeleteFiles\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}}"
    ",{\"name\":\"failedDeleteFiles\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.strin"
    "g\":\"String\"}}},{\"name\":\"isPartitionDeleted\",\"type\":[\"null\",\"boolean\"],\"default\":null}]},\"avro."
    "java.string\":\"String\"}},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1},{\"name\":\"bootst"
    "rapPartitionMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"HoodieCleanPartitionMetadata\",\"avro"
    ".java.string\":\"String\",\"default\":null}],\"default\":null}]}";

const char hoodie_svc__schema_savepoint[] =
    "{\"type\":\"record\",\"name\":\"HoodieSavepointMetadata\",\"namespace\":\"org.apache.hudi.avro.model\",\"field"
    "s\":[{\"name\":\"savepointedBy\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"s"
    "avepointedAt\",\"type\":\"long\"},{\"name\":\"comments\",\"type\":{\"type\":\"string\",\"avro.java.string\":\""
    "String\"}},{\"name\":\"partitionMetadata\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"record\",\"name\""
    ":\"HoodieSavepointPartitionMetadata\",\"fields\":[{\"name\":\"partitionPath\",\"type\":{\"type\":\"string\",\""
    "avro.java.string\":\"String\"}},{\"name\":\"savepointDataFile\",\"type\":{\"type\":\"array\",\"items\":{\"type"
    "\":\"string\",\"avro.java.string\":\"String\"}}}]},\"avro.java.string\":\"String\"}}]}";

const char hoodie_svc__schema_restore_plan[] =
    "{\"type\":\"record\",\"name\":\"HoodieRestorePlan\",\"namespace\":\"org.apache.hudi.avro.model\",\"fields\":[{"
    "\"name\":\"instantsToRollback\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieI"
    "nstantInfo\",\"fields\":[{\"name\":\"commitTime\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String"
    "\"}},{\"name\":\"action\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}]},\"default\":null},"
    "\"default\":[]},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":2},{\"name\":\"savepointToRestor"
    "eTimestamp\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default\":null}]}";

const char hoodie_svc__schema_restore_meta[] =
    "{\"type\":\"record\",\"name\":\"HoodieRestoreMetadata\",\"namespace\":\"org.apache.hudi.avro.model\",\"fields"
    "\":[{\"name\":\"startRestoreTime\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":"
    "\"timeTakenInMillis\",\"type\":\"long\"},{\"name\":\"instantsToRollback\",\"type\":{\"type\":\"array\",\"items"
    "\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}},{\"name\":\"hoodieRestoreMetadata\",\"type\":{\"typ"
    "e\":\"map\",\"values\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieRollbackMetadata\","
    "\"fields\":[{\"name\":\"startRollbackTime\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{"
    "\"name\":\"timeTakenInMillis\",\"type\":\"long\"},{\"name\":\"totalFilesDeleted\",\"type\":\"int\"},{\"name\":"
    "\"commitsRollback\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String"
    "\"}}},{\"name\":\"partitionMetadata\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"record\",\"name\":\"Ho"
    "odieRollbackPartitionMetadata\",\"fields\":[{\"name\":\"partitionPath\",\"type\":{\"type\":\"string\",\"avro.j"
    "ava.string\":\"String\"}},{\"name\":\"successDeleteFiles\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\""
    "string\",\"avro.java.string\":\"String\"}}},{\"name\":\"failedDeleteFiles\",\"type\":{\"type\":\"array\",\"ite"
    "ms\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}},{\"name\":\"rollbackLogFiles\",\"type\":[\"null\""
    ",{\"type\":\"map\",\"values\":\"long\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"logFile"
    "sFromFailedCommit\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"long\",\"avro.java.string\":\"String\"}]"
    ",\"default\":null}]},\"avro.java.string\":\"String\"}},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"def"
    "ault\":1},{\"name\":\"instantsRollback\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":"
    "\"HoodieInstantInfo\",\"fields\":[{\"name\":\"commitTime\",\"type\":{\"type\":\"string\",\"avro.java.string\":"
    "\"String\"}},{\"name\":\"action\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}]},\"default"
    "\":[]},\"default\":[]}]},\"default\":null,\"name\":\"hoodieRollbackMetadata\"},\"avro.java.string\":\"String\""
    "}},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1},{\"name\":\"restoreInstantInfo\",\"type\":"
    "{\"type\":\"array\",\"items\":\"HoodieInstantInfo\",\"default\":null},\"default\":[]},{\"name\":\"extraMetadat"
    "a\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"av"
    "ro.java.string\":\"String\"}],\"default\":null}]}";
