#include "ml/dist/DistributedContext.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef STREETGAN_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef STREETGAN_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#include <torch/torch.h>

#include "base/slurm/SlurmStepEnv.h"
#include "base/util/Errors.h"
#include "ml/util/DeviceChoice.h"

namespace streetgan {
namespace {

int envInt(const char* name, std::optional<int> fallback, int lo, int hi) {
    const char* v = std::getenv(name);
    if (!v || !*v) {
        if (fallback) return *fallback;
        throw ConfigError(std::string("environment variable ") + name + " is not set: start the ranks with `streetgan-trainer launch` or torchrun");
    }
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < lo || n > hi)
        throw ConfigError(std::string("environment variable ") + name + "='" + v + "' is not a whole number in " + std::to_string(lo) + ".." +
                          std::to_string(hi) + ": fix the launcher's environment");
    return static_cast<int>(n);
}

// c10::Error's what() carries a C++ backtrace; the first line is the message.
std::string firstLine(const std::exception& e) {
    std::string s = e.what();
    if (auto* c = dynamic_cast<const c10::Error*>(&e)) s = c->what_without_backtrace();
    const auto nl = s.find('\n');
    return nl == std::string::npos ? s : s.substr(0, nl);
}

// True when another socket holds `port` on this machine (bind on the wildcard address fails with
// EADDRINUSE): why rank 0's store could not listen, told apart from other failures.
bool portInUse(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return false;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // as TCPStore: a port in TIME_WAIT is free
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    const bool inUse = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno == EADDRINUSE;
    ::close(fd);
    return inUse;
}

bool isLoopback(const std::string& addr) { return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1"; }

}  // namespace

std::optional<DistributedContext::Env> DistributedContext::Env::fromEnvironment() {
    const char* ws = std::getenv("WORLD_SIZE");
    if (!ws || !*ws) {
        // Not under torchrun or launch: a task of an srun step is a rank by Slurm's variables.
        const std::optional<SlurmStepEnv> slurm = SlurmStepEnv::fromEnvironment();
        if (!slurm || slurm->worldSize == 1) return std::nullopt;
        Env e;
        e.rank = slurm->rank;
        e.worldSize = slurm->worldSize;
        e.localRank = slurm->localRank;
        e.localWorldSize = slurm->localWorldSize;
        e.masterAddr = slurm->masterAddr;
        e.masterPort = slurm->masterPort;
        e.fromSlurm = true;
        // A job script may still choose the rendezvous itself (a port it knows to be free).
        if (const char* addr = std::getenv("MASTER_ADDR"); addr && *addr) e.masterAddr = addr;
        if (const char* port = std::getenv("MASTER_PORT"); port && *port) e.masterPort = envInt("MASTER_PORT", std::nullopt, 1, 65535);
        return e;
    }
    Env e;
    e.worldSize = envInt("WORLD_SIZE", std::nullopt, 1, 1 << 20);
    if (e.worldSize == 1) return std::nullopt;
    e.rank = envInt("RANK", std::nullopt, 0, e.worldSize - 1);
    e.localRank = envInt("LOCAL_RANK", e.rank, 0, e.worldSize - 1);
    e.localWorldSize = envInt("LOCAL_WORLD_SIZE", e.worldSize, 1, e.worldSize);
    const char* addr = std::getenv("MASTER_ADDR");
    if (!addr || !*addr) throw ConfigError("environment variable MASTER_ADDR is not set: start the ranks with `streetgan-trainer launch` or torchrun");
    e.masterAddr = addr;
    e.masterPort = envInt("MASTER_PORT", std::nullopt, 1, 65535);
    return e;
}

torch::Device DistributedContext::rankDevice(const std::string& spec, const Env& env) {
    const torch::Device d = DeviceChoice::select(spec);
    if (d.is_cuda() && spec.find(':') == std::string::npos) return DeviceChoice::select("cuda:" + std::to_string(env.localRank));
    return d;
}

std::string DistributedContext::backendFor(const std::string& choice, const torch::Device& device) {
    std::string b = choice == "auto" ? (device.is_cuda() ? "nccl" : "gloo") : choice;
    if (b != "nccl" && b != "gloo") throw ConfigError("--dist-backend '" + choice + "' is not one of auto, nccl, gloo");
    if (b == "nccl" && !device.is_cuda()) throw ConfigError("--dist-backend nccl needs a CUDA device: use --device cuda or --dist-backend gloo");
#ifndef STREETGAN_HAVE_NCCL
    if (b == "nccl")
        throw ConfigError(
            "distributed training with NCCL needs a build against a CUDA LibTorch, which this one is not: use --dist-backend gloo or --device cpu");
#endif
#ifndef STREETGAN_HAVE_GLOO
    if (b == "gloo") throw ConfigError("distributed training with Gloo needs a LibTorch built with Gloo (Debian: libgloo-dev), which this one is not");
#endif
    return b;
}

DistributedContext::DistributedContext(const Env& env, const std::string& backend, torch::Device device, std::chrono::milliseconds timeout)
    : env_(env), timeout_(timeout) {
    const std::string who = "rank " + std::to_string(env_.rank) + " of " + std::to_string(env_.worldSize);
    const bool nccl = backendFor(backend, device) == "nccl";
    c10d::TCPStoreOptions o;
    o.port = static_cast<std::uint16_t>(env_.masterPort);
    o.isServer = env_.rank == 0;
    o.numWorkers = static_cast<std::size_t>(env_.worldSize);
    o.waitWorkers = true;
    o.timeout = timeout_;
    try {
        auto tcp = c10::make_intrusive<c10d::TCPStore>(env_.masterAddr, o);
        store_ = c10::make_intrusive<c10d::PrefixStore>("streetgan", tcp);
    } catch (const std::exception& e) {
        if (o.isServer && portInUse(env_.masterPort))
            throw Error("distributed rendezvous port " + std::to_string(env_.masterPort) + " on " + env_.masterAddr +
                        " is in use by another program or job, so " + who + " cannot host the rendezvous there: " +
                        (env_.fromSlurm ? "export MASTER_PORT=<a free port> in the job script, or have Slurm reserve ports (srun --resv-ports=1)"
                                        : "set MASTER_PORT (launch --master ADDR:PORT) to a free port"));
        throw Error("distributed rendezvous at " + env_.masterAddr + ":" + std::to_string(env_.masterPort) + " failed for " + who + " (" + firstLine(e) +
                    (env_.fromSlurm ? "): check that every task of the srun step runs the trainer and that rank 0 is up"
                                    : "): check that every rank was started with the same MASTER_ADDR/MASTER_PORT and that rank 0 is up"));
    }
    try {
        if (nccl) {
#ifdef STREETGAN_HAVE_NCCL
            backend_ = "nccl";
            collectiveDevice_ = device;
            auto opts = c10d::ProcessGroupNCCL::Options::create();
            opts->timeout = timeout_;
            group_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(store_, env_.rank, env_.worldSize, opts);
#endif
        } else {
#ifdef STREETGAN_HAVE_GLOO
            backend_ = "gloo";
            auto opts = c10d::ProcessGroupGloo::Options::create(timeout_);
            // Like torch.distributed: GLOO_SOCKET_IFNAME names the interface; a loopback master
            // means every rank is on this machine, so loopback suffices; otherwise the host's address.
            if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
                opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
            else if (isLoopback(env_.masterAddr))
                opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
            else
                opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
            group_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store_, env_.rank, env_.worldSize, opts);
#endif
        }
    } catch (const std::exception& e) {
        throw Error("distributed " + std::string(nccl ? "NCCL" : "Gloo") + " process group could not be formed for " + who + " (" + firstLine(e) +
                    "): check that every rank is alive and reachable");
    }
}

