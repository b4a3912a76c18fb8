#include "groupie_drawing.h"
#include "groupie_poster.h"

#include <cairo-pdf.h>
#include <stdio.h>
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

/// Where the recap is being laid out: on one page as tall as it (`page_height` 0), or on
/// printed pages, of which this knows the current and, when drawing, the count.
typedef struct {
    cairo_t *cr;
    int draw;
    double width, margin;
    double page_height;
    /// Printed pages: the content's top and bottom on every page.
    double top, bottom;
    int page, pages;
    const char *language;
} pager;

static int paged(const pager *p) { return p->page_height > 0; }

/// Printed pages: the page's number at its foot ("2 / 5") when drawing, then a new page.
static void end_page(pager *p) {
    if (!paged(p) || !p->draw) return;
    char number[32];
    snprintf(number, sizeof number, "%d / %d", p->page, p->pages);
    // In its own grey, leaving the colour of the text that moved to the next page as it was.
    cairo_save(p->cr);
    cairo_set_source_rgb(p->cr, 0.45, 0.45, 0.45);
    text_block(p->cr, 1, number, "en", 0, 9, p->margin, p->page_height - p->margin * 0.7, p->width - 2 * p->margin, PANGO_ALIGN_CENTER);
    cairo_restore(p->cr);
}

static void next_page(pager *p, double *y) {
    end_page(p);
    if (p->draw) cairo_show_page(p->cr);
    p->page++;
    *y = p->top;
}

/// Printed pages: a block `height` tall that does not fit below `*y` goes to the top of the
/// next page (one taller than a page starts at the top of one).
static void room(pager *p, double *y, double height) {
    if (paged(p) && *y + height > p->bottom && *y > p->top + 0.5) next_page(p, y);
}

/// A text block kept whole on a page: measured, given room, then drawn at `*y`, which it moves.
static void text(pager *p, double *y, const char *text, int bold, double size, double x, double width, PangoAlignment alignment, double after) {
    if (!text || !*text) return;
    double height = text_block(p->cr, 0, text, p->language, bold, size, x, *y, width, alignment);
    room(p, y, height);
    text_block(p->cr, p->draw, text, p->language, bold, size, x, *y, width, alignment);
    *y += height + after;
}

