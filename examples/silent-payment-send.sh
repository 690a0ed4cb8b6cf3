#!/usr/bin/env bash
# Paying a silent payment address from an air-gapped signer (BIP375), end to end on a throw-away
# regtest node (Debian's litecoind on 127.0.0.1, in a temporary directory, stopped at the end):
#
#   1. the receiver publishes a tsp1 address and keeps a watch-only record (its scan key);
#   2. online: the sender's coins arrive; the wallet makes a version 2 PSBT paying the address
#      (its keys, no script: examples/make-sp-psbt.py stands in for Sparrow here);
#   3. offline: `sign-tx` adds the ECDH share and its proof, computes the output's script, shows
#      it beside the address, signs and finalizes; the machine needs no network;
#   4. online: the transaction is broadcast; `scan-blocks` finds it in the node's mempool
#      (pending), then in a block;
#   5. for light receivers: a pass with no wallet writes the blocks' tweak records (into a pipe
#      here; a file, copied elsewhere, as well), and the receiver finds the payment in them with
#      its scan key alone.
#
# The keys are BIP39's public test phrases: never fund them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
port=$((20000 + RANDOM % 10000))
rpc=(-regtest "-datadir=$work/node" "-rpcport=$port")
cleanup() { litecoin-cli "${rpc[@]}" stop > /dev/null 2>&1 || true; sleep 1; rm -rf "$work"; }
trap cleanup EXIT
umask 077
mkdir "$work/node"
command -v litecoind > /dev/null || { echo "litecoind is not installed (apt-get install litecoind)" >&2; exit 69; }
# -txindex: litecoind 0.21 gives a block's spent outputs through getrawtransaction only.
litecoind "${rpc[@]}" -daemon -listen=0 -txindex -rpcbind=127.0.0.1 -rpcallowip=127.0.0.1 -fallbackfee=0.0001 -printtoconsole=0 > /dev/null
for _ in $(seq 100); do litecoin-cli "${rpc[@]}" getblockcount > /dev/null 2>&1 && break; sleep 0.2; done
cli() { litecoin-cli "${rpc[@]}" "$@"; }
field() { tr -d "\n" | sed -E "s/.*\"$1\": ?\"([^\"]*)\".*/\1/"; }
offline() { if unshare --net true 2> /dev/null; then unshare --net "$@"; else "$@"; fi; }
scan() {
  scan-blocks --chain litecoin --network regtest --birthday 0 --state-dir "$work/state" \
    --node "127.0.0.1:$port" --rpc-cookie "$work/node/regtest/.cookie" < "$work/receiver.jsonl"
}

# 1. The receiver: its address, and a watch-only record (the scan key, the spend public key).
echo '{"mnemonic":"legal winner thank year wave sausage worth useful legal winner thank yellow"}' |
  derive account --purpose 352 --view-only --coin ltc --network regtest > "$work/receiver.jsonl"
address=$(field address < "$work/receiver.jsonl")
echo "receiver's address: $address"

# 2. Online: 1 LTC to the sender's first BIP84 address, mined; the wallet's PSBT pays 0.6 LTC
#    to the silent payment address and 0.3999 LTC elsewhere.
echo '{"mnemonic":"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"}' > "$work/key.json"
sender=$(derive --coin ltc --network regtest --purpose 84 --count 1 < "$work/key.json")
fingerprint=$(derive account --coin ltc --network regtest --purpose 84 < "$work/key.json" | field master_fingerprint)
cli createwallet miner > /dev/null
miner=$(cli -rpcwallet=miner getnewaddress "" bech32)
cli generatetoaddress 101 "$miner" > /dev/null
from=$(echo "$sender" | field address)
txid=$(cli -rpcwallet=miner sendtoaddress "$from" 1.0)
cli generatetoaddress 1 "$miner" > /dev/null
script=$(cli -rpcwallet=miner getaddressinfo "$from" | field scriptPubKey)
vout=$(cli getrawtransaction "$txid" true | python3 -c "import json,sys; print([o['n'] for o in json.load(sys.stdin)['vout'] if o['scriptPubKey']['hex'] == '$script'][0])")
psbt=$("$here/make-sp-psbt.py" "$txid" "$vout" 100000000 "$script" "$(echo "$sender" | field public_key)" \
  "$fingerprint/84'/1'/0'/0/0" "$address" 60000000 "$(cli -rpcwallet=miner getaddressinfo "$miner" | field scriptPubKey)" 39990000)

# 3. Offline: the summary (the address paid beside the script computed), then the signed
#    transaction.
echo "{\"psbt\":\"$psbt\"}" | offline sign-tx --coin ltc --network regtest --key-file "$work/key.json" --max-fee 100000 \
  --finalize > "$work/signed.jsonl"
head -1 "$work/signed.jsonl" | python3 -c "
import json, sys
s = json.load(sys.stdin)
for o in s['outputs']:
    to = o.get('silent_payment', 'another address')
    computed = ' (its script computed: a taproot output)' if 'silent_payment' in o and o['address'].startswith('rltc1p') else ''
    print(f\"output {o['index']}: {o['amount']} to {to}{computed}, change: {str(o['change']).lower()}\")
print(f\"fee {s['fee']}, signed offline: {sum(1 for i in s['inputs'] if i['ours'])} input\")"

# 4. Online: broadcast; the receiver's scan sees it in the mempool, then mined.
cli sendrawtransaction "$(sed -n 2p "$work/signed.jsonl" | field hex)" > /dev/null
summarize() {
  python3 -c "
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r['type'] in ('pending', 'received'):
        print(f\"  {r['type']}: {r['value']} litoshi, {r['confirmations']} confirmation(s)\")
    if r['type'] == 'balance':
        print(f\"  balance: confirmed {r['confirmed']}, unconfirmed {r['unconfirmed']}\")"
}
echo "in the mempool:"
scan | summarize
cli generatetoaddress 1 "$miner" > /dev/null
echo "mined:"
scan | summarize

# 5. Tweak records: written from the node with no wallet, read with the scan key alone.
echo "from tweak records:"
scan-blocks --chain litecoin --network regtest --birthday 0 --state-dir "$work/writer" --node "127.0.0.1:$port" \
  --rpc-cookie "$work/node/regtest/.cookie" --tweaks-out - < /dev/null |
  scan-blocks --chain litecoin --network regtest --birthday 0 --state-dir "$work/light" --key-file "$work/receiver.jsonl" \
    --tweaks - | summarize
