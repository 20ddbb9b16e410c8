#include "held_file_driver.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

namespace contactuq::io::hdf5::detail::held {

namespace {

struct held_file {
  H5FD_t pub;  // first: HDF5 passes a pointer to it
  int fd = -1;
  haddr_t eoa = 0;
  haddr_t eof = 0;
  held_writes* target = nullptr;
};

held_file* self(H5FD_t* f) { return reinterpret_cast<held_file*>(f); }
const held_file* self(const H5FD_t* f) { return reinterpret_cast<const held_file*>(f); }

H5FD_t* open(const char* name, unsigned /*flags*/, hid_t fapl, haddr_t /*maxaddr*/) {
  const auto* info = static_cast<const driver_info*>(H5Pget_driver_info(fapl));
  if (info == nullptr || info->target == nullptr) return nullptr;
  const int fd = ::open(name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return nullptr;
  }
  auto* f = new held_file{};
  f->fd = fd;
  f->eof = static_cast<haddr_t>(st.st_size);
  f->target = info->target;
  f->target->writes.clear();
  f->target->initial_size = f->target->final_size = static_cast<std::uint64_t>(st.st_size);
  return &f->pub;
}

herr_t close(H5FD_t* file) {
  auto* f = self(file);
  const int rc = ::close(f->fd);
  delete f;
  return rc == 0 ? 0 : -1;
}

int compare(const H5FD_t* a, const H5FD_t* b) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

herr_t query(const H5FD_t* /*file*/, unsigned long* flags) {
  if (flags != nullptr)
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA;
  return 0;
}

haddr_t get_eoa(const H5FD_t* file, H5FD_mem_t /*type*/) { return self(file)->eoa; }
herr_t set_eoa(H5FD_t* file, H5FD_mem_t /*type*/, haddr_t addr) {
  self(file)->eoa = addr;
  return 0;
}
haddr_t get_eof(const H5FD_t* file, H5FD_mem_t /*type*/) { return self(file)->eof; }

herr_t read(H5FD_t* file, H5FD_mem_t /*type*/, hid_t /*dxpl*/, haddr_t addr, size_t size, void* buffer) {
  const auto* f = self(file);
  auto* out = static_cast<unsigned char*>(buffer);
  // What the file holds (zeros past its end), then the session's writes over it, in order.
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(f->fd, out + done, size - done, static_cast<off_t>(addr + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) {
      std::memset(out + done, 0, size - done);
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  const std::uint64_t end = addr + size;
  for (const auto& w : f->target->writes) {
    const std::uint64_t w_end = w.offset + w.bytes.size();
    if (w_end <= addr || w.offset >= end) continue;
    const std::uint64_t from = std::max<std::uint64_t>(addr, w.offset), to = std::min(end, w_end);
    std::memcpy(out + (from - addr), w.bytes.data() + (from - w.offset), to - from);
  }
  return 0;
}

herr_t write(H5FD_t* file, H5FD_mem_t /*type*/, hid_t /*dxpl*/, haddr_t addr, size_t size, const void* buffer) {
  auto* f = self(file);
  const auto* in = static_cast<const std::byte*>(buffer);
  f->target->writes.push_back({addr, std::vector<std::byte>(in, in + size)});
  f->eof = std::max<haddr_t>(f->eof, addr + size);
  f->target->final_size = std::max<std::uint64_t>(f->target->final_size, addr + size);
  return 0;
}

herr_t truncate(H5FD_t* file, hid_t /*dxpl*/, hbool_t /*closing*/) {
  auto* f = self(file);
  // As the sec2 driver: the file ends where the allocated space ends.
  f->eof = f->eoa;
  f->target->final_size = f->eoa;
  return 0;
}

herr_t flush(H5FD_t* /*file*/, hid_t /*dxpl*/, hbool_t /*closing*/) { return 0; }

}  // namespace

hid_t driver() {
  static const hid_t id = [] {
    static H5FD_class_t cls{};
    cls.name = "contactuq_held";
    cls.maxaddr = (haddr_t{1} << 62) - 1;
    cls.fc_degree = H5F_CLOSE_WEAK;
    cls.fapl_size = sizeof(driver_info);
    cls.open = open;
    cls.close = close;
    cls.cmp = compare;
    cls.query = query;
    cls.get_eoa = get_eoa;
    cls.set_eoa = set_eoa;
    cls.get_eof = get_eof;
    cls.read = read;
    cls.write = write;
    cls.flush = flush;
    cls.truncate = truncate;
    const H5FD_mem_t map[H5FD_MEM_NTYPES] = H5FD_FLMAP_DICHOTOMY;  // as sec2
    std::copy(std::begin(map), std::end(map), std::begin(cls.fl_map));
    return H5FDregister(&cls);
  }();
  return id;
}

}  // namespace contactuq::io::hdf5::detail::held
