// `sinkd dead list | show | replay`: the dead letters on GARM_SINK_DEAD (dead/), listed by filter,
// shown one at a time with a decode attempt, and replayed to their original subjects once the
// contract or the producer was fixed. A replay is a dry run unless --yes: it writes into the
// streams the drains consume, so the default shows what would be published and publishes nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/base64.h"
#include "base/log.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/nats_flags.h"
#include "dead/dead_stream.h"
#include "jetstream/streams.h"
#include "tail/row_json.h"

namespace sinkd::cli {

namespace {

struct DeadFlags {
  jetstream::ConnectOptions nats;  // url and authentication, from AddNatsFlags
  std::vector<uint64_t> sequences;
  std::string stream;
  std::string reason;
  std::string subject;
  std::string since;
  std::string until;
  bool decodable = false;
  bool all = false;
  bool json = false;
  bool yes = false;
};

// The selection the flags name, checked before anything connects.
Result<dead::Selection> SelectionFrom(const DeadFlags& flags) {
  dead::Selection selection;
  selection.sequences = flags.sequences;
  if (!flags.stream.empty()) {
    SINKD_ASSIGN_OR_RETURN(selection.stream, dead::ParseOriginStream(flags.stream));
  }
  if (!flags.reason.empty()) {
    SINKD_ASSIGN_OR_RETURN(selection.reason, dead::ParseReason(flags.reason));
  }
  if (!flags.subject.empty()) {
    SINKD_RETURN_IF_ERROR(dead::CheckSubjectPattern(flags.subject));
    selection.subject = flags.subject;
  }
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  if (!flags.since.empty()) {
    auto since = dead::ParseTimeBound(flags.since, now);
    if (!since.ok()) return since.status().WithContext("--since");
    selection.since_ns = *since;
  }
  if (!flags.until.empty()) {
    auto until = dead::ParseTimeBound(flags.until, now);
    if (!until.ok()) return until.status().WithContext("--until");
    selection.until_ns = *until;
  }
  selection.decodable = flags.decodable;
  return selection;
}

Result<std::unique_ptr<jetstream::Connection>> ConnectFor(const DeadFlags& flags,
                                                          const std::string& verb) {
  jetstream::ConnectOptions options = flags.nats;
  options.name = "sinkd dead " + verb;
  options.reconnect_forever = false;
  return jetstream::Connection::Connect(options);
}

std::string StoredAt(const dead::DeadLetter& letter) {
  return FormatLogTime(std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::nanoseconds(letter.time_ns))));
}

// "GARM_LEDGER 42" for a whole message, "GARM_LEDGER 42 event 3" for one event of a Batch.
std::string OriginOf(const dead::DeadLetter& letter) {
  std::string origin =
      (letter.stream.empty() ? "?" : letter.stream) + " " + std::to_string(letter.sequence);
  if (letter.event_index >= 0) origin += " event " + std::to_string(letter.event_index);
  return origin;
}

nlohmann::ordered_json SummaryJson(const dead::DeadLetter& letter) {
  return {{"dead_sequence", letter.dead_sequence},
          {"time", StoredAt(letter)},
          {"reason", letter.reason},
          {"error", letter.error},
          {"stream", letter.stream},
          {"subject", letter.subject},
          {"sequence", letter.sequence},
          {"event_index", letter.event_index},
          {"bytes", letter.payload.size()}};
}

Status RunList(const DeadFlags& flags, Invocation& invocation) {
  SINKD_ASSIGN_OR_RETURN(dead::Selection selection, invocation.Usage(SelectionFrom(flags)));
  SINKD_ASSIGN_OR_RETURN(auto connection, ConnectFor(flags, "list"));
  uint64_t listed = 0;
  Status s = dead::ForEachDeadLetter(*connection, selection, [&](const dead::DeadLetter& d) {
    ++listed;
    if (flags.json) {
      std::printf("%s\n", SummaryJson(d).dump().c_str());
    } else {
      std::printf("%llu  %s  %s  %s  %s  %s\n", static_cast<unsigned long long>(d.dead_sequence),
                  StoredAt(d).c_str(), d.reason.empty() ? "?" : d.reason.c_str(),
                  OriginOf(d).c_str(), d.subject.empty() ? "?" : d.subject.c_str(),
                  d.error.c_str());
    }
    return Status::OK();
  });
  std::fflush(stdout);
  SINKD_RETURN_IF_ERROR(s);
  std::fprintf(stderr, "sinkd dead list: %llu dead letter(s)\n",
               static_cast<unsigned long long>(listed));
  return Status::OK();
}

// The decode attempt's rows as JSON lines (tail's form) and its rejects as text.
struct DecodeText {
  std::string rows;  // one JSON object a line
  std::vector<std::string> rejects;
  std::string refused;  // why no decode was tried
};

DecodeText DecodeOf(const dead::DeadLetter& letter) {
  DecodeText text;
  auto attempt = dead::Decode(letter);
  if (!attempt.ok()) {
    text.refused = attempt.status().message();
    return text;
  }
  for (size_t i = 0; i < attempt->rows.rows(); ++i) {
    tail::AppendRowJson(text.rows, attempt->rows, i, tail::RowJsonOptions{});
  }
  for (const contract::Reject& r : attempt->rejects) text.rejects.push_back(r.ToString());
  return text;
}

