// Concurrent writers (docs/design.md, "Commit protocol"): separate processes race for commits
// through the optimistic protocol, and the tests check what the conflict matrix promises. Every
// race is started from a barrier that the writers wait on after opening the dataset, so they really
// overlap. Each writer reports the versions it committed (tests/helpers/tessera_test_writer.cc),
// which lets the tests replay the history and compare every committed version, row by row, with
// what it must hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/child_process.h"
#include "support/dataset_inspection.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "support/writer_helper.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/status.h"

namespace tessera::dataset::concurrency_test {
namespace {

using testing::ChildProcess;
using testing::ExitStatus;
using testing::IdRange;
using testing::ScanIds;
using testing::WriterEvent;

// Generous: under AddressSanitizer on a loaded two-core machine writers are slow.
constexpr std::chrono::minutes kWriterTimeout{5};

// One writer process of a race.
struct Writer {
  std::vector<std::string> arguments;
  std::unique_ptr<ChildProcess> process;
  ExitStatus status;
  std::vector<WriterEvent> events;
  std::string errors;  // its stderr

  std::string Describe() const {
    return process->command_line() + "\n  " + status.ToString() + "\n  stderr: " + errors;
  }
  std::vector<WriterEvent> EventsOf(const std::string& kind) const {
    std::vector<WriterEvent> selected;
    for (const auto& event : events) {
      if (event.kind == kind) selected.push_back(event);
    }
    return selected;
  }
};

// What one committed version did, for replaying the history.
struct Change {
  std::string operation;     // "append", "overwrite" or "delete"
  std::vector<int64_t> ids;  // rows added (append, overwrite) or removed (delete)
};

std::string IdList(const std::vector<int64_t>& ids) {
  std::string text;
  for (size_t i = 0; i < ids.size() && i < 20; ++i) text += std::to_string(ids[i]) + " ";
  if (ids.size() > 20) text += "... (" + std::to_string(ids.size()) + " ids)";
  return text;
}

// The ids of `ids` in [first, last).
std::vector<int64_t> IdsWithin(const std::set<int64_t>& ids, int64_t first, int64_t last) {
  return std::vector<int64_t>(ids.lower_bound(first), ids.lower_bound(last));
}

class ConcurrencyTest : public ::testing::Test {
 protected:
  std::string Uri() const { return directory_.Child("dataset"); }

  // Version 1: ids [0, rows), in fragments of at most max_rows_per_file rows.
  std::shared_ptr<Dataset> CreateDataset(int64_t rows, uint64_t max_rows_per_file = 1 << 20) {
    WriteOptions options;
    options.max_rows_per_file = max_rows_per_file;
    auto created = Dataset::Create(Uri(), testing::SimpleReader(0, rows), options);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? *created : nullptr;
  }

  // Starts one writer per command (arguments after the program), waits until every one has
  // opened the dataset, then releases them all at once.
  void StartRace(const std::vector<std::vector<std::string>>& commands,
                 std::vector<Writer>* writers) {
    const int race = races_++;
    const std::string barrier = directory_.Child("go-" + std::to_string(race));
    std::vector<std::string> ready_files;
    for (size_t i = 0; i < commands.size(); ++i) {
      const std::string name = std::to_string(race) + "-" + std::to_string(i);
      Writer writer;
      writer.arguments = commands[i];
      ready_files.push_back(directory_.Child("ready-" + name));
      writer.arguments.insert(writer.arguments.end(),
                              {"--ready", ready_files.back(), "--barrier", barrier});
      ChildProcess::Options options;
      options.environment["TESSERA_CRASH_AT"] = std::nullopt;
      options.stdout_path = directory_.Child("out-" + name);
      options.stderr_path = directory_.Child("err-" + name);
      writer.process =
          std::make_unique<ChildProcess>(testing::WriterProgram(), writer.arguments, options);
      writers->push_back(std::move(writer));
    }
    const auto deadline = std::chrono::steady_clock::now() + kWriterTimeout;
    for (size_t i = 0; i < writers->size(); ++i) {
      while (!testing::WaitForFiles({ready_files[i]}, std::chrono::milliseconds(10))) {
        Writer& writer = (*writers)[i];
        if (writer.process->HasEnded()) {
          writer.status = *writer.process->status();
          writer.errors = writer.process->Stderr();
          FAIL() << "a writer ended before the race started: " << writer.Describe();
        }
        ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "writers never got ready";
      }
    }
    std::ofstream(barrier).put('\n');
  }

  // Waits for every writer and collects what it reported.
  void FinishRace(std::vector<Writer>* writers) {
    for (auto& writer : *writers) {
      writer.status = writer.process->Wait(kWriterTimeout);
      writer.errors = writer.process->Stderr();
      writer.events = testing::ParseWriterEvents(writer.process->Stdout());
      ASSERT_FALSE(writer.status.timed_out) << writer.Describe();
      ASSERT_TRUE(writer.status.exited) << writer.Describe();
    }
  }

