//===- CommandLine.h - Options of a tool that links no LLVM -----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// orchestra-run links only the runtime, so it parses its command line with
// this small parser instead of llvm::cl, in the same conventions: options
// spelled `-name` or `--name`, values as `--name=VALUE` or `--name VALUE`,
// repeatable list options, one positional argument, and `--help` /
// `--version`.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TOOLS_ORCHESTRA_RUN_COMMANDLINE_H
#define ORCHESTRA_TOOLS_ORCHESTRA_RUN_COMMANDLINE_H

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace orchestra {

class CommandLine {
public:
  CommandLine(std::string tool, std::string overview, std::string positional)
      : tool(std::move(tool)), overview(std::move(overview)),
        positional(std::move(positional)) {}

  /// A flag: `--name`. With `optionalValue` (e.g. "json") it also takes
  /// `--name=VALUE`, stored in `*value` (empty for the bare flag).
  void flag(const std::string &name, const std::string &help, bool *out,
            std::string *value = nullptr,
            const std::string &optionalValue = {}) {
    options.push_back({name, help, optionalValue, out, value, nullptr, true});
  }
  /// An option with a value: `--name=VALUE`; `valueName` shows in the help.
  void option(const std::string &name, const std::string &valueName,
              const std::string &help, std::string *out) {
    options.push_back({name, help, valueName, nullptr, out, nullptr, false});
  }
  /// A repeatable option with a value.
  void list(const std::string &name, const std::string &valueName,
            const std::string &help, std::vector<std::string> *out) {
    options.push_back({name, help, valueName, nullptr, nullptr, out, false});
  }

  /// Parses `argv`; on `--help` or `--version` prints and exits 0, on an
  /// error prints it and exits 1. `version` is what `--version` prints.
  void parse(int argc, char **argv, std::string &positionalOut,
             const std::string &version) {
    bool havePositional = false;
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg.size() < 2 || arg[0] != '-') {
        if (havePositional)
          fail("too many positional arguments: '" + arg + "' after '" +
               positionalOut + "'");
        positionalOut = arg;
        havePositional = true;
        continue;
      }
      std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
      std::string name = body, value;
      size_t equals = body.find('=');
      bool hasValue = equals != std::string::npos;
      if (hasValue) {
        name = body.substr(0, equals);
        value = body.substr(equals + 1);
      }
      if (name == "help") {
        printHelp();
        std::exit(0);
      }
      if (name == "version") {
        std::cout << version << "\n";
        std::exit(0);
      }
      Option *option = find(name);
      if (!option)
        fail("unknown option '" + arg + "'");
      if (option->isFlag) {
        if (hasValue &&
            (option->value == nullptr || option->valueName.empty() ||
             value != option->valueName))
          fail("option '--" + name + "' takes no value" +
               (option->valueName.empty()
                    ? std::string()
                    : " other than '" + option->valueName + "'"));
        *option->flagOut = true;
        if (option->value)
          *option->value = value;
        continue;
      }
      if (!hasValue) {
        if (i + 1 >= argc)
          fail("option '--" + name + "' needs a value (--" + name + "=" +
               option->valueName + ")");
        value = argv[++i];
      }
      if (option->listOut)
        option->listOut->push_back(value);
      else
        *option->value = value;
    }
    if (!havePositional)
      fail("no " + positional + " given");
  }

private:
  struct Option {
    std::string name, help, valueName;
    bool *flagOut;
    std::string *value;
    std::vector<std::string> *listOut;
    bool isFlag;
  };

  Option *find(const std::string &name) {
    for (Option &option : options)
      if (option.name == name)
        return &option;
    return nullptr;
  }

  [[noreturn]] void fail(const std::string &message) const {
    std::cerr << tool << ": error: " << message << " (see '" << tool
              << " --help')\n";
    std::exit(1);
  }

  void printHelp() const {
    std::cout << "OVERVIEW: " << overview << "\n\nUSAGE: " << tool
              << " [options] " << positional << "\n\nOPTIONS:\n";
    auto spelling = [](const Option &option) {
      std::string text = "--" + option.name;
      if (option.isFlag)
        return option.valueName.empty() ? text
                                        : text + "[=" + option.valueName + "]";
      return text + "=<" + option.valueName + ">";
    };
    size_t width = std::string("--version").size();
    for (const Option &option : options)
      width = std::max(width, spelling(option).size());
    auto line = [&](const std::string &left, const std::string &help) {
      std::cout << "  " << left << std::string(width - left.size() + 2, ' ')
                << "- " << help << "\n";
    };
    for (const Option &option : options)
      line(spelling(option), option.help);
    line("--help", "Display this list of options");
    line("--version", "Display the version of this program");
  }

  std::string tool, overview, positional;
  std::vector<Option> options;
};

} // namespace orchestra

#endif // ORCHESTRA_TOOLS_ORCHESTRA_RUN_COMMANDLINE_H
