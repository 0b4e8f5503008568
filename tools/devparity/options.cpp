#include "tools/devparity/options.h"

#include "tools/devparity/commands.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>

namespace devparity::cli {

std::string default_suite_path() {
  const std::string relative = "cases/default.json";
  if (std::filesystem::exists(relative)) return relative;
#ifdef DEVPARITY_SOURCE_DIR
  const std::string built_from = std::string(DEVPARITY_SOURCE_DIR) + "/" + relative;
  if (std::filesystem::exists(built_from)) return built_from;
#endif
  // Installed: <prefix>/bin/devparity and <prefix>/share/devparity/cases/.
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share/devparity" / relative;
    if (std::filesystem::exists(installed)) return installed.string();
  }
  return relative;
}

void add_plugin_option(CLI::App& command, Options& o) {
  command.add_option("--plugin", o.plugins,
                     "Shared library to load first (repeatable): it registers transforms or custom operators");
}

CLI::Validator seconds_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        // Past a bound the deadline's clock arithmetic overflows (1e300 s).
        if (text.empty() || *end != '\0' || !std::isfinite(value) || value <= 0 || value > kMaxSeconds) {
          return fmt::format("expected a number of seconds above 0, up to {:.0f} (30 days), got '{}'", kMaxSeconds,
                             text);
        }
        return "";
      },
      "SECONDS");
}

CLI::Validator progress_period_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(value) || value < 0 || value > kMaxProgressPeriodS) {
          return fmt::format("expected 0 (no progress lines) or a number of seconds up to {:g} (a day), got '{}'",
                             kMaxProgressPeriodS, text);
        }
        // A line per microsecond would fill a disk: tiny periods are the floor.
        if (value > 0 && value < kMinProgressPeriodS) text = fmt::format("{:g}", kMinProgressPeriodS);
        return "";
      },
      "SECONDS");
}

CLI::Validator number_check(double min, double max) {
  const auto range =
      std::isinf(max) ? fmt::format("{:.15g} or more", min) : fmt::format("from {:.15g} to {:.15g}", min, max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(value) || value < min || value > max) {
          return fmt::format("expected a number {}, got '{}'", range, text);
        }
        return "";
      },
      "NUMBER");
}

CLI::Validator whole_number_check(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        int64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
          return fmt::format("expected a whole number from {} to {}, got '{}'", min, max, text);
        }
        return "";
      },
      "INT");
}

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
          return fmt::format("expected a whole number from 0 to 18446744073709551615, got '{}'", text);
        }
        return "";
      },
      "SEED");
}

namespace {

// The words for an option's bad value that came from its environment
// variable, which the user cannot find on the command line: the variable
// and its value, then `why`. `why(option, "--name", value)` judges each set
// variable of the subcommands (the parsed ones only, or all).
std::optional<std::string> from_environment(
    const CLI::App& app, bool parsed_only,
    const std::function<std::optional<std::string>(const CLI::Option&, const std::string&, const char*)>& why) {
  const auto commands = parsed_only ? app.get_subcommands([](const CLI::App* c) { return c->parsed(); })
                                    : app.get_subcommands([](const CLI::App*) { return true; });
  for (const auto* command : commands) {
    for (const auto* option : command->get_options()) {
      const auto variable = option->get_envname();
      const char* value = variable.empty() ? nullptr : std::getenv(variable.c_str());
      if (value == nullptr || *value == '\0' || option->get_lnames().empty()) continue;
      const auto name = "--" + option->get_lnames().front();
      if (const auto said = why(*option, name, value)) {
        return fmt::format("{}={} (the environment's value for {}): {}", variable, value, name, *said);
      }
    }
  }
  return std::nullopt;
}

// CLI11 2.3 refuses such a value naming only the option: its error, when the
// option was not typed.
std::optional<std::string> refused_from_environment(const CLI::App& app, const CLI::ParseError& e,
                                                    const std::vector<std::string>& argv) {
  const std::string what = e.what();
  return from_environment(app, false, [&](const CLI::Option&, const std::string& name, const char*) {
    const bool typed = std::any_of(argv.begin(), argv.end(), [&](const std::string& a) {
      return a == name || a.rfind(name + "=", 0) == 0;
    });
    if (typed || what.rfind(name + ": ", 0) != 0) return std::optional<std::string>();
    return std::optional<std::string>(what.substr(name.size() + 2));
  });
}

// CLI11 2.4 (trixie) drops such a value silently: the option then has no
// value though its variable is set. Refused here, in its validator's words.
std::optional<std::string> dropped_from_environment(const CLI::App& app) {
  return from_environment(app, true, [](const CLI::Option& option, const std::string&, const char* value) {
    if (option.count() > 0) return std::optional<std::string>();
    auto& checked = const_cast<CLI::Option&>(option);  // get_validator() is not const
    for (int i = 0;; ++i) {
      const CLI::Validator* check = nullptr;
      try {
        check = checked.get_validator(i);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
      std::string text = value;
      if (auto said = (*check)(text); !said.empty()) return std::optional<std::string>(said);
    }
    return std::optional<std::string>("not accepted");
  });
}

}  // namespace

std::optional<int> parse_command_line(int argc, char** argv, const std::vector<Command>& table, Options& o) {
  for (int i = 0; i < argc; ++i) o.argv.emplace_back(argv[i]);

  CLI::App app{"devparity: proves image transforms give the same answer on every device, and "
               "says why when they don't.\nExit codes: 0 all checks passed, 1 a check failed, "
               "2 bad usage or bad input, 3 internal error."};
  app.name("devparity");
  app.set_version_flag("--version", std::string("devparity ") + DEVPARITY_VERSION);
  app.require_subcommand(1);

  std::vector<std::pair<CLI::App*, const Command*>> subcommands;
  for (const auto& command : table) subcommands.emplace_back(command.add(app, o), &command);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (const auto named = refused_from_environment(app, e, o.argv)) {
      std::cerr << *named << "\nRun with --help for more information.\n";
      return 2;
    }
    app.exit(e, std::cout, std::cerr);
    return 2;
  }
  if (const auto dropped = dropped_from_environment(app)) {
    std::cerr << *dropped << "\nRun with --help for more information.\n";
    return 2;
  }
  for (const auto& [app_of, command] : subcommands) {
    if (app_of->parsed()) o.command = command->name;
  }
  return std::nullopt;
}

}  // namespace devparity::cli