  void Race(const std::vector<std::vector<std::string>>& commands, std::vector<Writer>* writers) {
    ASSERT_NO_FATAL_FAILURE(StartRace(commands, writers));
    ASSERT_NO_FATAL_FAILURE(FinishRace(writers));
  }

  std::vector<std::string> AppendCommand(int64_t commits, int64_t rows, int64_t first_id,
                                         const std::string& snapshot) const {
    return {"append",     Uri(),
            "--commits",  std::to_string(commits),
            "--rows",     std::to_string(rows),
            "--first-id", std::to_string(first_id),
            "--snapshot", snapshot};
  }

  std::vector<std::string> DeleteCommand(int64_t first, int64_t last) const {
    return {"delete", Uri(), "--where",
            "id >= " + std::to_string(first) + " AND id < " + std::to_string(last)};
  }

  // Checks that the dataset holds versions 1 .. 1 + changes.size(), that version 1 holds
  // `initial`, and that every later version v holds exactly the rows of version v - 1 changed by
  // changes[v], with the operation name and row count that ListVersions reports.
  void ExpectHistory(const std::vector<int64_t>& initial,
                     const std::map<uint64_t, Change>& changes) {
    ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
    ASSERT_OK_AND_ASSIGN(auto versions, latest->ListVersions());
    ASSERT_EQ(versions.size(), changes.size() + 1);
    std::multiset<int64_t> expected(initial.begin(), initial.end());
    for (const auto& info : versions) {
      const uint64_t version = info.version;
      SCOPED_TRACE("version " + std::to_string(version));
      if (version == 1) {
        EXPECT_EQ(info.operation, "create");
      } else {
        auto change = changes.find(version);
        ASSERT_NE(change, changes.end()) << "no writer reported committing this version";
        EXPECT_EQ(info.operation, change->second.operation);
        if (change->second.operation == "overwrite") expected.clear();
        for (int64_t id : change->second.ids) {
          if (change->second.operation == "delete") {
            ASSERT_EQ(expected.count(id), 1u) << "deleted id " << id << " was not live";
            expected.erase(id);
          } else {
            expected.insert(id);
          }
        }
      }
      ASSERT_OK_AND_ASSIGN(auto snapshot, Dataset::Open(Uri(), version));
      ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*snapshot));
      const std::vector<int64_t> want(expected.begin(), expected.end());
      ASSERT_EQ(ids, want) << "got " << IdList(ids) << "\nwant " << IdList(want);
      EXPECT_EQ(info.num_rows, want.size());
      EXPECT_EQ(snapshot->CountRows(), want.size());
    }
    ASSERT_EQ(versions.back().version, changes.size() + 1);
  }

  testing::TempDirectory directory_;
  int races_ = 0;
};

// Adds the "committed" events of append and overwrite writers to `changes`; fails on a version
// reported twice.
void AddCommittedWrites(const std::vector<Writer>& writers, std::map<uint64_t, Change>* changes) {
  for (const auto& writer : writers) {
    for (const auto& event : writer.EventsOf("committed")) {
      const auto version = static_cast<uint64_t>(event.Integer("version"));
      Change change;
      change.operation = event.Text("op");
      change.ids =
          IdRange(event.Integer("first_id"), event.Integer("first_id") + event.Integer("rows"));
      ASSERT_TRUE(changes->emplace(version, std::move(change)).second)
          << "version " << version << " was committed twice";
    }
  }
}

// --- appends ---

