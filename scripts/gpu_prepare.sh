#!/usr/bin/env bash
# Builds, on this machine (no GPU needed), everything the GPU check runs, and packs it into
# .gpu-prebuilt/ (git-ignored) for the GPU machine, so that the check there builds nothing
# (docs/gpu-check.md): the CUDA build (sm_90 + compute_90 PTX, Release) of `simphant`,
# libsimphant, every GPU test (test_*cuda*), every CPU-side kernel test (test_*grid*) and
# the Python module for the GPU machine's Python (3.12); all stripped, with the shared
# libraries they load that are not part of a base system or of CUDA, and the
# example-robot-data URDFs. The GPU machine accepts 64 MiB of copied files: the pack is
# checked against 60 MiB.
#
# The sources are copied to a fixed folder, /tmp/simphant-gpu/src, and built there
# (build-gpu/): the tests find examples/ and tests/data through the source path compiled
# into them, which the check links to its own checkout. A later run rebuilds only what
# changed. .gpu-prebuilt/files.sha1 lists every source file the build was made from; the
# check refuses a checkout that differs.
#
#   bash scripts/gpu_prepare.sh      # about 9 min on 2 cores from nothing, seconds when nothing changed
# Environment: SIMPHANT_GPU_PYTHON, a Python 3.12 interpreter (default: python3.12 on the
# PATH or pyenv's 3.12); without one the pack has no Python module and the check's Python
# step says so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD
src=/tmp/simphant-gpu/src
build=$src/build-gpu
dest=$repo/.gpu-prebuilt
limit_mib=60
t0=$SECONDS

# The interpreter of the GPU machine's Python module: 3.12 (its python3 is 3.12.3).
py=${SIMPHANT_GPU_PYTHON:-}
if [ -z "$py" ]; then
  for cand in python3.12 /root/.pyenv/versions/3.12*/bin/python3 "$(pyenv root 2>/dev/null)"/versions/3.12*/bin/python3; do
    if "$cand" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then
      py=$(command -v "$cand")
      break
    fi
  done
fi
with_python=OFF
if [ -n "$py" ]; then
  "$py" -m nanobind --cmake_dir >/dev/null 2>&1 || "$py" -m pip install -q nanobind
  with_python=ON
else
  echo "gpu_prepare: no Python 3.12 found (SIMPHANT_GPU_PYTHON): the pack has no Python module"
fi

# One prepare or rehearsal at a time on this machine (they share $src).
mkdir -p "$(dirname "$src")"
exec 9>"$(dirname "$src")/.lock"
flock -n 9 || { echo "gpu_prepare: another prepare or rehearsal holds $(dirname "$src")/.lock" >&2; exit 2; }
# A link there is the GPU check's (it links the path to its checkout where the path is
# free): removed, never followed, so that the copy below cannot touch that checkout.
[ -L "$src" ] && rm -f "$src"

# The sources: tracked and untracked-but-not-ignored files, as the GPU machine receives
# them; files that left the checkout leave the copy (a stale .cpp would be globbed in).
mkdir -p "$src"
list=$(mktemp)
git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
  sort -z >"$list"
tar --null -T "$list" -cf - | (cd "$src" && tar -xf -)
(cd "$src" && find . -path ./build-gpu -prune -o -type f -print0 | sed -z 's#^\./##' | sort -z) |
  comm -z -23 - "$list" | (cd "$src" && xargs -0 -r rm -f)
# The list the check verifies its checkout against: the copy as built, not the checkout,
# which may change while this runs.
sums=$(mktemp)
(cd "$src" && xargs -0 sha1sum <"$list") >"$sums"

configure=(-S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSIMPHANT_CUDA=ON
           -DSIMPHANT_BUILD_BENCH=OFF -DSIMPHANT_BUILD_TESTS=ON "-DSIMPHANT_PYTHON=$with_python")
