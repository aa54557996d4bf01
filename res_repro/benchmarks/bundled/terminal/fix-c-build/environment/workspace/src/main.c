#include <stdio.h>
#include <stdlib.h>

#include "stats.h"
#include "input.h"

int main(int argc, char **argv)
{
    FILE *fp = stdin;
    double *values = NULL;
    size_t n = 0;
    struct stats s;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [FILE]\n", argv[0]);
        return 2;
    }
    if (argc == 2 && !(fp = fopen(argv[1], "r"))) {
        perror(argv[1]);
        return 1;
    }
    if (read_numbers(fp, &values, &n) != 0) {
        fprintf(stderr, "error: bad input\n");
        return 1;
    }
    if (stats_compute(values, n, &s) != 0) {
        fprintf(stderr, "error: no input\n");
        free(values);
        return 1;
    }
    printf("count: %zu\n", s.count);
    printf("min: %.3f\n", s.min);
    printf("max: %.3f\n", s.max);
    printf("mean: %.3f\n", s.mean);
    printf("stddev: %.3f\n", s.stddev);
    free(values);
    return 0;
}