// Four processes append 25 commits each, from fresh, chained and stale snapshots, while this
// process keeps reading the latest version: every commit lands exactly once, in versions
// 1..101 without gaps, every version holds exactly the rows of the commits up to it, and no
// reader ever sees part of a commit.
TEST_F(ConcurrencyTest, ParallelAppendsAllLandExactlyOnce) {
  constexpr int kWriters = 4;
  constexpr int64_t kCommits = 25;
  constexpr int64_t kRows = 8;
  constexpr int64_t kInitialRows = 10;
  ASSERT_NE(CreateDataset(kInitialRows), nullptr);

  const std::vector<std::string> snapshots = {"chain", "original", "latest", "mixed"};
  std::vector<std::vector<std::string>> commands;
  for (int w = 0; w < kWriters; ++w) {
    commands.push_back(AppendCommand(kCommits, kRows, 1000 * (w + 1), snapshots[w]));
  }
  // Each commit of this writer adds two fragments (5 + 3 rows), atomically.
  commands[3].insert(commands[3].end(), {"--max-rows-per-file", "5"});

  std::vector<Writer> writers;
  ASSERT_NO_FATAL_FAILURE(StartRace(commands, &writers));
  // Readers never block writers and never see partial state: every version read while the
  // writers run holds each commit's rows entirely or not at all.
  int reads = 0;
  auto all_ended = [&] {
    return std::all_of(writers.begin(), writers.end(),
                       [](Writer& writer) { return writer.process->HasEnded(); });
  };
  while (!all_ended()) {
    ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
    ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*latest));
    ASSERT_EQ(ids.size(), latest->CountRows());
    ASSERT_EQ(ids.size(), kInitialRows + (latest->version() - 1) * kRows)
        << "version " << latest->version();
    std::map<int64_t, int64_t> rows_per_commit;
    for (int64_t id : ids) {
      if (id >= 1000) ++rows_per_commit[(id - 1000) / kRows];
    }
    for (const auto& [commit, rows] : rows_per_commit) {
      ASSERT_EQ(rows, kRows) << "version " << latest->version() << " holds part of a commit";
    }
    ++reads;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_NO_FATAL_FAILURE(FinishRace(&writers));
  for (const auto& writer : writers) {
    ASSERT_EQ(writer.status.code, testing::kWriterOk) << writer.Describe();
    ASSERT_EQ(writer.EventsOf("committed").size(), static_cast<size_t>(kCommits))
        << writer.Describe();
  }
  EXPECT_GT(reads, 0);

  std::map<uint64_t, Change> changes;
  ASSERT_NO_FATAL_FAILURE(AddCommittedWrites(writers, &changes));
  ASSERT_EQ(changes.size(), static_cast<size_t>(kWriters * kCommits));
  ASSERT_NO_FATAL_FAILURE(ExpectHistory(IdRange(0, kInitialRows), changes));

  // The writer that always appends from its original snapshot committed on top of versions it
  // never read: its commits were rebased.
  for (const auto& event : writers[1].EventsOf("committed")) {
    EXPECT_EQ(event.Integer("base"), 1) << event.ToString();
  }

  // Fragment ids are unique, and the final version holds every row exactly once.
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
  EXPECT_EQ(latest->version(), 1u + kWriters * kCommits);
  std::set<uint32_t> fragment_ids;
  for (const auto& fragment : latest->manifest().fragments()) {
    EXPECT_TRUE(fragment_ids.insert(fragment.id()).second) << "fragment id " << fragment.id();
    EXPECT_LT(fragment.id(), latest->manifest().next_fragment_id());
  }
  EXPECT_EQ(fragment_ids.size(), 1u + 3 * kCommits + 2 * kCommits);
  std::vector<int64_t> expected = IdRange(0, kInitialRows);
  for (int w = 0; w < kWriters; ++w) {
    auto ids = IdRange(1000 * (w + 1), 1000 * (w + 1) + kCommits * kRows);
    expected.insert(expected.end(), ids.begin(), ids.end());
  }
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*latest));
  EXPECT_EQ(ids, expected);
  // The other columns travelled with their ids.
  ScanOptions options;
  options.filter = "id = 2003";
  ASSERT_OK_AND_ASSIGN(auto row, latest->ScanToTable(options));
  ASSERT_EQ(row->num_rows(), 1);
  EXPECT_TRUE(
      row->Equals(*arrow::Table::FromRecordBatches({testing::SimpleBatch(2003, 1)}).ValueOrDie()))
      << row->ToString();
}

// Several processes create the same dataset at once: exactly one wins, the others fail with
// AlreadyExists, and the dataset holds the winner's rows only.
TEST_F(ConcurrencyTest, ConcurrentCreatesExactlyOneWins) {
  constexpr int kWriters = 4;
  std::vector<std::vector<std::string>> commands;
  for (int w = 0; w < kWriters; ++w) {
    commands.push_back({"create", Uri(), "--rows", "20", "--first-id", std::to_string(1000 * w)});
  }
  std::vector<Writer> writers;
  ASSERT_NO_FATAL_FAILURE(Race(commands, &writers));
  int winner = -1;
  for (int w = 0; w < kWriters; ++w) {
    const Writer& writer = writers[w];
    if (writer.status.code == testing::kWriterOk) {
      EXPECT_EQ(winner, -1) << "two creates succeeded: " << writer.Describe();
      winner = w;
    } else {
      EXPECT_EQ(writer.status.code, testing::kWriterError) << writer.Describe();
      EXPECT_NE(writer.errors.find("error: AlreadyExists: "), std::string::npos)
          << writer.Describe();
    }
  }
  ASSERT_NE(winner, -1);
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open(Uri()));
  EXPECT_EQ(dataset->version(), 1u);
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*dataset));
  EXPECT_EQ(ids, IdRange(1000 * winner, 1000 * winner + 20));
  ASSERT_OK(testing::CheckEveryVersionReadable(Uri()));
}

