#include "tessera/server/account_statements.h"

#include <arrow/builder.h>
#include <arrow/table.h>

#include <cctype>
#include <vector>

#include "tessera/sql/errors.h"
#include "tessera/sql/names.h"

namespace tessera::server {

namespace {

struct Word {
  std::string text;      // as written, quotes removed
  bool quoted = false;   // 'x', "x" or `x`
  char punctuation = 0;  // , . * @ ; = ( ) for those, else 0
};

// Words, quoted strings and punctuation; nullopt on an unterminated quote or another
// character.
std::optional<std::vector<Word>> Split(std::string_view text) {
  std::vector<Word> words;
  size_t at = 0;
  while (at < text.size()) {
    const char c = text[at];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++at;
    } else if (text.compare(at, 2, "--") == 0 || c == '#') {
      const size_t end = text.find('\n', at);
      at = end == std::string_view::npos ? text.size() : end + 1;
    } else if (text.compare(at, 2, "/*") == 0) {
      const size_t end = text.find("*/", at + 2);
      if (end == std::string_view::npos) return std::nullopt;
      at = end + 2;
    } else if (c == '\'' || c == '"' || c == '`') {
      Word word;
      word.quoted = true;
      bool closed = false;
      for (++at; at < text.size(); ++at) {
        if (text[at] == '\\' && c != '`' && at + 1 < text.size()) {
          word.text.push_back(text[++at]);
        } else if (text[at] == c) {
          if (at + 1 < text.size() && text[at + 1] == c) {
            word.text.push_back(c);
            ++at;
          } else {
            closed = true;
            ++at;
            break;
          }
        } else {
          word.text.push_back(text[at]);
        }
      }
      if (!closed) return std::nullopt;
      words.push_back(std::move(word));
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$') {
      Word word;
      while (at < text.size() && (std::isalnum(static_cast<unsigned char>(text[at])) ||
                                  text[at] == '_' || text[at] == '$')) {
        word.text.push_back(text[at++]);
      }
      words.push_back(std::move(word));
    } else if (std::string_view(",.*@;=()").find(c) != std::string_view::npos) {
      Word word;
      word.punctuation = c;
      word.text = std::string(1, c);
      words.push_back(std::move(word));
      ++at;
    } else {
      return std::nullopt;
    }
  }
  while (!words.empty() && words.back().punctuation == ';') words.pop_back();
  return words;
}

arrow::Status Syntax(std::string_view what) {
  return sql::SqlError(sql::SqlCode::kParseError, ErrorKind::kInvalidArgument,
                       "syntax error in an account statement: expected ", what);
}

class Reader {
 public:
  explicit Reader(std::vector<Word> words) : words_(std::move(words)) {}

  bool Keyword(std::string_view keyword) {
    if (at_ < words_.size() && !words_[at_].quoted && words_[at_].punctuation == 0 &&
        sql::AsciiUpper(words_[at_].text) == keyword) {
      ++at_;
      return true;
    }
    return false;
  }
  bool Punctuation(char c) {
    if (at_ < words_.size() && words_[at_].punctuation == c) {
      ++at_;
      return true;
    }
    return false;
  }
  std::optional<std::string> Name() {
    if (at_ < words_.size() && words_[at_].punctuation == 0) return words_[at_++].text;
    return std::nullopt;
  }
  // 'name'[@'host']: the name.
  arrow::Result<std::string> User() {
    auto name = Name();
    if (!name || name->empty()) return Syntax("a user name");
    if (Punctuation('@') && !Name()) return Syntax("a host after '@'");
    return *name;
  }
  std::optional<std::string> Quoted() {
    if (at_ < words_.size() && words_[at_].quoted) return words_[at_++].text;
    return std::nullopt;
  }
  // IDENTIFIED [WITH plugin] BY 'password'.
  struct Identification {
    std::string password;
    std::optional<AccountPlugin> plugin;  // none without WITH
  };
  arrow::Result<Identification> Password() {
    if (!Keyword("IDENTIFIED")) return Syntax("IDENTIFIED [WITH plugin] BY 'password'");
    Identification identification;
    if (Keyword("WITH")) {
      auto name =
          at_ < words_.size() ? std::optional<std::string>(words_[at_++].text) : std::nullopt;
      if (!name) return Syntax("a plugin name after IDENTIFIED WITH");
      const auto plugin = PluginNamed(sql::AsciiLower(*name));
      if (!plugin || *plugin == AccountPlugin::kAny) {
        return sql::SqlError(sql::SqlCode::kPluginNotLoaded, ErrorKind::kInvalidArgument,
                             "Plugin '", *name,
                             "' is not loaded; accounts use mysql_native_password or "
                             "caching_sha2_password");
      }
      identification.plugin = *plugin;
    }
    if (!Keyword("BY")) return Syntax("BY 'password' after IDENTIFIED");
    auto password = Quoted();
    if (!password) return Syntax("a quoted password");
    identification.password = *password;
    return identification;
  }
  bool done() const { return at_ == words_.size(); }

