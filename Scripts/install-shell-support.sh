#!/usr/bin/env bash
# Installs seeddb's shell completions (bash, zsh, fish) and man page under PREFIX.
# Usage: Scripts/install-shell-support.sh [PREFIX]   (default /usr/local; run from the repository)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-/usr/local}
swift build -c release --product seeddb
seeddb=.build/release/seeddb
install -d "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
  "$prefix/share/fish/vendor_completions.d" "$prefix/share/man/man1"
"$seeddb" --generate-completion-script bash > "$prefix/share/bash-completion/completions/seeddb"
"$seeddb" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_seeddb"
"$seeddb" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/seeddb.fish"
swift package plugin --allow-writing-to-package-directory generate-manual
install -m 0644 .build/plugins/GenerateManual/outputs/seeddb/seeddb.1 "$prefix/share/man/man1/seeddb.1"
echo "installed completions and seeddb.1 under $prefix"
