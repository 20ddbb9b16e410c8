#pragma once
// What every contactuq result file has in common, written in one place: the root attributes
// that say what the file is (format, format_version, method, model, title, contactuq_version,
// study_path), the study verbatim as /study, and the write-then-rename that leaves no half
// written file under the result's name. Each method's own groups go below the root
// (docs/hdf5-schema.md).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "contactuq/io/hdf5.hpp"

namespace contactuq::io {

struct result_header {
  std::string format = {};           ///< "contactuq-<layout>", the reader's key (plots, summarize)
  std::int64_t format_version = 1;   ///< the layout's version; int64 in every file
  std::string method = {};           ///< the method that ran (evaluate, sweep, sample, ...)
  std::string model = {};            ///< the registered model's name
  std::string title = {};            ///< the study's title; "": no attribute
  std::string study_text = {};       ///< the study file verbatim, stored as /study
  std::string study_path = {};       ///< where the study was read from
};

// Writes the header's root attributes and /study into `f` (a file just created). Returns the
// /study dataset, for attributes a layout keeps beside it.
hdf5::dataset write_result_header(hdf5::file& f, const result_header& header);

// Creates the parent folder of `out` (nothing for a bare file name).
void make_parent_folder(const std::filesystem::path& out);

// Writes a result through `write` into `out`.part, then renames it to `out`: a write that fails
// (disk full, an error) removes the part and leaves whatever was at `out` as it was.
void write_then_rename(const std::filesystem::path& out, const std::function<void(const std::filesystem::path&)>& write);

}  // namespace contactuq::io
