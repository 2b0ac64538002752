/*
 * Thrift compact protocol, decode and encode, on buffers (no I/O). Enough for Parquet's metadata: structs,
 * fields with delta ids, bool, i8/i16/i32/i64 (zig-zag varints), double, binary, list/set, map (skipped).
 *
 *   field header byte:  (delta << 4) | type, delta in 1..15;  delta 0: type byte, then zig-zag i16 field id
 *   list header byte:   (size << 4) | elem type, size < 15;   size 15: then uvarint size
 *   bool fields carry their value in the type nibble (1 true, 2 false); bool list elements are one byte.
 *
 * Decoding is bounded: nesting deeper than HOODIE_THRIFT_MAX_DEPTH and lists longer than the bytes left are
 * corruption, reported with the offset through the cursor.
 */
#ifndef HOODIE_FORMAT_THRIFT_COMPACT_H
#define HOODIE_FORMAT_THRIFT_COMPACT_H

#include <stdint.h>
#include "util/buf.h"
#include "util/cursor.h"

enum {
    HOODIE_TT_STOP = 0, HOODIE_TT_TRUE = 1, HOODIE_TT_FALSE = 2, HOODIE_TT_BYTE = 3, HOODIE_TT_I16 = 4,
    HOODIE_TT_I32 = 5, HOODIE_TT_I64 = 6, HOODIE_TT_DOUBLE = 7, HOODIE_TT_BINARY = 8, HOODIE_TT_LIST = 9,
    HOODIE_TT_SET = 10, HOODIE_TT_MAP = 11, HOODIE_TT_STRUCT = 12
};

#define HOODIE_THRIFT_MAX_DEPTH 64

typedef struct hoodie_thrift_reader {
    hoodie_cursor *c;
    int depth;
    int16_t last_fid[HOODIE_THRIFT_MAX_DEPTH];
} hoodie_thrift_reader;

void hoodie_thrift_reader_init(hoodie_thrift_reader *r, hoodie_cursor *c);
/** Enter a struct (before reading its fields). */
void hoodie_thrift_struct_begin(hoodie_thrift_reader *r);
/** Leave a struct (after its STOP). */
void hoodie_thrift_struct_end(hoodie_thrift_reader *r);
/**
 * Read the next field header. Returns 0 at STOP (or on error: check r->c->status), 1 otherwise with *fid and
 * *type set. For bool fields, *type is HOODIE_TT_TRUE or HOODIE_TT_FALSE and the value needs no further read.
 */
int hoodie_thrift_field(hoodie_thrift_reader *r, int16_t *fid, uint8_t *type);
int32_t hoodie_thrift_i32(hoodie_thrift_reader *r);
int64_t hoodie_thrift_i64(hoodie_thrift_reader *r);
double hoodie_thrift_double(hoodie_thrift_reader *r);
/** Borrow a binary/string value (pointer into the buffer). */
const uint8_t *hoodie_thrift_binary(hoodie_thrift_reader *r, uint32_t *len);
/** A list/set header: element type and count (count bounded by bytes left). */
uint32_t hoodie_thrift_list(hoodie_thrift_reader *r, uint8_t *elem_type);
/** A bool list element. */
int hoodie_thrift_bool_elem(hoodie_thrift_reader *r);
/** Skip a value of the given type (field or element). */
void hoodie_thrift_skip(hoodie_thrift_reader *r, uint8_t type);
/** Check that a field's type is what the schema says; records corruption otherwise. Returns 1 if it matches. */
int hoodie_thrift_expect(hoodie_thrift_reader *r, uint8_t got, uint8_t want, const char *field);

typedef struct hoodie_thrift_writer {
    hoodie_buf *b;
    int depth;
    int16_t last_fid[HOODIE_THRIFT_MAX_DEPTH];
    hoodie_status status; /* first failure sticks */
} hoodie_thrift_writer;

void hoodie_thrift_writer_init(hoodie_thrift_writer *w, hoodie_buf *b);
void hoodie_thrift_write_struct_begin(hoodie_thrift_writer *w);
/** Writes the STOP byte and leaves the struct. */
void hoodie_thrift_write_struct_end(hoodie_thrift_writer *w);
void hoodie_thrift_write_field(hoodie_thrift_writer *w, int16_t fid, uint8_t type);
void hoodie_thrift_write_bool_field(hoodie_thrift_writer *w, int16_t fid, int value);
void hoodie_thrift_write_i32_field(hoodie_thrift_writer *w, int16_t fid, int32_t v);
void hoodie_thrift_write_i64_field(hoodie_thrift_writer *w, int16_t fid, int64_t v);
void hoodie_thrift_write_binary_field(hoodie_thrift_writer *w, int16_t fid, const void *p, size_t len);
void hoodie_thrift_write_i32(hoodie_thrift_writer *w, int32_t v);
void hoodie_thrift_write_i64(hoodie_thrift_writer *w, int64_t v);
void hoodie_thrift_write_double(hoodie_thrift_writer *w, double v);
void hoodie_thrift_write_binary(hoodie_thrift_writer *w, const void *p, size_t len);
void hoodie_thrift_write_list_begin(hoodie_thrift_writer *w, uint8_t elem_type, uint32_t count);

#endif
