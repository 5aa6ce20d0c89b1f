/// The named steps of a deploy plan, in the order a plan may list them.
///
/// A step's name is what the crash suite kills at (`SEEDDB_TEST_KILL_AFTER=install`), what
/// the progress display shows and what a log line says. Every step that changes something
/// durable knows how to undo itself (see `DeployExecutor` in the `SeedDB` module).
public enum DeployStep: String, Sendable, CaseIterable {
    /// Copy the source into a new temporary file beside the working copy and flush it.
    case stage
    /// Run the app's migrations on the staged copy (a library caller's `DatabaseMigrator`).
    case migrate
    /// Run the integrity check on the staged copy.
    case check
    /// Hash each of the staged copy's seed tables, for a record that keeps no merge base:
    /// a later replace with merging off names the tables the user changed by them.
    case fingerprint
    /// Remove the recorded version from the settings (undone by restoring the settings'
    /// bytes), so a crash between the install and the record never leaves a recorded
    /// version the working copy does not hold.
    case withdraw
    /// Under the writer's lock on the old working copy: carry the user's tables (preserved
    /// and app-created) into the staged copy.
    case carry
    /// Keep the old content as the previous generation (or, when generations are turned
    /// off, set aside the previous generation that exists).
    case keepPrevious = "keep-previous"
    /// Put the staged copy in place: by swap (a new generation file and an atomic switch of
    /// the working copy's symbolic link) or live (SQLite's backup API).
    case install
    /// Put back the working copy's link to the recorded generation file, found without
    /// it (the link was removed): nothing is copied, nothing the user wrote is lost.
    case relink
    /// Put back the record a killed run withdrew (its `"interrupted"` marker) before it
    /// switched the link: the working copy still holds that record's content. Undone by
    /// restoring the settings' bytes.
    case reinstate
    /// For a read-only seed: put a symbolic link straight to the seed file at the
    /// working-copy path (a temporary link renamed over it), keep the copy it replaces as
    /// the previous generation, and record the seed it links to. Nothing is copied.
    /// Undone by putting back what was there and restoring the settings' bytes.
    case linkSeed = "link-seed"
    /// Record the new version in the settings.
    case record
    /// Give the working copy the owner and mode asked for (`--owner`, `--mode`) when its
    /// content file, which the run keeps, drifted from them (someone ran `chmod`/`chown`).
    case repairOwnership = "repair-ownership"
    /// Remove what the run set aside (old generations, sidecars, temporary files). Never
    /// fails the run: whatever it cannot remove, the next locked run removes.
    case cleanUp = "clean-up"
}
