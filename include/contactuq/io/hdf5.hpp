#pragma once
// A small RAII layer over the HDF5 C API; every HDF5 file contactuq reads or writes goes through
// it, so no H5*close call appears outside src/io/hdf5.cpp and <hdf5.h> stays out of public
// headers.
//
// Errors: a failing HDF5 call throws hdf5::error naming the file, the object path and HDF5's
// own reason (the innermost entry of its error stack). HDF5's default printing of that stack
// to stderr is switched off on every thread that enters this layer.
//
// Conventions: 2-D datasets are row-major (C order), rows first, as the HDF5 C API and h5py
// see them (Matlab shows them transposed). Strings are UTF-8. Threads: the layer adds no
// locking; one object must not be used from two threads at once.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace contactuq::io::hdf5 {

// hid_t of HDF5 >= 1.10 (checked in hdf5.cpp).
using id_type = std::int64_t;

// A failed HDF5 operation: file() is the file name, object() the path inside it ("/inputs").
class error : public std::runtime_error {
 public:
  error(std::string file, std::string object, const std::string& message);
  const std::string& file() const noexcept { return file_; }
  const std::string& object() const noexcept { return object_; }

 private:
  std::string file_;
  std::string object_;
};

// Owns one HDF5 identifier of any kind and releases it on destruction. Move-only.
class handle {
 public:
  handle() = default;
  explicit handle(id_type id) noexcept : id_(id) {}
  handle(handle&& other) noexcept : id_(other.release()) {}
  handle& operator=(handle&& other) noexcept;
  handle(const handle&) = delete;
  handle& operator=(const handle&) = delete;
  ~handle() { reset(); }

  id_type get() const noexcept { return id_; }
  bool valid() const noexcept { return id_ >= 0; }
  id_type release() noexcept {
    const id_type id = id_;
    id_ = -1;
    return id;
  }
  void reset() noexcept;

 private:
  id_type id_ = -1;
};

// Numeric element types attributes and datasets may hold.
enum class numeric_type { float64, int32, int64, uint32, uint64 };

template <class T>
constexpr numeric_type numeric_type_of() {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                "HDF5 numeric values: double or a 32/64-bit integer");
  if constexpr (std::is_floating_point_v<T>) {
    static_assert(sizeof(T) == 8, "floating-point values are stored as double");
    return numeric_type::float64;
  } else if constexpr (std::is_signed_v<T>) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "integers: 32 or 64 bit");
    return sizeof(T) == 4 ? numeric_type::int32 : numeric_type::int64;
  } else {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "integers: 32 or 64 bit");
    return sizeof(T) == 4 ? numeric_type::uint32 : numeric_type::uint64;
  }
}

// Anything that carries attributes: a file (its root group), a group or a dataset.
class node {
 public:
  id_type id() const noexcept { return handle_.get(); }
  const std::string& file_name() const noexcept { return file_; }
  // Lets go of the identifier without closing it, e.g. after a failed write, when closing
  // would make HDF5 write its cached metadata again. HDF5 runs no cleanup at exit (see
  // hdf5.cpp), so the object is never closed.
  void forget() noexcept { handle_.release(); }
  const std::string& path() const noexcept { return path_; }

  bool has_attribute(std::string_view name) const;
  std::vector<std::string> attribute_names() const;
  // Each set_attribute replaces an attribute of the same name, whatever its type or shape.
  void set_attribute(std::string_view name, std::string_view value);  // variable-length string
  void set_attribute(std::string_view name, const char* value) {
    set_attribute(name, std::string_view(value));
  }
  void set_attribute(std::string_view name, const std::vector<std::string>& values);
  void set_attribute(std::string_view name, std::span<const double> values);
  template <class T>
  requires std::is_arithmetic_v<T>
  void set_attribute(std::string_view name, T value) {
    set_numeric_attribute(name, numeric_type_of<T>(), &value);
  }

  std::string string_attribute(std::string_view name) const;
  std::vector<std::string> strings_attribute(std::string_view name) const;
  std::vector<double> doubles_attribute(std::string_view name) const;
  bool attribute_is_numeric(std::string_view name) const;  // integer or floating point
  // A scalar numeric attribute, converted by HDF5 to T.
  template <class T>
  requires std::is_arithmetic_v<T> T numeric_attribute(std::string_view name)
  const {
    T value{};
    read_numeric_attribute(name, numeric_type_of<T>(), &value);
    return value;
  }

