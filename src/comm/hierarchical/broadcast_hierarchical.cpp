// broadcast across hosts (terms in hierarchical_algorithms.hpp).
//
// Protocol (root R = h_R * L + l_R):
//   1. the column of local rank l_R broadcasts from host h_R to every host; the other columns
//      have nothing to do and go on to step 2;
//   2. every host broadcasts from its local rank l_R.
#include <fmt/format.h>

#include "shmtrain/comm/hierarchical/algorithms.hpp"

namespace shmtrain::comm {

void broadcast_hierarchical(HostGroups groups, std::span<float> data, int root) {
  if (root < 0 || root >= groups.size()) {
    throw Error(fmt::format("broadcast: root {} is not a rank of a group of {}", root, groups.size()));
  }
  const int L = groups.local.size();
  const int root_host = root / L;
  const int root_local = root % L;
  if (groups.cross.size() > 1 && groups.local.rank() == root_local) groups.cross.broadcast(data, root_host);
  groups.local.broadcast(data, root_local);
}

}  // namespace shmtrain::comm
