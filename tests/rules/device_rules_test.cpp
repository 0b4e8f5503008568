// CUDA's mixed-device rules as data, judged on hand-built operands (a CPU
// build cannot make CUDA tensors; the rules are the same).

#include "harness/rules/device_rules.h"

#include <gtest/gtest.h>

namespace devparity::device_rules {
namespace {

Operand cuda(const char* argument, int64_t dim = 1, int index = 0, bool output = false) {
  return {argument, 10 + index, false, "cuda:" + std::to_string(index), dim, output};
}
Operand cpu(const char* argument, int64_t dim = 1, bool output = false) {
  return {argument, 0, true, "cpu", dim, output};
}

TEST(DeviceRulesTest, TheBuiltInRulesAreThoseOfTheLibTorchFound) {
  const std::string r = release();
  EXPECT_TRUE(r == "1.13" || r == "2.6") << r;
  // Generated checks, with the wrapper names LibTorch quotes.
  const auto& select = rule_for("aten::index_select");
  EXPECT_EQ(select.kind, Kind::kExactSame);
  EXPECT_EQ(select.checked, (std::vector<std::string>{"self", "index"}));
  EXPECT_EQ(select.wrapper, r == "1.13" ? "wrapper__index_select" : "wrapper_CUDA__index_select");
  EXPECT_EQ(rule_for("cat").kind, Kind::kExactSame);
  EXPECT_TRUE(rule_for("cat").structured);
  // Ops that decide for themselves.
  EXPECT_EQ(rule_for("aten::mul.Tensor").kind, Kind::kIteratorCpuScalar);
  EXPECT_EQ(rule_for("aten::exp").kind, Kind::kIterator);
  EXPECT_EQ(rule_for("aten::index.Tensor").kind, Kind::kIndex);
  EXPECT_EQ(rule_for("aten::masked_fill_.Scalar").kind, Kind::kMaskedFill);
  EXPECT_EQ(rule_for("aten::copy_").kind, Kind::kAny);
  // Composites check nothing themselves.
  EXPECT_EQ(rule_for("aten::matmul").kind, Kind::kComposite);
  // Version-specific: where.self takes CPU scalars from 2.0 on.
  EXPECT_EQ(rule_for("where.self").kind, r == "1.13" ? Kind::kIterator : Kind::kZeroDimMoved);
  // Custom operators are held to one device with CPU scalars allowed.
  const auto& custom = rule_for("torchvision::roi_align");
  EXPECT_FALSE(custom.known);
  EXPECT_EQ(custom.kind, Kind::kIteratorCpuScalar);
}

TEST(DeviceRulesTest, TensorIteratorTakesOneCpuScalarAsAnInput) {
  const auto& mul = rule_for("mul.Tensor");
  EXPECT_TRUE(judge(mul, {cuda("self"), cpu("other", 0)}).accepted);
  EXPECT_TRUE(judge(mul, {cpu("self", 0), cuda("other")}).accepted) << "in any position";
  const auto vector = judge(mul, {cuda("self"), cpu("other", 1)});
  EXPECT_FALSE(vector.accepted);
  EXPECT_EQ(vector.offender, 1);
  EXPECT_EQ(vector.message,
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
  // The common device is the first non-CPU one, whatever the order.
  EXPECT_EQ(judge(mul, {cpu("self"), cuda("other", 0)}).message,
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
  EXPECT_FALSE(judge(mul, {cuda("self", 1, 0), cuda("other", 1, 1)}).accepted) << "two indices";
  // Never as an output.
  EXPECT_FALSE(judge(rule_for("mul_.Tensor"), {cpu("self", 0, true), cuda("other")}).accepted);
  // Two CPU scalars are one too many.
  const auto two = judge(rule_for("addcmul"), {cuda("self"), cpu("tensor1", 0), cpu("tensor2", 0)});
  EXPECT_FALSE(two.accepted);
  // Unary and ternary ops take none.
  EXPECT_FALSE(judge(rule_for("exp"), {cpu("self", 0, true), cuda("self")}).accepted);
  // All on the CPU: nothing to say.
  EXPECT_TRUE(judge(mul, {cpu("self"), cpu("other")}).accepted);
}

TEST(DeviceRulesTest, GeneratedChecksNameTheArgumentAndTakeNoScalar) {
  const auto v = judge(rule_for("clamp.Tensor"), {cuda("self"), cpu("max", 0)});
  EXPECT_FALSE(v.accepted);
  EXPECT_NE(v.message.find("(when checking argument for argument max in method " +
                           rule_for("clamp.Tensor").wrapper + ")"),
            std::string::npos)
      << v.message;
  // The first checked argument sets the device.
  const auto mm = judge(rule_for("mm"), {cpu("self"), cuda("mat2")});
  EXPECT_NE(mm.message.find("cpu and cuda:0!"), std::string::npos) << mm.message;
}

TEST(DeviceRulesTest, IndexingMovesCpuIndicesButNotOthers) {
  const auto& index = rule_for("index.Tensor");
  const auto moved = judge(index, {cuda("self", 3), cpu("indices", 2)});
  EXPECT_TRUE(moved.accepted);
  EXPECT_EQ(moved.moved, std::vector<int>{1});
  const auto into_cpu = judge(index, {cpu("self", 3), cuda("indices", 1)});
  EXPECT_FALSE(into_cpu.accepted);
  EXPECT_EQ(into_cpu.message, "indices should be either on cpu or on the same device as the indexed tensor (cpu)");
  EXPECT_FALSE(judge(index, {cuda("self", 3, 0), cuda("indices", 1, 1)}).accepted);
  // index_put_: indices from anywhere, a 0-dim value from anywhere.
  const auto& put = rule_for("_index_put_impl_");
  EXPECT_TRUE(judge(put, {cuda("self"), cpu("indices"), cpu("values", 0)}).accepted);
  EXPECT_FALSE(judge(put, {cuda("self"), cpu("indices"), cpu("values", 1)}).accepted);
}

TEST(DeviceRulesTest, MaskedFillWantsItsMaskOnSelfsDevice) {
  const auto& fill = rule_for("masked_fill_.Tensor");
  const auto v = judge(fill, {cuda("self"), cpu("mask"), cpu("value", 0)});
  EXPECT_FALSE(v.accepted);
  EXPECT_EQ(v.message, "expected self and mask to be on the same device, but got mask on cpu and self on cuda:0");
  EXPECT_TRUE(judge(fill, {cuda("self"), cuda("mask"), cpu("value", 0)}).accepted) << "the value is read as a number";
}

TEST(DeviceRulesTest, CopiesAndSetStorage) {
  EXPECT_TRUE(judge(rule_for("copy_"), {cuda("self"), cpu("src")}).accepted);
  EXPECT_TRUE(judge(rule_for("_to_copy"), {cpu("self")}).accepted);
  const auto set = judge(rule_for("set_.source_Tensor"), {cuda("self"), cpu("source")});
  EXPECT_FALSE(set.accepted);
  EXPECT_NE(set.message.find("Attempted to set the storage of a tensor on device \"cuda:0\""), std::string::npos);
  EXPECT_TRUE(judge(rule_for("fill_.Tensor"), {cuda("self"), cpu("value", 0)}).accepted);
}

TEST(DeviceRulesTest, WhereFollowsItsRelease) {
  const auto v = judge(rule_for("where.self"), {cuda("condition"), cuda("self"), cpu("other", 0)});
  if (std::string(release()) == "1.13") {
    EXPECT_FALSE(v.accepted);
  } else {
    EXPECT_TRUE(v.accepted);
    EXPECT_EQ(v.moved, std::vector<int>{2});
  }
  EXPECT_FALSE(judge(rule_for("where.self"), {cuda("condition"), cuda("self"), cpu("other", 1)}).accepted);
}

TEST(DeviceRulesTest, StructuredChecksAreListedForBackendsToJudgeFirst) {
  const auto ops = structured_checked_ops();
  EXPECT_NE(std::find(ops.begin(), ops.end(), "cat"), ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "clamp.Tensor"), ops.end());
  EXPECT_EQ(std::find(ops.begin(), ops.end(), "index_select"), ops.end()) << "unstructured";
}

// The tracer's fast path (Note [The tracer's fast path]) classifies nothing
// for an op whose tensors are all on the target: every kind of rule must
// accept such operands and move none of them, 0-dim or not, written or read.
TEST(DeviceRulesTest, EveryRuleAcceptsOperandsAllOnOneDevice) {
  const std::vector<Kind> kinds = {Kind::kComposite, Kind::kExactSame,  Kind::kIterator,
                                   Kind::kIteratorCpuScalar, Kind::kIndex, Kind::kIndexPut,
                                   Kind::kMaskedFill, Kind::kIndexFill, Kind::kZeroDimMoved,
                                   Kind::kCpuScalarAt, Kind::kZeroDimAny, Kind::kAny,
                                   Kind::kSetStorage};
  const std::vector<std::vector<Operand>> calls = {
      {cuda("self", 2)},
      {cuda("self", 2), cuda("other", 0)},
      {cuda("self", 0), cuda("other", 3)},
      {cuda("self", 4, 0, true), cuda("indices", 1), cuda("values", 0)},
      {cuda("self", 2), cuda("mask", 2), cuda("value", 0)},
      {cuda("self", 1), cuda("source", 1), cuda("out", 1, 0, true)},
  };
  for (const auto kind : kinds) {
    OpRule rule;
    rule.kind = kind;
    rule.checked = {"self", "other", "indices", "mask", "source"};
    rule.wrapper = "wrapper__op";
    for (const char* argument : {"other", "*"}) {
      rule.argument = argument;
      for (const auto& operands : calls) {
        const auto verdict = judge(rule, operands);
        EXPECT_TRUE(verdict.accepted) << static_cast<int>(kind) << " " << argument << ": " << verdict.message;
        EXPECT_TRUE(verdict.moved.empty()) << static_cast<int>(kind) << " " << argument;
      }
    }
  }
}

}  // namespace
}  // namespace devparity::device_rules
