/* bench_gen START COUNT: print rows [START, START+COUNT) of the benchmark dataset as tab-separated text
 * (id, name, age, address, partition_path, ts; no header), to check the C generator against the SQL one. */
#include "bench_gen.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_gen START COUNT\n");
        return 2;
    }
    long long start = atoll(argv[1]), count = atoll(argv[2]);
    bench_row r;
    for (long long i = start; i < start + count; i++) {
        bench_gen_row(i, &r);
        printf("%s\t%s\t%d\t%s\t%s\t%lld\n", r.id, r.name, (int)r.age, r.address, r.partition_path, (long long)r.ts);
    }
    return 0;
}
