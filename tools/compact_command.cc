// `tessera compact`: rewrites small fragments and fragments with many deleted rows
// (dataset/compaction.h, docs/cli.md).
#include <iostream>

#include "command_progress.h"
#include "dataset_commands.h"
#include "tessera/dataset/compaction.h"
#include "tessera/dataset/dataset.h"
#include "tessera/status.h"
#include "units.h"

namespace tessera::cli {
namespace {

struct CompactArguments {
  std::string dataset;
  uint64_t target_rows_per_fragment = dataset::kDefaultTargetRowsPerFragment;
  double max_deleted_fraction = dataset::kDefaultMaxDeletedFraction;
  bool dry_run = false;
};

arrow::Status RunCompact(const CompactArguments& args) {
  dataset::CompactionOptions options;
  options.target_rows_per_fragment = args.target_rows_per_fragment;
  options.max_deleted_fraction = args.max_deleted_fraction;
  ARROW_RETURN_NOT_OK(dataset::ValidateCompactionOptions(options));
  ARROW_ASSIGN_OR_RAISE(auto snapshot, dataset::Dataset::Open(args.dataset));
  dataset::CompactionResult result;
  if (args.dry_run) {
    ARROW_ASSIGN_OR_RAISE(result.plan, dataset::PlanCompaction(*snapshot, options));
  } else {
    ARROW_ASSIGN_OR_RAISE(result, WithProgress([&](util::OperationControl* control) {
                            dataset::WriteOptions writing;
                            writing.control = control;
                            return dataset::Compact(snapshot, options, writing);
                          }));
  }
  const dataset::CompactionPlan& plan = result.plan;
  if (plan.groups.empty()) {
    std::cout << "nothing to compact in version " << plan.version << " ("
              << Quantity(snapshot->manifest().fragments_size(), "fragment") << ")" << std::endl;
    return arrow::Status::OK();
  }
  std::cout << (args.dry_run ? "would rewrite " : "rewrote ")
            << Quantity(plan.fragments(), "fragment") << " ("
            << Quantity(plan.live_rows(), "live row") << ", dropping "
            << Quantity(plan.deleted_rows(), "deleted row") << ") in "
            << Quantity(plan.groups.size(), "group");
  if (args.dry_run) {
    std::cout << "\n";
  } else {
    std::cout << " into " << Quantity(result.fragments_written, "fragment") << ": version "
              << result.dataset->version() << "\n";
  }
  for (const auto& group : plan.groups) {
    std::cout << "  fragments";
    for (uint32_t id : group.fragment_ids) std::cout << " " << id;
    std::cout << ": " << group.live_rows << " live, " << group.deleted_rows << " deleted\n";
  }
  if (!args.dry_run && !snapshot->manifest().indexes().empty()) {
    std::cout << "indexes do not cover the new fragments yet: run `tessera index optimize "
              << args.dataset << "` to index them\n";
  }
  std::cout.flush();
  if (!std::cout) return Error(ErrorKind::kIOError, "writing the output failed");
  return arrow::Status::OK();
}

}  // namespace

void AddCompactCommand(CommandSet& commands) {
  auto args = std::make_shared<CompactArguments>();
  CLI::App* command = commands.Add(
      "compact", "Rewrite small fragments and fragments with many deleted rows, in one commit",
      [args] { return RunCompact(*args); });
  AddDatasetArgument(command, &args->dataset);
  command
      ->add_option("--target-rows-per-fragment", args->target_rows_per_fragment,
                   "Merge fragments with fewer live rows than this into fragments of at most "
                   "this many rows")
      ->type_name("N")
      ->capture_default_str();
  command
      ->add_option("--max-deleted-fraction", args->max_deleted_fraction,
                   "Also rewrite a fragment when more than this fraction of its rows is deleted")
      ->type_name("F")
      ->capture_default_str();
  command->add_flag("--dry-run", args->dry_run, "Report what would be rewritten; write nothing");
}

}  // namespace tessera::cli
