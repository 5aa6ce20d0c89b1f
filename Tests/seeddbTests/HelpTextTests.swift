import Testing

/// Every command's `--help`, compared with the text checked in here (80 columns), as
/// swift-argument-parser's own examples do: a change to an option or its help shows up
/// in review, and stray escapes (`sets \\`) cannot slip in.
@Suite struct HelpTextTests {
    let cli = CLIHarness()

    @Test(arguments: HelpTextTests.expected.keys.sorted())
    func helpMatchesTheCheckedInText(_ command: String) throws {
        let arguments = (command.isEmpty ? [] : [command]) + ["--help"]
        let result = try cli.run(arguments, environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == HelpTextTests.expected[command], "seeddb \(arguments.joined(separator: " ")) differs from the checked-in text")
        #expect(!result.stdout.contains("\\\n"), "a line ends with a stray backslash")
    }

    @Test func everySubcommandHasACheckedInText() throws {
        let root = try cli.run(["--help"], environment: ["COLUMNS": "80"])
        let listed = root.stdout.split(separator: "\n").drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst()
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { $0 != "See" && $0 != "help" }
        #expect(Set(listed).isSubset(of: Set(HelpTextTests.expected.keys)), "\(listed)")
        #expect(listed.count == HelpTextTests.expected.count - 1)
    }

    @Test(arguments: ["status", "verify", "paths", "conflicts"])
    func inspectingCommandsListNoOptionTheyDoNotUse(_ command: String) throws {
        let help = try cli.run([command, "--help"], environment: ["COLUMNS": "80"]).stdout
        for option in ["--merge", "--preserve", "--owner", "--mode", "--sha256"] {
            #expect(!help.contains(option + " "), "\(command) --help lists \(option)")
            let given = try cli.run([command, option, "x"] + cli.seedFlags(1))
            #expect(given.status == 64 && given.stderr.contains("unknown option `\(option)`"), "\(command) \(option): \(given.stderr)")
        }
    }

    @Test func rollbackHelpDoesNotSayAVersionChangeRedeploys() throws {
        let help = try cli.run(["rollback", "--help"], environment: ["COLUMNS": "80"]).stdout
        #expect(!help.contains("redeploys"))
        #expect(!help.contains("--seed") && !help.contains("--version"))
    }

    @Test(arguments: HelpTextTests.expected.keys.sorted())
    func examplesAreNeverWrapped(_ command: String) throws {
        let help = try cli.run((command.isEmpty ? [] : [command]) + ["--help"], environment: ["COLUMNS": "80"]).stdout
        let example = help.components(separatedBy: "\n").drop { $0 != "Example:" }.dropFirst().prefix { !$0.isEmpty }
        for line in example {
            #expect(line.hasPrefix("  seeddb "), "a wrapped example line in \(command) --help: \(line)")
        }
    }

