// contactuq._core: the library from Python. python/contactuq/api.py wraps it (dicts become study
// text there, so errors read exactly as the command line's). Models evaluate in parallel with the
// GIL released; failures are NaN plus a status, never an exception out of a batch.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "contactuq/engine/run_study.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/study/reliability_summary.hpp"
#include "contactuq/study/summary_report.hpp"
#include "contactuq/units/quantity.hpp"
#include "python_model.hpp"

namespace py = pybind11;
using namespace contactuq;

namespace {

model::model build_model(const std::string& study_text, const std::string& name) {
  const io::study_document doc = io::study_document::parse(study_text, name);
  return model::make_model(doc.root().table("model"));
}

py::list variables(const std::vector<model::variable>& vars) {
  py::list out;
  for (const auto& v : vars) {
    py::dict d;
    d["name"] = v.name;
    d["unit"] = v.unit;
    d["nominal"] = v.nominal;
    out.append(d);
  }
  return out;
}

py::list curves(const model::model& m) {
  py::list out;
  for (const auto& c : m.curves()) {
    py::dict d;
    d["name"] = c.name;
    d["unit"] = c.unit;
    d["abscissa_name"] = c.abscissa_name;
    d["abscissa_unit"] = units::si_unit(c.abscissa_dim);
    d["abscissa"] = py::array_t<double>(static_cast<py::ssize_t>(c.abscissa.size()), c.abscissa.data());
    out.append(d);
  }
  return out;
}

// Every row of `points` (n x inputs, SI, the model's input order) evaluated on `threads` threads
// (0: all cores). A row that fails gets NaN outputs, status 1 and its message; a valid row its
// note, if the model left one.
py::dict evaluate(const model::model& m, py::array_t<double, py::array::c_style | py::array::forcecast> points,
                  std::size_t threads) {
  if (points.ndim() != 2 || static_cast<std::size_t>(points.shape(1)) != m.inputs().size())
    throw std::invalid_argument("points must be an (n, " + std::to_string(m.inputs().size()) +
                                ") array: one column per model input, in the order of Model.inputs");
  const auto n = static_cast<std::size_t>(points.shape(0));
  const std::size_t d = m.inputs().size(), k = m.outputs().size();
  const double* x = points.data();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> outputs(n * k, nan);
  std::vector<std::int32_t> status(n, 0);
  std::vector<std::string> messages(n);
  std::vector<std::vector<double>> curve_values;
  for (const auto& c : m.curves()) curve_values.emplace_back(n * c.abscissa.size(), nan);
  {
    py::gil_scoped_release release;
    tbb::task_arena arena(threads > 0 ? static_cast<int>(threads) : tbb::task_arena::automatic);
    tbb::enumerable_thread_specific<std::optional<model::model>> clones;
    arena.execute([&] {
      // Chunks of a few rows each per thread, up to 256: large enough for a batch entry point
      // (a vectorized Python function is one call per chunk), small enough to balance slow rows.
      const auto workers = static_cast<std::size_t>(arena.max_concurrency());
      const std::size_t grain = std::clamp<std::size_t>(n / (4 * workers), 1, 256);
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, grain), [&](const tbb::blocked_range<std::size_t>& r) {
        // A model that is not thread safe is evaluated on one clone per thread.
        const model::model* use = &m;
        if (!m.thread_safe()) {
          auto& clone = clones.local();
          if (!clone) clone = m.clone();
          use = &*clone;
        }
        if (use->has_batch()) {  // the model's own batch entry point: the same values, faster
          const std::size_t rows = r.size(), first = r.begin();
          std::vector<std::string> errors(rows), notes(rows);
          model::batch b{rows, std::span<const double>(x + first * d, rows * d),
                         std::span<double>(outputs.data() + first * k, rows * k), {}, errors, notes};
          for (std::size_t c = 0; c < curve_values.size(); ++c) {
            const std::size_t p = m.curves()[c].abscissa.size();
            b.curves.emplace_back(curve_values[c].data() + first * p, rows * p);
          }
          use->evaluate_batch(b);
          for (std::size_t i = 0; i < rows; ++i) {
            status[first + i] = errors[i].empty() ? 0 : 1;
            messages[first + i] = errors[i].empty() ? std::move(notes[i]) : std::move(errors[i]);
            if (errors[i].empty()) continue;
            std::fill_n(outputs.begin() + static_cast<std::ptrdiff_t>((first + i) * k), k, nan);
            for (std::size_t c = 0; c < curve_values.size(); ++c) {
              const std::size_t p = m.curves()[c].abscissa.size();
              std::fill_n(curve_values[c].begin() + static_cast<std::ptrdiff_t>((first + i) * p), p, nan);
            }
          }
          return;
        }
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          try {
            const model::evaluation e = use->evaluate(std::span<const double>(x + i * d, d));
            std::copy(e.outputs.begin(), e.outputs.end(), outputs.begin() + static_cast<std::ptrdiff_t>(i * k));
            for (std::size_t c = 0; c < curve_values.size(); ++c)
              std::copy(e.curves[c].begin(), e.curves[c].end(),
                        curve_values[c].begin() + static_cast<std::ptrdiff_t>(i * e.curves[c].size()));
            messages[i] = e.note;
          } catch (const std::exception& error) {
            status[i] = 1;
            messages[i] = error.what();
          }
        }
      });
    });
  }
  py::dict result;
  result["outputs"] = py::array_t<double>({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(k)}, outputs.data());
  result["status"] = py::array_t<std::int32_t>(static_cast<py::ssize_t>(n), status.data());
  result["messages"] = messages;
  py::dict curve_arrays;
  for (std::size_t c = 0; c < curve_values.size(); ++c)
    curve_arrays[py::str(m.curves()[c].name)] = py::array_t<double>(
        {static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(m.curves()[c].abscissa.size())}, curve_values[c].data());
  result["curves"] = curve_arrays;
  return result;
}