// --- appends and overwrites ---

// Deterministic: an append or delete planned on a snapshot that a concurrent overwrite made
// stale fails with CommitConflict and commits nothing; an overwrite from the same snapshot
// succeeds.
TEST_F(ConcurrencyTest, WritesFromSnapshotOlderThanOverwrite) {
  ASSERT_NE(CreateDataset(100), nullptr);
  ASSERT_OK_AND_ASSIGN(auto stale, Dataset::Open(Uri()));
  ASSERT_OK_AND_ASSIGN(auto other, Dataset::Open(Uri()));
  ASSERT_OK_AND_ASSIGN(auto overwritten, other->Overwrite(testing::SimpleReader(5000, 30)));
  ASSERT_EQ(overwritten->version(), 2u);

  auto appended = stale->Append(testing::SimpleReader(100, 10));
  ASSERT_FALSE(appended.ok());
  EXPECT_EQ(KindOf(appended.status()), ErrorKind::kCommitConflict) << appended.status().ToString();
  EXPECT_FALSE(IsRetryable(appended.status())) << appended.status().ToString();

  // A delete planned before the overwrite does not apply to the new rows; running it again on
  // the new version can succeed.
  auto deleted = stale->Delete("id < 50");
  ASSERT_FALSE(deleted.ok());
  EXPECT_EQ(KindOf(deleted.status()), ErrorKind::kCommitConflict) << deleted.status().ToString();
  EXPECT_TRUE(IsRetryable(deleted.status())) << deleted.status().ToString();

  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
  EXPECT_EQ(latest->version(), 2u);
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*latest));
  EXPECT_EQ(ids, IdRange(5000, 5030));
  // The stale snapshot still reads its own version.
  ASSERT_OK_AND_ASSIGN(auto stale_ids, ScanIds(*stale));
  EXPECT_EQ(stale_ids, IdRange(0, 100));

  // Overwrite does not depend on what it replaces.
  ASSERT_OK_AND_ASSIGN(auto replaced, stale->Overwrite(testing::SimpleReader(7000, 5)));
  EXPECT_EQ(replaced->version(), 3u);
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*replaced));
  EXPECT_EQ(ids, IdRange(7000, 7005));
  // And an append from the fresh snapshot works.
  ASSERT_OK_AND_ASSIGN(auto appended_again, replaced->Append(testing::SimpleReader(100, 10)));
  EXPECT_EQ(appended_again->version(), 4u);
  ASSERT_OK(testing::CheckEveryVersionReadable(Uri()));
}

// A writer whose snapshot is older than a cleanup's retention: the versions committed since its
// snapshot are gone, so it cannot tell whether they conflict with it. It must either commit on
// top of the latest version or fail with a retryable CommitConflict; it must never report
// success for a commit that the latest version does not contain.
TEST_F(ConcurrencyTest, WriteFromSnapshotWhoseSuccessorsWereCleanedUp) {
  ASSERT_NE(CreateDataset(100), nullptr);
  ASSERT_OK_AND_ASSIGN(auto stale, Dataset::Open(Uri()));
  ASSERT_OK_AND_ASSIGN(auto other, Dataset::Open(Uri()));
  ASSERT_OK_AND_ASSIGN(other, other->Append(testing::SimpleReader(100, 10)));
  ASSERT_OK_AND_ASSIGN(other, other->Append(testing::SimpleReader(110, 10)));
  ASSERT_EQ(other->version(), 3u);
  CleanupOptions now;
  now.older_than = std::chrono::seconds(0);
  ASSERT_OK_AND_ASSIGN(auto report, other->Cleanup(now));
  ASSERT_EQ(report.removed_versions, (std::vector<uint64_t>{1, 2}));

  auto appended = stale->Append(testing::SimpleReader(500, 10));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*latest));
  if (appended.ok()) {
    EXPECT_EQ((*appended)->version(), latest->version())
        << "the append reported version " << (*appended)->version()
        << ", older than the latest version " << latest->version();
    EXPECT_EQ(std::count_if(ids.begin(), ids.end(), [](int64_t id) { return id >= 500; }), 10)
        << "the append reported success but the latest version lacks its rows";
  } else {
    EXPECT_EQ(KindOf(appended.status()), ErrorKind::kCommitConflict)
        << appended.status().ToString();
    EXPECT_TRUE(IsRetryable(appended.status())) << appended.status().ToString();
    EXPECT_EQ(ids, IdRange(0, 120));
  }
  ASSERT_OK(testing::CheckEveryVersionReadable(Uri()));
}

