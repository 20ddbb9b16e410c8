#pragma once
// What every method file (src/engine/<name>_method.cpp) shares: the report and error streams of
// a run, and the list of built-in methods the registry starts with (builtin_methods.cpp).

#include <cstdio>
#include <filesystem>
#include <vector>

#include "contactuq/engine/method.hpp"
#include "contactuq/engine/run_study.hpp"
#include "contactuq/io/result_file.hpp"

namespace contactuq::engine::detail {

using path = std::filesystem::path;

// The report stream, or a stream that discards what is written to it.
std::FILE* report(const run_options& o);
std::FILE* errors(const run_options& o);

// The built-in methods, in the order `contactuq run --help` and messages list them.
std::vector<method> builtin_methods();

}  // namespace contactuq::engine::detail
