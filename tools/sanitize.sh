#!/usr/bin/env bash
# Builds shmtrain with sanitizers and runs the tests under them (CI runs both after tools/test.sh).
#   tools/sanitize.sh address [ctest arguments...]   ASan + UBSan (gcc) in build-asan/: the test suite
#   tools/sanitize.sh thread  [ctest arguments...]   TSan (gcc) in build-tsan/: the comm and launch tests
# A sanitizer report ends the process that made it, so the test fails. Extra arguments go to
# ctest (-R '^io\.' runs one module). Reports inside dependencies are suppressed by the files in
# tools/sanitizers/, each line with its reason; everything else is a bug to fix.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
shift || true
case "$mode" in
  address)
    dir=build-asan
    sanitize=address,undefined
    targets=(all)
    # The unit tests only, to keep CI's four stages within its time on 2 cores (the ASan build
    # of the whole tree takes ~24 minutes there): tests/e2e/, which drives the binary through
    # the same code, is not built; the plain suite runs it. Left out too: the speed comparison
    # with membw.c, which is not instrumented.
    options=(-DSHMTRAIN_BUILD_E2E_TESTS=OFF)
    filters=(-E '^bench\.MemoryBandwidth\.MemoryLevelIsAtLeastWhatMembwMeasures$')
    ;;
  thread)
    dir=build-tsan
    sanitize=thread
    targets=(shmtrain shmtrain_comm_tests shmtrain_launch_tests)
    options=()
    # The host layouts of the hierarchical and MPI tests under TSan: 2 hosts of 2 and of 3 ranks,
    # where both levels run threads beside each other. The others (one host, one rank per host,
    # 3 hosts of 2) exercise the same threads in other shapes at 2-4x TSan's cost each; the plain
    # suite runs every layout.
    filters=(-R '^(comm|launch)\.' -E '^comm\.Layouts/.*/H(1xL[0-9]|[0-9]xL1|3xL2)( |$)')
    ;;
  *)
    echo "usage: tools/sanitize.sh address|thread [ctest arguments...]" >&2
    exit 2
    ;;
esac
tools/setup.sh

# -O1 -g1: the instrumented tests run fast enough, the reports name file and line. NDEBUG is
# off, so assertions run too. No benchmarks: speed under a sanitizer means nothing.
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DSHMTRAIN_SANITIZE="$sanitize" -DSHMTRAIN_WERROR=ON \
  -DSHMTRAIN_BUILD_BENCH=OFF "${options[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)" --target "${targets[@]}"

supp=$PWD/tools/sanitizers
asan="halt_on_error=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1"
asan+=":suppressions=$supp/asan.supp"
export ASAN_OPTIONS="$asan:detect_leaks=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp"
# Open MPI leaks by design (its components' state lives until exit) from components it has
# already unloaded, so no suppression can name them: the processes mpirun starts (and only
# those) run without the leak check. Every other process is checked, workers forked by the
# launcher included.
export OMPI_MCA_mca_base_env_list="ASAN_OPTIONS=$asan:detect_leaks=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$supp/ubsan.supp"
# atexit_sleep_ms=0: TSan's default second of sleep at exit would read as a stalled worker to
# the launcher tests' 1-second stall timeouts.
export TSAN_OPTIONS="halt_on_error=1:atexit_sleep_ms=0:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
cd "$dir"
ctest --output-on-failure -j "$(nproc)" --timeout 900 "${filters[@]}" "$@"
