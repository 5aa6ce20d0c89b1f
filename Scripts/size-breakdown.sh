#!/usr/bin/env bash
# What each archive contributes to the static `seeddb` (BENCHMARKS.md, "Size"): relinks the
# release build's objects with a linker map and adds up the input sections each archive or
# module brought in (debug sections included; `strip` removes those from the packaged binary).
#
#   swift build -c release --static-swift-stdlib --product seeddb
#   Scripts/size-breakdown.sh [.build]
set -euo pipefail
build="${1:-.build}"
release="$build/x86_64-unknown-linux-gnu/release"
[ -f "$release/seeddb.product/Objects.LinkFileList" ] || { echo "no release build in $build: swift build -c release --static-swift-stdlib --product seeddb" >&2; exit 66; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$release" && swiftc -lstdc++ -L "$PWD" -o "$work/seeddb" -module-name seeddb -static-stdlib -emit-executable \
    -Xlinker --gc-sections -Xlinker --defsym -Xlinker main=seeddb_main '-Xlinker' '-rpath=$ORIGIN' \
    "@$PWD/seeddb.product/Objects.LinkFileList" -target x86_64-unknown-linux-gnu -Xlinker "-Map=$work/seeddb.map" 2>/dev/null)
strip -o "$work/seeddb.stripped" "$work/seeddb"
echo "stripped seeddb: $(stat -c %s "$work/seeddb.stripped") bytes"
python3 - "$work/seeddb.map" <<'PY'
import collections, re, sys
text = open(sys.argv[1]).read()
text = text[text.find("\nMemory map"):]
sizes, sections, pending = collections.Counter(), collections.defaultdict(collections.Counter), None
for line in text.split("\n"):
    named = re.match(r"^ (\.\S+)\s*$", line)
    if named:
        pending = named.group(1)
        continue
    m = re.match(r"^ (\.\S+)?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$", line)
    if not m:
        continue
    section, pending = m.group(1) or pending, None
    path = m.group(3)
    module = path.split("(")[0].split("/")[-1] if "(" in path else path.split(".build/")[0].split("/")[-1] if ".build/" in path else path.split("/")[-1]
    size = int(m.group(2), 16)
    sizes[module] += size
    sections[module]["." + (section or ".?").split(".")[1]] += size
print("MB      archive or module                      largest sections (MB)")
for module, size in sizes.most_common(20):
    top = ", ".join(f"{name} {value / 1e6:.1f}" for name, value in sections[module].most_common(3))
    print(f"{size / 1e6:6.2f}  {module:38s} {top}")
PY
echo
echo "who pulls full Foundation (members of libFoundation.a, by the module that first needed each):"
awk '/^Discarded input sections/ { exit } { print }' "$work/seeddb.map" \
  | grep -A1 '^/.*/libFoundation\.a(' | grep -v '^--' | grep -v 'libFoundation\.a(' \
  | awk '{ print $1 }' | sed 's#.*/release/##; s#\.build/.*##; s#.*/linux/##; s#(.*##' | sort | uniq -c | sort -rn
