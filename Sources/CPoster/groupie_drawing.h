#ifndef GROUPIE_DRAWING_H
#define GROUPIE_DRAWING_H

// What the shim's pictures share (posters, table cards, recaps); not part of its Swift API.

#include <cairo.h>
#include <pango/pangocairo.h>
#include <stddef.h>

/// Writes "what: detail" into `error`.
void groupie_set_error(char *error, size_t size, const char *what, const char *detail);

/// Lays out `text` in `width` points at most, starting at `size` points and shrinking until it
/// fits `max_height`. Right-to-left paragraphs mirror `alignment` (Pango's automatic direction).
/// The caller draws it and releases it with g_object_unref.
PangoLayout *groupie_fit_text(cairo_t *cr, const char *text, const char *language, const char *family, int bold, double size,
                              double width, double max_height, PangoAlignment alignment);

/// A layout's height in points.
double groupie_layout_height(PangoLayout *layout);

/// Draws the logo (SVG or PNG) fitted into the box on a white disc; returns 0 when it cannot be
/// read (left out).
int groupie_draw_logo(cairo_t *cr, const char *path, double x, double y, double width, double height);

/// Ends a drawing: destroys `cr`, writes the surface as PNG to `png_path` unless it is NULL (a
/// PDF surface writes itself), finishes and destroys the surface. Returns 0, or -1 with
/// "`what`: cairo's reason" in `error`.
int groupie_finish(cairo_t *cr, cairo_surface_t *surface, const char *png_path, const char *what, char *error, size_t error_size);

#endif