 private:
  std::vector<Word> words_;
  size_t at_ = 0;
};

arrow::Status Refused(sql::SqlCode code, std::string_view operation, const std::string& user) {
  return sql::SqlError(code, ErrorKind::kInvalidArgument, "Operation ", operation, " failed for '",
                       user, "'@'%'");
}

arrow::Status NeedAdministrator(const std::string& user, std::string_view operation) {
  return sql::SqlError(sql::SqlCode::kSpecificAccessDenied, ErrorKind::kInvalidArgument,
                       "Access denied; ", operation, " needs every privilege on *.* (user '", user,
                       "' is no administrator)");
}

bool PlainUserName(const std::string& name) {
  if (name.empty() || name.size() > 32) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

arrow::Result<uint8_t> Privileges(Reader& in) {
  uint8_t bits = 0;
  do {
    if (in.Keyword("SELECT")) {
      bits |= kPrivilegeSelect;
    } else if (in.Keyword("SHOW")) {
      bits |= kPrivilegeShow;
    } else if (in.Keyword("ALTER")) {
      bits |= kPrivilegeAlter;
    } else if (in.Keyword("ALL")) {
      in.Keyword("PRIVILEGES");
      bits |= kPrivilegeAll;
    } else {
      return Syntax("SELECT, SHOW, ALTER or ALL [PRIVILEGES]");
    }
  } while (in.Punctuation(','));
  return bits;
}

arrow::Result<std::string> ScopeOf(Reader& in, const std::string& database);

// "*.*", "db.*" or "db.table"; names with control characters are refused (the grants file
// is one line per scope).
arrow::Result<std::string> Target(Reader& in, const std::string& database) {
  ARROW_ASSIGN_OR_RAISE(auto scope, ScopeOf(in, database));
  for (char c : scope) {
    if (static_cast<unsigned char>(c) < 0x20) return Syntax("a target without control characters");
  }
  return scope;
}

arrow::Result<std::string> ScopeOf(Reader& in, const std::string& database) {
  std::string first;
  if (in.Punctuation('*')) {
    first = "*";
  } else if (auto name = in.Name()) {
    first = *name;
  } else {
    return Syntax("*.*, db.*, db.table or table after ON");
  }
  if (!in.Punctuation('.')) {
    if (database.empty()) {
      return sql::SqlError(sql::SqlCode::kNoDatabaseSelected, ErrorKind::kInvalidArgument,
                           "No database selected for the grant's target '", first, "'; write db.",
                           first);
    }
    return database + "." + first;
  }
  if (first == "*") {
    if (!in.Punctuation('*')) return Syntax("*.*");
    return std::string("*.*");
  }
  if (in.Punctuation('*')) return first + ".*";
  auto table = in.Name();
  if (!table) return Syntax("a table or * after '" + first + ".'");
  return first + "." + *table;
}

std::string PrivilegeList(uint8_t bits) {
  if (bits == kPrivilegeAll) return "ALL PRIVILEGES";
  std::string text;
  for (auto [bit, name] : {std::pair{kPrivilegeSelect, "SELECT"}, std::pair{kPrivilegeShow, "SHOW"},
                           std::pair{kPrivilegeAlter, "ALTER"}}) {
    if ((bits & bit) != 0) text += (text.empty() ? "" : ", ") + std::string(name);
  }
  return text;
}

std::string QuotedScope(const std::string& scope) {
  const size_t dot = scope.find('.');
  auto part = [](const std::string& name) { return name == "*" ? name : "`" + name + "`"; };
  return part(scope.substr(0, dot)) + "." + part(scope.substr(dot + 1));
}

arrow::Result<sql::StatementResult> ShowGrants(Reader& in, const std::string& current_user,
                                               UserStore& users) {
  std::string user = current_user;
  if (in.Keyword("FOR")) {
    if (in.Keyword("CURRENT_USER")) {
      if (in.Punctuation('(') && !in.Punctuation(')')) return Syntax("CURRENT_USER()");
    } else {
      ARROW_ASSIGN_OR_RAISE(user, in.User());
    }
  }
  if (!in.done()) return Syntax("the end of SHOW GRANTS");
  if (user != current_user && !users.IsAdministrator(current_user)) {
    return NeedAdministrator(current_user, "SHOW GRANTS for another user");
  }
  if (!users.Find(user)) {
    return sql::SqlError(sql::SqlCode::kNonexistingGrant, ErrorKind::kNotFound,
                         "There is no such grant defined for user '", user, "' on host '%'");
  }
  arrow::StringBuilder rows;
  const auto grants = users.GrantsOf(user);
  if (grants.empty()) RETURN_NOT_OK(rows.Append("GRANT USAGE ON *.* TO `" + user + "`@`%`"));
  for (const auto& [scope, bits] : grants) {
    RETURN_NOT_OK(rows.Append("GRANT " + PrivilegeList(bits) + " ON " + QuotedScope(scope) +
                              " TO `" + user + "`@`%`"));
  }
  std::shared_ptr<arrow::Array> column;
  RETURN_NOT_OK(rows.Finish(&column));
  sql::StatementResult result;
  result.rows = arrow::Table::Make(
      arrow::schema({arrow::field("Grants for " + user + "@%", arrow::utf8())}), {column});
  return result;
}

arrow::Result<sql::StatementResult> Answer(Reader& in, const std::string& current_user,
                                           const std::string& database, UserStore& users) {
  const bool administrator = users.IsAdministrator(current_user);
  sql::StatementResult ok;
  if (in.Keyword("SHOW")) {
    in.Keyword("GRANTS");
    return ShowGrants(in, current_user, users);
  }
  if (in.Keyword("SET")) {  // SET PASSWORD [FOR user] = 'password'
    in.Keyword("PASSWORD");
    std::string user = current_user;
    if (in.Keyword("FOR")) {
      ARROW_ASSIGN_OR_RAISE(user, in.User());
    }
    if (!in.Punctuation('=')) return Syntax("= 'password' after SET PASSWORD");
    auto password = in.Quoted();
    if (!password || !in.done()) return Syntax("a quoted password after SET PASSWORD =");
    if (user != current_user && !administrator) {
      return NeedAdministrator(current_user, "SET PASSWORD of another user");
    }
    const auto account = users.Find(user);
    if (!account) return Refused(sql::SqlCode::kCannotUser, "SET PASSWORD", user);
    // SET PASSWORD keeps the account's plugin.
    RETURN_NOT_OK(users.SetPassword(user, *password, account->plugin));
    return ok;
  }
  if (in.Keyword("CREATE")) {
    in.Keyword("USER");
    const bool if_not_exists = in.Keyword("IF") && in.Keyword("NOT") && in.Keyword("EXISTS");
    ARROW_ASSIGN_OR_RAISE(auto user, in.User());
    ARROW_ASSIGN_OR_RAISE(auto identification, in.Password());
    if (!in.done()) return Syntax("the end of CREATE USER");
    if (!administrator) return NeedAdministrator(current_user, "CREATE USER");
    if (!PlainUserName(user)) {
      return sql::SqlError(sql::SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                           "user name '", user,
                           "' must be 1 to 32 letters, digits, '_', '-' or '.'");
    }
    auto created =
        users.CreateUser(user, identification.password,
                         identification.plugin.value_or(AccountPlugin::kAny), if_not_exists);
    if (KindOf(created) == ErrorKind::kAlreadyExists && !created.ok()) {
      return Refused(sql::SqlCode::kCannotUser, "CREATE USER", user);
    }
    RETURN_NOT_OK(created);
    return ok;
  }
  if (in.Keyword("ALTER")) {
    in.Keyword("USER");
    const bool if_exists = in.Keyword("IF") && in.Keyword("EXISTS");
    ARROW_ASSIGN_OR_RAISE(auto user, in.User());
    ARROW_ASSIGN_OR_RAISE(auto identification, in.Password());
    if (!in.done()) return Syntax("the end of ALTER USER");
    if (user != current_user && !administrator) {
      return NeedAdministrator(current_user, "ALTER USER of another user");
    }
    const auto account = users.Find(user);
    if (!account) {
      if (if_exists) return ok;
      return Refused(sql::SqlCode::kCannotUser, "ALTER USER", user);
    }
    // Without WITH the account keeps its plugin (a salted-only account stays salted-only).
    RETURN_NOT_OK(users.SetPassword(user, identification.password,
                                    identification.plugin.value_or(account->plugin)));
    return ok;
  }
  if (in.Keyword("DROP")) {
    in.Keyword("USER");
    const bool if_exists = in.Keyword("IF") && in.Keyword("EXISTS");
    ARROW_ASSIGN_OR_RAISE(auto user, in.User());
    if (!in.done()) return Syntax("the end of DROP USER");
    if (!administrator) return NeedAdministrator(current_user, "DROP USER");
    auto dropped = users.DropUser(user, if_exists);
    if (!dropped.ok()) return Refused(sql::SqlCode::kCannotUser, "DROP USER", user);
    return ok;
  }
  const bool grant = in.Keyword("GRANT");
  if (!grant && !in.Keyword("REVOKE")) return Syntax("an account statement");
  ARROW_ASSIGN_OR_RAISE(auto privileges, Privileges(in));
  if (!in.Keyword("ON")) return Syntax("ON after the privileges");
  ARROW_ASSIGN_OR_RAISE(auto scope, Target(in, database));
  if (!in.Keyword(grant ? "TO" : "FROM"))
    return Syntax(grant ? "TO and a user" : "FROM and a user");
  ARROW_ASSIGN_OR_RAISE(auto user, in.User());
  if (!in.done()) return Syntax(grant ? "the end of GRANT" : "the end of REVOKE");
  if (!administrator) return NeedAdministrator(current_user, grant ? "GRANT" : "REVOKE");
  if (!users.Find(user)) {
    return sql::SqlError(sql::SqlCode::kNonexistingGrant, ErrorKind::kNotFound,
                         "There is no such grant defined for user '", user, "' on host '%'",
                         grant ? " (CREATE USER it first)" : "");
  }
  auto changed =
      grant ? users.Grant(user, scope, privileges) : users.Revoke(user, scope, privileges);
  if (!changed.ok() && KindOf(changed) == ErrorKind::kNotFound) {
    return sql::SqlError(sql::SqlCode::kNonexistingGrant, ErrorKind::kNotFound,
                         "There is no such grant defined for user '", user, "' on host '%' on ",
                         QuotedScope(scope));
  }
  if (!changed.ok()) {
    return sql::SqlError(sql::SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                         changed.message());
  }
  return ok;
}

}  // namespace

std::optional<arrow::Result<sql::StatementResult>> AnswerAccountStatement(
    std::string_view text, const std::string& user, const std::string& database, UserStore& users) {
  auto words = Split(text);
  if (!words || words->empty()) return std::nullopt;
  auto upper = [&](size_t i) {
    return i < words->size() && !(*words)[i].quoted ? sql::AsciiUpper((*words)[i].text)
                                                    : std::string();
  };
  const std::string first = upper(0), second = upper(1);
  const bool account =
      first == "GRANT" || first == "REVOKE" || (first == "SET" && second == "PASSWORD") ||
      ((first == "CREATE" || first == "DROP" || first == "ALTER") && second == "USER") ||
      (first == "SHOW" && second == "GRANTS");
  if (!account) return std::nullopt;
  Reader in(std::move(*words));
  return Answer(in, user, database, users);
}

arrow::Status AccessDenied(sql::Access access, const std::string& user, const std::string& host,
                           const std::string& database, const std::string& table) {
  if (access == sql::Access::kReadFile) {
    return sql::SqlError(sql::SqlCode::kSpecificAccessDenied, ErrorKind::kInvalidArgument,
                         "Access denied; reading the file '", table,
                         "' needs every privilege on *.* (the server reads it as its own user)");
  }
  if (table.empty()) {
    return sql::SqlError(sql::SqlCode::kDatabaseAccessDenied, ErrorKind::kInvalidArgument,
                         "Access denied for user '", user, "'@'", host, "' to database '", database,
                         "' (ALTER is needed; GRANT ALTER ON ", database, ".* gives it)");
  }
  const char* command = access == sql::Access::kSelect ? "SELECT"
                        : access == sql::Access::kShow ? "SHOW"
                                                       : "ALTER";
  return sql::SqlError(sql::SqlCode::kTableAccessDenied, ErrorKind::kInvalidArgument, command,
                       " command denied to user '", user, "'@'", host, "' for table '", database,
                       ".", table, "'");
}

}  // namespace tessera::server
