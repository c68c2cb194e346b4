#pragma once
// Internal to io: the entries of a zip archive whose members are stored, not compressed (what
// torch.save writes: PyTorch's zip writer stores every record). Reads the end-of-central-
// directory record (zip64's too), the central directory and each member's local header, and
// checks that every member's bytes lie inside the file. InputError naming the file and the
// problem for anything else (a compressed or encrypted member, a truncated file).
#include <cstddef>
#include <map>
#include <span>
#include <string>

namespace shmtrain::io {

// name -> the member's bytes (a view into `bytes`).
std::map<std::string, std::span<const std::byte>> stored_zip_members(std::span<const std::byte> bytes,
                                                                     const std::string& where);

}  // namespace shmtrain::io
