#include "torch_pickle.hpp"

#include <cstring>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::io::pickle {
namespace {

Ref make(Value::Kind kind) {
  auto v = std::make_shared<Value>();
  v->kind = kind;
  return v;
}

// The storage classes torch.save names in its persistent ids, and their element types.
std::optional<Dtype> storage_dtype(std::string_view global) {
  static const std::map<std::string_view, Dtype> kTypes = {
      {"torch.FloatStorage", Dtype::kF32},  {"torch.HalfStorage", Dtype::kF16},  {"torch.BFloat16Storage", Dtype::kBF16},
      {"torch.DoubleStorage", Dtype::kF64}, {"torch.LongStorage", Dtype::kI64},  {"torch.IntStorage", Dtype::kI32},
      {"torch.ShortStorage", Dtype::kI16},  {"torch.CharStorage", Dtype::kI8},   {"torch.ByteStorage", Dtype::kU8},
      {"torch.BoolStorage", Dtype::kBool}};
  const auto found = kTypes.find(global);
  if (found == kTypes.end()) return std::nullopt;
  return found->second;
}

bool allowed_global(const std::string& name) {
  return name == "collections.OrderedDict" || name == "torch._utils._rebuild_tensor_v2" ||
         name == "torch._utils._rebuild_parameter" || storage_dtype(name).has_value();
}

class Unpickler {
 public:
  Unpickler(std::span<const std::byte> bytes, std::string where) : in_(bytes), where_(std::move(where)) {}

  Ref run() {
    for (;;) {
      const auto op = static_cast<unsigned char>(byte());
      switch (op) {
        case 0x80: byte(); break;                                   // PROTO
        case 0x95: take(8); break;                                  // FRAME: its length
        case '.': return pop();                                     // STOP
        case '}': push(make(Value::Kind::kDict)); break;            // EMPTY_DICT
        case ']': push(make(Value::Kind::kList)); break;            // EMPTY_LIST
        case ')': push(make(Value::Kind::kTuple)); break;           // EMPTY_TUPLE
        case '(': marks_.push_back(stack_.size()); break;           // MARK
        case 'N': push(make(Value::Kind::kNone)); break;            // NONE
        case 0x88: case 0x89: {                                     // NEWTRUE, NEWFALSE
          Ref v = make(Value::Kind::kBool);
          v->integer = op == 0x88 ? 1 : 0;
          push(v);
          break;
        }
        case 'J': push_int(static_cast<std::int32_t>(unsigned_le(4))); break;  // BININT
        case 'K': push_int(static_cast<std::int64_t>(unsigned_le(1))); break;  // BININT1
        case 'M': push_int(static_cast<std::int64_t>(unsigned_le(2))); break;  // BININT2
        case 0x8a: {                                                            // LONG1
          const std::size_t n = static_cast<std::size_t>(unsigned_le(1));
          if (n > 8) fail("an integer of {} bytes (only what a state dict holds is read)", n);
          std::uint64_t raw = n == 0 ? 0 : unsigned_le(n);
          if (n > 0 && n < 8 && (raw >> (8 * n - 1)) != 0) raw |= ~std::uint64_t{0} << (8 * n);  // sign-extend
          push_int(static_cast<std::int64_t>(raw));
          break;
        }
        case 'G': {  // BINFLOAT: big-endian double
          std::uint64_t bits = 0;
          for (const std::byte b : take(8)) bits = (bits << 8) | static_cast<std::uint64_t>(b);
          Ref v = make(Value::Kind::kFloat);
          std::memcpy(&v->number, &bits, 8);
          push(v);
          break;
        }
        case 'X': push_string(static_cast<std::size_t>(unsigned_le(4))); break;  // BINUNICODE
        case 0x8c: push_string(static_cast<std::size_t>(unsigned_le(1))); break;  // SHORT_BINUNICODE
        case 'U': push_string(static_cast<std::size_t>(unsigned_le(1))); break;   // SHORT_BINSTRING
        case 'T': push_string(static_cast<std::size_t>(unsigned_le(4))); break;   // BINSTRING
        case 'q': memo_[unsigned_le(1)] = top(); break;                          // BINPUT
        case 'r': memo_[unsigned_le(4)] = top(); break;                          // LONG_BINPUT
        case 0x94: memo_[memo_.size()] = top(); break;                           // MEMOIZE
        case 'h': push(memo(unsigned_le(1))); break;                             // BINGET
        case 'j': push(memo(unsigned_le(4))); break;                             // LONG_BINGET
        case 'c': {                                                              // GLOBAL
          std::string module = line(), name = line();
          push_global(module + "." + name);
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          const Ref name = pop(), module = pop();
          if (name->kind != Value::Kind::kString || module->kind != Value::Kind::kString) fail("a malformed STACK_GLOBAL");
          push_global(module->text + "." + name->text);
          break;
        }
        case 't': {  // TUPLE
          Ref v = make(Value::Kind::kTuple);
          v->items = pop_mark();
          push(v);
          break;
        }
        case 0x85: case 0x86: case 0x87: {  // TUPLE1, TUPLE2, TUPLE3
          Ref v = make(Value::Kind::kTuple);
          v->items.resize(op - 0x84);
          for (auto it = v->items.rbegin(); it != v->items.rend(); ++it) *it = pop();
          push(v);
          break;
        }
        case 'a': {  // APPEND
          const Ref item = pop();
          list_on_top()->items.push_back(item);
          break;
        }
        case 'e': {  // APPENDS
          std::vector<Ref> items = pop_mark();
          Ref list = list_on_top();
          list->items.insert(list->items.end(), items.begin(), items.end());
          break;
        }
        case 's': {  // SETITEM
          const Ref value = pop(), key = pop();
          dict_on_top()->entries.emplace_back(key, value);
          break;
        }
        case 'u': {  // SETITEMS
          std::vector<Ref> items = pop_mark();
          if (items.size() % 2 != 0) fail("SETITEMS with an odd number of items");
          Ref dict = dict_on_top();
          for (std::size_t i = 0; i < items.size(); i += 2) dict->entries.emplace_back(items[i], items[i + 1]);
          break;
        }
        case 'b': pop(); top(); break;  // BUILD: an object's state (OrderedDict's _metadata): kept out
        case 'Q': push(storage(pop())); break;  // BINPERSID
        case 'R': {                             // REDUCE
          const Ref args = pop(), callable = pop();
          push(reduce(*callable, *args));
          break;
        }
        default:
          fail("pickle opcode 0x{:02x} ('{}'), which torch.save(state_dict) does not write, is refused", op,
               op >= 0x20 && op < 0x7f ? static_cast<char>(op) : '?');
      }
    }
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    fail_input("{}: data.pkl, byte {}: {}", where_, at_, fmt::format(format, std::forward<Args>(args)...));
  }

