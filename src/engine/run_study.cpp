#include "contactuq/engine/run_study.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <utility>

#include "contactuq/io/hdf5.hpp"
#include "contactuq/model/registry.hpp"
#include "methods.hpp"

namespace contactuq::engine {
namespace {

constexpr std::array<std::pair<method, std::string_view>, 9> method_names{{
    {method::evaluate, "evaluate"},
    {method::curve, "curve"},
    {method::sweep, "sweep"},
    {method::impact, "impact"},
    {method::pinslot, "pinslot"},
    {method::sample, "sample"},
    {method::nested, "nested"},
    {method::optimize, "optimize"},
    {method::calibrate, "calibrate"},
}};

// The tables a study holds decide its method when it names none (study files before `method`).
method inferred_method(const io::study_table& root, std::optional<method> fallback) {
  if (root.has("optimization")) return method::optimize;
  if (root.has("fit")) return method::calibrate;
  if (root.has("impact")) return method::impact;
  if (root.has("stroke")) return root.has("sweep") ? method::sweep : method::curve;
  if (root.has("sampling") || root.has("parameters")) return method::sample;
  if (root.has("model") && root.table("model").string_or("type", "") == "pinslot") return method::pinslot;
  if (fallback) return *fallback;
  throw std::invalid_argument(fmt::format(
      "{}: the study names no method and holds none of the tables that imply one; add method = \"...\" (one of "
      "evaluate, curve, sweep, impact, pinslot, sample, nested, optimize, calibrate)",
      root.file()));
}

run_result run_method(method m, const io::study_document& doc, const run_options& options,
                      const std::filesystem::path& out);

// Runs the method with its stop and cancel flags also raised when options.time_limit seconds
// have passed (a watcher polls every 20 ms; samples check cancel before they start).
run_result run_with_deadline(method m, const io::study_document& doc, const run_options& options,
                             const std::filesystem::path& out) {
  if (!std::isfinite(options.time_limit) || options.time_limit > 1e9)
    throw std::invalid_argument(fmt::format("--time-limit {}: at most 1e9 seconds", options.time_limit));
  std::atomic<bool> stop = false, done = false, expired = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.time_limit);
  std::thread watcher([&] {
    while (!done) {
      if (std::chrono::steady_clock::now() >= deadline) expired = true;
      if (expired || (options.stop && *options.stop)) stop = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  run_options limited = options;
  limited.stop = &stop;
  limited.cancel = &expired;
  run_result r;
  try {
    r = run_method(m, doc, limited, out);
  } catch (...) {
    done = true;
    watcher.join();
    throw;
  }
  done = true;
  watcher.join();
  if (expired && r.exit_code == 130)
    fmt::print(detail::errors(options), "contactuq run: stopped by the time limit of {:g} s\n", options.time_limit);
  return r;
}

}  // namespace

std::string_view to_string(method m) {
  for (const auto& [value, name] : method_names)
    if (value == m) return name;
  return "?";
}

method method_of(const io::study_document& doc, std::optional<method> fallback) {
  const io::study_table root = doc.root();
  if (!root.has("method")) return inferred_method(root, fallback);
  const std::string name = root.string("method");
  for (const auto& [value, text] : method_names)
    if (text == name) return value;
  root.fail("method", fmt::format("unknown method \"{}\"; the methods are evaluate, curve, sweep, impact, pinslot, "
                                  "sample, nested, optimize, calibrate",
                                  name));
}

void refuse_overwrite(const std::filesystem::path& path, bool resumable) {
  auto unfinished = path;
  unfinished += ".part";
  if (resumable && std::filesystem::exists(unfinished))
    throw std::invalid_argument(fmt::format("{}: an unfinished run of it is in {}; continue it with --resume, or "
                                            "start over with --force",
                                            path.string(), unfinished.string()));
  if (std::filesystem::exists(path))
    throw std::invalid_argument(fmt::format("{} exists; give another output file (-o), or --force to replace it{}",
                                            path.string(), resumable ? " (--resume continues an unfinished run)" : ""));
}

run_result run_study(const io::study_document& doc, const run_options& options) {
  const method m = method_of(doc, options.fallback);
  const bool resumable = m == method::sample || m == method::nested || m == method::optimize;
  if (options.resume && options.force) throw std::invalid_argument("--resume and --force exclude each other");
  if (options.resume && !resumable)
    throw std::invalid_argument(fmt::format("{}: a {} study runs in one go; --resume applies to sample, nested and "
                                            "optimize studies",
                                            doc.file(), to_string(m)));
  if (options.time_limit > 0 && !resumable)
    throw std::invalid_argument(fmt::format("{}: --time-limit stops sample, nested and optimize studies (which "
                                            "resume); this one ({}) runs in one go",
                                            doc.file(), to_string(m)));
  if (!options.shard.empty() && m != method::sample && m != method::nested)
    throw std::invalid_argument(fmt::format("{}: --shard splits the samples of a sample or nested study, not a {} study",
                                            doc.file(), to_string(m)));
  const io::study_table root = doc.root();
  std::filesystem::path out = options.output;
  if (out.empty() && root.has("output")) out = root.table("output").string_or("file", "");
  if (out.empty()) out = std::filesystem::path(doc.file()).filename().replace_extension(".h5");
  if (!options.write_result && !options.check_only) {
    if (m != method::curve && m != method::sweep && m != method::calibrate)
      throw std::invalid_argument(fmt::format("{}: a {} study always writes its result file", doc.file(), to_string(m)));
    out.clear();
  }
  if (!out.empty() && !options.resume && !options.force && !options.check_only) refuse_overwrite(out, resumable);
  run_result result = options.time_limit > 0 && !options.check_only ? run_with_deadline(m, doc, options, out)
                                                                     : run_method(m, doc, options, out);
  if (result.model.empty() && root.has("model")) result.model = root.table("model").string_or("type", "");
  return result;
}

namespace {

run_result run_method(method m, const io::study_document& doc, const run_options& options,
                      const std::filesystem::path& out) {
  switch (m) {
    case method::evaluate: return detail::run_evaluate(doc, options, out);
    case method::curve:
    case method::sweep: return detail::run_curve(doc, options, out);
    case method::impact: return detail::run_impact(doc, options, out);
    case method::pinslot: return detail::run_pinslot(doc, options, out);
    case method::sample:
    case method::nested: return detail::run_sample(doc, options, out);
    case method::optimize: return detail::run_optimize(doc, options, out);
    case method::calibrate: return detail::run_calibrate(doc, options, out);
  }
  throw std::logic_error("run_study: unhandled method");
}

}  // namespace

shown_units display_units_of_result(const std::filesystem::path& file) {
  shown_units shown;
  try {
    const io::hdf5::file f(file, io::hdf5::file_mode::read_only, {.latest_format = false});
    if (!f.contains("study")) return shown;
    const io::study_document doc = io::study_document::parse(f.open_dataset("study").read_text(), file.string());
    const io::study_table root = doc.root();
    if (root.has("model")) {
      model::register_builtin_models();
      shown.variables = model::make_model(root.table("model")).named_dimensions();
    }
    if (const auto output = root.optional_table("output")) shown.units = io::read_display_units(*output, shown.variables);
  } catch (const std::exception&) {
    return {};  // another version's study, or no model to name: SI
  }
  return shown;
}

namespace detail {

std::FILE* report(const run_options& o) {
  if (o.report) return o.report;
  static std::FILE* const discard = std::fopen("/dev/null", "w");
  return discard;
}

std::FILE* errors(const run_options& o) {
  if (o.errors) return o.errors;
  static std::FILE* const discard = std::fopen("/dev/null", "w");
  return discard;
}

void make_parent(const path& out) {
  if (const path dir = out.parent_path(); !dir.empty()) std::filesystem::create_directories(dir);
}

void write_then_rename(const path& out, const std::function<void(const path&)>& write) {
  path part = out;
  part += ".part";
  try {
    write(part);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(part, ignored);
    throw;
  }
  std::filesystem::rename(part, out);
}

}  // namespace detail
}  // namespace contactuq::engine
