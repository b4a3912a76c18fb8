#include "groupie_png.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
    int failed;
} buffer_t;

static void write_to_buffer(png_structp png, png_bytep bytes, png_size_t length) {
    buffer_t *buffer = (buffer_t *)png_get_io_ptr(png);
    if (buffer->failed) return;
    if (buffer->size + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->size + length) capacity *= 2;
        uint8_t *grown = realloc(buffer->data, capacity);
        if (!grown) {
            buffer->failed = 1;
            png_error(png, "out of memory");
            return;
        }
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->size, bytes, length);
    buffer->size += length;
}

static void flush_nothing(png_structp png) { (void)png; }

int groupie_png_encode_1bit(const uint8_t *rows, uint32_t width, uint32_t height,
                            uint8_t **out, size_t *out_size) {
    if (!rows || !out || !out_size || width == 0 || height == 0) return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return -1;
    }
    buffer_t buffer = {0};
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(buffer.data);
        return -1;
    }
    png_set_write_fn(png, &buffer, write_to_buffer, flush_nothing);
    png_set_IHDR(png, info, width, height, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 9);
    png_write_info(png, info);
    size_t stride = (width + 7) / 8;
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(rows + (size_t)y * stride));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    if (buffer.failed) {
        free(buffer.data);
        return -1;
    }
    *out = buffer.data;
    *out_size = buffer.size;
    return 0;
}

void groupie_png_free(uint8_t *buffer) { free(buffer); }
