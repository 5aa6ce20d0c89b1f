import PropertyBased
import SeedDBCore
import Testing

/// Names are matched as the file system matches them: byte for byte, never by Swift's
/// canonical equivalence (`é` against `e` + U+0301, `Å` against U+212B ANGSTROM SIGN).
@Suite struct FileNameBytesTests {
    /// Pieces whose joins are canonically equivalent in more than one way.
    static let pieces = ["e", "\u{301}", "\u{E9}", "A", "\u{30A}", "\u{C5}", "\u{212B}", ".", "v", "0", "7", "-wal", "\u{1F600}"]
    static let names = Gen<String?>.element(of: pieces).array(of: 0...6).map { $0.compactMap { $0 }.joined() }

    @Test func everyTestIsTheTestOfTheBytes() async {
        await propertyCheck(count: 600, input: Self.names, Self.names) { name, other in
            let (bytes, otherBytes) = (Array(name.utf8), Array(other.utf8))
            #expect(name.hasBytePrefix(other) == bytes.starts(with: otherBytes))
            #expect(name.hasByteSuffix(other) == bytes.reversed().starts(with: otherBytes.reversed()))
            #expect(name.hasSameBytes(as: other) == (bytes == otherBytes))
            #expect((other + name).removingBytePrefix(other).map { Array($0.utf8) } == bytes)
            #expect((name + other).removingByteSuffix(other).map { Array($0.utf8) } == bytes)
            #expect([name: 1].lookalikeKey(of: other).map { Array($0.utf8) } == (name == other && bytes != otherBytes ? bytes : nil))
        }
    }

    static let paths = SeedPaths(
        app: try! AppIdentifier("com.example.levels"), name: try! SeedName("\u{E9}.sqlite"), location: .data,
        directories: XDGDirectories(dataHome: "/d", cacheHome: "/c", configHome: "/s"))

    @Test func aGenerationNumberReadsBackAsWritten() async {
        await propertyCheck(count: 500, input: Gen.int(in: 1...999_999_999_999_999_999)) { number in
            #expect(Self.paths.generationNumber(of: Self.paths.generationName(number)) == number)
        }
    }

    @Test(arguments: [
        "\u{E9}.sqlite.v", "\u{E9}.sqlite.v0", "\u{E9}.sqlite.v01", "\u{E9}.sqlite.v1a", "\u{E9}.sqlite.v1-wal",
        "\u{E9}.sqlite.v1234567890123456789", "e\u{301}.sqlite.v1", "\u{E9}.sqlite.v\u{661}", "\u{E9}.sqlite.adopted-1",
    ])
    func whatIsNotAGenerationOfThisWorkingCopy(_ name: String) {
        #expect(Self.paths.generationNumber(of: name) == nil)
    }

    /// Every name a run gives an adopted copy (its stamp, a counter from 2 for a second
    /// copy in the same second) reads back as that stamp, any year the clock says.
    @Test func anAdoptedCopysStampReadsBackAsWritten() async {
        await propertyCheck(count: 500, input: Gen.int64(in: -62_135_596_800 * 2...253_402_300_799 * 2), Gen.int(in: 1...999_999)) { seconds, counter in
            let stamp = UTCTimestamp.basic(secondsSinceEpoch: seconds) + (counter == 1 ? "" : "-\(counter)")
            #expect(Self.paths.adoptedCopyStamp(of: Self.paths.name.rawValue + ".adopted-" + stamp) == stamp)
        }
    }

    /// A user's own files after `.adopted-` are not SeedDB's: `purge` and `status` leave
    /// them alone.
    @Test(arguments: [
        "mine", "20261126T071500Z.bak", "20261126T071500Z-1", "20261126T071500Z-02", "20261126T071500Z-", "20261126T071500Z-2x",
        "2026T071500Z", "20261126T0715Z", "20261126T071500", "20261126t071500Z", "-20261126T071500Z-wal", "20261126T071500Z-2-wal",
        "2026112aT071500Z", "+20261126T071500Z", "--20261126T071500Z", "20261126T071500ZZ", "20261126TT071500Z",
    ])
    func whatIsNotAnAdoptedCopyOfThisWorkingCopy(_ stamp: String) {
        #expect(Self.paths.adoptedCopyStamp(of: "\u{E9}.sqlite.adopted-" + stamp) == nil)
    }

