#!/usr/bin/env bash
# Installs the Debian packages Satchel needs, only those missing. Non-interactive; needs root
# (or sudo) only when something is missing. zbar-tools (QR codes are decoded) and monero
# (a real monerod and monero-wallet-rpc on 127.0.0.1) are for the tests. Usage: scripts/install-deps.sh [extra packages…]
set -euo pipefail

packages=(pkg-config libsecp256k1-dev libsodium-dev libzstd-dev libpcsclite-dev libqrencode-dev libsqlite3-dev libssl-dev libb2-dev protobuf-compiler openssl python3-grpcio python3-protobuf mandoc zbar-tools monero curl zstd pcscd vsmartcard-vpcd python3-pyscard python3-venv "$@")

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
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null; then
  echo "install-deps: no swift on PATH (Swift 6.1 or newer is needed; /opt/swift/usr/bin on the project machine)" >&2
  exit 69
fi
