#include "hoodie_test.h"
#include "table/file_name.h"

static int eq(hoodie_slice_ref r, const char *s) { return r.len == strlen(s) && !memcmp(r.p, s, r.len); }

HOODIE_TEST(table_file_name__base)
{
    hoodie_file_name f;
    hoodie_assert_equal_i(HOODIE_FILE_BASE,
        hoodie_file_name_parse(&f, "a22e8257-e249-45e9-ba46-115bc85adcba-0_0-161-223_20240418173235694.parquet"));
    hoodie_assert(eq(f.file_id, "a22e8257-e249-45e9-ba46-115bc85adcba-0"));
    hoodie_assert(eq(f.write_token, "0-161-223"));
    hoodie_assert(eq(f.instant, "20240418173235694"));
    hoodie_assert(eq(f.ext, "parquet"));
}

HOODIE_TEST(table_file_name__logs)
{
    hoodie_file_name f;
    hoodie_assert_equal_i(HOODIE_FILE_LOG,
        hoodie_file_name_parse(&f, ".6d3d1d6e-1234-0_20250618054711154.log.1_0-26-85"));
    hoodie_assert(eq(f.file_id, "6d3d1d6e-1234-0"));
    hoodie_assert(eq(f.instant, "20250618054711154"));
    hoodie_assert(eq(f.write_token, "0-26-85"));
    hoodie_assert_equal_i(1, f.version);
    hoodie_assert_equal_i(HOODIE_FILE_LOG, hoodie_file_name_parse(&f, ".abc-0_20250618054711154.log.12_1-0-1.cdc"));
    hoodie_assert(f.cdc);
    hoodie_assert_equal_i(12, f.version);
    hoodie_assert_equal_i(HOODIE_FILE_LOG, hoodie_file_name_parse(&f, ".abc-0_20250618054711154.log.3"));
    hoodie_assert_equal_i(0, f.write_token.len);
    hoodie_assert_equal_i(HOODIE_FILE_LOG_NATIVE, hoodie_file_name_parse(&f, "abc-0_0-1-2_20250618054711154_2.log.parquet"));
    hoodie_assert_equal_i(2, f.version);
    hoodie_assert_equal_i(HOODIE_FILE_DELETES_NATIVE,
                          hoodie_file_name_parse(&f, "abc-0_0-1-2_20250618054711154_1.deletes.parquet"));
}

HOODIE_TEST(table_file_name__not_data_files)
{
    hoodie_file_name f;
    static const char *names[] = { ".hoodie_partition_metadata", "hoodie.properties", "x.parquet", ".hoodie",
                                   "abc_0-1-2_.parquet", ".abc_123.log.x_0-1-2", ".abc_123.log.1_0-1", "a_b_c",
                                   "abc-0_0-1-2_2025_1.log.orc", ".abc_12.log.1_0-1-2.cdcx", "" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        hoodie_assert_equal_i(HOODIE_FILE_OTHER, hoodie_file_name_parse(&f, names[i]));
}

HOODIE_TEST(table_file_name__format_roundtrip)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_file_name f;
    hoodie_assert_ok(hoodie_file_name_base(&b, "id-0", "0-0-1", "20250101000000000", "parquet"));
    hoodie_assert_equal_s("id-0_0-0-1_20250101000000000.parquet", (char *)b.data);
    hoodie_buf_clear(&b);
    hoodie_assert_ok(hoodie_file_name_log(&b, "id-0", "20250101000000000", 1, "0-0-1"));
    hoodie_assert_equal_s(".id-0_20250101000000000.log.1_0-0-1", (char *)b.data);
    hoodie_assert_equal_i(HOODIE_FILE_LOG, hoodie_file_name_parse(&f, (char *)b.data));
    hoodie_buf_clear(&b);
    hoodie_assert_ok(hoodie_file_name_native_log(&b, "id-0", "0-0-1", "20250101000000000", 1, 0));
    hoodie_assert_equal_i(HOODIE_FILE_LOG_NATIVE, hoodie_file_name_parse(&f, (char *)b.data));
    hoodie_buf_dispose(&b);
    hoodie_slice_ref t1 = { "0-10-2", 6 }, t2 = { "0-9-300", 7 };
    hoodie_assert(hoodie_write_token_compare(t1, t2) > 0); /* numeric, not string order */
}

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

static void walk(const char *dir, int *bases, int *logs)
{
    DIR *d = opendir(dir);
    hoodie_assert(d != NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".hoodie")) continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) { walk(path, bases, logs); continue; }
        hoodie_file_name f;
        hoodie_file_kind k = hoodie_file_name_parse(&f, e->d_name);
        size_t n = strlen(e->d_name);
        if (!strncmp(e->d_name, "part-", 5)) hoodie_assert_equal_i(HOODIE_FILE_OTHER, k); /* Spark output, not Hudi */
        else if (n > 8 && !strcmp(e->d_name + n - 8, ".parquet")) { hoodie_assert_equal_i(HOODIE_FILE_BASE, k); (*bases)++; }
        else if (e->d_name[0] == '.' && strstr(e->d_name, ".log.")) { hoodie_assert_equal_i(HOODIE_FILE_LOG, k); (*logs)++; }
        else hoodie_assert_equal_i(HOODIE_FILE_OTHER, k);
    }
    closedir(d);
}

HOODIE_TEST(table_file_name__every_fixture_data_file)
{
    int bases = 0, logs = 0;
    walk(hoodie_fixture("hudi/tables"), &bases, &logs);
    hoodie_assert(bases > 30);
    hoodie_assert(logs > 5);
}
