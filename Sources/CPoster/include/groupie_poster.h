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

/// One table card: a group made in advance, its QR code opening its join page.
typedef struct {
    const char *group_name;
    const char *code;
    const char *url;
    const unsigned char *qr_modules;
    int qr_width;
} groupie_card;

/// A sheet of table cards for a class: four to an A4 page, with cut lines.
typedef struct {
    const char *venue_name;
    double red, green, blue;
    const char *logo_path;
    /// One line under each code, in `language`.
    const char *instruction;
    const char *language;
    const groupie_card *cards;
    int card_count;
} groupie_cards;

/// Draws the cards to `path` as a PDF of A4 pages. Returns 0, or -1 with a message in `error`.
int groupie_cards_render(const groupie_cards *cards, const char *path, char *error, size_t error_size);

/// A stand-in photo for previews of a mission's reward: `width` x `height` pixels in a shade of
/// the venue's colour, with the task's prompt (`label`, in `language`) in the middle, as PNG.
/// Returns 0, or -1 with a message in `error`.
int groupie_sample_photo_render(int width, int height, double red, double green, double blue, const char *label,
                                const char *language, const char *path, char *error, size_t error_size);

/// One completed mission of a group's recap: its title, its collage (a PNG file), its fact and
/// who photographed which task, as one line.
typedef struct {
    const char *title;
    const char *image_path;
    /// NULL or empty: none.
    const char *fact;
    const char *credits;
} groupie_recap_chapter;

/// A group's recap to keep: a band with the group's name and the venue and day, each chapter in
/// order, then who did what. Texts are UTF-8 in `language` (a BCP 47 tag); a right-to-left text
/// is laid out right to left.
typedef struct {
    /// The printed page in points (A4: 595.276 x 841.890); zero for one page as tall as the
    /// recap (the PNG for phones).
    double page_width, page_height;
    const char *title;
    const char *subtitle;
    const char *language;
    double red, green, blue;
    const char *logo_path;
    /// The heading of each fact ("Did you know?") and of the list of members ("Who did what").
    const char *fact_label;
    const char *people_label;
    const char *const *people;
    int people_count;
    const groupie_recap_chapter *chapters;
    int chapter_count;
    /// Under everything, small: where the page comes from.
    const char *footer;
} groupie_recap;

/// Draws the recap to `path` as a PDF of printed pages of `page_width` x `page_height`, with
/// margins and page numbers, each chapter from the top of a page and no collage across a page
/// break (each collage embedded once); or, with no page size, as one page as tall as its
/// content. As PNG at `png_dpi` when it is positive, always one page (less for a page so tall
/// that it would pass 16000 pixels). Returns 0, or -1 with a message in `error`.
int groupie_recap_render(const groupie_recap *recap, const char *path, int png_dpi, char *error, size_t error_size);

#endif