    static let expected: [String: String] = [
        "": #"""
OVERVIEW: Deploy versioned SQLite seed databases safely and fast.

Copies a read-only seed database an app ships to a writable working copy in the
XDG data or cache directory, on first run and whenever the version changes, and
remembers the deployed version in the app's settings file.

Describe the seeds with --manifest FILE, or one seed with --app, --seed and
--version.

Exit codes: 0 success, 64 bad usage (also an empty HOME where a default needs
it, or a wrong passphrase), 65 invalid seed, failed integrity check, a
signature refused or a merge refused, 66 seed, manifest, key or working copy
missing or unreadable, 73 cannot create the working copy or settings, 74 other
I/O error, 75 in use or lock wait timed out, 78 bad manifest or key, or a
preserved or merge table the seed lacks, 130 or 143 interrupted (SIGINT,
SIGTERM; nothing was changed). A name recorded for the other location, or
written in another Unicode normalization than a recorded one, is 64 from flags,
78 from a manifest.

USAGE: seeddb <subcommand>

OPTIONS:
  --version               Show the version of seeddb.
  -h, --help              Show help information.

SUBCOMMANDS:
  deploy                  Deploy each seed whose working copy is missing or
                          outdated.
  reseed                  Replace each working copy with its seed, whatever the
                          versions say.
  rollback                Restore the working copy the last replace kept, and
                          record its version.
  status                  Show each seed's current and recorded version and its
                          working copy's state.
  verify                  Run PRAGMA integrity_check on each seed and its
                          working copy.
  conflicts               List the conflicts of each seed's last merge of the
                          user's changes.
  paths                   Show the settings file and each seed's source and
                          working-copy path.
  maintain                VACUUM (or PRAGMA optimize) each working copy when
                          the last run is old enough.
  pack                    Build a seed database from SQL scripts, optionally
                          compressed, and record it in a manifest.
  purge                   Remove working copies, their sidecars, previous
                          generations, locks and settings.
  keygen                  Make a key pair for signing manifests, in minisign's
                          file formats.
  sign                    Sign a manifest with a secret key: writes
                          MANIFEST.minisig beside it.

  See 'seeddb help <subcommand>' for detailed help.

"""#,
        "deploy": #"""
OVERVIEW: Deploy each seed whose working copy is missing or outdated.

Does nothing (and costs almost nothing) when the recorded version matches and
the working copy exists. Otherwise copies the seed next to the working copy,
checks it, swaps it in atomically and records the new version. A manifest is
one release: every seed with work is staged and checked before any is
installed, and if one fails, no seed is changed.

Example:
  seeddb deploy --app com.example.levels --seed levels.sqlite --version 2
  seeddb deploy --manifest /usr/share/levels/seeds.json --json

USAGE: seeddb deploy <options>

OPTIONS:
  --manifest <file>       A JSON manifest listing the app's seeds.
  --app <id>              The app identifier: 1-128 of [A-Za-z0-9._-], not
                          starting with '.'.
  --seed <path>           The seed database the app ships.
  --version <string>      The version the app ships now; any change redeploys.
                          auto: the seed's SHA-256.
  --location <data|cache> Where the working copy lives: data (user data, the
                          default) or cache (regenerable). (values: data, cache)
  --name <file>           The working copy's file name (default: the seed's
                          file name).
  --sha256 <hex>          The seed's expected SHA-256; a mismatch refuses the
                          deploy.
  --preserve <table>      A table holding the user's own data, carried into
                          each new copy (repeatable).
  --merge <policy>        How the user's edits of the seed's rows meet each new
                          seed: user-wins (the default for data), seed-wins,
                          fail or off (the default for cache). With reseed: for
                          this reseed only. (values: off, seed-wins, user-wins,
                          fail)
  --merge-table <table=policy>
                          One table's merge policy, overriding --merge
                          (repeatable).
  --read-only             Deploy the seed as a symbolic link to the seed file,
                          with no copy; the app opens it read-only.
  --system                Use system locations (/var/lib/<app>,
                          /var/cache/<app>) for services and post-install
                          scripts.
  --root <dir>            With --system: a prefix for every system path, like
                          dpkg's --instdir.
  --owner <user[:group]>  Owner of the working copy, its directory, lock and
                          settings (a service account).
  --mode <octal>          Mode of the working copy, in octal, at most 0755 and
                          not group- or world-writable (default 0644 less the
                          umask).
  --strategy <auto|swap|live>
                          swap (atomic rename, refused while in use), live
                          (through SQLite, while in use) or auto (swap unless
                          in use). (values: auto, swap, live; default: auto)
  --integrity <none|quick|full>
                          Check the seed before swapping it in: none, quick
                          (quick_check) or full (integrity_check). (values:
                          none, quick, full; default: quick)
  --keep-previous <true|false>
                          Keep the replaced copy as the previous generation,
                          for rollback. (default: true)
  --wait <seconds>        Seconds to wait for another deploy or for apps to
                          release the database. (default: 5.0)
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  --trusted-key <file>    A minisign public key whose signed manifests are
                          trusted (repeatable); then only signed seeds deploy.
  --allow-downgrade       Deploy a signed manifest whose serial is lower than
                          the one deployed.
  --forget-signature      Leave signing on purpose: deploy what the pinned key
                          did not sign (unsigned too), and forget the pin.
  --dry-run               Say what would be done, and change nothing.
  -h, --help              Show help information.


"""#,
        "reseed": #"""
OVERVIEW: Replace each working copy with its seed, whatever the versions say.

Runs the same safe steps as deploy, and follows the seed's merge policy as a
deploy does: with user-wins (the default for data), what the user wrote is
merged into the fresh seed. --merge sets the policy of this reseed alone
(beside --manifest too, for the seeds it copies; refused when they are all
read-only): --merge off puts the seed's own rows back and names the tables
whose changes it replaced; the old copy is kept as the previous generation. A
manifest's seeds are reseeded as one release: all of them or none.

Example:
  seeddb reseed --app com.example.levels --seed levels.sqlite --version 2
  seeddb reseed --manifest /usr/share/levels/seeds.json --merge off

USAGE: seeddb reseed <options>

OPTIONS:
  --manifest <file>       A JSON manifest listing the app's seeds.
  --app <id>              The app identifier: 1-128 of [A-Za-z0-9._-], not
                          starting with '.'.
  --seed <path>           The seed database the app ships.
  --version <string>      The version the app ships now; any change redeploys.
                          auto: the seed's SHA-256.
  --location <data|cache> Where the working copy lives: data (user data, the
                          default) or cache (regenerable). (values: data, cache)
  --name <file>           The working copy's file name (default: the seed's
                          file name).
  --sha256 <hex>          The seed's expected SHA-256; a mismatch refuses the
                          deploy.
  --preserve <table>      A table holding the user's own data, carried into
                          each new copy (repeatable).
  --merge <policy>        How the user's edits of the seed's rows meet each new
                          seed: user-wins (the default for data), seed-wins,
                          fail or off (the default for cache). With reseed: for
                          this reseed only. (values: off, seed-wins, user-wins,
                          fail)
  --merge-table <table=policy>
                          One table's merge policy, overriding --merge
                          (repeatable).
  --read-only             Deploy the seed as a symbolic link to the seed file,
                          with no copy; the app opens it read-only.
  --system                Use system locations (/var/lib/<app>,
                          /var/cache/<app>) for services and post-install
                          scripts.
  --root <dir>            With --system: a prefix for every system path, like
                          dpkg's --instdir.
  --owner <user[:group]>  Owner of the working copy, its directory, lock and
                          settings (a service account).
  --mode <octal>          Mode of the working copy, in octal, at most 0755 and
                          not group- or world-writable (default 0644 less the
                          umask).
  --strategy <auto|swap|live>
                          swap (atomic rename, refused while in use), live
                          (through SQLite, while in use) or auto (swap unless
                          in use). (values: auto, swap, live; default: auto)
  --integrity <none|quick|full>
                          Check the seed before swapping it in: none, quick
                          (quick_check) or full (integrity_check). (values:
                          none, quick, full; default: quick)
  --keep-previous <true|false>
                          Keep the replaced copy as the previous generation,
                          for rollback. (default: true)
  --wait <seconds>        Seconds to wait for another deploy or for apps to
                          release the database. (default: 5.0)
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  --trusted-key <file>    A minisign public key whose signed manifests are
                          trusted (repeatable); then only signed seeds deploy.
  --allow-downgrade       Deploy a signed manifest whose serial is lower than
                          the one deployed.
  --forget-signature      Leave signing on purpose: deploy what the pinned key
                          did not sign (unsigned too), and forget the pin.
  --dry-run               Say what would be done, and change nothing.
  -h, --help              Show help information.


