/* Fuzz the FileMetaData decoder and the schema mapping on raw footer bytes. */
#include "format/parquet/meta.h"
#include "format/parquet/schema.h"
#include "util/arena.h"
#include "util/buf.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hoodie_arena *a;
    hoodie_pq_file_meta m;
    hoodie_cursor c;
    if (hoodie_arena_new(&a, NULL, 4096) < 0) return 0;
    hoodie_cursor_init(&c, data, size, 0, "fuzz");
    if (hoodie_pq_file_meta_decode(&m, &c, a) == HOODIE_OK) {
        hoodie_pq_schema s;
        hoodie_buf b = HOODIE_BUF_INIT;
        if (hoodie_pq_schema_build(&s, &m, "fuzz") == HOODIE_OK) hoodie_pq_schema_dispose(&s);
        (void)hoodie_pq_schema_text(&m, &b);
        hoodie_buf_dispose(&b);
    }
    hoodie_arena_reset(a);
    hoodie_cursor_init(&c, data, size, 0, "fuzz");
    {
        hoodie_pq_page_header h;
        (void)hoodie_pq_page_header_decode(&h, &c, a);
    }
    hoodie_arena_free(a);
    return 0;
}
