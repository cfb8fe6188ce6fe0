// Random (version 4) UUIDs naming data files, transactions and segments.
//
// Names must never collide between concurrent writers in different processes, so they come
// from the OS entropy source rather than a seedable generator; nothing that depends on them
// is part of a result, so determinism is not affected.
#pragma once

#include <string>

namespace tessera::io {

std::string NewUuid();

}  // namespace tessera::io