"""#,
        "rollback": #"""
OVERVIEW: Restore the working copy the last replace kept, and record its
version.

Each replace keeps the old working copy as one previous generation (unless
deploy --keep-previous false). Rollback swaps it back in atomically (or live,
while the database is in use) and consumes it; exits 66 when there is none
(from a manifest, a seed already rolled back from the version it ships is
held). What the user wrote since is carried into the restored copy: the app's
own tables, the --preserve tables and, with --merge, the user's edits. The
version rolled back from is then held: deploy leaves the copy alone until the
app ships another version, or reseed. Needs only the app and the working copy's
name.

Example:
  seeddb rollback --app com.example.levels --name levels.sqlite
  seeddb rollback --manifest /usr/share/levels/seeds.json

USAGE: seeddb rollback <options>

OPTIONS:
  --manifest <file>       A JSON manifest listing the app's seeds.
  --app <id>              The app identifier: 1-128 of [A-Za-z0-9._-], not
                          starting with '.'.
  --location <data|cache> Where the working copy lives: data (user data, the
                          default) or cache (regenerable). (values: data, cache)
  --name <file>           The working copy's file name (with --app).
  --preserve <table>      A table holding the user's own data, carried into
                          each new copy (repeatable).
  --merge <policy>        How the user's edits of the seed's rows meet each new
                          seed: user-wins (the default for data), seed-wins,
                          fail or off (the default for cache). With reseed: for
                          this reseed only. (values: off, seed-wins, user-wins,
                          fail)
  --merge-table <table=policy>
                          One table's merge policy, overriding --merge
                          (repeatable).
  --system                Use system locations (/var/lib/<app>,
                          /var/cache/<app>) for services and post-install
                          scripts.
  --root <dir>            With --system: a prefix for every system path, like
                          dpkg's --instdir.
  --owner <user[:group]>  Owner of the working copy, its directory, lock and
                          settings (a service account).
  --mode <octal>          Mode of the working copy, in octal, at most 0755 and
                          not group- or world-writable (default 0644 less the
                          umask).
  --strategy <auto|swap|live>
                          swap (atomic rename, refused while in use), live
                          (through SQLite, while in use) or auto (swap unless
                          in use). (values: auto, swap, live; default: auto)
  --integrity <none|quick|full>
                          Check the seed before swapping it in: none, quick
                          (quick_check) or full (integrity_check). (values:
                          none, quick, full; default: quick)
  --wait <seconds>        Seconds to wait for another deploy or for apps to
                          release the database. (default: 5.0)
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  --dry-run               Say what would be done, and change nothing.
  -h, --help              Show help information.


