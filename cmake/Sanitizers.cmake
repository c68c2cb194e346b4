# SHMTRAIN_SANITIZE=address|undefined|thread|address,undefined instruments every target, tests
# included (tools/sanitize.sh builds build-asan/ with address,undefined and build-tsan/ with
# thread). A report ends the process (-fno-sanitize-recover), so a test that trips one fails.

# Reports name file and line: line tables at least (-g1, a third faster to build than -g), unless
# the build type already asks for debug information.
function(shmtrain_sanitizer_debug_info)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  if(NOT " ${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${config}} " MATCHES " -g")
    add_compile_options(-g1)
  endif()
endfunction()

if(SHMTRAIN_SANITIZE)
  if(NOT SHMTRAIN_SANITIZE MATCHES "^(address|undefined|thread|address,undefined|undefined,address)$")
    message(FATAL_ERROR "SHMTRAIN_SANITIZE must be address, undefined, thread or address,undefined, "
                        "not '${SHMTRAIN_SANITIZE}'")
  endif()
  set(checks ${SHMTRAIN_SANITIZE})
  # A float converted to an integer it does not fit is undefined; gcc's "undefined" leaves it out.
  if(SHMTRAIN_SANITIZE MATCHES "undefined")
    string(APPEND checks ",float-cast-overflow")
  endif()
  add_compile_options(-fsanitize=${checks} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${checks})
  shmtrain_sanitizer_debug_info()
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
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  shmtrain_sanitizer_debug_info()
endif()
