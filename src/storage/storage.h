/* Internal helpers over the storage vtable: whole-file read/write, recursive listing. */
#ifndef HOODIE_STORAGE_STORAGE_H
#define HOODIE_STORAGE_STORAGE_H

#include "hoodie/sys/storage.h"
#include "util/buf.h"

/** Default storage when the caller passes NULL. */
static inline const hoodie_storage *hoodie_storage__or_default(const hoodie_storage *s)
{
    return s ? s : hoodie_storage_default();
}

/** The will_read advice to s, when it takes it (version 2 and the function set). */
static inline void hoodie_storage__will_read(const hoodie_storage *s, hoodie_rfile *f, const uint64_t *offs,
                                             const size_t *lens, size_t n)
{
    if (s->version >= 2 && s->will_read && n) s->will_read(s->ctx, f, offs, lens, n);
}

/** Read a whole file into `out` (appended). On failure an empty `out` stays empty (no memory held). */
hoodie_status hoodie_storage_read_all(const hoodie_storage *s, const char *path, hoodie_buf *out);
/**
 * A whole file's bytes, mapped where the storage maps files (hoodie_storage::map: the pages are the file's, not a
 * copy), else read into `buf` (the caller's, reused from file to file). data/len valid until hoodie_file_bytes_done.
 */
typedef struct hoodie_file_bytes {
    const uint8_t *data;
    size_t len;
    const hoodie_storage *s;  /* while mapped: the storage and the open file */
    hoodie_rfile *f;
} hoodie_file_bytes;
hoodie_status hoodie_storage_file_bytes(const hoodie_storage *s, const char *path, hoodie_buf *buf,
                                        hoodie_file_bytes *out);
/** The same, but a file that is not mapped and is larger than whole_max is not read: `ranged` is opened on it
 *  instead (ranged->f set; out empty) for the caller to read in ranges and close. ranged NULL: always read. */
typedef struct hoodie_reader hoodie_reader;
hoodie_status hoodie_storage_file_bytes_or_reader(const hoodie_storage *s, const char *path, hoodie_buf *buf,
                                                  uint64_t whole_max, hoodie_file_bytes *out, hoodie_reader *ranged);
void hoodie_file_bytes_done(hoodie_file_bytes *b);
/** Bytes [off, off + len) will not be read again soon: a mapped file's pages there leave the process's memory
 *  (they are read again from the file if they are touched); bytes read into a buffer stay as they are. */
void hoodie_file_bytes_drop(hoodie_file_bytes *b, uint64_t off, uint64_t len);
/** Write a whole file (flags as for create). */
hoodie_status hoodie_storage_write_all(const hoodie_storage *s, const char *path, unsigned flags,
                                       const void *data, size_t len);
/** Remove a directory tree (files first). Missing is fine. */
hoodie_status hoodie_storage_remove_tree(const hoodie_storage *s, const char *dir);

/** A positional reader with the file size, and a path for messages. */
struct hoodie_reader {
    const hoodie_storage *s;
    hoodie_rfile *f;
    uint64_t size;
    const char *path;  /* borrowed */
};

hoodie_status hoodie_reader_open(hoodie_reader *r, const hoodie_storage *s, const char *path);
hoodie_status hoodie_reader_read(hoodie_reader *r, uint64_t off, void *buf, size_t len);
/** Advice: these ranges are about to be read (hoodie_storage::will_read). */
void hoodie_reader_will_read(hoodie_reader *r, const uint64_t *offs, const size_t *lens, size_t n);
void hoodie_reader_close(hoodie_reader *r);

/** A sequential writer that counts bytes written. */
typedef struct hoodie_writer_file {
    const hoodie_storage *s;
    hoodie_wfile *f;
    uint64_t written;
} hoodie_writer_file;

hoodie_status hoodie_wfile_open(hoodie_writer_file *w, const hoodie_storage *s, const char *path, unsigned flags);
hoodie_status hoodie_wfile_write(hoodie_writer_file *w, const void *data, size_t len);
hoodie_status hoodie_wfile_finish(hoodie_writer_file *w);
void hoodie_wfile_abandon(hoodie_writer_file *w);

#endif
