import Foundation
import Logging
@testable import SeedDB
import SeedDBCore

/// Drives the real ``Deployer`` (its planner and executor) over a ``SimulatedWorld``: the
/// app's commands, the app's own writes and crashes, a user deleting files, and a crash
/// of SeedDB before any of its mutating calls; after each, the invariants every state
/// must keep (``problems()``).
final class Simulator {
    /// A command the app, its package or a person runs.
    struct Command: Hashable, CustomStringConvertible {
        enum Kind: String { case deploy, reseed, rollback, purge }
        var kind: Kind
        /// The seed version the app ships.
        var version: Int
        /// `--strategy live`.
        var live = false
        /// `--merge user-wins`.
        var merge = false
        /// `reseed --merge off` of a seed whose policy merges: this reseed's carry merges
        /// nothing, the seed still keeps its base (`DeployConfiguration.reseedMerge`).
        var mergeOffOnce = false
        /// `--read-only`: the working copy becomes a link straight to the seed file.
        var readOnly = false

        var description: String {
            "\(kind.rawValue) v\(version)\(live ? " live" : "")\(merge ? " merged" : "")\(mergeOffOnce ? " --merge off" : "")\(readOnly ? " read-only" : "")"
        }
    }

    let world: SimulatedWorld
    let directories = XDGDirectories(dataHome: "/sim/data", cacheHome: "/sim/cache", configHome: "/sim/config")
    let app = try! AppIdentifier("com.example.sim")
    let paths: SeedPaths
    /// Every row the app wrote and was told was committed, less those only the user's own
    /// deletions took away.
    private(set) var rowsWritten: Set<Int> = []
    /// The app's edits of the seed's rows since the last run that could replace them (one
    /// that merges nothing, an adoption, a purge): a run that merges keeps every one.
    private(set) var editsWritten: Set<Int> = []
    /// The app's rows in a seed table no merge can merge since the last run that replaced
    /// that table: such a run must leave them in some file (the previous generation, an
    /// adopted copy), which it names.
    private(set) var unmergeableWritten: Set<Int> = []
    private var nextRow = 1
    /// The content of each database SeedDB adopted (its edits of seed rows): it must stay
    /// in some file until someone says otherwise.
    private(set) var adopted: [Set<Int>] = []
    /// What happened, newest last (printed with a failure).
    private(set) var log: [String] = []
    /// How many runs were stopped by a crash.
    private(set) var crashes = 0
    /// What a run left wrong that the state alone does not show (``problems()`` reports it).
    private var runProblems: [String] = []
    /// The user's own files beside the working copy whose names look like SeedDB's
    /// (``lookalikeNames``), and those in a directory of theirs at a name of SeedDB's
    /// (``userMakesADirectoryAtTheConflictsFile()``), by their paths below the working
    /// copy's directory, with their bytes: SeedDB never removes, moves or changes them.
    private(set) var lookalikes: [String: [UInt8]] = [:]

    /// System mode on a file system without reflinks (ext4): the merge base is a hard
    /// link to the seed file (`DeployConfiguration.linksBaseToSeed`).
    let linksBaseToSeed: Bool

    /// Whether the file system shares extents (reflinks): not in system mode, which models
    /// ext4; without them and without the link (user mode on ext4), a base is a copy of its
    /// own, and the previous generation's is kept compressed.
    var reflinks: Bool { world.reflinks }

    init(world: SimulatedWorld = SimulatedWorld(), linksBaseToSeed: Bool = false, reflinks: Bool? = nil) {
        self.world = world
        self.linksBaseToSeed = linksBaseToSeed
        world.reflinks = reflinks ?? !linksBaseToSeed
        paths = SeedPaths(app: app, name: try! SeedName("levels.sqlite"), location: .data, directories: directories)
        world.settingsFile = paths.settingsFile
        for version in 1...3 { world.putSeed(Self.seedPath(version), version: "\(version)") }
    }

