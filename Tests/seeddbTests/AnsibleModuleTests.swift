import Foundation
import Testing

/// The Ansible module `seeddb.seeddb.seeddb` (`contrib/ansible`), run by a real
/// `ansible-playbook` against localhost with the built `seeddb`.
@Suite(.serialized, .enabled(if: AnsibleCore.python3 != nil, "python3 is missing: .ci/run installs it"))
struct AnsibleModuleTests {
    let cli = CLIHarness()

    /// A play that runs the module with `arguments` (inlined as JSON, which YAML reads as
    /// it is), its result written to `result` as JSON, also when it fails.
    static func playbook(_ arguments: [String: Any], result: String) throws -> String {
        let inline = String(decoding: try JSONSerialization.data(withJSONObject: arguments, options: [.sortedKeys]), as: UTF8.self)
        return """
            - hosts: localhost
              gather_facts: false
              tasks:
                - name: Run seeddb
                  seeddb.seeddb.seeddb: \(inline)
                  register: deployed
                  ignore_errors: true
                - name: Write its result
                  ansible.builtin.copy:
                    content: "{{ deployed | to_json }}"
                    dest: "\(result)"
                  check_mode: false
                  diff: false
            """
    }

    /// What `ansible-playbook` produced: its exit status, the module's result and the output.
    struct PlayResult {
        var status: Int32
        var task: [String: Any]
        var output: String

        /// The task's warnings, as Ansible collected them.
        var warnings: [String] { task["warnings"] as? [String] ?? [] }
    }

    /// Runs the module with `seed` and `version` (and more `arguments`) against localhost,
    /// with more options (`--check`, `--diff`), in the harness's XDG directories.
    func play(seed: String, version: String, _ options: [String] = [], arguments: [String: Any] = [:]) throws -> PlayResult {
        try play(["app": cli.app, "seed": seed, "version": version].merging(arguments) { $1 }, options)
    }

    /// Runs the module with `arguments` (the built `seeddb` as its executable, unless they name one) against
    /// localhost, with more options (`--check`, `--diff`), in the harness's XDG directories.
    func play(_ arguments: [String: Any], _ options: [String] = []) throws -> PlayResult {
        try #require(AnsibleCore.venvProblem == nil, "\(AnsibleCore.venvProblem ?? "")")
        let playbook = cli.root + "/site.yml"
        let resultFile = cli.root + "/result.json"
        try Data(try Self.playbook(["executable": CLIHarness.binary].merging(arguments) { $1 }, result: resultFile).utf8).write(to: URL(fileURLWithPath: playbook))
        try? FileManager.default.removeItem(atPath: resultFile)
        try FileManager.default.createDirectory(atPath: cli.root + "/home", withIntermediateDirectories: true)
        let result = AnsibleCore.run(
            [AnsibleCore.venv + "/bin/ansible-playbook", "-i", "localhost,", "-c", "local"] + options + [playbook],
            environment: AnsibleCore.environment(cli), timeout: 120)
        let written = try #require(cli.bytes(resultFile), "no result: \(result.stdout) \(result.stderr)")
        let task = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        return PlayResult(status: result.status, task: task, output: result.stdout + result.stderr)
    }

    /// `--diff` of a purge of the adopted copies only said the seed went from `deployed`
    /// to `none`, though its record and working copy stay (found by a contract probe). It
    /// names the adopted copies removed.
    @Test
    func theDiffOfAnAdoptedPurgeNamesTheCopiesNotTheSeed() throws {
        try FileManager.default.createDirectory(atPath: cli.appData, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: DemoSeeds.v1, toPath: cli.workingCopy)
        #expect(try play(seed: DemoSeeds.v1, version: "1").status == 0)
        #expect(try play(seed: DemoSeeds.v2, version: "2").status == 0)
        let adopted = cli.list(cli.appData).filter { $0.contains(".adopted-") }
        try #require(adopted.count == 1, "\(cli.list(cli.appData))")
        let purge = try play(["app": cli.app, "name": "levels.sqlite", "command": "purge", "adopted": true], ["--diff"])
        #expect(purge.status == 0, "\(purge.output)")
        let diff = try #require(purge.task["diff"] as? [String: Any], "\(purge.task)")
        #expect(diff["before"] as? String == "levels.sqlite: adopted copies: \(adopted[0])\n", "\(diff)")
        #expect(diff["after"] as? String == "levels.sqlite: adopted copies: none\n", "\(diff)")
        #expect(FileManager.default.fileExists(atPath: cli.workingCopy))
    }

