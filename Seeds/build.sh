#!/usr/bin/env bash
# Rebuilds the demo seeds (v1, v2) from their SQL sources with `seeddb pack`, byte for
# byte, updates version and sha256 in each manifest (other keys are kept), sets the
# manifest's serial to the version, and signs it (seeds.json.minisig) with the demo key.
#
# Seeds/keys/demo-secret.key is an UNENCRYPTED DEMO KEY, committed on purpose so anyone
# can regenerate the demo's signatures: it protects nothing. Never trust
# Seeds/keys/demo.pub outside the demo; make your own key pair with `seeddb keygen`.
# Usage: Seeds/build.sh        (SEEDDB=/path/to/seeddb to use a built binary)
set -euo pipefail
cd "$(dirname "$0")/.."
seeddb=${SEEDDB:-"swift run --quiet seeddb"}
for version in 1 2; do
  $seeddb pack "Seeds/v$version/levels.sql" --output "Seeds/v$version/levels.sqlite" \
    --version "$version" --manifest "Seeds/v$version/seeds.json" --app com.example.levels \
    --serial "$version" --sign Seeds/keys/demo-secret.key
done
