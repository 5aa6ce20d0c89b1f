#!/usr/bin/env bash
# Builds a self-contained seeddb: the Swift runtime, Foundation and Dispatch are linked in
# statically (--static-swift-stdlib), so the binary runs without a Swift toolchain and needs
# only Debian's own libraries (libc, libstdc++, libsqlite3, zlib: see `ldd`).
#
# The code reaches a concrete generic type's metadata through its accessor function rather
# than by demangling its name at run time (-disable-concrete-type-metadata-mangled-name-accessors,
# the compiler's choice for older runtimes): the first use of a type such as
# `[String: JSONValue]` then checks no generic requirement, so a startup check looks up no
# protocol conformance (each first lookup scans the binary's 7,000 conformance records;
# BENCHMARKS.md, startup as a process). The code it produces means the same; the binary
# is 0.1 MB larger. And the binary carries no `$ORIGIN` run path (--disable-local-rpath):
# it needs only system libraries, and with one the loader would first look for them beside
# the binary on every start (11 tries for the first, then one for each of the others).
#
# Usage: Scripts/build-release.sh [PRODUCT...]
# Builds seeddb and the other products named (the benchmark: seeddb-bench bench-hello) with
# the same flags, and prints seeddb's absolute path on standard output (the build's log goes
# to standard error). The build lives in .build-release (SEEDDB_RELEASE_SCRATCH to change),
# apart from the debug build in .build.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${SEEDDB_RELEASE_SCRATCH:-.build-release}
flags=(-c release --static-swift-stdlib --disable-local-rpath --scratch-path "$scratch"
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)

for product in seeddb "$@"; do
  swift build "${flags[@]}" --product "$product" >&2
done
binary="$(swift build "${flags[@]}" --show-bin-path)/seeddb"

# The promise of this script: nothing from the toolchain is needed at run time.
if toolchain=$(ldd "$binary" | grep -E 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime'); then
  echo "build-release.sh: $binary still links the Swift runtime:" >&2
  echo "$toolchain" >&2
  exit 1
fi
echo "$binary"
