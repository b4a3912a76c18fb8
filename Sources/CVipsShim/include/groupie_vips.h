#ifndef GROUPIE_VIPS_H
#define GROUPIE_VIPS_H

/// Groupie's door to libvips: its variadic calls wrapped in fixed signatures for Swift.
/// Every function returns 0 on success, -1 on failure with the reason in `groupie_vips_error`.

/// Starts libvips once: untrusted operations blocked, every loader blocked but JPEG, PNG,
/// WebP and HEIF, the operation cache off (memory stays flat across uploads).
int groupie_vips_start(int concurrency);

/// Reads a file's header only: size as stored and its EXIF orientation (1 when none).
int groupie_vips_header(const char *path, int *width, int *height, int *orientation, char *loader, int loader_size);

/// A JPEG of at most `long_edge` pixels on its long edge, EXIF orientation applied,
/// in sRGB, without any metadata, made with shrink-on-load.
int groupie_vips_derivative(const char *input, const char *output, int long_edge, int quality);

/// The whole image, oriented, in sRGB, without metadata, as JPEG: the served original of
/// formats whose metadata cannot be removed byte-wise.
int groupie_vips_transcode(const char *input, const char *output, int quality);

/// The last errors libvips reported (a process-wide buffer), and forgetting them.
const char *groupie_vips_error(void);
void groupie_vips_error_clear(void);

#endif
