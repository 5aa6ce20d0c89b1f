import SeedDBCore
import Testing

/// The plan of a read-only seed, table-driven: a link straight to the seed, never a copy;
/// the copy it replaces kept as the previous generation; the refusals decided before
/// anything is planned; and the way back to a copy, which carries nothing from the link
/// and what the user wrote before it from the previous generation.
@Suite struct ReadOnlySeedPlannerTests {
    static let seedPath = "/usr/share/levels/levels.sqlite"

    static func observed(
        recorded: String? = "1", current: String = "2", workingCopy: DeployObservation.WorkingCopy = .generation(1),
        recordedGeneration: Int? = 1, recordedLink: String? = nil, previous: Bool = false, heldFrom: String? = nil,
        seed: ReadOnlySeed? = ReadOnlySeed(path: seedPath)
    ) -> DeployObservation {
        var observation = DeployPlannerTests.observed(
            recorded: recorded, current: current, workingCopy: workingCopy, recordedGeneration: recordedGeneration,
            previous: previous, heldFrom: heldFrom)
        observation.recordedSeedLink = recordedLink
        observation.readOnlySeed = seed
        return observation
    }

    @Test func aFirstDeployLinksAndCopiesNothing() throws {
        let plan = try DeployPlanner.plan(Self.observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil), DeployRequest(kind: .deploy))
        #expect(plan.action == .installed && plan.names == [.withdraw, .linkSeed, .cleanUp])
        // The marker names the seed before the link is made.
        #expect(plan.withdraw?.seedLink == Self.seedPath && plan.withdraw?.replacing == nil)
        let link = try #require(plan.seedLink)
        #expect(link.target == Self.seedPath && link.from == .nothing && !link.alreadyLinked && link.keeps == nil && link.previous == .unchanged)
        #expect(plan.strategy == nil && plan.integrity == .none && !plan.keepsPrevious)
    }

    @Test func aCopyBecomesThePreviousGenerationEvenWithGenerationsOff() throws {
        var request = DeployRequest(kind: .deploy)
        request.keepPrevious = false
        let plan = try DeployPlanner.plan(Self.observed(current: "1", previous: true), request)
        #expect(plan.action == .replaced && plan.names == [.withdraw, .linkSeed, .cleanUp])
        #expect(plan.withdraw?.seedLink == Self.seedPath && plan.withdraw?.replacingGeneration == 1)
        #expect(plan.seedLink?.keeps == .generation(1) && plan.keepsPrevious && plan.dropsPrevious)
        #expect(plan.seedLink?.drop == .setAside && plan.seedLink?.from == .generation(1, linked: true))
        let file = try DeployPlanner.plan(Self.observed(workingCopy: .file, recordedGeneration: nil), DeployRequest(kind: .deploy))
        #expect(file.seedLink?.keeps == .file)
        let adopted = try DeployPlanner.plan(Self.observed(recorded: nil, recordedGeneration: nil), DeployRequest(kind: .deploy))
        #expect(adopted.adopted && adopted.seedLink?.adopted == true)
    }

    @Test func upToDateAndUpgradesOfTheLink() throws {
        let linked = DeployObservation.WorkingCopy.seedLink(Self.seedPath)
        let upToDate = Self.observed(recorded: "2", workingCopy: linked, recordedGeneration: nil, recordedLink: Self.seedPath)
        #expect(try DeployPlanner.plan(upToDate, DeployRequest(kind: .deploy)) == .nothing)
        // Up to date, the seed file made writable since: refused. A directory on its path
        // refuses a new link only, as the startup check reads the file alone.
        var writable = upToDate
        writable.readOnlySeed?.writableBy = "everyone (mode 0666)"
        #expect(throws: DeployRefusal.readOnlySeedWritable(Self.seedPath, "everyone (mode 0666)")) { try DeployPlanner.plan(writable, DeployRequest(kind: .deploy)) }
        var gone = upToDate
        gone.readOnlySeed?.missing = true
        #expect(throws: DeployRefusal.readOnlySeedMissing(Self.seedPath)) { try DeployPlanner.plan(gone, DeployRequest(kind: .deploy)) }
        var replaceable = upToDate
        replaceable.readOnlySeed?.replaceableBy = "everyone, through its directory /usr/share (mode 0777)"
        #expect(try DeployPlanner.plan(replaceable, DeployRequest(kind: .deploy)) == .nothing)
        var upgrade = Self.observed(workingCopy: linked, recordedGeneration: nil, recordedLink: Self.seedPath)
        upgrade.readOnlySeed = replaceable.readOnlySeed
        #expect(throws: DeployRefusal.readOnlySeedWritable(Self.seedPath, "everyone, through its directory /usr/share (mode 0777)")) { try DeployPlanner.plan(upgrade, DeployRequest(kind: .deploy)) }
        // A rename by the package manager: a new version, the link already in place.
        let renamed = try DeployPlanner.plan(Self.observed(workingCopy: linked, recordedGeneration: nil, recordedLink: Self.seedPath), DeployRequest(kind: .deploy))
        #expect(renamed.action == .replaced && renamed.seedLink?.alreadyLinked == true && renamed.seedLink?.keeps == nil)
        // Only the record changes, in one write: no marker first.
        #expect(renamed.names == [.linkSeed, .cleanUp])
        // A removed link the record names, put back: cut anywhere, the record stays true.
        let restore = try DeployPlanner.plan(Self.observed(recorded: "2", workingCopy: .absent, recordedGeneration: nil, recordedLink: Self.seedPath), DeployRequest(kind: .deploy))
        #expect(restore.action == .restored && restore.names == [.linkSeed, .cleanUp], "\(restore.steps)")
        #expect(renamed.seedLink?.from == .seedLink(Self.seedPath))
        // A run killed after its link, before its record: the recorded generation is the copy to keep.
        var killed = Self.observed(recorded: "1", workingCopy: linked, recordedGeneration: 1)
        killed.generationFiles = [1]
        #expect(try DeployPlanner.plan(killed, DeployRequest(kind: .deploy)).seedLink?.keeps == .generation(1))
        // Killed later, after the copy became the previous generation: only the record is left.
        var kept = Self.observed(recorded: "1", workingCopy: linked, recordedGeneration: 1, previous: true)
        kept.generationFiles = []
        let finishing = try #require(try DeployPlanner.plan(kept, DeployRequest(kind: .deploy)).seedLink)
        #expect(finishing.keeps == nil && finishing.drop == nil && finishing.alreadyLinked)
        #expect(finishing.previous == .record(nil), "the previous generation on disk is recorded as the copy's")
        let reseed = try DeployPlanner.plan(upToDate, DeployRequest(kind: .reseed))
        #expect(reseed.action == .reseeded && reseed.names == [.linkSeed, .cleanUp])
        let held = Self.observed(recorded: "1", workingCopy: .generation(1), heldFrom: "2")
        #expect(try DeployPlanner.plan(held, DeployRequest(kind: .deploy)) == .held)
    }

    /// A switch from a copy to the link killed after its marker: with the link in place,
    /// whatever runs next (here the app's start with its copied seed, version 1) finishes
    /// it first, the copy kept as the previous generation and the link recorded at the
    /// killed run's version; killed before the link, a run that copies nothing puts the
    /// record back; a run that copies replaces the marker with its own.
    /// A seed file renamed in at the recorded version behind the link (a package's new
    /// content, not its new version): never `.nothing`. Refused as a new link's seed would
    /// be, saying the link serves it; otherwise the link step looks at it (the digest) and
    /// records it, the record otherwise as it was, the run `unchanged`.
    @Test func aSeedChangedAtTheRecordedVersionIsLookedAt() throws {
        let linked = DeployObservation.WorkingCopy.seedLink(Self.seedPath)
        var changed = Self.observed(recorded: "2", workingCopy: linked, recordedGeneration: nil, recordedLink: Self.seedPath)
        changed.readOnlySeed?.changedSinceLinked = true
        let plan = try DeployPlanner.plan(changed, DeployRequest(kind: .deploy))
        #expect(plan.action == .unchanged && plan.names == [.linkSeed, .cleanUp], "\(plan)")
        let link = try #require(plan.seedLink)
        #expect(link.seedChanged && link.alreadyLinked && link.keeps == nil && link.previous == .unchanged && link.target == Self.seedPath)
        var wal = changed
        wal.readOnlySeed?.inWALMode = true
        #expect(throws: DeployRefusal.readOnlySeedChangedBehindLink(.readOnlySeedInWALMode(Self.seedPath))) { try DeployPlanner.plan(wal, DeployRequest(kind: .deploy)) }
        var cut = changed
        cut.readOnlySeed?.declaredSize = 8192
        cut.readOnlySeed?.size = 4096
        #expect(throws: DeployRefusal.readOnlySeedChangedBehindLink(.readOnlySeedWrongSize(Self.seedPath, declared: 8192, size: 4096))) { try DeployPlanner.plan(cut, DeployRequest(kind: .deploy)) }
        // The same file: up to date, WAL or not (a new link refused it; a link in place is
        // judged on what changed).
        wal.readOnlySeed?.changedSinceLinked = false
        #expect(try DeployPlanner.plan(wal, DeployRequest(kind: .deploy)) == .nothing)
        // A new version renamed in: replaced, as ever, never the look of a changed seed.
        var upgrade = Self.observed(workingCopy: linked, recordedGeneration: nil, recordedLink: Self.seedPath)
        upgrade.readOnlySeed?.changedSinceLinked = true
        let replaced = try DeployPlanner.plan(upgrade, DeployRequest(kind: .deploy))
        #expect(replaced.action == .replaced && replaced.seedLink?.seedChanged == false)
    }

    @Test func aKilledSwitchIsFinishedOrUndoneByWhateverRunsNext() throws {
        let replaced = DeployRecord(version: DeployPlannerTests.version("1"), sha256: SHA256Digest(bytes: Array(repeating: 1, count: 32)), size: 1, deployedAt: "")
        var marker = DeployObservation.Interrupted(version: DeployPlannerTests.version("2"), generation: nil, replacing: replaced.version, replacingGeneration: 1)
        marker.replacingRecord = replaced
        marker.seedLink = Self.seedPath
        var linked = Self.observed(recorded: nil, current: "1", workingCopy: .seedLink(Self.seedPath), seed: nil)
        linked.interrupted = marker
        linked.generationFiles = [1]
        let finishing = try DeployPlanner.plan(linked, DeployRequest(kind: .deploy))
        #expect(finishing.finishesInterrupted && finishing.names == [.linkSeed, .cleanUp] && finishing.action == .replaced)
        let link = try #require(finishing.seedLink)
        #expect(link.target == Self.seedPath && link.alreadyLinked && link.keeps == .generation(1) && link.finishesKilledRun)
        #expect(link.previous == .record(replaced))
        // Killed after the copy became the previous generation: only the record is left.
        linked.generationFiles = []
        linked.previousExists = true
        let late = try #require(try DeployPlanner.plan(linked, DeployRequest(kind: .deploy)).seedLink)
        #expect(late.keeps == nil && late.previous == .record(replaced))

        var before = Self.observed(recorded: nil, current: "1", seed: nil)
        before.interrupted = marker
        let undo = try DeployPlanner.plan(before, DeployRequest(kind: .deploy))
        #expect(undo.names == [.reinstate, .cleanUp] && undo.undoesInterrupted, "\(undo.steps)")
        before.current = DeployPlannerTests.version("3")
        let upgrade = try DeployPlanner.plan(before, DeployRequest(kind: .deploy))
        #expect(upgrade.withdraw != nil && upgrade.withdraw?.seedLink == nil && upgrade.action == .replaced, "\(upgrade.steps)")
    }

    @Test(arguments: [
        (ReadOnlySeed(path: "/usr/share/levels/levels.sqlite.zst", compressed: true), DeployRefusal.readOnlyNeedsCopy("/usr/share/levels/levels.sqlite.zst")),
        (ReadOnlySeed(path: "levels.sqlite", unstable: "it is not an absolute path"), .readOnlySeedUnstable("levels.sqlite", "it is not an absolute path")),
        (ReadOnlySeed(path: seedPath, writableBy: "everyone"), .readOnlySeedWritable(seedPath, "everyone")),
        (ReadOnlySeed(path: seedPath, missing: true), .readOnlySeedMissing(seedPath)),
    ])
    func refusals(_ seed: ReadOnlySeed, _ refusal: DeployRefusal) {
        #expect(throws: refusal) { try DeployPlanner.plan(Self.observed(seed: seed), DeployRequest(kind: .deploy)) }
    }

    /// A seed shorter (or longer) than its header declares is refused as a copied deploy
    /// refuses it; a header whose page count SQLite would not trust declares nothing.
    @Test func aSeedOfAnotherSizeThanItsHeaderDeclaresIsRefused() throws {
        var seed = ReadOnlySeed(path: Self.seedPath)
        seed.declaredSize = 12288
        seed.size = 8192
        #expect(throws: DeployRefusal.readOnlySeedWrongSize(Self.seedPath, declared: 12288, size: 8192)) {
            try DeployPlanner.plan(Self.observed(seed: seed), DeployRequest(kind: .reseed))
        }
        seed.size = 12288
        #expect(try DeployPlanner.plan(Self.observed(seed: seed), DeployRequest(kind: .deploy)).seedLink?.target == Self.seedPath)
        seed.declaredSize = nil
        seed.size = 8192
        #expect(try DeployPlanner.plan(Self.observed(seed: seed), DeployRequest(kind: .deploy)).seedLink?.target == Self.seedPath)
    }

    @Test func backToACopyCarriesThePreviousGenerationAndKeepsIt() throws {
        var linked = Self.observed(current: "2", workingCopy: .seedLink(Self.seedPath), recordedGeneration: nil, recordedLink: Self.seedPath, previous: true, seed: nil)
        // No record of the previous generation: its app tables come across, nothing else
        // (no known base), and it stays whole.
        let unrecorded = try DeployPlanner.plan(linked, DeployRequest(kind: .deploy))
        #expect(unrecorded.names == [.stage, .check, .withdraw, .carry, .install, .record, .cleanUp])
        #expect(unrecorded.strategy == .swap && !unrecorded.keepsPrevious && !unrecorded.dropsPrevious && unrecorded.seedLink == nil)
        #expect(unrecorded.carriesPreviousGeneration)
        for case .carry(let carry) in unrecorded.steps {
            #expect(carry.appTables == .notInTheNewSeed && carry.merge == .off && carry.discards == .none)
        }
        // The copy the switch kept, recorded with its seed's tables and its base.
        let base = try SHA256Digest(hex: String(repeating: "b", count: 64))
        let previous = DeployRecord(version: try SeedVersion("1"), sha256: nil, size: 1, deployedAt: "2026-01-01T00:00:00Z", base: base, seedTables: ["levels"])
        linked.records = DeployObservation.Records(current: nil, previous: previous)
        linked.baseFiles.previousBase = true
        var request = DeployRequest(kind: .deploy)
        request.merges = true
        request.replacesEdits = true
        func carry(_ observed: DeployObservation, _ request: DeployRequest) throws -> PlannedStep.Carry? {
            for case .carry(let carry) in try DeployPlanner.plan(observed, request).steps { return carry }
            return nil
        }
        // A base not looked at (or not matching): merged without one, said so.
        #expect(try carry(linked, request) == PlannedStep.Carry(
            from: .previousGeneration, appTables: .notInTheOldSeed(["levels"]), merge: .merge, base: .missing("does not match the recorded seed"), discards: .unknown))
        linked.baseFiles.previousBaseMatchesRecord = true
        let plan = try DeployPlanner.plan(linked, request)
        #expect(plan.names == [.stage, .check, .withdraw, .carry, .install, .record, .cleanUp])
        #expect(plan.writerLockedSteps == [.carry, .install, .record])
        #expect(!plan.keepsPrevious && !plan.dropsPrevious, "the previous generation stays as it is")
        #expect(try carry(linked, request) == PlannedStep.Carry(
            from: .previousGeneration, appTables: .notInTheOldSeed(["levels"]), merge: .merge, base: .previous, discards: .againstBase))
        // Kept compressed (ext4, user mode): restored for the merge.
        linked.baseFiles = DeployObservation.BaseFiles()
        linked.baseFiles.previousBaseCompressed = true
        linked.baseFiles.previousBaseCompressedMatchesRecord = true
        #expect(try carry(linked, request)?.base == .previousRestored(base))
        // Merging off: the app's tables still come across; the edits are named.
        request.merges = false
        #expect(try carry(linked, request)?.merge == .off && carry(linked, request)?.discards == .againstBase)
        // An adopted copy kept as the previous generation has no known base either.
        request.merges = true
        linked.records.previous?.version = DeployRecord.adoptedVersion
        let adopted = try #require(try carry(linked, request))
        #expect(adopted.appTables == .notInTheNewSeed && adopted.merge == .off && adopted.discards == .none)
        linked.records.previous?.version = try SeedVersion("1")
        // Generations off: the previous generation stays all the same, the link there or removed.
        var off = request
        off.keepPrevious = false
        #expect(try !DeployPlanner.plan(linked, off).dropsPrevious)
        var sameVersion = linked
        sameVersion.recorded = sameVersion.current
        #expect(try DeployPlanner.plan(sameVersion, DeployRequest(kind: .deploy)).action == .replaced, "the switch alone is work")
        let rollback = try DeployPlanner.plan(linked, DeployRequest(kind: .rollback))
        #expect(rollback.action == .rolledBack && !rollback.names.contains(.carry) && rollback.dropsPrevious)
        // The link removed since it was recorded: the copy made in its place carries too.
        var removed = linked
        removed.workingCopy = .absent
        #expect(try carry(removed, request)?.from == .previousGeneration)
        #expect(try !DeployPlanner.plan(removed, off).dropsPrevious)
        // A file put in the link's place by hand (no record matches it): adopted, and the
        // previous generation, which holds what the user wrote before the link, kept as an
        // adopted copy instead of set aside.
        var replaced = linked
        replaced.workingCopy = .file
        replaced.recorded = nil
        let adopting = try DeployPlanner.plan(replaced, request)
        #expect(adopting.adopted && !adopting.carriesPreviousGeneration && adopting.keepsPrevious)
        for case .keepPrevious(let keep) in adopting.steps { #expect(keep.drop == .keepAsAdopted(stamp: request.stamp)) }
    }

    /// A switch back to a copy killed after its link switch is finished as it would have
    /// ended: the previous generation as it was, never recorded as the link's (it once
    /// recorded the read-only link's record for the copy kept before it).
    @Test func aKilledSwitchBackKeepsThePreviousGenerationAsItWas() throws {
        let link = DeployRecord(version: DeployPlannerTests.version("2"), sha256: nil, size: 1, deployedAt: "")
        var marker = DeployObservation.Interrupted(version: DeployPlannerTests.version("3"), generation: 1, replacing: link.version)
        marker.replacingRecord = link
        var switched = Self.observed(recorded: nil, current: "3", workingCopy: .generation(1), recordedGeneration: nil, recordedLink: Self.seedPath, previous: true, seed: nil)
        switched.interrupted = marker
        let plan = try DeployPlanner.plan(switched, DeployRequest(kind: .deploy))
        #expect(plan.finishesInterrupted && plan.names == [.record, .cleanUp], "\(plan.steps)")
        for case .record(let record) in plan.steps { #expect(record.previous == .unchanged) }
    }

    /// A switch of a regular file at the working-copy path (a database put there) to the
    /// link: its marker names the file it replaces. Killed once the link took the file's
    /// place, the finish makes the file's held name the previous generation, as the run
    /// would have, never the record's generation; it once kept it as an adopted copy,
    /// which no rollback restores. Already renamed, it is recorded as the previous one.
    @Test func aKilledSwitchOfAFileFinishesFromTheFileItsMarkerNames() throws {
        let switchFile = try DeployPlanner.plan(Self.observed(recorded: nil, current: "2", workingCopy: .file, recordedGeneration: nil), DeployRequest(kind: .deploy))
        #expect(switchFile.seedLink?.keeps == .file && switchFile.withdraw?.replacesFile == true)
        #expect(try DeployPlanner.plan(Self.observed(current: "2"), DeployRequest(kind: .deploy)).withdraw?.replacesFile == false)

        let held = "/data/.levels.sqlite.seeddb-x.old.tmp"
        var marker = DeployObservation.Interrupted(version: DeployPlannerTests.version("2"), generation: nil, replacing: nil, adopting: true)
        marker.seedLink = Self.seedPath
        marker.replacedAFile = true
        marker.heldReplacedFile = held
        // The record names a generation still there (a file put in its link's place).
        var killed = Self.observed(recorded: nil, current: "2", workingCopy: .seedLink(Self.seedPath), recordedGeneration: 1, previous: true)
        killed.generationFiles = [1]
        killed.interrupted = marker
        killed.heldCopies = [held]
        let request = DeployRequest(kind: .deploy, stamp: "20261128T000000Z")
        let finishing = try DeployPlanner.plan(killed, request)
        let link = try #require(finishing.seedLink)
        #expect(finishing.finishesInterrupted && finishing.adopted && link.keeps == .held(held) && link.finishesKilledRun)
        #expect(link.drop != nil && link.previous == .adopted, "\(link)")
        #expect(finishing.keepsHeldCopies.isEmpty, "the held file is the previous generation, not an adopted copy")

        // A held name that is not the file (its identity does not match): the previous
        // generation on disk is not taken for it; the held name is kept as an adopted copy.
        killed.interrupted?.heldReplacedFile = nil
        let unmatched = try DeployPlanner.plan(killed, request)
        #expect(unmatched.seedLink?.keeps == nil && unmatched.seedLink?.previous == .unchanged && unmatched.keepsHeldCopies.map(\.path) == [held])

        // Killed after the rename: the previous generation on disk is the file.
        killed.heldCopies = []
        let renamed = try #require(try DeployPlanner.plan(killed, request).seedLink)
        #expect(renamed.keeps == nil && renamed.previous == .adopted, "\(renamed)")
    }

    @Test(arguments: [
        ("/usr/share/levels/levels.sqlite", nil as String?),
        ("levels.sqlite", "it is not an absolute path"),
        ("/usr/share//levels.sqlite", "it has an empty component (`//` or a trailing `/`)"),
        ("/usr/share/levels/../levels.sqlite", "it has a `.` or `..` component"),
        ("/usr/share/./levels.sqlite", "it has a `.` or `..` component"),
    ])
    func stablePaths(_ path: String, _ reason: String?) {
        #expect(ReadOnlySeed.unstableReason(path) == reason)
    }

    @Test func whoCouldWrite() {
        // The app's user owns it: it may `chmod u+w` it, whatever its mode (root's bits decide).
        #expect(ReadOnlySeed.writer(mode: 0o444, ownerID: 1000, appUserID: 1000)?.contains("who may make it writable") == true)
        #expect(ReadOnlySeed.writer(mode: 0o444, ownerID: 0, appUserID: 0) == nil, "root's file, read-only by intent")
        #expect(ReadOnlySeed.writer(mode: 0o644, ownerID: 0, appUserID: 0)?.hasPrefix("its owner") == true)
        #expect(ReadOnlySeed.writer(mode: 0o644, ownerID: 0, appUserID: 1000) == nil, "root's file, the app another user")
        #expect(ReadOnlySeed.writer(mode: 0o644, ownerID: 0, appUserID: nil) == nil, "system mode: root's file")
        #expect(ReadOnlySeed.writer(mode: 0o644, ownerID: 1000, appUserID: 1000)?.hasPrefix("its owner") == true)
        #expect(ReadOnlySeed.writer(mode: 0o664, ownerID: 0, appUserID: 1000)?.hasPrefix("its group") == true)
        #expect(ReadOnlySeed.writer(mode: 0o446, ownerID: 0, appUserID: nil)?.hasPrefix("everyone") == true)
    }

    /// Who could put another file at the seed's path, through a directory on it.
    @Test func whoCouldReplace() {
        #expect(ReadOnlySeed.directoryWriter("/usr/share", mode: 0o755, ownerID: 0, entryOwnerID: 0, appUserID: 1000) == nil)
        #expect(ReadOnlySeed.directoryWriter("/usr/share", mode: 0o755, ownerID: 0, entryOwnerID: 0, appUserID: 0) == nil, "root's directories, a root app")
        #expect(ReadOnlySeed.directoryWriter("/opt/app", mode: 0o555, ownerID: 1000, entryOwnerID: 0, appUserID: 1000)?.hasPrefix("the app's user, uid 1000") == true)
        #expect(ReadOnlySeed.directoryWriter("/opt/app", mode: 0o775, ownerID: 0, entryOwnerID: 0, appUserID: nil)?.hasPrefix("its directory's group") == true)
        #expect(ReadOnlySeed.directoryWriter("/opt/app", mode: 0o777, ownerID: 0, entryOwnerID: 0, appUserID: 1000)?.hasPrefix("everyone") == true)
        // Sticky (`/tmp`): only an entry's owner may rename it.
        #expect(ReadOnlySeed.directoryWriter("/tmp", mode: 0o1777, ownerID: 0, entryOwnerID: 0, appUserID: 1000) == nil)
        #expect(ReadOnlySeed.directoryWriter("/tmp", mode: 0o1777, ownerID: 0, entryOwnerID: 0, appUserID: 0) == nil)
        #expect(ReadOnlySeed.directoryWriter("/tmp", mode: 0o1777, ownerID: 0, entryOwnerID: 1000, appUserID: 1000) == "the app's user, uid 1000, through its own entry in /tmp (mode 1777)")
        #expect(ReadOnlySeed.directoryWriter("/srv\nx", mode: 0o777, ownerID: 0, entryOwnerID: 0, appUserID: 1000) == #"everyone, through its directory "/srv\nx" (mode 0777)"#)
        #expect(ReadOnlySeed.directories(on: "/usr/share/app/words.sqlite").map { "\($0.directory)>\($0.entry)" }
            == ["/>/usr", "/usr>/usr/share", "/usr/share>/usr/share/app", "/usr/share/app>/usr/share/app/words.sqlite"])
    }
}
