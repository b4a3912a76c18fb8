#ifndef GROUPIE_FACES_H
#define GROUPIE_FACES_H

#ifdef __cplusplus
extern "C" {
#endif

/// A face found in a picture, in its pixels.
typedef struct {
    int x, y, width, height;
} groupie_face;

/// Finds frontal faces in a grey picture (one byte a pixel, `stride` bytes a row) with the Haar
/// cascade in `cascade_path` (loaded once, on the first call). Writes at most `capacity` faces,
/// largest first, and returns how many were found (at most `capacity`), or -1 when the cascade
/// cannot be loaded. Safe to call from any thread.
int groupie_faces_detect(const unsigned char *gray, int width, int height, int stride, const char *cascade_path,
                         groupie_face *faces, int capacity);

#ifdef __cplusplus
}
#endif

#endif
