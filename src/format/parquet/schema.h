/*
 * Parquet schema (the flat, depth-first SchemaElement list) -> hoodie_field tree, plus the level bookkeeping the
 * column reader needs to assemble nested Arrow arrays.
 *
 * Every field of the hoodie_field tree has a twin hoodie_pq_node with the same shape (node->children[i] is the
 * twin of field->children[i]). For each node, a "slot" is one value of that field in the Arrow layout (a row for
 * a top-level column, an element for a list element). Walking the (def, rep) levels of any leaf below the node:
 *   a level entry starts a slot of the node   iff  rep <= node->rep && def >= node->def_slot
 *   that slot is non-null                     iff  def >= node->def_valid
 * LIST and MAP nodes have one child (the element / the "entries" struct) whose slots are the list's entries.
 *
 * Mapping: see hoodie_pq_schema_build. Legacy lists follow the Parquet LogicalTypes backward-compatibility rules.
 */
#ifndef HOODIE_FORMAT_PARQUET_SCHEMA_H
#define HOODIE_FORMAT_PARQUET_SCHEMA_H

#include "format/parquet/meta.h"
#include "model/batch.h"
#include "util/buf.h"

typedef enum hoodie_pq_node_kind {
    HOODIE_PQ_NODE_LEAF = 0, HOODIE_PQ_NODE_STRUCT, HOODIE_PQ_NODE_LIST, HOODIE_PQ_NODE_MAP
} hoodie_pq_node_kind;

typedef struct hoodie_pq_node {
    hoodie_pq_node_kind kind;
    int16_t rep;          /* slot repetition level */
    int16_t def_slot;     /* definition level at which a slot exists */
    int16_t def_valid;    /* definition level at which the slot is non-null */
    int leaf;             /* LEAF: leaf (column chunk) index; others: first leaf below, -1 if none */
    size_t n_children;
    struct hoodie_pq_node *children; /* malloc */
} hoodie_pq_node;

typedef struct hoodie_pq_leaf {
    const hoodie_pq_schema_element *el; /* borrowed from the file metadata */
    int16_t max_def, max_rep;
    char *path;                         /* dotted Parquet path, malloc */
    hoodie_type type;                   /* output type */
} hoodie_pq_leaf;

typedef struct hoodie_pq_schema {
    hoodie_field root;      /* STRUCT; children are the top-level columns */
    hoodie_pq_node node;    /* twin of root */
    size_t n_leaves;
    hoodie_pq_leaf *leaves; /* malloc; in column-chunk order */
} hoodie_pq_schema;

/**
 * Build the schema of a decoded footer. `what` names the file for messages.
 * @return HOODIE_OK; HOODIE_ECORRUPT (inconsistent element tree); HOODIE_EUNSUPPORTED; HOODIE_ENOMEM.
 */
hoodie_status hoodie_pq_schema_build(hoodie_pq_schema *out, const hoodie_pq_file_meta *m, const char *what);
void hoodie_pq_schema_dispose(hoodie_pq_schema *s);

/**
 * Project `in` onto `paths` (top-level names, or dotted paths through structs: "a.b.c" keeps struct a with
 * only b, and b with only c). Top-level columns come in the order first named; nested children keep file order.
 * out->leaves is NULL (leaf indices refer to in->leaves). Unknown names: HOODIE_EINVAL.
 */
hoodie_status hoodie_pq_schema_project(hoodie_field *root_out, hoodie_pq_node *node_out, const hoodie_pq_schema *in,
                                       const char *const *paths, size_t n_paths);
void hoodie_pq_node_dispose(hoodie_pq_node *n);

/** Leaf index of a dotted Parquet path ("a.b.c" as in path_in_schema), or -1. */
int hoodie_pq_schema_find_leaf(const hoodie_pq_schema *s, const char *dotted_path);

/** Append the Parquet schema as an indented tree ("required int64 id (INTEGER(64,true))"). */
hoodie_status hoodie_pq_schema_text(const hoodie_pq_file_meta *m, hoodie_buf *out);
/** Text of one element's physical + logical/converted annotation, e.g. "INT64 TIMESTAMP(MICROS,true)". */
const char *hoodie_pq_element_type_text(const hoodie_pq_schema_element *e, char *buf, size_t len);
const char *hoodie_pq_type_name(hoodie_pq_type t);
const char *hoodie_pq_encoding_name(hoodie_pq_encoding e);

#endif
