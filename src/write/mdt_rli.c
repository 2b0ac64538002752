/*
 * The metadata table's record_index entries as Hudi writes them (HoodieMetadataPayload.createRecordIndexUpdate):
 * HoodieRecordIndexInfo {partitionName, fileIdHighBits, fileIdLowBits, fileIndex, fileId, instantTime,
 * fileIdEncoding, position}, inside a HoodieMetadataRecord of type 5.
 */
#include "write/mdt.h"
#include "format/avro/binary.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define RLI_TYPE 5

/* 0 and the value of hex digit ch, or -1. */
static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* A file id "<UUID>-<index>" (or a bare UUID: index -1) as Java's UUID.fromString reads the canonical form:
 * its most and least significant 64 bits; 0 when it is not one. */
static int uuid_file_id(const char *id, uint64_t *hi, uint64_t *lo, int32_t *index)
{
    size_t n = strlen(id);
    if (n < 36) return 0;
    static const int dash[4] = { 8, 13, 18, 23 };
    uint64_t v[2] = { 0, 0 };
    int k = 0;
    for (int i = 0; i < 36; i++) {
        if (k < 4 && i == dash[k]) {
            if (id[i] != '-') return 0;
            k++;
            continue;
        }
        int h = hexval(id[i]);
        if (h < 0) return 0;
        int word = i < 19 ? 0 : 1; /* 16 hex digits each: 8-4-4 | 4-12 */
        v[word] = v[word] << 4 | (uint64_t)h;
    }
    *hi = v[0], *lo = v[1];
    if (n == 36) { *index = -1; return 1; }
    if (id[36] != '-' || n == 37 || n > 37 + 10) return 0;
    int64_t x = 0;
    for (size_t i = 37; i < n; i++) {
        if (id[i] < '0' || id[i] > '9') return 0;
        x = x * 10 + (id[i] - '0');
    }
    if (x > INT32_MAX) return 0;
    *index = (int32_t)x;
    return 1;
}

int64_t hoodie_write__instant_ms(const char *instant, int utc)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int ms = 0;
    size_t n = strlen(instant);
    if (n < 14) return -1;
    if (sscanf(instant, "%4d%2d%2d%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec) != 6)
        return -1;
    if (n >= 17 && sscanf(instant + 14, "%3d", &ms) != 1) return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_isdst = -1;
    time_t t = utc ? timegm(&tm) : mktime(&tm);
    if (t == (time_t)-1) return -1;
    return (int64_t)t * 1000 + ms;
}

hoodie_status hoodie_write__rli_info(hoodie_buf *out, const char *partition, const char *file_id,
                                     const char *instant, int utc)
{
    int64_t ms = hoodie_write__instant_ms(instant, utc);
    if (ms < 0) return HOODIE_FAIL(HOODIE_EINVAL, "record index: instant time '%s' is not yyyyMMddHHmmss[SSS]", instant);
    uint64_t hi = 0, lo = 0;
    int32_t index = -1;
    int uuid = uuid_file_id(file_id, &hi, &lo, &index);
    HOODIE_TRY(hoodie_avro_write_long(out, 1)); /* partitionName */
    HOODIE_TRY(hoodie_avro_write_bytes(out, partition, strlen(partition)));
    /* encoding 0 (UUID-based ids, Hudi's default): the id's UUID as two longs and its index, fileId ""; 1: the
     * id as it is, the bits and index -1 */
    HOODIE_TRY(hoodie_avro_write_long(out, 1));
    HOODIE_TRY(hoodie_avro_write_long(out, uuid ? (int64_t)hi : -1));
    HOODIE_TRY(hoodie_avro_write_long(out, 1));
    HOODIE_TRY(hoodie_avro_write_long(out, uuid ? (int64_t)lo : -1));
    HOODIE_TRY(hoodie_avro_write_long(out, 1));
    HOODIE_TRY(hoodie_avro_write_long(out, uuid ? index : -1));
    HOODIE_TRY(hoodie_avro_write_long(out, 1));
    HOODIE_TRY(hoodie_avro_write_bytes(out, uuid ? "" : file_id, uuid ? 0 : strlen(file_id)));
    HOODIE_TRY(hoodie_avro_write_long(out, 1)); /* instantTime */
    HOODIE_TRY(hoodie_avro_write_long(out, ms));
    HOODIE_TRY(hoodie_avro_write_long(out, uuid ? 0 : 1)); /* fileIdEncoding */
    return hoodie_buf_putc(out, 0);                        /* position: null */
}

hoodie_status hoodie_write__rli_encode(hoodie_buf *out, const uint8_t *ri, size_t ri_len, const char *base_file)
{
    static const uint8_t nulls[4] = { 0, 0, 0, 0 }; /* commit time, sequence number, record key, partition path */
    HOODIE_TRY(hoodie_buf_append(out, nulls, 4));
    if (base_file) { /* a base file's records name it */
        HOODIE_TRY(hoodie_avro_write_long(out, 1));
        HOODIE_TRY(hoodie_avro_write_bytes(out, base_file, strlen(base_file)));
    } else {
        HOODIE_TRY(hoodie_buf_putc(out, 0));
    }
    HOODIE_TRY(hoodie_buf_putc(out, 0)); /* key "" (the HFile row is the key) */
    HOODIE_TRY(hoodie_avro_write_long(out, RLI_TYPE));
    static const uint8_t none[3] = { 0, 0, 0 }; /* filesystemMetadata, BloomFilterMetadata, ColumnStatsMetadata */
    HOODIE_TRY(hoodie_buf_append(out, none, 3));
    HOODIE_TRY(hoodie_avro_write_long(out, 1)); /* recordIndexMetadata */
    HOODIE_TRY(hoodie_buf_append(out, ri, ri_len));
    return hoodie_buf_putc(out, 0); /* SecondaryIndexMetadata */
}
