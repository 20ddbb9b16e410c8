#include "contactuq/io/hdf5.hpp"

#include <fmt/format.h>
#include <hdf5.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

namespace contactuq::io::hdf5 {

static_assert(std::is_same_v<hid_t, id_type>, "contactuq needs HDF5 >= 1.10 (64-bit hid_t)");

namespace {

// HDF5 prints its error stack to stderr unless told not to; the setting is per thread in
// thread-safe builds (Debian's), so every entry point calls this.
void quiet() {
  // No cleanup at exit: closing, from an exit handler, a file whose writes failed makes HDF5
  // write its cached metadata again, and can fault. Every object is closed by its owner.
  static const bool no_exit_handler = (H5dont_atexit(), true);
  (void)no_exit_handler;
  thread_local bool done = false;
  if (!done) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    done = true;
  }
}

herr_t keep_innermost(unsigned, const H5E_error2_t* entry, void* data) {
  if (entry->desc != nullptr && *entry->desc != '\0')
    *static_cast<std::string*>(data) = entry->desc;
  return 0;
}

// HDF5's reason for the failure that just happened: the innermost entry of the error stack
// (walking downward, from the API call to where the error was detected). Clears the stack.
std::string hdf5_reason() {
  std::string reason;
  const hid_t stack = H5Eget_current_stack();
  if (stack >= 0) {
    H5Ewalk2(stack, H5E_WALK_DOWNWARD, keep_innermost, &reason);
    H5Eclose_stack(stack);
  }
  std::replace(reason.begin(), reason.end(), '\n', ' ');  // one line, as every error
  return reason;
}

[[noreturn]] void throw_error(const std::string& file, const std::string& object,
                              const std::string& what) {
  const std::string reason = hdf5_reason();
  throw error(
      file, object,
      fmt::format("{}:{}: {}{}", file, object, what, reason.empty() ? "" : " (" + reason + ")"));
}

hid_t memory_type(numeric_type type) {
  switch (type) {
    case numeric_type::float64:
      return H5T_NATIVE_DOUBLE;
    case numeric_type::int32:
      return H5T_NATIVE_INT32;
    case numeric_type::int64:
      return H5T_NATIVE_INT64;
    case numeric_type::uint32:
      return H5T_NATIVE_UINT32;
    case numeric_type::uint64:
      return H5T_NATIVE_UINT64;
  }
  return H5T_NATIVE_DOUBLE;
}

// Little-endian standard types on disk, whatever the writing machine.
hid_t file_type(numeric_type type) {
  switch (type) {
    case numeric_type::float64:
      return H5T_IEEE_F64LE;
    case numeric_type::int32:
      return H5T_STD_I32LE;
    case numeric_type::int64:
      return H5T_STD_I64LE;
    case numeric_type::uint32:
      return H5T_STD_U32LE;
    case numeric_type::uint64:
      return H5T_STD_U64LE;
  }
  return H5T_IEEE_F64LE;
}

handle variable_string_type() {
  handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

handle fixed_string_type(std::size_t width) {
  handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), width);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  return type;
}

handle simple_space(std::initializer_list<hsize_t> dims) {
  const std::vector<hsize_t> d(dims);
  return handle(H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr));
}

void reclaim(hid_t type, hid_t space, void* buffer) {
#if H5_VERSION_GE(1, 12, 0)
  H5Treclaim(type, space, H5P_DEFAULT, buffer);
#else
  H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer);
#endif
}

// Length of s cut to at most width bytes without splitting a UTF-8 character.
std::size_t utf8_prefix(const std::string& s, std::size_t width) {
  if (s.size() <= width) return s.size();
  std::size_t cut = width;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return cut;
}

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
handle chunk_cache_access(std::size_t chunk_bytes) {
  handle access(H5Pcreate(H5P_DATASET_ACCESS));
  const std::size_t bytes = std::max<std::size_t>(std::size_t{1} << 20, 4 * chunk_bytes);
  H5Pset_chunk_cache(access.get(), 521, bytes, 1.0);
  return access;
}

