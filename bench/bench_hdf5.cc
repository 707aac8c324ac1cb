// Parallel HDF5, one shared file per checkpoint holding one global dataset
// (1-D, bytes, contiguous, allocated at creation, never filled) of
// ranks*count*size elements. Rank r's objects are the hyperslabs
// [(r*count+i)*size, +size), one H5Dwrite per object (the IOR HDF5 layout).
// File access: the MPI-IO driver with collective metadata reads and writes
// (H5Pset_all_coll_metadata_ops, H5Pset_coll_metadata_write); transfers:
// H5FD_MPIO_COLLECTIVE (--collective=0 for independent). Durability:
// H5Fflush(H5F_SCOPE_GLOBAL), which calls MPI_File_sync, before H5Fclose.
#include <hdf5.h>

#include <cstring>

#include "common.h"

namespace {

#define BENCH_H5(expr)                                                  \
  do {                                                                 \
    if ((expr) < 0) bench::Die("HDF5 call failed: %s", #expr);          \
  } while (0)

class Hdf5 : public bench::System {
 public:
  Hdf5() : collective_(bench::Ctx().cfg.GetU64("collective", 1) != 0) {}
  const char* name() const override { return collective_ ? "hdf5" : "hdf5-ind"; }

  static std::string FilePath(const std::string& dir, int ckpt) {
    return dir + "/ckpt" + std::to_string(ckpt) + ".h5";
  }

  hid_t FileAccess() const {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    BENCH_H5(H5Pset_fapl_mpio(fapl, bench::Ctx().comm, MPI_INFO_NULL));
    BENCH_H5(H5Pset_all_coll_metadata_ops(fapl, true));
    BENCH_H5(H5Pset_coll_metadata_write(fapl, true));
    return fapl;
  }
  hid_t Transfer() const {
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    BENCH_H5(H5Pset_dxpl_mpio(dxpl, collective_ ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
    return dxpl;
  }
  hsize_t Offset(uint64_t i) const {
    const auto& c = bench::Ctx();
    return (static_cast<hsize_t>(c.rank) * c.cfg.count + i) * c.cfg.size;
  }

  void Checkpoint(const std::string& dir, int ckpt) override {
    const auto& c = bench::Ctx();
    std::string path = FilePath(dir, ckpt);
    hid_t fapl = FileAccess();
    hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    BENCH_H5(file);
    hsize_t total = static_cast<hsize_t>(c.nranks) * c.cfg.count * c.cfg.size;
    hid_t fspace = H5Screate_simple(1, &total, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    BENCH_H5(H5Pset_layout(dcpl, H5D_CONTIGUOUS));
    BENCH_H5(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY));
    BENCH_H5(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
    hid_t dset = H5Dcreate2(file, "data", H5T_NATIVE_UINT8, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    BENCH_H5(dset);
    hsize_t n = c.cfg.size;
    hid_t mspace = H5Screate_simple(1, &n, nullptr);
    hid_t dxpl = Transfer();
    for (uint64_t i = 0; i < c.cfg.count; ++i) {
      bench::Stamp(buf_.data(), c.cfg.size, c.rank, ckpt, i);
      hsize_t off = Offset(i);
      BENCH_H5(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &off, nullptr, &n, nullptr));
      BENCH_H5(H5Dwrite(dset, H5T_NATIVE_UINT8, mspace, fspace, dxpl, buf_.data()));
    }
    H5Pclose(dxpl);
    H5Sclose(mspace);
    H5Dclose(dset);
    H5Pclose(dcpl);
    H5Sclose(fspace);
    BENCH_H5(H5Fflush(file, H5F_SCOPE_GLOBAL));
    BENCH_H5(H5Fclose(file));
    H5Pclose(fapl);
  }

  uint64_t ReadSome(const std::string& dir, int ckpt, const std::vector<uint64_t>& ids) override {
    const auto& c = bench::Ctx();
    std::vector<char>& buf = rbuf_;  // allocated before the timed phase
    std::string path = FilePath(dir, ckpt);
    hid_t fapl = FileAccess();
    hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
    BENCH_H5(file);
    hid_t dset = H5Dopen2(file, "data", H5P_DEFAULT);
    BENCH_H5(dset);
    hid_t fspace = H5Dget_space(dset);
    hsize_t n = c.cfg.size;
    hid_t mspace = H5Screate_simple(1, &n, nullptr);
    hid_t dxpl = Transfer();
    uint64_t bad = 0;
    for (uint64_t i : ids) {
      hsize_t off = Offset(i);
      BENCH_H5(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &off, nullptr, &n, nullptr));
      BENCH_H5(H5Dread(dset, H5T_NATIVE_UINT8, mspace, fspace, dxpl, buf.data()));
      bad += !bench::CheckStamp(buf.data(), c.cfg.size, c.rank, ckpt, i);
    }
    H5Pclose(dxpl);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(dset);
    BENCH_H5(H5Fclose(file));
    H5Pclose(fapl);
    return bad;
  }

 private:
  bool collective_;
  // Filler made before the timed phase; stamped per object.
  std::vector<char> rbuf_ = std::vector<char>(bench::Ctx().cfg.size);
  std::vector<char> buf_ = bench::MakeFiller(bench::Ctx().cfg.size, bench::Ctx().rank);
};

}  // namespace

int main(int argc, char** argv) {
  return bench::RunMain(argc, argv, [] { return static_cast<bench::System*>(new Hdf5); });
}
