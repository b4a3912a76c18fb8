#include "groupie_vips.h"
#include "groupie_tile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

int groupie_vips_start(int concurrency) {
    if (VIPS_INIT("groupie")) return -1;
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_operation_block_set("VipsForeignLoadJpeg", FALSE);
    vips_operation_block_set("VipsForeignLoadPng", FALSE);
    vips_operation_block_set("VipsForeignLoadWebp", FALSE);
    vips_operation_block_set("VipsForeignLoadHeif", FALSE);
    /* For the venue's own logos, stickers and frames in collages. Uploads never reach it: their
     * format is recognised from the bytes first and only JPEG, PNG, WebP and HEIF are let through. */
    vips_operation_block_set("VipsForeignLoadSvg", FALSE);
    vips_cache_set_max(0);
    if (concurrency > 0) vips_concurrency_set(concurrency);
    return 0;
}

int groupie_vips_header(const char *path, int *width, int *height, int *bands, int *sample_bytes, int *orientation,
                        char *loader, int loader_size) {
    const char *name = vips_foreign_find_load(path);
    if (!name) return -1;
    if (loader && loader_size > 0) {
        strncpy(loader, name, (size_t)loader_size - 1);
        loader[loader_size - 1] = 0;
    }
    VipsImage *image = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!image) return -1;
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    *bands = vips_image_get_bands(image);
    *sample_bytes = (int)vips_format_sizeof(vips_image_get_format(image));
    *orientation = vips_image_get_orientation(image);
    g_object_unref(image);
    return 0;
}

static int save_jpeg(VipsImage *image, const char *output, int quality) {
    return vips_jpegsave(image, output, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, "interlace", TRUE, NULL);
}

/* Whether the derivatives of `input` need its colours converted to sRGB, as they are saved
 * without any profile: yes for a file that embeds a profile (a phone's Display P3, Adobe RGB) or
 * is not RGB without one (CMYK, grey). A plain RGB file without a profile is sRGB already, and a
 * transform from sRGB to sRGB costs a tenth of an upload's time. */
static int needs_srgb_transform(const char *input) {
    VipsImage *header = vips_image_new_from_file(input, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!header) return 1;
    int needs = vips_image_get_typeof(header, VIPS_META_ICC_NAME) != 0 ||
                vips_image_guess_interpretation(header) != VIPS_INTERPRETATION_sRGB;
    g_object_unref(header);
    return needs;
}

int groupie_vips_derivative(const char *input, const char *output, int long_edge, int quality) {
    VipsImage *thumbnail = NULL;
    int failed = needs_srgb_transform(input)
        ? vips_thumbnail(input, &thumbnail, long_edge, "height", long_edge, "size", VIPS_SIZE_DOWN,
                         "export_profile", "srgb", "fail_on", VIPS_FAIL_ON_ERROR, NULL)
        : vips_thumbnail(input, &thumbnail, long_edge, "height", long_edge, "size", VIPS_SIZE_DOWN,
                         "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (failed) return -1;
    int status = save_jpeg(thumbnail, output, quality);
    g_object_unref(thumbnail);
    return status;
}

int groupie_vips_transcode(const char *input, const char *output, int quality) {
    VipsImage *image = vips_image_new_from_file(input, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!image) return -1;
    VipsImage *rotated = NULL, *srgb = NULL;
    int status = vips_autorot(image, &rotated, NULL);
    if (!status) status = vips_colourspace(rotated, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
    if (!status) status = save_jpeg(srgb, output, quality);
    if (srgb) g_object_unref(srgb);
    if (rotated) g_object_unref(rotated);
    g_object_unref(image);
    return status;
}

/* Collages. Every intermediate image is held by `scope`, a plain VipsImage whose local arrays are
 * released together with it, so that every error path frees everything. */

/* `in` as 8-bit sRGB; with an alpha band when `alpha`, else flattened on white. */
VipsImage *groupie_srgb(VipsObject *scope, VipsImage *in, int alpha) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 3);
    if (vips_colourspace(in, &t[0], VIPS_INTERPRETATION_sRGB, NULL)) return NULL;
    if (vips_cast_uchar(t[0], &t[1], NULL)) return NULL;
    VipsImage *image = t[1];
    if (image->Bands != 3 && image->Bands != 4) {
        vips_error("groupie", "an image of %d bands cannot be drawn", image->Bands);
        return NULL;
    }
    if (alpha && image->Bands == 3) {
        if (vips_bandjoin_const1(image, &t[2], 255, NULL)) return NULL;
        return t[2];
    }
    if (!alpha && image->Bands == 4) {
        VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
        int failed = vips_flatten(image, &t[2], "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        return failed ? NULL : t[2];
    }
    return image;
}

/* A plain RGB or RGBA rectangle. */
static VipsImage *rectangle(VipsObject *scope, int width, int height, const double *color, int bands) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 3);
    if (vips_black(&t[0], width, height, "bands", bands, NULL)) return NULL;
    if (!(t[1] = vips_image_new_from_image(t[0], color, bands))) return NULL;
    if (vips_copy(t[1], &t[2], "interpretation", VIPS_INTERPRETATION_sRGB, NULL)) return NULL;
    return t[2];
}

