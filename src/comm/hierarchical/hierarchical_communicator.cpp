#include "shmtrain/comm/hierarchical/hierarchical_communicator.hpp"

namespace shmtrain::comm {

void HierarchicalCommunicator::barrier() {
  groups_.local.barrier();
  if (groups_.cross.size() > 1 && groups_.local.rank() == 0) groups_.cross.barrier();
  groups_.local.barrier();
}

}  // namespace shmtrain::comm
