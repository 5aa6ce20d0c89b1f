import GRDB
import SeedDBCore

extension MergeValue {
    /// The value of a GRDB `DatabaseValue`, by storage class.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let real): self = .real(real)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob([UInt8](data))
        }
    }
}
