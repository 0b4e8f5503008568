#include "harness/base/atomic_file.h"
#include "harness/base/output_paths.h"
#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/json_source.h"
#include "harness/base/npy.h"
#include "harness/base/text.h"
#include "harness/device/device.h"
#include "harness/device/device_kinds.h"
#include "harness/jpeg/validator.h"
#include "harness/subject/execution.h"
#include "harness/subject/transform_registry.h"
#include "tools/devparity/commands.h"

#include <CLI/CLI.hpp>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>

namespace devparity::cli {
namespace {

bool has_extension(const std::string& path, std::initializer_list<const char*> extensions) {
  for (const char* ext : extensions) {
    const std::string e(ext);
    if (path.size() > e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

bool is_jpeg_path(const std::string& path) { return has_extension(path, {".jpg", ".jpeg", ".JPG", ".JPEG"}); }

// What --output's name promises is what is written: .npy for a tensor,
// .jpg for a JPEG subject's bytes; another name would hold the wrong format.
void check_output_name(const std::string& output, const Transform& subject) {
  const bool jpeg = subject.info().output == "jpeg";
  if (has_extension(output, {".npy", ".NPY"}) || (jpeg && is_jpeg_path(output))) return;
  throw UsageError(fmt::format("--output {}: {} writes {}; name a {} file", output, subject.info().name,
                               jpeg ? "JPEG bytes" : "a tensor, as .npy",
                               jpeg ? ".jpg (the files) or .npy (the bytes as a tensor)" : ".npy"));
}

// A JPEG subject's output (the files back to back) as .jpg files: `path`
// for one image, `stem-<n>.ext` for several.
nlohmann::json write_jpeg_files(const std::string& path, const at::Tensor& bytes) {
  const auto b = bytes.contiguous();
  const auto* data = b.data_ptr<uint8_t>();
  const auto parts = jpeg::split_stream(data, static_cast<size_t>(b.numel()));
  auto written = nlohmann::json::array();
  const auto dot = path.find_last_of('.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string name = parts.size() == 1 ? path : fmt::format("{}-{}{}", path.substr(0, dot), i, path.substr(dot));
    write_file_atomic(name, std::string(reinterpret_cast<const char*>(data) + parts[i].first,
                                        parts[i].second - parts[i].first));
    written.push_back(name);
  }
  return written;
}

}  // namespace

CLI::App* add_apply_command(CLI::App& app, Options& o) {
  auto* apply = app.add_subcommand("apply", "Run one subject once on a .npy input and write the "
                                            "output as .npy (reproduce a trial, or compare with "
                                            "another library)");
  apply->add_option("subject", o.apply.subject, "Transform name (see devparity list)")->required();
  apply->add_option("--input", o.apply.input, "Input .npy (NCHW)")->required();
  apply->add_option("--output", o.apply.output, "Output .npy (a JPEG subject: also .jpg)")->required();
  apply->add_option("--params", o.apply.params, "Parameters as a JSON object")->capture_default_str();
  apply->add_option("--device", o.apply.device,
                    "cpu | cuda | cuda:<index> | cuda:N | vdev | vdev:<index> | vdev:N")
      ->capture_default_str();
  apply->add_option("--seed", o.apply.seed, "Seed for random parameters")
      ->check(seed_check())
      ->capture_default_str();
  add_plugin_option(*apply, o);
  return apply;
}

int cmd_apply(const Options& options) {
  const auto& o = options.apply;
  const Transform* subject = TransformRegistry::global().find(o.subject);
  if (subject == nullptr) {
    throw UsageError(fmt::format("unknown subject '{}' (known: {})", o.subject,
                                 fmt::join(TransformRegistry::global().names(), ", ")));
  }
  check_output_name(o.output, *subject);
  check_not_an_input({"--output", o.output}, {o.input});
  const auto inventory = DeviceInventory::probe(kDefaultVdevCount);
  const auto target = resolve_device(o.device, inventory);
  if (!target.available()) {
    throw UsageError(fmt::format("--device {}: {}", o.device, target.absent_reason));
  }
  if (const auto install = target.kind().install) install(inventory);
  if (!target.has_values()) {
    throw UsageError("--device meta: meta outputs carry no values to write; use a device with values");
  }

  nlohmann::json given;
  try {
    given = parse_json_value("--params", o.params);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  if (!given.is_object()) throw UsageError("--params must be a JSON object, e.g. '{\"size\":[23,37]}'");

  const auto input = read_npy(o.input);
  const auto& dtypes = subject->info().dtypes;
  if (std::find(dtypes.begin(), dtypes.end(), input.scalar_type()) == dtypes.end()) {
    std::vector<std::string> names;
    for (auto d : dtypes) names.push_back(dtype_name(d));
    throw InputError(fmt::format("{}: dtype {} is not supported by {} (supports: {})", o.input,
                                 dtype_name(input.scalar_type()), o.subject, fmt::join(names, ", ")));
  }

  nlohmann::json params;
  auto gen = at::make_generator<at::CPUGeneratorImpl>(o.seed);
  try {
    params = subject->sample(given, input.sizes(), gen);
  } catch (const FieldError& e) {
    throw UsageError(fmt::format("--params: {}: {}", e.pointer().empty() ? "(object)" : e.pointer(),
                                 e.what()));
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", o.input, e.what()));
  }

  ExecuteOptions run_options;
  run_options.seed = o.seed;
  const auto run = execute(*subject, input, params, *target.device, run_options);
  if (!run.ran) {
    fmt::print(stderr, "devparity: {} failed on {} ({}): {}\n", o.subject, target.resolved_name(),
               failure_kind_name(run.error.kind), run.error.message);
    return 1;
  }
  const auto& output = run.output;
  auto written = nlohmann::json::array({o.output});
  if (subject->info().output == "jpeg" && is_jpeg_path(o.output)) {
    written = write_jpeg_files(o.output, output);
  } else {
    write_npy(o.output, output);
  }

  const nlohmann::json summary = {
      {"subject", o.subject},
      {"device", target.resolved_name()},
      {"params", params},
      {"input", {{"path", o.input}, {"shape", input.sizes().vec()},
                 {"dtype", dtype_name(input.scalar_type())}}},
      {"output", {{"path", o.output}, {"shape", output.sizes().vec()},
                  {"dtype", dtype_name(output.scalar_type())}, {"files", written}}}};
  std::cout << summary.dump() << "\n";
  return 0;
}

}  // namespace devparity::cli
