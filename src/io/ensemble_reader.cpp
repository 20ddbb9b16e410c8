// The ensemble reader (contactuq/io/ensemble_store.hpp): the complete samples of an ensemble
// file, whether its writer finished, still runs or was killed.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "contactuq/error.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/io/hdf5.hpp"
#include "ensemble_detail.hpp"

namespace contactuq::io {

using namespace detail;

// ---- reader ----

namespace {

hdf5::file open_for_reading(const std::filesystem::path& path) {
  try {
    return hdf5::file(path, hdf5::file_mode::read_only, {.latest_format = false});
  } catch (const hdf5::error& plain) {
    // A file whose SWMR writer still runs or was killed opens only as a SWMR reader.
    try {
      return hdf5::file(path, hdf5::file_mode::read_only,
                        {.latest_format = false, .swmr_read = true});
    } catch (const hdf5::error&) {
      // Killed between opening the file for writing and starting SWMR writing: only a
      // writer may clear the mark that leaves.
      if (std::string_view(plain.what()).find("already open for write") != std::string::npos)
        throw ensemble_error(fmt::format(
            "{}: its writer was interrupted while opening it; resuming the run repairs it "
            "(HDF5: {})",
            path.string(), plain.what()));
      throw plain;
    }
  }
}

sample_matrix read_matrix(const hdf5::dataset& d, std::size_t rows) {
  const std::size_t columns = d.shape().at(1);
  sample_matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(columns));
  const auto values = d.read_doubles(0, rows);
  std::copy(values.begin(), values.end(), m.data());
  return m;
}

std::size_t index_of(const std::vector<std::string>& names, std::string_view name,
                     const char* what) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw std::out_of_range(
        fmt::format("no {} '{}'; the {}s are: {}", what, name, what, fmt::join(names, ", ")));
  return static_cast<std::size_t>(it - names.begin());
}

}  // namespace

std::string file_format(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw std::runtime_error(fmt::format("{}: no such file", path.string()));
  const hdf5::file f = open_for_reading(path);
  return f.has_attribute("format") ? f.string_attribute("format") : std::string();
}

ensemble read_ensemble(const std::filesystem::path& path, const read_options& options) {
  const hdf5::file f = open_for_reading(path);
  ensemble e;
  e.schema = read_schema(f);
  auto rows = row_datasets::open(f, e.schema);
  e.rows = rows.complete_rows();
  e.inputs = read_matrix(rows.inputs, e.rows);
  e.outputs = read_matrix(rows.outputs, e.rows);
  if (options.curves)
    for (const auto& c : rows.curves) e.curves.push_back(read_matrix(c, e.rows));
  e.status = rows.status.read_int32s(0, e.rows);
  for (std::size_t i = 0; i < e.rows; ++i)
    if (e.status[i] < 0 || static_cast<std::size_t>(e.status[i]) >= sample_status_names().size())
      throw ensemble_error(fmt::format("{}: damaged file: /status[{}] = {}, expected a code of /status@codes (0, 1 or 2)",
                                       path.string(), i, e.status[i]));
  e.messages = rows.messages.read_texts(0, e.rows);
  e.resume_log = f.open_group("metadata").open_dataset("resume_log").read_texts();
  return e;
}

std::size_t ensemble::input_index(std::string_view name) const {
  return index_of(input_names(schema), name, "input");
}
std::size_t ensemble::output_index(std::string_view name) const {
  return index_of(output_names(schema), name, "output");
}
std::size_t ensemble::curve_index(std::string_view name) const {
  return index_of(curve_names(schema), name, "curve");
}

}  // namespace contactuq::io
