#pragma once
// The check for damaged global heaps, run before HDF5 opens a file (file_options::check_heaps).

#include <string>

namespace contactuq::io::hdf5::detail {

// Throws hdf5::error when a global heap collection of the file (where variable-length strings
// live) is damaged, before HDF5 reads it: HDF5 would read out of bounds. The file is scanned
// for the collections' signature (a few hundred MB/s).
void check_global_heaps(const std::string& name);

}  // namespace contactuq::io::hdf5::detail
