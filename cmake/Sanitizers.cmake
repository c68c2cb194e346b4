# SHMTRAIN_SANITIZE=address|undefined|thread instruments every target, tests included.
if(SHMTRAIN_SANITIZE)
  if(NOT SHMTRAIN_SANITIZE MATCHES "^(address|undefined|thread)$")
    message(FATAL_ERROR "SHMTRAIN_SANITIZE must be address, undefined or thread, not '${SHMTRAIN_SANITIZE}'")
  endif()
  add_compile_options(-fsanitize=${SHMTRAIN_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${SHMTRAIN_SANITIZE})
endif()
