#!/usr/bin/env bash
# Prepares .gpu-deps/ (git-ignored) for the GPU machine, which has nvcc, cmake, ninja and
# Python but no Debian packages and no network (docs/gpu-check.md): downloads the build's
# Debian packages with `apt-get download` and unpacks them with `dpkg -x` into
# .gpu-deps/root. Run it here and copy .gpu-deps to the GPU machine, where
# bench/robot_gpu_bench.sh builds from it (the GPU check itself builds nothing there: it
# runs the pack of scripts/gpu_prepare.sh). CUDA libraries are not copied: the machine has them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pkgs=(libeigen3-dev nlohmann-json3-dev libcli11-dev libspdlog-dev libspdlog1.10 libfmt-dev libfmt9
      libhdf5-dev libhdf5-103-1 libhdf5-hl-100 libaec0 libsz2 libcurl4 libnghttp2-14 librtmp1 libssh2-1
      libpsl5 libbrotli1 libldap-2.5-0 libsasl2-2 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0
      libkeyutils1 libboost-dev libboost1.74-dev libgtest-dev googletest libbenchmark-dev libbenchmark1debian
      liburdfdom-dev liburdfdom-model3.0 liburdfdom-world3.0 liburdfdom-sensor3.0 liburdfdom-model-state3.0
      liburdfdom-headers-dev libconsole-bridge-dev libconsole-bridge1.0 libtinyxml-dev libtinyxml2.6.2v5
      libtinyxml2-dev libtinyxml2-9 libassimp-dev libassimp5)
rm -rf .gpu-deps && mkdir -p .gpu-deps/debs .gpu-deps/root
(cd .gpu-deps/debs && apt-get download "${pkgs[@]}")
for d in .gpu-deps/debs/*.deb; do dpkg -x "$d" .gpu-deps/root; done
rm -rf .gpu-deps/debs .gpu-deps/root/usr/share/doc .gpu-deps/root/usr/share/man
# Boost's header tree (160 MB) exceeds the 64 MiB that go to the GPU machine with the checkout: keep only the headers the
# sources that include Boost actually pull in (as the compiler lists them).
boost_users=$(grep -rl "include <boost/" src || true)
keep=$(for f in $boost_users; do
  g++ -std=c++17 -M -Isrc -I.gpu-deps/root/usr/include -I.gpu-deps/root/usr/include/eigen3 "$f" | tr ' \\' '\n\n' |
    grep "\.gpu-deps/root/usr/include/boost/"; done | sort -u)
mkdir -p .gpu-deps/boost-keep
for h in $keep; do mkdir -p ".gpu-deps/boost-keep/$(dirname "${h#.gpu-deps/root/usr/include/}")"; cp "$h" ".gpu-deps/boost-keep/${h#.gpu-deps/root/usr/include/}"; done
rm -rf .gpu-deps/root/usr/include/boost && mv .gpu-deps/boost-keep/boost .gpu-deps/root/usr/include/boost && rm -rf .gpu-deps/boost-keep
# The copied libraries' own runtime dependencies that a bare machine may lack (libcurl's
# TLS / IDN chain behind HDF5, found missing on the H200 image: libunistring.so.2):
# copied from this machine, except the C and C++ runtimes and CUDA, which it has.
lib=.gpu-deps/root/usr/lib/x86_64-linux-gnu
for so in "$lib"/hdf5/serial/libhdf5.so "$lib"/liburdfdom_model.so "$lib"/libassimp.so; do
  ldd "$so" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r dep; do
  case "$(basename "$dep")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|ld-linux*|libstdc++*|libgcc_s*|libgomp*|libcu*|libnv*) ;;
    *) [ -e "$lib/$(basename "$dep")" ] || cp -L "$dep" "$lib/" ;;
  esac
done
# The example-robot-data URDFs the robot tests load (SIMPHANT_ROBOT_DATA there).
bash scripts/gpu_robot_data.sh .gpu-deps/robot-data
du -sh .gpu-deps
