"""docs/python-api.md is generated from the docstrings and kept up to date."""
from __future__ import annotations

import subprocess
import sys

from conftest import python_env


def test_api_reference_is_up_to_date(root):
    proc = subprocess.run([sys.executable, str(root / "scripts" / "python_api_doc.py"), "--check"], env=python_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
