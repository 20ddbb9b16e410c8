#include "contactuq/model/umbridge_model.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "contactuq/error.hpp"
#include "contactuq/model/declared_inputs.hpp"

namespace contactuq::model {

namespace u = units;
using json = nlohmann::json;

namespace {

// http(s)://host[:port], an optional trailing slash removed; "" where the text is not one.
std::string normalized_url(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  for (const std::string_view scheme : {"http://", "https://"})
    if (url.starts_with(scheme)) {
      const std::string_view rest = std::string_view(url).substr(scheme.size());
      if (!rest.empty() && rest.find_first_of("/?# ") == std::string_view::npos) return url;
    }
  return {};
}

umbridge_output read_output(const io::study_table& outputs, const std::string& name) {
  const std::string text = outputs.string(name);
  u::unit unit;
  try {
    unit = u::parse_unit(text);
  } catch (const std::invalid_argument& e) {
    outputs.fail(name, e.what());
  }
  if (unit.to_si != 1.0)
    outputs.fail(
        name,
        fmt::format("\"{}\" is not an SI unit: the protocol carries SI values; declare \"{}\"",
                    text, u::si_unit(unit.dim).empty() ? "1" : u::si_unit(unit.dim)));
  return {name, unit.dim, text == "1" ? std::string() : text};
}

// httplib 0.11 writes with send() without MSG_NOSIGNAL, so a server that closes the connection
// would kill this process with SIGPIPE. SIGPIPE is blocked on this thread for one request, and
// one that the request raised is taken back before it is unblocked; the write fails with EPIPE,
// a failed evaluation.
class sigpipe_blocked {
 public:
  sigpipe_blocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~sigpipe_blocked() {
    if (sigismember(&old_, SIGPIPE)) return;  // blocked by the caller: left as it was
    const timespec now{0, 0};
    while (sigtimedwait(&pipe_, nullptr, &now) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  sigpipe_blocked(const sigpipe_blocked&) = delete;
  sigpipe_blocked& operator=(const sigpipe_blocked&) = delete;

 private:
  sigset_t pipe_, old_;
};

}  // namespace

struct umbridge_model::client {
  httplib::Client http;

