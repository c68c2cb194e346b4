// The manifest reader of the image tests: the constructs configs/mpijob-shmtrain.yaml uses, and an
// error naming the line for what it does not read.
#include "manifest_yaml.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace shmtrain::testing {
namespace {

TEST(ManifestYaml, ReadsMappingsSequencesItemsFlowListsAndComments) {
  const nlohmann::json doc = read_manifest_yaml(R"(# a comment
kind: MPIJob            # after a value
spec:
  slotsPerWorker: 2
  replicaSpecs:
    Launcher:
      containers:
        - name: launcher
          command: ["mpirun"]
          args:
            - -np
            - "4"
            - --bind-to
          ports:
          - containerPort: 2222
        - name: 'second'
  url: http://host/a#b
)");
  EXPECT_EQ(doc["kind"], "MPIJob");
  EXPECT_EQ(doc["spec"]["slotsPerWorker"], "2");
  const nlohmann::json& containers = doc["spec"]["replicaSpecs"]["Launcher"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["name"], "launcher");
  EXPECT_EQ(containers[0]["command"], nlohmann::json::array({"mpirun"}));
  EXPECT_EQ(containers[0]["args"], nlohmann::json::array({"-np", "4", "--bind-to"}));
  EXPECT_EQ(containers[0]["ports"][0]["containerPort"], "2222");
  EXPECT_EQ(containers[1]["name"], "second");
  EXPECT_EQ(doc["spec"]["url"], "http://host/a#b");
}

TEST(ManifestYaml, WhatItDoesNotReadIsAnErrorNamingTheLine) {
  for (const char* text : {"a: 1\nb: |\n  text\n", "a: 1\n  b: 2\n", "a: 1\na: 2\n", "a:\n\tb: 1\n",
                           "a: {b: 1}\n", "a: 1\n---\nb: 2\n"}) {
    try {
      read_manifest_yaml(text);
      ADD_FAILURE() << "read: " << text;
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find("line "), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace shmtrain::testing
