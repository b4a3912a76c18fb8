#include "groupie_poster.h"
#include "groupie_drawing.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <librsvg/rsvg.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <string.h>

void groupie_set_error(char *error, size_t size, const char *what, const char *detail) {
    if (error && size) snprintf(error, size, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
}

PangoLayout *groupie_fit_text(cairo_t *cr, const char *text, const char *language, const char *family, int bold, double size,
                              double width, double max_height, PangoAlignment alignment) {
    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *font = pango_font_description_from_string(family);
    pango_font_description_set_weight(font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
    pango_layout_set_text(layout, text, -1);
    pango_layout_set_width(layout, (int)(width * PANGO_SCALE));
    pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
    pango_layout_set_alignment(layout, alignment);
    if (language && *language) {
        PangoAttrList *attributes = pango_attr_list_new();
        pango_attr_list_insert(attributes, pango_attr_language_new(pango_language_from_string(language)));
        pango_layout_set_attributes(layout, attributes);
        pango_attr_list_unref(attributes);
    }
    int pixel_width = 0, pixel_height = 0;
    for (; size >= 6; size *= 0.92) {
        pango_font_description_set_absolute_size(font, size * PANGO_SCALE);
        pango_layout_set_font_description(layout, font);
        pango_layout_get_size(layout, &pixel_width, &pixel_height);
        if (pixel_height / (double)PANGO_SCALE <= max_height) break;
    }
    pango_font_description_free(font);
    return layout;
}

/// Centred: the posters' and cards' texts.
static PangoLayout *fit_text(cairo_t *cr, const char *text, const char *language, const char *family, int bold, double size,
                             double width, double max_height) {
    return groupie_fit_text(cr, text, language, family, bold, size, width, max_height, PANGO_ALIGN_CENTER);
}

double groupie_layout_height(PangoLayout *layout) {
    int width = 0, height = 0;
    pango_layout_get_size(layout, &width, &height);
    return height / (double)PANGO_SCALE;
}

/// `fit_text`, drawn with its top at `y`; returns its height.
static double draw_text(cairo_t *cr, const char *text, const char *language, const char *family, int bold, double size,
                        double x, double y, double width, double max_height) {
    PangoLayout *layout = fit_text(cr, text, language, family, bold, size, width, max_height);
    double height = groupie_layout_height(layout);
    cairo_move_to(cr, x, y);
    pango_cairo_show_layout(cr, layout);
    g_object_unref(layout);
    return height;
}

/// A white disc behind the logo, so that any logo reads on the venue's colour.
static void draw_disc(cairo_t *cr, double x, double y, double width, double height) {
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_arc(cr, x + width / 2, y + height / 2, (width > height ? width : height) * 0.6, 0, 6.2832);
    cairo_fill(cr);
    cairo_restore(cr);
}

int groupie_draw_logo(cairo_t *cr, const char *path, double x, double y, double width, double height) {
    size_t length = strlen(path);
    if (length > 4 && strcmp(path + length - 4, ".png") == 0) {
        cairo_surface_t *image = cairo_image_surface_create_from_png(path);
        int drawn = cairo_surface_status(image) == CAIRO_STATUS_SUCCESS;
        if (drawn) {
            draw_disc(cr, x, y, width, height);
            double w = cairo_image_surface_get_width(image), h = cairo_image_surface_get_height(image);
            double scale = w > 0 && h > 0 ? (width / w < height / h ? width / w : height / h) : 1;
            cairo_save(cr);
            cairo_translate(cr, x + (width - w * scale) / 2, y + (height - h * scale) / 2);
            cairo_scale(cr, scale, scale);
            cairo_set_source_surface(cr, image, 0, 0);
            cairo_paint(cr);
            cairo_restore(cr);
        }
        cairo_surface_destroy(image);
        return drawn;
    }
    GError *failure = NULL;
    RsvgHandle *svg = rsvg_handle_new_from_file(path, &failure);
    if (!svg) {
        if (failure) g_error_free(failure);
        return 0;
    }
    draw_disc(cr, x, y, width, height);
    RsvgRectangle viewport = {x, y, width, height};
    if (!rsvg_handle_render_document(svg, cr, &viewport, &failure) && failure) g_error_free(failure);
    g_object_unref(svg);
    return 1;
}

/// The QR code as squares in a `size` square whose corner is (left, top): sharp at any print
/// size, with its quiet zone of four modules kept white.
static void draw_qr(cairo_t *cr, const unsigned char *modules, int width, double left, double top, double size) {
    int quiet = 4, side = width + 2 * quiet;
    double module = size / side;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (int row = 0; row < width; row++) {
        for (int column = 0; column < width; column++) {
            if (modules[row * width + column] & 1) {
                cairo_rectangle(cr, left + (column + quiet) * module, top + (row + quiet) * module, module, module);
            }
        }
    }
    cairo_fill(cr);
    cairo_restore(cr);
}

static void draw(cairo_t *cr, const groupie_poster *p) {
    double w = p->width_pt, h = p->height_pt, margin = w * 0.07;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);

    // The band: the venue's colour, its logo and the title in white.
    double band = h * 0.17;
    cairo_set_source_rgb(cr, p->red, p->green, p->blue);
    cairo_rectangle(cr, 0, 0, w, band);
    cairo_fill(cr);
    double logo = 0;
    if (p->logo_path && groupie_draw_logo(cr, p->logo_path, margin, band * 0.2, band * 0.6, band * 0.6)) logo = band * 0.6;
    cairo_set_source_rgb(cr, 1, 1, 1);
    double title_x = margin + (logo > 0 ? logo + margin * 0.5 : 0);
    double title_width = w - title_x - margin;
    draw_text(cr, p->title, NULL, "Noto Sans, DejaVu Sans", 1, band * 0.3, title_x, band * 0.18, title_width, band * 0.7);

    double qr = w * 0.55, top = band + h * 0.05;
    draw_qr(cr, p->qr_modules, p->qr_width, (w - qr) / 2, top, qr);
    double y = top + qr;
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    y += draw_text(cr, p->url, NULL, "DejaVu Sans Mono", 0, w * 0.025, margin, y, w - 2 * margin, h * 0.05) + h * 0.03;

    // The instructions, one block per language, in what room is left.
    double room = h - y - margin;
    double each = p->line_count > 0 ? room / p->line_count : room;
    for (int i = 0; i < p->line_count; i++) {
        cairo_set_source_rgb(cr, i == 0 ? 0.1 : 0.3, i == 0 ? 0.1 : 0.3, i == 0 ? 0.1 : 0.3);
        y += draw_text(cr, p->lines[i], p->languages ? p->languages[i] : NULL, "Noto Sans, DejaVu Sans, Noto Sans CJK SC", i == 0,
                       w * (i == 0 ? 0.036 : 0.028), margin, y, w - 2 * margin, each * 0.9) + each * 0.1;
    }
}

int groupie_poster_render(const groupie_poster *poster, const char *path, int png_dpi, char *error, size_t error_size) {
    if (!poster || !path || !poster->title || !poster->url || !poster->qr_modules || poster->qr_width <= 0 ||
        poster->width_pt <= 0 || poster->height_pt <= 0 || poster->line_count < 0) {
        groupie_set_error(error, error_size, "invalid poster", NULL);
        return -1;
    }
    cairo_surface_t *surface;
    if (png_dpi > 0) {
        double scale = png_dpi / 72.0;
        int width = (int)(poster->width_pt * scale + 0.5), height = (int)(poster->height_pt * scale + 0.5);
        if (png_dpi > 600 || width > 20000 || height > 20000) {
            groupie_set_error(error, error_size, "poster too large", NULL);
            return -1;
        }
        surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    } else {
        surface = cairo_pdf_surface_create(path, poster->width_pt, poster->height_pt);
    }
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        groupie_set_error(error, error_size, "cannot create the surface", cairo_status_to_string(cairo_surface_status(surface)));
        cairo_surface_destroy(surface);
        return -1;
    }
    cairo_t *cr = cairo_create(surface);
    if (png_dpi > 0) cairo_scale(cr, png_dpi / 72.0, png_dpi / 72.0);
    draw(cr, poster);
    return groupie_finish(cr, surface, png_dpi > 0 ? path : NULL, "cannot draw the poster", error, error_size);
}

