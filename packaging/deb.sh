#!/usr/bin/env bash
# Builds the Debian package dist/go-sentinel_VERSION_ARCH.deb with dpkg-deb
# (no debhelper, no source package): a static binary (CGO_ENABLED=0, for
# GOARCH, default the host's), the tree packaging/install.sh installs with
# PREFIX=/usr in Debian's places, the maintainer scripts of
# packaging/debian, and README.Debian. `make deb` runs it; OUT sets the
# output directory. It prints the path of the package.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
GO="${GO:-go}"
command -v "$GO" >/dev/null 2>&1 || GO=/usr/local/go/bin/go
OUT="${OUT:-$root/dist}"

goarch="$("$GO" env GOARCH)"
case "$goarch" in
  amd64|arm64|riscv64|s390x) arch="$goarch" ;;
  386) arch=i386 ;;
  arm) arch=armhf ;;
  ppc64le) arch=ppc64el ;;
  *) echo "deb.sh: no Debian architecture for GOARCH=$goarch" >&2; exit 1 ;;
esac

commit="$(git rev-parse --short=8 HEAD 2>/dev/null || echo 00000000)"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
# 0.1.0-dev becomes 0.1.0~dev+git20260130121500.0bb254a1: before 0.1.0,
# ordered by commit time.
gover="$(sed -n 's/^var Version = "\(.*\)"$/\1/p' internal/buildinfo/buildinfo.go)"
stamp="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S)"
version="${gover//-/\~}+git$stamp.$commit"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ldflags="-s -w -X github.com/go-sentinel/go-sentinel/internal/buildinfo.Commit=$commit"
CGO_ENABLED=0 "$GO" build -trimpath -ldflags "$ldflags" -o "$work/go-sentinel" ./cmd/go-sentinel
# The docs generator runs here, so it is built for this machine, the way
# `make install` builds it (sharing its build cache).
env -u GOARCH -u GOOS "$GO" build -tags gendocs -ldflags "-X github.com/go-sentinel/go-sentinel/internal/buildinfo.Commit=$commit" -o "$work/gendocs" ./cmd/go-sentinel

stage="$work/root"
BIN="$work/go-sentinel" DOCGEN="$work/gendocs" DESTDIR="$stage" PREFIX=/usr \
  UNITDIR=/lib/systemd/system ZSHCOMPDIR=/usr/share/zsh/vendor-completions \
  ./packaging/install.sh
# The maintainer scripts create the user and /etc/go-sentinel with adduser,
# as Debian's redis packages do, instead of systemd-sysusers/tmpfiles.
rm -r "$stage/usr/lib/sysusers.d" "$stage/usr/lib/tmpfiles.d"
rmdir "$stage/usr/lib"
gzip -9n "$stage"/usr/share/man/man1/*.1
doc="$stage/usr/share/doc/go-sentinel"
install -d -m 0755 "$doc"
install -m 0644 packaging/debian/copyright packaging/debian/README.Debian "$doc/"

install -d -m 0755 "$stage/DEBIAN"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$stage/DEBIAN/"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/md5sums"
size="$(du -sk --apparent-size --exclude=DEBIAN "$stage" | cut -f1)"
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$size|" packaging/debian/control.in > "$stage/DEBIAN/control"
chmod 0644 "$stage/DEBIAN/control"

mkdir -p "$OUT"
deb="$OUT/go-sentinel_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
