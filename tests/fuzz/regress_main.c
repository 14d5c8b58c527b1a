/* A main() for the fuzz targets without libFuzzer: runs
 * LLVMFuzzerTestOneInput once per file named on the command line (a
 * directory means every regular file in it, sorted). Used by
 * `make fuzz-regress` with gcc's ASan/UBSan, so the regression inputs run
 * in `make check` even where clang is not installed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
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
    uint8_t *buf;
    long len;

    if (!f) {
        fprintf(stderr, "regress: cannot open %s\n", path);
        return 1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        fprintf(stderr, "regress: cannot size %s\n", path);
        return 1;
    }
    buf = malloc((size_t)len + 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        fclose(f);
        fprintf(stderr, "regress: cannot read %s\n", path);
        return 1;
    }
    fclose(f);
    fprintf(stderr, "regress: %s\n", path);
    /* exact-size view: the copy keeps one spare byte only for malloc(0) */
    LLVMFuzzerTestOneInput(buf, (size_t)len);
    free(buf);
    return 0;
}

static int only_files(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

int main(int argc, char **argv)
{
    int failed = 0, ran = 0;

    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "regress: no such input %s\n", argv[i]);
            failed++;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            struct dirent **names;
            int n = scandir(argv[i], &names, only_files, alphasort);
            for (int k = 0; k < n; k++) {
                char path[4096];
                struct stat fst;
                snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
                if (stat(path, &fst) == 0 && S_ISREG(fst.st_mode)) {
                    failed += run_file(path);
                    ran++;
                }
                free(names[k]);
            }
            if (n >= 0)
                free(names);
        } else {
            failed += run_file(argv[i]);
            ran++;
        }
    }
    printf("%s: %d inputs re-run, %d unreadable\n", argv[0], ran, failed);
    return failed ? 1 : 0;
}
