// Datasets of the HDF5 wrapper (contactuq/io/hdf5.hpp): shape, rows, text, chunk filters.
#include <fmt/format.h>
#include <hdf5.h>
#include <libdeflate.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "contactuq/io/hdf5.hpp"
#include "hdf5_detail.hpp"

namespace contactuq::io::hdf5 {

using namespace detail;

// ---- dataset ----

std::vector<std::size_t> dataset::shape() const {
  quiet();
  handle space(H5Dget_space(id()));
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank < 0) fail(path_, "cannot read the dataset's shape");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return {dims.begin(), dims.end()};
}

std::size_t dataset::rows() const {
  const auto dims = shape();
  return dims.empty() ? 1 : dims.front();
}

std::size_t dataset::row_size() const {
  const auto dims = shape();
  std::size_t n = 1;
  for (std::size_t k = 1; k < dims.size(); ++k) n *= dims[k];
  return n;
}

std::size_t dataset::row_count(std::size_t elements) const {
  const std::size_t per_row = row_size();
  if (per_row == 0) {
    if (elements != 0) fail(path_, "values given for rows of no elements");
    return 0;
  }
  if (elements % per_row != 0)
    fail(path_, fmt::format("{} values do not fill whole rows of {}", elements, per_row));
  return elements / per_row;
}

std::vector<std::size_t> dataset::chunk_shape() const {
  if (chunk_shape_) return *chunk_shape_;
  quiet();
  handle create(H5Dget_create_plist(id()));
  if (!create.valid()) fail(path_, "cannot read the dataset's creation properties");
  if (H5Pget_layout(create.get()) != H5D_CHUNKED) return *(chunk_shape_ = std::vector<std::size_t>{});
  std::vector<hsize_t> dims(shape().size());
  if (H5Pget_chunk(create.get(), static_cast<int>(dims.size()), dims.data()) < 0)
    fail(path_, "cannot read the chunk shape");
  return *(chunk_shape_ = std::vector<std::size_t>(dims.begin(), dims.end()));
}

bool dataset::is_variable_text() const {
  quiet();
  handle type(H5Dget_type(id()));
  return H5Tget_class(type.get()) == H5T_STRING && H5Tis_variable_str(type.get()) > 0;
}

bool dataset::is_text() const {
  quiet();
  handle type(H5Dget_type(id()));
  return H5Tget_class(type.get()) == H5T_STRING;
}

void dataset::resize_rows(std::size_t rows) {
  quiet();
  auto dims = shape();
  if (dims.empty()) fail(path_, "a scalar dataset has no rows");
  dims.front() = rows;
  const std::vector<hsize_t> extent(dims.begin(), dims.end());
  if (H5Dset_extent(id(), extent.data()) < 0)
    fail(path_, fmt::format("cannot resize to {} rows", rows));
}

namespace {

// Selects rows [first, first + n) of `dataset_id` (all columns); returns the file space, or an
// invalid handle when the rows lie outside the dataset.
handle select_rows(hid_t dataset_id, std::size_t first, std::size_t n) {
  handle space(H5Dget_space(dataset_id));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1) return handle();
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  if (first + n > dims.front()) return handle();
  std::vector<hsize_t> start(dims.size(), 0);
  std::vector<hsize_t> count = dims;
  start.front() = first;
  count.front() = n;
  if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                          nullptr) < 0)
    return handle();
  return space;
}

// Memory space of n rows shaped like the dataset's rows: with the same shape as the file
// selection, HDF5 copies whole chunk rows instead of mapping element by element.
handle rows_space(hid_t dataset_id, std::size_t n) {
  handle space(H5Dget_space(dataset_id));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 1)));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  dims.front() = n;
  return handle(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
}

}  // namespace

void dataset::write_rows(std::size_t first, std::span<const double> values) {
  quiet();
  const std::size_t n = row_count(values.size());
  if (values.empty()) return;
  handle space = select_rows(id(), first, n);
  if (!space.valid())
    fail(path_, fmt::format("rows [{}, {}) lie outside its {} rows", first, first + n, rows()));
  handle memory = rows_space(id(), n);
  if (H5Dwrite(id(), H5T_NATIVE_DOUBLE, memory.get(), space.get(), H5P_DEFAULT, values.data()) < 0)
    fail(path_, fmt::format("cannot write rows [{}, {})", first, first + n));
}

