"""Files of an uploaded job (docs/service.md, "Uploads"): every path stays inside the
job's folder.

A bundle entry or an uploaded file's name is refused (BundleError, HTTP 400 naming the
entry) when it is absolute, holds a `..` component, a backslash or a NUL, names a hidden
file the service writes itself, is a symbolic link or another special file, or resolves
outside the folder; the unpacked bytes are bounded like the upload, the entries by
MAX_ENTRIES. The scene's file
references (robot.urdf, sweep.file, bodies[k].visual.file, ...) and the URDF's mesh
file names are held to the same rule.
"""
from __future__ import annotations

import os
import posixpath
import stat
import xml.etree.ElementTree as ET
import zipfile
from typing import Any, BinaryIO, Iterator, List, Tuple

from .. import _simphant

#: Names the service writes in a job's folder; an upload may not use them.
RESERVED = {"scene.json", "out.h5", "run.json", "run.log", "progress.jsonl", "summary.json", "report"}
#: Keys of the scene whose string values are file names relative to the scene.
FILE_KEYS = {"urdf", "file", "mesh", "filename"}
#: Files of one bundle at most.
MAX_ENTRIES = 10000
#: Package references the scene format resolves itself (docs/robots.md).
PACKAGE_SCHEMES = ("example-robot-data:",)


class BundleError(ValueError):
    """A refused bundle entry or file reference (the message names it); HTTP `status`."""

    status = 400


class BundleTooLarge(BundleError):
    """A bundle whose unpacked files exceed the upload limit (HTTP 413)."""

    status = 413


def _too_large(n: int, limit: int, more: bool = False) -> BundleTooLarge:
    size = f"more than {limit} bytes" if more else f"{n} bytes"
    return BundleTooLarge(f"the unpacked contents of the bundle ({size}) exceed the upload limit of {limit} bytes "
                          "(limits.max_upload_bytes)")


def safe_relative(name: str, what: str) -> str:
    """`name` as a normalised relative POSIX path inside the folder, or BundleError."""
    if not name or "\x00" in name or "\\" in name:
        raise BundleError(f"{what} {name!r}: not a plain relative path")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise BundleError(f"{what} {name!r}: absolute paths are not allowed; give paths inside the bundle")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if any(len(p.encode("utf-8", "surrogateescape")) > 255 for p in parts) or len(parts) > 64:
        raise BundleError(f"{what} {name[:80]!r}{'...' if len(name) > 80 else ''}: a name longer than 255 bytes, "
                          "or more than 64 folders deep")
    if any(p == ".." for p in parts):
        raise BundleError(f"{what} {name!r}: '..' is not allowed; give paths inside the bundle")
    if not parts:
        raise BundleError(f"{what} {name!r}: not a file name")
    if parts[0] in RESERVED or any(p.startswith(".") for p in parts):
        raise BundleError(f"{what} {name!r}: reserved or hidden name")
    return "/".join(parts)


def _inside(folder: str, rel: str, what: str) -> str:
    path = os.path.realpath(os.path.join(folder, rel))
    root = os.path.realpath(folder)
    if os.path.commonpath([path, root]) != root:
        raise BundleError(f"{what} {rel!r}: resolves outside the job's folder")
    return path


def _write(folder: str, rel: str, src: BinaryIO, budget: int, what: str, limit: int) -> int:
    path = _inside(folder, rel, what)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise BundleError(f"{what} {rel!r}: a folder of its path is a file of another entry") from None
    if os.path.isdir(path):
        raise BundleError(f"{what} {rel!r}: a folder of another entry's path")
    if os.path.lexists(path):
        raise BundleError(f"{what} {rel!r}: given twice")
    n = 0
    with open(path, "xb") as f:
        while True:
            chunk = src.read(1 << 20)
            if not chunk:
                return n
            n += len(chunk)
            if n > budget:
                raise _too_large(0, limit, more=True)
            f.write(chunk)


