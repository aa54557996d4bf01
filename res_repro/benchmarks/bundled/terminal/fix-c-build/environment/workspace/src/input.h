/* Reading whitespace-separated numbers. */
#include <stdio.h>
#include "stats.h"

/* Read every number from fp into a newly allocated array. Returns 0 on success,
 * -1 on a read error or a token that is not a number. */
int read_numbers(FILE *fp, double **values, size_t *n);
