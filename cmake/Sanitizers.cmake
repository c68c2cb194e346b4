# SHMTRAIN_SANITIZE=address|undefined|thread|address,undefined instruments every target, tests
# included (tools/sanitize.sh builds build-asan/ with address,undefined and build-tsan/ with
# thread). A report ends the process (-fno-sanitize-recover), so a test that trips one fails.
if(SHMTRAIN_SANITIZE)
  if(NOT SHMTRAIN_SANITIZE MATCHES "^(address|undefined|thread|address,undefined|undefined,address)$")
    message(FATAL_ERROR "SHMTRAIN_SANITIZE must be address, undefined, thread or address,undefined, "
                        "not '${SHMTRAIN_SANITIZE}'")
  endif()
  add_compile_options(-fsanitize=${SHMTRAIN_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${SHMTRAIN_SANITIZE})
  # GCC's -Wmaybe-uninitialized misfires on instrumented code (libstdc++'s <regex> under
  # -fsanitize=address at -O1): the sanitizers find real uses of uninitialised memory at run time.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()

# SHMTRAIN_FUZZ: the library under test carries libFuzzer's coverage hooks and ASan + UBSan;
# the harnesses in fuzz/ add the fuzzer's main.
if(SHMTRAIN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SHMTRAIN_FUZZ needs clang (CXX=clang++): libFuzzer is part of clang")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
endif()
