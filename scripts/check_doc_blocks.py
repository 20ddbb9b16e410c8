#!/usr/bin/python3
"""Runs every fenced code block of Markdown files as written, and fails naming the file and block
when one fails. By the block's language:

  sh, bash   run in order in one bash session per file (set -euo pipefail), from the project
             folder, with the built `contactuq` first on PATH and HOME a scratch folder; a line
             that is just `make test` is skipped: it is the command that runs this check
             (.ci/run)
  python     after the file's sh blocks, all of them as one program with Debian's interpreter
             (later blocks see earlier ones' names), PYTHONPATH=python
  toml       a study: checked with `contactuq check` (every key, unit, range, data file and the
             plan's size, as `run` reads it). "```toml studies/x.toml" marks a fragment: it is
             merged into that shipped study (its tables replace the study's keys) first
  cmake, cpp README's library example: built and run against an installed contactuq by
             tests/install/install_test.sh (--extract prints them)
  text       output, diagrams, file layouts: not code, not run
  matlab     not run: no MATLAB on the test machines

A line `<!-- doc-check: COMMAND -->` in a file runs COMMAND before its sh blocks (preparing what a
reader would already have, e.g. a stand-in for a cluster's sbatch). A block without a language
is an error: say what it is.

    scripts/check_doc_blocks.py [--bin DIR] FILE.md [FILE.md ...]
    scripts/check_doc_blocks.py --extract LANG FILE.md      # the blocks of one language
"""
import os
import re
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)
SETUP = re.compile(r"^<!-- doc-check: (.*?) -->$", re.M)
SHELL, PYTHON, STUDY, BUILT_ELSEWHERE = {"sh", "bash"}, {"python"}, {"toml"}, {"cmake", "cpp"}
NOT_RUN = {"text": "not code", "matlab": "no MATLAB on the test machines"}


def blocks_of(text):
    """(line, language, argument, body) of every fenced block."""
    found = []
    for m in FENCE.finditer(text):
        words = m.group(1).split()
        found.append((text.count("\n", 0, m.start()) + 1, words[0] if words else "",
                      words[1] if len(words) > 1 else "", m.group(2)))
    return found


def merged(base, fragment):
    """`base` with the tables of `fragment` laid over it (values and arrays replace)."""
    out = dict(base)
    for k, v in fragment.items():
        out[k] = merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def check_study(bin_dir, rel, line, base, body):
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from contactuq.api import to_toml  # noqa: E402  (the package's own dict -> TOML writer)
    try:
        study = tomllib.loads(body)
    except tomllib.TOMLDecodeError as e:
        return f"{rel}:{line}: the toml block is not TOML: {e}"
    folder = os.path.join(ROOT, "studies")
    if base:
        with open(os.path.join(ROOT, base), "rb") as f:
            study = merged(tomllib.load(f), study)
        folder = os.path.dirname(os.path.join(ROOT, base))
    # Beside the study it extends, so that its relative data paths resolve as they would.
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix=".doc-check-", dir=folder, delete=False) as f:
        f.write(to_toml(study))
    try:
        r = subprocess.run([os.path.join(bin_dir, "contactuq"), "check", f.name], cwd=ROOT,
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        return f"{rel}:{line}: the toml block{' (on ' + base + ')' if base else ''} is refused: {r.stderr.strip()}"
    return None


def run_file(path, bin_dir):
    rel = os.path.relpath(path, ROOT)
    with open(path) as f:
        text = f.read()
    blocks = blocks_of(text)
    errors, counts = [], {}
    shell, python = [], []
    for line, lang, arg, body in blocks:
        counts[lang or "?"] = counts.get(lang or "?", 0) + 1
        if lang in SHELL:
            body = "\n".join("# make test: runs this check (.ci/run)" if l.split("#")[0].strip() == "make test" else l
                             for l in body.splitlines())
            shell.append(f"echo '--- {rel}:{line}' >&2\n{body}")
        elif lang in PYTHON:
            python.append(f"# --- {rel}:{line}\n{body}")
        elif lang in STUDY:
            if (error := check_study(bin_dir, rel, line, arg, body)):
                errors.append(error)
        elif lang in BUILT_ELSEWHERE:
            if rel != "README.md":
                errors.append(f"{rel}:{line}: a {lang} block is built only in README.md (by the install test)")
        elif lang not in NOT_RUN:
            errors.append(f"{rel}:{line}: a block without a known language ({lang or 'none'}); use sh, python, "
                          f"toml, cmake, cpp, or text for output and diagrams")
    script = ["set -euo pipefail"] + SETUP.findall(text) + shell
    if python:
        script.append(f"echo '--- {rel}: its {len(python)} python blocks' >&2")
        script.append("/usr/bin/python3 - <<'CONTACTUQ_PYTHON_BLOCKS'\n" + "\n".join(python) +
                      "\nCONTACTUQ_PYTHON_BLOCKS")
    if shell or python:
        with tempfile.TemporaryDirectory(prefix="doc-check-home-") as home:
            env = dict(os.environ, HOME=home, PATH=f"{bin_dir}:{os.environ.get('PATH', '')}",
                       PYTHONPATH=os.path.join(ROOT, "python"))
            core = os.path.join(bin_dir, "python", "contactuq")
            if os.path.isdir(core):
                env.setdefault("CONTACTUQ_CORE_DIR", core)
            r = subprocess.run(["bash", "-c", "\n".join(script)], cwd=ROOT, env=env)
        if r.returncode != 0:
            errors.append(f"{rel}: a block failed (exit {r.returncode}); the last '---' line above names it")
    for e in errors:
        print(e, file=sys.stderr)
    summary = ", ".join(f"{n} {lang}" for lang, n in sorted(counts.items()))
    print(f"{rel}: {'FAILED' if errors else 'ok'} ({summary or 'no blocks'})")
    return 1 if errors else 0


def main(argv):
    if len(argv) == 3 and argv[0] == "--extract":
        with open(argv[2]) as f:
            print("".join(body for _, lang, _, body in blocks_of(f.read()) if lang == argv[1]), end="")
        return 0
    bin_dir = os.path.join(ROOT, "build", "release")
    if argv[:1] == ["--bin"]:
        bin_dir, argv = os.path.abspath(argv[1]), argv[2:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    return max(run_file(os.path.abspath(p), bin_dir) for p in argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
