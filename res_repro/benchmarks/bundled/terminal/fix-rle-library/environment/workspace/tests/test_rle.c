/* Unit checks for librle: `make test`. */
#include <stdio.h>
#include <string.h>

#include "rle.h"

static int failures;

#define CHECK(cond)                                                     \
    do {                                                                \
        if (!(cond)) {                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,      \
                    __LINE__, #cond);                                   \
            failures++;                                                 \
        }                                                               \
    } while (0)

int main(void)
{
    unsigned char buf[4096], dec[4096], big[600];
    size_t n;

    n = rle_encode((const unsigned char *)"aaabcc", 6, buf);
    CHECK(n == 6 && memcmp(buf, "\x03" "a" "\x01" "b" "\x02" "c", 6) == 0);
    CHECK(rle_encode((const unsigned char *)"", 0, buf) == 0);

    memset(big, 'x', 300);
    n = rle_encode(big, 300, buf);
    CHECK(n == 4 && buf[0] == 255 && buf[1] == 'x' && buf[2] == 45 && buf[3] == 'x');
    CHECK(rle_decoded_size(buf, n) == 300);
    CHECK(rle_decode(buf, n, dec) == 300 && memcmp(dec, big, 300) == 0);

    CHECK(rle_decoded_size((const unsigned char *)"\x02" "a" "\x01", 3) == -1);
    CHECK(rle_decoded_size((const unsigned char *)"\x00" "a", 2) == -1);
    CHECK(rle_decode((const unsigned char *)"\x00" "a", 2, dec) == -1);

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
