#pragma once
// The nearest of some names to a misspelt one: the typo hints of the command line
// (cli/typo_hint.hpp) and of the Python commands `simphant serve` and `view`
// (simphant.serve.cli_style, through the module), one rule for both.
#include <string>
#include <vector>

namespace simphant {

/// The optimal string alignment distance between a and b (insertions, deletions,
/// substitutions and transpositions of neighbours, each 1).
int edit_distance(const std::string& a, const std::string& b);

/// The candidate nearest to `word` within max(1, |word| / 3) edits (ties: the first
/// listed), or "" when none is that near.
std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace simphant
