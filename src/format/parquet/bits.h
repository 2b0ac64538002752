/* Bit-width helper shared by the Parquet encoders and decoders. */
#ifndef HOODIE_FORMAT_PARQUET_BITS_H
#define HOODIE_FORMAT_PARQUET_BITS_H

#include <stdint.h>

/** Bits needed to store max_value (0 for 0). */
static inline int hoodie_pq_bit_width(uint64_t max_value)
{
    return max_value ? 64 - __builtin_clzll(max_value) : 0;
}

#endif
