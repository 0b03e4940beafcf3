// Which Python globals a checkpoint's pickle may name: those PyTorch's weights-only loader allows by
// default (torch/_weights_only_unpickler.py, _get_allowed_globals: OrderedDict, Counter, Parameter,
// Size, Tensor and its classes, device, layouts, dtypes, storages, quantisation schemes, the tensor
// rebuild functions, bytes/bytearray/set/complex), plus what it does not list but is data alone:
// TorchScript's list and type-tag helpers (LibTorch's own torch::save writes them), dict, defaultdict,
// frozenset and bytes, and numpy's arrays, scalars and dtypes (the globals PyTorch's documentation
// tells users to allow for them; kept opaque here). The Unpickler never calls a global; a name
// outside this list (os.system, subprocess.Popen, builtins.eval, an argparse.Namespace) is refused
// all the same, naming it, as PyTorch refuses it: such a file was not written as weights alone.
#pragma once

#include <string>

namespace streetgan {

class PickleGlobals {
public:
    /// `qualname` is "module.name" with Python 2's module names already mapped (builtins, copyreg).
    static bool allowed(const std::string& qualname);
};

}  // namespace streetgan