    /// `seeddb` not in `PATH`: the task failed with Ansible's own message and none of the
    /// fields documented as returned always (`held`, `held_seeds`, `seeds`, `rc`). It fails
    /// with them, `rc` 127, and SeedDB's words.
    @Test
    func aMissingSeeddbFailsWithTheFieldsReturnedAlways() throws {
        let missing = try play(["app": cli.app, "seed": DemoSeeds.v1, "version": "1", "executable": "seeddb-not-installed-here"])
        #expect(missing.task["failed"] as? Bool == true, "\(missing.task)")
        #expect(missing.task["rc"] as? Int == 127, "\(missing.task)")
        #expect(missing.task["held"] as? Bool == false, "\(missing.task)")
        #expect((missing.task["held_seeds"] as? [Any])?.isEmpty == true && (missing.task["seeds"] as? [Any])?.isEmpty == true, "\(missing.task)")
        #expect((missing.task["msg"] as? String)?.contains("seeddb not found: \"seeddb-not-installed-here\" is not in PATH") == true, "\(missing.task)")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
        // A path that names nothing: the same.
        let absent = try play(["app": cli.app, "seed": DemoSeeds.v1, "version": "1", "executable": cli.root + "/bin/seeddb"])
        #expect(absent.task["rc"] as? Int == 127 && absent.task["held"] as? Bool == false, "\(absent.task)")
        #expect((absent.task["msg"] as? String)?.contains("is not an executable file") == true, "\(absent.task)")
    }

    @Test
    func aDeployChangesOnceThenNot() throws {
        let first = try play(seed: DemoSeeds.v1, version: "1")
        #expect(first.status == 0, "\(first.output)")
        #expect(first.task["changed"] as? Bool == true)
        let seeds = try #require(first.task["seeds"] as? [[String: Any]])
        #expect(seeds.first?["action"] as? String == "installed")
        #expect(seeds.first?["workingCopy"] as? String == cli.workingCopy)
        #expect(try cli.levelCount() == 20)
        #expect(cli.recorded().version == "1")

        let second = try play(seed: DemoSeeds.v1, version: "1")
        #expect(second.status == 0, "\(second.output)")
        #expect(second.task["changed"] as? Bool == false)
        #expect((second.task["seeds"] as? [[String: Any]])?.first?["action"] as? String == "unchanged")
    }

    @Test
    func checkModeReportsTheChangeAndMakesNone() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let settings = cli.bytes(cli.settingsFile)

