import CSeedDBSystem
import SeedDBCore

/// Debian's runtime Zstandard library, `libzstd.so.1`, loaded with `dlopen` the first time
/// a `.zst` seed is read or written.
///
/// Loading at run time instead of linking keeps `libzstd-dev` out of the build: building
/// SeedDB, or an app that depends on it, needs no zstd headers. Every Debian system has the
/// runtime library (package `libzstd1`, which dpkg and apt themselves need), and a process
/// that never meets a `.zst` seed never loads it. Only the entry points declared in
/// `CSeedDBZstd.h` are looked up.
struct ZstdLibrary: @unchecked Sendable {
    // @unchecked: plain C function pointers, set once by `load()` and never changed.
    let createCCtx: cseeddb_zstd_create_ctx
    let freeCCtx: cseeddb_zstd_free_ctx
    let setParameter: cseeddb_zstd_cctx_set_parameter
    let compressStream2: cseeddb_zstd_compress_stream2
    let createDCtx: cseeddb_zstd_create_ctx
    let freeDCtx: cseeddb_zstd_free_ctx
    let decompressStream: cseeddb_zstd_decompress_stream
    let isError: cseeddb_zstd_is_error
    let errorName: cseeddb_zstd_get_error_name

    /// The soname loaded: `libzstd.so.1`.
    static let soname = CSEEDDB_ZSTD_LIBRARY

    /// The library, loaded once per process on first use, or why it could not be.
    private static let shared = Result { () throws(SeedDBError) in try load() }

    /// The loaded library.
    ///
    /// - Throws: ``SeedDBError`` `seedUnavailable` naming `libzstd.so.1` and the package
    ///   that provides it, when the library is absent or lacks an entry point.
    static func loaded() throws(SeedDBError) -> ZstdLibrary {
        try shared.get()
    }

    /// Whether a `size_t` result of the library is an error code (`ZSTD_isError`).
    func failed(_ result: Int) -> Bool {
        isError(result) != 0
    }

    /// The name of the error a result for which ``failed(_:)`` is true stands for.
    func describe(_ result: Int) -> String {
        errorName(result).map { String(cString: $0) } ?? "error \(result)"
    }

    private static func load() throws(SeedDBError) -> ZstdLibrary {
        let handle: UnsafeMutableRawPointer
        switch Syscalls.loadLibrary(soname) {
        case .success(let loaded): handle = loaded
        case .failure(let reason): throw missing("cannot be loaded (\(reason.message))")
        }
        // Never closed: the functions stay in use for the life of the process.
        func symbol<Function>(_ name: String, as type: Function.Type) throws(SeedDBError) -> Function {
            guard let address = Syscalls.symbol(name, in: handle) else {
                throw missing("has no \(name) (too old: zstd 1.4 or later is needed)")
            }
            return unsafeBitCast(address, to: type)
        }
        return ZstdLibrary(
            createCCtx: try symbol("ZSTD_createCCtx", as: cseeddb_zstd_create_ctx.self),
            freeCCtx: try symbol("ZSTD_freeCCtx", as: cseeddb_zstd_free_ctx.self),
            setParameter: try symbol("ZSTD_CCtx_setParameter", as: cseeddb_zstd_cctx_set_parameter.self),
            compressStream2: try symbol("ZSTD_compressStream2", as: cseeddb_zstd_compress_stream2.self),
            createDCtx: try symbol("ZSTD_createDCtx", as: cseeddb_zstd_create_ctx.self),
            freeDCtx: try symbol("ZSTD_freeDCtx", as: cseeddb_zstd_free_ctx.self),
            decompressStream: try symbol("ZSTD_decompressStream", as: cseeddb_zstd_decompress_stream.self),
            isError: try symbol("ZSTD_isError", as: cseeddb_zstd_is_error.self),
            errorName: try symbol("ZSTD_getErrorName", as: cseeddb_zstd_get_error_name.self))
    }

    /// The one-line error for a library that is absent or unusable: what is missing and
    /// how to get it.
    private static func missing(_ reason: String) -> SeedDBError {
        SeedDBError(.seedUnavailable, "Zstandard (.zst) seeds need \(soname), which \(reason): install it with apt-get install libzstd1")
    }
}
