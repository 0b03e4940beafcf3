#!/usr/bin/env python3
"""Writes a TorchScript Inception-v3 feature extractor with the interface of clean-fid's
inception-2015-12-05.pt, for benchmarks only: torchvision's inception_v3 architecture (weights=None,
aux_logits=False, init_weights=False: PyTorch's default random initialisation; nothing is
downloaded), fc replaced by Identity so the network ends at the 2048-wide average pool.

The wrapper's forward(x, return_features: bool = False) takes float NCHW RGB in [0, 255] of any
size, resizes to 299x299 (bilinear), maps to [-1, 1] with (x - 128) / 128 as clean-fid does, and
returns the (N, 2048) pool features (with or without return_features: there is no classifier).
The timing of this network is representative of the real one (same layers, same shapes); its FID
values are meaningless (random weights).

Usage: make_inception_fid.py OUT.pt     (Debian's /usr/bin/python3 with python3-torchvision)
"""
import sys

import torch
import torch.nn.functional as F
import torchvision
from torch import nn


class InceptionFeatures(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor, return_features: bool = False) -> torch.Tensor:
        x = F.interpolate(x, size=(299, 299), mode="bilinear", align_corners=False)
        x = (x - 128.0) / 128.0
        return self.net(x)


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: make_inception_fid.py OUT.pt")
    torch.manual_seed(0)
    net = torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=False)
    net.fc = nn.Identity()
    net.eval()
    with torch.no_grad():
        traced = torch.jit.trace(net, torch.zeros(2, 3, 299, 299))
    module = torch.jit.script(InceptionFeatures(traced))
    torch.jit.save(module, sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
