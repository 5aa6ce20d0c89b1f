#!/usr/bin/env bash
# Runs the reliability suites (crash, durability order, concurrency, faults, bad inputs,
# fuzzing, real clients, hostile states, syscall kills, long-lived writers, tampering with signed seeds) and regenerates RELIABILITY.md from their figures.
# Usage: Scripts/reliability.sh     (as root for the tmpfs and chattr faults; needs strace, python3)
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The suites run the release binary, built now from this tree (Scripts/build-release.sh),
# as .ci/run does: the binary the .deb packages (before stripping).
SEEDDB_BINARY=$(Scripts/build-release.sh)
export SEEDDB_BINARY
started=$(date +%s)
SEEDDB_RELIABILITY_LOG="$log" swift test \
  --filter 'SimulationTests|RecoveryAfterKillTests|DurabilityOrderTests|ConcurrentRunsTests|IOFaultsChangeNothingTests|BadInputIsRefusedTests|ParserFuzzTests|NoLostRowsTests|FailedRunChangesNothingTests|HostileStateTests|RecoveryAfterSyscallKillTests|ReadOnlySwitchSurvivesKillsTests|PurgeAndMaintainSurviveKillsTests|JournalModeFenceTests|SignedSeedTests|ReleaseIsAllOrNothingTests'
python3 Scripts/render-reliability.py "$log" "$(( $(date +%s) - started ))" > RELIABILITY.md
echo "wrote RELIABILITY.md"
