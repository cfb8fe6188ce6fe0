// `tessera index ...`: the index lifecycle of index/lifecycle.h (docs/indexes.md).
//
//   create, drop, optimize                  change the indexes of the latest version
//   train, build-segment, merge-segments,   the distributed workflow: segments built by separate
//   commit-segments                         processes travel as JSON and are committed together
//   list, entries, describe                 inspection of a version (--version V)
#include <arrow/builder.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>

#include "command_progress.h"
#include "dataset_commands.h"
#include "output_format.h"
#include "tessera/index/inspection_tables.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"
#include "units.h"
#include "value_text.h"

namespace tessera::cli {
namespace {

// The options that define an index: --name, --column, --type, --param.
struct SpecArguments {
  std::string name;
  std::string column;
  std::string type;
  std::vector<std::string> params;
};

std::string Join(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

void AddNameOption(CLI::App* command, std::string* name, bool required) {
  CLI::Option* option =
      command
          ->add_option("--name", *name,
                       "Index name: letters, digits, '_', '-', '.'; lookups ignore case")
          ->type_name("NAME");
  if (required) option->required();
}

void AddSpecOptions(CLI::App* command, SpecArguments* spec, bool name_required = true) {
  AddNameOption(command, &spec->name, name_required);
  command->add_option("--column", spec->column, "Column to index")->required()->type_name("COLUMN");
  command->add_option("--type", spec->type, "Index type (case-insensitive)")
      ->required()
      ->type_name(Join(index::FamilyNames(), "|"));
  command
      ->add_option("--param", spec->params,
                   "Index parameter KEY=VALUE; repeat for several (docs/indexes.md)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
}

arrow::Result<index::IndexSpec> SpecOf(const SpecArguments& args) {
  index::IndexSpec spec;
  spec.name = args.name;
  spec.column = args.column;
  spec.family = args.type;
  ARROW_ASSIGN_OR_RAISE(spec.params, index::ParseParamList(args.params));
  return spec;
}

// "2 segments, 1000 rows in 3 fragments indexed[, 200 rows in 1 fragment not indexed]"
std::string Coverage(const index::IndexSummary& summary) {
  std::string text = Quantity(static_cast<uint64_t>(summary.num_segments), "segment") + ", " +
                     Quantity(summary.indexed_rows, "row") + " in " +
                     Quantity(summary.indexed_fragments, "fragment") + " indexed";
  if (summary.unindexed_fragments > 0) {
    text += ", " + Quantity(summary.unindexed_rows, "row") + " in " +
            Quantity(summary.unindexed_fragments, "fragment") + " not indexed";
  }
  return text;
}

arrow::Status FlushOutput() {
  std::cout.flush();
  if (!std::cout) return Error(ErrorKind::kIOError, "writing the output failed");
  return arrow::Status::OK();
}

// --- create, drop, optimize ---

struct CreateArguments {
  std::string dataset;
  SpecArguments spec;
  bool if_not_exists = false;
  bool replace = false;
};

arrow::Status RunCreate(const CreateArguments& args) {
  if (args.if_not_exists && args.replace) {
    return InvalidArgument("index create: give --if-not-exists or --replace, not both");
  }
  ARROW_ASSIGN_OR_RAISE(index::IndexSpec spec, SpecOf(args.spec));
  ARROW_ASSIGN_OR_RAISE(auto current, dataset::Dataset::Open(args.dataset));
  const bool existed = index::DescribeIndex(*current, spec.name).ok();
  index::CreateIndexOptions options;
  options.if_not_exists = args.if_not_exists;
  options.replace = args.replace;
  ARROW_ASSIGN_OR_RAISE(auto after, WithProgress([&](util::OperationControl* control) {
                          options.control = control;
                          return index::CreateIndex(*current, spec, options);
                        }));
  if (after->version() == current->version()) {
    std::cout << "index '" << spec.name << "' already exists with this definition; " << after->uri()
              << " stays at version " << after->version() << std::endl;
    return arrow::Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(index::IndexSummary summary, index::DescribeIndex(*after, spec.name));
  std::cout << (existed ? "replaced" : "created") << " index '" << summary.name << "' ("
            << summary.family << " on " << summary.column << ") in " << after->uri() << ": version "
            << after->version() << ", " << Coverage(summary) << std::endl;
  return arrow::Status::OK();
}

struct DropArguments {
  std::string dataset;
  std::string name;
  bool if_exists = false;
};

arrow::Status RunDrop(const DropArguments& args) {
  ARROW_ASSIGN_OR_RAISE(auto current, dataset::Dataset::Open(args.dataset));
  auto existing = index::DescribeIndex(*current, args.name);
  ARROW_ASSIGN_OR_RAISE(auto after, index::DropIndex(*current, args.name, args.if_exists));
  if (after->version() == current->version()) {
    std::cout << "no index named '" << args.name << "'; " << after->uri() << " stays at version "
              << after->version() << std::endl;
    return arrow::Status::OK();
  }
  std::cout << "dropped index '" << (existing.ok() ? existing->name : args.name) << "' from "
            << after->uri() << ": version " << after->version() << std::endl;
  return arrow::Status::OK();
}

struct OptimizeArguments {
  std::string dataset;
  std::string name;
  CLI::Option* name_option = nullptr;
  std::string merge = "auto";
  bool retrain = false;
};

arrow::Status RunOptimize(const OptimizeArguments& args) {
  index::OptimizeOptions options;
  ARROW_ASSIGN_OR_RAISE(options.merge, index::MergePolicy::Parse(args.merge));
  if (args.name_option->count() > 0) options.name = args.name;
  options.retrain = args.retrain;
  ARROW_ASSIGN_OR_RAISE(auto current, dataset::Dataset::Open(args.dataset));
  ARROW_ASSIGN_OR_RAISE(index::OptimizeReport report,
                        WithProgress([&](util::OperationControl* control) {
                          options.control = control;
                          return index::OptimizeIndexes(*current, options);
                        }));
  const dataset::Dataset& after = *report.dataset;
  if (after.version() == current->version()) {
    std::cout << "nothing to do; " << after.uri() << " stays at version " << after.version()
              << std::endl;
    return arrow::Status::OK();
  }
  std::cout << "optimized " << after.uri() << ": version " << after.version() << "; built "
            << Quantity(static_cast<uint64_t>(report.segments_built), "segment") << ", merged "
            << Quantity(static_cast<uint64_t>(report.segments_merged), "segment") << ", removed "
            << Quantity(static_cast<uint64_t>(report.segments_removed), "segment") << "\n";
  std::vector<index::IndexSummary> summaries;
  if (options.name) {
    ARROW_ASSIGN_OR_RAISE(auto summary, index::DescribeIndex(after, *options.name));
    summaries.push_back(std::move(summary));
  } else {
    summaries = index::ListIndexes(after);
  }
  for (const auto& summary : summaries) {
    std::cout << "  " << summary.name << ": " << Coverage(summary) << "\n";
  }
  return FlushOutput();
}

// --- the distributed workflow ---

struct TrainArguments {
  std::string dataset;
  VersionArgument version;
  SpecArguments spec;
  std::string out;
  bool force = false;
};

arrow::Status RunTrain(const TrainArguments& args) {
  ARROW_ASSIGN_OR_RAISE(index::IndexSpec spec, SpecOf(args.spec));
  // The name only appears in messages; the model belongs to no index yet.
  if (spec.name.empty()) spec.name = "model";
  std::error_code error;
  if (std::filesystem::is_directory(args.out, error)) {
    return InvalidArgument("'", args.out, "' is a directory: name a file for the model");
  }
  if (std::filesystem::exists(args.out, error) && !args.force) {
    return AlreadyExists("'", args.out, "' exists: pass --force to replace it");
  }
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
  ARROW_ASSIGN_OR_RAISE(index::Model model, WithProgress([&](util::OperationControl* control) {
                          return index::TrainModel(*snapshot, spec, control);
                        }));
  ARROW_RETURN_NOT_OK(index::WriteModelFile(args.out, model, *snapshot, spec));
  std::cout << "wrote " << model.family << " model " << model.fingerprint << " (column "
            << spec.column << ", version " << snapshot->version() << ") to " << args.out
            << std::endl;
  return arrow::Status::OK();
}

struct BuildSegmentArguments {
  std::string dataset;
  VersionArgument version;
  SpecArguments spec;
  std::vector<uint32_t> fragments;
  std::string model;
};

arrow::Status RunBuildSegment(const BuildSegmentArguments& args) {
  ARROW_ASSIGN_OR_RAISE(index::IndexSpec spec, SpecOf(args.spec));
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
  std::optional<index::Model> model;
  if (!args.model.empty()) {
    ARROW_ASSIGN_OR_RAISE(model, index::ReadModelFileFor(args.model, *snapshot, &spec));
  }
  ARROW_ASSIGN_OR_RAISE(format::SegmentMeta segment,
                        WithProgress([&](util::OperationControl* control) {
                          return index::BuildSegment(*snapshot, spec, args.fragments,
                                                     model ? &*model : nullptr, control);
                        }));
  std::cout << index::SegmentToJson(segment) << "\n";
  return FlushOutput();
}

// Segments from JSON files (`-`: standard input), each holding one segment or an array.
arrow::Result<std::vector<format::SegmentMeta>> ReadSegmentFiles(
    const std::vector<std::string>& files) {
  std::vector<format::SegmentMeta> segments;
  bool read_stdin = false;
  for (const auto& file : files) {
    std::stringstream contents;
    if (file == "-") {
      if (read_stdin) return InvalidArgument("--segments names standard input (-) twice");
      read_stdin = true;
      contents << std::cin.rdbuf();
    } else {
      std::ifstream in(file, std::ios::binary);
      if (!in) return NotFound("segment file ", file, " cannot be opened");
      contents << in.rdbuf();
    }
    auto parsed = index::SegmentsFromJson(contents.str());
    if (!parsed.ok()) {
      return WithContext(parsed.status(), file == "-" ? "standard input" : "'" + file + "'");
    }
    segments.insert(segments.end(), parsed->begin(), parsed->end());
  }
  return segments;
}

void AddSegmentFilesOption(CLI::App* command, std::vector<std::string>* files) {
  command
      ->add_option("--segments", *files,
                   "JSON files of segments (as build-segment and merge-segments print them), "
                   "each one segment or an array; - reads standard input")
      ->required()
      ->expected(1, -1)
      ->type_name("FILE");
}

struct MergeSegmentsArguments {
  std::string dataset;
  std::vector<std::string> files;
};

arrow::Status RunMergeSegments(const MergeSegmentsArguments& args) {
  ARROW_ASSIGN_OR_RAISE(auto segments, ReadSegmentFiles(args.files));
  ARROW_ASSIGN_OR_RAISE(auto snapshot, dataset::Dataset::Open(args.dataset));
  ARROW_ASSIGN_OR_RAISE(format::SegmentMeta merged,
                        WithProgress([&](util::OperationControl* control) {
                          return index::MergeSegments(*snapshot, segments, control);
                        }));
  std::cout << index::SegmentToJson(merged) << "\n";
  return FlushOutput();
}

struct CommitSegmentsArguments {
  std::string dataset;
  SpecArguments spec;
  std::vector<std::string> files;
  std::vector<std::string> replaced;
};

arrow::Status RunCommitSegments(const CommitSegmentsArguments& args) {
  ARROW_ASSIGN_OR_RAISE(index::IndexSpec spec, SpecOf(args.spec));
  ARROW_ASSIGN_OR_RAISE(auto segments, ReadSegmentFiles(args.files));
  ARROW_ASSIGN_OR_RAISE(auto current, dataset::Dataset::Open(args.dataset));
  std::vector<std::string> replaced;
  for (const auto& uuid : args.replaced) {
    const size_t begin = uuid.find_first_not_of(' ');
    if (begin != std::string::npos)
      replaced.push_back(uuid.substr(begin, uuid.find_last_not_of(' ') + 1 - begin));
  }
  ARROW_ASSIGN_OR_RAISE(auto after, index::CommitSegments(*current, spec, segments, replaced));
  ARROW_ASSIGN_OR_RAISE(index::IndexSummary summary, index::DescribeIndex(*after, spec.name));
  std::cout << "committed " << Quantity(segments.size(), "segment");
  if (!replaced.empty()) std::cout << " replacing " << replaced.size();
  std::cout << " to index '" << summary.name << "' (" << summary.family << " on " << summary.column
            << ") in " << after->uri() << ": version " << after->version() << ", "
            << Coverage(summary) << std::endl;
  return arrow::Status::OK();
}

// --- inspection ---

struct InspectArguments {
  std::string dataset;
  VersionArgument version;
  std::string format;
  bool system = false;
};

arrow::Status RunList(const InspectArguments& args) {
  ARROW_ASSIGN_OR_RAISE(OutputFormat format, ParseOutputFormat(args.format));
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
  ARROW_ASSIGN_OR_RAISE(auto batch,
                        index::IndexesBatch(index::ListIndexes(*snapshot, args.system)));
  return PrintBatch(*batch, format, std::cout);
}

arrow::Status RunEntries(const InspectArguments& args) {
  ARROW_ASSIGN_OR_RAISE(OutputFormat format, ParseOutputFormat(args.format));
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
  auto entries = index::ListSegments(*snapshot, args.system);
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  ARROW_ASSIGN_OR_RAISE(auto batch,
                        index::SegmentsBatch(entries, /*with_index=*/true, /*with_details=*/false));
  return PrintBatch(*batch, format, std::cout);
}

struct DescribeArguments {
  std::string dataset;
  VersionArgument version;
  std::string name;
  std::string format;
};

void PrintDescriptionJson(const dataset::Dataset& snapshot, const index::IndexSummary& summary) {
  std::string text = "{\"dataset\":";
  AppendJsonString(snapshot.uri(), &text);
  text += ",\"version\":" + std::to_string(snapshot.version()) + ",\"name\":";
  AppendJsonString(summary.name, &text);
  text += ",\"column\":";
  AppendJsonString(summary.column, &text);
  text += ",\"type\":";
  AppendJsonString(summary.family, &text);
  text += ",\"params\":{";
  bool first = true;
  for (const auto& [key, value] : summary.params) {
    if (!first) text += ",";
    first = false;
    AppendJsonString(key, &text);
    text += ":";
    AppendJsonString(value, &text);
  }
  text += "},\"num_segments\":" + std::to_string(summary.num_segments);
  text += ",\"indexed_rows\":" + std::to_string(summary.indexed_rows);
  text += ",\"indexed_fragments\":" + std::to_string(summary.indexed_fragments);
  text += ",\"unindexed_rows\":" + std::to_string(summary.unindexed_rows);
  text += ",\"unindexed_fragments\":" + std::to_string(summary.unindexed_fragments);
  text += ",\"segments\":[";
  for (size_t i = 0; i < summary.segments.size(); ++i) {
    text += (i > 0 ? "," : "") + index::SegmentToJson(summary.segments[i]);
  }
  text += "]}\n";  // one line, like info --format json
  std::cout << text;
}

arrow::Status RunDescribe(const DescribeArguments& args) {
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
  ARROW_ASSIGN_OR_RAISE(index::IndexSummary summary, index::DescribeIndex(*snapshot, args.name));
  if (args.format == "json") {
    PrintDescriptionJson(*snapshot, summary);
    return FlushOutput();
  }
  std::cout << "index:      " << summary.name << "\n";
  std::cout << "column:     " << summary.column << "\n";
  std::cout << "type:       " << summary.family << "\n";
  std::cout << "params:     " << index::DescribeParams(summary.params) << "\n";
  std::cout << "segments:   " << summary.num_segments << "\n";
  std::cout << "indexed:    " << Quantity(summary.indexed_rows, "row") << " in "
            << Quantity(summary.indexed_fragments, "fragment") << "\n";
  std::cout << "unindexed:  " << Quantity(summary.unindexed_rows, "row") << " in "
            << Quantity(summary.unindexed_fragments, "fragment") << "\n";
  if (summary.segments.empty()) return FlushOutput();
  std::vector<std::pair<std::string, format::SegmentMeta>> entries;
  for (const auto& segment : summary.segments) entries.emplace_back(summary.name, segment);
  ARROW_ASSIGN_OR_RAISE(auto batch,
                        index::SegmentsBatch(entries, /*with_index=*/false, /*with_details=*/true));
  std::cout << "\n";
  return PrintBatch(*batch, OutputFormat::kTable, std::cout);
}

// Registers the subcommands of `tessera index`; the group's action runs the selected one.
class IndexGroup {
 public:
  explicit IndexGroup(CLI::App* group) : group_(group) {}

  CLI::App* Add(const std::string& name, const std::string& description, CommandAction action) {
    CLI::App* command = group_->add_subcommand(name, description);
    commands_.emplace_back(command, std::move(action));
    return command;
  }

  arrow::Status RunSelected() const {
    for (const auto& [command, action] : commands_) {
      if (command->parsed()) return action();
    }
    return InvalidArgument("index: no subcommand given: run 'tessera index --help'");
  }

 private:
  CLI::App* group_;
  std::vector<std::pair<CLI::App*, CommandAction>> commands_;
};

}  // namespace

void AddIndexCommands(CommandSet& commands) {
  auto group = std::make_shared<std::unique_ptr<IndexGroup>>();
  CLI::App* app = commands.Add("index", "Create, maintain and inspect indexes (docs/indexes.md)",
                               [group] { return (*group)->RunSelected(); });
  app->require_subcommand(1, 1);
  *group = std::make_unique<IndexGroup>(app);
  IndexGroup& index = **group;
  {
    auto args = std::make_shared<CreateArguments>();
    CLI::App* command =
        index.Add("create", "Build an index over every fragment of the latest version",
                  [args] { return RunCreate(*args); });
    AddDatasetArgument(command, &args->dataset);
    AddSpecOptions(command, &args->spec);
    command->add_flag("--if-not-exists", args->if_not_exists,
                      "Do nothing if an index of this name has this definition");
    command->add_flag("--replace", args->replace,
                      "Rebuild an existing index of this name; its old segments leave in the "
                      "same commit");
  }
  {
    auto args = std::make_shared<DropArguments>();
    CLI::App* command = index.Add("drop", "Remove an index", [args] { return RunDrop(*args); });
    AddDatasetArgument(command, &args->dataset);
    AddNameOption(command, &args->name, /*required=*/true);
    command->add_flag("--if-exists", args->if_exists, "Do nothing if there is no such index");
  }
  {
    auto args = std::make_shared<OptimizeArguments>();
    CLI::App* command = index.Add(
        "optimize", "Index new fragments, drop segments of removed fragments, merge segments",
        [args] { return RunOptimize(*args); });
    AddDatasetArgument(command, &args->dataset);
    args->name_option =
        command->add_option("--name", args->name, "Optimize this index only (default: all)")
            ->type_name("NAME");
    command
        ->add_option("--merge", args->merge,
                     "Merge policy: auto (size tiers), none, or N (at most N segments)")
        ->type_name("auto|none|N")
        ->capture_default_str();
    command->add_flag("--retrain", args->retrain,
                      "Vector indexes: train a new model and rebuild every segment");
  }
  {
    auto args = std::make_shared<TrainArguments>();
    CLI::App* command = index.Add("train", "Train the model of a vector index type into a file",
                                  [args] { return RunTrain(*args); });
    AddDatasetArgument(command, &args->dataset);
    AddSpecOptions(command, &args->spec, /*name_required=*/false);
    command->add_option("--out", args->out, "Model file to write")->required()->type_name("FILE");
    command->add_flag("--force", args->force, "Replace an existing model file");
    AddVersionOption(command, &args->version);
  }
  {
    auto args = std::make_shared<BuildSegmentArguments>();
    CLI::App* command = index.Add(
        "build-segment",
        "Build one uncommitted segment over some fragments; print its JSON (commits nothing)",
        [args] { return RunBuildSegment(*args); });
    AddDatasetArgument(command, &args->dataset);
    AddSpecOptions(command, &args->spec);
    command
        ->add_option("--fragments", args->fragments,
                     "Fragment ids to index, comma-separated (default: all)")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->check(IntegerAtLeast<uint32_t>(0))
        ->type_name("ID,...");
    command
        ->add_option("--model", args->model,
                     "Model file from 'index train' (vector types); without --param, its "
                     "parameters are used")
        ->type_name("FILE");
    AddVersionOption(command, &args->version);
  }
  {
    auto args = std::make_shared<MergeSegmentsArguments>();
    CLI::App* command =
        index.Add("merge-segments",
                  "Rewrite segments of one index into one new uncommitted segment; print its JSON",
                  [args] { return RunMergeSegments(*args); });
    AddDatasetArgument(command, &args->dataset);
    AddSegmentFilesOption(command, &args->files);
  }
  {
    auto args = std::make_shared<CommitSegmentsArguments>();
    CLI::App* command =
        index.Add("commit-segments", "Publish built segments as (part of) one index, atomically",
                  [args] { return RunCommitSegments(*args); });
    AddDatasetArgument(command, &args->dataset);
    AddSpecOptions(command, &args->spec);
    AddSegmentFilesOption(command, &args->files);
    command
        ->add_option("--replace-segments", args->replaced,
                     "Segments of the index (uuids, comma-separated) to remove in the same commit")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->type_name("UUID,...");
  }
  {
    auto args = std::make_shared<InspectArguments>();
    CLI::App* command = index.Add("list", "List the indexes of a version with their coverage",
                                  [args] { return RunList(*args); });
    AddDatasetArgument(command, &args->dataset);
    command->add_flag("--system", args->system, "Include system indexes (names starting __)");
    AddFormatOption(command, &args->format, {"table", "csv", "json"});
    AddVersionOption(command, &args->version);
  }
  {
    auto args = std::make_shared<InspectArguments>();
    CLI::App* command = index.Add("entries", "List the segments of every index of a version",
                                  [args] { return RunEntries(*args); });
    AddDatasetArgument(command, &args->dataset);
    command->add_flag("--system", args->system, "Include system indexes (names starting __)");
    AddFormatOption(command, &args->format, {"table", "csv", "json"});
    AddVersionOption(command, &args->version);
  }
  {
    auto args = std::make_shared<DescribeArguments>();
    CLI::App* command = index.Add("describe", "Describe one index and its segments",
                                  [args] { return RunDescribe(*args); });
    AddDatasetArgument(command, &args->dataset);
    AddNameOption(command, &args->name, /*required=*/true);
    AddFormatOption(command, &args->format, {"table", "json"});
    AddVersionOption(command, &args->version);
  }
}

}  // namespace tessera::cli
