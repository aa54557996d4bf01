#include "rle.h"

size_t rle_encode(const unsigned char *src, size_t n, unsigned char *dst)
{
    size_t i = 0, out = 0;

    while (i < n) {
        size_t j = i;
        while (j < n && src[j] == src[i])
            j++;
        dst[out++] = (unsigned char)(j - i);
        dst[out++] = src[i];
        i = j;
    }
    return out;
}
