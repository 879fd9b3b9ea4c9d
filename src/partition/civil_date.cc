#include "partition/civil_date.h"

namespace sinkd::partition {

// Days-to-civil conversion (proleptic Gregorian) in era arithmetic, exact for every day number in
// range; chosen over gmtime_r because that one is locale- and libc-dependent and needs time_t.
std::string FormatDay(int64_t day) {
  int64_t z = day + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t year = yoe + era * 400;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++year;
  char text[11];
  const int64_t y = year < 0 ? 0 : (year > 9999 ? 9999 : year);
  text[0] = static_cast<char>('0' + y / 1000);
  text[1] = static_cast<char>('0' + y / 100 % 10);
  text[2] = static_cast<char>('0' + y / 10 % 10);
  text[3] = static_cast<char>('0' + y % 10);
  text[4] = '-';
  text[5] = static_cast<char>('0' + m / 10);
  text[6] = static_cast<char>('0' + m % 10);
  text[7] = '-';
  text[8] = static_cast<char>('0' + d / 10);
  text[9] = static_cast<char>('0' + d % 10);
  return std::string(text, 10);
}

}  // namespace sinkd::partition
