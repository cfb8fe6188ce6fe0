// How the CLI prints floats of every width (issue 11, finding 6: float16 printed as strings in
// --format json): numbers in the shortest form that reads back as the same value of the
// column's own type; in JSON, null for null, NaN and ±inf; in csv and table, NaN / inf / -inf.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/writer.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <string>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_float_format_test {
namespace {

class CliFloatFormatTest : public CliFixture {
 protected:
  void SetUp() override {
    const std::string rows = "[0.1, -0.0, 65504, 1e-7, null, NaN, Infinity, -Infinity]";
    const std::string wide_rows = "[0.1, -0.0, 65504, 1e-7, null, NaN, Infinity, -Infinity]";
    auto schema =
        arrow::schema({arrow::field("h", arrow::float16()), arrow::field("f", arrow::float32()),
                       arrow::field("d", arrow::float64()),
                       arrow::field("hs", arrow::fixed_size_list(arrow::float16(), 2))});
    auto halves = arrow::json::ArrayFromJSONString(arrow::float16(), rows).ValueOrDie();
    auto floats = arrow::json::ArrayFromJSONString(arrow::float32(), wide_rows).ValueOrDie();
    auto doubles = arrow::json::ArrayFromJSONString(arrow::float64(), wide_rows).ValueOrDie();
    auto lists = arrow::json::ArrayFromJSONString(
                     arrow::fixed_size_list(arrow::float16(), 2),
                     "[[0.1, NaN], [0, -0.0], [65504, 1], null, [1, 2], [1.5, 3], [-Infinity, 4], "
                     "[0.333, 5]]")
                     .ValueOrDie();
    auto batch = arrow::RecordBatch::Make(schema, 8, {halves, floats, doubles, lists});
    const std::string file = Path("floats.arrow");
    auto sink = arrow::io::FileOutputStream::Open(file).ValueOrDie();
    auto writer = arrow::ipc::MakeFileWriter(sink, schema).ValueOrDie();
    ASSERT_TRUE(writer->WriteRecordBatch(*batch).ok());
    ASSERT_TRUE(writer->Close().ok());
    ASSERT_TRUE(sink->Close().ok());
    ds_ = Path("ds");
    RunOk({"create", ds_, "--from", file});
  }

  std::string ds_;
};

TEST_F(CliFloatFormatTest, JsonPrintsEveryFloatWidthAsNumbers) {
  // float16 0.1 is 0.0999755859375: printed as 0.1, which reads back as the same float16; 1e-7
  // is a float16 subnormal (1.19e-07 is the nearest).
  EXPECT_EQ(RunOk({"scan", ds_, "--format", "json"}),
            "{\"h\":0.1,\"f\":0.1,\"d\":0.1,\"hs\":[0.1,null]}\n"
            "{\"h\":-0,\"f\":-0,\"d\":-0,\"hs\":[0,-0]}\n"
            "{\"h\":65500,\"f\":65504,\"d\":65504,\"hs\":[65500,1]}\n"
            "{\"h\":1e-07,\"f\":1e-07,\"d\":1e-07,\"hs\":null}\n"
            "{\"h\":null,\"f\":null,\"d\":null,\"hs\":[1,2]}\n"
            "{\"h\":null,\"f\":null,\"d\":null,\"hs\":[1.5,3]}\n"
            "{\"h\":null,\"f\":null,\"d\":null,\"hs\":[null,4]}\n"
            "{\"h\":null,\"f\":null,\"d\":null,\"hs\":[0.333,5]}\n");
}

TEST_F(CliFloatFormatTest, CsvAndTableSpellNanAndInfinities) {
  EXPECT_EQ(RunOk({"scan", ds_, "--format", "csv", "--columns", "h,f,d"}),
            "h,f,d\n"
            "0.1,0.1,0.1\n"
            "-0,-0,-0\n"
            "65500,65504,65504\n"
            "1e-07,1e-07,1e-07\n"
            ",,\n"
            "NaN,NaN,NaN\n"
            "inf,inf,inf\n"
            "-inf,-inf,-inf\n");
  EXPECT_EQ(RunOk({"scan", ds_, "--columns", "h", "--where", "h > 1"}),
            " h\n"
            "-------\n"
            " 65500\n"
            "   inf\n"
            "(2 rows)\n");
}

}  // namespace
}  // namespace tessera::testing::cli_float_format_test
