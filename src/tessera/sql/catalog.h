// Catalog: a directory of databases of tables, the namespace of the SQL surface.
//
//   <root>/<database>/<table>/      a tessera dataset (it has _versions/)
//
// Names are matched without regard to case and keep the case they were created with (the
// directory's name), as MySQL does on case-insensitive systems; two entries differing only by
// case are refused on creation and reported as ambiguous when found. A table is named
// `table`, `database.table` or `catalog.database.table`, where `catalog` is the catalog's name
// (default "tessera"). New names must be plain: letters, digits, '_', '-', '$', no leading '.'
// (they become directory names).
//
// The catalog holds no state of its own beyond the directory: every lookup lists it anew, so
// that tables other processes create are seen at once.
#pragma once

#include <arrow/result.h>

#include <string>
#include <string_view>
#include <vector>

#include "tessera/sql/statement.h"

namespace tessera::sql {

struct TableLocation {
  std::string database;  // display names (as on disk)
  std::string table;
  std::string uri;  // the dataset's directory
  // `database.table` for messages.
  std::string Qualified() const { return database + "." + table; }
};

class Catalog {
 public:
  // `root` must be a directory. InvalidArgument otherwise.
  static arrow::Result<Catalog> Open(std::string root, std::string name = "tessera");

  const std::string& name() const { return name_; }
  const std::string& root() const { return root_; }

  // Database names, sorted (case-insensitively).
  arrow::Result<std::vector<std::string>> Databases() const;
  // The display name of database `name`; kUnknownDatabase (with a suggestion) when absent.
  arrow::Result<std::string> ResolveDatabase(std::string_view name) const;
  // Table names of `database` (a display name), sorted.
  arrow::Result<std::vector<std::string>> Tables(std::string_view database) const;

  // The table `name` names, with `current_database` (USE; may be empty) for one-part names.
  // kUnknownTable / kUnknownDatabase / kNoDatabaseSelected as MySQL reports them.
  arrow::Result<TableLocation> ResolveTable(const ObjectName& name,
                                            std::string_view current_database) const;
  // Where a new table `name` goes: kTableExists when one of that name (in any case) exists.
  arrow::Result<TableLocation> NewTable(const ObjectName& name,
                                        std::string_view current_database) const;

  // kDatabaseExists unless if_not_exists. Returns whether it created it.
  arrow::Result<bool> CreateDatabase(std::string_view name, bool if_not_exists) const;
  // Removes the database and every table in it; kUnknownDatabase unless if_exists.
  arrow::Result<bool> DropDatabase(std::string_view name, bool if_exists) const;
  // Removes the table's directory; kUnknownTable unless if_exists.
  arrow::Result<bool> DropTable(const ObjectName& name, std::string_view current_database,
                                bool if_exists) const;

 private:
  Catalog(std::string root, std::string name) : root_(std::move(root)), name_(std::move(name)) {}
  // The database and table parts of `name`, the catalog part checked.
  arrow::Result<std::pair<std::string, std::string>> Split(const ObjectName& name,
                                                           std::string_view current_database) const;

  std::string root_;
  std::string name_;
};

}  // namespace tessera::sql
