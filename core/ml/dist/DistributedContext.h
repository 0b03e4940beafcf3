// One rank of a multi-process training run on PyTorch c10d: reads torchrun's environment
// (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), or an srun task's
// (SLURM_PROCID, SLURM_NTASKS, the node list...: base/slurm/SlurmStepEnv), meets the other ranks
// through a TCPStore (rank 0 hosts it) and builds the process group: by default Gloo on CPU and
// NCCL on CUDA (NCCL only in builds against a CUDA LibTorch, STREETGAN_HAVE_NCCL); Gloo also
// serves CUDA ranks, through host copies, where NCCL cannot (two ranks on one GPU, which NCCL
// refuses since 2.5: "Duplicate GPU detected"). Every collective waits at
// most `timeout`; a dead or hung peer surfaces as an Error naming the operation and this rank,
// never as a silent hang. The collectives are blocking helpers over the process group.
//
// Thread contract: collectives must be called in the same order on every rank; one thread at a
// time (GradientSync launches its own allreduces from the autograd thread of that same step).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/types.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "ml/util/TorchCompat.h"

namespace streetgan {

class DistributedContext {
public:
    /// torchrun's environment of one rank.
    struct Env {
        int rank = 0;
        int worldSize = 1;
        int localRank = 0;
        int localWorldSize = 1;
        std::string masterAddr = "127.0.0.1";
        int masterPort = 29500;
        /// Read from Slurm's variables (an srun task, SlurmStepEnv) rather than torchrun's.
        bool fromSlurm = false;
        /// The environment's values when WORLD_SIZE is set and above 1; without WORLD_SIZE, an srun
        /// task's (SlurmStepEnv; MASTER_ADDR and MASTER_PORT, when set, still win) when its step
        /// has more than one task; nullopt otherwise (a single process, also under torchrun
        /// --nproc 1 or srun -n 1). Throws ConfigError for malformed values.
        static std::optional<Env> fromEnvironment();
    };

    /// The device a rank computes on for a --device value: cuda without an index is one GPU per
    /// local rank (cuda:LOCAL_RANK); any other value as DeviceChoice::select gives it.
    static torch::Device rankDevice(const std::string& spec, const Env& env);
    /// The backend for a --dist-backend value on `device`: "auto" is NCCL on CUDA and Gloo on the
    /// CPU; "nccl" and "gloo" are taken as given. Throws ConfigError for NCCL on the CPU, for other
    /// values, and for a backend this build lacks.
    static std::string backendFor(const std::string& choice, const torch::Device& device);

    /// Rendezvous and process group creation with `backend` (backendFor's answer); `device` is the
    /// rank's compute device (NCCL's collectives run there). Throws Error when the peers do not
    /// meet within `timeout`.
    DistributedContext(const Env& env, const std::string& backend, torch::Device device, std::chrono::milliseconds timeout);
    ~DistributedContext();
    DistributedContext(const DistributedContext&) = delete;
    DistributedContext& operator=(const DistributedContext&) = delete;

    int rank() const { return env_.rank; }
    int worldSize() const { return env_.worldSize; }
    bool isRoot() const { return env_.rank == 0; }
    const Env& env() const { return env_; }
    std::chrono::milliseconds timeout() const { return timeout_; }
    /// "gloo" or "nccl".
    const std::string& backend() const { return backend_; }
    const c10::intrusive_ptr<TorchCompat::CollectiveGroup>& group() const { return group_; }
    /// Where the backend wants its tensors: the CPU for Gloo, this rank's GPU for NCCL.
    torch::Device collectiveDevice() const { return collectiveDevice_; }

    /// In-place sum over all ranks (blocking); `t` may live on the CPU whatever the backend.
    void allreduceSum(torch::Tensor& t, const char* what);
    /// Rank 0's values of `tensors` to every rank, in place (blocking).
    void broadcast(std::vector<torch::Tensor>& tensors, const char* what);
    /// Rank 0's parameters and buffers of `module` to every rank, in place.
    void broadcastModule(torch::nn::Module& module, const char* what);
    /// Rank 0's `bytes` to every rank (other ranks' input is ignored).
    void broadcastBytes(std::string& bytes, const char* what);
    /// Waits for `work` and turns a failure or a timeout into an Error naming `what` and this rank.
    void waitFor(const c10::intrusive_ptr<c10d::Work>& work, const char* what) const;
    /// The one-line Error text for a failed collective (also used by GradientSync).
    std::string failure(const char* what, const std::string& cause) const;

private:
    Env env_;
    std::chrono::milliseconds timeout_;
    std::string backend_;
    torch::Device collectiveDevice_ = torch::kCPU;
    c10::intrusive_ptr<c10d::Store> store_;
    c10::intrusive_ptr<TorchCompat::CollectiveGroup> group_;
};

}  // namespace streetgan
