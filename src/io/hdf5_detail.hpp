#pragma once
// The pieces of the HDF5 wrapper (contactuq/io/hdf5.hpp) that its source files share: HDF5's
// error reporting turned into hdf5::error, the type and space helpers, and the string reader.
// hdf5.cpp holds the handle, attributes, groups and files; hdf5_dataset.cpp the datasets;
// held_file_driver.cpp the held-writes file driver; global_heap_check.cpp the check for damaged
// global heaps.

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "contactuq/io/hdf5.hpp"

namespace contactuq::io::hdf5::detail {

// HDF5 prints its error stack to stderr unless told not to; the setting is per thread in
// thread-safe builds (Debian's), so every entry point calls this.
void quiet();

// Throws hdf5::error "file:object: what (HDF5's reason)", the reason being the innermost entry
// of HDF5's error stack, which it clears.
[[noreturn]] void throw_error(const std::string& file, const std::string& object,
                              const std::string& what);

hid_t memory_type(numeric_type type);
// Little-endian standard types on disk, whatever the writing machine.
hid_t file_type(numeric_type type);
handle variable_string_type();
handle fixed_string_type(std::size_t width);
handle simple_space(std::initializer_list<hsize_t> dims);
void reclaim(hid_t type, hid_t space, void* buffer);

// Length of s cut to at most width bytes without splitting a UTF-8 character.
std::size_t utf8_prefix(const std::string& s, std::size_t width);


// Strings read with a memory type matching file type `type` (so no character-set conversion
// is asked of HDF5) through `read(memory_type, buffer)`.
template <class Read>
std::vector<std::string> read_strings(hid_t type, std::size_t n, Read read, bool* ok) {
  std::vector<std::string> out;
  out.reserve(n);
  handle memory(H5Tcopy(type));
  if (H5Tis_variable_str(type) > 0) {
    std::vector<char*> buffer(std::max<std::size_t>(n, 1), nullptr);
    if (n > 0 && read(memory.get(), buffer.data()) < 0) return out;
    for (std::size_t i = 0; i < n; ++i) out.emplace_back(buffer[i] != nullptr ? buffer[i] : "");
    const hsize_t count = n;
    handle space(H5Screate_simple(1, &count, nullptr));
    if (n > 0) reclaim(memory.get(), space.get(), buffer.data());
  } else {
    const std::size_t width = H5Tget_size(type);
    std::vector<char> buffer(std::max<std::size_t>(n * width, 1), '\0');
    if (n > 0 && read(memory.get(), buffer.data()) < 0) return out;
    for (std::size_t i = 0; i < n; ++i) {
      const char* begin = buffer.data() + i * width;
      out.emplace_back(begin, ::strnlen(begin, width));
    }
  }
  *ok = true;
  return out;
}

// Dataset access list whose chunk cache holds four chunks (HDF5's default is 1 MiB), so that a
// chunk filled by several appends is compressed and written once, when it leaves the cache or
// the dataset is flushed.
handle chunk_cache_access(std::size_t chunk_bytes);

std::size_t element_bytes(hid_t dataset_id);

}  // namespace contactuq::io::hdf5::detail
