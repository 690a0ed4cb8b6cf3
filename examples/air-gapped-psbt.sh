#!/usr/bin/env bash
# Air-gapped signing of a Litecoin transaction with a PSBT, end to end on a throw-away regtest
# node (Debian's litecoind on 127.0.0.1, in a temporary directory, stopped at the end):
#
#   1. offline, once: `derive account` writes the account's descriptors (no secret);
#   2. online: the node's watch-only wallet holds them, sees the coins and makes a PSBT;
#   3. offline: `sign-tx` shows what it signs (inputs, outputs, which output is change, fee)
#      and signs; the machine needs no network (here: a network namespace without one);
#   4. online: the node finalizes the PSBT and broadcasts the transaction, which is mined.
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
litecoind "${rpc[@]}" -daemon -listen=0 -rpcbind=127.0.0.1 -rpcallowip=127.0.0.1 -fallbackfee=0.0001 -printtoconsole=0 > /dev/null
for _ in $(seq 100); do litecoin-cli "${rpc[@]}" getblockcount > /dev/null 2>&1 && break; sleep 0.2; done
cli() { litecoin-cli "${rpc[@]}" "$@"; }
field() { tr -d "\n" | sed -E "s/.*\"$1\": ?\"([^\"]*)\".*/\1/"; }
# Runs a command where the network is unreachable, as on an offline machine, when this shell may.
offline() { if unshare --net true 2> /dev/null; then unshare --net "$@"; else "$@"; fi; }

# 1. Offline: the key stays here; the account record goes to the online machine.
echo '{"mnemonic":"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"}' > "$work/key.json"
derive account --coin ltc --network regtest --purpose 84 < "$work/key.json" > "$work/account.jsonl"

# 2. Online: a watch-only wallet of the account's receive and change descriptors, funded.
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
echo "watch-only wallet: $(cli -rpcwallet=watch getbalances | tr -d ' \n' | sed -E 's/.*"watchonly":\{"trusted":([0-9.]+).*/\1/') LTC"
# A payment of 0.5 LTC to someone else; the change goes to the account's first change address.
payee=$(echo '{"mnemonic":"zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong"}' | derive --coin ltc --network regtest --count 1 | field address)
change_address=$(derive --coin ltc --network regtest --purpose 84 --change 1 --count 1 < "$work/account.jsonl" | field address)
cli -rpcwallet=watch walletcreatefundedpsbt '[]' "[{\"$payee\":0.5}]" 0 \
  "{\"includeWatching\":true,\"changeAddress\":\"$change_address\",\"changePosition\":1}" true | field psbt > "$work/unsigned.psbt"

# 3. Offline: the summary, then the signature (the signed PSBT is a binary file).
offline sign-tx --coin ltc --network regtest --key-file "$work/key.json" --max-fee 100000 \
  --in "$work/unsigned.psbt" --out "$work/signed.psbt" > "$work/signed.jsonl"
head -1 "$work/signed.jsonl" | sed -E 's/.*"outputs":\[(.*)\],"input_total".*"fee":"([0-9]+)".*/\1 fee=\2/' |
  sed -E 's/\{"index":([0-9]),"amount":"([0-9]+)","address":"([^"]+)","change":(true|false)[^}]*\}/output \1: \2 to \3 (change: \4)/g; s/,output/\noutput/'
sed -n 2p "$work/signed.jsonl" | sed -E 's/.*"complete":(true|false).*"signed_inputs":\[([0-9,]*)\].*/signed offline: inputs [\2], complete: \1/'

# 4. Online: finalize, broadcast, mine.
hex=$(cli finalizepsbt "$(base64 -w0 "$work/signed.psbt")" | field hex)
txid=$(cli sendrawtransaction "$hex")
cli generatetoaddress 1 "$(cli -rpcwallet=miner getnewaddress "" bech32)" > /dev/null
echo "broadcast and mined: $(cli -rpcwallet=watch gettransaction "$txid" true | tr -d ' \n' | sed -E 's/.*"confirmations":([0-9]+).*/\1/') confirmation"
echo "watch-only wallet: $(cli -rpcwallet=watch getbalances | tr -d ' \n' | sed -E 's/.*"watchonly":\{"trusted":([0-9.]+).*/\1/') LTC"
