#include <math.h>

#include "stats.h"

int stats_compute(const double *values, size_t n, struct stats *out)
{
    double sum = 0.0, sq = 0.0;
    size_t i;

    if (n == 0)
        return -1;
    out->count = n;
    out->min = 0.0;
    out->max = values[0];
    for (i = 0; i < n; i++) {
        if (values[i] < out->min)
            out->min = values[i];
        if (values[i] > out->max)
            out->max = values[i];
        sum += values[i];
    }
    out->mean = sum / n;
    for (i = 0; i < n; i++)
        sq += (values[i] - out->mean) * (values[i] - out->mean);
    out->stddev = sqrt(sq / (n - 1));
    return 0;
}
