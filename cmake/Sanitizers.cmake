# SHMTRAIN_SANITIZE=address|undefined|thread instruments every target, tests included.
if(SHMTRAIN_SANITIZE)
  if(NOT SHMTRAIN_SANITIZE MATCHES "^(address|undefined|thread)$")
    message(FATAL_ERROR "SHMTRAIN_SANITIZE must be address, undefined or thread, not '${SHMTRAIN_SANITIZE}'")
  endif()
  add_compile_options(-fsanitize=${SHMTRAIN_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${SHMTRAIN_SANITIZE})
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
