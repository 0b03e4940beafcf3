#include "ml/checkpoint/PickleGlobals.h"

#include <regex>
#include <unordered_set>

namespace streetgan {

bool PickleGlobals::allowed(const std::string& qualname) {
    static const std::unordered_set<std::string> kNames = {
        // PyTorch's weights-only allow list, by name.
        "collections.OrderedDict", "collections.Counter", "torch.nn.parameter.Parameter", "torch.serialization._get_layout", "torch.Size", "torch.Tensor",
        "torch.device", "_codecs.encode", "builtins.bytearray", "builtins.set", "builtins.complex", "torch._tensor._rebuild_from_type_v2",
        "torch.storage.TypedStorage", "torch.storage.UntypedStorage", "torch.per_tensor_affine", "torch.per_tensor_symmetric", "torch.per_channel_affine",
        "torch.per_channel_symmetric", "torch.per_channel_affine_float_qparams",
        // Data constructors it does not list; the Unpickler interprets them (UnpicklerTorch.cpp).
        "torch._utils._rebuild_from_type_v2", "builtins.dict", "collections.defaultdict", "builtins.frozenset", "builtins.bytes",
        "torch.jit._pickle.restore_type_tag", "torch.jit._pickle.build_intlist", "torch.jit._pickle.build_floatlist", "torch.jit._pickle.build_doublelist",
        "torch.jit._pickle.build_boollist", "torch.jit._pickle.build_tensorlist", "torch.jit._pickle.build_complexlist",
        // numpy's arrays, scalars and dtypes (numpy 1 and 2 module names): opaque values here.
        "numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct", "numpy.core.multiarray.scalar", "numpy._core.multiarray.scalar",
        "numpy.ndarray", "numpy.dtype"};
    if (kNames.count(qualname)) return true;
    // The families: torch._utils._rebuild_* (tensor, parameter, qtensor, sparse, nested, meta...),
    // dtypes (torch.float32, torch.bfloat16, torch.float8_e4m3fn, torch.uint3...), the legacy tensor
    // and storage classes (torch.FloatTensor, torch.cuda.HalfStorage...), numpy's dtype classes.
    static const std::regex kFamilies(
        R"(torch\._utils\._rebuild_[a-z0-9_]+|torch\.(u?int[0-9]+|float[0-9]*(_e[0-9]+m[0-9]+[a-z]*(_x2)?)?|bfloat16|half|double|bool|complex[0-9]*|c?q(u)?int[0-9x]+)|torch(\.cuda)?(\.sparse)?\.[A-Z][A-Za-z0-9]*(Tensor|Storage)|numpy\.dtypes\.[A-Za-z0-9]+DType)");
    return std::regex_match(qualname, kFamilies);
}

}  // namespace streetgan
