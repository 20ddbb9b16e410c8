#pragma once
// Whether this process was started by an MPI launcher: header-only, so that a build without MPI
// can refuse to run as several copies of itself (each would write its own result file).

#include <cstdlib>
#include <initializer_list>

namespace contactuq::mpi {

// From the variables the launchers set (Open MPI, MPICH/Hydra, Slurm's PMI/PMIx); no MPI call.
inline bool launched() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

}  // namespace contactuq::mpi
