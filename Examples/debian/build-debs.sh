#!/usr/bin/env bash
# Builds levels-demo_1.0_all.deb (seed v1) and levels-demo_2.0_all.deb (seed v2) into OUTDIR
# with dpkg-deb. With OWNER (USER[:GROUP]), the postinst deploys with --owner OWNER, as a
# package whose service runs under its own account would; the postrm is the same.
# Usage: Examples/debian/build-debs.sh OUTDIR [OWNER]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seeds="$here/../../Seeds"
out=${1:?usage: build-debs.sh OUTDIR [OWNER]}
owner=${2:-}
mkdir -p "$out"
for version in 1 2; do
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' EXIT
  chmod 0755 "$stage"
  mkdir -p "$stage/DEBIAN" "$stage/usr/share/levels-demo"
  sed "s/@VERSION@/$version.0/" "$here/levels-demo/DEBIAN/control.in" > "$stage/DEBIAN/control"
  install -m 0755 "$here/levels-demo/DEBIAN/postinst" "$here/levels-demo/DEBIAN/postrm" "$stage/DEBIAN/"
  if [ -n "$owner" ]; then
    sed -i "s|seeddb deploy --system|seeddb deploy --system --owner $owner|" "$stage/DEBIAN/postinst"
  fi
  install -m 0644 "$seeds/v$version/levels.sqlite" "$seeds/v$version/seeds.json" "$stage/usr/share/levels-demo/"
  dpkg-deb --root-owner-group --build "$stage" "$out/levels-demo_${version}.0_all.deb" >/dev/null
  rm -rf "$stage"
  trap - EXIT
done
echo "$out/levels-demo_1.0_all.deb $out/levels-demo_2.0_all.deb"
