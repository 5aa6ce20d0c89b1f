#!/usr/bin/env bash
# Rebuilds the demo seeds (v1, v2) from their SQL sources and refreshes the manifests' sha256.
# Usage: Seeds/build.sh   (needs the sqlite3 command-line shell)
set -euo pipefail
cd "$(dirname "$0")"
for version in v1 v2; do
  rm -f "$version/levels.sqlite.tmp"
  sqlite3 "$version/levels.sqlite.tmp" < "$version/levels.sql"
  sqlite3 "$version/levels.sqlite.tmp" "PRAGMA journal_mode=DELETE; VACUUM;" > /dev/null
  mv "$version/levels.sqlite.tmp" "$version/levels.sqlite"
  sha=$(sha256sum "$version/levels.sqlite" | cut -d' ' -f1)
  cat > "$version/seeds.json" <<JSON
{
  "app": "com.example.levels",
  "seeds": [
    {
      "source": "levels.sqlite",
      "name": "levels.sqlite",
      "version": "${version#v}",
      "location": "data",
      "sha256": "$sha",
      "preserve": ["progress"]
    }
  ]
}
JSON
done
