#include "config/config.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "base/duration.h"
#include "base/size.h"

namespace sinkd::config {

namespace {

using K = SettingKind;

std::vector<SettingSpec> BuildSettings() {
  std::vector<SettingSpec> s = {
      {"nats.url", K::kString, false},
      {"nats.creds_file", K::kString, false},
      {"nats.nkey_seed_file", K::kString, false},
      {"nats.tls_ca", K::kString, false},
      {"nats.tls_cert", K::kString, false},
      {"nats.tls_key", K::kString, false},
      {"nats.tls_required", K::kBoolean, false},
      {"nats.use_discovered_servers", K::kBoolean, false},
      {"nats.connect_timeout", K::kString, false},
      {"lake.dir", K::kString, false},
      {"lake.s3_endpoint", K::kString, false},
      {"lake.s3_bucket", K::kString, false},
      {"lake.s3_ssl", K::kBoolean, false},
      {"lake.s3_anonymous", K::kBoolean, false},
      {"lake.s3_virtual_hosted", K::kBoolean, false},
      {"lake.s3_no_create_bucket", K::kBoolean, false},
      {"lake.s3_ca_bundle", K::kString, false},
      {"lake.s3_multipart_threshold", K::kSize, false},
      {"lake.s3_retry_attempts", K::kInteger, false},
      {"lake.s3_retry_max_backoff", K::kString, false},
      {"lake.s3_request_timeout", K::kString, false},
      {"lake.s3_unsafe_unconditional", K::kBoolean, false},
      {"lake.instance_id", K::kString, false},
      {"lake.zstd_level", K::kInteger, false},
      {"lake.row_group_rows", K::kInteger, false},
      {"lake.encode_threads", K::kInteger, false},
      {"lake.table_format", K::kString, false},
  };
  for (const char* origin : {"ledger", "audit"}) {
    const std::string d = std::string("drain.") + origin + ".";
    for (auto [key, kind] : std::initializer_list<std::pair<const char*, K>>{
             {"durable", K::kString},        {"key_prefix", K::kString},
             {"batch_max_rows", K::kInteger}, {"batch_max_bytes", K::kSize},
             {"batch_interval", K::kString}, {"fetch_max", K::kInteger},
             {"flush_timeout", K::kString},  {"ack_wait", K::kString},
             {"max_ack_pending", K::kInteger}, {"metrics_listen", K::kString},
             {"max_partitions_per_flush", K::kInteger}}) {
      s.push_back({d + key, kind, false});
    }
  }
  for (SettingSpec spec : std::initializer_list<SettingSpec>{
           {"provision.ledger_max_bytes", K::kSize, false},
           {"provision.audit_max_bytes", K::kSize, false},
           {"provision.dead_max_bytes", K::kSize, false},
           {"provision.ledger_max_age", K::kString, false},
           {"provision.replicas", K::kInteger, false},
           {"compaction.target_bytes", K::kSize, false},
           {"compaction.min_parts", K::kInteger, false},
           {"compaction.merge_lanes", K::kInteger, false},
           {"compaction.settle", K::kString, false},
           {"compaction.grace", K::kString, false},
           {"compaction.follow", K::kBoolean, false},
           {"compaction.every", K::kString, false},
           {"compaction.metrics_listen", K::kString, false},
           {"compaction.metrics_textfile", K::kString, false},
           {"iceberg.expire_older_than", K::kString, false},
           {"iceberg.expire_retain_last", K::kInteger, false},
           {"iceberg.previous_versions_max", K::kInteger, false},
           {"iceberg.orphans_older_than", K::kString, false},
           {"iceberg.orphans_delete", K::kBoolean, false},
           {"iceberg.catalog", K::kString, false},
           {"iceberg.catalog_url", K::kString, true},
           {"iceberg.namespace", K::kString, false},
           {"metrics.listen", K::kString, false},
           {"log.level", K::kString, false},
           {"log.format", K::kString, false},
           {"postgres.url", K::kString, true},
           {"postgres.url_env", K::kString, false},
           {"dispatch.batch_size", K::kInteger, false},
           {"dispatch.poll_interval", K::kString, false},
           {"dispatch.audit_interval", K::kString, false},
           {"dispatch.audit_batch", K::kInteger, false},
           {"dispatch.lease_ttl", K::kString, false},
           {"dispatch.deliver_timeout", K::kString, false},
           {"dispatch.metrics_listen", K::kString, false},
           {"dispatch.instance", K::kString, false}}) {
    s.push_back(spec);
  }
  return s;
}

// The tables that hold settings (the parents of FileSettings() keys).
const std::set<std::string>& Sections() {
  static const std::set<std::string> sections = [] {
    std::set<std::string> out;
    for (const SettingSpec& spec : FileSettings()) {
      std::string key = spec.key;
      for (size_t dot = key.rfind('.'); dot != std::string::npos; dot = key.rfind('.')) {
        key.resize(dot);
        out.insert(key);
      }
    }
    return out;
  }();
  return sections;
}

Status Invalid(const std::string& message) {
  return Status::Refuse("INVALID_CONFIG: " + message);
}

std::string Where(const std::string& origin, const toml::source_region& r) {
  return origin + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column);
}

std::string KnownIn(const std::string& section) {
  std::string list;
  const std::string prefix = section.empty() ? "" : section + ".";
  std::set<std::string> names;
  for (const SettingSpec& spec : FileSettings()) {
    if (spec.key.rfind(prefix, 0) != 0) continue;
    const std::string rest = spec.key.substr(prefix.size());
    names.insert(rest.substr(0, rest.find('.')));
  }
  if (section.empty()) names.insert("sinks");
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

const char* KindName(K kind) {
  switch (kind) {
    case K::kString: return "a string";
    case K::kInteger: return "an integer";
    case K::kBoolean: return "true or false";
    case K::kSize: return "a size: an integer of bytes, or a string such as \"256MiB\"";
  }
  return "?";
}

// One key of a settings table (a section recurses).
Status WalkKey(const toml::key& k, const toml::node& node, const std::string& section,
               const std::string& origin, Config& config, std::vector<std::string>* problems);

// Walks the settings tables: every key must be a FileSettings() key of the right kind, and is
// recorded with where it was; [[sinks.*]] are left to ParseSinks. With `problems`, a refused key
// is named there (without the INVALID_CONFIG tag) and left out, and the walk goes on.
Status Walk(const toml::table& table, const std::string& section, const std::string& origin,
            Config& config, std::vector<std::string>* problems) {
  for (auto&& [k, node] : table) {
    const Status walked = WalkKey(k, node, section, origin, config, problems);
    if (walked.ok()) continue;
    if (problems == nullptr) return walked;
    problems->push_back(walked.message().substr(std::string_view("INVALID_CONFIG: ").size()));
  }
  return Status::OK();
}

Status WalkKey(const toml::key& k, const toml::node& node, const std::string& section,
               const std::string& origin, Config& config, std::vector<std::string>* problems) {
  const std::string name = section.empty() ? std::string(k.str()) : section + "." + std::string(k.str());
  const std::string at = Where(origin, k.source());
  if (section.empty() && k.str() == "sinks") {
    if (!node.is_table()) return Invalid(at + ": sinks must be a table ([[sinks.events]], …)");
    return Status::OK();
  }
  if (Sections().count(name)) {
    if (!node.is_table()) return Invalid(at + ": " + name + " must be a table ([" + name + "])");
    return Walk(*node.as_table(), name, origin, config, problems);
  }
  const SettingSpec* spec = FindSetting(name);
  if (spec == nullptr) {
    return Invalid(at + ": unknown key \"" + std::string(k.str()) + "\"" +
                   (section.empty() ? "" : " in [" + section + "]") + " (known: " +
                   KnownIn(section) + ")");
  }
  FileSetting setting;
  setting.where = Where(origin, node.source());
  bool right = false;
  switch (spec->kind) {
    case K::kString:
      if (auto* v = node.as_string()) setting.text = v->get(), right = true;
      break;
    case K::kInteger:
      if (auto* v = node.as_integer()) setting.text = std::to_string(v->get()), right = true;
      break;
    case K::kBoolean:
      if (auto* v = node.as_boolean()) setting.text = v->get() ? "true" : "false", right = true;
      break;
    case K::kSize:
      if (auto* v = node.as_integer()) {
        setting.text = std::to_string(v->get());
        right = v->get() >= 0;
      } else if (auto* v = node.as_string()) {
        setting.text = v->get();
        const Result<uint64_t> size = ParseSize(setting.text);
        if (!size.ok()) {
          return Invalid(setting.where + ": " + name + ": " + size.status().message());
        }
        right = true;
      }
      break;
  }
  if (!right) return Invalid(setting.where + ": " + name + " must be " + KindName(spec->kind));
  config.settings[name] = std::move(setting);
  return Status::OK();
}

Result<int64_t> IntSetting(const Config& c, const std::string& key, int64_t min, int64_t max) {
  const FileSetting& s = c.settings.at(key);
  const int64_t v = std::stoll(s.text);
  if (v < min || v > max) {
    return Invalid(s.where + ": " + key + " = " + s.text + " must be between " +
                   std::to_string(min) + " and " + std::to_string(max));
  }
  return v;
}

Result<std::chrono::nanoseconds> DurationSetting(const Config& c, const std::string& key) {
  const FileSetting& s = c.settings.at(key);
  auto d = ParseDuration(s.text);
  if (!d.ok()) return Invalid(s.where + ": " + key + ": " + d.status().message());
  if (d->count() <= 0) return Invalid(s.where + ": " + key + " must be more than 0");
  return *d;
}

Status ParsePostgres(Config& config) {
  const bool url = config.settings.count("postgres.url") > 0;
  const bool url_env = config.settings.count("postgres.url_env") > 0;
  if (url == url_env) return Invalid("postgres: give exactly one of url or url_env");
  if (url) {
    config.postgres_url = config.settings.at("postgres.url").text;
    return Status::OK();
  }
  const FileSetting& s = config.settings.at("postgres.url_env");
  const char* value = std::getenv(s.text.c_str());
  if (value == nullptr || *value == '\0') {
    return Invalid(s.where + ": postgres.url_env names $" + s.text + ", which is not set");
  }
  config.postgres_url = value;
  return Status::OK();
}

Status ParseDispatch(Config& c) {
  DispatchSettings& d = c.dispatch;
  auto has = [&](const char* key) { return c.settings.count(std::string("dispatch.") + key) > 0; };
  if (has("batch_size")) {
    SINKD_ASSIGN_OR_RETURN(int64_t v, IntSetting(c, "dispatch.batch_size", 1, 100'000));
    d.batch_size = static_cast<int>(v);
  }
  if (has("audit_batch")) {
    SINKD_ASSIGN_OR_RETURN(int64_t v, IntSetting(c, "dispatch.audit_batch", 1, 100'000));
    d.audit_batch = static_cast<int>(v);
  }
  if (has("poll_interval")) {
    SINKD_ASSIGN_OR_RETURN(d.poll_interval, DurationSetting(c, "dispatch.poll_interval"));
  }
  if (has("audit_interval")) {
    SINKD_ASSIGN_OR_RETURN(d.audit_interval, DurationSetting(c, "dispatch.audit_interval"));
  }
  if (has("lease_ttl")) {
    SINKD_ASSIGN_OR_RETURN(d.lease_ttl, DurationSetting(c, "dispatch.lease_ttl"));
    if (d.lease_ttl < std::chrono::seconds(1)) {
      return Invalid(c.settings.at("dispatch.lease_ttl").where + ": dispatch.lease_ttl must be >= 1s");
    }
  }
  if (has("deliver_timeout")) {
    SINKD_ASSIGN_OR_RETURN(d.deliver_timeout, DurationSetting(c, "dispatch.deliver_timeout"));
  }
  if (has("metrics_listen")) d.metrics_listen = c.settings.at("dispatch.metrics_listen").text;
  if (has("instance")) d.instance = c.settings.at("dispatch.instance").text;
  return Status::OK();
}

Result<SinkConfig> ParseSink(const toml::table& t, const std::string& kind, size_t index,
                             const std::string& origin) {
  SinkConfig sink;
  sink.kind = kind;
  sink.index = index;
  const std::string where = Where(origin, t.source()) + ": sinks." + kind + "[" +
                            std::to_string(index) + "]";
  const toml::node* id = t.get("id");
  if (id == nullptr) return Invalid(where + " has no id; every sink needs a non-empty id");
  if (!id->is_string()) return Invalid(where + ".id must be a string");
  sink.id = id->as_string()->get();
  const toml::node* type = t.get("type");
  if (type == nullptr) {
    return Invalid(Where(origin, t.source()) + ": " + sink.Where() + " has no type (lake, jetstream, …)");
  }
  if (!type->is_string()) return Invalid(where + ".type must be a string");
  sink.type = type->as_string()->get();
  for (auto&& [key, node] : t) {
    if (key.str() == "id" || key.str() == "type") continue;
    const std::string name(key.str());
    if (auto* s = node.as_string()) {
      sink.options[name] = s->get();
    } else if (auto* i = node.as_integer()) {
      sink.options[name] = i->get();
    } else if (auto* b = node.as_boolean()) {
      sink.options[name] = b->get();
    } else {
      return Invalid(Where(origin, node.source()) + ": " + sink.Where() + "." + name +
                     ": only strings, integers and booleans are options");
    }
  }
  return sink;
}

Status ParseSinkList(const toml::table& sinks, const std::string& kind, const std::string& origin,
                     std::vector<SinkConfig>& out) {
  const toml::node* node = sinks.get(kind);
  if (node == nullptr) return Status::OK();
  if (!node->is_array_of_tables()) {
    return Invalid(Where(origin, node->source()) + ": sinks." + kind +
                   " must be an array of tables ([[sinks." + kind + "]])");
  }
  std::set<std::string> ids;
  size_t index = 0;
  for (const toml::node& entry : *node->as_array()) {
    SINKD_ASSIGN_OR_RETURN(SinkConfig sink, ParseSink(*entry.as_table(), kind, index++, origin));
    if (sink.id.empty()) {
      return Invalid(Where(origin, entry.source()) + ": " + sink.Where() +
                     " has an empty id; every sink needs a non-empty id");
    }
    if (!ids.insert(sink.id).second) {
      return Invalid(Where(origin, entry.source()) + ": two " + kind + " sinks have the id \"" +
                     sink.id + "\"; ids must be unique, since the id names the sink's cursor");
    }
    out.push_back(std::move(sink));
  }
  return Status::OK();
}

Status ParseSinks(const toml::table& sinks, const std::string& origin, Config& config) {
  for (auto&& [k, node] : sinks) {
    if (k.str() != "events" && k.str() != "audit" && k.str() != "usage") {
      return Invalid(Where(origin, k.source()) + ": sinks: unknown key \"" + std::string(k.str()) +
                     "\" (known: audit, events, usage)");
    }
  }
  if (const toml::node* usage = sinks.get("usage")) {
    const bool empty = usage->is_array() && usage->as_array()->empty();
    if (!empty) {
      return Invalid(Where(origin, usage->source()) +
                     ": sinks.usage: a usage sink is refused; usage windows go to billing through "
                     "the IAM bridge, which owns the single recorded_at flush");
    }
  }
  SINKD_RETURN_IF_ERROR(ParseSinkList(sinks, "events", origin, config.event_sinks));
  return ParseSinkList(sinks, "audit", origin, config.audit_sinks);
}

}  // namespace

const std::vector<SettingSpec>& FileSettings() {
  static const std::vector<SettingSpec> settings = BuildSettings();
  return settings;
}

const SettingSpec* FindSetting(std::string_view key) {
  for (const SettingSpec& spec : FileSettings()) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

std::string SinkConfig::Where() const {
  return "sinks." + kind + "[" + std::to_string(index) + "] (id \"" + id + "\")";
}

namespace {

Result<Config> Parse(std::string_view text, std::string_view origin_view,
                     std::vector<std::string>* problems) {
  const std::string origin(origin_view);
  toml::table root;
  // toml++ reports syntax errors by throwing; this is the one place they are caught, and they
  // leave as a Status like every other refusal.
  try {
    root = toml::parse(text, origin_view);
  } catch (const toml::parse_error& e) {
    return Invalid(Where(origin, e.source()) + ": " + std::string(e.description()));
  }
  Config config;
  config.origin = origin;
  SINKD_RETURN_IF_ERROR(Walk(root, "", origin, config, problems));
  const bool dispatcher = root.contains("dispatch") || root.contains("sinks");
  if (root.contains("postgres")) {
    SINKD_RETURN_IF_ERROR(ParsePostgres(config));
  } else if (dispatcher) {
    return Invalid(origin + ": no [postgres] table with the database url ([dispatch] and [sinks] "
                   "need it)");
  }
  SINKD_RETURN_IF_ERROR(ParseDispatch(config));
  if (const toml::table* sinks = root["sinks"].as_table()) {
    SINKD_RETURN_IF_ERROR(ParseSinks(*sinks, origin, config));
  }
  return config;
}

Result<Config> Load(const std::string& path, std::vector<std::string>* problems) {
  std::ifstream in(path);
  if (!in) return Status::Refuse("INVALID_CONFIG: cannot read the config file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return Parse(ss.str(), path, problems);
}

}  // namespace

Result<Config> ParseConfig(std::string_view text, std::string_view origin) {
  return Parse(text, origin, nullptr);
}

Result<Config> LoadConfig(const std::string& path) { return Load(path, nullptr); }

Result<Config> LoadConfigCollecting(const std::string& path, std::vector<std::string>& problems) {
  return Load(path, &problems);
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

Result<uint64_t> OptionReader::Size(const std::string& key, uint64_t fallback, uint64_t min,
                                    uint64_t max) {
  read_.insert(key);
  auto it = sink_.options.find(key);
  if (it == sink_.options.end()) return fallback;
  uint64_t bytes = 0;
  std::string text;
  if (const auto* i = std::get_if<int64_t>(&it->second); i != nullptr && *i >= 0) {
    bytes = static_cast<uint64_t>(*i);
    text = std::to_string(*i);
  } else if (const auto* s = std::get_if<std::string>(&it->second)) {
    const Result<uint64_t> parsed = ParseSize(*s);
    if (!parsed.ok()) {
      return Invalid(sink_.Where() + ": option " + key + ": " + parsed.status().message());
    }
    bytes = *parsed;
    text = "\"" + *s + "\"";
  } else {
    return Wrong(key, "a size: an integer of bytes, or a string such as \"64MiB\"");
  }
  if (bytes < min || bytes > max) {
    return Invalid(sink_.Where() + ": option " + key + " = " + text + " must be between " +
                   FormatSize(min) + " and " + FormatSize(max));
  }
  return bytes;
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
