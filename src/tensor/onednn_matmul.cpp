#include "onednn_matmul.hpp"

#include <omp.h>

#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>
#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::tensor::onednn {
namespace {

using dnnl::memory;

struct ShapeHash {
  std::size_t operator()(const MatmulShape& s) const {
    std::size_t h = 0;
    auto mix = [&h](std::int64_t v) { h = h * 1000003u ^ std::hash<std::int64_t>{}(v); };
    for (std::int64_t v : {s.m, s.n, s.k, s.lda, s.ldb, s.ldc}) mix(v);
    mix(static_cast<std::int64_t>(s.trans_a) | static_cast<std::int64_t>(s.trans_b) << 1 |
        static_cast<std::int64_t>(s.inputs) << 2 | static_cast<std::int64_t>(s.output) << 3 |
        static_cast<std::int64_t>(s.bias) << 4);
    mix(static_cast<std::int64_t>(std::hash<float>{}(s.alpha)));
    mix(static_cast<std::int64_t>(std::hash<float>{}(s.beta)));
    return h;
  }
};

struct Primitive {
  dnnl::matmul matmul;
  memory::desc a, b, c, bias, scratchpad;
};

memory::data_type to_dnnl(DataType t) { return t == DataType::kBf16 ? memory::data_type::bf16 : memory::data_type::f32; }

const dnnl::engine& engine() {
  static const dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
  return cpu;
}

// Row-major (rows, cols) with leading dimension ld, or its transpose read from a (cols, rows) store.
memory::desc matrix(std::int64_t rows, std::int64_t cols, std::int64_t ld, Trans trans, DataType type) {
  const memory::dims strides = trans == Trans::kNo ? memory::dims{ld, 1} : memory::dims{1, ld};
  return memory::desc({rows, cols}, to_dnnl(type), strides);
}

std::unique_ptr<Primitive> create(const MatmulShape& s) {
  auto p = std::make_unique<Primitive>();
  p->a = matrix(s.m, s.k, s.lda, s.trans_a, s.inputs);
  p->b = matrix(s.k, s.n, s.ldb, s.trans_b, s.inputs);
  p->c = matrix(s.m, s.n, s.ldc, Trans::kNo, s.output);
  if (s.bias) p->bias = memory::desc({1, s.n}, memory::data_type::f32, memory::dims{s.n, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (s.alpha != 1.0f) attr.set_output_scales(0, {s.alpha});
  if (s.beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(s.beta);
    attr.set_post_ops(ops);
  }
  const dnnl::matmul::desc desc = s.bias ? dnnl::matmul::desc(p->a, p->b, p->bias, p->c) : dnnl::matmul::desc(p->a, p->b, p->c);
  const dnnl::matmul::primitive_desc pd(desc, attr, engine());
  p->scratchpad = pd.scratchpad_desc();
  p->matmul = dnnl::matmul(pd);
  return p;
}

class Cache {
 public:
  const Primitive& get(const MatmulShape& s) {
    std::lock_guard lock(mutex_);
    auto it = primitives_.find(s);
    if (it == primitives_.end()) it = primitives_.emplace(s, create(s)).first;
    return *it->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<MatmulShape, std::unique_ptr<Primitive>, ShapeHash> primitives_;
};

Cache& cache() {
  static Cache primitives;
  return primitives;
}

// What each calling thread keeps: its stream and scratchpad; its OpenMP count set to 1 once.
// A primitive's memory objects on one thread, made once and re-pointed at each call's operands:
// the attention kernels run a 64 x 64 tile product in a few microseconds, and making four
// memory objects, an argument map and a trip through the shared cache's lock per call cost a
// third of that.
struct Bound {
  const Primitive* primitive;
  memory a, b, c, bias, scratchpad;
  std::unordered_map<int, memory> args;
};

struct ThreadState {
  ThreadState() : stream(engine()) { omp_set_num_threads(1); }
  dnnl::stream stream;
  std::vector<std::uint8_t> scratchpad;
  std::unordered_map<MatmulShape, Bound, ShapeHash> bound;
};

ThreadState& thread_state() {
  thread_local ThreadState state;
  return state;
}

std::string describe(const MatmulShape& s) {
  return fmt::format("{}x{}x{} {}", s.m, s.n, s.k, s.inputs == DataType::kBf16 ? "bf16" : "f32");
}

}  // namespace

void matmul(const MatmulShape& shape, const void* a, const void* b, void* c, const float* bias) {
  try {
    ThreadState& thread = thread_state();
    auto found = thread.bound.find(shape);
    if (found == thread.bound.end()) {
      const Primitive& p = cache().get(shape);
      const dnnl::engine& cpu = engine();  // the handles below are re-pointed before every execute
      Bound fresh{&p,
                  memory(p.a, cpu, const_cast<void*>(a)),
                  memory(p.b, cpu, const_cast<void*>(b)),
                  memory(p.c, cpu, c),
                  shape.bias ? memory(p.bias, cpu, const_cast<float*>(bias)) : memory(),
                  memory(p.scratchpad, cpu, thread.scratchpad.data()),
                  {}};
      fresh.args = {{DNNL_ARG_SRC, fresh.a},
                    {DNNL_ARG_WEIGHTS, fresh.b},
                    {DNNL_ARG_DST, fresh.c},
                    {DNNL_ARG_SCRATCHPAD, fresh.scratchpad}};
      if (shape.bias) fresh.args.emplace(DNNL_ARG_BIAS, fresh.bias);
      found = thread.bound.emplace(shape, std::move(fresh)).first;
    }
    Bound& bound = found->second;
    const std::size_t scratch_bytes = bound.primitive->scratchpad.get_size();
    if (thread.scratchpad.size() < scratch_bytes) thread.scratchpad.resize(scratch_bytes);
    bound.a.set_data_handle(const_cast<void*>(a));
    bound.b.set_data_handle(const_cast<void*>(b));
    bound.c.set_data_handle(c);
    bound.scratchpad.set_data_handle(thread.scratchpad.data());
    if (shape.bias) bound.bias.set_data_handle(const_cast<float*>(bias));
    bound.primitive->matmul.execute(thread.stream, bound.args);
    thread.stream.wait();
  } catch (const dnnl::error& e) {
    throw Error(fmt::format("oneDNN matmul {} failed: {} (status {})", describe(shape), e.what(),
                            static_cast<int>(e.status)));
  }
}

std::string kernel_name(DataType inputs) {
  try {
    thread_state();
    MatmulShape s;
    s.trans_b = Trans::kYes;
    s.m = 512, s.n = 768, s.k = 768, s.lda = 768, s.ldb = 768, s.ldc = 768;
    s.inputs = inputs;
    const memory::desc a = matrix(s.m, s.k, s.lda, s.trans_a, s.inputs);
    const memory::desc b = matrix(s.k, s.n, s.ldb, s.trans_b, s.inputs);
    const memory::desc c = matrix(s.m, s.n, s.ldc, Trans::kNo, DataType::kF32);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), engine());
    return pd.impl_info_str();
  } catch (const dnnl::error& e) {
    return fmt::format("unavailable ({})", e.what());
  }
}

}  // namespace shmtrain::tensor::onednn