// Runs a study given as text through the engine, like `contactuq run`. Ctrl-C (checked whenever
// progress is reported) stops it cleanly: exit code 130, resumable.
py::dict run(const std::string& study_text, const std::string& file_name, const std::string& output,
             std::size_t threads, bool force, bool resume, const py::object& progress, double time_limit) {
  const io::study_document doc = io::study_document::parse(study_text, file_name);
  engine::run_options o;
  o.output = output;
  o.threads = threads;
  o.force = force;
  o.resume = resume;
  o.time_limit = time_limit;
  o.report = nullptr;
  o.errors = nullptr;
  std::atomic<bool> stop = false;
  o.stop = &stop;
  std::optional<py::error_already_set> callback_error;
  o.progress = [&](std::size_t done, std::size_t total) {
    py::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) {
      callback_error.emplace();  // KeyboardInterrupt: stop, then raise it
      stop = true;
      return;
    }
    if (progress.is_none() || callback_error) return;
    try {
      progress(done, total);
    } catch (py::error_already_set& e) {
      callback_error.emplace(std::move(e));
      stop = true;
    }
  };
  engine::run_result r;
  {
    py::gil_scoped_release release;
    r = engine::run_study(doc, o);
  }
  if (callback_error) throw std::move(*callback_error);
  py::dict result;
  result["method"] = r.method_name;
  result["output"] = r.output.string();
  result["planned"] = r.planned;
  result["failed"] = r.failed;
  result["exit_code"] = r.exit_code;
  return result;
}

// `contactuq check`: the study read and planned as run would, nothing evaluated or written.
py::dict check(const std::string& study_text, const std::string& file_name, const std::string& output) {
  const io::study_document doc = io::study_document::parse(study_text, file_name);
  engine::run_options o;
  o.output = output;
  o.check_only = true;
  const engine::run_result r = engine::run_study(doc, o);
  py::dict result;
  result["method"] = r.method_name;
  result["model"] = r.model;
  result["planned"] = r.planned;
  result["output"] = r.output.string();
  return result;
}

// `contactuq summarize --json` of an ensemble or a reliability file, from the same library report
// with the same options: api.py reads the text into a dict, so Python gets the structure and the
// numbers the command prints (NaN as None, as JSON has it). A reliability summary uses only `si`.
std::string analyze(const std::string& path, bool si, std::size_t bootstrap, double confidence,
                    const std::vector<double>& quantiles, std::uint64_t seed) {
  study::summary_options o;
  o.si = si;
  o.bootstrap = bootstrap;
  o.confidence = confidence;
  o.probabilities = quantiles;
  o.seed = seed;
  py::gil_scoped_release release;
  if (io::file_format(path) == "contactuq-reliability") return study::to_json(study::summarize_reliability(path, si));
  return study::to_json(study::summarize(path, o));
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "contactuq's C++ library: registered models and the study engine (use the contactuq package)";
  // Bad study input is a ValueError with the command line's message (file:line: key ...).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const io::study_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("registered_models", [] { return model::registered_models(); });
  py::class_<model::model>(m, "Model")
      .def(py::init(&build_model), py::arg("study_text"), py::arg("name") = "<model>")
      .def_property_readonly("name", &model::model::name)
      .def_property_readonly("inputs", [](const model::model& mm) { return variables(mm.inputs()); })
      .def_property_readonly("outputs", [](const model::model& mm) { return variables(mm.outputs()); })
      .def_property_readonly("curves", &curves)
      .def("evaluate", &evaluate, py::arg("points"), py::arg("threads") = 0);
  m.def("analyze", &analyze, py::arg("path"), py::arg("si") = false, py::arg("bootstrap") = 1000,
        py::arg("confidence") = 0.95, py::arg("quantiles") = std::vector<double>{0.05, 0.5, 0.95}, py::arg("seed") = 1);
  m.def("run", &run, py::arg("study_text"), py::arg("file_name"), py::arg("output") = "", py::arg("threads") = 0,
        py::arg("force") = false, py::arg("resume") = false, py::arg("progress") = py::none(),
        py::arg("time_limit") = 0.0);
  using declared = std::tuple<std::string, std::string, double, double, double>;  // name, unit, nominal, low, high
  m.def(
      "register_model",
      [](const std::string& name, py::object function, const std::vector<declared>& inputs,
         const std::vector<declared>& outputs, bool vectorized, bool replace) {
        const auto convert = [](const std::vector<declared>& vs) {
          std::vector<python::declared_variable> out;
          for (const auto& [n, u, nominal, low, high] : vs) out.push_back({n, u, nominal, low, high});
          return out;
        };
        python::register_python_model(name, std::move(function), convert(inputs), convert(outputs), vectorized, replace);
      },
      py::arg("name"), py::arg("function"), py::arg("inputs"), py::arg("outputs"), py::arg("vectorized") = false,
      py::arg("replace") = false);
  // The registry outlives the interpreter: let go of the functions while Python can still do it.
  py::module_::import("atexit").attr("register")(py::cpp_function(&python::release_python_models));
  m.def("check", &check, py::arg("study_text"), py::arg("file_name"), py::arg("output") = "");
}