[ -n "$py" ] && configure+=(-DPython_EXECUTABLE="$py")
cmake "${configure[@]}" >"$src/configure.log"
targets=$(ninja -C "$build" -t targets all | grep -oE '^test_[A-Za-z0-9_]*(cuda|grid)[A-Za-z0-9_]*: phony' | cut -d: -f1 |
          sort -u)
[ "$with_python" = ON ] && targets="$targets _simphant simphant_python_sources"
# shellcheck disable=SC2086  # $targets splits into the target names
cmake --build "$build" -j"$(nproc)" --target simphant $targets
t_build=$((SECONDS - t0))

# The pack: the build's outputs under build-gpu/ as the check expects them, stripped.
stage=$(mktemp -d)
trap 'rm -rf "$stage" "$list" "$sums"' EXIT
mkdir -p "$stage/build-gpu/tests" "$stage/build-gpu/python" "$stage/lib"
cp -a "$build"/libsimphant.so* "$build/simphant" "$stage/build-gpu/"
for t in $targets; do
  case $t in test_*) cp "$build/tests/$t" "$stage/build-gpu/tests/" ;; esac
done
if [ "$with_python" = ON ]; then
  cp -a "$build/python/simphant" "$stage/build-gpu/python/"
  find "$stage/build-gpu/python" -name __pycache__ -prune -exec rm -rf {} +
fi
elves=$(find "$stage/build-gpu" -type f \( -name 'lib*.so*' -o -name '*.so' -o -perm -u+x \) -exec sh -c \
        'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
for f in $elves; do strip --strip-unneeded "$f"; done
# The shared libraries these load, except a base system's (C and C++ runtimes, zlib) and
# CUDA's, which the GPU machine has: it has no Debian packages (HDF5, urdfdom, spdlog, ...).
# shellcheck disable=SC2086
for f in $elves; do ldd "$f" 2>/dev/null; done | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u | while read -r so; do
  case "$(basename "$so")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|ld-linux*|libstdc++*|libgcc_s*|libgomp*|\
    libz.so*|libcu*|libnv*|libsimphant*) ;;
    *) cp -L "$so" "$stage/lib/" ;;
  esac
done
strip --strip-unneeded "$stage"/lib/*.so* 2>/dev/null || true
bash scripts/gpu_robot_data.sh "$stage/robot-data"

rm -rf "$dest" && mkdir -p "$dest"
parts=(build-gpu lib)
[ -d "$stage/robot-data" ] && parts+=(robot-data)
tar -C "$stage" -czf "$dest/build.tar.gz" "${parts[@]}"
cp "$sums" "$dest/files.sha1"
size=$(du -sm "$dest" | cut -f1)
{
  echo "source: $src"
  echo "commit: $(git rev-parse --short HEAD) (+ uncommitted changes: $(git status --porcelain | wc -l) files)"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "nvcc: $(/usr/local/cuda/bin/nvcc --version | tail -1)"
  echo "cuda code: $(grep -oE -- '--generate-code=arch=[a-z_0-9]+,code=\[[a-z_0-9]+\]' "$build/build.ninja" | sort -u |
                     sed -E 's/.*code=\[(.*)\]/\1/' | tr '\n' ' ')"
  echo "python: $([ "$with_python" = ON ] && "$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' || echo none)"
  echo "tests: $(echo "$targets" | grep -c '^test_')"
  echo "copied libraries: $(find "$stage/lib" -type f | wc -l)"
  echo "robot URDFs: $(find "$stage/robot-data" -name '*.urdf' 2>/dev/null | wc -l)"
  echo "build seconds: $t_build"
  echo "pack MiB: $size"
} >"$dest/manifest.txt"
cat "$dest/manifest.txt"
if [ "$size" -gt "$limit_mib" ]; then
  echo "gpu_prepare: the pack is $size MiB, over the $limit_mib MiB that leave room in the GPU machine's 64 MiB" >&2
  exit 1
fi
echo "gpu_prepare: ready; copy .gpu-prebuilt to the GPU machine (docs/gpu-check.md)"
