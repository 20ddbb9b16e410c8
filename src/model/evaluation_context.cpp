#include "contactuq/model/evaluation_context.hpp"

#include <utility>

namespace contactuq::model {

namespace {
thread_local std::filesystem::path current_output;
thread_local evaluation_context current_context;
}  // namespace

const std::filesystem::path& study_output() noexcept { return current_output; }

study_output_scope::study_output_scope(const std::filesystem::path& output) : previous_(std::move(current_output)) {
  std::error_code ec;
  current_output = output.empty() ? output : std::filesystem::absolute(output, ec).lexically_normal();
}

study_output_scope::~study_output_scope() { current_output = std::move(previous_); }

const evaluation_context& current_evaluation() noexcept { return current_context; }

evaluation_scope::evaluation_scope(const evaluation_context& context) noexcept : previous_(current_context) {
  current_context = context;
}

evaluation_scope::~evaluation_scope() { current_context = previous_; }

}  // namespace contactuq::model
