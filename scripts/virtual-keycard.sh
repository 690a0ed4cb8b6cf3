#!/usr/bin/env bash
# Satchel's simulated Keycard behind the real PC/SC stack, for tests and examples:
# keycard-sim serves the card on 127.0.0.1:PORT (and a blank card on PORT+1), and pcscd runs
# with a private reader.conf in which vpcd (reversed mode) connects to it. Loopback only;
# Debian's stock vpcd config, which listens on 0.0.0.0, is not used.
#
#   scripts/virtual-keycard.sh start DIR [PORT]   # needs keycard-sim and card-info on PATH
#   scripts/virtual-keycard.sh stop DIR
#
# pcscd runs in a private mount namespace whose /run/pcscd is DIR/run (pcsc-lite 1.9's daemon
# has its socket path built in), so a system pcscd beside it is never touched. Clients reach
# this one through PCSCLITE_CSOCK_NAME, which the library honours; `start` prints
#   export PCSCLITE_CSOCK_NAME=DIR/run/pcscd.comm
# for the caller to eval. Without unshare(1) rights it falls back to the machine's /run/pcscd
# and refuses (exit 69) when another pcscd is running there.
set -euo pipefail
command=${1:-}; dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR [PORT]" >&2; exit 64; }

stop_pid() {  # SIGTERM, then wait for it to go
  local file=$1
  [ -f "$file" ] || return 0
  local pid; pid=$(cat "$file")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$file"
}

# Starts a daemon in the background with only stdin/stdout/stderr: a descriptor inherited from
# the caller (Foundation's Process watches one to see its child end) must not live on in it.
detach() {
  (
    for fd in /proc/self/fd/*; do
      n=${fd##*/}
      [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null
    done
    exec "$@"
  ) &
}

case $command in
start)
  port=${3:-$((40000 + (RANDOM % 10000) * 2))}
  mkdir -p "$dir/reader.conf.d" "$dir/run"
  private=no
  if unshare --mount --propagation private true 2>/dev/null; then
    private=yes
    export PCSCLITE_CSOCK_NAME="$dir/run/pcscd.comm"
  elif pgrep -x pcscd >/dev/null; then
    echo "virtual-keycard: a pcscd is running and no private mount namespace can be made (unshare needs root): stop that pcscd, or run as root" >&2; exit 69
  fi
  printf 'FRIENDLYNAME "Satchel Virtual PCD"\nDEVICENAME   127.0.0.1:0x%X\nLIBPATH      /usr/lib/pcsc/drivers/serial/libifdvpcd.so\nCHANNELID    0x%X\n' \
    "$port" "$port" > "$dir/reader.conf.d/vpcd"
  # The card program first, then pcscd (vpcd aborts pcscd when its card is not there).
  detach keycard-sim --port "$port" < /dev/null > "$dir/keycard-sim.log" 2>&1
  echo $! > "$dir/keycard-sim.pid"
  for _ in $(seq 50); do grep -q listening "$dir/keycard-sim.log" 2>/dev/null && break; sleep 0.1; done
  grep -q listening "$dir/keycard-sim.log" || { echo "virtual-keycard: keycard-sim did not start" >&2; cat "$dir/keycard-sim.log" >&2; exit 69; }
  if [ $private = yes ]; then
    # /run/pcscd in the namespace is our directory: the socket appears in $dir/run.
    detach unshare --mount --propagation private -- sh -c 'mount --bind "$1" /run/pcscd 2>/dev/null || { mkdir -p /run/pcscd && mount --bind "$1" /run/pcscd; } && exec pcscd -f -c "$2"' \
      sh "$dir/run" "$dir/reader.conf.d" < /dev/null > "$dir/pcscd.log" 2>&1
  else
    detach pcscd -f -c "$dir/reader.conf.d" < /dev/null > "$dir/pcscd.log" 2>&1
  fi
  echo $! > "$dir/pcscd.pid"
  for _ in $(seq 100); do
    if card-info --reader "Satchel Virtual PCD" > /dev/null 2>&1; then
      [ $private = yes ] && echo "export PCSCLITE_CSOCK_NAME=$dir/run/pcscd.comm"
      exit 0
    fi
    sleep 0.2
  done
  echo "virtual-keycard: the virtual reader did not appear" >&2; tail -5 "$dir/pcscd.log" >&2
  stop_pid "$dir/pcscd.pid"; stop_pid "$dir/keycard-sim.pid"; exit 69
  ;;
stop)
  stop_pid "$dir/pcscd.pid"       # pcscd before the card program
  stop_pid "$dir/keycard-sim.pid"
  ;;
*) echo "usage: $0 start|stop DIR [PORT]" >&2; exit 64 ;;
esac
