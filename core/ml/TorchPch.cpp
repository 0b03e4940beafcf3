// The translation unit that owns the precompiled LibTorch header (core/ml/CMakeLists.txt,
// streetgan_torch_pch): it has no code of its own.
