// Reads a file written by Python's torch.save (zip format, torch >= 1.6 default) or by LibTorch's
// torch::pickle_save into a PickleValue tree, without Python. LibTorch's own torch::pickle_load
// cannot be used for reference checkpoints: it turns collections.OrderedDict (every state dict)
// into None.
//
// Supported: the pickle opcodes of protocols 2-5 that these writers emit (no text protocol 0
// opcodes), dicts, OrderedDicts (their `_metadata` attribute is dropped), lists, tuples, sets
// (as lists), ints (int64; larger ones become Opaque), floats, str, bytes, None, bools,
// tensors of Float, Double, Half, BFloat16, Long, Int, Short, Char, Byte, Bool, ComplexFloat
// and ComplexDouble storages (from any device: all land on the CPU), nn.Parameter (read as its
// tensor) and LibTorch's typed-list wrappers. Objects of any other global (numpy arrays, custom
// classes) become PickleValue::opaque("module.qualname") instead of failing the load. Storages
// shared by several tensors are read once and shared, as in torch.load. Little-endian files only.
//
// Every failure (missing, empty, truncated or corrupt file, legacy pre-1.6 format, TorchScript
// archive, unknown opcode, missing storage record, ...) throws CheckpointError with one line
// naming the file, what is wrong and what to do. Corrupt input never reads out of bounds.
//
// Thread contract: stateless; concurrent calls on different (or the same) files are safe.
#pragma once

#include <string>
#include <vector>

#include "ml/checkpoint/PickleValue.h"

namespace streetgan {

class TorchPickleReader {
public:
    /// Reads the file at `path` (file-backed: the archive is not loaded into memory as a whole).
    static PickleValue load(const std::string& path);
    /// Reads an archive held in memory; `nameForMessages` names it in error messages.
    static PickleValue loadBytes(const std::vector<char>& zipBytes, const std::string& nameForMessages);
};

}  // namespace streetgan
