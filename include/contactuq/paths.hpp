#pragma once
// Where contactuq finds the files it ships (the material table, the Python package), so that an
// installed tool never reads the source tree it was built from:
//   1. the environment variable, when set and not empty;
//   2. beside the running executable in an install tree: <prefix>/bin/contactuq finds
//      <prefix>/share/contactuq/data and <prefix>/lib/python3/dist-packages (relocatable: move the
//      prefix and it still works);
//   3. the source tree of the build (a tool run from its build folder).

#include <filesystem>

namespace contactuq {

// Data folder (materials.toml, insertion data): $CONTACTUQ_DATA, else as above.
std::filesystem::path data_dir();
// Folder that holds the `contactuq` Python package: $CONTACTUQ_PYTHON_DIR, else as above.
std::filesystem::path python_dir();

}  // namespace contactuq