        let check = try play(seed: DemoSeeds.v2, version: "2", ["--check", "--diff"])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.task["changed"] as? Bool == true)
        #expect(check.task["dry_run"] as? Bool == true)
        #expect((check.task["seeds"] as? [[String: Any]])?.first?["action"] as? String == "replaced")
        let diff = try #require(check.task["diff"] as? [String: Any], "\(check.task)")
        #expect(diff["before"] as? String == "levels.sqlite: 1\n")
        #expect(diff["after"] as? String == "levels.sqlite: 2\n")
        // Nothing changed: still v1, the settings byte for byte, no generation 2.
        #expect(try cli.levelCount() == 20)
        #expect(cli.bytes(cli.settingsFile) == settings)
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy + ".v2"))

        let real = try play(seed: DemoSeeds.v2, version: "2", ["--diff"])
        #expect(real.task["changed"] as? Bool == true)
        #expect(try cli.levelCount() == 24)
        #expect((real.task["diff"] as? [String: Any])?["after"] as? String == "levels.sqlite: 2\n")
    }

    @Test
    func aFailingSeedFailsWithSeedDBsMessageAndExitCode() throws {
        let missing = cli.root + "/missing/levels.sqlite"
        let result = try play(seed: missing, version: "1")
        #expect(result.output.contains("ignored=1"), "the play ignores the failure to record it: \(result.output)")
        #expect(result.task["failed"] as? Bool == true)
        #expect(result.task["changed"] as? Bool == false)
        #expect(result.task["rc"] as? Int == 66)
        #expect(result.task["msg"] as? String == "seed not found: \(missing)")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
    }

    @Test
    func aCombinationSeedDBRefusesIsRefusedBeforeAnythingRuns() throws {
        let manifest = cli.root + "/seeds.json"
        let result = try play(["manifest": manifest, "merge": "user-wins"])
        #expect(result.task["failed"] as? Bool == true)
        #expect(result.task["msg"] as? String == "--manifest cannot be combined with --merge")
        #expect(result.task["rc"] as? Int == 64)
        #expect(result.task["cmd"] as? [String] == [], "seeddb never ran")
        #expect(result.task["held"] as? Bool == false && (result.task["held_seeds"] as? [Any])?.isEmpty == true, "returned always: \(result.task)")
        // The same words as seeddb's own refusal.
        let cliResult = try cli.run(["deploy", "--manifest", manifest, "--merge", "user-wins"])
        #expect(cliResult.status == 64)
        #expect(cliResult.stderr == "seeddb: error: --manifest cannot be combined with --merge\n")

        // The module's words are seeddb's, case by case.
        let cases: [([String: Any], [String])] = [
            (["app": cli.app, "seed": DemoSeeds.v1], ["deploy", "--app", cli.app, "--seed", DemoSeeds.v1]),
            (["command": "purge", "manifest": manifest, "name": "levels.sqlite"], ["purge", "--manifest", manifest, "--name", "levels.sqlite"]),
            (["command": "purge", "manifest": manifest, "location": "cache"], ["purge", "--manifest", manifest, "--location", "cache"]),
            (["command": "rollback", "app": cli.app], ["rollback", "--app", cli.app]),
            (["command": "reseed", "manifest": manifest, "preserve": ["progress"], "sha256": String(repeating: "0", count: 64)], ["reseed", "--manifest", manifest, "--sha256", String(repeating: "0", count: 64), "--preserve", "progress"]),
            // A rollback's option that was left out, and the rollback ran without it (found by
            // a contract probe): refused as seeddb refuses its flag.
            (["command": "rollback", "manifest": manifest, "forget_signature": true], ["rollback", "--manifest", manifest, "--forget-signature"]),
            (["command": "rollback", "app": cli.app, "name": "levels.sqlite", "keep_previous": false], ["rollback", "--app", cli.app, "--name", "levels.sqlite", "--keep-previous", "false"]),
        ]
        for (arguments, command) in cases {
            let module = try play(arguments)
            let message = try #require(module.task["msg"] as? String, "\(module.task)")
            #expect(module.task["cmd"] as? [String] == [], "\(arguments): seeddb never ran")
            let expected = try cli.run(command)
            #expect(expected.status == 64)
            #expect(expected.stderr == "seeddb: error: \(message)\n", "\(arguments)")
        }
    }

    /// `merge_table: {levels: off}`, `off` unquoted as the docs write it, reaches the module
    /// as YAML's `false`: it means `off` (it was refused as `"False" is not a merge policy`).
    @Test
    func anUnquotedOffIsAMergePolicy() throws {
        #expect(try play(seed: DemoSeeds.v1, version: "1").task["failed"] as? Bool != true)
        let result = try play(seed: DemoSeeds.v2, version: "2", arguments: ["merge_table": ["levels": false]])
        #expect(result.task["failed"] as? Bool != true, "\(result.task)")
        let command = try #require(result.task["cmd"] as? [String], "\(result.task)")
        #expect(command.contains("levels=off"), "\(command)")
    }

    /// Issue 30, item 1: a reseed's `merge` goes beside a manifest (it is that reseed's own),
    /// and the result names the tables whose changes `off` replaced.
    @Test
    func aReseedsMergeGoesBesideAManifestAndNamesWhatItReplaced() throws {
        let manifest = "\(CLIHarness.seeds)/v2/seeds.json"
        #expect(try cli.run(["deploy", "--manifest", manifest]).status == 0)
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' \"UPDATE levels SET background = 'mine' WHERE ix = 2\"").status == 0)
        let result = try play(["command": "reseed", "manifest": manifest, "merge": "off"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.task["changed"] as? Bool == true)
        let seeds = try #require(result.task["seeds"] as? [[String: Any]], "\(result.task)")
        #expect(seeds.first?["discarded"] as? [String] == ["levels"], "\(seeds)")
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' \"SELECT background FROM levels WHERE ix = 2\"").stdout != "mine\n")
    }

    @Test
    func seedDBsWarningsAreTheTasksWarnings() throws {
        // Given v1 deployed without merging and written to, v2 merges: its base is
        // missing, and seeddb warns.
        #expect(try cli.run(["deploy", "--merge", "off"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' 'CREATE TABLE scratch(x); DROP TABLE scratch'").status == 0)
        let result = try play(seed: DemoSeeds.v2, version: "2", arguments: ["merge": "user-wins"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.task["changed"] as? Bool == true)
        let warning = try #require(result.warnings.first, "no warning: \(result.task)")
        #expect(warning.hasPrefix("merge base "), "\(warning)")
        #expect(!warning.hasPrefix("seeddb: "))
        #expect(result.output.contains("[WARNING]: merge base "), "\(result.output)")
    }

    @Test
    func aHeldSeedIsReportedWithAWarning() throws {
        // Given v2 deployed over v1, then rolled back: the copy holds at 1.
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        #expect(try cli.run(["rollback", "--app", cli.app, "--name", "levels.sqlite"]).status == 0)

        // When the play deploys v2 again
        let result = try play(seed: DemoSeeds.v2, version: "2")

        // Then nothing changes, and the task says the host stays behind.
        #expect(result.status == 0, "\(result.output)")
        #expect(result.task["changed"] as? Bool == false)
        #expect(result.task["held"] as? Bool == true)
        let held = try #require(result.task["held_seeds"] as? [[String: Any]])
        #expect(held.count == 1)
        #expect(held.first?["name"] as? String == "levels.sqlite")
        #expect(held.first?["held_at"] as? String == "1")
        #expect(held.first?["held_from"] as? String == "2")
        #expect(result.warnings == ["\(Self.heldWarning) (on \(AnsibleCore.nodeName): \(cli.workingCopy))"])
        #expect(try cli.levelCount() == 20)

        let fresh = try play(seed: DemoSeeds.v1, version: "1")
        #expect(fresh.task["held"] as? Bool == false)
        #expect(fresh.warnings.isEmpty, "\(fresh.warnings)")
    }

    /// The held warning's text, which docs/many-machines.md quotes; each host's ends with
    /// ` (on <node name>: <working copy>)`.
    static let heldWarning = "levels.sqlite: held at 1: rolled back from 2; a new version or `seeddb reseed` ends the hold"

    /// Ansible shows each distinct warning text once per play: with a held warning alike
    /// on every host, a fleet with two hosts held showed one warning, after one host or
    /// none, and the play did not say which hosts stay behind (found by a contract probe).
    /// Each held host's warning names its working copy.
    @Test
    func eachHeldHostOfAFleetHasItsOwnWarning() throws {
        try #require(AnsibleCore.venvProblem == nil, "\(AnsibleCore.venvProblem ?? "")")
        // Given three hosts, each with its own directories: web1 at v2, web2 and web3
        // rolled back from v2 to v1.
        let fleet = [("web1", cli), ("web2", CLIHarness()), ("web3", CLIHarness())]
        for (host, machine) in fleet {
            try FileManager.default.createDirectory(atPath: machine.root + "/home", withIntermediateDirectories: true)
            #expect(try machine.run(["deploy"] + machine.seedFlags(1)).status == 0)
            #expect(try machine.run(["deploy"] + machine.seedFlags(2)).status == 0)
            if host != "web1" {
                #expect(try machine.run(["rollback", "--app", machine.app, "--name", "levels.sqlite"]).status == 0)
            }
        }
        let inventory = fleet.map { host, machine in "\(host) ansible_connection=local seeddb_root=\(machine.root)\n" }.joined()
        try Data(inventory.utf8).write(to: URL(fileURLWithPath: cli.root + "/fleet.ini"))
        let arguments: [String: Any] = ["executable": CLIHarness.binary, "app": cli.app, "seed": DemoSeeds.v2, "version": "2"]
        let inline = String(decoding: try JSONSerialization.data(withJSONObject: arguments, options: [.sortedKeys]), as: UTF8.self)
        let playbook = """
            - hosts: all
              gather_facts: false
              environment:
                HOME: "{{ seeddb_root }}/home"
                XDG_DATA_HOME: "{{ seeddb_root }}/data"
                XDG_CACHE_HOME: "{{ seeddb_root }}/cache"
                XDG_CONFIG_HOME: "{{ seeddb_root }}/config"
              tasks:
                - name: Deploy v2
                  seeddb.seeddb.seeddb: \(inline)
            """
        try Data(playbook.utf8).write(to: URL(fileURLWithPath: cli.root + "/fleet.yml"))

        // When the play deploys v2 to the fleet
        let result = AnsibleCore.run([AnsibleCore.venv + "/bin/ansible-playbook", "-i", cli.root + "/fleet.ini", cli.root + "/fleet.yml"],
                                     environment: AnsibleCore.environment(cli), timeout: 240)

        // Then nothing changes, and there is one held warning per host held, naming its working copy.
        let output = result.stdout + result.stderr
        #expect(result.status == 0, "\(output)")
        #expect(output.contains("changed=0") && !output.contains("changed=1"), "\(output)")
        let held = output.split(separator: "\n").filter { $0.hasPrefix("[WARNING]: " + Self.heldWarning) }.map(String.init)
        #expect(held.sorted() == fleet.dropFirst().map { _, machine in "[WARNING]: \(Self.heldWarning) (on \(AnsibleCore.nodeName): \(machine.workingCopy))" }.sorted(), "\(output)")
    }

    @Test
    func theNewOptionsReachSeedDB() throws {
        // preserve: a typo is refused by seeddb (78) with its closest name.
        let typo = try play(seed: DemoSeeds.v1, version: "1", arguments: ["preserve": ["progres"]])
        #expect(typo.task["rc"] as? Int == 78)
        #expect((typo.task["msg"] as? String)?.contains("did you mean \"progress\"?") == true, "\(typo.task)")
        // sha256: a wrong digest is refused (65).
        let wrong = try play(seed: DemoSeeds.v1, version: "1", arguments: ["sha256": String(repeating: "0", count: 64)])
        #expect(wrong.task["rc"] as? Int == 65, "\(wrong.task)")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
        // keep_previous, integrity, merge_table: on the command line, and a replace that keeps no previous generation.
        #expect(try play(seed: DemoSeeds.v1, version: "1").task["changed"] as? Bool == true)
        let replaced = try play(seed: DemoSeeds.v2, version: "2", arguments: ["keep_previous": false, "integrity": "full", "merge_table": ["levels": "user-wins"]])
        #expect(replaced.status == 0, "\(replaced.output)")
        let command = try #require(replaced.task["cmd"] as? [String])
        #expect(command.contains("--keep-previous") && command.contains("false") && command.contains("full") && command.contains("levels=user-wins"), "\(command)")
        #expect(!cli.list(cli.appData).contains { $0.hasSuffix(".previous") }, "\(cli.list(cli.appData))")
        #expect(try cli.levelCount() == 24)
    }

    @Test(.enabled(if: getuid() == 0, "a read-only seed the app's user owns is refused: the seeds these tests make are root's only when they run as root"))
    func readOnlyDeploysALinkAndARefusalFailsTheTask() throws {
        let seed = try ReadOnlySeedTests.shipped(cli, 1)
        let linked = try play(seed: seed, version: "1", arguments: ["read_only": true])
        #expect(linked.status == 0 && linked.task["changed"] as? Bool == true, "\(linked.output)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy) == seed)
        #expect(try play(seed: seed, version: "1", arguments: ["read_only": true]).task["changed"] as? Bool == false)
        // A seed the app's user could write: seeddb refuses (73), the task fails, nothing changes.
        let writable = try ReadOnlySeedTests.shipped(cli, 2, mode: "0664")
        let before = cli.state()
        let refused = try play(seed: writable, version: "2", arguments: ["read_only": true])
        #expect(refused.task["failed"] as? Bool == true && refused.task["rc"] as? Int == 73, "\(refused.task)")
        #expect(cli.state() == before)
    }

    @Test
    func theDeployOptionsAreModuleOptions() throws {
        let module = try #require(try cli.run(["deploy", "--help"]).stdout.split(separator: "\n").compactMap { line -> String? in
            // `  --merge-table <table=policy>`, `  -q, --quiet`: the long name of each option.
            guard let start = line.range(of: "--"), line.hasPrefix("  -") else { return nil }
            return String(line[start.upperBound...].prefix { $0.isLetter || $0 == "-" || $0.isNumber })
        } as [String]?)
        // Printing and help are the module's own business (it always runs --json; check
        // mode is --dry-run).
        let printing: Set<String> = ["json", "quiet", "help", "dry-run"]
        let named = ["trusted-key": "trusted_keys"]
        let expected = Set(module.filter { !printing.contains($0) }.map { named[$0] ?? $0.replacingOccurrences(of: "-", with: "_") })
        #expect(expected.count > 15, "\(module)")

        try #require(AnsibleCore.venvProblem == nil, "\(AnsibleCore.venvProblem ?? "")")
        let doc = AnsibleCore.run([AnsibleCore.venv + "/bin/ansible-doc", "--json", "seeddb.seeddb.seeddb"], environment: AnsibleCore.environment(cli), timeout: 120)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(doc.stdout.utf8)) as? [String: Any], "\(doc.stderr)")
        let options = try #require((((json["seeddb.seeddb.seeddb"] as? [String: Any])?["doc"] as? [String: Any])?["options"] as? [String: Any]), "\(doc.stdout.prefix(500))")
        let missing = expected.subtracting(options.keys)
        #expect(missing.isEmpty, "seeddb deploy takes options the module lacks: \(missing.sorted())")
    }

    /// What `ansible-test sanity`'s validate-modules checks first (it cannot run offline
    /// here, see NOTES.md): each option in `ARGUMENT_SPEC` is documented, and nothing else
    /// is, with the same type, choices, default and list elements.
    @Test
    func theDocumentationDescribesTheArgumentSpec() throws {
        try #require(AnsibleCore.venvProblem == nil, "\(AnsibleCore.venvProblem ?? "")")
        let script = """
            import importlib.util, json, sys, yaml
            spec = importlib.util.spec_from_file_location('seeddb_module', sys.argv[1])
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            documented = yaml.safe_load(module.DOCUMENTATION)['options']
            problems = []
            for name in sorted(set(module.ARGUMENT_SPEC) | set(documented)):
                code, doc = module.ARGUMENT_SPEC.get(name), documented.get(name)
                if code is None or doc is None:
                    problems.append('%s: %s' % (name, 'not documented' if doc is None else 'documented but not an option'))
                    continue
                for key, default in (('type', 'str'), ('choices', None), ('default', None), ('elements', None)):
                    if code.get(key, default) != doc.get(key, default):
                        problems.append('%s: %s is %r in the code, %r in DOCUMENTATION' % (name, key, code.get(key, default), doc.get(key, default)))
                if not doc.get('description'):
                    problems.append('%s: no description' % name)
            yaml.safe_load(module.EXAMPLES)
            yaml.safe_load(module.RETURN)
            print(json.dumps(problems))
            """
        let path = AnsibleCore.packageRoot + "/contrib/ansible/ansible_collections/seeddb/seeddb/plugins/modules/seeddb.py"
        let result = AnsibleCore.run([AnsibleCore.venv + "/bin/python", "-c", script, path], environment: AnsibleCore.environment(cli), timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let problems = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String], "\(result.stdout)\(result.stderr)")
        #expect(problems.isEmpty, "\(problems)")
    }

    /// The many-machines guide's playbook (`docs/many-machines.md`, the block marked
    /// `<!-- readme-playbook: site.yml -->`) run as
    /// written, against localhost as the only host of `levels_servers`. It runs in a mount
    /// namespace of its own where the test's folders are `/usr/share` (the package's
    /// files), `/var/lib` (the system's working copies), `/etc/init.d` (the service, a
    /// script that notes each restart) and `/etc/passwd` and `/etc/group` (with the
    /// `levels-demo` user), so nothing outside the test's folder is touched. The
    /// inventory turns `become` off (the test runs as root already).
    @Test(.enabled(if: getuid() == 0, "needs root for a mount namespace"))
    func theReadmesPlaybookRunsAsWritten() throws {
        try #require(AnsibleCore.venvProblem == nil, "\(AnsibleCore.venvProblem ?? "")")
        let guide = try String(contentsOfFile: AnsibleCore.packageRoot + "/docs/many-machines.md", encoding: .utf8)
        let playbooks = ReadmeSnippets.marked(guide, marker: "readme-playbook", fence: "```yaml")
        let site = try #require(playbooks.first { $0.file == "site.yml" }, "the guide marks its playbook")

        // Given the package's files (seed v1, its manifest signed by the package's key)
        let root = cli.root + "/fleet"
        let share = root + "/share/levels-demo"
        for folder in [share, root + "/var-lib", root + "/init.d"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let key = (public: share + "/levels.pub", secret: root + "/levels.key")
        #expect(try cli.run(["keygen", "--unencrypted", "--public-key", key.public, "--secret-key", key.secret]).status == 0)
        func ship(_ version: Int) throws {
            for file in ["levels.sqlite", "seeds.json"] {
                try? FileManager.default.removeItem(atPath: share + "/" + file)
                try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v\(version)/\(file)", toPath: share + "/" + file)
            }
            let signed = try cli.run(["sign", "--key", key.secret, share + "/seeds.json"])
            #expect(signed.status == 0, "\(signed.stderr)")
        }
        try ship(1)
        // the service, and its user
        let restarts = root + "/restarts"
        try Data("#!/bin/sh\necho \"$1\" >> '\(restarts)'\n".utf8).write(to: URL(fileURLWithPath: root + "/init.d/levels-demo"))
        chmod(root + "/init.d/levels-demo", 0o755)
        let passwd = (try String(contentsOfFile: "/etc/passwd", encoding: .utf8)) + "levels-demo:x:64123:64123::/nonexistent:/usr/sbin/nologin\n"
        let group = (try String(contentsOfFile: "/etc/group", encoding: .utf8)) + "levels-demo:x:64123:\n"
        try Data(passwd.utf8).write(to: URL(fileURLWithPath: root + "/passwd"))
        try Data(group.utf8).write(to: URL(fileURLWithPath: root + "/group"))
        try Data(site.code.utf8).write(to: URL(fileURLWithPath: root + "/site.yml"))
        try Data("[levels_servers]\nlocalhost ansible_connection=local ansible_become=false\n".utf8).write(to: URL(fileURLWithPath: root + "/hosts"))
        let namespace = """
            set -e
            mount --make-rprivate /
            mount --bind '\(root)/share' /usr/share
            mount --bind '\(root)/var-lib' /var/lib
            mount --bind '\(root)/init.d' /etc/init.d
            mount --bind '\(root)/passwd' /etc/passwd
            mount --bind '\(root)/group' /etc/group
            cd '\(root)'
            exec "$@"
            """
        try Data(namespace.utf8).write(to: URL(fileURLWithPath: root + "/namespace.sh"))
        var environment = AnsibleCore.environment(cli)
        environment["PATH"] = URL(fileURLWithPath: CLIHarness.binary).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        // The comment's command line, with the venv's ansible-playbook.
        let firstLine = String(site.code.split(separator: "\n")[0])
        let commandLine = try #require(firstLine.components(separatedBy: "ansible-playbook ").dropFirst().first, "\(firstLine)")
        #expect(commandLine == "-i hosts site.yml --diff")
        func runPlaybook() -> CLIHarness.Result {
            AnsibleCore.run(["/usr/bin/unshare", "-m", "/bin/sh", root + "/namespace.sh", AnsibleCore.venv + "/bin/ansible-playbook"]
                + commandLine.split(separator: " ").map(String.init), environment: environment, timeout: 240)
        }
        func restartCount() -> Int {
            String(decoding: cli.bytes(restarts) ?? Data(), as: UTF8.self).split(separator: "\n").filter { $0 == "start" }.count
        }
        let workingCopy = root + "/var-lib/com.example.levels/levels.sqlite"

        // When it runs the first time: deployed, owned by the service, the service restarted
        var result = runPlaybook()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("+levels.sqlite: 1"), "\(result.stdout)")
        #expect(try cli.levelCount(workingCopy) == 20)
        var info = stat()
        #expect(stat(workingCopy, &info) == 0 && info.st_uid == 64123, "owned by levels-demo")
        #expect(restartCount() == 1)

        // the same again: nothing changes, no restart
        result = runPlaybook()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("changed=0"), "\(result.stdout)")
        #expect(restartCount() == 1)

        // the package ships v2: replaced, restarted
        try ship(2)
        result = runPlaybook()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("-levels.sqlite: 1") && result.stdout.contains("+levels.sqlite: 2"), "\(result.stdout)")
        #expect(try cli.levelCount(workingCopy) == 24)
        #expect(restartCount() == 2)

        // rolled back by hand: the play leaves it at 1 and says so
        let rollback = AnsibleCore.run(["/usr/bin/unshare", "-m", "/bin/sh", root + "/namespace.sh", CLIHarness.binary, "rollback", "--system", "--owner", "levels-demo", "--app", "com.example.levels", "--name", "levels.sqlite"], environment: environment, timeout: 60)
        #expect(rollback.status == 0, "\(rollback.stderr)")
        result = runPlaybook()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("changed=0"), "\(result.stdout)")
        #expect((result.stdout + result.stderr).contains("[WARNING]: \(Self.heldWarning) (on \(AnsibleCore.nodeName): /var/lib/com.example.levels/levels.sqlite)"), "\(result.stdout)\(result.stderr)")
        #expect(try cli.levelCount(workingCopy) == 20)
        #expect(restartCount() == 2)

        // The collection's README playbook runs as written too: the host is still held.
        let collectionReadme = try String(contentsOfFile: AnsibleCore.packageRoot + "/contrib/ansible/ansible_collections/seeddb/seeddb/README.md", encoding: .utf8)
        let other = try #require(ReadmeSnippets.marked(collectionReadme, marker: "readme-playbook", fence: "```yaml").first, "the collection's README marks its playbook")
        try Data(other.code.utf8).write(to: URL(fileURLWithPath: root + "/collection.yml"))
        result = AnsibleCore.run(["/usr/bin/unshare", "-m", "/bin/sh", root + "/namespace.sh", AnsibleCore.venv + "/bin/ansible-playbook", "-i", "hosts", "collection.yml"], environment: environment, timeout: 240)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect((result.stdout + result.stderr).contains("[WARNING]: levels.sqlite: held at 1: rolled back from 2"), "\(result.stdout)\(result.stderr)")
    }

}

