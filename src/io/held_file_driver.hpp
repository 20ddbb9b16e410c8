#pragma once
// A virtual file driver that reads the file through a read-only descriptor and keeps the
// session's writes in a held_writes (file_options::hold_writes); reads see those writes.

#include <hdf5.h>

#include "contactuq/io/hdf5.hpp"

namespace contactuq::io::hdf5::detail::held {

struct driver_info {
  held_writes* target = nullptr;
};

// The driver's id, registered with HDF5 on the first call; negative if registering failed.
hid_t driver();

}  // namespace contactuq::io::hdf5::detail::held
