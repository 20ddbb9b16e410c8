// `contactuq serve STUDY`: the study's model as a UM-Bridge server (protocol 1.0: GET /Info,
// POST /ModelInfo, /InputSizes, /OutputSizes, /Evaluate), so that MUQ, QMCPy, UQpy, PyMC and
// the umbridge clients can call it (docs/umbridge.md).
//
// Inputs: the model inputs the study varies (every [parameters.X] whose role is not fixed), in
// the model's order, or every model input with --all-inputs (also where the study varies none);
// the others keep the study's values. Outputs: each scalar output, then each curve as one vector
// of its points. Every input and output is a vector; scalars have size 1. Values are SI.
//
// Safety: binds 127.0.0.1 unless --host says otherwise (with a warning when that is not a
// loopback address); refuses a body over --max-request-bytes; evaluates at most --concurrency
// requests at once (the others wait); checks the input count, sizes, finiteness and each
// input's valid range before evaluating; answers every bad request with the protocol's error
// JSON {"error": {"type", "message"}} and never lets an exception out of a handler.
#include <fmt/format.h>
#include <httplib.h>
#include <pthread.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "contactuq/error.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/variables.hpp"

namespace contactuq::cli {

namespace {

using json = nlohmann::json;

// An answer: HTTP status and body.
struct reply {
  int status = 200;
  json body;
};

reply error_reply(int status, std::string_view type, const std::string& message) {
  return {status, {{"error", {{"type", type}, {"message", message}}}}};
}

// A request that the protocol answers with an error; thrown inside a handler, caught at its edge.
struct request_error {
  reply answer;
};

[[noreturn]] void refuse(std::string_view type, const std::string& message, int status = 400) {
  throw request_error{error_reply(status, type, message)};
}

// Model copies for concurrent evaluations: one per slot (a model that is not thread safe is
// cloned), handed out one request at a time; a request waits while every slot is busy.
class model_pool {
 public:
  model_pool(const model::model& m, std::size_t slots) {
    for (std::size_t i = 0; i < slots; ++i) free_.push_back(m.thread_safe() ? m : m.clone());
  }
  model::evaluation evaluate(std::span<const double> x) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !free_.empty(); });
    model::model m = std::move(free_.back());
    free_.pop_back();
    lock.unlock();
    struct give_back {
      model_pool& pool;
      model::model& m;
      ~give_back() {
        {
          std::lock_guard l(pool.mutex_);
          pool.free_.push_back(std::move(m));
        }
        pool.ready_.notify_one();
      }
    } returned{*this, m};
    return m.evaluate(x);
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<model::model> free_;
};

struct serve_options {
  std::string study;
  std::string host = "127.0.0.1";
  int port = 4242;
  std::string name;
  std::size_t concurrency = std::max(1u, std::thread::hardware_concurrency());
  std::size_t max_request_bytes = 1 << 20;
  bool all_inputs = false;
};

// The study's model as the protocol sees it.
class served_model {
 public:
  served_model(const serve_options& o, const io::study_document& doc);

  const std::string& name() const noexcept { return name_; }
  std::string describe() const;

  reply info() const { return {200, {{"protocolVersion", 1.0}, {"models", json::array({name_})}}}; }
  reply model_info(const std::string& body) const;
  reply input_sizes(const std::string& body) const;
  reply output_sizes(const std::string& body) const;
  reply evaluate(const std::string& body);

 private:
  json parse_request(const std::string& body) const;  // checks the name and config
  std::vector<double> point(const json& request) const;

  std::string name_;
  model::model model_;
  std::vector<double> base_;         ///< every model input at the study's values [SI]
  std::vector<std::size_t> served_;  ///< the model inputs a request sets, in order
  std::vector<std::size_t> out_sizes_;
  std::unique_ptr<model_pool> pool_;
};

served_model::served_model(const serve_options& o, const io::study_document& doc)
    : model_(model::make_model(doc.root().table("model"))) {
  const io::study_table root = doc.root();
  using study::variable_role;
  const study::accepted_roles roles{
      "a served study",
      {variable_role::fixed, variable_role::design, variable_role::aleatoric,
       variable_role::epistemic, variable_role::calibrated}};
  const study::variables vars = study::read_variables(root, model_, roles);
  for (const study::epistemic_parameter& p : vars.epistemic)
    if (p.model_key || p.case_table)
      throw std::invalid_argument(fmt::format(
          "{}: [parameters.{}] chooses {}; a server serves one model: fix it in the study", o.study,
          p.name, p.model_key ? "a [model] key" : "cases"));
  base_ = vars.values();
  for (std::size_t i = 0; i < vars.inputs.size(); ++i)
    if (o.all_inputs || vars.inputs[i].role != variable_role::fixed) served_.push_back(i);
  if (served_.empty())
    for (std::size_t i = 0; i < vars.inputs.size(); ++i) served_.push_back(i);
  out_sizes_.assign(model_.outputs().size(), 1);
  for (const model::curve_output& c : model_.curves()) out_sizes_.push_back(c.abscissa.size());
  name_ = o.name.empty() ? model_.name() : o.name;
  pool_ = std::make_unique<model_pool>(model_, o.concurrency);
}

