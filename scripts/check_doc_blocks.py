#!/usr/bin/env python3
"""Runs the ```sh blocks of Markdown files, in order, in one bash session per file (set -e), from
the project folder, then the file's ```python blocks as one program with Debian's interpreter
(so later blocks see earlier ones' names, and the sh blocks' exports), and fails naming the
file and block when one fails.

    scripts/run_doc_snippets.py docs/tutorial.md [more.md ...]
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
PYTHON = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def run_file(path):
    with open(path) as f:
        text = f.read()
    blocks = BLOCK.findall(text)
    python = PYTHON.findall(text)
    if not blocks and not python:
        print(f"{path}: no sh or python blocks")
        return 1
    # One script: a block's exports and folders carry on to the next, as in one terminal.
    script = ["set -euo pipefail"]
    for k, block in enumerate(blocks, 1):
        script.append(f"echo '--- {os.path.relpath(path, ROOT)}: block {k} of {len(blocks)}' >&2")
        script.append(block)
    if python:
        script.append(f"echo '--- {os.path.relpath(path, ROOT)}: the {len(python)} python blocks' >&2")
        script.append("/usr/bin/python3 - <<'CONTACTUQ_PYTHON_BLOCKS'\n" + "\n".join(python) +
                      "CONTACTUQ_PYTHON_BLOCKS")
    result = subprocess.run(["bash", "-c", "\n".join(script)], cwd=ROOT)
    if result.returncode != 0:
        print(f"{path}: a block failed (exit {result.returncode}); the last '---' line above names it",
              file=sys.stderr)
        return 1
    print(f"{path}: {len(blocks)} sh and {len(python)} python blocks ran")
    return 0


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    return max(run_file(p) for p in argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