  std::span<const std::byte> take(std::size_t n) {
    if (n > in_.size() - at_) fail("the pickle ends early (truncated?)");
    const auto out = in_.subspan(at_, n);
    at_ += n;
    return out;
  }
  std::byte byte() { return take(1)[0]; }
  std::uint64_t unsigned_le(std::size_t n) {
    std::uint64_t v = 0;
    const auto bytes = take(n);
    for (std::size_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
    return v;
  }
  std::string line() {
    std::string out;
    for (char c; (c = static_cast<char>(byte())) != '\n';) {
      out.push_back(c);
      if (out.size() > 256) fail("a GLOBAL name longer than 256 bytes");
    }
    return out;
  }

  void push(Ref v) { stack_.push_back(std::move(v)); }
  Ref pop() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("the pickle pops an empty stack");
    Ref v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  const Ref& top() const {
    if (stack_.empty()) fail("the pickle reads an empty stack");
    return stack_.back();
  }
  std::vector<Ref> pop_mark() {
    if (marks_.empty()) fail("the pickle has no MARK to pop to");
    const std::size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<Ref> items(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(mark)),
                           std::make_move_iterator(stack_.end()));
    stack_.resize(mark);
    return items;
  }
  Ref memo(std::uint64_t key) const {
    const auto found = memo_.find(key);
    if (found == memo_.end()) fail("the pickle reads memo {} before writing it", key);
    return found->second;
  }
  void push_int(std::int64_t value) {
    Ref v = make(Value::Kind::kInt);
    v->integer = value;
    push(v);
  }
  void push_string(std::size_t n) {
    Ref v = make(Value::Kind::kString);
    const auto bytes = take(n);
    v->text.assign(reinterpret_cast<const char*>(bytes.data()), n);
    push(v);
  }
  void push_global(const std::string& name) {
    if (!allowed_global(name)) {
      fail("global '{}' is refused: a torch.save(state_dict) file names only collections.OrderedDict, "
           "torch._utils._rebuild_tensor_v2 and torch's storage classes (a pickle can run code; this reader never "
           "does)",
           name);
    }
    Ref v = make(Value::Kind::kGlobal);
    v->text = name;
    push(v);
  }
  Ref list_on_top() {
    Ref v = top();
    if (v->kind != Value::Kind::kList) fail("APPEND to something that is not a list");
    return v;
  }
  Ref dict_on_top() {
    Ref v = top();
    if (v->kind != Value::Kind::kDict) fail("SETITEM on something that is not a dict");
    return v;
  }

