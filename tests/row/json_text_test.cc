// JSON text must be byte-identical to Go's encoding/json (json.Marshal, Go 1.22+): the lake holds
// rows from both implementations, and duplicates of one event must compare equal. The expected
// strings below follow encoding/json's appendString rules (htmlSafeSet, \b and \f since Go 1.22,
// lowercase hex, \ufffd per invalid byte, U+2028/U+2029 escaped).
#include "row/json_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sinkd::row {
namespace {

std::string Json(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

TEST(JsonText, StringsAreEscapedExactlyAsGoEscapesThem) {
  struct Case {
    std::string in;
    std::string go;
  };
  const std::vector<Case> cases = {
      {"", R"("")"},
      {"plain ascii 0-9 ~", R"("plain ascii 0-9 ~")"},
      {"<script>&", R"("\u003cscript\u003e\u0026")"},
      {"say \"hi\" \\ bye", R"("say \"hi\" \\ bye")"},
      {"\n\r\t\b\f", R"("\n\r\t\b\f")"},
      {"\x01", R"("\u0001")"},
      {std::string("\0", 1), R"("\u0000")"},
      {"\x0b\x1f", R"("\u000b\u001f")"},
      {"\x7f", "\"\x7f\""},  // DEL is in Go's htmlSafeSet: not escaped
      {"a\xe2\x80\xa8"
       "b\xe2\x80\xa9"
       "c",
       R"("a\u2028b\u2029c")"},
      {"\xf0\x9f\x98\x80 emoji", "\"\xf0\x9f\x98\x80 emoji\""},
      {"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", "\"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\""},
      {"\xef\xbf\xbd", "\"\xef\xbf\xbd\""},  // a real U+FFFD is left alone
      {"'single' /slash/", R"("'single' /slash/")"},
  };
  for (const Case& c : cases) EXPECT_EQ(Json(c.in), c.go) << "input: " << c.in;
}

// Invalid UTF-8 never reaches a row (the decoder rejects it), but `tail` and tools may print
// arbitrary bytes: Go writes one \ufffd per byte that does not start a well-formed sequence.
TEST(JsonText, InvalidUtf8BecomesOneReplacementPerByteAsInGo) {
  EXPECT_EQ(Json("\xff"), R"("\ufffd")");
  EXPECT_EQ(Json("a\xc0\x80z"), R"("a\ufffd\ufffdz")") << "overlong NUL";
  EXPECT_EQ(Json("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")") << "a surrogate";
  EXPECT_EQ(Json("\xe2\x82"), R"("\ufffd\ufffd")") << "truncated at the end";
  EXPECT_EQ(Json("\xf4\x90\x80\x80"), R"("\ufffd\ufffd\ufffd\ufffd")") << "past U+10FFFF";
  EXPECT_EQ(Json("\xe2\x28\xa1"), R"("\ufffd(\ufffd")");
}

TEST(JsonText, AnObjectHasSortedKeysAndTheLastValueOfARepeatedKey) {
  std::vector<JsonMember> members = {{"b", "2"}, {"a", "1"},        {"B", "0"},
                                     {"a", "3"}, {"\xc3\xa9", "e"}, {"z", "<"}};
  std::string out = "prefix:";
  AppendJsonObject(out, members);
  EXPECT_EQ(out, R"(prefix:{"B":"0","a":"3","b":"2","z":"\u003c","é":"e"})")
      << "keys byte-wise (uppercase first, UTF-8 after ASCII), last `a` wins, appended";
}

TEST(JsonText, EmptyCollectionsAreBracesNeverNull) {
  std::string out;
  AppendJsonObject(out, {});
  AppendJsonArray(out, {});
  EXPECT_EQ(out, "{}[]");
}

TEST(JsonText, AnArrayKeepsItsOrderAndDuplicates) {
  const std::vector<std::string_view> items = {"z", "a", "z", "tab\there"};
  std::string out;
  AppendJsonArray(out, items);
  EXPECT_EQ(out, R"(["z","a","z","tab\there"])");
}

// The in-place sort switches algorithm past a couple of dozen members; both must be stable.
TEST(JsonText, ManyMembersSortStablyWithTheLastRepeatWinning) {
  std::vector<JsonMember> members;
  std::vector<std::string> keys, values;
  for (int i = 0; i < 200; ++i) {
    keys.push_back(std::string("k").append(std::to_string(i % 50)));
    values.push_back(std::to_string(i));
  }
  for (int i = 0; i < 200; ++i) members.push_back({keys[i], values[i]});
  std::string out;
  AppendJsonObject(out, members);
  EXPECT_NE(out.find(R"("k0":"150")"), std::string::npos) << out.substr(0, 80);
  EXPECT_EQ(out.find(R"("k0":"100")"), std::string::npos);
  EXPECT_NE(out.find(R"("k49":"199")"), std::string::npos);
  EXPECT_EQ(out.substr(0, 12), R"({"k0":"150",)");
}

// The worst case: every byte expands to six. A wrong bound would write past the reserved room.
TEST(JsonText, WorstCaseExpansionFits) {
  const std::string control(1000, '\x01');
  const std::string invalid(1000, '\xff');
  std::vector<JsonMember> members = {{control, invalid}, {invalid, control}};
  std::string out;
  AppendJsonObject(out, members);
  EXPECT_EQ(out.size(), 2 + 2 * (2 + 6000 + 1 + 2 + 6000) + 1);
  const std::vector<std::string_view> items = {control, invalid};
  std::string array;
  AppendJsonArray(array, items);
  EXPECT_EQ(array.size(), 2 + 2 * (2 + 6000) + 1);
}

}  // namespace
}  // namespace sinkd::row