int groupie_finish(cairo_t *cr, cairo_surface_t *surface, const char *png_path, const char *what, char *error, size_t error_size) {
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    if (status == CAIRO_STATUS_SUCCESS && png_path) status = cairo_surface_write_to_png(surface, png_path);
    cairo_surface_finish(surface);
    if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    if (status != CAIRO_STATUS_SUCCESS) {
        groupie_set_error(error, error_size, what, cairo_status_to_string(status));
        return -1;
    }
    return 0;
}

/// One card in the box (x, y, w, h): the venue's band, the group's name, its QR code and code.
static void draw_card(cairo_t *cr, const groupie_cards *sheet, const groupie_card *card, double x, double y, double w, double h) {
    double margin = w * 0.08, band = h * 0.14;
    cairo_set_source_rgb(cr, sheet->red, sheet->green, sheet->blue);
    cairo_rectangle(cr, x, y, w, band);
    cairo_fill(cr);
    double logo = 0;
    if (sheet->logo_path && groupie_draw_logo(cr, sheet->logo_path, x + margin, y + band * 0.2, band * 0.6, band * 0.6)) logo = band * 0.6;
    cairo_set_source_rgb(cr, 1, 1, 1);
    double title_x = x + margin + (logo > 0 ? logo + margin * 0.5 : 0);
    draw_text(cr, sheet->venue_name, NULL, "Noto Sans, DejaVu Sans", 1, band * 0.32, title_x, y + band * 0.22, x + w - margin - title_x, band * 0.6);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    double top = y + band + h * 0.03;
    top += draw_text(cr, card->group_name, NULL, "Noto Sans, DejaVu Sans, Noto Sans CJK SC", 1, h * 0.06, x + margin, top, w - 2 * margin, h * 0.12);
    double qr = w * 0.6;
    draw_qr(cr, card->qr_modules, card->qr_width, x + (w - qr) / 2, top + h * 0.01, qr);
    top += qr + h * 0.02;
    cairo_set_source_rgb(cr, 0, 0, 0);
    top += draw_text(cr, card->code, NULL, "DejaVu Sans Mono", 1, h * 0.08, x + margin, top, w - 2 * margin, h * 0.1);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    draw_text(cr, sheet->instruction, sheet->language, "Noto Sans, DejaVu Sans, Noto Sans CJK SC", 0, h * 0.035, x + margin, top + h * 0.01,
              w - 2 * margin, y + h - top - margin * 0.5);
}