/// Lays the recap out from the top, drawing it when `p->draw`; returns the height of its one
/// page, or of the last printed page's content.
static double lay_out(pager *p, const groupie_recap *r, cairo_surface_t *const *images) {
    cairo_t *cr = p->cr;
    int draw = p->draw;
    double w = p->width, m = p->margin, inner = w - 2 * m;
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
        // On printed pages every chapter after the first starts a page of its own.
        if (i > 0 && paged(p)) next_page(p, &y);
        else y += 18;
        // The collage, as wide as the text, no taller than the page is wide (nor than most of a
        // printed page); a chapter of questions alone has none, only its facts.
        double dw = 0, dh = 0, scale = 1;
        if (images[i]) {
            double iw = cairo_image_surface_get_width(images[i]), ih = cairo_image_surface_get_height(images[i]);
            double tallest = w * 0.9;
            if (paged(p) && tallest > (p->bottom - p->top) * 0.7) tallest = (p->bottom - p->top) * 0.7;
            scale = iw > 0 && ih > 0 ? inner / iw : 1;
            if (ih * scale > tallest) scale = tallest / ih;
            dw = iw * scale;
            dh = ih * scale;
        }
        // The title goes with its collage and credits: none of them alone at a page's foot.
        double title_h2 = text_block(cr, 0, c->title, lang, 1, 17, m, y, inner, PANGO_ALIGN_LEFT);
        double credits_h = c->credits && *c->credits ? text_block(cr, 0, c->credits, lang, 0, 10, m, y, inner, PANGO_ALIGN_LEFT) : 0;
        double fact_block = c->fact && *c->fact
            ? 8 + text_block(cr, 0, r->fact_label, lang, 1, 11, m + 12, y, inner - 12, PANGO_ALIGN_LEFT) + 2
                + text_block(cr, 0, c->fact, lang, 0, 12, m + 12, y, inner - 12, PANGO_ALIGN_LEFT)
            : 0;
        // On a printed page, a collage a little smaller (down to 45 % of the page) keeps the
        // chapter on the page it starts on, its fact included; past that, the next page.
        if (paged(p) && images[i] && dh > 0) {
            double fixed = title_h2 + 8 + 6 + credits_h + fact_block, smallest = (p->bottom - p->top) * 0.45;
            if (p->bottom - y - fixed < (dh < smallest ? dh : smallest) && y > p->top + 0.5) next_page(p, &y);
            double left = p->bottom - y - fixed;
            if (left < dh && left >= smallest) {
                scale *= left / dh;
                dw *= left / dh;
                dh = left;
            }
        }
        room(p, &y, title_h2 + 8 + (images[i] ? dh + 6 : 0) + credits_h);
        if (draw) cairo_set_source_rgb(cr, r->red * 0.8, r->green * 0.8, r->blue * 0.8);
        text(p, &y, c->title, 1, 17, m, inner, PANGO_ALIGN_LEFT, 8);
        if (images[i]) {
            room(p, &y, dh);
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
        if (draw) cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
        text(p, &y, c->credits, 0, 10, m, inner, PANGO_ALIGN_LEFT, 0);
        if (c->fact && *c->fact) {
            // The fact beside a bar of the venue's colour, kept whole on a page.
            double indent = 12;
            double label_h = text_block(cr, 0, r->fact_label, lang, 1, 11, m + indent, y, inner - indent, PANGO_ALIGN_LEFT);
            double fact_h = text_block(cr, 0, c->fact, lang, 0, 12, m + indent, y, inner - indent, PANGO_ALIGN_LEFT);
            y += 8;
            room(p, &y, label_h + 2 + fact_h);
            double top = y;
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
        // The heading stays with the first line under it.
        double first = text_block(cr, 0, r->people[0], lang, 0, 12, m, y, inner, PANGO_ALIGN_LEFT);
        double heading = text_block(cr, 0, r->people_label, lang, 1, 17, m, y, inner, PANGO_ALIGN_LEFT);
        room(p, &y, heading + 6 + first);
        if (draw) cairo_set_source_rgb(cr, r->red * 0.8, r->green * 0.8, r->blue * 0.8);
        text(p, &y, r->people_label, 1, 17, m, inner, PANGO_ALIGN_LEFT, 6);
        for (int i = 0; i < r->people_count; i++) {
            if (draw) cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            text(p, &y, r->people[i], 0, 12, m, inner, PANGO_ALIGN_LEFT, 3);
        }
    }
    y += 20;
    if (draw) cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
    text(p, &y, r->footer, 0, 9, m, inner, PANGO_ALIGN_CENTER, 0);
    end_page(p);
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
    // Measured first on a scratch surface (the height of one page, or the count of printed
    // pages), then drawn.
    int printed = r->page_width > 0 && r->page_height > 0 && png_dpi <= 0;
    double margin = printed ? 42.5 : RECAP_MARGIN;
    pager p = {
        .draw = 0, .width = printed ? r->page_width : RECAP_WIDTH, .margin = margin, .page_height = printed ? r->page_height : 0,
        .top = margin, .bottom = printed ? r->page_height - margin * 1.4 : 0, .page = 1, .pages = 1, .language = r->language,
    };
    // Printed pages are measured on a PDF surface (that writes nothing), as they are drawn: the
    // same font metrics put every block on the same page both times.
    cairo_surface_t *scratch = printed ? cairo_pdf_surface_create(NULL, p.width, p.page_height) : cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    p.cr = cairo_create(scratch);
    double height = lay_out(&p, r, images);
    cairo_destroy(p.cr);
    cairo_surface_destroy(scratch);
    p.pages = p.page;
    p.page = 1;
    p.draw = 1;

    double scale = png_dpi / 72.0;
    if (png_dpi > 0 && height * scale > RECAP_MAX_PIXELS) scale = RECAP_MAX_PIXELS / height;
    cairo_surface_t *surface = png_dpi > 0
        ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)(RECAP_WIDTH * scale + 0.5), (int)(height * scale + 0.5))
        : cairo_pdf_surface_create(path, p.width, printed ? p.page_height : height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        groupie_set_error(error, error_size, "cannot create the surface", cairo_status_to_string(cairo_surface_status(surface)));
        cairo_surface_destroy(surface);
        goto done;
    }
    cairo_t *cr = cairo_create(surface);
    if (png_dpi > 0) cairo_scale(cr, scale, scale);
    p.cr = cr;
    lay_out(&p, r, images);
    status_code = groupie_finish(cr, surface, png_dpi > 0 ? path : NULL, "cannot draw the recap", error, error_size);
done:
    for (int i = 0; i < count; i++) {
        if (images[i]) cairo_surface_destroy(images[i]);
    }
    free(images);
    return status_code;
}
