#!/usr/bin/env python3
"""The ops CUDA has no float16 or bfloat16 kernel for, from PyTorch's own OpInfo database.

Writes harness/rules/tables/cuda-half-gaps-<release>.tsv for the torch it runs under: one line per
ATen op whose every OpInfo (torch.testing._internal.common_methods_invocations.op_db, the dtypes
PyTorch's CI checks each op claims on CUDA) leaves float16 or bfloat16 out on CUDA (the claims for a current GPU: CUDA 11 or later, sm_80 or
later). The simulated
device runs an op the CPU lacks a half precision kernel for through float32 (Note [Half precision
on the virtual device]) unless this table says CUDA lacks it too: then it fails as CUDA does.
Ops no OpInfo covers (backward and internal ops) are taken to have CUDA's half kernels, as nearly
every CUDA kernel is dispatched with AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16).

  tools/cuda_half_gaps.py > harness/rules/tables/cuda-half-gaps-2.6.tsv     (in the trixie root)
  /usr/bin/python3 tools/cuda_half_gaps.py > harness/rules/tables/cuda-half-gaps-1.13.tsv
"""

import sys

import torch_testing


def _op_db():
    torch_testing.stand_in_test_dependencies()
    # The database states some dtypes only where the machine has a GPU of a capability (bfloat16
    # matmuls from CUDA 11 and sm_80, ...); here is no GPU: the claims for a current one (CUDA 11
    # or later, sm_80 or later) are wanted, so every such condition is answered yes.
    import re

    import torch
    import torch.testing._internal.common_cuda as common_cuda

    for name in dir(common_cuda):
        if re.fullmatch(r"(CUDA\d+OrLater|SM\d+OrLater|PLATFORM_SUPPORTS_\w+|TEST_CUDA|TEST_CUDNN)", name):
            setattr(common_cuda, name, True)  # plain flags on 1.13, lazy values on 2.x
    torch.cuda.is_bf16_supported = lambda *args, **kwargs: True
    from torch.testing._internal.common_methods_invocations import op_db

    return op_db


def gaps():
    import torch

    wanted = {torch.float16: "float16", torch.bfloat16: "bfloat16"}
    supported = {}  # aten name -> the half dtypes some OpInfo of it supports on CUDA
    for info in _op_db():
        name = (info.aten_name or info.name).replace(".", "_")
        have = supported.setdefault(name, set())
        cuda = info.supported_dtypes("cuda")
        have.update(label for dtype, label in wanted.items() if dtype in cuda)
    return {name: sorted(set(wanted.values()) - have) for name, have in supported.items()
            if set(wanted.values()) - have}


def main():
    import torch

    table = gaps()
    print(f"# ATen ops CUDA has no kernel for in these dtypes (torch {torch.__version__}'s OpInfo database;")
    print("# tools/cuda_half_gaps.py). Columns: op (base name: its overloads, in-place and out= forms), dtypes.")
    for name in sorted(table):
        print(f"{name}\t{','.join(table[name])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
