#!/usr/bin/env python3
"""The last step of scripts/build_wheel.sh, on a wheel that `auditwheel repair` made:

- lists the licences of everything the wheel carries from elsewhere in
  simphant/third_party_licenses/: each shared library auditwheel bundled (simphant.libs/)
  and the header-only libraries compiled into the core, the module and the CLI, with the
  Debian package, its version and its copyright file (nanobind's from its pip package);
- with --cuda: the version gets the local label +cu13, the metadata requires NVIDIA's pip
  packages for each CUDA library the core links (the version series of its soname), and
  the core's RPATH gains $ORIGIN/../nvidia/cu13/lib, where those packages put CUDA 13's
  libraries (auditwheel drops RPATH entries outside the wheel).

    python3 scripts/wheel_repack.py [--cuda] WHEEL DIST

Writes the new wheel into DIST and prints its path as the last line. Needs `wheel` (0.48 or later: `pack --local-version`),
`patchelf`, dpkg (Debian / Ubuntu). Exits 1 with one line when a licence is not found.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

#: Header-only libraries compiled into the binaries: a header of each, to find its package.
HEADERS = {
    "Eigen": "/usr/include/eigen3/Eigen/Core",
    "nlohmann-json": "/usr/include/nlohmann/json.hpp",
    "CLI11": "/usr/include/CLI/CLI.hpp",
    "Boost (Math, Random)": "/usr/include/boost/version.hpp",
}

#: CUDA library soname stem -> NVIDIA's pip package (CUDA 13 wheels: site-packages/nvidia/cu13/lib).
NVIDIA_PACKAGES = {
    "libcublas": "nvidia-cublas",
    "libcublasLt": "nvidia-cublas",
    "libcusolver": "nvidia-cusolver",
    "libcusparse": "nvidia-cusparse",
    "libnvJitLink": "nvidia-nvjitlink",
}


def fail(message: str) -> None:
    sys.exit(f"wheel_repack: error: {message}")


def run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def debian_package(pattern: str) -> Tuple[str, str, Path]:
    """(package, version, copyright file) of the Debian package that owns a path (a glob)."""
    try:
        owner = run("dpkg", "-S", pattern).splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        fail(f"no Debian package owns {pattern} (dpkg -S)")
    package = owner.split(":", 1)[0].split(",")[0].strip()
    version = run("dpkg-query", "-W", "-f", "${Version}", package).strip()
    copyright_file = Path("/usr/share/doc") / package / "copyright"
    if not copyright_file.is_file():
        fail(f"{package}: no licence at {copyright_file}")
    return package, version, copyright_file


def bundled_original_name(name: str) -> str:
    """auditwheel's name of a bundled library -> the original file's: auditwheel inserts a
    hash before the first dot (libfoo-1a2b3c4d.so.1.2, liblber-2-64f183c1.5.so.0.1.8)."""
    return re.sub(r"-[0-9a-f]{8}(?=\.)", "", name, count=1)


def nanobind_licence() -> Tuple[str, Path]:
    dist = importlib.metadata.distribution("nanobind")
    for f in dist.files or []:
        if f.name.upper().startswith("LICENSE"):
            return dist.version, Path(str(dist.locate_file(f)))
    fail("nanobind's licence file is not in its pip package")
    raise AssertionError


def write_licences(pkg: Path, libs: Path) -> List[str]:
    """Writes simphant/third_party_licenses/ and returns its README's lines."""
    out = pkg / "third_party_licenses"
    out.mkdir(exist_ok=True)
    rows: List[str] = []
    copied: Dict[str, str] = {}

    def copy(package: str, source: Path) -> str:
        if package not in copied:
            copied[package] = f"{package}.copyright"
            shutil.copyfile(source, out / copied[package])
        return copied[package]

    for lib in sorted(libs.iterdir()) if libs.is_dir() else []:
        original = bundled_original_name(lib.name)
        package, version, source = debian_package(f"*/{original}")
        rows.append(f"| simphant.libs/{lib.name} | {original} | {package} {version} | {copy(package, source)} |")
    for name, header in HEADERS.items():
        package, version, source = debian_package(header)
        rows.append(f"| compiled in (headers) | {name} | {package} {version} | {copy(package, source)} |")
    version, source = nanobind_licence()
    shutil.copyfile(source, out / "nanobind.LICENSE")
    rows.append(f"| compiled in (module) | nanobind | nanobind {version} (pip) | nanobind.LICENSE |")
    readme = ["# Third-party software in this wheel", "",
              "SimPhant is Apache-2.0 (the wheel's LICENSE). The wheel also carries the software below,",
              "each under its own licence, whose text (Debian's copyright file of the package the",
              "wheel was built with, or the project's licence file) is in this folder.", "",
              "| file | library | package and version | licence |", "| --- | --- | --- | --- |", *rows]
    return readme


def cuda_variant(pkg: Path, dist_info: Path) -> None:
    """Requires NVIDIA's pip packages for the core's CUDA libraries and points its RPATH
    at them (the version's label +cu13 is added when the wheel is packed)."""
    cores = [p for p in pkg.glob("libsimphant.so*") if p.is_file()]
    if len(cores) != 1:
        fail(f"expected one libsimphant in the wheel, found {[p.name for p in cores]}")
    core = cores[0]
    requires = []
    for needed in run("patchelf", "--print-needed", str(core)).split():
        m = re.fullmatch(r"(lib\w+)\.so\.(\d+)", needed)
        if m and m.group(1) in NVIDIA_PACKAGES:
            req = f"Requires-Dist: {NVIDIA_PACKAGES[m.group(1)]}=={m.group(2)}.*"
            if req not in requires:
                requires.append(req)
    if not requires:
        fail(f"{core.name} links no CUDA library: was the wheel built with SIMPHANT_CUDA=ON?")
    run("patchelf", "--add-rpath", "$ORIGIN/../nvidia/cu13/lib", str(core))
    metadata = dist_info / "METADATA"
    head, sep, body = metadata.read_text().partition("\n\n")
    metadata.write_text(head + "\n" + "\n".join(requires) + sep + body)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cuda", action="store_true", help="the CUDA variant (see above)")
    ap.add_argument("wheel", type=Path)
    ap.add_argument("dist", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(sys.executable, "-m", "wheel", "unpack", "-d", tmp, str(args.wheel))
        (root,) = Path(tmp).iterdir()
        pkg = root / "simphant"
        (dist_info,) = root.glob("*.dist-info")
        readme = write_licences(pkg, root / "simphant.libs")
        (pkg / "third_party_licenses" / "README.md").write_text("\n".join(readme) + "\n")
        if args.cuda:
            cuda_variant(pkg, dist_info)
        args.dist.mkdir(parents=True, exist_ok=True)
        local = ["--local-version", "cu13"] if args.cuda else []
        out = run(sys.executable, "-m", "wheel", "pack", *local, "-d", str(args.dist), str(root))
        made = re.search(r"Repacking wheel as (.+?\.whl)", out)
        if not made:
            fail(f"wheel pack did not say which wheel it wrote: {out.strip()}")
        print("\n".join(readme[7:]))
        print(made.group(1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
