#pragma once
/// Registering a reporter from user code: register_reporter(), or
/// DEVPARITY_REGISTER_REPORTER(name, description, Type), which registers a
/// factory of `Type` (a devparity::RunListener constructible from
/// `const ReporterOptions&`) at static-initialisation time, in an executable,
/// an OBJECT library or a plugin (docs/extending.md).

#include "harness/base/registration.h"
#include "harness/reporters/reporter_registry.h"

#include <memory>
#include <string>

namespace devparity {

/// Adds a reporter to the process-wide registry. Never throws: a problem (a
/// name taken or not an identifier) is recorded and returned as false.
bool register_reporter(const std::string& name, const std::string& description, ReporterFactory factory) noexcept;

}  // namespace devparity

#define DEVPARITY_REGISTER_REPORTER(name, description, Type)                                           \
  DEVPARITY_REGISTER_AT_STARTUP(::devparity::register_reporter(                                        \
      name, description, [](const ::devparity::ReporterOptions& options) {                             \
        return std::unique_ptr<::devparity::RunListener>(std::make_unique<Type>(options));             \
      }))
