#include "contactuq/model/external_model.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "contactuq/error.hpp"
#include "contactuq/model/evaluation_context.hpp"
#include "contactuq/model/external_process.hpp"

namespace contactuq::model {

namespace fs = std::filesystem;
namespace u = units;
using json = nlohmann::json;

namespace {

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// {name} of an input replaced by its value; any other brace is left as written (a deck may
// use braces of its own).
std::string substituted(const std::string& text, const std::map<std::string, std::string, std::less<>>& values) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('{', i);
    if (open == std::string::npos) break;
    const std::size_t close = text.find('}', open + 1);
    if (close == std::string::npos) break;
    out.append(text, i, open - i);
    const std::string_view key(text.data() + open + 1, close - open - 1);
    if (auto it = values.find(key); it != values.end()) {
      out += it->second;
      i = close + 1;
    } else {
      out += '{';
      i = open + 1;
    }
  }
  out.append(text, i, std::string::npos);
  return out;
}

// The y of a curve at the declared abscissa, linear between the program's points.
std::vector<double> interpolated(const std::vector<double>& x, const std::vector<double>& y,
                                 const std::vector<double>& at) {
  std::vector<double> out;
  out.reserve(at.size());
  for (const double a : at) {
    auto hi = std::lower_bound(x.begin(), x.end(), a);
    if (hi == x.begin()) hi = std::next(hi);
    if (hi == x.end()) hi = std::prev(hi);
    const auto k = static_cast<std::size_t>(hi - x.begin());
    const double t = (a - x[k - 1]) / (x[k] - x[k - 1]);
    out.push_back(y[k - 1] + t * (y[k] - y[k - 1]));
  }
  return out;
}

std::string quoted_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?&|;<>()[]{}!#~") == std::string::npos;
    std::string q = a;
    if (!plain) {
      q = "'";
      for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      q += "'";
    }
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

// Numbers of a results.json value; throws model_error naming `what`.
std::vector<double> numbers(const json& j, const std::string& what) {
  if (!j.is_array()) throw model_error(fmt::format("{} is not an array of numbers", what));
  std::vector<double> v;
  for (const json& e : j) {
    if (!e.is_number()) throw model_error(fmt::format("{} holds {} where a number belongs", what, e.dump()));
    v.push_back(e.get<double>());
    if (!std::isfinite(v.back())) throw model_error(fmt::format("{} holds a value that is not finite", what));
  }
  return v;
}

}  // namespace

// Shared by the copies of one model: the evaluation counter, the work root, the templates.
struct external_model::state {
  std::atomic<long long> evaluations = 0;
  std::once_flag made_root;
  fs::path root;
  std::vector<std::pair<std::string, std::string>> templates;  // file name, text

  // A folder of this model's own (the process and the model in its name: MPI ranks and a
  // resumed run keep apart), made at the first evaluation.
  const fs::path& work_root(const external_options& o) {
    std::call_once(made_root, [&] {
      static std::atomic<int> models = 0;
      const int n = models++;
      if (!o.workdirs.empty())
        root = o.workdirs / fmt::format("contactuq-external-{}-{}", ::getpid(), n);
      else if (!o.result_file.empty())
        root = o.result_file.parent_path() / fmt::format("{}.work-{}-{}", o.result_file.filename().string(), ::getpid(), n);
      else
        root = fs::temp_directory_path() / fmt::format("contactuq-external-{}-{}", ::getpid(), n);
      fs::create_directories(root);
    });
    return root;
  }
  ~state() {
    std::error_code ec;
    if (!root.empty()) fs::remove(root, ec);  // only when empty: kept work directories stay
  }
};

external_model::external_model(std::vector<external_input> inputs, std::vector<external_output> outputs,
                               std::vector<external_curve> curves, external_options options)
    : inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      curves_(std::move(curves)),
      options_(std::move(options)),
      state_(std::make_shared<state>()) {
  if (inputs_.empty()) throw parameter_error("inputs", "an external model needs at least one input");
  if (outputs_.empty() && curves_.empty())
    throw parameter_error("outputs", "an external model needs at least one output or curve");
  if (options_.command.empty() || options_.command.front().empty())
    throw parameter_error("command", "an external model needs a command");
  std::set<std::string> seen;
  const auto check_name = [&](const std::string& name) {
    if (name.empty()) throw parameter_error(name, "a name is empty");
    if (!seen.insert(name).second)
      throw parameter_error(name, fmt::format("\"{}\" is used twice (inputs, outputs and curves share names)", name));
  };
  for (const auto& in : inputs_) {
    check_name(in.name);
    if (!std::isfinite(in.nominal))
      throw parameter_error(in.name, fmt::format("{} = {}: the value must be finite", in.name, format_value(in.nominal)));
  }
  for (const auto& out : outputs_) check_name(out.name);
  for (const auto& c : curves_) {
    check_name(c.name);
    if (c.x.size() < 2 || !std::is_sorted(c.x.begin(), c.x.end()) ||
        std::adjacent_find(c.x.begin(), c.x.end()) != c.x.end())
      throw parameter_error(c.name, fmt::format("curve {}: x needs two or more increasing values", c.name));
  }
  if (!(options_.timeout > 0.0)) throw parameter_error("timeout", "the timeout must be > 0 s");
  try {
    (void)fmt::format(fmt::runtime(options_.format), 1.0);
  } catch (const fmt::format_error& e) {
    throw parameter_error("format", fmt::format("format \"{}\": {} (e.g. \"{{:.6e}}\")", options_.format, e.what()));
  }
  for (const auto& t : options_.templates) {
    std::ifstream probe(t);
    if (!probe) throw parameter_error("templates", fmt::format("template {} cannot be read", t.string()));
    state_->templates.emplace_back(t.filename().string(), read_text(t));
  }
}

