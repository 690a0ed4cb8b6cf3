#!/usr/bin/env bash
# Installs the Debian packages Satchel needs, only those missing. Non-interactive; needs root
# (or sudo) only when something is missing. Usage:
#   scripts/install-deps.sh [--list] [--test] [extra packages…]   (--list: print them, install nothing)
# Without --test: what building and running the tools needs (make, make demo, make install).
# With --test: also what the tests use — zbar-tools (QR codes decoded), monero (a real monerod
# and monero-wallet-rpc on 127.0.0.1), litecoind (a real Litecoin node in regtest), pcscd and vsmartcard-vpcd (a virtual Keycard), grpcio
# (the fake lightwalletd), mandoc (the man pages' lint), strace (the offline proof), valgrind (make ctime), b3sum (the BLAKE3 oracle), …
# A dpkg or apt lock held by another program (unattended-upgrades, a second install) is
# waited for, up to DPKG_LOCK_TIMEOUT seconds (default 600), instead of failing at once.
set -euo pipefail

build=(pkg-config python3 libsecp256k1-dev libsodium-dev libzstd-dev libpcsclite-dev libqrencode-dev libsqlite3-dev libssl-dev libb2-dev zlib1g-dev libleveldb-dev)
test=(protobuf-compiler openssl python3-grpcio python3-protobuf mandoc man-db binutils zbar-tools monero litecoind curl zstd pcscd vsmartcard-vpcd python3-pyscard python3-venv strace valgrind b3sum)

list=no
if [ "${1:-}" = "--list" ]; then list=yes; shift; fi
packages=("${build[@]}")
if [ "${1:-}" = "--test" ]; then
  packages+=("${test[@]}")
  shift
fi
packages+=("$@")
if [ $list = yes ]; then printf '%s\n' "${packages[@]}"; exit 0; fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
    echo "install-deps: need root to install: ${missing[*]}" >&2; exit 69
  fi
  export DEBIAN_FRONTEND=noninteractive
  wait=${DPKG_LOCK_TIMEOUT:-600}
  lock=(-o "DPkg::Lock::Timeout=$wait")
  # apt-get update takes the lists lock, which older apt does not wait for: try again while
  # another apt holds it, within the same time limit.
  deadline=$((SECONDS + wait))
  until "${sudo[@]}" apt-get "${lock[@]}" update -qq; do
    if [ $SECONDS -ge $deadline ]; then echo "install-deps: apt-get update failed (lock held for ${wait}s?)" >&2; exit 75; fi
    echo "install-deps: apt-get update failed; trying again in 5 s" >&2
    sleep 5
  done
  "${sudo[@]}" apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null; then
  echo "install-deps: no swift on PATH (Swift 6.1 or newer is needed; /opt/swift/usr/bin on the project machine)" >&2
  exit 69
fi
