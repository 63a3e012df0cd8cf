#!/usr/bin/env bash
# Builds the container image $IMAGE (default go-sentinel:COMMIT) from
# Containerfile with podman, or buildah when podman is missing: puts a
# static binary (CGO_ENABLED=0) and the root filesystem skeleton into a
# build context and builds FROM scratch, so no registry is needed.
# `make image` runs it. It prints the image name.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
GO="${GO:-go}"
command -v "$GO" >/dev/null 2>&1 || GO=/usr/local/go/bin/go
commit="$(git rev-parse --short=8 HEAD 2>/dev/null || echo 00000000)"
IMAGE="${IMAGE:-go-sentinel:$commit}"

if command -v podman >/dev/null 2>&1; then
  build=(podman build)
elif command -v buildah >/dev/null 2>&1; then
  build=(buildah build)
else
  echo "make image needs podman or buildah (apt-get install podman)" >&2
  exit 1
fi

ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
ldflags="-s -w -X github.com/go-sentinel/go-sentinel/internal/buildinfo.Commit=$commit"
CGO_ENABLED=0 "$GO" build -trimpath -ldflags "$ldflags" -o "$ctx/go-sentinel" ./cmd/go-sentinel
chmod 0755 "$ctx/go-sentinel"
install -d -m 0755 "$ctx/skel/etc" "$ctx/skel/run"
install -d -m 1777 "$ctx/skel/tmp"
install -d -m 0770 "$ctx/config"
install -m 0640 configs/sentinel.conf.example "$ctx/config/sentinel.conf"
install -d -m 0755 "$ctx/run"
cp Containerfile "$ctx/Containerfile"
"${build[@]}" --quiet -f "$ctx/Containerfile" -t "$IMAGE" "$ctx" >/dev/null
echo "$IMAGE"
