#!/usr/bin/env python3
"""An independent client for Satchel's simulated Keycard: the PyPI `keycard` SDK (0.4.0, on
pyscard) drives it through pcscd. Run by KeycardPCSCTests with the virtual stack started.

It initializes the card, pairs, opens the secure channel, verifies the PIN, loads the BIP39
seed of "abandon … about", exports m/44'/60'/0'/0/0 and signs a hash there, and checks every
answer with its own code (hashlib, python-ecdsa). It prints one JSON line and leaves the card
initialized with the key, so that Satchel's tools can then pair with a card the SDK set up.
Test data only: these credentials and this phrase are public.
"""
import hashlib, json, sys

from ecdsa import SECP256k1, VerifyingKey
from ecdsa.util import sigdecode_string
from smartcard.System import readers

from keycard import constants
from keycard.keycard import KeyCard
from keycard.transport import Transport

PHRASE = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
PATH = "m/44'/60'/0'/0/0"
EXPECTED_PUBLIC = "0437b0bb7a8288d38ed49a524b5dc98cff3eb5ca824c9f9dc0dfdb3d9cd600f299a6179912b7451c09896c4098eca7ce6b2e58330672795e847c4d6af44e024230"
EXPECTED_UID = "16f5b9c7657df5e0b45016292d852a36622fb39b63c28017ccf21633270858f1"


def check(condition, what):
    if not condition:
        sys.exit(f"keycard-sdk-check: {what}")


def main():
    names = [str(r) for r in readers()]
    index = next((i for i, n in enumerate(names) if n.startswith("Satchel Virtual PCD") and n.endswith("00 00")), None)
    check(index is not None, f"no Satchel virtual reader among {names}")
    transport = Transport()
    transport.connect(index)
    card = KeyCard(transport)
    info = card.select()
    check(not card.is_initialized, "the card should be new")
    secret = hashlib.pbkdf2_hmac("sha256", b"KeycardTest", b"Keycard Pairing Password Salt", 50000, 32)
    card.init("123456", "123456789012", secret, alt_pin="654321")
    card.select()
    check(card.version == (3, 2), f"applet version {card.version}")
    card.pair(secret, constants.PairingMode.PERSISTENT)
    card.open_secure_channel()
    check(card.verify_pin("123456"), "PIN not verified")
    seed = hashlib.pbkdf2_hmac("sha512", PHRASE.encode(), b"mnemonic", 2048)
    uid = card.load_key(constants.LoadKeyType.BIP39_SEED, bip39_seed=seed)
    check(bytes(uid).hex() == EXPECTED_UID, f"key UID {bytes(uid).hex()}")
    exported = card.export_key(constants.DerivationOption.DERIVE, public_only=True, keypath=PATH)
    public = bytes(exported.public_key).hex()
    check(public == EXPECTED_PUBLIC, f"public key {public}")
    digest = hashlib.sha256(b"signed through the PyPI keycard SDK").digest()
    result = card.sign_with_path(digest, PATH)
    key = VerifyingKey.from_string(bytes.fromhex(public)[1:], curve=SECP256k1)
    check(key.verify_digest(bytes(result.r).rjust(32, b"\0") + bytes(result.s).rjust(32, b"\0"), digest, sigdecode=sigdecode_string),
          "the signature does not verify")
    check(int.from_bytes(bytes(result.s), "big") <= SECP256k1.order // 2, "high S")
    status = card.status  # a property in this SDK
    check(status.get("pin_retry_count") == 3, f"status {status}")
    print(json.dumps({"sdk": "keycard 0.4.0", "reader": names[index], "public_key": public, "key_uid": bytes(uid).hex(),
                      "signature_valid": True, "status": status}, default=str))
    transport.disconnect()


if __name__ == "__main__":
    main()