/* Rotates an RGBA image about its centre on a transparent background, premultiplied so that
 * the smoothed edges do not darken. */
static VipsImage *rotated(VipsObject *scope, VipsImage *in, double degrees) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 4);
    VipsArrayDouble *clear = vips_array_double_newv(4, 0.0, 0.0, 0.0, 0.0);
    int failed = vips_premultiply(in, &t[0], NULL) ||
        vips_rotate(t[0], &t[1], degrees, "background", clear, NULL) ||
        vips_unpremultiply(t[1], &t[2], NULL) || vips_cast_uchar(t[2], &t[3], NULL);
    vips_area_unref(VIPS_AREA(clear));
    return failed ? NULL : t[3];
}

/* A soft shadow of an RGBA image's shape. */
static VipsImage *shadow(VipsObject *scope, VipsImage *in, int blur) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 7);
    double ink[3] = {20, 20, 20};
    VipsImage *colour;
    if (vips_extract_band(in, &t[0], 3, NULL)) return NULL;
    if (vips_linear1(t[0], &t[1], 0.45, 0, NULL)) return NULL;
    if (vips_embed(t[1], &t[2], blur * 2, blur * 2, in->Xsize + blur * 4, in->Ysize + blur * 4, NULL)) return NULL;
    if (vips_gaussblur(t[2], &t[3], blur / 2.0 + 0.5, NULL)) return NULL;
    /* `rectangle` keeps its image in a local array of its own. */
    if (!(colour = rectangle(scope, t[3]->Xsize, t[3]->Ysize, ink, 3))) return NULL;
    if (vips_cast_uchar(t[3], &t[4], NULL)) return NULL;
    if (vips_bandjoin2(colour, t[4], &t[5], NULL)) return NULL;
    if (vips_copy(t[5], &t[6], "interpretation", VIPS_INTERPRETATION_sRGB, NULL)) return NULL;
    return t[6];
}

typedef struct {
    const groupie_layer *layers;
    int count;
    VipsImage **tiles;
    gint next;
    gint failed;
} tile_work;

static gpointer tile_worker(gpointer data) {
    tile_work *work = data;
    for (;;) {
        int i = g_atomic_int_add(&work->next, 1);
        if (i >= work->count || g_atomic_int_get(&work->failed)) break;
        const groupie_layer *layer = &work->layers[i];
        if (layer->kind != GROUPIE_LAYER_PHOTO) continue;
        if (!(work->tiles[i] = groupie_make_tile(layer->source, layer->width, layer->height, layer->crop, layer->focus_x, layer->focus_y)))
            g_atomic_int_set(&work->failed, 1);
    }
    return NULL;
}

typedef struct {
    VipsImage *image;
    int x, y;
} placed;

