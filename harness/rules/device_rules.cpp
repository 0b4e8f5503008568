#include "harness/rules/device_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace devparity::device_rules {

namespace data {
extern const char* const kRelease;
extern const char* const kGeneratedChecks;
extern const char* const kSpecialRules;
}  // namespace data

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(text);
  while (std::getline(in, field, sep)) out.push_back(field);
  if (!text.empty() && text.back() == sep) out.emplace_back();
  return out;
}

Kind special_kind(const std::string& name) {
  static const std::map<std::string, Kind> kinds = {
      {"iterator_cpu_scalar", Kind::kIteratorCpuScalar}, {"iterator", Kind::kIterator},
      {"index", Kind::kIndex},                           {"index_put", Kind::kIndexPut},
      {"masked_fill", Kind::kMaskedFill},                {"index_fill", Kind::kIndexFill},
      {"zero_dim_moved", Kind::kZeroDimMoved},           {"cpu_scalar_at", Kind::kCpuScalarAt},
      {"zero_dim_any", Kind::kZeroDimAny},               {"any", Kind::kAny},
      {"set_storage", Kind::kSetStorage}};
  const auto it = kinds.find(name);
  if (it == kinds.end()) {
    throw std::logic_error("harness/device/rules: unknown device rule '" + name + "'");
  }
  return it->second;
}

struct Tables {
  std::unordered_map<std::string, OpRule> generated;  // "mul.Tensor" -> rule
  std::unordered_map<std::string, OpRule> special;    // "mul" or "mul.Tensor" -> rule
  OpRule unknown;
};

OpRule generated_rule(const std::vector<std::string>& f) {
  // op, registration, device_check, generated check, wrapper, checked, kwarg-only
  OpRule r;
  r.known = true;
  const auto& registration = f[1];
  if (registration.rfind("Composite", 0) == 0) {
    r.kind = Kind::kComposite;
  } else if (f[3] == "YES" || (registration.rfind("CUDA", 0) == 0 && f[2] == "ExactSame")) {
    r.kind = Kind::kExactSame;
    r.wrapper = f[4];
    r.structured = registration == "CUDA-structured";
    if (f.size() > 5 && !f[5].empty()) r.checked = split(f[5], ',');
  } else if (registration.rfind("CUDA", 0) == 0) {
    r.kind = Kind::kIterator;  // NoCheck kernels are TensorIterator ops unless listed
  } else {
    r.kind = Kind::kIteratorCpuScalar;  // other backends' kernels: no CUDA evidence
  }
  return r;
}

Tables load() {
  Tables t;
  std::istringstream checks(data::kGeneratedChecks);
  std::string line;
  while (std::getline(checks, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto f = split(line, '\t');
    if (f.size() < 5) continue;
    t.generated.emplace(f[0], generated_rule(f));
  }
  std::istringstream special(data::kSpecialRules);
  while (std::getline(special, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto f = split(line, '\t');
    if (f.size() < 2) continue;
    OpRule r;
    r.known = true;
    r.kind = special_kind(f[1]);
    if (f.size() > 2) r.argument = f[2];
    t.special[f[0]] = r;  // later files override earlier rows
  }
  t.unknown.kind = Kind::kIteratorCpuScalar;
  return t;
}

const Tables& tables() {
  static const Tables t = load();
  return t;
}

std::string same_device(const std::string& first, const std::string& other) {
  return fmt::format("Expected all tensors to be on the same device, but found at least two devices, {} and {}!",
                     first, other);
}

// The first operand (in `order`) not on the CPU: the op's device, or -1.
int first_off_host(const std::vector<Operand>& ops, const std::vector<int>& order) {
  for (const int i : order) {
    if (!ops[i].host) return i;
  }
  return -1;
}

// Note [TensorIterator devices]: the op's device is the first non-CPU one
// among its operands, outputs first; every other operand must be on it,
// except (when allowed) one CPU 0-dim input.
Verdict iterator_check(const std::vector<Operand>& ops, const std::vector<int>& order,
                       const std::function<bool(const Operand&)>& may_be_cpu_scalar) {
  Verdict v;
  v.device_of = first_off_host(ops, order);
  if (v.device_of < 0) return v;  // all on the CPU
  const auto& common = ops[v.device_of];
  int cpu_scalars = 0;
  for (const int i : order) {
    const auto& o = ops[i];
    if (o.place == common.place) continue;
    if (o.host && !o.output && o.dim == 0 && may_be_cpu_scalar(o)) {
      if (++cpu_scalars > 1) {
        v.accepted = false;
        v.offender = i;
        v.message = "Trying to pass too many CPU scalars to non-CPU kernel!";
        return v;
      }
      continue;
    }
    v.accepted = false;
    v.offender = i;
    v.message = same_device(common.label, o.label);
    return v;
  }
  return v;
}

// Outputs first, then inputs, each in schema order (TensorIterator's order).
std::vector<int> iterator_order(const std::vector<Operand>& ops,
                                const std::function<bool(const Operand&)>& keep) {
  std::vector<int> order;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].output == (pass == 0) && keep(ops[i])) order.push_back(static_cast<int>(i));
    }
  }
  return order;
}

