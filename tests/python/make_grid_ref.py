#!/usr/bin/env python3
"""Reference for ImageGridTest: torchvision 0.14's make_grid (torchvision/utils.py), copied
statement for statement (logging and the deprecated `range` keyword left out), because torchvision
itself is not installed here. Also reproduces save_image's uint8 conversion.

Usage: make_grid_ref.py MANIFEST
Each MANIFEST line: IN OUT N C H W NROW PADDING NORMALIZE(0|1) PAD_VALUE
IN holds N*C*H*W raw float32 values (C order). OUT receives the grid as raw float32; OUT.shape
its shape (space separated) and OUT.u8 save_image's uint8 HWC bytes of the grid.
"""
import math
import sys
from typing import List, Optional, Tuple, Union

import numpy as np
import torch


@torch.no_grad()
def make_grid(
    tensor: Union[torch.Tensor, List[torch.Tensor]],
    nrow: int = 8,
    padding: int = 2,
    normalize: bool = False,
    value_range: Optional[Tuple[int, int]] = None,
    scale_each: bool = False,
    pad_value: float = 0.0,
) -> torch.Tensor:
    if not torch.is_tensor(tensor):
        if isinstance(tensor, list):
            for t in tensor:
                if not torch.is_tensor(t):
                    raise TypeError(f"tensor or list of tensors expected, got a list containing {type(t)}")
        else:
            raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")

    # if list of tensors, convert to a 4D mini-batch Tensor
    if isinstance(tensor, list):
        tensor = torch.stack(tensor, dim=0)

    if tensor.dim() == 2:  # single image H x W
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:  # single image
        if tensor.size(0) == 1:  # if single-channel, convert to 3-channel
            tensor = torch.cat((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)

    if tensor.dim() == 4 and tensor.size(1) == 1:  # single-channel images
        tensor = torch.cat((tensor, tensor, tensor), 1)

    if normalize is True:
        tensor = tensor.clone()  # avoid modifying tensor in-place
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")

        def norm_ip(img, low, high):
            img.clamp_(min=low, max=high)
            img.sub_(low).div_(max(high - low, 1e-5))

        def norm_range(t, value_range):
            if value_range is not None:
                norm_ip(t, value_range[0], value_range[1])
            else:
                norm_ip(t, float(t.min()), float(t.max()))

        if scale_each is True:
            for t in tensor:  # loop over mini-batch dimension
                norm_range(t, value_range)
        else:
            norm_range(tensor, value_range)

    if not isinstance(tensor, torch.Tensor):
        raise TypeError("tensor should be of type torch.Tensor")
    if tensor.size(0) == 1:
        return tensor.squeeze(0)

    # make the mini-batch of images into a grid
    nmaps = tensor.size(0)
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(float(nmaps) / xmaps))
    height, width = int(tensor.size(2) + padding), int(tensor.size(3) + padding)
    num_channels = tensor.size(1)
    grid = tensor.new_full((num_channels, height * ymaps + padding, width * xmaps + padding), pad_value)
    k = 0
    for y in range(ymaps):
        for x in range(xmaps):
            if k >= nmaps:
                break
            # Tensor.copy_() is a valid method but seems to be missing from the stubs
            # https://pytorch.org/docs/stable/tensors.html#torch.Tensor.copy_
            grid.narrow(1, y * height + padding, height - padding).narrow(  # type: ignore[attr-defined]
                2, x * width + padding, width - padding
            ).copy_(tensor[k])
            k = k + 1
    return grid


def save_image_bytes(grid: torch.Tensor) -> np.ndarray:
    # torchvision.utils.save_image, minus PIL: the uint8 HWC array it hands to Image.fromarray
    return grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", torch.uint8).numpy()


def main() -> int:
    with open(sys.argv[1]) as f:
        for line in f:
            if not line.strip():
                continue
            src, dst, n, c, h, w, nrow, padding, normalize, pad_value = line.split()
            shape = (int(n), int(c), int(h), int(w))
            data = np.fromfile(src, dtype=np.float32).reshape(shape)
            grid = make_grid(torch.from_numpy(data.copy()), nrow=int(nrow), padding=int(padding),
                             normalize=normalize == "1", pad_value=float(pad_value))
            grid.contiguous().numpy().astype(np.float32).tofile(dst)
            with open(dst + ".shape", "w") as s:
                s.write(" ".join(str(d) for d in grid.shape) + "\n")
            np.ascontiguousarray(save_image_bytes(grid)).tofile(dst + ".u8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