 protected:
  node(handle h, std::string file, std::string path)
      : handle_(std::move(h)), file_(std::move(file)), path_(std::move(path)) {}
  std::string child_path(std::string_view name) const;
  [[noreturn]] void fail(const std::string& object, const std::string& what) const;

  handle handle_;
  std::string file_;
  std::string path_;

 private:
  void set_numeric_attribute(std::string_view name, numeric_type type, const void* value);
  void read_numeric_attribute(std::string_view name, numeric_type type, void* value) const;
};

// What an appendable dataset holds per element.
enum class element {
  float64,
  int32,
  text,  ///< fixed-length UTF-8 string of text_width bytes, NUL-padded
};

// Layout of a dataset that starts with 0 rows and grows along its first dimension.
struct appendable_options {
  element type = element::float64;
  std::optional<std::size_t> columns;  ///< 2-D with this many columns (>= 0); none: 1-D
  std::size_t chunk_rows = 0;          ///< rows per chunk, >= 1; 0 picks chunks of ~256 KiB
  int deflate_level = 4;               ///< zlib level, 0..9; 0 stores chunks uncompressed
  std::size_t text_width = 0;          ///< bytes per string for element::text, >= 1
  double fill = std::numeric_limits<double>::quiet_NaN();  ///< float64 rows not yet written
  std::int32_t integer_fill = 0;                           ///< int32 rows not yet written
};

// The filter pipeline of a chunked dataset as contactuq creates them (byte shuffle, then
// deflate), captured once so that chunks can be compressed on other threads without calling
// HDF5, which is not thread safe. See dataset::write_filtered_chunk.
struct chunk_filters {
  std::size_t element_size = 0;  ///< bytes per element
  std::size_t chunk_rows = 0;    ///< rows per chunk
  std::size_t row_elements = 0;  ///< elements per row (columns, 1 for a 1-D dataset)
  bool shuffle = false;          ///< H5Z shuffle: byte k of every element stored together
  int deflate_level = 0;         ///< zlib level 1..9; 0 when the dataset is not compressed
  bool supported = false;        ///< the pipeline holds no filter other than these two

  std::size_t chunk_bytes() const noexcept { return chunk_rows * row_elements * element_size; }
};

// What the dataset's filters make of one whole chunk of raw (native little-endian) bytes:
// shuffled as H5Z_FILTER_SHUFFLE does, then compressed to the zlib stream format that
// H5Z_FILTER_DEFLATE decodes (by libdeflate, at the dataset's level), so that any HDF5 reader
// decodes it. Thread safe. raw.size() must be filters.chunk_bytes().
std::vector<std::byte> filter_chunk(const chunk_filters& filters, std::span<const std::byte> raw);

class dataset : public node {
 public:
  std::vector<std::size_t> shape() const;
  std::size_t rows() const;                      // extent of the first dimension
  std::vector<std::size_t> chunk_shape() const;  // empty when not chunked
  bool is_variable_text() const;                 // variable-length strings
  bool is_text() const;                          // strings, fixed or variable length

  // Changes the number of rows (growing or shrinking) of a dataset made appendable.
  void resize_rows(std::size_t rows);
  // Writes whole rows [first, first + n) from row-major values; the rows must exist.
  void write_rows(std::size_t first, std::span<const double> values);
  void write_rows(std::size_t first, std::span<const std::int32_t> values);
  // Fixed-length text: longer strings are cut at the last whole UTF-8 character that fits.
  void write_rows(std::size_t first, const std::vector<std::string>& values);
  // resize_rows(rows() + n) then write_rows(old rows, values).
  template <class Values>
  void append_rows(const Values& values) {
    const std::size_t first = rows();
    const std::size_t n = row_count(std::size(values));
    resize_rows(first + n);
    write_rows(first, values);
  }

  std::vector<double> read_doubles() const;  // every element, row-major
  std::vector<double> read_doubles(std::size_t first_row, std::size_t rows) const;
  std::vector<std::int32_t> read_int32s() const;
  std::vector<std::int32_t> read_int32s(std::size_t first_row, std::size_t rows) const;
  std::string read_text() const;                // a scalar string dataset
  std::vector<std::string> read_texts() const;  // a 1-D string dataset, fixed or variable
  std::vector<std::string> read_texts(std::size_t first_row, std::size_t rows) const;

  // Writes this dataset's cached chunks and metadata to the file (H5Dflush).
  void flush();

  // The dataset's filters, for filter_chunk.
  chunk_filters filters() const;
  // Writes one whole chunk whose rows start at first_row (a multiple of the chunk rows), given
  // as filter_chunk made it, bypassing the filter pipeline (H5Dwrite_chunk); the rows must
  // exist. Lets worker threads do the compression, the costly part of writing.
  void write_filtered_chunk(std::size_t first_row, std::span<const std::byte> filtered);