"""#,
        "status": #"""
OVERVIEW: Show each seed's current and recorded version and its working copy's
state.

States: up-to-date, not-installed (nothing recorded), outdated (the recorded
version differs), missing (recorded, but the working copy is gone), held
(rolled back: deploy leaves it at the version it restored until the app ships
another version, or reseed). A version deployed from a signed manifest shows
its key id and serial, and the key it pins. A manifest a deploy would refuse
for its signature, a read-only seed the app's user could write, or a directory
at <name>.conflicts.json where the deploy would merge, is reported with a
warning (and "refusal" in --json); the exit status stays 0. Changes nothing.

Example:
  seeddb status --manifest Seeds/v2/seeds.json --json

USAGE: seeddb status [--manifest <file>] [--app <id>] [--seed <path>] [--version <string>] [--location <data|cache>] [--name <file>] [--system] [--root <dir>] [--json] [--quiet] [--trusted-key <file> ...]

OPTIONS:
  --manifest <file>       A JSON manifest listing the app's seeds.
  --app <id>              The app identifier: 1-128 of [A-Za-z0-9._-], not
                          starting with '.'.
  --seed <path>           The seed database the app ships.
  --version <string>      The version the app ships now; any change redeploys.
                          auto: the seed's SHA-256.
  --location <data|cache> Where the working copy lives: data (user data, the
                          default) or cache (regenerable). (values: data, cache)
  --name <file>           The working copy's file name (default: the seed's
                          file name).
  --system                Use system locations (/var/lib/<app>,
                          /var/cache/<app>) for services and post-install
                          scripts.
  --root <dir>            With --system: a prefix for every system path, like
                          dpkg's --instdir.
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  --trusted-key <file>    A minisign public key whose signed manifests are
                          trusted (repeatable); then only signed seeds deploy.
  -h, --help              Show help information.


"""#,
        "verify": #"""
OVERVIEW: Run PRAGMA integrity_check on each seed and its working copy.

Prints one line per seed with the first problem found (all of them with
--verbose, or in --json as lists). When keys are trusted (--trusted-key, or
/etc/seeddb/keys/<app> with --system) or the record pins one, also checks the
manifest's signature and the seed's SHA-256 against it: what a deploy would
refuse is a warning, "refusal" in --json, and exit 65. A read-only seed the
app's user could write (or replace through a directory on its path) is refused
so too, with exit 73. Exits 65 when a seed or working copy is damaged, 66 when
a seed file is not there or a working copy recorded as deployed is missing. A
working copy never deployed (nothing recorded) is reported as "not deployed"
and is not a failure. Changes nothing.