    /// A simulator on a copy of this one's world and history.
    func copy() -> Simulator {
        let copy = Simulator(world: world.copy(), linksBaseToSeed: linksBaseToSeed, reflinks: reflinks)
        copy.rowsWritten = rowsWritten
        copy.editsWritten = editsWritten
        copy.unmergeableWritten = unmergeableWritten
        copy.nextRow = nextRow
        copy.adopted = adopted
        copy.lookalikes = lookalikes
        copy.runProblems = runProblems
        copy.log = log
        return copy
    }

    static func seedPath(_ version: Int) -> String { "/sim/seeds/v\(version)/levels.sqlite" }

    func seed(_ command: Command) -> Seed {
        try! Seed(
            app: app, source: Self.seedPath(command.version), version: try! SeedVersion("\(command.version)"),
            merge: command.readOnly ? nil : command.merge || command.mergeOffOnce ? MergePolicies(default: .userWins) : MergePolicies(), readOnly: command.readOnly)
    }

    func deployer(_ command: Command) -> Deployer {
        var configuration = DeployConfiguration()
        configuration.strategy = command.live ? .live : .auto
        configuration.wait = .zero
        configuration.linksBaseToSeed = linksBaseToSeed
        if command.mergeOffOnce { configuration.reseedMerge = MergePolicies(default: .off) }
        var deployer = Deployer(directories: directories, configuration: configuration, logger: Logger(label: "sim") { _ in SwiftLogNoOpLogHandler() })
        deployer.effects = world.effects
        return deployer
    }

    /// The outcome of one run.
    enum Outcome: Equatable {
        case done(DeployAction)
        /// `purge` removed what it found.
        case purged
        case failed(SeedDBError.Code)
        case crashed
    }

