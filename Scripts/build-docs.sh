#!/usr/bin/env bash
# Builds the library's DocC reference (Sources/SeedDB/SeedDB.docc) with swift-docc-plugin,
# and fails on any DocC warning (a broken ``symbol`` link, an undocumented parameter).
#
# Usage: Scripts/build-docs.sh [OUTPUT]   (default .build/docs)
#
# Why not `swift package generate-documentation` alone: `SeedDB` re-exports `SeedDBCore`
# (`Seed`, `SeedDBError`, `DeployAction`…), which an app sees as SeedDB's own, but SwiftPM's
# symbol-graph extraction leaves re-exported modules out, so every link to them would
# break. Here SeedDB's graph is extracted with the compiler's
# `-experimental-allowed-reexported-modules=SeedDBCore` and handed to the plugin in place
# of its own (`--additional-symbol-graph-dir`): the reference shows what `import SeedDB`
# gives (swift-log's `Logger`, also re-exported, stays swift-log's).
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-.build/docs}
graphs=.build/docs-symbol-graphs

swift build --target SeedDB >&2
bin=$(swift build --show-bin-path)
# The C modules SeedDB's interface reaches (GRDB's SQLite, swift-crypto's, swift-system's,
# zlib, CSeedDBSystem), as SwiftPM hands them to its own extraction: every package's module
# map plus the ones the build generated.
clang_modules=()
while IFS= read -r map; do
  clang_modules+=(-Xcc "-fmodule-map-file=$map" -Xcc -I -Xcc "$(dirname "$map")")
done < <(find .build/checkouts/*/Sources Sources "$bin"/*.build -maxdepth 3 \
  -name module.modulemap -not -path '*.build/include/*')
rm -rf "$graphs" && mkdir -p "$graphs"
swift-symbolgraph-extract -module-name SeedDB -target "$(uname -m)-unknown-linux-gnu" \
  -I "$bin/Modules" -module-cache-path "$bin/ModuleCache" "${clang_modules[@]}" \
  -minimum-access-level public -omit-extension-block-symbols \
  -experimental-allowed-reexported-modules=SeedDBCore -output-dir "$graphs"
grep -q '"precise":"s:10SeedDBCore12DeployActionO"' "$graphs/SeedDB.symbols.json" \
  || { echo "build-docs.sh: SeedDBCore's symbols are missing from SeedDB's graph" >&2; exit 1; }

swift package --allow-writing-to-directory "$output" \
  generate-documentation --target SeedDB --output-path "$output" \
  --additional-symbol-graph-dir "$graphs" --warnings-as-errors
