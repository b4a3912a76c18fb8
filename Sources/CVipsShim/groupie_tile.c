#include "groupie_tile.h"
#include "groupie_vips.h"

#include <math.h>
#include <string.h>

/* How many places' length of a photo a covering tile keeps around its subject. */
#define GROUPIE_TILE_REACH 4.0

/* A photo scaled uniformly to cover `width` x `height` and cropped to it, in memory: JPEG
 * shrink-on-load, then a linear resize, then the crop window, placed on the attention centre
 * found on a small copy (or centred). With `crop` GROUPIE_CROP_WHOLE it is scaled to fit inside
 * instead, and nothing is cut. Returns a new reference. */
VipsImage *groupie_make_tile(const char *path, int width, int height, int crop, double focus_x, double focus_y) {
    int attention = crop == GROUPIE_CROP_ATTENTION, whole = crop == GROUPIE_CROP_WHOLE;
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 9);
    VipsImage *result = NULL;
    const char *loader = vips_foreign_find_load(path);
    if (!loader) goto done;
    if (!(t[0] = vips_image_new_from_file(path, "fail_on", VIPS_FAIL_ON_ERROR, NULL))) goto done;
    int swapped = vips_image_get_orientation_swap(t[0]);
    double w0 = swapped ? t[0]->Ysize : t[0]->Xsize, h0 = swapped ? t[0]->Xsize : t[0]->Ysize;
    /* Covering, half a pixel more than asked so that rounding never leaves a gap; fitting, exact. */
    double scale = whole ? VIPS_MIN(width / w0, height / h0) : VIPS_MAX((width + 0.5) / w0, (height + 0.5) / h0);
    VipsImage *image = t[0];
    if (vips_isprefix("VipsForeignLoadJpeg", loader)) {
        int shrink = 1;
        while (shrink < 8 && scale * shrink * 2 <= 1.0) shrink *= 2;
        if (shrink > 1) {
            if (!(t[1] = vips_image_new_from_file(path, "shrink", shrink, "fail_on", VIPS_FAIL_ON_ERROR, NULL))) goto done;
            image = t[1];
            double slack = whole ? 0 : 0.5;
            double sw = (width + slack) / (swapped ? image->Ysize : image->Xsize), sh = (height + slack) / (swapped ? image->Xsize : image->Ysize);
            scale = whole ? VIPS_MIN(sw, sh) : VIPS_MAX(sw, sh);
        }
    }
    if (vips_autorot(image, &t[2], NULL)) goto done;
    VipsImage *source = t[2];
    if (!whole) {
        /* Covering, a photo much longer than its place would be scaled to that length, all of it
         * held in memory: what lies beyond GROUPIE_TILE_REACH places' length around the subject
         * (or the centre) is cut first, so that a tile costs about its place whatever the
         * photo's shape. Photos of ordinary shapes keep every pixel. */
        double sw = source->Xsize, sh = source->Ysize;
        int kw = (int)VIPS_MIN(sw, ceil(GROUPIE_TILE_REACH * width / scale)), kh = (int)VIPS_MIN(sh, ceil(GROUPIE_TILE_REACH * height / scale));
        if (kw < source->Xsize || kh < source->Ysize) {
            double fx = focus_x >= 0 ? focus_x : 0.5, fy = focus_y >= 0 ? focus_y : 0.5;
            int kl = VIPS_CLIP(0, (int)(fx * sw) - kw / 2, source->Xsize - kw), kt = VIPS_CLIP(0, (int)(fy * sh) - kh / 2, source->Ysize - kh);
            if (vips_extract_area(source, &t[8], kl, kt, kw, kh, NULL)) goto done;
            if (focus_x >= 0) focus_x = (focus_x * sw - kl) / kw;
            if (focus_y >= 0) focus_y = (focus_y * sh - kt) / kh;
            source = t[8];
        }
    }
    /* A triangle filter scaled to the reduction: sharp enough for tiles, and a third of the cost of cubic. */
    if (vips_resize(source, &t[3], scale, "kernel", VIPS_KERNEL_LINEAR, NULL)) goto done;
    if (!(image = groupie_srgb(scope, t[3], 0))) goto done;
    /* Decoded once, here: the crop and the picture read from memory. */
    if (!(t[4] = vips_image_copy_memory(image))) goto done;
    image = t[4];
    if (whole) {
        /* Rounding may leave a pixel over the place: cut that pixel only. */
        width = VIPS_MIN(width, image->Xsize);
        height = VIPS_MIN(height, image->Ysize);
    }
    int left = (image->Xsize - width) / 2, top = (image->Ysize - height) / 2;
    if (whole) {
        /* Nothing to place: the photo is the tile. */
    } else if (focus_x >= 0 && focus_y >= 0) {
        left = VIPS_CLIP(0, (int)(focus_x * image->Xsize) - width / 2, image->Xsize - width);
        top = VIPS_CLIP(0, (int)(focus_y * image->Ysize) - height / 2, image->Ysize - height);
    } else if (attention && (image->Xsize > width || image->Ysize > height)) {
        double factor = VIPS_MIN(1.0, 256.0 / VIPS_MAX(image->Xsize, image->Ysize));
        int x = 0, y = 0;
        if (vips_resize(image, &t[5], factor, "kernel", VIPS_KERNEL_LINEAR, NULL)) goto done;
        if (vips_smartcrop(t[5], &t[6], VIPS_MAX(1, (int)(width * factor)), VIPS_MAX(1, (int)(height * factor)),
                           "interesting", VIPS_INTERESTING_ATTENTION, "attention_x", &x, "attention_y", &y, NULL))
            goto done;
        left = VIPS_CLIP(0, (int)(x / factor) - width / 2, image->Xsize - width);
        top = VIPS_CLIP(0, (int)(y / factor) - height / 2, image->Ysize - height);
    }
    if (vips_extract_area(image, &t[7], VIPS_MAX(0, left), VIPS_MAX(0, top), width, height, NULL)) goto done;
    result = t[7];
    g_object_ref(result);
