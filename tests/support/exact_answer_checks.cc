#include "support/exact_answer_checks.h"

#include <gtest/gtest.h>

#include <memory>

namespace tessera::testing {

int ExpectExactAnswersEqualScan(const index::ScalarSegmentReader& reader, const ColumnDataset& data,
                                const format::SegmentMeta& segment,
                                const std::vector<std::string>& leaves,
                                const AnsweredLeafCheck& also) {
  int answered = 0;
  for (const auto& text : leaves) {
    std::shared_ptr<const void> holder;
    auto leaf = ParseLeaf(data, text, &holder);
    EXPECT_TRUE(leaf.ok()) << text << ": " << leaf.status().ToString();
    if (!leaf.ok()) continue;
    const index::Capability capability = reader.Assess(**leaf);
    if (capability.coverage == index::Coverage::kNone) continue;  // folded by the binder
    EXPECT_EQ(capability.coverage, index::Coverage::kExact) << text;
    auto answer = reader.Answer(**leaf);
    EXPECT_TRUE(answer.ok()) << text << ": " << answer.status().ToString();
    if (!answer.ok()) continue;
    auto expected = ScanTrueRows(data, text, &segment);
    EXPECT_TRUE(expected.ok()) << expected.status().ToString();
    EXPECT_EQ(answer->Addresses(), *expected) << text << " (" << (*leaf)->ToString() << ")";
    EXPECT_TRUE(answer->exact);
    if (also) also(text, **leaf, capability, *answer);
    ++answered;
  }
  return answered;
}

}  // namespace tessera::testing
