// Built by tests/packaging/torch-package against a CUDA torch package imported without its CMake
// files: the CUDA and NCCL headers our trainer includes compile, libtorch_cuda is loaded at start
// (its backend registered: the link keeps it although nothing here calls it by name), and a
// c10d NCCL symbol links.
#include <ATen/cuda/CUDAGraph.h>
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include <fstream>
#include <iostream>
#include <string>

int main() {
    const auto options = c10d::ProcessGroupNCCL::Options::create();
    std::ifstream maps("/proc/self/maps");
    bool cudaLoaded = false;
    for (std::string line; std::getline(maps, line);)
        if (line.find("libtorch_cuda.so") != std::string::npos) cudaLoaded = true;
    const float sum = torch::ones({2, 2}).sum().item<float>();
    std::cout << "torch " << TORCH_VERSION << ", ones(2,2).sum() = " << sum << ", libtorch_cuda " << (cudaLoaded ? "loaded" : "NOT loaded") << ", NCCL options "
              << (options ? "made" : "missing") << std::endl;
    return cudaLoaded && sum == 4.0F && options ? 0 : 1;
}
