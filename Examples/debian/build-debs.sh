#!/usr/bin/env bash
# Builds levels-demo_1.0_all.deb (seed v1) and levels-demo_2.0_all.deb (seed v2) into OUTDIR
# with dpkg-deb. With OWNER (USER[:GROUP]), the postinst deploys with --owner OWNER, as a
# package whose service runs under its own account would; the postrm is the same.
# The manifest is signed (seeds.json.minisig) and the package ships the public key that
# signed it as /etc/seeddb/keys/com.example.levels/levels-demo.pub (a conffile): there,
# `seeddb deploy --system` trusts it and deploys only manifests it signed.
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
  mkdir -p "$stage/DEBIAN" "$stage/usr/share/levels-demo" "$stage/etc/seeddb/keys/com.example.levels"
  sed "s/@VERSION@/$version.0/" "$here/levels-demo/DEBIAN/control.in" > "$stage/DEBIAN/control"
  install -m 0755 "$here/levels-demo/DEBIAN/postinst" "$here/levels-demo/DEBIAN/postrm" "$stage/DEBIAN/"
  if [ -n "$owner" ]; then
    sed -i "s|seeddb deploy --system|seeddb deploy --system --owner $owner|" "$stage/DEBIAN/postinst"
  fi
  install -m 0644 "$seeds/v$version/levels.sqlite" "$seeds/v$version/seeds.json" "$seeds/v$version/seeds.json.minisig" \
    "$stage/usr/share/levels-demo/"
  install -m 0644 "$seeds/keys/demo.pub" "$stage/etc/seeddb/keys/com.example.levels/levels-demo.pub"
  echo /etc/seeddb/keys/com.example.levels/levels-demo.pub > "$stage/DEBIAN/conffiles"
  dpkg-deb --root-owner-group --build "$stage" "$out/levels-demo_${version}.0_all.deb" >/dev/null
  rm -rf "$stage"
  trap - EXIT
done
echo "$out/levels-demo_1.0_all.deb $out/levels-demo_2.0_all.deb"