    /// Runs `command`, stopping the process before mutating call `crash` when given; with
    /// `appWritesBeforeCall`, the app writes a row of its own and edits a seed row while
    /// the run goes on (before that mutating call, or once the writer's lock lets it).
    @discardableResult
    func run(_ command: Command, crash: Int? = nil, appWritesBeforeCall: Int? = nil) -> Outcome {
        world.crash(beforeCall: crash)
        var during: (row: Int, edit: Int)?
        if let call = appWritesBeforeCall {
            world.appWrites(beforeCall: call) { [self] in
                guard !world.writeWaits(paths.workingCopy) else { return false }
                let row = nextRow
                guard appWrites(), appWrites(editingTheSeed: true) else { return true }
                during = (row, row + 1)
                return true
            }
        }
        let deployer = deployer(command)
        let seed = seed(command)
        // A database with no record (and no run under way) is one SeedDB cannot account
        // for: whatever the run does, its content must stay in some file.
        let unaccounted = entry()?.record == nil && entry()?.interrupted == nil
        // A copy recorded as adopted (a rollback restored one) has no known base either.
        let recordedAdopted = entry()?.record?.version == DeployRecord.adoptedVersion
        if let found = world.database(at: paths.workingCopy)?.content, unaccounted {
            if !found.edits.isEmpty, !adopted.contains(found.edits) { adopted.append(found.edits) }
            // Kept whole as an adopted copy, never merged (it has no known base).
            editsWritten = []
        }
        var outcome: Outcome
        do {
            switch command.kind {
            case .deploy: outcome = .done(try deployer.deploy(seed).action)
            case .reseed: outcome = .done(try deployer.reseed(seed).action)
            case .rollback: outcome = .done(try deployer.rollback(seed).action)
            case .purge:
                _ = try deployer.purge(app: app, name: paths.name, location: .data)
                outcome = .purged
            }
        } catch {
            outcome = world.crashed ? .crashed : .failed(error.code)
        }
        // A crash in a step that never fails the run (the clean-up) still stopped it.
        if world.crashed { outcome = .crashed }
        if command.kind == .purge, outcome == .purged || outcome == .crashed {
            // Asked for: what the user wrote and what SeedDB adopted may go, in part if cut.
            rowsWritten = []
            editsWritten = []
            unmergeableWritten = []
            adopted = []
        }
        // A run that merges leaves what it could not merge of the table no merge can merge
        // in some file (the previous generation, an adopted copy); a later run may rotate the
        // previous generation away, as it rotates any. One that merges nothing replaces it
        // (and names it): only what the working copy holds is still to keep.
        let merges = command.merge && !command.mergeOffOnce && command.kind != .purge
        if merges, case .done(let action) = outcome {
            let lost = unmergeableWritten.subtracting(unmergeableOnDisk())
            if !lost.isEmpty { runProblems.append("\(command) ended \(action) with rows \(lost.sorted()) of a table no merge can merge in no file") }
        }
        if merges {
            unmergeableWritten.formIntersection(unmergeableOutsideThePreviousGeneration())
        } else if command.kind != .purge {
            unmergeableWritten.formIntersection(unmergeableStillToKeep())
        }
        if case .done(let action) = outcome, command.kind != .purge {
            let copy = world.database(at: paths.workingCopy)?.content
            // A row the app committed while the run went on is in the working copy after it.
            // (Or, once the working copy links to a read-only seed, in the copy it replaced.)
            let linkedReadOnly = world.database(at: paths.workingCopy).map { SimulatedWorld.isShippedSeed($0.file) } ?? false
            if let during, copy?.userRows.contains(during.row) != true, !linkedReadOnly || !rowsOnDisk().contains(during.row) {
                runProblems.append("\(command) ended \(action) without row \(during.row), which the app wrote while it ran")
            }
            if command.merge && !command.mergeOffOnce && !unaccounted {
                // A run that merges keeps every edit of the seed's rows.
                let lost = editsWritten.subtracting(copy?.edits ?? [])
                if !lost.isEmpty {
                    runProblems.append("\(command) ended \(action) without the edits of seed rows \(lost.sorted())\(during.map { " (edited while it ran: \($0.edit))" } ?? "")")
                }
            } else if linkedReadOnly {
                // A link to a read-only seed replaces nothing: the copy it replaced keeps the
                // edits as the previous generation, and a switch back to a copy that merges
                // carries them again (below: not from a copy with no known base).
                let lost = editsWritten.subtracting(editsOnDisk())
                if !lost.isEmpty { runProblems.append("\(command) left the working copy a link to the seed, and the edits of seed rows \(lost.sorted()) in no file") }
            } else if action != .unchanged, action != .held {
                // Replaced by the seed's own rows, or a copy with no record kept whole as an
                // adopted copy (the old copy keeps them): only those the new copy holds
                // (written once it was in place) are still to keep.
                editsWritten.formIntersection(copy?.edits ?? [])
            }
        }
        if outcome == .crashed {
            crashes += 1
            // Cut after its switch, a run that merges nothing replaced the edits (the old
            // copy keeps them): only those the working copy holds now are still to keep. (A
            // link to a read-only seed replaces nothing: the previous generation keeps them.)
            if !command.merge || command.mergeOffOnce {
                editsWritten.formIntersection(editsStillToKeep())
            }
        }
        // A run that says it is done leaves no run under way behind it: a marker left would
        // stand in the settings, the version unrecorded, while every later run says done too.
        // A killed live run's included (a replace's, a rollback's, an adoption's), whatever
        // met it: whether it committed is not known, so a deploy does it again.
        if case .done(let action) = outcome, let marker = entry()?.interrupted {
            runProblems.append("\(command) ended \(action) and left the marker of a run under way (version \(marker.version))")
        }
        // Once the working copy is a link to a read-only seed, what the app wrote before it
        // is the previous generation's: kept with it, restored by a rollback, carried (and
        // merged) into the copy that takes the link's place when the seed is copied again.
        if let file = world.database(at: paths.workingCopy)?.file, SimulatedWorld.isShippedSeed(file) {
            let lost = rowsWritten.subtracting(rowsOnDisk())
            if !lost.isEmpty { runProblems.append("\(command) left the working copy a link to the seed, and rows \(lost.sorted()) in no file") }
            // A copy with no known base (no record, or recorded as adopted) that the link
            // replaced is kept whole, never merged: its edits stay with it.
            if command.readOnly, unaccounted || recordedAdopted {
                if !editsWritten.isEmpty, !adopted.contains(editsWritten) { adopted.append(editsWritten) }
                editsWritten = []
            }
        }
        world.restart()
        log.append("\(command)\(crash.map { " (crash before call \($0))" } ?? ""): \(outcome)")
        return outcome
    }

