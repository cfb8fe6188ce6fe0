// util::SharedLibrary (util/shared_library.h): a library opened on first use, its functions
// bound into typed pointers, and errors that name the files tried, the symbols missing and the
// fix.
#include "tessera/util/shared_library.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "support/status_assertions.h"
#include "tessera/status.h"

namespace tessera::util::shared_library_test {
namespace {

TEST(SharedLibrary, OpensTheFirstPathThatLoadsAndBindsTypedFunctions) {
  ASSERT_OK_AND_ASSIGN(auto library, SharedLibrary::Open({"libno-such-library.so.9", "libm.so.6"},
                                                         ErrorKind::kInternal, "libm", "none"));
  EXPECT_EQ(library.path(), "libm.so.6");
  double (*cosine)(double) = nullptr;
  library.Bind(&cosine, "cos");
  ASSERT_OK(library.Complete());
  ASSERT_NE(cosine, nullptr);
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
}

TEST(SharedLibrary, ALibraryThatDoesNotLoadIsAnErrorNamingEveryPathTriedAndTheFix) {
  auto library =
      SharedLibrary::Open({"libno-such-library.so.9", "libnor-this.so.1"}, ErrorKind::kUnsupported,
                          "libexample, which X needs,", "install libexample1");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(KindOf(library.status()), ErrorKind::kUnsupported);
  const std::string message = library.status().message();
  EXPECT_NE(message.find("libexample, which X needs, cannot be loaded"), std::string::npos)
      << message;
  EXPECT_NE(message.find("libno-such-library.so.9: "), std::string::npos) << message;
  EXPECT_NE(message.find("libnor-this.so.1: "), std::string::npos) << message;
  EXPECT_NE(message.find("install libexample1"), std::string::npos) << message;
}

TEST(SharedLibrary, MissingSymbolsAreAnErrorOfTheLibrarysKindNamingThem) {
  ASSERT_OK_AND_ASSIGN(auto library, SharedLibrary::Open({"libm.so.6"}, ErrorKind::kInternal,
                                                         "libm, which Y needs,", "install libm6"));
  double (*cosine)(double) = nullptr;
  void (*missing)() = nullptr;
  void (*also_missing)() = nullptr;
  library.Bind(&cosine, "cos");
  library.Bind(&missing, "tessera_no_such_function");
  library.Bind(&also_missing, "tessera_nor_this_one");
  EXPECT_EQ(missing, nullptr);
  const arrow::Status complete = library.Complete();
  ASSERT_FALSE(complete.ok());
  EXPECT_EQ(KindOf(complete), ErrorKind::kInternal);
  EXPECT_NE(complete.message().find("libm, which Y needs, loaded from libm.so.6 lacks "
                                    "tessera_no_such_function, tessera_nor_this_one"),
            std::string::npos)
      << complete.message();
  EXPECT_NE(complete.message().find("install libm6"), std::string::npos) << complete.message();
}

}  // namespace
}  // namespace tessera::util::shared_library_test
