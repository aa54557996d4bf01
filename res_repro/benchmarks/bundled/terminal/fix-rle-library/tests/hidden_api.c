/* Checks of the documented API, linked against the built librle.a. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rle.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "line %d: %s\n", __LINE__, #c); failures++; } } while (0)

static void roundtrip(const unsigned char *src, size_t n)
{
    unsigned char *enc = malloc(2 * n + 2), *dec = malloc(n + 1);
    size_t m = rle_encode(src, n, enc);
    CHECK(rle_decoded_size(enc, m) == (long)n);
    CHECK(rle_decode(enc, m, dec) == (long)n);
    CHECK(n == 0 || memcmp(src, dec, n) == 0);
    free(enc);
    free(dec);
}

int main(void)
{
    static unsigned char src[3000], enc[6000];
    size_t n, i;

    memset(src, 0, sizeof src);
    n = rle_encode(src, 255, enc);
    CHECK(n == 2 && enc[0] == 255 && enc[1] == 0);
    n = rle_encode(src, 256, enc);
    CHECK(n == 4 && enc[0] == 255 && enc[2] == 1 && enc[3] == 0);
    n = rle_encode(src, 510, enc);
    CHECK(n == 4 && enc[0] == 255 && enc[2] == 255);
    n = rle_encode(src, 511, enc);
    CHECK(n == 6 && enc[4] == 1);
    for (i = 0; i < 1000; i++)
        src[i] = (unsigned char)(i % 2 ? 0 : 7);
    n = rle_encode(src, 1000, enc);
    CHECK(n == 2000 && enc[0] == 1 && enc[1] == 7 && enc[3] == 0);
    roundtrip(src, 1000);
    for (i = 0; i < 3000; i++)
        src[i] = (unsigned char)((i * i / 97) % 5);
    roundtrip(src, 3000);
    roundtrip(src, 0);
    CHECK(rle_decoded_size((const unsigned char *)"\x05" "a" "\xff", 3) == -1);
    CHECK(rle_decoded_size((const unsigned char *)"\x05" "a" "\x00" "b", 4) == -1);
    CHECK(rle_decode((const unsigned char *)"\x05" "a" "\x00" "b", 4, enc) == -1);
    CHECK(rle_decode((const unsigned char *)"\x01", 1, enc) == -1);
    CHECK(rle_decoded_size((const unsigned char *)"", 0) == 0);
    CHECK(rle_decoded_size((const unsigned char *)"\xff" "a" "\xff" "a", 4) == 510);
    if (failures)
        return 1;
    puts("api ok");
    return 0;
}