def unpack_zip(folder: str, src: BinaryIO, budget: int, limit: int = 0) -> int:
    """Unpacks a zip bundle into folder; the bytes written (BundleError on a refused entry).

    `budget` bounds the bytes written, `limit` (default budget) is the upload limit the
    413's message names (BundleTooLarge: from the entries' declared sizes before any is
    written, or while writing when an entry holds more than it declares). An entry whose
    mode has no file-type bits (Python's zipfile.writestr, many zip tools) is a regular
    file; symbolic links and other special types are refused. The path rules come first."""
    limit = limit or budget
    try:
        z = zipfile.ZipFile(src)
    except (zipfile.BadZipFile, OSError) as e:
        raise BundleError(f"bundle: not a zip file ({e})") from None
    total = 0
    with z:
        if len(z.infolist()) > MAX_ENTRIES:
            raise BundleError(f"bundle: {len(z.infolist())} entries, more than {MAX_ENTRIES}")
        declared = sum(info.file_size for info in z.infolist() if not info.is_dir())
        if declared > budget:
            raise _too_large(declared + (limit - budget), limit)
        for info in z.infolist():
            mode = info.external_attr >> 16
            if info.is_dir():
                continue
            rel = safe_relative(info.filename, "bundle entry")
            if stat.S_IFMT(mode) and not stat.S_ISREG(mode):
                kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
                raise BundleError(f"bundle entry {info.filename!r}: {kind}; only regular files are allowed")
            try:
                with z.open(info) as f:
                    total += _write(folder, rel, f, budget - total, "bundle entry", limit)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as e:
                raise BundleError(f"bundle entry {info.filename!r}: cannot be unpacked ({e})") from None
    return total


def write_file(folder: str, name: str, src: BinaryIO, budget: int, limit: int = 0) -> int:
    """Writes one uploaded file (its name is its path in the bundle); the bytes written."""
    return _write(folder, safe_relative(name, "file"), src, budget, "file", limit or budget)


def _file_refs(node: Any, path: str = "") -> Iterator[Tuple[str, str]]:
    if isinstance(node, dict):
        for k, v in node.items():
            p = f"{path}/{k}"
            if k in FILE_KEYS and isinstance(v, str):
                yield p, v
            else:
                yield from _file_refs(v, p)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _file_refs(v, f"{path}/{i}")


def check_scene_refs(scene: Any, folder: str) -> List[str]:
    """Checks the scene's file references; the relative files it names.

    Raises BundleError naming the JSON path (e.g. "/robot/urdf") of a reference outside
    the folder; a URDF inside it has its mesh file names checked too.
    """
    files = []
    for path, value in _file_refs(scene):
        if value.startswith(PACKAGE_SCHEMES):
            if ".." in value.split(":", 1)[1].split("/"):
                raise BundleError(f"{path}: {value!r}: '..' is not allowed")
            continue
        try:
            rel = safe_relative(value, path + ":")
        except BundleError as e:
            raise BundleError(str(e).replace(":  ", ": ", 1)) from None
        _inside(folder, rel, path + ":")
        files.append(rel)
        if rel.lower().endswith(".urdf") and os.path.isfile(os.path.join(folder, rel)):
            check_urdf_refs(os.path.join(folder, rel), rel, folder)
    return files


def check_urdf_refs(urdf: str, rel: str, folder: str) -> None:
    """Mesh `filename`s of a URDF: package:// and relative names must stay inside the folder,
    and a package:// name must find its file there by the core's search."""
    try:
        root = ET.parse(urdf).getroot()
    except (ET.ParseError, OSError):
        return  # the scene validator reports a malformed URDF with its element
    base = posixpath.dirname(rel)
    for el in root.iter():
        name = el.get("filename")
        if name is None:
            continue
        what = f"{rel}: <{el.tag} filename>"
        ref = name
        if ref.startswith("package://"):
            ref = ref[len("package://"):].split("/", 1)[-1]
        elif ref.startswith("file://"):
            ref = ref[len("file://"):]
        if ref.startswith("/"):
            raise BundleError(f"{what} {name!r}: absolute paths are not allowed; give paths inside the bundle")
        joined = posixpath.normpath(posixpath.join(base, ref))
        if joined == ".." or joined.startswith("../"):
            raise BundleError(f"{what} {name!r}: resolves outside the bundle")
        _inside(folder, joined, what)
        if name.startswith("package://"):
            # The core's own search (ROS_PACKAGE_PATH, then PKG/REST and REST in the URDF's
            # folder and each one above it, nearest first) must find the file inside the
            # bundle: a name it finds nowhere could later find another job's file above.
            found = _simphant.resolve_urdf_filename(name, os.path.dirname(urdf))
            if not found:
                raise BundleError(f"{what} {name!r}: names no file in the bundle (a package:// name is looked up in "
                                  "the URDF's folder and the folders above it; give the file inside the bundle)")
            _inside(folder, os.path.relpath(os.path.realpath(found), os.path.realpath(folder)), what)
