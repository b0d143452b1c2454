#include "sim/core/result_folder.hpp"

#include "sim/core/diagnostic.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <string_view>

namespace dtsim::core {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(const fs::path& folder, std::string message, std::string hint) {
  Diagnostic diagnostic;
  diagnostic.where.file = folder.string();
  diagnostic.message = std::move(message);
  diagnostic.hint = std::move(hint);
  throw InputError(std::move(diagnostic));
}

constexpr const char* kChooseAnother = "choose another folder with -o";

/// Whether `path` is a regular file whose first 4 KiB hold one of `markers`: a file dtsim wrote, not one that merely
/// bears its name (a pipe is never opened).
bool written_by_dtsim(const fs::path& path, std::initializer_list<std::string_view> markers) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return std::any_of(markers.begin(), markers.end(),
                     [&](std::string_view marker) { return head.find(marker) != std::string::npos; });
}

/// A folder of dtsim's results, which a run may replace whole: its summary (a run's, or a cluster's), or its sweep's
/// manifest or table, as dtsim writes them. Another file of those names leaves the folder someone else's.
bool holds_results(const fs::path& folder) {
  return written_by_dtsim(folder / "summary.json", {"\"dtsim_version\"", "\"scheduler\""}) ||
         written_by_dtsim(folder / "sweep.json", {"\"fingerprint\""}) ||
         written_by_dtsim(folder / "sweep.csv", {"point,"});
}

/// Staging folders beside `target` that no run will finish: `.<name>.partial-<pid>` of a process that is gone
/// (killed while writing), and `.<name>.sweep-<fingerprint>` of another sweep than `ours` (its points cannot
/// be reused).
void remove_abandoned_staging(const fs::path& target, const std::string& ours) {
  const std::string prefix = "." + target.filename().string() + ".";
  std::error_code error;
  for (fs::directory_iterator entry(target.parent_path(), error), end; !error && entry != end; entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name == prefix + ours) continue;
    const std::string tag = name.substr(prefix.size());
    bool abandoned = false;
    if (tag.rfind("partial-", 0) == 0) {
      const long pid = std::strtol(tag.c_str() + std::strlen("partial-"), nullptr, 10);
      abandoned = pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
    } else if (tag.rfind("sweep-", 0) == 0) {
      abandoned = ours.rfind("sweep-", 0) == 0;
    }
    if (abandoned) {
      std::error_code ignored;
      fs::remove_all(entry->path(), ignored);
    }
  }
}

}  // namespace

void throw_write_error(const fs::path& path, const std::string& reason) {
  refuse(path, fmt::format("cannot write the results: {}", reason),
         "check the free space and the permissions there, or " + std::string(kChooseAnother));
}