    /// The mutating calls `command` makes from this state, run on a copy.
    func calls(_ command: Command) -> Int {
        let trial = copy()
        let before = trial.world.mutatingCalls
        trial.run(command)
        return trial.world.mutatingCalls - before
    }

    /// Every cut of `command` from this state: on a copy for each of its mutating calls,
    /// `command` cut before that call (and, last, run whole), then `next` (`command` again
    /// when `nil`); `check` gets the copy and where it was cut.
    func everyCut(of command: Command, then next: Command? = nil, _ check: (_ sim: Simulator, _ crash: Int) -> Void) {
        for crash in 0...calls(command) {
            let sim = copy()
            sim.run(command, crash: crash)
            sim.run(next ?? command)
            check(sim, crash)
        }
    }

    // MARK: - What happens around SeedDB

    /// The app writes a row through the working copy (in a table of its own, or an
    /// edit of a seed row); `false` when it could not.
    @discardableResult
    func appWrites(editingTheSeed: Bool = false) -> Bool {
        appWrites(editingTheSeed ? .seedRow : .ownTable)
    }

    /// The app writes a row of `kind` through the working copy; `false` when it could not.
    @discardableResult
    func appWrites(_ kind: SimulatedWorld.AppWrite) -> Bool {
        let row = nextRow
        nextRow += 1
        let written = world.appWrites(row: row, into: paths.workingCopy, kind)
        if written {
            switch kind {
            case .ownTable: rowsWritten.insert(row)
            case .seedRow: editsWritten.insert(row)
            case .unmergeableSeedTable: unmergeableWritten.insert(row)
            }
        }
        let what = switch kind {
        case .ownTable: "writes row"
        case .seedRow: "edits seed row"
        case .unmergeableSeedTable: "writes a row no merge can merge,"
        }
        log.append("app \(what) \(row): \(written ? "committed" : "refused")")
        return written
    }

    /// A database of seed `version` put at the working-copy path as a regular file, with
    /// no record (an install made before generations, or a database of the user's own):
    /// SeedDB adopts it.
    func userPutsDatabase(version: Int) {
        world.putSeed(paths.workingCopy, version: "\(version)")
        log.append("user puts a v\(version) database at the working copy's path")
    }

    /// The app crashes mid-write, leaving a `-wal` (and `-shm`) or a hot `-journal`.
    func appCrashes(wal: Bool) {
        world.appCrashesLeavingSidecar(paths.workingCopy, suffix: wal ? "-wal" : "-journal")
        log.append("app crashes leaving a \(wal ? "-wal" : "-journal")")
    }

    /// A user (a cleaner, a restore from backup) deletes `names` in the working copy's
    /// directory (the settings file by its own name): rows only they held are theirs to lose.
    func userDeletes(_ names: [String]) {
        for name in names {
            world.userRemoves(name == "settings" ? paths.settingsFile : paths.inDirectory(name))
            lookalikes[name] = nil
        }
        rowsWritten.formIntersection(rowsKept())
        editsWritten.formIntersection(editsStillToKeep())
        unmergeableWritten.formIntersection(unmergeableOnDisk())
        let kept = databasesOnDisk().map(\.edits)
        adopted.removeAll { edits in !kept.contains(where: edits.isSubset(of:)) }
        log.append("user deletes \(names)")
    }