std::vector<variable> external_model::inputs() const {
  std::vector<variable> v;
  for (const auto& in : inputs_) v.push_back({in.name, in.dim, in.nominal, in.valid});
  return v;
}

std::vector<variable> external_model::outputs() const {
  std::vector<variable> v;
  for (const auto& out : outputs_) v.push_back({out.name, out.dim, std::nan(""), {}, out.unit});
  return v;
}

std::vector<curve_output> external_model::curves() const {
  std::vector<curve_output> v;
  for (const auto& c : curves_) {
    std::vector<double> x = c.x;
    for (double& a : x) a *= c.x_unit_to_si;
    v.push_back({c.name, c.dim, c.x_name, c.x_dim, std::move(x)});
  }
  return v;
}

std::string external_model::command_text() const {
  return options_.shell ? "/bin/sh -c " + quoted_command({options_.command.front()}) : quoted_command(options_.command);
}

namespace {

// The command as a failure message names it: absolute paths by their file names, a shell
// command cut to 40 characters. A result file keeps only the first 256 bytes of a message, which
// should hold the reason.
std::string short_command(const external_options& o) {
  if (o.shell) {
    const std::string& c = o.command.front();
    return "sh -c " + quoted_command({c.size() > 40 ? c.substr(0, 37) + "..." : c});
  }
  std::vector<std::string> argv = o.command;
  for (auto& a : argv)
    if (a.starts_with('/')) a = fs::path(a).filename().string();
  return quoted_command(argv);
}

}  // namespace

namespace {

// Why an evaluation failed, before the stderr and work directory are added.
struct failure {
  std::string reason;
};

std::string ending_text(const program_run& r, double timeout) {
  switch (r.how) {
    case program_run::ending::not_started:
      return fmt::format("could not start: {}", r.error);
    case program_run::ending::cancelled:
      return "was killed: the run was cancelled";
    case program_run::ending::timed_out:
      return fmt::format("ran past its timeout of {} s and was killed", format_value(timeout));
    case program_run::ending::signalled:
      return fmt::format("was killed by signal {} ({})", r.status, strsignal(r.status));
    case program_run::ending::exited:
      if (r.status != 0) return fmt::format("exited with status {}", r.status);
      if (r.left_running)
        return "exited but left processes running in its process group (now killed); a program must wait for "
               "what it starts";
      return {};
  }
  return {};
}

// The "outputs" and "curves" of results.json, in SI; throws failure.
json parsed_results(const fs::path& dir) {
  const fs::path file = dir / "results.json";
  if (!fs::exists(file)) throw failure{"wrote no results.json"};
  const std::string text = read_text(file);
  try {
    json j = json::parse(text);
    if (!j.is_object() || !j.contains("outputs") || !j["outputs"].is_object())
      throw failure{"results.json holds no \"outputs\" object: {\"outputs\": {name: value}}"};
    return j;
  } catch (const json::exception& e) {
    if (text.find("NaN") != std::string::npos || text.find("Infinity") != std::string::npos)
      throw failure{"results.json holds NaN or Infinity (not JSON): an output is not a number"};
    throw failure{fmt::format("results.json is not valid JSON: {}", e.what())};
  }
}

}  // namespace