std::string served_model::describe() const {
  std::string in, out;
  for (std::size_t i : served_) {
    const model::variable& v = model_.inputs()[i];
    in += fmt::format("{}{} [{}]", in.empty() ? "" : ", ", v.name, v.unit.empty() ? "1" : v.unit);
  }
  for (const model::variable& v : model_.outputs())
    out += fmt::format("{}{} [{}]", out.empty() ? "" : ", ", v.name, v.unit.empty() ? "1" : v.unit);
  for (const model::curve_output& c : model_.curves())
    out += fmt::format("{}{} [{}] ({} points)", out.empty() ? "" : ", ", c.name,
                       c.unit.empty() ? "1" : c.unit, c.abscissa.size());
  return fmt::format("inputs (SI): {}\noutputs (SI): {}", in, out);
}

json served_model::parse_request(const std::string& body) const {
  json request;
  try {
    request = json::parse(body);
  } catch (const json::exception& e) {
    refuse("InvalidInput", fmt::format("the request is not JSON: {}", e.what()));
  }
  if (!request.is_object()) refuse("InvalidInput", "the request is not a JSON object");
  const auto name = request.find("name");
  if (name == request.end() || !name->is_string())
    refuse("InvalidInput", "the request has no \"name\" string");
  if (name->get<std::string>() != name_)
    refuse("ModelNotFound", fmt::format("model \"{}\" not found; this server has \"{}\"",
                                        name->get<std::string>().substr(0, 200), name_));
  const auto config = request.find("config");
  if (config != request.end() && !config->is_object() && !config->is_null())
    refuse("InvalidInput", "\"config\" is not a JSON object");
  return request;
}

reply served_model::model_info(const std::string& body) const {
  parse_request(body);
  return {200,
          {{"support",
            {{"Evaluate", true},
             {"Gradient", false},
             {"ApplyJacobian", false},
             {"ApplyHessian", false}}}}};
}

reply served_model::input_sizes(const std::string& body) const {
  parse_request(body);
  return {200, {{"inputSizes", std::vector<std::size_t>(served_.size(), 1)}}};
}

reply served_model::output_sizes(const std::string& body) const {
  parse_request(body);
  return {200, {{"outputSizes", out_sizes_}}};
}

// The model's inputs at the request's point: sizes, finiteness and valid ranges checked.
std::vector<double> served_model::point(const json& request) const {
  const auto input = request.find("input");
  if (input == request.end() || !input->is_array())
    refuse("InvalidInput", "the request has no \"input\" array of vectors");
  if (input->size() != served_.size())
    refuse("InvalidInput", fmt::format("{} input vectors given, the model takes {}", input->size(),
                                       served_.size()));
  std::vector<double> x = base_;
  for (std::size_t k = 0; k < served_.size(); ++k) {
    const model::variable& v = model_.inputs()[served_[k]];
    const json& given = (*input)[k];
    if (!given.is_array() || given.size() != 1)
      refuse("InvalidInput", fmt::format("input {} ({}) must be a vector of size 1", k, v.name));
    if (!given[0].is_number())
      refuse("InvalidInput", fmt::format("input {} ({}) is not a number", k, v.name));
    const double value = given[0].get<double>();
    if (!std::isfinite(value))
      refuse("InvalidInput", fmt::format("input {} ({}) = {} is not finite", k, v.name, value));
    if (!v.valid.contains(value))
      refuse("InvalidInput", fmt::format("input {} ({}) = {} {} is outside its valid range {}", k,
                                         v.name, format_value(value), v.unit, v.valid.text(v.dim)));
    x[served_[k]] = value;
  }
  return x;
}

reply served_model::evaluate(const std::string& body) {
  const std::vector<double> x = point(parse_request(body));
  model::evaluation e;
  try {
    e = pool_->evaluate(x);
  } catch (const std::invalid_argument& ex) {  // parameter_error: the model refuses the point
    refuse("InvalidInput", ex.what());
  } catch (const std::exception& ex) {  // model_error: no solution there
    refuse("ModelError", ex.what(), 500);
  }
  json output = json::array();
  for (std::size_t j = 0; j < e.outputs.size(); ++j) {
    if (!std::isfinite(e.outputs[j]))
      refuse("InvalidOutput", fmt::format("output {} is not finite", model_.outputs()[j].name),
             500);
    output.push_back(json::array({e.outputs[j]}));
  }
  for (std::size_t c = 0; c < e.curves.size(); ++c) {
    if (!std::all_of(e.curves[c].begin(), e.curves[c].end(),
                     [](double y) { return std::isfinite(y); }))
      refuse("InvalidOutput",
             fmt::format("curve {} has a value that is not finite", model_.curves()[c].name), 500);
    output.push_back(e.curves[c]);
  }
  return {200, {{"output", std::move(output)}}};
}

bool loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