    /// Names a user may give their own files beside the working copy that look like
    /// SeedDB's (a generation, an adopted copy, a base, the previous generation, a
    /// sidecar) and are not: SeedDB owns exactly the names it writes.
    static let lookalikeNames = [
        "levels.sqlite.adopted-mine", "levels.sqlite.adopted-20260101T000000Z.bak", "levels.sqlite.adopted-20260101T000000Z-1",
        "levels.sqlite.adopted-2026T000000Z", "levels.sqlite.v01", "levels.sqlite.v1.bak", "levels.sqlite.v1x", "levels.sqlite.v-1",
        "levels.sqlite.v", "levels.sqlite.v01-wal", "levels.sqlite.v2-journal.bak", "levels.sqlite.previous.bak",
        "levels.sqlite.base.bak", "levels.sqlite.previous.base.bak", "levels.sqlite.previous.base.xor.zst.bak", "levels.sqlite.lock.bak",
        "levels.sqlite.conflicts.json.bak", "levels.sqlite.bak", "levels.sqlitex", "Levels.sqlite.v1", ".levels.sqlite.tmp",
        ".levels.sqlite.seeddb.tmp",
    ]

    /// The user puts files of their own beside the working copy, named like SeedDB's
    /// (`names`, by default all of ``lookalikeNames``).
    func userPlacesLookalikes(_ names: [String] = lookalikeNames) {
        for name in names {
            let bytes = Array("the user's own \(name)".utf8)
            world.userWrites(paths.inDirectory(name), bytes: bytes)
            lookalikes[name] = bytes
        }
        log.append("user places files named like SeedDB's")
    }

    /// The user makes a directory of their own at `<name>.conflicts.json`, where a merge
    /// writes its conflicts (the conflicts file there first removed), with a file in it:
    /// a merging run and `purge` refuse it, every other run leaves it.
    func userMakesADirectoryAtTheConflictsFile() {
        world.userRemoves(paths.conflictsFile)
        let name = paths.conflictsFileName + "/notes.txt"
        let bytes = Array("the user's own notes".utf8)
        world.userWrites(paths.inDirectory(name), bytes: bytes)
        lookalikes[name] = bytes
        log.append("user makes a directory at \(paths.conflictsFileName)")
    }

    /// A user or a tool damages the settings file.
    func userDamagesSettings() {
        world.userWrites(paths.settingsFile, bytes: Array("{ damaged".utf8))
        log.append("settings damaged")
    }

    // MARK: - Invariants

    /// Every row in a database file that is not a temporary one, or that SeedDB keeps
    /// as the only copy of a database (`.old.tmp`).
    func rowsOnDisk() -> Set<Int> {
        databasesOnDisk().reduce(into: []) { $0.formUnion($1.userRows) }
    }

    /// The databases in files that are not temporary (or that SeedDB keeps as the only
    /// copy of a database, `.old.tmp`).
    func databasesOnDisk() -> [SimulatedWorld.Database] {
        world.names(in: paths.directory).compactMap { name in
            guard !isTemporary(name) || name.hasSuffix(".old.tmp"),
                  case .file(.database(let content, _), _, _)? = world.node(paths.inDirectory(name)) else { return nil }
            return content
        }
    }

    func isTemporary(_ name: String) -> Bool { name.hasPrefix(".") }

    /// The rows SeedDB has to keep once a user deleted files: those in a database file
    /// that is not temporary, less those only in a generation that a switch back from a
    /// read-only seed's link staged and was killed before installing. While the working
    /// copy links to the seed, no generation is in use but one a record or a killed run's
    /// marker names as the copy to keep, and the next run undoes the switch and removes it.
    func rowsKept() -> Set<Int> {
        guard let kept = databasesKeptBesideALink() else { return rowsOnDisk() }
        return kept.reduce(into: []) { $0.formUnion($1.userRows) }
    }

    /// The databases SeedDB keeps while the working copy links to a read-only seed (`nil`
    /// when it does not): every one in a file that is not temporary, but a generation no
    /// record or marker names as the copy to keep (a killed switch back's, which the next
    /// run removes).
    private func databasesKeptBesideALink() -> [SimulatedWorld.Database]? {
        guard let (_, _, file) = world.database(at: paths.workingCopy), SimulatedWorld.isShippedSeed(file) else { return nil }
        let named = [entry()?.generation, entry()?.interrupted?.replacingGeneration].compactMap(\.self)
        return world.names(in: paths.directory).compactMap { name in
            guard !isTemporary(name) || name.hasSuffix(".old.tmp"), paths.generationNumber(of: name) == nil || named.contains(name),
                  case .file(.database(let content, _), _, _)? = world.node(paths.inDirectory(name)) else { return nil }
            return content
        }
    }

