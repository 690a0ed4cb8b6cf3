#!/usr/bin/env python3
"""make bench: the UR fountain decoder under a hostile screen (issue 56 point 3).

satchel-bench ur-hostile feeds 1,000 to 10,000 mixed parts of a 10,000-fragment message that
never completes to URDecoder, and, as the reference in the same run, parses the same texts
alone. Printed: parts a second at each count, and the decoder's time per part over the
parse's. A decoder whose work per part grows with the parts before it (the old one: 38 s for
1,000 such parts) shows a rising ratio; a bounded one a flat one.
"""
import argparse, json, os, subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--bin", required=True)
args = ap.parse_args()
out = subprocess.run([os.path.join(args.bin, "satchel-bench"), "ur-hostile"], capture_output=True, text=True, check=True).stdout
print("UR fountain decoding, hostile mixed parts of a 10,000-fragment message (release build)")
print(f"{'parts':>7} {'parts/s':>10} {'parse alone, parts/s':>21} {'decode/parse':>13}")
for line in out.splitlines():
    r = json.loads(line)
    d, p = r["decode_s_per_part"], r["parse_s_per_part"]
    print(f"{r['parts']:>7} {1 / d:>10.0f} {1 / p:>21.0f} {d / p:>13.2f}")
