#include "groupie_vips.h"

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

int groupie_vips_header(const char *path, int *width, int *height, int *orientation, char *loader, int loader_size) {
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
    *orientation = vips_image_get_orientation(image);
    g_object_unref(image);
    return 0;
}

static int save_jpeg(VipsImage *image, const char *output, int quality) {
    return vips_jpegsave(image, output, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, "interlace", TRUE, NULL);
}

int groupie_vips_derivative(const char *input, const char *output, int long_edge, int quality) {
    VipsImage *thumbnail = NULL;
    if (vips_thumbnail(input, &thumbnail, long_edge, "height", long_edge, "size", VIPS_SIZE_DOWN,
                       "export_profile", "srgb", "fail_on", VIPS_FAIL_ON_ERROR, NULL))
        return -1;
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

/* `in` as 8-bit sRGB with alpha. */
static VipsImage *srgba(VipsObject *scope, VipsImage *in) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 3);
    if (vips_colourspace(in, &t[0], VIPS_INTERPRETATION_sRGB, NULL)) return NULL;
    if (vips_cast_uchar(t[0], &t[1], NULL)) return NULL;
    if (t[1]->Bands == 4) return t[1];
    if (t[1]->Bands != 3) {
        vips_error("groupie", "an image of %d bands cannot be drawn", t[1]->Bands);
        return NULL;
    }
    if (vips_bandjoin_const1(t[1], &t[2], 255, NULL)) return NULL;
    return t[2];
}

/* A plain RGBA rectangle. */
static VipsImage *rectangle(VipsObject *scope, int width, int height, const double color[4]) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 3);
    if (vips_black(&t[0], width, height, "bands", 4, NULL)) return NULL;
    if (!(t[1] = vips_image_new_from_image(t[0], color, 4))) return NULL;
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
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 6);
    double black[4] = {20, 20, 20, 0};
    VipsImage *ink;
    if (vips_extract_band(in, &t[0], 3, NULL)) return NULL;
    if (vips_linear1(t[0], &t[1], 0.45, 0, NULL)) return NULL;
    if (vips_embed(t[1], &t[2], blur * 2, blur * 2, in->Xsize + blur * 4, in->Ysize + blur * 4, NULL)) return NULL;
    if (vips_gaussblur(t[2], &t[3], blur / 2.0 + 0.5, NULL)) return NULL;
    /* `rectangle` keeps its image in a local array of its own. */
    if (!(ink = rectangle(scope, t[3]->Xsize, t[3]->Ysize, black))) return NULL;
    if (vips_extract_band(ink, &t[4], 0, "n", 3, NULL)) return NULL;
    if (vips_bandjoin2(t[4], t[3], &t[5], NULL)) return NULL;
    VipsImage **out = (VipsImage **)vips_object_local_array(scope, 1);
    if (vips_cast_uchar(t[5], &out[0], NULL)) return NULL;
    return out[0];
}

typedef struct {
    VipsImage *image;
    int x, y;
} placed;

static int place_photo(VipsObject *scope, const groupie_layer *layer, placed *out, int *count) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 2);
    VipsInteresting interesting = layer->crop ? VIPS_INTERESTING_ATTENTION : VIPS_INTERESTING_CENTRE;
    if (vips_thumbnail(layer->source, &t[0], layer->width, "height", layer->height, "crop", interesting,
                       "size", VIPS_SIZE_BOTH, "fail_on", VIPS_FAIL_ON_ERROR, NULL))
        return -1;
    VipsImage *image = t[0];
    int x = layer->x, y = layer->y;
    if (layer->border > 0 || layer->border_bottom > 0) {
        VipsArrayDouble *paper = vips_array_double_newv(3, layer->color[0], layer->color[1], layer->color[2]);
        int failed = vips_embed(image, &t[1], layer->border, layer->border, image->Xsize + 2 * layer->border,
                                image->Ysize + layer->border + layer->border_bottom,
                                "extend", VIPS_EXTEND_BACKGROUND, "background", paper, NULL);
        vips_area_unref(VIPS_AREA(paper));
        if (failed) return -1;
        image = t[1];
        x -= layer->border;
        y -= layer->border;
    }
    if (!(image = srgba(scope, image))) return -1;
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
        out[*count] = (placed){shade, x - blur * 2 + blur / 3, y - blur * 2 + blur / 2};
        (*count)++;
    }
    out[*count] = (placed){image, x, y};
    (*count)++;
    return 0;
}

static int place_asset(VipsObject *scope, const groupie_layer *layer, int stretch, placed *out, int *count) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 1);
    if (vips_thumbnail(layer->source, &t[0], layer->width, "height", layer->height,
                       "size", stretch ? VIPS_SIZE_FORCE : VIPS_SIZE_BOTH, NULL))
        return -1;
    VipsImage *image = srgba(scope, t[0]);
    if (!image) return -1;
    out[*count] = (placed){image, layer->x + (layer->width - image->Xsize) / 2, layer->y + (layer->height - image->Ysize) / 2};
    (*count)++;
    return 0;
}

