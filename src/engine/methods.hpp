#pragma once
// The methods run_study() dispatches to, one file each (src/engine/<method>_method.cpp). Each
// writes its result to `out`, prints its summary to the report stream and returns the outcome.

#include <cstdio>
#include <filesystem>
#include <functional>

#include "contactuq/engine/run_study.hpp"

namespace contactuq::engine::detail {

using path = std::filesystem::path;

run_result run_sample(const io::study_document& doc, const run_options& o, const path& out);
run_result run_optimize(const io::study_document& doc, const run_options& o, const path& out);
run_result run_calibrate(const io::study_document& doc, const run_options& o, const path& out);
run_result run_curve(const io::study_document& doc, const run_options& o, const path& out);
run_result run_impact(const io::study_document& doc, const run_options& o, const path& out);
run_result run_pinslot(const io::study_document& doc, const run_options& o, const path& out);
run_result run_evaluate(const io::study_document& doc, const run_options& o, const path& out);

// The report stream, or a stream that discards what is written to it.
std::FILE* report(const run_options& o);
std::FILE* errors(const run_options& o);

// Makes the folder of `out` (nothing for a bare file name).
void make_parent(const path& out);

// Writes a result of a method that runs in one go through `write` into `out`.part, then moves it
// over `out`: a write that fails (disk full, an error) leaves whatever was at `out` as it was.
void write_then_rename(const path& out, const std::function<void(const path&)>& write);

}  // namespace contactuq::engine::detail
