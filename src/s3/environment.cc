#include "s3/environment.h"

#include <cstdlib>

namespace sinkd::s3 {

Environment ProcessEnvironment() {
  return [](std::string_view name) {
    const char* value = std::getenv(std::string(name).c_str());
    return std::string(value ? value : "");
  };
}

Status CheckRetiredNames(const Environment& env, bool include_endpoint) {
  struct Rename {
    const char* old_name;
    const char* new_name;
  };
  static constexpr Rename kRenames[] = {{"S3_ACCESS_KEY", "AWS_ACCESS_KEY_ID"},
                                        {"S3_SECRET_KEY", "AWS_SECRET_ACCESS_KEY"},
                                        {"S3_ENDPOINT", "AWS_ENDPOINT_URL"}};
  std::string message;
  for (const Rename& r : kRenames) {
    if (!include_endpoint && std::string_view(r.old_name) == "S3_ENDPOINT") continue;
    if (env(r.old_name).empty() || !env(r.new_name).empty()) continue;
    if (!message.empty()) message += "; ";
    message += std::string(r.old_name) + " is no longer read: export " + r.new_name + " instead";
  }
  return message.empty() ? Status::OK() : Status::Refuse(message);
}

Result<Credentials> CredentialsFrom(const Environment& env, bool anonymous) {
  Credentials c;
  c.access_key_id = env("AWS_ACCESS_KEY_ID");
  if (anonymous) {
    if (!c.access_key_id.empty()) {
      return Status::Refuse(
          "--s3-anonymous with AWS_ACCESS_KEY_ID set: unset one of them, because there is no way "
          "to tell which was meant");
    }
    return Credentials{};
  }
  if (c.access_key_id.empty()) {
    return Status::Refuse(
        "no S3 credentials: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass "
        "--s3-anonymous for a store with no IAM configured");
  }
  c.secret_access_key = env("AWS_SECRET_ACCESS_KEY");
  if (c.secret_access_key.empty()) {
    return Status::Refuse(
        "AWS_ACCESS_KEY_ID is set and AWS_SECRET_ACCESS_KEY is empty: a request signed with an "
        "empty secret is refused by the store as a bad signature");
  }
  c.session_token = env("AWS_SESSION_TOKEN");
  return c;
}

std::string RegionFrom(const Environment& env) {
  if (std::string region = env("AWS_REGION"); !region.empty()) return region;
  if (std::string region = env("AWS_DEFAULT_REGION"); !region.empty()) return region;
  return kDefaultRegion;
}

}  // namespace sinkd::s3
