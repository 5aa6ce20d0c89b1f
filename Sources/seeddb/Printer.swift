import SeedDB

/// Prints results as text for people, or as one JSON object with `--json`.
struct Printer {
    /// One JSON object instead of lines.
    let json: Bool
    /// Nothing on success.
    let quiet: Bool

    init(json: Bool, quiet: Bool) {
        self.json = json
        self.quiet = quiet
    }

    init(_ output: OutputOptions) {
        self.init(json: output.json, quiet: output.quiet)
    }

    /// `deploy`, `reseed`, `rollback` (and their dry runs).
    func deployReports(_ reports: [DeployReport], dryRun: Bool, failure: SeedFailure? = nil) {
        emit(json: ["seeds": reports.map { report in
            // A seed of a release that failed before installing it holds no version.
            let notInstalled = report.action == .unchanged && report.from == nil
            var pairs: [(String, Any?)] = [
                ("name", report.name.rawValue), ("action", report.action.rawValue),
                ("from", report.from?.rawValue), ("to", notInstalled ? nil : report.to.rawValue), ("workingCopy", report.workingCopy)]
            if let strategy = report.strategy { pairs.append(("strategy", strategy.rawValue)) }
            if let link = report.seedLink { pairs += [("readOnly", true), ("seedLink", link)] }
            if report.adopted { pairs.append(("adopted", true)) }
            if let held = report.heldFrom { pairs.append(("heldFrom", held.rawValue)) }
            if !report.carried.isEmpty { pairs.append(("carried", report.carried)) }
            if let merge = report.merge {
                var counts: [(String, Any?)] = [("inserted", merge.inserted), ("updated", merge.updated), ("deleted", merge.deleted), ("conflicts", merge.conflicts)]
                if merge.withoutBase { counts.append(("withoutBase", true)) }
                pairs.append(("merge", counts))
            }
            if report.mergeSkipped { pairs.append(("mergeSkipped", true)) }
            if let discarded = report.discarded { pairs.append(("discarded", discarded)) }
            if let kept = report.oldCopyKeptAs { pairs.append(("oldCopyKeptAs", kept)) }
            if let signature = report.signature { pairs.append(("signature", Self.signature(signature))) }
            if let forgot = report.forgotSignature { pairs.append(("forgotSignature", Self.signature(forgot))) }
            return pairs
        }], dryRun: dryRun, failure: failure) {
            reports.map { report in
                // A seed of a release that failed before installing it.
                if report.action == .unchanged, report.from == nil { return "\(report.name): not installed (\(report.workingCopy))" }
                let verb = dryRun ? "would be \(report.action)" : "\(report.action)"
                let to = Self.short(report.to)
                let versions: String
                switch (report.action, report.from) {
                case (.unchanged, _): versions = "at \(to)"
                case (_, nil): versions = to
                case (_, report.to?): versions = "at \(to)"
                case (_, let from?): versions = "\(Self.short(from)) -> \(to)"
                }
                let how = report.strategy.map { " by \($0.rawValue)" }
                    ?? report.seedLink.map { " as a read-only link to \(NameRules.shown(path: $0))" } ?? ""
                let signed = Self.signed(report)
                if report.action == .held, let held = report.heldFrom {
                    return "\(report.name): held at \(to): rolled back from \(Self.short(held)) (\(report.workingCopy))\(signed)"
                }
                let merged = report.merge.map { "; merged\($0.withoutBase ? " without a base" : ""): " + Self.merged($0, kept: report.conflictsKept) }
                    ?? (report.mergeSkipped ? "; nothing to merge: the working copy was the seed's own, unwritten" : "")
                let kept = report.adopted ? "; the database found was kept as the previous generation (seeddb rollback restores it)" : ""
                return "\(report.name): \(verb) \(versions)\(how)\(merged) (\(report.workingCopy))\(kept)\(Self.discarded(report, dryRun: dryRun))\(signed)"
            }
        }
    }

