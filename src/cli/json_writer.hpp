#pragma once
// The commands' `--json` output is written by the library's writer (io/json_writer.hpp), the one
// that also writes summarize's report for Python.

#include "contactuq/io/json_writer.hpp"

namespace contactuq::cli {

using io::json_writer;

}  // namespace contactuq::cli
