#!/usr/bin/env bash
# setup.sh - install what `make serve` or `make test` needs on a fresh Debian 12 machine, and
# nothing when it is already there.
#
#   bash tools/setup.sh serve    the build: emscripten, SIMDe, binaryen; npm packages (esbuild)
#   bash tools/setup.sh test     the build plus the tests' tools: clang and libFuzzer's runtime,
#                                Chromium, dict-devil (the text corpus, make text); npm packages
#                                (playwright-core, the bundlers...)
#
# Debian packages: the missing ones are installed with apt-get when this runs as root (or with
# sudo when it is available without a password), saying which; otherwise the script prints the
# apt-get line to run and fails. npm packages: `npm ci` when node_modules is missing or older than
# package-lock.json. Nothing else is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-test}
case "$what" in
  serve) pkgs="make gcc emscripten libsimde-dev binaryen" ;;
  test)  pkgs="make gcc clang libclang-rt-14-dev emscripten libsimde-dev binaryen chromium dict-devil" ;;
  *) echo "setup.sh: unknown target '$what' (serve or test)" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
command -v node >/dev/null && command -v npm >/dev/null || missing="$missing nodejs npm"

if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then sudo=""
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo"
  else
    echo "setup: missing Debian packages:$missing" >&2
    echo "setup: run as root (or with sudo): apt-get update && apt-get install -y$missing" >&2
    exit 1
  fi
  echo "setup: installing Debian packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  # shellcheck disable=SC2086
  $sudo apt-get install -y -q $missing
fi

# npm ci writes node_modules/.package-lock.json last: older than package-lock.json means the
# lock file changed since the install (or the install never finished).
# A node_modules that is a link (a second work tree sharing the first one's) is left alone.
if [ -L node_modules ]; then :
elif [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci (node_modules is missing or older than package-lock.json)"
  npm ci --no-audit --no-fund
fi