/// `ansible-core` in a virtual environment under `.build`, made once and reused.
enum AnsibleCore {
    /// The `ansible-core` the tests install, pinned so that a run is reproducible.
    static let ansibleCore = "ansible-core==2.19.14"

    /// The package's root directory.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The `python3` on `PATH`, if any.
    static let python3: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// This machine's node name (`uname -n`, Python's `platform.node()`), which the module's
    /// held warning names.
    static let nodeName: String = {
        var names = utsname()
        uname(&names)
        return withUnsafeBytes(of: names.nodename) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }()

    /// The virtual environment holding `ansible-core`, cached under `.build`.
    static let venv = packageRoot + "/.build/ansible-venv"

    /// Makes the virtual environment once (per test process; across processes a lock
    /// serializes it and a marker file says it is complete), and returns what failed, if
    /// anything.
    static let venvProblem: String? = {
        let marker = ".seeddb-" + ansibleCore.replacingOccurrences(of: "==", with: "-")
        let script = """
            set -e
            cd '\(packageRoot)/.build'
            exec 9>ansible-venv.lock
            flock -w 900 9
            if [ ! -e 'ansible-venv/\(marker)' ]; then
              rm -rf ansible-venv
              python3 -m venv ansible-venv
              timeout 600 ansible-venv/bin/pip install --disable-pip-version-check -q '\(ansibleCore)'
              touch 'ansible-venv/\(marker)'
            fi
            """
        let result = run(["/bin/sh", "-c", script], environment: ProcessInfo.processInfo.environment, timeout: 1200)
        return result.status == 0 ? nil : "installing \(ansibleCore) into \(venv) failed (\(result.status)): \(result.stderr)"
    }()

