#!/usr/bin/env bash
# Installs go-sentinel: the binary, its man pages and bash/zsh/fish
# completions (generated from the cobra commands by a binary built with
# -tags gendocs), the documentation (README.md and docs/*.md, under
# DOCDIR), the example config, the systemd unit go-sentinel.service
# with the sysusers.d and tmpfiles.d entries that create its user and config
# directory, and the drop-in that points Debian's redis-sentinel.service at
# go-sentinel (installed disabled, under DATADIR). `make install` runs it;
# every directory below can be set on make's command line, and DESTDIR
# stages the whole tree elsewhere (packages, tests).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

: "${BIN:?the go-sentinel binary to install}"
: "${DOCGEN:?a go-sentinel built with -tags gendocs}"
DESTDIR="${DESTDIR:-}"
PREFIX="${PREFIX:-/usr/local}"
BINDIR="${BINDIR:-$PREFIX/bin}"
DATADIR="${DATADIR:-$PREFIX/share}"
MANDIR="${MANDIR:-$DATADIR/man}"
DOCDIR="${DOCDIR:-$DATADIR/doc/go-sentinel}"
# The config lives under /etc whatever the prefix: the unit, the tmpfiles
# entry and the man page name /etc/go-sentinel/sentinel.conf.
SYSCONFDIR="${SYSCONFDIR:-/etc}"
UNITDIR="${UNITDIR:-$PREFIX/lib/systemd/system}"
SYSUSERSDIR="${SYSUSERSDIR:-$PREFIX/lib/sysusers.d}"
TMPFILESDIR="${TMPFILESDIR:-$PREFIX/lib/tmpfiles.d}"
BASHCOMPDIR="${BASHCOMPDIR:-$DATADIR/bash-completion/completions}"
ZSHCOMPDIR="${ZSHCOMPDIR:-$DATADIR/zsh/site-functions}"
FISHCOMPDIR="${FISHCOMPDIR:-$DATADIR/fish/vendor_completions.d}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The man pages carry the date of the commit, so that two builds of one
# commit install the same files.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH="$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)"
fi
SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" "$DOCGEN" gendocs "$work/docs"

subst() {
  sed -e "s|@BINDIR@|$BINDIR|g" -e "s|@SYSCONFDIR@|$SYSCONFDIR|g" -e "s|@DATADIR@|$DATADIR|g" "$1" > "$2"
  if grep -n '@[A-Z]*@' "$2"; then
    echo "install.sh: unsubstituted placeholder in $1" >&2
    exit 1
  fi
}
subst "$root/packaging/go-sentinel.service.in" "$work/go-sentinel.service"
subst "$root/packaging/redis-sentinel-dropin.conf.in" "$work/redis-sentinel-dropin.conf"
subst "$root/packaging/tmpfiles.conf.in" "$work/tmpfiles.conf"

d="$DESTDIR"
install -d -m 0755 "$d$BINDIR" "$d$MANDIR/man1" "$d$BASHCOMPDIR" "$d$ZSHCOMPDIR" "$d$FISHCOMPDIR" \
  "$d$DATADIR/go-sentinel/redis-sentinel.service.d" "$d$UNITDIR" "$d$SYSUSERSDIR" "$d$TMPFILESDIR" "$d$DOCDIR"
install -m 0755 "$BIN" "$d$BINDIR/go-sentinel"
install -m 0644 "$work"/docs/man1/*.1 "$d$MANDIR/man1/"
install -m 0644 "$work/docs/completion/go-sentinel" "$d$BASHCOMPDIR/go-sentinel"
install -m 0644 "$work/docs/completion/_go-sentinel" "$d$ZSHCOMPDIR/_go-sentinel"
install -m 0644 "$work/docs/completion/go-sentinel.fish" "$d$FISHCOMPDIR/go-sentinel.fish"
install -m 0644 "$root/README.md" "$root"/docs/*.md "$d$DOCDIR/"
install -m 0644 "$root/configs/sentinel.conf.example" "$d$DATADIR/go-sentinel/sentinel.conf.example"
install -m 0644 "$work/redis-sentinel-dropin.conf" "$d$DATADIR/go-sentinel/redis-sentinel.service.d/go-sentinel.conf"
install -m 0644 "$work/go-sentinel.service" "$d$UNITDIR/go-sentinel.service"
install -m 0644 "$root/packaging/sysusers.conf" "$d$SYSUSERSDIR/go-sentinel.conf"
install -m 0644 "$work/tmpfiles.conf" "$d$TMPFILESDIR/go-sentinel.conf"

if [ -z "$DESTDIR" ]; then
  cat <<MSG
Installed go-sentinel under $PREFIX. To run it as a service:
  systemd-sysusers go-sentinel.conf && systemd-tmpfiles --create go-sentinel.conf
  edit $SYSCONFDIR/go-sentinel/sentinel.conf, then: systemctl daemon-reload && systemctl enable --now go-sentinel
To run Debian's redis-sentinel.service with go-sentinel instead, see
$DATADIR/go-sentinel/redis-sentinel.service.d/go-sentinel.conf.
MSG
fi
