#include <stdlib.h>

#include "input.h"

int read_numbers(FILE *fp, double **values, size_t *n)
{
    size_t cap = 16, len = 0;
    double *buf = malloc(cap * sizeof *buf);
    double x;
    int r;

    if (!buf)
        return -1;
    while ((r = fscanf(fp, "%lf", &x)) == 1) {
        if (len == cap) {
            double *bigger = realloc(buf, 2 * cap * sizeof *buf);
            if (!bigger) {
                free(buf);
                return -1;
            }
            buf = bigger;
            cap *= 2;
        }
        buf[len++] = x;
    }
    if (r != EOF || ferror(fp)) {
        free(buf);
        return -1;
    }
    *values = buf;
    *n = len;
    return 0;
}
