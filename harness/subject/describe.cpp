#include "harness/subject/describe.h"

namespace devparity {

const std::vector<c10::ScalarType> kImageDtypes = {c10::kByte, c10::kHalf, c10::kBFloat16, c10::kFloat,
                                                   c10::kDouble};
const std::vector<c10::ScalarType> kFloatDtypes = {c10::kHalf, c10::kBFloat16, c10::kFloat, c10::kDouble};
const std::vector<c10::ScalarType> kFullPrecisionImageDtypes = {c10::kByte, c10::kFloat, c10::kDouble};
const std::vector<c10::ScalarType> kFullPrecisionDtypes = {c10::kFloat, c10::kDouble};

Describe::Describe(std::string name, std::string family, std::string meaning) {
  info_.name = std::move(name);
  info_.family = std::move(family);
  info_.description = std::move(meaning);
}

Describe& Describe::param(std::string name, std::string type, std::string default_value,
                          std::string description) {
  info_.params.push_back({std::move(name), std::move(type), std::move(default_value), std::move(description)});
  return *this;
}

Describe& Describe::derived(std::string name, std::string type, std::string from, const std::string& meaning) {
  return param(std::move(name), std::move(type), std::move(from), "written by sampling: " + meaning);
}

Describe& Describe::params(const std::vector<ParamDoc>& docs) {
  info_.params.insert(info_.params.end(), docs.begin(), docs.end());
  return *this;
}

Describe& Describe::dtypes(std::vector<c10::ScalarType> dtypes) {
  info_.dtypes = std::move(dtypes);
  return *this;
}

Describe& Describe::random(bool random) {
  info_.random = random;
  return *this;
}

Describe& Describe::differentiable(bool differentiable) {
  info_.differentiable = differentiable;
  return *this;
}

Describe& Describe::not_on_meta(std::string why) {
  info_.meta = false;
  info_.meta_note = std::move(why);
  return *this;
}

Describe& Describe::meta_note(std::string note) {
  info_.meta_note = std::move(note);
  return *this;
}

Describe& Describe::jpeg_output() {
  info_.output = "jpeg";
  return *this;
}

}  // namespace devparity
