#pragma once
#include "messages.hpp"

namespace contactuq::mpi::detail {

// A worker rank's side of one optimisation study (world_runner::start); returns true when rank
// 0 ended the job instead.
bool serve_designs(const study_message& m);

}  // namespace contactuq::mpi::detail
