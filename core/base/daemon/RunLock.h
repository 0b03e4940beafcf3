// "A trainer is alive in this run directory": an open-file-description write lock
// (fcntl F_OFD_SETLK) on RUN/trainer.lock, held for the trainer's life and dropped by the kernel
// when the process dies, however it dies. isHeld() only queries (F_OFD_GETLK), so probing a run
// (ls, attach) never races with a trainer taking the lock. Also writes RUN/trainer.pid.
#pragma once

#include <cstdint>
#include <string>

namespace streetgan {

class RunLock {
public:
    /// Takes the lock of `runDir` (which must exist); throws IoError naming the live trainer's
    /// pid when another process holds it.
    explicit RunLock(const std::string& runDir);
    ~RunLock();
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;

    /// True when some open file description other than the caller's holds the lock.
    static bool isHeld(const std::string& runDir);
    /// The pid recorded in RUN/trainer.pid, 0 when none.
    static int64_t recordedPid(const std::string& runDir);

private:
    std::string runDir_;
    int fd_ = -1;
};

}  // namespace streetgan
