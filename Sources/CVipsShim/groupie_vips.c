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

const char *groupie_vips_error(void) { return vips_error_buffer(); }

void groupie_vips_error_clear(void) { vips_error_clear(); }
