import Foundation

extension SeedDBBench {
    /// Issue 30, item 4: a read-only seed's first deploy and upgrade (a new version at the
    /// same path, as a package manager's rename leaves it) of a 1 GiB seed, each a whole
    /// `seeddb deploy --read-only` process, beside `ln -s` (and `ln -sfn`) of the same
    /// seed, run in the same loop, and, for context, `ln -sfn` followed by a `sync` of the
    /// link's directory (SeedDB flushes the directory and writes its record durably).
    /// Nothing is copied or hashed: both are O(1) in the seed's size.
    mutating func readOnlyLink() throws {
        let directory = scratch + "/readonly"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A second name of the 1 GiB seed, read-only, as a package ships it under /usr/share.
        let seed = directory + "/levels.sqlite"
        try FileManager.default.copyItem(atPath: seed1G, toPath: seed)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: seed)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = xdg(directory + "/xdg")
        let flags = ["--quiet", "--read-only", "--app", "bench", "--seed", seed]
        let link = directory + "/reference-link.sqlite"
        var samples: [String: [Double]] = [:]
        for _ in 0..<max(5, runs) {
            try? FileManager.default.removeItem(atPath: directory + "/xdg")
            samples["first", default: []].append(Self.timed([seeddb, "deploy", "--version", "1"] + flags, environment: environment))
            samples["upgrade", default: []].append(Self.timed([seeddb, "deploy", "--version", "2"] + flags, environment: environment))
            try? FileManager.default.removeItem(atPath: link)
            samples["ln", default: []].append(Self.timed(["ln", "-s", seed, link], environment: environment))
            samples["ln-f", default: []].append(Self.timed(["ln", "-sfn", seed, link], environment: environment))
            samples["durable", default: []].append(Self.timed(["sh", "-c", "ln -sfn \"$1\" \"$2\" && sync \"$3\"", "sh", seed, link, directory], environment: environment))
        }
        let durable = Measure.median(samples["durable"]!)
        for (key, reference, what) in [("first", "ln", "First deploy"), ("upgrade", "ln-f", "Upgrade (new version, same path)")] {
            let value = Measure.median(samples[key]!)
            let base = Measure.median(samples[reference]!)
            add(Result(
                figure: "\(what) of a 1 GiB read-only seed (a link, no copy)", value: String(format: "%.2f ms", value * 1000),
                reference: String(format: "%@: %.2f ms (with a sync of its directory: %.2f ms)", reference == "ln" ? "ln -s" : "ln -sfn", base * 1000, durable * 1000),
                ratio: String(format: "%.2f× the time", value / base), target: "≤ 2× the time", met: value / base <= 2))
        }
    }
}
