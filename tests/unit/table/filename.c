#include "hoodie_test.h"
#include "table/filename.h"
#include "util/error.h"

#include <dirent.h>

HOODIE_TEST(table_filename__base)
{
    hoodie_base_file_name f;
    char buf[256];
    hoodie_assert_ok(hoodie_base_file_parse(&f, "a22e8257-e249-45e9-ba46-115bc85adcba-0_0-161-223_20240418173235694.parquet"));
    hoodie_assert_equal_s("a22e8257-e249-45e9-ba46-115bc85adcba-0", f.file_id);
    hoodie_assert_equal_s("0-161-223", f.write_token);
    hoodie_assert_equal_s("20240418173235694", f.instant);
    hoodie_assert_equal_s("parquet", f.ext);
    hoodie_assert_ok(hoodie_base_file_format(buf, sizeof buf, f.file_id, f.write_token, f.instant, f.ext));
    hoodie_assert_equal_s("a22e8257-e249-45e9-ba46-115bc85adcba-0_0-161-223_20240418173235694.parquet", buf);
    hoodie_assert_ok(hoodie_base_file_parse(&f, "files-0000-0_0-8-13_00000000000000010.hfile"));
    hoodie_assert_equal_s("hfile", f.ext);
    static const char *no[] = { ".hoodie_partition_metadata", "a_b_c.parquet", "a_b_1", "_b_1.parquet", "a__1.parquet",
                                "a_b_1.", "a_b_1.par.quet", ".a_b_1.parquet", "a b_c_1.parquet", "a_b_1.parquet.crc",
                                ".x_20240101.log.1_0-1-2" };
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_base_file_parse(&f, no[i]));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_base_file_format(buf, 8, "x", "0-0-0", "1", "parquet"));
}

HOODIE_TEST(table_filename__log)
{
    hoodie_log_file_name l, m;
    char buf[256];
    hoodie_assert_ok(hoodie_log_file_parse(&l, ".0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log.2_1-0-1"));
    hoodie_assert_equal_s("0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0", l.file_id);
    hoodie_assert_equal_s("20250126040823628", l.instant);
    hoodie_assert_equal_i(2, l.version);
    hoodie_assert_equal_s("1-0-1", l.write_token);
    hoodie_assert(!l.is_cdc && !l.is_archive);
    hoodie_assert_ok(hoodie_log_file_format(buf, sizeof buf, l.file_id, l.instant, l.version, l.write_token, 0));
    hoodie_assert_equal_s(".0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log.2_1-0-1", buf);
    hoodie_assert_ok(hoodie_log_file_parse(&m, ".0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log.10_0-13-9"));
    hoodie_assert(hoodie_log_file_cmp(&l, &m) < 0); /* version 2 < 10 numerically */
    hoodie_assert_ok(hoodie_log_file_parse(&m, ".f_1.log.2_0-0-0.cdc"));
    hoodie_assert(m.is_cdc);
    hoodie_assert_ok(hoodie_log_file_parse(&m, ".commits_.archive.3_1-0-1"));
    hoodie_assert(m.is_archive);
    hoodie_assert_equal_s("commits", m.file_id);
    hoodie_assert_equal_s("", m.instant);
    hoodie_assert_ok(hoodie_log_file_parse(&m, ".f_1.log.7"));
    hoodie_assert_equal_s("", m.write_token);
    hoodie_assert_ok(hoodie_log_file_format(buf, sizeof buf, "f", "1", 7, NULL, 0));
    hoodie_assert_equal_s(".f_1.log.7", buf);
    static const char *no[] = { "f_1.log.1_0-0-0", ".f_1.log._0-0-0", ".f_1.log.1_0-0", ".f_1.log.1_0-0-0.crc",
                                ".f.x_1.log.1", "._1.log.1", ".f_1.txt.1", ".f_1.log.1_a-b-c", ".f_1.log.1_0-0-0.cdc.x",
                                ".f_1.log.99999999999999999999" };
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_log_file_parse(&m, no[i]));
    hoodie_assert_ok(hoodie_write_token_format(buf, sizeof buf, 0, 161, 223));
    hoodie_assert_equal_s("0-161-223", buf);
}

/* Every data file of every fixture table is a base or a log file name, and formats back to itself. */
static void walk(const char *dir, int depth, size_t *base, size_t *logs)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d))) {
        char p[2048], buf[512];
        hoodie_base_file_name b;
        hoodie_log_file_name l;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".hoodie")) continue;
        if (!strcmp(e->d_name, "gold_data")) continue; /* Spark output kept next to two tables: not Hudi files */
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR) {
            if (depth < 4) walk(p, depth + 1, base, logs);
            continue;
        }
        if (strstr(e->d_name, ".parquet")) {
            hoodie_assert_ok(hoodie_base_file_parse(&b, e->d_name));
            hoodie_assert_ok(hoodie_base_file_format(buf, sizeof buf, b.file_id, b.write_token, b.instant, b.ext));
            hoodie_assert_equal_s(e->d_name, buf);
            ++*base;
        } else if (strstr(e->d_name, ".log.")) {
            hoodie_assert_ok(hoodie_log_file_parse(&l, e->d_name));
            hoodie_assert_ok(hoodie_log_file_format(buf, sizeof buf, l.file_id, l.instant, l.version, l.write_token, l.is_cdc));
            hoodie_assert_equal_s(e->d_name, buf);
            ++*logs;
        } else {
            hoodie_assert_equal_s(".hoodie_partition_metadata", e->d_name);
        }
    }
    closedir(d);
}

HOODIE_TEST(table_filename__every_fixture_file)
{
    size_t base = 0, logs = 0;
    walk(hoodie_fixture("hudi/tables"), 0, &base, &logs);
    hoodie_assert(base > 30);
    hoodie_assert(logs >= 20);
}
