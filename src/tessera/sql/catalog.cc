#include "tessera/sql/catalog.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "tessera/expr/diagnostics.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/names.h"

namespace tessera::sql {

namespace fs = std::filesystem;

namespace {

bool IsDataset(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path / "_versions", error);
}

// The subdirectories of `directory` (datasets only with `datasets`), sorted case-insensitively.
arrow::Result<std::vector<std::string>> ListEntries(const fs::path& directory, bool datasets) {
  std::vector<std::string> names;
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error) {
    return Error(ErrorKind::kIOError, "cannot list catalog directory ", directory.string(), ": ",
                 error.message());
  }
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || name[0] == '_') continue;
    std::error_code kind_error;
    if (!entry.is_directory(kind_error)) continue;
    // A database is any directory that is not itself a dataset; a table is a dataset.
    if (IsDataset(entry.path()) != datasets) continue;
    names.push_back(name);
  }
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
      return std::tolower(static_cast<unsigned char>(x)) <
             std::tolower(static_cast<unsigned char>(y));
    });
  });
  return names;
}

// The entry of `names` that `name` names: the exact spelling, else the only one equal but for
// case; empty when none. Ambiguous when several differ from `name` only by case.
arrow::Result<std::string> Match(const std::vector<std::string>& names, std::string_view name,
                                 std::string_view what) {
  std::vector<std::string> matches;
  for (const auto& candidate : names) {
    if (candidate == name) return candidate;
    if (SameName(candidate, name)) matches.push_back(candidate);
  }
  if (matches.size() > 1) {
    return Error(ErrorKind::kAmbiguous, what, " '", name, "' is ambiguous: the catalog holds ",
                 matches.size(), " that differ only by case ('", matches[0], "', '", matches[1],
                 "'); rename one of the directories");
  }
  return matches.empty() ? std::string() : matches[0];
}

std::string Suggest(const std::vector<std::string>& names, std::string_view name) {
  const std::string hint = expr::DidYouMean(expr::ClosestNames(name, names));
  return hint.empty() ? "" : "; " + hint;
}

arrow::Status CheckNewName(std::string_view name, std::string_view what) {
  const bool plain =
      !name.empty() && name.size() <= 128 && name[0] != '.' && name[0] != '_' &&
      std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '$';
      });
  if (plain) return arrow::Status::OK();
  return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument, "invalid ", what,
                  " name '", name,
                  "': names of new databases and tables use letters, digits, '_', '-' and '$', "
                  "do not start with '_', and have at most 128 characters");
}

}  // namespace

arrow::Result<Catalog> Catalog::Open(std::string root, std::string name) {
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    return InvalidArgument("catalog directory '", root,
                           "' does not exist or is not a directory; create it first (mkdir)");
  }
  return Catalog(std::move(root), std::move(name));
}

arrow::Result<std::vector<std::string>> Catalog::Databases() const {
  return ListEntries(root_, /*datasets=*/false);
}

arrow::Result<std::string> Catalog::ResolveDatabase(std::string_view name) const {
  ARROW_ASSIGN_OR_RAISE(auto names, Databases());
  ARROW_ASSIGN_OR_RAISE(auto found, Match(names, name, "database"));
  if (found.empty()) {
    return SqlError(SqlCode::kUnknownDatabase, ErrorKind::kNotFound, "Unknown database '", name,
                    "'", Suggest(names, name));
  }
  return found;
}

arrow::Result<std::vector<std::string>> Catalog::Tables(std::string_view database) const {
  return ListEntries(fs::path(root_) / std::string(database), /*datasets=*/true);
}

arrow::Result<std::pair<std::string, std::string>> Catalog::Split(
    const ObjectName& name, std::string_view current_database) const {
  const auto& parts = name.parts;
  if (parts.size() == 3 && !SameName(parts[0], name_)) {
    return SqlError(SqlCode::kUnknownDatabase, ErrorKind::kNotFound, "Unknown catalog '", parts[0],
                    "' in '", name.ToString(), "'; this catalog is named '", name_, "'");
  }
  if (parts.size() == 1) {
    if (current_database.empty()) {
      return SqlError(SqlCode::kNoDatabaseSelected, ErrorKind::kInvalidArgument,
                      "No database selected for table '", parts[0], "'; write db.", parts[0],
                      " or USE db first");
    }
    return std::make_pair(std::string(current_database), parts[0]);
  }
  return std::make_pair(parts[parts.size() - 2], parts.back());
}

