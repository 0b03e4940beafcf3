#!/usr/bin/env python3
"""Writes two small TorchScript feature networks for the metrics tests (Debian's python3-torch).

Usage: make_feature_net.py OUT_DIR
  OUT_DIR/feat_kw.pt     clean-fid's interface: forward(x, return_features: bool = False) takes
                         float NCHW in [0, 255] of any size, resizes to 24x24 itself, normalises
                         (x - 128) / 128 and returns 16 features with return_features=True, 10
                         "logits" otherwise (so a caller that forgets the keyword is caught).
  OUT_DIR/feat_plain.pt  plain forward(x) -> (N, 12, 1, 1) features of [0, 255] input at its
                         own size (the caller flattens).
Weights are fixed by torch.manual_seed, so the files are the same on every run.
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn


class KeywordNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor, return_features: bool = False) -> torch.Tensor:
        x = F.interpolate(x, size=(24, 24), mode="bilinear", align_corners=False)
        x = (x - 128.0) / 128.0
        x = torch.tanh(self.conv1(x))
        x = torch.tanh(self.conv2(x))
        feats = x.mean(dim=(2, 3)) * 4.0
        if return_features:
            return feats
        return self.fc(feats)


class PlainNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 12, 5, stride=3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.conv(x / 255.0 - 0.5)).mean(dim=(2, 3), keepdim=True)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(1234)
    torch.jit.save(torch.jit.script(KeywordNet().eval()), os.path.join(out, "feat_kw.pt"))
    torch.jit.save(torch.jit.script(PlainNet().eval()), os.path.join(out, "feat_plain.pt"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
