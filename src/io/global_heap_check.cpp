#include "global_heap_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "contactuq/io/hdf5.hpp"

namespace contactuq::io::hdf5::detail {

namespace {

std::uint64_t little_endian(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

// Whether the objects of a global heap collection (HDF5 file format spec, III.E: "GCOL",
// version, collection size, then objects of a 16-byte header and data padded to 8 bytes;
// object 0 is the free space, its size counting its header) tile it exactly. HDF5 1.10 walks
// them without bounds checks: a damaged object size sends it past the collection.
bool heap_collection_tiles(const unsigned char* c, std::uint64_t size) {
  constexpr std::uint64_t header = 16;
  std::uint64_t p = header;
  while (p < size) {
    if (size - p < header) return true;  // a tail too small for an object is free space
    const auto index = little_endian(c + p, 2);
    const auto bytes = little_endian(c + p + 8, 8);
    if (bytes > size) return false;
    const std::uint64_t need = index > 0 ? header + (bytes + 7) / 8 * 8 : bytes;
    if (need < header || need > size - p) return false;
    p += need;
  }
  return p == size;
}

}  // namespace

void check_global_heaps(const std::string& name) {
  std::FILE* in = std::fopen(name.c_str(), "rb");
  if (in == nullptr) return;  // H5Fopen reports it
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(in, std::fclose);
  constexpr std::string_view signature("GCOL\x01\0\0\0", 8);
  constexpr std::size_t block = std::size_t{1} << 20, overlap = 16;
  std::vector<unsigned char> buffer(block + overlap);
  std::vector<std::uint64_t> found;
  std::uint64_t offset = 0;  // file offset of buffer[0]
  std::size_t kept = 0;
  while (true) {
    const std::size_t n = std::fread(buffer.data() + kept, 1, block, in);
    const std::size_t valid = kept + n;
    const std::string_view view(reinterpret_cast<const char*>(buffer.data()), valid);
    for (std::size_t at = view.find(signature); at != std::string_view::npos && at + overlap <= valid;
         at = view.find(signature, at + 1))
      found.push_back(offset + at);
    if (n == 0) break;
    kept = std::min(valid, overlap - 1);
    std::memmove(buffer.data(), buffer.data() + valid - kept, kept);
    offset += valid - kept;
  }
  std::fseek(in, 0, SEEK_END);
  const auto file_size = static_cast<std::uint64_t>(std::ftell(in));
  for (const std::uint64_t at : found) {
    unsigned char head[16];
    if (std::fseek(in, static_cast<long>(at), SEEK_SET) != 0 || std::fread(head, 1, 16, in) != 16) continue;
    const std::uint64_t size = little_endian(head + 8, 8);
    std::vector<unsigned char> c;
    bool ok = size >= 16 && size <= file_size - at;
    if (ok) {
      c.resize(size);
      ok = std::fseek(in, static_cast<long>(at), SEEK_SET) == 0 && std::fread(c.data(), 1, size, in) == size &&
           heap_collection_tiles(c.data(), size);
    }
    if (!ok)
      throw error(name, "/",
                  fmt::format("{}: damaged file: the global heap (variable-length strings) at byte {} does not "
                              "hold together; the file cannot be read safely",
                              name, at));
  }
}

}  // namespace contactuq::io::hdf5::detail
