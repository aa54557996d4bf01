#ifndef RLE_H
#define RLE_H

#include <stddef.h>

/*
 * Run-length encoding of byte strings.
 *
 * The encoded form is a sequence of (count, value) byte pairs: `count` copies of the
 * byte `value`, with 1 <= count <= 255. A run longer than 255 bytes is written as
 * several pairs, all but the last with count 255. Runs are as long as possible, so
 * two consecutive pairs never have the same value unless the first has count 255.
 * The empty string encodes to the empty string.
 */

/* Encode src[0..n-1] into dst, which must have room for 2 * n bytes.
 * Returns the number of bytes written. */
size_t rle_encode(const unsigned char *src, size_t n, unsigned char *dst);

/* Number of bytes that src[0..n-1] decodes to, or -1 if it is not valid encoded data
 * (odd length, or a pair with count 0). */
long rle_decoded_size(const unsigned char *src, size_t n);

/* Decode src[0..n-1] into dst, which must have room for rle_decoded_size(src, n) bytes.
 * Returns the number of bytes written, or -1 if src is not valid encoded data. */
long rle_decode(const unsigned char *src, size_t n, unsigned char *dst);

#endif