static int place_photo(VipsObject *scope, const groupie_layer *layer, VipsImage *tile, placed *out, int *count) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 1);
    VipsImage *image = tile;
    int x = layer->x, y = layer->y;
    /* A photo fitted whole is smaller than its place: centred on the canvas's background, or on
     * its print's paper. */
    if (image->Xsize < layer->width || image->Ysize < layer->height) {
        int left = (layer->width - image->Xsize) / 2, top = (layer->height - image->Ysize) / 2;
        if (layer->border > 0 || layer->border_bottom > 0) {
            if (!(image = groupie_letterbox(scope, image, layer->width, layer->height, layer->color))) return -1;
        } else {
            x += left;
            y += top;
        }
    }
    if (layer->border <= 0 && layer->border_bottom <= 0 && layer->rotation == 0) {
        out[(*count)++] = (placed){image, x, y};
        return 0;
    }
    if (layer->border > 0 || layer->border_bottom > 0) {
        VipsArrayDouble *paper = vips_array_double_newv(3, layer->color[0], layer->color[1], layer->color[2]);
        int failed = vips_embed(image, &t[0], layer->border, layer->border, image->Xsize + 2 * layer->border,
                                image->Ysize + layer->border + layer->border_bottom,
                                "extend", VIPS_EXTEND_BACKGROUND, "background", paper, NULL);
        vips_area_unref(VIPS_AREA(paper));
        if (failed) return -1;
        image = t[0];
        x -= layer->border;
        y -= layer->border;
    }
    if (!(image = groupie_srgb(scope, image, 1))) return -1;
    int centre_x = x + image->Xsize / 2, centre_y = y + image->Ysize / 2;
    if (layer->rotation != 0) {
        if (!(image = rotated(scope, image, layer->rotation))) return -1;
    }
    x = centre_x - image->Xsize / 2;
    y = centre_y - image->Ysize / 2;
    if (layer->border > 0) {
        int blur = layer->border > 8 ? layer->border : 8;
        VipsImage *shade = shadow(scope, image, blur);
        if (!shade) return -1;
        out[(*count)++] = (placed){shade, x - blur * 2 + blur / 3, y - blur * 2 + blur / 2};
    }
    out[(*count)++] = (placed){image, x, y};
    return 0;
}

static int place_asset(VipsObject *scope, const groupie_layer *layer, int stretch, placed *out, int *count) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 1);
    if (vips_thumbnail(layer->source, &t[0], layer->width, "height", layer->height,
                       "size", stretch ? VIPS_SIZE_FORCE : VIPS_SIZE_BOTH, NULL))
        return -1;
    VipsImage *image = groupie_srgb(scope, t[0], 1);
    if (!image) return -1;
    out[(*count)++] = (placed){image, layer->x + (layer->width - image->Xsize) / 2, layer->y + (layer->height - image->Ysize) / 2};
    return 0;
}

/* Sets the text at 72 dpi (a point a pixel, as the markup means), and smaller until it fits:
 * every size scales with the dpi, so all lines show in proportion. `*percent`: the size used. */
static int place_text(VipsObject *scope, const groupie_layer *layer, placed *out, int *count, int *percent) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 5), *image = NULL;
    int dpi = 72;
    for (int attempt = 0;; attempt++) {
        if (vips_text(&t[attempt], layer->source, "font", layer->font, "width", layer->width, "dpi", dpi, "rgba", TRUE,
                      "align", VIPS_ALIGN_CENTRE, "wrap", VIPS_TEXT_WRAP_WORD_CHAR, NULL))
            return -1;
        image = t[attempt];
        if ((image->Xsize <= layer->width && image->Ysize <= layer->height) || attempt == 3 || dpi <= 24) break;
        double fit = VIPS_MIN((double)layer->width / image->Xsize, (double)layer->height / image->Ysize);
        dpi = VIPS_MAX(24, VIPS_MIN((int)(dpi * VIPS_MIN(0.95, fit)), dpi - 4));
    }
    if (percent) *percent = dpi * 100 / 72;
    /* Never spill out of the band: cut what does not fit even at a third of its size. */
    if ((image->Xsize > layer->width || image->Ysize > layer->height) &&
        vips_extract_area(image, &t[4], 0, 0, VIPS_MIN(image->Xsize, layer->width), VIPS_MIN(image->Ysize, layer->height), NULL))
        return -1;
    if (t[4]) image = t[4];
    if (!(image = groupie_srgb(scope, image, 1))) return -1;
    out[(*count)++] = (placed){image, layer->x + (layer->width - image->Xsize) / 2, layer->y + (layer->height - image->Ysize) / 2};
    return 0;
}

/* Paints `item` onto `canvas`, an RGB image in memory: opaque images are copied in; images
 * with alpha are blended over the part of the canvas under them only. Painting in place keeps
 * the final picture a plain memory image instead of a long chain of operations. */
