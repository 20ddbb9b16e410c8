#pragma once
#include "contactuq/mpi/world_runner.hpp"
#include "messages.hpp"

namespace contactuq::mpi::detail {

// A worker rank's side of one calibration study (world_runner::start): runs it alongside rank 0;
// returns true when rank 0 ended the job instead.
bool serve_fits(const study_message& m, const session& s);

}  // namespace contactuq::mpi::detail