// Appenders race overwriters. Each append either fails with a CommitConflict that is not
// retryable, because an overwrite landed after the version it read, or lands after every
// overwrite it did not see; every version holds exactly what the reported order of commits
// gives, and every version opens and scans.
TEST_F(ConcurrencyTest, AppendsRacingOverwritesStayConsistent) {
  ASSERT_NE(CreateDataset(100), nullptr);
  std::vector<std::vector<std::string>> commands = {
      AppendCommand(25, 5, 10000, "chain"),
      AppendCommand(25, 5, 20000, "original"),
      AppendCommand(25, 5, 30000, "mixed"),
      {"overwrite", Uri(), "--commits", "3", "--rows", "40", "--first-id", "100000"},
      {"overwrite", Uri(), "--commits", "3", "--rows", "40", "--first-id", "200000", "--snapshot",
       "original"},
  };
  for (int w = 0; w < 3; ++w) commands[w].insert(commands[w].end(), {"--on-conflict", "continue"});
  std::vector<Writer> writers;
  ASSERT_NO_FATAL_FAILURE(Race(commands, &writers));

  std::map<uint64_t, Change> changes;
  ASSERT_NO_FATAL_FAILURE(AddCommittedWrites(writers, &changes));
  std::set<uint64_t> overwrite_versions;
  for (const auto& [version, change] : changes) {
    if (change.operation == "overwrite") overwrite_versions.insert(version);
  }
  for (int w = 0; w < 5; ++w) {
    const Writer& writer = writers[w];
    const auto conflicts = writer.EventsOf("conflict");
    if (w >= 3) {
      ASSERT_EQ(writer.status.code, testing::kWriterOk) << writer.Describe();
      EXPECT_EQ(writer.EventsOf("committed").size(), 3u) << writer.Describe();
      continue;
    }
    EXPECT_EQ(writer.status.code, conflicts.empty() ? testing::kWriterOk : testing::kWriterConflict)
        << writer.Describe();
    EXPECT_EQ(writer.EventsOf("committed").size() + conflicts.size(), 25u) << writer.Describe();
    for (const auto& conflict : conflicts) {
      EXPECT_EQ(conflict.Integer("retryable"), 0) << conflict.ToString();
      // The conflict is explained by an overwrite after the version the append read.
      EXPECT_TRUE(overwrite_versions.upper_bound(static_cast<uint64_t>(conflict.Integer("base"))) !=
                  overwrite_versions.end())
          << conflict.ToString();
    }
    for (const auto& commit : writer.EventsOf("committed")) {
      // An append never lands on top of an overwrite it did not read.
      const auto base = static_cast<uint64_t>(commit.Integer("base"));
      const auto version = static_cast<uint64_t>(commit.Integer("version"));
      auto overwrite = overwrite_versions.upper_bound(base);
      EXPECT_TRUE(overwrite == overwrite_versions.end() || *overwrite > version)
          << commit.ToString() << " landed after the overwrite of version " << *overwrite;
    }
  }
  ASSERT_EQ(overwrite_versions.size(), 6u);
  ASSERT_NO_FATAL_FAILURE(ExpectHistory(IdRange(0, 100), changes));
  ASSERT_OK(testing::CheckEveryVersionReadable(Uri()));
}

// --- deletes ---

// Deterministic: deletes planned on the same old snapshot, on the same fragment, all take
// effect; one whose rows are already gone commits nothing.
TEST_F(ConcurrencyTest, StaleDeletesOfOneFragmentAllTakeEffect) {
  ASSERT_NE(CreateDataset(100), nullptr);
  ASSERT_OK_AND_ASSIGN(auto first, Dataset::Open(Uri(), 1));
  ASSERT_OK_AND_ASSIGN(auto second, Dataset::Open(Uri(), 1));
  ASSERT_OK_AND_ASSIGN(auto third, Dataset::Open(Uri(), 1));
  ASSERT_OK_AND_ASSIGN(auto fourth, Dataset::Open(Uri(), 1));
  ASSERT_EQ(first->manifest().fragments_size(), 1);

  ASSERT_OK_AND_ASSIGN(auto after_first, first->Delete("id >= 10 AND id < 20"));
  EXPECT_EQ(after_first->version(), 2u);
  ASSERT_OK_AND_ASSIGN(auto after_second, second->Delete("id >= 50 AND id < 60"));
  EXPECT_EQ(after_second->version(), 3u);
  // Overlaps both: only 20..49 are new.
  ASSERT_OK_AND_ASSIGN(auto after_third, third->Delete("id >= 15 AND id < 55"));
  EXPECT_EQ(after_third->version(), 4u);

  std::vector<int64_t> expected = IdRange(0, 10);
  for (int64_t id : IdRange(60, 100)) expected.push_back(id);
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*after_third));
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(after_third->CountRows(), expected.size());

  // Everything this delete would remove is gone already: no new version.
  ASSERT_OK_AND_ASSIGN(auto after_fourth, fourth->Delete("id >= 12 AND id < 58"));
  EXPECT_EQ(after_fourth->version(), 4u);
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
  EXPECT_EQ(latest->version(), 4u);
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*latest));
  EXPECT_EQ(ids, expected);

  // Each version holds exactly the deletes up to it.
  ASSERT_OK_AND_ASSIGN(auto version2, Dataset::Open(Uri(), 2));
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*version2));
  EXPECT_EQ(ids.size(), 90u);
  ASSERT_OK_AND_ASSIGN(auto version3, Dataset::Open(Uri(), 3));
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*version3));
  EXPECT_EQ(ids.size(), 80u);
  EXPECT_EQ(std::count_if(ids.begin(), ids.end(), [](int64_t id) { return id >= 50 && id < 60; }),
            0);
  ASSERT_OK(testing::CheckEveryVersionReadable(Uri()));
}