    /// Every edit of a seed row in a database file that is not a temporary one.
    func editsOnDisk() -> Set<Int> {
        databasesOnDisk().reduce(into: []) { $0.formUnion($1.edits) }
    }

    /// The edits a later run that merges must still keep: those in the working copy, or,
    /// once it is a link to a read-only seed, those in the files SeedDB keeps beside it
    /// (the previous generation).
    func editsStillToKeep() -> Set<Int> {
        if let kept = databasesKeptBesideALink() { return kept.reduce(into: []) { $0.formUnion($1.edits) } }
        return world.database(at: paths.workingCopy)?.content.edits ?? []
    }

    /// Every row of the table no merge can merge in a database file that is not a
    /// temporary one.
    func unmergeableOnDisk() -> Set<Int> {
        databasesOnDisk().reduce(into: []) { $0.formUnion($1.unmergeable) }
    }

    /// The rows of the table no merge can merge in a database file that is neither a
    /// temporary one nor the previous generation (which the next replace rotates away).
    func unmergeableOutsideThePreviousGeneration() -> Set<Int> {
        world.names(in: paths.directory).reduce(into: []) { rows, name in
            guard !isTemporary(name) || name.hasSuffix(".old.tmp"), paths.inDirectory(name) != paths.previousGeneration,
                  case .file(.database(let content, _), _, _)? = world.node(paths.inDirectory(name)) else { return }
            rows.formUnion(content.unmergeable)
        }
    }

    /// The rows of the table no merge can merge that a later run must still keep: those in
    /// the working copy, or in the files SeedDB keeps beside a link to a read-only seed.
    func unmergeableStillToKeep() -> Set<Int> {
        if let kept = databasesKeptBesideALink() { return kept.reduce(into: []) { $0.formUnion($1.unmergeable) } }
        return world.database(at: paths.workingCopy)?.content.unmergeable ?? []
    }

    /// The settings entry, as SeedDB would read it.
    func entry() -> SettingsEntry? {
        guard case .file(.bytes(let bytes), _, _)? = world.node(paths.settingsFile) else { return nil }
        return world.parsed(bytes).entries["levels.sqlite"]
    }

