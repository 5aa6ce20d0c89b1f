#!/usr/bin/env bash
# Builds a self-contained seeddb: the Swift runtime, Foundation and Dispatch are linked in
# statically (--static-swift-stdlib), so the binary runs without a Swift toolchain and needs
# only Debian's own libraries (libc, libstdc++, libsqlite3, zlib: see `ldd`).
#
# Usage: Scripts/build-release.sh
# Prints the binary's absolute path on standard output (the build's log goes to standard
# error). The build lives in .build-release (SEEDDB_RELEASE_SCRATCH to change), apart from
# the debug build in .build.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${SEEDDB_RELEASE_SCRATCH:-.build-release}
flags=(-c release --static-swift-stdlib --product seeddb --scratch-path "$scratch")

swift build "${flags[@]}" >&2
binary="$(swift build "${flags[@]}" --show-bin-path)/seeddb"

# The promise of this script: nothing from the toolchain is needed at run time.
if toolchain=$(ldd "$binary" | grep -E 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime'); then
  echo "build-release.sh: $binary still links the Swift runtime:" >&2
  echo "$toolchain" >&2
  exit 1
fi
echo "$binary"