arrow::Result<TableLocation> Catalog::ResolveTable(const ObjectName& name,
                                                   std::string_view current_database) const {
  ARROW_ASSIGN_OR_RAISE(auto split, Split(name, current_database));
  ARROW_ASSIGN_OR_RAISE(auto database, ResolveDatabase(split.first));
  ARROW_ASSIGN_OR_RAISE(auto tables, Tables(database));
  ARROW_ASSIGN_OR_RAISE(auto table, Match(tables, split.second, "table"));
  if (table.empty()) {
    return SqlError(SqlCode::kUnknownTable, ErrorKind::kNotFound, "Table '", database, ".",
                    split.second, "' doesn't exist", Suggest(tables, split.second));
  }
  return TableLocation{database, table, (fs::path(root_) / database / table).string()};
}

arrow::Result<TableLocation> Catalog::NewTable(const ObjectName& name,
                                               std::string_view current_database) const {
  ARROW_ASSIGN_OR_RAISE(auto split, Split(name, current_database));
  ARROW_ASSIGN_OR_RAISE(auto database, ResolveDatabase(split.first));
  RETURN_NOT_OK(CheckNewName(split.second, "table"));
  // Any entry of the name blocks it, a dataset or not.
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(fs::path(root_) / database, error)) {
    if (SameName(entry.path().filename().string(), split.second)) {
      return SqlError(SqlCode::kTableExists, ErrorKind::kAlreadyExists, "Table '", database, ".",
                      entry.path().filename().string(), "' already exists");
    }
  }
  return TableLocation{database, split.second,
                       (fs::path(root_) / database / split.second).string()};
}

arrow::Result<bool> Catalog::CreateDatabase(std::string_view name, bool if_not_exists) const {
  RETURN_NOT_OK(CheckNewName(name, "database"));
  ARROW_ASSIGN_OR_RAISE(auto names, Databases());
  ARROW_ASSIGN_OR_RAISE(auto found, Match(names, name, "database"));
  if (!found.empty()) {
    if (if_not_exists) return false;
    return SqlError(SqlCode::kDatabaseExists, ErrorKind::kAlreadyExists, "Can't create database '",
                    name, "'; database exists", found != name ? " (as '" + found + "')" : "");
  }
  std::error_code error;
  if (!fs::create_directory(fs::path(root_) / std::string(name), error) || error) {
    return Error(ErrorKind::kIOError, "cannot create database directory '", name, "' in ", root_,
                 ": ", error ? error.message() : "it exists");
  }
  return true;
}

arrow::Result<bool> Catalog::DropDatabase(std::string_view name, bool if_exists) const {
  auto database = ResolveDatabase(name);
  if (!database.ok()) {
    if (if_exists && CodeOf(database.status()) == SqlCode::kUnknownDatabase) return false;
    return database.status();
  }
  std::error_code error;
  fs::remove_all(fs::path(root_) / *database, error);
  if (error) {
    return Error(ErrorKind::kIOError, "cannot remove database '", *database,
                 "': ", error.message());
  }
  return true;
}

arrow::Result<bool> Catalog::DropTable(const ObjectName& name, std::string_view current_database,
                                       bool if_exists) const {
  auto location = ResolveTable(name, current_database);
  if (!location.ok()) {
    // As in MySQL, IF EXISTS also covers a table of a database that does not exist.
    const SqlCode code = CodeOf(location.status());
    if (if_exists && (code == SqlCode::kUnknownTable || code == SqlCode::kUnknownDatabase)) {
      return false;
    }
    return location.status();
  }
  std::error_code error;
  fs::remove_all(location->uri, error);
  if (error) {
    return Error(ErrorKind::kIOError, "cannot remove table '", location->Qualified(),
                 "': ", error.message());
  }
  return true;
}

}  // namespace tessera::sql