Example:
  seeddb verify --manifest Seeds/v2/seeds.json

USAGE: seeddb verify [--manifest <file>] [--app <id>] [--seed <path>] [--version <string>] [--location <data|cache>] [--name <file>] [--system] [--root <dir>] [--json] [--quiet] [--trusted-key <file> ...] [--verbose]

OPTIONS:
  --manifest <file>       A JSON manifest listing the app's seeds.
  --app <id>              The app identifier: 1-128 of [A-Za-z0-9._-], not
                          starting with '.'.
  --seed <path>           The seed database the app ships.
  --version <string>      The version the app ships now; any change redeploys.
                          auto: the seed's SHA-256.
  --location <data|cache> Where the working copy lives: data (user data, the
                          default) or cache (regenerable). (values: data, cache)
  --name <file>           The working copy's file name (default: the seed's
                          file name).
  --system                Use system locations (/var/lib/<app>,
                          /var/cache/<app>) for services and post-install
                          scripts.
  --root <dir>            With --system: a prefix for every system path, like
                          dpkg's --instdir.
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  --trusted-key <file>    A minisign public key whose signed manifests are
                          trusted (repeatable); then only signed seeds deploy.
  --verbose               List every problem found, not just the first.
  -h, --help              Show help information.


"""#,
        "conflicts": #"""
OVERVIEW: List the conflicts of each seed's last merge of the user's changes.

A merge (a seed with "merge" in its manifest, or --merge) keeps its conflicts
in <name>.conflicts.json beside the working copy until the next merge (a
rollback that does not merge removes it): the table, the row's key, the column
(none for a whole row), the base, user and seed values, and which side was kept
(none after a refused "fail" merge). Says "no merge has run" when there is
none. A damaged file is an error that names it (exit 65); a directory there is
one that says to move it away (exit 73, as a merging deploy refuses it).
Changes nothing.

Example:
  seeddb conflicts --manifest Seeds/v2/seeds.json --json
  seeddb conflicts --app com.example.levels --name levels.sqlite

USAGE: seeddb conflicts [--manifest <file>] [--app <id>] [--location <data|cache>] [--name <file>] [--system] [--root <dir>] [--json] [--quiet]

OPTIONS:
  --manifest <file>       A JSON manifest listing the app's seeds.
  --app <id>              The app identifier: 1-128 of [A-Za-z0-9._-], not
                          starting with '.'.
  --location <data|cache> Where the working copy lives: data (user data, the
                          default) or cache (regenerable). (values: data, cache)
  --name <file>           The working copy's file name (with --app).
  --system                Use system locations (/var/lib/<app>,
                          /var/cache/<app>) for services and post-install
                          scripts.
  --root <dir>            With --system: a prefix for every system path, like
                          dpkg's --instdir.
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  -h, --help              Show help information.


"""#,
        "paths": #"""
OVERVIEW: Show the settings file and each seed's source and working-copy path.

Resolves $XDG_DATA_HOME, $XDG_CACHE_HOME and $XDG_CONFIG_HOME as the XDG Base
Directory spec says (unset, empty or relative values fall back to
~/.local/share, ~/.cache and ~/.config). Changes nothing.

Example:
  seeddb paths --app com.example.levels --seed levels.sqlite --version 1 --json

USAGE: seeddb paths [--manifest <file>] [--app <id>] [--seed <path>] [--version <string>] [--location <data|cache>] [--name <file>] [--system] [--root <dir>] [--json] [--quiet]

OPTIONS:
  --manifest <file>       A JSON manifest listing the app's seeds.
  --app <id>              The app identifier: 1-128 of [A-Za-z0-9._-], not
                          starting with '.'.
  --seed <path>           The seed database the app ships.
  --version <string>      The version the app ships now; any change redeploys.
                          auto: the seed's SHA-256.
  --location <data|cache> Where the working copy lives: data (user data, the
                          default) or cache (regenerable). (values: data, cache)
  --name <file>           The working copy's file name (default: the seed's
                          file name).
  --system                Use system locations (/var/lib/<app>,
                          /var/cache/<app>) for services and post-install
                          scripts.
  --root <dir>            With --system: a prefix for every system path, like
                          dpkg's --instdir.
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  -h, --help              Show help information.