evaluation external_model::evaluate(std::span<const double> x) const {
  if (x.size() != inputs_.size())
    throw std::invalid_argument(fmt::format("external model: {} inputs, got {}", inputs_.size(), x.size()));
  const long long number = state_->evaluations++;
  fs::path dir = options_.workdirs;
  std::error_code ec;
  try {
    dir = state_->work_root(options_) / fmt::format("eval-{:06d}", number);
    fs::remove_all(dir, ec);
    fs::create_directories(dir);
    write_inputs(dir, x, number);
  } catch (const std::exception& e) {  // a full disk, a folder not writable: this evaluation fails
    throw model_error(fmt::format("external model: cannot prepare the work directory {}: {}", dir.string(), e.what()));
  }
  const std::vector<std::string> argv =
      options_.shell ? std::vector<std::string>{"/bin/sh", "-c", options_.command.front()} : options_.command;
  const program_run run = run_program(argv, dir, options_.timeout);
  cap_file(dir / "stderr.txt", 1 << 20);
  cap_file(dir / "stdout.txt", 1 << 20);
  try {
    if (const std::string ended = ending_text(run, options_.timeout); !ended.empty()) throw failure{ended};
    evaluation e = read_results(dir);
    if (options_.keep_workdirs != external_options::keep::all) fs::remove_all(dir, ec);
    return e;
  } catch (const failure& f) {
    const bool keep = options_.keep_workdirs != external_options::keep::none;
    const evaluation_context& context = current_evaluation();
    std::string message = fmt::format("external model: {} {} (", short_command(options_), f.reason);
    if (context.sample >= 0)
      message += context.case_label.empty() ? fmt::format("sample {}, ", context.sample)
                                            : fmt::format("sample {} of case {}, ", context.sample, context.case_label);
    message += fmt::format("evaluation {}", number);
    message += keep ? fmt::format("; work directory kept: {})", dir.string()) : std::string(")");
    const std::vector<std::string> lines = last_lines(dir / "stderr.txt", 5);
    if (!lines.empty()) {
      message += "; stderr ends:";
      for (const auto& l : lines) message += "\n  " + l;
    }
    if (!keep) fs::remove_all(dir, ec);
    throw model_error(message);
  }
}

void external_model::write_inputs(const fs::path& dir, std::span<const double> x, long long number) const {
  json params;
  params["inputs"] = json::object();
  std::map<std::string, std::string, std::less<>> texts;
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    const double v = x[i] / inputs_[i].unit_to_si;
    params["inputs"][inputs_[i].name] = v;
    if (!state_->templates.empty()) texts[inputs_[i].name] = fmt::format(fmt::runtime(options_.format), v);
  }
  const evaluation_context& context = current_evaluation();
  params["case"] = std::string(context.case_label);
  params["sample"] = context.sample >= 0 ? json(context.sample) : json(nullptr);
  params["evaluation"] = number;
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream out(dir / name, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", (dir / name).string()));
  };
  write("params.json", params.dump(1) + '\n');
  for (const auto& [name, text] : state_->templates) write(name, substituted(text, texts));
}

evaluation external_model::read_results(const fs::path& dir) const {
  const json j = parsed_results(dir);
  const json& outs = j["outputs"];
  evaluation e;
  for (const auto& out : outputs_) {
    const auto it = outs.find(out.name);
    if (it == outs.end()) {
      std::string has;
      for (const auto& [k, v] : outs.items()) has += (has.empty() ? "" : ", ") + k;
      throw failure{fmt::format("gave no output \"{}\" in results.json (it gave: {})", out.name,
                                has.empty() ? "none" : has)};
    }
    if (it->is_null()) throw failure{fmt::format("gave null for output \"{}\" (NaN?)", out.name)};
    if (!it->is_number()) throw failure{fmt::format("gave {} for output \"{}\", not a number", it->dump(), out.name)};
    const double v = it->get<double>();
    if (!std::isfinite(v)) throw failure{fmt::format("gave {} for output \"{}\"", v, out.name)};
    e.outputs.push_back(v * out.unit_to_si);
  }
  for (const auto& c : curves_) {
    if (!j.contains("curves") || !j["curves"].is_object() || !j["curves"].contains(c.name))
      throw failure{fmt::format("gave no curve \"{}\" in results.json", c.name)};
    const json& cj = j["curves"][c.name];
    try {
      const std::vector<double> cx = numbers(cj.value("x", json()), fmt::format("curve {}: x", c.name));
      const std::vector<double> cy = numbers(cj.value("y", json()), fmt::format("curve {}: y", c.name));
      if (cx.size() != cy.size() || cx.size() < 2)
        throw model_error(fmt::format("curve {}: x and y need the same number (>= 2) of values, got {} and {}", c.name,
                                      cx.size(), cy.size()));
      for (std::size_t k = 1; k < cx.size(); ++k)
        if (!(cx[k] > cx[k - 1])) throw model_error(fmt::format("curve {}: x must increase", c.name));
      if (cx.front() > c.x.front() || cx.back() < c.x.back())
        throw model_error(fmt::format("curve {}: x spans [{}, {}], short of the declared [{}, {}]", c.name,
                                      cx.front(), cx.back(), c.x.front(), c.x.back()));
      std::vector<double> y = interpolated(cx, cy, c.x);
      for (double& v : y) v *= c.unit_to_si;
      e.curves.push_back(std::move(y));
    } catch (const model_error& m) {
      throw failure{m.what()};
    } catch (const json::exception& m) {
      throw failure{fmt::format("curve {}: {}", c.name, m.what())};
    }
  }
  return e;
}

}  // namespace contactuq::model