void dataset::write_rows(std::size_t first, std::span<const std::int32_t> values) {
  quiet();
  const std::size_t n = row_count(values.size());
  if (values.empty()) return;
  handle space = select_rows(id(), first, n);
  if (!space.valid())
    fail(path_, fmt::format("rows [{}, {}) lie outside its {} rows", first, first + n, rows()));
  handle memory = rows_space(id(), n);
  if (H5Dwrite(id(), H5T_NATIVE_INT32, memory.get(), space.get(), H5P_DEFAULT, values.data()) < 0)
    fail(path_, fmt::format("cannot write rows [{}, {})", first, first + n));
}

void dataset::write_rows(std::size_t first, const std::vector<std::string>& values) {
  quiet();
  const std::size_t n = row_count(values.size());
  if (values.empty()) return;
  handle type(H5Dget_type(id()));
  if (H5Tget_class(type.get()) != H5T_STRING) fail(path_, "is not a string dataset");
  handle space = select_rows(id(), first, n);
  if (!space.valid())
    fail(path_, fmt::format("rows [{}, {}) lie outside its {} rows", first, first + n, rows()));
  handle memory_space = simple_space({values.size()});
  handle memory(H5Tcopy(type.get()));
  herr_t status = 0;
  if (H5Tis_variable_str(type.get()) > 0) {
    std::vector<const char*> pointers;
    for (const auto& v : values) pointers.push_back(v.c_str());
    status =
        H5Dwrite(id(), memory.get(), memory_space.get(), space.get(), H5P_DEFAULT, pointers.data());
  } else {
    const std::size_t width = H5Tget_size(type.get());
    std::vector<char> buffer(values.size() * width, '\0');
    for (std::size_t i = 0; i < values.size(); ++i)
      std::memcpy(buffer.data() + i * width, values[i].data(), utf8_prefix(values[i], width));
    status =
        H5Dwrite(id(), memory.get(), memory_space.get(), space.get(), H5P_DEFAULT, buffer.data());
  }
  if (status < 0) fail(path_, fmt::format("cannot write rows [{}, {})", first, first + n));
}

void dataset::read_block(std::size_t first_row, std::size_t n, id_type memory_type,
                         void* buffer) const {
  const std::size_t elements = n * row_size();
  if (elements == 0) return;
  handle space = select_rows(id(), first_row, n);
  if (!space.valid())
    fail(path_,
         fmt::format("rows [{}, {}) lie outside its {} rows", first_row, first_row + n, rows()));
  handle memory = rows_space(id(), n);
  if (H5Dread(id(), memory_type, memory.get(), space.get(), H5P_DEFAULT, buffer) < 0)
    fail(path_, fmt::format("cannot read rows [{}, {})", first_row, first_row + n));
}

std::vector<double> dataset::read_doubles(std::size_t first_row, std::size_t n) const {
  quiet();
  std::vector<double> values(n * row_size());
  read_block(first_row, n, H5T_NATIVE_DOUBLE, values.data());
  return values;
}

std::vector<double> dataset::read_doubles() const { return read_doubles(0, rows()); }

std::vector<std::int32_t> dataset::read_int32s(std::size_t first_row, std::size_t n) const {
  quiet();
  std::vector<std::int32_t> values(n * row_size());
  read_block(first_row, n, H5T_NATIVE_INT32, values.data());
  return values;
}

std::vector<std::int32_t> dataset::read_int32s() const { return read_int32s(0, rows()); }

std::vector<std::string> dataset::read_texts(std::size_t first_row, std::size_t n) const {
  quiet();
  handle type(H5Dget_type(id()));
  if (H5Tget_class(type.get()) != H5T_STRING) fail(path_, "is not a string dataset");
  const bool scalar = shape().empty();
  handle space;
  if (scalar) {
    if (first_row != 0 || n != 1) fail(path_, "a scalar string dataset holds one string");
    space = handle(H5Dget_space(id()));
  } else {
    space = select_rows(id(), first_row, n);
    if (!space.valid())
      fail(path_,
           fmt::format("rows [{}, {}) lie outside its {} rows", first_row, first_row + n, rows()));
  }
  handle memory_space = scalar ? handle(H5Screate(H5S_SCALAR)) : simple_space({n});
  bool ok = false;
  auto values = read_strings(
      type.get(), n,
      [&](hid_t memory, void* buffer) {
        return H5Dread(id(), memory, memory_space.get(), space.get(), H5P_DEFAULT, buffer);
      },
      &ok);
  if (!ok) fail(path_, fmt::format("cannot read rows [{}, {})", first_row, first_row + n));
  return values;
}