void check_result_folder(const fs::path& folder) {
  if (folder.empty()) refuse(folder, "the result folder's name is empty", kChooseAnother);
  for (const fs::path& part : folder) {
    if (part.string().size() > NAME_MAX) {
      refuse(folder, fmt::format("a name in the folder's path is {} bytes long, more than the {} a file system allows",
                                 part.string().size(), NAME_MAX),
             kChooseAnother);
    }
  }
  std::error_code error;
  const fs::path absolute = fs::absolute(folder, error).lexically_normal();
  if (error) {
    // A relative folder lies in the working folder, which may have been deleted since the shell entered it.
    refuse(folder,
           error == std::errc::no_such_file_or_directory
               ? std::string("is relative to the working folder, which no longer exists")
               : fmt::format("cannot find the working folder it is relative to: {}", error.message()),
           "run dtsim from a folder that exists, or give an absolute folder with -o");
  }
  // The staging folder beside it adds its own suffix to the longest name.
  if (absolute.string().size() + 32 > PATH_MAX) {
    refuse(folder, fmt::format("the folder's path is {} bytes long, too long to write files under", absolute.string().size()),
           kChooseAnother);
  }
  const fs::file_status status = fs::status(folder, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    refuse(folder, fmt::format("cannot use this folder: {}", error.message()), kChooseAnother);
  }
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) refuse(folder, "is a file, not a folder", kChooseAnother);
    fs::directory_iterator entries(folder, error);
    if (error) refuse(folder, fmt::format("cannot read this folder: {}", error.message()), kChooseAnother);
    if (entries != fs::directory_iterator() && !holds_results(folder)) {
      refuse(folder,
             fmt::format("holds files that are not dtsim results (such as {}); dtsim replaces a result folder as a "
                         "whole",
                         entries->path().filename().string()),
             "choose a new or empty folder with -o");
    }
  }
  // Where the staging folder will go: the nearest folder that exists on the way to the target.
  fs::path existing = absolute.parent_path();
  while (!fs::exists(existing, error) && existing.has_relative_path()) existing = existing.parent_path();
  if (!fs::is_directory(existing, error)) {
    refuse(folder, fmt::format("{} is a file, not a folder", existing.string()), kChooseAnother);
  }
  const fs::path probe = existing / fmt::format(".dtsim-probe-{}", ::getpid());
  if (::mkdir(probe.c_str(), 0700) != 0) {
    refuse(folder, fmt::format("cannot create a folder in {}: {}", existing.string(), std::strerror(errno)),
           kChooseAnother);
  }
  ::rmdir(probe.c_str());
}

StagedFolder::StagedFolder(fs::path target, std::string tag, bool keep_on_failure)
    : target_(fs::absolute(target).lexically_normal()), keep_on_failure_(keep_on_failure) {
  if (target_.filename().empty()) target_ = target_.parent_path();
  std::error_code error;
  // -o naming a symbolic link (out -> /scratch/out) writes into the folder it points to, and keeps the link.
  for (int hops = 0; hops < 40 && fs::is_symlink(target_, error); ++hops) {
    const fs::path points_to = fs::read_symlink(target_, error);
    if (error) break;
    target_ = (points_to.is_absolute() ? points_to : target_.parent_path() / points_to).lexically_normal();
  }
  const fs::path parent = target_.parent_path();
  fs::create_directories(parent, error);
  if (error) throw_write_error(parent, error.message());
  if (tag.empty()) tag = fmt::format("partial-{}", ::getpid());
  remove_abandoned_staging(target_, tag);
  staging_ = parent / fmt::format(".{}.{}", target_.filename().string(), tag);
  if (!keep_on_failure_) fs::remove_all(staging_, error);
  fs::create_directories(staging_, error);
  if (error) throw_write_error(staging_, error.message());
}

StagedFolder::~StagedFolder() {
  if (committed_ || keep_on_failure_) return;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
}

void StagedFolder::write_file(const std::string& name, std::string_view content) const {
  // A name may hold folders ("jobs/<job>/summary.json"): made in the staging folder, renamed with it.
  if (name.find('/') != std::string::npos) {
    std::error_code made;
    fs::create_directories((staging_ / name).parent_path(), made);
    if (made) throw_write_error(target_ / name, made.message());
  }
  std::ofstream out(staging_ / name, std::ios::binary | std::ios::trunc);
  if (out) {
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
  }
  if (!out) throw_write_error(target_ / name, std::strerror(errno));
}

void StagedFolder::commit() {
  std::error_code error;
  if (!fs::exists(target_, error)) {
    fs::rename(staging_, target_, error);
    if (error) throw_write_error(target_, error.message());
  } else if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(staging_, error);  // now the old results
  } else {
    // A file system without an atomic exchange: the target is briefly absent, never mixed.
    const fs::path old = fs::path(staging_).concat(".old");
    fs::rename(target_, old, error);
    if (error) throw_write_error(target_, error.message());
    fs::rename(staging_, target_, error);
    if (error) throw_write_error(target_, error.message());
    fs::remove_all(old, error);
  }
  committed_ = true;
}

}  // namespace dtsim::core