 private:
  friend class group;
  dataset(handle h, std::string file, std::string path)
      : node(std::move(h), std::move(file), std::move(path)) {}
  std::size_t row_size() const;  // elements per row
  std::size_t row_count(std::size_t elements) const;
  void read_block(std::size_t first_row, std::size_t rows, id_type memory_type, void* buffer) const;
  // chunk_shape(), read once: fixed when the dataset is made, and costly to read (every
  // write_filtered_chunk needs it).
  mutable std::optional<std::vector<std::size_t>> chunk_shape_;
};

class group : public node {
 public:
  group create_group(std::string_view name);
  group open_group(std::string_view name) const;
  bool contains(std::string_view name) const;  // a link of that name exists here
  std::vector<std::string> member_names() const;
  bool is_group(std::string_view name) const;  // the member is a group (else a dataset or type)

  // One-call writes of whole contiguous datasets.
  dataset write(std::string_view name, std::span<const double> values);  // 1-D
  dataset write(std::string_view name, std::span<const double> row_major, std::size_t rows,
                std::size_t columns);                                // 2-D
  dataset write_text(std::string_view name, std::string_view text);  // scalar string
  dataset write_texts(std::string_view name, const std::vector<std::string>& texts);  // 1-D

  // A chunked, optionally deflate-compressed dataset of 0 rows, extendible along rows.
  dataset create_appendable(std::string_view name, const appendable_options& options);
  dataset open_dataset(std::string_view name) const;

 protected:
  friend class file;
  using node::node;
};

enum class file_mode {
  create,      ///< create, truncating an existing file
  read_write,  ///< open an existing file for reading and writing
  read_only,   ///< open an existing file for reading
};

// The writes of an HDF5 session held back from the file (file_options::hold_writes): the file
// is opened read-only underneath, the session reads its own writes, and once it is closed the
// caller applies them (in order) itself, e.g. after saving what they overwrite.
struct held_writes {
  struct write {
    std::uint64_t offset = 0;
    std::vector<std::byte> bytes;
  };
  std::vector<write> writes;     ///< in the order the session made them
  std::uint64_t initial_size = 0;  ///< the file's size when the session opened it
  std::uint64_t final_size = 0;    ///< the size the session leaves it at (its end of file)
};

struct file_options {
  // Write the newest HDF5 format (1.10), which single-writer/multiple-reader (SWMR) writing
  // requires. Files in that format need HDF5 >= 1.10 to read until converted by
  // file::convert_for_old_readers().
  bool latest_format = true;
  // read_only: open as a SWMR reader, which also reads a file whose SWMR writer still runs or
  // died without closing it.
  bool swmr_read = false;
  // read_write: open as the SWMR writer (see file::start_swmr_write), marking the file so from
  // the first instant. Needs latest_format and a file in the 1.10 format.
  bool swmr_write = false;
  // read_write: clear the marks a SWMR writer that died left in the superblock and extend
  // the recorded end of allocation to the end of the file (what h5clear -s -i does). Only for
  // a file no other process writes.
  bool recover = false;
  // read_write: hold every write of the session in memory instead of writing the file (see
  // held_writes); the file on disk is left as it is. Not with swmr_write. The object must
  // outlive the file object.
  held_writes* hold_writes = nullptr;
  // Scan the file for damaged global heaps before HDF5 reads it (global_heap_check.cpp); false only
  // for a file this process wrote itself and holds locked, since the scan reads all of it.
  bool check_heaps = true;
};

class file : public group {
 public:
  file(const std::filesystem::path& path, file_mode mode, const file_options& options = {});

  // Writes every buffer of the file to the operating system (H5Fflush).
  void flush();
  // Turns on SWMR writing: from here on, the file on disk is consistent at every instant
  // (the HDF5 library orders its metadata writes for that), datasets may grow and be written
  // but no object or attribute may be created. Needs latest_format.
  void start_swmr_write();
  // Rewrites the superblock and the chunk index of every dataset in the HDF5 1.8 format
  // (H5Fformat_convert, H5Dformat_convert), so that readers built on HDF5 1.8 open the file.
  // Not while SWMR writing is on.
  void convert_for_old_readers();
  // Closes the file, reporting errors (the destructor swallows them). Objects still open keep
  // the file open until they close.
  void close();
};

}  // namespace contactuq::io::hdf5
