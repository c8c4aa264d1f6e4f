// The wording of messages: the indefinite article of a type or kind name that follows "a"
// ("an Int", "a Tensor"), worded as python/kiln/codegen/wording.py words it.
#pragma once

#include <cctype>

namespace kiln {

// "an" when `name` is said with a vowel first ("Int", "IntList", "OptionalTensorList",
// "Undefined"), else "a" ("Tensor"; "UInt16" and "uint8" start with the sound "you").
inline const char* indefinite_article(const char* name) {
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  const char first = lower(name[0]);
  if (first == 'a' || first == 'e' || first == 'i' || first == 'o') return "an";
  if (first == 'u') {
    const char second = lower(name[1]);
    const bool you =
        second == 'i' || second == 's' || second == 't' || (second == 'n' && lower(name[2]) == 'i');
    return you ? "a" : "an";
  }
  return "a";
}

}  // namespace kiln