    /// The tables whose changes a run replaced, for its line: `; merge is off: the user's
    /// changes to 2 seed tables (tags, words) were replaced; the old copy is
    /// levels.sqlite.previous`, or, after a merge, `; not merged: …` (tables it could not
    /// merge, or whose policy is `off`); in a dry run, what would be replaced; nothing when
    /// it replaced none. When, merging off, which tables changed is not known (the run
    /// warned) and the old copy was kept as an adopted copy: `; the old copy is kept as …`.
    static func discarded(_ report: DeployReport, dryRun: Bool = false) -> String {
        guard let tables = report.discarded, !tables.isEmpty else {
            guard report.discarded == nil, report.merge == nil, !report.merging, let kept = report.oldCopyKeptAs else { return "" }
            return dryRun ? "; the old copy would be kept as an adopted copy (\(report.name).adopted-…)"
                : "; the old copy is kept as \(kept.split(separator: "/").last.map(String.init) ?? kept)"
        }
        let names = tables.map(Self.tableName).joined(separator: ", ")
        let changes = "the user's changes to \(tables.count) seed table\(tables.count == 1 ? "" : "s") (\(names))"
        let why = report.merge != nil || report.merging ? "not merged" : "merge is off"
        if dryRun {
            let old = report.keptPrevious ? "the old copy would be \(report.name).previous"
                : report.oldCopyKeptAs != nil ? "the old copy would be kept as an adopted copy (\(report.name).adopted-…)" : "the old copy would not be kept"
            return "; \(why): \(changes) would be replaced; \(old)"
        }
        let old = report.keptPrevious ? "the old copy is \(report.name).previous"
            : report.oldCopyKeptAs.map { "the old copy is kept as \($0.split(separator: "/").last.map(String.init) ?? $0)" } ?? "the old copy was not kept"
        return "; \(why): \(changes) were replaced; \(old)"
    }

