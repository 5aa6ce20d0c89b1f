// The part of libzstd's stable API that SeedDB uses, declared here so that building needs
// no zstd header (no libzstd-dev): the library itself, Debian's libzstd.so.1, is loaded at run
// time with dlopen the first time a .zst seed is met (Sources/SeedDB/Compression/ZstdLibrary.swift).
// Types, values and signatures as in libzstd's public header, stable since zstd 1.4.0.
#ifndef CSEEDDB_ZSTD_H
#define CSEEDDB_ZSTD_H

#include <stddef.h>

/// The soname of the library, as Debian's libzstd1 ships it.
#define CSEEDDB_ZSTD_LIBRARY "libzstd.so.1"

/// ZSTD_inBuffer: `src[pos..<size]` is still to be read.
typedef struct {
    const void *src;
    size_t size;
    size_t pos;
} cseeddb_zstd_in_buffer;

/// ZSTD_outBuffer: `dst[pos..<size]` is free.
typedef struct {
    void *dst;
    size_t size;
    size_t pos;
} cseeddb_zstd_out_buffer;

/// ZSTD_cParameter values.
enum {
    CSEEDDB_ZSTD_C_COMPRESSION_LEVEL = 100,
    CSEEDDB_ZSTD_C_CHECKSUM_FLAG = 201,
};

/// ZSTD_EndDirective values.
enum {
    CSEEDDB_ZSTD_E_CONTINUE = 0,
    CSEEDDB_ZSTD_E_END = 2,
};

/// The entry points, as function-pointer types for dlsym's results. Contexts are opaque.
typedef void *(*cseeddb_zstd_create_ctx)(void);
typedef size_t (*cseeddb_zstd_free_ctx)(void *context);
typedef size_t (*cseeddb_zstd_cctx_set_parameter)(void *context, int parameter, int value);
typedef size_t (*cseeddb_zstd_compress_stream2)(void *context, cseeddb_zstd_out_buffer *output, cseeddb_zstd_in_buffer *input, int end);
typedef size_t (*cseeddb_zstd_decompress_stream)(void *context, cseeddb_zstd_out_buffer *output, cseeddb_zstd_in_buffer *input);
typedef unsigned (*cseeddb_zstd_is_error)(size_t code);
typedef const char *(*cseeddb_zstd_get_error_name)(size_t code);

#endif
