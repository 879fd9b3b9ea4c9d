#include <algorithm>
#include <vector>

#include "cli/command.h"

namespace sinkd::cli {

CLI::App* AddParent(CLI::App& parent, const std::string& name, const std::string& description) {
  CLI::App* app = parent.add_subcommand(name, description);
  // Extras are kept so CheckParents can name an unknown subcommand instead of CLI11's
  // generic "arguments were not expected".
  app->allow_extras();
  return app;
}

namespace {

std::string SubcommandList(CLI::App& app) {
  std::vector<std::string> names;
  for (CLI::App* sub : app.get_subcommands([](CLI::App* s) { return !s->get_group().empty(); })) {
    names.push_back(sub->get_name());
  }
  std::sort(names.begin(), names.end());
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

std::string CommandPath(CLI::App& app) {
  std::string path = app.get_name();
  for (CLI::App* p = app.get_parent(); p != nullptr; p = p->get_parent()) {
    path = p->get_name() + " " + path;
  }
  return path;
}

}  // namespace

Status CheckParents(CLI::App& root) {
  CLI::App* app = &root;
  while (true) {
    std::vector<CLI::App*> chosen = app->get_subcommands();
    const bool is_parent =
        !app->get_subcommands([](CLI::App*) { return true; }).empty();
    if (!is_parent) {
      const std::vector<std::string> extras = app->remaining();
      if (!extras.empty()) {
        return Status::Refuse("unknown argument \"" + extras.front() +
                              "\" (see " + CommandPath(*app) + " --help)");
      }
      return Status::OK();
    }
    if (chosen.empty()) {
      const std::vector<std::string> extras = app->remaining();
      if (!extras.empty()) {
        return Status::Refuse("unknown " + app->get_name() + " subcommand \"" + extras.front() +
                              "\"; expected one of: " + SubcommandList(*app));
      }
      return Status::Refuse(CommandPath(*app) + " needs a subcommand: " + SubcommandList(*app));
    }
    app = chosen.front();
  }
}

}  // namespace sinkd::cli