// Deterministic: a stale delete touching a fragment that a concurrent delete removed entirely
// applies to the remaining fragments only.
TEST_F(ConcurrencyTest, StaleDeleteAfterConcurrentDeleteRemovedTheFragment) {
  ASSERT_NE(CreateDataset(100, /*max_rows_per_file=*/50), nullptr);
  ASSERT_OK_AND_ASSIGN(auto first, Dataset::Open(Uri(), 1));
  ASSERT_OK_AND_ASSIGN(auto second, Dataset::Open(Uri(), 1));
  ASSERT_EQ(first->manifest().fragments_size(), 2);

  ASSERT_OK_AND_ASSIGN(auto after_first, first->Delete("id < 50"));
  EXPECT_EQ(after_first->manifest().fragments_size(), 1);
  ASSERT_OK_AND_ASSIGN(auto after_second, second->Delete("id >= 40 AND id < 60"));
  EXPECT_EQ(after_second->version(), 3u);
  EXPECT_EQ(after_second->manifest().fragments_size(), 1);
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*after_second));
  EXPECT_EQ(ids, IdRange(60, 100));

  // And the other way round: a stale delete that removes a whole fragment after a concurrent
  // delete changed that fragment's deletion vector.
  ASSERT_OK_AND_ASSIGN(auto third, Dataset::Open(Uri()));
  ASSERT_OK_AND_ASSIGN(auto fourth, Dataset::Open(Uri()));
  ASSERT_OK_AND_ASSIGN(auto after_third, third->Delete("id >= 90"));
  ASSERT_OK_AND_ASSIGN(auto after_fourth, fourth->Delete("id >= 50"));
  EXPECT_EQ(after_fourth->version(), 5u);
  EXPECT_EQ(after_fourth->manifest().fragments_size(), 0);
  EXPECT_EQ(after_fourth->CountRows(), 0u);
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*after_fourth));
  EXPECT_TRUE(ids.empty());
  ASSERT_OK(testing::CheckEveryVersionReadable(Uri()));
}

// Deletes race from separate processes, all planned on version 1, each on different rows of the
// dataset's only fragment: every delete takes effect, in versions 2..7.
TEST_F(ConcurrencyTest, ConcurrentDeletesOfOneFragmentAllTakeEffect) {
  ASSERT_NE(CreateDataset(1000), nullptr);
  constexpr int kDeleters = 6;
  std::vector<std::vector<std::string>> commands;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int d = 0; d < kDeleters; ++d) {
    ranges.emplace_back(100 * d + 10, 100 * d + 60);
    commands.push_back(DeleteCommand(ranges.back().first, ranges.back().second));
    commands.back().insert(commands.back().end(), {"--version", "1"});
  }
  std::vector<Writer> writers;
  ASSERT_NO_FATAL_FAILURE(Race(commands, &writers));

  std::map<uint64_t, Change> changes;
  for (int d = 0; d < kDeleters; ++d) {
    ASSERT_EQ(writers[d].status.code, testing::kWriterOk) << writers[d].Describe();
    const auto results = writers[d].EventsOf("result");
    ASSERT_EQ(results.size(), 1u) << writers[d].Describe();
    EXPECT_EQ(results[0].Integer("base"), 1);
    Change change{"delete", IdRange(ranges[d].first, ranges[d].second)};
    ASSERT_TRUE(
        changes.emplace(static_cast<uint64_t>(results[0].Integer("version")), change).second)
        << "two deletes report version " << results[0].Integer("version");
  }
  ASSERT_NO_FATAL_FAILURE(ExpectHistory(IdRange(0, 1000), changes));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
  EXPECT_EQ(latest->CountRows(), 1000u - 50 * kDeleters);
  EXPECT_EQ(latest->manifest().fragments_size(), 1);
}

