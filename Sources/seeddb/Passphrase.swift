#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SeedDB

/// The passphrase of a secret key: `$SEEDDB_PASSPHRASE`, else asked on the terminal
/// (`/dev/tty`, not echoed), as `minisign` asks for its own.
enum Passphrase {
    /// The environment variable a script or CI job sets instead of typing.
    static let variable = "SEEDDB_PASSPHRASE"

    /// The passphrase to open a secret key with.
    /// - Throws: ``SeedDBError`` `invalidArgument` when there is neither the variable nor a
    ///   terminal, or the passphrase is empty.
    static func toOpen(_ path: String) throws(SeedDBError) -> [UInt8] {
        if let value = ProcessInfo.processInfo.environment[variable] { return Array(value.utf8) }
        guard let typed = ask("Passphrase for \(path): ") else { throw unavailable() }
        return typed
    }

    /// A new passphrase, typed twice on a terminal, for a new secret key.
    /// - Throws: ``SeedDBError`` `invalidArgument` when there is neither the variable nor a
    ///   terminal, the passphrase is empty, or the two differ.
    static func toCreate() throws(SeedDBError) -> [UInt8] {
        if let value = ProcessInfo.processInfo.environment[variable] {
            guard !value.isEmpty else { throw SeedDBError(.invalidArgument, "$\(variable) is empty; a secret key needs a passphrase, or --unencrypted") }
            return Array(value.utf8)
        }
        guard let first = ask("Passphrase for the new secret key: ") else { throw unavailable() }
        guard !first.isEmpty else { throw SeedDBError(.invalidArgument, "the passphrase is empty; a secret key needs one, or --unencrypted") }
        guard ask("The passphrase again: ") == first else { throw SeedDBError(.invalidArgument, "the two passphrases differ") }
        return first
    }

    private static func unavailable() -> SeedDBError {
        SeedDBError(.invalidArgument, "no passphrase: set $\(variable) or run on a terminal")
    }

    /// Asks on `/dev/tty` with echo off; `nil` when there is no terminal.
    private static func ask(_ prompt: String) -> [UInt8]? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        _ = tcsetattr(tty, TCSAFLUSH, &quiet)
        defer {
            _ = tcsetattr(tty, TCSAFLUSH, &saved)
            _ = write(tty, "\n", 1)
        }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != 0x0A {
            if byte != 0x0D { line.append(byte) }
        }
        return line
    }
}