    /// What is wrong with the world now; empty when every invariant holds.
    func problems() -> [String] {
        var problems = world.violations + runProblems
        // The working copy is one complete generation, or absent.
        var linked: SimulatedWorld.Database?
        switch world.node(paths.workingCopy) {
        case .link(let target)?:
            if let (content, _, _) = world.database(at: paths.workingCopy) {
                linked = content
            } else {
                problems.append("the working copy's link points at \(target), which is not a database")
            }
        case .file(.database(let content, _), _, _)?: linked = content
        case .file?: problems.append("the working copy is not a database")
        case nil: break
        }
        if let linked, linked.mixed { problems.append("the working copy holds two databases' rows: \(linked)") }
        // Commits a crashed app left in a `-wal` stay beside their file until SQLite replays them.
        for name in world.names(in: paths.directory) where !isTemporary(name) {
            guard case .file(.database(let content, let id), _, _)? = world.node(paths.inDirectory(name)), content.framesInWAL else { continue }
            guard case .file(.sidecar(let owner), _, _)? = world.node(paths.inDirectory(name) + "-wal"), owner == id else {
                problems.append("the commits \(name) had in its -wal are in no file")
                continue
            }
        }
        if let linked, linked.fenced { problems.append("the working copy is fenced (read-only)") }
        // The record names what the files hold.
        let entry = entry()
        if let record = entry?.record, let linked, record.version.rawValue != linked.seed, record.version != DeployRecord.adoptedVersion {
            problems.append("recorded version \(record.version), the working copy holds seed \(linked.seed)")
        }
        if let entry, entry.interrupted == nil {
            // (A file the user deleted is not SeedDB's to account for.)
            if let previous = entry.previous, let (content, _, _) = world.database(at: paths.previousGeneration),
               previous.version != DeployRecord.adoptedVersion, previous.version.rawValue != content.seed {
                problems.append("previous recorded as \(previous.version), its file holds seed \(content.seed)")
            }
            if let base = entry.base, entry.record != nil, world.node(paths.base) != nil,
               (try? SimulatedFileSystem(world: world).sha256(of: paths.base)) != base {
                problems.append("the record's base is not the digest of the .base on disk")
            }
            // The previous base's delta restores, against the previous generation on disk,
            // what the previous generation's record names (with no previous generation,
            // the user deleted it, nothing can be rolled back to).
            if let recorded = entry.previous?.base, world.node(paths.previousBaseCompressed) != nil, world.node(paths.previousGeneration) != nil,
               (try? SimulatedFileSystem(world: world).sha256(ofDelta: paths.previousBaseCompressed, against: paths.previousGeneration)) != recorded {
                problems.append("the previous generation's recorded base is not what the .previous.base.xor.zst on disk restores against .previous")
            }
            if let generation = entry.generation, entry.record != nil, case .link(let target)? = world.node(paths.workingCopy), target != generation {
                problems.append("the link points at \(target), the record names \(generation)")
            }
        }
        // No row the user wrote is in no file.
        let lost = rowsWritten.subtracting(rowsOnDisk())
        if !lost.isEmpty { problems.append("rows the user wrote are in no file: \(lost.sorted())") }
        let unmergeableLost = unmergeableWritten.subtracting(unmergeableOnDisk())
        if !unmergeableLost.isEmpty { problems.append("rows of a table no merge can merge are in no file: \(unmergeableLost.sorted())") }
        // No database SeedDB adopted left through a rotation.
        let kept = databasesOnDisk().map(\.edits)
        for edits in adopted where !kept.contains(where: edits.isSubset(of:)) {
            problems.append("an adopted database (edits \(edits.sorted())) is in no file")
        }
        // The user's files named like SeedDB's are theirs.
        for (name, bytes) in lookalikes.sorted(by: { $0.key < $1.key }) {
            if case .file(.bytes(let found), _, _)? = world.node(paths.inDirectory(name)), found == bytes { continue }
            problems.append("the user's file \(name) was removed or changed")
        }
        return problems
    }

    /// The names in the working copy's directory that are not the user's own
    /// (``lookalikes``).
    func seedDBNames() -> [String] {
        world.names(in: paths.directory).filter { lookalikes[$0] == nil }
    }

    /// What a run that finished and recorded must also leave: nothing but the
    /// generation, the previous generation, the bases, adopted copies, the conflicts
    /// file, the lock and the settings.
    func leftovers() -> [String] {
        let linked: String? = { if case .link(let target)? = world.node(paths.workingCopy) { return target }; return nil }()
        return seedDBNames().filter { name in
            let database = SeedPaths.databaseName(of: name)
            return !(name == "levels.sqlite" || name == linked || (database != name && database == linked) || name == "levels.sqlite.lock" || name == "levels.sqlite.previous"
              || name == "levels.sqlite.base" || name == "levels.sqlite.previous.base" || name == "levels.sqlite.previous.base.xor.zst" || name == "levels.sqlite.conflicts.json"
              || paths.adoptedCopyStamp(of: name) != nil)
        }
    }

    /// The world's nodes without their inodes and stamps: what a failed run must leave
    /// (the files in a directory beside the working copy too, by their paths below it).
    func contents() -> [String: String] {
        var contents: [String: String] = [:]
        let below = world.nodes.keys.filter { $0.hasPrefix(paths.directory + "/") }.map { String($0.dropFirst(paths.directory.count + 1)) }
        for name in below + ["settings"] {
            let path = name == "settings" ? paths.settingsFile : paths.inDirectory(name)
            switch world.node(path) {
            case .file(.database(let database, let id), _, _)?: contents[name] = "\(database) (lineage \(id))"
            case .file(let content, _, _)?: contents[name] = "\(content)"
            case .link(let target)?: contents[name] = "-> \(target)"
            case nil: break
            }
        }
        return contents
    }
}
