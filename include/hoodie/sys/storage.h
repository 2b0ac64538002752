/*
 * Extension point: the storage vtable. hoodie moves bytes only through this interface, so a table can live on
 * local disk, on S3 (or a server speaking its API), in memory (tests) or behind fault injection (tests).
 *
 * Paths are '/'-separated strings passed through unchanged to the backend.
 * Thread-safety: a backend must allow concurrent calls on distinct handles.
 */
#ifndef HOODIE_SYS_STORAGE_H
#define HOODIE_SYS_STORAGE_H

#include "hoodie/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2 added will_read. hoodie takes version 1 tables of functions too (it never calls what they lack). */
#define HOODIE_STORAGE_VERSION 3

typedef struct hoodie_rfile hoodie_rfile; /**< a file open for positional reads (backend-defined) */
typedef struct hoodie_wfile hoodie_wfile; /**< a file being written sequentially (backend-defined) */

typedef struct hoodie_dirent {
    const char *name;   /**< entry name, no slashes; valid during the callback only */
    int is_dir;
    uint64_t size;      /**< bytes, 0 for directories */
    int64_t mtime_ms;   /**< modification time, ms since the epoch (0 if unknown) */
} hoodie_dirent;

typedef int (*hoodie_storage_list_cb)(const hoodie_dirent *entry, void *payload);

/** Create flags. */
#define HOODIE_CREATE_EXCLUSIVE 1u /**< fail with HOODIE_EEXISTS if the file exists (atomic create-if-absent) */
/**
 * The file need not be durable when finish returns: it is made durable, at the latest, before the next file
 * finished without this flag (a commit point: an instant file) becomes visible. Writers give it to data files and
 * markers, which only a later completed instant makes part of the table, so many files cost one wait for the disk
 * instead of one each. Storage without a notion of durability ignores it.
 */
#define HOODIE_CREATE_DEFER_SYNC 2u
/**
 * With DEFER_SYNC, more than it: the file need not even be visible when finish returns, nor its failure known (an object
 * store uploads it in the background). It becomes visible, at the latest, before the next file finished without
 * either DEFER flag (a commit point) does, and the next such finish on the same thread fails if this file could not
 * be written (unless it has been removed since); an operation on the file's own path (open_read, exists, remove, rename, a listing of its
 * directory) waits for it first. Writers give it to data files whose name no other writer can take, which only a
 * later completed instant makes part of the table. Storage that finishes at once ignores it.
 */
#define HOODIE_CREATE_DEFER_VISIBLE 4u
/**
 * With DEFER_VISIBLE, for markers (a write's note of a data file it is about to create, which a rollback follows):
 * every file that the same thread finishes after this one becomes visible only once this one is, and fails instead
 * of appearing if this one could not be written. A marker is then always in place before its data file, though
 * neither waits for the other's upload. Storage that finishes at once ignores it.
 */
#define HOODIE_CREATE_BARRIER 8u

typedef struct hoodie_storage {
    unsigned version; /**< HOODIE_STORAGE_VERSION */
    void *ctx;
    /** Open for reading; HOODIE_ENOTFOUND if absent. */
    hoodie_status (*open_read)(void *ctx, const char *path, hoodie_rfile **out, uint64_t *size_out);
    /** Read exactly len bytes at off (short reads are HOODIE_EIO / HOODIE_ECORRUPT). */
    hoodie_status (*read_at)(void *ctx, hoodie_rfile *f, uint64_t off, void *buf, size_t len);
    void (*close_read)(void *ctx, hoodie_rfile *f);
    /**
     * Start writing `path`. With HOODIE_CREATE_EXCLUSIVE the file appears atomically, only at finish, and only if
     * absent (HOODIE_EEXISTS otherwise); without it an existing file is replaced atomically at finish.
     * Parent directories are created as needed.
     */
    hoodie_status (*create)(void *ctx, const char *path, unsigned flags, hoodie_wfile **out);
    hoodie_status (*write)(void *ctx, hoodie_wfile *f, const void *data, size_t len);
    /** Make the file durable and visible. Frees the handle whatever the outcome. */
    hoodie_status (*finish)(void *ctx, hoodie_wfile *f);
    /** Drop a file being written: nothing becomes visible. Frees the handle. Never fails. */
    void (*abandon)(void *ctx, hoodie_wfile *f);
    /** List a directory; HOODIE_ENOTFOUND if absent. A callback returning non-zero stops the listing. */
    hoodie_status (*list)(void *ctx, const char *dir, hoodie_storage_list_cb cb, void *payload);
    /** Remove a file (HOODIE_ENOTFOUND if absent). */
    hoodie_status (*remove)(void *ctx, const char *path);
    /** Atomic rename, replacing the target. */
    hoodie_status (*rename)(void *ctx, const char *from, const char *to);
    /** Create a directory and its parents; existing is fine. */
    hoodie_status (*mkdirs)(void *ctx, const char *path);
    /** Remove an empty directory. */
    hoodie_status (*rmdir)(void *ctx, const char *path);
    /** 1 if the path exists (file or directory), 0 if not, negative status on failure. */
    int (*exists)(void *ctx, const char *path);
    /** Release the backend (NULL: nothing to do). */
    void (*destroy)(void *ctx);
    /**
     * (Version 2; NULL: no use for it.) Advice: ranges of f about to be read, [offs[i], offs[i] + lens[i]) in
     * ascending order (a Parquet reader gives the column chunks of the row group it starts). A backend may fetch
     * them ahead, an object store in parallel requests, or do nothing; it never fails, and reads return the same
     * bytes whatever it did. Called with no reads of f in flight.
     */
    void (*will_read)(void *ctx, hoodie_rfile *f, const uint64_t *offs, const size_t *lens, size_t n);
    /**
     * (Version 3; NULL: not offered.) The first `size` bytes of f (at most its size) mapped read-only: *data stays
     * valid until unmap(ctx, f, *data, size), which comes before f is closed. The pages are the file's own, which
     * the system may drop and read again, not a private copy. HOODIE_EUNSUPPORTED (or any failure): read instead.
     */
    hoodie_status (*map)(void *ctx, hoodie_rfile *f, uint64_t size, const void **data);
    void (*unmap)(void *ctx, hoodie_rfile *f, const void *data, uint64_t size);
} hoodie_storage;

