// Whether this test binary is built with AddressSanitizer (`make test` runs the suite a second
// time so): the large property and oracle tests scale their sizes down by this, because such a
// build runs about six times slower and every test of a suite repeats the suite's setup in its
// own process under ctest. The release run keeps the sizes the tests' comments promise.
#pragma once

namespace tessera::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#else
inline constexpr bool kSanitizedBuild = false;
#endif

}  // namespace tessera::testing
