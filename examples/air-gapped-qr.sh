#!/usr/bin/env bash
# Air-gapped signing with QR codes only, end to end on a throw-away regtest node (Debian's
# litecoind on 127.0.0.1, in a temporary directory, stopped at the end). Pictures stand in for
# the screens and webcams: each side writes its frames as PNG images, and zbarimg reads them
# as a camera would (with a webcam: `zbarcam --raw | …` and `--qr` to show them instead).
#
#   1. online: the node's watch-only wallet makes a PSBT; `sign-tx --convert` turns it into
#      UR frames (ur:crypto-psbt, what Sparrow, Keystone and Jade show);
#   2. offline, with no network: the frames are read, the PSBT is summed up and signed, and the
#      answer is frames again;
#   3. online: the signed frames are read back into a PSBT, which the node finalizes and
#      broadcasts, and a block is mined.
#
# The key is BIP39's public test phrase "abandon … about": never fund it.
set -euo pipefail
work=$(mktemp -d)
rpc=(-regtest "-datadir=$work/node" "-rpcport=$((20000 + RANDOM % 10000))")
cleanup() { litecoin-cli "${rpc[@]}" stop > /dev/null 2>&1 || true; sleep 1; rm -rf "$work"; }
trap cleanup EXIT
umask 077
mkdir "$work/node"
command -v litecoind > /dev/null || { echo "litecoind is not installed (apt-get install litecoind)" >&2; exit 69; }
command -v zbarimg > /dev/null || { echo "zbarimg is not installed (apt-get install zbar-tools)" >&2; exit 69; }
litecoind "${rpc[@]}" -daemon -listen=0 -rpcbind=127.0.0.1 -rpcallowip=127.0.0.1 -fallbackfee=0.0001 -printtoconsole=0 > /dev/null
for _ in $(seq 100); do litecoin-cli "${rpc[@]}" getblockcount > /dev/null 2>&1 && break; sleep 0.2; done
cli() { litecoin-cli "${rpc[@]}" "$@"; }
field() { tr -d "\n" | sed -E "s/.*\"$1\": ?\"([^\"]*)\".*/\1/"; }
offline() { if unshare --net true 2> /dev/null; then unshare --net "$@"; else "$@"; fi; }
# What a camera reads from a set of frames (zbarimg prints one text a line).
scan() { zbarimg --raw -q "$1"/*.png 2> /dev/null; }

# The offline machine's account, given to the online wallet once (no secret in it).
echo '{"mnemonic":"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"}' > "$work/key.json"
derive account --coin ltc --network regtest --purpose 84 < "$work/key.json" > "$work/account.jsonl"
cli createwallet watch true true > /dev/null
receive=$(field descriptor < "$work/account.jsonl")
change=$(field change_descriptor < "$work/account.jsonl")
cli -rpcwallet=watch importmulti "[{\"desc\":\"$receive\",\"range\":[0,9],\"watchonly\":true,\"timestamp\":0},
  {\"desc\":\"$change\",\"range\":[0,9],\"watchonly\":true,\"timestamp\":0,\"internal\":true}]" > /dev/null
cli createwallet miner > /dev/null
cli generatetoaddress 101 "$(cli -rpcwallet=miner getnewaddress "" bech32)" > /dev/null
ours=$(derive --coin ltc --network regtest --purpose 84 --count 1 < "$work/account.jsonl" | field address)
cli -rpcwallet=miner sendtoaddress "$ours" 1.0 > /dev/null
cli generatetoaddress 1 "$(cli -rpcwallet=miner getnewaddress "" bech32)" > /dev/null

# 1. Online: a payment of 0.5 LTC, as a PSBT, as UR frames.
payee=$(echo '{"mnemonic":"zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong"}' | derive --coin ltc --network regtest --count 1 | field address)
change_address=$(derive --coin ltc --network regtest --purpose 84 --change 1 --count 1 < "$work/account.jsonl" | field address)
cli -rpcwallet=watch walletcreatefundedpsbt '[]' "[{\"$payee\":0.5}]" 0 \
  "{\"includeWatching\":true,\"changeAddress\":\"$change_address\",\"changePosition\":1}" true | field psbt |
  base64 -d > "$work/unsigned.psbt"
sign-tx --convert --coin ltc --network regtest --in "$work/unsigned.psbt" --qr-transport ur --qr-fragment 100 \
  --qr-dir "$work/unsigned" > /dev/null
echo "online: the PSBT as $(ls "$work/unsigned" | wc -l) UR frames ($(scan "$work/unsigned" | head -1 | cut -d/ -f1))"

# 2. Offline: read the frames, sign, show the answer as frames.
scan "$work/unsigned" | offline sign-tx --coin ltc --network regtest --key-file "$work/key.json" --max-fee 100000 \
  --qr-fragment 100 --qr-dir "$work/signed" > "$work/signed.jsonl" 2> "$work/progress.txt"
tail -1 "$work/progress.txt"
head -1 "$work/signed.jsonl" | sed -E 's/.*"outputs":\[(.*)\],"input_total".*"fee":"([0-9]+)".*/\1 fee=\2/' |
  sed -E 's/\{"index":([0-9]),"amount":"([0-9]+)","address":"([^"]+)","change":(true|false)[^}]*\}/output \1: \2 to \3 (change: \4)/g; s/,output/\noutput/'
echo "offline: the signed PSBT as $(ls "$work/signed" | wc -l) UR frames"

# 3. Online: read the answer, finalize, broadcast, mine.
psbt=$(scan "$work/signed" | sign-tx --convert --coin ltc --network regtest 2> /dev/null | field psbt)
hex=$(cli finalizepsbt "$psbt" | field hex)
txid=$(cli sendrawtransaction "$hex")
cli generatetoaddress 1 "$(cli -rpcwallet=miner getnewaddress "" bech32)" > /dev/null
echo "broadcast and mined: $(cli -rpcwallet=watch gettransaction "$txid" true | tr -d ' \n' | sed -E 's/.*"confirmations":([0-9]+).*/\1/') confirmation"
echo "watch-only wallet: $(cli -rpcwallet=watch getbalances | tr -d ' \n' | sed -E 's/.*"watchonly":\{"trusted":([0-9.]+).*/\1/') LTC"
