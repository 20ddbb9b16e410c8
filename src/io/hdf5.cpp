#include "contactuq/io/hdf5.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <memory>
#include <string_view>

#include "global_heap_check.hpp"
#include "hdf5_detail.hpp"
#include "held_file_driver.hpp"

namespace contactuq::io::hdf5 {

static_assert(std::is_same_v<hid_t, id_type>, "contactuq needs HDF5 >= 1.10 (64-bit hid_t)");

namespace {

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

}  // namespace

namespace detail {

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

std::size_t utf8_prefix(const std::string& s, std::size_t width) {
  if (s.size() <= width) return s.size();
  std::size_t cut = width;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return cut;
}

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

}  // namespace detail

using namespace detail;


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