    /// The environment `ansible-playbook` runs in: the harness's, with the collection from
    /// this checkout and the virtual environment's Python.
    static func environment(_ cli: CLIHarness) -> [String: String] {
        var environment = cli.environment
        environment["ANSIBLE_COLLECTIONS_PATH"] = packageRoot + "/contrib/ansible"
        environment["ANSIBLE_PYTHON_INTERPRETER"] = venv + "/bin/python"
        environment["ANSIBLE_LOCAL_TEMP"] = cli.root + "/ansible-tmp"
        environment["ANSIBLE_REMOTE_TEMP"] = cli.root + "/ansible-tmp"
        environment["ANSIBLE_NOCOLOR"] = "1"
        environment["LC_ALL"] = "C.UTF-8"
        return environment
    }

    /// Runs a process to completion (killed after `timeout` seconds), with its output.
    static func run(_ arguments: [String], environment: [String: String], timeout: Double) -> CLIHarness.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        do { try process.run() } catch {
            return CLIHarness.Result(status: -1, stdout: "", stderr: "\(arguments[0]): \(error)")
        }
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        // Read standard error on another thread so that neither pipe fills up.
        let errors = DispatchGroup()
        nonisolated(unsafe) var err = Data()
        DispatchQueue.global().async(group: errors) { err = stderr.fileHandleForReading.readDataToEndOfFile() }
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        errors.wait()
        process.waitUntilExit()
        watchdog.cancel()
        return CLIHarness.Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}