static int draw(VipsObject *scope, VipsImage *canvas, placed item) {
    if (item.image->Bands == 3) return vips_draw_image(canvas, item.image, item.x, item.y, NULL);
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 5);
    int left = VIPS_MAX(0, item.x), top = VIPS_MAX(0, item.y);
    int right = VIPS_MIN(canvas->Xsize, item.x + item.image->Xsize), bottom = VIPS_MIN(canvas->Ysize, item.y + item.image->Ysize);
    if (right <= left || bottom <= top) return 0;
    if (vips_extract_area(canvas, &t[0], left, top, right - left, bottom - top, NULL)) return -1;
    if (vips_extract_area(item.image, &t[1], left - item.x, top - item.y, right - left, bottom - top, NULL)) return -1;
    if (vips_composite2(t[0], t[1], &t[2], VIPS_BLEND_MODE_OVER, NULL)) return -1;
    if (vips_extract_band(t[2], &t[3], 0, "n", 3, NULL)) return -1;
    if (vips_cast_uchar(t[3], &t[4], NULL)) return -1;
    /* Made whole before it is painted back over the pixels it was read from. */
    VipsImage *blended = vips_image_copy_memory(t[4]);
    if (!blended) return -1;
    int status = vips_draw_image(canvas, blended, left, top, NULL);
    g_object_unref(blended);
    return status;
}

int groupie_vips_collage(int width, int height, const double background[3], const groupie_layer *layers, int count,
                         const char *output, int png, int quality, int skip_missing_assets, int *skipped, int *text_percent) {
    if (width < 1 || height < 1 || width > 8192 || height > 8192 || count < 0 || count > 64) {
        vips_error("groupie", "a collage of %d x %d with %d layers is out of bounds", width, height, count);
        return -1;
    }
    if (skipped) *skipped = 0;
    if (text_percent) *text_percent = 100;
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    /* Every layer may add a shadow: two placed images at most. */
    placed *items = g_new0(placed, (gsize)count * 2 + 1);
    VipsImage **tiles = g_new0(VipsImage *, (gsize)count + 1);
    int placed_count = 0, status = -1;

    /* The photos first, two at a time: decoding them is most of the work. */
    tile_work work = {layers, count, tiles, 0, 0};
    GThread *helper = g_thread_new("groupie-collage", tile_worker, &work);
    tile_worker(&work);
    g_thread_join(helper);
    if (work.failed) goto done;

    VipsImage *plain = rectangle(scope, width, height, background, 3);
    VipsImage **canvas_holder = (VipsImage **)vips_object_local_array(scope, 1);
    if (!plain || !(canvas_holder[0] = vips_image_copy_memory(plain))) goto done;
    VipsImage *canvas = canvas_holder[0];
    for (int i = 0; i < count; i++) {
        const groupie_layer *layer = &layers[i];
        int failed = 0;
        switch (layer->kind) {
        case GROUPIE_LAYER_PHOTO: failed = place_photo(scope, layer, tiles[i], items, &placed_count); break;
        case GROUPIE_LAYER_ASSET:
        case GROUPIE_LAYER_OVERLAY:
            failed = place_asset(scope, layer, layer->kind == GROUPIE_LAYER_OVERLAY, items, &placed_count);
            if (failed && skip_missing_assets) {
                if (skipped) (*skipped)++;
                vips_error_clear();
                failed = 0;
            }
            break;
        case GROUPIE_LAYER_TEXT: failed = place_text(scope, layer, items, &placed_count, text_percent); break;
        case GROUPIE_LAYER_RECT: {
            VipsImage *rect = rectangle(scope, layer->width, layer->height, layer->color, layer->color[3] >= 255 ? 3 : 4);
            if (!rect) failed = 1;
            else items[placed_count++] = (placed){rect, layer->x, layer->y};
            break;
        }
        default: vips_error("groupie", "unknown layer kind %d", (int)layer->kind); failed = 1;
        }
        if (failed) goto done;
    }
    for (int i = 0; i < placed_count; i++) {
        if (draw(scope, canvas, items[i])) goto done;
    }
    status = png ? vips_pngsave(canvas, output, "compression", 6, "strip", TRUE, NULL)
                 : vips_jpegsave(canvas, output, "Q", quality, "strip", TRUE, NULL);
done:
    for (int i = 0; i < count; i++) {
        if (tiles[i]) g_object_unref(tiles[i]);
    }
    g_free(tiles);
    g_free(items);
    g_object_unref(scope);
    return status;
}

const char *groupie_vips_error(void) { return vips_error_buffer(); }

void groupie_vips_error_clear(void) { vips_error_clear(); }
