#include "schema.hpp"

#include "shmtrain/common/error.hpp"

namespace shmtrain::data::parquet {
namespace {

ValueKind leaf_kind(const SchemaElement& element, const std::string& path) {
  const bool is_unsigned = element.annotation == Annotation::integer && !element.is_signed;
  const bool is_decimal = element.annotation == Annotation::decimal;
  switch (*element.type) {
    case PhysicalType::boolean:
      return ValueKind::boolean;
    case PhysicalType::int32:
      return is_unsigned ? ValueKind::uint32 : is_decimal ? ValueKind::decimal32 : ValueKind::int32;
    case PhysicalType::int64:
      return is_unsigned ? ValueKind::uint64 : is_decimal ? ValueKind::decimal64 : ValueKind::int64;
    case PhysicalType::int96:
      fail_input(
          "column {}: INT96 values (legacy timestamps) are not supported; write timestamps as INT64 "
          "(pyarrow: use_deprecated_int96_timestamps=False)",
          path);
    case PhysicalType::real:
    case PhysicalType::double_:
      return ValueKind::real;
    case PhysicalType::byte_array:
    case PhysicalType::fixed_len_byte_array:
      if (*element.type == PhysicalType::fixed_len_byte_array) {
        if (element.type_length <= 0 || element.type_length > (1 << 20)) {
          fail_input("column {}: FIXED_LEN_BYTE_ARRAY of length {}", path, element.type_length);
        }
        if (element.annotation == Annotation::float16) {
          if (element.type_length != 2)
            fail_input("column {}: FLOAT16 of {} bytes", path, element.type_length);
          return ValueKind::real16;
        }
      }
      return is_decimal ? ValueKind::decimal_bytes : ValueKind::text;
  }
  fail_input("column {}: unknown physical type", path);
}

class Builder {
 public:
  explicit Builder(const std::vector<SchemaElement>& elements) : elements_(elements) {}

  Schema build() {
    if (elements_.empty()) fail_input("the schema is empty");
    const SchemaElement& root = elements_[0];
    if (!root.num_children || *root.num_children <= 0) fail_input("the schema has no columns");
    schema_.nodes.emplace_back().name = root.name;
    next_ = 1;
    add_children(0, *root.num_children, 1);
    if (next_ != elements_.size()) {
      fail_input("the schema lists {} elements but its tree holds {}", elements_.size(), next_);
    }
    schema_.nodes[0].leaf_end = schema_.leaves.size();
    return std::move(schema_);
  }

 private:
  void add_children(std::size_t parent, std::int32_t count, int depth) {
    if (depth > kMaxSchemaDepth) fail_input("the schema nests deeper than {} levels", kMaxSchemaDepth);
    for (std::int32_t i = 0; i < count; ++i) {
      // Checked for each child: the children before it took their own descendants.
      if (next_ >= elements_.size()) {
        fail_input("field {} declares {} children but the schema ends after {}",
                   parent == 0 ? "<root>" : schema_.nodes[parent].path, count, i);
      }
      const std::string& name = elements_[next_].name;
      for (const std::size_t sibling : schema_.nodes[parent].children) {
        if (schema_.nodes[sibling].name == name)
          fail_input("two fields named {} in one group", schema_.nodes[sibling].path);
      }
      schema_.nodes[parent].children.push_back(schema_.nodes.size());
      add_node(parent, elements_[next_++], depth);
    }
  }

  void add_node(std::size_t parent, const SchemaElement& element, int depth) {
    const std::size_t index = schema_.nodes.size();
    SchemaNode node;
    node.name = element.name;
    node.path = parent == 0 ? element.name : schema_.nodes[parent].path + "." + element.name;
    if (!element.repetition) fail_input("field {} has no repetition type", node.path);
    node.repetition = *element.repetition;
    node.annotation = element.annotation;
    node.definition_level =
        schema_.nodes[parent].definition_level + (node.repetition != Repetition::required);
    node.repetition_level =
        schema_.nodes[parent].repetition_level + (node.repetition == Repetition::repeated);
    node.leaf_begin = schema_.leaves.size();
    const bool is_group = element.num_children && *element.num_children > 0;
    if (!is_group && !element.type) {
      fail_input("field {} is neither a group with children nor a column with a type", node.path);
    }
    if (!is_group) {
      node.is_leaf = true;
      node.type = *element.type;
      node.type_length = element.type_length;
      node.kind = leaf_kind(element, node.path);
      node.scale = element.scale;
      schema_.leaves.push_back(index);
    }
    schema_.nodes.push_back(std::move(node));
    if (is_group) add_children(index, *element.num_children, depth + 1);
    schema_.nodes[index].leaf_end = schema_.leaves.size();
  }

  const std::vector<SchemaElement>& elements_;
  Schema schema_;
  std::size_t next_ = 0;
};

}  // namespace

Schema build_schema(const std::vector<SchemaElement>& elements) { return Builder(elements).build(); }

}  // namespace shmtrain::data::parquet
