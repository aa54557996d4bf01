/* Summary statistics over a list of numbers. */
#include <stddef.h>

struct stats {
    size_t count;
    double min;
    double max;
    double mean;
    double stddev; /* sample standard deviation (divides by count - 1) */
};

/* Fill *out from values[0..n-1]. Returns 0 on success, -1 when n == 0. */
int stats_compute(const double *values, size_t n, struct stats *out);