  client(const std::string& url, double timeout_s) : http(url) {
    const auto timeout = std::chrono::duration<double>(timeout_s);
    http.set_keep_alive(true);
    http.set_tcp_nodelay(
        true);  // a small request is sent at once, not after the server's delayed ACK
    http.set_connection_timeout(std::chrono::duration_cast<std::chrono::microseconds>(
        std::min(timeout, std::chrono::duration<double>(30.0))));
    http.set_read_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
    http.set_write_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
  }
};

umbridge_model::umbridge_model(std::string url, std::string model_name,
                               std::vector<variable> inputs, std::vector<umbridge_output> outputs,
                               double timeout_s)
    : url_(normalized_url(url)),
      model_name_(std::move(model_name)),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      timeout_s_(timeout_s) {
  if (url_.empty())
    throw parameter_error(
        "url", fmt::format("url = \"{}\": expected http://host:port (or https://)", url));
  if (model_name_.empty()) throw parameter_error("name", "the model's name on the server is empty");
  if (inputs_.empty())
    throw parameter_error("inputs", "a UM-Bridge model needs at least one input");
  if (outputs_.empty())
    throw parameter_error("outputs", "a UM-Bridge model needs at least one output");
  if (!(timeout_s_ > 0.0)) throw parameter_error("timeout", "the timeout must be > 0 s");
  std::set<std::string> seen;
  for (const variable& v : inputs_)
    if (v.name.empty() || !seen.insert(v.name).second)
      throw parameter_error(v.name,
                            fmt::format("input name \"{}\" is empty or used twice", v.name));
  for (const umbridge_output& o : outputs_)
    if (o.name.empty() || !seen.insert(o.name).second)
      throw parameter_error(
          o.name, fmt::format("output name \"{}\" is empty or used twice (inputs and outputs "
                              "share names)",
                              o.name));
}

umbridge_model::umbridge_model(const umbridge_model& other)
    : url_(other.url_),
      model_name_(other.model_name_),
      inputs_(other.inputs_),
      outputs_(other.outputs_),
      timeout_s_(other.timeout_s_) {}

umbridge_model& umbridge_model::operator=(const umbridge_model& other) {
  if (this != &other) *this = umbridge_model(other);
  return *this;
}

umbridge_model::umbridge_model(umbridge_model&&) noexcept = default;
umbridge_model& umbridge_model::operator=(umbridge_model&&) noexcept = default;
umbridge_model::~umbridge_model() = default;

std::vector<variable> umbridge_model::outputs() const {
  std::vector<variable> v;
  for (const umbridge_output& o : outputs_) v.push_back({o.name, o.dim, std::nan(""), {}, o.unit});
  return v;
}

evaluation umbridge_model::evaluate(std::span<const double> x) const {
  if (x.size() != inputs_.size())
    throw std::invalid_argument(
        fmt::format("umbridge model: {} inputs, got {}", inputs_.size(), x.size()));
  const auto fail = [&](const std::string& what) -> model_error {
    return model_error(fmt::format("UM-Bridge model \"{}\" at {}: {}", model_name_, url_, what));
  };
  json input = json::array();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]))
      throw fail(fmt::format("input {} = {} is not finite", inputs_[i].name, x[i]));
    input.push_back(json::array({x[i]}));
  }
  const json request = {
      {"name", model_name_}, {"input", std::move(input)}, {"config", json::object()}};
  if (!client_) client_ = std::make_unique<client>(url_, timeout_s_);
  const httplib::Result res = [&] {
    const sigpipe_blocked guard;
    return client_->http.Post("/Evaluate", request.dump(), "application/json");
  }();
  if (!res) {
    client_.reset();  // a fresh connection for the next evaluation
    throw fail(fmt::format("POST /Evaluate failed: {}", httplib::to_string(res.error())));
  }
  json answer;
  try {
    answer = json::parse(res->body);
  } catch (const json::exception&) {
    throw fail(fmt::format("HTTP {}: the answer is not JSON: \"{}\"", res->status,
                           res->body.substr(0, 200)));
  }
  if (answer.is_object() && answer.contains("error")) {
    const json& e = answer["error"];
    const auto text = [&](const char* key) {
      return e.is_object() && e.contains(key) && e[key].is_string() ? e[key].get<std::string>()
                                                                    : std::string("?");
    };
    throw fail(fmt::format("{}: {}", text("type"), text("message")));
  }
  if (res->status != 200) throw fail(fmt::format("HTTP {}", res->status));
  if (!answer.is_object() || !answer.contains("output") || !answer["output"].is_array())
    throw fail("the answer has no \"output\" array");
  const json& out = answer["output"];
  if (out.size() != outputs_.size())
    throw fail(fmt::format("{} outputs answered, {} declared", out.size(), outputs_.size()));
  evaluation e;
  for (std::size_t j = 0; j < out.size(); ++j) {
    if (!out[j].is_array() || out[j].size() != 1 || !out[j][0].is_number())
      throw fail(fmt::format("output {} ({}) is not a vector of one number: {}", j,
                             outputs_[j].name, out[j].dump().substr(0, 100)));
    const double y = out[j][0].get<double>();
    if (!std::isfinite(y))
      throw fail(fmt::format("output {} = {} is not finite", outputs_[j].name, y));
    e.outputs.push_back(y);
  }
  return e;
}

umbridge_model umbridge_model::from_study(const io::study_table& t) {
  t.allow_only({"type", "url", "name", "timeout", "inputs", "outputs"});
  if (!t.has("inputs"))
    t.fail("missing [model.inputs]: name = \"<nominal value with units>\" per input");
  if (!t.has("outputs"))
    t.fail("missing [model.outputs]: name = \"<SI unit>\" per output, e.g. g = \"N\"");
  const io::study_table in_table = t.table("inputs");
  const io::study_table out_table = t.table("outputs");
  std::vector<variable> inputs;
  for (const declared_input& d : read_declared_inputs(in_table)) inputs.push_back({d.name, d.dim, d.nominal, d.valid});
  std::vector<umbridge_output> outputs;
  for (const std::string& name : keys_as_written(out_table)) {
    if (in_table.has(name))
      out_table.fail(name, "is an input's name too; inputs and outputs need names of their own");
    outputs.push_back(read_output(out_table, name));
  }
  if (inputs.empty()) in_table.fail("no inputs: name = \"<nominal value with units>\" per input");
  if (outputs.empty()) out_table.fail("no outputs: name = \"<SI unit>\" per output");
  const double timeout = t.quantity_or("timeout", u::duration, 600.0);
  try {
    return umbridge_model(t.string("url"), t.string("name"), std::move(inputs), std::move(outputs),
                          timeout);
  } catch (const parameter_error& e) {
    t.fail(e);
  }
}

}  // namespace contactuq::model