// Runs `handle` and writes its reply; a refused request becomes the protocol's error JSON and
// nothing else escapes.
template <class F>
void answer(httplib::Response& res, F&& handle) {
  reply r;
  try {
    r = handle();
  } catch (const request_error& e) {
    r = e.answer;
  } catch (const std::exception& e) {
    r = error_reply(500, "InternalError", e.what());
  } catch (...) {
    r = error_reply(500, "InternalError", "unknown error");
  }
  res.status = r.status;
  res.set_content(r.body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void route(httplib::Server& server, served_model& served, const serve_options& o) {
  server.set_payload_max_length(o.max_request_bytes);
  // Up to 100 requests per kept-alive connection (httplib: 5), so a client rarely reconnects.
  server.set_keep_alive_max_count(100);
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, with which a second server on the same
  // port starts silently and takes half the requests.
  server.set_socket_options([](socket_t sock) {
    const int on = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  });
  server.set_tcp_nodelay(true);  // else a small answer waits for the client's delayed ACK (~40 ms)
  // Evaluations wait for a model slot; a few more threads keep /Info answering meanwhile.
  const std::size_t threads = o.concurrency + 4;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.Get("/Info", [&](const httplib::Request&, httplib::Response& res) {
    answer(res, [&] { return served.info(); });
  });
  server.Post("/ModelInfo", [&](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return served.model_info(req.body); });
  });
  server.Post("/InputSizes", [&](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return served.input_sizes(req.body); });
  });
  server.Post("/OutputSizes", [&](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return served.output_sizes(req.body); });
  });
  server.Post("/Evaluate", [&](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return served.evaluate(req.body); });
  });
  for (const char* feature : {"/Gradient", "/ApplyJacobian", "/ApplyHessian"})
    server.Post(feature, [feature](const httplib::Request&, httplib::Response& res) {
      answer(res, [&]() -> reply {
        refuse("UnsupportedFeature",
               fmt::format("{} is not supported; only Evaluate", feature + 1));
      });
    });
  // What httplib answers itself (an unknown path, a body over the limit, a bad request line).
  // httplib calls it for every status >= 400, so an answer a handler wrote is left as it is.
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [&o](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const std::string message =
            res.status == 413 ? fmt::format("the request is over {} bytes", o.max_request_bytes)
            : res.status == 404
                ? fmt::format("no such endpoint: {} {}", req.method, req.path.substr(0, 200))
                : fmt::format("HTTP {}", res.status);
        res.set_content(error_reply(res.status, "InvalidInput", message).body.dump(),
                        "application/json");
        return httplib::Server::HandlerResponse::Handled;
      }));
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        res.status = 500;
        res.set_content(error_reply(500, "InternalError", "internal error").body.dump(),
                        "application/json");
      });
}

int serve(const serve_options& o) {
  served_model served(o, io::study_document::load(o.study));
  httplib::Server server;
  route(server, served, o);
  // SIGINT and SIGTERM stop the server from a thread of their own (blocked here before any
  // thread starts, so every thread inherits the mask).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // httplib 0.11 writes with send() without MSG_NOSIGNAL: a client that hangs up before its
  // answer would otherwise kill the server; the write fails with EPIPE instead.
  std::signal(SIGPIPE, SIG_IGN);
  const int port = o.port == 0 ? server.bind_to_any_port(o.host)
                               : (server.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port < 0)
    throw std::runtime_error(fmt::format("serve: cannot listen on {}:{}", o.host, o.port));
  if (!loopback(o.host))
    fmt::print(
        stderr,
        "contactuq: warning: serving on {}, not a loopback address: anyone who can reach this "
        "machine can evaluate the model\n",
        o.host);
  fmt::print("contactuq serve: model \"{}\" at http://{}:{}\n{}\n", served.name(),
             o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host, port,
             served.describe());
  std::fflush(stdout);
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    server.stop();
  });
  server.listen_after_bind();
  if (server.is_running()) server.stop();
  pthread_kill(stopper.native_handle(), SIGTERM);  // a no-op once it has stopped the server
  stopper.join();
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "serve",
      "Serve a study's model over the UM-Bridge HTTP protocol (docs/umbridge.md) until Ctrl-C");
  auto o = std::make_shared<serve_options>();
  sub->add_option("study", o->study, "Study file (TOML) whose model to serve")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--port", o->port, "TCP port (0: any free port, printed)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  sub->add_option("--host", o->host,
                  "Address to bind; not loopback: anyone who can reach it may evaluate")
      ->capture_default_str();
  sub->add_option("--name", o->name, "Model name on the server (default: the study's model type)");
  sub->add_option("--concurrency", o->concurrency, "Evaluations at once; more requests wait")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  sub->add_option("--max-request-bytes", o->max_request_bytes, "Largest request body accepted")
      ->capture_default_str()
      ->check(CLI::Range(64, 1 << 30));
  sub->add_flag("--all-inputs", o->all_inputs,
                "Serve every model input, not only those the study varies");
  sub->callback([o, &exit_code] { exit_code = serve(*o); });
}

}  // namespace contactuq::cli
