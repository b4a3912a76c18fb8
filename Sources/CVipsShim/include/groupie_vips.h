#ifndef GROUPIE_VIPS_H
#define GROUPIE_VIPS_H

/// Groupie's door to libvips: its variadic calls wrapped in fixed signatures for Swift.
/// Every function returns 0 on success, -1 on failure with the reason in `groupie_vips_error`.

/// Starts libvips once: untrusted operations blocked, every loader blocked but JPEG, PNG,
/// WebP, HEIF and SVG (for the venue's assets), the operation cache off (memory stays flat across uploads).
int groupie_vips_start(int concurrency);

/// Limits glibc's malloc to `arenas` arenas (mallopt M_ARENA_MAX); 1 when set, 0 when the C
/// library refused or is not glibc.
int groupie_malloc_arenas_limit(int arenas);

/// Fixes glibc's mmap threshold at `bytes` (mallopt M_MMAP_THRESHOLD), which also stops glibc
/// from raising it after each large free; 1 when set, 0 when refused or not glibc.
int groupie_malloc_mmap_threshold(int bytes);

/// The heap as glibc's allocator sees it (mallinfo2): bytes in allocated chunks, and bytes it
/// holds free (in arenas, not returned to the system). 1 when read, 0 when not glibc.
int groupie_heap_statistics(unsigned long long *in_use, unsigned long long *free_held);

/// Gives free heap pages back to the system (malloc_trim); 1 when some were released.
int groupie_heap_trim(void);

/// Reads a file's header only: size as stored, bands and bytes per sample of the decoded
/// pixels, and its EXIF orientation (1 when none).
int groupie_vips_header(const char *path, int *width, int *height, int *bands, int *sample_bytes, int *orientation,
                        char *loader, int loader_size);

/// A JPEG of at most `long_edge` pixels on its long edge, EXIF orientation applied,
/// in sRGB, without any metadata, made with shrink-on-load.
int groupie_vips_derivative(const char *input, const char *output, int long_edge, int quality);

/// The whole image, oriented, in sRGB, without metadata, as JPEG: the served original of
/// formats whose metadata cannot be removed byte-wise.
int groupie_vips_transcode(const char *input, const char *output, int quality);

/// What one layer of a collage is made of.
typedef enum {
    /// A photo file, scaled uniformly to cover the frame and cropped to it; `crop` picks where:
    /// 0 centre, 1 attention (faces and subjects stay in frame); or, with `crop` 2, fitted whole
    /// inside the frame and centred (on the canvas, or on the print's paper when it has a border).
    GROUPIE_LAYER_PHOTO = 0,
    /// An SVG or raster asset (logo, sticker, frame), fitted inside the frame, centred.
    GROUPIE_LAYER_ASSET = 1,
    /// Pango markup set in `font`, `text_width` pixels wide, placed at the frame's origin and
    /// centred in the frame.
    GROUPIE_LAYER_TEXT = 2,
    /// A plain rectangle of `color`.
    GROUPIE_LAYER_RECT = 3,
    /// A frame-sized SVG or raster stretched exactly over the frame (decorative borders drawn for it).
    GROUPIE_LAYER_OVERLAY = 4,
} groupie_layer_kind;

/// A photo layer's `crop`.
enum { GROUPIE_CROP_CENTRE = 0, GROUPIE_CROP_ATTENTION = 1, GROUPIE_CROP_WHOLE = 2 };

typedef struct {
    groupie_layer_kind kind;
    /// Where the layer goes on the canvas, before rotation.
    int x, y, width, height;
    /// Photo: a white print border around the photo (left/top/right, bottom); 0 for none.
    int border, border_bottom;
    /// Degrees clockwise about the layer's centre (photos only).
    double rotation;
    /// Photo: 0 centre crop, 1 attention crop, 2 the whole photo.
    int crop;
    /// Photo: where its subject is, as fractions of its width and height; negative when not
    /// known, and then `crop` decides.
    double focus_x, focus_y;
    /// RGBA 0..255 (rectangles; photo print borders use the first three).
    double color[4];
    /// File of a photo or asset; markup of a text.
    const char *source;
    /// Text only: Pango font description, e.g. "DejaVu Sans Bold 40".
    const char *font;
} groupie_layer;

/// Draws `count` layers in order over a `width` × `height` canvas of `background` (RGB) and
/// writes it to `output` as JPEG (`png` 0, `quality` 1-100) or PNG (`png` 1). The file is
/// written whole or not at all is the caller's business: write to a temporary name.
/// A layer that cannot be drawn fails the whole picture, except assets when `skip_missing_assets`
/// is set: those are left out and `*skipped` counts them. A text that does not fit its layer is
/// set smaller until it does; `*text_percent` tells the size used (100 as its markup says).
int groupie_vips_collage(int width, int height, const double background[3], const groupie_layer *layers, int count,
                         const char *output, int png, int quality, int skip_missing_assets, int *skipped, int *text_percent);

/// Where the subject of a picture is, by libvips' attention measure (edges, skin tones,
/// saturation) on a small copy: fractions of its oriented width and height.
int groupie_vips_focus(const char *path, double *x, double *y);

/// The tile of a photo layer as the collage draws it (the same `width`, `height`, `crop` and
/// focus), in grey and scaled to at most `max_side` pixels on its long side, one byte a pixel
/// into `pixels` (`capacity` bytes): what a face finder reads. `tile_width` and `tile_height`
/// are the tile's own size (smaller than the layer's on one axis for a whole photo).
int groupie_vips_tile_gray(const char *path, int width, int height, int crop, double focus_x, double focus_y, int max_side,
                           unsigned char *pixels, int capacity, int *tile_width, int *tile_height, int *gray_width, int *gray_height);

/// A photo file, oriented, in grey, at most `max_side` pixels on its long side, as above.
int groupie_vips_photo_gray(const char *path, int max_side, unsigned char *pixels, int capacity, int *gray_width, int *gray_height);

/// The last errors libvips reported (a process-wide buffer), and forgetting them.
const char *groupie_vips_error(void);
void groupie_vips_error_clear(void);

#endif
