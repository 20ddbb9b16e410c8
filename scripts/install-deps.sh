#!/usr/bin/env bash
# Installs the Debian packages contactuq needs. Idempotent: does nothing when all are present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libboost-dev libboost-math-dev libboost-random-dev
  libtbb-dev libhdf5-dev libdeflate-dev libnlopt-cxx-dev libsundials-dev
  catch2 libtomlplusplus-dev libcli11-dev libfmt-dev libbenchmark-dev libpagmo-dev
  libmuparser-dev libcpp-httplib-dev nlohmann-json3-dev
  python3 python3-numpy python3-scipy python3-h5py python3-matplotlib
  python3-openturns python3-pandas python3-xarray python3-pytest
  python3-dev pybind11-dev python3-pybind11
  libopenmpi-dev openmpi-bin
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
