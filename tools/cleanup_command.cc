#include <iostream>

#include "dataset_commands.h"
#include "tessera/dataset/dataset.h"
#include "tessera/status.h"
#include "units.h"

namespace tessera::cli {
namespace {

struct CleanupArguments {
  std::string dataset;
  std::string older_than = "7d";
  bool delete_unverified = false;
  bool dry_run = false;
};

arrow::Status RunCleanup(const CleanupArguments& args) {
  ARROW_ASSIGN_OR_RAISE(std::chrono::seconds retention, ParseDuration(args.older_than));
  dataset::CleanupOptions options;
  options.older_than = retention;
  options.delete_unverified = args.delete_unverified;
  options.dry_run = args.dry_run;
  // Not through a version: cleanup must work when the latest manifest is damaged.
  ARROW_ASSIGN_OR_RAISE(dataset::CleanupReport report,
                        dataset::Dataset::CleanupAt(args.dataset, options));

  for (const auto& unreadable : report.unreadable_versions) {
    std::cerr << "warning: version " << unreadable.version << " is unreadable and was kept ("
              << unreadable.error << "); no file was removed, since that version may reference "
              << "any of them. Restore or remove its manifest, then run cleanup again" << std::endl;
  }
  const std::string kept = report.kept_by_grace == 0
                               ? ""
                               : "; kept " + Quantity(report.kept_by_grace, "unreferenced file") +
                                     " younger than the grace period (" +
                                     FormatDuration(options.grace_period) +
                                     "): a write may be about to commit them";
  if (report.removed_versions.empty() && report.removed_files.empty()) {
    std::cout << "nothing to remove (retention " << args.older_than << kept << ")" << std::endl;
    return arrow::Status::OK();
  }
  std::cout << (args.dry_run ? "would remove " : "removed ") << report.removed_versions.size()
            << (report.removed_versions.size() == 1 ? " version" : " versions");
  if (!report.removed_versions.empty()) {
    std::cout << " (";
    for (size_t i = 0; i < report.removed_versions.size(); ++i) {
      std::cout << (i > 0 ? ", " : "") << report.removed_versions[i];
    }
    std::cout << ")";
  }
  std::cout << " and " << report.removed_files.size()
            << (report.removed_files.size() == 1 ? " file, " : " files, ")
            << FormatBytes(report.bytes_removed) << kept << "\n";
  for (const auto& file : report.removed_files) std::cout << "  " << file << "\n";
  std::cout.flush();
  if (!std::cout) return Error(ErrorKind::kIOError, "writing the output failed");
  return arrow::Status::OK();
}

}  // namespace

void AddCleanupCommand(CommandSet& commands) {
  auto args = std::make_shared<CleanupArguments>();
  CLI::App* command =
      commands.Add("cleanup", "Remove old versions and the files only they reference",
                   [args] { return RunCleanup(*args); });
  AddDatasetArgument(command, &args->dataset);
  command
      ->add_option("--older-than", args->older_than,
                   "Keep versions and files younger than this (e.g. 0s, 30m, 7d, 1h30m); the "
                   "latest version is always kept")
      ->type_name("DURATION")
      ->capture_default_str();
  command->add_flag("--delete-unverified", args->delete_unverified,
                    "Also remove unreferenced files younger than the grace period (1h); only safe "
                    "when no other process writes to the dataset");
  command->add_flag("--dry-run", args->dry_run, "Report what would be removed; remove nothing");
}

}  // namespace tessera::cli