std::size_t element_bytes(hid_t dataset_id) {
  handle type(H5Dget_type(dataset_id));
  return type.valid() ? H5Tget_size(type.get()) : 0;
}

}  // namespace

error::error(std::string file, std::string object, const std::string& message)
    : std::runtime_error(message), file_(std::move(file)), object_(std::move(object)) {}

handle& handle::operator=(handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = other.release();
  }
  return *this;
}

void handle::reset() noexcept {
  if (id_ >= 0) H5Idec_ref(id_);
  id_ = -1;
}

// ---- node: attributes ----

std::string node::child_path(std::string_view name) const {
  return path_ == "/" ? fmt::format("/{}", name) : fmt::format("{}/{}", path_, name);
}

void node::fail(const std::string& object, const std::string& what) const {
  throw_error(file_, object, what);
}

bool node::has_attribute(std::string_view name) const {
  quiet();
  const htri_t exists = H5Aexists(id(), std::string(name).c_str());
  if (exists < 0) fail(path_, fmt::format("cannot look up attribute '{}'", name));
  return exists > 0;
}

std::vector<std::string> node::attribute_names() const {
  quiet();
  std::vector<std::string> names;
  hsize_t index = 0;
  const auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  if (H5Aiterate2(id(), H5_INDEX_NAME, H5_ITER_INC, &index, collect, &names) < 0)
    fail(path_, "cannot list attributes");
  return names;
}

namespace {

// Creates attribute `name` of `type` and `space` on `object`, replacing one of that name, and
// writes `buffer` (unless the attribute has no elements).
void write_attribute(const node& object, std::string_view name, hid_t type, hid_t memory,
                     hid_t space, const void* buffer, bool empty) {
  const std::string n(name);
  const std::string where = object.path();
  if (H5Aexists(object.id(), n.c_str()) > 0 && H5Adelete(object.id(), n.c_str()) < 0)
    throw_error(object.file_name(), where, fmt::format("cannot replace attribute '{}'", n));
  handle attribute(H5Acreate2(object.id(), n.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute.valid())
    throw_error(object.file_name(), where, fmt::format("cannot create attribute '{}'", n));
  if (!empty && H5Awrite(attribute.get(), memory, buffer) < 0)
    throw_error(object.file_name(), where, fmt::format("cannot write attribute '{}'", n));
}

handle open_attribute(const node& object, std::string_view name) {
  const std::string n(name);
  handle attribute(H5Aopen(object.id(), n.c_str(), H5P_DEFAULT));
  if (!attribute.valid())
    throw_error(object.file_name(), object.path(), fmt::format("cannot open attribute '{}'", n));
  return attribute;
}

std::size_t attribute_size(const node& object, hid_t attribute) {
  handle space(H5Aget_space(attribute));
  const hssize_t n = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (n < 0) throw_error(object.file_name(), object.path(), "cannot read an attribute's shape");
  return static_cast<std::size_t>(n);
}

}  // namespace

void node::set_attribute(std::string_view name, std::string_view value) {
  quiet();
  const std::string text(value);
  const char* pointer = text.c_str();
  handle type = variable_string_type();
  handle space(H5Screate(H5S_SCALAR));
  write_attribute(*this, name, type.get(), type.get(), space.get(), &pointer, false);
}

void node::set_attribute(std::string_view name, const std::vector<std::string>& values) {
  quiet();
  std::vector<const char*> pointers;
  for (const auto& v : values) pointers.push_back(v.c_str());
  handle type = variable_string_type();
  handle space = simple_space({values.size()});
  write_attribute(*this, name, type.get(), type.get(), space.get(), pointers.data(),
                  values.empty());
}

void node::set_attribute(std::string_view name, std::span<const double> values) {
  quiet();
  handle space = simple_space({values.size()});
  write_attribute(*this, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space.get(), values.data(),
                  values.empty());
}

void node::set_numeric_attribute(std::string_view name, numeric_type type, const void* value) {
  quiet();
  handle space(H5Screate(H5S_SCALAR));
  write_attribute(*this, name, file_type(type), memory_type(type), space.get(), value, false);
}

std::vector<std::string> node::strings_attribute(std::string_view name) const {
  quiet();
  handle attribute = open_attribute(*this, name);
  handle type(H5Aget_type(attribute.get()));
  if (H5Tget_class(type.get()) != H5T_STRING)
    fail(path_, fmt::format("attribute '{}' is not a string", name));
  const std::size_t n = attribute_size(*this, attribute.get());
  bool ok = false;
  auto values = read_strings(
      type.get(), n,
      [&](hid_t memory, void* buffer) { return H5Aread(attribute.get(), memory, buffer); }, &ok);
  if (!ok) fail(path_, fmt::format("cannot read attribute '{}'", name));
  return values;
}

std::string node::string_attribute(std::string_view name) const {
  auto values = strings_attribute(name);
  if (values.size() != 1)
    fail(path_, fmt::format("attribute '{}' holds {} strings, expected one", name, values.size()));
  return std::move(values.front());
}

std::vector<double> node::doubles_attribute(std::string_view name) const {
  quiet();
  handle attribute = open_attribute(*this, name);
  handle type(H5Aget_type(attribute.get()));
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_FLOAT && type_class != H5T_INTEGER)
    fail(path_, fmt::format("attribute '{}' is not numeric", name));
  std::vector<double> values(attribute_size(*this, attribute.get()));
  if (!values.empty() && H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, values.data()) < 0)
    fail(path_, fmt::format("cannot read attribute '{}'", name));
  return values;
}

