// The AWS-standard variables the S3 path reads, and its refusals. Only the S3 branch of
// destination selection calls these: a --lake-dir run never looks at a credential variable.
//   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN   the credentials
//   AWS_REGION, then AWS_DEFAULT_REGION, then "us-east-1"         the region
//   AWS_ENDPOINT_URL, S3_BUCKET                                    defaults for the flags (cli/)
// The retired S3_ACCESS_KEY, S3_SECRET_KEY and S3_ENDPOINT are refused by name: with the AWS
// variables exported and correct, the binary that read the old names built an anonymous client
// and the store answered Access Denied, which names neither a credential nor a variable.
// Threads: pure functions over an injected Environment. Errors: Refuse, naming variables, never
// holding a value.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "s3/sigv4.h"

namespace sinkd::s3 {

// Looks a variable up: its value, or "" when it is unset. Injected, so tests never touch the
// process environment.
using Environment = std::function<std::string(std::string_view name)>;
// The process environment (getenv).
Environment ProcessEnvironment();

inline constexpr char kDefaultRegion[] = "us-east-1";

// For each retired name that is set while its replacement is empty:
// "<OLD> is no longer read: export <NEW> instead", joined with "; ". OK when there is none.
// `include_endpoint` adds S3_ENDPOINT → AWS_ENDPOINT_URL (checked only when no destination was
// named; an explicit --s3-endpoint settles the endpoint).
Status CheckRetiredNames(const Environment& env, bool include_endpoint);

// The credentials to sign with, in this order:
//   anonymous + AWS_ACCESS_KEY_ID set → Refuse (no way to tell which was meant);
//   anonymous → empty Credentials (unsigned requests);
//   no AWS_ACCESS_KEY_ID → Refuse, naming both variables and --s3-anonymous;
//   AWS_ACCESS_KEY_ID without AWS_SECRET_ACCESS_KEY → Refuse;
//   otherwise key, secret and AWS_SESSION_TOKEN.
Result<Credentials> CredentialsFrom(const Environment& env, bool anonymous);

// AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1 (what the SDKs do when nothing is set for S3).
std::string RegionFrom(const Environment& env);

}  // namespace sinkd::s3
