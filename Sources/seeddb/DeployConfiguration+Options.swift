import SeedDB

extension DeployConfiguration {
    /// The library configuration a command's parsed options set: the one place the CLI
    /// builds it. Each command passes the option groups it declares.
    ///
    /// With `wait` (the commands that wait for locks and do long work), the run stops at
    /// a signal the command has ``Interruption/install()``ed, and the test-only fault
    /// hooks are read from the environment.
    init(_ system: SystemOptions, ownership: OwnershipOptions? = nil, wait: WaitOptions? = nil, replace: ReplaceOptions? = nil) {
        self.init(system: system.system, root: system.root)
        files.owner = ownership?.owner
        files.workingCopyMode = ownership?.mode
        if let replace {
            strategy = replace.strategy
            integrity = replace.integrity
        }
        if let wait {
            self.wait = .milliseconds(Int64(wait.wait * 1000))
            stepObserver = FaultInjection.observerFromEnvironment()
            stepStarted = FaultInjection.startObserverFromEnvironment()
            isInterrupted = { Interruption.signal != nil }
        }
    }

    /// The configuration of `--system` and `--root` alone (see ``SystemOptions``).
    init(system: Bool, root: String?) {
        self.init()
        files = system ? .system : .user
        if system {
            // The trust anchors root relies on: /etc/seeddb/keys/<app>/*.pub (under --root).
            trustedKeysDirectory = SystemOptions.keysDirectory(root: root)
            // A package's seed, replaced by rename: the merge base may be a link to it.
            linksBaseToSeed = true
        }
    }
}
