#ifndef GROUPIE_POSTER_H
#define GROUPIE_POSTER_H

#include <stddef.h>

/// What a venue's start poster shows. Texts are UTF-8; each line of instructions has its
/// language (a BCP 47 tag) so that Pango shapes and hyphenates it by that language's rules.
typedef struct {
    double width_pt, height_pt;
    const char *title;
    const char *const *lines;
    const char *const *languages;
    int line_count;
    /// The venue's colour, each from 0 to 1.
    double red, green, blue;
    /// An SVG or PNG file, or NULL.
    const char *logo_path;
    /// The QR code's modules, row-major, 1 dark; `qr_width` a side, without the quiet zone.
    const unsigned char *qr_modules;
    int qr_width;
    /// Printed under the code, for phones that cannot scan.
    const char *url;
} groupie_poster;

/// Draws the poster to `path` as PDF (vector: text and QR modules stay sharp at any size), or
/// as PNG at `png_dpi` when it is positive. Returns 0, or -1 with a message in `error`.
/// Cairo, Pango and librsvg report errors by status; nothing here crosses a Swift frame.
int groupie_poster_render(const groupie_poster *poster, const char *path, int png_dpi, char *error, size_t error_size);

#endif
