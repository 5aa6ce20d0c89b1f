import SeedDBCore
import SystemPackage

extension SeedDBError {
    /// Turns a system error into a ``SeedDBError`` whose code follows the cause:
    /// permission and read-only problems are `cannotCreate`, everything else `ioFailure`.
    ///
    /// - Parameters:
    ///   - error: The `Errno` (or other error) that caused the failure.
    ///   - operation: What was attempted, e.g. `"cannot write"`.
    ///   - path: The path it was attempted on.
    static func io(_ error: any Error, _ operation: String, _ path: String) -> SeedDBError {
        if let error = error as? SeedDBError { return error }
        guard let errno = error as? Errno else {
            return SeedDBError(.ioFailure, "\(operation) \(path): \(error)", underlying: error)
        }
        let code: Code
        switch errno {
        case .permissionDenied, .notPermitted, .readOnlyFileSystem, .isDirectory, .notDirectory,
             .fileExists, .tooManySymbolicLinkLevels, .directoryNotEmpty:
            code = .cannotCreate
        default:
            code = .ioFailure
        }
        return SeedDBError(code, "\(operation) \(path): \(describe(errno))\(errno == .noSpace ? freeSpace(near: path) : "")", underlying: errno)
    }

    /// The code of a failure to read an input (a seed, or a file SeedDB keeps and reads as
    /// one: a previous generation, a merge base, the staged copy): `seedUnavailable` (66)
    /// when it is missing or may not be read (no such file, a path through a file, a
    /// permission refused, a loop of links); `ioFailure` (74) when it is there and reading
    /// it failed (a device error): that is no missing input.
    static func unreadableInputCode(_ error: any Error) -> Code {
        let cause: any Error
        switch error {
        case let error as SeedDBError: cause = error.underlying ?? error
        case CopyEngine.Failure.read(let error): cause = error
        default: cause = error
        }
        guard let errno = cause as? Errno else { return .seedUnavailable }
        switch errno {
        case .noSuchFileOrDirectory, .notDirectory, .permissionDenied, .notPermitted, .tooManySymbolicLinkLevels, .isDirectory, .fileNameTooLong:
            return .seedUnavailable
        default:
            return .ioFailure
        }
    }

    /// `; 2084864 bytes (2.0 MiB) free there`, for a write that ran out of space: what the
    /// file system holding `path`'s directory still has; nothing when that cannot be told.
    static func freeSpace(near path: String) -> String {
        let directory = FilePath(path).removingLastComponent().string
        guard let free = try? Syscalls.availableBytes(inDirectory: directory.isEmpty ? "." : directory) else { return "" }
        return "; \(byteCount(free)) free there"
    }

    /// The system's wording for `errno`, lower-cased to fit after a colon.
    static func describe(_ errno: Errno) -> String {
        let text = errno.description
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }

    /// A copy to `path` (open as `destination`) that ran out of space, naming the directory
    /// (the temporary file is gone once the run is undone): how much it needs,
    /// when that is known, and how much the file system had for it (what is free now, plus
    /// what the partial copy holds, which the failed run removes).
    static func noSpace(copying needed: Int64?, to destination: FileDescriptor, _ path: String) -> SeedDBError {
        let free = (try? Syscalls.space(destination)).map { $0.available + $0.allocated }
        let reason: String
        switch (needed, free) {
        case (let needed?, let free?): reason = "the copy needs \(byteCount(needed)), and \(byteCount(free)) is free there"
        case (let needed?, nil): reason = "the copy needs \(byteCount(needed))"
        case (nil, let free?): reason = "\(byteCount(free)) is free there (the seed's decompressed size is not known in advance)"
        case (nil, nil): reason = ""
        }
        let directory = FilePath(path).removingLastComponent().string
        return SeedDBError(.ioFailure, "cannot copy seed into \(directory): no space left on device" + (reason.isEmpty ? "" : ": " + reason), underlying: Errno.noSpace)
    }

    /// `16777216 bytes (16.0 MiB)`.
    static func byteCount(_ bytes: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = ""
        for next in units where value >= 1024 {
            value /= 1024
            unit = next
        }
        guard !unit.isEmpty else { return "\(bytes) bytes" }
        let rounded = (value * 10).rounded() / 10
        return "\(bytes) bytes (\(rounded) \(unit))"
    }
}
