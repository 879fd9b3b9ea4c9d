// ParallelDecoder and Batch::AddDecoded against the plain Batch::Add: a batch filled from runs
// decoded on several threads holds what one filled message by message on one thread holds.
#include "drain/parallel_decoder.h"

#include <gtest/gtest.h>

#include <nats/nats.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/work_pool.h"
#include "drain/batch.h"
#include "drain/keep_alive.h"
#include "drain/message_acks.h"
#include "traffic/traffic_generator.h"

namespace sinkd {
namespace {

// Message `sequence` as a batch is given it, on a subject of its own. The subject is viewed until
// the next call: every Add copies it at once.
drain::Record RecordOf(std::string_view payload, uint64_t sequence) {
  static thread_local std::string subject;
  subject = "garm.v1.ledger.t" + std::to_string(sequence);
  return drain::Record{payload, subject, sequence};
}

jetstream::Message Delivered(std::string_view payload, uint64_t sequence) {
  natsMsg* raw = nullptr;
  const std::string subject = "garm.v1.ledger.t" + std::to_string(sequence);
  EXPECT_EQ(natsMsg_Create(&raw, subject.c_str(), nullptr, payload.data(),
                           static_cast<int>(payload.size())),
            NATS_OK);
  return jetstream::Message(raw);
}

// Every value of every column, the rejects with their message, and what each held message gave.
std::string Describe(const drain::Batch& batch) {
  std::string out = std::to_string(batch.rows.rows()) + " rows, " +
                    std::to_string(batch.bytes()) + " bytes\n";
  const row::RowBuffer& rows = batch.rows;
  for (size_t c = 0; c < rows.table().columns.size(); ++c) {
    const row::ColumnBuffer& col = rows.column(static_cast<int>(c));
    out += rows.table().columns[c].name;
    out += ":";
    for (size_t r = 0; r < rows.rows(); ++r) {
      out += " ";
      switch (col.type) {
        case row::ColumnType::kString: out += std::string(col.strings.at(r)); break;
        case row::ColumnType::kInt64:
        case row::ColumnType::kTimestamp: out += std::to_string(col.int64s[r]); break;
        case row::ColumnType::kInt32: out += std::to_string(col.int32s[r]); break;
        case row::ColumnType::kDouble: out += std::to_string(col.doubles[r]); break;
        case row::ColumnType::kBool: out += std::to_string(col.bools[r]); break;
      }
    }
    out += "\n";
  }
  for (const drain::HeldReject& r : batch.rejects) {
    out += "reject of message " + std::to_string(r.message) + ": " + r.reject.ToString() +
           " payload " + std::to_string(std::hash<std::string>{}(r.reject.payload)) + "\n";
  }
  for (const drain::Held& h : batch.held) {
    out += std::to_string(h.sequence) + " " + h.subject + " " + std::to_string(h.rows) + "/" +
           std::to_string(h.rejects) + "; ";
  }
  out += "\nsequences " + std::to_string(batch.first_sequence()) + "-" +
         std::to_string(batch.last_sequence());
  return out;
}

std::vector<std::string> Messages(double bad_share, int count) {
  traffic::TrafficOptions traffic;
  traffic.seed = 5;
  traffic.events_per_batch = 23;
  traffic.expected_events = 23 * count;
  traffic.bad_share = bad_share;
  traffic::TrafficGenerator generator(traffic);
  std::vector<std::string> messages;
  for (int i = 0; i < count; ++i) messages.push_back(generator.NextLedgerMessage());
  return messages;
}

// What a batch filled one message at a time on one thread holds (Describe); messages are numbered
// from 1. The inputs have bad records, so rejects are compared too.
std::string OneMessageAtATime(const std::vector<std::string>& messages,
                              contract::Envelope envelope) {
  const auto now = std::chrono::steady_clock::now();
  drain::Batch batch;
  for (size_t i = 0; i < messages.size(); ++i) {
    batch.Add(RecordOf(messages[i], i + 1), envelope, now);
  }
  EXPECT_FALSE(batch.rejects.empty()) << "the input has bad records";
  return Describe(batch);
}

TEST(ParallelDecoder, ABatchFilledFromRunsDecodedOnThreeThreadsHoldsWhatOneMessageAtATimeHolds) {
  const std::vector<std::string> messages = Messages(0.05, 200);
  const auto now = std::chrono::steady_clock::now();

  WorkPool pool(3);
  drain::ParallelDecoder decoder(pool);
  drain::Batch from_runs;
  // Runs of uneven length, the decoder reused between them, as a drain reuses it per fetch.
  for (size_t begin = 0, run = 1; begin < messages.size(); begin += run, run = run * 2 + 1) {
    const size_t end = std::min(messages.size(), begin + run);
    std::vector<std::string_view> payloads(messages.begin() + begin, messages.begin() + end);
    decoder.Decode(payloads, contract::Envelope::kBatch);
    ASSERT_EQ(decoder.size(), end - begin);
    for (size_t i = begin; i < end; ++i) {
      from_runs.AddDecoded(RecordOf(messages[i], i + 1), decoder, i - begin, now);
    }
  }
  EXPECT_EQ(Describe(from_runs), OneMessageAtATime(messages, contract::Envelope::kBatch));
}

// A run shared out as the drain and the import share one while nothing settles: the caller
// decodes the first InPlace(run) messages straight into the batch while the pool decodes the
// rest, which are then taken in order.
TEST(ParallelDecoder, ARunSharedOutBetweenTheCallerAndThePoolFillsTheBatchAsOneMessageAtATime) {
  const std::vector<std::string> messages = Messages(0.05, 200);
  const auto now = std::chrono::steady_clock::now();

  WorkPool pool(3);
  drain::ParallelDecoder decoder(pool);
  EXPECT_EQ(decoder.InPlace(1), 1u);
  EXPECT_EQ(decoder.InPlace(2), 1u);
  EXPECT_EQ(decoder.InPlace(30), 10u) << "a third of the run on a pool of three";
  drain::Batch shared;
  for (size_t begin = 0, run = 2; begin < messages.size(); begin += run, run = run * 2 + 1) {
    const size_t end = std::min(messages.size(), begin + run);
    const size_t in_place = begin + decoder.InPlace(end - begin);
    std::vector<std::string_view> rest(messages.begin() + in_place, messages.begin() + end);
    int calls = 0;
    decoder.DecodeAlongside(rest, contract::Envelope::kBatch, [&] {
      ++calls;
      for (size_t i = begin; i < in_place; ++i) {
        shared.Add(RecordOf(messages[i], i + 1), contract::Envelope::kBatch, now);
      }
    });
    ASSERT_EQ(calls, 1);
    ASSERT_EQ(decoder.size(), end - in_place);
    for (size_t i = in_place; i < end; ++i) {
      shared.AddDecoded(RecordOf(messages[i], i + 1), decoder, i - in_place, now);
    }
  }
  EXPECT_EQ(Describe(shared), OneMessageAtATime(messages, contract::Envelope::kBatch));
}

// AddRun is how the drain and the import add a run: shared out or not, the batch is the one a
// message at a time gives, and an `add` that says stop ends the run at that message.
TEST(ParallelDecoder, ARunAddedSharedOrNotFillsTheBatchAsOneMessageAtATimeAndStopsWhereAddSays) {
  const std::vector<std::string> messages = Messages(0.05, 120);
  const auto now = std::chrono::steady_clock::now();
  WorkPool pool(3);
  drain::ParallelDecoder decoder(pool);
  for (const bool may_share : {false, true}) {
    drain::Batch batch;
    size_t shared = 0;
    for (size_t begin = 0; begin < messages.size(); begin += 40) {
      decoder.AddRun(
          40, may_share, contract::Envelope::kBatch,
          [&](size_t i) { return std::string_view(messages[begin + i]); },
          [&](size_t i, drain::ParallelDecoder* decoded, size_t index) {
            const uint64_t sequence = begin + i + 1;
            if (decoded == nullptr) {
              batch.Add(RecordOf(messages[begin + i], sequence), contract::Envelope::kBatch,
                        now);
            } else {
              ++shared;
              batch.AddDecoded(RecordOf(messages[begin + i], sequence), *decoded, index, now);
            }
            return true;
          });
    }
    EXPECT_EQ(shared, may_share ? 120u - 3 * decoder.InPlace(40) : 0u);
    EXPECT_EQ(Describe(batch), OneMessageAtATime(messages, contract::Envelope::kBatch))
        << (may_share ? "shared" : "not shared");
  }
  for (const bool may_share : {false, true}) {
    std::vector<size_t> added;
    decoder.AddRun(
        40, may_share, contract::Envelope::kBatch,
        [&](size_t i) { return std::string_view(messages[i]); },
        [&](size_t i, drain::ParallelDecoder*, size_t) {
          added.push_back(i);
          return i != 25;  // past the part added in place when shared (the first 13)
        });
    std::vector<size_t> expected(26);
    for (size_t i = 0; i < expected.size(); ++i) expected[i] = i;
    EXPECT_EQ(added, expected) << (may_share ? "shared" : "not shared");
  }
}

TEST(ParallelDecoder, AuditMessagesOfOneEventEachDecodeAsTheyDoAlone) {
  traffic::TrafficOptions traffic;
  traffic.seed = 9;
  traffic.bad_share = 0.1;
  traffic::TrafficGenerator generator(traffic);
  std::vector<std::string> messages;
  for (int i = 0; i < 300; ++i) messages.push_back(generator.NextAuditMessage());
  const auto now = std::chrono::steady_clock::now();
  WorkPool pool(2);
  drain::ParallelDecoder decoder(pool);
  const std::vector<std::string_view> payloads(messages.begin(), messages.end());
  decoder.Decode(payloads, contract::Envelope::kEvent);
  drain::Batch together;
  for (size_t i = 0; i < messages.size(); ++i) {
    together.AddDecoded(RecordOf(messages[i], i + 1), decoder, i, now);
  }
  EXPECT_EQ(Describe(together), OneMessageAtATime(messages, contract::Envelope::kEvent));
}

// A batch keeps its rows, not their wire bytes: a drain's MessageAcks frees each message's payload
// as it takes the message its batch has decoded (a reject keeps its own copy), keeping its subject
// and ack address, while bytes() still counts the payload, so batches close where they did.
TEST(Batch, AHeldMessageKeepsNoPayloadOnceDecodedButItsBytesStillCount) {
  traffic::TrafficOptions options;
  options.seed = 5;
  options.events_per_batch = 50;
  options.expected_events = 100;
  options.bad_share = 0.2;
  traffic::TrafficGenerator generator(options);
  drain::KeepAlive keepalive{std::chrono::seconds(10)};
  auto owned = std::make_unique<drain::MessageAcks>(keepalive);
  drain::MessageAcks& acks = *owned;
  drain::Batch batch(std::move(owned));
  size_t payload_bytes = 0;
  for (uint64_t seq = 1; seq <= 2; ++seq) {
    const std::string payload = generator.NextLedgerMessage();
    payload_bytes += payload.size();
    jetstream::Message message = Delivered(payload, seq);
    ASSERT_TRUE(batch.Add(drain::Record{message.data(), message.subject(), seq},
                          contract::Envelope::kBatch, std::chrono::steady_clock::now())
                    .held);
    acks.Hold(std::move(message));
  }
  ASSERT_EQ(batch.held.size(), 2u);
  for (size_t i = 0; i < batch.held.size(); ++i) {
    EXPECT_TRUE(acks.message(i).data().empty()) << "message " << i;
    EXPECT_EQ(acks.message(i).subject(), "garm.v1.ledger.t" + std::to_string(i + 1));
    EXPECT_EQ(batch.held[i].subject, "garm.v1.ledger.t" + std::to_string(i + 1));
  }
  ASSERT_FALSE(batch.rejects.empty()) << "the premise: some events are dead letters";
  for (const drain::HeldReject& r : batch.rejects) EXPECT_FALSE(r.reject.payload.empty());
  EXPECT_EQ(batch.bytes(), payload_bytes + batch.rows.bytes());
}

}  // namespace
}  // namespace sinkd
