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
        return SeedDBError(code, "\(operation) \(path): \(describe(errno))", underlying: errno)
    }

    /// The system's wording for `errno`, lower-cased to fit after a colon.
    private static func describe(_ errno: Errno) -> String {
        let text = errno.description
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
