#!/usr/bin/env bash
# Builds sinkd_<version>_<arch>.deb from a finished build with Debian's own tools (dpkg-deb,
# dpkg-shlibdeps), no debhelper: `make deb`, and tests/deploy/package_test.cc.
# Usage: build-deb.sh <build dir> <output dir>   (prints the path of the .deb it wrote)
# The files are those of `cmake --install <build dir> --prefix /usr --strip` (the one list of what
# is installed, deploy/CMakeLists.txt), plus what only a package has: /etc/sinkd/sinkd.toml as a
# conffile, the maintainer scripts, the copyright file and the Debian changelog.
# Nothing is compiled: a build without the binary, the man page or the completion is refused.
set -euo pipefail

build=$(realpath "$1")
out=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
source_dir=$(realpath "$here/../..")
cmake=${CMAKE:-cmake}

binary="$build/src/cli/sinkd"
for made in "$binary" "$build/deploy/sinkd.1" "$build/deploy/sinkd.bash"; do
  if [ ! -f "$made" ]; then
    echo "build-deb: $made is missing: run \`make build\` first" >&2
    exit 1
  fi
done

version=$("$binary" version | sed -n 's/^sinkd version \([^ ]*\) .*/\1/p')
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-$(git -C "$source_dir" log -1 --format='%an <%ae>' 2>/dev/null || true)}
maintainer=${maintainer:-sinkd maintainers <sinkd@localhost>}
# The changelog's date is the source's (SOURCE_DATE_EPOCH, else the last commit), so the same tree
# builds the same package.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$source_dir" log -1 --format=%ct 2>/dev/null || date +%s)}

work=$(mktemp -d "$out/.sinkd-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/root"

DESTDIR="$root" "$cmake" --install "$build" --prefix /usr --strip >/dev/null
# What dh_strip also drops: the compiler's .comment and the .note section.
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/sinkd"
install -D -m 0644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/sinkd"

# The settings every unit reads; a conffile, so an upgrade never overwrites the operator's edits.
install -D -m 0644 "$source_dir/deploy/examples/sinkd.toml" "$root/etc/sinkd/sinkd.toml"

# Debian's documentation rules: compressed man page and changelogs, a copyright file.
doc="$root/usr/share/doc/sinkd"
gzip -9n "$root/usr/share/man/man1/sinkd.1"
# (No `| head` under pipefail: git would die of SIGPIPE and fail the build.)
first_year=$(git -C "$source_dir" log --reverse --format=%cd --date=format:%Y 2>/dev/null |
             sed -n 1p || true)
last_year=$(date -u -d "@$epoch" +%Y)
years=${first_year:-$last_year}
[ "$years" = "$last_year" ] || years="$years-$last_year"
sed "s|@YEARS@|$years|" "$here/copyright.in" > "$doc/copyright"
chmod 0644 "$doc/copyright"
{
  printf 'sinkd (%s) unstable; urgency=medium\n\n' "$version"
  printf '  * Built from the sinkd source tree (make deb).\n'
  printf '  * Its changes are in /usr/share/doc/sinkd/CHANGELOG.md.gz.\n\n'
  printf ' -- %s  %s\n' "$maintainer" "$(LC_ALL=C date -u -R -d "@$epoch")"
} > "$doc/changelog"
gzip -9n "$doc/changelog"
install -m 0644 "$source_dir/CHANGELOG.md" "$doc/CHANGELOG.md"
gzip -9n "$doc/CHANGELOG.md"

# Depends: the shared libraries the binary links, as dpkg-shlibdeps finds their packages (it
# reads a debian/control, which only has to name the package).
mkdir -p "$work/src/debian"
printf 'Source: sinkd\n\nPackage: sinkd\nArchitecture: any\n' > "$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e "$root/usr/bin/sinkd" 2>/dev/null |
          sed -n 's/^shlibs:Depends=//p')
if [ -z "$depends" ]; then
  echo "build-deb: dpkg-shlibdeps found no dependencies of $root/usr/bin/sinkd" >&2
  exit 1
fi

mkdir -p "$root/DEBIAN"
installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@INSTALLED_SIZE@|$installed_size|" -e "s|@DEPENDS@|$depends|" \
    "$here/control.in" > "$root/DEBIAN/control"
echo /etc/sinkd/sinkd.toml > "$root/DEBIAN/conffiles"
install -m 0755 "$here/postinst" "$here/postrm" "$root/DEBIAN/"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
   xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"

# Directories 0755 and files 0644 (0755 when executable) whatever the umask of this build.
find "$root" -type d -exec chmod 0755 {} +
find "$root" -path "$root/DEBIAN" -prune -o -type f -perm /111 -exec chmod 0755 {} + \
  -o -type f -exec chmod 0644 {} +

deb="$out/sinkd_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