// Deletes on different fragments race, one of them deleting a whole fragment: all take effect.
TEST_F(ConcurrencyTest, ConcurrentDeletesOfDifferentFragmentsAllTakeEffect) {
  ASSERT_NE(CreateDataset(1000, /*max_rows_per_file=*/100), nullptr);
  const std::vector<std::pair<int64_t, int64_t>> ranges = {
      {0, 100}, {210, 260}, {420, 430}, {600, 699}, {850, 851}};
  std::vector<std::vector<std::string>> commands;
  for (const auto& [first, last] : ranges) commands.push_back(DeleteCommand(first, last));
  std::vector<Writer> writers;
  ASSERT_NO_FATAL_FAILURE(Race(commands, &writers));

  std::map<uint64_t, Change> changes;
  for (size_t d = 0; d < ranges.size(); ++d) {
    ASSERT_EQ(writers[d].status.code, testing::kWriterOk) << writers[d].Describe();
    const auto results = writers[d].EventsOf("result");
    ASSERT_EQ(results.size(), 1u) << writers[d].Describe();
    Change change{"delete", IdRange(ranges[d].first, ranges[d].second)};
    ASSERT_TRUE(
        changes.emplace(static_cast<uint64_t>(results[0].Integer("version")), change).second)
        << "two deletes report version " << results[0].Integer("version");
  }
  ASSERT_NO_FATAL_FAILURE(ExpectHistory(IdRange(0, 1000), changes));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
  EXPECT_EQ(latest->manifest().fragments_size(), 9);  // fragment 0 is entirely deleted
  EXPECT_EQ(latest->CountRows(), 1000u - 100 - 50 - 10 - 99 - 1);
}

// Overlapping deletes race (one of them twice): the result is the union, whatever the order;
// every version in between holds the union of a growing set of the deletes.
TEST_F(ConcurrencyTest, OverlappingConcurrentDeletesRemoveTheUnion) {
  ASSERT_NE(CreateDataset(1000, /*max_rows_per_file=*/500), nullptr);
  const std::vector<std::pair<int64_t, int64_t>> ranges = {
      {100, 400}, {300, 600}, {550, 700}, {0, 150}, {300, 600}};
  std::vector<std::vector<std::string>> commands;
  for (const auto& [first, last] : ranges) {
    commands.push_back(DeleteCommand(first, last));
    commands.back().insert(commands.back().end(), {"--version", "1"});
  }
  std::vector<Writer> writers;
  ASSERT_NO_FATAL_FAILURE(Race(commands, &writers));
  for (const auto& writer : writers) {
    ASSERT_EQ(writer.status.code, testing::kWriterOk) << writer.Describe();
  }

  ASSERT_OK(testing::CheckEveryVersionReadable(Uri()));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
  ASSERT_OK_AND_ASSIGN(auto versions, latest->ListVersions());
  EXPECT_GE(versions.size(), 2u);
  EXPECT_LE(versions.size(), 1 + ranges.size());
  // The ids a subset of the deletes leaves, by subset.
  std::map<std::vector<int64_t>, unsigned> subsets;
  for (unsigned subset = 0; subset < (1u << ranges.size()); ++subset) {
    std::vector<int64_t> left;
    for (int64_t id = 0; id < 1000; ++id) {
      bool deleted = false;
      for (size_t d = 0; d < ranges.size(); ++d) {
        if ((subset >> d & 1) && id >= ranges[d].first && id < ranges[d].second) deleted = true;
      }
      if (!deleted) left.push_back(id);
    }
    subsets.emplace(left, subset);
  }
  size_t previous_rows = 1001;
  for (const auto& info : versions) {
    EXPECT_EQ(info.operation, info.version == 1 ? "create" : "delete");
    ASSERT_OK_AND_ASSIGN(auto snapshot, Dataset::Open(Uri(), info.version));
    ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*snapshot));
    EXPECT_EQ(subsets.count(ids), 1u)
        << "version " << info.version << " is not the result of whole deletes: " << IdList(ids);
    EXPECT_LT(ids.size(), previous_rows) << "version " << info.version << " deleted nothing";
    previous_rows = ids.size();
  }
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*latest));
  EXPECT_EQ(ids, IdRange(700, 1000));
}

