/* SPDX-License-Identifier: Apache-2.0 */
/* tokenize_only.c -- runs cfs_baseline_tokenize_fd (CSources/CFeedStream/baseline.c) on
   one plain XML file, for Benchmarks/profile/profile.sh. */
#include "feedstream_baseline.h"
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: tokenize_only FILE.xml\n"); return 2; }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 2; }
    cfs_baseline_stats s;
    int rc = cfs_baseline_tokenize_fd(fd, &s);
    close(fd);
    printf("tokenize only: %llu bytes, %llu documents%s%s\n", (unsigned long long)s.bytes_xml,
           (unsigned long long)s.documents, rc ? ", error: " : "", rc ? s.error : "");
    return rc ? 1 : 0;
}