void PrintHex(std::string_view bytes, size_t limit) {
  for (size_t at = 0; at < bytes.size() && at < limit; at += 16) {
    std::printf("  %06zx ", at);
    for (size_t i = at; i < at + 16 && i < bytes.size(); ++i) {
      std::printf(" %02x", static_cast<unsigned char>(bytes[i]));
    }
    std::printf("\n");
  }
  if (bytes.size() > limit) std::printf("  … %zu more byte(s)\n", bytes.size() - limit);
}

Status RunShow(const DeadFlags& flags) {
  SINKD_ASSIGN_OR_RETURN(auto connection, ConnectFor(flags, "show"));
  SINKD_ASSIGN_OR_RETURN(dead::DeadLetter d,
                         dead::GetDeadLetter(*connection, flags.sequences.front()));
  auto plan = dead::PlanReplay(d);
  const DecodeText decode = DecodeOf(d);
  if (flags.json) {
    nlohmann::ordered_json out = SummaryJson(d);
    out["dead_subject"] = d.dead_subject;
    nlohmann::ordered_json headers = nlohmann::ordered_json::object();
    for (const auto& [name, value] : d.headers) headers[name] = value;
    out["headers"] = headers;
    out["payload_base64"] = Base64Encode(d.payload);
    out["replay"] = plan.ok() ? nlohmann::ordered_json{{"subject", plan->subject},
                                                       {"msg_id", plan->msg_id},
                                                       {"wrapped", plan->wrapped}}
                              : nlohmann::ordered_json(nullptr);
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (size_t start = 0; start < decode.rows.size();) {
      const size_t nl = decode.rows.find('\n', start);
      rows.push_back(nlohmann::ordered_json::parse(decode.rows.substr(start, nl - start)));
      start = nl + 1;
    }
    out["decode"] = decode.refused.empty()
                        ? nlohmann::ordered_json{{"rows", rows}, {"rejects", decode.rejects}}
                        : nlohmann::ordered_json{{"refused", decode.refused}};
    std::printf("%s\n", out.dump(2).c_str());
    return Status::OK();
  }
  std::printf("dead letter %llu on %s (%s), stored %s\n",
              static_cast<unsigned long long>(d.dead_sequence), jetstream::kDeadStream,
              d.dead_subject.c_str(), StoredAt(d).c_str());
  std::printf("headers:\n");
  for (const auto& [name, value] : d.headers) {
    std::printf("  %s: %s\n", name.c_str(), value.c_str());
  }
  std::printf("payload: %zu byte(s)\n", d.payload.size());
  PrintHex(d.payload, 256);
  if (plan.ok()) {
    std::printf("replay: to %s (%s)%s, Nats-Msg-Id %s\n", plan->subject.c_str(),
                plan->stream.c_str(), plan->wrapped ? " as a Batch of this one event" : "",
                plan->msg_id.c_str());
  } else {
    std::printf("replay: not possible: %s\n", plan.status().message().c_str());
  }
  if (!decode.refused.empty()) {
    std::printf("decode: not tried: %s\n", decode.refused.c_str());
  } else if (decode.rejects.empty()) {
    std::printf("decode: reads now: %zu row(s)\n",
                static_cast<size_t>(std::count(decode.rows.begin(), decode.rows.end(), '\n')));
    std::fputs(decode.rows.c_str(), stdout);
  } else {
    for (const std::string& r : decode.rejects) std::printf("decode: rejected: %s\n", r.c_str());
    std::fputs(decode.rows.c_str(), stdout);
  }
  return Status::OK();
}

Status RunReplay(const DeadFlags& flags, Invocation& invocation) {
  SINKD_ASSIGN_OR_RETURN(dead::Selection selection, invocation.Usage(SelectionFrom(flags)));
  if (selection.everything() && !flags.all) {
    return invocation.Usage(Status::Refuse(
        "name the dead letters to replay: their sequences, a filter (--stream, --reason, "
        "--subject, --since, --until, --decodable) or --all"));
  }
  SINKD_ASSIGN_OR_RETURN(auto connection, ConnectFor(flags, "replay"));
  uint64_t selected = 0, replayed = 0, duplicates = 0, impossible = 0;
  Status s = dead::ForEachDeadLetter(*connection, selection, [&](const dead::DeadLetter& d) {
    ++selected;
    const unsigned long long seq = d.dead_sequence;
    auto plan = dead::PlanReplay(d);
    if (!plan.ok()) {
      ++impossible;
      std::printf("%llu: cannot replay: %s\n", seq, plan.status().message().c_str());
      return Status::OK();
    }
    if (!flags.yes) {
      auto attempt = dead::Decode(d);
      std::printf(
          "%llu -> %s  Nats-Msg-Id %s%s  %s\n", seq, plan->subject.c_str(), plan->msg_id.c_str(),
          plan->wrapped ? "  (one event as a Batch)" : "",
          attempt.ok() && attempt->decodable() ? "decodes now" : "still rejected by this sinkd");
      return Status::OK();
    }
    SINKD_ASSIGN_OR_RETURN(bool stored, dead::PublishReplay(*connection, *plan, d.dead_sequence));
    if (stored) {
      ++replayed;
    } else {
      ++duplicates;
    }
    std::printf("%llu -> %s  %s\n", seq, plan->subject.c_str(),
                stored ? "replayed" : "already replayed (the stream's duplicate window)");
    return Status::OK();
  });
  std::fflush(stdout);
  SINKD_RETURN_IF_ERROR(s);
  if (!flags.yes) {
    std::fprintf(stderr,
                 "sinkd dead replay: dry run: %llu of %llu selected dead letter(s) would be "
                 "replayed; nothing was published (--yes publishes)\n",
                 static_cast<unsigned long long>(selected - impossible),
                 static_cast<unsigned long long>(selected));
  } else {
    std::fprintf(
        stderr, "sinkd dead replay: %llu replayed, %llu already replayed, of %llu selected\n",
        static_cast<unsigned long long>(replayed), static_cast<unsigned long long>(duplicates),
        static_cast<unsigned long long>(selected));
  }
  if (impossible > 0) {
    return Status::Refuse(std::to_string(impossible) +
                          " selected dead letter(s) cannot be replayed (listed above)");
  }
  return Status::OK();
}

