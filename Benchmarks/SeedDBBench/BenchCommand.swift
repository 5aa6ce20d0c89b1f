import ArgumentParser

/// `seeddb-bench`: runs the benchmark and writes BENCHMARKS.md.
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seeddb-bench",
        abstract: "Measure SeedDB beside references from the same run, and write BENCHMARKS.md.",
        discussion: """
            Every figure is a median over repeated runs. Build in release mode first.

            Example:
              Scripts/build-release.sh seeddb-bench bench-hello && .build-release/release/seeddb-bench
              .build-release/release/seeddb-bench --only startup,throughput --runs 3
              .build-release/release/seeddb-bench --only space --output /tmp/space.md
            """)

    /// The figures `--only` may name.
    static let figures = ["startup", "process", "throughput", "reseed", "reflink", "hashing", "compressed", "live", "contention", "merge", "untouched", "space", "readonly"]

    @Option(name: .long, help: ArgumentHelp("Where to build the seeds and working copies.", valueName: "dir"))
    var scratch = "/tmp/seeddb-bench"

    @Option(name: .long, help: ArgumentHelp("The Markdown file to write.", valueName: "file"))
    var output = "BENCHMARKS.md"

    @Option(name: .long, help: ArgumentHelp("Runs per figure (at least 3).", valueName: "n"))
    var runs = 5

    @Option(name: .long, help: ArgumentHelp("Only these figures, comma-separated: \(figures.joined(separator: ", ")) (the file then holds only those).", valueName: "figures"))
    var only: String?

    func validate() throws {
        guard runs >= 3 else { throw ValidationError("--runs must be at least 3") }
        if let unknown = selected?.subtracting(Self.figures).sorted().first {
            throw ValidationError("--only: unknown figure \"\(unknown)\"; expected some of \(Self.figures.joined(separator: ", "))")
        }
    }

    private var selected: Set<String>? {
        only.map { Set($0.split(separator: ",").map(String.init)) }
    }

    func run() throws {
        var bench = SeedDBBench()
        bench.scratch = scratch
        bench.output = output
        bench.runs = runs
        bench.only = selected
        try bench.runAll()
    }
}
