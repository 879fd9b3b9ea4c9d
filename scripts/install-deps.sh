#!/usr/bin/env bash
# Installs what sinkd's build, tests, demo and benchmarks need, and nothing that is already there.
# Safe to run again: Debian packages are installed only when missing, and `npm ci` runs only when the
# committed lock file changed since the last install (or node_modules is absent).
set -euo pipefail
cd "$(dirname "$0")/.."

debian_packages=(
  build-essential cmake ninja-build pkg-config git curl ca-certificates
  clang libclang-rt-14-dev
  jq
  libprotobuf-dev protobuf-compiler libzstd-dev libxxhash-dev libssl-dev libcurl4-openssl-dev
  libnats-dev nats-server postgresql libpq-dev libtomlplusplus-dev libcpp-httplib-dev
  libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-boto3 python3-avro libdeflate-dev libgoogle-perftools-dev zstd procps strace openssl systemd ccache
  prometheus help2man man-db lintian dpkg-dev graphviz
)

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

stamp=node_modules/.sinkd-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "install-deps: npm ci (test tools from package-lock.json)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
