#include "shmtrain/model/sentence/sentence_options.hpp"

#include "shmtrain/common/error.hpp"

namespace shmtrain::model::sentence {

SentenceLoss parse_sentence_loss(const std::string& name) {
  for (const SentenceLoss loss : {SentenceLoss::kMultipleNegativesRanking, SentenceLoss::kCachedMultipleNegativesRanking,
                                  SentenceLoss::kCoSent, SentenceLoss::kAnglE}) {
    if (name == sentence_loss_name(loss)) return loss;
  }
  fail_input("--loss: '{}' is not a sentence-embedding loss: give MultipleNegativesRankingLoss, "
             "CachedMultipleNegativesRankingLoss, CoSENTLoss or AnglELoss",
             name);
}

const char* sentence_loss_name(SentenceLoss loss) {
  switch (loss) {
    case SentenceLoss::kMultipleNegativesRanking: return "MultipleNegativesRankingLoss";
    case SentenceLoss::kCachedMultipleNegativesRanking: return "CachedMultipleNegativesRankingLoss";
    case SentenceLoss::kCoSent: return "CoSENTLoss";
    case SentenceLoss::kAnglE: return "AnglELoss";
  }
  return "MultipleNegativesRankingLoss";
}

}  // namespace shmtrain::model::sentence
