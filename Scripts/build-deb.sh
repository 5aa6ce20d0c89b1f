#!/usr/bin/env bash
# Builds the Debian package of seeddb itself: OUTDIR/seeddb_<version>_<arch>.deb, with
#   /usr/bin/seeddb                                        the self-contained binary (build-release.sh)
#   /usr/share/man/man1/seeddb.1.gz                        from swift-argument-parser's generate-manual plugin
#   /usr/share/bash-completion/completions/seeddb          } from
#   /usr/share/zsh/vendor-completions/_seeddb              } seeddb --generate-completion-script
#   /usr/share/fish/vendor_completions.d/seeddb.fish       }
#   /usr/share/doc/seeddb/copyright, changelog.Debian.gz
# and Depends: computed by dpkg-shlibdeps from the binary, plus libsodium23 (loaded at run time). The version is `seeddb --version`.
#
# Usage: Scripts/build-deb.sh OUTDIR      (prints the .deb's path)
# Needs: Swift, dpkg-dev (dpkg-shlibdeps), binutils (strip). Timestamps come from
# SOURCE_DATE_EPOCH when set, else from the last commit.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: Scripts/build-deb.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
maintainer="SeedDB authors <seeddb@example.com>"

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH

# 1. The man page, from `seeddb --experimental-dump-help`. The plugin builds every product
#    first; in debug mode, in the ordinary .build, which `swift build` and `swift test` reuse
#    (the text does not depend on the build mode, and a release build with other flags than
#    step 2's would compile everything twice).
swift package plugin --allow-writing-to-package-directory \
  generate-manual --configuration debug --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)" >&2
manual=$(find .build/plugins -path '*GenerateManual*' -name seeddb.1 -print -quit)
[ -n "$manual" ] || { echo "build-deb.sh: the generate-manual plugin made no seeddb.1" >&2; exit 1; }

# 2. The self-contained binary.
binary=$(Scripts/build-release.sh)
version=$("$binary" --version)
arch=$(dpkg --print-architecture)

# 3. The package's tree.
stage=$(mktemp -d)
scaffold=$(mktemp -d)
trap 'rm -rf "$stage" "$scaffold"' EXIT
chmod 0755 "$stage"
doc=usr/share/doc/seeddb
for directory in DEBIAN usr/bin usr/share/man/man1 usr/share/bash-completion/completions \
  usr/share/zsh/vendor-completions usr/share/fish/vendor_completions.d "$doc"; do
  install -d -m 0755 "$stage/$directory"
done
install -m 0755 "$binary" "$stage/usr/bin/seeddb"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/seeddb"
seeddb="$stage/usr/bin/seeddb"
# bash-completion sources its scripts: no "#!" line (lintian's bash-completion-with-hashbang).
"$seeddb" --generate-completion-script bash | sed '1{/^#!/d}' > "$stage/usr/share/bash-completion/completions/seeddb"
"$seeddb" --generate-completion-script zsh > "$stage/usr/share/zsh/vendor-completions/_seeddb"
"$seeddb" --generate-completion-script fish > "$stage/usr/share/fish/vendor_completions.d/seeddb.fish"
# The generated mdoc keeps the blank lines of the help texts, which groff warns about
# (lintian's groff-message): they separate paragraphs, so say so with .Pp.
sed 's/^$/.Pp/' "$manual" | gzip -9n > "$stage/usr/share/man/man1/seeddb.1.gz"

{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: SeedDB"
  echo "Upstream-Contact: $maintainer"
  echo
  echo "Files: *"
  echo "Copyright: 2026 The SeedDB authors"
  echo "License: MIT"
  echo
  echo "License: MIT"
  # The license text, indented, with empty lines as " .", as the format wants.
  sed -n '/^Permission is hereby granted/,$p' LICENSE | sed -e 's/^$/./' -e 's/^/ /'
} > "$stage/$doc/copyright"

cat > "$scaffold/changelog" <<CHANGELOG
seeddb ($version) unstable; urgency=medium

  * seeddb $version, built from the SeedDB repository by Scripts/build-deb.sh.
    See the repository's CHANGELOG.md for what changed.

 -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")
CHANGELOG
gzip -9n < "$scaffold/changelog" > "$stage/$doc/changelog.Debian.gz"
find "$stage/usr/share" -type f -exec chmod 0644 {} +

# 4. Depends: what the binary links, as dpkg-shlibdeps says (it needs a debian/control).
mkdir "$scaffold/debian"
printf 'Source: seeddb\nMaintainer: %s\n\nPackage: seeddb\nArchitecture: any\n' "$maintainer" > "$scaffold/debian/control"
depends=$(cd "$scaffold" && dpkg-shlibdeps -O "$seeddb" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# libsodium is loaded at run time (BLAKE2b and scrypt for minisign's prehashed signatures
# and secret keys; see Sources/SeedDB/Signing/Sodium.swift): dpkg-shlibdeps cannot see it.
depends="$depends, libsodium23"

cat > "$stage/DEBIAN/control" <<CONTROL
Package: seeddb
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Section: database
Priority: optional
Description: deploy versioned SQLite seed databases safely and fast
 seeddb copies the read-only SQLite database an application ships (its
 seed) to a writable working copy, on first run and whenever the seed's
 version changes, and remembers the deployed version. The copy is atomic
 and durable, checked before it is swapped in, and safe while the
 application has the database open.
 .
 Its --system mode is made for maintainer scripts and service units: the
 working copies live in /var/lib/<app> or /var/cache/<app>.
CONTROL
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
find "$stage" -exec touch --no-dereference -d "@$SOURCE_DATE_EPOCH" {} +

deb="$out/seeddb_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$stage" "$deb" >&2
echo "$deb"
