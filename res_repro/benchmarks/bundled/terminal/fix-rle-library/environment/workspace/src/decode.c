#include <string.h>

#include "rle.h"

long rle_decoded_size(const unsigned char *src, size_t n)
{
    long total = 0;
    size_t i;

    for (i = 0; i < n; i += 2)
        total += src[i];
    return total;
}

long rle_decode(const unsigned char *src, size_t n, unsigned char *dst)
{
    long out = 0;
    size_t i;

    if (rle_decoded_size(src, n) < 0)
        return -1;
    for (i = 0; i < n; i += 2) {
        memset(dst + out, src[i + 1], src[i]);
        out += src[i];
    }
    return out;
}
