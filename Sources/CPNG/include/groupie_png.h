#ifndef GROUPIE_PNG_H
#define GROUPIE_PNG_H

#include <stddef.h>
#include <stdint.h>

/// Encodes a 1-bit greyscale image as PNG in memory. `rows` holds `height` rows of
/// `(width + 7) / 8` bytes each, most significant bit first, 1 meaning white.
/// On success returns 0 and sets `*out` (free it with `groupie_png_free`) and `*out_size`.
/// libpng reports errors with longjmp; that stays inside this C file, never crossing Swift frames.
int groupie_png_encode_1bit(const uint8_t *rows, uint32_t width, uint32_t height,
                            uint8_t **out, size_t *out_size);

void groupie_png_free(uint8_t *buffer);

#endif
