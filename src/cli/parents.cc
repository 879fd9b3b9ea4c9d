#include <algorithm>
#include <string_view>
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

// Optimal string alignment distance: inserting, deleting or replacing a character, or swapping
// two neighbours ("drian" for "drain"), costs one each.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The candidate a typo of `word` most likely meant: the nearest one, at most one edit away for a
// word of up to four letters and two for a longer one (further than that is a different word,
// and a wrong guess sends the operator to the wrong flag). "" when none is that close.
std::string Closest(std::string_view word, const std::vector<std::string>& candidates) {
  const size_t letters = word.size() - std::min(word.find_first_not_of('-'), word.size());
  const size_t limit = letters <= 4 ? 1 : 2;
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

// `, did you mean "x"?` when `word` looks like a typo of one of `candidates`, else "".
std::string Suggestion(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string closest = Closest(word, candidates);
  return closest.empty() ? "" : "; did you mean \"" + closest + "\"?";
}

std::vector<std::string> SubcommandNames(CLI::App& app) {
  std::vector<std::string> names;
  for (CLI::App* sub : app.get_subcommands([](CLI::App* s) { return !s->get_group().empty(); })) {
    names.push_back(sub->get_name());
  }
  return names;
}

std::string SubcommandList(CLI::App& app) {
  std::vector<std::string> names = SubcommandNames(app);
  std::sort(names.begin(), names.end());
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

// "--name" for every long flag of `app` (help and version included).
std::vector<std::string> FlagNames(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

// An unknown word on `app`'s command line, with a guess at what was meant: a flag ("--gracee",
// "--gracee=1h") among its flags, another word among its subcommands.
std::string UnknownWord(CLI::App& app, const std::string& word) {
  if (word.rfind("-", 0) == 0) {
    return Suggestion(word.substr(0, word.find('=')), FlagNames(app));
  }
  return Suggestion(word, SubcommandNames(app));
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
        return Status::Refuse("unknown argument \"" + extras.front() + "\"" +
                              UnknownWord(*app, extras.front()) + " (see " + CommandPath(*app) +
                              " --help)");
      }
      return Status::OK();
    }
    if (chosen.empty()) {
      const std::vector<std::string> extras = app->remaining();
      if (!extras.empty()) {
        const std::string& word = extras.front();
        if (word.rfind("-", 0) == 0) {
          return Status::Refuse("unknown argument \"" + word + "\"" + UnknownWord(*app, word) +
                                " (see " + CommandPath(*app) + " --help)");
        }
        const std::string guess = UnknownWord(*app, word);
        return Status::Refuse("unknown " + app->get_name() + " subcommand \"" + word + "\"" +
                              (guess.empty() ? "; expected one of: " + SubcommandList(*app)
                                             : guess + " (expected one of: " +
                                                   SubcommandList(*app) + ")"));
      }
      return Status::Refuse(CommandPath(*app) + " needs a subcommand: " + SubcommandList(*app));
    }
    app = chosen.front();
  }
}

}  // namespace sinkd::cli
