"""A seeded autocast fault written in Python, with its clean twin (tests/python/test_autocast.py).

Both standardise each channel of an image with a DC offset (a camera's black level, an
unnormalised tensor). The fault takes the variance as E[x^2] - E[x]^2 with the squares summed by
a matmul: in float32 the difference keeps the variance, but under autocast the matmul runs in
float16 or bfloat16 and its sums of ~10^4 round (or overflow) by more than the variance itself.
The clean twin centres the channel before summing the squares.
"""

import torch


def one_pass_standardise(x):
    f = (x + 100.0).flatten(2)
    mean = f.mean(-1, keepdim=True)
    squares = torch.matmul(f, f.transpose(-1, -2)).diagonal(0, -2, -1).unsqueeze(-1) / f.shape[-1]
    variance = squares - mean * mean  # FAULT: cancellation under autocast
    return ((f - mean) / (variance + 1e-3).sqrt()).view(x.shape)


def centred_standardise(x):
    f = (x + 100.0).flatten(2)
    centred = f - f.mean(-1, keepdim=True)
    variance = torch.matmul(centred, centred.transpose(-1, -2)).diagonal(0, -2, -1).unsqueeze(-1) / f.shape[-1]
    return (centred / (variance + 1e-3).sqrt()).view(x.shape)
