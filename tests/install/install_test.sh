#!/usr/bin/env bash
# An installed contactuq works on its own: install into a prefix, move the prefix (so nothing can
# depend on the install path or on this source tree's location), then run the installed CLI on an
# installed study, build and run a C++-only consumer with find_package(contactuq), and import the
# installed Python package.
#   install_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/first" >/dev/null
mv "$work/first" "$work/prefix"
prefix=$work/prefix
cli=$prefix/bin/contactuq
[[ -x $cli ]] || fail "no installed CLI at $cli"
for f in share/contactuq/data/materials.toml share/contactuq/studies/quickstart.toml \
         lib/python3/dist-packages/contactuq/__init__.py lib/cmake/contactuq/contactuqConfig.cmake; do
  [[ -f $prefix/$f ]] || fail "not installed: $f"
done

# The installed CLI finds its data and Python package beside itself, not in the source tree.
version=$(cd "$work" && env -u CONTACTUQ_DATA -u CONTACTUQ_PYTHON_DIR "$cli" --version)
echo "$version"
grep -qx "data: $prefix/share/contactuq/data" <<<"$version" || fail "data folder is not the installed one"
grep -qx "python: $prefix/lib/python3/dist-packages" <<<"$version" || fail "python folder is not the installed one"
# An installed study that reads the installed material table.
(cd "$work" && env -u CONTACTUQ_DATA "$cli" impact "$prefix/share/contactuq/studies/impact_models.toml" \
  -o impact.csv >/dev/null) || fail "the installed CLI cannot run an installed study"
[[ -s $work/impact.csv ]] || fail "impact wrote no CSV"

# A C++-only consumer.
mkdir -p "$work/app"
cat >"$work/app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.24)
project(app CXX)
find_package(contactuq REQUIRED)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE contactuq::contactuq)
CMAKE
cat >"$work/app/main.cpp" <<'CPP'
#include <contactuq/model/registry.hpp>
#include <iostream>
int main() {
  contactuq::model::register_builtin_models();
  for (const auto& name : contactuq::model::registered_models()) std::cout << name << "\n";
}
CPP
cmake -S "$work/app" -B "$work/app/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null \
  || fail "find_package(contactuq) failed in a C++-only project"
cmake --build "$work/app/build" -j 2 >/dev/null || fail "the consumer does not build"
"$work/app/build/app" | grep -qx receptacle_pin || fail "the consumer does not list receptacle_pin"

# README's library example as written: its cmake block after a project line, its cpp block.
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work/readme"
{ printf 'cmake_minimum_required(VERSION 3.24)\nproject(app CXX)\n'
  /usr/bin/python3 "$source_dir/scripts/check_doc_blocks.py" --extract cmake "$source_dir/README.md"; } \
  >"$work/readme/CMakeLists.txt"
/usr/bin/python3 "$source_dir/scripts/check_doc_blocks.py" --extract cpp "$source_dir/README.md" >"$work/readme/main.cpp"
cmake -S "$work/readme" -B "$work/readme/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null \
  || fail "README's cmake block does not configure"
cmake --build "$work/readme/build" -j 2 >/dev/null || fail "README's cpp block does not build"
"$work/readme/build/app" | grep -q "^arm rotation" || fail "README's cpp block does not run"

# The installed Python package, with Debian's interpreter (numpy, h5py).
if [[ -x /usr/bin/python3 ]]; then
  (cd "$work" && PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 -c \
    "import contactuq, sys; p = contactuq.__file__; print(p); sys.exit(0 if p.startswith('$prefix/') else 1)") \
    || fail "the installed Python package is not the one imported"
  # With the compiled extension (when the build has it), the installed studies list the models.
  if [[ -n $(find "$prefix/lib/python3/dist-packages/contactuq" -name '_core*.so') ]]; then
    (cd "$work" && env -u CONTACTUQ_CORE_DIR PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 -c \
      "import contactuq; names = {m['name']: m for m in contactuq.models()}; \
assert 'inputs' in names['receptacle_pin'], names['receptacle_pin']; print(sorted(names))") \
      || fail "the installed compiled Python API does not list the models from the installed studies"
  fi
fi
echo "install_test: ok"