// The filters list and replay share.
void AddSelectionFlags(CLI::App& cmd, DeadFlags& flags) {
  cmd.add_option("--stream", flags.stream, "origin stream: ledger, audit (or GARM_LEDGER, …)");
  cmd.add_option("--reason", flags.reason,
                 "unmarshal, missing_event_id, missing_time or too_many_partitions");
  cmd.add_option("--subject", flags.subject,
                 "original subject, a NATS pattern (garm.v1.ledger.acme.>)");
  cmd.add_option("--since", flags.since,
                 "stored at or after: RFC 3339 (2026-12-03T10:00:00Z) or a duration ago (2h)");
  cmd.add_option("--until", flags.until, "stored before: as --since");
  cmd.add_flag("--decodable", flags.decodable,
               "only those this sinkd's decoder now reads without a reject");
}

// One verb of `sinkd dead`: its flags, its --config and the NATS flags bound to [nats].
struct DeadVerb {
  CLI::App* cmd;
  std::shared_ptr<DeadFlags> flags;
  std::shared_ptr<ConfigFlags> config;
};

DeadVerb AddDeadVerb(CLI::App& parent, Invocation& invocation, const std::string& verb,
                     const std::string& description) {
  DeadVerb v{parent.add_subcommand(verb, description), std::make_shared<DeadFlags>(), nullptr};
  v.config = std::make_shared<ConfigFlags>(*v.cmd, "dead " + verb);
  invocation.configurable.push_back(v.config);
  AddNatsFlags(*v.cmd, v.flags->nats, *v.config);
  return v;
}

// Runs `run` once the command line parsed and the settings resolved.
void OnRun(const DeadVerb& v, Invocation& invocation,
           std::function<Status(const DeadFlags&, Invocation&)> run) {
  v.cmd->callback([flags = v.flags, config = v.config, run, &invocation] {
    invocation.run = [flags, config, run, &invocation] {
      SINKD_RETURN_IF_ERROR(invocation.Usage(config->Apply()));
      return run(*flags, invocation);
    };
  });
}

}  // namespace

void AddDeadCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(root, "dead",
                               "the dead letters on GARM_SINK_DEAD: list, show, "
                               "replay to their original subjects");
  const DeadVerb list = AddDeadVerb(*parent, invocation, "list",
                                    "one line per dead letter: sequence, time, reason, origin, "
                                    "subject, error");
  AddSelectionFlags(*list.cmd, *list.flags);
  list.cmd->add_flag("--json", list.flags->json, "one JSON object per line");
  OnRun(list, invocation, RunList);

  const DeadVerb show = AddDeadVerb(*parent, invocation, "show",
                                    "one dead letter: headers, payload, where a replay goes, and "
                                    "what this sinkd's decoder makes of it now");
  show.cmd->add_option("sequence", show.flags->sequences, "its sequence in GARM_SINK_DEAD")
      ->required()
      ->expected(1);
  show.cmd->add_flag("--json", show.flags->json, "one JSON object (payload in base64)");
  OnRun(show, invocation, [](const DeadFlags& flags, Invocation&) { return RunShow(flags); });

  const DeadVerb replay = AddDeadVerb(*parent, invocation, "replay",
                                      "publish dead letters back to their original subjects (a "
                                      "dry run unless --yes)");
  replay.cmd->add_option("sequences", replay.flags->sequences, "sequences in GARM_SINK_DEAD");
  AddSelectionFlags(*replay.cmd, *replay.flags);
  replay.cmd->add_flag("--all", replay.flags->all,
                       "every dead letter (when no sequence or filter is given)");
  replay.cmd->add_flag("--yes", replay.flags->yes, "publish; without it nothing is published");
  OnRun(replay, invocation, RunReplay);
}

}  // namespace sinkd::cli
