//===- AtomicFile.cpp - Files replaced whole or not at all ----------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Support/AtomicFile.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

bool orchestra::writeFileAtomically(const std::string &path, const void *data,
                                    size_t size, std::string &error) {
  auto fail = [&](const std::string &what) {
    error = what + ": " + std::strerror(errno);
    return false;
  };
  // A name of its own in the same folder (so that rename stays within one
  // file system), created with the permissions a plain open would give.
  static std::atomic<unsigned> counter{0};
  std::string temporaryPath;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temporaryPath = path + ".tmp-" + std::to_string(::getpid()) + "-" +
                    std::to_string(counter++);
    fd = ::open(temporaryPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0)
    return fail("cannot write '" + path + "'");
  auto abandon = [&](const std::string &what) {
    int saved = errno;
    ::close(fd);
    ::unlink(temporaryPath.c_str());
    errno = saved;
    return fail(what);
  };
  const char *bytes = static_cast<const char *>(data);
  for (size_t written = 0; written < size;) {
    ssize_t n = ::write(fd, bytes + written, size - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return abandon("cannot write '" + path + "'");
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0)
    return abandon("cannot write '" + path + "'");
  if (::close(fd) != 0) {
    int saved = errno;
    ::unlink(temporaryPath.c_str());
    errno = saved;
    return fail("cannot write '" + path + "'");
  }
  if (::rename(temporaryPath.c_str(), path.c_str()) != 0) {
    int saved = errno;
    ::unlink(temporaryPath.c_str());
    errno = saved;
    return fail("cannot write '" + path + "'");
  }
  return true;
}
