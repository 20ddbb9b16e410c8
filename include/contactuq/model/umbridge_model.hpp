#pragma once
// A model served by another program over the UM-Bridge HTTP protocol (protocol version 1.0,
// https://um-bridge-benchmarks.readthedocs.io), type "umbridge":
//   y = F(x), evaluated as  POST <url>/Evaluate  {"name": <name>, "input": [[x_1], ..., [x_n]],
//                                                 "config": {}}  ->  {"output": [[y_1], ...,
//                                                 [y_m]]}
// Each input and each output is a vector of size 1 on the wire, in the order [model.inputs] and
// [model.outputs] write them, in SI units (the units their declarations give the dimension of).
//
// The [model] table:
//   type = "umbridge"
//   url = "http://127.0.0.1:4242"          the server; http only
//   name = "<model name on the server>"
//   timeout = "<duration>"                 per evaluation, default "10 min"
//   [model.inputs]   name = "<quantity>" | <number> | { value = ..., low = ..., high = ... }
//                    (nominal value, whose units give the input's dimension; low/high: its
//                    valid range, unbounded otherwise)
//   [model.outputs]  name = "<unit>"  (e.g. "N", "1" for a ratio)
// The table is read without contacting the server (`contactuq check` works offline).
//
// A failed evaluation (no connection, a timeout, an HTTP error, an answer that is not the
// protocol's JSON, an {"error": ...} answer, outputs of the wrong count or size, a value that is
// not finite) throws model_error with the server's message: a failed case, never a crash.
// Each copy of the model holds its own HTTP client (a kept-alive connection), so thread_safe()
// is false and the engine evaluates one copy per thread.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::model {

struct umbridge_output {
  std::string name;
  units::dimension dim;
  std::string unit;  ///< the declared unit where it is an SI name (e.g. "N*m"), else ""
};

class umbridge_model {
 public:
  // Throws parameter_error for a url that is not http://host[:port], an empty name, no inputs or
  // outputs, or names that are empty or repeated.
  umbridge_model(std::string url, std::string model_name, std::vector<variable> inputs,
                 std::vector<umbridge_output> outputs, double timeout_s = 600.0);
  // Reads the [model] table above; errors at file, line and key.
  static umbridge_model from_study(const io::study_table& table);

  umbridge_model(const umbridge_model& other);  // a client of its own
  umbridge_model& operator=(const umbridge_model& other);
  umbridge_model(umbridge_model&&) noexcept;
  umbridge_model& operator=(umbridge_model&&) noexcept;
  ~umbridge_model();

  std::vector<variable> inputs() const { return inputs_; }
  std::vector<variable> outputs() const;
  bool thread_safe() const { return false; }  // one HTTP client per copy
  std::string name() const { return "umbridge"; }
  // One POST /Evaluate; throws model_error as above.
  evaluation evaluate(std::span<const double> x) const;

  const std::string& url() const noexcept { return url_; }
  const std::string& model_name() const noexcept { return model_name_; }

 private:
  struct client;  // the HTTP client, made on first use

  std::string url_;
  std::string model_name_;
  std::vector<variable> inputs_;
  std::vector<umbridge_output> outputs_;
  double timeout_s_;
  mutable std::unique_ptr<client> client_;
};

}  // namespace contactuq::model