int groupie_cards_render(const groupie_cards *sheet, const char *path, char *error, size_t error_size) {
    if (!sheet || !path || !sheet->venue_name || !sheet->instruction || !sheet->cards || sheet->card_count <= 0) {
        groupie_set_error(error, error_size, "invalid cards", NULL);
        return -1;
    }
    for (int i = 0; i < sheet->card_count; i++) {
        const groupie_card *card = &sheet->cards[i];
        if (!card->group_name || !card->code || !card->url || !card->qr_modules || card->qr_width <= 0) {
            groupie_set_error(error, error_size, "invalid card", NULL);
            return -1;
        }
    }
    double page_w = 595.276, page_h = 841.890, w = page_w / 2, h = page_h / 2;
    cairo_surface_t *surface = cairo_pdf_surface_create(path, page_w, page_h);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        groupie_set_error(error, error_size, "cannot create the surface", cairo_status_to_string(cairo_surface_status(surface)));
        cairo_surface_destroy(surface);
        return -1;
    }
    cairo_t *cr = cairo_create(surface);
    for (int i = 0; i < sheet->card_count; i++) {
        int slot = i % 4;
        if (slot == 0) {
            if (i > 0) cairo_show_page(cr);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_paint(cr);
            // Cut lines between the four cards.
            double dash[] = {4, 4};
            cairo_save(cr);
            cairo_set_dash(cr, dash, 2, 0);
            cairo_set_line_width(cr, 0.5);
            cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
            cairo_move_to(cr, w, 0);
            cairo_line_to(cr, w, page_h);
            cairo_move_to(cr, 0, h);
            cairo_line_to(cr, page_w, h);
            cairo_stroke(cr);
            cairo_restore(cr);
        }
        double inset = 14;
        draw_card(cr, sheet, &sheet->cards[i], (slot % 2) * w + inset, (slot / 2) * h + inset, w - 2 * inset, h - 2 * inset);
    }
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_finish(surface);
    if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    if (status != CAIRO_STATUS_SUCCESS) {
        groupie_set_error(error, error_size, "cannot draw the cards", cairo_status_to_string(status));
        return -1;
    }
    return 0;
}

int groupie_sample_photo_render(int width, int height, double red, double green, double blue, const char *label,
                                const char *language, const char *path, char *error, size_t error_size) {
    if (width < 64 || height < 64 || width > 4096 || height > 4096 || !label || !path) {
        groupie_set_error(error, error_size, "invalid sample photo", NULL);
        return -1;
    }
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_t *cr = cairo_create(surface);
    // The venue's colour fading to a lighter shade, so that the crop of each photo shows.
    cairo_pattern_t *fade = cairo_pattern_create_linear(0, 0, width, height);
    cairo_pattern_add_color_stop_rgb(fade, 0, red, green, blue);
    cairo_pattern_add_color_stop_rgb(fade, 1, 0.55 + red * 0.45, 0.55 + green * 0.45, 0.55 + blue * 0.45);
    cairo_set_source(cr, fade);
    cairo_paint(cr);
    cairo_pattern_destroy(fade);
    double side = width < height ? width : height;
    // A frame in the middle third: where the subject of a real photo would be.
    cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
    cairo_set_line_width(cr, side * 0.012);
    cairo_rectangle(cr, width * 0.2, height * 0.2, width * 0.6, height * 0.6);
    cairo_stroke(cr);
    // The prompt, centred in the frame.
    cairo_set_source_rgb(cr, 1, 1, 1);
    double box = width * 0.52;
    PangoLayout *layout = fit_text(cr, label, language, "Noto Sans, DejaVu Sans", 1, side * 0.075, box, height * 0.5);
    cairo_move_to(cr, (width - box) / 2, (height - groupie_layout_height(layout)) / 2);
    pango_cairo_show_layout(cr, layout);
    g_object_unref(layout);
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_write_to_png(surface, path);
    cairo_surface_destroy(surface);
    if (status != CAIRO_STATUS_SUCCESS) {
        groupie_set_error(error, error_size, "cannot draw the sample photo", cairo_status_to_string(status));
        return -1;
    }
    return 0;
}