    /// No working-copy name SeedDB accepts is the name of a file SeedDB keeps beside
    /// another working copy in the same directory: `purge` or a rotation of one seed never
    /// takes another's working copy for its own generation, base or adopted copy.
    @Test func noNameIsAnotherWorkingCopysFile() async {
        let stems = Gen<String?>.element(of: ["levels", ".sqlite", "\u{E9}", " ", "v", "1", "-", "x"]).array(of: 1...4).map { $0.compactMap { $0 }.joined() }
        await propertyCheck(count: 300, input: stems, Gen.int(in: 1...999_999), Gen.int64(in: 0...4_102_444_800)) { stem, number, seconds in
            guard let name = try? SeedName(stem) else { return }
            let paths = SeedPaths(app: try! AppIdentifier("a"), name: name, location: .data, directories: XDGDirectories(dataHome: "/d", cacheHome: "/c", configHome: "/s"))
            let stamp = UTCTimestamp.basic(secondsSinceEpoch: seconds)
            let files = [
                paths.generationName(number), paths.lockFile, paths.previousGeneration, paths.base, paths.previousBase,
                paths.previousBaseCompressed, paths.conflictsFile, paths.adoptedCopy(stamp), paths.adoptedCopy(stamp + "-\(number + 1)"),
            ].map { $0.split(separator: "/").last.map(String.init) ?? $0 }
            for file in files + files.flatMap({ file in SeedPaths.sqliteSidecarSuffixes.map { file + $0 } }) + SeedPaths.sqliteSidecarSuffixes.map({ name.rawValue + $0 }) {
                #expect((try? SeedName(file)) == nil, "\(file), a file of \(name.rawValue)'s, is accepted as a working copy's name")
            }
        }
    }

    @Test func adoptedCopiesAndSidecarsAreMatchedByBytes() {
        #expect(Self.paths.adoptedCopyStamp(of: "\u{E9}.sqlite.adopted-20261126T071500Z") == "20261126T071500Z")
        #expect(Self.paths.adoptedCopyStamp(of: "e\u{301}.sqlite.adopted-20261126T071500Z") == nil)
        #expect(Self.paths.adoptedCopyStamp(of: "\u{E9}.sqlite.adopted-20261126T071500Z-wal") == nil)
        #expect(Self.paths.adoptedCopyStamp(of: "\u{E9}.sqlite.adopted-") == nil)
        #expect(SeedPaths.databaseName(of: "\u{E9}.sqlite.v2-journal") == "\u{E9}.sqlite.v2")
        #expect(SeedPaths.databaseName(of: "\u{E9}.sqlite.v2") == "\u{E9}.sqlite.v2")
    }

    /// A sidecar's database is its name with `-wal`, `-shm` and `-journal` taken off its
    /// end, in that order, each once, by bytes; any other name is its own (the listing
    /// takes a name ending in neither `l` nor `m` for its own without looking further).
    @Test(arguments: [
        ("levels.sqlite.v2-wal", "levels.sqlite.v2"), ("levels.sqlite.v2-shm", "levels.sqlite.v2"),
        ("levels.sqlite.v2-journal", "levels.sqlite.v2"), ("levels.sqlite.previous-shm", "levels.sqlite.previous"),
        ("x-wal-shm", "x-wal"), ("x-shm-wal", "x"), ("x.v1-journal-wal", "x.v1"), ("x-wal-journal", "x-wal"),
        ("-shm", ""), ("-wal", ""), ("shm", "shm"), ("l", "l"), ("m", "m"), ("", ""),
        ("levels.sqlite.v2-WAL", "levels.sqlite.v2-WAL"), ("levels.sqlite.v2-sh\u{6D}", "levels.sqlite.v2"),
        ("\u{E9}-shm", "\u{E9}"), ("levels.sqlite", "levels.sqlite"), ("levels.sqlite.v2-jour", "levels.sqlite.v2-jour"),
    ])
    func aSidecarsDatabaseIsItsNameWithoutTheSuffix(name: String, database: String) {
        #expect(SeedPaths.databaseName(of: name).utf8.elementsEqual(database.utf8), "\(name)")
    }
}
