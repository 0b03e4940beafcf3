"""The reference PyTorch DCGAN (the Python project StreetGAN reproduces), for test fixtures and
benchmarks. Run with Debian's /usr/bin/python3 (python3-torch). Layer order and names match
core/model exactly: state-dict keys main.N.* on both sides.

G: ConvT(nz->ngf*2^(k-1),4,1,0) BN ReLU, k-1 x [ConvT(x->x/2,4,2,1) BN ReLU], ConvT(ngf->nc,4,2,1) Tanh
D: Conv(nc->ndf,4,2,1) LReLU(0.2), k-1 x [Conv(x->2x,4,2,1) BN LReLU], Conv(->1,4,1,0)
with k = log2(img_size) - 2 stride-2 stages (64 px: k = 4, 128 px: k = 5). No conv bias.
"""
import math

import torch
import torch.nn as nn

PRESETS = {
    "tiny-32": dict(nz=64, ngf=32, ndf=32, img_size=32),
    "naive-64": dict(nz=100, ngf=64, ndf=64, img_size=64),
    "safe-64": dict(nz=256, ngf=256, ndf=64, img_size=64),
    "safe-128": dict(nz=256, ngf=256, ndf=128, img_size=128),
    "msls-128": dict(nz=128, ngf=128, ndf=32, img_size=128),
}


def _stages(img_size):
    return int(round(math.log2(img_size))) - 2


class Generator(nn.Module):
    def __init__(self, nz, ngf, img_size, nc=3):
        super().__init__()
        k = _stages(img_size)
        ch = ngf * 2 ** (k - 1)
        layers = [nn.ConvTranspose2d(nz, ch, 4, 1, 0, bias=False), nn.BatchNorm2d(ch), nn.ReLU(True)]
        for _ in range(k - 1):
            layers += [nn.ConvTranspose2d(ch, ch // 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ch // 2), nn.ReLU(True)]
            ch //= 2
        layers += [nn.ConvTranspose2d(ch, nc, 4, 2, 1, bias=False), nn.Tanh()]
        self.main = nn.Sequential(*layers)

    def forward(self, z):
        return self.main(z.view(z.size(0), z.size(1), 1, 1))


class Discriminator(nn.Module):
    def __init__(self, ndf, img_size, nc=3):
        super().__init__()
        k = _stages(img_size)
        ch = ndf
        layers = [nn.Conv2d(nc, ch, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True)]
        for _ in range(k - 1):
            layers += [nn.Conv2d(ch, ch * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ch * 2), nn.LeakyReLU(0.2, inplace=True)]
            ch *= 2
        layers += [nn.Conv2d(ch, 1, 4, 1, 0, bias=False)]
        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return self.main(x).view(-1)


def weights_init(m):
    name = m.__class__.__name__
    if name.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif name.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


def build(preset, nc=3):
    p = PRESETS[preset]
    g = Generator(p["nz"], p["ngf"], p["img_size"], nc)
    d = Discriminator(p["ndf"], p["img_size"], nc)
    g.apply(weights_init)
    d.apply(weights_init)
    return g, d, p


class ReferenceStep:
    """One reference training step: AdamW(lr 2e-4, betas (0.5, 0.999), wd 0.05), BCEWithLogits,
    hard labels, D on real then fake.detach(), G against label 1."""

    def __init__(self, g, d, nz, lr=2e-4, betas=(0.5, 0.999), weight_decay=0.05):
        self.g, self.d, self.nz = g, d, nz
        self.opt_g = torch.optim.AdamW(g.parameters(), lr=lr, betas=betas, weight_decay=weight_decay)
        self.opt_d = torch.optim.AdamW(d.parameters(), lr=lr, betas=betas, weight_decay=weight_decay)
        self.crit = nn.BCEWithLogitsLoss()

    def __call__(self, real, noise):
        b = real.size(0)
        ones = torch.ones(b)
        zeros = torch.zeros(b)
        self.d.zero_grad(set_to_none=True)
        out_real = self.d(real)
        err_real = self.crit(out_real, ones)
        err_real.backward()
        fake = self.g(noise)
        out_fake = self.d(fake.detach())
        err_fake = self.crit(out_fake, zeros)
        err_fake.backward()
        self.opt_d.step()
        self.g.zero_grad(set_to_none=True)
        out = self.d(fake)
        err_g = self.crit(out, ones)
        err_g.backward()
        self.opt_g.step()
        # metrics stay on the device (no .item() per step), like the C++ trainer
        return err_real + err_fake, err_g, torch.sigmoid(out_real).mean(), torch.sigmoid(out_fake).mean(), torch.sigmoid(out).mean()
