#include "typo_hint.hpp"

#include <algorithm>

namespace simphant::cli {

namespace {

/// The long option names ("--name") of an app.
std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options())
    for (const std::string& l : o->get_lnames()) out.push_back("--" + l);
  return out;
}

}  // namespace

std::vector<std::string> typo_hints(const CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> hints, names;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(s->get_name());
  const CLI::App* sub = nullptr;
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
      const std::string name = arg.substr(0, arg.find('='));
      std::vector<std::string> known = long_options(app);
      if (sub != nullptr) {
        const std::vector<std::string> more = long_options(*sub);
        known.insert(known.end(), more.begin(), more.end());
      }
      if (std::find(known.begin(), known.end(), name) != known.end()) {
        // An option that takes a value given as the next argument: that is not a subcommand.
        const CLI::Option* o = sub ? sub->get_option_no_throw(name) : nullptr;
        if (o == nullptr) o = app.get_option_no_throw(name);
        if (o != nullptr && o->get_items_expected_min() > 0 && arg.find('=') == std::string::npos) ++k;
        continue;
      }
      const std::string near = nearest_name(name, known);
      if (!near.empty())
        hints.push_back("'" + name + "' is not an option" + (sub ? " of '" + sub->get_name() + "'" : std::string()) +
                        "; did you mean '" + near + "'?");
      continue;
    }
    if (sub != nullptr || arg.empty() || arg[0] == '-') continue;
    // The first argument that is not an option names the subcommand.
    if (std::find(names.begin(), names.end(), arg) != names.end()) {
      sub = app.get_subcommand(arg);
      if (sub->get_allow_extras()) break;  // its arguments belong to another program
      continue;
    }
    const std::string near = nearest_name(arg, names);
    if (!near.empty()) hints.push_back("'" + arg + "' is not a subcommand; did you mean '" + near + "'?");
    break;
  }
  return hints;
}

}  // namespace simphant::cli
