/// A column name with a value: one field of a row or of a primary key.
public struct MergeField: Sendable, Hashable {
    /// The column's name, as the new seed spells it.
    public var column: String
    /// The value.
    public var value: MergeValue

    /// Creates a field.
    public init(_ column: String, _ value: MergeValue) {
        self.column = column
        self.value = value
    }
}
