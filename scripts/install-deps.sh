#!/usr/bin/env bash
# Install what hoodie needs to build and test, when it is missing: Debian packages (apt-get) and the npm test
# oracles (@duckdb/node-api; s3rver and aws4 for the S3 test server tests/oracle/s3server.mjs; curl and openssl
# for its credential and https tests). Safe to run repeatedly; does nothing when everything is there.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

pkgs=(build-essential cmake pkg-config zlib1g-dev libzstd-dev libsnappy-dev liblz4-dev libjansson-dev libavro-dev
      libsqlite3-dev sqlite3 libcurl4-openssl-dev curl openssl nodejs npm clang)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node/npm may come from elsewhere than Debian (as on the CI image): accept any working binaries.
if command -v node >/dev/null && command -v npm >/dev/null; then
  tmp=(); for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || tmp+=("$p"); done; missing=("${tmp[@]}")
fi
if command -v clang >/dev/null; then
  tmp=(); for p in "${missing[@]}"; do [[ $p == clang ]] || tmp+=("$p"); done; missing=("${tmp[@]}")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}"
fi

oracle="$here/tests/oracle"
if [ ! -d "$oracle/node_modules/@duckdb/node-api" ] || [ ! -d "$oracle/node_modules/s3rver" ] ||
   [ ! -d "$oracle/node_modules/aws4" ]; then
  echo "install-deps: installing the test oracles (npm: DuckDB, s3rver, aws4)"
  (cd "$oracle" && npm ci --no-audit --no-fund --loglevel=error)
fi
