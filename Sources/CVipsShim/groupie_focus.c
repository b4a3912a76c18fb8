#include "groupie_vips.h"

#include <vips/vips.h>

/* Where a photo's subject is: libvips' attention search on a 256-pixel thumbnail, as a point
 * between 0 and 1 on each axis. */
int groupie_vips_focus(const char *path, double *x, double *y) {
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 3);
    int status = -1, ax = 0, ay = 0;
    if (vips_thumbnail(path, &t[0], 256, "height", 256, "fail_on", VIPS_FAIL_ON_ERROR, NULL)) goto done;
    if (!(t[1] = vips_image_copy_memory(t[0]))) goto done;
    if (vips_smartcrop(t[1], &t[2], VIPS_MAX(1, t[1]->Xsize / 2), VIPS_MAX(1, t[1]->Ysize / 2),
                       "interesting", VIPS_INTERESTING_ATTENTION, "attention_x", &ax, "attention_y", &ay, NULL))
        goto done;
    *x = (ax + 0.5) / t[1]->Xsize;
    *y = (ay + 0.5) / t[1]->Ysize;
    status = 0;
done:
    g_object_unref(scope);
    return status;
}
