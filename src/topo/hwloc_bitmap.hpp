#pragma once
// An owned hwloc bitmap (cpu or node set), for the topology reader and the binding.
#include <hwloc.h>

#include <memory>

#include "shmtrain/common/error.hpp"

namespace shmtrain::topo {

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* bitmap) const { hwloc_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

// An empty bitmap; throws SystemError when hwloc cannot allocate one.
inline Bitmap make_bitmap() {
  Bitmap bitmap(hwloc_bitmap_alloc());
  if (!bitmap) throw_errno("hwloc_bitmap_alloc");
  return bitmap;
}

}  // namespace shmtrain::topo
