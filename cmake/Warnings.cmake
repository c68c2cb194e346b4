# Warnings for every shmtrain target; -Werror is left to CI and developers (SHMTRAIN_WERROR).
option(SHMTRAIN_WERROR "Treat warnings as errors" OFF)
add_library(shmtrain_warnings INTERFACE)
target_compile_options(shmtrain_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                       $<$<BOOL:${SHMTRAIN_WERROR}>:-Werror>)
