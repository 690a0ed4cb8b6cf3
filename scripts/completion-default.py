#!/usr/bin/env python3
"""Bash completion for a tool with a default subcommand (derive → addresses, sign-hash → sign,
card-info → info). ArgumentParser's script offers, before any subcommand is named, only the
subcommands' names and the root's flags, so `derive --co<TAB>` completes nothing although
`derive --coin btc` runs `derive addresses`. This rewrites the root function's fallback to
offer the default subcommand's options and values too (and the subcommands' names as the
first word). Usage: TOOL --generate-completion-script bash | completion-default.py TOOL SUBCOMMAND
"""
import re
import sys


def main(tool, default):
    script = sys.stdin.read()
    fn = "_" + tool
    start = script.index(f"\n{fn}() {{")
    end = script.index("\n}\n", start)
    body = script[start:end]
    fallback = re.search(r"    \*\)\n        # Offer subcommand completions\n        (COMPREPLY\+=\(\$\(compgen -W '[^']*' -- \"\$\{cur\}\"\)\))\n        ;;\n", body)
    if not fallback:
        sys.exit(f"completion-default: {tool}'s bash script has no subcommand fallback to rewrite (did ArgumentParser change it?)")
    replacement = f"""    *)
        # No subcommand named: the default one ({default}) takes these words; the names of
        # the subcommands are offered as the first word.
        COMPREPLY=()
        if [[ "${{COMP_CWORD}}" -eq 1 ]]; then
            {fallback.group(1)}
        fi
        unparsed_words=("${{COMP_WORDS[@]:1:${{COMP_CWORD}}}}")
        "{fn}_{default}"
        COMPREPLY=($(printf '%s\\n' "${{COMPREPLY[@]}}" | awk '!seen[$0]++'))
        ;;
"""
    body = body[:fallback.start()] + replacement + body[fallback.end():]
    sys.stdout.write(script[:start] + body + script[end:])


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
