#include "simphant/core/nearest_name.hpp"

#include <algorithm>

namespace simphant {

int edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates) {
  const int limit = std::max(1, static_cast<int>(word.size()) / 3);
  std::string best;
  int best_d = limit + 1;
  for (const std::string& c : candidates) {
    const int dist = edit_distance(word, c);
    if (dist < best_d) {
      best_d = dist;
      best = c;
    }
  }
  return best;
}

}  // namespace simphant
