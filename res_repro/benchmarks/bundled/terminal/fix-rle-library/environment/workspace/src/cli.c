#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rle.h"

static unsigned char *read_all(FILE *fp, size_t *len)
{
    size_t cap = 4096, n = 0, got;
    unsigned char *buf = malloc(cap);

    if (!buf)
        return NULL;
    while ((got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    if (ferror(fp)) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    unsigned char *in, *out;
    size_t n;
    long m;

    if (argc != 2 || (strcmp(argv[1], "encode") != 0 && strcmp(argv[1], "decode") != 0)) {
        fprintf(stderr, "usage: rle encode|decode < input > output\n");
        return 2;
    }
    in = read_all(stdin, &n);
    if (!in) {
        fprintf(stderr, "rle: cannot read input\n");
        return 1;
    }
    if (strcmp(argv[1], "encode") == 0) {
        out = malloc(2 * n + 1);
        m = (long)rle_encode(in, n, out);
    } else {
        m = rle_decoded_size(in, n);
        if (m < 0) {
            fprintf(stderr, "rle: invalid encoded data\n");
            free(in);
            return 1;
        }
        out = malloc((size_t)m + 1);
        m = rle_decode(in, n, out);
    }
    out[m] = '\0';
    fputs((char *)out, stdout);
    free(in);
    free(out);
    return 0;
}
