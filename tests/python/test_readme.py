"""README.md lists every shipped study (studies/*.toml, studies/*.py), every registered model
(`contactuq models`) and every method (`contactuq run --help`): a new one fails here until the
README names it."""
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("CONTACTUQ_CLI", os.path.join(ROOT, "build", "release", "contactuq"))


def _readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


def test_every_shipped_study_is_in_the_readme():
    readme = _readme()
    studies = sorted(n for n in os.listdir(os.path.join(ROOT, "studies"))
                     if n.endswith((".toml", ".py")) and not n.startswith("."))
    assert studies
    missing = [n for n in studies if f"studies/{n}" not in readme and f"`{n}`" not in readme]
    assert not missing, f"README.md does not list {missing}"


@pytest.mark.skipif(not os.path.exists(CLI), reason="the contactuq executable is not built")
def test_every_registered_model_and_method_is_in_the_readme():
    readme = _readme()
    listing = subprocess.run([CLI, "models"], capture_output=True, text=True, check=True).stdout
    models = re.findall(r"^  (\w+) ", listing, re.MULTILINE)
    assert "receptacle_pin" in models
    help_text = subprocess.run([CLI, "run", "--help"], capture_output=True, text=True, check=True).stdout
    methods = re.search(r"Run any study \(([^)]*)\)", help_text).group(1).split(", ")
    assert "sample" in methods and "reliability" in methods
    missing = [n for n in models + methods if f"`{n}`" not in readme]
    assert not missing, f"README.md does not name (in backticks) {missing}"
