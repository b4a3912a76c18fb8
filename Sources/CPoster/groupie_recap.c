#include "groupie_drawing.h"
#include "groupie_poster.h"

#include <cairo-pdf.h>
#include <stdlib.h>

#define RECAP_WIDTH 595.276
#define RECAP_MARGIN 36.0
#define RECAP_MAX_PIXELS 16000.0

static const char *const body_family = "Noto Sans, Noto Sans CJK SC, Noto Sans Arabic, DejaVu Sans";

/// Draws `text` (when `draw`) at `y` across the page's text width; returns its height.
static double text_block(cairo_t *cr, int draw, const char *text, const char *language, int bold, double size, double x, double y, double width,
                         PangoAlignment alignment) {
    if (!text || !*text) return 0;
    PangoLayout *layout = groupie_fit_text(cr, text, language, body_family, bold, size, width, 1e6, alignment);
    double height = groupie_layout_height(layout);
    if (draw) {
        cairo_move_to(cr, x, y);
        pango_cairo_show_layout(cr, layout);
    }
    g_object_unref(layout);
    return height;
}

/// Lays the recap out from the top, drawing it when `draw`; returns the page's height.
static double lay_out(cairo_t *cr, const groupie_recap *r, cairo_surface_t *const *images, int draw) {
    double w = RECAP_WIDTH, m = RECAP_MARGIN, inner = w - 2 * m;
    const char *lang = r->language;
    if (draw) {
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_paint(cr);
    }
    // The band: the venue's colour, its logo, the group's name, the venue and the day.
    double band_top = m * 0.8, logo = 0;
    double title_h = text_block(cr, 0, r->title, lang, 1, 26, m, 0, inner, PANGO_ALIGN_CENTER);
    double sub_h = text_block(cr, 0, r->subtitle, lang, 0, 13, m, 0, inner, PANGO_ALIGN_CENTER);
    double band = band_top + title_h + 6 + sub_h + m * 0.8;
    if (r->logo_path && *r->logo_path) logo = 44;
    if (logo > 0) band += logo + 8;
    if (draw) {
        cairo_set_source_rgb(cr, r->red, r->green, r->blue);
        cairo_rectangle(cr, 0, 0, w, band);
        cairo_fill(cr);
        if (logo > 0) groupie_draw_logo(cr, r->logo_path, (w - logo) / 2, band_top, logo, logo);
        cairo_set_source_rgb(cr, 1, 1, 1);
    }
    double y = band_top + (logo > 0 ? logo + 8 : 0);
    y += text_block(cr, draw, r->title, lang, 1, 26, m, y, inner, PANGO_ALIGN_CENTER) + 6;
    text_block(cr, draw, r->subtitle, lang, 0, 13, m, y, inner, PANGO_ALIGN_CENTER);
    y = band + 8;

    for (int i = 0; i < r->chapter_count; i++) {
        const groupie_recap_chapter *c = &r->chapters[i];
        y += 18;
        if (draw) cairo_set_source_rgb(cr, r->red * 0.8, r->green * 0.8, r->blue * 0.8);
        y += text_block(cr, draw, c->title, lang, 1, 17, m, y, inner, PANGO_ALIGN_LEFT) + 8;
        // The collage, as wide as the text, no taller than the page is wide; a chapter of
        // questions alone has none, only its facts.
        if (images[i]) {
            double iw = cairo_image_surface_get_width(images[i]), ih = cairo_image_surface_get_height(images[i]);
            double scale = iw > 0 && ih > 0 ? inner / iw : 1;
            if (ih * scale > w * 0.9) scale = w * 0.9 / ih;
            double dw = iw * scale, dh = ih * scale;
            if (draw) {
                cairo_save(cr);
                cairo_translate(cr, m + (inner - dw) / 2, y);
                cairo_scale(cr, scale, scale);
                cairo_set_source_surface(cr, images[i], 0, 0);
                cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
                cairo_paint(cr);
                cairo_restore(cr);
            }
            y += dh + 6;
        }
        if (c->credits && *c->credits) {
            if (draw) cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
            y += text_block(cr, draw, c->credits, lang, 0, 10, m, y, inner, PANGO_ALIGN_LEFT);
        }
        if (c->fact && *c->fact) {
            // The fact beside a bar of the venue's colour.
            y += 8;
            double top = y, indent = 12;
            if (draw) cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            y += text_block(cr, draw, r->fact_label, lang, 1, 11, m + indent, y, inner - indent, PANGO_ALIGN_LEFT) + 2;
            y += text_block(cr, draw, c->fact, lang, 0, 12, m + indent, y, inner - indent, PANGO_ALIGN_LEFT);
            if (draw) {
                cairo_set_source_rgb(cr, r->red, r->green, r->blue);
                cairo_rectangle(cr, m, top, 4, y - top);
                cairo_fill(cr);
            }
        }
    }

    if (r->people_count > 0) {
        y += 24;
        if (draw) cairo_set_source_rgb(cr, r->red * 0.8, r->green * 0.8, r->blue * 0.8);
        y += text_block(cr, draw, r->people_label, lang, 1, 17, m, y, inner, PANGO_ALIGN_LEFT) + 6;
        if (draw) cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        for (int i = 0; i < r->people_count; i++) y += text_block(cr, draw, r->people[i], lang, 0, 12, m, y, inner, PANGO_ALIGN_LEFT) + 3;
    }
    y += 20;
    if (draw) cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
    y += text_block(cr, draw, r->footer, lang, 0, 9, m, y, inner, PANGO_ALIGN_CENTER);
    return y + m;
}

