#include "contactuq/engine/run_study.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <utility>

#include "contactuq/io/hdf5.hpp"
#include "contactuq/engine/method.hpp"
#include "contactuq/model/evaluation_context.hpp"
#include "contactuq/model/registry.hpp"
#include "methods.hpp"

namespace contactuq::engine {
namespace {

// Names the registered methods that `has` picks, as "a, b and c".
template <class Predicate>
std::string names_of(Predicate has) {
  std::vector<std::string> names;
  for (const method* m : methods())
    if (has(*m)) names.push_back(m->name);
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return text;
}

// The method a study written before the root key `method` asks for by its tables, or "". The
// one place that maps old study files to methods; methods added since are chosen by name only.
std::string_view legacy_method(const io::study_table& root) {
  if (root.has("optimization")) return "optimize";
  if (root.has("fit")) return "calibrate";
  if (root.has("impact")) return "impact";
  if (root.has("stroke")) return root.has("sweep") ? "sweep" : "curve";
  if (root.has("sampling") || root.has("parameters")) return "sample";
  if (root.has("model") && root.table("model").string_or("type", "") == "pinslot") return "pinslot";
  return {};
}

// Runs the method with its stop and cancel flags also raised when options.time_limit seconds
// have passed (a watcher polls every 20 ms; samples check cancel before they start).
run_result run_with_deadline(const method& m, const io::study_document& doc, const run_options& options,
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
    r = m.run(doc, limited, out);
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

const method& method_of(const io::study_document& doc, std::string_view fallback) {
  const io::study_table root = doc.root();
  if (root.has("method")) {
    const std::string name = root.string("method");
    try {
      return find_method(name);
    } catch (const std::invalid_argument& e) {
      root.fail("method", e.what());
    }
  }
  if (const std::string_view implied = legacy_method(root); !implied.empty()) return find_method(implied);
  if (!fallback.empty()) return find_method(fallback);
  throw std::invalid_argument(fmt::format("{}: the study names no method and holds none of the tables that imply one; "
                                          "add method = \"...\" (one of {})",
                                          root.file(), method_names()));
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
  const method& m = method_of(doc, options.fallback);
  if (options.resume && options.force) throw std::invalid_argument("--resume and --force exclude each other");
  const auto resumable = [](const method& x) { return x.resumable; };
  if (options.resume && !m.resumable)
    throw std::invalid_argument(fmt::format("{}: a {} study runs in one go; --resume applies to {} studies", doc.file(),
                                            m.name, names_of(resumable)));
  if (options.time_limit > 0 && !m.resumable)
    throw std::invalid_argument(fmt::format("{}: --time-limit stops {} studies (which resume); this one ({}) runs in "
                                            "one go",
                                            doc.file(), names_of(resumable), m.name));
  if (!options.shard.empty() && !m.shards)
    throw std::invalid_argument(fmt::format("{}: --shard splits the cases of {} studies, not a {} study", doc.file(),
                                            names_of([](const method& x) { return x.shards; }), m.name));
  const io::study_table root = doc.root();
  std::filesystem::path out = options.output;
  if (out.empty() && root.has("output")) out = root.table("output").string_or("file", "");
  if (out.empty()) out = std::filesystem::path(doc.file()).filename().replace_extension(".h5");
  if (!options.write_result && !options.check_only) {
    if (!m.result_optional)
      throw std::invalid_argument(fmt::format("{}: a {} study always writes its result file", doc.file(), m.name));
    out.clear();
  }
  if (!out.empty() && !options.resume && !options.force && !options.check_only) refuse_overwrite(out, m.resumable);
  const model::study_output_scope beside(out);  // the models the method builds may put files beside it
  run_result result = options.time_limit > 0 && !options.check_only ? run_with_deadline(m, doc, options, out)
                                                                     : m.run(doc, options, out);
  if (result.method_name.empty()) result.method_name = m.name;
  if (result.model.empty() && root.has("model")) result.model = root.table("model").string_or("type", "");
  return result;
}

shown_units display_units_of_result(const std::filesystem::path& file) {
  shown_units shown;
  try {
    const io::hdf5::file f(file, io::hdf5::file_mode::read_only, {.latest_format = false});
    if (!f.contains("study")) return shown;
    const io::study_document doc = io::study_document::parse(f.open_dataset("study").read_text(), file.string());
    const io::study_table root = doc.root();
    if (root.has("model")) {
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

}  // namespace detail
}  // namespace contactuq::engine
