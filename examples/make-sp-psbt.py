#!/usr/bin/env python3
"""The online wallet's part of examples/silent-payment-send.sh: a version 2 PSBT (BIP370) that
pays a silent payment address as BIP375 has it (the address's scan and spend keys, no script:
the signer computes it), with one P2WPKH input named by its key's origin — what Sparrow 2.5
hands an air-gapped signer. Satchel creates no PSBTs; this stands in for the wallet that does.

Usage: make-sp-psbt.py TXID VOUT AMOUNT SCRIPT PUBKEY ORIGIN ADDRESS PAY CHANGE_SCRIPT CHANGE
  TXID VOUT AMOUNT SCRIPT  the output spent (display txid, index, satoshis, scriptPubKey hex)
  PUBKEY ORIGIN            its key (33 bytes hex) and origin ("73c5da0a/84'/1'/0'/0/0")
  ADDRESS PAY              the sp1/tsp1 address paid and the satoshis it gets
  CHANGE_SCRIPT CHANGE     an ordinary output (scriptPubKey hex) and its satoshis
Prints the PSBT in base64.
"""
import base64, struct, sys

CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def polymod(values):
    gen = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if (top >> i) & 1 else 0
    return chk


def silent_payment_keys(address):
    """The scan and spend keys of a version 0 sp1/tsp1 address (bech32m, no length limit)."""
    hrp, _, data = address.lower().rpartition("1")
    values = [CHARSET.index(c) for c in data]
    assert polymod([ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp] + values) == 0x2BC830A3, "bad checksum"
    assert hrp in ("sp", "tsp") and values[0] == 0, "not a version 0 silent payment address"
    acc, bits, out = 0, 0, bytearray()
    for v in values[1:-6]:
        acc, bits = acc << 5 | v, bits + 5
        if bits >= 8:
            bits -= 8
            out.append(acc >> bits & 0xFF)
    assert len(out) == 66
    return bytes(out)


def compact(n):
    return bytes([n]) if n < 0xFD else b"\xfd" + struct.pack("<H", n)


def pair(key_type, value, key_data=b""):
    key = bytes([key_type]) + key_data
    return compact(len(key)) + key + compact(len(value)) + value


def main(txid, vout, amount, script, pubkey, origin, address, pay, change_script, change):
    fingerprint, *steps = origin.split("/")
    path = b"".join(struct.pack("<I", int(s.rstrip("'h")) | (0x80000000 if s[-1] in "'h" else 0)) for s in steps)
    script = bytes.fromhex(script)
    glob = pair(0x02, struct.pack("<I", 2)) + pair(0x04, b"\x01") + pair(0x05, b"\x02") + pair(0x06, b"\x03")
    glob += pair(0xFB, struct.pack("<I", 2))
    inp = pair(0x0E, bytes.fromhex(txid)[::-1]) + pair(0x0F, struct.pack("<I", int(vout)))
    inp += pair(0x01, struct.pack("<Q", int(amount)) + compact(len(script)) + script)
    inp += pair(0x06, bytes.fromhex(fingerprint) + path, bytes.fromhex(pubkey))
    paid = pair(0x03, struct.pack("<Q", int(pay))) + pair(0x09, silent_payment_keys(address))
    other = pair(0x03, struct.pack("<Q", int(change))) + pair(0x04, bytes.fromhex(change_script))
    psbt = b"psbt\xff" + glob + b"\x00" + inp + b"\x00" + paid + b"\x00" + other + b"\x00"
    print(base64.b64encode(psbt).decode())


if __name__ == "__main__":
    if len(sys.argv) != 11:
        sys.exit(__doc__)
    main(*sys.argv[1:])
