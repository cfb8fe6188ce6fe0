#include "tessera/sql/mutation.h"

#include "tessera/sql/names.h"
#include "tessera/util/overloaded.h"

namespace tessera::sql {

namespace {

using util::Overloaded;

arrow::Result<std::optional<std::string>> EntryOf(const Catalog& catalog, const ObjectName& table,
                                                  std::string_view current_database,
                                                  std::string_view index_name) {
  ARROW_ASSIGN_OR_RAISE(auto location, catalog.ResolveTable(table, current_database));
  return AsciiLower(location.uri) + "#" + AsciiLower(index_name);
}

}  // namespace

bool IsWorkerMutation(const Statement& statement) {
  return std::holds_alternative<CreateIndexStatement>(statement.body) ||
         std::holds_alternative<DropIndexStatement>(statement.body) ||
         std::holds_alternative<InsertStatement>(statement.body) ||
         std::holds_alternative<DeleteStatement>(statement.body) ||
         std::holds_alternative<CreateTableAsStatement>(statement.body);
}

arrow::Result<std::optional<std::string>> MutationEntryName(const Statement& statement,
                                                            const Catalog& catalog,
                                                            std::string_view current_database) {
  using Entry = arrow::Result<std::optional<std::string>>;
  return std::visit(
      Overloaded{
          [&](const CreateIndexStatement& s) -> Entry {
            return EntryOf(catalog, s.table, current_database, s.index_name);
          },
          [&](const DropIndexStatement& s) -> Entry {
            return EntryOf(catalog, s.table, current_database, s.index_name);
          },
          [&](const InsertStatement& s) -> Entry {
            return EntryOf(catalog, s.table, current_database, "");
          },
          [&](const DeleteStatement& s) -> Entry {
            return EntryOf(catalog, s.table, current_database, "");
          },
          [&](const CreateTableAsStatement& s) -> Entry {
            // The new table's directory; an existing table's own (its preflight answers with
            // IF NOT EXISTS or 1050, but a DROP in between must not let it run unguarded).
            auto location = catalog.NewTable(s.table, current_database);
            if (!location.ok()) location = catalog.ResolveTable(s.table, current_database);
            if (!location.ok()) return std::optional<std::string>(std::nullopt);
            return AsciiLower(location->uri) + "#";
          },
          [&](const auto&) -> Entry { return std::optional<std::string>(std::nullopt); },
      },
      statement.body);
}

}  // namespace tessera::sql
