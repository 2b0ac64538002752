/*
 * Fuzz the CSV / JSON-lines input reader on a buffer. The first byte picks the mode:
 *   bit 0: JSON lines instead of CSV;  bit 1: infer the schema instead of the fixed one;
 *   bits 2-3: delimiter (',' ';' '\t' '|');  bit 4: ignore extra columns;  bits 5-7: batch size 1 << n.
 * The fixed schema has one column of most types, named a..p, so headers made of those letters reach every
 * converter.
 */
#include "fuzz_schema.h"
#include "model/build.h"
#include "table/input.h"
#include "util/error.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    hoodie_field root;
    if (!fuzz_schema(&root)) return 0;

    static const char delims[] = { ',', ';', '\t', '|' };
    hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
    o.format = (mode & 1) ? HOODIE_INPUT_JSONL : HOODIE_INPUT_CSV;
    o.schema = (mode & 2) ? NULL : &root;
    o.delimiter = delims[(mode >> 2) & 3];
    o.ignore_extra_columns = (mode >> 4) & 1;
    o.batch_rows = (int64_t)1 << ((mode >> 5) & 7);
    o.infer_rows = 50;
    o.binary = (mode & 0x40) ? HOODIE_INPUT_BINARY_HEX : HOODIE_INPUT_BINARY_DEFAULT;

    hoodie_input *in;
    if (hoodie_input_open_buffer(&in, data, size, "fuzz.csv", &o) == HOODIE_OK) {
        hoodie_batch b;
        int64_t total = 0;
        while (hoodie_input_next(in, &b) == HOODIE_OK) {
            if (b.root.length <= 0 || b.root.length > o.batch_rows) __builtin_trap();
            for (size_t c = 0; c < b.root.n_children; c++)
                if (b.root.children[c].length != b.root.length) __builtin_trap();
            total += b.root.length;
            hoodie_batch_dispose(&b);
            if (total > 100000) break;
        }
        hoodie_input_free(in);
    }
    hoodie_field_dispose(&root);
    return 0;
}