static int valid(const groupie_recap *r) {
    if (!r || !r->title || !r->subtitle || r->chapter_count < 0 || r->people_count < 0) return 0;
    if (r->chapter_count > 0 && !r->chapters) return 0;
    if (r->people_count > 0 && !r->people) return 0;
    for (int i = 0; i < r->chapter_count; i++) {
        if (!r->chapters[i].title || !r->chapters[i].image_path) return 0;
    }
    for (int i = 0; i < r->people_count; i++) {
        if (!r->people[i]) return 0;
    }
    return 1;
}

int groupie_recap_render(const groupie_recap *r, const char *path, int png_dpi, char *error, size_t error_size) {
    if (!path || !valid(r) || png_dpi > 600) {
        groupie_set_error(error, error_size, "invalid recap", NULL);
        return -1;
    }
    int count = r->chapter_count, status_code = -1;
    cairo_surface_t **images = calloc(count > 0 ? (size_t)count : 1, sizeof *images);
    if (!images) {
        groupie_set_error(error, error_size, "out of memory", NULL);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        if (!*r->chapters[i].image_path) continue;
        images[i] = cairo_image_surface_create_from_png(r->chapters[i].image_path);
        if (cairo_surface_status(images[i]) != CAIRO_STATUS_SUCCESS) {
            groupie_set_error(error, error_size, "cannot read a collage", cairo_status_to_string(cairo_surface_status(images[i])));
            goto done;
        }
    }
    // Measured first on a scratch surface, then drawn on a page of that height.
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *measure = cairo_create(scratch);
    double height = lay_out(measure, r, images, 0);
    cairo_destroy(measure);
    cairo_surface_destroy(scratch);

    double scale = png_dpi / 72.0;
    if (png_dpi > 0 && height * scale > RECAP_MAX_PIXELS) scale = RECAP_MAX_PIXELS / height;
    cairo_surface_t *surface = png_dpi > 0
        ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)(RECAP_WIDTH * scale + 0.5), (int)(height * scale + 0.5))
        : cairo_pdf_surface_create(path, RECAP_WIDTH, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        groupie_set_error(error, error_size, "cannot create the surface", cairo_status_to_string(cairo_surface_status(surface)));
        cairo_surface_destroy(surface);
        goto done;
    }
    cairo_t *cr = cairo_create(surface);
    if (png_dpi > 0) cairo_scale(cr, scale, scale);
    lay_out(cr, r, images, 1);
    status_code = groupie_finish(cr, surface, png_dpi > 0 ? path : NULL, "cannot draw the recap", error, error_size);
done:
    for (int i = 0; i < count; i++) {
        if (images[i]) cairo_surface_destroy(images[i]);
    }
    free(images);
    return status_code;
}