"""#,
        "maintain": #"""
OVERVIEW: VACUUM (or PRAGMA optimize) each working copy when the last run is
old enough.

Records the time of the last run in the settings store and skips the work until
--every DAYS have passed (0 runs it now). Waits while the database is in use,
then exits 75.

Example:
  seeddb maintain --manifest /usr/share/levels/seeds.json --every 7
  seeddb maintain --app com.example.levels --name levels.sqlite --every 0

USAGE: seeddb maintain <options>

OPTIONS:
  --manifest <file>       A JSON manifest listing the app's seeds.
  --app <id>              The app identifier: 1-128 of [A-Za-z0-9._-], not
                          starting with '.'.
  --location <data|cache> Where the working copy lives: data (user data, the
                          default) or cache (regenerable). (values: data, cache)
  --name <file>           The working copy's file name (with --app).
  --system                Use system locations (/var/lib/<app>,
                          /var/cache/<app>) for services and post-install
                          scripts.
  --root <dir>            With --system: a prefix for every system path, like
                          dpkg's --instdir.
  --owner <user[:group]>  Owner of the working copy, its directory, lock and
                          settings (a service account).
  --mode <octal>          Mode of the working copy, in octal, at most 0755 and
                          not group- or world-writable (default 0644 less the
                          umask).
  --wait <seconds>        Seconds to wait for another deploy or for apps to
                          release the database. (default: 5.0)
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  --dry-run               Say what would be done, and change nothing.
  --every <days>          Run only when the last run is at least this many days
                          old (default 7; 0 runs now).
  --policy <vacuum|optimize>
                          vacuum (rebuild the file) or optimize (refresh
                          planner statistics). (values: vacuum, optimize;
                          default: vacuum)
  -h, --help              Show help information.


"""#,
        "pack": #"""
OVERVIEW: Build a seed database from SQL scripts, optionally compressed, and
record it in a manifest.

Runs the scripts in order into a temporary database beside --output (creating
its directory if needed), sets journal_mode=DELETE, runs VACUUM and
quick_check, compresses it (zstd is the recommended codec: it decompresses
about 7x faster than gzip at a similar ratio), and renames it into place. With
--manifest, adds or updates that seed's entry (version, sha256 of the database
bytes, and --location); a new manifest needs --app. A pack that fails leaves
nothing behind: no output, no directory it created, the manifest and its
signature as they were. With --sign, signs the manifest written (as seeddb sign
does); --serial sets its release number. The same scripts and SQLite version
give the same bytes.

Example:
  seeddb pack v2.sql --output levels.sqlite --version 2 --manifest seeds.json
  seeddb pack schema.sql data.sql --output levels.sqlite.zst
  seeddb pack v3.sql --output v3.db --version 3 --manifest m.json --sign k.key

USAGE: seeddb pack <sql-file> ... --output <seed> [--version <string>] [--manifest <file>] [--app <id>] [--location <data|cache>] [--compress <zstd|gzip|none>] [--serial <n>] [--sign <key-file>] [--json] [--quiet]

ARGUMENTS:
  <sql-file>              SQL scripts, run in order.

OPTIONS:
  --output <seed>         The seed file to write (not one of the scripts).
  --version <string>      The version to record in the manifest (with
                          --manifest, which needs it).
  --manifest <file>       A JSON manifest listing the app's seeds.
  --app <id>              The app identifier: 1-128 of [A-Za-z0-9._-], not
                          starting with '.'.
  --location <data|cache> The manifest entry's location: data (the default, no
                          key written) or cache. (values: data, cache)
  --compress <zstd|gzip|none>
                          Compress the seed: zstd or gzip (default: from
                          --output's .zst or .gz suffix, else none). (values:
                          none, zstd, gzip)
  --serial <n>            Set the manifest's serial, the release number a
                          signed manifest carries.
  --sign <key-file>       Sign the manifest written with this secret key
                          (MANIFEST.minisig; see sign).
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  -h, --help              Show help information.


"""#,
        "purge": #"""
OVERVIEW: Remove working copies, their sidecars, previous generations, locks
and settings.