    /// A table's name in a line's list: as it is when it is a plain identifier (letters,
    /// digits, `_`, `$`), in quotes otherwise, so a name with a comma, a parenthesis or a
    /// newline in it reads as one name on one line.
    static func tableName(_ name: String) -> String {
        let plain = !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }
        return plain ? name : NameRules.quoted(name, limit: 80)
    }

    /// What a deploy did with signatures, for its line: `; signed by 7B0460144D009C90,
    /// serial 3`, and `; forgot the pinned key id 8F2F0F871B302A7F` after
    /// `--forget-signature`.
    static func signed(_ report: DeployReport) -> String {
        let signed = report.signature.map { "; signed by \($0.keyID), serial \($0.serial)" } ?? ""
        let forgot = report.forgotSignature.map { "; forgot the pinned key id \($0.keyID)" } ?? ""
        return signed + forgot
    }

    func maintenanceReports(_ reports: [MaintenanceReport], dryRun: Bool = false, failure: SeedFailure? = nil) {
        emit(json: ["seeds": reports.map { report in
            var pairs: [(String, Any?)] = [
                ("name", report.name.rawValue), ("action", report.action.rawValue), ("lastRun", report.lastRun), ("workingCopy", report.workingCopy)]
            if let link = report.seedLink { pairs += [("readOnly", true), ("seedLink", link)] }
            return pairs
        }], dryRun: dryRun, failure: failure) {
            reports.map { report in
                let verb = "\(dryRun ? "would be " : "")\(report.action.rawValue)"
                if let link = report.seedLink {
                    return "\(report.name): \(verb) (a read-only link to \(NameRules.shown(path: link)): nothing to maintain, \(report.workingCopy))"
                }
                return "\(report.name): \(verb) (last run \(report.lastRun ?? "never"), \(report.workingCopy))"
            }
        }
    }

    /// `pack`: `size` is the database's size in bytes, uncompressed (see
    /// ``SeedPacker/Report/size``). `report` is `nil` when the pack failed; `version` is
    /// `nil` when none was given (nothing records it without a manifest).
    func packReport(_ report: SeedPacker.Report?, version: String?, failure: SeedFailure? = nil) {
        let json: [String: Any] = report.map { report in
            var json: [String: Any] = ["output": report.output, "sha256": report.sha256.hex, "size": Int64(report.size), "compression": report.compression.rawValue]
            json["version"] = version
            return json
        } ?? [:]
        emit(json: json, failure: failure) {
            report.map { report in
                ["\(report.output): packed\(version.map { " version \($0)" } ?? ""), \(report.size) bytes\(report.compression == .none ? "" : " uncompressed"), sha256 \(report.sha256)\(report.compression == .none ? "" : ", \(report.compression.rawValue)")"]
            } ?? []
        }
    }

    func purgeReports(_ reports: [PurgeReport], dryRun: Bool = false, failure: SeedFailure? = nil) {
        emit(json: ["seeds": reports.map { [("name", $0.name.rawValue), ("removed", $0.removed)] as [(String, Any?)] }], dryRun: dryRun, failure: failure) {
            reports.map { "\($0.name): \(dryRun ? "would remove" : "removed") \($0.removed.isEmpty ? "nothing" : $0.removed.joined(separator: ", "))" }
        }
    }

    /// `seeddb conflicts`: each seed's conflicts of its last merge attempt (`nil` when no
    /// merge has run), each with its three values (base, user, seed) and the side kept;
    /// both forms are written from the values the library read.
    func conflicts(_ seeds: [(name: SeedName, conflicts: [MergeConflict]?)], failure: SeedFailure? = nil) {
        emit(json: ["seeds": seeds.map { [("name", $0.name.rawValue), ("conflicts", RawJSON(text: MergeConflict.jsonArray($0.conflicts ?? [])))] as [(String, Any?)] }], failure: failure) {
            seeds.flatMap { seed -> [String] in
                guard let list = seed.conflicts else { return ["\(seed.name): no merge has run"] }
                guard !list.isEmpty else { return ["\(seed.name): no conflicts in the last merge"] }
                return ["\(seed.name): \(list.count) conflict\(list.count == 1 ? "" : "s") in the last merge"] + list.map(Self.conflictLine)
            }
        }
    }

    /// One conflict for people:
    /// `  levels [ix=2] background: base "cave", user "my cave", seed "cave-hd"; kept the user's`;
    /// a row conflict shows whole rows (`no row` for the side without it), and a side
    /// without the conflict's column says `(absent)`.
    static func conflictLine(_ conflict: MergeConflict) -> String {
        let column = conflict.column.map { " \($0)" } ?? " (whole row)"
        let values = [("base", conflict.base), ("user", conflict.user), ("seed", conflict.seed)].map { name, side -> String in
            guard let json = side.json else { return "\(name) (absent)" }
            switch side {
            case .absent: return "\(name) no row"
            case .value(.null): return "\(name) NULL"
            default: return "\(name) \(json)"
            }
        }.joined(separator: ", ")
        return "  \(conflict.table) \(MergeConflict.keyText(conflict.key))\(column): \(values); \(conflict.kept)"
    }

    /// A merge's counts for the deploy line: `4 rows updated, 1 inserted, 3 conflicts kept
    /// the user's (seeddb conflicts)`; `no changes of the user's` when there were none.
    static func merged(_ merge: MergeSummary, kept: [MergeConflict.Kept]) -> String {
        var parts: [String] = []
        for (count, what) in [(merge.updated, "updated"), (merge.inserted, "inserted"), (merge.deleted, "deleted")] where count > 0 {
            parts.append(parts.isEmpty ? "\(count) row\(count == 1 ? "" : "s") \(what)" : "\(count) \(what)")
        }
        if merge.conflicts > 0 {
            let users = kept.filter { $0 == .user }.count
            let seeds = kept.filter { $0 == .seed }.count
            let who: String
            switch (users, seeds) {
            case (0, 0): who = ""
            case (_, 0): who = " kept the user's"
            case (0, _): who = " kept the seed's"
            default: who = ": \(users) kept the user's, \(seeds) the seed's"
            }
            parts.append("\(merge.conflicts) conflict\(merge.conflicts == 1 ? "" : "s")\(who) (seeddb conflicts)")
        }
        return parts.isEmpty ? "no changes of the user's" : parts.joined(separator: ", ")
    }

    /// `status`: per seed, its state, versions and working copy; the signature recorded,
    /// the key pinned, and what a deploy would refuse (`refusal`, the line it would print).
    func statuses(_ statuses: [SeedStatus], failure: SeedFailure? = nil) {
        emit(json: ["seeds": statuses.map { status in
            var pairs: [(String, Any?)] = [
                ("name", status.name.rawValue), ("currentVersion", status.currentVersion.rawValue),
                ("recordedVersion", status.recordedVersion?.rawValue), ("workingCopy", status.workingCopy),
                ("exists", status.exists), ("state", status.state.rawValue)]
            if let held = status.heldFrom { pairs.append(("heldFrom", held.rawValue)) }
            if let blocked = status.blocked { pairs.append(("blocked", blocked)) }
            if let link = status.seedLink { pairs += [("readOnly", true), ("seedLink", link)] }
            if let version = status.interruptedVersion { pairs.append(("interrupted", version.rawValue)) }
            if !status.leftovers.isEmpty { pairs.append(("leftovers", status.leftovers)) }
            if !status.adoptedCopies.isEmpty { pairs.append(("adoptedCopies", status.adoptedCopies)) }
            if !status.unaccountedGenerations.isEmpty { pairs.append(("unaccountedGenerations", status.unaccountedGenerations)) }
            if let signature = status.signature { pairs.append(("signature", Self.signature(signature))) }
            if let pinned = status.pinnedKeyID { pairs.append(("pinnedKeyId", pinned)) }
            if let refusal = status.refusal { pairs.append(("refusal", SeedFailure(seed: status.name, error: refusal).message)) }
            return pairs
        }], failure: failure) {
            statuses.flatMap(Self.lines(of:))
        }
    }

    /// One seed's `status` in words, a line per fact.
    private static func lines(of status: SeedStatus) -> [String] {
        let hold = status.state == .held ? status.heldFrom.map { " (rolled back from \(short($0)); a new version or seeddb reseed ends the hold)" } ?? "" : ""
        let unrecorded = status.interruptedVersion.map { " (a run installing \(short($0)) was interrupted: the next deploy, reseed or rollback finishes or undoes it)" }
            ?? " (a database with no record: a deploy keeps it as the previous generation)"
        let found = status.exists ? (status.recordedVersion == nil ? unrecorded : "") : " (does not exist)"
        var lines = [
            "\(status.name): \(status.state.rawValue)\(hold)",
            "  current version:  \(short(status.currentVersion))",
            "  recorded version: \(status.recordedVersion.map(short) ?? "none")",
            "  working copy:     \(status.workingCopy)\(status.blocked.map { " (blocked: it is \($0); deploys refuse to touch it)" } ?? found)",
        ]
        if let link = status.seedLink { lines.append("  read-only link to: \(NameRules.shown(path: link))") }
        if let signature = status.signature { lines.append("  signature:        key id \(signature.keyID), serial \(signature.serial)") }
        if let pinned = status.pinnedKeyID { lines.append("  pinned key:       \(pinned) (a deploy takes only what it or a trusted key signed)") }
        lines += status.leftovers.map { "  left by a killed run (the next deploy removes it): \($0)" }
        lines += status.adoptedCopies.map { "  adopted copy (kept; seeddb purge --adopted removes it): \($0)" }
        lines += status.unaccountedGenerations.map { "  generation nothing names (kept: it may hold what the user wrote; seeddb purge removes it): \($0)" }
        return lines
    }

    /// `verify`: per seed, `"ok"`, the first problem, `"missing"` or `"not deployed"` for
    /// each file; every problem in the JSON lists (and in the text with `verbose`).
    func verifyReports(_ reports: [VerifyReport], verbose: Bool, failure: SeedFailure? = nil) {
        emit(json: ["seeds": reports.map { report in
            var pairs: [(String, Any?)] = [
                ("name", report.name.rawValue), ("seed", report.seed.description), ("workingCopy", report.workingCopy.description),
                ("seedProblems", report.seed.problems), ("workingCopyProblems", report.workingCopy.problems)]
            if let signature = report.signature { pairs.append(("signature", Self.signature(signature))) }
            if let refusal = report.refusal { pairs.append(("refusal", SeedFailure(seed: report.name, error: refusal).message)) }
            return pairs
        }], failure: failure) {
            reports.flatMap { report in
                let signed = report.signature.map { "; signature ok (key id \($0.keyID), serial \($0.serial))" } ?? (report.refusal == nil ? "" : "; a deploy would refuse it")
                var lines = ["\(report.name): seed \(Self.line(report.seed)); working copy \(Self.line(report.workingCopy))\(signed)"]
                if verbose {
                    lines += report.seed.problems.map { "  seed: \($0)" }
                    lines += report.workingCopy.problems.map { "  working copy: \($0)" }
                }
                return lines
            }
        }
    }

    /// `paths`: the settings file (left out when the run stopped before the first seed)
    /// and each seed's source, location and working copy.
    func paths(_ seeds: [(Seed, SeedPaths)], failure: SeedFailure? = nil) {
        let settings = seeds.first?.1.settingsFile
        var json: [String: Any] = ["seeds": seeds.map { seed, paths in
            [("name", seed.name.rawValue), ("source", seed.source), ("location", seed.location.rawValue),
             ("workingCopy", paths.workingCopy)] as [(String, Any?)]
        }]
        json["settings"] = settings
        emit(json: json, failure: failure) {
            (settings.map { ["settings: \($0)"] } ?? []) + seeds.flatMap { seed, paths in [
                "\(seed.name):",
                "  source:       \(seed.source)",
                "  location:     \(seed.location.rawValue)",
                "  working copy: \(paths.workingCopy)",
            ] }
        }
    }

    /// `{"keyId": "<hex>", "serial": N}`.
    static func signature(_ signature: SeedSignature) -> [(String, Any?)] {
        [("keyId", signature.keyID), ("serial", signature.serial)]
    }

    /// `keygen`: the key id and the two files written.
    func keyPair(keyID: String, publicKey: String, secretKey: String, encrypted: Bool) {
        emit(json: ["keyId": keyID, "publicKey": publicKey, "secretKey": secretKey, "encrypted": encrypted]) {
            ["key id \(keyID)", "public key: \(publicKey) (ship it; trust it with --trusted-key or /etc/seeddb/keys/<app>/)",
             "secret key: \(secretKey) (\(encrypted ? "encrypted with the passphrase" : "NOT encrypted"); keep it secret)"]
        }
    }

    /// A command that produced nothing but its failure.
    func failed(_ failure: SeedFailure) {
        emit(json: [:], failure: failure) { [] }
    }

    /// `sign` and `pack --sign`: the signature written.
    func signed(_ path: String, keyID: String, serial: UInt64) {
        emit(json: ["signature": path, "keyId": keyID, "serial": serial]) {
            ["\(path): signed by key id \(keyID), serial \(serial)"]
        }
    }

    /// A version for people: a `version: auto` digest (64 hex digits) shortened to its
    /// first 12, as git shortens commit names; the JSON keeps it whole.
    static func short(_ version: SeedVersion) -> String {
        let text = version.rawValue
        guard text.utf8.count == 64, text.utf8.allSatisfy({ isHexDigit($0) }) else { return text }
        return String(text.prefix(12))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// One result, the first problem with a count of the others.
    private static func line(_ result: IntegrityResult) -> String {
        let more = result.problems.count - 1
        return more > 0 ? "\(result) (and \(more) more; --verbose lists them)" : result.description
    }

    /// Prints `json` with `--json`, nothing with `--quiet`, and the lines `text` makes
    /// otherwise. Keys print in a fixed order: `dryRun` and `settings` first, `seeds`, then
    /// `error`, last. A dry run adds `"dryRun": true`; a failure adds
    /// `"error": {"seed", "code", "message"}` after what was done before it.
    private func emit(json: [String: Any], dryRun: Bool = false, failure: SeedFailure? = nil, text: () -> [String]) {
        if quiet { return }
        if self.json {
            var json = json
            if dryRun { json["dryRun"] = true }
            if let failure {
                json["error"] = [("seed", failure.seed?.rawValue), ("code", Int(ExitStatus.code(for: failure.error.code))),
                                 ("message", failure.message)] as [(String, Any?)]
            }
            let order = ["dryRun", "settings", "output", "version", "sha256", "size", "compression", "keyId", "publicKey", "secretKey", "encrypted", "signature", "serial", "seeds", "error"]
            Terminal.printOut(JSONText.object(json.sorted { (order.firstIndex(of: $0.key) ?? 99) < (order.firstIndex(of: $1.key) ?? 99) }.map { ($0.key, $0.value) }))
        } else {
            text().forEach(Terminal.printOut)
        }
    }
}

/// Writes JSON with keys in a chosen order (JSONSerialization sorts or shuffles them).
enum JSONText {
    static func object(_ pairs: [(String, Any?)]) -> String {
        "{" + pairs.map { "\(string($0.0)):\(value($0.1))" }.joined(separator: ",") + "}"
    }

    static func value(_ value: Any?) -> String {
        switch value {
        case nil: return "null"
        case let text as String: return string(text)
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Int: return String(number)
        case let number as Int64: return String(number)
        case let number as UInt64: return String(number)
        case let texts as [String]: return "[" + texts.map(string).joined(separator: ",") + "]"
        case let pairs as [(String, Any?)]: return object(pairs)
        case let raw as RawJSON: return raw.text
        case let array as [[(String, Any?)]]: return "[" + array.map(object).joined(separator: ",") + "]"
        default: return string("\(value!)")
        }
    }

    static func string(_ text: String) -> String {
        MergeJSON.string(text)
    }
}

/// JSON text the library already wrote (the conflicts of a merge), printed as it is.
struct RawJSON {
    var text: String
}