  // A persistent id: ('storage', <storage class>, key, location, numel).
  Ref storage(const Ref& pid) {
    const auto& t = pid->items;
    if (pid->kind != Value::Kind::kTuple || t.size() != 5 || t[0]->kind != Value::Kind::kString ||
        t[0]->text != "storage" || t[1]->kind != Value::Kind::kGlobal || t[2]->kind != Value::Kind::kString ||
        t[4]->kind != Value::Kind::kInt || t[4]->integer < 0) {
      fail("a persistent id that is not ('storage', <storage class>, key, location, numel)");
    }
    const std::optional<Dtype> dtype = storage_dtype(t[1]->text);
    if (!dtype) fail("'{}' is not a storage class", t[1]->text);
    Ref v = make(Value::Kind::kStorage);
    v->dtype = *dtype;
    v->text = t[2]->text;
    v->integer = t[4]->integer;
    return v;
  }

  std::vector<std::int64_t> sizes(const Ref& tuple, const char* what) const {
    if (tuple->kind != Value::Kind::kTuple) fail("a tensor's {} is not a tuple", what);
    std::vector<std::int64_t> out;
    for (const Ref& item : tuple->items) {
      if (item->kind != Value::Kind::kInt || item->integer < 0) fail("a tensor's {} holds {}", what, "a negative or non-integer entry");
      out.push_back(item->integer);
    }
    return out;
  }

  Ref reduce(const Value& callable, const Value& args) {
    if (callable.kind != Value::Kind::kGlobal || args.kind != Value::Kind::kTuple) fail("REDUCE of something not callable");
    const auto& a = args.items;
    if (callable.text == "collections.OrderedDict") {
      Ref dict = make(Value::Kind::kDict);
      if (!a.empty()) fail("OrderedDict built from arguments");
      return dict;
    }
    if (callable.text == "torch._utils._rebuild_parameter") {
      if (a.empty() || a[0]->kind != Value::Kind::kTensor) fail("_rebuild_parameter of something not a tensor");
      return a[0];
    }
    if (callable.text == "torch._utils._rebuild_tensor_v2") {
      if (a.size() < 4 || a[0]->kind != Value::Kind::kStorage || a[1]->kind != Value::Kind::kInt || a[1]->integer < 0) {
        fail("_rebuild_tensor_v2 without (storage, offset, size, stride)");
      }
      Ref t = make(Value::Kind::kTensor);
      t->storage = a[0];
      t->dtype = a[0]->dtype;
      t->offset = a[1]->integer;
      t->shape = sizes(a[2], "size");
      t->stride = sizes(a[3], "stride");
      if (t->shape.size() != t->stride.size()) fail("a tensor's size and stride differ in length");
      return t;
    }
    fail("REDUCE calls '{}', which a state dict never calls", callable.text);
  }

  std::span<const std::byte> in_;
  std::string where_;
  std::size_t at_ = 0;
  std::vector<Ref> stack_;
  std::vector<std::size_t> marks_;
  std::map<std::uint64_t, Ref> memo_;
};


}  // namespace

Ref unpickle_state_dict(std::span<const std::byte> bytes, const std::string& where) {
  return Unpickler(bytes, where).run();
}

}  // namespace shmtrain::io::pickle