/** The local POSIX file system (a static, shared instance; never free it). */
HOODIE_API const hoodie_storage *hoodie_storage_posix(void);

/**
 * What hoodie uses when no storage is given (a static, shared instance; never free it): paths starting with
 * s3:// or s3a:// go to an S3 storage configured from the environment (hoodie_storage_s3_from_env, made at the
 * first such path), every other path to the local file system.
 */
HOODIE_API const hoodie_storage *hoodie_storage_default(void);

/** Where and as whom an S3 storage connects. Strings are copied. */
typedef struct hoodie_s3_config {
    const char *endpoint;          /**< "http[s]://host[:port]"; NULL: https://s3.<region>.amazonaws.com (.com.cn
                                        in the China regions) */
    const char *region;            /**< NULL: us-east-1 */
    const char *access_key_id;     /**< NULL (with the secret NULL): anonymous, unsigned requests */
    const char *secret_access_key;
    const char *session_token;     /**< temporary credentials' token, or NULL */
    int path_style;                /**< 1: endpoint/bucket/key; 0: bucket.endpoint/key (virtual-hosted) */
} hoodie_s3_config;

/**
 * Storage on S3 or a server speaking its API, for paths s3://bucket/key and s3a://bucket/key. Requests are signed
 * with AWS Signature Version 4. Exclusive creation is a conditional PUT (If-None-Match), which S3 has had since
 * 2024; rename is a copy and a delete, not atomic. Release with hoodie_storage_free().
 */
HOODIE_API hoodie_status hoodie_storage_s3_new(hoodie_storage **out, const hoodie_s3_config *cfg);
/**
 * An S3 storage configured as the AWS command-line tools are: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN, AWS_REGION (or AWS_DEFAULT_REGION), AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL); what the
 * environment does not give comes from the profile AWS_PROFILE (default "default") of the shared files
 * (AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials: aws_access_key_id, aws_secret_access_key, aws_session_token;
 * AWS_CONFIG_FILE or ~/.aws/config: region, endpoint_url, and keys too). Path-style addressing when an endpoint is
 * set, unless HOODIE_S3_PATH_STYLE says otherwise (1 or 0). An AWS_PROFILE found in neither file is HOODIE_EINVAL.
 * Without keys, temporary credentials come from web identity (AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN, or the
 * profile's web_identity_token_file + role_arn), the profile's credential_process, the container endpoint
 * (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI / _FULL_URI) or the EC2 instance metadata service (unless
 * AWS_EC2_METADATA_DISABLED=true), and are renewed before they expire; a configured source that fails is an error,
 * an absent metadata service means unsigned requests.
 */
HOODIE_API hoodie_status hoodie_storage_s3_from_env(hoodie_storage **out);
/** A fresh in-memory file system; release with hoodie_storage_free(). */
HOODIE_API hoodie_status hoodie_storage_mem_new(hoodie_storage **out);

/** Fault injection modes. */
typedef enum hoodie_fault_mode {
    HOODIE_FAULT_NONE = 0,
    HOODIE_FAULT_FAIL_NTH,   /**< the n-th counted operation fails with HOODIE_EIO; later ones succeed */
    HOODIE_FAULT_CRASH_AT    /**< the n-th and every later operation fails (a process that died there) */
} hoodie_fault_mode;

/**
 * Wrap `inner` with fault injection. Counted operations: open_read, read_at, create, write, finish, list, remove,
 * rename, mkdirs, rmdir. `inner` is borrowed and must outlive the wrapper.
 */
HOODIE_API hoodie_status hoodie_storage_faulty_new(hoodie_storage **out, const hoodie_storage *inner);
HOODIE_API void hoodie_storage_faulty_arm(hoodie_storage *faulty, hoodie_fault_mode mode, uint64_t n);
/** Operations counted since the last arm (or creation). */
HOODIE_API uint64_t hoodie_storage_faulty_count(const hoodie_storage *faulty);
/** 1 if a fault has been injected since the last arm. */
HOODIE_API int hoodie_storage_faulty_fired(const hoodie_storage *faulty);

/** Release a storage made by a *_new function. NULL is a no-op. */
HOODIE_API void hoodie_storage_free(hoodie_storage *s);

#ifdef __cplusplus
}
#endif
#endif
