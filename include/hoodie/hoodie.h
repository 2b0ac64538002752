/* hoodie: umbrella header. */
#ifndef HOODIE_H
#define HOODIE_H
#include "hoodie/common.h"
#include "hoodie/arrow.h"
#include "hoodie/sys/storage.h"
#include "hoodie/parquet.h"
#include "hoodie/output.h"
#include "hoodie/table.h"
#include "hoodie/read.h"
#include "hoodie/lookup.h"
#include "hoodie/write.h"
#include "hoodie/writer.h"
#include "hoodie/input.h"
#include "hoodie/services.h"
#include "hoodie/props.h"
#endif
