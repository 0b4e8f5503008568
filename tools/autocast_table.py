#!/usr/bin/env python3
"""What torch.autocast does on a device, op by op: the conformance table of docs/autocast.md.

Runs every entry of PyTorch's own CUDA autocast lists (torch.testing._internal.autocast_test_lists,
the ops and arguments torch's test_cuda.py checks autocast with) under torch.autocast(DEVICE) in
float16 and in bfloat16 and writes, per entry, the dtypes of its outputs (or the error it raised),
plus the ops that have a kernel for the device's autocast dispatch key. Made on a real GPU for
`cuda` (tests/data/autocast/), and on the simulated device for `vdev`; --compare prints the table
of both and exits 1 where they differ.

  tools/autocast_table.py --device cuda --out cuda.json
  PYTHONPATH=build/release/python tools/autocast_table.py --device vdev --compare cuda.json
"""

import argparse
import json
import sys

import torch_testing

LISTS = ("torch_expect_builtin_promote", "methods_expect_builtin_promote", "torch_fp16", "torch_fp32",
         "torch_need_autocast_promote", "nn_fp16", "nn_fp32", "linalg_fp16", "methods_fp16", "methods_fp32",
         "banned")
LOW = ("float16", "bfloat16")


def _callable(torch, list_name, op, args):
    if list_name.startswith("methods"):
        return lambda *a, **k: getattr(a[0], op)(*a[1:], **k)
    module = {"nn": torch._C._nn, "linalg": torch._C._linalg}.get(list_name.split("_")[0], torch)
    return getattr(module, op)


def _dtypes(value):
    import torch

    if isinstance(value, torch.Tensor):
        return [str(value.dtype).replace("torch.", "")]
    if isinstance(value, (tuple, list)):
        return [d for v in value for d in _dtypes(v)]
    return []


def _run(torch, device_type, fn, args, kwargs, low):
    try:
        if low is None:
            return _dtypes(fn(*args, **kwargs))
        with torch.autocast(device_type, dtype=getattr(torch, low)):
            return _dtypes(fn(*args, **kwargs))
    except Exception as e:  # an op autocast bans, or one the device lacks: recorded, compared
        return {"error": type(e).__name__, "message": str(e).splitlines()[0][:200] if str(e) else ""}


def _autocast_lists():
    torch_testing.stand_in_test_dependencies()
    from torch.testing._internal.autocast_test_lists import AutocastTestLists

    return AutocastTestLists


def entries(device):
    import torch

    AutocastTestLists = _autocast_lists()

    torch.manual_seed(0)
    lists = AutocastTestLists(torch.device(device))
    out = []
    for list_name in LISTS:
        for entry in getattr(lists, list_name, []):
            op, args = entry[0], entry[1]
            kwargs = next((e for e in entry[2:] if isinstance(e, dict)), {})
            if list_name == "banned":  # (op, args, module)
                fn = getattr(entry[2], op)
                kwargs = {}
            else:
                fn = _callable(torch, list_name, op, args)
            row = {"list": list_name, "op": op, "eager": _run(torch, device, fn, args, kwargs, None)}
            for low in LOW:
                row[low] = _run(torch, device, fn, args, kwargs, low)
            out.append(row)
    return out


def keyed_ops(key):
    import torch

    names = sorted(torch._C._dispatch_get_all_op_names())
    return [n for n in names if torch._C._dispatch_has_kernel_for_dispatch_key(n, key)]


def make(device):
    import torch

    device_type = torch.device(device).type
    key = "AutocastCUDA" if device_type == "cuda" else ("AutocastPrivateUse1" if device_type not in ("cpu",) else "AutocastCPU")
    table = {"torch": torch.__version__, "device": device_type, "key": key, "entries": entries(device),
             "ops_with_kernel": keyed_ops(key), "made_by": "tools/autocast_table.py"}
    if device_type == "cuda":
        table["gpu"] = torch.cuda.get_device_name(0)
    else:  # the same torch's CUDA lists, for comparing the registered sets within one version
        table["cuda_ops_with_kernel"] = keyed_ops("AutocastCUDA")
    return table


def _cell(value):
    return value["error"] if isinstance(value, dict) else ",".join(value) or "-"


def compare(ours, theirs):
    """Rows of (list, op, dtype, ours, theirs, same); entries matched by list and position."""
    rows = []
    mine = {}
    for e in ours["entries"]:
        mine.setdefault((e["list"], e["op"]), []).append(e)
    seen = {}
    for e in theirs["entries"]:
        k = (e["list"], e["op"])
        i = seen.get(k, 0)
        seen[k] = i + 1
        if i >= len(mine.get(k, [])):
            rows.append((e["list"], e["op"], "-", "missing", "", False))
            continue
        o = mine[k][i]
        for low in LOW:
            a, b = o[low], e[low]
            same = (isinstance(a, dict) and isinstance(b, dict)) or a == b
            rows.append((e["list"], e["op"], low, _cell(a), _cell(b), same))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", required=True, help="cuda, vdev (installs devparity's simulated device), cpu")
    ap.add_argument("--out", help="write the table here (JSON)")
    ap.add_argument("--compare", metavar="REF", help="a table made elsewhere: print both, exit 1 where they differ")
    args = ap.parse_args()
    if args.device.startswith("vdev"):
        import devparity

        devparity.install()
    table = make(args.device)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(table, f, indent=1)
    if not args.compare:
        print(f"{len(table['entries'])} entries, {len(table['ops_with_kernel'])} ops with a {table['key']} kernel")
        return 0
    with open(args.compare) as f:
        ref = json.load(f)
    rows = compare(table, ref)
    print(f"| list | op | dtype | {table['device']} (torch {table['torch']}) | {ref['device']} (torch {ref['torch']}) |")
    print("|---|---|---|---|---|")
    for lst, op, low, a, b, same in rows:
        print(f"| {lst} | {op} | {low} | {a} | {b}{'' if same else ' **differs**'} |")
    differ = [r for r in rows if not r[5]]
    print(f"{len(rows) - len(differ)} of {len(rows)} the same", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
