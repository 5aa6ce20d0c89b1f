import Foundation
import SeedDBCore

extension SeedDBError: LocalizedError {
    /// The one-line message, so that `error.localizedDescription` in an app says what
    /// failed instead of "The operation could not be completed".
    public var errorDescription: String? { message }
}
