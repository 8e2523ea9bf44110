"""scripts/wheel_repack.py, the last step of scripts/build_wheel.sh, on a small wheel made
here around a copy of the core library: the licence list, and the CUDA variant (NVIDIA's
pip packages required for the CUDA libraries the core links, the RPATH that finds them,
the +cu13 version). The CUDA variant is built only on a machine with the CUDA toolkit;
its library is stood in for by the CPU core with the two CUDA libraries added to its
needed list (patchelf), which is all the script reads of it."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def make_wheel(tmp: Path, core: Path, needed: list) -> Path:
    """simphant-0.2.0 with simphant/libsimphant.so.0.2 (a copy of `core` needing `needed`
    too), packed by `wheel pack`."""
    src = tmp / "simphant-0.2.0"
    (src / "simphant").mkdir(parents=True)
    lib = src / "simphant" / "libsimphant.so.0.2"
    shutil.copyfile(core, lib)
    for name in needed:
        subprocess.run(["patchelf", "--add-needed", name, str(lib)], check=True)
    info = src / "simphant-0.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: simphant\nVersion: 0.2.0\n"
                                   "Requires-Dist: numpy>=1.22\n\n# SimPhant\n")
    (info / "WHEEL").write_text("Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n"
                                "Tag: cp311-cp311-manylinux_2_35_x86_64\n")
    (tmp / "in").mkdir()
    subprocess.run([sys.executable, "-m", "wheel", "pack", "-d", str(tmp / "in"), str(src)], check=True,
                   capture_output=True)
    (wheel,) = (tmp / "in").glob("*.whl")
    return wheel


def repack(tmp: Path, wheel: Path, *flags: str) -> Path:
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "wheel_repack.py"), *flags, str(wheel),
                        str(tmp / "out")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = Path(r.stdout.strip().splitlines()[-1])
    assert out.parent == tmp / "out" and out.is_file()
    return out


@pytest.fixture()
def core(cli):
    """The core library beside the CLI of the build tree (build/libsimphant.so.X.Y.Z)."""
    return next(p for p in sorted(Path(cli).resolve().parent.glob("libsimphant.so.*")) if not p.is_symlink())


def test_licences_are_listed(tmp_path, core):
    out = repack(tmp_path, make_wheel(tmp_path, core, []))
    assert out.name == "simphant-0.2.0-cp311-cp311-manylinux_2_35_x86_64.whl"
    with zipfile.ZipFile(out) as z:
        readme = z.read("simphant/third_party_licenses/README.md").decode()
        names = set(z.namelist())
    for library in ("Eigen", "nlohmann-json", "CLI11", "nanobind"):
        row = next(line for line in readme.splitlines() if f"| {library} |" in line)
        assert f"simphant/third_party_licenses/{row.rstrip(' |').rsplit('|', 1)[1].strip()}" in names, row


def test_cuda_variant_requires_nvidia_packages_and_finds_them(tmp_path, core):
    out = repack(tmp_path, make_wheel(tmp_path, core, ["libcublas.so.13", "libcusolver.so.12"]), "--cuda")
    assert out.name == "simphant-0.2.0+cu13-cp311-cp311-manylinux_2_35_x86_64.whl"
    with zipfile.ZipFile(out) as z:
        z.extractall(tmp_path / "x")
        metadata = z.read("simphant-0.2.0+cu13.dist-info/METADATA").decode()
    head = metadata.split("\n\n", 1)[0].splitlines()
    assert "Version: 0.2.0+cu13" in head
    assert "Requires-Dist: nvidia-cublas==13.*" in head and "Requires-Dist: nvidia-cusolver==12.*" in head
    assert "Requires-Dist: numpy>=1.22" in head
    rpath = subprocess.run(["patchelf", "--print-rpath", str(tmp_path / "x" / "simphant" / "libsimphant.so.0.2")],
                           capture_output=True, text=True, check=True).stdout
    assert "$ORIGIN/../nvidia/cu13/lib" in rpath.strip().split(":")


def test_cuda_variant_of_a_cpu_build_is_refused(tmp_path, core):
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "wheel_repack.py"), "--cuda",
                        str(make_wheel(tmp_path, core, [])), str(tmp_path / "out")], capture_output=True, text=True)
    assert r.returncode == 1 and "links no CUDA library" in r.stderr
