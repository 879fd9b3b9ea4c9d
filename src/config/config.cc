#include "config/config.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <cpptoml.h>

#include "base/duration.h"

namespace sinkd::config {

namespace {

using Table = std::shared_ptr<cpptoml::table>;

Status Invalid(const std::string& message) {
  return Status::Refuse("INVALID_CONFIG: " + message);
}

Status OnlyKeys(const Table& table, const std::string& where, const std::set<std::string>& keys) {
  for (const auto& [key, value] : *table) {
    if (!keys.count(key)) {
      std::string list;
      for (const std::string& k : keys) list += (list.empty() ? "" : ", ") + k;
      return Invalid(where + ": unknown key \"" + key + "\" (known: " + list + ")");
    }
  }
  return Status::OK();
}

Result<std::string> StringAt(const Table& t, const std::string& key, const std::string& where) {
  auto base = t->get(key);
  auto v = base->as<std::string>();
  if (!v) return Invalid(where + "." + key + " must be a string");
  return v->get();
}

Result<int64_t> IntAt(const Table& t, const std::string& key, const std::string& where,
                      int64_t min, int64_t max) {
  auto v = t->get(key)->as<int64_t>();
  if (!v) return Invalid(where + "." + key + " must be an integer");
  if (v->get() < min || v->get() > max) {
    return Invalid(where + "." + key + " = " + std::to_string(v->get()) + " must be between " +
                   std::to_string(min) + " and " + std::to_string(max));
  }
  return v->get();
}

Result<std::chrono::nanoseconds> DurationAt(const Table& t, const std::string& key,
                                            const std::string& where) {
  SINKD_ASSIGN_OR_RETURN(std::string text, StringAt(t, key, where));
  auto d = ParseDuration(text);
  if (!d.ok()) return Invalid(where + "." + key + ": " + d.status().message());
  if (d->count() <= 0) return Invalid(where + "." + key + " must be more than 0");
  return *d;
}

Status ParsePostgres(const Table& t, Config& config) {
  SINKD_RETURN_IF_ERROR(OnlyKeys(t, "postgres", {"url", "url_env"}));
  if (t->contains("url") == t->contains("url_env")) {
    return Invalid("postgres: give exactly one of url or url_env");
  }
  if (t->contains("url")) {
    SINKD_ASSIGN_OR_RETURN(config.postgres_url, StringAt(t, "url", "postgres"));
    return Status::OK();
  }
  SINKD_ASSIGN_OR_RETURN(std::string name, StringAt(t, "url_env", "postgres"));
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || *value == '\0') {
    return Invalid("postgres.url_env names $" + name + ", which is not set");
  }
  config.postgres_url = value;
  return Status::OK();
}

Status ParseDispatch(const Table& t, DispatchSettings& d) {
  const std::string w = "dispatch";
  SINKD_RETURN_IF_ERROR(OnlyKeys(t, w,
                                 {"batch_size", "poll_interval", "audit_interval", "audit_batch",
                                  "lease_ttl", "deliver_timeout", "metrics_listen", "instance"}));
  if (t->contains("batch_size")) {
    SINKD_ASSIGN_OR_RETURN(int64_t v, IntAt(t, "batch_size", w, 1, 100'000));
    d.batch_size = static_cast<int>(v);
  }
  if (t->contains("audit_batch")) {
    SINKD_ASSIGN_OR_RETURN(int64_t v, IntAt(t, "audit_batch", w, 1, 100'000));
    d.audit_batch = static_cast<int>(v);
  }
  if (t->contains("poll_interval")) {
    SINKD_ASSIGN_OR_RETURN(d.poll_interval, DurationAt(t, "poll_interval", w));
  }
  if (t->contains("audit_interval")) {
    SINKD_ASSIGN_OR_RETURN(d.audit_interval, DurationAt(t, "audit_interval", w));
  }
  if (t->contains("lease_ttl")) {
    SINKD_ASSIGN_OR_RETURN(d.lease_ttl, DurationAt(t, "lease_ttl", w));
    if (d.lease_ttl < std::chrono::seconds(1)) return Invalid("dispatch.lease_ttl must be >= 1s");
  }
  if (t->contains("deliver_timeout")) {
    SINKD_ASSIGN_OR_RETURN(d.deliver_timeout, DurationAt(t, "deliver_timeout", w));
  }
  if (t->contains("metrics_listen")) {
    SINKD_ASSIGN_OR_RETURN(d.metrics_listen, StringAt(t, "metrics_listen", w));
  }
  if (t->contains("instance")) {
    SINKD_ASSIGN_OR_RETURN(d.instance, StringAt(t, "instance", w));
  }
  return Status::OK();
}

Result<SinkConfig> ParseSink(const Table& t, const std::string& kind, size_t index) {
  SinkConfig sink;
  sink.kind = kind;
  sink.index = index;
  const std::string where = "sinks." + kind + "[" + std::to_string(index) + "]";
  if (!t->contains("id")) return Invalid(where + " has no id; every sink needs a non-empty id");
  SINKD_ASSIGN_OR_RETURN(sink.id, StringAt(t, "id", where));
  if (!t->contains("type")) return Invalid(sink.Where() + " has no type (lake, jetstream, …)");
  SINKD_ASSIGN_OR_RETURN(sink.type, StringAt(t, "type", where));
  for (const auto& [key, base] : *t) {
    if (key == "id" || key == "type") continue;
    if (auto s = base->as<std::string>()) {
      sink.options[key] = s->get();
    } else if (auto i = base->as<int64_t>()) {
      sink.options[key] = i->get();
    } else if (auto b = base->as<bool>()) {
      sink.options[key] = b->get();
    } else {
      return Invalid(sink.Where() + "." + key + ": only strings, integers and booleans are options");
    }
  }
  return sink;
}

Status ParseSinkList(const Table& sinks, const std::string& kind, std::vector<SinkConfig>& out) {
  if (!sinks->contains(kind)) return Status::OK();
  auto list = sinks->get_table_array(kind);
  if (!list) return Invalid("sinks." + kind + " must be an array of tables ([[sinks." + kind + "]])");
  std::set<std::string> ids;
  size_t index = 0;
  for (const Table& t : *list) {
    SINKD_ASSIGN_OR_RETURN(SinkConfig sink, ParseSink(t, kind, index++));
    if (sink.id.empty()) {
      return Invalid(sink.Where() + " has an empty id; every sink needs a non-empty id");
    }
    if (!ids.insert(sink.id).second) {
      return Invalid("two " + kind + " sinks have the id \"" + sink.id +
                     "\"; ids must be unique, since the id names the sink's cursor");
    }
    out.push_back(std::move(sink));
  }
  return Status::OK();
}

Status ParseSinks(const Table& sinks, Config& config) {
  SINKD_RETURN_IF_ERROR(OnlyKeys(sinks, "sinks", {"events", "audit", "usage"}));
  if (sinks->contains("usage")) {
    auto usage = sinks->get("usage");
    const bool empty = (usage->is_array() && usage->as_array()->get().empty()) ||
                       (usage->is_table_array() && usage->as_table_array()->get().empty());
    if (!empty) {
      return Invalid("sinks.usage: a usage sink is refused; usage windows go to billing through "
                     "the IAM bridge, which owns the single recorded_at flush");
    }
  }
  SINKD_RETURN_IF_ERROR(ParseSinkList(sinks, "events", config.event_sinks));
  return ParseSinkList(sinks, "audit", config.audit_sinks);
}

}  // namespace

std::string SinkConfig::Where() const {
  return "sinks." + kind + "[" + std::to_string(index) + "] (id \"" + id + "\")";
}

Result<Config> ParseConfig(std::string_view text, std::string_view origin) {
  Table root;
  {
    // cpptoml reports syntax errors by throwing; this is the one place they are caught, and they
    // leave as a Status like every other refusal.
    std::istringstream in{std::string(text)};
    try {
      cpptoml::parser parser(in);
      root = parser.parse();
    } catch (const cpptoml::parse_exception& e) {
      return Invalid(std::string(origin) + ": " + e.what());
    }
  }
  Config config;
  SINKD_RETURN_IF_ERROR(OnlyKeys(root, std::string(origin), {"postgres", "dispatch", "sinks"}));
  for (const char* name : {"postgres", "dispatch", "sinks"}) {
    if (root->contains(name) && !root->get_table(name)) {
      return Invalid(std::string(name) + " must be a table ([" + name + "])");
    }
  }
  if (!root->contains("postgres")) return Invalid("no [postgres] table with the database url");
  SINKD_RETURN_IF_ERROR(ParsePostgres(root->get_table("postgres"), config));
  if (root->contains("dispatch")) {
    SINKD_RETURN_IF_ERROR(ParseDispatch(root->get_table("dispatch"), config.dispatch));
  }
  if (root->contains("sinks")) SINKD_RETURN_IF_ERROR(ParseSinks(root->get_table("sinks"), config));
  return config;
}

Result<Config> LoadConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Refuse("INVALID_CONFIG: cannot read the config file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseConfig(ss.str(), path);
}

Status OptionReader::Wrong(const std::string& key, const char* want) const {
  return Invalid(sink_.Where() + ": option " + key + " must be " + want);
}

Result<std::string> OptionReader::String(const std::string& key, std::string fallback) {
  read_.insert(key);
  auto it = sink_.options.find(key);
  if (it == sink_.options.end()) return fallback;
  if (auto* s = std::get_if<std::string>(&it->second)) return *s;
  return Wrong(key, "a string");
}

Result<std::string> OptionReader::RequiredString(const std::string& key) {
  read_.insert(key);
  auto it = sink_.options.find(key);
  if (it == sink_.options.end()) return Invalid(sink_.Where() + " needs the option " + key);
  auto* s = std::get_if<std::string>(&it->second);
  if (s == nullptr || s->empty()) return Wrong(key, "a non-empty string");
  return *s;
}

Result<int64_t> OptionReader::Int(const std::string& key, int64_t fallback, int64_t min,
                                  int64_t max) {
  read_.insert(key);
  auto it = sink_.options.find(key);
  if (it == sink_.options.end()) return fallback;
  auto* i = std::get_if<int64_t>(&it->second);
  if (i == nullptr) return Wrong(key, "an integer");
  if (*i < min || *i > max) {
    return Invalid(sink_.Where() + ": option " + key + " = " + std::to_string(*i) +
                   " must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return *i;
}

Result<bool> OptionReader::Bool(const std::string& key, bool fallback) {
  read_.insert(key);
  auto it = sink_.options.find(key);
  if (it == sink_.options.end()) return fallback;
  if (auto* b = std::get_if<bool>(&it->second)) return *b;
  return Wrong(key, "true or false");
}

Status OptionReader::Done() const {
  for (const auto& [key, value] : sink_.options) {
    if (!read_.count(key)) {
      return Invalid(sink_.Where() + ": unknown option \"" + key + "\" for type " + sink_.type);
    }
  }
  return Status::OK();
}

}  // namespace sinkd::config
