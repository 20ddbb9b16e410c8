// external_model::from_study: the [model] table of an external model (model/external_model.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <tuple>

#include "contactuq/model/external_model.hpp"
#include "contactuq/model/evaluation_context.hpp"

namespace contactuq::model {

namespace fs = std::filesystem;
namespace u = units;

namespace {

// A unit text: "" and "1" are dimensionless.
u::unit unit_of(const io::study_table& t, const std::string& key, const std::string& text) {
  if (text.empty() || text == "1") return {};
  try {
    return u::parse_unit(text);
  } catch (const std::invalid_argument& e) {
    t.fail(key, e.what());
  }
}

external_curve read_curve(const io::study_table& ct, const std::string& name) {
  ct.allow_only({"curve", "units", "x_name", "x_units", "x"});
  if (!ct.boolean_or("curve", false)) ct.fail("curve", "an output table is a curve: curve = true");
  external_curve c{name, {}, 1.0, ct.string_or("x_name", "x"), {}, 1.0, {}};
  const std::string units = ct.string_or("units", "");
  const u::unit yu = unit_of(ct, "units", units);
  std::tie(c.dim, c.unit_to_si) = std::pair{yu.dim, yu.to_si};
  const u::unit xu = unit_of(ct, "x_units", ct.string_or("x_units", ""));
  std::tie(c.x_dim, c.x_unit_to_si) = std::pair{xu.dim, xu.to_si};
  if (!ct.has("x")) ct.fail("a curve needs its abscissa: x = [0, 1, 2] or x = { from = 0, to = 10, points = 11 }");
  if (ct.value_text("x") == "{...}") {
    const io::study_table xt = ct.table("x");
    xt.allow_only({"from", "to", "points"});
    const double from = xt.quantity("from", u::dimensionless), to = xt.quantity("to", u::dimensionless);
    const std::int64_t n = xt.integer("points");
    if (n < 2 || n > 1000000) xt.fail("points", "must be in [2, 1000000]");
    if (!(to > from)) xt.fail("to", "must be above from");
    for (std::int64_t k = 0; k < n; ++k)
      c.x.push_back(k + 1 == n ? to : from + (to - from) * static_cast<double>(k) / static_cast<double>(n - 1));
  } else {
    c.x = ct.quantities("x", u::dimensionless);
  }
  return c;
}

// The command's argv with paths relative to the study's folder made absolute; errors at `command`.
std::vector<std::string> read_command(const io::study_table& t, bool shell) {
  const bool one_string = t.value_text("command").starts_with('"');
  if (shell) {
    if (!one_string) t.fail("command", "with shell = true, command is one string");
    return {t.string("command")};
  }
  if (one_string)
    t.fail("command", "command is an argv list, e.g. [\"python3\", \"drivers/model.py\"] (or set shell = true)");
  std::vector<std::string> argv = t.strings("command");
  const fs::path base = fs::path(t.file()).parent_path();
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const fs::path p(argv[i]);
    if (p.is_absolute() || argv[i].empty()) continue;
    std::error_code ec;
    const bool path_like = argv[i].find('/') != std::string::npos;
    if ((i == 0 && path_like) || (i > 0 && fs::exists(base / p, ec)))
      argv[i] = fs::absolute(base / p, ec).lexically_normal().string();
  }
  const std::string& program = argv.front();
  if (program.find('/') != std::string::npos) {
    if (::access(program.c_str(), X_OK) != 0)
      t.fail("command", fmt::format("{} is not an executable file (relative paths are taken from the study's folder)",
                                    program));
    return argv;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path dir = dirs.substr(start, end - start);
    if (::access((dir / program).c_str(), X_OK) == 0) return argv;
    start = end + 1;
  }
  t.fail("command", fmt::format("{} is not found in PATH", program));
}

external_options read_options(const io::study_table& t) {
  external_options o;
  if (!t.has("command")) t.fail("missing command: the program to run, e.g. command = [\"python3\", \"model.py\"]");
  o.shell = t.boolean_or("shell", false);
  o.command = read_command(t, o.shell);
  o.timeout = t.quantity_or("timeout", u::duration, std::numeric_limits<double>::infinity());
  const std::string keep = t.choice("keep_workdirs", {"failed", "all", "none"}, "failed");
  o.keep_workdirs = keep == "all"    ? external_options::keep::all
                    : keep == "none" ? external_options::keep::none
                                     : external_options::keep::failed;
  const fs::path base = fs::path(t.file()).parent_path();
  if (t.has("workdirs")) o.workdirs = fs::absolute(base / t.string("workdirs")).lexically_normal();
  o.result_file = study_output();  // kept work directories beside the result they belong to
  if (t.has("templates"))
    for (const std::string& f : t.strings("templates")) o.templates.push_back(base / f);
  o.format = t.string_or("format", o.format);
  return o;
}

}  // namespace

external_model external_model::from_study(const io::study_table& t) {
  t.allow_only({"type", "command", "shell", "timeout", "keep_workdirs", "workdirs", "templates", "format", "inputs",
                "outputs"});
  if (!t.has("inputs")) t.fail("missing [model.inputs]: name = \"<value with units>\" per input, e.g. R = \"200 N\"");
  if (!t.has("outputs")) t.fail("missing [model.outputs]: name = \"<units>\" per output, e.g. g = \"N\"");
  external_options options = read_options(t);
  const io::study_table in_table = t.table("inputs");
  const io::study_table out_table = t.table("outputs");
  std::vector<external_input> inputs = read_declared_inputs(in_table);
  std::vector<external_output> outputs;
  std::vector<external_curve> curves;
  for (const std::string& name : keys_as_written(out_table)) {
    if (in_table.has(name)) out_table.fail(name, "is an input's name too; inputs and outputs need names of their own");
    if (out_table.value_text(name) == "{...}") {
      curves.push_back(read_curve(out_table.table(name), name));
      continue;
    }
    const std::string text = out_table.string(name);
    const u::unit un = unit_of(out_table, name, text);
    outputs.push_back({name, un.dim, un.to_si, un.to_si == 1.0 && !text.empty() && text != "1" ? text : ""});
  }
  if (inputs.empty()) in_table.fail("no inputs: name = \"<value with units>\" per input, e.g. R = \"200 N\"");
  if (outputs.empty() && curves.empty()) out_table.fail("no outputs: name = \"<units>\" per output, e.g. g = \"N\"");
  try {
    return external_model(std::move(inputs), std::move(outputs), std::move(curves), std::move(options));
  } catch (const parameter_error& e) {
    if (in_table.has(e.field())) in_table.fail(e.field(), e.what());
    if (out_table.has(e.field())) out_table.fail(e.field(), e.what());
    t.fail(e);
  }
}

std::vector<std::string> external_commands(const io::study_table& model_table) {
  if (model_table.string_or("type", "") != "external") return {};
  return {external_model::from_study(model_table).command_text()};
}

}  // namespace contactuq::model
