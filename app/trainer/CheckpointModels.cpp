#include "trainer/CheckpointModels.h"

#include <torch/torch.h>

#include "ml/checkpoint/ModelLoader.h"
#include "ml/util/DeviceChoice.h"
#include "trainer/GeneratorOption.h"

namespace streetgan {

void CheckpointModels::addOptions(CLI::App* app) {
    app->add_option("--threads", threads_, "Torch intra-op threads (0: default)")->check(CLI::Range(0, 1024));
    app->add_option("--device", device_, "cpu | cuda | auto");
    addGeneratorOption(app, generator_);
}

void CheckpointModels::applyThreads() const {
    if (threads_ > 0) torch::set_num_threads(threads_);
}

void CheckpointModels::load(const std::string& checkpoint) {
    data = Checkpoint::load(checkpoint);
    device = DeviceChoice::select(device_);
    g = ModelLoader::generator(data, checkpoint, "", device, ModelLoader::parseChoice(generator_));
    d = Discriminator{nullptr};
    if (!data.generatorOnly()) {
        d = Discriminator(data.model);
        Checkpoint::apply(*d, data.discriminator, "D", checkpoint);
        d->to(device);
    }
}

}  // namespace streetgan