bool node::attribute_is_numeric(std::string_view name) const {
  quiet();
  handle attribute = open_attribute(*this, name);
  handle type(H5Aget_type(attribute.get()));
  const H5T_class_t type_class = H5Tget_class(type.get());
  return type_class == H5T_FLOAT || type_class == H5T_INTEGER;
}

void node::read_numeric_attribute(std::string_view name, numeric_type type, void* value) const {
  quiet();
  handle attribute = open_attribute(*this, name);
  handle stored(H5Aget_type(attribute.get()));
  const H5T_class_t type_class = H5Tget_class(stored.get());
  if (type_class != H5T_FLOAT && type_class != H5T_INTEGER)
    fail(path_, fmt::format("attribute '{}' is not numeric", name));
  if (attribute_size(*this, attribute.get()) != 1)
    fail(path_, fmt::format("attribute '{}' is not a single number", name));
  if (H5Aread(attribute.get(), memory_type(type), value) < 0)
    fail(path_, fmt::format("cannot read attribute '{}'", name));
}

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

// ---- group ----

group group::create_group(std::string_view name) {
  quiet();
  const std::string path = child_path(name);
  handle g(H5Gcreate2(id(), std::string(name).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!g.valid()) fail(path, "cannot create group");
  return group(std::move(g), file_, path);
}

group group::open_group(std::string_view name) const {
  quiet();
  const std::string path = child_path(name);
  handle g(H5Gopen2(id(), std::string(name).c_str(), H5P_DEFAULT));
  if (!g.valid()) fail(path, "cannot open group");
  return group(std::move(g), file_, path);
}

bool group::contains(std::string_view name) const {
  quiet();
  const htri_t exists = H5Lexists(id(), std::string(name).c_str(), H5P_DEFAULT);
  if (exists < 0) fail(child_path(name), "cannot look up");
  return exists > 0;
}

bool group::is_group(std::string_view name) const {
  quiet();
  handle object(H5Oopen(id(), std::string(name).c_str(), H5P_DEFAULT));
  if (!object.valid()) fail(child_path(name), "cannot open");
  return H5Iget_type(object.get()) == H5I_GROUP;
}

std::vector<std::string> group::member_names() const {
  quiet();
  // The links in the order they are stored, sorted here: asking HDF5 for name order makes it
  // build a link table whose release crashes inside HDF5 1.10 when the link heap is damaged.
  std::vector<std::string> names;
  hsize_t index = 0;
  const auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  if (H5Literate(id(), H5_INDEX_NAME, H5_ITER_NATIVE, &index, collect, &names) < 0)
    fail(path_, "cannot list members");
  std::sort(names.begin(), names.end());
  return names;
}

dataset group::write(std::string_view name, std::span<const double> values) {
  quiet();
  const std::string path = child_path(name);
  handle space = simple_space({values.size()});
  handle d(H5Dcreate2(id(), std::string(name).c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                      H5P_DEFAULT, H5P_DEFAULT));
  if (!d.valid()) fail(path, "cannot create dataset");
  if (!values.empty() &&
      H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    fail(path, "cannot write dataset");
  return dataset(std::move(d), file_, path);
}

dataset group::write(std::string_view name, std::span<const double> row_major, std::size_t rows,
                     std::size_t columns) {
  quiet();
  const std::string path = child_path(name);
  if (row_major.size() != rows * columns)
    fail(path, fmt::format("{} values given for {} x {}", row_major.size(), rows, columns));
  handle space = simple_space({rows, columns});
  handle d(H5Dcreate2(id(), std::string(name).c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                      H5P_DEFAULT, H5P_DEFAULT));
  if (!d.valid()) fail(path, "cannot create dataset");
  if (!row_major.empty() &&
      H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, row_major.data()) < 0)
    fail(path, "cannot write dataset");
  return dataset(std::move(d), file_, path);
}

dataset group::write_text(std::string_view name, std::string_view text) {
  quiet();
  const std::string path = child_path(name);
  const std::string value(text);
  const char* pointer = value.c_str();
  handle type = variable_string_type();
  handle space(H5Screate(H5S_SCALAR));
  handle d(H5Dcreate2(id(), std::string(name).c_str(), type.get(), space.get(), H5P_DEFAULT,
                      H5P_DEFAULT, H5P_DEFAULT));
  if (!d.valid()) fail(path, "cannot create dataset");
  if (H5Dwrite(d.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &pointer) < 0)
    fail(path, "cannot write dataset");
  return dataset(std::move(d), file_, path);
}

dataset group::write_texts(std::string_view name, const std::vector<std::string>& texts) {
  quiet();
  const std::string path = child_path(name);
  std::vector<const char*> pointers;
  for (const auto& t : texts) pointers.push_back(t.c_str());
  handle type = variable_string_type();
  handle space = simple_space({texts.size()});
  handle d(H5Dcreate2(id(), std::string(name).c_str(), type.get(), space.get(), H5P_DEFAULT,
                      H5P_DEFAULT, H5P_DEFAULT));
  if (!d.valid()) fail(path, "cannot create dataset");
  if (!texts.empty() &&
      H5Dwrite(d.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) < 0)
    fail(path, "cannot write dataset");
  return dataset(std::move(d), file_, path);
}

dataset group::create_appendable(std::string_view name, const appendable_options& options) {
  quiet();
  const std::string path = child_path(name);
  if (options.deflate_level < 0 || options.deflate_level > 9)
    fail(path, fmt::format("deflate_level = {}: must be 0..9", options.deflate_level));
  if (options.type == element::text && options.text_width == 0)
    fail(path, "text_width = 0: must be >= 1 for text");

  handle type;
  hid_t type_id = H5T_IEEE_F64LE;
  std::size_t bytes = 8;
  if (options.type == element::int32) {
    type_id = H5T_STD_I32LE;
    bytes = 4;
  } else if (options.type == element::text) {
    type = fixed_string_type(options.text_width);
    type_id = type.get();
    bytes = options.text_width;
  }

  const bool two_d = options.columns.has_value();
  const hsize_t columns = two_d ? *options.columns : 1;
  const std::size_t row_bytes = bytes * std::max<hsize_t>(columns, 1);
  constexpr std::size_t target_chunk_bytes = 256 * 1024;
  const hsize_t chunk_rows = options.chunk_rows > 0
                                 ? options.chunk_rows
                                 : std::clamp<std::size_t>(target_chunk_bytes / row_bytes, 1, 4096);

  // A dimension of 0 columns is made unlimited: HDF5 wants chunk extents >= 1 and no larger
  // than a fixed maximum.
  const hsize_t dims[2] = {0, columns};
  const hsize_t max_dims[2] = {H5S_UNLIMITED, columns > 0 ? columns : H5S_UNLIMITED};
  const hsize_t chunk[2] = {chunk_rows, std::max<hsize_t>(columns, 1)};
  const int rank = two_d ? 2 : 1;
  handle space(H5Screate_simple(rank, dims, max_dims));
  handle create(H5Pcreate(H5P_DATASET_CREATE));
  if (H5Pset_chunk(create.get(), rank, chunk) < 0) fail(path, "cannot set the chunk shape");
  if (options.deflate_level > 0) {
    if (options.type != element::text) H5Pset_shuffle(create.get());
    if (H5Pset_deflate(create.get(), static_cast<unsigned>(options.deflate_level)) < 0)
      fail(path, "cannot set deflate compression");
  }
  if (options.type == element::float64)
    H5Pset_fill_value(create.get(), H5T_NATIVE_DOUBLE, &options.fill);
  else if (options.type == element::int32)
    H5Pset_fill_value(create.get(), H5T_NATIVE_INT32, &options.integer_fill);
  handle access = chunk_cache_access(chunk_rows * row_bytes);
  handle d(H5Dcreate2(id(), std::string(name).c_str(), type_id, space.get(), H5P_DEFAULT,
                      create.get(), access.get()));
  if (!d.valid()) fail(path, "cannot create dataset");
  return dataset(std::move(d), file_, path);
}

dataset group::open_dataset(std::string_view name) const {
  quiet();
  const std::string path = child_path(name);
  const std::string n(name);
  handle d(H5Dopen2(id(), n.c_str(), H5P_DEFAULT));
  if (!d.valid()) fail(path, "cannot open dataset");
  // Reopen with a chunk cache sized to the dataset's chunks (see chunk_cache_access).
  handle create(H5Dget_create_plist(d.get()));
  if (create.valid() && H5Pget_layout(create.get()) == H5D_CHUNKED) {
    const int rank = H5Pget_chunk(create.get(), 0, nullptr);
    std::vector<hsize_t> chunk(static_cast<std::size_t>(std::max(rank, 0)));
    H5Pget_chunk(create.get(), rank, chunk.data());
    std::size_t bytes = element_bytes(d.get());
    for (const hsize_t c : chunk) bytes *= c;
    if (4 * bytes > (std::size_t{1} << 20)) {
      d.reset();
      handle access = chunk_cache_access(bytes);
      d = handle(H5Dopen2(id(), n.c_str(), access.get()));
      if (!d.valid()) fail(path, "cannot open dataset");
    }
  }
  return dataset(std::move(d), file_, path);
}

// ---- file ----

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

// Throws hdf5::error when a global heap collection of the file (where variable-length strings
// live) is damaged, before HDF5 reads it: HDF5 would read out of bounds. The file is scanned
// for the collections' signature (a few hundred MB/s).
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

// A virtual file driver that reads the file through a read-only descriptor and keeps the
// session's writes in a held_writes (file_options::hold_writes); reads see those writes.
namespace held {

struct driver_info {
  held_writes* target = nullptr;
};

struct held_file {
  H5FD_t pub;  // first: HDF5 passes a pointer to it
  int fd = -1;
  haddr_t eoa = 0;
  haddr_t eof = 0;
  held_writes* target = nullptr;
};

held_file* self(H5FD_t* f) { return reinterpret_cast<held_file*>(f); }
const held_file* self(const H5FD_t* f) { return reinterpret_cast<const held_file*>(f); }

H5FD_t* open(const char* name, unsigned /*flags*/, hid_t fapl, haddr_t /*maxaddr*/) {
  const auto* info = static_cast<const driver_info*>(H5Pget_driver_info(fapl));
  if (info == nullptr || info->target == nullptr) return nullptr;
  const int fd = ::open(name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return nullptr;
  }
  auto* f = new held_file{};
  f->fd = fd;
  f->eof = static_cast<haddr_t>(st.st_size);
  f->target = info->target;
  f->target->writes.clear();
  f->target->initial_size = f->target->final_size = static_cast<std::uint64_t>(st.st_size);
  return &f->pub;
}

herr_t close(H5FD_t* file) {
  auto* f = self(file);
  const int rc = ::close(f->fd);
  delete f;
  return rc == 0 ? 0 : -1;
}

int compare(const H5FD_t* a, const H5FD_t* b) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

herr_t query(const H5FD_t* /*file*/, unsigned long* flags) {
  if (flags != nullptr)
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA;
  return 0;
}

haddr_t get_eoa(const H5FD_t* file, H5FD_mem_t /*type*/) { return self(file)->eoa; }
herr_t set_eoa(H5FD_t* file, H5FD_mem_t /*type*/, haddr_t addr) {
  self(file)->eoa = addr;
  return 0;
}
haddr_t get_eof(const H5FD_t* file, H5FD_mem_t /*type*/) { return self(file)->eof; }

herr_t read(H5FD_t* file, H5FD_mem_t /*type*/, hid_t /*dxpl*/, haddr_t addr, size_t size, void* buffer) {
  const auto* f = self(file);
  auto* out = static_cast<unsigned char*>(buffer);
  // What the file holds (zeros past its end), then the session's writes over it, in order.
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(f->fd, out + done, size - done, static_cast<off_t>(addr + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) {
      std::memset(out + done, 0, size - done);
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  const std::uint64_t end = addr + size;
  for (const auto& w : f->target->writes) {
    const std::uint64_t w_end = w.offset + w.bytes.size();
    if (w_end <= addr || w.offset >= end) continue;
    const std::uint64_t from = std::max<std::uint64_t>(addr, w.offset), to = std::min(end, w_end);
    std::memcpy(out + (from - addr), w.bytes.data() + (from - w.offset), to - from);
  }
  return 0;
}

herr_t write(H5FD_t* file, H5FD_mem_t /*type*/, hid_t /*dxpl*/, haddr_t addr, size_t size, const void* buffer) {
  auto* f = self(file);
  const auto* in = static_cast<const std::byte*>(buffer);
  f->target->writes.push_back({addr, std::vector<std::byte>(in, in + size)});
  f->eof = std::max<haddr_t>(f->eof, addr + size);
  f->target->final_size = std::max<std::uint64_t>(f->target->final_size, addr + size);
  return 0;
}

herr_t truncate(H5FD_t* file, hid_t /*dxpl*/, hbool_t /*closing*/) {
  auto* f = self(file);
  // As the sec2 driver: the file ends where the allocated space ends.
  f->eof = f->eoa;
  f->target->final_size = f->eoa;
  return 0;
}

herr_t flush(H5FD_t* /*file*/, hid_t /*dxpl*/, hbool_t /*closing*/) { return 0; }

hid_t driver() {
  static const hid_t id = [] {
    static H5FD_class_t cls{};
    cls.name = "contactuq_held";
    cls.maxaddr = (haddr_t{1} << 62) - 1;
    cls.fc_degree = H5F_CLOSE_WEAK;
    cls.fapl_size = sizeof(driver_info);
    cls.open = open;
    cls.close = close;
    cls.cmp = compare;
    cls.query = query;
    cls.get_eoa = get_eoa;
    cls.set_eoa = set_eoa;
    cls.get_eof = get_eof;
    cls.read = read;
    cls.write = write;
    cls.flush = flush;
    cls.truncate = truncate;
    const H5FD_mem_t map[H5FD_MEM_NTYPES] = H5FD_FLMAP_DICHOTOMY;  // as sec2
    std::copy(std::begin(map), std::end(map), std::begin(cls.fl_map));
    return H5FDregister(&cls);
  }();
  return id;
}

}  // namespace held

handle open_file(const std::filesystem::path& path, file_mode mode, const file_options& options) {
  quiet();
  const std::string name = path.string();
  if (mode != file_mode::create && options.check_heaps) check_global_heaps(name);
  handle access(H5Pcreate(H5P_FILE_ACCESS));
  if (options.hold_writes != nullptr) {
    if (mode != file_mode::read_write || options.swmr_write)
      throw_error(name, "/", "writes can be held back only in a plain read-write session");
    const held::driver_info info{options.hold_writes};
    if (held::driver() < 0 || H5Pset_driver(access.get(), held::driver(), &info) < 0)
      throw_error(name, "/", "cannot set up the held-writes file driver");
  }
  // A metadata checksum that fails is an error at once: a SWMR reader would otherwise retry
  // the read (100 times by default, with back-off) as if a writer were changing it.
  if (H5Pset_metadata_read_attempts(access.get(), 1) < 0)
    throw_error(name, "/", "cannot set the metadata read attempts");
  if (options.latest_format &&
      H5Pset_libver_bounds(access.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0)
    throw_error(name, "/", "cannot ask for the latest file format");
  if (options.recover && mode == file_mode::read_write) {
    // The property h5clear sets; HDF5 registers it on every file access list but has no
    // function for it.
    hbool_t clear = 1;
    if (H5Pexist(access.get(), "clear_status_flags") <= 0 ||
        H5Pset(access.get(), "clear_status_flags", &clear) < 0)
      throw_error(name, "/", "this HDF5 library cannot recover files left by a SWMR writer");
  }
  hid_t id = -1;
  switch (mode) {
    case file_mode::create:
      id = H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get());
      if (id < 0) throw_error(name, "/", "cannot create file");
      break;
    case file_mode::read_write:
      id = H5Fopen(name.c_str(), H5F_ACC_RDWR | (options.swmr_write ? H5F_ACC_SWMR_WRITE : 0u),
                   access.get());
      if (id < 0) throw_error(name, "/", "cannot open file for writing");
      // A SWMR writer flushes metadata that points past the end of allocation recorded in
      // the superblock, which it updates only on a file flush; after a crash, extend the
      // allocation to the end of the file as h5clear --increment does.
      if (options.recover && H5Fincrement_filesize(id, 0) < 0) {
        H5Fclose(id);
        throw_error(name, "/", "cannot recover the file's end of allocation");
      }
      break;
    case file_mode::read_only:
      id = H5Fopen(name.c_str(), H5F_ACC_RDONLY | (options.swmr_read ? H5F_ACC_SWMR_READ : 0u),
                   access.get());
      if (id < 0) throw_error(name, "/", "cannot open file");
      break;
  }
  return handle(id);
}

void convert_datasets(hid_t location, const std::string& file_name, const std::string& path) {
  H5G_info_t info;
  if (H5Gget_info(location, &info) < 0) throw_error(file_name, path, "cannot list members");
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    handle object(H5Oopen_by_idx(location, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT));
    if (!object.valid()) throw_error(file_name, path, "cannot open a member");
    const H5I_type_t type = H5Iget_type(object.get());
    if (type == H5I_GROUP) {
      convert_datasets(object.get(), file_name, path);
    } else if (type == H5I_DATASET) {
      handle create(H5Dget_create_plist(object.get()));
      if (H5Pget_layout(create.get()) == H5D_CHUNKED && H5Dformat_convert(object.get()) < 0)
        throw_error(file_name, path, "cannot convert a dataset to the HDF5 1.8 format");
    }
  }
}

}  // namespace

file::file(const std::filesystem::path& path, file_mode mode, const file_options& options)
    : group(open_file(path, mode, options), path.string(), "/") {}

void file::flush() {
  quiet();
  if (H5Fflush(id(), H5F_SCOPE_LOCAL) < 0) fail(path_, "cannot flush file");
}

void file::start_swmr_write() {
  quiet();
  if (H5Fstart_swmr_write(id()) < 0) fail(path_, "cannot start SWMR writing");
}

void file::convert_for_old_readers() {
  quiet();
  convert_datasets(id(), file_, path_);
  if (H5Fformat_convert(id()) < 0) fail(path_, "cannot convert the file to the HDF5 1.8 format");
}

void file::close() {
  quiet();
  if (!handle_.valid()) return;
  // With objects of the file still open, H5Fclose only marks it for closing and writes later,
  // unchecked: flush first, so that a write that fails (a full disk) is an error here.
  unsigned intent = 0;
  const bool writable = H5Fget_intent(handle_.get(), &intent) >= 0 && (intent & H5F_ACC_RDWR) != 0;
  if (writable && H5Fflush(handle_.get(), H5F_SCOPE_LOCAL) < 0) fail(path_, "cannot write file");
  if (H5Fclose(handle_.release()) < 0) fail(path_, "cannot close file");
}

}  // namespace contactuq::io::hdf5
