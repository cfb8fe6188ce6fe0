// Overloaded: a visitor for std::visit made of lambdas, one per alternative.
#pragma once

namespace tessera::util {

template <typename... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <typename... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace tessera::util
