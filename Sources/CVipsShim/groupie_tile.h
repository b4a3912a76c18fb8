#ifndef GROUPIE_TILE_H
#define GROUPIE_TILE_H

/* Inside CVipsShim only: what the collage and the face finder share. */

#include <vips/vips.h>

/* `in` as 8-bit sRGB; with an alpha band when `alpha`, else flattened on white. Held by `scope`. */
VipsImage *groupie_srgb(VipsObject *scope, VipsImage *in, int alpha);

/* A photo's tile of a collage, in memory, as the collage draws it (`crop` as in
 * `groupie_layer`). A photo fitted whole is smaller than `width` x `height` on one axis.
 * Returns a new reference, or NULL. */
VipsImage *groupie_make_tile(const char *path, int width, int height, int crop, double focus_x, double focus_y);

/* `in` centred on a `width` x `height` rectangle of `color` (RGB). Held by `scope`. */
VipsImage *groupie_letterbox(VipsObject *scope, VipsImage *in, int width, int height, const double color[3]);

/* `in` in grey, at most `max_side` pixels on its long side, one byte a pixel, row after row, into
 * `pixels` (`capacity` bytes). */
int groupie_vips_gray(VipsImage *in, int max_side, unsigned char *pixels, int capacity, int *gray_width, int *gray_height);

#endif
