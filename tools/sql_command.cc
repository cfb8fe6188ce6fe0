// `tessera sql --catalog DIR [-e 'STATEMENTS' | -f FILE.sql]` (docs/sql.md): runs SQL
// statements against a catalog of datasets and prints each result as the mysql client does —
// a boxed table and "N rows in set", or "Query OK" — or as CSV, JSON Lines or an Arrow IPC
// stream with --format. Without -e and -f the statements come from standard input; when that
// is a terminal, a prompt with line editing and history (libedit; ~/.tessera_sql_history) reads
// them until a line ends with ';'.
//
// Statements run in order; the first error stops the run and is printed as
// "ERROR <code> (<SQLSTATE>): <message>" (exit status 1). The statements before it have
// completed, each one atomically.
#include <arrow/io/stdio.h>
#include <arrow/ipc/writer.h>
#include <editline/readline.h>
#include <unistd.h>

#ifndef TESSERA_EDIT_LIBRARY
#define TESSERA_EDIT_LIBRARY "libedit.so.2"
#endif

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "command.h"
#include "dataset_commands.h"
#include "output_format.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/parser.h"
#include "tessera/sql/session.h"
#include "tessera/util/shared_library.h"
#include "value_text.h"

namespace tessera::cli {

namespace {

struct SqlArguments {
  std::string catalog;
  std::string catalog_name = "tessera";
  std::string database;
  std::string execute;
  std::string file;
  std::string format = "table";
};

// The mysql client's boxed table.
void PrintBoxed(const arrow::Table& table, std::ostream& out) {
  const int columns = table.num_columns();
  std::vector<std::vector<std::string>> cells;
  std::vector<size_t> widths(columns);
  std::vector<bool> numeric(columns);
  for (int c = 0; c < columns; ++c) {
    widths[c] = DisplayWidth(table.field(c)->name());
    numeric[c] = IsNumeric(*table.field(c)->type());
  }
  for (int c = 0; c < columns; ++c) {
    int64_t row = 0;
    for (const auto& chunk : table.column(c)->chunks()) {
      for (int64_t i = 0; i < chunk->length(); ++i, ++row) {
        if (static_cast<size_t>(row) >= cells.size()) cells.emplace_back(columns);
        // Text in full, as the mysql client shows it (control characters escaped).
        if (chunk->IsValid(i) && (chunk->type_id() == arrow::Type::STRING ||
                                  chunk->type_id() == arrow::Type::LARGE_STRING)) {
          std::string text;
          AppendPlainValue(*chunk, i, &text);
          cells[row][c] = EscapeControlCharacters(text);
        } else {
          AppendDisplayValue(*chunk, i, &cells[row][c]);
        }
        widths[c] = std::max(widths[c], DisplayWidth(cells[row][c]));
      }
    }
  }
  std::string rule = "+";
  for (int c = 0; c < columns; ++c) rule += std::string(widths[c] + 2, '-') + "+";
  auto print_row = [&](const std::vector<std::string>& row, bool header) {
    out << "|";
    for (int c = 0; c < columns; ++c) {
      const std::string padding(widths[c] - DisplayWidth(row[c]), ' ');
      out << " " << (numeric[c] && !header ? padding + row[c] : row[c] + padding) << " |";
    }
    out << "\n";
  };
  std::vector<std::string> names;
  for (int c = 0; c < columns; ++c) names.push_back(table.field(c)->name());
  out << rule << "\n";
  print_row(names, true);
  out << rule << "\n";
  for (const auto& row : cells) print_row(row, false);
  if (!cells.empty()) out << rule << "\n";
}

std::string Elapsed(std::chrono::steady_clock::duration duration) {
  char text[32];
  std::snprintf(text, sizeof(text), "(%.2f sec)", std::chrono::duration<double>(duration).count());
  return text;
}

arrow::Status PrintResult(const sql::StatementResult& result, const std::string& format,
                          std::chrono::steady_clock::duration elapsed) {
  if (result.rows == nullptr) {
    if (format != "table") return arrow::Status::OK();
    if (result.info_only) {
      std::cout << result.info << "\n";
      return arrow::Status::OK();
    }
    std::cout << "Query OK, " << result.affected_rows
              << (result.affected_rows == 1 ? " row" : " rows") << " affected";
    if (result.version) std::cout << ", version " << *result.version;
    std::cout << " " << Elapsed(elapsed) << "\n";
    if (!result.info.empty()) std::cout << result.info << "\n";
    std::cout << "\n";
    return arrow::Status::OK();
  }
  const arrow::Table& table = *result.rows;
  if (format == "table") {
    if (table.num_rows() == 0) {
      std::cout << "Empty set " << Elapsed(elapsed) << "\n\n";
      return arrow::Status::OK();
    }
    PrintBoxed(table, std::cout);
    std::cout << table.num_rows() << (table.num_rows() == 1 ? " row" : " rows") << " in set "
              << Elapsed(elapsed) << "\n\n";
    return arrow::Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(auto combined, table.CombineChunksToBatch());
  if (format == "arrow") {
    auto sink = std::make_shared<arrow::io::StdoutStream>();
    ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeStreamWriter(sink, combined->schema()));
    RETURN_NOT_OK(writer->WriteRecordBatch(*combined));
    return writer->Close();
  }
  ARROW_ASSIGN_OR_RAISE(auto output, ParseOutputFormat(format));
  return PrintBatch(*combined, output, std::cout);
}

// The prompt's history file: $HOME/.tessera_sql_history (none without HOME).
std::string HistoryPath() {
  const char* home = std::getenv("HOME");
  return home == nullptr ? std::string() : std::string(home) + "/.tessera_sql_history";
}

// libedit's readline interface, opened when a prompt starts (util/shared_library.h): the other
// commands never need it, and a linked libedit cost every process at start.
struct LineEditor {
  decltype(&readline) read_line = nullptr;
  decltype(&add_history) add_entry = nullptr;
  decltype(&using_history) start_history = nullptr;
  decltype(&read_history) load_history = nullptr;
  decltype(&write_history) save_history = nullptr;
};

arrow::Result<LineEditor> OpenLineEditor() {
  ARROW_ASSIGN_OR_RAISE(
      auto library,
      util::SharedLibrary::Open({TESSERA_EDIT_LIBRARY, "libedit.so.2"}, ErrorKind::kUnsupported,
                                "libedit, which the interactive SQL prompt needs,",
                                "install libedit2, or pass statements with -e, "
                                "--file or on standard input"));
  LineEditor editor;
  library.Bind(&editor.read_line, "readline");
  library.Bind(&editor.add_entry, "add_history");
  library.Bind(&editor.start_history, "using_history");
  library.Bind(&editor.load_history, "read_history");
  library.Bind(&editor.save_history, "write_history");
  ARROW_RETURN_NOT_OK(library.Complete());
  return editor;
}

// Statements from a terminal, with line editing and history (libedit): lines collected until
// one ends with ';'. Sets *at_end at end of input (Ctrl-D).
std::string ReadInteractive(const LineEditor& editor, bool* at_end) {
  std::string script;
  const char* prompt = "tessera> ";
  while (true) {
    char* raw = editor.read_line(prompt);
    if (raw == nullptr) {
      *at_end = true;
      return script;
    }
    std::string line(raw);
    std::free(raw);
    script += line + "\n";
    prompt = "      -> ";
    const size_t end = line.find_last_not_of(" \t\r");
    if (end == std::string::npos) continue;
    if (line[end] == ';') {
      std::string entry = script;
      while (!entry.empty() && (entry.back() == '\n' || entry.back() == ' ')) entry.pop_back();
      editor.add_entry(entry.c_str());
      return script;
    }
  }
}

arrow::Status RunSql(const SqlArguments& arguments) {
  ARROW_ASSIGN_OR_RAISE(auto catalog,
                        sql::Catalog::Open(arguments.catalog, arguments.catalog_name));
  sql::Session session(std::move(catalog));
  auto run = [&](const std::string& script) -> arrow::Status {
    auto start = std::chrono::steady_clock::now();
    return session.ExecuteScript(
        script, [&](const sql::Statement&, const sql::StatementResult& result) {
          RETURN_NOT_OK(
              PrintResult(result, arguments.format, std::chrono::steady_clock::now() - start));
          start = std::chrono::steady_clock::now();
          return arrow::Status::OK();
        });
  };
  if (!arguments.database.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto statements, sql::ParseScript("USE `" + arguments.database + "`"));
    RETURN_NOT_OK(session.Execute(statements[0], "").status());
  }
  if (!arguments.execute.empty()) return run(arguments.execute);
  if (!arguments.file.empty()) {
    std::ifstream in(arguments.file, std::ios::binary);
    if (!in) return Error(ErrorKind::kNotFound, "cannot open SQL file '", arguments.file, "'");
    std::stringstream text;
    text << in.rdbuf();
    return run(text.str());
  }
  if (!isatty(STDIN_FILENO)) {
    std::stringstream text;
    text << std::cin.rdbuf();
    return run(text.str());
  }
  // Interactive: an error is printed and the prompt continues, as in the mysql client.
  ARROW_ASSIGN_OR_RAISE(const LineEditor editor, OpenLineEditor());
  const std::string history = HistoryPath();
  editor.start_history();
  if (!history.empty()) editor.load_history(history.c_str());
  bool at_end = false;
  while (!at_end) {
    const std::string script = ReadInteractive(editor, &at_end);
    if (script.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    const auto status = run(script);
    if (!status.ok()) std::cerr << sql::FormatSqlError(status) << "\n\n";
  }
  if (!history.empty()) editor.save_history(history.c_str());
  std::cout << "Bye\n";
  return arrow::Status::OK();
}

}  // namespace

void AddSqlCommand(CommandSet& commands) {
  auto arguments = std::make_shared<SqlArguments>();
  CLI::App* command = commands.Add(
      "sql", "Run SQL statements over a catalog of datasets (docs/sql.md)", [arguments] {
        auto status = RunSql(*arguments);
        if (!status.ok()) {
          std::cerr << sql::FormatSqlError(status) << std::endl;
          std::exit(1);
        }
        return arrow::Status::OK();
      });
  command->add_option("--catalog", arguments->catalog, "Catalog directory: DIR/<db>/<table>/")
      ->required();
  command->add_option("--catalog-name", arguments->catalog_name,
                      "Name of the catalog in three-part names (default tessera)");
  command->add_option("-D,--database", arguments->database, "Database to USE first");
  auto* execute =
      command->add_option("-e,--execute", arguments->execute, "Statements to run (';'-separated)");
  command->add_option("-f,--file", arguments->file, "File of statements to run")->excludes(execute);
  AddFormatOption(command, &arguments->format, {"table", "csv", "json", "arrow"});
}

}  // namespace tessera::cli
