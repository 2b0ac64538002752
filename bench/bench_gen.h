/*
 * The benchmark dataset, generated row by row with integer arithmetic only, so that C (here) and SQL
 * (bench/duck_bench.mjs, DATASET_SQL) produce exactly the same rows. For row i in [0, rows):
 *
 *   h1 = (i * 2654435761 + 1013904223) mod 2^32        h2 = (i * 2246822519 + 3266489917) mod 2^32
 *   h3 = (i * 3266489917 + 668265263)  mod 2^32        (every product fits in int64 for i < 2^31)
 *
 *   id             8-digit zero-padded decimal of i                       e.g. "00000042"
 *   name           FIRST[h1 % 16] + " " + LAST[(h1 >> 8) % 16]            e.g. "Alice Moreau"
 *   age            int32: (h1 >> 16) % 80 + 18
 *   address        (h2 % 9000 + 1000) + " " + STREET[(h2 >> 13) % 16] + " " + SUFFIX[(h2 >> 17) % 4] + ", "
 *                  + CITY[h3 % 16] + " " + STATE[(h1 >> 24) % 8] + " " + ((h3 >> 8) % 90000 + 10000)
 *                                                                        (35 characters on average)
 *   partition_path DAY[(h3 >> 20) % 7]                                    a weekday name
 *   ts             int64: 1700000000000 + i * 1000 + h3 % 1000           epoch milliseconds
 *
 * The word lists are below (and, identically, in duck_bench.mjs). Every string is ASCII.
 */
#ifndef HOODIE_BENCH_GEN_H
#define HOODIE_BENCH_GEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_row {
    char id[16];
    char name[40];
    int32_t age;
    char address[80];
    const char *partition_path;   /* static */
    int64_t ts;
    size_t id_len, name_len, address_len, partition_path_len;
} bench_row;

/** Row i of the dataset. */
void bench_gen_row(int64_t i, bench_row *r);

#endif
