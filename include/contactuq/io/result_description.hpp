#pragma once
// What any contactuq result file holds, read without knowing its format: the root attributes
// and every dataset with its shape, units and values (all of them when few, else their range).
// `contactuq summarize` prints it for the files that have no dedicated summary (curve, impact,
// evaluate, pin-slot, calibration and fit files) and under every dedicated one's header.

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace contactuq::io {

struct dataset_description {
  std::string path;                 ///< e.g. "/results/restitution"
  std::vector<std::size_t> shape;   ///< empty for a scalar
  std::string units;                ///< its `units` attribute, "" when it has none
  bool text = false;                ///< strings (else numbers)
  std::size_t elements = 0;
  // Every element when there are at most `preview` of them (texts cut to one line).
  std::vector<double> values;
  std::vector<std::string> texts;
  // Numbers: how many are finite, and their smallest, largest and mean (NaN when none is).
  std::size_t finite = 0;
  double min = 0, max = 0, mean = 0;
};

struct result_description {
  std::string file;
  std::string format;   ///< root attribute `format`, "" when none
  std::string method;   ///< root attribute `method`, "" when none
  std::string model;    ///< root attribute `model`, "" when none
  std::vector<std::pair<std::string, std::string>> attributes;  ///< every root attribute as text
  std::vector<dataset_description> datasets;  ///< depth first, in name order
};

// Throws std::runtime_error naming the file when it cannot be read as HDF5.
result_description describe_result(const std::filesystem::path& file, std::size_t preview = 12);

}  // namespace contactuq::io
