// run_swag's data (task/swag): each example's 4 choices as run_swag's preprocess_function builds
// them, truncated longest_first; labels; predictions; errors.
#include <string>

#include "shmtrain/task/swag/swag_task.hpp"
#include "task/task_fixture.hpp"

namespace shmtrain::task {
// Its own namespace: the unity build puts test files side by side.
namespace swag_task_test {
namespace {

class SwagData : public DataFiles {
 protected:
  TaskOptions swag(const std::string& train, const std::string& validation, std::size_t max_seq_length = 32) const {
    TaskOptions options = custom(train, validation);
    options.task_name = "swag";
    options.max_seq_length = max_seq_length;
    return options;
  }
};

constexpr const char* kHeader = "video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0,ending1,ending2,ending3,label\n";

TEST_F(SwagData, EachChoiceIsTheContextPairedWithTheHeaderAndItsEnding) {
  write("train.csv", std::string(kHeader) + "v,1,x,the cat,sat,gold,on the mat,hello,world world,bert,0\n" +
                         "v,2,x,hello,the,gold,a,b,c,d,3\n");
  const auto task = load(swag("train.csv", "train.csv"));
  ASSERT_EQ(task->train()->examples.size(), 2u);
  const Example& e = task->train()->examples[0];
  EXPECT_EQ(e.label, 0);
  ASSERT_EQ(e.choice_lengths, (Ids{9, 7, 8, 7}));
  EXPECT_EQ(tokens(e), (Tokens{"[CLS]", "the", "cat", "[SEP]", "sat", "on", "the", "mat", "[SEP]",  //
                               "[CLS]", "the", "cat", "[SEP]", "sat", "hello", "[SEP]",            //
                               "[CLS]", "the", "cat", "[SEP]", "sat", "world", "world", "[SEP]",    //
                               "[CLS]", "the", "cat", "[SEP]", "sat", "bert", "[SEP]"}));
  EXPECT_EQ(e.token_type_ids[4], 1);
  EXPECT_EQ(task->train()->examples[1].label, 3);
  EXPECT_EQ(task->target(), Target::kChoice);
  EXPECT_EQ(task->output_width(2, 32), 4);
}

TEST_F(SwagData, TruncatesEachChoiceLongestFirst) {
  write("train.csv", std::string(kHeader) + "v,1,x,the cat sat on the mat,hello,gold,world world world,a,b,c,1\n");
  const auto task = load(swag("train.csv", "train.csv", 8));
  const Example& e = task->train()->examples[0];
  EXPECT_EQ(e.choice_lengths[0], 8);
  // The pair of 6 and 4 words in 5 places: the shorter keeps 2, the longer 3.
  EXPECT_EQ(tokens(e), (Tokens{"[CLS]", "the", "cat", "sat", "[SEP]", "hello", "world", "[SEP]",  //
                               "[CLS]", "the", "cat", "sat", "[SEP]", "hello", "a", "[SEP]",        //
                               "[CLS]", "the", "cat", "sat", "[SEP]", "hello", "b", "[SEP]",        //
                               "[CLS]", "the", "cat", "sat", "[SEP]", "hello", "c", "[SEP]"}));
}

TEST_F(SwagData, ScoresAndPredictsTheHighestChoice) {
  write("train.csv", std::string(kHeader) + "v,1,x,a,b,g,c,d,e,v,2\nv,1,x,a,b,g,c,d,e,v,0\n");
  TaskOptions options = swag("train.csv", "train.csv");
  options.test_file = dir_ / "train.csv";
  const auto task = load_task(options, tokenizer_, false, true, true);
  const std::vector<float> logits = {0, 0, 5, 0, 0, 4, 0, 0};  // right, then wrong
  const Metrics metrics = task->score(ModelOutputs{logits, 4}, {});
  EXPECT_EQ(metrics[1].first, "accuracy");
  EXPECT_DOUBLE_EQ(metrics[1].second, 0.5);
  const Prediction p = task->predict(ModelOutputs{logits, 4}, dir_.path());
  EXPECT_EQ(shmtrain::testing::read_file(dir_ / "predict_results_swag.txt"), "index\tprediction\n0\t2\n1\t1\n");
  EXPECT_DOUBLE_EQ(p.metrics[1].second, 0.5);
}

TEST_F(SwagData, ErrorsNameTheFileLineAndColumn) {
  write("bad.csv", std::string(kHeader) + "v,1,x,a,b,g,c,d,e,v,7\n");
  EXPECT_TRUE(contains(error(swag("bad.csv", "bad.csv")), "bad.csv:2: label '7' is not a choice (0 to 3)"));
  write("columns.csv", "sent1,sent2,ending0,label\na,b,c,0\n");
  EXPECT_TRUE(contains(error(swag("columns.csv", "columns.csv")), "no column 'ending1'"));
  TaskOptions no_files;
  no_files.task_name = "swag";
  EXPECT_TRUE(contains(error(no_files), "--task_name swag needs --train_file"));
}

}  // namespace
}  // namespace swag_task_test
}  // namespace shmtrain::task
