"""The README's Python quick start runs as written."""
from __future__ import annotations

import re
import subprocess
import sys

from conftest import python_env


def quick_start_code(readme: str) -> str:
    section = readme.split("## Python quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "no ```python block in the README's Python quick start"
    return "\n".join(blocks)


def test_readme_python_quick_start(root, tmp_path):
    code = quick_start_code((root / "README.md").read_text())
    script = tmp_path / "quick_start.py"
    script.write_text(code)
    # the README's paths are relative to the repository root: run in a scratch folder that
    # links examples/, so that the files the code writes stay out of the checkout
    (tmp_path / "examples").symlink_to(root / "examples")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=python_env(), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