// Deletes planned on version 1 race an overwrite: each delete lands before the overwrite or
// fails with a retryable CommitConflict (it must not delete rows of the new contents).
TEST_F(ConcurrencyTest, DeletesRacingOverwriteLandBeforeItOrConflict) {
  ASSERT_NE(CreateDataset(1000, /*max_rows_per_file=*/250), nullptr);
  std::vector<std::pair<int64_t, int64_t>> ranges;
  std::vector<std::vector<std::string>> commands;
  for (int d = 0; d < 4; ++d) {
    ranges.emplace_back(200 * d, 200 * d + 100);
    commands.push_back(DeleteCommand(ranges.back().first, ranges.back().second));
    commands.back().insert(commands.back().end(), {"--version", "1"});
  }
  commands.push_back({"overwrite", Uri(), "--rows", "100", "--first-id", "50", "--version", "1"});
  std::vector<Writer> writers;
  ASSERT_NO_FATAL_FAILURE(Race(commands, &writers));

  const Writer& overwriter = writers.back();
  ASSERT_EQ(overwriter.status.code, testing::kWriterOk) << overwriter.Describe();
  ASSERT_EQ(overwriter.EventsOf("committed").size(), 1u) << overwriter.Describe();
  const auto overwrite_version =
      static_cast<uint64_t>(overwriter.EventsOf("committed")[0].Integer("version"));
  std::map<uint64_t, Change> changes;
  changes[overwrite_version] = Change{"overwrite", IdRange(50, 150)};
  for (int d = 0; d < 4; ++d) {
    const Writer& writer = writers[d];
    if (writer.status.code == testing::kWriterOk) {
      const auto results = writer.EventsOf("result");
      ASSERT_EQ(results.size(), 1u) << writer.Describe();
      const auto version = static_cast<uint64_t>(results[0].Integer("version"));
      EXPECT_LT(version, overwrite_version) << writer.Describe();
      ASSERT_TRUE(
          changes.emplace(version, Change{"delete", IdRange(ranges[d].first, ranges[d].second)})
              .second)
          << writer.Describe();
    } else {
      EXPECT_EQ(writer.status.code, testing::kWriterRetryableConflict) << writer.Describe();
      EXPECT_NE(writer.errors.find("error: CommitConflict: "), std::string::npos)
          << writer.Describe();
    }
  }
  ASSERT_NO_FATAL_FAILURE(ExpectHistory(IdRange(0, 1000), changes));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*latest));
  EXPECT_EQ(ids, IdRange(50, 150));
}

// Appends race deletes of older rows: the deletes remove exactly their rows, the appends all
// land, and every version holds exactly what the order of commits gives.
TEST_F(ConcurrencyTest, AppendsRacingDeletesAllTakeEffect) {
  ASSERT_NE(CreateDataset(1000, /*max_rows_per_file=*/100), nullptr);
  const std::vector<std::pair<int64_t, int64_t>> ranges = {
      {0, 30}, {20, 80}, {150, 250}, {500, 600}, {990, 1000}};
  std::vector<std::vector<std::string>> commands = {
      AppendCommand(15, 10, 10000, "chain"),
      AppendCommand(15, 10, 20000, "original"),
  };
  for (const auto& [first, last] : ranges) commands.push_back(DeleteCommand(first, last));
  std::vector<Writer> writers;
  ASSERT_NO_FATAL_FAILURE(Race(commands, &writers));
  for (const auto& writer : writers) {
    ASSERT_EQ(writer.status.code, testing::kWriterOk) << writer.Describe();
  }

  std::map<uint64_t, Change> changes;
  ASSERT_NO_FATAL_FAILURE(AddCommittedWrites(writers, &changes));
  // Replay the deletes in version order, each removing what of its range is still live.
  std::map<uint64_t, std::pair<int64_t, int64_t>> deletes;
  for (size_t d = 0; d < ranges.size(); ++d) {
    const auto results = writers[2 + d].EventsOf("result");
    ASSERT_EQ(results.size(), 1u) << writers[2 + d].Describe();
    deletes[static_cast<uint64_t>(results[0].Integer("version"))] = ranges[d];
  }
  std::set<int64_t> live;
  for (int64_t id = 0; id < 1000; ++id) live.insert(id);
  std::set<uint64_t> delete_versions;
  for (const auto& [version, range] : deletes) {
    const auto removed = IdsWithin(live, range.first, range.second);
    if (removed.empty()) continue;  // a delete whose rows were gone committed nothing
    for (int64_t id : removed) live.erase(id);
    ASSERT_TRUE(changes.emplace(version, Change{"delete", removed}).second)
        << "version " << version << " is claimed by a delete and another commit";
    delete_versions.insert(version);
  }
  ASSERT_NO_FATAL_FAILURE(ExpectHistory(IdRange(0, 1000), changes));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(Uri()));
  std::vector<int64_t> expected(live.begin(), live.end());
  for (int64_t id : IdRange(10000, 10150)) expected.push_back(id);
  for (int64_t id : IdRange(20000, 20150)) expected.push_back(id);
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*latest));
  EXPECT_EQ(ids, expected);
}

}  // namespace
}  // namespace tessera::dataset::concurrency_test