const auto kAll = [](const Operand&) { return true; };
const auto kNone = [](const Operand&) { return false; };

Verdict iterator(const std::vector<Operand>& ops, bool cpu_scalar) {
  return cpu_scalar ? iterator_check(ops, iterator_order(ops, kAll), kAll)
                    : iterator_check(ops, iterator_order(ops, kAll), kNone);
}

int first_of(const std::vector<Operand>& ops, const std::string& argument) {
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].argument == argument) return static_cast<int>(i);
  }
  return -1;
}

Verdict exact_same(const OpRule& rule, const std::vector<Operand>& ops) {
  Verdict v;
  std::vector<int> order;
  if (rule.checked.empty()) {
    for (size_t i = 0; i < ops.size(); ++i) order.push_back(static_cast<int>(i));
  } else {
    for (const auto& name : rule.checked) {
      for (size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].argument == name) order.push_back(static_cast<int>(i));
      }
    }
  }
  for (const int i : order) {
    if (v.device_of < 0) {
      v.device_of = i;
      continue;
    }
    const auto& first = ops[v.device_of];
    if (ops[i].place == first.place) continue;
    v.accepted = false;
    v.offender = i;
    v.message = same_device(first.label, ops[i].label);
    if (!rule.wrapper.empty() && rule.wrapper != "-") {
      v.message += fmt::format(" (when checking argument for argument {} in method {})", ops[i].argument,
                               rule.wrapper);
    }
    return v;
  }
  return v;
}

Verdict index(const std::vector<Operand>& ops) {
  Verdict v;
  const int self = first_of(ops, "self");
  if (self < 0) return v;
  v.device_of = self;
  const auto& s = ops[self];
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& o = ops[i];
    if (static_cast<int>(i) == self || o.place == s.place) continue;
    if (o.argument == "indices") {
      if (o.host) {
        v.moved.push_back(static_cast<int>(i));
        continue;
      }
      v.accepted = false;
      v.offender = static_cast<int>(i);
      v.message = fmt::format("indices should be either on cpu or on the same device as the "
                              "indexed tensor ({})",
                              s.label);
      return v;
    }
    // out= of index.Tensor_out: TensorIterator's rule against self.
    return iterator_check(ops, {static_cast<int>(i), self}, kNone);
  }
  return v;
}

Verdict index_put(const std::vector<Operand>& ops) {
  Verdict v;
  const int self = first_of(ops, "self");
  if (self < 0) return v;
  v.device_of = self;
  std::vector<int> iterated = {self};
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& o = ops[i];
    if (static_cast<int>(i) == self || o.place == ops[self].place) continue;
    if (o.argument == "indices" || o.dim == 0) {
      v.moved.push_back(static_cast<int>(i));
    } else {
      iterated.push_back(static_cast<int>(i));
    }
  }
  if (iterated.size() == 1) return v;
  auto checked = iterator_check(ops, iterated, kNone);
  if (checked.accepted) checked.moved = v.moved;
  return checked;
}