DistributedContext::~DistributedContext() = default;

std::string DistributedContext::failure(const char* what, const std::string& cause) const {
    return "distributed " + std::string(what) + " failed on rank " + std::to_string(env_.rank) + " of " + std::to_string(env_.worldSize) + " (" + cause +
           "): another rank died, was stopped or did not answer within " + std::to_string(timeout_.count() / 1000) +
           " s; resume from the last checkpoint with --resume";
}

void DistributedContext::waitFor(const c10::intrusive_ptr<c10d::Work>& work, const char* what) const {
    bool ok = false;
    try {
        ok = work->wait(timeout_);
    } catch (const std::exception& e) {
        throw Error(failure(what, firstLine(e)));
    }
    if (!ok) throw Error(failure(what, "no answer"));
}

void DistributedContext::allreduceSum(torch::Tensor& t, const char* what) {
    std::vector<torch::Tensor> v{t.to(collectiveDevice_).contiguous()};
    waitFor(group_->allreduce(v), what);
    torch::NoGradGuard noGrad;
    t.copy_(v[0]);
}

void DistributedContext::broadcast(std::vector<torch::Tensor>& tensors, const char* what) {
    torch::NoGradGuard noGrad;
    // One flat buffer per dtype: a few collectives, and no constraint on the tensors' strides
    // (channels-last parameters are not contiguous).
    std::map<c10::ScalarType, std::vector<size_t>> byType;
    for (size_t i = 0; i < tensors.size(); ++i) byType[tensors[i].scalar_type()].push_back(i);
    for (auto& [type, idx] : byType) {
        std::vector<torch::Tensor> parts;
        for (size_t i : idx) parts.push_back(tensors[i].reshape(-1).to(collectiveDevice_));
        std::vector<torch::Tensor> flat{torch::cat(parts)};
        waitFor(group_->broadcast(flat), what);
        int64_t off = 0;
        for (size_t i : idx) {
            const int64_t n = tensors[i].numel();
            tensors[i].copy_(flat[0].narrow(0, off, n).view(tensors[i].sizes()));
            off += n;
        }
    }
}

void DistributedContext::broadcastModule(torch::nn::Module& module, const char* what) {
    std::vector<torch::Tensor> all = module.parameters();
    for (auto& b : module.buffers()) all.push_back(b);
    broadcast(all, what);
}

void DistributedContext::broadcastBytes(std::string& bytes, const char* what) {
    auto size = torch::full({1}, static_cast<int64_t>(isRoot() ? bytes.size() : 0), torch::kInt64);
    std::vector<torch::Tensor> v{size};
    broadcast(v, what);
    const int64_t n = v[0].item<int64_t>();
    auto buf = torch::empty({n}, torch::kUInt8);
    if (isRoot()) std::memcpy(buf.data_ptr<uint8_t>(), bytes.data(), bytes.size());
    std::vector<torch::Tensor> b{buf};
    if (n > 0) broadcast(b, what);
    bytes.assign(reinterpret_cast<const char*>(b[0].data_ptr<uint8_t>()), static_cast<size_t>(n));
}

}  // namespace streetgan
