#pragma once
// A result folder holds the complete previous results or the complete new ones, never a mix: the new files
// are written into a staging folder beside it, which then takes the folder's place in one rename.

#include <filesystem>
#include <string>
#include <string_view>

namespace dtsim::core {

/// Checks, before anything is simulated, that `folder` can receive results: its names are not too long, a
/// relative one lies in a working folder that still exists, it is not a file, it holds nothing but dtsim results
/// (a run's summary.json or a sweep's sweep.json), and a folder can be made beside it. Throws InputError naming the
/// folder, with a hint, otherwise.
void check_result_folder(const std::filesystem::path& folder);

/// A staging folder `.<name>.<tag>` beside `target`; `commit()` puts it in the target's place (the old
/// results are removed once the new ones are there). Removed, with whatever was written into it, if never
/// committed. Failures throw InputError naming the path and the system's reason.
class StagedFolder {
 public:
  /// `tag` names the staging folder; by default one per process ("partial-<pid>"). A sweep passes
  /// "sweep-<its manifest's fingerprint>" and `keep_on_failure`, so that a rerun of the same sweep resumes from
  /// the points already done. Staging folders no run will finish (of dead processes, of other sweeps) go.
  explicit StagedFolder(std::filesystem::path target, std::string tag = {}, bool keep_on_failure = false);
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;
  ~StagedFolder();

  [[nodiscard]] const std::filesystem::path& path() const { return staging_; }
  [[nodiscard]] const std::filesystem::path& target() const { return target_; }
  /// Writes one file into the staging folder; a failure names the file as it will be in the target.
  void write_file(const std::string& name, std::string_view content) const;
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  bool keep_on_failure_ = false;
  bool committed_ = false;
};

/// Throws InputError for a result file that could not be written, naming it and the system's reason.
[[noreturn]] void throw_write_error(const std::filesystem::path& path, const std::string& reason);

}  // namespace dtsim::core
