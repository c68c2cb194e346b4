#pragma once
// The part of YAML that Kubernetes manifests such as configs/mpijob-shmtrain.yaml are written in,
// read into JSON, so that a test can check what the manifest names against the image: block
// mappings and sequences by indentation (a sequence may sit at its key's indentation), `- key:
// value` items, plain and quoted scalars, flow sequences of quoted strings (`["mpirun"]`) and
// comments. Scalars stay strings. Anything else (anchors, multi-line strings, several documents)
// is an error naming the line, not a guess.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace shmtrain::testing {

nlohmann::json read_manifest_yaml(const std::string& text);
nlohmann::json read_manifest_yaml_file(const std::filesystem::path& path);

}  // namespace shmtrain::testing
