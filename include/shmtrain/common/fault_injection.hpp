#pragma once
// A test hook for the fault-injection tests: with SHMTRAIN_FAULT set in a run's environment,
// a worker sends itself a signal at a named point of its work, as if killed or stopped there
// from outside at exactly that moment.
//
//   SHMTRAIN_FAULT=POINT:HIT:SIGNAL[:RANK]
//     POINT   a name passed to fault_point (data, forward, backward, exchange, optimizer, log,
//             save.model, save.optimizer, save.commit, eval.forward, eval.gather, final.model)
//     HIT     the 1-based count of passes through POINT on which it fires
//     SIGNAL  kill (SIGKILL) or stop (SIGSTOP)
//     RANK    the worker that fires (default: any)
//
// Without the variable every call is one branch on a value read once. A malformed value is
// ignored with a line on stderr: it only ever comes from a test.
#include <string_view>

namespace shmtrain {

void fault_point(std::string_view point, int rank);

}  // namespace shmtrain