static int place_text(VipsObject *scope, const groupie_layer *layer, placed *out, int *count) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 2);
    if (vips_text(&t[0], layer->source, "font", layer->font, "width", layer->width, "dpi", 72, "rgba", TRUE,
                  "align", VIPS_ALIGN_CENTRE, "wrap", VIPS_TEXT_WRAP_WORD_CHAR, NULL))
        return -1;
    VipsImage *image = t[0];
    /* Never spill out of the band: cut what does not fit. */
    if (image->Xsize > layer->width || image->Ysize > layer->height) {
        if (vips_extract_area(image, &t[1], 0, 0, VIPS_MIN(image->Xsize, layer->width), VIPS_MIN(image->Ysize, layer->height), NULL))
            return -1;
        image = t[1];
    }
    if (!(image = srgba(scope, image))) return -1;
    out[*count] = (placed){image, layer->x + (layer->width - image->Xsize) / 2, layer->y + (layer->height - image->Ysize) / 2};
    (*count)++;
    return 0;
}

int groupie_vips_collage(int width, int height, const double background[3], const groupie_layer *layers, int count,
                         const char *output, int png, int quality, int skip_missing_assets, int *skipped) {
    if (width < 1 || height < 1 || width > 8192 || height > 8192 || count < 0 || count > 64) {
        vips_error("groupie", "a collage of %d x %d with %d layers is out of bounds", width, height, count);
        return -1;
    }
    if (skipped) *skipped = 0;
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    /* Every layer may add a shadow: two placed images at most. */
    placed *items = g_new0(placed, (gsize)count * 2 + 1);
    int placed_count = 0, status = -1;
    double base_color[4] = {background[0], background[1], background[2], 255};
    VipsImage *base = rectangle(scope, width, height, base_color);
    if (!base) goto done;
    items[placed_count++] = (placed){base, 0, 0};
    for (int i = 0; i < count; i++) {
        const groupie_layer *layer = &layers[i];
        int failed = 0;
        switch (layer->kind) {
        case GROUPIE_LAYER_PHOTO: failed = place_photo(scope, layer, items, &placed_count); break;
        case GROUPIE_LAYER_ASSET:
        case GROUPIE_LAYER_OVERLAY:
            failed = place_asset(scope, layer, layer->kind == GROUPIE_LAYER_OVERLAY, items, &placed_count);
            if (failed && skip_missing_assets) {
                if (skipped) (*skipped)++;
                vips_error_clear();
                failed = 0;
            }
            break;
        case GROUPIE_LAYER_TEXT: failed = place_text(scope, layer, items, &placed_count); break;
        case GROUPIE_LAYER_RECT: {
            VipsImage *rect = rectangle(scope, layer->width, layer->height, layer->color);
            if (!rect) failed = 1;
            else items[placed_count++] = (placed){rect, layer->x, layer->y};
            break;
        }
        default: vips_error("groupie", "unknown layer kind %d", (int)layer->kind); failed = 1;
        }
        if (failed) goto done;
    }
    {
        VipsImage **images = g_new0(VipsImage *, placed_count);
        int *modes = g_new0(int, placed_count);
        int *xs = g_new0(int, placed_count), *ys = g_new0(int, placed_count);
        for (int i = 0; i < placed_count; i++) {
            images[i] = items[i].image;
            modes[i] = VIPS_BLEND_MODE_OVER;
            xs[i] = items[i].x;
            ys[i] = items[i].y;
        }
        VipsImage **t = (VipsImage **)vips_object_local_array(scope, 3);
        VipsArrayDouble *back = vips_array_double_new(background, 3);
        int failed;
        if (placed_count == 1) {
            failed = vips_flatten(images[0], &t[1], "background", back, NULL);
        } else {
            VipsArrayInt *ax = vips_array_int_new(xs + 1, placed_count - 1), *ay = vips_array_int_new(ys + 1, placed_count - 1);
            failed = vips_composite(images, &t[0], placed_count, modes + 1, "x", ax, "y", ay, NULL) ||
                vips_flatten(t[0], &t[1], "background", back, NULL);
            vips_area_unref(VIPS_AREA(ax));
            vips_area_unref(VIPS_AREA(ay));
        }
        vips_area_unref(VIPS_AREA(back));
        g_free(images);
        g_free(modes);
        g_free(xs);
        g_free(ys);
        if (failed || vips_cast_uchar(t[1], &t[2], NULL)) goto done;
        status = png ? vips_pngsave(t[2], output, "compression", 6, "strip", TRUE, NULL)
                     : vips_jpegsave(t[2], output, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, "interlace", TRUE, NULL);
    }
done:
    g_free(items);
    g_object_unref(scope);
    return status;
}

const char *groupie_vips_error(void) { return vips_error_buffer(); }

void groupie_vips_error_clear(void) { vips_error_clear(); }
