import Foundation

/// Figures for RELIABILITY.md: with `SEEDDB_RELIABILITY_LOG=<file>` set (as
/// `Scripts/reliability.sh` does), each suite appends one JSON line to that file.
public enum ReliabilityLog {
    /// Appends one line of figures.
    ///
    /// - Parameters:
    ///   - suite: The row it adds to; entries named `group: detail` add up in row `group`.
    ///   - dataLost: Trials that left a torn or mixed database, a lost row, damaged
    ///     settings or a changed working copy after a refused run. Must be 0.
    ///   - clients: For the real-client suites: client processes running during the
    ///     deploys. The fields after it appear only when it is set.
    ///   - deploys: Deploys and reseeds run while the clients ran.
    ///   - refused: Those of them that did not exit 0.
    ///   - errors: The clients' SQLite errors, counted by name (`SQLITE_BUSY`, …).
    ///   - transactions: Transactions the clients completed.
    ///   - mixed: Transactions that saw two versions at once.
    ///   - rowsCommitted: Rows the clients logged after their commit returned.
    ///   - rowsFound: How many of those the final working copy holds.
    public static func record(
        suite: String, trials: Int = 0, crashes: Int = 0, faults: Int = 0, badInputs: Int = 0, dataLost: Int,
        clients: Int? = nil, deploys: Int = 0, refused: Int = 0, errors: [String: Int] = [:],
        transactions: Int = 0, mixed: Int = 0, rowsCommitted: Int? = nil, rowsFound: Int? = nil
    ) {
        guard let path = ProcessInfo.processInfo.environment["SEEDDB_RELIABILITY_LOG"] else { return }
        var record: [String: Any] = [
            "suite": suite, "trials": trials, "crashes": crashes, "faults": faults, "badInputs": badInputs, "dataLost": dataLost,
        ]
        if let clients {
            record.merge([
                "clients": clients, "deploys": deploys, "refused": refused, "errors": errors,
                "transactions": transactions, "mixed": mixed,
            ]) { $1 }
            if let rowsCommitted { record["rowsCommitted"] = rowsCommitted }
            if let rowsFound { record["rowsFound"] = rowsFound }
        }
        guard let json = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]) else { return }
        let line = json + Data("\n".utf8)
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(line)
            try? handle.close()
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: line)
        }
    }
}
