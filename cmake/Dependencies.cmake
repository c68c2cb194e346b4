# Every dependency is a Debian package (tools/setup.sh installs them); none is downloaded.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(TBB REQUIRED)                              # oneTBB
# oneDNN (libdnnl-dev): bf16 and small fp32 matmul. Found by hand: Debian's dnnl-config.cmake
# also asks for the OpenCL development files of its GPU runtime, which shmtrain does not use.
find_path(DNNL_INCLUDE_DIR dnnl.hpp REQUIRED)
find_library(DNNL_LIBRARY dnnl REQUIRED)
add_library(shmtrain_dnnl INTERFACE IMPORTED)
target_include_directories(shmtrain_dnnl INTERFACE ${DNNL_INCLUDE_DIR})
target_link_libraries(shmtrain_dnnl INTERFACE ${DNNL_LIBRARY})
# Debian's oneDNN runs on OpenMP; shmtrain sets its per-thread count to 1 (tensor/onednn_matmul).
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
# tokenizer.json pipelines: regular expressions over code points (GPT-2's \\p{L}), SentencePiece files.
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-32)
pkg_check_modules(SENTENCEPIECE REQUIRED IMPORTED_TARGET sentencepiece)
# Debian's libopenblas-dev ships openblas.pc pointing at the pthread variant.
pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET openblas)
# Parquet page codecs (data/parquet): SNAPPY, ZSTD, GZIP.
find_package(Snappy CONFIG REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
# TensorBoard event files (report/): protoc generates the Event code; ISA-L computes TFRecord's CRC-32C.
find_package(Protobuf REQUIRED)
find_library(PROTOBUF_LITE_STATIC libprotobuf-lite.a REQUIRED)  # src/CMakeLists.txt says why static
pkg_check_modules(ISAL REQUIRED IMPORTED_TARGET libisal)

set(SHMTRAIN_HAVE_MPI OFF)
if(SHMTRAIN_WITH_MPI)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    set(SHMTRAIN_HAVE_MPI ON)
    message(STATUS "shmtrain: MPI found (${MPI_C_LIBRARIES}); the MPI bridge is built")
  else()
    message(STATUS "shmtrain: MPI not found; building without the MPI bridge")
  endif()
endif()

if(SHMTRAIN_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
