#!/usr/bin/env python3
"""A multisig descriptor's scriptPubKeys by embit (pinned in the test's venv), for
DeriveToolTests: argv[1] the descriptor (keys ending in /<0;1>/*), then chain/index pairs
("1/5"); writes one hex scriptPubKey a line."""
import sys
from embit.descriptor import Descriptor

d = Descriptor.from_string(sys.argv[1])
for place in sys.argv[2:]:
    chain, index = (int(x) for x in place.split("/"))
    print(d.derive(index, branch_index=chain).script_pubkey().data.hex())
