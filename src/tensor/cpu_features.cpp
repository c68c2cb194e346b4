#include "shmtrain/tensor/cpu_features.hpp"

#include <cpuid.h>

#include <cstdint>
#include <cstdlib>

#include "shmtrain/common/error.hpp"

namespace shmtrain::tensor {
namespace {

std::uint64_t read_xcr0() {
  std::uint32_t eax = 0;
  std::uint32_t edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<std::uint64_t>(edx) << 32) | eax;
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return f;
  const bool osxsave = (ecx >> 27) & 1;
  if (!osxsave) return f;
  const std::uint64_t xcr0 = read_xcr0();
  const bool os_avx = (xcr0 & 0x6) == 0x6;           // XMM and YMM state
  const bool os_avx512 = (xcr0 & 0xe6) == 0xe6;      // plus opmask, ZMM_Hi256, Hi16_ZMM
  const bool os_amx = (xcr0 & (3ull << 17)) == (3ull << 17);  // XTILECFG, XTILEDATA
  f.fma = os_avx && ((ecx >> 12) & 1);
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  f.avx2 = os_avx && ((ebx >> 5) & 1);
  f.avx512f = os_avx512 && ((ebx >> 16) & 1);
  f.avx512dq = os_avx512 && ((ebx >> 17) & 1);
  f.avx512bw = os_avx512 && ((ebx >> 30) & 1);
  f.avx512vl = os_avx512 && ((ebx >> 31) & 1);
  f.amx_bf16 = os_amx && ((edx >> 22) & 1);
  f.amx_tile = os_amx && ((edx >> 24) & 1);
  unsigned sub_eax = 0, sub_ebx = 0, sub_ecx = 0, sub_edx = 0;
  __cpuid_count(7, 1, sub_eax, sub_ebx, sub_ecx, sub_edx);
  f.avx512_bf16 = os_avx512 && ((sub_eax >> 5) & 1);
  return f;
}

CpuFeatures& active() {
  static CpuFeatures features = [] {
    const char* mask = std::getenv("SHMTRAIN_CPU_FEATURES");
    return masked_cpu_features(detect(), mask != nullptr ? mask : "");
  }();
  return features;
}

}  // namespace

Bf16Gemm CpuFeatures::bf16_gemm() const {
  if (!avx512_core()) return Bf16Gemm::kFallback;
  if (amx_tile && amx_bf16) return Bf16Gemm::kAmx;
  return avx512_bf16 ? Bf16Gemm::kAvx512Bf16 : Bf16Gemm::kFallback;
}

std::string CpuFeatures::summary() const {
  std::string s;
  auto add = [&s](bool have, const char* name) {
    if (!have) return;
    if (!s.empty()) s += ' ';
    s += name;
  };
  add(avx2, "avx2");
  add(fma, "fma");
  add(avx512_core(), "avx512");
  add(avx512_bf16, "avx512_bf16");
  add(amx_tile && amx_bf16, "amx_bf16");
  return s.empty() ? "sse" : s;
}

const CpuFeatures& cpu_features() { return active(); }

CpuFeatures masked_cpu_features(CpuFeatures features, std::string_view mask) {
  while (!mask.empty()) {
    const std::size_t comma = mask.find(',');
    const std::string_view item = mask.substr(0, comma);
    mask = comma == std::string_view::npos ? std::string_view() : mask.substr(comma + 1);
    if (item == "-avx512_bf16") {
      features.avx512_bf16 = false;
      features.amx_bf16 = false;
    } else if (item == "-amx_bf16") {
      features.amx_bf16 = false;
    } else if (item == "-avx512") {
      features.avx512f = features.avx512bw = features.avx512vl = features.avx512dq = false;
      features.avx512_bf16 = features.amx_bf16 = false;
    } else if (!item.empty()) {
      fail_input("SHMTRAIN_CPU_FEATURES: '{}' is not a feature it can remove: give a comma-separated list of "
                 "-avx512_bf16, -amx_bf16 and -avx512, or unset it",
                 item);
    }
  }
  return features;
}

CpuFeatures detected_cpu_features() { return detect(); }

void set_cpu_features(const CpuFeatures& features) { active() = features; }

}  // namespace shmtrain::tensor
