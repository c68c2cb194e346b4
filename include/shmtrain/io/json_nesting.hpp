#pragma once
// A bound on how deeply a JSON text nests its arrays and objects, checked before any parser
// sees it. Parsers and the code that walks their trees recurse once per level, so a crafted
// file of `[[[[...` tens of thousands deep would end the process with a stack overflow instead
// of an error. The scan is one pass over the bytes: brackets inside strings (escapes honoured)
// do not count.
#include <cstddef>
#include <string>
#include <string_view>

namespace shmtrain::io {

// Deeper than any file shmtrain reads needs (tokenizer.json and SQuAD nest under 10 levels),
// shallow enough for every recursive walk of the parsed tree.
inline constexpr std::size_t kMaxJsonNesting = 512;

// The byte at which `text` opens its (limit+1)-th nested array or object, or npos when it
// never nests that deep.
std::size_t json_nesting_overflow(std::string_view text, std::size_t limit = kMaxJsonNesting);

// Throws InputError "<source>: JSON nests deeper than 512 levels (byte N) ..." when `text`
// opens more than `limit` arrays and objects inside one another. Says nothing of whether the
// text is otherwise valid JSON: that is the parser's job.
void check_json_nesting(std::string_view text, const std::string& source,
                        std::size_t limit = kMaxJsonNesting);

}  // namespace shmtrain::io