done:
    g_object_unref(scope);
    return result;
}

VipsImage *groupie_letterbox(VipsObject *scope, VipsImage *in, int width, int height, const double color[3]) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 1);
    VipsArrayDouble *paper = vips_array_double_newv(3, color[0], color[1], color[2]);
    int failed = vips_embed(in, &t[0], (width - in->Xsize) / 2, (height - in->Ysize) / 2, width, height,
                            "extend", VIPS_EXTEND_BACKGROUND, "background", paper, NULL);
    vips_area_unref(VIPS_AREA(paper));
    return failed ? NULL : t[0];
}

int groupie_vips_tile_gray(const char *path, int width, int height, int crop, double focus_x, double focus_y, int max_side,
                           unsigned char *pixels, int capacity, int *tile_width, int *tile_height, int *gray_width, int *gray_height) {
    VipsImage *tile = groupie_make_tile(path, width, height, crop, focus_x, focus_y);
    if (!tile) return -1;
    *tile_width = tile->Xsize;
    *tile_height = tile->Ysize;
    int status = groupie_vips_gray(tile, max_side, pixels, capacity, gray_width, gray_height);
    g_object_unref(tile);
    return status;
}

int groupie_vips_photo_gray(const char *path, int max_side, unsigned char *pixels, int capacity, int *gray_width, int *gray_height) {
    VipsImage *image = NULL;
    if (vips_thumbnail(path, &image, max_side, "height", max_side, "size", VIPS_SIZE_DOWN, "fail_on", VIPS_FAIL_ON_ERROR, NULL)) return -1;
    int status = groupie_vips_gray(image, max_side, pixels, capacity, gray_width, gray_height);
    g_object_unref(image);
    return status;
}

int groupie_vips_gray(VipsImage *in, int max_side, unsigned char *pixels, int capacity, int *gray_width, int *gray_height) {
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 4);
    int status = -1;
    VipsImage *image = in;
    double factor = VIPS_MIN(1.0, (double)max_side / VIPS_MAX(in->Xsize, in->Ysize));
    if (factor < 1.0) {
        if (vips_resize(in, &t[0], factor, "kernel", VIPS_KERNEL_LINEAR, NULL)) goto done;
        image = t[0];
    }
    if (vips_colourspace(image, &t[1], VIPS_INTERPRETATION_B_W, NULL)) goto done;
    if (vips_extract_band(t[1], &t[2], 0, NULL)) goto done;
    if (vips_cast_uchar(t[2], &t[3], NULL)) goto done;
    size_t size = 0;
    void *memory = vips_image_write_to_memory(t[3], &size);
    if (!memory) goto done;
    if (size > (size_t)capacity || size != (size_t)t[3]->Xsize * t[3]->Ysize) {
        vips_error("groupie", "a grey copy of %zu bytes does not fit %d", size, capacity);
    } else {
        memcpy(pixels, memory, size);
        *gray_width = t[3]->Xsize;
        *gray_height = t[3]->Ysize;
        status = 0;
    }
    g_free(memory);
done:
    g_object_unref(scope);
    return status;
}
