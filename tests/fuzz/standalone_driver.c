/* Replays a corpus without libFuzzer: runs LLVMFuzzerTestOneInput on every file under argv[1] (recursively). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) { fclose(f); free(buf); return -1; }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)(n > 0 ? n : 0));
    free(buf);
    return 0;
}

static void walk(const char *dir, long *passed, long *failed)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) { if (run_file(dir) == 0) (*passed)++; else (*failed)++; return; }
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        struct stat st;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0) { (*failed)++; continue; }
        if (S_ISDIR(st.st_mode)) walk(path, passed, failed);
        else if (run_file(path) == 0) (*passed)++;
        else (*failed)++;
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    long passed = 0, failed = 0;
    if (argc < 2) { fprintf(stderr, "usage: %s corpus_dir\n", argv[0]); return 2; }
    for (int i = 1; i < argc; i++) walk(argv[i], &passed, &failed);
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed ? 1 : 0;
}