std::vector<std::string> dataset::read_texts() const { return read_texts(0, rows()); }

std::string dataset::read_text() const {
  auto values = read_texts(0, 1);
  return std::move(values.front());
}

void dataset::flush() {
  quiet();
  if (H5Dflush(id()) < 0) fail(path_, "cannot flush");
}

chunk_filters dataset::filters() const {
  quiet();
  chunk_filters f;
  const auto chunk = chunk_shape();
  if (chunk.empty()) return f;  // contiguous: nothing to filter
  f.element_size = element_bytes(id());
  f.chunk_rows = chunk.front();
  f.row_elements = chunk.size() > 1 ? chunk[1] : 1;
  handle create(H5Dget_create_plist(id()));
  const int n = H5Pget_nfilters(create.get());
  f.supported = n >= 0;
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0, config = 0;
    unsigned values[8] = {};
    std::size_t count = 8;
    char name[64];
    const H5Z_filter_t filter = H5Pget_filter2(create.get(), static_cast<unsigned>(i), &flags, &count, values,
                                            sizeof name, name, &config);
    // The order must be shuffle, then deflate, as create_appendable sets them.
    if (filter == H5Z_FILTER_SHUFFLE && i == 0)
      f.shuffle = true;
    else if (filter == H5Z_FILTER_DEFLATE && count >= 1)
      f.deflate_level = static_cast<int>(values[0]);
    else
      f.supported = false;
  }
  return f;
}

std::vector<std::byte> filter_chunk(const chunk_filters& filters, std::span<const std::byte> raw) {
  if (raw.size() != filters.chunk_bytes())
    throw std::invalid_argument(fmt::format("filter_chunk: {} bytes given, a chunk has {}", raw.size(),
                                            filters.chunk_bytes()));
  std::vector<std::byte> shuffled;
  std::span<const std::byte> input = raw;
  if (filters.shuffle && filters.element_size > 1) {
    // Byte k of element i goes to k * n + i (H5Z shuffle).
    const std::size_t size = filters.element_size, n = raw.size() / size;
    shuffled.resize(raw.size());
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < size; ++k) shuffled[k * n + i] = raw[i * size + k];
    input = shuffled;
  }
  if (filters.deflate_level == 0) return {input.begin(), input.end()};
  // libdeflate writes the same zlib stream format as zlib's compress2, which HDF5's deflate
  // filter decodes, about three times as fast. One compressor per thread and level.
  struct compressor_deleter {
    void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
  };
  thread_local std::array<std::unique_ptr<libdeflate_compressor, compressor_deleter>, 13> compressors;
  auto& compressor = compressors.at(static_cast<std::size_t>(filters.deflate_level));
  if (!compressor) compressor.reset(libdeflate_alloc_compressor(filters.deflate_level));
  if (!compressor) throw std::runtime_error("filter_chunk: cannot allocate a deflate compressor");
  std::vector<std::byte> out(libdeflate_zlib_compress_bound(compressor.get(), input.size()));
  const std::size_t bytes =
      libdeflate_zlib_compress(compressor.get(), input.data(), input.size(), out.data(), out.size());
  if (bytes == 0) throw std::runtime_error("filter_chunk: deflate compression failed");
  out.resize(bytes);
  return out;
}

void dataset::write_filtered_chunk(std::size_t first_row, std::span<const std::byte> filtered) {
  quiet();
  const auto chunk = chunk_shape();
  if (chunk.empty() || first_row % chunk.front() != 0 || first_row + chunk.front() > rows())
    fail(path_, fmt::format("rows from {} are no whole chunk of this dataset", first_row));
  std::vector<hsize_t> offset(chunk.size(), 0);
  offset.front() = first_row;
  if (H5Dwrite_chunk(id(), H5P_DEFAULT, 0, offset.data(), filtered.size(), filtered.data()) < 0)
    fail(path_, fmt::format("cannot write the chunk at row {}", first_row));
}

}  // namespace contactuq::io::hdf5
