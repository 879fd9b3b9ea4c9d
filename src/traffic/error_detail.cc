#include "traffic/error_detail.h"

#include <array>
#include <charconv>

namespace sinkd::traffic {
namespace {

// ${name} is a placeholder; any other character, '$' and '{' included, is literal.
struct Template {
  std::string_view kind;
  std::string_view text;
};
constexpr std::array<Template, 26> kTemplates = {{
    {"provider_timeout",
     "${provider}: request timed out after ${ms} ms (model ${model}); no bytes received"},
    {"provider_timeout",
     "context deadline exceeded (Client.Timeout exceeded while awaiting headers)\n"
     "POST https://api.${provider}.example/v1/chat/completions?stream=true&n=1"},
    {"provider_unavailable",
     "upstream ${provider} returned 503: <html><head><title>503 Service "
     "Unavailable</title></head><body>upstream connect error or disconnect/reset "
     "before headers &amp; retried 3 times</body></html>"},
    {"provider_unavailable",
     "${provider} 529 overloaded\n{\"type\":\"error\",\"error\":{\"type\":"
     "\"overloaded_error\",\"message\":\"Overloaded\"}}"},
    {"rate_limited",
     "Rate limit reached for ${model} in organization org-${hex} on tokens per min "
     "(TPM): Limit 30000, Used ${n}, Requested ${tokens}. Please try again in 2.3s."},
    {"rate_limited", "429 Too Many Requests — “slow down” (retry-after: 7s, tenant ${tenant})"},
    {"context_length_exceeded",
     "This model's maximum context length is 128000 tokens. However, "
     "your messages resulted in ${n} tokens. Please reduce the length."},
    {"invalid_request",
     "invalid request: messages[2].content: expected string or array, got <nil> "
     "& 'tool_calls' is missing"},
    {"invalid_request",
     "schema validation failed for tool ${tool}: field \"amount\" must be < 10000 "
     "(got ${n})\n\tat $.arguments.amount"},
    {"content_filtered",
     "response blocked by ${provider} content filter: category=self_harm "
     "severity=medium ⚠️"},
    {"tool_failed",
     "tool ${tool} failed: exit status 1\nstderr: cp: cannot open "
     "'/var/run/secrets/token': Permission denied\n"},
    {"tool_failed",
     "tool ${tool}: HTTP 404 from https://intranet.example/wiki?page=Q3&lang=fr — "
     "« page introuvable »"},
    {"tool_failed", "工具 ${tool} 执行失败：连接被重置 (ECONNRESET) after ${ms} ms"},
    {"stream_aborted",
     "stream aborted mid-response by ${provider}: unexpected EOF after ${n} "
     "chunks 🔌"},
    {"policy_denied",
     "denied by policy (${policy}): ${violation} matched in message 3: \"call me "
     "at 078-05-1120 & <b>thanks</b>\""},
    {"policy_denied",
     "policy violation ${violation}: tool output contained \"ignore previous "
     "instructions\" inside <system> tags"},
    {"policy_denied",
     "egress to https://paste.example/raw?id=${hex}&dl=1 blocked for ${tool} "
     "(${violation})"},
    {"budget_exhausted",
     "budget \"${budget}\" exhausted: spent $${dollars} of $${limit} this "
     "period"},
    {"budget_exhausted", "Budget „${budget}“ überschritten — Anfrage abgelehnt"},
    {"clearance_insufficient",
     "clearance ${clearance} is below CLEARANCE_CONFIDENTIAL, required "
     "for compartment “${compartment}”"},
    {"compartment_mismatch", "compartment '${compartment}' not in caller's set []; accès refusé"},
    {"client_cancelled",
     "client disconnected after ${ms} ms; partial output (${n} tokens) "
     "discarded"},
    {"client_cancelled", "context canceled\n\tat agentd/run.go:212\n\t← ${tool}"},
    {"deadline_exceeded", "run deadline of 30s exceeded in step ${n} — 処理がタイムアウトしました"},
    {"deadline_exceeded", "deadline exceeded waiting for ${tool} (${ms} ms > 30000 ms)"},
    {"", "unexpected failure in ${model} call; see provider logs"},
}};

void AppendNumber(std::string& out, int64_t value) {
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out.append(buf, static_cast<size_t>(result.ptr - buf));
}

void AppendDollars(std::string& out, int64_t cents) {
  AppendNumber(out, cents / 100);
  out.push_back('.');
  out.push_back(static_cast<char>('0' + (cents % 100) / 10));
  out.push_back(static_cast<char>('0' + cents % 10));
}

void AppendPlaceholder(std::string_view name, const DetailContext& c, Rng& rng, std::string& out) {
  if (name == "model") return out.append(c.model), void();
  if (name == "provider") return out.append(c.provider), void();
  if (name == "tool") return out.append(c.tool.empty() ? "web.fetch" : c.tool), void();
  if (name == "tenant") return out.append(c.tenant), void();
  if (name == "budget") return out.append(c.budget.empty() ? "default" : c.budget), void();
  if (name == "clearance") return out.append(c.clearance), void();
  if (name == "compartment") {
    return out.append(c.compartment.empty() ? "finance" : c.compartment), void();
  }
  if (name == "policy") return out.append(c.policy), void();
  if (name == "violation") return out.append(c.violation), void();
  if (name == "ms") return AppendNumber(out, c.ms);
  if (name == "tokens") return AppendNumber(out, c.tokens);
  if (name == "n") return AppendNumber(out, rng.Between(2, 200000));
  if (name == "dollars") return AppendDollars(out, rng.Between(10000, 500000));
  if (name == "limit") return AppendDollars(out, rng.Between(1, 50) * 10000);
  if (name == "hex") {
    static constexpr char kHex[] = "0123456789abcdef";
    uint64_t bits = rng.Next();
    for (int i = 0; i < 12; ++i, bits >>= 4) out.push_back(kHex[bits & 0xF]);
    return;
  }
  out.append("${").append(name).append("}");
}

}  // namespace

void WriteErrorDetail(std::string_view error_kind, const DetailContext& context, Rng& rng,
                      std::string& out) {
  // Count, then pick, the templates of this kind; the last template is the generic fallback.
  size_t count = 0;
  for (const Template& t : kTemplates) count += t.kind == error_kind;
  size_t pick = count == 0 ? 0 : rng.Below(count);
  std::string_view text = kTemplates.back().text;
  for (const Template& t : kTemplates) {
    if (t.kind == error_kind && pick-- == 0) {
      text = t.text;
      break;
    }
  }
  out.clear();
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find("${", i);
    const size_t close = open == std::string_view::npos ? open : text.find('}', open);
    if (close == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    out.append(text.substr(i, open - i));
    AppendPlaceholder(text.substr(open + 2, close - open - 2), context, rng, out);
    i = close + 1;
  }
}

}  // namespace sinkd::traffic