For a package's postrm purge, when the seeds themselves are already gone: give
the app and the working-copy names (or a manifest, if it still exists). The
settings file is removed once it holds nothing else, and the app's directories
once they are empty. Every working copy is checked, then locked, before
anything is removed: when one is refused (a directory at its path or at
<name>.conflicts.json), in use, or locked by another run past --wait (exit 75),
nothing is removed (a working copy in WAL mode locked before it is left in
rollback-journal mode). With --orphans, purges instead the working copies
recorded for the manifest's app that the manifest no longer lists (a renamed
seed file), and leaves its seeds alone.

Example:
  seeddb purge --system --app com.example.levels --name levels.sqlite
  seeddb purge --orphans --manifest /usr/share/levels/seeds.json --dry-run

USAGE: seeddb purge <options>

OPTIONS:
  --manifest <file>       A JSON manifest listing the app's seeds.
  --app <id>              The app identifier: 1-128 of [A-Za-z0-9._-], not
                          starting with '.'.
  --name <file>           A working-copy file name to purge (repeatable).
  --location <data|cache> Where the working copies live: data (the default) or
                          cache. (values: data, cache)
  --system                Use system locations (/var/lib/<app>,
                          /var/cache/<app>) for services and post-install
                          scripts.
  --root <dir>            With --system: a prefix for every system path, like
                          dpkg's --instdir.
  --owner <user[:group]>  Owner of the working copy, its directory, lock and
                          settings (a service account).
  --mode <octal>          Mode of the working copy, in octal, at most 0755 and
                          not group- or world-writable (default 0644 less the
                          umask).
  --wait <seconds>        Seconds to wait for another deploy or for apps to
                          release the database. (default: 5.0)
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  --dry-run               Say what would be removed, and remove nothing.
  --orphans               Purge what is recorded for the manifest's app but no
                          longer in it (with --manifest).
  --adopted               Remove only the adopted copies (databases SeedDB
                          found with no record and kept), nothing else.
  -h, --help              Show help information.


"""#,
        "keygen": #"""
OVERVIEW: Make a key pair for signing manifests, in minisign's file formats.

Writes the public key (ship it: --trusted-key, or /etc/seeddb/keys/<app>/ for
--system) and the secret key (mode 0600), encrypted with a passphrase read from
$SEEDDB_PASSPHRASE or asked twice on the terminal, unless --unencrypted. Never
overwrites a file. The keys work with minisign, and minisign's keys with
seeddb.

Example:
  seeddb keygen --public-key levels.pub --secret-key ~/.minisign/levels.key

USAGE: seeddb keygen --public-key <file> --secret-key <file> [--unencrypted] [--json] [--quiet]

OPTIONS:
  --public-key <file>     Where to write the public key.
  --secret-key <file>     Where to write the secret key.
  --unencrypted           Do not encrypt the secret key (for a key kept in a CI
                          secret store or a demo).
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  -h, --help              Show help information.


"""#,
        "sign": #"""
OVERVIEW: Sign a manifest with a secret key: writes MANIFEST.minisig beside it.

The signature is minisign's (check it with minisign -Vm MANIFEST -p KEY.pub);
its trusted comment names the app and the manifest's serial. Every seed in the
manifest must have a sha256 (exit 78 otherwise): the signature covers the seeds
through them. Raise the manifest's "serial" with each release: a deploy refuses
a lower serial than it recorded. Warns (and still signs) when "expires" is past
or within 7 days, and when "serial" is not higher than the signature it
replaces says. The passphrase comes from $SEEDDB_PASSPHRASE or the terminal.

Example:
  seeddb sign --key ~/.minisign/levels.key Seeds/v2/seeds.json

USAGE: seeddb sign <manifest> --key <file> [--prehash] [--json] [--quiet]

ARGUMENTS:
  <manifest>              The manifest to sign.

OPTIONS:
  --key <file>            The secret key (seeddb keygen's or minisign -G's).
  --prehash               Sign the manifest's BLAKE2b-512 (minisign's default
                          "ED" form) instead of its bytes ("Ed").
  --json                  Print one JSON object on standard output.
  -q, --quiet             Print nothing on success; warnings and errors still
                          go to standard error.
  -h, --help              Show help information.


"""#,
    ]
}
