"""The local kit: `python3 -m speculatorarena.local --task qwen3-8b --engine ./my-engine [--speculator DIR]
[--profile smoke|full] [--target DIR]` runs what the arena runs, on this machine, with the pod agent and the Node
that come in the kit (`local/`), and prints ok, warn or FAIL per gate. The same as `./speculatorarena local ...`."""

import os
import sys

KIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    node = os.path.join(KIT, "local", "node")
    entry = os.path.join(KIT, "local", "speculatorarena.mjs")
    if not (os.path.exists(node) and os.path.exists(entry)):
        sys.stderr.write(
            "speculatorarena: the local kit is not here (%s): it comes in the kit, "
            "curl -sL $SPECULATORARENA_URL/kit.tar.gz | tar xz\n" % os.path.join(KIT, "local")
        )
        return 2
    os.execv(node, [node, entry, "local"] + args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
