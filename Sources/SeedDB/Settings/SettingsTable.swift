import SeedDBCore

/// SeedDB's entries in the settings store, keyed by working-copy name, as an update
/// changes them (``SettingsStore/update(timeout:_:)``).
///
/// A working-copy name is a file name: its bytes are what count. A `String`-keyed
/// dictionary takes `é` (U+00E9) and `e` + U+0301 for one key, so writing one where the
/// other is stored would overwrite the other working copy's entry, and keep the other's
/// name. The table writes no such entry and remembers the first name it refused; the
/// update then fails with `conflictingSeed` and writes nothing.
public struct SettingsTable: Sendable {
    /// The entries as they are now.
    public private(set) var entries: [String: SettingsEntry]
    /// The first name written whose entry is stored under other bytes, with those.
    private(set) var lookalike: (written: String, recorded: String)?

    init(_ entries: [String: SettingsEntry]) {
        self.entries = entries
    }

    /// The entry of working copy `name`; setting `nil` removes it.
    public subscript(name: String) -> SettingsEntry? {
        get { entries[name] }
        set {
            if let recorded = entries.lookalikeKey(of: name) {
                lookalike = lookalike ?? (name, recorded)
                return
            }
            entries[name] = newValue
        }
    }

    /// The entry of working copy `name`, or `value` when there is none.
    public subscript(name: String, default value: @autoclosure () -> SettingsEntry) -> SettingsEntry {
        get { self[name] ?? value() }
        set { self[name] = newValue }
    }

    /// The error an update that wrote a lookalike name fails with, if one did.
    var lookalikeError: SeedDBError? {
        lookalike.map { SettingsSnapshot.lookalikeError(written: $0.written, recorded: $0.recorded) }
    }
}
