import Foundation

/// Figures for RELIABILITY.md: with `SEEDDB_RELIABILITY_LOG=<file>` set (as
/// `Scripts/reliability.sh` does), each suite appends one JSON line to that file.
enum ReliabilityLog {
    static func record(suite: String, trials: Int = 0, crashes: Int = 0, faults: Int = 0, badInputs: Int = 0, dataLost: Int) {
        guard let path = ProcessInfo.processInfo.environment["SEEDDB_RELIABILITY_LOG"] else { return }
        let line = #"{"suite":"\#(suite)","trials":\#(trials),"crashes":\#(crashes),"faults":\#(faults),"badInputs":\#(badInputs),"dataLost":\#(dataLost)}"# + "\n"
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(Data(line.utf8))
            try? handle.close()
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: Data(line.utf8))
        }
    }
}
