// swift-tools-version:6.1
import PackageDescription

// Linux only, as the README says: SeedDB relies on Linux system calls (copy_file_range,
// FICLONE, open-file-description locks) and Debian's SQLite, zlib and libzstd.
let package = Package(
    name: "SeedDB",
    products: [
        .library(name: "SeedDB", targets: ["SeedDB"]),
        .executable(name: "seeddb", targets: ["seeddb"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // `swift package generate-documentation --target SeedDB`: the library's DocC reference.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Thin C wrappers for Linux calls the Glibc overlay hides (copy_file_range, FICLONE, OFD locks),
        // SQLite's process-wide memory statistics (sqlite3_config is C-variadic), and the few libzstd
        // declarations its run-time loading needs.
        .target(name: "CSeedDBSystem", linkerSettings: [.linkedLibrary("sqlite3")]),
        // Debian's zlib, for gzip seeds. (Zstandard is loaded at run time: see ZstdLibrary.swift.)
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // Pure: seed description, versions, the deploy decision, path rules. No imports, no I/O.
        .target(name: "SeedDBCore"),
        // Effects: file system, locks, settings store, SQLite (through GRDB), the deployer.
        .target(
            name: "SeedDB",
            dependencies: [
                "SeedDBCore",
                "CSeedDBSystem",
                "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The CLI: parsing, printing, exit codes.
        .executableTarget(
            name: "seeddb",
            dependencies: [
                "SeedDB",
                "CSeedDBSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            // SwiftPM links executables with --export-dynamic: every public symbol of every
            // module linked in (about 15,000) lands in the dynamic symbol table, which the
            // Swift runtime's start-up `dladdr` then scans on every run (BENCHMARKS.md,
            // startup as a process). Nothing loads the tool as a library.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))]
        ),
        // The level-loading demo app: deploy at startup, then cached prepared statements.
        .executableTarget(
            name: "levels-demo",
            dependencies: [
                "SeedDB",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Seeds/Demo"
        ),
        // Benchmarks: `Scripts/build-release.sh seeddb-bench bench-hello && .build-release/release/seeddb-bench` (see BENCHMARKS.md).
        .executableTarget(
            name: "seeddb-bench",
            dependencies: [
                "SeedDB",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/SeedDBBench"
        ),
        // The reference for the whole-process startup figure: a Foundation hello world.
        .executableTarget(name: "bench-hello", path: "Benchmarks/Hello"),
        // What every test target shares: temporary directories, the demo seeds, the
        // reliability log (as swift-argument-parser's ArgumentParserTestHelpers).
        .target(name: "SeedDBTestSupport", path: "Tests/SeedDBTestSupport"),
        .testTarget(name: "SeedDBCoreTests", dependencies: ["SeedDBCore"]),
        // The simulator: the real planner and executor over an in-memory file system and
        // database model, every state × command × crash point, then seeded random histories.
        .testTarget(
            name: "SeedDBSimulationTests",
            dependencies: [
                "SeedDB",
                "SeedDBTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tests/SeedDBSimulation"
        ),
        .testTarget(
            name: "SeedDBTests",
            dependencies: [
                "SeedDB",
                "SeedDBTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "seeddbTests",
            dependencies: [
                "seeddb",
                "levels-demo",
                "SeedDB",
                "SeedDBTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // Python clients the real-client suite runs as separate processes, by path.
            exclude: ["Clients"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
