import Foundation
import Testing

/// The Ansible module `seeddb.seeddb.seeddb` (`contrib/ansible`), run by a real
/// `ansible-playbook` against localhost with the built `seeddb`.
@Suite(.serialized, .enabled(if: AnsibleCore.python3 != nil, "python3 is missing: .ci/run installs it"))
struct AnsibleModuleTests {
    let cli = CLIHarness()

    /// The module with the play's variables (the seed, its version, the binary), its result
    /// written to `result` as JSON, also when it fails.
    static let playbook = """
        - hosts: localhost
          gather_facts: false
          tasks:
            - name: Deploy the levels seed
              seeddb.seeddb.seeddb:
                app: com.example.levels
                seed: "{{ seed }}"
                version: "{{ version }}"
                executable: "{{ seeddb }}"
              register: deployed
              ignore_errors: true
            - name: Write its result
              ansible.builtin.copy:
                content: "{{ deployed | to_json }}"
                dest: "{{ result }}"
              check_mode: false
              diff: false
        """

    /// What `ansible-playbook` produced: its exit status, the module's result and the output.
    struct PlayResult {
        var status: Int32
        var task: [String: Any]
        var output: String
    }

    /// Runs the playbook against localhost with `seed` and `version`, with more options
    /// (`--check`, `--diff`), in the harness's XDG directories.
    func play(seed: String, version: String, _ options: [String] = []) throws -> PlayResult {
        try #require(AnsibleCore.venvProblem == nil, "\(AnsibleCore.venvProblem ?? "")")
        let playbook = cli.root + "/site.yml"
        try Data(Self.playbook.utf8).write(to: URL(fileURLWithPath: playbook))
        let resultFile = cli.root + "/result.json"
        try? FileManager.default.removeItem(atPath: resultFile)
        try FileManager.default.createDirectory(atPath: cli.root + "/home", withIntermediateDirectories: true)
        let variables = try JSONSerialization.data(withJSONObject: ["seed": seed, "version": version, "seeddb": CLIHarness.binary, "result": resultFile])
        var environment = cli.environment
        environment["ANSIBLE_COLLECTIONS_PATH"] = AnsibleCore.packageRoot + "/contrib/ansible"
        environment["ANSIBLE_PYTHON_INTERPRETER"] = AnsibleCore.venv + "/bin/python"
        environment["ANSIBLE_LOCAL_TEMP"] = cli.root + "/ansible-tmp"
        environment["ANSIBLE_REMOTE_TEMP"] = cli.root + "/ansible-tmp"
        environment["ANSIBLE_NOCOLOR"] = "1"
        environment["LC_ALL"] = "C.UTF-8"
        let result = AnsibleCore.run(
            [AnsibleCore.venv + "/bin/ansible-playbook", "-i", "localhost,", "-c", "local", "-e", String(decoding: variables, as: UTF8.self)] + options + [playbook],
            environment: environment, timeout: 120)
        let written = try #require(cli.bytes(resultFile), "no result: \(result.stdout) \(result.stderr)")
        let task = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        return PlayResult(status: result.status, task: task, output: result.stdout + result.stderr)
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
