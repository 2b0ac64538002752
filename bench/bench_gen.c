/* The benchmark dataset generator (see bench_gen.h for the formula). */
#include "bench_gen.h"

#include <stdio.h>
#include <string.h>

static const char *const FIRST[16] = { "Alice", "Bob", "Carla", "Dmitri", "Elena", "Farid", "Grace", "Hiro",
                                       "Ines", "Jonas", "Kofi", "Lena", "Mateo", "Nora", "Omar", "Priya" };
static const char *const LAST[16] = { "Smith", "Moreau", "Tanaka", "Okafor", "Silva", "Novak", "Haddad", "Larsen",
                                      "Kowalski", "Rossi", "Nguyen", "Fischer", "Garcia", "Ivanova", "Dubois", "Park" };
static const char *const STREET[16] = { "Maple", "Oak", "Cedar", "Elm", "Willow", "Birch", "Chestnut", "Aspen",
                                        "Harbor", "Mill", "Station", "Church", "Market", "River", "Garden", "Hill" };
static const char *const SUFFIX[4] = { "Street", "Avenue", "Road", "Lane" };
static const char *const CITY[16] = { "Springfield", "Riverton", "Lakeside", "Fairview", "Greenville", "Bristol",
                                      "Clayton", "Ashford", "Milton", "Newport", "Salem", "Dover", "Kingston",
                                      "Oakridge", "Brighton", "Hudson" };
static const char *const STATE[8] = { "NY", "CA", "TX", "WA", "IL", "MA", "OR", "CO" };
static const char *const DAY[7] = { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday" };

void bench_gen_row(int64_t i, bench_row *r)
{
    const int64_t m = 4294967296LL;
    int64_t h1 = (i * 2654435761LL + 1013904223LL) % m;
    int64_t h2 = (i * 2246822519LL + 3266489917LL) % m;
    int64_t h3 = (i * 3266489917LL + 668265263LL) % m;
    int n;

    n = snprintf(r->id, sizeof r->id, "%08lld", (long long)i);
    r->id_len = (size_t)n;
    n = snprintf(r->name, sizeof r->name, "%s %s", FIRST[h1 % 16], LAST[(h1 >> 8) % 16]);
    r->name_len = (size_t)n;
    r->age = (int32_t)((h1 >> 16) % 80 + 18);
    n = snprintf(r->address, sizeof r->address, "%lld %s %s, %s %s %lld", (long long)(h2 % 9000 + 1000),
                 STREET[(h2 >> 13) % 16], SUFFIX[(h2 >> 17) % 4], CITY[h3 % 16], STATE[(h1 >> 24) % 8],
                 (long long)((h3 >> 8) % 90000 + 10000));
    r->address_len = (size_t)n;
    r->partition_path = DAY[(h3 >> 20) % 7];
    r->partition_path_len = strlen(r->partition_path);
    r->ts = 1700000000000LL + i * 1000 + h3 % 1000;
}
