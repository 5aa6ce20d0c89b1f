import SeedDBCore

extension MergeConflict {
    /// The conflicts a merge wrote (the JSON array `seeddb conflicts` prints), read back
    /// as values: a key's columns in name order, the sides a conflict's JSON leaves out
    /// as ``Side/noColumn``.
    ///
    /// - Throws: ``SeedDBError`` `corruptWorkingCopy` when the text is not such an array
    ///   (cut short, not JSON, another shape): the file at `path` is damaged.
    static func list(from text: [UInt8], path: String) throws(SeedDBError) -> [MergeConflict] {
        func damaged(_ what: String) -> SeedDBError {
            SeedDBError(.corruptWorkingCopy, "cannot read the conflicts in \(path): the file is damaged (\(what)); the next merge writes it anew")
        }
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(text[...], rules: .strict)
        } catch {
            throw damaged(error.message)
        }
        guard let array = parsed.array else { throw damaged("not a JSON array") }
        return try array.map { (element) throws(SeedDBError) -> MergeConflict in
            guard let object = element.object, let table = object["table"]?.string,
                  let key = object["key"]?.object, let kept = object["kept"]?.string.flatMap(Kept.init(rawValue:))
            else { throw damaged("a conflict without its table, key or side kept") }
            let column = object["column"]?.string
            func side(_ name: String) throws(SeedDBError) -> Side {
                guard let value = object[name] else { return .noColumn }
                if case .null = value { return column == nil ? .absent : .value(.null) }
                if column == nil {
                    guard let row = value.object else { throw damaged("the \(name) side of a row conflict is not a row") }
                    return .row(try fields(row))
                }
                return .value(try self.value(value, damaged))
            }
            func fields(_ members: [String: JSONValue]) throws(SeedDBError) -> [MergeField] {
                try members.keys.sorted().map { (name) throws(SeedDBError) in MergeField(name, try value(members[name]!, damaged)) }
            }
            return MergeConflict(
                table: table, key: try fields(key), column: column,
                base: try side("base"), user: try side("user"), seed: try side("seed"), kept: kept)
        }
    }

    /// A cell's value from its JSON form (``MergeValue/json``).
    private static func value(_ json: JSONValue, _ damaged: (String) -> SeedDBError) throws(SeedDBError) -> MergeValue {
        switch json {
        case .null: return .null
        case .string(let text): return .text(text)
        case .number(let text):
            if let integer = json.integer, !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return .integer(integer) }
            guard let real = Double(text) else { throw damaged("a number out of range") }
            return .real(real)
        case .object(let members):
            guard members.count == 1, let hex = members["hex"]?.string, let bytes = Hex.decode(hex) else { throw damaged("an object that is not a blob") }
            return .blob(bytes)
        case .bool, .array:
            throw damaged("a value that is not a cell's")
        }
    }
}