Verdict masked_fill(const std::vector<Operand>& ops) {
  Verdict v;
  const int self = first_of(ops, "self");
  const int mask = first_of(ops, "mask");
  if (self < 0) return v;
  v.device_of = self;
  if (mask >= 0 && ops[mask].place != ops[self].place) {
    v.accepted = false;
    v.offender = mask;
    v.message = fmt::format("expected self and mask to be on the same device, but got mask on {} "
                            "and self on {}",
                            ops[mask].label, ops[self].label);
  }
  return v;  // a Tensor value is read with item(), from any device
}

Verdict index_fill(const std::vector<Operand>& ops) {
  const int self = first_of(ops, "self");
  const int idx = first_of(ops, "index");
  if (self < 0 || idx < 0) return Verdict{};
  return iterator_check(ops, {self, idx}, kNone);
}

// where.self in 2.x: the op's device is the first non-CPU operand's; 0-dim
// operands elsewhere are moved there, the others must be on it.
Verdict zero_dim_moved(const std::vector<Operand>& ops) {
  Verdict v;
  const auto order = iterator_order(ops, kAll);
  v.device_of = first_off_host(ops, order);
  if (v.device_of < 0) return v;
  const auto& common = ops[v.device_of];
  for (const int i : order) {
    const auto& o = ops[i];
    if (o.place == common.place) continue;
    if (o.dim == 0) {
      v.moved.push_back(i);
      continue;
    }
    v.accepted = false;
    v.offender = i;
    v.moved.clear();
    v.message = same_device(common.label, o.label);
    return v;
  }
  return v;
}

Verdict set_storage(const std::vector<Operand>& ops) {
  Verdict v;
  const int self = first_of(ops, "self");
  const int source = first_of(ops, "source");
  if (self < 0 || source < 0) return v;
  v.device_of = self;
  if (ops[self].place != ops[source].place) {
    v.accepted = false;
    v.offender = source;
    v.message = fmt::format("Attempted to set the storage of a tensor on device \"{}\" to a storage "
                            "on different device \"{}\".  This is no longer allowed; the devices "
                            "must match.",
                            ops[self].label, ops[source].label);
  }
  return v;
}

}  // namespace

const char* release() { return data::kRelease; }

std::vector<std::string> structured_checked_ops() {
  std::vector<std::string> out;
  for (const auto& [name, rule] : tables().generated) {
    if (rule.kind == Kind::kExactSame && rule.structured) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const OpRule& rule_for(std::string_view qualified_name) {
  const auto& t = tables();
  std::string name(qualified_name);
  if (name.rfind("aten::", 0) == 0) {
    name.erase(0, 6);
  } else if (name.find("::") != std::string::npos) {
    return t.unknown;  // custom operators: no CUDA evidence
  }
  if (const auto it = t.special.find(name); it != t.special.end()) return it->second;
  const auto base = name.substr(0, name.find('.'));
  if (const auto it = t.special.find(base); it != t.special.end()) return it->second;
  if (const auto it = t.generated.find(name); it != t.generated.end()) return it->second;
  return t.unknown;
}

Verdict judge(const OpRule& rule, const std::vector<Operand>& ops) {
  switch (rule.kind) {
    case Kind::kComposite:
    case Kind::kAny: return Verdict{};
    case Kind::kExactSame: return exact_same(rule, ops);
    case Kind::kIterator: return iterator(ops, false);
    case Kind::kIteratorCpuScalar: return iterator(ops, true);
    case Kind::kIndex: return index(ops);
    case Kind::kIndexPut: return index_put(ops);
    case Kind::kMaskedFill: return masked_fill(ops);
    case Kind::kIndexFill: return index_fill(ops);
    case Kind::kZeroDimMoved: return zero_dim_moved(ops);
    case Kind::kCpuScalarAt: {
      const auto& arg = rule.argument;
      return iterator_check(ops, iterator_order(ops, kAll),
                            [&](const Operand& o) { return o.argument == arg; });
    }
    case Kind::kZeroDimAny: {
      const auto& arg = rule.argument;
      const auto read = [&](const Operand& o) {
        return o.dim == 0 && (arg == "*" || o.argument == arg);
      };
      return iterator_check(ops, iterator_order(ops, [&](const Operand& o) { return !read(o); }),
                            kNone);
    }
    case Kind::kSetStorage: return set_storage(ops);
  }
  return Verdict{};
}

}  // namespace devparity::device_rules
